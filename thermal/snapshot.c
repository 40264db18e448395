/* SPDX-License-Identifier: MIT */
/*
 * A thermal frame as a false-colour PNG (libpng), with the region of interest outlined and the
 * hot spot marked: what `stackbench instruments --probe CONN --snapshot FILE.png` saves, to see
 * where the camera looks before an overnight run. The palette runs from black through purple,
 * red and orange to pale yellow over the frame's own range; its green never reaches its red, so
 * the marks (cyan outline, green cross) are colours no temperature has. The file is written
 * atomically (stackbench/output.h).
 */
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/output.h"
#include "stackbench/radiometry.h"

/* The palette's stops: position in [0, 1], then red, green, blue. */
static const float stops[][4] = {
    {0.00f, 0, 0, 0},     {0.25f, 80, 0, 140},    {0.50f, 200, 30, 80},
    {0.75f, 255, 140, 0}, {1.00f, 255, 250, 200},
};

static void palette(double t, uint8_t rgb[3])
{
	size_t i = 0;

	if (!(t > 0))
		t = 0;
	if (t > 1)
		t = 1;
	while (i + 2 < sizeof(stops) / sizeof(stops[0]) && t > stops[i + 1][0])
		i++;
	for (int c = 0; c < 3; c++) {
		double f = (t - stops[i][0]) / (stops[i + 1][0] - stops[i][0]);

		rgb[c] =
		    (uint8_t)lround(stops[i][c + 1] + f * (stops[i + 1][c + 1] - stops[i][c + 1]));
	}
}

static void put(uint8_t *rgb, size_t stride, unsigned x, unsigned y, const uint8_t c[3])
{
	memcpy(rgb + (size_t)y * stride + 3 * (size_t)x, c, 3);
}

/* The picture: every pixel scale x scale, the ROI's outline just outside it (inside the
 * picture), the hot spot's cross over its pixel and the two pixels each side. */
static void draw(uint8_t *rgb, unsigned w, unsigned h, const struct sb_thermal_image *img,
                 const struct sb_snapshot *s, double lo, double hi)
{
	const size_t stride = 3 * (size_t)w;
	const unsigned k = s->scale;
	struct sb_roi r = s->roi;

	for (unsigned y = 0; y < h; y++)
		for (unsigned x = 0; x < w; x++) {
			float v = img->t_c[(y / k) * img->width + x / k];
			uint8_t c[3] = {64, 64, 64}; /* no reading */

			if (isfinite(v))
				palette(hi > lo ? (v - lo) / (hi - lo) : 0.5, c);
			put(rgb, stride, x, y, c);
		}
	if (!r.w || !r.h)
		r = (struct sb_roi){0, 0, img->width, img->height};
	{
		unsigned x0 = r.x * k, y0 = r.y * k, x1 = (r.x + r.w) * k - 1,
		         y1 = (r.y + r.h) * k - 1;

		for (unsigned x = x0; x <= x1; x++) {
			put(rgb, stride, x, y0, SB_SNAPSHOT_ROI_RGB);
			put(rgb, stride, x, y1, SB_SNAPSHOT_ROI_RGB);
		}
		for (unsigned y = y0; y <= y1; y++) {
			put(rgb, stride, x0, y, SB_SNAPSHOT_ROI_RGB);
			put(rgb, stride, x1, y, SB_SNAPSHOT_ROI_RGB);
		}
	}
	/* the cross: the hot pixel whole, and arms of two pixels (in the frame's pixels) */
	for (int d = -2; d <= 2; d++)
		for (unsigned i = 0; i < k; i++)
			for (unsigned j = 0; j < k; j++) {
				long hx = (long)s->hot_x + d, hy = (long)s->hot_y + d;

				if (hx >= 0 && hx < (long)img->width)
					put(rgb, stride, (unsigned)hx * k + i, s->hot_y * k + j,
					    SB_SNAPSHOT_HOT_RGB);
				if (hy >= 0 && hy < (long)img->height)
					put(rgb, stride, s->hot_x * k + i, (unsigned)hy * k + j,
					    SB_SNAPSHOT_HOT_RGB);
			}
}

struct png_err {
	jmp_buf jb;
	char msg[160];
};

static void on_png_error(png_structp png, png_const_charp msg)
{
	struct png_err *pe = png_get_error_ptr(png);

	snprintf(pe->msg, sizeof(pe->msg), "%s", msg);
	longjmp(pe->jb, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

/* Write the picture as an 8-bit RGB PNG with a text chunk; 0 or SB_ERR_IO. */
static int write_png(FILE *f, const char *path, const uint8_t *rgb, unsigned w, unsigned h,
                     const char *comment)
{
	struct png_err pe;
	png_structp png;
	png_infop info = NULL;
	png_text text[2];
	/* volatile: kept across the longjmp */
	png_bytep *volatile rows = NULL;

	memset(&pe, 0, sizeof(pe));

	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &pe, on_png_error, on_png_warning);
	if (!png || !(info = png_create_info_struct(png))) {
		png_destroy_write_struct(&png, NULL);
		return sb_error_set(SB_ERR_NOMEM, "'%s': out of memory for libpng", path);
	}
	if (setjmp(pe.jb)) {
		png_destroy_write_struct(&png, &info);
		free(rows);
		return sb_error_set(SB_ERR_IO, "cannot write '%s': libpng: %s", path, pe.msg);
	}
	rows = malloc(h * sizeof(*rows));
	if (!rows)
		png_error(png, "out of memory");
	for (unsigned y = 0; y < h; y++)
		rows[y] = (png_bytep)(rgb + (size_t)y * 3 * w);
	png_init_io(png, f);
	png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
	             PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	memset(text, 0, sizeof(text));
	text[0].compression = PNG_TEXT_COMPRESSION_NONE;
	text[0].key = (png_charp) "Software";
	text[0].text = (png_charp) "stackbench instruments --probe";
	text[1].compression = PNG_TEXT_COMPRESSION_NONE;
	text[1].key = (png_charp) "Comment";
	text[1].text = (png_charp)comment;
	png_set_text(png, info, text, comment && *comment ? 2 : 1);
	png_set_rows(png, info, rows);
	png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
	png_destroy_write_struct(&png, &info);
	free(rows);
	return 0;
}

int sb_snapshot_png(const char *path, const struct sb_thermal_image *img,
                    const struct sb_snapshot *s)
{
	double lo = INFINITY, hi = -INFINITY;
	struct sb_output out;
	unsigned w, h;
	char comment[256];
	uint8_t *rgb;
	int e;

	if (!img->width || !img->height || img->width * img->height > SB_FLIR_MAX_PIXELS)
		return sb_error_set(SB_ERR_INVAL, "snapshot '%s': no frame", path);
	if (s->scale < 1 || s->scale > 16)
		return sb_error_set(SB_ERR_INVAL, "snapshot '%s': scale %u (1..16)", path,
		                    s->scale);
	if (s->hot_x >= img->width || s->hot_y >= img->height ||
	    (s->roi.w && s->roi.h &&
	     (s->roi.x + s->roi.w > img->width || s->roi.y + s->roi.h > img->height)))
		return sb_error_set(SB_ERR_RANGE,
		                    "snapshot '%s': the marks are outside the %ux%u frame", path,
		                    img->width, img->height);
	for (unsigned i = 0; i < img->width * img->height; i++)
		if (isfinite(img->t_c[i])) {
			lo = fmin(lo, img->t_c[i]);
			hi = fmax(hi, img->t_c[i]);
		}
	w = img->width * s->scale;
	h = img->height * s->scale;
	if (!(rgb = malloc((size_t)w * h * 3)))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	draw(rgb, w, h, img, s, lo, hi);
	snprintf(
	    comment, sizeof(comment),
	    "%ux%u frame x%u; colours %.2f..%.2f C; ROI %u,%u,%u,%u (cyan); hot spot %.2f C at "
	    "%u,%u (green)",
	    img->width, img->height, s->scale, isfinite(lo) ? lo : NAN, isfinite(hi) ? hi : NAN,
	    s->roi.x, s->roi.y, s->roi.w ? s->roi.w : img->width, s->roi.h ? s->roi.h : img->height,
	    s->hot_c, s->hot_x, s->hot_y);
	if ((e = sb_output_open(&out, path)) < 0)
		goto out;
	if ((e = write_png(out.f, path, rgb, w, h, comment)) < 0) {
		sb_output_abort(&out);
		goto out;
	}
	e = sb_output_commit(&out);
out:
	free(rgb);
	return e;
}
