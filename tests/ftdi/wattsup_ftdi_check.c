/* SPDX-License-Identifier: MIT */
/*
 * wattsup:ftdi through the real libftdi and libusb under a replayed FT232R
 * (gen_ft232r_replay wattsup VARIANT PREFIX, run by umockdev-run with the wire tap usbfs_tap.c):
 * the readings the driver reports against what the pure parser (meters.h) finds in the meter's
 * bytes (PREFIX.stream), the error the user sees, and what went to the chip (PREFIX.tap).
 *
 *   wattsup_ftdi_check ok|disconnect|absent|noopen|refuse|list PREFIX
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ft232r.h"
#include "stackbench/error.h"
#include "stackbench/instrument.h"
#include "stackbench/meters.h"

#define CONN "wattsup:ftdi"
#define MAX_RECORDS 16
#define RUN_MS 2500 /* the ok replay loops about every 0.5 s */

struct expected {
	struct sb_wattsup_record rec[MAX_RECORDS];
	size_t n;
	bool loops; /* the replay starts over after the last one */
};

static void collect(void *ctx, const struct sb_wattsup_record *r)
{
	struct expected *e = ctx;

	if (e->n < MAX_RECORDS)
		e->rec[e->n] = *r;
	e->n++;
}

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

/* The meter's bytes through the pure parser; what the stream must hold (the generator's
 * promise): records, malformed ones, partial ones, and whether it ends inside a record. */
static int expect_stream(const char *prefix, struct expected *e, size_t records, uint64_t bad,
                         uint64_t partial, bool cut)
{
	char path[4096];
	uint8_t buf[4096];
	struct sb_wattsup_lines l;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s.stream", prefix);
	f = fopen(path, "rb");
	CHECK(f, "cannot open '%s'", path);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	sb_wattsup_lines_init(&l);
	memset(e, 0, sizeof(*e));
	sb_wattsup_feed(&l, buf, n, collect, e);
	printf("'%s': %zu bytes, %zu records, %llu malformed, %llu partial%s\n", path, n, e->n,
	       (unsigned long long)l.bad_records, (unsigned long long)l.partial,
	       l.in_record ? ", cut inside a record" : "");
	CHECK(e->n == records && l.bad_records == bad && l.partial == partial && l.in_record == cut,
	      "the stream is not what the replay should carry");
	return 0;
}

/*
 * A reading against the records: the driver reports the mean power of the records since the
 * previous reading (or the last one again when none came) and the volts and amps of the last;
 * the records come in stream order, so the readings split the stream into windows.
 */
static int check_reading(const struct sb_power_reading *r, const struct expected *e, uint64_t *done)
{
	uint64_t n = r->records, first = *done;
	const struct sb_wattsup_record *last;
	double sum = 0, mean;

	CHECK(e->loops || first + n <= e->n,
	      "reading of %llu records after %llu: the meter sent only %zu complete ones",
	      (unsigned long long)n, (unsigned long long)first, e->n);
	CHECK(n || first, "a reading before any record");
	for (uint64_t k = first; k < first + n; k++)
		sum += e->rec[k % e->n].power_w;
	last = &e->rec[(n ? first + n - 1 : first - 1) % e->n];
	mean = n ? sum / (double)n : last->power_w;
	CHECK(fabs(r->power_w - mean) < 1e-9 && r->has_va && fabs(r->volts - last->volts) < 1e-9 &&
	          fabs(r->amps - last->amps) < 1e-9 && r->interval_s == 1.0,
	      "records %llu..%llu: %.4f W %.4f V %.4f A (interval %.1f s), the parser says "
	      "%.4f W %.4f V %.4f A",
	      (unsigned long long)first, (unsigned long long)(first + n), r->power_w, r->volts,
	      r->amps, r->interval_s, mean, last->volts, last->amps);
	*done = first + n;
	return 0;
}

/* A session in the tap log: the vendor requests of the open, the start command, and the stop
 * command if it was sent (*stopped). */
static int tap_session(const struct ft232r_tap_entry *t, int n, int *at, bool *stopped)
{
	static const char start[] = "#L,W,3,E,,1;", stop[] = "#L,W,3,I,,1;";

	if (ft232r_tap_expect_open(t, n, at, FT232R_WATTSUP))
		return 1;
	CHECK(*at < n && t[*at].kind == 'O' && t[*at].len == 12 && !memcmp(t[*at].data, start, 12),
	      "tap entry %d: want the start command '%s'", *at, start);
	(*at)++;
	*stopped = *at < n && t[*at].kind == 'O';
	if (*stopped) {
		CHECK(t[*at].len == 12 && !memcmp(t[*at].data, stop, 12),
		      "tap entry %d: want the stop command '%s'", *at, stop);
		(*at)++;
	}
	return 0;
}

static int run_ok(const char *prefix)
{
	struct expected e;
	struct sb_power_source *m;
	struct sb_power_reading r;
	struct ft232r_tap_entry t[64];
	uint64_t done = 0, t0;
	unsigned samples = 0;
	bool stopped;
	int err, n, at = 0;

	if (expect_stream(prefix, &e, 5, 2, 1, false))
		return 1;
	e.loops = true;
	err = sb_power_source_open(&m, CONN, NULL);
	CHECK(err == 0, "open '%s': %s", CONN, sb_error_detail());
	for (t0 = now_ms(); now_ms() - t0 < RUN_MS; samples++) {
		err = sb_power_source_sample(m, &r);
		CHECK(err == 0, "sample %u: %s", samples, sb_error_detail());
		if (check_reading(&r, &e, &done))
			return 1;
		sleep_ms(100);
	}
	sb_power_source_close(m);
	printf("%u readings of %llu records (%.1f loops of the replay), each the parser's\n",
	       samples, (unsigned long long)done, (double)done / (double)e.n);
	CHECK(done >= 2 * e.n, "only %llu records in %d ms", (unsigned long long)done, RUN_MS);
	n = ft232r_tap_load(prefix, t, 64);
	CHECK(n >= 0, "tap log");
	if (tap_session(t, n, &at, &stopped))
		return 1;
	CHECK(stopped && at == n, "the stop command on close, and nothing after it (%d of %d)", at,
	      n);
	return 0;
}

static int run_disconnect(const char *prefix)
{
	struct expected e;
	struct sb_power_source *m;
	struct sb_power_reading r;
	struct ft232r_tap_entry t[64];
	uint64_t done = 0, t0 = now_ms();
	unsigned samples = 0;
	bool stopped;
	int err, n, at = 0;

	if (expect_stream(prefix, &e, 3, 2, 1, true))
		return 1;
	err = sb_power_source_open(&m, CONN, NULL);
	CHECK(err == 0, "open '%s': %s", CONN, sb_error_detail());
	while ((err = sb_power_source_sample(m, &r)) == 0 && now_ms() - t0 < 5000) {
		if (check_reading(&r, &e, &done))
			return 1;
		samples++;
		sleep_ms(20);
	}
	printf("%u readings of %llu records, then: %s\n", samples, (unsigned long long)done,
	       err ? sb_error_detail() : "nothing");
	CHECK(err == SB_ERR_IO && strstr(sb_error_detail(), "disconnected") &&
	          strstr(sb_error_detail(), "'" CONN "'"),
	      "want the disconnect error naming '%s', got %d", CONN, err);
	/* The replayed adapter is still on the bus: the reconnect opens it again. */
	err = sb_power_source_reconnect(m, 3000);
	CHECK(err == 0, "reconnect: %s", sb_error_detail());
	done = 0;
	err = sb_power_source_sample(m, &r);
	if (err == 0) {
		if (check_reading(&r, &e, &done))
			return 1;
	} else {
		/* A slow sample: the replay reached the unplug again. */
		CHECK(err == SB_ERR_IO && strstr(sb_error_detail(), "disconnected"),
		      "after the reconnect: %s", sb_error_detail());
	}
	sb_power_source_close(m);
	n = ft232r_tap_load(prefix, t, 64);
	CHECK(n >= 0, "tap log");
	if (tap_session(t, n, &at, &stopped))
		return 1;
	CHECK(!stopped, "no command to an unplugged adapter");
	if (tap_session(t, n, &at, &stopped))
		return 1;
	CHECK(at == n, "nothing after the second session (%d of %d)", at, n);
	return 0;
}

/* The open fails as it must, after want_urbs URBs. */
static int run_failed_open(const char *prefix, int want_err, const char *want, int want_urbs)
{
	struct sb_power_source *m = NULL;
	struct ft232r_tap_entry t[64];
	int err = sb_power_source_open(&m, CONN, NULL), n;

	printf("open '%s': %d %s\n", CONN, err, sb_error_detail());
	CHECK(err == want_err && strstr(sb_error_detail(), want), "want %d and '%s'", want_err,
	      want);
	n = ft232r_tap_load(prefix, t, 64);
	CHECK(n == want_urbs, "%d URBs submitted, want %d", n, want_urbs);
	return 0;
}

static int run_absent(const char *prefix)
{
	return run_failed_open(prefix, SB_ERR_NOT_FOUND,
	                       "no FTDI FT232R (USB 0403:6001) is attached for '" CONN "'", 0);
}

static int run_noopen(const char *prefix)
{
	return run_failed_open(prefix, SB_ERR_PERM,
	                       "permission denied on the FTDI adapter (libftdi: usb_open() "
	                       "failed); install the udev rules",
	                       0);
}

static int run_refuse(const char *prefix)
{
	return run_failed_open(prefix, SB_ERR_IO, "ftdi_usb_reset failed", 1);
}

/* stackbench instruments (sb_instruments_discover()) lists the adapter with its strings and
 * the connection string that names its serial number. */
static int run_list(const char *prefix)
{
	static const uint8_t index[3] = {1, 2, 3};
	struct sb_found_instrument f[16];
	struct ft232r_tap_entry t[16];
	int n = sb_instruments_discover(f, 16, "/nonexistent", false), hit = -1;

	for (int i = 0; i < n; i++) {
		printf("%-8s %-48s %-28s # %s\n", f[i].kind, f[i].what, f[i].conn, f[i].note);
		if (!strcmp(f[i].kind, "adapter"))
			hit = hit < 0 ? i : -2;
	}
	CHECK(hit >= 0, "want one adapter");
	CHECK(!strcmp(f[hit].what,
	              "FTDI FT232R (0403:6001) " FT232R_MANUFACTURER " " FT232R_PRODUCT) &&
	          !strcmp(f[hit].conn, CONN ":" FT232R_SERIAL) &&
	          !strncmp(f[hit].note, "serial " FT232R_SERIAL ";", 16),
	      "the adapter's strings and connection string");
	/* Each string: the language IDs, then the string in the first one. */
	n = ft232r_tap_load(prefix, t, 16);
	CHECK(n == 6, "%d control transfers, want 6", n);
	for (int i = 0; i < n; i++)
		CHECK(t[i].kind == 'C' && t[i].len == 8 && t[i].data[0] == 0x80 &&
		          t[i].data[1] == 0x06 && t[i].data[3] == 0x03 &&
		          t[i].data[2] == (i % 2 ? index[i / 2] : 0),
		      "tap entry %d: want GET_DESCRIPTOR of string %d", i,
		      i % 2 ? index[i / 2] : 0);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct ft232r_variant v[] = {
	    {"ok", run_ok},         {"disconnect", run_disconnect}, {"absent", run_absent},
	    {"noopen", run_noopen}, {"refuse", run_refuse},         {"list", run_list},
	};

	return ft232r_check_main(argc, argv, v, sizeof(v) / sizeof(v[0]));
}
