/* SPDX-License-Identifier: MIT */
/*
 * Campaigns: a YAML file that names a bench, instruments, durations and sweep axes; expanded
 * into an ordered list of measurement points; run point by point through the device library
 * (sb_point_run) while counters and instruments are sampled on the bench clock; every finished
 * point stored in one transaction of the results store (stackbench/store.h).
 *
 * The file format, every key, and the resume rules are documented in docs/campaigns.md.
 */
#ifndef STACKBENCH_CAMPAIGN_H
#define STACKBENCH_CAMPAIGN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackbench/capture.h"
#include "stackbench/gups.h"
#include "stackbench/hbm.h"
#include "stackbench/point.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sb_store;

#define SB_CAMPAIGN_FORMAT 1 /* version of the file format (key 'format') */
#define SB_CAMPAIGN_NAME_MAX 64
#define SB_CAMPAIGN_TEXT_MAX 256
#define SB_CAMPAIGN_MAX_DEVICES 16
#define SB_CAMPAIGN_MAX_FILTERS 64
#define SB_CAMPAIGN_MAX_POINTS 1000000
#define SB_CAMPAIGN_KEY_MAX 256
#define SB_AXIS_NAME_MAX 24

enum sb_campaign_kind {
	SB_CAMPAIGN_BANDWIDTH = 0, /* points run durations.bandwidth_s */
	SB_CAMPAIGN_THERMAL = 1,   /* points run durations.thermal_s */
};

/*
 * The campaign's instruments, by connection string (stackbench/instrument.h; "" = none): a
 * temperature source (camera), a power source (meter) and a cooling actuator (fans). Checked
 * when the file is read (scheme known, driver built); opened on each worker's device.
 */
enum sb_campaign_inst { SB_INST_TEMPERATURE = 0, SB_INST_POWER, SB_INST_COOLING, SB_INST_COUNT };

struct sb_campaign_instruments {
	char conn[SB_INST_COUNT][SB_CAMPAIGN_TEXT_MAX];
	int line[SB_INST_COUNT]; /* line of each connection string in the file (0: none) */
};

/* What the engine does after a thermal failure (key 'recovery'). */
#define SB_RECOVERY_STRONGEST "strongest" /* cool down in the strongest configuration */
#define SB_RECOVERY_KEEP "keep"           /* cool down in the point's configuration */

struct sb_campaign_recovery {
	unsigned retries;     /* a failed point runs again up to this many times */
	double cool_margin_c; /* cool until the hot spot is this far below its failure reading */
	double cool_max_s;    /* longest cool-down (bench time); without a camera: its length */
	char cooling[SB_AXIS_NAME_MAX]; /* strongest, keep, or a configuration name */
	int line; /* line of recovery.cooling, else of 'recovery' (0: not in the file) */
	/* A cooling rig in its fail-safe (recovery.rig_fault): abort the campaign, or recover
	 * (wait until the fault's cause is gone, up to cool_max_s, clear it, run again). */
	bool rig_abort;
	/* An HBM2 card's thermal campaign (recovery.limit_c, resume_c; NAN: not given): a point's
	 * ports stop when its temperature source reads limit_c or more (a thermal stop, stored
	 * as a failed run), and the cool-down waits until it reads resume_c or less (default
	 * limit_c - cool_margin_c). limit_line: the line of limit_c. */
	double limit_c, resume_c;
	int limit_line;
};

/*
 * Trace capture of every GUPS point (key 'trace'; docs/campaigns.md): one sbt per run of a
 * point beside the results database, recorded in the store (table point_traces).
 */
struct sb_campaign_trace {
	bool enabled;
	struct sb_capture_config cfg; /* burst, gap, ports, banks, path */
	int line;                     /* line of 'trace' in the file (0: not in the file) */
};

/* The sweep axes, in expansion order (outermost first). */
enum sb_axis {
	SB_AXIS_COOLING = 0,
	SB_AXIS_REP,
	SB_AXIS_TYPE,
	SB_AXIS_SIZE,
	SB_AXIS_PATTERN,
	SB_AXIS_MODE,
	SB_AXIS_ADDR_MODE,
	SB_AXIS_PORTS,
	SB_AXIS_STREAM,
	SB_AXIS_MASK,
	/* The HBM2 card's axes (an HBM2 campaign: bench.engine hbm2, docs/campaigns.md). An HBM2
	 * campaign uses cooling, repetitions, mode and ports of the axes above and these; a GUPS
	 * campaign the axes above. */
	SB_AXIS_TEMP,
	SB_AXIS_REFRESH,
	SB_AXIS_PAGE,
	SB_AXIS_POLICY,
	SB_AXIS_TARGET,
	SB_AXIS_OP,
	SB_AXIS_MIX,
	SB_AXIS_BURST,
	SB_AXIS_STRIDE,
	SB_AXIS_WS,
	SB_AXIS_OUTSTANDING,
	SB_AXIS_COUNT
};

#define SB_AXIS_GUPS_COUNT (SB_AXIS_MASK + 1) /* the axes of a GUPS campaign: 0..MASK */

/* The traffic engine a campaign's board carries (bench.engine). */
enum sb_campaign_engine {
	SB_ENGINE_GUPS = 0, /* the AC-510's GUPS ports (HMC) */
	SB_ENGINE_HBM2 = 1, /* an HBM2 card's AXI traffic engines (docs/hbm2.md) */
};

/* Name of an axis as written in the file ("type", "mask", ...). */
const char *sb_axis_name(enum sb_axis a);

#define SB_AXIS_MAX_VALUES 64

/*
 * The values of every axis, as canonical text ("ro", "128", "all", "none", "7"): what the
 * point keys, filters and the store use. Parsed and checked when the file is loaded.
 */
struct sb_campaign_axes {
	unsigned n[SB_AXIS_COUNT];
	char value[SB_AXIS_COUNT][SB_AXIS_MAX_VALUES][SB_AXIS_NAME_MAX];
	int line[SB_AXIS_COUNT]; /* line of the axis in the file (0: default) */
	unsigned mask_width;     /* bits forced to 0 from each mask position */
};

/* A filter entry: for each axis it names, the point's value must be one of the values. */
struct sb_campaign_filter {
	unsigned n[SB_AXIS_COUNT]; /* 0: axis not named */
	char value[SB_AXIS_COUNT][SB_AXIS_MAX_VALUES][SB_AXIS_NAME_MAX];
	int line;
};

/* One point of the expanded sweep. */
struct sb_campaign_point {
	unsigned index; /* position in the expansion (0-based): stored, resumed, exported */
	char key[SB_CAMPAIGN_KEY_MAX]; /* canonical "type=ro size=128 ..." */
	char cooling[SB_AXIS_NAME_MAX];
	unsigned rep;
	enum sb_req_type type;
	unsigned size;                  /* bytes */
	char pattern[SB_AXIS_NAME_MAX]; /* sb_pattern_masks() name */
	enum sb_addr_gen mode;
	unsigned addr_mode; /* 0: leave the cube's mode; 32, 64, 128 */
	unsigned ports;     /* 0: every port of the board (unless idle) */
	bool idle;          /* ports 0 in the file: no traffic, the bench is measured */
	unsigned stream;    /* 0: GUPS; 1..28: stream groups of that size */
	int mask_lo;        /* -1: no mask; else bits mask_lo..+width-1 forced to 0 */
	unsigned mask_width;
	uint64_t seed; /* derived from the campaign seed and the key */
	/* An HBM2 campaign's point: the engine's settings but the durations and the seed
	 * (sb_campaign_hbm_spec fills those), and the port set's text ("all", "8", "0-3,8"). */
	struct sb_hbm_spec hbm;
	char port_set[SB_AXIS_NAME_MAX];
};

/*
 * notify: a command run when the campaign ends, fails, is cancelled or has a thermal failure
 * (docs/campaigns.md, "notify"): an argument vector, never a shell, run by sb_notify_run.
 * Not part of the campaign's content (its hash): where a campaign's news go is not what it
 * measures.
 */
#define SB_NOTIFY_MAX_ARGS 32
#define SB_NOTIFY_TEXT_MAX 4096 /* the arguments' text in all, with their NULs */
enum sb_notify_event {
	SB_NOTIFY_DONE = 1u << 0,      /* every point stored */
	SB_NOTIFY_FAILED = 1u << 1,    /* the campaign stopped on an error */
	SB_NOTIFY_CANCELLED = 1u << 2, /* stopped by its user (cancel, Ctrl-C) */
	SB_NOTIFY_THERMAL = 1u << 3,   /* a point ended in a thermal failure */
	SB_NOTIFY_ALL = 15u,
};
struct sb_campaign_notify {
	unsigned argc;                    /* 0: no notify */
	unsigned off[SB_NOTIFY_MAX_ARGS]; /* argument i is text + off[i] */
	char text[SB_NOTIFY_TEXT_MAX];
	unsigned on;      /* enum sb_notify_event bits (default: all) */
	double timeout_s; /* the command is killed after this (default 10 s) */
	int line;         /* of the key, for messages */
};

struct sb_campaign {
	char file[SB_CAMPAIGN_TEXT_MAX]; /* as given */
	char name[SB_CAMPAIGN_NAME_MAX];
	char description[SB_CAMPAIGN_TEXT_MAX];
	enum sb_campaign_kind kind;
	/* The board's engine (bench.engine; default: hbm2 when every device is a sim: URI of an
	 * HBM2 card's profile, else gups) and, for hbm2, the points' warm-up and window. */
	enum sb_campaign_engine engine;
	int engine_line;
	double hbm_warmup_us, hbm_window_us;
	unsigned ndevices;
	char device[SB_CAMPAIGN_MAX_DEVICES][SB_CAMPAIGN_TEXT_MAX]; /* sim: URIs get the profile */
	char profile[SB_CAMPAIGN_NAME_MAX];                         /* "" if not given */
	struct sb_campaign_instruments inst;
	int instruments_line;
	struct sb_campaign_recovery recovery;
	/* After a cooling change, wait for the actuator's heatsink to settle (key
	 * 'cooling_settle'; actuators without a heatsink sensor are not waited on). */
	struct sb_cooling_settle settle;
	struct sb_campaign_trace trace;
	double bandwidth_s, thermal_s;
	uint64_t stream_groups;
	double sample_interval_ms;
	uint64_t seed;
	bool fast_forward;
	enum sb_port_order port_order; /* points with fewer ports than the board: which ports */
	struct sb_campaign_axes axes;
	unsigned nexclude, nonly;
	struct sb_campaign_filter *exclude, *only;
	struct sb_campaign_notify notify;
	/* Normalized content (canonical JSON of everything above but the file name and notify) and its
	 * 64-bit FNV-1a hash as 16 hex digits: what resume compares. */
	char *normalized;
	char hash[17];
	unsigned npoints;
	struct sb_campaign_point *points;
};

/*
 * Load a campaign file: parse, check every key, expand the axes into points, hash.
 * Returns 0, or SB_ERR_PARSE with a detail naming the file, line and key (unknown key, wrong
 * type, value out of range, no points left after the filters), SB_ERR_NOT_SUPPORTED (a
 * feature not available in this build, with the line), SB_ERR_NOT_FOUND / SB_ERR_IO (cannot
 * read), SB_ERR_NOMEM. On error c is left released.
 */
int sb_campaign_load(struct sb_campaign *c, const char *path);

/* The same from text in memory; name is used in messages. */
int sb_campaign_load_string(struct sb_campaign *c, const char *name, const char *text, size_t len);

void sb_campaign_release(struct sb_campaign *c);

/* The facts of a notify event, for the command's environment (docs/campaigns.md, "notify"). */
struct sb_notify_facts {
	enum sb_notify_event event;
	const char *db, *message;
	int64_t campaign_id; /* 0: not made yet */
	int64_t job;         /* the daemon's job (0: stackbench run) */
	unsigned done, total;
	/* thermal_failure */
	int point_index;
	const char *point_key;
	double temp_c; /* NAN: not measured */
};

/* "done", "failed", "cancelled", "thermal_failure". */
const char *sb_notify_event_name(enum sb_notify_event e);

/*
 * Run c's notify command for an event it asks for (else nothing): as an argument vector, never a
 * shell, in this process's identity, with the facts in STACKBENCH_* variables added to the
 * caller's environment, or (clean_env) to a fresh one (PATH, LANG, and HOME, USER, LOGNAME from
 * the user database). Waits for it at most its timeout_s (then SIGTERM to its process group,
 * SIGKILL a second later). What it did is logged (sb_info, sb_warn); the result is only for
 * tests: 0, SB_ERR_NOT_FOUND (cannot run), SB_ERR_IO (exit status or signal), SB_ERR_TIMEOUT.
 */
int sb_notify_run(const struct sb_campaign *c, const struct sb_notify_facts *f, bool clean_env);

/* What changes when a stored campaign is run again elsewhere (sb_campaign_load_stored). */
struct sb_campaign_change {
	const char *device; /* NULL: the stored devices; else this one device URI */
	/* each instrument the campaign has becomes the sim: one (an HBM2 card's: none, the
	 * simulated card has no instruments; its thermal campaign is then refused) */
	bool sim_instruments;
};

/*
 * Rebuild a campaign from what the results store keeps of it: normalized is campaigns.config
 * (the normalized content, sb_campaign.normalized) and hash campaigns.hash. The campaign as
 * stored must hash to hash (so that its points are the ones measured); then, with change, it is
 * loaded again with its board and instruments changed (another hash, the same points). name is
 * used in messages. Returns 0, SB_ERR_PARSE (not a stored campaign), SB_ERR_MISMATCH (it
 * rebuilds into another campaign: stored by another version), SB_ERR_NOT_SUPPORTED (a feature
 * this build lacks), SB_ERR_NOMEM. On error c is left released.
 */
int sb_campaign_load_stored(struct sb_campaign *c, const char *name, const char *normalized,
                            const char *hash, const struct sb_campaign_change *change);

/* ---- shards (docs/cluster.md) --------------------------------------------------------- */

#define SB_CAMPAIGN_MAX_SHARDS 1000 /* Slurm's default MaxArraySize allows task ids 0..1000 */

/*
 * Split the campaign's points into nshards shards: shard_of[i] (npoints entries) is the shard
 * of point i. A sequence that must stay ordered — the points of one cooling configuration in a
 * thermal campaign, or in any campaign that applies cooling (settling) — goes whole, in order,
 * into one shard; other points are single groups. Groups go in order to the shard with the
 * fewest points so far (the first of equals), so single points go round robin. A pure function
 * of the campaign and nshards. *ngroups (may be NULL) gets the number of groups: with fewer
 * groups than shards, some shards are empty. Returns 0, SB_ERR_INVAL (nshards 0 or above
 * SB_CAMPAIGN_MAX_SHARDS) or SB_ERR_NOMEM.
 */
int sb_campaign_shard_map(const struct sb_campaign *c, unsigned nshards, unsigned *shard_of,
                          unsigned *ngroups);

/* Parse "I/N" (0 <= I < N <= SB_CAMPAIGN_MAX_SHARDS). Returns 0 or SB_ERR_INVAL. */
int sb_campaign_shard_parse(const char *text, unsigned *index, unsigned *count);

/*
 * Run the campaign on another board than its file names (one URI; sim: URIs without a profile
 * get bench.profile, as in the file). The content hash does not change: the board is where a
 * point was measured (points.device, provenance), not what the campaign is. Returns 0 or
 * SB_ERR_URI.
 */
int sb_campaign_set_device(struct sb_campaign *c, const char *uri);

/* The spec of an HBM2 campaign's point p: its settings, the campaign's warm-up and window, and
 * the point's seed. */
void sb_campaign_hbm_spec(const struct sb_campaign *c, const struct sb_campaign_point *p,
                          struct sb_hbm_spec *s);

/* "gups" / "hbm2". */
const char *sb_campaign_engine_name(enum sb_campaign_engine e);

/* Point p in a line, as 'stackbench run' prints it: "ro 64 B 16vault random 9 ports", "read
 * 512 B linear shift4 ports 0-1, 64 out" (an HBM2 card's). */
void sb_campaign_point_text(char *buf, size_t size, const struct sb_campaign_point *p);

/* Bench time each point runs (a GUPS point: bandwidth_s or thermal_s by kind; an HBM2 card's:
 * its warm-up and window), in ns. */
uint64_t sb_campaign_point_ns(const struct sb_campaign *c);

/* Whether the campaign has an instrument of a kind. */
bool sb_campaign_has_inst(const struct sb_campaign *c, enum sb_campaign_inst kind);

/* "'FILE' line N: key 'KEY'" for messages about a setting found later (line 0: no line). */
void sb_campaign_where(const struct sb_campaign *c, int line, const char *key, char *buf,
                       size_t size);

/* One sample of the time series of a point. */
struct sb_sample {
	uint64_t t_ns; /* bench time since the point started */
	uint64_t reads, writes, read_data_flits, lat_sum_cycles, lat_count; /* cumulative */
	double temp_c;          /* camera hot spot; NAN without a temperature source */
	double power_w;         /* mean power since the previous sample; NAN without a meter */
	double volts_v, amps_a; /* NAN when the meter does not report them */
	double heatsink_c;      /* the cooling actuator's heatsink thermocouple; NAN without one */
};

/* What the engine reports after each finished point (for progress display). */
struct sb_run_progress {
	unsigned done, total;    /* points stored in the campaign / in all */
	unsigned done_run;       /* points finished by this run */
	double elapsed_s, eta_s; /* wall time of this run; estimate for the rest (< 0: none) */
	const struct sb_campaign_point *last;
	const char *device;
	unsigned worker; /* the worker that ran it (index into the devices used) */
	double last_bandwidth_gbps, last_mrps, last_latency_avg_ns;
	double last_temp_c, last_power_w; /* steady-state hot spot, mean power (NAN: none) */
	unsigned last_attempt;            /* 0: first run of the point */
	bool last_failed;                 /* the cube failed (thermal failure) */
	bool last_rig_fault; /* the cooling rig went into its fail-safe (not a cube failure) */
	/* A long point in progress (in_point: this call reports it, not a stored point): its
	 * bench time so far and in all, the latest hot spot and power (NAN: none). */
	bool in_point;
	const struct sb_campaign_point *current;
	double current_t_s, current_s, current_temp_c, current_power_w;
	int64_t campaign_id; /* the campaign's id in the store */
};

/* What the engine tells a front end while a point runs (sb_run_options.event). */
enum sb_run_event_kind {
	SB_RUN_POINT_START, /* a run of a point starts on a worker */
	SB_RUN_SAMPLE,      /* a sample was taken during the point */
	SB_RUN_COOLDOWN,    /* an HBM2 card's cool-down read its temperature source: sample
	                       holds the reading (t_ns: bench time waited so far, temp_c) */
};

struct sb_run_event {
	enum sb_run_event_kind kind;
	unsigned worker;
	const char *device;
	const struct sb_campaign_point *point;
	unsigned attempt;
	const struct sb_sample *sample; /* SB_RUN_SAMPLE */
	/* SB_RUN_SAMPLE: over the interval since the previous sample (flit accounting), as the
	 * store computes them; latency NAN without reads. */
	double bandwidth_gbps, mrps, latency_avg_ns;
};

struct sb_run_options {
	bool resume;   /* continue the latest campaign of this name in the store */
	unsigned jobs; /* workers (0 = 1); one device URI each */
	/* Run only shard `shard` of `shards` (sb_campaign_shard_map; shards 0: the whole
	 * campaign). The store records the shard with the campaign, and a resume must name the
	 * same shard. */
	unsigned shard, shards;
	/* Called (serialized) after each stored point, once at start (last = NULL), and during
	 * points of 10 s of bench time or more at most once a second of wall time (in_point). */
	void (*progress)(void *ctx, const struct sb_run_progress *p);
	void *progress_ctx;
	/* Set (by a signal handler) to stop: the point in progress is discarded. */
	volatile sig_atomic_t *stop;
	/* Set to stop between points: the points in progress finish and are stored, no other
	 * starts (SB_ERR_INTERRUPTED; resumable). */
	volatile sig_atomic_t *pause;
	/* Called from the worker threads (not serialized) when a point starts and after each
	 * sample; must return quickly and must not call the engine. */
	void (*event)(void *ctx, const struct sb_run_event *ev);
	void *event_ctx;
	/* The points to run, by index (npoints entries; NULL: every point): the others are
	 * treated as stored. What `report --against-model` runs of a campaign: the points that
	 * were measured. */
	const bool *only;
};

struct sb_run_summary {
	int64_t campaign_id;
	bool resumed;
	unsigned total, skipped, run; /* total: the points of the run's shard (all without one) */
	unsigned failed;              /* runs (attempts) that ended in a thermal failure */
	unsigned retried;             /* runs that repeated a failed point */
	unsigned recovered;           /* recoveries after a failure */
	double wall_s;
	/* Where an error came from, before anything ran: a board or instrument that could not be
	 * opened, or a point the boards cannot run (what the file asks for). */
	bool open_failed, check_failed;
};

/* notify from a run's progress: thermal_failure when the point just stored failed so. */
void sb_notify_progress(const struct sb_campaign *c, const struct sb_run_progress *p,
                        const char *db, int64_t job, bool clean_env);
/*
 * notify at the end of a run, from sb_campaign_run's result: 0 done; SB_ERR_INTERRUPTED
 * cancelled when cancelled (the user stopped it), else nothing (paused, or stopped to be
 * resumed: not its end); any other failed. sum (may be NULL) gives the counts.
 */
void sb_notify_end(const struct sb_campaign *c, int result, bool cancelled,
                   const struct sb_run_summary *sum, const char *db, int64_t job,
                   const char *message, bool clean_env);

/*
 * Check a loaded campaign against its boards without running anything (what --dry-run does):
 * open each device URI and the instruments as a run would, and check that every point can run
 * on every board (ports, stream interface, address mode). Returns 0, SB_ERR_INVAL (a point the
 * board cannot run: the detail names it), or the device or instrument error; sum says which
 * (open_failed, check_failed; the rest of it is zero).
 */
int sb_campaign_check(const struct sb_campaign *c, unsigned jobs, struct sb_run_summary *sum);

/*
 * Run a loaded campaign into an open store. Opens one device per worker, checks every point
 * against the boards before anything runs, creates the campaign in the store (or, with
 * resume, finds the latest one of the same name: SB_ERR_MISMATCH if its hash differs), runs
 * the points that are not stored yet and stores each in one transaction.
 * The campaign is locked in the store for the run (stackbench/lock.h): another process
 * running it in the same database gets SB_ERR_BUSY with the holder's PID.
 * Returns 0 (campaign complete), SB_ERR_INTERRUPTED (stop or pause was set; resumable),
 * SB_ERR_BUSY, SB_ERR_INVAL (jobs vs devices, a point the board cannot run), SB_ERR_MISMATCH,
 * a device error or SB_ERR_DB.
 */
int sb_campaign_run(const struct sb_campaign *c, struct sb_store *st,
                    const struct sb_run_options *o, struct sb_run_summary *sum);

/* ---- recovery after a thermal failure ------------------------------------------------ */

#define SB_RECOVERY_POLL_NS 1000000000ull /* the camera is read every second of the cool-down */
#define SB_RECOVERY_ROUNDS 3              /* cool-down + reset rounds before giving up */

/* What the recovery sequence did. */
struct sb_recovery_report {
	unsigned rounds;        /* cool-down + reset rounds (a cube still too hot: another) */
	double fail_c;          /* hot spot the cool-down started from (NAN: no camera) */
	double target_c;        /* the cool-down's target (NAN: no camera) */
	double reached_c;       /* last reading of the cool-down (NAN: no camera) */
	double cool_s, total_s; /* bench time cooling, and of the whole sequence */
	char cooling[SB_AXIS_NAME_MAX];  /* configuration during the cool-down ("": unchanged) */
	char restored[SB_AXIS_NAME_MAX]; /* configuration put back after it ("": none) */
	char steps[320];                 /* the steps done, in order, comma-separated */
};

/*
 * The recovery sequence after a thermal failure, on the bench clock of dev:
 *   1. stop the ports (sb_hmc_reset_ports: stop, drop outstanding tags);
 *   2. apply the cooling configuration `cooling` (NULL: leave the cooling as it is);
 *   3. cool down until the temperature source reads opt->cool_margin_c below fail_c (NAN: below
 *      its first reading), reading it every SB_RECOVERY_POLL_NS; without a temperature source,
 *      wait opt->cool_max_s;
 *   4-6. reset the cube, reset the transceivers, initialize and wait until ready
 *      (sb_hmc_recover);
 *   7. put back the configuration that was applied before step 2.
 * A cube that fails again at once (still too hot) is cooled by another margin and reset
 * again, up to SB_RECOVERY_ROUNDS rounds. inst may be NULL (no instruments). Returns 0,
 * SB_ERR_TIMEOUT (not cool enough within opt->cool_max_s of bench time), SB_ERR_THERMAL
 * (failing again after every round), or a device or instrument error; rep says what was done
 * either way.
 */
int sb_thermal_recover(struct sb_device *dev, const struct sb_point_instruments *inst,
                       const struct sb_campaign_recovery *opt, const char *cooling, double fail_c,
                       struct sb_recovery_report *rep);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_CAMPAIGN_H */
