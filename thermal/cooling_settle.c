/* SPDX-License-Identifier: MIT */
/*
 * Waiting on a cooling actuator (instrument.h): time as both the bench and the actuator count
 * it, and the settle criterion after a cooling change. Generic over sb_cooling: any actuator
 * that reports a heatsink reading and its own clock can be waited on.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stackbench/error.h"
#include "stackbench/instrument.h"
#include "stackbench/log.h"

#define SETTLE_RING 4096 /* readings kept for the window (a 1 s poll over an hour) */
#define DEFAULT_POLL_NS 1000000000ull

static void sleep_ns(uint64_t ns)
{
	struct timespec d = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};

	while (nanosleep(&d, &d) < 0)
		;
}

int sb_cooling_wait(struct sb_cooling *c, struct sb_device *dev, uint64_t ns)
{
	struct sb_cooling_state a, b;
	int e;

	if ((e = sb_cooling_status(c, &a)) < 0)
		return e;
	if ((e = sb_device_wait_ns(dev, ns)) < 0)
		return e;
	if (!a.clock_ns)
		return 0;
	if ((e = sb_cooling_status(c, &b)) < 0)
		return e;
	/* A clock that went back is a controller that reset: wait the whole time. */
	if (b.clock_ns < a.clock_ns)
		sleep_ns(ns);
	else if (b.clock_ns - a.clock_ns < ns)
		sleep_ns(ns - (b.clock_ns - a.clock_ns));
	return 0;
}

static int fail_safe(struct sb_cooling *c, const struct sb_cooling_state *st)
{
	return sb_error_set(SB_ERR_STATE, "cooling actuator '%s' is in its fail-safe: %s%s",
	                    sb_cooling_driver(c), st->faults_text,
	                    st->faults_active ? " (still present)" : "");
}

int sb_cooling_settle(struct sb_cooling *c, struct sb_device *dev,
                      const struct sb_cooling_settle *crit, struct sb_cooling_settled *out)
{
	uint64_t poll = crit->poll_s > 0 ? (uint64_t)llround(crit->poll_s * 1e9) : DEFAULT_POLL_NS;
	uint64_t window = (uint64_t)llround(crit->window_s * 1e9);
	uint64_t max = (uint64_t)llround(crit->max_s * 1e9), t0 = 0, last_t = 0;
	struct {
		uint64_t t;
		double c;
	} * ring;
	unsigned n = 0;
	int e = 0;

	memset(out, 0, sizeof(*out));
	out->heatsink_c = out->span_c = NAN;
	if (!(crit->window_s > 0))
		return 0;
	ring = malloc(SETTLE_RING * sizeof(*ring));
	if (!ring)
		return sb_error_set(SB_ERR_NOMEM, "out of memory waiting for the heatsink");
	for (;;) {
		struct sb_cooling_state st;
		double lo = INFINITY, hi = -INFINITY;
		bool full;

		if ((e = sb_cooling_status(c, &st)) < 0)
			break;
		if (!st.has_heatsink)
			break; /* nothing to wait on */
		out->waited = true;
		if (st.failsafe) {
			e = fail_safe(c, &st);
			break;
		}
		if (!n || st.clock_ns < last_t) /* first reading, or the controller reset */
			t0 = st.clock_ns, n = 0;
		last_t = st.clock_ns;
		out->seconds = (double)(st.clock_ns - t0) * 1e-9;
		out->heatsink_c = st.heatsink_c;
		ring[n % SETTLE_RING].t = st.clock_ns;
		ring[n % SETTLE_RING].c = st.heatsink_c;
		n++;
		/* Settled: readings span the whole window, none faulty, within the tolerance. */
		full = st.clock_ns - t0 >= window;
		for (unsigned i = n > SETTLE_RING ? n - SETTLE_RING : 0; i < n && full; i++) {
			double v = ring[i % SETTLE_RING].c;

			if (st.clock_ns - ring[i % SETTLE_RING].t > window)
				continue;
			if (isnan(v))
				full = false;
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
		out->span_c = full ? hi - lo : NAN;
		if (full && out->span_c <= crit->tolerance_c) {
			out->settled = true;
			break;
		}
		if (st.clock_ns - t0 >= max) {
			sb_warn(
			    "cooling actuator '%s': the heatsink did not settle in %.0f s (it "
			    "moved %.2f C over the last %.0f s; the criterion is %.2f C): going on",
			    sb_cooling_driver(c), crit->max_s, out->span_c, crit->window_s,
			    crit->tolerance_c);
			break;
		}
		if ((e = sb_cooling_wait(c, dev, poll)) < 0)
			break;
	}
	free(ring);
	return e;
}
