/* SPDX-License-Identifier: MIT */
/*
 * stackbench: the command-line tool. Global options, then a subcommand.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "stackbench/log.h"
#include "stackbench/version.h"

static const struct sb_cli_command *const commands[] = {
    &sb_cmd_info,      &sb_cmd_devices,  &sb_cmd_instruments, &sb_cmd_point,   &sb_cmd_run,
    &sb_cmd_merge,     &sb_cmd_list,     &sb_cmd_export,      &sb_cmd_report,  &sb_cmd_lifetimes,
    &sb_cmd_trace,     &sb_cmd_locality, &sb_cmd_replay,      &sb_cmd_capture, &sb_cmd_submit,
    &sb_cmd_queue,     &sb_cmd_follow,   &sb_cmd_cancel,      &sb_cmd_pause,   &sb_cmd_resume,
    &sb_cmd_dashboard,
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbench [-v|-q]... [--log-level LEVEL] COMMAND [ARGS...]\n"
	    "       stackbench --help | --version\n"
	    "       stackbench help COMMAND\n"
	    "\n"
	    "Characterize 3D-stacked memory on the bench (HMC on the AC-510) or on the simulated\n"
	    "bench when no board is attached (device URI sim:).\n"
	    "\n"
	    "Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-12s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(
	    out,
	    "\n"
	    "Global options:\n"
	    "  -v, --verbose          more log output (repeat for debug, trace)\n"
	    "  -q, --quiet            less log output (errors only; twice: nothing)\n"
	    "      --log-level LEVEL  none, error, warn, info, debug or trace\n"
	    "  -h, --help             this help\n"
	    "  -V, --version          print the version\n"
	    "\n"
	    "Device URIs: sim:[PROFILE][?KEY=VALUE&...]  pci:[DDDD:]BB:DD.F  dev:/dev/stackbenchN\n"
	    "The default device is $STACKBENCH_DEVICE, or sim: when it is unset.\n"
	    "\n"
	    "Exit codes: 0 success, 1 failure, 2 bad command line, 3 device cannot be opened\n"
	    "or is busy (or no stackbenchd to talk to), 4 bad input file.\n");
}

static const struct sb_cli_command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

static int parse_level(const char *s, int *level)
{
	for (int l = SB_LOG_NONE; l <= SB_LOG_TRACE; l++) {
		if (!strcmp(s, sb_log_level_name((enum sb_log_level)l))) {
			*level = l;
			return 0;
		}
	}
	return -1;
}

/*
 * Take -v, -q, --verbose, --quiet and --log-level LEVEL out of a command's arguments (up to a
 * "--"), applying them to *level. No command uses these names for itself. Returns 0 or an exit
 * code.
 */
static int global_options_after(int *argc, char **argv, int *level)
{
	int out = 1;

	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i], *val = NULL;

		if (!strcmp(a, "--")) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			*level += *level < SB_LOG_TRACE;
			continue;
		}
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			*level -= *level > SB_LOG_NONE;
			continue;
		}
		if (!strncmp(a, "--log-level=", 12))
			val = a + 12;
		else if (!strcmp(a, "--log-level")) {
			if (i + 1 >= *argc) {
				fprintf(stderr, "stackbench: --log-level needs a LEVEL\n");
				return SB_EXIT_USAGE;
			}
			val = argv[++i];
		}
		if (val) {
			if (parse_level(val, level) < 0) {
				fprintf(stderr,
				        "stackbench: unknown log level '%s' (none, error, warn, "
				        "info, debug, trace)\n",
				        val);
				return SB_EXIT_USAGE;
			}
			continue;
		}
		argv[out++] = argv[i];
	}
	*argc = out;
	argv[out] = NULL;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"verbose", no_argument, NULL, 'v'},         {"quiet", no_argument, NULL, 'q'},
	    {"log-level", required_argument, NULL, 'L'}, {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},         {NULL, 0, NULL, 0},
	};
	const struct sb_cli_command *cmd;
	int level = SB_LOG_WARN;
	int c;

	while ((c = getopt_long(argc, argv, "+vqhV", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if (level < SB_LOG_TRACE)
				level++;
			break;
		case 'q':
			if (level > SB_LOG_NONE)
				level--;
			break;
		case 'L':
			if (parse_level(optarg, &level) < 0) {
				fprintf(stderr,
				        "stackbench: unknown log level '%s' (none, error, warn, "
				        "info, debug, trace)\n",
				        optarg);
				return SB_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return SB_EXIT_OK;
		case 'V':
			printf("stackbench %s\n", sb_cli_build_facts());
			return SB_EXIT_OK;
		default:
			usage(stderr);
			return SB_EXIT_USAGE;
		}
	}
	sb_log_set_level((enum sb_log_level)level);
	if (optind >= argc) {
		usage(stderr);
		return SB_EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "help")) {
		if (optind + 1 >= argc) {
			usage(stdout);
			return SB_EXIT_OK;
		}
		cmd = find(argv[optind + 1]);
		if (!cmd) {
			fprintf(stderr, "stackbench: unknown command '%s'\n", argv[optind + 1]);
			return SB_EXIT_USAGE;
		}
		cmd->help(stdout);
		return SB_EXIT_OK;
	}
	cmd = find(argv[optind]);
	if (!cmd) {
		fprintf(stderr, "stackbench: unknown command '%s'; see 'stackbench --help'\n",
		        argv[optind]);
		return SB_EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	/* the global options are taken after the command name too ("stackbench run -q") */
	if ((c = global_options_after(&argc, argv, &level)) != 0)
		return c;
	sb_log_set_level((enum sb_log_level)level);
	optind = 0; /* restart getopt for the subcommand */
	return cmd->run(argc, argv);
}
