/* SPDX-License-Identifier: MIT */
/*
 * Lifetimes enough to trust (docs/lifetimes.md, "Too few lifetimes"): which subpartitions' device
 * rows and which part of the composition rest on no or too few lifetimes, and why.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stackbench/lifetime.h"

enum sb_lifetime_basis sb_lifetime_basis(const struct sb_subpart_stats *st,
                                         const struct sb_confidence_rules *rules)
{
	if (st->reads + st->stores + st->fetches == 0)
		return SB_BASIS_EMPTY;
	if (st->lifetimes == 0)
		return SB_BASIS_NONE;
	return st->lifetimes < rules->min_events ? SB_BASIS_FEW : SB_BASIS_ENOUGH;
}

const char *sb_lifetime_basis_name(enum sb_lifetime_basis b)
{
	static const char *const names[] = {"no accesses", "none", "few", "enough"};

	return b <= SB_BASIS_ENOUGH ? names[b] : "?";
}

void sb_lifetime_trust(const struct sb_lifetime_result *res, struct sb_lifetime_trust *t)
{
	uint64_t cap = 0, weak = 0;

	memset(t, 0, sizeof(*t));
	for (size_t s = 0; s < res->nsubparts; s++) {
		const struct sb_subpart_stats *st = &res->subparts[s];
		enum sb_lifetime_basis b = sb_lifetime_basis(st, &res->rules);

		t->lifetimes += st->lifetimes;
		cap += st->capacity_bits;
		if (b == SB_BASIS_EMPTY)
			continue;
		t->with_accesses++;
		t->none += b == SB_BASIS_NONE;
		t->few += b == SB_BASIS_FEW;
		if (b != SB_BASIS_ENOUGH)
			weak += st->capacity_bits;
	}
	t->weak_capacity_share = cap ? (double)weak / (double)cap : 0;
}

/* Append to a bounded buffer; *n stays within size. */
__attribute__((format(printf, 4, 5))) static void add(char *buf, size_t size, size_t *n,
                                                      const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n + 1 >= size)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, size - *n, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n = *n + (size_t)k < size ? *n + (size_t)k : size - 1;
}

/* The names of the subpartitions of basis b: the first four, then how many more. */
static void names(char *buf, size_t size, size_t *n, const struct sb_lifetime_result *res,
                  enum sb_lifetime_basis b)
{
	size_t shown = 0, more = 0;

	for (size_t s = 0; s < res->nsubparts; s++) {
		if (sb_lifetime_basis(&res->subparts[s], &res->rules) != b)
			continue;
		if (shown < 4)
			add(buf, size, n, "%s%s", shown ? ", " : "", res->subparts[s].sp.name);
		else
			more++;
		shown++;
	}
	if (more)
		add(buf, size, n, " and %zu more", more);
}

/* Microseconds of ticks, for the explanation. */
static double ticks_us(double ticks, double tick_hz)
{
	return ticks / tick_hz * 1e6;
}

size_t sb_lifetime_trust_warnings(const struct sb_lifetime_result *res,
                                  char out[][SB_TRUST_WARNING_MAX], size_t max)
{
	const struct sb_sampling *smp = &res->sampling;
	const struct sb_trace_capture *c = &smp->capture;
	const double hz = res->info.tick_hz;
	uint64_t reads = 0, unbacked = 0, writes = 0, cut = 0, cut_read = 0, zero = 0;
	struct sb_lifetime_trust t;
	size_t k = 0, n;
	char *b;

	sb_lifetime_trust(res, &t);
	if (max == 0 || (t.none == 0 && t.few == 0))
		return 0;
	for (size_t s = 0; s < res->nsubparts; s++) {
		const struct sb_subpart_stats *st = &res->subparts[s];
		enum sb_lifetime_basis bs = sb_lifetime_basis(st, &res->rules);

		if (bs != SB_BASIS_NONE && bs != SB_BASIS_FEW)
			continue;
		reads += st->reads;
		unbacked += st->unbacked_reads;
		writes += st->stores + st->fetches;
		cut += st->censored_values;
		cut_read += st->censored_read_values;
		zero += st->zero_read_values;
	}

	/* which results, and how much of the composition */
	b = out[k++];
	n = 0;
	b[0] = '\0';
	if (t.none) {
		add(b, SB_TRUST_WARNING_MAX, &n,
		    "no lifetime in %zu of %zu subpartitions with accesses (", t.none,
		    t.with_accesses);
		names(b, SB_TRUST_WARNING_MAX, &n, res, SB_BASIS_NONE);
		add(b, SB_TRUST_WARNING_MAX, &n, ")");
	}
	if (t.few) {
		add(b, SB_TRUST_WARNING_MAX, &n, "%sfewer than %llu lifetimes in %zu of %zu (",
		    t.none ? "; " : "", (unsigned long long)res->rules.min_events, t.few,
		    t.with_accesses);
		names(b, SB_TRUST_WARNING_MAX, &n, res, SB_BASIS_FEW);
		add(b, SB_TRUST_WARNING_MAX, &n, ")");
	}
	add(b, SB_TRUST_WARNING_MAX, &n,
	    ": their refresh-free shares and refresh energies, and %.1f %% of the capacity the "
	    "composition places, rest on %s lifetimes, not on a measurement (threshold: "
	    "--min-events %llu)",
	    100 * t.weak_capacity_share, t.few ? "no or too few" : "no",
	    (unsigned long long)res->rules.min_events);
	if (k == max)
		return k;

	/* why, and what to capture instead */
	b = out[k++];
	n = 0;
	b[0] = '\0';
	if (writes == 0 || reads == 0) {
		add(b, SB_TRUST_WARNING_MAX, &n,
		    "why: there %s: a value starts with a write and lives until its last read (a "
		    "read-only or write-only GUPS point has no lifetimes: use rw)",
		    writes == 0 ? "are no writes there" : "are no reads there");
		return k;
	}
	add(b, SB_TRUST_WARNING_MAX, &n, "why: %llu of %llu reads unbacked",
	    (unsigned long long)unbacked, (unsigned long long)reads);
	if (smp->sampled && (c->gap_ticks || smp->windows > 1)) {
		add(b, SB_TRUST_WARNING_MAX, &n,
		    " (no value written earlier in their burst), %llu of %llu values cut by "
		    "the sampling gaps (%llu of them read before the cut)",
		    (unsigned long long)cut, (unsigned long long)writes,
		    (unsigned long long)cut_read);
		if (c->bursts && c->executed && c->end > c->start && smp->records) {
			double rate = (double)c->executed / (double)(c->end - c->start);
			double burst = (double)smp->records / (double)c->bursts / rate;

			add(b, SB_TRUST_WARNING_MAX, &n,
			    "; the capture's bursts (%llu records, about %.3g µs each at the "
			    "measured %.3g requests per cycle) are shorter than the reuse, and its "
			    "gaps (%llu cycles, %.3g µs) hide it",
			    (unsigned long long)(smp->records / c->bursts), ticks_us(burst, hz),
			    rate, (unsigned long long)c->gap_ticks,
			    ticks_us((double)c->gap_ticks, hz));
		} else {
			add(b, SB_TRUST_WARNING_MAX, &n,
			    "; the capture's bursts are shorter than the reuse");
		}
		add(b, SB_TRUST_WARNING_MAX, &n,
		    ". To measure lifetimes, capture so that the reuse fits in a burst: a narrow "
		    "address window (--pattern, --mask), linear addresses over a small range, or "
		    "longer bursts (--trace-burst, --trace-gap 0); docs/traces-on-the-board.md");
	} else if (res->windowed) {
		add(b, SB_TRUST_WARNING_MAX, &n,
		    ", %llu of %llu values cut by the end of the capture (%llu of them read before "
		    "it): the capture (%.3g µs) is shorter than the reuse. To measure lifetimes, "
		    "narrow the address window (--pattern, --mask) or use linear addresses over a "
		    "small range; docs/traces-on-the-board.md",
		    (unsigned long long)cut, (unsigned long long)writes,
		    (unsigned long long)cut_read,
		    ticks_us((double)sb_lifetime_result_ticks(res), hz));
	} else {
		add(b, SB_TRUST_WARNING_MAX, &n,
		    " (no value written before them) and %llu of %llu values never read: the trace "
		    "holds too little reuse of the values it writes",
		    (unsigned long long)zero, (unsigned long long)writes);
	}
	return k;
}
