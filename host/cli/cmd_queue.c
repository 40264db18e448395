/* SPDX-License-Identifier: MIT */
/* stackbench queue: stackbenchd's jobs. */
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"

enum { OPT_SOCKET = 0x200 };

static void queue_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench queue [--json] [--all] [--socket PATH]\n"
	        "\n"
	        "List stackbenchd's jobs: running, then queued and paused by priority, then\n"
	        "the latest finished ones.\n"
	        "\n"
	        "  -j, --json          print the daemon's answer (a JSON array of jobs)\n"
	        "  -a, --all           every finished job the daemon keeps (not only 20)\n"
	        "      --socket PATH   the daemon's socket (default: $STACKBENCH_SOCKET, your\n"
	        "                      own daemon's, else /run/stackbench/stackbench.sock)\n"
	        "  -h, --help          this help\n");
}

static void user_name(double uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid((uid_t)uid);

	if (pw)
		snprintf(buf, size, "%s", pw->pw_name);
	else
		snprintf(buf, size, "%.0f", uid);
}

static int queue_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"all", no_argument, NULL, 'a'},
	    {"socket", required_argument, NULL, OPT_SOCKET},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *sock = NULL;
	bool json = false, all = false;
	cJSON *req, *reply, *jobs, *j;
	int ch, rc;

	while ((ch = getopt_long(argc, argv, "jah", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = true;
			break;
		case 'a':
			all = true;
			break;
		case OPT_SOCKET:
			sock = optarg;
			break;
		case 'h':
			queue_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("queue", "bad option");
		}
	}
	if (optind < argc)
		return sb_cli_usage_error("queue", "unexpected argument '%s'", argv[optind]);
	if (!(req = cJSON_CreateObject()))
		return SB_EXIT_FAILURE;
	cJSON_AddStringToObject(req, "cmd", "queue");
	cJSON_AddBoolToObject(req, "all", all);
	if ((rc = sb_cli_daemon_simple("queue", sock, req, &reply)) != SB_EXIT_OK)
		return rc;
	jobs = cJSON_GetObjectItemCaseSensitive(reply, "jobs");
	if (json) {
		char *text = cJSON_Print(jobs);

		printf("%s\n", text ? text : "[]");
		cJSON_free(text);
		cJSON_Delete(reply);
		return SB_EXIT_OK;
	}
	printf("%5s  %-9s %4s  %-11s %-20s %-10s %-20s %s\n", "JOB", "STATE", "PRI", "POINTS",
	       "CAMPAIGN", "USER", "SUBMITTED", "DATABASE");
	cJSON_ArrayForEach(j, jobs)
	{
		char points[32], user[32];
		const char *msg = sb_cli_json_str(j, "message");

		snprintf(points, sizeof(points), "%.0f/%.0f", sb_cli_json_num(j, "points_done", 0),
		         sb_cli_json_num(j, "points_total", 0));
		user_name(sb_cli_json_num(j, "uid", 0), user, sizeof(user));
		printf("%5.0f  %-9s %4.0f  %-11s %-20s %-10s %-20s %s\n",
		       sb_cli_json_num(j, "id", 0), sb_cli_json_str(j, "state"),
		       sb_cli_json_num(j, "priority", 0), points, sb_cli_json_str(j, "name"), user,
		       sb_cli_json_str(j, "submitted_at"), sb_cli_json_str(j, "db"));
		if (*msg && strcmp(sb_cli_json_str(j, "state"), "done"))
			printf("       %s\n", msg);
	}
	cJSON_Delete(reply);
	return SB_EXIT_OK;
}

const struct sb_cli_command sb_cmd_queue = {
    .name = "queue",
    .summary = "list stackbenchd's jobs",
    .run = queue_run,
    .help = queue_help,
};
