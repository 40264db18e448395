/* SPDX-License-Identifier: MIT */
/*
 * stackbenchd: the host daemon that owns the bench. Command line, folders, the boards' locks,
 * logging (stderr, the journal under systemd, a file when it detaches), signals, readiness
 * (sd_notify, or a pipe to the parent when it detaches), then the socket server.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#include "daemon.h"
#include "stackbench/client.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/util.h"
#include "stackbench/version.h"

#define DEFAULT_HTTP "127.0.0.1:8470"

enum { OPT_SOCKET = 0x100, OPT_STATE, OPT_HTTP, OPT_TOKEN, OPT_GROUP, OPT_LEVEL };

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbenchd [--socket PATH] [--state-dir DIR] [--http ADDR:PORT|none]\n"
	    "                   [--http-token-file FILE] [--device URI]... [--group NAME]\n"
	    "                   [--foreground] [-v|-q] [--log-level LEVEL]\n"
	    "\n"
	    "The stackbench daemon: owns the boards it is given, keeps a persistent queue of\n"
	    "campaigns and runs them (one worker per board), serves clients on a Unix socket\n"
	    "(stackbench submit, queue, follow, cancel, pause, resume; docs/daemon-api.md)\n"
	    "and a live dashboard over HTTP.\n"
	    "\n"
	    "  --socket PATH          the socket (default: /run/stackbench/stackbench.sock as\n"
	    "                         root, else $XDG_RUNTIME_DIR/stackbench/stackbench.sock)\n"
	    "  --state-dir DIR        the queue database (default: /var/lib/stackbench as root,\n"
	    "                         else $XDG_STATE_HOME/stackbench)\n"
	    "  --http ADDR:PORT       the dashboard (default " DEFAULT_HTTP "; 'none': no\n"
	    "                         dashboard; port 0: any free port)\n"
	    "  --http-token-file FILE a token (16..255 of A-Z a-z 0-9 . _ ~ -) every dashboard\n"
	    "                         request must carry; required for a non-loopback ADDR\n"
	    "  --device URI           a board to own (repeat; default $STACKBENCH_DEVICE or\n"
	    "                         sim:); sim: boards run any sim: campaign\n"
	    "  --group NAME           members may use the socket (default stackbench)\n"
	    "  --foreground           do not detach (what systemd runs)\n"
	    "  -v, -q, --log-level    more or less logging (default info)\n"
	    "  -h, --help, -V, --version\n"
	    "\n"
	    "Signals: SIGTERM, SIGINT and SIGHUP stop after the current sample of each running\n"
	    "point; that point is not stored and runs again when the daemon starts next, with\n"
	    "every job that was running or queued.\n"
	    "Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line, 3 a board or the\n"
	    "state folder is busy.\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "stackbenchd: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'stackbenchd --help'.\n");
	return 2;
}

/* ---- logging ------------------------------------------------------------------------------- */

static FILE *log_file;

static void log_stderr(void *ctx, enum sb_log_level level, const char *msg)
{
	FILE *f = log_file ? log_file : stderr;
	char when[32];

	(void)ctx;
	sbd_iso_time(sbd_now(), when, sizeof(when));
	fprintf(f, "%s stackbenchd[%ld]: %s: %s\n", when, (long)getpid(), sb_log_level_name(level),
	        msg);
	fflush(f);
}

static void log_journal(void *ctx, enum sb_log_level level, const char *msg)
{
	static const int prio[] = {LOG_DEBUG, LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG, LOG_DEBUG};

	(void)ctx;
	sd_journal_print(prio[level <= SB_LOG_TRACE ? level : SB_LOG_TRACE], "%s", msg);
}

/* Under systemd, stderr is the journal's stream: log to the journal with priorities. */
static bool journal_stream(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat sb;

	return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &sb) == 0 &&
	       (unsigned long long)sb.st_dev == dev && (unsigned long long)sb.st_ino == ino;
}

/* ---- folders ------------------------------------------------------------------------------- */

/* mkdir -p with mode for the last component (parents 0700), refusing a symlink at the end. */
static int make_dir(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	struct stat sb;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
			return sb_error_set(SB_ERR_IO, "cannot make '%s': %s", tmp,
			                    strerror(errno));
		*p = '/';
	}
	if (mkdir(path, mode) < 0 && errno != EEXIST)
		return sb_error_set(SB_ERR_IO, "cannot make '%s': %s", path, strerror(errno));
	if (lstat(path, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return sb_error_set(SB_ERR_IO, "'%s' is not a folder", path);
	if (sb.st_uid != geteuid())
		return sb_error_set(SB_ERR_PERM, "'%s' belongs to user %lu, not to this daemon's",
		                    path, (unsigned long)sb.st_uid);
	return 0;
}

static int read_token(const char *path, char *out, size_t size)
{
	char *text;
	size_t len;
	int e;

	if ((e = sb_read_file(path, &text, &len)) < 0)
		return e;
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
		text[--len] = '\0';
	e = len >= 16 && len < size &&
	            strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
	                         "tuvwxyz0123456789._~-") == len
	        ? 0
	        : sb_error_set(
	              SB_ERR_INVAL,
	              "token file '%s': expected 16..%zu characters of A-Z a-z 0-9 . _ ~ -", path,
	              size - 1);
	if (!e)
		memcpy(out, text, len + 1);
	free(text);
	return e;
}

/* ---- detaching ----------------------------------------------------------------------------- */

/*
 * Fork; the parent waits until the child is ready (one byte on the pipe) or fails (the pipe
 * closes) and exits with that. Returns the pipe's write end in the child.
 */
static int detach(void)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		fprintf(stderr, "stackbenchd: cannot detach: %s\n", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &c, 1) == 1)
			exit(0);
		exit(1); /* the child said why on stderr */
	}
	close(p[0]);
	setsid();
	return p[1];
}

/* Ready: tell the parent (detached) and systemd; logs go to a file when detached. */
static void ready(struct sbd *d, int pipe_fd)
{
	char path[PATH_MAX + 32];
	int null;

	sd_notifyf(0, "READY=1\nMAINPID=%ld", (long)getpid());
	if (pipe_fd < 0)
		return;
	snprintf(path, sizeof(path), "%s/stackbenchd.log", d->opt.state_dir);
	if (!(log_file = fopen(path, "ae")))
		sb_warn("cannot open the log '%s': %s", path, strerror(errno));
	printf("stackbenchd: serving '%s' (PID %ld), log '%s'\n", d->opt.socket_path,
	       (long)getpid(), path);
	fflush(stdout);
	if ((null = open("/dev/null", O_RDWR)) >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	if (write(pipe_fd, "", 1) != 1) {
		/* The parent is gone: nothing to tell. */
	}
	close(pipe_fd);
}

/* ---- boards and jobs --------------------------------------------------------------------- */

static int open_boards(struct sbd *d)
{
	for (unsigned i = 0; i < d->opt.ndevices; i++) {
		struct sbd_board *b = &d->boards[i];
		struct sb_device *dev;
		int e;

		/* Same size: a plain copy (snprintf would see d and b overlap). */
		memcpy(b->uri, d->opt.device[i], sizeof(b->uri));
		b->uri[sizeof(b->uri) - 1] = '\0';
		sbd_json_escape(b->uri_json, sizeof(b->uri_json), b->uri);
		if ((e = sb_uri_parse(b->uri, &b->parsed)) < 0)
			return e;
		for (unsigned k = 0; k < i; k++)
			if (b->parsed.scheme != SB_URI_SIM && !strcmp(d->boards[k].uri, b->uri))
				return sb_error_set(SB_ERR_INVAL, "--device '%s' is given twice",
				                    b->uri);
		/* The daemon holds its boards' locks as long as it runs. */
		if ((e = sb_board_lock(&b->lock, b->uri)) < 0)
			return e;
		if ((e = sb_device_open(&dev, b->uri)) < 0)
			return sb_error_wrap(e, "board '%s'", b->uri);
		sb_info("board '%s': %u ports", b->uri, sb_device_port_count(dev));
		sb_device_close(dev);
		d->nboards++;
	}
	return 0;
}

static int load_job(void *ctx, struct sbd_job *j)
{
	struct sbd *d = ctx;
	char err[1024];
	struct sbd_job **pp = &d->jobs;

	j->d = d;
	if (!sbd_job_finished(j->state)) {
		if (sbd_job_parse(j, err, sizeof(err)) < 0) {
			snprintf(j->message, sizeof(j->message), "cannot read its campaign: %s",
			         err);
			j->state = SBD_FAILED;
			sbd_iso_time(sbd_now(), j->finished_at, sizeof(j->finished_at));
			sbd_queue_save(d->q, j);
		} else if (j->state == SBD_RUNNING) {
			/* Running when the daemon stopped (or died): it resumes. */
			j->state = SBD_QUEUED;
			sb_info("job %" PRId64 " '%s' was running: it resumes", j->id, j->name);
		}
	}
	while (*pp)
		pp = &(*pp)->next;
	*pp = j;
	d->nactive += !sbd_job_finished(j->state);
	return 0;
}

/* ---- main ---------------------------------------------------------------------------------- */

static int parse_args(struct sbd *d, int argc, char **argv, int *level)
{
	static const struct option opts[] = {
	    {"socket", required_argument, NULL, OPT_SOCKET},
	    {"state-dir", required_argument, NULL, OPT_STATE},
	    {"http", required_argument, NULL, OPT_HTTP},
	    {"http-token-file", required_argument, NULL, OPT_TOKEN},
	    {"device", required_argument, NULL, 'd'},
	    {"group", required_argument, NULL, OPT_GROUP},
	    {"foreground", no_argument, NULL, 'f'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"log-level", required_argument, NULL, OPT_LEVEL},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	const char *token_file = NULL, *env;
	char dir[PATH_MAX];
	int c, e;

	snprintf(d->opt.http, sizeof(d->opt.http), "%s", DEFAULT_HTTP);
	snprintf(d->opt.group, sizeof(d->opt.group), "%s", SBD_DEFAULT_GROUP);
	while ((c = getopt_long(argc, argv, "d:fvqhV", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SOCKET:
			if (strlen(optarg) >= sizeof(d->opt.socket_path))
				return usage_error("--socket '%s': longer than %zu bytes", optarg,
				                   sizeof(d->opt.socket_path) - 1);
			snprintf(d->opt.socket_path, sizeof(d->opt.socket_path), "%s", optarg);
			break;
		case OPT_STATE:
			snprintf(d->opt.state_dir, sizeof(d->opt.state_dir), "%s", optarg);
			break;
		case OPT_HTTP:
			if (!strcmp(optarg, "none"))
				d->opt.http[0] = '\0';
			else if (strspn(optarg, "0123456789") == strlen(optarg))
				snprintf(d->opt.http, sizeof(d->opt.http), "127.0.0.1:%s", optarg);
			else
				snprintf(d->opt.http, sizeof(d->opt.http), "%s", optarg);
			break;
		case OPT_TOKEN:
			token_file = optarg;
			break;
		case 'd':
			if (d->opt.ndevices == SBD_MAX_BOARDS)
				return usage_error("at most %d --device", SBD_MAX_BOARDS);
			snprintf(d->opt.device[d->opt.ndevices++], sizeof(d->opt.device[0]), "%s",
			         optarg);
			break;
		case OPT_GROUP:
			snprintf(d->opt.group, sizeof(d->opt.group), "%s", optarg);
			break;
		case 'f':
			d->opt.foreground = true;
			break;
		case 'v':
			*level += *level < SB_LOG_TRACE;
			break;
		case 'q':
			*level -= *level > SB_LOG_NONE;
			break;
		case OPT_LEVEL:
			for (e = SB_LOG_NONE; e <= SB_LOG_TRACE; e++)
				if (!strcmp(optarg, sb_log_level_name((enum sb_log_level)e)))
					break;
			if (e > SB_LOG_TRACE)
				return usage_error("unknown log level '%s'", optarg);
			*level = e;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("stackbenchd %s\n", sb_version());
			exit(0);
		default:
			return usage_error("bad option");
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!d->opt.ndevices) {
		env = getenv("STACKBENCH_DEVICE");
		snprintf(d->opt.device[0], sizeof(d->opt.device[0]), "%s",
		         env && *env ? env : "sim:");
		d->opt.ndevices = 1;
	}
	if (!d->opt.socket_path[0]) {
		if (sb_daemon_runtime_dir(dir, sizeof(dir)) < 0 ||
		    snprintf(d->opt.socket_path, sizeof(d->opt.socket_path), "%s/%s", dir,
		             SB_DAEMON_SOCKET_NAME) >= (int)sizeof(d->opt.socket_path))
			return usage_error("the default socket path is too long; give --socket");
	}
	if (!d->opt.state_dir[0] &&
	    sb_daemon_state_dir(d->opt.state_dir, sizeof(d->opt.state_dir)) < 0)
		return usage_error("the default state folder is too long; give --state-dir");
	if ((token_file && (e = read_token(token_file, d->opt.token, sizeof(d->opt.token))) < 0) ||
	    (e = sbd_http_check(d->opt.http, d->opt.token)) < 0)
		return usage_error("%s", sb_error_detail());
	return 0;
}

/* Everything after the command line; returns the exit code. */
static int serve(struct sbd *d, bool default_http, int pipe_fd)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], what[PATH_MAX + 64];
	struct group *g;
	sigset_t mask;
	int lfd = -1, sfd = -1, e, rc = 1;

	/* The socket's folder: 0755 as root (group members reach the 0660 socket), else 0700. */
	snprintf(dir, sizeof(dir), "%s", d->opt.socket_path);
	if (strrchr(dir, '/') && strrchr(dir, '/') != dir)
		*strrchr(dir, '/') = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if ((e = make_dir(d->opt.state_dir, 0750)) < 0 ||
	    (strcmp(dir, ".") && (e = make_dir(dir, geteuid() == 0 ? 0755 : 0700)) < 0))
		goto fail;
	/* One daemon per state folder: two would run the same queue. */
	snprintf(path, sizeof(path), "%s/stackbenchd.lock", d->opt.state_dir);
	snprintf(what, sizeof(what), "the state folder '%s' is in use", d->opt.state_dir);
	if ((e = sb_lock_file(&d->state_lock, path, what)) < 0)
		goto fail;
	if ((g = getgrnam(d->opt.group))) {
		d->group_gid = g->gr_gid;
		d->have_group = true;
	} else {
		sb_info("no group '%s': only root and user %lu may use the socket", d->opt.group,
		        (unsigned long)geteuid());
	}
	/* Signals go to a signalfd; every thread started from here on blocks them. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((sfd = signalfd(-1, &mask, SFD_CLOEXEC)) < 0) {
		e = sb_error_set(SB_ERR_IO, "signalfd: %s", strerror(errno));
		goto fail;
	}
	if ((e = sbd_hub_init(d)) < 0 || (e = open_boards(d)) < 0 ||
	    (e = sbd_queue_open(&d->q, d->opt.state_dir)) < 0 ||
	    (e = sbd_queue_load(d->q, load_job, d)) < 0 || (e = sbd_server_listen(d, &lfd)) < 0)
		goto fail;
	if ((e = sbd_http_start(d)) < 0) {
		if (!default_http)
			goto fail;
		sb_warn("%s; no dashboard", sb_error_detail());
	}
	sb_info("stackbenchd %s serving '%s' (state '%s') with %u board%s", sb_version(),
	        d->opt.socket_path, d->opt.state_dir, d->nboards, d->nboards == 1 ? "" : "s");
	ready(d, pipe_fd);
	rc = sbd_server_run(d, lfd, sfd) < 0 ? 1 : 0;
	sbd_stop_all(d);
	sbd_http_stop(d);
	unlink(d->opt.socket_path);
	sb_info("stopped");
	goto out;
fail:
	sb_err("%s", sb_error_detail());
	rc = e == SB_ERR_BUSY ? 3 : 1;
out:
	if (lfd >= 0)
		close(lfd);
	if (sfd >= 0)
		close(sfd);
	return rc;
}

int main(int argc, char **argv)
{
	static struct sbd d; /* large (the event ring): not on the stack */
	int level = SB_LOG_INFO, rc, pipe_fd = -1;
	bool default_http;

	d.wake_fd = -1;
	d.started = sbd_now();
	if ((rc = parse_args(&d, argc, argv, &level)) != 0)
		return rc;
	default_http = !strcmp(d.opt.http, DEFAULT_HTTP);
	sb_log_set_level((enum sb_log_level)level);
	sb_log_set_sink(journal_stream() ? log_journal : log_stderr, NULL);
	if (!d.opt.foreground)
		pipe_fd = detach();
	rc = serve(&d, default_http, pipe_fd);
	for (struct sbd_job *j = d.jobs, *next; j; j = next) {
		next = j->next;
		sbd_job_free(j);
	}
	for (unsigned i = 0; i < SBD_MAX_BOARDS; i++)
		sb_lock_release(d.boards[i].lock);
	sbd_queue_close(d.q);
	if (d.wake_fd >= 0)
		sbd_hub_release(&d);
	sb_lock_release(d.state_lock);
	if (log_file)
		fclose(log_file);
	return rc;
}
