/* SPDX-License-Identifier: MIT */
/*
 * stackbench merge: the shards of a campaign (databases of `run --shard`, of a Slurm job array,
 * or of two benches that each ran part of a sweep) into one campaign of a database, exactly
 * (sb_store_merge, docs/cluster.md).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "stackbench/error.h"
#include "stackbench/store.h"

static void merge_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench merge SHARD_DB... --into DB [--campaign NAME] [--partial]\n"
	        "\n"
	        "Merge the shards of a campaign into one campaign of DB: every run of every\n"
	        "point once, with its counters, samples, trace capture and events, and its\n"
	        "provenance as measured (host, board, Slurm job and task, shard). DB may hold\n"
	        "other campaigns; a new DB is made whole or not at all.\n"
	        "\n"
	        "Refused, leaving DB untouched: a damaged or truncated shard, shards of\n"
	        "different campaigns (content hash), a run present twice with different\n"
	        "results (the same run twice with the same results is kept once), and points\n"
	        "missing (unless --partial).\n"
	        "\n"
	        "      --into DB         the database to merge into (made when missing)\n"
	        "  -c, --campaign NAME   the campaign of that name in each shard (default: each\n"
	        "                        shard's latest campaign)\n"
	        "      --partial         merge although points are missing: the campaign is\n"
	        "                        left interrupted, and 'stackbench run FILE --db DB\n"
	        "                        --resume' runs the rest\n"
	        "  -h, --help            this help\n"
	        "\n"
	        "Exit codes: 0 merged, 2 bad command line, 4 a shard refused, 1 anything else.\n");
}

static int run_merge(int argc, char **argv)
{
	enum { OPT_PARTIAL = 0x100, OPT_INTO };
	static const struct option opts[] = {
	    {"into", required_argument, NULL, OPT_INTO},
	    {"campaign", required_argument, NULL, 'c'},
	    {"partial", no_argument, NULL, OPT_PARTIAL},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct sb_merge_options o = {0};
	struct sb_merge_summary sum;
	const char *into = NULL;
	int ch, e;

	while ((ch = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (ch) {
		case OPT_INTO:
			into = optarg;
			break;
		case 'c':
			o.campaign = optarg;
			break;
		case OPT_PARTIAL:
			o.partial = true;
			break;
		case 'h':
			merge_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("merge", "bad option");
		}
	}
	if (!into)
		return sb_cli_usage_error("merge", "--into DB is needed");
	if (optind >= argc)
		return sb_cli_usage_error("merge", "no SHARD_DB given");
	e = sb_store_merge((const char *const *)argv + optind, (unsigned)(argc - optind), into, &o,
	                   &sum);
	if (e < 0) {
		int rc = sb_cli_error(e);

		/* the shards' fault: damaged, of other campaigns, conflicting, incomplete */
		if (e == SB_ERR_DB || e == SB_ERR_MISMATCH || e == SB_ERR_STATE ||
		    e == SB_ERR_NOT_FOUND || e == SB_ERR_PARSE || e == SB_ERR_VERSION)
			return SB_EXIT_INPUT;
		return rc;
	}
	printf("merged %u database%s into '%s'%s as campaign %lld '%s' (content hash %s): %u of %u "
	       "points, %u runs, %u duplicate run%s dropped, %u trace capture%s\n",
	       sum.inputs, sum.inputs == 1 ? "" : "s", into, sum.created ? " (new)" : "",
	       (long long)sum.campaign_id, sum.name, sum.hash, sum.points, sum.total, sum.runs,
	       sum.duplicates, sum.duplicates == 1 ? "" : "s", sum.traces,
	       sum.traces == 1 ? "" : "s");
	printf("%s\n", sum.complete
	                   ? "complete"
	                   : "incomplete (--partial): stackbench run FILE --db DB --resume "
	                     "runs the rest");
	return SB_EXIT_OK;
}

const struct sb_cli_command sb_cmd_merge = {
    .name = "merge",
    .summary = "merge the shards of a campaign into one database",
    .run = run_merge,
    .help = merge_help,
};
