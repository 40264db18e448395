/* SPDX-License-Identifier: MIT */
/*
 * The lifetime engine (rules pinned in docs/lifetimes.md). One state per subpartition: an
 * open-addressing table with one 64-byte entry per distinct address, an exact histogram of
 * lifetime lengths, and the reads of the current time stamp (applied once the time stamp is
 * over, so that writes of a time stamp come before its reads). No allocation per access.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "stackbench/error.h"
#include "stackbench/lifetime.h"
#include "stackbench/util.h"

#define F_USED 1u
#define F_LIVE 2u
#define F_FETCHED 4u

struct aentry {
	uint64_t key;
	int64_t start;     /* write that started the live value */
	int64_t last_read; /* its last read */
	int64_t max_life;  /* longest lifetime held at this address, -1: none */
	uint64_t rbits, wbits;
	uint32_t nreads;   /* reads of the live value (saturating) */
	uint32_t val_bits; /* bits of the live value */
	uint32_t max_bits; /* widest access at this address */
	uint32_t flags;
};

struct atab {
	struct aentry *e;
	size_t mask, used;
};

/* Exact histogram: key -> four counters; an entry is used when v[0] != 0. */
struct hentry {
	int64_t key;
	uint64_t v[4];
};

struct htab {
	struct hentry *e;
	size_t mask, used;
	struct hentry *last; /* the entry used last: lifetimes repeat */
};

struct dread {
	uint64_t key;
	uint32_t bits;
};

struct sp_state {
	bool init;
	bool per_unit;
	bool started;
	bool any_w, any_r;
	uint32_t shift;
	int64_t cur_time;
	int64_t last_w, last_r;
	struct atab addrs;
	struct htab life;
	struct dread *dr;
	size_t ndr, capdr;
	struct sb_subpart_stats st;
};

struct sb_lifetime {
	enum sb_cache_policy policy;
	struct sp_state *sp;
	size_t nsp;
	uint64_t records;
	bool any;
	int64_t first, last;
};

static inline size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

/* --- tables ------------------------------------------------------------------------------- */

/*
 * Zeroed table memory. Large tables are mapped on their own and asked for transparent huge
 * pages: random probes over tens of MB otherwise miss the TLB on nearly every access.
 */
#define HUGE_TABLE_BYTES (2u << 20)

static void *table_alloc(size_t bytes)
{
	void *p;

	if (bytes < HUGE_TABLE_BYTES)
		return calloc(1, bytes);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

static void table_free(void *p, size_t bytes)
{
	if (!p)
		return;
	if (bytes < HUGE_TABLE_BYTES)
		free(p);
	else
		munmap(p, bytes);
}

static void atab_free(struct atab *t)
{
	table_free(t->e, t->e ? (t->mask + 1) * sizeof(*t->e) : 0);
	t->e = NULL;
}

static int atab_init(struct atab *t, size_t cap)
{
	t->e = table_alloc(cap * sizeof(*t->e));
	if (!t->e)
		return sb_error_set(SB_ERR_NOMEM, "out of memory (address table of %zu entries)",
		                    cap);
	t->mask = cap - 1;
	t->used = 0;
	return 0;
}

static int atab_grow(struct atab *t)
{
	struct atab n;
	int err;

	if ((err = atab_init(&n, (t->mask + 1) * 2)) < 0)
		return err;
	for (size_t i = 0; i <= t->mask; i++) {
		struct aentry *e = &t->e[i];
		size_t j;

		if (!(e->flags & F_USED))
			continue;
		for (j = hash64(e->key) & n.mask; n.e[j].flags & F_USED; j = (j + 1) & n.mask)
			;
		n.e[j] = *e;
	}
	n.used = t->used;
	atab_free(t);
	*t = n;
	return 0;
}

/* The entry of key, inserted if absent; NULL when out of memory. */
static inline struct aentry *atab_get(struct atab *t, uint64_t key)
{
	size_t i = hash64(key) & t->mask;

	for (;;) {
		struct aentry *e = &t->e[i];

		if (e->key == key && (e->flags & F_USED))
			return e;
		if (!(e->flags & F_USED))
			break;
		i = (i + 1) & t->mask;
	}
	if ((t->used + 1) * 10 > (t->mask + 1) * 7) {
		if (atab_grow(t) < 0)
			return NULL;
		return atab_get(t, key);
	}
	struct aentry *e = &t->e[i];

	e->key = key;
	e->flags = F_USED;
	e->max_life = -1;
	t->used++;
	return e;
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
	return 0;
}

static void sp_release(struct sp_state *s)
{
	atab_free(&s->addrs);
	free(s->life.e);
	free(s->dr);
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
	s->per_unit = sp->per_unit;
	if ((err = atab_init(&s->addrs, 1024)) < 0 || (err = htab_init(&s->life, 256)) < 0)
		return err;
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

/* The live value at e ends (overwrite, flush, program end). */
static inline int end_value(struct sp_state *s, struct aentry *e)
{
	e->flags &= ~F_LIVE;
	if (e->nreads == 0) {
		s->st.zero_read_values++;
		if (e->flags & F_FETCHED)
			s->st.orphans++;
		return 0;
	}
	int64_t life = e->last_read - e->start;

	s->st.lifetimes++;
	s->st.lifetime_accesses += 1 + (uint64_t)e->nreads;
	if (life > e->max_life)
		e->max_life = life;
	return htab_add(&s->life, life, 1, e->val_bits, 1 + (uint64_t)e->nreads, 0);
}

/* Distance of the software prefetch: tables larger than the caches are latency bound. */
#define PREFETCH_AHEAD 16

static inline void atab_prefetch(const struct atab *t, uint64_t key)
{
	__builtin_prefetch(&t->e[hash64(key) & t->mask], 1, 1);
}

static int apply_reads(struct sp_state *s)
{
	for (size_t i = 0; i < s->ndr; i++) {
		if (i + PREFETCH_AHEAD < s->ndr)
			atab_prefetch(&s->addrs, s->dr[i + PREFETCH_AHEAD].key);
		struct aentry *e = atab_get(&s->addrs, s->dr[i].key);

		if (!e)
			return SB_ERR_NOMEM;
		e->rbits += s->dr[i].bits;
		if (s->dr[i].bits > e->max_bits)
			e->max_bits = s->dr[i].bits;
		if (!(e->flags & F_LIVE)) {
			s->st.unbacked_reads++;
			continue;
		}
		if (e->nreads != UINT32_MAX)
			e->nreads++;
		e->last_read = s->cur_time;
	}
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
	return 0;
}

int sb_lifetime_feed(struct sb_lifetime *eng, const struct sb_trace_info *info,
                     const struct sb_trace_record *recs, size_t n)
{
	const bool nwa = eng->policy == SB_POLICY_NO_WRITE_ALLOCATE;
	int err;

	if (info->nsubparts > eng->nsp && (err = sync_subparts(eng, info)) < 0)
		return err;
	eng->records += n;
	for (size_t i = 0; i < n; i++) {
		const struct sb_trace_record *r = &recs[i];
		struct sp_state *s;
		uint8_t kind = r->kind;
		uint32_t bits;
		uint64_t key;

		if (r->subpart >= eng->nsp)
			return sb_error_set(SB_ERR_PARSE, "record names subpartition %u of %zu",
			                    r->subpart, eng->nsp);
		if (i + PREFETCH_AHEAD < n) {
			const struct sb_trace_record *a = &recs[i + PREFETCH_AHEAD];

			if (a->kind != SB_ACC_FLUSH && a->subpart < eng->nsp) {
				const struct sp_state *ps = &eng->sp[a->subpart];
				uint64_t k = a->addr >> ps->shift;

				if (ps->per_unit)
					k |= (uint64_t)a->unit << 48;
				atab_prefetch(&ps->addrs, k);
			}
		}
		s = &eng->sp[r->subpart];
		if (s->started && r->time < s->cur_time)
			return sb_error_set(
			    SB_ERR_PARSE, "subpartition '%s' goes back in time (%lld after %lld)",
			    s->st.sp.name, (long long)r->time, (long long)s->cur_time);
		if (!s->started) {
			s->started = true;
			s->st.first_time = r->time;
			s->cur_time = r->time;
		} else if (r->time != s->cur_time) {
			if (s->ndr && (err = apply_reads(s)) < 0)
				return sb_error_set(err, "out of memory");
			s->cur_time = r->time;
		}
		s->st.last_time = r->time;
		if (r->cache) {
			switch (r->cache) {
			case SB_CACHE_RESERVATION_FAIL:
				s->st.skipped++; /* retried later: not an access */
				continue;
			case SB_CACHE_MISS:
			case SB_CACHE_SECTOR_MISS:
				if (kind == SB_ACC_READ) {
					kind = SB_ACC_FETCH; /* a read miss fills the line */
				} else if (kind == SB_ACC_WRITE && nwa) {
					s->st.bypassed++; /* allocates nothing */
					continue;
				}
				break;
			default:
				break;
			}
		}
		if (kind == SB_ACC_FLUSH) {
			s->st.flushes++;
			if ((s->ndr && (err = apply_reads(s)) < 0) || (err = flush_all(s)) < 0)
				return sb_error_set(err, "out of memory");
			continue;
		}
		key = r->addr >> s->shift;
		if (s->per_unit)
			key |= (uint64_t)r->unit << 48;
		bits = r->size * 8u;
		if (kind == SB_ACC_READ) {
			s->st.reads++;
			s->st.read_bits += bits;
			if (!s->any_r || s->last_r != r->time) {
				s->st.read_ticks++;
				s->last_r = r->time;
				s->any_r = true;
			}
			if (s->ndr == s->capdr) {
				size_t nc = s->capdr ? s->capdr * 2 : 256;
				struct dread *nd = realloc(s->dr, nc * sizeof(*nd));

				if (!nd)
					return sb_error_set(SB_ERR_NOMEM, "out of memory");
				s->dr = nd;
				s->capdr = nc;
			}
			s->dr[s->ndr].key = key;
			s->dr[s->ndr].bits = bits;
			s->ndr++;
			continue;
		}
		/* a write: store or fetch */
		struct aentry *e = atab_get(&s->addrs, key);

		if (!e)
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		if ((e->flags & F_LIVE) && (err = end_value(s, e)) < 0)
			return sb_error_set(err, "out of memory");
		if (kind == SB_ACC_FETCH) {
			s->st.fetches++;
			e->flags |= F_FETCHED;
		} else {
			s->st.stores++;
			e->flags &= ~F_FETCHED;
		}
		s->st.write_bits += bits;
		if (!s->any_w || s->last_w != r->time) {
			s->st.write_ticks++;
			s->last_w = r->time;
			s->any_w = true;
		}
		e->flags |= F_LIVE;
		e->start = r->time;
		e->last_read = r->time;
		e->nreads = 0;
		e->val_bits = bits;
		e->wbits += bits;
		if (bits > e->max_bits)
			e->max_bits = bits;
	}
	return 0;
}

static void summarize(struct sb_subpart_stats *st)
{
	uint64_t n = st->lifetimes, cum = 0;
	/* nearest rank: the smallest value with at least ceil(q n) values at or below it */
	uint64_t r50 = n / 2 + n % 2, r99 = n / 100 * 99 + ((n % 100) * 99 + 99) / 100;
	long double sum = 0;

	memset(&st->life, 0, sizeof(st->life));
	if (!n)
		return;
	st->life.min = st->bins[0].ticks;
	st->life.max = st->bins[st->nbins - 1].ticks;
	for (size_t i = 0; i < st->nbins; i++) {
		uint64_t before = cum;

		sum += (long double)st->bins[i].ticks * (long double)st->bins[i].count;
		cum += st->bins[i].count;
		if (before < r50 && cum >= r50)
			st->life.median = st->bins[i].ticks;
		if (before < r99 && cum >= r99)
			st->life.p99 = st->bins[i].ticks;
	}
	st->life.mean = (double)(sum / (long double)n);
}

static int finish_sp(struct sp_state *s, struct sb_subpart_stats *out)
{
	struct htab ah;
	struct hentry *sorted;
	size_t nsorted;
	int err;

	if (s->ndr && (err = apply_reads(s)) < 0)
		return sb_error_set(err, "out of memory");
	if ((err = flush_all(s)) < 0) /* program end */
		return sb_error_set(err, "out of memory");
	if ((err = htab_init(&ah, 64)) < 0)
		return err;
	for (size_t i = 0; i <= s->addrs.mask; i++) {
		const struct aentry *e = &s->addrs.e[i];

		if (!(e->flags & F_USED))
			continue;
		s->st.unique_addresses++;
		s->st.capacity_bits += e->max_bits;
		if ((err = htab_add(&ah, e->max_life, 1, e->max_bits, e->rbits, e->wbits)) < 0)
			goto fail;
	}
	*out = s->st;
	out->bins = NULL;
	out->abins = NULL;
	if (!(sorted = htab_sorted(&s->life, &nsorted))) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	out->bins = malloc((nsorted ? nsorted : 1) * sizeof(*out->bins));
	if (!out->bins) {
		free(sorted);
		err = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < nsorted; i++) {
		out->bins[i].ticks = sorted[i].key;
		out->bins[i].count = sorted[i].v[0];
		out->bins[i].bits = sorted[i].v[1];
		out->bins[i].accesses = sorted[i].v[2];
	}
	out->nbins = nsorted;
	free(sorted);
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
	summarize(out);
	return 0;
fail:
	free(out->bins);
	out->bins = NULL;
	free(ah.e);
	return err;
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
		const struct sp_state *s = &eng->sp[i];

		if (!s->started)
			continue;
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
		if ((err = finish_sp(&eng->sp[i], &res->subparts[i])) < 0) {
			sb_lifetime_result_release(res);
			return err;
		}
	}
	return 0;
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

int sb_lifetime_run_progress(struct sb_trace_reader *r, enum sb_cache_policy policy,
                             struct sb_lifetime_result *res,
                             void (*progress)(void *ctx, uint64_t records), void *ctx)
{
	enum { BATCH = 4096 };
	struct sb_trace_record *buf = malloc(BATCH * sizeof(*buf));
	struct sb_lifetime *eng = NULL;
	uint64_t total = 0;
	int n, err;

	memset(res, 0, sizeof(*res));
	if (!buf)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((err = sb_lifetime_new(&eng, policy)) < 0)
		goto out;
	while ((n = sb_trace_read(r, buf, BATCH)) > 0) {
		if ((err = sb_lifetime_feed(eng, sb_trace_reader_info(r), buf, (size_t)n)) < 0)
			goto out;
		total += (uint64_t)n;
		if (progress)
			progress(ctx, total);
	}
	if (n < 0) {
		err = n;
		goto out;
	}
	err = sb_lifetime_finish(eng, sb_trace_reader_info(r), res);
out:
	sb_lifetime_free(eng);
	free(buf);
	return err;
}

int sb_lifetime_run(struct sb_trace_reader *r, enum sb_cache_policy policy,
                    struct sb_lifetime_result *res)
{
	return sb_lifetime_run_progress(r, policy, res, NULL, NULL);
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
