/* SPDX-License-Identifier: MIT */
/*
 * Partial results of sharded analyses (docs/partials.md): `stackbench lifetimes|locality TRACE
 * --shard I/N --partial OUT` writes the part of the analysis that shard I of N is given, and
 * `--merge PARTIAL...` joins the N partials into the report one process would write. A partial
 * says what it is part of (the analysis, the trace's fingerprint, the options, the shard), so
 * that partials of another trace, other options, a missing or a duplicate shard, a truncated or
 * damaged file are refused with a message naming the file.
 */
#ifndef STACKBENCH_PARTIAL_H
#define STACKBENCH_PARTIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackbench/lifetime.h"
#include "stackbench/locality.h"
#include "stackbench/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Shards of one analysis at most. */
#define SB_PARTIAL_MAX_SHARDS 4096

/* The file format (docs/partials.md): its major version changes with any change of meaning. */
#define SB_PARTIAL_SCHEMA "stackbench-partial"
#define SB_PARTIAL_MAJOR 1
#define SB_PARTIAL_MINOR 0

enum sb_partial_kind {
	SB_PARTIAL_LIFETIMES = 1, /* a shard of the addresses: its engine's result */
	SB_PARTIAL_LOCALITY = 2,  /* a chunk of the records: its part */
};

/* What a partial is part of. */
struct sb_partial_meta {
	enum sb_partial_kind kind;
	uint32_t shard, nshards;
	enum sb_trace_format format;
	const char *const *inputs; /* the trace's inputs as given (owned by a read partial) */
	size_t ninputs;
	struct sb_trace_options topt;    /* clock, word and block sizes (the reading options) */
	bool sorted;                     /* the trace was read sorted (records go back in time) */
	enum sb_cache_policy policy;     /* lifetimes */
	struct sb_locality_options lopt; /* locality (the confidence rules are the merge's) */
	char fingerprint[33];            /* of the trace's bytes (sb_partial_fingerprint) */
	uint64_t bytes;                  /* the trace's bytes */
	uint64_t records;                /* the trace's records */
};

/*
 * The fingerprint of a trace source: its inputs' sizes and a hash of sampled content (the first
 * and last MiB of each file and 64 windows of 32 KiB between; the whole of a file under 4 MiB;
 * a folder's regular files, by name, recursively). SB_ERR_INVAL for standard input (it cannot
 * be read by several shards); errors of reading.
 */
int sb_partial_fingerprint(const struct sb_trace_source *src, char hex[33], uint64_t *bytes);

/* Write a partial of a lifetime analysis (res: the shard's engine result), atomically. */
int sb_partial_write_lifetimes(const char *path, const struct sb_partial_meta *meta,
                               const struct sb_lifetime_result *res);

/* Write a partial of a locality analysis (part: the shard's chunk), atomically. */
int sb_partial_write_locality(const char *path, const struct sb_partial_meta *meta,
                              const struct sb_trace_info *info,
                              const struct sb_locality_part *part);

/* A partial read back. */
struct sb_partial {
	char path[4096];
	struct sb_partial_meta meta;
	char generator[64];
	char *options; /* the options, as text: partials to merge must have equal ones */
	struct sb_trace_info info;
	struct sb_lifetime_result lifetimes; /* SB_PARTIAL_LIFETIMES */
	struct sb_locality_part *locality;   /* SB_PARTIAL_LOCALITY */
};

/*
 * Read a partial: SB_ERR_NOT_FOUND, SB_ERR_IO, SB_ERR_PARSE (not a partial, truncated, damaged:
 * the message names the file), SB_ERR_VERSION (another major version), SB_ERR_NOMEM. Release
 * with sb_partial_release().
 */
int sb_partial_read(const char *path, struct sb_partial *p);
/* The same from bytes in memory (tests, fuzzing); name is used in messages. */
int sb_partial_parse(const char *name, const void *data, size_t len, struct sb_partial *p);
void sb_partial_release(struct sb_partial *p);

/*
 * Check that partials are the N shards of one analysis of one trace with the same options,
 * each once, and sort them by shard. SB_ERR_MISMATCH naming the files otherwise.
 */
int sb_partial_check_set(struct sb_partial *parts, size_t n, enum sb_partial_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_PARTIAL_H */
