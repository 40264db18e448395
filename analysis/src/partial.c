/* SPDX-License-Identifier: MIT */
/*
 * Partial results of sharded analyses (partial.h, docs/partials.md).
 *
 * A partial file: the magic "SBPART\r\n", the format's major and minor version (u16 each), the
 * length of a JSON header (u32), the header (what the partial is part of, readable with any JSON
 * tool), the body's length before and after compression (u64 each), and the body: one zstd frame
 * with its content checksum, holding the trace's description and the shard's result in a
 * little-endian binary layout. Every count and size read back is bounded and every value
 * checked before use: a damaged or hostile file is an error naming it, never a crash.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cjson/cJSON.h>

#include "locality_internal.h"
#include "stackbench/error.h"
#include "stackbench/output.h"
#include "stackbench/partial.h"
#include "stackbench/util.h"
#include "stackbench/version.h"

#define MAGIC "SBPART\r\n"
#define HEADER_MAX (1u << 20)
#define BODY_MAX (UINT64_C(1) << 40)
#define ZSTD_LEVEL 3

/* --- bytes out ------------------------------------------------------------------------------ */

struct out {
	uint8_t *p;
	size_t len, cap;
	bool nomem;
};

static void put(struct out *o, const void *d, size_t n)
{
	if (o->nomem)
		return;
	if (o->len + n > o->cap) {
		size_t nc = o->cap ? o->cap : 4096;
		uint8_t *np;

		while (nc < o->len + n)
			nc *= 2;
		if (!(np = realloc(o->p, nc))) {
			o->nomem = true;
			return;
		}
		o->p = np;
		o->cap = nc;
	}
	memcpy(o->p + o->len, d, n);
	o->len += n;
}

static void put_u64(struct out *o, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(o, b, 8);
}

static void put_u32(struct out *o, uint32_t v)
{
	uint8_t b[4];

	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(o, b, 4);
}

static void put_i64(struct out *o, int64_t v)
{
	put_u64(o, (uint64_t)v);
}

static void put_f64(struct out *o, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	put_u64(o, u);
}

/* A fixed-size text field (NUL-padded). */
static void put_text(struct out *o, const char *s, size_t size)
{
	char buf[SB_TRACE_ATTR_VALUE_MAX + SB_TRACE_WARNING_MAX];

	memset(buf, 0, size);
	sb_strlcpy(buf, s, size);
	put(o, buf, size);
}

/* --- bytes in ------------------------------------------------------------------------------- */

struct in {
	const uint8_t *p, *end;
	bool bad;
};

static bool get(struct in *in, void *d, size_t n)
{
	if (in->bad || (size_t)(in->end - in->p) < n) {
		in->bad = true;
		memset(d, 0, n);
		return false;
	}
	memcpy(d, in->p, n);
	in->p += n;
	return true;
}

static uint64_t get_u64(struct in *in)
{
	uint8_t b[8];
	uint64_t v = 0;

	get(in, b, 8);
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

static uint32_t get_u32(struct in *in)
{
	uint8_t b[4];

	get(in, b, 4);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static int64_t get_i64(struct in *in)
{
	return (int64_t)get_u64(in);
}

static double get_f64(struct in *in)
{
	uint64_t u = get_u64(in);
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

/* A fixed-size text field: terminated inside, printable. */
static void get_text(struct in *in, char *s, size_t size)
{
	if (!get(in, s, size))
		return;
	if (!memchr(s, '\0', size)) {
		in->bad = true;
		s[0] = '\0';
	}
}

/* A count of elements of elem bytes each that the rest of the input can hold. */
static uint64_t get_count(struct in *in, size_t elem, uint64_t max)
{
	uint64_t n = get_u64(in);

	if (n > max || n > (uint64_t)(in->end - in->p) / elem) {
		in->bad = true;
		return 0;
	}
	return n;
}

/* --- the trace's description ------------------------------------------------------------------ */

static void put_info(struct out *o, const struct sb_trace_info *info)
{
	const struct sb_trace_capture *c = &info->capture;

	put_f64(o, info->tick_hz);
	put_text(o, info->time_unit, sizeof(info->time_unit));
	put_text(o, info->source, sizeof(info->source));
	put_u32(o, info->fields);
	put_u32(o, info->nsubparts);
	for (uint32_t i = 0; i < info->nsubparts; i++) {
		const struct sb_trace_subpart *sp = &info->subparts[i];

		put_text(o, sp->name, sizeof(sp->name));
		put_u32(o, sp->type);
		put_u32(o, sp->per_unit);
		put_u32(o, sp->addr_unit_bytes);
		put_u32(o, sp->block_bytes);
	}
	put_u32(o, info->nwarnings);
	for (uint32_t i = 0; i < info->nwarnings; i++)
		put_text(o, info->warnings[i], SB_TRACE_WARNING_MAX);
	put_u32(o, c->sampled);
	put_u32(o, c->burst_records);
	put_u64(o, c->gap_ticks);
	put_u64(o, c->executed);
	put_u64(o, c->captured);
	put_u64(o, c->lost_records);
	put_u64(o, c->bursts);
	put_u64(o, c->lost_bursts);
	put_i64(o, c->start);
	put_i64(o, c->end);
	put_u32(o, info->nattrs);
	for (uint32_t i = 0; i < info->nattrs; i++) {
		put_text(o, info->attrs[i].key, SB_TRACE_ATTR_KEY_MAX);
		put_text(o, info->attrs[i].value, SB_TRACE_ATTR_VALUE_MAX);
	}
}

static void get_info(struct in *in, struct sb_trace_info *info)
{
	char unit[8], source[SB_TRACE_NAME_MAX];
	uint32_t n;
	double hz = get_f64(in);

	get_text(in, unit, sizeof(unit));
	get_text(in, source, sizeof(source));
	if (in->bad || !sb_trace_clock_ok(hz)) {
		in->bad = true;
		return;
	}
	sb_trace_info_init(info, source, hz, unit);
	info->fields = get_u32(in) & SB_FIELD_ALL;
	n = get_u32(in);
	if (n > SB_TRACE_MAX_SUBPARTS)
		in->bad = true;
	for (uint32_t i = 0; i < n && !in->bad; i++) {
		char name[SB_TRACE_NAME_MAX];
		uint32_t type, per_unit, au, bb;

		get_text(in, name, sizeof(name));
		type = get_u32(in);
		per_unit = get_u32(in);
		au = get_u32(in);
		bb = get_u32(in);
		if (in->bad || type > SB_SUBPART_CACHE || per_unit > 1 ||
		    sb_trace_info_subpart(info, name, (enum sb_subpart_type)type, au, bb) !=
		        (int)i) {
			sb_error_clear();
			in->bad = true;
			return;
		}
		info->subparts[i].per_unit = (uint8_t)per_unit;
	}
	n = get_u32(in);
	if (n > SB_TRACE_MAX_WARNINGS)
		in->bad = true;
	for (uint32_t i = 0; i < n && !in->bad; i++) {
		char w[SB_TRACE_WARNING_MAX];

		get_text(in, w, sizeof(w));
		if (!in->bad)
			sb_trace_info_add_warning(info, w);
	}
	info->capture.sampled = get_u32(in);
	info->capture.burst_records = get_u32(in);
	info->capture.gap_ticks = get_u64(in);
	info->capture.executed = get_u64(in);
	info->capture.captured = get_u64(in);
	info->capture.lost_records = get_u64(in);
	info->capture.bursts = get_u64(in);
	info->capture.lost_bursts = get_u64(in);
	info->capture.start = get_i64(in);
	info->capture.end = get_i64(in);
	if (!in->bad && sb_trace_capture_check(&info->capture, "partial") < 0) {
		sb_error_clear();
		in->bad = true;
	}
	n = get_u32(in);
	if (n > SB_TRACE_MAX_ATTRS)
		in->bad = true;
	for (uint32_t i = 0; i < n && !in->bad; i++) {
		char k[SB_TRACE_ATTR_KEY_MAX], v[SB_TRACE_ATTR_VALUE_MAX];

		get_text(in, k, sizeof(k));
		get_text(in, v, sizeof(v));
		if (!in->bad && sb_trace_info_set_attr(info, k, v) < 0) {
			sb_error_clear();
			in->bad = true;
		}
	}
}

/* --- lifetimes ------------------------------------------------------------------------------ */

/* The counters of a subpartition's statistics, in the file's order. */
#define LT_COUNTERS(X)                                                                             \
	X(reads)                                                                                   \
	X(stores)                                                                                  \
	X(fetches)                                                                                 \
	X(flushes)                                                                                 \
	X(read_bits)                                                                               \
	X(write_bits)                                                                              \
	X(unique_addresses)                                                                        \
	X(capacity_bits)                                                                           \
	X(lifetimes)                                                                               \
	X(lifetime_accesses)                                                                       \
	X(zero_read_values)                                                                        \
	X(orphans)                                                                                 \
	X(unbacked_reads)                                                                          \
	X(skipped)                                                                                 \
	X(bypassed)                                                                                \
	X(read_ticks)                                                                              \
	X(write_ticks)                                                                             \
	X(windows)                                                                                 \
	X(censored_values)                                                                         \
	X(censored_read_values)

static void put_lifetimes(struct out *o, const struct sb_lifetime_result *res)
{
	put_u32(o, res->policy);
	put_u32(o, res->windowed);
	put_u64(o, res->records);
	put_i64(o, res->first_time);
	put_i64(o, res->last_time);
	put_u64(o, res->nsubparts);
	for (size_t s = 0; s < res->nsubparts; s++) {
		const struct sb_subpart_stats *st = &res->subparts[s];

#define PUT(f) put_u64(o, st->f);
		LT_COUNTERS(PUT)
#undef PUT
		put_i64(o, st->first_time);
		put_i64(o, st->last_time);
		put_i64(o, st->censored_max);
		put_u64(o, st->nbins);
		for (size_t i = 0; i < st->nbins; i++) {
			put_i64(o, st->bins[i].ticks);
			put_u64(o, st->bins[i].count);
			put_u64(o, st->bins[i].bits);
			put_u64(o, st->bins[i].accesses);
		}
		put_u64(o, st->nabins);
		for (size_t i = 0; i < st->nabins; i++) {
			put_i64(o, st->abins[i].max_ticks);
			put_u64(o, st->abins[i].addresses);
			put_u64(o, st->abins[i].bits);
			put_u64(o, st->abins[i].read_bits);
			put_u64(o, st->abins[i].write_bits);
		}
	}
}

/* The engine's result, checked: histograms ascending, their counts those of the statistics. */
static int get_lifetimes(struct in *in, struct sb_lifetime_result *res)
{
	uint32_t policy = get_u32(in), windowed = get_u32(in);
	uint64_t n;

	res->records = get_u64(in);
	res->first_time = get_i64(in);
	res->last_time = get_i64(in);
	n = get_count(in, 8, SB_TRACE_MAX_SUBPARTS);
	if (in->bad || policy > SB_POLICY_NO_WRITE_ALLOCATE || windowed > 1 ||
	    n != res->info.nsubparts)
		return SB_ERR_PARSE;
	res->policy = (enum sb_cache_policy)policy;
	res->windowed = windowed;
	if (!(res->subparts = calloc(n ? n : 1, sizeof(*res->subparts))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	res->nsubparts = n;
	for (size_t s = 0; s < n && !in->bad; s++) {
		struct sb_subpart_stats *st = &res->subparts[s];
		uint64_t count = 0, addresses = 0;

		st->sp = res->info.subparts[s];
#define GET(f) st->f = get_u64(in);
		LT_COUNTERS(GET)
#undef GET
		st->first_time = get_i64(in);
		st->last_time = get_i64(in);
		st->censored_max = get_i64(in);
		st->nbins = get_count(in, 32, UINT64_MAX);
		if (in->bad)
			break;
		if (!(st->bins = malloc((st->nbins ? st->nbins : 1) * sizeof(*st->bins))))
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		for (size_t i = 0; i < st->nbins; i++) {
			st->bins[i].ticks = get_i64(in);
			st->bins[i].count = get_u64(in);
			st->bins[i].bits = get_u64(in);
			st->bins[i].accesses = get_u64(in);
			count += st->bins[i].count;
			if (st->bins[i].ticks < 0 || st->bins[i].count == 0 ||
			    (i && st->bins[i].ticks <= st->bins[i - 1].ticks))
				in->bad = true;
		}
		st->nabins = get_count(in, 40, UINT64_MAX);
		if (in->bad)
			break;
		if (!(st->abins = malloc((st->nabins ? st->nabins : 1) * sizeof(*st->abins))))
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		for (size_t i = 0; i < st->nabins; i++) {
			st->abins[i].max_ticks = get_i64(in);
			st->abins[i].addresses = get_u64(in);
			st->abins[i].bits = get_u64(in);
			st->abins[i].read_bits = get_u64(in);
			st->abins[i].write_bits = get_u64(in);
			addresses += st->abins[i].addresses;
			if (st->abins[i].max_ticks < -1 ||
			    (i && st->abins[i].max_ticks <= st->abins[i - 1].max_ticks))
				in->bad = true;
		}
		if (count != st->lifetimes || addresses != st->unique_addresses)
			in->bad = true;
	}
	return in->bad ? SB_ERR_PARSE : 0;
}

/* --- locality ------------------------------------------------------------------------------- */

static void put_prefix(struct out *o, const struct sb_locality_prefix *p)
{
	put_u64(o, p->records);
	put_u64(o, p->accesses);
	put_u32(o, p->epoch);
	put_u32(o, p->sample);
	put_i64(o, p->win_first);
	put_i64(o, p->win_last);
	put_u32(o, (uint32_t)p->started | (uint32_t)p->by_sample << 1 | (uint32_t)p->win_any << 2);
}

static void get_prefix(struct in *in, struct sb_locality_prefix *p)
{
	uint32_t flags;

	p->records = get_u64(in);
	p->accesses = get_u64(in);
	p->epoch = get_u32(in);
	p->sample = get_u32(in);
	p->win_first = get_i64(in);
	p->win_last = get_i64(in);
	flags = get_u32(in);
	p->started = flags & 1;
	p->by_sample = flags & 2;
	p->win_any = flags & 4;
	if (flags > 7 || p->accesses > p->records)
		in->bad = true;
}

static void put_hist(struct out *o, const struct sb_reuse_hist *h)
{
	put_u64(o, h->accesses);
	put_u64(o, h->cold);
	for (unsigned k = 0; k < SB_REUSE_BINS; k++)
		put_u64(o, h->bins[k]);
	put_u64(o, h->finite);
	put_u64(o, h->sum);
	put_u64(o, h->max);
}

static void get_hist(struct in *in, struct sb_reuse_hist *h)
{
	uint64_t finite = 0;

	memset(h, 0, sizeof(*h));
	h->accesses = get_u64(in);
	h->cold = get_u64(in);
	for (unsigned k = 0; k < SB_REUSE_BINS; k++) {
		h->bins[k] = get_u64(in);
		finite += h->bins[k];
	}
	h->finite = get_u64(in);
	h->sum = get_u64(in);
	h->max = get_u64(in);
	if (finite != h->finite || h->cold + h->finite != h->accesses)
		in->bad = true;
}

static void put_leaf(struct out *o, const struct leaf *l)
{
	put_u64(o, l->accesses);
	put_u64(o, l->bytes);
	put_u64(o, l->observed);
	put_i64(o, l->first);
	put_i64(o, l->last);
	put_i64(o, l->start);
	put_u32(o, l->any);
}

static void get_leaf(struct in *in, struct leaf *l)
{
	uint32_t any;

	l->accesses = get_u64(in);
	l->bytes = get_u64(in);
	l->observed = get_u64(in);
	l->first = get_i64(in);
	l->last = get_i64(in);
	l->start = get_i64(in);
	any = get_u32(in);
	l->any = any;
	if (any > 1)
		in->bad = true;
}

static void put_locality(struct out *o, const struct sb_locality_part *p)
{
	put_prefix(o, &p->start);
	put_prefix(o, &p->end);
	put_u32(o, p->max_leaves);
	put_u32(o, p->lshift);
	put_u32(o, p->first_epoch);
	put_u64(o, p->skipped);
	put_u64(o, p->bytes);
	put_u32(o, p->tany);
	put_i64(o, p->first);
	put_i64(o, p->last);
	put_hist(o, &p->hist);
	put_u64(o, p->nsp);
	for (uint32_t s = 0; s < p->nsp; s++) {
		put_u64(o, p->sp[s].accesses);
		put_u64(o, p->sp[s].bytes);
		put_hist(o, &p->sp[s].hist);
	}
	put_u64(o, p->nleaves);
	for (size_t i = 0; i < p->nleaves; i++) {
		put_u32(o, p->leaves[i].index);
		put_leaf(o, &p->leaves[i].leaf);
		for (unsigned k = 0; k < LH; k++)
			put_u64(o, p->leaves[i].lh[k]);
	}
	put_u64(o, p->nblocks);
	for (size_t i = 0; i < p->nblocks; i++) {
		const struct lc_pblock *b = &p->blocks[i];

		put_u64(o, b->block);
		put_u64(o, b->accesses);
		put_u64(o, b->finite);
		put_u64(o, b->rd_sum);
		put_u64(o, b->first);
		put_u32(o, b->unit);
		put_u32(o, b->first_epoch);
		put_u32(o, b->last_epoch);
		put_u32(o, b->leaf);
		put_u32(o, b->rank);
		put_u32(o, b->sp);
	}
}

static int get_locality(struct in *in, const struct sb_trace_info *info,
                        struct sb_locality_part **out)
{
	struct sb_locality_part *p = calloc(1, sizeof(*p));
	uint64_t n, accesses = 0;

	*out = NULL;
	if (!p)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	get_prefix(in, &p->start);
	get_prefix(in, &p->end);
	p->max_leaves = get_u32(in);
	p->lshift = get_u32(in);
	p->first_epoch = get_u32(in);
	p->skipped = get_u64(in);
	p->bytes = get_u64(in);
	p->tany = get_u32(in) != 0;
	p->first = get_i64(in);
	p->last = get_i64(in);
	get_hist(in, &p->hist);
	n = get_count(in, 8, info->nsubparts);
	if (in->bad || p->max_leaves < 2 || p->max_leaves > 65536 ||
	    (p->max_leaves & (p->max_leaves - 1)) || p->lshift > 63 ||
	    p->end.records < p->start.records || p->end.accesses < p->start.accesses ||
	    p->end.epoch < p->start.epoch)
		goto bad;
	p->nsp = (uint32_t)n;
	if (!(p->sp = calloc(n ? n : 1, sizeof(*p->sp))))
		goto nomem;
	for (uint32_t s = 0; s < p->nsp; s++) {
		p->sp[s].accesses = get_u64(in);
		p->sp[s].bytes = get_u64(in);
		get_hist(in, &p->sp[s].hist);
		accesses += p->sp[s].accesses;
	}
	if (accesses != p->end.accesses - p->start.accesses || p->hist.accesses != accesses)
		goto bad;
	n = get_count(in, 4 + 52 + 8 * LH, p->max_leaves);
	if (in->bad || !(p->leaves = calloc(n ? n : 1, sizeof(*p->leaves))))
		goto fail;
	p->nleaves = n;
	for (size_t i = 0; i < n; i++) {
		p->leaves[i].index = get_u32(in);
		get_leaf(in, &p->leaves[i].leaf);
		for (unsigned k = 0; k < LH; k++)
			p->leaves[i].lh[k] = get_u64(in);
		if (p->leaves[i].index >= p->max_leaves ||
		    (i && p->leaves[i].index <= p->leaves[i - 1].index))
			goto bad;
	}
	n = get_count(in, 64, UINT64_MAX);
	if (in->bad || !(p->blocks = calloc(n ? n : 1, sizeof(*p->blocks))))
		goto fail;
	p->nblocks = n;
	for (size_t i = 0; i < n; i++) {
		struct lc_pblock *b = &p->blocks[i];
		uint32_t sp;

		b->block = get_u64(in);
		b->accesses = get_u64(in);
		b->finite = get_u64(in);
		b->rd_sum = get_u64(in);
		b->first = get_u64(in);
		b->unit = get_u32(in);
		b->first_epoch = get_u32(in);
		b->last_epoch = get_u32(in);
		b->leaf = get_u32(in);
		b->rank = get_u32(in);
		sp = get_u32(in);
		b->sp = (uint16_t)sp;
		/* what the merge relies on: its subpartition, its windows and access numbers in
		   the chunk, the tree's leaves, the order of first accesses */
		if (sp >= p->nsp || !b->accesses || b->first_epoch < 1 ||
		    b->first_epoch > b->last_epoch || b->last_epoch > p->end.epoch ||
		    b->first < p->start.accesses || b->first >= p->end.accesses ||
		    b->leaf >= p->max_leaves || (i && b->first <= p->blocks[i - 1].first))
			goto bad;
	}
	if (in->bad)
		goto bad;
	*out = p;
	return 0;
fail:
	if (in->bad)
		goto bad;
nomem:
	sb_locality_part_free(p);
	return sb_error_set(SB_ERR_NOMEM, "out of memory");
bad:
	sb_locality_part_free(p);
	in->bad = true;
	return SB_ERR_PARSE;
}

/* --- the header ------------------------------------------------------------------------------- */

static const char *kind_name(enum sb_partial_kind k)
{
	return k == SB_PARTIAL_LIFETIMES ? "lifetimes" : "locality";
}

/* The options every shard must share, as a JSON object. */
static cJSON *options_json(const struct sb_partial_meta *m)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "clock_hz", m->topt.clock_hz);
	cJSON_AddNumberToObject(o, "word_bytes", m->topt.word_bytes);
	cJSON_AddNumberToObject(o, "block_bytes", m->topt.block_bytes);
	if (m->kind == SB_PARTIAL_LIFETIMES) {
		cJSON_AddStringToObject(o, "policy", sb_cache_policy_name(m->policy));
	} else {
		cJSON_AddBoolToObject(o, "sorted", m->sorted);
		cJSON_AddNumberToObject(o, "locality_block_bytes", m->lopt.block_bytes);
		cJSON_AddNumberToObject(o, "leaves", m->lopt.max_leaves);
		cJSON_AddNumberToObject(o, "hot_share", m->lopt.hot_share);
		cJSON_AddNumberToObject(o, "zoom_fanout", m->lopt.zoom_fanout);
		cJSON_AddNumberToObject(o, "zoom_floor_bytes", (double)m->lopt.zoom_floor_bytes);
		cJSON_AddNumberToObject(o, "max_regions", m->lopt.max_regions);
	}
	return o;
}

static char *header_json(const struct sb_partial_meta *m)
{
	cJSON *root = cJSON_CreateObject(), *a, *t;
	char gen[64], *text;

	if (!root)
		return NULL;
	snprintf(gen, sizeof(gen), "stackbench %s", sb_version());
	cJSON_AddStringToObject(root, "schema", SB_PARTIAL_SCHEMA);
	cJSON_AddNumberToObject(root, "major", SB_PARTIAL_MAJOR);
	cJSON_AddNumberToObject(root, "minor", SB_PARTIAL_MINOR);
	cJSON_AddStringToObject(root, "analysis", kind_name(m->kind));
	cJSON_AddStringToObject(root, "generator", gen);
	cJSON_AddNumberToObject(root, "shard", m->shard);
	cJSON_AddNumberToObject(root, "shards", m->nshards);
	cJSON_AddStringToObject(root, "format", sb_trace_format_name(m->format));
	a = cJSON_AddArrayToObject(root, "inputs");
	for (size_t i = 0; a && i < m->ninputs; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(m->inputs[i]));
	t = cJSON_AddObjectToObject(root, "trace");
	if (t) {
		cJSON_AddStringToObject(t, "fingerprint", m->fingerprint);
		cJSON_AddNumberToObject(t, "bytes", (double)m->bytes);
		cJSON_AddNumberToObject(t, "records", (double)m->records);
	}
	cJSON_AddItemToObject(root, "options", options_json(m));
	text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return text;
}

/* --- files ------------------------------------------------------------------------------------ */

static int write_file(const char *path, const struct sb_partial_meta *m, struct out *body)
{
	char *header = header_json(m);
	size_t bound = ZSTD_compressBound(body->len), zlen;
	uint8_t *z = NULL, head[16];
	struct out file = {0};
	struct sb_output o;
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	int err;

	if (!header || body->nomem || !cctx || !(z = malloc(bound))) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, ZSTD_LEVEL);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	zlen = ZSTD_compress2(cctx, z, bound, body->p, body->len);
	if (ZSTD_isError(zlen)) {
		err = sb_error_set(SB_ERR_IO, "cannot compress '%s': %s", path,
		                   ZSTD_getErrorName(zlen));
		goto out;
	}
	memcpy(head, MAGIC, 8);
	head[8] = SB_PARTIAL_MAJOR;
	head[9] = 0;
	head[10] = SB_PARTIAL_MINOR;
	head[11] = 0;
	put(&file, head, 12);
	put_u32(&file, (uint32_t)strlen(header));
	put(&file, header, strlen(header));
	put_u64(&file, body->len);
	put_u64(&file, zlen);
	if (file.nomem) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((err = sb_output_open(&o, path)) < 0)
		goto out;
	if (fwrite(file.p, 1, file.len, o.f) != file.len || fwrite(z, 1, zlen, o.f) != zlen) {
		err = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
		sb_output_abort(&o);
		goto out;
	}
	err = sb_output_commit(&o);
out:
	ZSTD_freeCCtx(cctx);
	free(file.p);
	free(z);
	free(header);
	free(body->p);
	return err;
}

int sb_partial_write_lifetimes(const char *path, const struct sb_partial_meta *meta,
                               const struct sb_lifetime_result *res)
{
	struct out body = {0};

	put_info(&body, &res->info);
	put_lifetimes(&body, res);
	return write_file(path, meta, &body);
}

int sb_partial_write_locality(const char *path, const struct sb_partial_meta *meta,
                              const struct sb_trace_info *info, const struct sb_locality_part *part)
{
	struct out body = {0};

	put_info(&body, info);
	put_locality(&body, part);
	return write_file(path, meta, &body);
}

static int damaged(const char *path, const char *what)
{
	return sb_error_set(SB_ERR_PARSE, "'%s' is not a valid stackbench partial: %s", path, what);
}

/* A number of the options: within [lo, hi], whole unless frac; -1 when not. */
static int opt_num(const cJSON *o, const char *key, double lo, double hi, bool frac, double *v)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(it) || !(it->valuedouble >= lo && it->valuedouble <= hi) ||
	    (!frac && it->valuedouble != floor(it->valuedouble)))
		return -1;
	*v = it->valuedouble;
	return 0;
}

/* The options of the header into p->meta (what the merge analyses with). */
static int parse_options(struct sb_partial *p, const cJSON *o)
{
	struct sb_partial_meta *m = &p->meta;
	double clock, word, block, v[6];

	if (opt_num(o, "clock_hz", 0, SB_TRACE_CLOCK_MAX_HZ, true, &clock) < 0 ||
	    opt_num(o, "word_bytes", 0, 1u << 20, false, &word) < 0 ||
	    opt_num(o, "block_bytes", 0, 1u << 20, false, &block) < 0)
		return -1;
	m->topt.clock_hz = clock;
	m->topt.word_bytes = (uint32_t)word;
	m->topt.block_bytes = (uint32_t)block;
	if (m->kind == SB_PARTIAL_LIFETIMES) {
		const char *pol =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "policy"));

		if (!pol || sb_cache_policy_parse(pol, &m->policy) < 0) {
			sb_error_clear();
			return -1;
		}
		return 0;
	}
	if (!cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(o, "sorted")) ||
	    opt_num(o, "locality_block_bytes", 1, 1u << 30, false, &v[0]) < 0 ||
	    opt_num(o, "leaves", 2, 65536, false, &v[1]) < 0 ||
	    opt_num(o, "hot_share", 0, 1, true, &v[2]) < 0 ||
	    opt_num(o, "zoom_fanout", 2, 1u << 30, false, &v[3]) < 0 ||
	    opt_num(o, "zoom_floor_bytes", 1, 1u << 30, false, &v[4]) < 0 ||
	    opt_num(o, "max_regions", 1, 1u << 30, false, &v[5]) < 0)
		return -1;
	m->sorted = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "sorted"));
	m->lopt.block_bytes = (uint32_t)v[0];
	m->lopt.max_leaves = (uint32_t)v[1];
	m->lopt.hot_share = v[2];
	m->lopt.zoom_fanout = (uint32_t)v[3];
	m->lopt.zoom_floor_bytes = (uint64_t)v[4];
	m->lopt.max_regions = (uint32_t)v[5];
	if (sb_locality_options_resolve(&m->lopt) < 0) {
		sb_error_clear();
		return -1;
	}
	return 0;
}

/* The header's fields into p->meta. */
static int parse_header(struct sb_partial *p, const char *text)
{
	cJSON *root = cJSON_Parse(text), *it, *t, *opts;
	const char *an;
	int err = 0;
	char **inputs = NULL;
	size_t n = 0;

	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return damaged(p->path, "its header is not a JSON object");
	}
	it = cJSON_GetObjectItemCaseSensitive(root, "schema");
	if (!cJSON_IsString(it) || strcmp(it->valuestring, SB_PARTIAL_SCHEMA)) {
		err = damaged(p->path, "its header names another schema");
		goto out;
	}
	an = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "analysis"));
	if (!an || (strcmp(an, "lifetimes") && strcmp(an, "locality"))) {
		err = damaged(p->path, "no analysis named in its header");
		goto out;
	}
	p->meta.kind = !strcmp(an, "lifetimes") ? SB_PARTIAL_LIFETIMES : SB_PARTIAL_LOCALITY;
	an = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "generator"));
	sb_strlcpy(p->generator, an ? an : "", sizeof(p->generator));
	{
		double shard =
		    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(root, "shard"));
		double shards =
		    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(root, "shards"));

		if (!(shards >= 1 && shards <= SB_PARTIAL_MAX_SHARDS && shard >= 0 &&
		      shard < shards && shard == floor(shard) && shards == floor(shards))) {
			err = damaged(p->path, "a bad shard number in its header");
			goto out;
		}
		p->meta.shard = (uint32_t)shard;
		p->meta.nshards = (uint32_t)shards;
	}
	an = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "format"));
	if (sb_trace_format_parse(an ? an : "", &p->meta.format) < 0) {
		sb_error_clear();
		err = damaged(p->path, "a bad trace format in its header");
		goto out;
	}
	it = cJSON_GetObjectItemCaseSensitive(root, "inputs");
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) < 1 || cJSON_GetArraySize(it) > 4096 ||
	    !(inputs = calloc((size_t)cJSON_GetArraySize(it), sizeof(*inputs)))) {
		err = damaged(p->path, "no inputs in its header");
		goto out;
	}
	cJSON_ArrayForEach(t, it)
	{
		if (!cJSON_IsString(t) || !(inputs[n] = strdup(t->valuestring))) {
			err = damaged(p->path, "a bad input in its header");
			goto out;
		}
		n++;
	}
	t = cJSON_GetObjectItemCaseSensitive(root, "trace");
	an = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "fingerprint"));
	if (!an || strlen(an) != 32) {
		err = damaged(p->path, "no trace fingerprint in its header");
		goto out;
	}
	sb_strlcpy(p->meta.fingerprint, an, sizeof(p->meta.fingerprint));
	{
		double bytes, records;

		/* (whole numbers below 2^63: casting anything else would be undefined) */
		if (opt_num(t, "bytes", 0, 0x1p63, false, &bytes) < 0 ||
		    opt_num(t, "records", 0, 0x1p63, false, &records) < 0 || bytes >= 0x1p63 ||
		    records >= 0x1p63) {
			err = damaged(p->path, "no trace size in its header");
			goto out;
		}
		p->meta.bytes = (uint64_t)bytes;
		p->meta.records = (uint64_t)records;
	}
	opts = cJSON_GetObjectItemCaseSensitive(root, "options");
	if (!cJSON_IsObject(opts) || !(p->options = cJSON_PrintUnformatted(opts)) ||
	    (err = parse_options(p, opts)) < 0) {
		err = damaged(p->path, "bad options in its header");
		goto out;
	}
	p->meta.inputs = (const char *const *)inputs;
	p->meta.ninputs = n;
	inputs = NULL;
out:
	if (inputs) {
		for (size_t i = 0; i < n; i++)
			free(inputs[i]);
		free(inputs);
	}
	cJSON_Delete(root);
	return err;
}

/*
 * The body: one zstd frame of exactly rawlen bytes (its frame header must say so), into *raw.
 * The buffer grows with what the frame really yields, so a header that claims more than its
 * frame holds costs no memory.
 */
static int inflate_body(const char *name, const uint8_t *z, size_t zlen, size_t rawlen,
                        uint8_t **raw)
{
	const unsigned long long fcs = ZSTD_getFrameContentSize(z, zlen);
	size_t cap = rawlen < (UINT64_C(1) << 24) ? rawlen : (size_t)1 << 24, ret;
	ZSTD_inBuffer zin = {z, zlen, 0};
	ZSTD_outBuffer zout;
	ZSTD_DCtx *dctx;
	uint8_t *buf;
	int err = 0;

	if (fcs == ZSTD_CONTENTSIZE_ERROR || fcs == ZSTD_CONTENTSIZE_UNKNOWN)
		return damaged(name, "its body is not a zstd frame of known length");
	if (fcs != rawlen)
		return damaged(name, "its body has another length");
	if (!(buf = malloc(cap ? cap : 1)) || !(dctx = ZSTD_createDCtx())) {
		free(buf);
		return sb_error_set(SB_ERR_NOMEM, "out of memory reading '%s'", name);
	}
	zout = (ZSTD_outBuffer){buf, cap, 0};
	for (;;) {
		const size_t in0 = zin.pos, out0 = zout.pos;

		ret = ZSTD_decompressStream(dctx, &zout, &zin);
		if (ZSTD_isError(ret)) {
			err = damaged(name, ZSTD_getErrorName(ret));
			break;
		}
		if (ret == 0) /* the frame is complete (and its checksum checked) */
			break;
		if (zout.pos == zout.size && cap < rawlen) {
			uint8_t *more;

			cap = rawlen - cap < cap ? rawlen : 2 * cap;
			if (!(more = realloc(buf, cap))) {
				err =
				    sb_error_set(SB_ERR_NOMEM, "out of memory reading '%s'", name);
				break;
			}
			buf = more;
			zout.dst = buf;
			zout.size = cap;
		} else if (zin.pos == in0 && zout.pos == out0) {
			/* (no progress: the frame ends early, or holds more than its length) */
			err = damaged(name, zin.pos == zin.size ? "it is truncated"
			                                        : "its body has another length");
			break;
		}
	}
	if (!err && (zout.pos != rawlen || zin.pos != zin.size))
		err = damaged(name, "its body has another length");
	ZSTD_freeDCtx(dctx);
	if (err < 0) {
		free(buf);
		return err;
	}
	*raw = buf;
	return 0;
}

int sb_partial_parse(const char *name, const void *data, size_t len, struct sb_partial *p)
{
	const uint8_t *d = data, *z;
	char *header = NULL;
	uint8_t *raw = NULL;
	uint64_t rawlen, zlen;
	uint32_t hlen;
	struct in in;
	int err;

	memset(p, 0, sizeof(*p));
	sb_strlcpy(p->path, name, sizeof(p->path));
	if (len < 16 || memcmp(d, MAGIC, 8))
		return damaged(name, "no partial header (a truncated file, or another kind)");
	if ((d[8] | d[9] << 8) != SB_PARTIAL_MAJOR)
		return sb_error_set(SB_ERR_VERSION,
		                    "'%s' is a partial of format %u.%u; this stackbench reads %u.x",
		                    name, d[8] | d[9] << 8, d[10] | d[11] << 8, SB_PARTIAL_MAJOR);
	hlen =
	    (uint32_t)d[12] | (uint32_t)d[13] << 8 | (uint32_t)d[14] << 16 | (uint32_t)d[15] << 24;
	if (hlen > HEADER_MAX)
		return damaged(name, "a header out of bounds");
	if (len < 32 + (uint64_t)hlen)
		return damaged(name, "it is truncated");
	in = (struct in){d + 16 + hlen, d + 32 + hlen, false};
	rawlen = get_u64(&in);
	zlen = get_u64(&in);
	if (rawlen > BODY_MAX || zlen > BODY_MAX || (uint64_t)len != 32 + (uint64_t)hlen + zlen)
		return damaged(name, (uint64_t)len < 32 + (uint64_t)hlen + zlen
		                         ? "it is truncated"
		                         : "its length does not match its header");
	if (!(header = calloc(1, (size_t)hlen + 1)))
		return sb_error_set(SB_ERR_NOMEM, "out of memory reading '%s'", name);
	memcpy(header, d + 16, hlen);
	if (strlen(header) != hlen) {
		err = damaged(name, "a NUL in its header");
		goto out;
	}
	if ((err = parse_header(p, header)) < 0)
		goto out;
	z = d + 32 + hlen;
	if ((err = inflate_body(name, z, (size_t)zlen, (size_t)rawlen, &raw)) < 0)
		goto out;
	in = (struct in){raw, raw + rawlen, false};
	get_info(&in, &p->info);
	if (in.bad) {
		err = damaged(name, "a bad trace description");
		goto out;
	}
	if (p->meta.kind == SB_PARTIAL_LIFETIMES) {
		p->lifetimes.info = p->info;
		err = get_lifetimes(&in, &p->lifetimes);
	} else {
		err = get_locality(&in, &p->info, &p->locality);
	}
	if (err == SB_ERR_PARSE || (!err && in.p != in.end))
		err = damaged(name, "its results do not hold together");
out:
	free(header);
	free(raw);
	if (err < 0)
		sb_partial_release(p);
	return err;
}

int sb_partial_read(const char *path, struct sb_partial *p)
{
	struct stat st;
	uint8_t *data = NULL;
	size_t got = 0;
	FILE *f;
	int err;

	memset(p, 0, sizeof(*p));
	sb_strlcpy(p->path, path, sizeof(p->path));
	if (!(f = fopen(path, "rb"))) {
		int e = errno;

		return sb_error_set(e == ENOENT ? SB_ERR_NOT_FOUND : sb_errno_code(e),
		                    "cannot open '%s': %s", path, strerror(e));
	}
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return sb_error_set(SB_ERR_INVAL, "'%s' is not a file", path);
	}
	if ((uint64_t)st.st_size > BODY_MAX + HEADER_MAX + 32) {
		fclose(f);
		return damaged(path, "it is larger than a partial can be");
	}
	if (!(data = malloc(st.st_size ? (size_t)st.st_size : 1))) {
		fclose(f);
		return sb_error_set(SB_ERR_NOMEM, "out of memory reading '%s'", path);
	}
	got = fread(data, 1, (size_t)st.st_size, f);
	if (ferror(f))
		err = sb_error_set(SB_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
	else
		err = sb_partial_parse(path, data, got, p);
	fclose(f);
	free(data);
	return err;
}

void sb_partial_release(struct sb_partial *p)
{
	if (p->meta.inputs) {
		for (size_t i = 0; i < p->meta.ninputs; i++)
			free((char *)p->meta.inputs[i]);
		free((char **)p->meta.inputs);
	}
	free(p->options);
	sb_lifetime_result_release(&p->lifetimes);
	sb_locality_part_free(p->locality);
	memset(&p->meta, 0, sizeof(p->meta));
	p->options = NULL;
	p->locality = NULL;
}

static int cmp_shard(const void *a, const void *b)
{
	uint32_t x = ((const struct sb_partial *)a)->meta.shard;
	uint32_t y = ((const struct sb_partial *)b)->meta.shard;

	return (x > y) - (x < y);
}

int sb_partial_check_set(struct sb_partial *parts, size_t n, enum sb_partial_kind kind)
{
	const struct sb_partial *a;

	if (n == 0)
		return sb_error_set(SB_ERR_INVAL, "no partials to merge");
	for (size_t i = 0; i < n; i++) {
		const struct sb_partial *p = &parts[i];

		if (p->meta.kind != kind)
			return sb_error_set(SB_ERR_MISMATCH,
			                    "'%s' is a partial of a %s analysis, not of %s",
			                    p->path, kind_name(p->meta.kind), kind_name(kind));
	}
	a = &parts[0];
	for (size_t i = 1; i < n; i++) {
		const struct sb_partial *p = &parts[i];

		if (strcmp(p->generator, a->generator))
			return sb_error_set(SB_ERR_MISMATCH,
			                    "'%s' was written by %s, '%s' by %s: merge partials of "
			                    "one version",
			                    p->path, p->generator, a->path, a->generator);
		if (strcmp(p->meta.fingerprint, a->meta.fingerprint) ||
		    p->meta.bytes != a->meta.bytes || p->meta.records != a->meta.records ||
		    p->meta.format != a->meta.format)
			return sb_error_set(SB_ERR_MISMATCH,
			                    "'%s' and '%s' are partials of different traces (their "
			                    "fingerprints, sizes or formats differ)",
			                    p->path, a->path);
		if (strcmp(p->options, a->options))
			return sb_error_set(SB_ERR_MISMATCH,
			                    "'%s' and '%s' are partials of analyses with different "
			                    "options (%s, %s)",
			                    p->path, a->path, p->options, a->options);
		if (p->meta.nshards != a->meta.nshards)
			return sb_error_set(
			    SB_ERR_MISMATCH,
			    "'%s' is shard %u of %u, '%s' shard %u of %u: shards of "
			    "different splits",
			    p->path, p->meta.shard, p->meta.nshards, a->path, a->meta.shard,
			    a->meta.nshards);
	}
	qsort(parts, n, sizeof(*parts), cmp_shard);
	for (size_t i = 0; i < n; i++) {
		if (i && parts[i].meta.shard == parts[i - 1].meta.shard)
			return sb_error_set(SB_ERR_MISMATCH,
			                    "'%s' and '%s' are both shard %u of %u",
			                    parts[i - 1].path, parts[i].path, parts[i].meta.shard,
			                    parts[i].meta.nshards);
	}
	if (n != parts[0].meta.nshards) {
		uint32_t missing = 0;

		while (missing < n && parts[missing].meta.shard == missing)
			missing++;
		return sb_error_set(SB_ERR_MISMATCH,
		                    "%zu partials of %u shards: shard %u of %u is missing", n,
		                    parts[0].meta.nshards, missing, parts[0].meta.nshards);
	}
	return 0;
}

/* --- the trace's fingerprint ------------------------------------------------------------------ */

#define FP_EDGE (1u << 20)
#define FP_WINDOWS 64
#define FP_WINDOW (32u << 10)

struct fp {
	uint64_t h[2];
	uint64_t bytes;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

static void fp_bytes(struct fp *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		f->h[0] = mix(f->h[0], p[i]);
		if ((i & 7) == 7)
			f->h[1] = mix(f->h[1], f->h[0]);
	}
	f->h[1] = mix(f->h[1], n);
}

/* Hash len bytes of fd at offset into f. */
static int fp_range(struct fp *f, int fd, uint64_t offset, size_t len, const char *path)
{
	uint8_t buf[FP_WINDOW];

	while (len) {
		size_t k = len < sizeof(buf) ? len : sizeof(buf);
		ssize_t r = pread(fd, buf, k, (off_t)offset);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return sb_error_set(SB_ERR_IO, "cannot read '%s': %s", path,
			                    r < 0 ? strerror(errno) : "it shrank");
		fp_bytes(f, buf, (size_t)r);
		offset += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

static int fp_file(struct fp *f, const char *path, const char *name)
{
	struct stat st;
	uint64_t size;
	int fd, err = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return sb_error_set(e == ENOENT ? SB_ERR_NOT_FOUND : sb_errno_code(e),
		                    "cannot open '%s': %s", path, strerror(e));
	}
	size = (uint64_t)st.st_size;
	fp_bytes(f, (const uint8_t *)name, strlen(name));
	fp_bytes(f, (const uint8_t *)&size, sizeof(size));
	f->bytes += size;
	if (size <= 4 * FP_EDGE) {
		err = fp_range(f, fd, 0, (size_t)size, path);
	} else {
		err = fp_range(f, fd, 0, FP_EDGE, path);
		for (uint64_t w = 1; !err && w <= FP_WINDOWS; w++)
			err = fp_range(f, fd,
			               FP_EDGE +
			                   (size - 2 * FP_EDGE - FP_WINDOW) * w / (FP_WINDOWS + 1),
			               FP_WINDOW, path);
		if (!err)
			err = fp_range(f, fd, size - FP_EDGE, FP_EDGE, path);
	}
	close(fd);
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder's regular files, by name (sorted), recursively; name is its path in the input. */
static int fp_path(struct fp *f, const char *path, const char *name, int depth)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int err = 0;

	if (stat(path, &st) < 0)
		return sb_error_set(errno == ENOENT ? SB_ERR_NOT_FOUND : sb_errno_code(errno),
		                    "cannot open '%s': %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return S_ISREG(st.st_mode) ? fp_file(f, path, name) : 0;
	if (depth > 8 || !(d = opendir(path)))
		return depth > 8
		           ? 0
		           : sb_error_set(SB_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 32) * sizeof(*nn));

			if (!nn) {
				err = sb_error_set(SB_ERR_NOMEM, "out of memory");
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(de->d_name))) {
			err = sb_error_set(SB_ERR_NOMEM, "out of memory");
			break;
		}
		n++;
	}
	closedir(d);
	if (!err)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; !err && i < n; i++) {
		char sub[4096], subname[4096];

		snprintf(sub, sizeof(sub), "%s/%s", path, names[i]);
		snprintf(subname, sizeof(subname), "%s/%s", name, names[i]);
		err = fp_path(f, sub, subname, depth + 1);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

int sb_partial_fingerprint(const struct sb_trace_source *src, char hex[33], uint64_t *bytes)
{
	struct fp f = {{0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull}, 0};
	int err;

	if (!sb_trace_source_rereadable(src))
		return sb_error_set(SB_ERR_INVAL, "a shard reads its trace from a file, not from "
		                                  "standard input");
	for (size_t i = 0; i < src->npaths; i++) {
		char name[32];

		/* the inputs' contents and order, not their paths (shards may see other mounts) */
		snprintf(name, sizeof(name), "#%zu", i);
		if ((err = fp_path(&f, src->paths[i], name, 0)) < 0)
			return err;
	}
	snprintf(hex, 33, "%016llx%016llx", (unsigned long long)f.h[0], (unsigned long long)f.h[1]);
	*bytes = f.bytes;
	return 0;
}
