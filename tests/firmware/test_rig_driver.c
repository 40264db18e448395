/* SPDX-License-Identifier: MIT */
/*
 * The host driver of the cooling rig (thermal/rig.c) against the real firmware in simavr,
 * through a pty, in real time: opening (limits written, take-over faults cleared), cooling
 * configurations as PWM duties measured on the pins, the heatsink reading, the keep-alive, a
 * fail-safe (refused apply, recover), closing (the fans go to 100 % after the silence limit),
 * rig files, the settle criterion; and the client against a scripted controller that answers
 * late, damaged, out of order, or not at all.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "rig_board.h"
#include "rig_internal.h"
#include "rig_pty.h"
#include "sb_rig_proto.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/instrument.h"

static struct rig_board *b;
static struct rig_pty *pty;
static struct sb_cooling *c;
static char conn[256];

static void setup(void)
{
	b = rig_board_new(SB_RIG_ELF);
	cr_assert_not_null(b);
	rig_board_heatsink_model(b, 25, 50, 20, 0.3);
	pty = rig_pty_new(b);
	cr_assert_not_null(pty);
	cr_assert_eq(rig_pty_start(pty), 0);
	snprintf(conn, sizeof(conn), "rig:%s", rig_pty_path(pty));
}

static void teardown(void)
{
	sb_cooling_close(c);
	c = NULL;
	rig_pty_free(pty);
	rig_board_free(b);
}

TestSuite(rig_driver, .init = setup, .fini = teardown, .timeout = 60);

static void sleep_ms(unsigned ms)
{
	nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL);
}

static void open_rig(const char *opts)
{
	char s[320];
	int e;

	snprintf(s, sizeof(s), "%s%s", conn, opts);
	e = sb_cooling_open(&c, s, NULL);
	cr_assert_eq(e, 0, "%s", sb_error_detail());
}

/* Wait (at most 5 s of wall time: the simulation may run behind it on a loaded machine) until
 * the actuator's fail-safe is `on`. */
static void wait_failsafe(bool on)
{
	struct sb_cooling_state st;

	for (int i = 0; i < 500; i++) {
		cr_assert_eq(sb_cooling_status(c, &st), 0, "%s", sb_error_detail());
		if (st.failsafe == on)
			return;
		sleep_ms(10);
	}
	cr_assert_fail("the fail-safe did not go %s", on ? "on" : "off");
}

/* Duty of each fan measured on the pins over ms of simulated time (the bridge runs it). */
static void measure(unsigned ms, double *d0, double *d1)
{
	struct rig_pwm_mark m;

	rig_pty_lock(pty);
	rig_board_pwm_mark(b, &m);
	rig_pty_unlock(pty);
	sleep_ms(ms);
	rig_pty_lock(pty);
	*d0 = rig_board_pwm_duty(b, &m, 0);
	*d1 = rig_board_pwm_duty(b, &m, 1);
	rig_pty_unlock(pty);
}

Test(rig_driver, open_apply_status)
{
	struct sb_cooling_state st;
	double d0, d1;

	open_rig("?silence_s=0.5&heatsink_max_c=75");
	cr_assert_str_eq(sb_cooling_driver(c), "rig");
	cr_assert_eq(sb_cooling_count(c), 4);
	cr_assert_str_eq(sb_cooling_name(c, 2), "Cfg3");
	/* Taken over: the power-on reset and blank-EEPROM faults are cleared, the limits
	 * written. */
	cr_assert_eq(sb_cooling_status(c, &st), 0);
	cr_assert(st.has_heatsink);
	cr_assert_not(st.failsafe, "%s", st.faults_text);
	cr_assert_eq(st.faults, 0);
	cr_assert_eq(st.duty_pct[0], 100.0, "fans at 100 %% until a configuration is applied");

	cr_assert_eq(sb_cooling_apply(c, "Cfg3"), 0, "%s", sb_error_detail());
	measure(20, &d0, &d1);
	cr_assert_float_eq(d0, round(542 * 0.64) / 640, 2e-3, "fan 0 at %f", d0);
	cr_assert_float_eq(d1, 0.5, 2e-3, "fan 1 at %f", d1);
	cr_assert_eq(sb_cooling_status(c, &st), 0);
	cr_assert_str_eq(st.name, "Cfg3");
	cr_assert_float_eq(st.duty_pct[0], 54.2, 0.1);
	cr_assert_float_eq(st.duty_pct[1], 50.0, 0.1);
	cr_assert_float_eq(st.cooling_power_w, 13.9, 1e-9);
	cr_assert(isnan(st.fan_supply_v));
	cr_assert_float_eq(st.heatsink_c, 45.0, 5.0, "heatsink %f", st.heatsink_c);
	cr_assert_float_eq(st.ambient_c, 25.0, 0.25);
	cr_assert_gt(st.clock_ns, 0);

	cr_assert_eq(sb_cooling_apply(c, "Cfg9"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "known: Cfg1, Cfg2, Cfg3, Cfg4"), "%s",
	          sb_error_detail());
	cr_assert_eq(sb_cooling_describe(c, 0, &st), 0);
	cr_assert_float_eq(st.cooling_power_w, 19.32, 1e-9);
	cr_assert_float_eq(st.duty_pct[0], 100.0, 1e-9);
}

Test(rig_driver, limits_written_once)
{
	struct sb_rig *r;
	struct sb_rig_limits l;
	bool defaults = true;

	open_rig("?silence_s=0.7&heatsink_max_c=71.25&stall_s=2");
	sb_cooling_close(c);
	c = NULL;
	cr_assert_eq(sb_rig_open(&r, rig_pty_path(pty)), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_rig_get_limits(r, &l, &defaults), 0);
	cr_assert_not(defaults);
	cr_assert_eq(l.silence_ms, 700);
	cr_assert_eq(l.heatsink_max_q2, 285);
	cr_assert_eq(l.stall_ms, 2000);
	cr_assert_eq(l.fan_mask, 3);
	cr_assert_eq(sb_rig_ident(r)->proto, SB_RIG_PROTO_VERSION);
	sb_rig_close(r);
}

Test(rig_driver, keepalive_then_silence_after_close)
{
	struct sb_cooling_state st;
	double d0, d1;

	open_rig("?silence_s=0.3");
	cr_assert_eq(sb_cooling_apply(c, "Cfg4"), 0);
	/* Nothing asked for 1 s: the keep-alive thread feeds the silence timer. */
	sleep_ms(1000);
	cr_assert_eq(sb_cooling_status(c, &st), 0);
	cr_assert_not(st.failsafe, "%s", st.faults_text);
	measure(20, &d0, &d1);
	cr_assert_float_eq(d0, 0.5, 2e-3);
	/* The host goes away: after 0.3 s (simulated) the controller drives the fans at 100 %. */
	sb_cooling_close(c);
	c = NULL;
	for (int i = 0; i < 100; i++) {
		measure(20, &d0, &d1);
		if (d0 == 1.0 && d1 == 1.0)
			break;
		sleep_ms(30);
	}
	cr_assert_float_eq(d0, 1.0, 1e-9);
	cr_assert_float_eq(d1, 1.0, 1e-9);
}

Test(rig_driver, failsafe_refuses_then_recovers)
{
	struct sb_cooling_state st;
	double d0, d1;
	int e;

	open_rig("?silence_s=1&heatsink_max_c=60");
	cr_assert_eq(sb_cooling_apply(c, "Cfg2"), 0);
	rig_pty_lock(pty);
	rig_board_set_tc(b, SB_RIG_SENSOR_HEATSINK, 61, 25, 0);
	rig_pty_unlock(pty);
	wait_failsafe(true);
	cr_assert_eq(sb_cooling_status(c, &st), 0);
	cr_assert(st.failsafe);
	cr_assert_eq(st.faults, SB_RIG_FAULT_OVERTEMP);
	cr_assert_str_eq(st.faults_text, "overtemp");
	measure(20, &d0, &d1);
	cr_assert_float_eq(d0, 1.0, 1e-9);
	e = sb_cooling_apply(c, "Cfg3");
	cr_assert_eq(e, SB_ERR_STATE);
	cr_assert(strstr(sb_error_detail(), "fail-safe (fans at 100 %): overtemp (still present)"),
	          "%s", sb_error_detail());
	cr_assert_eq(sb_cooling_recover(c), SB_ERR_STATE);
	cr_assert(strstr(sb_error_detail(), "still present: overtemp"), "%s", sb_error_detail());
	rig_pty_lock(pty);
	rig_board_set_tc(b, SB_RIG_SENSOR_HEATSINK, 50, 25, 0);
	rig_pty_unlock(pty);
	for (int i = 0; i < 500 && (e = sb_cooling_recover(c)) == SB_ERR_STATE; i++)
		sleep_ms(10);
	cr_assert_eq(e, 0, "%s", sb_error_detail());
	/* The applied configuration (Cfg2) is back. */
	measure(20, &d0, &d1);
	cr_assert_float_eq(d0, round(833 * 0.64) / 640, 2e-3, "%f", d0);
	cr_assert_eq(sb_cooling_status(c, &st), 0);
	cr_assert_not(st.failsafe);
	cr_assert_str_eq(st.name, "Cfg2");
}

Test(rig_driver, settle)
{
	struct sb_cooling_settle crit = {
	    .tolerance_c = 0.25, .window_s = 0.5, .max_s = 10, .poll_s = 0.1};
	struct sb_cooling_settled out;
	struct sb_device *dev;
	double before, after;

	cr_assert_eq(sb_device_open(&dev, "sim:"), 0, "%s", sb_error_detail());
	open_rig("?silence_s=1");
	cr_assert_eq(sb_cooling_apply(c, "Cfg4"), 0);
	cr_assert_eq(sb_cooling_settle(c, dev, &crit, &out), 0, "%s", sb_error_detail());
	cr_assert(out.waited);
	cr_assert(out.settled);
	before = out.heatsink_c;
	cr_assert_eq(sb_cooling_apply(c, "Cfg1"), 0);
	cr_assert_eq(sb_cooling_settle(c, dev, &crit, &out), 0, "%s", sb_error_detail());
	after = out.heatsink_c;
	cr_assert(out.settled);
	cr_assert_geq(out.seconds, 0.5);
	cr_assert_leq(out.span_c, 0.25);
	/* The model: rise 20 + 30 x (1 - duty); Cfg4 (50 %, 33 %) ~ 60 C, Cfg1 45 C. */
	cr_assert_float_eq(before, 25 + 20 + 30 * (1 - (0.7 * 0.5 + 0.3 * 0.333)), 0.6, "%f",
	                   before);
	cr_assert_float_eq(after, 45.0, 0.6, "%f", after);
	fprintf(stderr,
	        "settle: Cfg4 -> Cfg1, heatsink %.2f C -> %.2f C in %.2f s (criterion "
	        "%.2f C over %.1f s)\n",
	        before, after, out.seconds, crit.tolerance_c, crit.window_s);
	/* A rig in its fail-safe cannot settle. */
	rig_pty_lock(pty);
	rig_board_set_tc(b, SB_RIG_SENSOR_AMBIENT, 25, 25, SB_RIG_TC_OPEN);
	rig_pty_unlock(pty);
	wait_failsafe(true);
	cr_assert_eq(sb_cooling_settle(c, dev, &crit, &out), SB_ERR_STATE);
	cr_assert(strstr(sb_error_detail(), "ambient thermocouple"), "%s", sb_error_detail());
	sb_device_close(dev);
}

Test(rig_driver, user_rig_file)
{
	char path[] = "/tmp/sb-rig-file-XXXXXX", s[512];
	struct sb_cooling_state st;
	FILE *f;
	int fd = mkstemp(path);
	double d0, d1;

	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	fputs("name: bench2\nconfigurations:\n  - {name: quiet, duty_pct: [25, 0]}\n"
	      "  - {name: loud, duty_pct: [90, 75.5]}\nlimits: {silence_s: 2, fans: [0]}\n",
	      f);
	fclose(f);
	snprintf(s, sizeof(s), "%s?config=%s", conn, path);
	cr_assert_eq(sb_cooling_open(&c, s, NULL), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_cooling_count(c), 2);
	cr_assert_eq(sb_cooling_apply(c, "loud"), 0);
	measure(20, &d0, &d1);
	cr_assert_float_eq(d0, 0.9, 2e-3);
	cr_assert_float_eq(d1, 0.75, 0.0125 + 1e-3); /* 80 steps */
	/* Without cooling_power_w: the fans' share of full power, duty cubed. */
	cr_assert_eq(sb_cooling_describe(c, 1, &st), 0);
	cr_assert_float_eq(st.cooling_power_w, (0.9 * 0.9 * 0.9 + 0.755 * 0.755 * 0.755) / 2, 1e-9);
	sb_cooling_close(c);
	c = NULL;

	/* Malformed files name the file, the line and the key. */
	f = fopen(path, "w");
	fputs("configurations:\n  - {name: quiet, duty_pct: [25]}\n", f);
	fclose(f);
	cr_assert_eq(sb_cooling_open(&c, s, NULL), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "line 2: key 'duty_pct': one duty per fan (2), got 1"),
	          "%s", sb_error_detail());
	f = fopen(path, "w");
	fputs("configurations:\n  - {name: q, duty_pct: [25, 101]}\n", f);
	fclose(f);
	cr_assert_eq(sb_cooling_open(&c, s, NULL), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "line 2"), "%s", sb_error_detail());
	f = fopen(path, "w");
	fputs("configurations:\n  - {name: q, duty_pct: [25, 10]}\nlimits: {silence_s: 0.01}\n", f);
	fclose(f);
	cr_assert_eq(sb_cooling_open(&c, s, NULL), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "line 3"), "%s", sb_error_detail());
	unlink(path);
}

Test(rig_driver, bad_connections)
{
	char s[320];

	cr_assert_eq(sb_instrument_check(SB_INSTRUMENT_COOLING, "rig:/dev/ttyUSB0"), 0);
	snprintf(s, sizeof(s), "%s?silence_s=0.01", conn);
	cr_assert_eq(sb_cooling_open(&c, s, NULL), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "silence_s=0.01: expected 0.1..600"), "%s",
	          sb_error_detail());
	snprintf(s, sizeof(s), "%s?fan=3", conn);
	cr_assert_eq(sb_cooling_open(&c, s, NULL), SB_ERR_URI);
	/* one rule, one hint for every instrument on a node: the rig says what a meter says */
	cr_assert_eq(sb_cooling_open(&c, "rig:/nonexistent/tty", NULL), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(),
	                 "'/nonexistent/tty' does not exist: is the instrument plugged in? "
	                 "('stackbench instruments' lists what is)"),
	          "%s", sb_error_detail());
	{
		struct sb_power_source *ps = NULL;

		cr_assert_eq(sb_power_source_open(&ps, "wattsup:/nonexistent/tty", NULL),
		             SB_ERR_NOT_FOUND);
		cr_assert(strstr(sb_error_detail(),
		                 "'/nonexistent/tty' does not exist: is the instrument plugged in? "
		                 "('stackbench instruments' lists what is)"),
		          "%s", sb_error_detail());
	}
	cr_assert_eq(sb_cooling_open(&c, "rig:/dev/null", NULL), SB_ERR_IO);
	cr_assert(strstr(sb_error_detail(), "'/dev/null' is not a tty"), "%s", sb_error_detail());
	cr_assert_eq(sb_cooling_open(&c, "rig:COM3", NULL), SB_ERR_URI);
	snprintf(s, sizeof(s), "%s?config=/nonexistent.yaml", conn);
	cr_assert_eq(sb_cooling_open(&c, s, NULL), SB_ERR_NOT_FOUND);
	/* No FT232R here: a clean error, whatever libusb finds. */
	cr_assert_lt(sb_cooling_open(&c, "rig:ftdi:NOSUCH", NULL), 0);
	cr_assert_null(c);
	/* One host per rig, and the busy one names its holder (this process) like a board. */
	open_rig("");
	cr_assert_eq(sb_cooling_open(&(struct sb_cooling *){NULL}, conn, NULL), SB_ERR_BUSY);
	{
		char held[64];

		snprintf(held, sizeof(held), "is busy, held by PID %ld (", (long)getpid());
		cr_assert(strstr(sb_error_detail(), held), "%s", sb_error_detail());
	}
}

/* ---- the client against a scripted controller --------------------------------------------- */

enum misbehave {
	ANSWER_OK,
	ANSWER_NOTHING,   /* lost */
	ANSWER_DAMAGED,   /* bad CRC on the way back */
	ANSWER_STALE,     /* an old answer first (wrong sequence number), then the right one */
	ANSWER_BAD_CRC,   /* the controller saw our frame damaged */
	ANSWER_GARBAGE,   /* noise, then the answer */
	ANSWER_SHORT,     /* a status answer with a payload too short */
	ANSWER_TRUNCATED, /* half a frame */
};

struct scripted {
	int master;
	char path[64];
	enum misbehave script[16];
	unsigned n, at, requests;
	pthread_t thread;
	volatile bool stop;
};

static void send_frame(struct scripted *sc, uint8_t seq, uint8_t cmd, const uint8_t *p, uint8_t len,
                       bool damage)
{
	uint8_t buf[SB_RIG_MAX_FRAME];
	size_t n = sb_rig_encode(buf, sizeof(buf), seq, cmd, p, len);

	if (damage)
		buf[n - 1] ^= 0x5A;
	cr_assert_eq(write(sc->master, buf, n), (ssize_t)n);
}

static void *controller_main(void *arg)
{
	struct scripted *sc = arg;
	struct sb_rig_decoder d;
	struct sb_rig_frame f;

	sb_rig_decoder_init(&d);
	while (!sc->stop) {
		uint8_t byte, ans[1 + SB_RIG_STATUS_BYTES] = {SB_RIG_OK};
		uint8_t len = 1;
		enum misbehave m;

		if (read(sc->master, &byte, 1) != 1) {
			sleep_ms(1);
			continue;
		}
		if (sb_rig_decode_byte(&d, byte, &f) != SB_RIG_DEC_FRAME)
			continue;
		sc->requests++;
		m = sc->at < sc->n ? sc->script[sc->at++] : ANSWER_OK;
		if (f.cmd == SB_RIG_CMD_IDENTIFY) {
			struct sb_rig_ident id = {
			    SB_RIG_PROTO_VERSION, 9, 9, 9, 0x1234, SB_RIG_FANS, SB_RIG_SENSORS};

			sb_rig_ident_encode(ans + 1, &id);
			len = 1 + SB_RIG_IDENT_BYTES;
		} else if (f.cmd == SB_RIG_CMD_GET_STATUS) {
			struct sb_rig_status st = {.uptime_ms = 777, .tc_q2 = {200, 100}};

			sb_rig_status_encode(ans + 1, &st);
			len = 1 + SB_RIG_STATUS_BYTES;
		}
		switch (m) {
		case ANSWER_NOTHING:
			break;
		case ANSWER_DAMAGED:
			send_frame(sc, f.seq, f.cmd | SB_RIG_RESPONSE, ans, len, true);
			break;
		case ANSWER_STALE:
			send_frame(sc, (uint8_t)(f.seq - 1), f.cmd | SB_RIG_RESPONSE, ans, len,
			           false);
			send_frame(sc, f.seq, f.cmd | SB_RIG_RESPONSE, ans, len, false);
			break;
		case ANSWER_BAD_CRC:
			ans[0] = SB_RIG_ERR_BAD_CRC;
			send_frame(sc, f.seq, f.cmd | SB_RIG_RESPONSE, ans, 1, false);
			break;
		case ANSWER_GARBAGE: {
			static const uint8_t junk[] = {0x00, SB_RIG_START, 0xFF, 0x13,
			                               SB_RIG_START};

			cr_assert_eq(write(sc->master, junk, sizeof(junk)), (ssize_t)sizeof(junk));
			send_frame(sc, f.seq, f.cmd | SB_RIG_RESPONSE, ans, len, false);
			break;
		}
		case ANSWER_SHORT:
			send_frame(sc, f.seq, f.cmd | SB_RIG_RESPONSE, ans, 5, false);
			break;
		case ANSWER_TRUNCATED: {
			uint8_t buf[SB_RIG_MAX_FRAME];
			size_t n = sb_rig_encode(buf, sizeof(buf), f.seq, f.cmd | SB_RIG_RESPONSE,
			                         ans, len);

			cr_assert_eq(write(sc->master, buf, n / 2), (ssize_t)(n / 2));
			break;
		}
		default:
			send_frame(sc, f.seq, f.cmd | SB_RIG_RESPONSE, ans, len, false);
		}
	}
	return NULL;
}

static void scripted_start(struct scripted *sc)
{
	sc->master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	cr_assert_geq(sc->master, 0);
	cr_assert_eq(grantpt(sc->master), 0);
	cr_assert_eq(unlockpt(sc->master), 0);
	cr_assert_eq(ptsname_r(sc->master, sc->path, sizeof(sc->path)), 0);
	cr_assert_eq(pthread_create(&sc->thread, NULL, controller_main, sc), 0);
}

static void scripted_stop(struct scripted *sc)
{
	sc->stop = true;
	pthread_join(sc->thread, NULL);
	close(sc->master);
}

Test(rig_client, survives_a_hostile_line)
{
	struct scripted sc = {.script = {ANSWER_OK, /* identify */
	                                 ANSWER_NOTHING, ANSWER_OK, ANSWER_DAMAGED, ANSWER_OK,
	                                 ANSWER_STALE, ANSWER_BAD_CRC, ANSWER_OK, ANSWER_GARBAGE,
	                                 ANSWER_TRUNCATED, ANSWER_OK},
	                      .n = 11};
	struct sb_rig *r;
	struct sb_rig_status st;

	scripted_start(&sc);
	cr_assert_eq(sb_rig_open(&r, sc.path), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_rig_ident(r)->fw_major, 9);
	for (int i = 0; i < 6; i++) {
		cr_assert_eq(sb_rig_get_status(r, &st), 0, "request %d: %s", i, sb_error_detail());
		cr_assert_eq(st.uptime_ms, 777);
		cr_assert_eq(st.tc_q2[0], 200);
	}
	cr_assert_eq(sc.requests, 11, "lost, damaged, refused and cut answers were retried");
	/* A short answer is a parse error, not a crash. */
	sc.script[sc.n++] = ANSWER_SHORT;
	cr_assert_eq(sb_rig_get_status(r, &st), SB_ERR_PARSE);
	/* Three lost answers in a row: a timeout. */
	for (int i = 0; i < SB_RIG_TRIES; i++)
		sc.script[sc.n++] = ANSWER_NOTHING;
	cr_assert_eq(sb_rig_get_status(r, &st), SB_ERR_TIMEOUT);
	cr_assert(strstr(sb_error_detail(), "no answer to command 0x03 after 3 tries (1750 ms)"),
	          "%s", sb_error_detail());
	sb_rig_close(r);
	scripted_stop(&sc);
}

Test(rig_client, silent_line)
{
	struct scripted sc = {
	    .script = {ANSWER_NOTHING, ANSWER_NOTHING, ANSWER_NOTHING, ANSWER_NOTHING,
	               ANSWER_NOTHING, ANSWER_NOTHING, ANSWER_NOTHING, ANSWER_NOTHING,
	               ANSWER_NOTHING, ANSWER_NOTHING, ANSWER_NOTHING, ANSWER_NOTHING,
	               ANSWER_NOTHING, ANSWER_NOTHING, ANSWER_NOTHING, ANSWER_NOTHING},
	    .n = 16};
	struct sb_rig *r = NULL;

	scripted_start(&sc);
	cr_assert_eq(sb_rig_open(&r, sc.path), SB_ERR_TIMEOUT);
	cr_assert_null(r);
	cr_assert_eq(sc.requests, SB_RIG_OPEN_WAIT_MS / SB_RIG_TIMEOUT_MS,
	             "IDENTIFY asked for %d ms", SB_RIG_OPEN_WAIT_MS);
	scripted_stop(&sc);
}
