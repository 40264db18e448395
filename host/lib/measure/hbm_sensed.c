/* SPDX-License-Identifier: MIT */
/* An HBM2 card's point with its sensors read before the ports start and after the window. */
#include <math.h>

#include "stackbench/capture.h"
#include "stackbench/error.h"
#include "stackbench/hbm_sensed.h"
#include "stackbench/instrument.h"

/* One reading of each source there is; when = "before" or "after" the point, for messages. */
static int sample(const struct sb_point_instruments *inst, const char *when,
                  struct sb_temp_reading *t, struct sb_power_reading *p)
{
	int e;

	if (inst->temp && (e = sb_temp_source_sample(inst->temp, t)) < 0)
		return sb_error_wrap(e, "the temperature source '%s' %s the point",
		                     sb_temp_source_conn(inst->temp), when);
	if (inst->power && (e = sb_power_source_sample(inst->power, p)) < 0)
		return sb_error_wrap(e, "the power source '%s' %s the point",
		                     sb_power_source_conn(inst->power), when);
	return 0;
}

int sb_hbm_point_run_sensed(struct sb_device *dev, const struct sb_hbm_spec *s,
                            const struct sb_point_instruments *inst, struct sb_hbm_result *r,
                            struct sb_hbm_sensed *out)
{
	return sb_hbm_point_capture_sensed(dev, s, inst, NULL, r, out);
}

int sb_hbm_point_capture_sensed(struct sb_device *dev, const struct sb_hbm_spec *s,
                                const struct sb_point_instruments *inst, struct sb_capture *cap,
                                struct sb_hbm_result *r, struct sb_hbm_sensed *out)
{
	struct sb_temp_reading t = {0};
	struct sb_power_reading p = {0};
	int e;

	*out = (struct sb_hbm_sensed){NAN, NAN, NAN, NAN, NAN};
	/* before: the temperature the point starts at; the meter's reading covers the time
	   before the point and only starts its interval */
	if ((e = sample(inst, "before", &t, &p)) < 0)
		return e;
	if (inst->temp)
		out->temp_start_c = t.hotspot_c;
	/* the capture drains the trace while the window waits (a wait hook): the readings
	   around it are the same */
	if ((e = cap ? sb_hbm_point_capture(dev, s, cap, r) : sb_hbm_point_run(dev, s, r)) < 0)
		return e;
	if ((e = sample(inst, "after", &t, &p)) < 0)
		return e;
	if (inst->temp)
		out->temp_end_c = t.hotspot_c;
	if (inst->power) {
		out->power_w = p.power_w;
		if (p.has_va) {
			out->volts_v = p.volts;
			out->amps_a = p.amps;
		}
	}
	return 0;
}
