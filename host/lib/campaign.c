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

#include "sb_regmap.h"
#include "stackbench/campaign.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/pattern.h"
#include "stackbench/point.h"
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
	unsigned nsources;
	struct sample_source src[MAX_SOURCES];
	struct sb_sample *samples;
	unsigned nsamples, cap;
	int sample_err;
	pthread_t thread;
};

struct engine {
	const struct sb_campaign *c;
	struct sb_store *st;
	const struct sb_run_options *o;
	int64_t id;
	pthread_mutex_t lock;
	bool *done;
	unsigned next, ndone, nrun, nfailed;
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

/* --- instruments --------------------------------------------------------------------------- */

/* Open the sample sources of the campaign's instruments for a worker. */
static int open_sources(struct worker *w)
{
	int e;

	w->nsources = 0;
	if ((e = sb_instruments_available(w->en->c->instruments)) < 0)
		return e;
	/* SB_INSTRUMENTS_NONE: counters only. The simulated camera and meter add their
	 * sources here (w->src[w->nsources++] = ...). */
	return 0;
}

static void close_sources(struct worker *w)
{
	for (unsigned i = 0; i < w->nsources; i++)
		if (w->src[i].close)
			w->src[i].close(w->src[i].ctx);
	w->nsources = 0;
}

/* sb_point_run's sampling callback: counters, then every source; nonzero stops the point. */
static int sample_cb(void *ctx, uint64_t t_ns, const struct sb_port_counters *total)
{
	struct worker *w = ctx;
	struct sb_sample *s;

	if (w->nsamples == w->cap) {
		unsigned cap = w->cap ? w->cap * 2 : 256;
		struct sb_sample *n = realloc(w->samples, cap * sizeof(*n));

		if (!n) {
			w->sample_err = sb_error_set(SB_ERR_NOMEM, "out of memory for samples");
			return 1;
		}
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
	};
	for (unsigned i = 0; i < w->nsources; i++) {
		int e = w->src[i].read(w->src[i].ctx, t_ns, s);

		if (e < 0) {
			w->sample_err = e;
			return 1;
		}
	}
	return stop_requested(w->en) || w->en->abort;
}

/* --- points -------------------------------------------------------------------------------- */

/* The point spec for a worker's board; SB_ERR_INVAL if the board cannot run it. */
static int make_spec(struct worker *w, const struct sb_campaign_point *p, struct sb_point_spec *s)
{
	const struct sb_campaign *c = w->en->c;
	unsigned have = sb_device_port_count(w->dev);
	struct sb_geometry g;
	int e;

	sb_point_spec_init(s, p->ports ? p->ports : have);
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
		return sb_error_wrap(SB_ERR_INVAL, "point '%s' on '%s': ", p->key, w->uri);
	if (p->mask_lo >= 0 &&
	    (e = sb_mask_bits((unsigned)p->mask_lo, (unsigned)p->mask_lo + p->mask_width - 1,
	                      &s->mask)) < 0)
		return sb_error_wrap(SB_ERR_INVAL, "point '%s': ", p->key);
	s->duration_ns = sb_campaign_point_ns(c);
	s->stream = p->stream;
	s->iterations = p->stream ? c->stream_groups : 0;
	s->seed = p->seed;
	s->fast_forward = c->fast_forward;
	s->sample_ns = p->stream ? 0 : (uint64_t)llround(c->sample_interval_ms * 1e6);
	s->sample = sample_cb;
	s->sample_ctx = w;
	return 0;
}

static void event(struct engine *en, int idx, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Record an event (caller holds the lock); a failure to record it is only logged. */
static void event(struct engine *en, int idx, const char *kind, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (en->id && sb_store_event(en->st, en->id, idx, kind, msg) < 0)
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

/* Bring a failed cube back; logs and records what happened. */
static int recover(struct worker *w, int idx)
{
	struct engine *en = w->en;
	int e = sb_hmc_recover(w->dev, 2000000000ull);

	pthread_mutex_lock(&en->lock);
	if (e < 0)
		event(en, idx, "recovery_failed", "'%s': %s", w->uri, sb_error_detail());
	else
		event(en, idx, "recovered", "'%s': cube reset and re-initialized", w->uri);
	pthread_mutex_unlock(&en->lock);
	if (e < 0)
		return sb_error_wrap(e, "after a thermal failure: ");
	sb_info("'%s': cube recovered", w->uri);
	return 0;
}

static void report_progress(struct engine *en, const struct worker *w,
                            const struct sb_campaign_point *p, const struct sb_point_result *r)
{
	struct sb_run_progress pr = {
	    .done = en->ndone,
	    .total = en->c->npoints,
	    .done_run = en->nrun,
	    .elapsed_s = wall_now() - ((double)en->t0.tv_sec + (double)en->t0.tv_nsec * 1e-9),
	    .eta_s = -1,
	    .last = p,
	    .device = w ? w->uri : NULL,
	};

	if (r) {
		pr.last_bandwidth_gbps = r->metrics.bandwidth_gbps;
		pr.last_mrps = r->metrics.mrps;
		pr.last_latency_avg_ns = r->metrics.lat_avg_ns;
		pr.last_failed = r->failed;
	}
	if (en->nrun)
		pr.eta_s = pr.elapsed_s / en->nrun * (pr.total - pr.done);
	if (en->o->progress)
		en->o->progress(en->o->progress_ctx, &pr);
}

/* Run one point and store it. Returns 0, or an error that stops the run. */
static int run_point(struct worker *w, const struct sb_campaign_point *p)
{
	struct engine *en = w->en;
	struct sb_point_spec spec;
	struct sb_point_result r;
	struct sb_point_record rec;
	double t0 = wall_now();
	int e;

	if (w->fresh) {
		/*
		 * A simulated board keeps the timing state of earlier points (refresh phase,
		 * bank and link reservations); a fresh one (0.2 ms to open) makes a point's
		 * result depend on the point only, whichever worker runs it after whatever.
		 */
		sb_device_close(w->dev);
		w->dev = NULL;
		if ((e = sb_device_open(&w->dev, w->uri)) < 0)
			return e;
	}
	if ((e = make_spec(w, p, &spec)) < 0)
		return e;
	w->nsamples = 0;
	w->sample_err = 0;
	e = sb_point_run(w->dev, &spec, &r);
	if (e == SB_ERR_THERMAL) {
		/* The cube was left failed (by the previous point, or before the campaign). */
		if ((e = recover(w, (int)p->index)) < 0)
			return e;
		w->nsamples = 0;
		e = sb_point_run(w->dev, &spec, &r);
	}
	if (e < 0)
		return sb_error_wrap(e, "point %u '%s' on '%s': ", p->index, p->key, w->uri);
	if (w->sample_err < 0)
		return w->sample_err;
	if (stop_requested(en) || en->abort)
		return 0; /* stopped part-way: not stored, runs again on resume */
	rec = (struct sb_point_record){
	    .point = p,
	    .device = w->uri,
	    .worker = w->id,
	    .mask = spec.mask,
	    .antimask = spec.antimask,
	    .addr_mode = spec.addr_mode_bytes,
	    .duration_ns = spec.duration_ns,
	    .result = &r,
	    .samples = w->samples,
	    .nsamples = w->nsamples,
	    .wall_s = wall_now() - t0,
	};
	pthread_mutex_lock(&en->lock);
	e = sb_store_point_commit(en->st, en->id, &rec);
	if (e == 0) {
		en->done[p->index] = true;
		en->ndone++;
		en->nrun++;
		if (r.failed) {
			en->nfailed++;
			event(en, (int)p->index, "thermal_failure",
			      "'%s': the cube reported a thermal failure %.3f s into point '%s'",
			      w->uri, (double)(r.t_fail_ns - r.t_start_ns) * 1e-9, p->key);
		}
		report_progress(en, w, p, &r);
	}
	pthread_mutex_unlock(&en->lock);
	if (e < 0)
		return e;
	if (r.failed)
		return recover(w, (int)p->index);
	return 0;
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
		idx = en->abort || stop_requested(en) ? -1 : take_point(en);
		pthread_mutex_unlock(&en->lock);
		if (idx < 0)
			break;
		if ((e = run_point(w, &en->c->points[idx])) < 0) {
			pthread_mutex_lock(&en->lock);
			fail_run(en, e);
			event(en, idx, "error", "%s", sb_error_detail());
			pthread_mutex_unlock(&en->lock);
			break;
		}
	}
	return NULL;
}

/* --- setup --------------------------------------------------------------------------------- */

static bool all_sim(const struct sb_campaign *c)
{
	for (unsigned i = 0; i < c->ndevices; i++)
		if (strncmp(c->device[i], "sim:", 4))
			return false;
	return true;
}

static int open_worker(struct worker *w)
{
	struct sb_hmc_status hs;
	uint32_t off;
	int e;

	if ((e = sb_device_open(&w->dev, w->uri)) < 0)
		return e;
	if ((e = sb_board_info(w->dev, &w->board)) < 0 || (e = sb_hmc_status(w->dev, &hs)) < 0)
		return sb_error_wrap(e, "'%s': ", w->uri);
	w->addr_mode0 = hs.addr_mode_bytes;
	w->has_stream = sb_device_find_block(w->dev, SB_BLK_STREAM_TYPE, 0, &off) == 0;
	/* Thermal campaigns keep the board: the bench's heat carries over from point to point,
	 * as it does on hardware. */
	w->fresh =
	    !strcmp(sb_device_transport(w->dev), "sim") && w->en->c->kind == SB_CAMPAIGN_BANDWIDTH;
	return open_sources(w);
}

/* Every point must be runnable on every worker's board before anything runs. */
static int check_points(struct worker *w)
{
	for (unsigned i = 0; i < w->en->c->npoints; i++) {
		struct sb_point_spec s;
		int e = make_spec(w, &w->en->c->points[i], &s);

		if (e < 0)
			return e;
	}
	return 0;
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
		en->id = prev.id;
		sum->resumed = true;
		if ((e = sb_store_points_done(en->st, en->id, en->done, c->npoints)) < 0)
			return e;
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
		    prev.points_total);
	return sb_store_campaign_create(en->st, c, &en->id);
}

int sb_campaign_run(const struct sb_campaign *c, struct sb_store *st,
                    const struct sb_run_options *o, struct sb_run_summary *sum)
{
	unsigned jobs = o->jobs ? o->jobs : 1;
	struct engine en = {.c = c, .st = st, .o = o};
	struct worker *w;
	double t0 = wall_now();
	int e = 0;

	memset(sum, 0, sizeof(*sum));
	sum->total = c->npoints;
	if (jobs > c->ndevices && !all_sim(c))
		return sb_error_set(
		    SB_ERR_INVAL, "--jobs %u needs %u device URIs in 'bench.device'; '%s' lists %u",
		    jobs, jobs, c->file, c->ndevices);
	if (jobs > c->npoints)
		jobs = c->npoints;
	w = calloc(jobs, sizeof(*w));
	en.done = calloc(c->npoints, sizeof(*en.done));
	if (!w || !en.done) {
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
		if ((e = open_worker(&w[i])) < 0 || (e = check_points(&w[i])) < 0)
			goto fail_workers;
	}
	if ((e = setup_campaign(&en, sum)) < 0)
		goto fail_workers;
	sum->campaign_id = en.id;
	for (unsigned i = 0; i < c->npoints; i++)
		en.ndone += en.done[i];
	sum->skipped = en.ndone;
	event(&en, -1, sum->resumed ? "resume" : "start",
	      "%u of %u points to run, %u worker%s (%s%s), content hash %s", c->npoints - en.ndone,
	      c->npoints, jobs, jobs == 1 ? "" : "s", w[0].uri, jobs > 1 ? ", ..." : "", c->hash);
	clock_gettime(CLOCK_MONOTONIC, &en.t0);
	report_progress(&en, NULL, NULL, NULL);
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
	if (en.abort) {
		e = sb_error_set(en.err, "%s", en.detail);
	} else if (en.ndone == c->npoints) {
		if (en.nrun || !sum->resumed)
			event(&en, -1, "complete", "%u points", c->npoints);
		e = sb_store_campaign_status(st, en.id, "complete");
	} else if (stop_requested(&en)) {
		event(&en, -1, "interrupted", "%u of %u points stored", en.ndone, c->npoints);
		e = sb_error_set(SB_ERR_INTERRUPTED,
		                 "campaign %lld '%s' interrupted with %u of %u points stored; "
		                 "continue with: stackbench run %s --resume",
		                 (long long)en.id, c->name, en.ndone, c->npoints, c->file);
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
	free(w);
	sum->wall_s = wall_now() - t0;
	return e;
}
