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
void lt_decode(const struct lt_decoder *d, const struct sb_trace_record *recs, size_t n,
               struct lt_op *ops);

/*
 * Apply decoded records (every record of the trace, in order): the engine applies the ops of
 * its own thread (its partition's thread) and counts the records' statistics of all. As
 * sb_lifetime_feed() otherwise.
 */
int lt_feed_ops(struct sb_lifetime *eng, const struct sb_trace_info *info, const struct lt_op *ops,
                size_t n);

#endif /* SB_LIFETIME_INTERNAL_H */
