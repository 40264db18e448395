/* SPDX-License-Identifier: MIT */
/* The GUPS address generator definition shared by the model and the RTL. */
#include <criterion/criterion.h>

#include "gups_addrgen.h"

Test(addrgen, lfsr_known_values)
{
	/* xorshift64 (13, 7, 17) from 1: values computed by hand from the definition. */
	uint64_t s = 1;

	s = sb_lfsr_step(s);
	cr_assert_eq(s, 0x0000000040822041ull);
	s = sb_lfsr_step(s);
	cr_assert_eq(s, 0x100041060C011441ull);
}

Test(addrgen, zero_seed_becomes_one)
{
	struct sb_addrgen a, b;

	sb_addrgen_init(&a, false, 0, 0, 0, 0, SB_ADDR_MASK, 0, 1);
	sb_addrgen_init(&b, false, 1, 0, 0, 0, SB_ADDR_MASK, 0, 1);
	for (int i = 0; i < 100; i++)
		cr_assert_eq(sb_addrgen_next(&a), sb_addrgen_next(&b));
}

Test(addrgen, alignment_follows_size)
{
	cr_assert_eq(sb_addrgen_align(1), 16);
	cr_assert_eq(sb_addrgen_align(2), 32);
	cr_assert_eq(sb_addrgen_align(3), 64);
	cr_assert_eq(sb_addrgen_align(4), 64);
	cr_assert_eq(sb_addrgen_align(5), 128);
	cr_assert_eq(sb_addrgen_align(8), 128);
}

Test(addrgen, mask_and_antimask)
{
	struct sb_addrgen g;
	/* Force bits 7..14 to 0 and bit 33 to 1. */
	uint64_t mask = SB_ADDR_MASK & ~(0xFFull << 7), anti = 1ull << 33;
	uint64_t seen_or = 0, seen_and = SB_ADDR_MASK;

	sb_addrgen_init(&g, false, 12345, 0, 0, 0, mask, anti, 8);
	for (int i = 0; i < 10000; i++) {
		uint64_t a = sb_addrgen_next(&g);

		cr_assert_eq(a & (0xFFull << 7), 0);
		cr_assert_eq(a & 0x7F, 0, "128 B aligned");
		cr_assert(a & anti);
		cr_assert_leq(a, SB_ADDR_MASK);
		seen_or |= a;
		seen_and &= a;
	}
	/* Every other bit varies. */
	cr_assert_eq(seen_or, (mask & ~0x7Full) | anti);
	cr_assert_eq(seen_and, anti);
}

Test(addrgen, linear_wraps_after_end)
{
	struct sb_addrgen g;
	const uint64_t expect[] = {0x1000, 0x1080, 0x1100, 0x1180, 0x1000, 0x1080};

	sb_addrgen_init(&g, true, 0, 0x1000, 0x1180, 0x80, SB_ADDR_MASK, 0, 8);
	for (unsigned i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		cr_assert_eq(sb_addrgen_next(&g), expect[i], "step %u", i);
}
