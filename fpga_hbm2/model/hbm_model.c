/* SPDX-License-Identifier: MIT */
/*
 * The HBM2 board model's public interface (sb_hbm_model.h): the register file of board 'hbm2'
 * with the behaviour of its blocks (fw_id, hbm_card, trace, hbm_replay, hbm_port, hbm_sim), time,
 * temperature.
 */
#include <stdlib.h>
#include <string.h>

#include "hbm_internal.h"
#include "sb_regmap.h"
#include "stackbench/error.h"

static const struct sb_regmap_board *find_board(void)
{
	for (unsigned i = 0; i < sb_regmap_nboards; i++)
		if (sb_regmap_boards[i].name && !strcmp(sb_regmap_boards[i].name, "hbm2"))
			return &sb_regmap_boards[i];
	return NULL;
}

static uint32_t mc_word(const struct sb_hbm_mc_config *mc)
{
	return SB_FIELD_PREP(SB_HBM_CARD_MC_CONFIG_ADDR_MAP, mc->addr_map) |
	       SB_FIELD_PREP(SB_HBM_CARD_MC_CONFIG_PAGE, mc->closed_page) |
	       SB_FIELD_PREP(SB_HBM_CARD_MC_CONFIG_REORDER, mc->reorder) |
	       SB_FIELD_PREP(SB_HBM_CARD_MC_CONFIG_REFRESH, mc->refresh) |
	       SB_FIELD_PREP(SB_HBM_CARD_MC_CONFIG_TEMP_REFRESH, mc->temp_refresh);
}

static struct sb_hbm_mc_config mc_from_word(uint32_t v)
{
	struct sb_hbm_mc_config mc = {
	    .addr_map = (uint8_t)SB_FIELD_GET(SB_HBM_SIM_MC_CONFIG_ADDR_MAP, v),
	    .closed_page = SB_FIELD_GET(SB_HBM_SIM_MC_CONFIG_PAGE, v),
	    .reorder = SB_FIELD_GET(SB_HBM_SIM_MC_CONFIG_REORDER, v),
	    .refresh = (uint8_t)SB_FIELD_GET(SB_HBM_SIM_MC_CONFIG_REFRESH, v),
	    .temp_refresh = SB_FIELD_GET(SB_HBM_SIM_MC_CONFIG_TEMP_REFRESH, v),
	};

	if (mc.addr_map > SB_HBM_MAP_RCB) /* values the map does not name read as the default */
		mc.addr_map = SB_HBM_MAP_RBC_BGI;
	if (mc.refresh > SB_HBM_REF_SINGLE_BANK)
		mc.refresh = SB_HBM_REF_ALL_BANK;
	return mc;
}

static double stack_temp(const struct sb_hbm_model *m)
{
	return m->temp_override_c > 0 ? m->temp_override_c : m->temp_c;
}

static void apply_temperature(struct sb_hbm_model *m)
{
	hbm_mem_set_hot(&m->mem, m->mem.mc.temp_refresh && stack_temp(m) > m->prof.hot_c, m->now);
}

/* A new controller configuration takes effect when no port has a burst in flight. */
static void apply_mc(struct sb_hbm_model *m)
{
	for (unsigned p = 0; p < m->nports; p++) {
		hbm_engine_sync(m, p);
		if (m->port[p].live || (m->port[p].enabled && m->port[p].t_next != SB_HBM_NEVER))
			return;
	}
	if (hbm_replay_busy(m))
		return;
	if (!memcmp(&m->mc_pending, &m->mem.mc, sizeof(m->mc_pending)))
		return;
	hbm_mem_configure(&m->mem, &m->mc_pending, m->now);
	apply_temperature(m);
}

static void port_start(struct sb_hbm_model *m, unsigned p, bool enable)
{
	apply_mc(m);
	hbm_engine_start(m, p);
	if (!enable)
		hbm_engine_enable(m, p, false);
}

/* ---- register hooks ---------------------------------------------------------------------- */

static uint64_t port_read(struct sb_hbm_model *m, unsigned i, uint32_t reg, uint64_t stored)
{
	struct hbm_port *p = &m->port[i];

	if (reg != SB_HBM_PORT_CONTROL && reg != SB_HBM_PORT_INFO)
		hbm_engine_sync(m, i);
	switch (reg) {
	case SB_HBM_PORT_STATUS:
		return hbm_engine_status(m, i);
	case SB_HBM_PORT_TXNS:
		return p->txns;
	case SB_HBM_PORT_RD_BURSTS:
		return p->rd_bursts;
	case SB_HBM_PORT_WR_BURSTS:
		return p->wr_bursts;
	case SB_HBM_PORT_RD_BYTES:
		return p->rd_bytes;
	case SB_HBM_PORT_WR_BYTES:
		return p->wr_bytes;
	case SB_HBM_PORT_ACTIVE_CYCLES:
		return hbm_engine_active_cycles(m, i);
	case SB_HBM_PORT_RD_LAT_SUM:
		return p->rd_lat_sum;
	case SB_HBM_PORT_RD_LAT_COUNT:
		return p->rd_lat_count;
	case SB_HBM_PORT_RD_LAT_MIN:
		return p->rd_lat_min;
	case SB_HBM_PORT_RD_LAT_MAX:
		return p->rd_lat_max;
	case SB_HBM_PORT_WR_LAT_SUM:
		return p->wr_lat_sum;
	case SB_HBM_PORT_WR_LAT_COUNT:
		return p->wr_lat_count;
	case SB_HBM_PORT_WR_LAT_MIN:
		return p->wr_lat_min;
	case SB_HBM_PORT_WR_LAT_MAX:
		return p->wr_lat_max;
	case SB_HBM_PORT_ERRORS:
		return p->errors;
	case SB_HBM_PORT_MISMATCHES:
		return 0; /* the model keeps no data: reads return what was written */
	case SB_HBM_PORT_IDS:
		return SB_FIELD_PREP(SB_HBM_PORT_IDS_IN_USE, hbm_engine_in_use(m, i)) |
		       SB_FIELD_PREP(SB_HBM_PORT_IDS_PEAK, p->ids_peak);
	case SB_HBM_PORT_CLS_HIT:
		return p->cls[0];
	case SB_HBM_PORT_CLS_CLOSED:
		return p->cls[1];
	case SB_HBM_PORT_CLS_MISS:
		return p->cls[2];
	default:
		break;
	}
	if (reg >= SB_HBM_PORT_HIST(0) && reg < SB_HBM_PORT_HIST(SB_HBM_PORT_HIST_COUNT))
		return p->hist[(reg - SB_HBM_PORT_HIST(0)) / SB_HBM_PORT_HIST_STRIDE];
	return stored;
}

static uint64_t card_read(struct sb_hbm_model *m, uint32_t reg, uint64_t stored)
{
	unsigned t = (unsigned)(stack_temp(m) + 0.5);

	switch (reg) {
	case SB_HBM_CARD_CYCLES:
		return m->now / m->mem.tm.cyc;
	case SB_HBM_CARD_MC_CONFIG:
		return mc_word(&m->mem.mc);
	case SB_HBM_CARD_HBM_TEMP:
		if (t > 127)
			t = 127;
		return SB_FIELD_PREP(SB_HBM_CARD_HBM_TEMP_STACK0_C, t) |
		       SB_FIELD_PREP(SB_HBM_CARD_HBM_TEMP_STACK1_C, m->prof.stacks > 1 ? t : 0);
	default:
		return stored;
	}
}

static uint64_t regs_read(void *ctx, const struct sb_hbm_regloc *l, uint64_t stored)
{
	struct sb_hbm_model *m = ctx;
	uint32_t type = sb_regmap_blocks[l->block].type,
	         reg = l->reg->offset + l->elem * l->reg->stride;

	if (type == SB_BLK_HBM_PORT_TYPE)
		return port_read(m, l->instance, reg, stored);
	if (type == SB_BLK_HBM_CARD_TYPE)
		return card_read(m, reg, stored);
	if (type == SB_BLK_TRACE_TYPE)
		return hbm_trace_read(m, reg, stored);
	if (type == SB_BLK_HBM_REPLAY_TYPE)
		return hbm_replay_read(m, reg, stored);
	if (type == SB_BLK_HBM_SIM_TYPE) {
		if (reg == SB_HBM_SIM_REQUESTS)
			return m->mem.requests;
		if (reg == SB_HBM_SIM_REFRESHES)
			return hbm_mem_refreshes(&m->mem, m->now);
	}
	return stored;
}

static void regs_write(void *ctx, const struct sb_hbm_regloc *l, uint32_t value, uint32_t pulses)
{
	struct sb_hbm_model *m = ctx;
	uint32_t type = sb_regmap_blocks[l->block].type, reg = l->reg->offset;

	if (type == SB_BLK_HBM_PORT_TYPE && reg == SB_HBM_PORT_CONTROL) {
		bool enable = value & SB_HBM_PORT_CONTROL_ENABLE_MASK;

		if (pulses & SB_HBM_PORT_CONTROL_START_MASK)
			port_start(m, l->instance, enable);
		else
			hbm_engine_enable(m, l->instance, enable);
		return;
	}
	if (type == SB_BLK_HBM_CARD_TYPE && reg == SB_HBM_CARD_CONTROL && pulses) {
		uint32_t mask = sb_hbm_regs_get32(&m->rf, m->blk_card + SB_HBM_CARD_START_MASK);

		for (unsigned p = 0; p < m->nports; p++) {
			uint32_t off = m->port[p].blk + SB_HBM_PORT_CONTROL;
			uint32_t c = sb_hbm_regs_get32(&m->rf, off);

			if (!(mask >> p & 1))
				continue;
			if (pulses & SB_HBM_CARD_CONTROL_START_MASK) {
				sb_hbm_regs_set32(&m->rf, off, c | SB_HBM_PORT_CONTROL_ENABLE_MASK);
				port_start(m, p, true);
			} else if (pulses & SB_HBM_CARD_CONTROL_STOP_MASK) {
				sb_hbm_regs_set32(&m->rf, off,
				                  c & ~SB_HBM_PORT_CONTROL_ENABLE_MASK);
				hbm_engine_enable(m, p, false);
			}
		}
		return;
	}
	if (type == SB_BLK_TRACE_TYPE) {
		hbm_trace_write(m, reg, value, pulses);
		return;
	}
	if (type == SB_BLK_HBM_REPLAY_TYPE) {
		hbm_replay_write(m, reg, value, pulses);
		return;
	}
	if (type == SB_BLK_HBM_SIM_TYPE && reg == SB_HBM_SIM_MC_CONFIG) {
		m->mc_pending = mc_from_word(value);
		apply_mc(m);
		return;
	}
	if (type == SB_BLK_HBM_SIM_TYPE && reg == SB_HBM_SIM_TEMP_C) {
		m->temp_override_c = value;
		apply_temperature(m);
	}
}

/* ---- life cycle -------------------------------------------------------------------------- */

static void identity(struct sb_hbm_model *m)
{
	struct sb_hbm_regs *rf = &m->rf;
	const struct sb_hbm_profile *p = &m->prof;
	uint32_t c = m->blk_card;

	sb_hbm_regs_set32(rf, m->blk_fw + SB_FW_ID_BUILD_ID, p->build_id);
	sb_hbm_regs_set32(rf, m->blk_fw + SB_FW_ID_REGMAP_SIZE, m->board->size);
	sb_hbm_regs_set32(rf, c + SB_HBM_CARD_BOARD_ID, p->board_id);
	sb_hbm_regs_set32(rf, c + SB_HBM_CARD_ENGINE,
	                  SB_FIELD_PREP(SB_HBM_CARD_ENGINE_KIND, SB_HBM_CARD_ENGINE_KIND_HBM2_AXI) |
	                      SB_FIELD_PREP(SB_HBM_CARD_ENGINE_PORTS, m->nports) |
	                      SB_FIELD_PREP(SB_HBM_CARD_ENGINE_STACKS, p->stacks) |
	                      SB_FIELD_PREP(SB_HBM_CARD_ENGINE_DATA_BYTES, SB_HBM_BEAT_BYTES));
	sb_hbm_regs_set32(rf, c + SB_HBM_CARD_GEOMETRY,
	                  SB_FIELD_PREP(SB_HBM_CARD_GEOMETRY_PCS, 16 * p->stacks) |
	                      SB_FIELD_PREP(SB_HBM_CARD_GEOMETRY_BANKS_PER_PC,
	                                    p->bank_groups * p->banks_per_group) |
	                      SB_FIELD_PREP(SB_HBM_CARD_GEOMETRY_BANK_GROUPS, p->bank_groups) |
	                      SB_FIELD_PREP(SB_HBM_CARD_GEOMETRY_PC_MB, p->pc_mb));
	sb_hbm_regs_set32(rf, c + SB_HBM_CARD_AXI_CLOCK_HZ, (uint32_t)p->axi_clock_hz);
	sb_hbm_regs_set32(rf, c + SB_HBM_CARD_HBM_CLOCK_HZ, (uint32_t)p->hbm_clock_hz);
	sb_hbm_regs_set32(rf, c + SB_HBM_CARD_SERIAL, p->serial);
	sb_hbm_regs_set32(
	    rf, c + SB_HBM_CARD_FEATURES,
	    SB_HBM_CARD_FEATURES_SIMULATED_MASK |
	        SB_FIELD_PREP(SB_HBM_CARD_FEATURES_GLOBAL_ADDRESSING, p->global_addressing) |
	        SB_HBM_CARD_FEATURES_CHECK_MASK);
	sb_hbm_regs_set32(rf, m->blk_sim + SB_HBM_SIM_MC_CONFIG, mc_word(&p->mc));
	for (unsigned i = 0; i < m->nports; i++)
		sb_hbm_regs_set32(
		    rf, m->port[i].blk + SB_HBM_PORT_INFO,
		    SB_FIELD_PREP(SB_HBM_PORT_INFO_INDEX, i) |
		        SB_FIELD_PREP(SB_HBM_PORT_INFO_STACK, i / 16) |
		        SB_FIELD_PREP(SB_HBM_PORT_INFO_MAX_OUTSTANDING, SB_HBM_MAX_IDS) |
		        SB_FIELD_PREP(SB_HBM_PORT_INFO_MAX_BEATS, SB_HBM_MAX_BEATS));
}

int sb_hbm_model_new(struct sb_hbm_model **out, const char *profile,
                     const struct sb_hbm_model_opt *opts, size_t nopts)
{
	struct sb_hbm_regs_hooks hooks = {regs_read, regs_write, NULL};
	struct sb_hbm_model *m;
	int err;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for the HBM2 model");
	if ((err = sb_hbm_profile_load(&m->prof, profile, opts, nopts)) < 0)
		goto fail_profile;
	m->board = find_board();
	if (!m->board) {
		err = sb_error_set(SB_ERR_STATE, "the register map has no board 'hbm2'");
		goto fail_profile;
	}
	m->nports = m->prof.ports;
	hooks.ctx = m;
	if ((err = sb_hbm_regs_init(&m->rf, m->board, SB_BLK_HBM_PORT_TYPE, m->nports, &hooks)) < 0)
		goto fail_profile;
	if ((err = hbm_mem_init(&m->mem, &m->prof, m->prof.seed)) < 0)
		goto fail_mem;
	m->blk_fw = sb_hbm_regs_offset(m->board, SB_BLK_FW_ID_TYPE, 0);
	m->blk_card = sb_hbm_regs_offset(m->board, SB_BLK_HBM_CARD_TYPE, 0);
	m->blk_sim = sb_hbm_regs_offset(m->board, SB_BLK_HBM_SIM_TYPE, 0);
	if ((err = hbm_trace_init(m)) < 0)
		goto fail_trace;
	hbm_engine_init(m);
	hbm_replay_init(m);
	for (unsigned i = 0; i < m->nports; i++)
		m->port[i].blk = sb_hbm_regs_offset(m->board, SB_BLK_HBM_PORT_TYPE, i);
	m->mc_pending = m->prof.mc;
	m->temp_c = 40.0; /* until the bench says otherwise */
	identity(m);
	*out = m;
	return 0;

fail_trace:
	hbm_mem_release(&m->mem);
fail_mem:
	sb_hbm_regs_release(&m->rf);
fail_profile:
	free(m);
	return err;
}

void sb_hbm_model_free(struct sb_hbm_model *m)
{
	if (!m)
		return;
	hbm_trace_release(m);
	hbm_mem_release(&m->mem);
	sb_hbm_regs_release(&m->rf);
	free(m);
}

const char *sb_hbm_model_profile_name(const struct sb_hbm_model *m)
{
	return m->prof.name;
}

const char *sb_hbm_model_profile_path(const struct sb_hbm_model *m)
{
	return m->prof.path;
}

int sb_hbm_model_read32(struct sb_hbm_model *m, uint32_t offset, uint32_t *value)
{
	return sb_hbm_regs_read(&m->rf, offset, value);
}

int sb_hbm_model_write32(struct sb_hbm_model *m, uint32_t offset, uint32_t value)
{
	return sb_hbm_regs_write(&m->rf, offset, value);
}

uint32_t sb_hbm_model_regspace_size(const struct sb_hbm_model *m)
{
	return m->board->size;
}

uint64_t sb_hbm_model_now_ps(const struct sb_hbm_model *m)
{
	return m->now_ps;
}

int sb_hbm_model_advance(struct sb_hbm_model *m, uint64_t dt_ps)
{
	uint64_t until;

	if (dt_ps > UINT64_MAX / 2 - m->now_ps)
		return sb_error_set(SB_ERR_RANGE,
		                    "HBM2 model: advance of %llu ps past the end of time",
		                    (unsigned long long)dt_ps);
	m->now_ps += dt_ps;
	until = (uint64_t)((unsigned __int128)m->now_ps * m->mem.tm.ticks_per_s / 1000000000000ull);
	hbm_engine_run(m, until + 1);
	m->now = until;
	return 0;
}

uint32_t sb_hbm_model_irq_pending(const struct sb_hbm_model *m)
{
	(void)m;
	return 0;
}

void sb_hbm_model_set_request_hook(struct sb_hbm_model *m, sb_hbm_request_fn fn, void *ctx)
{
	m->hook = fn;
	m->hook_ctx = ctx;
}

void sb_hbm_model_get_activity(const struct sb_hbm_model *m, struct sb_hbm_model_activity *a)
{
	memset(a, 0, sizeof(*a));
	a->reads = m->reads;
	a->writes = m->writes;
	a->read_bytes = m->read_bytes;
	a->write_bytes = m->write_bytes;
	for (unsigned p = 0; p < m->mem.npcs; p++)
		a->activates += m->mem.pc[p].activates;
	a->refreshes = hbm_mem_refreshes(&m->mem, m->now);
}

void sb_hbm_model_set_temperature(struct sb_hbm_model *m, double stack_c)
{
	m->temp_c = stack_c;
	apply_temperature(m);
}
