/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: SCPI answers of a Yokogawa WT310 through the number-list parser. */
#include <stddef.h>
#include <stdint.h>

#include "stackbench/meters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double v[8];

	sb_scpi_parse_numbers((const char *)data, size, v, 8);
	sb_scpi_parse_numbers((const char *)data, size, v, 1);
	return 0;
}
