/* SPDX-License-Identifier: MIT */
/*
 * The sim: transport: the board model in process, on its simulated bench. Register accesses
 * go to the model's register decoder; the bench clock is the model's simulated time.
 *
 * Coupling: bench time advances in bounded steps (the bench model's hint, at most
 * coupling.max_step_s, shorter while the junction moves fast). In each step the board model
 * runs (fast-forwarding steady traffic), its activity counters feed the bench model, the
 * junction temperature goes back to the board (refresh twice as often above 85 C), and a
 * thermal failure the bench model reports fails the cube. After the host resets a failed
 * cube, the bench model decides whether it may run (cooled below the trip point) or fails
 * again at once.
 *
 * URI options for the bench (the others go to the board model): bench=NAME|PATH (bench
 * parameters, thermal/data), cooling=NAME (initial cooling configuration); seed= seeds both.
 *
 * Two boards: the path of the URI names the profile, and a profile of an HBM2 card
 * (sim:u280, sim:u50, sim:u55c or a file with an HBM2 card's sections, sb_hbm_model_claims)
 * opens the HBM2 card's model (fpga_hbm2/model, docs/hbm2.md) instead of the AC-510's. The
 * HBM2 card stands on no simulated bench yet: its stacks' temperature is the model's own
 * (40 C, or hbm_sim.temp_c), and the sim: instruments are the AC-510's only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_hbm_model.h"
#include "sb_model.h"
#include "stackbench/bench_model.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/transport.h"
#include "stackbench/util.h"

struct sim {
	struct sb_model *model;   /* the AC-510, or */
	struct sb_hbm_model *hbm; /* the HBM2 card (then model and bench are NULL) */
	struct sb_bench_model *bench;
	struct sb_model_activity last; /* board activity at the end of the last step */
};

static int open_bench(struct sim *s, const struct sb_uri *uri)
{
	const char *name = sb_uri_opt(uri, "bench"), *cooling = sb_uri_opt(uri, "cooling");
	const char *seed_text = sb_uri_opt(uri, "seed");
	struct sb_bench_params *p;
	uint64_t seed = 1;
	int err;

	if (seed_text && sb_parse_u64(seed_text, "sim option 'seed'", false, &seed) < 0)
		return SB_ERR_PARSE;
	p = malloc(sizeof(*p));
	if (!p)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for the bench parameters");
	if ((err = sb_bench_params_load(p, name)) < 0)
		goto out;
	if (cooling) {
		err = sb_bench_find_cooling(p, cooling);
		if (err < 0) {
			err = sb_error_set(SB_ERR_PARSE, "sim option 'cooling': %s",
			                   sb_error_detail());
			goto out;
		}
		p->default_cooling = (unsigned)err;
	}
	err = sb_bench_model_new(&s->bench, p, seed);
out:
	free(p);
	return err;
}

static void set_temperature(struct sim *s)
{
	struct sb_bench_state st;

	sb_bench_model_state(s->bench, &st);
	sb_model_set_temperature(s->model, st.junction_c);
	/* The refresh counter follows the refresh rate: count from here on. */
	sb_model_get_activity(s->model, &s->last);
}

static int open_hbm(struct sim *s, const struct sb_uri *uri)
{
	struct sb_hbm_model_opt opts[SB_URI_MAX_OPTS];

	for (unsigned i = 0; i < uri->nopts; i++) {
		if (!strcmp(uri->opts[i].key, "bench") || !strcmp(uri->opts[i].key, "cooling"))
			return sb_error_set(SB_ERR_NOT_SUPPORTED,
			                    "sim option '%s': the simulated HBM2 card (profile %s) "
			                    "stands on no simulated bench",
			                    uri->opts[i].key, uri->path);
		opts[i].key = uri->opts[i].key;
		opts[i].value = uri->opts[i].value;
	}
	return sb_hbm_model_new(&s->hbm, uri->path, opts, uri->nopts);
}

static int sim_open(const struct sb_uri *uri, void **priv)
{
	struct sb_model_opt opts[SB_URI_MAX_OPTS];
	unsigned nopts = 0;
	struct sim *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening the simulated board");
	if (sb_hbm_model_claims(uri->path)) {
		if ((err = open_hbm(s, uri)) < 0)
			goto fail_model;
		*priv = s;
		return 0;
	}
	for (unsigned i = 0; i < uri->nopts; i++) {
		if (!strcmp(uri->opts[i].key, "bench") || !strcmp(uri->opts[i].key, "cooling"))
			continue;
		opts[nopts].key = uri->opts[i].key;
		opts[nopts].value = uri->opts[i].value;
		nopts++;
	}
	if ((err = sb_model_new(&s->model, uri->path, opts, nopts)) < 0)
		goto fail_model;
	if ((err = open_bench(s, uri)) < 0)
		goto fail_bench;
	set_temperature(s);
	*priv = s;
	return 0;

fail_bench:
	sb_model_free(s->model);
fail_model:
	free(s);
	return err;
}

static void sim_close(void *priv)
{
	struct sim *s = priv;

	sb_hbm_model_free(s->hbm);
	sb_bench_model_free(s->bench);
	sb_model_free(s->model);
	free(s);
}

static int sim_read32(void *priv, uint32_t offset, uint32_t *value)
{
	struct sim *s = priv;

	if (s->hbm)
		return sb_hbm_model_read32(s->hbm, offset, value);
	return sb_model_read32(s->model, offset, value);
}

static int sim_write32(void *priv, uint32_t offset, uint32_t value)
{
	struct sim *s = priv;

	if (s->hbm)
		return sb_hbm_model_write32(s->hbm, offset, value);
	return sb_model_write32(s->model, offset, value);
}

static uint32_t sim_regspace(void *priv)
{
	struct sim *s = priv;

	if (s->hbm)
		return sb_hbm_model_regspace_size(s->hbm);
	return sb_model_regspace_size(s->model);
}

static uint64_t sim_now_ns(void *priv)
{
	struct sim *s = priv;

	if (s->hbm)
		return sb_hbm_model_now_ps(s->hbm) / 1000;
	return sb_model_now_ps(s->model) / 1000;
}

/* Reconcile the failure states of the board and the bench before a step. */
static void sync_failure(struct sim *s)
{
	bool board = sb_model_failed(s->model), bench = sb_bench_model_failed(s->bench);

	if (board && !bench)
		sb_bench_model_note_failure(s->bench); /* injected through sim_ctrl */
	else if (!board && bench && !sb_bench_model_cube_reset(s->bench))
		sb_model_thermal_failure(s->model); /* reset while still too hot */
}

/* One coupled step of ns nanoseconds. */
static int step(struct sim *s, uint64_t ns)
{
	struct sb_model_activity a;
	struct sb_bench_activity d;
	struct sb_bench_event ev;
	int err;

	sync_failure(s);
	if ((err = sb_model_advance(s->model, ns * 1000)) < 0)
		return err;
	sb_model_get_activity(s->model, &a);
	d = (struct sb_bench_activity){
	    .reads = a.reads - s->last.reads,
	    .writes = a.writes - s->last.writes,
	    .read_bytes = a.read_bytes - s->last.read_bytes,
	    .write_bytes = a.write_bytes - s->last.write_bytes,
	    .req_flits = a.req_flits - s->last.req_flits,
	    .resp_flits = a.resp_flits - s->last.resp_flits,
	    .refreshes = a.refreshes - s->last.refreshes,
	};
	sb_bench_model_step(s->bench, ns, &d, &ev);
	set_temperature(s);
	if (ev.fail)
		sb_model_thermal_failure(s->model);
	return 0;
}

static int sim_wait_ns(void *priv, uint64_t ns)
{
	struct sim *s = priv;
	int err;

	if (s->hbm)
		return sb_hbm_model_advance(s->hbm, ns * 1000);
	while (ns) {
		uint64_t n = sb_bench_model_step_hint_ns(s->bench);

		if (n > ns || !n)
			n = ns;
		if ((err = step(s, n)) < 0)
			return err;
		ns -= n;
	}
	return 0;
}

static int sim_dma_alloc(void *priv, size_t len, struct sb_dma_buf *buf)
{
	struct sim *s = priv;
	size_t rounded = (len + 4095) & ~(size_t)4095;
	void *p;
	int err;

	if (s->hbm)
		return sb_error_set(SB_ERR_NOT_SUPPORTED,
		                    "the simulated HBM2 card has no DMA (no trace block yet)");
	if (!len)
		return sb_error_set(SB_ERR_INVAL, "DMA buffer of 0 bytes");
	p = aligned_alloc(4096, rounded);
	if (!p)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for a %zu-byte DMA buffer", len);
	memset(p, 0, rounded);
	err = sb_model_dma_map(s->model, p, len, &buf->bus);
	if (err < 0) {
		free(p);
		return err;
	}
	buf->host = p;
	buf->len = len;
	return 0;
}

static void sim_dma_free(void *priv, struct sb_dma_buf *buf)
{
	struct sim *s = priv;

	sb_model_dma_unmap(s->model, buf->bus);
	free(buf->host);
}

static int sim_bench(void *priv, struct sb_bench_model **bench)
{
	struct sim *s = priv;

	*bench = s->bench;
	if (!s->bench)
		return sb_error_set(SB_ERR_NOT_SUPPORTED,
		                    "the simulated HBM2 card (profile %s) stands on no simulated "
		                    "bench: the sim: instruments need the AC-510",
		                    sb_hbm_model_profile_name(s->hbm));
	return 0;
}

/* The profile (name, content hash; never the file's path: results are shared between
 * machines) and the bench the simulated board stands on. */
static int sim_profile(void *priv, struct sb_board_profile *p)
{
	struct sim *s = priv;
	const char *path =
	    s->hbm ? sb_hbm_model_profile_path(s->hbm) : sb_model_profile_path(s->model);
	const struct sb_bench_params *bp = s->bench ? sb_bench_model_params(s->bench) : NULL;
	char *text;
	size_t len;

	memset(p, 0, sizeof(*p));
	sb_strlcpy(p->name,
	           s->hbm ? sb_hbm_model_profile_name(s->hbm) : sb_model_profile_name(s->model),
	           sizeof(p->name));
	if (path[0] && sb_read_file(path, &text, &len) == 0) {
		snprintf(p->content_hash, sizeof(p->content_hash), "fnv1a64:%016llx",
		         (unsigned long long)sb_fnv1a64(text, len));
		free(text);
	}
	if (bp)
		sb_strlcpy(p->bench, bp->name, sizeof(p->bench));
	return 0;
}

static int sim_describe(void *priv, char *buf, size_t size)
{
	struct sb_board_profile p;

	sim_profile(priv, &p);
	snprintf(buf, size, "simulated %s, profile %s (%s), bench %s",
	         ((struct sim *)priv)->hbm ? "HBM2 card" : "board", p.name,
	         p.content_hash[0] ? p.content_hash : "built-in", p.bench[0] ? p.bench : "none");
	return 0;
}

const struct sb_transport_ops sb_transport_sim = {
    .name = "sim",
    .open = sim_open,
    .close = sim_close,
    .read32 = sim_read32,
    .write32 = sim_write32,
    .regspace_size = sim_regspace,
    .now_ns = sim_now_ns,
    .wait_ns = sim_wait_ns,
    .dma_alloc = sim_dma_alloc,
    .dma_free = sim_dma_free,
    .bench = sim_bench,
    .describe = sim_describe,
    .profile = sim_profile,
};
