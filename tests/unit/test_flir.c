/* SPDX-License-Identifier: MIT */
/*
 * FLIR One frames (the pure part): the real Gen-3 capture, the 160x120 layout, CRC, header and
 * stream errors, the flat-field correction, radiometry, ROI and hot spot, and a bounded fuzz
 * smoke test (garbage and mutated real frames must not crash the decoder).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/flir.h"
#include "stackbench/radiometry.h"
#include "stackbench/util.h"

#ifndef SB_FLIR_SAMPLE_DIR
#error "SB_FLIR_SAMPLE_DIR: the extracted FLIR One capture"
#endif

#define NCHUNKS 109

struct chunk {
	uint8_t *data;
	size_t len;
};

static struct chunk chunks[NCHUNKS];

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void load_chunks(void)
{
	for (int i = 0; i < NCHUNKS; i++) {
		char path[512], *text;
		size_t len, n = 0;

		snprintf(path, sizeof(path), "%s/%d.txt", SB_FLIR_SAMPLE_DIR, i + 1);
		cr_assert_eq(sb_read_file(path, &text, &len), 0, "%s", sb_error_detail());
		while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
			len--;
		cr_assert_eq(len % 2, 0, "%s: odd hex length", path);
		chunks[i].data = malloc(len / 2 + 1);
		for (size_t k = 0; k + 1 < len; k += 2) {
			int hi = hexval(text[k]), lo = hexval(text[k + 1]);

			cr_assert(hi >= 0 && lo >= 0, "%s: not hex at %zu", path, k);
			chunks[i].data[n++] = (uint8_t)(hi << 4 | lo);
		}
		chunks[i].len = n;
		free(text);
	}
}

static void free_chunks(void)
{
	for (int i = 0; i < NCHUNKS; i++)
		free(chunks[i].data);
}

TestSuite(flir, .init = load_chunks, .fini = free_chunks);

/* Feed the whole capture; call fn for every delivered frame. */
static unsigned replay(struct sb_flir_stream *s,
                       void (*fn)(unsigned i, const struct sb_flir_frame *f))
{
	unsigned frames = 0;

	for (int i = 0; i < NCHUNKS; i++) {
		struct sb_flir_frame f;

		if (sb_flir_stream_push(s, chunks[i].data, chunks[i].len, &f) == 1) {
			if (fn)
				fn(frames, &f);
			frames++;
		}
	}
	return frames;
}

static void check_frame(unsigned i, const struct sb_flir_frame *f)
{
	static struct sb_raw_image img;
	struct sb_flir_status st;

	cr_assert_eq(f->hdr.word1, 1);
	cr_assert_eq(f->hdr.thermal_size, 10332, "frame %u", i);
	cr_assert(f->hdr.status_size >= 160 && f->hdr.status_size <= 170, "frame %u", i);
	cr_assert_eq(f->hdr.frame_size,
	             f->hdr.thermal_size + f->hdr.jpeg_size + f->hdr.status_size);
	cr_assert_eq(f->jpeg[0], 0xFF, "frame %u: JPEG starts with SOI", i);
	cr_assert_eq(f->jpeg[1], 0xD8);
	cr_assert_not(f->ffc);
	cr_assert_eq(sb_flir_decode_thermal(f->thermal, f->thermal_len, &img), 0);
	cr_assert_eq(img.width, 80);
	cr_assert_eq(img.height, 60);
	cr_assert_eq(img.packets, 63, "60 image rows and 3 telemetry rows");
	cr_assert_eq(img.bad_crc, 0, "frame %u: %u bad CRCs", i, img.bad_crc);
	cr_assert_eq(img.bad_id, 0, "frame %u", i);
	cr_assert_eq(img.bad_pixels, 0);
	cr_assert_eq(img.valid_pixels, 4800);
	cr_assert_eq(sb_flir_parse_status(f->status, f->status_len, &st), 0);
	cr_assert_str_eq(st.shutter_state, "ON");
	cr_assert_str_eq(st.ffc_state, "FFC_VALID_RAD");
	cr_assert(st.shutter_temp_k > 320 && st.shutter_temp_k < 321, "%g", st.shutter_temp_k);
}

Test(flir, real_capture_gives_twenty_good_frames)
{
	struct sb_flir_stream s;

	cr_assert_eq(sb_flir_stream_init(&s), 0);
	cr_assert_eq(replay(&s, check_frame), 20);
	cr_assert_eq(s.st.frames, 20);
	cr_assert_eq(s.st.partial, 0);
	cr_assert_eq(s.st.bad_headers, 0);
	cr_assert_eq(s.st.garbage_bytes, 0);
	cr_assert_eq(s.st.transfers, NCHUNKS);
	sb_flir_stream_release(&s);
}

Test(flir, real_first_frame_header_and_pixels)
{
	static struct sb_raw_image img;
	struct sb_flir_frame f;
	struct sb_flir_header h;
	unsigned lo = 65535, hi = 0, arg = 0;
	double sum = 0;

	/* Chunk 2 is the header alone, chunk 3 the thermal block. */
	cr_assert_eq(chunks[1].len, 28);
	cr_assert_eq(sb_flir_parse_header(chunks[1].data, chunks[1].len, &h), 0);
	cr_assert_eq(h.frame_size, 87651);
	cr_assert_eq(h.thermal_size, 10332);
	cr_assert_eq(h.jpeg_size, 77152);
	cr_assert_eq(h.status_size, 167);
	cr_assert_eq(sb_flir_split(chunks[1].data, chunks[1].len, &f), SB_ERR_PARSE,
	             "a header alone is not a frame");
	cr_assert_eq(chunks[2].len, 10332);
	cr_assert_eq(sb_flir_decode_thermal(chunks[2].data, chunks[2].len, &img), 0);
	for (unsigned i = 0; i < 4800; i++) {
		sum += img.px[i];
		if (img.px[i] < lo)
			lo = img.px[i];
		if (img.px[i] > hi) {
			hi = img.px[i];
			arg = i;
		}
	}
	/* Reference values computed independently from the capture. */
	cr_assert_eq(img.px[0], 3861);
	cr_assert_eq(img.px[4799], 3875);
	cr_assert_eq(lo, 3167);
	cr_assert_eq(hi, 4046);
	cr_assert_eq(arg, 2077, "hottest pixel at row 25, column 77");
	cr_assert_float_eq(sum / 4800, 3865.2133, 1e-3);
}

Test(flir, crc_ccitt_reference)
{
	cr_assert_eq(sb_crc_ccitt((const uint8_t *)"123456789", 9), 0x31C3);
	cr_assert_eq(sb_crc_ccitt(NULL, 0), 0);
}

Test(flir, damaged_packets_are_counted_and_masked)
{
	static struct sb_raw_image img;
	uint8_t *t = malloc(10332);

	memcpy(t, chunks[2].data, 10332);
	t[5 * 164 + 4 + 2 * 10] ^= 0x01; /* row 5, pixel 10 */
	t[7 * 164] ^= 0x02;              /* row 7's id */
	cr_assert_eq(sb_flir_decode_thermal(t, 10332, &img), 0);
	cr_assert_eq(img.bad_crc, 2);
	cr_assert_eq(img.bad_id, 1);
	cr_assert_eq(img.valid_pixels, 4800 - 160);
	cr_assert_eq(img.px[5 * 80 + 10], SB_FLIR_RAW_INVALID);
	cr_assert_eq(img.px[7 * 80], SB_FLIR_RAW_INVALID);
	cr_assert_eq(img.px[6 * 80], 3875, "row 6 untouched");
	free(t);
}

Test(flir, too_short_thermal_block)
{
	static struct sb_raw_image img;

	cr_assert_eq(sb_flir_decode_thermal(chunks[2].data, 59 * 164, &img), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "59 packets"), "%s", sb_error_detail());
	cr_assert_eq(sb_flir_decode_thermal(NULL, 0, &img), SB_ERR_PARSE);
}

static void fill_image(struct sb_raw_image *img, unsigned w, unsigned h)
{
	memset(img, 0, sizeof(*img));
	img->width = w;
	img->height = h;
	for (unsigned i = 0; i < w * h; i++)
		img->px[i] = (uint16_t)((i * 7919u) % 16384);
}

Test(flir, encode_decode_round_trip_both_layouts)
{
	static const unsigned sizes[2][2] = {{160, 120}, {80, 60}};
	static struct sb_raw_image in, out;
	static uint8_t buf[64 * 1024];

	for (int k = 0; k < 2; k++) {
		struct sb_flir_frame f;
		struct sb_flir_status st;
		int len;

		fill_image(&in, sizes[k][0], sizes[k][1]);
		in.px[3] = SB_FLIR_RAW_INVALID;
		len = sb_flir_encode(&in, "{\"shutterState\":\"ON\"}", buf, sizeof(buf));
		cr_assert_gt(len, 0, "%s", sb_error_detail());
		cr_assert_eq(sb_flir_split(buf, (size_t)len, &f), 0, "%s", sb_error_detail());
		cr_assert_eq(f.jpeg_len, 0);
		cr_assert_eq(sb_flir_decode_thermal(f.thermal, f.thermal_len, &out), 0);
		cr_assert_eq(out.width, in.width);
		cr_assert_eq(out.height, in.height);
		cr_assert_eq(out.bad_crc, 0);
		cr_assert_eq(out.bad_id, 0);
		cr_assert_eq(out.bad_pixels, 1, "the invalid pixel stays invalid");
		cr_assert_eq(memcmp(in.px, out.px, in.width * in.height * 2), 0);
		cr_assert_eq(sb_flir_parse_status(f.status, f.status_len, &st), 0);
		cr_assert_str_eq(st.shutter_state, "ON");
		cr_assert(isnan(st.shutter_temp_k));
	}
	fill_image(&in, 100, 100);
	cr_assert_eq(sb_flir_encode(&in, NULL, buf, sizeof(buf)), SB_ERR_INVAL);
	fill_image(&in, 160, 120);
	cr_assert_eq(sb_flir_encode(&in, NULL, buf, 1000), SB_ERR_RANGE);
}

static void header(uint8_t *b, uint32_t frame, uint32_t th, uint32_t jp, uint32_t st)
{
	const uint32_t w[7] = {0x0000BEEFu, 1, frame, th, jp, st, 0};

	for (int i = 0; i < 7; i++)
		for (int k = 0; k < 4; k++)
			b[4 * i + k] = (uint8_t)(w[i] >> (8 * k));
}

Test(flir, header_errors_name_the_problem)
{
	uint8_t b[64] = {0};
	struct sb_flir_header h;
	struct sb_flir_frame f;

	cr_assert_eq(sb_flir_parse_header(b, 27, &h), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "27 bytes"), "%s", sb_error_detail());
	header(b, 10, 4, 4, 2);
	b[1] = 0xBF;
	cr_assert_eq(sb_flir_parse_header(b, 28, &h), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "magic ef bf 00 00"), "%s", sb_error_detail());
	header(b, SB_FLIR_FRAME_MAX + 1, 0, 0, 0);
	cr_assert_eq(sb_flir_parse_header(b, 28, &h), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "exceeds"), "%s", sb_error_detail());
	header(b, 10, 4, 4, 4);
	cr_assert_eq(sb_flir_parse_header(b, 28, &h), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "do not fit in a 10-byte frame"), "%s",
	          sb_error_detail());
	header(b, 0xFFFFF, 0xFFFFFFFFu, 0xFFFFFFFFu, 2);
	cr_assert_eq(sb_flir_parse_header(b, 28, &h), SB_ERR_PARSE, "sizes that overflow 32 bits");
	header(b, 10, 4, 4, 2);
	cr_assert_eq(sb_flir_parse_header(b, 28, &h), 0);
	cr_assert_eq(sb_flir_split(b, 37, &f), SB_ERR_PARSE, "one byte short of the frame");
	cr_assert(strstr(sb_error_detail(), "9 bytes of a 10-byte frame"), "%s", sb_error_detail());
	cr_assert_eq(sb_flir_split(b, 38, &f), 0);
}

/* A synthetic frame with a status text. */
static int make_frame(uint8_t *buf, size_t cap, const char *status, uint16_t fill)
{
	static struct sb_raw_image img;

	memset(&img, 0, sizeof(img));
	img.width = 80;
	img.height = 60;
	for (unsigned i = 0; i < 4800; i++)
		img.px[i] = fill;
	return sb_flir_encode(&img, status, buf, cap);
}

Test(flir, flat_field_correction_drops_that_frame_and_the_next)
{
	static uint8_t a[16384], b[16384];
	struct sb_flir_stream s;
	struct sb_flir_frame f;
	int la = make_frame(a, sizeof(a), "{\"shutterState\":\"FFC\",\"ffcState\":\"x\"}", 100);
	int lb = make_frame(b, sizeof(b), "{\"shutterState\":\"ON\",\"ffcState\":\"x\"}", 200);

	cr_assert_gt(la, 0);
	cr_assert_eq(sb_flir_split(a, (size_t)la, &f), 0);
	cr_assert(f.ffc);
	cr_assert_eq(sb_flir_stream_init(&s), 0);
	cr_assert_eq(sb_flir_stream_push(&s, a, (size_t)la, &f), 0, "FFC frame dropped");
	cr_assert_eq(sb_flir_stream_push(&s, b, (size_t)lb, &f), 0, "the next one too");
	cr_assert_eq(sb_flir_stream_push(&s, b, (size_t)lb, &f), 1, "then frames flow");
	cr_assert_eq(s.st.ffc_dropped, 2);
	cr_assert_eq(s.st.frames, 1);
	sb_flir_stream_release(&s);
}

Test(flir, stream_reassembles_tiny_transfers_and_survives_interruptions)
{
	static uint8_t a[16384];
	struct sb_flir_stream s;
	struct sb_flir_frame f;
	int la = make_frame(a, sizeof(a), "{\"shutterState\":\"ON\"}", 300), got = 0;
	static struct sb_raw_image img;
	uint8_t junk[100];

	memset(junk, 0x5A, sizeof(junk));
	cr_assert_eq(sb_flir_stream_init(&s), 0);
	cr_assert_eq(sb_flir_stream_push(&s, junk, sizeof(junk), &f), 0, "garbage first");
	/* Half a frame, then a new frame starts: the half is abandoned. */
	cr_assert_eq(sb_flir_stream_push(&s, a, (size_t)la / 2, &f), 0);
	for (int i = 0; i < la; i += 7) {
		size_t n = (size_t)(la - i) < 7 ? (size_t)(la - i) : 7;

		got += sb_flir_stream_push(&s, a + i, n, &f) == 1;
	}
	cr_assert_eq(got, 1);
	cr_assert_eq(s.st.partial, 1);
	cr_assert_eq(s.st.garbage_bytes, sizeof(junk));
	/* the 7-byte transfers all arrived; the last one completed the frame */
	cr_assert_eq(sb_flir_decode_thermal(f.thermal, f.thermal_len, &img), 0);
	cr_assert_eq(img.px[1234], 300);
	/* A frame followed by trailing bytes in the same transfer: extra bytes are counted. */
	memcpy(a + la, junk, 10);
	cr_assert_eq(sb_flir_stream_push(&s, a, (size_t)la + 10, &f), 1);
	cr_assert_eq(s.st.garbage_bytes, sizeof(junk) + 10);
	/* An impossible header is rejected, and the stream goes on. */
	header(junk, 10, 8, 8, 8);
	cr_assert_eq(sb_flir_stream_push(&s, junk, 40, &f), 0);
	cr_assert_eq(s.st.bad_headers, 1);
	cr_assert_eq(sb_flir_stream_push(&s, a, (size_t)la, &f), 1);
	sb_flir_stream_release(&s);
}

Test(flir, status_that_is_not_json)
{
	struct sb_flir_status st;

	cr_assert_eq(sb_flir_parse_status((const uint8_t *)"FFC garbage", 11, &st), SB_ERR_PARSE);
	cr_assert_eq(sb_flir_parse_status((const uint8_t *)"[1,2]", 5, &st), SB_ERR_PARSE);
	cr_assert_eq(sb_flir_parse_status((const uint8_t *)"{\"shutterState\":5}\0zz", 21, &st), 0);
	cr_assert_str_eq(st.shutter_state, "");
}

static uint64_t fuzz_state = 12345;

static uint32_t fuzz_next(void)
{
	fuzz_state ^= fuzz_state << 13;
	fuzz_state ^= fuzz_state >> 7;
	fuzz_state ^= fuzz_state << 17;
	return (uint32_t)fuzz_state;
}

/* Everything a malformed buffer can go through. */
static void fuzz_one(const uint8_t *b, size_t len, struct sb_flir_stream *s)
{
	static struct sb_raw_image img;
	struct sb_flir_status st;
	struct sb_flir_frame f;
	struct sb_flir_header h;

	(void)sb_flir_parse_header(b, len, &h);
	if (sb_flir_split(b, len, &f) == 0) {
		cr_assert_leq(f.thermal_len + f.jpeg_len + f.status_len + 28, len);
		if (sb_flir_decode_thermal(f.thermal, f.thermal_len, &img) == 0)
			cr_assert_leq(img.valid_pixels, img.width * img.height);
		(void)sb_flir_parse_status(f.status, f.status_len, &st);
	}
	if (sb_flir_decode_thermal(b, len, &img) == 0)
		cr_assert_leq(img.valid_pixels, img.width * img.height);
	(void)sb_flir_parse_status(b, len, &st);
	if (sb_flir_stream_push(s, b, len, &f) == 1)
		cr_assert_leq(f.thermal_len + f.jpeg_len + f.status_len, SB_FLIR_FRAME_MAX);
}

Test(flir, fuzz_smoke_garbage_and_mutated_frames)
{
	const size_t cap = 120000;
	uint8_t *b = malloc(cap);
	struct sb_flir_stream s;
	size_t frame0 = 28 + 87651;
	uint8_t *real = malloc(frame0);
	size_t off = 0;

	/* The first real frame as one buffer: chunks 2..6. */
	for (int i = 1; off < frame0; i++) {
		size_t n = chunks[i].len < frame0 - off ? chunks[i].len : frame0 - off;

		memcpy(real + off, chunks[i].data, n);
		off += n;
	}
	cr_assert_eq(sb_flir_stream_init(&s), 0);
	for (int iter = 0; iter < 300; iter++) {
		size_t len = fuzz_next() % cap;

		for (size_t i = 0; i < len; i++)
			b[i] = (uint8_t)fuzz_next();
		if (iter % 3 == 0 &&
		    len >= 28) /* a magic and plausible sizes in front of garbage */
			header(b, (uint32_t)(len - 28), fuzz_next() % 40000, fuzz_next() % 40000,
			       fuzz_next() % 400);
		fuzz_one(b, len, &s);
	}
	for (int iter = 0; iter < 300; iter++) {
		size_t len = frame0 - (iter % 5 == 0 ? fuzz_next() % frame0 : 0);

		memcpy(b, real, frame0);
		for (int k = 0; k < 1 + iter % 16; k++)
			b[fuzz_next() % (iter % 2 ? 28 : frame0)] = (uint8_t)fuzz_next();
		fuzz_one(b, len, &s);
	}
	sb_flir_stream_release(&s);
	free(real);
	free(b);
}

/* ---- radiometry ------------------------------------------------------------------------- */

static const struct sb_planck planck = {
    .r1 = 16528.178,
    .b = 1427.5,
    .f = 1.0,
    .o = -1307.0,
    .r2 = 0.012258549,
    .t_refl_c = 20.0,
    .emissivity = 0.95,
    .raw_scale = 4.0,
};

Test(flir, planck_reference_values_and_round_trip)
{
	/* Reference temperatures computed independently with the formula of instruments.md. */
	cr_assert_float_eq(sb_planck_to_c(&planck, 2928), 19.8430, 1e-3);
	cr_assert_float_eq(sb_planck_to_c(&planck, 3861), 40.2643, 1e-3);
	cr_assert_float_eq(sb_planck_to_c(&planck, 4366), 49.9675, 1e-3);
	cr_assert_float_eq(sb_planck_to_c(&planck, 6855), 89.8202, 1e-3);
	cr_assert_float_eq(sb_planck_to_c(&planck, 11810), 149.8907, 1e-3);
	for (double t = -20; t <= 150; t += 0.7)
		cr_assert_float_eq(sb_planck_to_c(&planck, sb_planck_from_c(&planck, t)), t, 1e-6);
	cr_assert(isnan(sb_planck_to_c(&planck, 0)), "outside the formula's domain");
	cr_assert(isnan(sb_planck_from_c(&planck, -300)));
	cr_assert_eq(sb_planck_check(&planck), 0);
}

Test(flir, planck_constants_are_checked)
{
	struct sb_planck p = planck;

	p.r2 = 0;
	cr_assert_eq(sb_planck_check(&p), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "R2"), "%s", sb_error_detail());
	p = planck;
	p.emissivity = 1.5;
	cr_assert_eq(sb_planck_check(&p), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "emissivity"), "%s", sb_error_detail());
}

Test(flir, real_frame_temperatures_with_one_units_constants)
{
	static struct sb_raw_image raw;
	static struct sb_thermal_image img;
	struct sb_hotspot hs;
	struct sb_roi all = {0};

	cr_assert_eq(sb_flir_decode_thermal(chunks[2].data, chunks[2].len, &raw), 0);
	cr_assert_eq(sb_thermal_from_raw(&raw, &planck, &img), 4800);
	cr_assert_eq(sb_hotspot_find(&img, &all, &hs), 0);
	cr_assert_eq(hs.x, 77);
	cr_assert_eq(hs.y, 25);
	cr_assert_float_eq(hs.max_c, sb_planck_to_c(&planck, 4046), 1e-4);
	cr_assert_float_eq(hs.min_c, sb_planck_to_c(&planck, 3167), 1e-4);
	cr_assert(hs.mean_c > hs.min_c && hs.mean_c < hs.max_c);
	cr_assert_eq(hs.valid, 4800);
}

Test(flir, roi_and_hotspot)
{
	static struct sb_thermal_image img;
	struct sb_hotspot hs;
	struct sb_roi r;

	img.width = 160;
	img.height = 120;
	for (unsigned i = 0; i < 160 * 120; i++)
		img.t_c[i] = 30.0f;
	img.t_c[60 * 160 + 100] = 70.0f; /* the cube */
	img.t_c[60 * 160 + 40] = 50.0f;  /* the FPGA */
	img.t_c[10 * 160 + 10] = NAN;
	cr_assert_eq(sb_roi_parse("all", &r), 0);
	cr_assert_eq(sb_hotspot_find(&img, &r, &hs), 0);
	cr_assert_float_eq(hs.max_c, 70.0, 1e-9);
	cr_assert_eq(hs.x, 100);
	cr_assert_eq(hs.y, 60);
	cr_assert_eq(hs.valid, 160 * 120 - 1);
	cr_assert_eq(sb_roi_parse("20,40,40,40", &r), 0);
	cr_assert_eq(sb_hotspot_find(&img, &r, &hs), 0);
	cr_assert_float_eq(hs.max_c, 50.0, 1e-9);
	cr_assert_eq(hs.x, 40);
	cr_assert_float_eq(hs.min_c, 30.0, 1e-9);
	cr_assert_float_eq(hs.mean_c, 30.0 + 20.0 / 1600, 1e-6);
	r = (struct sb_roi){10, 10, 1, 1};
	cr_assert_eq(sb_hotspot_find(&img, &r, &hs), SB_ERR_NOT_FOUND);
	r = (struct sb_roi){150, 0, 11, 5};
	cr_assert_eq(sb_hotspot_find(&img, &r, &hs), SB_ERR_RANGE);
	cr_assert(strstr(sb_error_detail(), "150,0,11,5"), "%s", sb_error_detail());
	cr_assert_eq(sb_roi_parse("1,2,3", &r), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "'1,2,3'"), "%s", sb_error_detail());
	cr_assert_eq(sb_roi_parse("1,2,0,4", &r), SB_ERR_INVAL);
	cr_assert_eq(sb_roi_parse("-1,2,3,4", &r), SB_ERR_INVAL);
	cr_assert_eq(sb_roi_parse("1,2,3,4x", &r), SB_ERR_INVAL);
	cr_assert_float_eq(sb_quantize(51.66, 0.1), 51.7, 1e-9);
	cr_assert_float_eq(sb_quantize(51.64, 0.1), 51.6, 1e-9);
}
