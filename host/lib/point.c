/* SPDX-License-Identifier: MIT */
/* A measurement point through the device API. */
#include <string.h>

#include "gups_addrgen.h"
#include "sb_regmap.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/point.h"

void sb_point_spec_init(struct sb_point_spec *s, unsigned ports)
{
	memset(s, 0, sizeof(*s));
	s->type = SB_REQ_RO;
	s->size = 128;
	s->gen = SB_GEN_RANDOM;
	s->mask = SB_ADDR_SPACE_MASK;
	s->ports = ports;
	s->duration_ns = 1000000;
	s->seed = 1;
	s->fast_forward = true;
}

static uint64_t splitmix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* Seed of port i's random generator for a point seed. */
static uint64_t port_seed(uint64_t seed, unsigned port)
{
	uint64_t s = splitmix(seed * 0x100 + port);

	return s ? s : 1;
}

static void add_counters(struct sb_port_counters *t, const struct sb_port_counters *c, bool first)
{
	t->reads += c->reads;
	t->writes += c->writes;
	t->read_data_flits += c->read_data_flits;
	t->lat_sum_cycles += c->lat_sum_cycles;
	t->lat_count += c->lat_count;
	t->tags_in_use += c->tags_in_use;
	t->lost_tags += c->lost_tags;
	if (c->tag_peak > t->tag_peak)
		t->tag_peak = c->tag_peak;
	if (c->tag_max_life_cycles > t->tag_max_life_cycles)
		t->tag_max_life_cycles = c->tag_max_life_cycles;
	if (c->lat_count) {
		if (first || !t->lat_count || c->lat_min_cycles < t->lat_min_cycles)
			t->lat_min_cycles = c->lat_min_cycles;
		if (c->lat_max_cycles > t->lat_max_cycles)
			t->lat_max_cycles = c->lat_max_cycles;
	}
	t->status |= c->status;
}

static int read_totals(struct sb_device *dev, unsigned ports, struct sb_port_counters *per,
                       struct sb_port_counters *total)
{
	int err;

	memset(total, 0, sizeof(*total));
	for (unsigned i = 0; i < ports; i++) {
		struct sb_port_counters c;

		if ((err = sb_gups_port_read(dev, i, &c)) < 0)
			return err;
		if (per)
			per[i] = c;
		add_counters(total, &c, i == 0);
	}
	return 0;
}

/* The simulator's sim_ctrl block, if the board is the simulated one. */
static int sim_block(struct sb_device *dev, uint32_t *off)
{
	return sb_device_find_block(dev, SB_BLK_SIM_CTRL_TYPE, 0, off);
}

static int set_fast_forward(struct sb_device *dev, bool on)
{
	uint32_t s, v;
	int err;

	if (sim_block(dev, &s) < 0)
		return 0;
	if ((err = sb_device_read32(dev, s + SB_SIM_CTRL_CONTROL, &v)) < 0)
		return err;
	v = on ? v | SB_SIM_CTRL_CONTROL_FF_ENABLE_MASK : v & ~SB_SIM_CTRL_CONTROL_FF_ENABLE_MASK;
	return sb_device_write32(dev, s + SB_SIM_CTRL_CONTROL, v);
}

static int read_fast_forward(struct sb_device *dev, struct sb_point_result *r)
{
	uint32_t s, v;
	int err;

	if (sim_block(dev, &s) < 0)
		return 0;
	if ((err = sb_device_read32(dev, s + SB_SIM_CTRL_FF_STATUS, &v)) < 0 ||
	    (err = sb_device_read64(dev, s + SB_SIM_CTRL_FF_SKIPPED_NS, &r->ff_skipped_ns)) < 0)
		return err;
	r->fast_forward = v & SB_SIM_CTRL_FF_STATUS_USED_MASK;
	return 0;
}

static int check_spec(const struct sb_device *dev, const struct sb_point_spec *s)
{
	unsigned have = sb_device_port_count(dev);

	if (s->size < 16 || s->size > 128 || s->size % 16)
		return sb_error_set(SB_ERR_INVAL,
		                    "request size %u B: expected 16..128 in steps of 16", s->size);
	if (!s->ports || s->ports > have || s->ports > SB_POINT_MAX_PORTS)
		return sb_error_set(SB_ERR_INVAL, "%u ports requested; the board has %u", s->ports,
		                    have);
	if (s->stream > SB_STREAM_MAX)
		return sb_error_set(SB_ERR_INVAL, "stream groups hold 1..%d requests, not %u",
		                    SB_STREAM_MAX, s->stream);
	if (s->stream && s->type == SB_REQ_RW && s->stream % 2)
		return sb_error_set(SB_ERR_INVAL,
		                    "an rw stream group writes then reads back: give an even size");
	if (!s->duration_ns && !s->iterations)
		return sb_error_set(SB_ERR_INVAL, "a point needs a duration or an iteration count");
	return 0;
}

/* Wait for the cube to be ready (after an init); fail if it is in thermal failure. */
static int ensure_ready(struct sb_device *dev)
{
	struct sb_hmc_status st;
	uint64_t waited = 0;
	int err;

	for (;;) {
		if ((err = sb_hmc_status(dev, &st)) < 0)
			return err;
		if (st.thermal_fail)
			return sb_error_set(
			    SB_ERR_THERMAL,
			    "'%s': the cube is in thermal failure; recover it first",
			    sb_device_uri(dev));
		if (st.ready)
			return 0;
		if (waited > 100000000ull)
			return sb_error_set(SB_ERR_TIMEOUT, "'%s': cube not ready",
			                    sb_device_uri(dev));
		if ((err = sb_device_wait_ns(dev, 10000)) < 0)
			return err;
		waited += 10000;
	}
}

static int configure_ports(struct sb_device *dev, const struct sb_point_spec *s)
{
	uint64_t align = sb_addrgen_align(s->size / 16);
	uint64_t region = (SB_ADDR_SPACE_MASK + 1) / s->ports / align * align;
	int err;

	for (unsigned i = 0; i < s->ports; i++) {
		struct sb_port_config c = {
		    .type = s->type,
		    .size = s->size,
		    .gen = s->gen,
		    .mask = s->mask,
		    .antimask = s->antimask,
		    .lin_start = i * region,
		    .lin_end = SB_ADDR_SPACE_MASK & ~(align - 1),
		    .lin_step = (uint32_t)align,
		    .seed = port_seed(s->seed, i),
		    .iterations = s->iterations,
		    .posted = s->posted,
		};

		if ((err = sb_gups_port_configure(dev, i, &c)) < 0)
			return err;
	}
	return 0;
}

/* GUPS traffic: start, run (sampling), stop, drain. */
static int run_gups(struct sb_device *dev, const struct sb_point_spec *s, struct sb_point_result *r)
{
	uint64_t t0, elapsed = 0, limit = s->duration_ns;
	uint32_t mask = (uint32_t)((1ull << s->ports) - 1);
	struct sb_hmc_status st;
	int err;

	if ((err = configure_ports(dev, s)) < 0)
		return err;
	t0 = sb_device_now_ns(dev);
	for (unsigned i = 0; i < s->ports; i++)
		if ((err = sb_gups_port_start(dev, i)) < 0)
			return err;
	if (!limit)
		limit = UINT64_MAX; /* iteration-limited: run until every port is done */
	while (elapsed < limit) {
		uint64_t step = s->sample_ns ? s->sample_ns : 1000000;
		bool stop = false;

		if (step > limit - elapsed)
			step = limit - elapsed;
		if ((err = sb_device_wait_ns(dev, step)) < 0)
			return err;
		elapsed = sb_device_now_ns(dev) - t0;
		if ((err = sb_hmc_status(dev, &st)) < 0)
			return err;
		if (st.thermal_fail) {
			r->failed = true;
			r->t_fail_ns = sb_device_now_ns(dev);
			stop = true;
		}
		if (s->sample) {
			struct sb_port_counters total;

			if ((err = read_totals(dev, s->ports, NULL, &total)) < 0)
				return err;
			if (s->sample(s->sample_ctx, elapsed, &total))
				stop = true;
		}
		if (s->iterations && !s->duration_ns) {
			/* Iteration-limited: done when every port reports done (reached its limit
			 * and drained). */
			bool all_done = true;

			for (unsigned i = 0; i < s->ports && all_done; i++) {
				uint32_t p, pst;

				if ((err = sb_gups_port_block(dev, i, &p)) < 0 ||
				    (err = sb_device_read32(dev, p + SB_GUPS_PORT_STATUS, &pst)) < 0)
					return err;
				all_done = pst & SB_GUPS_PORT_STATUS_DONE_MASK;
			}
			if (all_done)
				stop = true;
		}
		if (stop)
			break;
	}
	r->t_start_ns = t0;
	r->duration_ns = sb_device_now_ns(dev) - t0;
	for (unsigned i = 0; i < s->ports; i++)
		if ((err = sb_gups_port_stop(dev, i)) < 0)
			return err;
	if (!r->failed) {
		err = sb_gups_wait_idle(dev, mask, 1000, 20000000);
		if (err == SB_ERR_TIMEOUT)
			sb_warn("%s", sb_error_detail());
		else if (err < 0)
			return err;
	}
	return 0;
}

/* Stream GUPS: groups of s->stream requests on port 0 until the duration has passed. */
static int run_stream(struct sb_device *dev, const struct sb_point_spec *s,
                      struct sb_point_result *r)
{
	struct sb_port_counters *c = &r->port[0];
	struct sb_addrgen gen;
	uint32_t st, port0;
	uint64_t t0;
	bool rw = s->type == SB_REQ_RW;
	unsigned n = s->stream;
	int err;

	if ((err = sb_device_find_block(dev, SB_BLK_STREAM_TYPE, 0, &st)) < 0)
		return sb_error_set(SB_ERR_NOT_SUPPORTED, "'%s' has no stream GUPS block",
		                    sb_device_uri(dev));
	if ((err = sb_gups_port_block(dev, 0, &port0)) < 0)
		return err;
	sb_addrgen_init(&gen, s->gen == SB_GEN_LINEAR, port_seed(s->seed, 0), 0, SB_ADDR_SPACE_MASK,
	                sb_addrgen_align(s->size / 16), s->mask, s->antimask, s->size / 16);
	if ((err = sb_device_write32(dev, st + SB_STREAM_DATA_SEED, (uint32_t)s->seed)) < 0)
		return err;
	memset(c, 0, sizeof(*c));
	t0 = sb_device_now_ns(dev);
	r->t_start_ns = t0;
	do {
		uint32_t ctl, status, waited = 0;

		for (unsigned i = 0; i < n; i++) {
			bool write = s->type == SB_REQ_WO || (rw && i < n / 2);
			uint64_t addr = rw && i >= n / 2 ? 0 : sb_addrgen_next(&gen);
			uint32_t cmd;

			if (rw && i >= n / 2) {
				uint64_t a;

				if ((err = sb_device_read64(
				         dev, st + SB_STREAM_ENTRY_ADDR(i - n / 2), &a)) < 0)
					return err;
				addr = a;
			}
			cmd = (write ? SB_STREAM_ENTRY_CMD_WRITE_MASK : 0) |
			      SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_FLITS, s->size / 16);
			if ((err = sb_device_write64(dev, st + SB_STREAM_ENTRY_ADDR(i), addr)) <
			        0 ||
			    (err = sb_device_write32(dev, st + SB_STREAM_ENTRY_CMD(i), cmd)) < 0)
				return err;
		}
		ctl = SB_STREAM_CONTROL_GO_MASK | SB_FIELD_PREP(SB_STREAM_CONTROL_COUNT, n) |
		      SB_FIELD_PREP(SB_STREAM_CONTROL_PORT, 0) |
		      (rw ? SB_STREAM_CONTROL_INTEGRITY_MASK : 0);
		if ((err = sb_device_write32(dev, st + SB_STREAM_CONTROL, ctl)) < 0)
			return err;
		for (;;) {
			if ((err = sb_device_read32(dev, st + SB_STREAM_STATUS, &status)) < 0)
				return err;
			if (status & SB_STREAM_STATUS_DONE_MASK)
				break;
			if (waited > 10000000) {
				r->failed = true;
				return sb_error_set(SB_ERR_TIMEOUT,
				                    "'%s': stream group did not complete",
				                    sb_device_uri(dev));
			}
			if ((err = sb_device_wait_ns(dev, 100)) < 0)
				return err;
			waited += 100;
		}
		r->mismatches += SB_FIELD_GET(SB_STREAM_STATUS_MISMATCHES, status);
		for (unsigned i = 0; i < n; i++) {
			uint32_t cmd, lat;

			if ((err = sb_device_read32(dev, st + SB_STREAM_ENTRY_CMD(i), &cmd)) < 0 ||
			    (err = sb_device_read32(dev, st + SB_STREAM_ENTRY_LATENCY(i), &lat)) <
			        0)
				return err;
			if (cmd & SB_STREAM_ENTRY_CMD_WRITE_MASK) {
				c->writes++;
				continue;
			}
			c->reads++;
			c->read_data_flits += s->size / 16;
			if (!c->lat_count || lat < c->lat_min_cycles)
				c->lat_min_cycles = lat;
			if (lat > c->lat_max_cycles)
				c->lat_max_cycles = lat;
			c->lat_sum_cycles += lat;
			c->lat_count++;
		}
		r->stream_groups++;
	} while (s->iterations ? r->stream_groups < s->iterations
	                       : sb_device_now_ns(dev) - t0 < s->duration_ns);
	r->duration_ns = sb_device_now_ns(dev) - t0;
	(void)port0;
	return 0;
}

int sb_point_run(struct sb_device *dev, const struct sb_point_spec *s, struct sb_point_result *r)
{
	struct sb_board_info board;
	struct sb_bench_counts bc;
	int err;

	memset(r, 0, sizeof(*r));
	if ((err = check_spec(dev, s)) < 0 || (err = sb_board_info(dev, &board)) < 0 ||
	    (err = ensure_ready(dev)) < 0)
		return err;
	r->ports = s->stream ? 1 : s->ports;
	r->clock_hz = (double)board.clock_hz;
	if ((err = sb_hmc_reset_ports(dev)) < 0 ||
	    (err = set_fast_forward(dev, s->fast_forward)) < 0)
		return err;
	if (s->addr_mode_bytes && (err = sb_hmc_set_addr_mode(dev, s->addr_mode_bytes)) < 0)
		return err;
	err = s->stream ? run_stream(dev, s, r) : run_gups(dev, s, r);
	if (err < 0)
		return err;
	if (!s->stream && (err = read_totals(dev, s->ports, r->port, &r->total)) < 0)
		return err;
	if (s->stream)
		r->total = r->port[0];
	if ((err = read_fast_forward(dev, r)) < 0 || (err = sb_hmc_status(dev, &r->hmc)) < 0)
		return err;
	if (r->hmc.thermal_fail && !r->failed) {
		r->failed = true;
		r->t_fail_ns = sb_device_now_ns(dev);
	}
	bc = (struct sb_bench_counts){
	    .reads = r->total.reads,
	    .writes = r->total.writes,
	    .size = s->size,
	    .posted = s->posted,
	    .duration_ns = (double)r->duration_ns,
	    .lat_sum_cycles = r->total.lat_sum_cycles,
	    .lat_count = r->total.lat_count,
	    .lat_min_cycles = r->total.lat_min_cycles,
	    .lat_max_cycles = r->total.lat_max_cycles,
	    .clock_hz = r->clock_hz,
	};
	if (r->duration_ns)
		sb_bench_metrics(&bc, &r->metrics);
	return 0;
}
