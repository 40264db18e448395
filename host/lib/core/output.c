/* SPDX-License-Identifier: MIT */
/* Outputs written atomically: a temporary file in the target folder, renamed into place. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/output.h"
#include "stackbench/util.h"

/* The folder part of path ("." when it has none). */
static int dir_of(const char *path, char *dir, size_t size)
{
	char buf[PATH_MAX];

	if (sb_strlcpy(buf, path, sizeof(buf)) >= sizeof(buf) ||
	    sb_strlcpy(dir, dirname(buf), size) >= size)
		return sb_error_set(SB_ERR_INVAL, "path too long: '%s'", path);
	return 0;
}

/* Sync a folder so that a rename in it survives a crash (best effort on filesystems that
 * cannot sync folders). */
static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return sb_error_set(SB_ERR_IO, "cannot open folder '%s': %s", dir, strerror(errno));
	if (fsync(fd) < 0 && errno != EINVAL && errno != EROFS) {
		int e = errno;

		close(fd);
		return sb_error_set(SB_ERR_IO, "cannot sync folder '%s': %s", dir, strerror(e));
	}
	close(fd);
	return 0;
}

static mode_t default_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

/* The descriptor "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name, or -1. */
static int fd_path(const char *path)
{
	static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/"};
	long n;
	char *end;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t len = strlen(prefixes[i]);

		if (strncmp(path, prefixes[i], len) || path[len] < '0' || path[len] > '9')
			continue;
		n = strtol(path + len, &end, 10);
		if (!*end && n >= 0 && n < 1 << 20)
			return (int)n;
	}
	return -1;
}

static const char *file_kind(mode_t m)
{
	return S_ISDIR(m)    ? "a folder"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
	                     : "not a regular file";
}

int sb_output_kind(const char *path, int *fd)
{
	struct stat st;

	if ((*fd = fd_path(path)) >= 0)
		return SB_OUTPUT_FD;
	/* Follows links: a link to a device is written through, a dangling one replaced. */
	if (stat(path, &st) < 0 || S_ISREG(st.st_mode))
		return SB_OUTPUT_REPLACE;
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return SB_OUTPUT_THROUGH;
	return sb_error_set(SB_ERR_INVAL,
	                    "cannot write '%s': it is %s (outputs go to regular files, replaced "
	                    "atomically, or through character devices, FIFOs and standard output)",
	                    path, file_kind(st.st_mode));
}

/* A character device or a FIFO (or a descriptor): written as it is, never replaced. */
static int open_through(struct sb_output *o, const char *path, int kind, int fd)
{
	struct stat st;
	int e;

	o->through = 1;
	if (kind == SB_OUTPUT_FD && (fd == STDOUT_FILENO || fd == STDERR_FILENO)) {
		o->f = fd == STDOUT_FILENO ? stdout : stderr;
		return 0;
	}
	if (kind == SB_OUTPUT_FD)
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	else
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		return sb_error_set(sb_errno_code(e), "cannot write '%s': %s", path, strerror(e));
	}
	/* It may have changed since it was classified: a device or a FIFO still, or nothing. */
	if (kind == SB_OUTPUT_THROUGH &&
	    (fstat(fd, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))) {
		close(fd);
		return sb_error_set(SB_ERR_INVAL, "cannot write '%s': it changed while opened",
		                    path);
	}
	if (!(o->f = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		return sb_error_set(sb_errno_code(e), "cannot write '%s': %s", path, strerror(e));
	}
	return 0;
}

int sb_output_open(struct sb_output *o, const char *path)
{
	char dir[PATH_MAX], base[PATH_MAX];
	int fd, e, kind;

	memset(o, 0, sizeof(*o));
	if (!*path)
		return sb_error_set(SB_ERR_INVAL, "empty output file name");
	if (sb_strlcpy(o->path, path, sizeof(o->path)) >= sizeof(o->path) ||
	    sb_strlcpy(base, path, sizeof(base)) >= sizeof(base))
		return sb_error_set(SB_ERR_INVAL, "path too long: '%s'", path);
	if ((kind = sb_output_kind(path, &fd)) < 0)
		return kind;
	if (kind != SB_OUTPUT_REPLACE)
		return open_through(o, path, kind, fd);
	if ((e = dir_of(path, dir, sizeof(dir))) < 0)
		return e;
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s/.%s.XXXXXX", dir, basename(base)) >=
	    sizeof(o->tmp))
		return sb_error_set(SB_ERR_INVAL, "path too long: '%s'", path);
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		o->tmp[0] = '\0';
		return sb_error_set(sb_errno_code(e), "cannot create a file in '%s' for '%s': %s",
		                    dir, path, strerror(e));
	}
	if (fchmod(fd, default_mode()) < 0 || !(o->f = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		unlink(o->tmp);
		o->tmp[0] = '\0';
		return sb_error_set(sb_errno_code(e), "cannot write '%s': %s", path, strerror(e));
	}
	return 0;
}

int sb_output_commit(struct sb_output *o)
{
	char dir[PATH_MAX];
	int e = 0;

	if (!o->f)
		return sb_error_set(SB_ERR_STATE, "output '%s' is not open", o->path);
	if (o->f == stdout || o->f == stderr) {
		FILE *f = o->f;

		o->f = NULL;
		if (fflush(f) != 0 || ferror(f))
			return sb_error_set(SB_ERR_IO, "cannot write to '%s': %s", o->path,
			                    strerror(errno));
		return 0;
	}
	if (o->through) {
		/* A device or a FIFO: nothing to rename, nothing to sync. */
		if (fflush(o->f) != 0 || ferror(o->f))
			e = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", o->path,
			                 strerror(errno));
		if (fclose(o->f) != 0 && !e)
			e = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", o->path,
			                 strerror(errno));
		o->f = NULL;
		return e;
	}
	if (fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) < 0)
		e = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", o->path, strerror(errno));
	if (fclose(o->f) != 0 && !e)
		e = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", o->path, strerror(errno));
	o->f = NULL;
	if (!e && rename(o->tmp, o->path) < 0)
		e = sb_error_set(sb_errno_code(errno), "cannot rename '%s' to '%s': %s", o->tmp,
		                 o->path, strerror(errno));
	if (e) {
		unlink(o->tmp);
		o->tmp[0] = '\0';
		return e;
	}
	o->tmp[0] = '\0';
	if ((e = dir_of(o->path, dir, sizeof(dir))) < 0)
		return e;
	return sync_dir(dir);
}

void sb_output_abort(struct sb_output *o)
{
	if (!o->f)
		return;
	if (o->f == stdout || o->f == stderr) {
		fflush(o->f);
	} else if (o->through) {
		fclose(o->f);
	} else {
		fclose(o->f);
		if (o->tmp[0])
			unlink(o->tmp);
	}
	o->f = NULL;
	o->tmp[0] = '\0';
}

/* Whether the existing file out lies inside the folder dir. */
static bool inside(const char *dir, const char *out)
{
	char rd[PATH_MAX], ro[PATH_MAX];
	size_t n;

	if (!realpath(dir, rd) || !realpath(out, ro))
		return false;
	n = strlen(rd);
	return !strncmp(rd, ro, n) && (ro[n] == '/' || (n == 1 && rd[0] == '/'));
}

int sb_output_check_inputs(const char *out, const char *const *inputs, size_t n)
{
	struct stat so, si;
	bool have_out;

	if (!out || !strcmp(out, "-"))
		return 0;
	have_out = stat(out, &so) == 0;
	for (size_t i = 0; i < n; i++) {
		bool have_in;

		if (!inputs[i] || !strcmp(inputs[i], "-"))
			continue;
		have_in = stat(inputs[i], &si) == 0;
		if (!strcmp(inputs[i], out) ||
		    (have_out && have_in && si.st_dev == so.st_dev && si.st_ino == so.st_ino))
			return sb_error_set(SB_ERR_INVAL,
			                    "output '%s' is the input '%s': refusing to overwrite "
			                    "an input",
			                    out, inputs[i]);
		if (have_out && have_in && S_ISDIR(si.st_mode) && inside(inputs[i], out))
			return sb_error_set(
			    SB_ERR_INVAL,
			    "output '%s' would replace a file inside the input folder "
			    "'%s': refusing to overwrite an input",
			    out, inputs[i]);
	}
	return 0;
}

int sb_write_file_atomic(const char *path, const void *data, size_t len)
{
	struct sb_output o;
	int e;

	if ((e = sb_output_open(&o, path)) < 0)
		return e;
	if (len && fwrite(data, 1, len, o.f) != len) {
		e = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
		sb_output_abort(&o);
		return e;
	}
	return sb_output_commit(&o);
}

/* --- folders of outputs ------------------------------------------------------------------ */

static int make_dirs(const char *dir)
{
	char buf[PATH_MAX];

	if (sb_strlcpy(buf, dir, sizeof(buf)) >= sizeof(buf))
		return sb_error_set(SB_ERR_INVAL, "path too long: '%s'", dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) < 0 && errno != EEXIST)
			return sb_error_set(sb_errno_code(errno), "cannot create folder '%s': %s",
			                    buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0777) < 0 && errno != EEXIST)
		return sb_error_set(sb_errno_code(errno), "cannot create folder '%s': %s", buf,
		                    strerror(errno));
	return 0;
}

static void free_names(struct sb_outdir *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->names[i]);
	free(d->names);
	d->names = NULL;
	d->n = d->cap = 0;
}

/* Remove the staging folder and whatever is left in it (it holds only plain files). */
static void remove_stage(struct sb_outdir *d)
{
	DIR *dh;
	struct dirent *de;

	if (!d->stage[0])
		return;
	if ((dh = opendir(d->stage))) {
		while ((de = readdir(dh)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dirfd(dh), de->d_name, 0);
		closedir(dh);
	}
	rmdir(d->stage);
	d->stage[0] = '\0';
}

int sb_outdir_open(struct sb_outdir *d, const char *dir)
{
	struct stat st;
	int e;

	memset(d, 0, sizeof(*d));
	if (!*dir)
		return sb_error_set(SB_ERR_INVAL, "empty output folder name");
	if (sb_strlcpy(d->dir, dir, sizeof(d->dir)) >= sizeof(d->dir))
		return sb_error_set(SB_ERR_INVAL, "path too long: '%s'", dir);
	if ((e = make_dirs(dir)) < 0)
		return e;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return sb_error_set(SB_ERR_INVAL, "'%s' is not a folder", dir);
	if ((size_t)snprintf(d->stage, sizeof(d->stage), "%s/.stackbench-XXXXXX", dir) >=
	    sizeof(d->stage))
		return sb_error_set(SB_ERR_INVAL, "path too long: '%s'", dir);
	if (!mkdtemp(d->stage)) {
		e = errno;
		d->stage[0] = '\0';
		return sb_error_set(sb_errno_code(e), "cannot create a folder in '%s': %s", dir,
		                    strerror(e));
	}
	return 0;
}

int sb_outdir_claimed(const struct sb_outdir *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->names[i], name))
			return 1;
	return 0;
}

int sb_outdir_claim(struct sb_outdir *d, const char *name, char *path, size_t size)
{
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/'))
		return sb_error_set(SB_ERR_INVAL, "bad output file name '%s'", name);
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return sb_error_set(SB_ERR_INVAL,
			                    "output file name with a control character in '%s'",
			                    d->dir);
	if (sb_outdir_claimed(d, name))
		return sb_error_set(
		    SB_ERR_EXISTS,
		    "two outputs would be written to '%s/%s' (names that differ only "
		    "in characters not allowed in file names?)",
		    d->dir, name);
	if ((size_t)snprintf(path, size, "%s/%s", d->stage, name) >= size)
		return sb_error_set(SB_ERR_INVAL, "path too long: '%s/%s'", d->dir, name);
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		char **names = realloc(d->names, cap * sizeof(*names));

		if (!names)
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		d->names = names;
		d->cap = cap;
	}
	if (!(d->names[d->n] = strdup(name)))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	d->n++;
	return 0;
}

int sb_outdir_claimf(struct sb_outdir *d, char *path, size_t size, const char *fmt, ...)
{
	char name[NAME_MAX + 1];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(name))
		return sb_error_set(SB_ERR_INVAL, "output file name too long in '%s'", d->dir);
	return sb_outdir_claim(d, name, path, size);
}

/* Copy a staged file through a device or a FIFO at the target (never replacing it). */
static int copy_through(const char *from, const char *to)
{
	struct sb_output o;
	char buf[65536];
	size_t n;
	FILE *in;
	int e;

	if (!(in = fopen(from, "rbe")))
		return sb_error_set(SB_ERR_IO, "cannot read '%s': %s", from, strerror(errno));
	if ((e = sb_output_open(&o, to)) < 0) {
		fclose(in);
		return e;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, o.f) != n)
			break;
	if (ferror(in) || ferror(o.f)) {
		e = sb_error_set(SB_ERR_IO, "cannot copy '%s' to '%s': %s", from, to,
		                 strerror(errno));
		sb_output_abort(&o);
	} else {
		e = sb_output_commit(&o);
	}
	fclose(in);
	return e;
}

int sb_outdir_commit(struct sb_outdir *d)
{
	char from[PATH_MAX], to[PATH_MAX];
	int e = 0, k, fd;

	/* What is at each target decides how it is written; refused targets fail it all. */
	for (size_t i = 0; i < d->n && !e; i++) {
		snprintf(to, sizeof(to), "%s/%s", d->dir, d->names[i]);
		if ((k = sb_output_kind(to, &fd)) < 0)
			e = k;
	}
	for (size_t i = 0; i < d->n && !e; i++) {
		snprintf(from, sizeof(from), "%s/%s", d->stage, d->names[i]);
		snprintf(to, sizeof(to), "%s/%s", d->dir, d->names[i]);
		if (access(from, F_OK) < 0)
			continue;
		if (sb_output_kind(to, &fd) == SB_OUTPUT_THROUGH)
			e = copy_through(from, to);
		else if (rename(from, to) < 0)
			e = sb_error_set(sb_errno_code(errno), "cannot rename '%s' to '%s': %s",
			                 from, to, strerror(errno));
	}
	remove_stage(d);
	if (!e)
		e = sync_dir(d->dir);
	free_names(d);
	return e;
}

void sb_outdir_abort(struct sb_outdir *d)
{
	remove_stage(d);
	free_names(d);
}
