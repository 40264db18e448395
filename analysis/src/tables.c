/* SPDX-License-Identifier: MIT */
/* Memory of the analyses' large hash tables. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "trace_internal.h"

/*
 * Zeroed, cache-line aligned table memory. Large tables are mapped on their own and asked for
 * transparent huge pages: random probes over tens of MB otherwise miss the TLB on nearly every
 * access.
 */
#define HUGE_TABLE_BYTES (2u << 20)

void *sb_table_alloc(size_t bytes)
{
	void *p;

	if (bytes < HUGE_TABLE_BYTES) {
		if ((p = aligned_alloc(64, bytes)))
			memset(p, 0, bytes);
		return p;
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

void sb_table_free(void *p, size_t bytes)
{
	if (!p)
		return;
	if (bytes < HUGE_TABLE_BYTES)
		free(p);
	else
		munmap(p, bytes);
}
