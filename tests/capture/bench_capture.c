/* SPDX-License-Identifier: MIT */
/*
 * sb_capture_bench: the speed of trace capture and trace replay on the simulated board (a
 * benchmark: it prints figures, it asserts nothing).
 *
 *   capture  the same full-rate GUPS point (9 ports, 16 vaults, ro 128 B, every request
 *            simulated) without capture, with the default sampled capture (bursts of 1024,
 *            gaps of 15360 cycles: on-chip polling) and with a complete capture (every request:
 *            the automatic path, the DMA ring on sim:; and, for comparison, the same drained
 *            by register polling, --trace-path onchip); the cost is the ratio of CPU times. The
 *            same point with fast-forward (no capture) is shown for reference.
 *   replay   a synthetic trace of N requests (random addresses, 64 B, one request per cycle
 *            at the trace's pace) written as sbt, replayed through sim: as fast as the board
 *            accepts and in time order, without and with a complete capture of the replay;
 *            requests per CPU second include reading the sbt, building descriptors, the ring,
 *            the model and (with --trace) draining and writing the capture.
 *
 * usage: sb_capture_bench [-d DURATION_US] [-n REQUESTS] [-r REPEATS] [-t TMPDIR]
 * Times are CPU seconds of this process (the figure that counts on a shared machine) and the
 * median of REPEATS runs, with wall time beside them.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stackbench/capture.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/point.h"
#include "stackbench/replay.h"
#include "stackbench/trace.h"

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double wall_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what)
{
	fprintf(stderr, "sb_capture_bench: %s: %s\n", what, sb_error_detail());
	exit(1);
}

enum cap_mode { NONE, NONE_FF, SAMPLED, COMPLETE, COMPLETE_ONCHIP };

/* One point; returns CPU seconds, *wall wall seconds, *requests simulated, *records, *drain
 * the drain the capture took. */
static double run_point(uint64_t us, enum cap_mode mode, const char *tmp, double *wall,
                        uint64_t *requests, uint64_t *records, const char **drain)
{
	struct sb_point_spec spec;
	struct sb_point_result res;
	struct sb_capture_config cfg;
	struct sb_capture_stats st;
	struct sb_device *dev;
	char path[512];
	double c0, w0, c;

	if (sb_device_open(&dev, "sim:") < 0)
		die("sim:");
	sb_point_spec_init(&spec, sb_device_port_count(dev));
	spec.duration_ns = us * 1000;
	spec.fast_forward = mode == NONE_FF;
	sb_capture_config_init(&cfg);
	if (mode >= COMPLETE) {
		cfg.burst_records = 0;
		cfg.gap_cycles = 0;
	}
	cfg.path = mode == COMPLETE_ONCHIP ? SB_CAPTURE_ONCHIP : SB_CAPTURE_AUTO;
	snprintf(path, sizeof(path), "%s/bench-capture.sbt", tmp);
	c0 = cpu_s();
	w0 = wall_s();
	if (mode >= SAMPLED && sb_capture_open(&spec.capture, dev, &cfg, path) < 0)
		die("capture");
	if (sb_point_run(dev, &spec, &res) < 0)
		die("point");
	*records = 0;
	*drain = "-";
	if (spec.capture) {
		if (sb_capture_close(spec.capture, &st) < 0)
			die("capture close");
		*records = st.records;
		*drain = st.path == SB_CAPTURE_DMA ? "dma" : "onchip";
		if (st.dropped + st.corrupt + st.late)
			fprintf(stderr, "sb_capture_bench: the capture lost %llu records\n",
			        (unsigned long long)(st.dropped + st.corrupt + st.late));
	}
	c = cpu_s() - c0;
	*wall = wall_s() - w0;
	*requests = res.total.reads + res.total.writes;
	sb_device_close(dev);
	unlink(path);
	return c;
}

static void bench_capture(uint64_t us, int reps, const char *tmp)
{
	static const struct {
		enum cap_mode mode;
		const char *name;
	} modes[] = {
	    {NONE_FF, "no capture, fast-forward"},
	    {NONE, "no capture"},
	    {SAMPLED, "sampled capture (1024 / 15360)"},
	    {COMPLETE, "complete capture (every request)"},
	    {COMPLETE_ONCHIP, "complete, on-chip polling"},
	};
	double base = 0;

	printf("capture: full-rate point (9 ports, 16 vaults, ro 128 B), %llu us simulated, "
	       "median of %d\n",
	       (unsigned long long)us, reps);
	printf("  %-34s %-7s %10s %10s %10s %12s %8s\n", "mode", "path", "cpu_s", "wall_s",
	       "requests", "records", "cost");
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		double cpu[64], wall[64], c;
		uint64_t req = 0, rec = 0;
		const char *path = "-";

		for (int i = 0; i < reps; i++)
			cpu[i] = run_point(us, modes[m].mode, tmp, &wall[i], &req, &rec, &path);
		c = median(cpu, reps);
		if (modes[m].mode == NONE)
			base = c;
		printf("  %-34s %-7s %10.4f %10.4f %10llu %12llu", modes[m].name, path, c,
		       median(wall, reps), (unsigned long long)req, (unsigned long long)rec);
		if (modes[m].mode >= SAMPLED && base > 0)
			printf(" %7.2fx\n", c / base);
		else
			printf(" %8s\n", "-");
	}
	printf("  (cost: CPU time over that of the same point without capture, every request "
	       "simulated)\n");
}

/* A trace of n 64-byte requests, one per cycle at 187.5 MHz, random addresses (1/4 writes). */
static void make_trace(const char *path, uint64_t n)
{
	struct sb_trace_writer *w;
	struct sb_trace_info *info = malloc(sizeof(*info));
	struct sb_trace_record *r = calloc(65536, sizeof(*r));
	uint64_t x = 0x9E3779B97F4A7C15ull;

	if (!info || !r)
		die("memory");
	sb_trace_info_init(info, "bench", 187.5e6, "cycle");
	if (sb_trace_info_subpart(info, "mem", SB_SUBPART_SCRATCHPAD, 1, 16) < 0 ||
	    sb_trace_writer_open(&w, SB_TRACE_SBT, path, info) < 0)
		die("trace");
	for (uint64_t i = 0; i < n;) {
		size_t k = 0;

		for (; k < 65536 && i < n; k++, i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			r[k].time = (int64_t)i;
			r[k].addr = x & 0x3FFFFFFC0ull;
			r[k].size = 64;
			r[k].kind = (x >> 40) % 4 == 0 ? SB_ACC_WRITE : SB_ACC_READ;
		}
		if (sb_trace_write(w, info, r, k) < 0)
			die("trace write");
	}
	if (sb_trace_writer_close(w) < 0)
		die("trace close");
	free(r);
	free(info);
}

static double run_replay(const char *in, double speed, const char *trace, double *wall,
                         uint64_t *issued, double *sim_s)
{
	struct sb_replay_config cfg;
	struct sb_replay_result res;
	struct sb_capture_config cc;
	struct sb_capture *cap = NULL;
	struct sb_trace_reader *r;
	struct sb_device *dev;
	double c0 = cpu_s(), w0 = wall_s(), c;

	sb_replay_config_init(&cfg);
	cfg.speed = speed;
	if (sb_device_open(&dev, "sim:") < 0 || sb_trace_open(&r, SB_TRACE_SBT, in, NULL) < 0)
		die("open");
	sb_capture_config_init(&cc);
	cc.burst_records = 0;
	cc.gap_cycles = 0;
	if (trace && sb_capture_open(&cap, dev, &cc, trace) < 0)
		die("capture");
	if (sb_replay_run(dev, r, &cfg, cap, &res) < 0)
		die("replay");
	if (cap && sb_capture_close(cap, NULL) < 0)
		die("capture close");
	c = cpu_s() - c0;
	*wall = wall_s() - w0;
	*issued = res.issued;
	*sim_s = res.duration_ns * 1e-9;
	sb_trace_reader_free(r);
	sb_device_close(dev);
	if (trace)
		unlink(trace);
	return c;
}

static void bench_replay(uint64_t n, int reps, const char *tmp)
{
	char in[512], out[512];
	static const struct {
		const char *name;
		double speed;
		bool trace;
	} modes[] = {
	    {"as fast as the board accepts", 0, false},
	    {"in time order (1 request / cycle)", 1, false},
	    {"as fast as accepted, --trace", 0, true},
	    {"in time order, --trace", 1, true},
	};

	snprintf(in, sizeof(in), "%s/bench-replay-in.sbt", tmp);
	snprintf(out, sizeof(out), "%s/bench-replay-out.sbt", tmp);
	make_trace(in, n);
	printf("replay: %llu requests of 64 B (random addresses) from sbt through sim:, median of "
	       "%d\n",
	       (unsigned long long)n, reps);
	printf("  %-36s %10s %10s %12s %12s %12s\n", "mode", "cpu_s", "wall_s", "issued",
	       "M req/cpu-s", "simulated_ms");
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		double cpu[64], wall[64], sim = 0, c;
		uint64_t issued = 0;

		for (int i = 0; i < reps; i++)
			cpu[i] = run_replay(in, modes[m].speed, modes[m].trace ? out : NULL,
			                    &wall[i], &issued, &sim);
		c = median(cpu, reps);
		printf("  %-36s %10.3f %10.3f %12llu %12.2f %12.3f\n", modes[m].name, c,
		       median(wall, reps), (unsigned long long)issued, (double)issued / c / 1e6,
		       sim * 1e3);
	}
	unlink(in);
}

int main(int argc, char **argv)
{
	uint64_t us = 20000, n = 4000000;
	int reps = 3, c;
	const char *tmp = "/tmp";

	while ((c = getopt(argc, argv, "d:n:r:t:h")) != -1) {
		switch (c) {
		case 'd':
			us = strtoull(optarg, NULL, 10);
			break;
		case 'n':
			n = strtoull(optarg, NULL, 10);
			break;
		case 'r':
			reps = (int)strtol(optarg, NULL, 10);
			if (reps < 1 || reps > 64)
				reps = 3;
			break;
		case 't':
			tmp = optarg;
			break;
		default:
			fprintf(stderr,
			        "usage: sb_capture_bench [-d DURATION_US] [-n REQUESTS] [-r "
			        "REPEATS] [-t TMPDIR]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	sb_log_set_level(SB_LOG_ERROR);
	bench_capture(us, reps, tmp);
	bench_replay(n, reps, tmp);
	return 0;
}
