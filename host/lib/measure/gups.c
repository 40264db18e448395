/* SPDX-License-Identifier: MIT */
/* GUPS ports and the HMC controller, programmed through the device API. */
#include <string.h>

#include "sb_regmap.h"
#include "stackbench/error.h"
#include "stackbench/gups.h"
#include "stackbench/log.h"

static const char *const type_names[] = {"ro", "wo", "rw"};

const char *sb_req_type_name(enum sb_req_type t)
{
	return (unsigned)t < 3 ? type_names[t] : "?";
}

int sb_req_type_parse(const char *s, enum sb_req_type *t)
{
	for (unsigned i = 0; i < 3; i++) {
		if (!strcmp(s, type_names[i])) {
			*t = (enum sb_req_type)i;
			return 0;
		}
	}
	return sb_error_set(SB_ERR_INVAL, "unknown request type '%s' (expected ro, wo or rw)", s);
}

static int block(struct sb_device *dev, uint32_t type, const char *name, uint32_t *off)
{
	if (sb_device_find_block(dev, type, 0, off) < 0)
		return sb_error_set(SB_ERR_NOT_FOUND, "'%s' has no %s block", sb_device_uri(dev),
		                    name);
	return 0;
}

int sb_board_info(struct sb_device *dev, struct sb_board_info *info)
{
	uint32_t b, v;
	int err;

	memset(info, 0, sizeof(*info));
	if ((err = block(dev, SB_BLK_BOARD_TYPE, "board", &b)) < 0)
		return err;
	if ((err = sb_device_read32(dev, b + SB_BOARD_BOARD_ID, &info->board_id)) < 0 ||
	    (err = sb_device_read32(dev, b + SB_BOARD_PORT_COUNT, &info->ports)) < 0 ||
	    (err = sb_device_read32(dev, b + SB_BOARD_USER_CLOCK_HZ, &v)) < 0)
		return err;
	info->clock_hz = v;
	if ((err = sb_device_read32(dev, b + SB_BOARD_LINK_CONFIG, &v)) < 0)
		return err;
	info->links = SB_FIELD_GET(SB_BOARD_LINK_CONFIG_LINKS, v);
	info->lanes = SB_FIELD_GET(SB_BOARD_LINK_CONFIG_LANES, v);
	info->lane_rate_mbps = SB_FIELD_GET(SB_BOARD_LINK_CONFIG_LANE_RATE, v) * 100;
	if ((err = sb_device_read32(dev, b + SB_BOARD_CUBE_CONFIG, &v)) < 0)
		return err;
	info->capacity_gb = SB_FIELD_GET(SB_BOARD_CUBE_CONFIG_CAPACITY_GB, v);
	info->vaults = SB_FIELD_GET(SB_BOARD_CUBE_CONFIG_VAULTS, v);
	info->banks_per_vault = SB_FIELD_GET(SB_BOARD_CUBE_CONFIG_BANKS_PER_VAULT, v);
	info->hmc_rev = SB_FIELD_GET(SB_BOARD_CUBE_CONFIG_HMC_REV, v);
	if ((err = sb_device_read32(dev, b + SB_BOARD_FEATURES, &v)) < 0)
		return err;
	info->simulated = v & SB_BOARD_FEATURES_SIMULATED_MASK;
	if (!info->clock_hz)
		return sb_error_set(SB_ERR_DEVICE, "'%s' reports a user clock of 0 Hz",
		                    sb_device_uri(dev));
	return 0;
}

int sb_gups_port_block(struct sb_device *dev, unsigned port, uint32_t *offset)
{
	if (sb_device_find_block(dev, SB_BLK_GUPS_PORT_TYPE, port, offset) < 0)
		return sb_error_set(SB_ERR_RANGE, "'%s' has no GUPS port %u (it has %u)",
		                    sb_device_uri(dev), port, sb_device_port_count(dev));
	return 0;
}

int sb_gups_port_configure(struct sb_device *dev, unsigned port, const struct sb_port_config *c)
{
	uint32_t p, ctl;
	int err;

	if (c->size < 16 || c->size > 128 || c->size % 16)
		return sb_error_set(SB_ERR_INVAL,
		                    "request size %u B: expected 16..128 in steps of 16", c->size);
	if ((c->mask | c->antimask | c->lin_start | c->lin_end) & ~SB_ADDR_SPACE_MASK)
		return sb_error_set(SB_ERR_INVAL, "addresses and masks are 34-bit");
	if ((unsigned)c->type > SB_REQ_RW)
		return sb_error_set(SB_ERR_INVAL, "bad request type %d", c->type);
	if ((err = sb_gups_port_block(dev, port, &p)) < 0)
		return err;
	ctl = SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_TYPE, c->type) |
	      SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_MODE, c->gen == SB_GEN_LINEAR
	                                                   ? SB_GUPS_PORT_CONTROL_MODE_LINEAR
	                                                   : SB_GUPS_PORT_CONTROL_MODE_RANDOM) |
	      (c->posted ? SB_GUPS_PORT_CONTROL_POSTED_MASK : 0);
	if ((err = sb_device_write32(dev, p + SB_GUPS_PORT_CONTROL, ctl)) < 0 ||
	    (err = sb_device_write32(dev, p + SB_GUPS_PORT_REQ_SIZE,
	                             SB_FIELD_PREP(SB_GUPS_PORT_REQ_SIZE_FLITS, c->size / 16))) <
	        0 ||
	    (err = sb_device_write64(dev, p + SB_GUPS_PORT_ITER_LIMIT, c->iterations)) < 0 ||
	    (err = sb_device_write64(dev, p + SB_GUPS_PORT_ADDR_MASK, c->mask)) < 0 ||
	    (err = sb_device_write64(dev, p + SB_GUPS_PORT_ADDR_ANTIMASK, c->antimask)) < 0 ||
	    (err = sb_device_write64(dev, p + SB_GUPS_PORT_LIN_START, c->lin_start)) < 0 ||
	    (err = sb_device_write64(dev, p + SB_GUPS_PORT_LIN_END, c->lin_end)) < 0 ||
	    (err = sb_device_write32(dev, p + SB_GUPS_PORT_LIN_STEP, c->lin_step)) < 0 ||
	    (err = sb_device_write64(dev, p + SB_GUPS_PORT_LFSR_SEED, c->seed)) < 0)
		return err;
	return 0;
}

static int control(struct sb_device *dev, unsigned port, bool start)
{
	uint32_t p, ctl;
	int err;

	if ((err = sb_gups_port_block(dev, port, &p)) < 0 ||
	    (err = sb_device_read32(dev, p + SB_GUPS_PORT_CONTROL, &ctl)) < 0)
		return err;
	if (start)
		ctl |= SB_GUPS_PORT_CONTROL_ENABLE_MASK | SB_GUPS_PORT_CONTROL_START_MASK;
	else
		ctl &= ~SB_GUPS_PORT_CONTROL_ENABLE_MASK;
	return sb_device_write32(dev, p + SB_GUPS_PORT_CONTROL, ctl);
}

int sb_gups_port_start(struct sb_device *dev, unsigned port)
{
	return control(dev, port, true);
}

int sb_gups_port_stop(struct sb_device *dev, unsigned port)
{
	return control(dev, port, false);
}

int sb_gups_port_read(struct sb_device *dev, unsigned port, struct sb_port_counters *c)
{
	uint32_t p, v;
	int err;

	memset(c, 0, sizeof(*c));
	if ((err = sb_gups_port_block(dev, port, &p)) < 0 ||
	    (err = sb_device_read32(dev, p + SB_GUPS_PORT_STATUS, &c->status)) < 0 ||
	    (err = sb_device_read64(dev, p + SB_GUPS_PORT_READS, &c->reads)) < 0 ||
	    (err = sb_device_read64(dev, p + SB_GUPS_PORT_WRITES, &c->writes)) < 0 ||
	    (err = sb_device_read64(dev, p + SB_GUPS_PORT_READ_DATA, &c->read_data_flits)) < 0 ||
	    (err = sb_device_read64(dev, p + SB_GUPS_PORT_LAT_SUM, &c->lat_sum_cycles)) < 0 ||
	    (err = sb_device_read64(dev, p + SB_GUPS_PORT_LAT_COUNT, &c->lat_count)) < 0 ||
	    (err = sb_device_read32(dev, p + SB_GUPS_PORT_LAT_MIN, &c->lat_min_cycles)) < 0 ||
	    (err = sb_device_read32(dev, p + SB_GUPS_PORT_LAT_MAX, &c->lat_max_cycles)) < 0 ||
	    (err = sb_device_read32(dev, p + SB_GUPS_PORT_TAG_USAGE, &v)) < 0 ||
	    (err = sb_device_read32(dev, p + SB_GUPS_PORT_TAG_MAX_LIFE, &c->tag_max_life_cycles)) <
	        0 ||
	    (err = sb_device_read32(dev, p + SB_GUPS_PORT_LOST_TAGS, &c->lost_tags)) < 0)
		return err;
	c->tags_in_use = SB_FIELD_GET(SB_GUPS_PORT_TAG_USAGE_IN_USE, v);
	c->tag_peak = SB_FIELD_GET(SB_GUPS_PORT_TAG_USAGE_PEAK, v);
	return 0;
}

int sb_gups_port_link(struct sb_device *dev, unsigned port, unsigned *link)
{
	uint32_t p, v;
	int err;

	if ((err = sb_gups_port_block(dev, port, &p)) < 0 ||
	    (err = sb_device_read32(dev, p + SB_GUPS_PORT_INFO, &v)) < 0)
		return err;
	*link = SB_FIELD_GET(SB_GUPS_PORT_INFO_LINK, v);
	return 0;
}

int sb_gups_wait_idle(struct sb_device *dev, uint32_t port_mask, uint64_t poll_ns,
                      uint64_t timeout_ns)
{
	uint64_t waited = 0;
	int err;

	if (!poll_ns)
		poll_ns = 1000;
	for (;;) {
		bool idle = true;

		for (unsigned i = 0; i < 32 && idle; i++) {
			uint32_t p, st;

			if (!(port_mask & (1u << i)))
				continue;
			if ((err = sb_gups_port_block(dev, i, &p)) < 0 ||
			    (err = sb_device_read32(dev, p + SB_GUPS_PORT_STATUS, &st)) < 0)
				return err;
			idle = st & SB_GUPS_PORT_STATUS_IDLE_MASK;
		}
		if (idle)
			return 0;
		if (waited >= timeout_ns)
			return sb_error_set(SB_ERR_TIMEOUT,
			                    "'%s': ports still busy after %llu ns of draining",
			                    sb_device_uri(dev), (unsigned long long)waited);
		if ((err = sb_device_wait_ns(dev, poll_ns)) < 0)
			return err;
		waited += poll_ns;
	}
}

int sb_hmc_status(struct sb_device *dev, struct sb_hmc_status *st)
{
	uint32_t h, v;
	int err;

	memset(st, 0, sizeof(*st));
	if ((err = block(dev, SB_BLK_HMC_CTRL_TYPE, "hmc_ctrl", &h)) < 0 ||
	    (err = sb_device_read32(dev, h + SB_HMC_CTRL_STATUS, &v)) < 0)
		return err;
	st->ready = v & SB_HMC_CTRL_STATUS_READY_MASK;
	st->thermal_fail = v & SB_HMC_CTRL_STATUS_THERMAL_FAIL_MASK;
	st->error = v & SB_HMC_CTRL_STATUS_ERROR_MASK;
	st->init_busy = v & SB_HMC_CTRL_STATUS_INIT_BUSY_MASK;
	st->in_reset = v & SB_HMC_CTRL_STATUS_IN_RESET_MASK;
	st->errstat = SB_FIELD_GET(SB_HMC_CTRL_STATUS_ERRSTAT, v);
	if ((err = sb_device_read32(dev, h + SB_HMC_CTRL_LINK_STATUS, &st->link_up)) < 0 ||
	    (err = sb_device_read32(dev, h + SB_HMC_CTRL_ADDR_MODE, &v)) < 0)
		return err;
	st->addr_mode_bytes = 32u << SB_FIELD_GET(SB_HMC_CTRL_ADDR_MODE_BLOCK, v);
	if ((err = sb_device_read32(dev, h + SB_HMC_CTRL_ERROR_RESPONSES, &st->error_responses)) <
	        0 ||
	    (err = sb_device_read32(dev, h + SB_HMC_CTRL_THERMAL_EVENTS, &st->thermal_events)) < 0)
		return err;
	return 0;
}

int sb_hmc_reset_ports(struct sb_device *dev)
{
	uint32_t h;
	int err;

	if ((err = block(dev, SB_BLK_HMC_CTRL_TYPE, "hmc_ctrl", &h)) < 0)
		return err;
	return sb_device_write32(dev, h + SB_HMC_CTRL_RESET, SB_HMC_CTRL_RESET_PORTS_MASK);
}

int sb_hmc_set_addr_mode(struct sb_device *dev, unsigned block_bytes)
{
	uint32_t h, mode;
	int err;

	switch (block_bytes) {
	case 32:
		mode = SB_HMC_CTRL_ADDR_MODE_BLOCK_B32;
		break;
	case 64:
		mode = SB_HMC_CTRL_ADDR_MODE_BLOCK_B64;
		break;
	case 128:
		mode = SB_HMC_CTRL_ADDR_MODE_BLOCK_B128;
		break;
	default:
		return sb_error_set(SB_ERR_INVAL, "address-mapping block size %u (32, 64 or 128)",
		                    block_bytes);
	}
	if ((err = block(dev, SB_BLK_HMC_CTRL_TYPE, "hmc_ctrl", &h)) < 0)
		return err;
	return sb_device_write32(dev, h + SB_HMC_CTRL_ADDR_MODE,
	                         SB_FIELD_PREP(SB_HMC_CTRL_ADDR_MODE_BLOCK, mode));
}

int sb_hmc_set_flow_threshold(struct sb_device *dev, uint32_t requests)
{
	uint32_t h;
	int err;

	if ((err = block(dev, SB_BLK_HMC_CTRL_TYPE, "hmc_ctrl", &h)) < 0)
		return err;
	return sb_device_write32(dev, h + SB_HMC_CTRL_FLOW_THRESHOLD, requests);
}

int sb_hmc_recover(struct sb_device *dev, uint64_t timeout_ns)
{
	const uint64_t poll = 10000;
	struct sb_hmc_status st;
	uint64_t waited = 0;
	uint32_t h;
	int err;

	if ((err = block(dev, SB_BLK_HMC_CTRL_TYPE, "hmc_ctrl", &h)) < 0)
		return err;
	sb_info("'%s': recovering the cube: reset cube, reset transceivers, init",
	        sb_device_uri(dev));
	if ((err = sb_device_write32(dev, h + SB_HMC_CTRL_RESET, SB_HMC_CTRL_RESET_CUBE_MASK)) <
	        0 ||
	    (err = sb_device_write32(dev, h + SB_HMC_CTRL_RESET,
	                             SB_HMC_CTRL_RESET_TRANSCEIVERS_MASK)) < 0 ||
	    (err = sb_device_write32(dev, h + SB_HMC_CTRL_CONTROL, SB_HMC_CTRL_CONTROL_INIT_MASK)) <
	        0)
		return err;
	for (;;) {
		if ((err = sb_hmc_status(dev, &st)) < 0)
			return err;
		if (st.thermal_fail)
			return sb_error_set(SB_ERR_THERMAL,
			                    "'%s': the cube failed again during recovery",
			                    sb_device_uri(dev));
		if (st.ready && !st.init_busy)
			return 0;
		if (waited >= timeout_ns)
			return sb_error_set(SB_ERR_TIMEOUT,
			                    "'%s': cube not ready %llu ns after reset",
			                    sb_device_uri(dev), (unsigned long long)waited);
		if ((err = sb_device_wait_ns(dev, poll)) < 0)
			return err;
		waited += poll;
	}
}
