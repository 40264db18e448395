/* SPDX-License-Identifier: MIT */
/*
 * A campaign's notify: command (docs/campaigns.md, "notify"): run with posix_spawnp as an
 * argument vector (never a shell), the event and the campaign's facts in STACKBENCH_*
 * environment variables, standard input /dev/null, its output kept (the first line goes into
 * the log), in a process group of its own so that a timeout ends it and its children: SIGTERM
 * at timeout_s, SIGKILL a second later. Whatever it does is logged, never the campaign's
 * failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/log.h"

extern char **environ;

#define OUT_KEEP 512 /* bytes of its output kept for the log */
#define MAX_VARS 24  /* variables set: STACKBENCH_*, and PATH, HOME... for a fresh environment */
#define KILL_AFTER_S 1.0

static const char *const event_names[] = {"done", "failed", "cancelled", "thermal_failure"};

const char *sb_notify_event_name(enum sb_notify_event e)
{
	for (unsigned i = 0; i < 4; i++)
		if (e == 1u << i)
			return event_names[i];
	return "?";
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* NAME=VALUE into vars (malloc'ed); false when out of memory. */
static bool add_var(char **vars, unsigned *n, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool add_var(char **vars, unsigned *n, const char *name, const char *fmt, ...)
{
	char value[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	if (*n >= MAX_VARS || asprintf(&vars[*n], "%s=%s", name, value) < 0)
		return false;
	(*n)++;
	return true;
}

/* Whether an inherited variable is one of ours (ours replace it). */
static bool ours(const char *var, char *const *vars, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		size_t len = (size_t)(strchr(vars[i], '=') - vars[i]) + 1;

		if (!strncmp(var, vars[i], len))
			return true;
	}
	return false;
}

/* The environment: the facts, and either the caller's or a fresh one of the user's (its own
 * variables appended to vars, freed with them). */
static char **environment(char **vars, unsigned *n, bool clean)
{
	size_t count = 0, k = 0;
	char **env;

	if (clean) {
		struct passwd pw, *res = NULL;
		char buf[16384];

		if (!add_var(vars, n, "PATH", "/usr/local/bin:/usr/bin:/bin") ||
		    !add_var(vars, n, "LANG", "C.UTF-8"))
			return NULL;
		if (getpwuid_r(getuid(), &pw, buf, sizeof(buf), &res) == 0 && res &&
		    (!add_var(vars, n, "HOME", "%s", pw.pw_dir) ||
		     !add_var(vars, n, "USER", "%s", pw.pw_name) ||
		     !add_var(vars, n, "LOGNAME", "%s", pw.pw_name)))
			return NULL;
	} else {
		while (environ && environ[count])
			count++;
	}
	if (!(env = calloc(count + *n + 1, sizeof(*env))))
		return NULL;
	for (unsigned i = 0; i < *n; i++)
		env[k++] = vars[i];
	for (size_t i = 0; i < count; i++)
		if (!ours(environ[i], vars, *n))
			env[k++] = environ[i];
	env[k] = NULL;
	return env;
}

/* The first line of out (printable), for the log. */
static void first_line(char *out, size_t len)
{
	size_t i;

	for (i = 0; i < len && out[i] != '\n'; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = '?';
	out[i] = '\0';
}

int sb_notify_run(const struct sb_campaign *c, const struct sb_notify_facts *f, bool clean_env)
{
	const struct sb_campaign_notify *nf = &c->notify;
	const char *ev = sb_notify_event_name(f->event);
	char *argv[SB_NOTIFY_MAX_ARGS + 1], *vars[MAX_VARS], **env = NULL, out[OUT_KEEP + 1];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	unsigned nvars = 0;
	size_t olen = 0;
	int pipefd[2] = {-1, -1}, status = 0, e = 0, r;
	double deadline, kill_at = 0;
	bool killed = false, ok = true;
	sigset_t none, def;
	pid_t pid;

	if (!nf->argc || !(nf->on & f->event))
		return 0;
	for (unsigned i = 0; i < nf->argc; i++)
		argv[i] = (char *)nf->text + nf->off[i];
	argv[nf->argc] = NULL;
	ok = add_var(vars, &nvars, "STACKBENCH_EVENT", "%s", ev) &&
	     add_var(vars, &nvars, "STACKBENCH_CAMPAIGN", "%s", c->name) &&
	     add_var(vars, &nvars, "STACKBENCH_CAMPAIGN_FILE", "%s", c->file) &&
	     add_var(vars, &nvars, "STACKBENCH_CAMPAIGN_HASH", "%s", c->hash) &&
	     add_var(vars, &nvars, "STACKBENCH_CAMPAIGN_ID", "%" PRId64, f->campaign_id) &&
	     add_var(vars, &nvars, "STACKBENCH_DB", "%s", f->db ? f->db : "") &&
	     add_var(vars, &nvars, "STACKBENCH_POINTS_DONE", "%u", f->done) &&
	     add_var(vars, &nvars, "STACKBENCH_POINTS_TOTAL", "%u", f->total) &&
	     add_var(vars, &nvars, "STACKBENCH_MESSAGE", "%s", f->message ? f->message : "");
	if (ok && f->job)
		ok = add_var(vars, &nvars, "STACKBENCH_JOB", "%" PRId64, f->job);
	if (ok && f->event == SB_NOTIFY_THERMAL)
		ok = add_var(vars, &nvars, "STACKBENCH_POINT_INDEX", "%d", f->point_index) &&
		     add_var(vars, &nvars, "STACKBENCH_POINT_KEY", "%s",
		             f->point_key ? f->point_key : "") &&
		     (isfinite(f->temp_c)
		          ? add_var(vars, &nvars, "STACKBENCH_TEMP_C", "%.2f", f->temp_c)
		          : add_var(vars, &nvars, "STACKBENCH_TEMP_C", "%s", ""));
	if (!ok || !(env = environment(vars, &nvars, clean_env))) {
		sb_warn("notify (%s): out of memory", ev);
		e = SB_ERR_NOMEM;
		goto out;
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		sb_warn("notify (%s): pipe: %s", ev, strerror(errno));
		e = SB_ERR_IO;
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGHUP);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
	                                  POSIX_SPAWN_SETSIGDEF);
	r = posix_spawnp(&pid, argv[0], &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(pipefd[1]);
	pipefd[1] = -1;
	if (r != 0) {
		sb_warn("notify (%s): cannot run '%s': %s (the campaign goes on)", ev, argv[0],
		        strerror(r));
		e = SB_ERR_NOT_FOUND;
		goto out;
	}
	deadline = now_s() + nf->timeout_s;
	for (;;) {
		struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
		double t = now_s();

		r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (!killed && t >= deadline) {
			kill(-pid, SIGTERM);
			killed = true;
			kill_at = t + KILL_AFTER_S;
		} else if (killed && kill_at && t >= kill_at) {
			kill(-pid, SIGKILL);
			kill_at = 0;
		}
		if (pipefd[0] >= 0 && poll(&p, 1, 50) > 0) {
			char buf[4096];
			ssize_t n = read(pipefd[0], buf, sizeof(buf));

			if (n > 0 && olen < OUT_KEEP) {
				size_t k =
				    (size_t)n < OUT_KEEP - olen ? (size_t)n : OUT_KEEP - olen;

				memcpy(out + olen, buf, k);
				olen += k;
			} else if (n == 0) {
				close(pipefd[0]); /* closed: only its end is waited for */
				pipefd[0] = -1;
			}
		} else if (pipefd[0] < 0) {
			usleep(20000);
		}
	}
	/* What it printed before it ended, still in the pipe (its children may hold it open:
	 * never waited for). */
	while (pipefd[0] >= 0 && olen < OUT_KEEP) {
		struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
		ssize_t n;

		if (poll(&p, 1, 0) <= 0 || (n = read(pipefd[0], out + olen, OUT_KEEP - olen)) <= 0)
			break;
		olen += (size_t)n;
	}
	if (killed)
		kill(-pid, SIGKILL); /* what it left behind in its group */
	first_line(out, olen);
	if (killed) {
		sb_warn("notify (%s): '%s' did not end within %g s: killed (the campaign goes on)",
		        ev, argv[0], nf->timeout_s);
		e = SB_ERR_TIMEOUT;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		sb_info("notify (%s): '%s' done", ev, argv[0]);
	} else {
		if (WIFEXITED(status))
			sb_warn(
			    "notify (%s): '%s' exited with status %d%s%s (the campaign goes on)",
			    ev, argv[0], WEXITSTATUS(status), out[0] ? ": " : "", out);
		else
			sb_warn("notify (%s): '%s' was killed by signal %d (the campaign goes on)",
			        ev, argv[0], WIFSIGNALED(status) ? WTERMSIG(status) : 0);
		e = SB_ERR_IO;
	}
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	for (unsigned i = 0; i < nvars; i++)
		free(vars[i]);
	free(env);
	return e;
}

void sb_notify_progress(const struct sb_campaign *c, const struct sb_run_progress *p,
                        const char *db, int64_t job, bool clean_env)
{
	struct sb_notify_facts f = {.event = SB_NOTIFY_THERMAL, .db = db, .job = job};
	char msg[256];

	if (!p->last || !p->last_failed || !(c->notify.on & SB_NOTIFY_THERMAL))
		return;
	snprintf(msg, sizeof(msg), "point %u (%s) ended in a thermal failure", p->last->index,
	         p->last->key);
	f.message = msg;
	f.campaign_id = p->campaign_id;
	f.done = p->done;
	f.total = p->total;
	f.point_index = (int)p->last->index;
	f.point_key = p->last->key;
	f.temp_c = p->last_temp_c;
	sb_notify_run(c, &f, clean_env);
}

void sb_notify_end(const struct sb_campaign *c, int result, bool cancelled,
                   const struct sb_run_summary *sum, const char *db, int64_t job,
                   const char *message, bool clean_env)
{
	struct sb_notify_facts f = {.db = db, .job = job, .message = message, .temp_c = NAN};

	if (result == 0)
		f.event = SB_NOTIFY_DONE;
	else if (result == SB_ERR_INTERRUPTED && cancelled)
		f.event = SB_NOTIFY_CANCELLED;
	else if (result == SB_ERR_INTERRUPTED)
		return; /* paused, or stopped to be resumed: not its end */
	else
		f.event = SB_NOTIFY_FAILED;
	if (sum) {
		f.campaign_id = sum->campaign_id;
		f.done = sum->run + sum->skipped;
		f.total = sum->total;
	}
	sb_notify_run(c, &f, clean_env);
}
