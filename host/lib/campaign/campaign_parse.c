/* SPDX-License-Identifier: MIT */
/*
 * Campaign files: YAML → struct sb_campaign, every key checked (unknown keys, wrong types,
 * values out of range are errors naming the file, line and key), then the axes expanded into
 * points and the normalized content hashed. The format is documented in docs/campaigns.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <libfyaml.h>

#include "campaign_int.h"
#include "stackbench/bench_model.h"
#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/instrument.h"
#include "stackbench/log.h"
#include "stackbench/pattern.h"
#include "stackbench/point.h"
#include "stackbench/uri.h"
#include "stackbench/util.h"
#include "stackbench/yaml.h"

static const char *const axis_names[SB_AXIS_COUNT] = {
    [SB_AXIS_COOLING] = "cooling",
    [SB_AXIS_REP] = "repetitions",
    [SB_AXIS_TYPE] = "type",
    [SB_AXIS_SIZE] = "size",
    [SB_AXIS_PATTERN] = "pattern",
    [SB_AXIS_MODE] = "mode",
    [SB_AXIS_ADDR_MODE] = "addr_mode",
    [SB_AXIS_PORTS] = "ports",
    [SB_AXIS_STREAM] = "stream",
    [SB_AXIS_MASK] = "mask",
    [SB_AXIS_TEMP] = "temp",
    [SB_AXIS_REFRESH] = "refresh",
    [SB_AXIS_PAGE] = "page",
    [SB_AXIS_POLICY] = "policy",
    [SB_AXIS_TARGET] = "target",
    [SB_AXIS_OP] = "op",
    [SB_AXIS_MIX] = "mix",
    [SB_AXIS_BURST] = "burst",
    [SB_AXIS_STRIDE] = "stride",
    [SB_AXIS_WS] = "ws",
    [SB_AXIS_OUTSTANDING] = "outstanding",
};

/* The default value of each axis (repetitions: 1). */
static const char *const axis_default[SB_AXIS_COUNT] = {
    [SB_AXIS_COOLING] = "none", [SB_AXIS_TYPE] = "ro",        [SB_AXIS_SIZE] = "128",
    [SB_AXIS_PATTERN] = "all",  [SB_AXIS_MODE] = "random",    [SB_AXIS_ADDR_MODE] = "keep",
    [SB_AXIS_PORTS] = "all",    [SB_AXIS_STREAM] = "0",       [SB_AXIS_MASK] = "none",
    [SB_AXIS_TEMP] = "keep",    [SB_AXIS_REFRESH] = "keep",   [SB_AXIS_PAGE] = "keep",
    [SB_AXIS_POLICY] = "keep",  [SB_AXIS_TARGET] = "local",   [SB_AXIS_OP] = "read",
    [SB_AXIS_MIX] = "128",      [SB_AXIS_BURST] = "512",      [SB_AXIS_STRIDE] = "0",
    [SB_AXIS_WS] = "0",         [SB_AXIS_OUTSTANDING] = "64",
};

const char *sb_axis_name(enum sb_axis a)
{
	return a < SB_AXIS_COUNT ? axis_names[a] : "?";
}

/* The keys of 'instruments', by kind. */
static const char *const inst_keys[SB_INST_COUNT] = {"temperature", "power", "cooling"};

bool sb_campaign_has_inst(const struct sb_campaign *c, enum sb_campaign_inst kind)
{
	return kind < SB_INST_COUNT && c->inst.conn[kind][0];
}

void sb_campaign_where(const struct sb_campaign *c, int line, const char *key, char *buf,
                       size_t size)
{
	if (line > 0)
		snprintf(buf, size, "'%s' line %d: key '%s'", c->file, line, key);
	else
		snprintf(buf, size, "'%s': key '%s'", c->file, key);
}

uint64_t sb_campaign_point_ns(const struct sb_campaign *c)
{
	double s = c->kind == SB_CAMPAIGN_THERMAL ? c->thermal_s : c->bandwidth_s;

	/* an HBM2 card's point: its warm-up and its window (a thermal point: thermal_s, the
	   warm-up included) */
	if (c->engine == SB_ENGINE_HBM2 && c->kind != SB_CAMPAIGN_THERMAL)
		s = (c->hbm_warmup_us + c->hbm_window_us) * 1e-6;

	return (uint64_t)llround(s * 1e9);
}

/* Parser state. */
struct parse {
	struct sb_yaml y;
	struct sb_campaign *c;
};

static const char *const type_names[] = {"ro", "wo", "rw", NULL};
static const char *const mode_names[] = {"random", "linear", NULL};
static const char *const kind_names[] = {"bandwidth", "thermal", NULL};
/* enum sb_port_order */
static const char *const port_order_names[] = {"first", "spread", NULL};

/* Recovery defaults (docs/campaigns.md). */
#define RECOVERY_MARGIN_C 5.0
#define RECOVERY_MAX_S 1800.0
/* Settle criterion after a cooling change (docs/rig-protocol.md): 0.5 C over 30 s, read every
 * second, at most 15 min. */
#define SETTLE_TOLERANCE_C SB_COOLING_SETTLE_TOLERANCE_C
#define SETTLE_WINDOW_S SB_COOLING_SETTLE_WINDOW_S
#define SETTLE_MAX_S SB_COOLING_SETTLE_MAX_S
#define SETTLE_POLL_S SB_COOLING_SETTLE_POLL_S

/* Check an integer value of an axis (at names the node for messages); canonical text out. */
static int int_value(struct parse *p, enum sb_axis a, uint64_t v, struct fy_node *at,
                     char out[SB_AXIS_NAME_MAX])
{
	const char *name = axis_names[a];
	bool ok;

	if (sb_axis_is_hbm(a) || (a == SB_AXIS_PORTS && p->c->engine == SB_ENGINE_HBM2))
		return sb_hbm_axis_number(&p->y, a, v, at, out);
	switch (a) {
	case SB_AXIS_SIZE:
		ok = v >= 16 && v <= 128 && v % 16 == 0;
		if (!ok)
			return sb_yaml_error(&p->y, at, SB_ERR_PARSE,
			                     "key '%s': request size %llu B: expected 16..128 in "
			                     "steps of 16",
			                     name, (unsigned long long)v);
		break;
	case SB_AXIS_PORTS:
		if (v > SB_POINT_MAX_PORTS)
			return sb_yaml_error(
			    &p->y, at, SB_ERR_PARSE,
			    "key '%s': %llu is out of range: expected 'all', 0 (idle) "
			    "or a port count 1..%d",
			    name, (unsigned long long)v, SB_POINT_MAX_PORTS);
		break;
	case SB_AXIS_STREAM:
		if (v > SB_STREAM_MAX)
			return sb_yaml_error(
			    &p->y, at, SB_ERR_PARSE,
			    "key '%s': %llu is out of range: expected 0 (GUPS) or a "
			    "stream group size 1..%d",
			    name, (unsigned long long)v, SB_STREAM_MAX);
		break;
	case SB_AXIS_ADDR_MODE:
		if (v != 32 && v != 64 && v != 128)
			return sb_yaml_error(
			    &p->y, at, SB_ERR_PARSE,
			    "key '%s': %llu: expected 'keep', 32, 64 or 128 (bytes)", name,
			    (unsigned long long)v);
		break;
	case SB_AXIS_MASK:
		if (v > 33)
			return sb_yaml_error(&p->y, at, SB_ERR_PARSE,
			                     "key '%s': bit position %llu is out of range [0, 33]",
			                     name, (unsigned long long)v);
		break;
	default:
		return sb_yaml_error(&p->y, at, SB_ERR_PARSE, "key '%s': expected a name", name);
	}
	snprintf(out, SB_AXIS_NAME_MAX, "%llu", (unsigned long long)v);
	return 0;
}

/* A cooling configuration name as written: letters, digits, '-', '_', '.' (checked against
 * the bench's configurations once the whole file is read). */
static int cooling_name(struct parse *p, struct fy_node *n, const char *what, const char *s)
{
	size_t len = strlen(s);

	if (!len || len >= SB_AXIS_NAME_MAX ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz"
	              "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	              "0123456789-_.") != len)
		return sb_yaml_error(&p->y, n, SB_ERR_PARSE,
		                     "%s: '%s' is not a cooling configuration name (none, or a "
		                     "name of the bench's configurations such as Cfg1)",
		                     what, s);
	return 0;
}

/* Check one scalar value of an axis and write its canonical text. */
static int axis_value(struct parse *p, enum sb_axis a, struct fy_node *n,
                      char out[SB_AXIS_NAME_MAX])
{
	const struct sb_yaml *y = &p->y;
	const char *word = a == SB_AXIS_PORTS       ? "all"
	                   : a == SB_AXIS_ADDR_MODE ? "keep"
	                   : a == SB_AXIS_MASK      ? "none"
	                                            : NULL;
	char what[64];
	const char *s;
	uint64_t v;
	int e, idx;

	if (sb_axis_is_hbm(a) || (a == SB_AXIS_PORTS && p->c->engine == SB_ENGINE_HBM2))
		return sb_hbm_axis_value(y, a, n, out);
	snprintf(what, sizeof(what), "key '%s'", axis_names[a]);
	if ((e = sb_yaml_to_str(y, n, what, &s)) < 0)
		return e;
	switch (a) {
	case SB_AXIS_TYPE:
		if ((e = sb_yaml_to_enum(y, n, what, type_names, &idx)) < 0)
			return e;
		snprintf(out, SB_AXIS_NAME_MAX, "%s", type_names[idx]);
		return 0;
	case SB_AXIS_MODE:
		if ((e = sb_yaml_to_enum(y, n, what, mode_names, &idx)) < 0)
			return e;
		snprintf(out, SB_AXIS_NAME_MAX, "%s", mode_names[idx]);
		return 0;
	case SB_AXIS_PATTERN: {
		struct sb_geometry g = {.vaults = 16, .banks_per_vault = 16, .block_bytes = 128};
		uint64_t m, am;

		if (strlen(s) >= SB_AXIS_NAME_MAX || sb_pattern_masks(s, &g, &m, &am) < 0)
			return sb_yaml_error(y, n, SB_ERR_PARSE, "%s: %s", what, sb_error_detail());
		snprintf(out, SB_AXIS_NAME_MAX, "%s", s);
		return 0;
	}
	case SB_AXIS_COOLING:
		if ((e = cooling_name(p, n, what, s)) < 0)
			return e;
		snprintf(out, SB_AXIS_NAME_MAX, "%s", s);
		return 0;
	default:
		break;
	}
	if (word && !strcmp(s, word)) {
		snprintf(out, SB_AXIS_NAME_MAX, "%s", word);
		return 0;
	}
	if ((e = sb_yaml_to_u64(y, n, what, 0, UINT32_MAX, &v)) < 0)
		return word
		           ? sb_yaml_error(y, n, SB_ERR_PARSE,
		                           "%s: expected '%s' or a number, got '%s'", what, word, s)
		           : e;
	return int_value(p, a, v, n, out);
}

static bool is_int_axis(enum sb_axis a)
{
	return a == SB_AXIS_SIZE || a == SB_AXIS_PORTS || a == SB_AXIS_STREAM ||
	       a == SB_AXIS_MASK || a == SB_AXIS_TEMP || a == SB_AXIS_MIX || a == SB_AXIS_BURST ||
	       a == SB_AXIS_STRIDE || a == SB_AXIS_WS || a == SB_AXIS_OUTSTANDING;
}

static int add_value(struct parse *p, struct fy_node *at, const char *where, unsigned *n,
                     char list[][SB_AXIS_NAME_MAX], const char *v)
{
	for (unsigned i = 0; i < *n; i++)
		if (!strcmp(list[i], v))
			return sb_yaml_error(&p->y, at, SB_ERR_PARSE,
			                     "key '%s': value '%s' is listed twice", where, v);
	if (*n >= SB_AXIS_MAX_VALUES)
		return sb_yaml_error(&p->y, at, SB_ERR_PARSE, "key '%s': more than %d values",
		                     where, SB_AXIS_MAX_VALUES);
	snprintf(list[(*n)++], SB_AXIS_NAME_MAX, "%s", v);
	return 0;
}

/* A range {from, to, step} of an integer axis. */
static int axis_range(struct parse *p, enum sb_axis a, struct fy_node *n, unsigned *count,
                      char list[][SB_AXIS_NAME_MAX])
{
	static const char *const keys[] = {"from", "to", "step", NULL};
	const char *name = a == SB_AXIS_MASK ? "positions" : axis_names[a];
	uint64_t from, to, step = a == SB_AXIS_SIZE ? 16 : a == SB_AXIS_BURST ? 32 : 1;
	uint64_t max = sb_axis_is_hbm(a) ? 1ull << 34 : 1024;
	int e;

	if ((e = sb_yaml_check_keys(&p->y, n, name, keys)) < 0 ||
	    (e = sb_yaml_get_u64(&p->y, n, "from", true, 0, max, &from)) < 0 ||
	    (e = sb_yaml_get_u64(&p->y, n, "to", true, 0, max, &to)) < 0 ||
	    (e = sb_yaml_get_u64(&p->y, n, "step", false, 1, max, &step)) < 0)
		return e;
	if (from > to)
		return sb_yaml_error(&p->y, n, SB_ERR_PARSE,
		                     "key '%s': 'from' %llu is above 'to' %llu", name,
		                     (unsigned long long)from, (unsigned long long)to);
	for (uint64_t v = from; v <= to; v += step) {
		char canon[SB_AXIS_NAME_MAX];

		if ((e = int_value(p, a, v, n, canon)) < 0 ||
		    (e = add_value(p, n, name, count, list, canon)) < 0)
			return e;
	}
	return 0;
}

/* A scalar, a list of scalars, or (integer axes) a range map. */
static int axis_values(struct parse *p, enum sb_axis a, struct fy_node *n, bool in_filter,
                       unsigned *count, char list[][SB_AXIS_NAME_MAX])
{
	const char *name = a == SB_AXIS_MASK && !in_filter ? "positions" : axis_names[a];
	char canon[SB_AXIS_NAME_MAX];
	struct fy_node *item;
	void *it = NULL;
	int e;

	*count = 0;
	if (fy_node_is_mapping(n)) {
		if (!is_int_axis(a))
			return sb_yaml_error(&p->y, n, SB_ERR_PARSE,
			                     "key '%s': expected a value or a list of values",
			                     name);
		return axis_range(p, a, n, count, list);
	}
	if (fy_node_is_scalar(n)) {
		if ((e = axis_value(p, a, n, canon)) < 0)
			return e;
		return add_value(p, n, name, count, list, canon);
	}
	if (!sb_yaml_seq_len(n))
		return sb_yaml_error(&p->y, n, SB_ERR_PARSE, "key '%s': the list is empty", name);
	while ((item = sb_yaml_seq_next(n, &it))) {
		if (!fy_node_is_scalar(item))
			return sb_yaml_error(&p->y, item, SB_ERR_PARSE,
			                     "key '%s': list items must be single values", name);
		if ((e = axis_value(p, a, item, canon)) < 0 ||
		    (e = add_value(p, item, name, count, list, canon)) < 0)
			return e;
	}
	return 0;
}

/* An axis the campaign's engine does not have is refused, naming it and the board. */
static int engine_axis(struct parse *p, enum sb_axis a, struct fy_node *at)
{
	const struct sb_campaign *c = p->c;

	if (sb_axis_for_engine(a, c->engine))
		return 0;
	if (c->engine == SB_ENGINE_HBM2)
		return sb_yaml_error(&p->y, at, SB_ERR_PARSE,
		                     "key '%s': an axis of the GUPS engine (HMC); the campaign's "
		                     "board '%s' is an HBM2 card (its axes: op, mix, mode, burst, "
		                     "stride, ws, outstanding, policy, page, refresh, temp, "
		                     "ports, target)",
		                     axis_names[a], c->device[0]);
	return sb_yaml_error(&p->y, at, SB_ERR_PARSE,
	                     "key '%s': an axis of an HBM2 card's engine; the campaign's board "
	                     "'%s' carries the GUPS engine (HMC) (an HBM2 card: a device such "
	                     "as \"sim:u280\", or bench.engine: hbm2)",
	                     axis_names[a], c->device[0]);
}

/*
 * The campaign's engine: bench.engine, else what the devices are (a sim: URI of an HBM2
 * card's profile: hbm2; others: gups). Every device must carry the same engine.
 */
static int find_engine(struct parse *p)
{
	struct sb_campaign *c = p->c;
	struct fy_node *bench = sb_yaml_get(sb_yaml_root(&p->y), "bench");
	struct fy_node *at = sb_yaml_get(bench, "device");
	bool given = c->engine_line > 0;

	for (unsigned i = 0; i < c->ndevices; i++) {
		int ue = sb_campaign_uri_engine(c->device[i], c->profile);

		if (ue < 0)
			continue;
		if (!given && i == 0) {
			c->engine = (enum sb_campaign_engine)ue;
			continue;
		}
		if ((enum sb_campaign_engine)ue != c->engine)
			return sb_yaml_error(
			    &p->y, at ? at : bench, SB_ERR_PARSE,
			    "key 'device': '%s' carries the %s engine, but the campaign's is %s%s",
			    c->device[i], ue == SB_ENGINE_HBM2 ? "HBM2 card's" : "GUPS",
			    sb_campaign_engine_name(c->engine),
			    given ? " (bench.engine)"
			          : " (its first device): one campaign runs on "
			            "one kind of board");
	}
	/* an HBM2 card's engine walks linearly unless told (stackbench point's default) */
	if (c->engine == SB_ENGINE_HBM2)
		snprintf(c->axes.value[SB_AXIS_MODE][0], SB_AXIS_NAME_MAX, "linear");
	return 0;
}

static struct fy_node *cooling_node(struct parse *p, const char *name);

/* A key of the file's root (or of a mapping at the root), for the line of a refusal. */
static struct fy_node *root_key(struct parse *p, const char *map, const char *key)
{
	struct fy_node *n = sb_yaml_get(sb_yaml_root(&p->y), map);

	return key && sb_yaml_get(n, key) ? sb_yaml_get(n, key) : n;
}

bool sb_campaign_all_sim(const struct sb_campaign *c)
{
	for (unsigned i = 0; i < c->ndevices; i++)
		if (strncmp(c->device[i], "sim:", 4))
			return false;
	return true;
}

/*
 * An HBM2 card's thermal campaign: the card's temperature sensor (sensors:) and the safety
 * limit its points stop at; what only the AC-510's bench has (a cooling rig, its
 * configurations and settling) is refused. A limit on a GUPS campaign is refused too (the
 * cube fails by itself).
 */
static int check_hbm_thermal(struct parse *p)
{
	const struct sb_campaign *c = p->c;
	const struct sb_campaign_recovery *r = &c->recovery;

	if (c->engine != SB_ENGINE_HBM2 || c->kind != SB_CAMPAIGN_THERMAL) {
		if (!isnan(r->limit_c) || !isnan(r->resume_c))
			return sb_yaml_error(
			    &p->y,
			    root_key(p, "recovery", isnan(r->limit_c) ? "resume_c" : "limit_c"),
			    SB_ERR_PARSE,
			    "key '%s': the temperature limit of an HBM2 card's thermal campaign "
			    "(kind: thermal on an HBM2 card); %s",
			    isnan(r->limit_c) ? "resume_c" : "limit_c",
			    c->engine == SB_ENGINE_HBM2
			        ? "this is a bandwidth campaign"
			        : "the AC-510's cube stops itself (its thermal failure)");
		return 0;
	}
	if (!c->inst.conn[SB_INST_TEMPERATURE][0])
		return sb_yaml_error(
		    &p->y, root_key(p, "kind", NULL), SB_ERR_PARSE,
		    "key 'kind': a thermal campaign on an HBM2 card reads the card's temperature "
		    "sensor, and the campaign names none%s: give instruments: {temperature: "
		    "\"sensors:CHIP?feature=hbm_temp\"} (and power: \"sensors:CHIP?feature="
		    "power1\"); `stackbench instruments` lists a card's sensors",
		    sb_campaign_all_sim(c) ? " (the simulated card has no thermal model: its "
		                             "stacks' temperature is the 'temp' axis, set, not "
		                             "measured)"
		                           : "");
	if (isnan(r->limit_c))
		return sb_yaml_error(&p->y, root_key(p, "kind", NULL), SB_ERR_PARSE,
		                     "key 'recovery.limit_c': a thermal campaign on an HBM2 card "
		                     "needs a temperature limit (C of its temperature source) at "
		                     "which a point's ports stop");
	if (r->limit_c - (isnan(r->resume_c) ? r->cool_margin_c : 0) <= 0 ||
	    (!isnan(r->resume_c) && r->resume_c >= r->limit_c))
		return sb_yaml_error(
		    &p->y, root_key(p, "recovery", "resume_c"), SB_ERR_PARSE,
		    "key 'resume_c': the cool-down's end (%.1f C) must be below "
		    "the limit %.1f C",
		    isnan(r->resume_c) ? r->limit_c - r->cool_margin_c : r->resume_c, r->limit_c);
	if (r->rig_abort || strcmp(r->cooling, SB_RECOVERY_STRONGEST))
		return sb_yaml_error(
		    &p->y, root_key(p, "recovery", r->rig_abort ? "rig_fault" : "cooling"),
		    SB_ERR_PARSE,
		    "key '%s': the AC-510 bench's cooling rig; an HBM2 card has "
		    "none (its cool-down waits for its sensor)",
		    r->rig_abort ? "rig_fault" : "cooling");
	return 0;
}

/* What an HBM2 card's campaign has, and what it does not (yet). */
static int check_hbm(struct parse *p)
{
	const struct sb_campaign *c = p->c;
	int e;

	if ((e = check_hbm_thermal(p)) < 0 || c->engine != SB_ENGINE_HBM2)
		return e;
	for (unsigned i = 0; i < c->axes.n[SB_AXIS_COOLING]; i++)
		if (strcmp(c->axes.value[SB_AXIS_COOLING][i], "none"))
			return sb_yaml_error(
			    &p->y, cooling_node(p, c->axes.value[SB_AXIS_COOLING][i]), SB_ERR_PARSE,
			    "key 'cooling': configuration '%s' is the AC-510 "
			    "bench's; an HBM2 card stands on no cooling rig",
			    c->axes.value[SB_AXIS_COOLING][i]);
	for (unsigned i = 0; i < c->ndevices; i++) {
		struct sb_uri u;
		const char *k = NULL;

		if (!strncmp(c->device[i], "sim:", 4) && sb_uri_parse(c->device[i], &u) == 0)
			k = sb_uri_opt(&u, "bench")     ? "bench"
			    : sb_uri_opt(&u, "cooling") ? "cooling"
			                                : NULL;
		if (k)
			return sb_yaml_error(&p->y, root_key(p, "bench", "device"), SB_ERR_PARSE,
			                     "key 'device': '%s': sim option '%s' is the AC-510 "
			                     "bench's; the simulated HBM2 card stands on no bench",
			                     c->device[i], k);
	}
	if (sb_yaml_get(sb_yaml_root(&p->y), "cooling_settle"))
		return sb_yaml_error(&p->y, root_key(p, "cooling_settle", NULL), SB_ERR_PARSE,
		                     "key 'cooling_settle': the AC-510 bench's cooling rig; an "
		                     "HBM2 card has none");
	for (int k = 0; k < SB_INST_COUNT; k++) {
		const char *conn = c->inst.conn[k];

		if (!conn[0])
			continue;
		if (k == SB_INST_COOLING || !strncmp(conn, "sim:", 4))
			return sb_yaml_error(
			    &p->y, sb_yaml_get(sb_yaml_root(&p->y), "instruments"), SB_ERR_PARSE,
			    "key '%s': '%s': an HBM2 card's campaign takes the card's own "
			    "sensors (sensors:...) or a bench's camera and meter, not %s",
			    inst_keys[k], conn,
			    k == SB_INST_COOLING ? "a cooling actuator"
			                         : "the simulated AC-510 bench's instruments");
	}
	/* An HBM2 card's trace: its pseudo channels the subpartitions, its buffer drained. */
	if (c->trace.enabled && (c->trace.cfg.banks || c->trace.cfg.path == SB_CAPTURE_DMA)) {
		struct fy_node *t = sb_yaml_get(sb_yaml_root(&p->y), "trace");

		return sb_yaml_error(
		    &p->y, sb_yaml_get(t, c->trace.cfg.banks ? "banks" : "path"), SB_ERR_PARSE,
		    c->trace.cfg.banks ? "key 'banks': an HBM2 card's trace has its pseudo "
		                         "channels as subpartitions"
		                       : "key 'path': an HBM2 card's trace buffer is drained "
		                         "(onchip or auto; the card has no DMA ring)");
	}
	return 0;
}

static int parse_mask(struct parse *p, struct fy_node *n)
{
	static const char *const keys[] = {"width", "positions", "baseline", NULL};
	struct sb_campaign_axes *ax = &p->c->axes;
	struct fy_node *pos;
	bool baseline = false;
	uint64_t width = 8;
	unsigned np;
	char list[SB_AXIS_MAX_VALUES][SB_AXIS_NAME_MAX];
	int e;

	ax->line[SB_AXIS_MASK] = sb_yaml_line(n);
	if (fy_node_is_scalar(n)) {
		const char *s = fy_node_get_scalar0(n);

		if (s && !strcmp(s, "none"))
			return 0; /* the default: no mask */
	}
	if ((e = sb_yaml_expect_map(&p->y, n, "key 'mask' (none, or width/positions/baseline)")) <
	        0 ||
	    (e = sb_yaml_check_keys(&p->y, n, "mask", keys)) < 0 ||
	    (e = sb_yaml_get_u64(&p->y, n, "width", false, 1, 34, &width)) < 0 ||
	    (e = sb_yaml_get_bool(&p->y, n, "baseline", false, &baseline)) < 0)
		return e;
	pos = sb_yaml_get(n, "positions");
	if (!pos)
		return sb_yaml_error(&p->y, n, SB_ERR_PARSE, "missing key 'positions' in 'mask'");
	if ((e = axis_values(p, SB_AXIS_MASK, pos, false, &np, list)) < 0)
		return e;
	ax->mask_width = (unsigned)width;
	ax->n[SB_AXIS_MASK] = 0;
	if (baseline)
		snprintf(ax->value[SB_AXIS_MASK][ax->n[SB_AXIS_MASK]++], SB_AXIS_NAME_MAX, "none");
	for (unsigned i = 0; i < np; i++) {
		unsigned lo = (unsigned)strtoul(list[i], NULL, 10);

		if (!strcmp(list[i], "none"))
			return sb_yaml_error(&p->y, pos, SB_ERR_PARSE,
			                     "key 'positions': use 'baseline: true' for a point "
			                     "without a mask");
		if (lo + width - 1 > 33)
			return sb_yaml_error(&p->y, pos, SB_ERR_PARSE,
			                     "key 'positions': a %llu-bit mask at bit %u ends past "
			                     "address bit 33",
			                     (unsigned long long)width, lo);
		if ((e = add_value(p, pos, "positions", &ax->n[SB_AXIS_MASK],
		                   ax->value[SB_AXIS_MASK], list[i])) < 0)
			return e;
	}
	return 0;
}

static int parse_sweep(struct parse *p, struct fy_node *n)
{
	static const char *const keys[] = {
	    "type",    "size",   "pattern", "mode",        "addr_mode", "ports",
	    "stream",  "mask",   "cooling", "repetitions", "repeat",    "temp",
	    "refresh", "page",   "policy",  "target",      "op",        "mix",
	    "burst",   "stride", "ws",      "outstanding", NULL};
	struct sb_campaign_axes *ax = &p->c->axes;
	uint64_t reps = 1;
	int e;

	if ((e = sb_yaml_expect_map(&p->y, n, "key 'sweep'")) < 0 ||
	    (e = sb_yaml_check_keys(&p->y, n, "sweep", keys)) < 0)
		return e;
	for (int a = 0; a < SB_AXIS_COUNT; a++) {
		struct fy_node *v = sb_yaml_get(n, axis_names[a]);

		if (!v || a == SB_AXIS_REP)
			continue;
		if ((e = engine_axis(p, (enum sb_axis)a, v)) < 0)
			return e;
		if (a == SB_AXIS_MASK) {
			if ((e = parse_mask(p, v)) < 0)
				return e;
			continue;
		}
		ax->line[a] = sb_yaml_line(v);
		if ((e = axis_values(p, (enum sb_axis)a, v, false, &ax->n[a], ax->value[a])) < 0)
			return e;
	}
	/* repeat: is another name of repetitions */
	if (sb_yaml_get(n, "repeat") && sb_yaml_get(n, "repetitions"))
		return sb_yaml_error(
		    &p->y, sb_yaml_get(n, "repeat"), SB_ERR_PARSE,
		    "keys 'repeat' and 'repetitions' name the same axis: give one");
	if ((e = sb_yaml_get_u64(&p->y, n, sb_yaml_get(n, "repeat") ? "repeat" : "repetitions",
	                         false, 1, 100000, &reps)) < 0)
		return e;
	ax->n[SB_AXIS_REP] = (unsigned)reps;
	return 0;
}

static int parse_filters(struct parse *p, struct fy_node *n, const char *key,
                         struct sb_campaign_filter **out, unsigned *count)
{
	struct fy_node *entry;
	void *it = NULL;
	unsigned k = 0;
	int e;

	if ((e = sb_yaml_expect_seq(&p->y, n, key)) < 0)
		return e;
	if (sb_yaml_seq_len(n) > SB_CAMPAIGN_MAX_FILTERS)
		return sb_yaml_error(&p->y, n, SB_ERR_PARSE, "key '%s': more than %d entries", key,
		                     SB_CAMPAIGN_MAX_FILTERS);
	*out = calloc((size_t)sb_yaml_seq_len(n) + 1, sizeof(**out));
	if (!*out)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	while ((entry = sb_yaml_seq_next(n, &it))) {
		struct sb_campaign_filter *f = &(*out)[k++];
		struct fy_node *v, *kn;
		const char *name;
		void *mit = NULL;

		*count = k;
		if ((e = sb_yaml_expect_map(&p->y, entry, key)) < 0)
			return e;
		if (!fy_node_mapping_item_count(entry))
			return sb_yaml_error(&p->y, entry, SB_ERR_PARSE,
			                     "key '%s': an entry must name at least one axis", key);
		f->line = sb_yaml_line(entry);
		while (sb_yaml_map_next(entry, &mit, &name, &v, &kn)) {
			int a;

			for (a = 0; a < SB_AXIS_COUNT; a++)
				if (a != SB_AXIS_REP && !strcmp(name, axis_names[a]))
					break;
			if (a == SB_AXIS_COUNT)
				return sb_yaml_error(
				    &p->y, kn, SB_ERR_PARSE,
				    "unknown key '%s' in '%s' (expected an axis: %s)", name, key,
				    p->c->engine == SB_ENGINE_HBM2
				        ? "temp, refresh, page, policy, target, ports, op, mix, "
				          "mode, burst, stride, ws, outstanding, cooling"
				        : "type, size, pattern, mode, addr_mode, ports, stream, "
				          "mask, cooling");
			if ((e = engine_axis(p, (enum sb_axis)a, kn)) < 0)
				return e;
			if ((e = axis_values(p, (enum sb_axis)a, v, true, &f->n[a], f->value[a])) <
			    0)
				return e;
		}
	}
	return 0;
}

static int parse_bench(struct parse *p, struct fy_node *n)
{
	static const char *const keys[] = {"device", "profile", "engine", NULL};
	static const char *const engines[] = {"gups", "hbm2", NULL};
	struct sb_campaign *c = p->c;
	struct fy_node *dev, *item;
	const char *profile = NULL;
	void *it = NULL;
	int e, idx;

	if ((e = sb_yaml_expect_map(&p->y, n, "key 'bench'")) < 0 ||
	    (e = sb_yaml_check_keys(&p->y, n, "bench", keys)) < 0 ||
	    (e = sb_yaml_get_str(&p->y, n, "profile", false, &profile)) < 0 ||
	    (e = sb_yaml_get_enum(&p->y, n, "engine", false, engines, &idx)) < 0)
		return e;
	if (e == 1) {
		c->engine = (enum sb_campaign_engine)idx;
		c->engine_line = sb_yaml_line(sb_yaml_get(n, "engine"));
	}
	if (profile) {
		if (!*profile || strlen(profile) >= sizeof(c->profile) || strpbrk(profile, "?&"))
			return sb_yaml_error(&p->y, sb_yaml_get(n, "profile"), SB_ERR_PARSE,
			                     "key 'profile': '%s' is not a profile name", profile);
		snprintf(c->profile, sizeof(c->profile), "%s", profile);
	}
	dev = sb_yaml_get(n, "device");
	if (!dev)
		return 0;
	c->ndevices = 0;
	if (fy_node_is_sequence(dev)) {
		if (!sb_yaml_seq_len(dev))
			return sb_yaml_error(&p->y, dev, SB_ERR_PARSE,
			                     "key 'device': the list is empty");
		item = sb_yaml_seq_next(dev, &it);
	} else {
		item = dev;
	}
	for (; item; item = fy_node_is_sequence(dev) ? sb_yaml_seq_next(dev, &it) : NULL) {
		struct sb_uri u;
		const char *s;

		if ((e = sb_yaml_to_str(&p->y, item, "key 'device'", &s)) < 0)
			return e;
		if (c->ndevices >= SB_CAMPAIGN_MAX_DEVICES)
			return sb_yaml_error(&p->y, item, SB_ERR_PARSE,
			                     "key 'device': more than %d devices",
			                     SB_CAMPAIGN_MAX_DEVICES);
		if (sb_uri_parse(s, &u) < 0 ||
		    strlen(s) >= SB_CAMPAIGN_TEXT_MAX - SB_CAMPAIGN_NAME_MAX)
			return sb_yaml_error(&p->y, item, SB_ERR_PARSE, "key 'device': %s",
			                     sb_error_detail());
		snprintf(c->device[c->ndevices++], SB_CAMPAIGN_TEXT_MAX, "%s", s);
	}
	return 0;
}

/* sim: URIs without a profile get the campaign's profile. */
static void apply_profile(struct sb_campaign *c)
{
	for (unsigned i = 0; i < c->ndevices && c->profile[0]; i++) {
		char *d = c->device[i];
		char tmp[SB_CAMPAIGN_TEXT_MAX];

		if (strncmp(d, "sim:", 4) || (d[4] && d[4] != '?'))
			continue;
		snprintf(tmp, sizeof(tmp), "sim:%s%s", c->profile, d + 4);
		memcpy(d, tmp, sizeof(tmp));
	}
}

int sb_campaign_set_device(struct sb_campaign *c, const char *uri)
{
	struct sb_uri u;
	int e;

	if ((e = sb_uri_parse(uri, &u)) < 0)
		return e;
	if (strlen(uri) >= SB_CAMPAIGN_TEXT_MAX - SB_CAMPAIGN_NAME_MAX)
		return sb_error_set(SB_ERR_URI, "device URI '%.40s...': longer than %d characters",
		                    uri, SB_CAMPAIGN_TEXT_MAX - SB_CAMPAIGN_NAME_MAX - 1);
	snprintf(c->device[0], sizeof(c->device[0]), "%s", uri);
	c->ndevices = 1;
	apply_profile(c);
	return 0;
}

static int parse_durations(struct parse *p, struct fy_node *n)
{
	static const char *const keys[] = {"bandwidth_s", "thermal_s", "stream_groups",
	                                   "warmup_us",   "window_us", NULL};
	static const char *const hbm_keys[] = {"warmup_us", "window_us"};
	struct sb_campaign *c = p->c;
	int e;

	if ((e = sb_yaml_expect_map(&p->y, n, "key 'durations'")) < 0 ||
	    (e = sb_yaml_check_keys(&p->y, n, "durations", keys)) < 0)
		return e;
	for (int k = 0; k < 2 && c->engine != SB_ENGINE_HBM2; k++)
		if (sb_yaml_get(n, hbm_keys[k]))
			return sb_yaml_error(&p->y, sb_yaml_get(n, hbm_keys[k]), SB_ERR_PARSE,
			                     "key '%s': a duration of an HBM2 card's points; the "
			                     "campaign's board '%s' carries the GUPS engine (its "
			                     "points run bandwidth_s or thermal_s)",
			                     hbm_keys[k], c->device[0]);
	if ((e = sb_yaml_get_double(&p->y, n, "warmup_us", false, 0, 1e6, &c->hbm_warmup_us)) < 0 ||
	    (e = sb_yaml_get_double(&p->y, n, "window_us", false, 0.01, 1e7, &c->hbm_window_us)) <
	        0 ||
	    (e = sb_yaml_get_double(&p->y, n, "bandwidth_s", false, 1e-6, 604800,
	                            &c->bandwidth_s)) < 0 ||
	    (e = sb_yaml_get_double(&p->y, n, "thermal_s", false, 1e-6, 604800, &c->thermal_s)) <
	        0 ||
	    (e = sb_yaml_get_u64(&p->y, n, "stream_groups", false, 1, 100000000,
	                         &c->stream_groups)) < 0)
		return e;
	return 0;
}

/* One connection string of 'instruments' (none: no instrument of that kind). */
static int inst_conn(struct parse *p, struct fy_node *n, enum sb_campaign_inst kind)
{
	struct sb_campaign_instruments *in = &p->c->inst;
	char what[48];
	const char *s;
	int e;

	snprintf(what, sizeof(what), "key '%s'", inst_keys[kind]);
	if ((e = sb_yaml_to_str(&p->y, n, what, &s)) < 0)
		return e;
	if (!strcmp(s, "none"))
		return 0;
	if (strlen(s) >= sizeof(in->conn[kind]))
		return sb_yaml_error(&p->y, n, SB_ERR_PARSE, "%s: longer than %zu characters", what,
		                     sizeof(in->conn[kind]) - 1);
	if ((e = sb_instrument_check((enum sb_instrument_kind)kind, s)) < 0)
		return sb_yaml_error(&p->y, n, e == SB_ERR_NOT_SUPPORTED ? e : SB_ERR_PARSE,
		                     "%s: %s", what, sb_error_detail());
	snprintf(in->conn[kind], sizeof(in->conn[kind]), "%s", s);
	in->line[kind] = sb_yaml_line(n);
	return 0;
}

/*
 * instruments: none | sim (the simulated camera, meter and fans), or a mapping of connection
 * strings {temperature, power, cooling}.
 */
static int parse_instruments(struct parse *p, struct fy_node *n)
{
	static const char *const keys[] = {"temperature", "power", "cooling", NULL};
	struct sb_campaign *c = p->c;
	int e;

	c->instruments_line = sb_yaml_line(n);
	if (fy_node_is_scalar(n)) {
		const char *s = fy_node_get_scalar0(n);

		if (s && !strcmp(s, "none"))
			return 0;
		if (!s || strcmp(s, "sim"))
			return sb_yaml_error(
			    &p->y, n, SB_ERR_PARSE,
			    "key 'instruments': unknown value '%s' (expected none, "
			    "sim, or a mapping of connection strings: temperature, "
			    "power, cooling)",
			    s ? s : "");
		for (int k = 0; k < SB_INST_COUNT; k++) {
			snprintf(c->inst.conn[k], sizeof(c->inst.conn[k]), "sim:");
			c->inst.line[k] = c->instruments_line;
		}
		return 0;
	}
	if ((e = sb_yaml_expect_map(&p->y, n, "key 'instruments' (none, sim, or a mapping)")) < 0 ||
	    (e = sb_yaml_check_keys(&p->y, n, "instruments", keys)) < 0)
		return e;
	for (int k = 0; k < SB_INST_COUNT; k++) {
		struct fy_node *v = sb_yaml_get(n, inst_keys[k]);

		if (v && (e = inst_conn(p, v, (enum sb_campaign_inst)k)) < 0)
			return e;
	}
	return 0;
}

/* recovery: {retries, cool_margin_c, cool_max_s, cooling, rig_fault}. */
static int parse_recovery(struct parse *p, struct fy_node *n)
{
	static const char *const keys[] = {"retries",   "cool_margin_c", "cool_max_s", "cooling",
	                                   "rig_fault", "limit_c",       "resume_c",   NULL};
	static const char *const rig_fault[] = {"recover", "abort", NULL};
	struct sb_campaign_recovery *r = &p->c->recovery;
	const char *s = NULL;
	uint64_t retries = 0;
	int e, idx;

	r->line = sb_yaml_line(n);
	if ((e = sb_yaml_expect_map(&p->y, n, "key 'recovery'")) < 0 ||
	    (e = sb_yaml_check_keys(&p->y, n, "recovery", keys)) < 0 ||
	    (e = sb_yaml_get_u64(&p->y, n, "retries", false, 0, 100, &retries)) < 0 ||
	    (e = sb_yaml_get_double(&p->y, n, "cool_margin_c", false, 0, 100, &r->cool_margin_c)) <
	        0 ||
	    (e = sb_yaml_get_double(&p->y, n, "cool_max_s", false, 0, 604800, &r->cool_max_s)) <
	        0 ||
	    (e = sb_yaml_get_double(&p->y, n, "limit_c", false, 1, 150, &r->limit_c)) < 0 ||
	    (e = sb_yaml_get_double(&p->y, n, "resume_c", false, 0, 150, &r->resume_c)) < 0 ||
	    (e = sb_yaml_get_str(&p->y, n, "cooling", false, &s)) < 0)
		return e;
	if (sb_yaml_get(n, "limit_c"))
		r->limit_line = sb_yaml_line(sb_yaml_get(n, "limit_c"));
	if ((e = sb_yaml_get_enum(&p->y, n, "rig_fault", false, rig_fault, &idx)) < 0)
		return e;
	if (e == 1)
		r->rig_abort = idx == 1;
	r->retries = (unsigned)retries;
	if (s) {
		if ((e = cooling_name(p, sb_yaml_get(n, "cooling"), "key 'cooling'", s)) < 0)
			return e;
		snprintf(r->cooling, sizeof(r->cooling), "%s", s);
		r->line = sb_yaml_line(sb_yaml_get(n, "cooling"));
	}
	return 0;
}

/* cooling_settle: {tolerance_c, window_s, max_s, poll_s} (window_s 0: do not wait). */
static int parse_settle(struct parse *p, struct fy_node *n)
{
	static const char *const keys[] = {"tolerance_c", "window_s", "max_s", "poll_s", NULL};
	struct sb_cooling_settle *s = &p->c->settle;
	int e;

	if ((e = sb_yaml_expect_map(&p->y, n, "key 'cooling_settle'")) < 0 ||
	    (e = sb_yaml_check_keys(&p->y, n, "cooling_settle", keys)) < 0 ||
	    (e = sb_yaml_get_double(&p->y, n, "tolerance_c", false, 0.01, 20, &s->tolerance_c)) <
	        0 ||
	    (e = sb_yaml_get_double(&p->y, n, "window_s", false, 0, 3600, &s->window_s)) < 0 ||
	    (e = sb_yaml_get_double(&p->y, n, "max_s", false, 0, 86400, &s->max_s)) < 0 ||
	    (e = sb_yaml_get_double(&p->y, n, "poll_s", false, 0.01, 60, &s->poll_s)) < 0)
		return e;
	return 0;
}

/*
 * trace: none | on | {burst, gap, ports, banks, path}: capture every GUPS point into an sbt
 * trace beside the database.
 */
static int parse_trace(struct parse *p, struct fy_node *n)
{
	static const char *const keys[] = {"burst", "gap", "ports", "banks", "path", NULL};
	static const char *const paths[] = {"auto", "onchip", "dma", NULL};
	struct sb_campaign_trace *t = &p->c->trace;
	uint64_t v;
	const char *s;
	int e, idx;

	sb_capture_config_init(&t->cfg);
	t->line = sb_yaml_line(n);
	if (fy_node_is_scalar(n)) {
		s = fy_node_get_scalar0(n);
		if (s && !strcmp(s, "none"))
			return 0;
		if (!s || strcmp(s, "on"))
			return sb_yaml_error(
			    &p->y, n, SB_ERR_PARSE,
			    "key 'trace': unknown value '%s' (expected none, on, or a "
			    "mapping: burst, gap, ports, banks, path)",
			    s ? s : "");
		t->enabled = true;
		return 0;
	}
	if ((e = sb_yaml_expect_map(&p->y, n, "key 'trace' (none, on, or a mapping)")) < 0 ||
	    (e = sb_yaml_check_keys(&p->y, n, "trace", keys)) < 0)
		return e;
	t->enabled = true;
	if ((e = sb_yaml_get_u64(&p->y, n, "burst", false, 0, UINT32_MAX, &v)) < 0)
		return e;
	if (e == 1)
		t->cfg.burst_records = (uint32_t)v;
	if ((e = sb_yaml_get_u64(&p->y, n, "gap", false, 0, UINT32_MAX, &v)) < 0)
		return e;
	if (e == 1)
		t->cfg.gap_cycles = (uint32_t)v;
	if ((e = sb_yaml_get_bool(&p->y, n, "banks", false, &t->cfg.banks)) < 0 ||
	    (e = sb_yaml_get_enum(&p->y, n, "path", false, paths, &idx)) < 0)
		return e;
	if (e == 1)
		t->cfg.path = (enum sb_capture_path)idx;
	if ((e = sb_yaml_get_str(&p->y, n, "ports", false, &s)) < 0)
		return e;
	if (e == 1 && sb_capture_parse_ports(s, &t->cfg.port_mask) < 0)
		return sb_yaml_error(&p->y, sb_yaml_get(n, "ports"), SB_ERR_PARSE,
		                     "key 'ports': %s", sb_error_detail());
	return 0;
}

/* notify: [ARGV...] or {command: [ARGV...], on: [EVENTS], timeout_s: S} */
static int parse_notify(struct parse *p, struct fy_node *n)
{
	static const char *const keys[] = {"command", "on", "timeout_s", NULL};
	struct sb_campaign_notify *nf = &p->c->notify;
	struct fy_node *cmd = n, *it, *on = NULL;
	size_t used = 0;
	void *iter = NULL;
	const char *s;
	int e, idx;

	nf->on = SB_NOTIFY_ALL;
	nf->timeout_s = 10;
	nf->line = sb_yaml_line(n);
	if (fy_node_is_mapping(n)) {
		if ((e = sb_yaml_check_keys(&p->y, n, "notify", keys)) < 0 ||
		    (e = sb_yaml_get_double(&p->y, n, "timeout_s", false, 0.1, 3600,
		                            &nf->timeout_s)) < 0)
			return e;
		if (!(cmd = sb_yaml_get(n, "command")))
			return sb_yaml_error(&p->y, n, SB_ERR_PARSE,
			                     "missing key 'command' in 'notify'");
		on = sb_yaml_get(n, "on");
	}
	if ((e = sb_yaml_expect_seq(&p->y, cmd,
	                            "key 'notify' (a command as a list: [PROGRAM, "
	                            "ARG...], never a shell line)")) < 0)
		return e;
	if (sb_yaml_seq_len(cmd) < 1 || sb_yaml_seq_len(cmd) > SB_NOTIFY_MAX_ARGS)
		return sb_yaml_error(&p->y, cmd, SB_ERR_PARSE,
		                     "key 'notify': a program and at most %d arguments in all",
		                     SB_NOTIFY_MAX_ARGS);
	while ((it = sb_yaml_seq_next(cmd, &iter))) {
		size_t len;

		if ((e = sb_yaml_to_str(&p->y, it, "key 'notify'", &s)) < 0)
			return e;
		len = strlen(s);
		if (!nf->argc && !len)
			return sb_yaml_error(&p->y, it, SB_ERR_PARSE,
			                     "key 'notify': an empty program");
		if (used + len + 1 > sizeof(nf->text))
			return sb_yaml_error(&p->y, it, SB_ERR_PARSE,
			                     "key 'notify': the command is longer than %zu bytes",
			                     sizeof(nf->text) - 1);
		memcpy(nf->text + used, s, len + 1);
		nf->off[nf->argc++] = (unsigned)used;
		used += len + 1;
	}
	if (on) {
		static const char *const events[] = {"done", "failed", "cancelled",
		                                     "thermal_failure", NULL};

		iter = NULL;
		nf->on = 0;
		if ((e = sb_yaml_expect_seq(&p->y, on, "key 'on' in 'notify'")) < 0)
			return e;
		while ((it = sb_yaml_seq_next(on, &iter))) {
			if ((e = sb_yaml_to_enum(&p->y, it, "key 'on' in 'notify'", events, &idx)) <
			    0)
				return e;
			nf->on |= 1u << idx;
		}
	}
	return 0;
}

static int parse_root(struct parse *p)
{
	static const char *const keys[] = {"format",
	                                   "name",
	                                   "description",
	                                   "kind",
	                                   "bench",
	                                   "instruments",
	                                   "durations",
	                                   "sample_interval_ms",
	                                   "seed",
	                                   "fast_forward",
	                                   "sweep",
	                                   "exclude",
	                                   "only",
	                                   "recovery",
	                                   "cooling_settle",
	                                   "trace",
	                                   "port_order",
	                                   "notify",
	                                   NULL};
	struct sb_campaign *c = p->c;
	struct fy_node *root = sb_yaml_root(&p->y), *n;
	const char *s;
	uint64_t format = SB_CAMPAIGN_FORMAT;
	int e, idx;

	if (!root)
		return sb_yaml_error(&p->y, NULL, SB_ERR_PARSE, "the file is empty");
	if ((e = sb_yaml_expect_map(&p->y, root, "the document")) < 0 ||
	    (e = sb_yaml_check_keys(&p->y, root, "campaign", keys)) < 0 ||
	    (e = sb_yaml_get_u64(&p->y, root, "format", false, SB_CAMPAIGN_FORMAT,
	                         SB_CAMPAIGN_FORMAT, &format)) < 0)
		return e;
	if ((e = sb_yaml_get_str(&p->y, root, "name", false, &s)) < 0)
		return e;
	if (e == 1) {
		if (!*s || strlen(s) >= sizeof(c->name))
			return sb_yaml_error(&p->y, sb_yaml_get(root, "name"), SB_ERR_PARSE,
			                     "key 'name': 1..%zu characters", sizeof(c->name) - 1);
		snprintf(c->name, sizeof(c->name), "%s", s);
	}
	if ((e = sb_yaml_get_str(&p->y, root, "description", false, &s)) < 0)
		return e;
	if (e == 1)
		snprintf(c->description, sizeof(c->description), "%s", s);
	if ((e = sb_yaml_get_enum(&p->y, root, "kind", false, kind_names, &idx)) < 0)
		return e;
	if (e == 1)
		c->kind = (enum sb_campaign_kind)idx;
	if ((e = sb_yaml_get_enum(&p->y, root, "port_order", false, port_order_names, &idx)) < 0)
		return e;
	if (e == 1)
		c->port_order = (enum sb_port_order)idx;
	if ((n = sb_yaml_get(root, "bench")) && (e = parse_bench(p, n)) < 0)
		return e;
	if ((e = find_engine(p)) < 0)
		return e;
	if ((n = sb_yaml_get(root, "instruments")) && (e = parse_instruments(p, n)) < 0)
		return e;
	if ((n = sb_yaml_get(root, "recovery")) && (e = parse_recovery(p, n)) < 0)
		return e;
	if ((n = sb_yaml_get(root, "cooling_settle")) && (e = parse_settle(p, n)) < 0)
		return e;
	if ((n = sb_yaml_get(root, "durations")) && (e = parse_durations(p, n)) < 0)
		return e;
	if ((n = sb_yaml_get(root, "trace")) && (e = parse_trace(p, n)) < 0)
		return e;
	if ((n = sb_yaml_get(root, "notify")) && (e = parse_notify(p, n)) < 0)
		return e;
	if ((e = sb_yaml_get_double(&p->y, root, "sample_interval_ms", false, 0.01, 3600000,
	                            &c->sample_interval_ms)) < 0 ||
	    (e = sb_yaml_get_u64(&p->y, root, "seed", false, 0, UINT64_MAX, &c->seed)) < 0 ||
	    (e = sb_yaml_get_bool(&p->y, root, "fast_forward", false, &c->fast_forward)) < 0)
		return e;
	if ((n = sb_yaml_get(root, "sweep")) && (e = parse_sweep(p, n)) < 0)
		return e;
	if ((n = sb_yaml_get(root, "exclude")) &&
	    (e = parse_filters(p, n, "exclude", &c->exclude, &c->nexclude)) < 0)
		return e;
	if ((n = sb_yaml_get(root, "only")) &&
	    (e = parse_filters(p, n, "only", &c->only, &c->nonly)) < 0)
		return e;
	return 0;
}

/* --- instruments and cooling, across keys ------------------------------------------------ */

/* The node of a cooling name in the file: the list item of the axis, or the axis. */
static struct fy_node *cooling_node(struct parse *p, const char *name)
{
	struct fy_node *n = sb_yaml_get(sb_yaml_get(sb_yaml_root(&p->y), "sweep"), "cooling"), *it;
	void *iter = NULL;

	if (n && fy_node_is_sequence(n))
		while ((it = sb_yaml_seq_next(n, &iter)))
			if (fy_node_get_scalar0(it) && !strcmp(fy_node_get_scalar0(it), name))
				return it;
	return n;
}

/*
 * On the simulated bench the configurations are the bench file's (the device's bench= option,
 * else the default bench): check every name against each sim: device's bench now, so a typo
 * fails before anything runs. Other actuators are checked when the engine opens them.
 */
static int check_cooling_names(struct parse *p, const char *names[], struct fy_node *at[],
                               unsigned n)
{
	const struct sb_campaign *c = p->c;
	struct sb_bench_params *bp;
	int e = 0;

	if (strncmp(c->inst.conn[SB_INST_COOLING], "sim:", 4) || !n)
		return 0;
	bp = malloc(sizeof(*bp));
	if (!bp)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	for (unsigned d = 0; d < c->ndevices && e >= 0; d++) {
		struct sb_uri u;

		if (strncmp(c->device[d], "sim:", 4) || sb_uri_parse(c->device[d], &u) < 0)
			continue;
		if (sb_bench_params_load(bp, sb_uri_opt(&u, "bench")) < 0)
			continue; /* the engine reports it when it opens the device */
		for (unsigned i = 0; i < n && e >= 0; i++)
			if (sb_bench_find_cooling(bp, names[i]) < 0)
				e = sb_yaml_error(&p->y, at[i], SB_ERR_PARSE,
				                  "key 'cooling': %s (bench '%s')",
				                  sb_error_detail(), bp->name);
	}
	free(bp);
	return e;
}

/* Cooling configurations need a cooling actuator, and must be the bench's. */
static int check_cooling(struct parse *p)
{
	const struct sb_campaign *c = p->c;
	const struct sb_campaign_recovery *r = &c->recovery;
	bool actuator = sb_campaign_has_inst(c, SB_INST_COOLING);
	const char *names[SB_AXIS_MAX_VALUES + 1];
	struct fy_node *at[SB_AXIS_MAX_VALUES + 1];
	struct fy_node *rn = sb_yaml_get(sb_yaml_get(sb_yaml_root(&p->y), "recovery"), "cooling");
	unsigned n = 0;

	for (unsigned i = 0; i < c->axes.n[SB_AXIS_COOLING]; i++) {
		const char *v = c->axes.value[SB_AXIS_COOLING][i];

		if (!strcmp(v, "none"))
			continue;
		at[n] = cooling_node(p, v);
		names[n++] = v;
		if (!actuator)
			return sb_yaml_error(&p->y, at[n - 1], SB_ERR_PARSE,
			                     "key 'cooling': configuration '%s' needs a cooling "
			                     "actuator: set 'instruments' to sim, or give "
			                     "instruments.cooling (e.g. \"sim:\")",
			                     v);
	}
	if (strcmp(r->cooling, SB_RECOVERY_STRONGEST) && strcmp(r->cooling, SB_RECOVERY_KEEP)) {
		if (!actuator)
			return sb_yaml_error(
			    &p->y, rn, SB_ERR_PARSE,
			    "key 'cooling': recovery in configuration '%s' needs a "
			    "cooling actuator (instruments.cooling)",
			    r->cooling);
		at[n] = rn;
		names[n++] = r->cooling;
	}
	return check_cooling_names(p, names, at, n);
}

/* --- expansion ----------------------------------------------------------------------------- */

static void axis_text(const struct sb_campaign *c, enum sb_axis a, unsigned i, char *buf,
                      size_t size)
{
	if (a == SB_AXIS_REP)
		snprintf(buf, size, "%u", i);
	else
		snprintf(buf, size, "%s", c->axes.value[a][i]);
}

static bool filter_match(const struct sb_campaign_filter *f, char text[][SB_AXIS_NAME_MAX])
{
	for (int a = 0; a < SB_AXIS_COUNT; a++) {
		bool hit = false;

		if (!f->n[a])
			continue;
		for (unsigned k = 0; k < f->n[a] && !hit; k++)
			hit = !strcmp(f->value[a][k], text[a]);
		if (!hit)
			return false;
	}
	return true;
}

static bool keep_point(const struct sb_campaign *c, char text[][SB_AXIS_NAME_MAX])
{
	bool any = !c->nonly;

	for (unsigned i = 0; i < c->nonly && !any; i++)
		any = filter_match(&c->only[i], text);
	if (!any)
		return false;
	for (unsigned i = 0; i < c->nexclude; i++)
		if (filter_match(&c->exclude[i], text))
			return false;
	return true;
}

static uint64_t fnv1a64(const char *s)
{
	return sb_fnv1a64(s, strlen(s));
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static void make_point(const struct sb_campaign *c, char text[][SB_AXIS_NAME_MAX],
                       struct sb_campaign_point *pt)
{
	int idx;

	if (c->engine == SB_ENGINE_HBM2) {
		snprintf(pt->cooling, sizeof(pt->cooling), "%s", text[SB_AXIS_COOLING]);
		pt->rep = (unsigned)strtoul(text[SB_AXIS_REP], NULL, 10);
		pt->mask_lo = -1;
		sb_hbm_point_fill(text, pt);
		/* the GUPS fields the store's points table has, from the HBM2 settings */
		pt->type = pt->hbm.rw == SB_HBM_RW_READ    ? SB_REQ_RO
		           : pt->hbm.rw == SB_HBM_RW_WRITE ? SB_REQ_WO
		                                           : SB_REQ_RW;
		pt->size = pt->hbm.burst;
		pt->mode = pt->hbm.random ? SB_GEN_RANDOM : SB_GEN_LINEAR;
		snprintf(pt->pattern, sizeof(pt->pattern), "%s", text[SB_AXIS_TARGET]);
		snprintf(pt->key, sizeof(pt->key),
		         "cooling=%s rep=%s temp=%s refresh=%s page=%s policy=%s target=%s "
		         "ports=%s op=%s mix=%s mode=%s burst=%s stride=%s ws=%s outstanding=%s",
		         text[SB_AXIS_COOLING], text[SB_AXIS_REP], text[SB_AXIS_TEMP],
		         text[SB_AXIS_REFRESH], text[SB_AXIS_PAGE], text[SB_AXIS_POLICY],
		         text[SB_AXIS_TARGET], text[SB_AXIS_PORTS], text[SB_AXIS_OP],
		         text[SB_AXIS_MIX], text[SB_AXIS_MODE], text[SB_AXIS_BURST],
		         text[SB_AXIS_STRIDE], text[SB_AXIS_WS], text[SB_AXIS_OUTSTANDING]);
		goto seed;
	}
	snprintf(pt->cooling, sizeof(pt->cooling), "%s", text[SB_AXIS_COOLING]);
	pt->rep = (unsigned)strtoul(text[SB_AXIS_REP], NULL, 10);
	for (idx = 0; type_names[idx] && strcmp(type_names[idx], text[SB_AXIS_TYPE]); idx++)
		;
	pt->type = (enum sb_req_type)idx;
	pt->size = (unsigned)strtoul(text[SB_AXIS_SIZE], NULL, 10);
	snprintf(pt->pattern, sizeof(pt->pattern), "%s", text[SB_AXIS_PATTERN]);
	pt->mode = strcmp(text[SB_AXIS_MODE], "linear") ? SB_GEN_RANDOM : SB_GEN_LINEAR;
	pt->addr_mode = strcmp(text[SB_AXIS_ADDR_MODE], "keep")
	                    ? (unsigned)strtoul(text[SB_AXIS_ADDR_MODE], NULL, 10)
	                    : 0;
	pt->ports = strcmp(text[SB_AXIS_PORTS], "all")
	                ? (unsigned)strtoul(text[SB_AXIS_PORTS], NULL, 10)
	                : 0;
	pt->idle = !strcmp(text[SB_AXIS_PORTS], "0");
	pt->stream = (unsigned)strtoul(text[SB_AXIS_STREAM], NULL, 10);
	pt->mask_lo =
	    strcmp(text[SB_AXIS_MASK], "none") ? (int)strtol(text[SB_AXIS_MASK], NULL, 10) : -1;
	pt->mask_width = pt->mask_lo < 0 ? 0 : c->axes.mask_width;
	snprintf(pt->key, sizeof(pt->key),
	         "cooling=%s rep=%s type=%s size=%s pattern=%s mode=%s addr_mode=%s ports=%s "
	         "stream=%s mask=%s/%u",
	         text[SB_AXIS_COOLING], text[SB_AXIS_REP], text[SB_AXIS_TYPE], text[SB_AXIS_SIZE],
	         text[SB_AXIS_PATTERN], text[SB_AXIS_MODE], text[SB_AXIS_ADDR_MODE],
	         text[SB_AXIS_PORTS], text[SB_AXIS_STREAM], text[SB_AXIS_MASK], pt->mask_width);
seed:
	pt->seed = splitmix64(c->seed ^ fnv1a64(pt->key));
	if (!pt->seed)
		pt->seed = 1;
}

static int expand(struct parse *p)
{
	struct sb_campaign *c = p->c;
	unsigned idx[SB_AXIS_COUNT] = {0};
	uint64_t total = 1;
	char text[SB_AXIS_COUNT][SB_AXIS_NAME_MAX];

	for (int a = 0; a < SB_AXIS_COUNT; a++)
		total *= c->axes.n[a];
	if (total > SB_CAMPAIGN_MAX_POINTS)
		return sb_yaml_error(&p->y, NULL, SB_ERR_PARSE,
		                     "key 'sweep': %llu points (more than %d)",
		                     (unsigned long long)total, SB_CAMPAIGN_MAX_POINTS);
	c->points = calloc(total, sizeof(*c->points));
	if (!c->points)
		return sb_error_set(SB_ERR_NOMEM, "out of memory expanding '%s'", p->y.name);
	c->npoints = 0;
	for (uint64_t k = 0; k < total; k++) {
		struct sb_campaign_point *pt = &c->points[c->npoints];

		for (int a = 0; a < SB_AXIS_COUNT; a++)
			axis_text(c, (enum sb_axis)a, idx[a], text[a], sizeof(text[a]));
		if (keep_point(c, text)) {
			make_point(c, text, pt);
			pt->index = c->npoints++;
			if (pt->stream && pt->type == SB_REQ_RW && pt->stream % 2)
				return sb_yaml_error(
				    &p->y,
				    sb_yaml_get(sb_yaml_get(sb_yaml_root(&p->y), "sweep"),
				                "stream"),
				    SB_ERR_PARSE,
				    "key 'stream': an rw stream group writes then reads back, so "
				    "its "
				    "size must be even (point '%s'); exclude odd sizes for rw",
				    pt->key);
			if (pt->stream && pt->idle)
				return sb_yaml_error(
				    &p->y,
				    sb_yaml_get(sb_yaml_get(sb_yaml_root(&p->y), "sweep"), "ports"),
				    SB_ERR_PARSE,
				    "key 'ports': an idle point (0 ports) has no stream groups "
				    "(point '%s'); exclude {ports: 0, stream: [...]}",
				    pt->key);
		}
		/* Odometer: the innermost axis (last) turns fastest. */
		for (int a = SB_AXIS_COUNT - 1; a >= 0; a--) {
			if (++idx[a] < c->axes.n[a])
				break;
			idx[a] = 0;
		}
	}
	if (!c->npoints)
		return sb_yaml_error(&p->y, NULL, SB_ERR_PARSE,
		                     "no points left after 'only' and 'exclude'");
	return 0;
}

/* Warn about filter values that name nothing in the sweep (likely a typo or a stale edit). */
static void check_filters(struct parse *p, const struct sb_campaign_filter *f, unsigned n,
                          const char *key)
{
	const struct sb_campaign *c = p->c;

	for (unsigned i = 0; i < n; i++)
		for (int a = 0; a < SB_AXIS_COUNT; a++)
			for (unsigned k = 0; k < f[i].n[a]; k++) {
				bool found = false;

				for (unsigned j = 0; j < c->axes.n[a] && !found; j++)
					found = !strcmp(c->axes.value[a][j], f[i].value[a][k]);
				if (!found)
					sb_warn(
					    "'%s' line %d: '%s' entry: %s '%s' is not in the sweep",
					    p->y.name, f[i].line, key, axis_names[a],
					    f[i].value[a][k]);
			}
}

/* --- normalization ------------------------------------------------------------------------- */

static cJSON *values_json(unsigned n, char list[][SB_AXIS_NAME_MAX])
{
	cJSON *arr = cJSON_CreateArray();

	for (unsigned i = 0; arr && i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(list[i]));
	return arr;
}

static cJSON *filters_json(const struct sb_campaign_filter *f, unsigned n)
{
	cJSON *arr = cJSON_CreateArray();

	for (unsigned i = 0; arr && i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		for (int a = 0; a < SB_AXIS_COUNT; a++)
			if (f[i].n[a])
				cJSON_AddItemToObject(
				    o, axis_names[a],
				    values_json(f[i].n[a],
				                (char(*)[SB_AXIS_NAME_MAX])f[i].value[a]));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static int normalize(struct sb_campaign *c)
{
	cJSON *o = cJSON_CreateObject(), *b, *d, *s, *devs;
	char seed[24];

	if (!o)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	cJSON_AddNumberToObject(o, "format", SB_CAMPAIGN_FORMAT);
	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "description", c->description);
	cJSON_AddStringToObject(o, "kind", kind_names[c->kind]);
	b = cJSON_AddObjectToObject(o, "bench");
	devs = cJSON_AddArrayToObject(b, "device");
	for (unsigned i = 0; i < c->ndevices; i++)
		cJSON_AddItemToArray(devs, cJSON_CreateString(c->device[i]));
	cJSON_AddStringToObject(b, "profile", c->profile);
	if (!sb_campaign_has_inst(c, SB_INST_TEMPERATURE) &&
	    !sb_campaign_has_inst(c, SB_INST_POWER) && !sb_campaign_has_inst(c, SB_INST_COOLING)) {
		cJSON_AddStringToObject(o, "instruments", "none");
	} else {
		cJSON *in = cJSON_AddObjectToObject(o, "instruments");

		for (int k = 0; k < SB_INST_COUNT; k++)
			cJSON_AddStringToObject(in, inst_keys[k], c->inst.conn[k]);
	}
	d = cJSON_AddObjectToObject(o, "durations");
	cJSON_AddNumberToObject(d, "bandwidth_s", c->bandwidth_s);
	cJSON_AddNumberToObject(d, "thermal_s", c->thermal_s);
	cJSON_AddNumberToObject(d, "stream_groups", (double)c->stream_groups);
	cJSON_AddNumberToObject(o, "sample_interval_ms", c->sample_interval_ms);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)c->seed);
	cJSON_AddStringToObject(o, "seed", seed);
	cJSON_AddBoolToObject(o, "fast_forward", c->fast_forward);
	/* Only when not the default, so that the hash of older campaigns stays what it was. */
	if (c->port_order != SB_PORT_ORDER_FIRST)
		cJSON_AddStringToObject(o, "port_order", sb_port_order_name(c->port_order));
	/* An HBM2 card's campaign: its engine, its durations and its axes; a GUPS campaign's
	 * content is what it was before HBM2 (its hash unchanged). */
	if (c->engine == SB_ENGINE_HBM2) {
		cJSON_AddStringToObject(b, "engine", sb_campaign_engine_name(c->engine));
		cJSON_AddNumberToObject(d, "warmup_us", c->hbm_warmup_us);
		cJSON_AddNumberToObject(d, "window_us", c->hbm_window_us);
	}
	s = cJSON_AddObjectToObject(o, "sweep");
	for (int a = 0; a < SB_AXIS_COUNT; a++) {
		if (!sb_axis_for_engine((enum sb_axis)a, c->engine))
			continue;
		if (a == SB_AXIS_REP)
			cJSON_AddNumberToObject(s, "repetitions", c->axes.n[a]);
		else
			cJSON_AddItemToObject(s, axis_names[a],
			                      values_json(c->axes.n[a], c->axes.value[a]));
	}
	if (c->engine != SB_ENGINE_HBM2)
		cJSON_AddNumberToObject(s, "mask_width", c->axes.mask_width);
	cJSON_AddItemToObject(o, "exclude", filters_json(c->exclude, c->nexclude));
	cJSON_AddItemToObject(o, "only", filters_json(c->only, c->nonly));
	/* Keys added after the first release of format 1 are written only when they differ from
	 * their defaults, so that older campaigns keep their content hash (and resume). */
	if (c->recovery.retries || c->recovery.cool_margin_c != RECOVERY_MARGIN_C ||
	    c->recovery.cool_max_s != RECOVERY_MAX_S ||
	    strcmp(c->recovery.cooling, SB_RECOVERY_STRONGEST) || c->recovery.rig_abort ||
	    !isnan(c->recovery.limit_c)) {
		cJSON *r = cJSON_AddObjectToObject(o, "recovery");

		cJSON_AddNumberToObject(r, "retries", c->recovery.retries);
		cJSON_AddNumberToObject(r, "cool_margin_c", c->recovery.cool_margin_c);
		cJSON_AddNumberToObject(r, "cool_max_s", c->recovery.cool_max_s);
		cJSON_AddStringToObject(r, "cooling", c->recovery.cooling);
		if (c->recovery.rig_abort)
			cJSON_AddStringToObject(r, "rig_fault", "abort");
		if (!isnan(c->recovery.limit_c)) /* an HBM2 card's thermal campaign */
			cJSON_AddNumberToObject(r, "limit_c", c->recovery.limit_c);
		if (!isnan(c->recovery.resume_c))
			cJSON_AddNumberToObject(r, "resume_c", c->recovery.resume_c);
	}
	if (c->settle.tolerance_c != SETTLE_TOLERANCE_C || c->settle.window_s != SETTLE_WINDOW_S ||
	    c->settle.max_s != SETTLE_MAX_S || c->settle.poll_s != SETTLE_POLL_S) {
		cJSON *st = cJSON_AddObjectToObject(o, "cooling_settle");

		cJSON_AddNumberToObject(st, "tolerance_c", c->settle.tolerance_c);
		cJSON_AddNumberToObject(st, "window_s", c->settle.window_s);
		cJSON_AddNumberToObject(st, "max_s", c->settle.max_s);
		cJSON_AddNumberToObject(st, "poll_s", c->settle.poll_s);
	}
	if (c->trace.enabled) {
		cJSON *t = cJSON_AddObjectToObject(o, "trace");
		static const char *const paths[] = {"auto", "onchip", "dma"};

		cJSON_AddNumberToObject(t, "burst", c->trace.cfg.burst_records);
		cJSON_AddNumberToObject(t, "gap", c->trace.cfg.gap_cycles);
		cJSON_AddNumberToObject(t, "ports", c->trace.cfg.port_mask);
		cJSON_AddBoolToObject(t, "banks", c->trace.cfg.banks);
		cJSON_AddStringToObject(t, "path", paths[c->trace.cfg.path]);
	}
	c->normalized = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!c->normalized)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	snprintf(c->hash, sizeof(c->hash), "%016llx", (unsigned long long)fnv1a64(c->normalized));
	return 0;
}

/* --- entry points -------------------------------------------------------------------------- */

static void set_defaults(struct sb_campaign *c, const char *name)
{
	const char *base = strrchr(name, '/');
	size_t len;

	memset(c, 0, sizeof(*c));
	snprintf(c->file, sizeof(c->file), "%s", name);
	base = base ? base + 1 : name;
	len = strcspn(base, ".");
	if (!len || len >= sizeof(c->name))
		len = strlen(base) < sizeof(c->name) ? strlen(base) : sizeof(c->name) - 1;
	memcpy(c->name, base, len);
	c->name[len] = '\0';
	c->kind = SB_CAMPAIGN_BANDWIDTH;
	c->ndevices = 1;
	snprintf(c->device[0], sizeof(c->device[0]), "sim:");
	c->recovery.cool_margin_c = RECOVERY_MARGIN_C;
	c->recovery.cool_max_s = RECOVERY_MAX_S;
	c->recovery.limit_c = c->recovery.resume_c = NAN;
	snprintf(c->recovery.cooling, sizeof(c->recovery.cooling), "%s", SB_RECOVERY_STRONGEST);
	c->settle = (struct sb_cooling_settle){SETTLE_TOLERANCE_C, SETTLE_WINDOW_S, SETTLE_MAX_S,
	                                       SETTLE_POLL_S};
	c->bandwidth_s = 20;
	c->thermal_s = 200;
	c->stream_groups = 1000;
	c->hbm_warmup_us = 20;
	c->hbm_window_us = 200;
	c->sample_interval_ms = 100;
	c->seed = 1;
	c->fast_forward = true;
	for (int a = 0; a < SB_AXIS_COUNT; a++) {
		c->axes.n[a] = 1;
		if (axis_default[a])
			snprintf(c->axes.value[a][0], SB_AXIS_NAME_MAX, "%s", axis_default[a]);
	}
}

static int load(struct sb_campaign *c, struct parse *p)
{
	int e;

	p->c = c;
	if ((e = parse_root(p)) < 0 || (e = check_hbm(p)) < 0 || (e = check_cooling(p)) < 0)
		goto fail;
	apply_profile(c);
	check_filters(p, c->exclude, c->nexclude, "exclude");
	check_filters(p, c->only, c->nonly, "only");
	if ((e = expand(p)) < 0 || (e = normalize(c)) < 0)
		goto fail;
	sb_yaml_release(&p->y);
	return 0;
fail:
	sb_yaml_release(&p->y);
	sb_campaign_release(c);
	return e;
}

int sb_campaign_load(struct sb_campaign *c, const char *path)
{
	struct parse p;
	int e;

	set_defaults(c, path);
	if ((e = sb_yaml_load_file(&p.y, path)) < 0)
		return e;
	return load(c, &p);
}

int sb_campaign_load_string(struct sb_campaign *c, const char *name, const char *text, size_t len)
{
	struct parse p;
	int e;

	set_defaults(c, name);
	if ((e = sb_yaml_load_string(&p.y, name, text, len)) < 0)
		return e;
	return load(c, &p);
}

void sb_campaign_release(struct sb_campaign *c)
{
	free(c->exclude);
	free(c->only);
	free(c->points);
	cJSON_free(c->normalized);
	c->exclude = c->only = NULL;
	c->points = NULL;
	c->normalized = NULL;
	c->npoints = c->nexclude = c->nonly = 0;
}
