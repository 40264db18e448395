/* SPDX-License-Identifier: MIT */
/* Host code against a scripted fake: the exact accesses the device layer makes. */
#include <criterion/criterion.h>

#include "fake_transport.h"
#include "sb_regmap.h"
#include "stackbench/device.h"
#include "stackbench/error.h"

Test(fake, read64_reads_low_word_first)
{
	struct fake *f = fake_new(SB_REGMAP_SIZE);
	struct sb_device *dev;
	uint32_t p;
	uint64_t v;

	fake_fill_regmap(f, 9);
	cr_assert_eq(sb_device_open_transport(&dev, &fake_transport_ops, f, "fake:"), 0);
	cr_assert_eq(sb_device_find_block(dev, SB_BLK_GUPS_PORT_TYPE, 1, &p), 0);
	{
		const struct fake_step script[] = {
		    {FAKE_READ, p + SB_GUPS_PORT_READS_LO, 0x89ABCDEFu},
		    {FAKE_READ, p + SB_GUPS_PORT_READS_HI, 0x01234567u},
		    {FAKE_WRITE, p + SB_GUPS_PORT_LFSR_SEED_LO, 0x55667788u},
		    {FAKE_WRITE, p + SB_GUPS_PORT_LFSR_SEED_HI, 0x11223344u},
		    {FAKE_WAIT, 0, 250},
		};

		f->script = script;
		f->nsteps = 5;
		f->pos = 0;
		f->strict = true;
		cr_assert_eq(sb_device_read64(dev, p + SB_GUPS_PORT_READS, &v), 0);
		cr_assert_eq(v, 0x0123456789ABCDEFull);
		cr_assert_eq(
		    sb_device_write64(dev, p + SB_GUPS_PORT_LFSR_SEED, 0x1122334455667788ull), 0);
		cr_assert_eq(sb_device_wait_ns(dev, 250), 0);
		cr_assert_eq(sb_device_now_ns(dev), 250);
		cr_assert_eq(f->pos, 5, "whole script consumed");
		cr_assert_str_eq(f->failure, "", "%s", f->failure);
	}
	sb_device_close(dev);
	fake_free(f);
}

Test(fake, scripted_mismatch_is_reported)
{
	struct fake *f = fake_new(SB_REGMAP_SIZE);
	struct sb_device *dev;
	const struct fake_step script[] = {{FAKE_WRITE, 0x1010, 1}};

	fake_fill_regmap(f, 9);
	cr_assert_eq(sb_device_open_transport(&dev, &fake_transport_ops, f, "fake:"), 0);
	f->script = script;
	f->nsteps = 1;
	f->strict = true;
	sb_device_write32(dev, 0x1010, 2);
	cr_assert_str_neq(f->failure, "");
	sb_device_close(dev);
	fake_free(f);
}

Test(fake, wait_event_polls_the_irq_block_on_the_bench_clock)
{
	struct fake *f = fake_new(SB_REGMAP_SIZE);
	struct sb_device *dev;
	uint32_t ev;

	fake_fill_regmap(f, 9);
	cr_assert_eq(sb_device_open_transport(&dev, &fake_transport_ops, f, "fake:"), 0);
	cr_assert_eq(sb_device_wait_event(dev, SB_IRQ_STATUS_THERMAL_MASK, 10000, &ev),
	             SB_ERR_TIMEOUT);
	cr_assert_eq(sb_device_now_ns(dev), 10000, "waited exactly the timeout");
	fake_set(f, SB_LAYOUT_IRQ_OFFSET + SB_IRQ_STATUS,
	         SB_IRQ_STATUS_THERMAL_MASK | SB_IRQ_STATUS_TRACE_READY_MASK);
	cr_assert_eq(sb_device_wait_event(dev, SB_IRQ_STATUS_THERMAL_MASK, 10000, &ev), 0);
	cr_assert_eq(ev, SB_IRQ_STATUS_THERMAL_MASK);
	sb_device_close(dev);
	fake_free(f);
}
