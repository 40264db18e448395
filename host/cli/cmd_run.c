/* SPDX-License-Identifier: MIT */
/*
 * stackbench run: run (or resume) a campaign file into a results database, with a progress
 * bar on a terminal and plain log lines otherwise (both on stderr).
 */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/lock.h"
#include "stackbench/log.h"
#include "stackbench/slurm.h"
#include "stackbench/store.h"
#include "stackbench/util.h"

#ifndef SB_EXAMPLES_DIR
#define SB_EXAMPLES_DIR "examples"
#endif
#ifndef SB_EXAMPLES_INSTALL_DIR
#define SB_EXAMPLES_INSTALL_DIR "/usr/local/share/stackbench/examples"
#endif

const char *sb_cli_default_db(void)
{
	const char *env = getenv("STACKBENCH_DB");

	return env && *env ? env : "stackbench.db";
}

/* The default campaign: examples/quick.yaml of the source tree, else the installed one. */
static const char *default_campaign(void)
{
	static const char *const dirs[] = {SB_EXAMPLES_DIR, SB_EXAMPLES_INSTALL_DIR};
	static char path[4096];

	for (size_t i = 0; i < SB_ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/quick.yaml", dirs[i]);
		if (access(path, R_OK) == 0)
			return path;
	}
	return NULL;
}

static void run_help(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbench run [FILE] [--db PATH] [--resume] [--jobs N] [--dry-run]\n"
	    "                      [--shard I/N] [--device URI | --board node|gres:NAME]\n"
	    "       stackbench run FILE --slurm [--shards N] [--db PATH] [--board HOW]\n"
	    "                      [--dry-run | --status] [SBATCH OPTIONS] [-- SBATCH OPTIONS]\n"
	    "\n"
	    "Run a campaign file (YAML; see docs/campaigns.md) on the bench and store every\n"
	    "finished point in a results database (SQLite), one transaction per point.\n"
	    "Without FILE, runs the default campaign (examples/quick.yaml).\n"
	    "\n"
	    "  -d, --db PATH     results database (default: $STACKBENCH_DB or stackbench.db)\n"
	    "  -r, --resume      continue the latest campaign of the same name in the\n"
	    "                    database: points already stored are not run again; refused\n"
	    "                    if the campaign file changed since that campaign started\n"
	    "  -J, --jobs N      run points on N devices in parallel, one worker per device\n"
	    "                    URI of 'bench.device' (sim: URIs may be reused: each open is\n"
	    "                    a separate simulated board); results do not depend on N\n"
	    "  -n, --dry-run     check the file and list its points; run nothing (with\n"
	    "                    --slurm: print the scripts and sbatch commands)\n"
	    "      --shard I/N   run only shard I of N (0 <= I < N): a sequence on one cooling\n"
	    "                    configuration stays whole in one shard; the database records\n"
	    "                    the shard ('stackbench merge' joins the shards' databases)\n"
	    "      --device URI  run on this board instead of bench.device (the campaign's\n"
	    "                    content hash does not change)\n"
	    "      --board HOW   the board from the node's board file ($STACKBENCH_BOARDS,\n"
	    "                    else /etc/stackbench/boards): 'node' its first line,\n"
	    "                    'gres:NAME' the line of the GRES Slurm allocated\n"
	    "      --slurm       run the shards as a Slurm job array, each task into its own\n"
	    "                    database in DB.shards/, then a job that merges them into the\n"
	    "                    database; run again after a failure or scancel: only shards\n"
	    "                    with points missing are submitted, and run only those points\n"
	    "      --shards N    with --slurm: N shards (default: as submitted before, else 1)\n"
	    "      --status      with --slurm: each shard's points and queue state, the merge\n"
	    "  -h, --help        this help\n"
	    "\n"
	    "With --slurm, options run does not know are sbatch's (--partition=bench,\n"
	    "--gres=fpga:1, --constraint=hmc, --time=2:00:00; values attached with '='), and\n"
	    "so is everything after '--'. Board options (--gres, --constraint) go to the\n"
	    "tasks only. docs/cluster.md says what must be on the shared file system.\n"
	    "\n"
	    "Progress goes to stderr: a bar (points done, ETA, last bandwidth) on a terminal,\n"
	    "one line per point otherwise. Ctrl-C stops after discarding the point in\n"
	    "progress; run again with --resume to finish.\n");
}

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	stop_flag = 1;
	signal(sig, SIG_DFL); /* a second signal ends the program at once */
}

static void fmt_time(char *buf, size_t size, double s)
{
	unsigned long t = s < 0 ? 0 : (unsigned long)(s + 0.5);

	snprintf(buf, size, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
}

/* A line (not a terminal) or the bar (a terminal) inside a long point. */
static void progress_in_point(struct sb_cli_progress *pg, const struct sb_run_progress *p)
{
	char what[192], therm[64] = "";
	unsigned quarter = p->current_s > 0 ? (unsigned)(4 * p->current_t_s / p->current_s) : 0;
	size_t n = 0;

	sb_campaign_point_text(what, sizeof(what), p->current);
	if (!isnan(p->current_temp_c))
		n += (size_t)snprintf(therm, sizeof(therm), ", %.1f C", p->current_temp_c);
	if (!isnan(p->current_power_w) && n < sizeof(therm))
		snprintf(therm + n, sizeof(therm) - n, ", %.1f W", p->current_power_w);
	if (!pg->tty) {
		if (pg->last_point == p->current && quarter <= pg->last_quarter)
			return;
		pg->last_point = p->current;
		pg->last_quarter = quarter;
		if (!quarter)
			return;
		fprintf(stderr, "stackbench %s: point %u/%u %s: %.0f of %.0f s%s\n", pg->cmd,
		        p->done + 1, p->total, what, p->current_t_s, p->current_s, therm);
		return;
	}
	fprintf(stderr, "\r[point %u/%u %.0f/%.0f s%s] %s\033[K", p->done + 1, p->total,
	        p->current_t_s, p->current_s, therm, what);
	fflush(stderr);
	pg->drawn = true;
}

void sb_cli_progress_show(struct sb_cli_progress *pg, const struct sb_run_progress *p)
{
	char eta[16], what[128] = "", last[200] = "", lat[48] = "no reads", therm[64] = "";
	unsigned width = 24, fill = p->total ? width * p->done / p->total : 0;

	if (pg->quiet)
		return;
	if (p->in_point) {
		progress_in_point(pg, p);
		return;
	}

	fmt_time(eta, sizeof(eta), p->eta_s);
	if (p->last) {
		size_t n = 0;

		sb_campaign_point_text(what, sizeof(what), p->last);
		if (p->last_attempt)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), " (run %u)",
			         p->last_attempt + 1);
		if (!isnan(p->last_temp_c))
			n += (size_t)snprintf(therm + n, sizeof(therm) - n, ", %.1f C%s",
			                      p->last_temp_c,
			                      p->last_failed ? " at the failure" : "");
		if (!isnan(p->last_power_w) && n < sizeof(therm))
			snprintf(therm + n, sizeof(therm) - n, ", %.1f W", p->last_power_w);
		snprintf(last, sizeof(last), "%.2f GB/s%s%s (%s)", p->last_bandwidth_gbps, therm,
		         p->last_failed      ? " FAILED"
		         : p->last_rig_fault ? " RIG FAIL-SAFE"
		                             : "",
		         what);
	}
	if (!pg->tty) {
		if (!p->last) {
			fprintf(stderr, "stackbench %s: %u of %u points stored; running %u\n",
			        pg->cmd, p->done, p->total, p->total - p->done);
			return;
		}
		if (p->last_latency_avg_ns > 0)
			snprintf(lat, sizeof(lat), "latency avg %.0f ns", p->last_latency_avg_ns);
		fprintf(stderr,
		        "stackbench %s: point %u/%u %s: %.3f GB/s, %.2f MRPS, %s%s%s, ETA %s\n",
		        pg->cmd, p->done, p->total, what, p->last_bandwidth_gbps, p->last_mrps, lat,
		        therm,
		        p->last_failed      ? ", THERMAL FAILURE"
		        : p->last_rig_fault ? ", COOLING RIG IN FAIL-SAFE"
		                            : "",
		        p->eta_s < 0 ? "?" : eta);
		return;
	}
	fprintf(stderr, "\r[");
	for (unsigned i = 0; i < width; i++)
		fputc(i < fill ? '#' : '.', stderr);
	fprintf(stderr, "] %u/%u  ETA %s  %s\033[K", p->done, p->total, p->eta_s < 0 ? "?" : eta,
	        last);
	fflush(stderr);
	pg->drawn = true;
}

/* The progress bar, and the campaign's notify: command on a thermal failure. */
struct run_ctx {
	struct sb_cli_progress pg;
	const struct sb_campaign *c;
	const char *db;
};

static void progress_cb(void *ctx, const struct sb_run_progress *p)
{
	struct run_ctx *rc = ctx;

	sb_cli_progress_show(&rc->pg, p);
	if (p->last && p->last_failed && rc->c->notify.argc) {
		if (rc->pg.drawn)
			fputc('\n', stderr);
		sb_notify_progress(rc->c, p, rc->db, 0, false);
	}
}

/* Take the locks of the boards the run will drive (sim: boards need none). */
static int lock_boards(const struct sb_campaign *c, unsigned jobs, struct sb_lock **locks)
{
	for (unsigned i = 0; i < jobs && i < c->npoints && i < SB_CAMPAIGN_MAX_DEVICES; i++) {
		const char *uri = c->device[i % c->ndevices];
		bool seen = false;
		int e;

		for (unsigned k = 0; k < i; k++)
			seen |= !strcmp(c->device[k % c->ndevices], uri);
		if (!seen && (e = sb_board_lock(&locks[i], uri)) < 0)
			return e;
	}
	return 0;
}

static int dry_run(const struct sb_campaign *c, unsigned jobs, unsigned shard, unsigned shards)
{
	static const char *const kinds[SB_INST_COUNT] = {"camera", "meter", "cooling"};
	double bench_s = (double)c->npoints * (double)sb_campaign_point_ns(c) / 1e9;
	struct sb_run_summary sum;
	char what[192], total[16];
	int e;

	/* the boards and instruments as a run would open them, every point checked on them */
	if ((e = sb_campaign_check(c, jobs, &sum)) < 0)
		return sb_cli_campaign_error(e, &sum);
	if (c->engine == SB_ENGINE_HBM2 && c->kind == SB_CAMPAIGN_THERMAL)
		printf("campaign '%s' (%s): %u points of an HBM2 card, thermal runs of %g s (%g us "
		       "of warm-up included), content hash %s\n",
		       c->name, c->file, c->npoints, c->thermal_s, c->hbm_warmup_us, c->hash);
	else if (c->engine == SB_ENGINE_HBM2)
		printf("campaign '%s' (%s): %u points of an HBM2 card, each %g us of warm-up and "
		       "a %g us window, content hash %s\n",
		       c->name, c->file, c->npoints, c->hbm_warmup_us, c->hbm_window_us, c->hash);
	else
		printf("campaign '%s' (%s): %u points, %s runs of %g s, content hash %s\n", c->name,
		       c->file, c->npoints,
		       c->kind == SB_CAMPAIGN_THERMAL ? "thermal" : "bandwidth",
		       c->kind == SB_CAMPAIGN_THERMAL ? c->thermal_s : c->bandwidth_s, c->hash);
	printf("instruments:");
	for (int k = 0; k < SB_INST_COUNT; k++)
		printf(" %s %s%s", kinds[k], c->inst.conn[k][0] ? c->inst.conn[k] : "none",
		       k + 1 < SB_INST_COUNT ? "," : "\n");
	if (c->engine == SB_ENGINE_HBM2 && c->kind == SB_CAMPAIGN_THERMAL)
		printf("temperature limit %g C: the ports stop, the card cools to %g C (at most %g "
		       "s); %u retr%s\n",
		       c->recovery.limit_c,
		       isnan(c->recovery.resume_c) ? c->recovery.limit_c - c->recovery.cool_margin_c
		                                   : c->recovery.resume_c,
		       c->recovery.cool_max_s, c->recovery.retries,
		       c->recovery.retries == 1 ? "y" : "ies");
	else if (c->engine != SB_ENGINE_HBM2) /* an HBM2 bandwidth point has no thermal stop */
		printf(
		    "after a thermal failure: stop the ports, cool (%s) to %g C below the failure "
		    "(at most %g s), reset, re-initialize; %u retr%s\n",
		    c->recovery.cooling, c->recovery.cool_margin_c, c->recovery.cool_max_s,
		    c->recovery.retries, c->recovery.retries == 1 ? "y" : "ies");
	if (shards) {
		unsigned *of = calloc(c->npoints ? c->npoints : 1, sizeof(*of)), n = 0, groups = 0;

		if (!of || sb_campaign_shard_map(c, shards, of, &groups) < 0) {
			free(of);
			return sb_cli_error(SB_ERR_NOMEM);
		}
		for (unsigned i = 0; i < c->npoints; i++)
			n += of[i] == shard;
		printf("shard %u/%u: %u of the %u points (%u group%s kept whole over all "
		       "shards)\n",
		       shard, shards, n, c->npoints, groups, groups == 1 ? "" : "s");
		for (unsigned i = 0; i < c->npoints; i++) {
			if (of[i] != shard)
				continue;
			sb_campaign_point_text(what, sizeof(what), &c->points[i]);
			printf("%6u  %s%s\n", i, what, c->points[i].rep ? " (repetition)" : "");
		}
		free(of);
	} else {
		for (unsigned i = 0; i < c->npoints; i++) {
			sb_campaign_point_text(what, sizeof(what), &c->points[i]);
			printf("%6u  %s%s\n", i, what, c->points[i].rep ? " (repetition)" : "");
		}
	}
	fmt_time(total, sizeof(total), bench_s / (jobs ? jobs : 1));
	printf("bench time: %u points x %g s = %s%s (the wall time on hardware; the simulated "
	       "bench runs faster)\n",
	       c->npoints, (double)sb_campaign_point_ns(c) / 1e9, total,
	       jobs > 1 ? " on each of the workers" : "");
	printf("checked: every point runs on %s\n", c->ndevices > 1 ? "every board" : c->device[0]);
	return SB_EXIT_OK;
}

enum { OPT_SHARD = 0x100, OPT_DEVICE, OPT_BOARD, OPT_SLURM, OPT_SHARDS, OPT_STATUS };

/* The board given by --device or --board (NULL: the campaign's). */
static int set_board(struct sb_campaign *c, const char *device, const char *board)
{
	char uri[SB_CAMPAIGN_TEXT_MAX];
	int e;

	if (board) {
		if ((e = sb_slurm_board(board, uri, sizeof(uri))) < 0)
			return sb_cli_error(e) == SB_EXIT_USAGE ? SB_EXIT_USAGE : SB_EXIT_DEVICE;
		device = uri;
	}
	if (device && (e = sb_campaign_set_device(c, device)) < 0)
		return sb_cli_error(e);
	if (device)
		sb_info("campaign '%s' runs on '%s'", c->name, c->device[0]);
	return 0;
}

/* A count option 1..max: -1 to go on, else the usage error's exit code (printed). */
static int count_option(const char *arg, const char *opt, unsigned max, unsigned *out)
{
	uint64_t v;

	if (sb_parse_u64(arg, opt, false, &v) < 0 || !v || v > max)
		return sb_cli_usage_error("run", "%s %s: 1..%u", opt, arg, max);
	*out = (unsigned)v;
	return -1;
}

/* Options that go only with --slurm, or only without it. -1 to go on, else an exit code. */
static int check_combination(bool slurm, const struct sb_cli_run_slurm *so,
                             const struct sb_run_options *ro, const char *device, bool dry)
{
	if (!slurm && (so->shards || so->status))
		return sb_cli_usage_error("run", "--shards and --status go with --slurm");
	if (slurm && (ro->shards || device || ro->resume || ro->jobs))
		return sb_cli_usage_error("run",
		                          "--slurm runs each shard on one board (--board), "
		                          "resumes by itself: no --shard, --device, --resume, "
		                          "--jobs");
	if (slurm && dry && so->status)
		return sb_cli_usage_error("run", "--dry-run or --status, not both");
	if (device && so->board)
		return sb_cli_usage_error("run", "--device or --board, not both");
	if (so->board && strcmp(so->board, "node") && strncmp(so->board, "gres:", 5))
		return sb_cli_usage_error("run", "--board %s: expected node or gres:NAME",
		                          so->board);
	return -1;
}

static int run_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"resume", no_argument, NULL, 'r'},
	    {"jobs", required_argument, NULL, 'J'},
	    {"dry-run", no_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {"shard", required_argument, NULL, OPT_SHARD},
	    {"device", required_argument, NULL, OPT_DEVICE},
	    {"board", required_argument, NULL, OPT_BOARD},
	    {"slurm", no_argument, NULL, OPT_SLURM},
	    {"shards", required_argument, NULL, OPT_SHARDS},
	    {"status", no_argument, NULL, OPT_STATUS},
	    {NULL, 0, NULL, 0},
	};
	struct sb_cli_run_slurm so = {0};
	const char *device = NULL;
	bool slurm;
	const char *db = sb_cli_default_db(), *file;
	struct sb_run_options ro = {.stop = &stop_flag};
	struct sb_cli_progress pg = {
	    .cmd = "run", .tty = isatty(STDERR_FILENO), .quiet = sb_log_get_level() < SB_LOG_WARN};
	struct sb_lock *locks[SB_CAMPAIGN_MAX_DEVICES] = {NULL};
	struct sb_run_summary sum = {0};
	struct run_ctx rctx = {0};
	struct sb_campaign c;
	struct sb_store *st;
	bool dry = false;
	int ch, e, rc;

	slurm = sb_cli_has_slurm(argc, argv);
	if ((rc = sb_cli_slurm_split(&argc, argv, opts, slurm, &so.opts, &so.nopts)) >= 0) {
		free(so.opts);
		return rc;
	}
	while ((ch = getopt_long(argc, argv, "d:rJ:nh", opts, NULL)) != -1) {
		switch (ch) {
		case OPT_SHARD:
			if (sb_campaign_shard_parse(optarg, &ro.shard, &ro.shards) < 0) {
				rc = sb_cli_usage_error("run", "--shard: %s", sb_error_detail());
				goto out_opts;
			}
			break;
		case OPT_DEVICE:
			device = optarg;
			break;
		case OPT_BOARD:
			so.board = optarg;
			break;
		case OPT_SLURM:
			break;
		case OPT_SHARDS:
			if ((rc = count_option(optarg, "--shards", SB_CAMPAIGN_MAX_SHARDS,
			                       &so.shards)) >= 0)
				goto out_opts;
			break;
		case OPT_STATUS:
			so.status = true;
			break;
		case 'd':
			db = optarg;
			break;
		case 'r':
			ro.resume = true;
			break;
		case 'J':
			if ((rc = count_option(optarg, "--jobs", SB_CAMPAIGN_MAX_DEVICES,
			                       &ro.jobs)) >= 0)
				goto out_opts;
			break;
		case 'n':
			dry = true;
			break;
		case 'h':
			run_help(stdout);
			rc = SB_EXIT_OK;
			goto out_opts;
		default:
			rc = sb_cli_usage_error("run", "bad option");
			goto out_opts;
		}
	}
	if ((rc = check_combination(slurm, &so, &ro, device, dry)) >= 0)
		goto out_opts;
	if (argc - optind > 1) {
		rc = sb_cli_usage_error("run", "unexpected argument '%s'%s", argv[optind + 1],
		                        slurm ? " (give sbatch options' values with '=', or after "
		                                "'--')"
		                              : "");
		goto out_opts;
	}
	file = optind < argc ? argv[optind] : default_campaign();
	if (!file) {
		rc = sb_cli_usage_error("run", "no FILE given and no default campaign "
		                               "(examples/quick.yaml) found");
		goto out_opts;
	}
	if ((e = sb_campaign_load(&c, file)) < 0) {
		fprintf(stderr, "stackbench: %s\n", sb_error_detail());
		rc = SB_EXIT_INPUT;
		goto out_opts;
	}
	if (slurm) {
		so.file = file;
		so.db = db;
		so.dry = dry;
		rc = sb_cli_run_slurm(&c, &so);
		goto out_campaign;
	}
	if ((rc = set_board(&c, device, so.board)) != 0)
		goto out_campaign;
	if (dry) {
		rc = dry_run(&c, ro.jobs, ro.shard, ro.shards);
		goto out_campaign;
	}
	/* Busy boards: exit 3, naming the holder (another run, a point, stackbenchd). */
	if ((e = lock_boards(&c, ro.jobs ? ro.jobs : 1, locks)) < 0) {
		rc = sb_cli_device_error(e);
		goto out_campaign;
	}
	if ((e = sb_store_open(&st, db)) < 0) {
		rc = sb_cli_store_error(e);
		goto out_campaign;
	}
	rctx.pg = pg;
	rctx.c = &c;
	rctx.db = db;
	ro.progress = progress_cb;
	ro.progress_ctx = &rctx;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!pg.quiet)
		fprintf(stderr, "stackbench run: campaign '%s' from '%s': %u points into '%s'\n",
		        c.name, file, c.npoints, db);
	e = sb_campaign_run(&c, st, &ro, &sum);
	pg = rctx.pg;
	if (pg.drawn)
		fputc('\n', stderr);
	if (c.notify.argc) {
		char msg[1024];

		if (e == 0)
			snprintf(
			    msg, sizeof(msg),
			    "campaign %lld complete: %u points (%u run now, %u stored before, %u "
			    "with a thermal failure) in %.1f s",
			    (long long)sum.campaign_id, sum.total, sum.run, sum.skipped, sum.failed,
			    sum.wall_s);
		else
			snprintf(msg, sizeof(msg), "%s",
			         sb_error_detail()[0] ? sb_error_detail() : sb_strerror(e));
		/* Ctrl-C (or SIGTERM) ends a local run: its user stopped it. */
		sb_notify_end(&c, e, true, &sum, db, 0, msg, false);
	}
	if (e == SB_ERR_INTERRUPTED) {
		char qf[8192], qd[8192];

		rc = sb_cli_error(e);
		char qs[48] = "";

		if (ro.shards)
			snprintf(qs, sizeof(qs), " --shard %u/%u", ro.shard, ro.shards);
		fprintf(stderr, "stackbench: continue with: stackbench run %s --db %s%s --resume\n",
		        sb_cli_shell_quote(qf, sizeof(qf), file),
		        sb_cli_shell_quote(qd, sizeof(qd), db), qs);
	} else if (e == SB_ERR_BUSY) {
		/* Another process runs this campaign in the database: exit 3, naming it. */
		rc = sb_cli_device_error(e);
	} else if (e < 0) {
		rc = sb_cli_campaign_error(e, &sum);
	} else {
		char shard[48] = "";

		if (ro.shards)
			snprintf(shard, sizeof(shard), ", shard %u/%u", ro.shard, ro.shards);
		printf("campaign %lld '%s'%s complete: %u points (%u run now, %u stored before, %u "
		       "with "
		       "a thermal failure) in %.1f s\n",
		       (long long)sum.campaign_id, c.name, shard, sum.total, sum.run, sum.skipped,
		       sum.failed, sum.wall_s);
		if (sum.failed)
			printf("thermal failures: %u runs failed, %u recoveries, %u retries\n",
			       sum.failed, sum.recovered, sum.retried);
		printf("results database: %s\n", db);
		rc = SB_EXIT_OK;
	}
	sb_store_close(st);
out_campaign:
	for (unsigned i = 0; i < SB_CAMPAIGN_MAX_DEVICES; i++)
		sb_lock_release(locks[i]);
	sb_campaign_release(&c);
out_opts:
	free(so.opts);
	return rc;
}

const struct sb_cli_command sb_cmd_run = {
    .name = "run",
    .summary = "run or resume a campaign file into a results database",
    .run = run_run,
    .help = run_help,
};
