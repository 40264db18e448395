/* SPDX-License-Identifier: MIT */
/* Shards of a campaign: every point in exactly one shard, sequences whole and in order,
 * single points round robin, the I/N syntax, another board without another hash. */
#include <criterion/criterion.h>
#include <string.h>

#include "stackbench/campaign.h"
#include "stackbench/error.h"

static struct sb_campaign c;

static void load(const char *text)
{
	cr_assert_eq(sb_campaign_load_string(&c, "s.yaml", text, strlen(text)), 0, "%s",
	             sb_error_detail());
}

static void fini(void)
{
	sb_campaign_release(&c);
}

TestSuite(shard, .fini = fini);

Test(shard, single_points_round_robin)
{
	unsigned of[64], groups = 0, count[4] = {0};

	load("sweep: {type: [ro, wo], size: [32, 64, 128], pattern: [16vault, all]}\n");
	cr_assert_eq(c.npoints, 12);
	cr_assert_eq(sb_campaign_shard_map(&c, 4, of, &groups), 0);
	cr_assert_eq(groups, 12);
	for (unsigned i = 0; i < c.npoints; i++) {
		cr_assert_eq(of[i], i % 4, "point %u in shard %u", i, of[i]);
		count[of[i]]++;
	}
	for (unsigned s = 0; s < 4; s++)
		cr_assert_eq(count[s], 3);
	/* one shard: everything */
	cr_assert_eq(sb_campaign_shard_map(&c, 1, of, NULL), 0);
	for (unsigned i = 0; i < c.npoints; i++)
		cr_assert_eq(of[i], 0);
}

/* A thermal campaign: each cooling configuration's points (idle first) in one shard, whole. */
Test(shard, thermal_sequences_whole)
{
	unsigned of[64], groups = 0;

	load("kind: thermal\n"
	     "instruments: sim\n"
	     "sweep:\n"
	     "  cooling: [Cfg1, Cfg2, Cfg3]\n"
	     "  ports: [0, all]\n"
	     "  type: [ro, wo]\n");
	cr_assert_eq(c.npoints, 12);
	cr_assert_eq(sb_campaign_shard_map(&c, 2, of, &groups), 0);
	cr_assert_eq(groups, 3);
	for (unsigned i = 0; i < c.npoints; i++) {
		/* Cfg1 -> 0, Cfg2 -> 1 (the least loaded), Cfg3 -> 0 (equal: the first) */
		unsigned want = !strcmp(c.points[i].cooling, "Cfg2") ? 1 : 0;

		cr_assert_eq(of[i], want, "point %u (%s) in shard %u", i, c.points[i].cooling,
		             of[i]);
		if (i && !strcmp(c.points[i].cooling, c.points[i - 1].cooling))
			cr_assert_eq(of[i], of[i - 1], "a sequence split at point %u", i);
	}
	/* more shards than sequences: the rest are empty */
	cr_assert_eq(sb_campaign_shard_map(&c, 5, of, &groups), 0);
	cr_assert_eq(groups, 3);
	for (unsigned i = 0; i < c.npoints; i++)
		cr_assert_lt(of[i], 3);
}

/* A thermal campaign without a cooling axis is one sequence: one shard gets it all. */
Test(shard, thermal_without_cooling_is_one_sequence)
{
	unsigned of[64], groups = 0;

	load("kind: thermal\ninstruments: sim\nsweep: {type: [ro, wo, rw], ports: [1, all]}\n");
	cr_assert_eq(sb_campaign_shard_map(&c, 3, of, &groups), 0);
	cr_assert_eq(groups, 1);
	for (unsigned i = 0; i < c.npoints; i++)
		cr_assert_eq(of[i], 0);
}

/* A bandwidth campaign that applies cooling keeps each configuration's points together
 * (it is applied and settled once). */
Test(shard, bandwidth_with_cooling_keeps_configurations)
{
	unsigned of[64], groups = 0;

	load("instruments: {cooling: \"sim:\"}\n"
	     "sweep: {cooling: [Cfg4, Cfg1], type: [ro, wo, rw]}\n");
	cr_assert_eq(sb_campaign_shard_map(&c, 2, of, &groups), 0);
	cr_assert_eq(groups, 2);
	for (unsigned i = 0; i < c.npoints; i++)
		cr_assert_eq(of[i], !strcmp(c.points[i].cooling, "Cfg1") ? 1u : 0u);
}

Test(shard, parse)
{
	unsigned i = 9, n = 9;

	cr_assert_eq(sb_campaign_shard_parse("1/4", &i, &n), 0);
	cr_assert_eq(i, 1);
	cr_assert_eq(n, 4);
	cr_assert_eq(sb_campaign_shard_parse("0/1", &i, &n), 0);
	static const char *const bad[] = {"4/4", "0/0", "a/2",   "1/",   "/2",
	                                  "1",   "",    "1/4/5", "-1/4", "0/1001"};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		cr_assert_eq(sb_campaign_shard_parse(bad[k], &i, &n), SB_ERR_INVAL, "'%s'", bad[k]);
	cr_assert_eq(sb_campaign_shard_map(&c, 0, NULL, NULL), SB_ERR_INVAL);
}

/* Another board: the points are measured elsewhere, the campaign is the same one. */
Test(shard, set_device_keeps_the_hash)
{
	char hash[17];

	load("bench: {device: \"sim:\", profile: hmc-gen2-ac510}\nsweep: {type: [ro, wo]}\n");
	memcpy(hash, c.hash, sizeof(hash));
	cr_assert_eq(sb_campaign_set_device(&c, "sim:?ports=4"), 0);
	cr_assert_str_eq(c.device[0], "sim:hmc-gen2-ac510?ports=4");
	cr_assert_eq(c.ndevices, 1);
	cr_assert_str_eq(c.hash, hash);
	cr_assert_eq(sb_campaign_set_device(&c, "nope:x"), SB_ERR_URI);
}
