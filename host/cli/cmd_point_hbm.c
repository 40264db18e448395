/* SPDX-License-Identifier: MIT */
/*
 * stackbench point on an HBM2 card (sim:u280, or a card's BAR): one point of the AXI3 traffic
 * engines, its bandwidth and latency with the page hit / closed / miss classes. cmd_point.c
 * hands over here when the board's register map has an hbm_card block.
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
#include "stackbench/hbm_sensed.h"
#include "stackbench/instrument.h"
#include "stackbench/lock.h"
#include "stackbench/provenance.h"
#include "stackbench/util.h"

void sb_cli_point_hbm_help(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbench point --device sim:u280|URI [--op read|write|mix] [--mix W]\n"
	    "                        [--mode linear|random] [--burst B] [--stride B]\n"
	    "                        [--ws BYTES] [--outstanding N] [--ports N | --port-set L]\n"
	    "                        [--target local|shiftN|stack] [--policy MAP]\n"
	    "                        [--page open|closed] [--refresh all_bank|single_bank]\n"
	    "                        [--temp C] [--duration-us T] [--warmup-us T] [--seed S]\n"
	    "                        [--check] [--lat-classes HIT,CLOSED] [--camera CONN]\n"
	    "                        [--meter CONN] [--json]\n"
	    "                        [--trace OUT.sbt [--trace-burst N] [--trace-gap N]\n"
	    "                        [--trace-ports L] [--trace-path onchip]]\n"
	    "\n"
	    "On an HBM2 card (docs/hbm2.md) a point runs the AXI3 traffic engines of a set of\n"
	    "ports, started in the same cycle, and prints payload bandwidth and read/write\n"
	    "latency with the read latencies' page hit / closed / miss classes.\n"
	    "\n"
	    "      --op O            read (default), write, or mix\n"
	    "      --mix W           mix: writes per 256 transactions (default 128)\n"
	    "      --mode M          linear (default; by --stride) or random offsets\n"
	    "      --burst B         bytes per transaction, 32..4096 in steps of 32 (512)\n"
	    "      --stride B        linear: bytes from one transaction to the next\n"
	    "                        (default: the burst)\n"
	    "      --ws BYTES        working set (default: the target's: a PC or the stack)\n"
	    "      --outstanding N   AXI IDs in flight per port, 1..64 (default 64)\n"
	    "      --ports N         ports 0..N-1 issue (default: all)\n"
	    "      --port-set L      these ports issue, e.g. 0-3,8\n"
	    "      --target T        local: each port its own pseudo channel (default);\n"
	    "                        shiftN: port i to PC i+N of its stack, through the\n"
	    "                        switch; stack: the whole stack\n"
	    "      --policy MAP      address map rbc_bgi, rbc, brc or rcb\n"
	    "      --page P          open or closed page\n"
	    "      --refresh R       all_bank or single_bank refresh\n"
	    "      --temp C          the stacks' temperature (simulated card only)\n"
	    "                        A card runs the controller its bitstream was built with:\n"
	    "                        a --policy, --page or --refresh that differs is an error.\n"
	    "  -D, --duration-us T   measurement window in microseconds (default 200)\n"
	    "      --warmup-us T     bench time before the window (default 20)\n"
	    "      --seed S          seed of the random offsets and the data pattern (1)\n"
	    "      --check           compare read data with the write pattern\n"
	    "      --lat-classes H,C read latency classes: hit <= H cycles, closed <= C,\n"
	    "                        miss above (default: the card's, 52,58)\n"
	    "      --camera CONN     temperature source read before and after the point, e.g.\n"
	    "                        the card's sensors: sensors:CHIP?feature=hbm_temp\n"
	    "      --meter CONN      power source read around the point (sensors:CHIP?feature=\n"
	    "                        power1); with --trace too\n"
	    "  -j, --json            print one JSON object\n"
	    "      --trace OUT.sbt   capture the point's AXI bursts into a sampled trace (sbt),\n"
	    "                        the pseudo channels (pc0..pc31) its subpartitions, as\n"
	    "                        'stackbench capture' does\n"
	    "      --trace-burst N   records per burst (default 1024; 0: one endless burst)\n"
	    "      --trace-gap N     AXI cycles between bursts (default 15360)\n"
	    "      --trace-ports L   ports recorded (default: the ports that issue)\n"
	    "      --trace-path P    onchip (register polling; the card has no DMA ring)\n"
	    "\n"
	    "Bandwidth is payload bytes over the window in GB/s (1e9 B/s); latencies are\n"
	    "reads from AR to the first R beat and writes from AW to B, in ns of the AXI\n"
	    "clock.\n");
}

enum {
	OPT_PORTS = 0x480,
	OPT_POLICY,
	OPT_PAGE,
	OPT_REFRESH,
	OPT_TEMP,
	OPT_CHECK,
	OPT_CLASSES,
	OPT_CAMERA,
	OPT_METER,
};

static double pct(uint64_t part, uint64_t all)
{
	return all ? 100.0 * (double)part / (double)all : 0;
}

static void print_text(const struct sb_hbm_spec *s, const struct sb_hbm_result *r)
{
	uint64_t cls = r->cls_hit + r->cls_closed + r->cls_miss;
	char tgt[16];

	printf("point      %s %u B, %s", sb_hbm_rw_name(s->rw), s->burst,
	       s->random ? "random" : "linear");
	if (!s->random)
		printf(" stride %u B", s->stride ? s->stride : s->burst);
	if (s->rw == SB_HBM_RW_MIX)
		printf(", %u/256 writes", s->mix_writes);
	printf(", %u outstanding, %u port%s %s\n", s->outstanding, r->nports,
	       r->nports == 1 ? "" : "s", sb_hbm_target_text(&s->target, tgt, sizeof(tgt)));
	printf("controller %s, %s page, %s refresh, stacks %.0f C\n",
	       sb_hbm_map_text(r->mc.addr_map), r->mc.closed_page ? "closed" : "open",
	       r->mc.refresh ? "single-bank" : "all-bank", r->temp_c);
	printf("window     %.1f us after %.1f us\n", r->window_ns / 1e3, s->warmup_ns / 1e3);
	printf("bandwidth  %.2f GB/s (%.2f GB/s per port), %llu transactions\n", r->gbps,
	       r->nports ? r->gbps / r->nports : 0, (unsigned long long)r->txns);
	if (r->rd_lat_avg_ns > 0)
		printf("read lat   min %.1f ns, avg %.1f ns, max %.1f ns\n", r->rd_lat_min_ns,
		       r->rd_lat_avg_ns, r->rd_lat_max_ns);
	if (cls)
		printf("classes    by latency: page hit %.1f %%, closed %.1f %%, miss %.1f %% (hit "
		       "<= %u, "
		       "closed <= %u cycles)\n",
		       pct(r->cls_hit, cls), pct(r->cls_closed, cls), pct(r->cls_miss, cls),
		       r->hit_max, r->closed_max);
	if (r->wr_lat_avg_ns > 0)
		printf("write lat  min %.1f ns, avg %.1f ns, max %.1f ns\n", r->wr_lat_min_ns,
		       r->wr_lat_avg_ns, r->wr_lat_max_ns);
	if (r->errors || r->mismatches)
		printf("ERRORS     %u error responses, %u read beats differed from the pattern\n",
		       r->errors, r->mismatches);
}

/* A reading for JSON: null when the source was not there (NAN). */
static void add_reading(cJSON *o, const char *name, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, name);
	else
		cJSON_AddNumberToObject(o, name, v);
}

/* The instruments' readings around the point (null without --camera / --meter). */
static void sensed_json(cJSON *o, const struct sb_hbm_sensed *sn)
{
	cJSON *q;

	if (!sn) {
		cJSON_AddNullToObject(o, "sensors");
		return;
	}
	q = cJSON_AddObjectToObject(o, "sensors");
	add_reading(q, "temp_start_c", sn->temp_start_c);
	add_reading(q, "temp_end_c", sn->temp_end_c);
	add_reading(q, "power_w", sn->power_w);
	add_reading(q, "volts_v", sn->volts_v);
	add_reading(q, "amps_a", sn->amps_a);
}

static void sensed_text(const struct sb_hbm_sensed *sn)
{
	if (!isnan(sn->temp_start_c))
		printf("temp       %.2f C before, %.2f C after\n", sn->temp_start_c,
		       sn->temp_end_c);
	if (!isnan(sn->power_w))
		printf("power      %.3f W\n", sn->power_w);
}

static int print_json(const struct sb_hbm_spec *s, const struct sb_hbm_result *r,
                      const struct sb_provenance *prov, const char *trace,
                      const struct sb_capture_stats *st, const struct sb_hbm_sensed *sn)
{
	cJSON *o = cJSON_CreateObject(), *a, *pj;
	double cyc = r->axi_clock_hz > 0 ? 1e9 / r->axi_clock_hz : 0;
	char tgt[16];
	char *text;

	if (!o)
		return SB_EXIT_FAILURE;
	cJSON_AddStringToObject(o, "schema", "stackbench-hbm-point");
	cJSON_AddStringToObject(o, "schema_version", "1.0");
	cJSON_AddStringToObject(o, "op", sb_hbm_rw_name(s->rw));
	cJSON_AddNumberToObject(o, "mix_writes", s->mix_writes);
	cJSON_AddStringToObject(o, "mode", s->random ? "random" : "linear");
	cJSON_AddNumberToObject(o, "burst_b", s->burst);
	cJSON_AddNumberToObject(o, "stride_b", s->stride ? s->stride : s->burst);
	cJSON_AddNumberToObject(o, "ws_b", (double)s->ws);
	cJSON_AddNumberToObject(o, "outstanding", s->outstanding);
	cJSON_AddStringToObject(o, "target", sb_hbm_target_text(&s->target, tgt, sizeof(tgt)));
	cJSON_AddNumberToObject(o, "ports", r->nports);
	cJSON_AddStringToObject(o, "addr_map", sb_hbm_map_text(r->mc.addr_map));
	cJSON_AddStringToObject(o, "page", r->mc.closed_page ? "closed" : "open");
	cJSON_AddStringToObject(o, "refresh", r->mc.refresh ? "single_bank" : "all_bank");
	cJSON_AddNumberToObject(o, "temp_c", r->temp_c);
	cJSON_AddNumberToObject(o, "window_ns", (double)r->window_ns);
	cJSON_AddNumberToObject(o, "warmup_ns", (double)s->warmup_ns);
	cJSON_AddNumberToObject(o, "bandwidth_gbps", r->gbps);
	cJSON_AddNumberToObject(o, "transactions", (double)r->txns);
	cJSON_AddNumberToObject(o, "read_bytes", (double)r->rd_bytes);
	cJSON_AddNumberToObject(o, "write_bytes", (double)r->wr_bytes);
	cJSON_AddNumberToObject(o, "read_latency_min_ns", r->rd_lat_min_ns);
	cJSON_AddNumberToObject(o, "read_latency_avg_ns", r->rd_lat_avg_ns);
	cJSON_AddNumberToObject(o, "read_latency_max_ns", r->rd_lat_max_ns);
	cJSON_AddNumberToObject(o, "write_latency_min_ns", r->wr_lat_min_ns);
	cJSON_AddNumberToObject(o, "write_latency_avg_ns", r->wr_lat_avg_ns);
	cJSON_AddNumberToObject(o, "write_latency_max_ns", r->wr_lat_max_ns);
	cJSON_AddNumberToObject(o, "page_hit", (double)r->cls_hit);
	cJSON_AddNumberToObject(o, "page_closed", (double)r->cls_closed);
	cJSON_AddNumberToObject(o, "page_miss", (double)r->cls_miss);
	cJSON_AddNumberToObject(o, "hit_max_cycles", r->hit_max);
	cJSON_AddNumberToObject(o, "closed_max_cycles", r->closed_max);
	cJSON_AddNumberToObject(o, "hist_base_cycles", r->hist_base);
	cJSON_AddNumberToObject(o, "hist_bin_cycles", 1u << r->hist_shift);
	a = cJSON_AddArrayToObject(o, "hist");
	for (unsigned k = 0; k < SB_HBM_HIST_BINS; k++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)r->hist[k]));
	cJSON_AddNumberToObject(o, "errors", r->errors);
	cJSON_AddNumberToObject(o, "mismatches", r->mismatches);
	a = cJSON_AddArrayToObject(o, "per_port");
	for (unsigned i = 0; i < r->nports; i++) {
		const struct sb_hbm_port_result *p = &r->port[i];
		cJSON *q = cJSON_CreateObject();

		cJSON_AddNumberToObject(q, "port", p->port);
		cJSON_AddNumberToObject(q, "pc", p->pc);
		cJSON_AddNumberToObject(q, "bandwidth_gbps", p->gbps);
		cJSON_AddNumberToObject(q, "transactions", (double)p->txns);
		cJSON_AddNumberToObject(
		    q, "read_latency_avg_ns",
		    p->rd_lat_count ? (double)p->rd_lat_sum / (double)p->rd_lat_count * cyc : 0);
		cJSON_AddNumberToObject(q, "read_latency_min_ns",
		                        p->rd_lat_count ? p->rd_lat_min * cyc : 0);
		cJSON_AddNumberToObject(q, "read_latency_max_ns",
		                        p->rd_lat_count ? p->rd_lat_max * cyc : 0);
		cJSON_AddNumberToObject(q, "page_hit", p->cls_hit);
		cJSON_AddNumberToObject(q, "page_closed", p->cls_closed);
		cJSON_AddNumberToObject(q, "page_miss", p->cls_miss);
		cJSON_AddNumberToObject(q, "ids_peak", p->ids_peak);
		cJSON_AddNumberToObject(q, "errors", p->errors);
		cJSON_AddItemToArray(a, q);
	}
	sb_cli_capture_json(o, trace, st);
	sensed_json(o, sn);
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

/* The point, traced into co->out when given, with inst's sources read around it when it has
 * one (sensed: their readings). */
static int point_traced_sensed(const char *cmd, struct sb_device *dev,
                               const struct sb_hbm_spec *spec, struct sb_cli_capture_opts *co,
                               const struct sb_point_instruments *inst, struct sb_hbm_result *res,
                               struct sb_capture_stats *st, struct sb_hbm_sensed *sensed)
{
	struct sb_capture *cap = NULL;
	bool sense = inst && (inst->temp || inst->power);
	int err;

	memset(st, 0, sizeof(*st));
	if (co->out) {
		if (!co->cfg.port_mask) /* record the ports that issue */
			co->cfg.port_mask = spec->port_mask;
		if ((err = sb_capture_open(&cap, dev, &co->cfg, co->out)) < 0)
			return err == SB_ERR_INVAL
			           ? sb_cli_usage_error(cmd, "%s", sb_error_detail())
			           : sb_cli_error(err);
	}
	if (sense)
		err = sb_hbm_point_capture_sensed(dev, spec, inst, cap, res, sensed);
	else
		err = cap ? sb_hbm_point_capture(dev, spec, cap, res)
		          : sb_hbm_point_run(dev, spec, res);
	if (err < 0) {
		sb_capture_abort(cap); /* no trace file is left */
		return err == SB_ERR_INVAL || err == SB_ERR_MISMATCH
		           ? sb_cli_usage_error(cmd, "%s", sb_error_detail())
		           : sb_cli_error(err);
	}
	if (cap && (err = sb_capture_close(cap, st)) < 0)
		return sb_cli_error(err);
	return 0;
}

int sb_cli_hbm_point_traced(const char *cmd, struct sb_device *dev, const struct sb_hbm_spec *spec,
                            struct sb_cli_capture_opts *co, struct sb_hbm_result *res,
                            struct sb_capture_stats *st)
{
	return point_traced_sensed(cmd, dev, spec, co, NULL, res, st, NULL);
}

static int parse_us(const char *cmd, const char *arg, const char *what, uint64_t *ns)
{
	double d;

	if (sb_parse_double(arg, what, &d) < 0 || !(d >= 0) || d > 1e9)
		return sb_cli_usage_error(cmd, "%s %s: microseconds", what, arg);
	*ns = (uint64_t)llround(d * 1e3);
	return 0;
}

int sb_cli_hbm_traffic_option(const char *cmd, int c, const char *arg, struct sb_hbm_spec *s,
                              const char **port_set)
{
	uint64_t v;
	int rc;

	switch (c) {
	case SB_CLI_OPT_HBM_OP:
		if (sb_hbm_rw_parse(arg, &s->rw) < 0)
			return sb_cli_usage_error(cmd, "--op: %s", sb_error_detail());
		return 0;
	case SB_CLI_OPT_HBM_MIX:
		if (sb_parse_u64(arg, "--mix", true, &v) < 0 || v > 256)
			return sb_cli_usage_error(cmd, "--mix %s: 0..256", arg);
		s->mix_writes = (unsigned)v;
		return 0;
	case SB_CLI_OPT_HBM_MODE:
		if (strcmp(arg, "linear") && strcmp(arg, "random"))
			return sb_cli_usage_error(cmd, "--mode %s: linear or random", arg);
		s->random = !strcmp(arg, "random");
		return 0;
	case SB_CLI_OPT_HBM_BURST:
		if (sb_parse_u64(arg, "--burst", false, &v) < 0 || v < 32 || v > 4096 || v % 32)
			return sb_cli_usage_error(cmd, "--burst %s: 32..4096 in steps of 32", arg);
		s->burst = (uint32_t)v;
		return 0;
	case SB_CLI_OPT_HBM_STRIDE:
		if (sb_parse_u64(arg, "--stride", false, &v) < 0 || v % 32 || v > (1u << 30))
			return sb_cli_usage_error(cmd, "--stride %s: a multiple of 32", arg);
		s->stride = (uint32_t)v;
		return 0;
	case SB_CLI_OPT_HBM_WS:
		if (sb_parse_u64(arg, "--ws", false, &s->ws) < 0 || s->ws < 32 || s->ws >> 35)
			return sb_cli_usage_error(cmd, "--ws %s: bytes, 32..2^35", arg);
		return 0;
	case SB_CLI_OPT_HBM_OUT:
		if (sb_parse_u64(arg, "--outstanding", false, &v) < 0 || v < 1 || v > 64)
			return sb_cli_usage_error(cmd, "--outstanding %s: 1..64", arg);
		s->outstanding = (unsigned)v;
		return 0;
	case SB_CLI_OPT_HBM_PORT_SET:
		*port_set = arg;
		return 0;
	case SB_CLI_OPT_HBM_TARGET:
		if (sb_hbm_target_parse(arg, &s->target) < 0)
			return sb_cli_usage_error(cmd, "--%s", sb_error_detail());
		return 0;
	case 'D':
		if ((rc = parse_us(cmd, arg, "--duration-us", &s->duration_ns)) != 0)
			return rc;
		if (!s->duration_ns)
			return sb_cli_usage_error(cmd, "--duration-us %s: > 0", arg);
		return 0;
	case SB_CLI_OPT_HBM_WARMUP:
		return parse_us(cmd, arg, "--warmup-us", &s->warmup_ns);
	case SB_CLI_OPT_HBM_SEED:
		if (sb_parse_u64(arg, "--seed", false, &v) < 0 || v > UINT32_MAX)
			return sb_cli_usage_error(cmd, "--seed %s: 0..2^32-1", arg);
		s->seed = (uint32_t)v;
		return 0;
	default:
		return -1;
	}
}

int sb_cli_point_hbm(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"device", required_argument, NULL, 'd'},
	    SB_CLI_HBM_TRAFFIC_OPTIONS,
	    {"ports", required_argument, NULL, OPT_PORTS},
	    {"policy", required_argument, NULL, OPT_POLICY},
	    {"page", required_argument, NULL, OPT_PAGE},
	    {"refresh", required_argument, NULL, OPT_REFRESH},
	    {"temp", required_argument, NULL, OPT_TEMP},
	    {"check", no_argument, NULL, OPT_CHECK},
	    {"lat-classes", required_argument, NULL, OPT_CLASSES},
	    {"camera", required_argument, NULL, OPT_CAMERA},
	    {"meter", required_argument, NULL, OPT_METER},
	    SB_CLI_CAPTURE_OPTIONS,
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *uri = sb_cli_default_device(), *port_set = NULL, *camera = NULL, *meter = NULL;
	struct sb_point_instruments inst = {0};
	struct sb_hbm_sensed sensed;
	struct sb_cli_capture_opts co = {0};
	struct sb_capture_stats cst;
	struct sb_hbm_spec spec;
	struct sb_hbm_result *res = NULL;
	struct sb_hbm_card card;
	struct sb_provenance prov;
	struct sb_device *dev;
	struct sb_lock *lock;
	uint64_t nports = 0;
	double d;
	unsigned u;
	bool b;
	int c, err, json = 0, rc;

	sb_hbm_spec_init(&spec);
	sb_capture_config_init(&co.cfg);
	while ((c = getopt_long(argc, argv, "D:jh", opts, NULL)) != -1) {
		if ((rc = sb_cli_hbm_traffic_option("point", c, optarg, &spec, &port_set)) >= 0 ||
		    (rc = sb_cli_capture_option("point", c, optarg, &co)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'd':
			uri = optarg;
			break;
		case OPT_PORTS:
			if (sb_parse_u64(optarg, "--ports", false, &nports) < 0 || !nports ||
			    nports > SB_HBM_MAX_PORTS)
				return sb_cli_usage_error("point", "--ports %s: 1..%d", optarg,
				                          SB_HBM_MAX_PORTS);
			break;
		case OPT_POLICY:
			if (sb_hbm_map_parse(optarg, &u) < 0)
				return sb_cli_usage_error("point", "--policy: %s",
				                          sb_error_detail());
			spec.addr_map = (int)u;
			break;
		case OPT_PAGE:
			if (sb_hbm_page_parse(optarg, &b) < 0)
				return sb_cli_usage_error("point", "--page: %s", sb_error_detail());
			spec.closed_page = b;
			break;
		case OPT_REFRESH:
			if (sb_hbm_refresh_parse(optarg, &u) < 0)
				return sb_cli_usage_error("point", "--refresh: %s",
				                          sb_error_detail());
			spec.refresh = (int)u;
			break;
		case OPT_TEMP:
			if (sb_parse_double(optarg, "--temp", &d) < 0 || !(d >= 1) || d > 127)
				return sb_cli_usage_error("point", "--temp %s: 1..127 C", optarg);
			spec.temp_c = d;
			break;
		case OPT_CHECK:
			spec.check = true;
			break;
		case OPT_CLASSES: {
			unsigned long long h, cl;
			int n = 0;

			if (sscanf(optarg, "%llu,%llu%n", &h, &cl, &n) != 2 || optarg[n] || !h ||
			    cl <= h || cl > 0xFFFF)
				return sb_cli_usage_error(
				    "point",
				    "--lat-classes %s: HIT,CLOSED cycles, 0 < HIT < CLOSED",
				    optarg);
			spec.hit_max = (unsigned)h;
			spec.closed_max = (unsigned)cl;
			break;
		}
		case OPT_CAMERA:
			camera = optarg;
			break;
		case OPT_METER:
			meter = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			sb_cli_point_hbm_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("point",
			                          "bad option for an HBM2 card (stackbench point "
			                          "--device %s --help)",
			                          uri);
		}
	}
	if (optind != argc)
		return sb_cli_usage_error("point", "unexpected argument '%s'", argv[optind]);
	if (nports && port_set)
		return sb_cli_usage_error("point", "give --ports or --port-set, not both");
	if ((rc = sb_cli_capture_check("point", &co)) != 0)
		return rc;
	if ((err = sb_board_lock(&lock, uri)) < 0)
		return sb_cli_device_error(err);
	if ((err = sb_device_open(&dev, uri)) < 0) {
		sb_lock_release(lock);
		return sb_cli_device_error(err);
	}
	if ((err = sb_hbm_card_read(dev, &card)) < 0) {
		rc = sb_cli_device_error(err);
		goto out;
	}
	if (port_set && sb_hbm_port_set_parse(port_set, card.ports, &spec.port_mask) < 0) {
		rc = sb_cli_usage_error("point", "--port-set: %s", sb_error_detail());
		goto out;
	}
	if (nports > card.ports) {
		rc = sb_cli_usage_error("point", "--ports %llu: the card has %u",
		                        (unsigned long long)nports, card.ports);
		goto out;
	}
	if (nports)
		spec.port_mask = (uint32_t)((1ull << nports) - 1);
	res = malloc(sizeof(*res));
	if (!res) {
		rc = sb_cli_error(SB_ERR_NOMEM);
		goto out;
	}
	sb_provenance_init(&prov);
	sb_provenance_now(prov.started_at, sizeof(prov.started_at));
	if ((camera && (err = sb_temp_source_open(&inst.temp, camera, dev)) < 0) ||
	    (meter && (err = sb_power_source_open(&inst.power, meter, dev)) < 0)) {
		rc = sb_cli_device_error(err);
		goto out;
	}
	if ((rc = point_traced_sensed("point", dev, &spec, &co, &inst, res, &cst, &sensed)) != 0)
		goto out;
	sb_provenance_now(prov.finished_at, sizeof(prov.finished_at));
	sb_provenance_device(&prov, dev);
	prov.have_seed = true;
	prov.seed = spec.seed;
	if (json) {
		rc = print_json(&spec, res, &prov, co.out, &cst,
		                inst.temp || inst.power ? &sensed : NULL);
	} else {
		print_text(&spec, res);
		if (inst.temp || inst.power)
			sensed_text(&sensed);
		if (co.out)
			sb_cli_capture_print(co.out, "AXI bursts", &cst);
		rc = SB_EXIT_OK;
	}
	if (rc == SB_EXIT_OK && (res->errors || res->mismatches))
		rc = SB_EXIT_FAILURE;
out:
	sb_temp_source_close(inst.temp);
	sb_power_source_close(inst.power);
	free(res);
	sb_device_close(dev);
	sb_lock_release(lock);
	return rc;
}

/* Whether URI is an HBM2 card: a look at its register blocks (no lock: nothing is written). */
bool sb_cli_device_is_hbm(const char *uri)
{
	struct sb_device *dev;
	bool hbm;

	if (sb_device_open(&dev, uri) < 0) {
		sb_error_clear();
		return false; /* the point's own open names the problem */
	}
	hbm = sb_hbm_is_card(dev);
	sb_device_close(dev);
	return hbm;
}
