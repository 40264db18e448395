/* SPDX-License-Identifier: MIT */
/*
 * Cooling through libsigrok: the supply of the backplane fans, driven by whatever libsigrok
 * driver it needs (korad-kaxxxxp, scpi-pps, rdtech-dps, ...). sigrok:DRIVER[:KEY=VALUE...]
 * passes the driver's scan options (conn=..., serialcomm=...); korad:PATH is the alias of
 * sigrok:korad-kaxxxxp:conn=PATH. The cooling configurations map to supply settings: from the
 * YAML file of the option configs=FILE, or the four published ones (Cfg1 12 V / 0.36 A,
 * Cfg2 10 V / 0.29 A, Cfg3 6.5 V / 0.14 A, Cfg4 6.0 V / 0.13 A).
 *
 * Applying a configuration sets the voltage target and the current limit, turns the output on
 * and reads back the output voltage and current.
 */
#include <glib.h>
#include <libsigrok/libsigrok.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "instrument_internal.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/util.h"
#include "stackbench/yaml.h"

#define MAX_CFG 16

struct fan_cfg {
	char name[SB_INSTRUMENT_NAME_MAX];
	double volts, amps;
};

static const struct fan_cfg published[] = {
    {"Cfg1", 12.0, 0.36},
    {"Cfg2", 10.0, 0.29},
    {"Cfg3", 6.5, 0.14},
    {"Cfg4", 6.0, 0.13},
};

struct sigrok_cooling {
	char conn[256];
	struct sr_context *ctx;
	struct sr_dev_driver *drv;
	struct sr_dev_inst *sdi;
	bool open;
	struct fan_cfg cfg[MAX_CFG];
	unsigned ncfg;
	int applied; /* index, -1: none */
};

static int load_configs(struct sigrok_cooling *s, const char *path)
{
	struct sb_yaml y;
	struct fy_node *root, *v;
	const char *key;
	void *it = NULL;
	int err;

	if ((err = sb_yaml_load_file(&y, path)) < 0)
		return err;
	root = sb_yaml_root(&y);
	if ((err = sb_yaml_expect_map(&y, root, "the document")) < 0)
		goto out;
	/* configurations: { Cfg1: {volts: 12, amps: 0.36}, ... } */
	root = sb_yaml_get(root, "configurations");
	if (!root) {
		err = sb_yaml_error(&y, sb_yaml_root(&y), SB_ERR_PARSE,
		                    "missing key 'configurations'");
		goto out;
	}
	if ((err = sb_yaml_expect_map(&y, root, "key 'configurations'")) < 0)
		goto out;
	s->ncfg = 0;
	while (sb_yaml_map_next(root, &it, &key, &v, NULL)) {
		static const char *const keys[] = {"volts", "amps", NULL};
		struct fan_cfg *c = &s->cfg[s->ncfg];

		if (s->ncfg == MAX_CFG || strlen(key) >= sizeof(c->name)) {
			err =
			    sb_yaml_error(&y, v, SB_ERR_PARSE,
			                  "too many configurations or name '%.40s' too long", key);
			goto out;
		}
		sb_strlcpy(c->name, key, sizeof(c->name));
		if ((err = sb_yaml_expect_map(&y, v, key)) < 0 ||
		    (err = sb_yaml_check_keys(&y, v, key, keys)) < 0 ||
		    (err = sb_yaml_get_double(&y, v, "volts", true, 0, 60, &c->volts)) < 0 ||
		    (err = sb_yaml_get_double(&y, v, "amps", true, 0, 10, &c->amps)) < 0)
			goto out;
		s->ncfg++;
	}
	err =
	    s->ncfg ? 0 : sb_yaml_error(&y, root, SB_ERR_PARSE, "no cooling configuration listed");
out:
	sb_yaml_release(&y);
	return err;
}

static void sigrok_close(void *priv)
{
	struct sigrok_cooling *s = priv;

	if (!s)
		return;
	if (s->open)
		sr_dev_close(s->sdi);
	if (s->ctx)
		sr_exit(s->ctx);
	free(s);
}

static void add_opt(GSList **opts, uint32_t key, const char *value)
{
	struct sr_config *src = g_malloc0(sizeof(*src));

	src->key = key;
	src->data = g_variant_ref_sink(g_variant_new_string(value));
	*opts = g_slist_append(*opts, src);
}

/* Driver name and scan options from "DRIVER[:KEY=VALUE[:KEY=VALUE]]" (or korad: PATH). */
static int scan_options(const struct sb_conn *c, char *driver, size_t dcap, GSList **opts)
{
	const char *p = c->rest, *colon;
	size_t len;

	*opts = NULL;
	if (!strcmp(c->scheme, "korad")) {
		if (c->rest[0] != '/')
			return sb_error_set(SB_ERR_URI,
			                    "connection string '%s': expected korad:/dev/ttyXXX",
			                    c->text);
		sb_strlcpy(driver, "korad-kaxxxxp", dcap);
		add_opt(opts, SR_CONF_CONN, c->rest);
		return 0;
	}
	colon = strchr(p, ':');
	len = colon ? (size_t)(colon - p) : strlen(p);
	if (!len || len >= dcap)
		return sb_error_set(SB_ERR_URI,
		                    "connection string '%s': expected sigrok:DRIVER[:conn=...]",
		                    c->text);
	memcpy(driver, p, len);
	driver[len] = '\0';
	while (colon) {
		char item[200];

		p = colon + 1;
		colon = strchr(p, ':');
		/* conn=/dev/ttyUSB0 holds no ':'; a value that needs one is the last item */
		if (!strncmp(p, "conn=", 5))
			colon = NULL;
		len = colon ? (size_t)(colon - p) : strlen(p);
		if (len >= sizeof(item))
			return sb_error_set(SB_ERR_URI, "connection string '%s': option too long",
			                    c->text);
		memcpy(item, p, len);
		item[len] = '\0';
		if (!strncmp(item, "conn=", 5) && item[5])
			add_opt(opts, SR_CONF_CONN, item + 5);
		else if (!strncmp(item, "serialcomm=", 11) && item[11])
			add_opt(opts, SR_CONF_SERIALCOMM, item + 11);
		else
			return sb_error_set(SB_ERR_URI,
			                    "connection string '%s': scan option '%s' is not "
			                    "conn=... or serialcomm=...",
			                    c->text, item);
	}
	return 0;
}

static void free_config(gpointer p)
{
	struct sr_config *src = p;

	g_variant_unref(src->data);
	g_free(src);
}

int sb_sigrok_scan_options(const struct sb_conn *c, char *driver, size_t dcap, void **opts)
{
	return scan_options(c, driver, dcap, (GSList **)opts);
}

void sb_sigrok_free_options(void *opts)
{
	g_slist_free_full(opts, free_config);
}

/* libsigrok's last warning or error on this thread: the detail of our own error. */
static _Thread_local char sigrok_last[200];

/*
 * libsigrok's log, into ours at debug level (info with $SB_SIGROK_DEBUG): nothing of it on
 * stderr before the error that explains it ("sr: serial-libsp: Attempt to open serial port
 * ..."); the last warning or error is kept for that error's detail.
 */
static int sigrok_log(void *cb_data, int level, const char *fmt, va_list ap)
{
	char msg[256];
	size_t n;

	(void)cb_data;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	if (level <= SR_LOG_WARN)
		snprintf(sigrok_last, sizeof(sigrok_last), "%s", msg);
	if (getenv("SB_SIGROK_DEBUG"))
		sb_info("libsigrok: %s", msg);
	else
		sb_dbg("libsigrok: %s", msg);
	return SR_OK;
}

int sb_sigrok_open_dev(const struct sb_conn *c, const char *driver, void *opts, const char *what,
                       struct sr_context **ctx, struct sr_dev_driver **drv,
                       struct sr_dev_inst **sdi)
{
	struct sr_dev_driver **list;
	GSList *found;

	*ctx = NULL;
	*drv = NULL;
	*sdi = NULL;
	sigrok_last[0] = '\0';
	sr_log_callback_set(sigrok_log, NULL);
	sr_log_loglevel_set(getenv("SB_SIGROK_DEBUG") ? SR_LOG_SPEW : SR_LOG_WARN);
	if (sr_init(ctx) != SR_OK) {
		*ctx = NULL;
		return sb_error_set(SB_ERR_IO, "'%s': libsigrok does not start", c->text);
	}
	list = sr_driver_list(*ctx);
	for (unsigned i = 0; list && list[i]; i++)
		if (!strcmp(list[i]->name, driver))
			*drv = list[i];
	if (!*drv)
		return sb_error_set(SB_ERR_URI,
		                    "'%s': libsigrok has no driver '%s' ('sigrok-cli -L' "
		                    "lists them)",
		                    c->text, driver);
	if (sr_driver_init(*ctx, *drv) != SR_OK)
		return sb_error_set(SB_ERR_IO, "'%s': the libsigrok driver '%s' does not start",
		                    c->text, driver);
	/* a serial port that is not there: what every instrument on a node says */
	for (GSList *l = opts; l; l = l->next) {
		const struct sr_config *cfg = l->data;
		const char *port;

		if (cfg->key != SR_CONF_CONN ||
		    !g_variant_is_of_type(cfg->data, G_VARIANT_TYPE_STRING))
			continue;
		port = g_variant_get_string(cfg->data, NULL);
		if (port[0] == '/' && access(port, F_OK) < 0)
			return sb_error_set(SB_ERR_NOT_FOUND,
			                    "'%s': '%s' does not exist: is the instrument plugged "
			                    "in? ('stackbench instruments' lists what is)",
			                    c->text, port);
	}
	found = sr_driver_scan(*drv, opts);
	if (!found)
		return sb_error_set(SB_ERR_NOT_FOUND,
		                    "'%s': libsigrok's %s driver found no %s there%s%s%s: is it "
		                    "plugged in and switched on, is the port right? ('stackbench "
		                    "instruments' lists what is)",
		                    c->text, driver, what, sigrok_last[0] ? " (libsigrok: " : "",
		                    sigrok_last, sigrok_last[0] ? ")" : "");
	*sdi = found->data;
	g_slist_free(found);
	if (sr_dev_open(*sdi) != SR_OK) {
		*sdi = NULL;
		return sb_error_set(SB_ERR_BUSY,
		                    "'%s': cannot open the %s (held by another process?)", c->text,
		                    what);
	}
	return 0;
}

static int sigrok_open(const struct sb_conn *c, struct sb_device *dev, void **priv)
{
	static const char *const known[] = {"configs", NULL};
	struct sigrok_cooling *s = calloc(1, sizeof(*s));
	const char *cfgs = sb_conn_opt(c, "configs");
	char driver[64];
	GSList *opts = NULL;
	int err;

	(void)dev;
	if (!s)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening '%s'", c->text);
	sb_strlcpy(s->conn, c->text, sizeof(s->conn));
	s->applied = -1;
	memcpy(s->cfg, published, sizeof(published));
	s->ncfg = SB_ARRAY_SIZE(published);
	if ((err = sb_conn_check_opts(c, known)) < 0 ||
	    (err = scan_options(c, driver, sizeof(driver), &opts)) < 0)
		goto fail;
	if (cfgs && (err = load_configs(s, cfgs)) < 0) {
		err = err == SB_ERR_IO ? SB_ERR_INVAL : err;
		goto fail;
	}
	if ((err = sb_sigrok_open_dev(c, driver, opts, "supply", &s->ctx, &s->drv, &s->sdi)) < 0)
		goto fail;
	s->open = true;
	sb_info("'%s': %s %s", c->text, sr_dev_inst_vendor_get(s->sdi),
	        sr_dev_inst_model_get(s->sdi));
	g_slist_free_full(opts, free_config);
	*priv = s;
	return 0;

fail:
	g_slist_free_full(opts, free_config);
	sigrok_close(s);
	return err;
}

static int set_double(struct sigrok_cooling *s, uint32_t key, double v, const char *what)
{
	int r = sr_config_set(s->sdi, NULL, key, g_variant_new_double(v));

	return r == SR_OK ? 0
	                  : sb_error_set(SB_ERR_DEVICE, "'%s': setting the %s to %g failed (%s)",
	                                 s->conn, what, v, sr_strerror(r));
}

static int get_double(struct sigrok_cooling *s, uint32_t key, double *v)
{
	GVariant *g = NULL;
	int r = sr_config_get(s->drv, s->sdi, NULL, key, &g);

	if (r != SR_OK || !g)
		return sb_error_set(SB_ERR_DEVICE, "'%s': reading back the supply failed (%s)",
		                    s->conn, sr_strerror(r));
	*v = g_variant_get_double(g);
	g_variant_unref(g);
	return 0;
}

static int sigrok_apply(void *priv, const char *name)
{
	struct sigrok_cooling *s = priv;
	int r;

	for (unsigned i = 0; i < s->ncfg; i++) {
		int err;

		if (strcmp(s->cfg[i].name, name))
			continue;
		if ((err = set_double(s, SR_CONF_VOLTAGE_TARGET, s->cfg[i].volts, "voltage")) < 0 ||
		    (err = set_double(s, SR_CONF_CURRENT_LIMIT, s->cfg[i].amps, "current limit")) <
		        0)
			return err;
		r = sr_config_set(s->sdi, NULL, SR_CONF_ENABLED, g_variant_new_boolean(TRUE));
		if (r != SR_OK)
			return sb_error_set(SB_ERR_DEVICE,
			                    "'%s': turning the output on failed (%s)", s->conn,
			                    sr_strerror(r));
		s->applied = (int)i;
		return 0;
	}
	return sb_error_set(SB_ERR_NOT_FOUND, "'%s' has no cooling configuration '%s'", s->conn,
	                    name);
}

static void fill(const struct fan_cfg *c, struct sb_cooling_state *st)
{
	sb_strlcpy(st->name, c->name, sizeof(st->name));
	st->fan_supply_v = c->volts;
	st->fan_supply_a = c->amps;
	st->fan_rpm = NAN;
	st->cooling_power_w = c->volts * c->amps;
}

static int sigrok_status(void *priv, struct sb_cooling_state *st)
{
	struct sigrok_cooling *s = priv;
	double v = NAN, a = NAN;
	int err;

	if (s->applied >= 0)
		fill(&s->cfg[s->applied], st);
	else
		st->fan_rpm = NAN;
	if ((err = get_double(s, SR_CONF_VOLTAGE, &v)) < 0 ||
	    (err = get_double(s, SR_CONF_CURRENT, &a)) < 0)
		return err;
	st->fan_supply_v = v;
	st->fan_supply_a = a;
	st->cooling_power_w = v * a;
	return 0;
}

static unsigned sigrok_count(void *priv)
{
	return ((struct sigrok_cooling *)priv)->ncfg;
}

static const char *sigrok_name(void *priv, unsigned i)
{
	return ((struct sigrok_cooling *)priv)->cfg[i].name;
}

static int sigrok_describe(void *priv, unsigned i, struct sb_cooling_state *st)
{
	fill(&((struct sigrok_cooling *)priv)->cfg[i], st);
	return 0;
}

const struct sb_cooling_ops sb_cooling_sigrok = {
    .open = sigrok_open,
    .close = sigrok_close,
    .apply = sigrok_apply,
    .status = sigrok_status,
    .count = sigrok_count,
    .name = sigrok_name,
    .describe = sigrok_describe,
};
