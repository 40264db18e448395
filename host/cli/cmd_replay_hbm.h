/* SPDX-License-Identifier: MIT */
/* stackbench replay on an HBM2 card (cmd_replay_hbm.c), handed over by cmd_replay.c. */
#ifndef SB_CLI_CMD_REPLAY_HBM_H
#define SB_CLI_CMD_REPLAY_HBM_H

#include <cjson/cJSON.h>

#include "cli.h"
#include "stackbench/replay.h"

struct sb_cli_replay_hbm {
	struct sb_device *dev;        /* open and locked by the caller */
	struct sb_trace_reader *r;    /* the trace; replaced (reopened) here, freed by the caller */
	struct sb_replay_config *cfg; /* replay's options */
	struct sb_cli_capture_opts *co; /* --trace */
	struct sb_cli_trace_opts *to;   /* how to open the inputs again */
	char *const *inputs;
	int ninputs;
	const char *json; /* --json OUT or NULL */
};

/* Check the whole trace, replay it, print / write JSON; returns the exit code. */
int sb_cli_replay_hbm(struct sb_cli_replay_hbm *h);

/* Write a JSON object atomically to out ('-': standard output) (cmd_replay.c). */
int sb_cli_replay_write_json(const char *out, cJSON *o);

#endif /* SB_CLI_CMD_REPLAY_HBM_H */
