/* SPDX-License-Identifier: MIT */
/*
 * sb_make_sampled_trace OUT.sbt [BURSTS] [EXECUTED_PER_RECORD]: a measured-like trace made with
 * the writer API, as a capture on the board writes it: 32 vault subpartitions (the vault decoded
 * from address bits 7..11), bursts of 1024 back-to-back records (sample id = burst) separated by
 * gaps of 18750 ticks of a 187.5 MHz bench clock, port, latency and size per record; the
 * capture description and the per-vault executed counts known only at the end and written with
 * sb_trace_writer_update(). Each vault's addresses are written then read a few records later,
 * some rewritten within the burst, so that lifetimes end inside bursts and others are cut by
 * the gaps. For the integration test of `lifetimes` and `locality` on sampled traces.
 */
#include <stdio.h>
#include <stdlib.h>

#include "stackbench/error.h"
#include "stackbench/trace.h"

#define VAULTS 32
#define BURST 1024

int main(int argc, char **argv)
{
	struct sb_trace_info info;
	struct sb_trace_writer *w;
	struct sb_trace_record rec[BURST];
	uint64_t bursts = argc > 2 ? strtoull(argv[2], NULL, 10) : 64;
	uint64_t per = argc > 3 ? strtoull(argv[3], NULL, 10) : 97;
	uint64_t vault_records[VAULTS] = {0}, x = 0x9e3779b97f4a7c15ull;
	int64_t t = 0;
	char key[32], value[32];
	int err;

	if (argc < 2 || bursts == 0 || per == 0) {
		fprintf(stderr,
		        "usage: sb_make_sampled_trace OUT.sbt [BURSTS] [EXECUTED_PER_RECORD]\n");
		return 2;
	}
	sb_trace_info_init(&info, "stackbench-capture", 187.5e6, "cycle");
	for (int v = 0; v < VAULTS; v++) {
		char name[16];

		snprintf(name, sizeof(name), "vault%d", v);
		if (sb_trace_info_subpart(&info, name, SB_SUBPART_SCRATCHPAD, 1, 32) < 0)
			return 1;
	}
	info.fields = SB_FIELD_UNIT | SB_FIELD_SAMPLE | SB_FIELD_LATENCY;
	sb_trace_info_set_attr(&info, "board", "AC-510 (made by the test)");
	sb_trace_info_set_attr(&info, "addr_mapping", "vault = addr[11:7]");
	if ((err = sb_trace_writer_open(&w, SB_TRACE_SBT, argv[1], &info)) < 0)
		goto fail;
	for (uint64_t b = 0; b < bursts; b++) {
		for (int i = 0; i < BURST; i++) {
			uint64_t a;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* a working set of 2048 lines (4096 in every fourth burst) */
			a = ((x >> 20) % (b % 4 ? 2048 : 4096)) << 7;
			rec[i] = (struct sb_trace_record){
			    .time = t,
			    .addr = a,
			    .subpart = (uint16_t)((a >> 7) & (VAULTS - 1)),
			    .size = 32u << (x % 3),
			    .kind = (uint8_t)(x % 3 == 0 ? SB_ACC_WRITE : SB_ACC_READ),
			    .unit = (uint32_t)(x >> 40) % 9,
			    .sample = (uint32_t)b,
			    .latency = 100 + (uint32_t)(x >> 50) % 200};
			vault_records[rec[i].subpart]++;
			t += 1 + (int64_t)(x >> 60) % 2;
		}
		if ((err = sb_trace_write(w, &info, rec, BURST)) < 0)
			goto fail_w;
		t += 18750; /* the gap */
	}
	/* known at the end of the capture: the counters */
	info.capture = (struct sb_trace_capture){.sampled = 1,
	                                         .burst_records = BURST,
	                                         .gap_ticks = 18750,
	                                         .executed = bursts * BURST * per,
	                                         .captured = bursts * BURST,
	                                         .bursts = bursts,
	                                         .start = 0,
	                                         .end = t};
	for (int v = 0; v < VAULTS; v += 8) {
		snprintf(key, sizeof(key), "executed.vault%d", v);
		snprintf(value, sizeof(value), "%llu",
		         (unsigned long long)(vault_records[v] * per));
		sb_trace_info_set_attr(&info, key, value);
	}
	if ((err = sb_trace_writer_update(w, &info)) < 0)
		goto fail_w;
	if ((err = sb_trace_writer_close(w)) < 0)
		goto fail;
	return 0;
fail_w:
	sb_trace_writer_abort(w);
fail:
	fprintf(stderr, "sb_make_sampled_trace: %s\n", sb_error_detail());
	return 1;
}
