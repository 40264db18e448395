/* SPDX-License-Identifier: MIT */
/* Power-meter records: Watts up? PRO data records and SCPI number lists (pure: no I/O). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/meters.h"

/* Divisors of the 18 fields: tenths, mA, or as is. */
static const double wattsup_div[SB_WATTSUP_FIELDS] = {
    10, 10, 1000, 10, 10, 10, 10, 10, 10, 1000, 10, 10, 1000, 1, 1, 1, 10, 10,
};

static const char *const wattsup_name[SB_WATTSUP_FIELDS] = {
    "W",    "V",    "A",    "Wh",   "cost", "mo-kWh", "mo-cost",     "maxW", "maxV",
    "maxA", "minW", "minV", "minA", "PF",   "duty",   "power-cycle", "Hz",   "VA",
};

/* One integer field [p, end): digits with an optional '-'; "_" or empty is NAN (-1 allowed). */
static int int_field(const char *p, const char *end, double *v)
{
	bool neg = false;
	double x = 0;

	if (end == p || (end - p == 1 && *p == '_')) {
		*v = NAN;
		return 1;
	}
	if (*p == '-') {
		neg = true;
		p++;
	}
	if (p == end || end - p > 12)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		x = x * 10 + (*p - '0');
	}
	*v = neg ? -x : x;
	return 0;
}

int sb_wattsup_parse(const char *rec, size_t len, struct sb_wattsup_record *r)
{
	double f[SB_WATTSUP_FIELDS];
	const char *p, *end;
	unsigned i;

	memset(r, 0, sizeof(*r));
	if (len < 9 || rec[0] != '#' || rec[len - 1] != ';' || memcmp(rec, "#d,", 3))
		return sb_error_set(SB_ERR_PARSE, "Watts up? record '%.*s': not a data record",
		                    (int)(len > 40 ? 40 : len), rec);
	/* "#d,<sub>,18," */
	p = memchr(rec + 3, ',', len - 3);
	if (!p || p - rec > 6 || (size_t)(p + 4 - rec) > len || memcmp(p, ",18,", 4))
		return sb_error_set(SB_ERR_PARSE,
		                    "Watts up? record '%.*s': expected 18 fields after '#d,-,'",
		                    (int)(len > 40 ? 40 : len), rec);
	p += 4;
	end = rec + len - 1; /* the ';' */
	for (i = 0; i < SB_WATTSUP_FIELDS; i++) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		int k = int_field(p, stop, &f[i]);

		if (k < 0 || (k == 1 && i == 0))
			return sb_error_set(
			    SB_ERR_PARSE, "Watts up? record: field %u (%s) '%.*s' is not a number",
			    i + 1, wattsup_name[i], (int)(stop - p > 16 ? 16 : stop - p), p);
		f[i] /= wattsup_div[i];
		if (!comma) {
			i++;
			break;
		}
		p = comma + 1;
		if (i == SB_WATTSUP_FIELDS - 1)
			return sb_error_set(SB_ERR_PARSE, "Watts up? record: more than 18 fields");
	}
	if (i != SB_WATTSUP_FIELDS)
		return sb_error_set(SB_ERR_PARSE, "Watts up? record: %u fields, expected 18", i);
	*r = (struct sb_wattsup_record){f[0],  f[1],  f[2],  f[3],  f[4],  f[5],
	                                f[6],  f[7],  f[8],  f[9],  f[10], f[11],
	                                f[12], f[13], f[14], f[15], f[16], f[17]};
	return 0;
}

void sb_wattsup_lines_init(struct sb_wattsup_lines *l)
{
	memset(l, 0, sizeof(*l));
}

int sb_wattsup_feed(struct sb_wattsup_lines *l, const uint8_t *data, size_t len,
                    void (*fn)(void *ctx, const struct sb_wattsup_record *r), void *ctx)
{
	int delivered = 0;

	for (size_t i = 0; i < len; i++) {
		char ch = (char)data[i];

		if (ch == '#') {
			if (l->in_record)
				l->partial++;
			l->in_record = true;
			l->len = 0;
		} else if (!l->in_record) {
			l->noise_bytes++;
			continue;
		}
		if (ch == '\r' || ch == '\n')
			continue;
		if (l->len == sizeof(l->buf)) {
			l->partial++; /* too long: drop it, wait for the next '#' */
			l->in_record = false;
			continue;
		}
		l->buf[l->len++] = ch;
		if (ch != ';')
			continue;
		l->in_record = false;
		if (l->len >= 3 && !memcmp(l->buf, "#d,", 3)) {
			struct sb_wattsup_record r;

			if (sb_wattsup_parse(l->buf, l->len, &r) < 0) {
				l->bad_records++;
				continue;
			}
			l->records++;
			delivered++;
			if (fn)
				fn(ctx, &r);
		}
	}
	return delivered;
}

int sb_scpi_parse_numbers(const char *text, size_t len, double *vals, unsigned max)
{
	const char *p = text, *end;
	unsigned n = 0;
	const char *nl = memchr(text, '\n', len);

	end = nl ? nl : text + len;
	while (end > p && (end[-1] == '\r' || end[-1] == ' '))
		end--;
	if (p == end)
		return sb_error_set(SB_ERR_PARSE, "SCPI answer is empty");
	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		char item[40];
		size_t k = (size_t)(stop - p);
		double v;
		char *e;

		while (k && *p == ' ') {
			p++;
			k--;
		}
		if (n == max)
			return sb_error_set(SB_ERR_PARSE, "SCPI answer has more than %u items",
			                    max);
		if (!k || k >= sizeof(item))
			return sb_error_set(SB_ERR_PARSE, "SCPI answer: item %u is %s", n + 1,
			                    k ? "too long" : "empty");
		memcpy(item, p, k);
		item[k] = '\0';
		if (!strcmp(item, "NAN") || !strcmp(item, "INF") || !strcmp(item, "-INF")) {
			v = NAN;
		} else {
			errno = 0;
			v = strtod(item, &e);
			if (*e || errno || !isfinite(v) ||
			    !((item[0] >= '0' && item[0] <= '9') || item[0] == '-' ||
			      item[0] == '+' || item[0] == '.'))
				return sb_error_set(SB_ERR_PARSE,
				                    "SCPI answer: item %u '%s' is not a number",
				                    n + 1, item);
			if (fabs(v) >= 9.9e37)
				v = NAN; /* the instrument's "no data" */
		}
		vals[n++] = v;
		if (!comma)
			break;
		p = comma + 1;
	}
	return (int)n;
}
