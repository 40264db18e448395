/* SPDX-License-Identifier: MIT */
/*
 * The lifetime engine (rules pinned in docs/lifetimes.md). One state per subpartition: an
 * open-addressing table with one 64-byte entry (one cache line) per distinct address, an exact
 * histogram of lifetime lengths (a direct array for short lifetimes, a hash table above), and
 * the reads of the current time stamp (applied once the time stamp is over, so that the writes
 * of a time stamp come before its reads). No allocation per access.
 *
 * Speed: a feed decodes each record PREFETCH_AHEAD records before applying it (subpartition,
 * action, key, hash) and prefetches its table slot, so the cache misses of random addresses
 * overlap; applying a record is then short and nearly branch-free (reads and the end of a value
 * update the counters arithmetically instead of branching on unbacked or zero-read cases).
 */
#include <math.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string.h>

#include "lifetime_internal.h"
#include "stackbench/error.h"
#include "stackbench/lifetime.h"
#include "stackbench/util.h"
#include "trace_internal.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Flags of an address. */
#define F_LIVE 1u    /* holds a live value */
#define F_FETCHED 2u /* the live value was fetched / filled (an orphan if never read) */
#define F_HELD 4u    /* has held a lifetime: max_life is valid */

/* One distinct address: one cache line, so that a lookup touches one line. */
struct aentry {
	uint64_t key1;     /* key + 1; 0: an empty slot (key UINT64_MAX lives in sp_state.spare) */
	int64_t start;     /* the write that started the live value */
	int64_t last_read; /* its last read; equal to start while it has none */
	int64_t max_life;  /* longest lifetime held here (with F_HELD) */
	uint64_t rbits, wbits;
	uint32_t nreads;   /* reads of the live value (saturating) */
	uint32_t val_bits; /* bits of the live value */
	uint32_t max_bits; /* widest access at this address */
	uint32_t flags;
};

_Static_assert(sizeof(struct aentry) == 64, "an address entry is one cache line");

struct atab {
	struct aentry *e;
	uint32_t hshift; /* 64 - log2(slots): the slot of hash h is h >> hshift */
	size_t mask, used;
};

/* Exact histogram of long lifetimes: key -> four counters; an entry is used when v[0] != 0. */
struct hentry {
	int64_t key;
	uint64_t v[4];
};

struct htab {
	struct hentry *e;
	size_t mask, used;
	struct hentry *last; /* the entry used last: lifetimes repeat */
};

/* Lifetimes of one length, for the direct part of the histogram. */
struct hbin {
	uint64_t count, bits, accesses;
};

/* Lifetimes shorter than this many ticks are counted in a direct array (grown on demand). */
#define DENSE_MAX (1u << 16)
#define DENSE_MIN 64u

/* A read waiting for the end of its time stamp. */
struct dread {
	uint64_t key;
	uint64_t bits;
};

struct sp_state {
	struct atab addrs;
	uint64_t unit_mask; /* per-unit subpartitions: the unit is part of the key */
	uint32_t shift;     /* log2(block_bytes / addr_unit_bytes) */
	bool init, started;
	bool any_w, any_r;
	bool flush; /* a flush of the current time stamp, applied after its reads (rule 3) */
	int64_t cur_time;
	int64_t last_w, last_r;
	struct dread *dr;
	size_t ndr, capdr;
	struct hbin *dense; /* lifetimes 0 .. ndense - 1 */
	size_t ndense;
	struct htab life; /* lifetimes from DENSE_MAX on */
	bool spare_used;
	struct aentry spare; /* the address whose key is UINT64_MAX */
	/* sampled traces: the window (sample id) and the keys written in it, whose values the
	   window's end cuts (when the list would exceed WINDOW_KEYS_MAX, the table is scanned) */
	uint32_t window;
	uint64_t *wkeys;
	size_t nwkeys, capwkeys;
	bool wscan;
	struct sb_subpart_stats st;
};

#define WINDOW_KEYS_MAX (1u << 20)

/* What a record does, from its kind, its cache status and the policy. */
enum action {
	A_READ = 0,
	A_STORE = 1,
	A_FETCH = 2,
	A_FLUSH = 3,
	A_SKIP = 4,   /* reservation fail: the access did not happen */
	A_BYPASS = 5, /* write miss under no-write-allocate */
	A_BADSP = 6,  /* names a subpartition out of the table */
};

struct sb_lifetime {
	enum sb_cache_policy policy;
	struct lt_decoder dec;
	struct sb_lifetime_partition part; /* the addresses this engine applies */
	struct sp_state *sp;
	size_t nsp;
	uint64_t records;
	bool any;
	bool windowed, decided; /* records carry sample ids: each id is a window (a sample) */
	int64_t first, last;
};

/* Multiplicative (Fibonacci) hashing: the slot is the top bits of key × 2^64/φ. */
#define HASH_MUL 0x9e3779b97f4a7c15ull

static inline uint64_t key_hash(uint64_t k)
{
	return k * HASH_MUL;
}

/*
 * The partition of an address (docs/lifetimes.md, "Threads and shards"): a mix of its key and
 * subpartition; shards take the high 32 bits, threads the low 32 bits, each scaled to its count.
 */
static inline uint64_t part_mix(uint64_t key, uint32_t sp)
{
	uint64_t k = key ^ ((uint64_t)sp * 0xc2b2ae3d27d4eb4full);

	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

/* Mixing hash of the histogram tables. */
static inline size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

/* --- tables ------------------------------------------------------------------------------- */

static void atab_free(struct atab *t)
{
	sb_table_free(t->e, t->e ? (t->mask + 1) * sizeof(*t->e) : 0);
	t->e = NULL;
}

/* cap: a power of two. */
static int atab_init(struct atab *t, size_t cap)
{
	t->e = sb_table_alloc(cap * sizeof(*t->e));
	if (!t->e)
		return sb_error_set(SB_ERR_NOMEM, "out of memory (address table of %zu entries)",
		                    cap);
	t->mask = cap - 1;
	t->used = 0;
	t->hshift = 64;
	while (cap > 1) {
		cap >>= 1;
		t->hshift--;
	}
	return 0;
}

/* Slot of hash h: its top bits (tables have at least 1024 slots). */
static inline size_t atab_slot(const struct atab *t, uint64_t h)
{
	return (size_t)(h >> t->hshift);
}

static int atab_grow(struct atab *t)
{
	struct atab n;
	int err;

	if ((err = atab_init(&n, (t->mask + 1) * 2)) < 0)
		return err;
	for (size_t i = 0; i <= t->mask; i++) {
		const struct aentry *e = &t->e[i];
		size_t j;

		if (!e->key1)
			continue;
		for (j = atab_slot(&n, key_hash(e->key1 - 1)); n.e[j].key1; j = (j + 1) & n.mask)
			;
		n.e[j] = *e;
	}
	n.used = t->used;
	atab_free(t);
	*t = n;
	return 0;
}

/* The entry of key (hash h), inserted if absent: the probe past the first slot. */
static struct aentry *aget_slow(struct sp_state *s, uint64_t key, uint64_t h)
{
	struct atab *t = &s->addrs;
	const uint64_t k1 = key + 1;
	size_t i;

	if (UNLIKELY(!k1)) {
		s->spare_used = true;
		return &s->spare;
	}
	for (i = atab_slot(t, h); t->e[i].key1; i = (i + 1) & t->mask)
		if (t->e[i].key1 == k1)
			return &t->e[i];
	if ((t->used + 1) * 10 > (t->mask + 1) * 7) {
		if (atab_grow(t) < 0)
			return NULL;
		return aget_slow(s, key, h);
	}
	t->e[i].key1 = k1; /* the rest of a free slot is zero */
	t->used++;
	return &t->e[i];
}

/* The entry of key (hash h), inserted if absent; NULL when out of memory. */
static inline struct aentry *aget(struct sp_state *s, uint64_t key, uint64_t h)
{
	struct aentry *e = &s->addrs.e[atab_slot(&s->addrs, h)];

	if (LIKELY(e->key1 == key + 1 && e->key1))
		return e;
	return aget_slow(s, key, h);
}

static int htab_init(struct htab *t, size_t cap)
{
	t->e = calloc(cap, sizeof(*t->e));
	if (!t->e)
		return sb_error_set(SB_ERR_NOMEM, "out of memory (histogram of %zu entries)", cap);
	t->mask = cap - 1;
	t->used = 0;
	t->last = NULL;
	return 0;
}

static int htab_add(struct htab *t, int64_t key, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	size_t i = hash64((uint64_t)key) & t->mask;
	int err;

	if (t->last && t->last->key == key) {
		t->last->v[0] += a;
		t->last->v[1] += b;
		t->last->v[2] += c;
		t->last->v[3] += d;
		return 0;
	}
	for (;;) {
		struct hentry *e = &t->e[i];

		if (!e->v[0]) {
			if ((t->used + 1) * 10 > (t->mask + 1) * 7) {
				struct htab n;

				if ((err = htab_init(&n, (t->mask + 1) * 2)) < 0)
					return err;
				for (size_t k = 0; k <= t->mask; k++) {
					size_t j;

					if (!t->e[k].v[0])
						continue;
					for (j = hash64((uint64_t)t->e[k].key) & n.mask;
					     n.e[j].v[0]; j = (j + 1) & n.mask)
						;
					n.e[j] = t->e[k];
				}
				n.used = t->used;
				free(t->e);
				*t = n;
				return htab_add(t, key, a, b, c, d);
			}
			e->key = key;
			t->used++;
		} else if (e->key != key) {
			i = (i + 1) & t->mask;
			continue;
		}
		e->v[0] += a;
		e->v[1] += b;
		e->v[2] += c;
		e->v[3] += d;
		t->last = e;
		return 0;
	}
}

static int cmp_hentry(const void *a, const void *b)
{
	int64_t x = ((const struct hentry *)a)->key, y = ((const struct hentry *)b)->key;

	return (x > y) - (x < y);
}

/* The used entries, sorted by key (malloc'ed; *n of them). */
static struct hentry *htab_sorted(const struct htab *t, size_t *n)
{
	struct hentry *out = malloc((t->used ? t->used : 1) * sizeof(*out));
	size_t k = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i <= t->mask; i++)
		if (t->e[i].v[0])
			out[k++] = t->e[i];
	qsort(out, k, sizeof(*out), cmp_hentry);
	*n = k;
	return out;
}

/* Count lifetimes of length life (>= 0) beyond the direct array: grow it or use the table. */
static int hist_add_slow(struct sp_state *s, int64_t life, uint64_t count, uint64_t bits,
                         uint64_t accesses)
{
	if ((uint64_t)life < DENSE_MAX) {
		size_t n = s->ndense;
		struct hbin *d;

		while (n <= (uint64_t)life)
			n *= 2;
		if (!(d = realloc(s->dense, n * sizeof(*d))))
			return sb_error_set(SB_ERR_NOMEM,
			                    "out of memory (histogram of %zu entries)", n);
		memset(d + s->ndense, 0, (n - s->ndense) * sizeof(*d));
		s->dense = d;
		s->ndense = n;
		d[life].count += count;
		d[life].bits += bits;
		d[life].accesses += accesses;
		return 0;
	}
	return htab_add(&s->life, life, count, bits, accesses, 0);
}

static inline int hist_add(struct sp_state *s, int64_t life, uint64_t count, uint64_t bits,
                           uint64_t accesses)
{
	if (LIKELY((uint64_t)life < s->ndense)) {
		struct hbin *b = &s->dense[life];

		b->count += count;
		b->bits += bits;
		b->accesses += accesses;
		return 0;
	}
	return hist_add_slow(s, life, count, bits, accesses);
}

/* --- engine ------------------------------------------------------------------------------- */

int sb_cache_policy_parse(const char *name, enum sb_cache_policy *policy)
{
	if (!strcmp(name, "write-allocate")) {
		*policy = SB_POLICY_WRITE_ALLOCATE;
		return 0;
	}
	if (!strcmp(name, "no-write-allocate")) {
		*policy = SB_POLICY_NO_WRITE_ALLOCATE;
		return 0;
	}
	return sb_error_set(
	    SB_ERR_INVAL, "unknown cache policy '%s' (write-allocate or no-write-allocate)", name);
}

const char *sb_cache_policy_name(enum sb_cache_policy policy)
{
	return policy == SB_POLICY_NO_WRITE_ALLOCATE ? "no-write-allocate" : "write-allocate";
}

int sb_lifetime_new(struct sb_lifetime **eng, enum sb_cache_policy policy)
{
	struct sb_lifetime *e = calloc(1, sizeof(*e));

	*eng = e;
	if (!e)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	e->policy = policy;
	e->part = (struct sb_lifetime_partition){0, 1, 0, 1};
	lt_decoder_init(&e->dec, policy, &e->part);
	return 0;
}

int sb_lifetime_set_partition(struct sb_lifetime *eng, const struct sb_lifetime_partition *p)
{
	if (!p->nshards || !p->nthreads || p->shard >= p->nshards || p->thread >= p->nthreads ||
	    eng->records)
		return sb_error_set(SB_ERR_INVAL, "bad partition %u/%u, %u/%u", p->shard,
		                    p->nshards, p->thread, p->nthreads);
	eng->part = *p;
	lt_decoder_init(&eng->dec, eng->policy, p);
	return 0;
}

static void sp_release(struct sp_state *s)
{
	atab_free(&s->addrs);
	free(s->life.e);
	free(s->dense);
	free(s->dr);
	free(s->wkeys);
}

void sb_lifetime_free(struct sb_lifetime *eng)
{
	if (!eng)
		return;
	for (size_t i = 0; i < eng->nsp; i++)
		sp_release(&eng->sp[i]);
	free(eng->sp);
	free(eng);
}

static int sp_init(struct sp_state *s, const struct sb_trace_subpart *sp)
{
	uint32_t ratio = sp->block_bytes / (sp->addr_unit_bytes ? sp->addr_unit_bytes : 1);
	int err;

	memset(s, 0, sizeof(*s));
	s->st.sp = *sp;
	while (ratio > 1) {
		ratio >>= 1;
		s->shift++;
	}
	s->unit_mask = sp->per_unit ? ~(uint64_t)0 : 0;
	if ((err = atab_init(&s->addrs, 1024)) < 0 || (err = htab_init(&s->life, 256)) < 0)
		return err;
	if (!(s->dense = calloc(DENSE_MIN, sizeof(*s->dense))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	s->ndense = DENSE_MIN;
	s->init = true;
	return 0;
}

/* Make states for every subpartition info names. */
static int sync_subparts(struct sb_lifetime *eng, const struct sb_trace_info *info)
{
	int err;

	if (info->nsubparts > eng->nsp) {
		struct sp_state *n = realloc(eng->sp, info->nsubparts * sizeof(*n));

		if (!n)
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		memset(n + eng->nsp, 0, (info->nsubparts - eng->nsp) * sizeof(*n));
		eng->sp = n;
		eng->nsp = info->nsubparts;
	}
	for (size_t i = 0; i < eng->nsp; i++)
		if (!eng->sp[i].init && (err = sp_init(&eng->sp[i], &info->subparts[i])) < 0)
			return err;
	return 0;
}

/*
 * The live value at e ends (overwrite, flush, program end). Without branches on its outcome:
 * a value never read has last_read == start, so it adds nothing to the lifetime counters.
 */
static inline int end_value(struct sp_state *s, struct aentry *e)
{
	const uint64_t n = e->nreads, has = n != 0;
	const int64_t life = e->last_read - e->start;

	s->st.zero_read_values += !has;
	s->st.orphans += !has & ((e->flags & F_FETCHED) != 0);
	s->st.lifetimes += has;
	s->st.lifetime_accesses += has + n;
	if (life > e->max_life)
		e->max_life = life;
	e->flags = (e->flags & ~(F_LIVE | F_FETCHED)) | (has ? F_HELD : 0);
	return hist_add(s, life, has, e->val_bits & (uint32_t)-has, has + n);
}

/*
 * Apply the reads of the time stamp that ends (all at cur_time), after its writes. An unbacked
 * read leaves a meaningless nreads / last_read at an address without a live value; the next
 * write resets both.
 */
static int apply_reads(struct sp_state *s)
{
	const int64_t t = s->cur_time;
	uint64_t unbacked = 0, bits = 0;

	for (size_t i = 0; i < s->ndr; i++) {
		const struct dread *d = &s->dr[i];
		struct aentry *e = aget(s, d->key, key_hash(d->key));

		if (UNLIKELY(!e))
			return SB_ERR_NOMEM;
		e->rbits += d->bits;
		if (d->bits > e->max_bits)
			e->max_bits = (uint32_t)d->bits;
		bits += d->bits;
		unbacked += !(e->flags & F_LIVE);
		e->nreads += e->nreads != UINT32_MAX;
		e->last_read = t;
	}
	s->st.reads += s->ndr;
	s->st.read_bits += bits;
	s->st.unbacked_reads += unbacked;
	s->ndr = 0;
	return 0;
}

static int flush_all(struct sp_state *s)
{
	int err;

	for (size_t i = 0; i <= s->addrs.mask; i++) {
		struct aentry *e = &s->addrs.e[i];

		if ((e->flags & F_LIVE) && (err = end_value(s, e)) < 0)
			return err;
	}
	if ((s->spare.flags & F_LIVE) && (err = end_value(s, &s->spare)) < 0)
		return err;
	return 0;
}

/* The end of the current time stamp: its reads (after its writes), then its flushes (rule 3). */
static int end_time(struct sp_state *s)
{
	int err;

	if (s->ndr && (err = apply_reads(s)) < 0)
		return sb_error_set(err, "out of memory");
	if (s->flush) {
		s->flush = false;
		if ((err = flush_all(s)) < 0)
			return sb_error_set(err, "out of memory");
	}
	return 0;
}

/*
 * A live value cut by the end of its window (sampled traces): what happened to it in the gap
 * is unknown, so it is neither a lifetime nor a zero-read value. Its observed length (write to
 * last read seen) is a lower bound: it counts towards the address's longest lifetime.
 */
static void cut_value(struct sp_state *s, struct aentry *e)
{
	const int64_t seen = e->last_read - e->start;

	s->st.censored_values++;
	if (e->nreads) {
		s->st.censored_read_values++;
		if (seen > s->st.censored_max)
			s->st.censored_max = seen;
		if (!(e->flags & F_HELD) || seen > e->max_life)
			e->max_life = seen;
		e->flags |= F_HELD;
	}
	e->flags &= ~(F_LIVE | F_FETCHED);
}

/* The end of a window: its last time stamp ends, then every live value is cut. */
static int end_window(struct sp_state *s)
{
	int err;

	if ((err = end_time(s)) < 0)
		return err;
	if (s->wscan) {
		for (size_t i = 0; i <= s->addrs.mask; i++)
			if (s->addrs.e[i].key1 && (s->addrs.e[i].flags & F_LIVE))
				cut_value(s, &s->addrs.e[i]);
		if (s->spare_used && (s->spare.flags & F_LIVE))
			cut_value(s, &s->spare);
	} else {
		for (size_t i = 0; i < s->nwkeys; i++) {
			struct aentry *e = aget(s, s->wkeys[i], key_hash(s->wkeys[i]));

			if (UNLIKELY(!e))
				return sb_error_set(SB_ERR_NOMEM, "out of memory");
			if (e->flags & F_LIVE)
				cut_value(s, e);
		}
	}
	s->nwkeys = 0;
	s->wscan = false;
	s->st.windows++;
	return 0;
}

/* Remember a key written in the window (its value is cut at the window's end). */
static int window_key(struct sp_state *s, uint64_t key)
{
	if (s->wscan)
		return 0;
	if (s->nwkeys == s->capwkeys) {
		size_t nc = s->capwkeys ? s->capwkeys * 2 : 1024;
		uint64_t *nk;

		if (nc > WINDOW_KEYS_MAX) {
			s->wscan = true; /* too many: scan the table at the window's end */
			return 0;
		}
		if (!(nk = realloc(s->wkeys, nc * sizeof(*nk))))
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		s->wkeys = nk;
		s->capwkeys = nc;
	}
	s->wkeys[s->nwkeys++] = key;
	return 0;
}

/* --- decoding -------------------------------------------------------------------------------- */

void lt_decoder_init(struct lt_decoder *d, enum sb_cache_policy policy,
                     const struct sb_lifetime_partition *p)
{
	static const uint8_t by_kind[LT_ACT_KINDS] = {A_READ, A_STORE, A_FETCH, A_FLUSH, A_STORE};

	memset(d, 0, sizeof(*d));
	d->part = *p;
	d->all = p->nshards == 1 && p->nthreads == 1 && p->shard == 0 && p->thread == 0;
	/* the action of each (cache status, kind class) under the policy (rule 7) */
	for (unsigned c = 0; c < LT_ACT_STATUSES; c++) {
		for (unsigned k = 0; k < LT_ACT_KINDS; k++) {
			uint8_t a = by_kind[k];

			if (c == SB_CACHE_RESERVATION_FAIL)
				a = A_SKIP; /* retried later: not an access */
			else if (c == SB_CACHE_MISS || c == SB_CACHE_SECTOR_MISS) {
				if (k == SB_ACC_READ)
					a = A_FETCH; /* a read miss fills the line */
				else if (k == SB_ACC_WRITE && policy == SB_POLICY_NO_WRITE_ALLOCATE)
					a = A_BYPASS; /* allocates nothing */
			}
			d->act[c][k] = a;
		}
	}
}

void lt_decoder_sync(struct lt_decoder *d, const struct sb_trace_info *info)
{
	for (; d->nsp < info->nsubparts; d->nsp++) {
		const struct sb_trace_subpart *sp = &info->subparts[d->nsp];
		uint32_t ratio = sp->block_bytes / (sp->addr_unit_bytes ? sp->addr_unit_bytes : 1);
		uint8_t shift = 0;

		while (ratio > 1) {
			ratio >>= 1;
			shift++;
		}
		d->shift[d->nsp] = shift;
		d->unit_mask[d->nsp] = sp->per_unit ? ~(uint64_t)0 : 0;
	}
}

static inline void decode_one(const struct lt_decoder *d, const struct sb_trace_record *r,
                              struct lt_op *o)
{
	const uint32_t sp = r->subpart;
	const uint8_t kind = r->kind, cache = r->cache;

	o->time = r->time;
	o->bits = r->size * 8u;
	o->sample = r->sample;
	o->sp = (uint16_t)sp;
	if (UNLIKELY(sp >= d->nsp)) {
		o->act = A_BADSP;
		o->part = LT_PART_NONE;
		o->key = 0;
		return;
	}
	/* without a cache status, kinds 0..3 are their own action */
	if (LIKELY(!cache && kind < A_FLUSH + 1))
		o->act = kind;
	else
		o->act = d->act[cache < LT_ACT_STATUSES ? cache : 0]
		               [kind < LT_ACT_KINDS - 1 ? kind : LT_ACT_KINDS - 1];
	o->key = (r->addr >> d->shift[sp]) | (((uint64_t)r->unit << 48) & d->unit_mask[sp]);
	if (LIKELY(d->all)) {
		o->part = 0;
	} else {
		const uint64_t m = part_mix(o->key, sp);

		o->part = ((m >> 32) * d->part.nshards >> 32) == d->part.shard
		              ? (uint8_t)((m & 0xffffffffu) * d->part.nthreads >> 32)
		              : LT_PART_NONE;
	}
}

/* --- applying ------------------------------------------------------------------------------- */

/* A time out of range, or going back (after cur) in subpartition name. */
static int time_error(const char *name, int64_t t, int64_t cur, bool back)
{
	if (!back)
		return sb_error_set(SB_ERR_RANGE,
		                    "subpartition '%s': time %lld is out of range (|time| < 2^62 "
		                    "ticks)",
		                    name, (long long)t);
	return sb_error_set(SB_ERR_PARSE, "subpartition '%s' goes back in time (%lld after %lld)",
	                    name, (long long)t, (long long)cur);
}

static int bad_subpart(unsigned sp, size_t nsp)
{
	return sb_error_set(SB_ERR_PARSE, "record names subpartition %u of %zu", sp, nsp);
}

/* A record at another time stamp than the subpartition's current one. */
static int new_time(struct sp_state *s, int64_t t)
{
	int err;

	/* bounded, so that no lifetime (a difference of times) and no span overflows */
	if (UNLIKELY(!sb_trace_time_ok(t)))
		return time_error(s->st.sp.name, t, 0, false);
	if (!s->started) {
		s->started = true;
		s->st.first_time = t;
		s->cur_time = t;
		return 0;
	}
	if (t < s->cur_time)
		return time_error(s->st.sp.name, t, s->cur_time, true);
	if ((err = end_time(s)) < 0)
		return err;
	s->cur_time = t;
	return 0;
}

/* A store or a fetch: a new value at its address. */
static inline int write_value(struct sp_state *s, const struct lt_op *o, bool windowed)
{
	struct aentry *e = aget(s, o->key, key_hash(o->key));
	const uint32_t fetched = o->act == A_FETCH;
	int err;

	if (UNLIKELY(!e))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if (e->flags & F_LIVE) {
		if ((err = end_value(s, e)) < 0)
			return sb_error_set(err, "out of memory");
	} else if (windowed && (err = window_key(s, o->key)) < 0) {
		return err;
	}
	s->st.fetches += fetched;
	s->st.stores += !fetched;
	s->st.write_bits += o->bits;
	e->flags |= F_LIVE | (fetched * F_FETCHED);
	e->start = o->time;
	e->last_read = o->time;
	e->nreads = 0;
	e->val_bits = o->bits;
	e->wbits += o->bits;
	if (o->bits > e->max_bits)
		e->max_bits = o->bits;
	return 0;
}

/* Flushes, reservation fails, bypassed writes: statistics of the records. */
static int rare_action(struct sp_state *s, uint8_t act)
{
	switch (act) {
	case A_SKIP:
		s->st.skipped++;
		return 0;
	case A_BYPASS:
		s->st.bypassed++;
		return 0;
	default: /* A_FLUSH: applied when its time stamp ends, after its writes and reads */
		s->st.flushes++;
		s->flush = true;
		return 0;
	}
}

/* A read, counted when applied with the other reads of its time stamp (after its writes). */
static inline int queue_read(struct sp_state *s, const struct lt_op *o)
{
	if (UNLIKELY(s->ndr == s->capdr)) {
		size_t nc = s->capdr ? s->capdr * 2 : 256;
		struct dread *nd = realloc(s->dr, nc * sizeof(*nd));

		if (!nd)
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		s->dr = nd;
		s->capdr = nc;
	}
	s->dr[s->ndr].key = o->key;
	s->dr[s->ndr].bits = o->bits;
	s->ndr++;
	return 0;
}

/* Apply one decoded record: own says whether its address is this engine's. */
static inline __attribute__((always_inline)) int apply(struct sb_lifetime *eng,
                                                       const struct lt_op *o, bool own)
{
	struct sp_state *s;
	int err;

	if (UNLIKELY(o->act == A_BADSP))
		return bad_subpart(o->sp, eng->nsp);
	s = &eng->sp[o->sp];
	if (UNLIKELY(o->time != s->cur_time || !s->started) && (err = new_time(s, o->time)) < 0)
		return err;
	/* time stamps with a read, with a write: of every record, whatever its partition */
	if (o->act == A_READ) {
		s->st.read_ticks += !s->any_r | (s->last_r != o->time);
		s->any_r = true;
		s->last_r = o->time;
		return own ? queue_read(s, o) : 0;
	}
	if (o->act <= A_FETCH) {
		s->st.write_ticks += !s->any_w | (s->last_w != o->time);
		s->any_w = true;
		s->last_w = o->time;
		return own ? write_value(s, o, eng->windowed) : 0;
	}
	return rare_action(s, o->act);
}

/* Windowed traces: a record of another sample than its subpartition's cuts the values first. */
static inline int window_check(struct sb_lifetime *eng, const struct lt_op *o)
{
	struct sp_state *s;
	int err;

	if (o->act == A_BADSP)
		return 0; /* reported by apply() */
	s = &eng->sp[o->sp];
	if (LIKELY(o->sample == s->window))
		return 0;
	if (s->started && (err = end_window(s)) < 0)
		return err;
	s->window = o->sample;
	return 0;
}

void lt_set_windowed(struct sb_lifetime *eng, bool windowed)
{
	eng->windowed = windowed;
	eng->decided = true;
}

/* The tables and the windowed decision before records are applied. */
static int feed_start(struct sb_lifetime *eng, const struct sb_trace_info *info, size_t n)
{
	int err;

	if (info->nsubparts > eng->nsp && (err = sync_subparts(eng, info)) < 0)
		return err;
	lt_decoder_sync(&eng->dec, info);
	if (!eng->decided) {
		/* a trace with sample ids is read window by window (a change of id is a gap) */
		eng->windowed = (info->fields & SB_FIELD_SAMPLE) || info->capture.sampled;
		eng->decided = true;
	}
	eng->records += n;
	return 0;
}

/*
 * Always inlined: a function that only reads memory and prefetches is "pure" to GCC, which then
 * deletes the calls whose (void) result is unused — and the prefetches with them (gcc 12 did:
 * no prefetch in any clone of sb_lifetime_feed, and each read missed its table slot).
 */
static inline __attribute__((always_inline)) void prefetch_slot(const struct sb_lifetime *eng,
                                                                const struct lt_op *o)
{
	if (o->act != A_BADSP && o->part == eng->part.thread) {
		const struct atab *t = &eng->sp[o->sp].addrs;

		__builtin_prefetch(&t->e[atab_slot(t, key_hash(o->key))], 1, 3);
	}
}

/* Distance of the decode (and table prefetch) ahead of the record applied; RING > it. */
#define PREFETCH_AHEAD 32
#define RING 64
/* Distance of the histogram prefetch: the table slot prefetched before has arrived by then. */
#define BIN_AHEAD 8

/*
 * A write ends the live value at its address: the bin of that value's lifetime is known once
 * the address's entry is in the cache (prefetch_slot), so it is prefetched BIN_AHEAD records
 * before (the bins of a 1.5 MB histogram miss the cache as often as the table). A hint only: a
 * record in between may change the entry.
 */
static inline __attribute__((always_inline)) void prefetch_bin(const struct sb_lifetime *eng,
                                                               const struct lt_op *o)
{
	if ((o->act == A_STORE || o->act == A_FETCH) && o->part == eng->part.thread) {
		const struct sp_state *s = &eng->sp[o->sp];
		const struct aentry *e = &s->addrs.e[atab_slot(&s->addrs, key_hash(o->key))];
		const uint64_t life = (uint64_t)(e->last_read - e->start);

		if (e->key1 == o->key + 1 && (e->flags & F_LIVE) && life < s->ndense)
			__builtin_prefetch(&s->dense[life], 1, 3);
	}
}

SB_HOT_CLONES
int sb_lifetime_feed(struct sb_lifetime *eng, const struct sb_trace_info *info,
                     const struct sb_trace_record *recs, size_t n)
{
	struct lt_op ring[RING];
	size_t i;
	int err;

	if ((err = feed_start(eng, info, n)) < 0)
		return err;
	for (i = 0; i < n && i < PREFETCH_AHEAD; i++) {
		decode_one(&eng->dec, &recs[i], &ring[i]);
		prefetch_slot(eng, &ring[i]);
	}
	for (i = 0; i < n; i++) {
		const struct lt_op *o = &ring[i % RING];

		if (i + PREFETCH_AHEAD < n) {
			struct lt_op *a = &ring[(i + PREFETCH_AHEAD) % RING];

			decode_one(&eng->dec, &recs[i + PREFETCH_AHEAD], a);
			prefetch_slot(eng, a);
		}
		if (i + BIN_AHEAD < n)
			prefetch_bin(eng, &ring[(i + BIN_AHEAD) % RING]);
		if (UNLIKELY(eng->windowed) && (err = window_check(eng, o)) < 0)
			return err;
		if ((err = apply(eng, o, o->part == eng->part.thread)) < 0)
			return err;
	}
	return 0;
}

SB_HOT_CLONES
int lt_feed_ops(struct sb_lifetime *eng, const struct sb_trace_info *info, const struct lt_op *ops,
                size_t n, size_t records)
{
	const uint8_t me = (uint8_t)eng->part.thread;
	size_t i;
	int err;

	if ((err = feed_start(eng, info, records)) < 0)
		return err;
	for (i = 0; i < n && i < PREFETCH_AHEAD; i++)
		prefetch_slot(eng, &ops[i]);
	for (i = 0; i < n; i++) {
		if (i + PREFETCH_AHEAD < n)
			prefetch_slot(eng, &ops[i + PREFETCH_AHEAD]);
		if (i + BIN_AHEAD < n)
			prefetch_bin(eng, &ops[i + BIN_AHEAD]);
		if (UNLIKELY(eng->windowed) && (err = window_check(eng, &ops[i])) < 0)
			return err;
		if ((err = apply(eng, &ops[i], ops[i].part == me)) < 0)
			return err;
	}
	return 0;
}

/* --- dealing records to the engines of threads ---------------------------------------- */

/*
 * Put a dealt op into an engine's list with non-temporal stores (x86): the list is read by
 * another thread, on another core, and was read there last time the slot was used; a plain
 * store would first fetch each line back from that core (the dealer's loop stalled on these
 * stores: 8-9 % of its samples on the first store of an op). lt_split() ends with a store
 * fence, before the batch is handed over.
 */
static inline void op_put(struct lt_op *dst, const struct lt_op *o)
{
#if defined(__SSE2__)
	__m128i a, b;

	memcpy(&a, o, 16);
	memcpy(&b, (const char *)o + 16, 16);
	_mm_stream_si128((__m128i *)(void *)dst, a);
	_mm_stream_si128((__m128i *)(void *)dst + 1, b);
#else
	*dst = *o;
#endif
}

/*
 * The engine of thread t applies its records (own) and, of the others', only counts (apply,
 * window_check): the time stamps with a read and with a write, each subpartition's first and
 * last time and its windows, errors of times that go back or are out of range. The splitter
 * counts these once for all (exactly as apply() and window_check() do), so that an engine is
 * given only its records, every flush, skip and bypass (which every engine applies or counts)
 * and the records that start a sample (a window's end cuts the values of every engine).
 */
/*
 * What a record changes of its subpartition's counts beyond the read and write ticks: a new
 * sample (window), a new time stamp (checked: in range, not back). *all: every engine gets
 * the record (a window starts). Not inlined: the dealing loop stays short.
 */
static int split_slow(const struct sb_trace_info *info, bool windowed, struct lt_split_sp *v,
                      const struct lt_op *o, bool *all)
{
	if (windowed && o->sample != v->window) {
		v->windows += v->started;
		v->window = o->sample;
		*all = true;
	}
	if (o->time != v->cur || !v->started) {
		if (UNLIKELY(!sb_trace_time_ok(o->time)))
			return time_error(info->subparts[o->sp].name, o->time, 0, false);
		if (v->started && o->time < v->cur)
			return time_error(info->subparts[o->sp].name, o->time, v->cur, true);
		if (!v->started)
			v->first = o->time;
		v->started = true;
		v->cur = o->time;
		v->r_now = v->w_now = false;
	}
	return 0;
}

SB_HOT_CLONES
int lt_split(const struct lt_decoder *d, struct lt_splitter *sp, const struct sb_trace_info *info,
             const struct sb_trace_record *recs, size_t n, unsigned nthreads,
             struct lt_op *const *lists, size_t *counts, size_t *used)
{
	int err = 0;
	size_t i;

	if (!sp->decided) {
		sp->windowed = (info->fields & SB_FIELD_SAMPLE) || info->capture.sampled;
		sp->decided = true;
	}
	for (unsigned t = 0; t <= nthreads; t++)
		counts[t] = 0;
	for (i = 0; i < n; i++) {
		struct lt_split_sp *v;
		struct lt_op o;
		bool all, rd, wr;

		decode_one(d, &recs[i], &o);
		if (UNLIKELY(o.act == A_BADSP)) {
			err = bad_subpart(o.sp, d->nsp);
			break;
		}
		v = &sp->sp[o.sp];
		all = o.act > A_FETCH;
		if (UNLIKELY(o.time != v->cur || !v->started ||
		             (sp->windowed && o.sample != v->window)) &&
		    (err = split_slow(info, sp->windowed, v, &o, &all)) < 0)
			break;
		/* time stamps with a read, with a write (times only go forward) */
		rd = o.act == A_READ;
		wr = o.act == A_STORE || o.act == A_FETCH;
		v->read_ticks += rd & !v->r_now;
		v->write_ticks += wr & !v->w_now;
		v->r_now |= rd;
		v->w_now |= wr;
		if (UNLIKELY(all)) {
			for (unsigned t = 0; t < nthreads; t++)
				op_put(&lists[t][counts[t]++], &o);
		} else {
			const unsigned t = o.part < nthreads ? o.part : nthreads;

			op_put(&lists[t][counts[t]++], &o);
		}
	}
#if defined(__SSE2__)
	_mm_sfence();
#endif
	*used = i;
	return err;
}

void lt_split_result(const struct lt_splitter *sp, struct sb_lifetime_result *res)
{
	bool any = false;

	for (size_t i = 0; i < res->nsubparts && i < SB_TRACE_MAX_SUBPARTS; i++) {
		const struct lt_split_sp *v = &sp->sp[i];
		struct sb_subpart_stats *st = &res->subparts[i];

		st->read_ticks = v->read_ticks;
		st->write_ticks = v->write_ticks;
		st->first_time = v->started ? v->first : 0;
		st->last_time = v->started ? v->cur : 0;
		st->windows = v->windows + (sp->windowed && v->started);
		if (!v->started)
			continue;
		if (!any || v->first < res->first_time)
			res->first_time = v->first;
		if (!any || v->cur > res->last_time)
			res->last_time = v->cur;
		any = true;
	}
	if (!any)
		res->first_time = res->last_time = 0;
}

/* The value at 0-based rank k of the sorted lifetimes (k < st->lifetimes). */
static int64_t ranked(const struct sb_subpart_stats *st, uint64_t k)
{
	uint64_t cum = 0;

	for (size_t i = 0; i < st->nbins; i++) {
		cum += st->bins[i].count;
		if (k < cum)
			return st->bins[i].ticks;
	}
	return st->bins[st->nbins - 1].ticks;
}

double sb_quantile_linear(const struct sb_subpart_stats *st, double q)
{
	/* numpy's 'linear' method (pandas' default), expression for expression, so that the
	   figures agree to the last bit: virtual index n q + (1 + q (1 - 1 - 1)) - 1 = (n - 1) q */
	const uint64_t n = st->lifetimes;
	const double h = (double)n * q + (1.0 + q * (1.0 - 1.0 - 1.0)) - 1.0;
	double lo = floor(h), g = h - lo, a, b, d;
	uint64_t i = lo < 0 ? 0 : (uint64_t)lo;

	if (i > n - 1)
		i = n - 1;
	a = (double)ranked(st, i);
	b = (double)ranked(st, i + 1 < n ? i + 1 : n - 1);
	d = b - a;
	return g >= 0.5 ? b - d * (1.0 - g) : a + d * g;
}

static void summarize(struct sb_subpart_stats *st)
{
	uint64_t n = st->lifetimes;
	long double sum = 0;

	memset(&st->life, 0, sizeof(st->life));
	if (!n)
		return;
	st->life.min = st->bins[0].ticks;
	st->life.max = st->bins[st->nbins - 1].ticks;
	for (size_t i = 0; i < st->nbins; i++)
		sum += (long double)st->bins[i].ticks * (long double)st->bins[i].count;
	st->life.mean = (double)(sum / (long double)n);
	st->life.median = sb_quantile_linear(st, 0.5);
	st->life.p99 = sb_quantile_linear(st, 0.99);
}

/* The lifetime histogram in ascending order: the direct array, then the table above it. */
static int life_bins(const struct sp_state *s, struct sb_subpart_stats *out)
{
	struct hentry *sorted;
	size_t nsorted, k = 0;

	if (!(sorted = htab_sorted(&s->life, &nsorted)))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < s->ndense; i++)
		k += s->dense[i].count != 0;
	out->bins = malloc((k + nsorted ? k + nsorted : 1) * sizeof(*out->bins));
	if (!out->bins) {
		free(sorted);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	k = 0;
	for (size_t i = 0; i < s->ndense; i++) {
		if (!s->dense[i].count)
			continue;
		out->bins[k].ticks = (int64_t)i;
		out->bins[k].count = s->dense[i].count;
		out->bins[k].bits = s->dense[i].bits;
		out->bins[k].accesses = s->dense[i].accesses;
		k++;
	}
	for (size_t i = 0; i < nsorted; i++, k++) {
		out->bins[k].ticks = sorted[i].key;
		out->bins[k].count = sorted[i].v[0];
		out->bins[k].bits = sorted[i].v[1];
		out->bins[k].accesses = sorted[i].v[2];
	}
	out->nbins = k;
	free(sorted);
	return 0;
}

/* Count an address into the statistics and the histogram by longest lifetime. */
static int count_address(struct sp_state *s, struct htab *ah, const struct aentry *e)
{
	s->st.unique_addresses++;
	s->st.capacity_bits += e->max_bits;
	return htab_add(ah, (e->flags & F_HELD) ? e->max_life : -1, 1, e->max_bits, e->rbits,
	                e->wbits);
}

static int finish_sp(struct sp_state *s, struct sb_subpart_stats *out, bool windowed)
{
	struct htab ah;
	struct hentry *sorted;
	size_t nsorted;
	int err;

	if (windowed && s->started) {
		/* the capture ends, not the program: the last window's values are cut */
		s->wscan = true;
		if ((err = end_window(s)) < 0)
			return err;
	}
	if ((err = end_time(s)) < 0)
		return err;
	if ((err = flush_all(s)) < 0) /* program end */
		return sb_error_set(err, "out of memory");
	if ((err = htab_init(&ah, 64)) < 0)
		return err;
	for (size_t i = 0; i <= s->addrs.mask; i++)
		if (s->addrs.e[i].key1 && (err = count_address(s, &ah, &s->addrs.e[i])) < 0)
			goto fail;
	if (s->spare_used && (err = count_address(s, &ah, &s->spare)) < 0)
		goto fail;
	*out = s->st;
	out->bins = NULL;
	out->abins = NULL;
	if ((err = life_bins(s, out)) < 0)
		goto fail;
	if (!(sorted = htab_sorted(&ah, &nsorted))) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	out->abins = malloc((nsorted ? nsorted : 1) * sizeof(*out->abins));
	if (!out->abins) {
		free(sorted);
		err = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < nsorted; i++) {
		out->abins[i].max_ticks = sorted[i].key;
		out->abins[i].addresses = sorted[i].v[0];
		out->abins[i].bits = sorted[i].v[1];
		out->abins[i].read_bits = sorted[i].v[2];
		out->abins[i].write_bits = sorted[i].v[3];
	}
	out->nabins = nsorted;
	free(sorted);
	free(ah.e);
	return 0;
fail:
	free(out->bins);
	out->bins = NULL;
	free(ah.e);
	return err;
}

/* Sampling, densities, order statistics and confidence of a result whose counts and
 * histograms are complete (one engine's, or merged). */
static void finalize(struct sb_lifetime_result *res)
{
	uint64_t windows = 0;

	for (size_t i = 0; i < res->nsubparts; i++)
		windows = res->subparts[i].windows > windows ? res->subparts[i].windows : windows;
	sb_sampling_init(&res->sampling, &res->info, res->records, res->windowed ? windows : 1);
	for (size_t i = 0; i < res->nsubparts; i++) {
		struct sb_subpart_stats *st = &res->subparts[i];

		st->density = sb_sampling_subpart_density(&res->sampling, &res->info, (uint32_t)i,
		                                          st->reads + st->stores + st->fetches +
		                                              st->skipped + st->bypassed);
		summarize(st);
	}
	sb_confidence_rules_default(&res->rules);
	sb_lifetime_judge(res, &res->rules);
}

int sb_lifetime_finish(struct sb_lifetime *eng, const struct sb_trace_info *info,
                       struct sb_lifetime_result *res)
{
	int err;

	memset(res, 0, sizeof(*res));
	if ((err = sync_subparts(eng, info)) < 0)
		return err;
	res->info = *info;
	res->policy = eng->policy;
	res->records = eng->records;
	for (size_t i = 0; i < eng->nsp; i++) {
		struct sp_state *s = &eng->sp[i];

		if (!s->started)
			continue;
		s->st.last_time = s->cur_time; /* the time of its last record */
		if (!eng->any || s->st.first_time < eng->first)
			eng->first = s->st.first_time;
		if (!eng->any || s->st.last_time > eng->last)
			eng->last = s->st.last_time;
		eng->any = true;
	}
	res->first_time = eng->first;
	res->last_time = eng->last;
	res->subparts = calloc(eng->nsp ? eng->nsp : 1, sizeof(*res->subparts));
	if (!res->subparts)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	res->nsubparts = eng->nsp;
	for (size_t i = 0; i < eng->nsp; i++) {
		if ((err = finish_sp(&eng->sp[i], &res->subparts[i], eng->windowed)) < 0) {
			sb_lifetime_result_release(res);
			return err;
		}
	}
	res->windowed = eng->windowed;
	finalize(res);
	return 0;
}

static int cmp_bin(const void *a, const void *b)
{
	int64_t x = ((const struct sb_lifetime_bin *)a)->ticks;
	int64_t y = ((const struct sb_lifetime_bin *)b)->ticks;

	return (x > y) - (x < y);
}

static int cmp_abin(const void *a, const void *b)
{
	int64_t x = ((const struct sb_address_bin *)a)->max_ticks;
	int64_t y = ((const struct sb_address_bin *)b)->max_ticks;

	return (x > y) - (x < y);
}

/* The bins of every part's subpartition i, one per length (sorted, counts summed). */
static int merge_bins(struct sb_subpart_stats *out, const struct sb_lifetime_result *parts,
                      size_t n, size_t i)
{
	size_t nb = 0, na = 0, k;

	for (size_t p = 0; p < n; p++) {
		nb += parts[p].subparts[i].nbins;
		na += parts[p].subparts[i].nabins;
	}
	out->bins = malloc((nb ? nb : 1) * sizeof(*out->bins));
	out->abins = malloc((na ? na : 1) * sizeof(*out->abins));
	if (!out->bins || !out->abins)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	nb = na = 0;
	for (size_t p = 0; p < n; p++) {
		const struct sb_subpart_stats *st = &parts[p].subparts[i];

		memcpy(out->bins + nb, st->bins, st->nbins * sizeof(*st->bins));
		memcpy(out->abins + na, st->abins, st->nabins * sizeof(*st->abins));
		nb += st->nbins;
		na += st->nabins;
	}
	qsort(out->bins, nb, sizeof(*out->bins), cmp_bin);
	qsort(out->abins, na, sizeof(*out->abins), cmp_abin);
	for (k = 0, out->nbins = 0; k < nb; k++) {
		struct sb_lifetime_bin *b = &out->bins[out->nbins];

		if (out->nbins && b[-1].ticks == out->bins[k].ticks) {
			b[-1].count += out->bins[k].count;
			b[-1].bits += out->bins[k].bits;
			b[-1].accesses += out->bins[k].accesses;
		} else {
			*b = out->bins[k];
			out->nbins++;
		}
	}
	for (k = 0, out->nabins = 0; k < na; k++) {
		struct sb_address_bin *b = &out->abins[out->nabins];

		if (out->nabins && b[-1].max_ticks == out->abins[k].max_ticks) {
			b[-1].addresses += out->abins[k].addresses;
			b[-1].bits += out->abins[k].bits;
			b[-1].read_bits += out->abins[k].read_bits;
			b[-1].write_bits += out->abins[k].write_bits;
		} else {
			*b = out->abins[k];
			out->nabins++;
		}
	}
	return 0;
}

/* Whether two parts agree on what every partition counts alike (the records' statistics). */
static bool same_records(const struct sb_subpart_stats *a, const struct sb_subpart_stats *b)
{
	return !memcmp(&a->sp, &b->sp, sizeof(a->sp)) && a->flushes == b->flushes &&
	       a->skipped == b->skipped && a->bypassed == b->bypassed &&
	       a->read_ticks == b->read_ticks && a->write_ticks == b->write_ticks &&
	       a->first_time == b->first_time && a->last_time == b->last_time &&
	       a->windows == b->windows;
}

int sb_lifetime_result_merge(struct sb_lifetime_result *out, const struct sb_lifetime_result *parts,
                             size_t n)
{
	int err;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return sb_error_set(SB_ERR_INVAL, "no results to merge");
	for (size_t p = 1; p < n; p++) {
		const struct sb_lifetime_result *a = &parts[0], *b = &parts[p];
		bool same = a->nsubparts == b->nsubparts && a->policy == b->policy &&
		            a->windowed == b->windowed && a->records == b->records &&
		            a->first_time == b->first_time && a->last_time == b->last_time;

		for (size_t i = 0; same && i < a->nsubparts; i++)
			same = same_records(&a->subparts[i], &b->subparts[i]);
		if (!same)
			return sb_error_set(
			    SB_ERR_MISMATCH,
			    "the parts to merge do not come from one trace read "
			    "with the same options (part %zu differs from part 0 in "
			    "what every part counts alike)",
			    p);
	}
	out->info = parts[0].info;
	out->policy = parts[0].policy;
	out->windowed = parts[0].windowed;
	out->records = parts[0].records;
	out->first_time = parts[0].first_time;
	out->last_time = parts[0].last_time;
	out->nsubparts = parts[0].nsubparts;
	out->subparts = calloc(out->nsubparts ? out->nsubparts : 1, sizeof(*out->subparts));
	if (!out->subparts)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < out->nsubparts; i++) {
		struct sb_subpart_stats *o = &out->subparts[i];

		*o = parts[0].subparts[i]; /* the records' statistics */
		o->bins = NULL;
		o->abins = NULL;
#define SUM(f)                                                                                     \
	o->f = 0;                                                                                  \
	for (size_t p = 0; p < n; p++)                                                             \
		o->f += parts[p].subparts[i].f;
		SUM(reads)
		SUM(stores)
		SUM(fetches)
		SUM(read_bits)
		SUM(write_bits)
		SUM(unique_addresses)
		SUM(capacity_bits)
		SUM(lifetimes)
		SUM(lifetime_accesses)
		SUM(zero_read_values)
		SUM(orphans)
		SUM(unbacked_reads)
		SUM(censored_values)
		SUM(censored_read_values)
#undef SUM
		for (size_t p = 1; p < n; p++)
			if (parts[p].subparts[i].censored_max > o->censored_max)
				o->censored_max = parts[p].subparts[i].censored_max;
		if ((err = merge_bins(o, parts, n, i)) < 0) {
			sb_lifetime_result_release(out);
			return err;
		}
	}
	finalize(out);
	return 0;
}

void sb_lifetime_judge(struct sb_lifetime_result *res, const struct sb_confidence_rules *rules)
{
	res->rules = *rules;
	for (size_t i = 0; i < res->nsubparts; i++) {
		struct sb_subpart_stats *st = &res->subparts[i];
		const uint64_t values = st->lifetimes + st->zero_read_values + st->censored_values;

		st->confident =
		    sb_confident(rules, &res->sampling, st->density,
		                 st->sp.type == SB_SUBPART_CACHE, st->lifetimes) &&
		    (double)st->censored_values <= rules->max_censored_share * (double)values;
	}
}

void sb_lifetime_result_release(struct sb_lifetime_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->nsubparts; i++) {
		free(res->subparts[i].bins);
		free(res->subparts[i].abins);
	}
	free(res->subparts);
	res->subparts = NULL;
	res->nsubparts = 0;
}

int sb_lifetime_result_find(const struct sb_lifetime_result *res, const char *name)
{
	for (size_t i = 0; i < res->nsubparts; i++)
		if (!strcmp(res->subparts[i].sp.name, name))
			return (int)i;
	return -1;
}

int64_t sb_lifetime_result_ticks(const struct sb_lifetime_result *res)
{
	return res->records ? res->last_time - res->first_time + 1 : 0;
}
