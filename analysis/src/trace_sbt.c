/* SPDX-License-Identifier: MIT */
/*
 * sbt, the stackbench binary trace (docs/trace-format.md): a versioned header (clock, time unit,
 * source, field set), then chunks: subpartition tables, warnings, data blocks of up to 65536
 * records stored column by column (delta + zigzag + varint) and compressed with zstd (with a
 * content checksum), and an end chunk with the record count. Readers hold one block at a time,
 * so traces larger than memory stream.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "stackbench/error.h"
#include "stackbench/output.h"
#include "stackbench/util.h"
#include "trace_internal.h"

#define SBT_MAGIC "SBTRACE"
#define SBT_MAJOR 1
#define SBT_MINOR 1
#define SBT_HEADER_BYTES 52u /* tick_hz, time_unit[8], source[32], fields */
#define SBT_BLOCK_RECORDS 65536u
#define SBT_MAX_BLOCK_RECORDS (1u << 20)
#define SBT_MAX_PAYLOAD (256u << 20)
#define SBT_SUBPART_BYTES 44u
#define SBT_REC_MAX_BYTES 64u /* worst case of one encoded record */
#define SBT_ZSTD_LEVEL 3

enum {
	CHUNK_SUBPARTS = 'S',
	CHUNK_WARNING = 'W',
	CHUNK_DATA = 'D',
	CHUNK_END = 'E',
	CHUNK_CAPTURE = 'C', /* 1.1: how a measured trace was sampled */
	CHUNK_ATTR = 'A',    /* 1.1: a provenance attribute, key NUL value */
};

/* The capture chunk: u32 layout version, then the fields of struct sb_trace_capture. */
#define SBT_CAPTURE_VERSION 1u
#define SBT_CAPTURE_BYTES 76u

/* --- little-endian helpers ------------------------------------------------------------------ */

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline const uint8_t *get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;

	if (p < end && *p < 0x80) {
		*v = *p;
		return p + 1;
	}
	while (p < end && shift < 64) {
		uint8_t b = *p++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return p;
		}
		shift += 7;
	}
	return NULL;
}

/*
 * A varint of up to 8 bytes read as one word: its end is its first byte below 0x80, its 7-bit
 * groups are packed with shifts (no loop, one branch). Longer ones, and the last bytes of a
 * column, go through get_varint().
 */
static inline const uint8_t *get_varint8(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	if (end - p >= 8) {
		uint64_t w, stop;

		memcpy(&w, p, 8);
		stop = ~w & 0x8080808080808080ull;
		if (stop) {
			const unsigned len = ((unsigned)__builtin_ctzll(stop) >> 3) + 1;
			uint64_t x = (len == 8 ? w : w & ((UINT64_C(1) << (8 * len)) - 1)) &
			             0x7f7f7f7f7f7f7f7full;

			x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
			x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
			x = (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
			*v = x;
			return p + len;
		}
	}
	return get_varint(p, end, v);
}

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* --- Reader -------------------------------------------------------------------------------- */

struct sbt_reader {
	struct sb_trace_reader base;
	struct sb_instream in; /* the file, decompressed if the whole file is compressed */
	uint64_t offset;       /* bytes consumed */
	uint64_t block;        /* data blocks read */
	uint64_t total;        /* records decoded */
	bool ended;
	bool meta_known; /* the prescan saw the whole file: later C/A chunks are known already */
	uint64_t prescan_records; /* records of the data blocks the prescan saw (meta_known) */
	ZSTD_DCtx *dctx;
	uint8_t *comp, *raw;
	size_t comp_cap, raw_cap;
	/* the decoded block, column by column (compact: records are assembled when read) */
	int64_t *time;
	uint64_t *addr, *pc;
	uint32_t *size, *unit, *sample, *latency, *group;
	uint8_t *subpart, *kc;
	uint32_t fields; /* optional columns of the block */
	size_t col_cap, nrec, pos;
	int64_t last_time[SB_TRACE_MAX_SUBPARTS]; /* per subpartition (INT64_MIN: none yet) */
};

static int sbt_error(struct sbt_reader *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int sbt_error(struct sbt_reader *s, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sb_error_set(SB_ERR_PARSE, "cannot read '%s' at byte %llu: %s", s->base.name,
	                    (unsigned long long)s->offset, msg);
}

/* Read exactly n bytes; 1 at a clean end of file (nothing read), 0, or an error. */
static int sbt_readn(struct sbt_reader *s, void *buf, size_t n, bool eof_ok)
{
	size_t got;
	int err = sb_instream_read_full(&s->in, buf, n, &got);

	if (err < 0)
		return err;
	if (got == n) {
		s->offset += n;
		return 0;
	}
	if (got == 0 && eof_ok)
		return 1;
	s->offset += got;
	return sbt_error(s, "file is truncated (%zu of %zu bytes)", got, n);
}

static int grow(void **buf, size_t *cap, size_t need, size_t elem)
{
	void *nb;

	if (need <= *cap)
		return 0;
	nb = realloc(*buf, need * elem);
	if (!nb)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	*buf = nb;
	*cap = need;
	return 0;
}

static int sbt_subparts(struct sbt_reader *s, const uint8_t *p, uint32_t len)
{
	uint32_t first, count;

	if (len < 8)
		return sbt_error(s, "short subpartition chunk");
	first = get_u32(p);
	count = get_u32(p + 4);
	if (first != s->base.info.nsubparts || count > SB_TRACE_MAX_SUBPARTS ||
	    len != 8 + count * SBT_SUBPART_BYTES)
		return sbt_error(s, "bad subpartition chunk (first %u, count %u, %u bytes)", first,
		                 count, len);
	p += 8;
	for (uint32_t i = 0; i < count; i++, p += SBT_SUBPART_BYTES) {
		char name[SB_TRACE_NAME_MAX];
		int idx;

		memcpy(name, p, SB_TRACE_NAME_MAX);
		if (memchr(name, '\0', sizeof(name)) == NULL)
			return sbt_error(s, "subpartition name not terminated");
		if (p[32] > SB_SUBPART_CACHE || p[33] > 1)
			return sbt_error(s, "subpartition '%s': bad type or per_unit", name);
		idx = sb_trace_info_subpart(&s->base.info, name, (enum sb_subpart_type)p[32],
		                            get_u32(p + 36), get_u32(p + 40));
		if (idx < 0)
			return sbt_error(s, "%s", sb_error_detail());
		if ((uint32_t)idx != first + i)
			return sbt_error(s, "subpartition '%s' defined twice", name);
		s->base.info.subparts[idx].per_unit = p[33];
	}
	return 0;
}

static void capture_encode(uint8_t *p, const struct sb_trace_capture *c)
{
	put_u32(p, SBT_CAPTURE_VERSION);
	put_u32(p + 4, c->sampled);
	put_u32(p + 8, c->burst_records);
	put_u64(p + 12, c->gap_ticks);
	put_u64(p + 20, c->executed);
	put_u64(p + 28, c->captured);
	put_u64(p + 36, c->lost_records);
	put_u64(p + 44, c->bursts);
	put_u64(p + 52, c->lost_bursts);
	put_u64(p + 60, (uint64_t)c->start);
	put_u64(p + 68, (uint64_t)c->end);
}

/* A capture (later ones replace earlier ones) or an attribute chunk. */
static int sbt_meta_chunk(struct sbt_reader *s, int type, const uint8_t *p, uint32_t len)
{
	struct sb_trace_info *info = &s->base.info;

	if (type == CHUNK_CAPTURE) {
		struct sb_trace_capture c;

		if (len < SBT_CAPTURE_BYTES || get_u32(p) < SBT_CAPTURE_VERSION)
			return sbt_error(s, "bad capture chunk (%u bytes)", len);
		c.sampled = get_u32(p + 4);
		c.burst_records = get_u32(p + 8);
		c.gap_ticks = get_u64(p + 12);
		c.executed = get_u64(p + 20);
		c.captured = get_u64(p + 28);
		c.lost_records = get_u64(p + 36);
		c.bursts = get_u64(p + 44);
		c.lost_bursts = get_u64(p + 52);
		c.start = (int64_t)get_u64(p + 60);
		c.end = (int64_t)get_u64(p + 68);
		if (sb_trace_capture_check(&c, s->base.name) < 0)
			return sbt_error(s, "%s", sb_error_detail());
		info->capture = c;
		return 0;
	}
	{
		const uint8_t *nul = memchr(p, '\0', len);
		char key[SB_TRACE_ATTR_KEY_MAX], value[SB_TRACE_ATTR_VALUE_MAX];
		size_t klen = nul ? (size_t)(nul - p) : 0, vlen = nul ? len - klen - 1 : 0;

		if (!nul || klen >= sizeof(key) || vlen >= sizeof(value) ||
		    memchr(nul + 1, '\0', vlen))
			return sbt_error(s, "bad attribute chunk (%u bytes)", len);
		memcpy(key, p, klen);
		key[klen] = '\0';
		memcpy(value, nul + 1, vlen);
		value[vlen] = '\0';
		if (sb_trace_info_set_attr(info, key, value) < 0)
			return sbt_error(s, "%s", sb_error_detail());
	}
	return 0;
}

/* Room for n records in every column. */
static int sbt_columns(struct sbt_reader *s, size_t n)
{
	void **cols[] = {(void **)&s->time,    (void **)&s->addr,  (void **)&s->pc,
	                 (void **)&s->size,    (void **)&s->unit,  (void **)&s->sample,
	                 (void **)&s->latency, (void **)&s->group, (void **)&s->subpart,
	                 (void **)&s->kc};
	static const size_t elem[] = {8, 8, 8, 4, 4, 4, 4, 4, 1, 1};

	if (n <= s->col_cap)
		return 0;
	for (size_t i = 0; i < SB_ARRAY_SIZE(cols); i++) {
		void *nb = realloc(*cols[i], n * elem[i]);

		if (!nb)
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		*cols[i] = nb;
	}
	s->col_cap = n;
	return 0;
}

/*
 * A column of n varints: STORE(i, v) for each, with v the value of record i. Runs of eight
 * one-byte varints (the common case of times and sizes) are taken eight at a time.
 */
#define VARINT_COLUMN(STORE)                                                                       \
	for (uint32_t i = 0; i < n;) {                                                             \
		uint64_t w_;                                                                       \
                                                                                                   \
		if (n - i >= 8 && end - p >= 8 &&                                                  \
		    (memcpy(&w_, p, 8), !(w_ & 0x8080808080808080ull))) {                          \
			for (unsigned j_ = 0; j_ < 8; j_++, i++) {                                 \
				v = p[j_];                                                         \
				STORE;                                                             \
			}                                                                          \
			p += 8;                                                                    \
			continue;                                                                  \
		}                                                                                  \
		if (!(p = get_varint8(p, end, &v)))                                                \
			goto bad;                                                                  \
		STORE;                                                                             \
		i++;                                                                               \
	}

/*
 * Times of the decoded block: each within ±SB_TRACE_TIME_MAX, and not going back within a
 * subpartition (from one block to the next too). Checked branch-free; the slow path names the
 * first offending record.
 */
static int sbt_check_times(struct sbt_reader *s, uint32_t n)
{
	int64_t before[SB_TRACE_MAX_SUBPARTS], *last = s->last_time;
	uint64_t bad = 0;

	memcpy(before, last, sizeof(before));
	for (uint32_t i = 0; i < n; i++) {
		const int64_t t = s->time[i];
		const uint8_t sp = s->subpart[i];

		bad |=
		    ((uint64_t)t + (uint64_t)SB_TRACE_TIME_MAX > 2 * (uint64_t)SB_TRACE_TIME_MAX) |
		    (t < last[sp]);
		last[sp] = t;
	}
	if (!bad)
		return 0;
	memcpy(last, before, sizeof(before));
	for (uint32_t i = 0; i < n; i++) {
		const int64_t t = s->time[i];
		const uint8_t sp = s->subpart[i];

		if (!sb_trace_time_ok(t))
			return sbt_error(
			    s,
			    "block %llu: record %u: time %lld is out of range (|time| < "
			    "2^62 ticks)",
			    (unsigned long long)s->block, i, (long long)t);
		if (t < last[sp])
			return sbt_error(s,
			                 "block %llu: record %u: time %lld comes after %lld in "
			                 "subpartition '%s' (records must be in time order)",
			                 (unsigned long long)s->block, i, (long long)t,
			                 (long long)last[sp], s->base.info.subparts[sp].name);
		last[sp] = t;
	}
	return 0;
}

SB_HOT_CLONES
static int sbt_decode(struct sbt_reader *s, uint32_t n, uint32_t fields, const uint8_t *p,
                      const uint8_t *end)
{
	uint64_t prev_addr[SB_TRACE_MAX_SUBPARTS];
	uint32_t nsp = s->base.info.nsubparts;
	int64_t t = 0;
	uint64_t v, pc = 0;
	uint8_t top = 0, badkc = 0;
	int err;

	/* unsigned: a sum that wraps is defined, and lands out of range (checked below) */
	VARINT_COLUMN((t = (int64_t)((uint64_t)t + (uint64_t)unzigzag(v)), s->time[i] = t))
	if ((size_t)(end - p) < 2 * (size_t)n)
		goto bad;
	/* subpartitions and kind/status bytes: checked as a whole, the first bad one named */
	for (uint32_t i = 0; i < n; i++)
		top = p[i] > top ? p[i] : top;
	for (uint32_t i = 0; top >= nsp && i < n; i++)
		if (p[i] >= nsp)
			return sbt_error(s, "block %llu: record %u names subpartition %u of %u",
			                 (unsigned long long)s->block, i, p[i], nsp);
	memcpy(s->subpart, p, n);
	p += n;
	for (uint32_t i = 0; i < n; i++)
		badkc |= (uint8_t)(((p[i] & 0xf) >= SB_ACC_KIND_COUNT) |
		                   ((p[i] >> 4) >= SB_CACHE_STATUS_COUNT));
	for (uint32_t i = 0; badkc && i < n; i++) {
		uint8_t k = p[i] & 0xf, c = p[i] >> 4;

		if (k >= SB_ACC_KIND_COUNT || c >= SB_CACHE_STATUS_COUNT)
			return sbt_error(s,
			                 "block %llu: record %u has a bad kind/status byte 0x%02x",
			                 (unsigned long long)s->block, i, p[i]);
	}
	memcpy(s->kc, p, n);
	p += n;
	if ((err = sbt_check_times(s, n)) < 0)
		return err;
	memset(prev_addr, 0, sizeof(prev_addr));
	VARINT_COLUMN((prev_addr[s->subpart[i]] += (uint64_t)unzigzag(v),
	               s->addr[i] = prev_addr[s->subpart[i]]))
#define U32_COLUMN(col) VARINT_COLUMN(if (v > UINT32_MAX) goto bad; s->col[i] = (uint32_t)v)
	U32_COLUMN(size)
	if (fields & SB_FIELD_UNIT)
		U32_COLUMN(unit)
	if (fields & SB_FIELD_PC)
		VARINT_COLUMN((pc += (uint64_t)unzigzag(v), s->pc[i] = pc))
	if (fields & SB_FIELD_SAMPLE)
		U32_COLUMN(sample)
	if (fields & SB_FIELD_LATENCY)
		U32_COLUMN(latency)
	if (fields & SB_FIELD_GROUP)
		U32_COLUMN(group)
#undef U32_COLUMN
	if (p != end)
		return sbt_error(s, "block %llu: %zu bytes left after %u records",
		                 (unsigned long long)s->block, (size_t)(end - p), n);
	s->fields = fields;
	return 0;
bad:
	return sbt_error(s, "block %llu: a column ends early or holds a bad number",
	                 (unsigned long long)s->block);
}
#undef VARINT_COLUMN

/* Read chunks until a data block is decoded (1) or the end chunk (0). */
static int sbt_next_block(struct sbt_reader *s)
{
	uint8_t hdr[8], *payload;
	uint32_t len;
	int err;

	for (;;) {
		uint64_t at = s->offset;

		if ((err = sbt_readn(s, hdr, sizeof(hdr), true)) < 0)
			return err;
		if (err == 1)
			return sbt_error(s, "file is truncated: no end chunk after %llu records",
			                 (unsigned long long)s->total);
		len = get_u32(hdr + 4);
		if (len > SBT_MAX_PAYLOAD)
			return sbt_error(s, "chunk '%c' of %u bytes is too large", hdr[0], len);
		if ((err = grow((void **)&s->comp, &s->comp_cap, len ? len : 1, 1)) < 0)
			return err;
		payload = s->comp;
		if ((err = sbt_readn(s, payload, len, false)) < 0)
			return err;
		switch (hdr[0]) {
		case CHUNK_SUBPARTS:
			if ((err = sbt_subparts(s, payload, len)) < 0)
				return err;
			break;
		case CHUNK_WARNING: {
			char msg[SB_TRACE_WARNING_MAX];
			size_t n = len < sizeof(msg) - 1 ? len : sizeof(msg) - 1;

			memcpy(msg, payload, n);
			msg[n] = '\0';
			sb_trace_info_add_warning(&s->base.info, msg);
			break;
		}
		case CHUNK_CAPTURE:
		case CHUNK_ATTR:
			if (!s->meta_known && (err = sbt_meta_chunk(s, hdr[0], payload, len)) < 0)
				return err;
			break;
		case CHUNK_END:
			if (len != 8)
				return sbt_error(s, "bad end chunk");
			if (get_u64(payload) != s->total)
				return sbt_error(
				    s, "end chunk counts %llu records, the blocks hold %llu",
				    (unsigned long long)get_u64(payload),
				    (unsigned long long)s->total);
			s->ended = true;
			return 0;
		case CHUNK_DATA: {
			uint32_t n, raw_len, fields;
			size_t got;

			if (len < 12)
				return sbt_error(s, "short data chunk");
			n = get_u32(payload);
			raw_len = get_u32(payload + 4);
			fields = get_u32(payload + 8);
			s->offset = at; /* errors of this block name its start */
			if (n == 0 || n > SBT_MAX_BLOCK_RECORDS ||
			    raw_len > (uint64_t)n * SBT_REC_MAX_BYTES || (fields & ~SB_FIELD_ALL))
				return sbt_error(s,
				                 "data block %llu: bad header (%u records, %u "
				                 "bytes)",
				                 (unsigned long long)s->block, n, raw_len);
			if ((err = grow((void **)&s->raw, &s->raw_cap, raw_len ? raw_len : 1, 1)) <
			        0 ||
			    (err = sbt_columns(s, n)) < 0)
				return err;
			got = ZSTD_decompressDCtx(s->dctx, s->raw, raw_len, payload + 12, len - 12);
			if (ZSTD_isError(got) || got != raw_len)
				return sbt_error(s, "data block %llu: %s",
				                 (unsigned long long)s->block,
				                 ZSTD_isError(got) ? ZSTD_getErrorName(got)
				                                   : "wrong decompressed size");
			if ((err = sbt_decode(s, n, fields, s->raw, s->raw + raw_len)) < 0)
				return err;
			s->offset = at + sizeof(hdr) + len;
			s->base.info.fields |= fields;
			s->block++;
			s->total += n;
			s->nrec = n;
			s->pos = 0;
			return 1;
		}
		default:
			/* chunks of later minor versions are skipped */
			break;
		}
	}
}

/* The next k records of the decoded block, whole (fields the block lacks are 0). */
static void sbt_assemble(struct sbt_reader *s, struct sb_trace_record *out, size_t k)
{
	const size_t q0 = s->pos;

	if (!s->fields) {
		for (size_t j = 0; j < k; j++) {
			struct sb_trace_record *o = &out[j];
			const size_t q = q0 + j;

			*o = (struct sb_trace_record){.time = s->time[q],
			                              .addr = s->addr[q],
			                              .size = s->size[q],
			                              .subpart = s->subpart[q],
			                              .kind = s->kc[q] & 0xf,
			                              .cache = s->kc[q] >> 4};
		}
		return;
	}
	for (size_t j = 0; j < k; j++) {
		struct sb_trace_record *o = &out[j];
		const size_t q = q0 + j;

		*o = (struct sb_trace_record){
		    .time = s->time[q],
		    .addr = s->addr[q],
		    .pc = s->fields & SB_FIELD_PC ? s->pc[q] : 0,
		    .size = s->size[q],
		    .unit = s->fields & SB_FIELD_UNIT ? s->unit[q] : 0,
		    .sample = s->fields & SB_FIELD_SAMPLE ? s->sample[q] : 0,
		    .latency = s->fields & SB_FIELD_LATENCY ? s->latency[q] : 0,
		    .group = s->fields & SB_FIELD_GROUP ? s->group[q] : 0,
		    .subpart = s->subpart[q],
		    .kind = s->kc[q] & 0xf,
		    .cache = s->kc[q] >> 4};
	}
}

static int sbt_read(struct sb_trace_reader *r, struct sb_trace_record *recs, size_t max)
{
	struct sbt_reader *s = (struct sbt_reader *)r;
	size_t out = 0;
	int err;

	while (out < max) {
		if (s->pos == s->nrec) {
			if (s->ended)
				break;
			if ((err = sbt_next_block(s)) < 0)
				return err;
			if (err == 0)
				break;
		}
		size_t k = s->nrec - s->pos;

		if (k > max - out)
			k = max - out;
		sbt_assemble(s, recs + out, k);
		s->pos += k;
		out += k;
	}
	return (int)out;
}

static void sbt_free(struct sb_trace_reader *r)
{
	struct sbt_reader *s = (struct sbt_reader *)r;

	sb_instream_close(&s->in);
	ZSTD_freeDCtx(s->dctx);
	free(s->comp);
	free(s->raw);
	free(s->time);
	free(s->addr);
	free(s->pc);
	free(s->size);
	free(s->unit);
	free(s->sample);
	free(s->latency);
	free(s->group);
	free(s->subpart);
	free(s->kc);
	free(s);
}

static int sbt_total(const struct sb_trace_reader *r, uint64_t *records)
{
	const struct sbt_reader *s = (const struct sbt_reader *)r;

	if (!s->meta_known)
		return SB_ERR_NOT_SUPPORTED;
	*records = s->prescan_records;
	return 0;
}

static const struct sb_trace_reader_ops sbt_ops = {
    .read = sbt_read, .free = sbt_free, .total = sbt_total};

/*
 * A capture description is written when the capture ends, after the records. When the raw file
 * can be read at any offset, walk the chunk headers once (skipping the data) so that the capture
 * and the attributes are known before the first record; errors are left for the real pass to
 * report. A compressed file or a pipe is read once: its capture is known at its end.
 */
static void sbt_prescan(struct sbt_reader *s)
{
	uint64_t at = s->offset;
	uint8_t hdr[8],
	    payload[SBT_CAPTURE_BYTES + SB_TRACE_ATTR_KEY_MAX + SB_TRACE_ATTR_VALUE_MAX];

	if (!sb_instream_pread_ok(&s->in))
		return;
	while (sb_instream_pread(&s->in, hdr, sizeof(hdr), at) == (int)sizeof(hdr)) {
		uint32_t len = get_u32(hdr + 4);

		at += sizeof(hdr);
		if (hdr[0] == CHUNK_END) {
			/* the records, if the end chunk counts as many as the blocks hold */
			if (len == 8 && sb_instream_pread(&s->in, payload, 8, at) == 8 &&
			    get_u64(payload) == s->prescan_records)
				s->meta_known = true;
			break;
		}
		if (hdr[0] == CHUNK_DATA) {
			if (len < 12 || sb_instream_pread(&s->in, payload, 4, at) != 4)
				break;
			s->prescan_records += get_u32(payload);
		}
		if ((hdr[0] == CHUNK_CAPTURE || hdr[0] == CHUNK_ATTR) && len <= sizeof(payload)) {
			if (sb_instream_pread(&s->in, payload, len, at) != (int)len ||
			    sbt_meta_chunk(s, hdr[0], payload, len) < 0)
				break;
		}
		at += len;
	}
	sb_error_clear();
}

static int sbt_open(struct sb_trace_reader **r, struct sbt_reader *s, const char *path,
                    const struct sb_trace_options *opt)
{
	uint8_t head[16], body[SBT_HEADER_BYTES];
	uint32_t hlen;
	char unit[9], source[SB_TRACE_NAME_MAX + 1];
	double tick_hz;
	uint64_t bits;
	int err;

	s->base.ops = &sbt_ops;
	sb_strlcpy(s->base.name, path, sizeof(s->base.name));
	for (size_t i = 0; i < SB_TRACE_MAX_SUBPARTS; i++)
		s->last_time[i] = INT64_MIN;
	if (!(s->dctx = ZSTD_createDCtx())) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if ((err = sbt_readn(s, head, sizeof(head), false)) < 0)
		goto fail;
	if (memcmp(head, SBT_MAGIC, 8)) {
		err = sbt_error(s, "not an sbt trace (bad magic)");
		goto fail;
	}
	if ((head[8] | head[9] << 8) != SBT_MAJOR) {
		err = sb_error_set(
		    SB_ERR_VERSION, "'%s' is sbt version %u.%u; this stackbench reads version %u.x",
		    path, head[8] | head[9] << 8, head[10] | head[11] << 8, SBT_MAJOR);
		goto fail;
	}
	hlen = get_u32(head + 12);
	if (hlen < SBT_HEADER_BYTES || hlen > 65536) {
		err = sbt_error(s, "bad header length %u", hlen);
		goto fail;
	}
	if ((err = sbt_readn(s, body, sizeof(body), false)) < 0)
		goto fail;
	for (uint32_t skip = hlen - SBT_HEADER_BYTES; skip > 0;) {
		uint8_t junk[256];
		uint32_t k = skip < sizeof(junk) ? skip : (uint32_t)sizeof(junk);

		if ((err = sbt_readn(s, junk, k, false)) < 0)
			goto fail;
		skip -= k;
	}
	bits = get_u64(body);
	memcpy(&tick_hz, &bits, sizeof(tick_hz));
	memcpy(unit, body + 8, 8);
	unit[8] = '\0';
	memcpy(source, body + 16, SB_TRACE_NAME_MAX);
	source[SB_TRACE_NAME_MAX] = '\0';
	if (!sb_trace_clock_ok(tick_hz)) {
		s->offset = 16; /* where the clock is */
		err = sbt_error(s, "clock %g Hz is out of range (%g Hz .. %g Hz)", tick_hz,
		                SB_TRACE_CLOCK_MIN_HZ, SB_TRACE_CLOCK_MAX_HZ);
		goto fail;
	}
	sb_trace_info_init(&s->base.info, source, tick_hz, unit);
	s->base.info.fields = get_u32(body + 48) & SB_FIELD_ALL;
	if (opt && opt->clock_hz > 0 && !strcmp(unit, "cycle"))
		s->base.info.tick_hz = opt->clock_hz;
	sbt_prescan(s);
	/* the subpartition table and warnings that precede the first block */
	if ((err = sbt_next_block(s)) < 0)
		goto fail;
	*r = &s->base;
	return 0;
fail:
	sbt_free(&s->base);
	return err;
}

int sb_trace_open_sbt(struct sb_trace_reader **r, const char *path,
                      const struct sb_trace_options *opt)
{
	struct sbt_reader *s = calloc(1, sizeof(*s));
	int err;

	*r = NULL;
	if (!s)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((err = sb_instream_open(&s->in, path)) < 0) {
		free(s);
		return err;
	}
	return sbt_open(r, s, path, opt);
}

int sb_trace_open_sbt_fd(struct sb_trace_reader **r, int fd, const char *name)
{
	struct sbt_reader *s = calloc(1, sizeof(*s));
	int err;

	*r = NULL;
	if (!s) {
		close(fd);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	if ((err = sb_instream_open_fd(&s->in, fd, name)) < 0) {
		free(s);
		return err;
	}
	return sbt_open(r, s, name, NULL);
}

int sb_trace_open_sbt_mem(struct sb_trace_reader **r, const char *name, const void *data,
                          size_t len, const struct sb_trace_options *opt)
{
	struct sbt_reader *s = calloc(1, sizeof(*s));
	int err;

	*r = NULL;
	if (!s)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((err = sb_instream_open_mem(&s->in, name, data, len)) < 0) {
		free(s);
		return err;
	}
	return sbt_open(r, s, name, opt);
}

/* --- Writer -------------------------------------------------------------------------------- */

struct sbt_writer {
	struct sb_trace_writer base;
	struct sb_output out; /* written atomically */
	FILE *f;              /* out.f */
	char path[256];
	ZSTD_CCtx *cctx;
	struct sb_trace_record *recs;
	size_t n;
	uint8_t *raw, *comp;
	size_t comp_cap;
	uint64_t total;
	uint32_t nsubparts, nwarnings;
	/* the capture description and attributes as last written */
	struct sb_trace_capture capture;
	uint32_t nattrs;
	struct sb_trace_attr attrs[SB_TRACE_MAX_ATTRS];
};

static int sbt_put(struct sbt_writer *w, const void *p, size_t n)
{
	if (fwrite(p, 1, n, w->f) != n)
		return sb_error_set(SB_ERR_IO, "cannot write '%s': %s", w->path, strerror(errno));
	return 0;
}

static int sbt_chunk(struct sbt_writer *w, uint8_t type, const void *p, size_t n)
{
	uint8_t hdr[8] = {type, 0, 0, 0};
	int err;

	put_u32(hdr + 4, (uint32_t)n);
	if ((err = sbt_put(w, hdr, sizeof(hdr))) < 0)
		return err;
	return sbt_put(w, p, n);
}

static int sbt_flush_block(struct sbt_writer *w)
{
	const struct sb_trace_record *r = w->recs;
	uint64_t prev_addr[SB_TRACE_MAX_SUBPARTS];
	uint32_t fields = 0, n = (uint32_t)w->n;
	uint8_t *p = w->raw;
	int64_t t = 0;
	uint64_t pc = 0;
	size_t clen;
	int err;

	if (n == 0)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		fields |= r[i].cache ? SB_FIELD_CACHE : 0;
		fields |= r[i].unit ? SB_FIELD_UNIT : 0;
		fields |= r[i].pc ? SB_FIELD_PC : 0;
		fields |= r[i].sample ? SB_FIELD_SAMPLE : 0;
		fields |= r[i].latency ? SB_FIELD_LATENCY : 0;
		fields |= r[i].group ? SB_FIELD_GROUP : 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		p = put_varint(p, zigzag((int64_t)((uint64_t)r[i].time - (uint64_t)t)));
		t = r[i].time;
	}
	for (uint32_t i = 0; i < n; i++)
		*p++ = (uint8_t)r[i].subpart;
	for (uint32_t i = 0; i < n; i++)
		*p++ = (uint8_t)(r[i].kind | r[i].cache << 4);
	memset(prev_addr, 0, sizeof(prev_addr));
	for (uint32_t i = 0; i < n; i++) {
		p = put_varint(p, zigzag((int64_t)(r[i].addr - prev_addr[r[i].subpart])));
		prev_addr[r[i].subpart] = r[i].addr;
	}
	for (uint32_t i = 0; i < n; i++)
		p = put_varint(p, r[i].size);
	if (fields & SB_FIELD_UNIT)
		for (uint32_t i = 0; i < n; i++)
			p = put_varint(p, r[i].unit);
	if (fields & SB_FIELD_PC) {
		for (uint32_t i = 0; i < n; i++) {
			p = put_varint(p, zigzag((int64_t)(r[i].pc - pc)));
			pc = r[i].pc;
		}
	}
	if (fields & SB_FIELD_SAMPLE)
		for (uint32_t i = 0; i < n; i++)
			p = put_varint(p, r[i].sample);
	if (fields & SB_FIELD_LATENCY)
		for (uint32_t i = 0; i < n; i++)
			p = put_varint(p, r[i].latency);
	if (fields & SB_FIELD_GROUP)
		for (uint32_t i = 0; i < n; i++)
			p = put_varint(p, r[i].group);
	put_u32(w->comp, n);
	put_u32(w->comp + 4, (uint32_t)(p - w->raw));
	put_u32(w->comp + 8, fields);
	clen =
	    ZSTD_compress2(w->cctx, w->comp + 12, w->comp_cap - 12, w->raw, (size_t)(p - w->raw));
	if (ZSTD_isError(clen))
		return sb_error_set(SB_ERR_IO, "cannot compress a block of '%s': %s", w->path,
		                    ZSTD_getErrorName(clen));
	if ((err = sbt_chunk(w, CHUNK_DATA, w->comp, 12 + clen)) < 0)
		return err;
	w->total += n;
	w->n = 0;
	return 0;
}

static int sbt_write_meta(struct sbt_writer *w, const struct sb_trace_info *info)
{
	uint8_t buf[8 + SB_TRACE_MAX_SUBPARTS * SBT_SUBPART_BYTES];
	uint32_t count = info->nsubparts - w->nsubparts;
	int err;

	if (count) {
		uint8_t *p = buf + 8;

		memset(buf, 0, sizeof(buf));
		put_u32(buf, w->nsubparts);
		put_u32(buf + 4, count);
		for (uint32_t i = w->nsubparts; i < info->nsubparts; i++, p += SBT_SUBPART_BYTES) {
			const struct sb_trace_subpart *sp = &info->subparts[i];

			memcpy(p, sp->name, strnlen(sp->name, SB_TRACE_NAME_MAX - 1));
			p[32] = sp->type;
			p[33] = sp->per_unit;
			put_u32(p + 36, sp->addr_unit_bytes);
			put_u32(p + 40, sp->block_bytes);
		}
		if ((err = sbt_chunk(w, CHUNK_SUBPARTS, buf, 8 + count * SBT_SUBPART_BYTES)) < 0)
			return err;
		w->nsubparts = info->nsubparts;
	}
	for (; w->nwarnings < info->nwarnings; w->nwarnings++) {
		const char *msg = info->warnings[w->nwarnings];

		if ((err = sbt_chunk(w, CHUNK_WARNING, msg, strlen(msg))) < 0)
			return err;
	}
	/* attributes new or changed since last written; a later one of a key replaces it */
	for (uint32_t i = 0; i < info->nattrs; i++) {
		const struct sb_trace_attr *a = &info->attrs[i];
		uint8_t kv[SB_TRACE_ATTR_KEY_MAX + SB_TRACE_ATTR_VALUE_MAX];
		size_t kl = strnlen(a->key, SB_TRACE_ATTR_KEY_MAX - 1);
		size_t vl = strnlen(a->value, SB_TRACE_ATTR_VALUE_MAX - 1);

		if (i < w->nattrs && !memcmp(a, &w->attrs[i], sizeof(*a)))
			continue;
		memcpy(kv, a->key, kl);
		kv[kl] = '\0';
		memcpy(kv + kl + 1, a->value, vl);
		if ((err = sbt_chunk(w, CHUNK_ATTR, kv, kl + 1 + vl)) < 0)
			return err;
		w->attrs[i] = *a;
	}
	w->nattrs = info->nattrs > w->nattrs ? info->nattrs : w->nattrs;
	if (memcmp(&info->capture, &w->capture, sizeof(w->capture))) {
		uint8_t c[SBT_CAPTURE_BYTES];

		capture_encode(c, &info->capture);
		if ((err = sbt_chunk(w, CHUNK_CAPTURE, c, sizeof(c))) < 0)
			return err;
		w->capture = info->capture;
	}
	return 0;
}

static int sbt_write(struct sb_trace_writer *wr, const struct sb_trace_info *info,
                     const struct sb_trace_record *recs, size_t n)
{
	struct sbt_writer *w = (struct sbt_writer *)wr;
	int err;

	if ((err = sbt_write_meta(w, info)) < 0)
		return err;
	for (size_t i = 0; i < n; i++) {
		if (recs[i].subpart >= w->nsubparts || recs[i].kind >= SB_ACC_KIND_COUNT ||
		    recs[i].cache >= SB_CACHE_STATUS_COUNT)
			return sb_error_set(SB_ERR_RANGE,
			                    "'%s': record with subpartition %u (of %u), kind %u, "
			                    "status %u",
			                    w->path, recs[i].subpart, w->nsubparts, recs[i].kind,
			                    recs[i].cache);
		w->recs[w->n++] = recs[i];
		if (w->n == SBT_BLOCK_RECORDS && (err = sbt_flush_block(w)) < 0)
			return err;
	}
	return 0;
}

static void sbt_writer_free(struct sbt_writer *w)
{
	sb_output_abort(&w->out);
	ZSTD_freeCCtx(w->cctx);
	free(w->recs);
	free(w->raw);
	free(w->comp);
	free(w);
}

static int sbt_close(struct sb_trace_writer *wr, bool finish)
{
	struct sbt_writer *w = (struct sbt_writer *)wr;
	uint8_t total[8];
	const bool external = !w->out.f; /* a stream of the caller's: flushed, not committed */
	int err = 0;

	if (finish) {
		put_u64(total, w->total + w->n);
		if ((err = sbt_flush_block(w)) == 0)
			err = sbt_chunk(w, CHUNK_END, total, sizeof(total));
		if (!err && ferror(w->f))
			err = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", w->path,
			                   strerror(errno));
		if (!err && !external)
			err = sb_output_commit(&w->out);
		if (!err && external && fflush(w->f))
			err = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", w->path,
			                   strerror(errno));
	}
	w->f = NULL;
	sbt_writer_free(w); /* removes the temporary file when not committed */
	return err;
}

static const struct sb_trace_writer_ops sbt_writer_ops = {.write = sbt_write, .close = sbt_close};

static int sbt_writer_open(struct sb_trace_writer **wp, const char *path, FILE *f,
                           const struct sb_trace_info *info);

int sb_trace_writer_open_sbt(struct sb_trace_writer **wp, const char *path,
                             const struct sb_trace_info *info)
{
	return sbt_writer_open(wp, path, NULL, info);
}

int sb_trace_writer_open_sbt_stream(struct sb_trace_writer **wp, FILE *f, const char *name,
                                    const struct sb_trace_info *info)
{
	int err = sbt_writer_open(wp, name, f, info);

	if (err == 0)
		sb_strlcpy((*wp)->path, name, sizeof((*wp)->path));
	return err;
}

/* A writer of path (written atomically), or of the stream f (flushed, never closed). */
static int sbt_writer_open(struct sb_trace_writer **wp, const char *path, FILE *f,
                           const struct sb_trace_info *info)
{
	struct sbt_writer *w = calloc(1, sizeof(*w));
	uint8_t head[16 + SBT_HEADER_BYTES];
	uint64_t bits;
	int err;

	*wp = NULL;
	if (!w)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	w->base.ops = &sbt_writer_ops;
	sb_strlcpy(w->path, path, sizeof(w->path));
	w->comp_cap = 12 + ZSTD_compressBound(SBT_BLOCK_RECORDS * SBT_REC_MAX_BYTES);
	w->recs = malloc(SBT_BLOCK_RECORDS * sizeof(*w->recs));
	w->raw = malloc(SBT_BLOCK_RECORDS * SBT_REC_MAX_BYTES);
	w->comp = malloc(w->comp_cap);
	w->cctx = ZSTD_createCCtx();
	if (!w->recs || !w->raw || !w->comp || !w->cctx) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, SBT_ZSTD_LEVEL);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	if (!f && (err = sb_output_open(&w->out, path)) < 0)
		goto fail;
	w->f = f ? f : w->out.f;
	memset(head, 0, sizeof(head));
	memcpy(head, SBT_MAGIC, 8);
	head[8] = SBT_MAJOR;
	head[10] = SBT_MINOR;
	put_u32(head + 12, SBT_HEADER_BYTES);
	memcpy(&bits, &info->tick_hz, sizeof(bits));
	put_u64(head + 16, bits);
	memcpy(head + 24, info->time_unit, strnlen(info->time_unit, 7));
	memcpy(head + 32, info->source, strnlen(info->source, SB_TRACE_NAME_MAX - 1));
	put_u32(head + 64, info->fields);
	if ((err = sbt_put(w, head, sizeof(head))) < 0 || (err = sbt_write_meta(w, info)) < 0) {
		sbt_close(&w->base, false);
		return err;
	}
	*wp = &w->base;
	return 0;
fail:
	sbt_writer_free(w);
	return err;
}
