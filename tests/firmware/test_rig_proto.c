/* SPDX-License-Identifier: MIT */
/*
 * The cooling rig's protocol, pure parts (firmware/proto/sb_rig_proto.c, the code the firmware
 * and the host both run): CRC, frames through the byte-at-a-time decoder (noise, damage,
 * lengths, truncation, split anywhere), payload codecs, limits and their EEPROM image, the
 * MAX31855 frame with the datasheet's examples.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sb_rig_proto.h"

/* Feed bytes; count the results; the last frame in *f. */
struct fed {
	unsigned frames, bad_crc, bad_len;
};

static struct fed feed(struct sb_rig_decoder *d, const uint8_t *p, size_t n, struct sb_rig_frame *f)
{
	struct fed r = {0};

	for (size_t i = 0; i < n; i++) {
		switch (sb_rig_decode_byte(d, p[i], f)) {
		case SB_RIG_DEC_FRAME:
			r.frames++;
			break;
		case SB_RIG_DEC_BAD_CRC:
			r.bad_crc++;
			break;
		case SB_RIG_DEC_BAD_LENGTH:
			r.bad_len++;
			break;
		default:
			break;
		}
	}
	return r;
}

Test(rig_proto, crc16_ccitt_false_check_value)
{
	/* The catalogued check value of CRC-16/CCITT-FALSE over "123456789". */
	cr_assert_eq(sb_rig_crc16(SB_RIG_CRC_INIT, (const uint8_t *)"123456789", 9), 0x29B1);
	cr_assert_eq(sb_rig_crc16(SB_RIG_CRC_INIT, NULL, 0), 0xFFFF);
}

Test(rig_proto, encode_layout)
{
	uint8_t buf[SB_RIG_MAX_FRAME], p[2] = {0x34, 0x12};
	size_t n = sb_rig_encode(buf, sizeof(buf), 0x42, SB_RIG_CMD_CLEAR_FAULTS, p, 2);

	cr_assert_eq(n, 8);
	cr_assert_eq(buf[0], SB_RIG_START);
	cr_assert_eq(buf[1], 2);
	cr_assert_eq(buf[2], 0x42);
	cr_assert_eq(buf[3], SB_RIG_CMD_CLEAR_FAULTS);
	cr_assert_eq(buf[4], 0x34);
	cr_assert_eq(buf[5], 0x12);
	cr_assert_eq(sb_rig_get16(buf + 6), sb_rig_crc16(SB_RIG_CRC_INIT, buf + 1, 5));
	/* Too long, or no room. */
	cr_assert_eq(sb_rig_encode(buf, sizeof(buf), 0, 1, buf, SB_RIG_MAX_PAYLOAD + 1), 0);
	cr_assert_eq(sb_rig_encode(buf, 7, 0, 1, p, 2), 0);
}

Test(rig_proto, every_length_round_trips)
{
	struct sb_rig_decoder d;
	struct sb_rig_frame f;
	uint8_t buf[SB_RIG_MAX_FRAME], p[SB_RIG_MAX_PAYLOAD];

	for (unsigned i = 0; i < sizeof(p); i++)
		p[i] = (uint8_t)(SB_RIG_START + i); /* start bytes inside the payload too */
	sb_rig_decoder_init(&d);
	for (uint8_t len = 0; len <= SB_RIG_MAX_PAYLOAD; len++) {
		size_t n = sb_rig_encode(buf, sizeof(buf), len, 0x10 + len % 7, p, len);
		struct fed r = feed(&d, buf, n, &f);

		cr_assert_eq(r.frames, 1, "len %u", len);
		cr_assert_eq(f.len, len);
		cr_assert_eq(f.seq, len);
		cr_assert_eq(f.cmd, 0x10 + len % 7);
		cr_assert_eq(memcmp(f.payload, p, len), 0);
		cr_assert_not(sb_rig_decoder_busy(&d));
	}
}

Test(rig_proto, noise_damage_and_resync)
{
	struct sb_rig_decoder d;
	struct sb_rig_frame f;
	uint8_t buf[3 * SB_RIG_MAX_FRAME], p[4] = {1, 2, 3, 4};
	size_t n = 0;
	struct fed r;

	sb_rig_decoder_init(&d);
	/* Noise without a start byte is skipped. */
	buf[n++] = 0x00;
	buf[n++] = 0xFF;
	buf[n++] = 0x5A;
	n += sb_rig_encode(buf + n, sizeof(buf) - n, 1, SB_RIG_CMD_SET_FANS, p, 4);
	r = feed(&d, buf, n, &f);
	cr_assert_eq(r.frames, 1);
	cr_assert_eq(f.seq, 1);

	/* Every single bit flip after the start byte is caught (a CRC error, or a length error,
	 * or a frame that is not complete yet). */
	n = sb_rig_encode(buf, sizeof(buf), 2, SB_RIG_CMD_SET_FANS, p, 4);
	for (size_t byte = 1; byte < n; byte++)
		for (int bit = 0; bit < 8; bit++) {
			uint8_t tmp[SB_RIG_MAX_FRAME];

			memcpy(tmp, buf, n);
			tmp[byte] ^= (uint8_t)(1 << bit);
			sb_rig_decoder_init(&d);
			r = feed(&d, tmp, n, &f);
			cr_assert_eq(r.frames, 0, "flip byte %zu bit %d went through", byte, bit);
		}

	/* A bad CRC reports the header, then the next frame decodes. */
	sb_rig_decoder_init(&d);
	n = sb_rig_encode(buf, sizeof(buf), 3, SB_RIG_CMD_GET_STATUS, NULL, 0);
	buf[n - 2] ^= 0xFF;
	n += sb_rig_encode(buf + n, sizeof(buf) - n, 4, SB_RIG_CMD_GET_STATUS, NULL, 0);
	cr_assert_eq(sb_rig_decode_byte(&d, buf[0], &f), SB_RIG_DEC_MORE);
	r = feed(&d, buf + 1, 5, &f);
	cr_assert_eq(r.bad_crc, 1);
	cr_assert_eq(f.seq, 3);
	cr_assert_eq(f.cmd, SB_RIG_CMD_GET_STATUS);
	r = feed(&d, buf + 6, n - 6, &f);
	cr_assert_eq(r.frames, 1);
	cr_assert_eq(f.seq, 4);
}

Test(rig_proto, bad_length_then_hunt)
{
	struct sb_rig_decoder d;
	struct sb_rig_frame f;
	uint8_t hdr[] = {SB_RIG_START, 200, 9, SB_RIG_CMD_SET_FANS, 1, 2, 3};
	uint8_t buf[SB_RIG_MAX_FRAME];
	size_t n;

	sb_rig_decoder_init(&d);
	cr_assert_eq(feed(&d, hdr, 3, &f).bad_len, 0);
	cr_assert_eq(sb_rig_decode_byte(&d, hdr[3], &f), SB_RIG_DEC_BAD_LENGTH);
	cr_assert_eq(f.len, 200);
	cr_assert_eq(f.seq, 9);
	cr_assert_eq(f.cmd, SB_RIG_CMD_SET_FANS);
	cr_assert_not(sb_rig_decoder_busy(&d));
	feed(&d, hdr + 4, 3, &f);
	n = sb_rig_encode(buf, sizeof(buf), 10, SB_RIG_CMD_IDENTIFY, NULL, 0);
	cr_assert_eq(feed(&d, buf, n, &f).frames, 1);
	cr_assert_eq(f.seq, 10);
}

Test(rig_proto, truncation)
{
	struct sb_rig_decoder d;
	struct sb_rig_frame f;
	uint8_t buf[SB_RIG_MAX_FRAME], p[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	size_t n = sb_rig_encode(buf, sizeof(buf), 5, SB_RIG_CMD_SET_LIMITS, p, 9);

	sb_rig_decoder_init(&d);
	cr_assert_eq(sb_rig_decoder_timeout(&d, &f), SB_RIG_DEC_MORE, "idle: nothing to drop");
	/* Cut after every possible byte: the header known so far is reported. */
	for (size_t cut = 1; cut < n; cut++) {
		sb_rig_decoder_init(&d);
		feed(&d, buf, cut, &f);
		cr_assert(sb_rig_decoder_busy(&d));
		memset(&f, 0xEE, sizeof(f));
		cr_assert_eq(sb_rig_decoder_timeout(&d, &f), SB_RIG_DEC_TRUNCATED);
		cr_assert_eq(f.seq, cut > 2 ? 5 : 0, "cut %zu", cut);
		cr_assert_eq(f.cmd, cut > 3 ? SB_RIG_CMD_SET_LIMITS : 0, "cut %zu", cut);
		cr_assert_not(sb_rig_decoder_busy(&d));
		cr_assert_eq(feed(&d, buf, n, &f).frames, 1, "resync after cut %zu", cut);
	}
}

Test(rig_proto, random_bytes_never_break_it)
{
	struct sb_rig_decoder d;
	struct sb_rig_frame f;
	uint32_t x = 12345;

	sb_rig_decoder_init(&d);
	for (int i = 0; i < 2000000; i++) {
		enum sb_rig_decode_result r;

		x = x * 1664525u + 1013904223u;
		r = sb_rig_decode_byte(&d, (uint8_t)(x >> 24), &f);
		if (r == SB_RIG_DEC_FRAME)
			cr_assert_leq(f.len, SB_RIG_MAX_PAYLOAD);
	}
}

Test(rig_proto, payload_codecs)
{
	struct sb_rig_ident id = {1, 2, 3, 4, 0xDEADBEEF, 2, 2}, id2;
	struct sb_rig_status st = {.flags = 3,
	                           .faults = 0x1FF,
	                           .active = 0x101,
	                           .uptime_ms = 0x89ABCDEF,
	                           .host_age_ms = 4242,
	                           .duty_pm = {1000, 7},
	                           .rpm = {65535, 1234},
	                           .tc_q2 = {-1000, 8000},
	                           .cj_q4 = {-880, 2032},
	                           .tc_fault = {SB_RIG_TC_OPEN, SB_RIG_TC_NO_ANSWER}},
	                     st2;
	struct sb_rig_limits l = {-5, 600000, 60000, 3}, l2;
	uint8_t buf[64];

	sb_rig_ident_encode(buf, &id);
	sb_rig_ident_decode(buf, &id2);
	cr_assert_eq(id2.proto, 1);
	cr_assert_eq(id2.fw_major, 2);
	cr_assert_eq(id2.fw_minor, 3);
	cr_assert_eq(id2.fw_patch, 4);
	cr_assert_eq(id2.build_id, 0xDEADBEEF);
	cr_assert_eq(id2.fans, 2);
	cr_assert_eq(id2.sensors, 2);
	cr_assert_eq(buf[4], 0xEF, "little-endian");
	memset(&st2, 0, sizeof(st2));
	sb_rig_status_encode(buf, &st);
	sb_rig_status_decode(buf, &st2);
	cr_assert_eq(st2.flags, st.flags);
	cr_assert_eq(st2.faults, st.faults);
	cr_assert_eq(st2.active, st.active);
	cr_assert_eq(st2.uptime_ms, st.uptime_ms);
	cr_assert_eq(st2.host_age_ms, st.host_age_ms);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(st2.duty_pm[i], st.duty_pm[i]);
		cr_assert_eq(st2.rpm[i], st.rpm[i]);
		cr_assert_eq(st2.tc_q2[i], st.tc_q2[i]);
		cr_assert_eq(st2.cj_q4[i], st.cj_q4[i]);
		cr_assert_eq(st2.tc_fault[i], st.tc_fault[i]);
	}
	sb_rig_limits_encode(buf, &l);
	sb_rig_limits_decode(buf, &l2);
	cr_assert_eq(l2.heatsink_max_q2, -5);
	cr_assert_eq(l2.silence_ms, 600000);
	cr_assert_eq(l2.stall_ms, 60000);
	cr_assert_eq(l2.fan_mask, 3);
}

Test(rig_proto, limits_ranges)
{
	struct sb_rig_limits l;

	sb_rig_limits_default(&l);
	cr_assert(sb_rig_limits_valid(&l));
	l.heatsink_max_q2 = SB_RIG_HEATSINK_MIN_Q2 - 1;
	cr_assert_not(sb_rig_limits_valid(&l));
	l.heatsink_max_q2 = SB_RIG_HEATSINK_MAX_Q2;
	cr_assert(sb_rig_limits_valid(&l));
	l.silence_ms = SB_RIG_SILENCE_MIN_MS - 1;
	cr_assert_not(sb_rig_limits_valid(&l));
	l.silence_ms = SB_RIG_SILENCE_MAX_MS + 1;
	cr_assert_not(sb_rig_limits_valid(&l));
	l.silence_ms = SB_RIG_SILENCE_MAX_MS;
	l.stall_ms = SB_RIG_STALL_MAX_MS + 1;
	cr_assert_not(sb_rig_limits_valid(&l));
	l.stall_ms = SB_RIG_STALL_MIN_MS;
	l.fan_mask = 1 << SB_RIG_FANS;
	cr_assert_not(sb_rig_limits_valid(&l));
	l.fan_mask = 0;
	cr_assert(sb_rig_limits_valid(&l));
}

Test(rig_proto, eeprom_image)
{
	struct sb_rig_limits l = {66 * 4, 1500, 900, 1}, got;
	uint8_t img[SB_RIG_EEPROM_BYTES];

	sb_rig_eeprom_encode(img, &l);
	cr_assert(sb_rig_eeprom_decode(img, &got));
	cr_assert_eq(got.heatsink_max_q2, l.heatsink_max_q2);
	cr_assert_eq(got.silence_ms, 1500);
	/* Any single damaged bit gives the defaults. */
	for (size_t byte = 0; byte < sizeof(img); byte++)
		for (int bit = 0; bit < 8; bit++) {
			uint8_t bad[SB_RIG_EEPROM_BYTES];

			memcpy(bad, img, sizeof(bad));
			bad[byte] ^= (uint8_t)(1 << bit);
			cr_assert_not(sb_rig_eeprom_decode(bad, &got), "byte %zu bit %d", byte,
			              bit);
			cr_assert_eq(got.silence_ms, SB_RIG_DEFAULT_SILENCE_MS);
			cr_assert_eq(got.heatsink_max_q2, SB_RIG_DEFAULT_HEATSINK_Q2);
		}
	/* A blank (erased) EEPROM. */
	memset(img, 0xFF, sizeof(img));
	cr_assert_not(sb_rig_eeprom_decode(img, &got));
}

/* A MAX31855 frame from the datasheet's 14-bit and 12-bit codes. */
static uint32_t frame(uint16_t tc14, uint16_t cj12, unsigned faults)
{
	return (uint32_t)tc14 << 18 | (faults ? 1u << 16 : 0) | (uint32_t)cj12 << 4 | faults;
}

Test(rig_proto, max31855_datasheet_codes)
{
	static const struct {
		uint16_t code;
		int16_t q2;
	} tc[] = {{0x1900, 6400}, {0x0064, 100}, {0x0000, 0}, {0x3FFF, -1}, {0x3C18, -1000}};
	static const struct {
		uint16_t code;
		int16_t q4;
	} cj[] = {{0x7F0, 2032}, {0x190, 400}, {0x000, 0}, {0xFFF, -1}, {0xC90, -880}};
	int16_t t, c;

	/* Table 2 and 3 of the MAX31855 datasheet: +1600 C, +25 C, 0 C, -0.25 C, -250 C; cold
	 * junction +127 C, +25 C, 0 C, -0.0625 C, -55 C (paired so that no frame is all zero:
	 * that one reads as no converter). */
	for (size_t i = 0; i < 5; i++) {
		size_t j = (i + 1) % 5;

		cr_assert_eq(sb_rig_max31855_decode(frame(tc[i].code, cj[j].code, 0), &t, &c), 0,
		             "row %zu", i);
		cr_assert_eq(t, tc[i].q2, "row %zu: %d", i, t);
		cr_assert_eq(c, cj[j].q4, "row %zu: %d", j, c);
	}
	cr_assert_eq(sb_rig_max31855_decode(frame(0x64, 0x190, 1), &t, &c), SB_RIG_TC_OPEN);
	cr_assert_eq(sb_rig_max31855_decode(frame(0x64, 0x190, 2), &t, &c), SB_RIG_TC_SHORT_GND);
	cr_assert_eq(sb_rig_max31855_decode(frame(0x64, 0x190, 4), &t, &c), SB_RIG_TC_SHORT_VCC);
	cr_assert_eq(sb_rig_max31855_decode(0xFFFFFFFFu, &t, &c), SB_RIG_TC_NO_ANSWER);
	cr_assert_eq(sb_rig_max31855_decode(0, &t, &c), SB_RIG_TC_NO_ANSWER);
	cr_assert_eq(sb_rig_max31855_decode(frame(0x64, 0x190, 0) | 1u << 17, &t, &c),
	             SB_RIG_TC_NO_ANSWER, "reserved bit D17");
	cr_assert_eq(sb_rig_max31855_decode(frame(0x64, 0x190, 0) | 1u << 16, &t, &c),
	             SB_RIG_TC_NO_ANSWER, "fault bit without a cause");
}

Test(rig_proto, names)
{
	cr_assert_str_eq(sb_rig_status_name(SB_RIG_ERR_BAD_CRC), "bad CRC");
	cr_assert_str_eq(sb_rig_status_name(200), "?");
	cr_assert_str_eq(sb_rig_fault_name(SB_RIG_FAULT_HOST_SILENCE), "host silence");
	cr_assert_str_eq(sb_rig_fault_name(SB_RIG_FAULT_EEPROM), "EEPROM defaults");
	cr_assert_str_eq(sb_rig_fault_name(3), "?");
}
