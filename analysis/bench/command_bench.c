/* SPDX-License-Identifier: MIT */
/*
 * sb_analysis_bench: the whole `stackbench lifetimes` and `stackbench locality` commands, timed
 * as a user runs them (a process that reads the trace, analyses it and writes its JSON report),
 * on sbt and on CSV, with one thread and with more.
 *
 *   sb_analysis_bench [-c lifetimes|locality] [-n MILLIONS] [-a ADDRESSES] [-r REPEATS]
 *                     [-j THREADS,...] [-x STACKBENCH] [-d DIR] [-S SHARDS] [-s] [-k]
 *
 * Makes a synthetic trace of MILLIONS million records (lifetimes: three buffers written and read
 * back like a systolic array's, 1 write in 4, reads of values written a few to a few thousand
 * cycles before, addresses drawn at random over ADDRESSES per buffer; locality: three accesses in
 * four near a window of recent blocks, one anywhere over ADDRESSES blocks), writes it as sbt and
 * as CSV into DIR (a temporary folder by default, removed at the end unless -k), then runs
 * STACKBENCH (default: the stackbench built beside this program) on each, REPEATS times (default
 * 3), and prints per run the records per CPU second of the whole process (user + system time of
 * the child, from wait4) and per wall-clock second, the median and the range. With -j, each
 * thread count is run with --threads N, its report compared byte for byte with the first one's,
 * and the wall-clock speed-up over the first count printed. The first lines say what was
 * measured: the stackbench binary's --version (build type, compiler, flags) and this machine's
 * processors and load. With -S, the sbt trace is also analysed in SHARDS shards (--shard,
 * --partial, one thread each) and merged (--merge): the shards' CPU time, the merge's CPU and
 * wall time against the one-process run above, the partials' size. With -s, sbt only: no CSV
 * and no engine-alone run (which holds every record in memory), for traces of 10^8 records.
 * Not a test: it asserts nothing but the identity of the reports.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/lifetime.h"
#include "stackbench/locality.h"
#include "stackbench/trace.h"
#include "stackbench/version.h"

enum { BATCH = 65536, MAX_REPEATS = 99, MAX_THREADS = 16 };

static void die(const char *what, int err)
{
	fprintf(stderr, "sb_analysis_bench: %s: %s\n", what,
	        sb_error_detail()[0] ? sb_error_detail() : sb_strerror(err));
	exit(1);
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Lifetimes: 16 records per cycle over three buffers; lanes 0..3 write (fetches into ifmap and
 * filter, stores into ofmap) a random address, the other lanes read an address written 1 to 4096
 * writes before in their buffer (recent ones more often), and one read in 64 a random address
 * (mostly unbacked).
 */
struct lt_gen {
	uint64_t x, naddr, i;
	uint64_t ring[3][4096];
	uint64_t nring[3];
};

static void lt_next(struct lt_gen *g, struct sb_trace_record *r)
{
	const uint64_t i = g->i++, cycle = i / 16, lane = i % 16, sp = lane % 3;
	const uint64_t x = xorshift(&g->x);

	memset(r, 0, sizeof(*r));
	r->time = (int64_t)cycle;
	r->subpart = (uint16_t)sp;
	r->size = 4;
	if (lane < 4 || !g->nring[sp]) {
		uint64_t a = (x >> 11) % g->naddr;

		r->kind = sp == 2 ? SB_ACC_WRITE : SB_ACC_FETCH;
		r->addr = a;
		g->ring[sp][g->nring[sp]++ % 4096] = a;
	} else if ((x & 63) == 0) {
		r->kind = SB_ACC_READ;
		r->addr = (x >> 11) % (g->naddr * 4);
	} else {
		/* back 1 .. 4096 writes, skewed towards the recent ones */
		uint64_t back = 1 + (((x >> 11) & 4095) * ((x >> 23) & 4095) >> 12);
		uint64_t n = g->nring[sp];

		r->kind = SB_ACC_READ;
		r->addr = g->ring[sp][(n - 1 - (back < n ? back : n - 1)) % 4096];
	}
	r->addr += sp * (g->naddr * 8);
}

/* Locality: as sb_locality_bench's trace (three subpartitions of 64-byte blocks). */
struct lc_gen {
	uint64_t x, blocks, i;
};

static void lc_next(struct lc_gen *g, struct sb_trace_record *r)
{
	const uint64_t i = g->i++, x = xorshift(&g->x);
	uint64_t b = x % 4 ? (i / 16 * 7 + (x >> 40) % 64) % g->blocks : (x >> 20) % g->blocks;

	memset(r, 0, sizeof(*r));
	r->time = (int64_t)(i / 16);
	r->subpart = (uint16_t)(b % 3);
	r->addr = b / 3 * 64 + (x >> 56) % 64;
	r->size = 8;
	r->kind = x % 4 == 1 ? SB_ACC_WRITE : SB_ACC_READ;
}

/* Write n records of the chosen trace to path in format fmt. */
static void write_trace(bool lifetimes, uint64_t n, uint64_t naddr, enum sb_trace_format fmt,
                        const char *path)
{
	static const char *const names[3] = {"ifmap", "filter", "ofmap"};
	struct sb_trace_record *buf = malloc(BATCH * sizeof(*buf));
	struct lt_gen *lt = calloc(1, sizeof(*lt));
	struct lc_gen lc = {88172645463325252ull, naddr, 0};
	struct sb_trace_info info;
	struct sb_trace_writer *w;
	int err;

	if (!buf || !lt)
		die("allocating", SB_ERR_NOMEM);
	lt->x = 88172645463325252ull;
	lt->naddr = naddr;
	sb_trace_info_init(&info, "bench", 1e9, "cycle");
	for (int i = 0; i < 3; i++)
		sb_trace_info_subpart(&info, names[i], SB_SUBPART_SCRATCHPAD, 1, 1);
	if ((err = sb_trace_writer_open(&w, fmt, path, &info)) < 0)
		die(path, err);
	for (uint64_t done = 0; done < n;) {
		size_t k = n - done < BATCH ? (size_t)(n - done) : BATCH;

		for (size_t j = 0; j < k; j++) {
			if (lifetimes)
				lt_next(lt, &buf[j]);
			else
				lc_next(&lc, &buf[j]);
		}
		if ((err = sb_trace_write(w, &info, buf, k)) < 0)
			die(path, err);
		done += k;
	}
	if ((err = sb_trace_writer_close(w)) < 0)
		die(path, err);
	free(lt);
	free(buf);
}

struct run {
	double cpu, wall;
};

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * The engine alone, for comparison: the sbt trace read into memory first (not timed), then the
 * engine fed and finished in this thread (its CPU time).
 */
static double engine_alone(bool lifetimes, const char *path, uint64_t n)
{
	struct sb_trace_record *t = malloc(n * sizeof(*t));
	struct sb_trace_reader *r;
	struct sb_trace_info info;
	uint64_t got = 0;
	double t0, s;
	int k, err;

	if (!t)
		die("allocating the trace", SB_ERR_NOMEM);
	if ((err = sb_trace_open(&r, SB_TRACE_SBT, path, NULL)) < 0)
		die(path, err);
	while (got < n && (k = sb_trace_read(r, t + got, n - got < BATCH ? n - got : BATCH)) > 0)
		got += (uint64_t)k;
	info = *sb_trace_reader_info(r);
	sb_trace_reader_free(r);
	t0 = cpu_s();
	if (lifetimes) {
		struct sb_lifetime *e;
		struct sb_lifetime_result res;

		if ((err = sb_lifetime_new(&e, SB_POLICY_WRITE_ALLOCATE)) < 0)
			die("engine", err);
		for (uint64_t i = 0; i < got; i += BATCH)
			if ((err = sb_lifetime_feed(e, &info, t + i,
			                            got - i < BATCH ? got - i : BATCH)) < 0)
				die("engine", err);
		if ((err = sb_lifetime_finish(e, &info, &res)) < 0)
			die("engine", err);
		s = cpu_s() - t0;
		sb_lifetime_result_release(&res);
		sb_lifetime_free(e);
	} else {
		struct sb_locality *l;
		struct sb_locality_result res;

		if ((err = sb_locality_new(&l, NULL)) < 0)
			die("engine", err);
		for (uint64_t i = 0; i < got; i += BATCH)
			if ((err = sb_locality_feed(l, &info, t + i,
			                            got - i < BATCH ? got - i : BATCH)) < 0)
				die("engine", err);
		if ((err = sb_locality_finish(l, &info, &res)) < 0)
			die("engine", err);
		s = cpu_s() - t0;
		sb_locality_result_release(&res);
		sb_locality_free(l);
	}
	free(t);
	return s;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run argv with stdout to /dev/null; its CPU time (user + system) and wall time. */
static struct run run_child(char *const *argv)
{
	struct rusage ru;
	struct run r;
	double t0;
	int status;
	pid_t pid;

	fflush(stdout); /* not twice: the child's copy of the buffer goes to /dev/null */
	t0 = mono_s();
	pid = fork();

	if (pid < 0)
		die("fork", SB_ERR_IO);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4", SB_ERR_IO);
	r.wall = mono_s() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "sb_analysis_bench: '%s %s %s' failed (status %d)\n", argv[0],
		        argv[1], argv[2], status);
		exit(1);
	}
	r.cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	        (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_run_cpu(const void *a, const void *b)
{
	double x = ((const struct run *)a)->cpu, y = ((const struct run *)b)->cpu;

	return (x > y) - (x < y);
}

static int cmp_run_wall(const void *a, const void *b)
{
	double x = ((const struct run *)a)->wall, y = ((const struct run *)b)->wall;

	return (x > y) - (x < y);
}

/* Whether two files hold the same bytes. */
static bool same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	int ca, cb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		if (ca != cb)
			same = false;
		if (ca == EOF || cb == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* The first line of a command's output (its --version). */
static void print_version(const char *exe)
{
	char cmd[4400], line[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' --version", exe);
	if ((p = popen(cmd, "r")) && fgets(line, sizeof(line), p))
		printf("measured: %s", line);
	if (p)
		pclose(p);
}

static void print_machine(void)
{
	char line[256], model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	double load[3] = {0};

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
	getloadavg(load, 3);
	printf("machine: %ld processors (%s), load average %.2f %.2f %.2f\n",
	       sysconf(_SC_NPROCESSORS_ONLN), model, load[0], load[1], load[2]);
}

/*
 * The trace in nshards shards (one thread each, one after the other, as a cluster's tasks would
 * run side by side) and their merge: the shards' CPU time (all, and the longest shard: the time
 * a cluster with a node per shard waits for them), the merge's CPU and wall time, the partials'
 * size, and whether the merged report is the one-process report (want).
 */
static void run_shards(const char *exe, const char *cmd, const char *path, const char *dir,
                       int nshards, uint64_t n, const char *want)
{
	char spec[32], part[4200], out[4200], **av = calloc((size_t)nshards + 6, sizeof(*av));
	double cpu = 0, longest = 0, bytes = 0;
	struct run m;
	struct stat st;

	if (!av)
		die("allocating", SB_ERR_NOMEM);
	for (int i = 0; i < nshards; i++) {
		char *sv[10] = {(char *)exe, (char *)cmd, (char *)path, "--shard", spec,
		                "--partial", part,        "--threads",  "1",       NULL};
		struct run r;

		snprintf(spec, sizeof(spec), "%d/%d", i, nshards);
		snprintf(part, sizeof(part), "%s/%s-%d.part", dir, cmd, i);
		r = run_child(sv);
		cpu += r.cpu;
		longest = r.cpu > longest ? r.cpu : longest;
		if (stat(part, &st) == 0)
			bytes += (double)st.st_size;
	}
	snprintf(out, sizeof(out), "%s/report-merged.json", dir);
	av[0] = (char *)exe;
	av[1] = (char *)cmd;
	av[2] = "--merge";
	for (int i = 0; i < nshards; i++) {
		snprintf(part, sizeof(part), "%s/%s-%d.part", dir, cmd, i);
		if (!(av[3 + i] = strdup(part)))
			die("allocating", SB_ERR_NOMEM);
	}
	av[3 + nshards] = "--json";
	av[4 + nshards] = out;
	m = run_child(av);
	printf(
	    "%-9s sbt %d shards: CPU %7.3f s in all, %7.3f s the longest shard; merge CPU %7.3f s, "
	    "wall %7.3f s; partials %.1f MB (%.2f bytes per record); report %s\n",
	    cmd, nshards, cpu, longest, m.cpu, m.wall, bytes / 1e6, bytes / (double)n,
	    same_file(want, out) ? "identical" : "DIFFERENT");
	for (int i = 0; i < nshards; i++)
		free(av[3 + i]);
	free(av);
}

int main(int argc, char **argv)
{
	char dirbuf[] = "/tmp/sb-analysis-bench-XXXXXX", exebuf[4096], self[4096];
	const char *dir = NULL, *cmd = "lifetimes", *exe = NULL;
	double n_m = 4;
	uint64_t naddr = 65536;
	int reps = 3, nthreads = 0, threads[MAX_THREADS], nshards = 0, c;
	bool keep = false, sbt_only = false;

	while ((c = getopt(argc, argv, "c:n:a:r:j:x:d:S:skh")) != -1) {
		switch (c) {
		case 'c':
			cmd = optarg;
			break;
		case 'n':
			n_m = strtod(optarg, NULL);
			break;
		case 'a':
			naddr = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			reps = (int)strtol(optarg, NULL, 10);
			break;
		case 'j':
			for (char *p = optarg; *p && nthreads < MAX_THREADS;) {
				threads[nthreads++] = (int)strtol(p, &p, 10);
				p += *p == ',';
			}
			break;
		case 'x':
			exe = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'k':
			keep = true;
			break;
		case 's':
			sbt_only = true;
			break;
		case 'S':
			nshards = (int)strtol(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr,
			        "usage: sb_analysis_bench [-c lifetimes|locality] [-n MILLIONS] "
			        "[-a ADDRESSES] [-r REPEATS] [-j THREADS,...] [-x STACKBENCH] "
			        "[-d DIR] [-S SHARDS] [-s] [-k]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if ((strcmp(cmd, "lifetimes") && strcmp(cmd, "locality")) || !(n_m > 0) || naddr < 64 ||
	    reps < 1 || reps > MAX_REPEATS || nshards < 0 || nshards > 4096)
		return 2;
	if (!exe) {
		/* the stackbench of this build: ../host/cli/stackbench from this program's folder */
		ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (k <= 0)
			die("finding stackbench (give -x)", SB_ERR_NOT_FOUND);
		self[k] = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(exebuf, sizeof(exebuf), "%s/../host/cli/stackbench", self);
		exe = exebuf;
	}
	if (!dir && !(dir = mkdtemp(dirbuf)))
		die("creating a temporary folder", SB_ERR_IO);
	if (!nthreads)
		threads[nthreads++] = 0; /* no --threads option: the binary's default */

	const bool lt = !strcmp(cmd, "lifetimes");
	const uint64_t n = (uint64_t)(n_m * 1e6);
	static const char *const ext[2] = {"sbt", "csv"};

	print_version(exe);
	printf("this benchmark: %s build, %s, flags %s\n", sb_build_type(), sb_build_compiler(),
	       sb_build_cflags());
	print_machine();
	printf("trace: %s, %llu records, %llu %s per buffer\n\n", cmd, (unsigned long long)n,
	       (unsigned long long)naddr, lt ? "addresses" : "blocks (all buffers)");
	for (int f = 0; f < (sbt_only ? 1 : 2); f++) {
		char path[4200], out[4200], first_out[4200], thr[16];
		double wall1 = 0;
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s-%llu-%llu.%s", dir, cmd, (unsigned long long)n,
		         (unsigned long long)naddr, ext[f]);
		if (stat(path, &st) != 0)
			write_trace(lt, n, naddr, f ? SB_TRACE_CSV : SB_TRACE_SBT, path);
		if (stat(path, &st) == 0)
			printf("%s: %.1f MB (%.2f bytes per record)\n", path,
			       (double)st.st_size / 1e6, (double)st.st_size / (double)n);
		if (f == 0 && !sbt_only) {
			double e[MAX_REPEATS];

			for (int k = 0; k < reps; k++)
				e[k] = engine_alone(lt, path, n);
			qsort(e, (size_t)reps, sizeof(*e), cmp_double);
			printf("%-9s engine alone (records in memory, this thread)  CPU %7.3f s  "
			       "%7.2f M "
			       "records/CPU-s\n",
			       cmd, e[reps / 2], (double)n / e[reps / 2] / 1e6);
		}
		for (int t = 0; t < nthreads; t++) {
			struct run runs[MAX_REPEATS], med;
			char *av[8];
			int ac = 0;

			snprintf(out, sizeof(out), "%s/report-%s-%d.json", dir, ext[f], threads[t]);
			av[ac++] = (char *)exe;
			av[ac++] = (char *)cmd;
			av[ac++] = path;
			av[ac++] = "--json";
			av[ac++] = out;
			if (threads[t]) {
				snprintf(thr, sizeof(thr), "%d", threads[t]);
				av[ac++] = "--threads";
				av[ac++] = thr;
			}
			av[ac] = NULL;
			for (int k = 0; k < reps; k++)
				runs[k] = run_child(av);
			qsort(runs, (size_t)reps, sizeof(*runs), cmp_run_cpu);
			med.cpu = runs[reps / 2].cpu;
			printf("%-9s %s threads %-4s  CPU %7.3f s  %7.2f M records/CPU-s  (%.2f .. "
			       "%.2f)",
			       cmd, ext[f], threads[t] ? thr : "dflt", med.cpu,
			       (double)n / med.cpu / 1e6, (double)n / runs[reps - 1].cpu / 1e6,
			       (double)n / runs[0].cpu / 1e6);
			qsort(runs, (size_t)reps, sizeof(*runs), cmp_run_wall);
			med.wall = runs[reps / 2].wall;
			printf("  wall %7.3f s  %7.2f M records/s", med.wall,
			       (double)n / med.wall / 1e6);
			if (t == 0) {
				wall1 = med.wall;
				snprintf(first_out, sizeof(first_out), "%s", out);
				printf("\n");
			} else {
				printf("  speed-up %.2f, report %s\n", wall1 / med.wall,
				       same_file(first_out, out) ? "identical" : "DIFFERENT");
			}
		}
		if (f == 0 && nshards > 0)
			run_shards(exe, cmd, path, dir, nshards, n, first_out);
	}
	if (!keep && dir == dirbuf) {
		char rm[4300];

		snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
		if (system(rm) != 0)
			fprintf(stderr, "sb_analysis_bench: could not remove '%s'\n", dir);
	}
	return 0;
}
