/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "hbm_bench.h"
#include "stackbench/error.h"

uint32_t hbm_port_off(unsigned port)
{
	return SB_REGSPACE_HBM2_HBM_PORT_OFFSET + port * SB_REGSPACE_HBM2_HBM_PORT_STRIDE;
}

uint32_t hbm_r32(struct sb_hbm_model *m, uint32_t off)
{
	uint32_t v = 0;

	cr_assert_eq(sb_hbm_model_read32(m, off, &v), 0, "read 0x%x: %s", off, sb_error_detail());
	return v;
}

uint64_t hbm_r64(struct sb_hbm_model *m, uint32_t off)
{
	uint64_t lo = hbm_r32(m, off);

	return lo | (uint64_t)hbm_r32(m, off + 4) << 32;
}

void hbm_w32(struct sb_hbm_model *m, uint32_t off, uint32_t v)
{
	cr_assert_eq(sb_hbm_model_write32(m, off, v), 0, "write 0x%x: %s", off, sb_error_detail());
}

struct sb_hbm_model *hbm_bench_new(const char *profile, const char *const *opts)
{
	struct sb_hbm_model_opt o[8];
	char kv[8][64];
	size_t n = 0;
	struct sb_hbm_model *m;

	for (; opts && opts[n] && n < 8; n++) {
		char *eq;

		snprintf(kv[n], sizeof(kv[n]), "%s", opts[n]);
		eq = strchr(kv[n], '=');
		cr_assert(eq, "option %s", opts[n]);
		*eq = '\0';
		o[n].key = kv[n];
		o[n].value = eq + 1;
	}
	cr_assert_eq(sb_hbm_model_new(&m, profile, o, n), 0, "model: %s", sb_error_detail());
	return m;
}

struct hbm_port_prog hbm_prog_own(unsigned port, uint8_t op, bool random, uint32_t burst)
{
	struct hbm_port_prog p = {
	    .on = true,
	    .op = op,
	    .random = random,
	    .burst = burst,
	    .stride = burst,
	    .outstanding = 64,
	    .mix = 128,
	    .start = (uint64_t)(port / 16) << 32 | (uint64_t)(port % 16) << 28,
	    .ws = 1ull << 28,
	};

	return p;
}

void hbm_bench_run(struct sb_hbm_model *m, const struct hbm_port_prog *prog, unsigned nports,
                   uint64_t warm_us, uint64_t meas_us, struct hbm_meas *out)
{
	uint64_t b0[32] = {0}, s0[32] = {0}, c0[32] = {0};
	uint32_t mask = 0;

	memset(out, 0, sizeof(*out));
	for (unsigned p = 0; p < nports; p++) {
		uint32_t b = hbm_port_off(p);

		if (!prog[p].on)
			continue;
		mask |= 1u << p;
		hbm_w32(m, b + SB_HBM_PORT_BURST_BYTES, prog[p].burst);
		hbm_w32(m, b + SB_HBM_PORT_STRIDE, prog[p].stride);
		hbm_w32(m, b + SB_HBM_PORT_OUTSTANDING, prog[p].outstanding);
		hbm_w32(m, b + SB_HBM_PORT_MIX_WRITES, prog[p].mix);
		hbm_w32(m, b + SB_HBM_PORT_START_ADDR_LO, (uint32_t)prog[p].start);
		hbm_w32(m, b + SB_HBM_PORT_START_ADDR_HI, (uint32_t)(prog[p].start >> 32));
		hbm_w32(m, b + SB_HBM_PORT_WS_SIZE_LO, (uint32_t)prog[p].ws);
		hbm_w32(m, b + SB_HBM_PORT_WS_SIZE_HI, (uint32_t)(prog[p].ws >> 32));
		hbm_w32(m, b + SB_HBM_PORT_RUN_LEN_LO, 0);
		hbm_w32(m, b + SB_HBM_PORT_RUN_LEN_HI, 0);
		hbm_w32(m, b + SB_HBM_PORT_SEED, 0x5EED0000u + p);
		hbm_w32(m, b + SB_HBM_PORT_CONTROL,
		        SB_FIELD_PREP(SB_HBM_PORT_CONTROL_OP, prog[p].op) |
		            SB_FIELD_PREP(SB_HBM_PORT_CONTROL_MODE, prog[p].random));
	}
	hbm_w32(m, SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_START_MASK, mask);
	hbm_w32(m, SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_CONTROL,
	        SB_HBM_CARD_CONTROL_START_MASK);
	cr_assert_eq(sb_hbm_model_advance(m, warm_us * 1000000ull), 0, "%s", sb_error_detail());
	for (unsigned p = 0; p < nports; p++) {
		uint32_t b = hbm_port_off(p);

		b0[p] = hbm_r64(m, b + SB_HBM_PORT_RD_BYTES) + hbm_r64(m, b + SB_HBM_PORT_WR_BYTES);
		s0[p] = hbm_r64(m, b + SB_HBM_PORT_RD_LAT_SUM);
		c0[p] = hbm_r64(m, b + SB_HBM_PORT_RD_LAT_COUNT);
	}
	cr_assert_eq(sb_hbm_model_advance(m, meas_us * 1000000ull), 0, "%s", sb_error_detail());
	for (unsigned p = 0; p < nports; p++) {
		uint32_t b = hbm_port_off(p);
		uint64_t rd = hbm_r64(m, b + SB_HBM_PORT_RD_BYTES),
		         wr = hbm_r64(m, b + SB_HBM_PORT_WR_BYTES);
		uint64_t s = hbm_r64(m, b + SB_HBM_PORT_RD_LAT_SUM) - s0[p];
		uint64_t c = hbm_r64(m, b + SB_HBM_PORT_RD_LAT_COUNT) - c0[p];

		if (!prog[p].on)
			continue;
		out->rd_bytes[p] = rd;
		out->wr_bytes[p] = wr;
		out->gbps[p] = (double)(rd + wr - b0[p]) / ((double)meas_us * 1e3);
		out->total_gbps += out->gbps[p];
		out->rd_lat_mean[p] = c ? (double)s / (double)c : 0;
		out->rd_lat_min[p] = hbm_r32(m, b + SB_HBM_PORT_RD_LAT_MIN);
		out->rd_lat_max[p] = hbm_r32(m, b + SB_HBM_PORT_RD_LAT_MAX);
		out->errors[p] = hbm_r32(m, b + SB_HBM_PORT_ERRORS);
	}
	/* stop them all (a later run starts again) */
	hbm_w32(m, SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_CONTROL,
	        SB_HBM_CARD_CONTROL_STOP_MASK);
	cr_assert_eq(sb_hbm_model_advance(m, 20000000ull), 0, "%s", sb_error_detail());
}
