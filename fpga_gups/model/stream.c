/* SPDX-License-Identifier: MIT */
/*
 * Stream GUPS (family-neutral): a group of up to 28 requests issued back to back on one port
 * once it is idle, each entry's latency and status, and the integrity check of the data read
 * back against the pattern written (gups_pattern.h). The memory contents it checks: the
 * 16-byte blocks written by streams, in a hash table (GUPS traffic keeps no per-address state).
 */
#include <stdlib.h>
#include <string.h>

#include "gups_pattern.h"
#include "model_internal.h"

/* ---- memory contents (stream integrity) --------------------------------------------------- */

static struct sb_mem_entry *mem_slot(struct sb_memory *mem, uint64_t block, bool insert)
{
	uint64_t key = block + 1, h;
	size_t i;

	if (!mem->cap) {
		if (!insert)
			return NULL;
		mem->tab = calloc(4096, sizeof(*mem->tab));
		if (!mem->tab)
			return NULL;
		mem->cap = 4096;
	}
	if (insert && (mem->used + 1) * 4 > mem->cap * 3) {
		struct sb_memory big = {0};
		size_t ncap = mem->cap * 2;

		big.tab = calloc(ncap, sizeof(*big.tab));
		if (!big.tab)
			return NULL;
		big.cap = ncap;
		big.power_seed = mem->power_seed;
		for (size_t j = 0; j < mem->cap; j++) {
			if (!mem->tab[j].block)
				continue;
			struct sb_mem_entry *e = mem_slot(&big, mem->tab[j].block - 1, true);

			memcpy(e->data, mem->tab[j].data, sizeof(e->data));
		}
		free(mem->tab);
		*mem = big;
	}
	h = key * 0x9E3779B97F4A7C15ull;
	for (i = (size_t)(h >> 20) & (mem->cap - 1);; i = (i + 1) & (mem->cap - 1)) {
		struct sb_mem_entry *e = &mem->tab[i];

		if (e->block == key)
			return e;
		if (!e->block) {
			if (!insert)
				return NULL;
			e->block = key;
			mem->used++;
			for (unsigned w = 0; w < 4; w++)
				e->data[w] = sb_pattern_word(mem->power_seed, block << 4, 0, w);
			return e;
		}
	}
}

void sb_mem_clear(struct sb_memory *mem, uint32_t new_power_seed)
{
	free(mem->tab);
	mem->tab = NULL;
	mem->cap = mem->used = 0;
	mem->power_seed = new_power_seed;
}

/* Compare the blocks a stream read returns with the expected pattern. */
static bool mem_check(struct sb_memory *mem, uint64_t addr, unsigned flits, uint32_t seed)
{
	for (unsigned b = 0; b < flits; b++) {
		uint64_t block = (addr >> 4) + b;
		struct sb_mem_entry *e = mem_slot(mem, block, false);

		for (unsigned w = 0; w < 4; w++) {
			uint32_t have =
			    e ? e->data[w] : sb_pattern_word(mem->power_seed, block << 4, 0, w);

			if (have != sb_pattern_word(seed, block << 4, 0, w))
				return false;
		}
	}
	return true;
}

void sb_mem_write(struct sb_memory *mem, uint64_t addr, unsigned flits, uint32_t seed, bool always)
{
	for (unsigned b = 0; b < flits; b++) {
		uint64_t block = (addr >> 4) + b;
		struct sb_mem_entry *e = mem_slot(mem, block, always);

		if (!e)
			continue;
		for (unsigned w = 0; w < 4; w++)
			e->data[w] = sb_pattern_word(seed, block << 4, 0, w);
	}
}

/* ---- stream GUPS ------------------------------------------------------------------------ */

void sb_stream_issue(struct sb_model *m, struct sb_port *p, uint64_t t)
{
	unsigned i;

	for (i = 0; i < m->stream.count; i++)
		if (!m->stream.e[i].issued)
			break;
	if (i == m->stream.count) {
		p->stream_left = 0;
		return;
	}
	struct sb_stream_entry *e = &m->stream.e[i];

	e->issued = true;
	p->stream_left--;
	if (!m->stream.t_first)
		m->stream.t_first = t;
	if (e->write && m->stream.integrity)
		sb_mem_write(&m->mem, e->addr, e->flits, m->stream.seed, true);
	sb_port_issue(m, p, t, e->write, e->addr, e->flits, i + 1);
	/* Writes carry no tag but need a completion slot; reads took one in port_issue. */
}

void sb_stream_complete(struct sb_model *m, const struct sb_done *d, bool lost)
{
	unsigned idx = done_stream(d) - 1;
	struct sb_stream_entry *e;

	if (idx >= m->stream.count || m->stream.e[idx].done)
		return;
	e = &m->stream.e[idx];
	e->done = true;
	e->latency = (uint32_t)sb_min64(
	    sb_div(&m->tm.div_cycle, sb_done_first_beat(m, d) - d->t_issue), UINT32_MAX);
	e->errstat = (uint8_t)done_errstat(d);
	e->error = done_errstat(d) != 0 || lost;
	if (!e->write && m->stream.integrity && !e->error &&
	    !mem_check(&m->mem, e->addr, e->flits, m->stream.seed)) {
		e->mismatch = true;
		m->stream.mismatches++;
	}
	if (e->error)
		m->stream.error = true;
	m->stream.completed++;
	m->stream.t_last = sb_max64(m->stream.t_last, d->t_done);
	if (m->stream.completed == m->stream.count) {
		m->stream.busy = false;
		m->stream.done = true;
		sb_model_raise_irq(m, SB_IRQ_STATUS_STREAM_DONE_MASK);
	}
}

static void stream_go(struct sb_model *m)
{
	uint32_t base = m->blk_stream;
	uint32_t ctl = sb_regfile_get32(&m->rf, base + SB_STREAM_CONTROL);
	unsigned count = SB_FIELD_GET(SB_STREAM_CONTROL_COUNT, ctl);
	unsigned port = SB_FIELD_GET(SB_STREAM_CONTROL_PORT, ctl);

	if (m->stream.busy || count < 1 || count > SB_STREAM_ENTRIES || port >= m->nports) {
		m->stream.error = true;
		return;
	}
	memset(m->stream.e, 0, sizeof(m->stream.e));
	m->stream.count = count;
	m->stream.port = port;
	m->stream.completed = 0;
	m->stream.mismatches = 0;
	m->stream.busy = true;
	m->stream.done = false;
	m->stream.error = false;
	m->stream.integrity = ctl & SB_STREAM_CONTROL_INTEGRITY_MASK;
	m->stream.seed = sb_regfile_get32(&m->rf, base + SB_STREAM_DATA_SEED);
	m->stream.t_first = 0;
	m->stream.t_last = 0;
	for (unsigned i = 0; i < count; i++) {
		struct sb_stream_entry *e = &m->stream.e[i];
		uint32_t cmd = sb_regfile_get32(&m->rf, base + SB_STREAM_ENTRY_CMD(i));
		unsigned flits = SB_FIELD_GET(SB_STREAM_ENTRY_CMD_FLITS, cmd);

		e->addr = sb_regfile_get64(&m->rf, base + SB_STREAM_ENTRY_ADDR(i)) & SB_ADDR_MASK &
		          ~0xFull;
		e->write = cmd & SB_STREAM_ENTRY_CMD_WRITE_MASK;
		e->flits = (uint8_t)(flits < 1 ? 1 : flits > 8 ? 8 : flits);
	}
	struct sb_port *p = &m->port[port];

	p->stream_left = count;
	p->t_free = sb_max64(p->t_free, sb_ceil_div(m->now, m->tm.cycle) * m->tm.cycle);
	p->t_pkt = sb_max64(p->t_pkt, p->t_free);
	sb_port_schedule(m, p);
}

uint64_t sb_engine_stream_read(struct sb_model *m, const struct sb_regloc *l, uint64_t stored)
{
	uint32_t reg = l->reg->offset;

	sb_engine_settle(m, m->now);
	if (reg == SB_STREAM_STATUS) {
		return (m->stream.busy ? SB_STREAM_STATUS_BUSY_MASK : 0) |
		       (m->stream.done ? SB_STREAM_STATUS_DONE_MASK : 0) |
		       (m->stream.error ? SB_STREAM_STATUS_ERROR_MASK : 0) |
		       SB_FIELD_PREP(SB_STREAM_STATUS_COMPLETED, m->stream.completed) |
		       SB_FIELD_PREP(SB_STREAM_STATUS_MISMATCHES, m->stream.mismatches);
	}
	if (reg == SB_STREAM_TOTAL_CYCLES)
		return m->stream.t_last > m->stream.t_first
		           ? (m->stream.t_last - m->stream.t_first) / m->tm.cycle
		           : 0;
	if (l->elem < SB_STREAM_ENTRIES && reg == SB_STREAM_ENTRY_CMD(0)) {
		const struct sb_stream_entry *e = &m->stream.e[l->elem];
		uint64_t v =
		    stored & (SB_STREAM_ENTRY_CMD_WRITE_MASK | SB_STREAM_ENTRY_CMD_FLITS_MASK);

		if (e->done)
			v |= SB_STREAM_ENTRY_CMD_DONE_MASK;
		if (e->error)
			v |= SB_STREAM_ENTRY_CMD_ERROR_MASK;
		if (e->mismatch)
			v |= SB_STREAM_ENTRY_CMD_MISMATCH_MASK;
		return v | SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_ERRSTAT, e->errstat);
	}
	if (l->elem < SB_STREAM_ENTRIES && reg == SB_STREAM_ENTRY_LATENCY(0))
		return m->stream.e[l->elem].latency;
	return stored;
}

void sb_engine_stream_write(struct sb_model *m, const struct sb_regloc *l, uint32_t pulses)
{
	if (l->reg->offset == SB_STREAM_CONTROL && (pulses & SB_STREAM_CONTROL_GO_MASK))
		stream_go(m);
}

/* ---- trace registers -------------------------------------------------------------------- */
