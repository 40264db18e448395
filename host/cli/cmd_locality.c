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
#include "stackbench/util.h"

static void locality_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench locality [OPTIONS] INPUT...\n"
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
	        "  -h, --help             this help\n",
	        SB_CLI_CONFIDENCE_HELP);
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
	printf("\nreuse distances: %s%llu cold, mean %s%.4g blocks, max %llu\n",
	       sb_cli_mark(h->confident), (unsigned long long)h->cold, sb_cli_mark(h->confident),
	       h->finite ? (double)h->sum / (double)h->finite : 0.0, (unsigned long long)h->max);
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

		snprintf(b, sizeof(b), "%s%.4g", sb_cli_mark(sp->reuse.confident),
		         sp->reuse.finite ? (double)sp->reuse.sum / (double)sp->reuse.finite : 0.0);
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

			snprintf(b, sizeof(b), "%s%.4g", sb_cli_mark(r->confident), r->mean_reuse);
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

static int locality_run(int argc, char **argv)
{
	enum { OPT_LEAVES = 0x200, OPT_HOT, OPT_FLOOR, OPT_PLOTS, OPT_BLOCK };
	static const struct option opts[] = {
	    {"format", required_argument, NULL, SB_CLI_OPT_FORMAT},
	    {"clock-ghz", required_argument, NULL, SB_CLI_OPT_CLOCK},
	    {"word-bytes", required_argument, NULL, SB_CLI_OPT_WORD},
	    {"block-bytes", required_argument, NULL, OPT_BLOCK},
	    {"leaves", required_argument, NULL, OPT_LEAVES},
	    {"hot-share", required_argument, NULL, OPT_HOT},
	    {"zoom-floor", required_argument, NULL, OPT_FLOOR},
	    {"json", required_argument, NULL, 'j'},
	    {"plots", required_argument, NULL, OPT_PLOTS},
	    {"help", no_argument, NULL, 'h'},
	    SB_CLI_CONFIDENCE_OPTIONS,
	    {NULL, 0, NULL, 0},
	};
	struct sb_cli_trace_opts o = {0};
	struct sb_locality_options lo = {0};
	struct sb_locality_result res = {0};
	struct sb_trace_reader *r = NULL;
	const char *json = NULL, *plots = NULL;
	char *text = NULL;
	uint64_t u;
	double d;
	int c, rc, err;

	sb_confidence_rules_default(&lo.rules);
	while ((c = getopt_long(argc, argv, "f:j:P:h", opts, NULL)) != -1) {
		if (c == 'f')
			c = SB_CLI_OPT_FORMAT;
		if ((rc = sb_cli_trace_option("locality", c, optarg, &o)) >= 0 ||
		    (rc = sb_cli_confidence_option("locality", c, optarg, &lo.rules)) >= 0) {
			if (rc)
				return rc;
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
			if (c == OPT_BLOCK)
				lo.block_bytes = (uint32_t)u;
			else if (c == OPT_LEAVES)
				lo.max_leaves = (uint32_t)u;
			else
				lo.zoom_floor_bytes = u;
			break;
		case OPT_HOT:
			if (sb_parse_double(optarg, "--hot-share", &d) < 0 || !(d > 0) || d > 1)
				return sb_cli_usage_error(
				    "locality",
				    "--hot-share: expected a share in (0, 1], got "
				    "'%s'",
				    optarg);
			lo.hot_share = d;
			break;
		case 'j':
			json = optarg;
			break;
		case 'P':
		case OPT_PLOTS:
			plots = optarg;
			break;
		case 'h':
			locality_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("locality", "bad option");
		}
	}
	/* no output may replace an input or the other output */
	{
		const char *outs[] = {json, plots};

		if ((rc = sb_cli_check_outputs(outs, 2, argv + optind, argc - optind, NULL, 0)) !=
		    0)
			return rc;
	}
	if ((rc = sb_cli_trace_open("locality", &o, argv + optind, argc - optind, &r)) != 0)
		return rc;
	if ((err = sb_locality_run(r, &lo, &res)) < 0) {
		rc = sb_cli_error(err);
		rc = err == SB_ERR_RANGE ? SB_EXIT_INPUT : rc;
		goto out;
	}
	if (res.accesses == 0) {
		fprintf(stderr, "stackbench: '%s' holds no accesses: nothing to analyse\n",
		        argv[optind]);
		rc = SB_EXIT_INPUT;
		goto out;
	}
	if (json) {
		if ((err = sb_locality_report_json(&res, sb_trace_format_name(o.fmt),
		                                   (const char *const *)(argv + optind),
		                                   (size_t)(argc - optind), &text)) < 0) {
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
		print_summary(&res, sb_trace_format_name(o.fmt));
	rc = SB_EXIT_OK;
out:
	free(text);
	sb_locality_result_release(&res);
	sb_trace_reader_free(r);
	return rc;
}

const struct sb_cli_command sb_cmd_locality = {
    .name = "locality",
    .summary = "memory-centric analyses of traces: reuse distances, footprints, hot regions",
    .run = locality_run,
    .help = locality_help,
};
