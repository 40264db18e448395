/* SPDX-License-Identifier: MIT */
/* stackbench submit: queue a campaign file on stackbenchd. */
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "stackbench/error.h"
#include "stackbench/util.h"

enum { OPT_SOCKET = 0x200, OPT_PRIORITY };

static void submit_help(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbench submit FILE [--db PATH] [--priority N] [--jobs N]\n"
	    "                         [--socket PATH]\n"
	    "\n"
	    "Queue a campaign file (YAML; docs/campaigns.md) on stackbenchd, which runs it on\n"
	    "its boards into the results database, as you, and resumes it after its own\n"
	    "restarts. Before it is queued, a process of the daemon's running as you reads the\n"
	    "campaign and the files it names and checks the database: a campaign it refuses,\n"
	    "or a database you cannot write or whose folder does not exist, is not queued.\n"
	    "Prints the job's id on stdout (follow it with 'stackbench follow ID').\n"
	    "\n"
	    "  -d, --db PATH       results database (default: $STACKBENCH_DB or stackbench.db,\n"
	    "                      relative to this folder); you must be able to write it\n"
	    "      --priority N    higher runs first (-1000..1000, default 0)\n"
	    "  -J, --jobs N        workers: N boards of the daemon in parallel (default 1)\n"
	    "      --socket PATH   the daemon's socket (default: $STACKBENCH_SOCKET, your own\n"
	    "                      daemon's, else /run/stackbench/stackbench.sock)\n"
	    "  -h, --help          this help\n"
	    "\n"
	    "Exit codes: 0 queued, 1 refused (not permitted, too long, checks timed out), 2 a\n"
	    "bad database path, 3 no daemon, no board for the campaign or a limit reached, 4\n"
	    "the campaign file is refused (its file, line and key are named).\n");
}

/* An absolute path for the daemon (which does not share our current folder). */
static int absolute(const char *path, char *out, size_t size)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return snprintf(out, size, "%s", path) < (int)size ? 0 : -1;
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	return snprintf(out, size, "%s/%s", cwd, path) < (int)size ? 0 : -1;
}

/* "DEV:INO" of the folder of path (what the daemon compares with what it sees). */
static int db_dir_id(const char *path, char *buf, size_t size)
{
	char dir[PATH_MAX];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	if (stat(dirname(dir), &st) < 0)
		return -1;
	snprintf(buf, size, "%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
	return 0;
}

static int submit_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},   {"priority", required_argument, NULL, 'p'},
	    {"jobs", required_argument, NULL, 'j'}, {"socket", required_argument, NULL, OPT_SOCKET},
	    {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
	};
	const char *db = sb_cli_default_db(), *sock = NULL;
	char dbabs[PATH_MAX], fileabs[PATH_MAX], dirid[48], *text;
	cJSON *req, *reply, *job;
	long long prio = 0, jobs = 1;
	size_t len;
	mode_t mask;
	int ch, rc;

	while ((ch = getopt_long(argc, argv, "d:J:h", opts, NULL)) != -1) {
		char *end;

		switch (ch) {
		case 'd':
			db = optarg;
			break;
		case 'p':
			prio = strtoll(optarg, &end, 10);
			if (*end || end == optarg || prio < -1000 || prio > 1000)
				return sb_cli_usage_error("submit", "--priority %s: -1000..1000",
				                          optarg);
			break;
		case 'J':
			jobs = strtoll(optarg, &end, 10);
			if (*end || end == optarg || jobs < 1 || jobs > 16)
				return sb_cli_usage_error("submit", "--jobs %s: 1..16", optarg);
			break;
		case OPT_SOCKET:
			sock = optarg;
			break;
		case 'h':
			submit_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("submit", "bad option");
		}
	}
	if (argc - optind != 1)
		return sb_cli_usage_error("submit", "expected one campaign FILE");
	if (absolute(db, dbabs, sizeof(dbabs)) < 0)
		return sb_cli_usage_error("submit", "--db '%s': path too long", db);
	if (!realpath(argv[optind], fileabs))
		snprintf(fileabs, sizeof(fileabs), "%s", argv[optind]);
	if (sb_read_file(argv[optind], &text, &len) < 0) {
		fprintf(stderr, "stackbench submit: %s\n", sb_error_detail());
		return SB_EXIT_INPUT;
	}
	if (!(req = cJSON_CreateObject())) {
		free(text);
		return SB_EXIT_FAILURE;
	}
	cJSON_AddStringToObject(req, "cmd", "submit");
	cJSON_AddStringToObject(req, "campaign", text);
	/* The file name as stored in the campaign (and for its default name): up to 255 bytes. */
	cJSON_AddStringToObject(req, "file", strlen(fileabs) < 256 ? fileabs : argv[optind]);
	cJSON_AddStringToObject(req, "db", dbabs);
	/* The database's folder as we see it: a daemon with a private /tmp sees another. */
	if (db_dir_id(dbabs, dirid, sizeof(dirid)) == 0)
		cJSON_AddStringToObject(req, "db_dir_id", dirid);
	cJSON_AddNumberToObject(req, "priority", (double)prio);
	cJSON_AddNumberToObject(req, "jobs", (double)jobs);
	/* The job makes files as we would: with our mask. */
	mask = umask(0);
	umask(mask);
	cJSON_AddNumberToObject(req, "umask", mask & 0777);
	free(text);
	if ((rc = sb_cli_daemon_simple("submit", sock, req, &reply)) != SB_EXIT_OK)
		return rc;
	job = cJSON_GetObjectItemCaseSensitive(reply, "job");
	printf("%.0f\n", sb_cli_json_num(job, "id", 0));
	fprintf(stderr, "stackbench submit: job %.0f: campaign '%s' (%.0f points) into '%s': %s\n",
	        sb_cli_json_num(job, "id", 0), sb_cli_json_str(job, "name"),
	        sb_cli_json_num(job, "points_total", 0), sb_cli_json_str(job, "db"),
	        sb_cli_json_str(job, "state"));
	cJSON_Delete(reply);
	return SB_EXIT_OK;
}

const struct sb_cli_command sb_cmd_submit = {
    .name = "submit",
    .summary = "queue a campaign file on stackbenchd (prints the job id)",
    .run = submit_run,
    .help = submit_help,
};
