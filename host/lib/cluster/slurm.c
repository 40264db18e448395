/* SPDX-License-Identifier: MIT */
/*
 * Work as Slurm job arrays: the scripts, sbatch, the state file, squeue, scancel, and the board
 * a task was given (stackbench/slurm.h, docs/cluster.md). The command-line programs, not
 * libslurm: its C interface changes with every release, the commands do not.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/slurm.h"
#include "stackbench/util.h"
#include "stackbench/version.h"

extern char **environ;

#define STATE_FILE "slurm.json"
#define OUT_MAX (16u << 20) /* the most of a command's output read */

/* The next line of text at *cur (cut off at its newline), NULL at the end. */
static char *next_line(char **cur)
{
	char *line = *cur, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*cur = nl + 1;
	} else {
		*cur = line + strlen(line);
	}
	return line;
}

/* --- running the Slurm commands ----------------------------------------------------------- */

/*
 * Run argv (no shell), its standard output into *out (malloc'ed, NUL-terminated; out may be
 * NULL) and the end of its standard error into err. Returns its exit status (>= 0; 128 + the
 * signal that killed it), SB_ERR_NOT_FOUND (not installed) or SB_ERR_IO.
 */
static int run_cmd(char *const argv[], char **out, char *err, size_t errsize)
{
	posix_spawn_file_actions_t fa;
	int po[2] = {-1, -1}, pe[2] = {-1, -1}, status, rc;
	char *buf = NULL;
	size_t len = 0, elen = 0;
	pid_t pid;

	if (out)
		*out = NULL;
	err[0] = '\0';
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
		rc = sb_error_set(SB_ERR_IO, "cannot run '%s': %s", argv[0], strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	if (rc == ENOENT) {
		rc = sb_error_set(SB_ERR_NOT_FOUND,
		                  "'%s' is not installed: Slurm's client commands are needed "
		                  "(Debian: apt-get install slurm-client)",
		                  argv[0]);
		goto out;
	}
	if (rc) {
		rc = sb_error_set(SB_ERR_IO, "cannot run '%s': %s", argv[0], strerror(rc));
		goto out;
	}
	/* both pipes until both end: a full one would stop the child */
	for (int open_fds = 2; open_fds;) {
		struct pollfd p[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
		char chunk[4096];

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(p[i].fd, chunk, sizeof(chunk));
			if (n <= 0) {
				close(p[i].fd);
				*(i ? &pe[0] : &po[0]) = -1;
				open_fds--;
				continue;
			}
			if (i == 0 && len + (size_t)n < OUT_MAX) {
				char *b = realloc(buf, len + (size_t)n + 1);

				if (b) {
					memcpy(b + len, chunk, (size_t)n);
					len += (size_t)n;
					b[len] = '\0';
					buf = b;
				}
			} else if (i == 1 && errsize > 1) {
				/* the end of stderr: its last message is what explains */
				for (ssize_t k = 0; k < n; k++) {
					if (elen + 1 >= errsize) {
						memmove(err, err + errsize / 2, elen - errsize / 2);
						elen -= errsize / 2;
					}
					err[elen++] = chunk[k];
				}
				err[elen] = '\0';
			}
		}
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			rc = sb_error_set(SB_ERR_IO, "waiting for '%s': %s", argv[0],
			                  strerror(errno));
			goto out;
		}
	/* one line of stderr for messages */
	for (char *c = err; *c; c++)
		if (*c == '\n' && c[1])
			*c = ' ';
	if (elen && err[elen - 1] == '\n')
		err[elen - 1] = '\0';
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (out) {
		*out = buf ? buf : strdup("");
		buf = NULL;
	}
out:
	free(buf);
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	return rc;
}

/* --- the scripts ---------------------------------------------------------------------------- */

/* s in single quotes for a POSIX shell, always ('\'' for a quote inside). */
static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

static void put_command(FILE *f, char *const *argv)
{
	fputs("exec", f);
	for (char *const *a = argv; *a; a++) {
		fputc(' ', f);
		put_quoted(f, *a);
	}
}

/* A comment line: no line break of a name can end the comment early. */
static void put_comment_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

/* The body of the job array's script: a case on $SLURM_ARRAY_TASK_ID. */
static void array_body(FILE *f, const struct sb_slurm_job *j)
{
	fprintf(f,
	        ": %u tasks of a Slurm job array, written by stackbench %s.\n"
	        "# Task $SLURM_ARRAY_TASK_ID runs its command; every argument is quoted.\n"
	        "# Submitted with: sbatch --parsable --array=LIST ... THIS_FILE (docs/cluster.md)\n"
	        "set -eu\n"
	        "case \"${SLURM_ARRAY_TASK_ID:-}\" in\n",
	        j->ntasks, sb_version());
	for (unsigned i = 0; i < j->ntasks; i++) {
		fprintf(f, "%u)\n\t", i);
		put_command(f, j->task_argv[i]);
		fprintf(f, "\n\t;;\n");
	}
	fprintf(f,
	        "*)\n"
	        "\techo \"stackbench: this script runs as a task of a Slurm job array "
	        "(SLURM_ARRAY_TASK_ID 0..%u)\" >&2\n"
	        "\texit 2\n"
	        "\t;;\n"
	        "esac\n",
	        j->ntasks ? j->ntasks - 1 : 0);
}

/* The body of the merge job's script: its one command. */
static void merge_body(FILE *f, const struct sb_slurm_job *j)
{
	fprintf(f,
	        ": the merge after the job array, written by stackbench %s.\n"
	        "# Submitted with: sbatch --parsable --dependency=afterok:ARRAY ... THIS_FILE\n"
	        "set -eu\n",
	        sb_version());
	if (j->merge_argv)
		put_command(f, j->merge_argv);
	else
		fputs("true", f);
	fputc('\n', f);
}

/* A script as malloc'ed text: "#!/bin/sh", "# NAME" and the body. */
static int script(const struct sb_slurm_job *j, void (*body)(FILE *, const struct sb_slurm_job *),
                  char **text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	fprintf(f, "#!/bin/sh\n# ");
	put_comment_text(f, j->name);
	body(f, j);
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	*text = buf;
	return 0;
}

int sb_slurm_array_script(const struct sb_slurm_job *j, char **text)
{
	return script(j, array_body, text);
}

int sb_slurm_merge_script(const struct sb_slurm_job *j, char **text)
{
	return script(j, merge_body, text);
}

/* --- sbatch --------------------------------------------------------------------------------- */

/* An option's name: "--gres=fpga:1" -> "--gres", "-p" -> "-p". */
static size_t option_name_len(const char *opt)
{
	if (opt[0] == '-' && opt[1] != '-')
		return opt[1] ? 2 : 1;
	return strcspn(opt, "=");
}

static bool option_is(const char *opt, const char *name)
{
	size_t n = option_name_len(opt);

	return strlen(name) == n && !strncmp(opt, name, n);
}

int sb_slurm_check_options(char *const *opts, unsigned n)
{
	static const char *const ours[] = {"--array",    "-a",      "--dependency", "-d",
	                                   "--parsable", "--chdir", "-D",           "--wrap"};

	for (unsigned i = 0; i < n; i++) {
		if (opts[i][0] != '-')
			return sb_error_set(
			    SB_ERR_INVAL,
			    "sbatch option '%s': expected an option (give values as "
			    "--name=value)",
			    opts[i]);
		for (size_t k = 0; k < SB_ARRAY_SIZE(ours); k++)
			if (option_is(opts[i], ours[k]))
				return sb_error_set(SB_ERR_INVAL,
				                    "sbatch option '%s': stackbench sets %s itself",
				                    opts[i], ours[k]);
	}
	return 0;
}

/* Options that pick boards: the array's only (the merge needs no board). */
static bool picks_boards(const char *opt)
{
	static const char *const names[] = {
	    "--gres",          "--constraint", "-C",
	    "--gpus",          "-G",           "--gpus-per-node",
	    "--gpus-per-task", "--exclusive",  "--cluster-constraint"};

	for (size_t k = 0; k < SB_ARRAY_SIZE(names); k++)
		if (option_is(opt, names[k]))
			return true;
	return false;
}

struct argv_buf {
	char **v;
	unsigned n, cap;
	bool failed;
};

static void argv_add(struct argv_buf *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void argv_add(struct argv_buf *a, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (a->failed)
		return;
	if (a->n + 2 > a->cap) {
		unsigned cap = a->cap ? 2 * a->cap : 16;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			a->failed = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		a->failed = true;
		return;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static int argv_done(struct argv_buf *a, char ***argv)
{
	if (a->failed || !a->v) {
		sb_slurm_argv_free(a->v);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	*argv = a->v;
	return 0;
}

void sb_slurm_argv_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

/* A folder for a Slurm file name pattern: '%' doubled (sbatch(1), "filename pattern"). */
static char *pattern_dir(const char *dir)
{
	size_t n = strlen(dir), k = 0;
	char *s = malloc(2 * n + 1);

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (dir[i] == '%')
			s[k++] = '%';
		s[k++] = dir[i];
	}
	s[k] = '\0';
	return s;
}

/* The options both jobs get: name, folder, output file, the user's. */
static int common_args(const struct sb_slurm_job *j, struct argv_buf *a, bool merge)
{
	char *pd;

	if (strchr(j->dir, '\\'))
		return sb_error_set(SB_ERR_INVAL,
		                    "'%s': Slurm takes a '\\' in an output file name as 'no "
		                    "patterns'; use a folder without one",
		                    j->dir);
	if (!(pd = pattern_dir(j->dir)))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	argv_add(a, "sbatch");
	argv_add(a, "--parsable");
	argv_add(a, "--job-name=%s%s", j->name, merge ? "-merge" : "");
	if (j->chdir)
		argv_add(a, "--chdir=%s", j->chdir);
	argv_add(a, merge ? "--output=%s/merge-%%j.out" : "--output=%s/task-%%a-job-%%A.out", pd);
	free(pd);
	for (unsigned i = 0; i < j->nopts; i++)
		if (!merge || !picks_boards(j->opts[i]))
			argv_add(a, "%s", j->opts[i]);
	return 0;
}

int sb_slurm_array_argv(const struct sb_slurm_job *j, const bool *tasks, const char *script,
                        char ***argv)
{
	struct argv_buf a = {0};
	char *list = NULL;
	size_t len = 0;
	FILE *f;
	int e;

	if ((e = common_args(j, &a, false)) < 0) {
		sb_slurm_argv_free(a.v);
		return e;
	}
	/* the tasks as ranges: 0-3,5,7-9 */
	if (!(f = open_memstream(&list, &len))) {
		sb_slurm_argv_free(a.v);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	for (unsigned i = 0, first = 1; i < j->ntasks; i++) {
		unsigned k = i;

		if (!tasks[i])
			continue;
		while (k + 1 < j->ntasks && tasks[k + 1])
			k++;
		fprintf(f, "%s%u", first ? "" : ",", i);
		if (k > i)
			fprintf(f, "-%u", k);
		first = 0;
		i = k;
	}
	fclose(f);
	argv_add(&a, "--array=%s", list ? list : "");
	free(list);
	argv_add(&a, "%s", script);
	return argv_done(&a, argv);
}

int sb_slurm_merge_argv(const struct sb_slurm_job *j, const char *after, const char *script,
                        char ***argv)
{
	struct argv_buf a = {0};
	int e;

	if ((e = common_args(j, &a, true)) < 0) {
		sb_slurm_argv_free(a.v);
		return e;
	}
	if (after)
		argv_add(&a, "--dependency=afterok:%s", after);
	argv_add(&a, "%s", script);
	return argv_done(&a, argv);
}

/* Run sbatch; its job id ("JOBID" or "JOBID;CLUSTER": the id) into id. */
static int sbatch(char **argv, char *id, size_t size)
{
	char err[512], *out = NULL;
	int rc = run_cmd(argv, &out, err, sizeof(err));
	size_t n;

	if (rc < 0)
		return rc;
	n = out ? strspn(out, "0123456789") : 0;
	if (rc != 0 || !n || n >= size) {
		rc = sb_error_set(SB_ERR_IO, "sbatch failed (exit %d): %s", rc,
		                  err[0]          ? err
		                  : out && out[0] ? out
		                                  : "no message");
		free(out);
		return rc;
	}
	memcpy(id, out, n);
	id[n] = '\0';
	free(out);
	return 0;
}

/* --- the state file ------------------------------------------------------------------------- */

static int state_path(const char *dir, char *path, size_t size)
{
	if (snprintf(path, size, "%s/%s", dir, STATE_FILE) >= (int)size)
		return sb_error_set(SB_ERR_INVAL, "'%s': path too long", dir);
	return 0;
}

/* The state file's content (a new one when missing). */
static int state_load(const char *dir, cJSON **root)
{
	char path[4096], *text = NULL;
	size_t len;
	cJSON *subs;
	int e;

	*root = NULL;
	if ((e = state_path(dir, path, sizeof(path))) < 0)
		return e;
	e = sb_read_file_max(path, OUT_MAX, &text, &len);
	if (e == SB_ERR_NOT_FOUND) {
		sb_error_clear();
		*root = cJSON_CreateObject();
		if (!*root || !cJSON_AddStringToObject(*root, "schema", "stackbench-slurm") ||
		    !cJSON_AddStringToObject(*root, "schema_version", "1.0") ||
		    !cJSON_AddArrayToObject(*root, "submissions")) {
			cJSON_Delete(*root);
			*root = NULL;
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		}
		return 0;
	}
	if (e < 0)
		return e;
	*root = cJSON_Parse(text);
	free(text);
	subs = cJSON_GetObjectItemCaseSensitive(*root, "submissions");
	if (!cJSON_IsObject(*root) || !cJSON_IsArray(subs)) {
		cJSON_Delete(*root);
		*root = NULL;
		return sb_error_set(SB_ERR_PARSE,
		                    "'%s' is not a stackbench Slurm state file (remove it to start "
		                    "over)",
		                    path);
	}
	return 0;
}

static int state_add(const struct sb_slurm_job *j, const bool *tasks, const char *array_job,
                     const char *merge_job)
{
	cJSON *root, *sub, *list;
	char path[4096], when[32], *text;
	time_t now = time(NULL);
	struct tm tm;
	int e;

	if ((e = state_load(j->dir, &root)) < 0 || (e = state_path(j->dir, path, sizeof(path))) < 0)
		goto out;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	sub = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(root, "submissions"), sub);
	cJSON_AddStringToObject(sub, "submitted_at", when);
	cJSON_AddNumberToObject(sub, "ntasks", j->ntasks);
	if (array_job[0]) {
		cJSON_AddStringToObject(sub, "array_job", array_job);
		list = cJSON_AddArrayToObject(sub, "tasks");
		for (unsigned i = 0; i < j->ntasks; i++)
			if (tasks[i])
				cJSON_AddItemToArray(list, cJSON_CreateNumber(i));
	}
	if (merge_job[0])
		cJSON_AddStringToObject(sub, "merge_job", merge_job);
	if (!(text = cJSON_Print(root))) {
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	e = sb_write_file_atomic(path, text, strlen(text));
	cJSON_free(text);
out:
	cJSON_Delete(root);
	return e;
}

static int write_script(const char *dir, const char *name, const char *text, char *path,
                        size_t size)
{
	if (snprintf(path, size, "%s/%s", dir, name) >= (int)size)
		return sb_error_set(SB_ERR_INVAL, "'%s': path too long", dir);
	return sb_write_file_atomic(path, text, strlen(text));
}

int sb_slurm_submit(const struct sb_slurm_job *j, const bool *tasks, bool merge,
                    struct sb_slurm_submitted *out)
{
	char array_path[4096], merge_path[4096], *text = NULL, **argv = NULL;
	bool any = false;
	int e;

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < j->ntasks; i++)
		any |= tasks[i];
	if (any) {
		if ((e = sb_slurm_array_script(j, &text)) < 0 ||
		    (e = write_script(j->dir, "array.sh", text, array_path, sizeof(array_path))) <
		        0 ||
		    (e = sb_slurm_array_argv(j, tasks, array_path, &argv)) < 0 ||
		    (e = sbatch(argv, out->array_job, sizeof(out->array_job))) < 0)
			goto out;
		free(text);
		sb_slurm_argv_free(argv);
		text = NULL;
		argv = NULL;
		sb_info("submitted job array %s", out->array_job);
	}
	if (merge) {
		if ((e = sb_slurm_merge_script(j, &text)) < 0 ||
		    (e = write_script(j->dir, "merge.sh", text, merge_path, sizeof(merge_path))) <
		        0 ||
		    (e = sb_slurm_merge_argv(j, any ? out->array_job : NULL, merge_path, &argv)) <
		        0 ||
		    (e = sbatch(argv, out->merge_job, sizeof(out->merge_job))) < 0) {
			/* the array runs anyway: record it, and say so */
			if (any)
				sb_warn("job array %s was submitted; its merge job was not",
				        out->array_job);
			goto record;
		}
		sb_info("submitted merge job %s", out->merge_job);
	}
	e = 0;
record:
	if (out->array_job[0] || out->merge_job[0]) {
		int e2 = state_add(j, tasks, out->array_job, out->merge_job);

		if (e2 < 0 && !e)
			e = e2;
	}
out:
	free(text);
	sb_slurm_argv_free(argv);
	return e;
}

/* --- the queue ------------------------------------------------------------------------------ */

bool sb_slurm_in_queue(const struct sb_slurm_state *s)
{
	return s->state[0] != '\0';
}

/* Fill st from squeue's line "JOB|STATE|REASON" when JOB is st->job. */
static void match_line(struct sb_slurm_state *st, const char *job, const char *state,
                       const char *reason)
{
	if (!st->job[0] || strcmp(st->job, job))
		return;
	sb_strlcpy(st->state, state, sizeof(st->state));
	sb_strlcpy(st->reason, reason, sizeof(st->reason));
}

int sb_slurm_status(const char *dir, unsigned ntasks, struct sb_slurm_status *s)
{
	char *argv[] = {"squeue", "--me", "--array", "--noheader", "--format=%i|%T|%r", NULL};
	char err[512], *out = NULL, *line, *cur;
	cJSON *root, *sub;
	int e, rc;

	memset(s, 0, sizeof(*s));
	s->ntasks = ntasks;
	if (!(s->task = calloc(ntasks ? ntasks : 1, sizeof(*s->task))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((e = state_load(dir, &root)) < 0)
		goto fail;
	/* each task's latest submission, the latest merge job */
	cJSON_ArrayForEach(sub, cJSON_GetObjectItemCaseSensitive(root, "submissions"))
	{
		const cJSON *aj = cJSON_GetObjectItemCaseSensitive(sub, "array_job"),
		            *mj = cJSON_GetObjectItemCaseSensitive(sub, "merge_job"), *t;

		s->submissions++;
		if (cJSON_IsString(aj))
			cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(sub, "tasks"))
			{
				if (cJSON_IsNumber(t) && t->valuedouble >= 0 &&
				    t->valuedouble < ntasks)
					snprintf(s->task[(unsigned)t->valuedouble].job,
					         sizeof(s->task[0].job), "%.20s_%u",
					         aj->valuestring, (unsigned)t->valuedouble);
			}
		if (cJSON_IsString(mj))
			sb_strlcpy(s->merge.job, mj->valuestring, sizeof(s->merge.job));
	}
	cJSON_Delete(root);
	if (!s->submissions)
		return 0; /* nothing submitted: no need for the queue */
	rc = run_cmd(argv, &out, err, sizeof(err));
	if (rc < 0) {
		e = rc;
		goto fail;
	}
	if (rc != 0) {
		free(out);
		e = sb_error_set(SB_ERR_IO, "squeue failed (exit %d): %s", rc,
		                 err[0] ? err : "no message");
		goto fail;
	}
	for (cur = out; (line = next_line(&cur));) {
		char *state = strchr(line, '|'), *reason;

		if (!state || !(reason = strchr(state + 1, '|')))
			continue;
		*state++ = '\0';
		*reason++ = '\0';
		for (unsigned i = 0; i < ntasks; i++)
			match_line(&s->task[i], line, state, reason);
		match_line(&s->merge, line, state, reason);
	}
	free(out);
	return 0;
fail:
	sb_slurm_status_free(s);
	return e;
}

void sb_slurm_status_free(struct sb_slurm_status *s)
{
	free(s->task);
	s->task = NULL;
}

int sb_slurm_cancel(const char *job)
{
	char *argv[] = {"scancel", (char *)job, NULL}, err[512];
	int rc = run_cmd(argv, NULL, err, sizeof(err));

	if (rc > 0)
		return sb_error_set(SB_ERR_IO, "scancel %s failed (exit %d): %s", job, rc,
		                    err[0] ? err : "no message");
	return rc;
}

/* --- the board of a task -------------------------------------------------------------------- */

/* Line `index` (0-based, comments and blank lines skipped) of the node's board file. */
static int board_line(unsigned index, char *uri, size_t size)
{
	const char *env = getenv("STACKBENCH_BOARDS");
	const char *path = env && *env ? env : "/etc/stackbench/boards";
	char *text, *line, *cur;
	unsigned n = 0;
	size_t len;
	int e;

	if ((e = sb_read_file_max(path, 1u << 20, &text, &len)) < 0)
		return sb_error_wrap(e, "the node's board file ($STACKBENCH_BOARDS, else "
		                        "/etc/stackbench/boards)");
	e = sb_error_set(SB_ERR_NOT_FOUND, "'%s' lists no board %u (it lists %u)", path, index, 0);
	for (cur = text; (line = next_line(&cur));) {
		char *end;

		line += strspn(line, " \t");
		if ((end = strchr(line, '#')))
			*end = '\0';
		end = line + strlen(line);
		while (end > line && isspace((unsigned char)end[-1]))
			*--end = '\0';
		if (!*line)
			continue;
		if (n++ == index) {
			if (sb_strlcpy(uri, line, size) >= size)
				e = sb_error_set(SB_ERR_INVAL, "'%s': board %u: URI too long", path,
				                 index);
			else
				e = 0;
			break;
		}
	}
	if (e == SB_ERR_NOT_FOUND)
		e = sb_error_set(SB_ERR_NOT_FOUND, "'%s' lists no board %u (it lists %u)", path,
		                 index, n);
	free(text);
	return e;
}

/*
 * The first index of GRES `name` allocated to this job on this node, from `scontrol show job
 * -d`: a line "Nodes=NODE CPU_IDs=... GRES=NAME[:TYPE]:COUNT(IDX:I[-J][,K])".
 */
static int gres_index(const char *name, unsigned *index)
{
	const char *job = getenv("SLURM_JOB_ID"), *node = getenv("SLURMD_NODENAME");
	char *argv[] = {"scontrol", "show", "job", "-d", (char *)job, NULL};
	char err[512], *out = NULL, *line, *cur;
	size_t nlen = strlen(name);
	int rc;

	if (!job || !*job)
		return sb_error_set(
		    SB_ERR_NOT_FOUND,
		    "board from the GRES '%s': not in a Slurm job (no SLURM_JOB_ID)", name);
	if ((rc = run_cmd(argv, &out, err, sizeof(err))) != 0) {
		free(out);
		return rc < 0 ? rc
		              : sb_error_set(SB_ERR_IO, "scontrol show job -d %s failed: %s", job,
		                             err[0] ? err : "no message");
	}
	rc = sb_error_set(SB_ERR_NOT_FOUND,
	                  "job %s has no GRES '%s' with an index on node %s (scontrol show job "
	                  "-d): ask for it with --gres=%s:1, and give it File= in gres.conf",
	                  job, name, node ? node : "?", name);
	for (cur = out; (line = next_line(&cur));) {
		const char *g = strstr(line, "GRES="), *p;

		if (!strstr(line, "Nodes=") || !g)
			continue;
		if (node && *node) {
			const char *nodes = strstr(line, "Nodes=") + 6;
			size_t k = strlen(node);

			/* a task's node line names its node (our tasks run on one node) */
			if (strncmp(nodes, node, k) || (nodes[k] != ' ' && nodes[k] != '\0'))
				continue;
		}
		for (p = g + 5; (p = strstr(p, name)); p += nlen) {
			const char *idx;
			char *end;
			unsigned long v;

			if ((p[-1] != '=' && p[-1] != ',') || (p[nlen] != ':' && p[nlen] != '('))
				continue;
			if (!(idx = strstr(p, "(IDX:")))
				continue;
			v = strtoul(idx + 5, &end, 10);
			if (end == idx + 5)
				continue;
			*index = (unsigned)v;
			rc = 0;
			goto out;
		}
	}
out:
	free(out);
	return rc;
}

int sb_slurm_board(const char *how, char *uri, size_t size)
{
	unsigned index = 0;
	int e;

	if (!strcmp(how, "node"))
		return board_line(0, uri, size);
	if (strncmp(how, "gres:", 5) || !how[5])
		return sb_error_set(SB_ERR_INVAL, "board '%s': expected node or gres:NAME", how);
	if ((e = gres_index(how + 5, &index)) < 0)
		return e;
	return board_line(index, uri, size);
}
