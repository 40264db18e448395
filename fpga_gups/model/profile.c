/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"
#include "sb_regmap.h"
#include "stackbench/error.h"
#include "stackbench/util.h"
#include "stackbench/yaml.h"

#ifndef SB_PROFILE_INSTALL_DIR
#define SB_PROFILE_INSTALL_DIR "/usr/local/share/stackbench/profiles"
#endif
#ifndef SB_PROFILE_SOURCE_DIR
#define SB_PROFILE_SOURCE_DIR "fpga_gups/model/profiles"
#endif

int sb_profile_find(const char *name, char *path, size_t size)
{
	return sb_find_data_file("device profile", name, "STACKBENCH_PROFILE_PATH",
	                         SB_PROFILE_SOURCE_DIR, SB_PROFILE_INSTALL_DIR, path, size);
}

#define DK(k, lo, hi)                                                                              \
	{                                                                                          \
#k, lo, hi, offsetof(struct sb_profile, k), SB_YAML_DOUBLE                         \
	}
#define UK(k, lo, hi)                                                                              \
	{                                                                                          \
#k, lo, hi, offsetof(struct sb_profile, k), SB_YAML_U32                            \
	}
#define QK(k, lo, hi)                                                                              \
	{                                                                                          \
#k, lo, hi, offsetof(struct sb_profile, k), SB_YAML_U64                            \
	}

/* Read a section whose keys are all in the table (all required; no other keys allowed). */
static int parse_section(const struct sb_yaml *y, struct fy_node *root, const char *where,
                         const struct sb_yaml_num *keys, size_t nkeys, struct sb_profile *p)
{
	struct fy_node *n = sb_yaml_get(root, where);

	if (!n)
		return sb_yaml_error(y, root, SB_ERR_PARSE, "missing section '%s'", where);
	return sb_yaml_get_numbers(y, n, where, keys, nkeys, NULL, p);
}

static const struct sb_yaml_num board_keys[] = {
    UK(board_id, 0, 4294967295.0), UK(ports, 1, SB_LAYOUT_GUPS_PORT_COUNT),
    UK(ports_per_link, 1, 16),     UK(first_port, 0, 15),
    QK(user_clock_hz, 1e6, 1e9),   UK(serial, 0, 4294967295.0),
    UK(build_id, 0, 4294967295.0),
};

static const struct sb_yaml_num link_keys[] = {
    UK(links, 1, 4),
    UK(lanes, 8, 16),
    UK(lane_rate_mbps, 10000, 30000),
    UK(packet_gap_flits, 0, 16),
    UK(link_tokens, 16, 4096),
};

static const struct sb_yaml_num infra_keys[] = {
    QK(init_time_ps, 0, 1e13),       UK(port_flit_cycles, 1, 16),    UK(tx_f2p_cycles, 0, 1000),
    UK(tx_arb_cycles, 0, 1000),      UK(tx_seq_crc_cycles, 0, 1000), UK(tx_serdes_cycles, 0, 1000),
    UK(tx_transmit_cycles, 0, 1000), UK(port_cmd_cycles, 1, 32),     DK(rx_path_ns, 0, 100000),
    UK(port_packet_cycles, 0, 32),   UK(max_outstanding, 1, 1024),
};

static const struct sb_yaml_num cube_keys[] = {
    UK(hmc_rev, 1, 2),           UK(capacity_mb, 256, 16384),  UK(vaults, 16, 16),
    UK(banks_per_vault, 8, 16),  DK(cube_in_ns, 0, 10000),     DK(cube_out_ns, 0, 10000),
    DK(xbar_local_ns, 0, 10000), DK(xbar_remote_ns, 0, 10000), UK(vault_queue, 1, 1024),
    UK(bank_queue, 1, 1024),
};

static const struct sb_yaml_num dram_keys[] = {
    DK(tck_ns, 0.1, 100),
    DK(tcl_ns, 0, 1000),
    DK(tcwl_ns, 0, 1000),
    DK(trcd_ns, 0, 1000),
    DK(trp_ns, 0, 1000),
    DK(tras_ns, 0, 1000),
    DK(trc_ns, 0, 1000),
    DK(tccd_ns, 0.1, 1000),
    DK(trrd_ns, 0, 1000),
    DK(tfaw_ns, 0, 1000),
    DK(twr_ns, 0, 1000),
    DK(twtr_ns, 0, 1000),
    DK(trtp_ns, 0, 1000),
    DK(trfc_ns, 0, 10000),
    DK(trefi_ns, 100, 1e7),
    UK(bus_bytes, 16, 64),
    DK(hot_refresh_c, 0, 200),
    DK(bus_turnaround_ns, 0, 1000),
    UK(read_row_to_data_end, 0, 1),
    UK(layer_row, 0, 1),
};

static const struct sb_yaml_num sim_keys[] = {
    UK(ff_warmup_us, 0, 1000000),
    UK(ff_window_us, 1, 100000),
    UK(ff_tolerance_ppm, 1, 1000000),
    UK(ff_windows, 2, 100),
};

static int check_profile(const struct sb_yaml *y, struct fy_node *root, struct sb_profile *p)
{
	if (p->lanes != 8 && p->lanes != 16)
		return sb_yaml_error(y, sb_yaml_get(root, "links"), SB_ERR_PARSE,
		                     "key 'lanes': a link is 8 (half) or 16 (full) lanes wide");
	if (p->banks_per_vault != 8 && p->banks_per_vault != 16)
		return sb_yaml_error(y, sb_yaml_get(root, "cube"), SB_ERR_PARSE,
		                     "key 'banks_per_vault': 8 or 16");
	if (p->bus_bytes != 16 && p->bus_bytes != 32 && p->bus_bytes != 64)
		return sb_yaml_error(y, sb_yaml_get(root, "dram"), SB_ERR_PARSE,
		                     "key 'bus_bytes': 16, 32 or 64");
	if (p->trc_ns < p->tras_ns || p->trefi_ns <= p->trfc_ns || p->tccd_ns < p->tck_ns)
		return sb_yaml_error(
		    y, sb_yaml_get(root, "dram"), SB_ERR_PARSE,
		    "DRAM timings inconsistent (need tRC >= tRAS, tREFI > tRFC, tCCD >= tCK)");
	if (p->tfaw_ns > 16 * p->tccd_ns || p->trrd_ns > 8 * p->tccd_ns ||
	    p->bus_turnaround_ns > 8 * p->tccd_ns)
		return sb_yaml_error(y, sb_yaml_get(root, "dram"), SB_ERR_PARSE,
		                     "keys 'tfaw_ns', 'trrd_ns', 'bus_turnaround_ns': the model "
		                     "handles at most 16, 8 and 8 tCCD slots");
	if (8 * p->port_flit_cycles + p->port_packet_cycles > 58)
		return sb_yaml_error(
		    y, sb_yaml_get(root, "infrastructure"), SB_ERR_PARSE,
		    "keys 'port_flit_cycles' x 8 + 'port_packet_cycles' exceed the 58 "
		    "cycles a response may hold a port for in the model");
	if (p->first_port + p->ports > p->ports_per_link * p->links)
		return sb_yaml_error(
		    y, sb_yaml_get(root, "board"), SB_ERR_PARSE,
		    "keys 'first_port' + 'ports' (%u + %u) exceed 'ports_per_link' x "
		    "'links' (%u x %u)",
		    p->first_port, p->ports, p->ports_per_link, p->links);
	return 0;
}

static int apply_opt(struct sb_profile *p, const struct sb_model_opt *o)
{
	static const struct {
		const char *key;
		uint64_t min, max;
		size_t off;
		bool wide;
	} opts[] = {
	    {"ports", 1, SB_LAYOUT_GUPS_PORT_COUNT, offsetof(struct sb_profile, ports), false},
	    {"links", 1, 4, offsetof(struct sb_profile, links), false},
	    {"lanes", 8, 16, offsetof(struct sb_profile, lanes), false},
	    {"lane_rate_mbps", 10000, 30000, offsetof(struct sb_profile, lane_rate_mbps), false},
	    {"vault_queue", 1, 1024, offsetof(struct sb_profile, vault_queue), false},
	    {"bank_queue", 1, 1024, offsetof(struct sb_profile, bank_queue), false},
	    {"seed", 0, UINT64_MAX, offsetof(struct sb_profile, seed), true},
	};
	char what[96];
	uint64_t v;
	int err;

	for (size_t i = 0; i < SB_ARRAY_SIZE(opts); i++) {
		if (strcmp(o->key, opts[i].key))
			continue;
		snprintf(what, sizeof(what), "sim option '%s'", o->key);
		if ((err = sb_parse_u64(o->value, what, false, &v)) < 0)
			return SB_ERR_PARSE;
		if (v < opts[i].min || v > opts[i].max)
			return sb_error_set(SB_ERR_PARSE, "%s: %llu is out of range [%llu, %llu]",
			                    what, (unsigned long long)v,
			                    (unsigned long long)opts[i].min,
			                    (unsigned long long)opts[i].max);
		if (opts[i].wide)
			*(uint64_t *)((char *)p + opts[i].off) = v;
		else
			*(uint32_t *)((char *)p + opts[i].off) = (uint32_t)v;
		if (!strcmp(o->key, "lanes") && v != 8 && v != 16)
			return sb_error_set(SB_ERR_PARSE, "%s: a link is 8 or 16 lanes wide", what);
		return 0;
	}
	return sb_error_set(SB_ERR_PARSE,
	                    "unknown sim option '%s' (known: ports, links, lanes, lane_rate_mbps, "
	                    "vault_queue, seed)",
	                    o->key);
}

int sb_profile_load(struct sb_profile *p, const char *name_or_path, const struct sb_model_opt *opts,
                    size_t nopts)
{
	static const char *const keys[] = {"name",  "description",    "board",
	                                   "links", "infrastructure", "cube",
	                                   "dram",  "simulation",     NULL};
	struct sb_yaml y;
	struct fy_node *root;
	const char *name;
	int err;

	memset(p, 0, sizeof(*p));
	if (!name_or_path || !*name_or_path)
		name_or_path = SB_PROFILE_DEFAULT;
	if ((err = sb_profile_find(name_or_path, p->path, sizeof(p->path))) < 0)
		return err;
	if ((err = sb_yaml_load_file(&y, p->path)) < 0)
		return err;
	root = sb_yaml_root(&y);
	if ((err = sb_yaml_expect_map(&y, root, "the profile")) < 0 ||
	    (err = sb_yaml_check_keys(&y, root, "profile", keys)) < 0 ||
	    (err = sb_yaml_get_str(&y, root, "name", true, &name)) < 0 ||
	    (err = parse_section(&y, root, "board", board_keys, SB_ARRAY_SIZE(board_keys), p)) <
	        0 ||
	    (err = parse_section(&y, root, "links", link_keys, SB_ARRAY_SIZE(link_keys), p)) < 0 ||
	    (err = parse_section(&y, root, "infrastructure", infra_keys, SB_ARRAY_SIZE(infra_keys),
	                         p)) < 0 ||
	    (err = parse_section(&y, root, "cube", cube_keys, SB_ARRAY_SIZE(cube_keys), p)) < 0 ||
	    (err = parse_section(&y, root, "dram", dram_keys, SB_ARRAY_SIZE(dram_keys), p)) < 0 ||
	    (err = parse_section(&y, root, "simulation", sim_keys, SB_ARRAY_SIZE(sim_keys), p)) <
	        0 ||
	    (err = check_profile(&y, root, p)) < 0)
		goto out;
	sb_strlcpy(p->name, name, sizeof(p->name));
	for (size_t i = 0; i < nopts; i++)
		if ((err = apply_opt(p, &opts[i])) < 0)
			goto out;
	err = 0;
out:
	sb_yaml_release(&y);
	return err;
}
