// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stackbench PCIe driver: module, PCI binding, probe and removal.
 *
 * Binds the Micron/Pico AC-510 (vendor 0x19de; the device id is not public, so it is the
 * module parameter ac510_device_id) and, with test_mode=1, QEMU's ivshmem-plain device
 * (1af4:1110) served by the stackbench bridge, which is how the driver is tested without a
 * board. Everything else lives in userspace: the driver maps the register BAR, checks the
 * firmware identity, delivers events and owns the DMA buffers (trace and replay) and the
 * registers that point the board at them.
 */
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "sb_drv.h"
#include "sb_regmap.h"

static unsigned short ac510_device_id;
module_param(ac510_device_id, ushort, 0444);
MODULE_PARM_DESC(ac510_device_id, "PCI device id of the AC-510 (vendor 0x19de); 0 binds none");

static bool test_mode;
module_param(test_mode, bool, 0444);
MODULE_PARM_DESC(test_mode,
                 "Also bind QEMU ivshmem (1af4:1110) served by stackbench-bridge (VM tests)");

/* poll_ms is 1 to 60000: 0 would requeue the poll work at once, for ever (a spinning CPU). */
#define SB_POLL_MS_MAX 60000
unsigned int sb_poll_ms = 10;

static int sb_poll_ms_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret = kstrtouint(val, 0, &ms);

	if (ret)
		return ret;
	if (ms < 1 || ms > SB_POLL_MS_MAX)
		return -EINVAL;
	WRITE_ONCE(*(unsigned int *)kp->arg, ms);
	return 0;
}

static const struct kernel_param_ops sb_poll_ms_ops = {
    .set = sb_poll_ms_set,
    .get = param_get_uint,
};
module_param_cb(poll_ms, &sb_poll_ms_ops, &sb_poll_ms, 0644);
MODULE_PARM_DESC(poll_ms, "Event polling period in ms without MSI, 1..60000 (default 10)");

unsigned int sb_bridge_timeout_ms = 1000;
module_param_named(bridge_timeout_ms, sb_bridge_timeout_ms, uint, 0644);
MODULE_PARM_DESC(bridge_timeout_ms, "Test mode: how long to wait for the bridge (default 1000)");

static dev_t sb_devt;
static DEFINE_IDA(sb_minors);
static struct class *sb_class;

/* The AC-510's id is a parameter: bind any Pico function, probe accepts only that id. */
static const struct pci_device_id sb_pci_ids[] = {
    {PCI_VDEVICE(PICO, PCI_ANY_ID), .driver_data = SB_KIND_AC510}, {}};
MODULE_DEVICE_TABLE(pci, sb_pci_ids);

/* The last reference is gone: no open file, no mapping. */
static void sb_board_release(struct device *dev)
{
	struct sb_board *b = sb_board_from_dev(dev);

	/* Normally at removal already. */
	sb_dma_area_release(b, &b->replay);
	sb_dma_area_release(b, &b->trace);
	ida_free(&sb_minors, b->minor);
	pci_dev_put(b->pdev);
	kfree(b);
}

/* Map the register BAR; in test mode also find the bridge. */
static int sb_map_regs(struct sb_board *b)
{
	struct pci_dev *pdev = b->pdev;
	resource_size_t len;
	int ret;

	b->regs_bar = b->kind == SB_KIND_IVSHMEM ? 2 : 0;
	if (!(pci_resource_flags(pdev, b->regs_bar) & IORESOURCE_MEM)) {
		dev_err(&pdev->dev, "BAR%d is not a memory BAR\n", b->regs_bar);
		return -ENODEV;
	}
	len = pci_resource_len(pdev, b->regs_bar);
	if (len < PAGE_SIZE) {
		dev_err(&pdev->dev, "BAR%d is %pa bytes, too small\n", b->regs_bar, &len);
		return -ENODEV;
	}
	ret = pci_request_region(pdev, b->regs_bar, SB_DRV_NAME);
	if (ret)
		return ret;
	b->regs = pci_iomap(pdev, b->regs_bar, 0);
	if (!b->regs) {
		ret = -ENOMEM;
		goto fail_release;
	}
	b->regs_start = pci_resource_start(pdev, b->regs_bar);
	b->regs_len = len;
	if (b->kind == SB_KIND_IVSHMEM) {
		ret = sb_bridge_attach(b);
		if (ret)
			goto fail_unmap;
		/* Userspace sees the register image only, never the mailbox. */
		b->regs_len = PAGE_ALIGN(b->regspace);
	}
	return 0;

fail_unmap:
	pci_iounmap(pdev, b->regs);
	b->regs = NULL;
fail_release:
	pci_release_region(pdev, b->regs_bar);
	return ret;
}

static void sb_unmap_regs(struct sb_board *b)
{
	pci_iounmap(b->pdev, b->regs);
	b->regs = NULL;
	b->bridge = NULL;
	pci_release_region(b->pdev, b->regs_bar);
}

static int sb_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct sb_board *b;
	int minor, ret;

	if (id->driver_data == SB_KIND_AC510 &&
	    (!ac510_device_id || pdev->device != ac510_device_id)) {
		dev_info(&pdev->dev,
		         "Pico device %04x:%04x is not the AC-510 id (ac510_device_id=%#06x)\n",
		         pdev->vendor, pdev->device, ac510_device_id);
		return -ENODEV;
	}
	minor = ida_alloc_max(&sb_minors, SB_MAX_BOARDS - 1, GFP_KERNEL);
	if (minor < 0)
		return minor;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b) {
		ida_free(&sb_minors, minor);
		return -ENOMEM;
	}
	b->pdev = pci_dev_get(pdev);
	b->kind = id->driver_data;
	b->minor = minor;
	init_rwsem(&b->state_lock);
	mutex_init(&b->reg_lock);
	mutex_init(&b->files_lock);
	mutex_init(&b->trace.lock);
	mutex_init(&b->replay.lock);
	INIT_LIST_HEAD(&b->files);
	b->irq_block = U32_MAX;
	b->trace_block = U32_MAX;
	b->replay_block = U32_MAX;
	/* From here on the board is freed by put_device() (sb_board_release). */
	device_initialize(&b->dev);
	b->dev.class = sb_class;
	b->dev.parent = &pdev->dev;
	b->dev.devt = MKDEV(MAJOR(sb_devt), minor);
	b->dev.release = sb_board_release;
	ret = dev_set_name(&b->dev, SB_DRV_NAME "%d", minor);
	if (ret)
		goto fail_put;

	ret = pci_enable_device_mem(pdev);
	if (ret)
		goto fail_put;
	ret = sb_map_regs(b);
	if (ret)
		goto fail_disable;
	ret = sb_fw_check(b);
	if (ret)
		goto fail_unmap;
	pci_set_master(pdev);
	ret = sb_trace_init(b);
	if (ret)
		goto fail_master;
	ret = sb_replay_init(b);
	if (ret)
		goto fail_trace;
	ret = sb_events_init(b);
	if (ret)
		goto fail_replay;
	cdev_init(&b->cdev, &sb_fops);
	b->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&b->cdev, &b->dev);
	if (ret)
		goto fail_events;
	pci_set_drvdata(pdev, b);
	dev_info(&pdev->dev,
	         "%s: %s, firmware %u.%u (build %#x), regmap %#010x, %pa bytes of registers in "
	         "BAR%d, events by %s, trace buffer %zu KiB, replay buffer %zu KiB\n",
	         dev_name(&b->dev),
	         b->kind == SB_KIND_IVSHMEM ? "simulated board (test mode)" : "AC-510",
	         b->fw.fw_version >> 16, b->fw.fw_version & 0xffff, b->fw.build_id,
	         b->fw.regmap_hash, &b->regs_len, b->regs_bar, b->irq_vectors ? "MSI" : "polling",
	         b->trace.pages ? b->trace.len / 1024 : 0,
	         b->replay.pages ? b->replay.len / 1024 : 0);
	return 0;

fail_events:
	b->removed = true;
	sb_events_teardown(b);
fail_replay:
	sb_dma_area_stop(b, &b->replay);
fail_trace:
	sb_dma_area_stop(b, &b->trace);
	pci_clear_master(pdev);
	sb_dma_area_release(b, &b->replay);
	sb_dma_area_release(b, &b->trace);
fail_master:
	pci_clear_master(pdev);
fail_unmap:
	sb_unmap_regs(b);
fail_disable:
	pci_disable_device(pdev);
fail_put:
	put_device(&b->dev);
	return ret;
}

/*
 * Removal (unbind, hot-unplug, rmmod): the board may still be open. Mark it removed (waiting
 * for operations in flight), take the register mappings away, quiesce the board, stop and
 * unmap its DMA and give back its resources; open files keep the struct alive and get -ENODEV
 * until they close, mappings of the DMA buffers keep their pages (detached) until they go.
 */
static void sb_remove(struct pci_dev *pdev)
{
	struct sb_board *b = pci_get_drvdata(pdev);

	cdev_device_del(&b->cdev, &b->dev);
	down_write(&b->state_lock);
	b->removed = true;
	up_write(&b->state_lock);
	sb_cdev_zap_mappings(b);
	sb_events_teardown(b);
	sb_dma_area_stop(b, &b->replay);
	sb_dma_area_stop(b, &b->trace);
	pci_clear_master(pdev);
	sb_dma_area_release(b, &b->replay);
	sb_dma_area_release(b, &b->trace);
	sb_unmap_regs(b);
	pci_disable_device(pdev);
	pci_set_drvdata(pdev, NULL);
	dev_info(&pdev->dev, "%s removed\n", dev_name(&b->dev));
	put_device(&b->dev);
}

static struct pci_driver sb_driver = {
    .name = SB_DRV_NAME,
    .id_table = sb_pci_ids,
    .probe = sb_probe,
    .remove = sb_remove,
};

static int __init sb_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&sb_devt, 0, SB_MAX_BOARDS, SB_DRV_NAME);
	if (ret)
		return ret;
	sb_class = sb_class_create(SB_DRV_NAME);
	if (IS_ERR(sb_class)) {
		ret = PTR_ERR(sb_class);
		goto fail_chrdev;
	}
	ret = pci_register_driver(&sb_driver);
	if (ret)
		goto fail_class;
	if (test_mode) {
		/* Not in the module's alias table: test mode never autoloads on an ivshmem VM. */
		ret = pci_add_dynid(&sb_driver, SB_IVSHMEM_VENDOR, SB_IVSHMEM_DEVICE, PCI_ANY_ID,
		                    PCI_ANY_ID, 0, 0, SB_KIND_IVSHMEM);
		if (ret)
			goto fail_driver;
	}
	return 0;

fail_driver:
	pci_unregister_driver(&sb_driver);
fail_class:
	class_destroy(sb_class);
fail_chrdev:
	unregister_chrdev_region(sb_devt, SB_MAX_BOARDS);
	return ret;
}

static void __exit sb_exit(void)
{
	pci_unregister_driver(&sb_driver);
	class_destroy(sb_class);
	unregister_chrdev_region(sb_devt, SB_MAX_BOARDS);
	ida_destroy(&sb_minors);
}

module_init(sb_init);
module_exit(sb_exit);

MODULE_AUTHOR("stackbench");
MODULE_DESCRIPTION("stackbench: PCIe driver for the AC-510 HMC bench board");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_VERSION("0.1.0");
