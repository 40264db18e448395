/* SPDX-License-Identifier: MIT */
/* Helpers of the capture and replay tests: temporary files, reading a trace back. */
#ifndef SB_TEST_CAPTURE_SUPPORT_H
#define SB_TEST_CAPTURE_SUPPORT_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/trace.h"

/* A fresh temporary folder; files in it are removed by tmp_clean. */
static char tmp_dir[256];

static inline void tmp_make(void)
{
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/sb-capture-test-XXXXXX");
	cr_assert_not_null(mkdtemp(tmp_dir));
}

static inline void tmp_clean(void)
{
	DIR *d = opendir(tmp_dir);
	struct dirent *e;
	char path[600];

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmp_dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(tmp_dir);
}

static inline const char *tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmp_dir, name);
	return buf;
}

/* A whole trace in memory, with its description at the end of reading. */
struct loaded {
	struct sb_trace_record *r;
	size_t n;
	struct sb_trace_info info;
};

static inline void load_trace(const char *path, enum sb_trace_format fmt, struct loaded *l)
{
	struct sb_trace_reader *rd;
	size_t cap = 1024;
	int n;

	memset(l, 0, sizeof(*l));
	cr_assert_eq(sb_trace_open(&rd, fmt, path, NULL), 0, "%s", sb_error_detail());
	l->r = malloc(cap * sizeof(*l->r));
	cr_assert_not_null(l->r);
	for (;;) {
		while (l->n + 4096 > cap) {
			cap *= 2;
			l->r = realloc(l->r, cap * sizeof(*l->r));
			cr_assert_not_null(l->r);
		}
		n = sb_trace_read(rd, l->r + l->n, 4096);
		cr_assert_geq(n, 0, "%s", sb_error_detail());
		if (!n)
			break;
		l->n += (size_t)n;
	}
	l->info = *sb_trace_reader_info(rd);
	sb_trace_reader_free(rd);
}

static inline void loaded_free(struct loaded *l)
{
	free(l->r);
	memset(l, 0, sizeof(*l));
}

#endif /* SB_TEST_CAPTURE_SUPPORT_H */
