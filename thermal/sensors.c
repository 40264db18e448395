/* SPDX-License-Identifier: MIT */
/*
 * Card sensors through libsensors (lm-sensors): the hwmon devices a board's driver registers,
 * e.g. the temperatures (FPGA, HBM stacks) and 12 V rail currents, voltages and power of an
 * Alveo card's management driver, as a temperature source and as a power source.
 *
 *   sensors:[CHIP][?feature=NAME|LABEL&poll_ms=N&stall_ms=N]            temperature, power
 *   sensors:[CHIP]?curr=NAME|LABEL&in=NAME|LABEL[&poll_ms=N&stall_ms=N]  power = volts x amps
 *
 * CHIP is a libsensors chip name or pattern ("xclmgmt-pci-3b01", "xclmgmt-*"); empty matches
 * every chip. The feature is chosen by its name ("temp2", "power1") or its label ("hbm_temp");
 * without one, the chip's first temperature (or power) feature. A reader thread reads the
 * sensor every poll_ms (default 250) under libsensors' lock; a sample takes the mean since the
 * last sample, and fails when the sensor could not be read (SB_ERR_IO: the device went away)
 * or nothing was read for stall_ms (default 3000). Each open rescans /sys (a reconnect finds a
 * device that came back; other open sensors find their chips again by name).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sensors/error.h>
#include <sensors/sensors.h>

#include "instrument_internal.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/util.h"

/* libsensors keeps one global chip list: every use of it holds this lock. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned g_users;

struct sens {
	char conn[256];
	struct sb_device *dev;
	bool power;
	sensors_chip_name pattern; /* parsed CHIP (wildcards allowed) */
	bool any_chip;
	char feature[64], curr[64], in[64];
	char found[160]; /* the chip and feature resolved at open, for messages */
	unsigned poll_ms, stall_ms;
	pthread_t thread;
	bool thread_running;
	atomic_bool stop;
	struct sb_meter_acc acc;
};

static bool feature_matches(const sensors_chip_name *c, const sensors_feature *f, const char *want)
{
	char *label;
	bool m;

	if (!strcmp(f->name, want))
		return true;
	label = sensors_get_label(c, f);
	m = label && !strcmp(label, want);
	free(label);
	return m;
}

/* The input subfeature of a temperature, power, current or voltage feature. */
static const sensors_subfeature *input_of(const sensors_chip_name *c, const sensors_feature *f)
{
	const sensors_subfeature *s;

	switch (f->type) {
	case SENSORS_FEATURE_TEMP:
		return sensors_get_subfeature(c, f, SENSORS_SUBFEATURE_TEMP_INPUT);
	case SENSORS_FEATURE_POWER:
		s = sensors_get_subfeature(c, f, SENSORS_SUBFEATURE_POWER_INPUT);
		return s ? s : sensors_get_subfeature(c, f, SENSORS_SUBFEATURE_POWER_AVERAGE);
	case SENSORS_FEATURE_CURR:
		return sensors_get_subfeature(c, f, SENSORS_SUBFEATURE_CURR_INPUT);
	case SENSORS_FEATURE_IN:
		return sensors_get_subfeature(c, f, SENSORS_SUBFEATURE_IN_INPUT);
	default:
		return NULL;
	}
}

/*
 * Find the input subfeature named (or labelled) want of the given feature type on a chip that
 * matches the pattern; want "" = the first feature of that type. With the lock held.
 */
static const sensors_subfeature *find(const struct sens *s, const char *want,
                                      sensors_feature_type type, const sensors_chip_name **chip)
{
	const sensors_chip_name *c;
	int nr = 0;

	while ((c = sensors_get_detected_chips(s->any_chip ? NULL : &s->pattern, &nr))) {
		const sensors_feature *f;
		int fn = 0;

		while ((f = sensors_get_features(c, &fn))) {
			if (*want ? !feature_matches(c, f, want) : f->type != type)
				continue;
			if (f->type != type)
				return NULL; /* named, but of another kind */
			*chip = c;
			return input_of(c, f);
		}
	}
	return NULL;
}

/* What there is, for an error message: "chip: feature (label), ..." */
static void describe(const struct sens *s, char *out, size_t cap)
{
	const sensors_chip_name *c;
	size_t len = 0;
	int nr = 0;

	out[0] = '\0';
	while ((c = sensors_get_detected_chips(s->any_chip ? NULL : &s->pattern, &nr)) &&
	       len + 64 < cap) {
		const sensors_feature *f;
		char name[96];
		int fn = 0;

		sensors_snprintf_chip_name(name, sizeof(name), c);
		len += (size_t)snprintf(out + len, cap - len, "%s%s:", len ? "; " : "", name);
		while ((f = sensors_get_features(c, &fn)) && len + 40 < cap) {
			char *label = sensors_get_label(c, f);

			len += (size_t)snprintf(out + len, cap - len, " %s (%s)", f->name,
			                        label ? label : "?");
			free(label);
		}
	}
	if (!out[0])
		snprintf(out, cap, "none");
}

/* Read the configured value once. With the lock held. */
static int read_value(struct sens *s, double *value, double *volts, double *amps)
{
	const sensors_chip_name *c = NULL, *c2 = NULL;
	const sensors_subfeature *sf, *sf2;
	int e;

	if (s->power && s->curr[0]) {
		sf = find(s, s->curr, SENSORS_FEATURE_CURR, &c);
		sf2 = find(s, s->in, SENSORS_FEATURE_IN, &c2);
		if (!sf || !sf2)
			return sb_error_set(SB_ERR_IO, "sensor '%s': %s is gone", s->conn,
			                    s->found);
		if ((e = sensors_get_value(c, sf->number, amps)) < 0 ||
		    (e = sensors_get_value(c2, sf2->number, volts)) < 0)
			return sb_error_set(SB_ERR_IO, "sensor '%s': %s cannot be read (%s)",
			                    s->conn, s->found, sensors_strerror(e));
		*value = *volts * *amps;
		return 0;
	}
	sf = find(s, s->feature, s->power ? SENSORS_FEATURE_POWER : SENSORS_FEATURE_TEMP, &c);
	if (!sf)
		return sb_error_set(SB_ERR_IO, "sensor '%s': %s is gone", s->conn, s->found);
	if ((e = sensors_get_value(c, sf->number, value)) < 0)
		return sb_error_set(SB_ERR_IO, "sensor '%s': %s cannot be read (%s)", s->conn,
		                    s->found, sensors_strerror(e));
	*volts = *amps = NAN;
	return 0;
}

static void *reader_main(void *arg)
{
	struct sens *s = arg;

	while (!atomic_load(&s->stop)) {
		double v, volts, amps;
		int err;

		pthread_mutex_lock(&g_lock);
		err = read_value(s, &v, &volts, &amps);
		pthread_mutex_unlock(&g_lock);
		if (err < 0) {
			sb_meter_acc_fail(&s->acc, err, "%s", sb_error_detail());
			break;
		}
		sb_meter_acc_add(&s->acc, v, s->curr[0] != '\0', volts, amps);
		for (unsigned t = 0; t < s->poll_ms && !atomic_load(&s->stop); t += 10)
			nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	return NULL;
}

static void sens_close(void *priv)
{
	struct sens *s = priv;

	if (!s)
		return;
	if (s->thread_running) {
		atomic_store(&s->stop, true);
		pthread_join(s->thread, NULL);
	}
	pthread_mutex_lock(&g_lock);
	if (!s->any_chip)
		sensors_free_chip_name(&s->pattern);
	if (g_users && --g_users == 0)
		sensors_cleanup();
	pthread_mutex_unlock(&g_lock);
	sb_meter_acc_release(&s->acc);
	free(s);
}

/* Resolve the chip and feature now (open): SB_ERR_NOT_FOUND names what there is. */
static int resolve(struct sens *s)
{
	const sensors_chip_name *c = NULL;
	const sensors_subfeature *sf;
	const char *want = s->curr[0] ? s->curr : s->feature;
	sensors_feature_type type = s->curr[0] ? SENSORS_FEATURE_CURR
	                            : s->power ? SENSORS_FEATURE_POWER
	                                       : SENSORS_FEATURE_TEMP;
	char have[1024], chip[96];

	sf = find(s, want, type, &c);
	if (sf && s->curr[0]) {
		const sensors_chip_name *c2 = NULL;

		if (!find(s, s->in, SENSORS_FEATURE_IN, &c2)) {
			describe(s, have, sizeof(have));
			return sb_error_set(SB_ERR_NOT_FOUND,
			                    "sensor '%s': no voltage input '%s' (there are: %s)",
			                    s->conn, s->in, have);
		}
	}
	if (!sf) {
		describe(s, have, sizeof(have));
		return sb_error_set(
		    SB_ERR_NOT_FOUND,
		    "sensor '%s': no %s input%s%s%s on the matching chips (there are: "
		    "%s)",
		    s->conn,
		    type == SENSORS_FEATURE_TEMP    ? "temperature"
		    : type == SENSORS_FEATURE_POWER ? "power"
		                                    : "current",
		    *want ? " '" : "", want, *want ? "'" : "", have);
	}
	sensors_snprintf_chip_name(chip, sizeof(chip), c);
	snprintf(s->found, sizeof(s->found), "%s %s", chip, sf->name);
	return 0;
}

static int sens_open(const struct sb_conn *c, struct sb_device *dev, void **priv, bool power)
{
	static const char *const known_temp[] = {"feature", "poll_ms", "stall_ms", NULL};
	static const char *const known_power[] = {"feature", "curr",     "in",
	                                          "poll_ms", "stall_ms", NULL};
	struct sens *s = calloc(1, sizeof(*s));
	const char *v;
	int err;

	if (!s)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening '%s'", c->text);
	sb_strlcpy(s->conn, c->text, sizeof(s->conn));
	s->dev = dev;
	s->power = power;
	s->poll_ms = 250;
	s->stall_ms = 3000;
	s->any_chip = true;
	sb_meter_acc_init(&s->acc);
	if ((err = sb_conn_check_opts(c, power ? known_power : known_temp)) < 0 ||
	    (err = sb_conn_opt_uint(c, "poll_ms", 10, 60000, &s->poll_ms)) < 0 ||
	    (err = sb_conn_opt_uint(c, "stall_ms", 100, 600000, &s->stall_ms)) < 0) {
		free(s);
		return err;
	}
	if ((v = sb_conn_opt(c, "feature")))
		sb_strlcpy(s->feature, v, sizeof(s->feature));
	if ((v = sb_conn_opt(c, "curr")))
		sb_strlcpy(s->curr, v, sizeof(s->curr));
	if ((v = sb_conn_opt(c, "in")))
		sb_strlcpy(s->in, v, sizeof(s->in));
	if (!s->curr[0] != !s->in[0] || (s->curr[0] && s->feature[0])) {
		free(s);
		return sb_error_set(SB_ERR_URI,
		                    "connection string '%s': give feature=, or curr= and in= "
		                    "(power as volts x amps)",
		                    c->text);
	}
	pthread_mutex_lock(&g_lock);
	if (c->rest[0]) {
		if (sensors_parse_chip_name(c->rest, &s->pattern)) {
			pthread_mutex_unlock(&g_lock);
			free(s);
			return sb_error_set(
			    SB_ERR_URI,
			    "connection string '%s': '%s' is not a libsensors chip name "
			    "(like xclmgmt-pci-3b01 or xclmgmt-*)",
			    c->text, c->rest);
		}
		s->any_chip = false;
	}
	/* rescan: what is attached now */
	if (g_users)
		sensors_cleanup();
	if ((err = sensors_init(NULL)) != 0) {
		/* the other open sensors' next read fails: they reconnect */
		err = sb_error_set(SB_ERR_IO, "sensor '%s': libsensors cannot start (%s)", c->text,
		                   sensors_strerror(err));
		goto fail_locked;
	}
	g_users++;
	if ((err = resolve(s)) < 0) {
		pthread_mutex_unlock(&g_lock);
		sens_close(s);
		return err;
	}
	pthread_mutex_unlock(&g_lock);
	if (pthread_create(&s->thread, NULL, reader_main, s)) {
		sens_close(s);
		return sb_error_set(SB_ERR_NOMEM, "'%s': cannot start the reader thread", c->text);
	}
	s->thread_running = true;
	if ((err = sb_meter_acc_wait_first(&s->acc, s->conn, s->stall_ms)) < 0) {
		sens_close(s);
		return err;
	}
	sb_dbg("sensor '%s': %s", s->conn, s->found);
	*priv = s;
	return 0;

fail_locked:
	if (!s->any_chip)
		sensors_free_chip_name(&s->pattern);
	pthread_mutex_unlock(&g_lock);
	sb_meter_acc_release(&s->acc);
	free(s);
	return err;
}

static int temp_open(const struct sb_conn *c, struct sb_device *dev, void **priv)
{
	return sens_open(c, dev, priv, false);
}

static int power_open(const struct sb_conn *c, struct sb_device *dev, void **priv)
{
	return sens_open(c, dev, priv, true);
}

static uint64_t now_ns(const struct sens *s)
{
	return s->dev ? sb_device_now_ns(s->dev) : sb_inst_mono_ns();
}

static int temp_sample(void *priv, struct sb_temp_reading *r)
{
	struct sens *s = priv;
	struct sb_power_reading p;
	int err = sb_meter_acc_take(&s->acc, s->conn, s->stall_ms, 0, now_ns(s), &p);

	if (err < 0)
		return err;
	r->t_ns = p.t_ns;
	r->hotspot_c = r->roi_mean_c = r->roi_min_c = p.power_w; /* one value: the sensor's */
	return 0;
}

static int temp_set_roi(void *priv, const struct sb_roi *roi)
{
	struct sens *s = priv;

	if (roi->w)
		return sb_error_set(SB_ERR_RANGE, "sensor '%s' has no frame: no region of interest",
		                    s->conn);
	return 0;
}

static int power_sample(void *priv, struct sb_power_reading *r)
{
	struct sens *s = priv;

	return sb_meter_acc_take(&s->acc, s->conn, s->stall_ms, 0, now_ns(s), r);
}

const struct sb_temp_ops sb_temp_sensors = {
    .open = temp_open,
    .close = sens_close,
    .sample = temp_sample,
    .set_roi = temp_set_roi,
};

const struct sb_power_ops sb_power_sensors = {
    .open = power_open,
    .close = sens_close,
    .sample = power_sample,
};

/* --- what there is: `stackbench instruments` ----------------------------------------------- */

/* The name a connection string gives a feature: its label when that is a plain word (letters,
 * digits, _ . -; a label is text from the driver), else its name ("temp2"). */
static void conn_feature(const sensors_chip_name *c, const sensors_feature *f, char *out,
                         size_t size)
{
	char *label = sensors_get_label(c, f);
	bool plain = label && *label && strlen(label) < size;

	for (const char *p = label; plain && *p; p++)
		plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		        (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-';
	sb_strlcpy(out, plain ? label : f->name, size);
	free(label);
}

/* The part of a current's or voltage's label before its last '_' ("12v_pex" of
 * "12v_pex_curr"): a current and a voltage with the same one are a rail (our pairing). */
static size_t rail_len(const char *label)
{
	const char *u = strrchr(label, '_');

	return u && u != label ? (size_t)(u - label) : 0;
}

/* A feature's value (its input subfeature), NAN when it cannot be read. */
static double feature_value(const sensors_chip_name *c, const sensors_feature *f)
{
	const sensors_subfeature *sf = input_of(c, f);
	double v;

	return sf && sensors_get_value(c, sf->number, &v) == 0 ? v : NAN;
}

/* A chip's currents paired with its voltages by rail: one power source (volts x amps) each. */
static void discover_rails(const sensors_chip_name *c, const char *chip,
                           struct sb_found_instrument *out, unsigned max, unsigned *n)
{
	const sensors_feature *fc;
	int fn = 0;

	while ((fc = sensors_get_features(c, &fn)) && *n < max) {
		const sensors_feature *fv;
		char curr[64];
		size_t rl;
		int vn = 0;

		if (fc->type != SENSORS_FEATURE_CURR)
			continue;
		conn_feature(c, fc, curr, sizeof(curr));
		if (!(rl = rail_len(curr)))
			continue;
		while ((fv = sensors_get_features(c, &vn))) {
			struct sb_found_instrument *i;
			char in[64];

			if (fv->type != SENSORS_FEATURE_IN)
				continue;
			conn_feature(c, fv, in, sizeof(in));
			if (rail_len(in) != rl || strncmp(in, curr, rl))
				continue;
			i = &out[(*n)++];
			memset(i, 0, sizeof(*i));
			sb_strlcpy(i->kind, "meter", sizeof(i->kind));
			snprintf(i->what, sizeof(i->what), "%s %.*s: %.3f A x %.3f V (%s, %s)",
			         chip, (int)rl, curr, feature_value(c, fc), feature_value(c, fv),
			         fc->name, fv->name);
			snprintf(i->conn, sizeof(i->conn), "sensors:%s?curr=%s&in=%s", chip, curr,
			         in);
			snprintf(i->note, sizeof(i->note),
			         "card sensor: power source as volts x amps (paired by the labels' "
			         "rail)");
			break;
		}
	}
}

unsigned sb_sensors_discover(struct sb_found_instrument *out, unsigned max)
{
	const sensors_chip_name *c;
	unsigned n = 0;
	int nr = 0;

	pthread_mutex_lock(&g_lock);
	/* rescan, as an open does (the open sensors find their chips again by name) */
	if (g_users)
		sensors_cleanup();
	if (sensors_init(NULL) != 0) {
		sb_dbg("instruments: libsensors cannot start");
		pthread_mutex_unlock(&g_lock);
		return 0;
	}
	while ((c = sensors_get_detected_chips(NULL, &nr)) && n < max) {
		const sensors_feature *f;
		char chip[96];
		int fn = 0;

		if (sensors_snprintf_chip_name(chip, sizeof(chip), c) < 0)
			continue;
		while ((f = sensors_get_features(c, &fn)) && n < max) {
			bool temp = f->type == SENSORS_FEATURE_TEMP;
			struct sb_found_instrument *i;
			char name[64];
			double v;

			if (!temp && f->type != SENSORS_FEATURE_POWER)
				continue;
			conn_feature(c, f, name, sizeof(name));
			v = feature_value(c, f);
			i = &out[n++];
			memset(i, 0, sizeof(*i));
			sb_strlcpy(i->kind, temp ? "sensor" : "meter", sizeof(i->kind));
			snprintf(i->what, sizeof(i->what), "%s %s%s%s: %.2f %s", chip, f->name,
			         strcmp(name, f->name) ? " " : "",
			         strcmp(name, f->name) ? name : "", v, temp ? "C" : "W");
			snprintf(i->conn, sizeof(i->conn), "sensors:%s?feature=%s", chip, name);
			snprintf(i->note, sizeof(i->note), "card sensor: %s source",
			         temp ? "temperature" : "power");
		}
		discover_rails(c, chip, out, max, &n);
	}
	if (!g_users)
		sensors_cleanup();
	pthread_mutex_unlock(&g_lock);
	return n;
}
