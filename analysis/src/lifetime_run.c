/* SPDX-License-Identifier: MIT */
/*
 * Running the lifetime engine over a trace: in one thread, or in several that share the reading
 * (docs/lifetimes.md, "Threads and shards").
 *
 * With T threads the reader (the calling thread) fills batches of records into a ring of slots
 * and decodes them once (action, key, the thread its address belongs to); T engines, one per
 * thread, each owning one partition of the addresses (sb_lifetime_set_partition), read every
 * batch in order: each applies its own records and counts the records' statistics of all. A
 * slot is refilled once every engine is done with it. At the end the T results are merged (sb_lifetime_result_merge): the same
 * result, exactly, as one engine's. Errors are reported as one engine would: the first in the
 * order of the records (an engine's error in an earlier batch before the reader's in a later one).
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

enum { RUN_BATCH = 4096, PAR_BATCH = 16384, PAR_SLOTS = 8 };

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

struct slot {
	struct sb_trace_record *recs;
	struct lt_op *ops;
	size_t n;
	struct sb_trace_info info; /* the reader's description after this batch */
	unsigned left;             /* engines still to read it */
};

struct par {
	pthread_mutex_t mu;
	pthread_cond_t filled, freed;
	struct slot slots[PAR_SLOTS];
	uint64_t published; /* batches handed to the engines */
	bool done;          /* no more batches (end of the trace, an error) */
	bool stop;          /* an error: everybody stops */
	int err;            /* the first error in the order of the records, */
	uint64_t err_batch; /* in this batch */
	unsigned err_thread;
	char detail[1024];
	unsigned nthreads;
};

struct worker {
	struct par *p;
	unsigned t;
	struct sb_lifetime *eng;
	pthread_t tid;
};

/*
 * Keep err (of thread t, in batch b) if it comes first. An engine's error stops everybody; the
 * reader's ends the batches, and the engines go on with those before it (one of them may hold
 * an earlier error). Called with the lock held.
 */
static void par_error(struct par *p, int err, uint64_t b, unsigned t, bool stop)
{
	if (!p->err || b < p->err_batch || (b == p->err_batch && t < p->err_thread)) {
		p->err = err;
		p->err_batch = b;
		p->err_thread = t;
		sb_strlcpy(p->detail, sb_error_detail(), sizeof(p->detail));
	}
	p->stop |= stop;
	pthread_cond_broadcast(&p->filled);
	pthread_cond_broadcast(&p->freed);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct par *p = w->p;
	uint64_t b = 0;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct slot *s;
		int err;

		while (b == p->published && !p->done && !p->stop)
			pthread_cond_wait(&p->filled, &p->mu);
		if (p->stop || b == p->published)
			break;
		s = &p->slots[b % PAR_SLOTS];
		pthread_mutex_unlock(&p->mu);
		err = lt_feed_ops(w->eng, &s->info, s->ops, s->n);
		pthread_mutex_lock(&p->mu);
		if (err < 0) {
			par_error(p, err, b, w->t, true);
			break;
		}
		if (--s->left == 0)
			pthread_cond_broadcast(&p->freed);
		b++;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static int run_threads(struct sb_trace_reader *r, const struct sb_lifetime_run_opts *o,
                       unsigned nthreads, struct sb_lifetime_result *res)
{
	struct par *p = calloc(1, sizeof(*p));
	struct worker *w = calloc(nthreads, sizeof(*w));
	struct sb_lifetime_result *parts = calloc(nthreads, sizeof(*parts));
	struct sb_lifetime_partition part = {o->shard, o->nshards ? o->nshards : 1, 0, nthreads};
	struct lt_decoder *dec = malloc(sizeof(*dec));
	unsigned started = 0, finished = 0;
	uint64_t total = 0;
	int err = 0;

	if (!p || !w || !parts || !dec) {
		free(p);
		free(w);
		free(parts);
		free(dec);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	lt_decoder_init(dec, o->policy, &part);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->freed, NULL);
	p->nthreads = nthreads;
	for (unsigned i = 0; i < PAR_SLOTS; i++)
		if (!(p->slots[i].recs = malloc(PAR_BATCH * sizeof(*p->slots[i].recs))) ||
		    !(p->slots[i].ops = malloc(PAR_BATCH * sizeof(*p->slots[i].ops)))) {
			err = sb_error_set(SB_ERR_NOMEM, "out of memory");
			goto out;
		}
	for (unsigned t = 0; t < nthreads; t++) {
		w[t].p = p;
		w[t].t = t;
		if ((err = new_engine(&w[t].eng, o, t, nthreads)) < 0)
			goto out;
	}
	for (; started < nthreads; started++) {
		if (pthread_create(&w[started].tid, NULL, worker_main, &w[started])) {
			err = sb_error_set(SB_ERR_NOMEM, "cannot start a thread");
			goto stop;
		}
	}
	/* the reader: fill the next slot once every engine is done with it */
	for (uint64_t b = 0;; b++) {
		struct slot *s = &p->slots[b % PAR_SLOTS];
		int n;

		pthread_mutex_lock(&p->mu);
		while (s->left && !p->stop)
			pthread_cond_wait(&p->freed, &p->mu);
		if (p->stop) {
			pthread_mutex_unlock(&p->mu);
			break;
		}
		pthread_mutex_unlock(&p->mu);
		n = sb_trace_read(r, s->recs, PAR_BATCH);
		if (n > 0) {
			s->n = (size_t)n;
			s->info = *sb_trace_reader_info(r);
			lt_decoder_sync(dec, &s->info);
			lt_decode(dec, s->recs, s->n, s->ops);
		}
		pthread_mutex_lock(&p->mu);
		if (n <= 0) {
			if (n < 0)
				par_error(p, n, b, 0, false);
			p->done = true;
			pthread_cond_broadcast(&p->filled);
			pthread_mutex_unlock(&p->mu);
			break;
		}
		s->left = nthreads;
		p->published++;
		pthread_cond_broadcast(&p->filled);
		pthread_mutex_unlock(&p->mu);
		total += (uint64_t)n;
		if (o->progress)
			o->progress(o->ctx, total);
	}
stop:
	if (err) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_cond_broadcast(&p->filled);
		pthread_mutex_unlock(&p->mu);
	}
	for (unsigned t = 0; t < started; t++)
		pthread_join(w[t].tid, NULL);
	if (!err && p->err) {
		err = sb_error_set(p->err, "%s", p->detail);
		if (!p->detail[0])
			sb_error_clear();
	}
	for (unsigned t = 0; !err && t < nthreads; t++, finished++)
		err = sb_lifetime_finish(w[t].eng, sb_trace_reader_info(r), &parts[t]);
	if (!err)
		err = sb_lifetime_result_merge(res, parts, nthreads);
out:
	for (unsigned t = 0; t < finished; t++)
		sb_lifetime_result_release(&parts[t]);
	for (unsigned t = 0; t < nthreads; t++)
		sb_lifetime_free(w[t].eng);
	for (unsigned i = 0; i < PAR_SLOTS; i++) {
		free(p->slots[i].recs);
		free(p->slots[i].ops);
	}
	free(dec);
	pthread_cond_destroy(&p->filled);
	pthread_cond_destroy(&p->freed);
	pthread_mutex_destroy(&p->mu);
	free(parts);
	free(w);
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
