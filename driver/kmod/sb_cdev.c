// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stackbench PCIe driver: the character device /dev/stackbench<N>.
 *
 * ioctl (include/uapi/linux/stackbench.h), mmap of the register region and of the DMA trace
 * buffer, read/poll for events. Every operation holds state_lock for reading and fails with
 * -ENODEV once the board is removed.
 */
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
	sb_events_start_polling(b);
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
	sb_events_stop_polling(b);
	mutex_unlock(&b->files_lock);
	kfree(f);
	put_device(&b->dev);
	return 0;
}

/*
 * Copy an ioctl argument that begins with its own size: at least min_size bytes (the first
 * published version of the struct), at most a page; bytes beyond what the driver knows must
 * be zero (copy_struct_from_user returns -E2BIG otherwise).
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

static long sb_ioc_api_version(void __user *uarg)
{
	struct sb_api_version v;
	u32 usize;
	int ret;

	ret = sb_arg_in(&v, sizeof(v), sizeof(v), uarg, &usize);
	if (ret)
		return ret;
	v.version = SB_UAPI_VERSION;
	return sb_arg_out(&v, sizeof(v), uarg, usize);
}

static long sb_ioc_device_info(struct sb_board *b, void __user *uarg)
{
	struct pci_dev *pdev = b->pdev;
	struct sb_device_info di;
	u32 usize;
	int ret;

	ret = sb_arg_in(&di, sizeof(di), sizeof(di), uarg, &usize);
	if (ret)
		return ret;
	memset(&di, 0, sizeof(di));
	if (b->bridge)
		di.flags |= SB_DEVICE_F_TEST_MODE;
	else
		di.flags |= SB_DEVICE_F_MMAP_EXACT;
	if (b->irq_vectors)
		di.flags |= SB_DEVICE_F_MSI;
	if (b->trace_cpu)
		di.flags |= SB_DEVICE_F_TRACE_DMA;
	di.pci_domain = pci_domain_nr(pdev->bus);
	di.pci_bus = pdev->bus->number;
	di.pci_dev = PCI_SLOT(pdev->devfn);
	di.pci_fn = PCI_FUNC(pdev->devfn);
	di.regs_bar = b->regs_bar;
	di.vendor = pdev->vendor;
	di.device = pdev->device;
	di.subsystem_vendor = pdev->subsystem_vendor;
	di.subsystem_device = pdev->subsystem_device;
	di.numa_node = dev_to_node(&pdev->dev);
	di.num_regions = SB_REGION_COUNT;
	di.irq_vectors = b->irq_vectors;
	di.poll_interval_ms = b->irq_vectors ? 0 : sb_poll_ms;
	di.fw_magic = b->fw.magic;
	di.fw_block_version = b->fw.block_version;
	di.fw_version = b->fw.fw_version;
	di.fw_build_id = b->fw.build_id;
	di.fw_regmap_hash = b->fw.regmap_hash;
	di.fw_regmap_size = b->fw.regmap_size;
	return sb_arg_out(&di, sizeof(di), uarg, usize);
}

static long sb_ioc_region_info(struct sb_board *b, void __user *uarg)
{
	struct sb_region_info ri;
	u32 usize, index;
	int ret;

	ret = sb_arg_in(&ri, sizeof(ri), sizeof(ri), uarg, &usize);
	if (ret)
		return ret;
	index = ri.index;
	memset(&ri, 0, sizeof(ri));
	ri.index = index;
	switch (index) {
	case SB_REGION_REGS:
		ri.flags = SB_REGION_F_READ | SB_REGION_F_WRITE | SB_REGION_F_MMAP;
		ri.length = b->regs_len;
		break;
	case SB_REGION_TRACE:
		mutex_lock(&b->trace_lock);
		if (b->trace_cpu) {
			ri.flags = SB_REGION_F_READ | SB_REGION_F_WRITE | SB_REGION_F_MMAP;
			ri.length = b->trace_len;
			ri.bus_addr = b->trace_dma;
		}
		mutex_unlock(&b->trace_lock);
		break;
	default:
		return -EINVAL;
	}
	ri.offset = SB_REGION_OFFSET(index);
	return sb_arg_out(&ri, sizeof(ri), uarg, usize);
}

static long sb_ioc_reg_access(struct sb_board *b, void __user *uarg)
{
	struct sb_reg_io ra;
	u32 usize, v32;
	int ret;

	ret = sb_arg_in(&ra, sizeof(ra), sizeof(ra), uarg, &usize);
	if (ret)
		return ret;
	if (ra.reserved)
		return -EINVAL;
	switch (ra.op) {
	case SB_REG_READ32:
		ret = sb_reg_read(b, ra.offset, &v32);
		ra.value = v32;
		break;
	case SB_REG_WRITE32:
		if (ra.value > U32_MAX)
			return -EINVAL;
		ret = sb_reg_write(b, ra.offset, (u32)ra.value);
		break;
	case SB_REG_READ64:
		ret = sb_reg_read64(b, ra.offset, &ra.value);
		break;
	case SB_REG_WRITE64:
		ret = sb_reg_write64(b, ra.offset, ra.value);
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		return ret;
	return sb_arg_out(&ra, sizeof(ra), uarg, usize);
}

static long sb_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct sb_file *f = filp->private_data;
	struct sb_board *b = f->board;
	void __user *uarg = (void __user *)arg;
	long ret;

	/* Unknown commands are -ENOTTY even after removal. */
	switch (cmd) {
	case SB_IOC_API_VERSION:
	case SB_IOC_DEVICE_INFO:
	case SB_IOC_REGION_INFO:
	case SB_IOC_REG_ACCESS:
		break;
	default:
		return -ENOTTY;
	}
	if (!sb_board_get_live(b))
		return -ENODEV;
	switch (cmd) {
	case SB_IOC_API_VERSION:
		ret = sb_ioc_api_version(uarg);
		break;
	case SB_IOC_DEVICE_INFO:
		ret = sb_ioc_device_info(b, uarg);
		break;
	case SB_IOC_REGION_INFO:
		ret = sb_ioc_region_info(b, uarg);
		break;
	default:
		ret = sb_ioc_reg_access(b, uarg);
		break;
	}
	sb_board_put_live(b);
	return ret;
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
 * Mappings. The register region is inserted page by page at fault time, so a removal (which
 * sets 'removed' and then zaps every mapping of the device) can never race with a mapping
 * being set up: a later fault sees 'removed' and gets SIGBUS. The trace buffer is mapped at
 * once with dma_mmap_coherent(); its pages are freed only when no mapping is left
 * (trace_maps), so a process that still has it mapped never sees freed memory.
 */
enum sb_vma_kind { SB_VMA_REGS = 1, SB_VMA_TRACE = 2 };

static void sb_vm_open(struct vm_area_struct *vma)
{
	struct sb_file *f = vma->vm_file->private_data;
	struct sb_board *b = f->board;

	if ((unsigned long)vma->vm_private_data != SB_VMA_TRACE)
		return;
	mutex_lock(&b->trace_lock);
	b->trace_maps++;
	mutex_unlock(&b->trace_lock);
}

static void sb_vm_close(struct vm_area_struct *vma)
{
	struct sb_file *f = vma->vm_file->private_data;
	struct sb_board *b = f->board;

	if ((unsigned long)vma->vm_private_data != SB_VMA_TRACE)
		return;
	mutex_lock(&b->trace_lock);
	if (!--b->trace_maps && READ_ONCE(b->removed))
		sb_trace_free(b);
	mutex_unlock(&b->trace_lock);
}

static vm_fault_t sb_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct sb_file *f = vma->vm_file->private_data;
	struct sb_board *b = f->board;
	unsigned long pfn;
	vm_fault_t ret;

	/* The trace buffer is mapped in full by mmap(); a fault there means it was zapped. */
	if ((unsigned long)vma->vm_private_data != SB_VMA_REGS)
		return VM_FAULT_SIGBUS;
	if (!sb_board_get_live(b))
		return VM_FAULT_SIGBUS;
	pfn = PHYS_PFN(b->regs_start) + vmf->pgoff;
	ret = vmf_insert_pfn_prot(vma, vmf->address, pfn, vma->vm_page_prot);
	sb_board_put_live(b);
	return ret;
}

static const struct vm_operations_struct sb_vm_ops = {
    .open = sb_vm_open,
    .close = sb_vm_close,
    .fault = sb_vm_fault,
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

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (!sb_board_get_live(b))
		return -ENODEV;
	vma->vm_ops = &sb_vm_ops;
	switch (region) {
	case SB_REGION_REGS:
		if (!sb_fits(pgoff, npages, b->regs_len)) {
			ret = -EINVAL;
			break;
		}
		vma->vm_private_data = (void *)SB_VMA_REGS;
		sb_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
		vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
		break;
	case SB_REGION_TRACE:
		mutex_lock(&b->trace_lock);
		if (!b->trace_cpu || !sb_fits(pgoff, npages, b->trace_len)) {
			ret = -EINVAL;
		} else {
			vma->vm_private_data = (void *)SB_VMA_TRACE;
			sb_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
			/* dma_mmap_coherent() takes vm_pgoff as the offset in the buffer. */
			vma->vm_pgoff = pgoff;
			ret = dma_mmap_coherent(&b->pdev->dev, vma, b->trace_cpu, b->trace_dma,
			                        b->trace_len);
			if (!ret)
				b->trace_maps++;
		}
		mutex_unlock(&b->trace_lock);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	sb_board_put_live(b);
	return ret;
}

/* After 'removed' is set: take every page of every open file's mappings away. */
void sb_cdev_zap_mappings(struct sb_board *b)
{
	struct sb_file *f;

	mutex_lock(&b->files_lock);
	list_for_each_entry(f, &b->files, node) unmap_mapping_range(f->filp->f_mapping, 0, 0, 1);
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
