/* SPDX-License-Identifier: MIT */
/*
 * Calendars: reservations on a slotted resource that accept reservations in any order and
 * leave gaps (a request to a busy bank must not hold up the data bus for requests behind it).
 * A bitmap of slots over a window of SB_CAL_SLOTS, one summary bit per word that is all taken,
 * and a booked-solid frontier (`full`) that makes a saturated resource O(1). Family-neutral:
 * links, vault buses, activate windows and port response interfaces all use them.
 *
 * The fast paths are inline (they run several times per request); the rest is calendar.c.
 */
#ifndef SB_MODEL_CALENDAR_H
#define SB_MODEL_CALENDAR_H

#include <stdbool.h>
#include <stdint.h>

#include "timebase.h"

#define SB_CAL_WORDS 1024 /* 65536 slots of look-ahead */
#define SB_CAL_SLOTS (SB_CAL_WORDS * 64ull)

struct sb_calendar {
	uint64_t slot_ticks; /* length of a slot */
	uint64_t base;       /* absolute slot number of bit 0 of word base_word */
	unsigned base_word;
	uint64_t overflow; /* absolute slot from which everything is taken (beyond the window) */
	uint64_t full;     /* every slot in [base, full) is taken (or in the past) */
	uint64_t bits[SB_CAL_WORDS];
	uint64_t fullw[SB_CAL_WORDS / 64]; /* bit per word of bits[] that is all taken */
};

SB_MODEL_INTERNAL void sb_cal_init(struct sb_calendar *c, uint64_t slot_ticks);
/* Forget slots before now_slot (nothing can be reserved before the present). */
SB_MODEL_INTERNAL void sb_cal_advance(struct sb_calendar *c, uint64_t now_slot);
/* Move every reservation dt ticks later (a multiple of the slot; fast-forward). */
SB_MODEL_INTERNAL void sb_cal_shift(struct sb_calendar *c, uint64_t dt);
/* First free slot >= s, or the end of the usable window. */
SB_MODEL_INTERNAL uint64_t sb_cal_next_free(struct sb_calendar *c, uint64_t s);
/* First slot >= s with k consecutive free slots (the general case of sb_cal_find). */
SB_MODEL_INTERNAL uint64_t sb_cal_find_slow(struct sb_calendar *c, uint64_t s, unsigned k);

/* k (<= 58) bits of the calendar from absolute slot s; slots before the window read free. */
static inline uint64_t sb_cal_bits(const struct sb_calendar *c, uint64_t s, unsigned k)
{
	uint64_t rel, v;
	unsigned w, b;

	if (s < c->base) {
		uint64_t skip = c->base - s;

		if (skip >= k)
			return 0;
		return sb_cal_bits(c, c->base, k - (unsigned)skip) << skip;
	}
	rel = s - c->base;
	w = (unsigned)((c->base_word + rel / 64) % SB_CAL_WORDS);
	b = (unsigned)(rel % 64);
	v = c->bits[w] >> b;
	if (b + k > 64)
		v |= c->bits[(w + 1) % SB_CAL_WORDS] << (64 - b);
	return v & ((1ull << k) - 1);
}

/* The last word of the ring is kept out of use so multi-word reads never wrap onto the first. */
static inline bool sb_cal_in_window(const struct sb_calendar *c, uint64_t s, unsigned k)
{
	return s + k <= c->base + SB_CAL_SLOTS - 64;
}

/* First slot >= s with k consecutive free slots. Fast path: the first candidate is usually
 * free. */
static inline uint64_t sb_cal_find(struct sb_calendar *c, uint64_t s, unsigned k)
{
	if (s < c->full)
		s = c->full;
	if (s >= c->base && s + k <= c->base + SB_CAL_SLOTS - 64) {
		uint64_t rel = s - c->base, v;
		unsigned phys = (unsigned)((c->base_word + rel / 64) % SB_CAL_WORDS);
		unsigned b = (unsigned)(rel % 64);

		v = c->bits[phys] >> b;
		if (b + k > 64)
			v |= c->bits[(phys + 1) % SB_CAL_WORDS] << (64 - b);
		if (!(v & ((1ull << k) - 1)))
			return s;
	}
	return sb_cal_find_slow(c, s, k);
}

static inline void sb_cal_set_bits(struct sb_calendar *c, unsigned phys, uint64_t mask)
{
	uint64_t *w = &c->bits[phys];

	*w |= mask;
	if (*w == ~0ull)
		c->fullw[phys / 64] |= 1ull << (phys % 64);
}

/* Reserve k slots from s. */
static inline void sb_cal_take(struct sb_calendar *c, uint64_t s, unsigned k)
{
	uint64_t rel;
	unsigned phys, b;

	if (!sb_cal_in_window(c, s, k)) {
		c->overflow = sb_max64(c->overflow, s + k);
		return;
	}
	if (s < c->base) {
		if (s + k <= c->base)
			return;
		k -= (unsigned)(c->base - s);
		s = c->base;
	}
	rel = s - c->base;
	phys = (unsigned)((c->base_word + rel / 64) % SB_CAL_WORDS);
	b = (unsigned)(rel % 64);
	if (b + k <= 64) {
		sb_cal_set_bits(c, phys, (k == 64 ? ~0ull : (1ull << k) - 1) << b);
	} else {
		sb_cal_set_bits(c, phys, ~0ull << b);
		sb_cal_set_bits(c, (phys + 1) % SB_CAL_WORDS, (1ull << (b + k - 64)) - 1);
	}
	if (s <= c->full && s + k > c->full)
		c->full = sb_cal_next_free(c, s + k);
}

/* sb_cal_find then sb_cal_take: reserve the first k consecutive free slots from s and return
 * the first. The fast path (the first candidate is free) computes the word and bit once. */
static inline uint64_t sb_cal_reserve(struct sb_calendar *c, uint64_t s, unsigned k)
{
	if (s < c->full)
		s = c->full;
	if (s >= c->base && s + k <= c->base + SB_CAL_SLOTS - 64) {
		uint64_t rel = s - c->base, v, mask = k == 64 ? ~0ull : (1ull << k) - 1;
		unsigned phys = (unsigned)((c->base_word + rel / 64) % SB_CAL_WORDS);
		unsigned next = (phys + 1) % SB_CAL_WORDS;
		unsigned b = (unsigned)(rel % 64);

		v = c->bits[phys] >> b;
		if (b + k > 64)
			v |= c->bits[next] << (64 - b);
		if (!(v & mask)) {
			if (b + k <= 64) {
				sb_cal_set_bits(c, phys, mask << b);
			} else {
				sb_cal_set_bits(c, phys, ~0ull << b);
				sb_cal_set_bits(c, next, (1ull << (b + k - 64)) - 1);
			}
			if (s <= c->full && s + k > c->full)
				c->full = sb_cal_next_free(c, s + k);
			return s;
		}
	}
	s = sb_cal_find_slow(c, s, k);
	sb_cal_take(c, s, k);
	return s;
}

#endif /* SB_MODEL_CALENDAR_H */
