/* SPDX-License-Identifier: MIT */
/*
 * sb_locality_bench: accesses per second of the reuse-distance engine and of the whole
 * memory-centric analysis.
 *
 *   sb_locality_bench [-n MILLIONS] [-b BLOCKS] [-r REPEATS] [-d DIR]
 *
 * Builds a synthetic trace over BLOCKS distinct 64-byte blocks of three subpartitions (three
 * accesses in four walk a window of recent blocks, one in four goes anywhere, so reuse distances
 * span short to the whole footprint), writes it as sbt into DIR (a temporary folder by default,
 * removed at the end), then times in one thread:
 * - a textbook reuse-distance probe: a hash map of last-access times and a Fenwick tree over all
 *   times (O(log n) per access, no renumbering), the kind of code the issue measured at 1.3-2.1 M
 *   accesses/s; it checks the engine's distances on the first million accesses;
 * - sb_reuse on the blocks in memory (the engine's core);
 * - sbt decoding + sb_reuse (reuse distances on sbt input);
 * - sb_locality on records in memory and fed from sbt (everything: trace-wide and
 *   per-subpartition distances, footprints of the interval tree, per-block numbers for zooming).
 * Times are the thread's CPU time (accesses per second per core); the rates are the median of
 * REPEATS runs (default 3) with the range. Not a test: it asserts nothing, it prints figures.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/locality.h"
#include "stackbench/trace.h"

enum { BATCH = 4096 };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "sb_locality_bench: %s: %s\n", what,
	        sb_error_detail()[0] ? sb_error_detail() : sb_strerror(err));
	exit(1);
}

/* Three subpartitions of byte-addressed blocks; a block is 64 bytes. */
static struct sb_trace_record *make_trace(struct sb_trace_info *info, size_t n, uint64_t blocks)
{
	static const char *const names[3] = {"ifmap", "filter", "ofmap"};
	struct sb_trace_record *t = calloc(n, sizeof(*t));
	uint64_t x = 88172645463325252ull;

	if (!t)
		die("allocating the trace", SB_ERR_NOMEM);
	sb_trace_info_init(info, "bench", 1e9, "cycle");
	for (int i = 0; i < 3; i++)
		sb_trace_info_subpart(info, names[i], SB_SUBPART_SCRATCHPAD, 1, 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t b;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b = x % 4 ? (i / 16 * 7 + (x >> 40) % 64) % blocks : (x >> 20) % blocks;
		t[i].time = (int64_t)(i / 16);
		t[i].subpart = (uint16_t)(b % 3);
		t[i].addr = b / 3 * 64 + (x >> 56) % 64;
		t[i].size = 8;
		t[i].kind = x % 4 == 1 ? SB_ACC_WRITE : SB_ACC_READ;
	}
	return t;
}

/* The key the engine gives a record: its subpartition's block (the trace-wide stream). */
static uint64_t key_of(const struct sb_trace_record *r)
{
	return (r->addr >> 6) * 3 + r->subpart;
}

/* --- the textbook probe ------------------------------------------------------------------ */

struct probe {
	uint64_t *fen; /* Fenwick tree over times 1..n: 1 where a block's last access is */
	uint64_t n;
	uint64_t *keys, *last; /* hash map key -> last time */
	size_t mask;
};

static void fen_add(struct probe *p, uint64_t i, int64_t d)
{
	for (; i <= p->n; i += i & -i)
		p->fen[i] += (uint64_t)d;
}

static uint64_t fen_sum(const struct probe *p, uint64_t i)
{
	uint64_t s = 0;

	for (; i; i -= i & -i)
		s += p->fen[i];
	return s;
}

static double run_probe(const struct sb_trace_record *t, size_t n, uint64_t blocks,
                        const uint64_t *check, size_t ncheck, uint64_t *sum)
{
	struct probe p = {.n = n};
	size_t cap = 1;
	double t0;

	while (cap < blocks * 2)
		cap *= 2;
	p.mask = cap - 1;
	p.fen = calloc(n + 1, sizeof(*p.fen));
	p.keys = malloc(cap * sizeof(*p.keys));
	p.last = calloc(cap, sizeof(*p.last));
	if (!p.fen || !p.keys || !p.last)
		die("allocating the probe", SB_ERR_NOMEM);
	memset(p.keys, 0xff, cap * sizeof(*p.keys));
	*sum = 0;
	t0 = now_s();
	for (uint64_t i = 1; i <= n; i++) {
		const uint64_t k = key_of(&t[i - 1]);
		size_t h = (size_t)(k * 0x9e3779b97f4a7c15ull >> 20) & p.mask;
		uint64_t d = SB_REUSE_COLD;

		while (p.keys[h] != k && p.keys[h] != UINT64_MAX)
			h = (h + 1) & p.mask;
		if (p.keys[h] == k) {
			d = fen_sum(&p, i - 1) - fen_sum(&p, p.last[h]);
			fen_add(&p, p.last[h], -1);
		}
		p.keys[h] = k;
		p.last[h] = i;
		fen_add(&p, i, 1);
		if (i - 1 < ncheck && d != check[i - 1]) {
			fprintf(stderr, "sb_locality_bench: access %llu: probe %llu, engine %llu\n",
			        (unsigned long long)i - 1, (unsigned long long)d,
			        (unsigned long long)check[i - 1]);
			exit(1);
		}
		*sum += d == SB_REUSE_COLD ? 0 : d;
	}
	t0 = now_s() - t0;
	free(p.fen);
	free(p.keys);
	free(p.last);
	return t0;
}

/* --- the engine --------------------------------------------------------------------------- */

static double run_reuse(const uint64_t *keys, size_t n, uint64_t *dist)
{
	struct sb_reuse *r;
	double t0;
	int err;

	if ((err = sb_reuse_new(&r)) < 0)
		die("sb_reuse_new", err);
	t0 = now_s();
	for (size_t i = 0; i < n; i += BATCH)
		if ((err = sb_reuse_feed(r, keys + i, n - i < BATCH ? n - i : BATCH, dist + i)) < 0)
			die("sb_reuse_feed", err);
	t0 = now_s() - t0;
	sb_reuse_free(r);
	return t0;
}

/* sbt decoding and the reuse distances of the records' blocks. */
static double run_sbt_reuse(const char *path, size_t *n)
{
	struct sb_trace_reader *r;
	struct sb_trace_record *buf = malloc(BATCH * sizeof(*buf));
	uint64_t keys[BATCH], dist[BATCH];
	struct sb_reuse *ru;
	double t0;
	int k, err;

	if (!buf || (err = sb_reuse_new(&ru)) < 0)
		die("allocating", SB_ERR_NOMEM);
	*n = 0;
	t0 = now_s();
	if ((err = sb_trace_open(&r, SB_TRACE_SBT, path, NULL)) < 0)
		die(path, err);
	while ((k = sb_trace_read(r, buf, BATCH)) > 0) {
		for (int i = 0; i < k; i++)
			keys[i] = key_of(&buf[i]);
		if ((err = sb_reuse_feed(ru, keys, (size_t)k, dist)) < 0)
			die("sb_reuse_feed", err);
		*n += (size_t)k;
	}
	if (k < 0)
		die(path, k);
	sb_trace_reader_free(r);
	t0 = now_s() - t0;
	sb_reuse_free(ru);
	free(buf);
	return t0;
}

static double run_locality(const struct sb_trace_info *info, const struct sb_trace_record *t,
                           size_t n, const char *sbt, uint64_t *blocks)
{
	struct sb_locality_result res;
	double t0 = now_s();
	int err;

	if (sbt) {
		struct sb_trace_reader *r;

		if ((err = sb_trace_open(&r, SB_TRACE_SBT, sbt, NULL)) < 0)
			die(sbt, err);
		if ((err = sb_locality_run(r, NULL, &res)) < 0)
			die("sb_locality_run", err);
		sb_trace_reader_free(r);
	} else {
		struct sb_locality *l;

		if ((err = sb_locality_new(&l, NULL)) < 0)
			die("sb_locality_new", err);
		for (size_t i = 0; i < n; i += BATCH)
			if ((err = sb_locality_feed(l, info, t + i,
			                            n - i < BATCH ? n - i : BATCH)) < 0)
				die("sb_locality_feed", err);
		if ((err = sb_locality_finish(l, info, &res)) < 0)
			die("sb_locality_finish", err);
		sb_locality_free(l);
	}
	t0 = now_s() - t0;
	*blocks = res.blocks;
	sb_locality_result_release(&res);
	return t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *what, size_t n, double *s, int reps)
{
	qsort(s, (size_t)reps, sizeof(*s), cmp_double);
	printf("%-40s %10zu accesses %8.3f s CPU %8.2f M accesses/s", what, n, s[reps / 2],
	       (double)n / s[reps / 2] / 1e6);
	if (reps > 1)
		printf("  (%d runs: %.2f .. %.2f)", reps, (double)n / s[reps - 1] / 1e6,
		       (double)n / s[0] / 1e6);
	printf("\n");
}

int main(int argc, char **argv)
{
	size_t n = 20000000;
	uint64_t blocks = 196608, probe_sum = 0;
	int reps = 3, c, err;
	char dir[256] = "", path[512];
	bool own_dir = true;
	struct sb_trace_info info;
	struct sb_trace_record *t;
	struct sb_trace_writer *w;
	uint64_t *keys, *dist, found = 0;
	double s[16];

	while ((c = getopt(argc, argv, "n:b:r:d:h")) != -1) {
		switch (c) {
		case 'n':
			n = (size_t)(strtod(optarg, NULL) * 1e6);
			break;
		case 'b':
			blocks = strtoull(optarg, NULL, 10);
			break;
		case 'r':
			reps = atoi(optarg) < 1 ? 1 : atoi(optarg) > 16 ? 16 : atoi(optarg);
			break;
		case 'd':
			snprintf(dir, sizeof(dir), "%s", optarg);
			own_dir = false;
			break;
		default:
			fprintf(stderr, "usage: sb_locality_bench [-n MILLIONS] [-b BLOCKS] "
			                "[-r REPEATS] [-d DIR]\n");
			return 2;
		}
	}
	if (n < 1000 || blocks < 3) {
		fprintf(stderr, "sb_locality_bench: -n at least 0.001, -b at least 3\n");
		return 2;
	}
	if (own_dir) {
		snprintf(dir, sizeof(dir), "/tmp/sb-locality-bench-XXXXXX");
		if (!mkdtemp(dir))
			die("mkdtemp", SB_ERR_IO);
	}
	t = make_trace(&info, n, blocks);
	keys = malloc(n * sizeof(*keys));
	dist = malloc(n * sizeof(*dist));
	if (!keys || !dist)
		die("allocating", SB_ERR_NOMEM);
	for (size_t i = 0; i < n; i++)
		keys[i] = key_of(&t[i]);
	snprintf(path, sizeof(path), "%s/trace.sbt", dir);
	if ((err = sb_trace_writer_open(&w, SB_TRACE_SBT, path, &info)) < 0 ||
	    (err = sb_trace_write(w, &info, t, n)) < 0 || (err = sb_trace_writer_close(w)) < 0)
		die(path, err);
	printf("trace: %zu accesses, %llu blocks of 64 B in 3 subpartitions\n", n,
	       (unsigned long long)blocks);

	for (int i = 0; i < reps; i++)
		s[i] = run_reuse(keys, n, dist);
	report("sb_reuse, keys in memory", n, s, reps);
	s[0] = run_probe(t, n, blocks, dist, n < 1000000 ? n : 1000000, &probe_sum);
	report("textbook Fenwick probe (baseline)", n, s, 1);
	for (int i = 0; i < reps; i++) {
		size_t m;

		s[i] = run_sbt_reuse(path, &m);
	}
	report("sbt decode + reuse distances", n, s, reps);
	for (int i = 0; i < reps; i++)
		s[i] = run_locality(&info, t, n, NULL, &found);
	report("sb_locality, records in memory", n, s, reps);
	for (int i = 0; i < reps; i++)
		s[i] = run_locality(&info, t, n, path, &found);
	report("sb_locality fed from sbt", n, s, reps);
	printf("distinct blocks found: %llu\n", (unsigned long long)found);
	if (own_dir) {
		unlink(path);
		rmdir(dir);
	}
	free(keys);
	free(dist);
	free(t);
	return 0;
}
