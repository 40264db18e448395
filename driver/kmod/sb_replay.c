// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stackbench PCIe driver: trace replay from the replay buffer.
 *
 * The board's replay block reads request descriptors by DMA from a ring in host memory:
 * 2^replay.ring_log2 descriptors of replay.desc_size bytes at replay.ring_addr. Whoever writes
 * those two registers decides which host memory the board reads (and, through the requests it
 * issues and the trace it records, shows), so they are the driver's (docs/driver.md, "Trust
 * model"): the driver allocates a buffer of its own for the ring (sb_dma.c, DMA_TO_DEVICE; a
 * second buffer beside the trace buffer, so that a replay can be captured by DMA), programs
 * the registers at probe and through SB_IOC_REPLAY_DMA with rings inside it only, and
 * SB_IOC_REG_ACCESS refuses writes to them. Userspace writes descriptors through a mapping of
 * the buffer and hands them over with SB_REPLAY_DMA_SUBMIT.
 */
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/module.h>

#include <linux/stackbench.h>

#include "sb_drv.h"
#include "sb_regmap.h"

/* 4 KiB (one page) to 4096 KiB (x86-64's largest page allocation). */
#define SB_REPLAY_KIB_MIN 4
#define SB_REPLAY_KIB_MAX 4096

static unsigned int replay_kib = 1024;

static int sb_replay_kib_set(const char *val, const struct kernel_param *kp)
{
	unsigned int kib;
	int ret = kstrtouint(val, 0, &kib);

	if (ret)
		return ret;
	if (kib < SB_REPLAY_KIB_MIN || kib > SB_REPLAY_KIB_MAX)
		return -EINVAL;
	*(unsigned int *)kp->arg = kib;
	return 0;
}

static const struct kernel_param_ops sb_replay_kib_ops = {
    .set = sb_replay_kib_set,
    .get = param_get_uint,
};
module_param_cb(replay_kib, &sb_replay_kib_ops, &replay_kib, 0444);
MODULE_PARM_DESC(replay_kib, "Size of the replay buffer in KiB, 4..4096 (default 1024: 65536 "
                             "descriptors)");

/* Point the replay block at 2^log2 descriptors of desc bytes at off in the buffer, the replay
 * off (replay lock held, or probe). */
static int sb_replay_program(struct sb_board *b, u32 off, u32 log2, u32 desc)
{
	int ret = sb_dma_area_point(b, &b->replay, off, log2, desc << log2);

	if (!ret)
		b->replay_log2 = log2;
	return ret;
}

/* replay.desc_size, which must leave room for one descriptor in the buffer. */
static int sb_replay_desc_size(struct sb_board *b, size_t len, u32 *desc)
{
	int ret = sb_reg_read(b, b->replay_block + SB_REPLAY_DESC_SIZE, desc);

	if (ret)
		return ret;
	if (!*desc || *desc > len) {
		dev_err_ratelimited(&b->pdev->dev,
		                    "replay.desc_size reads %u; the %zu-byte replay buffer must "
		                    "hold at least one descriptor\n",
		                    *desc, len);
		return -EIO;
	}
	return 0;
}

/*
 * Allocate the buffer, map it for the board and point the replay ring at all of it (the
 * largest power of two of descriptors it holds). A board with a replay block always has its
 * ring in the driver's buffer, so the registers never keep an address of an earlier driver.
 */
int sb_replay_init(struct sb_board *b)
{
	size_t len = PAGE_ALIGN((size_t)replay_kib * 1024);
	u32 desc;
	int ret;

	if (b->replay_block == U32_MAX)
		return 0;
	b->replay.reg_control = b->replay_block + SB_REPLAY_CONTROL;
	b->replay.reg_extent = b->replay_block + SB_REPLAY_RING_LOG2;
	b->replay.reg_addr = b->replay_block + SB_REPLAY_RING_ADDR;
	ret = sb_reg_write(b, b->replay.reg_control, 0);
	if (!ret)
		ret = sb_replay_desc_size(b, len, &desc);
	if (ret)
		return ret;
	ret = sb_dma_area_alloc(b, &b->replay, len, DMA_TO_DEVICE, "replay");
	if (ret)
		return ret;
	ret = sb_replay_program(b, 0, ilog2(len / desc), desc);
	if (ret)
		sb_dma_area_release(b, &b->replay);
	return ret;
}

/* SETUP: validate the ring against the buffer and the descriptor size, program, reset. */
static int sb_replay_setup(struct sb_board *b, const struct sb_replay_dma *rd)
{
	u32 desc, off = rd->ring_offset, log2 = rd->ring_log2;
	int ret;

	ret = sb_replay_desc_size(b, b->replay.len, &desc);
	if (ret)
		return ret;
	if (off % desc || off >= b->replay.len || log2 >= 32 ||
	    (u64)desc << log2 > b->replay.len - off)
		return -EINVAL;
	ret = sb_replay_program(b, off, log2, desc);
	if (!ret)
		ret = sb_reg_write(b, b->replay_block + SB_REPLAY_CONTROL,
		                   SB_REPLAY_CONTROL_RESET_MASK);
	return ret;
}

/* SUBMIT: the descriptors userspace wrote reach the board before it hears of them. */
static int sb_replay_submit(struct sb_board *b, const struct sb_replay_dma *rd)
{
	dma_sync_single_range_for_device(&b->pdev->dev, b->replay.dma, b->replay.ring_off,
	                                 b->replay.ring_len, DMA_TO_DEVICE);
	return sb_reg_write(b, b->replay_block + SB_REPLAY_TAIL, rd->tail);
}

static int sb_replay_read_status(struct sb_board *b, struct sb_replay_dma *rd)
{
	u32 blk = b->replay_block;
	int ret;

	rd->ring_offset = b->replay.ring_off;
	rd->ring_log2 = b->replay_log2;
	ret = sb_reg_read(b, blk + SB_REPLAY_DESC_SIZE, &rd->desc_size);
	if (!ret)
		ret = sb_reg_read(b, blk + SB_REPLAY_TAIL, &rd->tail);
	if (!ret)
		ret = sb_reg_read(b, blk + SB_REPLAY_HEAD, &rd->head);
	if (!ret)
		ret = sb_reg_read(b, blk + SB_REPLAY_STATUS, &rd->status);
	return ret;
}

/*
 * SB_IOC_REPLAY_DMA (state_lock held for reading, board live; the argument is in kernel
 * memory). writer: the file was opened for writing.
 */
int sb_replay_dma_ioctl(struct sb_board *b, struct sb_replay_dma *rd, bool writer)
{
	int ret = 0;

	if (rd->op != SB_REPLAY_DMA_STATUS && rd->op != SB_REPLAY_DMA_SETUP &&
	    rd->op != SB_REPLAY_DMA_SUBMIT)
		return -EINVAL;
	if (rd->op != SB_REPLAY_DMA_STATUS && !writer)
		return -EBADF;
	if (!b->replay.pages)
		return -EOPNOTSUPP;
	mutex_lock(&b->replay.lock);
	if (rd->op == SB_REPLAY_DMA_SETUP)
		ret = sb_replay_setup(b, rd);
	else if (rd->op == SB_REPLAY_DMA_SUBMIT)
		ret = sb_replay_submit(b, rd);
	if (!ret)
		ret = sb_replay_read_status(b, rd);
	mutex_unlock(&b->replay.lock);
	return ret;
}
