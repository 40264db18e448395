/* SPDX-License-Identifier: MIT */
/*
 * Power through libsigrok: any meter or supply a libsigrok driver acquires from
 * (sigrok:DRIVER[:conn=...][:serialcomm=...], korad:PATH). The power is the device's own power
 * reading where it has one (SR_MQ_POWER, in W), else volts times amps of its voltage and current
 * readings (a supply's output, a USB power meter's): a reading each time both have come since
 * the last one, in either order.
 *
 * A reader thread owns the libsigrok session: it starts the acquisition (libsigrok runs a
 * session's events in the thread that starts it) and runs it until the source is closed, adding
 * each reading to the meter accumulator; a sample takes the mean since the last one. The time
 * base is the device's own pace, measured: the mean interval between its readings.
 */
#include <glib.h>
#include <libsigrok/libsigrok.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "instrument_internal.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/util.h"

#define FIRST_READING_MS 5000
#define CLOSE_WAIT_S 3 /* for the driver to stop its acquisition */

struct sigrok_meter {
	char conn[256];
	struct sb_device *dev;
	struct sr_context *ctx;
	struct sr_dev_driver *drv;
	struct sr_dev_inst *sdi;
	struct sr_session *sess;
	pthread_t thread;
	bool thread_running;
	atomic_bool stopping;
	unsigned stall_ms;
	struct sb_meter_acc acc;
	/* written by the reader thread; readings, first_ns and last_ns under acc.lock */
	double volts, amps;
	bool have_volts, have_amps, device_power;
	uint64_t first_ns, last_ns, readings;
};

/* The last value of an analog packet, in its unit; false if it has none. */
static bool last_value(const struct sr_datafeed_analog *a, double *v)
{
	float *buf;

	if (a->num_samples == 0 || a->num_samples > 1u << 20)
		return false;
	buf = g_try_malloc(a->num_samples * sizeof(float));
	if (!buf)
		return false;
	if (sr_analog_to_float(a, buf) != SR_OK) {
		g_free(buf);
		return false;
	}
	*v = buf[a->num_samples - 1];
	g_free(buf);
	return isfinite(*v);
}

static void reading(struct sigrok_meter *m, double w, bool has_va, double v, double a)
{
	uint64_t now = sb_inst_mono_ns();

	pthread_mutex_lock(&m->acc.lock);
	if (!m->readings++)
		m->first_ns = now;
	m->last_ns = now;
	pthread_mutex_unlock(&m->acc.lock);
	sb_meter_acc_add(&m->acc, w, has_va, v, a);
}

static void datafeed(const struct sr_dev_inst *sdi, const struct sr_datafeed_packet *p, void *data)
{
	struct sigrok_meter *m = data;
	const struct sr_datafeed_analog *a;
	double v;

	(void)sdi;
	if (p->type == SR_DF_END) {
		if (!atomic_load(&m->stopping))
			sb_meter_acc_fail(&m->acc, SB_ERR_IO,
			                  "'%s': the device ended the acquisition (disconnected?)",
			                  m->conn);
		return;
	}
	if (p->type != SR_DF_ANALOG)
		return;
	a = p->payload;
	if (!a->meaning || !last_value(a, &v))
		return;
	switch (a->meaning->mq) {
	case SR_MQ_POWER:
		if (a->meaning->unit != SR_UNIT_WATT)
			return;
		m->device_power = true;
		/* with the volts and amps it reported since its last power reading, if any */
		reading(m, v, m->have_volts && m->have_amps, m->volts, m->amps);
		m->have_volts = m->have_amps = false;
		break;
	case SR_MQ_VOLTAGE:
		if (a->meaning->unit != SR_UNIT_VOLT)
			return;
		m->volts = v;
		m->have_volts = true;
		break;
	case SR_MQ_CURRENT:
		if (a->meaning->unit != SR_UNIT_AMPERE)
			return;
		m->amps = v;
		m->have_amps = true;
		break;
	default:
		return;
	}
	if (m->have_volts && m->have_amps && !m->device_power) {
		reading(m, m->volts * m->amps, true, m->volts, m->amps);
		m->have_volts = m->have_amps = false; /* the next pair */
	}
}

static void *reader_main(void *arg)
{
	struct sigrok_meter *m = arg;
	int r;

	if ((r = sr_session_start(m->sess)) != SR_OK) {
		sb_meter_acc_fail(&m->acc, SB_ERR_IO, "'%s': the acquisition does not start (%s)",
		                  m->conn, sr_strerror(r));
		return NULL;
	}
	if ((r = sr_session_run(m->sess)) != SR_OK)
		sb_meter_acc_fail(&m->acc, SB_ERR_IO, "'%s': the acquisition failed (%s)", m->conn,
		                  sr_strerror(r));
	return NULL;
}

static void meter_close(void *priv)
{
	struct sigrok_meter *m = priv;

	if (!m)
		return;
	if (m->thread_running) {
		struct timespec until;

		atomic_store(&m->stopping, true);
		sr_session_stop(m->sess);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += CLOSE_WAIT_S;
		if (pthread_timedjoin_np(m->thread, NULL, &until)) {
			/* The driver blocks in a read of a device that stopped answering (libsigrok's
			 * korad-kaxxxxp waits without end while the port stays open): its thread,
			 * the session and this meter are left to it, never freed under it. */
			sb_warn("'%s': libsigrok's driver did not stop within %d s (a device that "
			        "stopped answering); its thread is left behind",
			        m->conn, CLOSE_WAIT_S);
			pthread_detach(m->thread);
			return;
		}
	}
	if (m->sess)
		sr_session_destroy(m->sess);
	if (m->sdi)
		sr_dev_close(m->sdi);
	if (m->ctx)
		sr_exit(m->ctx);
	sb_meter_acc_release(&m->acc);
	free(m);
}

static int meter_open(const struct sb_conn *c, struct sb_device *dev, void **priv)
{
	static const char *const known[] = {"stall_ms", NULL};
	struct sigrok_meter *m = calloc(1, sizeof(*m));
	char driver[64];
	void *opts = NULL;
	int err;

	if (!m)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening '%s'", c->text);
	sb_strlcpy(m->conn, c->text, sizeof(m->conn));
	m->dev = dev;
	m->stall_ms = 5000;
	sb_meter_acc_init(&m->acc);
	if ((err = sb_conn_check_opts(c, known)) < 0 ||
	    (err = sb_conn_opt_uint(c, "stall_ms", 1500, 600000, &m->stall_ms)) < 0 ||
	    (err = sb_sigrok_scan_options(c, driver, sizeof(driver), &opts)) < 0 ||
	    (err = sb_sigrok_open_dev(c, driver, opts, "meter", &m->ctx, &m->drv, &m->sdi)) < 0)
		goto fail;
	if (sr_session_new(m->ctx, &m->sess) != SR_OK) {
		m->sess = NULL;
		err = sb_error_set(SB_ERR_IO, "'%s': no libsigrok session", c->text);
		goto fail;
	}
	if (sr_session_dev_add(m->sess, m->sdi) != SR_OK ||
	    sr_session_datafeed_callback_add(m->sess, datafeed, m) != SR_OK) {
		err = sb_error_set(SB_ERR_IO, "'%s': the libsigrok session refuses the device",
		                   c->text);
		goto fail;
	}
	if (pthread_create(&m->thread, NULL, reader_main, m)) {
		err = sb_error_set(SB_ERR_NOMEM, "'%s': cannot start the reader thread", m->conn);
		goto fail;
	}
	m->thread_running = true;
	if ((err = sb_meter_acc_wait_first(&m->acc, m->conn, FIRST_READING_MS)) < 0)
		goto fail;
	sb_info("'%s': %s %s, %s", c->text, sr_dev_inst_vendor_get(m->sdi),
	        sr_dev_inst_model_get(m->sdi),
	        m->device_power ? "its power readings" : "volts x amps");
	sb_sigrok_free_options(opts);
	*priv = m;
	return 0;

fail:
	sb_sigrok_free_options(opts);
	meter_close(m);
	return err;
}

static int meter_sample(void *priv, struct sb_power_reading *r)
{
	struct sigrok_meter *m = priv;
	uint64_t n, first, last;
	double interval;

	pthread_mutex_lock(&m->acc.lock);
	n = m->readings;
	first = m->first_ns;
	last = m->last_ns;
	pthread_mutex_unlock(&m->acc.lock);
	interval = n > 1 ? (double)(last - first) / 1e9 / (double)(n - 1) : NAN;
	return sb_meter_acc_take(&m->acc, m->conn, m->stall_ms, interval,
	                         m->dev ? sb_device_now_ns(m->dev) : sb_inst_mono_ns(), r);
}

const struct sb_power_ops sb_power_sigrok = {
    .open = meter_open,
    .close = meter_close,
    .sample = meter_sample,
};
