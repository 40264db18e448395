/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/yaml.h"

static const char *text = "name: quick\n"      /* 1 */
                          "size: 128\n"        /* 2 */
                          "ratio: 0.5\n"       /* 3 */
                          "on: yes\n"          /* 4 */
                          "type: rx\n"         /* 5 */
                          "point:\n"           /* 6 */
                          "  sise: 3\n"        /* 7 */
                          "hex: 0x5342_0001\n" /* 8 */
                          "list: [1, 2, 3]\n"  /* 9 */
                          "neg: -4\n";         /* 10 */

static struct sb_yaml y;

static void load(void)
{
	cr_assert_eq(sb_yaml_load_string(&y, "t.yaml", text, strlen(text)), 0, "%s",
	             sb_error_detail());
}

static void unload(void)
{
	sb_yaml_release(&y);
}

TestSuite(yaml, .init = load, .fini = unload);

Test(yaml, typed_getters)
{
	struct fy_node *root = sb_yaml_root(&y);
	static const char *const types[] = {"ro", "wo", "rw", NULL};
	uint64_t u = 0;
	int64_t i = 0;
	double d = 0;
	bool b = false;
	const char *s;
	int e;

	cr_assert_eq(sb_yaml_get_u64(&y, root, "size", true, 16, 128, &u), 1);
	cr_assert_eq(u, 128);
	cr_assert_eq(sb_yaml_get_u64(&y, root, "hex", true, 0, UINT64_MAX, &u), 1);
	cr_assert_eq(u, 0x53420001u);
	cr_assert_eq(sb_yaml_get_i64(&y, root, "neg", true, -10, 10, &i), 1);
	cr_assert_eq(i, -4);
	cr_assert_eq(sb_yaml_get_double(&y, root, "ratio", true, 0, 1, &d), 1);
	cr_assert_float_eq(d, 0.5, 1e-12);
	cr_assert_eq(sb_yaml_get_bool(&y, root, "on", true, &b), 1);
	cr_assert(b);
	cr_assert_eq(sb_yaml_get_str(&y, root, "name", true, &s), 1);
	cr_assert_str_eq(s, "quick");
	cr_assert_eq(sb_yaml_get_u64(&y, root, "absent", false, 0, 1, &u), 0);
	cr_assert_eq(u, 0x53420001u, "untouched when absent");
	cr_assert_eq(sb_yaml_get_enum(&y, root, "type", true, types, &e), SB_ERR_PARSE);
	cr_assert_str_eq(
	    sb_error_detail(),
	    "cannot parse 't.yaml' line 5: key 'type': unknown value 'rx' (expected ro, wo, rw)");
	cr_assert_eq(sb_yaml_seq_len(sb_yaml_get(root, "list")), 3);
}

Test(yaml, errors_name_file_line_and_key)
{
	struct fy_node *root = sb_yaml_root(&y);
	static const char *const allowed[] = {"sweep", NULL};
	uint64_t u;

	cr_assert_eq(sb_yaml_get_u64(&y, root, "size", true, 16, 64, &u), SB_ERR_PARSE);
	cr_assert_str_eq(sb_error_detail(),
	                 "cannot parse 't.yaml' line 2: key 'size': 128 is out of range [16, 64]");
	cr_assert_eq(sb_yaml_get_u64(&y, root, "neg", true, 0, 10, &u), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "line 10"), "%s", sb_error_detail());
	cr_assert_eq(sb_yaml_get_u64(&y, root, "missing", true, 0, 10, &u), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "missing key 'missing'"), "%s", sb_error_detail());
	cr_assert_eq(sb_yaml_check_keys(&y, sb_yaml_get(root, "point"), "point", allowed),
	             SB_ERR_PARSE);
	cr_assert_str_eq(sb_error_detail(),
	                 "cannot parse 't.yaml' line 7: unknown key 'sise' in 'point' (known: "
	                 "sweep)");
	cr_assert_eq(sb_yaml_expect_seq(&y, sb_yaml_get(root, "point"), "key 'point'"),
	             SB_ERR_PARSE);
}

Test(yaml, syntax_errors_report_line_and_column)
{
	struct sb_yaml bad;
	const char *t = "a: 1\nb: [1, 2\nc: 3\n";

	cr_assert_eq(sb_yaml_load_string(&bad, "bad.yaml", t, strlen(t)), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "cannot parse 'bad.yaml' line"), "%s",
	          sb_error_detail());
}

Test(yaml, duplicate_keys_are_errors)
{
	struct sb_yaml bad;
	const char *t = "a: 1\na: 2\n";

	cr_assert_eq(sb_yaml_load_string(&bad, "dup.yaml", t, strlen(t)), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "'dup.yaml' line 2 column 1: duplicate key"), "%s",
	          sb_error_detail());
}

Test(yaml, bounded_input)
{
	struct sb_yaml bad, ok;
	const char *alias = "a: &x [1, 2]\nb: *x\n";
	char path[] = "/tmp/sb-yaml-XXXXXX";
	size_t big = SB_YAML_MAX_BYTES + 1;
	char *huge = malloc(big);
	int fd = mkstemp(path);

	/* aliases: refused, unless the caller allows them (the register map) */
	cr_assert_eq(sb_yaml_load_string(&bad, "a.yaml", alias, strlen(alias)), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "'a.yaml' line 2: aliases ('*x') are not allowed"),
	          "%s", sb_error_detail());
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, alias, strlen(alias)), (ssize_t)strlen(alias));
	close(fd);
	cr_assert_eq(sb_yaml_load_file_flags(&ok, path, SB_YAML_ALLOW_ALIASES), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sb_yaml_seq_len(sb_yaml_get(sb_yaml_root(&ok), "b")), 2);
	sb_yaml_release(&ok);
	/* size */
	cr_assert_not_null(huge);
	memset(huge, '#', big);
	cr_assert_eq(sb_yaml_load_string(&bad, "big.yaml", huge, big), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "bytes (at most 4194304)"), "%s", sb_error_detail());
	free(huge);
	/* a sparse file one byte over the limit; /dev/zero is not even read */
	fd = open(path, O_WRONLY | O_TRUNC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 4194305), 0);
	close(fd);
	cr_assert_eq(sb_yaml_load_file(&bad, path), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "(at most 4194304)"), "%s", sb_error_detail());
	cr_assert_eq(sb_yaml_load_file(&bad, "/dev/zero"), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "not a regular file (a character device)"), "%s",
	          sb_error_detail());
	unlink(path);
}

Test(yaml, missing_file_is_not_found)
{
	struct sb_yaml none;

	cr_assert_eq(sb_yaml_load_file(&none, "/nonexistent/x.yaml"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "/nonexistent/x.yaml"));
}
