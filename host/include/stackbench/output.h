/* SPDX-License-Identifier: MIT */
/*
 * Outputs written atomically. Every file the tool writes (trace conversions, exports, lifetime
 * reports, figures) is made under a temporary name in its target folder and renamed into place
 * when complete, so a reader sees the old file or the new one, never half of one; a failed
 * write leaves no trace. Temporary files are created exclusively (mkstemp / mkdtemp), so a
 * symbolic link planted at a predictable name is never followed, and rename replaces a link at
 * the target instead of writing through it. The folder is synced after the rename.
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
	char tmp[PATH_MAX];  /* the temporary file ("" for standard output) */
};

/*
 * Start writing path ("-": standard output, written directly). The file gets mode 0666 less the
 * umask, as fopen would give it. Returns 0, SB_ERR_NOT_FOUND (no such folder), SB_ERR_PERM,
 * SB_ERR_IO, SB_ERR_INVAL (path too long, or a folder).
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
 * and remove the staging folder (with anything unclaimed left in it). Returns 0 or SB_ERR_IO;
 * frees d's contents in any case.
 */
int sb_outdir_commit(struct sb_outdir *d);
/* Remove the staging folder and everything in it; frees d's contents. */
void sb_outdir_abort(struct sb_outdir *d);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_OUTPUT_H */
