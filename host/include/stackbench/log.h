/* SPDX-License-Identifier: MIT */
/*
 * stackbench logging: one facility with levels for all library code. Library code never
 * writes to stdout; log lines go to a sink (stderr by default, or a callback).
 */
#ifndef STACKBENCH_LOG_H
#define STACKBENCH_LOG_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sb_log_level {
	SB_LOG_NONE = 0,
	SB_LOG_ERROR = 1,
	SB_LOG_WARN = 2,
	SB_LOG_INFO = 3,
	SB_LOG_DEBUG = 4,
	SB_LOG_TRACE = 5,
};

typedef void (*sb_log_fn)(void *ctx, enum sb_log_level level, const char *msg);

/* Lines above this level are dropped. Default SB_LOG_WARN. */
void sb_log_set_level(enum sb_log_level level);
enum sb_log_level sb_log_get_level(void);

/* Send log lines to fn (NULL: back to stderr). */
void sb_log_set_sink(sb_log_fn fn, void *ctx);

/* Name of a level ("error", "warn", ...). */
const char *sb_log_level_name(enum sb_log_level level);

void sb_log(enum sb_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vlog(enum sb_log_level level, const char *fmt, va_list ap);

#define sb_err(...) sb_log(SB_LOG_ERROR, __VA_ARGS__)
#define sb_warn(...) sb_log(SB_LOG_WARN, __VA_ARGS__)
#define sb_info(...) sb_log(SB_LOG_INFO, __VA_ARGS__)
#define sb_dbg(...) sb_log(SB_LOG_DEBUG, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_LOG_H */
