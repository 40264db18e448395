/* SPDX-License-Identifier: MIT */
/* Buffered line reading and number parsing for the text importers. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/util.h"
#include "trace_internal.h"

#define LINEBUF_INIT (1u << 20)

static int linebuf_init(struct sb_linebuf *lb, const char *name)
{
	sb_strlcpy(lb->name, name, sizeof(lb->name));
	lb->cap = LINEBUF_INIT;
	lb->buf = malloc(lb->cap + 1);
	if (!lb->buf) {
		sb_linebuf_close(lb);
		return sb_error_set(SB_ERR_NOMEM, "out of memory reading '%s'", name);
	}
	return 0;
}

int sb_linebuf_open(struct sb_linebuf *lb, const char *path)
{
	int err;

	memset(lb, 0, sizeof(*lb));
	if ((err = sb_instream_open(&lb->in, path)) < 0)
		return err;
	return linebuf_init(lb, path);
}

int sb_linebuf_open_mem(struct sb_linebuf *lb, const char *name, const void *data, size_t len)
{
	int err;

	memset(lb, 0, sizeof(*lb));
	if ((err = sb_instream_open_mem(&lb->in, name, data, len)) < 0)
		return err;
	return linebuf_init(lb, name);
}

/* Move the unread part to the front, grow if full, and read more. 0, 1 (eof) or error. */
static int refill(struct sb_linebuf *lb)
{
	int n;

	if (lb->start > 0) {
		memmove(lb->buf, lb->buf + lb->start, lb->end - lb->start);
		lb->end -= lb->start;
		lb->base += lb->start;
		lb->start = 0;
	}
	if (lb->end > SB_TRACE_LINE_MAX)
		return sb_trace_parse_error(lb->name, lb->line + 1, "longer than %u bytes",
		                            SB_TRACE_LINE_MAX);
	if (lb->end == lb->cap) {
		char *nb = realloc(lb->buf, lb->cap * 2 + 1);

		if (!nb)
			return sb_error_set(SB_ERR_NOMEM,
			                    "out of memory reading '%s' (a line of "
			                    "more than %zu bytes)",
			                    lb->name, lb->cap);
		lb->buf = nb;
		lb->cap *= 2;
	}
	if ((n = sb_instream_read(&lb->in, lb->buf + lb->end, lb->cap - lb->end)) < 0)
		return n;
	if (n == 0) {
		lb->eof = true;
		return 1;
	}
	/* text has no NUL byte: checked once per chunk, reported with the line that holds it */
	if (!lb->nul) {
		const char *z = memchr(lb->buf + lb->end, '\0', (size_t)n);

		if (z) {
			lb->nul = true;
			lb->nul_at = lb->base + (uint64_t)(z - lb->buf);
		}
	}
	lb->end += (size_t)n;
	return 0;
}

int sb_linebuf_next(struct sb_linebuf *lb, char **line, size_t *len)
{
	size_t scanned = lb->start;
	char *nl;
	int err;

	for (;;) {
		nl = memchr(lb->buf + scanned, '\n', lb->end - scanned);
		if (nl)
			break;
		if (lb->eof) {
			if (lb->start == lb->end)
				return 0;
			nl = lb->buf + lb->end; /* last line without a newline */
			break;
		}
		scanned = lb->end - lb->start;
		if ((err = refill(lb)) < 0)
			return err;
		scanned += lb->start; /* start is 0 after refill */
	}
	*line = lb->buf + lb->start;
	*len = (size_t)(nl - *line);
	if (*len > SB_TRACE_LINE_MAX)
		return sb_trace_parse_error(lb->name, lb->line + 1, "longer than %u bytes",
		                            SB_TRACE_LINE_MAX);
	if (lb->nul && lb->nul_at <= lb->base + (uint64_t)(nl - lb->buf))
		return sb_trace_parse_error(lb->name, lb->line + 1, "a NUL byte: not a text file");
	if (*len > 0 && (*line)[*len - 1] == '\r')
		(*len)--;
	(*line)[*len] = '\0';
	lb->start = (size_t)(nl - lb->buf) + (nl < lb->buf + lb->end ? 1 : 0);
	lb->line++;
	return 1;
}

void sb_linebuf_close(struct sb_linebuf *lb)
{
	sb_instream_close(&lb->in);
	free(lb->buf);
	lb->buf = NULL;
}

int sb_trace_parse_error(const char *name, uint64_t line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sb_error_set(SB_ERR_PARSE, "cannot parse '%s' line %llu: %s", name,
	                    (unsigned long long)line, msg);
}

int sb_parse_int_field(const char *s, const char *end, int64_t *out)
{
	bool neg = false;
	uint64_t v = 0;
	const char *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (s == end)
		return -1;
	p = s;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (p == end || *p < '0' || *p > '9')
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -3;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p < end && *p == '.') {
		const char *q = p + 1;

		while (q < end && *q == '0')
			q++;
		if (q == end) {
			p = q;
		} else if (*q >= '1' && *q <= '9') {
			/* a fraction, unless an exponent makes it integral: strtod decides */
			p = NULL;
		} else if (*q != 'e' && *q != 'E') {
			return -1;
		} else {
			p = NULL;
		}
	}
	if (p && p < end && (*p == 'e' || *p == 'E'))
		p = NULL;
	if (!p) {
		/* the general float form, rare in practice */
		char tmp[64], *e;
		size_t n = (size_t)(end - s);
		double d;

		if (n >= sizeof(tmp))
			return -1;
		memcpy(tmp, s, n);
		tmp[n] = '\0';
		errno = 0;
		d = strtod(tmp, &e);
		if (*e || errno || !isfinite(d))
			return -1;
		if (d != floor(d))
			return -2;
		if (d < -9.2e18 || d > 9.2e18)
			return -3;
		*out = (int64_t)d;
		return 0;
	}
	if (p != end)
		return -1;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return -3;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return -3;
		*out = (int64_t)v;
	}
	return 0;
}
