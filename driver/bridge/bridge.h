/* SPDX-License-Identifier: MIT */
/*
 * The bridge: serves a board (the model) to a QEMU guest through shared memory, following
 * the protocol of driver/include/sb_bridge_proto.h. This is the engine; bridge_main.c is the
 * program around it. Single-threaded: one caller runs sb_bridge_poll() in a loop.
 */
#ifndef SB_BRIDGE_H
#define SB_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

/* What the bridge serves: register access and time (the board model in stackbench-bridge). */
struct sb_bridge_backend {
	int (*read32)(void *ctx, uint32_t offset, uint32_t *value);
	int (*write32)(void *ctx, uint32_t offset, uint32_t value);
	int (*advance_ps)(void *ctx, uint64_t dt_ps);
	void *ctx;
};

struct sb_bridge_stats {
	uint64_t polls;
	uint64_t image_stores;   /* guest stores noticed in the register image and applied */
	uint64_t mailbox_ops;    /* exact accesses served through the mailbox */
	uint64_t mailbox_errors; /* of which failed (range, bad op, model error) */
	uint64_t mb_service_ns;  /* total time from noticing a doorbell to the acknowledgement */
	uint64_t mb_service_max_ns;
	uint64_t refreshes;  /* full refreshes of the register image from the model */
	uint64_t refresh_ns; /* total time spent in them */
	uint64_t lag_max_ns; /* largest distance of the model's time behind the wall clock */
	uint64_t irqs;       /* interrupts raised through the irq callback */
};

struct sb_bridge;

/*
 * Take over shm (shm_len bytes, the ivshmem memory) and serve the backend's register space of
 * regs_size bytes: fill the register image, then publish the control page (magic last).
 * refresh_ns: at most this long between two refreshes of the image from the model.
 * max_step_ns: the model advances at most this much per poll (it catches up over later polls
 * when it is slower than the wall clock). now_ns: the current CLOCK_MONOTONIC.
 * Returns 0, SB_ERR_INVAL (sizes), SB_ERR_NOMEM, or the backend's error.
 */
int sb_bridge_new(struct sb_bridge **out, void *shm, size_t shm_len, uint32_t regs_size,
                  const struct sb_bridge_backend *be, uint64_t refresh_ns, uint64_t max_step_ns,
                  uint64_t now_ns);

/* Withdraw the control page's magic (the guest then sees no bridge) and free. NULL ignored. */
void sb_bridge_free(struct sb_bridge *br);

/*
 * One poll at now_ns (CLOCK_MONOTONIC): advance the model, apply the guest's stores to the
 * register image (configuration words before words with command bits), serve a mailbox
 * request, refresh the image when due. Returns the number of guest actions handled (0 when
 * idle) or the backend's error from advancing time.
 */
int sb_bridge_poll(struct sb_bridge *br, uint64_t now_ns);

/*
 * Interrupts (an ivshmem-doorbell device with MSI-X): every poll reads the model's
 * irq.pending and calls fn(ctx, bits) with the bits that became set since the previous poll,
 * as a board raises an MSI when a new event becomes pending. fn NULL: no interrupts (the
 * default; the guest then polls irq.pending).
 */
typedef void (*sb_bridge_irq_fn)(void *ctx, uint32_t new_bits);
void sb_bridge_set_irq(struct sb_bridge *br, sb_bridge_irq_fn fn, void *ctx);

/* Counters since sb_bridge_new(). */
const struct sb_bridge_stats *sb_bridge_stats(const struct sb_bridge *br);

#endif /* SB_BRIDGE_H */
