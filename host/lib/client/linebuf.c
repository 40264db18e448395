/* SPDX-License-Identifier: MIT */
/* Newline-delimited lines from a byte stream, with a bounded line length (stackbench/client.h). */
#include <stdlib.h>
#include <string.h>

#include "stackbench/client.h"
#include "stackbench/error.h"

void sb_linebuf_init(struct sb_linebuf *lb, size_t max)
{
	memset(lb, 0, sizeof(*lb));
	lb->max = max;
}

void sb_linebuf_release(struct sb_linebuf *lb)
{
	free(lb->buf);
	lb->buf = NULL;
	lb->len = lb->cap = 0;
	lb->discarding = false;
}

/* Room for need bytes plus a terminating NUL (need <= max). */
static int reserve(struct sb_linebuf *lb, size_t need)
{
	size_t cap = lb->cap ? lb->cap : 256;
	char *n;

	if (need + 1 <= lb->cap)
		return 0;
	while (cap < need + 1)
		cap *= 2;
	if (cap > lb->max + 1)
		cap = lb->max + 1;
	if (!(n = realloc(lb->buf, cap)))
		return sb_error_set(SB_ERR_NOMEM, "out of memory for a %zu-byte line", need);
	lb->buf = n;
	lb->cap = cap;
	return 0;
}

int sb_linebuf_feed(struct sb_linebuf *lb, const char *data, size_t n,
                    int (*fn)(void *ctx, char *line, size_t len, int err), void *ctx)
{
	size_t i = 0;
	int e;

	while (i < n) {
		const char *nl = memchr(data + i, '\n', n - i);
		size_t seg = (nl ? (size_t)(nl - data) : n) - i;

		if (lb->discarding) {
			if (!nl)
				return 0; /* the whole chunk belongs to the long line */
			lb->discarding = false;
			i += seg + 1;
			continue;
		}
		if (seg > lb->max - lb->len) {
			/* Too long: report it once, drop what is held and the rest as it comes. */
			lb->len = 0;
			lb->discarding = true;
			if ((e = fn(ctx, NULL, 0, SB_ERR_RANGE)) < 0)
				return e;
			continue;
		}
		if ((e = reserve(lb, lb->len + seg)) < 0)
			return e;
		memcpy(lb->buf + lb->len, data + i, seg);
		lb->len += seg;
		i += seg;
		if (!nl)
			break;
		i++; /* the newline */
		if (lb->len && lb->buf[lb->len - 1] == '\r')
			lb->len--;
		lb->buf[lb->len] = '\0';
		seg = lb->len;
		lb->len = 0;
		if ((e = fn(ctx, lb->buf, seg, 0)) < 0)
			return e;
	}
	return 0;
}
