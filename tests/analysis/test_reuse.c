/* SPDX-License-Identifier: MIT */
/*
 * Reuse distances of sb_reuse, access by access, against brute force: the definition itself
 * (distinct other keys since the previous access, counted by a scan) on short streams, and an LRU
 * stack (the distance is the depth of the key in the stack) on long random and adversarial ones:
 * skewed random keys, all distinct (growth), cyclic scans (the longest distances), one key,
 * the keys 0 and UINT64_MAX, working sets that grow and shrink (renumbering with few live keys).
 */
#include "analysis_support.h"
#include "stackbench/locality.h"

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The definition: distinct keys in (previous access, i), by a scan. */
static void by_definition(const uint64_t *k, size_t n, uint64_t *d)
{
	for (size_t i = 0; i < n; i++) {
		size_t p = i;
		uint64_t distinct = 0;

		while (p-- > 0 && k[p] != k[i])
			;
		if (p == SIZE_MAX) {
			d[i] = SB_REUSE_COLD;
			continue;
		}
		for (size_t j = p + 1; j < i; j++) {
			size_t q = p + 1;

			while (q < j && k[q] != k[j])
				q++;
			distinct += q == j; /* first occurrence of k[j] after p */
		}
		d[i] = distinct;
	}
}

/* An LRU stack: the distance of a key is its depth; it moves to the top. */
static void by_stack(const uint64_t *k, size_t n, uint64_t *d)
{
	uint64_t *stack = malloc(n * sizeof(*stack));
	size_t depth = 0;

	cr_assert(stack);
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < depth && stack[j] != k[i])
			j++;
		d[i] = j < depth ? j : SB_REUSE_COLD;
		if (j == depth)
			depth++;
		memmove(stack + 1, stack, j * sizeof(*stack));
		stack[0] = k[i];
	}
	free(stack);
}

static void expect_exact(const uint64_t *keys, size_t n, bool definition, const char *what)
{
	uint64_t *got = malloc(n * sizeof(*got)), *want = malloc(n * sizeof(*want));
	struct sb_reuse *r;
	size_t at = 0;

	cr_assert(got && want);
	(definition ? by_definition : by_stack)(keys, n, want);
	cr_assert_eq(sb_reuse_new(&r), 0);
	/* fed in uneven batches */
	while (at < n) {
		size_t k = 1 + next_rand() % 5000;

		k = k > n - at ? n - at : k;
		cr_assert_eq(sb_reuse_feed(r, keys + at, k, got + at), 0, "%s", sb_error_detail());
		at += k;
	}
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(got[i], want[i], "%s: access %zu (key %llu): %llu, expected %llu",
		             what, i, (unsigned long long)keys[i], (unsigned long long)got[i],
		             (unsigned long long)want[i]);
	sb_reuse_free(r);
	free(got);
	free(want);
}

Test(reuse, matches_the_definition_on_short_streams)
{
	enum { N = 1500 };
	uint64_t k[N];

	for (size_t i = 0; i < N; i++)
		k[i] = next_rand() % (1 + i % 97);
	expect_exact(k, N, true, "random");
	for (size_t i = 0; i < N; i++)
		k[i] = i % 3 == 0 ? next_rand() : i % 50;
	expect_exact(k, N, true, "mixed");
}

Test(reuse, matches_an_lru_stack_on_long_streams, .timeout = 120)
{
	enum { N = 60000 };
	uint64_t *k = malloc(N * sizeof(*k));

	cr_assert(k);
	/* skewed random keys over 3000 (many renumberings) */
	for (size_t i = 0; i < N; i++) {
		uint64_t x = next_rand();

		k[i] = x % 4 ? (x >> 8) % 64 : (x >> 8) % 3000;
	}
	expect_exact(k, N, false, "skewed");
	/* all distinct: every access cold, the structure grows */
	for (size_t i = 0; i < 20000; i++)
		k[i] = i * 0x9e3779b97f4a7c15ull;
	expect_exact(k, 20000, false, "distinct");
	/* cyclic scans of 2500 keys: every distance 2499 */
	for (size_t i = 0; i < N; i++)
		k[i] = i % 2500;
	expect_exact(k, N, false, "cyclic");
	/* one key */
	for (size_t i = 0; i < 5000; i++)
		k[i] = 42;
	expect_exact(k, 5000, false, "one key");
	/* 0 and UINT64_MAX among others */
	for (size_t i = 0; i < N; i++)
		k[i] = i % 7 == 0 ? 0 : i % 11 == 0 ? UINT64_MAX : next_rand() % 500;
	expect_exact(k, N, false, "extreme keys");
	/* a working set that grows to 4000, then stays at 3 keys for long (renumbering with few
	   live markers far apart), then the old keys come back */
	for (size_t i = 0; i < N; i++)
		k[i] = i < 8000 ? i / 2 : i < 40000 ? 100000 + i % 3 : next_rand() % 4000;
	expect_exact(k, N, false, "grow and shrink");
	free(k);
}

Test(reuse, distinct_keys)
{
	struct sb_reuse *r;
	uint64_t k[6] = {5, 6, 5, 7, UINT64_MAX, 6}, d[6];

	cr_assert_eq(sb_reuse_new(&r), 0);
	cr_assert_eq(sb_reuse_feed(r, k, 6, d), 0);
	cr_expect_eq(sb_reuse_distinct(r), 4);
	cr_expect_eq(d[0], SB_REUSE_COLD);
	cr_expect_eq(d[2], 1);
	cr_expect_eq(d[5], 3, "7, UINT64_MAX and 5 since the last 6");
	sb_reuse_free(r);
}
