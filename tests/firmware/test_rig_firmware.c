/* SPDX-License-Identifier: MIT */
/*
 * The cooling rig's firmware (the real rig.elf) in simavr: every command, every bad frame,
 * PWM duty and frequency measured on the pins, RPM from tachometer pulses, and every path into
 * the fail-safe — over-temperature, thermocouple faults, host silence, a stalled fan, a
 * watchdog reset, a corrupt EEPROM — with the reaction time measured in simulated time
 * (printed as "reaction ...", and bounded by the assertions).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rig_board.h"
#include "sb_rig_build_id.h"
#include "sb_rig_proto.h"

#define TIMEOUT_US 20000 /* a round trip takes ~1 ms at 500 kbaud */

static struct rig_board *b;

static void setup(void)
{
	b = rig_board_new(SB_RIG_ELF);
	cr_assert_not_null(b, "cannot load %s", SB_RIG_ELF);
	cr_assert(rig_board_run_us(b, 10000));
}

static void teardown(void)
{
	rig_board_free(b);
	b = NULL;
}

TestSuite(rig_firmware, .init = setup, .fini = teardown, .timeout = 120);

/* A request that must be answered; returns the status byte. */
static int req(uint8_t cmd, const void *payload, uint8_t len, struct sb_rig_frame *f)
{
	struct sb_rig_frame tmp;
	int st = rig_board_request(b, cmd, payload, len, f ? f : &tmp, TIMEOUT_US);

	cr_assert_geq(st, 0, "command 0x%02x: no answer (at %llu us)", cmd,
	              (unsigned long long)rig_board_now_us(b));
	return st;
}

static void get_status(struct sb_rig_status *s)
{
	struct sb_rig_frame f;

	cr_assert_eq(req(SB_RIG_CMD_GET_STATUS, NULL, 0, &f), SB_RIG_OK);
	cr_assert_eq(f.len, 1 + SB_RIG_STATUS_BYTES);
	sb_rig_status_decode(f.payload + 1, s);
}

static uint16_t clear_faults(uint16_t mask, int expect)
{
	struct sb_rig_frame f;
	uint8_t p[2];

	sb_rig_put16(p, mask);
	cr_assert_eq(req(SB_RIG_CMD_CLEAR_FAULTS, p, 2, &f), expect);
	if (expect != SB_RIG_OK)
		return 0xFFFF;
	cr_assert_eq(f.len, 3);
	return sb_rig_get16(f.payload + 1);
}

static int set_fans(uint16_t d0, uint16_t d1)
{
	uint8_t p[4];

	sb_rig_put16(p, d0);
	sb_rig_put16(p + 2, d1);
	return req(SB_RIG_CMD_SET_FANS, p, 4, NULL);
}

static int set_limits(double heatsink_max_c, uint32_t silence_ms, uint16_t stall_ms,
                      uint8_t fan_mask)
{
	struct sb_rig_limits l = {(int16_t)lround(heatsink_max_c * 4), silence_ms, stall_ms,
	                          fan_mask};
	uint8_t p[SB_RIG_LIMITS_BYTES];

	sb_rig_limits_encode(p, &l);
	return req(SB_RIG_CMD_SET_LIMITS, p, sizeof(p), NULL);
}

/* The host is there: clear everything, fans at a duty. */
static void running(uint16_t d0, uint16_t d1)
{
	cr_assert_eq(clear_faults(SB_RIG_FAULT_ALL, SB_RIG_OK), 0);
	cr_assert_eq(set_fans(d0, d1), SB_RIG_OK);
}

/* Run simulated time while talking to the firmware every period_us (a live host). */
static void run_talking(uint64_t us, uint64_t period_us)
{
	uint64_t end = rig_board_now_us(b) + us;

	while (rig_board_now_us(b) < end) {
		struct sb_rig_status s;

		get_status(&s);
		rig_board_run_us(b, period_us);
	}
}

/* Both fans held at 100 % since when (us); fails if one is not. */
static uint64_t both_full_since(void)
{
	uint64_t t0 = rig_board_high_since_us(b, 0), t1 = rig_board_high_since_us(b, 1);

	cr_assert_neq(t0, UINT64_MAX, "fan 0 is not at 100 %%");
	cr_assert_neq(t1, UINT64_MAX, "fan 1 is not at 100 %%");
	return t0 > t1 ? t0 : t1;
}

/* Duty measured on the pins over us. */
static void measure(uint64_t us, double *d0, double *d1, double *hz0, double *hz1)
{
	struct rig_pwm_mark m;

	rig_board_pwm_mark(b, &m);
	rig_board_run_us(b, us);
	*d0 = rig_board_pwm_duty(b, &m, 0);
	*d1 = rig_board_pwm_duty(b, &m, 1);
	if (hz0)
		*hz0 = rig_board_pwm_hz(b, &m, 0);
	if (hz1)
		*hz1 = rig_board_pwm_hz(b, &m, 1);
}

/* Run until both fans have been held at 100 % for 1 ms (at most limit_us past t_us): the
 * reaction time from t_us to when they went (and stayed) high. */
static double reaction_ms(uint64_t t_us, uint64_t limit_us, const char *what)
{
	uint64_t end = t_us + limit_us, since = UINT64_MAX;
	double ms;

	while (rig_board_now_us(b) < end) {
		uint64_t s0 = rig_board_high_since_us(b, 0), s1 = rig_board_high_since_us(b, 1);

		rig_board_run_us(b, 100);
		if (s0 == UINT64_MAX || s1 == UINT64_MAX)
			continue;
		since = s0 > s1 ? s0 : s1;
		if (rig_board_now_us(b) - since >= 1000)
			break;
	}
	cr_assert_neq(since, UINT64_MAX, "%s: the fans did not go to 100 %%", what);
	cr_assert_eq(both_full_since(), since, "%s: the fans did not stay at 100 %%", what);
	ms = (double)(since - t_us) / 1000.0;
	fprintf(stderr, "reaction %s: fans at 100 %% %.3f ms after the cause (simulated)\n", what,
	        ms);
	return ms;
}

/* ---- commands ---------------------------------------------------------------------------- */

Test(rig_firmware, identify)
{
	struct sb_rig_frame f;
	struct sb_rig_ident id;

	cr_assert_eq(req(SB_RIG_CMD_IDENTIFY, NULL, 0, &f), SB_RIG_OK);
	cr_assert_eq(f.cmd, SB_RIG_CMD_IDENTIFY | SB_RIG_RESPONSE);
	cr_assert_eq(f.len, 1 + SB_RIG_IDENT_BYTES);
	sb_rig_ident_decode(f.payload + 1, &id);
	cr_assert_eq(id.proto, SB_RIG_PROTO_VERSION);
	cr_assert_eq(id.fw_major, 1);
	cr_assert_eq(id.build_id, SB_RIG_BUILD_ID);
	cr_assert_eq(id.fans, SB_RIG_FANS);
	cr_assert_eq(id.sensors, SB_RIG_SENSORS);
}

Test(rig_firmware, boots_into_the_failsafe)
{
	struct sb_rig_status s;
	double d0, d1;

	get_status(&s);
	cr_assert(s.flags & SB_RIG_FLAG_FAILSAFE);
	cr_assert(s.flags & SB_RIG_FLAG_DEFAULTS, "blank EEPROM: default limits");
	cr_assert_eq(s.faults, SB_RIG_FAULT_RESET | SB_RIG_FAULT_EEPROM);
	cr_assert_eq(s.duty_pm[0], 1000);
	cr_assert_eq(s.duty_pm[1], 1000);
	measure(5000, &d0, &d1, NULL, NULL);
	cr_assert_float_eq(d0, 1.0, 1e-9);
	cr_assert_float_eq(d1, 1.0, 1e-9);
	cr_assert_eq(set_fans(300, 300), SB_RIG_ERR_FAILSAFE);
	/* Uptime counts from the reset. */
	cr_assert(s.uptime_ms >= 9 && s.uptime_ms <= 12, "uptime %u ms", s.uptime_ms);
}

Test(rig_firmware, clear_then_set_fans_pwm_measured)
{
	/* Not within 2 % of 0 or 100 %: simavr's timer model runs a compare match that falls
	 * within an instruction of the overflow late, and drops it (the MCU does not). */
	static const uint16_t duty[][2] = {{400, 600}, {0, 1000},  {1000, 0}, {20, 999},
	                                   {125, 333}, {500, 500}, {950, 50}};
	struct sb_rig_status s;
	double d0, d1, hz0, hz1;

	cr_assert_eq(clear_faults(SB_RIG_FAULT_ALL, SB_RIG_OK), 0);
	get_status(&s);
	cr_assert_eq(s.flags & SB_RIG_FLAG_FAILSAFE, 0);
	cr_assert_eq(s.duty_pm[0], 1000, "fans stay at 100 %% until the host sets them");
	for (size_t i = 0; i < sizeof(duty) / sizeof(duty[0]); i++) {
		/* Fan 0: 640 steps of Timer1; fan 1: 80 steps of Timer2. */
		double want0 = round(duty[i][0] * 640 / 1000.0) / 640;
		double want1 = round(duty[i][1] * 80 / 1000.0) / 80;

		cr_assert_eq(set_fans(duty[i][0], duty[i][1]), SB_RIG_OK);
		rig_board_run_us(b, 2000);
		measure(4000, &d0, &d1, &hz0, &hz1);
		cr_assert_float_eq(d0, want0, 1e-3, "fan 0 at %u per mille: %f", duty[i][0], d0);
		cr_assert_float_eq(d1, want1, 1e-3, "fan 1 at %u per mille: %f", duty[i][1], d1);
		if (want0 > 0 && want0 < 1)
			cr_assert_float_eq(hz0, 25000.0, 250.0, "fan 0 PWM at %f Hz", hz0);
		if (want1 > 0 && want1 < 1)
			cr_assert_float_eq(hz1, 25000.0, 250.0, "fan 1 PWM at %f Hz", hz1);
		get_status(&s);
		cr_assert_float_eq(s.duty_pm[0] / 1000.0, want0, 1e-3);
		cr_assert_float_eq(s.duty_pm[1] / 1000.0, want1, 1e-3);
	}
}

Test(rig_firmware, rpm_from_tachometer_pulses)
{
	static const double rpm[] = {600, 1380, 2400, 4870};
	struct sb_rig_status s;

	running(500, 500);
	for (size_t i = 0; i < sizeof(rpm) / sizeof(rpm[0]); i++) {
		rig_board_fan(b, 0, 3000, rpm[i]);
		rig_board_fan(b, 1, 3000, rpm[i] / 2);
		run_talking(2600000, 200000);
		get_status(&s);
		cr_assert_float_eq(s.rpm[0], rpm[i], rpm[i] * 0.01, "fan 0: %u rpm, want %.0f",
		                   s.rpm[0], rpm[i]);
		cr_assert_float_eq(s.rpm[1], rpm[i] / 2, rpm[i] * 0.01, "fan 1: %u rpm, want %.0f",
		                   s.rpm[1], rpm[i] / 2);
	}
	/* The duty-following fan: 3000 rpm at 100 %, about 1500 at 50 %. */
	rig_board_fan(b, 0, 3000, -1);
	cr_assert_eq(set_fans(1000, 500), SB_RIG_OK);
	run_talking(3000000, 200000);
	get_status(&s);
	cr_assert_float_eq(s.rpm[0], 3000, 40, "%u rpm", s.rpm[0]);
	cr_assert_eq(s.faults, 0);
}

Test(rig_firmware, temperatures_and_limits)
{
	struct sb_rig_status s;
	struct sb_rig_frame f;
	struct sb_rig_limits l;

	rig_board_set_tc(b, SB_RIG_SENSOR_HEATSINK, 48.25, 26.0625, 0);
	rig_board_set_tc(b, SB_RIG_SENSOR_AMBIENT, -12.5, 25.5, 0);
	rig_board_run_us(b, 250000);
	get_status(&s);
	cr_assert_eq(s.tc_q2[0], 193);
	cr_assert_eq(s.cj_q4[0], 417);
	cr_assert_eq(s.tc_q2[1], -50);
	cr_assert_eq(s.cj_q4[1], 408);
	cr_assert_eq(s.tc_fault[0] | s.tc_fault[1], 0);

	cr_assert_eq(req(SB_RIG_CMD_GET_LIMITS, NULL, 0, &f), SB_RIG_OK);
	cr_assert_eq(f.len, 1 + SB_RIG_LIMITS_BYTES + 1);
	sb_rig_limits_decode(f.payload + 1, &l);
	cr_assert_eq(l.heatsink_max_q2, SB_RIG_DEFAULT_HEATSINK_Q2);
	cr_assert_eq(l.silence_ms, SB_RIG_DEFAULT_SILENCE_MS);
	cr_assert_eq(f.payload[1 + SB_RIG_LIMITS_BYTES], 1, "defaults");

	cr_assert_eq(set_limits(66.5, 1234, 700, 1), SB_RIG_OK);
	cr_assert_eq(req(SB_RIG_CMD_GET_LIMITS, NULL, 0, &f), SB_RIG_OK);
	sb_rig_limits_decode(f.payload + 1, &l);
	cr_assert_eq(l.heatsink_max_q2, 266);
	cr_assert_eq(l.silence_ms, 1234);
	cr_assert_eq(l.stall_ms, 700);
	cr_assert_eq(l.fan_mask, 1);
	cr_assert_eq(f.payload[1 + SB_RIG_LIMITS_BYTES], 0, "from EEPROM");

	/* They persist: after a reset the EEPROM's limits are used, without the EEPROM fault. */
	rig_board_reset(b);
	rig_board_run_us(b, 10000);
	cr_assert_eq(req(SB_RIG_CMD_GET_LIMITS, NULL, 0, &f), SB_RIG_OK);
	sb_rig_limits_decode(f.payload + 1, &l);
	cr_assert_eq(l.silence_ms, 1234);
	cr_assert_eq(f.payload[1 + SB_RIG_LIMITS_BYTES], 0);
	get_status(&s);
	cr_assert_eq(s.faults, SB_RIG_FAULT_RESET, "an external reset, no EEPROM fault");
}

/* ---- bad frames ------------------------------------------------------------------------- */

static void send_raw(const uint8_t *p, size_t n)
{
	rig_board_send(b, p, n);
}

static void expect_error(uint8_t seq, uint8_t cmd, int status)
{
	struct sb_rig_frame f;

	cr_assert(rig_board_wait_frame(b, &f, TIMEOUT_US), "no answer (want %s)",
	          sb_rig_status_name((uint8_t)status));
	cr_assert_eq(f.seq, seq);
	cr_assert_eq(f.cmd, cmd | SB_RIG_RESPONSE);
	cr_assert_eq(f.len, 1, "an error answer is the status alone");
	cr_assert_eq(f.payload[0], status, "status %u (%s), want %s", f.payload[0],
	             sb_rig_status_name(f.payload[0]), sb_rig_status_name((uint8_t)status));
}

Test(rig_firmware, every_bad_frame_is_answered)
{
	uint8_t buf[SB_RIG_MAX_FRAME + 8], p[8] = {0};
	size_t n;

	/* Bad CRC. */
	n = sb_rig_encode(buf, sizeof(buf), 7, SB_RIG_CMD_GET_STATUS, NULL, 0);
	buf[n - 1] ^= 0x40;
	send_raw(buf, n);
	expect_error(7, SB_RIG_CMD_GET_STATUS, SB_RIG_ERR_BAD_CRC);

	/* A payload byte damaged on the way. */
	sb_rig_put16(p, 300);
	n = sb_rig_encode(buf, sizeof(buf), 8, SB_RIG_CMD_SET_FANS, p, 4);
	buf[5] ^= 1;
	send_raw(buf, n);
	expect_error(8, SB_RIG_CMD_SET_FANS, SB_RIG_ERR_BAD_CRC);

	/* LEN above the maximum: answered after the header, then the decoder hunts again. */
	buf[0] = SB_RIG_START;
	buf[1] = SB_RIG_MAX_PAYLOAD + 1;
	buf[2] = 9;
	buf[3] = SB_RIG_CMD_SET_FANS;
	send_raw(buf, 4);
	expect_error(9, SB_RIG_CMD_SET_FANS, SB_RIG_ERR_BAD_LENGTH);

	/* LEN wrong for the command. */
	n = sb_rig_encode(buf, sizeof(buf), 10, SB_RIG_CMD_SET_FANS, p, 3);
	send_raw(buf, n);
	expect_error(10, SB_RIG_CMD_SET_FANS, SB_RIG_ERR_BAD_LENGTH);
	n = sb_rig_encode(buf, sizeof(buf), 11, SB_RIG_CMD_GET_STATUS, p, 1);
	send_raw(buf, n);
	expect_error(11, SB_RIG_CMD_GET_STATUS, SB_RIG_ERR_BAD_LENGTH);

	/* Unknown commands, including one with the response bit. */
	n = sb_rig_encode(buf, sizeof(buf), 12, 0x55, NULL, 0);
	send_raw(buf, n);
	expect_error(12, 0x55, SB_RIG_ERR_UNKNOWN_CMD);
	n = sb_rig_encode(buf, sizeof(buf), 13, SB_RIG_CMD_GET_STATUS | SB_RIG_RESPONSE, NULL, 0);
	send_raw(buf, n);
	expect_error(13, SB_RIG_CMD_GET_STATUS | SB_RIG_RESPONSE, SB_RIG_ERR_UNKNOWN_CMD);

	/* Truncated: the frame stops; after SB_RIG_BYTE_TIMEOUT_MS it is dropped and answered. */
	n = sb_rig_encode(buf, sizeof(buf), 14, SB_RIG_CMD_SET_FANS, p, 4);
	send_raw(buf, n - 3);
	rig_board_run_us(b, (SB_RIG_BYTE_TIMEOUT_MS - 5) * 1000);
	cr_assert_eq(rig_board_pending(b), 0, "not dropped before the timeout");
	expect_error(14, SB_RIG_CMD_SET_FANS, SB_RIG_ERR_TRUNCATED);

	/* Out-of-range values. */
	cr_assert_eq(clear_faults(SB_RIG_FAULT_ALL, SB_RIG_OK), 0);
	cr_assert_eq(set_fans(1001, 0), SB_RIG_ERR_OUT_OF_RANGE);
	cr_assert_eq(set_fans(0, 0xFFFF), SB_RIG_ERR_OUT_OF_RANGE);
	cr_assert_eq(set_limits(19.75, 5000, 3000, 3), SB_RIG_ERR_OUT_OF_RANGE);
	cr_assert_eq(set_limits(125.25, 5000, 3000, 3), SB_RIG_ERR_OUT_OF_RANGE);
	cr_assert_eq(set_limits(70, 99, 3000, 3), SB_RIG_ERR_OUT_OF_RANGE);
	cr_assert_eq(set_limits(70, 600001, 3000, 3), SB_RIG_ERR_OUT_OF_RANGE);
	cr_assert_eq(set_limits(70, 5000, 499, 3), SB_RIG_ERR_OUT_OF_RANGE);
	cr_assert_eq(set_limits(70, 5000, 60001, 3), SB_RIG_ERR_OUT_OF_RANGE);
	cr_assert_eq(set_limits(70, 5000, 3000, 4), SB_RIG_ERR_OUT_OF_RANGE);
	cr_assert_eq(req(SB_RIG_CMD_WATCHDOG_TEST, "WDOX", 4, NULL), SB_RIG_ERR_OUT_OF_RANGE);

	/* Garbage between frames is skipped; the next good frame is answered. */
	{
		static const uint8_t noise[] = {0x00, 0xFF, 0x13, 0x37, 0x5A};
		struct sb_rig_status s;

		send_raw(noise, sizeof(noise));
		get_status(&s);
		cr_assert_eq(s.faults, 0, "the bad frames changed nothing");
		cr_assert_eq(s.duty_pm[0], 1000);
	}
}

Test(rig_firmware, frames_back_to_back)
{
	uint8_t buf[4 * SB_RIG_MAX_FRAME];
	size_t n = 0;

	for (uint8_t i = 0; i < 4; i++)
		n += sb_rig_encode(buf + n, sizeof(buf) - n, (uint8_t)(100 + i),
		                   SB_RIG_CMD_GET_STATUS, NULL, 0);
	send_raw(buf, n);
	for (uint8_t i = 0; i < 4; i++) {
		struct sb_rig_frame f;

		cr_assert(rig_board_wait_frame(b, &f, TIMEOUT_US));
		cr_assert_eq(f.seq, 100 + i);
		cr_assert_eq(f.payload[0], SB_RIG_OK);
	}
}

/* ---- the fail-safe ---------------------------------------------------------------------- */

Test(rig_firmware, overtemperature)
{
	struct sb_rig_status s;
	uint64_t t;
	double ms;

	cr_assert_eq(set_limits(60, 60000, 3000, 3), SB_RIG_OK);
	rig_board_set_tc(b, SB_RIG_SENSOR_HEATSINK, 50, 25, 0);
	running(300, 300);
	run_talking(500000, 100000);
	get_status(&s);
	cr_assert_eq(s.faults, 0);

	rig_board_set_tc(b, SB_RIG_SENSOR_HEATSINK, 60.25, 25, 0);
	t = rig_board_now_us(b);
	ms = reaction_ms(t, 500000, "over-temperature (60.25 C, limit 60 C)");
	cr_assert_leq(ms, SB_RIG_TC_PERIOD_MS + 2.0, "within one thermocouple period: %f ms", ms);
	get_status(&s);
	cr_assert(s.flags & SB_RIG_FLAG_FAILSAFE);
	cr_assert_eq(s.faults, SB_RIG_FAULT_OVERTEMP);
	cr_assert_eq(s.active, SB_RIG_FAULT_OVERTEMP);
	cr_assert_eq(set_fans(300, 300), SB_RIG_ERR_FAILSAFE);

	/* Still hot (and inside the 2 C hysteresis): cannot be cleared. */
	cr_assert_eq(clear_faults(SB_RIG_FAULT_ALL, SB_RIG_ERR_FAULT_ACTIVE), 0xFFFF);
	rig_board_set_tc(b, SB_RIG_SENSOR_HEATSINK, 58.25, 25, 0);
	rig_board_run_us(b, 250000);
	cr_assert_eq(clear_faults(SB_RIG_FAULT_OVERTEMP, SB_RIG_ERR_FAULT_ACTIVE), 0xFFFF);
	get_status(&s);
	cr_assert_eq(s.faults, SB_RIG_FAULT_OVERTEMP);
	cr_assert_eq(s.duty_pm[0], 1000);
	/* Cool: cleared; the fans stay at 100 % until the host sets them. */
	rig_board_set_tc(b, SB_RIG_SENSOR_HEATSINK, 57.75, 25, 0);
	rig_board_run_us(b, 250000);
	cr_assert_eq(clear_faults(SB_RIG_FAULT_OVERTEMP, SB_RIG_OK), 0);
	get_status(&s);
	cr_assert_eq(s.duty_pm[0], 1000);
	cr_assert_eq(set_fans(300, 300), SB_RIG_OK);
}

Test(rig_firmware, host_silence)
{
	struct sb_rig_status s;
	uint64_t t;
	double ms;

	cr_assert_eq(set_limits(70, 300, 3000, 3), SB_RIG_OK);
	running(250, 250);
	/* A host talking every 200 ms keeps it running. */
	run_talking(2000000, 200000);
	get_status(&s);
	cr_assert_eq(s.faults, 0);
	cr_assert_eq(s.duty_pm[0], 250);
	cr_assert(s.host_age_ms >= 195 && s.host_age_ms <= 210, "host age %u ms", s.host_age_ms);

	/* Then silence: the last frame is a status request sent at t (the firmware counts in
	 * whole milliseconds). */
	t = rig_board_now_us(b);
	get_status(&s);
	ms = reaction_ms(t, 2000000, "host silence (limit 300 ms)");
	cr_assert(ms >= 298 && ms <= 302, "fail-safe %f ms after the last frame", ms);
	get_status(&s);
	cr_assert_eq(s.faults, SB_RIG_FAULT_HOST_SILENCE);
	cr_assert_eq(s.active, 0, "the host is back");
	/* A frame ends the condition; the latched fault needs a clear. */
	cr_assert_eq(clear_faults(SB_RIG_FAULT_HOST_SILENCE, SB_RIG_OK), 0);
	cr_assert_eq(set_fans(250, 250), SB_RIG_OK);
}

struct tc_case {
	unsigned sensor;
	uint8_t fault;
	uint16_t want;
	char what[64];
};

ParameterizedTestParameters(rig_firmware, thermocouple_fault)
{
	static struct tc_case cases[] = {
	    {SB_RIG_SENSOR_HEATSINK, SB_RIG_TC_OPEN, SB_RIG_FAULT_TC_HEATSINK,
	     "heatsink thermocouple open"},
	    {SB_RIG_SENSOR_HEATSINK, SB_RIG_TC_SHORT_GND, SB_RIG_FAULT_TC_HEATSINK,
	     "heatsink thermocouple short to GND"},
	    {SB_RIG_SENSOR_AMBIENT, SB_RIG_TC_SHORT_VCC, SB_RIG_FAULT_TC_AMBIENT,
	     "ambient thermocouple short to VCC"},
	    {SB_RIG_SENSOR_HEATSINK, SB_RIG_TC_NO_ANSWER, SB_RIG_FAULT_TC_HEATSINK,
	     "heatsink converter not answering (MISO high)"},
	};

	return cr_make_param_array(struct tc_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct tc_case *tc, rig_firmware, thermocouple_fault)
{
	struct sb_rig_status s;
	uint64_t t;
	double ms;

	cr_assert_eq(set_limits(70, 60000, 3000, 3), SB_RIG_OK);
	running(400, 400);
	run_talking(300000, 100000);
	rig_board_set_tc(b, tc->sensor, 25, 25, tc->fault);
	t = rig_board_now_us(b);
	ms = reaction_ms(t, 1000000, tc->what);
	cr_assert_leq(ms, SB_RIG_TC_FAULT_READS * SB_RIG_TC_PERIOD_MS + 2.0, "%f ms", ms);
	cr_assert_geq(ms, (SB_RIG_TC_FAULT_READS - 1) * SB_RIG_TC_PERIOD_MS, "%f ms", ms);
	get_status(&s);
	cr_assert_eq(s.faults, tc->want);
	cr_assert_eq(s.tc_fault[tc->sensor], tc->fault);
	cr_assert_eq(clear_faults(tc->want, SB_RIG_ERR_FAULT_ACTIVE), 0xFFFF);
	/* Repaired: one good read ends the condition. */
	rig_board_set_tc(b, tc->sensor, 25, 25, 0);
	rig_board_run_us(b, 150000);
	cr_assert_eq(clear_faults(tc->want, SB_RIG_OK), 0);
}

Test(rig_firmware, thermocouple_glitch_is_filtered)
{
	struct sb_rig_status s;

	running(400, 400);
	run_talking(300000, 100000);
	/* Two bad reads in a row are not a fault (SB_RIG_TC_FAULT_READS = 3). */
	rig_board_set_tc(b, SB_RIG_SENSOR_HEATSINK, 25, 25, SB_RIG_TC_OPEN);
	{
		unsigned r0 = rig_board_tc_reads(b, SB_RIG_SENSOR_HEATSINK);

		while (rig_board_tc_reads(b, SB_RIG_SENSOR_HEATSINK) < r0 + 2)
			rig_board_run_us(b, 1000);
	}
	rig_board_set_tc(b, SB_RIG_SENSOR_HEATSINK, 25, 25, 0);
	run_talking(400000, 100000);
	get_status(&s);
	cr_assert_eq(s.faults, 0);
	cr_assert_eq(s.duty_pm[0], 400);
}

Test(rig_firmware, stalled_fan)
{
	struct sb_rig_status s;
	uint64_t t;
	double ms;

	cr_assert_eq(set_limits(70, 60000, 800, 3), SB_RIG_OK);
	running(600, 600);
	run_talking(2000000, 200000);
	get_status(&s);
	cr_assert_eq(s.faults, 0);
	cr_assert_gt(s.rpm[0], 1500);
	/* Fan 0 stops: no pulse for stall_ms. */
	rig_board_fan(b, 0, 3000, 0);
	t = rig_board_now_us(b);
	ms = reaction_ms(t, 3000000, "stalled fan 0 (stall 800 ms)");
	cr_assert(ms >= 750 && ms <= 810, "%f ms", ms);
	get_status(&s);
	cr_assert_eq(s.faults, SB_RIG_FAULT_FAN0_STALL);
	rig_board_run_us(b, SB_RIG_RPM_PERIOD_MS * 1000);
	get_status(&s);
	cr_assert_eq(s.rpm[0], 0);
	cr_assert_gt(s.rpm[1], 1700, "fan 1 still turns: %u rpm", s.rpm[1]);
	cr_assert_eq(clear_faults(SB_RIG_FAULT_FAN0_STALL, SB_RIG_ERR_FAULT_ACTIVE), 0xFFFF);
	/* Without fan 0 in the mask, it is not checked: clearable. */
	cr_assert_eq(set_limits(70, 60000, 800, 2), SB_RIG_OK);
	cr_assert_eq(clear_faults(SB_RIG_FAULT_FAN0_STALL, SB_RIG_OK), 0);
	cr_assert_eq(set_fans(600, 600), SB_RIG_OK);
	run_talking(2000000, 200000);
	get_status(&s);
	cr_assert_eq(s.faults, 0);
}

Test(rig_firmware, slow_duty_is_not_a_stall)
{
	struct sb_rig_status s;

	cr_assert_eq(set_limits(70, 60000, 500, 3), SB_RIG_OK);
	rig_board_fan(b, 0, 3000, 0);
	running(150, 500); /* fan 0 below SB_RIG_STALL_MIN_PM: many fans stop there */
	run_talking(2000000, 200000);
	get_status(&s);
	cr_assert_eq(s.faults, 0);
}

Test(rig_firmware, watchdog_reset_into_the_failsafe)
{
	struct sb_rig_status s;
	uint64_t t;
	double ms, d0, d1;

	running(200, 300);
	run_talking(500000, 100000);
	measure(4000, &d0, &d1, NULL, NULL);
	cr_assert_float_eq(d0, 0.2, 2e-3);
	/* The self-test hangs the MCU with interrupts off: only the watchdog gets it out. */
	t = rig_board_now_us(b);
	cr_assert_eq(req(SB_RIG_CMD_WATCHDOG_TEST, SB_RIG_WATCHDOG_MAGIC, 4, NULL), SB_RIG_OK);
	rig_board_run_us(b, 100000);
	cr_assert_eq(
	    rig_board_request(b, SB_RIG_CMD_GET_STATUS, NULL, 0, &(struct sb_rig_frame){0}, 10000),
	    -1, "hung: no answer");
	ms = reaction_ms(t, 1000000, "watchdog reset of a hung MCU (WDTO_250MS)");
	cr_assert(ms >= 240 && ms <= 300, "%f ms", ms);
	rig_board_run_us(b, 10000);
	get_status(&s);
	cr_assert(s.flags & SB_RIG_FLAG_FAILSAFE);
	cr_assert(s.faults & SB_RIG_FAULT_WATCHDOG);
	cr_assert_eq(s.faults & SB_RIG_FAULT_RESET, 0, "a watchdog reset, not a power-on");
	cr_assert_lt(s.uptime_ms, 200, "it rebooted");
	measure(4000, &d0, &d1, NULL, NULL);
	cr_assert_float_eq(d0, 1.0, 1e-9);
	cr_assert_float_eq(d1, 1.0, 1e-9);
	/* And it keeps running (the watchdog is fed again). */
	run_talking(1000000, 100000);
	get_status(&s);
	cr_assert_geq(s.uptime_ms, 1000);
}

static void corrupt_case(unsigned offset, uint8_t xor_mask)
{
	struct sb_rig_status s;
	struct sb_rig_frame f;
	struct sb_rig_limits l;
	uint8_t img[SB_RIG_EEPROM_BYTES];

	cr_assert_eq(set_limits(55, 2000, 1000, 1), SB_RIG_OK);
	rig_board_eeprom_read(b, 0, img, sizeof(img));
	cr_assert(sb_rig_eeprom_decode(img, &l), "the image the firmware wrote decodes");
	cr_assert_eq(l.silence_ms, 2000);
	img[offset] ^= xor_mask;
	rig_board_eeprom_write(b, 0, img, sizeof(img));
	rig_board_reset(b);
	rig_board_run_us(b, 10000);
	get_status(&s);
	cr_assert(s.flags & SB_RIG_FLAG_DEFAULTS);
	cr_assert_eq(s.faults, SB_RIG_FAULT_RESET | SB_RIG_FAULT_EEPROM);
	cr_assert_eq(req(SB_RIG_CMD_GET_LIMITS, NULL, 0, &f), SB_RIG_OK);
	sb_rig_limits_decode(f.payload + 1, &l);
	cr_assert_eq(l.heatsink_max_q2, SB_RIG_DEFAULT_HEATSINK_Q2);
	cr_assert_eq(l.silence_ms, SB_RIG_DEFAULT_SILENCE_MS);
	cr_assert_eq(l.stall_ms, SB_RIG_DEFAULT_STALL_MS);
	cr_assert_eq(l.fan_mask, SB_RIG_DEFAULT_FAN_MASK);
	cr_assert_eq(f.payload[1 + SB_RIG_LIMITS_BYTES], 1);
	/* The fault clears; writing limits again makes them valid. */
	cr_assert_eq(clear_faults(SB_RIG_FAULT_ALL, SB_RIG_OK), 0);
	cr_assert_eq(set_limits(55, 2000, 1000, 1), SB_RIG_OK);
	get_status(&s);
	cr_assert_eq(s.flags & SB_RIG_FLAG_DEFAULTS, 0);
}

Test(rig_firmware, eeprom_corrupt_limit_byte)
{
	corrupt_case(3 + 2, 0x01); /* a bit of silence_ms */
}

Test(rig_firmware, eeprom_corrupt_crc)
{
	corrupt_case(SB_RIG_EEPROM_BYTES - 1, 0x80);
}

Test(rig_firmware, eeprom_corrupt_magic)
{
	corrupt_case(0, 0xFF);
}

Test(rig_firmware, eeprom_valid_crc_out_of_range)
{
	struct sb_rig_status s;
	struct sb_rig_limits l = {SB_RIG_DEFAULT_HEATSINK_Q2, 50 /* < 100 ms */, 3000, 3};
	uint8_t img[SB_RIG_EEPROM_BYTES];

	/* A well-formed image with a value out of range is refused too. */
	sb_rig_eeprom_encode(img, &l);
	rig_board_eeprom_write(b, 0, img, sizeof(img));
	rig_board_reset(b);
	rig_board_run_us(b, 10000);
	get_status(&s);
	cr_assert(s.faults & SB_RIG_FAULT_EEPROM);
}

/* RAM: the static data (avr-size's Data line at build time: .data + .bss + .noinit) plus the
 * deepest stack seen while every path runs (frames in and out, noise, thermocouples,
 * tachometers, a fault, an EEPROM write) must leave room in the 2 KiB. */
Test(rig_firmware, ram_use)
{
	struct sb_rig_status s;
	uint8_t junk[SB_RIG_MAX_FRAME];
	unsigned peak;

	rig_board_track_stack(b);
	cr_assert_eq(set_limits(60, 2000, 800, 3), SB_RIG_OK);
	running(500, 300);
	for (unsigned i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 37);
	rig_board_send(b, junk, sizeof(junk));
	run_talking(1500000, 50000);
	rig_board_set_tc(b, SB_RIG_SENSOR_HEATSINK, 61, 25, 0);
	run_talking(300000, 50000);
	get_status(&s);
	cr_assert(s.faults & SB_RIG_FAULT_OVERTEMP);
	peak = rig_board_stack_peak(b);
	fprintf(stderr,
	        "ram: stack peak %u bytes below RAMEND (2048 B of SRAM; static data in "
	        "avr-size's Data line)\n",
	        peak);
	cr_assert_gt(peak, 20);
	cr_assert_lt(peak, 512, "stack %u B", peak);
}

/* A fast fan for long: its edge counter wraps (16 bits: 65536 edges, 98 s at 20000 rpm) and
 * edges land while the main loop is busy with frames; neither is a stall. */
Test(rig_firmware, no_false_stall_over_time)
{
	struct sb_rig_status s;

	cr_assert_eq(set_limits(70, 60000, 500, 3), SB_RIG_OK);
	rig_board_fan(b, 0, 3000, 20000);
	running(800, 800);
	run_talking(110000000, 25000);
	get_status(&s);
	cr_assert_eq(s.faults, 0, "faults 0x%x", s.faults);
	cr_assert_float_eq(s.rpm[0], 20000, 200, "%u rpm", s.rpm[0]);
}
