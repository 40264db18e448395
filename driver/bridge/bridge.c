/* SPDX-License-Identifier: MIT */
/*
 * The bridge engine: keeps a register image in shared memory coherent with the board model
 * and serves exact accesses through a mailbox (driver/include/sb_bridge_proto.h).
 *
 * The image path. The guest's stores into the image are plain memory writes that do not
 * trap, so every poll compares the image with a shadow copy (what the bridge itself last put
 * there). A word that differs was stored by the guest: it is written to the model and the
 * word is replaced by what the model reads back (pulse bits read 0, write-only registers read
 * 0, read-only bits keep the hardware value). All changed words of one poll are applied in two
 * passes, words without command bits first, then words with pulse, write-1-to-clear or
 * write-only bits, each pass in address order, so "configure, then start" keeps its order
 * even when both stores land in the same poll. Every bridge store into the image is a
 * compare-and-swap against the shadow, so a guest store that races with it is never lost;
 * it is simply noticed at the next poll. Read-only words are refreshed from the model at least
 * every refresh_ns.
 *
 * The mailbox path is exact: a request is performed on the model as the hardware would see
 * it, including read side effects (the low-word latch of 64-bit registers is kept by the bridge
 * per mailbox user; a read of trace.rd_data advances rd_index). Image stores made before the
 * doorbell are applied before the request.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "sb_bridge_proto.h"
#include "sb_regmap.h"
#include "stackbench/error.h"
#include "stackbench/transport.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the bridge protocol is little-endian; this host is not"
#endif

/* What a word of the register space is, for the image. */
enum word_kind {
	W_HOLE = 0,     /* no register: the model reads 0 */
	W_HEADER,       /* block TYPE / VERSION / NEXT */
	W_PLAIN,        /* a register word without read side effects */
	W_LATCH_LO,     /* low word of a 64-bit register whose high word is latched by its read */
	W_LATCH_HI,     /* the latched high word */
	W_READ_ADVANCE, /* a read has a side effect (trace.rd_data): shown without it */
};

#define W_CMD 0x80u /* flag: the word has pulse, write-1-to-clear or write-only bits */
#define W_KIND(k) ((k)&0x7Fu)

struct sb_bridge {
	uint32_t *shm;
	size_t shm_len;
	uint32_t *image; /* the register image, nwords words */
	uint32_t *ctrl;  /* the control page */
	uint32_t nwords;
	uint32_t *shadow;      /* what the bridge last stored into each image word */
	uint8_t *kind;         /* enum word_kind | W_CMD */
	uint32_t *latch;       /* mailbox users' latched high words (index: the high word) */
	uint32_t *changed;     /* scratch: words the guest stored in this poll */
	uint32_t rd_index_off; /* trace.rd_index, UINT32_MAX without a trace block */
	uint32_t pending_off;  /* irq.pending, UINT32_MAX without an irq block */
	uint32_t irq_prev;     /* irq.pending at the previous poll */
	sb_bridge_irq_fn irq_fn;
	void *irq_ctx;
	uint32_t ack;
	struct sb_bridge_backend be;
	uint64_t t0_ns, model_ns, last_refresh_ns, refresh_ns, max_step_ns;
	struct sb_bridge_stats st;
};

static inline uint32_t load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline uint32_t ctrl_get(const struct sb_bridge *br, uint32_t off)
{
	return load_acquire(&br->ctrl[off / 4]);
}

static inline void ctrl_put(struct sb_bridge *br, uint32_t off, uint32_t v)
{
	store_release(&br->ctrl[off / 4], v);
}

static inline uint64_t mono_ns(void)
{
	return sb_monotonic_ns();
}

/* Classify every word of the register space from the generated register-map table. */
static void classify(struct sb_bridge *br)
{
	for (unsigned i = 0; i < sb_regmap_nlayout; i++) {
		const struct sb_regmap_instance *in = &sb_regmap_layout[i];
		const struct sb_regmap_block *b = &sb_regmap_blocks[in->block];

		for (unsigned n = 0; n < in->count; n++) {
			uint32_t base = in->offset + n * in->stride;

			if ((base + b->size) / 4 > br->nwords)
				continue;
			for (unsigned h = 0; h < 3; h++)
				br->kind[base / 4 + h] = W_HEADER;
			if (b->type == SB_BLK_TRACE_TYPE && br->rd_index_off == UINT32_MAX)
				br->rd_index_off = base + SB_TRACE_RD_INDEX;
			if (b->type == SB_BLK_IRQ_TYPE && br->pending_off == UINT32_MAX)
				br->pending_off = base + SB_IRQ_PENDING;
			for (unsigned r = 0; r < b->nregs; r++) {
				const struct sb_regmap_reg *reg = &b->regs[r];
				bool latched = reg->width == 64 && reg->access != SB_ACC_RW;

				for (unsigned e = 0; e < reg->count; e++) {
					uint32_t w = (base + reg->offset + e * reg->stride) / 4;

					for (unsigned k = 0; k < reg->width / 32u; k++) {
						uint8_t kd = W_PLAIN;

						if (latched)
							kd = k ? W_LATCH_HI : W_LATCH_LO;
						if (b->type == SB_BLK_TRACE_TYPE &&
						    reg->offset == SB_TRACE_RD_DATA)
							kd = W_READ_ADVANCE;
						if (reg->pulse_mask[k] || reg->w1c_mask[k] ||
						    reg->access == SB_ACC_WO)
							kd |= W_CMD;
						br->kind[w + k] = kd;
					}
				}
			}
		}
	}
}

/*
 * The value the image shows for word w: what a read would return, without the read's side
 * effects on the mailbox users (the bridge keeps their latch) or on rd_index.
 */
static int live_word(struct sb_bridge *br, uint32_t w, uint32_t *v)
{
	uint32_t lo, idx;
	int err;

	switch (W_KIND(br->kind[w])) {
	case W_LATCH_HI:
		/* Reading the low word makes the model latch the current high word. */
		if ((err = br->be.read32(br->be.ctx, (w - 1) * 4, &lo)) < 0)
			return err;
		return br->be.read32(br->be.ctx, w * 4, v);
	case W_READ_ADVANCE:
		if ((err = br->be.read32(br->be.ctx, br->rd_index_off, &idx)) < 0 ||
		    (err = br->be.read32(br->be.ctx, w * 4, v)) < 0)
			return err;
		return br->be.write32(br->be.ctx, br->rd_index_off, idx);
	default:
		return br->be.read32(br->be.ctx, w * 4, v);
	}
}

/* Put a model value into the image unless the guest has stored there since we last looked. */
static void publish(struct sb_bridge *br, uint32_t w, uint32_t v)
{
	uint32_t expected = br->shadow[w];

	if (v == expected)
		return;
	if (__atomic_compare_exchange_n(&br->image[w], &expected, v, false, __ATOMIC_RELEASE,
	                                __ATOMIC_RELAXED))
		br->shadow[w] = v;
}

static int refresh_word(struct sb_bridge *br, uint32_t w)
{
	uint32_t v;
	int err = live_word(br, w, &v);

	if (err < 0)
		return err;
	publish(br, w, v);
	return 0;
}

/* Refresh every register word of the image from the model. */
static int refresh_all(struct sb_bridge *br)
{
	uint64_t t = mono_ns();
	int err;

	for (uint32_t w = 0; w < br->nwords; w++) {
		uint32_t lo, hi;

		switch (W_KIND(br->kind[w])) {
		case W_HOLE:
		case W_HEADER:
			continue;
		case W_LATCH_LO:
			if (w + 1 < br->nwords && W_KIND(br->kind[w + 1]) == W_LATCH_HI) {
				/* One low read latches the high word: a consistent pair. */
				if ((err = br->be.read32(br->be.ctx, w * 4, &lo)) < 0 ||
				    (err = br->be.read32(br->be.ctx, w * 4 + 4, &hi)) < 0)
					return err;
				publish(br, w, lo);
				publish(br, w + 1, hi);
				w++;
				continue;
			}
			break;
		default:
			break;
		}
		if ((err = refresh_word(br, w)) < 0)
			return err;
	}
	br->st.refreshes++;
	br->st.refresh_ns += mono_ns() - t;
	return 0;
}

/* Apply one guest store to the model and show what the model reads back. */
static int apply_store(struct sb_bridge *br, uint32_t w)
{
	uint32_t v = load_acquire(&br->image[w]), r, expected;
	int err;

	if ((err = br->be.write32(br->be.ctx, w * 4, v)) < 0)
		return err;
	br->st.image_stores++;
	if (W_KIND(br->kind[w]) == W_HOLE) {
		r = 0;
	} else if ((err = live_word(br, w, &r)) < 0) {
		return err;
	}
	expected = v;
	if (__atomic_compare_exchange_n(&br->image[w], &expected, r, false, __ATOMIC_RELEASE,
	                                __ATOMIC_RELAXED))
		br->shadow[w] = r;
	else
		br->shadow[w] = v; /* the guest stored again: noticed at the next poll */
	return 0;
}

/*
 * Notice the guest's stores into the image and apply them: configuration words first, then
 * words with command bits. Returns the number of stores applied or a backend error.
 */
static int apply_stores(struct sb_bridge *br)
{
	uint32_t n = 0;
	int err, applied = 0;

	for (uint32_t w = 0; w < br->nwords; w++)
		if (__atomic_load_n(&br->image[w], __ATOMIC_RELAXED) != br->shadow[w])
			br->changed[n++] = w;
	if (!n)
		return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t w = br->changed[i];
			bool cmd = br->kind[w] & W_CMD;

			if (cmd != (pass == 1))
				continue;
			if ((err = apply_store(br, w)) < 0)
				return err;
			applied++;
		}
	}
	return applied;
}

/* A mailbox read: exact, with the 64-bit latch kept for the mailbox users. */
static int mb_read(struct sb_bridge *br, uint32_t off, uint32_t *v)
{
	uint32_t w = off / 4;
	int err;

	if (W_KIND(br->kind[w]) == W_LATCH_HI) {
		*v = br->latch[w];
		return 0;
	}
	if ((err = br->be.read32(br->be.ctx, off, v)) < 0)
		return err;
	if (W_KIND(br->kind[w]) == W_LATCH_LO && w + 1 < br->nwords)
		return br->be.read32(br->be.ctx, off + 4, &br->latch[w + 1]);
	return 0;
}

static int mb_write(struct sb_bridge *br, uint32_t off, uint32_t v)
{
	int err = br->be.write32(br->be.ctx, off, v);

	if (err < 0)
		return err;
	return refresh_word(br, off / 4);
}

static int serve_mailbox(struct sb_bridge *br)
{
	uint32_t seq = ctrl_get(br, SB_BRIDGE_MB_REQ_SEQ);
	uint32_t op, off, lo, hi, rlo = 0, rhi = 0, status = SB_BRIDGE_ST_OK;
	uint32_t regs = br->nwords * 4, width;
	uint64_t t;
	int err = 0;

	if (seq == br->ack)
		return 0;
	t = mono_ns();
	/* Stores into the image made before the doorbell come first. */
	if ((err = apply_stores(br)) < 0)
		return err;
	op = ctrl_get(br, SB_BRIDGE_MB_OP);
	off = ctrl_get(br, SB_BRIDGE_MB_OFFSET);
	lo = ctrl_get(br, SB_BRIDGE_MB_VALUE_LO);
	hi = ctrl_get(br, SB_BRIDGE_MB_VALUE_HI);
	width = op == SB_BRIDGE_OP_READ64 || op == SB_BRIDGE_OP_WRITE64 ? 8 : 4;
	if (op < SB_BRIDGE_OP_READ32 || op > SB_BRIDGE_OP_WRITE64) {
		status = SB_BRIDGE_ST_BADOP;
	} else if (off % 4 || off >= regs || width > regs - off) {
		status = SB_BRIDGE_ST_RANGE;
	} else {
		switch (op) {
		case SB_BRIDGE_OP_READ32:
			err = mb_read(br, off, &rlo);
			break;
		case SB_BRIDGE_OP_WRITE32:
			err = mb_write(br, off, lo);
			break;
		case SB_BRIDGE_OP_READ64:
			if ((err = mb_read(br, off, &rlo)) == 0)
				err = mb_read(br, off + 4, &rhi);
			break;
		default:
			if ((err = mb_write(br, off, lo)) == 0)
				err = mb_write(br, off + 4, hi);
			break;
		}
		if (err < 0)
			status = SB_BRIDGE_ST_MODEL;
	}
	ctrl_put(br, SB_BRIDGE_MB_RESULT_LO, rlo);
	ctrl_put(br, SB_BRIDGE_MB_RESULT_HI, rhi);
	ctrl_put(br, SB_BRIDGE_MB_STATUS, status);
	ctrl_put(br, SB_BRIDGE_MB_ACK_SEQ, seq);
	br->ack = seq;
	br->st.mailbox_ops++;
	if (status != SB_BRIDGE_ST_OK)
		br->st.mailbox_errors++;
	t = mono_ns() - t;
	br->st.mb_service_ns += t;
	if (t > br->st.mb_service_max_ns)
		br->st.mb_service_max_ns = t;
	return 1;
}

static int advance(struct sb_bridge *br, uint64_t now_ns)
{
	uint64_t target = now_ns > br->t0_ns ? now_ns - br->t0_ns : 0;
	uint64_t step;
	int err;

	if (target <= br->model_ns)
		return 0;
	step = target - br->model_ns;
	if (step > br->max_step_ns)
		step = br->max_step_ns;
	if ((err = br->be.advance_ps(br->be.ctx, step * 1000)) < 0)
		return err;
	br->model_ns += step;
	if (target - br->model_ns > br->st.lag_max_ns)
		br->st.lag_max_ns = target - br->model_ns;
	return 0;
}

/* Raise an interrupt for the irq.pending bits that became set since the last poll. */
static int raise_irqs(struct sb_bridge *br)
{
	uint32_t pending, fresh;
	int err;

	if (!br->irq_fn || br->pending_off == UINT32_MAX)
		return 0;
	if ((err = br->be.read32(br->be.ctx, br->pending_off, &pending)) < 0)
		return err;
	fresh = pending & ~br->irq_prev;
	br->irq_prev = pending;
	if (fresh) {
		br->irq_fn(br->irq_ctx, fresh);
		br->st.irqs++;
	}
	return 0;
}

void sb_bridge_set_irq(struct sb_bridge *br, sb_bridge_irq_fn fn, void *ctx)
{
	br->irq_fn = fn;
	br->irq_ctx = ctx;
	br->irq_prev = 0;
}

int sb_bridge_poll(struct sb_bridge *br, uint64_t now_ns)
{
	int err, n, m;

	br->st.polls++;
	if ((err = advance(br, now_ns)) < 0)
		return err;
	if ((n = apply_stores(br)) < 0)
		return n;
	if ((m = serve_mailbox(br)) < 0)
		return m;
	if (now_ns - br->last_refresh_ns >= br->refresh_ns) {
		if ((err = refresh_all(br)) < 0)
			return err;
		br->last_refresh_ns = now_ns;
	}
	if ((err = raise_irqs(br)) < 0)
		return err;
	ctrl_put(br, SB_BRIDGE_CTRL_HEARTBEAT, (uint32_t)br->st.polls);
	return n + m;
}

int sb_bridge_new(struct sb_bridge **out, void *shm, size_t shm_len, uint32_t regs_size,
                  const struct sb_bridge_backend *be, uint64_t refresh_ns, uint64_t max_step_ns,
                  uint64_t now_ns)
{
	struct sb_bridge *br;
	int err;

	if (shm_len < SB_BRIDGE_MIN_SIZE || !regs_size || regs_size % 4 ||
	    regs_size > SB_BRIDGE_REGS_MAX || (uintptr_t)shm % 4096)
		return sb_error_set(SB_ERR_INVAL,
		                    "bridge: %zu bytes of shared memory for %u bytes of registers "
		                    "(need at least 0x%x, registers at most 0x%x)",
		                    shm_len, regs_size, SB_BRIDGE_MIN_SIZE, SB_BRIDGE_REGS_MAX);
	br = calloc(1, sizeof(*br));
	if (!br)
		return sb_error_set(SB_ERR_NOMEM, "bridge: out of memory");
	br->shm = shm;
	br->shm_len = shm_len;
	br->image = br->shm + SB_BRIDGE_REGS_OFFSET / 4;
	br->ctrl = br->shm + SB_BRIDGE_CTRL_OFFSET / 4;
	br->nwords = regs_size / 4;
	br->be = *be;
	br->refresh_ns = refresh_ns;
	br->max_step_ns = max_step_ns ? max_step_ns : 1;
	br->rd_index_off = UINT32_MAX;
	br->pending_off = UINT32_MAX;
	br->shadow = calloc(br->nwords, sizeof(*br->shadow));
	br->kind = calloc(br->nwords, sizeof(*br->kind));
	br->latch = calloc(br->nwords, sizeof(*br->latch));
	br->changed = calloc(br->nwords, sizeof(*br->changed));
	if (!br->shadow || !br->kind || !br->latch || !br->changed) {
		err = sb_error_set(SB_ERR_NOMEM, "bridge: out of memory");
		goto fail;
	}
	classify(br);
	/* Withdraw any previous bridge's magic while the image is being built. */
	ctrl_put(br, SB_BRIDGE_CTRL_MAGIC, 0);
	memset(br->ctrl, 0, SB_BRIDGE_CTRL_SIZE);
	for (uint32_t w = 0; w < br->nwords; w++) {
		uint32_t v = 0;

		if (W_KIND(br->kind[w]) != W_HOLE && (err = live_word(br, w, &v)) < 0)
			goto fail;
		br->image[w] = v;
		br->shadow[w] = v;
		if (W_KIND(br->kind[w]) == W_LATCH_HI)
			br->latch[w] = v;
	}
	br->t0_ns = now_ns;
	br->last_refresh_ns = now_ns;
	ctrl_put(br, SB_BRIDGE_CTRL_VERSION, SB_BRIDGE_VERSION);
	ctrl_put(br, SB_BRIDGE_CTRL_REGS_SIZE, regs_size);
	ctrl_put(br, SB_BRIDGE_CTRL_MAGIC, SB_BRIDGE_MAGIC);
	*out = br;
	return 0;

fail:
	free(br->shadow);
	free(br->kind);
	free(br->latch);
	free(br->changed);
	free(br);
	return err;
}

void sb_bridge_free(struct sb_bridge *br)
{
	if (!br)
		return;
	ctrl_put(br, SB_BRIDGE_CTRL_MAGIC, 0);
	free(br->shadow);
	free(br->kind);
	free(br->latch);
	free(br->changed);
	free(br);
}

const struct sb_bridge_stats *sb_bridge_stats(const struct sb_bridge *br)
{
	return &br->st;
}
