/* SPDX-License-Identifier: MIT */
/* Internals shared by the trace importers and writers. Not installed. */
#ifndef SB_TRACE_INTERNAL_H
#define SB_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stackbench/trace.h"

/* Compression of an input, told by its first bytes. */
enum sb_codec { SB_CODEC_NONE, SB_CODEC_GZIP, SB_CODEC_ZSTD, SB_CODEC_XZ };

/*
 * Bytes of a file, standard input or memory, decompressed on the way when they are gzip, zstd or
 * xz (instream.c). Corrupt or truncated compressed data is SB_ERR_PARSE naming the input.
 */
/* Memory the xz decoder may use (its dictionary and state): a file declaring more is refused
 * before anything is allocated. xz -9 needs 65 MiB; xz's own default limit is a share of RAM. */
#define SB_XZ_MEMLIMIT (256ull << 20)

struct sb_instream {
	int fd;
	bool own_fd;
	const uint8_t *mem; /* a memory source (mem_len bytes), or NULL */
	size_t mem_len;
	enum sb_codec codec;
	void *z;     /* the decoder */
	uint8_t *in; /* input read ahead (not for memory sources) */
	size_t in_cap, in_len, in_pos;
	bool in_eof, member_open, finished;
	char name[256];
};

/* Open path ("-": standard input). 0, SB_ERR_NOT_FOUND, SB_ERR_PERM, SB_ERR_IO, SB_ERR_INVAL
 * (a folder), SB_ERR_NOMEM. */
int sb_instream_open(struct sb_instream *s, const char *path);
/* Read the open descriptor fd (taken: closed with the stream); name is for messages. */
int sb_instream_open_fd(struct sb_instream *s, int fd, const char *name);
/* Read from memory (kept by the caller); name is for messages. */
int sb_instream_open_mem(struct sb_instream *s, const char *name, const void *data, size_t len);
/* Up to n bytes: the count, 0 at the end, or an error. */
int sb_instream_read(struct sb_instream *s, void *buf, size_t n);
/* Exactly n bytes unless the input ends first (*got says how many). 0 or an error. */
int sb_instream_read_full(struct sb_instream *s, void *buf, size_t n, size_t *got);
/* Whether the raw bytes can be read at any offset (an uncompressed regular file or memory). */
bool sb_instream_pread_ok(const struct sb_instream *s);
/* Raw bytes at offset, without moving the stream: the count (0 past the end) or an error. */
int sb_instream_pread(const struct sb_instream *s, void *buf, size_t n, uint64_t offset);
void sb_instream_close(struct sb_instream *s);
const char *sb_instream_codec_name(enum sb_codec c);

/* The longest line the text importers take (bytes, end of line excluded). */
#define SB_TRACE_LINE_MAX (16u << 20)

/* A buffered line reader over an input stream (no per-line allocation). */
struct sb_linebuf {
	struct sb_instream in;
	bool eof;
	char *buf;
	size_t cap, start, end;
	uint64_t base; /* input offset of buf[0] */
	bool nul;      /* a NUL byte was read, at input offset nul_at */
	uint64_t nul_at;
	uint64_t line; /* number of the line last returned (1-based) */
	char name[256];
};

/* Open path ("-": standard input), compressed or not. Returns 0, SB_ERR_NOT_FOUND, SB_ERR_PERM,
 * SB_ERR_IO, SB_ERR_INVAL, SB_ERR_NOMEM. */
int sb_linebuf_open(struct sb_linebuf *lb, const char *path);
/* The same over memory (fuzzing, tests). */
int sb_linebuf_open_mem(struct sb_linebuf *lb, const char *name, const void *data, size_t len);
/*
 * Next line without its end of line (\n or \r\n), NUL-terminated, writable until the next call.
 * Returns 1, 0 at the end of the file, or SB_ERR_IO / SB_ERR_NOMEM / SB_ERR_PARSE (a line longer
 * than SB_TRACE_LINE_MAX, a NUL byte: not text; corrupt compressed data).
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
int sb_trace_open_sbt(struct sb_trace_reader **r, const char *path,
                      const struct sb_trace_options *opt);
int sb_trace_open_sbt_mem(struct sb_trace_reader **r, const char *name, const void *data,
                          size_t len, const struct sb_trace_options *opt);

/* Open flags of the line-based importers (csv, gpgpusim). */
#define SB_TRACE_OPEN_UNCHECKED 1u /* records may go back in time: a sorting pass follows */

/* csv, gpgpusim: a file (data NULL; "-" is standard input) or bytes in memory (data, len; name
 * for messages). Without SB_TRACE_OPEN_UNCHECKED a record that goes back is a parse error. */
int sb_trace_open_csv(struct sb_trace_reader **r, const char *name, const void *data, size_t len,
                      const struct sb_trace_options *opt, unsigned flags);
int sb_trace_open_gpgpusim(struct sb_trace_reader **r, const char *name, const void *data,
                           size_t len, const struct sb_trace_options *opt, unsigned flags);

/* Writers. */
struct sb_trace_writer_ops {
	int (*write)(struct sb_trace_writer *w, const struct sb_trace_info *info,
	             const struct sb_trace_record *recs, size_t n);
	int (*close)(struct sb_trace_writer *w, bool finish);
};

struct sb_trace_writer {
	const struct sb_trace_writer_ops *ops;
	char path[256];                           /* for messages */
	int64_t last_time[SB_TRACE_MAX_SUBPARTS]; /* of each subpartition's last record */
	uint8_t seen[SB_TRACE_MAX_SUBPARTS];
};

int sb_trace_writer_open_csv(struct sb_trace_writer **w, const char *path,
                             const struct sb_trace_info *info);
int sb_trace_writer_open_sbt(struct sb_trace_writer **w, const char *path,
                             const struct sb_trace_info *info);
/* An sbt writer to an open stream (flushed at close, never closed: temporary files). */
int sb_trace_writer_open_sbt_stream(struct sb_trace_writer **w, FILE *f, const char *name,
                                    const struct sb_trace_info *info);
/* An sbt reader of an open file descriptor (read from its start; closed by the reader). */
int sb_trace_open_sbt_fd(struct sb_trace_reader **r, int fd, const char *name);

/*
 * Zeroed, cache-line aligned memory of a large hash table (tables.c): from 2 MB on, mapped on its
 * own and asked for transparent huge pages. Free with the same size.
 */
void *sb_table_alloc(size_t bytes);
void sb_table_free(void *p, size_t bytes);

/*
 * The hot loops of the engines and the sbt decoder are compiled for newer x86-64 levels too
 * (x86-64-v3: AVX2, BMI2, POPCNT; v2: POPCNT) and the best one the processor has is chosen when
 * the library is loaded (GCC's target_clones, an ifunc): the build stays portable, a recent
 * processor runs 16-lane counters in one instruction and counts bits in one. gcc only; not in
 * sanitizer builds.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__)
#define SB_HOT_CLONES __attribute__((target_clones("arch=x86-64-v3", "arch=x86-64-v2", "default")))
#else
#define SB_HOT_CLONES
#endif

/* Default clock of cycle traces. */
#define SB_TRACE_DEFAULT_CLOCK_HZ 1e9

#endif /* SB_TRACE_INTERNAL_H */
