/* SPDX-License-Identifier: MIT */
/*
 * stackbench instruments: the cameras, meters, adapters and supplies attached to this machine
 * and the connection string to open each with; --probe: a few readings of one (cli_probe.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "stackbench/error.h"
#include "stackbench/instrument.h"
#include "stackbench/provenance.h"
#include "stackbench/util.h"

#define MAX_FOUND 64

static void instruments_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench instruments [--json] [--no-sigrok] [--dev DIR]\n"
	        "       stackbench instruments --probe CONN [--as camera|meter|cooling]\n"
	        "                              [--count N] [--interval-ms MS] [--json]\n"
	        "                              [--snapshot FILE.png [--scale N]] [--device URI]\n"
	        "\n"
	        "List the bench instruments attached to this machine and the connection string\n"
	        "to give --camera, --meter, --rig or a campaign's instruments: for each: FLIR One\n"
	        "cameras (USB 09cb:1996, flirone:BUS:ADDR) and PureThermal boards (1e4e:0100),\n"
	        "FTDI FT232R adapters with their serial numbers (wattsup:ftdi:SERIAL), USB serial\n"
	        "nodes (wattsup:/dev/ttyUSBn, sigrok:DRIVER:conn=/dev/ttyACMn), USBTMC nodes\n"
	        "(wt310:/dev/usbtmcN) and the supplies and power meters a libsigrok scan finds.\n"
	        "\n"
	        "With --probe, open one instrument (any connection string: camera, meter, supply,\n"
	        "cooling rig), print a few readings and close it: to check it reads before an\n"
	        "overnight run. Real instruments are read in real time, sim: ones on a simulated\n"
	        "board whose bench clock advances between readings. Cooling actuators are only\n"
	        "read (no configuration is applied).\n"
	        "\n"
	        "  -j, --json        print one JSON object (schema stackbench-instruments; with\n"
	        "                    --probe stackbench-probe)\n"
	        "      --no-sigrok   skip the libsigrok scan (it can take a few seconds)\n"
	        "      --dev DIR     look for device nodes in DIR instead of /dev\n"
	        "      --probe CONN  read the instrument of this connection string\n"
	        "      --as ROLE     camera, meter or cooling (default: the first of them whose\n"
	        "                    drivers know the scheme: sim: a camera, korad: a meter)\n"
	        "      --count N     readings (1..1000, default 5)\n"
	        "      --interval-ms MS  between readings (default: 200 for a camera, 1000 else)\n"
	        "      --snapshot FILE.png  a camera's last frame in false colours, the region of\n"
	        "                    interest outlined in cyan and the hot spot marked in green\n"
	        "      --scale N     each frame pixel as N x N in the snapshot (1..16, default 4)\n"
	        "      --device URI  the board of sim: instruments (default: $STACKBENCH_DEVICE\n"
	        "                    or sim:)\n"
	        "  -h, --help        this help\n"
	        "\n"
	        "Exit status: 0 (listing: also when nothing is attached); --probe: 2 for a bad\n"
	        "connection string or option, 3 for an instrument missing, busy or not\n"
	        "permitted, 1 when a reading fails.\n");
}

static int print_json(const struct sb_found_instrument *f, int n)
{
	cJSON *root = cJSON_CreateObject(), *a, *pj;
	struct sb_provenance prov;
	char *text;

	/* docs/cli.md: a JSON document says what it is, and what made it */
	cJSON_AddStringToObject(root, "schema", "stackbench-instruments");
	/* 1.1: provenance.device.profile, .shard, .slurm */
	cJSON_AddStringToObject(root, "schema_version", "1.1");
	sb_provenance_init(&prov);
	if ((pj = sb_provenance_cjson(&prov)))
		cJSON_AddItemToObject(root, "provenance", pj);
	a = cJSON_AddArrayToObject(root, "instruments");

	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "kind", f[i].kind);
		cJSON_AddStringToObject(o, "what", f[i].what);
		if (f[i].conn[0])
			cJSON_AddStringToObject(o, "conn", f[i].conn);
		else
			cJSON_AddNullToObject(o, "conn");
		cJSON_AddStringToObject(o, "note", f[i].note);
		cJSON_AddItemToArray(a, o);
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		return sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory printing JSON"));
	printf("%s\n", text);
	cJSON_free(text);
	return SB_EXIT_OK;
}

static int instruments_run(int argc, char **argv)
{
	enum {
		OPT_NO_SIGROK = 256,
		OPT_DEV,
		OPT_PROBE,
		OPT_AS,
		OPT_INTERVAL,
		OPT_SNAPSHOT,
		OPT_SCALE,
		OPT_DEVICE,
		OPT_COUNT
	};
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"no-sigrok", no_argument, NULL, OPT_NO_SIGROK},
	    {"dev", required_argument, NULL, OPT_DEV},
	    {"probe", required_argument, NULL, OPT_PROBE},
	    {"as", required_argument, NULL, OPT_AS},
	    {"count", required_argument, NULL, OPT_COUNT},
	    {"interval-ms", required_argument, NULL, OPT_INTERVAL},
	    {"snapshot", required_argument, NULL, OPT_SNAPSHOT},
	    {"scale", required_argument, NULL, OPT_SCALE},
	    {"device", required_argument, NULL, OPT_DEVICE},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct sb_cli_probe_opts po = {.role = -1, .count = 5, .scale = 4};
	struct sb_found_instrument *f;
	const char *dev_dir = "/dev";
	bool json = false, sigrok = true, probe_only = false;
	uint64_t v;
	int c, n, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case OPT_PROBE:
			po.conn = optarg;
			break;
		case OPT_AS:
			if (sb_cli_probe_role(optarg, &po.role) < 0)
				return sb_cli_usage_error(
				    "instruments", "--as %s: camera, meter or cooling", optarg);
			probe_only = true;
			break;
		case OPT_COUNT:
			if (sb_parse_u64(optarg, "--count", false, &v) < 0 || !v || v > 1000)
				return sb_cli_usage_error("instruments", "--count %s: 1..1000",
				                          optarg);
			po.count = (unsigned)v;
			probe_only = true;
			break;
		case OPT_INTERVAL:
			if (sb_parse_u64(optarg, "--interval-ms", false, &v) < 0 || !v ||
			    v > 600000)
				return sb_cli_usage_error("instruments",
				                          "--interval-ms %s: 1..600000", optarg);
			po.interval_ms = (unsigned)v;
			probe_only = true;
			break;
		case OPT_SNAPSHOT:
			po.snapshot = optarg;
			probe_only = true;
			break;
		case OPT_SCALE:
			if (sb_parse_u64(optarg, "--scale", false, &v) < 0 || !v || v > 16)
				return sb_cli_usage_error("instruments", "--scale %s: 1..16",
				                          optarg);
			po.scale = (unsigned)v;
			probe_only = true;
			break;
		case OPT_DEVICE:
			po.device = optarg;
			probe_only = true;
			break;
		case OPT_NO_SIGROK:
			sigrok = false;
			break;
		case OPT_DEV:
			dev_dir = optarg;
			break;
		case 'h':
			instruments_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("instruments", "bad option");
		}
	}
	if (optind != argc)
		return sb_cli_usage_error("instruments", "unexpected argument '%s'", argv[optind]);
	if (probe_only && !po.conn)
		return sb_cli_usage_error("instruments",
		                          "--as, --count, --interval-ms, --snapshot, --scale and "
		                          "--device go with --probe CONN");
	if (po.conn) {
		po.json = json;
		if (!po.interval_ms)
			po.interval_ms =
			    po.role == SB_INSTRUMENT_TEMPERATURE ||
			            (po.role < 0 && (!strncmp(po.conn, "flirone:", 8) ||
			                             !strncmp(po.conn, "sim:", 4)))
			        ? 200
			        : 1000;
		return sb_cli_probe(&po);
	}
	f = calloc(MAX_FOUND, sizeof(*f));
	if (!f)
		return sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
	n = sb_instruments_discover(f, MAX_FOUND, dev_dir, sigrok);
	if (json) {
		rc = print_json(f, n);
	} else {
		rc = SB_EXIT_OK;
		if (!n)
			printf("no instruments found (USB cameras, FTDI adapters, %s/ttyUSB*, "
			       "ttyACM*, usbtmc*, hwmon sensors%s)\n",
			       dev_dir, sigrok ? ", libsigrok supplies and meters" : "");
		for (int i = 0; i < n; i++)
			printf("%-8s %-48s %s%s%s\n", f[i].kind, f[i].what,
			       f[i].conn[0] ? f[i].conn : "-", f[i].note[0] ? "  # " : "",
			       f[i].note);
	}
	free(f);
	return rc;
}

const struct sb_cli_command sb_cmd_instruments = {
    .name = "instruments",
    .summary = "list the cameras, meters and supplies attached, with their connection strings",
    .run = instruments_run,
    .help = instruments_help,
};
