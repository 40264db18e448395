/* SPDX-License-Identifier: MIT */
/* Internals shared by the trace importers and writers. Not installed. */
#ifndef SB_TRACE_INTERNAL_H
#define SB_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackbench/trace.h"

/* A buffered line reader over a file descriptor (no per-line allocation). */
struct sb_linebuf {
	int fd;
	bool own_fd;
	bool eof;
	char *buf;
	size_t cap, start, end;
	uint64_t line; /* number of the line last returned (1-based) */
	char name[256];
};

/* Open path ("-": standard input). Returns 0, SB_ERR_NOT_FOUND, SB_ERR_PERM, SB_ERR_IO, NOMEM. */
int sb_linebuf_open(struct sb_linebuf *lb, const char *path);
/*
 * Next line without its end of line (\n or \r\n), NUL-terminated, writable until the next call.
 * Returns 1, 0 at the end of the file, or SB_ERR_IO / SB_ERR_NOMEM.
 */
int sb_linebuf_next(struct sb_linebuf *lb, char **line, size_t *len);
void sb_linebuf_close(struct sb_linebuf *lb);

/* "cannot parse 'NAME' line N: MESSAGE" as SB_ERR_PARSE. */
int sb_trace_parse_error(const char *name, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Parse an integer written as an integer or as a float with an integral value ("12", "-3",
 * "12.0", "1.2e3"), between s and end (spaces around it allowed). Returns 0, or -1 when it is
 * not a number, -2 when it has a fractional part, -3 when it is out of range.
 */
int sb_parse_int_field(const char *s, const char *end, int64_t *out);

/* Order of records at equal times: writes, then reads, then flushes. */
static inline int sb_trace_rank(uint8_t kind)
{
	return kind == SB_ACC_READ ? 1 : kind == SB_ACC_FLUSH ? 2 : 0;
}

/* Readers of the individual formats. */
int sb_trace_open_scalesim(struct sb_trace_reader **r, const char *path,
                           const struct sb_trace_options *opt);
int sb_trace_open_gpgpusim(struct sb_trace_reader **r, const char *path,
                           const struct sb_trace_options *opt);
int sb_trace_open_csv(struct sb_trace_reader **r, const char *path,
                      const struct sb_trace_options *opt);
int sb_trace_open_sbt(struct sb_trace_reader **r, const char *path,
                      const struct sb_trace_options *opt);

/* Writers. */
struct sb_trace_writer_ops {
	int (*write)(struct sb_trace_writer *w, const struct sb_trace_info *info,
	             const struct sb_trace_record *recs, size_t n);
	int (*close)(struct sb_trace_writer *w, bool finish);
};

struct sb_trace_writer {
	const struct sb_trace_writer_ops *ops;
};

int sb_trace_writer_open_csv(struct sb_trace_writer **w, const char *path,
                             const struct sb_trace_info *info);
int sb_trace_writer_open_sbt(struct sb_trace_writer **w, const char *path,
                             const struct sb_trace_info *info);

/* Default clock of cycle traces. */
#define SB_TRACE_DEFAULT_CLOCK_HZ 1e9

#endif /* SB_TRACE_INTERNAL_H */
