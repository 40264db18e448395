/* SPDX-License-Identifier: MIT */
/* stackbench dashboard: the URL of stackbenchd's dashboard, with its token. */
#include <stdio.h>

#include <cjson/cJSON.h>

#include "cli.h"

static void dashboard_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench dashboard [--socket PATH]\n"
	        "\n"
	        "Print the URL of stackbenchd's dashboard with its token (every request needs\n"
	        "it); open it in a browser, which keeps the token in a cookie. Only the users the\n"
	        "daemon serves get it. For a bench reached over ssh: ssh -L PORT:127.0.0.1:PORT\n"
	        "bench, then open the URL here.\n"
	        "\n"
	        "      --socket PATH   the daemon's socket (default: $STACKBENCH_SOCKET, your own\n"
	        "                      daemon's, else /run/stackbench/stackbench.sock)\n"
	        "  -h, --help          this help\n"
	        "\n"
	        "Exit codes: 0 printed, 1 the daemon has no dashboard, 3 no daemon.\n");
}

static int dashboard_run(int argc, char **argv)
{
	const char *sock, *url;
	long long id;
	cJSON *req, *reply;
	int rc;

	if ((rc = sb_cli_job_args("dashboard", dashboard_help, argc, argv, true, &sock, &id)) >= 0)
		return rc;
	if (id)
		return sb_cli_usage_error("dashboard", "expected no argument");
	if (!(req = cJSON_CreateObject()))
		return SB_EXIT_FAILURE;
	cJSON_AddStringToObject(req, "cmd", "dashboard");
	if ((rc = sb_cli_daemon_simple("dashboard", sock, req, &reply)) != SB_EXIT_OK)
		return rc;
	url = sb_cli_json_str(reply, "url");
	if (!*url) {
		fprintf(stderr, "stackbench dashboard: the daemon serves no dashboard (--http "
		                "none, or its address was taken)\n");
		rc = SB_EXIT_FAILURE;
	} else {
		printf("%s\n", url);
	}
	cJSON_Delete(reply);
	return rc;
}

const struct sb_cli_command sb_cmd_dashboard = {
    .name = "dashboard",
    .summary = "print the URL of stackbenchd's dashboard, with its token",
    .run = dashboard_run,
    .help = dashboard_help,
};
