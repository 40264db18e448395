/* SPDX-License-Identifier: MIT */
/* The simulated rig's UART on a pty (rig_pty.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "rig_pty.h"

struct rig_pty {
	struct rig_board *b;
	int master, slave; /* the slave stays open: the master never sees a hang-up */
	char path[64];
	pthread_t thread;
	pthread_mutex_t lock;
	bool running, stop;
};

struct rig_pty *rig_pty_new(struct rig_board *b)
{
	struct rig_pty *p = calloc(1, sizeof(*p));
	struct termios tio;

	if (!p)
		return NULL;
	p->b = b;
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (p->master < 0 || grantpt(p->master) < 0 || unlockpt(p->master) < 0 ||
	    ptsname_r(p->master, p->path, sizeof(p->path)) != 0) {
		fprintf(stderr, "rig_pty: cannot make a pty: %s\n", strerror(errno));
		goto fail;
	}
	p->slave = open(p->path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->slave < 0 || tcgetattr(p->slave, &tio) < 0) {
		fprintf(stderr, "rig_pty: cannot open '%s': %s\n", p->path, strerror(errno));
		goto fail;
	}
	/* Raw until the host sets its own mode: no echo, no line discipline. */
	cfmakeraw(&tio);
	tcsetattr(p->slave, TCSANOW, &tio);
	pthread_mutex_init(&p->lock, NULL);
	return p;

fail:
	if (p->master >= 0)
		close(p->master);
	free(p);
	return NULL;
}

const char *rig_pty_path(const struct rig_pty *p)
{
	return p->path;
}

bool rig_pty_step(struct rig_pty *p, uint64_t us)
{
	uint8_t buf[256];
	ssize_t n;
	size_t m;

	while ((n = read(p->master, buf, sizeof(buf))) > 0)
		rig_board_send(p->b, buf, (size_t)n);
	if (!rig_board_run_us(p->b, us))
		return false;
	while ((m = rig_board_recv(p->b, buf, sizeof(buf))) > 0) {
		size_t off = 0;

		while (off < m) {
			n = write(p->master, buf + off, m - off);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				return true; /* nobody reads: the bytes are lost, as on a line */
			if (n > 0)
				off += (size_t)n;
		}
	}
	return true;
}

static double wall_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Steps in real time; the board is unlocked while the thread waits for the clock. Like
 * rig_board_realtime, a simulation that fell behind does not race to catch up. */
static void *bridge_main(void *arg)
{
	struct rig_pty *p = arg;
	double w0 = wall_s();
	uint64_t s0;

	pthread_mutex_lock(&p->lock);
	s0 = rig_board_now_us(p->b);
	pthread_mutex_unlock(&p->lock);
	for (;;) {
		double ahead_s;
		bool ok;

		pthread_mutex_lock(&p->lock);
		if (p->stop) {
			pthread_mutex_unlock(&p->lock);
			break;
		}
		ok = rig_pty_step(p, 200);
		ahead_s = (double)(rig_board_now_us(p->b) - s0) * 1e-6 - (wall_s() - w0);
		if (ahead_s < -0.02) { /* behind (a loaded machine): no catch-up burst */
			s0 = rig_board_now_us(p->b);
			w0 = wall_s() - 0.02;
		}
		pthread_mutex_unlock(&p->lock);
		if (!ok)
			break;
		if (ahead_s > 0)
			nanosleep(&(struct timespec){0, (long)(ahead_s * 1e9)}, NULL);
		else
			sched_yield();
	}
	return NULL;
}

int rig_pty_start(struct rig_pty *p)
{
	if (pthread_create(&p->thread, NULL, bridge_main, p))
		return -1;
	p->running = true;
	return 0;
}

void rig_pty_lock(struct rig_pty *p)
{
	pthread_mutex_lock(&p->lock);
}

void rig_pty_unlock(struct rig_pty *p)
{
	pthread_mutex_unlock(&p->lock);
}

void rig_pty_free(struct rig_pty *p)
{
	if (!p)
		return;
	if (p->running) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
	}
	close(p->slave);
	close(p->master);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
