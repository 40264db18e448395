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
#include <stdint.h>

#include "stackbench/gups.h"

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
#define SB_CAMPAIGN_KEY_MAX 160
#define SB_AXIS_NAME_MAX 24

enum sb_campaign_kind {
	SB_CAMPAIGN_BANDWIDTH = 0, /* points run durations.bandwidth_s */
	SB_CAMPAIGN_THERMAL = 1,   /* points run durations.thermal_s */
};

enum sb_instruments {
	SB_INSTRUMENTS_NONE = 0,
	SB_INSTRUMENTS_SIM = 1, /* the simulated camera and power meter */
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
	SB_AXIS_COUNT
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
	unsigned ports;     /* 0: every port of the board */
	unsigned stream;    /* 0: GUPS; 1..28: stream groups of that size */
	int mask_lo;        /* -1: no mask; else bits mask_lo..+width-1 forced to 0 */
	unsigned mask_width;
	uint64_t seed; /* derived from the campaign seed and the key */
};

struct sb_campaign {
	char file[SB_CAMPAIGN_TEXT_MAX]; /* as given */
	char name[SB_CAMPAIGN_NAME_MAX];
	char description[SB_CAMPAIGN_TEXT_MAX];
	enum sb_campaign_kind kind;
	unsigned ndevices;
	char device[SB_CAMPAIGN_MAX_DEVICES][SB_CAMPAIGN_TEXT_MAX]; /* sim: URIs get the profile */
	char profile[SB_CAMPAIGN_NAME_MAX];                         /* "" if not given */
	enum sb_instruments instruments;
	int instruments_line;
	double bandwidth_s, thermal_s;
	uint64_t stream_groups;
	double sample_interval_ms;
	uint64_t seed;
	bool fast_forward;
	struct sb_campaign_axes axes;
	unsigned nexclude, nonly;
	struct sb_campaign_filter *exclude, *only;
	/* Normalized content (canonical JSON of everything above but the file name) and its
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

/* Bench time each GUPS point runs (bandwidth_s or thermal_s by kind), in ns. */
uint64_t sb_campaign_point_ns(const struct sb_campaign *c);

/*
 * Whether an instrument set is available in this build: 0, or SB_ERR_NOT_SUPPORTED with a
 * detail. The one place that decides it (the parser and the engine both ask).
 */
int sb_instruments_available(enum sb_instruments which);

/* One sample of the time series of a point. */
struct sb_sample {
	uint64_t t_ns; /* bench time since the point started */
	uint64_t reads, writes, read_data_flits, lat_sum_cycles, lat_count; /* cumulative */
	double temp_c, power_w; /* NAN when no instrument gives it */
};

/* What the engine reports after each finished point (for progress display). */
struct sb_run_progress {
	unsigned done, total;    /* points stored in the campaign / in all */
	unsigned done_run;       /* points finished by this run */
	double elapsed_s, eta_s; /* wall time of this run; estimate for the rest (< 0: none) */
	const struct sb_campaign_point *last;
	const char *device;
	double last_bandwidth_gbps, last_mrps, last_latency_avg_ns;
	bool last_failed;
};

struct sb_run_options {
	bool resume;   /* continue the latest campaign of this name in the store */
	unsigned jobs; /* workers (0 = 1); one device URI each */
	/* Called (serialized) after each stored point and once at start (last = NULL). */
	void (*progress)(void *ctx, const struct sb_run_progress *p);
	void *progress_ctx;
	/* Set (by a signal handler) to stop: the point in progress is discarded. */
	volatile sig_atomic_t *stop;
};

struct sb_run_summary {
	int64_t campaign_id;
	bool resumed;
	unsigned total, skipped, run, failed; /* failed: points with a thermal failure */
	double wall_s;
};

/*
 * Run a loaded campaign into an open store. Opens one device per worker, checks every point
 * against the boards before anything runs, creates the campaign in the store (or, with
 * resume, finds the latest one of the same name: SB_ERR_MISMATCH if its hash differs), runs
 * the points that are not stored yet and stores each in one transaction.
 * Returns 0 (campaign complete), SB_ERR_INTERRUPTED (stop was set; resumable), SB_ERR_INVAL
 * (jobs vs devices, a point the board cannot run), SB_ERR_MISMATCH, a device error or
 * SB_ERR_DB.
 */
int sb_campaign_run(const struct sb_campaign *c, struct sb_store *st,
                    const struct sb_run_options *o, struct sb_run_summary *sum);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_CAMPAIGN_H */
