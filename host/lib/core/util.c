/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/util.h"

int sb_read_file(const char *path, char **data, size_t *len)
{
	return sb_read_file_max(path, SIZE_MAX / 2, data, len);
}

int sb_read_file_max(const char *path, size_t max, char **data, size_t *len)
{
	FILE *f;
	char *buf = NULL;
	size_t size = 0, used = 0, n;
	struct stat st;
	int err, fd;

	/* Regular files only: a FIFO would hang the reader, a device be read without end. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return sb_error_set(sb_errno_code(err), "cannot open '%s': %s", path,
		                    strerror(err));
	}
	if (fstat(fd, &st) < 0) {
		err = errno;
		close(fd);
		return sb_error_set(SB_ERR_IO, "cannot read '%s': %s", path, strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return sb_error_set(SB_ERR_INVAL, "cannot read '%s': it is not a regular file%s",
		                    path,
		                    S_ISFIFO(st.st_mode)  ? " (a FIFO)"
		                    : S_ISCHR(st.st_mode) ? " (a character device)"
		                    : S_ISBLK(st.st_mode) ? " (a block device)"
		                    : S_ISDIR(st.st_mode) ? " (a folder)"
		                                          : "");
	}
	if (fcntl(fd, F_SETFL, 0) < 0 || !(f = fdopen(fd, "rb"))) {
		err = errno;
		close(fd);
		return sb_error_set(SB_ERR_IO, "cannot read '%s': %s", path, strerror(err));
	}
	for (;;) {
		if (used + 4096 + 1 > size) {
			size_t nsize = size ? size * 2 : 65536;
			char *nbuf = realloc(buf, nsize);

			if (!nbuf) {
				err =
				    sb_error_set(SB_ERR_NOMEM, "out of memory reading '%s'", path);
				goto fail;
			}
			buf = nbuf;
			size = nsize;
		}
		n = fread(buf + used, 1, size - used - 1, f);
		used += n;
		if (used > max) {
			err = sb_error_set(SB_ERR_PARSE, "cannot read '%s': larger than %zu bytes",
			                   path, max);
			goto fail;
		}
		if (n == 0) {
			if (ferror(f)) {
				err = sb_error_set(SB_ERR_IO, "cannot read '%s': %s", path,
				                   strerror(errno));
				goto fail;
			}
			break;
		}
	}
	fclose(f);
	buf[used] = '\0';
	*data = buf;
	*len = used;
	return 0;
fail:
	free(buf);
	fclose(f);
	return err;
}

char *sb_format_double(char *buf, size_t size, double v)
{
	if (isnan(v) || isinf(v)) {
		snprintf(buf, size, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
		return buf;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

uint64_t sb_fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

size_t sb_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size) {
		size_t c = n < size - 1 ? n : size - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

int sb_parse_u64(const char *s, const char *what, bool allow_suffix, uint64_t *out)
{
	unsigned long long v;
	uint64_t mul = 1;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		goto bad;
	if (*end && allow_suffix && !end[1]) {
		switch (*end) {
		case 'k':
		case 'K':
			mul = 1ull << 10;
			break;
		case 'M':
			mul = 1ull << 20;
			break;
		case 'G':
			mul = 1ull << 30;
			break;
		default:
			goto bad;
		}
		end++;
	}
	if (*end)
		goto bad;
	if (v > UINT64_MAX / mul)
		return sb_error_set(SB_ERR_INVAL, "%s: '%s' is too large", what, s);
	*out = (uint64_t)v * mul;
	return 0;
bad:
	return sb_error_set(SB_ERR_INVAL, "%s: expected an unsigned integer, got '%s'", what,
	                    s ? s : "");
}

int sb_parse_double(const char *s, const char *what, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		goto bad;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v))
		goto bad;
	*out = v;
	return 0;
bad:
	return sb_error_set(SB_ERR_INVAL, "%s: expected a number, got '%s'", what, s ? s : "");
}

int sb_find_data_file(const char *kind, const char *name, const char *env_var,
                      const char *source_dir, const char *install_dir, char *path, size_t size)
{
	const char *env = getenv(env_var);
	const char *dirs[3] = {env, source_dir, install_dir};

	if (strchr(name, '/') || strstr(name, ".yaml")) {
		if (access(name, R_OK) < 0)
			return sb_error_set(SB_ERR_NOT_FOUND, "%s '%s' not found", kind, name);
		sb_strlcpy(path, name, size);
		return 0;
	}
	for (size_t i = 0; i < SB_ARRAY_SIZE(dirs); i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		if ((size_t)snprintf(path, size, "%s/%s.yaml", dirs[i], name) >= size)
			continue;
		if (access(path, R_OK) == 0)
			return 0;
	}
	return sb_error_set(SB_ERR_NOT_FOUND, "no %s '%s' (looked in $%s, %s, %s)", kind, name,
	                    env_var, source_dir, install_dir);
}
