// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stackbench PCIe driver: the DMA trace buffer.
 *
 * The board writes trace records into host memory at trace.buf_addr. Which host memory is the
 * driver's decision alone (docs/driver.md, "Trust model"): the driver allocates the buffer,
 * maps it for the board's DMA and programs trace.buf_addr and trace.buf_size itself, at probe
 * and through SB_IOC_TRACE_DMA; SB_IOC_REG_ACCESS refuses writes to those registers.
 *
 * The buffer is pages of the driver's (alloc_pages_exact: order-0 pages, each with its own
 * reference count) behind a streaming DMA mapping, rather than a coherent allocation, so that
 * it can outlive the device: removal stops the board's DMA, unmaps the DMA side and drops the
 * board's reference, while user mappings, which fault their pages in from the buffer and each
 * hold a reference to it, keep reading what the board last wrote. The last reference frees the
 * pages; nothing is ever freed through, or after, the device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <linux/stackbench.h>

#include "sb_drv.h"
#include "sb_regmap.h"

static unsigned int trace_kib = 1024;
module_param(trace_kib, uint, 0444);
MODULE_PARM_DESC(trace_kib, "Size of the DMA trace buffer in KiB (default 1024; 0: none; at most "
                            "4096 on x86-64)");

static void sb_trace_buf_free(struct kref *ref)
{
	struct sb_trace_buf *tb = container_of(ref, struct sb_trace_buf, ref);

	if (tb->detached)
		pr_info("%s: trace buffer of %zu KiB freed (its last mapping is gone)\n", tb->name,
		        tb->len / 1024);
	free_pages_exact(tb->cpu, tb->len);
	kfree(tb);
}

static void sb_trace_buf_put(struct sb_trace_buf *tb)
{
	kref_put(&tb->ref, sb_trace_buf_free);
}

/* Point the board's trace DMA at [off, off + len) of the buffer (trace_lock held or probe). */
static int sb_trace_program(struct sb_board *b, u32 off, u32 len)
{
	u32 blk = b->trace_block;
	int ret;

	ret = sb_reg_write(b, blk + SB_TRACE_CONTROL, 0);
	if (!ret)
		ret = sb_reg_write64(b, blk + SB_TRACE_BUF_ADDR, b->trace_dma + off);
	if (!ret)
		ret = sb_reg_write(b, blk + SB_TRACE_BUF_SIZE, len);
	if (ret)
		return ret;
	b->ring_off = off;
	b->ring_len = len;
	return 0;
}

/*
 * Allocate the buffer, map it for the board and point trace.buf_addr at it (records go there
 * once userspace sets trace.control.dma). Without a buffer (trace_kib=0) the DMA registers
 * are cleared, so that no address left by an earlier driver stays programmed.
 */
int sb_trace_init(struct sb_board *b)
{
	struct device *dev = &b->pdev->dev;
	size_t len = PAGE_ALIGN((size_t)trace_kib * 1024);
	gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN;
	struct sb_trace_buf *tb;
	int ret;

	if (b->trace_block == U32_MAX)
		return 0;
	if (!trace_kib || len > U32_MAX) {
		if (trace_kib)
			dev_warn(dev, "trace_kib=%u is too large; no trace buffer\n", trace_kib);
		sb_reg_write(b, b->trace_block + SB_TRACE_CONTROL, 0);
		sb_reg_write64(b, b->trace_block + SB_TRACE_BUF_ADDR, 0);
		return sb_reg_write(b, b->trace_block + SB_TRACE_BUF_SIZE, 0);
	}
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret) {
		ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32));
		gfp |= GFP_DMA32; /* pages the board can reach without bouncing */
	}
	if (ret) {
		dev_err(dev, "no usable DMA mask\n");
		return ret;
	}
	tb = kzalloc(sizeof(*tb), GFP_KERNEL);
	if (!tb)
		return -ENOMEM;
	kref_init(&tb->ref);
	tb->len = len;
	strscpy(tb->name, dev_name(&b->dev), sizeof(tb->name));
	tb->cpu = alloc_pages_exact(len, gfp);
	if (!tb->cpu) {
		dev_err(dev, "cannot allocate a trace buffer of %u KiB (physically contiguous)\n",
		        trace_kib);
		ret = -ENOMEM;
		goto fail_buf;
	}
	b->trace_dma = dma_map_page(dev, virt_to_page(tb->cpu), 0, len, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, b->trace_dma)) {
		dev_err(dev, "cannot map the trace buffer for DMA\n");
		ret = -ENOMEM;
		goto fail_pages;
	}
	b->trace = tb;
	b->trace_len = len;
	ret = sb_trace_program(b, 0, (u32)len);
	if (ret)
		sb_trace_release(b);
	return ret;

fail_pages:
	free_pages_exact(tb->cpu, len);
fail_buf:
	kfree(tb);
	return ret;
}

/* Stop the board's trace DMA (before bus mastering goes and the buffer is unmapped). */
void sb_trace_stop(struct sb_board *b)
{
	if (!b->trace)
		return;
	sb_reg_write(b, b->trace_block + SB_TRACE_CONTROL, 0);
	sb_reg_write64(b, b->trace_block + SB_TRACE_BUF_ADDR, 0);
	sb_reg_write(b, b->trace_block + SB_TRACE_BUF_SIZE, 0);
}

/*
 * Removal (after sb_trace_stop and pci_clear_master): unmap the DMA side, which makes what
 * the board wrote visible to the CPU, and drop the board's reference. Mappings that remain
 * keep the pages, detached from the device.
 */
void sb_trace_release(struct sb_board *b)
{
	struct sb_trace_buf *tb;

	mutex_lock(&b->trace_lock);
	tb = b->trace;
	b->trace = NULL;
	mutex_unlock(&b->trace_lock);
	if (!tb)
		return;
	dma_unmap_page(&b->pdev->dev, b->trace_dma, tb->len, DMA_FROM_DEVICE);
	b->trace_dma = 0;
	if (kref_read(&tb->ref) > 1) {
		tb->detached = true;
		dev_info(&b->pdev->dev,
		         "%s: trace buffer detached; still mapped, freed with its last mapping\n",
		         tb->name);
	}
	sb_trace_buf_put(tb);
}

/* User mappings of the buffer: each holds a reference; pages are inserted at fault time. */
static void sb_trace_vm_open(struct vm_area_struct *vma)
{
	struct sb_trace_buf *tb = vma->vm_private_data;

	kref_get(&tb->ref);
}

static void sb_trace_vm_close(struct vm_area_struct *vma)
{
	sb_trace_buf_put(vma->vm_private_data);
}

static vm_fault_t sb_trace_vm_fault(struct vm_fault *vmf)
{
	struct sb_trace_buf *tb = vmf->vma->vm_private_data;
	unsigned long page = vmf->pgoff & ((1ul << (SB_REGION_OFFSET_SHIFT - PAGE_SHIFT)) - 1);
	struct page *pg;

	if (page >= tb->len >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	pg = virt_to_page(tb->cpu + (page << PAGE_SHIFT));
	get_page(pg);
	vmf->page = pg;
	return 0;
}

static const struct vm_operations_struct sb_trace_vm_ops = {
    .open = sb_trace_vm_open,
    .close = sb_trace_vm_close,
    .fault = sb_trace_vm_fault,
};

/* mmap of [pgoff, pgoff + npages) of the buffer (state_lock held for reading, board live). */
int sb_trace_mmap(struct sb_board *b, struct vm_area_struct *vma, unsigned long pgoff,
                  unsigned long npages)
{
	struct sb_trace_buf *tb = b->trace;
	unsigned long buf_pages = tb ? tb->len >> PAGE_SHIFT : 0;

	if (!tb || pgoff >= buf_pages || npages > buf_pages - pgoff)
		return -EINVAL;
	sb_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &sb_trace_vm_ops;
	vma->vm_private_data = tb;
	kref_get(&tb->ref);
	return 0;
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
	if (off % record || off >= b->trace_len)
		return -EINVAL;
	if (!len)
		len = (u32)((b->trace_len - off) / record * record);
	if (!len || len % record || len > b->trace_len - off)
		return -EINVAL;
	ret = sb_trace_program(b, off, len);
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
	if (!b->trace)
		return -EOPNOTSUPP;
	mutex_lock(&b->trace_lock);
	ret = td->op == SB_TRACE_DMA_SETUP ? sb_trace_setup(b, td) : 0;
	if (!ret) {
		/* What the board wrote into the ring becomes visible to the CPU. */
		dma_sync_single_range_for_cpu(&b->pdev->dev, b->trace_dma, b->ring_off, b->ring_len,
		                              DMA_FROM_DEVICE);
		td->ring_offset = b->ring_off;
		td->ring_size = b->ring_len;
		ret = sb_trace_read_status(b, td);
	}
	mutex_unlock(&b->trace_lock);
	return ret;
}
