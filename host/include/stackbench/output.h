/* SPDX-License-Identifier: MIT */
/*
 * Outputs written atomically. Every file the tool writes (trace conversions, exports, lifetime
 * reports, figures) is made under a temporary name in its target folder and renamed into place
 * when complete, so a reader sees the old file or the new one, never half of one; a failed
 * write leaves no trace. Temporary files are created exclusively (mkstemp / mkdtemp), so a
 * symbolic link planted at a predictable name is never followed, and rename replaces a link at
 * the target instead of writing through it. The folder is synced after the rename.
 *
 * What is at the target decides how it is written (sb_output_kind()):
 *   - nothing, or a regular file (or a link to one, or a dangling link): temporary file and
 *     rename, as above;
 *   - a character device or a FIFO (a terminal, /dev/null, a pipe; directly or through a link)
 *     and /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written through, never
 *     replaced (renaming over /dev/null would break every program on the machine);
 *   - anything else (a folder, a block device, a socket): refused with an error naming it.
 *
 *   struct sb_output o;
 *   if ((e = sb_output_check_inputs(path, inputs, n)) < 0 || (e = sb_output_open(&o, path)) < 0)
 *           return e;
 *   fprintf(o.f, ...);
 *   return sb_output_commit(&o);          (or sb_output_abort(&o) on an error)
 *
 * A folder of outputs (figures: data files, scripts, and what gnuplot makes of them) is staged
 * in a private folder inside the target folder and its files are moved into place together.
 */
#ifndef STACKBENCH_OUTPUT_H
#define STACKBENCH_OUTPUT_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One output file. */
struct sb_output {
	FILE *f;             /* write here */
	char path[PATH_MAX]; /* the target ("-": standard output) */
	char tmp[PATH_MAX];  /* the temporary file ("" for standard output or a written-through
	                        target) */
	int through;         /* 1: written through (a device, a FIFO, a descriptor), not replaced */
};

/* How an output path is written (what is there now). */
enum sb_output_kind {
	SB_OUTPUT_REPLACE, /* nothing or a regular file: a temporary file renamed into place */
	SB_OUTPUT_THROUGH, /* a character device or a FIFO: opened and written as it is */
	SB_OUTPUT_FD,      /* "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N */
	SB_OUTPUT_REFUSED, /* a folder, a block device, a socket */
};

/*
 * Classify an output path; *fd is the descriptor for SB_OUTPUT_FD. For SB_OUTPUT_REFUSED the
 * error detail says what the path is ("cannot write 'x': it is a block device; ...") and the
 * return is SB_ERR_INVAL; otherwise the kind.
 */
int sb_output_kind(const char *path, int *fd);

/*
 * Start writing path ("-": standard output, written directly; see above for devices). A new
 * file gets mode 0666 less the umask, as fopen would give it. Returns 0, SB_ERR_NOT_FOUND (no
 * such folder), SB_ERR_PERM, SB_ERR_IO, SB_ERR_INVAL (path too long, a folder, a block device
 * or a socket).
 */
int sb_output_open(struct sb_output *o, const char *path);
/* Finish: flush, sync, rename into place, sync the folder. Removes the temporary file on
 * failure. Returns 0 or SB_ERR_IO. */
int sb_output_commit(struct sb_output *o);
/* Give up: close and remove the temporary file (standard output is only flushed). */
void sb_output_abort(struct sb_output *o);

/*
 * Refuse an output that is one of the inputs (the same file by device and inode, whatever the
 * path says, or the same path): SB_ERR_INVAL "output 'x' is the input 'y'". Inputs that do not
 * exist are skipped; "-" never matches. For a folder input (a SCALE-Sim run), an output that
 * would replace an existing file anywhere inside it is refused too.
 */
int sb_output_check_inputs(const char *out, const char *const *inputs, size_t n);

/* A folder of outputs, staged and moved into place together. */
struct sb_outdir {
	char dir[PATH_MAX];   /* the target folder */
	char stage[PATH_MAX]; /* the private staging folder inside it */
	char **names;         /* file names claimed so far */
	size_t n, cap;
};

/*
 * Create dir (and its parents) if needed and a private staging folder in it. Returns 0,
 * SB_ERR_IO, SB_ERR_PERM, SB_ERR_NOMEM.
 */
int sb_outdir_open(struct sb_outdir *d, const char *dir);
/*
 * Claim an output file name (no '/'; not "." or ".."; no control characters) and get its path
 * inside the staging folder. Two claims of one name are an error (SB_ERR_EXISTS: two results
 * would write the same file, e.g. sanitized names that collide). Returns 0, SB_ERR_EXISTS,
 * SB_ERR_INVAL, SB_ERR_NOMEM.
 */
int sb_outdir_claim(struct sb_outdir *d, const char *name, char *path, size_t size);
/* Same, the name made from a printf format. */
int sb_outdir_claimf(struct sb_outdir *d, char *path, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Whether name is already claimed. */
int sb_outdir_claimed(const struct sb_outdir *d, const char *name);
/*
 * Move every claimed file that exists in the staging folder into the target folder, sync it,
 * and remove the staging folder (with anything unclaimed left in it). A name whose target is a
 * character device or a FIFO is copied through it instead; one that is a folder, a block
 * device or a socket fails the commit (SB_ERR_INVAL, before anything is moved). Returns 0,
 * SB_ERR_INVAL or SB_ERR_IO; frees d's contents in any case.
 */
int sb_outdir_commit(struct sb_outdir *d);
/* Remove the staging folder and everything in it; frees d's contents. */
void sb_outdir_abort(struct sb_outdir *d);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_OUTPUT_H */
