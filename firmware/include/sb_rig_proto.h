/* SPDX-License-Identifier: MIT */
/*
 * The cooling rig's serial protocol: the one description of the frames that the firmware
 * (avr-gcc, C11) and the host driver (thermal/rig.c, C17) both include. docs/rig-protocol.md
 * explains it; sb_rig_proto.c holds the pure parts (CRC, frame encoder and byte-at-a-time
 * decoder, payload codecs, the MAX31855 frame decoder, the EEPROM image of the limits): bytes
 * in, structs out, no I/O, no allocation, so the same code runs in the MCU and in the host's
 * tests and fuzzer.
 *
 * A frame, request or response:
 *
 *   0xA5 | LEN | SEQ | CMD | PAYLOAD (LEN bytes, 0..SB_RIG_MAX_PAYLOAD) | CRC16 (LE)
 *
 * CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR) over
 * LEN, SEQ, CMD and the payload. Multi-byte fields are little-endian. A response carries the
 * request's SEQ, CMD | 0x80, and a status byte (enum sb_rig_status_code) as its first payload
 * byte; the rest of the payload is the command's answer (only when the status is OK).
 */
#ifndef SB_RIG_PROTO_H
#define SB_RIG_PROTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SB_RIG_PROTO_VERSION 1

#define SB_RIG_START 0xA5
#define SB_RIG_MAX_PAYLOAD 48
#define SB_RIG_HEADER_BYTES 4 /* start, len, seq, cmd */
#define SB_RIG_CRC_BYTES 2
#define SB_RIG_MAX_FRAME (SB_RIG_HEADER_BYTES + SB_RIG_MAX_PAYLOAD + SB_RIG_CRC_BYTES)
#define SB_RIG_RESPONSE 0x80 /* CMD bit of a response */

/* The serial line: 500000 baud 8N1 (exact at 16 MHz with U2X, and on the FT232R). */
#define SB_RIG_BAUD 500000u
/* A frame whose next byte does not come within this time is dropped (TRUNCATED). */
#define SB_RIG_BYTE_TIMEOUT_MS 20u

/* The board: fan channels and thermocouple converters. */
#define SB_RIG_FANS 2
#define SB_RIG_SENSORS 2
#define SB_RIG_SENSOR_HEATSINK 0
#define SB_RIG_SENSOR_AMBIENT 1

/* Commands. */
enum sb_rig_cmd {
	SB_RIG_CMD_IDENTIFY = 0x01,     /* -> struct sb_rig_ident */
	SB_RIG_CMD_SET_FANS = 0x02,     /* u16 duty per fan, per mille (0..1000) */
	SB_RIG_CMD_GET_STATUS = 0x03,   /* -> struct sb_rig_status */
	SB_RIG_CMD_SET_LIMITS = 0x04,   /* struct sb_rig_limits; stored in EEPROM */
	SB_RIG_CMD_GET_LIMITS = 0x05,   /* -> struct sb_rig_limits + source byte */
	SB_RIG_CMD_CLEAR_FAULTS = 0x06, /* u16 mask -> u16 faults still latched */
	SB_RIG_CMD_WATCHDOG_TEST = 0x07 /* "WDOG": answer, then hang until the watchdog resets */
};

/* Status byte of every response. */
enum sb_rig_status_code {
	SB_RIG_OK = 0,
	SB_RIG_ERR_BAD_CRC = 1,      /* the frame's CRC is wrong */
	SB_RIG_ERR_BAD_LENGTH = 2,   /* LEN above SB_RIG_MAX_PAYLOAD, or wrong for the command */
	SB_RIG_ERR_UNKNOWN_CMD = 3,  /* no such command */
	SB_RIG_ERR_OUT_OF_RANGE = 4, /* a value outside its range (duty, limit, magic) */
	SB_RIG_ERR_FAILSAFE = 5,     /* SET_FANS refused: the fail-safe holds the fans at 100 % */
	SB_RIG_ERR_FAULT_ACTIVE = 6, /* CLEAR_FAULTS: a condition is still present */
	SB_RIG_ERR_TRUNCATED = 7     /* the frame stopped for SB_RIG_BYTE_TIMEOUT_MS */
};

/*
 * Faults. Each is latched when it happens; the fail-safe (all fans at 100 %) holds while any
 * is latched, and only CLEAR_FAULTS ends it — refused for a fault whose condition is still
 * present (sb_rig_status.active).
 */
enum sb_rig_fault {
	SB_RIG_FAULT_OVERTEMP = 1u << 0,     /* heatsink at or above its limit */
	SB_RIG_FAULT_TC_HEATSINK = 1u << 1,  /* heatsink thermocouple: open, short, no answer */
	SB_RIG_FAULT_TC_AMBIENT = 1u << 2,   /* ambient thermocouple: idem */
	SB_RIG_FAULT_HOST_SILENCE = 1u << 3, /* no valid frame for limits.silence_ms */
	SB_RIG_FAULT_FAN0_STALL = 1u << 4,   /* fan driven but no tachometer pulse for stall_ms */
	SB_RIG_FAULT_FAN1_STALL = 1u << 5,
	SB_RIG_FAULT_WATCHDOG = 1u << 6, /* the MCU was reset by its watchdog */
	SB_RIG_FAULT_RESET = 1u << 7,    /* power-on, brown-out or external reset */
	SB_RIG_FAULT_EEPROM = 1u << 8    /* limits in EEPROM corrupt or blank: defaults in use */
};
#define SB_RIG_FAULT_ALL 0x01FFu

/* Thermocouple fault bits (sb_rig_status.tc_fault). */
enum sb_rig_tc_fault {
	SB_RIG_TC_OPEN = 1u << 0,      /* MAX31855 OC */
	SB_RIG_TC_SHORT_GND = 1u << 1, /* SCG */
	SB_RIG_TC_SHORT_VCC = 1u << 2, /* SCV */
	SB_RIG_TC_NO_ANSWER = 1u << 3  /* all-0 / all-1 frame or reserved bits set */
};

/* sb_rig_status.flags */
#define SB_RIG_FLAG_FAILSAFE 0x01u /* fans held at 100 % */
#define SB_RIG_FLAG_DEFAULTS 0x02u /* limits are the defaults (EEPROM corrupt or blank) */

#define SB_RIG_DUTY_MAX 1000u /* per mille */

/* IDENTIFY */
struct sb_rig_ident {
	uint8_t proto; /* SB_RIG_PROTO_VERSION of the firmware */
	uint8_t fw_major, fw_minor, fw_patch;
	uint32_t build_id; /* first 32 bits of the SHA-256 of the firmware sources */
	uint8_t fans, sensors;
};
#define SB_RIG_IDENT_BYTES 10

/* GET_STATUS */
struct sb_rig_status {
	uint8_t flags;
	uint16_t faults;               /* latched */
	uint16_t active;               /* conditions present now */
	uint32_t uptime_ms;            /* since the last reset */
	uint32_t host_age_ms;          /* since the last valid frame before this one */
	uint16_t duty_pm[SB_RIG_FANS]; /* what the outputs drive now (1000 in the fail-safe) */
	uint16_t rpm[SB_RIG_FANS];
	int16_t tc_q2[SB_RIG_SENSORS]; /* thermocouple, 0.25 C */
	int16_t cj_q4[SB_RIG_SENSORS]; /* cold junction, 0.0625 C */
	uint8_t tc_fault[SB_RIG_SENSORS];
};
#define SB_RIG_STATUS_BYTES (1 + 2 + 2 + 4 + 4 + 4 * SB_RIG_FANS + 5 * SB_RIG_SENSORS)

/* SET_LIMITS / GET_LIMITS */
struct sb_rig_limits {
	int16_t heatsink_max_q2; /* fail-safe at or above this heatsink temperature, 0.25 C */
	uint32_t silence_ms;     /* fail-safe after this long without a valid frame */
	uint16_t stall_ms;       /* a fan driven >= SB_RIG_STALL_MIN_PM without a pulse this long */
	uint8_t fan_mask;        /* fans fitted (stall detection), bit per channel */
};
#define SB_RIG_LIMITS_BYTES 9

/* Ranges (inclusive) and defaults of the limits. */
#define SB_RIG_HEATSINK_MIN_Q2 (20 * 4)
#define SB_RIG_HEATSINK_MAX_Q2 (125 * 4)
#define SB_RIG_SILENCE_MIN_MS 100u
#define SB_RIG_SILENCE_MAX_MS 600000u
#define SB_RIG_STALL_MIN_MS 500u
#define SB_RIG_STALL_MAX_MS 60000u
#define SB_RIG_DEFAULT_HEATSINK_Q2 (70 * 4)
#define SB_RIG_DEFAULT_SILENCE_MS 5000u
#define SB_RIG_DEFAULT_STALL_MS 3000u
#define SB_RIG_DEFAULT_FAN_MASK 0x03u

#define SB_RIG_STALL_MIN_PM 200u   /* below 20 % duty many fans stop: no stall check */
#define SB_RIG_OVERTEMP_HYST_Q2 8  /* OVERTEMP clears 2 C below the limit */
#define SB_RIG_TC_FAULT_READS 3    /* consecutive bad reads before a thermocouple fault */
#define SB_RIG_TC_PERIOD_MS 100u   /* the converters are read this often */
#define SB_RIG_RPM_PERIOD_MS 1000u /* tachometer window */
#define SB_RIG_WATCHDOG_MAGIC "WDOG"

/* The EEPROM image of the limits: magic, version, the limits, CRC-16 of what precedes it. */
#define SB_RIG_EEPROM_MAGIC 0x5252u /* "RR" */
#define SB_RIG_EEPROM_BYTES (2 + 1 + SB_RIG_LIMITS_BYTES + 2)

/* A decoded frame. */
struct sb_rig_frame {
	uint8_t len, seq, cmd;
	uint8_t payload[SB_RIG_MAX_PAYLOAD];
};

/* The byte-at-a-time decoder (both ends). */
struct sb_rig_decoder {
	uint8_t state, n;
	uint16_t crc;
	struct sb_rig_frame f;
};

/* What sb_rig_decode_byte() saw. */
enum sb_rig_decode_result {
	SB_RIG_DEC_MORE = 0,       /* nothing yet */
	SB_RIG_DEC_FRAME = 1,      /* a whole frame with a good CRC is in *out */
	SB_RIG_DEC_BAD_CRC = 2,    /* a whole frame with a bad CRC: header in *out */
	SB_RIG_DEC_BAD_LENGTH = 3, /* LEN above the maximum: header in *out; hunting again */
	SB_RIG_DEC_TRUNCATED = 4   /* sb_rig_decoder_timeout() dropped a partial frame */
};

uint16_t sb_rig_crc16(uint16_t crc, const uint8_t *p, size_t n);
#define SB_RIG_CRC_INIT 0xFFFFu

/* Encode a frame into buf (SB_RIG_MAX_FRAME bytes is always enough). Returns its length, or 0
 * when len is above SB_RIG_MAX_PAYLOAD or cap is too small. */
size_t sb_rig_encode(uint8_t *buf, size_t cap, uint8_t seq, uint8_t cmd, const uint8_t *payload,
                     uint8_t len);

void sb_rig_decoder_init(struct sb_rig_decoder *d);
/* Feed one byte. Bytes outside a frame (before a start byte) are skipped. */
enum sb_rig_decode_result sb_rig_decode_byte(struct sb_rig_decoder *d, uint8_t byte,
                                             struct sb_rig_frame *out);
/* The line went quiet: a partial frame is dropped (SB_RIG_DEC_TRUNCATED, what is known of its
 * header in *out, 0 where not received yet), else SB_RIG_DEC_MORE. */
enum sb_rig_decode_result sb_rig_decoder_timeout(struct sb_rig_decoder *d,
                                                 struct sb_rig_frame *out);
/* Whether the decoder is inside a frame. */
int sb_rig_decoder_busy(const struct sb_rig_decoder *d);

/* Little-endian helpers. */
void sb_rig_put16(uint8_t *p, uint16_t v);
void sb_rig_put32(uint8_t *p, uint32_t v);
uint16_t sb_rig_get16(const uint8_t *p);
uint32_t sb_rig_get32(const uint8_t *p);

/* Payload codecs: encode writes exactly *_BYTES bytes; decode reads them (the caller checks the
 * length first). */
void sb_rig_ident_encode(uint8_t *p, const struct sb_rig_ident *id);
void sb_rig_ident_decode(const uint8_t *p, struct sb_rig_ident *id);
void sb_rig_status_encode(uint8_t *p, const struct sb_rig_status *st);
void sb_rig_status_decode(const uint8_t *p, struct sb_rig_status *st);
void sb_rig_limits_encode(uint8_t *p, const struct sb_rig_limits *l);
void sb_rig_limits_decode(const uint8_t *p, struct sb_rig_limits *l);

/* 1 when every limit is inside its range, else 0. */
int sb_rig_limits_valid(const struct sb_rig_limits *l);
void sb_rig_limits_default(struct sb_rig_limits *l);

/* The EEPROM image (SB_RIG_EEPROM_BYTES): encode; decode returns 1 and fills *l when the magic,
 * version, CRC and ranges are right, else 0 (and *l holds the defaults). */
void sb_rig_eeprom_encode(uint8_t *img, const struct sb_rig_limits *l);
int sb_rig_eeprom_decode(const uint8_t *img, struct sb_rig_limits *l);

/* A MAX31855 frame (32 bits, as shifted out MSB first): thermocouple in 0.25 C, cold junction
 * in 0.0625 C, and the fault bits (enum sb_rig_tc_fault; 0 = good reading). */
uint8_t sb_rig_max31855_decode(uint32_t raw, int16_t *tc_q2, int16_t *cj_q4);

/* Short names, for messages: "bad CRC", "overtemp", ... ("?" when unknown). */
const char *sb_rig_status_name(uint8_t code);
const char *sb_rig_fault_name(uint16_t one_fault_bit);

#ifdef __cplusplus
}
#endif

#endif /* SB_RIG_PROTO_H */
