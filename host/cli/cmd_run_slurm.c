/* SPDX-License-Identifier: MIT */
/*
 * stackbench run CAMPAIGN --slurm: the campaign's shards as a Slurm job array, each task
 * running `stackbench run CAMPAIGN --shard I/N --db SHARD_DB --resume` into its own database,
 * and a merge job after them (`stackbench merge SHARD_DB... --into DB`). The work's folder,
 * beside the database, holds the shard databases, the scripts, Slurm's logs and the record of
 * what was submitted (docs/cluster.md):
 *
 *   DB.shards/NAME-HASH-of-N/{shard-I-of-N.db, array.sh, merge.sh, task-I-job-J.out, slurm.json}
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/slurm.h"
#include "stackbench/store.h"
#include "stackbench/util.h"

struct run_slurm {
	const struct sb_campaign *c;
	const struct sb_cli_run_slurm *o;
	unsigned n;       /* shards */
	unsigned *points; /* points of each shard */
	char dir[PATH_MAX];
	char **db; /* each shard's database */
};

/* The campaign's name as a file name: letters, digits, '.', '-', '_' (others '_'). */
static void file_name(char *out, size_t size, const char *name)
{
	size_t i = 0;

	for (; name[i] && i + 1 < size; i++)
		out[i] = isalnum((unsigned char)name[i]) || strchr("._-", name[i]) ? name[i] : '_';
	out[i] = '\0';
	if (out[0] == '.')
		out[0] = '_';
}

/* Without --shards: the one sharding of this campaign submitted before, else 1. */
static int find_shards(const struct sb_campaign *c, const char *db, unsigned *n)
{
	char prefix[PATH_MAX], name[SB_CAMPAIGN_NAME_MAX];
	int e;

	file_name(name, sizeof(name), c->name);
	snprintf(prefix, sizeof(prefix), "%s.shards/%s-%s", db, name, c->hash);
	if ((e = sb_cli_slurm_find_tasks(prefix, SB_CAMPAIGN_MAX_SHARDS, n)) == SB_ERR_INVAL)
		return sb_error_set(SB_ERR_INVAL,
		                    "campaign '%s' was submitted with several shard counts "
		                    "(%s.shards/): say which with --shards N",
		                    c->name, db);
	return e;
}

static int task_done(void *ctx, unsigned i, char *text, size_t size)
{
	struct run_slurm *r = ctx;
	struct sb_shard_progress p;
	int e;

	if (!r->points[i]) {
		snprintf(text, size, "no points");
		return 1;
	}
	if ((e = sb_campaign_shard_progress(r->c, r->db[i], i, r->n, &p)) < 0)
		return e;
	if (!p.found)
		snprintf(text, size, "0 of %u points (not started)", p.total);
	else
		snprintf(text, size, "%u of %u points%s", p.done, p.total,
		         p.done == p.total ? ", complete" : "");
	return p.found && p.done == p.total;
}

static int merged(void *ctx, char *text, size_t size)
{
	struct run_slurm *r = ctx;
	struct sb_shard_progress p;
	int e;

	/* the campaign's database holding the whole campaign, complete, of this content */
	if ((e = sb_campaign_shard_progress(r->c, r->o->db, 0, 0, &p)) < 0) {
		if (e != SB_ERR_MISMATCH)
			return e;
		sb_error_clear();
		return 0; /* another version or a shard there: not this merge */
	}
	if (!p.found || p.done != p.total)
		return 0;
	snprintf(text, size, "campaign %lld in '%s', %u points", (long long)p.campaign_id, r->o->db,
	         p.total);
	return 1;
}

int sb_cli_run_slurm(const struct sb_campaign *c, const struct sb_cli_run_slurm *o)
{
	struct run_slurm r = {.c = c, .o = o};
	char self[PATH_MAX], cwd[PATH_MAX], name[SB_CAMPAIGN_NAME_MAX], job_name[96];
	char status_cmd[PATH_MAX * 3], qf[PATH_MAX], qd[PATH_MAX];
	char ***argvs = NULL, **merge_argv = NULL;
	const char **items = NULL;
	unsigned *of = NULL, groups = 0, nitems = 0;
	struct sb_slurm_job job;
	struct sb_cli_slurm s;
	int e, rc = SB_EXIT_FAILURE;

	if ((e = sb_cli_self_path(self, sizeof(self))) < 0)
		return sb_cli_error(e);
	if (!getcwd(cwd, sizeof(cwd)))
		return sb_cli_error(
		    sb_error_set(SB_ERR_IO, "cannot read the working folder: %s", strerror(errno)));
	r.n = o->shards;
	if (!r.n && (e = find_shards(c, o->db, &r.n)) < 0)
		return sb_cli_error(e);
	if (!(of = calloc(c->npoints ? c->npoints : 1, sizeof(*of))) ||
	    !(r.points = calloc(r.n, sizeof(*r.points))) || !(r.db = calloc(r.n, sizeof(*r.db))) ||
	    !(argvs = calloc(r.n, sizeof(*argvs))) || !(items = calloc(r.n + 8, sizeof(*items)))) {
		rc = sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
		goto out;
	}
	if ((e = sb_campaign_shard_map(c, r.n, of, &groups)) < 0) {
		rc = sb_cli_error(e);
		goto out;
	}
	if (groups < r.n)
		fprintf(stderr,
		        "stackbench run: campaign '%s' has %u sequence%s that must stay whole (one "
		        "cooling configuration each): %u of the %u shards have points\n",
		        c->name, groups, groups == 1 ? "" : "s", groups, r.n);
	for (unsigned i = 0; i < c->npoints; i++)
		r.points[of[i]]++;
	file_name(name, sizeof(name), c->name);
	if (snprintf(r.dir, sizeof(r.dir), "%s.shards/%s-%s-of-%u", o->db, name, c->hash, r.n) >=
	    (int)sizeof(r.dir)) {
		rc = sb_cli_error(sb_error_set(SB_ERR_INVAL, "'%s': path too long", o->db));
		goto out;
	}
	/* each shard's task: stackbench run FILE --shard I/N --db SHARD_DB --resume */
	for (unsigned i = 0; i < r.n; i++) {
		char shard[32], *db;

		if (asprintf(&db, "%s/shard-%u-of-%u.db", r.dir, i, r.n) < 0) {
			rc = sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
			goto out;
		}
		r.db[i] = db;
		snprintf(shard, sizeof(shard), "%u/%u", i, r.n);
		nitems = 0;
		items[nitems++] = self;
		items[nitems++] = "run";
		items[nitems++] = o->file;
		items[nitems++] = "--shard";
		items[nitems++] = shard;
		items[nitems++] = "--db";
		items[nitems++] = db;
		items[nitems++] = "--resume";
		if (o->board) {
			items[nitems++] = "--board";
			items[nitems++] = o->board;
		}
		if (!(argvs[i] = sb_cli_argv_make(items, nitems))) {
			rc = sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
			goto out;
		}
	}
	/* the merge: stackbench merge SHARD_DB... --into DB --campaign NAME (shards with points) */
	nitems = 0;
	items[nitems++] = self;
	items[nitems++] = "merge";
	for (unsigned i = 0; i < r.n; i++)
		if (r.points[i])
			items[nitems++] = r.db[i];
	items[nitems++] = "--into";
	items[nitems++] = o->db;
	items[nitems++] = "--campaign";
	items[nitems++] = c->name;
	if (!(merge_argv = sb_cli_argv_make(items, nitems))) {
		rc = sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
		goto out;
	}
	snprintf(job_name, sizeof(job_name), "stackbench-%s", name);
	job = (struct sb_slurm_job){
	    .name = job_name,
	    .dir = r.dir,
	    .chdir = cwd,
	    .ntasks = r.n,
	    .task_argv = (char *const *const *)argvs,
	    .merge_argv = merge_argv,
	    .opts = o->opts,
	    .nopts = o->nopts,
	};
	snprintf(status_cmd, sizeof(status_cmd),
	         "stackbench run %s --db %s --slurm --shards %u --status",
	         sb_cli_shell_quote(qf, sizeof(qf), o->file),
	         sb_cli_shell_quote(qd, sizeof(qd), o->db), r.n);
	s = (struct sb_cli_slurm){
	    .cmd = "run",
	    .what = "shard",
	    .job = &job,
	    .status_cmd = status_cmd,
	    .task_done = task_done,
	    .merged = merged,
	    .ctx = &r,
	};
	printf("campaign '%s' (%s): %u points in %u shard%s, content hash %s\n", c->name, o->file,
	       c->npoints, r.n, r.n == 1 ? "" : "s", c->hash);
	if (o->status) {
		rc = sb_cli_slurm_status(&s);
		goto out;
	}
	if (!o->dry && (e = sb_cli_make_dirs(r.dir)) < 0) {
		rc = sb_cli_error(e);
		goto out;
	}
	rc = sb_cli_slurm_submit(&s, o->dry);
out:
	for (unsigned i = 0; r.db && i < r.n; i++)
		free(r.db[i]);
	free(r.db);
	free(r.points);
	free(of);
	free(items);
	sb_cli_argvs_free(argvs, r.n);
	sb_slurm_argv_free(merge_argv);
	return rc;
}
