/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hbm_profile.h"
#include "stackbench/error.h"
#include "stackbench/util.h"
#include "stackbench/yaml.h"

#ifndef SB_HBM_PROFILE_INSTALL_DIR
#define SB_HBM_PROFILE_INSTALL_DIR "/usr/local/share/stackbench/hbm2"
#endif
#ifndef SB_HBM_PROFILE_SOURCE_DIR
#define SB_HBM_PROFILE_SOURCE_DIR "fpga_hbm2/profiles"
#endif

static const char *const map_names[] = {"rbc_bgi", "rbc", "brc", "rcb", NULL};
static const char *const page_names[] = {"open", "closed", NULL};
static const char *const refresh_names[] = {"all_bank", "single_bank", NULL};

const char *sb_hbm_map_name(unsigned map)
{
	return map < 4 ? map_names[map] : "?";
}

#define KEY(k, lo, hi, kind)                                                                       \
	{                                                                                          \
#k, lo, hi, offsetof(struct sb_hbm_profile, k), kind                               \
	}
#define U(k, lo, hi) KEY(k, lo, hi, SB_YAML_U32)
#define Q(k, lo, hi) KEY(k, lo, hi, SB_YAML_U64)
#define D(k, lo, hi) KEY(k, lo, hi, SB_YAML_DOUBLE)

static const struct sb_yaml_num card_keys[] = {
    U(board_id, 0, 4294967295.0), U(ports, 1, 32),           U(stacks, 1, 2),
    Q(axi_clock_hz, 1e7, 1e9),    Q(hbm_clock_hz, 1e7, 2e9), U(serial, 0, 4294967295.0),
    U(build_id, 0, 4294967295.0),
};

static const struct sb_yaml_num geometry_keys[] = {
    U(pc_mb, 64, 4096), U(bank_groups, 1, 8), U(banks_per_group, 1, 8),
    U(row_bits, 8, 17), U(col_bits, 3, 8),
};

static const struct sb_yaml_num switch_keys[] = {
    U(global_addressing, 0, 1),  U(ports_per_switch, 1, 16), U(lateral_lanes, 1, 4),
    U(write_dead_cycles, 0, 16), U(switch_cycles, 0, 1000),  U(hop_cycles, 0, 1000),
};

static const struct sb_yaml_num controller_keys[] = {
    U(queue, 1, 256), U(cmd_cycles, 0, 10000), U(rd_cycles, 0, 10000), U(wr_resp_cycles, 0, 10000),
    D(hot_c, 0, 200),
};
static const char *const controller_extra[] = {"addr_map", "page",         "reorder",
                                               "refresh",  "temp_refresh", NULL};

static const struct sb_yaml_num dram_keys[] = {
    D(tcl_ns, 0, 1000),   D(tcwl_ns, 0, 1000),   D(trcd_ns, 0, 1000),    D(trp_ns, 0, 1000),
    D(tras_ns, 0, 1000),  D(trc_ns, 0, 1000),    D(trrd_s_ns, 0, 1000),  D(trrd_l_ns, 0, 1000),
    D(tfaw_ns, 0, 1000),  D(twr_ns, 0, 1000),    D(trtp_ns, 0, 1000),    D(twtr_ns, 0, 1000),
    D(trfc_ns, 0, 10000), D(trefi_ns, 100, 1e6), D(trfcsb_ns, 0, 10000), U(tccd_s_ck, 1, 16),
    U(tccd_l_ck, 1, 16),
};

static int section(const struct sb_yaml *y, struct fy_node *root, const char *name,
                   const struct sb_yaml_num *keys, size_t n, const char *const extra[],
                   struct sb_hbm_profile *p, struct fy_node **out)
{
	struct fy_node *s = sb_yaml_get(root, name);

	if (!s)
		return sb_yaml_error(y, root, SB_ERR_PARSE, "missing section '%s'", name);
	if (out)
		*out = s;
	return sb_yaml_get_numbers(y, s, name, keys, n, extra, p);
}

static int parse_mc(const struct sb_yaml *y, struct fy_node *c, struct sb_hbm_mc_config *mc)
{
	int map, page, refresh, err;
	bool reorder, temp;
	uint64_t v;

	if ((err = sb_yaml_get_enum(y, c, "addr_map", true, map_names, &map)) < 0 ||
	    (err = sb_yaml_get_enum(y, c, "page", true, page_names, &page)) < 0 ||
	    (err = sb_yaml_get_enum(y, c, "refresh", true, refresh_names, &refresh)) < 0 ||
	    (err = sb_yaml_get_u64(y, c, "reorder", true, 0, 1, &v)) < 0)
		return err;
	reorder = v;
	if ((err = sb_yaml_get_u64(y, c, "temp_refresh", true, 0, 1, &v)) < 0)
		return err;
	temp = v;
	mc->addr_map = (uint8_t)map;
	mc->closed_page = page == 1;
	mc->reorder = reorder;
	mc->refresh = (uint8_t)refresh;
	mc->temp_refresh = temp;
	return 0;
}

static int check(const struct sb_yaml *y, struct fy_node *root, const struct sb_hbm_profile *p)
{
	uint64_t pc_bytes = (uint64_t)p->pc_mb << 20;
	unsigned banks = p->bank_groups * p->banks_per_group;
	uint64_t bits = (uint64_t)1 << (p->row_bits + p->col_bits + 5);

	if (banks & (banks - 1) || p->bank_groups & (p->bank_groups - 1) || banks > 32)
		return sb_yaml_error(
		    y, sb_yaml_get(root, "geometry"), SB_ERR_PARSE,
		    "keys 'bank_groups' x 'banks_per_group': a power of two up to 32");
	if (bits * banks != pc_bytes)
		return sb_yaml_error(
		    y, sb_yaml_get(root, "geometry"), SB_ERR_PARSE,
		    "key 'pc_mb' (%u) disagrees with 2^(row_bits + col_bits) x banks "
		    "x 32 B (%llu MiB)",
		    p->pc_mb, (unsigned long long)((bits * banks) >> 20));
	if (p->col_bits != 5)
		return sb_yaml_error(
		    y, sb_yaml_get(root, "geometry"), SB_ERR_PARSE,
		    "key 'col_bits': the model handles 5 (1 KB rows of 32 B columns)");
	if (p->ports != 16 * p->stacks && p->ports > 16 * p->stacks)
		return sb_yaml_error(y, sb_yaml_get(root, "card"), SB_ERR_PARSE,
		                     "key 'ports': at most 16 per stack");
	if (16 % p->ports_per_switch || p->ports_per_switch % p->lateral_lanes)
		return sb_yaml_error(y, sb_yaml_get(root, "switch"), SB_ERR_PARSE,
		                     "keys 'ports_per_switch', 'lateral_lanes': must divide 16 and "
		                     "ports_per_switch");
	if (p->hbm_clock_hz % p->axi_clock_hz && p->axi_clock_hz % p->hbm_clock_hz &&
	    (p->hbm_clock_hz * 2) % p->axi_clock_hz)
		return sb_yaml_error(
		    y, sb_yaml_get(root, "card"), SB_ERR_PARSE,
		    "keys 'axi_clock_hz', 'hbm_clock_hz': one must be a multiple of "
		    "the other (or of half of it)");
	if (p->trc_ns < p->tras_ns || p->trefi_ns <= p->trfc_ns || p->tccd_l_ck < p->tccd_s_ck)
		return sb_yaml_error(y, sb_yaml_get(root, "dram"), SB_ERR_PARSE,
		                     "DRAM timings inconsistent (need tRC >= tRAS, tREFI > tRFC, "
		                     "tCCD_L >= tCCD_S)");
	return 0;
}

static int opt_enum(const struct sb_hbm_model_opt *o, const char *const names[], int *out)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(o->value, names[i])) {
			*out = i;
			return 0;
		}
	return sb_error_set(SB_ERR_PARSE, "sim option '%s': unknown value '%s'", o->key, o->value);
}

static int apply_opt(struct sb_hbm_profile *p, const struct sb_hbm_model_opt *o)
{
	char what[96];
	uint64_t v;
	int e = 0;

	snprintf(what, sizeof(what), "sim option '%s'", o->key);
	if (!strcmp(o->key, "addr_map")) {
		if (opt_enum(o, map_names, &e) < 0)
			return SB_ERR_PARSE;
		p->mc.addr_map = (uint8_t)e;
		return 0;
	}
	if (!strcmp(o->key, "page")) {
		if (opt_enum(o, page_names, &e) < 0)
			return SB_ERR_PARSE;
		p->mc.closed_page = e == 1;
		return 0;
	}
	if (!strcmp(o->key, "refresh")) {
		if (opt_enum(o, refresh_names, &e) < 0)
			return SB_ERR_PARSE;
		p->mc.refresh = (uint8_t)e;
		return 0;
	}
	if (strcmp(o->key, "ports") && strcmp(o->key, "seed") && strcmp(o->key, "reorder"))
		return sb_error_set(SB_ERR_PARSE,
		                    "unknown sim option '%s' (known: ports, seed, addr_map, page, "
		                    "reorder, refresh)",
		                    o->key);
	if (sb_parse_u64(o->value, what, false, &v) < 0)
		return SB_ERR_PARSE;
	if (!strcmp(o->key, "seed")) {
		p->seed = v;
	} else if (!strcmp(o->key, "reorder")) {
		if (v > 1)
			return sb_error_set(SB_ERR_PARSE, "%s: 0 or 1", what);
		p->mc.reorder = v;
	} else {
		if (v < 1 || v > 16 * p->stacks)
			return sb_error_set(SB_ERR_PARSE, "%s: %llu is out of range [1, %u]", what,
			                    (unsigned long long)v, 16 * p->stacks);
		p->ports = (uint32_t)v;
	}
	return 0;
}

/*
 * An HBM2 card profile is a name found in the HBM2 profile folders, or a YAML file with the
 * sections only an HBM2 profile has ('card' and 'switch'; an HMC profile has 'board', 'links',
 * 'cube'). A file that cannot be read is not claimed: the HMC model then names the problem.
 */
bool sb_hbm_model_claims(const char *profile)
{
	char path[512];
	struct sb_yaml y;
	struct fy_node *root;
	bool hbm;

	if (!profile || !*profile)
		return false; /* sim: alone is the AC-510 */
	if (!strchr(profile, '/') && !strstr(profile, ".yaml")) {
		hbm = sb_find_data_file("HBM2 card profile", profile, "STACKBENCH_HBM_PROFILE_PATH",
		                        SB_HBM_PROFILE_SOURCE_DIR, SB_HBM_PROFILE_INSTALL_DIR, path,
		                        sizeof(path)) == 0;
		sb_error_clear();
		return hbm;
	}
	if (sb_yaml_load_file(&y, profile) < 0) {
		sb_error_clear();
		return false;
	}
	root = sb_yaml_root(&y);
	hbm = root && sb_yaml_get(root, "card") && sb_yaml_get(root, "switch");
	sb_yaml_release(&y);
	return hbm;
}

int sb_hbm_profile_load(struct sb_hbm_profile *p, const char *name_or_path,
                        const struct sb_hbm_model_opt *opts, size_t nopts)
{
	static const char *const keys[] = {"name",   "description", "card", "geometry",
	                                   "switch", "controller",  "dram", NULL};
	struct fy_node *root, *ctrl = NULL;
	struct sb_yaml y;
	const char *name;
	int err;

	memset(p, 0, sizeof(*p));
	if (!name_or_path || !*name_or_path)
		name_or_path = SB_HBM_PROFILE_DEFAULT;
	if ((err = sb_find_data_file("HBM2 card profile", name_or_path,
	                             "STACKBENCH_HBM_PROFILE_PATH", SB_HBM_PROFILE_SOURCE_DIR,
	                             SB_HBM_PROFILE_INSTALL_DIR, p->path, sizeof(p->path))) < 0)
		return err;
	if ((err = sb_yaml_load_file(&y, p->path)) < 0)
		return err;
	root = sb_yaml_root(&y);
	if ((err = sb_yaml_expect_map(&y, root, "the profile")) < 0 ||
	    (err = sb_yaml_check_keys(&y, root, "profile", keys)) < 0 ||
	    (err = sb_yaml_get_str(&y, root, "name", true, &name)) < 0 ||
	    (err = section(&y, root, "card", card_keys, SB_ARRAY_SIZE(card_keys), NULL, p, NULL)) <
	        0 ||
	    (err = section(&y, root, "geometry", geometry_keys, SB_ARRAY_SIZE(geometry_keys), NULL,
	                   p, NULL)) < 0 ||
	    (err = section(&y, root, "switch", switch_keys, SB_ARRAY_SIZE(switch_keys), NULL, p,
	                   NULL)) < 0 ||
	    (err = section(&y, root, "controller", controller_keys, SB_ARRAY_SIZE(controller_keys),
	                   controller_extra, p, &ctrl)) < 0 ||
	    (err = parse_mc(&y, ctrl, &p->mc)) < 0 ||
	    (err = section(&y, root, "dram", dram_keys, SB_ARRAY_SIZE(dram_keys), NULL, p, NULL)) <
	        0 ||
	    (err = check(&y, root, p)) < 0)
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
