/* SPDX-License-Identifier: MIT */
/*
 * Campaigns rebuilt from what the store keeps (sb_campaign_load_stored): every example file and
 * a campaign using every key come back with their hash and their points, and with the board
 * and instruments changed keep their points; a stored configuration that rebuilds into
 * another campaign is refused.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/campaign.h"
#include "stackbench/error.h"

static void same_points(const struct sb_campaign *a, const struct sb_campaign *b)
{
	cr_assert_eq(a->npoints, b->npoints, "%s: %u points, rebuilt %u", a->file, a->npoints,
	             b->npoints);
	for (unsigned i = 0; i < a->npoints; i++) {
		cr_assert_str_eq(a->points[i].key, b->points[i].key, "%s point %u", a->file, i);
		cr_assert_eq(a->points[i].seed, b->points[i].seed, "%s point %u seed", a->file, i);
	}
}

/* Load, rebuild, compare; then the same on the model. */
static void round_trip(struct sb_campaign *c)
{
	/* an HBM2 card's campaign moves to another HBM2 card */
	const char *dev = c->engine == SB_ENGINE_HBM2 ? "sim:u50" : "sim:hmc-gen1?ports=4";
	struct sb_campaign_change ch = {.device = dev, .sim_instruments = true};
	struct sb_campaign r;

	cr_assert_eq(sb_campaign_load_stored(&r, "stored", c->normalized, c->hash, NULL), 0,
	             "%s: %s", c->file, sb_error_detail());
	cr_assert_str_eq(r.hash, c->hash, "%s", c->file);
	cr_assert_str_eq(r.normalized, c->normalized, "%s", c->file);
	same_points(c, &r);
	sb_campaign_release(&r);

	if (c->engine == SB_ENGINE_HBM2 && c->kind == SB_CAMPAIGN_THERMAL) {
		/* the simulated card has no instruments and no thermal model */
		cr_assert_eq(sb_campaign_load_stored(&r, "stored", c->normalized, c->hash, &ch),
		             SB_ERR_PARSE, "%s", c->file);
		cr_assert(strstr(sb_error_detail(), "the simulated card has no thermal model"),
		          "%s", sb_error_detail());
		return;
	}
	cr_assert_eq(sb_campaign_load_stored(&r, "stored", c->normalized, c->hash, &ch), 0,
	             "%s: %s", c->file, sb_error_detail());
	cr_assert_str_neq(r.hash, c->hash, "%s: another board, another hash", c->file);
	cr_assert_eq(r.ndevices, 1);
	cr_assert_str_eq(r.device[0], dev);
	for (int k = 0; k < SB_INST_COUNT; k++)
		cr_assert_str_eq(r.inst.conn[k],
		                 c->inst.conn[k][0] && c->engine != SB_ENGINE_HBM2 ? "sim:" : "",
		                 "%s instrument %d", c->file, k);
	cr_assert_eq(r.seed, c->seed);
	same_points(c, &r);
	sb_campaign_release(&r);
}

Test(campaign_stored, every_example)
{
	DIR *d = opendir(SB_EXAMPLES_DIR);
	struct dirent *e;
	unsigned n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		char path[4096];
		struct sb_campaign c;
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 5, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", SB_EXAMPLES_DIR, e->d_name);
		cr_assert_eq(sb_campaign_load(&c, path), 0, "%s: %s", path, sb_error_detail());
		round_trip(&c);
		sb_campaign_release(&c);
		n++;
	}
	closedir(d);
	cr_assert_geq(n, 8, "the examples were found");
}

Test(campaign_stored, every_key)
{
	static const char text[] =
	    "name: every\ndescription: all keys\nkind: thermal\n"
	    "bench: {device: [\"sim:\", \"sim:?ports=4\"], profile: hmc-gen2-ac510}\n"
	    "instruments: {temperature: \"sim:?roi=10,10,20,20\", power: \"sim:\"}\n"
	    "durations: {bandwidth_s: 0.5, thermal_s: 3, stream_groups: 77}\n"
	    "sample_interval_ms: 20\nseed: 18446744073709551615\nfast_forward: false\n"
	    "port_order: spread\n"
	    "sweep:\n  type: [ro, rw]\n  size: [64, 128]\n  pattern: [all, 2vault]\n"
	    "  mode: [random, linear]\n  addr_mode: [keep, 64]\n  ports: [0, 2, all]\n"
	    "  stream: 0\n  mask: {width: 3, positions: [5, 9], baseline: true}\n"
	    "  repetitions: 2\n"
	    "exclude:\n  - {type: rw, size: 64}\n"
	    "only:\n  - {mode: random}\n  - {pattern: all, mask: [none, 5]}\n"
	    "recovery: {retries: 2, cool_margin_c: 3, cool_max_s: 60, rig_fault: abort}\n"
	    "cooling_settle: {tolerance_c: 0.2, window_s: 10, max_s: 100, poll_s: 0.5}\n"
	    "trace: {burst: 64, gap: 1000, ports: \"0,3-4\", banks: true, path: onchip}\n";
	struct sb_campaign c;

	cr_assert_eq(sb_campaign_load_string(&c, "every.yaml", text, strlen(text)), 0, "%s",
	             sb_error_detail());
	round_trip(&c);
	sb_campaign_release(&c);
}

Test(campaign_stored, refuses_another_campaign)
{
	static const char text[] = "name: q\nsweep: {type: [ro, wo]}\n";
	struct sb_campaign c, r;
	char *edited, *at;

	cr_assert_eq(sb_campaign_load_string(&c, "q.yaml", text, strlen(text)), 0, "%s",
	             sb_error_detail());
	/* the stored hash is the campaign's; its configuration says something else */
	edited = strdup(c.normalized);
	at = strstr(edited, "\"wo\"");
	cr_assert_not_null(at);
	memcpy(at, "\"rw\"", 4);
	cr_assert_eq(sb_campaign_load_stored(&r, "stored", edited, c.hash, NULL), SB_ERR_MISMATCH);
	cr_assert_not_null(strstr(sb_error_detail(), "rebuilds into another campaign"), "%s",
	                   sb_error_detail());
	cr_assert_eq(sb_campaign_load_stored(&r, "stored", "[1, 2]", c.hash, NULL), SB_ERR_PARSE);
	free(edited);
	sb_campaign_release(&c);
}
