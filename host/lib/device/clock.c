/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <time.h>

#include "stackbench/error.h"
#include "stackbench/transport.h"

uint64_t sb_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int sb_sleep_ns(uint64_t ns)
{
	uint64_t until = sb_monotonic_ns() + ns;
	struct timespec ts = {.tv_sec = (time_t)(until / 1000000000ull),
	                      .tv_nsec = (long)(until % 1000000000ull)};
	int rc;

	rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	if (rc == EINTR)
		return sb_error_set(SB_ERR_INTERRUPTED, "sleep interrupted by a signal");
	return rc ? sb_error_set(SB_ERR_IO, "clock_nanosleep failed (%d)", rc) : 0;
}
