/* SPDX-License-Identifier: MIT */
/*
 * The simulated bench's instruments. The camera goes the whole way a real FLIR One's frames
 * go: the bench renders USB frames, which are reassembled from bulk-sized transfers, decoded,
 * converted with the camera's Planck constants and searched for the hot spot of the ROI.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "instrument_internal.h"
#include "stackbench/bench_model.h"
#include "stackbench/error.h"
#include "stackbench/flir.h"
#include "stackbench/util.h"

#define SIM_TRANSFER_BYTES 16384 /* bulk IN transfers the frames arrive in */

static int sim_bench(const struct sb_conn *c, struct sb_device *dev, struct sb_bench_model **bm)
{
	if (!dev)
		return sb_error_set(SB_ERR_NOT_SUPPORTED,
		                    "'%s': sim: instruments measure the simulated bench of an open "
		                    "sim: device; none was given",
		                    c->text);
	return sb_device_bench(dev, bm);
}

/* ---- camera ----------------------------------------------------------------------------- */

struct sim_camera {
	struct sb_device *dev;
	struct sb_bench_model *bm;
	struct sb_flir_stream stream;
	uint8_t *frame;
	size_t cap;
	struct sb_raw_image raw;
	struct sb_thermal_image img;
	struct sb_roi roi;
};

static int check_roi(const struct sb_bench_params *p, const struct sb_roi *r)
{
	if (!r->w || !r->h)
		return 0;
	if (r->x >= p->camera.width || r->y >= p->camera.height || r->w > p->camera.width - r->x ||
	    r->h > p->camera.height - r->y)
		return sb_error_set(SB_ERR_RANGE,
		                    "region of interest %u,%u,%u,%u is not inside the %ux%u frame",
		                    r->x, r->y, r->w, r->h, p->camera.width, p->camera.height);
	return 0;
}

static void camera_close(void *priv)
{
	struct sim_camera *cam = priv;

	sb_flir_stream_release(&cam->stream);
	free(cam->frame);
	free(cam);
}

static int camera_open(const struct sb_conn *c, struct sb_device *dev, void **priv)
{
	static const char *const known[] = {"roi", NULL};
	const struct sb_bench_params *p;
	struct sim_camera *cam;
	const char *roi;
	int err;

	if ((err = sb_conn_check_opts(c, known)) < 0)
		return err;
	cam = calloc(1, sizeof(*cam));
	if (!cam)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for the simulated camera");
	if ((err = sim_bench(c, dev, &cam->bm)) < 0 ||
	    (err = sb_flir_stream_init(&cam->stream)) < 0)
		goto fail;
	p = sb_bench_model_params(cam->bm);
	cam->dev = dev;
	cam->roi = p->camera.roi;
	cam->cap =
	    SB_FLIR_HEADER_BYTES + (size_t)SB_FLIR_MAX_HEIGHT * 2 * SB_FLIR_PACKET_BYTES + 512;
	cam->frame = malloc(cam->cap);
	if (!cam->frame) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory for the simulated camera");
		goto fail;
	}
	roi = sb_conn_opt(c, "roi");
	if (roi && (sb_roi_parse(roi, &cam->roi) < 0 || check_roi(p, &cam->roi) < 0)) {
		err = SB_ERR_INVAL; /* a bad option value */
		goto fail;
	}
	*priv = cam;
	return 0;

fail:
	camera_close(cam);
	return err;
}

static int camera_sample(void *priv, struct sb_temp_reading *r)
{
	struct sim_camera *cam = priv;
	const struct sb_bench_params *p = sb_bench_model_params(cam->bm);
	struct sb_flir_frame f;
	struct sb_hotspot hs;
	int len, got = 0, err;

	len = sb_bench_model_camera_frame(cam->bm, cam->frame, cam->cap);
	if (len < 0)
		return len;
	for (int off = 0; off < len; off += SIM_TRANSFER_BYTES) {
		size_t n = (size_t)(len - off) < SIM_TRANSFER_BYTES ? (size_t)(len - off)
		                                                    : SIM_TRANSFER_BYTES;

		got = sb_flir_stream_push(&cam->stream, cam->frame + off, n, &f);
	}
	if (got != 1)
		return sb_error_set(SB_ERR_IO, "simulated camera: the frame did not come through");
	if ((err = sb_flir_decode_thermal(f.thermal, f.thermal_len, &cam->raw)) < 0)
		return err;
	sb_thermal_from_raw(&cam->raw, &p->camera.planck, &cam->img);
	if ((err = sb_hotspot_find(&cam->img, &cam->roi, &hs)) < 0)
		return err;
	r->t_ns = sb_device_now_ns(cam->dev);
	r->hotspot_c = sb_quantize(hs.max_c, p->camera.resolution_c);
	r->hot_x = hs.x;
	r->hot_y = hs.y;
	r->roi_mean_c = hs.mean_c;
	r->roi_min_c = hs.min_c;
	r->roi = cam->roi;
	r->frame = &cam->img;
	return 0;
}

static int camera_set_roi(void *priv, const struct sb_roi *roi)
{
	struct sim_camera *cam = priv;
	int err = check_roi(sb_bench_model_params(cam->bm), roi);

	if (err < 0)
		return err;
	cam->roi = *roi;
	return 0;
}

const struct sb_temp_ops sb_temp_sim = {
    .open = camera_open,
    .close = camera_close,
    .sample = camera_sample,
    .set_roi = camera_set_roi,
};

/* ---- meter ------------------------------------------------------------------------------ */

struct sim_meter {
	struct sb_device *dev;
	struct sb_bench_model *bm;
};

static int meter_open(const struct sb_conn *c, struct sb_device *dev, void **priv)
{
	static const char *const known[] = {NULL};
	struct sim_meter *m;
	int err;

	if ((err = sb_conn_check_opts(c, known)) < 0)
		return err;
	m = calloc(1, sizeof(*m));
	if (!m)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for the simulated meter");
	if ((err = sim_bench(c, dev, &m->bm)) < 0) {
		free(m);
		return err;
	}
	m->dev = dev;
	*priv = m;
	return 0;
}

static void meter_close(void *priv)
{
	free(priv);
}

static int meter_sample(void *priv, struct sb_power_reading *r)
{
	struct sim_meter *m = priv;
	struct sb_bench_meter_reading mr;

	sb_bench_model_meter(m->bm, &mr);
	r->t_ns = sb_device_now_ns(m->dev);
	r->power_w = mr.power_w;
	r->has_va = true;
	r->volts = mr.volts;
	r->amps = mr.amps;
	return 0;
}

const struct sb_power_ops sb_power_sim = {
    .open = meter_open,
    .close = meter_close,
    .sample = meter_sample,
};

/* ---- cooling rig ------------------------------------------------------------------------ */

static int rig_open(const struct sb_conn *c, struct sb_device *dev, void **priv)
{
	static const char *const known[] = {NULL};
	struct sb_bench_model *bm;
	int err;

	if ((err = sb_conn_check_opts(c, known)) < 0 || (err = sim_bench(c, dev, &bm)) < 0)
		return err;
	*priv = bm;
	return 0;
}

static void rig_close(void *priv)
{
	(void)priv; /* the bench belongs to the device */
}

static int rig_apply(void *priv, const char *name)
{
	return sb_bench_model_set_cooling(priv, name);
}

static void rig_fill(const struct sb_cooling_cfg *c, struct sb_cooling_state *st)
{
	sb_strlcpy(st->name, c->name, sizeof(st->name));
	st->fan_supply_v = c->fan_supply_v;
	st->fan_supply_a = c->fan_supply_a;
	st->fan_rpm = c->fan_rpm;
	st->desk_fan_distance_cm = c->desk_fan_distance_cm;
	st->cooling_power_w = c->cooling_power_w;
}

static int rig_status(void *priv, struct sb_cooling_state *st)
{
	rig_fill(sb_bench_model_cooling(priv), st);
	return 0;
}

static int rig_describe(void *priv, unsigned i, struct sb_cooling_state *st)
{
	rig_fill(&sb_bench_model_params(priv)->cooling[i], st);
	return 0;
}

static unsigned rig_count(void *priv)
{
	return sb_bench_model_params(priv)->ncooling;
}

static const char *rig_name(void *priv, unsigned i)
{
	return sb_bench_model_params(priv)->cooling[i].name;
}

const struct sb_cooling_ops sb_cooling_sim = {
    .open = rig_open,
    .close = rig_close,
    .apply = rig_apply,
    .status = rig_status,
    .count = rig_count,
    .name = rig_name,
    .describe = rig_describe,
};
