/* SPDX-License-Identifier: MIT */
/*
 * GPGPU-Sim / Accel-Sim cache logs (the simulator instrumented at the L1 and L2 interfaces):
 *
 *     -kernel name = _Z6kernelPf
 *     -kernel id = 1
 *     GPGPU-Sim Cycle 5401: Load instr from L1D cache at SM 0 bank 0 addr 93ce6a00 status 2
 *
 * Hex addresses without 0x; status 0..5 = HIT, HIT_RESERVED, MISS, RESERVATION_FAIL,
 * SECTOR_MISS, MSHR_HIT. Every cache name becomes a subpartition; caches named L1* are private
 * to each SM (the SM is part of the address). Kernel headers group the accesses; when cycles
 * restart at a kernel header, the kernel is placed after the previous one. Other lines of the
 * simulator's output are skipped.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stackbench/error.h"
#include "stackbench/util.h"
#include "trace_internal.h"

struct gs_reader {
	struct sb_trace_reader base;
	struct sb_linebuf lb;
	uint32_t block_bytes;
	uint32_t kernel;
	bool kernel_started; /* a kernel header came since the last access */
	bool have_time;
	bool unchecked;    /* SB_TRACE_OPEN_UNCHECKED: time may go back (a sort follows) */
	uint64_t accesses; /* access lines read */
	int64_t last_time;
	int64_t offset;
	int last_sp;
	char last_name[SB_TRACE_NAME_MAX];
};

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Unsigned decimal (hex when hex) at p; returns the end or NULL. */
static const char *parse_u64(const char *p, bool hex, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = p;

	if (hex && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2, s = p;
	for (;; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (hex && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (hex && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (v > (UINT64_MAX >> 4))
			return NULL;
		v = hex ? v << 4 | d : v * 10 + d;
	}
	if (p == s)
		return NULL;
	*out = v;
	return p;
}

/* "-kernel id = N" / "-kernel name = X": 1 if it was a kernel header, 0 if not, <0 error. */
static int kernel_header(struct gs_reader *g, const char *line)
{
	const char *p = skip_ws(line);
	uint64_t id;

	if (strncmp(p, "-kernel", 7))
		return 0;
	p = skip_ws(p + 7);
	if (!strncmp(p, "name", 4)) {
		g->kernel_started = true;
		return 1;
	}
	if (strncmp(p, "id", 2))
		return 0;
	p = skip_ws(p + 2);
	if (*p != '=')
		return 0;
	p = skip_ws(p + 1);
	if (!(p = parse_u64(p, false, &id)) || *skip_ws(p) || id > UINT32_MAX)
		return sb_trace_parse_error(g->lb.name, g->lb.line, "bad kernel id in '%s'", line);
	g->kernel = (uint32_t)id;
	g->kernel_started = true;
	return 1;
}

static int access_line(struct gs_reader *g, const char *line, struct sb_trace_record *rec)
{
	const char *p = line + strlen("GPGPU-Sim Cycle"), *from, *at, *op;
	uint64_t cycle, v, addr = 0, status = 0, sm = 0;
	bool have_addr = false, have_status = false;
	char name[SB_TRACE_NAME_MAX];
	size_t oplen, nlen;
	int64_t t;
	int sp;

	p = skip_ws(p);
	if (!(p = parse_u64(p, false, &cycle)) || *p != ':' || cycle > INT64_MAX / 2)
		return sb_trace_parse_error(g->lb.name, g->lb.line, "expected 'Cycle N:'");
	op = skip_ws(p + 1);
	for (oplen = 0; isalpha((unsigned char)op[oplen]); oplen++)
		;
	from = strstr(op, " instr from ");
	at = from ? strstr(from, " cache at ") : NULL;
	if (!at)
		return sb_trace_parse_error(
		    g->lb.name, g->lb.line,
		    "expected '<Load|Store> instr from <cache> cache at ...'");
	memset(rec, 0, sizeof(*rec));
	if (oplen == 4 && !strncasecmp(op, "Load", 4))
		rec->kind = SB_ACC_READ;
	else if (oplen == 4 && !strncasecmp(op, "Read", 4))
		rec->kind = SB_ACC_READ;
	else if (oplen == 5 && !strncasecmp(op, "Store", 5))
		rec->kind = SB_ACC_WRITE;
	else if (oplen == 5 && !strncasecmp(op, "Write", 5))
		rec->kind = SB_ACC_WRITE;
	else
		return sb_trace_parse_error(g->lb.name, g->lb.line,
		                            "unknown access '%.*s' (expected Load or Store)",
		                            (int)oplen, op);
	from = skip_ws(from + strlen(" instr from "));
	nlen = (size_t)(at - from);
	if (nlen == 0 || nlen >= sizeof(name))
		return sb_trace_parse_error(g->lb.name, g->lb.line, "bad cache name");
	memcpy(name, from, nlen);
	name[nlen] = '\0';
	p = at + strlen(" cache at ");
	/* KEY VALUE pairs: SM n, bank n, addr hex, status n (others are skipped) */
	for (;;) {
		const char *key = skip_ws(p), *val;
		size_t klen;

		if (!*key)
			break;
		for (klen = 0; key[klen] && key[klen] != ' ' && key[klen] != '\t'; klen++)
			;
		val = skip_ws(key + klen);
		bool hex = klen == 4 && !strncmp(key, "addr", 4);

		if (!(p = parse_u64(val, hex, &v)) || (*p && *p != ' ' && *p != '\t'))
			return sb_trace_parse_error(g->lb.name, g->lb.line, "bad value for '%.*s'",
			                            (int)klen, key);
		if (hex) {
			addr = v;
			have_addr = true;
		} else if (klen == 6 && !strncmp(key, "status", 6)) {
			status = v;
			have_status = true;
		} else if (klen == 2 && !strncasecmp(key, "SM", 2)) {
			sm = v;
		}
	}
	if (!have_addr || !have_status)
		return sb_trace_parse_error(g->lb.name, g->lb.line, "missing '%s'",
		                            have_addr ? "status" : "addr");
	if (status > 5)
		return sb_trace_parse_error(
		    g->lb.name, g->lb.line,
		    "status %llu out of range (0..5: HIT, HIT_RESERVED, MISS, "
		    "RESERVATION_FAIL, SECTOR_MISS, MSHR_HIT)",
		    (unsigned long long)status);
	if (sm > UINT32_MAX)
		return sb_trace_parse_error(g->lb.name, g->lb.line, "SM number out of range");
	if (g->last_sp < 0 || strcmp(name, g->last_name)) {
		sp =
		    sb_trace_info_subpart(&g->base.info, name, SB_SUBPART_CACHE, 1, g->block_bytes);
		if (sp < 0)
			return sb_trace_parse_error(g->lb.name, g->lb.line, "%s",
			                            sb_error_detail());
		if (!strncasecmp(name, "L1", 2))
			g->base.info.subparts[sp].per_unit = 1;
		g->last_sp = sp;
		sb_strlcpy(g->last_name, name, sizeof(g->last_name));
	}
	if (__builtin_add_overflow((int64_t)cycle, g->offset, &t) || !sb_trace_time_ok(t))
		return sb_trace_parse_error(g->lb.name, g->lb.line,
		                            "cycle %llu is out of range (|time| < 2^62 ticks)",
		                            (unsigned long long)cycle);
	if (g->have_time && t < g->last_time && (g->kernel_started || !g->unchecked)) {
		if (!g->kernel_started) {
			g->base.unsorted = true;
			return sb_trace_parse_error(
			    g->lb.name, g->lb.line,
			    "cycle %llu comes after cycle %lld (lines must be "
			    "in time order%s)",
			    (unsigned long long)cycle, (long long)(g->last_time - g->offset),
			    strcmp(g->lb.name, "-")
			        ? ""
			        : "; given as a file, not on standard input, they are sorted");
		}
		/* cycles restart per kernel: this kernel follows the previous one, its first
		 * access one cycle after the previous kernel's latest; when the log is sorted
		 * afterwards (unchecked) its cycle 0 is placed there, so that no access of it can
		 * come before the previous kernel's end */
		g->offset = g->last_time + 1 - (g->unchecked ? 0 : (int64_t)cycle);
		t = (int64_t)cycle + g->offset;
		if (!sb_trace_time_ok(t))
			return sb_trace_parse_error(g->lb.name, g->lb.line,
			                            "kernel placed at cycle %lld: out of range "
			                            "(|time| < 2^62 ticks)",
			                            (long long)t);
	}
	g->kernel_started = false;
	if (!g->have_time || t > g->last_time)
		g->last_time = t;
	g->have_time = true;
	rec->time = t;
	rec->addr = addr;
	rec->size = g->block_bytes;
	rec->unit = (uint32_t)sm;
	rec->group = g->kernel;
	rec->subpart = (uint16_t)g->last_sp;
	rec->cache = (uint8_t)(SB_CACHE_HIT + status);
	return 0;
}

static int gs_read(struct sb_trace_reader *r, struct sb_trace_record *recs, size_t max)
{
	struct gs_reader *g = (struct gs_reader *)r;
	size_t out = 0;
	char *line;
	size_t len;
	int err;

	while (out < max) {
		if ((err = sb_linebuf_next(&g->lb, &line, &len)) < 0)
			return err;
		if (err == 0) {
			/* a log is told by its access lines: none at all is not a (GPGPU-Sim) log */
			if (!g->accesses)
				return sb_error_set(
				    SB_ERR_PARSE,
				    "'%s' holds no GPGPU-Sim cache access line "
				    "(%llu lines read; expected lines like "
				    "'GPGPU-Sim Cycle N: Load instr from L1D cache at "
				    "SM 0 addr 93ce6a00 status 2')",
				    g->lb.name, (unsigned long long)g->lb.line);
			break;
		}
		if (!strncmp(line, "GPGPU-Sim Cycle", 15) && strstr(line, " cache at ")) {
			if ((err = access_line(g, line, &recs[out])) < 0)
				return err;
			out++;
			g->accesses++;
			continue;
		}
		if ((err = kernel_header(g, line)) < 0)
			return err;
	}
	return (int)out;
}

static void gs_free(struct sb_trace_reader *r)
{
	struct gs_reader *g = (struct gs_reader *)r;

	sb_linebuf_close(&g->lb);
	free(g);
}

static const struct sb_trace_reader_ops gs_ops = {.read = gs_read, .free = gs_free};

/* Open path, or the len bytes at data when data is not NULL (named path in messages). */
static int gs_open(struct sb_trace_reader **r, const char *path, const void *data, size_t len,
                   const struct sb_trace_options *opt)
{
	struct gs_reader *g = calloc(1, sizeof(*g));
	int err;

	*r = NULL;
	if (!g)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	g->block_bytes = opt->block_bytes ? opt->block_bytes : 32;
	if (g->block_bytes & (g->block_bytes - 1)) {
		uint32_t b = g->block_bytes;

		free(g);
		return sb_error_set(SB_ERR_INVAL, "block size %u B is not a power of two", b);
	}
	err = data ? sb_linebuf_open_mem(&g->lb, path, data, len) : sb_linebuf_open(&g->lb, path);
	if (err < 0) {
		free(g);
		return err;
	}
	g->base.ops = &gs_ops;
	sb_strlcpy(g->base.name, path, sizeof(g->base.name));
	sb_trace_info_init(&g->base.info, "gpgpusim",
	                   opt->clock_hz > 0 ? opt->clock_hz : SB_TRACE_DEFAULT_CLOCK_HZ, "cycle");
	g->base.info.fields = SB_FIELD_CACHE | SB_FIELD_UNIT | SB_FIELD_GROUP;
	g->last_sp = -1;
	*r = &g->base;
	return 0;
}

int sb_trace_open_gpgpusim(struct sb_trace_reader **r, const char *name, const void *data,
                           size_t len, const struct sb_trace_options *opt, unsigned flags)
{
	static const char empty[1];
	int err;

	err = gs_open(r, name, data && !len ? empty : data, len, opt);
	if (err == 0)
		((struct gs_reader *)*r)->unchecked = flags & SB_TRACE_OPEN_UNCHECKED;
	return err;
}
