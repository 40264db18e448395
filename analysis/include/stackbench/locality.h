/* SPDX-License-Identifier: MIT */
/*
 * Memory-centric analyses of a trace (docs/locality.md): reuse distances, footprints and their
 * growth, the time-centric interval tree and location-centric zooming to hot regions, with the
 * sampling density and a confidence flag on every result. Every trace format works; sampled
 * traces are analysed window by window (a change of sample id is a gap nothing is known about).
 *
 * Definitions, at a chosen block size (default 64 bytes):
 * - the reuse distance of an access to block b is the number of distinct other blocks touched
 *   since the previous access to b; a first access has none ("cold": first in the trace, or in
 *   its window for a sampled trace). An access hits a fully-associative LRU cache of C blocks iff
 *   its reuse distance is below C;
 * - the footprint of an interval is the number of distinct blocks touched in it; its growth is
 *   footprint / accesses.
 * A block is one of a subpartition (with the unit, for caches private to each unit): two
 * subpartitions never share a block. The trace-wide reuse distances treat every subpartition's
 * blocks as lines of one LRU stack; each subpartition also has its own.
 */
#ifndef STACKBENCH_LOCALITY_H
#define STACKBENCH_LOCALITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackbench/sampling.h"
#include "stackbench/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_LOCALITY_SCHEMA "stackbench-locality"
#define SB_LOCALITY_SCHEMA_VERSION "1.0"

/* --- Reuse distances of a stream of keys (the engine's core, for tests and benchmarks) ------ */

#define SB_REUSE_COLD UINT64_MAX /* the distance of a first access */

struct sb_reuse;

/* Returns 0 or SB_ERR_NOMEM. */
int sb_reuse_new(struct sb_reuse **r);
/* The reuse distance of each key in turn (SB_REUSE_COLD for a first access): O(log n) per key.
 * Returns 0, SB_ERR_NOMEM or SB_ERR_RANGE (more than 2^29 distinct keys). */
int sb_reuse_feed(struct sb_reuse *r, const uint64_t *keys, size_t n, uint64_t *dist);
/* Distinct keys seen. */
uint64_t sb_reuse_distinct(const struct sb_reuse *r);
void sb_reuse_free(struct sb_reuse *r);

/* --- The analysis ------------------------------------------------------------------------- */

struct sb_locality_options {
	uint32_t block_bytes;      /* block size (a power of two; default 64) */
	uint32_t max_leaves;       /* leaves of the interval tree at most (a power of two,
	                              default 1024, at most 65536) */
	double hot_share;          /* zooming: a chunk is hot from this share of its parent's
	                              accesses (default 0.1) */
	uint32_t zoom_fanout;      /* chunks a region is split into (a power of two, default 16) */
	uint64_t zoom_floor_bytes; /* regions are not split below this size (default: one block) */
	uint32_t max_regions;      /* hot regions reported at most (default 256) */
	struct sb_confidence_rules rules; /* zero: sb_confidence_rules_default() */
};

/*
 * Reuse distances in power-of-two bins: bin 0 holds distance 0, bin k (1..SB_REUSE_BINS - 1)
 * distances 2^(k-1) .. 2^k - 1.
 */
#define SB_REUSE_BINS 34

struct sb_reuse_hist {
	uint64_t accesses; /* accesses counted */
	uint64_t cold;     /* without a distance: first accesses (in their window if sampled) */
	uint64_t bins[SB_REUSE_BINS];
	uint64_t finite; /* accesses with a distance (Σ bins) */
	uint64_t sum;    /* Σ distances (exact) */
	uint64_t max;    /* the longest distance */
	bool confident;
};

/* Miss ratio of a fully-associative LRU cache of `blocks` blocks (a power of two). */
struct sb_miss_ratio {
	uint64_t blocks;
	double ratio;   /* (cold + accesses with distance >= blocks) / accesses */
	bool confident; /* density, and a warm-up of warmup_factor × blocks accesses per window */
};

struct sb_locality_subpart {
	struct sb_trace_subpart sp;
	uint64_t accesses, bytes;
	uint64_t blocks;            /* distinct blocks (the subpartition's footprint) */
	double density;             /* its sampling density */
	struct sb_reuse_hist reuse; /* of the subpartition's own stream of accesses */
};

/* A node of the time-centric interval tree: leaves are samples (windows) of a sampled trace or
 * windows of equal numbers of accesses of a complete one; each level above doubles the window. */
struct sb_locality_node {
	int64_t first_time, last_time; /* of its accesses */
	uint64_t accesses, bytes;
	uint64_t footprint;      /* distinct blocks */
	uint64_t observed_ticks; /* time observed: the sum of its windows' lengths */
	uint64_t span_ticks;     /* time it stands for: to the next node's start, gaps included */
	double growth;           /* footprint / accesses */
	double rate_hz;          /* accesses per second in the observed time */
	double footprint_scaled; /* footprint × span / observed (= footprint when complete) */
	bool confident;
};

struct sb_locality_tree {
	bool by_sample;      /* leaves are samples (else windows of leaf_width accesses) */
	uint64_t leaf_width; /* samples or accesses per leaf */
	uint32_t nlevels;    /* levels[0] holds the leaves, levels[nlevels - 1] the root */
	uint32_t *count;     /* nodes of each level */
	struct sb_locality_node **levels;
};

/* A hot region found by zooming into a subpartition's address space. */
struct sb_hot_region {
	uint32_t subpart;
	uint32_t depth;       /* 0: the subpartition's whole range */
	int32_t parent;       /* index of the region it was found in (-1 at depth 0) */
	uint64_t first, last; /* its bytes, first to last (inclusive), in the
	                         subpartition's address space */
	uint64_t accesses, blocks;
	double share_of_parent, share_of_total;
	double mean_reuse; /* mean finite reuse distance of its accesses (NaN if none) */
	uint64_t finite;   /* accesses with a finite reuse distance */
	bool confident;
};

struct sb_locality_result {
	struct sb_trace_info info; /* of the trace, at its end */
	struct sb_locality_options opt;
	struct sb_sampling sampling;
	uint64_t accesses; /* accesses analysed (records other than flushes and accesses
	                               that did not happen: reservation fails) */
	uint64_t skipped;  /* flush records and reservation fails */
	uint64_t bytes;
	uint64_t blocks; /* distinct blocks of the whole trace */
	int64_t first_time, last_time;
	struct sb_reuse_hist reuse; /* trace-wide */
	struct sb_miss_ratio *mrc;  /* miss-ratio curve from the trace-wide distances */
	size_t nmrc;
	struct sb_locality_subpart *subparts;
	size_t nsubparts;
	struct sb_locality_tree tree;
	struct sb_hot_region *regions;
	size_t nregions;
};

struct sb_locality;

/* Fill the defaults of the options left zero and check them: 0 or SB_ERR_INVAL. */
int sb_locality_options_resolve(struct sb_locality_options *opt);

/* Options are copied; NULL: defaults. Returns 0, SB_ERR_INVAL (bad options), SB_ERR_NOMEM. */
int sb_locality_new(struct sb_locality **l, const struct sb_locality_options *opt);
/* Analyse records (in the trace's order). Returns 0, SB_ERR_NOMEM, SB_ERR_RANGE (a time out of
 * range, more than 2^29 distinct blocks in a window), SB_ERR_PARSE (a bad subpartition). */
int sb_locality_feed(struct sb_locality *l, const struct sb_trace_info *info,
                     const struct sb_trace_record *recs, size_t n);
/* The results (release with sb_locality_result_release()). 0 or SB_ERR_NOMEM. */
int sb_locality_finish(struct sb_locality *l, const struct sb_trace_info *info,
                       struct sb_locality_result *res);
void sb_locality_free(struct sb_locality *l);

/* Read a whole trace through a new engine. Errors of the reader or the engine. */
int sb_locality_run(struct sb_trace_reader *r, const struct sb_locality_options *opt,
                    struct sb_locality_result *res);
void sb_locality_result_release(struct sb_locality_result *res);

/* --- Chunks of a trace analysed apart, merged exactly (docs/locality.md, "Threads and shards") -- */

/*
 * Where a chunk of a trace begins: what one engine that read every record before it knows about
 * the positions of the chunk's accesses (their numbers, their windows). Zero: the trace's start.
 */
struct sb_locality_prefix {
	uint64_t records;            /* records before the chunk */
	uint64_t accesses;           /* accesses among them */
	uint32_t epoch;              /* windows begun */
	uint32_t sample;             /* the sample id of the current window */
	int64_t win_first, win_last; /* the current window's first and last times */
	bool started;                /* an access was seen */
	bool by_sample;              /* (once started) the trace is read window by window */
	bool win_any;                /* the current window has an access */
};

/* Move p over records (in the trace's order) without analysing them: an engine's count. */
void sb_locality_prefix_skim(struct sb_locality_prefix *p, const struct sb_trace_info *info,
                             const struct sb_trace_record *recs, size_t n);

/*
 * An engine for the chunk of a trace that begins at start (options as sb_locality_new()). Feed
 * it the chunk's records, then take its part. Returns 0, SB_ERR_INVAL, SB_ERR_NOMEM.
 */
int sb_locality_new_chunk(struct sb_locality **l, const struct sb_locality_options *opt,
                          const struct sb_locality_prefix *start);

/* What a chunk engine found, to be absorbed in order (parts hold no pointer into the engine). */
struct sb_locality_part;

/* The part of a chunk engine after its last record (the engine can be freed then). 0 or
 * SB_ERR_NOMEM. */
int sb_locality_take_part(struct sb_locality *l, struct sb_locality_part **part);

/* Where a part's chunk begins and ends. */
const struct sb_locality_prefix *sb_locality_part_start(const struct sb_locality_part *part);
const struct sb_locality_prefix *sb_locality_part_end(const struct sb_locality_part *part);

/*
 * Absorb the part of the next chunk into l, an engine that read (or absorbed) every record
 * before it: each first access of a block in the chunk is resolved against the earlier chunks
 * as the parallel reuse-distance algorithm parda does, and footprints, windows and per-block
 * numbers are joined, so that sb_locality_finish() then gives the result of one engine that
 * read every record. SB_ERR_MISMATCH when the part does not begin where l ends (another trace,
 * other options, chunks out of order), SB_ERR_NOMEM.
 */
int sb_locality_absorb(struct sb_locality *l, const struct sb_trace_info *info,
                       const struct sb_locality_part *part);

void sb_locality_part_free(struct sb_locality_part *part);

/*
 * The records of a source (opened in one pass, or sorted: see sb_trace_source; an sbt file
 * on disk counts them without reading them). *unsorted tells a failure because records go back
 * in time (count again sorted).
 */
int sb_locality_source_records(const struct sb_trace_source *src, bool sorted, uint64_t *records,
                               bool *unsorted);

/*
 * The part of the chunk of records [lo, hi) of src: the trace is read from its start, the
 * records before lo skimmed, those of the chunk analysed (last: the chunk ends with the trace,
 * read to its end). info receives the trace's description as read. *unsorted as above;
 * SB_ERR_MISMATCH when the trace does not hold the records counted.
 */
int sb_locality_run_chunk(const struct sb_trace_source *src, bool sorted,
                          const struct sb_locality_options *opt, uint64_t lo, uint64_t hi,
                          bool last, struct sb_locality_part **part, struct sb_trace_info *info,
                          bool *unsorted);

/*
 * Join the parts of every chunk of a trace of `records` records, in order, into the result of
 * one engine (info: the trace's description at its end). SB_ERR_MISMATCH when they do not
 * follow each other from the first record to the last.
 */
int sb_locality_merge(const struct sb_locality_options *opt, const struct sb_trace_info *info,
                      struct sb_locality_part *const *parts, size_t n, uint64_t records,
                      struct sb_locality_result *res);

/*
 * Shard `shard` of `nshards` (docs/locality.md, "Threads and shards"): the records of src are
 * counted (*records; *sorted when they go back in time, so that they are read sorted), the
 * shard's range [records * shard / nshards, records * (shard + 1) / nshards) analysed in
 * `threads` chunks in parallel, joined into its one part (*part, with info the trace's
 * description). Errors of opening, reading, the engine.
 */
int sb_locality_run_shard(const struct sb_trace_source *src, const struct sb_locality_options *opt,
                          uint32_t shard, uint32_t nshards, unsigned threads,
                          struct sb_locality_part **part, struct sb_trace_info *info,
                          uint64_t *records, bool *sorted);

/*
 * The analysis of src (opt as sb_locality_new()) in `threads` chunks analysed in parallel and
 * absorbed in order, exactly the result of one engine; one engine when threads <= 1, for
 * standard input, or for a trace of few records. A file whose records go back in time is read
 * sorted. Errors of opening, reading, the engine.
 */
int sb_locality_run_source(const struct sb_trace_source *src, const struct sb_locality_options *opt,
                           unsigned threads, struct sb_locality_result *res);

/* The bin of a reuse distance (d != SB_REUSE_COLD). */
static inline unsigned sb_reuse_bin(uint64_t d)
{
	unsigned b = d ? 64u - (unsigned)__builtin_clzll(d) : 0;

	return b < SB_REUSE_BINS ? b : SB_REUSE_BINS - 1;
}

/* --- Reports (docs/locality.md) ------------------------------------------------------------ */

/* The JSON report (schema SB_LOCALITY_SCHEMA_VERSION) as malloc'ed text. 0 or SB_ERR_NOMEM. */
int sb_locality_report_json(const struct sb_locality_result *res, const char *format,
                            const char *const *inputs, size_t ninputs, char **text);

/*
 * Figures in dir (created if needed; written atomically): the reuse-distance histogram with the
 * miss-ratio curve, and footprint and growth per leaf of the interval tree; PNG and SVG through
 * gnuplot. SB_ERR_NOT_FOUND if gnuplot is not installed, SB_ERR_IO if it fails.
 */
int sb_locality_plot(const struct sb_locality_result *res, const char *dir);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_LOCALITY_H */
