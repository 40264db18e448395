/* SPDX-License-Identifier: MIT */
/*
 * The HBM2 side of campaign files (docs/campaigns.md, "HBM2 campaigns"): which engine a
 * campaign's board carries, the values of the HBM2 axes (checked, canonical text), a point's
 * engine settings from its axes, and the HBM2 part of the normalized content. campaign_parse.c
 * calls these; the GUPS axes stay there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfyaml.h>

#include "campaign_int.h"
#include "sb_hbm_model.h"
#include "stackbench/error.h"
#include "stackbench/uri.h"

const char *sb_campaign_engine_name(enum sb_campaign_engine e)
{
	return e == SB_ENGINE_HBM2 ? "hbm2" : "gups";
}

bool sb_axis_is_hbm(enum sb_axis a)
{
	return a >= SB_AXIS_TEMP && a < SB_AXIS_COUNT;
}

bool sb_axis_is_gups_only(enum sb_axis a)
{
	return a == SB_AXIS_TYPE || a == SB_AXIS_SIZE || a == SB_AXIS_PATTERN ||
	       a == SB_AXIS_ADDR_MODE || a == SB_AXIS_STREAM || a == SB_AXIS_MASK;
}

bool sb_axis_for_engine(enum sb_axis a, enum sb_campaign_engine e)
{
	return e == SB_ENGINE_HBM2 ? !sb_axis_is_gups_only(a) : !sb_axis_is_hbm(a);
}

/*
 * The engine of a device URI without opening it: an HBM2 card for a sim: URI whose profile
 * (or the campaign's, when it names none) is an HBM2 card's — the test the sim: transport
 * makes when it opens it. Other URIs: unknown (-1); bench.engine says.
 */
int sb_campaign_uri_engine(const char *uri, const char *profile)
{
	struct sb_uri u;
	const char *path;

	if (strncmp(uri, "sim:", 4) || sb_uri_parse(uri, &u) < 0)
		return -1;
	path = u.path[0] ? u.path : profile;
	return path && path[0] && sb_hbm_model_claims(path) ? SB_ENGINE_HBM2 : SB_ENGINE_GUPS;
}

static const char *const op_names[] = {"read", "write", "mix", NULL};
static const char *const refresh_names[] = {"keep", "all_bank", "single_bank", NULL};
static const char *const page_names[] = {"keep", "open", "closed", NULL};
static const char *const policy_names[] = {"keep", "rbc_bgi", "rbc", "brc", "rcb", NULL};

/* A number of an HBM2 axis (also each value of a range): checked, canonical text out. */
int sb_hbm_axis_number(const struct sb_yaml *y, enum sb_axis a, uint64_t v, struct fy_node *at,
                       char out[SB_AXIS_NAME_MAX])
{
	const char *name = sb_axis_name(a);

	switch (a) {
	case SB_AXIS_TEMP:
		if (v < 1 || v > 127)
			return sb_yaml_error(y, at, SB_ERR_PARSE,
			                     "key '%s': %llu C: expected 'keep' or 1..127 (C, the "
			                     "simulated card's stacks)",
			                     name, (unsigned long long)v);
		break;
	case SB_AXIS_MIX:
		if (v > 256)
			return sb_yaml_error(y, at, SB_ERR_PARSE,
			                     "key '%s': %llu: expected 0..256 writes of every 256 "
			                     "transactions",
			                     name, (unsigned long long)v);
		break;
	case SB_AXIS_BURST:
		if (v < 32 || v > 4096 || v % 32)
			return sb_yaml_error(y, at, SB_ERR_PARSE,
			                     "key '%s': %llu B: expected 32..4096 in steps of 32",
			                     name, (unsigned long long)v);
		break;
	case SB_AXIS_STRIDE:
		if (v % 32 || v > (1u << 30))
			return sb_yaml_error(
			    y, at, SB_ERR_PARSE,
			    "key '%s': %llu B: expected 0 (the burst) or a multiple "
			    "of 32 up to 1 GiB",
			    name, (unsigned long long)v);
		break;
	case SB_AXIS_WS:
		if (v % 32 || v > (1ull << 34))
			return sb_yaml_error(y, at, SB_ERR_PARSE,
			                     "key '%s': %llu B: expected 0 (the target's: a PC, or "
			                     "the stack) or a multiple of 32 up to 16 GiB",
			                     name, (unsigned long long)v);
		break;
	case SB_AXIS_OUTSTANDING:
		if (v < 1 || v > 64)
			return sb_yaml_error(y, at, SB_ERR_PARSE,
			                     "key '%s': %llu: expected 1..64 (AXI IDs in flight)",
			                     name, (unsigned long long)v);
		break;
	case SB_AXIS_PORTS:
		if (v < 1 || v > SB_HBM_MAX_PORTS)
			return sb_yaml_error(
			    y, at, SB_ERR_PARSE,
			    "key '%s': %llu: expected 'all', a port count 1..%d or "
			    "a port set such as \"0-3,8\"",
			    name, (unsigned long long)v, SB_HBM_MAX_PORTS);
		break;
	default:
		return sb_yaml_error(y, at, SB_ERR_PARSE, "key '%s': expected a name", name);
	}
	snprintf(out, SB_AXIS_NAME_MAX, "%llu", (unsigned long long)v);
	return 0;
}

static int pick(const struct sb_yaml *y, struct fy_node *n, const char *what,
                const char *const names[], char out[SB_AXIS_NAME_MAX])
{
	int idx, e;

	if ((e = sb_yaml_to_enum(y, n, what, names, &idx)) < 0)
		return e;
	snprintf(out, SB_AXIS_NAME_MAX, "%s", names[idx]);
	return 0;
}

/* One scalar value of an HBM2 axis, or of 'ports' in an HBM2 campaign. */
int sb_hbm_axis_value(const struct sb_yaml *y, enum sb_axis a, struct fy_node *n,
                      char out[SB_AXIS_NAME_MAX])
{
	char what[64];
	const char *s;
	uint64_t v;
	int e;

	snprintf(what, sizeof(what), "key '%s'", sb_axis_name(a));
	if ((e = sb_yaml_to_str(y, n, what, &s)) < 0)
		return e;
	switch (a) {
	case SB_AXIS_OP:
		return pick(y, n, what, op_names, out);
	case SB_AXIS_REFRESH:
		return pick(y, n, what, refresh_names, out);
	case SB_AXIS_PAGE:
		return pick(y, n, what, page_names, out);
	case SB_AXIS_POLICY:
		return pick(y, n, what, policy_names, out);
	case SB_AXIS_TARGET: {
		struct sb_hbm_target t;

		if (sb_hbm_target_parse(s, &t) < 0)
			return sb_yaml_error(y, n, SB_ERR_PARSE, "%s: %s", what, sb_error_detail());
		sb_hbm_target_text(&t, out, SB_AXIS_NAME_MAX);
		return 0;
	}
	case SB_AXIS_TEMP:
		if (!strcmp(s, "keep")) {
			snprintf(out, SB_AXIS_NAME_MAX, "keep");
			return 0;
		}
		break;
	case SB_AXIS_PORTS:
		if (!strcmp(s, "all")) {
			snprintf(out, SB_AXIS_NAME_MAX, "all");
			return 0;
		}
		if (strpbrk(s, "-,")) {
			uint32_t mask;

			if (strlen(s) >= SB_AXIS_NAME_MAX ||
			    sb_hbm_port_set_parse(s, SB_HBM_MAX_PORTS, &mask) < 0)
				return sb_yaml_error(y, n, SB_ERR_PARSE, "%s: %s", what,
				                     sb_error_detail());
			snprintf(out, SB_AXIS_NAME_MAX, "%s", s);
			return 0;
		}
		break;
	default:
		break;
	}
	if (sb_yaml_to_u64(y, n, what, 0, 1ull << 35, &v) < 0)
		return sb_yaml_error(y, n, SB_ERR_PARSE, "%s: '%s' is not a value of this axis",
		                     what, s);
	return sb_hbm_axis_number(y, a, v, n, out);
}

static int index_of(const char *const names[], const char *s)
{
	int i;

	for (i = 0; names[i] && strcmp(names[i], s); i++)
		;
	return names[i] ? i : 0;
}

/* A point's engine settings from its axes' text (checked when the file was read). */
void sb_hbm_point_fill(char text[][SB_AXIS_NAME_MAX], struct sb_campaign_point *pt)
{
	struct sb_hbm_spec *s = &pt->hbm;
	const char *ports = text[SB_AXIS_PORTS];
	int i;

	sb_hbm_spec_init(s);
	snprintf(pt->port_set, sizeof(pt->port_set), "%s", ports);
	if (strpbrk(ports, "-,")) {
		sb_hbm_port_set_parse(ports, SB_HBM_MAX_PORTS, &s->port_mask);
	} else if (strcmp(ports, "all")) {
		unsigned n = (unsigned)strtoul(ports, NULL, 10);

		s->port_mask = n >= 32 ? 0xFFFFFFFFu : (1u << n) - 1;
	}
	s->rw = (enum sb_hbm_rw)index_of(op_names, text[SB_AXIS_OP]);
	s->mix_writes = (unsigned)strtoul(text[SB_AXIS_MIX], NULL, 10);
	s->random = !strcmp(text[SB_AXIS_MODE], "random");
	s->burst = (uint32_t)strtoul(text[SB_AXIS_BURST], NULL, 10);
	s->stride = (uint32_t)strtoul(text[SB_AXIS_STRIDE], NULL, 10);
	s->ws = strtoull(text[SB_AXIS_WS], NULL, 10);
	s->outstanding = (unsigned)strtoul(text[SB_AXIS_OUTSTANDING], NULL, 10);
	sb_hbm_target_parse(text[SB_AXIS_TARGET], &s->target);
	i = index_of(policy_names, text[SB_AXIS_POLICY]);
	s->addr_map = i - 1; /* keep: -1 */
	i = index_of(page_names, text[SB_AXIS_PAGE]);
	s->closed_page = i ? i - 1 : -1;
	i = index_of(refresh_names, text[SB_AXIS_REFRESH]);
	s->refresh = i ? i - 1 : -1;
	s->temp_c = strcmp(text[SB_AXIS_TEMP], "keep") ? strtod(text[SB_AXIS_TEMP], NULL) : 0;
}

void sb_campaign_hbm_spec(const struct sb_campaign *c, const struct sb_campaign_point *p,
                          struct sb_hbm_spec *s)
{
	*s = p->hbm;
	s->warmup_ns = (uint64_t)(c->hbm_warmup_us * 1e3 + 0.5);
	s->duration_ns = (uint64_t)(c->hbm_window_us * 1e3 + 0.5);
	if (c->kind == SB_CAMPAIGN_THERMAL) {
		/* a thermal point lasts thermal_s, its warm-up included */
		uint64_t all = sb_campaign_point_ns(c);

		s->duration_ns = all > s->warmup_ns ? all - s->warmup_ns : all;
	}
	s->seed = (uint32_t)(p->seed ^ (p->seed >> 32));
	if (!s->seed)
		s->seed = 1;
}

/*
 * An HBM2 point's result in the GUPS point's terms, for the columns every point has (the
 * points and point_ports tables, progress, provenance): reads and writes are transactions,
 * read bytes the payload read, latency the read latency (AR to the first R beat) in AXI
 * cycles, bandwidth the payload GB/s of reads and writes. What only an HBM2 point has (write
 * latency, classes, histogram, the controller) goes to hbm_points.
 */
void sb_hbm_point_result(const struct sb_hbm_spec *s, const struct sb_hbm_result *h,
                         struct sb_point_result *r)
{
	double window_s = (double)h->window_ns * 1e-9;
	struct sb_port_counters *t = &r->total;

	memset(r, 0, sizeof(*r));
	r->ports = h->nports;
	r->clock_hz = h->axi_clock_hz;
	r->t_start_ns = s->warmup_ns;
	r->duration_ns = h->window_ns;
	for (unsigned i = 0; i < h->nports && i < SB_POINT_MAX_PORTS; i++) {
		const struct sb_hbm_port_result *p = &h->port[i];
		struct sb_port_counters *c = &r->port[i];

		r->port_id[i] = (uint8_t)p->port;
		c->reads = p->rd_bytes / s->burst;
		c->writes = p->wr_bytes / s->burst;
		c->read_data_flits = p->rd_bytes / 16;
		c->lat_sum_cycles = p->rd_lat_sum;
		c->lat_count = p->rd_lat_count;
		c->lat_min_cycles = p->rd_lat_count ? p->rd_lat_min : 0;
		c->lat_max_cycles = p->rd_lat_max;
		c->tag_peak = p->ids_peak;
		t->reads += c->reads;
		t->writes += c->writes;
		t->read_data_flits += c->read_data_flits;
		t->lat_sum_cycles += c->lat_sum_cycles;
		t->lat_count += c->lat_count;
		if (c->lat_count && (!t->lat_min_cycles || c->lat_min_cycles < t->lat_min_cycles))
			t->lat_min_cycles = c->lat_min_cycles;
		if (c->lat_max_cycles > t->lat_max_cycles)
			t->lat_max_cycles = c->lat_max_cycles;
		if (c->tag_peak > t->tag_peak)
			t->tag_peak = c->tag_peak;
	}
	r->mismatches = h->mismatches;
	r->metrics.bandwidth_gbps = h->gbps;
	r->metrics.payload_gbps = h->gbps;
	r->metrics.mrps = window_s > 0 ? (double)h->txns / window_s / 1e6 : 0;
	if (t->lat_count) {
		r->metrics.lat_min_ns = h->rd_lat_min_ns;
		r->metrics.lat_avg_ns = h->rd_lat_avg_ns;
		r->metrics.lat_max_ns = h->rd_lat_max_ns;
		/* Little's law over the read transactions */
		r->metrics.occupancy =
		    window_s > 0 ? (double)t->reads / window_s * h->rd_lat_avg_ns * 1e-9 : 0;
	}
}

/* Whether a point can run on the card, before anything runs: its ports, and the controller
 * settings and temperature only the simulated card takes. */
int sb_hbm_point_check(const struct sb_campaign_point *p, const struct sb_hbm_card *card,
                       const char *uri)
{
	const struct sb_hbm_spec *s = &p->hbm;

	if (card->ports < 32 && s->port_mask >> card->ports)
		return sb_error_set(SB_ERR_INVAL, "point '%s' needs ports %s; '%s' has %u", p->key,
		                    p->port_set, uri, card->ports);
	if (card->has_sim)
		return 0;
	if ((s->addr_map >= 0 && (unsigned)s->addr_map != card->mc.addr_map) ||
	    (s->closed_page >= 0 && (bool)s->closed_page != card->mc.closed_page) ||
	    (s->refresh >= 0 && (unsigned)s->refresh != card->mc.refresh))
		return sb_error_set(SB_ERR_MISMATCH,
		                    "point '%s': '%s' runs address map %s, %s page, %s refresh "
		                    "(fixed when its bitstream was built): use 'keep' or those",
		                    p->key, uri, sb_hbm_map_text(card->mc.addr_map),
		                    card->mc.closed_page ? "closed" : "open",
		                    card->mc.refresh ? "single_bank" : "all_bank");
	if (s->temp_c > 0)
		return sb_error_set(SB_ERR_MISMATCH,
		                    "point '%s': '%s' is a card: its stacks' temperature is "
		                    "measured, not set ('temp: keep')",
		                    p->key, uri);
	return 0;
}
