/* SPDX-License-Identifier: MIT */
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
	const char *env = getenv("STACKBENCH_PROFILE_PATH");
	const char *dirs[3] = {env, SB_PROFILE_SOURCE_DIR, SB_PROFILE_INSTALL_DIR};

	if (strchr(name, '/') || strstr(name, ".yaml")) {
		if (access(name, R_OK) < 0)
			return sb_error_set(SB_ERR_NOT_FOUND, "profile file '%s' not found", name);
		sb_strlcpy(path, name, size);
		return 0;
	}
	for (size_t i = 0; i < SB_ARRAY_SIZE(dirs); i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		if ((size_t)snprintf(path, size, "%s/%s.yaml", dirs[i], name) >= size)
			continue;
		if (access(path, R_OK) == 0)
			return 0;
	}
	return sb_error_set(SB_ERR_NOT_FOUND,
	                    "no device profile '%s' (looked in $STACKBENCH_PROFILE_PATH, %s, %s)",
	                    name, SB_PROFILE_SOURCE_DIR, SB_PROFILE_INSTALL_DIR);
}

static int parse_board(const struct sb_yaml *y, struct fy_node *n, struct sb_profile *p)
{
	static const char *const keys[] = {"board_id", "ports",    "user_clock_hz",
	                                   "serial",   "build_id", NULL};
	int err;

	if ((err = sb_yaml_expect_map(y, n, "key 'board'")) < 0 ||
	    (err = sb_yaml_check_keys(y, n, "board", keys)) < 0 ||
	    (err = sb_yaml_get_u32(y, n, "board_id", true, 0, UINT32_MAX, &p->board_id)) < 0 ||
	    (err = sb_yaml_get_u32(y, n, "ports", true, 1, SB_LAYOUT_GUPS_PORT_COUNT, &p->ports)) <
	        0 ||
	    (err = sb_yaml_get_u64(y, n, "user_clock_hz", true, 1000000, 1000000000,
	                           &p->user_clock_hz)) < 0 ||
	    (err = sb_yaml_get_u32(y, n, "serial", false, 0, UINT32_MAX, &p->serial)) < 0 ||
	    (err = sb_yaml_get_u32(y, n, "build_id", false, 0, UINT32_MAX, &p->build_id)) < 0)
		return err;
	return 0;
}

static int parse_links(const struct sb_yaml *y, struct fy_node *n, struct sb_profile *p)
{
	static const char *const keys[] = {"count", "lanes", "lane_rate_mbps", NULL};
	int err;

	if ((err = sb_yaml_expect_map(y, n, "key 'links'")) < 0 ||
	    (err = sb_yaml_check_keys(y, n, "links", keys)) < 0 ||
	    (err = sb_yaml_get_u32(y, n, "count", true, 1, 4, &p->links)) < 0 ||
	    (err = sb_yaml_get_u32(y, n, "lanes", true, 8, 16, &p->lanes)) < 0 ||
	    (err = sb_yaml_get_u32(y, n, "lane_rate_mbps", true, 10000, 30000,
	                           &p->lane_rate_mbps)) < 0)
		return err;
	if (p->lanes != 8 && p->lanes != 16)
		return sb_yaml_error(y, sb_yaml_get(n, "lanes"), SB_ERR_PARSE,
		                     "key 'lanes': a link is 8 (half) or 16 (full) lanes wide");
	return 0;
}

static int parse_cube(const struct sb_yaml *y, struct fy_node *n, struct sb_profile *p)
{
	static const char *const keys[] = {"hmc_rev", "capacity_gb", "vaults", "banks_per_vault",
	                                   NULL};
	int err;

	if ((err = sb_yaml_expect_map(y, n, "key 'cube'")) < 0 ||
	    (err = sb_yaml_check_keys(y, n, "cube", keys)) < 0 ||
	    (err = sb_yaml_get_u32(y, n, "hmc_rev", true, 1, 2, &p->hmc_rev)) < 0 ||
	    (err = sb_yaml_get_u32(y, n, "capacity_gb", true, 1, 16, &p->capacity_gb)) < 0 ||
	    (err = sb_yaml_get_u32(y, n, "vaults", true, 16, 32, &p->vaults)) < 0 ||
	    (err = sb_yaml_get_u32(y, n, "banks_per_vault", true, 8, 16, &p->banks_per_vault)) < 0)
		return err;
	return 0;
}

static int parse_infra(const struct sb_yaml *y, struct fy_node *n, struct sb_profile *p)
{
	static const char *const keys[] = {"init_time_us", NULL};
	uint64_t us = 0;
	int err;

	if ((err = sb_yaml_expect_map(y, n, "key 'infrastructure'")) < 0 ||
	    (err = sb_yaml_check_keys(y, n, "infrastructure", keys)) < 0 ||
	    (err = sb_yaml_get_u64(y, n, "init_time_us", true, 0, 10000000, &us)) < 0)
		return err;
	p->init_time_ps = us * 1000000;
	return 0;
}

static int apply_opt(struct sb_profile *p, const struct sb_model_opt *o)
{
	uint64_t v;
	int err;

	if (!strcmp(o->key, "ports")) {
		if ((err = sb_parse_u64(o->value, "sim option 'ports'", false, &v)) < 0)
			return err;
		if (v < 1 || v > SB_LAYOUT_GUPS_PORT_COUNT)
			return sb_error_set(SB_ERR_PARSE,
			                    "sim option 'ports': %llu is out of range [1, %u]",
			                    (unsigned long long)v, SB_LAYOUT_GUPS_PORT_COUNT);
		p->ports = (uint32_t)v;
		return 0;
	}
	if (!strcmp(o->key, "links")) {
		if ((err = sb_parse_u64(o->value, "sim option 'links'", false, &v)) < 0)
			return err;
		if (v != 2 && v != 4)
			return sb_error_set(SB_ERR_PARSE,
			                    "sim option 'links': %llu (expected 2 or 4)",
			                    (unsigned long long)v);
		p->links = (uint32_t)v;
		return 0;
	}
	return sb_error_set(SB_ERR_PARSE, "unknown sim option '%s' (known: ports, links)", o->key);
}

int sb_profile_load(struct sb_profile *p, const char *name_or_path, const struct sb_model_opt *opts,
                    size_t nopts)
{
	static const char *const keys[] = {"name", "description",    "board", "links",
	                                   "cube", "infrastructure", NULL};
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
	    (err = parse_board(&y, sb_yaml_get(root, "board"), p)) < 0 ||
	    (err = parse_links(&y, sb_yaml_get(root, "links"), p)) < 0 ||
	    (err = parse_cube(&y, sb_yaml_get(root, "cube"), p)) < 0 ||
	    (err = parse_infra(&y, sb_yaml_get(root, "infrastructure"), p)) < 0)
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
