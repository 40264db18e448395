/* SPDX-License-Identifier: MIT */
/*
 * stackbench point: run one measurement point and print its metrics.
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
#include "stackbench/gups.h"
#include "stackbench/instrument.h"
#include "stackbench/lock.h"
#include "stackbench/pattern.h"
#include "stackbench/point.h"
#include "stackbench/provenance.h"
#include "stackbench/util.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static void point_help(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbench point [--device URI] [--type ro|wo|rw] [--size BYTES]\n"
	    "                        [--mask LO-HI] [--pattern NAME] [--ports N]\n"
	    "                        [--port-order first|spread]\n"
	    "                        [--mode random|linear] [--duration-us T] [--stream N]\n"
	    "                        [--iterations N] [--seed S] [--addr-mode 32|64|128]\n"
	    "                        [--posted] [--no-fast-forward] [--json]\n"
	    "                        [--duration-s S] [--cooling NAME] [--settle S]\n"
	    "                        [--settle-tolerance C] [--settle-max S] [--camera CONN]\n"
	    "                        [--meter CONN] [--rig CONN] [--sample-ms MS]\n"
	    "                        [--no-instruments] [--trace OUT.sbt [--trace-burst N]\n"
	    "                        [--trace-gap N] [--trace-ports LIST] [--trace-banks]\n"
	    "                        [--trace-path onchip|dma]]\n"
	    "\n"
	    "Run one GUPS measurement point on a board (default: $STACKBENCH_DEVICE or sim:)\n"
	    "and print bandwidth, request rate and latency. On an HBM2 card (sim:u280) the\n"
	    "point has the options of 'stackbench point --device sim:u280 --help'.\n"
	    "\n"
	    "      --device URI      board to use\n"
	    "  -t, --type T          ro (default), wo or rw\n"
	    "  -s, --size BYTES      request size 16..128 in steps of 16 (default 128)\n"
	    "  -m, --mask LO-HI      force address bits LO..HI to 0 (on top of the pattern)\n"
	    "  -p, --pattern NAME    all (default), 1bank 2bank 4bank 8bank 16bank (banks of\n"
	    "                        vault 0), 1vault 2vault 4vault 8vault 16vault\n"
	    "      --ports N         ports issuing requests (default: all)\n"
	    "      --port-order O    which N ports: first (0..N-1, default) or spread (round\n"
	    "                        robin over the links the ports are on)\n"
	    "      --mode M          random (default) or linear addresses\n"
	    "  -D, --duration-us T   microseconds of bench time the ports issue (default 1000)\n"
	    "      --duration-s S    the same in seconds (thermal runs: 200)\n"
	    "      --stream N        stream GUPS: groups of N requests (1..28) on port 0; with\n"
	    "                        rw, N/2 writes then reads of the same addresses, compared\n"
	    "      --iterations N    stop each port after N iterations (stream: N groups)\n"
	    "      --seed S          seed of the address generators (default 1)\n"
	    "      --addr-mode B     set the cube's address-mapping block size first\n"
	    "      --posted          posted writes (no write responses)\n"
	    "      --no-fast-forward simulate every request (simulated board only)\n"
	    "      --cooling NAME    apply a cooling configuration first (sim: Cfg1..Cfg4)\n"
	    "      --settle S        then wait until the actuator's heatsink stayed within\n"
	    "                        the tolerance for S seconds (a rig; default 0: no wait)\n"
	    "      --settle-tolerance C  that tolerance (default 0.5 C)\n"
	    "      --settle-max S    give up waiting after S seconds, with a warning\n"
	    "                        (default 900)\n"
	    "      --camera CONN     temperature source (default on sim: devices: sim:)\n"
	    "      --meter CONN      power source (default on sim: devices: sim:)\n"
	    "      --rig CONN        cooling actuator (default on sim: devices: sim:)\n"
	    "      --sample-ms MS    instrument sample interval (default: duration / 20,\n"
	    "                        1 ms .. 1 s)\n"
	    "      --no-instruments  do not sample instruments\n"
	    "      --trace OUT.sbt   capture the requests into a sampled trace (sbt): bursts of\n"
	    "                        N records separated by gaps, with the board's own request\n"
	    "                        counts for the sampling density; subpartitions are vaults\n"
	    "      --trace-burst N   records per burst (default 1024; 0: one endless burst)\n"
	    "      --trace-gap N     user-clock cycles between bursts (default 15360)\n"
	    "      --trace-ports L   ports recorded, e.g. 0,2,4-8 (default: all)\n"
	    "      --trace-banks     subpartitions per bank (vaultV.bankB) instead of per vault\n"
	    "      --trace-path P    onchip (register polling) or dma (host ring); default dma\n"
	    "                        on dev: and, for gapless captures, wherever there is DMA\n"
	    "  -j, --json            print one JSON object\n"
	    "  -h, --help            this help\n"
	    "\n"
	    "Bandwidth counts request and response packets with header and tail (flit\n"
	    "accounting) in both directions, in GB/s (1e9 bytes per second).\n"
	    "Temperature is the camera's hot spot in its region of interest: temperature_c is\n"
	    "the mean over the last 10 %% of the point (its steady state after 200 s), power_w "
	    "the\n"
	    "mean power over the point. If the cube fails, the point stops and reports when, how\n"
	    "hot and what had been measured (exit code 1).\n"
	    "A missing or busy instrument exits 3; one lost mid-point stops the ports,\n"
	    "reconnects, and exits 1.\n");
	sb_cli_schemes_help(out);
}

static cJSON *port_json(unsigned id, const struct sb_port_counters *c, double clock_hz)
{
	cJSON *o = cJSON_CreateObject();
	double ns = 1e9 / clock_hz;

	cJSON_AddNumberToObject(o, "port", id);
	cJSON_AddNumberToObject(o, "reads", (double)c->reads);
	cJSON_AddNumberToObject(o, "writes", (double)c->writes);
	cJSON_AddNumberToObject(o, "read_data_bytes", (double)c->read_data_flits * 16);
	cJSON_AddNumberToObject(o, "latency_min_ns", c->lat_count ? c->lat_min_cycles * ns : 0);
	cJSON_AddNumberToObject(o, "latency_avg_ns",
	                        c->lat_count ? (double)c->lat_sum_cycles / c->lat_count * ns : 0);
	cJSON_AddNumberToObject(o, "latency_max_ns", c->lat_count ? c->lat_max_cycles * ns : 0);
	cJSON_AddNumberToObject(o, "tag_peak", c->tag_peak);
	cJSON_AddNumberToObject(o, "lost_tags", c->lost_tags);
	return o;
}

static void add_num_or_null(cJSON *o, const char *key, bool have, double v)
{
	if (have && !isnan(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* Bandwidth of what was measured until the failure. */
static double failure_bandwidth(const struct sb_point_spec *s, const struct sb_point_result *r)
{
	struct sb_bench_counts bc = {
	    .reads = r->failure.total.reads,
	    .writes = r->failure.total.writes,
	    .size = s->size,
	    .posted = s->posted,
	    .duration_ns = (double)r->failure.t_ns,
	    .clock_hz = r->clock_hz,
	};
	struct sb_bench_metrics m;

	return sb_bench_metrics(&bc, &m) < 0 ? 0 : m.bandwidth_gbps;
}

static void thermal_json(cJSON *o, const struct sb_point_spec *s, const struct sb_point_result *r)
{
	cJSON *c, *f;

	add_num_or_null(o, "temp_c_steady", r->has_temperature, r->temperature_c);
	add_num_or_null(o, "temp_c_start", r->has_temperature, r->temperature_start_c);
	add_num_or_null(o, "temp_c_max", r->has_temperature, r->temperature_max_c);
	if (r->has_temperature)
		cJSON_AddBoolToObject(o, "temp_steady", r->temperature_steady);
	else
		cJSON_AddNullToObject(o, "temp_steady");
	add_num_or_null(o, "power_w_avg", r->has_power, r->power_w);
	add_num_or_null(o, "power_w_max", r->has_power, r->power_max_w);
	cJSON_AddNumberToObject(o, "instrument_samples", r->inst_samples);
	if (r->has_cooling) {
		c = cJSON_AddObjectToObject(o, "cooling");
		cJSON_AddStringToObject(c, "name", r->cooling.name);
		cJSON_AddNumberToObject(c, "fan_supply_v", r->cooling.fan_supply_v);
		cJSON_AddNumberToObject(c, "fan_supply_a", r->cooling.fan_supply_a);
		cJSON_AddNumberToObject(c, "fan_rpm", r->cooling.fan_rpm);
		cJSON_AddNumberToObject(c, "desk_fan_distance_cm", r->cooling.desk_fan_distance_cm);
		cJSON_AddNumberToObject(c, "cooling_power_w", r->cooling.cooling_power_w);
	} else {
		cJSON_AddNullToObject(o, "cooling");
	}
	if (r->settled.waited) {
		c = cJSON_AddObjectToObject(o, "settle");
		cJSON_AddBoolToObject(c, "settled", r->settled.settled);
		cJSON_AddNumberToObject(c, "seconds", r->settled.seconds);
		cJSON_AddNumberToObject(c, "heatsink_c", r->settled.heatsink_c);
		cJSON_AddNumberToObject(c, "span_c", r->settled.span_c);
	} else {
		cJSON_AddNullToObject(o, "settle");
	}
	cJSON_AddBoolToObject(o, "failed", r->failed);
	if (!r->failed) {
		cJSON_AddNullToObject(o, "failure");
		return;
	}
	f = cJSON_AddObjectToObject(o, "failure");
	cJSON_AddNumberToObject(f, "t_ns", (double)r->failure.t_ns);
	cJSON_AddNumberToObject(f, "after_ns", (double)r->failure.after_ns);
	add_num_or_null(f, "temp_c", r->has_temperature, r->failure.temperature_c);
	add_num_or_null(f, "power_w", r->has_power, r->failure.power_w);
	cJSON_AddNumberToObject(f, "reads", (double)r->failure.total.reads);
	cJSON_AddNumberToObject(f, "writes", (double)r->failure.total.writes);
	cJSON_AddNumberToObject(f, "read_data_bytes",
	                        (double)r->failure.total.read_data_flits * 16);
	cJSON_AddNumberToObject(f, "bandwidth_gbps", failure_bandwidth(s, r));
	cJSON_AddNumberToObject(f, "thermal_events", r->failure.thermal_events);
	cJSON_AddNumberToObject(f, "errstat", r->failure.errstat);
}

static int print_json(const struct sb_point_spec *s, const char *pattern,
                      const struct sb_point_result *r, const struct sb_provenance *prov,
                      const char *trace_path, const struct sb_capture_stats *trace)
{
	const struct sb_bench_metrics *m = &r->metrics;
	cJSON *o = cJSON_CreateObject(), *ports, *pj;
	char buf[32];
	char *text;

	cJSON_AddStringToObject(o, "schema", "stackbench-point");
	/* 1.1: port_order, per_port[].port; 1.2: provenance.device.profile, .shard, .slurm */
	cJSON_AddStringToObject(o, "schema_version", "1.2");
	cJSON_AddStringToObject(o, "type", sb_req_type_name(s->type));
	cJSON_AddNumberToObject(o, "size_b", s->size);
	cJSON_AddStringToObject(o, "pattern", pattern);
	snprintf(buf, sizeof(buf), "0x%09llx", (unsigned long long)s->mask);
	cJSON_AddStringToObject(o, "mask", buf);
	snprintf(buf, sizeof(buf), "0x%09llx", (unsigned long long)s->antimask);
	cJSON_AddStringToObject(o, "antimask", buf);
	cJSON_AddStringToObject(o, "mode", s->gen == SB_GEN_LINEAR ? "linear" : "random");
	cJSON_AddNumberToObject(o, "ports", r->ports);
	cJSON_AddStringToObject(o, "port_order", sb_port_order_name(s->port_order));
	cJSON_AddNumberToObject(o, "stream", s->stream);
	cJSON_AddNumberToObject(o, "bandwidth_gbps", m->bandwidth_gbps);
	cJSON_AddNumberToObject(o, "payload_gbps", m->payload_gbps);
	cJSON_AddNumberToObject(o, "mrps", m->mrps);
	cJSON_AddNumberToObject(o, "reads", (double)r->total.reads);
	cJSON_AddNumberToObject(o, "writes", (double)r->total.writes);
	cJSON_AddNumberToObject(o, "latency_min_ns", m->lat_min_ns);
	cJSON_AddNumberToObject(o, "latency_avg_ns", m->lat_avg_ns);
	cJSON_AddNumberToObject(o, "latency_max_ns", m->lat_max_ns);
	cJSON_AddNumberToObject(o, "occupancy", m->occupancy);
	cJSON_AddNumberToObject(o, "duration_ns", (double)s->duration_ns);
	cJSON_AddNumberToObject(o, "elapsed_ns", (double)r->duration_ns);
	cJSON_AddBoolToObject(o, "fast_forward", r->fast_forward);
	cJSON_AddNumberToObject(o, "ff_skipped_ns", (double)r->ff_skipped_ns);
	/* Min / max latency are not extrapolated over fast-forwarded time: the span they cover. */
	cJSON_AddNumberToObject(
	    o, "latency_minmax_span_ns",
	    (double)(r->duration_ns - min_u64(r->ff_skipped_ns, r->duration_ns)));
	cJSON_AddNumberToObject(o, "lost_tags", r->total.lost_tags);
	thermal_json(o, s, r);
	sb_cli_capture_json(o, trace_path, trace);
	if (s->stream) {
		cJSON_AddNumberToObject(o, "stream_groups", r->stream_groups);
		cJSON_AddNumberToObject(o, "mismatches", r->mismatches);
	}
	ports = cJSON_AddArrayToObject(o, "per_port");
	for (unsigned i = 0; i < r->ports; i++)
		cJSON_AddItemToArray(ports, port_json(r->port_id[i], &r->port[i], r->clock_hz));
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

/* The cooling state: what the actuator knows of it, nothing it does not (NAN). */
static void print_cooling(const struct sb_cooling_state *c)
{
	char line[512];
	size_t n = (size_t)snprintf(line, sizeof(line), "cooling    %s:", c->name);

#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (n < sizeof(line))                                                              \
			n += (size_t)snprintf(line + n, sizeof(line) - n, __VA_ARGS__);            \
	} while (0)
	if (!isnan(c->fan_supply_v) && !isnan(c->fan_supply_a))
		ADD(" fans %.1f V %.2f A", c->fan_supply_v, c->fan_supply_a);
	for (unsigned i = 0; i < c->nfans && i < SB_COOLING_MAX_FANS; i++)
		ADD("%s fan %u %.0f %% %.0f rpm", i ? "," : "", i, c->duty_pct[i], c->rpm[i]);
	if (!c->nfans && !isnan(c->fan_rpm))
		ADD(" (%.0f rpm)", c->fan_rpm);
	if (!isnan(c->desk_fan_distance_cm))
		ADD(c->desk_fan_distance_cm > 0 ? ", desk fan %.0f cm" : ", desk fan off",
		    c->desk_fan_distance_cm);
	if (!isnan(c->cooling_power_w))
		ADD(", %.2f W", c->cooling_power_w);
	if (c->has_heatsink)
		ADD(", heatsink %.1f C, ambient %.1f C", c->heatsink_c, c->ambient_c);
	if (c->failsafe)
		ADD(", FAIL-SAFE (%s)", c->faults_text[0] ? c->faults_text : "faults latched");
#undef ADD
	puts(line);
}

static void print_text(const struct sb_point_spec *s, const char *pattern,
                       const struct sb_point_result *r)
{
	const struct sb_bench_metrics *m = &r->metrics;
	char dur[32], ids[4 * SB_POINT_MAX_PORTS + 16] = "";
	size_t n = 0;

	/* Name the ports when they are not 0..N-1 (--port-order spread). */
	for (unsigned i = 0; i < r->ports; i++)
		if (r->port_id[i] != i) {
			n = (size_t)snprintf(ids, sizeof(ids), " (");
			for (unsigned j = 0; j < r->ports && n < sizeof(ids); j++)
				n += (size_t)snprintf(ids + n, sizeof(ids) - n, "%s%u",
				                      j ? "," : "", r->port_id[j]);
			if (n < sizeof(ids))
				snprintf(ids + n, sizeof(ids) - n, ")");
			break;
		}
	printf("point      %s %u B, pattern %s, %s addresses, %u port%s%s%s\n",
	       sb_req_type_name(s->type), s->size, pattern,
	       s->gen == SB_GEN_LINEAR ? "linear" : "random", r->ports, r->ports == 1 ? "" : "s",
	       ids, s->stream ? " (stream)" : "");
	printf("duration   %s%s\n", sb_cli_fmt_ns(dur, sizeof(dur), (double)r->duration_ns),
	       r->fast_forward ? " (steady state fast-forwarded)" : "");
	printf("requests   %llu reads, %llu writes\n", (unsigned long long)r->total.reads,
	       (unsigned long long)r->total.writes);
	printf("bandwidth  %.3f GB/s (payload %.3f GB/s), %.2f MRPS\n", m->bandwidth_gbps,
	       m->payload_gbps, m->mrps);
	if (r->total.lat_count)
		printf("latency    min %.1f ns, avg %.1f ns, max %.1f ns (reads in flight %.1f)\n",
		       m->lat_min_ns, m->lat_avg_ns, m->lat_max_ns, m->occupancy);
	if (r->total.lat_count && r->fast_forward)
		printf("           min / max over the %.3f us simulated, not extrapolated\n",
		       (r->duration_ns - min_u64(r->ff_skipped_ns, r->duration_ns)) / 1e3);
	if (s->stream)
		printf("stream     %u groups, %u mismatches\n", r->stream_groups, r->mismatches);
	if (r->total.lost_tags)
		printf("lost tags  %u\n", r->total.lost_tags);
	if (r->has_cooling)
		print_cooling(&r->cooling);
	if (r->settled.waited)
		printf(
		    "settle     heatsink %.2f C, moved %.2f C over the window: %s after %.1f s\n",
		    r->settled.heatsink_c, r->settled.span_c,
		    r->settled.settled ? "settled" : "NOT settled, gave up", r->settled.seconds);
	if (r->has_temperature)
		printf("hot spot   %.1f C (start %.1f C, max %.1f C%s)\n", r->temperature_c,
		       r->temperature_start_c, r->temperature_max_c,
		       r->temperature_steady ? ", steady" : ", not steady");
	if (r->has_power)
		printf("power      %.1f W mean, %.1f W max\n", r->power_w, r->power_max_w);
	if (r->failed) {
		printf("FAILED     thermal failure seen at %.3f s", r->failure.t_ns / 1e9);
		if (r->has_temperature)
			printf(", hot spot %.1f C", r->failure.temperature_c);
		printf("; measured until then: %llu reads, %llu writes, %.3f GB/s\n",
		       (unsigned long long)r->failure.total.reads,
		       (unsigned long long)r->failure.total.writes, failure_bandwidth(s, r));
	}
}

enum {
	OPT_MODE = 256,
	OPT_PORT_ORDER,
	OPT_STREAM,
	OPT_ITER,
	OPT_SEED,
	OPT_NOFF,
	OPT_ADDRMODE,
	OPT_POSTED,
	OPT_DURATION_S,
	OPT_COOLING,
	OPT_SETTLE,
	OPT_SETTLE_TOL,
	OPT_SETTLE_MAX,
	OPT_CAMERA,
	OPT_METER,
	OPT_RIG,
	OPT_SAMPLE_MS,
	OPT_NO_INST,
};

struct inst_args {
	const char *camera, *meter, *rig;
	bool none;
};

static void close_instruments(struct sb_point_instruments *in)
{
	sb_temp_source_close(in->temp);
	sb_power_source_close(in->power);
	sb_cooling_close(in->cooling);
	memset(in, 0, sizeof(*in));
}

/* Open the instruments asked for (sim: by default on a simulated board). */
static int open_instruments(struct sb_device *dev, const struct inst_args *a,
                            struct sb_point_instruments *in)
{
	bool sim = !strcmp(sb_device_transport(dev), "sim") && !a->none;
	const char *camera = a->camera ? a->camera : sim ? "sim:" : NULL;
	const char *meter = a->meter ? a->meter : sim ? "sim:" : NULL;
	const char *rig = a->rig ? a->rig : sim ? "sim:" : NULL;
	int err;

	memset(in, 0, sizeof(*in));
	if ((camera && (err = sb_temp_source_open(&in->temp, camera, dev)) < 0) ||
	    (meter && (err = sb_power_source_open(&in->power, meter, dev)) < 0) ||
	    (rig && (err = sb_cooling_open(&in->cooling, rig, dev)) < 0)) {
		close_instruments(in);
		return err;
	}
	return 0;
}

/* The --device of a point's command line (the default without one). */
static const char *prescan_device(int argc, char **argv)
{
	const char *uri = sb_cli_default_device();

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--device") && i + 1 < argc)
			uri = argv[++i];
		else if (!strncmp(argv[i], "--device=", 9))
			uri = argv[i] + 9;
	}
	return uri;
}

static int point_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"device", required_argument, NULL, 'd'},
	    {"type", required_argument, NULL, 't'},
	    {"size", required_argument, NULL, 's'},
	    {"mask", required_argument, NULL, 'm'},
	    {"pattern", required_argument, NULL, 'p'},
	    {"ports", required_argument, NULL, 'n'},
	    {"port-order", required_argument, NULL, OPT_PORT_ORDER},
	    {"mode", required_argument, NULL, OPT_MODE},
	    {"duration-us", required_argument, NULL, 'D'},
	    {"stream", required_argument, NULL, OPT_STREAM},
	    {"iterations", required_argument, NULL, OPT_ITER},
	    {"seed", required_argument, NULL, OPT_SEED},
	    {"addr-mode", required_argument, NULL, OPT_ADDRMODE},
	    {"posted", no_argument, NULL, OPT_POSTED},
	    {"no-fast-forward", no_argument, NULL, OPT_NOFF},
	    {"duration-s", required_argument, NULL, OPT_DURATION_S},
	    {"cooling", required_argument, NULL, OPT_COOLING},
	    {"settle", required_argument, NULL, OPT_SETTLE},
	    {"settle-tolerance", required_argument, NULL, OPT_SETTLE_TOL},
	    {"settle-max", required_argument, NULL, OPT_SETTLE_MAX},
	    {"camera", required_argument, NULL, OPT_CAMERA},
	    {"meter", required_argument, NULL, OPT_METER},
	    {"rig", required_argument, NULL, OPT_RIG},
	    {"sample-ms", required_argument, NULL, OPT_SAMPLE_MS},
	    {"no-instruments", no_argument, NULL, OPT_NO_INST},
	    SB_CLI_CAPTURE_OPTIONS,
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *uri = sb_cli_default_device(), *pattern = "all", *mask_arg = NULL;
	struct sb_point_spec spec;
	struct sb_point_result res;
	struct sb_provenance prov;
	struct sb_board_info board;
	struct sb_hmc_status hst;
	struct sb_geometry geo;
	struct sb_point_instruments inst;
	struct inst_args ia = {0};
	struct sb_cli_capture_opts co = {0};
	struct sb_capture_stats cst;
	struct sb_device *dev;
	struct sb_lock *lock;
	uint64_t v, ports = 0;
	double d;
	bool duration_set = false;
	int c, err, json = 0, rc;

	/* An HBM2 card has its own engine and options (cmd_point_hbm.c). */
	if (sb_cli_device_is_hbm(prescan_device(argc, argv)))
		return sb_cli_point_hbm(argc, argv);
	sb_point_spec_init(&spec, 0);
	spec.settle = (struct sb_cooling_settle){
	    .tolerance_c = SB_COOLING_SETTLE_TOLERANCE_C,
	    .window_s = 0,
	    .max_s = SB_COOLING_SETTLE_MAX_S,
	    .poll_s = SB_COOLING_SETTLE_POLL_S,
	};
	sb_capture_config_init(&co.cfg);
	memset(&cst, 0, sizeof(cst));
	while ((c = getopt_long(argc, argv, "t:s:m:p:D:jh", opts, NULL)) != -1) {
		if ((rc = sb_cli_capture_option("point", c, optarg, &co)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'd':
			uri = optarg;
			break;
		case 't':
			if (sb_req_type_parse(optarg, &spec.type) < 0)
				return sb_cli_usage_error("point", "%s", sb_error_detail());
			break;
		case 's':
			if (sb_parse_u64(optarg, "--size", false, &v) < 0)
				return sb_cli_usage_error("point", "%s", sb_error_detail());
			if (v < 16 || v > 128 || v % 16)
				return sb_cli_usage_error(
				    "point", "--size %s: 16..128 in steps of 16", optarg);
			spec.size = (unsigned)v;
			break;
		case 'm':
			mask_arg = optarg;
			break;
		case 'p':
			pattern = optarg;
			break;
		case 'n':
			if (sb_parse_u64(optarg, "--ports", false, &ports) < 0 || !ports)
				return sb_cli_usage_error("point", "--ports %s: a number >= 1",
				                          optarg);
			break;
		case OPT_PORT_ORDER:
			if (sb_port_order_parse(optarg, &spec.port_order) < 0)
				return sb_cli_usage_error("point", "--port-order: %s",
				                          sb_error_detail());
			break;
		case OPT_MODE:
			if (!strcmp(optarg, "random"))
				spec.gen = SB_GEN_RANDOM;
			else if (!strcmp(optarg, "linear"))
				spec.gen = SB_GEN_LINEAR;
			else
				return sb_cli_usage_error("point", "--mode %s: random or linear",
				                          optarg);
			break;
		case 'D':
			if (duration_set)
				return sb_cli_usage_error("point",
				                          "give --duration-us or --duration-s, "
				                          "not both");
			if (sb_parse_u64(optarg, "--duration-us", false, &v) < 0 ||
			    v > 1000000000ull)
				return sb_cli_usage_error("point", "--duration-us %s: microseconds",
				                          optarg);
			spec.duration_ns = v * 1000;
			duration_set = true;
			break;
		case OPT_DURATION_S:
			if (duration_set)
				return sb_cli_usage_error("point",
				                          "give --duration-us or --duration-s, "
				                          "not both");
			if (sb_parse_double(optarg, "--duration-s", &d) < 0 || !(d > 0) || d > 1e6)
				return sb_cli_usage_error("point", "--duration-s %s: seconds (> 0)",
				                          optarg);
			spec.duration_ns = (uint64_t)llround(d * 1e9);
			duration_set = true;
			break;
		case OPT_COOLING:
			spec.cooling = optarg;
			break;
		case OPT_SETTLE:
			if (sb_parse_double(optarg, "--settle", &d) < 0 || !(d >= 0) || d > 3600)
				return sb_cli_usage_error("point", "--settle %s: 0..3600 seconds",
				                          optarg);
			spec.settle.window_s = d;
			break;
		case OPT_SETTLE_TOL:
			if (sb_parse_double(optarg, "--settle-tolerance", &d) < 0 || !(d >= 0.01) ||
			    d > 20)
				return sb_cli_usage_error(
				    "point", "--settle-tolerance %s: 0.01..20 C", optarg);
			spec.settle.tolerance_c = d;
			break;
		case OPT_SETTLE_MAX:
			if (sb_parse_double(optarg, "--settle-max", &d) < 0 || !(d >= 0) ||
			    d > 86400)
				return sb_cli_usage_error(
				    "point", "--settle-max %s: 0..86400 seconds", optarg);
			spec.settle.max_s = d;
			break;
		case OPT_CAMERA:
			ia.camera = optarg;
			break;
		case OPT_METER:
			ia.meter = optarg;
			break;
		case OPT_RIG:
			ia.rig = optarg;
			break;
		case OPT_SAMPLE_MS:
			if (sb_parse_double(optarg, "--sample-ms", &d) < 0 || !(d >= 0.001) ||
			    d > 1e6)
				return sb_cli_usage_error("point", "--sample-ms %s: milliseconds",
				                          optarg);
			spec.inst_sample_ns = (uint64_t)llround(d * 1e6);
			break;
		case OPT_NO_INST:
			ia.none = true;
			break;
		case OPT_STREAM:
			if (sb_parse_u64(optarg, "--stream", false, &v) < 0 || v < 1 ||
			    v > SB_STREAM_MAX)
				return sb_cli_usage_error("point", "--stream %s: 1..%d", optarg,
				                          SB_STREAM_MAX);
			spec.stream = (unsigned)v;
			break;
		case OPT_ITER:
			if (sb_parse_u64(optarg, "--iterations", true, &spec.iterations) < 0)
				return sb_cli_usage_error("point", "%s", sb_error_detail());
			break;
		case OPT_SEED:
			if (sb_parse_u64(optarg, "--seed", false, &spec.seed) < 0)
				return sb_cli_usage_error("point", "%s", sb_error_detail());
			break;
		case OPT_ADDRMODE:
			if (sb_parse_u64(optarg, "--addr-mode", false, &v) < 0 ||
			    (v != 32 && v != 64 && v != 128))
				return sb_cli_usage_error("point", "--addr-mode %s: 32, 64 or 128",
				                          optarg);
			spec.addr_mode_bytes = (unsigned)v;
			break;
		case OPT_POSTED:
			spec.posted = true;
			break;
		case OPT_NOFF:
			spec.fast_forward = false;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			point_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("point", "bad option");
		}
	}
	if (optind != argc)
		return sb_cli_usage_error("point", "unexpected argument '%s'", argv[optind]);
	if (spec.iterations && !duration_set && !spec.stream)
		spec.duration_ns = 0; /* iteration-limited: run until done */
	if (spec.cooling && ia.none)
		return sb_cli_usage_error("point",
		                          "--cooling needs a cooling rig (not --no-instruments)");
	if ((rc = sb_cli_capture_check("point", &co)) != 0)
		return rc;
	if (co.out && spec.stream)
		return sb_cli_usage_error("point",
		                          "--trace records GUPS ports, not --stream groups");
	/* The board is ours alone while the point runs (busy: exit 3, naming the holder). */
	if ((err = sb_board_lock(&lock, uri)) < 0)
		return sb_cli_device_error(err);
	if ((err = sb_device_open(&dev, uri)) < 0) {
		sb_lock_release(lock);
		return sb_cli_device_error(err);
	}
	if ((err = open_instruments(dev, &ia, &inst)) < 0) {
		rc = err == SB_ERR_URI || err == SB_ERR_INVAL
		         ? sb_cli_usage_error("point", "%s", sb_error_detail())
		         : sb_cli_device_error(err); /* a missing or busy instrument: exit 3 */
		sb_device_close(dev);
		sb_lock_release(lock);
		return rc;
	}
	spec.inst = inst;
	if ((err = sb_board_info(dev, &board)) < 0 || (err = sb_hmc_status(dev, &hst)) < 0) {
		rc = sb_cli_error(err);
		goto out;
	}
	spec.ports = ports ? (unsigned)ports : sb_device_port_count(dev);
	geo.vaults = board.vaults;
	geo.banks_per_vault = board.banks_per_vault;
	geo.block_bytes = spec.addr_mode_bytes ? spec.addr_mode_bytes : hst.addr_mode_bytes;
	if (sb_pattern_masks(pattern, &geo, &spec.mask, &spec.antimask) < 0 ||
	    (mask_arg && sb_mask_range(mask_arg, &spec.mask) < 0)) {
		rc = sb_cli_usage_error("point", "%s", sb_error_detail());
		goto out;
	}
	if (co.out && (err = sb_capture_open(&spec.capture, dev, &co.cfg, co.out)) < 0) {
		rc = err == SB_ERR_INVAL ? sb_cli_usage_error("point", "%s", sb_error_detail())
		                         : sb_cli_error(err);
		goto out;
	}
	sb_provenance_init(&prov);
	sb_provenance_now(prov.started_at, sizeof(prov.started_at));
	if ((err = sb_point_run(dev, &spec, &res)) < 0) {
		rc = err == SB_ERR_INVAL || err == SB_ERR_NOT_FOUND
		         ? sb_cli_usage_error("point", "%s", sb_error_detail())
		         : sb_cli_error(err);
		goto out;
	}
	if (spec.capture) {
		err = sb_capture_close(spec.capture, &cst);
		spec.capture = NULL;
		if (err < 0) {
			rc = sb_cli_error(err);
			goto out;
		}
	}
	sb_provenance_now(prov.finished_at, sizeof(prov.finished_at));
	sb_provenance_device(&prov, dev);
	sb_provenance_instruments(&prov, &spec.inst);
	sb_provenance_point(&prov, spec.seed, &res);
	if (json)
		rc = print_json(&spec, pattern, &res, &prov, co.out, &cst);
	else {
		print_text(&spec, pattern, &res);
		if (co.out)
			sb_cli_capture_print(co.out, "requests", &cst);
		rc = SB_EXIT_OK;
	}
	if (res.failed && rc == SB_EXIT_OK)
		rc = SB_EXIT_FAILURE;
	if (res.inst_lost) {
		fprintf(stderr,
		        "stackbench: an instrument was lost at %.3f s of the point (%s); the ports "
		        "were stopped and it reconnected: the point is incomplete\n",
		        res.inst_lost_ns / 1e9, res.inst_lost_msg);
		rc = SB_EXIT_FAILURE;
	}
out:
	sb_capture_abort(spec.capture);
	close_instruments(&inst);
	sb_device_close(dev);
	sb_lock_release(lock);
	return rc;
}

const struct sb_cli_command sb_cmd_point = {
    .name = "point",
    .summary = "run one measurement point and print its metrics",
    .run = point_run,
    .help = point_help,
};
