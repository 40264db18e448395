/* SPDX-License-Identifier: MIT */
/* What meters' reader threads share: the record accumulator and the serial-line helpers. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "instrument_internal.h"
#include "stackbench/error.h"
#include "stackbench/lock.h"

void sb_meter_acc_init(struct sb_meter_acc *a)
{
	pthread_condattr_t ca;

	memset(a, 0, sizeof(*a));
	pthread_mutex_init(&a->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&a->cond, &ca);
	pthread_condattr_destroy(&ca);
	a->last_w = a->volts = a->amps = NAN;
}

void sb_meter_acc_release(struct sb_meter_acc *a)
{
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->cond);
}

void sb_meter_acc_add(struct sb_meter_acc *a, double w, bool has_va, double v, double amps)
{
	pthread_mutex_lock(&a->lock);
	a->sum_w += w;
	a->n++;
	a->last_w = w;
	a->has_va = has_va;
	a->volts = v;
	a->amps = amps;
	a->records++;
	a->last_mono_ns = sb_inst_mono_ns();
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

void sb_meter_acc_fail(struct sb_meter_acc *a, int err, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&a->lock);
	if (!a->err) {
		a->err = err;
		va_start(ap, fmt);
		vsnprintf(a->err_msg, sizeof(a->err_msg), fmt, ap);
		va_end(ap);
	}
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

int sb_meter_acc_wait_first(struct sb_meter_acc *a, const char *conn, unsigned ms)
{
	struct timespec until;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&a->lock);
	while (!a->records && !a->err)
		if (pthread_cond_timedwait(&a->cond, &a->lock, &until) == ETIMEDOUT)
			break;
	if (a->err)
		err = sb_error_set(a->err, "%s", a->err_msg);
	else if (!a->records)
		err = sb_error_set(SB_ERR_TIMEOUT, "meter '%s' sent no reading within %.1f s", conn,
		                   ms / 1000.0);
	pthread_mutex_unlock(&a->lock);
	return err;
}

int sb_meter_acc_take(struct sb_meter_acc *a, const char *conn, unsigned stall_ms,
                      double interval_s, uint64_t t_ns, struct sb_power_reading *r)
{
	uint64_t age;
	int err = 0;

	pthread_mutex_lock(&a->lock);
	age = sb_inst_mono_ns() - a->last_mono_ns;
	if (a->err) {
		err = sb_error_set(a->err, "%s", a->err_msg);
	} else if (!a->records || age > (uint64_t)stall_ms * 1000000u) {
		err = sb_error_set(SB_ERR_TIMEOUT, "meter '%s' stalled: no reading for %.1f s",
		                   conn, (double)age / 1e9);
	} else {
		r->t_ns = t_ns;
		r->power_w = a->n ? a->sum_w / a->n : a->last_w;
		r->records = a->n;
		r->has_va = a->has_va && !isnan(a->volts) && !isnan(a->amps);
		r->volts = a->volts;
		r->amps = a->amps;
		r->interval_s = interval_s;
		a->sum_w = 0;
		a->n = 0;
	}
	pthread_mutex_unlock(&a->lock);
	return err;
}

static speed_t baud_code(unsigned baud)
{
	switch (baud) {
	case 9600:
		return B9600;
	case 19200:
		return B19200;
	case 38400:
		return B38400;
	case 57600:
		return B57600;
	default:
		return B115200;
	}
}

int sb_node_open(const char *path, int *out)
{
	struct sb_lock_holder h;
	struct stat st;
	int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), e;

	*out = -1;
	if (fd < 0) {
		e = errno;
		if (e == ENOENT || e == ENODEV || e == ENXIO)
			return sb_error_set(SB_ERR_NOT_FOUND,
			                    "'%s' does not exist: is the instrument "
			                    "plugged in? ('stackbench instruments' lists what is)",
			                    path);
		if (e == EACCES || e == EPERM)
			return sb_error_set(
			    SB_ERR_PERM,
			    "cannot open '%s': permission denied; install the udev "
			    "rules and join group 'stackbench' (docs/instruments.md)",
			    path);
		if (e == EBUSY)
			return sb_error_set(SB_ERR_BUSY, "'%s' is busy: another process holds it",
			                    path);
		return sb_error_set(SB_ERR_IO, "cannot open '%s': %s", path, strerror(e));
	}
	/* Instruments are character devices (a tty, a USBTMC node): a regular file or a block
	 * device named as one would be written to and read to its end. */
	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode)) {
		close(fd);
		return sb_error_set(SB_ERR_INVAL,
		                    "'%s' is not an instrument: not a character device (a tty or a "
		                    "USBTMC node)",
		                    path);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		sb_lock_flock_holder(fd, &h);
		close(fd);
		if (h.pid)
			return sb_error_set(SB_ERR_BUSY, "'%s' is busy, held by PID %ld (%s)", path,
			                    h.pid, h.command[0] ? h.command : "command unknown");
		return sb_error_set(
		    SB_ERR_BUSY, "'%s' is busy: another process holds it (lsof '%s')", path, path);
	}
	*out = fd;
	return 0;
}

int sb_tty_open(const char *path, unsigned baud, int *out)
{
	struct termios t;
	int fd, e;

	if ((e = sb_node_open(path, &fd)) < 0)
		return e;
	if (isatty(fd)) {
		if (tcgetattr(fd, &t) < 0) {
			e = errno;
			close(fd);
			return sb_error_set(SB_ERR_IO, "'%s': cannot read the line settings: %s",
			                    path, strerror(e));
		}
		cfmakeraw(&t);
		t.c_cflag |= CLOCAL | CREAD;
		t.c_cflag &= ~(tcflag_t)(CSTOPB | PARENB | CRTSCTS);
		cfsetispeed(&t, baud_code(baud));
		cfsetospeed(&t, baud_code(baud));
		if (tcsetattr(fd, TCSANOW, &t) < 0) {
			e = errno;
			close(fd);
			return sb_error_set(SB_ERR_IO, "'%s': cannot set %u 8N1: %s", path, baud,
			                    strerror(e));
		}
	}
	*out = fd;
	return 0;
}

int sb_fd_write_all(int fd, const void *buf, size_t len, unsigned timeout_ms)
{
	const char *p = buf;

	while (len) {
		struct pollfd pfd = {.fd = fd, .events = POLLOUT};
		ssize_t n;
		int r = poll(&pfd, 1, (int)timeout_ms);

		if (r == 0)
			return sb_error_set(SB_ERR_TIMEOUT, "write timed out");
		if (r < 0 && errno == EINTR)
			continue;
		n = write(fd, p, len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return sb_error_set(SB_ERR_IO, "write failed: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int sb_fd_read_some(int fd, void *buf, size_t cap, unsigned timeout_ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	ssize_t n;
	int r = poll(&pfd, 1, (int)timeout_ms);

	if (r == 0 || (r < 0 && errno == EINTR))
		return 0;
	if (r < 0)
		return sb_error_set(SB_ERR_IO, "poll failed: %s", strerror(errno));
	n = read(fd, buf, cap);
	if (n > 0)
		return (int)n;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	/* 0 (hang-up) or an error: the device went away. */
	return sb_error_set(SB_ERR_NOT_FOUND, "the device went away (%s)",
	                    n == 0 ? "hang-up" : strerror(errno));
}
