/* SPDX-License-Identifier: MIT */
/*
 * Bounded fuzz smoke test of every trace parser and of the device library reader: valid inputs
 * mutated at random (fixed seed) must either parse or fail with SB_ERR_PARSE (or another input
 * error) whose detail names the file — never crash, hang or leak (run under ASan+UBSan in CI).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackbench/devices.h"
#include "stackbench/error.h"
#include "stackbench/lifetime.h"
#include "stackbench/log.h"
#include "stackbench/util.h"

#define DATA SB_TEST_DATA_DIR
#define ROUNDS 250

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char tmp[64];

static void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/sb-fuzz-XXXXXX");
	cr_assert(mkdtemp(tmp));
	sb_log_set_level(SB_LOG_NONE);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(fuzz, .init = setup, .fini = teardown);

/* Mutate a copy of base (1..4 edits: flip, insert a telling character, delete, truncate). */
static size_t mutate(const char *base, size_t len, char *out, size_t cap)
{
	static const char alphabet[] = ",-.0123456789xe\n \t#@:=abcdefSBTR\xff";
	size_t n = len < cap ? len : cap;
	int edits = 1 + (int)(next_rand() % 4);

	memcpy(out, base, n);
	for (int e = 0; e < edits && n > 0; e++) {
		size_t at = (size_t)(next_rand() % n);

		switch (next_rand() % 4) {
		case 0:
			out[at] ^= (char)(1u << (next_rand() % 8));
			break;
		case 1:
			if (n < cap) {
				memmove(out + at + 1, out + at, n - at);
				out[at] = alphabet[next_rand() % (sizeof(alphabet) - 1)];
				n++;
			}
			break;
		case 2:
			memmove(out + at, out + at + 1, n - at - 1);
			n--;
			break;
		default:
			n = at;
			break;
		}
	}
	return n;
}

static void put(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert(f);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

static bool input_error(int err)
{
	return err == SB_ERR_PARSE || err == SB_ERR_RANGE || err == SB_ERR_MISMATCH ||
	       err == SB_ERR_VERSION;
}

/* Open and analyse; failures must be input errors naming what failed. */
static void try_trace(enum sb_trace_format fmt, const char *path, const char *name_in_error)
{
	struct sb_trace_reader *r;
	struct sb_lifetime_result res;
	int err = sb_trace_open(&r, fmt, path, NULL);

	if (err == 0) {
		err = sb_lifetime_run(r, SB_POLICY_WRITE_ALLOCATE, &res);
		sb_trace_reader_free(r);
		if (err == 0) {
			sb_lifetime_result_release(&res);
			return;
		}
	}
	cr_assert(input_error(err), "unexpected error %d: %s", err, sb_error_detail());
	cr_assert(strstr(sb_error_detail(), name_in_error) ||
	              strstr(sb_error_detail(), "goes back in time") ||
	              strstr(sb_error_detail(), "subpartition"),
	          "the error does not name the input: %s", sb_error_detail());
}

static void fuzz_text_file(enum sb_trace_format fmt, const char *src, const char *name)
{
	char *base, buf[16384], path[128];
	size_t len, n;

	cr_assert_eq(sb_read_file(src, &base, &len), 0);
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	for (int i = 0; i < ROUNDS; i++) {
		n = mutate(base, len, buf, sizeof(buf));
		put(path, buf, n);
		try_trace(fmt, path, path);
	}
	free(base);
}

Test(fuzz, csv)
{
	fuzz_text_file(SB_TRACE_CSV, DATA "/trace.csv", "t.csv");
}

Test(fuzz, gpgpusim)
{
	fuzz_text_file(SB_TRACE_GPGPUSIM, DATA "/gpgpusim.log", "g.log");
}

Test(fuzz, scalesim)
{
	static const char *const files[] = {"IFMAP_DRAM_TRACE.csv", "IFMAP_SRAM_TRACE.csv",
	                                    "OFMAP_SRAM_TRACE.csv"};
	char src[256], path[128], buf[4096], *base;
	size_t len, n;

	for (size_t f = 0; f < SB_ARRAY_SIZE(files); f++) {
		snprintf(src, sizeof(src), "%s/scalesim-layer/%s", DATA, files[f]);
		cr_assert_eq(sb_read_file(src, &base, &len), 0);
		snprintf(path, sizeof(path), "%s/%s", tmp, files[f]);
		for (int i = 0; i < ROUNDS; i++) {
			n = mutate(base, len, buf, sizeof(buf));
			put(path, buf, n);
			try_trace(SB_TRACE_SCALESIM, tmp, tmp);
		}
		free(base);
	}
}

Test(fuzz, sbt)
{
	struct sb_trace_reader *r;
	char src[128], path[128], *base, *buf;
	size_t len, n;

	/* a valid sbt file made from the SCALE-Sim layer */
	snprintf(src, sizeof(src), "%s/src.sbt", tmp);
	cr_assert_eq(sb_trace_open(&r, SB_TRACE_SCALESIM, DATA "/scalesim-layer", NULL), 0);
	cr_assert_eq(sb_trace_convert(r, SB_TRACE_SBT, src), 20);
	sb_trace_reader_free(r);
	cr_assert_eq(sb_read_file(src, &base, &len), 0);
	buf = malloc(len + 64);
	cr_assert(buf);
	snprintf(path, sizeof(path), "%s/m.sbt", tmp);
	for (int i = 0; i < ROUNDS; i++) {
		n = mutate(base, len, buf, len + 64);
		put(path, buf, n);
		try_trace(SB_TRACE_SBT, path, path);
	}
	free(buf);
	free(base);
}

Test(fuzz, device_library)
{
	char *base, buf[16384];
	size_t len, n;

	cr_assert_eq(sb_read_file(SB_DEVICES_FILE, &base, &len), 0);
	for (int i = 0; i < ROUNDS; i++) {
		struct sb_memdev_lib lib;
		int err;

		n = mutate(base, len, buf, sizeof(buf));
		sb_memdev_lib_init(&lib);
		err = sb_memdev_lib_load_string(&lib, "fuzz.yaml", buf, n);
		cr_assert(err == 0 || err == SB_ERR_PARSE, "error %d: %s", err, sb_error_detail());
		if (err)
			cr_assert(strstr(sb_error_detail(), "fuzz.yaml"), "%s", sb_error_detail());
		sb_memdev_lib_release(&lib);
	}
	free(base);
}
