/* SPDX-License-Identifier: MIT */
/*
 * The device library and the projection: the published ratios of the default library
 * reproduced exactly, retention against write frequency, malformed library files (file, line,
 * key), refresh arithmetic, area and energy by hand, the heterogeneous composition, the JSON
 * report's schema and the figures.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "stackbench/devices.h"
#include "stackbench/error.h"
#include "stackbench/lifetime.h"

/* Relative equality to 1e-12: "exactly" for ratios computed in doubles. */
#define expect_ratio(v, want)                                                                      \
	cr_expect(fabs((v) - (want)) <= 1e-12 * fabs(want), "%s = %.17g, expected %.17g", #v,      \
	          (double)(v), (double)(want))

static struct sb_memdev_lib lib;

static void load_default(void)
{
	sb_memdev_lib_init(&lib);
	cr_assert_eq(sb_memdev_lib_load(&lib, NULL), 0, "%s", sb_error_detail());
}

static void release(void)
{
	sb_memdev_lib_release(&lib);
}

TestSuite(devices, .init = load_default, .fini = release);

Test(devices, default_library_keeps_the_published_ratios)
{
	const struct sb_memdev *sram = sb_memdev_lib_get(&lib, "sram");
	const struct sb_memdev *si = sb_memdev_lib_get(&lib, "si-gcram");
	const struct sb_memdev *hy = sb_memdev_lib_get(&lib, "hybrid-gcram");

	cr_assert(sram && si && hy);
	cr_expect_str_eq(lib.reference, "sram");
	cr_expect_eq(sb_memdev_lib_check(&lib), 0);
	cr_expect_float_eq(sram->cell_area_um2, 0.021, 1e-15);
	expect_ratio(si->cell_area_um2 / sram->cell_area_um2, 0.4197);
	expect_ratio(hy->cell_area_um2 / sram->cell_area_um2, 0.2263);
	expect_ratio(si->read_fj_per_bit / sram->read_fj_per_bit, 0.3323);
	expect_ratio(si->write_fj_per_bit / sram->write_fj_per_bit, 0.3323);
	expect_ratio(hy->read_fj_per_bit / sram->read_fj_per_bit, 0.8481);
	expect_ratio(hy->write_fj_per_bit / sram->write_fj_per_bit, 0.8481);
	cr_expect_gt(si->nsources, 0);
	cr_expect_gt(hy->nassumptions, 0, "the hybrid's curve is an assumption and says so");
}

Test(devices, retention_against_write_frequency)
{
	const struct sb_memdev *sram = sb_memdev_lib_get(&lib, "sram");
	const struct sb_memdev *si = sb_memdev_lib_get(&lib, "si-gcram");
	const struct sb_memdev *hy = sb_memdev_lib_get(&lib, "hybrid-gcram");

	cr_expect(isinf(sb_memdev_retention_ns(sram, 1e9)));
	cr_expect_eq(sb_memdev_retention_ns(si, 1), 1000);
	cr_expect_eq(sb_memdev_retention_ns(si, 1e9), 1000);
	cr_expect_eq(sb_memdev_retention_ns(hy, 0), 10000, "clamped below the table");
	cr_expect_eq(sb_memdev_retention_ns(hy, 1e6), 10000);
	cr_expect_eq(sb_memdev_retention_ns(hy, 1e8), 6000);
	cr_expect_eq(sb_memdev_retention_ns(hy, 1e9), 2000);
	cr_expect_eq(sb_memdev_retention_ns(hy, 5e9), 2000, "clamped above the table");
	/* log-log interpolation: the geometric mid-point of a segment */
	cr_expect_float_eq(sb_memdev_retention_ns(hy, sqrt(1e8 * 1e9)), sqrt(6000.0 * 2000.0),
	                   1e-9);
}

static int load_text(struct sb_memdev_lib *l, const char *text)
{
	return sb_memdev_lib_load_string(l, "bad.yaml", text, strlen(text));
}

static const char *const dev_head = "reference: a\n"
                                    "devices:\n"
                                    "  - name: a\n"
                                    "    cell_area_um2: 1\n"
                                    "    read_energy_fj_per_bit: 1\n"
                                    "    write_energy_fj_per_bit: 1\n"
                                    "    retention: static\n"
                                    "    sources: [x]\n";

static void expect_bad(const char *tail, const char *msg)
{
	struct sb_memdev_lib l;
	char text[2048];

	snprintf(text, sizeof(text), "%s%s", dev_head, tail);
	sb_memdev_lib_init(&l);
	cr_expect_eq(load_text(&l, text), SB_ERR_PARSE, "accepted: %s", tail);
	cr_expect(strstr(sb_error_detail(), msg), "'%s' not in '%s'", msg, sb_error_detail());
	sb_memdev_lib_release(&l);
}

Test(devices, malformed_files_name_file_line_and_key)
{
	expect_bad("  - name: b\n    cell_aera_um2: 1\n",
	           "cannot parse 'bad.yaml' line 10: unknown key 'cell_aera_um2' in 'device'");
	expect_bad("  - name: b\n    cell_area_um2: -1\n    read_energy_fj_per_bit: 1\n"
	           "    write_energy_fj_per_bit: 1\n    retention: static\n    sources: [x]\n",
	           "line 10");
	expect_bad("  - name: b\n    cell_area_um2: 1\n    read_energy_fj_per_bit: 1\n"
	           "    write_energy_fj_per_bit: 1\n    retention: static\n",
	           "missing key 'sources'");
	expect_bad("  - name: b\n    cell_area_um2: 1\n    read_energy_fj_per_bit: 1\n"
	           "    write_energy_fj_per_bit: 1\n    retention:\n      table:\n"
	           "        - {write_hz: 10, ns: 5}\n        - {write_hz: 5, ns: 4}\n"
	           "    sources: [x]\n",
	           "line 16: key 'write_hz': points must be in increasing write frequency");
	expect_bad("  - name: b\n    cell_area_um2: 1\n    read_energy_fj_per_bit: 1\n"
	           "    write_energy_fj_per_bit: 1\n    retention: forever\n    sources: [x]\n",
	           "line 13: key 'retention': 'forever'");
	expect_bad("  - name: a\n", "line 9: device 'a' is already defined in 'bad.yaml'");
	expect_bad("  - name: Big Cell\n", "line 9: key 'name': 'Big Cell'");
}

Test(devices, user_files_add_devices_and_need_a_reference)
{
	struct sb_memdev_lib l;

	sb_memdev_lib_init(&l);
	cr_assert_eq(load_text(&l, dev_head), 0, "%s", sb_error_detail());
	cr_expect_eq(sb_memdev_lib_load(&l, NULL), 0, "the default library adds its devices");
	cr_expect_eq(l.ndevices, 4);
	cr_expect_str_eq(l.reference, "a", "the first file's reference stays");
	cr_expect_eq(l.nfiles, 2);
	sb_memdev_lib_release(&l);

	sb_memdev_lib_init(&l);
	cr_assert_eq(load_text(&l, "devices: []\n"), 0);
	cr_expect_eq(sb_memdev_lib_check(&l), SB_ERR_INVAL);
	sb_memdev_lib_release(&l);
	cr_expect_eq(sb_memdev_lib_load(&l, "no-such-library"), SB_ERR_NOT_FOUND);
	cr_expect(strstr(sb_error_detail(), "no device library 'no-such-library'"));
}

/* --- projection ---------------------------------------------------------------------------- */

static struct sb_trace_info info;

static void info_init(double clock_hz)
{
	sb_trace_info_init(&info, "test", clock_hz, "cycle");
	cr_assert_eq(sb_trace_info_subpart(&info, "buf", SB_SUBPART_SCRATCHPAD, 1, 1), 0);
}

/* addr: one value per address, written at 0 and read at each of reads[] (ticks). */
static void result_of(const int64_t *lifes, size_t n, struct sb_lifetime_result *res)
{
	struct sb_trace_record *t = calloc(2 * n, sizeof(*t));
	struct sb_lifetime *eng;
	size_t k = 0;

	cr_assert(t);
	for (size_t i = 0; i < n; i++)
		t[k++] =
		    (struct sb_trace_record){.time = 0, .addr = i, .size = 1, .kind = SB_ACC_WRITE};
	/* reads in time order */
	for (int64_t tt = 0; tt <= 100000; tt++)
		for (size_t i = 0; i < n; i++)
			if (lifes[i] == tt)
				t[k++] = (struct sb_trace_record){
				    .time = tt, .addr = i, .size = 1, .kind = SB_ACC_READ};
	cr_assert_eq(k, 2 * n);
	cr_assert_eq(sb_lifetime_new(&eng, SB_POLICY_WRITE_ALLOCATE), 0);
	cr_assert_eq(sb_lifetime_feed(eng, &info, t, k), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_lifetime_finish(eng, &info, res), 0);
	sb_lifetime_free(eng);
	free(t);
}

static const char *const lib3 = "reference: sram\n"
                                "devices:\n"
                                "  - name: sram\n"
                                "    cell_area_um2: 1.0\n"
                                "    read_energy_fj_per_bit: 10\n"
                                "    write_energy_fj_per_bit: 20\n"
                                "    retention: static\n"
                                "    sources: [test]\n"
                                "  - name: t100\n"
                                "    cell_area_um2: 0.5\n"
                                "    read_energy_fj_per_bit: 1\n"
                                "    write_energy_fj_per_bit: 2\n"
                                "    retention: {ns: 100}\n"
                                "    sources: [test]\n"
                                "  - name: t1000\n"
                                "    cell_area_um2: 0.25\n"
                                "    read_energy_fj_per_bit: 3\n"
                                "    write_energy_fj_per_bit: 4\n"
                                "    retention: {ns: 1000}\n"
                                "    sources: [test]\n";

Test(devices, refresh_arithmetic_area_and_energy)
{
	static const int64_t lifes[] = {99, 100, 250, 1000};
	struct sb_memdev_lib l;
	struct sb_lifetime_result res;
	struct sb_projection p;

	info_init(1e9);
	sb_memdev_lib_init(&l);
	cr_assert_eq(load_text(&l, lib3), 0, "%s", sb_error_detail());
	result_of(lifes, 4, &res);
	cr_assert_eq(sb_projection_compute(&p, &res, &l), 0, "%s", sb_error_detail());
	const struct sb_memdev_projection *t100 = &p.subparts[0].devices[1];
	const struct sb_memdev_projection *sram = &p.subparts[0].devices[0];

	/* floor(T / 100 ns) = 0, 1, 2, 10 refreshes of 8 bits each */
	cr_expect_eq(t100->refresh_values, 13);
	cr_expect_eq(t100->refreshes, 104);
	cr_expect_eq(t100->refresh_free, 1, "only 99 < 100 needs no refresh");
	cr_expect_float_eq(t100->refresh_free_share, 0.25, 1e-15);
	cr_expect_float_eq(t100->refresh_free_access_share, 0.25, 1e-15);
	/* N_r = 4 reads x 8 bits, N_w = 4 writes x 8 bits */
	cr_expect_float_eq(t100->energy_j, (1.0 * (32 + 104) + 2.0 * (32 + 104)) * 1e-15, 1e-27);
	cr_expect_float_eq(t100->refresh_energy_j, 3.0 * 104 * 1e-15, 1e-27);
	cr_expect_float_eq(sram->energy_j, (10.0 * 32 + 20.0 * 32) * 1e-15, 1e-27);
	cr_expect_eq(sram->refreshes, 0);
	cr_expect_float_eq(t100->area_um2, 0.5 * 32, 1e-12);
	expect_ratio(t100->area_ratio, 0.5);
	expect_ratio(t100->energy_ratio, (3.0 * 136) / 960.0);
	/* one write time stamp over 1001 ticks at 1 GHz */
	cr_expect_float_eq(p.subparts[0].write_hz, 1e9 / 1001, 1e-3);
	sb_projection_release(&p);
	sb_lifetime_result_release(&res);

	/* at 2 GHz the same ticks are half as long: floor(T / 200 ticks) = 0, 0, 1, 5 */
	info_init(2e9);
	result_of(lifes, 4, &res);
	cr_assert_eq(sb_projection_compute(&p, &res, &l), 0);
	cr_expect_eq(p.subparts[0].devices[1].refresh_values, 6);
	cr_expect_eq(p.subparts[0].devices[1].refresh_free, 2);
	sb_projection_release(&p);
	sb_lifetime_result_release(&res);
	sb_memdev_lib_release(&l);
}

Test(devices, published_ratios_hold_in_a_projection_without_refresh)
{
	static const int64_t lifes[] = {10, 20, 30, 500};
	struct sb_lifetime_result res;
	struct sb_projection p;

	info_init(1e9);
	result_of(lifes, 4, &res);
	cr_assert_eq(sb_projection_compute(&p, &res, &lib), 0, "%s", sb_error_detail());
	for (size_t d = 0; d < p.ndevices; d++) {
		const struct sb_memdev_projection *dp = &p.subparts[0].devices[d];

		cr_expect_eq(dp->refreshes, 0);
		cr_expect_float_eq(dp->refresh_free_share, 1.0, 1e-15);
		if (!strcmp(lib.devices[d].name, "si-gcram")) {
			expect_ratio(dp->area_ratio, 0.4197);
			expect_ratio(dp->energy_ratio, 0.3323);
		} else if (!strcmp(lib.devices[d].name, "hybrid-gcram")) {
			expect_ratio(dp->area_ratio, 0.2263);
			expect_ratio(dp->energy_ratio, 0.8481);
		}
	}
	sb_projection_release(&p);
	sb_lifetime_result_release(&res);
}

Test(devices, heterogeneous_composition)
{
	/* max lifetimes per address: 50 -> t100, 500 -> t1000, 5000 -> sram, 90 -> t100 */
	static const int64_t lifes[] = {50, 500, 5000, 90};
	struct sb_memdev_lib l;
	struct sb_lifetime_result res;
	struct sb_projection p;

	info_init(1e9);
	sb_memdev_lib_init(&l);
	cr_assert_eq(load_text(&l, lib3), 0, "%s", sb_error_detail());
	result_of(lifes, 4, &res);
	cr_assert_eq(sb_projection_compute(&p, &res, &l), 0, "%s", sb_error_detail());
	const struct sb_composition *c = &p.subparts[0].comp;

	cr_assert_eq(c->nparts, 3);
	cr_expect_str_eq(c->parts[0].dev->name, "t100", "shortest retention first");
	cr_expect_str_eq(c->parts[1].dev->name, "t1000");
	cr_expect_str_eq(c->parts[2].dev->name, "sram", "the static device takes the rest");
	cr_expect_eq(c->parts[0].addresses, 2);
	cr_expect_eq(c->parts[1].addresses, 1);
	cr_expect_eq(c->parts[2].addresses, 1);
	cr_expect_float_eq(c->parts[0].capacity_share, 0.5, 1e-15);
	cr_expect_eq(c->parts[0].max_lifetime_ticks, 90);
	cr_expect(c->refresh_free);
	/* energy: each address has one 8-bit write and one 8-bit read on its device */
	double e = (2 * (1.0 + 2.0) * 8 + (3.0 + 4.0) * 8 + (10.0 + 20.0) * 8) * 1e-15;

	cr_expect_float_eq(c->energy_j, e, 1e-27);
	expect_ratio(c->energy_ratio, e / (4 * 30.0 * 8 * 1e-15));
	expect_ratio(c->area_ratio, (2 * 0.5 + 0.25 + 1.0) / 4.0);
	cr_expect_eq(p.total_comp.nparts, 3);
	expect_ratio(p.total_comp.energy_ratio, c->energy_ratio);
	sb_projection_release(&p);
	sb_lifetime_result_release(&res);
	sb_memdev_lib_release(&l);

	/* without a static device the longest lifetimes are refreshed on the last device */
	sb_memdev_lib_init(&l);
	cr_assert_eq(load_text(&l, lib3), 0);
	l.devices[0].retention_kind = SB_RETENTION_CONSTANT;
	l.devices[0].retention_ns = 10;
	result_of(lifes, 4, &res);
	cr_assert_eq(sb_projection_compute(&p, &res, &l), 0);
	c = &p.subparts[0].comp;
	cr_expect_str_eq(c->parts[c->nparts - 1].dev->name, "t1000");
	cr_expect_eq(c->parts[c->nparts - 1].refreshes, 5 * 8, "floor(5000 / 1000) x 8 bits");
	cr_expect(!c->refresh_free);
	sb_projection_release(&p);
	sb_lifetime_result_release(&res);
	sb_memdev_lib_release(&l);
}

Test(devices, json_report_schema)
{
	static const int64_t lifes[] = {10, 2000};
	static const char *const inputs[] = {"x.csv"};
	struct sb_report_meta meta = {.format = "csv", .inputs = inputs, .ninputs = 1};
	struct sb_lifetime_result res;
	struct sb_projection p;
	char *text;
	cJSON *root, *sp, *dev;

	info_init(1e9);
	sb_trace_info_add_warning(&info, "a warning");
	result_of(lifes, 2, &res);
	cr_assert_eq(sb_projection_compute(&p, &res, &lib), 0);
	cr_assert_eq(sb_lifetime_report_json(&res, &p, &lib, &meta, &text), 0);
	root = cJSON_Parse(text);
	cr_assert(root, "not JSON: %s", text);
	cr_expect_str_eq(cJSON_GetObjectItem(root, "schema_version")->valuestring,
	                 SB_LIFETIME_SCHEMA_VERSION);
	cr_expect_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "warnings"), 0)->valuestring,
	                 "a warning");
	sp = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "subpartitions"), "buf");
	cr_assert(sp);
	static const char *const keys[] = {
	    "reads",           "writes",           "unique_addresses",
	    "lifetimes",       "zero_read_values", "unbacked_reads",
	    "lifetime_cycles", "devices",          "composition",
	    "orphans"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		cr_expect(cJSON_GetObjectItem(sp, keys[i]), "missing key '%s'", keys[i]);
	cr_expect_eq(cJSON_GetObjectItem(sp, "lifetimes")->valuedouble, 2);
	cr_expect_eq(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(sp, "lifetime_cycles"), "max")->valuedouble,
	    2000);
	dev = cJSON_GetObjectItem(cJSON_GetObjectItem(sp, "devices"), "si-gcram");
	cr_assert(dev);
	static const char *const dkeys[] = {"retention_ns",      "refreshes",
	                                    "area_um2",          "area_ratio_vs_sram",
	                                    "energy_j",          "energy_ratio_vs_sram",
	                                    "refresh_free_share"};
	for (size_t i = 0; i < sizeof(dkeys) / sizeof(dkeys[0]); i++)
		cr_expect(cJSON_GetObjectItem(dev, dkeys[i]), "missing device key '%s'", dkeys[i]);
	cr_expect_eq(cJSON_GetObjectItem(dev, "refreshes")->valuedouble, 16, "floor(2000/1000)*8");
	cr_expect_float_eq(cJSON_GetObjectItem(dev, "refresh_free_share")->valuedouble, 0.5, 1e-12);
	cr_expect(cJSON_IsNull(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(sp, "devices"), "sram"), "retention_ns")));
	cr_expect(cJSON_GetObjectItem(root, "composition"));
	cr_expect(cJSON_GetObjectItem(root, "total"));
	cJSON_Delete(root);
	free(text);
	sb_projection_release(&p);
	sb_lifetime_result_release(&res);
}

static void expect_file_starts(const char *path, const char *magic, size_t n)
{
	char buf[64] = {0};
	FILE *f = fopen(path, "rb");

	cr_assert(f, "no file '%s'", path);
	cr_expect_eq(fread(buf, 1, n, f), n);
	fclose(f);
	cr_expect(!memcmp(buf, magic, n), "'%s' does not start with the expected bytes", path);
}

Test(devices, csv_and_figures)
{
	static const int64_t lifes[] = {0, 10, 10, 2000};
	struct sb_lifetime_result res;
	struct sb_projection p;
	char dir[] = "/tmp/sb-plots-XXXXXX", path[256], line[256];
	FILE *f;
	int n = 0;

	info_init(1e9);
	result_of(lifes, 4, &res);
	cr_assert_eq(sb_projection_compute(&p, &res, &lib), 0);
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/l.csv", dir);
	cr_assert_eq(sb_lifetime_write_csv(&res, path), 0, "%s", sb_error_detail());
	f = fopen(path, "r");
	cr_assert(f);
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	cr_expect_eq(n, 4, "a header and three distinct lifetimes");
	cr_assert_eq(sb_lifetime_plot(&res, &p, &lib, dir), 0, "%s", sb_error_detail());
	snprintf(path, sizeof(path), "%s/lifetimes-buf.png", dir);
	expect_file_starts(path, "\x89PNG", 4);
	snprintf(path, sizeof(path), "%s/devices.png", dir);
	expect_file_starts(path, "\x89PNG", 4);
	snprintf(path, sizeof(path), "%s/lifetimes-buf.svg", dir);
	expect_file_starts(path, "<?xml", 5);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	cr_expect_eq(system(path), 0);
	sb_projection_release(&p);
	sb_lifetime_result_release(&res);
}
