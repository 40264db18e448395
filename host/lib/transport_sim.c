/* SPDX-License-Identifier: MIT */
/*
 * The sim: transport: the board model in process. Register accesses go to the model's
 * register decoder; the bench clock is the model's simulated time.
 */
#include <stdlib.h>
#include <string.h>

#include "sb_model.h"
#include "stackbench/error.h"
#include "stackbench/transport.h"

struct sim {
	struct sb_model *model;
};

static int sim_open(const struct sb_uri *uri, void **priv)
{
	struct sb_model_opt opts[SB_URI_MAX_OPTS];
	struct sim *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening the simulated board");
	for (unsigned i = 0; i < uri->nopts; i++) {
		opts[i].key = uri->opts[i].key;
		opts[i].value = uri->opts[i].value;
	}
	err = sb_model_new(&s->model, uri->path, opts, uri->nopts);
	if (err < 0) {
		free(s);
		return err;
	}
	*priv = s;
	return 0;
}

static void sim_close(void *priv)
{
	struct sim *s = priv;

	sb_model_free(s->model);
	free(s);
}

static int sim_read32(void *priv, uint32_t offset, uint32_t *value)
{
	return sb_model_read32(((struct sim *)priv)->model, offset, value);
}

static int sim_write32(void *priv, uint32_t offset, uint32_t value)
{
	return sb_model_write32(((struct sim *)priv)->model, offset, value);
}

static uint32_t sim_regspace(void *priv)
{
	return sb_model_regspace_size(((struct sim *)priv)->model);
}

static uint64_t sim_now_ns(void *priv)
{
	return sb_model_now_ps(((struct sim *)priv)->model) / 1000;
}

static int sim_wait_ns(void *priv, uint64_t ns)
{
	return sb_model_advance(((struct sim *)priv)->model, ns * 1000);
}

static int sim_dma_alloc(void *priv, size_t len, struct sb_dma_buf *buf)
{
	struct sim *s = priv;
	size_t rounded = (len + 4095) & ~(size_t)4095;
	void *p;
	int err;

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
};
