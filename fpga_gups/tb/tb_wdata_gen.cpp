/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_wdata_gen (DEPTH = 4 jobs): random write jobs (random seed, 34-bit address
 * including the top of memory, 1..8 flits) offered with random idle cycles and taken when
 * job_ready, random back-pressure on the beat output (m_wr_ready). Checks against a job queue
 * model: job_ready == fewer than 4 jobs queued, `empty` == no job queued; the beats come out in
 * job order, `flits` per job, each bit-exact with the C definition
 * fpga_gups/model/gups_pattern.h (computed at test time from the job's seed, address and
 * beat); m_wr_valid and the data hold while the beat waits for m_wr_ready.
 */
#include <deque>
#include <memory>

#include "Vsb_wdata_gen.h"
#include "gups_pattern.h"
#include "tb_common.h"

using namespace tb;

static const unsigned DEPTH = 4;

struct Job {
	uint64_t addr;
	unsigned flits;
	uint32_t seed;
};

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);
	Rng rng(seed);
	std::unique_ptr<Vsb_wdata_gen> top(new Vsb_wdata_gen);
	std::deque<Job> q;
	unsigned beat = 0; /* next beat of the head job */
	uint64_t jobs = 0, beats = 0, stalls = 0, full = 0;
	bool valid_p = false, ready_p = false;
	uint32_t data_p[4] = {0, 0, 0, 0};

	top->job_valid = 0;
	top->m_wr_ready = 0;
	reset_for(*top, 2);
	Job offer{0, 1, 0};
	bool offering = false;
	for (int phase = 0; phase < 40; phase++) {
		unsigned job_pct = rng.range(5, 100), ready_pct = rng.range(10, 100);
		for (int c = 0; c < 500; c++) {
			if (!offering && rng.chance(job_pct)) {
				offering = true;
				offer.addr = rng.chance(10) ? 0x3FFFFFF80ull + 16 * rng.range(0, 7)
				                            : rng.u64() & 0x3FFFFFFF0ull;
				offer.flits = rng.range(1, 8);
				offer.seed = (uint32_t)rng.u64();
			}
			top->job_valid = offering;
			top->job_addr = offering ? offer.addr : rng.u64() & 0x3FFFFFFFFull;
			top->job_flits = offering ? offer.flits : rng.range(0, 15);
			top->job_seed = offering ? offer.seed : (uint32_t)rng.u64();
			top->m_wr_ready = rng.chance(ready_pct);
			top->clk = 0;
			top->eval();
			TB_EQ(top->job_ready, q.size() < DEPTH,
			      "job_ready == fewer than DEPTH jobs");
			TB_EQ(top->empty, q.empty(), "empty == no job queued");
			TB_EQ(top->m_wr_valid, !q.empty(), "m_wr_valid while a job has beats");
			full += q.size() == DEPTH;
			if (valid_p && !ready_p) {
				TB_CHECK(top->m_wr_valid, "m_wr_valid dropped while waiting");
				for (int w = 0; w < 4; w++)
					TB_EQ(top->m_wr_data[w], data_p[w],
					      "beat changed while waiting");
			}
			if (!q.empty()) {
				const Job &j = q.front();
				for (unsigned w = 0; w < 4; w++)
					if (top->m_wr_data[w] !=
					    sb_pattern_word(j.seed, j.addr, beat, w)) {
						fail("job %" PRIu64 " addr 0x%09" PRIx64
						     " beat %u word %u: 0x%08x, C "
						     "gives 0x%08x",
						     jobs, j.addr, beat, w, top->m_wr_data[w],
						     sb_pattern_word(j.seed, j.addr, beat, w));
						break;
					}
			}
			bool take_job = top->job_valid && top->job_ready;
			bool take_beat = top->m_wr_valid && top->m_wr_ready;
			stalls += top->m_wr_valid && !top->m_wr_ready;
			valid_p = top->m_wr_valid;
			ready_p = top->m_wr_ready;
			for (int w = 0; w < 4; w++)
				data_p[w] = top->m_wr_data[w];
			top->clk = 1;
			top->eval();
			if (take_beat) {
				beats++;
				if (++beat == q.front().flits) {
					beat = 0;
					q.pop_front();
					jobs++;
				}
			}
			if (take_job) {
				q.push_back(offer);
				offering = false;
			}
		}
	}
	printf("wdata_gen: %" PRIu64 " jobs, %" PRIu64 " beats, %" PRIu64 " stalled beats, %" PRIu64
	       " cycles with the queue full\n",
	       jobs, beats, stalls, full);
	TB_CHECK(jobs > 1000 && stalls > 1000 && full > 1000, "traffic, back-pressure and full");
	return finish("tb_wdata_gen");
}
