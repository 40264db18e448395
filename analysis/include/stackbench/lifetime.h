/* SPDX-License-Identifier: MIT */
/*
 * The data-lifetime / device-projection core. The engine follows docs/lifetimes.md (the pinned
 * rules); in short, per subpartition:
 *
 * - a write (a store, or a fetch/fill) starts a value; a later write to the address, a flush or
 *   program end ends it. Its lifetime runs from the write to its last read; program end
 *   invalidates every live value but a lifetime still ends at its last read;
 * - within one time stamp, writes are applied before reads;
 * - a read of an address that holds no live value is an unbacked read (counted);
 * - a value never read is a zero-read value (counted; no lifetime); if it was fetched/filled it
 *   is also an orphan;
 * - cache records are interpreted with the write-allocate / no-write-allocate policy.
 *
 * Memory is proportional to the distinct addresses (open-addressing hash tables, one entry per
 * address) plus the distinct lifetime values (an exact histogram), never to the trace length.
 * The projection then applies a device library: refreshes, area, active energy, ratios to the
 * reference device, refresh-free shares and the heterogeneous composition.
 */
#ifndef STACKBENCH_LIFETIME_H
#define STACKBENCH_LIFETIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackbench/devices.h"
#include "stackbench/sampling.h"
#include "stackbench/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the JSON report schema (docs/lifetimes.md). */
#define SB_LIFETIME_SCHEMA "stackbench-lifetimes"
#define SB_LIFETIME_SCHEMA_VERSION "2.0"

enum sb_cache_policy {
	SB_POLICY_WRITE_ALLOCATE = 0,    /* every miss starts a lifetime */
	SB_POLICY_NO_WRITE_ALLOCATE = 1, /* write misses allocate nothing */
};

/* "write-allocate" / "no-write-allocate" -> policy; SB_ERR_INVAL otherwise. */
int sb_cache_policy_parse(const char *name, enum sb_cache_policy *policy);
const char *sb_cache_policy_name(enum sb_cache_policy policy);

/* Lifetimes of one length: count values, their bits and their accesses (1 write + reads). */
struct sb_lifetime_bin {
	int64_t ticks;
	uint64_t count;
	uint64_t bits;
	uint64_t accesses;
};

/* Addresses by the longest lifetime they held (0 when they held none). */
struct sb_address_bin {
	int64_t max_ticks;
	uint64_t addresses;
	uint64_t bits;       /* capacity: Σ widest value at each address */
	uint64_t read_bits;  /* bits read at these addresses */
	uint64_t write_bits; /* bits written (stores and fetches) at these addresses */
};

/*
 * Order statistics of the lifetimes in ticks (valid when lifetimes > 0). The median and the
 * percentiles are those pandas computes by default (Series.quantile, numpy's 'linear' method:
 * linear interpolation between the values of ranks floor(h) and floor(h) + 1, h = (n - 1) q).
 */
struct sb_lifetime_summary {
	int64_t min;
	double mean;
	double median; /* q = 0.5 */
	double p99;    /* q = 0.99 */
	int64_t max;
};

struct sb_subpart_stats {
	struct sb_trace_subpart sp;
	uint64_t reads;      /* reads applied (hits, loads) */
	uint64_t stores;     /* writes by the processing element */
	uint64_t fetches;    /* fills / fetches from the next level */
	uint64_t flushes;    /* flush records */
	uint64_t read_bits;  /* N_r in bits */
	uint64_t write_bits; /* N_w in bits (stores + fetches) */
	uint64_t unique_addresses;
	uint64_t capacity_bits; /* Σ widest value at each address */
	uint64_t lifetimes;     /* values read at least once */
	uint64_t lifetime_accesses;
	uint64_t zero_read_values;
	uint64_t orphans; /* zero-read values that were fetched / filled */
	uint64_t unbacked_reads;
	uint64_t skipped;              /* cache accesses that did not happen (reservation fails) */
	uint64_t bypassed;             /* write misses under no-write-allocate */
	uint64_t read_ticks;           /* time stamps with at least one read */
	uint64_t write_ticks;          /* time stamps with at least one write */
	int64_t first_time, last_time; /* of this subpartition's accesses */
	/* sampled traces (records with sample ids): each sample is a window, and a value still
	   live at the end of its window is cut (censored): it is no lifetime, no zero-read value */
	uint64_t windows;              /* windows (samples) of this subpartition */
	uint64_t censored_values;      /* values cut by the end of their window */
	uint64_t censored_read_values; /* of those, the ones read: lifetimes of at least ... */
	int64_t censored_max;          /* ... up to this observed length (a lower bound) */
	double density;                /* sampling density (1: a complete trace) */
	bool confident;                /* the confidence rules hold (sb_lifetime_judge) */
	struct sb_lifetime_summary life;
	struct sb_lifetime_bin *bins; /* ascending ticks */
	size_t nbins;
	struct sb_address_bin *abins; /* ascending max_ticks */
	size_t nabins;
};

struct sb_lifetime_result {
	struct sb_trace_info info; /* of the trace, at its end */
	enum sb_cache_policy policy;
	bool windowed;                     /* read sample by sample (records with sample ids) */
	struct sb_sampling sampling;       /* the density r of the trace */
	struct sb_confidence_rules rules;  /* the rules the confidence flags were judged by */
	uint64_t records;                  /* records seen */
	int64_t first_time, last_time;     /* of the whole trace (valid when records > 0) */
	struct sb_subpart_stats *subparts; /* one per info.subparts entry */
	size_t nsubparts;
};

/* The engine. */
struct sb_lifetime;

/* Returns 0 or SB_ERR_NOMEM. */
int sb_lifetime_new(struct sb_lifetime **eng, enum sb_cache_policy policy);
void sb_lifetime_free(struct sb_lifetime *eng);

/*
 * A partition of the addresses (docs/lifetimes.md, "Threads and shards"): a lifetime depends
 * only on its address, so engines that each apply a part of the addresses of the same records
 * give results that sb_lifetime_result_merge() joins into exactly the result of one engine. An
 * address (subpartition and key) belongs to one shard of nshards and, within it, to one thread
 * of nthreads, by a fixed hash. Every engine still reads every record: the statistics of records
 * rather than addresses (time stamps with reads or writes, flushes, skipped and bypassed
 * accesses, windows, first and last times) are counted by each alike.
 */
struct sb_lifetime_partition {
	uint32_t shard, nshards;
	uint32_t thread, nthreads;
};

/* Apply only the addresses of partition p (before the first record; default: all of them).
 * SB_ERR_INVAL for a partition out of range. */
int sb_lifetime_set_partition(struct sb_lifetime *eng, const struct sb_lifetime_partition *p);

/*
 * Apply records in time order per subpartition. info describes them (it may have grown since
 * the last call). SB_ERR_PARSE if a subpartition goes back in time or an index is out of the
 * table; SB_ERR_NOMEM.
 */
int sb_lifetime_feed(struct sb_lifetime *eng, const struct sb_trace_info *info,
                     const struct sb_trace_record *recs, size_t n);

/*
 * Program end: invalidate every live value and fill res (release it with
 * sb_lifetime_result_release()). The engine can be freed afterwards. 0 or SB_ERR_NOMEM.
 */
int sb_lifetime_finish(struct sb_lifetime *eng, const struct sb_trace_info *info,
                       struct sb_lifetime_result *res);

/* Read a whole trace through a new engine. Errors of the reader or the engine. */
int sb_lifetime_run(struct sb_trace_reader *r, enum sb_cache_policy policy,
                    struct sb_lifetime_result *res);

/* The same, calling progress(ctx, records so far) after every batch of records (for long runs). */
int sb_lifetime_run_progress(struct sb_trace_reader *r, enum sb_cache_policy policy,
                             struct sb_lifetime_result *res,
                             void (*progress)(void *ctx, uint64_t records), void *ctx);

/* How to run the engine over a trace. Zero means the default for every field. */
struct sb_lifetime_run_opts {
	enum sb_cache_policy policy;
	unsigned threads;        /* threads (default 1; at most SB_ANALYSIS_MAX_THREADS): one
	                            reads, threads - 1 engines in parallel, each a partition of
	                            the addresses, share one stream of records */
	uint32_t shard, nshards; /* only the addresses of this shard (default: all) */
	void (*progress)(void *ctx, uint64_t records); /* after every batch, if set */
	void *ctx;
};

/* Read a whole trace through engines run as o says: the result is the same, exactly, for
 * every number of threads. Errors of the reader or the engine, as one engine would report. */
int sb_lifetime_run_opts(struct sb_trace_reader *r, const struct sb_lifetime_run_opts *o,
                         struct sb_lifetime_result *res);

/*
 * Open src and run: a file is read in one pass (no first pass looking for records that go
 * back in time); if records do go back, it is read again, sorted (csv, gpgpusim files; see
 * sb_trace_open()). Errors of opening, reading or the engine.
 */
int sb_lifetime_run_source(const struct sb_trace_source *src, const struct sb_lifetime_run_opts *o,
                           struct sb_lifetime_result *res);

void sb_lifetime_result_release(struct sb_lifetime_result *res);

/*
 * Join the results of engines that applied the partitions of the addresses of one trace (n of
 * them, each released by the caller): counts summed, histograms merged bin by bin, so the order
 * statistics are exact; the statistics every partition counts alike must agree
 * (SB_ERR_MISMATCH otherwise: parts of different traces or options). out is released with
 * sb_lifetime_result_release(). 0, SB_ERR_MISMATCH, SB_ERR_NOMEM.
 */
int sb_lifetime_result_merge(struct sb_lifetime_result *out, const struct sb_lifetime_result *parts,
                             size_t n);

/* The q-quantile (0 <= q <= 1) of a subpartition's lifetimes, as pandas computes it by default
 * (see struct sb_lifetime_summary); st->lifetimes must be > 0. */
double sb_quantile_linear(const struct sb_subpart_stats *st, double q);

/*
 * Judge every subpartition's results by rules (the defaults after sb_lifetime_finish): a
 * subpartition is confident when its sampling density meets the threshold of its level (cache
 * subpartitions: min_density_cache), it holds min_events lifetimes or more, at most
 * max_censored_share of its values were cut by a gap, and the trace lost at most
 * max_lost_share of its records.
 */
void sb_lifetime_judge(struct sb_lifetime_result *res, const struct sb_confidence_rules *rules);

/* Index of the named subpartition in res, or -1. */
int sb_lifetime_result_find(const struct sb_lifetime_result *res, const char *name);

/* Duration of the trace in ticks (last - first + 1; 0 for an empty trace). */
int64_t sb_lifetime_result_ticks(const struct sb_lifetime_result *res);

/* --- Device projection ------------------------------------------------------------------- */

struct sb_memdev_projection {
	const struct sb_memdev *dev;
	double retention_ns;     /* at the subpartition's write frequency; INFINITY if static */
	uint64_t refreshes;      /* R = Σ floor(T_k / t_r) · B_k, in bits */
	uint64_t refresh_values; /* Σ floor(T_k / t_r) */
	uint64_t refresh_free;   /* lifetimes with floor(T_k / t_r) = 0 */
	uint64_t refresh_free_accesses;
	double refresh_free_share; /* refresh_free / lifetimes (1 when there are none) */
	double refresh_free_access_share;
	double area_um2;         /* A_cell · capacity bits */
	double read_energy_j;    /* E_read · N_r */
	double write_energy_j;   /* E_write · N_w */
	double refresh_energy_j; /* (E_read + E_write) · R */
	double energy_j;         /* the sum */
	double area_ratio;       /* to the reference device */
	double energy_ratio;
};

/* One device's part of a heterogeneous memory. */
struct sb_composition_part {
	const struct sb_memdev *dev;
	double retention_ns;
	int64_t max_lifetime_ticks; /* longest lifetime it holds (-1: none) */
	uint64_t addresses;
	uint64_t bits;
	double capacity_share;
	double area_um2;
	double energy_j;
	uint64_t refreshes; /* bits; 0 unless no static device exists */
};

struct sb_composition {
	struct sb_composition_part
	    *parts; /* devices in assignment order, shortest retention first */
	size_t nparts;
	bool refresh_free; /* every lifetime fits its device without refresh */
	double area_um2, energy_j;
	double area_ratio; /* to an all-reference memory */
	double energy_ratio;
};

struct sb_subpart_projection {
	double duration_s;
	double time_scale; /* r of the interpolation t^ = r t (1 for a complete trace) */
	double write_hz;   /* write frequency: time stamps with a write / (r × total ticks) ×
	                      clock */
	double read_hz;
	struct sb_memdev_projection *devices; /* one per library device, library order */
	struct sb_composition comp;
};

struct sb_projection {
	size_t ndevices;
	size_t reference; /* index of the reference device */
	size_t nsubparts;
	struct sb_subpart_projection *subparts;
	struct sb_memdev_projection *total; /* summed over subpartitions */
	struct sb_composition total_comp;
};

/*
 * Project a lifetime result onto the devices of lib (checked with sb_memdev_lib_check()).
 * Returns 0, SB_ERR_INVAL or SB_ERR_NOMEM. The projection points into lib: keep lib alive.
 */
int sb_projection_compute(struct sb_projection *p, const struct sb_lifetime_result *res,
                          const struct sb_memdev_lib *lib);
void sb_projection_release(struct sb_projection *p);

/* --- Lifetimes enough to trust ------------------------------------------------------------ */

/*
 * What a subpartition's device rows (refresh-free shares, refresh energies) and its part of the
 * composition rest on (docs/lifetimes.md, "Too few lifetimes"): no accesses at all, no
 * lifetime, fewer than rules->min_events lifetimes (our threshold, default 100), or enough.
 */
enum sb_lifetime_basis {
	SB_BASIS_EMPTY = 0, /* no accesses: nothing to project */
	SB_BASIS_NONE,      /* accesses, but no lifetime: every share is a default */
	SB_BASIS_FEW,       /* fewer lifetimes than rules->min_events */
	SB_BASIS_ENOUGH,
};

enum sb_lifetime_basis sb_lifetime_basis(const struct sb_subpart_stats *st,
                                         const struct sb_confidence_rules *rules);
/* "no accesses", "none", "few", "enough" */
const char *sb_lifetime_basis_name(enum sb_lifetime_basis b);

/* The composition's basis: the share of the capacity it places from subpartitions with no or
 * too few lifetimes (0: every part rests on enough), and the lifetimes it rests on. */
struct sb_lifetime_trust {
	size_t with_accesses;       /* subpartitions with accesses */
	size_t none, few;           /* of those, with no lifetime / too few */
	uint64_t lifetimes;         /* over every subpartition */
	double weak_capacity_share; /* of the capacity, in subpartitions with none or few */
};

void sb_lifetime_trust(const struct sb_lifetime_result *res, struct sb_lifetime_trust *t);

#define SB_TRUST_WARNING_MAX 768
#define SB_TRUST_MAX_WARNINGS 2

/*
 * The warnings a result from no or too few lifetimes gets (JSON `warnings`, the summary): which
 * subpartitions and how much of the composition, and why (reads unbacked, values cut by the
 * sampling gaps, bursts shorter than the reuse) with what to capture instead. Returns how many
 * were written into out (0: every subpartition with accesses holds enough lifetimes).
 */
size_t sb_lifetime_trust_warnings(const struct sb_lifetime_result *res,
                                  char out[][SB_TRUST_WARNING_MAX], size_t max);

/* --- Reports --------------------------------------------------------------------------------- */

struct sb_report_meta {
	const char *format;        /* input format name */
	const char *const *inputs; /* input paths */
	size_t ninputs;
};

/*
 * The JSON report (schema SB_LIFETIME_SCHEMA_VERSION, docs/lifetimes.md) as malloc'ed text.
 * Returns 0 or SB_ERR_NOMEM.
 */
int sb_lifetime_report_json(const struct sb_lifetime_result *res, const struct sb_projection *p,
                            const struct sb_memdev_lib *lib, const struct sb_report_meta *meta,
                            char **text);

/*
 * The exact lifetime histogram as CSV: subpartition, lifetime in ticks and ns, count, bits,
 * accesses. Returns 0 or SB_ERR_IO.
 */
int sb_lifetime_write_csv(const struct sb_lifetime_result *res, const char *path);

/*
 * Figures in dir (created if needed): per subpartition a lifetime histogram with each device's
 * retention marked, and area / energy per device; PNG and SVG, drawn by gnuplot run as a
 * subprocess. SB_ERR_NOT_FOUND if gnuplot is not installed, SB_ERR_IO if it fails.
 */
int sb_lifetime_plot(const struct sb_lifetime_result *res, const struct sb_projection *p,
                     const struct sb_memdev_lib *lib, const char *dir);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_LIFETIME_H */
