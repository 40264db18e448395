/* SPDX-License-Identifier: MIT */
/*
 * Watts up? PRO power meter: the transports. The meter is an FTDI FT232R USB-serial bridge at
 * 115200 8N1; wattsup:/dev/ttyUSBn reads it through the kernel's ftdi_sio, wattsup:ftdi[:SERIAL]
 * through libftdi (no kernel driver, no tty). Open starts external logging every second
 * ("#L,W,3,E,,1;"); a reader thread turns the byte stream into records (meters.c) and keeps
 * their mean; close puts the meter back to internal logging ("#L,W,3,I,,1;").
 */
#include <ftdi.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "instrument_internal.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/meters.h"
#include "stackbench/util.h"

#define WATTSUP_BAUD 115200
#define WATTSUP_INTERVAL_S 1.0
#define WATTSUP_START "#L,W,3,E,,1;"
#define WATTSUP_STOP "#L,W,3,I,,1;"
#define FIRST_RECORD_MS 3500

struct wattsup {
	char conn[256];
	struct sb_device *dev;
	int fd;                 /* tty transport, or -1 */
	struct ftdi_context *f; /* libftdi transport, or NULL */
	bool f_open;
	pthread_t thread;
	bool thread_running;
	atomic_bool stop;
	struct sb_wattsup_lines lines;
	struct sb_meter_acc acc;
	unsigned stall_ms;
};

static int wattsup_write(struct wattsup *w, const char *cmd)
{
	size_t len = strlen(cmd);

	if (w->f) {
		int n = ftdi_write_data(w->f, (const unsigned char *)cmd, (int)len);

		return n == (int)len ? 0
		                     : sb_error_set(SB_ERR_IO, "'%s': write failed: %s", w->conn,
		                                    ftdi_get_error_string(w->f));
	}
	return sb_fd_write_all(w->fd, cmd, len, 1000);
}

static void on_record(void *ctx, const struct sb_wattsup_record *r)
{
	struct wattsup *w = ctx;

	sb_meter_acc_add(&w->acc, r->power_w, true, r->volts, r->amps);
}

static void *reader_main(void *arg)
{
	struct wattsup *w = arg;
	uint8_t buf[512];

	while (!atomic_load(&w->stop)) {
		int n;

		if (w->f) {
			n = ftdi_read_data(w->f, buf, sizeof(buf));
			if (n < 0) {
				sb_meter_acc_fail(&w->acc, SB_ERR_IO,
				                  "Watts up? '%s' disconnected (libftdi: %s)",
				                  w->conn, ftdi_get_error_string(w->f));
				break;
			}
			if (n == 0)
				usleep(20000); /* libftdi returns at once when nothing came */
		} else {
			n = sb_fd_read_some(w->fd, buf, sizeof(buf), 100);
			if (n < 0) {
				sb_meter_acc_fail(&w->acc, SB_ERR_IO,
				                  "Watts up? '%s' disconnected: %s", w->conn,
				                  sb_error_detail());
				break;
			}
		}
		if (n > 0)
			sb_wattsup_feed(&w->lines, buf, (size_t)n, on_record, w);
	}
	return NULL;
}

static void wattsup_close(void *priv)
{
	struct wattsup *w = priv;

	if (!w)
		return;
	if (w->thread_running) {
		atomic_store(&w->stop, true);
		pthread_join(w->thread, NULL);
		if (!w->acc.err && wattsup_write(w, WATTSUP_STOP) < 0)
			sb_warn("%s", sb_error_detail());
	}
	if (w->lines.bad_records || w->lines.partial)
		sb_info("Watts up? '%s': %llu records, %llu malformed, %llu partial", w->conn,
		        (unsigned long long)w->lines.records,
		        (unsigned long long)w->lines.bad_records,
		        (unsigned long long)w->lines.partial);
	if (w->f) {
		if (w->f_open)
			ftdi_usb_close(w->f);
		ftdi_free(w->f);
	}
	if (w->fd >= 0)
		close(w->fd);
	sb_meter_acc_release(&w->acc);
	free(w);
}

/* wattsup:ftdi[:SERIAL] through libftdi. */
static int open_ftdi(struct wattsup *w, const char *serial)
{
	int r;

	w->f = ftdi_new();
	if (!w->f)
		return sb_error_set(SB_ERR_NOMEM, "'%s': out of memory for libftdi", w->conn);
	r = ftdi_usb_open_desc(w->f, 0x0403, 0x6001, NULL, *serial ? serial : NULL);
	if (r < 0) {
		const char *why = ftdi_get_error_string(w->f);

		if (r == -3)
			return sb_error_set(
			    SB_ERR_NOT_FOUND,
			    "no FTDI FT232R (USB 0403:6001%s%s) is attached for '%s'; "
			    "'stackbench instruments' lists what is",
			    *serial ? " serial " : "", serial, w->conn);
		/* libftdi 1.5: -4 libusb_open() failed (no access to the device node, or the
		 * adapter went away since the bus was listed), -8 claiming refused for lack of
		 * permission. */
		if (r == -4 || r == -8)
			return sb_error_set(
			    SB_ERR_PERM,
			    "'%s': permission denied on the FTDI adapter (libftdi: %s); "
			    "install the udev rules and join group 'stackbench' "
			    "(docs/instruments.md)",
			    w->conn, why);
		if (r == -5 || strstr(why, "claim"))
			return sb_error_set(
			    SB_ERR_BUSY,
			    "'%s' is busy: another process (or the ftdi_sio driver's "
			    "user) holds the adapter (%s)",
			    w->conn, why);
		return sb_error_set(SB_ERR_IO, "'%s': cannot open the FTDI adapter: %s", w->conn,
		                    why);
	}
	w->f_open = true;
	if (ftdi_set_baudrate(w->f, WATTSUP_BAUD) < 0 ||
	    ftdi_set_line_property(w->f, BITS_8, STOP_BIT_1, NONE) < 0 ||
	    ftdi_setflowctrl(w->f, SIO_DISABLE_FLOW_CTRL) < 0)
		return sb_error_set(SB_ERR_IO, "'%s': cannot set 115200 8N1: %s", w->conn,
		                    ftdi_get_error_string(w->f));
	w->f->usb_read_timeout = 100;
	return 0;
}

static int wattsup_open(const struct sb_conn *c, struct sb_device *dev, void **priv)
{
	static const char *const known[] = {"stall_ms", NULL};
	struct wattsup *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening '%s'", c->text);
	sb_strlcpy(w->conn, c->text, sizeof(w->conn));
	w->dev = dev;
	w->fd = -1;
	w->stall_ms = 5000;
	sb_meter_acc_init(&w->acc);
	sb_wattsup_lines_init(&w->lines);
	if ((err = sb_conn_check_opts(c, known)) < 0 ||
	    (err = sb_conn_opt_uint(c, "stall_ms", 1500, 600000, &w->stall_ms)) < 0)
		goto fail;
	if (!strcmp(c->rest, "ftdi") || !strncmp(c->rest, "ftdi:", 5))
		err = open_ftdi(w, c->rest[4] ? c->rest + 5 : "");
	else if (c->rest[0] == '/')
		err = sb_tty_open(c->rest, WATTSUP_BAUD, &w->fd);
	else
		err = sb_error_set(SB_ERR_URI,
		                   "connection string '%s': expected wattsup:/dev/ttyUSBn or "
		                   "wattsup:ftdi[:SERIAL]",
		                   c->text);
	if (err < 0 || (err = wattsup_write(w, WATTSUP_START)) < 0)
		goto fail;
	if (pthread_create(&w->thread, NULL, reader_main, w)) {
		err = sb_error_set(SB_ERR_NOMEM, "'%s': cannot start the reader thread", w->conn);
		goto fail;
	}
	w->thread_running = true;
	if ((err = sb_meter_acc_wait_first(&w->acc, w->conn, FIRST_RECORD_MS)) < 0)
		goto fail;
	*priv = w;
	return 0;

fail:
	wattsup_close(w);
	return err;
}

static int wattsup_sample(void *priv, struct sb_power_reading *r)
{
	struct wattsup *w = priv;

	return sb_meter_acc_take(&w->acc, w->conn, w->stall_ms, WATTSUP_INTERVAL_S,
	                         w->dev ? sb_device_now_ns(w->dev) : sb_inst_mono_ns(), r);
}

const struct sb_power_ops sb_power_wattsup = {
    .open = wattsup_open,
    .close = wattsup_close,
    .sample = wattsup_sample,
};
