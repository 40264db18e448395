/* SPDX-License-Identifier: MIT */
/* The sim: transport serves the generated register map with its access rules. */
#include <criterion/criterion.h>
#include <string.h>

#include "sb_regmap.h"
#include "stackbench/device.h"
#include "stackbench/error.h"

static struct sb_device *dev;

static void open_sim(void)
{
	cr_assert_eq(sb_device_open(&dev, "sim:"), 0, "%s", sb_error_detail());
}

static void close_sim(void)
{
	sb_device_close(dev);
}

TestSuite(sim_regs, .init = open_sim, .fini = close_sim);

static uint32_t rd(uint32_t off)
{
	uint32_t v;

	cr_assert_eq(sb_device_read32(dev, off, &v), 0);
	return v;
}

static uint32_t port(unsigned i)
{
	uint32_t off;

	cr_assert_eq(sb_device_find_block(dev, SB_BLK_GUPS_PORT_TYPE, i, &off), 0);
	return off;
}

Test(sim_regs, identity_from_the_profile)
{
	uint32_t board, v;

	cr_assert_eq(sb_device_port_count(dev), 9);
	cr_assert_eq(sb_device_find_block(dev, SB_BLK_BOARD_TYPE, 0, &board), 0);
	cr_assert_eq(rd(board + SB_BOARD_USER_CLOCK_HZ), 187500000u);
	v = rd(board + SB_BOARD_LINK_CONFIG);
	cr_assert_eq(SB_FIELD_GET(SB_BOARD_LINK_CONFIG_LINKS, v), 2);
	cr_assert_eq(SB_FIELD_GET(SB_BOARD_LINK_CONFIG_LANES, v), 8);
	cr_assert_eq(SB_FIELD_GET(SB_BOARD_LINK_CONFIG_LANE_RATE, v), 150);
	v = rd(board + SB_BOARD_CUBE_CONFIG);
	cr_assert_eq(SB_FIELD_GET(SB_BOARD_CUBE_CONFIG_VAULTS, v), 16);
	cr_assert_eq(SB_FIELD_GET(SB_BOARD_CUBE_CONFIG_BANKS_PER_VAULT, v), 16);
	cr_assert(rd(board + SB_BOARD_FEATURES) & SB_BOARD_FEATURES_SIMULATED_MASK);
	cr_assert_eq(SB_FIELD_GET(SB_GUPS_PORT_INFO_INDEX, rd(port(7) + SB_GUPS_PORT_INFO)), 7);
}

Test(sim_regs, rw_storage_and_read_only_words)
{
	uint32_t board;
	uint64_t v;

	cr_assert_eq(sb_device_find_block(dev, SB_BLK_BOARD_TYPE, 0, &board), 0);
	cr_assert_eq(sb_device_write32(dev, board + SB_BOARD_SCRATCH, 0xA5A5F00Du), 0);
	cr_assert_eq(rd(board + SB_BOARD_SCRATCH), 0xA5A5F00Du);
	cr_assert_eq(sb_device_write32(dev, board + SB_BOARD_PORT_COUNT, 3), 0);
	cr_assert_eq(rd(board + SB_BOARD_PORT_COUNT), 9, "read-only word ignores writes");
	cr_assert_eq(sb_device_write32(dev, SB_BLK_TYPE, 0), 0);
	cr_assert_eq(rd(SB_BLK_TYPE), SB_BLK_FW_ID_TYPE, "header words are read-only");
	cr_assert_eq(sb_device_write64(dev, port(2) + SB_GUPS_PORT_ADDR_MASK, 0x3FFFF00FFull), 0);
	cr_assert_eq(sb_device_read64(dev, port(2) + SB_GUPS_PORT_ADDR_MASK, &v), 0);
	cr_assert_eq(v, 0x3FFFF00FFull);
	cr_assert_eq(sb_device_read64(dev, port(3) + SB_GUPS_PORT_ADDR_MASK, &v), 0);
	cr_assert_eq(v, SB_GUPS_PORT_ADDR_MASK_RESET, "other ports keep their reset value");
}

Test(sim_regs, pulse_bits_read_zero)
{
	uint32_t p = port(0);

	cr_assert_eq(sb_device_write32(dev, p + SB_GUPS_PORT_CONTROL,
	                               SB_GUPS_PORT_CONTROL_START_MASK |
	                                   SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_TYPE, 2)),
	             0);
	cr_assert_eq(rd(p + SB_GUPS_PORT_CONTROL), 0x20u);
}

Test(sim_regs, write_one_to_clear_and_write_only)
{
	uint32_t irq, hmc;

	cr_assert_eq(sb_device_find_block(dev, SB_BLK_IRQ_TYPE, 0, &irq), 0);
	cr_assert_eq(sb_device_find_block(dev, SB_BLK_HMC_CTRL_TYPE, 0, &hmc), 0);
	cr_assert_eq(sb_device_write32(dev, irq + SB_IRQ_STATUS, 0x1F), 0);
	cr_assert_eq(rd(irq + SB_IRQ_STATUS), 0, "w1c on clear bits leaves them clear");
	cr_assert_eq(rd(hmc + SB_HMC_CTRL_RESET), 0, "write-only reads 0");
}

Test(sim_regs, bench_clock_and_cycle_counter)
{
	uint32_t board;
	uint64_t c0, c1;

	cr_assert_eq(sb_device_find_block(dev, SB_BLK_BOARD_TYPE, 0, &board), 0);
	cr_assert_eq(sb_device_now_ns(dev), 0);
	cr_assert_eq(sb_device_read64(dev, board + SB_BOARD_CYCLES, &c0), 0);
	cr_assert_eq(sb_device_wait_ns(dev, 16000), 0);
	cr_assert_eq(sb_device_now_ns(dev), 16000);
	cr_assert_eq(sb_device_read64(dev, board + SB_BOARD_CYCLES, &c1), 0);
	cr_assert_eq(c1 - c0, 3000, "16 us at 187.5 MHz is 3000 cycles");
}

Test(sim_regs, reset_and_init_sequence)
{
	uint32_t hmc;

	cr_assert_eq(sb_device_find_block(dev, SB_BLK_HMC_CTRL_TYPE, 0, &hmc), 0);
	cr_assert(rd(hmc + SB_HMC_CTRL_STATUS) & SB_HMC_CTRL_STATUS_READY_MASK);
	cr_assert_eq(rd(hmc + SB_HMC_CTRL_LINK_STATUS), 3);
	sb_device_write32(dev, hmc + SB_HMC_CTRL_RESET,
	                  SB_HMC_CTRL_RESET_CUBE_MASK | SB_HMC_CTRL_RESET_TRANSCEIVERS_MASK);
	cr_assert_eq(rd(hmc + SB_HMC_CTRL_STATUS) & SB_HMC_CTRL_STATUS_READY_MASK, 0);
	cr_assert(rd(hmc + SB_HMC_CTRL_STATUS) & SB_HMC_CTRL_STATUS_IN_RESET_MASK);
	cr_assert_eq(rd(hmc + SB_HMC_CTRL_LINK_STATUS), 0);
	sb_device_write32(dev, hmc + SB_HMC_CTRL_CONTROL, SB_HMC_CTRL_CONTROL_INIT_MASK);
	cr_assert(rd(hmc + SB_HMC_CTRL_STATUS) & SB_HMC_CTRL_STATUS_INIT_BUSY_MASK);
	sb_device_wait_ns(dev, 500000);
	cr_assert_eq(rd(hmc + SB_HMC_CTRL_STATUS) & SB_HMC_CTRL_STATUS_READY_MASK, 0);
	sb_device_wait_ns(dev, 600000);
	cr_assert(rd(hmc + SB_HMC_CTRL_STATUS) & SB_HMC_CTRL_STATUS_READY_MASK, "ready after 1 ms");
	cr_assert_eq(rd(hmc + SB_HMC_CTRL_STATUS) & SB_HMC_CTRL_STATUS_IN_RESET_MASK, 0);
}

Test(sim_regs, out_of_range_access_fails)
{
	uint32_t v;

	cr_assert_eq(sb_device_read32(dev, SB_REGMAP_SIZE, &v), SB_ERR_RANGE);
	cr_assert_eq(v, 0xFFFFFFFFu);
	cr_assert_eq(sb_device_write32(dev, SB_REGMAP_SIZE + 4, 1), SB_ERR_RANGE);
}

Test(sim_regs, dma_buffer)
{
	struct sb_dma_buf b;

	cr_assert_eq(sb_device_dma_alloc(dev, 8192, &b), 0);
	cr_assert_not_null(b.host);
	cr_assert_neq(b.bus, 0);
	cr_assert_eq(b.len, 8192);
	sb_device_dma_free(dev, &b);
}

Test(sim_options, ports_option_and_bad_options)
{
	struct sb_device *d;

	cr_assert_eq(sb_device_open(&d, "sim:hmc-gen2-ac510?ports=4"), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_device_port_count(d), 4);
	sb_device_close(d);
	cr_assert_eq(sb_device_open(&d, "sim:?ports=12"), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "ports"), "%s", sb_error_detail());
	cr_assert_eq(sb_device_open(&d, "sim:?colour=blue"), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "unknown sim option 'colour'"), "%s",
	          sb_error_detail());
	cr_assert_eq(sb_device_open(&d, "sim:no-such-profile"), SB_ERR_NOT_FOUND);
	cr_assert_eq(sb_device_open(&d, "sim:hmc-gen1"), 0, "%s", sb_error_detail());
	sb_device_close(d);
}

Test(transports, dev_and_missing_pci_report_clearly)
{
	struct sb_device *d;

	cr_assert_eq(sb_device_open(&d, "dev:/nonexistent/stackbench0"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "'/nonexistent/stackbench0'"), "%s", sb_error_detail());
	cr_assert_eq(sb_device_open(&d, "pci:00ff:ff:1f.7"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "00ff:ff:1f.7"), "%s", sb_error_detail());
	cr_assert_eq(sb_device_open(&d, "bogus:"), SB_ERR_URI);
}
