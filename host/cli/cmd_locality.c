/* SPDX-License-Identifier: MIT */
/*
 * stackbench locality INPUT...: memory-centric analyses of a trace (docs/locality.md): reuse
 * distances and miss ratios, footprints on the time-centric interval tree, hot regions found by
 * zooming into the address space; the sampling density and a confidence flag with every result.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_analysis.h"
#include "stackbench/error.h"
#include "stackbench/locality.h"
#include "stackbench/output.h"
#include "stackbench/partial.h"
#include "stackbench/util.h"

static void locality_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench locality [OPTIONS] INPUT...\n"
	        "       stackbench locality [ANALYSIS OPTIONS] INPUT... --shard I/N --partial OUT\n"
	        "       stackbench locality [REPORT OPTIONS] --merge PARTIAL...\n"
	        "       stackbench locality [OPTIONS] INPUT... --json OUT --slurm [--shards N]\n"
	        "                 [--dry-run | --status] [SBATCH OPTIONS] [-- SBATCH OPTIONS]\n"
	        "\n"
	        "Memory-centric analyses of a trace (docs/locality.md): reuse distances and the\n"
	        "miss ratios of LRU caches, footprint and growth on a time-centric interval tree\n"
	        "(leaves: the samples of a measured trace, equal windows of accesses otherwise),\n"
	        "and hot regions found by zooming into each subpartition's address space. Every\n"
	        "result comes with the sampling density and a confidence flag; values from too\n"
	        "little data are marked '~'.\n"
	        "\n"
	        "  -f, --format FMT       scalesim, gpgpusim, csv, sbt (default: from the name)\n"
	        "      --clock-ghz F      clock of cycle traces (default 1)\n"
	        "      --word-bytes N     SCALE-Sim element size in bytes (default 1)\n"
	        "      --block-bytes N    block size of the analysis (default 64)\n"
	        "      --leaves N         leaves of the interval tree at most (a power of two,\n"
	        "                         2..65536, default 1024)\n"
	        "      --hot-share F      zooming: a chunk is hot from this share of its region's\n"
	        "                         accesses (default 0.1)\n"
	        "      --zoom-floor N     zooming stops at regions of N bytes (default: a block)\n"
	        "%s"
	        "  -j, --json OUT         write the JSON report ('-': standard output)\n"
	        "  -P, --plots DIR        draw figures (PNG and SVG) with gnuplot into DIR\n"
	        "%s"
	        "  -h, --help             this help\n",
	        SB_CLI_CONFIDENCE_HELP, SB_CLI_PARALLEL_HELP);
}

/* A size in bytes in at most 8 characters: "512 B", "64 KiB", "1.5 MiB". */
static const char *human(char *buf, size_t size, double v)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	size_t u = 0;

	while (v >= 1024 && u + 1 < SB_ARRAY_SIZE(unit)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, v == floor(v) ? "%.0f %s" : "%.1f %s", v, unit[u]);
	return buf;
}

/* A mean reuse distance, '-' where there is none (no reuse: the JSON's null), never "~0". */
static void mean_reuse(char *buf, size_t size, bool confident, double v)
{
	if (isfinite(v))
		snprintf(buf, size, "%s%.4g", sb_cli_mark(confident), v);
	else
		snprintf(buf, size, "-");
}

static void print_summary(const struct sb_locality_result *res, const char *fmt)
{
	const struct sb_sampling *s = &res->sampling;
	const uint32_t bb = res->opt.block_bytes;
	const struct sb_reuse_hist *h = &res->reuse;
	bool marked = false;
	char a[32], b[32];

	printf("locality of %llu accesses (%s), blocks of %u B: %llu distinct (%s)\n",
	       (unsigned long long)res->accesses, fmt, bb, (unsigned long long)res->blocks,
	       human(a, sizeof(a), (double)res->blocks * bb));
	for (uint32_t i = 0; i < res->info.nwarnings; i++)
		printf("warning: %s\n", res->info.warnings[i]);
	if (s->sampled)
		printf("sampled: %llu records of %llu accesses executed (density %.4g), %llu "
		       "windows; lost %llu records in %llu bursts\n",
		       (unsigned long long)s->records, (unsigned long long)s->capture.executed,
		       s->density, (unsigned long long)s->windows,
		       (unsigned long long)s->capture.lost_records,
		       (unsigned long long)s->capture.lost_bursts);
	else
		printf("complete trace (density 1)\n");
	mean_reuse(b, sizeof(b), h->confident,
	           h->finite ? (double)h->sum / (double)h->finite : NAN);
	printf("\nreuse distances: %s%llu cold, mean %s blocks, max %llu\n",
	       sb_cli_mark(h->confident), (unsigned long long)h->cold, b,
	       (unsigned long long)h->max);
	marked |= !h->confident;
	printf("%-14s", "cache");
	for (size_t i = 0; i < res->nmrc; i += 2)
		printf(" %9s", human(a, sizeof(a), (double)res->mrc[i].blocks * bb));
	printf("\n%-14s", "miss ratio");
	for (size_t i = 0; i < res->nmrc; i += 2) {
		snprintf(b, sizeof(b), "%s%.3f", sb_cli_mark(res->mrc[i].confident),
		         res->mrc[i].ratio);
		printf(" %9s", b);
		marked |= !res->mrc[i].confident;
	}
	printf("\n\n%-16s %12s %10s %10s %12s %10s %9s\n", "subpartition", "accesses", "blocks",
	       "footprint", "mean_reuse", "cold", "density");
	for (size_t i = 0; i < res->nsubparts; i++) {
		const struct sb_locality_subpart *sp = &res->subparts[i];

		mean_reuse(b, sizeof(b), sp->reuse.confident,
		           sp->reuse.finite ? (double)sp->reuse.sum / (double)sp->reuse.finite
		                            : NAN);
		printf("%-16s %12llu %10llu %10s %12s %10llu %9.4g\n", sp->sp.name,
		       (unsigned long long)sp->accesses, (unsigned long long)sp->blocks,
		       human(a, sizeof(a), (double)sp->blocks * bb), b,
		       (unsigned long long)sp->reuse.cold, sp->density);
		marked |= !sp->reuse.confident;
	}
	if (res->tree.nlevels) {
		const struct sb_locality_tree *t = &res->tree;
		const struct sb_locality_node *root = &t->levels[t->nlevels - 1][0];

		printf("\ninterval tree: %u leaves of %llu %s, %u levels\n", t->count[0],
		       (unsigned long long)t->leaf_width, t->by_sample ? "samples" : "accesses",
		       t->nlevels);
		printf("%-6s %7s %12s %12s %14s %9s %12s\n", "level", "nodes", "accesses",
		       "footprint", "scaled", "growth", "rate/s");
		for (uint32_t k = t->nlevels; k-- > 0;) {
			/* the busiest node of each level */
			const struct sb_locality_node *n = &t->levels[k][0];

			for (uint32_t j = 1; j < t->count[k]; j++)
				if (t->levels[k][j].accesses > n->accesses)
					n = &t->levels[k][j];
			snprintf(a, sizeof(a), "%s%llu", sb_cli_mark(n->confident),
			         (unsigned long long)n->footprint);
			snprintf(b, sizeof(b), "%s%.4g", sb_cli_mark(n->confident),
			         n->footprint_scaled);
			printf("%-6u %7u %12llu %12s %14s %9.4f %12.4g\n", k, t->count[k],
			       (unsigned long long)n->accesses, a, b, n->growth, n->rate_hz);
			marked |= !n->confident;
		}
		printf("(per level, the node with the most accesses; the root: %llu accesses)\n",
		       (unsigned long long)root->accesses);
	}
	if (res->nregions) {
		printf("\nhot regions (zooming: chunks with %.0f %% of their region's accesses or "
		       "more)\n",
		       100 * res->opt.hot_share);
		printf("%-16s %5s %18s %18s %8s %8s %11s\n", "subpartition", "depth", "first byte",
		       "last byte", "parent%", "total%", "mean_reuse");
		for (size_t i = 0; i < res->nregions; i++) {
			const struct sb_hot_region *r = &res->regions[i];

			mean_reuse(b, sizeof(b), r->confident, r->mean_reuse);
			printf("%-16s %5u %#18llx %#18llx %7.1f%s %7.1f%s %11s\n",
			       res->subparts[r->subpart].sp.name, r->depth,
			       (unsigned long long)r->first, (unsigned long long)r->last,
			       100 * r->share_of_parent, sb_cli_mark(r->confident),
			       100 * r->share_of_total, sb_cli_mark(r->confident), b);
			marked |= !r->confident;
		}
	}
	if (marked)
		printf(
		    "\n~ marks values from too little data: density below %g (memory level) or "
		    "%g (cache level), fewer than %llu events, a cache without a warm-up of %g x "
		    "its size per window, or more than %g of the records lost\n",
		    res->opt.rules.min_density, res->opt.rules.min_density_cache,
		    (unsigned long long)res->opt.rules.min_events, res->opt.rules.warmup_factor,
		    res->opt.rules.max_lost_share);
}

/* Shard I/N: the part of its chunk of records, written as a partial. */
static int run_shard(const struct sb_trace_source *src, const struct sb_cli_parallel *par,
                     const struct sb_locality_options *lo)
{
	struct sb_partial_meta m = {.kind = SB_PARTIAL_LOCALITY,
	                            .shard = par->shard,
	                            .nshards = par->nshards,
	                            .format = src->fmt,
	                            .inputs = src->paths,
	                            .ninputs = src->npaths,
	                            .topt = src->opt,
	                            .lopt = *lo};
	struct sb_locality_part *part = NULL;
	struct sb_trace_info *info = malloc(sizeof(*info));
	int err;

	if (!info)
		return sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
	if ((err = sb_partial_fingerprint(src, m.fingerprint, &m.bytes)) < 0 ||
	    (err = sb_locality_run_shard(src, lo, par->shard, par->nshards, sb_cli_threads(par),
	                                 &part, info, &m.records, &m.sorted)) < 0 ||
	    (err = sb_partial_write_locality(par->partial, &m, info, part)) < 0) {
		free(info);
		sb_locality_part_free(part);
		return sb_cli_analysis_error(err);
	}
	printf("locality: shard %u of %u, records %llu to %llu of %llu: %s\n", par->shard,
	       par->nshards, (unsigned long long)sb_locality_part_start(part)->records,
	       (unsigned long long)sb_locality_part_end(part)->records,
	       (unsigned long long)m.records, par->partial);
	free(info);
	sb_locality_part_free(part);
	return SB_EXIT_OK;
}

/* --merge: the partials of every shard absorbed in order into one result. */
static int merge_partials(char *const *paths, int n, struct sb_locality_options *lo,
                          struct sb_partial **parts, struct sb_locality_result *res)
{
	struct sb_locality_part **chunks;
	int rc, err;

	if ((rc = sb_cli_read_partials("locality", paths, n, SB_PARTIAL_LOCALITY, parts)) != 0)
		return rc;
	if (!(chunks = calloc((size_t)n, sizeof(*chunks))))
		return sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
	for (int i = 0; i < n; i++)
		chunks[i] = (*parts)[i].locality;
	/* the analysis options are the shards': the merge adds the confidence rules */
	{
		struct sb_confidence_rules rules = lo->rules;

		*lo = (*parts)[0].meta.lopt;
		lo->rules = rules;
	}
	err = sb_locality_merge(lo, &(*parts)[n - 1].info, chunks, (size_t)n,
	                        (*parts)[0].meta.records, res);
	free(chunks);
	if (err < 0)
		return sb_cli_analysis_error(sb_error_wrap(
		    err, "merging the partials of '%s': ", (*parts)[0].meta.inputs[0]));
	return 0;
}

enum { OPT_LEAVES = 0x200, OPT_HOT, OPT_FLOOR, OPT_BLOCK };

/* (-f and -P as the vals of --format and --plots: the Slurm split knows them by both names) */
static const struct option opts[] = {
    {"format", required_argument, NULL, 'f'},
    {"clock-ghz", required_argument, NULL, SB_CLI_OPT_CLOCK},
    {"word-bytes", required_argument, NULL, SB_CLI_OPT_WORD},
    {"block-bytes", required_argument, NULL, OPT_BLOCK},
    {"leaves", required_argument, NULL, OPT_LEAVES},
    {"hot-share", required_argument, NULL, OPT_HOT},
    {"zoom-floor", required_argument, NULL, OPT_FLOOR},
    {"json", required_argument, NULL, 'j'},
    {"plots", required_argument, NULL, 'P'},
    {"help", no_argument, NULL, 'h'},
    SB_CLI_CONFIDENCE_OPTIONS,
    SB_CLI_PARALLEL_OPTIONS,
    {NULL, 0, NULL, 0},
};

static int locality_main(int argc, char **argv, char **sbatch, unsigned nsbatch,
                         struct sb_cli_slurm_args *keep)
{
	struct sb_cli_parallel par = {0};
	struct sb_trace_source src;
	struct sb_cli_trace_opts o = {0};
	struct sb_locality_options lo = {0};
	struct sb_locality_result res = {0};
	struct sb_partial *parts = NULL;
	const char *json = NULL, *plots = NULL, *report_opt = NULL, *analysis_opt = NULL;
	const char *const *inputs = (const char *const *)(argv + optind);
	const char *fmt;
	struct sb_confidence_rules dflt;
	size_t ninputs;
	int nparts = 0;
	char *text = NULL;
	uint64_t u;
	double d;
	int c, rc, err;

	sb_confidence_rules_default(&lo.rules);
	dflt = lo.rules;
	while ((c = getopt_long(argc, argv, "f:j:P:h", opts, NULL)) != -1) {
		const int raw = c;

		if (c == 'f')
			c = SB_CLI_OPT_FORMAT;
		if ((rc = sb_cli_trace_option("locality", c, optarg, &o)) >= 0 ||
		    (rc = sb_cli_confidence_option("locality", c, optarg, &lo.rules)) >= 0 ||
		    (rc = sb_cli_parallel_option("locality", c, optarg, &par)) >= 0) {
			if (rc)
				return rc;
			if (c >= SB_CLI_OPT_FORMAT && c <= SB_CLI_OPT_BLOCK)
				sb_cli_slurm_keep(keep, opts, raw, optarg, true);
			else
				sb_cli_slurm_keep_common(keep, opts, c, optarg);
			if (c >= SB_CLI_OPT_FORMAT && c <= SB_CLI_OPT_BLOCK)
				analysis_opt = "--format, --clock-ghz and --word-bytes";
			continue;
		}
		switch (c) {
		case OPT_BLOCK:
		case OPT_LEAVES:
		case OPT_FLOOR:
			if (sb_parse_u64(optarg, "value", false, &u) < 0 || !u || (u & (u - 1)) ||
			    (c == OPT_LEAVES && (u < 2 || u > 65536)) || u > (1u << 30))
				return sb_cli_usage_error(
				    "locality", "--%s: expected a power of two%s, got '%s'",
				    c == OPT_BLOCK    ? "block-bytes"
				    : c == OPT_LEAVES ? "leaves"
				                      : "zoom-floor",
				    c == OPT_LEAVES ? " from 2 to 65536" : " up to 1G", optarg);
			analysis_opt = c == OPT_BLOCK    ? "--block-bytes"
			               : c == OPT_LEAVES ? "--leaves"
			                                 : "--zoom-floor";
			if (c == OPT_BLOCK)
				lo.block_bytes = (uint32_t)u;
			else if (c == OPT_LEAVES)
				lo.max_leaves = (uint32_t)u;
			else
				lo.zoom_floor_bytes = u;
			sb_cli_slurm_keep(keep, opts, c, optarg, true);
			break;
		case OPT_HOT:
			if (sb_parse_double(optarg, "--hot-share", &d) < 0 || !(d > 0) || d > 1)
				return sb_cli_usage_error(
				    "locality",
				    "--hot-share: expected a share in (0, 1], got "
				    "'%s'",
				    optarg);
			lo.hot_share = d;
			sb_cli_slurm_keep(keep, opts, c, optarg, true);
			analysis_opt = "--hot-share";
			break;
		case 'j':
			json = optarg;
			report_opt = "--json";
			break;
		case 'P':
			plots = optarg;
			sb_cli_slurm_keep(keep, opts, c, optarg, false);
			report_opt = "--plots";
			break;
		case 'h':
			locality_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("locality", "bad option");
		}
	}
	if (memcmp(&lo.rules, &dflt, sizeof(dflt)) && !report_opt)
		report_opt = "a confidence option";
	if ((rc = sb_cli_parallel_check("locality", &par, report_opt)) != 0)
		return rc;
	if (par.merge && analysis_opt)
		return sb_cli_usage_error("locality",
		                          "%s go%s with the shards: the partials say how the trace "
		                          "was analysed",
		                          analysis_opt, strchr(analysis_opt, ',') ? "" : "es");
	if (optind >= argc)
		return sb_cli_usage_error("locality", par.merge ? "expected the PARTIALs to merge"
		                                                : "expected at least one INPUT");
	inputs = (const char *const *)(argv + optind);
	ninputs = (size_t)(argc - optind);
	/* no output may replace an input or the other output */
	{
		const char *outs[] = {json, plots, par.partial};

		if ((rc = sb_cli_check_outputs(outs, 3, argv + optind, argc - optind, NULL, 0)) !=
		    0)
			return rc;
	}
	if (!par.merge &&
	    (rc = sb_cli_trace_source("locality", &o, argv + optind, argc - optind, &src)) != 0)
		return rc;
	if (!par.merge && (err = sb_locality_options_resolve(&lo)) < 0)
		return sb_cli_usage_error("locality", "%s", sb_error_detail());
	if (par.slurm) {
		struct sb_cli_analysis_slurm as = {.cmd = "locality",
		                                   .kind = SB_PARTIAL_LOCALITY,
		                                   .par = &par,
		                                   .args = keep,
		                                   .json = json,
		                                   .inputs = argv + optind,
		                                   .ninputs = argc - optind,
		                                   .src = &src,
		                                   .opts = sbatch,
		                                   .nopts = nsbatch};

		return sb_cli_analysis_slurm(&as);
	}
	if (par.have_shard)
		return run_shard(&src, &par, &lo);
	fmt = sb_trace_format_name(o.fmt);
	if (par.merge) {
		nparts = argc - optind;
		if ((rc = merge_partials(argv + optind, nparts, &lo, &parts, &res)) != 0)
			goto out;
		fmt = sb_trace_format_name(parts[0].meta.format);
		inputs = parts[0].meta.inputs;
		ninputs = parts[0].meta.ninputs;
	} else if ((err = sb_locality_run_source(&src, &lo, sb_cli_threads(&par), &res)) < 0) {
		rc = sb_cli_analysis_error(err);
		goto out;
	}
	if (res.accesses == 0) {
		fprintf(stderr, "stackbench: '%s' holds no accesses: nothing to analyse\n",
		        inputs[0]);
		rc = SB_EXIT_INPUT;
		goto out;
	}
	if (json) {
		if ((err = sb_locality_report_json(&res, fmt, inputs, ninputs, &text)) < 0) {
			rc = sb_cli_error(err);
			goto out;
		}
		if ((rc = sb_cli_write_json(json, text)) != 0)
			goto out;
	}
	if (plots && (err = sb_locality_plot(&res, plots)) < 0) {
		rc = sb_cli_error(err);
		goto out;
	}
	if (!(json && !strcmp(json, "-")))
		print_summary(&res, fmt);
	rc = SB_EXIT_OK;
out:
	free(text);
	sb_locality_result_release(&res);
	sb_cli_free_partials(parts, nparts);
	return rc;
}

static int locality_run(int argc, char **argv)
{
	return sb_cli_analysis_run(argc, argv, opts, locality_main);
}

const struct sb_cli_command sb_cmd_locality = {
    .name = "locality",
    .summary = "memory-centric analyses of traces: reuse distances, footprints, hot regions",
    .run = locality_run,
    .help = locality_help,
};
