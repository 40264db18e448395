/* SPDX-License-Identifier: MIT */
/*
 * The cooling rig's protocol, pure parts (sb_rig_proto.h): compiled into the firmware by
 * avr-gcc and into libstackbench by the host compiler. No I/O, no allocation, no floating point.
 */
#include <string.h>

#include "sb_rig_proto.h"

enum dec_state {
	DEC_HUNT = 0,
	DEC_LEN,
	DEC_SEQ,
	DEC_CMD,
	DEC_PAYLOAD,
	DEC_CRC0,
	DEC_CRC1,
};

uint16_t sb_rig_crc16(uint16_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= (uint16_t)(*p++) << 8;
		for (uint8_t i = 0; i < 8; i++)
			crc =
			    crc & 0x8000u ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
	}
	return crc;
}

void sb_rig_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

void sb_rig_put32(uint8_t *p, uint32_t v)
{
	sb_rig_put16(p, (uint16_t)v);
	sb_rig_put16(p + 2, (uint16_t)(v >> 16));
}

uint16_t sb_rig_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

uint32_t sb_rig_get32(const uint8_t *p)
{
	return sb_rig_get16(p) | (uint32_t)sb_rig_get16(p + 2) << 16;
}

size_t sb_rig_encode(uint8_t *buf, size_t cap, uint8_t seq, uint8_t cmd, const uint8_t *payload,
                     uint8_t len)
{
	size_t total = (size_t)SB_RIG_HEADER_BYTES + len + SB_RIG_CRC_BYTES;
	uint16_t crc;

	if (len > SB_RIG_MAX_PAYLOAD || cap < total)
		return 0;
	buf[0] = SB_RIG_START;
	buf[1] = len;
	buf[2] = seq;
	buf[3] = cmd;
	if (len)
		memcpy(buf + SB_RIG_HEADER_BYTES, payload, len);
	crc = sb_rig_crc16(SB_RIG_CRC_INIT, buf + 1, (size_t)len + 3);
	sb_rig_put16(buf + SB_RIG_HEADER_BYTES + len, crc);
	return total;
}

void sb_rig_decoder_init(struct sb_rig_decoder *d)
{
	memset(d, 0, sizeof(*d));
}

int sb_rig_decoder_busy(const struct sb_rig_decoder *d)
{
	return d->state != DEC_HUNT;
}

/* What is known of the header of the frame being received (0 where not received yet). */
static void header_out(const struct sb_rig_decoder *d, struct sb_rig_frame *out)
{
	out->len = d->state > DEC_LEN ? d->f.len : 0;
	out->seq = d->state > DEC_SEQ ? d->f.seq : 0;
	out->cmd = d->state > DEC_CMD ? d->f.cmd : 0;
}

enum sb_rig_decode_result sb_rig_decode_byte(struct sb_rig_decoder *d, uint8_t byte,
                                             struct sb_rig_frame *out)
{
	switch (d->state) {
	case DEC_HUNT:
		if (byte == SB_RIG_START) {
			d->state = DEC_LEN;
			d->crc = SB_RIG_CRC_INIT;
			d->f.len = d->f.seq = d->f.cmd = 0;
		}
		return SB_RIG_DEC_MORE;
	case DEC_LEN:
		d->f.len = byte;
		d->state = DEC_SEQ;
		break;
	case DEC_SEQ:
		d->f.seq = byte;
		d->state = DEC_CMD;
		break;
	case DEC_CMD:
		d->f.cmd = byte;
		d->crc = sb_rig_crc16(d->crc, &byte, 1);
		if (d->f.len > SB_RIG_MAX_PAYLOAD) {
			/* The end of this frame is unknown: answer it and hunt for the next one. */
			d->state = DEC_HUNT;
			out->len = d->f.len;
			out->seq = d->f.seq;
			out->cmd = d->f.cmd;
			return SB_RIG_DEC_BAD_LENGTH;
		}
		d->n = 0;
		d->state = d->f.len ? DEC_PAYLOAD : DEC_CRC0;
		return SB_RIG_DEC_MORE;
	case DEC_PAYLOAD:
		d->f.payload[d->n++] = byte;
		if (d->n == d->f.len)
			d->state = DEC_CRC0;
		break;
	case DEC_CRC0:
		d->n = byte; /* low byte of the CRC; the payload is complete */
		d->state = DEC_CRC1;
		return SB_RIG_DEC_MORE;
	case DEC_CRC1: {
		uint16_t got = (uint16_t)(d->n | (uint16_t)byte << 8);

		d->state = DEC_HUNT;
		if (got != d->crc) {
			out->len = d->f.len;
			out->seq = d->f.seq;
			out->cmd = d->f.cmd;
			return SB_RIG_DEC_BAD_CRC;
		}
		memcpy(out, &d->f, sizeof(*out));
		return SB_RIG_DEC_FRAME;
	}
	default:
		d->state = DEC_HUNT;
		return SB_RIG_DEC_MORE;
	}
	d->crc = sb_rig_crc16(d->crc, &byte, 1);
	return SB_RIG_DEC_MORE;
}

enum sb_rig_decode_result sb_rig_decoder_timeout(struct sb_rig_decoder *d, struct sb_rig_frame *out)
{
	if (d->state == DEC_HUNT)
		return SB_RIG_DEC_MORE;
	header_out(d, out);
	d->state = DEC_HUNT;
	return SB_RIG_DEC_TRUNCATED;
}

/* ---- payloads ----------------------------------------------------------------------------- */

void sb_rig_ident_encode(uint8_t *p, const struct sb_rig_ident *id)
{
	p[0] = id->proto;
	p[1] = id->fw_major;
	p[2] = id->fw_minor;
	p[3] = id->fw_patch;
	sb_rig_put32(p + 4, id->build_id);
	p[8] = id->fans;
	p[9] = id->sensors;
}

void sb_rig_ident_decode(const uint8_t *p, struct sb_rig_ident *id)
{
	id->proto = p[0];
	id->fw_major = p[1];
	id->fw_minor = p[2];
	id->fw_patch = p[3];
	id->build_id = sb_rig_get32(p + 4);
	id->fans = p[8];
	id->sensors = p[9];
}

void sb_rig_status_encode(uint8_t *p, const struct sb_rig_status *st)
{
	p[0] = st->flags;
	sb_rig_put16(p + 1, st->faults);
	sb_rig_put16(p + 3, st->active);
	sb_rig_put32(p + 5, st->uptime_ms);
	sb_rig_put32(p + 9, st->host_age_ms);
	p += 13;
	for (uint8_t i = 0; i < SB_RIG_FANS; i++, p += 4) {
		sb_rig_put16(p, st->duty_pm[i]);
		sb_rig_put16(p + 2, st->rpm[i]);
	}
	for (uint8_t i = 0; i < SB_RIG_SENSORS; i++, p += 5) {
		sb_rig_put16(p, (uint16_t)st->tc_q2[i]);
		sb_rig_put16(p + 2, (uint16_t)st->cj_q4[i]);
		p[4] = st->tc_fault[i];
	}
}

void sb_rig_status_decode(const uint8_t *p, struct sb_rig_status *st)
{
	st->flags = p[0];
	st->faults = sb_rig_get16(p + 1);
	st->active = sb_rig_get16(p + 3);
	st->uptime_ms = sb_rig_get32(p + 5);
	st->host_age_ms = sb_rig_get32(p + 9);
	p += 13;
	for (uint8_t i = 0; i < SB_RIG_FANS; i++, p += 4) {
		st->duty_pm[i] = sb_rig_get16(p);
		st->rpm[i] = sb_rig_get16(p + 2);
	}
	for (uint8_t i = 0; i < SB_RIG_SENSORS; i++, p += 5) {
		st->tc_q2[i] = (int16_t)sb_rig_get16(p);
		st->cj_q4[i] = (int16_t)sb_rig_get16(p + 2);
		st->tc_fault[i] = p[4];
	}
}

void sb_rig_limits_encode(uint8_t *p, const struct sb_rig_limits *l)
{
	sb_rig_put16(p, (uint16_t)l->heatsink_max_q2);
	sb_rig_put32(p + 2, l->silence_ms);
	sb_rig_put16(p + 6, l->stall_ms);
	p[8] = l->fan_mask;
}

void sb_rig_limits_decode(const uint8_t *p, struct sb_rig_limits *l)
{
	l->heatsink_max_q2 = (int16_t)sb_rig_get16(p);
	l->silence_ms = sb_rig_get32(p + 2);
	l->stall_ms = sb_rig_get16(p + 6);
	l->fan_mask = p[8];
}

int sb_rig_limits_valid(const struct sb_rig_limits *l)
{
	return l->heatsink_max_q2 >= SB_RIG_HEATSINK_MIN_Q2 &&
	       l->heatsink_max_q2 <= SB_RIG_HEATSINK_MAX_Q2 &&
	       l->silence_ms >= SB_RIG_SILENCE_MIN_MS && l->silence_ms <= SB_RIG_SILENCE_MAX_MS &&
	       l->stall_ms >= SB_RIG_STALL_MIN_MS && l->stall_ms <= SB_RIG_STALL_MAX_MS &&
	       l->fan_mask < (1u << SB_RIG_FANS);
}

void sb_rig_limits_default(struct sb_rig_limits *l)
{
	l->heatsink_max_q2 = SB_RIG_DEFAULT_HEATSINK_Q2;
	l->silence_ms = SB_RIG_DEFAULT_SILENCE_MS;
	l->stall_ms = SB_RIG_DEFAULT_STALL_MS;
	l->fan_mask = SB_RIG_DEFAULT_FAN_MASK;
}

void sb_rig_eeprom_encode(uint8_t *img, const struct sb_rig_limits *l)
{
	sb_rig_put16(img, SB_RIG_EEPROM_MAGIC);
	img[2] = SB_RIG_PROTO_VERSION;
	sb_rig_limits_encode(img + 3, l);
	sb_rig_put16(img + 3 + SB_RIG_LIMITS_BYTES,
	             sb_rig_crc16(SB_RIG_CRC_INIT, img, 3 + SB_RIG_LIMITS_BYTES));
}

int sb_rig_eeprom_decode(const uint8_t *img, struct sb_rig_limits *l)
{
	struct sb_rig_limits got;

	sb_rig_limits_default(l);
	if (sb_rig_get16(img) != SB_RIG_EEPROM_MAGIC || img[2] != SB_RIG_PROTO_VERSION ||
	    sb_rig_get16(img + 3 + SB_RIG_LIMITS_BYTES) !=
	        sb_rig_crc16(SB_RIG_CRC_INIT, img, 3 + SB_RIG_LIMITS_BYTES))
		return 0;
	sb_rig_limits_decode(img + 3, &got);
	if (!sb_rig_limits_valid(&got))
		return 0;
	*l = got;
	return 1;
}

/* ---- MAX31855 ----------------------------------------------------------------------------- */

uint8_t sb_rig_max31855_decode(uint32_t raw, int16_t *tc_q2, int16_t *cj_q4)
{
	uint16_t tc = (uint16_t)(raw >> 18);           /* 14 bits */
	uint16_t cj = (uint16_t)((raw >> 4) & 0xFFFu); /* 12 bits */
	uint8_t fault = 0;

	/* Sign-extend the 14-bit and 12-bit two's-complement fields. */
	*tc_q2 = (int16_t)(tc & 0x2000u ? tc | 0xC000u : tc);
	*cj_q4 = (int16_t)(cj & 0x800u ? cj | 0xF000u : cj);
	/* D17 and D3 are reserved (always 0): set, or a frame of all 0s or all 1s, means no
	 * converter answered (MISO floating or held). */
	if (raw == 0 || raw == 0xFFFFFFFFu || raw & (1ul << 17) || raw & (1ul << 3))
		return SB_RIG_TC_NO_ANSWER;
	if (raw & 1u)
		fault |= SB_RIG_TC_OPEN;
	if (raw & 2u)
		fault |= SB_RIG_TC_SHORT_GND;
	if (raw & 4u)
		fault |= SB_RIG_TC_SHORT_VCC;
	/* D16 is set with any of the three; alone it is a converter fault too. */
	if (raw & (1ul << 16) && !fault)
		fault = SB_RIG_TC_NO_ANSWER;
	return fault;
}

/* ---- names -------------------------------------------------------------------------------- */

const char *sb_rig_status_name(uint8_t code)
{
	static const char *const names[] = {
	    "ok",           "bad CRC",   "bad length",   "unknown command",
	    "out of range", "fail-safe", "fault active", "truncated frame",
	};

	return code < sizeof(names) / sizeof(names[0]) ? names[code] : "?";
}

const char *sb_rig_fault_name(uint16_t bit)
{
	static const char *const names[] = {
	    "overtemp",        "heatsink thermocouple", "ambient thermocouple", "host silence",
	    "fan 0 stall",     "fan 1 stall",           "watchdog reset",       "reset",
	    "EEPROM defaults",
	};

	for (uint8_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (bit == 1u << i)
			return names[i];
	return "?";
}
