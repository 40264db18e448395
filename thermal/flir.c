/* SPDX-License-Identifier: MIT */
/* FLIR One frames: header, thermal packets, status, stream reassembly (pure: no I/O). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "stackbench/error.h"
#include "stackbench/flir.h"
#include "stackbench/util.h"

static const uint8_t magic[4] = {0xEF, 0xBE, 0x00, 0x00};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint16_t crc_byte(uint16_t crc, uint8_t b)
{
	crc ^= (uint16_t)(b << 8);
	for (int i = 0; i < 8; i++)
		crc = crc & 0x8000 ? (uint16_t)(crc << 1 ^ 0x1021) : (uint16_t)(crc << 1);
	return crc;
}

uint16_t sb_crc_ccitt(const uint8_t *data, size_t len)
{
	uint16_t crc = 0;

	for (size_t i = 0; i < len; i++)
		crc = crc_byte(crc, data[i]);
	return crc;
}

/* CRC of a packet at p (little-endian words): id & 0x0FFF, two zero bytes, pixels, big-endian. */
static uint16_t packet_crc(const uint8_t *p)
{
	uint16_t id = le16(p) & 0x0FFF, crc = 0;

	crc = crc_byte(crc, (uint8_t)(id >> 8));
	crc = crc_byte(crc, (uint8_t)id);
	crc = crc_byte(crc, 0);
	crc = crc_byte(crc, 0);
	for (unsigned i = 0; i < SB_FLIR_PACKET_PIXELS; i++) {
		const uint8_t *w = p + 4 + 2 * i;

		crc = crc_byte(crc, w[1]);
		crc = crc_byte(crc, w[0]);
	}
	return crc;
}

int sb_flir_parse_header(const uint8_t *buf, size_t len, struct sb_flir_header *h)
{
	uint64_t parts;

	memset(h, 0, sizeof(*h));
	if (len < SB_FLIR_HEADER_BYTES)
		return sb_error_set(SB_ERR_PARSE, "FLIR frame header: %zu bytes, need %d", len,
		                    SB_FLIR_HEADER_BYTES);
	if (memcmp(buf, magic, sizeof(magic)))
		return sb_error_set(
		    SB_ERR_PARSE,
		    "FLIR frame header: magic %02x %02x %02x %02x, expected ef be 00 00", buf[0],
		    buf[1], buf[2], buf[3]);
	h->magic = le32(buf);
	h->word1 = le32(buf + 4);
	h->frame_size = le32(buf + 8);
	h->thermal_size = le32(buf + 12);
	h->jpeg_size = le32(buf + 16);
	h->status_size = le32(buf + 20);
	h->word6 = le32(buf + 24);
	if (h->frame_size > SB_FLIR_FRAME_MAX)
		return sb_error_set(SB_ERR_PARSE, "FLIR frame header: frame size %u exceeds %u",
		                    h->frame_size, SB_FLIR_FRAME_MAX);
	parts = (uint64_t)h->thermal_size + h->jpeg_size + h->status_size;
	if (parts > h->frame_size)
		return sb_error_set(SB_ERR_PARSE,
		                    "FLIR frame header: thermal %u + JPEG %u + status %u bytes do "
		                    "not fit in a %u-byte frame",
		                    h->thermal_size, h->jpeg_size, h->status_size, h->frame_size);
	return 0;
}

int sb_flir_split(const uint8_t *buf, size_t len, struct sb_flir_frame *f)
{
	const uint8_t *body = buf + SB_FLIR_HEADER_BYTES;
	int err;

	memset(f, 0, sizeof(*f));
	if ((err = sb_flir_parse_header(buf, len, &f->hdr)) < 0)
		return err;
	if (len - SB_FLIR_HEADER_BYTES < f->hdr.frame_size)
		return sb_error_set(SB_ERR_PARSE, "FLIR frame: %zu bytes of a %u-byte frame",
		                    len - SB_FLIR_HEADER_BYTES, f->hdr.frame_size);
	f->thermal = body;
	f->thermal_len = f->hdr.thermal_size;
	f->jpeg = body + f->hdr.thermal_size;
	f->jpeg_len = f->hdr.jpeg_size;
	f->status = f->jpeg + f->hdr.jpeg_size;
	f->status_len = f->hdr.status_size;
	/* "FFC" at offset 17 of the status: {"shutterState":"FFC",... */
	f->ffc = f->status_len >= 20 && !memcmp(f->status + 17, "FFC", 3);
	return 0;
}

int sb_flir_decode_thermal(const uint8_t *thermal, size_t len, struct sb_raw_image *img)
{
	unsigned npk = (unsigned)(len / SB_FLIR_PACKET_BYTES), per_row, image_packets;

	memset(img, 0, offsetof(struct sb_raw_image, px));
	img->packets = npk;
	img->bad_crc = img->bad_id = img->bad_pixels = img->valid_pixels = 0;
	if (npk >= 2 * SB_FLIR_MAX_HEIGHT) {
		img->width = 160;
		img->height = 120;
		per_row = 2;
	} else if (npk >= 60) {
		img->width = 80;
		img->height = 60;
		per_row = 1;
	} else {
		img->width = img->height = 0;
		return sb_error_set(
		    SB_ERR_PARSE,
		    "FLIR thermal block of %zu bytes holds %u packets; an 80x60 image "
		    "needs 60 and a 160x120 image 240",
		    len, npk);
	}
	image_packets = img->height * per_row;
	for (unsigned k = 0; k < image_packets; k++) {
		const uint8_t *p = thermal + (size_t)k * SB_FLIR_PACKET_BYTES;
		uint16_t *row = img->px + (size_t)(k / per_row) * img->width +
		                (k % per_row) * SB_FLIR_PACKET_PIXELS;
		bool good = packet_crc(p) == le16(p + 2);

		if ((le16(p) & 0x0FFF) != k)
			img->bad_id++;
		if (!good)
			img->bad_crc++;
		for (unsigned i = 0; i < SB_FLIR_PACKET_PIXELS; i++) {
			uint16_t v = le16(p + 4 + 2 * i);

			if (good && v >= SB_FLIR_RAW_LIMIT)
				img->bad_pixels++;
			if (!good || v >= SB_FLIR_RAW_LIMIT) {
				row[i] = SB_FLIR_RAW_INVALID;
				continue;
			}
			row[i] = v;
			img->valid_pixels++;
		}
	}
	return 0;
}

int sb_flir_parse_status(const uint8_t *status, size_t len, struct sb_flir_status *st)
{
	const cJSON *v;
	cJSON *o;

	memset(st, 0, sizeof(*st));
	st->shutter_temp_k = NAN;
	/* The text is NUL-terminated on the wire; do not read past len either way. */
	o = cJSON_ParseWithLength((const char *)status, strnlen((const char *)status, len));
	if (!o || !cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return sb_error_set(SB_ERR_PARSE, "FLIR status: not a JSON object (%zu bytes)",
		                    len);
	}
	v = cJSON_GetObjectItemCaseSensitive(o, "shutterState");
	if (cJSON_IsString(v))
		sb_strlcpy(st->shutter_state, v->valuestring, sizeof(st->shutter_state));
	v = cJSON_GetObjectItemCaseSensitive(o, "ffcState");
	if (cJSON_IsString(v))
		sb_strlcpy(st->ffc_state, v->valuestring, sizeof(st->ffc_state));
	v = cJSON_GetObjectItemCaseSensitive(o, "shutterTemperature");
	if (cJSON_IsNumber(v))
		st->shutter_temp_k = v->valuedouble;
	cJSON_Delete(o);
	return 0;
}

int sb_flir_encode(const struct sb_raw_image *img, const char *status, uint8_t *buf, size_t cap)
{
	unsigned per_row, npk;
	size_t thermal, slen = status ? strlen(status) + 1 : 0, total;
	uint8_t *p;

	if (img->width == 160 && img->height == 120)
		per_row = 2;
	else if (img->width == 80 && img->height == 60)
		per_row = 1;
	else
		return sb_error_set(SB_ERR_INVAL, "FLIR frames are 160x120 or 80x60, not %ux%u",
		                    img->width, img->height);
	npk = img->height * per_row;
	thermal = (size_t)npk * SB_FLIR_PACKET_BYTES;
	total = SB_FLIR_HEADER_BYTES + thermal + slen;
	if (total > cap)
		return sb_error_set(SB_ERR_RANGE, "FLIR frame of %zu bytes does not fit in %zu",
		                    total, cap);
	memcpy(buf, magic, sizeof(magic));
	put_le32(buf + 4, 1);
	put_le32(buf + 8, (uint32_t)(thermal + slen));
	put_le32(buf + 12, (uint32_t)thermal);
	put_le32(buf + 16, 0);
	put_le32(buf + 20, (uint32_t)slen);
	put_le32(buf + 24, 0);
	p = buf + SB_FLIR_HEADER_BYTES;
	for (unsigned k = 0; k < npk; k++, p += SB_FLIR_PACKET_BYTES) {
		const uint16_t *row = img->px + (size_t)(k / per_row) * img->width +
		                      (k % per_row) * SB_FLIR_PACKET_PIXELS;

		put_le16(p, (uint16_t)k);
		for (unsigned i = 0; i < SB_FLIR_PACKET_PIXELS; i++)
			put_le16(p + 4 + 2 * i, row[i]);
		put_le16(p + 2, packet_crc(p));
	}
	if (slen)
		memcpy(p, status, slen);
	return (int)total;
}

int sb_flir_stream_init(struct sb_flir_stream *s)
{
	memset(s, 0, sizeof(*s));
	s->buf = malloc(SB_FLIR_HEADER_BYTES + SB_FLIR_FRAME_MAX);
	if (!s->buf)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for the FLIR frame buffer");
	return 0;
}

void sb_flir_stream_release(struct sb_flir_stream *s)
{
	free(s->buf);
	s->buf = NULL;
}

static void stream_reset(struct sb_flir_stream *s)
{
	s->len = 0;
	s->need = 0;
	s->in_frame = false;
}

int sb_flir_stream_push(struct sb_flir_stream *s, const uint8_t *data, size_t len,
                        struct sb_flir_frame *f)
{
	const size_t cap = SB_FLIR_HEADER_BYTES + SB_FLIR_FRAME_MAX;
	size_t take;

	if (s->delivered) {
		s->delivered = false;
		stream_reset(s);
	}
	s->st.transfers++;
	s->st.bytes += len;
	if (!len)
		return 0;
	if (len >= sizeof(magic) && !memcmp(data, magic, sizeof(magic))) {
		if (s->in_frame)
			s->st.partial++;
		stream_reset(s);
		s->in_frame = true;
	} else if (!s->in_frame) {
		s->st.garbage_bytes += len;
		return 0;
	}
	take = s->need ? s->need - s->len : cap - s->len;
	if (take > len)
		take = len;
	memcpy(s->buf + s->len, data, take);
	s->len += take;
	s->st.garbage_bytes += len - take;
	if (!s->need && s->len >= SB_FLIR_HEADER_BYTES) {
		struct sb_flir_header h;

		if (sb_flir_parse_header(s->buf, s->len, &h) < 0) {
			s->st.bad_headers++;
			stream_reset(s);
			return 0;
		}
		s->need = SB_FLIR_HEADER_BYTES + (size_t)h.frame_size;
		if (s->len > s->need) {
			s->st.garbage_bytes += s->len - s->need;
			s->len = s->need;
		}
	}
	if (!s->need || s->len < s->need)
		return 0;
	s->delivered = true;
	if (sb_flir_split(s->buf, s->len, f) < 0) {
		s->st.bad_headers++;
		return 0;
	}
	if (f->ffc) {
		s->skip = 1; /* this frame and the next */
		s->st.ffc_dropped++;
		return 0;
	}
	if (s->skip) {
		s->skip--;
		s->st.ffc_dropped++;
		return 0;
	}
	s->st.frames++;
	return 1;
}
