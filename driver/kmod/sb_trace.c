// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stackbench PCIe driver: trace capture into the DMA trace buffer.
 *
 * The board writes trace records into host memory at trace.buf_addr, up to trace.buf_size
 * bytes. The driver allocates the buffer (sb_dma.c: DMA_FROM_DEVICE) and programs those
 * registers itself, at probe and through SB_IOC_TRACE_DMA; SB_IOC_REG_ACCESS refuses writes
 * to them (docs/driver.md, "Trust model").
 */
#include <linux/dma-mapping.h>
#include <linux/module.h>

#include <linux/stackbench.h>

#include "sb_drv.h"
#include "sb_regmap.h"

static unsigned int trace_kib = 1024;
module_param(trace_kib, uint, 0444);
MODULE_PARM_DESC(trace_kib, "Size of the DMA trace buffer in KiB (default 1024; 0: none; at most "
                            "4096 on x86-64)");

/*
 * Allocate the buffer, map it for the board and point trace.buf_addr at it (records go there
 * once userspace sets trace.control.dma). Without a buffer (trace_kib=0) the DMA registers
 * are cleared, so that no address left by an earlier driver stays programmed.
 */
int sb_trace_init(struct sb_board *b)
{
	size_t len = PAGE_ALIGN((size_t)trace_kib * 1024);
	int ret;

	if (b->trace_block == U32_MAX)
		return 0;
	b->trace.reg_control = b->trace_block + SB_TRACE_CONTROL;
	b->trace.reg_extent = b->trace_block + SB_TRACE_BUF_SIZE;
	b->trace.reg_addr = b->trace_block + SB_TRACE_BUF_ADDR;
	if (!trace_kib || len > U32_MAX) {
		if (trace_kib)
			dev_warn(&b->pdev->dev, "trace_kib=%u is too large; no trace buffer\n",
			         trace_kib);
		return sb_dma_point(b, &b->trace, 0, 0);
	}
	ret = sb_dma_area_alloc(b, &b->trace, len, DMA_FROM_DEVICE, "trace");
	if (ret)
		return ret;
	ret = sb_dma_area_point(b, &b->trace, 0, (u32)len, (u32)len);
	if (ret)
		sb_dma_area_release(b, &b->trace);
	return ret;
}

/* The capture's counters, read from the trace block. */
static int sb_trace_read_status(struct sb_board *b, struct sb_trace_dma *td)
{
	u32 blk = b->trace_block;
	u64 records = 0, dropped = 0;
	int ret;

	ret = sb_reg_read(b, blk + SB_TRACE_RECORD_SIZE, &td->record_size);
	if (!ret)
		ret = sb_reg_read(b, blk + SB_TRACE_WR_PTR, &td->wr_ptr);
	if (!ret)
		ret = sb_reg_read(b, blk + SB_TRACE_STATUS, &td->status);
	if (!ret)
		ret = sb_reg_read(b, blk + SB_TRACE_SAMPLE_ID, &td->sample_id);
	if (!ret)
		ret = sb_reg_read64(b, blk + SB_TRACE_RECORDS, &records);
	if (!ret)
		ret = sb_reg_read64(b, blk + SB_TRACE_DROPPED, &dropped);
	td->records = records;
	td->dropped = dropped;
	return ret;
}

/* SETUP: validate the ring against the buffer and the record size, then program it. */
static int sb_trace_setup(struct sb_board *b, struct sb_trace_dma *td)
{
	u32 record, off = td->ring_offset, len = td->ring_size;
	int ret;

	ret = sb_reg_read(b, b->trace_block + SB_TRACE_RECORD_SIZE, &record);
	if (ret)
		return ret;
	if (!record || record > PAGE_SIZE) {
		dev_err_ratelimited(&b->pdev->dev, "trace.record_size reads %u\n", record);
		return -EIO;
	}
	if (off % record || off >= b->trace.len)
		return -EINVAL;
	if (!len)
		len = (u32)((b->trace.len - off) / record * record);
	if (!len || len % record || len > b->trace.len - off)
		return -EINVAL;
	ret = sb_dma_area_point(b, &b->trace, off, len, len);
	if (!ret)
		ret =
		    sb_reg_write(b, b->trace_block + SB_TRACE_CONTROL, SB_TRACE_CONTROL_RESET_MASK);
	return ret;
}

/*
 * SB_IOC_TRACE_DMA (state_lock held for reading, board live; the argument is in kernel memory).
 * writer: the file was opened for writing.
 */
int sb_trace_dma_ioctl(struct sb_board *b, struct sb_trace_dma *td, bool writer)
{
	int ret;

	if (td->op != SB_TRACE_DMA_STATUS && td->op != SB_TRACE_DMA_SETUP)
		return -EINVAL;
	if (td->op == SB_TRACE_DMA_SETUP && !writer)
		return -EBADF;
	if (!b->trace.pages)
		return -EOPNOTSUPP;
	mutex_lock(&b->trace.lock);
	ret = td->op == SB_TRACE_DMA_SETUP ? sb_trace_setup(b, td) : 0;
	if (!ret) {
		/* What the board wrote into the ring becomes visible to the CPU. */
		dma_sync_single_range_for_cpu(&b->pdev->dev, b->trace.dma, b->trace.ring_off,
		                              b->trace.ring_len, DMA_FROM_DEVICE);
		td->ring_offset = b->trace.ring_off;
		td->ring_size = b->trace.ring_len;
		ret = sb_trace_read_status(b, td);
	}
	mutex_unlock(&b->trace.lock);
	return ret;
}
