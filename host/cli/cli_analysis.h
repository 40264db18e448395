/* SPDX-License-Identifier: MIT */
/* Options the analysis commands (lifetimes, locality) share: the confidence rules. */
#ifndef SB_CLI_ANALYSIS_H
#define SB_CLI_ANALYSIS_H

#include "stackbench/sampling.h"

/* Long-option codes of the confidence rules (above those of cli.h). */
enum {
	SB_CLI_OPT_MIN_DENSITY = 0x180, /* --min-density F */
	SB_CLI_OPT_MIN_DENSITY_CACHE,   /* --min-density-cache F */
	SB_CLI_OPT_MIN_EVENTS,          /* --min-events N */
	SB_CLI_OPT_WARMUP,              /* --warmup F */
	SB_CLI_OPT_MAX_LOST,            /* --max-lost F */
	SB_CLI_OPT_MAX_CENSORED,        /* --max-censored F */
};

/* The getopt_long entries of the confidence options. */
#define SB_CLI_CONFIDENCE_OPTIONS                                                                  \
	{"min-density", required_argument, NULL, SB_CLI_OPT_MIN_DENSITY},                          \
	    {"min-density-cache", required_argument, NULL, SB_CLI_OPT_MIN_DENSITY_CACHE},          \
	    {"min-events", required_argument, NULL, SB_CLI_OPT_MIN_EVENTS},                        \
	    {"warmup", required_argument, NULL, SB_CLI_OPT_WARMUP},                                \
	    {"max-lost", required_argument, NULL, SB_CLI_OPT_MAX_LOST},                            \
	{                                                                                          \
		"max-censored", required_argument, NULL, SB_CLI_OPT_MAX_CENSORED                   \
	}

/* Their help text. */
#define SB_CLI_CONFIDENCE_HELP                                                                     \
	"      --min-density F    memory-level results of sampled traces need a sampling\n"        \
	"                         density of at least F (default 0.001)\n"                         \
	"      --min-density-cache F  cache-level results need F (default 0.008)\n"                \
	"      --min-events N     a statistic needs N events at least (default 100)\n"             \
	"      --warmup F         a cache of C blocks needs F x C accesses per window (default "   \
	"2)\n"                                                                                     \
	"      --max-lost F       nothing is confident when more than this share of the\n"         \
	"                         captured records was lost (default 0.01)\n"                      \
	"      --max-censored F   lifetimes are not confident when more than this share of\n"      \
	"                         values is cut by a gap between samples (default 0.5)\n"

/* Handle a confidence option: 0 done, SB_EXIT_USAGE for a bad value, -1 if c is not one. */
int sb_cli_confidence_option(const char *cmd, int c, const char *arg,
                             struct sb_confidence_rules *r);

/*
 * "~" before a value that does not meet the confidence rules (a result from too little data is
 * never printed as a fact), "" otherwise.
 */
static inline const char *sb_cli_mark(bool confident)
{
	return confident ? "" : "~";
}

#endif /* SB_CLI_ANALYSIS_H */
