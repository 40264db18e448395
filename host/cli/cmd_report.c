/* SPDX-License-Identifier: MIT */
/* stackbench report: figures (PNG, SVG, PDF, EPS, by gnuplot) and an HTML report from a results
 * database. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/output.h"
#include "stackbench/report.h"
#include "stackbench/util.h"

#define MAX_CAMPAIGNS 64
#define MAX_DBS 8

static void report_help(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbench report [--db PATH]... [--plots DIR] [--campaign ID]... [--compare]\n"
	    "                         [--against-model [PROFILE]] [--json OUT]\n"
	    "                         [--format LIST] [--size single|double|WxH] [--font-size PT]\n"
	    "                         [--no-title] [--html DIR] [--hold-c C]\n"
	    "\n"
	    "Draw the figures the results allow with gnuplot (Debian package gnuplot-nox;\n"
	    "$STACKBENCH_GNUPLOT names another program). docs/figures.md describes each:\n"
	    "  mask_bandwidth     bandwidth against mask position, per request type\n"
	    "  pattern_bandwidth  bandwidth per access pattern (panels per request type)\n"
	    "  pattern_mrps       request rate per access pattern\n"
	    "  pattern_latency    read latency per access pattern at full load\n"
	    "  occupancy_pattern  reads in flight (Little's law) per pattern at saturation,\n"
	    "                     against the tag-pool bound\n"
	    "  size_bandwidth     bandwidth per request size, random and linear\n"
	    "  size_mrps          request rate per request size\n"
	    "  latency_bandwidth  read latency against measured bandwidth (1..N ports)\n"
	    "  stream_latency     low-load latency against requests per stream group\n"
	    "and from thermal campaigns (instruments, cooling configurations):\n"
	    "  thermal_temperature_bandwidth  steady-state hot spot against bandwidth, per\n"
	    "                     cooling configuration and request type, with linear fits\n"
	    "  thermal_power_bandwidth  mean power against bandwidth per cooling\n"
	    "                     configuration (panels per request type), with linear fits\n"
	    "  thermal_cooling_power  cooling power needed to hold a temperature against\n"
	    "                     bandwidth (interpolated between the configurations measured)\n"
	    "  thermal_failure_trace  hot spot over time of the runs that failed, failure marked\n"
	    "and in comparisons (--against-model, several --db):\n"
	    "  compare_ratio      the ratio of each metric of every point, compared / reference\n"
	    "Runs of different campaigns, devices or point durations are never averaged; the\n"
	    "repetitions of a point are, with a 95 %% confidence interval (Student's t).\n"
	    "Simulated (sim:) and fast-forwarded data are marked. The data (.dat) and gnuplot\n"
	    "scripts (.gp) are kept beside the images.\n"
	    "\n"
	    "  -d, --db PATH       results database (default: $STACKBENCH_DB or stackbench.db);\n"
	    "                      twice or more: compare each campaign of the first with the\n"
	    "                      latest campaign of the same content hash in the others (two\n"
	    "                      benches, two boards, before and after a firmware change),\n"
	    "                      named by their provenance; ratios are OTHER / FIRST\n"
	    "      --against-model [PROFILE]  run each campaign's measured points again on the\n"
	    "                      simulated board (same seed and settings, sim: instruments;\n"
	    "                      PROFILE: a model profile name or .yaml file, default the\n"
	    "                      campaign's bench.profile, else hmc-gen2-ac510) and compare:\n"
	    "                      every figure overlays measurement and model, ratios are\n"
	    "                      measured / model\n"
	    "                      A comparison prints a table of the ratios per point and their\n"
	    "                      median and worst per metric, and writes into DIR\n"
	    "                      comparison.json, comparison.db (the campaigns compared, the\n"
	    "                      model's runs) and the compare_ratio figure\n"
	    "  -j, --json OUT      the comparison as JSON into OUT ('-': standard output,\n"
	    "                      instead of the table)\n"
	    "  -P, --plots DIR     output folder (default: report; --out DIR, -o: the same)\n"
	    "  -c, --campaign ID   a campaign (repeat for several; default: all); several\n"
	    "                      campaigns get one set of figures each, named cID_NAME (in a\n"
	    "                      comparison: campaigns of the first database)\n"
	    "      --compare       one set of figures with the campaigns overlaid, their\n"
	    "                      series named by campaign\n"
	    "  -f, --format LIST   image formats, comma-separated: png, svg, pdf, eps (pdf and\n"
	    "                      eps through cairo; default: png,svg)\n"
	    "      --size S        single (3.5 in wide: a column of a two-column paper),\n"
	    "                      double (7.16 in: the page) or WxH in inches (H 0: from\n"
	    "                      the figure); default: screen size\n"
	    "      --font-size PT  font size in points (default: 8 with --size, else 10)\n"
	    "      --no-title      no figure titles (captions go in the paper)\n"
	    "      --html DIR      also DIR/report.html: one self-contained page with every\n"
	    "                      figure, the campaigns' settings and provenance, and tables\n"
	    "                      of the points (DIR is the output folder)\n"
	    "      --hold-c C      thermal_cooling_power: the temperature held (default: the\n"
	    "                      one most of the traffic measured passes through)\n"
	    "  -h, --help          this help\n"
	    "\n"
	    "Exit status: 0, 1 (gnuplot or writing failed, the model cannot run a point), 2\n"
	    "(bad command line), 4 (a database missing or not a results database, a campaign\n"
	    "that does not rebuild, no campaign of the same hash in the other databases).\n");
}

static void on_figure(void *ctx, const struct sb_report_figure *f)
{
	static const char *const ext[] = {"png", "svg", "pdf", "eps"};
	(void)ctx;
	printf("figure %-29s", f->base);
	if (f->skipped_why) {
		printf(" skipped: %s\n", f->skipped_why);
		return;
	}
	for (unsigned i = 0; i < 4; i++)
		if (f->formats & 1u << i)
			printf(" %s.%s", f->path, ext[i]);
	if (f->n_max > 1 && f->n_min == f->n_max)
		printf("  (n = %u runs per point)", f->n_max);
	else if (f->n_max > 1)
		printf("  (n = %u..%u runs per point)", f->n_min, f->n_max);
	printf("\n");
}

/* What a comparison shows as it goes: the model's runs, and the tables (not with JSON on
 * standard output). */
struct shown {
	struct sb_cli_progress pg;
	bool tables;
};

static void on_progress(void *ctx, const struct sb_run_progress *p)
{
	struct shown *sh = ctx;

	sb_cli_progress_show(&sh->pg, p);
}

static void on_comparison(void *ctx, const struct sb_report_comparison *c)
{
	struct shown *sh = ctx;

	if (sh->tables)
		sb_report_comparison_print(stdout, c);
}

/* Open the databases read-only: a missing or invalid one is a bad input file (4). */
static int open_stores(const char *const *dbs, size_t n, struct sb_store **st)
{
	for (size_t i = 0; i < n; i++) {
		int e = sb_store_open_readonly(&st[i], dbs[i]);

		if (e < 0) {
			while (i--)
				sb_store_close(st[i]);
			return sb_cli_store_error(e);
		}
	}
	return SB_EXIT_OK;
}

static int report_run(int argc, char **argv)
{
	enum { OPT_HOLD = 256, OPT_COMPARE, OPT_SIZE, OPT_FONT, OPT_NO_TITLE, OPT_HTML, OPT_MODEL };
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"plots", required_argument, NULL, 'P'},
	    {"out", required_argument, NULL, 'o'},
	    {"campaign", required_argument, NULL, 'c'},
	    {"compare", no_argument, NULL, OPT_COMPARE},
	    {"against-model", optional_argument, NULL, OPT_MODEL},
	    {"json", required_argument, NULL, 'j'},
	    {"format", required_argument, NULL, 'f'},
	    {"size", required_argument, NULL, OPT_SIZE},
	    {"font-size", required_argument, NULL, OPT_FONT},
	    {"no-title", no_argument, NULL, OPT_NO_TITLE},
	    {"html", required_argument, NULL, OPT_HTML},
	    {"hold-c", required_argument, NULL, OPT_HOLD},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *env = getenv("STACKBENCH_GNUPLOT");
	const char *out = NULL, *html = NULL, *json_out = NULL;
	const char *dbs[MAX_DBS];
	struct sb_store *st[MAX_DBS];
	struct sb_report_options ro = {.figure = on_figure};
	struct shown sh = {.pg = {.cmd = "report",
	                          .tty = isatty(STDERR_FILENO),
	                          .quiet = sb_log_get_level() < SB_LOG_WARN},
	                   .tables = true};
	struct sb_report_compare cmp = {
	    .progress = on_progress, .comparison = on_comparison, .ctx = &sh};
	int64_t ids[MAX_CAMPAIGNS];
	uint64_t id = 0;
	size_t nids = 0, ndbs = 0;
	char *json = NULL;
	int c, e;

	while ((c = getopt_long(argc, argv, "d:P:o:c:f:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (ndbs == MAX_DBS)
				return sb_cli_usage_error("report", "--db: at most %d", MAX_DBS);
			dbs[ndbs++] = optarg;
			break;
		case 'P':
		case 'o':
			out = optarg;
			break;
		case 'c':
			if (sb_parse_u64(optarg, "--campaign", false, &id) < 0 || !id ||
			    id > INT64_MAX)
				return sb_cli_usage_error("report", "--campaign %s: a campaign id",
				                          optarg);
			if (nids == MAX_CAMPAIGNS)
				return sb_cli_usage_error("report", "--campaign: at most %d",
				                          MAX_CAMPAIGNS);
			ids[nids++] = (int64_t)id;
			break;
		case OPT_COMPARE:
			ro.compare = true;
			break;
		case OPT_MODEL:
			cmp.model = true;
			/* --against-model PROFILE as well as --against-model=PROFILE: report takes
			   no other argument, so a word after it is its profile */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			if (optarg && !*optarg)
				return sb_cli_usage_error("report",
				                          "--against-model: an empty profile");
			cmp.profile = optarg;
			break;
		case 'j':
			json_out = optarg;
			break;
		case 'f':
			if (sb_report_formats_parse(optarg, &ro.formats) < 0)
				return sb_cli_usage_error("report", "--format: %s",
				                          sb_error_detail());
			break;
		case OPT_SIZE:
			if (sb_report_size_parse(optarg, &ro.width_in, &ro.height_in) < 0)
				return sb_cli_usage_error("report", "--size: %s",
				                          sb_error_detail());
			break;
		case OPT_FONT:
			if (sb_parse_double(optarg, "--font-size", &ro.font_pt) < 0 ||
			    !(ro.font_pt >= 4) || ro.font_pt > 72)
				return sb_cli_usage_error("report", "--font-size %s: points, 4..72",
				                          optarg);
			break;
		case OPT_NO_TITLE:
			ro.no_title = true;
			break;
		case OPT_HTML:
			html = optarg;
			break;
		case OPT_HOLD:
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
	if (html && out && strcmp(html, out))
		return sb_cli_usage_error("report",
		                          "--html %s and --plots %s: the HTML report goes with the "
		                          "figures; give one folder",
		                          html, out);
	if (!ndbs)
		dbs[ndbs++] = sb_cli_default_db();
	if (cmp.model && ndbs > 1)
		return sb_cli_usage_error("report",
		                          "--against-model compares one database with the model; "
		                          "give one --db");
	if (json_out && !cmp.model && ndbs < 2)
		return sb_cli_usage_error("report", "--json is the comparison's: give "
		                                    "--against-model or a second --db");
	if (ro.compare && (cmp.model || ndbs > 1))
		return sb_cli_usage_error("report", "--compare: a comparison overlays its "
		                                    "campaigns already");
	ro.out_dir = html ? html : out ? out : "report";
	ro.html = html != NULL;
	ro.campaigns = ids;
	ro.ncampaigns = nids;
	if (env && *env)
		ro.gnuplot = env;
	/* no output may replace a database read */
	{
		char cdb[4096];
		const char *outs[] = {json_out && strcmp(json_out, "-") ? json_out : NULL, cdb};

		snprintf(cdb, sizeof(cdb), "%s/comparison.db", ro.out_dir);
		if ((e = sb_cli_check_outputs(outs, cmp.model || ndbs > 1 ? 2 : 1,
		                              (char *const *)dbs, (int)ndbs, NULL, 0)) != 0)
			return e;
	}
	if ((e = open_stores(dbs, ndbs, st)) != SB_EXIT_OK)
		return e;
	if (cmp.model || ndbs > 1) {
		sh.tables = !json_out || strcmp(json_out, "-");
		if (!sh.tables)
			ro.figure = NULL; /* standard output is the JSON's */
		e = sb_report_compare(st, ndbs, &cmp, &ro, json_out ? &json : NULL);
	} else {
		e = sb_report(st[0], &ro);
	}
	for (size_t i = 0; i < ndbs; i++)
		sb_store_close(st[i]);
	if (sh.pg.drawn)
		fputc('\n', stderr);
	if (e < 0) {
		free(json);
		/* a campaign that does not rebuild, or none of the same hash elsewhere: the
		   databases' fault (4); the model's profile missing: a device (3) */
		if (e == SB_ERR_MISMATCH || e == SB_ERR_PARSE) {
			sb_cli_error(e);
			return SB_EXIT_INPUT;
		}
		if (e == SB_ERR_NOT_FOUND && cmp.model)
			return sb_cli_device_error(e);
		return sb_cli_error(e);
	}
	if (json && (c = sb_cli_write_json(json_out, json)) != 0) {
		free(json);
		return c;
	}
	free(json);
	if (!json_out || strcmp(json_out, "-")) {
		/* the folder as given, without a trailing '/': "out/report.html" */
		int len = (int)strlen(ro.out_dir);

		while (len > 1 && ro.out_dir[len - 1] == '/')
			len--;
		printf("%d figure%s in %.*s/\n", e, e == 1 ? "" : "s", len, ro.out_dir);
		if (ro.html)
			printf("report: %.*s/report.html\n", len, ro.out_dir);
	}
	return SB_EXIT_OK;
}

const struct sb_cli_command sb_cmd_report = {
    .name = "report",
    .summary = "draw figures (PNG, SVG, PDF, EPS) and an HTML report from a results database",
    .run = report_run,
    .help = report_help,
};
