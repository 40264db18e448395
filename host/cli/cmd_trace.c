/* SPDX-License-Identifier: MIT */
/*
 * stackbench trace: look at and convert memory-access traces (SCALE-Sim, GPGPU-Sim cache logs,
 * CSV, sbt). Also the options and opening code shared by the commands that read traces.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_analysis.h"
#include "stackbench/error.h"
#include "stackbench/output.h"
#include "stackbench/trace.h"
#include "stackbench/util.h"

int sb_cli_trace_option(const char *cmd, int c, const char *arg, struct sb_cli_trace_opts *o)
{
	uint64_t u;
	double d;

	switch (c) {
	case SB_CLI_OPT_FORMAT:
		if (sb_trace_format_parse(arg, &o->fmt) < 0)
			return sb_cli_usage_error(cmd, "%s", sb_error_detail());
		o->have_fmt = true;
		return 0;
	case SB_CLI_OPT_CLOCK:
		if (sb_parse_double(arg, "--clock-ghz", &d) < 0 || !sb_trace_clock_ok(d * 1e9))
			return sb_cli_usage_error(
			    cmd,
			    "--clock-ghz: expected a number of GHz from %g to "
			    "%g, got '%s'",
			    SB_TRACE_CLOCK_MIN_HZ / 1e9, SB_TRACE_CLOCK_MAX_HZ / 1e9, arg);
		o->topt.clock_hz = d * 1e9;
		return 0;
	case SB_CLI_OPT_WORD:
	case SB_CLI_OPT_BLOCK:
		if (sb_parse_u64(arg, c == SB_CLI_OPT_WORD ? "--word-bytes" : "--block-bytes",
		                 false, &u) < 0 ||
		    u == 0 || u > (1u << 20) || (u & (u - 1)))
			return sb_cli_usage_error(
			    cmd, "%s: expected a power of two up to 1M, got '%s'",
			    c == SB_CLI_OPT_WORD ? "--word-bytes" : "--block-bytes", arg);
		if (c == SB_CLI_OPT_WORD)
			o->topt.word_bytes = (uint32_t)u;
		else
			o->topt.block_bytes = (uint32_t)u;
		return 0;
	default:
		return -1;
	}
}

int sb_cli_confidence_option(const char *cmd, int c, const char *arg, struct sb_confidence_rules *r)
{
	static const struct {
		int code;
		const char *name;
		double lo, hi;
	} opts[] = {{SB_CLI_OPT_MIN_DENSITY, "--min-density", 0, 1},
	            {SB_CLI_OPT_MIN_DENSITY_CACHE, "--min-density-cache", 0, 1},
	            {SB_CLI_OPT_MIN_EVENTS, "--min-events", 0, 1e15},
	            {SB_CLI_OPT_WARMUP, "--warmup", 0, 1e6},
	            {SB_CLI_OPT_MAX_LOST, "--max-lost", 0, 1},
	            {SB_CLI_OPT_MAX_CENSORED, "--max-censored", 0, 1}};
	double d;

	for (size_t i = 0; i < SB_ARRAY_SIZE(opts); i++) {
		if (opts[i].code != c)
			continue;
		if (sb_parse_double(arg, opts[i].name, &d) < 0 || !(d >= opts[i].lo) ||
		    !(d <= opts[i].hi) || (c == SB_CLI_OPT_MIN_EVENTS && d != floor(d)))
			return sb_cli_usage_error(cmd,
			                          "%s: expected a number from %g to %g, got '%s'",
			                          opts[i].name, opts[i].lo, opts[i].hi, arg);
		switch (c) {
		case SB_CLI_OPT_MIN_DENSITY:
			r->min_density = d;
			break;
		case SB_CLI_OPT_MIN_DENSITY_CACHE:
			r->min_density_cache = d;
			break;
		case SB_CLI_OPT_MIN_EVENTS:
			r->min_events = (uint64_t)d;
			break;
		case SB_CLI_OPT_WARMUP:
			r->warmup_factor = d;
			break;
		case SB_CLI_OPT_MAX_LOST:
			r->max_lost_share = d;
			break;
		default:
			r->max_censored_share = d;
			break;
		}
		return 0;
	}
	return -1;
}

/*
 * The format of path when none is given: folders are SCALE-Sim, then by file name, a
 * compression suffix (.gz, .zst, .xz) aside.
 */
static int guess_format(const char *path, enum sb_trace_format *fmt)
{
	static const char *const zs[] = {".gz", ".zst", ".xz"};
	char name[256];
	const char *dot;
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		*fmt = SB_TRACE_SCALESIM;
		return 0;
	}
	sb_strlcpy(name, path, sizeof(name));
	for (size_t i = 0; i < SB_ARRAY_SIZE(zs); i++) {
		size_t n = strlen(name), k = strlen(zs[i]);

		if (n > k && !strcmp(name + n - k, zs[i]))
			name[n - k] = '\0';
	}
	dot = strrchr(name, '.');
	if (dot && !strcmp(dot, ".sbt"))
		*fmt = SB_TRACE_SBT;
	else if (dot && !strcmp(dot, ".csv"))
		*fmt = SB_TRACE_CSV;
	else if (dot && (!strcmp(dot, ".log") || !strcmp(dot, ".txt")))
		*fmt = SB_TRACE_GPGPUSIM;
	else
		return -1;
	return 0;
}

int sb_cli_trace_source(const char *cmd, struct sb_cli_trace_opts *o, char *const *inputs, int n,
                        struct sb_trace_source *src)
{
	if (n < 1)
		return sb_cli_usage_error(cmd, "expected at least one INPUT");
	if (!o->have_fmt) {
		if (guess_format(inputs[0], &o->fmt) < 0)
			return sb_cli_usage_error(cmd,
			                          "cannot tell the format of '%s': give --format "
			                          "scalesim|gpgpusim|csv|sbt",
			                          inputs[0]);
		o->have_fmt = true;
	}
	src->fmt = o->fmt;
	src->paths = (const char *const *)inputs;
	src->npaths = (size_t)n;
	src->opt = o->topt;
	return 0;
}

int sb_cli_trace_open(const char *cmd, struct sb_cli_trace_opts *o, char *const *inputs, int n,
                      struct sb_trace_reader **r)
{
	int err;

	if (n < 1)
		return sb_cli_usage_error(cmd, "expected at least one INPUT");
	if (!o->have_fmt) {
		if (guess_format(inputs[0], &o->fmt) < 0)
			return sb_cli_usage_error(cmd,
			                          "cannot tell the format of '%s': give --format "
			                          "scalesim|gpgpusim|csv|sbt",
			                          inputs[0]);
		o->have_fmt = true;
	}
	err = sb_trace_open_many(r, o->fmt, (const char *const *)inputs, (size_t)n, &o->topt);
	if (err < 0) {
		int rc = sb_cli_error(err);

		return err == SB_ERR_NOT_FOUND || err == SB_ERR_MISMATCH || err == SB_ERR_VERSION
		           ? SB_EXIT_INPUT
		           : rc;
	}
	return 0;
}

static void trace_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench trace info [OPTIONS] INPUT...\n"
	        "       stackbench trace convert [OPTIONS] [--to csv|sbt] --out OUT INPUT...\n"
	        "\n"
	        "Read memory-access traces. 'info' prints what a trace holds (clock,\n"
	        "subpartitions, accesses per kind); 'convert' writes it as CSV or as sbt, the\n"
	        "compressed binary format (docs/trace-format.md). Several INPUTs are merged in\n"
	        "time order.\n"
	        "\n"
	        "  -f, --format FMT     input format: scalesim (run or layer folder), gpgpusim\n"
	        "                       (cache log), csv, sbt (default: from the name)\n"
	        "      --clock-ghz F    clock of cycle traces (default 1)\n"
	        "      --word-bytes N   SCALE-Sim element size (default 1)\n"
	        "      --block-bytes N  GPGPU-Sim/CSV value granularity (default 32 / 1)\n"
	        "      --to FMT         output format of convert: csv or sbt\n"
	        "  -o, --out OUT        output file of convert ('-': standard output; --output\n"
	        "                       is the same)\n"
	        "  -h, --help           this help\n");
}

static int trace_info(struct sb_trace_reader *r)
{
	enum { BATCH = 8192 };
	struct sb_trace_record *buf = malloc(BATCH * sizeof(*buf));
	uint64_t(*counts)[SB_ACC_KIND_COUNT] = calloc(SB_TRACE_MAX_SUBPARTS, sizeof(*counts));
	int64_t first = 0, last = 0;
	uint64_t total = 0;
	const struct sb_trace_info *info;
	int n;

	if (!buf || !counts) {
		free(buf);
		free(counts);
		return sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
	}
	while ((n = sb_trace_read(r, buf, BATCH)) > 0) {
		for (int i = 0; i < n; i++) {
			if (!total || buf[i].time < first)
				first = buf[i].time;
			if (!total || buf[i].time > last)
				last = buf[i].time;
			counts[buf[i].subpart][buf[i].kind]++;
			total++;
		}
	}
	free(buf);
	if (n < 0) {
		free(counts);
		return sb_cli_error(n);
	}
	info = sb_trace_reader_info(r);
	printf("source       %s\n", info->source);
	printf("clock        %g Hz (%s ticks)\n", info->tick_hz, info->time_unit);
	printf("records      %llu\n", (unsigned long long)total);
	if (total)
		printf("time         %lld .. %lld\n", (long long)first, (long long)last);
	if (info->capture.sampled) {
		const struct sb_trace_capture *cp = &info->capture;

		printf("sampled      %llu of %llu accesses executed (density %.4g); %llu bursts of "
		       "%u records, gap %llu ticks\n",
		       (unsigned long long)total, (unsigned long long)cp->executed,
		       cp->executed ? (double)total / (double)cp->executed : 0.0,
		       (unsigned long long)cp->bursts, cp->burst_records,
		       (unsigned long long)cp->gap_ticks);
		printf("lost         %llu records in %llu bursts (buffer overrun)\n",
		       (unsigned long long)cp->lost_records, (unsigned long long)cp->lost_bursts);
	} else if (info->capture.executed || info->capture.captured) {
		/* a capture of every request (--trace-gap 0, replay --trace) */
		const struct sb_trace_capture *cp = &info->capture;

		printf("captured     %llu of %llu accesses executed (density 1): a complete "
		       "capture, every request recorded\n",
		       (unsigned long long)total, (unsigned long long)cp->executed);
		printf("lost         %llu records in %llu bursts (buffer overrun)\n",
		       (unsigned long long)cp->lost_records, (unsigned long long)cp->lost_bursts);
	}
	for (uint32_t i = 0; i < info->nattrs; i++)
		printf("%-12s %s\n", info->attrs[i].key, info->attrs[i].value);
	printf("\n  %-16s %-10s %6s %6s %12s %12s %12s %8s\n", "subpartition", "type", "unit_B",
	       "blk_B", "reads", "writes", "fetches", "flushes");
	for (uint32_t s = 0; s < info->nsubparts; s++) {
		const struct sb_trace_subpart *sp = &info->subparts[s];

		printf("  %-16s %-10s %6u %6u %12llu %12llu %12llu %8llu\n", sp->name,
		       sp->type == SB_SUBPART_CACHE ? (sp->per_unit ? "cache/unit" : "cache")
		                                    : "scratchpad",
		       sp->addr_unit_bytes, sp->block_bytes,
		       (unsigned long long)counts[s][SB_ACC_READ],
		       (unsigned long long)counts[s][SB_ACC_WRITE],
		       (unsigned long long)counts[s][SB_ACC_FETCH],
		       (unsigned long long)counts[s][SB_ACC_FLUSH]);
	}
	for (uint32_t i = 0; i < info->nwarnings; i++)
		printf("\nwarning: %s\n", info->warnings[i]);
	free(counts);
	return SB_EXIT_OK;
}

static int trace_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"format", required_argument, NULL, SB_CLI_OPT_FORMAT},
	    {"clock-ghz", required_argument, NULL, SB_CLI_OPT_CLOCK},
	    {"word-bytes", required_argument, NULL, SB_CLI_OPT_WORD},
	    {"block-bytes", required_argument, NULL, SB_CLI_OPT_BLOCK},
	    {"to", required_argument, NULL, 't'},
	    {"out", required_argument, NULL, 'o'},
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct sb_cli_trace_opts o = {0};
	enum sb_trace_format to = SB_TRACE_SBT;
	struct sb_trace_reader *r = NULL;
	const char *out = NULL, *verb;
	bool have_to = false;
	int c, rc;
	int64_t n;

	/* options may come before or after the action (getopt permutes) */
	while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		if (c == 'f')
			c = SB_CLI_OPT_FORMAT;
		if ((rc = sb_cli_trace_option("trace", c, optarg, &o)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 't':
			if (sb_trace_format_parse(optarg, &to) < 0 ||
			    (to != SB_TRACE_CSV && to != SB_TRACE_SBT))
				return sb_cli_usage_error("trace", "--to: csv or sbt, not '%s'",
				                          optarg);
			have_to = true;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			trace_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("trace", "bad option");
		}
	}
	if (optind >= argc)
		return sb_cli_usage_error("trace", "expected 'info' or 'convert'");
	verb = argv[optind++];
	if (strcmp(verb, "info") && strcmp(verb, "convert"))
		return sb_cli_usage_error("trace", "unknown action '%s' (info or convert)", verb);
	if (!strcmp(verb, "convert") && !out)
		return sb_cli_usage_error("trace", "convert needs -o OUT");
	if (!strcmp(verb, "convert") && !have_to) {
		const char *dot = strrchr(out, '.');

		to = dot && !strcmp(dot, ".csv") ? SB_TRACE_CSV : SB_TRACE_SBT;
	}
	if (!strcmp(verb, "convert") &&
	    (rc = sb_output_check_inputs(out, (const char *const *)argv + optind,
	                                 (size_t)(argc - optind))) < 0)
		return sb_cli_error(rc);
	if ((rc = sb_cli_trace_open("trace", &o, argv + optind, argc - optind, &r)) != 0)
		return rc;
	if (!strcmp(verb, "info")) {
		rc = trace_info(r);
		sb_trace_reader_free(r);
		return rc;
	}
	n = sb_trace_convert(r, to, out);
	sb_trace_reader_free(r);
	if (n < 0)
		return sb_cli_error((int)n);
	if (strcmp(out, "-"))
		fprintf(stderr, "stackbench trace: wrote %lld records to '%s' (%s)\n", (long long)n,
		        out, sb_trace_format_name(to));
	return SB_EXIT_OK;
}

const struct sb_cli_command sb_cmd_trace = {
    .name = "trace",
    .summary = "show or convert memory-access traces (scalesim, gpgpusim, csv, sbt)",
    .run = trace_run,
    .help = trace_help,
};
