/* SPDX-License-Identifier: MIT */
/* Camera calibration files: the Planck constants of one camera unit, in YAML. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/radiometry.h"
#include "stackbench/yaml.h"

int sb_planck_load(const char *path, struct sb_planck *p)
{
	static const char *const top[] = {"camera", "serial", "planck", NULL};
	static const char *const keys[] = {"r1",       "b",          "f",         "o", "r2",
	                                   "t_refl_c", "emissivity", "raw_scale", NULL};
	static const struct {
		const char *key;
		double min, max;
		size_t off;
	} num[] = {
	    {"r1", DBL_MIN, 1e12, offsetof(struct sb_planck, r1)},
	    {"b", DBL_MIN, 1e6, offsetof(struct sb_planck, b)},
	    {"f", -1e6, 1e6, offsetof(struct sb_planck, f)},
	    {"o", -1e9, 1e9, offsetof(struct sb_planck, o)},
	    {"r2", DBL_MIN, 1e6, offsetof(struct sb_planck, r2)},
	    {"t_refl_c", -273.0, 1000.0, offsetof(struct sb_planck, t_refl_c)},
	    {"emissivity", DBL_MIN, 1.0, offsetof(struct sb_planck, emissivity)},
	    {"raw_scale", DBL_MIN, 1e6, offsetof(struct sb_planck, raw_scale)},
	};
	struct sb_planck q;
	struct sb_yaml y;
	struct fy_node *root, *pl;
	int err;

	sb_planck_default(&q);
	if ((err = sb_yaml_load_file(&y, path)) < 0)
		return err;
	root = sb_yaml_root(&y);
	if ((err = sb_yaml_expect_map(&y, root, "the document")) < 0 ||
	    (err = sb_yaml_check_keys(&y, root, "the document", top)) < 0)
		goto out;
	pl = sb_yaml_get(root, "planck");
	if (!pl) {
		err = sb_yaml_error(&y, root, SB_ERR_PARSE, "missing key 'planck'");
		goto out;
	}
	if ((err = sb_yaml_expect_map(&y, pl, "key 'planck'")) < 0 ||
	    (err = sb_yaml_check_keys(&y, pl, "planck", keys)) < 0)
		goto out;
	for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++) {
		err = sb_yaml_get_double(&y, pl, num[i].key, false, num[i].min, num[i].max,
		                         (double *)((char *)&q + num[i].off));
		if (err < 0)
			goto out;
	}
	err = sb_planck_check(&q);
	if (err < 0) {
		err = sb_error_wrap(err, "calibration file '%s'", path);
		goto out;
	}
	*p = q;
	err = 0;
out:
	sb_yaml_release(&y);
	return err;
}
