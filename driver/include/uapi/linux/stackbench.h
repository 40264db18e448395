/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * stackbench: userspace interface of the stackbench PCIe driver (/dev/stackbench<N>).
 *
 * One character device per board. It offers:
 *   - ioctl: API version, device info, region info, exact register access, trace DMA setup
 *     and progress, replay ring setup, submission and progress;
 *   - mmap: the register region (offset SB_REGION_OFFSET(SB_REGION_REGS)), the DMA trace
 *     buffer (SB_REGION_OFFSET(SB_REGION_TRACE)) and the replay buffer
 *     (SB_REGION_OFFSET(SB_REGION_REPLAY)), MAP_SHARED only, bounds-checked;
 *   - read/poll: board events (struct sb_event), the irq.status bits of the register map.
 *
 * Access (docs/driver.md, "Trust model"). A file opened read-only may read (ioctls, mappings
 * without PROT_WRITE, events); register writes, SB_TRACE_DMA_SETUP, SB_REPLAY_DMA_SETUP and
 * SB_REPLAY_DMA_SUBMIT need a file opened for writing (else -EBADF). The registers that decide
 * which host memory the board reaches by DMA (trace.buf_addr, trace.buf_size,
 * replay.ring_addr, replay.ring_log2) are the driver's: SB_IOC_REG_ACCESS refuses writes to
 * them (-EPERM), and SB_IOC_TRACE_DMA and SB_IOC_REPLAY_DMA program them with the driver's own
 * buffers. A writable mapping of the register region
 * bypasses every check, so it needs CAP_SYS_RAWIO in the opener (else mmap is -EPERM and the
 * region lacks SB_REGION_F_MMAP_WRITE): without it, writes go through SB_IOC_REG_ACCESS.
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
/* 1.1: SB_IOC_TRACE_DMA, SB_REGION_F_MMAP_WRITE, access rules above. */
/* 1.2: SB_IOC_REPLAY_DMA, region SB_REGION_REPLAY, SB_DEVICE_F_REPLAY_DMA; the replay
 *      block's DMA registers are the driver's. */
#define SB_UAPI_VERSION_MINOR 2
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
/* 1.2: a replay buffer is allocated (region SB_REGION_REPLAY, SB_IOC_REPLAY_DMA). */
#define SB_DEVICE_F_REPLAY_DMA (1u << 4)

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
#define SB_REGION_REGS 0   /* the register space (the board's register BAR) */
#define SB_REGION_TRACE 1  /* the DMA trace buffer the board writes records into */
#define SB_REGION_REPLAY 2 /* 1.2: the replay buffer the board reads descriptors from */
#define SB_REGION_COUNT 3

/* The mmap offset of a region: mmap(NULL, len, ..., MAP_SHARED, fd, SB_REGION_OFFSET(i) + o). */
#define SB_REGION_OFFSET_SHIFT 32
#define SB_REGION_OFFSET(index) ((__u64)(index) << SB_REGION_OFFSET_SHIFT)

#define SB_REGION_F_READ (1u << 0)
#define SB_REGION_F_WRITE (1u << 1)
#define SB_REGION_F_MMAP (1u << 2)
/* 1.1: this file may map the region with PROT_WRITE (without it: PROT_READ only). */
#define SB_REGION_F_MMAP_WRITE (1u << 3)

/* SB_IOC_REGION_INFO: one region; userspace sets size and index. */
struct sb_region_info {
	__u32 size;
	__u32 index; /* in: SB_REGION_* */
	__u32 flags; /* out: SB_REGION_F_* (0: the region is absent) */
	__u32 reserved;
	__u64 length;   /* out: bytes; a mapping must lie within [0, length) */
	__u64 offset;   /* out: mmap offset of the region's first byte */
	__u64 bus_addr; /* out: SB_REGION_TRACE, SB_REGION_REPLAY: the buffer's bus address
	                   (informational: SB_IOC_TRACE_DMA, SB_IOC_REPLAY_DMA program it) */
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
 * aligned and the access inside the register region; reserved must be 0. Writes need a file
 * opened for writing (-EBADF otherwise); writes that touch a register deciding where the
 * board's DMA goes (trace.buf_addr, trace.buf_size, replay.ring_addr, replay.ring_log2) are
 * -EPERM, whatever the value: SB_IOC_TRACE_DMA and SB_IOC_REPLAY_DMA program those.
 */
struct sb_reg_io {
	__u32 size;
	__u32 op;     /* SB_REG_* */
	__u32 offset; /* byte offset in the register space */
	__u32 reserved;
	__u64 value; /* in for writes, out for reads */
};

/* SB_IOC_TRACE_DMA operations. */
#define SB_TRACE_DMA_STATUS 0 /* the capture's progress; any file */
#define SB_TRACE_DMA_SETUP 1  /* point the board's trace DMA at a ring in the buffer; writers */

/*
 * SB_IOC_TRACE_DMA (1.1): trace capture into the DMA trace buffer (region SB_REGION_TRACE).
 * The driver alone programs the board's DMA address registers, always with its own buffer.
 *
 * SETUP (a file opened for writing): clears trace.control (capture and DMA off), programs
 * trace.buf_addr and trace.buf_size with the ring [ring_offset, ring_offset + ring_size) of
 * the buffer (both multiples of the record size; ring_size 0: up to the end of the buffer),
 * then pulses trace.control.reset (pointers and counters to 0). -EINVAL when the ring does
 * not fit the buffer. Capture itself is the caller's: write burst_len, gap, port_mask, then
 * trace.control = enable | dma (SB_IOC_REG_ACCESS or the mapping).
 *
 * STATUS (any file): makes the records the board has written visible to the CPU (a DMA sync
 * of the ring) and returns the capture's counters. The newest records are at ring_offset +
 * [0, wr_ptr) of the mapped buffer; once the ring has wrapped (status & wrapped),
 * [wr_ptr, ring_size) holds older ones. 'records' counts the records written since SETUP: a
 * reader that has consumed N of them has lost records - N - ring_size / record_size of them
 * when that is positive.
 *
 * Events: the board sets irq.status.trace_ready at the end of every burst; read(2) on the
 * device returns it in struct sb_event (the default 'events' mask includes it). The usual loop
 * is: SETUP, start capture, then { poll/read until trace_ready; STATUS; consume the new
 * records }. -EOPNOTSUPP when the board has no trace block or the module no buffer
 * (trace_kib=0).
 */
struct sb_trace_dma {
	__u32 size;
	__u32 op;          /* in: SB_TRACE_DMA_* */
	__u32 ring_offset; /* in (SETUP), out: byte offset of the ring in the trace buffer */
	__u32 ring_size;   /* in (SETUP), out: bytes of the ring */
	__u32 record_size; /* out: trace.record_size, bytes per record */
	__u32 wr_ptr;      /* out: trace.wr_ptr, byte offset in the ring of the next record */
	__u32 status;      /* out: trace.status (active, full, wrapped) */
	__u32 sample_id;   /* out: trace.sample_id, the current or last burst */
	__u64 records;     /* out: trace.records, records written since SETUP */
	__u64 dropped;     /* out: trace.dropped, records the board could not write */
};

/* SB_IOC_REPLAY_DMA operations. */
#define SB_REPLAY_DMA_STATUS 0 /* the replay's progress; any file */
#define SB_REPLAY_DMA_SETUP 1  /* point the replay block at a ring in the buffer; writers */
#define SB_REPLAY_DMA_SUBMIT 2 /* hand the board the descriptors up to 'tail'; writers */

/*
 * SB_IOC_REPLAY_DMA (1.2): trace replay from the replay buffer (region SB_REGION_REPLAY). The
 * board reads request descriptors (replay.desc_size bytes each) from a ring in host memory;
 * the driver alone programs where (replay.ring_addr, replay.ring_log2), always inside its own
 * buffer. Userspace writes descriptors through a mapping of the region.
 *
 * SETUP (a file opened for writing): clears replay.control (replay off), programs
 * replay.ring_addr and replay.ring_log2 with the ring of 2^ring_log2 descriptors at
 * ring_offset in the buffer (a multiple of the descriptor size; the whole ring inside the
 * buffer, else -EINVAL), then pulses replay.control.reset (head, tail, counters to 0). After
 * probe the ring is at offset 0 and as large as the buffer holds (a power of two).
 *
 * SUBMIT (a file opened for writing): makes the descriptors written into the ring visible to
 * the board (a DMA sync of the ring; a no-op on x86 unless the DMA is bounced), then writes
 * replay.tail = tail (free-running: descriptor tail mod 2^ring_log2 is written next). The
 * replay itself is the caller's: port_mask, then replay.control = enable [| timed].
 *
 * STATUS (any file), and the answer to SETUP and SUBMIT: the ring (ring_offset, ring_log2) and
 * the replay.desc_size, tail, head and status registers. -EOPNOTSUPP when the board has no
 * replay block.
 */
struct sb_replay_dma {
	__u32 size;
	__u32 op;          /* in: SB_REPLAY_DMA_* */
	__u32 ring_offset; /* in (SETUP), out: byte offset of the ring in the replay buffer */
	__u32 ring_log2;   /* in (SETUP), out: the ring holds 2^ring_log2 descriptors */
	__u32 tail;        /* in (SUBMIT), out: replay.tail, descriptors handed to the board */
	__u32 head;        /* out: replay.head, descriptors the board has fetched */
	__u32 status;      /* out: replay.status (busy, idle, error, bad_desc) */
	__u32 desc_size;   /* out: replay.desc_size, bytes per descriptor */
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
#define SB_IOC_TRACE_DMA _IO(SB_IOC_MAGIC, 0x04)   /* struct sb_trace_dma (1.1) */
#define SB_IOC_REPLAY_DMA _IO(SB_IOC_MAGIC, 0x05)  /* struct sb_replay_dma (1.2) */

#endif /* _UAPI_LINUX_STACKBENCH_H */
