/* SPDX-License-Identifier: MIT */
/*
 * stackbench devices: the boards on this machine (libpci), where they sit (hwloc) and the URI
 * to open each with.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/pcidev.h"
#include "stackbench/provenance.h"
#include "stackbench/topology.h"

static void devices_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench devices [--all] [--json] [--topology FILE] [--sysfs DIR]\n"
	        "\n"
	        "List the boards on this machine: Pico Computing modules (vendor 19de) and, for\n"
	        "the VM tests, QEMU ivshmem devices (1af4:1110). For each: the PCI address, the\n"
	        "ids, the driver bound to it, its NUMA node, the CPUs near it and the URI to open\n"
	        "it with (dev: when the stackbench module drives it, else pci:).\n"
	        "\n"
	        "  -a, --all            every PCI function, not only boards\n"
	        "  -j, --json           print one JSON object (schema stackbench-devices)\n"
	        "      --topology FILE  take NUMA locality from a recorded hwloc topology\n"
	        "                       (lstopo --of xml) instead of this machine's\n"
	        "      --sysfs DIR      scan this copy of /sys/bus/pci instead\n"
	        "  -h, --help           this help\n");
}

struct row {
	const struct sb_pcidev *p;
	struct sb_locality loc;
	bool have_loc;
	char uri[300];
};

static void make_row(struct row *r, const struct sb_pcidev *p, struct sb_topology *topo)
{
	char node[64];

	memset(r, 0, sizeof(*r));
	r->p = p;
	r->have_loc = topo && sb_topology_pci_locality(topo, p->bdf, &r->loc) == 0;
	if (!r->have_loc) {
		r->loc.numa_node = p->numa_node;
		sb_error_clear();
	}
	if (p->kind == SB_PCIDEV_OTHER)
		r->uri[0] = '\0';
	else if (sb_pcidev_char_device(p->bdf, node, sizeof(node)) == 0)
		snprintf(r->uri, sizeof(r->uri), "dev:%s", node);
	else
		snprintf(r->uri, sizeof(r->uri), "pci:%s", p->bdf);
}

static void print_text(const struct row *rows, size_t n)
{
	printf("%-12s  %-9s  %-7s  %-12s  %4s  %-16s  %s\n", "bdf", "ids", "kind", "driver", "numa",
	       "cpus", "uri");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		char ids[16], numa[16];

		snprintf(ids, sizeof(ids), "%04x:%04x", r->p->vendor, r->p->device);
		if (r->loc.numa_node >= 0)
			snprintf(numa, sizeof(numa), "%d", r->loc.numa_node);
		else
			snprintf(numa, sizeof(numa), "-");
		printf("%-12s  %-9s  %-7s  %-12s  %4s  %-16s  %s\n", r->p->bdf, ids,
		       sb_pcidev_kind_name(r->p->kind), r->p->driver[0] ? r->p->driver : "-", numa,
		       r->have_loc && r->loc.cpus[0] ? r->loc.cpus : "-", r->uri[0] ? r->uri : "-");
	}
}

static int print_json(const struct row *rows, size_t n)
{
	cJSON *root = cJSON_CreateObject(), *arr, *pj;
	struct sb_provenance prov;
	char buf[16], *text;

	if (!root)
		return SB_EXIT_FAILURE;
	/* docs/cli.md: a JSON document says what it is, and what made it */
	cJSON_AddStringToObject(root, "schema", "stackbench-devices");
	/* 1.1: provenance.device.profile, .shard, .slurm */
	cJSON_AddStringToObject(root, "schema_version", "1.1");
	sb_provenance_init(&prov);
	if ((pj = sb_provenance_cjson(&prov)))
		cJSON_AddItemToObject(root, "provenance", pj);
	arr = cJSON_AddArrayToObject(root, "devices");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		cJSON *o = cJSON_CreateObject();

		if (!o)
			break;
		cJSON_AddStringToObject(o, "bdf", r->p->bdf);
		snprintf(buf, sizeof(buf), "%04x", r->p->vendor);
		cJSON_AddStringToObject(o, "vendor", buf);
		snprintf(buf, sizeof(buf), "%04x", r->p->device);
		cJSON_AddStringToObject(o, "device", buf);
		cJSON_AddStringToObject(o, "kind", sb_pcidev_kind_name(r->p->kind));
		if (r->p->driver[0])
			cJSON_AddStringToObject(o, "driver", r->p->driver);
		else
			cJSON_AddNullToObject(o, "driver");
		if (r->loc.numa_node >= 0)
			cJSON_AddNumberToObject(o, "numa_node", r->loc.numa_node);
		else
			cJSON_AddNullToObject(o, "numa_node");
		if (r->have_loc) {
			cJSON_AddStringToObject(o, "cpus", r->loc.cpus);
			cJSON_AddNumberToObject(o, "ncpus", r->loc.ncpus);
		} else {
			cJSON_AddNullToObject(o, "cpus");
		}
		if (r->p->register_bar >= 0)
			cJSON_AddNumberToObject(o, "register_bar", r->p->register_bar);
		if (r->uri[0])
			cJSON_AddStringToObject(o, "uri", r->uri);
		cJSON_AddItemToArray(arr, o);
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		return SB_EXIT_FAILURE;
	printf("%s\n", text);
	free(text);
	return SB_EXIT_OK;
}

static int devices_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"all", no_argument, NULL, 'a'},
	    {"json", no_argument, NULL, 'j'},
	    {"topology", required_argument, NULL, 't'},
	    {"sysfs", required_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *xml = NULL;
	struct sb_topology *topo = NULL;
	struct sb_pcidev *list;
	struct row *rows;
	unsigned flags = 0;
	int json = 0, c, err, rc;
	size_t n;

	while ((c = getopt_long(argc, argv, "ajh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			flags |= SB_PCIDEV_ALL;
			break;
		case 'j':
			json = 1;
			break;
		case 't':
			xml = optarg;
			break;
		case 'S':
			sb_pcidev_set_sysfs_root(optarg);
			break;
		case 'h':
			devices_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("devices", "bad option");
		}
	}
	if (optind != argc)
		return sb_cli_usage_error("devices", "unexpected argument '%s'", argv[optind]);
	if ((err = sb_pcidev_scan(&list, &n, flags)) < 0)
		return sb_cli_error(err);
	err = sb_topology_new(&topo, xml);
	if (err < 0) {
		if (xml) {
			sb_pcidev_free(list);
			return sb_cli_error(err);
		}
		sb_warn("no topology, so no NUMA locality: %s", sb_error_detail());
		topo = NULL;
	}
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows) {
		sb_topology_free(topo);
		sb_pcidev_free(list);
		return sb_cli_error(SB_ERR_NOMEM);
	}
	for (size_t i = 0; i < n; i++)
		make_row(&rows[i], &list[i], topo);
	if (json) {
		rc = print_json(rows, n);
	} else {
		if (n)
			print_text(rows, n);
		else
			printf("no boards found (Pico 19de:*, QEMU ivshmem 1af4:1110) in %s\n",
			       sb_pcidev_sysfs_root());
		rc = SB_EXIT_OK;
	}
	free(rows);
	sb_topology_free(topo);
	sb_pcidev_free(list);
	return rc;
}

const struct sb_cli_command sb_cmd_devices = {
    .name = "devices",
    .summary = "list the boards on this machine and where they sit",
    .run = devices_run,
    .help = devices_help,
};
