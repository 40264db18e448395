/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/log.h"

Test(error, every_code_has_its_own_text)
{
	for (int a = SB_ERR_MIN; a <= 0; a++) {
		cr_assert_str_neq(sb_strerror(a), "unknown error", "code %d has no text", a);
		for (int b = SB_ERR_MIN; b < a; b++)
			cr_assert_str_neq(sb_strerror(a), sb_strerror(b), "codes %d and %d", a, b);
	}
	cr_assert_str_eq(sb_strerror(SB_ERR_MIN - 1), "unknown error");
	cr_assert_str_eq(sb_strerror(SB_ERR_NOT_SUPPORTED), "not supported");
	cr_assert_str_eq(sb_strerror(SB_ERR_LOOP), "register block list loops");
	cr_assert_str_eq(sb_strerror(5), "success");
}

Test(error, detail_is_set_wrapped_and_cleared)
{
	cr_assert_eq(sb_error_set(SB_ERR_PARSE, "cannot parse '%s' line %d", "x.yaml", 12),
	             SB_ERR_PARSE);
	cr_assert_str_eq(sb_error_detail(), "cannot parse 'x.yaml' line 12");
	cr_assert_eq(sb_error_code(), SB_ERR_PARSE);
	cr_assert_eq(sb_error_wrap(SB_ERR_PARSE, "loading campaign"), SB_ERR_PARSE);
	cr_assert_str_eq(sb_error_detail(), "loading campaign: cannot parse 'x.yaml' line 12");
	sb_error_clear();
	cr_assert_str_eq(sb_error_detail(), "");
	cr_assert_eq(sb_error_wrap(SB_ERR_IO, "reading"), SB_ERR_IO);
	cr_assert_str_eq(sb_error_detail(), "reading: input/output error");
}

static char last[256];
static enum sb_log_level last_level;
static int lines;

static void sink(void *ctx, enum sb_log_level level, const char *msg)
{
	(void)ctx;
	strncpy(last, msg, sizeof(last) - 1);
	last_level = level;
	lines++;
}

Test(log, levels_filter_lines)
{
	sb_log_set_sink(sink, NULL);
	sb_log_set_level(SB_LOG_WARN);
	lines = 0;
	sb_info("hidden %d", 1);
	cr_assert_eq(lines, 0);
	sb_warn("shown %d", 2);
	cr_assert_eq(lines, 1);
	cr_assert_str_eq(last, "shown 2");
	cr_assert_eq(last_level, SB_LOG_WARN);
	sb_log_set_level(SB_LOG_DEBUG);
	sb_dbg("debug");
	cr_assert_eq(lines, 2);
	sb_log_set_level(SB_LOG_NONE);
	sb_err("silenced");
	cr_assert_eq(lines, 2);
	cr_assert_str_eq(sb_log_level_name(SB_LOG_TRACE), "trace");
	sb_log_set_sink(NULL, NULL);
	sb_log_set_level(SB_LOG_WARN);
}
