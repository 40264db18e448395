/* SPDX-License-Identifier: MIT */
/* Options the analysis commands (lifetimes, locality) share: the confidence rules, threads,
 * shards and their partial results (cli_analysis.c). */
#ifndef SB_CLI_ANALYSIS_H
#define SB_CLI_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "stackbench/partial.h"
#include "stackbench/sampling.h"
#include "stackbench/slurm.h"
#include "stackbench/trace.h"

/* Shards of --slurm: a job array's tasks. */
#define SB_CLI_SLURM_MAX_SHARDS SB_SLURM_MAX_TASKS

/* Long-option codes of the confidence rules (above those of cli.h). */
enum {
	SB_CLI_OPT_MIN_DENSITY = 0x180, /* --min-density F */
	SB_CLI_OPT_MIN_DENSITY_CACHE,   /* --min-density-cache F */
	SB_CLI_OPT_MIN_EVENTS,          /* --min-events N */
	SB_CLI_OPT_WARMUP,              /* --warmup F */
	SB_CLI_OPT_MAX_LOST,            /* --max-lost F */
	SB_CLI_OPT_MAX_CENSORED,        /* --max-censored F */
	SB_CLI_OPT_THREADS,             /* --threads N */
	SB_CLI_OPT_SHARD,               /* --shard I/N */
	SB_CLI_OPT_PARTIAL,             /* --partial OUT */
	SB_CLI_OPT_MERGE,               /* --merge (the INPUTs are partial results) */
	SB_CLI_OPT_SLURM,               /* --slurm */
	SB_CLI_OPT_SHARDS,              /* --shards N (with --slurm) */
	SB_CLI_OPT_DRY_RUN,             /* --dry-run (with --slurm) */
	SB_CLI_OPT_STATUS,              /* --status (with --slurm) */
};

/* The getopt_long entries of threads, shards and partials. */
#define SB_CLI_PARALLEL_OPTIONS                                                                    \
	{"threads", required_argument, NULL, SB_CLI_OPT_THREADS},                                  \
	    {"shard", required_argument, NULL, SB_CLI_OPT_SHARD},                                  \
	    {"partial", required_argument, NULL, SB_CLI_OPT_PARTIAL},                              \
	    {"merge", no_argument, NULL, SB_CLI_OPT_MERGE},                                        \
	    {"slurm", no_argument, NULL, SB_CLI_OPT_SLURM},                                        \
	    {"shards", required_argument, NULL, SB_CLI_OPT_SHARDS},                                \
	    {"dry-run", no_argument, NULL, SB_CLI_OPT_DRY_RUN},                                    \
	{                                                                                          \
		"status", no_argument, NULL, SB_CLI_OPT_STATUS                                     \
	}

/* Their help text. */
#define SB_CLI_PARALLEL_HELP                                                                       \
	"      --threads N        threads (default: every processor this process may use)\n"       \
	"      --shard I/N        analyse shard I (0..N-1) of N only and write it with\n"          \
	"                         --partial OUT; --merge joins the N partials\n"                   \
	"      --partial OUT      write the shard's partial result to OUT (docs/partials.md)\n"    \
	"      --merge            the INPUTs are the partial results of every shard: merge\n"      \
	"                         them into the report one process would write\n"                  \
	"      --slurm            run the N shards as a Slurm job array and merge them in a\n"     \
	"                         job after it into --json OUT (docs/cluster.md); options\n"       \
	"                         not listed here are sbatch's (--partition=P, or after --)\n"     \
	"      --shards N         with --slurm: N shards (default: as submitted before, else\n"    \
	"                         1)\n"                                                            \
	"      --dry-run          with --slurm: print the scripts and sbatch commands only\n"      \
	"      --status           with --slurm: each shard's partial and queue state\n"

struct sb_cli_parallel {
	unsigned threads;        /* 0: the default */
	bool have_shard;         /* --shard given */
	uint32_t shard, nshards; /* --shard I/N */
	const char *partial;     /* --partial OUT */
	bool merge;              /* --merge */
	bool slurm, dry, status; /* --slurm, --dry-run, --status */
	unsigned shards;         /* --shards N (0: not given) */
};

/* Handle a parallel option: 0 done, SB_EXIT_USAGE for a bad value, -1 if c is not one. */
int sb_cli_parallel_option(const char *cmd, int c, const char *arg, struct sb_cli_parallel *p);

/*
 * Check the combination (--shard with --partial, --merge without either, no report options
 * with --partial: report_opts names the first one given, or NULL). 0 or SB_EXIT_USAGE.
 */
int sb_cli_parallel_check(const char *cmd, const struct sb_cli_parallel *p, const char *report_opt);

/*
 * The options --slurm passes on (cli_analysis_slurm.c): to every shard's command (trace and
 * analysis options, --threads) and to the merge's (report options); each as "--name" [value].
 */
struct sb_cli_argv {
	char **v;
	unsigned n, cap;
	bool nomem;
};
struct sb_cli_slurm_args {
	struct sb_cli_argv shard, merge;
};

/* Keep option c of opts (its value arg) for the shards (to_shard) or the merge. */
void sb_cli_slurm_keep(struct sb_cli_slurm_args *k, const struct option *opts, int c,
                       const char *arg, bool to_shard);
/* Keep a parallel or confidence option: --threads for the shards, the confidence rules for
 * the merge, the others (shards, partials, Slurm's) for neither. */
void sb_cli_slurm_keep_common(struct sb_cli_slurm_args *k, const struct option *opts, int c,
                              const char *arg);
void sb_cli_slurm_args_release(struct sb_cli_slurm_args *k);

/* lifetimes|locality INPUT... --slurm: submit the shards and the merge, --dry-run, --status. */
struct sb_cli_analysis_slurm {
	const char *cmd;                   /* "lifetimes", "locality" */
	enum sb_partial_kind kind;         /* of the partials */
	const struct sb_cli_parallel *par; /* --shards, --dry-run, --status */
	const struct sb_cli_slurm_args *args;
	const char *json;    /* where the merge writes the report */
	char *const *inputs; /* as given (the report names them) */
	int ninputs;
	const struct sb_trace_source *src; /* of the inputs */
	char **opts;                       /* sbatch's */
	unsigned nopts;
};
int sb_cli_analysis_slurm(const struct sb_cli_analysis_slurm *a);

/*
 * Run an analysis command: sbatch's options taken out of argv when --slurm is among them
 * (sb_cli_slurm_split, opts the command's getopt table), then run(argc, argv, SBATCH
 * OPTIONS, n, the options kept for --slurm's tasks). Returns its exit code.
 */
typedef int (*sb_cli_analysis_main)(int argc, char **argv, char **sbatch, unsigned nsbatch,
                                    struct sb_cli_slurm_args *keep);
int sb_cli_analysis_run(int argc, char **argv, const struct option *opts, sb_cli_analysis_main run);

/* Threads to run: --threads, else the processors this process may run on (its affinity). */
unsigned sb_cli_threads(const struct sb_cli_parallel *p);

/* The trace source of the INPUTs (the format guessed from the first name when not given). */
int sb_cli_trace_source(const char *cmd, struct sb_cli_trace_opts *o, char *const *inputs, int n,
                        struct sb_trace_source *src);

/*
 * Print the error of an analysis (opening, reading, analysing) and return its exit code: a bad
 * input file (a trace that cannot be parsed, is missing, of another version, out of range, a
 * partial that does not fit) 4, a bad option value 2, anything else 1.
 */
int sb_cli_analysis_error(int err);

/*
 * Read the partials at paths[0..n) (of one analysis kind), check that they are the shards of
 * one analysis, each once, and sort them by shard. 0, or the error printed and its exit code.
 * *out is freed with sb_cli_free_partials(*out, n) in every case.
 */
struct sb_partial;
int sb_cli_read_partials(const char *cmd, char *const *paths, int n, int kind,
                         struct sb_partial **out);
void sb_cli_free_partials(struct sb_partial *p, int n);

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
