/* SPDX-License-Identifier: MIT */
/*
 * The bridge engine (driver/bridge/bridge.c) on a block of memory standing in for the ivshmem
 * memory, serving the real board model. The backend records the writes that reach the model,
 * so the order in which guest stores are applied can be checked.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "sb_bridge_proto.h"
#include "sb_model.h"
#include "sb_regmap.h"
#include "stackbench/error.h"

#define SHM_LEN SB_BRIDGE_MIN_SIZE
#define T0 1000000000ull /* CLOCK_MONOTONIC at the start, ns */

static struct sb_model *model;
static struct sb_bridge *br;
static uint32_t *shm;
static uint32_t writes[64][2];
static unsigned nwrites;
static uint32_t seq;

static int rec_read(void *ctx, uint32_t off, uint32_t *v)
{
	return sb_model_read32(ctx, off, v);
}

static int rec_write(void *ctx, uint32_t off, uint32_t v)
{
	if (nwrites < 64) {
		writes[nwrites][0] = off;
		writes[nwrites][1] = v;
	}
	nwrites++;
	return sb_model_write32(ctx, off, v);
}

static int rec_advance(void *ctx, uint64_t dt_ps)
{
	return sb_model_advance(ctx, dt_ps);
}

static void setup(void)
{
	struct sb_bridge_backend be = {rec_read, rec_write, rec_advance, NULL};

	cr_assert_eq(sb_model_new(&model, NULL, NULL, 0), 0, "%s", sb_error_detail());
	shm = aligned_alloc(4096, SHM_LEN);
	cr_assert_not_null(shm);
	memset(shm, 0xEE, SHM_LEN);
	be.ctx = model;
	cr_assert_eq(sb_bridge_new(&br, shm, SHM_LEN, sb_model_regspace_size(model), &be, 100000,
	                           UINT64_MAX / 2, T0),
	             0, "%s", sb_error_detail());
	nwrites = 0;
	seq = 0;
}

static void teardown(void)
{
	sb_bridge_free(br);
	free(shm);
	sb_model_free(model);
}

TestSuite(bridge, .init = setup, .fini = teardown);

static uint32_t img(uint32_t off)
{
	return __atomic_load_n(&shm[(SB_BRIDGE_REGS_OFFSET + off) / 4], __ATOMIC_ACQUIRE);
}

static void guest_store(uint32_t off, uint32_t v)
{
	__atomic_store_n(&shm[(SB_BRIDGE_REGS_OFFSET + off) / 4], v, __ATOMIC_RELEASE);
}

static uint32_t ctrl(uint32_t off)
{
	return __atomic_load_n(&shm[(SB_BRIDGE_CTRL_OFFSET + off) / 4], __ATOMIC_ACQUIRE);
}

static void ctrl_store(uint32_t off, uint32_t v)
{
	__atomic_store_n(&shm[(SB_BRIDGE_CTRL_OFFSET + off) / 4], v, __ATOMIC_RELEASE);
}

static uint32_t model_rd(uint32_t off)
{
	uint32_t v;

	cr_assert_eq(sb_model_read32(model, off, &v), 0);
	return v;
}

/* One mailbox transaction, the bridge polled once at now_ns. Returns the status. */
static uint32_t mailbox(uint64_t now_ns, uint32_t op, uint32_t off, uint64_t val, uint64_t *res)
{
	ctrl_store(SB_BRIDGE_MB_OP, op);
	ctrl_store(SB_BRIDGE_MB_OFFSET, off);
	ctrl_store(SB_BRIDGE_MB_VALUE_LO, (uint32_t)val);
	ctrl_store(SB_BRIDGE_MB_VALUE_HI, (uint32_t)(val >> 32));
	ctrl_store(SB_BRIDGE_MB_REQ_SEQ, ++seq);
	cr_assert_gt(sb_bridge_poll(br, now_ns), 0);
	cr_assert_eq(ctrl(SB_BRIDGE_MB_ACK_SEQ), seq);
	if (res)
		*res = (uint64_t)ctrl(SB_BRIDGE_MB_RESULT_HI) << 32 | ctrl(SB_BRIDGE_MB_RESULT_LO);
	return ctrl(SB_BRIDGE_MB_STATUS);
}

#define BOARD SB_LAYOUT_BOARD_OFFSET
#define HMC SB_LAYOUT_HMC_CTRL_OFFSET
#define PORT(i) (SB_LAYOUT_GUPS_PORT_OFFSET + (i)*SB_LAYOUT_GUPS_PORT_STRIDE)

Test(bridge, publishes_the_register_image_and_control_page)
{
	cr_assert_eq(img(SB_BLK_TYPE), SB_BLK_FW_ID_TYPE);
	cr_assert_eq(img(SB_FW_ID_MAGIC), SB_REGMAP_MAGIC);
	cr_assert_eq(img(BOARD + SB_BOARD_PORT_COUNT), 9);
	cr_assert_eq(img(PORT(8) + SB_BLK_NEXT), SB_LAYOUT_SIM_CTRL_OFFSET,
	             "the last port leads to the simulator's own block");
	cr_assert_eq(img(SB_LAYOUT_SIM_CTRL_OFFSET + SB_BLK_NEXT), 0, "which ends the chain");
	cr_assert_eq(img(PORT(2) + SB_GUPS_PORT_ADDR_MASK_HI), 3);
	cr_assert_eq(ctrl(SB_BRIDGE_CTRL_MAGIC), SB_BRIDGE_MAGIC);
	cr_assert_eq(ctrl(SB_BRIDGE_CTRL_VERSION), SB_BRIDGE_VERSION);
	cr_assert_eq(ctrl(SB_BRIDGE_CTRL_REGS_SIZE), SB_REGMAP_SIZE);
	cr_assert_eq(ctrl(SB_BRIDGE_MB_ACK_SEQ), 0);
	cr_assert_eq(sb_bridge_poll(br, T0), 0, "nothing to do");
	cr_assert_eq(ctrl(SB_BRIDGE_CTRL_HEARTBEAT), 1);
	cr_assert_eq(nwrites, 0);
}

Test(bridge, image_store_reaches_the_model)
{
	guest_store(BOARD + SB_BOARD_SCRATCH, 0x12345678u);
	cr_assert_eq(sb_bridge_poll(br, T0), 1);
	cr_assert_eq(model_rd(BOARD + SB_BOARD_SCRATCH), 0x12345678u);
	cr_assert_eq(img(BOARD + SB_BOARD_SCRATCH), 0x12345678u);
	cr_assert_eq(sb_bridge_stats(br)->image_stores, 1);
	cr_assert_eq(sb_bridge_poll(br, T0), 0, "applied once only");
}

Test(bridge, configuration_before_command_within_one_poll)
{
	uint32_t ctl = SB_GUPS_PORT_CONTROL_ENABLE_MASK | SB_GUPS_PORT_CONTROL_START_MASK;

	/* The command word sits below the configuration words in the address space. */
	guest_store(PORT(0) + SB_GUPS_PORT_CONTROL, ctl);
	guest_store(PORT(0) + SB_GUPS_PORT_ADDR_MASK_LO, 0xFFFFFF80u);
	guest_store(PORT(0) + SB_GUPS_PORT_ADDR_MASK_HI, 0x1u);
	guest_store(HMC + SB_HMC_CTRL_RESET, SB_HMC_CTRL_RESET_PORTS_MASK);
	cr_assert_eq(sb_bridge_poll(br, T0), 4);
	cr_assert_eq(nwrites, 4);
	cr_assert_eq(writes[0][0], PORT(0) + SB_GUPS_PORT_ADDR_MASK_LO);
	cr_assert_eq(writes[1][0], PORT(0) + SB_GUPS_PORT_ADDR_MASK_HI);
	/* Commands in address order: reset ports, then start. */
	cr_assert_eq(writes[2][0], HMC + SB_HMC_CTRL_RESET);
	cr_assert_eq(writes[3][0], PORT(0) + SB_GUPS_PORT_CONTROL);
	cr_assert_eq(writes[3][1], ctl);
	/* Pulse bits and write-only words show their read value again. */
	cr_assert_eq(img(PORT(0) + SB_GUPS_PORT_CONTROL), SB_GUPS_PORT_CONTROL_ENABLE_MASK);
	cr_assert_eq(img(HMC + SB_HMC_CTRL_RESET), 0);
	cr_assert_eq(sb_bridge_poll(br, T0), 0);
}

Test(bridge, stores_to_read_only_words_are_undone)
{
	guest_store(BOARD + SB_BOARD_PORT_COUNT, 3);
	guest_store(SB_FW_ID_MAGIC, 0);
	cr_assert_eq(sb_bridge_poll(br, T0), 2);
	cr_assert_eq(img(BOARD + SB_BOARD_PORT_COUNT), 9);
	cr_assert_eq(img(SB_FW_ID_MAGIC), SB_REGMAP_MAGIC);
}

Test(bridge, model_time_follows_the_wall_clock)
{
	/* 1 ms at the profile's 187.5 MHz user clock; a refresh is due after 100 us. */
	cr_assert_eq(sb_bridge_poll(br, T0 + 1000000), 0);
	cr_assert_eq(img(BOARD + SB_BOARD_CYCLES_LO), 187500);
	cr_assert_eq(sb_model_now_ps(model), 1000000000ull);
}

Test(bridge, mailbox_is_exact)
{
	uint64_t v = 0;

	cr_assert_eq(mailbox(T0, SB_BRIDGE_OP_WRITE32, BOARD + SB_BOARD_SCRATCH, 0xCAFEF00Du, NULL),
	             SB_BRIDGE_ST_OK);
	cr_assert_eq(model_rd(BOARD + SB_BOARD_SCRATCH), 0xCAFEF00Du);
	cr_assert_eq(img(BOARD + SB_BOARD_SCRATCH), 0xCAFEF00Du, "the image follows at once");
	cr_assert_eq(mailbox(T0, SB_BRIDGE_OP_READ32, SB_FW_ID_MAGIC, 0, &v), SB_BRIDGE_ST_OK);
	cr_assert_eq(v, SB_REGMAP_MAGIC);
	cr_assert_eq(mailbox(T0, SB_BRIDGE_OP_WRITE64, PORT(4) + SB_GUPS_PORT_ADDR_MASK,
	                     0x00000002DEADBE80ull, NULL),
	             SB_BRIDGE_ST_OK);
	cr_assert_eq(mailbox(T0, SB_BRIDGE_OP_READ64, PORT(4) + SB_GUPS_PORT_ADDR_MASK, 0, &v),
	             SB_BRIDGE_ST_OK);
	cr_assert_eq(v, 0x00000002DEADBE80ull);
	cr_assert_eq(mailbox(T0, SB_BRIDGE_OP_WRITE32, HMC + SB_HMC_CTRL_RESET,
	                     SB_HMC_CTRL_RESET_CUBE_MASK, NULL),
	             SB_BRIDGE_ST_OK);
	cr_assert_eq(model_rd(HMC + SB_HMC_CTRL_STATUS) & SB_HMC_CTRL_STATUS_IN_RESET_MASK,
	             SB_HMC_CTRL_STATUS_IN_RESET_MASK, "the pulse acted on the model");
	cr_assert_eq(sb_bridge_stats(br)->mailbox_ops, 5);
}

Test(bridge, mailbox_keeps_the_64_bit_latch)
{
	const uint32_t lo = BOARD + SB_BOARD_CYCLES_LO, hi = BOARD + SB_BOARD_CYCLES_HI;
	/* 2^32 cycles at 187.5 MHz are 22.906 s: read the low word just before that. */
	uint64_t before = T0 + 22900000000ull, after = T0 + 30000000000ull, v;

	cr_assert_eq(mailbox(before, SB_BRIDGE_OP_READ32, lo, 0, &v), SB_BRIDGE_ST_OK);
	cr_assert_gt(v, 0xFF000000u);
	/* Time moves on and the image refresh reads the counter (high word now 1) ... */
	cr_assert_eq(sb_bridge_poll(br, after), 0);
	cr_assert_eq(img(hi), 1);
	/* ... but the mailbox user's high word is the one latched with its low word. */
	cr_assert_eq(mailbox(after, SB_BRIDGE_OP_READ32, hi, 0, &v), SB_BRIDGE_ST_OK);
	cr_assert_eq(v, 0);
	cr_assert_eq(mailbox(after, SB_BRIDGE_OP_READ64, lo, 0, &v), SB_BRIDGE_ST_OK);
	cr_assert_eq(v >> 32, 1);
}

Test(bridge, mailbox_orders_after_earlier_image_stores)
{
	uint64_t v = 0;

	/* A store into the image, then at once a doorbell: the store is applied first. */
	guest_store(BOARD + SB_BOARD_SCRATCH, 0x0BADCAFEu);
	cr_assert_eq(mailbox(T0, SB_BRIDGE_OP_READ32, BOARD + SB_BOARD_SCRATCH, 0, &v),
	             SB_BRIDGE_ST_OK);
	cr_assert_eq(v, 0x0BADCAFEu);
}

Test(bridge, mailbox_rejects_bad_requests)
{
	cr_assert_eq(mailbox(T0, SB_BRIDGE_OP_READ32, SB_REGMAP_SIZE, 0, NULL), SB_BRIDGE_ST_RANGE);
	cr_assert_eq(mailbox(T0, SB_BRIDGE_OP_READ32, 2, 0, NULL), SB_BRIDGE_ST_RANGE);
	cr_assert_eq(mailbox(T0, SB_BRIDGE_OP_READ64, SB_REGMAP_SIZE - 4, 0, NULL),
	             SB_BRIDGE_ST_RANGE);
	cr_assert_eq(mailbox(T0, 9, 0, 0, NULL), SB_BRIDGE_ST_BADOP);
	cr_assert_eq(sb_bridge_stats(br)->mailbox_errors, 4);
	cr_assert_eq(nwrites, 0);
}

Test(bridge, trace_rd_index_is_not_disturbed_by_the_image)
{
	const uint32_t idx = SB_LAYOUT_TRACE_OFFSET + SB_TRACE_RD_INDEX;

	guest_store(idx, 5);
	cr_assert_eq(sb_bridge_poll(br, T0 + 200000), 1);
	cr_assert_eq(model_rd(idx), 5);
	cr_assert_eq(img(idx), 5);
}

Test(bridge, free_withdraws_the_magic)
{
	sb_bridge_free(br);
	br = NULL;
	cr_assert_eq(ctrl(SB_BRIDGE_CTRL_MAGIC), 0);
}

Test(bridge, too_small_memory_is_refused)
{
	struct sb_bridge_backend be = {rec_read, rec_write, rec_advance, model};
	struct sb_bridge *b2;

	cr_assert_eq(sb_bridge_new(&b2, shm, 4096, SB_REGMAP_SIZE, &be, 1, 1, 0), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "4096 bytes of shared memory"), "%s",
	          sb_error_detail());
}
