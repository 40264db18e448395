/* SPDX-License-Identifier: MIT */
/*
 * Importers for real tool output:
 * - sb_trace_sort(): stable, exact against a reference sort, in memory and through temporary
 *   runs (hundreds of them, so that the merge goes in passes);
 * - SCALE-Sim rows out of time order (the pattern of real SCALE-Sim v2 OFMAP DRAM traces,
 *   tests/data/analysis/scalesim-ooo): sorted, stable, the same analysis as the rows sorted
 *   by hand, and the same through the disk;
 * - gzip, zstd and xz inputs of every format read as the plain ones (members and frames
 *   concatenated too); truncated or corrupt compressed data is an error naming the file.
 */
#include <lzma.h>
#include <zlib.h>

#include "analysis_support.h"
#include "stackbench/lifetime.h"
#include "stackbench/log.h"
#include "stackbench/util.h"

#define DATA SB_TEST_DATA_DIR

static char dir[64];

static void setup(void)
{
	sbtest_mkdtemp(dir, sizeof(dir));
	sb_log_set_level(SB_LOG_ERROR);
}

static void teardown(void)
{
	sbtest_rmtree(dir);
}

TestSuite(import, .init = setup, .fini = teardown);

/* --- a reader over records in memory ----------------------------------------------------- */

struct mem_reader {
	struct sb_trace_reader base;
	const struct sb_trace_record *recs;
	size_t n, pos;
};

static int mem_read(struct sb_trace_reader *r, struct sb_trace_record *out, size_t max)
{
	struct mem_reader *m = (struct mem_reader *)r;
	size_t k = m->n - m->pos < max ? m->n - m->pos : max;

	/* the description grows while reading, as an importer's does */
	if (m->pos > m->n / 2 && m->base.info.nsubparts < 3)
		sb_trace_info_subpart(&m->base.info, "late", SB_SUBPART_SCRATCHPAD, 1, 1);
	memcpy(out, m->recs + m->pos, k * sizeof(*out));
	m->pos += k;
	return (int)k;
}

static void mem_free(struct sb_trace_reader *r)
{
	free(r);
}

static const struct sb_trace_reader_ops mem_ops = {.read = mem_read, .free = mem_free};

static struct sb_trace_reader *mem_reader(const struct sb_trace_record *recs, size_t n)
{
	struct mem_reader *m = calloc(1, sizeof(*m));

	cr_assert(m);
	m->base.ops = &mem_ops;
	sb_trace_info_init(&m->base.info, "mem", 1e9, "cycle");
	sb_trace_info_subpart(&m->base.info, "a", SB_SUBPART_SCRATCHPAD, 1, 1);
	sb_trace_info_subpart(&m->base.info, "b", SB_SUBPART_SCRATCHPAD, 1, 1);
	snprintf(m->base.name, sizeof(m->base.name), "memory");
	m->recs = recs;
	m->n = n;
	return &m->base;
}

struct ref {
	int64_t time;
	size_t idx;
};

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

Test(import, sort_is_stable_and_exact_in_memory_and_through_runs, .timeout = 120)
{
	enum { N = 6000 };
	static const size_t mems[] = {0, N, N - 1, 1000, 7, 1};
	struct sb_trace_record *t = calloc(N, sizeof(*t));
	struct ref *ref = calloc(N, sizeof(*ref));
	uint64_t x = 0x9e3779b97f4a7c15ull;

	cr_assert(t && ref);
	/* mostly ascending with jumps back and many equal times; addr = input position */
	for (size_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		t[i].time = (int64_t)(i / 3) - (x % 11 == 0 ? (int64_t)(x >> 40) % 500 : 0);
		t[i].addr = i;
		t[i].subpart = (uint16_t)(x >> 20) % 2;
		t[i].kind = (uint8_t)(x >> 30) % 3;
		t[i].size = 4;
		t[i].unit = (uint32_t)(x >> 50);
		ref[i] = (struct ref){t[i].time, i};
	}
	qsort(ref, N, sizeof(*ref), cmp_ref);
	for (size_t m = 0; m < SB_ARRAY_SIZE(mems); m++) {
		struct sb_trace_reader *r;
		struct sb_trace_record *got;
		size_t n;

		if (mems[m] == 1)
			continue; /* 6000 runs of one record: too slow for a unit test, 7 says it */
		cr_assert_eq(sb_trace_sort(&r, mem_reader(t, N), mems[m]), 0);
		cr_assert_eq(sbtest_read_all(r, &got, &n), 0, "%s", sb_error_detail());
		cr_assert_eq(n, N);
		for (size_t i = 0; i < N; i++)
			cr_assert(!memcmp(&got[i], &t[ref[i].idx], sizeof(got[i])),
			          "memory %zu: record %zu is input %llu, expected %zu", mems[m], i,
			          (unsigned long long)got[i].addr, ref[i].idx);
		cr_expect_eq(sb_trace_reader_info(r)->nsubparts, 3,
		             "the description as it was at the end of the input");
		free(got);
		sb_trace_reader_free(r);
	}
	free(t);
	free(ref);
}

/* --- SCALE-Sim rows out of time order -------------------------------------------------------- */

static struct sb_lifetime_result analyse(enum sb_trace_format fmt, const char *path,
                                         const struct sb_trace_options *opt)
{
	struct sb_trace_reader *r;
	struct sb_lifetime_result res;

	cr_assert_eq(sb_trace_open(&r, fmt, path, opt), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_lifetime_run(r, SB_POLICY_WRITE_ALLOCATE, &res), 0, "%s",
	             sb_error_detail());
	sb_trace_reader_free(r);
	return res;
}

static void expect_same_result(const struct sb_lifetime_result *a,
                               const struct sb_lifetime_result *b)
{
	cr_assert_eq(a->records, b->records);
	cr_expect_eq(a->first_time, b->first_time);
	cr_expect_eq(a->last_time, b->last_time);
	cr_assert_eq(a->nsubparts, b->nsubparts);
	for (size_t s = 0; s < a->nsubparts; s++) {
		const struct sb_subpart_stats *x = &a->subparts[s], *y = &b->subparts[s];

		cr_expect_eq(x->reads, y->reads);
		cr_expect_eq(x->stores + x->fetches, y->stores + y->fetches);
		cr_expect_eq(x->lifetimes, y->lifetimes);
		cr_expect_eq(x->zero_read_values, y->zero_read_values);
		cr_expect_eq(x->unbacked_reads, y->unbacked_reads);
		cr_expect_eq(x->write_ticks, y->write_ticks);
		cr_expect_eq(x->read_ticks, y->read_ticks);
		cr_assert_eq(x->nbins, y->nbins, "%s", x->sp.name);
		for (size_t i = 0; i < x->nbins; i++) {
			cr_expect_eq(x->bins[i].ticks, y->bins[i].ticks);
			cr_expect_eq(x->bins[i].count, y->bins[i].count);
		}
	}
}

static void copy_file(const char *from, const char *to)
{
	char *data;
	size_t len;

	cr_assert_eq(sb_read_file(from, &data, &len), 0, "%s", sb_error_detail());
	sbtest_write(to, data, len);
	free(data);
}

Test(import, scalesim_rows_out_of_time_order_are_sorted)
{
	static const char *const files[] = {"IFMAP_DRAM_TRACE.csv", "IFMAP_SRAM_TRACE.csv",
	                                    "FILTER_DRAM_TRACE.csv", "FILTER_SRAM_TRACE.csv",
	                                    "OFMAP_SRAM_TRACE.csv"};
	const char *src = DATA "/scalesim-ooo";
	struct sb_trace_options small = {.sort_records = 2};
	struct sb_trace_reader *r;
	struct sb_trace_record *recs;
	struct sb_lifetime_result a, b, c;
	char from[256], to[256];
	size_t n, k = 0;
	/* the OFMAP DRAM reads in time order, equal cycles in file order */
	static const int64_t want_t[] = {5, 5, 6, 9, 10, 10, 11, 11, 11, 12};
	static const uint64_t want_a[] = {106, 107, 105, 101, 100, 101, 102, 103, 100, 104};

	cr_assert_eq(sb_trace_open(&r, SB_TRACE_SCALESIM, src, NULL), 0, "%s", sb_error_detail());
	cr_assert_eq(sbtest_read_all(r, &recs, &n), 0, "%s", sb_error_detail());
	cr_assert_eq(n, 3 + 4 + 1 + 3 + 8 + 10);
	for (size_t i = 0; i < n; i++) {
		if (i)
			cr_expect_geq(recs[i].time, recs[i - 1].time, "record %zu", i);
		if (recs[i].subpart == 2 && recs[i].kind == SB_ACC_READ) {
			cr_assert_lt(k, 10);
			cr_expect_eq(recs[i].time, want_t[k], "read %zu at %lld", k,
			             (long long)recs[i].time);
			cr_expect_eq(recs[i].addr, want_a[k], "read %zu of %llu", k,
			             (unsigned long long)recs[i].addr);
			k++;
		}
	}
	cr_expect_eq(k, 10);
	free(recs);
	sb_trace_reader_free(r);

	/* lifetimes of ofmap, by hand: 106, 107: 3 -> 5; 105: 2 -> 6; 101, 102, 103, 104: 10;
	   100: 0 -> 11 */
	a = analyse(SB_TRACE_SCALESIM, src, NULL);
	{
		int o = sb_lifetime_result_find(&a, "ofmap");
		const struct sb_subpart_stats *st = &a.subparts[o];
		static const int64_t ticks[] = {2, 4, 10, 11};
		static const uint64_t counts[] = {2, 1, 4, 1};

		cr_assert_eq(st->nbins, 4);
		for (size_t i = 0; i < 4; i++) {
			cr_expect_eq(st->bins[i].ticks, ticks[i]);
			cr_expect_eq(st->bins[i].count, counts[i]);
		}
		cr_expect_eq(st->reads, 10);
		cr_expect_eq(st->unbacked_reads, 0);
	}
	/* the same rows sorted by hand give the same analysis, and so does sorting on disk */
	for (size_t i = 0; i < SB_ARRAY_SIZE(files); i++) {
		snprintf(from, sizeof(from), "%s/%s", src, files[i]);
		snprintf(to, sizeof(to), "%s/%s", dir, files[i]);
		copy_file(from, to);
	}
	snprintf(to, sizeof(to), "%s/OFMAP_DRAM_TRACE.csv", dir);
	sbtest_write_text(to, "5.0,106.0,107.0\n6.0,105.0,-1\n9.0,101.0,-1\n10.0,100.0,101.0\n"
	                      "11.0,102.0,103.0\n11.0,100.0,-1\n12.0,104.0,-1\n");
	b = analyse(SB_TRACE_SCALESIM, dir, NULL);
	expect_same_result(&a, &b);
	c = analyse(SB_TRACE_SCALESIM, src, &small);
	expect_same_result(&a, &c);
	sb_lifetime_result_release(&a);
	sb_lifetime_result_release(&b);
	sb_lifetime_result_release(&c);
}

/* --- CSV and GPGPU-Sim records out of time order ----------------------------------------- */

/* Times and addresses of every record of a trace held in memory (or a file when path). */
static size_t times_of(enum sb_trace_format fmt, const char *path, const char *text,
                       const struct sb_trace_options *opt, int64_t *t, uint64_t *a, size_t max)
{
	struct sb_trace_reader *r;
	struct sb_trace_record *recs;
	size_t n;

	if (path)
		cr_assert_eq(sb_trace_open(&r, fmt, path, opt), 0, "%s", sb_error_detail());
	else
		cr_assert_eq(sb_trace_open_mem(&r, fmt, "mem", text, strlen(text), opt), 0, "%s",
		             sb_error_detail());
	cr_assert_eq(sbtest_read_all(r, &recs, &n), 0, "%s", sb_error_detail());
	cr_assert_leq(n, max);
	for (size_t i = 0; i < n; i++) {
		t[i] = recs[i].time;
		a[i] = recs[i].addr;
	}
	free(recs);
	sb_trace_reader_free(r);
	return n;
}

/* A trace of 6 records read in memory (how 0), from a file (1) and sorted through the disk in
 * runs of 2 records (2): the records' times and addresses in order. */
static void expect_sorted(enum sb_trace_format fmt, const char *name, const char *text, int how,
                          const int64_t *want_t, const uint64_t *want_a)
{
	struct sb_trace_options small = {.sort_records = 2};
	int64_t t[16];
	uint64_t a[16];
	char path[256];
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	sbtest_write_text(path, text);
	n = times_of(fmt, how ? path : NULL, text, how == 2 ? &small : NULL, t, a, 16);
	cr_assert_eq(n, 6, "%s (%d): %zu records", name, how, n);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(t[i], want_t[i], "%s (%d) record %zu at %lld", name, how, i,
		             (long long)t[i]);
		cr_expect_eq(a[i], want_a[i], "%s (%d) record %zu of %llu", name, how, i,
		             (unsigned long long)a[i]);
	}
}

Test(import, csv_and_gpgpusim_records_out_of_time_order_are_sorted)
{
	/* a subpartition goes back: sorted by time, equal times in file order */
	static const char csv[] = "time,subpartition,addr,kind\n"
	                          "5,a,1,write\n7,a,2,write\n3,a,3,write\n5,a,4,read\n"
	                          "7,a,5,read\n2,a,6,write\n";
	static const int64_t csv_t[] = {2, 3, 5, 5, 7, 7};
	static const uint64_t csv_a[] = {6, 3, 1, 4, 2, 5};
	/* in order within each subpartition, not across them: read as the file has it */
	static const char per_sp[] = "time,subpartition,addr,kind\n"
	                             "5,a,1,write\n9,a,2,read\n1,b,3,write\n4,b,4,read\n";
	/* a GPGPU-Sim log whose cycles go back inside a kernel; a second kernel restarts its
	 * cycles: its cycle 0 is placed one after the first one's latest (30) */
	static const char log[] =
	    "-kernel name = k1\n"
	    "GPGPU-Sim Cycle 10: Load instr from L1D cache at SM 0 addr 0x100 status 0\n"
	    "GPGPU-Sim Cycle 30: Load instr from L1D cache at SM 1 addr 0x300 status 0\n"
	    "GPGPU-Sim Cycle 20: Load instr from L1D cache at SM 0 addr 0x200 status 0\n"
	    "GPGPU-Sim Cycle 10: Load instr from L2 cache at SM 0 addr 0x120 status 0\n"
	    "-kernel name = k2\n"
	    "GPGPU-Sim Cycle 5: Load instr from L1D cache at SM 0 addr 0x500 status 0\n"
	    "GPGPU-Sim Cycle 2: Load instr from L1D cache at SM 0 addr 0x600 status 0\n";
	static const int64_t log_t[] = {10, 10, 20, 30, 33, 36};
	static const uint64_t log_a[] = {0x100, 0x120, 0x200, 0x300, 0x600, 0x500};
	int64_t t[16];
	uint64_t a[16];
	size_t n;

	/* in memory, from a file, and sorted through the disk (runs of 2 records) */
	for (int how = 0; how < 3; how++) {
		expect_sorted(SB_TRACE_CSV, "ooo.csv", csv, how, csv_t, csv_a);
		expect_sorted(SB_TRACE_GPGPUSIM, "ooo.log", log, how, log_t, log_a);
	}
	n = times_of(SB_TRACE_CSV, NULL, per_sp, NULL, t, a, 16);
	cr_assert_eq(n, 4);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(a[i], i + 1, "record %zu is the file's record %llu", i,
		             (unsigned long long)a[i]);
}

/* --- compressed inputs ------------------------------------------------------------------------ */

static size_t gz(const void *in, size_t len, uint8_t *out, size_t cap)
{
	z_stream z = {0};

	cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	deflateEnd(&z);
	return cap - z.avail_out;
}

/* With a content checksum, as the zstd tool writes by default. */
static size_t zst(const void *in, size_t len, uint8_t *out, size_t cap)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t n;

	cr_assert(c);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	n = ZSTD_compress2(c, out, cap, in, len);
	ZSTD_freeCCtx(c);
	cr_assert(!ZSTD_isError(n));
	return n;
}

static size_t xz(const void *in, size_t len, uint8_t *out, size_t cap)
{
	size_t pos = 0;

	cr_assert_eq(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, in, len, out, &pos, cap),
	             LZMA_OK);
	return pos;
}

typedef size_t (*compress_fn)(const void *, size_t, uint8_t *, size_t);
static const compress_fn codecs[] = {gz, zst, xz};
static const char *const suffixes[] = {".gz", ".zst", ".xz"};

/*
 * Write data compressed with codec c as path; in two members/frames/streams when split, or cut
 * short (keep bytes of it) when keep > 0.
 */
static void write_compressed(const char *path, int c, const void *data, size_t len, bool split,
                             size_t keep)
{
	size_t cap = 2 * len + 1024, n;
	uint8_t *out = malloc(cap);

	cr_assert(out);
	if (split) {
		n = codecs[c](data, len / 2, out, cap);
		n += codecs[c]((const char *)data + len / 2, len - len / 2, out + n, cap - n);
	} else {
		n = codecs[c](data, len, out, cap);
	}
	sbtest_write(path, out, keep && keep < n ? keep : n);
	free(out);
}

static void read_records(enum sb_trace_format fmt, const char *path, struct sb_trace_record **recs,
                         size_t *n)
{
	struct sb_trace_reader *r;

	cr_assert_eq(sb_trace_open(&r, fmt, path, NULL), 0, "%s: %s", path, sb_error_detail());
	cr_assert_eq(sbtest_read_all(r, recs, n), 0, "%s: %s", path, sb_error_detail());
	sb_trace_reader_free(r);
}

static void expect_same_records(enum sb_trace_format fmt, const char *plain, const char *packed)
{
	struct sb_trace_record *a, *b;
	size_t na, nb;

	read_records(fmt, plain, &a, &na);
	read_records(fmt, packed, &b, &nb);
	cr_assert_gt(na, 0);
	cr_assert_eq(na, nb, "%s: %zu records, %zu plain", packed, nb, na);
	cr_expect(!memcmp(a, b, na * sizeof(*a)), "%s: records differ", packed);
	free(a);
	free(b);
}

Test(import, compressed_files_read_as_the_plain_ones)
{
	struct sb_trace_reader *r;
	const struct {
		enum sb_trace_format fmt;
		const char *name;
	} inputs[] = {{SB_TRACE_CSV, "trace.csv"},
	              {SB_TRACE_GPGPUSIM, "gpgpusim.log"},
	              {SB_TRACE_SBT, "layer.sbt"}};
	char plain[256], packed[256];

	/* an sbt file too (its blocks are compressed already; a whole-file codec still reads) */
	snprintf(plain, sizeof(plain), "%s/layer.sbt", dir);
	cr_assert_eq(sb_trace_open(&r, SB_TRACE_SCALESIM, DATA "/scalesim-layer", NULL), 0);
	cr_assert_eq(sb_trace_convert(r, SB_TRACE_SBT, plain), 20, "%s", sb_error_detail());
	sb_trace_reader_free(r);
	for (size_t i = 0; i < SB_ARRAY_SIZE(inputs); i++) {
		char *data;
		size_t len;

		if (inputs[i].fmt == SB_TRACE_SBT)
			snprintf(plain, sizeof(plain), "%s/%s", dir, inputs[i].name);
		else
			snprintf(plain, sizeof(plain), "%s/%s", DATA, inputs[i].name);
		cr_assert_eq(sb_read_file(plain, &data, &len), 0);
		for (int c = 0; c < 3; c++) {
			for (int split = 0; split < 2; split++) {
				snprintf(packed, sizeof(packed), "%s/%d%d-%s%s", dir, c, split,
				         inputs[i].name, suffixes[c]);
				write_compressed(packed, c, data, len, split, 0);
				expect_same_records(inputs[i].fmt, plain, packed);
			}
		}
		/* in memory too */
		{
			uint8_t *z = malloc(2 * len + 1024);
			size_t zl = xz(data, len, z, 2 * len + 1024);
			struct sb_trace_record *got, *want;
			size_t ng, nw;

			cr_assert_eq(sb_trace_open_mem(&r, inputs[i].fmt, "mem.xz", z, zl, NULL), 0,
			             "%s", sb_error_detail());
			cr_assert_eq(sbtest_read_all(r, &got, &ng), 0, "%s", sb_error_detail());
			sb_trace_reader_free(r);
			read_records(inputs[i].fmt, plain, &want, &nw);
			cr_expect_eq(ng, nw);
			cr_expect(!memcmp(got, want, nw * sizeof(*got)));
			free(got);
			free(want);
			free(z);
		}
		free(data);
	}
}

Test(import, a_compressed_scalesim_layer_folder)
{
	static const char *const files[] = {"IFMAP_DRAM_TRACE.csv", "IFMAP_SRAM_TRACE.csv",
	                                    "FILTER_SRAM_TRACE.csv", "OFMAP_SRAM_TRACE.csv",
	                                    "OFMAP_DRAM_TRACE.csv"};
	const char *src = DATA "/scalesim-ooo";
	struct sb_lifetime_result a, b;
	char from[256], to[256];

	/* every file another codec (FILTER_DRAM left plain), out-of-order rows included */
	for (size_t i = 0; i < SB_ARRAY_SIZE(files); i++) {
		char *data;
		size_t len;

		snprintf(from, sizeof(from), "%s/%s", src, files[i]);
		snprintf(to, sizeof(to), "%s/%s%s", dir, files[i], suffixes[i % 3]);
		cr_assert_eq(sb_read_file(from, &data, &len), 0);
		write_compressed(to, (int)(i % 3), data, len, false, 0);
		free(data);
	}
	snprintf(from, sizeof(from), "%s/FILTER_DRAM_TRACE.csv", src);
	snprintf(to, sizeof(to), "%s/FILTER_DRAM_TRACE.csv", dir);
	copy_file(from, to);
	a = analyse(SB_TRACE_SCALESIM, src, NULL);
	b = analyse(SB_TRACE_SCALESIM, dir, NULL);
	expect_same_result(&a, &b);
	cr_expect_eq(b.info.nwarnings, 0, "%s", b.info.nwarnings ? b.info.warnings[0] : "");
	sb_lifetime_result_release(&a);
	sb_lifetime_result_release(&b);
}

Test(import, truncated_or_corrupt_compressed_data_is_an_error)
{
	char *data, path[256];
	size_t len;

	cr_assert_eq(sb_read_file(DATA "/gpgpusim.log", &data, &len), 0);
	for (int c = 0; c < 3; c++) {
		uint8_t *out = malloc(2 * len + 1024);
		size_t n = codecs[c](data, len, out, 2 * len + 1024);

		snprintf(path, sizeof(path), "%s/cut%s", dir, suffixes[c]);
		sbtest_write(path, out, n - 12);
		cr_expect_eq(sbtest_read_status(SB_TRACE_GPGPUSIM, path, NULL, NULL), SB_ERR_PARSE,
		             "%s", suffixes[c]);
		cr_expect(strstr(sb_error_detail(), path) &&
		              (strstr(sb_error_detail(), "is truncated") ||
		               strstr(sb_error_detail(), "cannot decompress")),
		          "%s", sb_error_detail());
		/* a damaged byte in the middle of the compressed data */
		out[n / 2] ^= 0x5a;
		out[n / 2 + 1] ^= 0xa5;
		snprintf(path, sizeof(path), "%s/bad%s", dir, suffixes[c]);
		sbtest_write(path, out, n);
		cr_expect_eq(sbtest_read_status(SB_TRACE_GPGPUSIM, path, NULL, NULL), SB_ERR_PARSE,
		             "%s", suffixes[c]);
		cr_expect(strstr(sb_error_detail(), path), "%s", sb_error_detail());
		free(out);
	}
	/* only the magic bytes */
	snprintf(path, sizeof(path), "%s/magic.csv.zst", dir);
	sbtest_write(path, "\x28\xb5\x2f\xfd", 4);
	cr_expect_eq(sbtest_read_status(SB_TRACE_CSV, path, NULL, NULL), SB_ERR_PARSE);
	cr_expect(strstr(sb_error_detail(), "magic.csv.zst"), "%s", sb_error_detail());
	free(data);
}

/*
 * CSV numbers of every length (1 to 20 digits, and hexadecimal) in a middle column and in the
 * last one, after subpartition names of 1 to 12 bytes: the fast path reads up to 8 digits and
 * looks for commas 8 bytes at a time where 8 bytes of the line are left, and gives each record
 * exactly (20 digits and other forms go to the full parser).
 */
Test(import, csv_numbers_of_every_length_are_read_exactly)
{
	static const char digits[] = "12345678901234567890";
	static const char *const names[] = {"a", "bcdefghijkl", "mnopqrst", "uvwxyzABCDEF"};
	char path[128], *text = malloc(1 << 16), *p = text;
	struct sb_trace_reader *r;
	struct sb_trace_record *recs;
	uint64_t want_addr[64];
	uint32_t want_unit[64];
	size_t n, k = 0;

	cr_assert(text);
	p += sprintf(p, "#@ stackbench-trace csv 1\n#@ clock_hz=1000000000 time_unit=cycle\n");
	for (int i = 0; i < 4; i++)
		p += sprintf(p,
		             "#@ subpartition name=%s type=scratchpad addr_unit_bytes=1 "
		             "block_bytes=1 per_unit=0\n",
		             names[i]);
	p += sprintf(p, "time,subpartition,addr,size,kind,unit\n");
	for (int d = 1; d <= 20; d++, k++) {
		/* addr of d digits; unit of up to 9 digits (a uint32) at the end of the line */
		const int du = d < 9 ? d : 9;

		p += sprintf(p, "%d,%s,%.*s,%d,%s,%.*s\n", d, names[d % 4], d, digits, 1 << (d % 4),
		             d % 2 ? "fetch" : "read", du, digits + 20 - du);
		want_addr[k] = 0;
		for (int j = 0; j < d; j++)
			want_addr[k] = want_addr[k] * 10 + (uint64_t)(digits[j] - '0');
		want_unit[k] = (uint32_t)strtoul(digits + 20 - du, NULL, 10);
	}
	for (int d = 1; d <= 16; d++, k++) { /* hexadecimal addresses */
		p += sprintf(p, "%d,%s,0x%.*s,4,write,7\n", 20 + d, names[d % 4], d,
		             "fedcba9876543210");
		want_addr[k] = 0xfedcba9876543210ull >> (4 * (16 - d));
		want_unit[k] = 7;
	}
	snprintf(path, sizeof(path), "%s/numbers.csv", dir);
	sbtest_write(path, text, (size_t)(p - text));
	cr_assert_eq(sb_trace_open(&r, SB_TRACE_CSV, path, NULL), 0, "%s", sb_error_detail());
	cr_assert_eq(sbtest_read_all(r, &recs, &n), 0, "%s", sb_error_detail());
	cr_assert_eq(n, k);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(recs[i].time, (int64_t)i + 1, "record %zu", i);
		cr_expect_eq(recs[i].addr, want_addr[i], "record %zu: addr %llu, not %llu", i,
		             (unsigned long long)recs[i].addr, (unsigned long long)want_addr[i]);
		cr_expect_eq(recs[i].unit, want_unit[i], "record %zu: unit %u", i, recs[i].unit);
		cr_expect_eq(recs[i].subpart, (i < 20 ? i + 1 : i - 19) % 4, "record %zu", i);
		cr_expect_eq(recs[i].size, i < 20 ? 1u << ((i + 1) % 4) : 4u, "record %zu", i);
		cr_expect_eq(recs[i].kind,
		             i < 20 ? ((i + 1) % 2 ? SB_ACC_FETCH : SB_ACC_READ) : SB_ACC_WRITE,
		             "record %zu", i);
	}
	free(recs);
	sb_trace_reader_free(r);
	free(text);
}
