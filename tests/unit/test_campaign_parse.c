/* SPDX-License-Identifier: MIT */
/* Campaign files: parsing, checking (file/line/key in every error), expansion, hashing. */
#include <criterion/criterion.h>
#include <string.h>

#include "stackbench/campaign.h"
#include "stackbench/error.h"

static struct sb_campaign c;

static int load(const char *text)
{
	return sb_campaign_load_string(&c, "camp.yaml", text, strlen(text));
}

static void fini(void)
{
	sb_campaign_release(&c);
}

TestSuite(campaign_parse, .fini = fini);

static const char *full = "format: 1\n"
                          "name: full\n"
                          "description: every key\n"
                          "kind: bandwidth\n"
                          "bench:\n"
                          "  device: [\"sim:\", \"sim:?ports=4\", \"sim:hmc-gen1\"]\n"
                          "  profile: hmc-gen2-ac510\n"
                          "instruments: none\n"
                          "durations:\n"
                          "  bandwidth_s: 20\n"
                          "  thermal_s: 200\n"
                          "  stream_groups: 500\n"
                          "sample_interval_ms: 250\n"
                          "seed: 0x1234\n"
                          "fast_forward: yes\n"
                          "sweep:\n"
                          "  type: [ro, wo, rw]\n"
                          "  size: {from: 16, to: 128, step: 16}\n"
                          "  pattern: [1bank, 16vault]\n"
                          "  mode: [random, linear]\n"
                          "  addr_mode: [keep, 64]\n"
                          "  ports: [1, all]\n"
                          "  stream: 0\n"
                          "  mask: {width: 4, positions: [7, 11], baseline: true}\n"
                          "  cooling: none\n"
                          "  repetitions: 2\n"
                          "exclude:\n"
                          "  - {type: wo, size: [16, 32]}\n"
                          "only:\n"
                          "  - {pattern: 16vault}\n"
                          "  - {mode: random, addr_mode: keep}\n";

Test(campaign_parse, full_file)
{
	unsigned per_rep;

	cr_assert_eq(load(full), 0, "%s", sb_error_detail());
	cr_assert_str_eq(c.name, "full");
	cr_assert_str_eq(c.description, "every key");
	cr_assert_eq(c.kind, SB_CAMPAIGN_BANDWIDTH);
	cr_assert_eq(c.ndevices, 3);
	cr_assert_str_eq(c.device[0], "sim:hmc-gen2-ac510", "the profile fills in bare sim:");
	cr_assert_str_eq(c.device[1], "sim:hmc-gen2-ac510?ports=4");
	cr_assert_str_eq(c.device[2], "sim:hmc-gen1", "a named profile is kept");
	cr_assert_float_eq(c.bandwidth_s, 20, 1e-12);
	cr_assert_float_eq(c.thermal_s, 200, 1e-12);
	cr_assert_eq(c.stream_groups, 500);
	cr_assert_float_eq(c.sample_interval_ms, 250, 1e-12);
	cr_assert_eq(c.seed, 0x1234);
	cr_assert(c.fast_forward);
	cr_assert_eq(c.axes.n[SB_AXIS_SIZE], 8);
	cr_assert_str_eq(c.axes.value[SB_AXIS_SIZE][7], "128");
	cr_assert_eq(c.axes.n[SB_AXIS_MASK], 3, "baseline + 2 positions");
	cr_assert_str_eq(c.axes.value[SB_AXIS_MASK][0], "none");
	cr_assert_eq(c.axes.mask_width, 4);
	cr_assert_eq(c.axes.n[SB_AXIS_REP], 2);
	cr_assert_eq(c.nexclude, 1);
	cr_assert_eq(c.nonly, 2);
	/*
	 * Per repetition: 3 types x 8 sizes x 2 patterns x 2 modes x 2 addr modes x 2 ports x
	 * 3 masks = 1152. 'only' keeps 16vault (576) or random+keep (1bank: 144): 720. 'exclude'
	 * drops wo at 16 and 32 B: 2 of 24 type x size pairs = 60. 660 per repetition.
	 */
	per_rep = 660;
	cr_assert_eq(c.npoints, 2 * per_rep, "%u points", c.npoints);
	for (unsigned i = 0; i < c.npoints; i++) {
		const struct sb_campaign_point *p = &c.points[i];

		cr_assert_eq(p->index, i);
		cr_assert(!(p->type == SB_REQ_WO && p->size <= 32), "excluded: %s", p->key);
		cr_assert(!strcmp(p->pattern, "16vault") ||
		              (p->mode == SB_GEN_RANDOM && p->addr_mode == 0),
		          "only: %s", p->key);
		cr_assert_eq(p->rep, i / per_rep, "repetitions are the outer loop");
	}
	cr_assert_str_eq(c.points[0].key,
	                 "cooling=none rep=0 type=ro size=16 pattern=1bank "
	                 "mode=random addr_mode=keep ports=1 stream=0 mask=none/0");
	cr_assert_eq(c.points[1].mask_lo, 7, "the mask turns fastest");
	cr_assert_eq(c.points[1].mask_width, 4);
	cr_assert_eq(c.points[3].ports, 0, "ports all");
	cr_assert_eq(strlen(c.hash), 16);
}

Test(campaign_parse, defaults_give_one_point)
{
	cr_assert_eq(load("name: one\n"), 0, "%s", sb_error_detail());
	cr_assert_eq(c.npoints, 1);
	cr_assert_eq(c.ndevices, 1);
	cr_assert_str_eq(c.device[0], "sim:");
	cr_assert_float_eq(c.bandwidth_s, 20, 1e-12, "20 s bandwidth runs by default");
	cr_assert_float_eq(c.thermal_s, 200, 1e-12, "200 s thermal runs by default");
	cr_assert_eq(c.points[0].type, SB_REQ_RO);
	cr_assert_eq(c.points[0].size, 128);
	cr_assert_str_eq(c.points[0].pattern, "all");
	cr_assert_eq(c.points[0].mask_lo, -1);
	cr_assert_eq(sb_campaign_point_ns(&c), 20000000000ull);
}

Test(campaign_parse, name_defaults_to_file_name)
{
	cr_assert_eq(sb_campaign_load_string(&c, "dir/mask-sweep.yaml", "seed: 3\n", 8), 0);
	cr_assert_str_eq(c.name, "mask-sweep");
}

Test(campaign_parse, thermal_kind_uses_thermal_duration)
{
	cr_assert_eq(load("kind: thermal\ndurations: {thermal_s: 150}\n"), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sb_campaign_point_ns(&c), 150000000000ull);
}

Test(campaign_parse, expansion_counts)
{
	static const struct {
		const char *text;
		unsigned points;
	} cases[] = {
	    {"sweep: {type: [ro, wo, rw], size: {from: 16, to: 128}}\n", 24},
	    {"sweep: {type: [ro, wo, rw], pattern: [1bank, 2bank, 4bank, 8bank, 16bank, 1vault, "
	     "2vault, 4vault, 8vault, 16vault, all], size: [16, 32, 64, 128]}\n",
	     132},
	    {"sweep: {type: [ro, wo, rw], mask: {width: 8, positions: {from: 4, to: 26}, "
	     "baseline: true}}\n",
	     72},
	    {"sweep: {ports: {from: 1, to: 9}, type: [ro, rw]}\n", 18},
	    {"sweep: {stream: {from: 2, to: 28, step: 2}, size: [16, 128]}\n", 28},
	    {"sweep: {type: [ro, rw], repetitions: 3}\nexclude: [{type: rw}]\n", 3},
	    {"sweep: {size: [16, 32, 64], mode: [random, linear]}\nonly: [{size: 64}, {mode: "
	     "linear}]\n",
	     4},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(load(cases[i].text), 0, "case %zu: %s", i, sb_error_detail());
		cr_assert_eq(c.npoints, cases[i].points, "case %zu: %u points", i, c.npoints);
		sb_campaign_release(&c);
	}
}

Test(campaign_parse, seeds_come_from_the_point)
{
	uint64_t seed0, seed1;

	cr_assert_eq(load("sweep: {type: [ro, rw], repetitions: 2}\n"), 0);
	seed0 = c.points[0].seed;
	seed1 = c.points[1].seed;
	cr_assert_neq(seed0, seed1);
	for (unsigned i = 0; i < c.npoints; i++)
		for (unsigned j = i + 1; j < c.npoints; j++)
			cr_assert_neq(c.points[i].seed, c.points[j].seed);
	sb_campaign_release(&c);
	cr_assert_eq(
	    load("# same sweep, other layout\nsweep:\n  repetitions: 2\n  type:\n    - ro\n"
	         "    - rw\n"),
	    0);
	cr_assert_eq(c.points[0].seed, seed0, "same point, same seed");
	cr_assert_eq(c.points[1].seed, seed1);
	sb_campaign_release(&c);
	cr_assert_eq(load("seed: 2\nsweep: {type: [ro, rw], repetitions: 2}\n"), 0);
	cr_assert_neq(c.points[0].seed, seed0, "the campaign seed changes every point's seed");
}

Test(campaign_parse, hash_of_normalized_content)
{
	char h[17];

	cr_assert_eq(load("name: h\nsweep: {type: [ro, wo]}\n"), 0);
	memcpy(h, c.hash, sizeof(h));
	sb_campaign_release(&c);
	cr_assert_eq(
	    load("# a comment\nname: h   # trailing\nsweep:\n  type:\n    - ro\n    - wo\n"), 0);
	cr_assert_str_eq(c.hash, h, "layout and comments do not change the hash");
	sb_campaign_release(&c);
	cr_assert_eq(load("name: h\nsweep: {type: [ro, wo]}\ndurations: {bandwidth_s: 20}\n"), 0);
	cr_assert_str_eq(c.hash, h, "writing a default out does not change the hash");
	sb_campaign_release(&c);
	cr_assert_eq(load("name: h\nsweep: {type: [ro, rw]}\n"), 0);
	cr_assert_str_neq(c.hash, h, "a changed value changes the hash");
	sb_campaign_release(&c);
	cr_assert_eq(load("name: h\nsweep: {type: [ro, wo]}\nsample_interval_ms: 50\n"), 0);
	cr_assert_str_neq(c.hash, h);
	sb_campaign_release(&c);
	cr_assert_eq(load("name: h\nsweep: {type: [ro, wo]}\nport_order: first\n"), 0);
	cr_assert_str_eq(c.hash, h, "the default port order keeps older campaigns' hash");
	cr_assert_eq(c.port_order, SB_PORT_ORDER_FIRST);
	sb_campaign_release(&c);
	cr_assert_eq(load("name: h\nsweep: {type: [ro, wo]}\nport_order: spread\n"), 0);
	cr_assert_str_neq(c.hash, h);
	cr_assert_eq(c.port_order, SB_PORT_ORDER_SPREAD);
	cr_assert(strstr(c.normalized, "\"port_order\":\"spread\""), "%s", c.normalized);
}

/* Each kind of bad input: the error names the file, the line and the key. */
static void bad(const char *text, int code, const char *expect)
{
	int e = load(text);

	cr_assert_eq(e, code, "expected %d, got %d for:\n%s\n%s", code, e, text, sb_error_detail());
	cr_assert(strstr(sb_error_detail(), expect), "'%s' does not contain '%s'",
	          sb_error_detail(), expect);
	cr_assert_eq(c.npoints, 0, "nothing expanded");
	cr_assert_null(c.points);
}

Test(campaign_parse, unknown_keys)
{
	bad("name: x\nsweeep: {}\n", SB_ERR_PARSE,
	    "cannot parse 'camp.yaml' line 2: unknown key 'sweeep' in 'campaign'");
	bad("sweep:\n  type: ro\n  sise: 64\n", SB_ERR_PARSE,
	    "'camp.yaml' line 3: unknown key 'sise' in 'sweep'");
	bad("durations:\n  bandwidth: 20\n", SB_ERR_PARSE,
	    "line 2: unknown key 'bandwidth' in 'durations'");
	bad("bench:\n  devices: \"sim:\"\n", SB_ERR_PARSE,
	    "line 2: unknown key 'devices' in 'bench'");
	bad("sweep:\n  mask: {width: 8, position: 4}\n", SB_ERR_PARSE,
	    "line 2: unknown key 'position' in 'mask'");
	bad("sweep: {type: [ro, wo]}\nexclude:\n  - {colour: red}\n", SB_ERR_PARSE,
	    "line 3: unknown key 'colour' in 'exclude'");
	bad("sweep:\n  size: {from: 16, to: 64, by: 16}\n", SB_ERR_PARSE,
	    "line 2: unknown key 'by' in 'size'");
}

Test(campaign_parse, wrong_types)
{
	bad("seed: abc\n", SB_ERR_PARSE,
	    "'camp.yaml' line 1: key 'seed': expected an unsigned integer, got 'abc'");
	bad("name: x\nsweep: [ro, wo]\n", SB_ERR_PARSE, "line 2: key 'sweep' must be a mapping");
	bad("fast_forward: maybe\n", SB_ERR_PARSE,
	    "line 1: key 'fast_forward': expected true or false, got 'maybe'");
	bad("name: x\nport_order: random\n", SB_ERR_PARSE, "line 2: key 'port_order': ");
	bad("durations:\n  bandwidth_s: long\n", SB_ERR_PARSE,
	    "line 2: key 'bandwidth_s': expected a number, got 'long'");
	bad("sweep:\n  type: {ro: 1}\n", SB_ERR_PARSE,
	    "line 2: key 'type': expected a value or a list of values");
	bad("sweep:\n  size: [16, [32]]\n", SB_ERR_PARSE,
	    "line 2: key 'size': list items must be single values");
	bad("sweep:\n  size: big\n", SB_ERR_PARSE,
	    "line 2: key 'size': expected an unsigned integer, got 'big'");
	bad("exclude: {type: ro}\n", SB_ERR_PARSE, "line 1: exclude must be a list");
	bad("bench:\n  device: [\"sim:\", {a: b}]\n", SB_ERR_PARSE,
	    "line 2: key 'device': expected a text value");
}

Test(campaign_parse, values_out_of_range)
{
	bad("sweep:\n  size: [64, 144]\n", SB_ERR_PARSE,
	    "line 2: key 'size': request size 144 B: expected 16..128 in steps of 16");
	bad("sweep:\n  size: 24\n", SB_ERR_PARSE, "line 2: key 'size': request size 24 B");
	bad("sweep:\n  ports: 40\n", SB_ERR_PARSE,
	    "line 2: key 'ports': 40 is out of range: expected 'all', 0 (idle) or a port count "
	    "1..32");
	bad("sweep:\n  stream: [2, 29]\n", SB_ERR_PARSE,
	    "line 2: key 'stream': 29 is out of range");
	bad("sweep:\n  mask: {width: 8, positions: [4, 27]}\n", SB_ERR_PARSE,
	    "line 2: key 'positions': a 8-bit mask at bit 27 ends past address bit 33");
	bad("sweep:\n  mask: {width: 40, positions: 4}\n", SB_ERR_PARSE,
	    "line 2: key 'width': 40 is out of range [1, 34]");
	bad("sweep:\n  addr_mode: [keep, 48]\n", SB_ERR_PARSE,
	    "line 2: key 'addr_mode': 48: expected 'keep', 32, 64 or 128");
	bad("durations:\n  bandwidth_s: 0\n", SB_ERR_PARSE,
	    "line 2: key 'bandwidth_s': 0 is out of range");
	bad("sample_interval_ms: 0\n", SB_ERR_PARSE,
	    "line 1: key 'sample_interval_ms': 0 is out of range");
	bad("sweep:\n  repetitions: 0\n", SB_ERR_PARSE,
	    "line 2: key 'repetitions': 0 is out of range");
	bad("format: 2\n", SB_ERR_PARSE, "line 1: key 'format': 2 is out of range [1, 1]");
	bad("sweep:\n  size: {from: 128, to: 16}\n", SB_ERR_PARSE,
	    "line 2: key 'size': 'from' 128 is above 'to' 16");
}

Test(campaign_parse, bad_names)
{
	bad("sweep:\n  type: [ro, rx]\n", SB_ERR_PARSE,
	    "line 2: key 'type': unknown value 'rx' (expected ro, wo, rw)");
	bad("sweep:\n  pattern: [all, 3bank]\n", SB_ERR_PARSE,
	    "line 2: key 'pattern': unknown pattern '3bank'");
	bad("sweep:\n  mode: sequential\n", SB_ERR_PARSE,
	    "line 2: key 'mode': unknown value 'sequential' (expected random, linear)");
	bad("kind: power\n", SB_ERR_PARSE,
	    "line 1: key 'kind': unknown value 'power' (expected bandwidth, thermal)");
	bad("bench:\n  device: \"pci:1\"\n", SB_ERR_PARSE,
	    "line 2: key 'device': bad device URI 'pci:1'");
	bad("sweep:\n  type: [ro, wo, ro]\n", SB_ERR_PARSE,
	    "line 2: key 'type': value 'ro' is listed twice");
}

Test(campaign_parse, instruments_by_connection_string)
{
	cr_assert_eq(load("name: t\ninstruments: sim\n"), 0, "%s", sb_error_detail());
	for (int k = 0; k < SB_INST_COUNT; k++) {
		cr_assert_str_eq(c.inst.conn[k], "sim:", "sim: the simulated camera, meter, fans");
		cr_assert_eq(c.inst.line[k], 2);
	}
	cr_assert(strstr(c.normalized, "\"instruments\":{\"temperature\":\"sim:\",\"power\":"
	                               "\"sim:\",\"cooling\":\"sim:\"}"),
	          "%s", c.normalized);
	sb_campaign_release(&c);
	cr_assert_eq(load("instruments:\n"
	                  "  temperature: \"sim:?roi=84,40,40,40\"\n"
	                  "  power: none\n"),
	             0, "%s", sb_error_detail());
	cr_assert_str_eq(c.inst.conn[SB_INST_TEMPERATURE], "sim:?roi=84,40,40,40");
	cr_assert_eq(c.inst.line[SB_INST_TEMPERATURE], 2);
	cr_assert(!sb_campaign_has_inst(&c, SB_INST_POWER), "none: no meter");
	cr_assert(!sb_campaign_has_inst(&c, SB_INST_COOLING), "not named: no actuator");
	sb_campaign_release(&c);
	cr_assert_eq(load("instruments: none\n"), 0);
	cr_assert(strstr(c.normalized, "\"instruments\":\"none\""), "%s", c.normalized);
	for (int k = 0; k < SB_INST_COUNT; k++)
		cr_assert(!sb_campaign_has_inst(&c, (enum sb_campaign_inst)k));
}

Test(campaign_parse, bad_instruments_name_file_line_key)
{
	bad("name: t\ninstruments:\n  temperature: \"thermo:1:4\"\n", SB_ERR_PARSE,
	    "cannot parse 'camp.yaml' line 3: key 'temperature': temperature source "
	    "'thermo:1:4': unknown scheme 'thermo' (known: sim:, flirone:, sensors:)");
	bad("instruments:\n  cooling: \"fan:/dev/ttyUSB1\"\n", SB_ERR_PARSE,
	    "line 2: key 'cooling': cooling actuator 'fan:/dev/ttyUSB1': unknown scheme 'fan'");
	/* Real instruments are checked by scheme only: they are opened when the campaign runs. */
	cr_assert_eq(load("instruments:\n  temperature: \"flirone:1:4\"\n  power: "
	                  "\"wattsup:/dev/ttyUSB0\"\n  cooling: \"korad:/dev/ttyACM0\"\n"),
	             0, "%s", sb_error_detail());
	bad("instruments:\n  power: \"meter:x\"\n", SB_ERR_PARSE,
	    "line 2: key 'power': power source 'meter:x': unknown scheme 'meter' (known: sim:, "
	    "wattsup:, wt310:, sigrok:, korad:, sensors:)");
	bad("instruments:\n  temperature: camera\n", SB_ERR_PARSE,
	    "line 2: key 'temperature': bad connection string 'camera': expected SCHEME:[...]");
	bad("instruments:\n  camera: \"sim:\"\n", SB_ERR_PARSE,
	    "line 2: unknown key 'camera' in 'instruments'");
	bad("instruments: camera\n", SB_ERR_PARSE,
	    "line 1: key 'instruments': unknown value 'camera' (expected none, sim, or a mapping");
}

Test(campaign_parse, cooling_configurations)
{
	cr_assert_eq(load("kind: thermal\ninstruments: sim\nsweep:\n  cooling: [Cfg1, Cfg4]\n  "
	                  "type: [ro, wo]\n"),
	             0, "%s", sb_error_detail());
	cr_assert_eq(c.npoints, 4);
	cr_assert_str_eq(c.points[0].cooling, "Cfg1", "cooling is the outermost axis");
	cr_assert_str_eq(c.points[3].cooling, "Cfg4");
	cr_assert(strstr(c.points[3].key, "cooling=Cfg4 rep=0 type=wo"), "%s", c.points[3].key);
	sb_campaign_release(&c);
	/* Names need an actuator, and must be the bench file's (sim: bench ac510-lab). */
	bad("sweep:\n  cooling: [none, Cfg1]\n", SB_ERR_PARSE,
	    "line 2: key 'cooling': configuration 'Cfg1' needs a cooling actuator: set "
	    "'instruments' to sim");
	bad("instruments: sim\nsweep:\n  cooling:\n    - Cfg1\n    - Cfg9\n", SB_ERR_PARSE,
	    "'camp.yaml' line 5: key 'cooling': no cooling configuration 'Cfg9' (known: Cfg1, "
	    "Cfg2, Cfg3, Cfg4) (bench 'ac510-lab')");
	bad("instruments: sim\nsweep:\n  cooling: \"Cfg 1\"\n", SB_ERR_PARSE,
	    "line 3: key 'cooling': 'Cfg 1' is not a cooling configuration name");
	/* An unknown bench file is the engine's to report, when it opens the device. */
	cr_assert_eq(load("instruments: sim\nbench: {device: \"sim:?bench=nosuchbench\"}\n"
	                  "recovery: {cooling: Cfg2}\nsweep: {cooling: Cfg1}\n"),
	             0, "%s", sb_error_detail());
}

Test(campaign_parse, recovery_options)
{
	cr_assert_eq(load("name: r\n"), 0);
	cr_assert_eq(c.recovery.retries, 0, "a failed point is not run again by default");
	cr_assert_float_eq(c.recovery.cool_margin_c, 5, 1e-12);
	cr_assert_float_eq(c.recovery.cool_max_s, 1800, 1e-12);
	cr_assert_str_eq(c.recovery.cooling, "strongest");
	cr_assert_null(strstr(c.normalized, "recovery"),
	               "defaults are not written: older campaigns keep their hash");
	sb_campaign_release(&c);
	cr_assert_eq(load("instruments: sim\nrecovery:\n  retries: 2\n  cool_margin_c: 7.5\n"
	                  "  cool_max_s: 600\n  cooling: Cfg2\n"),
	             0, "%s", sb_error_detail());
	cr_assert_eq(c.recovery.retries, 2);
	cr_assert_float_eq(c.recovery.cool_margin_c, 7.5, 1e-12);
	cr_assert_float_eq(c.recovery.cool_max_s, 600, 1e-12);
	cr_assert_str_eq(c.recovery.cooling, "Cfg2");
	cr_assert_eq(c.recovery.line, 6, "the line of recovery.cooling, for the engine's messages");
	cr_assert(strstr(c.normalized, "\"recovery\":{\"retries\":2,"), "%s", c.normalized);
	sb_campaign_release(&c);
	bad("recovery:\n  retries: 101\n", SB_ERR_PARSE,
	    "line 2: key 'retries': 101 is out of range [0, 100]");
	bad("recovery:\n  cool_margin: 5\n", SB_ERR_PARSE,
	    "line 2: unknown key 'cool_margin' in 'recovery'");
	bad("recovery:\n  cooling: Cfg1\n", SB_ERR_PARSE,
	    "line 2: key 'cooling': recovery in configuration 'Cfg1' needs a cooling actuator");
	bad("instruments: sim\nrecovery:\n  cooling: Cfg7\n", SB_ERR_PARSE,
	    "line 3: key 'cooling': no cooling configuration 'Cfg7'");
}

Test(campaign_parse, idle_points)
{
	cr_assert_eq(load("sweep:\n  ports: [0, 4, all]\n"), 0, "%s", sb_error_detail());
	cr_assert_eq(c.npoints, 3);
	cr_assert(c.points[0].idle, "ports 0: an idle point");
	cr_assert_eq(c.points[0].ports, 0);
	cr_assert(strstr(c.points[0].key, "ports=0 "), "%s", c.points[0].key);
	cr_assert(!c.points[1].idle);
	cr_assert_eq(c.points[1].ports, 4);
	cr_assert(!c.points[2].idle && c.points[2].ports == 0, "all ports");
	sb_campaign_release(&c);
	bad("sweep:\n  ports: [0, 1]\n  stream: [0, 2]\n", SB_ERR_PARSE,
	    "line 2: key 'ports': an idle point (0 ports) has no stream groups");
}

Test(campaign_parse, combinations)
{
	bad("sweep:\n  type: [ro, wo]\nexclude:\n  - {type: [ro, wo]}\n", SB_ERR_PARSE,
	    "cannot parse 'camp.yaml': no points left after 'only' and 'exclude'");
	bad("sweep:\n  type: [ro, rw]\n  stream: [2, 3]\n", SB_ERR_PARSE,
	    "line 3: key 'stream': an rw stream group writes then reads back, so its size must "
	    "be even");
	cr_assert_eq(load("sweep:\n  type: [ro, rw]\n  stream: [2, 3]\nexclude:\n  - {type: rw, "
	                  "stream: 3}\n"),
	             0, "%s", sb_error_detail());
	cr_assert_eq(c.npoints, 3);
}

Test(campaign_parse, syntax_errors)
{
	/* libfyaml counts lines and columns from 1: the reported line is the real one */
	bad("sweep:\n  type: [ro, wo\n", SB_ERR_PARSE,
	    "cannot parse 'camp.yaml' line 3 column 1: flow sequence without a closing bracket");
	bad("name: a\nname: b\n", SB_ERR_PARSE,
	    "cannot parse 'camp.yaml' line 2 column 1: duplicate key");
	bad("", SB_ERR_PARSE, "cannot parse 'camp.yaml'");
	bad("# only a comment\n", SB_ERR_PARSE, "cannot parse 'camp.yaml'");
	bad("- a\n- b\n", SB_ERR_PARSE, "line 1: the document must be a mapping");
}

/* Errors that say how to fix them. */
Test(campaign_parse, hints)
{
	bad("name: x\nsweep:\n  typ: [ro]\n", SB_ERR_PARSE,
	    "'camp.yaml' line 3: unknown key 'typ' in 'sweep': did you mean 'type'?");
	bad("name: x\nsweep:\n  zzz: [ro]\n", SB_ERR_PARSE,
	    "unknown key 'zzz' in 'sweep' (known: type, size, pattern,");
	bad("name: x\nbench:\n  device: sim:\n", SB_ERR_PARSE,
	    "line 3 column 14: invalid nested block mapping on the same line (a value ending in "
	    "':', such as a device URI 'sim:', must be quoted: \"sim:\")");
	bad("name: x\nbench: {device: sim:}\n", SB_ERR_PARSE, "must be quoted: \"sim:\")");
}

/* Not UTF-8: an error naming the line and column. libfyaml 0.7 loops for ever on a directive
 * line with 0xFF bytes (found by fuzz.campaign_yaml); such bytes never reach it. */
Test(campaign_parse, bytes_that_are_not_utf8)
{
	bad("sweep:\n%  cooling: [Cfg2, \xff\xff+Cfg4]\n", SB_ERR_PARSE,
	    "'camp.yaml' line 2 column 20: not UTF-8 text (byte 0xff)");
	bad("name: a\xc0\xaf"
	    "b\n",
	    SB_ERR_PARSE, "line 1 column 8: not UTF-8 text (byte 0xc0)");
	bad("name: \xed\xa0\x80\n", SB_ERR_PARSE, "not UTF-8 text (byte 0xed)");
}

/* A few hundred bytes of nested aliases expand to gigabytes: aliases are refused before
 * anything is expanded (issue 17: a 429-byte file took 2.9 GB). */
Test(campaign_parse, aliases_are_refused)
{
	bad("name: bomb\n"
	    "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
	    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
	    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
	    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
	    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
	    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n",
	    SB_ERR_PARSE, "'camp.yaml' line 3: aliases ('*a') are not allowed here");
	bad("base: &b {type: ro}\nsweep:\n  <<: *b\n", SB_ERR_PARSE,
	    "'camp.yaml' line 3: aliases ('*b') are not allowed here");
}

Test(campaign_parse, missing_file)
{
	cr_assert_eq(sb_campaign_load(&c, "/nonexistent/camp.yaml"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "/nonexistent/camp.yaml"));
}
