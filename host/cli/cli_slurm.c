/* SPDX-License-Identifier: MIT */
/*
 * Work through Slurm for any command that splits into tasks and a merge (cli.h, struct
 * sb_cli_slurm; docs/cluster.md): what to submit (tasks not done and not in the queue), the
 * submission and its job ids, --dry-run (the scripts and sbatch command lines), --status (each
 * task's progress and the queue). `run --slurm` is built on it; a sharded analysis only says
 * what its tasks run and when a task is done.
 */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "stackbench/error.h"
#include "stackbench/slurm.h"
#include "stackbench/util.h"

int sb_cli_self_path(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0 || (size_t)n >= size - 1)
		return sb_error_set(SB_ERR_IO, "cannot find this program's path (/proc/self/exe)");
	buf[n] = '\0';
	return 0;
}

int sb_cli_slurm_split(int *argc, char **argv, const struct option *own, bool slurm, char ***opts,
                       unsigned *nopts)
{
	int out = 1;
	char **v = calloc((size_t)*argc + 1, sizeof(*v));

	*nopts = 0;
	*opts = v;
	if (!v) {
		fprintf(stderr, "stackbench: out of memory\n");
		return SB_EXIT_FAILURE;
	}
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];
		const struct option *o = NULL;

		if (!strcmp(a, "--")) {
			/* everything after "--" is sbatch's */
			while (++i < *argc)
				v[(*nopts)++] = argv[i];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			argv[out++] = argv[i];
			continue;
		}
		for (const struct option *p = own; p->name; p++) {
			size_t n = strlen(p->name);

			if (a[1] == '-'
			        ? !strncmp(a + 2, p->name, n) && (!a[2 + n] || a[2 + n] == '=')
			        : a[1] == p->val) {
				o = p;
				break;
			}
		}
		if (o || !slurm) {
			/* ours (or, without --slurm, left to getopt to refuse) */
			argv[out++] = argv[i];
			if (o && o->has_arg == required_argument && i + 1 < *argc &&
			    (a[1] == '-' ? !strchr(a, '=') : !a[2]))
				argv[out++] = argv[++i];
			continue;
		}
		v[(*nopts)++] = argv[i];
	}
	*argc = out;
	argv[out] = NULL;
	if (*nopts && !slurm)
		return sb_cli_usage_error(argv[0],
		                          "options after '--' are sbatch's: they need --slurm");
	if (sb_slurm_check_options(v, *nopts) < 0)
		return sb_cli_usage_error(argv[0], "%s", sb_error_detail());
	return -1;
}

bool sb_cli_has_slurm(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--slurm"))
			return true;
	return false;
}

int sb_cli_make_dirs(const char *path)
{
	char buf[PATH_MAX];

	if (sb_strlcpy(buf, path, sizeof(buf)) >= sizeof(buf))
		return sb_error_set(SB_ERR_INVAL, "'%s': path too long", path);
	for (char *p = buf + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char end = *p;

		*p = '\0';
		if (mkdir(buf, 0777) < 0 && errno != EEXIST)
			return sb_error_set(sb_errno_code(errno), "cannot make folder '%s': %s",
			                    buf, strerror(errno));
		if (!end)
			break;
		*p = '/';
	}
	return 0;
}

int sb_cli_slurm_find_tasks(const char *prefix, unsigned max, unsigned *n)
{
	char pattern[PATH_MAX], *esc;
	size_t k = 0;
	glob_t g;
	int rc;

	/* the prefix may hold glob characters: escape them */
	if (!(esc = malloc(2 * strlen(prefix) + 1)))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	for (const char *s = prefix; *s; s++) {
		if (strchr("*?[\\", *s))
			esc[k++] = '\\';
		esc[k++] = *s;
	}
	esc[k] = '\0';
	snprintf(pattern, sizeof(pattern), "%s-of-*", esc);
	free(esc);
	*n = 1;
	rc = glob(pattern, 0, NULL, &g);
	if (rc == GLOB_NOMATCH)
		return 0;
	if (rc)
		return sb_error_set(SB_ERR_IO, "cannot look for '%s'", pattern);
	if (g.gl_pathc > 1) {
		globfree(&g);
		return sb_error_set(SB_ERR_INVAL,
		                    "'%s' was submitted with several task counts: "
		                    "say which with --shards N",
		                    prefix);
	}
	{
		const char *of = strrchr(g.gl_pathv[0], '-');
		uint64_t v;

		if (of && sb_parse_u64(of + 1, "shards", false, &v) == 0 && v && v <= max)
			*n = (unsigned)v;
	}
	globfree(&g);
	return 0;
}

char **sb_cli_argv_make(const char *const *items, unsigned n)
{
	char **v = calloc(n + 1, sizeof(*v));

	for (unsigned i = 0; v && i < n; i++)
		if (!(v[i] = strdup(items[i]))) {
			sb_slurm_argv_free(v);
			return NULL;
		}
	return v;
}

void sb_cli_argvs_free(char ***argvs, unsigned n)
{
	for (unsigned i = 0; argvs && i < n; i++)
		sb_slurm_argv_free(argvs[i]);
	free(argvs);
}

/* Print a command line, each argument quoted where the shell needs it. */
static void print_argv(char **argv)
{
	char q[8192];

	for (char **a = argv; *a; a++)
		printf("%s%s", a == argv ? "" : " ", sb_cli_shell_quote(q, sizeof(q), *a));
	printf("\n");
}

static void print_state(const struct sb_slurm_state *st)
{
	if (!st->job[0])
		printf("-");
	else if (!sb_slurm_in_queue(st))
		printf("job %s, not in the queue", st->job);
	else
		printf("job %s %s%s%s%s", st->job, st->state, st->reason[0] ? " (" : "", st->reason,
		       st->reason[0] ? ")" : "");
}

/* The queue, or (a dry run without Slurm) an empty one, said so. */
static int read_queue(const struct sb_cli_slurm *s, bool dry, struct sb_slurm_status *st)
{
	int e = sb_slurm_status(s->job->dir, s->job->ntasks, st);

	if (e >= 0)
		return 0;
	if (!dry)
		return sb_cli_error(e);
	fprintf(stderr, "stackbench %s: cannot read the queue (%s); as if nothing were queued\n",
	        s->cmd, sb_error_detail());
	memset(st, 0, sizeof(*st));
	st->ntasks = s->job->ntasks;
	if (!(st->task = calloc(s->job->ntasks ? s->job->ntasks : 1, sizeof(*st->task))))
		return sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
	return 0;
}

static int dry_print(const struct sb_cli_slurm *s, const bool *todo)
{
	char *array = NULL, *merge = NULL, **av = NULL, **mv = NULL, path[PATH_MAX],
	     mpath[PATH_MAX];
	int e;

	snprintf(path, sizeof(path), "%s/array.sh", s->job->dir);
	snprintf(mpath, sizeof(mpath), "%s/merge.sh", s->job->dir);
	if ((e = sb_slurm_array_script(s->job, &array)) < 0 ||
	    (e = sb_slurm_merge_script(s->job, &merge)) < 0 ||
	    (e = sb_slurm_array_argv(s->job, todo, path, &av)) < 0 ||
	    (e = sb_slurm_merge_argv(s->job, "ARRAY_JOB_ID", mpath, &mv)) < 0) {
		e = sb_cli_error(e);
		goto out;
	}
	printf("\nwould submit:\n  ");
	print_argv(av);
	printf("  ");
	print_argv(mv);
	printf("\n--- %s\n%s--- %s\n%s", path, array, mpath, merge);
	e = SB_EXIT_OK;
out:
	free(array);
	free(merge);
	sb_slurm_argv_free(av);
	sb_slurm_argv_free(mv);
	return e;
}

int sb_cli_slurm_submit(const struct sb_cli_slurm *s, bool dry)
{
	const struct sb_slurm_job *j = s->job;
	struct sb_slurm_status st;
	struct sb_slurm_submitted sub;
	bool *todo = calloc(j->ntasks ? j->ntasks : 1, sizeof(*todo)), busy = false;
	unsigned ntodo = 0;
	char text[256];
	int rc, e;

	if (!todo)
		return sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
	if ((rc = read_queue(s, dry, &st)) != 0) {
		free(todo);
		return rc;
	}
	/* what is still in the queue is not submitted again */
	for (unsigned i = 0; i < j->ntasks; i++) {
		if (!sb_slurm_in_queue(&st.task[i]))
			continue;
		if (!busy)
			fprintf(stderr, "stackbench %s: still in the queue:", s->cmd);
		fprintf(stderr, " %s %u (job %s %s)", s->what, i, st.task[i].job, st.task[i].state);
		busy = true;
	}
	if (busy) {
		fprintf(stderr,
		        "\nstackbench %s: wait for them, or cancel them (scancel JOB), then "
		        "run this again\n",
		        s->cmd);
		rc = SB_EXIT_FAILURE;
		goto out;
	}
	for (unsigned i = 0; i < j->ntasks; i++) {
		text[0] = '\0';
		if ((e = s->task_done(s->ctx, i, text, sizeof(text))) < 0) {
			rc = sb_cli_error(e);
			goto out;
		}
		todo[i] = !e;
		ntodo += !e;
		if (dry)
			printf("%s %u/%u: %s%s\n", s->what, i, j->ntasks, text,
			       e ? "" : " -> submit");
	}
	if (sb_slurm_in_queue(&st.merge)) {
		if (!ntodo) {
			/* every task done: the merge runs (or is about to) */
			printf("every %s is done; merge job %s is in the queue (%s)\n", s->what,
			       st.merge.job, st.merge.state);
			rc = SB_EXIT_OK;
			goto out;
		}
		/* no task in the queue and one not done: the merge's afterok can never be met */
		if (dry) {
			printf("would cancel merge job %s (a %s it waits for did not finish)\n",
			       st.merge.job, s->what);
		} else if ((e = sb_slurm_cancel(st.merge.job)) < 0) {
			rc = sb_cli_error(e);
			goto out;
		} else {
			printf("cancelled merge job %s: a %s it waited for did not finish\n",
			       st.merge.job, s->what);
		}
	}
	if (!ntodo) {
		text[0] = '\0';
		if ((e = s->merged(s->ctx, text, sizeof(text))) < 0) {
			rc = sb_cli_error(e);
			goto out;
		}
		if (e) {
			printf("complete: %s; nothing to submit\n", text);
			rc = SB_EXIT_OK;
			goto out;
		}
	}
	if (dry) {
		rc = dry_print(s, todo);
		goto out;
	}
	if ((e = sb_slurm_submit(j, todo, true, &sub)) < 0) {
		rc = sb_cli_error(e);
		if (sub.array_job[0])
			printf("submitted job array %s\n", sub.array_job);
		goto out;
	}
	if (sub.array_job[0]) {
		printf("submitted job array %s: %u of %u %ss (", sub.array_job, ntodo, j->ntasks,
		       s->what);
		for (unsigned i = 0, first = 1; i < j->ntasks; i++)
			if (todo[i]) {
				printf("%s%u", first ? "" : " ", i);
				first = 0;
			}
		printf(")\n");
	}
	printf("submitted merge job %s%s%s\n", sub.merge_job, sub.array_job[0] ? " after " : "",
	       sub.array_job);
	printf("status: %s\n", s->status_cmd);
	rc = SB_EXIT_OK;
out:
	sb_slurm_status_free(&st);
	free(todo);
	return rc;
}

int sb_cli_slurm_status(const struct sb_cli_slurm *s)
{
	const struct sb_slurm_job *j = s->job;
	struct sb_slurm_status st;
	unsigned ndone = 0;
	char text[256];
	int rc, e;

	if ((rc = read_queue(s, false, &st)) != 0)
		return rc;
	for (unsigned i = 0; i < j->ntasks; i++) {
		text[0] = '\0';
		if ((e = s->task_done(s->ctx, i, text, sizeof(text))) < 0) {
			rc = sb_cli_error(e);
			goto out;
		}
		ndone += e > 0;
		printf("%s %u/%u: %s; ", s->what, i, j->ntasks, text);
		print_state(&st.task[i]);
		printf("\n");
	}
	text[0] = '\0';
	if ((e = s->merged(s->ctx, text, sizeof(text))) < 0) {
		rc = sb_cli_error(e);
		goto out;
	}
	printf("merge: %s; ", e ? text : "not done");
	print_state(&st.merge);
	printf("\n%u of %u %ss done%s\n", ndone, j->ntasks, s->what, e ? ", merged" : "");
	rc = SB_EXIT_OK;
out:
	sb_slurm_status_free(&st);
	return rc;
}
