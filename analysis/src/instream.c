/* SPDX-License-Identifier: MIT */
/*
 * Byte input of the trace readers: a file, standard input or memory, read through the library
 * made for its compression when it starts with the magic bytes of gzip (zlib), zstd (libzstd,
 * streaming) or xz (liblzma). The content decides, not the name, so a compressed stream on
 * standard input or a misnamed file reads the same. Concatenated members/frames/streams are read
 * one after the other, as the command-line tools do; a stream that ends inside a member is
 * truncated, and an error, as is corrupt data.
 */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "stackbench/error.h"
#include "stackbench/util.h"
#include "trace_internal.h"

#define IN_BUF (64u << 10)

static const char *const codec_names[] = {"plain", "gzip", "zstd", "xz"};

const char *sb_instream_codec_name(enum sb_codec c)
{
	return (unsigned)c < SB_ARRAY_SIZE(codec_names) ? codec_names[c] : "unknown";
}

static int corrupt(struct sb_instream *s, const char *msg)
{
	return sb_error_set(SB_ERR_PARSE, "cannot decompress '%s' (%s): %s", s->name,
	                    codec_names[s->codec], msg);
}

static int truncated(struct sb_instream *s)
{
	return sb_error_set(SB_ERR_PARSE, "'%s' is truncated: it ends inside a %s stream", s->name,
	                    codec_names[s->codec]);
}

/* More compressed (or plain) input into in[]: 0, or an error; sets in_eof at the end. */
static int fill_in(struct sb_instream *s)
{
	ssize_t n;

	if (s->mem) {
		s->in_eof = true;
		return 0;
	}
	if (s->in_pos > 0 && s->in_pos < s->in_len)
		memmove(s->in, s->in + s->in_pos, s->in_len - s->in_pos);
	s->in_len -= s->in_pos;
	s->in_pos = 0;
	do {
		n = read(s->fd, s->in + s->in_len, s->in_cap - s->in_len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return sb_error_set(errno == EISDIR ? SB_ERR_INVAL : SB_ERR_IO,
		                    "cannot read '%s': %s", s->name, strerror(errno));
	if (n == 0)
		s->in_eof = true;
	s->in_len += (size_t)n;
	return 0;
}

static int codec_init(struct sb_instream *s)
{
	switch (s->codec) {
	case SB_CODEC_GZIP: {
		z_stream *z = calloc(1, sizeof(*z));

		if (!z || inflateInit2(z, 15 + 32) != Z_OK) {
			free(z);
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		}
		s->z = z;
		return 0;
	}
	case SB_CODEC_ZSTD:
		if (!(s->z = ZSTD_createDStream()))
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		ZSTD_initDStream(s->z);
		return 0;
	case SB_CODEC_XZ: {
		lzma_stream *x = calloc(1, sizeof(*x));

		/* A bounded decoder: the header of a few bytes declares the dictionary. */
		if (!x || lzma_stream_decoder(x, SB_XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK) {
			free(x);
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		}
		s->z = x;
		return 0;
	}
	default:
		return 0;
	}
}

/*
 * One step of the decoder over in[in_pos..in_len) into out[0..n): the bytes produced; sets
 * member_open while a member/frame has begun and not ended, done when the decoder has finished.
 */
static int codec_step(struct sb_instream *s, const uint8_t *in, size_t in_len, uint8_t *out,
                      size_t n, size_t *produced)
{
	if (s->codec == SB_CODEC_GZIP) {
		z_stream *z = s->z;
		int rc;

		z->next_in = (Bytef *)(uintptr_t)(in + s->in_pos);
		z->avail_in = (uInt)(in_len - s->in_pos);
		z->next_out = out;
		z->avail_out = (uInt)n;
		rc = inflate(z, Z_NO_FLUSH);
		s->in_pos = in_len - z->avail_in;
		*produced = n - z->avail_out;
		if (rc == Z_STREAM_END) {
			s->member_open = false; /* another member may follow */
			inflateReset(z);
		} else if (rc == Z_OK) {
			s->member_open = true;
		} else if (rc != Z_BUF_ERROR) {
			return corrupt(s, z->msg ? z->msg : "bad data");
		}
		return 0;
	}
	if (s->codec == SB_CODEC_ZSTD) {
		ZSTD_inBuffer ib = {in, in_len, s->in_pos};
		ZSTD_outBuffer ob = {out, n, 0};
		size_t rc = ZSTD_decompressStream(s->z, &ob, &ib);

		if (ZSTD_isError(rc))
			return corrupt(s, ZSTD_getErrorName(rc));
		/* 0: a frame ended (another may follow); a call without progress tells nothing */
		if (ib.pos != s->in_pos || ob.pos)
			s->member_open = rc != 0;
		s->in_pos = ib.pos;
		*produced = ob.pos;
		return 0;
	}
	lzma_stream *x = s->z;
	lzma_ret rc;

	x->next_in = in + s->in_pos;
	x->avail_in = in_len - s->in_pos;
	x->next_out = out;
	x->avail_out = n;
	rc = lzma_code(x, s->in_eof && s->in_pos == in_len ? LZMA_FINISH : LZMA_RUN);
	s->in_pos = in_len - x->avail_in;
	*produced = n - x->avail_out;
	s->member_open = true;
	if (rc == LZMA_STREAM_END) {
		s->member_open = false;
		s->finished = true;
	} else if (rc == LZMA_BUF_ERROR) {
		return s->in_eof ? truncated(s) : 0;
	} else if (rc != LZMA_OK) {
		if (rc == LZMA_MEMLIMIT_ERROR)
			return sb_error_set(
			    SB_ERR_PARSE,
			    "cannot decompress '%s' (xz): it needs %llu MiB to decode (its "
			    "dictionary), over the memory limit of %llu MiB (xz -9 needs "
			    "65 MiB)",
			    s->name, (unsigned long long)(lzma_memusage(x) >> 20),
			    (unsigned long long)(SB_XZ_MEMLIMIT >> 20));
		return corrupt(s, rc == LZMA_MEM_ERROR      ? "out of memory"
		                  : rc == LZMA_FORMAT_ERROR ? "not an xz stream"
		                  : rc == LZMA_DATA_ERROR   ? "corrupt data"
		                                            : "bad data");
	}
	return 0;
}

/* Decompress into out[0..n): bytes produced (> 0), 0 at the end, or an error. */
static int codec_read(struct sb_instream *s, uint8_t *out, size_t n)
{
	int err;

	for (;;) {
		const uint8_t *in = s->mem ? s->mem : s->in;
		size_t in_len = s->mem ? s->mem_len : s->in_len, produced = 0;

		if (s->finished)
			return 0;
		if ((err = codec_step(s, in, in_len, out, n, &produced)) < 0)
			return err;
		if (produced)
			return (int)produced;
		if (s->finished)
			return 0;
		if (s->in_pos == in_len && s->in_eof) {
			if (s->member_open && s->codec != SB_CODEC_XZ)
				return truncated(s);
			if (s->codec != SB_CODEC_XZ)
				s->finished = true;
			if (s->finished)
				return 0;
			continue; /* xz: LZMA_FINISH until it ends or reports truncation */
		}
		if (s->in_pos == in_len && (err = fill_in(s)) < 0)
			return err;
	}
}

int sb_instream_read(struct sb_instream *s, void *buf, size_t n)
{
	int err;

	if (n > INT32_MAX)
		n = INT32_MAX;
	if (s->codec != SB_CODEC_NONE)
		return codec_read(s, buf, n);
	if (s->mem) {
		size_t k = s->mem_len - s->in_pos < n ? s->mem_len - s->in_pos : n;

		memcpy(buf, s->mem + s->in_pos, k);
		s->in_pos += k;
		return (int)k;
	}
	if (s->in_pos == s->in_len) {
		ssize_t r;

		if (s->in_eof)
			return 0;
		/* large reads go straight to the caller's buffer */
		if (n >= s->in_cap) {
			do {
				r = read(s->fd, buf, n);
			} while (r < 0 && errno == EINTR);
			if (r < 0)
				return sb_error_set(errno == EISDIR ? SB_ERR_INVAL : SB_ERR_IO,
				                    "cannot read '%s': %s", s->name,
				                    strerror(errno));
			if (r == 0)
				s->in_eof = true;
			return (int)r;
		}
		s->in_pos = s->in_len = 0;
		if ((err = fill_in(s)) < 0)
			return err;
		if (s->in_len == 0)
			return 0;
	}
	size_t k = s->in_len - s->in_pos < n ? s->in_len - s->in_pos : n;

	memcpy(buf, s->in + s->in_pos, k);
	s->in_pos += k;
	return (int)k;
}

int sb_instream_read_full(struct sb_instream *s, void *buf, size_t n, size_t *got)
{
	uint8_t *p = buf;
	int k;

	*got = 0;
	while (*got < n) {
		if ((k = sb_instream_read(s, p + *got, n - *got)) < 0)
			return k;
		if (k == 0)
			break;
		*got += (size_t)k;
	}
	return 0;
}

/* The codec from the first bytes (read into in[] and kept). */
static int sniff(struct sb_instream *s)
{
	static const uint8_t gz[] = {0x1f, 0x8b}, zst[] = {0x28, 0xb5, 0x2f, 0xfd},
	                     xz[] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
	const uint8_t *p;
	size_t len;
	int err;

	if (!s->mem) {
		while (s->in_len < sizeof(xz) && !s->in_eof)
			if ((err = fill_in(s)) < 0)
				return err;
	}
	p = s->mem ? s->mem : s->in;
	len = s->mem ? s->mem_len : s->in_len;
	if (len >= sizeof(gz) && !memcmp(p, gz, sizeof(gz)))
		s->codec = SB_CODEC_GZIP;
	else if (len >= sizeof(zst) && !memcmp(p, zst, sizeof(zst)))
		s->codec = SB_CODEC_ZSTD;
	else if (len >= sizeof(xz) && !memcmp(p, xz, sizeof(xz)))
		s->codec = SB_CODEC_XZ;
	else
		s->codec = SB_CODEC_NONE;
	s->in_eof = s->mem ? true : s->in_eof;
	return codec_init(s);
}

/* The buffer and the codec of a stream whose fd is open. */
static int stream_start(struct sb_instream *s, const char *path)
{
	struct stat st;
	int err;

	if (fstat(s->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		sb_instream_close(s);
		return sb_error_set(SB_ERR_INVAL, "'%s' is a folder, not a trace file", path);
	}
	s->in_cap = IN_BUF;
	if (!(s->in = malloc(s->in_cap))) {
		sb_instream_close(s);
		return sb_error_set(SB_ERR_NOMEM, "out of memory reading '%s'", path);
	}
	if ((err = sniff(s)) < 0) {
		sb_instream_close(s);
		return err;
	}
	return 0;
}

int sb_instream_open(struct sb_instream *s, const char *path)
{
	int e;

	memset(s, 0, sizeof(*s));
	sb_strlcpy(s->name, path, sizeof(s->name));
	if (!strcmp(path, "-"))
		return s->fd = 0, stream_start(s, path);
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		e = errno;
		return sb_error_set(e == ENOENT || e == ENOTDIR ? SB_ERR_NOT_FOUND
		                    : e == EACCES               ? SB_ERR_PERM
		                                                : SB_ERR_IO,
		                    "cannot open '%s': %s", path, strerror(e));
	}
	s->own_fd = true;
	return stream_start(s, path);
}

int sb_instream_open_fd(struct sb_instream *s, int fd, const char *name)
{
	memset(s, 0, sizeof(*s));
	sb_strlcpy(s->name, name, sizeof(s->name));
	s->fd = fd;
	s->own_fd = true;
	return stream_start(s, name);
}

int sb_instream_open_mem(struct sb_instream *s, const char *name, const void *data, size_t len)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	sb_strlcpy(s->name, name, sizeof(s->name));
	s->mem = data;
	s->mem_len = len;
	if ((err = sniff(s)) < 0)
		sb_instream_close(s);
	return err;
}

bool sb_instream_pread_ok(const struct sb_instream *s)
{
	return s->codec == SB_CODEC_NONE &&
	       (s->mem || (s->fd > 0 && lseek(s->fd, 0, SEEK_CUR) >= 0));
}

int sb_instream_pread(const struct sb_instream *s, void *buf, size_t n, uint64_t offset)
{
	ssize_t r;

	if (s->mem) {
		if (offset >= s->mem_len)
			return 0;
		if (n > s->mem_len - offset)
			n = s->mem_len - (size_t)offset;
		memcpy(buf, s->mem + offset, n);
		return (int)n;
	}
	if (n > INT32_MAX)
		n = INT32_MAX;
	do {
		r = pread(s->fd, buf, n, (off_t)offset);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? sb_error_set(SB_ERR_IO, "cannot read '%s': %s", s->name, strerror(errno))
	             : (int)r;
}

void sb_instream_close(struct sb_instream *s)
{
	switch (s->codec) {
	case SB_CODEC_GZIP:
		if (s->z)
			inflateEnd(s->z);
		free(s->z);
		break;
	case SB_CODEC_ZSTD:
		ZSTD_freeDStream(s->z);
		break;
	case SB_CODEC_XZ:
		if (s->z)
			lzma_end(s->z);
		free(s->z);
		break;
	default:
		break;
	}
	s->z = NULL;
	if (s->own_fd && s->fd >= 0)
		close(s->fd);
	s->own_fd = false;
	s->fd = -1;
	free(s->in);
	s->in = NULL;
}
