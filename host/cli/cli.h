/* SPDX-License-Identifier: MIT */
/* The stackbench command-line tool: subcommand table and shared helpers. */
#ifndef SB_CLI_H
#define SB_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "stackbench/capture.h"
#include "stackbench/trace.h"

/* Exit codes (documented in `stackbench --help` and docs/cli.md). */
enum sb_exit {
	SB_EXIT_OK = 0,      /* success */
	SB_EXIT_FAILURE = 1, /* the operation failed (device error, failed measurement, I/O) */
	SB_EXIT_USAGE = 2,   /* bad command line */
	SB_EXIT_DEVICE = 3,  /* the device could not be opened or is not a stackbench board */
	SB_EXIT_INPUT = 4,   /* bad input file (campaign, profile, trace) */
};

struct sb_cli_command {
	const char *name;
	const char *summary;
	/* argv[0] is the command name; getopt state is reset before the call. */
	int (*run)(int argc, char **argv);
	void (*help)(FILE *out);
};

/* The commands, in the order `stackbench --help` lists them. */
extern const struct sb_cli_command sb_cmd_info;
extern const struct sb_cli_command sb_cmd_devices;
extern const struct sb_cli_command sb_cmd_instruments;
extern const struct sb_cli_command sb_cmd_point;
extern const struct sb_cli_command sb_cmd_lifetimes;
extern const struct sb_cli_command sb_cmd_locality;
extern const struct sb_cli_command sb_cmd_trace;
extern const struct sb_cli_command sb_cmd_replay;
extern const struct sb_cli_command sb_cmd_capture;
extern const struct sb_cli_command sb_cmd_run;
extern const struct sb_cli_command sb_cmd_merge;
extern const struct sb_cli_command sb_cmd_list;
extern const struct sb_cli_command sb_cmd_export;
extern const struct sb_cli_command sb_cmd_report;
extern const struct sb_cli_command sb_cmd_submit;
extern const struct sb_cli_command sb_cmd_queue;
extern const struct sb_cli_command sb_cmd_follow;
extern const struct sb_cli_command sb_cmd_cancel;
extern const struct sb_cli_command sb_cmd_pause;
extern const struct sb_cli_command sb_cmd_resume;
extern const struct sb_cli_command sb_cmd_dashboard;

/* The progress display of run and follow (cmd_run.c), on stderr: a bar on a terminal, else
 * one line per point ("stackbench CMD: point 3/21 ..."). */
struct sb_cli_progress {
	const char *cmd;
	bool tty;
	bool drawn;            /* a bar is on the screen (end it with a newline) */
	bool quiet;            /* -q: no progress */
	unsigned last_quarter; /* lines inside a point (not a terminal): every quarter of it */
	const void *last_point;
};
struct sb_run_progress;
void sb_cli_progress_show(struct sb_cli_progress *pg, const struct sb_run_progress *p);

/* ---- talking to stackbenchd (cli_daemon.c) ---- */
struct sb_client;
struct cJSON;
/* Connect to the daemon (--socket, $STACKBENCH_SOCKET, the default); prints why not and returns
 * SB_EXIT_DEVICE when no daemon listens (SB_EXIT_OK when connected). */
int sb_cli_daemon_connect(const char *cmd, const char *socket_opt, struct sb_client **c);
/* Send req (adds "v"), read the reply; an error reply is printed and gives its exit code. */
int sb_cli_daemon_call(const char *cmd, struct sb_client *c, struct cJSON *req,
                       struct cJSON **reply);
/* A reply line: ok (reply set) or printed error (exit code). */
int sb_cli_daemon_reply(const char *cmd, const char *line, struct cJSON **reply);
/* Connect, call, close; req is freed. */
int sb_cli_daemon_simple(const char *cmd, const char *socket_opt, struct cJSON *req,
                         struct cJSON **reply);
/* The arguments of the job verbs, "[ID] [--socket PATH] [--help]": -1 to go on, else the exit
 * code to return (help printed, or a usage error). *id is 0 when not given. */
int sb_cli_job_args(const char *cmd, void (*help)(FILE *), int argc, char **argv, bool id_optional,
                    const char **sock, long long *id);
/* A string field ("" when missing) and a number field (dflt when missing) of an object. */
const char *sb_cli_json_str(const struct cJSON *o, const char *name);
double sb_cli_json_num(const struct cJSON *o, const char *name, double dflt);

/* The default results database when --db is not given: $STACKBENCH_DB or "stackbench.db". */
const char *sb_cli_default_db(void);

/* Print "stackbench: DETAIL" (or the code's text) to stderr; return the exit code for err. */
int sb_cli_error(int err);

/* Same, for errors opening a device (exit code SB_EXIT_DEVICE unless the URI was bad). */
int sb_cli_device_error(int err);

/*
 * Errors of a campaign (running it or checking it), by where they came from (sum): a board or
 * an instrument that cannot be opened 3 (4 when its URI or connection string is malformed:
 * the file's fault), a point the boards cannot run 4, a bad --jobs for the file's devices 2,
 * anything during the run 1. Prints the message.
 */
struct sb_run_summary;
int sb_cli_campaign_error(int err, const struct sb_run_summary *sum);

/* A time for people: "2 s", "24 ms", "1.5 us", "3 h 20 min" (ns in, text out). */
const char *sb_cli_fmt_ns(char *buf, size_t size, double ns);

/*
 * Errors opening a results database: one that does not exist, is not a stackbench database,
 * or has a newer schema is a bad input file (4); anything else 1. Prints the message.
 */
int sb_cli_store_error(int err);

/*
 * Refuse outputs that would replace an input or each other: outs (NULLs skipped) against
 * inputs and extra (more inputs, e.g. device files), each output also against the ones before
 * it. Returns 0 or prints the error and returns SB_EXIT_USAGE.
 */
int sb_cli_check_outputs(const char *const *outs, size_t nouts, char *const *inputs, int ninputs,
                         const char *const *extra, size_t nextra);

/* Write a JSON report: to standard output for "-", else atomically to path with a final
 * newline. Returns 0 or prints the error and returns its exit code. */
int sb_cli_write_json(const char *path, const char *text);

/* s quoted for a POSIX shell (single quotes), to print a command a user can paste. */
const char *sb_cli_shell_quote(char *buf, size_t size, const char *s);

/* "0.1.0 (git f1beaf5, RelWithDebInfo, sanitizers none, gcc 12.2.0)": --version and info. */
const char *sb_cli_build_facts(void);

/* "stackbench CMD: MESSAGE" + "try 'stackbench CMD --help'" on stderr; returns SB_EXIT_USAGE. */
int sb_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The connection-string schemes of the camera, meter and cooling roles (--camera, --meter,
 * --rig), from the drivers' table, as a help section. */
void sb_cli_schemes_help(FILE *out);

/* instruments --probe (cli_probe.c): a few readings of one instrument. */
struct sb_cli_probe_opts {
	const char *conn;
	int role; /* enum sb_instrument_kind; -1: the first role whose drivers know the scheme */
	unsigned count, interval_ms;
	bool json;
	const char *snapshot; /* camera: the last frame as a PNG (NULL: none) */
	unsigned scale;       /* ... each frame pixel as scale x scale */
	const char *device;   /* the board of sim: instruments (NULL: the default) */
};
int sb_cli_probe(const struct sb_cli_probe_opts *o);
/* "camera", "meter", "cooling" → the role; -1 for another name. */
int sb_cli_probe_role(const char *name, int *role);

/* The default device when --device is not given: $STACKBENCH_DEVICE or "sim:". */
const char *sb_cli_default_device(void);

/* stackbench point on an HBM2 card (cmd_point_hbm.c): its options, its help; and whether a
 * board is one (its register map has an hbm_card block). */
int sb_cli_point_hbm(int argc, char **argv);
void sb_cli_point_hbm_help(FILE *out);
bool sb_cli_device_is_hbm(const char *uri);

/* ---- work through Slurm (cli_slurm.c; docs/cluster.md) ---- */
struct option;
struct sb_slurm_job;
struct sb_campaign;

/* A command that splits into tasks and a merge, submitted as a job array and a merge job. */
struct sb_cli_slurm {
	const char *cmd;                /* the command, for messages ("run") */
	const char *what;               /* what a task is, for messages ("shard") */
	const struct sb_slurm_job *job; /* the tasks' and the merge's command lines */
	const char *status_cmd;         /* the command that shows the status, printed */
	/* Task i: 1 done (nothing to run), 0 not (text: how far), < 0 an error. */
	int (*task_done)(void *ctx, unsigned i, char *text, size_t size);
	/* 1 when the merged result is there (text: where), 0 not, < 0 an error. */
	int (*merged)(void *ctx, char *text, size_t size);
	void *ctx;
};

/*
 * Submit the tasks that are neither done nor in the queue, and the merge after them (a merge
 * left waiting on failed or cancelled tasks is cancelled first); with everything done but the
 * merge, only the merge; with the merge done, nothing. Prints the job ids. dry: print what
 * would be submitted (the scripts and the sbatch command lines) instead. Returns an exit code.
 */
int sb_cli_slurm_submit(const struct sb_cli_slurm *s, bool dry);
/* Print each task's progress and queue state, and the merge's. Returns an exit code. */
int sb_cli_slurm_status(const struct sb_cli_slurm *s);

/*
 * Take sbatch's options out of a command's arguments: with `slurm`, every option that is not
 * one of `own` (the command's getopt table; a value must then be attached: --partition=bench),
 * and everything after "--" (an error without `slurm`). argv is compacted for getopt; *opts
 * (malloc'ed; free it) points into it. Returns -1 to go on, else an exit code (printed).
 */
int sb_cli_slurm_split(int *argc, char **argv, const struct option *own, bool slurm, char ***opts,
                       unsigned *nopts);

/* Whether --slurm is among the arguments (before a "--"). */
bool sb_cli_has_slurm(int argc, char **argv);

/* mkdir -p PATH. 0 or an error. */
int sb_cli_make_dirs(const char *path);

/*
 * Without --shards: the task count of the one work folder PREFIX-of-N submitted before (*n =
 * N), else *n = 1. SB_ERR_INVAL when there are several (the caller says which option picks).
 */
int sb_cli_slurm_find_tasks(const char *prefix, unsigned max, unsigned *n);

/* A NULL-terminated argv copied from items[0..n) (free with sb_slurm_argv_free); NULL: no
 * memory. sb_cli_argvs_free frees n of them and the array. */
char **sb_cli_argv_make(const char *const *items, unsigned n);
void sb_cli_argvs_free(char ***argvs, unsigned n);

/* This program's absolute path (what the tasks run). 0 or an error. */
int sb_cli_self_path(char *buf, size_t size);

/* stackbench run --slurm (cmd_run_slurm.c): submit, --dry-run or --status. */
struct sb_cli_run_slurm {
	const char *file, *db;
	unsigned shards;   /* 0: the one sharding of this campaign submitted before, else 1 */
	const char *board; /* NULL, "node" or "gres:NAME" (each task's board) */
	bool dry, status;
	char **opts; /* sbatch's */
	unsigned nopts;
};
int sb_cli_run_slurm(const struct sb_campaign *c, const struct sb_cli_run_slurm *o);

/* Options of the commands that read traces (cmd_trace.c): long-option codes and values. */
enum {
	SB_CLI_OPT_FORMAT = 0x100, /* --format FMT */
	SB_CLI_OPT_CLOCK,          /* --clock-ghz F */
	SB_CLI_OPT_WORD,           /* --word-bytes N */
	SB_CLI_OPT_BLOCK,          /* --block-bytes N */
};

struct sb_cli_trace_opts {
	enum sb_trace_format fmt;
	bool have_fmt;
	struct sb_trace_options topt;
};

/* Handle trace option c: 0 done, SB_EXIT_USAGE for a bad value, -1 if c is not one of them. */
int sb_cli_trace_option(const char *cmd, int c, const char *arg, struct sb_cli_trace_opts *o);

/* Options of the commands that capture a trace (point, replay): --trace OUT.sbt and the
 * --trace-* settings (cli_capture.c). */
enum {
	SB_CLI_OPT_CAPTURE = 0x300, /* --trace OUT.sbt */
	SB_CLI_OPT_CAPTURE_BURST,   /* --trace-burst N */
	SB_CLI_OPT_CAPTURE_GAP,     /* --trace-gap N */
	SB_CLI_OPT_CAPTURE_PORTS,   /* --trace-ports LIST */
	SB_CLI_OPT_CAPTURE_BANKS,   /* --trace-banks */
	SB_CLI_OPT_CAPTURE_PATH,    /* --trace-path onchip|dma */
};

/* The getopt entries of the six capture options (point, capture; replay has no --trace-ports). */
#define SB_CLI_CAPTURE_OPTIONS                                                                     \
	{"trace", required_argument, NULL, SB_CLI_OPT_CAPTURE},                                    \
	    {"trace-burst", required_argument, NULL, SB_CLI_OPT_CAPTURE_BURST},                    \
	    {"trace-gap", required_argument, NULL, SB_CLI_OPT_CAPTURE_GAP},                        \
	    {"trace-ports", required_argument, NULL, SB_CLI_OPT_CAPTURE_PORTS},                    \
	    {"trace-banks", no_argument, NULL, SB_CLI_OPT_CAPTURE_BANKS},                          \
	{                                                                                          \
		"trace-path", required_argument, NULL, SB_CLI_OPT_CAPTURE_PATH                     \
	}

struct sb_cli_capture_opts {
	const char *out; /* --trace: NULL when not given */
	bool settings;   /* a --trace-* option was given */
	struct sb_capture_config cfg;
};

/*
 * Handle capture option c: 0 done, SB_EXIT_USAGE for a bad value, -1 if c is not one of them.
 * sb_cli_capture_check() then refuses settings without --trace (SB_EXIT_USAGE, or 0).
 */
int sb_cli_capture_option(const char *cmd, int c, const char *arg, struct sb_cli_capture_opts *o);
int sb_cli_capture_check(const char *cmd, const struct sb_cli_capture_opts *o);

/* What a capture wrote: a "trace" line (what the board executed: "requests", "AXI bursts"),
 * and a line of losses if any; in JSON an object "trace" (null without a path). */
void sb_cli_capture_print(const char *path, const char *what, const struct sb_capture_stats *t);
void sb_cli_capture_json(struct cJSON *o, const char *path, const struct sb_capture_stats *t);

/* The HBM2 engines' traffic options, shared by 'point' on an HBM2 card and 'capture'
 * (cmd_point_hbm.c): their getopt entries (SB_CLI_HBM_TRAFFIC_OPTIONS, with -D) and their
 * parsing into a spec (the port set is parsed once the card's port count is known). */
enum {
	SB_CLI_OPT_HBM_OP = 0x400, /* --op read|write|mix */
	SB_CLI_OPT_HBM_MIX,        /* --mix W */
	SB_CLI_OPT_HBM_MODE,       /* --mode linear|random */
	SB_CLI_OPT_HBM_BURST,      /* --burst B */
	SB_CLI_OPT_HBM_STRIDE,     /* --stride B */
	SB_CLI_OPT_HBM_WS,         /* --ws BYTES */
	SB_CLI_OPT_HBM_OUT,        /* --outstanding N */
	SB_CLI_OPT_HBM_PORT_SET,   /* --port-set LIST */
	SB_CLI_OPT_HBM_TARGET,     /* --target local|shiftN|stack */
	SB_CLI_OPT_HBM_WARMUP,     /* --warmup-us T */
	SB_CLI_OPT_HBM_SEED,       /* --seed S */
};

#define SB_CLI_HBM_TRAFFIC_OPTIONS                                                                 \
	{"op", required_argument, NULL, SB_CLI_OPT_HBM_OP},                                        \
	    {"mix", required_argument, NULL, SB_CLI_OPT_HBM_MIX},                                  \
	    {"mode", required_argument, NULL, SB_CLI_OPT_HBM_MODE},                                \
	    {"burst", required_argument, NULL, SB_CLI_OPT_HBM_BURST},                              \
	    {"stride", required_argument, NULL, SB_CLI_OPT_HBM_STRIDE},                            \
	    {"ws", required_argument, NULL, SB_CLI_OPT_HBM_WS},                                    \
	    {"outstanding", required_argument, NULL, SB_CLI_OPT_HBM_OUT},                          \
	    {"port-set", required_argument, NULL, SB_CLI_OPT_HBM_PORT_SET},                        \
	    {"target", required_argument, NULL, SB_CLI_OPT_HBM_TARGET},                            \
	    {"duration-us", required_argument, NULL, 'D'},                                         \
	    {"warmup-us", required_argument, NULL, SB_CLI_OPT_HBM_WARMUP},                         \
	{                                                                                          \
		"seed", required_argument, NULL, SB_CLI_OPT_HBM_SEED                               \
	}

struct sb_hbm_spec;
/* Handle traffic option c: 0 done, SB_EXIT_USAGE for a bad value, -1 if c is not one of them;
 * --port-set's text is left in *port_set. */
int sb_cli_hbm_traffic_option(const char *cmd, int c, const char *arg, struct sb_hbm_spec *s,
                              const char **port_set);

struct sb_device;
struct sb_hbm_result;
/* Run an HBM2 point, with its AXI bursts captured into co->out when given (the ports that
 * issue recorded unless --trace-ports says otherwise; no file is left when the point fails):
 * 0, or an exit code (the error printed). st: the capture's statistics (zero without one). */
int sb_cli_hbm_point_traced(const char *cmd, struct sb_device *dev, const struct sb_hbm_spec *spec,
                            struct sb_cli_capture_opts *co, struct sb_hbm_result *res,
                            struct sb_capture_stats *st);

/* Open the inputs (format guessed from the first when not given); 0 or an exit code. */
int sb_cli_trace_open(const char *cmd, struct sb_cli_trace_opts *o, char *const *inputs, int n,
                      struct sb_trace_reader **r);

#endif /* SB_CLI_H */
