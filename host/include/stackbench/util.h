/* SPDX-License-Identifier: MIT */
/*
 * Small helpers shared by all stackbench code: whole-file reads, bounded string copies,
 * strict number parsing. All return SB_ERR_* codes with a detail naming the subject.
 */
#ifndef STACKBENCH_UTIL_H
#define STACKBENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Read a whole regular file into a NUL-terminated malloc'ed buffer (*len excludes the NUL).
 * Anything else (a FIFO, a device, a folder) is refused without blocking (SB_ERR_INVAL "not a
 * regular file"): where a file is expected, only a file is read. Returns 0, SB_ERR_NOT_FOUND,
 * SB_ERR_PERM, SB_ERR_INVAL, SB_ERR_IO or SB_ERR_NOMEM.
 */
int sb_read_file(const char *path, char **data, size_t *len);
/* Same, refusing files larger than max bytes (SB_ERR_PARSE "larger than"): a runaway file
 * cannot exhaust memory. */
int sb_read_file_max(const char *path, size_t max, char **data, size_t *len);

/*
 * Write data to path atomically (stackbench/output.h: an exclusive temporary file in the same
 * folder, fsync, rename, folder synced). Returns 0, SB_ERR_IO, SB_ERR_PERM, SB_ERR_NOT_FOUND.
 */
int sb_write_file_atomic(const char *path, const void *data, size_t len);

/*
 * The shortest decimal text of v that reads back as exactly v (51.7, not 51.700000000000003):
 * what CSV, data files and JSON print. "nan", "inf", "-inf" for those. Returns buf.
 */
char *sb_format_double(char *buf, size_t size, double v);

/* 64-bit FNV-1a of len bytes (content hashes of campaign and profile files). */
uint64_t sb_fnv1a64(const void *data, size_t len);

/* Copy src into dst of size bytes, always terminated; returns strlen(src) (truncated if >= size). */
size_t sb_strlcpy(char *dst, const char *src, size_t size);

/*
 * Parse all of s as an unsigned integer (decimal, or hex with 0x); optional k/M/G suffix
 * (powers of 1024) when allow_suffix. Returns 0 or SB_ERR_INVAL (detail names what).
 */
int sb_parse_u64(const char *s, const char *what, bool allow_suffix, uint64_t *out);

/*
 * Find a data file (device profile, device library, ...) by name or path. A name with a '/' or
 * ending in ".yaml" is a path; otherwise NAME.yaml is looked up in $env_var, source_dir and
 * install_dir, in that order. kind names the file in messages ("device profile").
 * Returns 0 (path filled in) or SB_ERR_NOT_FOUND.
 */
int sb_find_data_file(const char *kind, const char *name, const char *env_var,
                      const char *source_dir, const char *install_dir, char *path, size_t size);

/* Parse all of s as a finite double. Returns 0 or SB_ERR_INVAL (detail names what). */
int sb_parse_double(const char *s, const char *what, double *out);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_UTIL_H */
