/* SPDX-License-Identifier: MIT */
/*
 * rig:ftdi through the real libftdi and libusb under a replayed FT232R carrying the cooling-rig
 * controller (gen_ft232r_replay rig VARIANT PREFIX, run by umockdev-run with the wire tap
 * usbfs_tap.c): the state the driver reports in each phase of rig_replay.h, the errors of a
 * refused command, and every frame the driver sent (PREFIX.tap), decoded with the protocol's
 * pure decoder.
 *
 *   rig_ftdi_check ok|absent|noopen|refuse|serial|wrongserial PREFIX
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ft232r.h"
#include "rig_replay.h"
#include "stackbench/error.h"
#include "stackbench/instrument.h"

#define CONN "rig:ftdi"
#define WHERE "FT232R 0403:6001" /* how the driver names the link */
#define TAP_MAX 256

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

/* The driver's report against the controller's GET_STATUS answer of the phase. */
static int check_state(const char *step, const struct sb_cooling_state *s, enum rig_phase p,
                       const char *applied, double cooling_power_w, const char *faults_text)
{
	struct sb_rig_status w;

	rig_replay_status(p, &w);
	printf("%-9s %s: duty %.1f/%.1f %% rpm %.0f/%.0f heatsink %.2f C ambient %.2f C%s "
	       "faults '%s' clock %.3f s\n",
	       step, s->name[0] ? s->name : "(none)", s->duty_pct[0], s->duty_pct[1], s->rpm[0],
	       s->rpm[1], s->heatsink_c, s->ambient_c, s->failsafe ? " FAIL-SAFE" : "",
	       s->faults_text, (double)s->clock_ns / 1e9);
	CHECK(!strcmp(s->name, applied), "%s: configuration '%s', want '%s'", step, s->name,
	      applied);
	CHECK(s->nfans == SB_RIG_FANS && near(s->duty_pct[0], w.duty_pm[0] / 10.0) &&
	          near(s->duty_pct[1], w.duty_pm[1] / 10.0) && near(s->rpm[0], w.rpm[0]) &&
	          near(s->rpm[1], w.rpm[1]) && near(s->fan_rpm, w.rpm[0]),
	      "%s: fans are not the controller's", step);
	CHECK(s->has_heatsink && near(s->heatsink_c, w.tc_q2[0] / 4.0) &&
	          near(s->ambient_c, w.tc_q2[1] / 4.0),
	      "%s: thermocouples are not the controller's", step);
	CHECK(s->failsafe == !!(w.flags & SB_RIG_FLAG_FAILSAFE) && s->faults == w.faults &&
	          s->faults_active == w.active && !strcmp(s->faults_text, faults_text),
	      "%s: fail-safe %d faults 0x%x/0x%x '%s', want %d 0x%x/0x%x '%s'", step, s->failsafe,
	      s->faults, s->faults_active, s->faults_text, !!(w.flags & SB_RIG_FLAG_FAILSAFE),
	      w.faults, w.active, faults_text);
	CHECK(s->clock_ns == (uint64_t)w.uptime_ms * 1000000u, "%s: clock %llu ns, want %u ms",
	      step, (unsigned long long)s->clock_ns, w.uptime_ms);
	CHECK(isnan(cooling_power_w) ? isnan(s->cooling_power_w)
	                             : near(s->cooling_power_w, cooling_power_w),
	      "%s: cooling power %.2f W", step, s->cooling_power_w);
	return 0;
}

/* ---- what the driver sent ------------------------------------------------------------------ */

struct sent {
	uint8_t seq, cmd, len;
	uint8_t payload[SB_RIG_MAX_PAYLOAD];
};

/* The frames of the tap log's OUT entries (each one whole frame with a good CRC). */
static int decode_frames(const struct ft232r_tap_entry *t, int n, int from, struct sent *out,
                         int cap)
{
	int k = 0;

	for (int i = from; i < n; i++) {
		struct sb_rig_decoder d;
		struct sb_rig_frame f;
		enum sb_rig_decode_result r = SB_RIG_DEC_MORE;

		CHECK(t[i].kind == 'O', "tap entry %d: a control transfer after the open", i);
		sb_rig_decoder_init(&d);
		for (size_t b = 0; b < t[i].len; b++) {
			r = sb_rig_decode_byte(&d, t[i].data[b], &f);
			CHECK(r == SB_RIG_DEC_MORE || (r == SB_RIG_DEC_FRAME && b == t[i].len - 1),
			      "tap entry %d: not one whole frame with a good CRC", i);
		}
		CHECK(r == SB_RIG_DEC_FRAME && k < cap, "tap entry %d: no frame", i);
		out[k] = (struct sent){f.seq, f.cmd, f.len, {0}};
		memcpy(out[k].payload, f.payload, f.len);
		k++;
	}
	return k;
}

struct want {
	uint8_t cmd;
	uint8_t len;
	uint8_t payload[SB_RIG_LIMITS_BYTES];
	int status_before; /* GET_STATUS requests just before it: at least this many */
	bool exact;        /* ... and no more (no keep-alive runs yet) */
};

static struct want want_fans(uint16_t d0, uint16_t d1, int status_before)
{
	struct want w = {SB_RIG_CMD_SET_FANS, 4, {0}, status_before, false};

	sb_rig_put16(w.payload, d0);
	sb_rig_put16(w.payload + 2, d1);
	return w;
}

static struct want want_clear(uint16_t mask, int status_before, bool exact)
{
	struct want w = {SB_RIG_CMD_CLEAR_FAULTS, 2, {0}, status_before, exact};

	sb_rig_put16(w.payload, mask);
	return w;
}

/* The requests in order (rig_replay.h), with the GET_STATUS before each. */
static int check_frames(const struct sent *s, int n)
{
	struct sb_rig_limits lim;
	struct want w[12];
	int nw = 0, i = 0, st;

	rig_replay_file_limits(&lim);
	w[nw++] = (struct want){SB_RIG_CMD_IDENTIFY, 0, {0}, 0, true};
	w[nw++] = (struct want){SB_RIG_CMD_IDENTIFY, 0, {0}, 0, true};
	w[nw++] = (struct want){SB_RIG_CMD_GET_LIMITS, 0, {0}, 0, true};
	w[nw] = (struct want){SB_RIG_CMD_SET_LIMITS, SB_RIG_LIMITS_BYTES, {0}, 0, true};
	sb_rig_limits_encode(w[nw++].payload, &lim);
	w[nw] = w[nw - 1]; /* again after the controller's BAD_CRC */
	nw++;
	/* The take-over reads the status, then clears the faults of a fresh controller; from
	 * there on the keep-alive's GET_STATUS may come in between. */
	w[nw++] = want_clear(RIG_TAKEOVER_CLEAR, 1, true);
	w[nw++] = want_fans(RIG_CFG2_DUTY0, RIG_CFG2_DUTY1, 1);
	w[nw++] = want_fans(RIG_CFG3_DUTY0, RIG_CFG3_DUTY1, 1);
	w[nw++] = want_clear(SB_RIG_FAULT_ALL, 2, false); /* refused, then a status */
	w[nw++] = want_clear(SB_RIG_FAULT_ALL, 1, false);
	w[nw++] = want_fans(RIG_CFG2_DUTY0, RIG_CFG2_DUTY1, 0); /* the recovery re-applies */
	for (int k = 0; k < n; k++)
		CHECK(s[k].seq == k + 1, "frame %d has sequence number %u, want %d", k, s[k].seq,
		      k + 1);
	for (int k = 0; k < nw; k++, i++) {
		for (st = 0; i < n && s[i].cmd == SB_RIG_CMD_GET_STATUS && s[i].len == 0; i++)
			st++;
		CHECK(w[k].exact ? st == w[k].status_before : st >= w[k].status_before,
		      "%d GET_STATUS before request %d (command 0x%02x)", st, k, w[k].cmd);
		CHECK(i < n && s[i].cmd == w[k].cmd && s[i].len == w[k].len &&
		          !memcmp(s[i].payload, w[k].payload, w[k].len),
		      "frame %d: want command 0x%02x with its %u-byte payload", i, w[k].cmd,
		      w[k].len);
	}
	for (st = 0; i < n; i++, st++)
		CHECK(s[i].cmd == SB_RIG_CMD_GET_STATUS && s[i].len == 0,
		      "frame %d: command 0x%02x after the last request", i, s[i].cmd);
	CHECK(st >= 1, "no GET_STATUS after the last request");
	return 0;
}

/*
 * What the driver sent (the tap log): the serial number read first when one was asked for (the
 * language IDs, then string 3), the vendor requests of the open, then frames: decoded into s,
 * *ns of them.
 */
static int sent_frames(const char *prefix, bool serial, struct sent *s, int *ns)
{
	static struct ft232r_tap_entry t[TAP_MAX];
	int n = ft232r_tap_load(prefix, t, TAP_MAX), at = 0;

	CHECK(n > 0, "tap log: %d entries", n);
	if (serial) {
		CHECK(n > 2 && t[0].kind == 'C' && t[0].data[1] == 0x06 && t[0].data[2] == 0 &&
		          t[1].kind == 'C' && t[1].data[1] == 0x06 && t[1].data[2] == 3,
		      "the serial number read first (language IDs, string 3)");
		at = 2;
	}
	if (ft232r_tap_expect_open(t, n, &at, FT232R_RIG))
		return 1;
	*ns = decode_frames(t, n, at, s, TAP_MAX);
	return *ns <= 0;
}

static int check_tap(const char *prefix)
{
	struct sent s[TAP_MAX];
	int ns;

	if (sent_frames(prefix, false, s, &ns) || check_frames(s, ns))
		return 1;
	/* The session's own frames: 7 to open, 5 commands and 6 GET_STATUS after it. */
	printf("sent: the open's vendor requests, %d frames in sequence (%d keep-alives)\n", ns,
	       ns - 18);
	CHECK(ns - 18 >= 1, "the keep-alive sent nothing in 2.2 s");
	return 0;
}

/* ---- the session ---------------------------------------------------------------------------- */

static int run_ok(const char *prefix)
{
	struct sb_cooling *c;
	struct sb_cooling_state st;
	int err;

	err = sb_cooling_open(&c, CONN, NULL);
	CHECK(err == 0, "open '%s': %s", CONN, sb_error_detail());
	CHECK(sb_cooling_count(c) == 4 && !strcmp(sb_cooling_name(c, 1), "Cfg2"),
	      "the rig file's configurations");
	err = sb_cooling_status(c, &st);
	CHECK(err == 0, "status: %s", sb_error_detail());
	if (check_state("taken", &st, RIG_IDLE, "", NAN, ""))
		return 1;
	err = sb_cooling_apply(c, "Cfg2");
	CHECK(err == 0, "apply Cfg2: %s", sb_error_detail());
	err = sb_cooling_status(c, &st);
	CHECK(err == 0, "status: %s", sb_error_detail());
	if (check_state("cooling", &st, RIG_COOLING, "Cfg2", 15.9, ""))
		return 1;
	/* Let the keep-alive (every second with the rig file's 5 s silence limit) feed the
	 * controller over the FT232R a couple of times. */
	nanosleep(&(struct timespec){2, 200000000}, NULL);
	err = sb_cooling_apply(c, "Cfg3");
	printf("apply Cfg3: %s\n", sb_error_detail());
	CHECK(err == SB_ERR_STATE &&
	          !strcmp(sb_error_detail(), "cooling rig '" WHERE "' is in its fail-safe (fans at "
	                                     "100 %): overtemp (still present)"),
	      "apply Cfg3 in the fail-safe: %d", err);
	err = sb_cooling_status(c, &st);
	CHECK(err == 0, "status: %s", sb_error_detail());
	if (check_state("failsafe", &st, RIG_FAILSAFE, "Cfg2", 15.9, "overtemp"))
		return 1;
	err = sb_cooling_recover(c);
	printf("recover: %s\n", sb_error_detail());
	CHECK(err == SB_ERR_STATE &&
	          !strcmp(sb_error_detail(),
	                  "cooling rig '" WHERE "': cannot clear faults still present: overtemp"),
	      "recover while over temperature: %d", err);
	err = sb_cooling_recover(c);
	CHECK(err == 0, "recover: %s", sb_error_detail());
	err = sb_cooling_status(c, &st);
	CHECK(err == 0, "status: %s", sb_error_detail());
	if (check_state("cooled", &st, RIG_COOLED, "Cfg2", 15.9, ""))
		return 1;
	sb_cooling_close(c);
	return check_tap(prefix);
}

/* The open fails as it must; nothing went to the chip beyond max_urbs URBs. */
static int run_failed_open(const char *prefix, const char *conn, int want_err, const char *want,
                           int max_urbs)
{
	struct sb_cooling *c = NULL;
	struct ft232r_tap_entry t[8];
	int err = sb_cooling_open(&c, conn, NULL);

	printf("open '%s': %d %s\n", conn, err, sb_error_detail());
	CHECK(err == want_err && strstr(sb_error_detail(), want), "want %d and '%s'", want_err,
	      want);
	CHECK(ft232r_tap_load(prefix, t, 8) <= max_urbs, "URBs after the failure");
	return 0;
}

static int run_wrongserial(const char *prefix)
{
	return run_failed_open(prefix, CONN ":NOSUCH01", SB_ERR_NOT_FOUND,
	                       WHERE " serial NOSUCH01: device not found", 2);
}

static int run_absent(const char *prefix)
{
	return run_failed_open(prefix, CONN, SB_ERR_NOT_FOUND, WHERE ": device not found", 0);
}

static int run_noopen(const char *prefix)
{
	return run_failed_open(prefix, CONN, SB_ERR_PERM,
	                       WHERE ": usb_open() failed; permission denied: install the udev "
	                             "rules",
	                       0);
}

static int run_refuse(const char *prefix)
{
	return run_failed_open(prefix, CONN, SB_ERR_IO, WHERE ": ftdi_usb_reset failed", 1);
}

/* rig:ftdi:SERIAL: libftdi reads the serial number (a string descriptor, replayed from a
 * usbmon capture), then the session of a controller that needs no take-over. */
static int run_serial(const char *prefix)
{
	struct sent s[TAP_MAX];
	struct sb_cooling *c;
	struct sb_cooling_state st;
	int err, ns;

	err = sb_cooling_open(&c, CONN ":" FT232R_SERIAL, NULL);
	CHECK(err == 0, "open '%s': %s", CONN ":" FT232R_SERIAL, sb_error_detail());
	err = sb_cooling_status(c, &st);
	CHECK(err == 0, "status: %s", sb_error_detail());
	if (check_state("serial", &st, RIG_IDLE, "", NAN, ""))
		return 1;
	sb_cooling_close(c);
	if (sent_frames(prefix, true, s, &ns))
		return 1;
	CHECK(ns >= 4 && s[0].cmd == SB_RIG_CMD_IDENTIFY && s[1].cmd == SB_RIG_CMD_GET_LIMITS,
	      "IDENTIFY, GET_LIMITS");
	for (int i = 0; i < ns; i++)
		CHECK(s[i].seq == i + 1 && (i < 2 || s[i].cmd == SB_RIG_CMD_GET_STATUS),
		      "frame %d: sequence %u command 0x%02x", i, s[i].seq, s[i].cmd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct ft232r_variant v[] = {
	    {"ok", run_ok},         {"absent", run_absent}, {"noopen", run_noopen},
	    {"refuse", run_refuse}, {"serial", run_serial}, {"wrongserial", run_wrongserial},
	};

	return ft232r_check_main(argc, argv, v, sizeof(v) / sizeof(v[0]));
}
