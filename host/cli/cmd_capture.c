/* SPDX-License-Identifier: MIT */
/*
 * stackbench capture: an HBM2 point whose AXI bursts are captured into a sampled sbt trace,
 * the pseudo channels as its subpartitions (docs/traces-on-the-board.md, "HBM2 cards"). It
 * takes the HBM2 point's traffic options and the --trace-* settings, and prints only the
 * capture; 'stackbench point --trace' does the same on an HBM2 card (sb_cli_hbm_point_traced)
 * and on the AC-510.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "stackbench/capture.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/hbm.h"
#include "stackbench/lock.h"
#include "stackbench/provenance.h"
#include "stackbench/util.h"

static void capture_help(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbench capture --device sim:u280|URI --trace OUT.sbt [--trace-burst N]\n"
	    "                          [--trace-gap N] [--trace-ports L] [--trace-path P]\n"
	    "                          [--op read|write|mix] [--mix W] [--mode linear|random]\n"
	    "                          [--burst B] [--stride B] [--ws BYTES] [--outstanding N]\n"
	    "                          [--port-set L] [--target local|shiftN|stack]\n"
	    "                          [--duration-us T] [--warmup-us T] [--seed S] [--json]\n"
	    "\n"
	    "Run one point of an HBM2 card's traffic engines (as 'stackbench point --device\n"
	    "sim:u280' does, with the options below) and capture its AXI bursts into a sampled\n"
	    "sbt trace: the pseudo channels (pc0..pc31) are its subpartitions, the ports its\n"
	    "units, times in AXI-clock cycles. 'stackbench lifetimes' and 'locality' read it.\n"
	    "'stackbench point --trace' does the same, on an HBM2 card and on the AC-510.\n"
	    "\n"
	    "      --trace OUT.sbt   the trace to write (required)\n"
	    "      --trace-burst N   records per burst (default 1024; 0: one endless burst)\n"
	    "      --trace-gap N     AXI cycles between bursts (default 15360)\n"
	    "      --trace-ports L   ports recorded, e.g. 0-3,8 (default: all)\n"
	    "      --trace-path P    onchip (register polling; the card has no DMA ring)\n"
	    "      --op O            read (default), write, or mix\n"
	    "      --mix W           mix: writes per 256 transactions (default 128)\n"
	    "      --mode M          linear (default; by --stride) or random offsets\n"
	    "      --burst B         bytes per transaction, 32..4096 in steps of 32 (512)\n"
	    "      --stride B        linear: bytes from one transaction to the next\n"
	    "      --ws BYTES        working set (default: the target's: a PC or the stack)\n"
	    "      --outstanding N   AXI IDs in flight per port, 1..64 (default 64)\n"
	    "      --port-set L      these ports issue, e.g. 0-3,8 (default: all)\n"
	    "      --target T        local (default), shiftN or stack (stackbench point\n"
	    "                        --device sim:u280 --help)\n"
	    "  -D, --duration-us T   measurement window in microseconds (default 200)\n"
	    "      --warmup-us T     bench time before the window (default 20)\n"
	    "      --seed S          seed of the random offsets and the data pattern (1)\n"
	    "  -j, --json            print one JSON object\n");
}

static int print_json(const struct sb_hbm_result *r, const char *path,
                      const struct sb_capture_stats *t, const struct sb_provenance *prov)
{
	cJSON *o = cJSON_CreateObject(), *pj;
	char *text;

	if (!o)
		return SB_EXIT_FAILURE;
	cJSON_AddStringToObject(o, "schema", "stackbench-hbm-capture");
	cJSON_AddStringToObject(o, "schema_version", "1.0");
	cJSON_AddNumberToObject(o, "ports", r->nports);
	cJSON_AddNumberToObject(o, "window_ns", (double)r->window_ns);
	cJSON_AddNumberToObject(o, "bandwidth_gbps", r->gbps);
	cJSON_AddNumberToObject(o, "transactions", (double)r->txns);
	sb_cli_capture_json(o, path, t);
	if ((pj = sb_provenance_cjson(prov)))
		cJSON_AddItemToObject(o, "provenance", pj);
	text = cJSON_Print(o);
	cJSON_Delete(o);
	if (!text)
		return SB_EXIT_FAILURE;
	printf("%s\n", text);
	free(text);
	return SB_EXIT_OK;
}

static int capture_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"device", required_argument, NULL, 'd'},
	    SB_CLI_CAPTURE_OPTIONS,
	    SB_CLI_HBM_TRAFFIC_OPTIONS,
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *uri = sb_cli_default_device(), *port_set = NULL;
	struct sb_cli_capture_opts co = {0};
	struct sb_capture_stats st;
	struct sb_provenance prov;
	struct sb_hbm_result *res = NULL;
	struct sb_hbm_card card;
	struct sb_hbm_spec spec;
	struct sb_device *dev;
	struct sb_lock *lock;
	int c, err, rc, json = 0;

	sb_hbm_spec_init(&spec);
	sb_capture_config_init(&co.cfg);
	while ((c = getopt_long(argc, argv, "D:jh", opts, NULL)) != -1) {
		if ((rc = sb_cli_hbm_traffic_option("capture", c, optarg, &spec, &port_set)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		if ((rc = sb_cli_capture_option("capture", c, optarg, &co)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'd':
			uri = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			capture_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("capture",
			                          "bad option (stackbench capture --help)");
		}
	}
	if (optind != argc)
		return sb_cli_usage_error("capture", "unexpected argument '%s'", argv[optind]);
	if (!co.out)
		return sb_cli_usage_error("capture", "--trace OUT.sbt is required");
	if ((err = sb_board_lock(&lock, uri)) < 0)
		return sb_cli_device_error(err);
	if ((err = sb_device_open(&dev, uri)) < 0) {
		sb_lock_release(lock);
		return sb_cli_device_error(err);
	}
	if (!sb_hbm_is_card(dev)) {
		rc = sb_cli_usage_error("capture",
		                        "'%s' is not an HBM2 card (an AC-510 captures with "
		                        "'stackbench point --trace')",
		                        uri);
		goto out;
	}
	if ((err = sb_hbm_card_read(dev, &card)) < 0) {
		rc = sb_cli_device_error(err);
		goto out;
	}
	if (port_set && sb_hbm_port_set_parse(port_set, card.ports, &spec.port_mask) < 0) {
		rc = sb_cli_usage_error("capture", "--port-set: %s", sb_error_detail());
		goto out;
	}
	res = malloc(sizeof(*res));
	if (!res) {
		rc = sb_cli_error(SB_ERR_NOMEM);
		goto out;
	}
	sb_provenance_init(&prov);
	sb_provenance_now(prov.started_at, sizeof(prov.started_at));
	if ((rc = sb_cli_hbm_point_traced("capture", dev, &spec, &co, res, &st)) != 0)
		goto out;
	sb_provenance_now(prov.finished_at, sizeof(prov.finished_at));
	sb_provenance_device(&prov, dev);
	prov.have_seed = true;
	prov.seed = spec.seed;
	if (json) {
		rc = print_json(res, co.out, &st, &prov);
	} else {
		printf("capture    %s: %u ports, %.2f GB/s over %.1f us\n", uri, res->nports,
		       res->gbps, (double)res->window_ns / 1e3);
		sb_cli_capture_print(co.out, "AXI bursts", &st);
		rc = SB_EXIT_OK;
	}
	if (rc == SB_EXIT_OK && res->errors)
		rc = SB_EXIT_FAILURE;
out:
	free(res);
	sb_device_close(dev);
	sb_lock_release(lock);
	return rc;
}

const struct sb_cli_command sb_cmd_capture = {
    .name = "capture",
    .summary = "capture an HBM2 point's AXI bursts into a sampled trace (sbt)",
    .run = capture_run,
    .help = capture_help,
};
