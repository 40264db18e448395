/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/log.h"

#define SB_ERROR_DETAIL_MAX 1024

static _Thread_local char detail[SB_ERROR_DETAIL_MAX];
static _Thread_local int detail_code;

static const char *const messages[] = {
    [0] = "success",
    [-SB_ERR_INVAL] = "invalid argument",
    [-SB_ERR_NOMEM] = "out of memory",
    [-SB_ERR_IO] = "input/output error",
    [-SB_ERR_NOT_SUPPORTED] = "not supported",
    [-SB_ERR_NOT_FOUND] = "not found",
    [-SB_ERR_URI] = "malformed device URI",
    [-SB_ERR_BAD_MAGIC] = "bad firmware magic",
    [-SB_ERR_VERSION] = "unsupported version",
    [-SB_ERR_LOOP] = "register block list loops",
    [-SB_ERR_ALIGN] = "misaligned register block",
    [-SB_ERR_RANGE] = "out of range",
    [-SB_ERR_TIMEOUT] = "timed out",
    [-SB_ERR_PARSE] = "malformed input",
    [-SB_ERR_DEVICE] = "device error",
    [-SB_ERR_THERMAL] = "thermal failure",
    [-SB_ERR_BUSY] = "busy",
    [-SB_ERR_STATE] = "invalid state",
    [-SB_ERR_DB] = "database error",
    [-SB_ERR_INTERRUPTED] = "interrupted",
    [-SB_ERR_PERM] = "permission denied",
    [-SB_ERR_EXISTS] = "already exists",
    [-SB_ERR_MISMATCH] = "mismatch",
};

const char *sb_strerror(int err)
{
	if (err > 0)
		err = 0;
	if (err < SB_ERR_MIN || !messages[-err])
		return "unknown error";
	return messages[-err];
}

int sb_error_set(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	detail_code = err;
	sb_log(SB_LOG_DEBUG, "error %d (%s): %s", err, sb_strerror(err), detail);
	return err;
}

int sb_error_wrap(int err, const char *fmt, ...)
{
	char prefix[SB_ERROR_DETAIL_MAX];
	char old[SB_ERROR_DETAIL_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, detail, sizeof(old));
	if (old[0])
		snprintf(detail, sizeof(detail), "%s: %s", prefix, old);
	else
		snprintf(detail, sizeof(detail), "%s: %s", prefix, sb_strerror(err));
	if (!detail_code)
		detail_code = err;
	return err;
}

const char *sb_error_detail(void)
{
	return detail;
}

int sb_error_code(void)
{
	return detail_code;
}

void sb_error_clear(void)
{
	detail[0] = '\0';
	detail_code = 0;
}

int sb_errno_code(int e)
{
	switch (e) {
	case ENOENT:
	case ENOTDIR:
		return SB_ERR_NOT_FOUND;
	case EACCES:
	case EPERM:
	case EROFS:
		return SB_ERR_PERM;
	case ENOMEM:
		return SB_ERR_NOMEM;
	default:
		return SB_ERR_IO;
	}
}
