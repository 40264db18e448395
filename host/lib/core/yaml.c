/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libfyaml.h>

#include "stackbench/error.h"
#include "stackbench/util.h"
#include "stackbench/yaml.h"

static void diag_discard(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
	(void)diag;
	(void)user;
	(void)buf;
	(void)len;
}

/* Reject aliases and deep nesting, naming the line (an explicit stack: no recursion depth
 * from the input). */
static int check_tree(struct sb_yaml *y, struct fy_node *root, unsigned flags)
{
	struct {
		struct fy_node *n;
		void *it;
	} st[SB_YAML_MAX_DEPTH + 1];
	int top = 0;

	if (!root)
		return 0;
	st[0].n = root;
	st[0].it = NULL;
	while (top >= 0) {
		struct fy_node *n = st[top].n, *child = NULL;

		if (fy_node_is_alias(n)) {
			if (!(flags & SB_YAML_ALLOW_ALIASES))
				return sb_yaml_error(
				    y, n, SB_ERR_PARSE,
				    "aliases ('*%s') are not allowed here: write the "
				    "values out",
				    fy_node_get_scalar0(n) ? fy_node_get_scalar0(n) : "");
		} else if (fy_node_is_mapping(n)) {
			struct fy_node_pair *p = fy_node_mapping_iterate(n, &st[top].it);

			if (p) {
				/* keys are checked as scalars; their values are descended into */
				struct fy_node *k = fy_node_pair_key(p);

				if (k && !fy_node_is_scalar(k))
					return sb_yaml_error(y, k, SB_ERR_PARSE,
					                     "a key must be a plain value");
				child = fy_node_pair_value(p);
				if (!child)
					continue;
			}
		} else if (fy_node_is_sequence(n)) {
			child = fy_node_sequence_iterate(n, &st[top].it);
		}
		if (!child) {
			top--;
			continue;
		}
		if (top == SB_YAML_MAX_DEPTH)
			return sb_yaml_error(y, child, SB_ERR_PARSE, "nested deeper than %d levels",
			                     SB_YAML_MAX_DEPTH);
		top++;
		st[top].n = child;
		st[top].it = NULL;
	}
	return 0;
}

/*
 * A value ending in ':' (a device URI such as sim:) unquoted makes YAML read a mapping; the
 * parser's message does not say so. The hint when line n has such a value.
 */
static const char *colon_hint(const char *text, size_t len, int n)
{
	const char *p = text, *end = text + len, *eol;

	for (int i = 1; i < n && p < end; i++) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (!p)
			return "";
		p++;
	}
	eol = memchr(p, '\n', (size_t)(end - p));
	eol = eol ? eol : end;
	for (const char *q = p; q + 1 < eol; q++) {
		const char *v, *t;

		if (q[0] != ':' || q[1] != ' ')
			continue;
		for (v = q + 1; v < eol && *v == ' '; v++)
			;
		for (t = v; t < eol && *t != ' ' && *t != ',' && *t != '}' && *t != ']'; t++)
			if (*t == ':' && (t + 1 == eol || strchr(" ,}]\r", t[1])) && t > v &&
			    *v != '"' && *v != '\'')
				return " (a value ending in ':', such as a device URI 'sim:', must "
				       "be "
				       "quoted: \"sim:\")";
	}
	return "";
}

/*
 * YAML is Unicode text: check the bytes are valid UTF-8 without NULs before libfyaml sees them.
 * Besides giving a clear error, this keeps inputs away from libfyaml 0.7's handling of invalid
 * bytes, which loops for ever on some (a directive line with 0xFF bytes, found by the fuzzer).
 * Returns 0 or SB_ERR_PARSE naming the line and column.
 */
static int check_utf8(const char *name, const unsigned char *p, size_t len)
{
	unsigned line = 1, col = 1;

	for (size_t i = 0; i < len;) {
		unsigned char c = p[i];
		size_t n = c < 0x80             ? 1
		           : (c & 0xE0) == 0xC0 ? 2
		           : (c & 0xF0) == 0xE0 ? 3
		           : (c & 0xF8) == 0xF0 ? 4
		                                : 0;
		uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;

		if (!c || !n || i + n > len)
			goto bad;
		for (size_t k = 1; k < n; k++) {
			if ((p[i + k] & 0xC0) != 0x80)
				goto bad;
			cp = cp << 6 | (p[i + k] & 0x3F);
		}
		/* overlong forms, surrogates, beyond Unicode */
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
		    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
			goto bad;
		if (c == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
		i += n;
		continue;
	bad:
		return sb_error_set(
		    SB_ERR_PARSE,
		    "cannot parse '%s' line %u column %u: not UTF-8 text (byte 0x%02x)", name, line,
		    col, c);
	}
	return 0;
}

static int load(struct sb_yaml *y, const char *name, char *text, size_t len, unsigned flags)
{
	struct fy_diag_cfg dcfg;
	struct fy_parse_cfg pcfg;
	struct fy_diag *diag;
	struct fy_diag_error *de;
	void *it = NULL;
	int err;

	memset(y, 0, sizeof(*y));
	y->name = strdup(name);
	if (!y->name) {
		free(text);
		return sb_error_set(SB_ERR_NOMEM, "out of memory reading '%s'", name);
	}
	if ((err = check_utf8(name, (const unsigned char *)text, len)) < 0) {
		y->text = text;
		goto fail_diag;
	}
	fy_diag_cfg_default(&dcfg);
	dcfg.fp = NULL;
	dcfg.output_fn = diag_discard;
	dcfg.colorize = false;
	diag = fy_diag_create(&dcfg);
	if (!diag) {
		y->text = text;
		err = sb_error_set(SB_ERR_NOMEM, "out of memory reading '%s'", name);
		goto fail_diag;
	}
	fy_diag_set_collect_errors(diag, true);
	memset(&pcfg, 0, sizeof(pcfg));
	/* aliases are resolved only after the tree has been checked (check_tree) */
	pcfg.flags = FYPCF_QUIET;
	pcfg.diag = diag;
	/* The document points into text, which lives until sb_yaml_release(). */
	y->text = text;
	y->fyd = fy_document_build_from_string(&pcfg, text, len);
	if (!y->fyd) {
		de = fy_diag_errors_iterate(diag, &it);
		if (de)
			/* libfyaml's lines and columns count from 1 already */
			err = sb_error_set(
			    SB_ERR_PARSE, "cannot parse '%s' line %d column %d: %s%s", name,
			    de->line, de->column, de->msg, colon_hint(text, len, de->line));
		else
			err = sb_error_set(SB_ERR_PARSE, "cannot parse '%s': not valid YAML", name);
		goto fail_doc;
	}
	fy_diag_unref(diag);
	diag = NULL;
	if ((err = check_tree(y, fy_document_root(y->fyd), flags)) < 0)
		goto fail_tree;
	if ((flags & SB_YAML_ALLOW_ALIASES) && fy_document_resolve(y->fyd) != 0) {
		err =
		    sb_error_set(SB_ERR_PARSE, "cannot parse '%s': an alias names no anchor", name);
		goto fail_tree;
	}
	return 0;

fail_tree:
	fy_document_destroy(y->fyd);
	y->fyd = NULL;
fail_doc:
	if (diag)
		fy_diag_unref(diag);
fail_diag:
	free(y->text);
	free(y->name);
	y->text = NULL;
	y->name = NULL;
	return err;
}

int sb_yaml_load_file_flags(struct sb_yaml *y, const char *path, unsigned flags)
{
	struct stat st;
	char *text;
	size_t len;
	int err;

	memset(y, 0, sizeof(*y));
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > SB_YAML_MAX_BYTES)
		return sb_error_set(SB_ERR_PARSE, "cannot parse '%s': %lld bytes (at most %u)",
		                    path, (long long)st.st_size, SB_YAML_MAX_BYTES);
	err = sb_read_file_max(path, SB_YAML_MAX_BYTES, &text, &len);
	if (err < 0)
		return err;
	return load(y, path, text, len, flags);
}

int sb_yaml_load_file(struct sb_yaml *y, const char *path)
{
	return sb_yaml_load_file_flags(y, path, 0);
}

int sb_yaml_load_string(struct sb_yaml *y, const char *name, const char *text, size_t len)
{
	char *copy;

	if (len > SB_YAML_MAX_BYTES) {
		memset(y, 0, sizeof(*y));
		return sb_error_set(SB_ERR_PARSE, "cannot parse '%s': %zu bytes (at most %u)", name,
		                    len, SB_YAML_MAX_BYTES);
	}
	if (!(copy = malloc(len + 1))) {
		memset(y, 0, sizeof(*y));
		return sb_error_set(SB_ERR_NOMEM, "out of memory reading '%s'", name);
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	return load(y, name, copy, len, 0);
}

void sb_yaml_release(struct sb_yaml *y)
{
	if (y->fyd)
		fy_document_destroy(y->fyd);
	free(y->text);
	free(y->name);
	y->fyd = NULL;
	y->text = NULL;
	y->name = NULL;
}

struct fy_node *sb_yaml_root(const struct sb_yaml *y)
{
	return y->fyd ? fy_document_root(y->fyd) : NULL;
}

int sb_yaml_line(struct fy_node *n)
{
	struct fy_token *t;
	const struct fy_mark *m;
	struct fy_node_pair *p;
	void *it = NULL;

	if (!n)
		return 0;
	switch (fy_node_get_type(n)) {
	case FYNT_SCALAR:
		t = fy_node_get_scalar_token(n);
		m = t ? fy_token_start_mark(t) : NULL;
		return m ? m->line + 1 : 0;
	case FYNT_MAPPING:
		p = fy_node_mapping_iterate(n, &it);
		return p ? sb_yaml_line(fy_node_pair_key(p)) : 0;
	case FYNT_SEQUENCE:
		return sb_yaml_line(fy_node_sequence_iterate(n, &it));
	}
	return 0;
}

int sb_yaml_error(const struct sb_yaml *y, struct fy_node *at, int err, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	int line = sb_yaml_line(at);

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		return sb_error_set(err, "cannot parse '%s' line %d: %s", y->name, line, msg);
	return sb_error_set(err, "cannot parse '%s': %s", y->name, msg);
}

int sb_yaml_expect_map(const struct sb_yaml *y, struct fy_node *n, const char *what)
{
	if (!n || !fy_node_is_mapping(n))
		return sb_yaml_error(y, n, SB_ERR_PARSE, "%s must be a mapping", what);
	return 0;
}

int sb_yaml_expect_seq(const struct sb_yaml *y, struct fy_node *n, const char *what)
{
	if (!n || !fy_node_is_sequence(n))
		return sb_yaml_error(y, n, SB_ERR_PARSE, "%s must be a list", what);
	return 0;
}

/* Edit distance of two short strings (keys); larger than any key for long ones. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64], diag, up;

	if (la >= 64 || lb >= 64)
		return 64;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = diag + (a[i - 1] != b[j - 1]);

			up = row[j];
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/* ": did you mean 'type'?" for a near miss, else the keys allowed. */
static void key_hint(const char *key, const char *const allowed[], char *hint, size_t size)
{
	size_t best = SIZE_MAX, n = 0;
	const char *near = NULL;

	for (size_t i = 0; allowed[i]; i++) {
		size_t d = distance(key, allowed[i]);

		if (d < best) {
			best = d;
			near = allowed[i];
		}
	}
	if (near && best <= (strlen(near) > 4 ? 2u : 1u)) {
		snprintf(hint, size, ": did you mean '%s'?", near);
		return;
	}
	n = (size_t)snprintf(hint, size, " (known:");
	for (size_t i = 0; allowed[i] && n < size; i++)
		n += (size_t)snprintf(hint + n, size - n, "%s %s", i ? "," : "", allowed[i]);
	if (n < size)
		snprintf(hint + n, size - n, ")");
}

int sb_yaml_check_keys(const struct sb_yaml *y, struct fy_node *map, const char *where,
                       const char *const allowed[])
{
	struct fy_node_pair *p;
	void *it = NULL;

	while ((p = fy_node_mapping_iterate(map, &it))) {
		struct fy_node *k = fy_node_pair_key(p);
		const char *key = k ? fy_node_get_scalar0(k) : NULL;
		size_t i;

		if (!key)
			return sb_yaml_error(y, k, SB_ERR_PARSE, "keys in '%s' must be plain text",
			                     where);
		for (i = 0; allowed[i]; i++)
			if (!strcmp(allowed[i], key))
				break;
		if (!allowed[i]) {
			char hint[512];

			key_hint(key, allowed, hint, sizeof(hint));
			return sb_yaml_error(y, k, SB_ERR_PARSE, "unknown key '%s' in '%s'%s", key,
			                     where, hint);
		}
	}
	return 0;
}

struct fy_node *sb_yaml_get(struct fy_node *map, const char *key)
{
	if (!map || !fy_node_is_mapping(map))
		return NULL;
	return fy_node_mapping_lookup_by_string(map, key, FY_NT);
}

static const char *scalar(struct fy_node *n)
{
	if (!n || !fy_node_is_scalar(n) || fy_node_is_alias(n))
		return NULL;
	return fy_node_get_scalar0(n);
}

int sb_yaml_to_str(const struct sb_yaml *y, struct fy_node *n, const char *what, const char **out)
{
	const char *s = scalar(n);

	if (!s)
		return sb_yaml_error(y, n, SB_ERR_PARSE, "%s: expected a text value", what);
	*out = s;
	return 0;
}

/* Copy s without '_' separators into buf; false if it does not fit or is empty. */
static bool strip_separators(const char *s, char *buf, size_t size)
{
	size_t j = 0;

	for (; *s; s++) {
		if (*s == '_')
			continue;
		if (j + 1 >= size)
			return false;
		buf[j++] = *s;
	}
	buf[j] = '\0';
	return j > 0;
}

int sb_yaml_to_u64(const struct sb_yaml *y, struct fy_node *n, const char *what, uint64_t min,
                   uint64_t max, uint64_t *out)
{
	const char *s = scalar(n);
	char buf[80];
	char *end;
	unsigned long long v;

	if (!s || !strip_separators(s, buf, sizeof(buf)) || buf[0] == '-' || buf[0] == '+')
		goto bad;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || *end)
		goto bad;
	if (v < min || v > max)
		return sb_yaml_error(y, n, SB_ERR_PARSE,
		                     "%s: %llu is out of range [%" PRIu64 ", %" PRIu64 "]", what, v,
		                     min, max);
	*out = v;
	return 0;
bad:
	return sb_yaml_error(y, n, SB_ERR_PARSE, "%s: expected an unsigned integer, got '%s'", what,
	                     s ? s : "(not a scalar)");
}

int sb_yaml_to_i64(const struct sb_yaml *y, struct fy_node *n, const char *what, int64_t min,
                   int64_t max, int64_t *out)
{
	const char *s = scalar(n);
	char buf[80];
	char *end;
	long long v;

	if (!s || !strip_separators(s, buf, sizeof(buf)))
		goto bad;
	errno = 0;
	v = strtoll(buf, &end, 0);
	if (errno || *end)
		goto bad;
	if (v < min || v > max)
		return sb_yaml_error(y, n, SB_ERR_PARSE,
		                     "%s: %lld is out of range [%" PRId64 ", %" PRId64 "]", what, v,
		                     min, max);
	*out = v;
	return 0;
bad:
	return sb_yaml_error(y, n, SB_ERR_PARSE, "%s: expected an integer, got '%s'", what,
	                     s ? s : "(not a scalar)");
}

int sb_yaml_to_double(const struct sb_yaml *y, struct fy_node *n, const char *what, double min,
                      double max, double *out)
{
	const char *s = scalar(n);
	char buf[80];
	char *end;
	double v;

	if (!s || !strip_separators(s, buf, sizeof(buf)))
		goto bad;
	errno = 0;
	v = strtod(buf, &end);
	if (errno || *end || !isfinite(v))
		goto bad;
	if (v < min || v > max)
		return sb_yaml_error(y, n, SB_ERR_PARSE, "%s: %g is out of range [%g, %g]", what, v,
		                     min, max);
	*out = v;
	return 0;
bad:
	return sb_yaml_error(y, n, SB_ERR_PARSE, "%s: expected a number, got '%s'", what,
	                     s ? s : "(not a scalar)");
}

int sb_yaml_to_bool(const struct sb_yaml *y, struct fy_node *n, const char *what, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", NULL};
	static const char *const no[] = {"false", "no", "off", NULL};
	const char *s = scalar(n);

	for (size_t i = 0; s && yes[i]; i++) {
		if (!strcmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return sb_yaml_error(y, n, SB_ERR_PARSE, "%s: expected true or false, got '%s'", what,
	                     s ? s : "(not a scalar)");
}

int sb_yaml_to_enum(const struct sb_yaml *y, struct fy_node *n, const char *what,
                    const char *const names[], int *out)
{
	const char *s = scalar(n);
	char list[512];
	size_t off = 0;

	for (int i = 0; s && names[i]; i++) {
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	}
	list[0] = '\0';
	for (int i = 0; names[i] && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
		                        names[i]);
	return sb_yaml_error(y, n, SB_ERR_PARSE, "%s: unknown value '%s' (expected %s)", what,
	                     s ? s : "(not a scalar)", list);
}

static int lookup(const struct sb_yaml *y, struct fy_node *map, const char *key, bool required,
                  struct fy_node **n, char *what, size_t what_size)
{
	*n = sb_yaml_get(map, key);
	snprintf(what, what_size, "key '%s'", key);
	if (!*n) {
		if (required)
			return sb_yaml_error(y, map, SB_ERR_PARSE, "missing key '%s'", key);
		return 0;
	}
	return 1;
}

#define SB_YAML_GETTER(fn, conv, type, ...)                                                        \
	int fn                                                                                     \
	{                                                                                          \
		struct fy_node *n;                                                                 \
		char what[96];                                                                     \
		type tmp;                                                                          \
		int err = lookup(y, map, key, required, &n, what, sizeof(what));                   \
		if (err <= 0)                                                                      \
			return err;                                                                \
		err = conv(y, n, what, __VA_ARGS__, &tmp);                                         \
		if (err < 0)                                                                       \
			return err;                                                                \
		*out = tmp;                                                                        \
		return 1;                                                                          \
	}

SB_YAML_GETTER(sb_yaml_get_u64(const struct sb_yaml *y, struct fy_node *map, const char *key,
                               bool required, uint64_t min, uint64_t max, uint64_t *out),
               sb_yaml_to_u64, uint64_t, min, max)
SB_YAML_GETTER(sb_yaml_get_i64(const struct sb_yaml *y, struct fy_node *map, const char *key,
                               bool required, int64_t min, int64_t max, int64_t *out),
               sb_yaml_to_i64, int64_t, min, max)
SB_YAML_GETTER(sb_yaml_get_double(const struct sb_yaml *y, struct fy_node *map, const char *key,
                                  bool required, double min, double max, double *out),
               sb_yaml_to_double, double, min, max)
SB_YAML_GETTER(sb_yaml_get_enum(const struct sb_yaml *y, struct fy_node *map, const char *key,
                                bool required, const char *const names[], int *out),
               sb_yaml_to_enum, int, names)

int sb_yaml_get_u32(const struct sb_yaml *y, struct fy_node *map, const char *key, bool required,
                    uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;
	int err = sb_yaml_get_u64(y, map, key, required, min, max, &v);

	if (err == 1)
		*out = (uint32_t)v;
	return err;
}

int sb_yaml_get_bool(const struct sb_yaml *y, struct fy_node *map, const char *key, bool required,
                     bool *out)
{
	struct fy_node *n;
	char what[96];
	int err = lookup(y, map, key, required, &n, what, sizeof(what));

	if (err <= 0)
		return err;
	err = sb_yaml_to_bool(y, n, what, out);
	return err < 0 ? err : 1;
}

int sb_yaml_get_str(const struct sb_yaml *y, struct fy_node *map, const char *key, bool required,
                    const char **out)
{
	struct fy_node *n;
	char what[96];
	int err = lookup(y, map, key, required, &n, what, sizeof(what));

	if (err <= 0)
		return err;
	err = sb_yaml_to_str(y, n, what, out);
	return err < 0 ? err : 1;
}

struct fy_node *sb_yaml_seq_next(struct fy_node *seq, void **iter)
{
	return fy_node_sequence_iterate(seq, iter);
}

int sb_yaml_seq_len(struct fy_node *seq)
{
	return fy_node_sequence_item_count(seq);
}

bool sb_yaml_map_next(struct fy_node *map, void **iter, const char **key, struct fy_node **value,
                      struct fy_node **key_node)
{
	struct fy_node_pair *p = fy_node_mapping_iterate(map, iter);

	if (!p)
		return false;
	if (key_node)
		*key_node = fy_node_pair_key(p);
	*key = fy_node_get_scalar0(fy_node_pair_key(p));
	if (!*key)
		*key = "";
	*value = fy_node_pair_value(p);
	return true;
}

int sb_yaml_get_numbers(const struct sb_yaml *y, struct fy_node *map, const char *what,
                        const struct sb_yaml_num *table, size_t n, const char *const extra[],
                        void *base)
{
	const char *names[64];
	char where[96];
	size_t k = 0;
	int err;

	snprintf(where, sizeof(where), "section '%s'", what);
	if (!map)
		return sb_yaml_error(y, NULL, SB_ERR_PARSE, "missing %s", where);
	if ((err = sb_yaml_expect_map(y, map, where)) < 0)
		return err;
	for (size_t i = 0; i < n; i++) {
		if (k == SB_ARRAY_SIZE(names) - 1)
			return sb_error_set(SB_ERR_INVAL, "%s: too many keys", where);
		names[k++] = table[i].key;
	}
	for (size_t i = 0; extra && extra[i]; i++) {
		if (k == SB_ARRAY_SIZE(names) - 1)
			return sb_error_set(SB_ERR_INVAL, "%s: too many keys", where);
		names[k++] = extra[i];
	}
	names[k] = NULL;
	if ((err = sb_yaml_check_keys(y, map, what, names)) < 0)
		return err;
	for (size_t i = 0; i < n; i++) {
		const struct sb_yaml_num *t = &table[i];
		char *dst = (char *)base + t->offset;

		switch (t->kind) {
		case SB_YAML_DOUBLE:
			err =
			    sb_yaml_get_double(y, map, t->key, true, t->min, t->max, (double *)dst);
			break;
		case SB_YAML_U32:
			err = sb_yaml_get_u32(y, map, t->key, true, (uint32_t)t->min,
			                      (uint32_t)t->max, (uint32_t *)dst);
			break;
		default:
			err = sb_yaml_get_u64(y, map, t->key, true, (uint64_t)t->min,
			                      (uint64_t)t->max, (uint64_t *)dst);
			break;
		}
		if (err < 0)
			return err;
	}
	return 0;
}
