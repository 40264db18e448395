/* SPDX-License-Identifier: MIT */
/*
 * What every trace fuzz harness does with a reader: read every record, check the invariants the
 * reader promises (subpartition in the table, kind and status in range, times within bounds and
 * in order per subpartition), and feed the records to the lifetime and locality engines, so that
 * a crafted trace reaches the arithmetic of the analyses too. A broken promise aborts (a
 * finding); an error return is a correct answer to bad input.
 */
#ifndef SB_FUZZ_COMMON_H
#define SB_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/lifetime.h"
#include "stackbench/locality.h"
#include "stackbench/log.h"
#include "stackbench/trace.h"

/* The entry point every harness defines (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void sb_fuzz_quiet(void)
{
	static int done;

	if (!done) {
		sb_log_set_level(SB_LOG_NONE);
		done = 1;
	}
}

static inline void sb_fuzz_drain(struct sb_trace_reader *r, int ordered)
{
	enum { BATCH = 256 };
	struct sb_trace_record buf[BATCH];
	static int64_t last[SB_TRACE_MAX_SUBPARTS];
	static unsigned char seen[SB_TRACE_MAX_SUBPARTS];
	struct sb_lifetime *eng = NULL;
	struct sb_locality *loc = NULL;
	struct sb_lifetime_result lres;
	struct sb_locality_result cres;
	struct sb_locality_options lo = {.max_leaves = 4, .max_regions = 16};
	int n, err = 0;

	memset(seen, 0, sizeof(seen));
	if (sb_lifetime_new(&eng, SB_POLICY_WRITE_ALLOCATE) < 0 || sb_locality_new(&loc, &lo) < 0)
		abort();
	while ((n = sb_trace_read(r, buf, BATCH)) > 0) {
		const struct sb_trace_info *info = sb_trace_reader_info(r);

		for (int i = 0; i < n; i++) {
			const struct sb_trace_record *x = &buf[i];

			if (x->subpart >= info->nsubparts || x->kind >= SB_ACC_KIND_COUNT ||
			    x->cache >= SB_CACHE_STATUS_COUNT || !sb_trace_time_ok(x->time))
				abort();
			if (ordered && seen[x->subpart] && x->time < last[x->subpart])
				abort();
			seen[x->subpart] = 1;
			last[x->subpart] = x->time;
		}
		if (!err)
			err = sb_lifetime_feed(eng, info, buf, (size_t)n);
		if (!err)
			err = sb_locality_feed(loc, info, buf, (size_t)n);
	}
	if (n == 0 && !err) {
		const struct sb_trace_info *info = sb_trace_reader_info(r);

		if (sb_lifetime_finish(eng, info, &lres) == 0) {
			for (size_t s = 0; s < lres.nsubparts; s++)
				for (size_t b = 0; b < lres.subparts[s].nbins; b++)
					if (lres.subparts[s].bins[b].ticks < 0)
						abort(); /* a lifetime is never negative */
			sb_lifetime_result_release(&lres);
		}
		if (sb_locality_finish(loc, info, &cres) == 0)
			sb_locality_result_release(&cres);
	}
	sb_lifetime_free(eng);
	sb_locality_free(loc);
}

#endif /* SB_FUZZ_COMMON_H */
