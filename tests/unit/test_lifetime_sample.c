/* SPDX-License-Identifier: MIT */
/*
 * The sample of real SCALE-Sim v2 output (tests/data/scalesim/scalesim-gemm-sample.tar.xz, extracted by
 * the fixture analysis.sample_extract): a 128x64x256 GEMM, weight stationary, 32x32 array, CALC
 * bandwidth mode. Expected values were derived independently of this code:
 * - access counts from the CSVs (and SCALE-Sim's DETAILED_ACCESS_REPORT: SRAM IFMAP reads 65536,
 *   SRAM filter reads 16384, SRAM OFMAP writes 65536, DRAM IFMAP reads 65536 after removing the
 *   66437 CALC-mode 1.0 pads, DRAM filter reads 16384; the trace holds 65536 OFMAP DRAM
 *   write-backs where the report counts 65567);
 * - lifetimes, zero-read values, order statistics, write cycles and refresh counts from a
 *   separate Python implementation of the rules in docs/lifetimes.md (dictionary per address,
 *   events sorted by (cycle, writes first));
 * - median and p99 as pandas 1.5.3 computes them (Series.median(), Series.quantile(0.99)) over
 *   the lifetimes of the exact histogram (`stackbench lifetimes --csv`): ofmap's median is 1070.5,
 *   between the values of ranks 4095 and 4096 (1054 and 1087).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/lifetime.h"

#define RUN SB_SAMPLE_RUN

struct expect {
	const char *name;
	uint64_t reads, writes, unique, lifetimes, zero_read, orphans, write_ticks;
	int64_t min;
	double median, p99;
	int64_t max;
	double mean;
	uint64_t si_refreshes, hybrid_refreshes;
	double hybrid_retention_ns;
};

static const struct expect sample[] = {
    {"ifmap", 65536, 65536, 32768, 40402, 25134, 25134, 4949, 1677, 1829, 3206, 3295,
     2020.8979258452553, 409736, 56712, 2487.7250777923205},
    {"filter", 16384, 16384, 16384, 16384, 0, 0, 1639, 1595, 2568, 3503, 3536, 2565.7999267578125,
     271200, 0, 4214.938512902394},
    {"ofmap", 65536, 65536, 8192, 8192, 57344, 0, 2544, 1024, 1070.5, 1108, 1118, 1070.984375,
     65536, 0, 3417.3589023275617},
};

static void check(const struct sb_lifetime_result *res)
{
	struct sb_memdev_lib lib;
	struct sb_projection p;

	cr_assert_eq(res->records, 294912);
	cr_expect_eq(res->first_time, -3243, "the ifmap prefetch starts before compute");
	cr_expect_eq(res->last_time, 4575);
	cr_expect_eq(sb_lifetime_result_ticks(res), 7819);
	cr_assert_eq(res->info.nwarnings, 1);
	cr_expect(strstr(res->info.warnings[0], "CALC bandwidth mode detected"));
	cr_expect(strstr(res->info.warnings[0], "(66437 padding entries dropped)"), "%s",
	          res->info.warnings[0]);
	sb_memdev_lib_init(&lib);
	cr_assert_eq(sb_memdev_lib_load(&lib, NULL), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_projection_compute(&p, res, &lib), 0);
	for (size_t i = 0; i < 3; i++) {
		const struct expect *e = &sample[i];
		int k = sb_lifetime_result_find(res, e->name);
		const struct sb_subpart_stats *st;

		cr_assert_geq(k, 0);
		st = &res->subparts[k];
		cr_expect_eq(st->reads, e->reads, "%s reads %llu", e->name,
		             (unsigned long long)st->reads);
		cr_expect_eq(st->stores + st->fetches, e->writes, "%s writes", e->name);
		cr_expect_eq(st->unique_addresses, e->unique, "%s unique", e->name);
		cr_expect_eq(st->lifetimes, e->lifetimes, "%s lifetimes %llu", e->name,
		             (unsigned long long)st->lifetimes);
		cr_expect_eq(st->zero_read_values, e->zero_read, "%s zero-read", e->name);
		cr_expect_eq(st->orphans, e->orphans, "%s orphans", e->name);
		cr_expect_eq(st->unbacked_reads, 0, "%s unbacked", e->name);
		cr_expect_eq(st->write_ticks, e->write_ticks, "%s write cycles", e->name);
		cr_expect_eq(st->life.min, e->min, "%s min", e->name);
		cr_expect_eq(st->life.median, e->median, "%s median", e->name);
		cr_expect_eq(st->life.p99, e->p99, "%s p99", e->name);
		cr_expect_eq(st->life.max, e->max, "%s max", e->name);
		cr_expect_float_eq(st->life.mean, e->mean, 1e-9, "%s mean", e->name);
		for (size_t d = 0; d < p.ndevices; d++) {
			const struct sb_memdev_projection *dp = &p.subparts[k].devices[d];

			if (!strcmp(lib.devices[d].name, "si-gcram")) {
				cr_expect_eq(dp->refreshes, e->si_refreshes, "%s si refreshes %llu",
				             e->name, (unsigned long long)dp->refreshes);
				cr_expect_eq(dp->refresh_free, 0, "every lifetime is over 1 us");
			} else if (!strcmp(lib.devices[d].name, "hybrid-gcram")) {
				cr_expect_eq(dp->refreshes, e->hybrid_refreshes,
				             "%s hybrid refreshes %llu", e->name,
				             (unsigned long long)dp->refreshes);
				cr_expect_float_eq(dp->retention_ns, e->hybrid_retention_ns, 1e-6);
			}
		}
	}
	sb_projection_release(&p);
	sb_memdev_lib_release(&lib);
}

static void analyse(enum sb_trace_format fmt, const char *path, struct sb_lifetime_result *res)
{
	struct sb_trace_reader *r;

	cr_assert_eq(sb_trace_open(&r, fmt, path, NULL), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_lifetime_run(r, SB_POLICY_WRITE_ALLOCATE, res), 0, "%s", sb_error_detail());
	sb_trace_reader_free(r);
}

Test(lifetime_sample, run_folder)
{
	struct sb_lifetime_result res;

	analyse(SB_TRACE_SCALESIM, RUN, &res);
	check(&res);
	sb_lifetime_result_release(&res);
}

Test(lifetime_sample, layer_folder)
{
	struct sb_lifetime_result res;

	analyse(SB_TRACE_SCALESIM, RUN "/layer0", &res);
	check(&res);
	sb_lifetime_result_release(&res);
}

Test(lifetime_sample, through_sbt)
{
	char path[] = "/tmp/sb-sample-XXXXXX";
	struct sb_trace_reader *r;
	struct sb_lifetime_result res;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(sb_trace_open(&r, SB_TRACE_SCALESIM, RUN, NULL), 0);
	cr_expect_eq(sb_trace_convert(r, SB_TRACE_SBT, path), 294912, "%s", sb_error_detail());
	sb_trace_reader_free(r);
	analyse(SB_TRACE_SBT, path, &res);
	check(&res);
	sb_lifetime_result_release(&res);
	unlink(path);
}
