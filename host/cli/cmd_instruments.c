/* SPDX-License-Identifier: MIT */
/*
 * stackbench instruments: the cameras, meters, adapters and supplies attached to this machine
 * and the connection string to open each with.
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

#define MAX_FOUND 64

static void instruments_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench instruments [--json] [--no-sigrok] [--dev DIR]\n"
	        "\n"
	        "List the bench instruments attached to this machine and the connection string\n"
	        "to give --camera, --meter, --rig or a campaign's instruments: for each: FLIR One\n"
	        "cameras (USB 09cb:1996, flirone:BUS:ADDR) and PureThermal boards (1e4e:0100),\n"
	        "FTDI FT232R adapters with their serial numbers (wattsup:ftdi:SERIAL), USB serial\n"
	        "nodes (wattsup:/dev/ttyUSBn, sigrok:DRIVER:conn=/dev/ttyACMn), USBTMC nodes\n"
	        "(wt310:/dev/usbtmcN) and the supplies and power meters a libsigrok scan finds.\n"
	        "\n"
	        "  -j, --json        print one JSON object (schema stackbench-instruments)\n"
	        "      --no-sigrok   skip the libsigrok scan (it can take a few seconds)\n"
	        "      --dev DIR     look for device nodes in DIR instead of /dev\n"
	        "  -h, --help        this help\n"
	        "\n"
	        "Exit status: 0 (also when nothing is attached).\n");
}

static int print_json(const struct sb_found_instrument *f, int n)
{
	cJSON *root = cJSON_CreateObject(), *a, *pj;
	struct sb_provenance prov;
	char *text;

	/* docs/cli.md: a JSON document says what it is, and what made it */
	cJSON_AddStringToObject(root, "schema", "stackbench-instruments");
	cJSON_AddStringToObject(root, "schema_version", "1.0");
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
	enum { OPT_NO_SIGROK = 256, OPT_DEV };
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"no-sigrok", no_argument, NULL, OPT_NO_SIGROK},
	    {"dev", required_argument, NULL, OPT_DEV},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct sb_found_instrument *f;
	const char *dev_dir = "/dev";
	bool json = false, sigrok = true;
	int c, n, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
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
			       "ttyACM*, usbtmc*%s)\n",
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
