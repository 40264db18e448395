/* SPDX-License-Identifier: MIT */
/*
 * An HBM2 card's campaign file (docs/campaigns.md, "HBM2 campaigns"): the engine found from the
 * devices or bench.engine, the HBM2 axes checked and expanded into each point's engine
 * settings, every refusal naming the file, line and key, and GUPS campaigns' content hashes
 * unchanged (so that campaigns started before HBM2 campaigns existed still resume).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "stackbench/campaign.h"
#include "stackbench/error.h"

static struct sb_campaign c;

static int load(const char *text)
{
	return sb_campaign_load_string(&c, "h.yaml", text, strlen(text));
}

static void fini(void)
{
	sb_campaign_release(&c);
}

TestSuite(hbm_campaign, .fini = fini);

/* The refusal of text: SB_ERR_PARSE and a detail containing want. */
static void refused(const char *text, const char *want)
{
	int e = load(text);

	cr_assert_eq(e, SB_ERR_PARSE, "accepted (%d): %s", e, text);
	cr_assert(strstr(sb_error_detail(), want), "'%s' lacks '%s'", sb_error_detail(), want);
}

Test(hbm_campaign, axes_expand_into_engine_settings)
{
	const struct sb_campaign_point *p;
	struct sb_hbm_spec s;

	cr_assert_eq(load("bench: {device: \"sim:u280\"}\n"
	                  "durations: {warmup_us: 5, window_us: 50}\n"
	                  "sweep:\n"
	                  "  policy: [keep, rcb]\n"
	                  "  page: closed\n"
	                  "  refresh: single_bank\n"
	                  "  temp: [keep, 90]\n"
	                  "  target: [local, shift4]\n"
	                  "  ports: [all, 4, \"0-1,8\"]\n"
	                  "  op: mix\n"
	                  "  mix: 64\n"
	                  "  burst: {from: 32, to: 96}\n"
	                  "  stride: 0\n"
	                  "  outstanding: [1, 64]\n"),
	             0, "%s", sb_error_detail());
	cr_assert_eq(c.engine, SB_ENGINE_HBM2, "sim:u280 is an HBM2 card");
	cr_assert_eq(c.npoints, 2 * 2 * 2 * 3 * 3 * 2);
	cr_assert(strstr(c.normalized, "\"engine\":\"hbm2\""), "%s", c.normalized);
	cr_assert_null(strstr(c.normalized, "\"size\""), "no GUPS axes: %s", c.normalized);
	/* expansion order: ..., ports, temp, ..., policy, target, ..., burst, ..., outstanding */
	p = &c.points[0];
	cr_assert_str_eq(p->key, "cooling=none rep=0 temp=keep refresh=single_bank page=closed "
	                         "policy=keep target=local ports=all op=mix mix=64 mode=linear "
	                         "burst=32 stride=0 ws=0 outstanding=1");
	cr_assert_eq(p->hbm.port_mask, 0);
	cr_assert_eq(p->hbm.rw, SB_HBM_RW_MIX);
	cr_assert_eq(p->hbm.mix_writes, 64);
	cr_assert_eq(p->hbm.random, false, "an HBM2 campaign walks linearly unless told");
	cr_assert_eq(p->hbm.burst, 32);
	cr_assert_eq(p->hbm.outstanding, 1);
	cr_assert_eq(p->hbm.addr_map, -1);
	cr_assert_eq(p->hbm.closed_page, 1);
	cr_assert_eq(p->hbm.refresh, 1);
	cr_assert_eq(p->hbm.temp_c, 0);
	cr_assert_eq(p->hbm.target.kind, SB_HBM_TARGET_LOCAL);
	p = &c.points[c.npoints - 1];
	cr_assert_eq(p->hbm.port_mask, 0x103u, "0-1,8");
	cr_assert_str_eq(p->port_set, "0-1,8");
	cr_assert_eq(p->hbm.temp_c, 90);
	cr_assert_eq(p->hbm.addr_map, 3, "rcb");
	cr_assert_eq(p->hbm.target.kind, SB_HBM_TARGET_SHIFT);
	cr_assert_eq(p->hbm.target.shift, 4);
	cr_assert_eq(p->hbm.burst, 96);
	cr_assert_eq(p->hbm.outstanding, 64);
	cr_assert_eq(c.points[48].hbm.port_mask, 0xF, "ports 4: ports 0..3");
	/* the spec adds the durations and a seed of the point's */
	sb_campaign_hbm_spec(&c, p, &s);
	cr_assert_eq(s.warmup_ns, 5000);
	cr_assert_eq(s.duration_ns, 50000);
	cr_assert_neq(s.seed, 0);
	cr_assert_neq(c.points[0].seed, c.points[1].seed);
}

Test(hbm_campaign, engine_from_devices_or_bench_engine)
{
	cr_assert_eq(load("bench: {device: \"sim:\", profile: u55c}\n"), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(c.engine, SB_ENGINE_HBM2, "the profile names an HBM2 card");
	cr_assert_str_eq(c.device[0], "sim:u55c");
	sb_campaign_release(&c);
	cr_assert_eq(load("bench: {device: \"pci:0000:3b:00.0?bar=2\", engine: hbm2}\n"
	                  "sweep: {burst: 64}\n"),
	             0, "%s", sb_error_detail());
	cr_assert_eq(c.engine, SB_ENGINE_HBM2);
	sb_campaign_release(&c);
	cr_assert_eq(load("bench: {device: \"sim:\"}\n"), 0, "%s", sb_error_detail());
	cr_assert_eq(c.engine, SB_ENGINE_GUPS);
}

/* an HBM2 card's thermal campaign with its sensor, without its limit (line 2: kind) */
#define HBM_THERMAL                                                                                \
	"bench: {device: \"sim:u280\"}\nkind: thermal\n"                                           \
	"instruments: {temperature: \"sensors:xclmgmt-*?feature=hbm_temp\"}\n"

Test(hbm_campaign, refusals_name_file_line_and_key)
{
	refused("bench: {device: \"sim:u280\"}\nsweep:\n  burst: 64\n  pattern: 1bank\n",
	        "'h.yaml' line 4: key 'pattern': an axis of the GUPS engine");
	refused("bench: {device: \"sim:\"}\nsweep:\n  stride: 64\n",
	        "'h.yaml' line 3: key 'stride': an axis of an HBM2 card's engine");
	refused("bench: {device: \"sim:u280\"}\nexclude:\n  - {type: ro}\n",
	        "line 3: key 'type': an axis of the GUPS engine");
	refused("bench: {device: [\"sim:u280\", \"sim:\"]}\n",
	        "line 1: key 'device': 'sim:' carries the GUPS engine, but the campaign's is hbm2");
	refused("bench: {device: \"sim:\", engine: hbm2}\n", "(bench.engine)");
	refused("bench: {device: \"sim:\"}\ndurations: {window_us: 100}\n",
	        "line 2: key 'window_us': a duration of an HBM2 card's points");
	refused("bench: {device: \"sim:u280\"}\nsweep: {burst: 100}\n",
	        "key 'burst': 100 B: expected 32..4096 in steps of 32");
	refused("bench: {device: \"sim:u280\"}\nsweep: {stride: 48}\n", "key 'stride': 48 B");
	refused("bench: {device: \"sim:u280\"}\nsweep: {outstanding: 65}\n",
	        "key 'outstanding': 65: expected 1..64");
	refused("bench: {device: \"sim:u280\"}\nsweep: {mix: 257}\n", "key 'mix': 257");
	refused("bench: {device: \"sim:u280\"}\nsweep: {temp: 200}\n", "key 'temp': 200 C");
	refused("bench: {device: \"sim:u280\"}\nsweep: {ports: 0}\n", "key 'ports': 0:");
	refused("bench: {device: \"sim:u280\"}\nsweep: {ports: \"3-1\"}\n", "port set '3-1'");
	refused("bench: {device: \"sim:u280\"}\nsweep: {target: shift16}\n", "key 'target'");
	refused("bench: {device: \"sim:u280\"}\nsweep: {policy: rbcc}\n", "key 'policy'");
	refused("bench: {device: \"sim:u280\"}\nsweep: {op: ro}\n", "key 'op'");
	/* thermal campaigns on a card: its sensor and a limit; no AC-510 bench keys */
	refused("bench: {device: \"sim:u280\"}\nkind: thermal\n",
	        "line 2: key 'kind': a thermal campaign on an HBM2 card reads the card's "
	        "temperature sensor, and the campaign names none (the simulated card has no "
	        "thermal model");
	refused("bench: {device: \"sim:u280\"}\nkind: thermal\n",
	        "instruments: {temperature: "
	        "\"sensors:CHIP?feature=hbm_temp\"}");
	refused("bench: {device: \"pci:0000:3b:00.0?bar=2\", engine: hbm2}\nkind: thermal\n",
	        "the campaign names none: give instruments");
	refused(HBM_THERMAL, "line 2: key 'recovery.limit_c': a thermal campaign on an HBM2 card "
	                     "needs a temperature limit");
	refused(
	    HBM_THERMAL "recovery: {limit_c: 80, resume_c: 85}\n",
	    "line 4: key 'resume_c': the cool-down's end (85.0 C) must be below the limit 80.0 C");
	refused(HBM_THERMAL "recovery: {limit_c: 80, cooling: Cfg1}\n",
	        "line 4: key 'cooling': the AC-510 bench's cooling rig; an HBM2 card has none");
	refused(HBM_THERMAL "recovery: {limit_c: 80}\nsweep: {cooling: [Cfg1]}\n",
	        "line 5: key 'cooling': configuration 'Cfg1' is the AC-510 bench's");
	refused(
	    "bench: {device: \"sim:u280?bench=ac510-lab\"}\n",
	    "line 1: key 'device': 'sim:u280?bench=ac510-lab': sim option 'bench' is the AC-510 "
	    "bench's");
	refused(HBM_THERMAL "recovery: {limit_c: 80}\ncooling_settle: {window_s: 5}\n",
	        "line 5: key 'cooling_settle': the AC-510 bench's cooling rig");
	refused("bench: {device: \"sim:u280\"}\nrecovery: {limit_c: 80}\n",
	        "line 2: key 'limit_c': the temperature limit of an HBM2 card's thermal campaign "
	        "(kind: thermal on an HBM2 card); this is a bandwidth campaign");
	refused("kind: thermal\nrecovery: {limit_c: 80}\n",
	        "key 'limit_c': the temperature limit of an HBM2 card's thermal campaign (kind: "
	        "thermal on an HBM2 card); the AC-510's cube stops itself");
	refused("bench: {device: \"sim:u280\"}\ninstruments: sim\n",
	        "line 2: key 'temperature': 'sim:': an HBM2 card's campaign takes the card's own "
	        "sensors");
	refused("bench: {device: \"sim:u280\"}\ntrace:\n  burst: 64\n  banks: true\n",
	        "line 4: key 'banks': an HBM2 card's trace has its pseudo channels as "
	        "subpartitions");
	refused("bench: {device: \"sim:u280\"}\ntrace: {path: dma}\n",
	        "line 2: key 'path': an HBM2 card's trace buffer is drained");
}

/* A GUPS campaign's normalized content is what it was before HBM2 campaigns: the hash of
 * examples/quick.yaml as the release before them computed it (stackbench run --dry-run). */
Test(hbm_campaign, gups_hash_unchanged)
{
	cr_assert_eq(sb_campaign_load(&c, SB_EXAMPLES_DIR "/quick.yaml"), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(c.engine, SB_ENGINE_GUPS);
	cr_assert_str_eq(c.hash, "27ef56d45d254b0f");
	cr_assert_null(strstr(c.normalized, "engine"), "%s", c.normalized);
}

/* An HBM2 card's thermal campaign: each point lasts thermal_s (the warm-up included: the
 * window is the rest), the limit and the cool-down's end, kept through the store. */
Test(hbm_campaign, thermal)
{
	struct sb_campaign r;
	struct sb_hbm_spec s;

	cr_assert_eq(load(HBM_THERMAL "durations: {thermal_s: 2, warmup_us: 100}\n"
	                              "recovery: {limit_c: 80, cool_margin_c: 15}\n"
	                              "sweep: {ports: [1, 2]}\n"),
	             0, "%s", sb_error_detail());
	cr_assert_eq(c.kind, SB_CAMPAIGN_THERMAL);
	cr_assert_eq(sb_campaign_point_ns(&c), 2000000000ull);
	sb_campaign_hbm_spec(&c, &c.points[1], &s);
	cr_assert_eq(s.warmup_ns, 100000ull);
	cr_assert_eq(s.duration_ns, 2000000000ull - 100000ull);
	cr_assert_float_eq(c.recovery.limit_c, 80.0, 1e-12);
	cr_assert(isnan(c.recovery.resume_c));
	cr_assert_eq(sb_campaign_load_stored(&r, "stored", c.normalized, c.hash, NULL), 0, "%s",
	             sb_error_detail());
	cr_assert_str_eq(r.hash, c.hash);
	cr_assert_float_eq(r.recovery.limit_c, 80.0, 1e-12);
	cr_assert_float_eq(r.recovery.cool_margin_c, 15.0, 1e-12);
	sb_campaign_release(&r);
	sb_campaign_release(&c);
}

/* A stored HBM2 campaign rebuilds into the same points (what report --against-model and the
 * daemon's resume read back). */
Test(hbm_campaign, stored_round_trip)
{
	struct sb_campaign r;

	cr_assert_eq(sb_campaign_load(&c, SB_EXAMPLES_DIR "/hbm2-switch.yaml"), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sb_campaign_load_stored(&r, "stored", c.normalized, c.hash, NULL), 0, "%s",
	             sb_error_detail());
	cr_assert_str_eq(r.hash, c.hash);
	cr_assert_eq(r.npoints, c.npoints);
	for (unsigned i = 0; i < c.npoints; i++) {
		cr_assert_str_eq(r.points[i].key, c.points[i].key);
		cr_assert_eq(r.points[i].hbm.port_mask, c.points[i].hbm.port_mask);
	}
	sb_campaign_release(&r);
}
