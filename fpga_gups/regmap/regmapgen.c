/* SPDX-License-Identifier: MIT */
/*
 * regmapgen: turn the register-map description (regmap.yaml) into the C header, the C table,
 * the Verilog include and the Markdown documentation. Run by the build; see regmap.yaml for
 * the conventions of the description.
 *
 *   regmapgen regmap.yaml --header H --table C --verilog VH --doc MD
 */
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfyaml.h>

#include "stackbench/error.h"
#include "stackbench/util.h"
#include "stackbench/yaml.h"

#define MAX_VALUES 16
#define MAX_FIELDS 32
#define MAX_REGS 64
#define MAX_BLOCKS 32
#define MAX_LAYOUT 32
#define MAX_RECORDS 8
#define MAX_BOARDS 4

enum { ACC_RO, ACC_RW, ACC_WO, ACC_W1C };
static const char *const access_names[] = {"ro", "rw", "wo", "w1c", NULL};
static const char *const access_enum[] = {"SB_ACC_RO", "SB_ACC_RW", "SB_ACC_WO", "SB_ACC_W1C"};

struct value {
	const char *name;
	uint32_t value;
};

struct field {
	const char *name;
	unsigned lo, hi;
	int access; /* -1: the register's */
	bool pulse;
	uint32_t reset;
	struct value values[MAX_VALUES];
	unsigned nvalues;
	const char *description;
	int line;
};

enum reset_kind { RESET_VALUE, RESET_HASH, RESET_SIZE };

struct reg {
	const char *name;
	uint32_t offset;
	unsigned width, count;
	unsigned valid_bits; /* implemented bits (low), the rest read 0 */
	uint32_t stride;
	int access;
	uint64_t reset;
	enum reset_kind reset_kind;
	struct field fields[MAX_FIELDS];
	unsigned nfields;
	const char *description;
	int line;
};

struct block {
	const char *name;
	uint32_t type, version, size;
	bool sim_only; /* implemented by the simulated board only */
	struct reg regs[MAX_REGS];
	unsigned nregs;
	const char *description;
	int line;
};

struct instance {
	unsigned block;
	uint32_t offset, stride;
	unsigned count;
};

struct record_field {
	const char *name;
	unsigned word, lo, hi;
	const char *description;
};

struct record {
	const char *name;
	unsigned words;
	struct record_field fields[MAX_FIELDS];
	unsigned nfields;
	const char *description;
};

/* A further board: its own register space with its own layout (fw_id at 0 like every board). */
struct board {
	const char *name, *description;
	uint32_t size;
	struct instance layout[MAX_LAYOUT];
	unsigned nlayout;
};

struct regmap {
	const char *name;
	uint32_t version, magic, size, align, hash;
	struct block blocks[MAX_BLOCKS];
	unsigned nblocks;
	struct instance layout[MAX_LAYOUT]; /* the primary board (the AC-510 GUPS design) */
	unsigned nlayout;
	struct board boards[MAX_BOARDS];
	unsigned nboards;
	struct record records[MAX_RECORDS];
	unsigned nrecords;
};

/* ---- parsing ---------------------------------------------------------------------------- */

static int parse_version(const struct sb_yaml *y, struct fy_node *map, uint32_t *out)
{
	const char *s;
	unsigned major, minor;
	char tail;
	int err = sb_yaml_get_str(y, map, "version", true, &s);

	if (err < 0)
		return err;
	if (sscanf(s, "%u.%u%c", &major, &minor, &tail) != 2 || major > 0xFFFF || minor > 0xFFFF)
		return sb_yaml_error(y, sb_yaml_get(map, "version"), SB_ERR_PARSE,
		                     "key 'version': expected MAJOR.MINOR, got '%s'", s);
	*out = major << 16 | minor;
	return 0;
}

static bool is_ident(const char *s)
{
	if (!*s || !(islower((unsigned char)*s)))
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int get_name(const struct sb_yaml *y, struct fy_node *map, const char **out)
{
	int err = sb_yaml_get_str(y, map, "name", true, out);

	if (err < 0)
		return err;
	if (!is_ident(*out))
		return sb_yaml_error(y, sb_yaml_get(map, "name"), SB_ERR_PARSE,
		                     "name '%s' must be lower case letters, digits and '_'", *out);
	return 0;
}

static int parse_bits(const struct sb_yaml *y, struct fy_node *map, unsigned *lo, unsigned *hi)
{
	struct fy_node *n = sb_yaml_get(map, "bits");
	const char *s;
	char tail;
	int err;

	if (!n)
		return sb_yaml_error(y, map, SB_ERR_PARSE, "missing key 'bits'");
	err = sb_yaml_to_str(y, n, "key 'bits'", &s);
	if (err < 0)
		return err;
	if (sscanf(s, "%u:%u%c", hi, lo, &tail) == 2) {
		if (*lo > *hi)
			return sb_yaml_error(y, n, SB_ERR_PARSE, "bits '%s': write HI:LO", s);
		return 0;
	}
	if (sscanf(s, "%u%c", lo, &tail) == 1) {
		*hi = *lo;
		return 0;
	}
	return sb_yaml_error(y, n, SB_ERR_PARSE, "bits '%s': expected N or HI:LO", s);
}

static uint64_t width_max(unsigned width)
{
	return width >= 64 ? UINT64_MAX : (1ull << width) - 1;
}

static int parse_field(const struct sb_yaml *y, struct fy_node *fn, struct reg *r, struct field *f)
{
	static const char *const keys[] = {"name",  "bits",   "access",      "pulse",
	                                   "reset", "values", "description", NULL};
	struct fy_node *vals;
	uint64_t v;
	int err;

	memset(f, 0, sizeof(*f));
	f->access = -1;
	f->line = sb_yaml_line(fn);
	if ((err = sb_yaml_expect_map(y, fn, "a field")) < 0 ||
	    (err = sb_yaml_check_keys(y, fn, "field", keys)) < 0 ||
	    (err = get_name(y, fn, &f->name)) < 0 ||
	    (err = parse_bits(y, fn, &f->lo, &f->hi)) < 0 ||
	    (err = sb_yaml_get_enum(y, fn, "access", false, access_names, &f->access)) < 0 ||
	    (err = sb_yaml_get_bool(y, fn, "pulse", false, &f->pulse)) < 0 ||
	    (err = sb_yaml_get_str(y, fn, "description", false, &f->description)) < 0)
		return err;
	if (f->hi >= r->width)
		return sb_yaml_error(y, fn, SB_ERR_PARSE,
		                     "field '%s': bit %u beyond a %u-bit register", f->name, f->hi,
		                     r->width);
	if (f->hi - f->lo + 1 > 32)
		return sb_yaml_error(y, fn, SB_ERR_PARSE, "field '%s' is wider than 32 bits",
		                     f->name);
	err = sb_yaml_get_u64(y, fn, "reset", false, 0, width_max(f->hi - f->lo + 1), &v);
	if (err < 0)
		return err;
	f->reset = err ? (uint32_t)v : 0;
	vals = sb_yaml_get(fn, "values");
	if (vals) {
		const char *key;
		struct fy_node *val, *kn;
		void *it = NULL;

		if ((err = sb_yaml_expect_map(y, vals, "key 'values'")) < 0)
			return err;
		while (sb_yaml_map_next(vals, &it, &key, &val, &kn)) {
			char what[96];

			if (f->nvalues == MAX_VALUES)
				return sb_yaml_error(y, kn, SB_ERR_PARSE, "too many values");
			if (!is_ident(key))
				return sb_yaml_error(y, kn, SB_ERR_PARSE,
				                     "value name '%s' is not an identifier", key);
			snprintf(what, sizeof(what), "value '%s'", key);
			err = sb_yaml_to_u64(y, val, what, 0, width_max(f->hi - f->lo + 1), &v);
			if (err < 0)
				return err;
			f->values[f->nvalues].name = key;
			f->values[f->nvalues].value = (uint32_t)v;
			f->nvalues++;
		}
	}
	if (f->pulse && (f->access == ACC_RO || (f->access < 0 && r->access == ACC_RO)))
		return sb_yaml_error(y, fn, SB_ERR_PARSE,
		                     "field '%s': a pulse field cannot be read-only", f->name);
	return 0;
}

static int parse_reg(const struct sb_yaml *y, struct fy_node *rn, struct block *b, struct reg *r)
{
	static const char *const keys[] = {"name",        "offset",     "width", "count",
	                                   "stride",      "access",     "reset", "fields",
	                                   "description", "valid_bits", NULL};
	struct fy_node *fields, *reset, *fn;
	uint64_t v;
	void *it = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	r->width = 32;
	r->count = 1;
	r->access = ACC_RW;
	r->line = sb_yaml_line(rn);
	if ((err = sb_yaml_expect_map(y, rn, "a register")) < 0 ||
	    (err = sb_yaml_check_keys(y, rn, "register", keys)) < 0 ||
	    (err = get_name(y, rn, &r->name)) < 0)
		return err;
	if ((err = sb_yaml_get_u64(y, rn, "offset", true, 0, b->size, &v)) < 0)
		return err;
	r->offset = (uint32_t)v;
	if ((err = sb_yaml_get_u64(y, rn, "width", false, 32, 64, &v)) < 0)
		return err;
	if (err) {
		if (v != 32 && v != 64)
			return sb_yaml_error(y, sb_yaml_get(rn, "width"), SB_ERR_PARSE,
			                     "register '%s': width must be 32 or 64", r->name);
		r->width = (unsigned)v;
	}
	r->valid_bits = r->width;
	if ((err = sb_yaml_get_u64(y, rn, "valid_bits", false, 1, r->width, &v)) < 0)
		return err;
	if (err)
		r->valid_bits = (unsigned)v;
	if ((err = sb_yaml_get_u64(y, rn, "count", false, 1, 256, &v)) < 0)
		return err;
	if (err)
		r->count = (unsigned)v;
	r->stride = r->width / 8;
	if ((err = sb_yaml_get_u64(y, rn, "stride", r->count > 1, 4, b->size, &v)) < 0)
		return err;
	if (err)
		r->stride = (uint32_t)v;
	if ((err = sb_yaml_get_enum(y, rn, "access", true, access_names, &r->access)) < 0 ||
	    (err = sb_yaml_get_str(y, rn, "description", false, &r->description)) < 0)
		return err;
	if (r->offset % 4 || r->stride % 4)
		return sb_yaml_error(y, rn, SB_ERR_PARSE,
		                     "register '%s': offset and stride must be multiples of 4",
		                     r->name);
	if (r->offset < 0xC)
		return sb_yaml_error(y, rn, SB_ERR_PARSE,
		                     "register '%s': offsets 0x0..0xB hold the block header",
		                     r->name);
	if (r->offset + (r->count - 1) * r->stride + r->width / 8 > b->size)
		return sb_yaml_error(y, rn, SB_ERR_PARSE,
		                     "register '%s' extends past the block size 0x%x", r->name,
		                     b->size);
	if (r->count > 1 && r->stride < r->width / 8)
		return sb_yaml_error(y, rn, SB_ERR_PARSE,
		                     "register '%s': stride smaller than the register", r->name);
	reset = sb_yaml_get(rn, "reset");
	if (reset) {
		const char *s = NULL;

		sb_yaml_to_str(y, reset, "key 'reset'", &s);
		if (s && !strcmp(s, "regmap_hash"))
			r->reset_kind = RESET_HASH;
		else if (s && !strcmp(s, "regmap_size"))
			r->reset_kind = RESET_SIZE;
		else if ((err = sb_yaml_to_u64(y, reset, "key 'reset'", 0, width_max(r->valid_bits),
		                               &r->reset)) < 0)
			return err;
	}
	fields = sb_yaml_get(rn, "fields");
	if (!fields)
		return 0;
	if ((err = sb_yaml_expect_seq(y, fields, "key 'fields'")) < 0)
		return err;
	if (reset)
		return sb_yaml_error(
		    y, reset, SB_ERR_PARSE,
		    "register '%s': give resets on its fields, not on the register", r->name);
	while ((fn = sb_yaml_seq_next(fields, &it))) {
		struct field *f;

		if (r->nfields == MAX_FIELDS)
			return sb_yaml_error(y, fn, SB_ERR_PARSE, "too many fields in '%s'",
			                     r->name);
		f = &r->fields[r->nfields];
		if ((err = parse_field(y, fn, r, f)) < 0)
			return err;
		for (unsigned i = 0; i < r->nfields; i++) {
			const struct field *o = &r->fields[i];

			if (!strcmp(o->name, f->name))
				return sb_yaml_error(y, fn, SB_ERR_PARSE,
				                     "duplicate field '%s' in '%s'", f->name,
				                     r->name);
			if (f->lo <= o->hi && o->lo <= f->hi)
				return sb_yaml_error(y, fn, SB_ERR_PARSE,
				                     "field '%s' overlaps field '%s'", f->name,
				                     o->name);
		}
		r->reset |= (uint64_t)f->reset << f->lo;
		r->nfields++;
	}
	return 0;
}

/* Byte ranges [a, a+alen) and [b, b+blen) of two registers, every element, overlap? */
static bool regs_overlap(const struct reg *a, const struct reg *b)
{
	for (unsigned i = 0; i < a->count; i++) {
		uint32_t as = a->offset + i * a->stride, ae = as + a->width / 8;

		for (unsigned j = 0; j < b->count; j++) {
			uint32_t bs = b->offset + j * b->stride, be = bs + b->width / 8;

			if (as < be && bs < ae)
				return true;
		}
	}
	return false;
}

static int parse_block(const struct sb_yaml *y, struct fy_node *bn, struct block *b)
{
	static const char *const keys[] = {"name",        "type",      "version",         "size",
	                                   "description", "registers", "simulation_only", NULL};
	struct fy_node *regs, *rn;
	uint64_t v;
	void *it = NULL;
	int err;

	memset(b, 0, sizeof(*b));
	b->line = sb_yaml_line(bn);
	if ((err = sb_yaml_expect_map(y, bn, "a block")) < 0 ||
	    (err = sb_yaml_check_keys(y, bn, "block", keys)) < 0 ||
	    (err = get_name(y, bn, &b->name)) < 0 ||
	    (err = parse_version(y, bn, &b->version)) < 0 ||
	    (err = sb_yaml_get_bool(y, bn, "simulation_only", false, &b->sim_only)) < 0 ||
	    (err = sb_yaml_get_str(y, bn, "description", false, &b->description)) < 0)
		return err;
	if ((err = sb_yaml_get_u64(y, bn, "type", true, 1, UINT32_MAX, &v)) < 0)
		return err;
	b->type = (uint32_t)v;
	if ((err = sb_yaml_get_u64(y, bn, "size", true, 0x10, 0x10000, &v)) < 0)
		return err;
	b->size = (uint32_t)v;
	if (b->size % 4)
		return sb_yaml_error(y, bn, SB_ERR_PARSE,
		                     "block '%s': size must be a multiple of 4", b->name);
	regs = sb_yaml_get(bn, "registers");
	if ((err = sb_yaml_expect_seq(y, regs, "key 'registers'")) < 0)
		return err;
	while ((rn = sb_yaml_seq_next(regs, &it))) {
		struct reg *r;

		if (b->nregs == MAX_REGS)
			return sb_yaml_error(y, rn, SB_ERR_PARSE, "too many registers in '%s'",
			                     b->name);
		r = &b->regs[b->nregs];
		if ((err = parse_reg(y, rn, b, r)) < 0)
			return err;
		for (unsigned i = 0; i < b->nregs; i++) {
			if (!strcmp(b->regs[i].name, r->name))
				return sb_yaml_error(y, rn, SB_ERR_PARSE,
				                     "duplicate register '%s' in '%s'", r->name,
				                     b->name);
			if (regs_overlap(&b->regs[i], r))
				return sb_yaml_error(y, rn, SB_ERR_PARSE,
				                     "register '%s' overlaps '%s'", r->name,
				                     b->regs[i].name);
		}
		b->nregs++;
	}
	return 0;
}

/* A layout (the primary one or a board's) in a register space of size bytes. */
static int parse_layout(const struct sb_yaml *y, struct fy_node *ln, const struct regmap *m,
                        uint32_t size, struct instance *layout, unsigned *nlayout)
{
	static const char *const keys[] = {"block", "offset", "count", "stride", NULL};
	struct fy_node *in;
	void *it = NULL;
	int err;

	if ((err = sb_yaml_expect_seq(y, ln, "key 'layout'")) < 0)
		return err;
	while ((in = sb_yaml_seq_next(ln, &it))) {
		struct instance *inst;
		const char *bname;
		uint64_t v;
		unsigned b;

		if (*nlayout == MAX_LAYOUT)
			return sb_yaml_error(y, in, SB_ERR_PARSE, "too many layout entries");
		inst = &layout[*nlayout];
		if ((err = sb_yaml_expect_map(y, in, "a layout entry")) < 0 ||
		    (err = sb_yaml_check_keys(y, in, "layout", keys)) < 0 ||
		    (err = sb_yaml_get_str(y, in, "block", true, &bname)) < 0)
			return err;
		for (b = 0; b < m->nblocks; b++)
			if (!strcmp(m->blocks[b].name, bname))
				break;
		if (b == m->nblocks)
			return sb_yaml_error(y, in, SB_ERR_PARSE, "layout names unknown block '%s'",
			                     bname);
		for (unsigned i = 0; i < *nlayout; i++)
			if (layout[i].block == b)
				return sb_yaml_error(y, in, SB_ERR_PARSE, "block '%s' placed twice",
				                     bname);
		inst->block = b;
		if ((err = sb_yaml_get_u64(y, in, "offset", true, 0, size, &v)) < 0)
			return err;
		inst->offset = (uint32_t)v;
		inst->count = 1;
		if ((err = sb_yaml_get_u64(y, in, "count", false, 1, 64, &v)) < 0)
			return err;
		if (err)
			inst->count = (unsigned)v;
		inst->stride = m->blocks[b].size;
		if ((err = sb_yaml_get_u64(y, in, "stride", inst->count > 1, 4, size, &v)) < 0)
			return err;
		if (err)
			inst->stride = (uint32_t)v;
		if (inst->offset % m->align || inst->stride % m->align)
			return sb_yaml_error(
			    y, in, SB_ERR_PARSE,
			    "block '%s': offset and stride must be multiples of 0x%x", bname,
			    m->align);
		if (inst->stride < m->blocks[b].size)
			return sb_yaml_error(y, in, SB_ERR_PARSE,
			                     "block '%s': stride smaller than its size", bname);
		if (inst->offset + (inst->count - 1) * inst->stride + m->blocks[b].size > size)
			return sb_yaml_error(y, in, SB_ERR_PARSE,
			                     "block '%s' extends past the register space", bname);
		if (*nlayout && inst->offset <= layout[*nlayout - 1].offset)
			return sb_yaml_error(y, in, SB_ERR_PARSE,
			                     "layout must list blocks in increasing offset order");
		if (*nlayout) {
			const struct instance *p = &layout[*nlayout - 1];
			uint32_t pend =
			    p->offset + (p->count - 1) * p->stride + m->blocks[p->block].size;

			if (inst->offset < pend)
				return sb_yaml_error(y, in, SB_ERR_PARSE,
				                     "block '%s' overlaps block '%s'", bname,
				                     m->blocks[p->block].name);
		}
		(*nlayout)++;
	}
	if (!*nlayout || layout[0].offset != 0 || strcmp(m->blocks[layout[0].block].name, "fw_id"))
		return sb_yaml_error(y, ln, SB_ERR_PARSE,
		                     "the first block must be 'fw_id' at offset 0");
	return 0;
}

/* Further boards: each a name, a register-space size and a layout of the blocks above. */
static int parse_boards(const struct sb_yaml *y, struct fy_node *bsn, struct regmap *m)
{
	static const char *const keys[] = {"name", "size", "description", "layout", NULL};
	struct fy_node *bn;
	void *it = NULL;
	int err;

	if ((err = sb_yaml_expect_seq(y, bsn, "key 'boards'")) < 0)
		return err;
	while ((bn = sb_yaml_seq_next(bsn, &it))) {
		struct board *bd;
		uint64_t v;

		if (m->nboards == MAX_BOARDS)
			return sb_yaml_error(y, bn, SB_ERR_PARSE, "too many boards");
		bd = &m->boards[m->nboards];
		memset(bd, 0, sizeof(*bd));
		if ((err = sb_yaml_expect_map(y, bn, "a board")) < 0 ||
		    (err = sb_yaml_check_keys(y, bn, "board", keys)) < 0 ||
		    (err = get_name(y, bn, &bd->name)) < 0 ||
		    (err = sb_yaml_get_str(y, bn, "description", false, &bd->description)) < 0 ||
		    (err = sb_yaml_get_u64(y, bn, "size", true, 0x100, 0x1000000, &v)) < 0)
			return err;
		bd->size = (uint32_t)v;
		for (unsigned i = 0; i < m->nboards; i++)
			if (!strcmp(m->boards[i].name, bd->name))
				return sb_yaml_error(y, bn, SB_ERR_PARSE,
				                     "board '%s' defined twice", bd->name);
		if ((err = parse_layout(y, sb_yaml_get(bn, "layout"), m, bd->size, bd->layout,
		                        &bd->nlayout)) < 0)
			return err;
		m->nboards++;
	}
	return 0;
}

static int parse_records(const struct sb_yaml *y, struct fy_node *rsn, struct regmap *m)
{
	static const char *const rkeys[] = {"name", "words", "description", "fields", NULL};
	static const char *const fkeys[] = {"name", "word", "bits", "description", NULL};
	struct fy_node *rn, *fields, *fn;
	void *it = NULL, *fit;
	int err;

	if ((err = sb_yaml_expect_seq(y, rsn, "key 'records'")) < 0)
		return err;
	while ((rn = sb_yaml_seq_next(rsn, &it))) {
		struct record *r;
		uint64_t v;

		if (m->nrecords == MAX_RECORDS)
			return sb_yaml_error(y, rn, SB_ERR_PARSE, "too many records");
		r = &m->records[m->nrecords];
		memset(r, 0, sizeof(*r));
		if ((err = sb_yaml_expect_map(y, rn, "a record")) < 0 ||
		    (err = sb_yaml_check_keys(y, rn, "record", rkeys)) < 0 ||
		    (err = get_name(y, rn, &r->name)) < 0 ||
		    (err = sb_yaml_get_str(y, rn, "description", false, &r->description)) < 0 ||
		    (err = sb_yaml_get_u64(y, rn, "words", true, 1, 64, &v)) < 0)
			return err;
		r->words = (unsigned)v;
		fields = sb_yaml_get(rn, "fields");
		if ((err = sb_yaml_expect_seq(y, fields, "key 'fields'")) < 0)
			return err;
		fit = NULL;
		while ((fn = sb_yaml_seq_next(fields, &fit))) {
			struct record_field *f;

			if (r->nfields == MAX_FIELDS)
				return sb_yaml_error(y, fn, SB_ERR_PARSE, "too many fields");
			f = &r->fields[r->nfields];
			memset(f, 0, sizeof(*f));
			if ((err = sb_yaml_expect_map(y, fn, "a record field")) < 0 ||
			    (err = sb_yaml_check_keys(y, fn, "record field", fkeys)) < 0 ||
			    (err = get_name(y, fn, &f->name)) < 0 ||
			    (err = sb_yaml_get_str(y, fn, "description", false, &f->description)) <
			        0 ||
			    (err = sb_yaml_get_u64(y, fn, "word", true, 0, r->words - 1, &v)) < 0 ||
			    (err = parse_bits(y, fn, &f->lo, &f->hi)) < 0)
				return err;
			f->word = (unsigned)v;
			if (f->hi > 31)
				return sb_yaml_error(y, fn, SB_ERR_PARSE,
				                     "field '%s': bits beyond 31", f->name);
			for (unsigned i = 0; i < r->nfields; i++) {
				const struct record_field *o = &r->fields[i];

				if (!strcmp(o->name, f->name) ||
				    (o->word == f->word && f->lo <= o->hi && o->lo <= f->hi))
					return sb_yaml_error(
					    y, fn, SB_ERR_PARSE,
					    "field '%s' duplicates or overlaps '%s'", f->name,
					    o->name);
			}
			r->nfields++;
		}
		m->nrecords++;
	}
	return 0;
}

/* FNV-1a over a canonical text of everything a design and a host must agree on. */
static uint32_t fnv(uint32_t h, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (const char *p = buf; *p; p++) {
		h ^= (unsigned char)*p;
		h *= 16777619u;
	}
	return h;
}

static uint32_t regmap_hash(const struct regmap *m)
{
	uint32_t h = 2166136261u;

	h = fnv(h, "%s %x %x %x %x;", m->name, m->version, m->magic, m->size, m->align);
	for (unsigned b = 0; b < m->nblocks; b++) {
		const struct block *bl = &m->blocks[b];

		h = fnv(h, "B %s %x %x %x %d;", bl->name, bl->type, bl->version, bl->size,
		        (int)bl->sim_only);
		for (unsigned r = 0; r < bl->nregs; r++) {
			const struct reg *rg = &bl->regs[r];

			h = fnv(h, "R %s %x %u %u %u %x %d %d %" PRIx64 ";", rg->name, rg->offset,
			        rg->width, rg->valid_bits, rg->count, rg->stride, rg->access,
			        (int)rg->reset_kind, rg->reset);
			for (unsigned f = 0; f < rg->nfields; f++) {
				const struct field *fl = &rg->fields[f];

				h = fnv(h, "F %s %u %u %d %d;", fl->name, fl->lo, fl->hi,
				        fl->access, (int)fl->pulse);
				for (unsigned v = 0; v < fl->nvalues; v++)
					h = fnv(h, "V %s %x;", fl->values[v].name,
					        fl->values[v].value);
			}
		}
	}
	for (unsigned i = 0; i < m->nlayout; i++)
		h = fnv(h, "L %u %x %u %x;", m->layout[i].block, m->layout[i].offset,
		        m->layout[i].count, m->layout[i].stride);
	for (unsigned b = 0; b < m->nboards; b++) {
		h = fnv(h, "G %s %x;", m->boards[b].name, m->boards[b].size);
		for (unsigned i = 0; i < m->boards[b].nlayout; i++)
			h = fnv(h, "L %u %x %u %x;", m->boards[b].layout[i].block,
			        m->boards[b].layout[i].offset, m->boards[b].layout[i].count,
			        m->boards[b].layout[i].stride);
	}
	for (unsigned r = 0; r < m->nrecords; r++) {
		h = fnv(h, "D %s %u;", m->records[r].name, m->records[r].words);
		for (unsigned f = 0; f < m->records[r].nfields; f++)
			h = fnv(h, "E %s %u %u %u;", m->records[r].fields[f].name,
			        m->records[r].fields[f].word, m->records[r].fields[f].lo,
			        m->records[r].fields[f].hi);
	}
	return h;
}

static int parse(const struct sb_yaml *y, struct regmap *m)
{
	static const char *const top_keys[] = {"regmap", "blocks",  "layout",
	                                       "boards", "records", NULL};
	static const char *const map_keys[] = {"name", "version",   "magic",
	                                       "size", "alignment", NULL};
	struct fy_node *root = sb_yaml_root(y), *rm, *blocks, *bn, *recs;
	void *it = NULL;
	uint64_t v;
	int err;

	memset(m, 0, sizeof(*m));
	if ((err = sb_yaml_expect_map(y, root, "the document")) < 0 ||
	    (err = sb_yaml_check_keys(y, root, "top level", top_keys)) < 0)
		return err;
	rm = sb_yaml_get(root, "regmap");
	if ((err = sb_yaml_expect_map(y, rm, "key 'regmap'")) < 0 ||
	    (err = sb_yaml_check_keys(y, rm, "regmap", map_keys)) < 0 ||
	    (err = get_name(y, rm, &m->name)) < 0 || (err = parse_version(y, rm, &m->version)) < 0)
		return err;
	if ((err = sb_yaml_get_u64(y, rm, "magic", true, 1, UINT32_MAX, &v)) < 0)
		return err;
	m->magic = (uint32_t)v;
	if ((err = sb_yaml_get_u64(y, rm, "size", true, 0x100, 0x1000000, &v)) < 0)
		return err;
	m->size = (uint32_t)v;
	if ((err = sb_yaml_get_u64(y, rm, "alignment", true, 4, 0x10000, &v)) < 0)
		return err;
	if (v & (v - 1))
		return sb_yaml_error(y, sb_yaml_get(rm, "alignment"), SB_ERR_PARSE,
		                     "alignment must be a power of two");
	m->align = (uint32_t)v;

	blocks = sb_yaml_get(root, "blocks");
	if ((err = sb_yaml_expect_seq(y, blocks, "key 'blocks'")) < 0)
		return err;
	while ((bn = sb_yaml_seq_next(blocks, &it))) {
		struct block *b;

		if (m->nblocks == MAX_BLOCKS)
			return sb_yaml_error(y, bn, SB_ERR_PARSE, "too many blocks");
		b = &m->blocks[m->nblocks];
		if ((err = parse_block(y, bn, b)) < 0)
			return err;
		for (unsigned i = 0; i < m->nblocks; i++)
			if (!strcmp(m->blocks[i].name, b->name) || m->blocks[i].type == b->type)
				return sb_yaml_error(y, bn, SB_ERR_PARSE,
				                     "block '%s' repeats the name or type of '%s'",
				                     b->name, m->blocks[i].name);
		m->nblocks++;
	}
	if ((err = parse_layout(y, sb_yaml_get(root, "layout"), m, m->size, m->layout,
	                        &m->nlayout)) < 0)
		return err;
	if (sb_yaml_get(root, "boards") &&
	    (err = parse_boards(y, sb_yaml_get(root, "boards"), m)) < 0)
		return err;
	for (unsigned b = 0; b < m->nblocks; b++) {
		bool placed = false;

		for (unsigned i = 0; i < m->nlayout; i++)
			placed |= m->layout[i].block == b;
		for (unsigned d = 0; d < m->nboards; d++)
			for (unsigned i = 0; i < m->boards[d].nlayout; i++)
				placed |= m->boards[d].layout[i].block == b;
		if (!placed)
			return sb_yaml_error(y, root, SB_ERR_PARSE,
			                     "block '%s' is not placed in any layout",
			                     m->blocks[b].name);
	}
	recs = sb_yaml_get(root, "records");
	if (recs && (err = parse_records(y, recs, m)) < 0)
		return err;
	m->hash = regmap_hash(m);
	for (unsigned b = 0; b < m->nblocks; b++)
		for (unsigned r = 0; r < m->blocks[b].nregs; r++) {
			struct reg *rg = &m->blocks[b].regs[r];

			if (rg->reset_kind == RESET_HASH)
				rg->reset = m->hash;
			else if (rg->reset_kind == RESET_SIZE)
				rg->reset = m->size;
		}
	return 0;
}

/* ---- output helpers --------------------------------------------------------------------- */

struct out {
	char *buf;
	size_t len, size;
	bool oom;
};

static void emit(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = o->size - o->len;

		va_start(ap, fmt);
		n = vsnprintf(o->buf ? o->buf + o->len : NULL, o->buf ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			o->oom = true;
			return;
		}
		if (o->buf && (size_t)n < room) {
			o->len += (size_t)n;
			return;
		}
		size_t nsize = o->size ? o->size * 2 : 65536;

		while (nsize < o->len + (size_t)n + 1)
			nsize *= 2;
		char *nb = realloc(o->buf, nsize);

		if (!nb) {
			o->oom = true;
			return;
		}
		o->buf = nb;
		o->size = nsize;
	}
}

static void upper(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < size; i++)
		dst[i] = (char)toupper((unsigned char)src[i]);
	dst[i] = '\0';
}

/* Description text on one line, with quotes escaped for C strings when c is set. */
static void emit_text(struct out *o, const char *s, bool c)
{
	bool space = false;

	if (!s)
		return;
	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			space = true;
			continue;
		}
		if (space && o->len && o->buf[o->len - 1] != '"')
			emit(o, " ");
		space = false;
		if (c && (*s == '"' || *s == '\\'))
			emit(o, "\\%c", *s);
		else if (!c && *s == '|')
			emit(o, "\\|");
		else
			emit(o, "%c", *s);
	}
}

static int field_access(const struct reg *r, const struct field *f)
{
	return f->access >= 0 ? f->access : r->access;
}

/* Per-word write/pulse/w1c masks of a register. */
static void reg_masks(const struct reg *r, uint64_t *wmask, uint64_t *pmask, uint64_t *cmask)
{
	uint64_t all = width_max(r->valid_bits);

	*wmask = *pmask = *cmask = 0;
	if (!r->nfields) {
		if (r->access == ACC_RW || r->access == ACC_WO)
			*wmask = all;
		if (r->access == ACC_W1C)
			*cmask = all;
		return;
	}
	for (unsigned i = 0; i < r->nfields; i++) {
		const struct field *f = &r->fields[i];
		uint64_t m = width_max(f->hi - f->lo + 1) << f->lo;
		int acc = field_access(r, f);

		if (f->pulse)
			*pmask |= m;
		else if (acc == ACC_RW || acc == ACC_WO)
			*wmask |= m;
		else if (acc == ACC_W1C)
			*cmask |= m;
	}
}

/* ---- C header --------------------------------------------------------------------------- */

static void gen_header(const struct regmap *m, struct out *o, const char *src)
{
	char B[64], R[64], F[64], V[64];

	emit(o, "/* SPDX-License-Identifier: MIT */\n");
	emit(o, "/* Generated by regmapgen from %s; do not edit. */\n", src);
	emit(o, "#ifndef SB_REGMAP_H\n#define SB_REGMAP_H\n\n#include \"sb_regmap_desc.h\"\n\n");
	emit(o, "#define SB_REGMAP_MAGIC 0x%08Xu\n", m->magic);
	emit(o, "#define SB_REGMAP_VERSION 0x%08Xu\n", m->version);
	emit(o, "#define SB_REGMAP_VERSION_MAJOR %uu\n", m->version >> 16);
	emit(o, "#define SB_REGMAP_VERSION_MINOR %uu\n", m->version & 0xFFFF);
	emit(o, "#define SB_REGMAP_HASH 0x%08Xu\n", m->hash);
	emit(o, "#define SB_REGMAP_SIZE 0x%Xu\n", m->size);
	emit(o, "#define SB_REGMAP_ALIGN 0x%Xu\n\n", m->align);
	emit(o, "/* The header words every block starts with. */\n");
	emit(o,
	     "#define SB_BLK_TYPE 0x0u\n#define SB_BLK_VERSION 0x4u\n#define SB_BLK_NEXT 0x8u\n");
	emit(o, "#define SB_BLK_VERSION_MAJOR(v) ((uint32_t)(v) >> 16)\n");
	emit(o, "#define SB_BLK_VERSION_MINOR(v) ((uint32_t)(v)&0xFFFFu)\n\n");
	emit(o, "/* Field access: SB_FIELD_GET(SB_GUPS_PORT_CONTROL_TYPE, v), SB_FIELD_PREP(..., "
	        "x). */\n");
	emit(o, "#define SB_FIELD_GET(f, v) (((uint32_t)(v) & f##_MASK) >> f##_SHIFT)\n");
	emit(o, "#define SB_FIELD_PREP(f, x) (((uint32_t)(x) << f##_SHIFT) & f##_MASK)\n\n");

	for (unsigned b = 0; b < m->nblocks; b++) {
		const struct block *bl = &m->blocks[b];

		upper(B, sizeof(B), bl->name);
		emit(o, "/* Block %s: ", bl->name);
		emit_text(o, bl->description, false);
		emit(o, " */\n");
		emit(o, "#define SB_BLK_%s_TYPE 0x%08Xu\n", B, bl->type);
		emit(o, "#define SB_BLK_%s_VERSION 0x%08Xu\n", B, bl->version);
		emit(o, "#define SB_BLK_%s_SIZE 0x%Xu\n", B, bl->size);
		emit(o, "#define SB_BLK_%s_SIM_ONLY %d\n", B, (int)bl->sim_only);
		for (unsigned r = 0; r < bl->nregs; r++) {
			const struct reg *rg = &bl->regs[r];

			upper(R, sizeof(R), rg->name);
			if (rg->count > 1) {
				emit(o, "#define SB_%s_%s(i) (0x%Xu + (uint32_t)(i)*0x%Xu)\n", B, R,
				     rg->offset, rg->stride);
				emit(o, "#define SB_%s_%s_COUNT %uu\n", B, R, rg->count);
				emit(o, "#define SB_%s_%s_STRIDE 0x%Xu\n", B, R, rg->stride);
			} else {
				emit(o, "#define SB_%s_%s 0x%Xu\n", B, R, rg->offset);
			}
			if (rg->width == 64) {
				if (rg->count > 1) {
					emit(o, "#define SB_%s_%s_LO(i) SB_%s_%s(i)\n", B, R, B, R);
					emit(o, "#define SB_%s_%s_HI(i) (SB_%s_%s(i) + 4u)\n", B, R,
					     B, R);
				} else {
					emit(o, "#define SB_%s_%s_LO 0x%Xu\n", B, R, rg->offset);
					emit(o, "#define SB_%s_%s_HI 0x%Xu\n", B, R,
					     rg->offset + 4);
				}
				emit(o, "#define SB_%s_%s_RESET 0x%016" PRIX64 "ull\n", B, R,
				     rg->reset);
			} else {
				emit(o, "#define SB_%s_%s_RESET 0x%08" PRIX64 "u\n", B, R,
				     rg->reset);
			}
			for (unsigned f = 0; f < rg->nfields; f++) {
				const struct field *fl = &rg->fields[f];
				uint64_t mask = width_max(fl->hi - fl->lo + 1) << fl->lo;

				upper(F, sizeof(F), fl->name);
				emit(o, "#define SB_%s_%s_%s_SHIFT %u\n", B, R, F, fl->lo);
				emit(o, "#define SB_%s_%s_%s_WIDTH %u\n", B, R, F,
				     fl->hi - fl->lo + 1);
				emit(o, "#define SB_%s_%s_%s_MASK 0x%08" PRIX64 "u\n", B, R, F,
				     mask);
				for (unsigned v = 0; v < fl->nvalues; v++) {
					upper(V, sizeof(V), fl->values[v].name);
					emit(o, "#define SB_%s_%s_%s_%s %uu\n", B, R, F, V,
					     fl->values[v].value);
				}
			}
		}
		emit(o, "\n");
	}
	emit(o, "/* Placement of the blocks in the register space. */\n");
	for (unsigned i = 0; i < m->nlayout; i++) {
		const struct instance *in = &m->layout[i];

		upper(B, sizeof(B), m->blocks[in->block].name);
		emit(o, "#define SB_LAYOUT_%s_OFFSET 0x%Xu\n", B, in->offset);
		emit(o, "#define SB_LAYOUT_%s_COUNT %uu\n", B, in->count);
		emit(o, "#define SB_LAYOUT_%s_STRIDE 0x%Xu\n", B, in->stride);
	}
	emit(o, "\n");
	for (unsigned d = 0; d < m->nboards; d++) {
		const struct board *bd = &m->boards[d];

		upper(R, sizeof(R), bd->name);
		emit(o, "/* Register space of board %s: ", bd->name);
		emit_text(o, bd->description, false);
		emit(o, " */\n");
		emit(o, "#define SB_REGSPACE_%s_SIZE 0x%Xu\n", R, bd->size);
		for (unsigned i = 0; i < bd->nlayout; i++) {
			const struct instance *in = &bd->layout[i];

			upper(B, sizeof(B), m->blocks[in->block].name);
			emit(o, "#define SB_REGSPACE_%s_%s_OFFSET 0x%Xu\n", R, B, in->offset);
			emit(o, "#define SB_REGSPACE_%s_%s_COUNT %uu\n", R, B, in->count);
			emit(o, "#define SB_REGSPACE_%s_%s_STRIDE 0x%Xu\n", R, B, in->stride);
		}
		emit(o, "\n");
	}
	for (unsigned r = 0; r < m->nrecords; r++) {
		const struct record *rc = &m->records[r];

		upper(R, sizeof(R), rc->name);
		emit(o, "/* Record %s: ", rc->name);
		emit_text(o, rc->description, false);
		emit(o, " */\n");
		emit(o, "#define SB_%s_WORDS %uu\n", R, rc->words);
		emit(o, "#define SB_%s_BYTES %uu\n", R, rc->words * 4);
		for (unsigned f = 0; f < rc->nfields; f++) {
			const struct record_field *fl = &rc->fields[f];

			upper(F, sizeof(F), fl->name);
			emit(o, "#define SB_%s_%s_WORD %uu\n", R, F, fl->word);
			emit(o, "#define SB_%s_%s_SHIFT %u\n", R, F, fl->lo);
			emit(o, "#define SB_%s_%s_MASK 0x%08" PRIX64 "u\n", R, F,
			     width_max(fl->hi - fl->lo + 1) << fl->lo);
		}
		emit(o, "\n");
	}
	emit(o, "#endif /* SB_REGMAP_H */\n");
}

/* ---- C table ---------------------------------------------------------------------------- */

static void gen_table(const struct regmap *m, struct out *o, const char *src)
{
	emit(o, "/* SPDX-License-Identifier: MIT */\n");
	emit(o, "/* Generated by regmapgen from %s; do not edit. */\n", src);
	emit(o, "#include <stddef.h>\n\n#include \"sb_regmap.h\"\n\n");
	for (unsigned b = 0; b < m->nblocks; b++) {
		const struct block *bl = &m->blocks[b];

		for (unsigned r = 0; r < bl->nregs; r++) {
			const struct reg *rg = &bl->regs[r];

			for (unsigned f = 0; f < rg->nfields; f++) {
				const struct field *fl = &rg->fields[f];

				if (!fl->nvalues)
					continue;
				emit(o, "static const struct sb_regmap_value v_%s_%s_%s[] = {\n",
				     bl->name, rg->name, fl->name);
				for (unsigned v = 0; v < fl->nvalues; v++)
					emit(o, "\t{\"%s\", %uu},\n", fl->values[v].name,
					     fl->values[v].value);
				emit(o, "};\n\n");
			}
			if (!rg->nfields)
				continue;
			emit(o, "static const struct sb_regmap_field f_%s_%s[] = {\n", bl->name,
			     rg->name);
			for (unsigned f = 0; f < rg->nfields; f++) {
				const struct field *fl = &rg->fields[f];

				emit(o, "\t{\"%s\", %u, %u, %s, %s, 0x%Xu, ", fl->name, fl->lo,
				     fl->hi, access_enum[field_access(rg, fl)],
				     fl->pulse ? "true" : "false", fl->reset);
				if (fl->nvalues)
					emit(o, "v_%s_%s_%s, %u, \"", bl->name, rg->name, fl->name,
					     fl->nvalues);
				else
					emit(o, "NULL, 0, \"");
				emit_text(o, fl->description, true);
				emit(o, "\"},\n");
			}
			emit(o, "};\n\n");
		}
		emit(o, "static const struct sb_regmap_reg r_%s[] = {\n", bl->name);
		for (unsigned r = 0; r < bl->nregs; r++) {
			const struct reg *rg = &bl->regs[r];
			uint64_t wm, pm, cm;

			reg_masks(rg, &wm, &pm, &cm);
			emit(o, "\t{\"%s\", 0x%Xu, %u, %u, 0x%Xu, %s, 0x%" PRIX64 "ull,\n",
			     rg->name, rg->offset, rg->width, rg->count, rg->stride,
			     access_enum[rg->access], rg->reset);
			emit(o, "\t {0x%08Xu, 0x%08Xu}, {0x%08Xu, 0x%08Xu}, {0x%08Xu, 0x%08Xu},\n",
			     (uint32_t)wm, (uint32_t)(wm >> 32), (uint32_t)pm, (uint32_t)(pm >> 32),
			     (uint32_t)cm, (uint32_t)(cm >> 32));
			if (rg->nfields)
				emit(o, "\t f_%s_%s, %u, \"", bl->name, rg->name, rg->nfields);
			else
				emit(o, "\t NULL, 0, \"");
			emit_text(o, rg->description, true);
			emit(o, "\"},\n");
		}
		emit(o, "};\n\n");
	}
	emit(o, "const struct sb_regmap_block sb_regmap_blocks[] = {\n");
	for (unsigned b = 0; b < m->nblocks; b++) {
		const struct block *bl = &m->blocks[b];

		emit(o, "\t{\"%s\", 0x%08Xu, 0x%08Xu, 0x%Xu, r_%s, %u, %s, \"", bl->name, bl->type,
		     bl->version, bl->size, bl->name, bl->nregs, bl->sim_only ? "true" : "false");
		emit_text(o, bl->description, true);
		emit(o, "\"},\n");
	}
	emit(o, "};\nconst unsigned sb_regmap_nblocks = %u;\n\n", m->nblocks);
	emit(o, "const struct sb_regmap_instance sb_regmap_layout[] = {\n");
	for (unsigned i = 0; i < m->nlayout; i++)
		emit(o, "\t{%u, 0x%Xu, %u, 0x%Xu},\n", m->layout[i].block, m->layout[i].offset,
		     m->layout[i].count, m->layout[i].stride);
	emit(o, "};\nconst unsigned sb_regmap_nlayout = %u;\n\n", m->nlayout);
	for (unsigned d = 0; d < m->nboards; d++) {
		emit(o, "static const struct sb_regmap_instance l_%s[] = {\n", m->boards[d].name);
		for (unsigned i = 0; i < m->boards[d].nlayout; i++) {
			const struct instance *in = &m->boards[d].layout[i];

			emit(o, "\t{%u, 0x%Xu, %u, 0x%Xu},\n", in->block, in->offset, in->count,
			     in->stride);
		}
		emit(o, "};\n\n");
	}
	emit(o, "const struct sb_regmap_board sb_regmap_boards[] = {\n");
	for (unsigned d = 0; d < m->nboards; d++) {
		emit(o, "\t{\"%s\", 0x%Xu, l_%s, %u, \"", m->boards[d].name, m->boards[d].size,
		     m->boards[d].name, m->boards[d].nlayout);
		emit_text(o, m->boards[d].description, true);
		emit(o, "\"},\n");
	}
	if (!m->nboards)
		emit(o, "\t{NULL, 0, NULL, 0, NULL},\n");
	emit(o, "};\nconst unsigned sb_regmap_nboards = %u;\n\n", m->nboards);
	for (unsigned r = 0; r < m->nrecords; r++) {
		const struct record *rc = &m->records[r];

		emit(o, "static const struct sb_regmap_record_field rf_%s[] = {\n", rc->name);
		for (unsigned f = 0; f < rc->nfields; f++) {
			emit(o, "\t{\"%s\", %u, %u, %u, \"", rc->fields[f].name, rc->fields[f].word,
			     rc->fields[f].lo, rc->fields[f].hi);
			emit_text(o, rc->fields[f].description, true);
			emit(o, "\"},\n");
		}
		emit(o, "};\n\n");
	}
	emit(o, "const struct sb_regmap_record sb_regmap_records[] = {\n");
	for (unsigned r = 0; r < m->nrecords; r++) {
		const struct record *rc = &m->records[r];

		emit(o, "\t{\"%s\", %u, rf_%s, %u, \"", rc->name, rc->words, rc->name, rc->nfields);
		emit_text(o, rc->description, true);
		emit(o, "\"},\n");
	}
	if (!m->nrecords)
		emit(o, "\t{NULL, 0, NULL, 0, NULL},\n");
	emit(o, "};\nconst unsigned sb_regmap_nrecords = %u;\n", m->nrecords);
}

/* ---- Verilog include -------------------------------------------------------------------- */

static void gen_verilog(const struct regmap *m, struct out *o, const char *src)
{
	char B[64], R[64], F[64], V[64];

	emit(o, "// SPDX-License-Identifier: MIT\n");
	emit(o, "// Generated by regmapgen from %s; do not edit.\n", src);
	emit(o, "// Include inside a module body: localparams of the stackbench register map.\n");
	emit(o, "// Addresses are byte offsets; *_LSB/*_MSB give field bit positions.\n\n");
	emit(o, "localparam [31:0] SB_REGMAP_MAGIC = 32'h%08X;\n", m->magic);
	emit(o, "localparam [31:0] SB_REGMAP_VERSION = 32'h%08X;\n", m->version);
	emit(o, "localparam [31:0] SB_REGMAP_HASH = 32'h%08X;\n", m->hash);
	emit(o, "localparam [31:0] SB_REGMAP_SIZE = 32'h%08X;\n", m->size);
	emit(o, "localparam [31:0] SB_BLK_TYPE = 32'h0;\n");
	emit(o, "localparam [31:0] SB_BLK_VERSION = 32'h4;\n");
	emit(o, "localparam [31:0] SB_BLK_NEXT = 32'h8;\n\n");
	for (unsigned b = 0; b < m->nblocks; b++) {
		const struct block *bl = &m->blocks[b];

		upper(B, sizeof(B), bl->name);
		emit(o, "// Block %s\n", bl->name);
		emit(o, "localparam [31:0] SB_BLK_%s_TYPE = 32'h%08X;\n", B, bl->type);
		emit(o, "localparam [31:0] SB_BLK_%s_VERSION = 32'h%08X;\n", B, bl->version);
		emit(o, "localparam [31:0] SB_BLK_%s_SIZE = 32'h%08X;\n", B, bl->size);
		emit(o, "localparam integer SB_BLK_%s_SIM_ONLY = %d;\n", B, (int)bl->sim_only);
		for (unsigned r = 0; r < bl->nregs; r++) {
			const struct reg *rg = &bl->regs[r];

			upper(R, sizeof(R), rg->name);
			emit(o, "localparam [31:0] SB_%s_%s = 32'h%08X;\n", B, R, rg->offset);
			if (rg->count > 1) {
				emit(o, "localparam integer SB_%s_%s_COUNT = %u;\n", B, R,
				     rg->count);
				emit(o, "localparam [31:0] SB_%s_%s_STRIDE = 32'h%08X;\n", B, R,
				     rg->stride);
			}
			if (rg->width == 64)
				emit(o, "localparam [63:0] SB_%s_%s_RESET = 64'h%016" PRIX64 ";\n",
				     B, R, rg->reset);
			else
				emit(o, "localparam [31:0] SB_%s_%s_RESET = 32'h%08" PRIX64 ";\n",
				     B, R, rg->reset);
			for (unsigned f = 0; f < rg->nfields; f++) {
				const struct field *fl = &rg->fields[f];

				upper(F, sizeof(F), fl->name);
				emit(o, "localparam integer SB_%s_%s_%s_LSB = %u;\n", B, R, F,
				     fl->lo);
				emit(o, "localparam integer SB_%s_%s_%s_MSB = %u;\n", B, R, F,
				     fl->hi);
				for (unsigned v = 0; v < fl->nvalues; v++) {
					upper(V, sizeof(V), fl->values[v].name);
					emit(o, "localparam [%u:0] SB_%s_%s_%s_%s = %u'd%u;\n",
					     fl->hi - fl->lo, B, R, F, V, fl->hi - fl->lo + 1,
					     fl->values[v].value);
				}
			}
		}
		emit(o, "\n");
	}
	for (unsigned i = 0; i < m->nlayout; i++) {
		const struct instance *in = &m->layout[i];

		upper(B, sizeof(B), m->blocks[in->block].name);
		emit(o, "localparam [31:0] SB_LAYOUT_%s_OFFSET = 32'h%08X;\n", B, in->offset);
		emit(o, "localparam integer SB_LAYOUT_%s_COUNT = %u;\n", B, in->count);
		emit(o, "localparam [31:0] SB_LAYOUT_%s_STRIDE = 32'h%08X;\n", B, in->stride);
	}
	emit(o, "\n");
	for (unsigned d = 0; d < m->nboards; d++) {
		const struct board *bd = &m->boards[d];

		upper(R, sizeof(R), bd->name);
		emit(o, "// Register space of board %s\n", bd->name);
		emit(o, "localparam [31:0] SB_REGSPACE_%s_SIZE = 32'h%08X;\n", R, bd->size);
		for (unsigned i = 0; i < bd->nlayout; i++) {
			const struct instance *in = &bd->layout[i];

			upper(B, sizeof(B), m->blocks[in->block].name);
			emit(o, "localparam [31:0] SB_REGSPACE_%s_%s_OFFSET = 32'h%08X;\n", R, B,
			     in->offset);
			emit(o, "localparam integer SB_REGSPACE_%s_%s_COUNT = %u;\n", R, B,
			     in->count);
			emit(o, "localparam [31:0] SB_REGSPACE_%s_%s_STRIDE = 32'h%08X;\n", R, B,
			     in->stride);
		}
		emit(o, "\n");
	}
	for (unsigned r = 0; r < m->nrecords; r++) {
		const struct record *rc = &m->records[r];

		upper(R, sizeof(R), rc->name);
		emit(o, "localparam integer SB_%s_WORDS = %u;\n", R, rc->words);
		for (unsigned f = 0; f < rc->nfields; f++) {
			const struct record_field *fl = &rc->fields[f];

			upper(F, sizeof(F), fl->name);
			emit(o, "localparam integer SB_%s_%s_WORD = %u;\n", R, F, fl->word);
			emit(o, "localparam integer SB_%s_%s_LSB = %u;\n", R, F, fl->lo);
			emit(o, "localparam integer SB_%s_%s_MSB = %u;\n", R, F, fl->hi);
		}
	}
}

/* ---- Markdown --------------------------------------------------------------------------- */

static void doc_layout(const struct regmap *m, struct out *o, const struct instance *layout,
                       unsigned nlayout)
{
	emit(o, "| offset | block | type | version | size | instances |\n");
	emit(o, "|---|---|---|---|---|---|\n");
	for (unsigned i = 0; i < nlayout; i++) {
		const struct instance *in = &layout[i];
		const struct block *bl = &m->blocks[in->block];

		emit(o, "| 0x%04X | [%s](#block-%s) | 0x%08X | %u.%u | 0x%X | ", in->offset,
		     bl->name, bl->name, bl->type, bl->version >> 16, bl->version & 0xFFFF,
		     bl->size);
		if (in->count > 1)
			emit(o, "%u, stride 0x%X |\n", in->count, in->stride);
		else
			emit(o, "1 |\n");
	}
	emit(o, "\n");
}

static void gen_doc(const struct regmap *m, struct out *o, const char *src)
{
	emit(o, "# Register map\n\n");
	emit(o, "<!-- Generated by regmapgen from %s; do not edit. -->\n\n", src);
	emit(o,
	     "Register map `%s` version %u.%u, magic `0x%08X`, hash `0x%08X`, %u bytes "
	     "(0x%X) of register space; blocks are aligned to 0x%X.\n\n",
	     m->name, m->version >> 16, m->version & 0xFFFF, m->magic, m->hash, m->size, m->size,
	     m->align);
	emit(
	    o,
	    "Every block starts with three header words: `TYPE` at +0x0, `VERSION` at +0x4 "
	    "(major << 16 | minor) and `NEXT` at +0x8 (offset of the next block from the start of "
	    "the register space, 0 for the last block). The host walks this list from offset 0 and "
	    "finds blocks by type. 64-bit registers are two words, low word first; reading the low "
	    "word latches the high word.\n\n");
	emit(o, "Access: `ro` hardware-driven, `rw` read/write, `wo` write-only (reads 0), `w1c` "
	        "write 1 to clear; *pulse* bits act on a write of 1 and read 0.\n\n");
	emit(o, "## Layout\n\n");
	doc_layout(m, o, m->layout, m->nlayout);
	for (unsigned d = 0; d < m->nboards; d++) {
		const struct board *bd = &m->boards[d];

		emit(o, "## Layout of board %s\n\n", bd->name);
		emit_text(o, bd->description, false);
		emit(o, " %u bytes (0x%X) of register space.\n\n", bd->size, bd->size);
		doc_layout(m, o, bd->layout, bd->nlayout);
	}
	for (unsigned b = 0; b < m->nblocks; b++) {
		const struct block *bl = &m->blocks[b];

		emit(o, "## Block %s\n\n", bl->name);
		emit(o, "Type `0x%08X`, version %u.%u, 0x%X bytes. ", bl->type, bl->version >> 16,
		     bl->version & 0xFFFF, bl->size);
		if (bl->sim_only)
			emit(o, "**Simulated board only**: hardware designs end their block list "
			        "before it. ");
		emit_text(o, bl->description, false);
		emit(o, "\n\n| offset | register | width | access | reset | description |\n");
		emit(o, "|---|---|---|---|---|---|\n");
		emit(o, "| 0x00 | type | 32 | ro | 0x%08X | Block type. |\n", bl->type);
		emit(o, "| 0x04 | version | 32 | ro | 0x%08X | Block version. |\n", bl->version);
		emit(o, "| 0x08 | next | 32 | ro | — | Offset of the next block (0 = last). |\n");
		for (unsigned r = 0; r < bl->nregs; r++) {
			const struct reg *rg = &bl->regs[r];

			emit(o, "| 0x%02X", rg->offset);
			if (rg->count > 1)
				emit(o, " + i×0x%X", rg->stride);
			emit(o, " | %s%s | %u", rg->name, rg->count > 1 ? "[i]" : "", rg->width);
			if (rg->valid_bits < rg->width)
				emit(o, " (%u used)", rg->valid_bits);
			emit(o, " | %s | 0x%0*" PRIX64 " | ", access_names[rg->access],
			     rg->width / 4, rg->reset);
			if (rg->count > 1)
				emit(o, "i = 0..%u. ", rg->count - 1);
			emit_text(o, rg->description, false);
			emit(o, " |\n");
		}
		emit(o, "\n");
		for (unsigned r = 0; r < bl->nregs; r++) {
			const struct reg *rg = &bl->regs[r];

			if (!rg->nfields)
				continue;
			emit(o,
			     "Fields of `%s.%s`:\n\n| bits | field | access | reset | description "
			     "|\n",
			     bl->name, rg->name);
			emit(o, "|---|---|---|---|---|\n");
			for (unsigned f = 0; f < rg->nfields; f++) {
				const struct field *fl = &rg->fields[f];

				if (fl->hi != fl->lo)
					emit(o, "| %u:%u", fl->hi, fl->lo);
				else
					emit(o, "| %u", fl->lo);
				emit(o, " | %s | %s%s | %u | ", fl->name,
				     access_names[field_access(rg, fl)], fl->pulse ? " pulse" : "",
				     fl->reset);
				emit_text(o, fl->description, false);
				for (unsigned v = 0; v < fl->nvalues; v++)
					emit(o, "%s`%s` = %u",
					     v ? ", " : " Values: ", fl->values[v].name,
					     fl->values[v].value);
				emit(o, " |\n");
			}
			emit(o, "\n");
		}
	}
	for (unsigned r = 0; r < m->nrecords; r++) {
		const struct record *rc = &m->records[r];

		emit(o, "## Record %s\n\n%u words (%u bytes). ", rc->name, rc->words,
		     rc->words * 4);
		emit_text(o, rc->description, false);
		emit(o, "\n\n| word | bits | field | description |\n|---|---|---|---|\n");
		for (unsigned f = 0; f < rc->nfields; f++) {
			const struct record_field *fl = &rc->fields[f];

			emit(o, "| %u | %u:%u | %s | ", fl->word, fl->hi, fl->lo, fl->name);
			emit_text(o, fl->description, false);
			emit(o, " |\n");
		}
		emit(o, "\n");
	}
}

/* ---- main ------------------------------------------------------------------------------- */

static int write_if_changed(const char *path, const struct out *o)
{
	char *old = NULL;
	size_t len;

	if (o->oom) {
		fprintf(stderr, "regmapgen: out of memory generating '%s'\n", path);
		return 1;
	}
	if (sb_read_file(path, &old, &len) == 0 && len == o->len && !memcmp(old, o->buf, len)) {
		free(old);
		return 0;
	}
	free(old);
	if (sb_write_file_atomic(path, o->buf, o->len) < 0) {
		fprintf(stderr, "regmapgen: %s\n", sb_error_detail());
		return 1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: regmapgen REGMAP.yaml [--source-name NAME] [--header FILE] [--table FILE]\n"
	        "                 [--verilog FILE] [--doc FILE]\n"
	        "Validate the register-map description and write the generated files.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"header", required_argument, NULL, 'H'},
	    {"table", required_argument, NULL, 'T'},
	    {"verilog", required_argument, NULL, 'V'},
	    {"doc", required_argument, NULL, 'D'},
	    {"source-name", required_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *paths[4] = {NULL, NULL, NULL, NULL};
	const char *src_name = NULL;
	static struct regmap m;
	struct sb_yaml y;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'H':
			paths[0] = optarg;
			break;
		case 'T':
			paths[1] = optarg;
			break;
		case 'V':
			paths[2] = optarg;
			break;
		case 'D':
			paths[3] = optarg;
			break;
		case 'S':
			src_name = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (!src_name)
		src_name = argv[optind];
	if (sb_yaml_load_file_flags(&y, argv[optind], SB_YAML_ALLOW_ALIASES) < 0 ||
	    parse(&y, &m) < 0) {
		fprintf(stderr, "regmapgen: %s\n", sb_error_detail());
		sb_yaml_release(&y);
		return 1;
	}
	void (*gens[4])(const struct regmap *, struct out *, const char *) = {gen_header, gen_table,
	                                                                      gen_verilog, gen_doc};
	for (int i = 0; i < 4; i++) {
		struct out o = {0};

		if (!paths[i])
			continue;
		gens[i](&m, &o, src_name);
		rc |= write_if_changed(paths[i], &o);
		free(o.buf);
	}
	sb_yaml_release(&y);
	return rc;
}
