/* SPDX-License-Identifier: MIT */
/*
 * Trace capture on the simulated HBM2 card: the AC-510's trace block (registers, bursts and
 * gaps, the on-chip ring drained through rd_index / rd_data / rd_release) with one
 * hbm_trace_record per AXI burst, written when the burst is issued (the model knows its
 * latency then). docs/traces-on-the-board.md, "HBM2 cards".
 *
 * The card has no DMA engine for the host ring: with control.dma set every record is dropped
 * and counted (the host drains the on-chip buffer; the sim: transport gives an HBM2 card no
 * DMA buffers).
 */
#include <stdlib.h>
#include <string.h>

#include "hbm_internal.h"
#include "sb_regmap.h"
#include "stackbench/error.h"

#define WORDS SB_HBM_TRACE_RECORD_WORDS

int hbm_trace_init(struct sb_hbm_model *m)
{
	struct hbm_trace *tr = &m->trace;

	m->blk_trace = sb_hbm_regs_offset(m->board, SB_BLK_TRACE_TYPE, 0);
	tr->depth = SB_TRACE_ONCHIP_DEPTH_RESET; /* a power of two: the RTL's BRAM */
	tr->onchip = calloc(tr->depth, SB_HBM_TRACE_RECORD_BYTES);
	if (!tr->onchip)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for the HBM2 trace buffer");
	tr->burst_len = SB_TRACE_BURST_LEN_RESET;
	tr->port_mask = SB_TRACE_PORT_MASK_RESET;
	return 0;
}

void hbm_trace_release(struct sb_hbm_model *m)
{
	free(m->trace.onchip);
	m->trace.onchip = NULL;
}

void hbm_trace_record(struct sb_hbm_model *m, unsigned port, const struct sb_hbm_burst *b,
                      uint64_t t, const struct hbm_result *r)
{
	struct hbm_trace *tr = &m->trace;
	const struct hbm_div *cyc = &m->mem.tm.div_cyc;
	uint64_t c = hbm_div(cyc, t), lat = hbm_div(cyc, r->t_first - t);
	uint32_t rec[WORDS];

	if (!(tr->port_mask >> port & 1) || t < tr->gap_until)
		return;
	rec[SB_HBM_TRACE_RECORD_TIME_LO_WORD] = (uint32_t)c;
	rec[SB_HBM_TRACE_RECORD_TIME_HI_WORD] = (uint32_t)(c >> 32);
	rec[SB_HBM_TRACE_RECORD_ADDR_LO_WORD] = (uint32_t)b->addr;
	rec[3] =
	    (((uint32_t)(b->addr >> 32) << SB_HBM_TRACE_RECORD_ADDR_HI_SHIFT) &
	     SB_HBM_TRACE_RECORD_ADDR_HI_MASK) |
	    ((uint32_t)b->write << SB_HBM_TRACE_RECORD_WRITE_SHIFT) |
	    (((uint32_t)b->beats << SB_HBM_TRACE_RECORD_BEATS_SHIFT) &
	     SB_HBM_TRACE_RECORD_BEATS_MASK) |
	    (((uint32_t)b->id << SB_HBM_TRACE_RECORD_ID_SHIFT) & SB_HBM_TRACE_RECORD_ID_MASK) |
	    (((uint32_t)port << SB_HBM_TRACE_RECORD_PORT_SHIFT) & SB_HBM_TRACE_RECORD_PORT_MASK) |
	    (((uint32_t)r->resp << SB_HBM_TRACE_RECORD_RESP_SHIFT) & SB_HBM_TRACE_RECORD_RESP_MASK);
	rec[SB_HBM_TRACE_RECORD_LATENCY_WORD] = lat > UINT32_MAX ? UINT32_MAX : (uint32_t)lat;
	rec[SB_HBM_TRACE_RECORD_SAMPLE_ID_WORD] = tr->sample_id;
	rec[SB_HBM_TRACE_RECORD_SEQ_WORD] = (uint32_t)tr->records;
	rec[SB_HBM_TRACE_RECORD_CHECK_WORD] = rec[0] ^ rec[2] ^ rec[3] ^ rec[4] ^ SB_REGMAP_MAGIC;
	if (tr->dma || tr->count >= tr->depth) {
		tr->dropped++;
		return; /* a burst counts the records written */
	}
	memcpy(&tr->onchip[((tr->head + tr->count) & (tr->depth - 1)) * WORDS], rec, sizeof(rec));
	tr->count++;
	tr->records++;
	if (tr->burst_len && ++tr->in_burst >= tr->burst_len) { /* burst_len 0: one endless burst */
		tr->in_burst = 0;
		tr->sample_id++;
		tr->gap_until = (c + 1 + tr->gap) * m->mem.tm.cyc;
	}
}

uint64_t hbm_trace_read(struct sb_hbm_model *m, uint32_t reg, uint64_t stored)
{
	struct hbm_trace *tr = &m->trace;

	switch (reg) {
	case SB_TRACE_STATUS:
		return (tr->enable && tr->in_burst ? SB_TRACE_STATUS_ACTIVE_MASK : 0) |
		       (tr->count >= tr->depth ? SB_TRACE_STATUS_FULL_MASK : 0);
	case SB_TRACE_DROPPED:
		return tr->dropped;
	case SB_TRACE_RECORDS:
		return tr->records;
	case SB_TRACE_SAMPLE_ID:
		return tr->sample_id;
	case SB_TRACE_ONCHIP_COUNT:
		return tr->count;
	case SB_TRACE_RD_DATA: {
		uint32_t i = tr->rd_index;
		uint32_t v =
		    i < tr->count * WORDS
		        ? tr->onchip[((tr->head + i / WORDS) & (tr->depth - 1)) * WORDS + i % WORDS]
		        : 0;

		tr->rd_index = i + 1;
		sb_hbm_regs_set32(&m->rf, m->blk_trace + SB_TRACE_RD_INDEX, tr->rd_index);
		return v;
	}
	default:
		return stored;
	}
}

void hbm_trace_write(struct sb_hbm_model *m, uint32_t reg, uint32_t value, uint32_t pulses)
{
	struct hbm_trace *tr = &m->trace;
	const struct sb_hbm_regs *rf = &m->rf;
	uint32_t b = m->blk_trace, ctl;

	if (reg == SB_TRACE_RD_INDEX) {
		tr->rd_index = value;
		return;
	}
	if (reg == SB_TRACE_RD_RELEASE) {
		uint32_t n = value < tr->count ? value : tr->count;

		tr->head = (tr->head + n) & (tr->depth - 1);
		tr->count -= n;
		tr->rd_index = 0;
		sb_hbm_regs_set32(&m->rf, b + SB_TRACE_RD_INDEX, 0);
		return;
	}
	if (pulses & SB_TRACE_CONTROL_RESET_MASK) {
		tr->in_burst = 0;
		tr->gap_until = 0;
		tr->sample_id = 0;
		tr->records = tr->dropped = 0;
		tr->count = tr->head = tr->rd_index = 0;
		sb_hbm_regs_set32(&m->rf, b + SB_TRACE_RD_INDEX, 0);
	}
	ctl = sb_hbm_regs_get32(rf, b + SB_TRACE_CONTROL);
	tr->enable = ctl & SB_TRACE_CONTROL_ENABLE_MASK;
	tr->dma = ctl & SB_TRACE_CONTROL_DMA_MASK;
	tr->burst_len = sb_hbm_regs_get32(rf, b + SB_TRACE_BURST_LEN);
	tr->gap = sb_hbm_regs_get32(rf, b + SB_TRACE_GAP);
	tr->port_mask = sb_hbm_regs_get32(rf, b + SB_TRACE_PORT_MASK);
}
