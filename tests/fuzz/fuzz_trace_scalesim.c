/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the SCALE-Sim importer on a folder of files built from the input. Input: one byte
 * of flags, then the six trace files separated by NUL bytes (a NUL cannot occur in a text file
 * the importer accepts). Flags: bits 0..5 keep file k (IFMAP/FILTER/OFMAP × SRAM/DRAM); bit 6
 * makes a run folder of two layers (the files in layer0/ and layer1/); bit 7 alone sorts
 * out-of-order rows through the disk (64 records in memory). The folder is made once per process,
 * rewritten for every input and removed at exit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"

static const char *const names[6] = {"IFMAP_SRAM_TRACE.csv",  "IFMAP_DRAM_TRACE.csv",
                                     "FILTER_SRAM_TRACE.csv", "FILTER_DRAM_TRACE.csv",
                                     "OFMAP_SRAM_TRACE.csv",  "OFMAP_DRAM_TRACE.csv"};

static void put(const char *dir, const char *name, const uint8_t *p, size_t n, int keep)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	if (!keep)
		return;
	if (!(f = fopen(path, "wb")))
		abort();
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

static char root[64], l0[96], l1[96];

/* The folder goes when the fuzzer exits. */
static void cleanup(void)
{
	const char *const dirs[3] = {l0, l1, root};

	for (int d = 0; d < 3; d++) {
		for (int k = 0; k < 6 && d < 2; k++)
			put(dirs[d], names[k], NULL, 0, 0);
		for (int k = 0; k < 6 && d == 2; k++)
			put(root, names[k], NULL, 0, 0);
		rmdir(dirs[d]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_trace_options opt = {0};
	struct sb_trace_reader *r;
	const uint8_t *p, *end = data + size;
	uint8_t flags;

	sb_fuzz_quiet();
	if (!root[0]) {
		snprintf(root, sizeof(root), "/tmp/sb-fuzz-scalesim-XXXXXX");
		if (!mkdtemp(root))
			abort();
		snprintf(l0, sizeof(l0), "%s/layer0", root);
		snprintf(l1, sizeof(l1), "%s/layer1", root);
		mkdir(l0, 0700);
		mkdir(l1, 0700);
		atexit(cleanup);
	}
	if (size < 1)
		return 0;
	flags = data[0];
	p = data + 1;
	for (int k = 0; k < 6; k++) {
		const uint8_t *q = memchr(p, 0, (size_t)(end - p));
		size_t n = (size_t)((q ? q : end) - p);
		int keep = (flags >> k) & 1;

		/* a layer folder at the root, or the same files in two layers of a run */
		put(root, names[k], p, n, keep && !(flags & 0x40));
		put(l0, names[k], p, n, keep && (flags & 0x40));
		put(l1, names[k], p, n, keep && (flags & 0x40));
		p = q ? q + 1 : end;
	}
	if ((flags & 0xc0) == 0x80)
		opt.sort_records = 64;
	if (sb_trace_open(&r, SB_TRACE_SCALESIM, root, &opt) == 0) {
		sb_fuzz_drain(r, 1);
		sb_trace_reader_free(r);
	}
	return 0;
}
