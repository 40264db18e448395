/* SPDX-License-Identifier: MIT */
/* stackbench export: a results database as CSV or JSON. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackbench/error.h"
#include "stackbench/output.h"
#include "stackbench/store.h"
#include "stackbench/util.h"

static void export_help(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbench export [--db PATH] --format csv|json [--campaign ID]\n"
	    "                         [--table NAME] [--samples] [--out FILE]\n"
	    "\n"
	    "Write results as CSV (one table, a header row, numbers that read back exactly)\n"
	    "or JSON (an object with schema_version and one array per table: campaigns,\n"
	    "points, point_ports, events, and samples with --samples). Columns and units are\n"
	    "those of the database (docs/campaigns.md): *_gbps in GB/s, *_ns in ns, ...\n"
	    "\n"
	    "  -d, --db PATH       results database (default: $STACKBENCH_DB or stackbench.db)\n"
	    "  -f, --format F      csv or json (required)\n"
	    "  -c, --campaign ID   one campaign (default: all)\n"
	    "      --table NAME    CSV only: points (default), ports, samples, events,\n"
	    "                      campaigns, point_traces, hbm_points, hbm_ports\n"
	    "      --samples       JSON only: include the sampled time series\n"
	    "  -o, --out FILE      write FILE (atomically) instead of stdout\n"
	    "  -h, --help          this help\n");
}

static int export_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},       {"format", required_argument, NULL, 'f'},
	    {"campaign", required_argument, NULL, 'c'}, {"table", required_argument, NULL, 't'},
	    {"samples", no_argument, NULL, 's'},        {"out", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
	};
	const char *db = sb_cli_default_db(), *out = NULL, *fmt = NULL;
	enum sb_export_table table = SB_TABLE_POINTS;
	bool samples = false, table_set = false;
	struct sb_store *st;
	struct sb_output o;
	uint64_t id = 0;
	int c, e;

	while ((c = getopt_long(argc, argv, "d:f:c:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'f':
			fmt = optarg;
			break;
		case 'c':
			if (sb_parse_u64(optarg, "--campaign", false, &id) < 0 || !id ||
			    id > INT64_MAX)
				return sb_cli_usage_error("export", "--campaign %s: a campaign id",
				                          optarg);
			break;
		case 't':
			if (sb_export_table_parse(optarg, &table) < 0)
				return sb_cli_usage_error("export", "%s", sb_error_detail());
			table_set = true;
			break;
		case 's':
			samples = true;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			export_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("export", "bad option");
		}
	}
	if (optind != argc)
		return sb_cli_usage_error("export", "unexpected argument '%s'", argv[optind]);
	if (!fmt || (strcmp(fmt, "csv") && strcmp(fmt, "json")))
		return sb_cli_usage_error("export", "--format csv or --format json is required");
	if (!strcmp(fmt, "json") && table_set)
		return sb_cli_usage_error("export", "--table is for CSV; JSON holds every table");
	if (!strcmp(fmt, "csv") && samples)
		return sb_cli_usage_error("export", "--samples is for JSON; use --table samples");
	if (out && (e = sb_output_check_inputs(out, &db, 1)) < 0)
		return sb_cli_error(e);
	if ((e = sb_store_open_readonly(&st, db)) < 0)
		return sb_cli_store_error(e);
	/* the file appears complete or not at all */
	if ((e = sb_output_open(&o, out ? out : "-")) < 0) {
		sb_store_close(st);
		return sb_cli_error(e);
	}
	e = sb_store_export(st, o.f, strcmp(fmt, "csv") ? SB_EXPORT_JSON : SB_EXPORT_CSV, table,
	                    (int64_t)id, samples);
	sb_store_close(st);
	if (e >= 0 && ferror(o.f))
		e = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", o.path, strerror(errno));
	if (e >= 0)
		e = sb_output_commit(&o);
	else
		sb_output_abort(&o);
	if (e < 0)
		return sb_cli_error(e);
	return SB_EXIT_OK;
}

const struct sb_cli_command sb_cmd_export = {
    .name = "export",
    .summary = "export results as CSV or JSON",
    .run = export_run,
    .help = export_help,
};
