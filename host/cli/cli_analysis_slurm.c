/* SPDX-License-Identifier: MIT */
/*
 * stackbench lifetimes|locality INPUT... --json OUT --slurm: the analysis's shards as a Slurm
 * job array, task I running `stackbench CMD [TRACE OPTIONS] INPUT... --shard I/N --partial
 * PART_I`, and a merge job after them (`stackbench CMD [REPORT OPTIONS] --json OUT --merge
 * PART_0 ... PART_N-1`), submitted, shown and resumed by cli_slurm.c as `run --slurm` is.
 * The work's folder, beside the report, is named by the trace's contents and the shards'
 * options (another trace or other options: another folder):
 *
 *   OUT.shards/CMD-HASH-of-N/{shard-I-of-N.part, array.sh, merge.sh, task-I-job-J.out,
 *                            slurm.json}
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_analysis.h"
#include "stackbench/error.h"
#include "stackbench/partial.h"
#include "stackbench/slurm.h"

static void argv_push(struct sb_cli_argv *a, const char *s)
{
	if (a->nomem)
		return;
	if (a->n + 1 >= a->cap) {
		unsigned cap = a->cap ? 2 * a->cap : 16;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			a->nomem = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	if (!(a->v[a->n] = strdup(s))) {
		a->nomem = true;
		return;
	}
	a->v[++a->n] = NULL;
}

void sb_cli_slurm_keep(struct sb_cli_slurm_args *k, const struct option *opts, int c,
                       const char *arg, bool to_shard)
{
	struct sb_cli_argv *a = to_shard ? &k->shard : &k->merge;
	char name[64];

	for (const struct option *o = opts; o->name; o++) {
		if (o->val != c)
			continue;
		snprintf(name, sizeof(name), "--%s", o->name);
		argv_push(a, name);
		if (o->has_arg != no_argument && arg)
			argv_push(a, arg);
		return;
	}
}

void sb_cli_slurm_keep_common(struct sb_cli_slurm_args *k, const struct option *opts, int c,
                              const char *arg)
{
	if (c == SB_CLI_OPT_THREADS)
		sb_cli_slurm_keep(k, opts, c, arg, true);
	else if (c >= SB_CLI_OPT_MIN_DENSITY && c < SB_CLI_OPT_THREADS)
		sb_cli_slurm_keep(k, opts, c, arg, false);
}

void sb_cli_slurm_args_release(struct sb_cli_slurm_args *k)
{
	sb_slurm_argv_free(k->shard.v);
	sb_slurm_argv_free(k->merge.v);
	memset(k, 0, sizeof(*k));
}

struct analysis_slurm {
	const struct sb_cli_analysis_slurm *a;
	unsigned n;
	char fingerprint[33];
	char **part; /* each shard's partial */
};

/* FNV-1a, 64 bits, over a string and its NUL. */
static uint64_t hash_str(uint64_t h, const char *s)
{
	do {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	} while (*s++);
	return h;
}

static int task_done(void *ctx, unsigned i, char *text, size_t size)
{
	struct analysis_slurm *r = ctx;
	struct sb_partial p;
	struct stat st;
	bool ok;

	if (stat(r->part[i], &st) < 0) {
		snprintf(text, size, "no partial yet");
		return 0;
	}
	if (sb_partial_read(r->part[i], &p) < 0) {
		/* (a task killed while writing leaves none: writes are atomic) */
		snprintf(text, size, "a partial that cannot be read (%s): run again",
		         sb_error_detail());
		sb_error_clear();
		return 0;
	}
	ok = p.meta.kind == r->a->kind && p.meta.shard == i && p.meta.nshards == r->n &&
	     !strcmp(p.meta.fingerprint, r->fingerprint);
	snprintf(text, size, ok ? "done (%s)" : "a partial of another trace or shard: run again",
	         r->part[i]);
	sb_partial_release(&p);
	return ok;
}

static bool newer(const struct stat *a, const struct stat *b)
{
	return a->st_mtim.tv_sec != b->st_mtim.tv_sec ? a->st_mtim.tv_sec > b->st_mtim.tv_sec
	                                              : a->st_mtim.tv_nsec > b->st_mtim.tv_nsec;
}

/* The report is there and no partial is newer than it. */
static int merged(void *ctx, char *text, size_t size)
{
	struct analysis_slurm *r = ctx;
	struct stat rep, st;

	if (stat(r->a->json, &rep) < 0)
		return 0;
	for (unsigned i = 0; i < r->n; i++)
		if (stat(r->part[i], &st) < 0 || newer(&st, &rep))
			return 0;
	snprintf(text, size, "the report '%s'", r->a->json);
	return 1;
}

/* Task i's command: self CMD [SHARD OPTIONS] INPUT... --shard i/N --partial PART. */
static char **task_argv(const struct analysis_slurm *r, const char *self, unsigned i)
{
	const struct sb_cli_analysis_slurm *a = r->a;
	struct sb_cli_argv v = {0};
	char shard[32];

	snprintf(shard, sizeof(shard), "%u/%u", i, r->n);
	argv_push(&v, self);
	argv_push(&v, a->cmd);
	for (unsigned k = 0; k < a->args->shard.n; k++)
		argv_push(&v, a->args->shard.v[k]);
	for (int k = 0; k < a->ninputs; k++)
		argv_push(&v, a->inputs[k]);
	argv_push(&v, "--shard");
	argv_push(&v, shard);
	argv_push(&v, "--partial");
	argv_push(&v, r->part[i]);
	if (v.nomem) {
		sb_slurm_argv_free(v.v);
		return NULL;
	}
	return v.v;
}

/* The merge's command: self CMD [REPORT OPTIONS] --json OUT --merge PART... */
static char **merge_argv(const struct analysis_slurm *r, const char *self)
{
	const struct sb_cli_analysis_slurm *a = r->a;
	struct sb_cli_argv v = {0};

	argv_push(&v, self);
	argv_push(&v, a->cmd);
	for (unsigned k = 0; k < a->args->merge.n; k++)
		argv_push(&v, a->args->merge.v[k]);
	argv_push(&v, "--json");
	argv_push(&v, a->json);
	argv_push(&v, "--merge");
	for (unsigned i = 0; i < r->n; i++)
		argv_push(&v, r->part[i]);
	if (v.nomem) {
		sb_slurm_argv_free(v.v);
		return NULL;
	}
	return v.v;
}

/* How to ask for the status: the same command with --status. */
static void status_command(const struct analysis_slurm *r, char *buf, size_t size)
{
	const struct sb_cli_analysis_slurm *a = r->a;
	char q[PATH_MAX];
	size_t len;

	len = (size_t)snprintf(buf, size, "stackbench %s", a->cmd);
	for (unsigned k = 0; k < a->args->shard.n && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, " %s",
		                        sb_cli_shell_quote(q, sizeof(q), a->args->shard.v[k]));
	for (int k = 0; k < a->ninputs && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, " %s",
		                        sb_cli_shell_quote(q, sizeof(q), a->inputs[k]));
	if (len < size)
		snprintf(buf + len, size - len, " --json %s --slurm --shards %u --status",
		         sb_cli_shell_quote(q, sizeof(q), a->json), r->n);
}

int sb_cli_analysis_slurm(const struct sb_cli_analysis_slurm *a)
{
	struct analysis_slurm r = {.a = a};
	char self[PATH_MAX], cwd[PATH_MAX], prefix[PATH_MAX], dir[PATH_MAX], name[64];
	char status_cmd[8192];
	char ***argvs = NULL, **merge = NULL;
	struct sb_slurm_job job;
	struct sb_cli_slurm s;
	uint64_t bytes, h = 0xcbf29ce484222325ull;
	int e, rc = SB_EXIT_FAILURE;

	if (!a->json || !strcmp(a->json, "-"))
		return sb_cli_usage_error(a->cmd,
		                          "--slurm needs --json OUT: the file the merge job "
		                          "writes the report into");
	if (a->args->shard.nomem || a->args->merge.nomem)
		return sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
	if ((e = sb_cli_self_path(self, sizeof(self))) < 0)
		return sb_cli_error(e);
	if (!getcwd(cwd, sizeof(cwd)))
		return sb_cli_error(
		    sb_error_set(SB_ERR_IO, "cannot read the working folder: %s", strerror(errno)));
	/* the trace's contents and the shards' options name the work */
	if ((e = sb_partial_fingerprint(a->src, r.fingerprint, &bytes)) < 0)
		return sb_cli_analysis_error(e);
	h = hash_str(h, r.fingerprint);
	for (unsigned k = 0; k < a->args->shard.n; k++)
		h = hash_str(h, a->args->shard.v[k]);
	if (snprintf(prefix, sizeof(prefix), "%s.shards/%s-%016llx", a->json, a->cmd,
	             (unsigned long long)h) >= (int)sizeof(prefix))
		return sb_cli_error(sb_error_set(SB_ERR_INVAL, "'%s': path too long", a->json));
	r.n = a->par->shards;
	if (!r.n && (e = sb_cli_slurm_find_tasks(prefix, SB_CLI_SLURM_MAX_SHARDS, &r.n)) < 0)
		return sb_cli_error(e);
	if (snprintf(dir, sizeof(dir), "%s-of-%u", prefix, r.n) >= (int)sizeof(dir))
		return sb_cli_error(sb_error_set(SB_ERR_INVAL, "'%s': path too long", a->json));
	if (!(r.part = calloc(r.n, sizeof(*r.part))) || !(argvs = calloc(r.n, sizeof(*argvs)))) {
		rc = sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
		goto out;
	}
	for (unsigned i = 0; i < r.n; i++)
		if (asprintf(&r.part[i], "%s/shard-%u-of-%u.part", dir, i, r.n) < 0) {
			r.part[i] = NULL;
			rc = sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
			goto out;
		}
	for (unsigned i = 0; i < r.n; i++)
		if (!(argvs[i] = task_argv(&r, self, i))) {
			rc = sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
			goto out;
		}
	if (!(merge = merge_argv(&r, self))) {
		rc = sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
		goto out;
	}
	snprintf(name, sizeof(name), "stackbench-%s", a->cmd);
	job = (struct sb_slurm_job){
	    .name = name,
	    .dir = dir,
	    .chdir = cwd,
	    .ntasks = r.n,
	    .task_argv = (char *const *const *)argvs,
	    .merge_argv = merge,
	    .opts = a->opts,
	    .nopts = a->nopts,
	};
	status_command(&r, status_cmd, sizeof(status_cmd));
	s = (struct sb_cli_slurm){
	    .cmd = a->cmd,
	    .what = "shard",
	    .job = &job,
	    .status_cmd = status_cmd,
	    .task_done = task_done,
	    .merged = merged,
	    .ctx = &r,
	};
	printf("%s of '%s'%s (%llu bytes, fingerprint %s): %u shard%s into '%s'\n", a->cmd,
	       a->inputs[0], a->ninputs > 1 ? " and more" : "", (unsigned long long)bytes,
	       r.fingerprint, r.n, r.n == 1 ? "" : "s", a->json);
	if (a->par->status) {
		rc = sb_cli_slurm_status(&s);
		goto out;
	}
	if (!a->par->dry && (e = sb_cli_make_dirs(dir)) < 0) {
		rc = sb_cli_error(e);
		goto out;
	}
	rc = sb_cli_slurm_submit(&s, a->par->dry);
out:
	for (unsigned i = 0; r.part && i < r.n; i++)
		free(r.part[i]);
	free(r.part);
	sb_cli_argvs_free(argvs, r.n);
	sb_slurm_argv_free(merge);
	return rc;
}

int sb_cli_analysis_run(int argc, char **argv, const struct option *opts, sb_cli_analysis_main run)
{
	struct sb_cli_slurm_args keep = {0};
	char **sbatch = NULL;
	unsigned nsbatch = 0;
	int rc;

	rc = sb_cli_slurm_split(&argc, argv, opts, sb_cli_has_slurm(argc, argv), &sbatch, &nsbatch);
	if (rc < 0)
		rc = run(argc, argv, sbatch, nsbatch, &keep);
	free(sbatch);
	sb_cli_slurm_args_release(&keep);
	return rc;
}
