/* SPDX-License-Identifier: MIT */
/*
 * Yokogawa WT310 power meter: SCPI over the kernel's USBTMC char device (wt310:/dev/usbtmcN).
 * Open checks *IDN?, asks for three numeric items (P, U, I of element 1), reads the update
 * interval (:RATE?, the meter's own time base) and sets the transition filter so that
 * ":COMM:WAIT 1" waits for a fresh update. A reader thread then asks for each update and keeps
 * the mean of the values since the last sample.
 */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "instrument_internal.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/meters.h"
#include "stackbench/util.h"

#define ANSWER_MAX 512
#define QUERY_TIMEOUT_MS 2500 /* longer than the slowest update interval (2 s) */
#define QUERY_MARGIN_MS 600   /* answer time beyond the update interval once it is known */
#define BAD_ANSWERS_MAX 10

struct wt310 {
	char conn[256];
	struct sb_device *dev;
	int fd;
	pthread_t thread;
	bool thread_running;
	atomic_bool stop;
	struct sb_meter_acc acc;
	double interval_s;
	unsigned stall_ms;
	uint64_t bad_answers;
};

static int send_cmd(struct wt310 *w, const char *cmd)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "%s\n", cmd);

	if (sb_fd_write_all(w->fd, line, (size_t)n, 1000) < 0)
		return sb_error_set(SB_ERR_IO, "WT310 '%s': cannot send '%s': %s", w->conn, cmd,
		                    sb_error_detail());
	return 0;
}

/* Send a query and read its answer line (without the newline). Returns its length. */
static int query(struct wt310 *w, const char *cmd, char *ans, size_t cap)
{
	unsigned ms = w->interval_s > 0 ? (unsigned)(w->interval_s * 1000) + QUERY_MARGIN_MS
	                                : QUERY_TIMEOUT_MS;
	uint64_t until = sb_inst_mono_ns() + (uint64_t)ms * 1000000u;
	size_t len = 0;
	int err;

	/* What is left of an earlier, broken answer is not this one's. */
	while (sb_fd_read_some(w->fd, ans, cap - 1, 0) > 0)
		;
	if ((err = send_cmd(w, cmd)) < 0)
		return err;
	for (;;) {
		uint64_t now = sb_inst_mono_ns();
		char *nl;
		int n;

		if (now >= until)
			return sb_error_set(SB_ERR_TIMEOUT,
			                    "WT310 '%s' did not answer '%s' within %.1f s", w->conn,
			                    cmd, ms / 1000.0);
		n = sb_fd_read_some(w->fd, ans + len, cap - 1 - len,
		                    (unsigned)((until - now) / 1000000u) + 1);
		if (n < 0)
			return sb_error_set(SB_ERR_IO, "WT310 '%s' disconnected: %s", w->conn,
			                    sb_error_detail());
		len += (size_t)n;
		ans[len] = '\0';
		nl = memchr(ans, '\n', len);
		if (nl) {
			*nl = '\0';
			return (int)(nl - ans);
		}
		if (len == cap - 1)
			return sb_error_set(SB_ERR_PARSE,
			                    "WT310 '%s': answer to '%s' longer than %zu bytes",
			                    w->conn, cmd, cap - 1);
	}
}

static void *reader_main(void *arg)
{
	struct wt310 *w = arg;
	char ans[ANSWER_MAX];
	unsigned bad = 0;

	while (!atomic_load(&w->stop)) {
		double v[3];
		int n, k;

		if ((n = query(w, ":STAT:EESR?", ans, sizeof(ans))) >= 0 &&
		    (n = send_cmd(w, ":COMM:WAIT 1")) >= 0)
			n = query(w, ":NUM:NORM:VAL?", ans, sizeof(ans));
		if (n == SB_ERR_IO) {
			sb_meter_acc_fail(&w->acc, SB_ERR_IO, "%s", sb_error_detail());
			break;
		}
		if (n < 0 || (k = sb_scpi_parse_numbers(ans, (size_t)n, v, 3)) != 3 ||
		    isnan(v[0])) {
			/* Garbage or silence: count it; a sample reports the stall. */
			w->bad_answers++;
			if (++bad == BAD_ANSWERS_MAX)
				sb_warn("WT310 '%s': %u bad or missing answers in a row (last: %s)",
				        w->conn, bad, sb_error_detail());
			continue;
		}
		bad = 0;
		sb_meter_acc_add(&w->acc, v[0], !isnan(v[1]) && !isnan(v[2]), v[1], v[2]);
	}
	return NULL;
}

static void wt310_close(void *priv)
{
	struct wt310 *w = priv;

	if (!w)
		return;
	if (w->thread_running) {
		atomic_store(&w->stop, true);
		pthread_join(w->thread, NULL);
	}
	if (w->fd >= 0)
		close(w->fd);
	sb_meter_acc_release(&w->acc);
	free(w);
}

static int setup(struct wt310 *w)
{
	static const char *const cmds[] = {
	    ":NUM:FORM ASCII",     ":NUM:NORM:NUMB 3",    ":NUM:NORM:ITEM1 P,1",
	    ":NUM:NORM:ITEM2 U,1", ":NUM:NORM:ITEM3 I,1", ":STAT:FILT1 FALL",
	};
	char ans[ANSWER_MAX];
	double rate;
	int n, err;

	if ((n = query(w, "*IDN?", ans, sizeof(ans))) < 0)
		return n;
	if (!strstr(ans, "YOKOGAWA") || !strstr(ans, "WT3"))
		return sb_error_set(SB_ERR_MISMATCH,
		                    "'%s' is not a Yokogawa WT310: *IDN? answered '%.80s'", w->conn,
		                    ans);
	for (size_t i = 0; i < SB_ARRAY_SIZE(cmds); i++)
		if ((err = send_cmd(w, cmds[i])) < 0)
			return err;
	if ((n = query(w, ":RATE?", ans, sizeof(ans))) < 0)
		return n;
	if (sb_scpi_parse_numbers(ans, (size_t)n, &rate, 1) != 1 || !(rate > 0) || rate > 60)
		return sb_error_set(SB_ERR_PARSE, "WT310 '%s': update interval ':RATE?' is '%.40s'",
		                    w->conn, ans);
	w->interval_s = rate;
	sb_info("WT310 '%s': %s, update every %g s", w->conn, ans, rate);
	return 0;
}

static int wt310_open(const struct sb_conn *c, struct sb_device *dev, void **priv)
{
	static const char *const known[] = {"stall_ms", NULL};
	struct wt310 *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return sb_error_set(SB_ERR_NOMEM, "out of memory opening '%s'", c->text);
	sb_strlcpy(w->conn, c->text, sizeof(w->conn));
	w->dev = dev;
	w->fd = -1;
	w->stall_ms = 5000;
	sb_meter_acc_init(&w->acc);
	if ((err = sb_conn_check_opts(c, known)) < 0 ||
	    (err = sb_conn_opt_uint(c, "stall_ms", 1500, 600000, &w->stall_ms)) < 0)
		goto fail;
	if (c->rest[0] != '/') {
		err = sb_error_set(SB_ERR_URI,
		                   "connection string '%s': expected wt310:/dev/usbtmcN", c->text);
		goto fail;
	}
	/* USBTMC nodes are message devices, not ttys: sb_tty_open leaves them as they are. */
	if ((err = sb_tty_open(c->rest, 115200, &w->fd)) < 0 || (err = setup(w)) < 0)
		goto fail;
	if (pthread_create(&w->thread, NULL, reader_main, w)) {
		err = sb_error_set(SB_ERR_NOMEM, "'%s': cannot start the reader thread", w->conn);
		goto fail;
	}
	w->thread_running = true;
	if ((err = sb_meter_acc_wait_first(&w->acc, w->conn,
	                                   (unsigned)(w->interval_s * 1000) + 3000)) < 0)
		goto fail;
	*priv = w;
	return 0;

fail:
	wt310_close(w);
	return err;
}

static int wt310_sample(void *priv, struct sb_power_reading *r)
{
	struct wt310 *w = priv;

	return sb_meter_acc_take(&w->acc, w->conn, w->stall_ms, w->interval_s,
	                         w->dev ? sb_device_now_ns(w->dev) : sb_inst_mono_ns(), r);
}

const struct sb_power_ops sb_power_wt310 = {
    .open = wt310_open,
    .close = wt310_close,
    .sample = wt310_sample,
};
