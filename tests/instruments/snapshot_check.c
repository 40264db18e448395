/* SPDX-License-Identifier: MIT */
/*
 * Check a camera snapshot (instruments --probe --snapshot) pixel by pixel with libpng: its size
 * is the frame's times the scale, the hot spot's pixel and the two pixels on each side of it
 * (across and down) are green, the region of interest's outermost pixels are cyan, no other
 * pixel is either colour (the palette never makes them), and the comment names the hot spot.
 *
 *   snapshot_check FILE.png FRAME_W FRAME_H SCALE HOT_X HOT_Y HOT_C ROI_X ROI_Y ROI_W ROI_H
 */
#include <math.h>
#include <png.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "snapshot_check: FAIL: " __VA_ARGS__);                             \
		fputc('\n', stderr);                                                               \
		return 1;                                                                          \
	} while (0)

static const unsigned char green[3] = {0, 255, 0}, cyan[3] = {0, 255, 255};

int main(int argc, char **argv)
{
	unsigned fw, fh, k, hx, hy, rx, ry, rw, rh, w, h, ngreen = 0, ncyan = 0, nmarked = 0;
	double hc;
	png_image img;
	unsigned char *px;
	bool *mark;
	FILE *f;
	char text[1 << 16];
	size_t n;

	if (argc != 12) {
		fprintf(stderr, "usage: snapshot_check FILE.png FRAME_W FRAME_H SCALE HOT_X HOT_Y "
		                "HOT_C ROI_X ROI_Y ROI_W ROI_H\n");
		return 2;
	}
	fw = (unsigned)atoi(argv[2]);
	fh = (unsigned)atoi(argv[3]);
	k = (unsigned)atoi(argv[4]);
	hx = (unsigned)atoi(argv[5]);
	hy = (unsigned)atoi(argv[6]);
	hc = strtod(argv[7], NULL);
	rx = (unsigned)atoi(argv[8]);
	ry = (unsigned)atoi(argv[9]);
	rw = (unsigned)atoi(argv[10]);
	rh = (unsigned)atoi(argv[11]);
	if (!rw || !rh) {
		rx = ry = 0;
		rw = fw;
		rh = fh;
	}
	memset(&img, 0, sizeof(img));
	img.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&img, argv[1]))
		FAIL("cannot read '%s': %s", argv[1], img.message);
	w = img.width;
	h = img.height;
	if (w != fw * k || h != fh * k)
		FAIL("%ux%u, want the %ux%u frame x%u", w, h, fw, fh, k);
	img.format = PNG_FORMAT_RGB;
	px = malloc(PNG_IMAGE_SIZE(img));
	mark = calloc((size_t)w * h, sizeof(*mark));
	if (!px || !mark || !png_image_finish_read(&img, NULL, px, 0, NULL))
		FAIL("cannot decode '%s': %s", argv[1], img.message);
	/* where the marks must be: the ROI's outline, then the cross over it */
	for (unsigned x = rx * k; x < (rx + rw) * k; x++)
		for (unsigned y = ry * k; y < (ry + rh) * k; y++)
			if (x == rx * k || x == (rx + rw) * k - 1 || y == ry * k ||
			    y == (ry + rh) * k - 1)
				mark[(size_t)y * w + x] = true;
	for (unsigned y = 0; y < h; y++)
		for (unsigned x = 0; x < w; x++) {
			const unsigned char *p = px + 3 * ((size_t)y * w + x);
			long fx = (long)(x / k), fy = (long)(y / k);
			bool cross = (fy == (long)hy && labs(fx - (long)hx) <= 2) ||
			             (fx == (long)hx && labs(fy - (long)hy) <= 2);
			bool outline = mark[(size_t)y * w + x];

			if (cross) {
				if (memcmp(p, green, 3))
					FAIL("(%u, %u) in the hot spot's cross is %u,%u,%u, not "
					     "green",
					     x, y, p[0], p[1], p[2]);
				ngreen++;
			} else if (outline) {
				if (memcmp(p, cyan, 3))
					FAIL("(%u, %u) on the ROI's outline is %u,%u,%u, not cyan",
					     x, y, p[0], p[1], p[2]);
				ncyan++;
			} else if (!memcmp(p, green, 3) || !memcmp(p, cyan, 3)) {
				FAIL("(%u, %u) is a mark's colour but no mark", x, y);
			} else {
				nmarked +=
				    p[1] > p[0]; /* the palette's green never exceeds its red */
			}
		}
	if (nmarked)
		FAIL("%u pixels are not of the palette", nmarked);
	/* the comment: the hot spot, as the probe reported it */
	f = fopen(argv[1], "rb");
	n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	if (f)
		fclose(f);
	text[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (!text[i])
			text[i] = ' ';
	{
		char want[96];

		snprintf(want, sizeof(want), "hot spot %.2f C at %u,%u", hc, hx, hy);
		if (!strstr(text, want))
			FAIL("the comment does not say '%s'", want);
	}
	printf("snapshot_check: %ux%u, %u green (hot spot %u,%u), %u cyan (ROI %u,%u %ux%u)\n", w,
	       h, ngreen, hx, hy, ncyan, rx, ry, rw, rh);
	free(px);
	free(mark);
	return 0;
}
