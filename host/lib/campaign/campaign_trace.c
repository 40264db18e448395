/* SPDX-License-Identifier: MIT */
/*
 * Trace capture of campaign points: one sbt per run of a GUPS point, in a folder beside the
 * results database named after it without its extension (lab.db →
 * lab.traces/campaign1/point00012.sbt; docs/campaigns.md), recorded in the store
 * (table point_traces, path relative to the database's folder so both move together).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign_trace.h"
#include "stackbench/error.h"
#include "stackbench/util.h"

/* mkdir -p of a folder that must end up a folder. */
static int make_dir(const char *path)
{
	char buf[PATH_MAX];
	struct stat sb;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return sb_error_set(SB_ERR_INVAL, "trace folder '%s': path too long", path);
	for (char *q = buf + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		if (mkdir(buf, 0777) < 0 && errno != EEXIST)
			return sb_error_set(errno == EACCES ? SB_ERR_PERM : SB_ERR_IO,
			                    "cannot make trace folder '%s': %s", buf,
			                    strerror(errno));
		*q = '/';
	}
	if (mkdir(buf, 0777) < 0 && errno != EEXIST)
		return sb_error_set(errno == EACCES ? SB_ERR_PERM : SB_ERR_IO,
		                    "cannot make trace folder '%s': %s", buf, strerror(errno));
	if (stat(buf, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return sb_error_set(SB_ERR_IO, "trace folder '%s' is not a folder", buf);
	return 0;
}

int sb_point_trace_path(const char *db_path, int64_t campaign_id, unsigned index, unsigned attempt,
                        char *rel, size_t rel_size, char *abs, size_t abs_size)
{
	const char *slash = strrchr(db_path, '/'), *base = slash ? slash + 1 : db_path;
	char stem[256];
	size_t n;
	int e;

	/* The database's name without its last extension (lab.db: lab.traces; run.2024.db:
	 * run.2024.traces, never the folder of run.2025.db), whole when it has none or is itself
	 * NAME.traces (whose folder would be the database). */
	{
		const char *dot = strrchr(base, '.');

		n = dot && dot != base && strcmp(dot, ".traces") ? (size_t)(dot - base)
		                                                 : strlen(base);
	}
	if (n >= sizeof(stem))
		n = sizeof(stem) - 1;
	memcpy(stem, base, n);
	stem[n] = '\0';
	if (attempt)
		e = snprintf(rel, rel_size, "%s.traces/campaign%lld/point%05u-run%u.sbt", stem,
		             (long long)campaign_id, index, attempt + 1);
	else
		e = snprintf(rel, rel_size, "%s.traces/campaign%lld/point%05u.sbt", stem,
		             (long long)campaign_id, index);
	if (e < 0 || e >= (int)rel_size ||
	    snprintf(abs, abs_size, "%.*s%s", slash ? (int)(slash - db_path + 1) : 0, db_path,
	             rel) >= (int)abs_size)
		return sb_error_set(SB_ERR_INVAL, "trace of point %u beside '%s': path too long",
		                    index, db_path);
	return 0;
}

int sb_point_trace_mkdir(const char *abs)
{
	char dir[PATH_MAX];
	char *slash;

	sb_strlcpy(dir, abs, sizeof(dir));
	if (!(slash = strrchr(dir, '/')) || slash == dir)
		return 0;
	*slash = '\0';
	return make_dir(dir);
}

int sb_point_trace_open(struct sb_point_trace *pt, const struct sb_campaign *c, const char *db_path,
                        int64_t campaign_id, const struct sb_campaign_point *p, unsigned attempt,
                        struct sb_device *dev)
{
	int e;

	memset(pt, 0, sizeof(*pt));
	if (!c->trace.enabled || p->stream || p->idle)
		return 0;
	if ((e = sb_point_trace_path(db_path, campaign_id, p->index, attempt, pt->rel,
	                             sizeof(pt->rel), pt->abs, sizeof(pt->abs))) < 0 ||
	    (e = sb_point_trace_mkdir(pt->abs)) < 0)
		return e;
	if ((e = sb_capture_open(&pt->cap, dev, &c->trace.cfg, pt->abs)) < 0)
		return sb_error_wrap(e, "point %u '%s': trace capture", p->index, p->key);
	return 0;
}

int sb_point_trace_close(struct sb_point_trace *pt)
{
	int e;

	if (!pt->cap)
		return 0;
	e = sb_capture_close(pt->cap, &pt->st);
	pt->cap = NULL;
	pt->done = e == 0;
	return e;
}

void sb_point_trace_abort(struct sb_point_trace *pt)
{
	if (pt->cap) {
		sb_capture_abort(pt->cap);
		pt->cap = NULL;
	} else if (pt->done) {
		unlink(pt->abs);
	}
	pt->done = false;
}
