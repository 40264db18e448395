/* SPDX-License-Identifier: MIT */
/* Planck conversion, temperature images, regions of interest and hot spots. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/radiometry.h"
#include "stackbench/util.h"

#define KELVIN 273.15

int sb_planck_check(const struct sb_planck *p)
{
	static const char *const names[] = {"R1", "B", "R2", "raw_scale"};
	const double v[] = {p->r1, p->b, p->r2, p->raw_scale};

	for (size_t i = 0; i < SB_ARRAY_SIZE(v); i++)
		if (!(v[i] > 0) || !isfinite(v[i]))
			return sb_error_set(SB_ERR_INVAL, "Planck constant %s = %g: must be > 0",
			                    names[i], v[i]);
	if (!(p->emissivity > 0 && p->emissivity <= 1))
		return sb_error_set(SB_ERR_INVAL, "emissivity %g: must be in (0, 1]",
		                    p->emissivity);
	if (!isfinite(p->f) || !isfinite(p->o) || !(p->t_refl_c > -KELVIN))
		return sb_error_set(SB_ERR_INVAL, "Planck constants F, O or T_refl not finite");
	return 0;
}

/* Counts of a black body at t_c (before emissivity and scaling). */
static double body_counts(const struct sb_planck *p, double t_c)
{
	double d = p->r2 * (exp(p->b / (t_c + KELVIN)) - p->f);

	return d > 0 ? p->r1 / d - p->o : NAN;
}

double sb_planck_to_c(const struct sb_planck *p, double raw)
{
	double refl = body_counts(p, p->t_refl_c);
	double obj = (p->raw_scale * raw - (1 - p->emissivity) * refl) / p->emissivity;
	double arg;

	if (!(obj + p->o > 0))
		return NAN;
	arg = p->r1 / (p->r2 * (obj + p->o)) + p->f;
	if (!(arg > 1) || !isfinite(arg))
		return NAN;
	return p->b / log(arg) - KELVIN;
}

double sb_planck_from_c(const struct sb_planck *p, double t_c)
{
	double obj = body_counts(p, t_c), refl = body_counts(p, p->t_refl_c);

	if (!(t_c > -KELVIN) || isnan(obj))
		return NAN;
	return (p->emissivity * obj + (1 - p->emissivity) * refl) / p->raw_scale;
}

int sb_thermal_from_raw(const struct sb_raw_image *raw, const struct sb_planck *p,
                        struct sb_thermal_image *img)
{
	unsigned n = raw->width * raw->height;
	int valid = 0;

	img->width = raw->width;
	img->height = raw->height;
	for (unsigned i = 0; i < n && i < SB_FLIR_MAX_PIXELS; i++) {
		double t = raw->px[i] == SB_FLIR_RAW_INVALID ? NAN : sb_planck_to_c(p, raw->px[i]);

		img->t_c[i] = (float)t;
		valid += !isnan(t);
	}
	return valid;
}

int sb_roi_parse(const char *text, struct sb_roi *roi)
{
	unsigned long v[4];
	const char *s = text;

	memset(roi, 0, sizeof(*roi));
	if (!strcmp(text, "all"))
		return 0;
	for (int i = 0; i < 4; i++) {
		char *end;

		if (*s < '0' || *s > '9')
			goto bad;
		v[i] = strtoul(s, &end, 10);
		if (v[i] > 100000 || *end != (i < 3 ? ',' : '\0'))
			goto bad;
		s = end + (i < 3);
	}
	if (!v[2] || !v[3])
		goto bad;
	*roi = (struct sb_roi){(unsigned)v[0], (unsigned)v[1], (unsigned)v[2], (unsigned)v[3]};
	return 0;
bad:
	return sb_error_set(SB_ERR_INVAL,
	                    "bad region of interest '%s': expected X,Y,W,H (pixels, W and H > 0) "
	                    "or 'all'",
	                    text);
}

int sb_hotspot_find(const struct sb_thermal_image *img, const struct sb_roi *roi,
                    struct sb_hotspot *hs)
{
	struct sb_roi r = *roi;
	double sum = 0;

	memset(hs, 0, sizeof(*hs));
	hs->max_c = hs->mean_c = hs->min_c = NAN;
	if (!r.w || !r.h)
		r = (struct sb_roi){0, 0, img->width, img->height};
	if (r.x >= img->width || r.y >= img->height || r.w > img->width - r.x ||
	    r.h > img->height - r.y)
		return sb_error_set(SB_ERR_RANGE,
		                    "region of interest %u,%u,%u,%u is not inside the %ux%u frame",
		                    r.x, r.y, r.w, r.h, img->width, img->height);
	for (unsigned y = r.y; y < r.y + r.h; y++) {
		for (unsigned x = r.x; x < r.x + r.w; x++) {
			double t = img->t_c[y * img->width + x];

			if (isnan(t))
				continue;
			if (!hs->valid || t > hs->max_c) {
				hs->max_c = t;
				hs->x = x;
				hs->y = y;
			}
			if (!hs->valid || t < hs->min_c)
				hs->min_c = t;
			sum += t;
			hs->valid++;
		}
	}
	if (!hs->valid)
		return sb_error_set(SB_ERR_NOT_FOUND,
		                    "region of interest %u,%u,%u,%u has no valid pixel", r.x, r.y,
		                    r.w, r.h);
	hs->mean_c = sum / hs->valid;
	return 0;
}

double sb_quantize(double v, double step)
{
	if (!(step > 0) || !isfinite(v))
		return v;
	return round(v / step) * step;
}

void sb_planck_default(struct sb_planck *p)
{
	*p = (struct sb_planck){
	    .r1 = 16528.178,
	    .b = 1427.5,
	    .f = 1.0,
	    .o = -1307.0,
	    .r2 = 0.012258549,
	    .t_refl_c = 20.0,
	    .emissivity = 0.95,
	    .raw_scale = 4.0,
	};
}

void sb_hotspot_tracker_init(struct sb_hotspot_tracker *t)
{
	t->locked = false;
	t->win = (struct sb_roi){0, 0, 0, 0};
	t->margin = 3;
	t->blob_delta_c = 2.0;
	t->blob_pixels = 0;
}

/* The rectangle r grown by m pixels on each side, clipped to the frame. */
static struct sb_roi grow(const struct sb_roi *r, unsigned m, unsigned w, unsigned h)
{
	unsigned x0 = r->x > m ? r->x - m : 0, y0 = r->y > m ? r->y - m : 0;
	unsigned x1 = r->x + r->w + m, y1 = r->y + r->h + m;

	if (x1 > w)
		x1 = w;
	if (y1 > h)
		y1 = h;
	return (struct sb_roi){x0, y0, x1 - x0, y1 - y0};
}

/* The bounding box of the blob of pixels >= floor_c 4-connected to (x, y). */
static struct sb_roi blob_box(struct sb_hotspot_tracker *t, const struct sb_thermal_image *img,
                              unsigned x, unsigned y, double floor_c)
{
	unsigned w = img->width, n = w * img->height, head = 0, tail = 0;
	unsigned x0 = x, x1 = x, y0 = y, y1 = y;

	memset(t->seen, 0, n);
	t->queue[tail++] = y * w + x;
	t->seen[y * w + x] = 1;
	while (head < tail) {
		uint32_t i = t->queue[head++];
		unsigned px = i % w, py = i / w;
		const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};

		x0 = px < x0 ? px : x0;
		x1 = px > x1 ? px : x1;
		y0 = py < y0 ? py : y0;
		y1 = py > y1 ? py : y1;
		for (int k = 0; k < 4; k++) {
			long nx = (long)px + dx[k], ny = (long)py + dy[k];
			uint32_t j;

			if (nx < 0 || ny < 0 || nx >= (long)w || ny >= (long)img->height)
				continue;
			j = (uint32_t)(ny * (long)w + nx);
			if (t->seen[j] || !(img->t_c[j] >= floor_c))
				continue;
			t->seen[j] = 1;
			t->queue[tail++] = j;
		}
	}
	t->blob_pixels = tail;
	return (struct sb_roi){x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

int sb_hotspot_track(struct sb_hotspot_tracker *t, const struct sb_thermal_image *img,
                     struct sb_hotspot *hs, struct sb_roi *roi)
{
	struct sb_roi all = {0, 0, img->width, img->height}, search, box;
	int err;

	if (!img->width || !img->height || img->width * img->height > SB_FLIR_MAX_PIXELS)
		return sb_error_set(SB_ERR_RANGE, "thermal image of %ux%u pixels", img->width,
		                    img->height);
	if (t->locked && (t->win.x + t->win.w > img->width || t->win.y + t->win.h > img->height))
		t->locked = false; /* another frame size */
	search = t->locked ? grow(&t->win, t->margin, img->width, img->height) : all;
	err = sb_hotspot_find(img, &search, hs);
	if (err == SB_ERR_NOT_FOUND && t->locked) {
		t->locked = false; /* the window went dark: search the whole frame again */
		search = all;
		err = sb_hotspot_find(img, &search, hs);
	}
	if (err < 0)
		return err;
	box = blob_box(t, img, hs->x, hs->y, hs->max_c - t->blob_delta_c);
	t->win = grow(&box, t->margin, img->width, img->height);
	t->locked = true;
	*roi = t->win;
	/* The reading describes the window it reports. */
	return sb_hotspot_find(img, &t->win, hs);
}
