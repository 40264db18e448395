/* SPDX-License-Identifier: MIT */
/*
 * gnuplot, shared by every figure the tool draws: quoting text for a gnuplot script or a data
 * file, and running gnuplot on a script. Text reaching gnuplot comes from results databases
 * and traces that other people made, so it is treated as hostile: a newline or any other
 * control character in a string would end the gnuplot command and start another (gnuplot's
 * `system()` runs shell commands), so every control character becomes a space, and quotes
 * are escaped for the kind of string they end up in.
 */
#ifndef STACKBENCH_GNUPLOT_H
#define STACKBENCH_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copy in to out (size bytes, terminated) with every control character (< 0x20, 0x7f)
 * replaced by a space. Returns out. */
char *sb_text_clean(char *out, size_t size, const char *in);

/* Write s as a single-quoted gnuplot string ('' for a quote, control characters as spaces);
 * gnuplot expands neither macros nor backquotes inside single quotes. */
void sb_gnuplot_str(FILE *f, const char *s);

/* Write s as a double-quoted string field of a gnuplot data file (control characters and
 * double quotes become spaces and single quotes; a data file has no escapes). */
void sb_gnuplot_datastr(FILE *f, const char *s);

/*
 * Run prog (NULL: "gnuplot" from PATH) on script inside dir, output to dir/gnuplot.log.
 * Returns 0, SB_ERR_NOT_FOUND (gnuplot not installed; the detail says how to install it) or
 * SB_ERR_IO (it failed: the detail quotes the last line it printed).
 */
int sb_gnuplot_run(const char *prog, const char *dir, const char *script);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_GNUPLOT_H */
