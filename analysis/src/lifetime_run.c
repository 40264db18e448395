/* SPDX-License-Identifier: MIT */
/*
 * Running the lifetime engine over a trace: in one thread, or in several that share the reading
 * (docs/lifetimes.md, "Threads and shards").
 *
 * With T threads the calling thread reads batches of records into a ring of slots; a batch read
 * is dealt (lt_split: each record decoded once, its action, key and the engine its address
 * belongs to, and put into that engine's list), batches in order, by whichever thread is free;
 * T engines, each owning one partition of the addresses (sb_lifetime_set_partition), apply
 * their list of every batch in order, each in whichever thread is free (the reader's too, when
 * the ring is full): its own records, and the flushes and window ends of all. What every
 * engine counts alike of all records (time stamps with reads and writes, first and last times,
 * windows) the splitter counts once. A slot is refilled once every engine is done with it. At
 * the end the threads finish the engines, the splitter's counts go into each result, and the
 * T results are merged (sb_lifetime_result_merge): the same result, exactly, as one engine's.
 * Errors are reported as one engine would: the first in the order of the records (an engine's
 * error in an earlier batch before the reader's or the dealer's in a later one).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lifetime_internal.h"
#include "stackbench/error.h"
#include "stackbench/lifetime.h"
#include "stackbench/log.h"
#include "stackbench/util.h"

enum { RUN_BATCH = 4096, PAR_BATCH = 2 * RUN_BATCH, PAR_SLOTS = 8 };

int sb_lifetime_run_progress(struct sb_trace_reader *r, enum sb_cache_policy policy,
                             struct sb_lifetime_result *res,
                             void (*progress)(void *ctx, uint64_t records), void *ctx)
{
	struct sb_lifetime_run_opts o = {.policy = policy, .progress = progress, .ctx = ctx};

	return sb_lifetime_run_opts(r, &o, res);
}

int sb_lifetime_run(struct sb_trace_reader *r, enum sb_cache_policy policy,
                    struct sb_lifetime_result *res)
{
	return sb_lifetime_run_progress(r, policy, res, NULL, NULL);
}

static int new_engine(struct sb_lifetime **eng, const struct sb_lifetime_run_opts *o,
                      uint32_t thread, uint32_t nthreads)
{
	struct sb_lifetime_partition p = {o->shard, o->nshards ? o->nshards : 1, thread, nthreads};
	int err;

	if ((err = sb_lifetime_new(eng, o->policy)) < 0)
		return err;
	return sb_lifetime_set_partition(*eng, &p);
}

/* One engine in the calling thread. */
static int run_one(struct sb_trace_reader *r, const struct sb_lifetime_run_opts *o,
                   struct sb_lifetime_result *res)
{
	struct sb_trace_record *buf = malloc(RUN_BATCH * sizeof(*buf));
	struct sb_lifetime *eng = NULL;
	uint64_t total = 0;
	int n, err;

	if (!buf)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((err = new_engine(&eng, o, 0, 1)) < 0)
		goto out;
	while ((n = sb_trace_read(r, buf, RUN_BATCH)) > 0) {
		if ((err = sb_lifetime_feed(eng, sb_trace_reader_info(r), buf, (size_t)n)) < 0)
			goto out;
		total += (uint64_t)n;
		if (o->progress)
			o->progress(o->ctx, total);
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

/* --- several threads ---------------------------------------------------------------------- */

/* A slot of the ring: free, read (its records wait to be dealt), dealt (engines apply it). */
enum slot_state { SLOT_FREE, SLOT_READ, SLOT_DEALT };

struct slot {
	struct sb_trace_record *recs;                     /* the batch as read */
	struct lt_op *lists[SB_ANALYSIS_MAX_THREADS + 1]; /* each engine's ops (lt_split) */
	size_t counts[SB_ANALYSIS_MAX_THREADS + 1];
	size_t n;                  /* records of the batch */
	struct sb_trace_info info; /* the reader's description after this batch */
	enum slot_state state;
	unsigned left; /* engines still to apply it (SLOT_DEALT) */
};

/* An engine: its partition's results, applied batch after batch by whichever thread is free. */
struct engine {
	struct sb_lifetime *eng;
	uint64_t next; /* the batch it applies next */
	bool busy;     /* a thread is applying it */
	bool finished; /* parts[i] holds its result */
	bool taken;    /* a thread finishes it */
};

struct par {
	pthread_mutex_t mu;
	pthread_cond_t changed; /* a batch read, dealt or applied, the end, an error */
	struct slot slots[PAR_SLOTS];
	struct engine *engines;
	unsigned nengines;
	struct sb_lifetime_result *parts;
	struct lt_decoder *dec; /* the dealer's (one thread at a time, batches in order) */
	struct lt_splitter *split;
	uint64_t nread;     /* batches read */
	uint64_t published; /* batches dealt to the engines */
	bool dealing;       /* a thread deals batch `published` */
	bool read_end;      /* the reader is done (end of the trace, an error) */
	bool deal_end;      /* no more batches will be dealt (a record's error) */
	bool stop;          /* an engine's error: everybody stops */
	int err;            /* the first error in the order of the records, */
	uint64_t err_batch; /* in this batch */
	unsigned err_engine;
	char detail[1024];
	const struct sb_trace_info *final; /* the reader's description at the end */
};

/*
 * Keep err (of engine e, in batch b) if it comes first. An engine's error stops everybody; the
 * reader's or the dealer's ends the batches, and the engines go on with those before it (one
 * of them may hold an earlier error). Called with the lock held.
 */
static void par_error(struct par *p, int err, uint64_t b, unsigned e, bool stop)
{
	if (!p->err || b < p->err_batch || (b == p->err_batch && e < p->err_engine)) {
		p->err = err;
		p->err_batch = b;
		p->err_engine = e;
		sb_strlcpy(p->detail, sb_error_detail(), sizeof(p->detail));
	}
	p->stop |= stop;
	pthread_cond_broadcast(&p->changed);
}

/* Whether a batch is read and waits to be dealt, and no thread deals. Lock held. */
static bool dealable(const struct par *p)
{
	return !p->dealing && !p->deal_end && p->published < p->nread;
}

/* An engine with a batch to apply that no thread applies; -1 if none. Lock held. */
static int runnable(const struct par *p)
{
	for (unsigned i = 0; i < p->nengines; i++)
		if (!p->engines[i].busy && p->engines[i].next < p->published)
			return (int)i;
	return -1;
}

/*
 * Deal the next batch read (lock held on entry and return, released while it runs): decode
 * its records once and put each engine's into its list (lt_split), in the order of the
 * batches, one thread at a time (the splitter counts in the order of the records).
 */
static void deal_batch(struct par *p)
{
	const uint64_t b = p->published;
	struct slot *s = &p->slots[b % PAR_SLOTS];
	size_t used;
	int err;

	p->dealing = true;
	pthread_mutex_unlock(&p->mu);
	lt_decoder_sync(p->dec, &s->info);
	err = lt_split(p->dec, p->split, &s->info, s->recs, s->n, p->nengines, s->lists, s->counts,
	               &used);
	if (b == 0 && !err)
		for (unsigned t = 0; t < p->nengines; t++)
			lt_set_windowed(p->engines[t].eng, p->split->windowed);
	pthread_mutex_lock(&p->mu);
	p->dealing = false;
	if (err < 0) {
		/* an error of the records, as the reader's: the batches before it are applied */
		p->deal_end = true;
		par_error(p, err, b, 0, false);
		return;
	}
	s->state = SLOT_DEALT;
	s->left = p->nengines;
	p->published = b + 1;
	pthread_cond_broadcast(&p->changed);
}

/* Apply engine i's next batch (lock held on entry and return, released while it runs). */
static void apply_batch(struct par *p, unsigned i)
{
	struct engine *e = &p->engines[i];
	const uint64_t b = e->next;
	struct slot *s = &p->slots[b % PAR_SLOTS];
	int err;

	e->busy = true;
	pthread_mutex_unlock(&p->mu);
	if (p->nengines == 1)
		err = sb_lifetime_feed(e->eng, &s->info, s->recs, s->n);
	else
		err = lt_feed_ops(e->eng, &s->info, s->lists[i], s->counts[i], s->n);
	pthread_mutex_lock(&p->mu);
	e->busy = false;
	if (err < 0) {
		par_error(p, err, b, i, true);
		return;
	}
	e->next++;
	if (!--s->left)
		s->state = SLOT_FREE;
	pthread_cond_broadcast(&p->changed);
}

/* Deal or apply a batch if there is one (dealing first: it feeds the engines). Lock held. */
static bool help(struct par *p)
{
	int i;

	if (dealable(p)) {
		deal_batch(p);
		return true;
	}
	if ((i = runnable(p)) >= 0) {
		apply_batch(p, (unsigned)i);
		return true;
	}
	return false;
}

/* Once every batch is applied: finish engines no thread has taken (in parallel, each its own). */
static void finish_engines(struct par *p)
{
	for (unsigned i = 0; i < p->nengines && !p->stop && !p->err; i++) {
		struct engine *e = &p->engines[i];
		int err;

		if (e->taken)
			continue;
		e->taken = true;
		pthread_mutex_unlock(&p->mu);
		err = sb_lifetime_finish(e->eng, p->final, &p->parts[i]);
		sb_lifetime_free(e->eng);
		e->eng = NULL;
		pthread_mutex_lock(&p->mu);
		if (err < 0)
			par_error(p, err, UINT64_MAX, i, true);
		else
			e->finished = true;
	}
}

/* Whether every engine has applied every batch of a trace read to its end. Lock held. */
static bool all_applied(const struct par *p)
{
	if (!p->read_end || (!p->deal_end && p->published < p->nread) || p->dealing)
		return false;
	for (unsigned i = 0; i < p->nengines; i++)
		if (p->engines[i].next < p->published || p->engines[i].busy)
			return false;
	return true;
}

/* Threads 1 .. T-1: deal batches and apply any engine's next batch, then finish engines. */
static void *worker_main(void *arg)
{
	struct par *p = arg;

	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		if (help(p))
			continue;
		if (all_applied(p))
			break;
		pthread_cond_wait(&p->changed, &p->mu);
	}
	if (!p->stop && !p->err)
		finish_engines(p);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Read the next batch into slot s: its records, 0 at the end, or the reader's error. */
static int read_slot(struct sb_trace_reader *r, struct slot *s)
{
	int n = 0;

	s->n = 0;
	while (s->n < PAR_BATCH && (n = sb_trace_read(r, s->recs + s->n, PAR_BATCH - s->n)) > 0)
		s->n += (size_t)n;
	if (n < 0)
		return n;
	s->info = *sb_trace_reader_info(r);
	return (int)s->n;
}

/*
 * T engines, each a partition of the addresses, in T threads. A batch goes through three
 * stages: the calling thread reads it into a free slot of the ring; a thread deals it (decodes
 * each record once and gives each engine its list, lt_split: its own records, the flushes and
 * window ends of all), batches in order; the engines apply it (one thread at a time per engine,
 * batches in order). Any thread deals or applies what is ready, the calling thread too when the
 * ring is full: so the threads share the work whatever its parts cost (reading CSV costs more
 * than sbt; dealing as much as reading sbt), and only the reader and the dealer touch every
 * record.
 */
static int run_threads(struct sb_trace_reader *r, const struct sb_lifetime_run_opts *o,
                       unsigned nthreads, struct sb_lifetime_result *res)
{
	struct par *p = calloc(1, sizeof(*p));
	pthread_t *tid = calloc(nthreads, sizeof(*tid));
	/* the reading (and dealing) takes about a thread's share: one engine fewer than threads */
	const unsigned nengines = nthreads - 1;
	struct sb_lifetime_result *parts = calloc(nengines, sizeof(*parts));
	struct engine *engines = calloc(nengines, sizeof(*engines));
	struct sb_lifetime_partition part = {o->shard, o->nshards ? o->nshards : 1, 0, nengines};
	struct lt_decoder *dec = malloc(sizeof(*dec));
	struct lt_splitter *split = calloc(1, sizeof(*split));
	unsigned started = 1;
	uint64_t total = 0;
	int err = 0;

	if (!p || !tid || !parts || !engines || !dec || !split) {
		free(p);
		free(tid);
		free(parts);
		free(engines);
		free(dec);
		free(split);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	lt_decoder_init(dec, o->policy, &part);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->changed, NULL);
	p->engines = engines;
	p->nengines = nengines;
	p->parts = parts;
	p->dec = dec;
	p->split = split;
	for (unsigned i = 0; i < PAR_SLOTS; i++) {
		struct slot *s = &p->slots[i];

		if (!(s->recs = malloc(PAR_BATCH * sizeof(*s->recs))) ||
		    (nengines > 1 &&
		     !(s->lists[0] = aligned_alloc(64, ((size_t)nengines + 1) * PAR_BATCH *
		                                           sizeof(*s->lists[0]))))) {
			err = sb_error_set(SB_ERR_NOMEM, "out of memory");
			goto out;
		}
		for (unsigned t = 1; nengines > 1 && t <= nengines; t++)
			s->lists[t] = s->lists[0] + (size_t)t * PAR_BATCH;
	}
	for (unsigned t = 0; t < nengines; t++)
		if ((err = new_engine(&engines[t].eng, o, t, nengines)) < 0)
			goto out;
	for (; started < nthreads; started++) {
		if (pthread_create(&tid[started], NULL, worker_main, p)) {
			err = sb_error_set(SB_ERR_NOMEM, "cannot start a thread");
			goto stop;
		}
	}
	pthread_mutex_lock(&p->mu);
	for (uint64_t b = 0; !p->stop && !p->deal_end;) {
		struct slot *s = &p->slots[b % PAR_SLOTS];
		int n;

		if (s->state != SLOT_FREE) {
			/* the ring is full: deal or apply a batch, or wait for one to be applied */
			if (!help(p))
				pthread_cond_wait(&p->changed, &p->mu);
			continue;
		}
		pthread_mutex_unlock(&p->mu);
		n = read_slot(r, s);
		pthread_mutex_lock(&p->mu);
		if (n <= 0) {
			if (n < 0)
				par_error(p, n, b, 0, false);
			break;
		}
		p->nread = ++b;
		if (nengines == 1) {
			/* one engine applies the records themselves: nothing to deal */
			s->state = SLOT_DEALT;
			s->left = 1;
			p->published = b;
		} else {
			s->state = SLOT_READ;
		}
		pthread_cond_broadcast(&p->changed);
		total += (uint64_t)n;
		if (o->progress) {
			pthread_mutex_unlock(&p->mu);
			o->progress(o->ctx, total);
			pthread_mutex_lock(&p->mu);
		}
	}
	/* the end of the trace (or an error): the calling thread helps with what is left */
	p->final = sb_trace_reader_info(r);
	p->read_end = true;
	pthread_cond_broadcast(&p->changed);
	while (!p->stop && !all_applied(p))
		if (!help(p))
			pthread_cond_wait(&p->changed, &p->mu);
	if (!p->stop && !p->err)
		finish_engines(p);
	pthread_mutex_unlock(&p->mu);
stop:
	if (err) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->mu);
	}
	for (unsigned t = 1; t < started; t++)
		pthread_join(tid[t], NULL);
	if (!err && p->err) {
		err = sb_error_set(p->err, "%s", p->detail);
		if (!p->detail[0])
			sb_error_clear();
	}
	if (!err) {
		for (unsigned t = 0; nengines > 1 && t < nengines; t++)
			lt_split_result(split, &parts[t]);
		err = sb_lifetime_result_merge(res, parts, nengines);
	}
out:
	for (unsigned t = 0; t < nengines; t++) {
		if (engines[t].finished)
			sb_lifetime_result_release(&parts[t]);
		sb_lifetime_free(engines[t].eng);
	}
	for (unsigned i = 0; i < PAR_SLOTS; i++) {
		free(p->slots[i].lists[0]);
		free(p->slots[i].recs);
	}
	free(split);
	free(dec);
	pthread_cond_destroy(&p->changed);
	pthread_mutex_destroy(&p->mu);
	free(engines);
	free(parts);
	free(tid);
	free(p);
	return err;
}

int sb_lifetime_run_opts(struct sb_trace_reader *r, const struct sb_lifetime_run_opts *o,
                         struct sb_lifetime_result *res)
{
	unsigned threads = o->threads ? o->threads : 1;

	memset(res, 0, sizeof(*res));
	if (threads > SB_ANALYSIS_MAX_THREADS)
		threads = SB_ANALYSIS_MAX_THREADS;
	return threads == 1 ? run_one(r, o, res) : run_threads(r, o, threads, res);
}

int sb_lifetime_run_source(const struct sb_trace_source *src, const struct sb_lifetime_run_opts *o,
                           struct sb_lifetime_result *res)
{
	struct sb_trace_source once = *src;
	struct sb_trace_reader *r;
	int err;

	memset(res, 0, sizeof(*res));
	/* one pass: a trace in time order (the usual case) is read once, not scanned first */
	once.opt.one_pass = sb_trace_source_rereadable(src);
	if ((err = sb_trace_open_source(&r, &once)) < 0)
		return err;
	err = sb_lifetime_run_opts(r, o, res);
	if (err < 0 && once.opt.one_pass && sb_trace_reader_unsorted(r)) {
		/* records go back in time: read it again, sorted (docs/trace-format.md) */
		sb_trace_reader_free(r);
		once.opt.one_pass = 0;
		if ((err = sb_trace_open_source(&r, &once)) < 0)
			return err;
		err = sb_lifetime_run_opts(r, o, res);
	}
	sb_trace_reader_free(r);
	return err;
}
