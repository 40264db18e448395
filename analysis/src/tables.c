/* SPDX-License-Identifier: MIT */
/* Memory of the analyses' large hash tables and buffers. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "trace_internal.h"

/*
 * Zeroed, cache-line aligned table memory. From MAPPED_BYTES on a table is mapped on its own
 * and its pages are made present at once (MADV_POPULATE_WRITE, Linux 5.14): one call instead
 * of a page fault per 4 KiB page as the table is first touched, which costs several
 * microseconds each in a virtual machine. From HUGE_TABLE_BYTES on it is asked for transparent
 * huge pages as well: random probes over tens of MB otherwise miss the TLB on nearly every
 * access.
 */
#define MAPPED_BYTES (64u << 10)
#define HUGE_TABLE_BYTES (2u << 20)

void *sb_table_alloc(size_t bytes)
{
	void *p;

	if (bytes < MAPPED_BYTES) {
		if ((p = aligned_alloc(64, bytes)))
			memset(p, 0, bytes);
		return p;
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	if (bytes >= HUGE_TABLE_BYTES)
		madvise(p, bytes, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
	madvise(p, bytes, MADV_POPULATE_WRITE); /* if it fails, pages come on first touch */
#endif
	return p;
}

void sb_table_free(void *p, size_t bytes)
{
	if (!p)
		return;
	if (bytes < MAPPED_BYTES)
		free(p);
	else
		munmap(p, bytes);
}
