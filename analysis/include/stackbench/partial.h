/* SPDX-License-Identifier: MIT */
/*
 * Partial results of sharded analyses (docs/partials.md): `stackbench lifetimes|locality TRACE
 * --shard I/N --partial OUT` writes the part of the analysis shard I of N is given, and
 * `--merge` joins the N partials into the report one process would write.
 */
#ifndef STACKBENCH_PARTIAL_H
#define STACKBENCH_PARTIAL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Shards of one analysis at most. */
#define SB_PARTIAL_MAX_SHARDS 4096

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_PARTIAL_H */
