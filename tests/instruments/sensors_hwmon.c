/* SPDX-License-Identifier: MIT */
/*
 * The sensors: scheme (thermal/sensors.c, libsensors) against a described hwmon tree
 * (tests/data/hwmon/alveo-u280.umockdev) in a umockdev testbed; run under umockdev-wrapper.
 *   - temperatures by label, by name, the chip's first; power by its feature and as volts x
 *     amps; a changed attribute shows in the next readings;
 *   - errors: no such chip and no such feature (the detail lists what there is), a feature of
 *     another kind, unknown options, curr= without in=, a region of interest;
 *   - the device disappears mid-run: both open sources fail their samples with SB_ERR_IO, a
 *     reconnect fails while it is gone and succeeds once it is back, and readings resume.
 *   sensors_hwmon TREE.umockdev
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
#include "stackbench/instrument.h"

static double temp(struct sb_temp_source *s)
{
	struct sb_temp_reading r;
	int err = sb_temp_source_sample(s, &r);

	CHECK(err == 0, "temperature sample: %s", sb_error_detail());
	CHECK(!r.frame, "a sensor has no frame");
	return err ? NAN : r.hotspot_c;
}

static double power(struct sb_power_source *s, struct sb_power_reading *r)
{
	int err = sb_power_source_sample(s, r);

	CHECK(err == 0, "power sample: %s", sb_error_detail());
	return err ? NAN : r->power_w;
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

/* Sample until the reading is want (the reader polls in its own time) or 5 s pass. */
static bool temp_becomes(struct sb_temp_source *s, double want)
{
	for (int i = 0; i < 100; i++) {
		struct sb_temp_reading r;

		if (sb_temp_source_sample(s, &r) == 0 && near(r.hotspot_c, want))
			return true;
		sleep_ms(50);
	}
	return false;
}

/* Sample until a sample fails with SB_ERR_IO or 5 s pass; the last error. */
static int temp_fails(struct sb_temp_source *s)
{
	int err = 0;

	for (int i = 0; i < 100 && err != SB_ERR_IO; i++) {
		err = sb_temp_source_sample(s, &(struct sb_temp_reading){0});
		sleep_ms(50);
	}
	return err;
}

int main(int argc, char **argv)
{
	UMockdevTestbed *tb;
	GError *gerr = NULL;
	struct sb_temp_source *t = NULL, *t2 = NULL;
	struct sb_power_source *p = NULL, *va = NULL;
	struct sb_power_reading pr;
	char *tree;
	int err;

	tb = hwmon_testbed(argc, argv, &tree);

	/* readings */
	err = sb_temp_source_open(&t, "sensors:xclmgmt-*?feature=hbm_temp&poll_ms=20", NULL);
	CHECK(err == 0, "open hbm_temp: %s", sb_error_detail());
	err = sb_temp_source_open(&t2, "sensors:xclmgmt-pci-3b01?feature=temp1&poll_ms=20", NULL);
	CHECK(err == 0, "open temp1: %s", sb_error_detail());
	err = sb_power_source_open(&p, "sensors:xclmgmt-*?feature=power1&poll_ms=20", NULL);
	CHECK(err == 0, "open power1: %s", sb_error_detail());
	err =
	    sb_power_source_open(&va, "sensors:?curr=12v_pex_curr&in=12v_pex_vol&poll_ms=20", NULL);
	CHECK(err == 0, "open volts x amps: %s", sb_error_detail());
	if (failures)
		return 1;
	CHECK(!strcmp(sb_temp_source_driver(t), "sensors"), "driver %s", sb_temp_source_driver(t));
	sleep_ms(100);
	CHECK(near(temp(t), 51.0), "hbm_temp");
	CHECK(near(temp(t2), 45.0), "temp1 (fpga_temp)");
	CHECK(near(power(p, &pr), 43.0), "power1: %.3f W", pr.power_w);
	CHECK(near(power(va, &pr), 12.1 * 3.1), "12 V x current: %.3f W", pr.power_w);
	CHECK(pr.has_va && near(pr.volts, 12.1) && near(pr.amps, 3.1), "volts %.3f amps %.3f",
	      pr.volts, pr.amps);
	{
		struct sb_temp_source *first = NULL;

		CHECK(sb_temp_source_open(&first, "sensors:", NULL) == 0, "first temperature: %s",
		      sb_error_detail());
		if (first) {
			CHECK(temp_becomes(first, 45.0), "the chip's first temperature is temp1");
			CHECK(sb_temp_source_set_roi(first, &(struct sb_roi){1, 1, 2, 2}) ==
			          SB_ERR_RANGE,
			      "a region of interest on a sensor");
			CHECK(sb_temp_source_set_roi(first, &(struct sb_roi){0, 0, 0, 0}) == 0,
			      "the whole 'frame'");
			sb_temp_source_close(first);
		}
	}
	/* a change shows: after a few polls every reading of the interval is the new value */
	umockdev_testbed_set_attribute(tb, HWMON, "temp2_input", "63500\n");
	CHECK(temp_becomes(t, 63.5), "hbm_temp after a change");

	/* errors name what there is */
	{
		struct sb_temp_source *x = NULL;
		struct sb_power_source *y = NULL;

		err = sb_temp_source_open(&x, "sensors:nothere-*", NULL);
		CHECK(err == SB_ERR_NOT_FOUND && strstr(sb_error_detail(), "xclmgmt") == NULL &&
		          strstr(sb_error_detail(), "none"),
		      "no such chip: %d %s", err, sb_error_detail());
		err = sb_temp_source_open(&x, "sensors:xclmgmt-*?feature=dram_temp", NULL);
		CHECK(err == SB_ERR_NOT_FOUND && strstr(sb_error_detail(), "hbm_temp"),
		      "no such feature: %d %s", err, sb_error_detail());
		err = sb_temp_source_open(&x, "sensors:xclmgmt-*?feature=12v_pex_curr", NULL);
		CHECK(err == SB_ERR_NOT_FOUND, "a current is no temperature: %d %s", err,
		      sb_error_detail());
		err = sb_temp_source_open(&x, "sensors:?colour=red", NULL);
		CHECK(err == SB_ERR_URI && strstr(sb_error_detail(), "colour"),
		      "unknown option: %s", sb_error_detail());
		err = sb_power_source_open(&y, "sensors:?curr=curr1", NULL);
		CHECK(err == SB_ERR_URI, "curr= without in=: %s", sb_error_detail());
		err = sb_temp_source_open(&x, "sensors:?poll_ms=1", NULL);
		CHECK(err == SB_ERR_INVAL && strstr(sb_error_detail(), "poll_ms"), "poll_ms=1: %s",
		      sb_error_detail());
		CHECK(sb_instrument_check(SB_INSTRUMENT_TEMPERATURE, "sensors:") == 0, "check");
		CHECK(sb_instrument_check(SB_INSTRUMENT_POWER, "sensors:xclmgmt-*") == 0, "check");
	}

	/* the device goes away mid-run */
	umockdev_testbed_remove_device(tb, HWMON);
	err = temp_fails(t);
	CHECK(err == SB_ERR_IO, "a sample of a vanished sensor: %d %s", err, sb_error_detail());
	for (int i = 0; i < 100 && (err = sb_power_source_sample(p, &pr)) != SB_ERR_IO; i++)
		sleep_ms(50);
	CHECK(err == SB_ERR_IO, "a sample of a vanished power sensor: %d %s", err,
	      sb_error_detail());
	err = sb_temp_source_reconnect(t, 600);
	CHECK(err == SB_ERR_NOT_FOUND, "reconnect while gone: %d %s", err, sb_error_detail());
	err = sb_temp_source_sample(t, &(struct sb_temp_reading){0});
	CHECK(err == SB_ERR_IO, "a source whose reconnect failed: %d", err);
	/* ... and comes back (the hwmon record of the tree: the PCI function stayed) */
	if (!strstr(tree, "\n\nP:") ||
	    !umockdev_testbed_add_from_string(tb, strstr(tree, "\n\nP:") + 2, &gerr)) {
		fprintf(stderr, "umockdev: %s\n", gerr ? gerr->message : "?");
		return 2;
	}
	err = sb_temp_source_reconnect(t, 3000);
	CHECK(err == 0, "reconnect once back: %s", sb_error_detail());
	err = sb_power_source_reconnect(p, 3000);
	CHECK(err == 0, "power reconnect once back: %s", sb_error_detail());
	if (!err) {
		CHECK(temp_becomes(t, 51.0), "hbm_temp after the device came back");
		CHECK(near(power(p, &pr), 43.0), "power1 after the device came back");
	}
	sb_temp_source_close(t);
	sb_temp_source_close(t2);
	sb_power_source_close(p);
	sb_power_source_close(va);
	free(tree);
	if (failures) {
		fprintf(stderr, "sensors_hwmon: %d check(s) failed\n", failures);
		return 1;
	}
	printf("sensors_hwmon: all checks passed\n");
	return 0;
}
