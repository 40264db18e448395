/* SPDX-License-Identifier: MIT */
/*
 * Radiometry and hot spots (pure: frames in, numbers out).
 *
 * Raw sensor counts become temperatures through the camera's Planck constants; a region of
 * interest (ROI) of the temperature image gives the hot spot the bench logs: the hottest valid
 * pixel, its position, and the ROI's mean and minimum.
 */
#ifndef STACKBENCH_RADIOMETRY_H
#define STACKBENCH_RADIOMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackbench/flir.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Planck constants of one camera unit (they differ per camera; read them from configuration).
 *   raw' = raw_scale * raw
 *   raw_refl = R1 / (R2 * (exp(B / (T_refl + 273.15)) - F)) - O
 *   raw_obj = (raw' - (1 - E) * raw_refl) / E
 *   T = B / ln(R1 / (R2 * (raw_obj + O)) + F) - 273.15
 */
struct sb_planck {
	double r1, b, f, o, r2;
	double t_refl_c;   /* reflected (background) temperature */
	double emissivity; /* E, 0 < E <= 1 */
	double raw_scale;  /* raw' = raw_scale * raw (4 on the FLIR One) */
};

/* Check the constants. Returns 0 or SB_ERR_INVAL naming the bad constant. */
int sb_planck_check(const struct sb_planck *p);

/*
 * The constants of the one FLIR One unit whose calibration is published (R1 16528.178,
 * B 1427.5, F 1.0, O -1307.0, R2 0.012258549, T_refl 20 C, E 0.95, raw x 4): the default
 * when no calibration file is given (docs/instruments.md).
 */
void sb_planck_default(struct sb_planck *p);

/*
 * Read constants from a YAML file: a mapping "planck:" with keys r1, b, f, o, r2, t_refl_c,
 * emissivity and raw_scale (any key left out keeps its default). Returns 0, SB_ERR_IO or
 * SB_ERR_PARSE (file, line and key named), SB_ERR_INVAL (constants that fail the check).
 */
int sb_planck_load(const char *path, struct sb_planck *p);

/* Raw counts to degrees Celsius; NAN when the counts are outside the formula's domain. */
double sb_planck_to_c(const struct sb_planck *p, double raw);

/* Degrees Celsius to raw counts (not rounded); NAN outside the domain. */
double sb_planck_from_c(const struct sb_planck *p, double t_c);

/* A temperature image; NAN marks pixels without a valid value. */
struct sb_thermal_image {
	unsigned width, height;
	float t_c[SB_FLIR_MAX_PIXELS];
};

/* Convert a raw image. Returns the number of valid pixels. */
int sb_thermal_from_raw(const struct sb_raw_image *raw, const struct sb_planck *p,
                        struct sb_thermal_image *img);

/* A region of interest in pixels; w == 0 or h == 0 means the whole frame. */
struct sb_roi {
	unsigned x, y, w, h;
};

/* Parse "X,Y,W,H" or "all". Returns 0 or SB_ERR_INVAL (detail quotes the text). */
int sb_roi_parse(const char *text, struct sb_roi *roi);

struct sb_hotspot {
	double max_c;   /* hottest valid pixel of the ROI */
	unsigned x, y;  /* its position in the frame */
	double mean_c;  /* mean of the ROI's valid pixels */
	double min_c;   /* coldest valid pixel */
	unsigned valid; /* valid pixels in the ROI */
};

/*
 * Find the hot spot of the ROI (the first hottest pixel in row-major order). Returns 0,
 * SB_ERR_RANGE when the ROI is not inside the frame, SB_ERR_NOT_FOUND when the ROI has no valid
 * pixel.
 */
int sb_hotspot_find(const struct sb_thermal_image *img, const struct sb_roi *roi,
                    struct sb_hotspot *hs);

/*
 * Hot-spot tracking: the hottest blob of the frame, found once and then followed from frame to
 * frame. The first frame (or after the blob is lost) is searched whole for its hottest pixel;
 * the blob is the 4-connected region of pixels within blob_delta_c of it; the window is the
 * blob's bounding box grown by margin pixels. Each later frame is searched only inside the
 * window grown by margin again, so a hotter object elsewhere (a hand, a lamp) does not steal
 * the spot, while a cube that moves a few pixels (a bumped camera) is followed.
 */
struct sb_hotspot_tracker {
	bool locked;
	struct sb_roi win;   /* the window the last hot spot was found in */
	unsigned margin;     /* pixels (default 3) */
	double blob_delta_c; /* default 2.0 */
	unsigned blob_pixels;
	uint32_t queue[SB_FLIR_MAX_PIXELS]; /* flood-fill work space */
	uint8_t seen[SB_FLIR_MAX_PIXELS];
};

/* Defaults: unlocked, margin 3, delta 2 C. */
void sb_hotspot_tracker_init(struct sb_hotspot_tracker *t);

/*
 * Track the hot spot in a frame: *hs is the hot spot of the window, *roi the window. Returns 0
 * or SB_ERR_NOT_FOUND when the frame has no valid pixel at all.
 */
int sb_hotspot_track(struct sb_hotspot_tracker *t, const struct sb_thermal_image *img,
                     struct sb_hotspot *hs, struct sb_roi *roi);

/* Round v to a multiple of step (step <= 0: v unchanged). */
double sb_quantize(double v, double step);

/* How a frame is saved as a picture (sb_snapshot_png). */
struct sb_snapshot {
	struct sb_roi roi;     /* outlined (w or h 0: the whole frame) */
	unsigned hot_x, hot_y; /* the hot spot, marked with a cross */
	double hot_c;          /* its temperature (in the picture's comment) */
	unsigned scale;        /* each frame pixel becomes scale x scale (1..16) */
};

/* The marks' colours (RGB), which the false-colour palette never uses. */
#define SB_SNAPSHOT_ROI_RGB ((const uint8_t[3]){0, 255, 255})
#define SB_SNAPSHOT_HOT_RGB ((const uint8_t[3]){0, 255, 0})

/*
 * Save a frame as a PNG (8-bit RGB, width x scale by height x scale): false colours over the
 * frame's range (black, purple, red, orange, pale yellow; no reading: grey), the ROI's outline
 * (its outermost pixels) in SB_SNAPSHOT_ROI_RGB, the hot spot's pixel and two pixels on each
 * side of it, across and down, in SB_SNAPSHOT_HOT_RGB; a text chunk "Comment" gives the range,
 * the ROI and the hot spot. Written atomically. Returns 0, SB_ERR_INVAL (no frame, bad scale),
 * SB_ERR_RANGE (marks outside the frame), SB_ERR_IO, SB_ERR_NOMEM.
 */
int sb_snapshot_png(const char *path, const struct sb_thermal_image *img,
                    const struct sb_snapshot *s);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_RADIOMETRY_H */
