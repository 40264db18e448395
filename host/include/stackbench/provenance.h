/* SPDX-License-Identifier: MIT */
/*
 * What produced a result: the build (version, git description, build type, sanitizers,
 * compiler), the host (name, kernel, OS), the board (URI, design version and build, register-map
 * hash and whether it matches this host's, PCI function, the transport's account: model profile
 * and its content hash on sim:, kernel module and interface versions on dev:), the instruments
 * (driver and connection string), the seed, whether the simulated board fast-forwarded, and when
 * it ran; under Slurm the job, array task and node, and for a shard of a campaign which one.
 * No machine's paths: results are shared. Stored with every campaign and every run of a point, printed in every JSON output
 * (docs/provenance.md).
 */
#ifndef STACKBENCH_PROVENANCE_H
#define STACKBENCH_PROVENANCE_H

#include <stdbool.h>
#include <stdint.h>

#include "stackbench/device.h"
#include "stackbench/point.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

struct sb_provenance {
	/* the build and the host */
	char version[16], git[64], build_type[24], sanitizers[32], compiler[80];
	char host[64], kernel[96], os[96];
	/* the board (have_device false: none) */
	bool have_device;
	struct sb_device_identity device;
	/* the instruments, "driver: connection" ("" when none) */
	char camera[200], meter[200], cooling[200];
	/* the Slurm job that ran it ($SLURM_JOB_ID ...; have_slurm false: not under Slurm) */
	bool have_slurm;
	char slurm_cluster[64], slurm_job[24], slurm_array_job[24], slurm_array_task[16];
	char slurm_node[64];
	char shard[24]; /* "I/N" for a run of one shard of a campaign; "" otherwise */
	/* the run */
	bool have_seed;
	uint64_t seed;
	int fast_forward;                     /* 1, 0, or -1 when unknown or not simulated */
	char started_at[32], finished_at[32]; /* UTC, ISO 8601; "" when unknown */
};

/* The build's and the host's facts (and the Slurm job's, under Slurm); everything else
 * empty. */
void sb_provenance_init(struct sb_provenance *p);
/* Add a board's identity. */
void sb_provenance_device(struct sb_provenance *p, struct sb_device *dev);
/* Add the instruments (any of them may be NULL). */
void sb_provenance_instruments(struct sb_provenance *p, const struct sb_point_instruments *in);
/* Add what a point's run says of itself: its seed, and fast-forward on a simulated board. */
void sb_provenance_point(struct sb_provenance *p, uint64_t seed, const struct sb_point_result *r);
/* The current time in UTC, ISO 8601 with milliseconds ("2026-12-01T14:20:01.123Z"). */
void sb_provenance_now(char *buf, size_t size);
/* As a JSON object (NULL when out of memory), to embed in another document. */
struct cJSON *sb_provenance_cjson(const struct sb_provenance *p);
/* As JSON text on one line (malloc'ed; NULL when out of memory). */
char *sb_provenance_json(const struct sb_provenance *p);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_PROVENANCE_H */
