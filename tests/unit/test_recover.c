/* SPDX-License-Identifier: MIT */
/*
 * The recovery sequence after a thermal failure (sb_hmc_recover) as register accesses seen by
 * the scripted fake transport: reset the cube, reset the transceivers, initialize, then wait on
 * the bench clock until the cube is ready.
 */
#include <criterion/criterion.h>

#include "fake_transport.h"
#include "sb_regmap.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/gups.h"

#define HMC SB_LAYOUT_HMC_CTRL_OFFSET

static struct fake *f;
static struct sb_device *dev;

static void setup(void)
{
	f = fake_new(SB_REGMAP_SIZE);
	cr_assert_not_null(f);
	fake_fill_regmap(f, 9);
	cr_assert_eq(sb_device_open_transport(&dev, &fake_transport_ops, f, "fake:"), 0, "%s",
	             sb_error_detail());
	f->nlog = 0;
}

static void teardown(void)
{
	sb_device_close(dev);
	fake_free(f);
}

TestSuite(recover, .init = setup, .fini = teardown);

/* Index of the first logged write to offset at or after from, or -1. */
static int write_at(uint32_t offset, unsigned from, uint64_t *value)
{
	for (unsigned i = from; i < f->nlog; i++) {
		if (f->log[i].op == FAKE_WRITE && f->log[i].offset == offset) {
			*value = f->log[i].value;
			return (int)i;
		}
	}
	return -1;
}

Test(recover, reset_cube_then_transceivers_then_init_then_wait_ready)
{
	const uint32_t status = HMC + SB_HMC_CTRL_STATUS;
	const uint32_t not_ready = SB_HMC_CTRL_STATUS_IN_RESET_MASK;
	const uint32_t busy = SB_HMC_CTRL_STATUS_INIT_BUSY_MASK;
	const uint32_t ready = SB_HMC_CTRL_STATUS_READY_MASK;
	const struct fake_step script[] = {
	    {FAKE_WRITE, HMC + SB_HMC_CTRL_RESET, SB_HMC_CTRL_RESET_CUBE_MASK},
	    {FAKE_WRITE, HMC + SB_HMC_CTRL_RESET, SB_HMC_CTRL_RESET_TRANSCEIVERS_MASK},
	    {FAKE_WRITE, HMC + SB_HMC_CTRL_CONTROL, SB_HMC_CTRL_CONTROL_INIT_MASK},
	    {FAKE_READ, status, not_ready},
	    {FAKE_READ, HMC + SB_HMC_CTRL_LINK_STATUS, 0},
	    {FAKE_READ, HMC + SB_HMC_CTRL_ADDR_MODE, 2},
	    {FAKE_READ, HMC + SB_HMC_CTRL_ERROR_RESPONSES, 0},
	    {FAKE_READ, HMC + SB_HMC_CTRL_THERMAL_EVENTS, 1},
	    {FAKE_WAIT, 0, 0},
	    {FAKE_READ, status, busy},
	    {FAKE_READ, HMC + SB_HMC_CTRL_LINK_STATUS, 0},
	    {FAKE_READ, HMC + SB_HMC_CTRL_ADDR_MODE, 2},
	    {FAKE_READ, HMC + SB_HMC_CTRL_ERROR_RESPONSES, 0},
	    {FAKE_READ, HMC + SB_HMC_CTRL_THERMAL_EVENTS, 1},
	    {FAKE_WAIT, 0, 0},
	    {FAKE_READ, status, ready},
	    {FAKE_READ, HMC + SB_HMC_CTRL_LINK_STATUS, 3},
	    {FAKE_READ, HMC + SB_HMC_CTRL_ADDR_MODE, 2},
	    {FAKE_READ, HMC + SB_HMC_CTRL_ERROR_RESPONSES, 0},
	    {FAKE_READ, HMC + SB_HMC_CTRL_THERMAL_EVENTS, 1},
	};

	f->script = script;
	f->nsteps = sizeof(script) / sizeof(script[0]);
	f->strict = true;
	cr_assert_eq(sb_hmc_recover(dev, 1000000), 0, "%s", sb_error_detail());
	cr_assert_str_empty(f->failure, "%s", f->failure);
	cr_assert_eq(f->pos, f->nsteps, "the whole sequence ran");
	cr_assert_gt(f->now_ns, 0, "waited on the bench clock");
}

Test(recover, order_of_the_register_writes)
{
	uint64_t v;
	int cube, xcvr, init;

	fake_set(f, HMC + SB_HMC_CTRL_STATUS, SB_HMC_CTRL_STATUS_READY_MASK);
	cr_assert_eq(sb_hmc_recover(dev, 1000000), 0, "%s", sb_error_detail());
	cube = write_at(HMC + SB_HMC_CTRL_RESET, 0, &v);
	cr_assert_geq(cube, 0);
	cr_assert_eq(v, SB_HMC_CTRL_RESET_CUBE_MASK, "first the cube");
	xcvr = write_at(HMC + SB_HMC_CTRL_RESET, (unsigned)cube + 1, &v);
	cr_assert_gt(xcvr, cube);
	cr_assert_eq(v, SB_HMC_CTRL_RESET_TRANSCEIVERS_MASK, "then the transceivers");
	init = write_at(HMC + SB_HMC_CTRL_CONTROL, 0, &v);
	cr_assert_gt(init, xcvr, "then initialize");
	cr_assert_eq(v, SB_HMC_CTRL_CONTROL_INIT_MASK);
}

Test(recover, a_cube_that_fails_again_is_reported)
{
	fake_set(f, HMC + SB_HMC_CTRL_STATUS, SB_HMC_CTRL_STATUS_THERMAL_FAIL_MASK);
	cr_assert_eq(sb_hmc_recover(dev, 1000000), SB_ERR_THERMAL);
	cr_assert(strstr(sb_error_detail(), "failed again"), "%s", sb_error_detail());
}

Test(recover, a_cube_that_never_gets_ready_times_out)
{
	fake_set(f, HMC + SB_HMC_CTRL_STATUS, SB_HMC_CTRL_STATUS_INIT_BUSY_MASK);
	cr_assert_eq(sb_hmc_recover(dev, 100000), SB_ERR_TIMEOUT);
	cr_assert(strstr(sb_error_detail(), "not ready"), "%s", sb_error_detail());
	cr_assert_geq(f->now_ns, 100000);
}
