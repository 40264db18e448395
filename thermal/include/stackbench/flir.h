/* SPDX-License-Identifier: MIT */
/*
 * FLIR One thermal cameras: the pure protocol part (bytes in, structs out; no I/O).
 *
 * The camera streams frames over USB bulk IN (endpoint 0x85). A frame is a 28-byte header
 * (magic EF BE 00 00, u32, then little-endian u32 frame size, thermal size, JPEG size, status
 * size, u32), then the thermal block, the visible-light JPEG and a status text (JSON). The
 * thermal block is a list of sensor packets of 82 little-endian u16 words: packet id (low 12
 * bits), CRC-CCITT, 80 raw pixels (14-bit counts). Two layouts exist:
 *
 *   Gen-2 (FLIR One): 160x120, each image row is two packets (left and right half);
 *   Gen-3 (FLIR One Pro): 80x60, one packet per row, followed by telemetry packets.
 *
 * The decoder picks the layout from the number of packets, checks every packet's CRC (over the
 * id, two zero bytes and the pixels, big-endian) and marks the pixels of bad packets and
 * out-of-range pixels invalid (SB_FLIR_RAW_INVALID). Nothing here trusts its input: any byte
 * string gives either a result or SB_ERR_PARSE, never a crash.
 *
 * The stream assembler turns bulk transfers into frames: a transfer starting with the magic
 * starts a frame, a frame is complete when frame size + 28 bytes are buffered, and while the
 * camera runs a flat-field correction ("FFC" in the status) that frame and the next are dropped.
 */
#ifndef STACKBENCH_FLIR_H
#define STACKBENCH_FLIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SB_FLIR_HEADER_BYTES 28
#define SB_FLIR_PACKET_WORDS 82 /* id, CRC, 80 pixels */
#define SB_FLIR_PACKET_BYTES (2 * SB_FLIR_PACKET_WORDS)
#define SB_FLIR_PACKET_PIXELS 80
#define SB_FLIR_MAX_WIDTH 160
#define SB_FLIR_MAX_HEIGHT 120
#define SB_FLIR_MAX_PIXELS (SB_FLIR_MAX_WIDTH * SB_FLIR_MAX_HEIGHT)
#define SB_FLIR_FRAME_MAX (1u << 20) /* largest frame accepted (header frame size) */
#define SB_FLIR_RAW_LIMIT 16384      /* raw counts are 14-bit */
#define SB_FLIR_RAW_INVALID 0xFFFFu  /* pixel of a bad packet, or out of range */

struct sb_flir_header {
	uint32_t magic; /* 0x0000BEEF (bytes EF BE 00 00) */
	uint32_t word1; /* 1 on the cameras seen so far */
	uint32_t frame_size, thermal_size, jpeg_size, status_size;
	uint32_t word6;
};

/* A complete frame, split into its parts (pointers into the caller's buffer). */
struct sb_flir_frame {
	struct sb_flir_header hdr;
	const uint8_t *thermal, *jpeg, *status;
	size_t thermal_len, jpeg_len, status_len;
	bool ffc; /* the camera is running a flat-field correction: do not use */
};

/* The raw thermal image. */
struct sb_raw_image {
	unsigned width, height;
	uint16_t px[SB_FLIR_MAX_PIXELS]; /* row-major; SB_FLIR_RAW_INVALID where not valid */
	unsigned packets;                /* packets in the thermal block (incl. telemetry) */
	unsigned bad_crc;                /* image packets whose CRC did not match */
	unsigned bad_id;                 /* image packets whose id was not the expected one */
	unsigned bad_pixels;             /* pixels >= 16384 in good packets */
	unsigned valid_pixels;
};

/* What the status text says (fields absent from the text are left empty / NAN). */
struct sb_flir_status {
	char shutter_state[24]; /* "ON", "FFC", ... */
	char ffc_state[32];     /* "FFC_VALID_RAD", ... */
	double shutter_temp_k;  /* shutter temperature, kelvin */
};

/* CRC-CCITT (polynomial 0x1021, initial value 0) over len bytes. */
uint16_t sb_crc_ccitt(const uint8_t *data, size_t len);

/*
 * Parse a frame header from the first 28 bytes of buf. Returns 0, or SB_ERR_PARSE when buf is
 * shorter than 28 bytes, the magic is wrong, the frame is larger than SB_FLIR_FRAME_MAX or its
 * parts do not fit in it (detail says which).
 */
int sb_flir_parse_header(const uint8_t *buf, size_t len, struct sb_flir_header *h);

/*
 * Split a complete frame (header + frame size bytes at buf) into its parts and detect the
 * flat-field correction. Same codes as sb_flir_parse_header(), and SB_ERR_PARSE when len is
 * shorter than the frame.
 */
int sb_flir_split(const uint8_t *buf, size_t len, struct sb_flir_frame *f);

/*
 * Decode a thermal block into raw counts. Returns 0 (check img->bad_crc / bad_pixels: a frame
 * with damaged packets still decodes) or SB_ERR_PARSE when the block holds too few packets for
 * either layout.
 */
int sb_flir_decode_thermal(const uint8_t *thermal, size_t len, struct sb_raw_image *img);

/*
 * Parse the status text (JSON; fields shutterState, ffcState, shutterTemperature). Returns 0,
 * or SB_ERR_PARSE when it is not a JSON object.
 */
int sb_flir_parse_status(const uint8_t *status, size_t len, struct sb_flir_status *st);

/*
 * Encode a frame (what the camera sends): header, the thermal block in the layout of the
 * image's size (160x120 or 80x60; ids and CRCs filled in; invalid pixels are sent as they are,
 * so they decode invalid), no JPEG, and the status text. Returns the frame length, SB_ERR_INVAL for another image size,
 * or SB_ERR_RANGE when cap is too small.
 */
int sb_flir_encode(const struct sb_raw_image *img, const char *status, uint8_t *buf, size_t cap);

/* Bulk transfers to frames. */
struct sb_flir_stream_stats {
	uint64_t transfers, bytes;
	uint64_t frames;        /* frames delivered */
	uint64_t ffc_dropped;   /* frames dropped around a flat-field correction */
	uint64_t partial;       /* frames abandoned when a new one started */
	uint64_t bad_headers;   /* frames with an impossible header */
	uint64_t garbage_bytes; /* bytes outside any frame */
};

struct sb_flir_stream {
	uint8_t *buf;
	size_t len, need; /* bytes buffered; bytes of the frame in progress (0: unknown yet) */
	bool in_frame, delivered;
	unsigned skip; /* frames still to drop after an FFC */
	struct sb_flir_stream_stats st;
};

/* Returns 0 or SB_ERR_NOMEM. */
int sb_flir_stream_init(struct sb_flir_stream *s);
void sb_flir_stream_release(struct sb_flir_stream *s);

/*
 * Feed one bulk transfer. Returns 1 when *f holds a complete frame (its pointers are valid
 * until the next push), 0 when more data is needed or the frame was dropped.
 */
int sb_flir_stream_push(struct sb_flir_stream *s, const uint8_t *data, size_t len,
                        struct sb_flir_frame *f);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_FLIR_H */
