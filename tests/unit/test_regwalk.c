/* SPDX-License-Identifier: MIT */
/* The register-block walk of sb_device_open: good and malformed register spaces. */
#include <criterion/criterion.h>
#include <string.h>

#include "fake_transport.h"
#include "sb_regmap.h"
#include "stackbench/device.h"
#include "stackbench/error.h"

static struct fake *f;

static void setup(void)
{
	f = fake_new(SB_REGMAP_SIZE);
	cr_assert_not_null(f);
	fake_fill_regmap(f, 9);
}

static void teardown(void)
{
	fake_free(f);
}

TestSuite(regwalk, .init = setup, .fini = teardown);

static int open_fake(struct sb_device **dev)
{
	return sb_device_open_transport(dev, &fake_transport_ops, f, "fake:test");
}

Test(regwalk, finds_every_block_in_order)
{
	struct sb_device *dev;
	uint32_t off;

	cr_assert_eq(open_fake(&dev), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_device_block_count(dev), 7 + 9 + 1);
	cr_assert_eq(sb_device_port_count(dev), 9);
	cr_assert_eq(sb_device_block(dev, 0)->offset, 0);
	cr_assert_eq(sb_device_block(dev, 0)->type, SB_BLK_FW_ID_TYPE);
	cr_assert_str_eq(sb_device_block(dev, 0)->name, "fw_id");
	cr_assert_eq(sb_device_find_block(dev, SB_BLK_GUPS_PORT_TYPE, 3, &off), 0);
	cr_assert_eq(off, SB_LAYOUT_GUPS_PORT_OFFSET + 3 * SB_LAYOUT_GUPS_PORT_STRIDE);
	cr_assert_eq(sb_device_find_block(dev, SB_BLK_GUPS_PORT_TYPE, 9, &off), SB_ERR_NOT_FOUND);
	cr_assert_eq(sb_device_fw(dev)->magic, SB_REGMAP_MAGIC);
	cr_assert_eq(sb_device_fw(dev)->regmap_hash, SB_REGMAP_HASH);
	sb_device_close(dev);
	cr_assert(f->closed);
}

Test(regwalk, fewer_ports_end_the_chain)
{
	struct sb_device *dev;

	fake_free(f);
	f = fake_new(SB_REGMAP_SIZE);
	fake_fill_regmap(f, 3);
	cr_assert_eq(open_fake(&dev), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_device_port_count(dev), 3);
	sb_device_close(dev);
}

Test(regwalk, unknown_block_type_is_skipped)
{
	struct sb_device *dev;

	/* Turn the trace block into a type this host does not know. */
	fake_set(f, SB_LAYOUT_TRACE_OFFSET + SB_BLK_TYPE, 0x7777AAAAu);
	fake_set(f, SB_LAYOUT_TRACE_OFFSET + SB_BLK_VERSION, 0x00090000u);
	cr_assert_eq(open_fake(&dev), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_device_block_count(dev), 17);
	cr_assert_null(sb_device_block(dev, 4)->name);
	cr_assert_eq(sb_device_block(dev, 4)->type, 0x7777AAAAu);
	sb_device_close(dev);
}

Test(regwalk, loop_is_rejected)
{
	struct sb_device *dev = NULL;
	uint32_t last = SB_LAYOUT_SIM_CTRL_OFFSET;

	fake_set(f, last + SB_BLK_NEXT, SB_LAYOUT_BOARD_OFFSET);
	cr_assert_eq(open_fake(&dev), SB_ERR_LOOP);
	cr_assert_null(dev);
	cr_assert(strstr(sb_error_detail(), "loops"), "%s", sb_error_detail());
	cr_assert(f->closed, "transport closed on failure");
}

Test(regwalk, self_loop_is_rejected)
{
	struct sb_device *dev;

	fake_set(f, SB_LAYOUT_BOARD_OFFSET + SB_BLK_NEXT, SB_LAYOUT_BOARD_OFFSET);
	cr_assert_eq(open_fake(&dev), SB_ERR_LOOP);
}

Test(regwalk, misaligned_next_is_rejected)
{
	struct sb_device *dev;

	fake_set(f, SB_LAYOUT_BOARD_OFFSET + SB_BLK_NEXT, SB_LAYOUT_HMC_CTRL_OFFSET + 4);
	cr_assert_eq(open_fake(&dev), SB_ERR_ALIGN);
	cr_assert(strstr(sb_error_detail(), "0x204"), "%s", sb_error_detail());
}

Test(regwalk, next_outside_space_is_rejected)
{
	struct sb_device *dev;

	fake_set(f, SB_LAYOUT_BOARD_OFFSET + SB_BLK_NEXT, SB_REGMAP_SIZE);
	cr_assert_eq(open_fake(&dev), SB_ERR_RANGE);
}

Test(regwalk, bad_magic_is_rejected)
{
	struct sb_device *dev;

	fake_set(f, SB_FW_ID_MAGIC, 0xDEADBEEFu);
	cr_assert_eq(open_fake(&dev), SB_ERR_BAD_MAGIC);
	cr_assert(strstr(sb_error_detail(), "0xdeadbeef"), "%s", sb_error_detail());
}

Test(regwalk, missing_fw_id_block_is_rejected)
{
	struct sb_device *dev;

	fake_set(f, SB_BLK_TYPE, SB_BLK_BOARD_TYPE);
	cr_assert_eq(open_fake(&dev), SB_ERR_BAD_MAGIC);
}

Test(regwalk, unknown_major_version_is_rejected)
{
	struct sb_device *dev;
	uint32_t port2 = SB_LAYOUT_GUPS_PORT_OFFSET + 2 * SB_LAYOUT_GUPS_PORT_STRIDE;

	fake_set(f, port2 + SB_BLK_VERSION, SB_BLK_GUPS_PORT_VERSION + 0x00010000u);
	cr_assert_eq(open_fake(&dev), SB_ERR_VERSION);
	cr_assert(strstr(sb_error_detail(), "gups_port"), "%s", sb_error_detail());
	cr_assert(strstr(sb_error_detail(), "2.0"), "%s", sb_error_detail());
}

Test(regwalk, newer_minor_version_is_accepted)
{
	struct sb_device *dev;

	fake_set(f, SB_LAYOUT_HMC_CTRL_OFFSET + SB_BLK_VERSION, SB_BLK_HMC_CTRL_VERSION + 3);
	cr_assert_eq(open_fake(&dev), 0, "%s", sb_error_detail());
	sb_device_close(dev);
}

Test(regwalk, unknown_fw_id_major_is_rejected)
{
	struct sb_device *dev;

	fake_set(f, SB_BLK_VERSION, 0x00070000u);
	cr_assert_eq(open_fake(&dev), SB_ERR_VERSION);
}
