/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "stackbench/bench_metrics.h"
#include "stackbench/error.h"

#define FLIT 16u

unsigned sb_read_access_bytes(unsigned size)
{
	return FLIT + (FLIT + size); /* request: header/tail; response: header/tail + data */
}

unsigned sb_write_access_bytes(unsigned size, bool posted)
{
	return (FLIT + size) + (posted ? 0 : FLIT);
}

int sb_bench_metrics(const struct sb_bench_counts *c, struct sb_bench_metrics *m)
{
	double bytes, payload, reqs;

	memset(m, 0, sizeof(*m));
	if (c->duration_ns <= 0 || c->clock_hz <= 0)
		return sb_error_set(SB_ERR_INVAL, "metrics need a positive duration and clock");
	reqs = (double)(c->reads + c->writes);
	bytes = (double)c->reads * sb_read_access_bytes(c->size) +
	        (double)c->writes * sb_write_access_bytes(c->size, c->posted);
	payload = reqs * c->size;
	m->bandwidth_gbps = bytes / c->duration_ns;
	m->payload_gbps = payload / c->duration_ns;
	m->mrps = reqs / c->duration_ns * 1e3;
	if (c->lat_count) {
		double ns_per_cycle = 1e9 / c->clock_hz;

		m->lat_min_ns = c->lat_min_cycles * ns_per_cycle;
		m->lat_max_ns = c->lat_max_cycles * ns_per_cycle;
		m->lat_avg_ns = (double)c->lat_sum_cycles / (double)c->lat_count * ns_per_cycle;
		m->occupancy = m->lat_avg_ns * (double)c->reads / c->duration_ns;
	}
	return 0;
}
