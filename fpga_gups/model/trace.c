/* SPDX-License-Identifier: MIT */
/*
 * Trace capture (family-neutral): a trace_record per request when it is issued (the model
 * knows its completion then), sampled in bursts and gaps, into the on-chip ring or a host
 * DMA ring; and the trace block's registers.
 */
#include <string.h>

#include "model_internal.h"

void sb_trace_record(struct sb_model *m, const struct sb_port *p, const struct sb_done *d,
                     unsigned tag)
{
	struct sb_trace *tr = &m->trace;
	uint32_t rec[SB_TRACE_RECORD_WORDS];
	uint64_t cyc = sb_div(&m->tm.div_cycle, d->t_issue);
	uint32_t lat = 0;

	if (!tr->enable || !(tr->port_mask & (1u << p->idx)) || d->t_issue < tr->gap_until)
		return;
	/* Issue to the first response beat, as the port's latency monitor counts (the RTL). */
	if (d->t_done != SB_TICK_NEVER && d->t_done > d->t_issue)
		lat = (uint32_t)sb_div(&m->tm.div_cycle, sb_done_first_beat(m, d) - d->t_issue);
	memset(rec, 0, sizeof(rec));
	rec[SB_TRACE_RECORD_TIME_LO_WORD] = (uint32_t)cyc;
	rec[SB_TRACE_RECORD_TIME_HI_WORD] = (uint32_t)(cyc >> 32);
	rec[SB_TRACE_RECORD_ADDR_LO_WORD] = (uint32_t)done_addr(d);
	rec[SB_TRACE_RECORD_ADDR_HI_WORD] |=
	    ((uint32_t)(done_addr(d) >> 32) << SB_TRACE_RECORD_ADDR_HI_SHIFT) &
	    SB_TRACE_RECORD_ADDR_HI_MASK;
	rec[SB_TRACE_RECORD_WRITE_WORD] |= ((uint32_t)done_write(d) << SB_TRACE_RECORD_WRITE_SHIFT);
	rec[SB_TRACE_RECORD_FLITS_WORD] |=
	    ((uint32_t)done_flits(d) << SB_TRACE_RECORD_FLITS_SHIFT) & SB_TRACE_RECORD_FLITS_MASK;
	rec[SB_TRACE_RECORD_TAG_WORD] |=
	    ((uint32_t)tag << SB_TRACE_RECORD_TAG_SHIFT) & SB_TRACE_RECORD_TAG_MASK;
	rec[SB_TRACE_RECORD_PORT_WORD] |=
	    ((uint32_t)p->idx << SB_TRACE_RECORD_PORT_SHIFT) & SB_TRACE_RECORD_PORT_MASK;
	rec[SB_TRACE_RECORD_ERRSTAT_WORD] |=
	    ((uint32_t)done_errstat(d) << SB_TRACE_RECORD_ERRSTAT_SHIFT) &
	    SB_TRACE_RECORD_ERRSTAT_MASK;
	rec[SB_TRACE_RECORD_LATENCY_WORD] = lat;
	rec[SB_TRACE_RECORD_SAMPLE_ID_WORD] = tr->sample_id;
	rec[SB_TRACE_RECORD_SEQ_WORD] = (uint32_t)tr->records;
	rec[SB_TRACE_RECORD_CHECK_WORD] = rec[0] ^ rec[2] ^ rec[3] ^ rec[4] ^ SB_REGMAP_MAGIC;

	if (tr->dma) {
		uint32_t rs = SB_TRACE_RECORD_BYTES;
		void *dst =
		    tr->buf_size >= rs ? sb_model_dma_ptr(m, tr->buf_addr + tr->wr_ptr, rs) : NULL;

		if (!dst) {
			tr->dropped++;
			return;
		} else {
			memcpy(dst, rec, rs);
			tr->records++;
			tr->wr_ptr += rs;
			if (tr->wr_ptr + rs > tr->buf_size) {
				tr->wr_ptr = 0;
				tr->wrapped = true;
			}
		}
	} else if (tr->onchip_count >= tr->onchip_depth) {
		tr->dropped++;
		return; /* a burst counts the records written */
	} else {
		/* The on-chip buffer is a ring: rd_release removes its oldest records. */
		uint32_t slot = (tr->onchip_head + tr->onchip_count) & (tr->onchip_depth - 1);

		memcpy(&tr->onchip[slot * SB_TRACE_RECORD_WORDS], rec, sizeof(rec));
		tr->onchip_count++;
		tr->records++;
	}
	if (tr->burst_len && ++tr->in_burst >= tr->burst_len) { /* burst_len 0: one endless burst */
		tr->in_burst = 0;
		tr->sample_id++;
		tr->gap_until = (cyc + 1 + tr->gap) * m->tm.cycle;
		sb_model_raise_irq(m, SB_IRQ_STATUS_TRACE_READY_MASK);
	}
}

/* ---- ports ------------------------------------------------------------------------------ */

uint64_t sb_engine_trace_read(struct sb_model *m, const struct sb_regloc *l, uint64_t stored)
{
	struct sb_trace *tr = &m->trace;

	switch (l->reg->offset) {
	case SB_TRACE_STATUS:
		return (tr->enable && tr->in_burst ? SB_TRACE_STATUS_ACTIVE_MASK : 0) |
		       (tr->onchip_count >= tr->onchip_depth ? SB_TRACE_STATUS_FULL_MASK : 0) |
		       (tr->wrapped ? SB_TRACE_STATUS_WRAPPED_MASK : 0);
	case SB_TRACE_WR_PTR:
		return tr->wr_ptr;
	case SB_TRACE_DROPPED:
		return tr->dropped;
	case SB_TRACE_RECORDS:
		return tr->records;
	case SB_TRACE_SAMPLE_ID:
		return tr->sample_id;
	case SB_TRACE_ONCHIP_COUNT:
		return tr->onchip_count;
	case SB_TRACE_RD_DATA: {
		uint32_t idx = tr->rd_index, w = SB_TRACE_RECORD_WORDS;
		/* onchip_depth is a power of two (the RTL's BRAM) */
		uint32_t v =
		    idx < tr->onchip_count * w
		        ? tr->onchip[((tr->onchip_head + idx / w) & (tr->onchip_depth - 1)) * w +
		                     idx % w]
		        : 0;

		tr->rd_index = idx + 1;
		sb_regfile_set32(&m->rf, m->blk_trace + SB_TRACE_RD_INDEX, tr->rd_index);
		return v;
	}
	default:
		return stored;
	}
}

void sb_engine_trace_write(struct sb_model *m, const struct sb_regloc *l, uint32_t value,
                           uint32_t pulses)
{
	struct sb_trace *tr = &m->trace;
	const struct sb_regfile *rf = &m->rf;
	uint32_t b = m->blk_trace;

	if (l->reg->offset == SB_TRACE_RD_INDEX) {
		tr->rd_index = value;
		return;
	}
	if (l->reg->offset == SB_TRACE_RD_RELEASE) {
		uint32_t n = value < tr->onchip_count ? value : tr->onchip_count;

		tr->onchip_head = (tr->onchip_head + n) & (tr->onchip_depth - 1);
		tr->onchip_count -= n;
		tr->rd_index = 0;
		sb_regfile_set32(&m->rf, m->blk_trace + SB_TRACE_RD_INDEX, 0);
		return;
	}
	if (pulses & SB_TRACE_CONTROL_RESET_MASK) {
		tr->in_burst = 0;
		tr->gap_until = 0;
		tr->sample_id = 0;
		tr->records = tr->dropped = 0;
		tr->wr_ptr = 0;
		tr->wrapped = false;
		tr->onchip_count = tr->onchip_head = 0;
		tr->rd_index = 0;
	}
	tr->enable = sb_regfile_get32(rf, b + SB_TRACE_CONTROL) & SB_TRACE_CONTROL_ENABLE_MASK;
	tr->dma = sb_regfile_get32(rf, b + SB_TRACE_CONTROL) & SB_TRACE_CONTROL_DMA_MASK;
	tr->burst_len = sb_regfile_get32(rf, b + SB_TRACE_BURST_LEN);
	tr->gap = sb_regfile_get32(rf, b + SB_TRACE_GAP);
	tr->port_mask = sb_regfile_get32(rf, b + SB_TRACE_PORT_MASK);
	tr->buf_addr = sb_regfile_get64(rf, b + SB_TRACE_BUF_ADDR);
	tr->buf_size = sb_regfile_get32(rf, b + SB_TRACE_BUF_SIZE) / SB_TRACE_RECORD_BYTES *
	               SB_TRACE_RECORD_BYTES;
	if (tr->wr_ptr >= tr->buf_size)
		tr->wr_ptr = 0;
}
