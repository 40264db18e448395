/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_gups_tagpool (64 tags, 8-bit info, 32-bit time) in the way the GUPS port uses
 * it: a tag is allocated into an output register (held, not yet stamped), stamped when the
 * controller takes the request (random back-pressure), and released when its response comes
 * (random latencies, out of order; some responses never come, some come after the timeout,
 * some name a tag that is not outstanding). A cycle-accurate model of the pool (FREE / BUSY /
 * LOST per tag, the scan pointer) is compared every cycle:
 *   - alloc_avail / alloc_tag (the lowest free tag), lookup busy / lost / info / time, in_use,
 *     lost_valid / lost_tag / lost_age
 *   - every tag unique while out: an allocated tag is never BUSY, held or LOST; a stray
 *     response naming the held tag is ignored
 *   - exhaustion: with no response, exactly 64 allocations, then alloc_avail = 0 until a release
 *   - lost tags: a BUSY tag is declared lost between timeout + 1 and timeout + 64 cycles after
 *     its stamp, never while held or released in that cycle; with recycle it is free again, without
 *     it stays LOST (not allocatable) until its late response or a clear; the time stamp wraps
 *   - clear: every tag free except the held one and one allocated in the same cycle
 */
#include <memory>

#include "Vsb_gups_tagpool.h"
#include "tb_common.h"

using namespace tb;

static const unsigned NT = 64;
enum State { FREE, BUSY, LOST };

struct Pending {
	unsigned tag;
	uint64_t due; /* cycle of the response; UINT64_MAX = never */
};

struct Bench {
	std::unique_ptr<Vsb_gups_tagpool> top;
	Rng rng;
	uint64_t cyc = 0;
	uint32_t now;
	/* the model */
	State st[NT];
	unsigned info[NT];
	uint32_t stamp_time[NT];
	unsigned scan = 0, in_use = 0;
	bool lost_valid = false;
	unsigned lost_tag = 0;
	uint32_t lost_age = 0;
	/* the user: output register and responder */
	bool held = false;
	unsigned held_tag = 0;
	std::vector<Pending> pend;
	/* knobs */
	bool detect = false, recycle = false;
	uint32_t timeout = 200;
	unsigned alloc_pct = 60, stamp_pct = 70, drop_pct = 0, late_pct = 0, spurious_pct = 0;
	unsigned lat_min = 5, lat_max = 150;
	bool responses = true;
	/* statistics */
	uint64_t allocs = 0, releases = 0, lost = 0, late_released = 0, max_in_use = 0;
	uint64_t stray_held = 0; /* responses naming the held tag (ignored) */

	Bench(uint64_t seed, uint32_t now0) : top(new Vsb_gups_tagpool), rng(seed), now(now0)
	{
		top->clear = 0;
		top->alloc = 0;
		top->stamp = 0;
		top->hold_valid = 0;
		top->release_tag = 0;
		top->detect = 0;
		reset_for(*top, 3);
		for (unsigned t = 0; t < NT; t++) {
			st[t] = FREE;
			info[t] = 0;
			stamp_time[t] = 0;
		}
	}

	int lowest_free() const
	{
		for (unsigned t = 0; t < NT; t++)
			if (st[t] == FREE)
				return (int)t;
		return -1;
	}

	void step(bool clear = false)
	{
		/* Stamp: the controller takes the held request. */
		bool stamp = held && rng.chance(stamp_pct);
		/* Allocate into the output register when it is free this cycle. */
		bool alloc = (!held || stamp) && rng.chance(alloc_pct);
		unsigned ainfo = rng.range(0, 255);
		/* A response: a due one at random, or a tag that is not outstanding. */
		bool release = false;
		unsigned rtag = rng.range(0, NT - 1);
		int pi = -1;
		if (responses) {
			std::vector<int> due;
			for (size_t i = 0; i < pend.size(); i++)
				if (pend[i].due <= cyc)
					due.push_back((int)i);
			if (!due.empty() && rng.chance(70)) {
				pi = due[rng.range(0, (uint32_t)due.size() - 1)];
				rtag = pend[pi].tag;
				release = true;
			} else if (rng.chance(spurious_pct)) {
				release = true; /* random tag: a stray response */
			}
		}
		top->now = now;
		top->clear = clear;
		top->alloc = alloc;
		top->alloc_info = ainfo;
		top->stamp = stamp;
		top->stamp_tag = stamp ? held_tag : rng.range(0, NT - 1);
		top->hold_valid = held;
		top->hold_tag = held ? held_tag : rng.range(0, NT - 1);
		top->lookup_tag = rtag;
		top->release_tag = release;
		top->detect = detect;
		top->recycle = recycle;
		top->timeout = timeout;
		top->clk = 0;
		top->eval();

		/* Combinational outputs against the model. */
		int lf = lowest_free();
		TB_EQ(top->alloc_avail, lf >= 0, "alloc_avail == a tag is free");
		if (lf >= 0)
			TB_EQ(top->alloc_tag, lf, "alloc_tag == lowest free tag");
		bool rheld = held && held_tag == rtag; /* a stray response for the held tag */
		TB_EQ(top->lookup_busy, st[rtag] == BUSY && !rheld,
		      "lookup_busy (not the held tag)");
		TB_EQ(top->lookup_lost, st[rtag] == LOST, "lookup_lost");
		if (st[rtag] != FREE)
			TB_EQ(top->lookup_info, info[rtag], "lookup_info");
		if (st[rtag] == BUSY && !rheld)
			TB_EQ(top->lookup_time, stamp_time[rtag], "lookup_time == stamp");
		TB_EQ(top->in_use, in_use, "in_use == BUSY tags");
		TB_EQ(top->lost_valid, lost_valid, "lost_valid");
		if (lost_valid) {
			TB_EQ(top->lost_tag, lost_tag, "lost_tag");
			TB_EQ(top->lost_age, lost_age, "lost_age");
			TB_CHECK(lost_age > timeout && lost_age <= timeout + NT,
			         "tag %u declared lost at age %u (timeout %u)", lost_tag, lost_age,
			         timeout);
		}
		bool do_alloc = alloc && lf >= 0;
		unsigned atag = (unsigned)lf;
		if (do_alloc)
			TB_CHECK(st[atag] == FREE && !(held && held_tag == atag),
			         "tag %u allocated while out", atag);

		top->clk = 1;
		top->eval();

		/* The model's edge. */
		uint32_t age = now - stamp_time[scan];
		bool scan_lost = detect && st[scan] == BUSY && !(held && held_tag == scan) &&
		                 !(release && rtag == scan) && age > timeout;
		bool rel_busy = release && st[rtag] == BUSY && !rheld;
		bool rel_any = rel_busy || (release && st[rtag] == LOST);
		stray_held += release && rheld;
		if (stamp)
			stamp_time[held_tag] = now;
		if (do_alloc) {
			st[atag] = BUSY;
			info[atag] = ainfo;
		}
		if (rel_any) {
			if (st[rtag] == LOST)
				late_released++;
			st[rtag] = FREE;
			releases++;
		}
		if (scan_lost) {
			st[scan] = recycle ? FREE : LOST;
			lost++;
		}
		in_use = in_use + do_alloc - rel_busy - scan_lost;
		lost_valid = scan_lost;
		lost_tag = scan;
		lost_age = age;
		if (clear) {
			for (unsigned t = 0; t < NT; t++)
				st[t] = FREE;
			if (held)
				st[held_tag] = BUSY;
			if (do_alloc)
				st[atag] = BUSY;
			in_use = held + do_alloc;
			lost_valid = false;
		}
		scan = (scan + 1) % NT;
		max_in_use = std::max<uint64_t>(max_in_use, in_use);
		/* The user's side. */
		if (pi >= 0)
			pend.erase(pend.begin() + pi);
		if (stamp) {
			uint64_t due = UINT64_MAX;
			if (!rng.chance(drop_pct))
				due = cyc + (rng.chance(late_pct) ? timeout + rng.range(NT, 4 * NT)
				                                  : rng.range(lat_min, lat_max));
			pend.push_back({held_tag, due});
			held = false;
		}
		if (do_alloc) {
			held = true;
			held_tag = atag;
			allocs++;
		}
		cyc++;
		now++;
	}

	void run(unsigned n)
	{
		while (n--)
			step();
	}
};

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);

	{
		/* Exhaustion: no responses, 64 allocations then none; one release frees one tag. */
		Bench b(seed, 0);
		b.responses = false;
		b.alloc_pct = 100;
		b.stamp_pct = 100;
		b.run(200);
		TB_EQ(b.allocs, NT, "exactly 64 allocations without responses");
		TB_EQ(b.top->alloc_avail, 0, "pool empty");
		TB_EQ(b.top->in_use, NT, "in_use 64");
		b.responses = true;
		b.lat_min = b.lat_max = 0;
		for (auto &p : b.pend)
			p.due = UINT64_MAX;
		b.pend[17].due = 0; /* tag 17 answers */
		b.alloc_pct = 0;
		while (b.releases == 0 && b.cyc < 1000)
			b.step();
		b.step();
		TB_EQ(b.top->alloc_avail, 1, "a tag free after its response");
		TB_EQ(b.top->alloc_tag, 17, "the released tag is offered");
		TB_EQ(b.top->in_use, NT - 1, "in_use 63");
	}
	{
		/* Random traffic with lost and late responses, recycling, time stamps wrapping. */
		Bench b(seed + 1, 0xFFFFC000u);
		b.detect = true;
		b.recycle = true;
		b.drop_pct = 3;
		b.late_pct = 3;
		b.spurious_pct = 5;
		b.run(40000);
		b.lat_max = 400; /* slower: the pool runs out */
		b.run(40000);
		printf("tagpool recycle: %" PRIu64 " allocations, %" PRIu64 " released, %" PRIu64
		       " lost, peak %" PRIu64 " in use, %" PRIu64
		       " stray responses to the held tag\n",
		       b.allocs, b.releases, b.lost, b.max_in_use, b.stray_held);
		TB_CHECK(b.lost > 20 && b.max_in_use == NT && b.stray_held > 0,
		         "lost tags recycled, pool exhausted, stray responses");
	}
	{
		/* Without recycle: LOST tags stay out until their late response or a clear. */
		Bench b(seed + 2, 0x7FFFF000u);
		b.detect = true;
		b.recycle = false;
		b.drop_pct = 2;
		b.late_pct = 8;
		b.timeout = 120;
		for (int i = 0; i < 30; i++) {
			b.run(2500);
			b.step(true); /* clear */
		}
		printf("tagpool keep: %" PRIu64 " allocations, %" PRIu64 " lost, %" PRIu64
		       " late responses freed a LOST tag\n",
		       b.allocs, b.lost, b.late_released);
		TB_CHECK(b.lost > 20 && b.late_released > 5, "tags lost and freed late");
	}
	{
		/* Clear in the cycle of an allocation: the new tag stays BUSY (checked by the model),
		 * and detection off: no tag is ever declared lost. */
		Bench b(seed + 3, 0);
		b.timeout = 10;
		b.alloc_pct = 90;
		b.stamp_pct = 50;
		b.lat_min = 50;
		b.lat_max = 400;
		uint64_t cleared_with_alloc = 0;
		for (int i = 0; i < 3000; i++) {
			bool c = b.rng.chance(5);
			uint64_t a = b.allocs;
			b.step(c);
			cleared_with_alloc += c && b.allocs > a;
		}
		TB_EQ(b.lost, 0, "detection off: nothing lost");
		TB_CHECK(cleared_with_alloc > 20, "clears coincided with allocations (%" PRIu64 ")",
		         cleared_with_alloc);
	}
	return finish("tb_gups_tagpool");
}
