/* SPDX-License-Identifier: MIT */
/*
 * sb_model_bench: how fast the simulated board runs. A benchmark, not a test: it prints
 * figures. For each scenario it runs one point on `sim:` through the host's point runner with
 * fast-forward off (every request simulated) and reports simulated requests per wall-second,
 * simulated time per wall-second and the resident memory, then runs the same point twice as
 * long to show that memory does not grow with simulated duration. The last rows time
 * fast-forwarded 20 s and 200 s points.
 *
 *   sb_model_bench [--duration-us T] [--device URI]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/pattern.h"
#include "stackbench/point.h"
#include "stackbench/util.h"

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: the speed on one core, whatever else the machine runs. */
static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double rss_mib(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return (double)rss * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

struct scenario {
	const char *name;
	enum sb_req_type type;
	const char *pattern;
};

static int run(const char *uri, const struct scenario *sc, uint64_t dur_ns, bool ff, double *wall_s,
               double *cpu_s, struct sb_point_result *r)
{
	struct sb_geometry g = {16, 16, 128};
	struct sb_point_spec s;
	struct sb_device *dev;
	double t0, c0;
	int err;

	if ((err = sb_device_open(&dev, uri)) < 0)
		return err;
	sb_point_spec_init(&s, sb_device_port_count(dev));
	s.type = sc->type;
	s.size = 128;
	s.duration_ns = dur_ns;
	s.fast_forward = ff;
	s.sample_ns = dur_ns; /* one wait: measure the model, not the polling */
	if ((err = sb_pattern_masks(sc->pattern, &g, &s.mask, &s.antimask)) < 0)
		goto out;
	t0 = wall();
	c0 = cpu();
	err = sb_point_run(dev, &s, r);
	*wall_s = wall() - t0;
	*cpu_s = cpu() - c0;
out:
	sb_device_close(dev);
	return err;
}

int main(int argc, char **argv)
{
	static const struct scenario scen[] = {
	    {"ro 128 B, all ports, 16 vaults", SB_REQ_RO, "all"},
	    {"ro 128 B, one vault", SB_REQ_RO, "1vault"},
	    {"ro 128 B, one bank", SB_REQ_RO, "1bank"},
	    {"rw 128 B, all ports, 16 vaults", SB_REQ_RW, "all"},
	};
	static const struct option opts[] = {
	    {"duration-us", required_argument, NULL, 'D'},
	    {"device", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *uri = "sim:";
	uint64_t dur_us = 100000;
	int c;

	while ((c = getopt_long(argc, argv, "D:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'D':
			if (sb_parse_u64(optarg, "--duration-us", false, &dur_us) < 0 || !dur_us) {
				fprintf(stderr, "sb_model_bench: %s\n", sb_error_detail());
				return 2;
			}
			break;
		case 'd':
			uri = optarg;
			break;
		case 'h':
			printf("usage: sb_model_bench [--duration-us T] [--device URI]\n");
			return 0;
		default:
			return 2;
		}
	}
	printf("# simulated board speed, every request simulated (fast-forward off), %llu us of\n"
	       "# bench time per scenario, then 2x as long to check memory\n",
	       (unsigned long long)dur_us);
	printf("%-32s %10s %11s %10s %13s %7s %8s %7s\n", "scenario", "requests", "Mreq/wall-s",
	       "Mreq/cpu-s", "sim-ms/cpu-s", "GB/s", "RSS MiB", "RSS 2x");
	for (size_t i = 0; i < sizeof(scen) / sizeof(scen[0]); i++) {
		struct sb_point_result r, r2;
		double w, w2, cs, cs2, rss1, rss2;
		uint64_t reqs;

		if (run(uri, &scen[i], dur_us * 1000, false, &w, &cs, &r) < 0)
			goto fail;
		rss1 = rss_mib();
		if (run(uri, &scen[i], 2 * dur_us * 1000, false, &w2, &cs2, &r2) < 0)
			goto fail;
		rss2 = rss_mib();
		reqs = r.total.reads + r.total.writes;
		printf("%-32s %10llu %11.2f %10.2f %13.3f %7.2f %8.1f %7.1f\n", scen[i].name,
		       (unsigned long long)reqs, reqs / w / 1e6, reqs / cs / 1e6,
		       r.duration_ns / 1e6 / cs, r.metrics.bandwidth_gbps, rss1, rss2);
	}
	printf("\n# fast-forwarded points (steady state detected, then extrapolated)\n");
	printf("%-34s %12s %14s %10s %12s\n", "scenario", "bench s", "wall s", "GB/s",
	       "ff skipped s");
	for (unsigned secs = 20; secs <= 200; secs *= 10) {
		for (size_t i = 0; i < sizeof(scen) / sizeof(scen[0]); i += 3) {
			struct sb_point_result r;
			double w, cs;

			if (run(uri, &scen[i], secs * 1000000000ull, true, &w, &cs, &r) < 0)
				goto fail;
			printf("%-34s %12u %14.3f %10.2f %12.3f\n", scen[i].name, secs, w,
			       r.metrics.bandwidth_gbps, r.ff_skipped_ns / 1e9);
		}
	}
	return 0;
fail:
	fprintf(stderr, "sb_model_bench: %s\n", sb_error_detail());
	return 1;
}
