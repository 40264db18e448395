/* SPDX-License-Identifier: MIT */
/*
 * The campaign engine's recovery sequence after a thermal failure (sb_thermal_recover) as the
 * register accesses and bench-clock waits a scripted fake board sees: stop the ports, cool
 * down, reset the cube, reset the transceivers, initialize; and again, cooler, when the cube
 * fails again at once.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fake_transport.h"
#include "sb_regmap.h"
#include "stackbench/campaign.h"
#include "stackbench/device.h"
#include "stackbench/error.h"

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

TestSuite(campaign_recover, .init = setup, .fini = teardown);

/* Without a camera the cool-down is a wait of cool_max_s on the bench clock. */
static const struct sb_campaign_recovery opt = {
    .cool_margin_c = 5, .cool_max_s = 3, .cooling = "strongest"};

/* The writes (and waits) of the log, in order, as "RESET=..., WAIT ..., ..." text. */
static void sequence(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < f->nlog && n < size; i++) {
		const struct fake_step *s = &f->log[i];
		const char *what = NULL;

		if (s->op == FAKE_WAIT) {
			n += (size_t)snprintf(buf + n, size - n, "wait %llu ns, ",
			                      (unsigned long long)s->value);
			continue;
		}
		if (s->op != FAKE_WRITE)
			continue;
		if (s->offset == HMC + SB_HMC_CTRL_RESET &&
		    s->value == SB_HMC_CTRL_RESET_PORTS_MASK)
			what = "reset ports";
		else if (s->offset == HMC + SB_HMC_CTRL_RESET &&
		         s->value == SB_HMC_CTRL_RESET_CUBE_MASK)
			what = "reset cube";
		else if (s->offset == HMC + SB_HMC_CTRL_RESET &&
		         s->value == SB_HMC_CTRL_RESET_TRANSCEIVERS_MASK)
			what = "reset transceivers";
		else if (s->offset == HMC + SB_HMC_CTRL_CONTROL &&
		         s->value == SB_HMC_CTRL_CONTROL_INIT_MASK)
			what = "init";
		n += (size_t)snprintf(buf + n, size - n, "%s, ", what ? what : "other write");
	}
}

Test(campaign_recover, stop_cool_reset_cube_transceivers_init)
{
	struct sb_recovery_report rep;
	char seq[512];

	fake_set(f, HMC + SB_HMC_CTRL_STATUS, SB_HMC_CTRL_STATUS_READY_MASK);
	cr_assert_eq(sb_thermal_recover(dev, NULL, &opt, NULL, 75.0, &rep), 0, "%s",
	             sb_error_detail());
	sequence(seq, sizeof(seq));
	cr_assert_str_eq(seq, "reset ports, wait 3000000000 ns, reset cube, reset transceivers, "
	                      "init, ");
	cr_assert_eq(rep.rounds, 1);
	cr_assert_float_eq(rep.cool_s, 3, 1e-12);
	cr_assert_float_eq(rep.total_s, 3, 1e-12, "the sequence ran on the bench clock");
	cr_assert_float_eq(rep.fail_c, 75.0, 1e-12);
	cr_assert(isnan(rep.target_c), "no camera, no target");
	cr_assert_str_eq(rep.steps, "ports stopped, waited 3 s (no camera), cube reset, "
	                            "transceivers reset, initialized");
	cr_assert_str_empty(rep.cooling, "no cooling actuator: nothing applied");
}

Test(campaign_recover, a_cube_still_too_hot_is_cooled_again)
{
	/* The first status read after the first init reports the failure again. */
	const struct fake_step script[] = {
	    {FAKE_READ, HMC + SB_HMC_CTRL_STATUS, SB_HMC_CTRL_STATUS_THERMAL_FAIL_MASK},
	};
	struct sb_recovery_report rep;
	char seq[512];

	f->script = script;
	f->nsteps = 1;
	fake_set(f, HMC + SB_HMC_CTRL_STATUS, SB_HMC_CTRL_STATUS_READY_MASK);
	cr_assert_eq(sb_thermal_recover(dev, NULL, &opt, NULL, NAN, &rep), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(f->pos, 1, "the failure was seen");
	sequence(seq, sizeof(seq));
	cr_assert_str_eq(seq, "reset ports, wait 3000000000 ns, reset cube, reset transceivers, "
	                      "init, reset ports, wait 3000000000 ns, reset cube, reset "
	                      "transceivers, init, ");
	cr_assert_eq(rep.rounds, 2);
	cr_assert_float_eq(rep.cool_s, 6, 1e-12);
	cr_assert(strstr(rep.steps, "initialized, ") == NULL && strstr(rep.steps, "failed again at "
	                                                                          "once"),
	          "%s", rep.steps);
}

Test(campaign_recover, gives_up_after_the_last_round)
{
	struct sb_recovery_report rep;
	unsigned cube = 0;

	fake_set(f, HMC + SB_HMC_CTRL_STATUS, SB_HMC_CTRL_STATUS_THERMAL_FAIL_MASK);
	cr_assert_eq(sb_thermal_recover(dev, NULL, &opt, NULL, 80.0, &rep), SB_ERR_THERMAL);
	cr_assert(strstr(sb_error_detail(), "failed again"), "%s", sb_error_detail());
	for (unsigned i = 0; i < f->nlog; i++)
		cube += f->log[i].op == FAKE_WRITE && f->log[i].offset == HMC + SB_HMC_CTRL_RESET &&
		        f->log[i].value == SB_HMC_CTRL_RESET_CUBE_MASK;
	cr_assert_eq(cube, SB_RECOVERY_ROUNDS, "one cube reset per round");
	cr_assert_eq(rep.rounds, SB_RECOVERY_ROUNDS);
	cr_assert_eq(f->now_ns, SB_RECOVERY_ROUNDS * 3000000000ull);
}
