/* SPDX-License-Identifier: MIT */
/* Instruments by connection string: parsing, the driver tables, the public calls. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "instrument_internal.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/util.h"

/* A driver: its scheme, what it is, its operations. */
struct driver {
	const char *scheme, *what;
	const void *ops;
};

static const struct driver temp_drivers[] = {
    {"sim", "the simulated bench's camera", &sb_temp_sim},
    {"flirone", "FLIR One camera over USB (09cb:1996, libusb)", &sb_temp_flirone},
    {"sensors", "a card's hwmon temperature sensor through libsensors", &sb_temp_sensors},
};

static const struct driver power_drivers[] = {
    {"sim", "the simulated bench's power meter", &sb_power_sim},
    {"wattsup", "Watts up? PRO meter (tty or libftdi)", &sb_power_wattsup},
    {"wt310", "Yokogawa WT310 meter (SCPI over USBTMC)", &sb_power_wt310},
    {"sigrok", "a meter or supply libsigrok acquires from (its power, or volts x amps)",
     &sb_power_sigrok},
    {"korad", "Korad/Tenma KA3005P output power (= sigrok:korad-kaxxxxp:conn=...)",
     &sb_power_sigrok},
    {"sensors", "a card's hwmon power sensor (or volts x amps) through libsensors",
     &sb_power_sensors},
};

static const struct driver cooling_drivers[] = {
    {"sim", "the simulated bench's cooling rig", &sb_cooling_sim},
    {"sigrok", "a fan supply libsigrok drives", &sb_cooling_sigrok},
    {"korad", "Korad/Tenma KA3005P fan supply (= sigrok:korad-kaxxxxp:conn=...)",
     &sb_cooling_sigrok},
    {"rig", "the stackbench cooling-rig controller (FTDI serial)", &sb_cooling_rig},
};

const char *sb_conn_opt(const struct sb_conn *c, const char *key)
{
	for (unsigned i = 0; i < c->nopts; i++)
		if (!strcmp(c->opts[i].key, key))
			return c->opts[i].value;
	return NULL;
}

int sb_conn_check_opts(const struct sb_conn *c, const char *const known[])
{
	for (unsigned i = 0; i < c->nopts; i++) {
		unsigned k = 0;

		while (known[k] && strcmp(known[k], c->opts[i].key))
			k++;
		if (!known[k])
			return sb_error_set(SB_ERR_URI,
			                    "connection string '%s': unknown option '%s' for %s:",
			                    c->text, c->opts[i].key, c->scheme);
	}
	return 0;
}

static int parse_opts(struct sb_conn *c, const char *q)
{
	while (*q) {
		const char *amp = strchr(q, '&');
		size_t len = amp ? (size_t)(amp - q) : strlen(q);
		const char *eq = memchr(q, '=', len);
		size_t klen = eq ? (size_t)(eq - q) : 0;

		if (!eq || !klen || klen == len - 1)
			return sb_error_set(
			    SB_ERR_URI,
			    "bad connection string '%s': option '%.*s' is not KEY=VALUE", c->text,
			    (int)len, q);
		if (c->nopts == SB_CONN_MAX_OPTS || klen >= sizeof(c->opts[0].key) ||
		    len - klen - 1 >= sizeof(c->opts[0].value))
			return sb_error_set(
			    SB_ERR_URI, "bad connection string '%s': too many or too long options",
			    c->text);
		memcpy(c->opts[c->nopts].key, q, klen);
		c->opts[c->nopts].key[klen] = '\0';
		memcpy(c->opts[c->nopts].value, eq + 1, len - klen - 1);
		c->opts[c->nopts].value[len - klen - 1] = '\0';
		c->nopts++;
		if (!amp)
			break;
		q = amp + 1;
	}
	return 0;
}

static int conn_parse(const char *text, struct sb_conn *c)
{
	const char *colon = text ? strchr(text, ':') : NULL, *q;
	size_t slen, rlen;

	memset(c, 0, sizeof(*c));
	c->text = text ? text : "";
	if (!colon)
		return sb_error_set(SB_ERR_URI,
		                    "bad connection string '%s': expected SCHEME:[...] (e.g. sim:)",
		                    c->text);
	slen = (size_t)(colon - text);
	if (!slen || slen >= sizeof(c->scheme))
		return sb_error_set(SB_ERR_URI, "bad connection string '%s': bad scheme", text);
	for (size_t i = 0; i < slen; i++)
		if (!islower((unsigned char)text[i]) && !isdigit((unsigned char)text[i]))
			return sb_error_set(SB_ERR_URI,
			                    "bad connection string '%s': the scheme is lower-case "
			                    "letters and digits",
			                    text);
	memcpy(c->scheme, text, slen);
	q = strchr(colon + 1, '?');
	rlen = q ? (size_t)(q - colon - 1) : strlen(colon + 1);
	if (rlen >= sizeof(c->rest))
		return sb_error_set(SB_ERR_URI, "bad connection string '%s': too long", text);
	memcpy(c->rest, colon + 1, rlen);
	return q ? parse_opts(c, q + 1) : 0;
}

/* Find the driver of a connection string. */
static int lookup(const char *kind, const char *text, const struct driver *d, size_t n,
                  struct sb_conn *c, const void **ops)
{
	char list[128];
	size_t off = 0;
	int err;

	if ((err = conn_parse(text, c)) < 0)
		return err;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(d[i].scheme, c->scheme))
			continue;
		*ops = d[i].ops;
		return 0;
	}
	list[0] = '\0';
	for (size_t i = 0; i < n && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s:", i ? ", " : "",
		                        d[i].scheme);
	return sb_error_set(SB_ERR_URI, "%s '%s': unknown scheme '%s' (known: %s)", kind, text,
	                    c->scheme, list);
}

int sb_instrument_check(enum sb_instrument_kind kind, const char *conn)
{
	static const struct {
		const char *kind;
		const struct driver *d;
		size_t n;
	} kinds[] = {
	    [SB_INSTRUMENT_TEMPERATURE] = {"temperature source", temp_drivers,
	                                   SB_ARRAY_SIZE(temp_drivers)},
	    [SB_INSTRUMENT_POWER] = {"power source", power_drivers, SB_ARRAY_SIZE(power_drivers)},
	    [SB_INSTRUMENT_COOLING] = {"cooling actuator", cooling_drivers,
	                               SB_ARRAY_SIZE(cooling_drivers)},
	};
	struct sb_conn c;
	const void *ops;

	if ((unsigned)kind >= SB_ARRAY_SIZE(kinds))
		return sb_error_set(SB_ERR_INVAL, "instrument kind %d", (int)kind);
	return lookup(kinds[kind].kind, conn, kinds[kind].d, kinds[kind].n, &c, &ops);
}

const char *sb_instrument_scheme(enum sb_instrument_kind kind, unsigned i, const char **what)
{
	static const struct {
		const struct driver *d;
		size_t n;
	} kinds[] = {
	    [SB_INSTRUMENT_TEMPERATURE] = {temp_drivers, SB_ARRAY_SIZE(temp_drivers)},
	    [SB_INSTRUMENT_POWER] = {power_drivers, SB_ARRAY_SIZE(power_drivers)},
	    [SB_INSTRUMENT_COOLING] = {cooling_drivers, SB_ARRAY_SIZE(cooling_drivers)},
	};

	if ((unsigned)kind >= SB_ARRAY_SIZE(kinds) || i >= kinds[kind].n)
		return NULL;
	if (what)
		*what = kinds[kind].d[i].what;
	return kinds[kind].d[i].scheme;
}

/* What every instrument handle holds. */
struct handle {
	const void *ops;
	void *priv; /* NULL after a reconnect that failed */
	char conn[256];
	const char *driver, *kind;
	struct sb_device *dev;
};

uint64_t sb_inst_mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int sb_conn_opt_uint(const struct sb_conn *c, const char *key, unsigned min, unsigned max,
                     unsigned *out)
{
	const char *v = sb_conn_opt(c, key);
	unsigned long x;
	char *end;

	if (!v)
		return 0;
	errno = 0;
	x = strtoul(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || errno || x < min || x > max)
		return sb_error_set(SB_ERR_INVAL,
		                    "connection string '%s': option %s='%s' is not a number in "
		                    "[%u, %u]",
		                    c->text, key, v, min, max);
	*out = (unsigned)x;
	return 1;
}

/* A handle whose driver is gone (a reconnect failed): every call says so. */
static int not_connected(const struct handle *h)
{
	return sb_error_set(SB_ERR_IO, "%s '%s' is not connected (the last reconnect failed)",
	                    h->kind, h->conn);
}

/*
 * Close the driver of a handle and open its connection string again, every 250 ms until it
 * opens or timeout_ms have passed.
 */
static int reconnect(struct handle *h, void (*close_fn)(const void *ops, void *priv),
                     int (*open_fn)(const void *ops, const struct sb_conn *c, struct sb_device *dev,
                                    void **priv),
                     unsigned timeout_ms)
{
	uint64_t until = sb_inst_mono_ns() + (uint64_t)timeout_ms * 1000000u;
	unsigned attempts = 0;
	struct sb_conn c;
	int err;

	if (h->priv)
		close_fn(h->ops, h->priv);
	h->priv = NULL;
	if ((err = conn_parse(h->conn, &c)) < 0)
		return err;
	for (;;) {
		void *priv = NULL;

		attempts++;
		if ((err = open_fn(h->ops, &c, h->dev, &priv)) >= 0) {
			h->priv = priv;
			sb_info("%s '%s' reconnected (attempt %u)", h->kind, h->conn, attempts);
			return 0;
		}
		if (sb_inst_mono_ns() >= until)
			break;
		nanosleep(&(struct timespec){0, 250000000}, NULL);
	}
	return sb_error_wrap(err, "%s '%s' did not come back within %.1f s (%u attempts)", h->kind,
	                     h->conn, timeout_ms / 1000.0, attempts);
}

static int open_handle(struct handle **out, size_t size, const char *kind, const char *text,
                       const struct driver *d, size_t n, struct sb_device *dev,
                       int (*open_fn)(const void *ops, const struct sb_conn *c,
                                      struct sb_device *dev, void **priv))
{
	struct sb_conn c;
	struct handle *h;
	const void *ops = NULL;
	int err;

	*out = NULL;
	if ((err = lookup(kind, text, d, n, &c, &ops)) < 0)
		return err;
	h = calloc(1, size);
	if (!h)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening %s '%s'", kind, text);
	h->ops = ops;
	sb_strlcpy(h->conn, text, sizeof(h->conn));
	h->dev = dev;
	h->kind = kind;
	for (size_t i = 0; i < n && !h->driver; i++)
		if (!strcmp(d[i].scheme, c.scheme))
			h->driver = d[i].scheme;
	if ((err = open_fn(ops, &c, dev, &h->priv)) < 0) {
		free(h);
		return sb_error_wrap(err, "cannot open %s '%s'", kind, text);
	}
	*out = h;
	return 0;
}

/* ---- temperature ------------------------------------------------------------------------ */

struct sb_temp_source {
	struct handle h;
};

static int temp_open_fn(const void *ops, const struct sb_conn *c, struct sb_device *dev,
                        void **priv)
{
	return ((const struct sb_temp_ops *)ops)->open(c, dev, priv);
}

static const struct sb_temp_ops *temp_ops(const struct sb_temp_source *s)
{
	return s->h.ops;
}

int sb_temp_source_open(struct sb_temp_source **out, const char *conn, struct sb_device *dev)
{
	struct handle *h;
	int err = open_handle(&h, sizeof(**out), "temperature source", conn, temp_drivers,
	                      SB_ARRAY_SIZE(temp_drivers), dev, temp_open_fn);

	*out = err < 0 ? NULL : (struct sb_temp_source *)h; /* the handle is the first member */
	return err;
}

void sb_temp_source_close(struct sb_temp_source *s)
{
	if (!s)
		return;
	if (s->h.priv)
		temp_ops(s)->close(s->h.priv);
	free(s);
}

int sb_temp_source_sample(struct sb_temp_source *s, struct sb_temp_reading *r)
{
	memset(r, 0, sizeof(*r));
	if (!s->h.priv)
		return not_connected(&s->h);
	return temp_ops(s)->sample(s->h.priv, r);
}

int sb_temp_source_set_roi(struct sb_temp_source *s, const struct sb_roi *roi)
{
	if (!s->h.priv)
		return not_connected(&s->h);
	return temp_ops(s)->set_roi(s->h.priv, roi);
}

static void temp_close_fn(const void *ops, void *priv)
{
	((const struct sb_temp_ops *)ops)->close(priv);
}

int sb_temp_source_reconnect(struct sb_temp_source *s, unsigned timeout_ms)
{
	return reconnect(&s->h, temp_close_fn, temp_open_fn, timeout_ms);
}

const char *sb_temp_source_driver(const struct sb_temp_source *s)
{
	return s->h.driver;
}

const char *sb_temp_source_conn(const struct sb_temp_source *s)
{
	return s->h.conn;
}

/* ---- power ------------------------------------------------------------------------------ */

struct sb_power_source {
	struct handle h;
};

static int power_open_fn(const void *ops, const struct sb_conn *c, struct sb_device *dev,
                         void **priv)
{
	return ((const struct sb_power_ops *)ops)->open(c, dev, priv);
}

static const struct sb_power_ops *power_ops(const struct sb_power_source *s)
{
	return s->h.ops;
}

int sb_power_source_open(struct sb_power_source **out, const char *conn, struct sb_device *dev)
{
	struct handle *h;
	int err = open_handle(&h, sizeof(**out), "power source", conn, power_drivers,
	                      SB_ARRAY_SIZE(power_drivers), dev, power_open_fn);

	*out = err < 0 ? NULL : (struct sb_power_source *)h; /* the handle is the first member */
	return err;
}

void sb_power_source_close(struct sb_power_source *s)
{
	if (!s)
		return;
	if (s->h.priv)
		power_ops(s)->close(s->h.priv);
	free(s);
}

int sb_power_source_sample(struct sb_power_source *s, struct sb_power_reading *r)
{
	memset(r, 0, sizeof(*r));
	if (!s->h.priv)
		return not_connected(&s->h);
	return power_ops(s)->sample(s->h.priv, r);
}

const char *sb_power_source_driver(const struct sb_power_source *s)
{
	return s->h.driver;
}

const char *sb_power_source_conn(const struct sb_power_source *s)
{
	return s->h.conn;
}

static void power_close_fn(const void *ops, void *priv)
{
	((const struct sb_power_ops *)ops)->close(priv);
}

int sb_power_source_reconnect(struct sb_power_source *s, unsigned timeout_ms)
{
	return reconnect(&s->h, power_close_fn, power_open_fn, timeout_ms);
}

/* ---- cooling ---------------------------------------------------------------------------- */

struct sb_cooling {
	struct handle h;
};

static int cooling_open_fn(const void *ops, const struct sb_conn *c, struct sb_device *dev,
                           void **priv)
{
	return ((const struct sb_cooling_ops *)ops)->open(c, dev, priv);
}

static const struct sb_cooling_ops *cooling_ops(const struct sb_cooling *c)
{
	return c->h.ops;
}

int sb_cooling_open(struct sb_cooling **out, const char *conn, struct sb_device *dev)
{
	struct handle *h;
	int err = open_handle(&h, sizeof(**out), "cooling actuator", conn, cooling_drivers,
	                      SB_ARRAY_SIZE(cooling_drivers), dev, cooling_open_fn);

	*out = err < 0 ? NULL : (struct sb_cooling *)h; /* the handle is the first member */
	return err;
}

void sb_cooling_close(struct sb_cooling *c)
{
	if (!c)
		return;
	cooling_ops(c)->close(c->h.priv);
	free(c);
}

int sb_cooling_apply(struct sb_cooling *c, const char *name)
{
	return cooling_ops(c)->apply(c->h.priv, name);
}

int sb_cooling_status(struct sb_cooling *c, struct sb_cooling_state *st)
{
	memset(st, 0, sizeof(*st));
	return cooling_ops(c)->status(c->h.priv, st);
}

unsigned sb_cooling_count(const struct sb_cooling *c)
{
	return cooling_ops(c)->count(c->h.priv);
}

const char *sb_cooling_name(const struct sb_cooling *c, unsigned i)
{
	return i < sb_cooling_count(c) ? cooling_ops(c)->name(c->h.priv, i) : NULL;
}

int sb_cooling_describe(struct sb_cooling *c, unsigned i, struct sb_cooling_state *st)
{
	memset(st, 0, sizeof(*st));
	if (i >= sb_cooling_count(c))
		return sb_error_set(SB_ERR_RANGE,
		                    "cooling actuator '%s' has %u configurations, not %u",
		                    c->h.conn, sb_cooling_count(c), i + 1);
	return cooling_ops(c)->describe(c->h.priv, i, st);
}

const char *sb_cooling_driver(const struct sb_cooling *c)
{
	return c->h.driver;
}

int sb_cooling_recover(struct sb_cooling *c)
{
	if (!cooling_ops(c)->recover)
		return sb_error_set(SB_ERR_NOT_SUPPORTED, "cooling actuator '%s' has no fail-safe",
		                    c->h.conn);
	return cooling_ops(c)->recover(c->h.priv);
}
