/* SPDX-License-Identifier: MIT */
/* The trace-capture options shared by 'stackbench point', 'replay' and 'capture', and what
 * they print about the capture. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "stackbench/error.h"
#include "stackbench/util.h"

int sb_cli_capture_option(const char *cmd, int c, const char *arg, struct sb_cli_capture_opts *o)
{
	uint64_t v;

	switch (c) {
	case SB_CLI_OPT_CAPTURE:
		o->out = arg;
		return 0;
	case SB_CLI_OPT_CAPTURE_BURST:
	case SB_CLI_OPT_CAPTURE_GAP: {
		const char *name = c == SB_CLI_OPT_CAPTURE_GAP ? "--trace-gap" : "--trace-burst";

		if (sb_parse_u64(arg, name, false, &v) < 0 || v > UINT32_MAX)
			return sb_cli_usage_error(cmd, "%s %s: 0..%u", name, arg, UINT32_MAX);
		if (c == SB_CLI_OPT_CAPTURE_GAP)
			o->cfg.gap_cycles = (uint32_t)v;
		else
			o->cfg.burst_records = (uint32_t)v;
		break;
	}
	case SB_CLI_OPT_CAPTURE_PORTS:
		if (sb_capture_parse_ports(arg, &o->cfg.port_mask) < 0)
			return sb_cli_usage_error(cmd, "--trace-ports: %s", sb_error_detail());
		break;
	case SB_CLI_OPT_CAPTURE_BANKS:
		o->cfg.banks = true;
		break;
	case SB_CLI_OPT_CAPTURE_PATH:
		if (!strcmp(arg, "onchip"))
			o->cfg.path = SB_CAPTURE_ONCHIP;
		else if (!strcmp(arg, "dma"))
			o->cfg.path = SB_CAPTURE_DMA;
		else
			return sb_cli_usage_error(cmd, "--trace-path %s: onchip or dma", arg);
		break;
	default:
		return -1;
	}
	o->settings = true;
	return 0;
}

int sb_cli_capture_check(const char *cmd, const struct sb_cli_capture_opts *o)
{
	if (o->settings && !o->out)
		return sb_cli_usage_error(cmd, "the --trace-* options need --trace OUT.sbt");
	return 0;
}

void sb_cli_capture_print(const char *path, const char *what, const struct sb_capture_stats *t)
{
	printf("trace      %s: %llu records of %llu %s executed (density %.4f), %llu "
	       "bursts\n",
	       path, (unsigned long long)t->records, (unsigned long long)t->executed, what,
	       t->density, (unsigned long long)t->bursts);
	if (t->dropped || t->corrupt || t->late)
		printf("trace lost %llu records (%llu dropped by the board in %llu bursts, %llu "
		       "corrupt, %llu late)\n",
		       (unsigned long long)(t->dropped + t->corrupt + t->late),
		       (unsigned long long)t->dropped, (unsigned long long)t->lost_bursts,
		       (unsigned long long)t->corrupt, (unsigned long long)t->late);
}

void sb_cli_capture_json(cJSON *o, const char *path, const struct sb_capture_stats *t)
{
	cJSON *j;

	if (!path) {
		cJSON_AddNullToObject(o, "trace");
		return;
	}
	j = cJSON_AddObjectToObject(o, "trace");
	cJSON_AddStringToObject(j, "file", path);
	cJSON_AddStringToObject(j, "path", t->path == SB_CAPTURE_DMA ? "dma" : "onchip");
	cJSON_AddNumberToObject(j, "records", (double)t->records);
	cJSON_AddNumberToObject(j, "executed", (double)t->executed);
	cJSON_AddNumberToObject(j, "density", t->density);
	cJSON_AddNumberToObject(j, "bursts", (double)t->bursts);
	cJSON_AddNumberToObject(j, "lost_records", (double)(t->dropped + t->corrupt + t->late));
	cJSON_AddNumberToObject(j, "lost_bursts", (double)t->lost_bursts);
	cJSON_AddNumberToObject(j, "drains", (double)t->polls);
}
