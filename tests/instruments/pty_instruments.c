/* SPDX-License-Identifier: MIT */
/*
 * Serial and SCPI instruments against protocol simulators on a pty: a child process plays the
 * instrument on the pty's master side (Watts up? PRO records, a Yokogawa WT310 answering SCPI,
 * a Korad KA3005P supply), the parent opens the real driver on the slave path, exactly as it
 * would open /dev/ttyUSB0, /dev/usbtmc0 or /dev/ttyACM0.
 *
 *   pty_instruments wattsup|wt310|korad ok|garbage|partial|silence|close
 *   pty_instruments rig-korad RIG_TTY
 *   pty_instruments probe wattsup|wt310|korad|korad-cooling STACKBENCH
 *
 * probe: `stackbench instruments --probe SCHEME:PATH --json` against the simulator, its readings
 * checked against what the simulator serves (the Korad: on at 12 V, 0.45 A drawn, read as a
 * meter and, with --as cooling, as a fan supply).
 *
 * rig-korad: the cooling rig (the real firmware in simavr behind RIG_TTY, sb-rig-sim) with the
 * backplane fans on the Korad: rig:RIG_TTY?supply=korad:/dev/ttyACM7.
 *
 * Each run checks values and the error the user sees; it prints what it saw.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#include <cjson/cJSON.h>
#include <umockdev.h>

#include "stackbench/error.h"
#include "stackbench/instrument.h"

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL: " __VA_ARGS__);                                     \
			fputc('\n', stderr);                                                       \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

#define RECORDS_BEFORE_FAULT 8
#define INTERVAL_MS 100

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
	nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000}, NULL);
}

static void put(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* Read what came within ms; returns bytes (0 on timeout), -1 when the other side is gone. */
static int get(int fd, char *buf, size_t cap, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return 0;
	n = read(fd, buf, cap);
	return n > 0 ? (int)n : n == 0 || errno != EAGAIN ? -1 : 0;
}

/* ---- simulators (child process, or a thread for the Korad) -------------------------------- */

/* Set when a simulator thread must return (the Korad's; the others are processes, killed). */
static atomic_bool sim_stop;

static bool sim_running(uint64_t end)
{
	return !atomic_load(&sim_stop) && now_ms() < end;
}

static void sim_wattsup(int fd, const char *fault)
{
	char in[256];
	unsigned sent = 0;
	bool logging = false;
	uint64_t next = 0, end = now_ms() + 20000;

	while (sim_running(end)) {
		int n = get(fd, in, sizeof(in) - 1, 10);

		if (n < 0)
			return;
		in[n > 0 ? n : 0] = '\0';
		if (strstr(in, "#L,W,3,E,,1;"))
			logging = true;
		if (strstr(in, "#L,W,3,I,,1;"))
			logging = false;
		if (!logging || now_ms() < next)
			continue;
		next = now_ms() + INTERVAL_MS;
		if (sent == RECORDS_BEFORE_FAULT) {
			if (!strcmp(fault, "silence"))
				logging = false;
			if (!strcmp(fault, "close"))
				return;
			if (!strcmp(fault, "garbage"))
				put(fd, "\x01\xff noise #d,-,18,zz,1,2;#x;;;\r\n#d,-,3,1,2,3;\r\n");
			if (!strcmp(fault, "partial"))
				put(fd, "#d,-,18,9999,120");
		}
		/* 123.4 W, 120.1 V, 1.027 A, ... PF 100, 60.0 Hz, 123.9 VA */
		put(fd, "#d,-,18,1234,1201,1027,55,_,_,_,1300,1210,1100,1200,1190,1000,100,0,0,600,"
		        "1239;\r\n");
		sent++;
	}
}

static void sim_wt310(int fd, const char *fault)
{
	char in[512];
	size_t len = 0;
	unsigned answered = 0;
	uint64_t end = now_ms() + 20000, next_update = now_ms();

	while (sim_running(end)) {
		int n = get(fd, in + len, sizeof(in) - 1 - len, 10);
		char *nl;

		if (n < 0)
			return;
		len += (size_t)n;
		in[len] = '\0';
		while ((nl = strchr(in, '\n'))) {
			*nl = '\0';
			if (!strcmp(in, "*IDN?"))
				put(fd, "YOKOGAWA,WT310,C2PH12345,F1.03\n");
			else if (!strcmp(in, ":RATE?"))
				put(fd, "100.0E-03\n");
			else if (!strcmp(in, ":STAT:EESR?"))
				put(fd, "1\n");
			else if (!strcmp(in, ":COMM:WAIT 1")) {
				while (now_ms() < next_update)
					sleep_ms(5);
				next_update = now_ms() + INTERVAL_MS;
			} else if (!strcmp(in, ":NUM:NORM:VAL?")) {
				bool fault_now = ++answered > RECORDS_BEFORE_FAULT;

				if (fault_now && !strcmp(fault, "close"))
					return;
				if (fault_now && !strcmp(fault, "garbage") && answered < 12)
					put(fd, "ZZ\x02,??\n");
				else if (fault_now && !strcmp(fault, "partial") && answered == 9)
					put(fd, "45.2");
				else if (!(fault_now && !strcmp(fault, "silence")))
					put(fd, "45.21E+00,230.1E+00,0.1966E+00\n");
			}
			memmove(in, nl + 1, len - (size_t)(nl + 1 - in) + 1);
			len -= (size_t)(nl + 1 - in);
		}
		if (len == sizeof(in) - 1)
			len = 0;
	}
}

/* The Korad KA3005P: commands without terminators, told apart by their shape. */
static void sim_korad(int fd, const char *fault)
{
	char in[256];
	size_t len = 0;
	/* "power": a supply already on at 12 V, 0.5 A limit, 0.45 A drawn (as a meter would
	 * find it); "close": the same, hanging up after 12 current readings (the scan's and
	 * some 3 s of acquisition) */
	bool on = !strcmp(fault, "power") || !strcmp(fault, "close");
	double vset = on ? 12.0 : 0, iset = on ? 0.5 : 0;
	bool out = on;
	uint64_t end = now_ms() + 20000;
	unsigned iout = 0, hangup = !strcmp(fault, "close") ? 12 : 0; /* after N IOUT1? */

	while (sim_running(end)) {
		int n = get(fd, in + len, sizeof(in) - 1 - len, 10);
		char ans[64];
		size_t used = 0;

		if (n < 0 || (hangup && iout > hangup))
			return;
		len += (size_t)n;
		in[len] = '\0';
		ans[0] = '\0';
		if (!strncmp(in, "*IDN?", 5)) {
			snprintf(ans, sizeof(ans), "KORADKA3005PV2.0");
			used = 5;
		} else if (!strncmp(in, "VSET1?", 6) || !strncmp(in, "ISET1?", 6) ||
		           !strncmp(in, "VOUT1?", 6) || !strncmp(in, "IOUT1?", 6)) {
			double v = in[0] == 'V' ? (in[1] == 'S' ? vset
			                           : out        ? vset
			                                        : 0)
			                        : (in[1] == 'S' ? iset
			                           : out        ? iset * 0.9
			                                        : 0);

			snprintf(ans, sizeof(ans), in[0] == 'V' ? "%05.2f" : "%05.3f", v);
			used = 6;
			iout += !strncmp(in, "IOUT1?", 6);
		} else if (!strncmp(in, "STATUS?", 7)) {
			ans[0] = (char)(out ? 0x40 | 0x01 : 0x01);
			ans[1] = '\0';
			used = 7;
		} else if ((!strncmp(in, "VSET1:", 6) || !strncmp(in, "ISET1:", 6)) && len >= 11) {
			char num[6];

			memcpy(num, in + 6, 5);
			num[5] = '\0';
			*(in[0] == 'V' ? &vset : &iset) = strtod(num, NULL);
			used = 11;
		} else if (len >= 4 && (!strncmp(in, "OUT", 3) || !strncmp(in, "OCP", 3) ||
		                        !strncmp(in, "OVP", 3))) {
			if (in[1] == 'U')
				out = in[3] == '1';
			used = 4;
		} else if (len >= 5 && !strncmp(in, "BEEP", 4)) {
			used = 5;
		} else if (len >= 16) {
			used = 1; /* unknown: resynchronize */
		}
		if (ans[0])
			put(fd, ans);
		if (used) {
			memmove(in, in + used, len - used + 1);
			len -= used;
		}
	}
}

struct korad_sim {
	int fd;
	const char *fault;
};

static void *korad_thread(void *arg)
{
	const struct korad_sim *k = arg;

	sim_korad(k->fd, k->fault);
	return NULL;
}

/* ---- checks (parent side) ---------------------------------------------------------------- */

static int check_meter(const char *scheme, const char *path, const char *fault, double want_w,
                       double want_v, double want_a)
{
	char conn[300];
	struct sb_power_source *m;
	struct sb_power_reading r;
	unsigned good = 0;
	int err = 0;
	uint64_t t0 = now_ms();

	snprintf(conn, sizeof(conn), "%s:%s?stall_ms=1500", scheme, path);
	err = sb_power_source_open(&m, conn, NULL);
	CHECK(err == 0, "open '%s': %s", conn, sb_error_detail());
	while (now_ms() - t0 < 4500) {
		err = sb_power_source_sample(m, &r);
		if (err < 0)
			break;
		CHECK(fabs(r.power_w - want_w) < 1e-9, "%s: power %.6f W, want %.1f", fault,
		      r.power_w, want_w);
		CHECK(r.has_va && fabs(r.volts - want_v) < 1e-9 && fabs(r.amps - want_a) < 1e-9,
		      "%s: %.4f V %.4f A, want %.4f V %.4f A", fault, r.volts, r.amps, want_v,
		      want_a);
		CHECK(r.interval_s > 0, "%s: no time base", fault);
		good++;
		sleep_ms(50);
	}
	printf("%s %s: %u good samples; then: %s\n", scheme, fault, good,
	       err < 0 ? sb_error_detail() : "ok");
	CHECK(good >= 10, "%s: only %u good samples", fault, good);
	if (!strcmp(fault, "silence")) {
		CHECK(err == SB_ERR_TIMEOUT && strstr(sb_error_detail(), "stalled"),
		      "silence: want a stall error, got %d", err);
	} else if (!strcmp(fault, "close")) {
		CHECK(err == SB_ERR_IO && strstr(sb_error_detail(), "disconnected"),
		      "close: want a disconnect error, got %d", err);
		err = sb_power_source_reconnect(m, 600);
		printf("reconnect: %d %s\n", err, sb_error_detail());
		CHECK(err < 0 && strstr(sb_error_detail(), "did not come back"),
		      "close: the reconnect should fail");
		err = sb_power_source_sample(m, &r);
		CHECK(err == SB_ERR_IO && strstr(sb_error_detail(), "not connected"),
		      "close: a sample after a failed reconnect says so (got %d)", err);
	} else {
		CHECK(err == 0, "%s: unexpected error %s", fault, sb_error_detail());
	}
	sb_power_source_close(m);
	return 0;
}

static int check_korad(const char *path)
{
	char conn[300];
	struct sb_cooling *c;
	struct sb_cooling_state st;
	int err;

	snprintf(conn, sizeof(conn), "sigrok:korad-kaxxxxp:conn=%s", path);
	err = sb_cooling_open(&c, conn, NULL);
	CHECK(err == 0, "open '%s': %s", conn, sb_error_detail());
	CHECK(sb_cooling_count(c) == 4 && !strcmp(sb_cooling_name(c, 2), "Cfg3"),
	      "the four published configurations");
	err = sb_cooling_apply(c, "Cfg3");
	CHECK(err == 0, "apply Cfg3: %s", sb_error_detail());
	err = sb_cooling_status(c, &st);
	CHECK(err == 0, "status: %s", sb_error_detail());
	printf("korad: %s %.2f V %.3f A\n", st.name, st.fan_supply_v, st.fan_supply_a);
	CHECK(!strcmp(st.name, "Cfg3") && fabs(st.fan_supply_v - 6.5) < 1e-6 &&
	          fabs(st.fan_supply_a - 0.126) < 1e-6,
	      "read back %.3f V %.3f A, want 6.50 V 0.126 A", st.fan_supply_v, st.fan_supply_a);
	err = sb_cooling_apply(c, "Cfg9");
	CHECK(err == SB_ERR_NOT_FOUND, "unknown configuration");
	sb_cooling_close(c);
	snprintf(conn, sizeof(conn), "korad:%s", path);
	err = sb_cooling_open(&c, conn, NULL);
	CHECK(err == 0, "the korad: alias: %s", sb_error_detail());
	err = sb_cooling_apply(c, "Cfg1");
	CHECK(err == 0 && sb_cooling_status(c, &st) == 0 && fabs(st.fan_supply_v - 12) < 1e-6,
	      "Cfg1 through the alias");
	sb_cooling_close(c);
	return 0;
}

/* The Korad as a power source through libsigrok's acquisition: volts x amps of its output. */
static int check_korad_power(const char *path, const char *fault)
{
	char conn[300];
	struct sb_power_source *m;
	struct sb_power_reading r;
	unsigned good = 0;
	int err = 0;
	uint64_t t0 = now_ms();
	double interval = NAN;

	snprintf(conn, sizeof(conn), "sigrok:korad-kaxxxxp:conn=%s?stall_ms=1500", path);
	err = sb_power_source_open(&m, conn, NULL);
	CHECK(err == 0, "open '%s': %s", conn, sb_error_detail());
	t0 = now_ms(); /* the driver's scan waits out its *IDN? (about 4.5 s) */
	while (now_ms() - t0 < 4500) {
		err = sb_power_source_sample(m, &r);
		if (err < 0)
			break;
		CHECK(fabs(r.power_w - 5.4) < 1e-5, "power %.6f W, want 12 V x 0.45 A = 5.4 W",
		      r.power_w);
		CHECK(r.has_va && fabs(r.volts - 12) < 1e-5 && fabs(r.amps - 0.45) < 1e-5,
		      "%.4f V %.4f A, want 12 V 0.45 A", r.volts, r.amps);
		CHECK(!(good > 2) || r.interval_s > 0, "no time base after %u samples", good);
		interval = r.interval_s;
		good++;
		sleep_ms(200);
	}
	printf("korad power %s: %u good samples (%.3f s between readings); then: %s\n", fault, good,
	       interval, err < 0 ? sb_error_detail() : "ok");
	CHECK(good >= (strcmp(fault, "close") ? 15u : 5u), "only %u good samples", good);
	if (!strcmp(fault, "close"))
		CHECK(err == SB_ERR_TIMEOUT && strstr(sb_error_detail(), "stalled"),
		      "close: want a stall error, got %d %s", err, sb_error_detail());
	else
		CHECK(err == 0, "unexpected error %s", sb_error_detail());
	/* closing returns even when the driver blocks in a read of a device that went silent */
	t0 = now_ms();
	sb_power_source_close(m);
	printf("korad power %s: closed in %llu ms\n", fault, (unsigned long long)(now_ms() - t0));
	CHECK(now_ms() - t0 < 5000, "close took %llu ms", (unsigned long long)(now_ms() - t0));
	return 0;
}

/* Run the tool with args; its standard output into out (NUL-terminated). Its exit status. */
static int run_tool(char *const *args, char *out, size_t cap)
{
	int p[2], status = -1;
	size_t len = 0;
	pid_t pid;

	posix_spawn_file_actions_t fa;

	if (pipe(p) < 0)
		return -1;
	/* posix_spawn, not fork: a forked child of this threaded process would go through
	 * umockdev's preload (see main) before its exec */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	posix_spawn_file_actions_addclose(&fa, p[1]);
	if (posix_spawn(&pid, args[0], &fa, NULL, args, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(p[0]);
		close(p[1]);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	for (;;) {
		ssize_t n = read(p[0], out + len, cap - 1 - len);

		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == cap - 1)
			break;
	}
	out[len] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static double num(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/*
 * stackbench instruments --probe CONN --json against a simulator: 3 readings that are what the
 * simulator serves (want_w, want_v, want_a; a fan supply reads back volts and amps).
 */
static int check_probe(const char *exe, const char *mode, const char *path)
{
	bool cooling = !strcmp(mode, "korad-cooling");
	const char *scheme = cooling ? "korad" : mode;
	double want_w = !strcmp(mode, "wattsup") ? 123.4 : !strcmp(mode, "wt310") ? 45.21 : 5.4;
	double want_v = !strcmp(mode, "wattsup") ? 120.1 : !strcmp(mode, "wt310") ? 230.1 : 12;
	double want_a = !strcmp(mode, "wattsup") ? 1.027 : !strcmp(mode, "wt310") ? 0.1966 : 0.45;
	char conn[300], out[1 << 16];
	char *args[] = {(char *)exe,     "instruments",
	                "--probe",       conn,
	                "--count",       "3",
	                "--interval-ms", "300",
	                "--json",        cooling ? "--as" : NULL,
	                "cooling",       NULL};
	const cJSON *rd, *r;
	cJSON *root;
	int rc, n = 0;

	snprintf(conn, sizeof(conn), "%s:%s", scheme, path);
	rc = run_tool(args, out, sizeof(out));
	CHECK(rc == 0, "probe %s: exit %d: %s", conn, rc, out);
	root = cJSON_Parse(out);
	CHECK(root, "probe %s: not JSON: %s", conn, out);
	CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(root, "schema")),
	              "stackbench-probe") &&
	          !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(root, "role")),
	                  cooling ? "cooling" : "meter"),
	      "probe %s: schema and role: %s", conn, out);
	rd = cJSON_GetObjectItem(root, "readings");
	cJSON_ArrayForEach(r, rd)
	{
		if (cooling) {
			CHECK(fabs(num(r, "fan_supply_v") - want_v) < 1e-6 &&
			          fabs(num(r, "fan_supply_a") - want_a) < 1e-6,
			      "probe %s: reading %d: %.4f V %.4f A, want %.4f V %.4f A", conn, n,
			      num(r, "fan_supply_v"), num(r, "fan_supply_a"), want_v, want_a);
		} else {
			CHECK(
			    fabs(num(r, "power_w") - want_w) < 1e-5 &&
			        fabs(num(r, "volts_v") - want_v) < 1e-5 &&
			        fabs(num(r, "amps_a") - want_a) < 1e-5,
			    "probe %s: reading %d: %.5f W %.4f V %.4f A, want %.5f W %.4f V %.4f A",
			    conn, n, num(r, "power_w"), num(r, "volts_v"), num(r, "amps_a"), want_w,
			    want_v, want_a);
		}
		/* readings 300 ms apart in real time: the clock of the machine, not a board's */
		CHECK(n == 0 || num(r, "t_s") >= 0.25 * n, "probe %s: reading %d at %.3f s", conn,
		      n, num(r, "t_s"));
		n++;
	}
	CHECK(n == 3, "probe %s: %d readings, want 3", conn, n);
	printf("probe %s: 3 readings as served\n", conn);
	cJSON_Delete(root);
	return 0;
}

/* The rig with the Korad as its fan supply: voltages from the supply, duties from the rig. */
static int check_rig_korad(const char *rig_tty, const char *tmpdir)
{
	char conn[400], file[300];
	struct sb_cooling *c;
	struct sb_cooling_state st;
	FILE *f;
	int err;

	snprintf(conn, sizeof(conn), "rig:%s?supply=korad:/dev/ttyACM7", rig_tty);
	err = sb_cooling_open(&c, conn, NULL);
	CHECK(err == 0, "open '%s': %s", conn, sb_error_detail());
	CHECK(sb_cooling_count(c) == 4, "the rig file's four configurations");
	memset(&st, 0, sizeof(st));
	err = sb_cooling_describe(c, 2, &st);
	CHECK(err == 0 && !strcmp(st.name, "Cfg3") && fabs(st.fan_supply_v - 6.5) < 1e-9 &&
	          fabs(st.fan_supply_a - 0.14) < 1e-9 && st.duty_pct[0] == 100 &&
	          fabs(st.duty_pct[1] - 50) < 1e-9,
	      "describe Cfg3: %s %.2f V %.2f A, duties %.1f %.1f", st.name, st.fan_supply_v,
	      st.fan_supply_a, st.duty_pct[0], st.duty_pct[1]);
	for (int k = 0; k < 2; k++) {
		const char *name = k ? "Cfg1" : "Cfg3";
		double v = k ? 12 : 6.5, a = k ? 0.36 * 0.9 : 0.14 * 0.9, d1 = k ? 100 : 50;

		err = sb_cooling_apply(c, name);
		CHECK(err == 0, "apply %s: %s", name, sb_error_detail());
		memset(&st, 0, sizeof(st));
		err = sb_cooling_status(c, &st);
		CHECK(err == 0, "status: %s", sb_error_detail());
		printf("rig+korad: %s: supply %.2f V %.3f A; duties %.1f %% %.1f %%; heatsink "
		       "%.2f C\n",
		       st.name, st.fan_supply_v, st.fan_supply_a, st.duty_pct[0], st.duty_pct[1],
		       st.heatsink_c);
		CHECK(!strcmp(st.name, name) && fabs(st.fan_supply_v - v) < 1e-6 &&
		          fabs(st.fan_supply_a - a) < 1e-6,
		      "%s: supply read back %.3f V %.3f A, want %.2f V %.3f A", name,
		      st.fan_supply_v, st.fan_supply_a, v, a);
		/* the rig's own report of its duties: the supply's fan at 100 % */
		CHECK(st.duty_pct[0] == 100 && fabs(st.duty_pct[1] - d1) < 0.05,
		      "%s: the rig drives %.1f %% and %.1f %%, want 100 %% and %.1f %%", name,
		      st.duty_pct[0], st.duty_pct[1], d1);
		CHECK(!isnan(st.heatsink_c), "%s: the rig's heatsink thermocouple", name);
	}
	sb_cooling_close(c);

	/* a rig file that does not say which fans the supply powers */
	snprintf(file, sizeof(file), "%s/nosupply.yaml", tmpdir);
	f = fopen(file, "w");
	CHECK(f, "cannot write %s", file);
	fputs("name: t\nconfigurations:\n  - {name: Cfg1, duty_pct: [100, 100]}\n", f);
	fclose(f);
	snprintf(conn, sizeof(conn), "rig:%s?config=%s&supply=korad:/dev/ttyACM7", rig_tty, file);
	err = sb_cooling_open(&c, conn, NULL);
	CHECK(err == SB_ERR_INVAL && strstr(sb_error_detail(), "supply_fans"),
	      "no supply_fans: %d %s", err, sb_error_detail());
	/* a configuration the supply does not have */
	f = fopen(file, "w");
	CHECK(f, "cannot write %s", file);
	fputs("name: t\nsupply_fans: [0]\nconfigurations:\n"
	      "  - {name: Cfg1, duty_pct: [100, 100]}\n  - {name: Quiet, duty_pct: [20, 20]}\n",
	      f);
	fclose(f);
	err = sb_cooling_open(&c, conn, NULL);
	CHECK(err == SB_ERR_INVAL && strstr(sb_error_detail(), "no configuration 'Quiet'"),
	      "a configuration the supply lacks: %d %s", err, sb_error_detail());
	/* not a supply */
	snprintf(conn, sizeof(conn), "rig:%s?supply=wattsup:/dev/ttyUSB0", rig_tty);
	err = sb_cooling_open(&c, conn, NULL);
	CHECK(err == SB_ERR_URI && strstr(sb_error_detail(), "expected a fan supply"),
	      "supply=wattsup: %d %s", err, sb_error_detail());
	unlink(file);
	return 0;
}

int main(int argc, char **argv)
{
	bool probe = argc == 4 && !strcmp(argv[1], "probe");
	const char *mode = probe ? argv[2] : argc == 3 ? argv[1] : "";
	const char *fault = probe ? "power" : argc == 3 ? argv[2] : "";
	int master, rc, status, hold;
	pid_t pid = -1;
	bool korad;
	pthread_t ktid;
	struct korad_sim ksim;
	char path[128];

	if (argc != 3 && !probe) {
		fprintf(stderr, "usage: pty_instruments wattsup|wt310|korad FAULT\n"
		                "       pty_instruments rig-korad RIG_TTY\n"
		                "       pty_instruments probe wattsup|wt310|korad|korad-cooling "
		                "STACKBENCH\n");
		return 2;
	}
	if (!strcmp(mode, "korad-cooling"))
		mode = "korad";
	if (!strcmp(mode, "korad") || !strcmp(mode, "rig-korad")) {
		/*
		 * libserialport (under libsigrok) accepts /dev/NAME only when /sys/class/tty/NAME
		 * exists, which a pty does not have: the supply is a tty device of a umockdev
		 * testbed (this program runs under umockdev-wrapper), whose node is a pty; the
		 * simulator gets its master side.
		 */
		UMockdevTestbed *tb = umockdev_testbed_new();
		GError *gerr = NULL;

		if (!umockdev_testbed_add_from_string(
		        tb,
		        "P: /devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0/tty/ttyACM7\n"
		        "N: ttyACM7\nE: DEVNAME=/dev/ttyACM7\nE: SUBSYSTEM=tty\nA: dev=166:7\n",
		        &gerr)) {
			fprintf(stderr, "umockdev: %s\n", gerr ? gerr->message : "?");
			return 2;
		}
		master = umockdev_testbed_get_dev_fd(tb, "/dev/ttyACM7");
		if (master < 0) {
			fprintf(stderr, "umockdev: no pty for /dev/ttyACM7 (run under "
			                "umockdev-wrapper)\n");
			return 2;
		}
		snprintf(path, sizeof(path), "/dev/ttyACM7");
	} else {
		master = posix_openpt(O_RDWR | O_NOCTTY);
		if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 ||
		    ptsname_r(master, path, sizeof(path))) {
			perror("pty");
			return 2;
		}
	}
	/*
	 * Hold the pty's slave side until the end, so that its number is not given to another
	 * test's pty while this one's driver reconnects to the path: in CI the WT310 driver's
	 * reconnect opened a Korad test's new pty (the freed /dev/pts number, reused) and sent it
	 * *IDN?, which that test's scan read as a second identity (reproduced by starting
	 * "korad ok" about a second after "wt310 close"). A held slave keeps the number; after
	 * the simulator hangs up, opening the path still fails as unplugged.
	 */
	hold = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
	korad = !strcmp(mode, "korad") || !strcmp(mode, "rig-korad");
	if (korad) {
		/*
		 * The Korad plays in a thread, not a forked child: this process has umockdev's
		 * threads, and a child forked from it that opens or reads a file goes through
		 * umockdev's preload, whose path lock another thread may have held at the fork
		 * (the child then waits forever with its signals blocked: in CI the supply never
		 * answered *IDN? and the test hung until its timeout).
		 */
		ksim = (struct korad_sim){master, !strcmp(mode, "korad") ? fault : "ok"};
		if (pthread_create(&ktid, NULL, korad_thread, &ksim)) {
			fprintf(stderr, "cannot start the Korad simulator thread\n");
			return 2;
		}
	} else {
		pid = fork();
		if (pid == 0) {
			/* no hang-up before the driver opens */
			int keep = open(path, O_RDWR | O_NOCTTY);

			if (!strcmp(mode, "wattsup"))
				sim_wattsup(master, fault);
			else
				sim_wt310(master, fault);
			close(keep);
			_exit(0);
		}
		close(master);
	}
	/* umockdev_testbed_get_dev_fd()'s descriptor "must not be closed" (umockdev's API docs):
	 * only the parent's own pty is closed (above). */
	if (probe)
		rc = check_probe(argv[3], argv[2], path);
	else if (!strcmp(mode, "wattsup"))
		rc = check_meter("wattsup", path, fault, 123.4, 120.1, 1.027);
	else if (!strcmp(mode, "wt310"))
		rc = check_meter("wt310", path, fault, 45.21, 230.1, 0.1966);
	else if (!strcmp(mode, "korad") && !strcmp(fault, "ok"))
		rc = check_korad(path);
	else if (!strcmp(mode, "korad"))
		rc = check_korad_power(path, fault);
	else
		rc = check_rig_korad(fault, getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (korad) {
		atomic_store(&sim_stop, true);
		pthread_join(ktid, NULL);
	} else {
		kill(pid, SIGTERM);
		waitpid(pid, &status, 0);
	}
	if (hold >= 0)
		close(hold);
	return rc;
}
