/* SPDX-License-Identifier: MIT */
/*
 * stackbench follow: watch stackbenchd's jobs live, with the progress line of `stackbench
 * run` (on stderr: a bar on a terminal, one line per point otherwise).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "stackbench/campaign.h"
#include "stackbench/client.h"
#include "stackbench/error.h"

static void follow_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench follow [ID] [--socket PATH]\n"
	        "\n"
	        "Follow a job of stackbenchd (or, without ID, all of them) live: the progress of\n"
	        "`stackbench run` for every point stored, and the jobs' state changes. With ID,\n"
	        "ends when the job does: exit 0 when its campaign is complete, 1 when it failed\n"
	        "or was cancelled.\n"
	        "\n"
	        "      --socket PATH   the daemon's socket (default: $STACKBENCH_SOCKET, your own\n"
	        "                      daemon's, else /run/stackbench/stackbench.sock)\n"
	        "  -h, --help          this help\n");
}

struct follow {
	long long job; /* 0: every job */
	bool tty;
	struct sb_cli_progress pg;
	char cmd[48]; /* what the progress lines start with */
};

/* The point as the daemon describes it (the same fields a campaign's point has). */
static void point_from(const cJSON *ev, struct sb_campaign_point *p)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(ev, "point");
	const cJSON *lo = cJSON_GetObjectItemCaseSensitive(x, "mask_lo");

	memset(p, 0, sizeof(*p));
	p->index = (unsigned)sb_cli_json_num(ev, "index", 0);
	snprintf(p->key, sizeof(p->key), "%s", sb_cli_json_str(ev, "key"));
	snprintf(p->cooling, sizeof(p->cooling), "%s", sb_cli_json_str(x, "cooling"));
	p->rep = (unsigned)sb_cli_json_num(x, "rep", 0);
	if (sb_req_type_parse(sb_cli_json_str(x, "type"), &p->type) < 0)
		p->type = SB_REQ_RO;
	p->size = (unsigned)sb_cli_json_num(x, "size", 0);
	snprintf(p->pattern, sizeof(p->pattern), "%s", sb_cli_json_str(x, "pattern"));
	p->mode = strcmp(sb_cli_json_str(x, "mode"), "linear") ? SB_GEN_RANDOM : SB_GEN_LINEAR;
	p->addr_mode = (unsigned)sb_cli_json_num(x, "addr_mode", 0);
	p->ports = (unsigned)sb_cli_json_num(x, "ports", 0);
	p->idle = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "idle"));
	p->stream = (unsigned)sb_cli_json_num(x, "stream", 0);
	p->mask_lo = cJSON_IsNumber(lo) ? (int)lo->valuedouble : -1;
	p->mask_width = (unsigned)sb_cli_json_num(x, "mask_width", 0);
	/* an HBM2 card's point: its engine settings (described as stackbench run does) */
	snprintf(p->port_set, sizeof(p->port_set), "%s", sb_cli_json_str(x, "port_set"));
	if (p->port_set[0]) {
		struct sb_hbm_spec *h = &p->hbm;

		sb_hbm_spec_init(h);
		if (sb_hbm_rw_parse(sb_cli_json_str(x, "op"), &h->rw) < 0)
			h->rw = SB_HBM_RW_READ;
		h->random = p->mode == SB_GEN_RANDOM;
		h->mix_writes = (unsigned)sb_cli_json_num(x, "mix", 128);
		h->ws = (uint64_t)sb_cli_json_num(x, "ws", 0);
		h->burst = (uint32_t)sb_cli_json_num(x, "burst", 0);
		h->stride = (uint32_t)sb_cli_json_num(x, "stride", 0);
		h->outstanding = (unsigned)sb_cli_json_num(x, "outstanding", 0);
		if (sb_hbm_target_parse(sb_cli_json_str(x, "target"), &h->target) < 0)
			h->target.kind = SB_HBM_TARGET_LOCAL;
		h->addr_map = (int)sb_cli_json_num(x, "policy", -1);
		h->closed_page = (int)sb_cli_json_num(x, "page", -1);
		h->refresh = (int)sb_cli_json_num(x, "refresh", -1);
		h->temp_c = sb_cli_json_num(x, "temp", 0);
	}
}

static void end_bar(struct follow *f)
{
	if (f->pg.drawn) {
		fputc('\n', stderr);
		f->pg.drawn = false;
	}
}

/* Handle one event; returns an exit code when following ends, else -1. */
static int on_event(struct follow *f, const cJSON *ev)
{
	const char *kind = sb_cli_json_str(ev, "event");
	long long job = (long long)sb_cli_json_num(ev, "job", 0);

	if (f->job && job && job != f->job)
		return -1;
	/* Several jobs: say which one each line is about. */
	if (f->job)
		snprintf(f->cmd, sizeof(f->cmd), "follow");
	else
		snprintf(f->cmd, sizeof(f->cmd), "follow: job %lld", job);
	f->pg.cmd = f->cmd;
	if (!strcmp(kind, "campaign") || !strcmp(kind, "point_finished")) {
		struct sb_campaign_point p;
		struct sb_run_progress pr = {
		    .done = (unsigned)sb_cli_json_num(ev, "done", 0),
		    .total = (unsigned)sb_cli_json_num(ev, "total", 0),
		    .done_run = (unsigned)sb_cli_json_num(ev, "done_run", 0),
		    .elapsed_s = sb_cli_json_num(ev, "elapsed_s", 0),
		    .eta_s = sb_cli_json_num(ev, "eta_s", -1),
		    .last_bandwidth_gbps = sb_cli_json_num(ev, "bandwidth_gbps", 0),
		    .last_mrps = sb_cli_json_num(ev, "mrps", 0),
		    .last_latency_avg_ns = sb_cli_json_num(ev, "latency_avg_ns", 0),
		    .last_temp_c = sb_cli_json_num(ev, "temp_c", NAN),
		    .last_power_w = sb_cli_json_num(ev, "power_w", NAN),
		    .last_attempt = (unsigned)sb_cli_json_num(ev, "attempt", 0),
		    .last_failed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "failed")),
		    .last_rig_fault =
		        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "rig_fault")),
		};

		if (!strcmp(kind, "point_finished")) {
			point_from(ev, &p);
			pr.last = &p;
			pr.device = sb_cli_json_str(ev, "device");
		} else {
			end_bar(f);
		}
		sb_cli_progress_show(&f->pg, &pr);
		return -1;
	}
	if (!strcmp(kind, "job")) {
		const char *state = sb_cli_json_str(ev, "state"),
		           *msg = sb_cli_json_str(ev, "message");

		end_bar(f);
		fprintf(stderr, "stackbench follow: job %lld '%s' %s%s%s\n", job,
		        sb_cli_json_str(ev, "name"), state, *msg ? ": " : "", msg);
		if (f->job && !strcmp(state, "done"))
			return SB_EXIT_OK;
		if (f->job && (!strcmp(state, "failed") || !strcmp(state, "cancelled")))
			return SB_EXIT_FAILURE;
		return -1;
	}
	if (!strcmp(kind, "dropped")) {
		end_bar(f);
		fprintf(stderr,
		        "stackbench follow: %.0f events skipped (this terminal fell behind)\n",
		        sb_cli_json_num(ev, "count", 0));
	}
	return -1;
}

static int follow_run(int argc, char **argv)
{
	struct follow f = {.tty = isatty(STDERR_FILENO)};
	const char *sock;
	struct sb_client *c;
	cJSON *req, *reply, *job;
	int rc;

	if ((rc = sb_cli_job_args("follow", follow_help, argc, argv, true, &sock, &f.job)) >= 0)
		return rc;
	/* A bar for one job on a terminal; lines otherwise (several jobs would interleave). */
	f.pg.tty = f.tty && f.job;
	if ((rc = sb_cli_daemon_connect("follow", sock, &c)) != SB_EXIT_OK)
		return rc;
	if (!(req = cJSON_CreateObject())) {
		sb_client_close(c);
		return SB_EXIT_FAILURE;
	}
	cJSON_AddStringToObject(req, "cmd", "follow");
	if (f.job)
		cJSON_AddNumberToObject(req, "job", (double)f.job);
	rc = sb_cli_daemon_call("follow", c, req, &reply);
	cJSON_Delete(req);
	if (rc != SB_EXIT_OK) {
		sb_client_close(c);
		return rc;
	}
	job = cJSON_GetObjectItemCaseSensitive(reply, "job");
	if (job) {
		const char *state = sb_cli_json_str(job, "state");

		fprintf(stderr, "stackbench follow: job %lld '%s' %s, %.0f of %.0f points stored\n",
		        f.job, sb_cli_json_str(job, "name"), state,
		        sb_cli_json_num(job, "points_done", 0),
		        sb_cli_json_num(job, "points_total", 0));
		/* Already over: nothing will come. */
		if (!strcmp(state, "done") || !strcmp(state, "failed") ||
		    !strcmp(state, "cancelled")) {
			const char *msg = sb_cli_json_str(job, "message");

			if (*msg)
				fprintf(stderr, "stackbench follow: %s\n", msg);
			cJSON_Delete(reply);
			sb_client_close(c);
			return strcmp(state, "done") ? SB_EXIT_FAILURE : SB_EXIT_OK;
		}
	}
	cJSON_Delete(reply);
	for (rc = -1; rc < 0;) {
		char *line;
		int e = sb_client_read(c, &line, -1);
		cJSON *ev;

		if (e < 0) {
			end_bar(&f);
			fprintf(stderr, "stackbench follow: %s\n",
			        e == SB_ERR_NOT_FOUND
			            ? "the daemon closed the connection (stopped?)"
			            : sb_error_detail());
			rc = SB_EXIT_FAILURE;
			break;
		}
		if (!(ev = cJSON_Parse(line)))
			continue;
		rc = on_event(&f, ev);
		cJSON_Delete(ev);
	}
	end_bar(&f);
	sb_client_close(c);
	return rc;
}

const struct sb_cli_command sb_cmd_follow = {
    .name = "follow",
    .summary = "follow stackbenchd's jobs live (the progress of run)",
    .run = follow_run,
    .help = follow_help,
};
