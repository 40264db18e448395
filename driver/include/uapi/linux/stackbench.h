/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * stackbench: userspace interface of the stackbench PCIe driver (/dev/stackbench<N>).
 *
 * One character device per board. It offers:
 *   - ioctl: API version, device info, region info, exact register access;
 *   - mmap: the register region (offset SB_REGION_OFFSET(SB_REGION_REGS)) and the DMA trace
 *     buffer (offset SB_REGION_OFFSET(SB_REGION_TRACE)), MAP_SHARED only, bounds-checked;
 *   - read/poll: board events (struct sb_event), the irq.status bits of the register map.
 *
 * Every ioctl argument struct begins with a __u32 'size' that userspace sets to sizeof the
 * struct it was compiled with. The driver rejects a size smaller than the first published
 * version of the struct (-EINVAL) or larger than a page (-EINVAL); a larger size whose extra
 * bytes are not zero gets -E2BIG (an extension this driver does not know). On return the
 * driver sets 'size' to the number of bytes it filled. Unknown ioctls get -ENOTTY. The ioctl
 * numbers do not encode the size (as VFIO's): the size field is the version.
 *
 * This header is shared by the kernel module and the host library (transport 'dev:').
 */
#ifndef _UAPI_LINUX_STACKBENCH_H
#define _UAPI_LINUX_STACKBENCH_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Interface version: major << 16 | minor. A different major is incompatible. */
#define SB_UAPI_VERSION_MAJOR 1
#define SB_UAPI_VERSION_MINOR 0
#define SB_UAPI_VERSION ((SB_UAPI_VERSION_MAJOR << 16) | SB_UAPI_VERSION_MINOR)

#define SB_IOC_MAGIC 0xD5

/* SB_IOC_API_VERSION: which interface the driver speaks. */
struct sb_api_version {
	__u32 size;
	__u32 version; /* out: SB_UAPI_VERSION of the driver */
};

/* Flags of struct sb_device_info. */
/* The board is QEMU's ivshmem-plain device served by the stackbench bridge (test mode). */
#define SB_DEVICE_F_TEST_MODE (1u << 0)
/*
 * Loads and stores through a mapping of the register region have exact register semantics
 * (real MMIO). When clear (test mode), use SB_IOC_REG_ACCESS for exact access: the mapping is
 * a register image the bridge keeps coherent by polling (see docs/driver.md).
 */
#define SB_DEVICE_F_MMAP_EXACT (1u << 1)
/* Events are signalled by MSI or MSI-X; when clear the driver polls the irq block. */
#define SB_DEVICE_F_MSI (1u << 2)
/* A DMA trace buffer is allocated (region SB_REGION_TRACE). */
#define SB_DEVICE_F_TRACE_DMA (1u << 3)

/* SB_IOC_DEVICE_INFO: the board, its PCI function and its firmware identity. */
struct sb_device_info {
	__u32 size;
	__u32 flags; /* SB_DEVICE_F_* */
	__u32 pci_domain;
	__u8 pci_bus;
	__u8 pci_dev;
	__u8 pci_fn;
	__u8 regs_bar; /* BAR index of the register region */
	__u16 vendor;
	__u16 device;
	__u16 subsystem_vendor;
	__u16 subsystem_device;
	__s32 numa_node; /* -1 when unknown */
	__u32 num_regions;
	__u32 irq_vectors;      /* 0: events are polled */
	__u32 poll_interval_ms; /* event polling period when irq_vectors is 0 */
	/* The firmware-ID block (register map fw_id). */
	__u32 fw_magic;
	__u32 fw_block_version;
	__u32 fw_version;
	__u32 fw_build_id;
	__u32 fw_regmap_hash;
	__u32 fw_regmap_size;
};

/* Regions. */
#define SB_REGION_REGS 0  /* the register space (the board's register BAR) */
#define SB_REGION_TRACE 1 /* the DMA trace buffer the board writes records into */
#define SB_REGION_COUNT 2

/* The mmap offset of a region: mmap(NULL, len, ..., MAP_SHARED, fd, SB_REGION_OFFSET(i) + o). */
#define SB_REGION_OFFSET_SHIFT 32
#define SB_REGION_OFFSET(index) ((__u64)(index) << SB_REGION_OFFSET_SHIFT)

#define SB_REGION_F_READ (1u << 0)
#define SB_REGION_F_WRITE (1u << 1)
#define SB_REGION_F_MMAP (1u << 2)

/* SB_IOC_REGION_INFO: one region; userspace sets size and index. */
struct sb_region_info {
	__u32 size;
	__u32 index; /* in: SB_REGION_* */
	__u32 flags; /* out: SB_REGION_F_* (0: the region is absent) */
	__u32 reserved;
	__u64 length;   /* out: bytes; a mapping must lie within [0, length) */
	__u64 offset;   /* out: mmap offset of the region's first byte */
	__u64 bus_addr; /* out: SB_REGION_TRACE: bus address programmed into trace.buf_addr */
};

/* Register access operations. */
#define SB_REG_READ32 1
#define SB_REG_WRITE32 2
#define SB_REG_READ64 3  /* low word (latches the high word), then the high word */
#define SB_REG_WRITE64 4 /* low word, then the high word */

/*
 * SB_IOC_REG_ACCESS: one exact register access, performed by the driver (ioread32/iowrite32
 * on hardware; a mailbox transaction with the bridge in test mode). 64-bit operations run
 * both halves without any other access of this device in between. offset must be 4-byte
 * aligned and the access inside the register region; reserved must be 0.
 */
struct sb_reg_io {
	__u32 size;
	__u32 op;     /* SB_REG_* */
	__u32 offset; /* byte offset in the register space */
	__u32 reserved;
	__u64 value; /* in for writes, out for reads */
};

/*
 * An event record, returned by read(2) (one record per call; the buffer must hold at least
 * sizeof(struct sb_event), else -EINVAL). Events that arrive before the reader collects them
 * are merged: 'events' is the union of the bits, 'count' how many deliveries were merged.
 * read(2) blocks until an event arrives (or -EAGAIN with O_NONBLOCK); poll(2) reports EPOLLIN.
 * After the board is removed read(2) fails with -ENODEV and poll(2) reports EPOLLERR|EPOLLHUP.
 */
struct sb_event {
	__u32 size;
	__u32 events; /* irq.status bits (sb_regmap.h SB_IRQ_STATUS_*_MASK) */
	__u32 count;
	__u32 reserved;
	__u64 time_ns; /* CLOCK_MONOTONIC of the latest delivery */
};

#define SB_IOC_API_VERSION _IO(SB_IOC_MAGIC, 0x00) /* struct sb_api_version */
#define SB_IOC_DEVICE_INFO _IO(SB_IOC_MAGIC, 0x01) /* struct sb_device_info */
#define SB_IOC_REGION_INFO _IO(SB_IOC_MAGIC, 0x02) /* struct sb_region_info */
#define SB_IOC_REG_ACCESS _IO(SB_IOC_MAGIC, 0x03)  /* struct sb_reg_io */

#endif /* _UAPI_LINUX_STACKBENCH_H */
