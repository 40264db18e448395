/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * stackbench PCIe driver: internal definitions shared by the files of the module.
 *
 * Lifetime. A board (struct sb_board) embeds the struct device of its character device; the
 * device's release frees the board. Every open file holds a reference, so a board that is
 * removed (unbind, hot-unplug, rmmod after close) while a process holds /dev/stackbench<N>
 * open lives on, marked 'removed': every file operation then fails with -ENODEV, poll reports
 * EPOLLERR | EPOLLHUP and a touch of an existing register mapping gets SIGBUS. The DMA
 * buffers (trace and replay: struct sb_dma_pages, sb_dma.c) have a life of their own: the
 * board and every user mapping of one hold a reference; removal unmaps its DMA side and drops
 * the board's, so existing mappings stay valid but detached until the last one goes and frees
 * the pages.
 *
 * Locking, outermost first:
 *   mmap_lock (the mm's) held by the mm around sb_mmap and the mapping callbacks.
 *   state_lock (rwsem)  'removed' and the hardware resources (registers, IRQ, DMA). File
 *                       operations and the register fault handler hold it for reading while
 *                       they touch the board; removal takes it for writing to set 'removed'.
 *                       Nothing touches user memory while holding it: a fault there takes
 *                       mmap_lock, the reverse order, which deadlocks against an mmap or a
 *                       fault waiting behind a queued removal. ioctls copy their argument in
 *                       before taking it and out after releasing it.
 *   trace.lock, replay.lock (mutexes, never both held)
 *                       a DMA ring (SB_IOC_TRACE_DMA, SB_IOC_REPLAY_DMA: its register sequence
 *                       and bounds).
 *   files_lock (mutex)  the list of open files (to zap their mappings on removal), pollers.
 *   reg_lock (mutex)    serializes 64-bit register pairs and the bridge mailbox.
 *   ev_lock (spinlock)  event bookkeeping.
 */
#ifndef SB_DRV_H
#define SB_DRV_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/dma-direction.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/version.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

/* Kernel API differences (Debian 12 has 6.1; dkms may build for newer kernels). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define sb_vm_flags_set(vma, flags) vm_flags_set(vma, flags)
#define sb_vm_flags_clear(vma, flags) vm_flags_clear(vma, flags)
#else
#define sb_vm_flags_set(vma, flags) ((vma)->vm_flags |= (flags))
#define sb_vm_flags_clear(vma, flags) ((vma)->vm_flags &= ~(flags))
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define sb_class_create(name) class_create(name)
#else
#define sb_class_create(name) class_create(THIS_MODULE, name)
#endif

#define SB_DRV_NAME "stackbench"
#define SB_MAX_BOARDS 16

#define PCI_VENDOR_ID_PICO 0x19de
#define SB_IVSHMEM_VENDOR 0x1af4
#define SB_IVSHMEM_DEVICE 0x1110

/* What kind of PCI function a board is (pci_device_id.driver_data). */
enum sb_kind {
	SB_KIND_AC510 = 1,   /* Micron/Pico AC-510: registers in BAR0, MSI/MSI-X */
	SB_KIND_IVSHMEM = 2, /* QEMU ivshmem-plain served by the bridge: image in BAR2 */
};

/*
 * A DMA buffer's pages: pages of the driver (alloc_pages_exact: order-0 pages, each with its
 * own reference count) that the board reaches through a streaming DMA mapping. Referenced by
 * the board until removal and by every user mapping; the last reference frees the pages.
 */
struct sb_dma_pages {
	struct kref ref;
	void *cpu;
	size_t len;
	bool detached;    /* the board was removed while the buffer was still mapped */
	const char *what; /* "trace" or "replay", for the log */
	char name[16];    /* the board's device name, for the log */
};

/* The board's side of a DMA buffer (sb_dma.c) and the ring its registers point at. */
struct sb_dma_area {
	struct mutex lock;          /* the ring: its register sequence and bounds */
	struct sb_dma_pages *pages; /* NULL: none, or the board was removed */
	dma_addr_t dma;             /* bus address of the buffer (while pages is set) */
	size_t len;
	enum dma_data_direction dir;
	u32 ring_off, ring_len; /* bytes of the buffer the board's registers hold */
	/* The block's registers that point the board at the ring (offsets in the register space):
	 * its control register, the ring's extent (size or log2) and its 64-bit bus address. */
	u32 reg_control, reg_extent, reg_addr;
};

struct sb_fw {
	u32 magic, block_version, fw_version, build_id, regmap_hash, regmap_size;
};

struct sb_board {
	struct device dev; /* the char device's device; release frees the board */
	struct cdev cdev;
	struct pci_dev *pdev; /* reference held until release */
	enum sb_kind kind;
	int minor;

	struct rw_semaphore state_lock;
	bool removed;

	/* The register region. */
	void __iomem *regs;
	int regs_bar;
	resource_size_t regs_start; /* bus/physical address of the region */
	resource_size_t regs_len;   /* bytes exposed (page multiple) */
	u32 regspace;               /* bytes of register space the firmware implements */
	struct mutex reg_lock;

	/* Test mode: the bridge's control page (mailbox) in BAR2. */
	void __iomem *bridge;
	u32 mb_seq;

	struct sb_fw fw;
	u32 irq_block;    /* offset of the irq block, or U32_MAX when absent */
	u32 trace_block;  /* offset of the trace block, or U32_MAX when absent */
	u32 replay_block; /* offset of the replay block, or U32_MAX when absent */

	/* Events: MSI/MSI-X when irq_vectors > 0, else a polling work item. */
	int irq_vectors;
	spinlock_t ev_lock;
	u64 ev_seq;         /* deliveries so far */
	u64 ev_bit_seq[32]; /* ev_seq at the latest delivery of each bit */
	u64 ev_time_ns;
	wait_queue_head_t ev_wait;
	struct delayed_work poll_work;
	unsigned int pollers; /* open files counted while polling (under files_lock) */

	/* Open files. */
	struct mutex files_lock;
	struct list_head files;

	/* The DMA buffers and the rings in them (trace.buf_addr/buf_size, replay.ring_addr). */
	struct sb_dma_area trace;
	struct sb_dma_area replay;
	u32 replay_log2; /* what replay.ring_log2 holds */
};

struct sb_file {
	struct sb_board *board;
	struct file *filp;
	struct list_head node; /* board->files */
	u64 ev_seen;           /* board->ev_seq when this file last read */
	bool polling;          /* counted in board->pollers */
};

static inline struct sb_board *sb_board_from_dev(struct device *dev)
{
	return container_of(dev, struct sb_board, dev);
}

/* sb_regs.c: register access (MMIO on hardware, the bridge mailbox in test mode). */
int sb_bridge_attach(struct sb_board *b);
int sb_reg_read(struct sb_board *b, u32 off, u32 *val);
int sb_reg_write(struct sb_board *b, u32 off, u32 val);
int sb_reg_read64(struct sb_board *b, u32 off, u64 *val);
int sb_reg_write64(struct sb_board *b, u32 off, u64 val);
int sb_fw_check(struct sb_board *b);
bool sb_reg_dma_owned(const struct sb_board *b, u32 off, u32 width);

/* sb_events.c */
int sb_events_init(struct sb_board *b);
void sb_events_teardown(struct sb_board *b);
bool sb_events_start_polling(struct sb_board *b);
void sb_events_stop_polling(struct sb_board *b);
bool sb_events_pending(struct sb_board *b, struct sb_file *f);
void sb_events_collect(struct sb_board *b, struct sb_file *f, u32 *events, u32 *count,
                       u64 *time_ns);

/* sb_dma.c */
int sb_dma_area_alloc(struct sb_board *b, struct sb_dma_area *a, size_t len,
                      enum dma_data_direction dir, const char *what);
void sb_dma_area_release(struct sb_board *b, struct sb_dma_area *a);
int sb_dma_area_mmap(struct sb_dma_area *a, struct vm_area_struct *vma, unsigned long pgoff,
                     unsigned long npages);
int sb_dma_point(struct sb_board *b, struct sb_dma_area *a, u64 addr, u32 extent);
int sb_dma_area_point(struct sb_board *b, struct sb_dma_area *a, u32 off, u32 extent, u32 ring_len);
void sb_dma_area_stop(struct sb_board *b, struct sb_dma_area *a);

/* sb_trace.c */
struct sb_trace_dma;
int sb_trace_init(struct sb_board *b);
int sb_trace_dma_ioctl(struct sb_board *b, struct sb_trace_dma *td, bool writer);

/* sb_replay.c */
struct sb_replay_dma;
int sb_replay_init(struct sb_board *b);
int sb_replay_dma_ioctl(struct sb_board *b, struct sb_replay_dma *rd, bool writer);

/* sb_cdev.c */
extern const struct file_operations sb_fops;
void sb_cdev_zap_mappings(struct sb_board *b);

/* sb_main.c */
extern unsigned int sb_poll_ms;
extern unsigned int sb_bridge_timeout_ms;

#endif /* SB_DRV_H */
