/* SPDX-License-Identifier: MIT */
/*
 * FLIR One thermal camera over libusb-1.0 (USB 09cb:1996): the transport part. The protocol
 * part (frames, packets, CRC, reassembly) is flir.c; radiometry and the hot spot radiometry.c.
 *
 * Open: find the camera (any, a serial number or BUS:ADDR), select configuration 3, claim
 * interfaces 0, 1 and 2, then the start sequence of standard SET_INTERFACE requests (stop 2,
 * stop 1, start 1, start 2). A reader thread then reads endpoint 0x85 in large bulk transfers
 * (100 ms timeout), drains 0x81 and 0x83 (status and file I/O the camera also sends),
 * reassembles frames, drops flat-field-correction frames and frames with damaged packets,
 * converts the good ones to degrees Celsius and publishes the latest. A sample copies the
 * latest frame and finds (or follows) the hot spot: it never waits on USB.
 */
#include <errno.h>
#include <libusb.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flirone_usb.h"
#include "instrument_internal.h"
#include "stackbench/error.h"
#include "stackbench/flir.h"
#include "stackbench/log.h"
#include "stackbench/util.h"

#define CONSECUTIVE_ERRORS_MAX 20 /* transfer errors in a row before the camera is lost */
#define FIRST_FRAME_MS 3000       /* a camera that sends no frame within this fails to open */

struct flirone {
	char conn[256];
	struct sb_device *dev;
	libusb_context *ctx;
	libusb_device_handle *h;
	unsigned claimed; /* bit i: interface i claimed */
	bool started, thread_running;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	atomic_bool stop;

	/* The reader thread's own. */
	struct sb_flir_stream stream;
	uint8_t *xfer, *drain;
	struct sb_raw_image raw;
	struct sb_thermal_image conv;

	/* Shared, under lock. */
	struct sb_thermal_image latest;
	uint64_t seq, latest_mono_ns, opened_mono_ns;
	int err;
	char err_msg[256];
	uint64_t dropped_damaged, transfer_errors, stalls;

	/* The caller's. */
	struct sb_planck planck;
	struct sb_thermal_image img;
	uint64_t seen_seq;
	bool track;
	struct sb_roi roi;
	struct sb_hotspot_tracker *tracker;
	unsigned stall_ms;
};

static const char *usb_err(int r)
{
	return libusb_error_name(r);
}

/* Map a libusb error of an open step to an SB_ERR with a message naming the camera. */
static int open_error(const struct flirone *c, int r, const char *what)
{
	switch (r) {
	case LIBUSB_ERROR_BUSY:
		return sb_error_set(
		    SB_ERR_BUSY,
		    "FLIR One '%s' is busy: %s failed because another process holds "
		    "the camera (close it, or check 'lsof /dev/bus/usb')",
		    c->conn, what);
	case LIBUSB_ERROR_ACCESS:
		return sb_error_set(SB_ERR_PERM,
		                    "FLIR One '%s': permission denied (%s); install the udev rules "
		                    "and join group 'stackbench' (docs/instruments.md)",
		                    c->conn, what);
	case LIBUSB_ERROR_NO_DEVICE:
		return sb_error_set(SB_ERR_NOT_FOUND, "FLIR One '%s' disconnected during %s",
		                    c->conn, what);
	default:
		return sb_error_set(SB_ERR_IO, "FLIR One '%s': %s failed: %s", c->conn, what,
		                    usb_err(r));
	}
}

/* Publish a reader error (the first one wins) and wake a waiting opener. */
static void reader_fail(struct flirone *c, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void reader_fail(struct flirone *c, int err, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&c->lock);
	if (!c->err) {
		c->err = err;
		va_start(ap, fmt);
		vsnprintf(c->err_msg, sizeof(c->err_msg), fmt, ap);
		va_end(ap);
	}
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

/* A complete frame from the stream: decode, check, convert, publish. */
static void reader_frame(struct flirone *c, const struct sb_flir_frame *f)
{
	int dr = sb_flir_decode_thermal(f->thermal, f->thermal_len, &c->raw);

	if (dr < 0 || c->raw.bad_crc || c->raw.bad_id || c->raw.bad_pixels) {
		pthread_mutex_lock(&c->lock);
		c->dropped_damaged++;
		pthread_mutex_unlock(&c->lock);
		return;
	}
	sb_thermal_from_raw(&c->raw, &c->planck, &c->conv);
	pthread_mutex_lock(&c->lock);
	c->latest.width = c->conv.width;
	c->latest.height = c->conv.height;
	memcpy(c->latest.t_c, c->conv.t_c, sizeof(float) * c->conv.width * c->conv.height);
	c->latest_mono_ns = sb_inst_mono_ns();
	c->seq++;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

/* Read what the status and file endpoints hold, so the camera never blocks on them. */
static int drain(struct flirone *c, unsigned char ep)
{
	int n = 0, r = libusb_bulk_transfer(c->h, ep, c->drain, SB_FLIRONE_DRAIN_BYTES, &n,
	                                    SB_FLIRONE_DRAIN_TIMEOUT_MS);

	if (r == LIBUSB_ERROR_TIMEOUT)
		return 0;
	return r;
}

static void *reader_main(void *arg)
{
	struct flirone *c = arg;
	unsigned consecutive = 0;

	while (!atomic_load(&c->stop)) {
		struct sb_flir_frame f;
		int n = 0, r;

		r = libusb_bulk_transfer(c->h, SB_FLIRONE_EP_FRAMES, c->xfer, SB_FLIRONE_XFER_BYTES,
		                         &n, SB_FLIRONE_XFER_TIMEOUT_MS);
		if (n > 0 && sb_flir_stream_push(&c->stream, c->xfer, (size_t)n, &f) == 1)
			reader_frame(c, &f);
		if (r == 0 || r == LIBUSB_ERROR_TIMEOUT) {
			consecutive = 0;
			if (r == 0 && (r = drain(c, SB_FLIRONE_EP_STATUS)) == 0)
				r = drain(c, SB_FLIRONE_EP_FILEIO);
			if (r == 0)
				continue;
		}
		if (r == LIBUSB_ERROR_NO_DEVICE) {
			reader_fail(c, SB_ERR_IO, "FLIR One '%s' disconnected (USB: %s)", c->conn,
			            usb_err(r));
			break;
		}
		pthread_mutex_lock(&c->lock);
		c->transfer_errors++;
		if (r == LIBUSB_ERROR_PIPE)
			c->stalls++;
		pthread_mutex_unlock(&c->lock);
		if (r == LIBUSB_ERROR_PIPE)
			libusb_clear_halt(c->h, SB_FLIRONE_EP_FRAMES);
		if (++consecutive >= CONSECUTIVE_ERRORS_MAX) {
			reader_fail(c, SB_ERR_IO,
			            "FLIR One '%s': %u USB transfers failed in a row (last: %s)",
			            c->conn, consecutive, usb_err(r));
			break;
		}
	}
	return NULL;
}

/* "BUS:ADDR" (decimal) in the connection string's rest. */
static bool parse_bus_addr(const char *s, unsigned *bus, unsigned *addr)
{
	char *end;
	unsigned long b, a;

	if (*s < '0' || *s > '9')
		return false;
	b = strtoul(s, &end, 10);
	if (*end != ':' || end[1] < '0' || end[1] > '9')
		return false;
	a = strtoul(end + 1, &end, 10);
	if (*end || b > 255 || a > 255)
		return false;
	*bus = (unsigned)b;
	*addr = (unsigned)a;
	return true;
}

/* Does the open handle's serial number string equal serial? */
static bool serial_matches(libusb_device_handle *h, const struct libusb_device_descriptor *d,
                           const char *serial)
{
	unsigned char s[128];
	int n;

	if (!d->iSerialNumber)
		return false;
	n = libusb_get_string_descriptor_ascii(h, d->iSerialNumber, s, sizeof(s));
	return n > 0 && (size_t)n == strlen(serial) && !memcmp(s, serial, (size_t)n);
}

/* Find and open the camera the connection string names. */
static int find_camera(struct flirone *c, const char *rest)
{
	libusb_device **list;
	unsigned bus = 0, addr = 0, seen = 0;
	bool by_addr = parse_bus_addr(rest, &bus, &addr);
	ssize_t n = libusb_get_device_list(c->ctx, &list);
	int r = 0, err = 0;

	if (n < 0)
		return sb_error_set(SB_ERR_IO, "FLIR One '%s': cannot list USB devices: %s",
		                    c->conn, usb_err((int)n));
	for (ssize_t i = 0; i < n && !c->h; i++) {
		struct libusb_device_descriptor d;
		libusb_device_handle *h;

		if (libusb_get_device_descriptor(list[i], &d) < 0 || d.idVendor != SB_FLIRONE_VID ||
		    d.idProduct != SB_FLIRONE_PID)
			continue;
		if (by_addr && (libusb_get_bus_number(list[i]) != bus ||
		                libusb_get_device_address(list[i]) != addr))
			continue;
		seen++;
		if ((r = libusb_open(list[i], &h)) < 0) {
			err = open_error(c, r, "opening the USB device");
			continue;
		}
		if (*rest && !by_addr && !serial_matches(h, &d, rest)) {
			libusb_close(h);
			continue;
		}
		c->h = h;
	}
	libusb_free_device_list(list, 1);
	if (c->h)
		return 0;
	if (err && seen)
		return err;
	return sb_error_set(SB_ERR_NOT_FOUND,
	                    "no FLIR One camera (USB %04x:%04x%s%s) is attached for '%s'%s; "
	                    "'stackbench instruments' lists what is",
	                    SB_FLIRONE_VID, SB_FLIRONE_PID,
	                    *rest ? by_addr ? " at " : " serial " : "", rest, c->conn,
	                    seen ? " (other FLIR One cameras are)" : "");
}

/* SET_INTERFACE as a standard control request: alt 1 starts an interface, 0 stops it. */
static int set_alt(struct flirone *c, unsigned iface, unsigned alt)
{
	int r = libusb_control_transfer(c->h, SB_FLIRONE_SETIF_REQTYPE, SB_FLIRONE_SETIF_REQ,
	                                (uint16_t)alt, (uint16_t)iface, NULL, 0, 1000);

	return r < 0 ? r : 0;
}

static int start_camera(struct flirone *c)
{
	static const struct {
		unsigned iface, alt;
	} seq[] = {{2, 0}, {1, 0}, {1, 1}, {2, 1}};
	int cfg = 0, r;

	if ((r = libusb_get_configuration(c->h, &cfg)) < 0)
		return open_error(c, r, "reading the configuration");
	if (cfg != SB_FLIRONE_CONFIG && (r = libusb_set_configuration(c->h, SB_FLIRONE_CONFIG)) < 0)
		return open_error(c, r, "selecting configuration 3");
	for (unsigned i = 0; i < 3; i++) {
		if (libusb_kernel_driver_active(c->h, (int)i) == 1 &&
		    (r = libusb_detach_kernel_driver(c->h, (int)i)) < 0)
			return open_error(c, r, "detaching the kernel driver");
		if ((r = libusb_claim_interface(c->h, (int)i)) < 0)
			return open_error(c, r, "claiming interface");
		c->claimed |= 1u << i;
	}
	for (size_t i = 0; i < SB_ARRAY_SIZE(seq); i++)
		if ((r = set_alt(c, seq[i].iface, seq[i].alt)) < 0)
			return open_error(c, r, "the start sequence (SET_INTERFACE)");
	c->started = true;
	return 0;
}

static void flirone_close(void *priv)
{
	struct flirone *c = priv;

	if (!c)
		return;
	if (c->thread_running) {
		atomic_store(&c->stop, true);
		pthread_join(c->thread, NULL);
		sb_info(
		    "FLIR One '%s': %llu frames, %llu dropped around a flat-field correction, "
		    "%llu dropped as damaged, %llu partial, %llu transfers, %llu transfer errors",
		    c->conn, (unsigned long long)c->stream.st.frames,
		    (unsigned long long)c->stream.st.ffc_dropped,
		    (unsigned long long)c->dropped_damaged,
		    (unsigned long long)c->stream.st.partial,
		    (unsigned long long)c->stream.st.transfers,
		    (unsigned long long)c->transfer_errors);
	}
	if (c->started && !c->err) {
		/* Stop streaming: interface 2, then 1. */
		set_alt(c, 2, 0);
		set_alt(c, 1, 0);
	}
	for (unsigned i = 0; i < 3; i++)
		if (c->claimed & 1u << i)
			libusb_release_interface(c->h, (int)i);
	if (c->h)
		libusb_close(c->h);
	if (c->ctx)
		libusb_exit(c->ctx);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	sb_flir_stream_release(&c->stream);
	free(c->xfer);
	free(c->drain);
	free(c->tracker);
	free(c);
}

static int parse_options(struct flirone *c, const struct sb_conn *cn)
{
	static const char *const known[] = {"roi", "calib", "stall_ms", NULL};
	const char *roi = sb_conn_opt(cn, "roi"), *calib = sb_conn_opt(cn, "calib");
	int err;

	if ((err = sb_conn_check_opts(cn, known)) < 0)
		return err;
	c->track = !roi || !strcmp(roi, "auto");
	if (!c->track && (err = sb_roi_parse(roi, &c->roi)) < 0)
		return err;
	c->stall_ms = 2000;
	if ((err = sb_conn_opt_uint(cn, "stall_ms", 200, 600000, &c->stall_ms)) < 0)
		return err;
	sb_planck_default(&c->planck);
	/* a calibration file that cannot be read is a bad option value, like a bad roi (one
	   that reads but does not parse is a bad input file: SB_ERR_PARSE) */
	if (calib && (err = sb_planck_load(calib, &c->planck)) < 0)
		return err == SB_ERR_IO || err == SB_ERR_NOT_FOUND || err == SB_ERR_PERM
		           ? sb_error_wrap(SB_ERR_INVAL, "option calib")
		           : err;
	return 0;
}

/* Wait (bounded) for the first good frame, so a camera that does not stream fails now. */
static int wait_first_frame(struct flirone *c)
{
	struct timespec until;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += FIRST_FRAME_MS / 1000;
	pthread_mutex_lock(&c->lock);
	while (!c->seq && !c->err) {
		if (pthread_cond_timedwait(&c->cond, &c->lock, &until) == ETIMEDOUT)
			break;
	}
	if (c->err)
		err = sb_error_set(c->err, "%s", c->err_msg);
	else if (!c->seq)
		err = sb_error_set(SB_ERR_TIMEOUT,
		                   "FLIR One '%s' sent no usable frame within %d s (%llu frames "
		                   "dropped as damaged, %llu transfer errors)",
		                   c->conn, FIRST_FRAME_MS / 1000,
		                   (unsigned long long)c->dropped_damaged,
		                   (unsigned long long)c->transfer_errors);
	pthread_mutex_unlock(&c->lock);
	return err;
}

static int flirone_open(const struct sb_conn *cn, struct sb_device *dev, void **priv)
{
	struct flirone *c = calloc(1, sizeof(*c));
	pthread_condattr_t ca;
	int err, r;

	if (!c)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening '%s'", cn->text);
	sb_strlcpy(c->conn, cn->text, sizeof(c->conn));
	c->dev = dev;
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	c->xfer = malloc(SB_FLIRONE_XFER_BYTES);
	c->drain = malloc(SB_FLIRONE_DRAIN_BYTES);
	c->tracker = malloc(sizeof(*c->tracker));
	if (!c->xfer || !c->drain || !c->tracker) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory opening '%s'", cn->text);
		goto fail;
	}
	sb_hotspot_tracker_init(c->tracker);
	if ((err = parse_options(c, cn)) < 0 || (err = sb_flir_stream_init(&c->stream)) < 0)
		goto fail;
	if ((r = libusb_init(&c->ctx)) < 0) {
		c->ctx = NULL;
		err =
		    sb_error_set(SB_ERR_NOT_FOUND,
		                 "no FLIR One camera for '%s': USB is not usable here (libusb: %s)",
		                 c->conn, usb_err(r));
		goto fail;
	}
	if ((err = find_camera(c, cn->rest)) < 0 || (err = start_camera(c)) < 0)
		goto fail;
	c->opened_mono_ns = sb_inst_mono_ns();
	if (pthread_create(&c->thread, NULL, reader_main, c)) {
		err = sb_error_set(SB_ERR_NOMEM, "'%s': cannot start the reader thread", c->conn);
		goto fail;
	}
	c->thread_running = true;
	if ((err = wait_first_frame(c)) < 0)
		goto fail;
	sb_info("FLIR One '%s': streaming %ux%u frames", c->conn, c->latest.width,
	        c->latest.height);
	*priv = c;
	return 0;

fail:
	flirone_close(c);
	return err;
}

static int flirone_sample(void *priv, struct sb_temp_reading *r)
{
	struct flirone *c = priv;
	struct sb_hotspot hs;
	uint64_t age_ns;
	int err;

	pthread_mutex_lock(&c->lock);
	if (c->err) {
		err = sb_error_set(c->err, "%s", c->err_msg);
		pthread_mutex_unlock(&c->lock);
		return err;
	}
	age_ns = sb_inst_mono_ns() - c->latest_mono_ns;
	if (age_ns > (uint64_t)c->stall_ms * 1000000u) {
		err = sb_error_set(SB_ERR_TIMEOUT,
		                   "FLIR One '%s' stalled: no usable frame for %.1f s (%llu frames "
		                   "dropped as damaged, %llu transfer errors)",
		                   c->conn, (double)age_ns / 1e9,
		                   (unsigned long long)c->dropped_damaged,
		                   (unsigned long long)c->transfer_errors);
		pthread_mutex_unlock(&c->lock);
		return err;
	}
	if (c->seq != c->seen_seq) {
		c->img.width = c->latest.width;
		c->img.height = c->latest.height;
		memcpy(c->img.t_c, c->latest.t_c, sizeof(float) * c->img.width * c->img.height);
		c->seen_seq = c->seq;
	}
	pthread_mutex_unlock(&c->lock);
	if (c->track)
		err = sb_hotspot_track(c->tracker, &c->img, &hs, &r->roi);
	else {
		err = sb_hotspot_find(&c->img, &c->roi, &hs);
		r->roi = c->roi;
	}
	if (err < 0)
		return sb_error_wrap(err, "FLIR One '%s'", c->conn);
	r->t_ns = c->dev ? sb_device_now_ns(c->dev) : sb_inst_mono_ns();
	r->hotspot_c = hs.max_c;
	r->hot_x = hs.x;
	r->hot_y = hs.y;
	r->roi_mean_c = hs.mean_c;
	r->roi_min_c = hs.min_c;
	r->frame = &c->img;
	return 0;
}

static int flirone_set_roi(void *priv, const struct sb_roi *roi)
{
	struct flirone *c = priv;

	if (roi->w && roi->h &&
	    (roi->x >= c->img.width || roi->y >= c->img.height || roi->w > c->img.width - roi->x ||
	     roi->h > c->img.height - roi->y))
		return sb_error_set(SB_ERR_RANGE,
		                    "region of interest %u,%u,%u,%u is not inside the %ux%u frame",
		                    roi->x, roi->y, roi->w, roi->h, c->img.width, c->img.height);
	c->roi = *roi;
	c->track = false;
	return 0;
}

const struct sb_temp_ops sb_temp_flirone = {
    .open = flirone_open,
    .close = flirone_close,
    .sample = flirone_sample,
    .set_roi = flirone_set_roi,
};
