/* SPDX-License-Identifier: MIT */
/*
 * The cooling rig's byte pipes (rig_internal.h): a tty through termios (/dev/ttyUSB0 of the
 * ftdi_sio driver, or any tty, a pty included) and the FT232R directly through libftdi. They
 * differ only in open, read, write and flush; the client above them is the same code.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftdi.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "instrument_internal.h"
#include "rig_internal.h"
#include "stackbench/error.h"
#include "stackbench/util.h"

#define FTDI_VID 0x0403
#define FTDI_PID_FT232R 0x6001
#define FTDI_LATENCY_MS 2 /* the FT232R sends what it has every 2 ms (default 16) */
#define WRITE_TIMEOUT_MS 1000

static int64_t mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ---- tty ---------------------------------------------------------------------------------- */

struct tty {
	int fd;
	char path[128];
};

static int tty_write(void *priv, const uint8_t *p, size_t n)
{
	struct tty *t = priv;
	int64_t end = mono_ms() + WRITE_TIMEOUT_MS;

	while (n) {
		ssize_t w = write(t->fd, p, n);

		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return sb_error_set(SB_ERR_IO, "cooling rig '%s': write: %s", t->path,
			                    strerror(errno));
		if (mono_ms() >= end)
			return sb_error_set(SB_ERR_TIMEOUT, "cooling rig '%s': write timed out",
			                    t->path);
		poll(&(struct pollfd){.fd = t->fd, .events = POLLOUT}, 1, 10);
	}
	return 0;
}

static int tty_read(void *priv, uint8_t *p, size_t cap, int timeout_ms)
{
	struct tty *t = priv;
	struct pollfd pfd = {.fd = t->fd, .events = POLLIN};
	int r = poll(&pfd, 1, timeout_ms);
	ssize_t n;

	if (r < 0 && errno == EINTR)
		return 0;
	if (r < 0)
		return sb_error_set(SB_ERR_IO, "cooling rig '%s': poll: %s", t->path,
		                    strerror(errno));
	if (r == 0)
		return 0;
	if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL) && !(pfd.revents & POLLIN))
		return sb_error_set(SB_ERR_IO, "cooling rig '%s': the line hung up", t->path);
	n = read(t->fd, p, cap);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n < 0)
		return sb_error_set(SB_ERR_IO, "cooling rig '%s': read: %s", t->path,
		                    strerror(errno));
	return (int)n;
}

static int tty_flush(void *priv)
{
	struct tty *t = priv;

	tcflush(t->fd, TCIFLUSH);
	return 0;
}

static void tty_close(void *priv)
{
	struct tty *t = priv;

	close(t->fd);
	free(t);
}

static const struct sb_rig_link_ops tty_ops = {
    .write = tty_write,
    .read = tty_read,
    .flush = tty_flush,
    .close = tty_close,
};

static int tty_open(struct sb_rig_link *l, const char *path)
{
	struct termios tio;
	struct tty *t;
	int err;

	t = calloc(1, sizeof(*t));
	if (!t)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening '%s'", path);
	sb_strlcpy(t->path, path, sizeof(t->path));
	/* One host per rig (a second process would interleave frames): the node is locked, with
	   the errors and hints of every instrument on a node */
	if ((err = sb_node_open(path, &t->fd)) < 0)
		goto fail_open;
	if (!isatty(t->fd)) {
		err = sb_error_set(SB_ERR_IO, "'%s' is not a tty", path);
		goto fail_tty;
	}
	if (tcgetattr(t->fd, &tio) < 0) {
		err = sb_error_set(SB_ERR_IO, "'%s': tcgetattr: %s", path, strerror(errno));
		goto fail_tty;
	}
	cfmakeraw(&tio);
	tio.c_cflag |= CLOCAL | CREAD;
	tio.c_cflag &= ~(tcflag_t)(CSTOPB | PARENB | CRTSCTS);
	tio.c_cc[VMIN] = 0;
	tio.c_cc[VTIME] = 0;
	if (cfsetispeed(&tio, B500000) < 0 || cfsetospeed(&tio, B500000) < 0 ||
	    tcsetattr(t->fd, TCSANOW, &tio) < 0) {
		err = sb_error_set(SB_ERR_IO, "'%s': cannot set 500000 baud 8N1: %s", path,
		                   strerror(errno));
		goto fail_tty;
	}
	tcflush(t->fd, TCIOFLUSH);
	l->ops = &tty_ops;
	l->priv = t;
	sb_strlcpy(l->name, path, sizeof(l->name));
	return 0;

fail_tty:
	close(t->fd);
fail_open:
	free(t);
	return err;
}

/* ---- FT232R through libftdi ---------------------------------------------------------------- */

struct ftdi {
	struct ftdi_context *ctx;
	char name[128];
};

static int ftdi_error(struct ftdi *f, const char *what, int rc)
{
	return sb_error_set(SB_ERR_IO, "cooling rig '%s': %s: %s (%d)", f->name, what,
	                    ftdi_get_error_string(f->ctx), rc);
}

static int ftdi_write(void *priv, const uint8_t *p, size_t n)
{
	struct ftdi *f = priv;

	while (n) {
		int w = ftdi_write_data(f->ctx, p, (int)n);

		if (w < 0)
			return ftdi_error(f, "write", w);
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int ftdi_read(void *priv, uint8_t *p, size_t cap, int timeout_ms)
{
	struct ftdi *f = priv;
	int64_t end = mono_ms() + timeout_ms;

	/* Each read returns after the latency timer with what the chip has (maybe nothing). */
	for (;;) {
		int r = ftdi_read_data(f->ctx, p, (int)cap);

		if (r < 0)
			return ftdi_error(f, "read", r);
		if (r > 0 || mono_ms() >= end)
			return r;
		nanosleep(&(struct timespec){0, 500000}, NULL);
	}
}

static int ftdi_flush(void *priv)
{
	struct ftdi *f = priv;
	int rc = ftdi_tciflush(f->ctx);

	return rc < 0 ? ftdi_error(f, "flush", rc) : 0;
}

static void ftdi_close(void *priv)
{
	struct ftdi *f = priv;

	ftdi_usb_close(f->ctx);
	ftdi_free(f->ctx);
	free(f);
}

static const struct sb_rig_link_ops ftdi_ops = {
    .write = ftdi_write,
    .read = ftdi_read,
    .flush = ftdi_flush,
    .close = ftdi_close,
};

static int ftdi_open(struct sb_rig_link *l, const char *serial)
{
	struct ftdi *f = calloc(1, sizeof(*f));
	int rc, err;

	if (!f)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening an FT232R");
	snprintf(f->name, sizeof(f->name), "FT232R %04x:%04x%s%s", FTDI_VID, FTDI_PID_FT232R,
	         serial ? " serial " : "", serial ? serial : "");
	f->ctx = ftdi_new();
	if (!f->ctx) {
		free(f);
		return sb_error_set(SB_ERR_NOMEM, "out of memory for libftdi");
	}
	rc = ftdi_usb_open_desc(f->ctx, FTDI_VID, FTDI_PID_FT232R, NULL, serial);
	if (rc < 0) {
		/* libftdi 1.5: -3 no device; -4 its node cannot be opened (permissions), -8
		 * claiming refused for lack of permission; -5 claimed (ftdi_sio, another
		 * process); anything else: the chip refused a request (reset, baud rate). */
		bool perm = rc == -4 || rc == -8;

		err =
		    sb_error_set(rc == -3   ? SB_ERR_NOT_FOUND
		                 : perm     ? SB_ERR_PERM
		                 : rc == -5 ? SB_ERR_BUSY
		                            : SB_ERR_IO,
		                 "cannot open the %s: %s%s", f->name, ftdi_get_error_string(f->ctx),
		                 perm ? "; permission denied: install the udev rules and join "
		                        "group 'stackbench' (docs/instruments.md)"
		                      : "");
		goto fail_open;
	}
	f->ctx->usb_read_timeout = 100;
	f->ctx->usb_write_timeout = WRITE_TIMEOUT_MS;
	if ((rc = ftdi_set_baudrate(f->ctx, (int)SB_RIG_BAUD)) < 0) {
		err = ftdi_error(f, "set 500000 baud", rc);
		goto fail_setup;
	}
	if ((rc = ftdi_set_line_property(f->ctx, BITS_8, STOP_BIT_1, NONE)) < 0 ||
	    (rc = ftdi_setflowctrl(f->ctx, SIO_DISABLE_FLOW_CTRL)) < 0 ||
	    (rc = ftdi_set_latency_timer(f->ctx, FTDI_LATENCY_MS)) < 0 ||
	    (rc = ftdi_tcioflush(f->ctx)) < 0) {
		err = ftdi_error(f, "set 8N1, no flow control, latency, flush", rc);
		goto fail_setup;
	}
	l->ops = &ftdi_ops;
	l->priv = f;
	sb_strlcpy(l->name, f->name, sizeof(l->name));
	return 0;

fail_setup:
	ftdi_usb_close(f->ctx);
fail_open:
	ftdi_free(f->ctx);
	free(f);
	return err;
}

/* ---- choice ------------------------------------------------------------------------------- */

int sb_rig_link_open(struct sb_rig_link *l, const char *where)
{
	memset(l, 0, sizeof(*l));
	if (!strcmp(where, "ftdi"))
		return ftdi_open(l, NULL);
	if (!strncmp(where, "ftdi:", 5)) {
		if (!where[5] || strlen(where + 5) > 64)
			return sb_error_set(SB_ERR_URI, "cooling rig 'ftdi:%s': bad serial number",
			                    where + 5);
		return ftdi_open(l, where + 5);
	}
	if (where[0] != '/')
		return sb_error_set(SB_ERR_URI,
		                    "cooling rig '%s': expected ftdi, ftdi:SERIAL or a tty path "
		                    "(/dev/ttyUSB0)",
		                    where);
	return tty_open(l, where);
}

void sb_rig_link_close(struct sb_rig_link *l)
{
	if (l->ops)
		l->ops->close(l->priv);
	memset(l, 0, sizeof(*l));
}
