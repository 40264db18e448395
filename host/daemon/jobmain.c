/* SPDX-License-Identifier: MIT */
/*
 * The job process: stackbenchd run again (--job-process) for one job, by the main process,
 * with its end of a socket pair on fd SBD_JOB_FD. It receives the handles of its boards (pci:
 * and dev:; sim: boards are made here) and the job, becomes the submitter for good
 * (privsep.c), and only then reads what the submitter named: the campaign's files (bench and
 * profile files), the results database, later the instruments and trace folders. In check mode
 * it stops after the checks; in run mode it runs the campaign through the engine and reports
 * its events as lines on the socket (docs/architecture.md, "The daemon's process boundary").
 *
 * Lines to the main process: {"t":"log"|"checked"|"refused"|"first_start"|"campaign"|
 * "point_started"|"sample"|"point_finished"|"end", ...}; from it: {"ctl":"go"|"pause"|
 * "unpause"|"stop"}. The main process trusts none of it beyond this job.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "daemon.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/report.h"
#include "stackbench/store.h"

#define INIT_MAX (8u << 20) /* the job line: a campaign text of at most 1 MiB, escaped */

static struct job {
	int fd;
	pthread_mutex_t send_mu;
	bool run, report, notify;
	unsigned done, total; /* notify: the points stored, in all */
	int64_t id;
	struct sbd_cred owner;
	pid_t parent;
	char file[SBD_FILE_MAX], db[SBD_DB_MAX], db_dir_id[48];
	char *text;
	size_t len;
	unsigned workers;
	int64_t campaign_id, prev_campaign_id;
	const struct sb_campaign *c; /* while it runs (notify) */
	/* control, set by the reader thread and SIGTERM */
	volatile sig_atomic_t stop, pause, cancelled;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	bool go, closed;
} job = {.fd = SBD_JOB_FD,
         .send_mu = PTHREAD_MUTEX_INITIALIZER,
         .mu = PTHREAD_MUTEX_INITIALIZER,
         .cond = PTHREAD_COND_INITIALIZER};

/* ---- lines to the main process ------------------------------------------------------------ */

/*
 * Send a line (and its newline). Samples are dropped rather than waited for when the main
 * process is behind (droppable): a measurement never waits for the daemon's loop.
 */
static void send_text(const char *text, bool droppable)
{
	size_t len = strlen(text), off = 0;

	pthread_mutex_lock(&job.send_mu);
	while (off <= len) {
		const char *p = off < len ? text + off : "\n";
		size_t n = off < len ? len - off : 1;
		ssize_t w =
		    send(job.fd, p, n, MSG_NOSIGNAL | (droppable && !off ? MSG_DONTWAIT : 0));

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break; /* the main process is gone (its death kills us) or behind: dropped */
		off += (size_t)w;
	}
	pthread_mutex_unlock(&job.send_mu);
}

/* Send an object as a line ("t": kind first) and free it. */
static void send_obj(const char *kind, cJSON *o, bool droppable)
{
	char *text;

	if (!o)
		return;
	cJSON_AddStringToObject(o, "t", kind);
	if ((text = cJSON_PrintUnformatted(o)))
		send_text(text, droppable);
	cJSON_free(text);
	cJSON_Delete(o);
}

static void log_sink(void *ctx, enum sb_log_level level, const char *msg)
{
	cJSON *o = cJSON_CreateObject();

	(void)ctx;
	if (!o)
		return;
	cJSON_AddNumberToObject(o, "level", level);
	cJSON_AddStringToObject(o, "msg", msg);
	send_obj("log", o, false);
}

static void refuse(const char *code, const char *msg)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return;
	cJSON_AddStringToObject(o, "code", code);
	cJSON_AddStringToObject(o, "message", msg);
	send_obj("refused", o, false);
}

static void add_num(cJSON *o, const char *name, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, name, v);
	else
		cJSON_AddNullToObject(o, name);
}

/* The point's axes, enough for a client to describe it as `stackbench run` does. */
static void add_point(cJSON *o, const struct sb_campaign_point *p)
{
	cJSON *x = cJSON_AddObjectToObject(o, "point");
	char text[192];

	if (!x)
		return;
	sb_campaign_point_text(text, sizeof(text), p); /* as run prints it */
	cJSON_AddStringToObject(x, "text", text);
	cJSON_AddStringToObject(x, "cooling", p->cooling);
	cJSON_AddNumberToObject(x, "rep", p->rep);
	cJSON_AddStringToObject(x, "type", sb_req_type_name(p->type));
	cJSON_AddNumberToObject(x, "size", p->size);
	cJSON_AddStringToObject(x, "pattern", p->pattern);
	cJSON_AddStringToObject(x, "mode", p->mode == SB_GEN_LINEAR ? "linear" : "random");
	cJSON_AddNumberToObject(x, "addr_mode", p->addr_mode);
	cJSON_AddNumberToObject(x, "ports", p->ports);
	cJSON_AddBoolToObject(x, "idle", p->idle);
	cJSON_AddNumberToObject(x, "stream", p->stream);
	if (p->mask_lo >= 0)
		cJSON_AddNumberToObject(x, "mask_lo", p->mask_lo);
	else
		cJSON_AddNullToObject(x, "mask_lo");
	cJSON_AddNumberToObject(x, "mask_width", p->mask_width);
	/* an HBM2 card's point (port_set "" for a GUPS point): its engine settings */
	cJSON_AddStringToObject(x, "port_set", p->port_set);
	if (p->port_set[0]) {
		const struct sb_hbm_spec *h = &p->hbm;
		char target[24];

		cJSON_AddStringToObject(x, "op", sb_hbm_rw_name(h->rw));
		cJSON_AddNumberToObject(x, "mix", h->mix_writes);
		cJSON_AddNumberToObject(x, "ws", (double)h->ws);
		cJSON_AddNumberToObject(x, "burst", h->burst);
		cJSON_AddNumberToObject(x, "stride", h->stride);
		cJSON_AddNumberToObject(x, "outstanding", h->outstanding);
		cJSON_AddStringToObject(x, "target",
		                        sb_hbm_target_text(&h->target, target, sizeof(target)));
		cJSON_AddNumberToObject(x, "policy", h->addr_map);
		cJSON_AddNumberToObject(x, "page", h->closed_page);
		cJSON_AddNumberToObject(x, "refresh", h->refresh);
		cJSON_AddNumberToObject(x, "temp", h->temp_c);
	}
}

/* ---- the engine's callbacks ------------------------------------------------------------- */

static void on_progress(void *ctx, const struct sb_run_progress *p)
{
	cJSON *o;

	(void)ctx;
	/* Progress inside a long point: the samples tell that already. */
	if (p->in_point || !(o = cJSON_CreateObject()))
		return;
	cJSON_AddNumberToObject(o, "done", p->done);
	cJSON_AddNumberToObject(o, "total", p->total);
	add_num(o, "eta_s", p->eta_s >= 0 ? p->eta_s : NAN);
	if (!p->last) {
		cJSON_AddNumberToObject(o, "campaign_id", (double)p->campaign_id);
		send_obj("campaign", o, false);
		return;
	}
	cJSON_AddNumberToObject(o, "w", p->worker);
	cJSON_AddStringToObject(o, "device", p->device ? p->device : "");
	cJSON_AddNumberToObject(o, "index", p->last->index);
	cJSON_AddStringToObject(o, "key", p->last->key);
	cJSON_AddNumberToObject(o, "attempt", p->last_attempt);
	cJSON_AddNumberToObject(o, "done_run", p->done_run);
	cJSON_AddNumberToObject(o, "elapsed_s", p->elapsed_s);
	add_num(o, "bandwidth_gbps", p->last_bandwidth_gbps);
	add_num(o, "mrps", p->last_mrps);
	add_num(o, "latency_avg_ns", p->last_latency_avg_ns > 0 ? p->last_latency_avg_ns : NAN);
	add_num(o, "temp_c", p->last_temp_c);
	add_num(o, "power_w", p->last_power_w);
	cJSON_AddBoolToObject(o, "failed", p->last_failed);
	cJSON_AddBoolToObject(o, "rig_fault", p->last_rig_fault);
	add_point(o, p->last);
	send_obj("point_finished", o, false);
	/* The campaign's notify: command, as the submitter, on a thermal failure. */
	if (job.c)
		sb_notify_progress(job.c, p, job.db, job.id, true);
}

static void on_event(void *ctx, const struct sb_run_event *ev)
{
	char line[512], bw[32], mr[32], lat[32], tc[32], pw[32];
	cJSON *o;

	(void)ctx;
	if (ev->kind == SB_RUN_POINT_START) {
		if (!(o = cJSON_CreateObject()))
			return;
		cJSON_AddNumberToObject(o, "w", ev->worker);
		cJSON_AddStringToObject(o, "device", ev->device);
		cJSON_AddNumberToObject(o, "index", ev->point->index);
		cJSON_AddStringToObject(o, "key", ev->point->key);
		cJSON_AddNumberToObject(o, "attempt", ev->attempt);
		add_point(o, ev->point);
		send_obj("point_started", o, false);
		return;
	}
	if (ev->kind != SB_RUN_SAMPLE)
		return;
		/* Samples come fast on the simulated bench: printed directly, numbers only. */
#define NUM(buf, v) snprintf(buf, sizeof(buf), isfinite(v) ? "%.6g" : "null", v)
	NUM(bw, ev->bandwidth_gbps);
	NUM(mr, ev->mrps);
	NUM(lat, ev->latency_avg_ns);
	NUM(tc, ev->sample->temp_c);
	NUM(pw, ev->sample->power_w);
#undef NUM
	snprintf(line, sizeof(line),
	         "{\"t\":\"sample\",\"w\":%u,\"index\":%u,\"attempt\":%u,\"t_s\":%.9g,"
	         "\"bandwidth_gbps\":%s,\"mrps\":%s,\"latency_avg_ns\":%s,\"temp_c\":%s,"
	         "\"power_w\":%s}",
	         ev->worker, ev->point->index, ev->attempt, (double)ev->sample->t_ns * 1e-9, bw, mr,
	         lat, tc, pw);
	send_text(line, true);
}

/* ---- control from the main process -------------------------------------------------------- */

static void on_term(int sig)
{
	(void)sig;
	job.stop = 1;
}

static int on_ctl(void *ctx, char *line, size_t len, int err)
{
	cJSON *o;
	const char *ctl;

	(void)ctx;
	(void)len;
	if (err || !(o = cJSON_Parse(line)))
		return 0;
	ctl = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "ctl"));
	pthread_mutex_lock(&job.mu);
	if (ctl && !strcmp(ctl, "go"))
		job.go = true;
	else if (ctl && !strcmp(ctl, "pause"))
		job.pause = 1;
	else if (ctl && !strcmp(ctl, "unpause"))
		job.pause = 0;
	else if (ctl && !strcmp(ctl, "stop"))
		job.stop = 1;
	else if (ctl && !strcmp(ctl, "cancel"))
		job.stop = job.cancelled = 1;
	pthread_cond_broadcast(&job.cond);
	pthread_mutex_unlock(&job.mu);
	cJSON_Delete(o);
	return 0;
}

static void *control(void *arg)
{
	struct sb_linebuf lb;
	char buf[4096];
	ssize_t n;

	(void)arg;
	sb_linebuf_init(&lb, sizeof(buf));
	while ((n = recv(job.fd, buf, sizeof(buf), 0)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		sb_linebuf_feed(&lb, buf, (size_t)n, on_ctl, NULL);
	}
	/* The main process closed its end: stop (its death kills us in any case). */
	pthread_mutex_lock(&job.mu);
	job.stop = 1;
	job.closed = true;
	pthread_cond_broadcast(&job.cond);
	pthread_mutex_unlock(&job.mu);
	sb_linebuf_release(&lb);
	return NULL;
}

/* ---- the job as received -------------------------------------------------------------------- */

/* The handles: one byte with the descriptors attached. Returns how many, or -1. */
static int recv_handles(int *fds, unsigned max)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * SBD_MAX_BOARDS)];
		struct cmsghdr align;
	} u;
	struct msghdr m = {0};
	struct iovec iov;
	struct cmsghdr *c;
	char mark;
	int n = 0;

	iov.iov_base = &mark;
	iov.iov_len = 1;
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	if (recvmsg(job.fd, &m, MSG_CMSG_CLOEXEC) != 1 || mark != 'H' || (m.msg_flags & MSG_CTRUNC))
		return -1;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if ((unsigned)n < max)
				fds[n++] = fd;
			else
				close(fd);
		}
	}
	return n;
}

/* The job line (read byte-exact up to its newline: control lines follow it). */
static char *recv_line(void)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);

	while (buf) {
		ssize_t n = recv(job.fd, buf + len, 1, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || len + 2 > INIT_MAX) {
			free(buf);
			return NULL;
		}
		if (buf[len] == '\n') {
			buf[len] = '\0';
			return buf;
		}
		if (++len + 1 >= cap) {
			char *b = realloc(buf, cap *= 2);

			if (!b)
				free(buf);
			buf = b;
		}
	}
	return NULL;
}

static const char *jstr(const cJSON *o, const char *name)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name));

	return s ? s : "";
}

static double jnum(const cJSON *o, const char *name, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* Parse the job line; the handles are given to the device layer by the URIs it lists. */
static int take_job(const char *line, const int *fds, int nfds)
{
	cJSON *o = cJSON_Parse(line), *it;
	const char *campaign;
	int i = 0, e = 0;

	if (!o)
		return sb_error_set(SB_ERR_PARSE, "the job line is not JSON");
	job.run = !strcmp(jstr(o, "mode"), "run");
	job.report = !strcmp(jstr(o, "mode"), "report");
	job.notify = !strcmp(jstr(o, "mode"), "notify");
	job.done = (unsigned)jnum(o, "done", 0);
	job.total = (unsigned)jnum(o, "total", 0);
	job.id = (int64_t)jnum(o, "job", 0);
	job.owner.uid = (uid_t)jnum(o, "uid", -1);
	job.owner.gid = (gid_t)jnum(o, "gid", -1);
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(
	                           o, "groups")) if (job.owner.ngroups < SBD_MAX_GROUPS &&
	                                             cJSON_IsNumber(it))
	    job.owner.groups[job.owner.ngroups++] = (gid_t)it->valuedouble;
	job.parent = (pid_t)jnum(o, "ppid", 0);
	snprintf(job.file, sizeof(job.file), "%s", jstr(o, "file"));
	snprintf(job.db, sizeof(job.db), "%s", jstr(o, "db"));
	snprintf(job.db_dir_id, sizeof(job.db_dir_id), "%s", jstr(o, "db_dir_id"));
	job.workers = (unsigned)jnum(o, "workers", 1);
	job.campaign_id = (int64_t)jnum(o, "campaign_id", 0);
	job.prev_campaign_id = (int64_t)jnum(o, "prev_campaign_id", -1);
	/* The files the job makes (database, traces) get the submitter's mask. */
	umask((mode_t)jnum(o, "umask", 022) & 0777);
	sb_log_set_level((enum sb_log_level)jnum(o, "log_level", SB_LOG_INFO));
	campaign = jstr(o, "campaign");
	job.len = strlen(campaign);
	if (!(job.text = strdup(campaign)))
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "handles"))
	{
		if (i < nfds && cJSON_IsString(it) &&
		    (e = sb_device_handle_give(it->valuestring, fds[i])) < 0)
			break;
		i++;
	}
	for (; i < nfds; i++)
		close(fds[i]);
	cJSON_Delete(o);
	if (!e && (job.owner.uid == (uid_t)-1 || !job.db[0]))
		e = sb_error_set(SB_ERR_PARSE, "the job line lacks its owner or database");
	return e;
}

/* ---- checks, as the submitter ---------------------------------------------------------------- */

/*
 * The results database: its folder must exist and be the one the client saw (a daemon with a
 * private /tmp sees another), the file a regular one the submitter may write, or creatable.
 * The kernel decides: this process is the submitter.
 */
static const char *check_db(char *err, size_t size)
{
	char dirbuf[SBD_DB_MAX], basebuf[SBD_DB_MAX], id[48];
	const char *dir, *base;
	struct stat st;
	int fd, e;

	snprintf(dirbuf, sizeof(dirbuf), "%s", job.db);
	snprintf(basebuf, sizeof(basebuf), "%s", job.db);
	dir = dirname(dirbuf);
	base = basename(basebuf);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == EACCES)
			snprintf(err, size,
			         "user %lu cannot create files in '%s' (for the database '%s')",
			         (unsigned long)job.owner.uid, dir, job.db);
		else
			snprintf(err, size, "the database's folder '%s': %s", dir, strerror(e));
		return e == EACCES ? SBD_E_NOT_PERMITTED : SBD_E_BAD_REQUEST;
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		snprintf(err, size, "the database's folder '%s': %s", dir, strerror(errno));
		return SBD_E_BAD_REQUEST;
	}
	snprintf(id, sizeof(id), "%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
	if (job.db_dir_id[0] && strcmp(id, job.db_dir_id)) {
		close(fd);
		snprintf(err, size,
		         "the daemon sees another folder at '%s' than you do (its unit has a "
		         "private /tmp or file system view: PrivateTmp=, ProtectSystem=); put the "
		         "database in a folder you share with the daemon, e.g. under /home or /srv",
		         dir);
		return SBD_E_BAD_REQUEST;
	}
	if (fstatat(fd, base, &st, 0) == 0) {
		if (!S_ISREG(st.st_mode)) {
			close(fd);
			snprintf(err, size, "the database '%s' is not a regular file", job.db);
			return SBD_E_BAD_REQUEST;
		}
		if (faccessat(fd, base, R_OK | W_OK, 0) < 0) {
			e = errno;
			close(fd);
			snprintf(err, size, "user %lu cannot write the database '%s'%s",
			         (unsigned long)job.owner.uid, job.db,
			         e == EROFS
			             ? " (read-only for the daemon: its unit's ReadWritePaths=)"
			             : "");
			return SBD_E_NOT_PERMITTED;
		}
	} else if (access(dir, W_OK | X_OK) < 0) {
		e = errno;
		close(fd);
		snprintf(
		    err, size, "user %lu cannot create files in '%s' (for the database '%s')%s",
		    (unsigned long)job.owner.uid, dir, job.db,
		    e == EROFS ? " (read-only for the daemon: its unit's ReadWritePaths=)" : "");
		return SBD_E_NOT_PERMITTED;
	}
	close(fd);
	return NULL;
}

/* Parse and check the job: what the main process needs to schedule it, or why not. */
static int check(struct sb_campaign *c)
{
	char err[1024];
	const char *code;
	cJSON *o, *devs;
	int e;

	if ((e = sb_campaign_load_string(c, job.file, job.text, job.len)) < 0) {
		refuse(SBD_E_BAD_CAMPAIGN, sb_error_detail());
		return e;
	}
	/* Simulated boards are made here: their profile and bench files are read now, as the
	 * submitter (a FIFO, a device or a file the submitter may not read is refused). */
	for (unsigned i = 0; i < c->ndevices; i++) {
		struct sb_device *dev;

		if (strncmp(c->device[i], "sim:", 4))
			continue;
		if ((e = sb_device_open(&dev, c->device[i])) < 0) {
			snprintf(err, sizeof(err), "'%s': bench.device '%s': %s", job.file,
			         c->device[i], sb_error_detail());
			refuse(SBD_E_BAD_CAMPAIGN, err);
			sb_campaign_release(c);
			return e;
		}
		sb_device_close(dev);
	}
	if ((code = check_db(err, sizeof(err)))) {
		refuse(code, err);
		sb_campaign_release(c);
		return SB_ERR_PERM;
	}
	if ((o = cJSON_CreateObject())) {
		cJSON_AddStringToObject(o, "name", c->name);
		cJSON_AddNumberToObject(o, "npoints", c->npoints);
		devs = cJSON_AddArrayToObject(o, "devices");
		for (unsigned i = 0; devs && i < c->ndevices; i++)
			cJSON_AddItemToArray(devs, cJSON_CreateString(c->device[i]));
	}
	send_obj("checked", o, false);
	return 0;
}

/* ---- running ------------------------------------------------------------------------------- */

/* Whether to resume (the job's own campaign) or start a campaign; 0 or an error. */
static int decide_resume(struct sb_store *st, const char *name, bool *resume)
{
	struct sb_store_campaign latest;
	int64_t latest_id = 0;
	int e = sb_store_campaign_latest(st, name, &latest);
	cJSON *o;

	if (e < 0 && e != SB_ERR_NOT_FOUND)
		return e;
	if (e == 0)
		latest_id = latest.id;
	sb_error_clear();
	*resume = false;
	if (job.prev_campaign_id < 0) {
		/* First start: anything newer than this in the database will be ours. The main
		 * process saves it before the campaign is made (a crash in between resumes). */
		if ((o = cJSON_CreateObject())) {
			cJSON_AddNumberToObject(o, "prev_campaign_id", (double)latest_id);
			send_obj("first_start", o, false);
		}
		pthread_mutex_lock(&job.mu);
		while (!job.go && !job.stop)
			pthread_cond_wait(&job.cond, &job.mu);
		pthread_mutex_unlock(&job.mu);
		return job.stop ? sb_error_set(SB_ERR_INTERRUPTED, "stopped before it started") : 0;
	}
	if (job.campaign_id > 0) {
		if (latest_id != job.campaign_id)
			return sb_error_set(
			    SB_ERR_MISMATCH,
			    "job %" PRId64 ": its campaign %" PRId64 " is no longer the latest "
			    "campaign '%s' in '%s' (%" PRId64
			    " is); continue it with 'stackbench run "
			    "FILE --db DB --resume' after the other, or submit it again",
			    job.id, job.campaign_id, name, job.db, latest_id);
		*resume = true;
		return 0;
	}
	/* Killed between the campaign's creation and its id being saved. */
	*resume = latest_id > job.prev_campaign_id;
	return 0;
}

static int run(struct sb_campaign *c, struct sb_run_summary *sum, char *msg, size_t size)
{
	struct sb_run_options ro = {
	    .jobs = job.workers,
	    .progress = on_progress,
	    .stop = &job.stop,
	    .pause = &job.pause,
	    .event = on_event,
	};
	struct sb_store *st = NULL;
	int e;

	if ((e = sb_store_open(&st, job.db)) < 0)
		return e;
	if ((e = decide_resume(st, c->name, &ro.resume)) == 0) {
		sb_info("%s campaign '%s' in '%s' on %u board%s",
		        ro.resume ? "resuming" : "starting", c->name, job.db, job.workers,
		        job.workers == 1 ? "" : "s");
		job.c = c;
		e = sb_campaign_run(c, st, &ro, sum);
		job.c = NULL;
	}
	if (e == 0)
		snprintf(
		    msg, size,
		    "campaign %" PRId64 " complete: %u points (%u run now, %u stored before, %u "
		    "with a thermal failure) in %.1f s",
		    sum->campaign_id, sum->total, sum->run, sum->skipped, sum->failed, sum->wall_s);
	sb_store_close(st);
	return e;
}

/* ---- a finished job's report, as the submitter ------------------------------------------- */

static char *base64(const unsigned char *p, size_t n)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
		             (i + 2 < n ? p[i + 2] : 0);

		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

/* Send a file of the report folder (a regular file, at most SBD_REPORT_FILE_MAX bytes). */
static int send_file(int dirfd, const char *name, size_t *total)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	unsigned char *data = NULL;
	struct stat st;
	char *b64;
	cJSON *o;
	int e = 0;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		e = sb_error_set(SB_ERR_IO, "the report's '%s': not a regular file", name);
	else if (st.st_size > SBD_REPORT_FILE_MAX || *total + (size_t)st.st_size > SBD_REPORT_MAX)
		e = sb_error_set(SB_ERR_RANGE, "the report's '%s' is too large (%lld bytes)", name,
		                 (long long)st.st_size);
	else if (!(data = malloc((size_t)st.st_size + 1)))
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
	else if (read(fd, data, (size_t)st.st_size) != (ssize_t)st.st_size)
		e = sb_error_set(SB_ERR_IO, "cannot read the report's '%s'", name);
	if (fd >= 0)
		close(fd);
	if (e < 0) {
		free(data);
		return e;
	}
	*total += (size_t)st.st_size;
	b64 = base64(data, (size_t)st.st_size);
	free(data);
	if (!b64 || !(o = cJSON_CreateObject())) {
		free(b64);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "data", b64);
	free(b64);
	send_obj("file", o, false);
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 ? 0 : 0;
}

/*
 * The HTML report of the job's campaign (figures as PNG, the page with its SVGs inside), made
 * in a private temporary folder as the submitter and sent to the main process file by file
 * (it serves them; it never reads the submitter's files). Then the folder goes.
 */
static int report(char *msg, size_t size)
{
	struct sb_report_options ro = {.html = true, .formats = SB_REPORT_PNG | SB_REPORT_SVG};
	char tmp[] = "/tmp/stackbench-report-XXXXXX", out[64];
	struct sb_store *st = NULL;
	struct dirent *de;
	size_t total = 0;
	int e, dirfd;
	DIR *dir;

	ro.campaigns = &job.campaign_id;
	ro.ncampaigns = 1;
	if ((e = sb_store_open_readonly(&st, job.db)) < 0)
		return e;
	if (!mkdtemp(tmp)) {
		sb_store_close(st);
		return sb_error_set(SB_ERR_IO, "cannot make a temporary folder: %s",
		                    strerror(errno));
	}
	snprintf(out, sizeof(out), "%s/r", tmp);
	ro.out_dir = out;
	e = sb_report(st, &ro);
	sb_store_close(st);
	if (e >= 0) {
		snprintf(msg, size, "%d figure%s", e, e == 1 ? "" : "s");
		if ((dirfd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
		    !(dir = fdopendir(dirfd))) {
			e = sb_error_set(SB_ERR_IO, "cannot read the report's folder");
		} else {
			/* report.html first, then the figures' PNGs. */
			e = send_file(dirfd, "report.html", &total);
			while (e >= 0 && (de = readdir(dir))) {
				size_t n = strlen(de->d_name);

				if (n > 4 && n < SBD_REPORT_NAME_MAX &&
				    !strcmp(de->d_name + n - 4, ".png"))
					e = send_file(dirfd, de->d_name, &total);
			}
			closedir(dir);
		}
	}
	nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return e;
}

int sbd_job_main(void)
{
	struct sigaction sa = {.sa_handler = on_term};
	int fds[SBD_MAX_BOARDS], nfds, e;
	struct sb_campaign c;
	char msg[1024] = "", *line;
	pthread_t ctl;
	cJSON *o;

	/* Until the channel works, messages go to the inherited stderr (the daemon's log). */
	if (fcntl(job.fd, F_SETFD, FD_CLOEXEC) < 0 ||
	    (nfds = recv_handles(fds, SBD_MAX_BOARDS)) < 0 || !(line = recv_line())) {
		fprintf(stderr, "stackbenchd: a job process got no job on fd %d\n", SBD_JOB_FD);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sb_log_set_sink(log_sink, NULL);
	e = take_job(line, fds, nfds);
	free(line);
	/* The submitter from here on, for good; then die with the daemon. */
	if (e < 0 || (e = sbd_become(&job.owner)) < 0) {
		refuse(SBD_E_INTERNAL, sb_error_detail());
		return 1;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != job.parent)
		return 1; /* the daemon died before the line above */
	if (pthread_create(&ctl, NULL, control, NULL) != 0) {
		refuse(SBD_E_INTERNAL, "cannot start a thread");
		return 1;
	}
	if (job.report) {
		e = report(msg, sizeof(msg));
		if (e < 0)
			snprintf(msg, sizeof(msg), "%s",
			         sb_error_detail()[0] ? sb_error_detail() : sb_strerror(e));
		if ((o = cJSON_CreateObject())) {
			cJSON_AddNumberToObject(o, "result", e < 0 ? e : 0);
			cJSON_AddStringToObject(o, "message", msg);
		}
		send_obj("end", o, false);
		return 0;
	}
	if (job.notify) {
		/* Cancelled while queued or paused: its notify: command, as the submitter. */
		struct sb_run_summary sum = {
		    .campaign_id = job.campaign_id, .total = job.total, .skipped = job.done};

		if ((e = sb_campaign_load_string(&c, job.file, job.text, job.len)) == 0) {
			sb_notify_end(&c, SB_ERR_INTERRUPTED, true, &sum, job.db, job.id,
			              "cancelled while queued or paused", true);
			sb_campaign_release(&c);
		}
		if ((o = cJSON_CreateObject())) {
			cJSON_AddNumberToObject(o, "result", e < 0 ? e : 0);
			cJSON_AddStringToObject(o, "message", e < 0 ? sb_error_detail() : "");
		}
		send_obj("end", o, false);
		return 0;
	}
	if (check(&c) < 0)
		return 0;
	if (job.run) {
		struct sb_run_summary sum = {0};

		e = run(&c, &sum, msg, sizeof(msg));
		if (e < 0)
			snprintf(msg, sizeof(msg), "%s",
			         sb_error_detail()[0] ? sb_error_detail() : sb_strerror(e));
		if (c.notify.argc) {
			/* Stopped: a cancel says so on the channel before its SIGTERM (the line may
			 * still be on its way); else it was paused or the daemon stops (not an end). */
			struct timespec until;

			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += 500000000;
			if (until.tv_nsec >= 1000000000) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000;
			}
			pthread_mutex_lock(&job.mu);
			while (e == SB_ERR_INTERRUPTED && !job.cancelled && !job.pause &&
			       !job.closed)
				if (pthread_cond_timedwait(&job.cond, &job.mu, &until) == ETIMEDOUT)
					break;
			pthread_mutex_unlock(&job.mu);
			sb_notify_end(&c, e, job.cancelled, &sum, job.db, job.id, msg, true);
		}
		if ((o = cJSON_CreateObject())) {
			cJSON_AddNumberToObject(o, "result", e);
			cJSON_AddStringToObject(o, "message", msg);
		}
		send_obj("end", o, false);
	}
	sb_campaign_release(&c);
	free(job.text);
	/* The control thread may sit in recv: leave without joining it. */
	return 0;
}
