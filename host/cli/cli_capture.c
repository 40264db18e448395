/* SPDX-License-Identifier: MIT */
/* The trace-capture options shared by 'stackbench point' and 'stackbench replay'. */
#include <string.h>

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
