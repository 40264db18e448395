/* SPDX-License-Identifier: MIT */
/*
 * Run under umockdev-run with a replay made by gen_flirone_replay: open the FLIR One driver
 * through the unmodified libusb path and check what it reports against what the pure parser
 * says for the same bytes (the real capture in CHUNK_DIR).
 *
 *   flirone_replay_check VARIANT CHUNK_DIR
 *
 * ok / short   whole-frame hot spots are frame maxima of the capture; several frames seen
 * crc          only undamaged (even) frames ever reported
 * auto         the tracked hot spot is inside the reported window, no hotter than the frame
 * garbage      open fails: no usable frame, frames dropped as damaged
 * disconnect   samples work, then fail with "disconnected"
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stackbench/error.h"
#include "stackbench/flir.h"
#include "stackbench/instrument.h"
#include "stackbench/radiometry.h"

#define NCHUNKS 109
#define MAX_FRAMES 32

static double frame_max[MAX_FRAMES];
static unsigned nframes;

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "FAIL: " __VA_ARGS__);                                             \
		fputc('\n', stderr);                                                               \
		return 1;                                                                          \
	} while (0)

/* The frame maxima the parser finds in the capture (default constants, whole frame). */
static int parse_capture(const char *dir)
{
	static struct sb_raw_image raw;
	static struct sb_thermal_image img;
	static unsigned char buf[65536];
	struct sb_flir_stream s;
	struct sb_planck p;

	sb_planck_default(&p);
	if (sb_flir_stream_init(&s) < 0)
		return -1;
	for (int i = 1; i <= NCHUNKS; i++) {
		char path[4096];
		size_t n = 0;
		int c, hi = -1;
		struct sb_flir_frame f;
		FILE *fp;

		snprintf(path, sizeof(path), "%s/%d.txt", dir, i);
		fp = fopen(path, "r");
		if (!fp)
			return -1;
		while ((c = fgetc(fp)) != EOF && n < sizeof(buf)) {
			int v = c >= '0' && c <= '9'   ? c - '0'
			        : c >= 'a' && c <= 'f' ? c - 'a' + 10
			                               : -1;

			if (v < 0)
				continue;
			if (hi < 0)
				hi = v;
			else {
				buf[n++] = (unsigned char)(hi << 4 | v);
				hi = -1;
			}
		}
		fclose(fp);
		if (sb_flir_stream_push(&s, buf, n, &f) == 1 && nframes < MAX_FRAMES) {
			struct sb_hotspot hs;
			struct sb_roi all = {0, 0, 0, 0};

			sb_flir_decode_thermal(f.thermal, f.thermal_len, &raw);
			sb_thermal_from_raw(&raw, &p, &img);
			sb_hotspot_find(&img, &all, &hs);
			frame_max[nframes++] = hs.max_c;
		}
	}
	sb_flir_stream_release(&s);
	return nframes == 20 ? 0 : -1;
}

static int frame_of(double c, bool even_only)
{
	for (unsigned i = 0; i < nframes; i++)
		if ((float)frame_max[i] == (float)c && (!even_only || i % 2 == 0))
			return (int)i;
	return -1;
}

static void sleep_ms(unsigned ms)
{
	nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000}, NULL);
}

int main(int argc, char **argv)
{
	const char *v = argc == 3 ? argv[1] : "";
	bool crc = !strcmp(v, "crc"), track = !strcmp(v, "auto");
	struct sb_temp_source *cam;
	struct sb_temp_reading r;
	unsigned seen[MAX_FRAMES] = {0}, distinct = 0, samples = 0;
	int err;

	if (argc == 4 && !strcmp(argv[1], "is-max") && parse_capture(argv[2]) == 0) {
		/* is-max CHUNK_DIR C: is C (as the tool printed it) one frame's maximum? */
		double c = strtod(argv[3], NULL);
		int i = frame_of(c, false);

		if (i >= 0) {
			printf("%s C is the maximum of frame %d of the capture\n", argv[3], i);
			return 0;
		}
		fprintf(stderr, "FAIL: %s C is no frame's maximum; the frames':", argv[3]);
		for (unsigned k = 0; k < nframes; k++)
			fprintf(stderr, " %.4f", frame_max[k]);
		fputc('\n', stderr);
		return 1;
	}
	if (argc != 3 || parse_capture(argv[2]) < 0) {
		fprintf(stderr, "usage: flirone_replay_check VARIANT CHUNK_DIR (20 frames)\n"
		                "       flirone_replay_check is-max CHUNK_DIR CELSIUS\n");
		return 2;
	}
	err = sb_temp_source_open(&cam, track ? "flirone:" : "flirone:?roi=all", NULL);
	if (!strcmp(v, "garbage")) {
		printf("open: %d %s\n", err, sb_error_detail());
		if (err != SB_ERR_TIMEOUT || !strstr(sb_error_detail(), "no usable frame") ||
		    !strstr(sb_error_detail(), "dropped as damaged"))
			FAIL("garbage: expected a timeout naming damaged frames (got %d)", err);
		return 0;
	}
	if (err < 0)
		FAIL("open: %s (%d)", sb_error_detail(), err);
	for (int k = 0; k < 300; k++) {
		int f;

		err = sb_temp_source_sample(cam, &r);
		if (err < 0)
			break;
		samples++;
		if (track) {
			if (r.hot_x < r.roi.x || r.hot_x >= r.roi.x + r.roi.w ||
			    r.hot_y < r.roi.y || r.hot_y >= r.roi.y + r.roi.h || !r.frame)
				FAIL("auto: hot spot outside its window (%g)", r.hotspot_c);
			if (r.roi.x + r.roi.w > r.frame->width ||
			    r.roi.y + r.roi.h > r.frame->height)
				FAIL("auto: the window leaves the frame (%u)", r.roi.w);
			if (r.hotspot_c < r.roi_mean_c)
				FAIL("auto: hot spot below the window's mean (%g)", r.hotspot_c);
			if (r.hotspot_c > r.frame->t_c[r.hot_y * r.frame->width + r.hot_x] + 1e-4)
				FAIL("auto: hot spot not the pixel it names (%g)", r.hotspot_c);
			if (!(r.hotspot_c <= r.roi_mean_c + 50) || r.roi_min_c > r.hotspot_c)
				FAIL("auto: inconsistent window statistics (%g)", r.hotspot_c);
		} else {
			f = frame_of(r.hotspot_c, crc);
			if (f < 0)
				FAIL("%s: hot spot %.4f C is not an allowed frame's maximum", v,
				     r.hotspot_c);
			if (!seen[f]++)
				distinct++;
			if (r.frame->width != 80 || r.frame->height != 60)
				FAIL("%s: frame width %u", v, r.frame->width);
		}
		sleep_ms(10);
	}
	printf("%s: %u samples, %u distinct frames, last %s\n", v, samples, distinct,
	       err < 0 ? sb_error_detail() : "ok");
	sb_temp_source_close(cam);
	if (!strcmp(v, "disconnect")) {
		if (err != SB_ERR_IO || !strstr(sb_error_detail(), "disconnected"))
			FAIL("disconnect: expected an I/O error naming it (got %d)", err);
		return 0;
	}
	if (err < 0)
		FAIL("%s: sample failed (%d)", v, err);
	if (!track && distinct < 3)
		FAIL("%s: only %u distinct frames seen", v, distinct);
	return 0;
}
