/* SPDX-License-Identifier: MIT */
/*
 * The device library: memory devices (6T SRAM, gain cells, anything a user describes) as data
 * files, never constants in code. A library file (YAML, format in docs/lifetimes.md) lists
 * devices with their cell area, read and write energy per bit, retention time as a function of
 * the write frequency, the sources of the numbers and the assumptions made.
 *
 * Library files are found like model profiles: a path (containing '/' or ending in .yaml), or
 * a name looked up in $STACKBENCH_DEVICES_PATH, the source tree (analysis/devices) and the
 * install folder (share/stackbench/devices).
 */
#ifndef STACKBENCH_DEVICES_H
#define STACKBENCH_DEVICES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library used when none is named. */
#define SB_DEVICES_DEFAULT "tsmc-n5"

#define SB_DEVICE_NAME_MAX 32

enum sb_retention_kind {
	SB_RETENTION_STATIC = 0,   /* holds data while powered: never refreshed (SRAM) */
	SB_RETENTION_CONSTANT = 1, /* one retention time, flat in write frequency */
	SB_RETENTION_TABLE = 2,    /* points (write frequency, retention), interpolated */
};

struct sb_memdev {
	char name[SB_DEVICE_NAME_MAX];
	char *description;
	char *file;              /* library file it came from */
	double cell_area_um2;    /* area of one bit cell */
	double read_fj_per_bit;  /* active read energy per bit */
	double write_fj_per_bit; /* active write energy per bit */
	int retention_kind;      /* enum sb_retention_kind */
	double retention_ns;     /* SB_RETENTION_CONSTANT */
	size_t npoints;          /* SB_RETENTION_TABLE: write_hz ascending */
	double *points_write_hz;
	double *points_ns;
	char **sources;
	size_t nsources;
	char **assumptions;
	size_t nassumptions;
};

struct sb_memdev_lib {
	struct sb_memdev *devices;
	size_t ndevices;
	char reference[SB_DEVICE_NAME_MAX]; /* the baseline ratios are taken against ("sram") */
	char **files;                       /* the files loaded, in order */
	size_t nfiles;
};

void sb_memdev_lib_init(struct sb_memdev_lib *lib);
void sb_memdev_lib_release(struct sb_memdev_lib *lib);

/*
 * Resolve a library name or path to a file path. Returns 0 or SB_ERR_NOT_FOUND (the detail
 * lists where it looked).
 */
int sb_memdev_lib_find(const char *name_or_path, char *path, size_t size);

/*
 * Add the devices of one library file (name or path; NULL: the default library). A device name
 * defined twice, a bad key or value is SB_ERR_PARSE naming the file, line and key. The first
 * file that names a reference sets it. Returns 0, SB_ERR_NOT_FOUND, SB_ERR_IO, SB_ERR_PARSE or
 * SB_ERR_NOMEM.
 */
int sb_memdev_lib_load(struct sb_memdev_lib *lib, const char *name_or_path);

/* Parse library text held in memory (name is used in messages). Same codes. */
int sb_memdev_lib_load_string(struct sb_memdev_lib *lib, const char *name, const char *text,
                              size_t len);

/*
 * Check the library is usable for a projection: at least one device and a reference that exists.
 * Returns 0 or SB_ERR_INVAL.
 */
int sb_memdev_lib_check(const struct sb_memdev_lib *lib);

/* The device called name, or NULL. */
const struct sb_memdev *sb_memdev_lib_get(const struct sb_memdev_lib *lib, const char *name);

/*
 * Retention time in ns of a device written at write_hz (writes per second): INFINITY for a static
 * device; a table is interpolated linearly in log(frequency) and log(retention), and clamped to
 * its first and last point outside its range.
 */
double sb_memdev_retention_ns(const struct sb_memdev *d, double write_hz);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_DEVICES_H */
