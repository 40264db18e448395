/* SPDX-License-Identifier: MIT */
/* libFuzzer: the CSV trace reader (the input is the file, compressed or not), then the engines. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_trace_reader *r;

	sb_fuzz_quiet();
	if (sb_trace_open_mem(&r, SB_TRACE_CSV, "fuzz.csv", data, size, NULL) == 0) {
		sb_fuzz_drain(r, 1);
		sb_trace_reader_free(r);
	}
	return 0;
}
