/* SPDX-License-Identifier: MIT */
/*
 * The transport operations table: the only path by which host code touches a board. The sim,
 * pci and dev transports implement it; tests implement it with scripted fakes.
 */
#ifndef STACKBENCH_TRANSPORT_H
#define STACKBENCH_TRANSPORT_H

#include <stdint.h>

#include "stackbench/device.h"
#include "stackbench/uri.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sb_transport_ops {
	const char *name;
	/* Open the board named by uri; store the transport's state in *priv. */
	int (*open)(const struct sb_uri *uri, void **priv);
	void (*close)(void *priv);
	int (*read32)(void *priv, uint32_t offset, uint32_t *value);
	int (*write32)(void *priv, uint32_t offset, uint32_t value);
	/* Optional: a 64-bit read in one access; NULL = low then high read32. */
	int (*read64)(void *priv, uint32_t offset, uint64_t *value);
	/* Bytes of register space. */
	uint32_t (*regspace_size)(void *priv);
	/* The bench clock. */
	uint64_t (*now_ns)(void *priv);
	int (*wait_ns)(void *priv, uint64_t ns);
	/* Optional (NULL = SB_ERR_NOT_SUPPORTED). */
	int (*dma_alloc)(void *priv, size_t len, struct sb_dma_buf *buf);
	void (*dma_free)(void *priv, struct sb_dma_buf *buf);
	/* Optional (NULL = poll the irq block on the bench clock). */
	int (*wait_event)(void *priv, uint32_t mask, uint64_t timeout_ns, uint32_t *events);
	/* Optional: the board's PCI function "DDDD:BB:DD.F" (NULL: not a PCI board). */
	int (*pci_address)(void *priv, char *bdf, size_t size);
	/*
	 * Optional: the simulated bench (thermal/power/cooling model) this board sits on, for
	 * the sim: instruments. Only the sim transport has one (NULL = SB_ERR_NOT_SUPPORTED).
	 */
	int (*bench)(void *priv, struct sb_bench_model **bench);
	/* Optional: what the transport knows of the board, one line of text, for provenance
	 * (struct sb_device_identity.detail). */
	int (*describe)(void *priv, char *buf, size_t size);
	/* Optional: the board profile the transport runs (the model's on sim:; NULL: none). */
	int (*profile)(void *priv, struct sb_board_profile *p);
	/*
	 * Optional: point the trace block's DMA ring (trace.buf_addr, buf_size) at buf and reset
	 * the block's pointers and counters, where host code may not write those registers (the
	 * kernel module owns them). NULL: the device layer writes them.
	 */
	int (*trace_dma_setup)(void *priv, const struct sb_dma_buf *buf);
	/* Optional: make what the board wrote into buf visible to the CPU (NULL: coherent). */
	int (*dma_sync)(void *priv, struct sb_dma_buf *buf);
	/*
	 * Optional, for transports whose DMA buffers have a purpose (the kernel module's):
	 * allocate the buffer the replay block reads descriptors from (freed by dma_free); point
	 * the replay block's ring (replay.ring_addr, ring_log2) at buf and reset the block, where
	 * host code may not write those registers; make the descriptors visible to the board and
	 * write replay.tail. NULL: dma_alloc, and the device layer writes the registers.
	 */
	int (*replay_dma_alloc)(void *priv, size_t len, struct sb_dma_buf *buf);
	int (*replay_dma_setup)(void *priv, const struct sb_dma_buf *buf, unsigned ring_log2);
	int (*replay_dma_submit)(void *priv, struct sb_dma_buf *buf, uint32_t tail);
	/*
	 * Optional, for boards a privileged process opens for another (sb_device_handle_open):
	 * open what open() would open of the board (the descriptor it drives it through) and
	 * return it (O_CLOEXEC), or a negative SB_ERR_*. open() then uses a handle given with
	 * sb_device_handle_give() instead (sb_transport_given_fd()).
	 */
	int (*handle_open)(const struct sb_uri *uri);
};

/*
 * For open(): the handle given for uri's scheme and path with sb_device_handle_give(), as a
 * duplicate the transport owns (O_CLOEXEC); -1 when none was given; SB_ERR_IO when it cannot
 * be duplicated.
 */
int sb_transport_given_fd(const struct sb_uri *uri);

/* The built-in transports. */
extern const struct sb_transport_ops sb_transport_sim;
extern const struct sb_transport_ops sb_transport_pci;
extern const struct sb_transport_ops sb_transport_dev;

/*
 * Open a device over an already opened transport (tests, tools): walks the register blocks as
 * sb_device_open() does. label is what sb_device_uri() reports. On failure ops->close(priv)
 * is called. Same return codes as sb_device_open().
 */
int sb_device_open_transport(struct sb_device **dev, const struct sb_transport_ops *ops, void *priv,
                             const char *label);

/* Monotonic clock helpers for hardware transports. */
uint64_t sb_monotonic_ns(void);
int sb_sleep_ns(uint64_t ns);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_TRANSPORT_H */
