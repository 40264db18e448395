/* SPDX-License-Identifier: MIT */
/*
 * The board model: register behaviour of the AC-510 design (identity, HMC controller, resets,
 * interrupts, the simulator's own sim_ctrl block) and simulated time. The GUPS engine, links
 * and cube are in engine.c, fast-forward in ff.c.
 */
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "stackbench/error.h"
#include "stackbench/log.h"

uint64_t sb_model_cycles(const struct sb_model *m)
{
	return m->now / m->tm.cycle;
}

void sb_model_raise_irq(struct sb_model *m, uint32_t bits)
{
	uint32_t off = m->blk_irq + SB_IRQ_STATUS;

	sb_regfile_set32(&m->rf, off, sb_regfile_get32(&m->rf, off) | bits);
}

static uint64_t hmc_status(const struct sb_model *m)
{
	uint32_t v = 0;

	if (m->hmc.ready)
		v |= SB_HMC_CTRL_STATUS_READY_MASK;
	if (m->hmc.thermal_fail)
		v |= SB_HMC_CTRL_STATUS_THERMAL_FAIL_MASK;
	if (m->hmc.error)
		v |= SB_HMC_CTRL_STATUS_ERROR_MASK;
	if (m->hmc.init_busy)
		v |= SB_HMC_CTRL_STATUS_INIT_BUSY_MASK;
	if (m->hmc.in_reset)
		v |= SB_HMC_CTRL_STATUS_IN_RESET_MASK;
	v |= SB_FIELD_PREP(SB_HMC_CTRL_STATUS_ERRSTAT, m->hmc.errstat);
	return v;
}

static uint64_t hmc_read(struct sb_model *m, uint32_t reg, uint64_t stored)
{
	switch (reg) {
	case SB_HMC_CTRL_STATUS:
		return hmc_status(m);
	case SB_HMC_CTRL_LINK_STATUS:
		return m->hmc.ready ? (1u << m->prof.links) - 1 : 0;
	case SB_HMC_CTRL_CRC_ERRORS:
		return m->hmc.crc_errors;
	case SB_HMC_CTRL_LINK_RETRIES:
		return m->hmc.link_retries;
	case SB_HMC_CTRL_ERROR_RESPONSES:
		sb_engine_settle(m, m->now);
		return m->hmc.error_responses;
	case SB_HMC_CTRL_THERMAL_EVENTS:
		return m->hmc.thermal_events;
	default:
		return stored;
	}
}

static uint64_t sim_read(struct sb_model *m, uint32_t reg, uint64_t stored)
{
	switch (reg) {
	case SB_SIM_CTRL_FF_STATUS:
		return (m->st.ff_used ? SB_SIM_CTRL_FF_STATUS_USED_MASK : 0) |
		       (m->st.ff_active ? SB_SIM_CTRL_FF_STATUS_ACTIVE_MASK : 0);
	case SB_SIM_CTRL_FF_SKIPPED_NS:
		return m->st.ff_skipped_ticks / SB_TICKS_PER_PS / 1000;
	case SB_SIM_CTRL_FF_JUMPS:
		return m->st.ff_jumps;
	case SB_SIM_CTRL_REQUESTS:
		return m->st.requests;
	default:
		return stored;
	}
}

static uint64_t reg_read(void *ctx, const struct sb_regloc *l, uint64_t stored)
{
	struct sb_model *m = ctx;
	uint32_t reg = l->reg->offset;

	switch (l->block_type) {
	case SB_BLK_BOARD_TYPE:
		return reg == SB_BOARD_CYCLES ? sb_model_cycles(m) : stored;
	case SB_BLK_HMC_CTRL_TYPE:
		return hmc_read(m, reg, stored);
	case SB_BLK_IRQ_TYPE:
		if (reg == SB_IRQ_PENDING)
			return sb_model_irq_pending(m);
		return stored;
	case SB_BLK_TRACE_TYPE:
		return sb_engine_trace_read(m, l, stored);
	case SB_BLK_STREAM_TYPE:
		return sb_engine_stream_read(m, l, stored);
	case SB_BLK_REPLAY_TYPE:
		return sb_replay_read(m, l, stored);
	case SB_BLK_GUPS_PORT_TYPE:
		return sb_engine_port_read(m, l->instance, reg, stored);
	case SB_BLK_SIM_CTRL_TYPE:
		return sim_read(m, reg, stored);
	default:
		return stored;
	}
}

/* The cube or the links go down: what is in flight never comes back. */
static void links_down(struct sb_model *m)
{
	m->hmc.ready = false;
	m->hmc.in_reset = true;
	m->hmc.init_busy = false;
	sb_engine_drop_inflight(m, m->now, 0);
}

static void hmc_reset(struct sb_model *m, uint32_t pulses)
{
	bool was_failed = m->hmc.fail_tick != SB_TICK_NEVER;

	if (pulses & SB_HMC_CTRL_RESET_PORTS_MASK)
		sb_engine_ports_reset(m);
	if (pulses & (SB_HMC_CTRL_RESET_CUBE_MASK | SB_HMC_CTRL_RESET_TRANSCEIVERS_MASK)) {
		if (!was_failed)
			links_down(m);
	}
	if (pulses & SB_HMC_CTRL_RESET_CUBE_MASK) {
		sb_info("sim: cube reset at %llu ns", (unsigned long long)(m->now / 3000));
		sb_engine_cube_reset(m);
		m->hmc.thermal_fail = false;
		m->hmc.error = false;
		m->hmc.errstat = 0;
		m->hmc.ready = false;
		m->hmc.in_reset = true;
	}
	if (pulses & SB_HMC_CTRL_RESET_TRANSCEIVERS_MASK) {
		sb_info("sim: transceiver reset at %llu ns", (unsigned long long)(m->now / 3000));
		m->hmc.ready = false;
		m->hmc.in_reset = true;
	}
	if (pulses & SB_HMC_CTRL_RESET_STATS_MASK) {
		m->hmc.crc_errors = 0;
		m->hmc.link_retries = 0;
		m->hmc.error_responses = 0;
	}
	sb_engine_wake(m);
}

static void hmc_write(struct sb_model *m, uint32_t reg, uint32_t value, uint32_t pulses)
{
	switch (reg) {
	case SB_HMC_CTRL_RESET:
		hmc_reset(m, pulses);
		break;
	case SB_HMC_CTRL_CONTROL:
		if ((pulses & SB_HMC_CTRL_CONTROL_INIT_MASK) && !m->hmc.init_busy &&
		    m->hmc.fail_tick == SB_TICK_NEVER) {
			m->hmc.init_busy = true;
			m->hmc.init_done = m->now + m->prof.init_time_ps * SB_TICKS_PER_PS;
		}
		break;
	case SB_HMC_CTRL_ADDR_MODE:
		sb_cube_set_addr_mode(m, SB_FIELD_GET(SB_HMC_CTRL_ADDR_MODE_BLOCK, value));
		break;
	case SB_HMC_CTRL_FLOW_THRESHOLD:
		sb_engine_flow_update(m);
		break;
	default:
		break;
	}
}

static void sim_write(struct sb_model *m, uint32_t reg, uint32_t value, uint32_t pulses)
{
	if (reg == SB_SIM_CTRL_CONTROL) {
		m->ff.enable = value & SB_SIM_CTRL_CONTROL_FF_ENABLE_MASK;
		if (!m->ff.enable)
			m->ff.w_end = SB_TICK_NEVER;
		else
			sb_engine_ff_begin(m, m->now);
		if (pulses & SB_SIM_CTRL_CONTROL_INJECT_THERMAL_MASK)
			sb_model_thermal_failure(m);
	} else if (reg == SB_SIM_CTRL_FF_TOLERANCE_PPM) {
		m->ff.tol_ppm = value ? value : 1;
	} else if (reg == SB_SIM_CTRL_FF_WINDOW_US) {
		m->ff.base_window = (uint64_t)(value ? value : 1) * 1000000ull * SB_TICKS_PER_PS;
		if (m->ff.enable)
			sb_engine_ff_begin(m, m->now);
	}
}

static void reg_write(void *ctx, const struct sb_regloc *l, uint32_t value, uint32_t pulses)
{
	struct sb_model *m = ctx;
	uint32_t reg = l->reg->offset;

	/* The traffic may change: fast-forward measures a fresh window before jumping again. */
	if (l->block_type != SB_BLK_BOARD_TYPE && l->block_type != SB_BLK_IRQ_TYPE)
		m->ff.dirty = true;

	switch (l->block_type) {
	case SB_BLK_HMC_CTRL_TYPE:
		hmc_write(m, reg, value, pulses);
		break;
	case SB_BLK_GUPS_PORT_TYPE:
		sb_engine_port_write(m, l->instance, reg, pulses);
		break;
	case SB_BLK_STREAM_TYPE:
		sb_engine_stream_write(m, l, pulses);
		break;
	case SB_BLK_TRACE_TYPE:
		sb_engine_trace_write(m, l, value, pulses);
		break;
	case SB_BLK_REPLAY_TYPE:
		sb_replay_write(m, l, value, pulses);
		break;
	case SB_BLK_SIM_CTRL_TYPE:
		sim_write(m, reg, value, pulses);
		break;
	default:
		break;
	}
}

static void set_identity(struct sb_model *m)
{
	const struct sb_profile *p = &m->prof;
	struct sb_regfile *rf = &m->rf;
	uint32_t board = m->blk_board;

	sb_regfile_set32(rf, SB_LAYOUT_FW_ID_OFFSET + SB_FW_ID_BUILD_ID, p->build_id);
	sb_regfile_set32(rf, board + SB_BOARD_BOARD_ID, p->board_id);
	sb_regfile_set32(rf, board + SB_BOARD_PORT_COUNT, p->ports);
	sb_regfile_set32(rf, board + SB_BOARD_USER_CLOCK_HZ, (uint32_t)p->user_clock_hz);
	sb_regfile_set32(
	    rf, board + SB_BOARD_LINK_CONFIG,
	    SB_FIELD_PREP(SB_BOARD_LINK_CONFIG_LINKS, p->links) |
	        SB_FIELD_PREP(SB_BOARD_LINK_CONFIG_LANES, p->lanes) |
	        SB_FIELD_PREP(SB_BOARD_LINK_CONFIG_LANE_RATE, p->lane_rate_mbps / 100));
	sb_regfile_set32(
	    rf, board + SB_BOARD_CUBE_CONFIG,
	    SB_FIELD_PREP(SB_BOARD_CUBE_CONFIG_CAPACITY_GB, (p->capacity_mb + 1023) / 1024) |
	        SB_FIELD_PREP(SB_BOARD_CUBE_CONFIG_VAULTS, p->vaults) |
	        SB_FIELD_PREP(SB_BOARD_CUBE_CONFIG_BANKS_PER_VAULT, p->banks_per_vault) |
	        SB_FIELD_PREP(SB_BOARD_CUBE_CONFIG_HMC_REV, p->hmc_rev));
	sb_regfile_set32(rf, board + SB_BOARD_FEATURES,
	                 sb_regfile_get32(rf, board + SB_BOARD_FEATURES) |
	                     SB_BOARD_FEATURES_SIMULATED_MASK);
	sb_regfile_set32(rf, board + SB_BOARD_SERIAL, p->serial);
	for (unsigned i = 0; i < p->ports; i++) {
		uint32_t port = m->blk_port[i];
		uint32_t info = sb_regfile_get32(rf, port + SB_GUPS_PORT_INFO);

		info &= ~(SB_GUPS_PORT_INFO_INDEX_MASK | SB_GUPS_PORT_INFO_LINK_MASK);
		info |= SB_FIELD_PREP(SB_GUPS_PORT_INFO_INDEX, i) |
		        SB_FIELD_PREP(SB_GUPS_PORT_INFO_LINK, sb_engine_port_link(m, i));
		sb_regfile_set32(rf, port + SB_GUPS_PORT_INFO, info);
	}
	sb_regfile_set32(rf, m->blk_sim + SB_SIM_CTRL_FF_TOLERANCE_PPM, p->ff_tolerance_ppm);
	sb_regfile_set32(rf, m->blk_sim + SB_SIM_CTRL_FF_WINDOW_US, p->ff_window_us);
}

int sb_model_new(struct sb_model **out, const char *profile, const struct sb_model_opt *opts,
                 size_t nopts)
{
	struct sb_regfile_hooks hooks = {reg_read, reg_write, NULL};
	struct sb_model *m;
	int err;

	m = calloc(1, sizeof(*m));
	if (!m)
		return sb_error_set(SB_ERR_NOMEM, "out of memory creating the board model");
	err = sb_profile_load(&m->prof, profile, opts, nopts);
	if (err < 0)
		goto fail_profile;
	hooks.ctx = m;
	err = sb_regfile_init(&m->rf, m->prof.ports, &hooks);
	if (err < 0)
		goto fail_profile;
	m->blk_board = sb_regfile_block(&m->rf, SB_BLK_BOARD_TYPE, 0);
	m->blk_hmc = sb_regfile_block(&m->rf, SB_BLK_HMC_CTRL_TYPE, 0);
	m->blk_irq = sb_regfile_block(&m->rf, SB_BLK_IRQ_TYPE, 0);
	m->blk_trace = sb_regfile_block(&m->rf, SB_BLK_TRACE_TYPE, 0);
	m->blk_stream = sb_regfile_block(&m->rf, SB_BLK_STREAM_TYPE, 0);
	m->blk_sim = sb_regfile_block(&m->rf, SB_BLK_SIM_CTRL_TYPE, 0);
	m->blk_replay = sb_regfile_block(&m->rf, SB_BLK_REPLAY_TYPE, 0);
	for (unsigned i = 0; i < m->prof.ports; i++)
		m->blk_port[i] = sb_regfile_block(&m->rf, SB_BLK_GUPS_PORT_TYPE, i);
	err = sb_engine_init(m);
	if (err < 0)
		goto fail_engine;
	sb_replay_init(m);
	set_identity(m);
	m->hmc.ready = true;
	sb_engine_flow_update(m);
	*out = m;
	sb_dbg("sim: board model '%s' from '%s', %u ports", m->prof.name, m->prof.path,
	       m->prof.ports);
	return 0;

fail_engine:
	sb_engine_release(m);
	sb_regfile_release(&m->rf);
fail_profile:
	free(m);
	return err;
}

void sb_model_free(struct sb_model *m)
{
	if (!m)
		return;
	sb_engine_release(m);
	sb_regfile_release(&m->rf);
	free(m);
}

const char *sb_model_profile_name(const struct sb_model *m)
{
	return m->prof.name;
}

const char *sb_model_profile_path(const struct sb_model *m)
{
	return m->prof.path;
}

int sb_model_read32(struct sb_model *m, uint32_t offset, uint32_t *value)
{
	return sb_regfile_read(&m->rf, offset, value);
}

int sb_model_write32(struct sb_model *m, uint32_t offset, uint32_t value)
{
	return sb_regfile_write(&m->rf, offset, value);
}

uint32_t sb_model_regspace_size(const struct sb_model *m)
{
	return m->rf.nwords * 4;
}

uint64_t sb_model_now_ps(const struct sb_model *m)
{
	return m->now / SB_TICKS_PER_PS;
}

int sb_model_advance(struct sb_model *m, uint64_t dt_ps)
{
	uint64_t until = m->now + dt_ps * SB_TICKS_PER_PS;
	int err;

	if (m->hmc.init_busy && m->hmc.init_done <= until) {
		err = sb_engine_run(m, m->hmc.init_done);
		if (err < 0)
			return err;
		m->now = m->hmc.init_done;
		m->hmc.init_busy = false;
		m->hmc.in_reset = false;
		m->hmc.ready = true;
		sb_engine_wake(m);
	}
	err = sb_engine_run(m, until);
	if (err < 0)
		return err;
	m->now = until;
	return 0;
}

uint32_t sb_model_irq_pending(const struct sb_model *m)
{
	return sb_regfile_get32(&m->rf, m->blk_irq + SB_IRQ_STATUS) &
	       sb_regfile_get32(&m->rf, m->blk_irq + SB_IRQ_MASK);
}

int sb_model_dma_map(struct sb_model *m, void *host, size_t len, uint64_t *bus_addr)
{
	for (unsigned i = 0; i < SB_MODEL_DMA_MAX; i++) {
		if (m->dma[i].host)
			continue;
		m->dma[i].host = host;
		m->dma[i].len = len;
		/* Bus addresses: distinct, page aligned, never 0. */
		m->dma[i].bus = 0x100000000ull * (i + 1);
		*bus_addr = m->dma[i].bus;
		return 0;
	}
	return sb_error_set(SB_ERR_BUSY, "sim: all %d DMA windows in use", SB_MODEL_DMA_MAX);
}

void sb_model_dma_unmap(struct sb_model *m, uint64_t bus_addr)
{
	for (unsigned i = 0; i < SB_MODEL_DMA_MAX; i++)
		if (m->dma[i].host && m->dma[i].bus == bus_addr)
			memset(&m->dma[i], 0, sizeof(m->dma[i]));
}

void *sb_model_dma_ptr(struct sb_model *m, uint64_t bus_addr, size_t len)
{
	for (unsigned i = 0; i < SB_MODEL_DMA_MAX; i++) {
		struct sb_model_dma *d = &m->dma[i];

		if (d->host && bus_addr >= d->bus && bus_addr - d->bus <= d->len &&
		    len <= d->len - (bus_addr - d->bus))
			return (char *)d->host + (bus_addr - d->bus);
	}
	return NULL;
}

void sb_model_set_request_hook(struct sb_model *m, sb_model_request_fn fn, void *ctx)
{
	m->req_hook = fn;
	m->req_hook_ctx = ctx;
}

/* All-bank refreshes of every vault since the model started, at the rate of each period. */
static uint64_t refreshes_until(const struct sb_model *m, uint64_t now)
{
	return m->refresh_base + (now - m->refresh_t0) / sb_cube_trefi(m) * m->cube.nvaults;
}

void sb_model_get_activity(const struct sb_model *m, struct sb_model_activity *a)
{
	*a = m->act;
	a->refreshes = refreshes_until(m, m->now);
}

void sb_model_set_temperature(struct sb_model *m, double junction_c)
{
	m->temp_c = junction_c;
	bool hot = junction_c > m->prof.hot_refresh_c;

	if (hot != m->hot) {
		m->ff.dirty = true; /* the refresh rate changes */
		m->refresh_base = refreshes_until(m, m->now);
		m->refresh_t0 = m->now;
	}
	m->hot = hot;
}

void sb_model_thermal_failure(struct sb_model *m)
{
	if (m->hmc.fail_tick != SB_TICK_NEVER)
		return;
	sb_info("sim: thermal failure at %llu ns", (unsigned long long)(m->now / 3000));
	sb_engine_thermal_fail(m, m->now);
}

bool sb_model_failed(const struct sb_model *m)
{
	return m->hmc.fail_tick != SB_TICK_NEVER;
}
