/* SPDX-License-Identifier: MIT */
/*
 * Job and check processes, the main process's side: start one (fork, then exec of the
 * daemon's own binary as a job process: a fresh process, nothing of the daemon's memory, its
 * threads or its descriptors), hand it its boards' handles and the job over a socket pair,
 * read what it reports, and end it: "stop" then SIGTERM, SIGKILL after the grace period; a
 * check that does not end within its time is killed. A job process is the submitter's, so
 * everything it sends is checked (types, ranges, sizes) and rebuilt before it reaches the
 * event ring; a lying or crashing job process harms its own job only.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "daemon.h"
#include "stackbench/error.h"
#include "stackbench/log.h"

#define MSG_MAX (256u * 1024u) /* a line from a job process */
#define LOGS_PER_S 50          /* its log lines passed on per second (the rest counted) */

extern char **environ;

struct sbd_proc {
	int watch; /* SBD_WATCH_PROC: what the main loop's epoll data points at */
	enum sbd_proc_mode mode;
	struct sbd_job *job;
	pid_t pid;
	int fd; /* the channel; -1 once closed */
	struct sb_linebuf in;
	char *out; /* lines not sent yet */
	size_t out_off, out_len;
	bool exited, eof, dead;
	double started, kill_at;
	unsigned logs;
	double log_second;
	uint64_t client;
	char tag[SBD_TAG_MAX + 1];
	char *text; /* a submit's campaign text, queued with the job when it passes */
	size_t len;
	struct sbd_proc_end end;
	/* A report process: its job is a copy (owned), and the files it sent. */
	bool own_job;
	struct sbd_report_file *files;
	unsigned nfiles;
	size_t files_bytes;
	struct sbd_proc *next;
};

static struct sbd_proc *procs;
static struct sbd_proc *dead; /* over: freed after the main loop's batch of events */

pid_t sbd_proc_pid(const struct sbd_proc *p)
{
	return p ? p->pid : 0;
}

/* ---- output ------------------------------------------------------------------------------ */

static void flush_out(struct sbd *d, struct sbd_proc *p)
{
	while (p->fd >= 0 && p->out_off < p->out_len) {
		ssize_t n = send(p->fd, p->out + p->out_off, p->out_len - p->out_off,
		                 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			sbd_server_watch(d, p->fd, p, EPOLLIN | EPOLLOUT);
			return;
		}
		if (n < 0) {
			p->out_off = p->out_len; /* it is gone; its end is near */
			break;
		}
		p->out_off += (size_t)n;
	}
	free(p->out);
	p->out = NULL;
	p->out_off = p->out_len = 0;
	if (p->fd >= 0)
		sbd_server_watch(d, p->fd, p, EPOLLIN);
}

static void send_line(struct sbd *d, struct sbd_proc *p, const char *line)
{
	size_t n = strlen(line);
	char *b;

	if (p->fd < 0 || !(b = realloc(p->out, p->out_len + n + 1)))
		return;
	memcpy(b + p->out_len, line, n);
	b[p->out_len + n] = '\n';
	p->out = b;
	p->out_len += n + 1;
	flush_out(d, p);
}

static void send_ctl(struct sbd *d, struct sbd_proc *p, const char *ctl)
{
	char line[64];

	snprintf(line, sizeof(line), "{\"ctl\":\"%s\"}", ctl);
	send_line(d, p, line);
}

/* ---- starting ---------------------------------------------------------------------------- */

static char *job_line(struct sbd_job *j, enum sbd_proc_mode mode, const char *text, size_t len,
                      const char *db_dir_id, const char *const *handles, unsigned nhandles)
{
	cJSON *o = cJSON_CreateObject(), *a;
	char *campaign, *line;

	if (!o || !(campaign = malloc(len + 1))) {
		cJSON_Delete(o);
		return NULL;
	}
	memcpy(campaign, text, len);
	campaign[len] = '\0';
	cJSON_AddStringToObject(o, "mode",
	                        mode == SBD_PROC_RUN      ? "run"
	                        : mode == SBD_PROC_REPORT ? "report"
	                        : mode == SBD_PROC_NOTIFY ? "notify"
	                                                  : "check");
	cJSON_AddNumberToObject(o, "done", j->done);
	cJSON_AddNumberToObject(o, "total", j->total ? j->total : j->npoints);
	cJSON_AddNumberToObject(o, "job", (double)j->id);
	cJSON_AddNumberToObject(o, "uid", j->owner.uid);
	cJSON_AddNumberToObject(o, "gid", j->owner.gid);
	if ((a = cJSON_AddArrayToObject(o, "groups")))
		for (unsigned i = 0; i < j->owner.ngroups; i++)
			cJSON_AddItemToArray(a, cJSON_CreateNumber(j->owner.groups[i]));
	cJSON_AddNumberToObject(o, "ppid", getpid());
	cJSON_AddNumberToObject(o, "umask", j->umask & 0777);
	cJSON_AddStringToObject(o, "file", j->file);
	cJSON_AddStringToObject(o, "db", j->db);
	cJSON_AddStringToObject(o, "db_dir_id", db_dir_id ? db_dir_id : "");
	cJSON_AddStringToObject(o, "campaign", campaign);
	cJSON_AddNumberToObject(o, "workers", mode == SBD_PROC_RUN ? j->nboards : j->workers);
	cJSON_AddNumberToObject(o, "campaign_id", (double)j->campaign_id);
	cJSON_AddNumberToObject(o, "prev_campaign_id", (double)j->prev_campaign_id);
	cJSON_AddNumberToObject(o, "log_level", sb_log_get_level());
	if ((a = cJSON_AddArrayToObject(o, "handles")))
		for (unsigned i = 0; i < nhandles; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(handles[i]));
	free(campaign);
	line = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return line;
}

/* The handles, one byte with the descriptors attached (a fresh socket buffer takes it). */
static int send_handles(int fd, const int *fds, unsigned n)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * SBD_MAX_BOARDS)];
		struct cmsghdr align;
	} u;
	struct msghdr m = {0};
	struct iovec iov = {.iov_base = "H", .iov_len = 1};
	struct cmsghdr *c;

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (n) {
		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	}
	return sendmsg(fd, &m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* fork + exec of /proc/self/exe --job-process with the channel on SBD_JOB_FD. */
static pid_t spawn(int child_fd)
{
	static char *const argv[] = {"stackbenchd", "--job-process", NULL};
	sigset_t none;
	pid_t pid;

	sigemptyset(&none);
	pid = fork();
	if (pid != 0)
		return pid;
	/* The child: async-signal-safe calls only until exec. */
	if (child_fd == SBD_JOB_FD ? fcntl(child_fd, F_SETFD, 0) < 0
	                           : dup2(child_fd, SBD_JOB_FD) < 0)
		_exit(127);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve("/proc/self/exe", argv, environ);
	_exit(127);
}

int sbd_proc_start(struct sbd *d, struct sbd_job *j, enum sbd_proc_mode mode, uint64_t client,
                   const char *tag, const char *db_dir_id, const char *text, size_t len)
{
	const char *handles[SBD_MAX_BOARDS];
	int fds[SBD_MAX_BOARDS], sv[2] = {-1, -1}, e = 0;
	unsigned nfds = 0;
	struct sbd_proc *p;
	char *line = NULL;

	if (!(p = calloc(1, sizeof(*p))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	p->watch = SBD_WATCH_PROC;
	p->mode = mode;
	p->job = j;
	p->fd = -1;
	p->client = client;
	snprintf(p->tag, sizeof(p->tag), "%s", tag ? tag : "");
	p->started = sbd_now();
	/* A report's files come as lines of base64. */
	sb_linebuf_init(&p->in,
	                mode == SBD_PROC_REPORT ? SBD_REPORT_FILE_MAX / 3 * 4 + 4096 : MSG_MAX);
	if (mode == SBD_PROC_REPORT || mode == SBD_PROC_NOTIFY) {
		struct sbd_job *copy = malloc(sizeof(*copy));

		if (!copy) {
			e = sb_error_set(SB_ERR_NOMEM, "out of memory");
			goto fail;
		}
		*copy = *j;
		copy->proc = NULL;
		copy->next = NULL;
		p->job = j = copy;
		p->own_job = true;
	}
	if (mode == SBD_PROC_CHECK && text) { /* queued with the job when the check passes */
		if (!(p->text = malloc(len + 1))) {
			e = sb_error_set(SB_ERR_NOMEM, "out of memory");
			goto fail;
		}
		memcpy(p->text, text, len);
		p->text[len] = '\0';
		p->len = len;
	}
	/* The boards' handles (pci: and dev:), opened here with the daemon's rights. */
	for (unsigned i = 0; mode == SBD_PROC_RUN && i < j->nboards; i++) {
		struct sbd_board *b = &d->boards[j->board[i]];
		int fd;

		if (b->parsed.scheme == SB_URI_SIM)
			continue;
		if ((fd = sbd_board_handle(b->uri)) < 0) {
			e = fd;
			goto fail;
		}
		handles[nfds] = b->uri;
		fds[nfds++] = fd;
	}
	if (!(line = job_line(j, mode, text, len, db_dir_id, handles, nfds))) {
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		e = sb_error_set(SB_ERR_IO, "socketpair: %s", strerror(errno));
		goto fail;
	}
	if ((p->pid = spawn(sv[1])) < 0) {
		e = sb_error_set(SB_ERR_IO, "cannot start a job process: %s", strerror(errno));
		goto fail;
	}
	close(sv[1]);
	sv[1] = -1;
	p->fd = sv[0];
	if (send_handles(p->fd, fds, nfds) < 0)
		sb_warn("job %" PRId64 ": cannot hand over its boards: %s", j->id, strerror(errno));
	for (unsigned i = 0; i < nfds; i++)
		close(fds[i]);
	nfds = 0;
	fcntl(p->fd, F_SETFL, O_NONBLOCK);
	if (sbd_server_watch(d, p->fd, p, EPOLLIN) < 0) {
		kill(p->pid, SIGKILL);
		close(p->fd);
		p->fd = -1;
		p->eof = true;
	}
	send_line(d, p, line);
	cJSON_free(line);
	p->next = procs;
	procs = p;
	d->nprocs++;
	if (!p->own_job)
		j->proc = p;
	sb_dbg("job %" PRId64 ": %s process %ld as user %lu", j->id,
	       mode == SBD_PROC_RUN      ? "run"
	       : mode == SBD_PROC_REPORT ? "report"
	       : mode == SBD_PROC_NOTIFY ? "notify"
	                                 : "check",
	       (long)p->pid, (unsigned long)j->owner.uid);
	return 0;
fail:
	if (p->own_job)
		free(p->job);
	for (unsigned i = 0; i < nfds; i++)
		close(fds[i]);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	cJSON_free(line);
	sb_linebuf_release(&p->in);
	free(p->text);
	free(p);
	return e;
}

int sbd_proc_report(struct sbd *d, const struct sbd_job *j)
{
	return sbd_proc_start(d, (struct sbd_job *)j, SBD_PROC_REPORT, 0, NULL, NULL, "", 0);
}

/* ---- control ------------------------------------------------------------------------------ */

void sbd_proc_stop_reports(void)
{
	for (struct sbd_proc *p = procs; p; p = p->next)
		if (p->own_job && !p->exited && !p->end.killed) {
			kill(p->pid, SIGKILL);
			p->end.killed = true;
		}
}

void sbd_proc_pause(struct sbd_proc *p, bool pause)
{
	if (p)
		send_ctl(p->job->d, p, pause ? "pause" : "unpause");
}

void sbd_proc_stop(struct sbd *d, struct sbd_proc *p)
{
	if (!p || p->exited)
		return;
	if (p->mode == SBD_PROC_CHECK) {
		kill(p->pid, SIGKILL);
		p->end.killed = true;
		return;
	}
	/* "cancel": the job's end (its notify: command runs); "stop": resumed later. */
	send_ctl(d, p, p->job->cancel_requested ? "cancel" : "stop");
	if (kill(p->pid, SIGTERM) < 0)
		sb_warn("job %" PRId64 ": cannot signal its process %ld: %s", p->job->id,
		        (long)p->pid, strerror(errno));
	if (!p->kill_at)
		p->kill_at = sbd_now() + d->opt.limits.grace_s;
}

/* ---- what a job process says ---------------------------------------------------------------- */

static const cJSON *get(const cJSON *o, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* An integer field in [lo, hi]; false when absent or not one. */
static bool get_int(const cJSON *o, const char *name, double lo, double hi, double *v)
{
	const cJSON *x = get(o, name);

	if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < lo ||
	    x->valuedouble > hi || x->valuedouble != floor(x->valuedouble))
		return false;
	*v = x->valuedouble;
	return true;
}

/* A number or null (NAN); false when neither. */
static bool get_num(const cJSON *o, const char *name, double *v)
{
	const cJSON *x = get(o, name);

	if (cJSON_IsNull(x)) {
		*v = NAN;
		return true;
	}
	if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
		return false;
	*v = x->valuedouble;
	return true;
}

/* A string field of at most max bytes; false when absent, not one or too long. */
static bool get_str(const cJSON *o, const char *name, size_t max, const char **s)
{
	const cJSON *x = get(o, name);

	if (!cJSON_IsString(x) || !x->valuestring || strlen(x->valuestring) > max)
		return false;
	*s = x->valuestring;
	return true;
}

/* Fields copied from a job process's line into an event, by name and kind. */
struct field {
	const char *name;
	char kind; /* 'i' integer >= 0, 'n' number or null, 's' string, 'b' bool */
};

static bool copy_fields(cJSON *dst, const cJSON *src, const struct field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const cJSON *x = get(src, f[i].name);
		const char *s;
		double v;

		switch (f[i].kind) {
		case 'i':
			if (!get_int(src, f[i].name, 0, 1e15, &v))
				return false;
			cJSON_AddNumberToObject(dst, f[i].name, v);
			break;
		case 'n':
			if (!get_num(src, f[i].name, &v))
				return false;
			if (isnan(v))
				cJSON_AddNullToObject(dst, f[i].name);
			else
				cJSON_AddNumberToObject(dst, f[i].name, v);
			break;
		case 's':
			if (!get_str(src, f[i].name, SB_CAMPAIGN_KEY_MAX, &s))
				return false;
			cJSON_AddStringToObject(dst, f[i].name, s);
			break;
		default:
			if (!cJSON_IsBool(x))
				return false;
			cJSON_AddBoolToObject(dst, f[i].name, cJSON_IsTrue(x));
		}
	}
	return true;
}

static const struct field point_fields[] = {
    {"text", 's'},    {"cooling", 's'}, {"rep", 'i'},        {"type", 's'},  {"size", 'i'},
    {"pattern", 's'}, {"mode", 's'},    {"addr_mode", 'i'},  {"ports", 'i'}, {"idle", 'b'},
    {"stream", 'i'},  {"mask_lo", 'n'}, {"mask_width", 'i'},
};

/* An HBM2 card's point: its engine settings (port_set "" for a GUPS point, which has none). */
static const struct field hbm_point_fields[] = {
    {"op", 's'},     {"mix", 'i'},         {"ws", 'i'},     {"burst", 'i'},
    {"stride", 'i'}, {"outstanding", 'i'}, {"target", 's'}, {"policy", 'n'},
    {"page", 'n'},   {"refresh", 'n'},     {"temp", 'n'},
};

/* The point's axes as an object in dst (from src's "point"). */
static bool copy_point(cJSON *dst, const cJSON *src)
{
	cJSON *x = cJSON_AddObjectToObject(dst, "point");
	const cJSON *sp = get(src, "point");
	const char *set;

	if (!x || !cJSON_IsObject(sp) ||
	    !copy_fields(x, sp, point_fields, sizeof(point_fields) / sizeof(point_fields[0])))
		return false;
	if (!get(sp, "port_set"))
		return true; /* a job process of a build before HBM2 campaigns */
	if (!get_str(sp, "port_set", SB_AXIS_NAME_MAX, &set))
		return false;
	cJSON_AddStringToObject(x, "port_set", set);
	return !set[0] || copy_fields(x, sp, hbm_point_fields,
	                              sizeof(hbm_point_fields) / sizeof(hbm_point_fields[0]));
}

/* The worker's board, or -1 when w is not a worker of the job. */
static int worker_board(const struct sbd_job *j, const cJSON *m)
{
	double w;

	if (!get_int(m, "w", 0, SBD_MAX_BOARDS - 1, &w) || (unsigned)w >= j->nboards)
		return -1;
	return j->board[(unsigned)w];
}

static bool on_point_started(struct sbd *d, struct sbd_job *j, const cJSON *m)
{
	static const struct field f[] = {
	    {"device", 's'}, {"index", 'i'}, {"key", 's'}, {"attempt", 'i'}};
	int bi = worker_board(j, m);
	struct sbd_board *b;
	cJSON *o;

	if (bi < 0)
		return false;
	b = &d->boards[bi];
	if (!(o = sbd_event_new(d, SBD_EV_POINT_STARTED)))
		return true;
	cJSON_AddNumberToObject(o, "job", (double)j->id);
	cJSON_AddStringToObject(o, "board", b->uri);
	if (!copy_fields(o, m, f, 4) || !copy_point(o, m)) {
		cJSON_Delete(o);
		return false;
	}
	b->in_point = true;
	b->point_index = (unsigned)cJSON_GetNumberValue(get(o, "index"));
	b->attempt = (unsigned)cJSON_GetNumberValue(get(o, "attempt"));
	snprintf(b->point_key, sizeof(b->point_key), "%s", cJSON_GetStringValue(get(o, "key")));
	snprintf(b->device, sizeof(b->device), "%s", cJSON_GetStringValue(get(o, "device")));
	b->has_sample = false;
	sbd_emit_object(d, SBD_EV_POINT_STARTED, bi, j->id, o);
	return true;
}

static bool on_sample(struct sbd *d, struct sbd_job *j, const cJSON *m)
{
	double index, attempt, t_s, bw, mr, lat, tc, pw;
	char nums[5][32], *line;
	int bi = worker_board(j, m), n;
	struct sbd_board *b;
	const double *v[5] = {&bw, &mr, &lat, &tc, &pw};

	if (bi < 0 || !get_int(m, "index", 0, 1e9, &index) ||
	    !get_int(m, "attempt", 0, 1e9, &attempt) || !get_num(m, "t_s", &t_s) ||
	    !get_num(m, "bandwidth_gbps", &bw) || !get_num(m, "mrps", &mr) ||
	    !get_num(m, "latency_avg_ns", &lat) || !get_num(m, "temp_c", &tc) ||
	    !get_num(m, "power_w", &pw))
		return false;
	b = &d->boards[bi];
	b->has_sample = true;
	b->samples++;
	b->t_s = t_s;
	b->bandwidth_gbps = bw;
	b->mrps = mr;
	b->latency_avg_ns = lat;
	b->temp_c = tc;
	b->power_w = pw;
	for (int i = 0; i < 5; i++)
		snprintf(nums[i], sizeof(nums[i]), isfinite(*v[i]) ? "%.6g" : "null", *v[i]);
	n = snprintf(NULL, 0, "%s", b->uri_json) + 512;
	if ((line = malloc((size_t)n)))
		snprintf(line, (size_t)n,
		         "{\"v\":%d,\"event\":\"sample\",\"seq\":%" PRIu64 ",\"ts_ms\":%.0f,"
		         "\"job\":%" PRId64 ",\"board\":\"%s\",\"index\":%.0f,\"attempt\":%.0f,"
		         "\"t_s\":%.9g,\"bandwidth_gbps\":%s,\"mrps\":%s,\"latency_avg_ns\":%s,"
		         "\"temp_c\":%s,\"power_w\":%s}",
		         SB_DAEMON_API_VERSION, d->next_seq, floor(sbd_now() * 1e3), j->id,
		         b->uri_json, index, attempt, isfinite(t_s) ? t_s : 0.0, nums[0], nums[1],
		         nums[2], nums[3], nums[4]);
	sbd_emit(d, SBD_EV_SAMPLE, bi, j->id, line);
	return true;
}

static bool on_point_finished(struct sbd *d, struct sbd_job *j, const cJSON *m)
{
	static const struct field f[] = {
	    {"device", 's'}, {"index", 'i'},          {"key", 's'},      {"attempt", 'i'},
	    {"done", 'i'},   {"total", 'i'},          {"done_run", 'i'}, {"elapsed_s", 'n'},
	    {"eta_s", 'n'},  {"bandwidth_gbps", 'n'}, {"mrps", 'n'},     {"latency_avg_ns", 'n'},
	    {"temp_c", 'n'}, {"power_w", 'n'},        {"failed", 'b'},   {"rig_fault", 'b'},
	};
	int bi = worker_board(j, m);
	cJSON *o, *fo;
	double done, total, eta;
	bool failed;

	if (bi < 0 || !get_int(m, "done", 0, 1e9, &done) || !get_int(m, "total", 0, 1e9, &total) ||
	    !get_num(m, "eta_s", &eta))
		return false;
	if (!(o = sbd_event_new(d, SBD_EV_POINT_FINISHED)))
		return true;
	cJSON_AddNumberToObject(o, "job", (double)j->id);
	cJSON_AddStringToObject(o, "board", d->boards[bi].uri);
	if (!copy_fields(o, m, f, sizeof(f) / sizeof(f[0])) || !copy_point(o, m)) {
		cJSON_Delete(o);
		return false;
	}
	j->done = (unsigned)done;
	j->total = (unsigned)total;
	j->eta_s = isnan(eta) ? -1 : eta;
	d->boards[bi].in_point = false;
	failed = cJSON_IsTrue(get(o, "failed"));
	sbd_emit_object(d, SBD_EV_POINT_FINISHED, bi, j->id, o);
	if (failed && (fo = sbd_event_new(d, SBD_EV_FAILURE))) {
		static const struct field ff[] = {
		    {"index", 'i'}, {"key", 's'}, {"attempt", 'i'}, {"temp_c", 'n'}};

		cJSON_AddNumberToObject(fo, "job", (double)j->id);
		cJSON_AddStringToObject(fo, "board", d->boards[bi].uri);
		copy_fields(fo, m, ff, 4);
		sbd_emit_object(d, SBD_EV_FAILURE, bi, j->id, fo);
	}
	return true;
}

static bool on_campaign(struct sbd *d, struct sbd_job *j, const cJSON *m)
{
	double id, done, total;
	cJSON *o;

	if (!get_int(m, "campaign_id", 1, 1e15, &id) || !get_int(m, "done", 0, 1e9, &done) ||
	    !get_int(m, "total", 0, 1e9, &total))
		return false;
	j->done = (unsigned)done;
	j->total = (unsigned)total;
	sbd_job_campaign(d, j, (int64_t)id);
	if ((o = sbd_event_new(d, SBD_EV_CAMPAIGN))) {
		cJSON_AddNumberToObject(o, "job", (double)j->id);
		cJSON_AddNumberToObject(o, "campaign_id", id);
		cJSON_AddStringToObject(o, "name", j->name);
		cJSON_AddStringToObject(o, "db", j->db);
		cJSON_AddNumberToObject(o, "done", done);
		cJSON_AddNumberToObject(o, "total", total);
	}
	sbd_emit_object(d, SBD_EV_CAMPAIGN, -1, j->id, o);
	return true;
}

static bool on_checked(struct sbd_proc *p, const cJSON *m)
{
	struct sbd_job *j = p->job;
	const cJSON *devs = get(m, "devices"), *it;
	const char *name;
	double npoints;
	unsigned n = 0;

	if (!get_str(m, "name", SB_CAMPAIGN_NAME_MAX - 1, &name) ||
	    !get_int(m, "npoints", 0, 1e9, &npoints) || !cJSON_IsArray(devs) ||
	    cJSON_GetArraySize(devs) < 1 || cJSON_GetArraySize(devs) > SB_CAMPAIGN_MAX_DEVICES)
		return false;
	cJSON_ArrayForEach(it,
	                   devs) if (!cJSON_IsString(it) ||
	                             strlen(it->valuestring) >= SB_CAMPAIGN_TEXT_MAX) return false;
	if (p->mode == SBD_PROC_CHECK || !j->checked) {
		snprintf(j->name, sizeof(j->name), "%s", name);
		j->npoints = (unsigned)npoints;
		cJSON_ArrayForEach(it, devs)
		    snprintf(j->device[n++], sizeof(j->device[0]), "%s", it->valuestring);
		j->ndevices = n;
	}
	p->end.checked = true;
	return true;
}

/* Strict base64 into out (room for 3/4 of the text); the length, or -1. */
static ssize_t unbase64(const char *in, unsigned char *out)
{
	size_t n = strlen(in), o = 0;

	if (n % 4)
		return -1;
	for (size_t i = 0; i < n; i += 4) {
		unsigned v = 0, pad = 0;

		for (unsigned k = 0; k < 4; k++) {
			char c = in[i + k];
			unsigned x;

			if (c >= 'A' && c <= 'Z')
				x = (unsigned)(c - 'A');
			else if (c >= 'a' && c <= 'z')
				x = (unsigned)(c - 'a') + 26;
			else if (c >= '0' && c <= '9')
				x = (unsigned)(c - '0') + 52;
			else if (c == '+')
				x = 62;
			else if (c == '/')
				x = 63;
			else if (c == '=' && i + 4 == n && k >= 2 && (k == 3 || in[i + 3] == '='))
				x = 0, pad++;
			else
				return -1;
			v = v << 6 | x;
		}
		out[o++] = (unsigned char)(v >> 16);
		if (pad < 2)
			out[o++] = (unsigned char)(v >> 8);
		if (pad < 1)
			out[o++] = (unsigned char)v;
	}
	return (ssize_t)o;
}

/* A report's file: report.html or NAME.png (letters, digits, '.', '_', '-'), within the
 * limits, each name once. */
static bool on_file(struct sbd_proc *p, const cJSON *m)
{
	struct sbd_report_file *f;
	const char *name, *data;
	size_t n;
	ssize_t len;

	if (!get_str(m, "name", SBD_REPORT_NAME_MAX - 1, &name) ||
	    !get_str(m, "data", SBD_REPORT_FILE_MAX / 3 * 4 + 4, &data))
		return false;
	n = strlen(name);
	if (strcmp(name, "report.html") && (n < 5 || strcmp(name + n - 4, ".png")))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '.' || name[i] == '_' ||
		      name[i] == '-') ||
		    (name[i] == '.' && i == 0))
			return false;
	for (unsigned i = 0; i < p->nfiles; i++)
		if (!strcmp(p->files[i].name, name))
			return false;
	if (p->nfiles >= 256 || !(f = realloc(p->files, (p->nfiles + 1) * sizeof(*f))))
		return false;
	p->files = f;
	f = &p->files[p->nfiles];
	if (!(f->data = malloc(strlen(data) / 4 * 3 + 1)))
		return false;
	if ((len = unbase64(data, f->data)) < 0 || (size_t)len > SBD_REPORT_FILE_MAX ||
	    p->files_bytes + (size_t)len > SBD_REPORT_MAX) {
		free(f->data);
		return false;
	}
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->len = (size_t)len;
	p->files_bytes += f->len;
	p->nfiles++;
	return true;
}

/* One line from a job process; false when it breaks the rules (the process is killed). */
static bool on_msg(struct sbd *d, struct sbd_proc *p, const cJSON *m)
{
	struct sbd_job *j = p->job;
	const char *t = cJSON_GetStringValue(get(m, "t")), *s, *code;
	double v;
	bool ok = false;

	if (!t)
		return false;
	if (!strcmp(t, "log")) {
		double now = floor(sbd_now());

		if (!get_int(m, "level", SB_LOG_ERROR, SB_LOG_TRACE, &v) ||
		    !get_str(m, "msg", 4096, &s))
			return false;
		if (now != p->log_second) {
			p->log_second = now;
			p->logs = 0;
		}
		if (p->logs++ < LOGS_PER_S)
			sb_log((enum sb_log_level)v, "job %" PRId64 ": %s", j->id, s);
		return true;
	}
	if (!strcmp(t, "checked")) {
		pthread_mutex_lock(&d->mu);
		ok = !p->end.checked && on_checked(p, m);
		pthread_mutex_unlock(&d->mu);
		return ok;
	}
	if (!strcmp(t, "refused")) {
		if (!get_str(m, "code", 32, &code) || !get_str(m, "message", 4096, &s))
			return false;
		/* Only the codes a check gives. */
		p->end.code = !strcmp(code, SBD_E_BAD_CAMPAIGN)    ? SBD_E_BAD_CAMPAIGN
		              : !strcmp(code, SBD_E_NOT_PERMITTED) ? SBD_E_NOT_PERMITTED
		              : !strcmp(code, SBD_E_BAD_REQUEST)   ? SBD_E_BAD_REQUEST
		                                                   : SBD_E_INTERNAL;
		snprintf(p->end.message, sizeof(p->end.message), "%s", s);
		return true;
	}
	if (!strcmp(t, "file"))
		return p->mode == SBD_PROC_REPORT && on_file(p, m);
	if (!strcmp(t, "end")) {
		if (!get_int(m, "result", -1000, 0, &v) || !get_str(m, "message", 4096, &s))
			return false;
		p->end.ended = true;
		p->end.result = (int)v;
		snprintf(p->end.message, sizeof(p->end.message), "%s", s);
		return true;
	}
	/* The rest: a running job's, once checked. */
	if (p->mode != SBD_PROC_RUN || !p->end.checked)
		return false;
	pthread_mutex_lock(&d->mu);
	if (!strcmp(t, "first_start")) {
		ok = j->prev_campaign_id < 0 && get_int(m, "prev_campaign_id", 0, 1e15, &v);
		if (ok)
			sbd_job_first_start(d, j, (int64_t)v);
	} else if (!strcmp(t, "campaign")) {
		ok = on_campaign(d, j, m);
	} else if (!strcmp(t, "point_started")) {
		ok = on_point_started(d, j, m);
	} else if (!strcmp(t, "sample")) {
		ok = on_sample(d, j, m);
	} else if (!strcmp(t, "point_finished")) {
		ok = on_point_finished(d, j, m);
	}
	pthread_mutex_unlock(&d->mu);
	if (ok && !strcmp(t, "first_start"))
		send_ctl(d, p, "go");
	return ok;
}

struct line_ctx {
	struct sbd *d;
	struct sbd_proc *p;
};

static int on_line(void *ctx, char *line, size_t len, int err)
{
	struct line_ctx *c = ctx;
	cJSON *m;
	bool ok;

	if (err || !len)
		return err ? -1 : 0;
	m = cJSON_ParseWithLength(line, len);
	ok = m && on_msg(c->d, c->p, m);
	cJSON_Delete(m);
	if (!ok) {
		sb_warn("job %" PRId64 ": its process %ld sent what a job process does not send; "
		        "killed",
		        c->p->job->id, (long)c->p->pid);
		kill(c->p->pid, SIGKILL);
		c->p->end.killed = true;
		return -1;
	}
	return 0;
}

/* ---- ending -------------------------------------------------------------------------------- */

static void close_channel(struct sbd *d, struct sbd_proc *p)
{
	if (p->fd < 0)
		return;
	sbd_server_unwatch(d, p->fd);
	close(p->fd);
	p->fd = -1;
	p->eof = true;
}

/* Read what there is; at the end of the stream (or a broken rule) the channel closes. */
static void read_channel(struct sbd *d, struct sbd_proc *p)
{
	struct line_ctx c = {d, p};
	char buf[65536];

	for (int rounds = 0; p->fd >= 0 && rounds < 64; rounds++) {
		ssize_t n = recv(p->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0 || sb_linebuf_feed(&p->in, buf, (size_t)n, on_line, &c) < 0) {
			close_channel(d, p);
			return;
		}
	}
}

/* Over when it was reaped and its channel is closed: the job learns how it ended. */
static void maybe_done(struct sbd *d, struct sbd_proc *p)
{
	struct sbd_proc **pp;
	char *text;

	if (!p->exited || !p->eof)
		return;
	for (pp = &procs; *pp && *pp != p; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = p->next;
	d->nprocs--;
	if (p->job->proc == p)
		p->job->proc = NULL;
	text = p->text;
	p->text = NULL;
	p->dead = true;
	p->next = dead;
	dead = p;
	if (p->mode == SBD_PROC_REPORT) {
		bool ok = p->end.ended && p->end.result >= 0 && !p->end.killed && p->nfiles;

		if (!ok && !p->end.ended)
			snprintf(p->end.message, sizeof(p->end.message),
			         "the report's process as user %lu ended without a report%s",
			         (unsigned long)p->job->owner.uid,
			         p->end.killed ? " (killed: it broke the rules or took too long)"
			                       : "");
		if (ok)
			sb_info("job %" PRId64 ": report made as user %lu (%u files, %zu bytes)",
			        p->job->id, (unsigned long)p->job->owner.uid, p->nfiles,
			        p->files_bytes);
		else
			sb_warn("job %" PRId64 ": no report: %s", p->job->id, p->end.message);
		sbd_web_report_done(p->job->id, ok, p->end.message, p->files, p->nfiles);
		p->files = NULL;
		p->nfiles = 0;
		free(text);
		return;
	}
	if (p->mode == SBD_PROC_NOTIFY) {
		if (!p->end.ended)
			sb_warn("job %" PRId64 ": its notify process as user %lu ended without a "
			        "word%s (status %d)%s%s",
			        p->job->id, (unsigned long)p->job->owner.uid,
			        p->end.killed ? " (killed)" : "", p->end.status,
			        p->end.message[0] ? ": " : "", p->end.message);
		free(text);
		return;
	}
	sbd_job_proc_done(d, p->job, p->mode, p->client, p->tag, &p->end, text, p->len);
}

void sbd_proc_free_dead(void)
{
	while (dead) {
		struct sbd_proc *p = dead;

		dead = p->next;
		sb_linebuf_release(&p->in);
		free(p->out);
		for (unsigned i = 0; i < p->nfiles; i++)
			free(p->files[i].data);
		free(p->files);
		if (p->own_job)
			free(p->job);
		free(p);
	}
}

void sbd_proc_io(struct sbd *d, struct sbd_proc *p, uint32_t events)
{
	if (p->dead)
		return;
	if (events & EPOLLOUT)
		flush_out(d, p);
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		read_channel(d, p);
	if (p->eof && !p->exited) {
		/* The channel is its lifeline: without it, it has nothing left to do. */
		kill(p->pid, SIGKILL);
	}
	maybe_done(d, p);
}

void sbd_proc_reap(struct sbd *d)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		struct sbd_proc *p;

		for (p = procs; p && p->pid != pid; p = p->next)
			;
		if (!p || p->exited)
			continue;
		p->exited = true;
		p->end.status = status;
		/* Whatever it wrote before it ended, then the end of the stream. */
		read_channel(d, p);
		close_channel(d, p);
		maybe_done(d, p);
	}
}

void sbd_proc_tick(struct sbd *d)
{
	double now = sbd_now();

	for (struct sbd_proc *p = procs; p; p = p->next) {
		if (p->exited)
			continue;
		if (p->own_job) {
			if (now > p->started + SBD_REPORT_S && !p->end.killed) {
				sb_warn(
				    "job %" PRId64 ": its %s process took more than %d s; killed",
				    p->job->id, p->mode == SBD_PROC_REPORT ? "report" : "notify",
				    SBD_REPORT_S);
				kill(p->pid, SIGKILL);
				p->end.killed = true;
			}
			continue;
		}
		if (!p->end.checked && !p->end.code && now > p->started + d->opt.limits.check_s) {
			sb_warn("job %" PRId64 ": the checks as user %lu did not end within %u s; "
			        "killed",
			        p->job->id, (unsigned long)p->job->owner.uid,
			        d->opt.limits.check_s);
			p->end.code = SBD_E_TIMEOUT;
			snprintf(
			    p->end.message, sizeof(p->end.message),
			    "the checks of the campaign's files as user %lu did not end within %u "
			    "s (a FIFO, a device or a hung file system where a file is named?)",
			    (unsigned long)p->job->owner.uid, d->opt.limits.check_s);
			kill(p->pid, SIGKILL);
			p->end.killed = true;
		} else if (p->kill_at && now > p->kill_at && !p->end.killed) {
			sb_warn("job %" PRId64 ": its process %ld did not stop within %u s; killed",
			        p->job->id, (long)p->pid, d->opt.limits.grace_s);
			if (kill(p->pid, SIGKILL) < 0)
				sb_err("job %" PRId64 ": cannot kill its process %ld: %s",
				       p->job->id, (long)p->pid, strerror(errno));
			p->end.killed = true;
		}
	}
}
