/* SPDX-License-Identifier: MIT */
/*
 * YAML reading for every human-written file of stackbench (register map, device profiles,
 * campaigns, device libraries), on top of libfyaml. Every error names the file and the line
 * (and the key) and is returned as SB_ERR_PARSE with the detail in sb_error_detail():
 *
 *     cannot parse 'examples/quick.yaml' line 12: key 'type': unknown value 'rx' (expected ro, wo, rw)
 */
#ifndef STACKBENCH_YAML_H
#define STACKBENCH_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct fy_document;
struct fy_node;

struct sb_yaml {
	struct fy_document *fyd;
	char *name; /* file name as given, for messages */
	char *text; /* the source text (the document points into it) */
};

/*
 * Files are bounded, because they may come from anyone: at most SB_YAML_MAX_BYTES and
 * SB_YAML_MAX_DEPTH levels of nesting, and no aliases (`*name`, also in `<<: *name` merge keys)
 * unless the caller allows them — a few hundred bytes of nested aliases expand to gigabytes.
 */
#define SB_YAML_MAX_BYTES (4u << 20)
#define SB_YAML_MAX_DEPTH 64

/* sb_yaml_load_*_flags(): the register map (written by the project) may use aliases. */
#define SB_YAML_ALLOW_ALIASES (1u << 0)

/*
 * Parse a file. Returns 0, SB_ERR_NOT_FOUND / SB_ERR_PERM / SB_ERR_IO (cannot read),
 * SB_ERR_PARSE (YAML syntax error with line and column, a file too large, too deep, or with an
 * alias) or SB_ERR_NOMEM. On error y is left released.
 */
int sb_yaml_load_file(struct sb_yaml *y, const char *path);
int sb_yaml_load_file_flags(struct sb_yaml *y, const char *path, unsigned flags);

/* Parse text held in memory; name is used in messages. Same codes as sb_yaml_load_file(). */
int sb_yaml_load_string(struct sb_yaml *y, const char *name, const char *text, size_t len);

void sb_yaml_release(struct sb_yaml *y);

/* Root node, or NULL for an empty document. */
struct fy_node *sb_yaml_root(const struct sb_yaml *y);

/* 1-based line where a node starts (for a collection: its first scalar), 0 if unknown. */
int sb_yaml_line(struct fy_node *n);

/* Record "cannot parse 'NAME' line N: MESSAGE" and return err (normally SB_ERR_PARSE). */
int sb_yaml_error(const struct sb_yaml *y, struct fy_node *at, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Node kind checks; what names the node in the message ("key 'axes'", "the document"). */
int sb_yaml_expect_map(const struct sb_yaml *y, struct fy_node *n, const char *what);
int sb_yaml_expect_seq(const struct sb_yaml *y, struct fy_node *n, const char *what);

/*
 * Reject keys of a mapping that are not in allowed (a NULL-terminated list):
 * "cannot parse 'f.yaml' line 7: unknown key 'sise' in 'point'".
 */
int sb_yaml_check_keys(const struct sb_yaml *y, struct fy_node *map, const char *where,
                       const char *const allowed[]);

/* Value node of key in a mapping, or NULL. */
struct fy_node *sb_yaml_get(struct fy_node *map, const char *key);

/*
 * Scalar conversions of a node. Integers take decimal or 0x hex, with optional '_' separators
 * ("0x5342_0001"); doubles are finite decimals; bools are true/false/yes/no/on/off.
 * Return 0 or SB_ERR_PARSE naming what and the line.
 */
int sb_yaml_to_u64(const struct sb_yaml *y, struct fy_node *n, const char *what, uint64_t min,
                   uint64_t max, uint64_t *out);
int sb_yaml_to_i64(const struct sb_yaml *y, struct fy_node *n, const char *what, int64_t min,
                   int64_t max, int64_t *out);
int sb_yaml_to_double(const struct sb_yaml *y, struct fy_node *n, const char *what, double min,
                      double max, double *out);
int sb_yaml_to_bool(const struct sb_yaml *y, struct fy_node *n, const char *what, bool *out);
/* The scalar text; valid while the document lives. Error if n is not a scalar. */
int sb_yaml_to_str(const struct sb_yaml *y, struct fy_node *n, const char *what, const char **out);
/* Index of the scalar in names (NULL-terminated); error lists the names. */
int sb_yaml_to_enum(const struct sb_yaml *y, struct fy_node *n, const char *what,
                    const char *const names[], int *out);

/*
 * Keyed getters on a mapping: if the key is absent, return SB_ERR_PARSE when required (message:
 * "missing key 'x' in 'where'") and otherwise leave *out untouched and return 0. Return 1 when
 * the key was present and converted.
 */
int sb_yaml_get_u64(const struct sb_yaml *y, struct fy_node *map, const char *key, bool required,
                    uint64_t min, uint64_t max, uint64_t *out);
int sb_yaml_get_i64(const struct sb_yaml *y, struct fy_node *map, const char *key, bool required,
                    int64_t min, int64_t max, int64_t *out);
int sb_yaml_get_u32(const struct sb_yaml *y, struct fy_node *map, const char *key, bool required,
                    uint32_t min, uint32_t max, uint32_t *out);
int sb_yaml_get_double(const struct sb_yaml *y, struct fy_node *map, const char *key, bool required,
                       double min, double max, double *out);
int sb_yaml_get_bool(const struct sb_yaml *y, struct fy_node *map, const char *key, bool required,
                     bool *out);
int sb_yaml_get_str(const struct sb_yaml *y, struct fy_node *map, const char *key, bool required,
                    const char **out);
int sb_yaml_get_enum(const struct sb_yaml *y, struct fy_node *map, const char *key, bool required,
                     const char *const names[], int *out);

/* A numeric field of a struct, read from the mapping key of the same meaning. */
enum sb_yaml_num_kind {
	SB_YAML_DOUBLE = 0,
	SB_YAML_U32 = 1,
	SB_YAML_U64 = 2,
};

struct sb_yaml_num {
	const char *key;
	double min, max;
	size_t offset; /* of the field in the struct */
	enum sb_yaml_num_kind kind;
};

/*
 * Read every key of a table of numbers (all required, each checked against its range) from
 * the mapping map into the struct at base. The mapping may hold only these keys and the names
 * in extra (NULL-terminated, or NULL), which the caller reads itself. what names the mapping
 * in messages. Returns 0 or SB_ERR_PARSE (file, line, key named).
 */
int sb_yaml_get_numbers(const struct sb_yaml *y, struct fy_node *map, const char *what,
                        const struct sb_yaml_num *table, size_t n, const char *const extra[],
                        void *base);

/* Iterate a sequence: for (it = NULL; (n = sb_yaml_seq_next(seq, &it));) */
struct fy_node *sb_yaml_seq_next(struct fy_node *seq, void **iter);
int sb_yaml_seq_len(struct fy_node *seq);

/* Iterate a mapping: key text and value node; returns false at the end. */
bool sb_yaml_map_next(struct fy_node *map, void **iter, const char **key, struct fy_node **value,
                      struct fy_node **key_node);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_YAML_H */
