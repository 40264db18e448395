/* SPDX-License-Identifier: MIT */
/*
 * stackbenchd: the host daemon that owns the bench. Command line, folders, the boards' locks,
 * the dashboard's token, logging (stderr, the journal under systemd, a file when it detaches),
 * signals, readiness (sd_notify, or a pipe to the parent when it detaches), then the socket
 * server. Run with --job-process (by itself only), it is one job's process (jobmain.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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

#define TOKEN_FILE_NAME "dashboard.token"

enum { OPT_SOCKET = 0x100, OPT_STATE, OPT_HTTP, OPT_TOKEN, OPT_GROUP, OPT_LEVEL, OPT_LIMIT };

/* --limit NAME=VALUE: the names, their defaults and ranges. */
static const struct limit {
	const char *name;
	size_t off;
	unsigned dflt, min, max;
	const char *what;
} limits[] = {
    {"clients", offsetof(struct sbd_limits, clients), 256, 2, 65536, "socket connections at once"},
    {"clients-per-user", offsetof(struct sbd_limits, clients_per_user), 16, 1, 65536,
     "of them of one user (root: no limit)"},
    {"root-reserved", offsetof(struct sbd_limits, root_reserved), 8, 0, 65535,
     "of them kept for root"},
    {"idle-s", offsetof(struct sbd_limits, idle_s), 60, 0, 86400,
     "a connection idle this long is closed (0: never)"},
    {"campaign-bytes", offsetof(struct sbd_limits, campaign_bytes), 256 * 1024, 1024,
     SB_DAEMON_LINE_MAX / 2, "a submitted campaign's text"},
    {"jobs-per-user", offsetof(struct sbd_limits, jobs_per_user), 50, 1, SBD_MAX_ACTIVE,
     "active jobs of one user"},
    {"keep-jobs", offsetof(struct sbd_limits, keep_jobs), 1000, 0, 1000000,
     "finished jobs kept in queue.db"},
    {"keep-days", offsetof(struct sbd_limits, keep_days), 30, 0, 36500,
     "finished jobs older than this leave queue.db (0: no age limit)"},
    {"grace-s", offsetof(struct sbd_limits, grace_s), 10, 1, 3600,
     "a job told to stop is killed after this"},
    {"check-s", offsetof(struct sbd_limits, check_s), 10, 1, 3600,
     "the checks of a job's files (as its user) must end within this"},
    {"http-clients", offsetof(struct sbd_limits, http_clients), 64, 1, 4096,
     "dashboard connections at once"},
    {"http-per-client", offsetof(struct sbd_limits, http_per_client), 8, 1, 4096,
     "of them of one user (loopback) or address"},
};

static unsigned *limit_field(struct sbd_limits *l, const struct limit *x)
{
	return (unsigned *)((char *)l + x->off);
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbenchd [--socket PATH] [--state-dir DIR] [--http ADDR:PORT|none]\n"
	    "                   [--http-token-file FILE] [--device URI]... [--group NAME|GID]\n"
	    "                   [--limit NAME=VALUE]... [--foreground] [-v|-q]\n"
	    "                   [--log-level LEVEL]\n"
	    "\n"
	    "The stackbench daemon: owns the boards it is given, keeps a persistent queue of\n"
	    "campaigns and runs them (one worker per board), serves clients on a Unix socket\n"
	    "(stackbench submit, queue, follow, cancel, pause, resume; docs/daemon-api.md)\n"
	    "and a live dashboard over HTTP. Each job runs in a process of its own as the user\n"
	    "who submitted it; the daemon opens no file a request names.\n"
	    "\n"
	    "  --socket PATH          the socket (default: /run/stackbench/stackbench.sock as\n"
	    "                         root, else $XDG_RUNTIME_DIR/stackbench/stackbench.sock,\n"
	    "                         without XDG_RUNTIME_DIR in the state folder)\n"
	    "  --state-dir DIR        the queue database (default: /var/lib/stackbench as root,\n"
	    "                         else $XDG_STATE_HOME/stackbench)\n"
	    "  --http ADDR:PORT       the dashboard (default " DEFAULT_HTTP "; 'none': no\n"
	    "                         dashboard; port 0: any free port)\n"
	    "  --http-token-file FILE\n"
	    "                         the token (16..255 of A-Z a-z 0-9 . _ ~ -) every dashboard\n"
	    "                         request must carry; default: one made at start, written\n"
	    "                         to SOCKET_DIR/" TOKEN_FILE_NAME
	    " (root and the group may read\n"
	    "                         it; 'stackbench dashboard' prints the URL with it)\n"
	    "  --device URI           a board to own (repeat; default $STACKBENCH_DEVICE or\n"
	    "                         sim:); sim: boards run any sim: campaign\n"
	    "  --group NAME|GID       members may use the socket (default stackbench); their\n"
	    "                         jobs run as them, so a daemon that is not root needs\n"
	    "                         CAP_SETUID and CAP_SETGID for them (the installed units)\n"
	    "  --limit NAME=VALUE     a limit (repeat; below)\n"
	    "  --foreground           do not detach (what systemd runs)\n"
	    "  -v, -q, --log-level    more or less logging (default info)\n"
	    "  -h, --help, -V, --version\n"
	    "\n"
	    "Limits (--limit NAME=VALUE, default in brackets):\n");
	for (size_t i = 0; i < SB_ARRAY_SIZE(limits); i++)
		fprintf(out, "  %-18s %s [%u]\n", limits[i].name, limits[i].what, limits[i].dflt);
	fprintf(
	    out,
	    "\n"
	    "Signals: SIGTERM, SIGINT and SIGHUP stop after the current sample of each running\n"
	    "point (a job process that has not stopped after grace-s is killed); that point is\n"
	    "not stored and runs again when the daemon starts next, with every job that was\n"
	    "running or queued.\n"
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
		return sb_error_set(SB_ERR_PERM,
		                    "'%s' belongs to user %lu, not to this daemon's (another user "
		                    "made it? remove it, or give --socket / --state-dir)",
		                    path, (unsigned long)sb.st_uid);
	/* Ours: no wider than asked (a private folder must stay private; clients check it). */
	if ((sb.st_mode & 07777 & ~mode) && chmod(path, mode) < 0)
		return sb_error_set(SB_ERR_PERM, "cannot make '%s' mode %04o: %s", path,
		                    (unsigned)mode, strerror(errno));
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

/* A fresh token: 32 random bytes as 43 characters of base64url. */
static int make_token(char *out, size_t size)
{
	static const char abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned char r[33];
	size_t o = 0;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return sb_error_set(SB_ERR_IO, "cannot make the dashboard's token: %s",
		                    strerror(errno));
	for (size_t i = 0; i + 2 < sizeof(r) && o + 4 < size; i += 3) {
		unsigned v = (unsigned)r[i] << 16 | (unsigned)r[i + 1] << 8 | r[i + 2];

		for (int k = 3; k >= 0; k--)
			out[o++] = abc[(v >> (6 * k)) & 63];
	}
	out[o] = '\0';
	return 0;
}

/* The token for clients, beside the socket: readable by root, the daemon and the group. */
static int write_token(struct sbd *d)
{
	char tmp[PATH_MAX + 16];
	size_t len = strlen(d->opt.token);
	int fd, e = 0;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", d->opt.token_file);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0)
		return sb_error_set(SB_ERR_IO, "cannot write the dashboard's token beside '%s': %s",
		                    d->opt.token_file, strerror(errno));
	if (fchmod(fd, d->have_group ? 0640 : 0600) < 0 ||
	    (d->have_group && fchown(fd, (uid_t)-1, d->group_gid) < 0) ||
	    write(fd, d->opt.token, len) != (ssize_t)len || write(fd, "\n", 1) != 1 ||
	    fsync(fd) < 0 || rename(tmp, d->opt.token_file) < 0)
		e = sb_error_set(SB_ERR_IO, "cannot write the dashboard's token '%s': %s",
		                 d->opt.token_file, strerror(errno));
	close(fd);
	if (e)
		unlink(tmp);
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
	struct stat st;
	int null, fd;

	sd_notifyf(0, "READY=1\nMAINPID=%ld", (long)getpid());
	if (pipe_fd < 0)
		return;
	snprintf(path, sizeof(path), "%s/stackbenchd.log", d->opt.state_dir);
	/* Appended to, and only ever a regular file of ours (never through a link). */
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
	               0640)) < 0 ||
	    fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(log_file = fdopen(fd, "a"))) {
		sb_warn("cannot open the log '%s': %s", path,
		        fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
	}
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
	struct sbd_job **pp = &d->jobs;

	j->d = d;
	if (j->state == SBD_RUNNING) {
		/* Running when the daemon stopped (or died): it resumes. */
		j->state = SBD_QUEUED;
		sb_info("job %" PRId64 " '%s' was running: it resumes", j->id, j->name);
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
	    {"limit", required_argument, NULL, OPT_LIMIT},
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
	for (size_t i = 0; i < SB_ARRAY_SIZE(limits); i++)
		*limit_field(&d->opt.limits, &limits[i]) = limits[i].dflt;
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
		case OPT_LIMIT: {
			size_t n = strcspn(optarg, "=");
			size_t i;
			unsigned long v;
			char *end;

			for (i = 0; i < SB_ARRAY_SIZE(limits); i++)
				if (strlen(limits[i].name) == n &&
				    !strncmp(optarg, limits[i].name, n))
					break;
			if (i == SB_ARRAY_SIZE(limits) || !optarg[n])
				return usage_error(
				    "--limit '%s': expected NAME=VALUE with a NAME of "
				    "the list in --help",
				    optarg);
			v = strtoul(optarg + n + 1, &end, 10);
			if (*end || end == optarg + n + 1 || v < limits[i].min || v > limits[i].max)
				return usage_error("--limit %s: expected %u..%u", optarg,
				                   limits[i].min, limits[i].max);
			*limit_field(&d->opt.limits, &limits[i]) = (unsigned)v;
			break;
		}
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
	if (d->opt.limits.root_reserved >= d->opt.limits.clients)
		return usage_error("--limit root-reserved=%u: not below clients=%u",
		                   d->opt.limits.root_reserved, d->opt.limits.clients);
	if ((token_file && (e = read_token(token_file, d->opt.token, sizeof(d->opt.token))) < 0) ||
	    (e = sbd_http_check(d->opt.http)) < 0)
		return usage_error("%s", sb_error_detail());
	/* No token given: one made now, written beside the socket for the clients. */
	if (!token_file && d->opt.http[0]) {
		if (make_token(d->opt.token, sizeof(d->opt.token)) < 0)
			return usage_error("%s", sb_error_detail());
		snprintf(dir, sizeof(dir), "%s", d->opt.socket_path);
		snprintf(d->opt.token_file, sizeof(d->opt.token_file), "%s/" TOKEN_FILE_NAME,
		         dirname(dir));
	}
	return 0;
}

/* Everything after the command line; returns the exit code. */
static int serve(struct sbd *d, bool default_http, int pipe_fd)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], what[PATH_MAX + 64];
	struct group *g;
	sigset_t mask;
	int lfd = -1, sfd = -1, e, rc = 1;

	if (strspn(d->opt.group, "0123456789") == strlen(d->opt.group)) {
		/* A group by number (one the user database may not know). */
		d->group_gid = (gid_t)strtoul(d->opt.group, NULL, 10);
		d->have_group = true;
	} else if ((g = getgrnam(d->opt.group))) {
		d->group_gid = g->gr_gid;
		d->have_group = true;
	} else {
		sb_info("no group '%s': only root and user %lu may use the socket", d->opt.group,
		        (unsigned long)geteuid());
	}
	d->can_switch = sbd_can_switch_users();
	if (d->have_group && !d->can_switch)
		sb_warn("not root and without CAP_SETUID/CAP_SETGID: this daemon cannot run jobs "
		        "as their users, so it serves only root and user %lu, not the members of "
		        "'%s'",
		        (unsigned long)geteuid(), d->opt.group);
	/* The socket's folder: 0755 when the group's members are served (they reach the 0660
	 * socket), else 0700 (the user's own daemon: clients check that). */
	snprintf(dir, sizeof(dir), "%s", d->opt.socket_path);
	if (strrchr(dir, '/') && strrchr(dir, '/') != dir)
		*strrchr(dir, '/') = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if ((e = make_dir(d->opt.state_dir, geteuid() == 0 ? 0750 : 0700)) < 0 ||
	    (strcmp(dir, ".") &&
	     (e = make_dir(dir, geteuid() == 0 || (d->have_group && d->can_switch) ? 0755 : 0700)) <
	         0))
		goto fail;
	/* One daemon per state folder: two would run the same queue. */
	snprintf(path, sizeof(path), "%s/stackbenchd.lock", d->opt.state_dir);
	snprintf(what, sizeof(what), "the state folder '%s' is in use", d->opt.state_dir);
	if ((e = sb_lock_file(&d->state_lock, path, what)) < 0)
		goto fail;
	/* Signals go to a signalfd; every thread started from here on blocks them. SIGCHLD:
	 * a job process ended. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
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
	if (d->http && d->opt.token_file[0] && (e = write_token(d)) < 0)
		goto fail;
	sb_info("stackbenchd %s serving '%s' (state '%s') with %u board%s", sb_version(),
	        d->opt.socket_path, d->opt.state_dir, d->nboards, d->nboards == 1 ? "" : "s");
	ready(d, pipe_fd);
	rc = sbd_server_run(d, lfd, sfd) < 0 ? 1 : 0;
	sbd_http_stop(d);
	unlink(d->opt.socket_path);
	if (d->opt.token_file[0])
		unlink(d->opt.token_file);
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

	/* One job's process (started by the daemon itself): nothing of the below. */
	if (argc == 2 && !strcmp(argv[1], "--job-process"))
		return sbd_job_main();
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
