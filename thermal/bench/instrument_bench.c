/* SPDX-License-Identifier: MIT */
/*
 * What sampling the instruments costs: the CPU time of the reader threads.
 *
 *   umockdev-run --device R.umockdev --ioctl /dev/bus/usb/001/005=R.ioctl -- \
 *       instrument_bench [SECONDS]
 *
 * (R: a replay made by tests/instruments/gen_flirone_replay from the real capture, or run it
 * on a bench with a FLIR One attached and no umockdev.)
 *
 * Camera: "flirone:" runs for SECONDS (default 5) while the main thread takes a sample every
 * 100 ms; the process's CPU time minus the main thread's is the reader thread's. A real camera
 * sends ~9 frames/s; the replay sends them as fast as they are read, so the figure reported is
 * the reader's CPU time per frame, and its share at 9 frames/s (an upper bound: the replay's
 * ioctl round trips through umockdev cost more than a kernel URB).
 * Meter: a Watts up? PRO simulator on a pty sends its 1 s records; "wattsup:PTY" runs for
 * SECONDS; its reader's CPU share is measured as it is.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/instrument.h"
#include "stackbench/log.h"

static unsigned long long frames;

static void sink(void *ctx, enum sb_log_level level, const char *msg)
{
	const char *p = strstr(msg, "': ");

	(void)ctx;
	(void)level;
	if (p && strstr(msg, "FLIR One") && strstr(msg, " frames, "))
		frames = strtoull(p + 3, NULL, 10);
}

static double ts(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec * 1e-9;
}

static double process_cpu_s(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6 +
	       (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6;
}

static double thread_cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return ts(&t);
}

static double wall_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ts(&t);
}

/* Sample every 100 ms for seconds; returns the readers' CPU seconds and the wall time. */
static int run(struct sb_temp_source *cam, struct sb_power_source *meter, double seconds,
               double *reader_cpu, double *wall)
{
	double p0 = process_cpu_s(), m0 = thread_cpu_s(), w0 = wall_s();

	while (wall_s() - w0 < seconds) {
		struct sb_temp_reading t;
		struct sb_power_reading p;

		nanosleep(&(struct timespec){0, 100000000}, NULL);
		if ((cam && sb_temp_source_sample(cam, &t) < 0) ||
		    (meter && sb_power_source_sample(meter, &p) < 0)) {
			fprintf(stderr, "instrument_bench: %s\n", sb_error_detail());
			return 1;
		}
	}
	*wall = wall_s() - w0;
	*reader_cpu = (process_cpu_s() - p0) - (thread_cpu_s() - m0);
	return 0;
}

/* A Watts up? PRO on the master side of a pty: one record a second. */
static void wattsup_sim(int fd, double seconds)
{
	static const char rec[] = "#d,-,18,1234,1201,1027,55,_,_,_,1300,1210,1100,1200,1190,"
	                          "1000,100,0,0,600,1239;\r\n";
	double end = wall_s() + seconds + 5;

	while (wall_s() < end) {
		if (write(fd, rec, sizeof(rec) - 1) < 0)
			return;
		sleep(1);
	}
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? strtod(argv[1], NULL) : 5, cpu, wall;
	struct sb_temp_source *cam;
	struct sb_power_source *meter;
	char path[128], conn[160];
	int master, rc;
	pid_t pid;

	if (!(seconds > 0.5 && seconds < 3600)) {
		fprintf(stderr, "usage: instrument_bench [SECONDS]\n");
		return 2;
	}
	sb_log_set_sink(sink, NULL);
	sb_log_set_level(SB_LOG_INFO);
	if (sb_temp_source_open(&cam, "flirone:", NULL) < 0) {
		fprintf(stderr, "instrument_bench: %s\n", sb_error_detail());
		return 1;
	}
	rc = run(cam, NULL, seconds, &cpu, &wall);
	sb_temp_source_close(cam);
	if (rc)
		return rc;
	printf("camera (flirone:, replayed, unpaced): %llu frames in %.2f s (%.0f frames/s), "
	       "reader CPU %.3f s = %.1f %% of one core\n",
	       frames, wall, frames / wall, cpu, 100 * cpu / wall);
	if (frames)
		printf(
		    "camera: %.1f us of reader CPU per frame; at 9 frames/s: %.3f %% of one core\n",
		    1e6 * cpu / (double)frames, 100 * 9 * cpu / (double)frames);

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 ||
	    ptsname_r(master, path, sizeof(path))) {
		perror("instrument_bench: pty");
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		wattsup_sim(master, seconds);
		_exit(0);
	}
	snprintf(conn, sizeof(conn), "wattsup:%s", path);
	if (sb_power_source_open(&meter, conn, NULL) < 0) {
		fprintf(stderr, "instrument_bench: %s\n", sb_error_detail());
		kill(pid, SIGTERM);
		return 1;
	}
	rc = run(NULL, meter, seconds, &cpu, &wall);
	sb_power_source_close(meter);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	if (rc)
		return rc;
	printf("meter (wattsup: on a pty, 1 record/s): reader CPU %.4f s in %.2f s = %.3f %% of "
	       "one core\n",
	       cpu, wall, 100 * cpu / wall);
	return 0;
}
