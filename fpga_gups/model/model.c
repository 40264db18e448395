/* SPDX-License-Identifier: MIT */
/*
 * The board model: register behaviour of the AC-510 design and simulated time.
 */
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "stackbench/error.h"
#include "stackbench/log.h"

static uint64_t cycles_at(const struct sb_model *m, uint64_t ps)
{
	return (uint64_t)((unsigned __int128)ps * m->prof.user_clock_hz / 1000000000000ull);
}

uint64_t sb_model_cycles(const struct sb_model *m)
{
	return cycles_at(m, m->now_ps);
}

static void raise_irq(struct sb_model *m, uint32_t bits)
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

static uint64_t reg_read(void *ctx, const struct sb_regloc *l, uint64_t stored)
{
	struct sb_model *m = ctx;
	uint32_t ro = l->reg->offset;

	switch (l->block_type) {
	case SB_BLK_BOARD_TYPE:
		if (ro == SB_BOARD_CYCLES)
			return sb_model_cycles(m);
		return stored;
	case SB_BLK_HMC_CTRL_TYPE:
		switch (ro) {
		case SB_HMC_CTRL_STATUS:
			return hmc_status(m);
		case SB_HMC_CTRL_LINK_STATUS:
			return m->hmc.ready ? (1u << m->prof.links) - 1 : 0;
		case SB_HMC_CTRL_CRC_ERRORS:
			return m->hmc.crc_errors;
		case SB_HMC_CTRL_LINK_RETRIES:
			return m->hmc.link_retries;
		case SB_HMC_CTRL_ERROR_RESPONSES:
			return m->hmc.error_responses;
		case SB_HMC_CTRL_THERMAL_EVENTS:
			return m->hmc.thermal_events;
		}
		return stored;
	case SB_BLK_IRQ_TYPE:
		if (ro == SB_IRQ_PENDING)
			return sb_model_irq_pending(m);
		return stored;
	default:
		return stored;
	}
}

static void hmc_reset(struct sb_model *m, uint32_t pulses)
{
	if (pulses & SB_HMC_CTRL_RESET_CUBE_MASK) {
		sb_info("sim: cube reset");
		m->hmc.thermal_fail = false;
		m->hmc.error = false;
		m->hmc.errstat = 0;
		m->hmc.ready = false;
		m->hmc.in_reset = true;
	}
	if (pulses & SB_HMC_CTRL_RESET_TRANSCEIVERS_MASK) {
		sb_info("sim: transceiver reset");
		m->hmc.ready = false;
		m->hmc.in_reset = true;
	}
	if (pulses & SB_HMC_CTRL_RESET_STATS_MASK) {
		m->hmc.crc_errors = 0;
		m->hmc.link_retries = 0;
		m->hmc.error_responses = 0;
	}
}

static void reg_write(void *ctx, const struct sb_regloc *l, uint32_t value, uint32_t pulses)
{
	struct sb_model *m = ctx;
	uint32_t ro = l->reg->offset;

	(void)value;
	switch (l->block_type) {
	case SB_BLK_HMC_CTRL_TYPE:
		if (ro == SB_HMC_CTRL_RESET)
			hmc_reset(m, pulses);
		else if (ro == SB_HMC_CTRL_CONTROL && (pulses & SB_HMC_CTRL_CONTROL_INIT_MASK) &&
		         !m->hmc.init_busy) {
			m->hmc.init_busy = true;
			m->hmc.init_done_ps = m->now_ps + m->prof.init_time_ps;
		}
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
	    SB_FIELD_PREP(SB_BOARD_CUBE_CONFIG_CAPACITY_GB, p->capacity_gb) |
	        SB_FIELD_PREP(SB_BOARD_CUBE_CONFIG_VAULTS, p->vaults) |
	        SB_FIELD_PREP(SB_BOARD_CUBE_CONFIG_BANKS_PER_VAULT, p->banks_per_vault) |
	        SB_FIELD_PREP(SB_BOARD_CUBE_CONFIG_HMC_REV, p->hmc_rev));
	sb_regfile_set32(rf, board + SB_BOARD_FEATURES,
	                 sb_regfile_get32(rf, board + SB_BOARD_FEATURES) |
	                     SB_BOARD_FEATURES_SIMULATED_MASK);
	sb_regfile_set32(rf, board + SB_BOARD_SERIAL, p->serial);
	for (unsigned i = 0; i < p->ports; i++) {
		uint32_t port = sb_regfile_block(rf, SB_BLK_GUPS_PORT_TYPE, i);
		uint32_t info = sb_regfile_get32(rf, port + SB_GUPS_PORT_INFO);

		info &= ~(SB_GUPS_PORT_INFO_INDEX_MASK | SB_GUPS_PORT_INFO_LINK_MASK);
		info |= SB_FIELD_PREP(SB_GUPS_PORT_INFO_INDEX, i) |
		        SB_FIELD_PREP(SB_GUPS_PORT_INFO_LINK, i * p->links / p->ports);
		sb_regfile_set32(rf, port + SB_GUPS_PORT_INFO, info);
	}
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
	set_identity(m);
	m->hmc.ready = true;
	*out = m;
	sb_dbg("sim: board model '%s' from '%s', %u ports", m->prof.name, m->prof.path,
	       m->prof.ports);
	return 0;

fail_profile:
	free(m);
	return err;
}

void sb_model_free(struct sb_model *m)
{
	if (!m)
		return;
	sb_regfile_release(&m->rf);
	free(m);
}

const char *sb_model_profile_name(const struct sb_model *m)
{
	return m->prof.name;
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
	return m->now_ps;
}

int sb_model_advance(struct sb_model *m, uint64_t dt_ps)
{
	uint64_t until = m->now_ps + dt_ps;

	if (m->hmc.init_busy && m->hmc.init_done_ps <= until) {
		m->hmc.init_busy = false;
		m->hmc.in_reset = false;
		m->hmc.ready = true;
	}
	m->now_ps = until;
	return 0;
}

void sb_model_raise_irq(struct sb_model *m, uint32_t bits)
{
	raise_irq(m, bits);
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
