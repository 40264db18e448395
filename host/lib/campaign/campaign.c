/* SPDX-License-Identifier: MIT */
/*
 * The campaign engine: one worker per device; each takes the next point that is not stored
 * yet, runs it through sb_point_run() (the device library only) while the sampling callback
 * records counters and instruments on the bench clock, and stores it in one transaction.
 * Everything a point's result depends on comes from the point (its seed, its address mode),
 * never from the worker, so results do not depend on --jobs.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "campaign_int.h"
#include "campaign_trace.h"
#include "sb_regmap.h"
#include <cjson/cJSON.h>

#include "stackbench/campaign.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/lock.h"
#include "stackbench/log.h"
#include "stackbench/pattern.h"
#include "stackbench/point.h"
#include "stackbench/provenance.h"
#include "stackbench/store.h"
#include "stackbench/topology.h"

/*
 * A source of per-sample readings (temperature, power, ...). Each worker holds the sources of
 * the campaign's instruments; every sample asks each of them to fill in what it measures.
 */
struct sample_source {
	const char *name;
	int (*read)(void *ctx, uint64_t t_ns, struct sb_sample *s);
	void (*close)(void *ctx);
	void *ctx;
};

#define MAX_SOURCES 4

struct engine;

struct worker {
	struct engine *en;
	unsigned id;
	const char *uri;
	struct sb_device *dev;
	struct sb_board_info board;
	unsigned addr_mode0; /* the cube's mode when the campaign started: what 'keep' means */
	bool has_stream;
	bool fresh; /* simulated board, bandwidth campaign: reopened before each point */
	struct sb_hbm_card card; /* an HBM2 card's campaign: the card */
	unsigned nsources;
	struct sample_source src[MAX_SOURCES];
	/* The campaign's instruments on this worker's bench (the sources above read the first
	 * two); NULL when the campaign has none of that kind. */
	struct sb_point_instruments inst;
	char recovery_cooling[SB_AXIS_NAME_MAX]; /* "" : keep the point's configuration */
	/* A cooling rig (an actuator with a heatsink sensor and a fail-safe): the configuration
	 * applied and settled last, and whether it went into its fail-safe (and what it said). */
	char settled[SB_AXIS_NAME_MAX];
	bool rig_fault, cube_failed;
	bool thermal_stop; /* an HBM2 card's point reached the temperature limit */
	struct sb_cooling_state rig_state;
	struct sb_sample *samples;
	unsigned nsamples, cap;
	int sample_err;
	unsigned sample_err_src;             /* the source whose read failed */
	const struct sb_campaign_point *cur; /* the point running (progress inside it, events) */
	unsigned cur_attempt;
	double prog_wall; /* wall time of the last progress inside it */
	pthread_t thread;
};

struct engine {
	const struct sb_campaign *c;
	struct sb_store *st;
	const struct sb_run_options *o;
	int64_t id;
	struct sb_device *dev0; /* the first worker's board (its identity is the campaign's) */
	pthread_mutex_t lock;
	bool *done;         /* finished: stored without a failure, or out of retries */
	unsigned *attempts; /* runs stored of each point */
	bool *in_shard;     /* the points of the run's shard (NULL: every point) */
	unsigned total;     /* points in the run's shard (all without one) */
	unsigned next, ndone, nrun, nfailed, nretried, nrecovered;
	_Atomic bool abort; /* read by the sampling callbacks without the lock */
	int err;
	char detail[1024];
	struct timespec t0;
};

static double wall_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool stop_requested(const struct engine *en)
{
	return en->o->stop && *en->o->stop;
}

static bool pause_requested(const struct engine *en)
{
	return en->o->pause && *en->o->pause;
}

/* Tell the front end (sb_run_options.event) that a point started or a sample was taken. */
static void run_event(struct worker *w, enum sb_run_event_kind kind)
{
	struct sb_run_event ev = {kind, w->id, w->uri, w->cur, w->cur_attempt, NULL, NAN, NAN, NAN};
	struct sb_bench_metrics m;

	if (!w->en->o->event)
		return;
	if (kind == SB_RUN_SAMPLE && w->nsamples) {
		const struct sb_sample *x = &w->samples[w->nsamples - 1];
		const struct sb_sample *prev = w->nsamples > 1 ? x - 1 : NULL;
		struct sb_bench_counts bc = {
		    .reads = x->reads - (prev ? prev->reads : 0),
		    .writes = x->writes - (prev ? prev->writes : 0),
		    .size = w->cur->size,
		    .duration_ns = (double)(x->t_ns - (prev ? prev->t_ns : 0)),
		    .lat_sum_cycles = x->lat_sum_cycles - (prev ? prev->lat_sum_cycles : 0),
		    .lat_count = x->lat_count - (prev ? prev->lat_count : 0),
		    .clock_hz = (double)w->board.clock_hz,
		};

		ev.sample = x;
		if (sb_bench_metrics(&bc, &m) == 0) {
			ev.bandwidth_gbps = m.bandwidth_gbps;
			ev.mrps = m.mrps;
			ev.latency_avg_ns = bc.lat_count ? m.lat_avg_ns : NAN;
		}
	}
	w->en->o->event(w->en->o->event_ctx, &ev);
}

/* --- instruments --------------------------------------------------------------------------- */

static int temp_read(void *ctx, uint64_t t_ns, struct sb_sample *s)
{
	struct sb_temp_reading r;
	int e = sb_temp_source_sample(ctx, &r);

	(void)t_ns;
	if (e < 0)
		return e;
	s->temp_c = r.hotspot_c;
	return 0;
}

static void temp_close(void *ctx)
{
	sb_temp_source_close(ctx);
}

static int power_read(void *ctx, uint64_t t_ns, struct sb_sample *s)
{
	struct sb_power_reading r;
	int e = sb_power_source_sample(ctx, &r);

	(void)t_ns;
	if (e < 0)
		return e;
	s->power_w = r.power_w;
	if (r.has_va) {
		s->volts_v = r.volts;
		s->amps_a = r.amps;
	}
	return 0;
}

static void power_close(void *ctx)
{
	sb_power_source_close(ctx);
}

/* The cooling rig's heatsink thermocouple, with every sample; a rig that went into its
 * fail-safe stops the point (sample_cb). */
static int heatsink_read(void *ctx, uint64_t t_ns, struct sb_sample *s)
{
	struct worker *w = ctx;
	struct sb_cooling_state st;
	int e = sb_cooling_status(w->inst.cooling, &st);

	(void)t_ns;
	if (e < 0)
		return e;
	s->heatsink_c = st.heatsink_c;
	if (st.failsafe && !w->rig_fault) {
		w->rig_fault = true;
		w->rig_state = st;
	}
	return 0;
}

/* Where the campaign names an instrument, for messages. */
static void inst_where(const struct sb_campaign *c, enum sb_campaign_inst k, char *buf, size_t n)
{
	static const char *const keys[SB_INST_COUNT] = {"temperature", "power", "cooling"};

	sb_campaign_where(c, c->inst.line[k], keys[k], buf, n);
}

/* Every cooling configuration the campaign names must be one the actuator knows. */
static bool cooling_known(struct sb_cooling *rig, const char *name)
{
	for (unsigned i = 0; i < sb_cooling_count(rig); i++)
		if (!strcmp(sb_cooling_name(rig, i), name))
			return true;
	return false;
}

static int check_cooling(struct worker *w)
{
	const struct sb_campaign *c = w->en->c;
	struct sb_cooling *rig = w->inst.cooling;
	const char *rc = c->recovery.cooling;
	char where[SB_CAMPAIGN_TEXT_MAX + 64], list[256];
	double best = -1;
	size_t off = 0;

	for (unsigned i = 0; i < sb_cooling_count(rig) && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
		                        sb_cooling_name(rig, i));
	for (unsigned i = 0; i < c->axes.n[SB_AXIS_COOLING]; i++) {
		const char *v = c->axes.value[SB_AXIS_COOLING][i];

		sb_campaign_where(c, c->axes.line[SB_AXIS_COOLING], "cooling", where,
		                  sizeof(where));
		if (strcmp(v, "none") && !cooling_known(rig, v))
			return sb_error_set(
			    SB_ERR_NOT_FOUND,
			    "%s: '%s' has no cooling configuration '%s' (known: %s)", where,
			    sb_cooling_driver(rig), v, list);
	}
	w->recovery_cooling[0] = '\0';
	if (!strcmp(rc, SB_RECOVERY_KEEP))
		return 0;
	if (strcmp(rc, SB_RECOVERY_STRONGEST)) {
		sb_campaign_where(c, c->recovery.line, "recovery.cooling", where, sizeof(where));
		if (!cooling_known(rig, rc))
			return sb_error_set(
			    SB_ERR_NOT_FOUND,
			    "%s: '%s' has no cooling configuration '%s' (known: %s)", where,
			    sb_cooling_driver(rig), rc, list);
		snprintf(w->recovery_cooling, sizeof(w->recovery_cooling), "%s", rc);
		return 0;
	}
	/* The strongest: the configuration that spends the most power on cooling. */
	for (unsigned i = 0; i < sb_cooling_count(rig); i++) {
		struct sb_cooling_state cs;
		int e = sb_cooling_describe(rig, i, &cs);

		if (e < 0)
			return e;
		if (cs.cooling_power_w > best) {
			best = cs.cooling_power_w;
			snprintf(w->recovery_cooling, sizeof(w->recovery_cooling), "%s", cs.name);
		}
	}
	return 0;
}

static void close_sources(struct worker *w)
{
	for (unsigned i = 0; i < w->nsources; i++)
		if (w->src[i].close)
			w->src[i].close(w->src[i].ctx);
	w->nsources = 0;
	sb_cooling_close(w->inst.cooling);
	memset(&w->inst, 0, sizeof(w->inst));
}

/* Open the campaign's instruments on a worker's device and their sample sources. */
static int open_sources(struct worker *w)
{
	const struct sb_campaign *c = w->en->c;
	char where[SB_CAMPAIGN_TEXT_MAX + 64];
	int e;

	w->nsources = 0;
	memset(&w->inst, 0, sizeof(w->inst));
	if (sb_campaign_has_inst(c, SB_INST_TEMPERATURE)) {
		if ((e = sb_temp_source_open(&w->inst.temp, c->inst.conn[SB_INST_TEMPERATURE],
		                             w->dev)) < 0)
			goto fail_where_temp;
		w->src[w->nsources++] =
		    (struct sample_source){"temperature", temp_read, temp_close, w->inst.temp};
	}
	if (sb_campaign_has_inst(c, SB_INST_POWER)) {
		if ((e = sb_power_source_open(&w->inst.power, c->inst.conn[SB_INST_POWER],
		                              w->dev)) < 0)
			goto fail_where_power;
		w->src[w->nsources++] =
		    (struct sample_source){"power", power_read, power_close, w->inst.power};
	}
	if (sb_campaign_has_inst(c, SB_INST_COOLING)) {
		struct sb_cooling_state st;

		if ((e = sb_cooling_open(&w->inst.cooling, c->inst.conn[SB_INST_COOLING], w->dev)) <
		    0)
			goto fail_where_cooling;
		if ((e = check_cooling(w)) < 0 || (e = sb_cooling_status(w->inst.cooling, &st)) < 0)
			goto fail;
		if (st.has_heatsink)
			w->src[w->nsources++] =
			    (struct sample_source){"heatsink", heatsink_read, NULL, w};
	}
	w->settled[0] = '\0';
	return 0;

fail_where_temp:
	inst_where(c, SB_INST_TEMPERATURE, where, sizeof(where));
	goto fail_wrap;
fail_where_power:
	inst_where(c, SB_INST_POWER, where, sizeof(where));
	goto fail_wrap;
fail_where_cooling:
	inst_where(c, SB_INST_COOLING, where, sizeof(where));
fail_wrap:
	e = sb_error_wrap(e, "%s: on '%s'", where, w->uri);
fail:
	close_sources(w);
	return e;
}

static void report_in_point(struct worker *w, uint64_t t_ns, const struct sb_sample *s);

/* Append a sample: the counters, then every source. */
static int take_sample(struct worker *w, uint64_t t_ns, const struct sb_port_counters *total)
{
	struct sb_sample *s;

	if (w->nsamples == w->cap) {
		unsigned cap = w->cap ? w->cap * 2 : 256;
		struct sb_sample *n = realloc(w->samples, cap * sizeof(*n));

		if (!n)
			return sb_error_set(SB_ERR_NOMEM, "out of memory for samples");
		w->samples = n;
		w->cap = cap;
	}
	s = &w->samples[w->nsamples++];
	*s = (struct sb_sample){
	    .t_ns = t_ns,
	    .reads = total->reads,
	    .writes = total->writes,
	    .read_data_flits = total->read_data_flits,
	    .lat_sum_cycles = total->lat_sum_cycles,
	    .lat_count = total->lat_count,
	    .temp_c = NAN,
	    .power_w = NAN,
	    .volts_v = NAN,
	    .amps_a = NAN,
	    .heatsink_c = NAN,
	};
	for (unsigned i = 0; i < w->nsources; i++) {
		int e = w->src[i].read(w->src[i].ctx, t_ns, s);

		if (e < 0) {
			w->sample_err_src = i;
			return e;
		}
	}
	return 0;
}

/* sb_point_run's sampling callback: counters, then every source; nonzero stops the point. */
static int sample_cb(void *ctx, uint64_t t_ns, const struct sb_port_counters *total)
{
	struct worker *w = ctx;
	int e = take_sample(w, t_ns, total);

	if (e < 0) {
		w->sample_err = e;
		return 1;
	}
	run_event(w, SB_RUN_SAMPLE);
	report_in_point(w, t_ns, &w->samples[w->nsamples - 1]);
	return stop_requested(w->en) || w->en->abort || w->rig_fault;
}

/* --- points -------------------------------------------------------------------------------- */

/* The point spec for a worker's board; SB_ERR_INVAL if the board cannot run it. */
static int make_spec(struct worker *w, const struct sb_campaign_point *p, struct sb_point_spec *s)
{
	const struct sb_campaign *c = w->en->c;
	unsigned have = sb_device_port_count(w->dev);
	struct sb_geometry g;
	int e;

	sb_point_spec_init(s, p->idle ? 0 : p->ports ? p->ports : have);
	if (p->ports > have)
		return sb_error_set(SB_ERR_INVAL, "point '%s' needs %u ports; '%s' has %u", p->key,
		                    p->ports, w->uri, have);
	if (p->stream && !w->has_stream)
		return sb_error_set(SB_ERR_INVAL, "point '%s' needs stream GUPS; '%s' has none",
		                    p->key, w->uri);
	s->type = p->type;
	s->size = p->size;
	s->gen = p->mode;
	s->addr_mode_bytes = p->addr_mode ? p->addr_mode : w->addr_mode0;
	g.vaults = w->board.vaults;
	g.banks_per_vault = w->board.banks_per_vault;
	g.block_bytes = s->addr_mode_bytes;
	if ((e = sb_pattern_masks(p->pattern, &g, &s->mask, &s->antimask)) < 0)
		return sb_error_wrap(SB_ERR_INVAL, "point '%s' on '%s'", p->key, w->uri);
	if (p->mask_lo >= 0 &&
	    (e = sb_mask_bits((unsigned)p->mask_lo, (unsigned)p->mask_lo + p->mask_width - 1,
	                      &s->mask)) < 0)
		return sb_error_wrap(SB_ERR_INVAL, "point '%s'", p->key);
	s->duration_ns = sb_campaign_point_ns(c);
	s->stream = p->stream;
	s->iterations = p->stream ? c->stream_groups : 0;
	s->seed = p->seed;
	s->fast_forward = c->fast_forward;
	s->port_order = c->port_order;
	s->sample_ns = p->stream ? 0 : (uint64_t)llround(c->sample_interval_ms * 1e6);
	s->sample = sample_cb;
	s->sample_ctx = w;
	s->inst.cooling = w->inst.cooling; /* the point reports the cooling state it ran in */
	return 0;
}

static void event(struct engine *en, int idx, const char *kind, const char *data, const char *fmt,
                  ...) __attribute__((format(printf, 5, 6)));

/*
 * Record an event (caller holds the lock), with structured details (JSON text, or NULL); a
 * failure to record it is only logged.
 */
static void event(struct engine *en, int idx, const char *kind, const char *data, const char *fmt,
                  ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (en->id && sb_store_event_data(en->st, en->id, idx, kind, msg, data) < 0)
		sb_warn("%s", sb_error_detail());
}

/* Stop the whole run with an error (caller holds the lock). */
static void fail_run(struct engine *en, int err)
{
	if (!en->abort) {
		en->abort = true;
		en->err = err;
		snprintf(en->detail, sizeof(en->detail), "%s", sb_error_detail());
	}
}

/* --- thermal failures ---------------------------------------------------------------------- */

static void add_step(struct sb_recovery_report *rep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add_step(struct sb_recovery_report *rep, const char *fmt, ...)
{
	size_t len = strlen(rep->steps);
	va_list ap;

	if (len && len + 2 < sizeof(rep->steps)) {
		memcpy(rep->steps + len, ", ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(rep->steps + len, sizeof(rep->steps) - len, fmt, ap);
	va_end(ap);
}

/* Step 3: wait on the bench clock until the camera reads margin_c below from_c (NAN: below its
 * first reading), or, without a camera, for opt->cool_max_s. */
struct cool_watch {
	void (*fn)(void *ctx, uint64_t waited_ns, double c); /* each reading (NULL: none) */
	void *ctx;
};

static int cool_down(struct sb_device *dev, struct sb_temp_source *cam,
                     const struct sb_campaign_recovery *opt, double margin_c, const char *hint,
                     const struct cool_watch *watch, struct sb_recovery_report *rep)
{
	uint64_t max_ns = (uint64_t)llround(opt->cool_max_s * 1e9), waited = 0;
	struct sb_temp_reading t;
	double from;
	int e;

	if (!cam) {
		if ((e = sb_device_wait_ns(dev, max_ns)) < 0)
			return e;
		rep->cool_s += opt->cool_max_s;
		add_step(rep, "waited %.0f s (no camera)", opt->cool_max_s);
		return 0;
	}
	if ((e = sb_temp_source_sample(cam, &t)) < 0)
		return e;
	if (isnan(rep->fail_c))
		rep->fail_c = t.hotspot_c;
	from = t.hotspot_c;
	rep->target_c = rep->fail_c - margin_c;
	while (t.hotspot_c > rep->target_c) {
		uint64_t step = SB_RECOVERY_POLL_NS;

		if (watch && watch->fn)
			watch->fn(watch->ctx, waited, t.hotspot_c);

		if (waited >= max_ns) {
			rep->reached_c = t.hotspot_c;
			rep->cool_s += (double)waited * 1e-9;
			return sb_error_set(
			    SB_ERR_TIMEOUT,
			    "'%s': the hot spot is at %.1f C after %.0f s of cooling; "
			    "the recovery waits for %.1f C (%.1f C below %.1f C): %s",
			    sb_device_uri(dev), t.hotspot_c, (double)waited * 1e-9, rep->target_c,
			    margin_c, rep->fail_c, hint);
		}
		if (step > max_ns - waited)
			step = max_ns - waited;
		if ((e = sb_device_wait_ns(dev, step)) < 0 ||
		    (e = sb_temp_source_sample(cam, &t)) < 0)
			return e;
		waited += step;
	}
	rep->reached_c = t.hotspot_c;
	rep->cool_s += (double)waited * 1e-9;
	add_step(rep, "cooled from %.1f C to %.1f C in %.0f s", from, t.hotspot_c,
	         (double)waited * 1e-9);
	return 0;
}

int sb_thermal_recover(struct sb_device *dev, const struct sb_point_instruments *inst,
                       const struct sb_campaign_recovery *opt, const char *cooling, double fail_c,
                       struct sb_recovery_report *rep)
{
	struct sb_cooling *rig = inst ? inst->cooling : NULL;
	struct sb_cooling_state before;
	uint64_t t0 = sb_device_now_ns(dev);
	bool changed = false;
	int e, e2;

	memset(rep, 0, sizeof(*rep));
	rep->fail_c = fail_c;
	rep->target_c = rep->reached_c = NAN;
	sb_info("'%s': recovering from a thermal failure", sb_device_uri(dev));
	if ((e = sb_hmc_reset_ports(dev)) < 0)
		goto out;
	add_step(rep, "ports stopped");
	if (rig && cooling && *cooling) {
		if ((e = sb_cooling_status(rig, &before)) < 0)
			goto out;
		snprintf(rep->cooling, sizeof(rep->cooling), "%s", cooling);
		if (strcmp(before.name, cooling)) {
			if ((e = sb_cooling_apply(rig, cooling)) < 0)
				goto out;
			changed = true;
			add_step(rep, "cooling %s", cooling);
		}
	}
	for (rep->rounds = 1;; rep->rounds++) {
		if ((e = cool_down(
		         dev, inst ? inst->temp : NULL, opt, opt->cool_margin_c * rep->rounds,
		         "more cooling (recovery.cooling) or a longer recovery.cool_max_s", NULL,
		         rep)) < 0)
			goto restore;
		e = sb_hmc_recover(dev, 2000000000ull);
		if (e == 0) {
			add_step(rep, "cube reset, transceivers reset, initialized");
			break;
		}
		if (e != SB_ERR_THERMAL || rep->rounds >= SB_RECOVERY_ROUNDS)
			goto restore;
		add_step(rep, "failed again at once (still too hot)");
		if ((e = sb_hmc_reset_ports(dev)) < 0)
			goto restore;
	}
restore:
	if (changed) {
		e2 = sb_cooling_apply(rig, before.name);
		if (e2 == 0) {
			snprintf(rep->restored, sizeof(rep->restored), "%s", before.name);
			add_step(rep, "cooling %s restored", before.name);
		} else if (e == 0) {
			e = e2;
		}
	}
out:
	rep->total_s = (double)(sb_device_now_ns(dev) - t0) * 1e-9;
	return e;
}

/* A reading of the cool-down, for the front end (SB_RUN_COOLDOWN). */
static void cooling_event(void *ctx, uint64_t waited_ns, double c)
{
	struct worker *w = ctx;
	struct sb_sample x = {.t_ns = waited_ns,
	                      .temp_c = c,
	                      .power_w = NAN,
	                      .volts_v = NAN,
	                      .amps_a = NAN,
	                      .heatsink_c = NAN};
	struct sb_run_event ev = {
	    SB_RUN_COOLDOWN, w->id, w->uri, w->cur, w->cur_attempt, &x, NAN, NAN, NAN};

	if (w->en->o->event)
		w->en->o->event(w->en->o->event_ctx, &ev);
}

/* The temperature an HBM2 card's cool-down waits for (recovery.resume_c, or limit - margin). */
static double resume_c(const struct sb_campaign_recovery *opt)
{
	return isnan(opt->resume_c) ? opt->limit_c - opt->cool_margin_c : opt->resume_c;
}

/*
 * An HBM2 card after a thermal stop (its ports were stopped with the point): wait on the bench
 * clock until its temperature source reads resume_c or less, reading it every
 * SB_RECOVERY_POLL_NS, for recovery.cool_max_s at most. Nothing to reset: the limit is the
 * campaign's, below the card's own shutdown.
 */
static int hbm_recover(struct worker *w, double fail_c, struct sb_recovery_report *rep)
{
	const struct sb_campaign_recovery *opt = &w->en->c->recovery;
	const struct cool_watch watch = {cooling_event, w};
	uint64_t t0 = sb_device_now_ns(w->dev);
	int e;

	memset(rep, 0, sizeof(*rep));
	rep->rounds = 1;
	rep->fail_c = isnan(fail_c) ? opt->limit_c : fail_c;
	rep->target_c = rep->reached_c = NAN;
	add_step(rep, "ports stopped");
	e = cool_down(w->dev, w->inst.temp, opt, rep->fail_c - resume_c(opt),
	              "a longer recovery.cool_max_s or a higher recovery.resume_c", &watch, rep);
	rep->total_s = (double)(sb_device_now_ns(w->dev) - t0) * 1e-9;
	return e;
}

/* The recovery sequence for a worker, recorded as an event (recovered, recovery_failed). */
static int recover(struct worker *w, const struct sb_campaign_point *p, unsigned attempt,
                   double fail_c)
{
	struct engine *en = w->en;
	struct sb_recovery_report rep;
	cJSON *d = cJSON_CreateObject();
	char *data = NULL;
	int e = en->c->engine == SB_ENGINE_HBM2
	            ? hbm_recover(w, fail_c, &rep)
	            : sb_thermal_recover(w->dev, &w->inst, &en->c->recovery,
	                                 w->recovery_cooling[0] ? w->recovery_cooling : NULL,
	                                 fail_c, &rep);

	if (e < 0)
		sb_error_wrap(e, en->c->engine == SB_ENGINE_HBM2 ? "after a thermal stop"
		                                                 : "after a thermal failure");
	if (d) {
		cJSON_AddNumberToObject(d, "attempt", attempt);
		cJSON_AddNumberToObject(d, "rounds", rep.rounds);
		cJSON_AddNumberToObject(d, "fail_c", rep.fail_c);
		cJSON_AddNumberToObject(d, "target_c", rep.target_c);
		cJSON_AddNumberToObject(d, "reached_c", rep.reached_c);
		cJSON_AddNumberToObject(d, "cool_s", rep.cool_s);
		cJSON_AddNumberToObject(d, "total_s", rep.total_s);
		cJSON_AddStringToObject(d, "cooling", rep.cooling);
		cJSON_AddStringToObject(d, "restored", rep.restored);
		cJSON_AddStringToObject(d, "steps", rep.steps);
		data = cJSON_PrintUnformatted(d);
		cJSON_Delete(d);
	}
	pthread_mutex_lock(&en->lock);
	if (e < 0) {
		event(en, (int)p->index, "recovery_failed", data, "'%s': %s; %s", w->uri, rep.steps,
		      sb_error_detail());
	} else {
		en->nrecovered++;
		event(en, (int)p->index, "recovered", data, "'%s': %s (%.1f s of bench time)",
		      w->uri, rep.steps, rep.total_s);
	}
	pthread_mutex_unlock(&en->lock);
	cJSON_free(data);
	if (e < 0)
		return e;
	sb_info("'%s': %s (%s)", w->uri,
	        en->c->engine == SB_ENGINE_HBM2 ? "cooled down" : "cube recovered", rep.steps);
	return 0;
}

/* The point saw the cube fail: its last sample is the failure's, and the readings around it
 * give the failure temperature (the heatsink cools once the cube stops: the hotter one). */
static int note_failure(struct worker *w, struct sb_point_result *r)
{
	const struct sb_sample *x;

	if (!w->nsources || r->stream_groups)
		return 0;
	if (!w->nsamples || w->samples[w->nsamples - 1].t_ns < r->duration_ns) {
		int e = take_sample(w, r->duration_ns, &r->failure.total);

		if (e < 0)
			return e;
	}
	x = &w->samples[w->nsamples - 1];
	r->failure.temperature_c = x->temp_c;
	if (w->nsamples > 1)
		r->failure.temperature_c = fmax(x->temp_c, x[-1].temp_c);
	r->failure.power_w = NAN;
	for (unsigned i = w->nsamples; i-- > 0 && isnan(r->failure.power_w);)
		r->failure.power_w = w->samples[i].power_w;
	return 0;
}

/* The thermal_failure event (stored with the run): when, how hot, what was measured. */
static void failure_event(const struct worker *w, const struct sb_campaign_point *p,
                          unsigned attempt, const struct sb_point_result *r, char *msg, size_t size,
                          char **data)
{
	const struct sb_point_failure *f = &r->failure;
	double bw = r->metrics.bandwidth_gbps; /* over the point until the failure was seen */
	cJSON *d = cJSON_CreateObject();

	*data = NULL;
	if (d) {
		cJSON_AddNumberToObject(d, "attempt", attempt);
		cJSON_AddNumberToObject(d, "t_s", (double)f->t_ns * 1e-9);
		cJSON_AddNumberToObject(d, "after_s", (double)f->after_ns * 1e-9);
		cJSON_AddNumberToObject(d, "temperature_c", f->temperature_c);
		cJSON_AddNumberToObject(d, "power_w", f->power_w);
		cJSON_AddNumberToObject(d, "reads", (double)f->total.reads);
		cJSON_AddNumberToObject(d, "writes", (double)f->total.writes);
		cJSON_AddNumberToObject(d, "read_data_bytes",
		                        (double)(f->total.read_data_flits * 16));
		cJSON_AddNumberToObject(d, "bandwidth_gbps", bw);
		cJSON_AddNumberToObject(d, "thermal_events", f->thermal_events);
		cJSON_AddNumberToObject(d, "errstat", f->errstat);
		cJSON_AddStringToObject(d, "cooling", r->has_cooling ? r->cooling.name : "");
		*data = cJSON_PrintUnformatted(d);
		cJSON_Delete(d);
	}
	snprintf(msg, size,
	         "'%s': thermal failure %.3f s into point %u '%s' (run %u; after %.3f s): hot spot "
	         "%.1f C, power %.1f W; so far %llu reads, %llu writes, %llu B read (%.3f GB/s)",
	         w->uri, (double)f->t_ns * 1e-9, p->index, p->key, attempt + 1,
	         (double)f->after_ns * 1e-9, f->temperature_c, f->power_w,
	         (unsigned long long)f->total.reads, (unsigned long long)f->total.writes,
	         (unsigned long long)(f->total.read_data_flits * 16), bw);
}

/* --- the cooling rig ----------------------------------------------------------------------- */

/* What the rig said, as the JSON data of an event (caller frees with cJSON_free). */
static char *rig_json(const struct sb_cooling_state *st, unsigned attempt, double waited_s)
{
	cJSON *d = cJSON_CreateObject();
	char *text;

	if (!d)
		return NULL;
	cJSON_AddNumberToObject(d, "attempt", attempt);
	cJSON_AddNumberToObject(d, "faults", st->faults);
	cJSON_AddStringToObject(d, "faults_text", st->faults_text);
	cJSON_AddNumberToObject(d, "active", st->faults_active);
	cJSON_AddNumberToObject(d, "heatsink_c", st->heatsink_c);
	cJSON_AddNumberToObject(d, "ambient_c", st->ambient_c);
	cJSON_AddStringToObject(d, "cooling", st->name);
	if (waited_s >= 0)
		cJSON_AddNumberToObject(d, "waited_s", waited_s);
	text = cJSON_PrintUnformatted(d);
	cJSON_Delete(d);
	return text;
}

/*
 * Apply the point's cooling configuration; after a change, wait for the rig's heatsink to
 * settle (campaign key cooling_settle; an event 'settled' says how it went). SB_ERR_STATE with
 * w->rig_fault set when the rig is in its fail-safe.
 */
static int apply_cooling(struct worker *w, const struct sb_campaign_point *p, unsigned attempt)
{
	struct sb_cooling_settled out;
	int e;

	if (!strcmp(p->cooling, "none"))
		return 0;
	e = sb_cooling_apply(w->inst.cooling, p->cooling);
	if (e == 0 && strcmp(w->settled, p->cooling)) {
		e = sb_cooling_settle(w->inst.cooling, w->dev, &w->en->c->settle, &out);
		if (e == 0 && out.waited) {
			cJSON *d = cJSON_CreateObject();
			char *data = NULL;

			if (d) {
				cJSON_AddNumberToObject(d, "attempt", attempt);
				cJSON_AddStringToObject(d, "cooling", p->cooling);
				cJSON_AddBoolToObject(d, "settled", out.settled);
				cJSON_AddNumberToObject(d, "seconds", out.seconds);
				cJSON_AddNumberToObject(d, "heatsink_c", out.heatsink_c);
				cJSON_AddNumberToObject(d, "span_c", out.span_c);
				data = cJSON_PrintUnformatted(d);
				cJSON_Delete(d);
			}
			pthread_mutex_lock(&w->en->lock);
			event(w->en, (int)p->index, "settled", data,
			      "'%s': cooling %s: the heatsink %s at %.2f C after %.1f s", w->uri,
			      p->cooling, out.settled ? "settled" : "did not settle",
			      out.heatsink_c, out.seconds);
			pthread_mutex_unlock(&w->en->lock);
			cJSON_free(data);
		}
		if (e == 0)
			snprintf(w->settled, sizeof(w->settled), "%s", p->cooling);
	}
	if (e == SB_ERR_STATE && sb_cooling_status(w->inst.cooling, &w->rig_state) == 0 &&
	    w->rig_state.failsafe)
		w->rig_fault = true;
	return e;
}

/* The rig went into its fail-safe during a run: the run ends there, failed, with what it
 * measured (stored with a rig_fault event). */
static void rig_fault_run(struct worker *w, const struct sb_campaign_point *p, unsigned attempt,
                          struct sb_point_result *r, char *msg, size_t size, char **data)
{
	const struct sb_cooling_state *st = &w->rig_state;

	if (!r->failed) {
		r->failed = true;
		r->t_fail_ns = sb_device_now_ns(w->dev);
		r->failure.t_ns = r->duration_ns;
		r->failure.after_ns = w->nsamples > 1 ? w->samples[w->nsamples - 2].t_ns : 0;
		r->failure.total = r->total;
	}
	*data = rig_json(st, attempt, -1);
	snprintf(msg, size,
	         "'%s': cooling rig fail-safe %.3f s into point %u '%s' (run %u): %s, heatsink "
	         "%.1f C; the ports stopped%s; so far %llu reads, %llu writes",
	         w->uri, (double)r->failure.t_ns * 1e-9, p->index, p->key, attempt + 1,
	         st->faults_text, st->heatsink_c, w->cube_failed ? " (the cube failed too)" : "",
	         (unsigned long long)r->failure.total.reads,
	         (unsigned long long)r->failure.total.writes);
}

/*
 * After a rig fault (before a run, or stored with one): recovery.rig_fault abort stops the
 * campaign; recover stops the ports, waits on the bench and the rig's clocks until the fault's
 * cause is gone (clearing it every SB_RECOVERY_POLL_NS, up to recovery.cool_max_s), and
 * settles again before the next run. Events: rig_fault (before a run), rig_recovered or
 * recovery_failed.
 */
static int rig_recover(struct worker *w, const struct sb_campaign_point *p, unsigned attempt,
                       bool before)
{
	struct engine *en = w->en;
	const struct sb_campaign_recovery *opt = &en->c->recovery;
	uint64_t waited = 0, max_ns = (uint64_t)llround(opt->cool_max_s * 1e9);
	char *data = before ? rig_json(&w->rig_state, attempt, -1) : NULL;
	int e;

	if (before) {
		pthread_mutex_lock(&en->lock);
		event(en, (int)p->index, "rig_fault", data,
		      "'%s': the cooling rig is in its fail-safe before point %u '%s' (run %u): %s",
		      w->uri, p->index, p->key, attempt + 1, w->rig_state.faults_text);
		pthread_mutex_unlock(&en->lock);
		cJSON_free(data);
	}
	if (opt->rig_abort)
		return sb_error_set(SB_ERR_STATE,
		                    "'%s': the cooling rig went into its fail-safe (%s); "
		                    "recovery.rig_fault is abort",
		                    w->uri, w->rig_state.faults_text);
	sb_warn("'%s': the cooling rig is in its fail-safe (%s): recovering", w->uri,
	        w->rig_state.faults_text);
	if ((e = sb_hmc_reset_ports(w->dev)) < 0)
		return e;
	while ((e = sb_cooling_recover(w->inst.cooling)) == SB_ERR_STATE && waited < max_ns) {
		if ((e = sb_cooling_wait(w->inst.cooling, w->dev, SB_RECOVERY_POLL_NS)) < 0)
			break;
		waited += SB_RECOVERY_POLL_NS;
	}
	if (e < 0)
		sb_error_wrap(e, "'%s': the cooling rig did not recover in %.0f s", w->uri,
		              (double)waited * 1e-9);
	sb_cooling_status(w->inst.cooling, &w->rig_state);
	data = rig_json(&w->rig_state, attempt, (double)waited * 1e-9);
	pthread_mutex_lock(&en->lock);
	if (e < 0)
		event(en, (int)p->index, "recovery_failed", data, "%s", sb_error_detail());
	else
		event(en, (int)p->index, "rig_recovered", data,
		      "'%s': the cooling rig left its fail-safe after %.0f s", w->uri,
		      (double)waited * 1e-9);
	pthread_mutex_unlock(&en->lock);
	cJSON_free(data);
	w->rig_fault = false;
	w->settled[0] = '\0'; /* settle again before the next run */
	return e;
}

/* --- running and storing ------------------------------------------------------------------- */

static void report_progress(struct engine *en, const struct worker *w,
                            const struct sb_point_record *rec)
{
	struct sb_run_progress pr = {
	    .done = en->ndone,
	    .total = en->total,
	    .done_run = en->nrun,
	    .elapsed_s = wall_now() - ((double)en->t0.tv_sec + (double)en->t0.tv_nsec * 1e-9),
	    .eta_s = -1,
	    .device = w ? w->uri : NULL,
	    .worker = w ? w->id : 0,
	    .last_temp_c = NAN,
	    .last_power_w = NAN,
	    .campaign_id = en->id,
	};

	if (rec) {
		const struct sb_point_result *r = rec->result;
		struct sb_point_thermal th;

		sb_point_thermal_summary(rec, &th);
		pr.last = rec->point;
		pr.last_attempt = rec->attempt;
		pr.last_bandwidth_gbps = r->metrics.bandwidth_gbps;
		pr.last_mrps = r->metrics.mrps;
		pr.last_latency_avg_ns = r->metrics.lat_avg_ns;
		pr.last_failed = r->failed && !r->rig_fault;
		pr.last_rig_fault = r->rig_fault;
		pr.last_temp_c = r->failed ? r->failure.temperature_c : th.temp_steady_c;
		pr.last_power_w = th.power_avg_w;
	}
	if (en->nrun)
		pr.eta_s = pr.elapsed_s / en->nrun * (pr.total - pr.done);
	else if (!sb_campaign_all_sim(en->c))
		/* on hardware bench time is wall time: the durations say how long it takes */
		pr.eta_s = (double)(pr.total - pr.done) * (double)sb_campaign_point_ns(en->c) /
		           1e9 / (en->o->jobs ? en->o->jobs : 1);
	if (en->o->progress)
		en->o->progress(en->o->progress_ctx, &pr);
}

/* Progress inside a long point (thermal points run 200 s): at most once a second. */
static void report_in_point(struct worker *w, uint64_t t_ns, const struct sb_sample *s)
{
	struct engine *en = w->en;
	double now = wall_now();
	uint64_t point_ns = sb_campaign_point_ns(en->c);
	struct sb_run_progress pr;

	if (!en->o->progress || !w->cur || point_ns < 10000000000ull || now - w->prog_wall < 1.0)
		return;
	w->prog_wall = now;
	pthread_mutex_lock(&en->lock);
	pr = (struct sb_run_progress){
	    .done = en->ndone,
	    .total = en->total,
	    .done_run = en->nrun,
	    .elapsed_s = now - ((double)en->t0.tv_sec + (double)en->t0.tv_nsec * 1e-9),
	    .eta_s = -1,
	    .device = w->uri,
	    .worker = w->id,
	    .last_temp_c = NAN,
	    .last_power_w = NAN,
	    .campaign_id = en->id,
	    .in_point = true,
	    .current = w->cur,
	    .current_t_s = (double)t_ns / 1e9,
	    .current_s = (double)point_ns / 1e9,
	    .current_temp_c = s->temp_c,
	    .current_power_w = s->power_w,
	};
	en->o->progress(en->o->progress_ctx, &pr);
	pthread_mutex_unlock(&en->lock);
}

/* Sample the instruments at t = 0 (just before the ports start), then run the point; with a
 * trace capture (pt->cap) the point records its requests, and the capture is finished. */
static int start_point(struct worker *w, const struct sb_point_spec *spec,
                       struct sb_point_result *r, struct sb_point_trace *pt)
{
	static const struct sb_port_counters zero;
	struct sb_point_spec traced;
	int e;

	w->nsamples = 0;
	w->sample_err = 0;
	if (w->nsources && !spec->stream) {
		if ((e = take_sample(w, 0, &zero)) < 0) {
			/* Lost before the ports start: a loss like one mid-point (the caller
			 * reconnects and runs the point again), with nothing measured. */
			memset(&r->total, 0, sizeof(r->total));
			w->sample_err = e;
			return 0;
		}
		/* The meter's reading covers the time before the point: keep only V and A. */
		w->samples[0].power_w = NAN;
	}
	if (!pt->cap)
		return sb_point_run(w->dev, spec, r);
	traced = *spec;
	traced.capture = pt->cap;
	if ((e = sb_point_run(w->dev, &traced, r)) < 0)
		return e;
	return sb_point_trace_close(pt);
}

#define RECONNECT_MS 10000 /* how long a lost instrument is retried */
#define RECONNECTS_MAX 3   /* per point */

/*
 * An instrument failed mid-point (disconnect, stall, garbage): the point stopped its ports
 * when the sampling callback said so. Record what was measured until then as an event, then
 * (the n-th loss of this point, at most RECONNECTS_MAX) reopen the instrument for a bounded time.
 * Returns 0 (it is back: run the point again) or the error that stops the run; nothing stored
 * before is touched.
 */
static int instrument_lost(struct worker *w, const struct sb_campaign_point *p,
                           const struct sb_point_result *r, unsigned n)
{
	struct engine *en = w->en;
	const struct sample_source *src = &w->src[w->sample_err_src];
	const struct sb_sample *last = w->nsamples ? &w->samples[w->nsamples - 1] : NULL;
	bool temp = src->ctx == (void *)w->inst.temp;
	const char *conn =
	    temp ? sb_temp_source_conn(w->inst.temp) : sb_power_source_conn(w->inst.power);
	char why[512], *data;
	cJSON *d = cJSON_CreateObject();
	int e;

	snprintf(why, sizeof(why), "%s", sb_error_detail());
	cJSON_AddStringToObject(d, "source", src->name);
	cJSON_AddStringToObject(d, "conn", conn);
	cJSON_AddStringToObject(d, "reason", why);
	cJSON_AddNumberToObject(d, "t_s", last ? last->t_ns / 1e9 : 0);
	cJSON_AddNumberToObject(d, "samples", w->nsamples);
	cJSON_AddNumberToObject(d, "reads", (double)r->total.reads);
	cJSON_AddNumberToObject(d, "writes", (double)r->total.writes);
	if (last && !isnan(last->temp_c))
		cJSON_AddNumberToObject(d, "last_temp_c", last->temp_c);
	if (last && !isnan(last->power_w))
		cJSON_AddNumberToObject(d, "last_power_w", last->power_w);
	data = cJSON_PrintUnformatted(d);
	cJSON_Delete(d);
	pthread_mutex_lock(&en->lock);
	event(en, (int)p->index, "instrument_lost", data,
	      "'%s': the %s source '%s' failed at %.1f s of point %u '%s' (%s); the ports were "
	      "stopped; "
	      "%u samples until then are in this event",
	      w->uri, src->name, conn, last ? last->t_ns / 1e9 : 0.0, p->index, p->key, why,
	      w->nsamples);
	pthread_mutex_unlock(&en->lock);
	cJSON_free(data);
	if (n > RECONNECTS_MAX)
		return sb_error_set(
		    w->sample_err,
		    "point %u '%s' on '%s': instruments lost %u times, the last: the %s "
		    "source '%s': %s",
		    p->index, p->key, w->uri, n, src->name, conn, why);
	e = temp ? sb_temp_source_reconnect(w->inst.temp, RECONNECT_MS)
	         : sb_power_source_reconnect(w->inst.power, RECONNECT_MS);
	if (e < 0)
		return sb_error_set(
		    e, "point %u '%s' on '%s': the %s source '%s' was lost (%s) and %s", p->index,
		    p->key, w->uri, src->name, conn, why, sb_error_detail());
	pthread_mutex_lock(&en->lock);
	event(en, (int)p->index, "instrument_reconnected", NULL,
	      "'%s': the %s source '%s' is back; point %u '%s' runs again", w->uri, src->name, conn,
	      p->index, p->key);
	pthread_mutex_unlock(&en->lock);
	return 0;
}

/* What produced a run, finished now: the board, the instruments, the point's seed, the shard
 * (a JSON object to free with cJSON_free; NULL when out of memory). */
static char *run_provenance(struct worker *w, struct sb_provenance *prov,
                            const struct sb_campaign_point *p, const struct sb_point_result *r)
{
	const struct sb_run_options *o = w->en->o;

	sb_provenance_now(prov->finished_at, sizeof(prov->finished_at));
	sb_provenance_device(prov, w->dev);
	sb_provenance_instruments(prov, &w->inst);
	sb_provenance_point(prov, p->seed, r);
	if (o->shards)
		snprintf(prov->shard, sizeof(prov->shard), "%u/%u", o->shard, o->shards);
	return sb_provenance_json(prov);
}

/* Store a run of a point (one transaction) and count it; *stored: it was committed. */
static int commit_run(struct worker *w, const struct sb_point_record *rec, bool *stored)
{
	struct engine *en = w->en;
	const struct sb_campaign_point *p = rec->point;
	const struct sb_point_result *r = rec->result;
	int e;

	pthread_mutex_lock(&en->lock);
	e = sb_store_point_commit(en->st, en->id, rec);
	if (e == 0) {
		*stored = true;
		en->attempts[p->index] = rec->attempt + 1;
		if (!r->failed || rec->attempt >= en->c->recovery.retries) {
			en->done[p->index] = true;
			en->ndone++;
			en->nrun++;
		}
		en->nfailed += r->failed;
		report_progress(en, w, rec);
	}
	pthread_mutex_unlock(&en->lock);
	return e;
}

/* A fresh simulated board before each point of a bandwidth campaign: a simulated board keeps
 * the timing state of earlier points (refresh phase, bank and link reservations); a fresh one
 * (0.2 ms to open) makes a point's result depend on the point only, whichever worker runs it
 * after whatever. */
static int reopen_fresh(struct worker *w)
{
	int e;

	if (!w->fresh)
		return 0;
	close_sources(w);
	sb_device_close(w->dev);
	w->dev = NULL;
	if ((e = sb_device_open(&w->dev, w->uri)) < 0 || (e = open_sources(w)) < 0)
		return e;
	return 0;
}

/*
 * An HBM2 thermal point's sample hook (sb_hbm_spec.sample): the counters in the GUPS point's
 * terms (as sb_hbm_point_result counts them), then every source (sample_cb); a temperature at
 * or above recovery.limit_c stops the ports there (w->thermal_stop).
 */
static int hbm_sample_cb(void *ctx, uint64_t t_ns, const struct sb_hbm_window *win)
{
	struct worker *w = ctx;
	unsigned burst = w->cur->hbm.burst ? w->cur->hbm.burst : 1;
	struct sb_port_counters total = {
	    .reads = win->rd_bytes / burst,
	    .writes = win->wr_bytes / burst,
	    .read_data_flits = win->rd_bytes / 16,
	    .lat_sum_cycles = win->rd_lat_sum,
	    .lat_count = win->rd_lat_count,
	};
	int stop = sample_cb(w, t_ns, &total);

	if (w->sample_err < 0)
		return stop;
	if (w->samples[w->nsamples - 1].temp_c >= w->en->c->recovery.limit_c) {
		w->thermal_stop = true;
		return 1;
	}
	return stop;
}

/* An HBM2 card's point reached the temperature limit: the run is a failed one (what it
 * measured until the stop), with a thermal_stop event saying when, how hot, what was measured. */
static void thermal_stop_run(struct worker *w, const struct sb_campaign_point *p, unsigned attempt,
                             struct sb_point_result *r, char *msg, size_t size, char **data)
{
	const struct sb_sample *x = &w->samples[w->nsamples - 1];
	struct sb_point_failure *f = &r->failure;
	double limit = w->en->c->recovery.limit_c;
	cJSON *d = cJSON_CreateObject();

	r->failed = true;
	r->t_fail_ns = sb_device_now_ns(w->dev);
	f->t_ns = x->t_ns;
	f->after_ns = w->nsamples > 1 ? x[-1].t_ns : 0;
	f->temperature_c = x->temp_c;
	f->total = r->total;
	f->power_w = NAN;
	for (unsigned i = w->nsamples; i-- > 0 && isnan(f->power_w);)
		f->power_w = w->samples[i].power_w;
	*data = NULL;
	if (d) {
		cJSON_AddNumberToObject(d, "attempt", attempt);
		cJSON_AddNumberToObject(d, "t_s", (double)f->t_ns * 1e-9);
		cJSON_AddNumberToObject(d, "after_s", (double)f->after_ns * 1e-9);
		cJSON_AddNumberToObject(d, "temperature_c", f->temperature_c);
		cJSON_AddNumberToObject(d, "limit_c", limit);
		cJSON_AddNumberToObject(d, "power_w", f->power_w);
		cJSON_AddNumberToObject(d, "reads", (double)f->total.reads);
		cJSON_AddNumberToObject(d, "writes", (double)f->total.writes);
		cJSON_AddNumberToObject(d, "bandwidth_gbps", r->metrics.bandwidth_gbps);
		*data = cJSON_PrintUnformatted(d);
		cJSON_Delete(d);
	}
	snprintf(msg, size,
	         "'%s': temperature limit %.1f C reached %.3f s into point %u '%s' (run %u): "
	         "%.1f C ('%s'); the ports were stopped; so far %llu reads, %llu writes (%.3f "
	         "GB/s)",
	         w->uri, limit, (double)f->t_ns * 1e-9, p->index, p->key, attempt + 1,
	         f->temperature_c, sb_temp_source_conn(w->inst.temp),
	         (unsigned long long)f->total.reads, (unsigned long long)f->total.writes,
	         r->metrics.bandwidth_gbps);
	sb_warn("%s", msg);
}

/*
 * Run an HBM2 card's point: the instruments read before the ports start, during the window
 * (a thermal campaign: every sample_interval_ms, stopping at the temperature limit) and after
 * it. A source that fails stops the point (w->sample_err). A thermal campaign's point that
 * starts at or above the limit waits for the cool-down first (at most SB_RECOVERY_ROUNDS).
 */
static int hbm_point(struct worker *w, const struct sb_campaign_point *p, unsigned attempt,
                     struct sb_hbm_spec *spec, struct sb_point_trace *pt, struct sb_hbm_result *hr,
                     struct sb_point_result *r)
{
	static const struct sb_port_counters zero;
	const struct sb_campaign *c = w->en->c;
	bool thermal = c->kind == SB_CAMPAIGN_THERMAL;
	int e;

	for (unsigned round = 0; w->nsources; round++) {
		w->nsamples = 0;
		if ((e = take_sample(w, 0, &zero)) < 0) {
			w->sample_err = e;
			return 0;
		}
		w->samples[0].power_w = NAN; /* the meter's reading covers the time before */
		if (!thermal || w->samples[0].temp_c < c->recovery.limit_c)
			break;
		if (round >= SB_RECOVERY_ROUNDS)
			return sb_error_set(
			    SB_ERR_THERMAL,
			    "'%s': %.1f C ('%s') at the start of point %u '%s', the "
			    "limit is %.1f C",
			    w->uri, w->samples[0].temp_c, sb_temp_source_conn(w->inst.temp),
			    p->index, p->key, c->recovery.limit_c);
		/* left hot (by the previous point, or before the campaign) */
		if ((e = recover(w, p, attempt, w->samples[0].temp_c)) < 0)
			return e;
	}
	if (thermal) {
		spec->sample_ns = (uint64_t)llround(c->sample_interval_ms * 1e6);
		spec->sample = hbm_sample_cb;
		spec->sample_ctx = w;
	}
	if ((e = sb_point_trace_hbm_run(pt, w->dev, spec, hr)) < 0 || w->sample_err < 0)
		return e;
	sb_hbm_point_result(spec, hr, r);
	if (w->nsources && !hr->stopped) {
		if ((e = take_sample(w, spec->warmup_ns + hr->window_ns, &r->total)) < 0)
			w->sample_err = e;
		else
			run_event(w, SB_RUN_SAMPLE);
	}
	return 0;
}

/*
 * One run of an HBM2 card's point (sb_hbm_point_run): a fresh simulated card (bandwidth
 * campaigns), the instruments sampled around the window (and during it in a thermal
 * campaign), stored with the engine's result. The stacks' own temperature (hbm_card.hbm_temp)
 * is stored with the point (table hbm_points). A lost instrument: the AC-510's rule
 * (instrument_lost: an event, a bounded reconnect, the point again, or the run stops).
 */
static int run_hbm_attempt(struct worker *w, const struct sb_campaign_point *p, unsigned attempt,
                           struct sb_point_result *r, bool *stored)
{
	struct engine *en = w->en;
	struct sb_hbm_spec spec;
	struct sb_hbm_result hr;
	struct sb_point_record rec;
	struct sb_point_trace pt;
	struct sb_provenance prov;
	double t0 = wall_now();
	char msg[1024], *data = NULL, *prov_json;
	unsigned reconnects = 0;
	int e;

	*stored = false;
again:
	sb_provenance_init(&prov);
	sb_provenance_now(prov.started_at, sizeof(prov.started_at));
	if ((e = reopen_fresh(w)) < 0)
		return e;
	sb_campaign_hbm_spec(en->c, p, &spec);
	w->cur = p;
	w->cur_attempt = attempt;
	w->nsamples = 0;
	w->sample_err = 0;
	w->thermal_stop = false;
	run_event(w, SB_RUN_POINT_START);
	if ((e = sb_point_trace_open(&pt, en->c, sb_store_path(en->st), en->id, p, attempt,
	                             w->dev)) < 0)
		return e;
	memset(&hr, 0, sizeof(hr));
	e = hbm_point(w, p, attempt, &spec, &pt, &hr, r);
	if (e < 0 || w->sample_err < 0 || stop_requested(en) || en->abort)
		sb_point_trace_abort(&pt); /* not stored: runs again on resume */
	if (e < 0)
		return sb_error_wrap(e, "point %u '%s' on '%s'", p->index, p->key, w->uri);
	if (w->sample_err < 0) {
		sb_hbm_point_result(&spec, &hr, r); /* what the event tells of the point */
		if ((e = instrument_lost(w, p, r, ++reconnects)) < 0)
			return e;
		goto again;
	}
	if (stop_requested(en) || en->abort)
		return 0;
	w->cube_failed = w->thermal_stop;
	if (w->thermal_stop)
		thermal_stop_run(w, p, attempt, r, msg, sizeof(msg), &data);
	prov_json = run_provenance(w, &prov, p, r);
	rec = (struct sb_point_record){
	    .point = p,
	    .attempt = attempt,
	    .provenance = prov_json,
	    .device = w->uri,
	    .worker = w->id,
	    .duration_ns = spec.duration_ns,
	    .result = r,
	    .samples = w->samples,
	    .nsamples = w->nsamples,
	    .wall_s = wall_now() - t0,
	    .hbm = &hr,
	    .hbm_spec = &spec,
	    .trace_file = pt.done ? pt.rel : NULL,
	    .trace = &pt.st,
	    .trace_cfg = &en->c->trace.cfg,
	};
	if (r->failed) {
		rec.event.kind = "thermal_stop";
		rec.event.message = msg;
		rec.event.data = data;
	}
	if ((e = commit_run(w, &rec, stored)) < 0)
		sb_point_trace_abort(&pt);
	cJSON_free(data);
	cJSON_free(prov_json);
	return e;
}

/*
 * One run of a point: reopen a fresh simulated board (bandwidth campaigns), apply its cooling,
 * run, store. *stored says whether a run was committed (not when stopped part-way).
 */
static int run_attempt(struct worker *w, const struct sb_campaign_point *p, unsigned attempt,
                       struct sb_point_result *r, bool *stored)
{
	struct engine *en = w->en;
	struct sb_point_spec spec;
	struct sb_point_record rec;
	struct sb_point_trace pt;
	struct sb_provenance prov;
	double t0 = wall_now();
	char msg[1024], *data = NULL, *prov_json;
	unsigned reconnects = 0;
	int e;

	if (en->c->engine == SB_ENGINE_HBM2)
		return run_hbm_attempt(w, p, attempt, r, stored);
	*stored = false;
again:
	sb_provenance_init(&prov);
	sb_provenance_now(prov.started_at, sizeof(prov.started_at));
	if ((e = reopen_fresh(w)) < 0)
		return e;
	if ((e = make_spec(w, p, &spec)) < 0)
		return e;
	if ((e = apply_cooling(w, p, attempt)) < 0)
		return sb_error_wrap(e, "point %u '%s' on '%s'", p->index, p->key, w->uri);
	if ((e = sb_point_trace_open(&pt, en->c, sb_store_path(en->st), en->id, p, attempt,
	                             w->dev)) < 0)
		return e;
	w->cur = p;
	w->cur_attempt = attempt;
	run_event(w, SB_RUN_POINT_START);
	e = start_point(w, &spec, r, &pt);
	if (e == SB_ERR_THERMAL) {
		/* The cube was left failed (by the previous point, or before the campaign). */
		if ((e = recover(w, p, attempt, NAN)) < 0) {
			sb_point_trace_abort(&pt);
			return e;
		}
		e = start_point(w, &spec, r, &pt);
	}
	if (e < 0 || w->sample_err < 0 || stop_requested(en) || en->abort)
		sb_point_trace_abort(&pt);
	if (e < 0)
		return sb_error_wrap(e, "point %u '%s' on '%s'", p->index, p->key, w->uri);
	if (w->sample_err < 0) {
		if ((e = instrument_lost(w, p, r, ++reconnects)) < 0)
			return e;
		goto again;
	}
	if (stop_requested(en) || en->abort)
		return 0; /* stopped part-way: not stored, runs again on resume */
	w->cube_failed = r->failed;
	if (w->rig_fault)
		rig_fault_run(w, p, attempt, r, msg, sizeof(msg), &data);
	if (r->failed) {
		if ((e = note_failure(w, r)) < 0)
			return e;
		if (!w->rig_fault)
			failure_event(w, p, attempt, r, msg, sizeof(msg), &data);
	}
	/* what produced this run, stored with it */
	prov_json = run_provenance(w, &prov, p, r);
	rec = (struct sb_point_record){
	    .point = p,
	    .attempt = attempt,
	    .provenance = prov_json,
	    .device = w->uri,
	    .worker = w->id,
	    .mask = spec.mask,
	    .antimask = spec.antimask,
	    .addr_mode = spec.addr_mode_bytes,
	    .duration_ns = spec.duration_ns,
	    .result = r,
	    .samples = w->samples,
	    .nsamples = w->nsamples,
	    .wall_s = wall_now() - t0,
	    .trace_file = pt.done ? pt.rel : NULL,
	    .trace = &pt.st,
	    .trace_cfg = &en->c->trace.cfg,
	};
	if (r->failed) {
		rec.event.kind = w->rig_fault ? "rig_fault" : "thermal_failure";
		rec.event.message = msg;
		rec.event.data = data;
	}
	e = commit_run(w, &rec, stored);
	if (e < 0)
		sb_point_trace_abort(&pt);
	cJSON_free(data);
	cJSON_free(prov_json);
	return e;
}

/*
 * Run one point and store it; after a thermal failure, recover the cube and run it again while
 * retries are left (every run is stored). Returns 0, or an error that stops the run.
 */
static int run_point(struct worker *w, const struct sb_campaign_point *p)
{
	struct engine *en = w->en;
	struct sb_point_result r;
	unsigned attempt, rig_rounds = 0;
	bool stored, rerun = false;
	int e;

	pthread_mutex_lock(&en->lock);
	attempt = en->attempts[p->index];
	pthread_mutex_unlock(&en->lock);
	for (;;) {
		if (attempt && !rerun) {
			pthread_mutex_lock(&en->lock);
			en->nretried++;
			event(en, (int)p->index, "retry", NULL,
			      "point %u '%s' runs again (run %u of %u)", p->index, p->key,
			      attempt + 1, en->c->recovery.retries + 1);
			pthread_mutex_unlock(&en->lock);
		}
		w->rig_fault = false;
		e = run_attempt(w, p, attempt, &r, &stored);
		rerun = false;
		if (e < 0 && w->rig_fault && !stored) {
			/* The rig refused the configuration, or failed while settling: nothing
			 * ran; recover and try the same run again. */
			if (++rig_rounds > SB_RECOVERY_ROUNDS ||
			    (e = rig_recover(w, p, attempt, true)) < 0)
				return e;
			rerun = true;
			continue;
		}
		if (e < 0 || !stored || !r.failed)
			return e;
		if (w->rig_fault && (e = rig_recover(w, p, attempt, false)) < 0)
			return e;
		if (w->cube_failed && (e = recover(w, p, attempt, r.failure.temperature_c)) < 0)
			return e;
		if (attempt >= en->c->recovery.retries || stop_requested(en) || en->abort)
			return 0;
		attempt++;
	}
}

/* Next point that is neither stored nor taken (caller holds the lock); -1 when none. */
static int take_point(struct engine *en)
{
	while (en->next < en->c->npoints && en->done[en->next])
		en->next++;
	if (en->next >= en->c->npoints)
		return -1;
	return (int)en->next++;
}

/*
 * Pin the calling worker thread to the CPUs near its board's PCIe root (hwloc), so the samples
 * it reads and the buffers it first touches stay on the board's NUMA node. The simulated board
 * has no PCI address: nothing to do.
 */
static void pin_near_board(struct worker *w)
{
	struct sb_topology *t;
	struct sb_locality loc;
	char bdf[32];

	if (sb_device_pci_address(w->dev, bdf, sizeof(bdf)) < 0)
		return;
	if (sb_topology_new(&t, NULL) < 0) {
		sb_warn("'%s': no machine topology (%s); worker not pinned", w->uri,
		        sb_error_detail());
		return;
	}
	if (sb_topology_pci_locality(t, bdf, &loc) == 0 && sb_topology_bind_thread(t, &loc) == 0)
		sb_info("'%s': worker pinned to CPUs %s (NUMA node %d) near %s", w->uri, loc.cpus,
		        loc.numa_node, bdf);
	else
		sb_warn("'%s': cannot pin the worker near %s: %s", w->uri, bdf, sb_error_detail());
	sb_topology_free(t);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct engine *en = w->en;

	pin_near_board(w);

	for (;;) {
		int idx, e;

		pthread_mutex_lock(&en->lock);
		idx = en->abort || stop_requested(en) || pause_requested(en) ? -1 : take_point(en);
		pthread_mutex_unlock(&en->lock);
		if (idx < 0)
			break;
		if ((e = run_point(w, &en->c->points[idx])) < 0) {
			pthread_mutex_lock(&en->lock);
			fail_run(en, e);
			event(en, idx, "error", NULL, "%s", sb_error_detail());
			pthread_mutex_unlock(&en->lock);
			break;
		}
	}
	return NULL;
}

/* --- setup --------------------------------------------------------------------------------- */

static int open_worker(struct worker *w)
{
	struct sb_hmc_status hs;
	uint32_t off;
	int e;

	if ((e = sb_device_open(&w->dev, w->uri)) < 0)
		return e;
	w->fresh =
	    !strcmp(sb_device_transport(w->dev), "sim") && w->en->c->kind == SB_CAMPAIGN_BANDWIDTH;
	if (w->en->c->engine == SB_ENGINE_HBM2) {
		if (!sb_hbm_is_card(w->dev))
			return sb_error_set(SB_ERR_INVAL,
			                    "'%s' is not an HBM2 card (no hbm_card block), but the "
			                    "campaign '%s' is an HBM2 card's (bench.engine hbm2)",
			                    w->uri, w->en->c->file);
		if ((e = sb_hbm_card_read(w->dev, &w->card)) < 0)
			return sb_error_wrap(e, "'%s'", w->uri);
		return open_sources(w);
	}
	if (sb_hbm_is_card(w->dev))
		return sb_error_set(SB_ERR_INVAL,
		                    "'%s' is an HBM2 card, but the campaign '%s' is the GUPS "
		                    "engine's (its axes: type, size, pattern, ...; an HBM2 card's "
		                    "campaign names bench.engine: hbm2)",
		                    w->uri, w->en->c->file);
	if ((e = sb_board_info(w->dev, &w->board)) < 0 || (e = sb_hmc_status(w->dev, &hs)) < 0)
		return sb_error_wrap(e, "'%s'", w->uri);
	w->addr_mode0 = hs.addr_mode_bytes;
	w->has_stream = sb_device_find_block(w->dev, SB_BLK_STREAM_TYPE, 0, &off) == 0;
	/* Thermal campaigns keep the board (w->fresh above): the bench's heat carries over from
	 * point to point, as it does on hardware. */
	return open_sources(w);
}

/* Every point must be runnable on every worker's board before anything runs. */
static int check_points(struct worker *w)
{
	for (unsigned i = 0; i < w->en->c->npoints; i++) {
		struct sb_point_spec s;
		int e = w->en->c->engine == SB_ENGINE_HBM2
		            ? sb_hbm_point_check(&w->en->c->points[i], &w->card, w->uri)
		            : make_spec(w, &w->en->c->points[i], &s);

		if (e < 0)
			return e;
	}
	return 0;
}

int sb_campaign_check(const struct sb_campaign *c, unsigned jobs, struct sb_run_summary *sum)
{
	struct sb_run_options o = {0};
	struct engine en = {.c = c, .o = &o};
	int e = 0;

	memset(sum, 0, sizeof(*sum));
	if (jobs > c->ndevices && !sb_campaign_all_sim(c))
		return sb_error_set(
		    SB_ERR_INVAL, "--jobs %u needs %u device URIs in 'bench.device'; '%s' lists %u",
		    jobs, jobs, c->file, c->ndevices);
	/* each device once, like the workers of a run (sim: URIs reused by --jobs are alike) */
	for (unsigned i = 0; i < c->ndevices && e == 0; i++) {
		struct worker w = {.en = &en, .id = i, .uri = c->device[i]};

		if ((e = open_worker(&w)) < 0)
			sum->open_failed = true;
		else if ((e = check_points(&w)) < 0)
			sum->check_failed = true;
		close_sources(&w);
		sb_device_close(w.dev);
		free(w.samples);
	}
	return e;
}

/* What created (or resumed) a campaign: the build, the host, the first worker's board. */
static char *engine_provenance(struct sb_device *dev)
{
	struct sb_provenance prov;

	sb_provenance_init(&prov);
	sb_provenance_now(prov.started_at, sizeof(prov.started_at));
	if (dev)
		sb_provenance_device(&prov, dev);
	return sb_provenance_json(&prov);
}

static int campaign_provenance(struct engine *en, int64_t id)
{
	char *json = engine_provenance(en->dev0);
	int e = json ? sb_store_campaign_provenance(en->st, id, json)
	             : sb_error_set(SB_ERR_NOMEM, "out of memory");

	cJSON_free(json);
	return e;
}

/* A resume of another shard (or of the whole campaign as a shard, or the reverse). */
static int shard_mismatch(const struct engine *en, const struct sb_store_campaign *prev)
{
	char was[32] = "the whole campaign", now[32] = "the whole campaign";

	if (prev->shards)
		snprintf(was, sizeof(was), "shard %u/%u", prev->shard, prev->shards);
	if (en->o->shards)
		snprintf(now, sizeof(now), "shard %u/%u", en->o->shard, en->o->shards);
	return sb_error_set(SB_ERR_MISMATCH,
	                    "campaign %lld '%s' in '%s' holds %s; this run is %s: refusing to "
	                    "resume (each shard has its own database)",
	                    (long long)prev->id, prev->name, sb_store_path(en->st), was, now);
}

/* Create the campaign in the store, or find the one to resume. */
static int setup_campaign(struct engine *en, struct sb_run_summary *sum)
{
	const struct sb_campaign *c = en->c;
	struct sb_store_campaign prev;
	int e = sb_store_campaign_latest(en->st, c->name, &prev);

	if (e < 0 && e != SB_ERR_NOT_FOUND)
		return e;
	if (en->o->resume && e == 0) {
		if (strcmp(prev.hash, c->hash))
			return sb_error_set(
			    SB_ERR_MISMATCH,
			    "campaign file '%s' has changed since campaign %lld '%s' started "
			    "(content "
			    "hash %s, stored %s): refusing to resume; run it without --resume to "
			    "start a new campaign",
			    c->file, (long long)prev.id, prev.name, c->hash, prev.hash);
		if (prev.shards != en->o->shards || (en->o->shards && prev.shard != en->o->shard))
			return shard_mismatch(en, &prev);
		en->id = prev.id;
		sum->resumed = true;
		if ((e = sb_store_campaign_status(en->st, en->id, "running")) < 0)
			return e;
		if ((e = sb_store_points_attempts(en->st, en->id, en->done, en->attempts,
		                                  c->npoints)) < 0)
			return e;
		/* Finished: a run without a failure, or every retry used. */
		for (unsigned i = 0; i < c->npoints; i++)
			en->done[i] = en->done[i] || en->attempts[i] > c->recovery.retries;
		return 0;
	}
	if (en->o->resume)
		sb_info("no campaign '%s' in '%s' to resume: starting it", c->name,
		        sb_store_path(en->st));
	else if (e == 0 && strcmp(prev.status, "complete"))
		sb_warn(
		    "campaign %lld '%s' in '%s' is incomplete (%u of %u points); starting a new "
		    "one (use --resume to continue it)",
		    (long long)prev.id, prev.name, sb_store_path(en->st), prev.points_done,
		    prev.shards ? prev.shard_points : prev.points_total);
	if ((e = sb_store_campaign_create(en->st, c, &en->id)) < 0)
		return e;
	if (en->o->shards && (e = sb_store_campaign_shard(en->st, en->id, en->o->shard,
	                                                  en->o->shards, en->total)) < 0)
		return e;
	return campaign_provenance(en, en->id);
}

/* Which points the run's shard holds (en->in_shard, en->total). */
static int select_shard(struct engine *en)
{
	const struct sb_campaign *c = en->c;
	unsigned *of;
	int e;

	en->total = c->npoints;
	if (!en->o->shards)
		return 0;
	if (en->o->shard >= en->o->shards)
		return sb_error_set(SB_ERR_INVAL, "shard %u/%u: expected 0 <= I < N", en->o->shard,
		                    en->o->shards);
	of = calloc(c->npoints ? c->npoints : 1, sizeof(*of));
	en->in_shard = calloc(c->npoints ? c->npoints : 1, sizeof(*en->in_shard));
	if (!of || !en->in_shard) {
		free(of);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	if ((e = sb_campaign_shard_map(c, en->o->shards, of, NULL)) == 0) {
		en->total = 0;
		for (unsigned i = 0; i < c->npoints; i++) {
			en->in_shard[i] = of[i] == en->o->shard;
			en->total += en->in_shard[i];
		}
	}
	free(of);
	return e;
}

int sb_campaign_run(const struct sb_campaign *c, struct sb_store *st,
                    const struct sb_run_options *o, struct sb_run_summary *sum)
{
	unsigned jobs = o->jobs ? o->jobs : 1;
	struct engine en = {.c = c, .st = st, .o = o};
	struct sb_lock *lock;
	struct worker *w = NULL;
	double t0 = wall_now();
	int e = 0;

	memset(sum, 0, sizeof(*sum));
	sum->total = c->npoints;
	if (jobs > c->ndevices && !sb_campaign_all_sim(c))
		return sb_error_set(
		    SB_ERR_INVAL, "--jobs %u needs %u device URIs in 'bench.device'; '%s' lists %u",
		    jobs, jobs, c->file, c->ndevices);
	/* One process runs a campaign of a database at a time. */
	if ((e = sb_campaign_lock(&lock, sb_store_path(st), c->name)) < 0)
		return e;
	if ((e = select_shard(&en)) < 0)
		goto fail_alloc;
	sum->total = en.total;
	if (jobs > en.total)
		jobs = en.total ? en.total : 1;
	w = calloc(jobs, sizeof(*w));
	en.done = calloc(c->npoints, sizeof(*en.done));
	en.attempts = calloc(c->npoints, sizeof(*en.attempts));
	if (!w || !en.done || !en.attempts) {
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto fail_alloc;
	}
	pthread_mutex_init(&en.lock, NULL);
	/* Devices first, and every point checked against them: nothing runs on bad input. */
	for (unsigned i = 0; i < jobs; i++) {
		w[i].en = &en;
		w[i].id = i;
		/* Simulated boards may be opened several times (each open is its own board). */
		w[i].uri = c->device[i % c->ndevices];
		if ((e = open_worker(&w[i])) < 0) {
			sum->open_failed = true;
			goto fail_workers;
		}
		if ((e = check_points(&w[i])) < 0) {
			sum->check_failed = true;
			goto fail_workers;
		}
	}
	en.dev0 = w[0].dev;
	if ((e = setup_campaign(&en, sum)) < 0)
		goto fail_workers;
	sum->campaign_id = en.id;
	for (unsigned i = 0; i < c->npoints; i++) {
		if (en.in_shard && !en.in_shard[i]) {
			en.done[i] = true; /* another shard's: never taken, not counted */
			continue;
		}
		en.done[i] = en.done[i] || (o->only && !o->only[i]);
		en.ndone += en.done[i];
	}
	sum->skipped = en.ndone;
	{
		/* a resume records what resumed it: the build may have changed */
		char *prov = sum->resumed ? engine_provenance(w[0].dev) : NULL;
		char shard[48] = "";

		if (o->shards)
			snprintf(shard, sizeof(shard), " of shard %u/%u", o->shard, o->shards);
		event(&en, -1, sum->resumed ? "resume" : "start", prov,
		      "%u of %u points%s to run, %u worker%s (%s%s), content hash %s",
		      en.total - en.ndone, en.total, shard, jobs, jobs == 1 ? "" : "s", w[0].uri,
		      jobs > 1 ? ", ..." : "", c->hash);
		cJSON_free(prov);
	}
	clock_gettime(CLOCK_MONOTONIC, &en.t0);
	report_progress(&en, NULL, NULL);
	if (jobs == 1) {
		worker_main(&w[0]);
	} else {
		unsigned started = 0;

		for (; started < jobs; started++)
			if (pthread_create(&w[started].thread, NULL, worker_main, &w[started])) {
				pthread_mutex_lock(&en.lock);
				fail_run(&en, sb_error_set(SB_ERR_NOMEM, "cannot start a worker"));
				pthread_mutex_unlock(&en.lock);
				break;
			}
		for (unsigned i = 0; i < started; i++)
			pthread_join(w[i].thread, NULL);
	}
	sum->run = en.nrun;
	sum->failed = en.nfailed;
	sum->retried = en.nretried;
	sum->recovered = en.nrecovered;
	if (en.abort) {
		if (sb_store_campaign_status(st, en.id, "error") < 0)
			sb_warn("%s", sb_error_detail());
		e = sb_error_set(en.err, "%s", en.detail);
	} else if (en.ndone == en.total) {
		if (en.nrun || !sum->resumed)
			event(&en, -1, "complete", NULL, "%u points", en.total);
		e = sb_store_campaign_status(st, en.id, "complete");
	} else if (stop_requested(&en) || pause_requested(&en)) {
		event(&en, -1, "interrupted", NULL, "%u of %u points stored", en.ndone, en.total);
		/* not "running" any more: list shows it waiting for a resume */
		if (sb_store_campaign_status(st, en.id, "interrupted") < 0)
			sb_warn("%s", sb_error_detail());
		e = sb_error_set(SB_ERR_INTERRUPTED,
		                 "campaign %lld '%s' interrupted with %u of %u points stored",
		                 (long long)en.id, c->name, en.ndone, en.total);
	}
fail_workers:
	for (unsigned i = 0; i < jobs; i++) {
		close_sources(&w[i]);
		sb_device_close(w[i].dev);
		free(w[i].samples);
	}
	pthread_mutex_destroy(&en.lock);
fail_alloc:
	free(en.done);
	free(en.attempts);
	free(en.in_shard);
	free(w);
	sb_lock_release(lock);
	sum->wall_s = wall_now() - t0;
	return e;
}
