/* SPDX-License-Identifier: MIT */
/*
 * Steady-state fast-forward.
 *
 * Bandwidth runs last 20 s and thermal runs 200 s of bench time; simulating every request of
 * them is possible but slow. When the ports run unchanged traffic, the engine first simulates a
 * warm-up (ff_warmup_us: queues fill, tag pools reach their steady occupancy) that is not
 * measured, then measures windows of ff_window_us: the total request rate and the mean read
 * latency of each window. After ff_windows consecutive windows agree within ff_tolerance_ppm
 * (the profile's values, 2 x 2.5 ms within 0.4 %, span the slowest transients the model shows,
 * a few milliseconds), it jumps: it advances every counter by the increments of the agreeing
 * windows scaled to the skipped time, shifts all of its time state (port, link, token, vault, calendar
 * reservations) by the same amount, and goes on simulating. The skipped time is a multiple of
 * the user clock, the flit time, the DRAM slot and the refresh interval, so the state after the
 * jump is the state before it, moved in time.
 *
 * Noisy traffic (one bank, a few ports) may not agree within the tolerance: after three
 * disagreeing windows the window doubles, up to SB_FF_MAX_WINDOW. Convergence survives from one
 * advance to the next as long as nothing is written to the board: the next advance then jumps at
 * once (host code that samples the counters every millisecond keeps the benefit).
 *
 * Minimum and maximum latency are not extrapolated: they are those of the requests simulated one
 * by one (sim_ctrl.ff_skipped_ns says how much of the run was skipped; `stackbench point` prints
 * the simulated span they cover).
 *
 * Not fast-forwarded: while a stream group, trace capture, a replay, an initialization or a thermal
 * failure is in progress, or when a port would reach its iteration limit inside the jump.
 * The address generators are not advanced over the skipped requests (the simulated sequence
 * continues where simulation stopped), so fast-forwarded and fully simulated runs agree in
 * rates and latencies to within the tolerance, not request by request. The sim_ctrl block
 * reports the use; `stackbench point --no-fast-forward` turns it off.
 */
#include <string.h>

#include "model_internal.h"

#define SB_FF_MAX_WINDOW (20000000000ull * SB_TICKS_PER_PS) /* 20 ms */

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Least common multiple, 0 when it exceeds limit. */
static uint64_t lcm64(uint64_t a, uint64_t b, uint64_t limit)
{
	uint64_t g = gcd64(a, b);

	if (!a || !b)
		return 0;
	if (a / g > limit / b)
		return 0;
	return a / g * b;
}

/* The time quantum a jump must be a multiple of: the user clock and the memory family's
 * periods (for the HMC: the flit, the DRAM slot, the refresh interval). */
static uint64_t quantum(const struct sb_model *m)
{
	uint64_t limit = 1000000000ull * SB_TICKS_PER_PS; /* 1 ms */
	uint64_t period[8], q = m->tm.cycle;
	unsigned n = sb_cube_periods(m, period, 8);

	for (unsigned i = 0; i < n && q; i++)
		q = lcm64(q, period[i], limit);
	return q;
}

static bool eligible(const struct sb_model *m)
{
	bool any = false;

	if (!m->ff.enable || m->stream.busy || m->trace.enable || m->replay.enable ||
	    !m->hmc.ready || m->hmc.init_busy || m->hmc.fail_tick != SB_TICK_NEVER)
		return false;
	for (unsigned i = 0; i < m->nports; i++) {
		const struct sb_port *p = &m->port[i];

		if (p->started && p->enabled && !p->stopped_lost)
			any = true;
	}
	return any;
}

static void snapshot(struct sb_model *m)
{
	for (unsigned i = 0; i < m->nports; i++) {
		struct sb_port *p = &m->port[i];

		p->w_reads = p->reads;
		p->w_writes = p->writes;
		p->w_read_data = p->read_data;
		p->w_lat_sum = p->lat_sum;
		p->w_lat_count = p->lat_count;
		p->w_iters = p->iters;
	}
	m->ff_act = m->act;
}

/* Start measuring from tick t (a port started, or the fast-forward settings changed). */
void sb_engine_ff_begin(struct sb_model *m, uint64_t t)
{
	m->ff.agree = 0;
	m->ff.misses = 0;
	m->ff.last_rate = -1;
	m->ff.last_lat = -1;
	m->ff.window = m->ff.base_window;
	m->ff.w_len = 0;
	m->ff.dirty = false;
	m->st.ff_active = false;
	m->ff.warming = m->ff.warmup > 0;
	m->ff.w_end =
	    m->ff.enable ? t + (m->ff.warming ? m->ff.warmup : m->ff.window) : SB_TICK_NEVER;
	snapshot(m);
}

static bool agrees(double a, double b, uint32_t tol_ppm)
{
	double d = a > b ? a - b : b - a;
	double ref = a > b ? a : b;

	return ref <= 0 || d / ref * 1e6 <= tol_ppm;
}

static uint64_t scale(uint64_t delta, uint64_t num, uint64_t den)
{
	return (uint64_t)((unsigned __int128)delta * num / den);
}

static void shift_time(struct sb_model *m, uint64_t dt)
{
	for (unsigned i = 0; i < m->nports; i++) {
		struct sb_port *p = &m->port[i];

		p->t_free += dt;
		p->t_pkt += dt;
		if (p->t_next != SB_TICK_NEVER)
			p->t_next += dt;
		sb_engine_set_next(m, i, p->t_next);
		for (unsigned k = 0; k < p->ndone; k++) {
			struct sb_done *d = sb_engine_done_at(p, k);

			d->t_issue += dt;
			if (d->t_done != SB_TICK_NEVER)
				d->t_done += dt;
		}
		sb_engine_done_rebuild(m, p);
		for (unsigned k = 0; k < p->nwb; k++)
			p->wb[k].t_ready += dt;
		sb_cal_shift(&p->rx, dt);
	}
	sb_cube_shift(m, dt);
}

/* Jump dt ticks ahead, extrapolating the increments of the last complete window. */
static void jump(struct sb_model *m, uint64_t dt)
{
	uint64_t w = m->ff.w_len;
	struct sb_model_activity *a = &m->act;
	const struct sb_model_activity *d = &m->ff_dact;

	for (unsigned i = 0; i < m->nports; i++) {
		struct sb_port *p = &m->port[i];

		p->reads += scale(dt, p->d_reads, w);
		p->writes += scale(dt, p->d_writes, w);
		p->read_data += scale(dt, p->d_read_data, w);
		p->lat_sum += scale(dt, p->d_lat_sum, w);
		p->lat_count += scale(dt, p->d_lat_count, w);
		p->iters += scale(dt, p->d_iters, w);
	}
	a->reads += scale(dt, d->reads, w);
	a->writes += scale(dt, d->writes, w);
	a->read_bytes += scale(dt, d->read_bytes, w);
	a->write_bytes += scale(dt, d->write_bytes, w);
	a->req_flits += scale(dt, d->req_flits, w);
	a->resp_flits += scale(dt, d->resp_flits, w);
	a->activates += scale(dt, d->activates, w);
	shift_time(m, dt);
	m->st.ff_skipped_ticks += dt;
	m->st.ff_jumps++;
	m->st.ff_used = true;
}

/* Would any port reach its iteration limit within dt (plus a window of margin)? */
static bool limit_within(const struct sb_model *m, uint64_t dt)
{
	for (unsigned i = 0; i < m->nports; i++) {
		const struct sb_port *p = &m->port[i];

		if (!p->started || !p->iter_limit)
			continue;
		if (p->iters >= p->iter_limit)
			return true;
		if (scale(dt + 2 * m->ff.w_len, p->d_iters, m->ff.w_len) >=
		    p->iter_limit - p->iters)
			return true;
	}
	return false;
}

/* Jump from t as far towards until as whole quanta allow, if it is safe. Returns the jump. */
static uint64_t try_jump(struct sb_model *m, uint64_t t, uint64_t until)
{
	uint64_t q = quantum(m), dt;

	if (!q || !m->ff.w_len || until <= t)
		return 0;
	dt = (until - t) / q * q;
	if (!dt || limit_within(m, dt))
		return 0;
	jump(m, dt);
	return dt;
}

/*
 * The increments a jump extrapolates: those of the span of agreeing windows (the window that
 * just ended added to the span when it agreed with the one before, else a new span), so the
 * extrapolated rates average over ff_windows windows, not one.
 */
static void span_add(struct sb_model *m, uint64_t w, bool agreed)
{
	struct sb_model_activity *d = &m->ff_dact;
	const struct sb_model_activity *a = &m->act, *a0 = &m->ff_act;

	if (!agreed) {
		memset(d, 0, sizeof(*d));
		m->ff.w_len = 0;
		for (unsigned i = 0; i < m->nports; i++) {
			struct sb_port *p = &m->port[i];

			p->d_reads = p->d_writes = p->d_read_data = 0;
			p->d_lat_sum = p->d_lat_count = p->d_iters = 0;
		}
	}
	for (unsigned i = 0; i < m->nports; i++) {
		struct sb_port *p = &m->port[i];

		p->d_reads += p->reads - p->w_reads;
		p->d_writes += p->writes - p->w_writes;
		p->d_read_data += p->read_data - p->w_read_data;
		p->d_lat_sum += p->lat_sum - p->w_lat_sum;
		p->d_lat_count += p->lat_count - p->w_lat_count;
		p->d_iters += p->iters - p->w_iters;
	}
	d->reads += a->reads - a0->reads;
	d->writes += a->writes - a0->writes;
	d->read_bytes += a->read_bytes - a0->read_bytes;
	d->write_bytes += a->write_bytes - a0->write_bytes;
	d->req_flits += a->req_flits - a0->req_flits;
	d->resp_flits += a->resp_flits - a0->resp_flits;
	d->activates += a->activates - a0->activates;
	m->ff.w_len += w;
}

/*
 * The engine reached the end of a measuring window at tick t; until is the end of the current
 * advance. Record the window, decide whether to jump, and start the next window.
 */
int sb_engine_ff_try(struct sb_model *m, uint64_t t, uint64_t until)
{
	uint64_t reqs = 0, lat_sum = 0, lat_count = 0, w = m->ff.window;
	double rate, lat;
	bool agreed;

	sb_engine_settle(m, t);
	if (!eligible(m) || m->ff.dirty) {
		sb_engine_ff_begin(m, t);
		return 0;
	}
	if (m->ff.warming) {
		/* The warm-up is over: the first measured window starts now. */
		m->ff.warming = false;
		m->ff.w_end = t + m->ff.window;
		snapshot(m);
		return 0;
	}
	for (unsigned i = 0; i < m->nports; i++) {
		const struct sb_port *p = &m->port[i];

		reqs += p->reads - p->w_reads + p->writes - p->w_writes;
		lat_sum += p->lat_sum - p->w_lat_sum;
		lat_count += p->lat_count - p->w_lat_count;
	}
	rate = (double)reqs / (double)w;
	lat = lat_count ? (double)lat_sum / (double)lat_count : 0;
	agreed = m->ff.last_rate >= 0 && agrees(rate, m->ff.last_rate, m->ff.tol_ppm) &&
	         agrees(lat, m->ff.last_lat, m->ff.tol_ppm);
	if (agreed) {
		m->ff.agree++;
		m->ff.misses = 0;
	} else {
		m->ff.agree = 0;
		if (++m->ff.misses >= 3 && m->ff.window < SB_FF_MAX_WINDOW) {
			m->ff.window *= 2; /* noisy traffic: average over longer windows */
			m->ff.misses = 0;
		}
	}
	span_add(m, w, agreed);
	m->ff.last_rate = rate;
	m->ff.last_lat = lat;
	m->st.ff_active = m->ff.agree + 1 >= m->ff.need;
	if (m->st.ff_active)
		t += try_jump(m, t, until);
	m->ff.w_end = t + m->ff.window;
	snapshot(m);
	return 0;
}

void sb_engine_ff_resume(struct sb_model *m, uint64_t now, uint64_t until)
{
	uint64_t dt;

	if (!m->st.ff_active || m->ff.dirty || m->ff.w_end == SB_TICK_NEVER || !eligible(m))
		return;
	dt = try_jump(m, now, until);
	if (dt) {
		/* The window in progress restarts after the jump. */
		m->ff.w_end = now + dt + m->ff.window;
		snapshot(m);
	}
}
