/* SPDX-License-Identifier: MIT */
/* Bench parameters from YAML (thermal/data/NAME.yaml). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackbench/bench_model.h"
#include "stackbench/error.h"
#include "stackbench/util.h"
#include "stackbench/yaml.h"

#ifndef SB_BENCH_SOURCE_DIR
#define SB_BENCH_SOURCE_DIR "thermal/data"
#endif
#ifndef SB_BENCH_INSTALL_DIR
#define SB_BENCH_INSTALL_DIR "/usr/local/share/stackbench/benches"
#endif

static int find_file(const char *name, char *path, size_t size)
{
	return sb_find_data_file("bench", name, "STACKBENCH_BENCH_PATH", SB_BENCH_SOURCE_DIR,
	                         SB_BENCH_INSTALL_DIR, path, size);
}

#define NK(k, lo, hi, field)                                                                       \
	{                                                                                          \
		k, lo, hi, offsetof(struct sb_bench_params, field), SB_YAML_DOUBLE                 \
	}

static const struct sb_yaml_num machine_keys[] = {
    NK("idle_w", 0, 10000, machine_idle_w),
    NK("mains_v", 1, 1000, mains_v),
    NK("power_factor", 0.1, 1, power_factor),
};
static const struct sb_yaml_num fpga_keys[] = {NK("power_w", 0, 1000, fpga_w)};
static const struct sb_yaml_num cube_keys[] = {
    NK("static_w", 0, 1000, cube.static_w),
    NK("leakage_w", 0, 1000, cube.leakage_w),
    NK("leakage_ref_c", -50, 200, cube.leakage_ref_c),
    NK("leakage_doubling_c", 1, 1000, cube.leakage_doubling_c),
    NK("refresh_nj", 0, 1e6, cube.refresh_nj),
    NK("refresh_per_s", 0, 1e10, cube.refresh_per_s),
    NK("hot_refresh_c", 0, 200, cube.hot_refresh_c),
    NK("link_pj_per_bit", 0, 1e4, cube.link_pj_per_bit),
    NK("access_nj", 0, 1e4, cube.access_nj),
    NK("read_pj_per_bit", 0, 1e4, cube.read_pj_per_bit),
    NK("write_pj_per_bit", 0, 1e4, cube.write_pj_per_bit),
};
static const struct sb_yaml_num thermal_keys[] = {
    NK("junction_to_spot_k_per_w", 1e-3, 100, thermal.junction_to_spot_k_per_w),
    NK("junction_j_per_k", 1e-3, 1e5, thermal.junction_j_per_k),
    NK("heatsink_j_per_k", 1e-3, 1e6, thermal.heatsink_j_per_k),
};
static const struct sb_yaml_num failure_keys[] = {
    NK("write_junction_c", 0, 300, failure.write_junction_c),
    NK("read_junction_c", 0, 300, failure.read_junction_c),
    NK("write_share_full", 0.01, 1, failure.write_share_full),
    NK("recover_hysteresis_c", 0, 100, failure.recover_hysteresis_c),
};
static const struct sb_yaml_num meter_keys[] = {
    NK("noise_w", 0, 100, meter.noise_w),
    NK("resolution_w", 0, 100, meter.resolution_w),
    NK("volts_noise_v", 0, 100, meter.volts_noise_v),
    NK("volts_resolution_v", 0, 100, meter.volts_resolution_v),
    NK("amps_resolution_a", 0, 10, meter.amps_resolution_a),
};
static const struct sb_yaml_num coupling_keys[] = {
    NK("max_step_s", 1e-6, 100, coupling.max_step_s),
    NK("min_step_s", 1e-9, 100, coupling.min_step_s),
    NK("max_junction_change_c", 1e-4, 100, coupling.max_junction_change_c),
    NK("substep_s", 1e-6, 10, coupling.substep_s),
};
static const struct sb_yaml_num planck_keys[] = {
    NK("r1", 1e-9, 1e12, camera.planck.r1),
    NK("b", 1e-9, 1e9, camera.planck.b),
    NK("f", -1e6, 1e6, camera.planck.f),
    NK("o", -1e9, 1e9, camera.planck.o),
    NK("r2", 1e-12, 1e9, camera.planck.r2),
    NK("t_refl_c", -100, 500, camera.planck.t_refl_c),
    NK("emissivity", 1e-3, 1, camera.planck.emissivity),
    NK("raw_scale", 1e-6, 1e6, camera.planck.raw_scale),
};

/* Read a mapping whose keys are the table's (all required) plus extra names (read elsewhere). */
static int read_nums(const struct sb_yaml *y, struct fy_node *map, const char *where,
                     const struct sb_yaml_num *keys, size_t nkeys, const char *const *extra,
                     struct sb_bench_params *p)
{
	return sb_yaml_get_numbers(y, map, where, keys, nkeys, extra, p);
}

/* A list of exactly n numbers. */
static int read_list(const struct sb_yaml *y, struct fy_node *map, const char *key, unsigned n,
                     double min, double max, double *out)
{
	struct fy_node *seq = sb_yaml_get(map, key), *it;
	char what[64];
	void *iter = NULL;
	unsigned i = 0;
	int err;

	snprintf(what, sizeof(what), "key '%s'", key);
	if (!seq)
		return sb_yaml_error(y, map, SB_ERR_PARSE, "missing key '%s'", key);
	if ((err = sb_yaml_expect_seq(y, seq, what)) < 0)
		return err;
	if (sb_yaml_seq_len(seq) != (int)n)
		return sb_yaml_error(y, seq, SB_ERR_PARSE, "%s: expected a list of %u numbers",
		                     what, n);
	while ((it = sb_yaml_seq_next(seq, &iter)))
		if ((err = sb_yaml_to_double(y, it, what, min, max, &out[i++])) < 0)
			return err;
	return 0;
}

static int read_roi(const struct sb_yaml *y, struct fy_node *map, const char *key, unsigned width,
                    unsigned height, struct sb_roi *roi)
{
	double v[4];
	int err;

	if ((err = read_list(y, map, key, 4, 0, 10000, v)) < 0)
		return err;
	for (int i = 0; i < 4; i++)
		if (v[i] != floor(v[i]))
			return sb_yaml_error(y, sb_yaml_get(map, key), SB_ERR_PARSE,
			                     "key '%s': pixel positions are whole numbers", key);
	*roi = (struct sb_roi){(unsigned)v[0], (unsigned)v[1], (unsigned)v[2], (unsigned)v[3]};
	if (!roi->w || !roi->h || roi->x + roi->w > width || roi->y + roi->h > height)
		return sb_yaml_error(y, sb_yaml_get(map, key), SB_ERR_PARSE,
		                     "key '%s': [x, y, w, h] must lie inside the %ux%u frame", key,
		                     width, height);
	return 0;
}

static int read_cooling_cfg(const struct sb_yaml *y, struct fy_node *n, struct sb_cooling_cfg *c)
{
	static const char *const keys[] = {"name",    "fan_supply_v",         "fan_supply_a",
	                                   "fan_rpm", "desk_fan_distance_cm", "cooling_power_w",
	                                   "idle_c",  "heatsink_k_per_w",     NULL};
	const struct {
		const char *key;
		double max;
		double *dst;
		bool required;
	} nums[] = {
	    {"fan_supply_v", 100, &c->fan_supply_v, true},
	    {"fan_supply_a", 100, &c->fan_supply_a, true},
	    {"fan_rpm", 1e6, &c->fan_rpm, true},
	    {"desk_fan_distance_cm", 1e5, &c->desk_fan_distance_cm, true},
	    {"cooling_power_w", 1e4, &c->cooling_power_w, true},
	    {"idle_c", 300, &c->idle_c, false},
	    {"heatsink_k_per_w", 1e3, &c->heatsink_k_per_w, true},
	};
	const char *name;
	int err;

	if ((err = sb_yaml_expect_map(y, n, "a cooling configuration")) < 0 ||
	    (err = sb_yaml_check_keys(y, n, "cooling configuration", keys)) < 0 ||
	    (err = sb_yaml_get_str(y, n, "name", true, &name)) < 0)
		return err;
	if (!*name || strlen(name) >= sizeof(c->name))
		return sb_yaml_error(y, sb_yaml_get(n, "name"), SB_ERR_PARSE,
		                     "key 'name': 1..%zu characters", sizeof(c->name) - 1);
	sb_strlcpy(c->name, name, sizeof(c->name));
	c->idle_c = NAN;
	for (size_t i = 0; i < SB_ARRAY_SIZE(nums); i++)
		if ((err = sb_yaml_get_double(y, n, nums[i].key, nums[i].required, 0, nums[i].max,
		                              nums[i].dst)) < 0)
			return err;
	if (!(c->heatsink_k_per_w > 0))
		return sb_yaml_error(y, sb_yaml_get(n, "heatsink_k_per_w"), SB_ERR_PARSE,
		                     "key 'heatsink_k_per_w': must be > 0");
	return 0;
}

static int read_cooling(const struct sb_yaml *y, struct fy_node *root, struct sb_bench_params *p)
{
	static const char *const keys[] = {"default", "configs", NULL};
	struct fy_node *sec = sb_yaml_get(root, "cooling"), *list, *n;
	const char *def;
	void *it = NULL;
	int err;

	if (!sec)
		return sb_yaml_error(y, root, SB_ERR_PARSE, "missing section 'cooling'");
	if ((err = sb_yaml_expect_map(y, sec, "cooling")) < 0 ||
	    (err = sb_yaml_check_keys(y, sec, "cooling", keys)) < 0 ||
	    (err = sb_yaml_get_str(y, sec, "default", true, &def)) < 0)
		return err;
	list = sb_yaml_get(sec, "configs");
	if ((err = sb_yaml_expect_seq(y, list ? list : sec, "key 'configs'")) < 0)
		return err;
	while ((n = sb_yaml_seq_next(list, &it))) {
		struct sb_cooling_cfg *c = &p->cooling[p->ncooling];

		if (p->ncooling == SB_BENCH_MAX_COOLING)
			return sb_yaml_error(y, n, SB_ERR_PARSE,
			                     "more than %d cooling configurations",
			                     SB_BENCH_MAX_COOLING);
		if ((err = read_cooling_cfg(y, n, c)) < 0)
			return err;
		for (unsigned i = 0; i < p->ncooling; i++)
			if (!strcmp(p->cooling[i].name, c->name))
				return sb_yaml_error(y, n, SB_ERR_PARSE,
				                     "cooling configuration '%s' defined twice",
				                     c->name);
		p->ncooling++;
	}
	if (!p->ncooling)
		return sb_yaml_error(y, list, SB_ERR_PARSE, "no cooling configuration");
	err = sb_bench_find_cooling(p, def);
	if (err < 0)
		return sb_yaml_error(y, sb_yaml_get(sec, "default"), SB_ERR_PARSE,
		                     "key 'default': %s", sb_error_detail());
	p->default_cooling = (unsigned)err;
	return 0;
}

static int read_camera(const struct sb_yaml *y, struct fy_node *root, struct sb_bench_params *p)
{
	static const char *const keys[] = {
	    "width",        "height", "frame_rate_hz", "noise_c", "pixel_noise_c",
	    "resolution_c", "planck", "scene",         "roi",     NULL};
	static const char *const scene_keys[] = {
	    "heatsink", "heatsink_frac", "background_frac", "cube", "fpga", "fpga_frac", NULL};
	struct fy_node *cam = sb_yaml_get(root, "camera"), *scene;
	struct sb_bench_scene *s = &p->camera.scene;
	uint32_t w = 0, h = 0;
	double v[3];
	int err;

	if (!cam)
		return sb_yaml_error(y, root, SB_ERR_PARSE, "missing section 'camera'");
	if ((err = sb_yaml_expect_map(y, cam, "camera")) < 0 ||
	    (err = sb_yaml_check_keys(y, cam, "camera", keys)) < 0 ||
	    (err = sb_yaml_get_u32(y, cam, "width", true, 1, 1000, &w)) < 0 ||
	    (err = sb_yaml_get_u32(y, cam, "height", true, 1, 1000, &h)) < 0 ||
	    (err = sb_yaml_get_double(y, cam, "frame_rate_hz", true, 0.01, 1000,
	                              &p->camera.frame_rate_hz)) < 0 ||
	    (err = sb_yaml_get_double(y, cam, "noise_c", true, 0, 10, &p->camera.noise_c)) < 0 ||
	    (err = sb_yaml_get_double(y, cam, "pixel_noise_c", true, 0, 10,
	                              &p->camera.pixel_noise_c)) < 0 ||
	    (err = sb_yaml_get_double(y, cam, "resolution_c", true, 0, 10,
	                              &p->camera.resolution_c)) < 0)
		return err;
	if (!((w == 160 && h == 120) || (w == 80 && h == 60)))
		return sb_yaml_error(y, sb_yaml_get(cam, "width"), SB_ERR_PARSE,
		                     "camera %ux%u: the simulated FLIR One is 160x120 or 80x60", w,
		                     h);
	p->camera.width = w;
	p->camera.height = h;
	if ((err = read_nums(y, sb_yaml_get(cam, "planck"), "planck", planck_keys,
	                     SB_ARRAY_SIZE(planck_keys), NULL, p)) < 0)
		return err;
	if (sb_planck_check(&p->camera.planck) < 0)
		return sb_yaml_error(y, sb_yaml_get(cam, "planck"), SB_ERR_PARSE, "%s",
		                     sb_error_detail());
	scene = sb_yaml_get(cam, "scene");
	if (!scene)
		return sb_yaml_error(y, cam, SB_ERR_PARSE, "missing key 'scene' in 'camera'");
	if ((err = sb_yaml_expect_map(y, scene, "scene")) < 0 ||
	    (err = sb_yaml_check_keys(y, scene, "scene", scene_keys)) < 0 ||
	    (err = read_roi(y, scene, "heatsink", w, h, &s->heatsink)) < 0 ||
	    (err = sb_yaml_get_double(y, scene, "heatsink_frac", true, 0, 1, &s->heatsink_frac)) <
	        0 ||
	    (err = sb_yaml_get_double(y, scene, "background_frac", true, 0, 1,
	                              &s->background_frac)) < 0 ||
	    (err = sb_yaml_get_double(y, scene, "fpga_frac", true, 0, 1, &s->fpga_frac)) < 0)
		return err;
	if ((err = read_list(y, scene, "cube", 3, 0, 1000, v)) < 0)
		return err;
	s->cube_x = v[0];
	s->cube_y = v[1];
	s->cube_sigma_px = v[2];
	if ((err = read_list(y, scene, "fpga", 3, 0, 1000, v)) < 0)
		return err;
	s->fpga_x = v[0];
	s->fpga_y = v[1];
	s->fpga_sigma_px = v[2];
	if (s->cube_sigma_px <= 0 || s->fpga_sigma_px <= 0 || s->cube_x >= w || s->cube_y >= h ||
	    s->fpga_x >= w || s->fpga_y >= h)
		return sb_yaml_error(y, scene, SB_ERR_PARSE,
		                     "scene: cube and fpga need a position inside the frame and a "
		                     "sigma > 0");
	return read_roi(y, cam, "roi", w, h, &p->camera.roi);
}

static int cooling_key(const struct sb_yaml *y, struct fy_node *map, const char *key,
                       const struct sb_bench_params *p, unsigned *out)
{
	const char *name;
	int err;

	if ((err = sb_yaml_get_str(y, map, key, true, &name)) < 0)
		return err;
	err = sb_bench_find_cooling(p, name);
	if (err < 0)
		return sb_yaml_error(y, sb_yaml_get(map, key), SB_ERR_PARSE, "key '%s': %s", key,
		                     sb_error_detail());
	*out = (unsigned)err;
	return 0;
}

static int read_calibration(const struct sb_yaml *y, struct fy_node *root,
                            struct sb_bench_params *p)
{
	static const struct sb_yaml_num keys[] = {
	    NK("slope_from_gbps", 0, 1000, cal.slope_from_gbps),
	    NK("slope_to_gbps", 0, 1000, cal.slope_to_gbps),
	    NK("ro_power_slope_w", 0, 1000, cal.ro_power_slope_w),
	    NK("ro_temperature_slope_c", 0, 1000, cal.ro_temp_slope_c),
	    NK("rw_temperature_slope_c", 0, 1000, cal.rw_temp_slope_c),
	    NK("hold_c", 0, 300, cal.hold_c),
	    NK("hold_span_gbps", 0.001, 1000, cal.hold_span_gbps),
	    NK("hold_cooling_w", 0, 1000, cal.hold_cooling_w),
	    NK("write_fail_camera_c", 0, 300, cal.write_fail_camera_c),
	    NK("read_fail_camera_c", 0, 300, cal.read_fail_camera_c),
	    NK("read_survive_camera_c", 0, 300, cal.read_survive_camera_c),
	};
	static const char *const extra[] = {"slope_config",      "size",
	                                    "write_fail_config", "read_fail_config",
	                                    "junction_offset_c", NULL};
	struct fy_node *cal = sb_yaml_get(root, "calibration");
	uint32_t size = 0;
	double off[2];
	int err;

	if ((err = read_nums(y, cal, "calibration", keys, SB_ARRAY_SIZE(keys), extra, p)) < 0 ||
	    (err = cooling_key(y, cal, "slope_config", p, &p->cal.slope_cooling)) < 0 ||
	    (err = cooling_key(y, cal, "write_fail_config", p, &p->cal.write_fail_cooling)) < 0 ||
	    (err = cooling_key(y, cal, "read_fail_config", p, &p->cal.read_fail_cooling)) < 0 ||
	    (err = sb_yaml_get_u32(y, cal, "size", true, 16, 128, &size)) < 0 ||
	    (err = read_list(y, cal, "junction_offset_c", 2, 0, 100, off)) < 0)
		return err;
	if (size % 16)
		return sb_yaml_error(y, sb_yaml_get(cal, "size"), SB_ERR_PARSE,
		                     "key 'size': 16..128 in steps of 16");
	if (p->cal.slope_to_gbps <= p->cal.slope_from_gbps || off[1] <= off[0])
		return sb_yaml_error(
		    y, cal, SB_ERR_PARSE,
		    "calibration: slope_to_gbps must exceed slope_from_gbps and the "
		    "offset range must be [min, max]");
	p->cal.size = size;
	p->cal.offset_min_c = off[0];
	p->cal.offset_max_c = off[1];
	return 0;
}

static int check_params(const struct sb_yaml *y, struct fy_node *root,
                        const struct sb_bench_params *p)
{
	if (p->failure.read_junction_c < p->failure.write_junction_c)
		return sb_yaml_error(y, sb_yaml_get(root, "failure"), SB_ERR_PARSE,
		                     "failure: read_junction_c must not be below write_junction_c");
	if (p->coupling.min_step_s > p->coupling.max_step_s)
		return sb_yaml_error(y, sb_yaml_get(root, "coupling"), SB_ERR_PARSE,
		                     "coupling: min_step_s exceeds max_step_s");
	return 0;
}

int sb_bench_params_load(struct sb_bench_params *p, const char *name_or_path)
{
	static const char *const keys[] = {
	    "name",    "description", "ambient_c", "machine", "fpga",     "cube",        "thermal",
	    "failure", "cooling",     "camera",    "meter",   "coupling", "calibration", NULL};
	struct sb_yaml y;
	struct fy_node *root;
	const char *name;
	int err;

	memset(p, 0, sizeof(*p));
	if (!name_or_path || !*name_or_path)
		name_or_path = SB_BENCH_DEFAULT;
	if ((err = find_file(name_or_path, p->path, sizeof(p->path))) < 0)
		return err;
	if ((err = sb_yaml_load_file(&y, p->path)) < 0)
		return err;
	root = sb_yaml_root(&y);
	if ((err = sb_yaml_expect_map(&y, root, "the bench file")) < 0 ||
	    (err = sb_yaml_check_keys(&y, root, "bench", keys)) < 0 ||
	    (err = sb_yaml_get_str(&y, root, "name", true, &name)) < 0 ||
	    (err = sb_yaml_get_double(&y, root, "ambient_c", true, -50, 100, &p->ambient_c)) < 0 ||
	    (err = read_nums(&y, sb_yaml_get(root, "machine"), "machine", machine_keys,
	                     SB_ARRAY_SIZE(machine_keys), NULL, p)) < 0 ||
	    (err = read_nums(&y, sb_yaml_get(root, "fpga"), "fpga", fpga_keys,
	                     SB_ARRAY_SIZE(fpga_keys), NULL, p)) < 0 ||
	    (err = read_nums(&y, sb_yaml_get(root, "cube"), "cube", cube_keys,
	                     SB_ARRAY_SIZE(cube_keys), NULL, p)) < 0 ||
	    (err = read_nums(&y, sb_yaml_get(root, "thermal"), "thermal", thermal_keys,
	                     SB_ARRAY_SIZE(thermal_keys), NULL, p)) < 0 ||
	    (err = read_nums(&y, sb_yaml_get(root, "failure"), "failure", failure_keys,
	                     SB_ARRAY_SIZE(failure_keys), NULL, p)) < 0 ||
	    (err = read_cooling(&y, root, p)) < 0 || (err = read_camera(&y, root, p)) < 0 ||
	    (err = read_nums(&y, sb_yaml_get(root, "meter"), "meter", meter_keys,
	                     SB_ARRAY_SIZE(meter_keys), NULL, p)) < 0 ||
	    (err = read_nums(&y, sb_yaml_get(root, "coupling"), "coupling", coupling_keys,
	                     SB_ARRAY_SIZE(coupling_keys), NULL, p)) < 0 ||
	    (err = read_calibration(&y, root, p)) < 0 || (err = check_params(&y, root, p)) < 0)
		goto out;
	sb_strlcpy(p->name, name, sizeof(p->name));
	err = 0;
out:
	sb_yaml_release(&y);
	return err;
}

int sb_bench_find_cooling(const struct sb_bench_params *p, const char *name)
{
	char list[256];
	size_t off = 0;

	for (unsigned i = 0; i < p->ncooling; i++)
		if (!strcmp(p->cooling[i].name, name))
			return (int)i;
	list[0] = '\0';
	for (unsigned i = 0; i < p->ncooling && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
		                        p->cooling[i].name);
	return sb_error_set(SB_ERR_NOT_FOUND, "no cooling configuration '%s' (known: %s)", name,
	                    list);
}
