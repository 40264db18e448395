/* SPDX-License-Identifier: MIT */
/*
 * The cooling-rig controller (firmware/, docs/rig-protocol.md): the protocol client over a byte
 * pipe (rig_link.c) and the cooling actuator rig:ftdi[:SERIAL] / rig:/dev/ttyUSB0.
 *
 * The actuator turns named cooling configurations (Cfg1..Cfg4 of a rig file, thermal/rigs/,
 * or the user's) into fan duties, writes the fail-safe limits to the controller, reports the
 * heatsink and ambient thermocouples, the fans and the fail-safe with its status, and keeps the
 * controller's host-silence timer fed from a thread while it is open: when this process dies,
 * the controller takes the fans to 100 % after its silence limit.
 *
 * With a fan supply (option supply=sigrok:... or korad:..., sigrok.c), the fans the rig file
 * names in supply_fans run at 100 % duty on the supply's voltage: a configuration sets the
 * supply's configuration of the same name (its voltage and current limit) before the rig's
 * duties, and the state reports the supply's voltage and current as read back.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "instrument_internal.h"
#include "rig_internal.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/util.h"
#include "stackbench/yaml.h"

#ifndef SB_RIG_SOURCE_DIR
#define SB_RIG_SOURCE_DIR "thermal/rigs"
#endif
#ifndef SB_RIG_INSTALL_DIR
#define SB_RIG_INSTALL_DIR "/usr/local/share/stackbench/rigs"
#endif
#define SB_RIG_DEFAULT_FILE "ac510-rig"
#define RIG_MAX_CONFIGS 32

/* Faults a host clears when it takes over: they say what happened while nobody drove the rig
 * (a reset, a previous host gone), not that the cube is in danger. */
#define TAKEOVER_FAULTS                                                                            \
	(SB_RIG_FAULT_RESET | SB_RIG_FAULT_WATCHDOG | SB_RIG_FAULT_HOST_SILENCE |                  \
	 SB_RIG_FAULT_EEPROM)

struct sb_rig {
	struct sb_rig_link link;
	pthread_mutex_t lock; /* one request at a time (the keep-alive thread too) */
	uint8_t seq;
	struct sb_rig_decoder dec;
	struct sb_rig_ident id;
	/* keep-alive */
	pthread_t thread;
	pthread_cond_t cond;
	bool running, stop;
	unsigned period_ms, missed;
};

/* ---- client ------------------------------------------------------------------------------- */

const char *sb_rig_faults_text(uint16_t faults, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	if (!faults)
		return sb_strlcpy(buf, "none", size), buf;
	for (unsigned i = 0; i < 16 && off < size; i++)
		if (faults & (1u << i))
			off += (size_t)snprintf(buf + off, size - off, "%s%s", off ? ", " : "",
			                        sb_rig_fault_name((uint16_t)(1u << i)));
	return buf;
}

const char *sb_rig_where(const struct sb_rig *r)
{
	return r->link.name;
}

const struct sb_rig_ident *sb_rig_ident(const struct sb_rig *r)
{
	return &r->id;
}

/* Wait for the answer to (seq, cmd): 1 with it in *f, 0 on timeout (or a damaged answer),
 * negative on a pipe error. Stale answers (other sequence numbers) are skipped. */
static int await(struct sb_rig *r, uint8_t seq, uint8_t cmd, struct sb_rig_frame *f, int timeout_ms)
{
	struct timespec t0, now;
	uint8_t buf[64];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int left, n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = timeout_ms - (int)((now.tv_sec - t0.tv_sec) * 1000 +
		                          (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			return 0;
		n = r->link.ops->read(r->link.priv, buf, sizeof(buf), left);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			enum sb_rig_decode_result d = sb_rig_decode_byte(&r->dec, buf[i], f);

			if (d == SB_RIG_DEC_BAD_CRC && f->seq == seq) {
				sb_dbg("cooling rig '%s': damaged answer to 0x%02x", r->link.name,
				       cmd);
				return 0;
			}
			if (d != SB_RIG_DEC_FRAME)
				continue;
			if (f->seq == seq && f->cmd == (cmd | SB_RIG_RESPONSE) && f->len >= 1)
				return 1;
			sb_dbg("cooling rig '%s': skipped a stale answer (seq %u cmd 0x%02x)",
			       r->link.name, f->seq, f->cmd);
		}
	}
}

/* One request: tries of timeout_ms each, doubled after each miss when backoff is set (a host
 * that is itself slow to be scheduled still gets its answer). */
static int request_locked(struct sb_rig *r, uint8_t cmd, const uint8_t *payload, uint8_t len,
                          uint8_t *resp, uint8_t *resp_len, int tries, int timeout_ms, bool backoff)
{
	uint8_t buf[SB_RIG_MAX_FRAME];
	struct sb_rig_frame f;
	int e, waited = 0;

	for (int t = 0; t < tries; t++, waited += timeout_ms, timeout_ms <<= backoff) {
		uint8_t seq = ++r->seq;
		size_t n = sb_rig_encode(buf, sizeof(buf), seq, cmd, payload, len);

		sb_rig_decoder_init(&r->dec); /* a frame cut on an earlier try is dropped */
		if (!n)
			return sb_error_set(SB_ERR_INVAL, "cooling rig: payload of %u bytes", len);
		if ((e = r->link.ops->write(r->link.priv, buf, n)) < 0)
			return e;
		if ((e = await(r, seq, cmd, &f, timeout_ms)) < 0)
			return e;
		if (!e)
			continue;
		/* A frame the controller saw damaged (or cut): send it again. */
		if (f.payload[0] == SB_RIG_ERR_BAD_CRC || f.payload[0] == SB_RIG_ERR_TRUNCATED)
			continue;
		if (resp_len) {
			*resp_len = (uint8_t)(f.len - 1);
			if (resp)
				memcpy(resp, f.payload + 1, f.len - 1u);
		}
		return f.payload[0];
	}
	return sb_error_set(SB_ERR_TIMEOUT,
	                    "cooling rig '%s': no answer to command 0x%02x after %d tries (%d ms)",
	                    r->link.name, cmd, tries, waited);
}

int sb_rig_request(struct sb_rig *r, uint8_t cmd, const uint8_t *payload, uint8_t len,
                   uint8_t *resp, uint8_t *resp_len)
{
	int e;

	pthread_mutex_lock(&r->lock);
	e = request_locked(r, cmd, payload, len, resp, resp_len, SB_RIG_TRIES, SB_RIG_TIMEOUT_MS,
	                   true);
	pthread_mutex_unlock(&r->lock);
	return e;
}

/* A command whose answer must be OK with exactly want bytes of data. */
static int command(struct sb_rig *r, uint8_t cmd, const char *what, const uint8_t *payload,
                   uint8_t len, uint8_t *resp, uint8_t want)
{
	uint8_t data[SB_RIG_MAX_PAYLOAD], n = 0;
	int st = sb_rig_request(r, cmd, payload, len, data, &n);

	if (st < 0)
		return st;
	if (st != SB_RIG_OK)
		return sb_error_set(st == SB_RIG_ERR_FAILSAFE || st == SB_RIG_ERR_FAULT_ACTIVE
		                        ? SB_ERR_STATE
		                    : st == SB_RIG_ERR_OUT_OF_RANGE ? SB_ERR_RANGE
		                                                    : SB_ERR_DEVICE,
		                    "cooling rig '%s': %s refused: %s", r->link.name, what,
		                    sb_rig_status_name((uint8_t)st));
	if (n != want)
		return sb_error_set(SB_ERR_PARSE,
		                    "cooling rig '%s': answer to %s has %u bytes, expected %u",
		                    r->link.name, what, n, want);
	if (want)
		memcpy(resp, data, want);
	return 0;
}

int sb_rig_get_status(struct sb_rig *r, struct sb_rig_status *st)
{
	uint8_t p[SB_RIG_STATUS_BYTES];
	int e = command(r, SB_RIG_CMD_GET_STATUS, "status", NULL, 0, p, sizeof(p));

	if (e == 0)
		sb_rig_status_decode(p, st);
	return e;
}

int sb_rig_set_fans(struct sb_rig *r, const uint16_t duty_pm[SB_RIG_FANS])
{
	uint8_t p[2 * SB_RIG_FANS];

	for (unsigned i = 0; i < SB_RIG_FANS; i++)
		sb_rig_put16(p + 2 * i, duty_pm[i]);
	return command(r, SB_RIG_CMD_SET_FANS, "setting the fans", p, sizeof(p), NULL, 0);
}

int sb_rig_get_limits(struct sb_rig *r, struct sb_rig_limits *l, bool *defaults)
{
	uint8_t p[SB_RIG_LIMITS_BYTES + 1];
	int e = command(r, SB_RIG_CMD_GET_LIMITS, "reading the limits", NULL, 0, p, sizeof(p));

	if (e < 0)
		return e;
	sb_rig_limits_decode(p, l);
	if (defaults)
		*defaults = p[SB_RIG_LIMITS_BYTES];
	return 0;
}

int sb_rig_set_limits(struct sb_rig *r, const struct sb_rig_limits *l)
{
	uint8_t p[SB_RIG_LIMITS_BYTES];

	sb_rig_limits_encode(p, l);
	return command(r, SB_RIG_CMD_SET_LIMITS, "setting the limits", p, sizeof(p), NULL, 0);
}

int sb_rig_clear_faults(struct sb_rig *r, uint16_t mask, uint16_t *left)
{
	uint8_t p[2], data[SB_RIG_MAX_PAYLOAD], n = 0;
	char buf[128];
	int st;

	sb_rig_put16(p, mask);
	st = sb_rig_request(r, SB_RIG_CMD_CLEAR_FAULTS, p, 2, data, &n);
	if (st < 0)
		return st;
	if (st == SB_RIG_OK && n == 2) {
		*left = sb_rig_get16(data);
		return 0;
	}
	if (st == SB_RIG_ERR_FAULT_ACTIVE) {
		struct sb_rig_status s;
		int e = sb_rig_get_status(r, &s);

		*left = e < 0 ? mask : s.faults;
		return sb_error_set(SB_ERR_STATE,
		                    "cooling rig '%s': cannot clear faults still present: %s",
		                    r->link.name,
		                    sb_rig_faults_text(e < 0 ? mask : (uint16_t)(s.active & mask),
		                                       buf, sizeof(buf)));
	}
	return sb_error_set(SB_ERR_DEVICE, "cooling rig '%s': clearing faults refused: %s",
	                    r->link.name, sb_rig_status_name((uint8_t)st));
}

static void *keepalive_main(void *arg)
{
	struct sb_rig *r = arg;
	struct timespec at;

	pthread_mutex_lock(&r->lock);
	clock_gettime(CLOCK_MONOTONIC, &at);
	while (!r->stop) {
		uint8_t n;
		int st;

		at.tv_nsec += (long)r->period_ms * 1000000L;
		at.tv_sec += at.tv_nsec / 1000000000L;
		at.tv_nsec %= 1000000000L;
		if (pthread_cond_timedwait(&r->cond, &r->lock, &at) == 0 || r->stop)
			continue;
		st = request_locked(r, SB_RIG_CMD_GET_STATUS, NULL, 0, NULL, &n, 1,
		                    SB_RIG_TIMEOUT_MS, false);
		if (st < 0 && !r->missed++)
			sb_warn("cooling rig '%s': keep-alive: %s", r->link.name,
			        sb_error_detail());
		else if (st >= 0)
			r->missed = 0;
		clock_gettime(CLOCK_MONOTONIC, &at);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static void keepalive_stop(struct sb_rig *r)
{
	if (!r->running)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	r->running = false;
}

int sb_rig_keepalive(struct sb_rig *r, unsigned period_ms)
{
	keepalive_stop(r);
	if (!period_ms)
		return 0;
	r->stop = false;
	r->period_ms = period_ms;
	if (pthread_create(&r->thread, NULL, keepalive_main, r))
		return sb_error_set(SB_ERR_NOMEM, "cooling rig '%s': cannot start the keep-alive",
		                    r->link.name);
	r->running = true;
	return 0;
}

int sb_rig_open(struct sb_rig **out, const char *where)
{
	struct sb_rig *r = calloc(1, sizeof(*r));
	pthread_condattr_t ca;
	uint8_t p[SB_RIG_MAX_PAYLOAD], n = 0;
	int e;

	*out = NULL;
	if (!r)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening a cooling rig");
	if ((e = sb_rig_link_open(&r->link, where)) < 0) {
		free(r);
		return e;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cond, &ca);
	pthread_condattr_destroy(&ca);
	sb_rig_decoder_init(&r->dec);
	r->link.ops->flush(r->link.priv);
	/* Boards that reset when the port opens need a moment: ask again until it answers. */
	pthread_mutex_lock(&r->lock);
	e = request_locked(r, SB_RIG_CMD_IDENTIFY, NULL, 0, p, &n,
	                   SB_RIG_OPEN_WAIT_MS / SB_RIG_TIMEOUT_MS, SB_RIG_TIMEOUT_MS, false);
	pthread_mutex_unlock(&r->lock);
	if (e >= 0 && (e != SB_RIG_OK || n != SB_RIG_IDENT_BYTES))
		e = sb_error_set(SB_ERR_DEVICE,
		                 "'%s' answers IDENTIFY with '%s' and %u bytes: not a stackbench "
		                 "cooling rig",
		                 r->link.name, sb_rig_status_name((uint8_t)e), n);
	if (e < 0)
		goto fail;
	sb_rig_ident_decode(p, &r->id);
	if (r->id.proto != SB_RIG_PROTO_VERSION || r->id.fans != SB_RIG_FANS ||
	    r->id.sensors != SB_RIG_SENSORS) {
		e = sb_error_set(SB_ERR_VERSION,
		                 "cooling rig '%s' speaks protocol %u with %u fans and %u sensors; "
		                 "this stackbench speaks %u with %u and %u",
		                 r->link.name, r->id.proto, r->id.fans, r->id.sensors,
		                 SB_RIG_PROTO_VERSION, SB_RIG_FANS, SB_RIG_SENSORS);
		goto fail;
	}
	sb_info("cooling rig '%s': firmware %u.%u.%u, build %08x, protocol %u", r->link.name,
	        r->id.fw_major, r->id.fw_minor, r->id.fw_patch, (unsigned)r->id.build_id,
	        r->id.proto);
	*out = r;
	return 0;

fail:
	sb_rig_close(r);
	return e;
}

void sb_rig_close(struct sb_rig *r)
{
	if (!r)
		return;
	keepalive_stop(r);
	sb_rig_link_close(&r->link);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* ---- the rig file: configurations and limits ---------------------------------------------- */

struct rig_config {
	char name[SB_INSTRUMENT_NAME_MAX];
	uint16_t duty_pm[SB_RIG_FANS];
	double cooling_power_w;
};

struct rig_file {
	char path[512];
	struct rig_config cfg[RIG_MAX_CONFIGS];
	unsigned ncfg;
	uint8_t supply_fans; /* mask: fans powered by a fan supply, when one is attached */
	bool has_supply_fans;
	bool has_limits;
	struct sb_rig_limits limits;
};

static int parse_limits(const struct sb_yaml *y, struct fy_node *m, struct sb_rig_limits *l)
{
	static const char *const keys[] = {"heatsink_max_c", "silence_s", "stall_s", "fans", NULL};
	double v;
	struct fy_node *fans;
	int e;

	if ((e = sb_yaml_expect_map(y, m, "key 'limits'")) < 0 ||
	    (e = sb_yaml_check_keys(y, m, "limits", keys)) < 0)
		return e;
	sb_rig_limits_default(l);
	if ((e = sb_yaml_get_double(y, m, "heatsink_max_c", false, SB_RIG_HEATSINK_MIN_Q2 / 4.0,
	                            SB_RIG_HEATSINK_MAX_Q2 / 4.0, &v)) < 0)
		return e;
	if (e)
		l->heatsink_max_q2 = (int16_t)lround(v * 4);
	if ((e = sb_yaml_get_double(y, m, "silence_s", false, SB_RIG_SILENCE_MIN_MS / 1000.0,
	                            SB_RIG_SILENCE_MAX_MS / 1000.0, &v)) < 0)
		return e;
	if (e)
		l->silence_ms = (uint32_t)lround(v * 1000);
	if ((e = sb_yaml_get_double(y, m, "stall_s", false, SB_RIG_STALL_MIN_MS / 1000.0,
	                            SB_RIG_STALL_MAX_MS / 1000.0, &v)) < 0)
		return e;
	if (e)
		l->stall_ms = (uint16_t)lround(v * 1000);
	if ((fans = sb_yaml_get(m, "fans"))) {
		struct fy_node *it;
		void *iter = NULL;

		if ((e = sb_yaml_expect_seq(y, fans, "key 'fans'")) < 0)
			return e;
		l->fan_mask = 0;
		while ((it = sb_yaml_seq_next(fans, &iter))) {
			uint64_t i;

			if ((e = sb_yaml_to_u64(y, it, "a fan of 'fans'", 0, SB_RIG_FANS - 1, &i)) <
			    0)
				return e;
			l->fan_mask |= (uint8_t)(1u << i);
		}
	}
	return 0;
}

static int parse_config(const struct sb_yaml *y, struct fy_node *n, struct rig_file *rf)
{
	static const char *const keys[] = {"name", "duty_pct", "cooling_power_w", NULL};
	struct rig_config *c = &rf->cfg[rf->ncfg];
	struct fy_node *duty, *it;
	void *iter = NULL;
	const char *name;
	unsigned i = 0;
	int e;

	if (rf->ncfg == RIG_MAX_CONFIGS)
		return sb_yaml_error(y, n, SB_ERR_PARSE, "more than %d configurations",
		                     RIG_MAX_CONFIGS);
	if ((e = sb_yaml_expect_map(y, n, "a configuration")) < 0 ||
	    (e = sb_yaml_check_keys(y, n, "configuration", keys)) < 0 ||
	    (e = sb_yaml_get_str(y, n, "name", true, &name)) < 0)
		return e;
	if (!*name || strlen(name) >= sizeof(c->name) || !strcmp(name, "none") ||
	    !strcmp(name, "strongest") || !strcmp(name, "keep"))
		return sb_yaml_error(y, sb_yaml_get(n, "name"), SB_ERR_PARSE,
		                     "bad configuration name '%s' (1..%zu characters; not none, "
		                     "strongest or keep)",
		                     name, sizeof(c->name) - 1);
	for (unsigned k = 0; k < rf->ncfg; k++)
		if (!strcmp(rf->cfg[k].name, name))
			return sb_yaml_error(y, sb_yaml_get(n, "name"), SB_ERR_PARSE,
			                     "configuration '%s' given twice", name);
	sb_strlcpy(c->name, name, sizeof(c->name));
	duty = sb_yaml_get(n, "duty_pct");
	if (!duty)
		return sb_yaml_error(y, n, SB_ERR_PARSE, "missing key 'duty_pct' in '%s'", name);
	if ((e = sb_yaml_expect_seq(y, duty, "key 'duty_pct'")) < 0)
		return e;
	if (sb_yaml_seq_len(duty) != SB_RIG_FANS)
		return sb_yaml_error(y, duty, SB_ERR_PARSE,
		                     "key 'duty_pct': one duty per fan (%d), got %d", SB_RIG_FANS,
		                     sb_yaml_seq_len(duty));
	while ((it = sb_yaml_seq_next(duty, &iter))) {
		double pct;

		if ((e = sb_yaml_to_double(y, it, "key 'duty_pct'", 0, 100, &pct)) < 0)
			return e;
		c->duty_pm[i++] = (uint16_t)lround(pct * 10);
	}
	c->cooling_power_w = NAN;
	if ((e = sb_yaml_get_double(y, n, "cooling_power_w", false, 0, 1e4, &c->cooling_power_w)) <
	    0)
		return e;
	if (isnan(c->cooling_power_w)) {
		/* Without a measured value: the fans' share of full power (affinity laws: power
		 * goes with the cube of the speed), so that 'strongest' still means something. */
		c->cooling_power_w = 0;
		for (i = 0; i < SB_RIG_FANS; i++)
			c->cooling_power_w += pow(c->duty_pm[i] / 1000.0, 3) / SB_RIG_FANS;
	}
	rf->ncfg++;
	return 0;
}

static int load_rig_file(const char *name, struct rig_file *rf)
{
	static const char *const keys[] = {"name",   "description", "fans", "configurations",
	                                   "limits", "supply_fans", NULL};
	struct sb_yaml y;
	struct fy_node *root, *cfgs, *it, *lim;
	void *iter = NULL;
	int e;

	memset(rf, 0, sizeof(*rf));
	if ((e = sb_find_data_file("cooling rig file", name, "STACKBENCH_RIG_PATH",
	                           SB_RIG_SOURCE_DIR, SB_RIG_INSTALL_DIR, rf->path,
	                           sizeof(rf->path))) < 0 ||
	    (e = sb_yaml_load_file(&y, rf->path)) < 0)
		return e;
	root = sb_yaml_root(&y);
	if ((e = sb_yaml_expect_map(&y, root, "the document")) < 0 ||
	    (e = sb_yaml_check_keys(&y, root, "the rig file", keys)) < 0)
		goto out;
	cfgs = sb_yaml_get(root, "configurations");
	if (!cfgs) {
		e = sb_yaml_error(&y, root, SB_ERR_PARSE, "missing key 'configurations'");
		goto out;
	}
	if ((e = sb_yaml_expect_seq(&y, cfgs, "key 'configurations'")) < 0)
		goto out;
	while ((it = sb_yaml_seq_next(cfgs, &iter)))
		if ((e = parse_config(&y, it, rf)) < 0)
			goto out;
	if (!rf->ncfg) {
		e = sb_yaml_error(&y, cfgs, SB_ERR_PARSE, "no configuration");
		goto out;
	}
	if ((lim = sb_yaml_get(root, "limits"))) {
		if ((e = parse_limits(&y, lim, &rf->limits)) < 0)
			goto out;
		rf->has_limits = true;
	}
	if ((lim = sb_yaml_get(root, "supply_fans"))) {
		void *fi = NULL;

		if ((e = sb_yaml_expect_seq(&y, lim, "key 'supply_fans'")) < 0)
			goto out;
		while ((it = sb_yaml_seq_next(lim, &fi))) {
			uint64_t i;

			if ((e = sb_yaml_to_u64(&y, it, "a fan of 'supply_fans'", 0,
			                        SB_RIG_FANS - 1, &i)) < 0)
				goto out;
			rf->supply_fans |= (uint8_t)(1u << i);
		}
		rf->has_supply_fans = true;
	}
	e = 0;
out:
	sb_yaml_release(&y);
	return e;
}

/* ---- the actuator ------------------------------------------------------------------------- */

struct rig_actuator {
	struct sb_rig *rig;
	struct rig_file file;
	struct sb_cooling *supply; /* the fan supply (supply=...), or NULL */
	char supply_conn[128];
	int applied; /* configuration index, -1: none yet */
};

/* The duties of configuration i: the rig file's, and 100 % for the fans on the supply. */
static void config_duties(const struct rig_actuator *a, unsigned i, uint16_t duty_pm[SB_RIG_FANS])
{
	for (unsigned f = 0; f < SB_RIG_FANS; f++)
		duty_pm[f] =
		    a->supply && a->file.supply_fans & (1u << f) ? 1000 : a->file.cfg[i].duty_pm[f];
}

/* Open the fan supply of option supply=URI: a libsigrok supply with every configuration of the
 * rig file. */
static int open_supply(struct rig_actuator *a, const struct sb_conn *c, const char *uri,
                       struct sb_device *dev)
{
	int e;

	if (strncmp(uri, "sigrok:", 7) && strncmp(uri, "korad:", 6))
		return sb_error_set(
		    SB_ERR_URI,
		    "'%s': option supply=%s: expected a fan supply, sigrok:DRIVER... "
		    "or korad:PORT",
		    c->text, uri);
	if (!a->file.has_supply_fans)
		return sb_error_set(
		    SB_ERR_INVAL,
		    "'%s': a fan supply is given but the rig file '%s' does not say "
		    "which fans it powers (key 'supply_fans')",
		    c->text, a->file.path);
	sb_strlcpy(a->supply_conn, uri, sizeof(a->supply_conn));
	if ((e = sb_cooling_open(&a->supply, uri, dev)) < 0)
		return e;
	for (unsigned i = 0; i < a->file.ncfg; i++) {
		bool found = false;

		for (unsigned k = 0; k < sb_cooling_count(a->supply) && !found; k++)
			found = !strcmp(sb_cooling_name(a->supply, k), a->file.cfg[i].name);
		if (!found)
			return sb_error_set(
			    SB_ERR_INVAL,
			    "fan supply '%s' has no configuration '%s' of the rig file "
			    "'%s'",
			    uri, a->file.cfg[i].name, a->file.path);
	}
	return 0;
}

static int conn_limit(const struct sb_conn *c, const char *key, double min, double max,
                      double scale, double *out)
{
	const char *v = sb_conn_opt(c, key);
	char *end;
	double d;

	if (!v)
		return 0;
	d = strtod(v, &end);
	if (end == v || *end || !(d >= min && d <= max))
		return sb_error_set(SB_ERR_INVAL, "'%s': option %s=%s: expected %g..%g", c->text,
		                    key, v, min, max);
	*out = d * scale;
	return 1;
}

/* The limits to write: the rig file's, then the connection string's options. */
static int wanted_limits(const struct sb_conn *c, const struct rig_file *rf,
                         struct sb_rig_limits *l, bool *given)
{
	double v = 0; /* set when conn_limit() returns 1 (gcc -O3 cannot tell) */
	int e;

	*given = rf->has_limits;
	if (rf->has_limits)
		*l = rf->limits;
	else
		sb_rig_limits_default(l);
	if ((e = conn_limit(c, "heatsink_max_c", SB_RIG_HEATSINK_MIN_Q2 / 4.0,
	                    SB_RIG_HEATSINK_MAX_Q2 / 4.0, 4, &v)) < 0)
		return e;
	if (e) {
		l->heatsink_max_q2 = (int16_t)lround(v);
		*given = true;
	}
	if ((e = conn_limit(c, "silence_s", SB_RIG_SILENCE_MIN_MS / 1000.0,
	                    SB_RIG_SILENCE_MAX_MS / 1000.0, 1000, &v)) < 0)
		return e;
	if (e) {
		l->silence_ms = (uint32_t)lround(v);
		*given = true;
	}
	if ((e = conn_limit(c, "stall_s", SB_RIG_STALL_MIN_MS / 1000.0,
	                    SB_RIG_STALL_MAX_MS / 1000.0, 1000, &v)) < 0)
		return e;
	if (e) {
		l->stall_ms = (uint16_t)lround(v);
		*given = true;
	}
	return 0;
}

/* Take over the controller: write the limits that differ, clear what happened while nobody
 * drove it, report what is left. */
static int take_over(struct rig_actuator *a, const struct sb_rig_limits *want, bool given)
{
	struct sb_rig *r = a->rig;
	struct sb_rig_limits have;
	struct sb_rig_status st;
	bool defaults;
	uint16_t left = 0, clear = TAKEOVER_FAULTS;
	char buf[160];
	int e;

	if ((e = sb_rig_get_limits(r, &have, &defaults)) < 0)
		return e;
	if (given && (defaults || memcmp(&have, want, sizeof(have)))) {
		if ((e = sb_rig_set_limits(r, want)) < 0)
			return e;
		sb_info("cooling rig '%s': limits written: heatsink %.2f C, silence %.1f s, stall "
		        "%.1f s, fans 0x%x",
		        sb_rig_where(r), want->heatsink_max_q2 / 4.0, want->silence_ms / 1000.0,
		        want->stall_ms / 1000.0, want->fan_mask);
		have = *want;
	} else if (defaults) {
		sb_warn("cooling rig '%s' runs on its default limits (EEPROM blank or corrupt): "
		        "heatsink %.2f C, silence %.1f s",
		        sb_rig_where(r), have.heatsink_max_q2 / 4.0, have.silence_ms / 1000.0);
	}
	if ((e = sb_rig_get_status(r, &st)) < 0)
		return e;
	if (st.faults & SB_RIG_FAULT_WATCHDOG)
		sb_warn("cooling rig '%s' was reset by its watchdog since its last host",
		        sb_rig_where(r));
	if (st.faults & clear & ~SB_RIG_FAULT_RESET)
		sb_info("cooling rig '%s': clearing %s", sb_rig_where(r),
		        sb_rig_faults_text(st.faults & clear, buf, sizeof(buf)));
	if (st.faults & clear && (e = sb_rig_clear_faults(r, st.faults & clear, &left)) < 0)
		return e;
	if (left)
		sb_warn("cooling rig '%s' is in its fail-safe (fans at 100 %%): %s",
		        sb_rig_where(r), sb_rig_faults_text(left, buf, sizeof(buf)));
	/* Feed the silence timer four times per silence limit. */
	return sb_rig_keepalive(r, have.silence_ms / 4 < 50     ? 50
	                           : have.silence_ms / 4 > 1000 ? 1000
	                                                        : have.silence_ms / 4);
}

static void rig_close(void *priv)
{
	struct rig_actuator *a = priv;

	if (!a)
		return;
	sb_rig_close(a->rig);
	if (a->supply)
		sb_cooling_close(a->supply);
	free(a);
}

static int rig_open(const struct sb_conn *c, struct sb_device *dev, void **priv)
{
	static const char *const known[] = {"config",  "heatsink_max_c", "silence_s",
	                                    "stall_s", "supply",         NULL};
	const char *file = sb_conn_opt(c, "config"), *supply = sb_conn_opt(c, "supply");
	struct rig_actuator *a;
	struct sb_rig_limits want;
	bool given;
	int e;

	(void)dev; /* the rig keeps its own time; the bench clock is not needed */
	if ((e = sb_conn_check_opts(c, known)) < 0)
		return e;
	a = calloc(1, sizeof(*a));
	if (!a)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening '%s'", c->text);
	a->applied = -1;
	if ((e = load_rig_file(file ? file : SB_RIG_DEFAULT_FILE, &a->file)) < 0 ||
	    (e = wanted_limits(c, &a->file, &want, &given)) < 0 ||
	    (supply && (e = open_supply(a, c, supply, dev)) < 0) ||
	    (e = sb_rig_open(&a->rig, c->rest)) < 0 || (e = take_over(a, &want, given)) < 0) {
		rig_close(a);
		return e;
	}
	*priv = a;
	return 0;
}

static int find_config(struct rig_actuator *a, const char *name)
{
	for (unsigned i = 0; i < a->file.ncfg; i++)
		if (!strcmp(a->file.cfg[i].name, name))
			return (int)i;
	return -1;
}

/* Index of the configuration called name in a cooling actuator (open_supply checked it is). */
static int find_config_in(const struct sb_cooling *c, const char *name)
{
	for (unsigned k = 0; k < sb_cooling_count(c); k++)
		if (!strcmp(sb_cooling_name(c, k), name))
			return (int)k;
	return 0;
}

static int fail_safe_error(struct rig_actuator *a)
{
	struct sb_rig_status st;
	char buf[160];

	if (sb_rig_get_status(a->rig, &st) < 0)
		return SB_ERR_STATE;
	return sb_error_set(SB_ERR_STATE,
	                    "cooling rig '%s' is in its fail-safe (fans at 100 %%): %s%s",
	                    sb_rig_where(a->rig), sb_rig_faults_text(st.faults, buf, sizeof(buf)),
	                    st.active ? " (still present)" : "");
}

static int rig_apply(void *priv, const char *name)
{
	struct rig_actuator *a = priv;
	int i = find_config(a, name), e;
	char list[256];
	size_t off = 0;

	if (i < 0) {
		list[0] = '\0';
		for (unsigned k = 0; k < a->file.ncfg && off < sizeof(list); k++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
			                        k ? ", " : "", a->file.cfg[k].name);
		return sb_error_set(SB_ERR_NOT_FOUND,
		                    "no cooling configuration '%s' (known: %s) in '%s'", name, list,
		                    a->file.path);
	}
	/* the supply's voltage first: the supply fans go to 100 % duty on it */
	if (a->supply && (e = sb_cooling_apply(a->supply, name)) < 0)
		return e;
	{
		uint16_t duty[SB_RIG_FANS];

		config_duties(a, (unsigned)i, duty);
		e = sb_rig_set_fans(a->rig, duty);
	}
	if (e == SB_ERR_STATE)
		return fail_safe_error(a);
	if (e < 0)
		return e;
	a->applied = i;
	return 0;
}

static void fill_config(const struct rig_config *c, struct sb_cooling_state *st)
{
	sb_strlcpy(st->name, c->name, sizeof(st->name));
	st->fan_supply_v = st->fan_supply_a = NAN; /* PWM fans on a fixed 12 V supply */
	st->desk_fan_distance_cm = NAN;
	st->fan_rpm = NAN;
	st->cooling_power_w = c->cooling_power_w;
	for (unsigned i = 0; i < SB_RIG_FANS && i < SB_COOLING_MAX_FANS; i++)
		st->duty_pct[i] = c->duty_pm[i] / 10.0;
	st->nfans = SB_RIG_FANS;
	st->heatsink_c = st->ambient_c = NAN;
}

static int rig_status(void *priv, struct sb_cooling_state *st)
{
	struct rig_actuator *a = priv;
	struct sb_rig_status s;
	int e = sb_rig_get_status(a->rig, &s);

	if (e < 0)
		return e;
	if (a->applied >= 0)
		fill_config(&a->file.cfg[a->applied], st);
	else
		fill_config(&(struct rig_config){.name = "", .cooling_power_w = NAN}, st);
	for (unsigned i = 0; i < SB_RIG_FANS && i < SB_COOLING_MAX_FANS; i++) {
		st->duty_pct[i] = s.duty_pm[i] / 10.0;
		st->rpm[i] = s.rpm[i];
	}
	st->fan_rpm = s.rpm[0];
	st->has_heatsink = true;
	st->heatsink_c = s.tc_fault[SB_RIG_SENSOR_HEATSINK] ? NAN : s.tc_q2[0] / 4.0;
	st->ambient_c = s.tc_fault[SB_RIG_SENSOR_AMBIENT] ? NAN : s.tc_q2[1] / 4.0;
	st->failsafe = s.flags & SB_RIG_FLAG_FAILSAFE;
	st->faults = s.faults;
	st->faults_active = s.active;
	if (s.faults)
		sb_rig_faults_text(s.faults, st->faults_text, sizeof(st->faults_text));
	st->clock_ns = (uint64_t)s.uptime_ms * 1000000u;
	if (a->supply) {
		struct sb_cooling_state ss;

		memset(&ss, 0, sizeof(ss));
		if ((e = sb_cooling_status(a->supply, &ss)) < 0)
			return e;
		st->fan_supply_v = ss.fan_supply_v;
		st->fan_supply_a = ss.fan_supply_a;
	}
	return 0;
}

static unsigned rig_count(void *priv)
{
	return ((struct rig_actuator *)priv)->file.ncfg;
}

static const char *rig_name(void *priv, unsigned i)
{
	return ((struct rig_actuator *)priv)->file.cfg[i].name;
}

static int rig_describe(void *priv, unsigned i, struct sb_cooling_state *st)
{
	struct rig_actuator *a = priv;

	fill_config(&a->file.cfg[i], st);
	if (a->supply) {
		struct sb_cooling_state ss;
		uint16_t duty[SB_RIG_FANS];
		int e;

		memset(&ss, 0, sizeof(ss));
		if ((e = sb_cooling_describe(
		         a->supply, (unsigned)find_config_in(a->supply, st->name), &ss)) < 0)
			return e;
		st->fan_supply_v = ss.fan_supply_v;
		st->fan_supply_a = ss.fan_supply_a;
		config_duties(a, i, duty);
		for (unsigned f = 0; f < SB_RIG_FANS && f < SB_COOLING_MAX_FANS; f++)
			st->duty_pct[f] = duty[f] / 10.0;
	}
	return 0;
}

static int rig_recover(void *priv)
{
	struct rig_actuator *a = priv;
	uint16_t left;
	int e;

	if ((e = sb_rig_clear_faults(a->rig, SB_RIG_FAULT_ALL, &left)) < 0)
		return e;
	if (a->applied >= 0)
		return rig_apply(a, a->file.cfg[a->applied].name);
	return 0;
}

const struct sb_cooling_ops sb_cooling_rig = {
    .open = rig_open,
    .close = rig_close,
    .apply = rig_apply,
    .status = rig_status,
    .count = rig_count,
    .name = rig_name,
    .describe = rig_describe,
    .recover = rig_recover,
};
