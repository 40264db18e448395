/* SPDX-License-Identifier: MIT */
/* Calendars: the parts off the fast path (calendar.h has the fast paths). */
#include "calendar.h"

#include <string.h>

void sb_cal_init(struct sb_calendar *c, uint64_t slot_ticks)
{
	memset(c, 0, sizeof(*c));
	c->slot_ticks = slot_ticks;
}

/* Mark the word w (absolute first slot `first`) taken where it lies below the overflow mark. */
static void cal_fill_overflow(struct sb_calendar *c, unsigned w, uint64_t first)
{
	uint64_t n;

	if (c->overflow <= first)
		return;
	n = c->overflow - first;
	c->bits[w] |= n >= 64 ? ~0ull : (1ull << n) - 1;
	if (c->bits[w] == ~0ull)
		c->fullw[w / 64] |= 1ull << (w % 64);
}

void sb_cal_advance(struct sb_calendar *c, uint64_t now_slot)
{
	if (c->full < now_slot)
		c->full = now_slot;
	if (now_slot < c->base + 128)
		return;
	if (now_slot >= c->base + SB_CAL_SLOTS) {
		memset(c->bits, 0, sizeof(c->bits));
		memset(c->fullw, 0, sizeof(c->fullw));
		c->base = now_slot & ~63ull;
		c->base_word = 0;
		c->full = c->base;
		for (unsigned w = 0; w < SB_CAL_WORDS; w++)
			cal_fill_overflow(c, w, c->base + 64ull * w);
		return;
	}
	if (c->overflow <= c->base + SB_CAL_SLOTS) {
		/* Nothing is reserved beyond the window: the words come back empty. */
		unsigned n = (unsigned)((now_slot - c->base) / 64), w = c->base_word;

		for (unsigned i = 0; i < n; i++) {
			c->bits[w] = 0;
			c->fullw[w / 64] &= ~(1ull << (w % 64));
			w = (w + 1) % SB_CAL_WORDS;
		}
		c->base_word = w;
		c->base += 64ull * n;
		return;
	}
	while (c->base + 64 <= now_slot) {
		unsigned w = c->base_word;

		c->bits[w] = 0;
		c->fullw[w / 64] &= ~(1ull << (w % 64));
		c->base_word = (w + 1) % SB_CAL_WORDS;
		c->base += 64;
		cal_fill_overflow(c, w, c->base + SB_CAL_SLOTS - 64);
	}
}

void sb_cal_shift(struct sb_calendar *c, uint64_t dt)
{
	uint64_t slots = dt / c->slot_ticks;

	c->base += slots;
	c->full += slots;
	if (c->overflow)
		c->overflow += slots;
}

static inline uint64_t *cal_word(struct sb_calendar *c, uint64_t s, unsigned *bit)
{
	uint64_t rel = s - c->base;

	*bit = (unsigned)(rel % 64);
	return &c->bits[(c->base_word + rel / 64) % SB_CAL_WORDS];
}

/* Full words are skipped through the summary bitmap (one bit per word that is all taken). */
uint64_t sb_cal_next_free(struct sb_calendar *c, uint64_t s)
{
	uint64_t end = c->base + SB_CAL_SLOTS - 64, rel, inv;
	unsigned lw, b, phys;

	if (s < c->base)
		s = c->base;
	if (s >= end)
		return end;
	rel = s - c->base;
	lw = (unsigned)(rel / 64);
	b = (unsigned)(rel % 64);
	phys = (c->base_word + lw) % SB_CAL_WORDS;
	inv = ~c->bits[phys] >> b;
	if (inv)
		return s + (unsigned)__builtin_ctzll(inv);
	for (lw++; lw < SB_CAL_WORDS - 1;) {
		unsigned span, sb;
		uint64_t notfull;

		phys = (c->base_word + lw) % SB_CAL_WORDS;
		sb = phys % 64;
		span = 64 - sb;
		notfull = ~c->fullw[phys / 64] >> sb;
		if (notfull) {
			unsigned d = (unsigned)__builtin_ctzll(notfull);

			if (d < span) {
				lw += d;
				if (lw >= SB_CAL_WORDS - 1)
					break;
				phys = (c->base_word + lw) % SB_CAL_WORDS;
				return c->base + 64ull * lw +
				       (unsigned)__builtin_ctzll(~c->bits[phys]);
			}
		}
		lw += span;
	}
	return end;
}

/* First taken slot in [s, limit), or limit. */
static uint64_t cal_next_taken(struct sb_calendar *c, uint64_t s, uint64_t limit)
{
	while (s < limit) {
		unsigned b;
		const uint64_t *w = cal_word(c, s, &b); /* sets b: read it only afterwards */
		uint64_t v = *w >> b;

		if (v)
			return sb_min64(limit, s + (unsigned)__builtin_ctzll(v));
		s += 64 - b;
	}
	return limit;
}

/* Slots before c->full are all taken, which makes the search O(1) when a saturated resource is
 * booked solid up to its frontier. */
uint64_t sb_cal_find_slow(struct sb_calendar *c, uint64_t s, unsigned k)
{
	for (;;) {
		uint64_t e;

		if (!sb_cal_in_window(c, s, k))
			return sb_max64(s, c->overflow);
		s = sb_cal_next_free(c, s);
		if (!sb_cal_in_window(c, s, k))
			return sb_max64(s, c->overflow);
		e = cal_next_taken(c, s, s + k);
		if (e == s + k)
			return s;
		s = e;
	}
}
