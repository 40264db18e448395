/* SPDX-License-Identifier: MIT */
/* Options the analysis commands share: threads, shards and partial results, trace sources. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_analysis.h"
#include "stackbench/error.h"
#include "stackbench/partial.h"
#include "stackbench/util.h"

int sb_cli_parallel_option(const char *cmd, int c, const char *arg, struct sb_cli_parallel *p)
{
	uint64_t u, i, n;
	char *end;

	switch (c) {
	case SB_CLI_OPT_THREADS:
		if (sb_parse_u64(arg, "--threads", false, &u) < 0 || u < 1 ||
		    u > SB_ANALYSIS_MAX_THREADS)
			return sb_cli_usage_error(
			    cmd, "--threads: expected a number from 1 to %d, got '%s'",
			    SB_ANALYSIS_MAX_THREADS, arg);
		p->threads = (unsigned)u;
		return 0;
	case SB_CLI_OPT_SHARD:
		i = strtoull(arg, &end, 10);
		if (end == arg || *end != '/' || arg[0] == '-' || end[1] == '-' || end[1] == '+')
			goto bad_shard;
		n = strtoull(end + 1, &end, 10);
		if (*end || n < 1 || n > SB_PARTIAL_MAX_SHARDS || i >= n)
			goto bad_shard;
		p->have_shard = true;
		p->shard = (uint32_t)i;
		p->nshards = (uint32_t)n;
		return 0;
	bad_shard:
		return sb_cli_usage_error(
		    cmd,
		    "--shard: expected I/N with 0 <= I < N <= %d (shard I of N), "
		    "got '%s'",
		    SB_PARTIAL_MAX_SHARDS, arg);
	case SB_CLI_OPT_PARTIAL:
		p->partial = arg;
		return 0;
	case SB_CLI_OPT_MERGE:
		p->merge = true;
		return 0;
	case SB_CLI_OPT_SLURM:
		p->slurm = true;
		return 0;
	case SB_CLI_OPT_SHARDS:
		if (sb_parse_u64(arg, "--shards", false, &u) < 0 || u < 1 ||
		    u > SB_CLI_SLURM_MAX_SHARDS)
			return sb_cli_usage_error(cmd,
			                          "--shards: expected a number from 1 to %d, got "
			                          "'%s'",
			                          SB_CLI_SLURM_MAX_SHARDS, arg);
		p->shards = (unsigned)u;
		return 0;
	case SB_CLI_OPT_DRY_RUN:
		p->dry = true;
		return 0;
	case SB_CLI_OPT_STATUS:
		p->status = true;
		return 0;
	default:
		return -1;
	}
}

int sb_cli_parallel_check(const char *cmd, const struct sb_cli_parallel *p, const char *report_opt)
{
	if (p->slurm && (p->have_shard || p->partial || p->merge))
		return sb_cli_usage_error(cmd, "--slurm runs the shards and their merge itself: no "
		                               "--shard, --partial or --merge");
	if (!p->slurm && (p->shards || p->dry || p->status))
		return sb_cli_usage_error(cmd, "--shards, --dry-run and --status go with --slurm");
	if (p->dry && p->status)
		return sb_cli_usage_error(cmd, "--dry-run or --status, not both");
	if (p->have_shard && !p->partial)
		return sb_cli_usage_error(cmd, "--shard needs --partial OUT (where the shard's "
		                               "result goes; --merge joins them)");
	if (p->partial && !p->have_shard)
		return sb_cli_usage_error(cmd, "--partial needs --shard I/N");
	if (p->merge && p->have_shard)
		return sb_cli_usage_error(cmd, "--merge takes partial results, not --shard");
	if (p->partial && report_opt)
		return sb_cli_usage_error(cmd,
		                          "%s goes with --merge: a shard writes its partial result "
		                          "only",
		                          report_opt);
	return 0;
}

unsigned sb_cli_threads(const struct sb_cli_parallel *p)
{
	cpu_set_t set;
	long n;

	if (p->threads)
		return p->threads;
	/* the processors this process may use: an allocation (taskset, Slurm) limits them */
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	else
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > SB_ANALYSIS_MAX_THREADS ? SB_ANALYSIS_MAX_THREADS : (unsigned)n;
}

int sb_cli_analysis_error(int err)
{
	int rc = sb_cli_error(err);

	switch (err) {
	case SB_ERR_NOT_FOUND:
	case SB_ERR_MISMATCH:
	case SB_ERR_VERSION:
	case SB_ERR_RANGE:
	case SB_ERR_PARSE:
		return SB_EXIT_INPUT;
	default:
		return rc;
	}
}

int sb_cli_read_partials(const char *cmd, char *const *paths, int n, int kind,
                         struct sb_partial **out)
{
	struct sb_partial *p = calloc((size_t)n, sizeof(*p));
	int err;

	*out = p;
	if (!p)
		return sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
	for (int i = 0; i < n; i++)
		if ((err = sb_partial_read(paths[i], &p[i])) < 0)
			return sb_cli_analysis_error(err);
	if ((err = sb_partial_check_set(p, (size_t)n, (enum sb_partial_kind)kind)) < 0)
		return sb_cli_analysis_error(err);
	(void)cmd;
	return 0;
}

void sb_cli_free_partials(struct sb_partial *p, int n)
{
	for (int i = 0; p && i < n; i++)
		sb_partial_release(&p[i]);
	free(p);
}
