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
#include "stackbench/provenance.h"

static void info_help(FILE *out)
{
	fprintf(out,
	        "usage: stackbench info [--json] [URI]\n"
	        "\n"
	        "Open the board at URI (default: $STACKBENCH_DEVICE or sim:), walk its register\n"
	        "blocks and print each block's offset, type, name and version, the firmware\n"
	        "identity and the number of GUPS ports.\n"
	        "\n"
	        "  -j, --json   print one JSON object instead of text\n"
	        "  -h, --help   this help\n");
}

static const char *vname(char *buf, size_t size, uint32_t v)
{
	snprintf(buf, size, "%u.%u", SB_BLK_VERSION_MAJOR(v), SB_BLK_VERSION_MINOR(v));
	return buf;
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
	/* 1.1: provenance.device.profile, .shard, .slurm */
	cJSON_AddStringToObject(root, "schema_version", "1.1");
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
	cJSON_AddNumberToObject(root, "ports", sb_device_port_count(dev));
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
