/* SPDX-License-Identifier: MIT */
/* stackbench cancel, pause, resume: control a job of stackbenchd. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"

static void control_help(FILE *out, const char *cmd, const char *what)
{
	fprintf(out,
	        "usage: stackbench %s ID [--socket PATH]\n"
	        "\n"
	        "%s\n"
	        "Only the job's owner, root and the daemon's user may.\n"
	        "\n"
	        "      --socket PATH   the daemon's socket (default: $STACKBENCH_SOCKET, your own\n"
	        "                      daemon's, else /run/stackbench/stackbench.sock)\n"
	        "  -h, --help          this help\n",
	        cmd, what);
}

static const char cancel_text[] =
    "Cancel a job: a queued or paused one never runs; a running one stops at once, the point\n"
    "in progress is not stored (the campaign stays resumable with 'stackbench run FILE --db\n"
    "DB --resume').";
static const char pause_text[] =
    "Pause a job: a running one finishes the points in progress, stores them and starts no\n"
    "other (its boards go to the next job); a queued one is held. 'stackbench resume ID'\n"
    "queues it again; it continues where it stopped.";
static const char resume_text[] = "Queue a paused job again (or keep a pausing one running).";

static void cancel_help(FILE *out)
{
	control_help(out, "cancel", cancel_text);
}

static void pause_help(FILE *out)
{
	control_help(out, "pause", pause_text);
}

static void resume_help(FILE *out)
{
	control_help(out, "resume", resume_text);
}

static int control_run(const char *cmd, void (*help)(FILE *), int argc, char **argv)
{
	const char *sock;
	cJSON *req, *reply, *job;
	long long id;
	int rc;

	if ((rc = sb_cli_job_args(cmd, help, argc, argv, false, &sock, &id)) >= 0)
		return rc;
	if (!(req = cJSON_CreateObject()))
		return SB_EXIT_FAILURE;
	cJSON_AddStringToObject(req, "cmd", cmd);
	cJSON_AddNumberToObject(req, "job", (double)id);
	if ((rc = sb_cli_daemon_simple(cmd, sock, req, &reply)) != SB_EXIT_OK)
		return rc;
	job = cJSON_GetObjectItemCaseSensitive(reply, "job");
	if (!strcmp(sb_cli_json_str(job, "state"), "running"))
		printf("job %lld '%s': %s requested; it takes effect %s\n", id,
		       sb_cli_json_str(job, "name"), cmd,
		       strcmp(cmd, "cancel") ? "after the points in progress"
		                             : "with the current sample");
	else
		printf("job %lld '%s': %s\n", id, sb_cli_json_str(job, "name"),
		       sb_cli_json_str(job, "state"));
	cJSON_Delete(reply);
	return SB_EXIT_OK;
}

static int cancel_run(int argc, char **argv)
{
	return control_run("cancel", cancel_help, argc, argv);
}

static int pause_run(int argc, char **argv)
{
	return control_run("pause", pause_help, argc, argv);
}

static int resume_run(int argc, char **argv)
{
	return control_run("resume", resume_help, argc, argv);
}

const struct sb_cli_command sb_cmd_cancel = {
    .name = "cancel",
    .summary = "cancel a job of stackbenchd",
    .run = cancel_run,
    .help = cancel_help,
};

const struct sb_cli_command sb_cmd_pause = {
    .name = "pause",
    .summary = "pause a job of stackbenchd (between points)",
    .run = pause_run,
    .help = pause_help,
};

const struct sb_cli_command sb_cmd_resume = {
    .name = "resume",
    .summary = "queue a paused job of stackbenchd again",
    .run = resume_run,
    .help = resume_help,
};
