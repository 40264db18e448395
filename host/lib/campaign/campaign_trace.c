/* SPDX-License-Identifier: MIT */
/*
 * Trace capture of campaign points: one sbt per run of a GUPS or an HBM2 card's point, in a
 * folder beside the results database named after it without its extension (lab.db →
 * lab.traces/campaign1/point00012.sbt; docs/campaigns.md), recorded in the store (table
 * point_traces, path relative to the database's folder so both move together).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign_trace.h"
#include "stackbench/error.h"
#include "stackbench/hbm.h"
#include "stackbench/util.h"

/*
 * Make the folder rel (at most two components, "X.traces/campaignN") inside the database's
 * folder base, component by component and never through a symbolic link: a link planted at
 * X.traces would have the traces written wherever it points (O_NOFOLLOW on each).
 */
static int make_dir(const char *base, const char *rel)
{
	char buf[PATH_MAX], *comp, *end;
	struct stat st;
	int fd, next, e = 0;

	if (snprintf(buf, sizeof(buf), "%s", rel) >= (int)sizeof(buf))
		return sb_error_set(SB_ERR_INVAL, "trace folder '%s': path too long", rel);
	if ((fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return sb_error_set(errno == EACCES ? SB_ERR_PERM : SB_ERR_IO,
		                    "cannot open the database's folder '%s': %s", base,
		                    strerror(errno));
	for (comp = buf; comp && *comp && !e; comp = end) {
		if ((end = strchr(comp, '/')))
			*end++ = '\0';
		if (mkdirat(fd, comp, 0777) < 0 && errno != EEXIST)
			e = sb_error_set(errno == EACCES ? SB_ERR_PERM : SB_ERR_IO,
			                 "cannot make trace folder '%s/%s': %s", base, rel,
			                 strerror(errno));
		else if ((next = openat(fd, comp,
		                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			int err = errno;

			e = sb_error_set(err == EACCES ? SB_ERR_PERM : SB_ERR_IO,
			                 "trace folder '%s' in '%s': %s", comp, base,
			                 fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			                         S_ISLNK(st.st_mode)
			                     ? "a symbolic link: refused"
			                 : err == ENOTDIR ? "not a folder"
			                                  : strerror(err));
		} else {
			close(fd);
			fd = next;
		}
	}
	close(fd);
	return e;
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

int sb_point_trace_mkdir(const char *db_path, const char *rel)
{
	const char *slash = strrchr(db_path, '/');
	char dir[PATH_MAX], base_dir[PATH_MAX], *end;

	/* The database's folder, and the trace's folder relative to it. */
	if (slash == db_path)
		snprintf(base_dir, sizeof(base_dir), "/");
	else
		snprintf(base_dir, sizeof(base_dir), "%.*s", slash ? (int)(slash - db_path) : 1,
		         slash ? db_path : ".");
	sb_strlcpy(dir, rel, sizeof(dir));
	if (!(end = strrchr(dir, '/')))
		return 0;
	*end = '\0';
	return make_dir(base_dir, dir);
}

int sb_point_trace_open(struct sb_point_trace *pt, const struct sb_campaign *c, const char *db_path,
                        int64_t campaign_id, const struct sb_campaign_point *p, unsigned attempt,
                        struct sb_device *dev)
{
	struct sb_capture_config cfg = c->trace.cfg;
	int e;

	memset(pt, 0, sizeof(*pt));
	if (!c->trace.enabled || p->stream || p->idle)
		return 0;
	/* An HBM2 point records the ports that issue unless the trace names its ports. */
	if (c->engine == SB_ENGINE_HBM2 && !cfg.port_mask)
		cfg.port_mask = p->hbm.port_mask;
	if ((e = sb_point_trace_path(db_path, campaign_id, p->index, attempt, pt->rel,
	                             sizeof(pt->rel), pt->abs, sizeof(pt->abs))) < 0 ||
	    (e = sb_point_trace_mkdir(db_path, pt->rel)) < 0)
		return e;
	if ((e = sb_capture_open(&pt->cap, dev, &cfg, pt->abs)) < 0)
		return sb_error_wrap(e, "point %u '%s': trace capture", p->index, p->key);
	return 0;
}

int sb_point_trace_hbm_run(struct sb_point_trace *pt, struct sb_device *dev,
                           const struct sb_hbm_spec *s, struct sb_hbm_result *r)
{
	int e;

	if (!pt->cap)
		return sb_hbm_point_run(dev, s, r);
	if ((e = sb_hbm_point_capture(dev, s, pt->cap, r)) < 0)
		return e;
	return sb_point_trace_close(pt);
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
