/* SPDX-License-Identifier: MIT */
/*
 * The board model's engine: the event machinery that drives the GUPS ports (ports.c) and the
 * memory family behind them (hmc.h), family-neutral.
 *
 * The engine is a discrete-event model that does little per request. Ports are visited in
 * order of the time they next have something to do (a scan of at most 9 ports). When a port
 * issues a request, the request's whole path is reserved at once on resources that remember
 * when they are next free (a "next free" time where requests reach the resource in time order)
 * or on calendars (calendar.h) where they reach it out of order. The request's completion time
 * at the port is known when it is issued; the port retires completions lazily, in time order,
 * when it next looks at them.
 *
 * Files: timebase.h (ticks, dividers), calendar.[ch] (slotted reservations), engine.c (this:
 * the run loop, set-up, failure and reset), ports.c (GUPS ports), stream.c (stream GUPS and the
 * memory contents it checks), trace.c (trace capture), ff.c (steady-state fast-forward),
 * replay.c (trace replay), and the HMC family: hmc_link.c (the FPGA's HMC controller, links,
 * logic die, crossbar, the request path) and hmc_vault.c (vault controllers, DRAM).
 *
 * See docs/model.md for what is modelled, the parameters and what is left out.
 */
#include <stdlib.h>

#include "model_internal.h"
#include "stackbench/error.h"

void sb_engine_thermal_fail(struct sb_model *m, uint64_t tick)
{
	if (m->hmc.fail_tick != SB_TICK_NEVER)
		return;
	m->hmc.fail_tick = tick;
	m->hmc.thermal_fail = true;
	m->hmc.error = true;
	m->hmc.errstat = SB_HMC_ERRSTAT_THERMAL;
	m->hmc.thermal_events++;
	sb_model_raise_irq(m, SB_IRQ_STATUS_THERMAL_MASK | SB_IRQ_STATUS_LINK_ERROR_MASK);
	sb_engine_drop_inflight(m, tick, sb_cube_fail_announce(m));
}

void sb_engine_cube_reset(struct sb_model *m)
{
	m->hmc.fail_tick = SB_TICK_NEVER;
	/* DRAM contents are lost: never-written blocks read new power-up garbage. */
	sb_mem_clear(&m->mem, m->mem.power_seed * 2654435761u + 0x9E3779B9u);
	sb_cube_reset(m);
}

/* ---- running ---------------------------------------------------------------------------- */

static void ports_done_irq(struct sb_model *m)
{
	bool any = false;

	for (unsigned i = 0; i < m->nports; i++) {
		const struct sb_port *p = &m->port[i];

		if (!p->started || !p->enabled)
			continue;
		if (!p->iter_limit || p->iters < p->iter_limit || p->ndone || p->nwb)
			return;
		any = true;
	}
	if (any)
		sb_model_raise_irq(m, SB_IRQ_STATUS_PORTS_DONE_MASK);
}

/* The port with the earliest next time (ties: the lowest port number), or NULL. */
static struct sb_port *next_port(struct sb_model *m)
{
	unsigned bi = m->port_win[1];

	return m->port_next[bi] == SB_TICK_NEVER ? NULL : &m->port[bi];
}

/* Calendars forget the past (nothing is reserved before the present). */
static void calendars_advance(struct sb_model *m, uint64_t now)
{
	for (unsigned i = 0; i < m->nports; i++)
		sb_cal_advance(&m->port[i].rx, sb_div(&m->tm.div_cycle, now));
	sb_cube_advance(m, now);
}

void sb_engine_wake(struct sb_model *m)
{
	for (unsigned i = 0; i < m->nports; i++)
		sb_port_schedule(m, &m->port[i]);
}

int sb_engine_run(struct sb_model *m, uint64_t until)
{
	uint64_t next_advance = m->now;

	sb_engine_ff_resume(m, m->now, until);
	for (;;) {
		struct sb_port *p = next_port(m);

		if (!p || p->t_next >= until)
			break;
		if (m->ff.enable && m->ff.w_end != SB_TICK_NEVER && p->t_next >= m->ff.w_end) {
			sb_engine_ff_try(m, m->ff.w_end, until);
			continue;
		}
		if (p->t_next >= next_advance) {
			calendars_advance(m, p->t_next);
			next_advance = p->t_next + sb_cube_advance_period(m);
		}
		sb_port_step(m, p);
		if (m->fault[0])
			return sb_error_set(SB_ERR_STATE, "%s", m->fault);
	}
	ports_done_irq(m);
	return 0;
}

int sb_engine_init(struct sb_model *m)
{
	const struct sb_profile *pr = &m->prof;
	int err;

	m->tm.cycle = (uint64_t)(1e12 * SB_TICKS_PER_PS / (double)pr->user_clock_hz + 0.5);
	m->tm.cmd_cycles = pr->port_cmd_cycles;
	sb_divider_init(&m->tm.div_cycle, m->tm.cycle);
	m->nports = pr->ports;
	m->hmc.fail_tick = SB_TICK_NEVER;
	err = sb_cube_init(m);
	if (err)
		return err;
	err = sb_ports_init(m);
	if (err)
		return err;
	m->trace.onchip_depth = SB_TRACE_ONCHIP_DEPTH_RESET;
	m->trace.onchip = calloc(m->trace.onchip_depth, SB_TRACE_RECORD_BYTES);
	if (!m->trace.onchip)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for the trace buffer");
	m->trace.burst_len = SB_TRACE_BURST_LEN_RESET;
	m->trace.port_mask = SB_TRACE_PORT_MASK_RESET;
	m->mem.power_seed = (uint32_t)(pr->seed ^ (pr->seed >> 32)) ^ 0xA5A5A5A5u;
	m->ff.enable = true;
	m->ff.base_window = (uint64_t)pr->ff_window_us * 1000000ull * SB_TICKS_PER_PS;
	m->ff.warmup = (uint64_t)pr->ff_warmup_us * 1000000ull * SB_TICKS_PER_PS;
	m->ff.window = m->ff.base_window;
	m->ff.tol_ppm = pr->ff_tolerance_ppm;
	m->ff.need = pr->ff_windows;
	m->ff.w_end = SB_TICK_NEVER;
	return 0;
}

void sb_engine_release(struct sb_model *m)
{
	sb_cube_release(m);
	sb_ports_release(m);
	free(m->trace.onchip);
	m->trace.onchip = NULL;
	sb_mem_clear(&m->mem, 0);
}
