/* SPDX-License-Identifier: MIT */
/*
 * sb-rig-sim: the cooling rig without hardware. The real firmware ELF runs in simavr, in real
 * time, on the simulated board (tests/firmware/rig_board.h: thermocouples, fans, a heatsink
 * that follows the fans); its UART is a pty that the host driver opens as rig:/dev/pts/N
 * (or rig:LINK with --link). Every --period-ms of simulated time a line goes to --log:
 *
 *   t_ms duty0 duty1 rpm0 rpm1 heatsink_c
 *
 * with the fans' PWM duty (0..1) measured on the pins over that period. Runs until SIGINT or
 * SIGTERM.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig_board.h"
#include "rig_pty.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fputs("usage: sb-rig-sim --elf RIG.ELF [--link PATH] [--log FILE] [--period-ms MS]\n"
	      "                  [--ambient-c C] [--rise-still-c C] [--rise-full-c C] [--tau-s S]\n"
	      "Runs the cooling-rig firmware in simavr in real time, its UART on a pty (printed\n"
	      "on stdout; --link makes a symlink to it), the heatsink following the fans.\n",
	      f);
}

static int number(const char *opt, const char *v, double min, double max, double *out)
{
	char *end;
	double d = strtod(v, &end);

	if (end == v || *end || !(d >= min && d <= max)) {
		fprintf(stderr, "sb-rig-sim: --%s %s: expected %g..%g\n", opt, v, min, max);
		return -1;
	}
	*out = d;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"elf", required_argument, NULL, 'e'},
	                                     {"link", required_argument, NULL, 'l'},
	                                     {"log", required_argument, NULL, 'g'},
	                                     {"period-ms", required_argument, NULL, 'p'},
	                                     {"ambient-c", required_argument, NULL, 'a'},
	                                     {"rise-still-c", required_argument, NULL, 's'},
	                                     {"rise-full-c", required_argument, NULL, 'f'},
	                                     {"tau-s", required_argument, NULL, 't'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *elf = NULL, *link_path = NULL, *log_path = NULL;
	double period_ms = 100, ambient = 25, still = 50, full = 20, tau = 5;
	struct rig_board *b;
	struct rig_pty *p;
	FILE *log = NULL;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int e = 0;

		switch (c) {
		case 'e':
			elf = optarg;
			break;
		case 'l':
			link_path = optarg;
			break;
		case 'g':
			log_path = optarg;
			break;
		case 'p':
			e = number("period-ms", optarg, 1, 60000, &period_ms);
			break;
		case 'a':
			e = number("ambient-c", optarg, -40, 100, &ambient);
			break;
		case 's':
			e = number("rise-still-c", optarg, 0, 150, &still);
			break;
		case 'f':
			e = number("rise-full-c", optarg, 0, 150, &full);
			break;
		case 't':
			e = number("tau-s", optarg, 0.001, 3600, &tau);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (e < 0)
			return 2;
	}
	if (!elf || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (log_path && !(log = fopen(log_path, "a"))) {
		fprintf(stderr, "sb-rig-sim: cannot open '%s': %s\n", log_path, strerror(errno));
		return 1;
	}
	b = rig_board_new(elf);
	if (!b)
		return 1;
	rig_board_heatsink_model(b, ambient, still, full, tau);
	p = rig_pty_new(b);
	if (!p) {
		rig_board_free(b);
		return 1;
	}
	if (link_path) {
		unlink(link_path);
		if (symlink(rig_pty_path(p), link_path) < 0) {
			fprintf(stderr, "sb-rig-sim: cannot link '%s': %s\n", link_path,
			        strerror(errno));
			rc = 1;
			goto out;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("pty %s\n", rig_pty_path(p));
	fflush(stdout);
	rig_board_realtime(b, true);
	while (!stop) {
		uint64_t end = rig_board_now_us(b) + (uint64_t)(period_ms * 1000);
		struct rig_pwm_mark m;

		rig_board_pwm_mark(b, &m);
		while (!stop && rig_board_now_us(b) < end)
			if (!rig_pty_step(p, 200)) {
				fprintf(stderr, "sb-rig-sim: the core stopped\n");
				rc = 1;
				goto out;
			}
		if (log) {
			fprintf(log, "%llu %.4f %.4f %.0f %.0f %.2f\n",
			        (unsigned long long)(rig_board_now_us(b) / 1000),
			        rig_board_pwm_duty(b, &m, 0), rig_board_pwm_duty(b, &m, 1),
			        rig_board_fan_rpm(b, 0), rig_board_fan_rpm(b, 1),
			        rig_board_heatsink_c(b));
			fflush(log);
		}
	}
out:
	if (link_path)
		unlink(link_path);
	if (log)
		fclose(log);
	rig_pty_free(p);
	rig_board_free(b);
	return rc;
}
