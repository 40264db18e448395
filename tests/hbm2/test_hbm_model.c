/* SPDX-License-Identifier: MIT */
/*
 * The HBM2 board model (fpga_hbm2/model) through its interface and the register map: the
 * register space a host walks, profiles and options with their errors, the engines' burst
 * sequence against the shared definition, run length and status, determinism, enable and
 * stop, the other stack, temperature-controlled refresh, the simulated controller's
 * configuration, time.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hbm_bench.h"
#include "stackbench/error.h"

#define CARD SB_REGSPACE_HBM2_HBM_CARD_OFFSET
#define SIM SB_REGSPACE_HBM2_HBM_SIM_OFFSET

Test(hbm_model, register_space_is_fw_id_card_trace_replay_then_32_ports_then_sim)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);
	uint32_t off = 0, v, n = 0;

	cr_assert_eq(sb_hbm_model_regspace_size(m), SB_REGSPACE_HBM2_SIZE);
	cr_assert_eq(hbm_r32(m, SB_FW_ID_MAGIC), SB_REGMAP_MAGIC);
	cr_assert_eq(hbm_r32(m, SB_FW_ID_REGMAP_HASH), SB_REGMAP_HASH);
	cr_assert_eq(hbm_r32(m, SB_FW_ID_REGMAP_SIZE), SB_REGSPACE_HBM2_SIZE);
	for (;;) {
		uint32_t type = hbm_r32(m, off + SB_BLK_TYPE);

		if (n == 0)
			cr_assert_eq(type, SB_BLK_FW_ID_TYPE);
		else if (n == 1)
			cr_assert_eq(type, SB_BLK_HBM_CARD_TYPE);
		else if (n == 2)
			cr_assert_eq(type, SB_BLK_TRACE_TYPE, "block 2 at 0x%x", off);
		else if (n == 3)
			cr_assert_eq(type, SB_BLK_HBM_REPLAY_TYPE, "block 3 at 0x%x", off);
		else if (n < 36)
			cr_assert_eq(type, SB_BLK_HBM_PORT_TYPE, "block %u at 0x%x", n, off);
		else
			cr_assert_eq(type, SB_BLK_HBM_SIM_TYPE);
		n++;
		off = hbm_r32(m, off + SB_BLK_NEXT);
		if (!off)
			break;
	}
	cr_assert_eq(n, 37, "blocks in the walk");
	v = hbm_r32(m, CARD + SB_HBM_CARD_ENGINE);
	cr_assert_eq(SB_FIELD_GET(SB_HBM_CARD_ENGINE_KIND, v), SB_HBM_CARD_ENGINE_KIND_HBM2_AXI);
	cr_assert_eq(SB_FIELD_GET(SB_HBM_CARD_ENGINE_PORTS, v), 32);
	cr_assert_eq(hbm_r32(m, CARD + SB_HBM_CARD_BOARD_ID), 0x0280);
	cr_assert_eq(hbm_r32(m, CARD + SB_HBM_CARD_AXI_CLOCK_HZ), 450000000u);
	cr_assert(hbm_r32(m, CARD + SB_HBM_CARD_FEATURES) & SB_HBM_CARD_FEATURES_SIMULATED_MASK);
	cr_assert_eq(
	    SB_FIELD_GET(SB_HBM_PORT_INFO_INDEX, hbm_r32(m, hbm_port_off(17) + SB_HBM_PORT_INFO)),
	    17);
	cr_assert_eq(
	    SB_FIELD_GET(SB_HBM_PORT_INFO_STACK, hbm_r32(m, hbm_port_off(17) + SB_HBM_PORT_INFO)),
	    1);
	cr_assert_eq(sb_hbm_model_read32(m, SB_REGSPACE_HBM2_SIZE, &v), SB_ERR_RANGE);
	cr_assert_eq(v, 0xFFFFFFFFu);
	cr_assert_eq(sb_hbm_model_write32(m, SB_REGSPACE_HBM2_SIZE + 8, 1), SB_ERR_RANGE);
	sb_hbm_model_free(m);
}

Test(hbm_model, fewer_ports_end_the_chain_earlier)
{
	const char *opts[] = {"ports=4", NULL};
	struct sb_hbm_model *m = hbm_bench_new("u280", opts);
	uint32_t last = hbm_port_off(3);

	cr_assert_eq(SB_FIELD_GET(SB_HBM_CARD_ENGINE_PORTS, hbm_r32(m, CARD + SB_HBM_CARD_ENGINE)),
	             4);
	cr_assert_eq(hbm_r32(m, last + SB_BLK_NEXT), SIM);
	cr_assert_eq(hbm_r32(m, hbm_port_off(4) + SB_BLK_TYPE), 0, "port 4 is a hole");
	sb_hbm_model_free(m);
}

Test(hbm_model, profiles_u50_and_u55c_are_files)
{
	struct sb_hbm_model *m = hbm_bench_new("u55c", NULL);

	cr_assert_eq(hbm_r32(m, CARD + SB_HBM_CARD_BOARD_ID), 0x055C);
	cr_assert_eq(
	    SB_FIELD_GET(SB_HBM_CARD_GEOMETRY_PC_MB, hbm_r32(m, CARD + SB_HBM_CARD_GEOMETRY)), 512);
	cr_assert_eq(SB_FIELD_GET(SB_HBM_CARD_GEOMETRY_BANKS_PER_PC,
	                          hbm_r32(m, CARD + SB_HBM_CARD_GEOMETRY)),
	             32);
	sb_hbm_model_free(m);
	m = hbm_bench_new("u50", NULL);
	cr_assert_eq(hbm_r32(m, CARD + SB_HBM_CARD_BOARD_ID), 0x0050);
	cr_assert_str_eq(sb_hbm_model_profile_name(m), "u50");
	sb_hbm_model_free(m);
}

Test(hbm_model, bad_profiles_and_options_are_named)
{
	struct sb_hbm_model *m;
	struct sb_hbm_model_opt bad[] = {{"frobs", "3"}}, badv[] = {{"addr_map", "zigzag"}};
	char dir[] = "/tmp/sb_hbm_prof_XXXXXX", path[256], line[512];
	FILE *in, *out;
	int lineno = 0;

	cr_assert_eq(sb_hbm_model_new(&m, "nothere", NULL, 0), SB_ERR_NOT_FOUND);
	cr_assert_eq(sb_hbm_model_new(&m, NULL, bad, 1), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "unknown sim option 'frobs'"), "%s", sb_error_detail());
	cr_assert_eq(sb_hbm_model_new(&m, NULL, badv, 1), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "zigzag"), "%s", sb_error_detail());
	/* a copy of u280.yaml with an inconsistent timing: the file and the section named */
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/bad.yaml", dir);
	in = fopen(SB_HBM_PROFILES "/u280.yaml", "r");
	out = fopen(path, "w");
	cr_assert(in && out);
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		if (!strncmp(line, "  tras_ns:", 10))
			snprintf(line, sizeof(line), "  tras_ns: 90\n");
		fputs(line, out);
	}
	fclose(in);
	fclose(out);
	cr_assert_eq(sb_hbm_model_new(&m, path, NULL, 0), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "bad.yaml") && strstr(sb_error_detail(), "tRC >= tRAS"),
	          "%s", sb_error_detail());
	unlink(path);
	rmdir(dir);
}

struct seq_log {
	struct sb_hbm_model_request q[4096];
	unsigned n;
};

static void logger(void *ctx, const struct sb_hbm_model_request *q)
{
	struct seq_log *l = ctx;

	if (l->n < 4096)
		l->q[l->n++] = *q;
}

Test(hbm_model, bursts_follow_the_shared_definition_and_run_length)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);
	static struct seq_log log;
	struct sb_hbm_cfg c = {.start_addr = 0x10001F40,
	                       .ws_size = 0x3000,
	                       .run_len = 300,
	                       .burst_bytes = 1000,
	                       .outstanding = 5,
	                       .stride = 4000,
	                       .mix_writes = 100,
	                       .seed = 9,
	                       .op = SB_HBM_OP_MIX};
	struct sb_hbm_gen g;
	uint32_t b = hbm_port_off(1);
	uint64_t rd = 0, wr = 0;

	sb_hbm_model_set_request_hook(m, logger, &log);
	hbm_w32(m, b + SB_HBM_PORT_START_ADDR_LO, (uint32_t)c.start_addr);
	hbm_w32(m, b + SB_HBM_PORT_WS_SIZE_LO, (uint32_t)c.ws_size);
	hbm_w32(m, b + SB_HBM_PORT_RUN_LEN_LO, (uint32_t)c.run_len);
	hbm_w32(m, b + SB_HBM_PORT_BURST_BYTES, c.burst_bytes);
	hbm_w32(m, b + SB_HBM_PORT_OUTSTANDING, c.outstanding);
	hbm_w32(m, b + SB_HBM_PORT_STRIDE, c.stride);
	hbm_w32(m, b + SB_HBM_PORT_MIX_WRITES, c.mix_writes);
	hbm_w32(m, b + SB_HBM_PORT_SEED, c.seed);
	hbm_w32(m, b + SB_HBM_PORT_CONTROL,
	        SB_HBM_PORT_CONTROL_ENABLE_MASK | SB_HBM_PORT_CONTROL_START_MASK |
	            SB_FIELD_PREP(SB_HBM_PORT_CONTROL_OP, SB_HBM_PORT_CONTROL_OP_MIX));
	cr_assert_eq(sb_hbm_model_advance(m, 200000000ull), 0); /* 200 us */
	sb_hbm_gen_start(&g, &c);
	for (unsigned i = 0; i < log.n; i++) {
		struct sb_hbm_burst x;

		cr_assert(sb_hbm_gen_more(&g), "burst %u beyond run_len", i);
		sb_hbm_gen_next(&g, &x);
		cr_assert_eq(log.q[i].addr, x.addr, "burst %u", i);
		cr_assert_eq(log.q[i].beats, x.beats, "burst %u", i);
		cr_assert_eq(log.q[i].write, x.write, "burst %u", i);
		cr_assert_eq(log.q[i].id, x.id, "burst %u", i);
		cr_assert_eq(log.q[i].port, 1);
		cr_assert(log.q[i].first_ps > log.q[i].time_ps &&
		          log.q[i].done_ps >= log.q[i].first_ps);
		if (x.write)
			wr += 32u * x.beats;
		else
			rd += 32u * x.beats;
	}
	cr_assert(!sb_hbm_gen_more(&g), "the model stopped early after %u bursts", log.n);
	cr_assert_eq(hbm_r64(m, b + SB_HBM_PORT_TXNS), 300);
	cr_assert_eq(hbm_r64(m, b + SB_HBM_PORT_RD_BYTES), rd);
	cr_assert_eq(hbm_r64(m, b + SB_HBM_PORT_WR_BYTES), wr);
	cr_assert_eq(hbm_r32(m, b + SB_HBM_PORT_STATUS),
	             SB_HBM_PORT_STATUS_DONE_MASK | SB_HBM_PORT_STATUS_IDLE_MASK);
	cr_assert_gt(hbm_r64(m, b + SB_HBM_PORT_ACTIVE_CYCLES_LO), 0);
	cr_assert_leq(SB_FIELD_GET(SB_HBM_PORT_IDS_PEAK, hbm_r32(m, b + SB_HBM_PORT_IDS)), 5);
	sb_hbm_model_free(m);
}

static void run_point(uint64_t seed, uint64_t out[4])
{
	char opt[32];
	const char *opts[] = {opt, NULL};
	struct sb_hbm_model *m;
	struct hbm_port_prog p[32];
	struct hbm_meas r;

	snprintf(opt, sizeof(opt), "seed=%llu", (unsigned long long)seed);
	m = hbm_bench_new(NULL, opts);
	for (unsigned i = 0; i < 32; i++)
		p[i] = hbm_prog_own(i, SB_HBM_OP_MIX, true, 128);
	hbm_bench_run(m, p, 32, 10, 50, &r);
	out[0] = r.rd_bytes[0];
	out[1] = r.wr_bytes[7];
	out[2] = (uint64_t)(r.rd_lat_mean[3] * 1000);
	out[3] = hbm_r64(m, SIM + SB_HBM_SIM_REFRESHES);
	sb_hbm_model_free(m);
}

Test(hbm_model, same_seed_same_results)
{
	uint64_t a[4], b[4], c[4];

	run_point(1, a);
	run_point(1, b);
	run_point(2, c);
	cr_assert_eq(memcmp(a, b, sizeof(a)), 0, "two runs with seed 1 differ");
	/* the seed moves the refresh phases: something differs */
	cr_assert(memcmp(a, c, sizeof(a)) != 0, "seeds 1 and 2 give identical results");
}

Test(hbm_model, enable_cleared_stops_issue_and_card_stop_stops_all)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);
	uint32_t b = hbm_port_off(2);
	uint64_t n;

	hbm_w32(m, b + SB_HBM_PORT_CONTROL,
	        SB_HBM_PORT_CONTROL_ENABLE_MASK | SB_HBM_PORT_CONTROL_START_MASK);
	cr_assert_eq(sb_hbm_model_advance(m, 5000000ull), 0);
	cr_assert(hbm_r32(m, b + SB_HBM_PORT_STATUS) & SB_HBM_PORT_STATUS_RUNNING_MASK);
	hbm_w32(m, b + SB_HBM_PORT_CONTROL, 0);
	cr_assert_eq(sb_hbm_model_advance(m, 5000000ull), 0);
	n = hbm_r64(m, b + SB_HBM_PORT_RD_BURSTS);
	cr_assert_eq(sb_hbm_model_advance(m, 5000000ull), 0);
	cr_assert_eq(hbm_r64(m, b + SB_HBM_PORT_RD_BURSTS), n);
	cr_assert(hbm_r32(m, b + SB_HBM_PORT_STATUS) & SB_HBM_PORT_STATUS_IDLE_MASK);
	cr_assert(!(hbm_r32(m, b + SB_HBM_PORT_STATUS) & SB_HBM_PORT_STATUS_RUNNING_MASK));
	/* enable again: the sequence goes on */
	hbm_w32(m, b + SB_HBM_PORT_CONTROL, SB_HBM_PORT_CONTROL_ENABLE_MASK);
	cr_assert_eq(sb_hbm_model_advance(m, 5000000ull), 0);
	cr_assert_gt(hbm_r64(m, b + SB_HBM_PORT_RD_BURSTS), n);
	/* the card's stop: every port of start_mask */
	hbm_w32(m, CARD + SB_HBM_CARD_START_MASK, 1u << 2);
	hbm_w32(m, CARD + SB_HBM_CARD_CONTROL, SB_HBM_CARD_CONTROL_STOP_MASK);
	cr_assert(!(hbm_r32(m, b + SB_HBM_PORT_CONTROL) & SB_HBM_PORT_CONTROL_ENABLE_MASK));
	cr_assert_eq(sb_hbm_model_advance(m, 5000000ull), 0);
	n = hbm_r64(m, b + SB_HBM_PORT_RD_BURSTS);
	cr_assert_eq(sb_hbm_model_advance(m, 5000000ull), 0);
	cr_assert_eq(hbm_r64(m, b + SB_HBM_PORT_RD_BURSTS), n);
	sb_hbm_model_free(m);
}

Test(hbm_model, the_other_stack_is_a_decode_error)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);
	uint32_t b = hbm_port_off(0);

	hbm_w32(m, b + SB_HBM_PORT_START_ADDR_HI, 1); /* stack 1 from a stack-0 port */
	hbm_w32(m, b + SB_HBM_PORT_RUN_LEN_LO, 10);
	hbm_w32(m, b + SB_HBM_PORT_CONTROL,
	        SB_HBM_PORT_CONTROL_ENABLE_MASK | SB_HBM_PORT_CONTROL_START_MASK);
	cr_assert_eq(sb_hbm_model_advance(m, 20000000ull), 0);
	cr_assert_eq(hbm_r32(m, b + SB_HBM_PORT_ERRORS), 10);
	cr_assert_eq(SB_FIELD_GET(SB_HBM_PORT_STATUS_RESP, hbm_r32(m, b + SB_HBM_PORT_STATUS)), 3);
	cr_assert(hbm_r32(m, b + SB_HBM_PORT_STATUS) & SB_HBM_PORT_STATUS_ERROR_MASK);
	sb_hbm_model_free(m);
}

static uint64_t refreshes_in(struct sb_hbm_model *m, uint64_t us)
{
	uint64_t r0 = hbm_r64(m, SIM + SB_HBM_SIM_REFRESHES);

	cr_assert_eq(sb_hbm_model_advance(m, us * 1000000ull), 0);
	return hbm_r64(m, SIM + SB_HBM_SIM_REFRESHES) - r0;
}

Test(hbm_model, refresh_runs_twice_as_often_above_85_c)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);
	uint64_t cool, hot, off;
	struct sb_hbm_model_activity a;

	sb_hbm_model_set_temperature(m, 50);
	cool = refreshes_in(m, 390);
	/* 32 pseudo channels x 390 us / 3.9 us */
	cr_assert(cool >= 3190 && cool <= 3210, "%llu refreshes", (unsigned long long)cool);
	sb_hbm_model_set_temperature(m, 90);
	cr_assert_eq(
	    SB_FIELD_GET(SB_HBM_CARD_HBM_TEMP_STACK0_C, hbm_r32(m, CARD + SB_HBM_CARD_HBM_TEMP)),
	    90);
	hot = refreshes_in(m, 390);
	cr_assert(hot >= 2 * cool - 70 && hot <= 2 * cool + 70, "%llu vs %llu",
	          (unsigned long long)hot, (unsigned long long)cool);
	/* without temperature-controlled refresh the rate stays */
	hbm_w32(m, SIM + SB_HBM_SIM_MC_CONFIG,
	        hbm_r32(m, SIM + SB_HBM_SIM_MC_CONFIG) & ~SB_HBM_SIM_MC_CONFIG_TEMP_REFRESH_MASK);
	cr_assert(
	    !(hbm_r32(m, CARD + SB_HBM_CARD_MC_CONFIG) & SB_HBM_CARD_MC_CONFIG_TEMP_REFRESH_MASK));
	off = refreshes_in(m, 390);
	cr_assert(off >= cool - 40 && off <= cool + 40, "%llu vs %llu", (unsigned long long)off,
	          (unsigned long long)cool);
	sb_hbm_model_get_activity(m, &a);
	cr_assert_geq(a.refreshes, cool + hot + off);
	sb_hbm_model_free(m);
}

Test(hbm_model, the_simulated_controller_configuration_shows_in_the_card_block)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);
	uint32_t v =
	    SB_FIELD_PREP(SB_HBM_SIM_MC_CONFIG_ADDR_MAP, SB_HBM_SIM_MC_CONFIG_ADDR_MAP_RCB) |
	    SB_FIELD_PREP(SB_HBM_SIM_MC_CONFIG_PAGE, SB_HBM_SIM_MC_CONFIG_PAGE_CLOSED) |
	    SB_FIELD_PREP(SB_HBM_SIM_MC_CONFIG_REFRESH, SB_HBM_SIM_MC_CONFIG_REFRESH_SINGLE_BANK);

	cr_assert_eq(hbm_r32(m, CARD + SB_HBM_CARD_MC_CONFIG), SB_HBM_CARD_MC_CONFIG_RESET);
	hbm_w32(m, SIM + SB_HBM_SIM_MC_CONFIG, v);
	cr_assert_eq(hbm_r32(m, CARD + SB_HBM_CARD_MC_CONFIG), v);
	cr_assert_eq(hbm_r32(m, SIM + SB_HBM_SIM_MC_CONFIG), v);
	sb_hbm_model_free(m);
	/* ... and from a sim: option */
	{
		const char *opts[] = {"addr_map=brc", "page=closed", NULL};

		m = hbm_bench_new(NULL, opts);
		v = hbm_r32(m, CARD + SB_HBM_CARD_MC_CONFIG);
		cr_assert_eq(SB_FIELD_GET(SB_HBM_CARD_MC_CONFIG_ADDR_MAP, v),
		             SB_HBM_CARD_MC_CONFIG_ADDR_MAP_BRC);
		cr_assert_eq(SB_FIELD_GET(SB_HBM_CARD_MC_CONFIG_PAGE, v),
		             SB_HBM_CARD_MC_CONFIG_PAGE_CLOSED);
		sb_hbm_model_free(m);
	}
}

Test(hbm_model, time_is_the_sum_of_the_advances)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);
	uint64_t c0, c1;

	for (int i = 0; i < 1000; i++)
		cr_assert_eq(sb_hbm_model_advance(m, 1234), 0);
	cr_assert_eq(sb_hbm_model_now_ps(m), 1234000);
	c0 = hbm_r64(m, CARD + SB_HBM_CARD_CYCLES_LO);
	cr_assert_eq(sb_hbm_model_advance(m, 1000000), 0); /* 1 us = 450 cycles */
	c1 = hbm_r64(m, CARD + SB_HBM_CARD_CYCLES_LO);
	cr_assert(c1 - c0 == 450 || c1 - c0 == 449 || c1 - c0 == 451, "%llu cycles",
	          (unsigned long long)(c1 - c0));
	sb_hbm_model_free(m);
}
