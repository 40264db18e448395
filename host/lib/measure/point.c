/* SPDX-License-Identifier: MIT */
/* A measurement point through the device API, with the bench's instruments. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gups_addrgen.h"
#include "sb_regmap.h"
#include "stackbench/capture.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/point.h"

const char *sb_port_order_name(enum sb_port_order o)
{
	return o == SB_PORT_ORDER_SPREAD ? "spread" : "first";
}

int sb_port_order_parse(const char *s, enum sb_port_order *o)
{
	if (!strcmp(s, "first"))
		*o = SB_PORT_ORDER_FIRST;
	else if (!strcmp(s, "spread"))
		*o = SB_PORT_ORDER_SPREAD;
	else
		return sb_error_set(SB_ERR_INVAL, "port order '%s': expected first or spread", s);
	return 0;
}

int sb_point_port_ids(struct sb_device *dev, enum sb_port_order o, unsigned n, uint8_t *ids)
{
	unsigned have = sb_device_port_count(dev), link[SB_POINT_MAX_PORTS], taken = 0;
	int err;

	if (n > have || n > SB_POINT_MAX_PORTS)
		return sb_error_set(SB_ERR_INVAL, "%u ports requested; the board has %u", n, have);
	if (o == SB_PORT_ORDER_FIRST) {
		for (unsigned i = 0; i < n; i++)
			ids[i] = (uint8_t)i;
		return 0;
	}
	for (unsigned p = 0; p < have; p++)
		if ((err = sb_gups_port_link(dev, p, &link[p])) < 0)
			return err;
	/* Rounds over the links in ascending order, each taking its next unused port. */
	while (taken < n) {
		unsigned before = taken;

		for (unsigned l = 0; l < 16 && taken < n; l++)
			for (unsigned p = 0; p < have; p++)
				if (link[p] == l) {
					link[p] = UINT_MAX; /* used */
					ids[taken++] = (uint8_t)p;
					break;
				}
		if (taken == before)
			return sb_error_set(SB_ERR_STATE, "'%s': ports report no link",
			                    sb_device_uri(dev));
	}
	return 0;
}

void sb_point_spec_init(struct sb_point_spec *s, unsigned ports)
{
	memset(s, 0, sizeof(*s));
	s->type = SB_REQ_RO;
	s->size = 128;
	s->gen = SB_GEN_RANDOM;
	s->mask = SB_ADDR_SPACE_MASK;
	s->ports = ports;
	s->duration_ns = 1000000;
	s->seed = 1;
	s->fast_forward = true;
}

static uint64_t splitmix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* Seed of port i's random generator for a point seed. */
static uint64_t port_seed(uint64_t seed, unsigned port)
{
	uint64_t s = splitmix(seed * 0x100 + port);

	return s ? s : 1;
}

static void add_counters(struct sb_port_counters *t, const struct sb_port_counters *c, bool first)
{
	t->reads += c->reads;
	t->writes += c->writes;
	t->read_data_flits += c->read_data_flits;
	t->lat_sum_cycles += c->lat_sum_cycles;
	t->lat_count += c->lat_count;
	t->tags_in_use += c->tags_in_use;
	t->lost_tags += c->lost_tags;
	if (c->tag_peak > t->tag_peak)
		t->tag_peak = c->tag_peak;
	if (c->tag_max_life_cycles > t->tag_max_life_cycles)
		t->tag_max_life_cycles = c->tag_max_life_cycles;
	if (c->lat_count) {
		if (first || !t->lat_count || c->lat_min_cycles < t->lat_min_cycles)
			t->lat_min_cycles = c->lat_min_cycles;
		if (c->lat_max_cycles > t->lat_max_cycles)
			t->lat_max_cycles = c->lat_max_cycles;
	}
	t->status |= c->status;
}

static int read_totals(struct sb_device *dev, unsigned ports, const uint8_t *ids,
                       struct sb_port_counters *per, struct sb_port_counters *total)
{
	int err;

	memset(total, 0, sizeof(*total));
	for (unsigned i = 0; i < ports; i++) {
		struct sb_port_counters c;

		if ((err = sb_gups_port_read(dev, ids[i], &c)) < 0)
			return err;
		if (per)
			per[i] = c;
		add_counters(total, &c, i == 0);
	}
	return 0;
}

/* The simulator's sim_ctrl block, if the board is the simulated one. */
static int sim_block(struct sb_device *dev, uint32_t *off)
{
	return sb_device_find_block(dev, SB_BLK_SIM_CTRL_TYPE, 0, off);
}

static int set_fast_forward(struct sb_device *dev, bool on)
{
	uint32_t s, v;
	int err;

	if (sim_block(dev, &s) < 0)
		return 0;
	if ((err = sb_device_read32(dev, s + SB_SIM_CTRL_CONTROL, &v)) < 0)
		return err;
	v = on ? v | SB_SIM_CTRL_CONTROL_FF_ENABLE_MASK : v & ~SB_SIM_CTRL_CONTROL_FF_ENABLE_MASK;
	return sb_device_write32(dev, s + SB_SIM_CTRL_CONTROL, v);
}

static int read_fast_forward(struct sb_device *dev, struct sb_point_result *r)
{
	uint32_t s, v;
	int err;

	if (sim_block(dev, &s) < 0)
		return 0;
	if ((err = sb_device_read32(dev, s + SB_SIM_CTRL_FF_STATUS, &v)) < 0 ||
	    (err = sb_device_read64(dev, s + SB_SIM_CTRL_FF_SKIPPED_NS, &r->ff_skipped_ns)) < 0)
		return err;
	r->fast_forward = v & SB_SIM_CTRL_FF_STATUS_USED_MASK;
	return 0;
}

static int check_spec(const struct sb_device *dev, const struct sb_point_spec *s)
{
	unsigned have = sb_device_port_count(dev);

	if (s->size < 16 || s->size > 128 || s->size % 16)
		return sb_error_set(SB_ERR_INVAL,
		                    "request size %u B: expected 16..128 in steps of 16", s->size);
	if ((!s->ports && s->stream) || s->ports > have || s->ports > SB_POINT_MAX_PORTS)
		return sb_error_set(SB_ERR_INVAL, "%u ports requested; the board has %u", s->ports,
		                    have);
	if (s->stream > SB_STREAM_MAX)
		return sb_error_set(SB_ERR_INVAL, "stream groups hold 1..%d requests, not %u",
		                    SB_STREAM_MAX, s->stream);
	if (s->stream && s->type == SB_REQ_RW && s->stream % 2)
		return sb_error_set(
		    SB_ERR_INVAL,
		    "an rw stream group writes each address then reads it back: the "
		    "number of requests per group must be even, not %u",
		    s->stream);
	if (!s->duration_ns && !s->iterations)
		return sb_error_set(SB_ERR_INVAL, "a point needs a duration or an iteration count");
	if (s->capture && (s->stream || !s->ports))
		return sb_error_set(SB_ERR_INVAL,
		                    "trace capture records the GUPS ports' requests: not a stream "
		                    "or idle point");
	return 0;
}

/* Wait for the cube to be ready (after an init); fail if it is in thermal failure. */
static int ensure_ready(struct sb_device *dev)
{
	struct sb_hmc_status st;
	uint64_t waited = 0;
	int err;

	for (;;) {
		if ((err = sb_hmc_status(dev, &st)) < 0)
			return err;
		if (st.thermal_fail)
			return sb_error_set(
			    SB_ERR_THERMAL,
			    "'%s': the cube is in thermal failure; recover it first",
			    sb_device_uri(dev));
		if (st.ready)
			return 0;
		if (waited > 100000000ull)
			return sb_error_set(SB_ERR_TIMEOUT, "'%s': cube not ready",
			                    sb_device_uri(dev));
		if ((err = sb_device_wait_ns(dev, 10000)) < 0)
			return err;
		waited += 10000;
	}
}

static int configure_ports(struct sb_device *dev, const struct sb_point_spec *s, const uint8_t *ids)
{
	uint64_t align = sb_addrgen_align(s->size / 16), region;
	int err;

	if (!s->ports)
		return 0; /* an idle point */
	region = (SB_ADDR_SPACE_MASK + 1) / s->ports / align * align;
	for (unsigned i = 0; i < s->ports; i++) {
		struct sb_port_config c = {
		    .type = s->type,
		    .size = s->size,
		    .gen = s->gen,
		    .mask = s->mask,
		    .antimask = s->antimask,
		    .lin_start = i * region,
		    .lin_end = SB_ADDR_SPACE_MASK & ~(align - 1),
		    .lin_step = (uint32_t)align,
		    .seed = port_seed(s->seed, i),
		    .iterations = s->iterations,
		    .posted = s->posted,
		};

		if ((err = sb_gups_port_configure(dev, ids[i], &c)) < 0)
			return err;
	}
	return 0;
}

/* ---- instruments ------------------------------------------------------------------------ */

#define TEMP_RING 512 /* hot-spot readings kept for the steady-state temperature */

/* What the instruments said during a point. */
struct inst_rec {
	const struct sb_point_spec *s;
	struct sb_device *dev;
	uint64_t interval_ns;
	struct {
		uint64_t t_ns;
		double c;
	} ring[TEMP_RING];
	unsigned n; /* readings so far (the ring keeps the last TEMP_RING) */
	double last_c, last_w;
	double energy, metered_ns; /* sum of power x interval over the metered time */
	uint64_t last_sample_ns;
	bool sampled;
	bool power_failed; /* the last failed sample was the power source's */
};

static bool has_inst(const struct sb_point_spec *s)
{
	return s->inst.temp || s->inst.power;
}

static uint64_t inst_interval(const struct sb_point_spec *s)
{
	uint64_t i = s->inst_sample_ns ? s->inst_sample_ns : s->duration_ns / 20;

	if (s->inst_sample_ns)
		return i;
	if (i < 1000000)
		i = 1000000;
	if (i > 1000000000)
		i = 1000000000;
	return i;
}

static void inst_init(struct inst_rec *ir, const struct sb_point_spec *s, struct sb_point_result *r)
{
	memset(ir, 0, sizeof(*ir));
	ir->s = s;
	ir->interval_ns = has_inst(s) ? inst_interval(s) : 0;
	ir->last_c = ir->last_w = NAN;
	r->has_temperature = s->inst.temp;
	r->has_power = s->inst.power;
	r->temperature_c = r->temperature_start_c = r->temperature_max_c = NAN;
	r->power_w = r->power_max_w = NAN;
	r->failure.temperature_c = r->failure.power_w = NAN;
}

/* Sample the instruments at t_ns (bench time since the start); *stop if the callback says so. */
static int inst_sample(struct inst_rec *ir, struct sb_point_result *r, uint64_t t_ns, bool *stop)
{
	const struct sb_point_spec *s = ir->s;
	struct sb_point_sample ps = {.t_ns = t_ns};
	int err;

	if (!has_inst(s))
		return 0;
	if (s->inst.temp) {
		if ((err = sb_temp_source_sample(s->inst.temp, &ps.temp)) < 0) {
			ir->power_failed = false;
			return err;
		}
		ps.has_temp = true;
		ir->last_c = ps.temp.hotspot_c;
		ir->ring[ir->n % TEMP_RING].t_ns = t_ns;
		ir->ring[ir->n % TEMP_RING].c = ps.temp.hotspot_c;
		ir->n++;
		if (isnan(r->temperature_start_c))
			r->temperature_start_c = ps.temp.hotspot_c;
		if (isnan(r->temperature_max_c) || ps.temp.hotspot_c > r->temperature_max_c)
			r->temperature_max_c = ps.temp.hotspot_c;
	}
	ps.heatsink_c = NAN;
	if (s->inst.cooling && r->cooling.has_heatsink) {
		struct sb_cooling_state cs;

		if ((err = sb_cooling_status(s->inst.cooling, &cs)) < 0)
			return err;
		ps.heatsink_c = cs.heatsink_c;
		if (cs.failsafe && !r->rig_fault) {
			/* The rig holds the fans at 100 %: what follows is not this point's
			 * cooling. Stop here. */
			r->rig_fault = true;
			r->rig_state = cs;
			*stop = true;
			sb_warn("'%s': the cooling rig went into its fail-safe (%s) at %.3f s of "
			        "the point: stopping it",
			        sb_device_uri(ir->dev), cs.faults_text, t_ns / 1e9);
		}
	}
	if (s->inst.power) {
		if ((err = sb_power_source_sample(s->inst.power, &ps.power)) < 0) {
			ir->power_failed = true;
			return err;
		}
		ps.has_power = true;
		/* The first reading only starts the meter's interval at the point's start. */
		if (ir->sampled && t_ns > ir->last_sample_ns) {
			double dt = (double)(t_ns - ir->last_sample_ns);

			ir->energy += ps.power.power_w * dt;
			ir->metered_ns += dt;
			if (isnan(r->power_max_w) || ps.power.power_w > r->power_max_w)
				r->power_max_w = ps.power.power_w;
			ir->last_w = ps.power.power_w;
		}
	}
	ir->sampled = true;
	ir->last_sample_ns = t_ns;
	r->inst_samples++;
	if (s->inst_sample && s->inst_sample(s->inst_sample_ctx, &ps))
		*stop = true;
	return 0;
}

/* Mean of the hot-spot readings taken in [from, to] (NAN if none). */
static double ring_mean(const struct inst_rec *ir, uint64_t from, uint64_t to)
{
	unsigned first = ir->n > TEMP_RING ? ir->n - TEMP_RING : 0, k = 0;
	double sum = 0;

	for (unsigned i = first; i < ir->n; i++) {
		uint64_t t = ir->ring[i % TEMP_RING].t_ns;

		if (t >= from && t <= to) {
			sum += ir->ring[i % TEMP_RING].c;
			k++;
		}
	}
	return k ? sum / k : NAN;
}

static void inst_finish(const struct inst_rec *ir, struct sb_point_result *r, uint64_t end_ns)
{
	uint64_t tenth = end_ns / 10;
	double last, before;

	if (ir->n) {
		last = ring_mean(ir, end_ns - tenth, end_ns);
		if (isnan(last))
			last = ir->last_c;
		before = ring_mean(ir, end_ns - 2 * tenth, end_ns - tenth - (tenth ? 1 : 0));
		r->temperature_c = last;
		r->temperature_steady = !isnan(before) && fabs(last - before) < 0.2;
	}
	if (ir->metered_ns > 0)
		r->power_w = ir->energy / ir->metered_ns;
}

/* Apply the cooling configuration of the spec and record the rig's state. */
static int apply_cooling(struct sb_device *dev, const struct sb_point_spec *s,
                         struct sb_point_result *r)
{
	int err;

	if (s->cooling && !s->inst.cooling)
		return sb_error_set(SB_ERR_INVAL,
		                    "'%s': cooling configuration '%s' needs a cooling actuator",
		                    sb_device_uri(dev), s->cooling);
	if (!s->inst.cooling)
		return 0;
	if (s->cooling && (err = sb_cooling_apply(s->inst.cooling, s->cooling)) < 0)
		return err;
	/* After the change, the heatsink settles (an actuator without a heatsink sensor is not
	 * waited on; docs/rig-protocol.md has the criterion). */
	if ((err = sb_cooling_settle(s->inst.cooling, dev, &s->settle, &r->settled)) < 0)
		return err;
	if ((err = sb_cooling_status(s->inst.cooling, &r->cooling)) < 0)
		return err;
	r->has_cooling = true;
	return 0;
}

/* The cube failed: record when, how hot, and what had been measured. */
static int record_failure(struct sb_device *dev, const struct sb_point_spec *s, struct inst_rec *ir,
                          struct sb_point_result *r, const struct sb_hmc_status *st,
                          uint64_t elapsed, uint64_t after)
{
	double before = ir->last_c;
	bool stop = false;
	int err;

	r->failed = true;
	r->t_fail_ns = sb_device_now_ns(dev);
	r->failure.t_ns = elapsed;
	r->failure.after_ns = after;
	r->failure.power_w = ir->last_w;
	r->failure.thermal_events = st->thermal_events;
	r->failure.errstat = st->errstat;
	if ((err = read_totals(dev, s->ports, r->port_id, NULL, &r->failure.total)) < 0 ||
	    (err = inst_sample(ir, r, elapsed, &stop)) < 0)
		return err;
	/* The heatsink cools once the cube stops: the hotter of the readings around it. */
	r->failure.temperature_c = isnan(before) || ir->last_c > before ? ir->last_c : before;
	if (isnan(r->failure.temperature_c))
		sb_warn("'%s': thermal failure seen at %.3f s of the point (no temperature source)",
		        sb_device_uri(dev), elapsed / 1e9);
	else
		sb_warn("'%s': thermal failure seen at %.3f s of the point (hot spot %.1f C)",
		        sb_device_uri(dev), elapsed / 1e9, r->failure.temperature_c);
	return 0;
}

/*
 * An instrument failed while the ports ran: no heating traffic without a thermometer, so the
 * ports stop first; the counters until then are kept, and the instrument is reopened for a
 * bounded time. Returns 0 (it came back: r->inst_lost) or the error that ends the point.
 */
static int inst_lost(struct sb_device *dev, const struct sb_point_spec *s, struct inst_rec *ir,
                     struct sb_point_result *r, uint64_t t0, int err)
{
	unsigned ms = s->reconnect_ms ? s->reconnect_ms : 10000;
	const char *kind = ir->power_failed ? "power source" : "temperature source";
	const char *conn = ir->power_failed ? sb_power_source_conn(s->inst.power)
	                                    : sb_temp_source_conn(s->inst.temp);
	char why[256];
	int e;

	snprintf(why, sizeof(why), "%s", sb_error_detail());
	for (unsigned i = 0; i < s->ports; i++)
		if ((e = sb_gups_port_stop(dev, r->port_id[i])) < 0)
			sb_warn("'%s': stopping port %u: %s", sb_device_uri(dev), r->port_id[i],
			        sb_error_detail());
	r->inst_lost_ns = sb_device_now_ns(dev) - t0;
	r->t_start_ns = t0;
	r->duration_ns = r->inst_lost_ns;
	if ((e = read_totals(dev, s->ports, r->port_id, r->port, &r->total)) < 0)
		sb_warn("'%s': reading the counters: %s", sb_device_uri(dev), sb_error_detail());
	snprintf(r->inst_lost_msg, sizeof(r->inst_lost_msg), "%s", why);
	sb_warn("'%s': %s '%s' lost at %.3f s of the point (%s); ports stopped; reconnecting for "
	        "up to %.1f s",
	        sb_device_uri(dev), kind, conn, r->inst_lost_ns / 1e9, why, ms / 1e3);
	e = ir->power_failed ? sb_power_source_reconnect(s->inst.power, ms)
	                     : sb_temp_source_reconnect(s->inst.temp, ms);
	if (e < 0)
		return sb_error_set(
		    err,
		    "'%s': %s '%s' lost at %.1f s of the point (%s); the ports were "
		    "stopped; %s",
		    sb_device_uri(dev), kind, conn, r->inst_lost_ns / 1e9, why, sb_error_detail());
	r->inst_lost = true;
	return 0;
}

/* How often the runner looks at the cube without samplers: often for short points, at most
 * every second for long ones (each look is a bounded step of the simulated bench). */
static uint64_t poll_step(const struct sb_point_spec *s)
{
	uint64_t p = s->duration_ns / 100;

	if (p < 1000000)
		p = 1000000;
	if (p > 1000000000)
		p = 1000000000;
	return p;
}

static uint64_t min3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* GUPS traffic: start, run (sampling the counters and the instruments), stop, drain. */
static int run_gups(struct sb_device *dev, const struct sb_point_spec *s, struct sb_point_result *r,
                    struct inst_rec *ir)
{
	uint64_t t0, elapsed = 0, checked = 0, limit = s->duration_ns;
	uint64_t next_cnt = s->sample_ns ? s->sample_ns : UINT64_MAX;
	uint64_t next_inst = ir->interval_ns ? ir->interval_ns : UINT64_MAX;
	uint32_t mask = 0;
	struct sb_hmc_status st;
	bool stop = false;
	int err;

	for (unsigned i = 0; i < s->ports; i++)
		mask |= 1u << r->port_id[i];
	if ((err = configure_ports(dev, s, r->port_id)) < 0)
		return err;
	t0 = sb_device_now_ns(dev);
	if ((err = inst_sample(ir, r, 0, &stop)) < 0)
		return err;
	if (s->capture && (err = sb_capture_start(s->capture)) < 0)
		return err;
	for (unsigned i = 0; i < s->ports; i++)
		if ((err = sb_gups_port_start(dev, r->port_id[i])) < 0)
			return err;
	if (!limit)
		limit = UINT64_MAX; /* iteration-limited: run until every port is done */
	while (elapsed < limit && !stop) {
		uint64_t poll = elapsed + poll_step(s), target = min3(poll, next_cnt, next_inst);

		if (s->capture && elapsed + sb_capture_poll_interval_ns(s->capture) < target)
			target = elapsed + sb_capture_poll_interval_ns(s->capture);
		if (target > limit)
			target = limit;
		if (s->capture)
			err = sb_capture_wait(s->capture, target > elapsed ? target - elapsed : 1);
		else
			err = sb_device_wait_ns(dev, target > elapsed ? target - elapsed : 1);
		if (err < 0 || (s->capture && (err = sb_capture_poll(s->capture)) < 0))
			return err;
		elapsed = sb_device_now_ns(dev) - t0;
		if ((err = sb_hmc_status(dev, &st)) < 0)
			return err;
		if (st.thermal_fail) {
			if ((err = record_failure(dev, s, ir, r, &st, elapsed, checked)) < 0)
				return err;
			stop = true;
		}
		checked = elapsed;
		if (s->sample && elapsed >= next_cnt) {
			struct sb_port_counters total;

			if ((err = read_totals(dev, s->ports, r->port_id, NULL, &total)) < 0)
				return err;
			if (s->sample(s->sample_ctx, elapsed, &total))
				stop = true;
			while (next_cnt <= elapsed)
				next_cnt += s->sample_ns;
		}
		if (!r->failed && elapsed >= next_inst) {
			if ((err = inst_sample(ir, r, elapsed, &stop)) < 0)
				return inst_lost(dev, s, ir, r, t0, err);
			while (next_inst <= elapsed)
				next_inst += ir->interval_ns;
		}
		if (s->iterations && !s->duration_ns) {
			/* Iteration-limited: done when every port reports done (reached its limit
			 * and drained). */
			bool all_done = true;

			for (unsigned i = 0; i < s->ports && all_done; i++) {
				uint32_t p, pst;

				if ((err = sb_gups_port_block(dev, r->port_id[i], &p)) < 0 ||
				    (err = sb_device_read32(dev, p + SB_GUPS_PORT_STATUS, &pst)) <
				        0)
					return err;
				all_done = pst & SB_GUPS_PORT_STATUS_DONE_MASK;
			}
			if (all_done)
				stop = true;
		}
	}
	r->t_start_ns = t0;
	r->duration_ns = sb_device_now_ns(dev) - t0;
	if (ir->sampled && ir->last_sample_ns != r->duration_ns &&
	    (err = inst_sample(ir, r, r->duration_ns, &stop)) < 0)
		return inst_lost(dev, s, ir, r, t0, err);
	for (unsigned i = 0; i < s->ports; i++)
		if ((err = sb_gups_port_stop(dev, r->port_id[i])) < 0)
			return err;
	if (!r->failed) {
		err = sb_gups_wait_idle(dev, mask, 1000, 20000000);
		if (err == SB_ERR_TIMEOUT)
			sb_warn("%s", sb_error_detail());
		else if (err < 0)
			return err;
	}
	return 0;
}

/* Stream GUPS: groups of s->stream requests on port 0 until the duration has passed. */
static int run_stream(struct sb_device *dev, const struct sb_point_spec *s,
                      struct sb_point_result *r)
{
	struct sb_port_counters *c = &r->port[0];
	struct sb_addrgen gen;
	uint32_t st, port0;
	uint64_t t0;
	bool rw = s->type == SB_REQ_RW;
	unsigned n = s->stream;
	int err;

	if ((err = sb_device_find_block(dev, SB_BLK_STREAM_TYPE, 0, &st)) < 0)
		return sb_error_set(SB_ERR_NOT_SUPPORTED, "'%s' has no stream GUPS block",
		                    sb_device_uri(dev));
	if ((err = sb_gups_port_block(dev, 0, &port0)) < 0)
		return err;
	sb_addrgen_init(&gen, s->gen == SB_GEN_LINEAR, port_seed(s->seed, 0), 0, SB_ADDR_SPACE_MASK,
	                sb_addrgen_align(s->size / 16), s->mask, s->antimask, s->size / 16);
	if ((err = sb_device_write32(dev, st + SB_STREAM_DATA_SEED, (uint32_t)s->seed)) < 0)
		return err;
	memset(c, 0, sizeof(*c));
	t0 = sb_device_now_ns(dev);
	r->t_start_ns = t0;
	do {
		uint32_t ctl, status, waited = 0;

		for (unsigned i = 0; i < n; i++) {
			bool write = s->type == SB_REQ_WO || (rw && i < n / 2);
			uint64_t addr = rw && i >= n / 2 ? 0 : sb_addrgen_next(&gen);
			uint32_t cmd;

			if (rw && i >= n / 2) {
				uint64_t a;

				if ((err = sb_device_read64(
				         dev, st + SB_STREAM_ENTRY_ADDR(i - n / 2), &a)) < 0)
					return err;
				addr = a;
			}
			cmd = (write ? SB_STREAM_ENTRY_CMD_WRITE_MASK : 0) |
			      SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_FLITS, s->size / 16);
			if ((err = sb_device_write64(dev, st + SB_STREAM_ENTRY_ADDR(i), addr)) <
			        0 ||
			    (err = sb_device_write32(dev, st + SB_STREAM_ENTRY_CMD(i), cmd)) < 0)
				return err;
		}
		ctl = SB_STREAM_CONTROL_GO_MASK | SB_FIELD_PREP(SB_STREAM_CONTROL_COUNT, n) |
		      SB_FIELD_PREP(SB_STREAM_CONTROL_PORT, 0) |
		      (rw ? SB_STREAM_CONTROL_INTEGRITY_MASK : 0);
		if ((err = sb_device_write32(dev, st + SB_STREAM_CONTROL, ctl)) < 0)
			return err;
		for (;;) {
			if ((err = sb_device_read32(dev, st + SB_STREAM_STATUS, &status)) < 0)
				return err;
			if (status & SB_STREAM_STATUS_DONE_MASK)
				break;
			if (waited > 10000000) {
				r->failed = true;
				return sb_error_set(SB_ERR_TIMEOUT,
				                    "'%s': stream group did not complete",
				                    sb_device_uri(dev));
			}
			if ((err = sb_device_wait_ns(dev, 100)) < 0)
				return err;
			waited += 100;
		}
		r->mismatches += SB_FIELD_GET(SB_STREAM_STATUS_MISMATCHES, status);
		for (unsigned i = 0; i < n; i++) {
			uint32_t cmd, lat;

			if ((err = sb_device_read32(dev, st + SB_STREAM_ENTRY_CMD(i), &cmd)) < 0 ||
			    (err = sb_device_read32(dev, st + SB_STREAM_ENTRY_LATENCY(i), &lat)) <
			        0)
				return err;
			if (cmd & SB_STREAM_ENTRY_CMD_WRITE_MASK) {
				c->writes++;
				continue;
			}
			c->reads++;
			c->read_data_flits += s->size / 16;
			if (!c->lat_count || lat < c->lat_min_cycles)
				c->lat_min_cycles = lat;
			if (lat > c->lat_max_cycles)
				c->lat_max_cycles = lat;
			c->lat_sum_cycles += lat;
			c->lat_count++;
		}
		r->stream_groups++;
	} while (s->iterations ? r->stream_groups < s->iterations
	                       : sb_device_now_ns(dev) - t0 < s->duration_ns);
	r->duration_ns = sb_device_now_ns(dev) - t0;
	(void)port0;
	return 0;
}

/* The point after the checks: program, run, read back, compute the metrics. */
static int run_point(struct sb_device *dev, const struct sb_point_spec *s,
                     struct sb_point_result *r, struct inst_rec *ir,
                     const struct sb_board_info *board)
{
	struct sb_bench_counts bc;
	bool stop = false;
	int err;

	if ((err = sb_point_port_ids(dev, s->stream ? SB_PORT_ORDER_FIRST : s->port_order,
	                             s->stream ? 1 : s->ports, r->port_id)) < 0)
		return err;
	r->ports = s->stream ? 1 : s->ports;
	r->clock_hz = (double)board->clock_hz;
	if ((err = sb_hmc_reset_ports(dev)) < 0 ||
	    (err = set_fast_forward(dev, s->fast_forward)) < 0)
		return err;
	if (s->addr_mode_bytes && (err = sb_hmc_set_addr_mode(dev, s->addr_mode_bytes)) < 0)
		return err;
	if (s->stream) {
		if ((err = inst_sample(ir, r, 0, &stop)) < 0 || (err = run_stream(dev, s, r)) < 0 ||
		    (err = inst_sample(ir, r, r->duration_ns, &stop)) < 0)
			return err;
	} else if ((err = run_gups(dev, s, r, ir)) < 0) {
		return err;
	}
	if (!s->stream && (err = read_totals(dev, s->ports, r->port_id, r->port, &r->total)) < 0)
		return err;
	if (s->capture) {
		uint64_t executed = 0;
		uint32_t pm = sb_capture_port_mask(s->capture);

		for (unsigned i = 0; i < s->ports; i++)
			if (pm >> r->port_id[i] & 1)
				executed += r->port[i].reads + r->port[i].writes;
		if ((err = sb_capture_stop(s->capture, executed, "gups_port reads + writes")) < 0)
			return err;
	}
	if (s->stream)
		r->total = r->port[0];
	if ((err = read_fast_forward(dev, r)) < 0 || (err = sb_hmc_status(dev, &r->hmc)) < 0)
		return err;
	if (r->hmc.thermal_fail && !r->failed) {
		/* Seen only at the end (stream points): what was measured is the whole point. */
		r->failed = true;
		r->t_fail_ns = sb_device_now_ns(dev);
		r->failure.t_ns = r->duration_ns;
		r->failure.total = r->total;
		r->failure.thermal_events = r->hmc.thermal_events;
		r->failure.errstat = r->hmc.errstat;
		r->failure.temperature_c = ir->last_c;
		r->failure.power_w = ir->last_w;
	}
	bc = (struct sb_bench_counts){
	    .reads = r->total.reads,
	    .writes = r->total.writes,
	    .size = s->size,
	    .posted = s->posted,
	    .duration_ns = (double)r->duration_ns,
	    .lat_sum_cycles = r->total.lat_sum_cycles,
	    .lat_count = r->total.lat_count,
	    .lat_min_cycles = r->total.lat_min_cycles,
	    .lat_max_cycles = r->total.lat_max_cycles,
	    .clock_hz = r->clock_hz,
	};
	if (r->duration_ns)
		sb_bench_metrics(&bc, &r->metrics);
	return 0;
}

int sb_point_run(struct sb_device *dev, const struct sb_point_spec *s, struct sb_point_result *r)
{
	struct sb_board_info board;
	struct inst_rec *ir;
	int err;

	memset(r, 0, sizeof(*r));
	if ((err = check_spec(dev, s)) < 0 || (err = sb_board_info(dev, &board)) < 0 ||
	    (err = apply_cooling(dev, s, r)) < 0 || (err = ensure_ready(dev)) < 0)
		return err;
	ir = malloc(sizeof(*ir));
	if (!ir)
		return sb_error_set(SB_ERR_NOMEM, "out of memory running a point");
	inst_init(ir, s, r);
	ir->dev = dev;
	err = run_point(dev, s, r, ir, &board);
	if (err >= 0)
		inst_finish(ir, r, r->duration_ns);
	free(ir);
	return err < 0 ? err : 0;
}
