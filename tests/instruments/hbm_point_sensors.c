/* SPDX-License-Identifier: MIT */
/*
 * An HBM2 point with the card's sensors read around it (sb_hbm_point_run_sensed,
 * host/lib/measure/hbm_sensed.c) on the simulated U280, the sensors from the described hwmon
 * tree of an Alveo U280 (tests/data/hwmon/alveo-u280.umockdev) in a umockdev testbed; run under
 * umockdev-wrapper.
 *   - the readings before and after: hbm_temp 51 C, the 12 V rail 3.1 A x 12.1 V = 37.51 W,
 *     and the point's own result (two local ports reading: about 26.5 GB/s);
 *   - a temperature that changed before the point shows in the next point (63.5 C);
 *   - the sensor gone: the point is refused before its ports start, naming the source, with
 *     SB_ERR_IO.
 *   hbm_point_sensors TREE.umockdev
 */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <umockdev.h>

#include "hwmon_testbed.h"
#include "stackbench/error.h"
#include "stackbench/hbm_sensed.h"
#include "stackbench/instrument.h"

#define TEMP "sensors:xclmgmt-*?feature=hbm_temp&poll_ms=20"
#define RAIL "sensors:xclmgmt-*?curr=12v_pex_curr&in=12v_pex_vol&poll_ms=20"

static bool near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

int main(int argc, char **argv)
{
	struct sb_point_instruments inst = {0};
	struct sb_hbm_result r;
	struct sb_hbm_sensed sn;
	struct sb_hbm_spec spec;
	struct sb_device *dev = NULL;
	UMockdevTestbed *tb;
	char *tree;
	int err;

	tb = hwmon_testbed(argc, argv, &tree);
	err = sb_device_open(&dev, "sim:u280");
	CHECK(err == 0, "open sim:u280: %s", sb_error_detail());
	err = sb_temp_source_open(&inst.temp, TEMP, dev);
	CHECK(err == 0, "open %s: %s", TEMP, sb_error_detail());
	err = sb_power_source_open(&inst.power, RAIL, dev);
	CHECK(err == 0, "open %s: %s", RAIL, sb_error_detail());
	if (failures)
		return 1;

	/* two local ports reading 512 B linearly: the point, and the sensors around it */
	sb_hbm_spec_init(&spec);
	spec.port_mask = 0x3;
	err = sb_hbm_point_run_sensed(dev, &spec, &inst, &r, &sn);
	CHECK(err == 0, "point: %s", sb_error_detail());
	CHECK(near(sn.temp_start_c, 51.0, 1e-9) && near(sn.temp_end_c, 51.0, 1e-9),
	      "hbm_temp %.3f .. %.3f C, not 51", sn.temp_start_c, sn.temp_end_c);
	CHECK(near(sn.power_w, 3.1 * 12.1, 1e-9), "power %.6f W, not 37.51", sn.power_w);
	CHECK(near(sn.volts_v, 12.1, 1e-9) && near(sn.amps_a, 3.1, 1e-9), "%.3f V, %.3f A",
	      sn.volts_v, sn.amps_a);
	CHECK(r.nports == 2 && r.gbps > 26.0 && r.gbps < 27.0, "%u ports, %.3f GB/s", r.nports,
	      r.gbps);

	/* without a power source: NAN where it would have been */
	{
		struct sb_point_instruments t_only = {.temp = inst.temp};

		err = sb_hbm_point_run_sensed(dev, &spec, &t_only, &r, &sn);
		CHECK(err == 0 && isnan(sn.power_w) && isnan(sn.volts_v) &&
		          near(sn.temp_end_c, 51.0, 1e-9),
		      "temperature only: %d %s, %.3f W", err, sb_error_detail(), sn.power_w);
	}

	/* the stacks got hotter before the next point: it starts at the new reading */
	umockdev_testbed_set_attribute(tb, HWMON, "temp2_input", "63500\n");
	for (int i = 0; i < 100; i++) { /* until the reader's mean is the new value alone */
		struct sb_temp_reading t;

		if (sb_temp_source_sample(inst.temp, &t) == 0 && near(t.hotspot_c, 63.5, 1e-9))
			break;
		sleep_ms(50);
	}
	sleep_ms(100);
	err = sb_hbm_point_run_sensed(dev, &spec, &inst, &r, &sn);
	CHECK(err == 0 && near(sn.temp_start_c, 63.5, 1e-9) && near(sn.temp_end_c, 63.5, 1e-9),
	      "after the change: %d %s, %.3f .. %.3f C", err, sb_error_detail(), sn.temp_start_c,
	      sn.temp_end_c);

	/* the sensor goes away: the next point is refused before its ports start, naming it */
	umockdev_testbed_remove_device(tb, HWMON);
	/* until the source's reader has seen it go (it polls every 20 ms): before that a point
	   could read it "before", run its ports and find it gone only "after" */
	for (int i = 0; i < 100; i++) {
		struct sb_temp_reading t;

		if (sb_temp_source_sample(inst.temp, &t) == SB_ERR_IO)
			break;
		sleep_ms(50);
	}
	r.txns = 12345;
	err = sb_hbm_point_run_sensed(dev, &spec, &inst, &r, &sn);
	CHECK(err == SB_ERR_IO, "a point with a vanished sensor: %d %s", err, sb_error_detail());
	CHECK(strstr(sb_error_detail(), "the temperature source '" TEMP "' before the point"), "%s",
	      sb_error_detail());
	CHECK(r.txns == 12345, "the ports ran although the sensor was gone");
	CHECK(isnan(sn.temp_start_c) && isnan(sn.power_w), "readings of a vanished sensor");

	sb_power_source_close(inst.power);
	sb_temp_source_close(inst.temp);
	sb_device_close(dev);
	g_object_unref(tb);
	free(tree);
	if (failures)
		return 1;
	printf("hbm_point_sensors: ok\n");
	return 0;
}
