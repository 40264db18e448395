/* SPDX-License-Identifier: MIT */
/* The device library: YAML files of memory devices (format in docs/lifetimes.md). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libfyaml.h>

#include "stackbench/devices.h"
#include "stackbench/error.h"
#include "stackbench/util.h"
#include "stackbench/yaml.h"

#ifndef SB_DEVICES_INSTALL_DIR
#define SB_DEVICES_INSTALL_DIR "/usr/local/share/stackbench/devices"
#endif
#ifndef SB_DEVICES_SOURCE_DIR
#define SB_DEVICES_SOURCE_DIR "analysis/devices"
#endif

void sb_memdev_lib_init(struct sb_memdev_lib *lib)
{
	memset(lib, 0, sizeof(*lib));
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void device_release(struct sb_memdev *d)
{
	free(d->description);
	free(d->file);
	free(d->points_write_hz);
	free(d->points_ns);
	free_strings(d->sources, d->nsources);
	free_strings(d->assumptions, d->nassumptions);
	memset(d, 0, sizeof(*d));
}

void sb_memdev_lib_release(struct sb_memdev_lib *lib)
{
	for (size_t i = 0; i < lib->ndevices; i++)
		device_release(&lib->devices[i]);
	free(lib->devices);
	free_strings(lib->files, lib->nfiles);
	memset(lib, 0, sizeof(*lib));
}

int sb_memdev_lib_find(const char *name, char *path, size_t size)
{
	return sb_find_data_file("device library", name, "STACKBENCH_DEVICES_PATH",
	                         SB_DEVICES_SOURCE_DIR, SB_DEVICES_INSTALL_DIR, path, size);
}

const struct sb_memdev *sb_memdev_lib_get(const struct sb_memdev_lib *lib, const char *name)
{
	for (size_t i = 0; i < lib->ndevices; i++)
		if (!strcmp(lib->devices[i].name, name))
			return &lib->devices[i];
	return NULL;
}

static int str_list(const struct sb_yaml *y, struct fy_node *map, const char *key, bool required,
                    char ***out, size_t *n)
{
	struct fy_node *seq = sb_yaml_get(map, key), *it;
	char what[64];
	void *iter = NULL;
	int err, len;

	*out = NULL;
	*n = 0;
	if (!seq) {
		if (required)
			return sb_yaml_error(y, map, SB_ERR_PARSE,
			                     "missing key '%s': say where the numbers come from",
			                     key);
		return 0;
	}
	snprintf(what, sizeof(what), "key '%s'", key);
	if ((err = sb_yaml_expect_seq(y, seq, what)) < 0)
		return err;
	len = sb_yaml_seq_len(seq);
	if (len <= 0)
		return required ? sb_yaml_error(y, seq, SB_ERR_PARSE, "key '%s' is empty", key) : 0;
	*out = calloc((size_t)len, sizeof(char *));
	if (!*out)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	while ((it = sb_yaml_seq_next(seq, &iter))) {
		const char *s;

		if ((err = sb_yaml_to_str(y, it, what, &s)) < 0)
			return err;
		if (!((*out)[*n] = strdup(s)))
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		(*n)++;
	}
	return 0;
}

static int parse_retention(const struct sb_yaml *y, struct fy_node *dev, struct sb_memdev *d)
{
	static const char *const keys[] = {"ns", "table", NULL};
	struct fy_node *n = sb_yaml_get(dev, "retention"), *table, *pt;
	void *iter = NULL;
	const char *s;
	int err, len;

	if (!n)
		return sb_yaml_error(y, dev, SB_ERR_PARSE,
		                     "device '%s': missing key 'retention' (static, {ns: T} or "
		                     "{table: [...]})",
		                     d->name);
	if (fy_node_is_scalar(n)) {
		if ((err = sb_yaml_to_str(y, n, "key 'retention'", &s)) < 0)
			return err;
		if (strcmp(s, "static"))
			return sb_yaml_error(y, n, SB_ERR_PARSE,
			                     "key 'retention': '%s' (expected static, {ns: T} or "
			                     "{table: [...]})",
			                     s);
		d->retention_kind = SB_RETENTION_STATIC;
		return 0;
	}
	if ((err = sb_yaml_expect_map(y, n, "key 'retention'")) < 0 ||
	    (err = sb_yaml_check_keys(y, n, "retention", keys)) < 0)
		return err;
	table = sb_yaml_get(n, "table");
	if (!table == !sb_yaml_get(n, "ns"))
		return sb_yaml_error(y, n, SB_ERR_PARSE,
		                     "key 'retention': give either 'ns' or 'table'");
	if (!table) {
		d->retention_kind = SB_RETENTION_CONSTANT;
		return sb_yaml_get_double(y, n, "ns", true, 1e-6, 1e18, &d->retention_ns) < 0
		           ? SB_ERR_PARSE
		           : 0;
	}
	if ((err = sb_yaml_expect_seq(y, table, "key 'table'")) < 0)
		return err;
	len = sb_yaml_seq_len(table);
	if (len < 1)
		return sb_yaml_error(y, table, SB_ERR_PARSE, "key 'table' is empty");
	d->retention_kind = SB_RETENTION_TABLE;
	d->points_write_hz = calloc((size_t)len, sizeof(double));
	d->points_ns = calloc((size_t)len, sizeof(double));
	if (!d->points_write_hz || !d->points_ns)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	while ((pt = sb_yaml_seq_next(table, &iter))) {
		static const char *const pkeys[] = {"write_hz", "ns", NULL};
		size_t i = d->npoints;

		if ((err = sb_yaml_expect_map(y, pt, "a retention point")) < 0 ||
		    (err = sb_yaml_check_keys(y, pt, "retention point", pkeys)) < 0 ||
		    (err = sb_yaml_get_double(y, pt, "write_hz", true, 1e-9, 1e15,
		                              &d->points_write_hz[i])) < 0 ||
		    (err = sb_yaml_get_double(y, pt, "ns", true, 1e-6, 1e18, &d->points_ns[i])) < 0)
			return err;
		if (i > 0 && d->points_write_hz[i] <= d->points_write_hz[i - 1])
			return sb_yaml_error(y, sb_yaml_get(pt, "write_hz"), SB_ERR_PARSE,
			                     "key 'write_hz': points must be in increasing write "
			                     "frequency");
		d->npoints++;
	}
	return 0;
}

static bool good_name(const char *s)
{
	if (!*s || strlen(s) >= SB_DEVICE_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-' &&
		    *s != '_' && *s != '.')
			return false;
	return true;
}

static int parse_device(const struct sb_yaml *y, struct fy_node *n, struct sb_memdev *d,
                        const struct sb_memdev_lib *lib)
{
	static const char *const keys[] = {"name",
	                                   "description",
	                                   "cell_area_um2",
	                                   "read_energy_fj_per_bit",
	                                   "write_energy_fj_per_bit",
	                                   "retention",
	                                   "sources",
	                                   "assumptions",
	                                   NULL};
	const char *s = "";
	int err;

	if ((err = sb_yaml_expect_map(y, n, "a device")) < 0 ||
	    (err = sb_yaml_check_keys(y, n, "device", keys)) < 0 ||
	    (err = sb_yaml_get_str(y, n, "name", true, &s)) < 0)
		return err;
	if (!good_name(s))
		return sb_yaml_error(y, sb_yaml_get(n, "name"), SB_ERR_PARSE,
		                     "key 'name': '%s' (lower-case letters, digits, '-', '_', '.'; "
		                     "at most %d)",
		                     s, SB_DEVICE_NAME_MAX - 1);
	for (size_t i = 0; i < lib->ndevices; i++)
		if (!strcmp(lib->devices[i].name, s))
			return sb_yaml_error(y, sb_yaml_get(n, "name"), SB_ERR_PARSE,
			                     "device '%s' is already defined in '%s'", s,
			                     lib->devices[i].file);
	sb_strlcpy(d->name, s, sizeof(d->name));
	s = "";
	if ((err = sb_yaml_get_str(y, n, "description", false, &s)) < 0)
		return err;
	if (!(d->description = strdup(s)) || !(d->file = strdup(y->name)))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((err = sb_yaml_get_double(y, n, "cell_area_um2", true, 1e-9, 1e9, &d->cell_area_um2)) <
	        0 ||
	    (err = sb_yaml_get_double(y, n, "read_energy_fj_per_bit", true, 0, 1e12,
	                              &d->read_fj_per_bit)) < 0 ||
	    (err = sb_yaml_get_double(y, n, "write_energy_fj_per_bit", true, 0, 1e12,
	                              &d->write_fj_per_bit)) < 0 ||
	    (err = parse_retention(y, n, d)) < 0 ||
	    (err = str_list(y, n, "sources", true, &d->sources, &d->nsources)) < 0 ||
	    (err = str_list(y, n, "assumptions", false, &d->assumptions, &d->nassumptions)) < 0)
		return err;
	return 0;
}

static int load_doc(struct sb_memdev_lib *lib, struct sb_yaml *y)
{
	static const char *const keys[] = {"library", "description", "reference", "devices", NULL};
	struct fy_node *root = sb_yaml_root(y), *devs, *n;
	const char *ref = NULL;
	void *iter = NULL;
	size_t first = lib->ndevices;
	int err, len;

	if ((err = sb_yaml_expect_map(y, root, "the device library")) < 0 ||
	    (err = sb_yaml_check_keys(y, root, "device library", keys)) < 0 ||
	    (err = sb_yaml_get_str(y, root, "reference", false, &ref)) < 0)
		return err;
	devs = sb_yaml_get(root, "devices");
	if (!devs)
		return sb_yaml_error(y, root, SB_ERR_PARSE, "missing key 'devices'");
	if ((err = sb_yaml_expect_seq(y, devs, "key 'devices'")) < 0)
		return err;
	len = sb_yaml_seq_len(devs);
	{
		struct sb_memdev *nd =
		    realloc(lib->devices, (lib->ndevices + (size_t)len + 1) * sizeof(*nd));
		char **nf = realloc(lib->files, (lib->nfiles + 1) * sizeof(*nf));

		if (nd)
			lib->devices = nd;
		if (nf)
			lib->files = nf;
		if (!nd || !nf || !(lib->files[lib->nfiles] = strdup(y->name)))
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		lib->nfiles++;
	}
	while ((n = sb_yaml_seq_next(devs, &iter))) {
		struct sb_memdev *d = &lib->devices[lib->ndevices];

		memset(d, 0, sizeof(*d));
		if ((err = parse_device(y, n, d, lib)) < 0) {
			device_release(d);
			goto fail;
		}
		lib->ndevices++;
	}
	if (ref && !lib->reference[0]) {
		if (!sb_memdev_lib_get(lib, ref)) {
			err = sb_yaml_error(y, sb_yaml_get(root, "reference"), SB_ERR_PARSE,
			                    "key 'reference': no device '%s'", ref);
			goto fail;
		}
		sb_strlcpy(lib->reference, ref, sizeof(lib->reference));
	}
	return 0;
fail:
	while (lib->ndevices > first)
		device_release(&lib->devices[--lib->ndevices]);
	return err;
}

int sb_memdev_lib_load_string(struct sb_memdev_lib *lib, const char *name, const char *text,
                              size_t len)
{
	struct sb_yaml y;
	int err;

	if ((err = sb_yaml_load_string(&y, name, text, len)) < 0)
		return err;
	err = load_doc(lib, &y);
	sb_yaml_release(&y);
	return err;
}

int sb_memdev_lib_load(struct sb_memdev_lib *lib, const char *name_or_path)
{
	char path[4096];
	struct sb_yaml y;
	int err;

	if (!name_or_path || !*name_or_path)
		name_or_path = SB_DEVICES_DEFAULT;
	if ((err = sb_memdev_lib_find(name_or_path, path, sizeof(path))) < 0)
		return err;
	if ((err = sb_yaml_load_file(&y, path)) < 0)
		return err;
	err = load_doc(lib, &y);
	sb_yaml_release(&y);
	return err;
}

int sb_memdev_lib_check(const struct sb_memdev_lib *lib)
{
	if (lib->ndevices == 0)
		return sb_error_set(SB_ERR_INVAL, "the device library holds no device");
	if (!lib->reference[0])
		return sb_error_set(SB_ERR_INVAL,
		                    "no reference device: a library file must name one with "
		                    "'reference: NAME' (ratios are taken against it)");
	if (!sb_memdev_lib_get(lib, lib->reference))
		return sb_error_set(SB_ERR_INVAL, "reference device '%s' is not in the library",
		                    lib->reference);
	return 0;
}

double sb_memdev_retention_ns(const struct sb_memdev *d, double write_hz)
{
	size_t n = d->npoints, i;

	switch (d->retention_kind) {
	case SB_RETENTION_STATIC:
		return INFINITY;
	case SB_RETENTION_CONSTANT:
		return d->retention_ns;
	default:
		break;
	}
	if (write_hz <= d->points_write_hz[0])
		return d->points_ns[0];
	if (write_hz >= d->points_write_hz[n - 1])
		return d->points_ns[n - 1];
	for (i = 0; i + 1 < n && write_hz > d->points_write_hz[i + 1]; i++)
		;
	if (write_hz == d->points_write_hz[i + 1] || d->points_ns[i] == d->points_ns[i + 1])
		return d->points_ns[i + 1];
	/* linear in log(frequency) and log(retention) */
	double x = (log(write_hz) - log(d->points_write_hz[i])) /
	           (log(d->points_write_hz[i + 1]) - log(d->points_write_hz[i]));

	return exp(log(d->points_ns[i]) + x * (log(d->points_ns[i + 1]) - log(d->points_ns[i])));
}
