// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stackbench PCIe driver: the character device /dev/stackbench<N>.
 *
 * ioctl (include/uapi/linux/stackbench.h), mmap of the register region and of the DMA buffers
 * (trace, replay), read/poll for events. Every operation holds state_lock for reading and fails
 * with -ENODEV once the board is removed; none accesses user memory while holding it
 * (sb_drv.h).
 *
 * Access (docs/driver.md, "Trust model"): register writes and DMA ring setup need a file
 * opened for writing (-EBADF); the DMA address registers are the driver's (-EPERM for register
 * writes to them); a writable mapping of the registers, which would bypass both, needs
 * CAP_SYS_RAWIO in the opener (-EPERM).
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <linux/stackbench.h>

#include "sb_drv.h"

/* Take the board for an operation; returns false (and releases nothing) once it is removed. */
static bool sb_board_get_live(struct sb_board *b)
{
	down_read(&b->state_lock);
	if (!b->removed)
		return true;
	up_read(&b->state_lock);
	return false;
}

static void sb_board_put_live(struct sb_board *b)
{
	up_read(&b->state_lock);
}

static int sb_open(struct inode *inode, struct file *filp)
{
	struct sb_board *b = container_of(inode->i_cdev, struct sb_board, cdev);
	struct sb_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	if (!sb_board_get_live(b)) {
		kfree(f);
		return -ENODEV;
	}
	get_device(&b->dev);
	f->board = b;
	f->filp = filp;
	mutex_lock(&b->files_lock);
	list_add(&f->node, &b->files);
	f->polling = sb_events_start_polling(b);
	mutex_unlock(&b->files_lock);
	spin_lock_irq(&b->ev_lock);
	f->ev_seen = b->ev_seq; /* events from before the open are not this reader's */
	spin_unlock_irq(&b->ev_lock);
	filp->private_data = f;
	sb_board_put_live(b);
	return stream_open(inode, filp);
}

static int sb_release(struct inode *inode, struct file *filp)
{
	struct sb_file *f = filp->private_data;
	struct sb_board *b = f->board;

	mutex_lock(&b->files_lock);
	list_del(&f->node);
	if (f->polling)
		sb_events_stop_polling(b);
	mutex_unlock(&b->files_lock);
	kfree(f);
	put_device(&b->dev);
	return 0;
}

/*
 * Copy an ioctl argument that begins with its own size: at least min_size bytes (the first
 * published version of the struct), at most a page; bytes beyond what the driver knows must
 * be zero (copy_struct_from_user returns -E2BIG otherwise). Called without state_lock.
 */
static int sb_arg_in(void *karg, size_t ksize, size_t min_size, void __user *uarg, u32 *usize)
{
	if (get_user(*usize, (u32 __user *)uarg))
		return -EFAULT;
	if (*usize < min_size || *usize > PAGE_SIZE)
		return -EINVAL;
	return copy_struct_from_user(karg, ksize, uarg, *usize);
}

/* Return the argument: the driver's bytes (at most what userspace has room for). */
static int sb_arg_out(void *karg, size_t ksize, void __user *uarg, u32 usize)
{
	u32 n = min_t(u32, usize, ksize);

	*(u32 *)karg = n;
	return copy_to_user(uarg, karg, n) ? -EFAULT : 0;
}

/* May this file map the register region writable? (A writable mapping bypasses every check.) */
static bool sb_may_map_regs_writable(struct file *filp)
{
	return (filp->f_mode & FMODE_WRITE) && file_ns_capable(filp, &init_user_ns, CAP_SYS_RAWIO);
}

static void sb_ioc_api_version(struct sb_api_version *v)
{
	v->version = SB_UAPI_VERSION;
}

static void sb_ioc_device_info(struct sb_board *b, struct sb_device_info *di)
{
	struct pci_dev *pdev = b->pdev;

	memset(di, 0, sizeof(*di));
	if (b->bridge)
		di->flags |= SB_DEVICE_F_TEST_MODE;
	else
		di->flags |= SB_DEVICE_F_MMAP_EXACT;
	if (b->irq_vectors)
		di->flags |= SB_DEVICE_F_MSI;
	if (b->trace.pages)
		di->flags |= SB_DEVICE_F_TRACE_DMA;
	if (b->replay.pages)
		di->flags |= SB_DEVICE_F_REPLAY_DMA;
	di->pci_domain = pci_domain_nr(pdev->bus);
	di->pci_bus = pdev->bus->number;
	di->pci_dev = PCI_SLOT(pdev->devfn);
	di->pci_fn = PCI_FUNC(pdev->devfn);
	di->regs_bar = b->regs_bar;
	di->vendor = pdev->vendor;
	di->device = pdev->device;
	di->subsystem_vendor = pdev->subsystem_vendor;
	di->subsystem_device = pdev->subsystem_device;
	di->numa_node = dev_to_node(&pdev->dev);
	di->num_regions = SB_REGION_COUNT;
	di->irq_vectors = b->irq_vectors;
	di->poll_interval_ms = b->irq_vectors ? 0 : READ_ONCE(sb_poll_ms);
	di->fw_magic = b->fw.magic;
	di->fw_block_version = b->fw.block_version;
	di->fw_version = b->fw.fw_version;
	di->fw_build_id = b->fw.build_id;
	di->fw_regmap_hash = b->fw.regmap_hash;
	di->fw_regmap_size = b->fw.regmap_size;
}

/* The DMA buffer behind a region (NULL: the region is not a DMA buffer). */
static struct sb_dma_area *sb_region_area(struct sb_board *b, u64 index)
{
	switch (index) {
	case SB_REGION_TRACE:
		return &b->trace;
	case SB_REGION_REPLAY:
		return &b->replay;
	default:
		return NULL;
	}
}

/* The flags describe what this file may do with the region. */
static int sb_ioc_region_info(struct sb_board *b, struct file *filp, struct sb_region_info *ri)
{
	bool writer = filp->f_mode & FMODE_WRITE;
	struct sb_dma_area *a = sb_region_area(b, ri->index);
	u32 index = ri->index;

	memset(ri, 0, sizeof(*ri));
	ri->index = index;
	if (index == SB_REGION_REGS) {
		ri->flags = SB_REGION_F_READ | SB_REGION_F_MMAP;
		if (writer)
			ri->flags |= SB_REGION_F_WRITE;
		if (sb_may_map_regs_writable(filp))
			ri->flags |= SB_REGION_F_MMAP_WRITE;
		ri->length = b->regs_len;
	} else if (!a) {
		return -EINVAL;
	} else if (a->pages) {
		ri->flags = SB_REGION_F_READ | SB_REGION_F_MMAP;
		if (writer)
			ri->flags |= SB_REGION_F_WRITE | SB_REGION_F_MMAP_WRITE;
		ri->length = a->len;
		ri->bus_addr = a->dma;
	}
	ri->offset = SB_REGION_OFFSET(index);
	return 0;
}

static int sb_ioc_reg_access(struct sb_board *b, struct file *filp, struct sb_reg_io *ra)
{
	bool write = ra->op == SB_REG_WRITE32 || ra->op == SB_REG_WRITE64;
	u32 v32;
	int ret;

	if (ra->reserved)
		return -EINVAL;
	if (write && !(filp->f_mode & FMODE_WRITE))
		return -EBADF;
	if (write && sb_reg_dma_owned(b, ra->offset, ra->op == SB_REG_WRITE64 ? 8 : 4))
		return -EPERM; /* SB_IOC_TRACE_DMA and SB_IOC_REPLAY_DMA program those */
	switch (ra->op) {
	case SB_REG_READ32:
		v32 = 0;
		ret = sb_reg_read(b, ra->offset, &v32);
		ra->value = v32;
		return ret;
	case SB_REG_WRITE32:
		if (ra->value > U32_MAX)
			return -EINVAL;
		return sb_reg_write(b, ra->offset, (u32)ra->value);
	case SB_REG_READ64:
		return sb_reg_read64(b, ra->offset, &ra->value);
	case SB_REG_WRITE64:
		return sb_reg_write64(b, ra->offset, ra->value);
	default:
		return -EINVAL;
	}
}

/* Every ioctl argument, in kernel memory while the board is used. */
union sb_ioc_arg {
	struct sb_api_version version;
	struct sb_device_info info;
	struct sb_region_info region;
	struct sb_reg_io reg;
	struct sb_trace_dma trace;
	struct sb_replay_dma replay;
};

static long sb_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct sb_file *f = filp->private_data;
	struct sb_board *b = f->board;
	void __user *uarg = (void __user *)arg;
	union sb_ioc_arg a;
	size_t size;
	u32 usize;
	long ret;

	/* Unknown commands are -ENOTTY even after removal. */
	switch (cmd) {
	case SB_IOC_API_VERSION:
		size = sizeof(a.version);
		break;
	case SB_IOC_DEVICE_INFO:
		size = sizeof(a.info);
		break;
	case SB_IOC_REGION_INFO:
		size = sizeof(a.region);
		break;
	case SB_IOC_REG_ACCESS:
		size = sizeof(a.reg);
		break;
	case SB_IOC_TRACE_DMA:
		size = sizeof(a.trace);
		break;
	case SB_IOC_REPLAY_DMA:
		size = sizeof(a.replay);
		break;
	default:
		return -ENOTTY;
	}
	/* In before state_lock, out after it (each struct's first version is its size today). */
	ret = sb_arg_in(&a, size, size, uarg, &usize);
	if (ret)
		return ret;
	if (!sb_board_get_live(b))
		return -ENODEV;
	switch (cmd) {
	case SB_IOC_API_VERSION:
		sb_ioc_api_version(&a.version);
		break;
	case SB_IOC_DEVICE_INFO:
		sb_ioc_device_info(b, &a.info);
		break;
	case SB_IOC_REGION_INFO:
		ret = sb_ioc_region_info(b, filp, &a.region);
		break;
	case SB_IOC_REG_ACCESS:
		ret = sb_ioc_reg_access(b, filp, &a.reg);
		break;
	case SB_IOC_TRACE_DMA:
		ret = sb_trace_dma_ioctl(b, &a.trace, filp->f_mode & FMODE_WRITE);
		break;
	default:
		ret = sb_replay_dma_ioctl(b, &a.replay, filp->f_mode & FMODE_WRITE);
		break;
	}
	sb_board_put_live(b);
	if (ret)
		return ret;
	return sb_arg_out(&a, size, uarg, usize);
}

static ssize_t sb_read(struct file *filp, char __user *buf, size_t count, loff_t *ppos)
{
	struct sb_file *f = filp->private_data;
	struct sb_board *b = f->board;
	struct sb_event ev = {.size = sizeof(ev)};
	int ret;

	if (count < sizeof(ev))
		return -EINVAL;
	for (;;) {
		if (READ_ONCE(b->removed))
			return -ENODEV;
		if (sb_events_pending(b, f))
			break;
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(b->ev_wait,
		                               sb_events_pending(b, f) || READ_ONCE(b->removed));
		if (ret)
			return ret;
	}
	sb_events_collect(b, f, &ev.events, &ev.count, &ev.time_ns);
	if (copy_to_user(buf, &ev, sizeof(ev)))
		return -EFAULT;
	return sizeof(ev);
}

static __poll_t sb_poll(struct file *filp, poll_table *wait)
{
	struct sb_file *f = filp->private_data;
	struct sb_board *b = f->board;

	poll_wait(filp, &b->ev_wait, wait);
	if (READ_ONCE(b->removed))
		return EPOLLERR | EPOLLHUP;
	return sb_events_pending(b, f) ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * Mappings of the register region are inserted page by page at fault time, so a removal
 * (which sets 'removed' and then zaps them) can never race with a mapping being set up: a
 * later fault sees 'removed' and gets SIGBUS. The DMA buffers' mappings are sb_dma.c's.
 */
static vm_fault_t sb_regs_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct sb_file *f = vma->vm_file->private_data;
	struct sb_board *b = f->board;
	unsigned long pfn;
	vm_fault_t ret;

	if (!sb_board_get_live(b))
		return VM_FAULT_SIGBUS;
	pfn = PHYS_PFN(b->regs_start) + vmf->pgoff;
	ret = vmf_insert_pfn_prot(vma, vmf->address, pfn, vma->vm_page_prot);
	sb_board_put_live(b);
	return ret;
}

static const struct vm_operations_struct sb_regs_vm_ops = {
    .fault = sb_regs_vm_fault,
};

/* Is [pgoff, pgoff + npages) inside a region of len bytes? */
static bool sb_fits(unsigned long pgoff, unsigned long npages, resource_size_t len)
{
	unsigned long region_pages = len >> PAGE_SHIFT;

	return pgoff < region_pages && npages <= region_pages - pgoff;
}

static int sb_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct sb_file *f = filp->private_data;
	struct sb_board *b = f->board;
	unsigned long npages = vma_pages(vma);
	u64 region = (u64)vma->vm_pgoff >> (SB_REGION_OFFSET_SHIFT - PAGE_SHIFT);
	unsigned long pgoff = vma->vm_pgoff & ((1ul << (SB_REGION_OFFSET_SHIFT - PAGE_SHIFT)) - 1);
	int ret = 0;

	/*
	 * MAP_SHARED only. VM_MAYSHARE, not VM_SHARED: the kernel clears VM_SHARED in a shared
	 * mapping of a file opened read-only (it can never be written).
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (!sb_board_get_live(b))
		return -ENODEV;
	switch (region) {
	case SB_REGION_REGS:
		if (!sb_fits(pgoff, npages, b->regs_len)) {
			ret = -EINVAL;
			break;
		}
		if (!sb_may_map_regs_writable(filp)) {
			if (vma->vm_flags & VM_WRITE) {
				ret = -EPERM;
				break;
			}
			sb_vm_flags_clear(vma, VM_MAYWRITE); /* and no mprotect(PROT_WRITE) later */
		}
		vma->vm_ops = &sb_regs_vm_ops;
		sb_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
		vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
		break;
	case SB_REGION_TRACE:
	case SB_REGION_REPLAY:
		ret = sb_dma_area_mmap(sb_region_area(b, region), vma, pgoff, npages);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	sb_board_put_live(b);
	return ret;
}

/*
 * After 'removed' is set: take the pages of every register mapping away (the file offsets of
 * region 0). Mappings of the DMA buffers stay: their pages are the driver's, not the device's.
 */
void sb_cdev_zap_mappings(struct sb_board *b)
{
	struct sb_file *f;

	mutex_lock(&b->files_lock);
	list_for_each_entry(f, &b->files, node)
	    unmap_mapping_range(f->filp->f_mapping, SB_REGION_OFFSET(SB_REGION_REGS),
	                        SB_REGION_OFFSET(SB_REGION_REGS + 1), 1);
	mutex_unlock(&b->files_lock);
}

const struct file_operations sb_fops = {
    .owner = THIS_MODULE,
    .open = sb_open,
    .release = sb_release,
    .unlocked_ioctl = sb_ioctl,
    .compat_ioctl = compat_ptr_ioctl,
    .read = sb_read,
    .poll = sb_poll,
    .mmap = sb_mmap,
};
