/* SPDX-License-Identifier: MIT */
/* The client verbs' shared part: find and reach stackbenchd, one request, its reply. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "stackbench/client.h"
#include "stackbench/error.h"

#define REPLY_TIMEOUT_MS 60000

int sb_cli_daemon_connect(const char *cmd, const char *socket_opt, struct sb_client **c)
{
	char path[4096];
	int e;

	if ((e = sb_daemon_socket_path(socket_opt, path, sizeof(path))) < 0 ||
	    (e = sb_client_connect(c, path)) < 0) {
		fprintf(stderr, "stackbench %s: %s\n", cmd, sb_error_detail());
		return e == SB_ERR_RANGE ? SB_EXIT_USAGE : SB_EXIT_DEVICE;
	}
	return SB_EXIT_OK;
}

/* Exit code for an error reply's code. */
static int code_exit(const char *code)
{
	if (!strcmp(code, "bad_campaign"))
		return SB_EXIT_INPUT;
	if (!strcmp(code, "no_board") || !strcmp(code, "busy"))
		return SB_EXIT_DEVICE;
	if (!strcmp(code, "bad_request"))
		return SB_EXIT_USAGE;
	return SB_EXIT_FAILURE;
}

int sb_cli_daemon_reply(const char *cmd, const char *line, cJSON **reply)
{
	cJSON *r = cJSON_Parse(line), *ok, *err, *msg, *code;

	*reply = NULL;
	if (!r || !cJSON_IsObject(r)) {
		cJSON_Delete(r);
		fprintf(stderr, "stackbench %s: the daemon's reply is not JSON\n", cmd);
		return SB_EXIT_FAILURE;
	}
	ok = cJSON_GetObjectItemCaseSensitive(r, "ok");
	if (cJSON_IsTrue(ok)) {
		*reply = r;
		return SB_EXIT_OK;
	}
	err = cJSON_GetObjectItemCaseSensitive(r, "error");
	msg = cJSON_GetObjectItemCaseSensitive(err, "message");
	code = cJSON_GetObjectItemCaseSensitive(err, "code");
	fprintf(stderr, "stackbench %s: %s\n", cmd,
	        cJSON_IsString(msg) ? msg->valuestring : "the daemon refused the request");
	{
		int rc = code_exit(cJSON_IsString(code) ? code->valuestring : "");

		cJSON_Delete(r);
		return rc;
	}
}

int sb_cli_daemon_call(const char *cmd, struct sb_client *c, cJSON *req, cJSON **reply)
{
	char *text, *line;
	int e;

	*reply = NULL;
	cJSON_AddNumberToObject(req, "v", SB_DAEMON_API_VERSION);
	text = cJSON_PrintUnformatted(req);
	if (!text) {
		fprintf(stderr, "stackbench %s: out of memory\n", cmd);
		return SB_EXIT_FAILURE;
	}
	if (strlen(text) > SB_DAEMON_LINE_MAX) {
		fprintf(stderr,
		        "stackbench %s: the request is %zu bytes; the daemon takes at most %u\n",
		        cmd, strlen(text), SB_DAEMON_LINE_MAX);
		cJSON_free(text);
		return SB_EXIT_INPUT;
	}
	e = sb_client_request(c, text, &line, REPLY_TIMEOUT_MS);
	cJSON_free(text);
	if (e < 0) {
		fprintf(stderr, "stackbench %s: %s\n", cmd, sb_error_detail());
		return SB_EXIT_FAILURE;
	}
	return sb_cli_daemon_reply(cmd, line, reply);
}

int sb_cli_daemon_simple(const char *cmd, const char *socket_opt, cJSON *req, cJSON **reply)
{
	struct sb_client *c;
	int rc = sb_cli_daemon_connect(cmd, socket_opt, &c);

	*reply = NULL;
	if (rc == SB_EXIT_OK)
		rc = sb_cli_daemon_call(cmd, c, req, reply);
	sb_client_close(c);
	cJSON_Delete(req);
	return rc;
}

const char *sb_cli_json_str(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsString(v) && v->valuestring ? v->valuestring : "";
}

double sb_cli_json_num(const cJSON *o, const char *name, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

int sb_cli_job_args(const char *cmd, void (*help)(FILE *), int argc, char **argv, bool id_optional,
                    const char **sock, long long *id)
{
	static const struct option opts[] = {
	    {"socket", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	char *end;
	int ch;

	*sock = NULL;
	*id = 0;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 's':
			*sock = optarg;
			break;
		case 'h':
			help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error(cmd, "bad option");
		}
	}
	if (argc - optind > 1 || (argc - optind == 0 && !id_optional))
		return sb_cli_usage_error(cmd, "expected %sone job ID",
		                          id_optional ? "at most " : "");
	if (optind < argc) {
		*id = strtoll(argv[optind], &end, 10);
		if (*end || end == argv[optind] || *id < 1)
			return sb_cli_usage_error(cmd, "'%s' is not a job ID", argv[optind]);
	}
	return -1;
}
