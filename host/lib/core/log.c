/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "stackbench/log.h"

static _Atomic int cur_level = SB_LOG_WARN;
static sb_log_fn sink_fn;
static void *sink_ctx;

static const char *const level_names[] = {
    [SB_LOG_NONE] = "none", [SB_LOG_ERROR] = "error", [SB_LOG_WARN] = "warn",
    [SB_LOG_INFO] = "info", [SB_LOG_DEBUG] = "debug", [SB_LOG_TRACE] = "trace",
};

void sb_log_set_level(enum sb_log_level level)
{
	if (level < SB_LOG_NONE)
		level = SB_LOG_NONE;
	if (level > SB_LOG_TRACE)
		level = SB_LOG_TRACE;
	atomic_store(&cur_level, (int)level);
}

enum sb_log_level sb_log_get_level(void)
{
	return (enum sb_log_level)atomic_load(&cur_level);
}

void sb_log_set_sink(sb_log_fn fn, void *ctx)
{
	sink_fn = fn;
	sink_ctx = ctx;
}

const char *sb_log_level_name(enum sb_log_level level)
{
	if (level < SB_LOG_NONE || level > SB_LOG_TRACE)
		return "?";
	return level_names[level];
}

void sb_vlog(enum sb_log_level level, const char *fmt, va_list ap)
{
	char line[2048];

	if (level <= SB_LOG_NONE || (int)level > atomic_load(&cur_level))
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	if (sink_fn) {
		sink_fn(sink_ctx, level, line);
		return;
	}
	/* One fprintf per line so that lines of concurrent threads do not interleave. */
	fprintf(stderr, "stackbench: %s: %s\n", level_names[level], line);
}

void sb_log(enum sb_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vlog(level, fmt, ap);
	va_end(ap);
}
