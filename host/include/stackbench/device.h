/* SPDX-License-Identifier: MIT */
/*
 * The device API: one board (simulated or real) behind a transport. Opening a device walks its
 * self-describing register blocks; after that, host code finds blocks by type and programs
 * registers with the offsets of the generated register map (sb_regmap.h).
 *
 * The device also owns the bench clock: sb_device_now_ns() / sb_device_wait_ns() are a
 * monotonic clock on hardware and the model's virtual time in simulation, so one host code
 * path serves both.
 */
#ifndef STACKBENCH_DEVICE_H
#define STACKBENCH_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sb_device;
struct sb_bench_model;

/* A register block found by the walk. */
struct sb_block_info {
	uint32_t offset;
	uint32_t type;
	uint32_t version; /* major << 16 | minor */
	uint32_t next;
	const char *name; /* block name from the register map, or NULL for an unknown type */
};

/* The firmware-ID block. */
struct sb_fw_info {
	uint32_t magic;
	uint32_t version;
	uint32_t fw_version;
	uint32_t build_id;
	uint32_t regmap_hash;
	uint32_t regmap_size;
};

/* A buffer the board can reach by DMA (sb_device_dma_alloc, sb_device_replay_dma_alloc). */
struct sb_dma_buf {
	void *host;
	uint64_t bus;
	size_t len;
	void *priv;
};

#define SB_DEVICE_MAX_BLOCKS 128

/*
 * Open the board named by uri (see stackbench/uri.h), walk its register blocks and check them.
 * Returns 0 or:
 *   SB_ERR_URI            malformed URI;
 *   SB_ERR_NOT_FOUND      no such device node, PCI function or profile;
 *   SB_ERR_NOT_SUPPORTED  transport not available in this build or on this machine;
 *   SB_ERR_PERM, SB_ERR_IO opening or mapping failed;
 *   SB_ERR_BAD_MAGIC      no firmware-ID block at offset 0, or a wrong magic;
 *   SB_ERR_VERSION        a known block has an unsupported major version;
 *   SB_ERR_LOOP           the NEXT pointers form a loop (or too many blocks);
 *   SB_ERR_ALIGN          a NEXT pointer is not block-aligned;
 *   SB_ERR_RANGE          a NEXT pointer lies outside the register space;
 *   SB_ERR_PARSE          bad simulator profile or option;
 *   SB_ERR_NOMEM.
 * The detail (sb_error_detail()) names the URI and the offending block.
 */
int sb_device_open(struct sb_device **dev, const char *uri);

/* Close and free; NULL is ignored. */
void sb_device_close(struct sb_device *dev);

/*
 * Board handles handed from a process that may open a board to one that may not (stackbenchd
 * opens its pci: and dev: boards as root and hands them to each job's process, which runs as
 * the submitting user). The board is then driven by the same transport code on the handed
 * descriptor; nothing else changes.
 *
 * sb_device_handle_open(): open what the transport of a pci: or dev: URI opens — pci: enables
 * the function and opens its register BAR's sysfs resource file, dev: opens the node, both
 * read-write. Returns the descriptor (O_CLOEXEC) or SB_ERR_URI (sim: has none) or the open's
 * error, named in the detail.
 *
 * sb_device_handle_give(): from now on sb_device_open() of a URI of the same scheme and path
 * (its options may differ) uses a duplicate of fd instead of opening the board. Takes fd over
 * (also on failure). Returns 0, SB_ERR_URI, SB_ERR_EXISTS (one was given already) or
 * SB_ERR_RANGE (more than SB_CAMPAIGN_MAX_DEVICES).
 */
int sb_device_handle_open(const char *uri);
int sb_device_handle_give(const char *uri, int fd);

const char *sb_device_uri(const struct sb_device *dev);
const char *sb_device_transport(const struct sb_device *dev);

/* Register access at byte offsets. Return 0 or the transport's error (SB_ERR_RANGE, SB_ERR_IO). */
int sb_device_read32(struct sb_device *dev, uint32_t offset, uint32_t *value);
int sb_device_write32(struct sb_device *dev, uint32_t offset, uint32_t value);
/* 64-bit registers: low word first (it latches the high word), then the high word. */
int sb_device_read64(struct sb_device *dev, uint32_t offset, uint64_t *value);
int sb_device_write64(struct sb_device *dev, uint32_t offset, uint64_t value);

/* Bytes of register space of the transport. */
uint32_t sb_device_regspace_size(const struct sb_device *dev);

/* The blocks in walk order. */
unsigned sb_device_block_count(const struct sb_device *dev);
const struct sb_block_info *sb_device_block(const struct sb_device *dev, unsigned i);

/* Offset of the index-th block of a type; SB_ERR_NOT_FOUND if there is none. */
int sb_device_find_block(const struct sb_device *dev, uint32_t type, unsigned index,
                         uint32_t *offset);

/* Number of blocks of a type (e.g. GUPS ports). */
unsigned sb_device_count_blocks(const struct sb_device *dev, uint32_t type);

/* Number of GUPS ports. */
unsigned sb_device_port_count(const struct sb_device *dev);

const struct sb_fw_info *sb_device_fw(const struct sb_device *dev);

/* What a board is, for the provenance of every result. */
/*
 * A board described by a profile file (the simulated board's model profile): its name, a hash
 * of the file's content, and the bench it stands on. No path: results carrying it are shared
 * between machines.
 */
struct sb_board_profile {
	char name[64];
	char content_hash[32]; /* "fnv1a64:9d8932ebc6cc1e05"; "" for a built-in profile */
	char bench[64];        /* the bench model's name; "" without one */
};

struct sb_device_identity {
	char uri[256];       /* as opened */
	char transport[8];   /* "sim", "pci", "dev" */
	uint32_t fw_version; /* the design's version, major << 16 | minor */
	uint32_t build_id;   /* the design's build identifier */
	uint32_t regmap_hash;
	bool regmap_matches; /* the design's register map is the one this host was built with */
	char pci[16];        /* "DDDD:BB:DD.F", or "" */
	/* The transport's own account: the model profile and its content hash and the bench on
	 * sim:, the kernel module and uapi versions on dev:, the PCI ids on pci:. */
	char detail[256];
	bool have_profile; /* a board profile (sim:) */
	struct sb_board_profile profile;
};

/* Fill id for dev. Returns 0 (a transport that cannot describe itself leaves detail ""). */
int sb_device_identity(struct sb_device *dev, struct sb_device_identity *id);

/* Bench clock, in nanoseconds since the device was opened (simulation) or since boot. */
uint64_t sb_device_now_ns(struct sb_device *dev);

/*
 * Let ns nanoseconds of bench time pass: sleep on hardware, advance the model in simulation.
 * Returns 0, SB_ERR_INTERRUPTED, or the model's error.
 */
int sb_device_wait_ns(struct sb_device *dev, uint64_t ns);

/*
 * Work to do while bench time passes: with a wait hook set, sb_device_wait_ns() lets at most
 * *next_ns pass at a time and calls fn between the steps (fn sets the next step, > 0); an error
 * from fn ends the wait with it. Waits inside fn do not call it again. This is how a trace
 * capture drains the board while a measurement that knows nothing of it waits
 * (sb_hbm_point_capture). fn NULL removes the hook.
 */
typedef int (*sb_device_wait_hook)(void *ctx, uint64_t *next_ns);
void sb_device_set_wait_hook(struct sb_device *dev, sb_device_wait_hook fn, void *ctx,
                             uint64_t first_ns);

/*
 * The board's PCI function as "DDDD:BB:DD.F" (to find the CPUs and memory near it).
 * SB_ERR_NOT_SUPPORTED for the simulated board.
 */
int sb_device_pci_address(struct sb_device *dev, char *bdf, size_t size);

/* Allocate / free a buffer the board can write. SB_ERR_NOT_SUPPORTED where unavailable. */
int sb_device_dma_alloc(struct sb_device *dev, size_t len, struct sb_dma_buf *buf);
void sb_device_dma_free(struct sb_device *dev, struct sb_dma_buf *buf);

/*
 * Point the trace block's DMA ring at buf (trace.buf_addr = buf->bus, buf_size = buf->len
 * rounded down to whole records), with capture off and the block's pointers and counters reset.
 * On dev: the kernel module does it (SB_IOC_TRACE_DMA: the driver alone programs DMA addresses);
 * elsewhere the registers are written. Returns 0, SB_ERR_NOT_FOUND (no trace block),
 * SB_ERR_RANGE (the ring is not inside the module's buffer) or a transport error.
 */
int sb_device_trace_dma_setup(struct sb_device *dev, const struct sb_dma_buf *buf);

/* Make what the board wrote into buf by DMA visible to the CPU (a no-op where coherent). */
int sb_device_dma_sync(struct sb_device *dev, struct sb_dma_buf *buf);

/*
 * Allocate a buffer of len bytes the board reads by DMA: the replay block's descriptor ring.
 * On dev: the kernel module's replay buffer (uapi 1.2; one per board, SB_ERR_BUSY while in
 * use, SB_ERR_RANGE when len exceeds it), elsewhere what sb_device_dma_alloc gives (sim: a
 * model DMA window); SB_ERR_NOT_SUPPORTED where there is none (pci:). Free it with
 * sb_device_dma_free.
 */
int sb_device_replay_dma_alloc(struct sb_device *dev, size_t len, struct sb_dma_buf *buf);

/*
 * Point the replay block's descriptor ring at the start of buf: replay.ring_addr = buf->bus,
 * replay.ring_log2 = ring_log2 (2^ring_log2 descriptors of SB_REPLAY_DESC_BYTES, which must
 * fit buf), with the replay off and its pointers, counters and statistics reset. On dev: the
 * kernel module does it (SB_IOC_REPLAY_DMA: the driver alone programs DMA addresses); elsewhere
 * the registers are written. Returns 0, SB_ERR_NOT_FOUND (no replay block), SB_ERR_RANGE (the
 * ring does not fit buf, or the module's buffer) or a transport error.
 */
int sb_device_replay_dma_setup(struct sb_device *dev, const struct sb_dma_buf *buf,
                               unsigned ring_log2);

/*
 * Hand the replay block the descriptors written into buf so far: make them visible to the
 * board (a no-op where coherent), then replay.tail = tail (free-running count of descriptors
 * written). On dev: one SB_IOC_REPLAY_DMA call. Returns 0, SB_ERR_NOT_FOUND or a transport
 * error.
 */
int sb_device_replay_dma_submit(struct sb_device *dev, struct sb_dma_buf *buf, uint32_t tail);

/*
 * Wait up to timeout_ns of bench time for one of the events in mask (irq block bits); *events
 * receives the pending bits. Returns 0, SB_ERR_TIMEOUT, or a transport error.
 */
int sb_device_wait_event(struct sb_device *dev, uint32_t mask, uint64_t timeout_ns,
                         uint32_t *events);

/*
 * The simulated bench of a simulated board (stackbench/bench_model.h): what the sim:
 * instruments (camera, meter, cooling rig) measure and act on. It models the lab around the
 * board, not the board: host code still reaches the board only through registers.
 * Returns 0, or SB_ERR_NOT_SUPPORTED for boards that are not simulated.
 */
int sb_device_bench(struct sb_device *dev, struct sb_bench_model **bench);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_DEVICE_H */
