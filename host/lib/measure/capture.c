/* SPDX-License-Identifier: MIT */
/*
 * Trace capture through the device API (stackbench/capture.h).
 *
 * Draining. On-chip: the buffer is a ring of onchip_depth records; a drain reads onchip_count,
 * reads that many records word by word through rd_index / rd_data and removes them with
 * rd_release, while capture goes on. DMA: the board writes records into a host ring at
 * wr_ptr; record k of the capture lands in slot k mod (ring records), so the board's `records`
 * counter says which slots are new, and a record whose seq is not k was overwritten (the host
 * fell more than a ring behind): it is lost and counted.
 *
 * Order. The board writes a record when its request completes (the RTL) or when it is issued
 * (the model), so records arrive in completion order, not issue order. Drained records wait in
 * a sorted buffer until no later record can precede them: until their issue time is older than
 * the board's clock minus a window of twice the longest latency seen (at least
 * SB_CAPTURE_MIN_WINDOW cycles). A record older than what was already written (latency beyond
 * the window) is counted as lost, never written out of order.
 *
 * Boards. The AC-510 records requests (trace_record), its subpartitions are the cube's vaults
 * (or banks); an HBM2 card (an hbm_card block) records AXI bursts (hbm_trace_record) in AXI
 * cycles, its subpartitions are the pseudo channels (pcN: the address over the PC's size, so
 * bit 32 of a 4H stack's address counts 16 PCs). The trace block and its drain are the same.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_regmap.h"
#include "stackbench/capture.h"
#include "stackbench/error.h"
#include "stackbench/gups.h"
#include "stackbench/hbm.h"
#include "stackbench/log.h"
#include "stackbench/trace.h"
#include "stackbench/version.h"

#define SB_CAPTURE_MIN_WINDOW 1024 /* cycles */
#define WORDS SB_TRACE_RECORD_WORDS

struct sb_capture {
	struct sb_device *dev;
	struct sb_capture_config cfg;
	struct sb_geometry geo;
	unsigned vault_lo, vault_bits, bank_lo, bank_bits; /* of geo */
	uint32_t trace;                                    /* block offset */
	bool hbm;                /* an HBM2 card: hbm_trace_records, PCs as subpartitions */
	struct sb_hbm_card card; /* hbm */
	uint32_t card_blk;       /* hbm: the hbm_card block (its cycles) */
	unsigned pc_shift;       /* hbm: log2 of a PC's bytes */
	uint64_t unmapped;       /* hbm: records beyond the card's PCs (left out) */
	uint32_t irq;            /* UINT32_MAX: none */
	uint32_t depth;          /* on-chip records */
	uint32_t port_mask;
	double clock_hz;
	bool started, stopped;
	/* the board's counters at the last drain */
	uint64_t start_cycle, now_cycle;
	uint64_t b_records, b_dropped;
	uint32_t b_sample;
	/* DMA ring */
	struct sb_dma_buf buf;
	uint64_t ring_records, consumed;
	/* records waiting for their turn, sorted by time */
	struct sb_trace_record *pend, *tmp, *batch;
	size_t npend, cap_pend, cap_tmp, cap_batch;
	int64_t last_written;
	uint32_t max_latency;
	uint32_t max_sample;
	bool any_sample;
	/* adaptive drain interval */
	uint64_t interval_ns, min_ns, max_ns;
	uint32_t *words; /* one on-chip drain */
	struct sb_capture_stats st;
	uint64_t errors; /* records with a nonzero ERRSTAT */
	struct sb_trace_info *info;
	struct sb_trace_writer *w;
	char path[256];
};

void sb_capture_config_init(struct sb_capture_config *c)
{
	memset(c, 0, sizeof(*c));
	c->burst_records = SB_CAPTURE_DEFAULT_BURST;
	c->gap_cycles = SB_CAPTURE_DEFAULT_GAP;
}

int sb_capture_parse_ports(const char *list, uint32_t *mask)
{
	const char *p = list;

	*mask = 0;
	if (!*p)
		return sb_error_set(SB_ERR_INVAL, "empty port list");
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi;

		if (end == p || lo > 31)
			goto bad;
		hi = lo;
		if (*end == '-') {
			const char *q = end + 1;

			hi = strtoul(q, &end, 10);
			if (end == q || hi > 31 || hi < lo)
				goto bad;
		}
		for (unsigned long i = lo; i <= hi; i++)
			*mask |= 1u << i;
		if (*end == ',')
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	return 0;
bad:
	return sb_error_set(SB_ERR_INVAL,
	                    "port list '%s': expected ports 0..31 as N, N-M, separated by commas",
	                    list);
}

int sb_capture_decode(const uint32_t w[8], struct sb_capture_rec *r)
{
	uint32_t w3 = w[SB_TRACE_RECORD_WRITE_WORD];

	if ((w[0] ^ w[2] ^ w[3] ^ w[4] ^ SB_REGMAP_MAGIC) != w[SB_TRACE_RECORD_CHECK_WORD])
		return sb_error_set(SB_ERR_PARSE,
		                    "trace record: check word 0x%08" PRIx32
		                    " does not match its contents",
		                    w[SB_TRACE_RECORD_CHECK_WORD]);
	r->cycle =
	    (uint64_t)w[SB_TRACE_RECORD_TIME_HI_WORD] << 32 | w[SB_TRACE_RECORD_TIME_LO_WORD];
	r->addr = (uint64_t)w[SB_TRACE_RECORD_ADDR_LO_WORD] |
	          (uint64_t)((w3 & SB_TRACE_RECORD_ADDR_HI_MASK) >> SB_TRACE_RECORD_ADDR_HI_SHIFT)
	              << 32;
	r->write = (w3 & SB_TRACE_RECORD_WRITE_MASK) != 0;
	r->flits = (uint8_t)((w3 & SB_TRACE_RECORD_FLITS_MASK) >> SB_TRACE_RECORD_FLITS_SHIFT);
	r->tag = (uint8_t)((w3 & SB_TRACE_RECORD_TAG_MASK) >> SB_TRACE_RECORD_TAG_SHIFT);
	r->port = (uint8_t)((w3 & SB_TRACE_RECORD_PORT_MASK) >> SB_TRACE_RECORD_PORT_SHIFT);
	r->errstat =
	    (uint8_t)((w3 & SB_TRACE_RECORD_ERRSTAT_MASK) >> SB_TRACE_RECORD_ERRSTAT_SHIFT);
	r->latency = w[SB_TRACE_RECORD_LATENCY_WORD];
	r->sample_id = w[SB_TRACE_RECORD_SAMPLE_ID_WORD];
	r->seq = w[SB_TRACE_RECORD_SEQ_WORD];
	if (r->flits < 1 || r->flits > 8)
		return sb_error_set(SB_ERR_PARSE, "trace record: %u data flits (1..8)", r->flits);
	r->bytes = (uint16_t)(16u * r->flits);
	return 0;
}

int sb_capture_decode_hbm(const uint32_t w[8], struct sb_capture_rec *r)
{
	uint32_t w3 = w[SB_HBM_TRACE_RECORD_WRITE_WORD];

	if ((w[0] ^ w[2] ^ w[3] ^ w[4] ^ SB_REGMAP_MAGIC) != w[SB_HBM_TRACE_RECORD_CHECK_WORD])
		return sb_error_set(SB_ERR_PARSE,
		                    "HBM2 trace record: check word 0x%08" PRIx32
		                    " does not match its contents",
		                    w[SB_HBM_TRACE_RECORD_CHECK_WORD]);
	memset(r, 0, sizeof(*r));
	r->cycle = (uint64_t)w[SB_HBM_TRACE_RECORD_TIME_HI_WORD] << 32 |
	           w[SB_HBM_TRACE_RECORD_TIME_LO_WORD];
	r->addr =
	    (uint64_t)w[SB_HBM_TRACE_RECORD_ADDR_LO_WORD] |
	    (uint64_t)((w3 & SB_HBM_TRACE_RECORD_ADDR_HI_MASK) >> SB_HBM_TRACE_RECORD_ADDR_HI_SHIFT)
	        << 32;
	r->write = (w3 & SB_HBM_TRACE_RECORD_WRITE_MASK) != 0;
	r->flits =
	    (uint8_t)((w3 & SB_HBM_TRACE_RECORD_BEATS_MASK) >> SB_HBM_TRACE_RECORD_BEATS_SHIFT);
	r->tag = (uint8_t)((w3 & SB_HBM_TRACE_RECORD_ID_MASK) >> SB_HBM_TRACE_RECORD_ID_SHIFT);
	r->port = (uint8_t)((w3 & SB_HBM_TRACE_RECORD_PORT_MASK) >> SB_HBM_TRACE_RECORD_PORT_SHIFT);
	r->errstat =
	    (uint8_t)((w3 & SB_HBM_TRACE_RECORD_RESP_MASK) >> SB_HBM_TRACE_RECORD_RESP_SHIFT);
	r->latency = w[SB_HBM_TRACE_RECORD_LATENCY_WORD];
	r->sample_id = w[SB_HBM_TRACE_RECORD_SAMPLE_ID_WORD];
	r->seq = w[SB_HBM_TRACE_RECORD_SEQ_WORD];
	if (r->flits < 1 || r->flits > 16)
		return sb_error_set(SB_ERR_PARSE, "HBM2 trace record: %u beats (1..16)", r->flits);
	r->bytes = (uint16_t)(32u * r->flits);
	return 0;
}

void sb_capture_map(const struct sb_geometry *g, uint64_t addr, unsigned *vault, unsigned *bank)
{
	unsigned vlo, vbits, blo, bbits;

	sb_geometry_fields(g, &vlo, &vbits, &blo, &bbits);
	*vault = (unsigned)(addr >> vlo) & ((1u << vbits) - 1);
	*bank = (unsigned)(addr >> blo) & ((1u << bbits) - 1);
}

/* ---- the board ---------------------------------------------------------------------------- */

static int rd32(struct sb_capture *c, uint32_t reg, uint32_t *v)
{
	return sb_device_read32(c->dev, c->trace + reg, v);
}

static int wr32(struct sb_capture *c, uint32_t reg, uint32_t v)
{
	return sb_device_write32(c->dev, c->trace + reg, v);
}

static int board_cycles(struct sb_capture *c, uint64_t *cyc)
{
	uint32_t board;
	int err;

	if (c->hbm)
		return sb_device_read64(c->dev, c->card_blk + SB_HBM_CARD_CYCLES, cyc);
	if ((err = sb_device_find_block(c->dev, SB_BLK_BOARD_TYPE, 0, &board)) < 0)
		return err;
	return sb_device_read64(c->dev, board + SB_BOARD_CYCLES, cyc);
}

/* ---- records in time order ---------------------------------------------------------------- */

static int grow(struct sb_trace_record **a, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 1024;
	struct sb_trace_record *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*a, n * sizeof(*p));
	if (!p)
		return sb_error_set(SB_ERR_NOMEM, "out of memory holding %zu trace records", need);
	*a = p;
	*cap = n;
	return 0;
}

static int cmp_time(const void *a, const void *b)
{
	const struct sb_trace_record *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* Equal times keep the order the board wrote them (group holds the arrival index). */
	return x->group < y->group ? -1 : x->group > y->group;
}

/* Add the batch (in arrival order) to the sorted pending records. */
static int merge_batch(struct sb_capture *c, size_t n)
{
	struct sb_trace_record *b = c->batch;
	size_t i = 0, j = 0, k = 0;
	bool sorted = true;
	int err;

	/* A drain that found nothing: no batch (it may not even be allocated yet). */
	if (!n)
		return 0;
	for (size_t q = 1; q < n && sorted; q++)
		sorted = b[q].time >= b[q - 1].time;
	if (!sorted) {
		for (size_t q = 0; q < n; q++)
			b[q].group = (uint32_t)q;
		qsort(b, n, sizeof(*b), cmp_time);
	}
	for (size_t q = 0; q < n; q++)
		b[q].group = 0;
	if ((err = grow(&c->pend, &c->cap_pend, c->npend + n)) < 0)
		return err;
	if (!c->npend || b[0].time >= c->pend[c->npend - 1].time) {
		memcpy(c->pend + c->npend, b, n * sizeof(*b));
		c->npend += n;
		return 0;
	}
	if ((err = grow(&c->tmp, &c->cap_tmp, c->npend + n)) < 0)
		return err;
	while (i < c->npend && j < n)
		c->tmp[k++] = b[j].time < c->pend[i].time ? b[j++] : c->pend[i++];
	while (i < c->npend)
		c->tmp[k++] = c->pend[i++];
	while (j < n)
		c->tmp[k++] = b[j++];
	{
		struct sb_trace_record *t = c->pend;
		size_t tc = c->cap_pend;

		c->pend = c->tmp;
		c->cap_pend = c->cap_tmp;
		c->tmp = t;
		c->cap_tmp = tc;
	}
	c->npend = k;
	return 0;
}

/* Write the pending records older than `before` (all of them with INT64_MAX). */
static int emit(struct sb_capture *c, int64_t before)
{
	size_t n = 0;
	int err;

	while (n < c->npend && c->pend[n].time < before)
		n++;
	if (!n)
		return 0;
	if ((err = sb_trace_write(c->w, c->info, c->pend, n)) < 0)
		return err;
	c->st.records += n;
	c->last_written = c->pend[n - 1].time;
	memmove(c->pend, c->pend + n, (c->npend - n) * sizeof(*c->pend));
	c->npend -= n;
	return 0;
}

/* Decode raw records into the batch. */
static int take_words(struct sb_capture *c, const uint32_t *words, size_t n, size_t *out)
{
	size_t k = 0;
	int err;

	if ((err = grow(&c->batch, &c->cap_batch, n)) < 0)
		return err;
	for (size_t i = 0; i < n; i++) {
		struct sb_capture_rec r;
		struct sb_trace_record *t = &c->batch[k];
		unsigned vault, bank;

		if ((c->hbm ? sb_capture_decode_hbm(words + i * WORDS, &r)
		            : sb_capture_decode(words + i * WORDS, &r)) < 0) {
			c->st.corrupt++;
			continue;
		}
		memset(t, 0, sizeof(*t));
		t->time = (int64_t)(r.cycle - c->start_cycle);
		if (c->st.records && t->time < c->last_written) {
			c->st.late++;
			continue;
		}
		if (c->hbm) {
			uint64_t pc = r.addr >> c->pc_shift;

			if (pc >= c->card.pcs) { /* beyond the card's memory (a DECERR) */
				c->unmapped++;
				continue;
			}
			t->subpart = (uint16_t)pc;
		} else {
			vault = (unsigned)(r.addr >> c->vault_lo) & ((1u << c->vault_bits) - 1);
			bank = (unsigned)(r.addr >> c->bank_lo) & ((1u << c->bank_bits) - 1);
			t->subpart = (uint16_t)(c->cfg.banks ? vault * c->geo.banks_per_vault + bank
			                                     : vault);
		}
		t->addr = r.addr;
		t->size = r.bytes;
		t->kind = r.write ? SB_ACC_WRITE : SB_ACC_READ;
		t->unit = r.port;
		t->sample = r.sample_id;
		t->latency = r.latency;
		if (r.latency > c->max_latency)
			c->max_latency = r.latency;
		if (!c->any_sample || r.sample_id > c->max_sample)
			c->max_sample = r.sample_id;
		c->any_sample = true;
		if (r.errstat)
			c->errors++;
		k++;
	}
	*out = k;
	return 0;
}

/* ---- draining ------------------------------------------------------------------------------ */

static int drain_onchip(struct sb_capture *c, size_t *got)
{
	uint32_t n;
	int err;

	*got = 0;
	if ((err = rd32(c, SB_TRACE_ONCHIP_COUNT, &n)) < 0)
		return err;
	if (n > c->depth)
		return sb_error_set(SB_ERR_DEVICE,
		                    "'%s': trace.onchip_count %" PRIu32
		                    " exceeds the buffer's %" PRIu32 " records",
		                    sb_device_uri(c->dev), n, c->depth);
	if (!n)
		return 0;
	if ((err = wr32(c, SB_TRACE_RD_INDEX, 0)) < 0)
		return err;
	for (uint32_t i = 0; i < n * WORDS; i++)
		if ((err = rd32(c, SB_TRACE_RD_DATA, &c->words[i])) < 0)
			return err;
	if ((err = wr32(c, SB_TRACE_RD_RELEASE, n)) < 0)
		return err;
	return take_words(c, c->words, n, got);
}

static int drain_dma(struct sb_capture *c, uint64_t written, size_t *got)
{
	const volatile uint32_t *ring = c->buf.host;
	uint64_t avail = written - c->consumed;
	size_t n = 0;
	int err;

	*got = 0;
	if (written < c->consumed)
		return sb_error_set(SB_ERR_DEVICE,
		                    "'%s': trace.records went back from %" PRIu64 " to %" PRIu64,
		                    sb_device_uri(c->dev), c->consumed, written);
	if (avail > c->ring_records) {
		/* Overwritten before the host read them. */
		c->st.dropped += avail - c->ring_records;
		c->consumed = written - c->ring_records;
		avail = c->ring_records;
	}
	if ((err = grow(&c->batch, &c->cap_batch, avail)) < 0)
		return err;
	for (uint64_t k = c->consumed; k < written; k++) {
		size_t slot = (size_t)(k % c->ring_records) * WORDS;
		uint32_t w[WORDS];

		for (unsigned i = 0; i < WORDS; i++)
			w[i] = ring[slot + i];
		if (w[SB_TRACE_RECORD_SEQ_WORD] != (uint32_t)k) {
			c->st.dropped++; /* overwritten while being read */
			continue;
		}
		memcpy(c->words + n * WORDS, w, sizeof(w));
		if (++n == c->depth) {
			size_t k2;

			if ((err = take_words(c, c->words, n, &k2)) < 0 ||
			    (err = merge_batch(c, k2)) < 0)
				return err;
			*got += k2;
			n = 0;
		}
	}
	c->consumed = written;
	if (n) {
		size_t k2;

		if ((err = take_words(c, c->words, n, &k2)) < 0 || (err = merge_batch(c, k2)) < 0)
			return err;
		*got += k2;
	}
	return 0;
}

/* Adapt the drain interval to what the last drain found. */
static void adapt(struct sb_capture *c, size_t found)
{
	uint64_t cap = c->cfg.path == SB_CAPTURE_DMA ? c->ring_records : c->depth;

	if (found > cap / 2 && c->interval_ns > c->min_ns)
		c->interval_ns /= 2;
	else if (found < cap / 8 && c->interval_ns < c->max_ns)
		c->interval_ns *= 2;
	if (c->interval_ns < c->min_ns)
		c->interval_ns = c->min_ns;
	if (c->interval_ns > c->max_ns)
		c->interval_ns = c->max_ns;
}

int sb_capture_poll(struct sb_capture *c)
{
	uint64_t records, dropped, now;
	uint32_t sample;
	size_t got = 0;
	int64_t window;
	int err;

	if (!c->started)
		return sb_error_set(SB_ERR_STATE, "trace capture polled before it started");
	if ((err = sb_device_read64(c->dev, c->trace + SB_TRACE_RECORDS, &records)) < 0 ||
	    (err = sb_device_read64(c->dev, c->trace + SB_TRACE_DROPPED, &dropped)) < 0 ||
	    (err = rd32(c, SB_TRACE_SAMPLE_ID, &sample)) < 0 || (err = board_cycles(c, &now)) < 0)
		return err;
	if (c->cfg.path == SB_CAPTURE_DMA) {
		if ((err = sb_device_dma_sync(c->dev, &c->buf)) < 0 ||
		    (err = drain_dma(c, records, &got)) < 0)
			return err;
	} else {
		/* The on-chip buffer holds what came before the counters were read, and maybe
		 * more: the later ones are drained now and counted at the next poll. */
		if ((err = drain_onchip(c, &got)) < 0 || (err = merge_batch(c, got)) < 0)
			return err;
	}
	c->st.polls++;
	sb_dbg("trace capture: drain at cycle %" PRIu64 ": %zu records, board dropped %" PRIu64
	       ", next in %" PRIu64 " ns",
	       now, got, dropped, c->interval_ns);
	if (dropped > c->b_dropped) {
		/* Records were lost in the bursts since the last drain (at most one per record). */
		uint64_t bursts = (uint64_t)(sample - c->b_sample) + 1,
		         lost = dropped - c->b_dropped;

		c->st.lost_bursts += lost < bursts ? lost : bursts;
	}
	c->b_records = records;
	c->b_dropped = dropped;
	c->b_sample = sample;
	c->now_cycle = now;
	adapt(c, got);
	window = 2 * (int64_t)c->max_latency;
	if (window < SB_CAPTURE_MIN_WINDOW)
		window = SB_CAPTURE_MIN_WINDOW;
	if ((err = emit(c, (int64_t)(now - c->start_cycle) - window)) < 0)
		return err;
	return (int)(got > INT32_MAX ? INT32_MAX : got);
}

uint64_t sb_capture_poll_interval_ns(const struct sb_capture *c)
{
	return c->interval_ns;
}

int sb_capture_wait(struct sb_capture *c, uint64_t ns)
{
	uint32_t ev;
	int err;

	if (c->cfg.path != SB_CAPTURE_DMA || c->irq == UINT32_MAX)
		return sb_device_wait_ns(c->dev, ns);
	err = sb_device_wait_event(c->dev, SB_IRQ_STATUS_TRACE_READY_MASK, ns, &ev);
	if (err == SB_ERR_TIMEOUT)
		return 0;
	if (err < 0)
		return err;
	/* Clear the event (write 1) so the next wait sees the next burst. */
	return sb_device_write32(c->dev, c->irq + SB_IRQ_STATUS, SB_IRQ_STATUS_TRACE_READY_MASK);
}

uint32_t sb_capture_port_mask(const struct sb_capture *c)
{
	return c->port_mask;
}

/* ---- description --------------------------------------------------------------------------- */

static void attr(struct sb_capture *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void attr(struct sb_capture *c, const char *key, const char *fmt, ...)
{
	char v[SB_TRACE_ATTR_VALUE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	if (sb_trace_info_set_attr(c->info, key, v) < 0)
		sb_warn("trace capture: attribute '%s' not kept: %s", key, sb_error_detail());
}

static void port_list(uint32_t mask, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < 32 && len < size; i++) {
		unsigned j = i;

		if (!(mask >> i & 1))
			continue;
		while (j + 1 < 32 && (mask >> (j + 1) & 1))
			j++;
		len += (size_t)snprintf(buf + len, size - len, j > i ? "%s%u-%u" : "%s%u",
		                        len ? "," : "", i, j);
		i = j;
	}
}

/* The attributes every capture has: the tool, the device, the firmware, the settings. */
static void describe_common(struct sb_capture *c, unsigned board_id, bool simulated,
                            uint64_t clock_hz)
{
	const struct sb_fw_info *fw = sb_device_fw(c->dev);
	char ports[96];

	port_list(c->port_mask, ports, sizeof(ports));
	attr(c, "tool", "stackbench %s", sb_version());
	attr(c, "device.uri", "%s", sb_device_uri(c->dev));
	attr(c, "device.transport", "%s", sb_device_transport(c->dev));
	attr(c, "board.id", "0x%04x", board_id);
	attr(c, "board.simulated", "%d", simulated ? 1 : 0);
	attr(c, "board.clock_hz", "%" PRIu64, clock_hz);
	attr(c, "board.fw_version", "%u.%u", (unsigned)(fw->fw_version >> 16),
	     (unsigned)(fw->fw_version & 0xFFFF));
	attr(c, "board.build_id", "0x%08x", (unsigned)fw->build_id);
	attr(c, "board.regmap_hash", "0x%08x", (unsigned)fw->regmap_hash);
	attr(c, "host.regmap_hash", "0x%08x", (unsigned)SB_REGMAP_HASH);
	attr(c, "capture.burst_records", "%u", (unsigned)c->cfg.burst_records);
	attr(c, "capture.gap_cycles", "%u", (unsigned)c->cfg.gap_cycles);
	attr(c, "capture.ports", "%s", ports);
	attr(c, "capture.path", "%s", c->cfg.path == SB_CAPTURE_DMA ? "dma" : "onchip");
}

/* An HBM2 card: one subpartition per pseudo channel, values in 32-byte columns. */
static int describe_hbm(struct sb_capture *c)
{
	const struct sb_hbm_card *k = &c->card;
	int err;

	sb_trace_info_init(c->info, "stackbench-capture", (double)k->axi_clock_hz, "cycle");
	c->info->fields = SB_FIELD_UNIT | SB_FIELD_SAMPLE | SB_FIELD_LATENCY;
	for (unsigned p = 0; p < k->pcs; p++) {
		char name[SB_TRACE_NAME_MAX];

		snprintf(name, sizeof(name), "pc%u", p);
		if ((err = sb_trace_info_subpart(c->info, name, SB_SUBPART_SCRATCHPAD, 1, 32)) < 0)
			return sb_error_wrap(err, "trace capture on '%s'", sb_device_uri(c->dev));
	}
	describe_common(c, k->board_id, k->simulated, k->axi_clock_hz);
	attr(c, "hbm.stacks", "%u", k->stacks);
	attr(c, "hbm.pcs", "%u", k->pcs);
	attr(c, "hbm.pc_bytes", "%" PRIu64, (uint64_t)1 << c->pc_shift);
	attr(c, "hbm.banks_per_pc", "%u", k->banks_per_pc);
	attr(c, "hbm.addr_map", "%s", sb_hbm_map_text(k->mc.addr_map));
	attr(c, "hbm.page", "%s", k->mc.closed_page ? "closed" : "open");
	attr(c, "capture.subpartitions", "pc");
	attr(c, "capture.records", "AXI bursts (AR / AW handshakes)");
	return 0;
}

static int describe(struct sb_capture *c, const struct sb_board_info *b)
{
	unsigned vlo, vbits, blo, bbits;
	int err;

	sb_trace_info_init(c->info, "stackbench-capture", (double)b->clock_hz, "cycle");
	c->info->fields = SB_FIELD_UNIT | SB_FIELD_SAMPLE | SB_FIELD_LATENCY;
	for (unsigned v = 0; v < c->geo.vaults; v++) {
		unsigned nb = c->cfg.banks ? c->geo.banks_per_vault : 1;

		for (unsigned k = 0; k < nb; k++) {
			char name[SB_TRACE_NAME_MAX];

			if (c->cfg.banks)
				snprintf(name, sizeof(name), "vault%u.bank%u", v, k);
			else
				snprintf(name, sizeof(name), "vault%u", v);
			/* Byte addresses; values live in the cube's 16-byte blocks. */
			if ((err = sb_trace_info_subpart(c->info, name, SB_SUBPART_SCRATCHPAD, 1,
			                                 16)) < 0)
				return sb_error_wrap(err, "trace capture on '%s'",
				                     sb_device_uri(c->dev));
		}
	}
	sb_geometry_fields(&c->geo, &vlo, &vbits, &blo, &bbits);
	describe_common(c, b->board_id, b->simulated, b->clock_hz);
	attr(c, "hmc.vaults", "%u", c->geo.vaults);
	attr(c, "hmc.banks_per_vault", "%u", c->geo.banks_per_vault);
	attr(c, "hmc.addr_mode", "%u B blocks: vault bits %u:%u, bank bits %u:%u",
	     c->geo.block_bytes, vlo + vbits - 1, vlo, blo + bbits - 1, blo);
	attr(c, "capture.subpartitions", "%s", c->cfg.banks ? "bank" : "vault");
	return 0;
}

/* ---- life cycle ---------------------------------------------------------------------------- */

static void release(struct sb_capture *c)
{
	if (c->buf.host)
		sb_device_dma_free(c->dev, &c->buf);
	free(c->pend);
	free(c->tmp);
	free(c->batch);
	free(c->words);
	free(c->info);
	free(c);
}

static int setup_dma(struct sb_capture *c)
{
	size_t want = c->cfg.dma_bytes ? c->cfg.dma_bytes : 1u << 20;
	int err;

	err = sb_device_dma_alloc(c->dev, want, &c->buf);
	if ((err == SB_ERR_INVAL || err == SB_ERR_RANGE) && !c->cfg.dma_bytes && want > 65536) {
		/* A smaller module buffer (trace_kib): take what it has. */
		want = 65536;
		err = sb_device_dma_alloc(c->dev, want, &c->buf);
	}
	if (err < 0)
		return sb_error_wrap(err, "trace capture by DMA");
	c->ring_records = c->buf.len / SB_TRACE_RECORD_BYTES;
	if (c->ring_records < 2 || c->ring_records * SB_TRACE_RECORD_BYTES > UINT32_MAX)
		return sb_error_set(SB_ERR_INVAL, "'%s': a DMA ring of %zu bytes for trace records",
		                    sb_device_uri(c->dev), c->buf.len);
	return 0;
}

/* The AC-510: the cube's geometry and address mapping, for the vault / bank subpartitions. */
static int open_hmc(struct sb_capture *c, const struct sb_board_info *b,
                    const struct sb_hmc_status *hs)
{
	const char *uri = sb_device_uri(c->dev);

	if (!b->clock_hz || !b->vaults || !b->banks_per_vault || b->vaults > 64 ||
	    b->banks_per_vault > 64 || (b->vaults & (b->vaults - 1)) ||
	    (b->banks_per_vault & (b->banks_per_vault - 1)))
		return sb_error_set(
		    SB_ERR_DEVICE, "'%s': board block says %u vaults of %u banks at %" PRIu64 " Hz",
		    uri, b->vaults, b->banks_per_vault, b->clock_hz);
	c->clock_hz = (double)b->clock_hz;
	c->geo.vaults = b->vaults;
	c->geo.banks_per_vault = b->banks_per_vault;
	c->geo.block_bytes = hs->addr_mode_bytes;
	sb_geometry_fields(&c->geo, &c->vault_lo, &c->vault_bits, &c->bank_lo, &c->bank_bits);
	if (c->cfg.banks && b->vaults * b->banks_per_vault > SB_TRACE_MAX_SUBPARTS)
		return sb_error_set(SB_ERR_INVAL,
		                    "'%s': %u banks are more subpartitions than a "
		                    "trace holds (%d)",
		                    uri, b->vaults * b->banks_per_vault, SB_TRACE_MAX_SUBPARTS);
	return 0;
}

/* An HBM2 card: its PCs (a power of two of bytes each) and its AXI clock. */
static int open_hbm(struct sb_capture *c)
{
	const char *uri = sb_device_uri(c->dev);
	uint64_t pc_bytes;
	int err;

	if ((err = sb_hbm_card_read(c->dev, &c->card)) < 0)
		return err;
	if ((err = sb_device_find_block(c->dev, SB_BLK_HBM_CARD_TYPE, 0, &c->card_blk)) < 0)
		return err;
	if (c->cfg.banks)
		return sb_error_set(SB_ERR_INVAL,
		                    "'%s': an HBM2 card's trace has its pseudo channels as "
		                    "subpartitions (--trace-banks is the cube's)",
		                    uri);
	pc_bytes = (uint64_t)c->card.pc_mb << 20;
	if (!c->card.axi_clock_hz || !c->card.pcs || c->card.pcs > SB_TRACE_MAX_SUBPARTS ||
	    !c->card.pc_mb || (c->card.pc_mb & (c->card.pc_mb - 1)))
		return sb_error_set(SB_ERR_DEVICE,
		                    "'%s': hbm_card says %u pseudo channels of %u MiB at %" PRIu64
		                    " Hz (a power of two of MiB, up to %d channels)",
		                    uri, c->card.pcs, c->card.pc_mb, c->card.axi_clock_hz,
		                    SB_TRACE_MAX_SUBPARTS);
	while ((1ull << c->pc_shift) < pc_bytes)
		c->pc_shift++;
	c->clock_hz = (double)c->card.axi_clock_hz;
	return 0;
}

int sb_capture_open(struct sb_capture **out, struct sb_device *dev,
                    const struct sb_capture_config *cfg, const char *path)
{
	const struct sb_block_info *blk = NULL;
	struct sb_board_info b;
	struct sb_hmc_status hs;
	struct sb_capture *c;
	uint32_t rsize;
	double cycle_ns;
	unsigned ports;
	int err;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for a trace capture");
	c->dev = dev;
	c->cfg = *cfg;
	c->irq = UINT32_MAX;
	snprintf(c->path, sizeof(c->path), "%s", path);
	if ((err = sb_device_find_block(dev, SB_BLK_TRACE_TYPE, 0, &c->trace)) < 0) {
		err = sb_error_set(SB_ERR_NOT_FOUND, "'%s' has no trace capture block",
		                   sb_device_uri(dev));
		goto fail;
	}
	for (unsigned i = 0; i < sb_device_block_count(dev); i++)
		if (sb_device_block(dev, i)->offset == c->trace)
			blk = sb_device_block(dev, i);
	if (blk && (blk->version & 0xFFFF) < 1 && cfg->path != SB_CAPTURE_DMA) {
		err = sb_error_set(SB_ERR_VERSION,
		                   "'%s': trace block version %u.%u cannot be drained while it "
		                   "records (rd_release is 1.1); use DMA or update the design",
		                   sb_device_uri(dev), blk->version >> 16, blk->version & 0xFFFF);
		goto fail;
	}
	if (sb_device_find_block(dev, SB_BLK_IRQ_TYPE, 0, &c->irq) < 0)
		c->irq = UINT32_MAX;
	c->hbm = sb_hbm_is_card(dev);
	if (c->hbm) {
		if ((err = open_hbm(c)) < 0)
			goto fail;
		ports = c->card.ports;
	} else if ((err = sb_board_info(dev, &b)) < 0 || (err = sb_hmc_status(dev, &hs)) < 0) {
		goto fail;
	} else if ((err = open_hmc(c, &b, &hs)) < 0) {
		goto fail;
	} else {
		ports = b.ports;
	}
	if ((err = rd32(c, SB_TRACE_ONCHIP_DEPTH, &c->depth)) < 0 ||
	    (err = rd32(c, SB_TRACE_RECORD_SIZE, &rsize)) < 0)
		goto fail;
	if (rsize != SB_TRACE_RECORD_BYTES || !c->depth || c->depth > (1u << 20)) {
		err =
		    sb_error_set(SB_ERR_DEVICE,
		                 "'%s': trace records of %" PRIu32 " bytes in a buffer of %" PRIu32
		                 " (this host reads %u-byte records, up to 2^20)",
		                 sb_device_uri(dev), rsize, c->depth, SB_TRACE_RECORD_BYTES);
		goto fail;
	}
	c->port_mask = (cfg->port_mask ? cfg->port_mask : UINT32_MAX) &
	               (ports >= 32 ? UINT32_MAX : (1u << ports) - 1);
	if (!c->port_mask) {
		err = sb_error_set(SB_ERR_INVAL,
		                   "'%s': the trace port list names none of its %u ports",
		                   sb_device_uri(dev), ports);
		goto fail;
	}
	if (c->cfg.path == SB_CAPTURE_AUTO) {
		/* A capture that records without pause (no gap, or bursts longer than the on-chip
		 * buffer) outruns register polling: 8 reads a record. It takes the DMA ring
		 * wherever the transport has one (sim:, dev:); sampled captures poll the on-chip
		 * buffer except on dev:. */
		bool continuous =
		    !c->cfg.burst_records || !c->cfg.gap_cycles || c->cfg.burst_records > c->depth;

		/* An HBM2 card's trace block writes no host ring: its buffer is drained. */
		if (c->hbm)
			continuous = false;
		c->cfg.path = continuous || !strcmp(sb_device_transport(dev), "dev")
		                  ? SB_CAPTURE_DMA
		                  : SB_CAPTURE_ONCHIP;
	}
	if (c->cfg.path == SB_CAPTURE_DMA && (err = setup_dma(c)) < 0) {
		if (cfg->path == SB_CAPTURE_DMA)
			goto fail;
		sb_info("%s; draining the on-chip buffer instead (a complete capture at full rate "
		        "will drop records)",
		        sb_error_detail());
		c->cfg.path = SB_CAPTURE_ONCHIP;
	}
	c->st.path = c->cfg.path;
	c->st.port_mask = c->port_mask;
	c->words = malloc((size_t)c->depth * SB_TRACE_RECORD_BYTES);
	c->info = malloc(sizeof(*c->info));
	if (!c->words || !c->info) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory for a trace capture");
		goto fail;
	}
	/* Drain often enough that the buffer never fills at two records per cycle (the model
	 * with the smallest requests), seldom in the gaps between bursts. */
	cycle_ns = 1e9 / c->clock_hz;
	c->min_ns =
	    (uint64_t)(cycle_ns * (c->cfg.path == SB_CAPTURE_DMA ? c->ring_records : c->depth) / 4);
	if (c->min_ns < 100)
		c->min_ns = 100;
	c->max_ns = 1000000;
	if (c->cfg.burst_records && c->cfg.burst_records <= c->depth) {
		/* Between two drains P apart the buffer gets at most one burst, or the end of one
		 * and the start of the next: lambda (P - gap) records, at most B / 2 at the highest
		 * rate of two records per cycle when P <= gap + B / 4. */
		uint64_t period =
		    (uint64_t)(cycle_ns * (c->cfg.gap_cycles + c->cfg.burst_records / 4));

		if (period < c->max_ns)
			c->max_ns = period > c->min_ns ? period : c->min_ns;
	}
	c->interval_ns = c->min_ns;
	if ((err = c->hbm ? describe_hbm(c) : describe(c, &b)) < 0)
		goto fail;
	if ((err = sb_trace_writer_open(&c->w, SB_TRACE_SBT, path, c->info)) < 0)
		goto fail;
	*out = c;
	return 0;
fail:
	release(c);
	return err;
}

int sb_capture_start(struct sb_capture *c)
{
	uint32_t ctl = SB_TRACE_CONTROL_ENABLE_MASK;
	int err;

	if (c->started)
		return sb_error_set(SB_ERR_STATE, "trace capture started twice");
	if ((err = wr32(c, SB_TRACE_CONTROL, 0)) < 0 ||
	    (err = wr32(c, SB_TRACE_CONTROL, SB_TRACE_CONTROL_RESET_MASK)) < 0 ||
	    (err = wr32(c, SB_TRACE_BURST_LEN, c->cfg.burst_records)) < 0 ||
	    (err = wr32(c, SB_TRACE_GAP, c->cfg.gap_cycles)) < 0 ||
	    (err = wr32(c, SB_TRACE_PORT_MASK, c->port_mask)) < 0)
		return err;
	if (c->cfg.path == SB_CAPTURE_DMA) {
		/* The ring: on dev: the module programs the DMA registers (they are its alone). */
		if ((err = sb_device_trace_dma_setup(c->dev, &c->buf)) < 0)
			return err;
		ctl |= SB_TRACE_CONTROL_DMA_MASK;
		if (c->irq != UINT32_MAX &&
		    (err = sb_device_write32(c->dev, c->irq + SB_IRQ_STATUS,
		                             SB_IRQ_STATUS_TRACE_READY_MASK)) < 0)
			return err;
	}
	if ((err = board_cycles(c, &c->start_cycle)) < 0)
		return err;
	c->now_cycle = c->start_cycle;
	if ((err = wr32(c, SB_TRACE_CONTROL, ctl)) < 0)
		return err;
	c->started = true;
	attr(c, "capture.start_cycle", "%" PRIu64, c->start_cycle);
	return 0;
}

int sb_capture_stop(struct sb_capture *c, uint64_t executed, const char *executed_by)
{
	struct sb_trace_capture *tc = &c->info->capture;
	int err;

	if (!c->started || c->stopped)
		return sb_error_set(SB_ERR_STATE,
		                    "trace capture stopped before it started or twice");
	if ((err = wr32(c, SB_TRACE_CONTROL, 0)) < 0)
		return err;
	/* What the board wrote before it stopped: drain until nothing is left. */
	do {
		if ((err = sb_capture_poll(c)) < 0)
			return err;
	} while (err > 0);
	if ((err = emit(c, INT64_MAX)) < 0)
		return err;
	c->stopped = true;
	c->st.captured = c->b_records + c->b_dropped;
	if (c->cfg.path != SB_CAPTURE_DMA)
		c->st.dropped = c->b_dropped;
	else
		c->st.dropped += c->b_dropped;
	c->st.bursts = c->any_sample ? (uint64_t)c->max_sample + 1 : 0;
	c->st.executed = executed;
	c->st.cycles = c->now_cycle - c->start_cycle;
	c->st.density = executed ? (double)c->st.records / (double)executed : 0;
	/* A burst that lost every record was begun too. */
	if (c->st.lost_bursts > c->st.bursts)
		c->st.bursts = c->st.lost_bursts;
	memset(tc, 0, sizeof(*tc));
	tc->sampled = c->st.records != executed || c->cfg.gap_cycles;
	tc->burst_records = c->cfg.burst_records;
	tc->gap_ticks = c->cfg.gap_cycles;
	tc->executed = executed;
	tc->captured = c->st.captured;
	tc->lost_records = c->st.dropped + c->st.corrupt + c->st.late + c->unmapped;
	tc->bursts = c->st.bursts;
	tc->lost_bursts = c->st.lost_bursts;
	tc->start = 0;
	tc->end = (int64_t)c->st.cycles;
	attr(c, "capture.executed_by", "%s", executed_by ? executed_by : "unknown");
	attr(c, "capture.error_responses", "%" PRIu64, c->errors);
	if (c->st.corrupt || c->st.late)
		sb_trace_info_warn(c->info,
		                   "trace capture lost %" PRIu64
		                   " records with a bad check word and %" PRIu64
		                   " that arrived later than the reorder window",
		                   c->st.corrupt, c->st.late);
	if (c->unmapped)
		sb_trace_info_warn(c->info,
		                   "%" PRIu64
		                   " records of bursts beyond the card's pseudo channels "
		                   "(DECERR) were left out",
		                   c->unmapped);
	if (c->st.dropped)
		sb_trace_info_warn(
		    c->info,
		    "the board dropped %" PRIu64 " of %" PRIu64
		    " records (its buffer was full, or its DMA could not write them)",
		    c->st.dropped, tc->captured);
	if ((err = sb_trace_capture_check(tc, c->path)) < 0)
		return err;
	return sb_trace_writer_update(c->w, c->info);
}

void sb_capture_get_stats(const struct sb_capture *c, struct sb_capture_stats *st)
{
	*st = c->st;
}

int sb_capture_close(struct sb_capture *c, struct sb_capture_stats *st)
{
	int err;

	if (!c->stopped) {
		sb_capture_abort(c);
		return sb_error_set(SB_ERR_STATE, "trace capture closed before it was stopped");
	}
	err = sb_trace_writer_close(c->w);
	c->w = NULL;
	if (st)
		*st = c->st;
	release(c);
	return err;
}

void sb_capture_abort(struct sb_capture *c)
{
	if (!c)
		return;
	if (c->started && !c->stopped)
		wr32(c, SB_TRACE_CONTROL, 0);
	if (c->w)
		sb_trace_writer_abort(c->w);
	release(c);
}
