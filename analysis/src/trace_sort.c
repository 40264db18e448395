/* SPDX-License-Identifier: MIT */
/*
 * Records of a reader in time order, stable (records of equal times keep their input order),
 * in bounded memory: an external merge sort.
 *
 * Records are gathered in a buffer of at most `mem` records. An input that ends before the
 * buffer is full is sorted in memory (not at all when it is in order already) and never touches
 * the disk. Otherwise each full buffer is sorted and written as a run, a temporary sbt file
 * (unlinked at once, so nothing is left behind, even after a crash); at the end the runs and the
 * last buffer are merged, at most SORT_FANIN at a time (more runs are merged in passes first).
 * Ties between runs go to the earlier run, so the merge is stable too.
 *
 * Bounds: memory is the buffer (grown as needed up to mem × 48 bytes; while a buffer is sorted,
 * 64 bytes more per record: its sort key and the sorted copy) plus, while merging, SORT_FANIN
 * open runs (one decoded sbt block and a batch of records each, about 2 MiB); disk is the
 * compressed records (about 1-3 bytes per record in sbt), twice during a pass.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/util.h"
#include "trace_internal.h"

#define SORT_FANIN 16
#define RUN_BATCH 4096

/* A sorted run: a temporary sbt file while written, a reader while merged. */
struct run {
	int fd; /* the file (unlinked); -1 once a reader owns it */
	struct sb_trace_reader *r;
	struct sb_trace_record *buf;
	size_t n, pos;
};

struct key {
	int64_t time;
	uint64_t seq;
};

struct sort_reader {
	struct sb_trace_reader base;
	struct sb_trace_reader *in;
	size_t mem; /* records held in memory at most */
	struct sb_trace_record *recs;
	size_t cap;    /* records recs holds now (grown up to mem) */
	size_t n, pos; /* records in recs; next to emit (in memory) */
	struct run *runs;
	size_t nruns, capruns;
	bool filled;  /* the input is read */
	size_t *heap; /* run indices, by (head time, index); the memory buffer is index nruns */
	size_t nheap;
	uint64_t spilled; /* records written to runs */
	char tmpdir[256];
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort recs[0..n) by time, stable (by input position at equal times). */
static int sort_buffer(struct sort_reader *s)
{
	struct sb_trace_record *sorted;
	struct key *keys;
	size_t i;

	for (i = 1; i < s->n && s->recs[i].time >= s->recs[i - 1].time; i++)
		;
	if (i >= s->n)
		return 0; /* in order already */
	keys = malloc(s->n * sizeof(*keys));
	sorted = malloc(s->n * sizeof(*sorted));
	if (!keys || !sorted) {
		free(keys);
		free(sorted);
		return sb_error_set(SB_ERR_NOMEM, "out of memory sorting '%s'", s->base.name);
	}
	for (i = 0; i < s->n; i++)
		keys[i] = (struct key){s->recs[i].time, i};
	qsort(keys, s->n, sizeof(*keys), cmp_key);
	for (i = 0; i < s->n; i++)
		sorted[i] = s->recs[keys[i].seq];
	free(s->recs);
	free(keys);
	s->recs = sorted;
	s->cap = s->n;
	return 0;
}

/* A new empty temporary file in tmpdir, unlinked: its stream (the descriptor stays open). */
static int temp_file(struct sort_reader *s, FILE **f)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/stackbench-sort-XXXXXX", s->tmpdir);
	if ((fd = mkstemp(path)) < 0)
		return sb_error_set(SB_ERR_IO,
		                    "cannot create a temporary file in '%s' to sort '%s': %s "
		                    "(set TMPDIR to a folder with room)",
		                    s->tmpdir, s->base.name, strerror(errno));
	unlink(path);
	if (!(*f = fdopen(fd, "w+b"))) {
		close(fd);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	return 0;
}

/* Write records (in order) from next() as a new run. */
static int write_run(struct sort_reader *s, struct run *run,
                     int (*next)(struct sort_reader *s, void *ctx, struct sb_trace_record *rec,
                                 size_t max),
                     void *ctx)
{
	struct sb_trace_record batch[256];
	struct sb_trace_writer *w = NULL;
	FILE *f;
	int n, err;

	if ((err = temp_file(s, &f)) < 0)
		return err;
	if ((err = sb_trace_writer_open_sbt_stream(&w, f, "(sort run)", &s->base.info)) < 0)
		goto fail;
	while ((n = next(s, ctx, batch, SB_ARRAY_SIZE(batch))) > 0) {
		if ((err = sb_trace_write(w, &s->base.info, batch, (size_t)n)) < 0)
			goto fail_w;
		s->spilled += (uint64_t)n;
	}
	if ((err = n) < 0)
		goto fail_w;
	if ((err = sb_trace_writer_close(w)) < 0)
		goto fail;
	run->fd = dup(fileno(f));
	fclose(f);
	if (run->fd < 0 || lseek(run->fd, 0, SEEK_SET) < 0)
		return sb_error_set(SB_ERR_IO, "temporary file of '%s': %s", s->base.name,
		                    strerror(errno));
	run->r = NULL;
	return 0;
fail_w:
	sb_trace_writer_abort(w);
fail:
	fclose(f);
	if (err == SB_ERR_IO)
		sb_error_wrap(err, "sorting '%s' (temporary files in '%s'): ", s->base.name,
		              s->tmpdir);
	return err;
}

static int from_buffer(struct sort_reader *s, void *ctx, struct sb_trace_record *rec, size_t max)
{
	size_t k = s->n - s->pos < max ? s->n - s->pos : max;

	(void)ctx;
	memcpy(rec, s->recs + s->pos, k * sizeof(*rec));
	s->pos += k;
	return (int)k;
}

static struct run *new_run(struct sort_reader *s)
{
	if (s->nruns == s->capruns) {
		size_t nc = s->capruns ? s->capruns * 2 : 16;
		struct run *nr = realloc(s->runs, nc * sizeof(*nr));

		if (!nr)
			return NULL;
		s->runs = nr;
		s->capruns = nc;
	}
	memset(&s->runs[s->nruns], 0, sizeof(s->runs[0]));
	s->runs[s->nruns].fd = -1;
	return &s->runs[s->nruns++];
}

static void run_close(struct run *run)
{
	sb_trace_reader_free(run->r);
	if (run->fd >= 0)
		close(run->fd);
	free(run->buf);
	memset(run, 0, sizeof(*run));
	run->fd = -1;
}

/* Open a run for merging: its reader and first batch. */
static int run_open(struct sort_reader *s, struct run *run)
{
	int err, n;

	if (!(run->buf = malloc(RUN_BATCH * sizeof(*run->buf))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	err = sb_trace_open_sbt_fd(&run->r, run->fd, "(sort run)");
	run->fd = -1;
	if (err < 0)
		return sb_error_wrap(err, "sorting '%s': ", s->base.name);
	if ((n = sb_trace_read(run->r, run->buf, RUN_BATCH)) < 0)
		return sb_error_wrap(n, "sorting '%s': ", s->base.name);
	run->n = (size_t)n;
	run->pos = 0;
	return 0;
}

/* The head record of heap entry i: a run's, or the memory buffer's (index nruns). */
static const struct sb_trace_record *head(struct sort_reader *s, struct run *runs, size_t i,
                                          size_t nruns)
{
	if (i == nruns)
		return s->pos < s->n ? &s->recs[s->pos] : NULL;
	return runs[i].pos < runs[i].n ? &runs[i].buf[runs[i].pos] : NULL;
}

static bool before(struct sort_reader *s, struct run *runs, size_t nruns, size_t a, size_t b)
{
	int64_t ta = head(s, runs, a, nruns)->time, tb = head(s, runs, b, nruns)->time;

	return ta < tb || (ta == tb && a < b);
}

static void sift_down(struct sort_reader *s, struct run *runs, size_t nruns, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < s->nheap && before(s, runs, nruns, s->heap[l], s->heap[m]))
			m = l;
		if (l + 1 < s->nheap && before(s, runs, nruns, s->heap[l + 1], s->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		size_t t = s->heap[i];

		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
}

/* Start merging runs[0..nruns) (and the memory buffer if mem): open them, build the heap. */
static int merge_start(struct sort_reader *s, struct run *runs, size_t nruns, bool mem)
{
	int err;

	s->nheap = 0;
	for (size_t i = 0; i < nruns; i++) {
		if ((err = run_open(s, &runs[i])) < 0)
			return err;
		if (runs[i].n)
			s->heap[s->nheap++] = i;
	}
	if (mem && s->pos < s->n)
		s->heap[s->nheap++] = nruns;
	for (size_t i = s->nheap / 2; i-- > 0;)
		sift_down(s, runs, nruns, i);
	return 0;
}

/* Up to max merged records from the heap over runs[0..nruns). */
static int merge_next(struct sort_reader *s, struct run *runs, size_t nruns,
                      struct sb_trace_record *out, size_t max)
{
	size_t k = 0;
	int n;

	while (k < max && s->nheap) {
		size_t i = s->heap[0];

		if (i == nruns) {
			out[k++] = s->recs[s->pos++];
		} else {
			struct run *run = &runs[i];

			out[k++] = run->buf[run->pos++];
			if (run->pos == run->n) {
				if ((n = sb_trace_read(run->r, run->buf, RUN_BATCH)) < 0)
					return sb_error_wrap(n, "sorting '%s': ", s->base.name);
				run->n = (size_t)n;
				run->pos = 0;
			}
		}
		if (!head(s, runs, i, nruns)) {
			s->heap[0] = s->heap[--s->nheap];
			if (i < nruns)
				run_close(&runs[i]);
		}
		if (s->nheap)
			sift_down(s, runs, nruns, 0);
	}
	return (int)k;
}

struct pass_ctx {
	struct run *runs;
	size_t n;
};

static int from_merge(struct sort_reader *s, void *ctx, struct sb_trace_record *rec, size_t max)
{
	struct pass_ctx *p = ctx;

	return merge_next(s, p->runs, p->n, rec, max);
}

/* Merge runs in groups of SORT_FANIN until at most SORT_FANIN - 1 are left (+ memory). */
static int merge_passes(struct sort_reader *s)
{
	int err;

	while (s->nruns >= SORT_FANIN) {
		size_t out = 0;

		for (size_t g = 0; g < s->nruns; g += SORT_FANIN) {
			size_t k = s->nruns - g < SORT_FANIN ? s->nruns - g : SORT_FANIN;
			struct pass_ctx ctx = {s->runs + g, k};
			struct run merged = {.fd = -1};

			if (k == 1) {
				s->runs[out++] = s->runs[g];
				continue;
			}
			if ((err = merge_start(s, ctx.runs, k, false)) < 0)
				return err;
			err = write_run(s, &merged, from_merge, &ctx);
			for (size_t i = 0; i < k; i++)
				run_close(&s->runs[g + i]);
			if (err < 0)
				return err;
			s->runs[out++] = merged;
		}
		s->nruns = out;
	}
	return 0;
}

/* Read the whole input: sorted in memory, or as runs on disk ready to merge. */
static int fill(struct sort_reader *s)
{
	int n, err;

	for (;;) {
		if (s->n == s->cap && s->cap < s->mem) {
			size_t nc = s->cap * 2 < s->mem ? s->cap * 2 : s->mem;
			struct sb_trace_record *nr = realloc(s->recs, nc * sizeof(*nr));

			if (!nr)
				return sb_error_set(SB_ERR_NOMEM, "out of memory sorting '%s'",
				                    s->base.name);
			s->recs = nr;
			s->cap = nc;
		}
		if (s->n == s->mem) {
			struct run *run;

			if ((err = sort_buffer(s)) < 0)
				return err;
			if (!(run = new_run(s)))
				return sb_error_set(SB_ERR_NOMEM, "out of memory");
			s->base.info = s->in->info;
			s->pos = 0;
			if ((err = write_run(s, run, from_buffer, NULL)) < 0) {
				s->nruns--;
				return err;
			}
			s->n = s->pos = 0;
		}
		n = sb_trace_read(s->in, s->recs + s->n, s->cap - s->n);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		s->n += (size_t)n;
	}
	s->base.info = s->in->info; /* as it stands at the end of the input */
	if ((err = sort_buffer(s)) < 0)
		return err;
	s->pos = 0;
	s->filled = true;
	if (s->nruns == 0)
		return 0;
	sb_info("'%s': sorting %llu records through %zu temporary runs in '%s'", s->base.name,
	        (unsigned long long)(s->spilled + s->n), s->nruns, s->tmpdir);
	if (!(s->heap = malloc((SORT_FANIN + 1) * sizeof(*s->heap))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((err = merge_passes(s)) < 0)
		return err;
	return merge_start(s, s->runs, s->nruns, true);
}

static int sort_read(struct sb_trace_reader *r, struct sb_trace_record *recs, size_t max)
{
	struct sort_reader *s = (struct sort_reader *)r;
	int err;

	if (!s->filled && (err = fill(s)) < 0)
		return err;
	if (s->nruns == 0)
		return from_buffer(s, NULL, recs, max);
	return merge_next(s, s->runs, s->nruns, recs, max);
}

static void sort_free(struct sb_trace_reader *r)
{
	struct sort_reader *s = (struct sort_reader *)r;

	for (size_t i = 0; i < s->nruns; i++)
		run_close(&s->runs[i]);
	free(s->runs);
	free(s->heap);
	free(s->recs);
	sb_trace_reader_free(s->in);
	free(s);
}

static const struct sb_trace_reader_ops sort_ops = {.read = sort_read, .free = sort_free};

int sb_trace_sort(struct sb_trace_reader **r, struct sb_trace_reader *in, size_t mem_records)
{
	struct sort_reader *s = calloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");

	*r = NULL;
	if (!mem_records)
		mem_records = SB_TRACE_SORT_RECORDS;
	if (s) {
		s->mem = mem_records;
		s->cap = mem_records < 4096 ? mem_records : 4096;
		s->recs = malloc(s->cap * sizeof(*s->recs));
	}
	if (!s || !s->recs) {
		if (s)
			free(s->recs);
		free(s);
		sb_trace_reader_free(in);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	s->base.ops = &sort_ops;
	s->in = in;
	s->base.info = in->info;
	sb_strlcpy(s->base.name, in->name, sizeof(s->base.name));
	sb_strlcpy(s->tmpdir, tmp && *tmp ? tmp : "/tmp", sizeof(s->tmpdir));
	*r = &s->base;
	return 0;
}
