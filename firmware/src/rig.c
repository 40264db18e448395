/* SPDX-License-Identifier: MIT */
/*
 * The cooling rig's controller: answers the host's frames (docs/rig-protocol.md), drives the
 * fans, reads the thermocouples and tachometers, and holds the fail-safe: any latched fault
 * (over-temperature, thermocouple fault, host silence, stalled fan, watchdog or other reset,
 * corrupt EEPROM) drives every fan at 100 % until the host clears it, and a fault whose
 * condition is still present cannot be cleared. Nothing here waits on the host.
 */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <string.h>

#include "hw.h"
#include "sb_rig_build_id.h"
#include "sb_rig_proto.h"

#define FW_MAJOR 1
#define FW_MINOR 0
#define FW_PATCH 0

#define EEPROM_LIMITS ((void *)0) /* the limits' image lives at EEPROM address 0 */

static struct sb_rig_limits limits;
static uint8_t limits_default;
static uint16_t faults, active;
static uint16_t commanded[SB_RIG_FANS];                      /* what the host asked for */
static uint16_t requested[SB_RIG_FANS], driven[SB_RIG_FANS]; /* set on the outputs, driven */
static uint8_t applied; /* requested[] and driven[] are valid */

/* Tachometers. */
static uint16_t rpm[SB_RIG_FANS];
static uint16_t tach_edges0[SB_RIG_FANS];
static uint32_t tach_last0[SB_RIG_FANS];
static uint8_t tach_valid[SB_RIG_FANS];
static uint8_t driving[SB_RIG_FANS];
static uint32_t drive_since[SB_RIG_FANS];

/* Thermocouples. */
static int16_t tc_q2[SB_RIG_SENSORS], cj_q4[SB_RIG_SENSORS];
static uint8_t tc_fault[SB_RIG_SENSORS], tc_bad[SB_RIG_SENSORS];

static uint32_t host_ms, host_age_ms; /* last valid frame; age before the current one */
static uint32_t tc_due, rpm_due;

static struct sb_rig_decoder dec;
static struct sb_rig_frame frame;
static uint8_t txframe[SB_RIG_MAX_FRAME];

static void reply(uint8_t seq, uint8_t cmd, uint8_t status, const uint8_t *data, uint8_t n)
{
	uint8_t p[1 + SB_RIG_STATUS_BYTES];
	uint8_t len;

	p[0] = status;
	if (n)
		memcpy(p + 1, data, n);
	len = (uint8_t)sb_rig_encode(txframe, sizeof(txframe), seq, cmd | SB_RIG_RESPONSE, p,
	                             (uint8_t)(n + 1));
	hw_uart_write(txframe, len);
}

static void load_limits(void)
{
	uint8_t img[SB_RIG_EEPROM_BYTES];

	eeprom_read_block(img, EEPROM_LIMITS, sizeof(img));
	limits_default = !sb_rig_eeprom_decode(img, &limits);
	if (limits_default)
		faults |= SB_RIG_FAULT_EEPROM;
}

static void store_limits(const struct sb_rig_limits *l)
{
	uint8_t img[SB_RIG_EEPROM_BYTES];

	sb_rig_eeprom_encode(img, l);
	eeprom_update_block(img, EEPROM_LIMITS, sizeof(img));
	limits = *l;
	limits_default = 0;
}

static void fill_status(struct sb_rig_status *st, uint32_t now)
{
	memset(st, 0, sizeof(*st));
	st->flags = (uint8_t)((faults ? SB_RIG_FLAG_FAILSAFE : 0) |
	                      (limits_default ? SB_RIG_FLAG_DEFAULTS : 0));
	st->faults = faults;
	st->active = active;
	st->uptime_ms = now;
	st->host_age_ms = host_age_ms;
	for (uint8_t i = 0; i < SB_RIG_FANS; i++) {
		st->duty_pm[i] = driven[i];
		st->rpm[i] = rpm[i];
	}
	for (uint8_t i = 0; i < SB_RIG_SENSORS; i++) {
		st->tc_q2[i] = tc_q2[i];
		st->cj_q4[i] = cj_q4[i];
		st->tc_fault[i] = tc_fault[i];
	}
}

static void watchdog_test(const struct sb_rig_frame *f)
{
	reply(f->seq, f->cmd, SB_RIG_OK, NULL, 0);
	hw_uart_drain();
	cli();
	for (;;) /* hung: no interrupt, no watchdog reset, until the watchdog resets the MCU */
		;
}

/* The payload length of a command's request; -1 for an unknown command. */
static int8_t request_len(uint8_t cmd)
{
	switch (cmd) {
	case SB_RIG_CMD_IDENTIFY:
	case SB_RIG_CMD_GET_STATUS:
	case SB_RIG_CMD_GET_LIMITS:
		return 0;
	case SB_RIG_CMD_SET_FANS:
		return 2 * SB_RIG_FANS;
	case SB_RIG_CMD_SET_LIMITS:
		return SB_RIG_LIMITS_BYTES;
	case SB_RIG_CMD_CLEAR_FAULTS:
		return 2;
	case SB_RIG_CMD_WATCHDOG_TEST:
		return 4;
	default:
		return -1;
	}
}

/* Execute a valid frame (known command, right length) and answer it. */
static void execute(const struct sb_rig_frame *f, uint32_t now)
{
	uint8_t buf[SB_RIG_STATUS_BYTES];
	uint8_t st = SB_RIG_OK, n = 0;

	switch (f->cmd) {
	case SB_RIG_CMD_IDENTIFY: {
		struct sb_rig_ident id = {
		    SB_RIG_PROTO_VERSION, FW_MAJOR,    FW_MINOR,      FW_PATCH,
		    SB_RIG_BUILD_ID,      SB_RIG_FANS, SB_RIG_SENSORS};

		sb_rig_ident_encode(buf, &id);
		n = SB_RIG_IDENT_BYTES;
		break;
	}
	case SB_RIG_CMD_SET_FANS: {
		uint16_t d[SB_RIG_FANS];

		for (uint8_t i = 0; i < SB_RIG_FANS; i++) {
			d[i] = sb_rig_get16(f->payload + 2 * i);
			if (d[i] > SB_RIG_DUTY_MAX)
				st = SB_RIG_ERR_OUT_OF_RANGE;
		}
		if (st == SB_RIG_OK && faults)
			st = SB_RIG_ERR_FAILSAFE;
		if (st == SB_RIG_OK)
			memcpy(commanded, d, sizeof(d));
		break;
	}
	case SB_RIG_CMD_GET_STATUS: {
		struct sb_rig_status s;

		fill_status(&s, now);
		sb_rig_status_encode(buf, &s);
		n = SB_RIG_STATUS_BYTES;
		break;
	}
	case SB_RIG_CMD_SET_LIMITS: {
		struct sb_rig_limits l;

		sb_rig_limits_decode(f->payload, &l);
		if (sb_rig_limits_valid(&l))
			store_limits(&l);
		else
			st = SB_RIG_ERR_OUT_OF_RANGE;
		break;
	}
	case SB_RIG_CMD_GET_LIMITS:
		sb_rig_limits_encode(buf, &limits);
		buf[SB_RIG_LIMITS_BYTES] = limits_default;
		n = SB_RIG_LIMITS_BYTES + 1;
		break;
	case SB_RIG_CMD_CLEAR_FAULTS: {
		uint16_t mask;

		mask = sb_rig_get16(f->payload);
		faults &= (uint16_t) ~(mask & ~active);
		if (mask & faults)
			st = SB_RIG_ERR_FAULT_ACTIVE;
		sb_rig_put16(buf, faults);
		n = 2;
		break;
	}
	case SB_RIG_CMD_WATCHDOG_TEST:
		if (memcmp(f->payload, SB_RIG_WATCHDOG_MAGIC, 4)) {
			st = SB_RIG_ERR_OUT_OF_RANGE;
			break;
		}
		watchdog_test(f);
		break;
	default:
		break;
	}
	reply(f->seq, f->cmd, st, buf, st == SB_RIG_OK ? n : 0);
}

static void receive(void)
{
	int16_t c;

	while ((c = hw_uart_getc()) >= 0) {
		enum sb_rig_decode_result r = sb_rig_decode_byte(&dec, (uint8_t)c, &frame);
		uint32_t now = hw_millis();

		if (r == SB_RIG_DEC_FRAME) {
			int8_t want = request_len(frame.cmd);

			if (want < 0) {
				reply(frame.seq, frame.cmd, SB_RIG_ERR_UNKNOWN_CMD, NULL, 0);
			} else if (frame.len != (uint8_t)want) {
				reply(frame.seq, frame.cmd, SB_RIG_ERR_BAD_LENGTH, NULL, 0);
			} else {
				/* A valid frame: the host is there (before CLEAR_FAULTS looks). */
				host_age_ms = now - host_ms;
				host_ms = now;
				active &= (uint16_t)~SB_RIG_FAULT_HOST_SILENCE;
				execute(&frame, now);
			}
		} else if (r == SB_RIG_DEC_BAD_CRC) {
			reply(frame.seq, frame.cmd, SB_RIG_ERR_BAD_CRC, NULL, 0);
		} else if (r == SB_RIG_DEC_BAD_LENGTH) {
			reply(frame.seq, frame.cmd, SB_RIG_ERR_BAD_LENGTH, NULL, 0);
		}
	}
	if (sb_rig_decoder_busy(&dec) && hw_uart_quiet_ms() >= SB_RIG_BYTE_TIMEOUT_MS &&
	    sb_rig_decoder_timeout(&dec, &frame) == SB_RIG_DEC_TRUNCATED)
		reply(frame.seq, frame.cmd, SB_RIG_ERR_TRUNCATED, NULL, 0);
}

static void read_thermocouples(void)
{
	for (uint8_t i = 0; i < SB_RIG_SENSORS; i++) {
		uint16_t bit = i == SB_RIG_SENSOR_HEATSINK ? SB_RIG_FAULT_TC_HEATSINK
		                                           : SB_RIG_FAULT_TC_AMBIENT;
		int16_t t, cj;
		uint8_t f = sb_rig_max31855_decode(hw_tc_read(i), &t, &cj);

		tc_fault[i] = f;
		if (f) {
			if (tc_bad[i] < 255)
				tc_bad[i]++;
			if (tc_bad[i] >= SB_RIG_TC_FAULT_READS)
				active |= bit;
			continue;
		}
		tc_bad[i] = 0;
		active &= (uint16_t)~bit;
		tc_q2[i] = t;
		cj_q4[i] = cj;
		if (i != SB_RIG_SENSOR_HEATSINK)
			continue;
		/* Without a good heatsink reading the over-temperature condition keeps its state. */
		if (t >= limits.heatsink_max_q2)
			active |= SB_RIG_FAULT_OVERTEMP;
		else if (t < limits.heatsink_max_q2 - SB_RIG_OVERTEMP_HYST_Q2)
			active &= (uint16_t)~SB_RIG_FAULT_OVERTEMP;
	}
}

/* RPM over the last window: edges since the previous window over the time from its last edge
 * to this one's (2 edges per revolution); 0 when there was no edge, or when the pulses stopped
 * (no edge for twice the mean interval since). */
static void measure_rpm(uint32_t now)
{
	for (uint8_t i = 0; i < SB_RIG_FANS; i++) {
		uint16_t edges, n;
		uint32_t last, span;

		hw_tach(i, &edges, &last);
		n = edges - tach_edges0[i];
		span = last - tach_last0[i];
		if (!n) {
			rpm[i] = 0;
			tach_valid[i] = 0;
		} else if (tach_valid[i] && span) {
			/* Signed: the interrupt may stamp an edge after `now` was read. */
			rpm[i] = (int32_t)(now - last) > (int32_t)(2 * (span / n) + 2)
			             ? 0
			             : (uint16_t)((uint32_t)n * 30000u / span);
		} else {
			rpm[i] = 0; /* first window after a stop: no start time yet */
			tach_valid[i] = 1;
		}
		tach_edges0[i] = edges;
		tach_last0[i] = last;
	}
}

/* A fitted fan driven at SB_RIG_STALL_MIN_PM or more (for stall_ms: spin-up) without a
 * tachometer edge for stall_ms. Differences are signed: the interrupt may stamp an edge after
 * `now` was read (the edge counter is not used: it wraps). */
static void check_stall(uint32_t now)
{
	for (uint8_t i = 0; i < SB_RIG_FANS; i++) {
		uint16_t bit = i ? SB_RIG_FAULT_FAN1_STALL : SB_RIG_FAULT_FAN0_STALL;
		uint16_t edges;
		uint32_t last; /* 0 until the first edge: then the spin-up time decides */

		hw_tach(i, &edges, &last);
		if ((limits.fan_mask & (1u << i)) && driving[i] &&
		    (int32_t)(now - drive_since[i]) >= (int32_t)limits.stall_ms &&
		    (int32_t)(now - last) >= (int32_t)limits.stall_ms)
			active |= bit;
		else
			active &= (uint16_t)~bit;
	}
}

static void apply_outputs(uint32_t now)
{
	for (uint8_t i = 0; i < SB_RIG_FANS; i++) {
		uint16_t want = faults ? SB_RIG_DUTY_MAX : commanded[i];

		if (!applied || want != requested[i]) {
			requested[i] = want;
			driven[i] = hw_fan_set(i, want);
		}
		if (driven[i] >= SB_RIG_STALL_MIN_PM) {
			if (!driving[i])
				drive_since[i] = now;
			driving[i] = 1;
		} else {
			driving[i] = 0;
		}
	}
	applied = 1;
}

int main(void)
{
	hw_init();
	faults = hw_reset_cause() & _BV(WDRF) ? SB_RIG_FAULT_WATCHDOG : SB_RIG_FAULT_RESET;
	for (uint8_t i = 0; i < SB_RIG_FANS; i++)
		commanded[i] = SB_RIG_DUTY_MAX;
	for (uint8_t i = 0; i < SB_RIG_SENSORS; i++)
		tc_fault[i] = SB_RIG_TC_NO_ANSWER; /* no reading yet */
	load_limits();
	apply_outputs(0);
	sb_rig_decoder_init(&dec);
	wdt_enable(WDTO_250MS);
	sei();
	read_thermocouples(); /* a first reading before the host can ask */
	tc_due = SB_RIG_TC_PERIOD_MS;
	rpm_due = SB_RIG_RPM_PERIOD_MS;
	for (;;) {
		uint32_t now;
		uint16_t was = faults;

		wdt_reset();
		receive();
		now = hw_millis();
		if ((int32_t)(now - tc_due) >= 0) {
			tc_due += SB_RIG_TC_PERIOD_MS;
			read_thermocouples();
		}
		if ((int32_t)(now - rpm_due) >= 0) {
			rpm_due += SB_RIG_RPM_PERIOD_MS;
			measure_rpm(now);
		}
		check_stall(now);
		if (now - host_ms >= limits.silence_ms)
			active |= SB_RIG_FAULT_HOST_SILENCE;
		faults |= active;
		if (faults && !was) /* entering the fail-safe: the host's duties are forgotten */
			for (uint8_t i = 0; i < SB_RIG_FANS; i++)
				commanded[i] = SB_RIG_DUTY_MAX;
		apply_outputs(now);
		hw_idle();
	}
}
