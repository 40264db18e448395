/* SPDX-License-Identifier: MIT */
/*
 * sb_hbm_bench: how fast the HBM2 board model runs. A benchmark, not a test: it prints figures.
 * Each scenario programs every port of the simulated U280 through the register map (the way a
 * host does), advances the model by the simulated duration in steps of 10 us, and reports the
 * AXI bursts simulated per CPU second of this thread, the simulated bandwidth, and the resident
 * memory.
 *
 * --digest adds a column: a hash (FNV-1a) of every burst the model simulated, as the request
 * hook sees it (times, address, port, ID, beats, direction, PC, hops, page state, response).
 * Two builds that print the same digests simulated the same bursts with the same timing: a
 * change to the model's speed must leave them unchanged. The hook costs time, so the rate of a
 * --digest run is not the model's.
 *
 *   sb_hbm_bench [--duration-us T] [--profile NAME] [--scenario N] [--digest]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sb_hbm_model.h"
#include "sb_regmap.h"
#include "stackbench/error.h"
#include "stackbench/util.h"

/* CPU time of this thread: the speed on one core, whatever else the machine runs. */
static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double rss_mib(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return (double)rss * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

struct scenario {
	const char *name;
	unsigned op, random, burst, stride;
	bool global; /* each port's working set spans its whole stack */
};

static const struct scenario scenarios[] = {
    {"read, linear, 512 B, own PC", SB_HBM_PORT_CONTROL_OP_READ, 0, 512, 512, false},
    {"read, random, 64 B, own PC", SB_HBM_PORT_CONTROL_OP_READ, 1, 64, 64, false},
    {"write, linear, 256 B, own PC", SB_HBM_PORT_CONTROL_OP_WRITE, 0, 256, 256, false},
    {"mix 50 %, random, 128 B, own PC", SB_HBM_PORT_CONTROL_OP_MIX, 1, 128, 128, false},
    {"read, random, 512 B, whole stack", SB_HBM_PORT_CONTROL_OP_READ, 1, 512, 512, true},
};

/* FNV-1a over the request records the hook sees. */
static void digest_add(void *ctx, const struct sb_hbm_model_request *q)
{
	const uint64_t v[] = {q->time_ps,
	                      q->first_ps,
	                      q->done_ps,
	                      q->addr,
	                      q->seq,
	                      (uint64_t)q->port | (uint64_t)q->id << 8 | (uint64_t)q->beats << 16 |
	                          (uint64_t)q->write << 24 | (uint64_t)q->pc << 32 |
	                          (uint64_t)q->hops << 40 | (uint64_t)q->page << 48 |
	                          (uint64_t)q->resp << 56};
	uint64_t *h = ctx;

	for (size_t i = 0; i < SB_ARRAY_SIZE(v); i++)
		for (unsigned k = 0; k < 64; k += 8) {
			*h ^= (v[i] >> k) & 0xFF;
			*h *= 0x100000001B3ull;
		}
}

static void w32(struct sb_hbm_model *m, uint32_t off, uint32_t v)
{
	if (sb_hbm_model_write32(m, off, v) < 0) {
		fprintf(stderr, "sb_hbm_bench: write at 0x%x: %s\n", off, sb_error_detail());
		exit(1);
	}
}

static uint64_t r64(struct sb_hbm_model *m, uint32_t off)
{
	uint32_t lo = 0, hi = 0;

	sb_hbm_model_read32(m, off, &lo);
	sb_hbm_model_read32(m, off + 4, &hi);
	return (uint64_t)hi << 32 | lo;
}

static int run(const char *profile, const struct scenario *sc, uint64_t dur_us, bool digest)
{
	uint64_t hash = 0xCBF29CE484222325ull;
	struct sb_hbm_model *m;
	uint32_t ports = 0, v = 0;
	uint64_t bursts = 0, bytes = 0, req0, req1;
	double c0, c1;
	int err;

	if ((err = sb_hbm_model_new(&m, profile, NULL, 0)) < 0)
		return err;
	if (digest)
		sb_hbm_model_set_request_hook(m, digest_add, &hash);
	sb_hbm_model_read32(m, SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_ENGINE, &v);
	ports = SB_FIELD_GET(SB_HBM_CARD_ENGINE_PORTS, v);
	for (uint32_t p = 0; p < ports; p++) {
		uint32_t b =
		    SB_REGSPACE_HBM2_HBM_PORT_OFFSET + p * SB_REGSPACE_HBM2_HBM_PORT_STRIDE;
		uint64_t pc_bytes = 256ull << 20,
		         start = sc->global ? (uint64_t)(p / 16) << 32 : (uint64_t)p * pc_bytes;
		uint64_t ws = sc->global ? 16 * pc_bytes : pc_bytes;

		w32(m, b + SB_HBM_PORT_START_ADDR_LO, (uint32_t)start);
		w32(m, b + SB_HBM_PORT_START_ADDR_HI, (uint32_t)(start >> 32));
		w32(m, b + SB_HBM_PORT_WS_SIZE_LO, (uint32_t)ws);
		w32(m, b + SB_HBM_PORT_WS_SIZE_HI, (uint32_t)(ws >> 32));
		w32(m, b + SB_HBM_PORT_BURST_BYTES, sc->burst);
		w32(m, b + SB_HBM_PORT_STRIDE, sc->stride);
		w32(m, b + SB_HBM_PORT_SEED, 0x1234567u + p);
		w32(m, SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_START_MASK,
		    ports == 32 ? 0xFFFFFFFFu : (1u << ports) - 1);
		w32(m, b + SB_HBM_PORT_CONTROL,
		    SB_FIELD_PREP(SB_HBM_PORT_CONTROL_OP, sc->op) |
		        SB_FIELD_PREP(SB_HBM_PORT_CONTROL_MODE, sc->random));
	}
	req0 = r64(m, SB_REGSPACE_HBM2_HBM_SIM_OFFSET + SB_HBM_SIM_REQUESTS);
	w32(m, SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_CONTROL,
	    SB_HBM_CARD_CONTROL_START_MASK);
	c0 = cpu();
	for (uint64_t t = 0; t < dur_us; t += 10)
		if ((err = sb_hbm_model_advance(m, 10000000ull)) < 0)
			goto out;
	c1 = cpu();
	req1 = r64(m, SB_REGSPACE_HBM2_HBM_SIM_OFFSET + SB_HBM_SIM_REQUESTS);
	for (uint32_t p = 0; p < ports; p++) {
		uint32_t b =
		    SB_REGSPACE_HBM2_HBM_PORT_OFFSET + p * SB_REGSPACE_HBM2_HBM_PORT_STRIDE;

		bytes += r64(m, b + SB_HBM_PORT_RD_BYTES) + r64(m, b + SB_HBM_PORT_WR_BYTES);
	}
	bursts = req1 - req0;
	printf("| %s | %u | %llu | %.2f | %.1f | %.1f |", sc->name, ports,
	       (unsigned long long)bursts, (double)bursts / (c1 - c0) / 1e6,
	       (double)bytes / ((double)dur_us * 1e3), rss_mib());
	if (digest)
		printf(" %016llx |", (unsigned long long)hash);
	printf("\n");
out:
	sb_hbm_model_free(m);
	return err;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"duration-us", required_argument, NULL, 'd'},
	    {"profile", required_argument, NULL, 'p'},
	    {"scenario", required_argument, NULL, 's'},
	    {"digest", no_argument, NULL, 'g'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *profile = "u280";
	uint64_t dur_us = 1000, only = 0;
	bool digest = false;
	int c, err;

	while ((c = getopt_long(argc, argv, "d:p:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (sb_parse_u64(optarg, "--duration-us", false, &dur_us) < 0 || !dur_us) {
				fprintf(stderr, "sb_hbm_bench: %s\n", sb_error_detail());
				return 2;
			}
			break;
		case 'p':
			profile = optarg;
			break;
		case 's':
			if (sb_parse_u64(optarg, "--scenario", false, &only) < 0 || !only ||
			    only > SB_ARRAY_SIZE(scenarios)) {
				fprintf(stderr, "sb_hbm_bench: --scenario: 1..%zu\n",
				        SB_ARRAY_SIZE(scenarios));
				return 2;
			}
			break;
		case 'g':
			digest = true;
			break;
		case 'h':
			printf("usage: sb_hbm_bench [--duration-us T] [--profile NAME] [--scenario "
			       "N] [--digest]\n");
			return 0;
		default:
			return 2;
		}
	}
	printf("Simulated %llu us per scenario, profile %s; CPU time of this thread.\n\n",
	       (unsigned long long)dur_us, profile);
	printf(
	    "| scenario | ports | AXI bursts simulated | M bursts / CPU-s | simulated GB/s | RSS "
	    "MiB |%s\n|---|---|---|---|---|---|%s\n",
	    digest ? " digest of the bursts |" : "", digest ? "---|" : "");
	for (size_t i = 0; i < SB_ARRAY_SIZE(scenarios); i++)
		if ((!only || i + 1 == only) &&
		    (err = run(profile, &scenarios[i], dur_us, digest)) < 0) {
			fprintf(stderr, "sb_hbm_bench: %s\n", sb_error_detail());
			return 1;
		}
	return 0;
}
