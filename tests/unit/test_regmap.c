/* SPDX-License-Identifier: MIT */
/*
 * The generated register map against its description: regmap.yaml is parsed here on its own
 * (libfyaml directly, not regmapgen) and every block, register, field and layout entry is
 * compared with the generated table; the macros host code uses are checked against the table.
 */
#include <criterion/criterion.h>
#include <libfyaml.h>
#include <stdlib.h>
#include <string.h>

#include "sb_regmap.h"

static struct fy_document *doc;

static void load(void)
{
	doc = fy_document_build_from_file(NULL, SB_REGMAP_YAML_PATH);
	cr_assert_not_null(doc, "cannot parse %s", SB_REGMAP_YAML_PATH);
	cr_assert_eq(fy_document_resolve(doc), 0);
}

static void unload(void)
{
	fy_document_destroy(doc);
}

TestSuite(regmap, .init = load, .fini = unload);

static unsigned long long num(struct fy_node *map, const char *key, unsigned long long dflt)
{
	struct fy_node *n = fy_node_mapping_lookup_by_string(map, key, FY_NT);
	char buf[64];
	size_t j = 0;
	const char *s;

	if (!n)
		return dflt;
	s = fy_node_get_scalar0(n);
	cr_assert_not_null(s);
	for (; *s && j < sizeof(buf) - 1; s++)
		if (*s != '_')
			buf[j++] = *s;
	buf[j] = '\0';
	return strtoull(buf, NULL, 0);
}

static const char *str(struct fy_node *map, const char *key)
{
	struct fy_node *n = fy_node_mapping_lookup_by_string(map, key, FY_NT);

	return n ? fy_node_get_scalar0(n) : NULL;
}

static const struct sb_regmap_block *table_block(const char *name)
{
	for (unsigned i = 0; i < sb_regmap_nblocks; i++)
		if (!strcmp(sb_regmap_blocks[i].name, name))
			return &sb_regmap_blocks[i];
	return NULL;
}

static const struct sb_regmap_reg *table_reg(const struct sb_regmap_block *b, const char *name)
{
	for (unsigned i = 0; i < b->nregs; i++)
		if (!strcmp(b->regs[i].name, name))
			return &b->regs[i];
	return NULL;
}

static void bits(struct fy_node *f, unsigned *lo, unsigned *hi)
{
	const char *s = str(f, "bits");

	cr_assert_not_null(s);
	if (sscanf(s, "%u:%u", hi, lo) != 2) {
		*lo = (unsigned)strtoul(s, NULL, 10);
		*hi = *lo;
	}
}

Test(regmap, every_block_register_and_field_matches_the_description)
{
	struct fy_node *blocks =
	    fy_node_by_path(fy_document_root(doc), "/blocks", FY_NT, FYNWF_DONT_FOLLOW);
	struct fy_node *bn, *rn, *fn;
	void *bi = NULL;
	unsigned nblocks = 0, nregs_total = 0;

	cr_assert_not_null(blocks);
	while ((bn = fy_node_sequence_iterate(blocks, &bi))) {
		const struct sb_regmap_block *b = table_block(str(bn, "name"));
		struct fy_node *regs = fy_node_mapping_lookup_by_string(bn, "registers", FY_NT);
		unsigned major, minor, nregs = 0;
		void *ri = NULL;

		cr_assert_not_null(b, "block %s missing from the table", str(bn, "name"));
		cr_assert_eq(b->type, num(bn, "type", 0), "block %s type", b->name);
		cr_assert_eq(b->size, num(bn, "size", 0), "block %s size", b->name);
		cr_assert_eq(b->sim_only,
		             str(bn, "simulation_only") &&
		                 !strcmp(str(bn, "simulation_only"), "true"),
		             "block %s simulation_only", b->name);
		cr_assert_eq(sscanf(str(bn, "version"), "%u.%u", &major, &minor), 2);
		cr_assert_eq(b->version, major << 16 | minor, "block %s version", b->name);
		while ((rn = fy_node_sequence_iterate(regs, &ri))) {
			const struct sb_regmap_reg *r = table_reg(b, str(rn, "name"));
			struct fy_node *fields =
			    fy_node_mapping_lookup_by_string(rn, "fields", FY_NT);
			void *fi = NULL;
			unsigned nf = 0;

			cr_assert_not_null(r, "register %s.%s missing", b->name, str(rn, "name"));
			cr_assert_eq(r->offset, num(rn, "offset", 0), "%s.%s offset", b->name,
			             r->name);
			cr_assert_eq(r->width, num(rn, "width", 32), "%s.%s width", b->name,
			             r->name);
			cr_assert_eq(r->count, num(rn, "count", 1), "%s.%s count", b->name,
			             r->name);
			if (r->count > 1)
				cr_assert_eq(r->stride, num(rn, "stride", 0));
			while (fields && (fn = fy_node_sequence_iterate(fields, &fi))) {
				unsigned lo, hi;

				cr_assert_lt(nf, r->nfields);
				cr_assert_str_eq(r->fields[nf].name, str(fn, "name"));
				bits(fn, &lo, &hi);
				cr_assert_eq(r->fields[nf].lo, lo, "%s.%s.%s", b->name, r->name,
				             str(fn, "name"));
				cr_assert_eq(r->fields[nf].hi, hi);
				cr_assert_eq(r->fields[nf].reset, num(fn, "reset", 0));
				nf++;
			}
			cr_assert_eq(nf, r->nfields, "%s.%s field count", b->name, r->name);
			nregs++;
		}
		cr_assert_eq(nregs, b->nregs, "block %s register count", b->name);
		nregs_total += nregs;
		nblocks++;
	}
	cr_assert_eq(nblocks, sb_regmap_nblocks);
	cr_assert_gt(nregs_total, 60);
}

Test(regmap, layout_matches_the_description)
{
	struct fy_node *layout =
	    fy_node_by_path(fy_document_root(doc), "/layout", FY_NT, FYNWF_DONT_FOLLOW);
	struct fy_node *in;
	void *it = NULL;
	unsigned i = 0;

	while ((in = fy_node_sequence_iterate(layout, &it))) {
		const struct sb_regmap_instance *l = &sb_regmap_layout[i++];

		cr_assert_str_eq(sb_regmap_blocks[l->block].name, str(in, "block"));
		cr_assert_eq(l->offset, num(in, "offset", 0));
		cr_assert_eq(l->count, num(in, "count", 1));
	}
	cr_assert_eq(i, sb_regmap_nlayout);
	cr_assert_eq(SB_REGMAP_MAGIC, num(fy_node_by_path(fy_document_root(doc), "/regmap", FY_NT,
	                                                  FYNWF_DONT_FOLLOW),
	                                  "magic", 0));
	cr_assert_eq(SB_REGMAP_SIZE, num(fy_node_by_path(fy_document_root(doc), "/regmap", FY_NT,
	                                                 FYNWF_DONT_FOLLOW),
	                                 "size", 0));
}

/* Further boards (the HBM2 card): each its own register space, fw_id at 0, as described. */
Test(regmap, boards_match_the_description)
{
	struct fy_node *boards =
	    fy_node_by_path(fy_document_root(doc), "/boards", FY_NT, FYNWF_DONT_FOLLOW);
	struct fy_node *bn;
	void *it = NULL;
	unsigned b = 0;

	while ((bn = fy_node_sequence_iterate(boards, &it))) {
		const struct sb_regmap_board *bd = &sb_regmap_boards[b++];
		struct fy_node *layout = fy_node_mapping_lookup_by_string(bn, "layout", FY_NT);
		struct fy_node *in;
		void *lit = NULL;
		unsigned i = 0;

		cr_assert_str_eq(bd->name, str(bn, "name"));
		cr_assert_eq(bd->size, num(bn, "size", 0));
		while ((in = fy_node_sequence_iterate(layout, &lit))) {
			const struct sb_regmap_instance *l = &bd->layout[i++];

			cr_assert_str_eq(sb_regmap_blocks[l->block].name, str(in, "block"));
			cr_assert_eq(l->offset, num(in, "offset", 0));
			cr_assert_eq(l->count, num(in, "count", 1));
			cr_assert_eq(l->offset % SB_REGMAP_ALIGN, 0);
			cr_assert_leq(l->offset + (l->count - 1) * l->stride +
			                  sb_regmap_blocks[l->block].size,
			              bd->size);
		}
		cr_assert_eq(i, bd->nlayout);
		cr_assert_str_eq(sb_regmap_blocks[bd->layout[0].block].name, "fw_id");
		cr_assert_eq(bd->layout[0].offset, 0);
	}
	cr_assert_eq(b, sb_regmap_nboards);
	cr_assert_geq(b, 1);
	cr_assert_eq(SB_REGSPACE_HBM2_SIZE, sb_regmap_boards[0].size);
	cr_assert_eq(SB_REGSPACE_HBM2_HBM_PORT_COUNT, 32);
}

/* The macros host code uses agree with the table. */
#define REG(blk, reg) table_reg(table_block(blk), reg)

Test(regmap, macros_agree_with_the_table)
{
	cr_assert_eq(SB_BLK_GUPS_PORT_TYPE, table_block("gups_port")->type);
	cr_assert_eq(SB_GUPS_PORT_CONTROL, REG("gups_port", "control")->offset);
	cr_assert_eq(SB_GUPS_PORT_READS_LO, REG("gups_port", "reads")->offset);
	cr_assert_eq(SB_GUPS_PORT_READS_HI, REG("gups_port", "reads")->offset + 4);
	cr_assert_eq(SB_GUPS_PORT_ADDR_MASK_RESET, REG("gups_port", "addr_mask")->reset);
	cr_assert_eq(SB_GUPS_PORT_ADDR_MASK_RESET, 0x3FFFFFFFFull);
	cr_assert_eq(SB_GUPS_PORT_LAT_MIN_RESET, 0xFFFFFFFFu);
	cr_assert_eq(SB_STREAM_ENTRY_CMD(5), REG("stream", "entry_cmd")->offset + 5 * 0x10);
	cr_assert_eq(SB_STREAM_ENTRY_CMD_COUNT, 28);
	cr_assert_eq(SB_LAYOUT_GUPS_PORT_COUNT, 9);
	cr_assert_eq(SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_TYPE, SB_GUPS_PORT_CONTROL_TYPE_RW), 0x20u);
	cr_assert_eq(SB_FIELD_GET(SB_HMC_CTRL_STATUS_ERRSTAT, 0x7F00u), 0x7Fu);
	cr_assert_eq(SB_FW_ID_REGMAP_HASH_RESET, SB_REGMAP_HASH);
	cr_assert_eq(SB_BLK_SIM_CTRL_SIM_ONLY, 1);
	cr_assert_eq(SB_BLK_GUPS_PORT_SIM_ONLY, 0);
	cr_assert(table_block("sim_ctrl")->sim_only);
	/* Pulse bits are neither storage nor read back. */
	cr_assert_eq(REG("gups_port", "control")->pulse_mask[0], SB_GUPS_PORT_CONTROL_START_MASK);
	cr_assert_eq(REG("gups_port", "control")->write_mask[0] & SB_GUPS_PORT_CONTROL_START_MASK,
	             0);
	cr_assert_eq(REG("irq", "status")->w1c_mask[0], 0x1Fu);
	cr_assert_eq(REG("gups_port", "iter_limit")->write_mask[1], 0xFFFFFFFFu);
}
