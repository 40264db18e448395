/* SPDX-License-Identifier: MIT */
/* The trace model: names, descriptions, the reader interface, merging, conversion. */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/gnuplot.h"
#include "stackbench/log.h"
#include "stackbench/util.h"
#include "trace_internal.h"

static const char *const format_names[SB_TRACE_FORMAT_COUNT] = {"scalesim", "gpgpusim", "csv",
                                                                "sbt"};
static const char *const kind_names[SB_ACC_KIND_COUNT] = {"read", "write", "fetch", "flush"};
static const char *const cache_names[SB_CACHE_STATUS_COUNT] = {
    "none", "hit", "hit_reserved", "miss", "reservation_fail", "sector_miss", "mshr_hit"};

int sb_trace_format_parse(const char *name, enum sb_trace_format *fmt)
{
	for (int i = 0; i < SB_TRACE_FORMAT_COUNT; i++) {
		if (!strcmp(name, format_names[i])) {
			*fmt = (enum sb_trace_format)i;
			return 0;
		}
	}
	return sb_error_set(
	    SB_ERR_INVAL, "unknown trace format '%s' (known: scalesim, gpgpusim, csv, sbt)", name);
}

const char *sb_trace_format_name(enum sb_trace_format fmt)
{
	return (unsigned)fmt < SB_TRACE_FORMAT_COUNT ? format_names[fmt] : "unknown";
}

const char *sb_access_kind_name(enum sb_access_kind kind)
{
	return (unsigned)kind < SB_ACC_KIND_COUNT ? kind_names[kind] : "unknown";
}

const char *sb_cache_status_name(enum sb_cache_status status)
{
	return (unsigned)status < SB_CACHE_STATUS_COUNT ? cache_names[status] : "unknown";
}

void sb_trace_info_init(struct sb_trace_info *info, const char *source, double tick_hz,
                        const char *time_unit)
{
	memset(info, 0, sizeof(*info));
	sb_strlcpy(info->source, source, sizeof(info->source));
	sb_strlcpy(info->time_unit, time_unit, sizeof(info->time_unit));
	info->tick_hz = tick_hz;
}

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

int sb_trace_info_subpart(struct sb_trace_info *info, const char *name, enum sb_subpart_type type,
                          uint32_t addr_unit_bytes, uint32_t block_bytes)
{
	struct sb_trace_subpart *sp;

	for (uint32_t i = 0; i < info->nsubparts; i++)
		if (!strcmp(info->subparts[i].name, name))
			return (int)i;
	if (info->nsubparts >= SB_TRACE_MAX_SUBPARTS)
		return sb_error_set(SB_ERR_RANGE, "too many subpartitions (at most %d): '%s'",
		                    SB_TRACE_MAX_SUBPARTS, name);
	if (!*name || strlen(name) >= SB_TRACE_NAME_MAX)
		return sb_error_set(SB_ERR_RANGE,
		                    "subpartition name '%s' is empty or longer than %d characters",
		                    name, SB_TRACE_NAME_MAX - 1);
	if (!pow2(addr_unit_bytes) || !pow2(block_bytes) || block_bytes < addr_unit_bytes)
		return sb_error_set(
		    SB_ERR_RANGE,
		    "subpartition '%s': address unit (%u B) and block (%u B) must be "
		    "powers of two, the block at least one address unit",
		    name, addr_unit_bytes, block_bytes);
	sp = &info->subparts[info->nsubparts];
	memset(sp, 0, sizeof(*sp));
	sb_strlcpy(sp->name, name, sizeof(sp->name));
	sp->type = (uint8_t)type;
	sp->addr_unit_bytes = addr_unit_bytes;
	sp->block_bytes = block_bytes;
	return (int)info->nsubparts++;
}

void sb_trace_info_warn(struct sb_trace_info *info, const char *fmt, ...)
{
	char msg[SB_TRACE_WARNING_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sb_warn("%s", msg);
	sb_trace_info_add_warning(info, msg);
}

void sb_trace_info_add_warning(struct sb_trace_info *info, const char *msg)
{
	for (uint32_t i = 0; i < info->nwarnings; i++)
		if (!strcmp(info->warnings[i], msg))
			return;
	if (info->nwarnings < SB_TRACE_MAX_WARNINGS)
		sb_strlcpy(info->warnings[info->nwarnings++], msg, SB_TRACE_WARNING_MAX);
}

static bool attr_key_ok(const char *key)
{
	size_t n = strlen(key);

	if (!n || n >= SB_TRACE_ATTR_KEY_MAX)
		return false;
	for (; *key; key++)
		if (!isalnum((unsigned char)*key) && *key != '_' && *key != '.' && *key != '-')
			return false;
	return true;
}

int sb_trace_info_set_attr(struct sb_trace_info *info, const char *key, const char *value)
{
	struct sb_trace_attr *a = NULL;

	if (!attr_key_ok(key))
		return sb_error_set(SB_ERR_INVAL, "bad trace attribute name '%.40s'", key);
	if (strlen(value) >= SB_TRACE_ATTR_VALUE_MAX)
		return sb_error_set(SB_ERR_INVAL,
		                    "trace attribute '%s': value longer than %d bytes", key,
		                    SB_TRACE_ATTR_VALUE_MAX - 1);
	for (uint32_t i = 0; i < info->nattrs; i++)
		if (!strcmp(info->attrs[i].key, key))
			a = &info->attrs[i];
	if (!a) {
		if (info->nattrs >= SB_TRACE_MAX_ATTRS)
			return sb_error_set(SB_ERR_RANGE, "too many trace attributes (at most %d)",
			                    SB_TRACE_MAX_ATTRS);
		a = &info->attrs[info->nattrs++];
		sb_strlcpy(a->key, key, sizeof(a->key));
	}
	sb_text_clean(a->value, sizeof(a->value), value);
	return 0;
}

const char *sb_trace_info_attr(const struct sb_trace_info *info, const char *key)
{
	for (uint32_t i = 0; i < info->nattrs; i++)
		if (!strcmp(info->attrs[i].key, key))
			return info->attrs[i].value;
	return NULL;
}

int sb_trace_capture_check(const struct sb_trace_capture *c, const char *what)
{
	if (c->sampled > 1)
		return sb_error_set(SB_ERR_PARSE, "'%s': capture: 'sampled' is %u (0 or 1)", what,
		                    c->sampled);
	if (c->lost_records > c->captured)
		return sb_error_set(
		    SB_ERR_PARSE, "'%s': capture: %llu records lost of %llu captured", what,
		    (unsigned long long)c->lost_records, (unsigned long long)c->captured);
	if (c->lost_bursts > c->bursts)
		return sb_error_set(SB_ERR_PARSE, "'%s': capture: %llu bursts lost of %llu", what,
		                    (unsigned long long)c->lost_bursts,
		                    (unsigned long long)c->bursts);
	if (c->end < c->start)
		return sb_error_set(SB_ERR_PARSE,
		                    "'%s': capture: interval ends (%lld) before it "
		                    "starts (%lld)",
		                    what, (long long)c->end, (long long)c->start);
	if (c->burst_records > (1u << 31))
		return sb_error_set(SB_ERR_PARSE, "'%s': capture: burst of %u records", what,
		                    c->burst_records);
	return 0;
}

int sb_trace_read(struct sb_trace_reader *r, struct sb_trace_record *recs, size_t max)
{
	return r->ops->read(r, recs, max);
}

const struct sb_trace_info *sb_trace_reader_info(const struct sb_trace_reader *r)
{
	return &r->info;
}

void sb_trace_reader_free(struct sb_trace_reader *r)
{
	if (r)
		r->ops->free(r);
}

/* The user's clock, when given, within the range of any trace's. */
static bool opt_clock_ok(const struct sb_trace_options *opt, const char *name)
{
	if (opt->clock_hz == 0 || sb_trace_clock_ok(opt->clock_hz))
		return true;
	sb_error_set(SB_ERR_INVAL, "'%s': a clock of %g Hz is out of range (%g Hz .. %g Hz)", name,
	             opt->clock_hz, SB_TRACE_CLOCK_MIN_HZ, SB_TRACE_CLOCK_MAX_HZ);
	return false;
}

typedef int (*line_open_fn)(struct sb_trace_reader **r, const char *name, const void *data,
                            size_t len, const struct sb_trace_options *opt, unsigned flags);

/*
 * A line-based input (csv, gpgpusim) whose records go back in time is read in time order:
 * a first pass reads it unchecked and finds whether records go back (in their subpartition
 * for csv, in the whole log for gpgpusim, as the readers check); if so it is opened again
 * unchecked behind sb_trace_sort() (stable, bounded memory), else opened as it is. Standard
 * input cannot be read twice: there records that go back stay an error.
 */
/*
 * True the first time a file's records-out-of-order notice is due in this process: the
 * analyses open a file more than once (a first pass, chunks in threads), and the notice is
 * one line per file.
 */
static bool first_notice(const char *name, uint64_t back, uint64_t total)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static uint64_t seen[32];
	static size_t nseen;
	uint64_t h = 1469598103934665603u ^ back ^ (total << 20);
	bool first = true;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211u;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < nseen && i < SB_ARRAY_SIZE(seen); i++)
		first &= seen[i] != h;
	if (first)
		seen[nseen++ % SB_ARRAY_SIZE(seen)] = h;
	pthread_mutex_unlock(&lock);
	return first;
}

static int open_in_order(struct sb_trace_reader **r, line_open_fn open, bool per_subpart,
                         const char *name, const void *data, size_t len,
                         const struct sb_trace_options *opt)
{
	enum { BATCH = 4096 };
	struct sb_trace_reader *scan, *in;
	struct sb_trace_record *recs;
	int64_t *last;
	uint64_t back = 0, total = 0;
	int64_t jump = 0;
	int n, err;

	if ((!data && !strcmp(name, "-")) || opt->one_pass)
		return open(r, name, data, len, opt, 0);
	if ((err = open(&scan, name, data, len, opt, SB_TRACE_OPEN_UNCHECKED)) < 0)
		return err;
	recs = malloc(BATCH * sizeof(*recs));
	last = malloc(SB_TRACE_MAX_SUBPARTS * sizeof(*last));
	if (!recs || !last) {
		free(recs);
		free(last);
		sb_trace_reader_free(scan);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < SB_TRACE_MAX_SUBPARTS; i++)
		last[i] = INT64_MIN;
	while ((n = sb_trace_read(scan, recs, BATCH)) > 0) {
		for (int i = 0; i < n; i++) {
			int64_t *l = &last[per_subpart ? recs[i].subpart : 0];

			if (recs[i].time < *l) {
				back++;
				jump = *l - recs[i].time > jump ? *l - recs[i].time : jump;
			} else {
				*l = recs[i].time;
			}
		}
		total += (uint64_t)n;
	}
	free(recs);
	free(last);
	sb_trace_reader_free(scan);
	if (n < 0)
		return n; /* the detail names the file and line */
	if (!back)
		return open(r, name, data, len, opt, 0);
	/* visible without -v (issue 23, defect 13), once per file however often it is opened */
	if (first_notice(name, back, total))
		sb_warn(
		    "'%s': %llu of %llu records go back in time (by up to %lld ticks): sorted by "
		    "time, records of equal times in file order",
		    name, (unsigned long long)back, (unsigned long long)total, (long long)jump);
	if ((err = open(&in, name, data, len, opt, SB_TRACE_OPEN_UNCHECKED)) < 0)
		return err;
	return sb_trace_sort(r, in, opt->sort_records);
}

int sb_trace_open(struct sb_trace_reader **r, enum sb_trace_format fmt, const char *path,
                  const struct sb_trace_options *opt)
{
	static const struct sb_trace_options none;

	*r = NULL;
	if (!opt)
		opt = &none;
	if (!opt_clock_ok(opt, path))
		return SB_ERR_INVAL;
	switch (fmt) {
	case SB_TRACE_SCALESIM:
		return sb_trace_open_scalesim(r, path, opt);
	case SB_TRACE_GPGPUSIM:
		return open_in_order(r, sb_trace_open_gpgpusim, false, path, NULL, 0, opt);
	case SB_TRACE_CSV:
		return open_in_order(r, sb_trace_open_csv, true, path, NULL, 0, opt);
	case SB_TRACE_SBT:
		return sb_trace_open_sbt(r, path, opt);
	default:
		return sb_error_set(SB_ERR_INVAL, "unknown trace format %d", (int)fmt);
	}
}

int sb_trace_open_mem(struct sb_trace_reader **r, enum sb_trace_format fmt, const char *name,
                      const void *data, size_t len, const struct sb_trace_options *opt)
{
	static const struct sb_trace_options none;
	static const char empty[1];

	*r = NULL;
	if (!opt)
		opt = &none;
	if (!data)
		data = empty;
	if (!opt_clock_ok(opt, name))
		return SB_ERR_INVAL;
	switch (fmt) {
	case SB_TRACE_GPGPUSIM:
		return open_in_order(r, sb_trace_open_gpgpusim, false, name, data, len, opt);
	case SB_TRACE_CSV:
		return open_in_order(r, sb_trace_open_csv, true, name, data, len, opt);
	case SB_TRACE_SBT:
		return sb_trace_open_sbt_mem(r, name, data, len, opt);
	default:
		return sb_error_set(SB_ERR_NOT_SUPPORTED, "'%s': %s traces are folders, not bytes",
		                    name, sb_trace_format_name(fmt));
	}
}

int sb_trace_open_many(struct sb_trace_reader **r, enum sb_trace_format fmt,
                       const char *const *paths, size_t npaths, const struct sb_trace_options *opt)
{
	struct sb_trace_reader **children;
	int err;

	*r = NULL;
	if (npaths == 0)
		return sb_error_set(SB_ERR_INVAL, "no trace to read");
	if (npaths == 1)
		return sb_trace_open(r, fmt, paths[0], opt);
	children = calloc(npaths, sizeof(*children));
	if (!children)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < npaths; i++) {
		if ((err = sb_trace_open(&children[i], fmt, paths[i], opt)) < 0) {
			for (size_t j = 0; j < i; j++)
				sb_trace_reader_free(children[j]);
			free(children);
			return err;
		}
	}
	err = sb_trace_merge(r, children, npaths, paths[0]);
	free(children);
	return err;
}

int sb_trace_open_source(struct sb_trace_reader **r, const struct sb_trace_source *src)
{
	return sb_trace_open_many(r, src->fmt, src->paths, src->npaths, &src->opt);
}

int sb_trace_reader_total(const struct sb_trace_reader *r, uint64_t *records)
{
	if (!r->ops->total)
		return SB_ERR_NOT_SUPPORTED;
	return r->ops->total(r, records);
}

bool sb_trace_source_rereadable(const struct sb_trace_source *src)
{
	for (size_t i = 0; i < src->npaths; i++)
		if (!strcmp(src->paths[i], "-"))
			return false;
	return true;
}

bool sb_trace_reader_unsorted(const struct sb_trace_reader *r)
{
	return r->unsorted;
}

/* --- Merging readers in time order ------------------------------------------------------- */

#define MERGE_BUF 4096

struct merge_child {
	struct sb_trace_reader *r;
	struct sb_trace_record *buf;
	size_t n, pos;
	bool done;
	uint32_t nmapped; /* subparts of the child mapped so far */
	uint32_t nwarned; /* warnings of the child copied so far */
	uint16_t map[SB_TRACE_MAX_SUBPARTS];
};

struct merge_reader {
	struct sb_trace_reader base;
	struct merge_child *c;
	size_t n;
};

/*
 * The capture of a merged trace: sampled if any input is, with the sampled inputs' counts
 * summed and their intervals joined. Attributes: the first input's value of each key wins.
 */
static void merge_capture(struct merge_reader *m)
{
	struct sb_trace_capture *mc = &m->base.info.capture;
	bool first = true;

	memset(mc, 0, sizeof(*mc));
	for (size_t i = 0; i < m->n; i++) {
		const struct sb_trace_info *ci = &m->c[i].r->info;
		const struct sb_trace_capture *c = &ci->capture;

		for (uint32_t a = 0; a < ci->nattrs; a++)
			if (!sb_trace_info_attr(&m->base.info, ci->attrs[a].key))
				sb_trace_info_set_attr(&m->base.info, ci->attrs[a].key,
				                       ci->attrs[a].value);
		if (!c->sampled)
			continue;
		if (first) {
			*mc = *c;
			first = false;
			continue;
		}
		mc->executed += c->executed;
		mc->captured += c->captured;
		mc->lost_records += c->lost_records;
		mc->bursts += c->bursts;
		mc->lost_bursts += c->lost_bursts;
		mc->start = c->start < mc->start ? c->start : mc->start;
		mc->end = c->end > mc->end ? c->end : mc->end;
	}
}

/* Map new subpartitions and copy new warnings of a child into the merged description. */
static int merge_sync(struct merge_reader *m, struct merge_child *c)
{
	const struct sb_trace_info *ci = &c->r->info;
	int idx;

	for (; c->nmapped < ci->nsubparts; c->nmapped++) {
		const struct sb_trace_subpart *sp = &ci->subparts[c->nmapped];
		struct sb_trace_subpart *msp;

		idx = sb_trace_info_subpart(&m->base.info, sp->name, sp->type, sp->addr_unit_bytes,
		                            sp->block_bytes);
		if (idx < 0)
			return idx;
		msp = &m->base.info.subparts[idx];
		if (msp->type != sp->type || msp->addr_unit_bytes != sp->addr_unit_bytes ||
		    msp->block_bytes != sp->block_bytes)
			return sb_error_set(
			    SB_ERR_MISMATCH,
			    "'%s': subpartition '%s' differs from the one of the same "
			    "name in another input (type, address unit or block size)",
			    c->r->name, sp->name);
		msp->per_unit |= sp->per_unit;
		c->map[c->nmapped] = (uint16_t)idx;
	}
	for (; c->nwarned < ci->nwarnings; c->nwarned++)
		sb_trace_info_add_warning(&m->base.info, ci->warnings[c->nwarned]);
	m->base.info.fields |= ci->fields;
	merge_capture(m);
	return 0;
}

static int merge_fill(struct merge_reader *m, struct merge_child *c)
{
	int n = sb_trace_read(c->r, c->buf, MERGE_BUF);

	if (n < 0)
		return n;
	c->n = (size_t)n;
	c->pos = 0;
	if (n == 0)
		c->done = true;
	return merge_sync(m, c);
}

static int merge_read(struct sb_trace_reader *r, struct sb_trace_record *recs, size_t max)
{
	struct merge_reader *m = (struct merge_reader *)r;
	size_t out = 0;
	int err;

	while (out < max) {
		struct merge_child *best = NULL;
		int64_t bt = 0;
		int brank = 0;

		for (size_t i = 0; i < m->n; i++) {
			struct merge_child *c = &m->c[i];
			const struct sb_trace_record *h;
			int rank;

			if (c->pos == c->n && !c->done && (err = merge_fill(m, c)) < 0) {
				m->base.unsorted |= c->r->unsorted;
				return err;
			}
			if (c->pos == c->n)
				continue;
			h = &c->buf[c->pos];
			rank = sb_trace_rank(h->kind);
			if (!best || h->time < bt || (h->time == bt && rank < brank)) {
				best = c;
				bt = h->time;
				brank = rank;
			}
		}
		if (!best)
			break;
		recs[out] = best->buf[best->pos++];
		recs[out].subpart = best->map[recs[out].subpart];
		out++;
	}
	return (int)out;
}

static void merge_free(struct sb_trace_reader *r)
{
	struct merge_reader *m = (struct merge_reader *)r;

	for (size_t i = 0; i < m->n; i++) {
		sb_trace_reader_free(m->c[i].r);
		free(m->c[i].buf);
	}
	free(m->c);
	free(m);
}

static const struct sb_trace_reader_ops merge_ops = {.read = merge_read, .free = merge_free};

int sb_trace_merge(struct sb_trace_reader **r, struct sb_trace_reader **children, size_t n,
                   const char *name)
{
	struct merge_reader *m;
	int err = SB_ERR_NOMEM;

	*r = NULL;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->c = calloc(n ? n : 1, sizeof(*m->c)))) {
		free(m);
		for (size_t i = 0; i < n; i++)
			sb_trace_reader_free(children[i]);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	m->base.ops = &merge_ops;
	m->n = n;
	sb_strlcpy(m->base.name, name, sizeof(m->base.name));
	for (size_t i = 0; i < n; i++)
		m->c[i].r = children[i];
	if (n == 0) {
		sb_trace_info_init(&m->base.info, "merged", SB_TRACE_DEFAULT_CLOCK_HZ, "cycle");
		*r = &m->base;
		return 0;
	}
	sb_trace_info_init(&m->base.info, children[0]->info.source, children[0]->info.tick_hz,
	                   children[0]->info.time_unit);
	for (size_t i = 0; i < n; i++) {
		const struct sb_trace_info *ci = &children[i]->info;

		if (ci->tick_hz != m->base.info.tick_hz ||
		    strcmp(ci->time_unit, m->base.info.time_unit)) {
			err = sb_error_set(
			    SB_ERR_MISMATCH,
			    "'%s' has a clock of %g Hz (%s ticks) but '%s' %g Hz (%s "
			    "ticks): inputs of one run need the same clock",
			    children[i]->name, ci->tick_hz, ci->time_unit, children[0]->name,
			    m->base.info.tick_hz, m->base.info.time_unit);
			goto fail;
		}
		if (!(m->c[i].buf = malloc(MERGE_BUF * sizeof(*m->c[i].buf)))) {
			err = sb_error_set(SB_ERR_NOMEM, "out of memory");
			goto fail;
		}
		if ((err = merge_sync(m, &m->c[i])) < 0)
			goto fail;
	}
	*r = &m->base;
	return 0;
fail:
	merge_free(&m->base);
	return err;
}

/* --- Writers and conversion ---------------------------------------------------------------- */

int sb_trace_writer_open(struct sb_trace_writer **w, enum sb_trace_format fmt, const char *path,
                         const struct sb_trace_info *info)
{
	int err;

	*w = NULL;
	if (!sb_trace_clock_ok(info->tick_hz))
		return sb_error_set(
		    SB_ERR_INVAL,
		    "cannot write '%s': clock of %g Hz is out of range (%g Hz .. %g "
		    "Hz)",
		    path, info->tick_hz, SB_TRACE_CLOCK_MIN_HZ, SB_TRACE_CLOCK_MAX_HZ);
	switch (fmt) {
	case SB_TRACE_CSV:
		err = sb_trace_writer_open_csv(w, path, info);
		break;
	case SB_TRACE_SBT:
		err = sb_trace_writer_open_sbt(w, path, info);
		break;
	default:
		return sb_error_set(SB_ERR_NOT_SUPPORTED,
		                    "cannot write traces in format '%s' (only csv and sbt)",
		                    sb_trace_format_name(fmt));
	}
	if (err == 0)
		sb_strlcpy((*w)->path, path, sizeof((*w)->path));
	return err;
}

/* Records of a subpartition in time order, times in range: what every reader checks. */
static int check_order(struct sb_trace_writer *w, const struct sb_trace_info *info,
                       const struct sb_trace_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct sb_trace_record *r = &recs[i];
		const uint16_t sp = r->subpart;

		if (sp >= SB_TRACE_MAX_SUBPARTS || sp >= info->nsubparts)
			return sb_error_set(SB_ERR_RANGE, "'%s': record with subpartition %u of %u",
			                    w->path, sp, info->nsubparts);
		if (!sb_trace_time_ok(r->time))
			return sb_error_set(
			    SB_ERR_INVAL,
			    "cannot write '%s': time %lld is out of range (|time| < "
			    "2^62 ticks)",
			    w->path, (long long)r->time);
		if (w->seen[sp] && r->time < w->last_time[sp])
			return sb_error_set(SB_ERR_INVAL,
			                    "cannot write '%s': time %lld comes after %lld in "
			                    "subpartition '%s' (records must be in time order)",
			                    w->path, (long long)r->time,
			                    (long long)w->last_time[sp], info->subparts[sp].name);
		w->seen[sp] = 1;
		w->last_time[sp] = r->time;
	}
	return 0;
}

int sb_trace_write(struct sb_trace_writer *w, const struct sb_trace_info *info,
                   const struct sb_trace_record *recs, size_t n)
{
	int err = check_order(w, info, recs, n);

	return err < 0 ? err : w->ops->write(w, info, recs, n);
}

int sb_trace_writer_update(struct sb_trace_writer *w, const struct sb_trace_info *info)
{
	return w->ops->write(w, info, NULL, 0);
}

int sb_trace_writer_close(struct sb_trace_writer *w)
{
	return w ? w->ops->close(w, true) : 0;
}

void sb_trace_writer_abort(struct sb_trace_writer *w)
{
	if (w)
		w->ops->close(w, false);
}

int64_t sb_trace_convert(struct sb_trace_reader *r, enum sb_trace_format fmt, const char *path)
{
	enum { BATCH = 8192 };
	struct sb_trace_record *buf;
	struct sb_trace_writer *w;
	int64_t total = 0;
	int n, err;

	buf = malloc(BATCH * sizeof(*buf));
	if (!buf)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((err = sb_trace_writer_open(&w, fmt, path, &r->info)) < 0)
		goto fail_open;
	while ((n = sb_trace_read(r, buf, BATCH)) > 0) {
		if ((err = sb_trace_write(w, &r->info, buf, (size_t)n)) < 0)
			goto fail_write;
		total += n;
	}
	if (n < 0) {
		err = n;
		goto fail_write;
	}
	/* what the reader learnt at the end (a capture description written last) */
	if ((err = sb_trace_writer_update(w, &r->info)) < 0)
		goto fail_write;
	free(buf);
	err = sb_trace_writer_close(w);
	return err < 0 ? err : total;
fail_write:
	sb_trace_writer_abort(w);
fail_open:
	free(buf);
	return err;
}
