/* SPDX-License-Identifier: MIT */
/* stackbench report: figures (PNG and SVG, by gnuplot) from a results database. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "stackbench/error.h"
#include "stackbench/report.h"
#include "stackbench/util.h"

static void report_help(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbench report [--db PATH] [--out DIR] [--campaign ID] [--hold-c C]\n"
	    "\n"
	    "Draw the figures the results allow, as PNG and SVG with gnuplot (Debian package\n"
	    "gnuplot-nox; $STACKBENCH_GNUPLOT names another program):\n"
	    "  mask_bandwidth     bandwidth against mask position, per request type\n"
	    "  pattern_bandwidth  bandwidth per access pattern (panels per request type)\n"
	    "  pattern_mrps       request rate per access pattern\n"
	    "  size_bandwidth     bandwidth per request size, random and linear\n"
	    "  size_mrps          request rate per request size\n"
	    "  latency_bandwidth  read latency against offered bandwidth (1..N ports)\n"
	    "  stream_latency     low-load latency against requests per stream group\n"
	    "and from thermal campaigns (instruments, cooling configurations):\n"
	    "  thermal_temperature_bandwidth  steady-state hot spot against bandwidth, per\n"
	    "                     cooling configuration and request type, with linear fits\n"
	    "  thermal_power_bandwidth  mean power against bandwidth per cooling\n"
	    "                     configuration (panels per request type), with linear fits\n"
	    "  thermal_cooling_power  cooling power needed to hold a temperature against\n"
	    "                     bandwidth (interpolated between the configurations measured)\n"
	    "  thermal_failure_trace  hot spot over time of the runs that failed, failure marked\n"
	    "The data (.dat) and gnuplot scripts (.gp) are kept beside the images.\n"
	    "\n"
	    "  -d, --db PATH       results database (default: $STACKBENCH_DB or stackbench.db)\n"
	    "  -o, --out DIR       output folder (default: report)\n"
	    "  -c, --campaign ID   one campaign (default: all)\n"
	    "      --hold-c C      thermal_cooling_power: the temperature held (default: the\n"
	    "                      one most of the traffic measured passes through)\n"
	    "  -h, --help          this help\n");
}

static void on_figure(void *ctx, const char *name, const char *png, const char *svg,
                      const char *why)
{
	(void)ctx;
	if (png)
		printf("figure %-29s %s  %s\n", name, png, svg);
	else
		printf("figure %-29s skipped: %s\n", name, why);
}

static int report_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},       {"out", required_argument, NULL, 'o'},
	    {"campaign", required_argument, NULL, 'c'}, {"hold-c", required_argument, NULL, 'T'},
	    {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
	};
	const char *db = sb_cli_default_db(), *env = getenv("STACKBENCH_GNUPLOT");
	struct sb_report_options ro = {.out_dir = "report", .figure = on_figure};
	struct sb_store *st;
	uint64_t id = 0;
	int c, e;

	while ((c = getopt_long(argc, argv, "d:o:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'o':
			ro.out_dir = optarg;
			break;
		case 'c':
			if (sb_parse_u64(optarg, "--campaign", false, &id) < 0 || !id ||
			    id > INT64_MAX)
				return sb_cli_usage_error("report", "--campaign %s: a campaign id",
				                          optarg);
			break;
		case 'T':
			if (sb_parse_double(optarg, "--hold-c", &ro.hold_c) < 0 ||
			    !(ro.hold_c > 0) || ro.hold_c > 200)
				return sb_cli_usage_error("report",
				                          "--hold-c %s: a temperature in C, "
				                          "(0, 200]",
				                          optarg);
			break;
		case 'h':
			report_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("report", "bad option");
		}
	}
	if (optind != argc)
		return sb_cli_usage_error("report", "unexpected argument '%s'", argv[optind]);
	ro.campaign_id = (int64_t)id;
	if (env && *env)
		ro.gnuplot = env;
	if ((e = sb_store_open_readonly(&st, db)) < 0)
		return sb_cli_error(e);
	e = sb_report(st, &ro);
	sb_store_close(st);
	if (e < 0)
		return sb_cli_error(e);
	printf("%d figure%s in %s/\n", e, e == 1 ? "" : "s", ro.out_dir);
	return SB_EXIT_OK;
}

const struct sb_cli_command sb_cmd_report = {
    .name = "report",
    .summary = "draw figures (PNG, SVG) from a results database with gnuplot",
    .run = report_run,
    .help = report_help,
};
