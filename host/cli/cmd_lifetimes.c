/* SPDX-License-Identifier: MIT */
/*
 * stackbench lifetimes INPUT...: data lifetimes per subpartition and their projection onto
 * memory devices (refreshes, area, energy, refresh-free shares, heterogeneous composition).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_analysis.h"
#include "stackbench/devices.h"
#include "stackbench/error.h"
#include "stackbench/lifetime.h"
#include "stackbench/output.h"
#include "stackbench/partial.h"
#include "stackbench/util.h"

#define MAX_DEVICE_FILES 16

static void lifetimes_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench lifetimes [OPTIONS] INPUT...\n"
	        "       stackbench lifetimes [TRACE OPTIONS] INPUT... --shard I/N --partial OUT\n"
	        "       stackbench lifetimes [REPORT OPTIONS] --merge PARTIAL...\n"
	        "       stackbench lifetimes [OPTIONS] INPUT... --json OUT --slurm [--shards N]\n"
	        "                 [--dry-run | --status] [SBATCH OPTIONS] [-- SBATCH OPTIONS]\n"
	        "\n"
	        "Compute data lifetimes per subpartition (scratchpad buffer, cache level) from\n"
	        "memory-access traces and project them onto memory devices: refreshes, area,\n"
	        "active energy, ratios to SRAM, refresh-free shares and a heterogeneous\n"
	        "composition. Rules and the JSON schema: docs/lifetimes.md.\n"
	        "\n"
	        "  -f, --format FMT       scalesim (run or layer folder), gpgpusim (cache log),\n"
	        "                         csv, sbt (default: from the first INPUT's name)\n"
	        "      --clock-ghz F      clock of cycle traces (default 1)\n"
	        "      --devices FILE     device library, a name or a path (repeat to combine;\n"
	        "                         default: %s)\n"
	        "      --policy P         caches: write-allocate (default) or no-write-allocate\n"
	        "  -j, --json OUT         write the JSON report ('-': standard output)\n"
	        "      --csv OUT          write the exact lifetime histogram as CSV\n"
	        "  -P, --plots DIR        draw figures (PNG and SVG) with gnuplot into DIR\n"
	        "      --word-bytes N     SCALE-Sim element size in bytes (default 1)\n"
	        "      --block-bytes N    GPGPU-Sim/CSV value granularity (default 32 / 1)\n"
	        "%s"
	        "%s"
	        "  -h, --help             this help\n"
	        "\n"
	        "Device libraries are looked up in $STACKBENCH_DEVICES_PATH, analysis/devices and\n"
	        "the installed share/stackbench/devices.\n"
	        "\n"
	        "A sampled trace (a capture on the board) is read sample by sample: a lifetime\n"
	        "never spans a gap; values live at the end of a sample are counted as censored.\n"
	        "Frequencies are interpolated (t^ = r t, r the sampling density) and results from\n"
	        "too little data are marked '~' (docs/lifetimes.md, \"Sampled traces\").\n"
	        "Device rows and the composition of subpartitions with no or fewer than\n"
	        "--min-events lifetimes are marked and explained in warnings (text, JSON,\n"
	        "devices.png; docs/lifetimes.md, \"Too few lifetimes\").\n",
	        SB_DEVICES_DEFAULT, SB_CLI_CONFIDENCE_HELP, SB_CLI_PARALLEL_HELP);
}

/* A retention in ns, one format for every row: fixed point, or "static" (never refreshed). */
static void fmt_retention(char *buf, size_t size, double ns)
{
	if (!isfinite(ns))
		snprintf(buf, size, "static");
	else
		snprintf(buf, size, "%.1f", ns);
}

static void print_summary(const struct sb_lifetime_result *res, const struct sb_projection *p,
                          const struct sb_memdev_lib *lib, const char *fmt)
{
	const double hz = res->info.tick_hz;

	const struct sb_sampling *smp = &res->sampling;
	bool marked = false;
	char med[32], p99[32], ret[32], share[32], energy[32];
	char trust[SB_TRUST_MAX_WARNINGS][SB_TRUST_WARNING_MAX];
	struct sb_lifetime_trust tr;
	size_t ntrust, empty = 0;

	uint64_t flushes = 0;

	/* a flush record is not an access */
	for (size_t s = 0; s < res->nsubparts; s++)
		flushes += res->subparts[s].flushes;
	printf("lifetimes of %llu accesses (%s", (unsigned long long)(res->records - flushes), fmt);
	if (flushes)
		printf(", %llu flush record%s", (unsigned long long)flushes,
		       flushes == 1 ? "" : "s");
	printf("), %lld cycles at %g GHz, policy %s\n", (long long)sb_lifetime_result_ticks(res),
	       hz / 1e9, sb_cache_policy_name(res->policy));
	for (uint32_t i = 0; i < res->info.nwarnings; i++)
		printf("warning: %s\n", res->info.warnings[i]);
	if (smp->sampled) {
		uint64_t cut = 0;

		for (size_t s = 0; s < res->nsubparts; s++)
			cut += res->subparts[s].censored_values;
		printf("sampled: %llu records of %llu accesses executed (density %.4g), %llu "
		       "bursts; lost %llu records in %llu bursts\n",
		       (unsigned long long)smp->records, (unsigned long long)smp->capture.executed,
		       smp->density, (unsigned long long)smp->capture.bursts,
		       (unsigned long long)smp->capture.lost_records,
		       (unsigned long long)smp->capture.lost_bursts);
		printf("read sample by sample (%llu windows): %llu values cut by a gap are "
		       "censored, not lifetimes; frequencies interpolated (t^ = r t)\n",
		       (unsigned long long)smp->windows, (unsigned long long)cut);
	} else if (res->windowed && (smp->capture.executed || smp->capture.captured)) {
		/* a capture of every request (--trace-gap 0, replay --trace): density 1 */
		printf("complete capture: %llu records of %llu accesses executed (density 1), %llu "
		       "window%s; values live at its end are censored, not lifetimes\n",
		       (unsigned long long)smp->records, (unsigned long long)smp->capture.executed,
		       (unsigned long long)smp->windows, smp->windows == 1 ? "" : "s");
	} else if (res->windowed) {
		printf("read sample by sample (%llu windows, sample ids without a capture "
		       "description: density unknown)\n",
		       (unsigned long long)smp->windows);
	}
	ntrust = sb_lifetime_trust_warnings(res, trust, SB_TRUST_MAX_WARNINGS);
	for (size_t i = 0; i < ntrust; i++)
		printf("warning: %s\n", trust[i]);
	printf("\n%-12s %10s %10s %9s %10s %9s %9s %8s %10s %10s\n", "subpart", "reads", "writes",
	       "unique", "lifetimes", "zero-rd", "unbacked", "orphan%", "median_ns", "p99_ns");
	for (size_t s = 0; s < res->nsubparts; s++) {
		const struct sb_subpart_stats *st = &res->subparts[s];
		uint64_t all = st->reads + st->stores + st->fetches;

		printf("%-12s %10llu %10llu %9llu %10llu %9llu %9llu %8.2f ", st->sp.name,
		       (unsigned long long)st->reads,
		       (unsigned long long)(st->stores + st->fetches),
		       (unsigned long long)st->unique_addresses, (unsigned long long)st->lifetimes,
		       (unsigned long long)st->zero_read_values,
		       (unsigned long long)st->unbacked_reads,
		       all ? 100.0 * (double)st->orphans / (double)all : 0.0);
		if (st->lifetimes) {
			snprintf(med, sizeof(med), "%s%.5g", sb_cli_mark(st->confident),
			         st->life.median * 1e9 / hz);
			snprintf(p99, sizeof(p99), "%s%.5g", sb_cli_mark(st->confident),
			         st->life.p99 * 1e9 / hz);
			printf("%10s %10s\n", med, p99);
		} else {
			printf("%10s %10s\n", "-", "-");
		}
		marked |= st->lifetimes && !st->confident; /* a '~' printed */
	}
	printf("\n%-12s %-14s %12s %9s %9s %9s\n", "subpart", "device", "retention_ns", "no-refr%",
	       "area%", "energy%");
	for (size_t s = 0; s < res->nsubparts; s++) {
		enum sb_lifetime_basis b = sb_lifetime_basis(&res->subparts[s], &res->rules);

		if (b == SB_BASIS_EMPTY) {
			empty++; /* nothing to project: no row of ratios to nothing */
			continue;
		}
		for (size_t d = 0; d < p->ndevices; d++) {
			const struct sb_memdev_projection *dp = &p->subparts[s].devices[d];
			/* what a device that refreshes costs rests on the lifetimes */
			const char *m =
			    b == SB_BASIS_ENOUGH || !isfinite(dp->retention_ns) ? "" : "~";

			fmt_retention(ret, sizeof(ret), dp->retention_ns);
			if (b == SB_BASIS_NONE)
				snprintf(share, sizeof(share), "-");
			else
				snprintf(share, sizeof(share), "%s%.2f",
				         b == SB_BASIS_FEW ? "~" : "",
				         100 * dp->refresh_free_share);
			snprintf(energy, sizeof(energy), "%s%.2f", m, 100 * dp->energy_ratio);
			printf("%-12s %-14s %12s %9s %9.2f %9s\n", res->subparts[s].sp.name,
			       lib->devices[d].name, ret, share, 100 * dp->area_ratio, energy);
		}
	}
	if (empty)
		printf("(%zu subpartition%s without accesses not shown)\n", empty,
		       empty == 1 ? "" : "s");
	sb_lifetime_trust(res, &tr);
	printf("\ncomposition (all subpartitions): area %s%.2f %%, energy %s%.2f %% of %s%s\n",
	       tr.weak_capacity_share > 0 ? "~" : "", 100 * p->total_comp.area_ratio,
	       tr.weak_capacity_share > 0 ? "~" : "", 100 * p->total_comp.energy_ratio,
	       lib->reference, p->total_comp.refresh_free ? ", refresh-free" : "");
	if (tr.weak_capacity_share > 0)
		printf(
		    "  ~ %.1f %% of the capacity placed by no or too few lifetimes (%llu in all; "
		    "see the warnings): not a measured composition\n",
		    100 * tr.weak_capacity_share, (unsigned long long)tr.lifetimes);
	for (size_t i = 0; i < p->total_comp.nparts; i++)
		printf("  %-14s %s%6.2f %% of capacity\n", p->total_comp.parts[i].dev->name,
		       tr.weak_capacity_share > 0 ? "~" : "",
		       100 * p->total_comp.parts[i].capacity_share);
	if (marked)
		printf("\n~ marks subpartitions whose results come from too little data: density "
		       "below %g (%g for caches), fewer than %llu lifetimes, more than %g of the "
		       "values cut by a gap, or more than %g of the records lost\n",
		       res->rules.min_density, res->rules.min_density_cache,
		       (unsigned long long)res->rules.min_events, res->rules.max_censored_share,
		       res->rules.max_lost_share);
	if (tr.none + tr.few)
		printf(
		    "%sin the device table, '-' is a refresh-free share of no lifetime and '~' a "
		    "share or energy from fewer than %llu lifetimes\n",
		    marked ? "" : "\n", (unsigned long long)res->rules.min_events);
}

/* Progress of long runs on a terminal: every 16 M accesses. */
static void show_progress(void *ctx, uint64_t records)
{
	uint64_t *next = ctx;

	if (records < *next)
		return;
	fprintf(stderr, "\rlifetimes: %.1f M accesses", (double)records / 1e6);
	*next = records + (1u << 24);
}

/* Shard I/N: the shard's engine result, written as a partial. */
static int run_shard(const struct sb_trace_source *src, const struct sb_cli_parallel *par,
                     struct sb_lifetime_run_opts *ro)
{
	struct sb_partial_meta m = {.kind = SB_PARTIAL_LIFETIMES,
	                            .shard = par->shard,
	                            .nshards = par->nshards,
	                            .format = src->fmt,
	                            .inputs = src->paths,
	                            .ninputs = src->npaths,
	                            .topt = src->opt,
	                            .policy = ro->policy};
	struct sb_lifetime_result res = {0};
	int err;

	if ((err = sb_partial_fingerprint(src, m.fingerprint, &m.bytes)) < 0)
		return sb_cli_analysis_error(err);
	ro->shard = par->shard;
	ro->nshards = par->nshards;
	if ((err = sb_lifetime_run_source(src, ro, &res)) < 0)
		return sb_cli_analysis_error(err);
	m.records = res.records;
	err = sb_partial_write_lifetimes(par->partial, &m, &res);
	sb_lifetime_result_release(&res);
	if (err < 0)
		return sb_cli_analysis_error(err);
	printf("lifetimes: shard %u of %u of %llu records: %s\n", par->shard, par->nshards,
	       (unsigned long long)m.records, par->partial);
	return SB_EXIT_OK;
}

/* --merge: the partials of every shard joined into one result (res), their trace's meta. */
static int merge_partials(char *const *paths, int n, struct sb_partial **parts,
                          struct sb_lifetime_result *res)
{
	struct sb_lifetime_result *r;
	int rc, err;

	if ((rc = sb_cli_read_partials("lifetimes", paths, n, SB_PARTIAL_LIFETIMES, parts)) != 0)
		return rc;
	if (!(r = calloc((size_t)n, sizeof(*r))))
		return sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
	for (int i = 0; i < n; i++)
		r[i] = (*parts)[i].lifetimes;
	err = sb_lifetime_result_merge(res, r, (size_t)n);
	free(r);
	if (err < 0)
		return sb_cli_analysis_error(sb_error_wrap(
		    err, "merging the partials of '%s': ", (*parts)[0].meta.inputs[0]));
	return 0;
}

enum { OPT_POLICY = 0x200, OPT_CSV };

/* (-f and -P as the vals of --format and --plots: the Slurm split knows them by both names) */
static const struct option opts[] = {
    {"format", required_argument, NULL, 'f'},
    {"clock-ghz", required_argument, NULL, SB_CLI_OPT_CLOCK},
    {"word-bytes", required_argument, NULL, SB_CLI_OPT_WORD},
    {"block-bytes", required_argument, NULL, SB_CLI_OPT_BLOCK},
    {"devices", required_argument, NULL, 'd'},
    {"policy", required_argument, NULL, OPT_POLICY},
    {"json", required_argument, NULL, 'j'},
    {"csv", required_argument, NULL, OPT_CSV},
    {"plots", required_argument, NULL, 'P'},
    {"help", no_argument, NULL, 'h'},
    SB_CLI_CONFIDENCE_OPTIONS,
    SB_CLI_PARALLEL_OPTIONS,
    {NULL, 0, NULL, 0},
};

static int lifetimes_main(int argc, char **argv, char **sbatch, unsigned nsbatch,
                          struct sb_cli_slurm_args *keep)
{
	struct sb_cli_parallel par = {0};
	struct sb_trace_source src;
	struct sb_lifetime_run_opts ro = {0};
	struct sb_confidence_rules rules, dflt;
	struct sb_cli_trace_opts o = {0};
	enum sb_cache_policy policy = SB_POLICY_WRITE_ALLOCATE;
	const char *devfiles[MAX_DEVICE_FILES], *json = NULL, *csv = NULL, *plots = NULL;
	const char *report_opt = NULL, *trace_opt = NULL;
	size_t ndevfiles = 0;
	struct sb_memdev_lib lib;
	struct sb_lifetime_result res = {0};
	struct sb_projection proj = {0};
	struct sb_partial *parts = NULL;
	struct sb_report_meta meta;
	char *text = NULL;
	uint64_t next = 1u << 24;
	int c, rc, err, nparts = 0;

	sb_confidence_rules_default(&rules);
	dflt = rules;
	while ((c = getopt_long(argc, argv, "f:j:P:h", opts, NULL)) != -1) {
		const int raw = c;

		if (c == 'f')
			c = SB_CLI_OPT_FORMAT;
		if ((rc = sb_cli_trace_option("lifetimes", c, optarg, &o)) >= 0 ||
		    (rc = sb_cli_confidence_option("lifetimes", c, optarg, &rules)) >= 0 ||
		    (rc = sb_cli_parallel_option("lifetimes", c, optarg, &par)) >= 0) {
			if (rc)
				return rc;
			if (c >= SB_CLI_OPT_FORMAT && c <= SB_CLI_OPT_BLOCK)
				sb_cli_slurm_keep(keep, opts, raw, optarg, true);
			else
				sb_cli_slurm_keep_common(keep, opts, c, optarg);
			if (c >= SB_CLI_OPT_FORMAT && c <= SB_CLI_OPT_BLOCK)
				trace_opt = c == SB_CLI_OPT_FORMAT  ? "--format"
				            : c == SB_CLI_OPT_CLOCK ? "--clock-ghz"
				            : c == SB_CLI_OPT_WORD  ? "--word-bytes"
				                                    : "--block-bytes";
			continue;
		}
		switch (c) {
		case 'd':
			if (ndevfiles == MAX_DEVICE_FILES)
				return sb_cli_usage_error("lifetimes", "at most %d --devices",
				                          MAX_DEVICE_FILES);
			devfiles[ndevfiles++] = optarg;
			sb_cli_slurm_keep(keep, opts, c, optarg, false);
			report_opt = "--devices";
			break;
		case OPT_POLICY:
			if (sb_cache_policy_parse(optarg, &policy) < 0)
				return sb_cli_usage_error("lifetimes", "%s", sb_error_detail());
			sb_cli_slurm_keep(keep, opts, c, optarg, true);
			trace_opt = "--policy";
			break;
		case 'j':
			json = optarg;
			report_opt = "--json";
			break;
		case OPT_CSV:
			csv = optarg;
			sb_cli_slurm_keep(keep, opts, c, optarg, false);
			report_opt = "--csv";
			break;
		case 'P':
			plots = optarg;
			sb_cli_slurm_keep(keep, opts, c, optarg, false);
			report_opt = "--plots";
			break;
		case 'h':
			lifetimes_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("lifetimes", "bad option");
		}
	}
	if (memcmp(&rules, &dflt, sizeof(rules)) && !report_opt)
		report_opt = "a confidence option";
	if ((rc = sb_cli_parallel_check("lifetimes", &par, report_opt)) != 0)
		return rc;
	if (par.merge && trace_opt)
		return sb_cli_usage_error("lifetimes",
		                          "%s goes with the shards: the partials say how the trace "
		                          "was read",
		                          trace_opt);
	if (optind >= argc)
		return sb_cli_usage_error("lifetimes", par.merge ? "expected the PARTIALs to merge"
		                                                 : "expected at least one INPUT");
	ro.policy = policy;
	ro.threads = sb_cli_threads(&par);
	ro.progress = isatty(2) ? show_progress : NULL;
	ro.ctx = &next;
	if (par.have_shard) {
		const char *outs[] = {par.partial};

		if ((rc = sb_cli_check_outputs(outs, 1, argv + optind, argc - optind, NULL, 0)) !=
		    0)
			return rc;
		if ((rc = sb_cli_trace_source("lifetimes", &o, argv + optind, argc - optind,
		                              &src)) != 0)
			return rc;
		rc = run_shard(&src, &par, &ro);
		if (next > (1u << 24))
			fprintf(stderr, "\n");
		return rc;
	}
	/* the device library first: a bad file should not cost a long trace read */
	sb_memdev_lib_init(&lib);
	if (ndevfiles == 0)
		devfiles[ndevfiles++] = SB_DEVICES_DEFAULT;
	for (size_t i = 0; i < ndevfiles; i++) {
		if ((err = sb_memdev_lib_load(&lib, devfiles[i])) < 0) {
			rc = sb_cli_error(err);
			rc = err == SB_ERR_NOT_FOUND ? SB_EXIT_INPUT : rc;
			goto out;
		}
	}
	if ((err = sb_memdev_lib_check(&lib)) < 0) {
		sb_cli_error(err);
		rc = SB_EXIT_INPUT;
		goto out;
	}
	/* no output may replace an input (trace, partial or device file) or another output */
	{
		const char *outs[] = {json, csv, plots};

		if ((rc = sb_cli_check_outputs(outs, 3, argv + optind, argc - optind, devfiles,
		                               ndevfiles)) != 0)
			goto out;
	}
	if (par.slurm) {
		struct sb_cli_analysis_slurm as = {.cmd = "lifetimes",
		                                   .kind = SB_PARTIAL_LIFETIMES,
		                                   .par = &par,
		                                   .args = keep,
		                                   .json = json,
		                                   .inputs = argv + optind,
		                                   .ninputs = argc - optind,
		                                   .src = &src,
		                                   .opts = sbatch,
		                                   .nopts = nsbatch};

		if ((rc = sb_cli_trace_source("lifetimes", &o, argv + optind, argc - optind,
		                              &src)) == 0)
			rc = sb_cli_analysis_slurm(&as);
		goto out;
	}
	if (par.merge) {
		nparts = argc - optind;
		if ((rc = merge_partials(argv + optind, nparts, &parts, &res)) != 0)
			goto out;
		meta.format = sb_trace_format_name(parts[0].meta.format);
		meta.inputs = parts[0].meta.inputs;
		meta.ninputs = parts[0].meta.ninputs;
	} else {
		if ((rc = sb_cli_trace_source("lifetimes", &o, argv + optind, argc - optind,
		                              &src)) != 0)
			goto out;
		err = sb_lifetime_run_source(&src, &ro, &res);
		if (next > (1u << 24))
			fprintf(stderr, "\n");
		if (err < 0) {
			rc = sb_cli_analysis_error(err);
			goto out;
		}
		meta.format = sb_trace_format_name(o.fmt);
		meta.inputs = (const char *const *)(argv + optind);
		meta.ninputs = (size_t)(argc - optind);
	}
	if (res.records == 0) {
		/* an empty or unreadable input is an error, never "0 accesses" */
		fprintf(stderr, "stackbench: '%s' holds no accesses: nothing to analyse\n",
		        meta.inputs[0]);
		rc = SB_EXIT_INPUT;
		goto out;
	}
	sb_lifetime_judge(&res, &rules);
	if ((err = sb_projection_compute(&proj, &res, &lib)) < 0) {
		rc = sb_cli_error(err);
		goto out;
	}
	if (json) {
		if ((err = sb_lifetime_report_json(&res, &proj, &lib, &meta, &text)) < 0) {
			rc = sb_cli_error(err);
			goto out;
		}
		if ((rc = sb_cli_write_json(json, text)) != 0)
			goto out;
	}
	if (csv && (err = sb_lifetime_write_csv(&res, csv)) < 0) {
		rc = sb_cli_error(err);
		goto out;
	}
	if (plots && (err = sb_lifetime_plot(&res, &proj, &lib, plots)) < 0) {
		rc = sb_cli_error(err);
		goto out;
	}
	if (!(json && !strcmp(json, "-")) && !(csv && !strcmp(csv, "-")))
		print_summary(&res, &proj, &lib, meta.format);
	rc = SB_EXIT_OK;
out:
	free(text);
	sb_projection_release(&proj);
	sb_lifetime_result_release(&res);
	sb_memdev_lib_release(&lib);
	sb_cli_free_partials(parts, nparts);
	return rc;
}

static int lifetimes_run(int argc, char **argv)
{
	return sb_cli_analysis_run(argc, argv, opts, lifetimes_main);
}

const struct sb_cli_command sb_cmd_lifetimes = {
    .name = "lifetimes",
    .summary = "data lifetimes of traces, projected onto memory devices",
    .run = lifetimes_run,
    .help = lifetimes_help,
};
