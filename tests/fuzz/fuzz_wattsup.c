/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: Watts up? PRO byte streams through the record assembler and parser. */
#include <stddef.h>
#include <stdint.h>

#include "stackbench/meters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_record(void *ctx, const struct sb_wattsup_record *r)
{
	*(double *)ctx += r->power_w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_wattsup_lines l;
	struct sb_wattsup_record r;
	double sum = 0;

	sb_wattsup_lines_init(&l);
	/* In two pieces, as a serial line delivers them. */
	sb_wattsup_feed(&l, data, size / 2, on_record, &sum);
	sb_wattsup_feed(&l, data + size / 2, size - size / 2, on_record, &sum);
	sb_wattsup_parse((const char *)data, size, &r);
	return 0;
}
