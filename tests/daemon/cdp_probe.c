/* SPDX-License-Identifier: MIT */
/*
 * sb_cdp_probe: drive a real headless Chromium through the DevTools protocol on a pipe
 * (--remote-debugging-pipe: JSON messages separated by NUL on fds 3 and 4), so a test can load
 * a page, wait in real time until a JavaScript condition holds, and read a value from it.
 *
 *   sb_cdp_probe [--chromium PATH] [--timeout-s N] [--hold-s N] [--first URL0] URL UNTIL RESULT
 *
 * With --first, opens URL0 first and waits until it has loaded (its cookies set), then goes
 * to URL in the same tab (a page of another origin, say, in the same browser profile). Opens URL, evaluates UNTIL every 200 ms until it is true (or the timeout: exit 1), waits
 * --hold-s more seconds (the page keeps running), then prints the value of RESULT (a JSON
 * text; RESULT should evaluate to a string, e.g. JSON.stringify(...)). Exit 77 when Chromium
 * is not installed (the test is skipped), 1 on failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#define MSG_MAX (64u << 20)

static int to_fd = -1, from_fd = -1;
static char *buf;
static size_t len, cap;
static int next_id = 1;
static double deadline;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "sb_cdp_probe: %s\n", what);
	exit(1);
}

static void send_msg(cJSON *m)
{
	char *text = cJSON_PrintUnformatted(m);
	size_t n, off = 0;

	if (!text)
		die("out of memory");
	n = strlen(text) + 1; /* with its NUL separator */
	while (off < n) {
		ssize_t w = write(to_fd, text + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			die("cannot write to Chromium");
		off += (size_t)w;
	}
	cJSON_free(text);
}

/* The next message from Chromium (caller frees), or die at the deadline. */
static cJSON *recv_msg(void)
{
	for (;;) {
		char *nul = len ? memchr(buf, '\0', len) : NULL;
		struct pollfd p = {.fd = from_fd, .events = POLLIN};
		double left = deadline - now();
		ssize_t n;

		if (nul) {
			cJSON *m = cJSON_Parse(buf);
			size_t used = (size_t)(nul - buf) + 1;

			memmove(buf, nul + 1, len - used);
			len -= used;
			if (m)
				return m;
			continue;
		}
		if (left <= 0)
			die("timed out waiting for Chromium");
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			if (cap > MSG_MAX || !(buf = realloc(buf, cap)))
				die("message from Chromium too large");
		}
		if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		n = read(from_fd, buf + len, cap - len);
		if (n <= 0)
			die("Chromium closed the pipe");
		len += (size_t)n;
	}
}

/*
 * A command and its result (caller frees the whole message). An error answer ends the probe,
 * unless SOFT: then it is returned (the polls of a condition: an evaluation that meets the
 * page navigating is answered "Inspected target navigated or closed", and is asked again).
 */
static cJSON *call_soft(const char *method, cJSON *params, const char *session, bool soft)
{
	cJSON *m = cJSON_CreateObject();
	int id = next_id++;

	cJSON_AddNumberToObject(m, "id", id);
	cJSON_AddStringToObject(m, "method", method);
	cJSON_AddItemToObject(m, "params", params ? params : cJSON_CreateObject());
	if (session)
		cJSON_AddStringToObject(m, "sessionId", session);
	send_msg(m);
	cJSON_Delete(m);
	for (;;) {
		cJSON *r = recv_msg();
		cJSON *rid = cJSON_GetObjectItemCaseSensitive(r, "id");

		if (cJSON_IsNumber(rid) && (int)rid->valuedouble == id) {
			if (!soft && cJSON_GetObjectItemCaseSensitive(r, "error")) {
				char *t = cJSON_PrintUnformatted(r);

				fprintf(stderr, "sb_cdp_probe: %s: %s\n", method, t ? t : "?");
				exit(1);
			}
			return r;
		}
		cJSON_Delete(r); /* an event */
	}
}

static cJSON *call(const char *method, cJSON *params, const char *session)
{
	return call_soft(method, params, session, false);
}

/*
 * Evaluate an expression in the page; returns the result's value (caller frees the message).
 * POLL: a condition polled until true (an error answer is "not yet": NULL).
 */
static cJSON *eval(const char *session, const char *expr, cJSON **msg, bool poll)
{
	cJSON *p = cJSON_CreateObject(), *res;

	cJSON_AddStringToObject(p, "expression", expr);
	cJSON_AddTrueToObject(p, "returnByValue");
	cJSON_AddTrueToObject(p, "awaitPromise");
	*msg = call_soft("Runtime.evaluate", p, session, poll);
	res = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(*msg, "result"),
	                                       "result");
	return cJSON_GetObjectItemCaseSensitive(res, "value");
}

static const char *str_at(cJSON *m, const char *a, const char *b)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, a), b);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int main(int argc, char **argv)
{
	const char *chromium = "/usr/bin/chromium", *first = NULL;
	double timeout_s = 30, hold_s = 0;
	int to[2], from[2], i, status;
	char udd[] = "/tmp/sb-cdp-XXXXXX";
	char *session, *target, until[8192];
	cJSON *m, *p, *v;
	pid_t pid;

	for (i = 1; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--chromium"))
			chromium = argv[i + 1];
		else if (!strcmp(argv[i], "--timeout-s"))
			timeout_s = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--hold-s"))
			hold_s = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--first"))
			first = argv[i + 1];
		else
			die("unknown option");
	}
	if (argc - i != 3)
		die("usage: sb_cdp_probe [--chromium PATH] [--timeout-s N] [--hold-s N] [--first "
		    "URL0] "
		    "URL UNTIL RESULT");
	if (access(chromium, X_OK) < 0) {
		fprintf(stderr, "sb_cdp_probe: no Chromium at '%s' (Debian package chromium)\n",
		        chromium);
		return 77;
	}
	if (!mkdtemp(udd) || pipe(to) < 0 || pipe(from) < 0)
		die("cannot prepare");
	deadline = now() + timeout_s + hold_s + 30;
	pid = fork();
	if (pid == 0) {
		char ud[64];
		int null = open("/dev/null", O_WRONLY);

		/* Chromium reads commands on fd 3 and writes answers on fd 4. */
		dup2(to[0], 3);
		dup2(from[1], 4);
		if (null >= 0 && !getenv("SB_CDP_VERBOSE"))
			dup2(null, STDERR_FILENO);
		for (int fd = 5; fd < 1024; fd++)
			close(fd);
		snprintf(ud, sizeof(ud), "--user-data-dir=%s", udd);
		execl(chromium, chromium, "--headless", "--no-sandbox", "--disable-gpu",
		      "--disable-quic", "--no-first-run", "--disable-background-networking",
		      "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", ud,
		      "--remote-debugging-pipe", "about:blank", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	to_fd = to[1];
	from_fd = from[0];
	signal(SIGPIPE, SIG_IGN);

	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "url", first ? first : argv[i]);
	m = call("Target.createTarget", p, NULL);
	target = strdup(str_at(m, "result", "targetId") ? str_at(m, "result", "targetId") : "");
	cJSON_Delete(m);
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "targetId", target);
	cJSON_AddTrueToObject(p, "flatten");
	m = call("Target.attachToTarget", p, NULL);
	session = strdup(str_at(m, "result", "sessionId") ? str_at(m, "result", "sessionId") : "");
	cJSON_Delete(m);

	if (first) {
		/* URL0 loaded, then URL in the same tab; the condition is about URL's page. */
		cJSON *q = cJSON_CreateString(first);
		char *lit = cJSON_PrintUnformatted(q);

		snprintf(until, sizeof(until),
		         "location.href !== 'about:blank' && document.readyState === 'complete'");
		for (double t_end = now() + timeout_s;; usleep(200000)) {
			v = eval(session, until, &m, true);
			if (cJSON_IsTrue(v)) {
				cJSON_Delete(m);
				break;
			}
			cJSON_Delete(m);
			if (now() > t_end)
				die("the first page did not load");
		}
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "url", argv[i]);
		cJSON_Delete(call("Page.navigate", p, session));
		snprintf(until, sizeof(until), "location.href !== %s && (%s)", lit ? lit : "''",
		         argv[i + 1]);
		cJSON_free(lit);
		cJSON_Delete(q);
	} else {
		/* The new target shows about:blank first: the condition is about the page asked
		 * for. */
		snprintf(until, sizeof(until), "location.href !== 'about:blank' && (%s)",
		         argv[i + 1]);
	}
	for (double t_end = now() + timeout_s;;) {
		v = eval(session, until, &m, true);
		if (cJSON_IsTrue(v)) {
			cJSON_Delete(m);
			break;
		}
		cJSON_Delete(m);
		if (now() > t_end) {
			v = eval(session, argv[i + 2], &m, false);
			fprintf(stderr, "sb_cdp_probe: '%s' not true within %.0f s; result: %s\n",
			        argv[i + 1], timeout_s, cJSON_IsString(v) ? v->valuestring : "?");
			cJSON_Delete(m);
			status = 1;
			goto out;
		}
		usleep(200000);
	}
	if (hold_s > 0)
		usleep((useconds_t)(hold_s * 1e6));
	v = eval(session, argv[i + 2], &m, false);
	if (cJSON_IsString(v))
		printf("%s\n", v->valuestring);
	else {
		char *t = cJSON_PrintUnformatted(v);

		printf("%s\n", t ? t : "null");
		cJSON_free(t);
	}
	cJSON_Delete(m);
	status = 0;
out:
	/* Close the browser (its answer may not come: it exits), at most 5 s, then kill it. */
	m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "id", next_id++);
	cJSON_AddStringToObject(m, "method", "Browser.close");
	send_msg(m);
	cJSON_Delete(m);
	close(to_fd);
	for (int k = 0; k < 50 && waitpid(pid, NULL, WNOHANG) == 0; k++)
		usleep(100000);
	if (waitpid(pid, NULL, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	{
		char cmd[64];

		/* The profile folder: a few files, removed without a shell. */
		snprintf(cmd, sizeof(cmd), "%s", udd);
		if (fork() == 0) {
			execlp("rm", "rm", "-rf", cmd, (char *)NULL);
			_exit(1);
		}
		wait(NULL);
	}
	free(session);
	free(target);
	free(buf);
	return status;
}
