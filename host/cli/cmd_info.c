/* SPDX-License-Identifier: MIT */
/*
 * stackbench info URI: the register blocks a board describes, and its identity.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "sb_regmap.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/hbm.h"
#include "stackbench/provenance.h"

static void info_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench info [--json] [URI]\n"
	        "\n"
	        "Open the board at URI (default: $STACKBENCH_DEVICE or sim:), walk its register\n"
	        "blocks and print each block's offset, type, name and version, the firmware\n"
	        "identity and the number of GUPS ports; on an HBM2 card (sim:u280) the card,\n"
	        "its controller configuration and every engine port with its pseudo channel.\n"
	        "\n"
	        "  -j, --json   print one JSON object instead of text\n"
	        "  -h, --help   this help\n");
}

static const char *vname(char *buf, size_t size, uint32_t v)
{
	snprintf(buf, size, "%u.%u", SB_BLK_VERSION_MAJOR(v), SB_BLK_VERSION_MINOR(v));
	return buf;
}

/* An HBM2 card's engine ports: index, stack and block offset from the port's own info. */
static int hbm_port_info(struct sb_device *dev, unsigned i, uint32_t *off, unsigned *index,
                         unsigned *stack, unsigned *max_out)
{
	uint32_t v;
	int err;

	if ((err = sb_device_find_block(dev, SB_BLK_HBM_PORT_TYPE, i, off)) < 0 ||
	    (err = sb_device_read32(dev, *off + SB_HBM_PORT_INFO, &v)) < 0)
		return err;
	*index = SB_FIELD_GET(SB_HBM_PORT_INFO_INDEX, v);
	*stack = SB_FIELD_GET(SB_HBM_PORT_INFO_STACK, v);
	*max_out = SB_FIELD_GET(SB_HBM_PORT_INFO_MAX_OUTSTANDING, v);
	return 0;
}

static cJSON *hbm_json(struct sb_device *dev, const struct sb_hbm_card *c)
{
	cJSON *o = cJSON_CreateObject(), *ports;
	char buf[16];

	if (!o)
		return NULL;
	snprintf(buf, sizeof(buf), "0x%04x", c->board_id);
	cJSON_AddStringToObject(o, "board_id", buf);
	cJSON_AddStringToObject(o, "engine", "hbm2_axi");
	cJSON_AddNumberToObject(o, "ports", c->ports);
	cJSON_AddNumberToObject(o, "stacks", c->stacks);
	cJSON_AddNumberToObject(o, "pseudo_channels", c->pcs);
	cJSON_AddNumberToObject(o, "pc_mb", c->pc_mb);
	cJSON_AddNumberToObject(o, "bank_groups", c->bank_groups);
	cJSON_AddNumberToObject(o, "banks_per_pc", c->banks_per_pc);
	cJSON_AddNumberToObject(o, "axi_clock_hz", (double)c->axi_clock_hz);
	cJSON_AddNumberToObject(o, "hbm_clock_hz", (double)c->hbm_clock_hz);
	cJSON_AddBoolToObject(o, "simulated", c->simulated);
	cJSON_AddBoolToObject(o, "global_addressing", c->global_addressing);
	cJSON_AddStringToObject(o, "addr_map", sb_hbm_map_text(c->mc.addr_map));
	cJSON_AddStringToObject(o, "page", c->mc.closed_page ? "closed" : "open");
	cJSON_AddBoolToObject(o, "reorder", c->mc.reorder);
	cJSON_AddStringToObject(o, "refresh", c->mc.refresh ? "single_bank" : "all_bank");
	cJSON_AddBoolToObject(o, "temp_refresh", c->mc.temp_refresh);
	ports = cJSON_AddArrayToObject(o, "engine_ports");
	for (unsigned i = 0; i < c->ports; i++) {
		unsigned index, stack, max_out;
		uint32_t off;
		cJSON *p;

		if (hbm_port_info(dev, i, &off, &index, &stack, &max_out) < 0)
			break;
		p = cJSON_CreateObject();
		cJSON_AddNumberToObject(p, "port", index);
		cJSON_AddNumberToObject(p, "stack", stack);
		cJSON_AddNumberToObject(p, "offset", off);
		cJSON_AddNumberToObject(p, "max_outstanding", max_out);
		cJSON_AddItemToArray(ports, p);
	}
	return o;
}

static void hbm_text(struct sb_device *dev, const struct sb_hbm_card *c)
{
	printf("\ncard       HBM2, board id 0x%04x%s: %u stacks, %u pseudo channels of %u MB "
	       "(%u banks in %u groups)\n",
	       c->board_id, c->simulated ? " (simulated)" : "", c->stacks, c->pcs, c->pc_mb,
	       c->banks_per_pc, c->bank_groups);
	printf("clocks     AXI %.0f MHz, HBM %.0f MHz\n", c->axi_clock_hz / 1e6,
	       c->hbm_clock_hz / 1e6);
	printf("controller address map %s, %s page, reordering %s, %s refresh%s, switch %s\n",
	       sb_hbm_map_text(c->mc.addr_map), c->mc.closed_page ? "closed" : "open",
	       c->mc.reorder ? "on" : "off", c->mc.refresh ? "single-bank" : "all-bank",
	       c->mc.temp_refresh ? " (temperature-controlled)" : "",
	       c->global_addressing ? "on (global addressing)" : "off");
	printf("stacks     %u C, %u C%s\n", c->stack_c[0], c->stack_c[1],
	       c->cattrip ? ", CATTRIP" : "");
	printf("engine     hbm2_axi: %u AXI3 ports, one traffic engine each\n", c->ports);
	printf("\n  port  stack  PC  offset  IDs\n");
	for (unsigned i = 0; i < c->ports; i++) {
		unsigned index, stack, max_out;
		uint32_t off;

		if (hbm_port_info(dev, i, &off, &index, &stack, &max_out) < 0)
			break;
		printf("  %4u  %5u  %2u  0x%04x  %3u\n", index, stack, index, off, max_out);
	}
}

static int print_json(struct sb_device *dev)
{
	const struct sb_fw_info *fw = sb_device_fw(dev);
	cJSON *root = cJSON_CreateObject(), *blocks;
	char buf[32];
	char *text;

	if (!root)
		return SB_EXIT_FAILURE;
	cJSON_AddStringToObject(root, "schema", "stackbench-device");
	/* 1.1: provenance.device.profile, .shard, .slurm; 1.2: hbm2 (an HBM2 card) */
	cJSON_AddStringToObject(root, "schema_version", "1.2");
	cJSON_AddStringToObject(root, "uri", sb_device_uri(dev));
	cJSON_AddStringToObject(root, "transport", sb_device_transport(dev));
	snprintf(buf, sizeof(buf), "0x%08x", fw->magic);
	cJSON_AddStringToObject(root, "magic", buf);
	cJSON_AddStringToObject(root, "fw_version", vname(buf, sizeof(buf), fw->fw_version));
	snprintf(buf, sizeof(buf), "0x%08x", fw->build_id);
	cJSON_AddStringToObject(root, "build_id", buf);
	snprintf(buf, sizeof(buf), "0x%08x", fw->regmap_hash);
	cJSON_AddStringToObject(root, "regmap_hash", buf);
	cJSON_AddBoolToObject(root, "regmap_matches", fw->regmap_hash == SB_REGMAP_HASH);
	if (sb_hbm_is_card(dev)) {
		struct sb_hbm_card card;
		cJSON *cj;

		if (sb_hbm_card_read(dev, &card) < 0) {
			cJSON_Delete(root);
			return sb_cli_error(SB_ERR_DEVICE);
		}
		cJSON_AddNumberToObject(root, "ports", card.ports);
		if ((cj = hbm_json(dev, &card)))
			cJSON_AddItemToObject(root, "hbm2", cj);
	} else {
		cJSON_AddNumberToObject(root, "ports", sb_device_port_count(dev));
	}
	{
		/* the same facts every result stores */
		struct sb_provenance prov;
		cJSON *pj;

		sb_provenance_init(&prov);
		sb_provenance_device(&prov, dev);
		if ((pj = sb_provenance_cjson(&prov)))
			cJSON_AddItemToObject(root, "provenance", pj);
	}
	blocks = cJSON_AddArrayToObject(root, "blocks");
	for (unsigned i = 0; i < sb_device_block_count(dev); i++) {
		const struct sb_block_info *b = sb_device_block(dev, i);
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "offset", b->offset);
		snprintf(buf, sizeof(buf), "0x%08x", b->type);
		cJSON_AddStringToObject(o, "type", buf);
		cJSON_AddStringToObject(o, "name", b->name ? b->name : "unknown");
		cJSON_AddStringToObject(o, "version", vname(buf, sizeof(buf), b->version));
		cJSON_AddItemToArray(blocks, o);
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		return SB_EXIT_FAILURE;
	printf("%s\n", text);
	free(text);
	return SB_EXIT_OK;
}

static void print_text(struct sb_device *dev)
{
	const struct sb_fw_info *fw = sb_device_fw(dev);
	struct sb_device_identity id;
	char buf[32];

	sb_device_identity(dev, &id);
	printf("stackbench %s\n", sb_cli_build_facts());
	printf("device     %s (transport %s)\n", sb_device_uri(dev), sb_device_transport(dev));
	if (id.detail[0])
		printf("           %s\n", id.detail);
	printf("firmware   magic 0x%08x, version %s, build 0x%08x\n", fw->magic,
	       vname(buf, sizeof(buf), fw->fw_version), fw->build_id);
	printf("regmap     hash 0x%08x (%s), %u bytes\n", fw->regmap_hash,
	       fw->regmap_hash == SB_REGMAP_HASH ? "matches this host" : "DIFFERS from this host",
	       fw->regmap_size);
	printf("\n  offset  type        version  block\n");
	for (unsigned i = 0; i < sb_device_block_count(dev); i++) {
		const struct sb_block_info *b = sb_device_block(dev, i);

		printf("  0x%04x  0x%08x  %-7s  %s\n", b->offset, b->type,
		       vname(buf, sizeof(buf), b->version), b->name ? b->name : "(unknown type)");
	}
	if (sb_hbm_is_card(dev)) {
		struct sb_hbm_card card;

		if (sb_hbm_card_read(dev, &card) < 0) {
			printf("\nHBM2 card  %s\n", sb_error_detail());
			return;
		}
		hbm_text(dev, &card);
		printf("\nports      %u\n", card.ports);
		return;
	}
	printf("\nports      %u\n", sb_device_port_count(dev));
}

static int info_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct sb_device *dev;
	const char *uri;
	int json = 0, c, err, rc;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			info_help(stdout);
			return SB_EXIT_OK;
		default:
			return sb_cli_usage_error("info", "bad option");
		}
	}
	if (argc - optind > 1)
		return sb_cli_usage_error("info", "expected at most one URI");
	uri = optind < argc ? argv[optind] : sb_cli_default_device();
	err = sb_device_open(&dev, uri);
	if (err < 0)
		return sb_cli_device_error(err);
	if (json) {
		rc = print_json(dev);
	} else {
		print_text(dev);
		rc = SB_EXIT_OK;
	}
	sb_device_close(dev);
	return rc;
}

const struct sb_cli_command sb_cmd_info = {
    .name = "info",
    .summary = "show a board's register blocks and identity",
    .run = info_run,
    .help = info_help,
};
