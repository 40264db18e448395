/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_transport.h"
#include "sb_regmap.h"
#include "stackbench/error.h"

static void record(struct fake *f, enum fake_op op, uint32_t offset, uint64_t value)
{
	if (f->nlog < FAKE_LOG_MAX)
		f->log[f->nlog++] = (struct fake_step){op, offset, value};
}

static const char *op_name(enum fake_op op)
{
	return op == FAKE_READ ? "read" : op == FAKE_WRITE ? "write" : "wait";
}

/* Match an access against the script; returns the step or NULL. */
static const struct fake_step *step(struct fake *f, enum fake_op op, uint32_t offset,
                                    uint64_t value)
{
	const struct fake_step *s;

	if (!f->script || f->pos >= f->nsteps) {
		if (f->strict && !f->failure[0])
			snprintf(f->failure, sizeof(f->failure),
			         "unexpected %s at 0x%x after the script ended", op_name(op),
			         offset);
		return NULL;
	}
	s = &f->script[f->pos];
	if (s->op != op || (op != FAKE_WAIT && s->offset != offset) ||
	    (op == FAKE_WRITE && s->value != value) ||
	    (op == FAKE_WAIT && s->value && s->value != value)) {
		if (f->strict && !f->failure[0])
			snprintf(f->failure, sizeof(f->failure),
			         "step %u: expected %s 0x%x (0x%llx), got %s 0x%x (0x%llx)", f->pos,
			         op_name(s->op), s->offset, (unsigned long long)s->value,
			         op_name(op), offset, (unsigned long long)value);
		return NULL;
	}
	f->pos++;
	return s;
}

static int fake_read32(void *priv, uint32_t offset, uint32_t *value)
{
	struct fake *f = priv;
	const struct fake_step *s;

	if (offset % 4 || offset >= f->size) {
		*value = 0xFFFFFFFFu;
		return sb_error_set(SB_ERR_RANGE, "fake: read at 0x%x", offset);
	}
	s = step(f, FAKE_READ, offset, 0);
	*value = s ? (uint32_t)s->value : f->image[offset / 4];
	record(f, FAKE_READ, offset, *value);
	return 0;
}

static int fake_write32(void *priv, uint32_t offset, uint32_t value)
{
	struct fake *f = priv;

	if (offset % 4 || offset >= f->size)
		return sb_error_set(SB_ERR_RANGE, "fake: write at 0x%x", offset);
	step(f, FAKE_WRITE, offset, value);
	f->image[offset / 4] = value;
	record(f, FAKE_WRITE, offset, value);
	return 0;
}

static uint32_t fake_size(void *priv)
{
	return ((struct fake *)priv)->size;
}

static uint64_t fake_now(void *priv)
{
	return ((struct fake *)priv)->now_ns;
}

static int fake_wait(void *priv, uint64_t ns)
{
	struct fake *f = priv;

	step(f, FAKE_WAIT, 0, ns);
	record(f, FAKE_WAIT, 0, ns);
	f->now_ns += ns;
	return 0;
}

static void fake_close(void *priv)
{
	((struct fake *)priv)->closed = true;
}

const struct sb_transport_ops fake_transport_ops = {
    .name = "fake",
    .close = fake_close,
    .read32 = fake_read32,
    .write32 = fake_write32,
    .regspace_size = fake_size,
    .now_ns = fake_now,
    .wait_ns = fake_wait,
};

struct fake *fake_new(uint32_t size)
{
	struct fake *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->image = calloc(size / 4, sizeof(uint32_t));
	if (!f->image) {
		free(f);
		return NULL;
	}
	f->size = size;
	return f;
}

void fake_free(struct fake *f)
{
	if (!f)
		return;
	free(f->image);
	free(f);
}

void fake_set(struct fake *f, uint32_t offset, uint32_t value)
{
	f->image[offset / 4] = value;
}

void fake_fill_regmap(struct fake *f, unsigned nports)
{
	uint32_t prev = UINT32_MAX;

	for (unsigned i = 0; i < sb_regmap_nlayout; i++) {
		const struct sb_regmap_instance *in = &sb_regmap_layout[i];
		const struct sb_regmap_block *b = &sb_regmap_blocks[in->block];
		unsigned n = in->count;

		if (b->type == SB_BLK_GUPS_PORT_TYPE && n > nports)
			n = nports;
		for (unsigned k = 0; k < n; k++) {
			uint32_t base = in->offset + k * in->stride;

			for (unsigned r = 0; r < b->nregs; r++) {
				const struct sb_regmap_reg *reg = &b->regs[r];

				for (unsigned e = 0; e < reg->count; e++) {
					uint32_t off = base + reg->offset + e * reg->stride;

					f->image[off / 4] = (uint32_t)reg->reset;
					if (reg->width == 64)
						f->image[off / 4 + 1] =
						    (uint32_t)(reg->reset >> 32);
				}
			}
			f->image[base / 4] = b->type;
			f->image[base / 4 + 1] = b->version;
			f->image[base / 4 + 2] = 0;
			if (prev != UINT32_MAX)
				f->image[prev / 4 + 2] = base;
			prev = base;
		}
	}
	fake_set(f, SB_LAYOUT_BOARD_OFFSET + SB_BOARD_PORT_COUNT, nports);
}

unsigned fake_writes_to(const struct fake *f, uint32_t offset, uint32_t *value)
{
	unsigned n = 0;

	for (unsigned i = 0; i < f->nlog; i++) {
		if (f->log[i].op == FAKE_WRITE && f->log[i].offset == offset) {
			n++;
			if (value)
				*value = (uint32_t)f->log[i].value;
		}
	}
	return n;
}
