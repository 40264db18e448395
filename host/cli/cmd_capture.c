/* SPDX-License-Identifier: MIT */
/*
 * stackbench capture: an HBM2 point whose AXI bursts are captured into a sampled sbt trace,
 * the pseudo channels as its subpartitions (docs/traces-on-the-board.md, "HBM2 cards"). The
 * AC-510 captures with 'stackbench point --trace'; this command takes the HBM2 point's
 * traffic options and the same --trace-* settings.
 */
#include <getopt.h>
#include <math.h>
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
	    "On the AC-510, capture with 'stackbench point --trace'.\n"
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

enum {
	OPT_OP = 400,
	OPT_MIX,
	OPT_MODE,
	OPT_BURST,
	OPT_STRIDE,
	OPT_WS,
	OPT_OUT,
	OPT_PORT_SET,
	OPT_TARGET,
	OPT_WARMUP,
	OPT_SEED,
};

static int us_arg(const char *arg, const char *what, uint64_t *ns)
{
	double d;

	if (sb_parse_double(arg, what, &d) < 0 || !(d >= 0) || d > 1e9)
		return sb_cli_usage_error("capture", "%s %s: microseconds", what, arg);
	*ns = (uint64_t)llround(d * 1e3);
	return 0;
}

/* One traffic option into the spec: 0, an exit code, or -1 when c is not one. */
static int traffic_option(int c, const char *arg, struct sb_hbm_spec *s, const char **port_set)
{
	uint64_t v;

	switch (c) {
	case OPT_OP:
		if (sb_hbm_rw_parse(arg, &s->rw) < 0)
			return sb_cli_usage_error("capture", "--op: %s", sb_error_detail());
		return 0;
	case OPT_MIX:
		if (sb_parse_u64(arg, "--mix", true, &v) < 0 || v > 256)
			return sb_cli_usage_error("capture", "--mix %s: 0..256", arg);
		s->mix_writes = (unsigned)v;
		return 0;
	case OPT_MODE:
		if (strcmp(arg, "linear") && strcmp(arg, "random"))
			return sb_cli_usage_error("capture", "--mode %s: linear or random", arg);
		s->random = !strcmp(arg, "random");
		return 0;
	case OPT_BURST:
		if (sb_parse_u64(arg, "--burst", false, &v) < 0 || v < 32 || v > 4096 || v % 32)
			return sb_cli_usage_error("capture", "--burst %s: 32..4096 in steps of 32",
			                          arg);
		s->burst = (uint32_t)v;
		return 0;
	case OPT_STRIDE:
		if (sb_parse_u64(arg, "--stride", false, &v) < 0 || v % 32 || v > (1u << 30))
			return sb_cli_usage_error("capture", "--stride %s: a multiple of 32", arg);
		s->stride = (uint32_t)v;
		return 0;
	case OPT_WS:
		if (sb_parse_u64(arg, "--ws", false, &s->ws) < 0 || s->ws < 32 || s->ws >> 35)
			return sb_cli_usage_error("capture", "--ws %s: bytes, 32..2^35", arg);
		return 0;
	case OPT_OUT:
		if (sb_parse_u64(arg, "--outstanding", false, &v) < 0 || v < 1 || v > 64)
			return sb_cli_usage_error("capture", "--outstanding %s: 1..64", arg);
		s->outstanding = (unsigned)v;
		return 0;
	case OPT_PORT_SET:
		*port_set = arg;
		return 0;
	case OPT_TARGET:
		if (sb_hbm_target_parse(arg, &s->target) < 0)
			return sb_cli_usage_error("capture", "--%s", sb_error_detail());
		return 0;
	case 'D':
		if (us_arg(arg, "--duration-us", &s->duration_ns))
			return SB_EXIT_USAGE;
		if (!s->duration_ns)
			return sb_cli_usage_error("capture", "--duration-us %s: > 0", arg);
		return 0;
	case OPT_WARMUP:
		return us_arg(arg, "--warmup-us", &s->warmup_ns) ? SB_EXIT_USAGE : 0;
	case OPT_SEED:
		if (sb_parse_u64(arg, "--seed", false, &v) < 0 || v > UINT32_MAX)
			return sb_cli_usage_error("capture", "--seed %s: 0..2^32-1", arg);
		s->seed = (uint32_t)v;
		return 0;
	default:
		return -1;
	}
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
	    {"trace", required_argument, NULL, SB_CLI_OPT_CAPTURE},
	    {"trace-burst", required_argument, NULL, SB_CLI_OPT_CAPTURE_BURST},
	    {"trace-gap", required_argument, NULL, SB_CLI_OPT_CAPTURE_GAP},
	    {"trace-ports", required_argument, NULL, SB_CLI_OPT_CAPTURE_PORTS},
	    {"trace-path", required_argument, NULL, SB_CLI_OPT_CAPTURE_PATH},
	    {"trace-banks", no_argument, NULL, SB_CLI_OPT_CAPTURE_BANKS}, /* refused, with why */
	    {"op", required_argument, NULL, OPT_OP},
	    {"mix", required_argument, NULL, OPT_MIX},
	    {"mode", required_argument, NULL, OPT_MODE},
	    {"burst", required_argument, NULL, OPT_BURST},
	    {"stride", required_argument, NULL, OPT_STRIDE},
	    {"ws", required_argument, NULL, OPT_WS},
	    {"outstanding", required_argument, NULL, OPT_OUT},
	    {"port-set", required_argument, NULL, OPT_PORT_SET},
	    {"target", required_argument, NULL, OPT_TARGET},
	    {"duration-us", required_argument, NULL, 'D'},
	    {"warmup-us", required_argument, NULL, OPT_WARMUP},
	    {"seed", required_argument, NULL, OPT_SEED},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *uri = sb_cli_default_device(), *port_set = NULL;
	struct sb_cli_capture_opts co = {0};
	struct sb_capture_stats st;
	struct sb_provenance prov;
	struct sb_hbm_result *res = NULL;
	struct sb_capture *cap = NULL;
	struct sb_hbm_card card;
	struct sb_hbm_spec spec;
	struct sb_device *dev;
	struct sb_lock *lock;
	int c, err, rc, json = 0;

	sb_hbm_spec_init(&spec);
	sb_capture_config_init(&co.cfg);
	while ((c = getopt_long(argc, argv, "D:jh", opts, NULL)) != -1) {
		if ((rc = traffic_option(c, optarg, &spec, &port_set)) >= 0) {
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
	if (!co.cfg.port_mask) /* record the ports that run */
		co.cfg.port_mask = spec.port_mask;
	res = malloc(sizeof(*res));
	if (!res) {
		rc = sb_cli_error(SB_ERR_NOMEM);
		goto out;
	}
	sb_provenance_init(&prov);
	sb_provenance_now(prov.started_at, sizeof(prov.started_at));
	if ((err = sb_capture_open(&cap, dev, &co.cfg, co.out)) < 0) {
		rc = err == SB_ERR_INVAL ? sb_cli_usage_error("capture", "%s", sb_error_detail())
		                         : sb_cli_error(err);
		goto out;
	}
	if ((err = sb_hbm_point_capture(dev, &spec, cap, res)) < 0) {
		sb_capture_abort(cap);
		rc = err == SB_ERR_INVAL || err == SB_ERR_MISMATCH
		         ? sb_cli_usage_error("capture", "%s", sb_error_detail())
		         : sb_cli_error(err);
		goto out;
	}
	if ((err = sb_capture_close(cap, &st)) < 0) {
		rc = sb_cli_error(err);
		goto out;
	}
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
