/* SPDX-License-Identifier: MIT */
/*
 * stackbench error codes.
 *
 * Every library function returns int: >= 0 is success (or a count), a negative SB_ERR_* is a
 * failure. The code says what kind of failure; the detail ("cannot parse 'x.yaml' line 12:
 * ...") is kept per thread and read with sb_error_detail().
 */
#ifndef STACKBENCH_ERROR_H
#define STACKBENCH_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum sb_error {
	SB_OK = 0,
	SB_ERR_INVAL = -1,         /* invalid argument */
	SB_ERR_NOMEM = -2,         /* out of memory */
	SB_ERR_IO = -3,            /* input/output error (file, device node, sysfs) */
	SB_ERR_NOT_SUPPORTED = -4, /* operation not supported by this transport or build */
	SB_ERR_NOT_FOUND = -5,     /* no such device, file, block or entry */
	SB_ERR_URI = -6,           /* malformed device URI or connection string */
	SB_ERR_BAD_MAGIC = -7,     /* firmware-ID block missing or magic wrong */
	SB_ERR_VERSION = -8,       /* unsupported (major) version */
	SB_ERR_LOOP = -9,          /* register block list loops */
	SB_ERR_ALIGN = -10,        /* misaligned register block pointer */
	SB_ERR_RANGE = -11,        /* offset or value out of range */
	SB_ERR_TIMEOUT = -12,      /* timed out waiting for the device */
	SB_ERR_PARSE = -13,        /* malformed input (config file, trace, frame, record) */
	SB_ERR_DEVICE = -14,       /* the device reported an error */
	SB_ERR_THERMAL = -15,      /* the memory device is in thermal failure */
	SB_ERR_BUSY = -16,         /* resource busy */
	SB_ERR_STATE = -17,        /* operation not valid in the current state */
	SB_ERR_DB = -18,           /* results database error */
	SB_ERR_INTERRUPTED = -19,  /* interrupted by a signal or a stop request */
	SB_ERR_PERM = -20,         /* permission denied */
	SB_ERR_EXISTS = -21,       /* already exists */
	SB_ERR_MISMATCH = -22,     /* data or configuration does not match what was expected */
};

#define SB_ERR_MIN SB_ERR_MISMATCH

/* Short fixed description of an error code; never NULL ("unknown error" for unknown codes). */
const char *sb_strerror(int err);

/*
 * Record a detailed message for the calling thread and return err (so callers can write
 * "return sb_error_set(SB_ERR_PARSE, "...", ...)"). The message is also logged at debug level.
 */
int sb_error_set(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Prefix the calling thread's detail with more context ("opening 'sim:': " + detail) and return
 * err unchanged.
 */
int sb_error_wrap(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last detail recorded by this thread, or "" if none. Valid until the next sb_error_*(). */
const char *sb_error_detail(void);

/* The stackbench code for a system call's errno: missing -> SB_ERR_NOT_FOUND, refused ->
 * SB_ERR_PERM, out of memory -> SB_ERR_NOMEM, anything else -> SB_ERR_IO. */
int sb_errno_code(int e);

/* The last code recorded by this thread with sb_error_set(), or 0. */
int sb_error_code(void);

/* Forget the detail of this thread. */
void sb_error_clear(void);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_ERROR_H */
