/* SPDX-License-Identifier: MIT */
/*
 * sb_lifetime_bench: accesses per second of each trace importer and of the lifetime engine.
 *
 *   sb_lifetime_bench [-n MILLIONS] [-t TEXT_MILLIONS] [-a ADDRESSES] [-r REPEATS] [-d DIR]
 *
 * Builds a synthetic systolic-array-like trace (three buffers, writes then reads of each value,
 * ADDRESSES distinct addresses per buffer) in memory, writes it as sbt, CSV, a GPGPU-Sim log and
 * a SCALE-Sim layer folder into DIR (a temporary folder by default, removed at the end), then
 * times: the engine on records in memory, sbt decoding, the engine fed from sbt, and each text
 * importer. One thread; times are the thread's CPU time (accesses per second per core); figures
 * go to stdout. The two engine figures are the median of REPEATS runs (default 3), with the
 * range, since a machine shared with other jobs makes single runs vary. Not a test: it asserts
 * nothing.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/lifetime.h"
#include "stackbench/trace.h"

enum { BATCH = 4096 };

/*
 * CPU time of this thread: the figures are per core, and stay meaningful on a machine shared
 * with other jobs (wall-clock time would count the time slices given to them).
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "sb_lifetime_bench: %s: %s\n", what,
	        sb_error_detail()[0] ? sb_error_detail() : sb_strerror(err));
	exit(1);
}

/*
 * Per cycle, 16 accesses: every buffer value is fetched (written) once and read a few cycles
 * later, addresses walking the buffer in strides like a systolic array's.
 */
static struct sb_trace_record *make_trace(struct sb_trace_info *info, size_t n, uint64_t naddr)
{
	struct sb_trace_record *t = calloc(n, sizeof(*t));
	static const char *const names[3] = {"ifmap", "filter", "ofmap"};

	if (!t)
		die("allocating the trace", SB_ERR_NOMEM);
	sb_trace_info_init(info, "bench", 1e9, "cycle");
	for (int i = 0; i < 3; i++)
		sb_trace_info_subpart(info, names[i], SB_SUBPART_SCRATCHPAD, 1, 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t cycle = i / 16, lane = i % 16, sp = lane % 3;
		uint64_t base = (cycle * 7 + lane * 2053) % naddr;

		t[i].time = (int64_t)cycle;
		t[i].subpart = (uint16_t)sp;
		t[i].size = 1;
		/* 1 write in 4: lanes 0..3 write, the rest read values written ~4..64 cycles ago */
		if (lane < 4) {
			t[i].kind = sp == 2 ? SB_ACC_WRITE : SB_ACC_FETCH;
			t[i].addr = base;
		} else {
			t[i].kind = SB_ACC_READ;
			t[i].addr = ((cycle - (lane * 4 % 61)) * 7 + (lane % 4) * 2053) % naddr;
		}
		t[i].addr += sp * 10000000ull;
	}
	return t;
}

static void report(const char *what, size_t n, double s)
{
	printf("%-34s %12zu accesses %8.3f s CPU %10.2f M accesses/s\n", what, n, s,
	       (double)n / s / 1e6);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of reps CPU times (sorted in place), and the range of the rates. */
static void report_runs(const char *what, size_t n, double *s, int reps)
{
	qsort(s, (size_t)reps, sizeof(*s), cmp_double);
	report(what, n, s[reps / 2]);
	if (reps > 1)
		printf("%-34s median of %d runs, %.2f .. %.2f M accesses/s\n", "", reps,
		       (double)n / s[reps - 1] / 1e6, (double)n / s[0] / 1e6);
}

static size_t drain(struct sb_trace_reader *r, struct sb_lifetime *eng)
{
	struct sb_trace_record *buf = malloc(BATCH * sizeof(*buf));
	size_t total = 0;
	int n, err;

	if (!buf)
		die("allocating", SB_ERR_NOMEM);
	while ((n = sb_trace_read(r, buf, BATCH)) > 0) {
		if (eng &&
		    (err = sb_lifetime_feed(eng, sb_trace_reader_info(r), buf, (size_t)n)) < 0)
			die("engine", err);
		total += (size_t)n;
	}
	if (n < 0)
		die("reading", n);
	free(buf);
	return total;
}

static void time_reader(const char *what, enum sb_trace_format fmt, const char *path)
{
	struct sb_trace_reader *r;
	double t0 = now_s();
	size_t n;
	int err;

	if ((err = sb_trace_open(&r, fmt, path, NULL)) < 0)
		die(path, err);
	n = drain(r, NULL);
	report(what, n, now_s() - t0);
	sb_trace_reader_free(r);
}

static void write_fmt(enum sb_trace_format fmt, const char *path, struct sb_trace_info *info,
                      const struct sb_trace_record *t, size_t n)
{
	struct sb_trace_writer *w;
	int err;

	if ((err = sb_trace_writer_open(&w, fmt, path, info)) < 0)
		die(path, err);
	for (size_t i = 0; i < n; i += BATCH)
		if ((err = sb_trace_write(w, info, t + i, n - i < BATCH ? n - i : BATCH)) < 0)
			die(path, err);
	if ((err = sb_trace_writer_close(w)) < 0)
		die(path, err);
}

static void write_gpgpusim(const char *path, const struct sb_trace_record *t, size_t n)
{
	static const char *const cache[3] = {"L1D", "L1D", "L2"};
	FILE *f = fopen(path, "w");

	if (!f)
		die(path, SB_ERR_IO);
	fprintf(f, "-kernel name = bench\n-kernel id = 1\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f,
		        "GPGPU-Sim Cycle %lld: %s instr from %s cache at SM %u bank 0 addr %llx "
		        "status %d\n",
		        (long long)t[i].time, t[i].kind == SB_ACC_READ ? "Load" : "Store",
		        cache[t[i].subpart], (unsigned)(i % 80), (unsigned long long)t[i].addr * 32,
		        t[i].kind == SB_ACC_READ ? 0 : 2);
	fclose(f);
}

/* A SCALE-Sim layer folder: each buffer's reads as SRAM rows, its writes as DRAM rows. */
static void write_scalesim(const char *dir, const struct sb_trace_record *t, size_t n)
{
	static const char *const op[3] = {"IFMAP", "FILTER", "OFMAP"};
	FILE *f[6];
	char path[4200];
	int64_t row[6];

	mkdir(dir, 0777);
	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s/%s_%s_TRACE.csv", dir, op[i / 2],
		         i % 2 ? "DRAM" : "SRAM");
		if (!(f[i] = fopen(path, "w")))
			die(path, SB_ERR_IO);
		row[i] = -1;
	}
	for (size_t i = 0; i < n; i++) {
		bool wr = t[i].kind != SB_ACC_READ;
		int sp = t[i].subpart;
		int k = 2 * sp + (sp == 2 ? !wr : wr); /* ofmap: SRAM writes, DRAM reads */
		bool dram = k % 2;

		if (row[k] != t[i].time) {
			if (row[k] >= 0)
				fputc('\n', f[k]);
			fprintf(f[k], dram ? "%lld.0" : "%lld", (long long)t[i].time);
			row[k] = t[i].time;
		}
		fprintf(f[k], dram ? ",%llu.0" : ",%llu", (unsigned long long)t[i].addr);
	}
	for (int i = 0; i < 6; i++) {
		fputc('\n', f[i]);
		fclose(f[i]);
	}
}

enum { MAX_REPEATS = 99 };

int main(int argc, char **argv)
{
	double n_m = 20, text_m = 2, t0, runs[MAX_REPEATS];
	int reps = 3;
	uint64_t naddr = 65536;
	char dirbuf[] = "/tmp/sb-bench-XXXXXX", path[4200];
	const char *dir = NULL;
	struct sb_trace_info info;
	struct sb_trace_record *t;
	struct sb_lifetime *eng;
	struct sb_lifetime_result res;
	struct sb_trace_reader *r;
	size_t n, ntext;
	int c, err;

	while ((c = getopt(argc, argv, "n:t:a:r:d:h")) != -1) {
		switch (c) {
		case 'n':
			n_m = strtod(optarg, NULL);
			break;
		case 't':
			text_m = strtod(optarg, NULL);
			break;
		case 'a':
			naddr = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			reps = (int)strtol(optarg, NULL, 10);
			break;
		case 'd':
			dir = optarg;
			break;
		default:
			fprintf(stderr, "usage: sb_lifetime_bench [-n MILLIONS] [-t TEXT_MILLIONS] "
			                "[-a ADDRESSES] [-r REPEATS] [-d DIR]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!(n_m > 0) || !(text_m > 0) || naddr < 64 || reps < 1 || reps > MAX_REPEATS)
		return 2;
	if (!dir && !(dir = mkdtemp(dirbuf)))
		die("creating a temporary folder", SB_ERR_IO);
	n = (size_t)(n_m * 1e6);
	ntext = (size_t)(text_m * 1e6) < n ? (size_t)(text_m * 1e6) : n;
	t = make_trace(&info, n, naddr);
	printf("synthetic trace: %zu accesses (text formats: %zu), 3 buffers of %llu addresses\n\n",
	       n, ntext, (unsigned long long)naddr);

	/* the engine on records already in memory */
	for (int k = 0; k < reps; k++) {
		t0 = now_s();
		if ((err = sb_lifetime_new(&eng, SB_POLICY_WRITE_ALLOCATE)) < 0)
			die("engine", err);
		for (size_t i = 0; i < n; i += BATCH)
			if ((err = sb_lifetime_feed(eng, &info, t + i,
			                            n - i < BATCH ? n - i : BATCH)) < 0)
				die("engine", err);
		if ((err = sb_lifetime_finish(eng, &info, &res)) < 0)
			die("engine", err);
		runs[k] = now_s() - t0;
		sb_lifetime_free(eng);
		if (k + 1 < reps)
			sb_lifetime_result_release(&res);
	}
	report_runs("engine (records in memory)", n, runs, reps);
	printf("%-34s %llu lifetimes, %llu zero-read, %llu unbacked (ifmap)\n", "",
	       (unsigned long long)res.subparts[0].lifetimes,
	       (unsigned long long)res.subparts[0].zero_read_values,
	       (unsigned long long)res.subparts[0].unbacked_reads);
	sb_lifetime_result_release(&res);

	snprintf(path, sizeof(path), "%s/bench.sbt", dir);
	t0 = now_s();
	write_fmt(SB_TRACE_SBT, path, &info, t, n);
	report("sbt write", n, now_s() - t0);
	time_reader("sbt read", SB_TRACE_SBT, path);
	size_t m = 0;

	for (int k = 0; k < reps; k++) {
		t0 = now_s();
		if ((err = sb_trace_open(&r, SB_TRACE_SBT, path, NULL)) < 0 ||
		    (err = sb_lifetime_new(&eng, SB_POLICY_WRITE_ALLOCATE)) < 0)
			die(path, err);
		m = drain(r, eng);
		if ((err = sb_lifetime_finish(eng, sb_trace_reader_info(r), &res)) < 0)
			die("engine", err);
		runs[k] = now_s() - t0;
		sb_lifetime_result_release(&res);
		sb_lifetime_free(eng);
		sb_trace_reader_free(r);
	}
	report_runs("engine on sbt (read + lifetimes)", m, runs, reps);
	{
		struct stat st;

		if (stat(path, &st) == 0)
			printf("%-34s %.3f bytes per access\n", "sbt size",
			       (double)st.st_size / (double)n);
	}

	snprintf(path, sizeof(path), "%s/bench.csv", dir);
	write_fmt(SB_TRACE_CSV, path, &info, t, ntext);
	time_reader("csv read", SB_TRACE_CSV, path);
	snprintf(path, sizeof(path), "%s/bench.log", dir);
	write_gpgpusim(path, t, ntext);
	time_reader("gpgpusim read", SB_TRACE_GPGPUSIM, path);
	snprintf(path, sizeof(path), "%s/layer", dir);
	write_scalesim(path, t, ntext);
	time_reader("scalesim read (6 files merged)", SB_TRACE_SCALESIM, path);

	if (dir == dirbuf) {
		snprintf(path, sizeof(path), "rm -rf '%s'", dir);
		if (system(path) != 0)
			fprintf(stderr, "sb_lifetime_bench: could not remove '%s'\n", dir);
	}
	free(t);
	return 0;
}
