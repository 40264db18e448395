/* SPDX-License-Identifier: MIT */
/*
 * An HBM2 card's point with its instruments read around it (docs/hbm2.md, "Card sensors"): on
 * a card, its own sensors (sensors:, libsensors), read as an HBM2 campaign's points read them.
 */
#ifndef STACKBENCH_HBM_SENSED_H
#define STACKBENCH_HBM_SENSED_H

#include "stackbench/hbm.h"
#include "stackbench/point.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the instruments said: NAN for what a source that is not there would have said. */
struct sb_hbm_sensed {
	double temp_start_c, temp_end_c; /* the temperature source before the ports start, after */
	double power_w;                  /* the power source's mean from before to after */
	double volts_v, amps_a;          /* after; NAN unless the source gives them (curr=, in=) */
};

/*
 * Run the point (sb_hbm_point_run) with inst's temperature and power sources (either may be
 * NULL; the cooling is not used) sampled just before the ports start and after the window. A
 * source that cannot be read fails the call naming its connection string (its error: SB_ERR_IO
 * when the sensor went away); after the point ran, r holds its result even then.
 */
int sb_hbm_point_run_sensed(struct sb_device *dev, const struct sb_hbm_spec *s,
                            const struct sb_point_instruments *inst, struct sb_hbm_result *r,
                            struct sb_hbm_sensed *out);

struct sb_capture;
/* The same with the point's AXI bursts captured into cap (sb_hbm_point_capture; NULL: none).
 * The caller opens and closes the capture. */
int sb_hbm_point_capture_sensed(struct sb_device *dev, const struct sb_hbm_spec *s,
                                const struct sb_point_instruments *inst, struct sb_capture *cap,
                                struct sb_hbm_result *r, struct sb_hbm_sensed *out);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_HBM_SENSED_H */
