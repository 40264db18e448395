/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the cooling rig's host-side frame parser (firmware/proto/sb_rig_proto.c,
 * the code thermal/rig.c runs on every byte from the controller): the byte-at-a-time decoder
 * with timeouts in the middle of frames, and for every frame it accepts, the answer decoded as
 * the client does (status byte, then the command's payload when its length is right).
 *
 * Input: byte 0 is a timeout mask (bit i: the line goes quiet after the byte at i mod 8 of each
 * block of 8), the rest is the line. The seeds (corpus/rig_frame/) were made with the
 * protocol's own encoder: answers to IDENTIFY, GET_STATUS (fail-safe, host silence),
 * GET_LIMITS, CLEAR_FAULTS, a refused SET_FANS, a bad CRC, a LEN above the maximum, an answer
 * cut by a timeout, noise, two answers back to back, an EEPROM image. Build (tests/fuzz/README.md):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Ifirmware/include \
 *         tests/fuzz/fuzz_rig_frame.c firmware/proto/sb_rig_proto.c -o fuzz_rig_frame
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sb_rig_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint32_t sink; /* keeps the decoded values alive */

static void answer(const struct sb_rig_frame *f)
{
	const uint8_t *p = f->payload + 1;
	size_t n = f->len ? f->len - 1u : 0;

	if (f->len > SB_RIG_MAX_PAYLOAD)
		__builtin_trap(); /* the decoder never accepts more than the maximum */
	if (!(f->cmd & SB_RIG_RESPONSE) || !f->len)
		return;
	sink += (uint32_t)strlen(sb_rig_status_name(f->payload[0]));
	if (f->payload[0] != SB_RIG_OK)
		return;
	switch (f->cmd & (uint8_t)~SB_RIG_RESPONSE) {
	case SB_RIG_CMD_IDENTIFY:
		if (n == SB_RIG_IDENT_BYTES) {
			struct sb_rig_ident id;

			sb_rig_ident_decode(p, &id);
			sink += id.build_id;
		}
		break;
	case SB_RIG_CMD_GET_STATUS:
		if (n == SB_RIG_STATUS_BYTES) {
			struct sb_rig_status st;

			sb_rig_status_decode(p, &st);
			for (unsigned i = 0; i < 16; i++)
				if (st.faults & (1u << i))
					sink += (uint32_t)strlen(
					    sb_rig_fault_name((uint16_t)(1u << i)));
			sink += st.uptime_ms + (uint32_t)st.tc_q2[0];
		}
		break;
	case SB_RIG_CMD_GET_LIMITS:
		if (n == SB_RIG_LIMITS_BYTES + 1) {
			struct sb_rig_limits l;

			sb_rig_limits_decode(p, &l);
			sink += (uint32_t)sb_rig_limits_valid(&l);
		}
		break;
	case SB_RIG_CMD_CLEAR_FAULTS:
		if (n == 2)
			sink += sb_rig_get16(p);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_rig_decoder d;
	struct sb_rig_frame f;
	uint8_t quiet;

	if (!size)
		return 0;
	quiet = data[0];
	sb_rig_decoder_init(&d);
	for (size_t i = 1; i < size; i++) {
		enum sb_rig_decode_result r = sb_rig_decode_byte(&d, data[i], &f);

		if (r == SB_RIG_DEC_FRAME)
			answer(&f);
		else if (r == SB_RIG_DEC_BAD_CRC || r == SB_RIG_DEC_BAD_LENGTH)
			sink += f.seq;
		if (quiet & (1u << (i % 8)) &&
		    sb_rig_decoder_timeout(&d, &f) == SB_RIG_DEC_TRUNCATED)
			sink += f.cmd;
	}
	/* The EEPROM image and the MAX31855 frame, from the same bytes. */
	if (size >= 1 + SB_RIG_EEPROM_BYTES) {
		struct sb_rig_limits l;

		sink += (uint32_t)sb_rig_eeprom_decode(data + 1, &l);
	}
	if (size >= 5) {
		int16_t t, cj;

		sink += sb_rig_max31855_decode(sb_rig_get32(data + 1), &t, &cj);
	}
	return 0;
}
