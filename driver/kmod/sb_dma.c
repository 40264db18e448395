// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stackbench PCIe driver: the driver's DMA buffers (the trace buffer the board writes records
 * into, the replay buffer it reads descriptors from).
 *
 * Which host memory the board reaches is the driver's decision alone (docs/driver.md, "Trust
 * model"): the driver allocates each buffer, maps it for the board's DMA and programs the
 * registers that point the board at it (sb_trace.c, sb_replay.c); SB_IOC_REG_ACCESS refuses
 * writes to those registers (sb_regs.c).
 *
 * A buffer is pages of the driver's (alloc_pages_exact: order-0 pages, each with its own
 * reference count) behind a streaming DMA mapping, rather than a coherent allocation, so that
 * it can outlive the device: removal stops the board's DMA, unmaps the DMA side and drops the
 * board's reference, while user mappings, which fault their pages in from the buffer and each
 * hold a reference to it, keep what is there. The last reference frees the pages; nothing is
 * ever freed through, or after, the device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <linux/stackbench.h>

#include "sb_drv.h"

static void sb_dma_pages_free(struct kref *ref)
{
	struct sb_dma_pages *p = container_of(ref, struct sb_dma_pages, ref);

	if (p->detached)
		pr_info("%s: %s buffer of %zu KiB freed (its last mapping is gone)\n", p->name,
		        p->what, p->len / 1024);
	free_pages_exact(p->cpu, p->len);
	kfree(p);
}

static void sb_dma_pages_put(struct sb_dma_pages *p)
{
	kref_put(&p->ref, sb_dma_pages_free);
}

/*
 * Allocate len bytes (a page multiple) of zeroed, physically contiguous pages and map them for
 * the board's DMA in direction dir. what names the buffer in the log ("trace", "replay").
 */
int sb_dma_area_alloc(struct sb_board *b, struct sb_dma_area *a, size_t len,
                      enum dma_data_direction dir, const char *what)
{
	struct device *dev = &b->pdev->dev;
	gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN;
	struct sb_dma_pages *p;
	int ret;

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret) {
		ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32));
		gfp |= GFP_DMA32; /* pages the board can reach without bouncing */
	}
	if (ret) {
		dev_err(dev, "no usable DMA mask\n");
		return ret;
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	kref_init(&p->ref);
	p->len = len;
	p->what = what;
	strscpy(p->name, dev_name(&b->dev), sizeof(p->name));
	p->cpu = alloc_pages_exact(len, gfp);
	if (!p->cpu) {
		dev_err(dev, "cannot allocate a %s buffer of %zu KiB (physically contiguous)\n",
		        what, len / 1024);
		ret = -ENOMEM;
		goto fail_buf;
	}
	a->dma = dma_map_page(dev, virt_to_page(p->cpu), 0, len, dir);
	if (dma_mapping_error(dev, a->dma)) {
		dev_err(dev, "cannot map the %s buffer for DMA\n", what);
		ret = -ENOMEM;
		goto fail_pages;
	}
	a->dir = dir;
	a->len = len;
	a->pages = p;
	return 0;

fail_pages:
	free_pages_exact(p->cpu, len);
fail_buf:
	kfree(p);
	return ret;
}

/*
 * Removal (after the board's DMA is stopped and bus mastering cleared), or release: unmap the
 * DMA side, which makes what the board wrote visible to the CPU, and drop the board's
 * reference. Mappings that remain keep the pages, detached from the device.
 */
void sb_dma_area_release(struct sb_board *b, struct sb_dma_area *a)
{
	struct sb_dma_pages *p;

	mutex_lock(&a->lock);
	p = a->pages;
	a->pages = NULL;
	mutex_unlock(&a->lock);
	if (!p)
		return;
	dma_unmap_page(&b->pdev->dev, a->dma, p->len, a->dir);
	a->dma = 0;
	if (kref_read(&p->ref) > 1) {
		p->detached = true;
		dev_info(&b->pdev->dev,
		         "%s: %s buffer detached; still mapped, freed with its last mapping\n",
		         p->name, p->what);
	}
	sb_dma_pages_put(p);
}

/*
 * Point a block's DMA at bus address addr with extent 'extent' (the value of the ring's size
 * register: trace.buf_size bytes, replay.ring_log2), the block stopped (control = 0). The extent
 * drops to its smallest before the address moves, so that no intermediate state (should a
 * write fail) reaches past a buffer. addr 0, extent 0: nothing of the driver's stays.
 */
int sb_dma_point(struct sb_board *b, struct sb_dma_area *a, u64 addr, u32 extent)
{
	int ret;

	ret = sb_reg_write(b, a->reg_control, 0);
	if (!ret)
		ret = sb_reg_write(b, a->reg_extent, 0);
	if (!ret)
		ret = sb_reg_write64(b, a->reg_addr, addr);
	if (!ret && extent)
		ret = sb_reg_write(b, a->reg_extent, extent);
	return ret;
}

/* The ring: ring_len bytes at off in the buffer, programmed as extent (ring lock held, or probe). */
int sb_dma_area_point(struct sb_board *b, struct sb_dma_area *a, u32 off, u32 extent, u32 ring_len)
{
	int ret = sb_dma_point(b, a, a->dma + off, extent);

	if (ret)
		return ret;
	a->ring_off = off;
	a->ring_len = ring_len;
	return 0;
}

/* Stop a block's DMA into a buffer (before bus mastering goes and the buffer is unmapped). */
void sb_dma_area_stop(struct sb_board *b, struct sb_dma_area *a)
{
	if (a->pages)
		sb_dma_point(b, a, 0, 0);
}

/* User mappings of a buffer: each holds a reference; pages are inserted at fault time. */
static void sb_dma_vm_open(struct vm_area_struct *vma)
{
	struct sb_dma_pages *p = vma->vm_private_data;

	kref_get(&p->ref);
}

static void sb_dma_vm_close(struct vm_area_struct *vma)
{
	sb_dma_pages_put(vma->vm_private_data);
}

static vm_fault_t sb_dma_vm_fault(struct vm_fault *vmf)
{
	struct sb_dma_pages *p = vmf->vma->vm_private_data;
	unsigned long page = vmf->pgoff & ((1ul << (SB_REGION_OFFSET_SHIFT - PAGE_SHIFT)) - 1);
	struct page *pg;

	if (page >= p->len >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	pg = virt_to_page(p->cpu + (page << PAGE_SHIFT));
	get_page(pg);
	vmf->page = pg;
	return 0;
}

static const struct vm_operations_struct sb_dma_vm_ops = {
    .open = sb_dma_vm_open,
    .close = sb_dma_vm_close,
    .fault = sb_dma_vm_fault,
};

/* mmap of [pgoff, pgoff + npages) of a buffer (state_lock held for reading, board live). */
int sb_dma_area_mmap(struct sb_dma_area *a, struct vm_area_struct *vma, unsigned long pgoff,
                     unsigned long npages)
{
	struct sb_dma_pages *p = a->pages;
	unsigned long buf_pages = p ? p->len >> PAGE_SHIFT : 0;

	if (!p || pgoff >= buf_pages || npages > buf_pages - pgoff)
		return -EINVAL;
	sb_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &sb_dma_vm_ops;
	vma->vm_private_data = p;
	kref_get(&p->ref);
	return 0;
}
