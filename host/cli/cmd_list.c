/* SPDX-License-Identifier: MIT */
/* stackbench list: the campaigns of a results database. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "stackbench/error.h"
#include "stackbench/store.h"

static void list_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench list [--db PATH] [--json]\n"
	        "\n"
	        "List the campaigns of a results database: id, name, status, points stored of\n"
	        "points in all, start and finish time (UTC), content hash and campaign file.\n"
	        "A shard of a campaign (run --shard I/N) shows as 'NAME [I/N]' with its points.\n"
	        "\n"
	        "  -d, --db PATH   results database (default: $STACKBENCH_DB or stackbench.db)\n"
	        "  -j, --json      one JSON object: schema_version and the campaigns\n"
	        "  -h, --help      this help\n");
}

static int print_campaign(void *ctx, const struct sb_store_campaign *c)
{
	unsigned *n = ctx;

	if (!(*n)++)
		printf("%-4s %-20s %-9s %-11s %-24s %-24s %-16s %s\n", "ID", "NAME", "STATUS",
		       "POINTS", "STARTED", "FINISHED", "HASH", "FILE");
	if (c->shards) {
		/* a shard: its points of the campaign's, and which shard */
		char name[SB_CAMPAIGN_NAME_MAX + 24];

		snprintf(name, sizeof(name), "%s [%u/%u]", c->name, c->shard, c->shards);
		printf("%-4lld %-20s %-9s %5u/%-5u %-24s %-24s %-16s %s\n", (long long)c->id, name,
		       c->status, c->points_done, c->shard_points, c->created_at,
		       c->finished_at[0] ? c->finished_at : "-", c->hash, c->file);
		return 0;
	}
	printf("%-4lld %-20s %-9s %5u/%-5u %-24s %-24s %-16s %s\n", (long long)c->id, c->name,
	       c->status, c->points_done, c->points_total, c->created_at,
	       c->finished_at[0] ? c->finished_at : "-", c->hash, c->file);
	return 0;
}

static int json_campaign(void *ctx, const struct sb_store_campaign *c)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	cJSON_AddNumberToObject(o, "id", (double)c->id);
	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "status", c->status);
	cJSON_AddNumberToObject(o, "points_done", c->points_done);
	cJSON_AddNumberToObject(o, "points_total", c->points_total);
	cJSON_AddStringToObject(o, "created_at", c->created_at);
	if (c->finished_at[0])
		cJSON_AddStringToObject(o, "finished_at", c->finished_at);
	else
		cJSON_AddNullToObject(o, "finished_at");
	cJSON_AddStringToObject(o, "hash", c->hash);
	cJSON_AddStringToObject(o, "file", c->file);
	if (c->shards) {
		char shard[32];

		snprintf(shard, sizeof(shard), "%u/%u", c->shard, c->shards);
		cJSON_AddStringToObject(o, "shard", shard);
		cJSON_AddNumberToObject(o, "shard_points", c->shard_points);
	} else {
		cJSON_AddNullToObject(o, "shard");
		cJSON_AddNullToObject(o, "shard_points");
	}
	cJSON_AddItemToArray(ctx, o);
	return 0;
}

/* The campaigns as JSON on stdout. */
static int list_json(struct sb_store *st)
{
	cJSON *root = cJSON_CreateObject(), *arr;
	char *text;
	int e;

	if (!root || !(arr = cJSON_AddArrayToObject(root, "campaigns"))) {
		cJSON_Delete(root);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	{
		char v[16];

		cJSON_AddStringToObject(root, "schema", "stackbench-campaigns");
		snprintf(v, sizeof(v), "%d.0", sb_store_schema_version(st));
		cJSON_AddStringToObject(root, "schema_version", v);
	}
	if ((e = sb_store_campaign_list(st, json_campaign, arr)) < 0) {
		cJSON_Delete(root);
		return e;
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	printf("%s\n", text);
	free(text);
	return 0;
}

static int list_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *db = sb_cli_default_db();
	struct sb_store *st;
	bool json = false;
	unsigned n = 0;
	int c, e;

	while ((c = getopt_long(argc, argv, "d:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			list_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("list", "bad option");
		}
	}
	if (optind != argc)
		return sb_cli_usage_error("list", "unexpected argument '%s'", argv[optind]);
	if ((e = sb_store_open_readonly(&st, db)) < 0)
		return sb_cli_store_error(e);
	e = json ? list_json(st) : sb_store_campaign_list(st, print_campaign, &n);
	sb_store_close(st);
	if (e < 0)
		return sb_cli_error(e);
	if (!n && !json)
		printf("no campaigns in '%s'\n", db);
	return SB_EXIT_OK;
}

const struct sb_cli_command sb_cmd_list = {
    .name = "list",
    .summary = "list the campaigns of a results database",
    .run = list_run,
    .help = list_help,
};
