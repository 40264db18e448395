/* SPDX-License-Identifier: MIT */
/*
 * Shards of a campaign (docs/cluster.md): the points split into N parts that run apart (one
 * Slurm array task each, or one bench each by hand) and are merged into one campaign after.
 * The split is a pure function of the campaign and N, so every task, the status reader and the
 * merge agree on it without talking to each other.
 *
 * What must stay ordered stays together: a sequence of points on one cooling configuration
 * (the configuration is applied and settled once, and in a thermal campaign each point starts
 * as hot as the one before left the bench) is one group, and a group goes whole, in order, into
 * one shard. A bandwidth campaign without cooling has no order to keep (on the simulated bench
 * each point runs on a fresh board; on hardware each point's result depends on the point only),
 * so each point is its own group.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/store.h"
#include "stackbench/util.h"

/* Whether the campaign keeps sequences of points: thermal, or a cooling axis to settle. */
static bool keeps_sequences(const struct sb_campaign *c)
{
	if (c->kind == SB_CAMPAIGN_THERMAL)
		return true;
	for (unsigned i = 0; i < c->npoints; i++)
		if (strcmp(c->points[i].cooling, "none"))
			return true;
	return false;
}

int sb_campaign_shard_map(const struct sb_campaign *c, unsigned nshards, unsigned *shard_of,
                          unsigned *ngroups)
{
	bool seq = keeps_sequences(c);
	unsigned *load, groups = 0;

	if (!nshards || nshards > SB_CAMPAIGN_MAX_SHARDS)
		return sb_error_set(SB_ERR_INVAL, "%u shards: expected 1..%u", nshards,
		                    SB_CAMPAIGN_MAX_SHARDS);
	if (!(load = calloc(nshards, sizeof(*load))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	for (unsigned i = 0; i < c->npoints;) {
		unsigned end = i + 1, best = 0;

		/* the group: the point, and with sequences every following one on its cooling */
		while (seq && end < c->npoints &&
		       !strcmp(c->points[end].cooling, c->points[i].cooling))
			end++;
		/* to the least loaded shard, the first of equals: round robin for single points */
		for (unsigned s = 1; s < nshards; s++)
			if (load[s] < load[best])
				best = s;
		for (unsigned k = i; k < end; k++)
			shard_of[k] = best;
		load[best] += end - i;
		groups++;
		i = end;
	}
	free(load);
	if (ngroups)
		*ngroups = groups;
	return 0;
}

int sb_campaign_shard_parse(const char *text, unsigned *index, unsigned *count)
{
	const char *slash = text ? strchr(text, '/') : NULL;
	char head[24];
	uint64_t i, n;

	if (!slash || (size_t)(slash - text) >= sizeof(head))
		return sb_error_set(SB_ERR_INVAL, "shard '%s': expected I/N (0 <= I < N)",
		                    text ? text : "");
	memcpy(head, text, (size_t)(slash - text));
	head[slash - text] = '\0';
	if (sb_parse_u64(head, "shard index", false, &i) < 0 ||
	    sb_parse_u64(slash + 1, "shard count", false, &n) < 0 || !n ||
	    n > SB_CAMPAIGN_MAX_SHARDS || i >= n)
		return sb_error_set(SB_ERR_INVAL, "shard '%s': expected I/N with 0 <= I < N <= %u",
		                    text, SB_CAMPAIGN_MAX_SHARDS);
	*index = (unsigned)i;
	*count = (unsigned)n;
	return 0;
}

int sb_campaign_shard_progress(const struct sb_campaign *c, const char *path, unsigned shard,
                               unsigned shards, struct sb_shard_progress *p)
{
	unsigned *of = NULL, *attempts = NULL;
	struct sb_store_campaign sc;
	struct sb_store *st = NULL;
	bool *ok = NULL;
	int e;

	memset(p, 0, sizeof(*p));
	of = calloc(c->npoints ? c->npoints : 1, sizeof(*of));
	attempts = calloc(c->npoints ? c->npoints : 1, sizeof(*attempts));
	ok = calloc(c->npoints ? c->npoints : 1, sizeof(*ok));
	if (!of || !attempts || !ok) {
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (shards && (e = sb_campaign_shard_map(c, shards, of, NULL)) < 0)
		goto out;
	for (unsigned i = 0; i < c->npoints; i++)
		p->total += !shards || of[i] == shard;
	e = 0;
	if (access(path, F_OK) != 0)
		goto out;
	if ((e = sb_store_open_readonly(&st, path)) < 0)
		goto out;
	if ((e = sb_store_campaign_latest(st, c->name, &sc)) < 0) {
		if (e == SB_ERR_NOT_FOUND) {
			sb_error_clear();
			e = 0;
		}
		goto out;
	}
	if (strcmp(sc.hash, c->hash)) {
		e = sb_error_set(SB_ERR_MISMATCH,
		                 "'%s' holds campaign %lld '%s' of content hash %s; the file '%s' "
		                 "has %s now",
		                 path, (long long)sc.id, sc.name, sc.hash, c->file, c->hash);
		goto out;
	}
	if (sc.shards != shards || (shards && sc.shard != shard)) {
		char has[32] = "the whole campaign", want[32] = "the whole campaign";

		if (sc.shards)
			snprintf(has, sizeof(has), "shard %u/%u", sc.shard, sc.shards);
		if (shards)
			snprintf(want, sizeof(want), "shard %u/%u", shard, shards);
		e = sb_error_set(SB_ERR_MISMATCH, "'%s' holds %s of campaign '%s', not %s", path,
		                 has, sc.name, want);
		goto out;
	}
	p->found = true;
	p->campaign_id = sc.id;
	sb_strlcpy(p->status, sc.status, sizeof(p->status));
	if ((e = sb_store_points_attempts(st, sc.id, ok, attempts, c->npoints)) < 0)
		goto out;
	for (unsigned i = 0; i < c->npoints; i++)
		if ((!shards || of[i] == shard) && (ok[i] || attempts[i] > c->recovery.retries))
			p->done++;
out:
	sb_store_close(st);
	free(of);
	free(attempts);
	free(ok);
	return e;
}
