/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "regfile.h"
#include "stackbench/error.h"

static bool plain_storage(const struct sb_regmap_reg *r)
{
	for (unsigned w = 0; w < r->width / 32; w++) {
		uint32_t all = 0xFFFFFFFFu;

		if (r->write_mask[w] != all)
			return false;
	}
	return r->access == SB_ACC_RW;
}

static int block_index(uint32_t type)
{
	for (unsigned b = 0; b < sb_regmap_nblocks; b++)
		if (sb_regmap_blocks[b].type == type)
			return (int)b;
	return -1;
}

void sb_regfile_reset(struct sb_regfile *rf)
{
	for (uint32_t w = 0; w < rf->nwords; w++) {
		const struct sb_regloc *l = &rf->loc[w];

		if (!l->reg)
			continue;
		rf->value[w] = (uint32_t)(l->reg->reset >> (32 * l->word));
		rf->latch[w] = rf->value[w];
	}
}

int sb_regfile_init(struct sb_regfile *rf, unsigned nports, const struct sb_regfile_hooks *hooks)
{
	uint32_t last_header = UINT32_MAX;

	memset(rf, 0, sizeof(*rf));
	memset(rf->inst_offset, 0xFF, sizeof(rf->inst_offset));
	if (nports < 1 || nports > SB_LAYOUT_GUPS_PORT_COUNT || sb_regmap_nblocks > 32)
		return sb_error_set(SB_ERR_INVAL, "model: %u ports (1..%u supported)", nports,
		                    SB_LAYOUT_GUPS_PORT_COUNT);
	rf->nwords = SB_REGMAP_SIZE / 4;
	rf->value = calloc(rf->nwords, sizeof(*rf->value));
	rf->latch = calloc(rf->nwords, sizeof(*rf->latch));
	rf->loc = calloc(rf->nwords, sizeof(*rf->loc));
	if (!rf->value || !rf->latch || !rf->loc) {
		sb_regfile_release(rf);
		return sb_error_set(SB_ERR_NOMEM, "model: out of memory for the register file");
	}
	rf->hooks = *hooks;
	for (unsigned i = 0; i < sb_regmap_nlayout; i++) {
		const struct sb_regmap_instance *in = &sb_regmap_layout[i];
		const struct sb_regmap_block *b = &sb_regmap_blocks[in->block];
		unsigned count = in->count;

		if (b->type == SB_BLK_GUPS_PORT_TYPE && count > nports)
			count = nports;
		for (unsigned n = 0; n < count && n < 16; n++) {
			uint32_t base = in->offset + n * in->stride;
			uint32_t hw = base / 4;

			rf->inst_offset[in->block][n] = base;
			for (unsigned h = 0; h < 3; h++) {
				rf->loc[hw + h].header = 1;
				rf->loc[hw + h].block_type = b->type;
				rf->loc[hw + h].instance = (uint16_t)n;
			}
			rf->value[hw + 0] = b->type;
			rf->value[hw + 1] = b->version;
			rf->value[hw + 2] = 0;
			if (last_header != UINT32_MAX)
				rf->value[last_header + 2] = base;
			last_header = hw;
			for (unsigned r = 0; r < b->nregs; r++) {
				const struct sb_regmap_reg *reg = &b->regs[r];

				for (unsigned e = 0; e < reg->count; e++) {
					uint32_t off = base + reg->offset + e * reg->stride;

					for (unsigned w = 0; w < reg->width / 32U; w++) {
						struct sb_regloc *l = &rf->loc[off / 4 + w];

						l->reg = reg;
						l->block_type = b->type;
						l->instance = (uint16_t)n;
						l->elem = (uint16_t)e;
						l->word = (uint8_t)w;
					}
				}
			}
		}
	}
	sb_regfile_reset(rf);
	return 0;
}

void sb_regfile_release(struct sb_regfile *rf)
{
	free(rf->value);
	free(rf->latch);
	free(rf->loc);
	rf->value = rf->latch = NULL;
	rf->loc = NULL;
}

uint32_t sb_regfile_block(const struct sb_regfile *rf, uint32_t type, unsigned instance)
{
	int b = block_index(type);

	if (b < 0 || instance >= 16)
		return UINT32_MAX;
	return rf->inst_offset[b][instance];
}

int sb_regfile_read(struct sb_regfile *rf, uint32_t offset, uint32_t *value)
{
	uint32_t w = offset / 4;
	const struct sb_regloc *l;
	uint64_t v;

	if (offset % 4 || w >= rf->nwords) {
		*value = 0xFFFFFFFFu;
		return sb_error_set(SB_ERR_RANGE,
		                    "register read at 0x%x outside the register space", offset);
	}
	l = &rf->loc[w];
	if (l->header) {
		*value = rf->value[w];
		return 0;
	}
	if (!l->reg) {
		*value = 0;
		return 0;
	}
	if (l->reg->access == SB_ACC_WO) {
		*value = 0;
		return 0;
	}
	if (l->word == 1 && l->reg->access != SB_ACC_RW) {
		*value = rf->latch[w];
		return 0;
	}
	if (l->reg->width == 64) {
		uint32_t lo = l->word ? w - 1 : w;

		v = (uint64_t)rf->value[lo + 1] << 32 | rf->value[lo];
		if (!plain_storage(l->reg) && rf->hooks.read)
			v = rf->hooks.read(rf->hooks.ctx, &rf->loc[lo], v);
		rf->latch[lo + 1] = (uint32_t)(v >> 32);
		*value = (uint32_t)(v >> (32 * l->word));
		return 0;
	}
	v = rf->value[w];
	if (!plain_storage(l->reg) && rf->hooks.read)
		v = rf->hooks.read(rf->hooks.ctx, l, v);
	/* Pulse bits read 0. */
	*value = (uint32_t)v & ~l->reg->pulse_mask[0];
	return 0;
}

int sb_regfile_write(struct sb_regfile *rf, uint32_t offset, uint32_t value)
{
	uint32_t w = offset / 4;
	const struct sb_regloc *l;
	uint32_t wm, pm, cm, nv;

	if (offset % 4 || w >= rf->nwords)
		return sb_error_set(SB_ERR_RANGE,
		                    "register write at 0x%x outside the register space", offset);
	l = &rf->loc[w];
	if (!l->reg)
		return 0;
	wm = l->reg->write_mask[l->word];
	pm = l->reg->pulse_mask[l->word];
	cm = l->reg->w1c_mask[l->word];
	nv = (rf->value[w] & ~wm) | (value & wm);
	nv &= ~(value & cm);
	rf->value[w] = nv;
	if (rf->hooks.write)
		rf->hooks.write(rf->hooks.ctx, l, nv, value & pm);
	return 0;
}

uint32_t sb_regfile_get32(const struct sb_regfile *rf, uint32_t offset)
{
	return rf->value[offset / 4];
}

uint64_t sb_regfile_get64(const struct sb_regfile *rf, uint32_t offset)
{
	return (uint64_t)rf->value[offset / 4 + 1] << 32 | rf->value[offset / 4];
}

void sb_regfile_set32(struct sb_regfile *rf, uint32_t offset, uint32_t value)
{
	rf->value[offset / 4] = value;
}

void sb_regfile_set64(struct sb_regfile *rf, uint32_t offset, uint64_t value)
{
	rf->value[offset / 4] = (uint32_t)value;
	rf->value[offset / 4 + 1] = (uint32_t)(value >> 32);
}
