/* SPDX-License-Identifier: MIT */
/*
 * stackbench replay: issue the memory traffic of a trace (SCALE-Sim, GPGPU-Sim, CSV, a
 * captured sbt) on a board through its replay block and report bandwidth, latency and queueing
 * per vault; with --trace the replay's own requests are captured as a measured trace. On an
 * HBM2 card (an hbm_card block) the hbm_replay block issues one AXI3 burst per record and the
 * report is per port (cmd_replay_hbm.c).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "cmd_replay_hbm.h"
#include "stackbench/capture.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/hbm.h"
#include "stackbench/lock.h"
#include "stackbench/output.h"
#include "stackbench/replay.h"
#include "stackbench/util.h"

static void replay_help(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbench replay [OPTIONS] TRACE...\n"
	    "\n"
	    "Issue the memory traffic of a trace as HMC requests on a board (default:\n"
	    "$STACKBENCH_DEVICE or sim:) through its replay block, in time order at the trace's\n"
	    "pace or as fast as the board accepts, and report bandwidth, latency and queueing\n"
	    "per vault. Inputs: a SCALE-Sim run or layer folder, a GPGPU-Sim log, a CSV or sbt\n"
	    "trace (several are merged in time order).\n"
	    "\n"
	    "On an HBM2 card (--device sim:u280, or a card's BAR) each record is one AXI3 burst\n"
	    "(1..16 beats of 32 bytes, 32-byte aligned, within a 4 KiB page; a record that is\n"
	    "not is refused, by number, before the card is touched) written through the\n"
	    "hbm_replay block's registers into its FIFO, and the report is per port. A trace\n"
	    "captured on one board kind does not replay on the other.\n"
	    "\n"
	    "      --device URI      board to use\n"
	    "  -f, --format FMT      scalesim, gpgpusim, csv or sbt (default: from the input)\n"
	    "      --clock-ghz F     clock of cycle traces (default 1 GHz)\n"
	    "      --word-bytes N    SCALE-Sim element size in bytes (default 1)\n"
	    "      --block-bytes N   value granularity of GPGPU-Sim / CSV traces\n"
	    "      --speed X|max     X times the trace's pace (default 1); max: as fast as the\n"
	    "                        board accepts (no time order between ports)\n"
	    "      --interpolate     sampled traces: restore the access pressure, t' = r t with\n"
	    "                        r = captured / executed from the trace's capture\n"
	    "      --select S        auto (default), all (reads, writes, fetches) or dram\n"
	    "                        (SCALE-Sim DRAM traffic: fills read, ofmap write-backs\n"
	    "                        write; the default for SCALE-Sim)\n"
	    "      --subpart NAME    replay the records of one subpartition only (e.g. L2 of a\n"
	    "                        GPGPU-Sim log: its L1D and L2 accesses are not both\n"
	    "                        memory traffic)\n"
	    "      --no-coalesce     one request per record instead of merging records of one\n"
	    "                        time in one 128-byte block\n"
	    "      --ports LIST      ports that issue, e.g. 0-8 or 0,2 (default: all)\n"
	    "      --ring-log2 N     descriptors in the host ring: 2^N (default 16; not on an\n"
	    "                        HBM2 card, which has a FIFO and no ring)\n"
	    "      --trace OUT.sbt   capture the replay's own requests (measured timing); the\n"
	    "                        --trace-* options of 'stackbench point' apply (default\n"
	    "                        here: every request, no gap)\n"
	    "      --trace-burst N, --trace-gap N, --trace-banks, --trace-path onchip|dma\n"
	    "  -j, --json OUT        write the results as JSON ('-': standard output)\n"
	    "  -h, --help            this help\n"
	    "\n"
	    "Bandwidth counts request and response packets with header and tail (flit\n"
	    "accounting), GB = 1e9 B. Latency is from issue to the first response beat; lag is\n"
	    "the time a request waited on the FPGA side after it was due (queueing before the\n"
	    "cube); occupancy is the mean number of requests in flight (Little's law).\n");
}

enum {
	OPT_SPEED = 0x200,
	OPT_INTERP,
	OPT_SELECT,
	OPT_NOCOAL,
	OPT_RING,
	OPT_SUBPART,
};

static void print_text(const char *name, const struct sb_replay_result *r)
{
	printf("replay     %s: %llu records, %llu replayed as %llu requests (%s selection)\n", name,
	       (unsigned long long)r->records, (unsigned long long)(r->records - r->skipped),
	       (unsigned long long)r->requests, sb_replay_select_name(r->select));
	printf("timing     %s, density %.4f, %.6g board cycles per trace tick\n",
	       r->timed ? "in time order" : "as fast as the board accepts", r->density,
	       r->time_scale);
	printf("duration   %.3f us (trace %.3f us)\n", r->duration_ns / 1e3,
	       (double)r->trace_cycles * 1e6 / r->clock_hz);
	printf("requests   %llu issued (%llu reads, %llu writes), %llu completed, %llu errors\n",
	       (unsigned long long)r->issued, (unsigned long long)r->reads,
	       (unsigned long long)r->writes, (unsigned long long)r->completed,
	       (unsigned long long)r->errors);
	printf("bandwidth  %.3f GB/s (payload %.3f GB/s), %.2f MRPS\n", r->bandwidth_gbps,
	       r->payload_gbps, r->mrps);
	printf("latency    min %.1f ns, avg %.1f ns, max %.1f ns\n", r->latency_min_ns,
	       r->latency_avg_ns, r->latency_max_ns);
	printf("lag        avg %.1f ns, max %.1f ns (due to issued)\n", r->lag_avg_ns,
	       r->lag_max_ns);
	printf("\nvault    requests   data_MB    GB/s   lat_avg_ns  lat_max_ns  lag_avg_ns  "
	       "in_flight\n");
	for (unsigned v = 0; v < r->nvaults; v++) {
		const struct sb_replay_vault_result *vr = &r->vault[v];

		printf("%-6u %10llu %9.3f %7.3f %12.1f %11.1f %11.1f %10.2f\n", v,
		       (unsigned long long)vr->requests, vr->data_bytes / 1e6, vr->bandwidth_gbps,
		       vr->latency_avg_ns, vr->latency_max_ns, vr->lag_avg_ns, vr->occupancy);
	}
}

static cJSON *result_json(const char *name, const struct sb_replay_result *r, const char *trace,
                          const struct sb_capture_stats *cs)
{
	cJSON *o = cJSON_CreateObject(), *vs, *t;

	cJSON_AddStringToObject(o, "schema", "stackbench-replay");
	cJSON_AddStringToObject(o, "schema_version", "1.0");
	cJSON_AddStringToObject(o, "input", name);
	cJSON_AddStringToObject(o, "select", sb_replay_select_name(r->select));
	cJSON_AddBoolToObject(o, "timed", r->timed);
	cJSON_AddNumberToObject(o, "density", r->density);
	cJSON_AddNumberToObject(o, "cycles_per_tick", r->time_scale);
	cJSON_AddNumberToObject(o, "clock_hz", r->clock_hz);
	cJSON_AddNumberToObject(o, "records", (double)r->records);
	cJSON_AddNumberToObject(o, "skipped", (double)r->skipped);
	cJSON_AddNumberToObject(o, "addresses_wrapped", (double)r->wrapped);
	cJSON_AddNumberToObject(o, "requests", (double)r->requests);
	cJSON_AddNumberToObject(o, "issued", (double)r->issued);
	cJSON_AddNumberToObject(o, "completed", (double)r->completed);
	cJSON_AddNumberToObject(o, "reads", (double)r->reads);
	cJSON_AddNumberToObject(o, "writes", (double)r->writes);
	cJSON_AddNumberToObject(o, "errors", (double)r->errors);
	cJSON_AddNumberToObject(o, "bad_descriptors", (double)r->bad);
	cJSON_AddNumberToObject(o, "data_bytes", 16.0 * (double)r->data_flits);
	cJSON_AddNumberToObject(o, "duration_ns", r->duration_ns);
	cJSON_AddNumberToObject(o, "trace_duration_ns",
	                        (double)r->trace_cycles * 1e9 / r->clock_hz);
	cJSON_AddNumberToObject(o, "bandwidth_gbps", r->bandwidth_gbps);
	cJSON_AddNumberToObject(o, "payload_gbps", r->payload_gbps);
	cJSON_AddNumberToObject(o, "mrps", r->mrps);
	cJSON_AddNumberToObject(o, "latency_min_ns", r->latency_min_ns);
	cJSON_AddNumberToObject(o, "latency_avg_ns", r->latency_avg_ns);
	cJSON_AddNumberToObject(o, "latency_max_ns", r->latency_max_ns);
	cJSON_AddNumberToObject(o, "lag_avg_ns", r->lag_avg_ns);
	cJSON_AddNumberToObject(o, "lag_max_ns", r->lag_max_ns);
	vs = cJSON_AddArrayToObject(o, "vaults");
	for (unsigned v = 0; v < r->nvaults; v++) {
		const struct sb_replay_vault_result *vr = &r->vault[v];
		cJSON *j = cJSON_CreateObject();

		cJSON_AddNumberToObject(j, "vault", v);
		cJSON_AddNumberToObject(j, "requests", (double)vr->requests);
		cJSON_AddNumberToObject(j, "data_bytes", (double)vr->data_bytes);
		cJSON_AddNumberToObject(j, "bandwidth_gbps", vr->bandwidth_gbps);
		cJSON_AddNumberToObject(j, "latency_avg_ns", vr->latency_avg_ns);
		cJSON_AddNumberToObject(j, "latency_max_ns", vr->latency_max_ns);
		cJSON_AddNumberToObject(j, "lag_avg_ns", vr->lag_avg_ns);
		cJSON_AddNumberToObject(j, "occupancy", vr->occupancy);
		cJSON_AddItemToArray(vs, j);
	}
	if (!trace) {
		cJSON_AddNullToObject(o, "trace");
		return o;
	}
	t = cJSON_AddObjectToObject(o, "trace");
	cJSON_AddStringToObject(t, "file", trace);
	cJSON_AddNumberToObject(t, "records", (double)cs->records);
	cJSON_AddNumberToObject(t, "executed", (double)cs->executed);
	cJSON_AddNumberToObject(t, "lost_records", (double)(cs->dropped + cs->corrupt + cs->late));
	return o;
}

int sb_cli_replay_write_json(const char *out, cJSON *o)
{
	struct sb_output f;
	char *text = cJSON_Print(o);
	int err;

	if (!text)
		return sb_error_set(SB_ERR_NOMEM, "out of memory writing JSON");
	if ((err = sb_output_open(&f, out)) < 0) {
		free(text);
		return err;
	}
	fprintf(f.f, "%s\n", text);
	free(text);
	return sb_output_commit(&f);
}

static int replay_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"device", required_argument, NULL, 'd'},
	    {"format", required_argument, NULL, SB_CLI_OPT_FORMAT},
	    {"clock-ghz", required_argument, NULL, SB_CLI_OPT_CLOCK},
	    {"word-bytes", required_argument, NULL, SB_CLI_OPT_WORD},
	    {"block-bytes", required_argument, NULL, SB_CLI_OPT_BLOCK},
	    {"speed", required_argument, NULL, OPT_SPEED},
	    {"interpolate", no_argument, NULL, OPT_INTERP},
	    {"select", required_argument, NULL, OPT_SELECT},
	    {"no-coalesce", no_argument, NULL, OPT_NOCOAL},
	    {"ports", required_argument, NULL, 'n'},
	    {"ring-log2", required_argument, NULL, OPT_RING},
	    {"subpart", required_argument, NULL, OPT_SUBPART},
	    {"trace", required_argument, NULL, SB_CLI_OPT_CAPTURE},
	    {"trace-burst", required_argument, NULL, SB_CLI_OPT_CAPTURE_BURST},
	    {"trace-gap", required_argument, NULL, SB_CLI_OPT_CAPTURE_GAP},
	    {"trace-banks", no_argument, NULL, SB_CLI_OPT_CAPTURE_BANKS},
	    {"trace-path", required_argument, NULL, SB_CLI_OPT_CAPTURE_PATH},
	    {"json", required_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct sb_cli_trace_opts to = {0};
	struct sb_replay_config cfg;
	struct sb_cli_capture_opts co = {0};
	struct sb_capture_stats cst;
	struct sb_replay_result res;
	struct sb_trace_reader *r = NULL;
	struct sb_capture *cap = NULL;
	struct sb_device *dev = NULL;
	struct sb_lock *lock = NULL;
	const char *uri = sb_cli_default_device(), *json = NULL;
	uint64_t v;
	double d;
	int c, rc, err;

	sb_replay_config_init(&cfg);
	sb_capture_config_init(&co.cfg);
	co.cfg.burst_records = 0; /* the replay's own trace: every request */
	co.cfg.gap_cycles = 0;
	memset(&cst, 0, sizeof(cst));
	while ((c = getopt_long(argc, argv, "f:j:h", opts, NULL)) != -1) {
		if (c == 'f')
			c = SB_CLI_OPT_FORMAT;
		if ((rc = sb_cli_trace_option("replay", c, optarg, &to)) >= 0 ||
		    (rc = sb_cli_capture_option("replay", c, optarg, &co)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'd':
			uri = optarg;
			break;
		case OPT_SPEED:
			if (!strcmp(optarg, "max")) {
				cfg.speed = 0;
				break;
			}
			if (sb_parse_double(optarg, "--speed", &d) < 0 || !(d > 0) || d > 1e9)
				return sb_cli_usage_error(
				    "replay", "--speed %s: a positive factor or 'max'", optarg);
			cfg.speed = d;
			break;
		case OPT_INTERP:
			cfg.interpolate = true;
			break;
		case OPT_SELECT:
			if (sb_replay_select_parse(optarg, &cfg.select) < 0)
				return sb_cli_usage_error("replay", "--select: %s",
				                          sb_error_detail());
			break;
		case OPT_NOCOAL:
			cfg.no_coalesce = true;
			break;
		case OPT_SUBPART:
			cfg.subpart = optarg;
			break;
		case 'n':
			if (sb_capture_parse_ports(optarg, &cfg.port_mask) < 0)
				return sb_cli_usage_error("replay", "--ports: %s",
				                          sb_error_detail());
			break;
		case OPT_RING:
			if (sb_parse_u64(optarg, "--ring-log2", false, &v) < 0 || v < 4 || v > 24)
				return sb_cli_usage_error("replay", "--ring-log2 %s: 4..24",
				                          optarg);
			cfg.ring_log2 = (unsigned)v;
			break;
		case 'j':
			json = optarg;
			break;
		case 'h':
			replay_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("replay", "bad option");
		}
	}
	if ((rc = sb_cli_capture_check("replay", &co)) != 0)
		return rc;
	if (optind >= argc)
		return sb_cli_usage_error("replay", "expected a TRACE to replay");
	if (co.out) {
		const char *const *in = (const char *const *)argv + optind;

		if (sb_output_check_inputs(co.out, in, (size_t)(argc - optind)) < 0)
			return sb_cli_usage_error("replay", "--trace: %s", sb_error_detail());
	}
	if ((rc = sb_cli_trace_open("replay", &to, argv + optind, argc - optind, &r)) != 0)
		return rc;
	/* The board is ours alone while the replay runs (busy: exit 3, naming the holder). */
	if ((err = sb_board_lock(&lock, uri)) < 0 || (err = sb_device_open(&dev, uri)) < 0) {
		rc = sb_cli_device_error(err);
		goto out;
	}
	if (sb_hbm_is_card(dev)) {
		struct sb_cli_replay_hbm h = {
		    .dev = dev,
		    .r = r,
		    .cfg = &cfg,
		    .co = &co,
		    .to = &to,
		    .inputs = argv + optind,
		    .ninputs = argc - optind,
		    .json = json,
		};

		rc = sb_cli_replay_hbm(&h);
		r = h.r; /* reopened for the replay after the check */
		goto out;
	}
	if (co.out) {
		/* The capture records the ports the replay issues on (by default, on dev: into
		 * the module's trace buffer; the descriptor ring has a buffer of its own). */
		co.cfg.port_mask = cfg.port_mask;
		if ((err = sb_capture_open(&cap, dev, &co.cfg, co.out)) < 0) {
			rc = err == SB_ERR_INVAL
			         ? sb_cli_usage_error("replay", "%s", sb_error_detail())
			         : sb_cli_error(err);
			goto out;
		}
	}
	if ((err = sb_replay_run(dev, r, &cfg, cap, &res)) < 0) {
		rc = err == SB_ERR_PARSE || err == SB_ERR_IO ? (sb_cli_error(err), SB_EXIT_INPUT)
		     : err == SB_ERR_INVAL ? sb_cli_usage_error("replay", "%s", sb_error_detail())
		                           : sb_cli_error(err);
		goto out;
	}
	if (cap) {
		err = sb_capture_close(cap, &cst);
		cap = NULL;
		if (err < 0) {
			rc = sb_cli_error(err);
			goto out;
		}
	}
	if (!json || strcmp(json, "-"))
		print_text(r->name, &res);
	if (co.out && (!json || strcmp(json, "-")))
		printf("\ntrace      %s: %llu records of %llu requests (%llu lost)\n", co.out,
		       (unsigned long long)cst.records, (unsigned long long)cst.executed,
		       (unsigned long long)(cst.dropped + cst.corrupt + cst.late));
	rc = SB_EXIT_OK;
	if (json) {
		cJSON *o = result_json(r->name, &res, co.out, &cst);

		err = o ? sb_cli_replay_write_json(json, o)
		        : sb_error_set(SB_ERR_NOMEM, "out of memory");
		cJSON_Delete(o);
		if (err < 0)
			rc = sb_cli_error(err);
	}
out:
	sb_capture_abort(cap);
	sb_device_close(dev);
	sb_lock_release(lock);
	sb_trace_reader_free(r);
	return rc;
}

const struct sb_cli_command sb_cmd_replay = {
    .name = "replay",
    .summary = "issue a trace's memory traffic on a board, measure it per vault or port",
    .run = replay_run,
    .help = replay_help,
};
