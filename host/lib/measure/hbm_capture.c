/* SPDX-License-Identifier: MIT */
/*
 * Trace capture of an HBM2 point (stackbench/capture.h, sb_hbm_point_capture): the capture
 * starts before the ports, the device's wait hook drains the trace block whenever the point
 * lets bench time pass (its warm-up, its window, the wait for the ports to drain), and the
 * capture stops once the ports are idle, with the bursts the recorded ports issued as what was
 * executed. The point itself (hbm.c) knows nothing of the capture.
 */
#include <inttypes.h>

#include "sb_regmap.h"
#include "stackbench/capture.h"
#include "stackbench/error.h"
#include "stackbench/hbm.h"

static int drain(void *ctx, uint64_t *next_ns)
{
	struct sb_capture *cap = ctx;
	int err = sb_capture_poll(cap);

	*next_ns = sb_capture_poll_interval_ns(cap);
	return err < 0 ? err : 0;
}

/* Bursts issued since their start by the ports of mask (hbm_port.rd_bursts + wr_bursts). */
static int bursts_issued(struct sb_device *dev, uint32_t mask, unsigned ports, uint64_t *n)
{
	*n = 0;
	for (unsigned i = 0; i < ports; i++) {
		uint64_t rd, wr;
		uint32_t b;
		int err;

		if (!(mask >> i & 1))
			continue;
		if ((err = sb_device_find_block(dev, SB_BLK_HBM_PORT_TYPE, i, &b)) < 0 ||
		    (err = sb_device_read64(dev, b + SB_HBM_PORT_RD_BURSTS, &rd)) < 0 ||
		    (err = sb_device_read64(dev, b + SB_HBM_PORT_WR_BURSTS, &wr)) < 0)
			return err;
		*n += rd + wr;
	}
	return 0;
}

int sb_hbm_point_capture(struct sb_device *dev, const struct sb_hbm_spec *s, struct sb_capture *cap,
                         struct sb_hbm_result *r)
{
	struct sb_hbm_card card;
	uint64_t executed;
	uint32_t ran;
	int err;

	if ((err = sb_hbm_card_read(dev, &card)) < 0)
		return err;
	if ((err = sb_capture_start(cap)) < 0)
		return err;
	sb_device_set_wait_hook(dev, drain, cap, sb_capture_poll_interval_ns(cap));
	err = sb_hbm_point_run(dev, s, r);
	sb_device_set_wait_hook(dev, NULL, NULL, 0);
	if (err < 0)
		return err;
	/* The point started its ports (which clears their counters) after the capture began and
	 * stopped them, idle, before returning: their counters are what the capture saw. */
	ran = s->port_mask ? s->port_mask : (uint32_t)((1ull << card.ports) - 1);
	if ((err = bursts_issued(dev, ran & sb_capture_port_mask(cap), card.ports, &executed)) < 0)
		return err;
	return sb_capture_stop(cap, executed, "hbm_port.rd_bursts + wr_bursts");
}
