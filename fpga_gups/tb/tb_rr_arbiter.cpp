/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_rr_arbiter (N = 5), against a round-robin model (priority starts after the
 * last accepted grant; after reset at requester 0):
 *   - every cycle: at most one grant, one-hot, only to a requester, grant_idx its number,
 *     grant_valid == any request, and the grant is exactly the model's
 *   - full load (every requester always, accept every cycle): grants 0, 1, 2, 3, 4, 0, ...
 *   - random requesters that hold their request until accepted (valid / ready) with random
 *     accept back-pressure: none waits for more than N - 1 other grants (no starvation)
 *   - requests that come and go at random (not held), accept without a request ignored
 */
#include <memory>

#include "Vsb_rr_arbiter.h"
#include "tb_common.h"

using namespace tb;

static const unsigned N = 5;

struct Bench {
	std::unique_ptr<Vsb_rr_arbiter> top;
	Rng rng;
	unsigned last = N - 1; /* model: last accepted grant */
	uint64_t grants = 0;

	explicit Bench(uint64_t seed) : top(new Vsb_rr_arbiter), rng(seed)
	{
		top->req = 0;
		top->accept = 0;
		reset_for(*top, 2);
	}

	int model_grant(unsigned req) const
	{
		for (unsigned k = 1; k <= N; k++) {
			unsigned i = (last + k) % N;
			if (req >> i & 1)
				return (int)i;
		}
		return -1;
	}

	/* One cycle; returns the granted requester or -1, and whether it was accepted. */
	int step(unsigned req, bool accept, bool &taken)
	{
		top->req = req;
		top->accept = accept;
		top->clk = 0;
		top->eval();
		int g = model_grant(req);
		TB_EQ(top->grant_valid, req != 0, "grant_valid == any request");
		TB_EQ(top->grant, g < 0 ? 0 : 1u << g, "grant (one-hot, round robin)");
		if (g >= 0)
			TB_EQ(top->grant_idx, g, "grant_idx");
		TB_CHECK((top->grant & ~req) == 0, "grant only to a requester");
		top->clk = 1;
		top->eval();
		taken = g >= 0 && accept;
		if (taken) {
			last = (unsigned)g;
			grants++;
		}
		return g;
	}
};

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);
	bool taken;

	{
		/* Full load: strict rotation from requester 0. */
		Bench b(seed);
		for (unsigned i = 0; i < 50; i++)
			TB_EQ(b.step((1u << N) - 1, true, taken), i % N, "full load: grant order");
	}
	{
		/* Held requests, random accept: bounded wait. */
		Bench b(seed + 1);
		unsigned req = 0;
		uint64_t waited[N] = {0}, worst = 0;
		for (int c = 0; c < 50000; c++) {
			for (unsigned i = 0; i < N; i++)
				if (!(req >> i & 1) && b.rng.chance(30))
					req |= 1u << i;
			int g = b.step(req, b.rng.chance(60), taken);
			if (taken) {
				req &= ~(1u << g);
				for (unsigned i = 0; i < N; i++)
					if (req >> i & 1) {
						waited[i]++;
						worst = std::max(worst, waited[i]);
						TB_CHECK(waited[i] <= N - 1,
						         "requester %u waited for %" PRIu64
						         " other grants",
						         i, waited[i]);
					}
				waited[g] = 0;
			}
		}
		printf("rr_arbiter: %" PRIu64 " grants with held requests, longest wait %" PRIu64
		       " other grants\n",
		       b.grants, worst);
		TB_EQ(worst, N - 1, "some requester waited for all the others");
	}
	{
		/* Requests that come and go; accept pulses without requests. */
		Bench b(seed + 2);
		uint64_t per[N] = {0};
		for (int c = 0; c < 50000; c++) {
			int g = b.step(b.rng.range(0, (1u << N) - 1), b.rng.chance(50), taken);
			if (taken)
				per[g]++;
		}
		for (unsigned i = 0; i < N; i++)
			TB_CHECK(per[i] > b.grants / N / 2, "requester %u served %" PRIu64 " times",
			         i, per[i]);
	}
	return finish("tb_rr_arbiter");
}
