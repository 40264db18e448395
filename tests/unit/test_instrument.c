/* SPDX-License-Identifier: MIT */
/*
 * Instrument interfaces: selection from connection strings, the sim: camera, meter and cooling
 * rig on a simulated device, and the refusal of sim: instruments without a simulated bench.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "fake_transport.h"
#include "sb_regmap.h"
#include "stackbench/bench_model.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/instrument.h"

static struct sb_device *dev;

static void open_sim(void)
{
	cr_assert_eq(sb_device_open(&dev, "sim:?cooling=Cfg2&seed=3"), 0, "%s", sb_error_detail());
}

static void close_sim(void)
{
	sb_device_close(dev);
}

TestSuite(instrument, .init = open_sim, .fini = close_sim);

Test(instrument, unknown_and_malformed_connection_strings)
{
	struct sb_temp_source *t = (void *)1;
	struct sb_power_source *p;
	struct sb_cooling *c;

	cr_assert_eq(sb_temp_source_open(&t, "thermo:", dev), SB_ERR_URI);
	cr_assert_null(t);
	cr_assert(
	    strstr(sb_error_detail(), "unknown scheme 'thermo' (known: sim:, flirone:, sensors:)"),
	    "%s", sb_error_detail());
	cr_assert_eq(sb_power_source_open(&p, "sim", dev), SB_ERR_URI);
	cr_assert(strstr(sb_error_detail(), "expected SCHEME:"), "%s", sb_error_detail());
	cr_assert_eq(sb_power_source_open(&p, "", dev), SB_ERR_URI);
	cr_assert_eq(sb_cooling_open(&c, "SIM:", dev), SB_ERR_URI);
	cr_assert_eq(sb_cooling_open(&c, ":x", dev), SB_ERR_URI);
	cr_assert_eq(sb_temp_source_open(&t, "sim:?roi", dev), SB_ERR_URI);
	cr_assert(strstr(sb_error_detail(), "not KEY=VALUE"), "%s", sb_error_detail());
	cr_assert_eq(sb_temp_source_open(&t, "sim:?roi=", dev), SB_ERR_URI);
	cr_assert_eq(sb_temp_source_open(&t, "sim:?zoom=2", dev), SB_ERR_URI);
	cr_assert(strstr(sb_error_detail(), "unknown option 'zoom'"), "%s", sb_error_detail());
	cr_assert_eq(sb_power_source_open(&p, "sim:?roi=all", dev), SB_ERR_URI,
	             "a meter has no ROI");
}

Test(instrument, missing_real_instruments_name_their_connection_string)
{
	const char *powers[] = {"wattsup:/dev/nonexistent-ttyUSB9",
	                        "wt310:/dev/nonexistent-usbtmc9"};
	struct sb_temp_source *t;
	struct sb_power_source *p;
	struct sb_cooling *c;

	/* No FLIR One on a test machine: the detail names the id and the string. */
	cr_assert_eq(sb_temp_source_open(&t, "flirone:1:4", dev), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "no FLIR One camera (USB 09cb:1996 at 1:4)"), "%s",
	          sb_error_detail());
	cr_assert(strstr(sb_error_detail(), "'flirone:1:4'"), "%s", sb_error_detail());
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(sb_power_source_open(&p, powers[i], dev), SB_ERR_NOT_FOUND, "%s",
		             sb_error_detail());
		cr_assert(strstr(sb_error_detail(), "does not exist"), "%s", sb_error_detail());
		cr_assert(strstr(sb_error_detail(), powers[i]), "%s", sb_error_detail());
	}
	cr_assert_eq(sb_power_source_open(&p, "wt310:usbtmc:0", dev), SB_ERR_URI);
	cr_assert_eq(sb_power_source_open(&p, "wattsup:COM1", dev), SB_ERR_URI);
	cr_assert_eq(sb_temp_source_open(&t, "flirone:?stall_ms=5", dev), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "stall_ms='5'"), "%s", sb_error_detail());
	/* a supply's port that is not there says what every instrument on a node says */
	cr_assert_eq(sb_cooling_open(&c, "korad:/dev/nonexistent-ttyACM9", dev), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(),
	                 "'/dev/nonexistent-ttyACM9' does not exist: is the instrument plugged in? "
	                 "('stackbench instruments' lists what is)"),
	          "%s", sb_error_detail());
	/* a port that is there but holds no supply: libsigrok's reason in the detail */
	cr_assert_eq(sb_cooling_open(&c, "korad:/dev/null", dev), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "found no supply there"), "%s", sb_error_detail());
	cr_assert_eq(sb_cooling_open(&c, "sigrok:no-such-driver:conn=/dev/x", dev), SB_ERR_URI);
	cr_assert(strstr(sb_error_detail(), "libsigrok has no driver 'no-such-driver'"), "%s",
	          sb_error_detail());
}

Test(instrument, hotspot_tracker_follows_the_blob_not_a_hotter_distractor)
{
	static struct sb_thermal_image img;
	static struct sb_hotspot_tracker tr;
	struct sb_hotspot hs;
	struct sb_roi roi;

	img.width = 80;
	img.height = 60;
	sb_hotspot_tracker_init(&tr);
	for (int step = 0; step < 4; step++) {
		for (unsigned i = 0; i < 80 * 60; i++)
			img.t_c[i] = 25.0f;
		/* The cube: 5x5 at 60 C moving one pixel a frame, hottest pixel at its center. */
		for (unsigned y = 20; y < 25; y++)
			for (unsigned x = 30u + (unsigned)step; x < 35u + (unsigned)step; x++)
				img.t_c[y * 80 + x] = 60.0f;
		img.t_c[22 * 80 + 32 + (unsigned)step] = 61.0f;
		/* From the second frame on, a hotter hand enters far away. */
		if (step)
			img.t_c[50 * 80 + 70] = 90.0f;
		cr_assert_eq(sb_hotspot_track(&tr, &img, &hs, &roi), 0);
		cr_assert_float_eq(hs.max_c, 61.0, 1e-6, "step %d: %g", step, hs.max_c);
		cr_assert_eq(hs.x, 32u + (unsigned)step);
		cr_assert_eq(hs.y, 22u);
		cr_assert_eq(tr.blob_pixels, 25u);
		cr_assert(roi.x <= 30u + (unsigned)step && roi.x + roi.w >= 35u + (unsigned)step &&
		              roi.w <= 5 + 2 * tr.margin,
		          "window %u,%u,%u,%u", roi.x, roi.y, roi.w, roi.h);
	}
	/* The window goes dark (camera moved away): the whole frame is searched again. */
	for (unsigned i = 0; i < 80 * 60; i++)
		img.t_c[i] = NAN;
	img.t_c[5 * 80 + 5] = 40.0f;
	cr_assert_eq(sb_hotspot_track(&tr, &img, &hs, &roi), 0);
	cr_assert_eq(hs.x, 5u);
	cr_assert_eq(hs.y, 5u);
}

Test(instrument, planck_calibration_file)
{
	char path[] = "/tmp/sb-calib-XXXXXX";
	int fd = mkstemp(path);
	struct sb_planck p, d;
	const char *good = "camera: flirone\nplanck:\n  r1: 17000.5\n  emissivity: 0.9\n";
	const char *bad = "planck:\n  r1: 17000.5\n  emisivity: 0.9\n";

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, good, strlen(good)), (ssize_t)strlen(good));
	close(fd);
	sb_planck_default(&d);
	cr_assert_eq(sb_planck_load(path, &p), 0, "%s", sb_error_detail());
	cr_assert_float_eq(p.r1, 17000.5, 1e-9);
	cr_assert_float_eq(p.emissivity, 0.9, 1e-9);
	cr_assert_float_eq(p.b, d.b, 1e-12, "left-out keys keep their defaults");
	fd = open(path, O_WRONLY | O_TRUNC);
	cr_assert_eq(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
	close(fd);
	cr_assert_eq(sb_planck_load(path, &p), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "line 3") && strstr(sb_error_detail(), "emisivity"),
	          "%s", sb_error_detail());
	unlink(path);
}

Test(instrument, sim_instruments_need_a_simulated_bench)
{
	struct fake *f = fake_new(SB_REGMAP_SIZE);
	struct sb_device *fdev;
	struct sb_temp_source *t;
	struct sb_power_source *p;
	struct sb_cooling *c;
	struct sb_bench_model *bm;

	fake_fill_regmap(f, 9);
	cr_assert_eq(sb_device_open_transport(&fdev, &fake_transport_ops, f, "fake:"), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sb_device_bench(fdev, &bm), SB_ERR_NOT_SUPPORTED);
	cr_assert_null(bm);
	cr_assert_eq(sb_temp_source_open(&t, "sim:", fdev), SB_ERR_NOT_SUPPORTED);
	cr_assert(strstr(sb_error_detail(), "no simulated bench"), "%s", sb_error_detail());
	cr_assert_eq(sb_power_source_open(&p, "sim:", fdev), SB_ERR_NOT_SUPPORTED);
	cr_assert_eq(sb_cooling_open(&c, "sim:", fdev), SB_ERR_NOT_SUPPORTED);
	cr_assert_eq(sb_cooling_open(&c, "sim:", NULL), SB_ERR_NOT_SUPPORTED);
	cr_assert(strstr(sb_error_detail(), "none was given"), "%s", sb_error_detail());
	sb_device_close(fdev);
	fake_free(f);
}

Test(instrument, sim_camera_reads_the_hot_spot_on_the_bench_clock)
{
	struct sb_temp_source *t;
	struct sb_temp_reading r1, r2;
	uint64_t now;

	cr_assert_eq(sb_temp_source_open(&t, "sim:", dev), 0, "%s", sb_error_detail());
	cr_assert_str_eq(sb_temp_source_driver(t), "sim");
	cr_assert_str_eq(sb_temp_source_conn(t), "sim:");
	now = sb_device_now_ns(dev);
	cr_assert_eq(sb_temp_source_sample(t, &r1), 0, "%s", sb_error_detail());
	cr_assert_eq(r1.t_ns, now);
	cr_assert_float_eq(r1.hotspot_c, 51.7, 0.2, "Cfg2 idle: %.2f", r1.hotspot_c);
	cr_assert_float_eq(r1.hotspot_c * 10, round(r1.hotspot_c * 10), 1e-6, "0.1 C steps");
	cr_assert_not_null(r1.frame);
	cr_assert_eq(r1.frame->width, 160);
	cr_assert_eq(r1.frame->height, 120);
	cr_assert_eq(r1.roi.w, 40, "the bench's default ROI around the cube");
	cr_assert_eq(sb_device_wait_ns(dev, 10000000000ull), 0);
	cr_assert_eq(sb_temp_source_sample(t, &r2), 0);
	cr_assert_eq(r2.t_ns - r1.t_ns, 10000000000ull);
	cr_assert_float_eq(r2.hotspot_c, 51.7, 0.2, "idle stays idle");
	sb_temp_source_close(t);
}

Test(instrument, sim_camera_roi_separates_cube_and_fpga)
{
	struct sb_temp_source *t;
	struct sb_temp_reading cube, fpga, all;
	struct sb_roi roi = {30, 40, 40, 40}, bad = {150, 100, 20, 30};

	cr_assert_eq(sb_temp_source_open(&t, "sim:?roi=all", dev), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_temp_source_sample(t, &all), 0);
	cr_assert_leq(abs((int)all.hot_x - 104), 2, "whole frame: the cube at x %u", all.hot_x);
	cr_assert_leq(abs((int)all.hot_y - 60), 2);
	cr_assert_eq(sb_temp_source_set_roi(t, &roi), 0);
	cr_assert_eq(sb_temp_source_sample(t, &fpga), 0);
	cr_assert_lt(fpga.hotspot_c, all.hotspot_c - 2, "the FPGA region is cooler");
	cr_assert_gt(fpga.hotspot_c, fpga.roi_mean_c);
	cr_assert_gt(fpga.roi_mean_c, fpga.roi_min_c);
	cr_assert_eq(sb_temp_source_set_roi(t, &bad), SB_ERR_RANGE);
	sb_temp_source_close(t);
	cr_assert_eq(sb_temp_source_open(&t, "sim:?roi=84,40,40,40", dev), 0);
	cr_assert_eq(sb_temp_source_sample(t, &cube), 0);
	cr_assert_float_eq(cube.hotspot_c, all.hotspot_c, 0.25);
	sb_temp_source_close(t);
	cr_assert_eq(sb_temp_source_open(&t, "sim:?roi=150,100,20,30", dev), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "not inside the 160x120 frame"), "%s",
	          sb_error_detail());
}

Test(instrument, sim_meter_reports_watts_volts_amps)
{
	struct sb_power_source *p;
	struct sb_power_reading r;
	struct sb_bench_model *bm;
	const struct sb_bench_params *bp;

	cr_assert_eq(sb_device_bench(dev, &bm), 0);
	bp = sb_bench_model_params(bm);
	cr_assert_eq(sb_power_source_open(&p, "sim:", dev), 0, "%s", sb_error_detail());
	cr_assert_str_eq(sb_power_source_driver(p), "sim");
	cr_assert_eq(sb_device_wait_ns(dev, 2000000000ull), 0);
	cr_assert_eq(sb_power_source_sample(p, &r), 0);
	cr_assert_eq(r.t_ns, sb_device_now_ns(dev));
	cr_assert(r.has_va);
	/* Idle: the machine, the FPGA and the idle cube (about 7 W in Cfg2). */
	cr_assert(r.power_w > 100 + bp->fpga_w + 5 && r.power_w < 100 + bp->fpga_w + 9, "%.1f W",
	          r.power_w);
	cr_assert_float_eq(r.volts, 120, 1);
	cr_assert_float_eq(r.amps, r.power_w / r.volts / bp->power_factor, 0.0006);
	sb_power_source_close(p);
}

Test(instrument, sim_cooling_rig_applies_named_configurations)
{
	struct sb_cooling *c;
	struct sb_cooling_state st;
	struct sb_temp_source *t;
	struct sb_temp_reading r;

	cr_assert_eq(sb_cooling_open(&c, "sim:", dev), 0, "%s", sb_error_detail());
	cr_assert_str_eq(sb_cooling_driver(c), "sim");
	cr_assert_eq(sb_cooling_count(c), 4);
	cr_assert_str_eq(sb_cooling_name(c, 0), "Cfg1");
	cr_assert_str_eq(sb_cooling_name(c, 3), "Cfg4");
	cr_assert_null(sb_cooling_name(c, 4));
	cr_assert_eq(sb_cooling_status(c, &st), 0);
	cr_assert_str_eq(st.name, "Cfg2");
	cr_assert_eq(sb_cooling_apply(c, "Cfg3"), 0);
	cr_assert_eq(sb_cooling_status(c, &st), 0);
	cr_assert_str_eq(st.name, "Cfg3");
	cr_assert_float_eq(st.fan_supply_v, 6.5, 1e-9);
	cr_assert_float_eq(st.fan_supply_a, 0.14, 1e-9);
	cr_assert_float_eq(st.desk_fan_distance_cm, 90, 1e-9);
	cr_assert_float_eq(st.cooling_power_w, 13.9, 1e-9);
	cr_assert_gt(st.fan_rpm, 0);
	cr_assert_eq(sb_cooling_apply(c, "Cfg5"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "known: Cfg1, Cfg2, Cfg3, Cfg4"), "%s",
	          sb_error_detail());
	/* The bench follows: after 200 s the camera shows Cfg3's idle temperature. */
	cr_assert_eq(sb_temp_source_open(&t, "sim:", dev), 0);
	cr_assert_eq(sb_device_wait_ns(dev, 200000000000ull), 0);
	cr_assert_eq(sb_temp_source_sample(t, &r), 0);
	cr_assert_float_eq(r.hotspot_c, 62.3, 0.2, "%.2f", r.hotspot_c);
	sb_temp_source_close(t);
	sb_cooling_close(c);
}
