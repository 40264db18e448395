/* SPDX-License-Identifier: MIT */
/*
 * Running the memory-centric analyses over a trace source: in one engine, or in time chunks
 * (docs/locality.md, "Threads and shards"). A chunk is a range of the trace's records; the
 * thread (or shard) that analyses it reads the trace from its start, skims the records before
 * its chunk (sb_locality_prefix_skim: no analysis, only the numbers that place the chunk's
 * accesses), analyses its chunk and stops. The parts are then absorbed in order
 * (sb_locality_absorb): the result is exactly one engine's.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "locality_internal.h"
#include "stackbench/error.h"
#include "stackbench/locality.h"
#include "stackbench/log.h"
#include "stackbench/util.h"

enum { BATCH = 8192 };

/* Open src: in one pass, or (sorted) with its order pass. */
static int open_src(const struct sb_trace_source *src, bool sorted, struct sb_trace_reader **r)
{
	struct sb_trace_source s = *src;

	s.opt.one_pass = !sorted && sb_trace_source_rereadable(src);
	return sb_trace_open_source(r, &s);
}

int sb_locality_source_records(const struct sb_trace_source *src, bool sorted, uint64_t *records,
                               bool *unsorted)
{
	struct sb_trace_record *buf;
	struct sb_trace_reader *r;
	int n, err;

	*records = 0;
	*unsorted = false;
	if ((err = open_src(src, sorted, &r)) < 0)
		return err;
	if (sb_trace_reader_total(r, records) == 0) {
		sb_trace_reader_free(r);
		return 0;
	}
	if (!(buf = malloc(BATCH * sizeof(*buf)))) {
		sb_trace_reader_free(r);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	while ((n = sb_trace_read(r, buf, BATCH)) > 0)
		*records += (uint64_t)n;
	*unsorted = n < 0 && sb_trace_reader_unsorted(r);
	free(buf);
	sb_trace_reader_free(r);
	return n < 0 ? n : 0;
}

int sb_locality_run_chunk(const struct sb_trace_source *src, bool sorted,
                          const struct sb_locality_options *opt, uint64_t lo, uint64_t hi,
                          bool last, struct sb_locality_part **part, struct sb_trace_info *info,
                          bool *unsorted)
{
	struct sb_locality_prefix prefix = {0};
	struct sb_trace_record *buf = malloc(BATCH * sizeof(*buf));
	struct sb_trace_reader *r = NULL;
	struct sb_locality *l = NULL;
	uint64_t pos = 0;
	int n = 0, err;

	*part = NULL;
	*unsorted = false;
	if (!buf)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((err = open_src(src, sorted, &r)) < 0)
		goto out;
	while (pos < hi || last) {
		size_t i = 0;

		if ((n = sb_trace_read(r, buf, BATCH)) <= 0)
			break;
		if (pos < lo) { /* before the chunk: skimmed */
			size_t k = lo - pos < (uint64_t)n ? (size_t)(lo - pos) : (size_t)n;

			sb_locality_prefix_skim(&prefix, sb_trace_reader_info(r), buf, k);
			pos += k;
			i = k;
		}
		if (i < (size_t)n && pos >= lo) {
			size_t k = (size_t)n - i;

			if (pos + k > hi) {
				if (last) {
					err =
					    sb_error_set(SB_ERR_MISMATCH,
					                 "'%s' holds more records than it did when "
					                 "they were counted (%llu): did it change?",
					                 src->paths[0], (unsigned long long)hi);
					goto out;
				}
				k = (size_t)(hi - pos);
			}
			if (!l && (err = sb_locality_new_chunk(&l, opt, &prefix)) < 0)
				goto out;
			if ((err = sb_locality_feed(l, sb_trace_reader_info(r), buf + i, k)) < 0)
				goto out;
			pos += k;
		}
	}
	if (n < 0) {
		err = n;
		*unsorted = sb_trace_reader_unsorted(r);
		goto out;
	}
	if (pos < hi) {
		err = sb_error_set(
		    SB_ERR_MISMATCH,
		    "'%s' holds fewer records than it did when they were counted (%llu "
		    "of %llu): did it change?",
		    src->paths[0], (unsigned long long)pos, (unsigned long long)hi);
		goto out;
	}
	if (!l && (err = sb_locality_new_chunk(&l, opt, &prefix)) < 0)
		goto out;
	if ((err = sb_locality_take_part(l, part)) < 0)
		goto out;
	*info = *sb_trace_reader_info(r);
	err = 0;
out:
	sb_locality_free(l);
	sb_trace_reader_free(r);
	free(buf);
	return err;
}

/* --- several threads ---------------------------------------------------------------------- */

struct job {
	const struct sb_trace_source *src;
	const struct sb_locality_options *opt;
	bool sorted, last;
	uint64_t lo, hi;
	struct sb_locality_part *part;
	struct sb_trace_info info;
	bool unsorted;
	int err;
	char detail[1024];
	pthread_t tid;
};

static void *job_main(void *arg)
{
	struct job *j = arg;

	j->err = sb_locality_run_chunk(j->src, j->sorted, j->opt, j->lo, j->hi, j->last, &j->part,
	                               &j->info, &j->unsorted);
	if (j->err < 0)
		sb_strlcpy(j->detail, sb_error_detail(), sizeof(j->detail));
	return NULL;
}

/* --- one engine, the reading in a thread of its own ---------------------------------------- */

enum { PIPE_BATCH = 32768, PIPE_SLOTS = 4 };

struct pipe_slot {
	struct sb_trace_record *recs;
	int n;                     /* records, 0 at the end, or the reader's error */
	struct sb_trace_info info; /* the reader's description after them */
};

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct sb_trace_reader *r;
	struct pipe_slot slots[PIPE_SLOTS];
	uint64_t produced, consumed; /* batches */
	bool stop;                   /* the engine stopped: read no more */
	char detail[1024];           /* of the reader's error */
};

/* The reader's thread: batches into the ring, until the end, an error or stop. */
static void *pipe_reader(void *arg)
{
	struct pipe *p = arg;

	for (uint64_t b = 0;; b++) {
		struct pipe_slot *s = &p->slots[b % PIPE_SLOTS];
		bool stop;

		pthread_mutex_lock(&p->mu);
		while (b - p->consumed >= PIPE_SLOTS && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		stop = p->stop;
		pthread_mutex_unlock(&p->mu);
		if (stop)
			break;
		s->n = sb_trace_read(p->r, s->recs, PIPE_BATCH);
		if (s->n > 0)
			s->info = *sb_trace_reader_info(p->r);
		else if (s->n < 0)
			sb_strlcpy(p->detail, sb_error_detail(), sizeof(p->detail));
		pthread_mutex_lock(&p->mu);
		p->produced = b + 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		if (s->n <= 0)
			break;
	}
	return NULL;
}

/*
 * sb_locality_run() with the reading (parsing a text trace costs as much as the analysis) in a
 * second thread, a few batches ahead: the same engine fed the same records in the same order,
 * so the same result; reading and analysing overlap.
 */
static int run_piped(struct sb_trace_reader *r, const struct sb_locality_options *opt,
                     struct sb_locality_result *res)
{
	struct pipe *p = calloc(1, sizeof(*p));
	struct sb_locality *l = NULL;
	pthread_t tid;
	bool started = false;
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (!p)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	p->r = r;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	for (unsigned i = 0; i < PIPE_SLOTS; i++)
		if (!(p->slots[i].recs = malloc(PIPE_BATCH * sizeof(*p->slots[i].recs)))) {
			err = sb_error_set(SB_ERR_NOMEM, "out of memory");
			goto out;
		}
	if ((err = sb_locality_new(&l, opt)) < 0)
		goto out;
	if (pthread_create(&tid, NULL, pipe_reader, p)) {
		err = sb_error_set(SB_ERR_NOMEM, "cannot start a thread");
		goto out;
	}
	started = true;
	for (uint64_t b = 0;; b++) {
		struct pipe_slot *s = &p->slots[b % PIPE_SLOTS];

		pthread_mutex_lock(&p->mu);
		while (p->produced <= b)
			pthread_cond_wait(&p->cv, &p->mu);
		pthread_mutex_unlock(&p->mu);
		if (s->n <= 0) {
			if (s->n < 0) {
				err = sb_error_set(s->n, "%s", p->detail);
				if (!p->detail[0])
					sb_error_clear();
			}
			break;
		}
		if ((err = sb_locality_feed(l, &s->info, s->recs, (size_t)s->n)) < 0)
			break;
		pthread_mutex_lock(&p->mu);
		p->consumed = b + 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
out:
	if (started) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(tid, NULL);
	}
	if (!err)
		err = sb_locality_finish(l, sb_trace_reader_info(r), res);
	sb_locality_free(l);
	for (unsigned i = 0; i < PIPE_SLOTS; i++)
		free(p->slots[i].recs);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
	return err;
}

/* One engine, fed in the calling thread, or with the reading in another (piped). */
static int run_one(const struct sb_trace_source *src, bool *sorted,
                   const struct sb_locality_options *opt, bool piped,
                   struct sb_locality_result *res)
{
	int (*run)(struct sb_trace_reader *, const struct sb_locality_options *,
	           struct sb_locality_result *) = piped ? run_piped : sb_locality_run;
	struct sb_trace_reader *r;
	int err;

	if ((err = open_src(src, *sorted, &r)) < 0)
		return err;
	err = run(r, opt, res);
	if (err < 0 && !*sorted && sb_trace_reader_unsorted(r)) {
		/* records go back in time: read it again, sorted (docs/trace-format.md) */
		sb_trace_reader_free(r);
		*sorted = true;
		if ((err = open_src(src, true, &r)) < 0)
			return err;
		err = run(r, opt, res);
	}
	sb_trace_reader_free(r);
	return err;
}

/*
 * The records [lo, hi) of src in `threads` chunks analysed in parallel: their parts in order
 * (*parts, n of them), the trace's description as the last chunk read it. 1 when a chunk found
 * records going back in time (retry sorted).
 */
static int run_range(const struct sb_trace_source *src, bool sorted,
                     const struct sb_locality_options *opt, uint64_t lo, uint64_t hi, bool last,
                     unsigned threads, struct sb_locality_part ***parts, struct sb_trace_info *info)
{
	struct job *jobs = calloc(threads, sizeof(*jobs));
	unsigned started = 0;
	int err = 0;

	*parts = NULL;
	if (!jobs || !(*parts = calloc(threads, sizeof(**parts)))) {
		free(jobs);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	for (unsigned t = 0; t < threads; t++) {
		jobs[t] = (struct job){.src = src,
		                       .opt = opt,
		                       .sorted = sorted,
		                       .last = last && t + 1 == threads,
		                       .lo = lo + (hi - lo) * t / threads,
		                       .hi = lo + (hi - lo) * (t + 1) / threads};
	}
	if (threads == 1) {
		job_main(&jobs[0]);
		started = 1;
	} else {
		for (; started < threads; started++)
			if (pthread_create(&jobs[started].tid, NULL, job_main, &jobs[started])) {
				err = sb_error_set(SB_ERR_NOMEM, "cannot start a thread");
				break;
			}
		for (unsigned t = 0; t < started; t++)
			pthread_join(jobs[t].tid, NULL);
	}
	if (err)
		goto out;
	for (unsigned t = 0; t < threads; t++)
		if (jobs[t].unsorted) {
			err = 1;
			goto out;
		}
	/* the first error in the trace's order: the earliest chunk's */
	for (unsigned t = 0; t < threads; t++)
		if (jobs[t].err < 0) {
			err = sb_error_set(jobs[t].err, "%s", jobs[t].detail);
			goto out;
		}
	*info = jobs[threads - 1].info;
	for (unsigned t = 0; t < threads; t++) {
		(*parts)[t] = jobs[t].part;
		jobs[t].part = NULL;
	}
out:
	for (unsigned t = 0; t < threads; t++)
		sb_locality_part_free(jobs[t].part);
	free(jobs);
	if (err) {
		free(*parts);
		*parts = NULL;
	}
	return err;
}

static void free_parts(struct sb_locality_part **parts, size_t n)
{
	for (size_t i = 0; parts && i < n; i++)
		sb_locality_part_free(parts[i]);
	free(parts);
}

/* The records of src, sorted when they go back in time (*sorted then set). */
static int count_records(const struct sb_trace_source *src, bool *sorted, uint64_t *total)
{
	bool unsorted;
	int err = sb_locality_source_records(src, *sorted, total, &unsorted);

	if (err < 0 && unsorted && !*sorted) {
		*sorted = true;
		err = sb_locality_source_records(src, true, total, &unsorted);
	}
	return err;
}

int sb_locality_merge(const struct sb_locality_options *opt, const struct sb_trace_info *info,
                      struct sb_locality_part *const *parts, size_t n, uint64_t records,
                      struct sb_locality_result *res)
{
	struct sb_locality *m;
	int err;

	memset(res, 0, sizeof(*res));
	if (!n || parts[0]->start.records || parts[0]->start.started)
		return sb_error_set(SB_ERR_MISMATCH, "the first chunk does not begin the trace");
	if ((err = sb_locality_new(&m, opt)) < 0)
		return err;
	for (size_t i = 0; i < n; i++)
		if ((err = sb_locality_absorb(m, info, parts[i])) < 0)
			goto out;
	if (parts[n - 1]->end.records != records) {
		err = sb_error_set(
		    SB_ERR_MISMATCH, "the chunks hold %llu of the trace's %llu records",
		    (unsigned long long)parts[n - 1]->end.records, (unsigned long long)records);
		goto out;
	}
	err = sb_locality_finish(m, info, res);
out:
	sb_locality_free(m);
	return err;
}

int sb_locality_run_shard(const struct sb_trace_source *src, const struct sb_locality_options *opt,
                          uint32_t shard, uint32_t nshards, unsigned threads,
                          struct sb_locality_part **part, struct sb_trace_info *info,
                          uint64_t *records, bool *sorted)
{
	struct sb_locality_part **parts = NULL;
	struct sb_locality *m = NULL;
	uint64_t lo, hi;
	int err;

	*part = NULL;
	*sorted = false;
	if (threads < 1)
		threads = 1;
	if (threads > SB_ANALYSIS_MAX_THREADS)
		threads = SB_ANALYSIS_MAX_THREADS;
	if ((err = count_records(src, sorted, records)) < 0)
		return err;
	lo = *records * shard / nshards;
	hi = *records * (shard + 1) / nshards;
	if (hi - lo < 2 * (uint64_t)threads)
		threads = 1;
	err = run_range(src, *sorted, opt, lo, hi, shard + 1 == nshards, threads, &parts, info);
	if (err == 1 && !*sorted) {
		/* a chunk's records go back in time: every shard counts and reads it sorted */
		*sorted = true;
		if ((err = count_records(src, sorted, records)) < 0)
			return err;
		lo = *records * shard / nshards;
		hi = *records * (shard + 1) / nshards;
		err =
		    run_range(src, true, opt, lo, hi, shard + 1 == nshards, threads, &parts, info);
	}
	if (err == 1)
		return sb_error_set(SB_ERR_PARSE, "records go back in time");
	if (err < 0)
		return err;
	if (threads == 1) {
		*part = parts[0];
		free(parts);
		return 0;
	}
	/* the threads' chunks joined into the shard's one part */
	if ((err = sb_locality_new_chunk(&m, opt, &parts[0]->start)) < 0)
		goto out;
	for (unsigned t = 0; t < threads; t++)
		if ((err = sb_locality_absorb(m, info, parts[t])) < 0)
			goto out;
	err = sb_locality_take_part(m, part);
out:
	sb_locality_free(m);
	free_parts(parts, threads);
	return err;
}

int sb_locality_run_source(const struct sb_trace_source *src, const struct sb_locality_options *opt,
                           unsigned threads, struct sb_locality_result *res)
{
	struct sb_locality_part **parts = NULL;
	struct sb_trace_info *info;
	bool sorted = false;
	uint64_t total;
	int err;

	memset(res, 0, sizeof(*res));
	if (threads > SB_ANALYSIS_MAX_THREADS)
		threads = SB_ANALYSIS_MAX_THREADS;
	if (threads <= 1)
		return run_one(src, &sorted, opt, false, res);
	/*
	 * Chunks need a trace that can be read again and whose records are counted without
	 * reading them (sbt): each chunk's thread reads the records before it, at decoding speed.
	 * A text trace would be parsed once to count and again by every chunk, more than all the
	 * analysis's work on two cores: it is parsed once, in a thread beside the engine.
	 */
	if (src->fmt != SB_TRACE_SBT || !sb_trace_source_rereadable(src))
		return run_one(src, &sorted, opt, true, res);
	if ((err = count_records(src, &sorted, &total)) < 0)
		return err;
	if (total < 2 * (uint64_t)threads)
		return run_one(src, &sorted, opt, true, res);
	if (!(info = malloc(sizeof(*info))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	err = run_range(src, sorted, opt, 0, total, true, threads, &parts, info);
	if (err == 1 && !sorted) /* a chunk found records going back: all of them, sorted */
		err = run_range(src, true, opt, 0, total, true, threads, &parts, info);
	if (err == 1)
		err = sb_error_set(SB_ERR_PARSE, "records go back in time");
	if (!err)
		err = sb_locality_merge(opt, info, parts, threads, total, res);
	free_parts(parts, threads);
	free(info);
	return err;
}
