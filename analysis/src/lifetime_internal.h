/* SPDX-License-Identifier: MIT */
/*
 * The lifetime engine's records once decoded (lifetime.c), shared with the runner that decodes
 * once for several engines (lifetime_run.c). Not installed.
 */
#ifndef SB_LIFETIME_INTERNAL_H
#define SB_LIFETIME_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackbench/lifetime.h"

/* Statuses and kind classes of the action table: statuses from 7 on act like 0 (none);
   kinds from 4 on are stores (class 4: not a write miss that bypasses). */
#define LT_ACT_STATUSES 7
#define LT_ACT_KINDS 5

/* The partition of an op whose address belongs to another shard (no thread of this one). */
#define LT_PART_NONE 0xffu

/* A record decoded: its action, its address as a key, its partition. 32 bytes. */
struct lt_op {
	uint64_t key;
	int64_t time;
	uint32_t bits;
	uint32_t sample;
	uint16_t sp;
	uint8_t act;  /* enum action of lifetime.c */
	uint8_t part; /* the thread its address belongs to, or LT_PART_NONE */
	uint32_t pad;
};

/* What decoding needs: the actions under a policy, each subpartition's key, the partition. */
struct lt_decoder {
	uint8_t act[LT_ACT_STATUSES][LT_ACT_KINDS];
	uint32_t nsp;
	struct sb_lifetime_partition part;
	bool all; /* one shard, one thread: no partition to compute */
	uint8_t shift[SB_TRACE_MAX_SUBPARTS];
	uint64_t unit_mask[SB_TRACE_MAX_SUBPARTS];
};

void lt_decoder_init(struct lt_decoder *d, enum sb_cache_policy policy,
                     const struct sb_lifetime_partition *p);
/* Take the subpartitions info describes (it may have grown). */
void lt_decoder_sync(struct lt_decoder *d, const struct sb_trace_info *info);

/* What every engine counts alike of one subpartition, counted once by lt_split(). */
struct lt_split_sp {
	int64_t cur, first;
	uint64_t read_ticks, write_ticks, windows;
	uint32_t window;
	bool started;
	bool r_now, w_now; /* the current time stamp has a read, a write */
};

struct lt_splitter {
	bool decided, windowed; /* as the engines decide (records with sample ids) */
	struct lt_split_sp sp[SB_TRACE_MAX_SUBPARTS];
};

/*
 * Decode n records and deal them to nthreads engines: lists[t] (room for n) gets the records
 * of thread t's addresses, and every engine every flush, skip and bypass and every record that
 * starts a new sample of its subpartition (windowed traces); counts[t] their number. What every
 * engine would count of the others' records (time stamps with a read, with a write, first and
 * last times, windows) the splitter counts itself (lt_split_result()). *used: the records dealt;
 * a record that names no subpartition, whose time is out of range or goes back ends them with
 * the engine's error. lists[nthreads] takes the records of other shards (room for n too).
 * The lists must be 16-byte aligned: the ops are stored past the cache (non-temporal stores).
 */
int lt_split(const struct lt_decoder *d, struct lt_splitter *sp, const struct sb_trace_info *info,
             const struct sb_trace_record *recs, size_t n, unsigned nthreads,
             struct lt_op *const *lists, size_t *counts, size_t *used);

/* Whether the engine reads the trace window by window, as decided by the splitter (before
 * the first records; otherwise decided from the trace's description at the first feed). */
void lt_set_windowed(struct sb_lifetime *eng, bool windowed);

/* Put what the splitter counted of every record into an engine's result, before merging. */
void lt_split_result(const struct lt_splitter *sp, struct sb_lifetime_result *res);

/*
 * Apply decoded records (every record of the trace, in order, or a thread's list of them from
 * lt_split()), records of the trace in all: the engine applies the ops of its own thread (its
 * partition's thread) and counts the records' statistics of all. As sb_lifetime_feed()
 * otherwise.
 */
int lt_feed_ops(struct sb_lifetime *eng, const struct sb_trace_info *info, const struct lt_op *ops,
                size_t n, size_t records);

#endif /* SB_LIFETIME_INTERNAL_H */
