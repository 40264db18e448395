/* SPDX-License-Identifier: MIT */
/*
 * CSV traces with named columns (docs/trace-format.md): a header line names the columns
 * (time|cycle|time_ns|time_ps, addr, kind, and optionally subpartition, size, status, unit, pc,
 * sample, latency, group; other columns are ignored); "#" lines are comments, "#@" lines carry
 * the description (clock, subpartitions, warnings) that the writer records.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/output.h"
#include "stackbench/util.h"
#include "trace_internal.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)

enum col {
	COL_IGNORE,
	COL_TIME,    /* ticks */
	COL_TIME_NS, /* ns, fractions allowed: ticks are ps */
	COL_TIME_PS,
	COL_SUBPART,
	COL_ADDR,
	COL_SIZE,
	COL_KIND,
	COL_STATUS,
	COL_UNIT,
	COL_PC,
	COL_SAMPLE,
	COL_LATENCY,
	COL_GROUP,
};

static const struct {
	const char *name;
	enum col col;
} col_names[] = {
    {"time", COL_TIME},
    {"cycle", COL_TIME},
    {"time_ns", COL_TIME_NS},
    {"time_ps", COL_TIME_PS},
    {"subpartition", COL_SUBPART},
    {"addr", COL_ADDR},
    {"address", COL_ADDR},
    {"size", COL_SIZE},
    {"kind", COL_KIND},
    {"status", COL_STATUS},
    {"unit", COL_UNIT},
    {"pc", COL_PC},
    {"sample", COL_SAMPLE},
    {"latency", COL_LATENCY},
    {"group", COL_GROUP},
};

#define CSV_MAX_COLS 64

struct csv_reader {
	struct sb_trace_reader base;
	struct sb_linebuf lb;
	enum col cols[CSV_MAX_COLS];
	size_t ncols;
	bool have_status;
	bool unchecked; /* SB_TRACE_OPEN_UNCHECKED: time may go back (a sort follows) */
	uint32_t default_block;
	int64_t last_time[SB_TRACE_MAX_SUBPARTS];
	uint8_t seen[SB_TRACE_MAX_SUBPARTS];
	int last_sp;
	char last_name[SB_TRACE_NAME_MAX];
	size_t last_len;                      /* strlen(last_name) */
	uint8_t splen[SB_TRACE_MAX_SUBPARTS]; /* strlen of each subpartition's name (fast path) */
};

static char *trim(char *s, char **end)
{
	char *e = *end;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e - s >= 2 && *s == '"' && e[-1] == '"')
		s++, e--;
	*end = e;
	return s;
}

static int csv_u64(struct csv_reader *c, const char *what, char *s, char *e, uint64_t max,
                   uint64_t *out)
{
	uint64_t v = 0;
	char *p = s;
	bool hex = e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (hex)
		p += 2;
	if (p == e)
		goto bad;
	for (; p < e; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (hex && isxdigit((unsigned char)*p))
			d = (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
		else
			goto bad;
		if (v > (UINT64_MAX - d) / (hex ? 16 : 10))
			goto bad;
		v = v * (hex ? 16 : 10) + d;
	}
	if (v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	return sb_trace_parse_error(c->lb.name, c->lb.line,
	                            "column '%s': expected a number up to %llu, got '%.*s'", what,
	                            (unsigned long long)max, (int)(e - s), s);
}

/* #@ attr KEY VALUE: a provenance attribute (the value runs to the end of the line). */
static int csv_attr(struct csv_reader *c, char *p)
{
	size_t klen = strcspn(p, " ");
	char key[SB_TRACE_ATTR_KEY_MAX];

	if (!klen || klen >= sizeof(key))
		return sb_trace_parse_error(c->lb.name, c->lb.line, "attr: bad name");
	memcpy(key, p, klen);
	key[klen] = '\0';
	p += klen;
	if (*p == ' ')
		p++;
	if (sb_trace_info_set_attr(&c->base.info, key, p) < 0)
		return sb_trace_parse_error(c->lb.name, c->lb.line, "%s", sb_error_detail());
	return 0;
}

/* #@ capture key=value ...: how the trace was sampled (every key of the writer's line). */
static int csv_capture(struct csv_reader *c, char *p)
{
	static const char *const keys[] = {
	    "sampled",      "burst_records", "gap_ticks",   "executed", "captured",
	    "lost_records", "bursts",        "lost_bursts", "start",    "end"};
	struct sb_trace_capture cap = {0};
	unsigned seen = 0;

	while (*p) {
		char *tok, *eq, *end;
		size_t k;

		p += strspn(p, " \t");
		if (!*p)
			break;
		tok = p;
		p += strcspn(p, " \t");
		if (*p)
			*p++ = '\0';
		if (!(eq = strchr(tok, '=')))
			return sb_trace_parse_error(c->lb.name, c->lb.line,
			                            "capture: '%s' is not "
			                            "key=value",
			                            tok);
		*eq = '\0';
		for (k = 0; k < SB_ARRAY_SIZE(keys) && strcmp(keys[k], tok); k++)
			;
		if (k == SB_ARRAY_SIZE(keys))
			return sb_trace_parse_error(c->lb.name, c->lb.line,
			                            "capture: unknown key '%s'", tok);
		errno = 0;
		if (k >= 8) {
			long long v = strtoll(eq + 1, &end, 10);

			if (*end || errno || end == eq + 1)
				goto bad;
			*(k == 8 ? &cap.start : &cap.end) = v;
		} else {
			unsigned long long v;

			if (eq[1] == '-')
				goto bad;
			v = strtoull(eq + 1, &end, 10);
			if (*end || errno || end == eq + 1 || (k < 2 && v > UINT32_MAX))
				goto bad;
			switch (k) {
			case 0:
				cap.sampled = (uint32_t)v;
				break;
			case 1:
				cap.burst_records = (uint32_t)v;
				break;
			case 2:
				cap.gap_ticks = v;
				break;
			case 3:
				cap.executed = v;
				break;
			case 4:
				cap.captured = v;
				break;
			case 5:
				cap.lost_records = v;
				break;
			case 6:
				cap.bursts = v;
				break;
			default:
				cap.lost_bursts = v;
				break;
			}
		}
		seen |= 1u << k;
		continue;
	bad:
		return sb_trace_parse_error(c->lb.name, c->lb.line,
		                            "capture: key '%s': bad value "
		                            "'%s'",
		                            tok, eq + 1);
	}
	if (seen != (1u << SB_ARRAY_SIZE(keys)) - 1)
		return sb_trace_parse_error(c->lb.name, c->lb.line,
		                            "capture: every key is needed (%s, ...)", keys[0]);
	if (sb_trace_capture_check(&cap, c->lb.name) < 0)
		return sb_trace_parse_error(c->lb.name, c->lb.line, "%s", sb_error_detail());
	c->base.info.capture = cap;
	return 0;
}

/* #@ key=value ... metadata written by the CSV writer (and usable by hand). */
static int csv_meta(struct csv_reader *c, char *line)
{
	struct sb_trace_info *info = &c->base.info;
	char *p = line + 2, *tok;
	char name[SB_TRACE_NAME_MAX] = "";
	uint64_t unit = 1, block = 0;
	int type = SB_SUBPART_SCRATCHPAD, per_unit = 0, sp;
	bool subpart = false;

	while (*p == ' ')
		p++;
	if (!strncmp(p, "warning ", 8)) {
		sb_trace_info_add_warning(info, p + 8);
		return 0;
	}
	if (!strncmp(p, "attr ", 5))
		return csv_attr(c, p + 5);
	if (!strncmp(p, "capture ", 8))
		return csv_capture(c, p + 8);
	if (!strncmp(p, "subpartition", 12)) {
		subpart = true;
		p += 12;
	}
	for (;;) {
		char *eq, *v, *ve;
		uint64_t u;
		double d;

		/* next blank-separated token, terminated in place */
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		tok = p;
		p += strcspn(p, " \t");
		if (*p)
			*p++ = '\0';
		eq = strchr(tok, '=');
		if (!eq)
			continue; /* "stackbench-trace csv 1" and the like */
		*eq = '\0';
		v = eq + 1;
		ve = v + strlen(v);
		if (subpart && !strcmp(tok, "name")) {
			if (!*v || strlen(v) >= sizeof(name))
				return sb_trace_parse_error(c->lb.name, c->lb.line,
				                            "bad subpartition name '%s'", v);
			sb_strlcpy(name, v, sizeof(name));
		} else if (subpart && !strcmp(tok, "type")) {
			if (!strcmp(v, "cache"))
				type = SB_SUBPART_CACHE;
			else if (!strcmp(v, "scratchpad"))
				type = SB_SUBPART_SCRATCHPAD;
			else
				return sb_trace_parse_error(c->lb.name, c->lb.line,
				                            "key 'type': '%s' (expected scratchpad "
				                            "or cache)",
				                            v);
		} else if (subpart && !strcmp(tok, "addr_unit_bytes")) {
			if (csv_u64(c, "addr_unit_bytes", v, ve, 1u << 30, &unit) < 0)
				return SB_ERR_PARSE;
		} else if (subpart && !strcmp(tok, "block_bytes")) {
			if (csv_u64(c, "block_bytes", v, ve, 1u << 30, &block) < 0)
				return SB_ERR_PARSE;
		} else if (subpart && !strcmp(tok, "per_unit")) {
			if (csv_u64(c, "per_unit", v, ve, 1, &u) < 0)
				return SB_ERR_PARSE;
			per_unit = (int)u;
		} else if (!subpart && !strcmp(tok, "clock_hz")) {
			errno = 0;
			d = strtod(v, &ve);
			if (*ve || errno || !(d > 0) || !isfinite(d))
				return sb_trace_parse_error(c->lb.name, c->lb.line,
				                            "key 'clock_hz': bad value '%s'", v);
			if (!sb_trace_clock_ok(d))
				return sb_trace_parse_error(
				    c->lb.name, c->lb.line,
				    "key 'clock_hz': %g Hz is out of range (%g Hz .. %g Hz)", d,
				    SB_TRACE_CLOCK_MIN_HZ, SB_TRACE_CLOCK_MAX_HZ);
			info->tick_hz = d;
		} else if (!subpart && !strcmp(tok, "time_unit")) {
			if (strcmp(v, "cycle") && strcmp(v, "ns") && strcmp(v, "ps"))
				return sb_trace_parse_error(
				    c->lb.name, c->lb.line,
				    "key 'time_unit': '%s' (expected cycle, "
				    "ns or ps)",
				    v);
			sb_strlcpy(info->time_unit, v, sizeof(info->time_unit));
		} else if (!subpart && !strcmp(tok, "source")) {
			sb_strlcpy(info->source, v, sizeof(info->source));
		}
	}
	if (!subpart)
		return 0;
	if (!*name)
		return sb_trace_parse_error(c->lb.name, c->lb.line, "subpartition without a name");
	sp = sb_trace_info_subpart(info, name, (enum sb_subpart_type)type, (uint32_t)unit,
	                           (uint32_t)(block ? block : unit));
	if (sp < 0)
		return sb_trace_parse_error(c->lb.name, c->lb.line, "%s", sb_error_detail());
	info->subparts[sp].per_unit = (uint8_t)per_unit;
	c->splen[sp] = (uint8_t)strlen(info->subparts[sp].name);
	return 0;
}

static int csv_header(struct csv_reader *c, char *line, size_t len)
{
	char *p = line, *end = line + len;
	bool have_time = false, have_addr = false, have_kind = false;

	c->ncols = 0;
	while (p <= end) {
		char *comma = memchr(p, ',', (size_t)(end - p)), *fe = comma ? comma : end;
		char *s = trim(p, &fe);
		enum col col = COL_IGNORE;

		if (c->ncols == CSV_MAX_COLS)
			return sb_trace_parse_error(c->lb.name, c->lb.line, "more than %d columns",
			                            CSV_MAX_COLS);
		for (size_t i = 0; i < SB_ARRAY_SIZE(col_names); i++) {
			if ((size_t)(fe - s) == strlen(col_names[i].name) &&
			    !strncasecmp(s, col_names[i].name, (size_t)(fe - s))) {
				col = col_names[i].col;
				break;
			}
		}
		for (size_t i = 0; col != COL_IGNORE && i < c->ncols; i++)
			if (c->cols[i] == col || (col <= COL_TIME_PS && c->cols[i] >= COL_TIME &&
			                          c->cols[i] <= COL_TIME_PS))
				return sb_trace_parse_error(c->lb.name, c->lb.line,
				                            "column '%.*s' given twice",
				                            (int)(fe - s), s);
		if (col == COL_IGNORE)
			sb_dbg("'%s': ignoring column '%.*s'", c->lb.name, (int)(fe - s), s);
		have_time |= col >= COL_TIME && col <= COL_TIME_PS;
		have_addr |= col == COL_ADDR;
		have_kind |= col == COL_KIND;
		if (col == COL_STATUS)
			c->have_status = true, c->base.info.fields |= SB_FIELD_CACHE;
		if (col == COL_UNIT)
			c->base.info.fields |= SB_FIELD_UNIT;
		if (col == COL_PC)
			c->base.info.fields |= SB_FIELD_PC;
		if (col == COL_SAMPLE)
			c->base.info.fields |= SB_FIELD_SAMPLE;
		if (col == COL_LATENCY)
			c->base.info.fields |= SB_FIELD_LATENCY;
		if (col == COL_GROUP)
			c->base.info.fields |= SB_FIELD_GROUP;
		if (col == COL_TIME_NS || col == COL_TIME_PS) {
			c->base.info.tick_hz = 1e12;
			sb_strlcpy(c->base.info.time_unit, "ps", sizeof(c->base.info.time_unit));
		}
		c->cols[c->ncols++] = col;
		if (!comma)
			break;
		p = comma + 1;
	}
	if (!have_time || !have_addr || !have_kind)
		return sb_trace_parse_error(
		    c->lb.name, c->lb.line, "the header needs columns %s%s%s (got '%s')",
		    have_time ? "" : "'time' (or cycle, time_ns, time_ps) ",
		    have_addr ? "" : "'addr' ", have_kind ? "" : "'kind' ", line);
	return 0;
}

static int parse_kind(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int kind;
	} kinds[] = {{"read", SB_ACC_READ},   {"r", SB_ACC_READ},      {"load", SB_ACC_READ},
	             {"ld", SB_ACC_READ},     {"write", SB_ACC_WRITE}, {"w", SB_ACC_WRITE},
	             {"store", SB_ACC_WRITE}, {"st", SB_ACC_WRITE},    {"fetch", SB_ACC_FETCH},
	             {"fill", SB_ACC_FETCH},  {"flush", SB_ACC_FLUSH}};

	for (size_t i = 0; i < SB_ARRAY_SIZE(kinds); i++)
		if (strlen(kinds[i].name) == n && !strncasecmp(s, kinds[i].name, n))
			return kinds[i].kind;
	return -1;
}

static int parse_status(const char *s, size_t n)
{
	if (n == 1 && *s >= '0' && *s <= '5')
		return SB_CACHE_HIT + (*s - '0');
	for (int i = 0; i < SB_CACHE_STATUS_COUNT; i++) {
		const char *name = sb_cache_status_name((enum sb_cache_status)i);

		if (strlen(name) == n && !strncasecmp(s, name, n))
			return i;
	}
	return -1;
}

static int csv_record(struct csv_reader *c, char *line, size_t len, struct sb_trace_record *rec)
{
	char *p = line, *end = line + len;
	const char *spname = "mem";
	size_t spname_len = 3, col = 0;
	bool have_size = false;
	uint64_t u;
	int64_t t = 0;
	int sp, v;

	memset(rec, 0, sizeof(*rec));
	while (col < c->ncols) {
		char *comma = memchr(p, ',', (size_t)(end - p)), *fe = comma ? comma : end;
		char *s = trim(p, &fe);

		switch (c->cols[col]) {
		case COL_IGNORE:
			break;
		case COL_TIME:
		case COL_TIME_PS:
			if ((v = sb_parse_int_field(s, fe, &t)) < 0)
				return sb_trace_parse_error(
				    c->lb.name, c->lb.line, "column 'time': %s '%.*s'",
				    v == -2 ? "not a whole number:" : "expected a number, got",
				    (int)(fe - s), s);
			if (!sb_trace_time_ok(t))
				return sb_trace_parse_error(
				    c->lb.name, c->lb.line,
				    "column 'time': time %lld is out of range "
				    "(|time| < 2^62 ticks)",
				    (long long)t);
			break;
		case COL_TIME_NS: {
			char tmp[64], *e;
			double d;

			if ((size_t)(fe - s) >= sizeof(tmp))
				goto bad_ns;
			memcpy(tmp, s, (size_t)(fe - s));
			tmp[fe - s] = '\0';
			errno = 0;
			d = strtod(tmp, &e);
			if (e == tmp || *e || errno || !isfinite(d))
				goto bad_ns;
			if (fabs(d) * 1000.0 > (double)SB_TRACE_TIME_MAX / 2)
				return sb_trace_parse_error(
				    c->lb.name, c->lb.line,
				    "column 'time_ns': %.*s ns is out of range "
				    "(|time| < 2^61 ps)",
				    (int)(fe - s), s);
			t = llround(d * 1000.0);
			break;
		bad_ns:
			return sb_trace_parse_error(
			    c->lb.name, c->lb.line,
			    "column 'time_ns': expected a number, got '%.*s'", (int)(fe - s), s);
		}
		case COL_SUBPART:
			spname = s;
			spname_len = (size_t)(fe - s);
			break;
		case COL_ADDR:
			if (csv_u64(c, "addr", s, fe, UINT64_MAX, &rec->addr) < 0)
				return SB_ERR_PARSE;
			break;
		case COL_SIZE:
			if (csv_u64(c, "size", s, fe, UINT32_MAX, &u) < 0)
				return SB_ERR_PARSE;
			rec->size = (uint32_t)u;
			have_size = true;
			break;
		case COL_KIND:
			if ((v = parse_kind(s, (size_t)(fe - s))) < 0)
				return sb_trace_parse_error(
				    c->lb.name, c->lb.line,
				    "column 'kind': unknown access kind '%.*s' "
				    "(expected read, write, fetch or flush)",
				    (int)(fe - s), s);
			rec->kind = (uint8_t)v;
			break;
		case COL_STATUS:
			if ((v = parse_status(s, (size_t)(fe - s))) < 0)
				return sb_trace_parse_error(
				    c->lb.name, c->lb.line,
				    "column 'status': unknown cache status '%.*s'", (int)(fe - s),
				    s);
			rec->cache = (uint8_t)v;
			break;
		case COL_UNIT:
			if (csv_u64(c, "unit", s, fe, UINT32_MAX, &u) < 0)
				return SB_ERR_PARSE;
			rec->unit = (uint32_t)u;
			break;
		case COL_PC:
			if (csv_u64(c, "pc", s, fe, UINT64_MAX, &rec->pc) < 0)
				return SB_ERR_PARSE;
			break;
		case COL_SAMPLE:
			if (csv_u64(c, "sample", s, fe, UINT32_MAX, &u) < 0)
				return SB_ERR_PARSE;
			rec->sample = (uint32_t)u;
			break;
		case COL_LATENCY:
			if (csv_u64(c, "latency", s, fe, UINT32_MAX, &u) < 0)
				return SB_ERR_PARSE;
			rec->latency = (uint32_t)u;
			break;
		case COL_GROUP:
			if (csv_u64(c, "group", s, fe, UINT32_MAX, &u) < 0)
				return SB_ERR_PARSE;
			rec->group = (uint32_t)u;
			break;
		}
		col++;
		if (!comma)
			break;
		p = comma + 1;
	}
	if (col < c->ncols)
		return sb_trace_parse_error(c->lb.name, c->lb.line,
		                            "%zu columns, the header names %zu", col, c->ncols);
	if (c->last_sp < 0 || spname_len != strlen(c->last_name) ||
	    strncmp(spname, c->last_name, spname_len)) {
		char name[SB_TRACE_NAME_MAX];

		if (spname_len == 0 || spname_len >= sizeof(name))
			return sb_trace_parse_error(c->lb.name, c->lb.line,
			                            "column 'subpartition': bad name '%.*s'",
			                            (int)spname_len, spname);
		memcpy(name, spname, spname_len);
		name[spname_len] = '\0';
		sp = sb_trace_info_subpart(&c->base.info, name,
		                           rec->cache ? SB_SUBPART_CACHE : SB_SUBPART_SCRATCHPAD, 1,
		                           c->default_block);
		if (sp < 0)
			return sb_trace_parse_error(c->lb.name, c->lb.line, "%s",
			                            sb_error_detail());
		c->last_sp = sp;
		sb_strlcpy(c->last_name, name, sizeof(c->last_name));
		c->last_len = strlen(c->last_name);
		c->splen[sp] = (uint8_t)c->last_len;
	}
	sp = c->last_sp;
	if (!have_size)
		rec->size = c->base.info.subparts[sp].block_bytes;
	if (c->seen[sp] && t < c->last_time[sp] && !c->unchecked) {
		c->base.unsorted = true;
		return sb_trace_parse_error(
		    c->lb.name, c->lb.line,
		    "time %lld comes after %lld in subpartition '%s' (records "
		    "must be in time order%s)",
		    (long long)t, (long long)c->last_time[sp], c->base.info.subparts[sp].name,
		    strcmp(c->lb.name, "-")
		        ? ""
		        : "; given as a file, not on standard input, they are sorted");
	}
	if (!c->seen[sp] || t > c->last_time[sp])
		c->last_time[sp] = t;
	c->seen[sp] = 1;
	rec->time = t;
	rec->subpart = (uint16_t)sp;
	return 0;
}

/* --- the fast path ---------------------------------------------------------------------- */

/*
 * Lines as tools write them (the CSV writer's among them) are parsed here in one pass over
 * their bytes: plain decimal numbers (hexadecimal with 0x), access kinds and cache statuses by
 * their lower-case names or digits, the subpartition of the line before. Anything else (spaces,
 * quotes, floats, a new subpartition, an error) goes to csv_record(), which parses every form
 * and names what is wrong: the fast path gives the record csv_record() would, or declines.
 */

/* Whether bytes loaded into an integer have the first at its low end (the SWAR paths). */
static inline bool le_host(void)
{
	return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
}

/* Digits at *p (decimal, or hexadecimal after 0x) up to max: true and *p past them. */
static inline bool fast_number(const char **pp, const char *end, uint64_t max, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		const char *s = p += 2;

		for (; p < end && p - s < 16; p++) {
			unsigned d = (unsigned)(*p - '0');

			if (d > 9) {
				d = (unsigned)((*p | 0x20) - 'a');
				if (d > 5)
					break;
				d += 10;
			}
			v = v << 4 | d;
		}
		if (p == s || (p < end && (unsigned)(*p - '0') <= 9))
			return false;
	} else {
		const char *s = p;
		unsigned k;

		/* the first digits, up to 8, at once when 8 bytes of the line are left (SWAR): the
		   first byte that is no digit found by a carry-free test, the digits before it
		   combined in pairs, fours and eights by three multiplications */
		if (end - p >= 8) {
			uint64_t w, m;

			memcpy(&w, p, 8);
			w ^= 0x3030303030303030ull; /* digit bytes now 0..9 */
			m = ((w + 0x7676767676767676ull) | w) & 0x8080808080808080ull;
			k = m ? (unsigned)__builtin_ctzll(m) / 8
			      : 8; /* little-endian: byte 0 first */
			if (k && le_host()) {
				w <<= 8 * (8 - k); /* as if led by zeros */
				w = (w & 0x0f0f0f0f0f0f0f0full) * 2561 >> 8;
				w = (w & 0x00ff00ff00ff00ffull) * 6553601 >> 16;
				v = (w & 0x0000ffff0000ffffull) * 42949672960001ull >> 32;
				p += k;
			}
		}
		for (; p < end && (unsigned)(*p - '0') <= 9 && p - s < 19; p++)
			v = v * 10 + (uint64_t)(*p - '0');
		if (p == s || (p < end && (unsigned)(*p - '0') <= 9))
			return false; /* none, or 20 digits and more: csv_record() */
	}
	if (v > max)
		return false;
	*out = v;
	*pp = p;
	return true;
}

/* A field's text: to the next comma (fields are a few bytes: a memchr call costs more). Eight
   bytes at a time while eight are left (the lowest zero byte of w ^ ",,,,,,,," is exact). */
static inline const char *fast_field(const char *p, const char *end)
{
	while (end - p >= 8 && le_host()) {
		uint64_t w, z;

		memcpy(&w, p, 8);
		w ^= 0x2c2c2c2c2c2c2c2cull;
		z = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
		if (z)
			return p + __builtin_ctzll(z) / 8;
		p += 8;
	}
	while (p < end && *p != ',')
		p++;
	return p;
}

/* Whether n bytes are equal (names of a few bytes: no call to memcmp). */
static inline bool same_bytes(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static inline int fast_kind(const char *s, size_t n)
{
	switch (n) {
	case 1:
		return *s == 'r' ? SB_ACC_READ : *s == 'w' ? SB_ACC_WRITE : -1;
	case 2:
		return !memcmp(s, "ld", 2) ? SB_ACC_READ : !memcmp(s, "st", 2) ? SB_ACC_WRITE : -1;
	case 4:
		return !memcmp(s, "read", 4)   ? SB_ACC_READ
		       : !memcmp(s, "load", 4) ? SB_ACC_READ
		       : !memcmp(s, "fill", 4) ? SB_ACC_FETCH
		                               : -1;
	case 5:
		return !memcmp(s, "write", 5)   ? SB_ACC_WRITE
		       : !memcmp(s, "fetch", 5) ? SB_ACC_FETCH
		       : !memcmp(s, "store", 5) ? SB_ACC_WRITE
		       : !memcmp(s, "flush", 5) ? SB_ACC_FLUSH
		                                : -1;
	default:
		return -1;
	}
}

static inline int fast_status(const char *s, size_t n)
{
	if (n == 1)
		return *s >= '0' && *s <= '5' ? SB_CACHE_HIT + (*s - '0') : -1;
	for (int i = 0; i < SB_CACHE_STATUS_COUNT; i++) {
		const char *name = sb_cache_status_name((enum sb_cache_status)i);

		if (strlen(name) == n && !memcmp(s, name, n))
			return i;
	}
	return -1;
}

/* 0: the line parsed into rec; 1: csv_record() takes it. */
static int csv_fast(struct csv_reader *c, const char *p, const char *end,
                    struct sb_trace_record *rec)
{
	const char *spname = "mem", *fe;
	size_t splen = 3;
	bool have_size = false;
	uint64_t u;
	int64_t t = 0;
	int v, sp;

	memset(rec, 0, sizeof(*rec));
	for (size_t col = 0; col < c->ncols; col++) {
		if (col) {
			if (p >= end || *p != ',')
				return 1;
			p++;
		}
		switch (c->cols[col]) {
		case COL_IGNORE:
			p = fast_field(p, end);
			break;
		case COL_TIME:
		case COL_TIME_PS: {
			const bool neg = p < end && *p == '-';

			p += neg;
			if (!fast_number(&p, end, (uint64_t)SB_TRACE_TIME_MAX, &u))
				return 1;
			t = neg ? -(int64_t)u : (int64_t)u;
			break;
		}
		case COL_TIME_NS:
			return 1;
		case COL_SUBPART:
			fe = fast_field(p, end);
			spname = p;
			splen = (size_t)(fe - p);
			p = fe;
			break;
		case COL_ADDR:
			if (!fast_number(&p, end, UINT64_MAX, &rec->addr))
				return 1;
			break;
		case COL_SIZE:
			if (!fast_number(&p, end, UINT32_MAX, &u))
				return 1;
			rec->size = (uint32_t)u;
			have_size = true;
			break;
		case COL_KIND:
			fe = fast_field(p, end);
			if ((v = fast_kind(p, (size_t)(fe - p))) < 0)
				return 1;
			rec->kind = (uint8_t)v;
			p = fe;
			break;
		case COL_STATUS:
			fe = fast_field(p, end);
			if ((v = fast_status(p, (size_t)(fe - p))) < 0)
				return 1;
			rec->cache = (uint8_t)v;
			p = fe;
			break;
		case COL_UNIT:
			if (!fast_number(&p, end, UINT32_MAX, &u))
				return 1;
			rec->unit = (uint32_t)u;
			break;
		case COL_PC:
			if (!fast_number(&p, end, UINT64_MAX, &rec->pc))
				return 1;
			break;
		case COL_SAMPLE:
			if (!fast_number(&p, end, UINT32_MAX, &u))
				return 1;
			rec->sample = (uint32_t)u;
			break;
		case COL_LATENCY:
			if (!fast_number(&p, end, UINT32_MAX, &u))
				return 1;
			rec->latency = (uint32_t)u;
			break;
		case COL_GROUP:
			if (!fast_number(&p, end, UINT32_MAX, &u))
				return 1;
			rec->group = (uint32_t)u;
			break;
		}
	}
	/* columns past the header's are ignored, as csv_record() does */
	if (p < end && *p != ',')
		return 1;
	/* a subpartition named before (the last one first) */
	if (c->last_sp >= 0 && splen == c->last_len && same_bytes(spname, c->last_name, splen)) {
		sp = c->last_sp;
	} else {
		const struct sb_trace_info *info = &c->base.info;

		for (sp = 0; sp < (int)info->nsubparts; sp++)
			if (c->splen[sp] == splen &&
			    same_bytes(info->subparts[sp].name, spname, splen))
				break;
		if (sp == (int)info->nsubparts)
			return 1;
		c->last_sp = sp;
		memcpy(c->last_name, spname, splen);
		c->last_name[splen] = '\0';
		c->last_len = splen;
	}
	if (c->seen[sp] && t < c->last_time[sp] && !c->unchecked)
		return 1; /* goes back: csv_record() says so */
	if (!have_size)
		rec->size = c->base.info.subparts[sp].block_bytes;
	if (!c->seen[sp] || t > c->last_time[sp])
		c->last_time[sp] = t;
	c->seen[sp] = 1;
	rec->time = t;
	rec->subpart = (uint16_t)sp;
	return 0;
}

static int csv_read(struct sb_trace_reader *r, struct sb_trace_record *recs, size_t max)
{
	struct csv_reader *c = (struct csv_reader *)r;
	size_t out = 0;
	char *line;
	size_t len;
	int err;

	while (out < max) {
		if ((err = sb_linebuf_next(&c->lb, &line, &len)) < 0)
			return err;
		if (err == 0)
			break;
		if (LIKELY(len && line[0] != '#' && !csv_fast(c, line, line + len, &recs[out]))) {
			out++;
			continue;
		}
		if (line[0] == '#') {
			if (line[1] == '@' && (err = csv_meta(c, line)) < 0)
				return err;
			continue;
		}
		if (len == 0 || !line[strspn(line, " \t")])
			continue;
		if ((err = csv_record(c, line, len, &recs[out])) < 0)
			return err;
		out++;
	}
	return (int)out;
}

static void csv_free(struct sb_trace_reader *r)
{
	struct csv_reader *c = (struct csv_reader *)r;

	sb_linebuf_close(&c->lb);
	free(c);
}

static const struct sb_trace_reader_ops csv_ops = {.read = csv_read, .free = csv_free};

/* Open a CSV trace over lb (opened by the caller; closed here on failure). */
static int csv_open(struct sb_trace_reader **r, struct csv_reader *c, const char *path,
                    const struct sb_trace_options *opt)
{
	char *line;
	size_t len;
	int err;

	c->default_block = opt->block_bytes ? opt->block_bytes : 1;
	c->base.ops = &csv_ops;
	c->last_sp = -1;
	sb_strlcpy(c->base.name, path, sizeof(c->base.name));
	sb_trace_info_init(&c->base.info, "csv",
	                   opt->clock_hz > 0 ? opt->clock_hz : SB_TRACE_DEFAULT_CLOCK_HZ, "cycle");
	/* metadata and comments, then the header */
	for (;;) {
		if ((err = sb_linebuf_next(&c->lb, &line, &len)) < 0)
			goto fail;
		if (err == 0) {
			err = sb_trace_parse_error(path, c->lb.line + 1,
			                           "no header line (expected column names such as "
			                           "'time,subpartition,addr,size,kind')");
			goto fail;
		}
		if (line[0] == '#') {
			if (line[1] == '@' && (err = csv_meta(c, line)) < 0)
				goto fail;
			continue;
		}
		if (len && line[strspn(line, " \t")])
			break;
	}
	if ((err = csv_header(c, line, len)) < 0)
		goto fail;
	if (opt->clock_hz > 0 && !strcmp(c->base.info.time_unit, "cycle"))
		c->base.info.tick_hz = opt->clock_hz; /* the user's clock wins */
	*r = &c->base;
	return 0;
fail:
	csv_free(&c->base);
	return err;
}

int sb_trace_open_csv(struct sb_trace_reader **r, const char *name, const void *data, size_t len,
                      const struct sb_trace_options *opt, unsigned flags)
{
	struct csv_reader *c = calloc(1, sizeof(*c));
	int err;

	*r = NULL;
	if (!c)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	err = data ? sb_linebuf_open_mem(&c->lb, name, data, len) : sb_linebuf_open(&c->lb, name);
	if (err < 0) {
		free(c);
		return err;
	}
	c->unchecked = flags & SB_TRACE_OPEN_UNCHECKED;
	return csv_open(r, c, name, opt);
}

/* --- Writer ------------------------------------------------------------------------------- */

struct csv_writer {
	struct sb_trace_writer base;
	struct sb_output out; /* written atomically */
	FILE *f;              /* out.f */
	char path[256];
	uint32_t fields;
	uint32_t nsubparts, nwarnings;
	/* the capture description and attributes as last written */
	struct sb_trace_capture capture;
	uint32_t nattrs;
	struct sb_trace_attr attrs[SB_TRACE_MAX_ATTRS];
};

static void csv_write_meta(struct csv_writer *w, const struct sb_trace_info *info)
{
	for (; w->nsubparts < info->nsubparts; w->nsubparts++) {
		const struct sb_trace_subpart *sp = &info->subparts[w->nsubparts];

		fprintf(w->f,
		        "#@ subpartition name=%s type=%s addr_unit_bytes=%u block_bytes=%u "
		        "per_unit=%u\n",
		        sp->name, sp->type == SB_SUBPART_CACHE ? "cache" : "scratchpad",
		        sp->addr_unit_bytes, sp->block_bytes, sp->per_unit);
	}
	for (; w->nwarnings < info->nwarnings; w->nwarnings++)
		fprintf(w->f, "#@ warning %s\n", info->warnings[w->nwarnings]);
	for (uint32_t i = 0; i < info->nattrs; i++) {
		if (i < w->nattrs && !memcmp(&info->attrs[i], &w->attrs[i], sizeof(w->attrs[i])))
			continue;
		fprintf(w->f, "#@ attr %s %s\n", info->attrs[i].key, info->attrs[i].value);
		w->attrs[i] = info->attrs[i];
	}
	w->nattrs = info->nattrs > w->nattrs ? info->nattrs : w->nattrs;
	if (memcmp(&info->capture, &w->capture, sizeof(w->capture))) {
		const struct sb_trace_capture *c = &info->capture;

		fprintf(w->f,
		        "#@ capture sampled=%u burst_records=%u gap_ticks=%llu executed=%llu "
		        "captured=%llu lost_records=%llu bursts=%llu lost_bursts=%llu start=%lld "
		        "end=%lld\n",
		        c->sampled, c->burst_records, (unsigned long long)c->gap_ticks,
		        (unsigned long long)c->executed, (unsigned long long)c->captured,
		        (unsigned long long)c->lost_records, (unsigned long long)c->bursts,
		        (unsigned long long)c->lost_bursts, (long long)c->start, (long long)c->end);
		w->capture = *c;
	}
}

static int csv_write(struct sb_trace_writer *wr, const struct sb_trace_info *info,
                     const struct sb_trace_record *recs, size_t n)
{
	struct csv_writer *w = (struct csv_writer *)wr;

	csv_write_meta(w, info);
	for (size_t i = 0; i < n; i++) {
		const struct sb_trace_record *r = &recs[i];

		if (r->subpart >= info->nsubparts)
			return sb_error_set(SB_ERR_RANGE, "record with subpartition %u of %u",
			                    r->subpart, info->nsubparts);
		fprintf(w->f, "%lld,%s,%llu,%u,%s", (long long)r->time,
		        info->subparts[r->subpart].name, (unsigned long long)r->addr, r->size,
		        sb_access_kind_name((enum sb_access_kind)r->kind));
		if (w->fields & SB_FIELD_CACHE)
			fprintf(w->f, ",%s", sb_cache_status_name((enum sb_cache_status)r->cache));
		if (w->fields & SB_FIELD_UNIT)
			fprintf(w->f, ",%u", r->unit);
		if (w->fields & SB_FIELD_PC)
			fprintf(w->f, ",0x%llx", (unsigned long long)r->pc);
		if (w->fields & SB_FIELD_SAMPLE)
			fprintf(w->f, ",%u", r->sample);
		if (w->fields & SB_FIELD_LATENCY)
			fprintf(w->f, ",%u", r->latency);
		if (w->fields & SB_FIELD_GROUP)
			fprintf(w->f, ",%u", r->group);
		fputc('\n', w->f);
	}
	if (ferror(w->f))
		return sb_error_set(SB_ERR_IO, "cannot write '%s': %s", w->path, strerror(errno));
	return 0;
}

static int csv_close(struct sb_trace_writer *wr, bool finish)
{
	struct csv_writer *w = (struct csv_writer *)wr;
	int err = 0;

	if (finish && ferror(w->f))
		err = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", w->path, strerror(errno));
	if (finish && !err)
		err = sb_output_commit(&w->out);
	else
		sb_output_abort(&w->out);
	free(w);
	return finish ? err : 0;
}

static const struct sb_trace_writer_ops csv_writer_ops = {.write = csv_write, .close = csv_close};

int sb_trace_writer_open_csv(struct sb_trace_writer **wp, const char *path,
                             const struct sb_trace_info *info)
{
	struct csv_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	w->base.ops = &csv_writer_ops;
	sb_strlcpy(w->path, path, sizeof(w->path));
	if ((err = sb_output_open(&w->out, path)) < 0) {
		free(w);
		return err;
	}
	w->f = w->out.f;
	w->fields = info->fields;
	fprintf(w->f, "#@ stackbench-trace csv 1\n#@ clock_hz=%.17g time_unit=%s source=%s\n",
	        info->tick_hz, info->time_unit, info->source[0] ? info->source : "unknown");
	csv_write_meta(w, info);
	fputs("time,subpartition,addr,size,kind", w->f);
	if (w->fields & SB_FIELD_CACHE)
		fputs(",status", w->f);
	if (w->fields & SB_FIELD_UNIT)
		fputs(",unit", w->f);
	if (w->fields & SB_FIELD_PC)
		fputs(",pc", w->f);
	if (w->fields & SB_FIELD_SAMPLE)
		fputs(",sample", w->f);
	if (w->fields & SB_FIELD_LATENCY)
		fputs(",latency", w->f);
	if (w->fields & SB_FIELD_GROUP)
		fputs(",group", w->f);
	fputc('\n', w->f);
	*wp = &w->base;
	return 0;
}
