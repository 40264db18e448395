/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_hmc_ctrl (LINKS = 2, K = 10 error sources, ERRSTAT_THERMAL = 0x01).
 *   access   every register against the generated table: header words, reset values, storage
 *            bits of the rw registers with random byte strobes, read-only registers ignore
 *            writes, pulse / write-only bits read 0, holes, deselected accesses ignored
 *   causes   a cycle-accurate reference model of the block, driven with random controller
 *            status (link up / down, init done, CRC errors, retries), random error responses
 *            from the ten sources (several in one cycle, thermal ERRSTAT among them) and random
 *            register traffic with random idle cycles (pulse commands with random strobes):
 *            every output pin is compared every cycle and every read value with the model
 *            (status.ready / thermal_fail / error / init_busy / in_reset / errstat set and
 *            cleared by their causes, the counters, reset.stats, the command pulses, events)
 */
#include <memory>

#include "Vsb_hmc_ctrl.h"
#include "tb_regs.h"

using namespace tb;

static const unsigned K = 10, LINKS = 2, THERMAL = 0x01;
static const uint32_t NEXT = TB_NEXT;

/* The block's behaviour, cycle by cycle. */
struct Model {
	unsigned addr_mode = 0, errstat = 0, link_up_d = 0;
	uint32_t flow = 0, crc = 0, retries = 0, err_rsp = 0, thermal_events = 0;
	bool init_busy = false, in_reset = false, thermal = false, error = false;
	/* registered outputs */
	bool init_start = false, cube_reset = false, xcvr_reset = false, ports_reset = false;
	bool ev_thermal = false, ev_link_error = false;
	uint32_t rd = 0;

	void reset(unsigned link_up)
	{
		*this = Model();
		addr_mode = SB_FIELD_GET(SB_HMC_CTRL_ADDR_MODE_BLOCK, SB_HMC_CTRL_ADDR_MODE_RESET);
		flow = SB_HMC_CTRL_FLOW_THRESHOLD_RESET;
		link_up_d = link_up;
	}

	static unsigned used()
	{
		return (1u << LINKS) - 1;
	}

	bool ready(unsigned link_up) const
	{
		return (link_up & used()) == used() && !in_reset && !init_busy;
	}

	uint32_t status(unsigned link_up) const
	{
		return SB_FIELD_PREP(SB_HMC_CTRL_STATUS_READY, ready(link_up)) |
		       SB_FIELD_PREP(SB_HMC_CTRL_STATUS_THERMAL_FAIL, thermal) |
		       SB_FIELD_PREP(SB_HMC_CTRL_STATUS_ERROR, error) |
		       SB_FIELD_PREP(SB_HMC_CTRL_STATUS_INIT_BUSY, init_busy) |
		       SB_FIELD_PREP(SB_HMC_CTRL_STATUS_IN_RESET, in_reset) |
		       SB_FIELD_PREP(SB_HMC_CTRL_STATUS_ERRSTAT, errstat);
	}

	uint32_t read(uint32_t a, unsigned link_up) const
	{
		switch (a) {
		case SB_BLK_TYPE:
			return SB_BLK_HMC_CTRL_TYPE;
		case SB_BLK_VERSION:
			return SB_BLK_HMC_CTRL_VERSION;
		case SB_BLK_NEXT:
			return NEXT;
		case SB_HMC_CTRL_STATUS:
			return status(link_up);
		case SB_HMC_CTRL_LINK_STATUS:
			return link_up & used();
		case SB_HMC_CTRL_ADDR_MODE:
			return SB_FIELD_PREP(SB_HMC_CTRL_ADDR_MODE_BLOCK, addr_mode);
		case SB_HMC_CTRL_FLOW_THRESHOLD:
			return flow;
		case SB_HMC_CTRL_CRC_ERRORS:
			return crc;
		case SB_HMC_CTRL_LINK_RETRIES:
			return retries;
		case SB_HMC_CTRL_ERROR_RESPONSES:
			return err_rsp;
		case SB_HMC_CTRL_THERMAL_EVENTS:
			return thermal_events;
		default:
			return 0; /* control, reset and holes */
		}
	}

	/* One clock edge with these inputs. */
	void edge(bool sel, uint32_t a, bool wr, bool rdn, uint32_t data, uint32_t strb,
	          unsigned link_up, bool init_done, bool crc_err, bool retry, unsigned err_bits,
	          const unsigned *es)
	{
		uint32_t ones = (sel && wr) ? wones(data, strb) : 0;
		bool p_init = a == SB_HMC_CTRL_CONTROL && (ones & SB_HMC_CTRL_CONTROL_INIT_MASK);
		bool is_reset = a == SB_HMC_CTRL_RESET;
		bool p_cube = is_reset && (ones & SB_HMC_CTRL_RESET_CUBE_MASK);
		bool p_xcvr = is_reset && (ones & SB_HMC_CTRL_RESET_TRANSCEIVERS_MASK);
		bool p_ports = is_reset && (ones & SB_HMC_CTRL_RESET_PORTS_MASK);
		bool p_stats = is_reset && (ones & SB_HMC_CTRL_RESET_STATS_MASK);

		rd = (sel && rdn) ? read(a, link_up) : 0;
		unsigned n_err = 0, es_now = 0;
		bool thermal_now = false;
		for (unsigned i = 0; i < K; i++)
			if (err_bits >> i & 1) {
				if (!n_err)
					es_now = es[i]; /* the lowest-numbered source */
				n_err++;
				thermal_now |= es[i] == THERMAL;
			}
		ev_thermal = n_err && thermal_now && !thermal;
		if (ev_thermal)
			thermal_events++;
		ev_link_error = n_err || (link_up_d & ~link_up & used());
		if (n_err) {
			err_rsp += n_err;
			error = true;
			errstat = es_now;
			thermal |= thermal_now;
		}
		crc += crc_err;
		retries += retry;
		init_start = p_init && !init_busy; /* busy as before this edge */
		if (init_done)
			init_busy = in_reset = false;
		if (init_start)
			init_busy = true;
		cube_reset = p_cube;
		xcvr_reset = p_xcvr;
		ports_reset = p_ports;
		if (p_cube) {
			in_reset = true;
			thermal = error = false;
			errstat = 0;
		}
		if (p_xcvr)
			in_reset = true;
		if (p_stats)
			crc = retries = err_rsp = 0;
		if (sel && wr && a == SB_HMC_CTRL_ADDR_MODE)
			addr_mode = SB_FIELD_GET(SB_HMC_CTRL_ADDR_MODE_BLOCK,
			                         wmerge(read(a, link_up), data, strb));
		if (sel && wr && a == SB_HMC_CTRL_FLOW_THRESHOLD)
			flow = wmerge(flow, data, strb);
		link_up_d = link_up;
	}
};

struct Bench : RegBusMaster {
	std::unique_ptr<Vsb_hmc_ctrl> top;
	Rng rng;
	Model m;
	uint64_t cyc = 0;
	/* random controller status and error responses */
	bool random_inputs = false;
	/* controller status and error responses of the next step (random_inputs overwrites) */
	unsigned link_up = 3, err_bits = 0, es[K] = {0};
	bool init_done = false, crc = false, retry = false;
	uint64_t n_init = 0, n_cube = 0, n_xcvr = 0, n_ports = 0, n_thermal = 0, n_link_err = 0;

	explicit Bench(uint64_t seed) : top(new Vsb_hmc_ctrl), rng(seed)
	{
	}

	uint32_t rd_data() const
	{
		return top->reg_rd_data;
	}

	void step()
	{
		if (random_inputs) {
			err_bits = 0;
			if (rng.chance(3))
				link_up = rng.chance(70) ? 3 | rng.range(0, 15) : rng.range(0, 15);
			init_done = rng.chance(4);
			crc = rng.chance(5);
			retry = rng.chance(5);
			if (rng.chance(15))
				for (unsigned i = 0; i < K; i++)
					if (rng.chance(25)) {
						err_bits |= 1u << i;
						es[i] =
						    rng.chance(30) ? THERMAL : rng.range(1, 127);
					}
		}
		drive_bus(*top);
		top->reg_sel = sel;
		top->hmc_link_up = link_up;
		top->hmc_init_done = init_done;
		top->hmc_crc_error = crc;
		top->hmc_link_retry = retry;
		top->rsp_err = err_bits;
		uint32_t esw[3] = {0, 0, 0};
		for (unsigned i = 0; i < K; i++)
			set_bits(esw, i * 7, 7, es[i]);
		for (int i = 0; i < 3; i++)
			top->rsp_errstat[i] = esw[i];
		tick(*top);
		m.edge(sel, addr, wr, rdn, data, strb, link_up, init_done, crc, retry, err_bits,
		       es);
		cyc++;
		char what[96];
		snprintf(what, sizeof(what), "cycle %" PRIu64 ": reg_rd_data", cyc);
		TB_EQ(top->reg_rd_data, m.rd, what);
		TB_EQ(top->hmc_init_start, m.init_start, "hmc_init_start");
		TB_EQ(top->hmc_cube_reset, m.cube_reset, "hmc_cube_reset");
		TB_EQ(top->hmc_xcvr_reset, m.xcvr_reset, "hmc_xcvr_reset");
		TB_EQ(top->ports_reset, m.ports_reset, "ports_reset");
		TB_EQ(top->ev_thermal, m.ev_thermal, "ev_thermal");
		TB_EQ(top->ev_link_error, m.ev_link_error, "ev_link_error");
		TB_EQ(top->hmc_addr_mode, m.addr_mode, "hmc_addr_mode");
		TB_EQ(top->flow_threshold, m.flow, "flow_threshold");
		n_init += m.init_start;
		n_cube += m.cube_reset;
		n_xcvr += m.xcvr_reset;
		n_ports += m.ports_reset;
		n_thermal += m.ev_thermal;
		n_link_err += m.ev_link_error;
	}

	void reset()
	{
		link_up = 3;
		bus(false, 0, false, false, 0, 0);
		random_inputs = false;
		drive_bus(*top);
		reset_for(*top, 3);
		m.reset(link_up);
	}
};

/* A random access of the causes phase. */
static void random_access(Bench &b)
{
	static const uint32_t regs[] = {SB_HMC_CTRL_CONTROL,
	                                SB_HMC_CTRL_RESET,
	                                SB_HMC_CTRL_STATUS,
	                                SB_HMC_CTRL_LINK_STATUS,
	                                SB_HMC_CTRL_ADDR_MODE,
	                                SB_HMC_CTRL_FLOW_THRESHOLD,
	                                SB_HMC_CTRL_CRC_ERRORS,
	                                SB_HMC_CTRL_LINK_RETRIES,
	                                SB_HMC_CTRL_ERROR_RESPONSES,
	                                SB_HMC_CTRL_THERMAL_EVENTS,
	                                SB_BLK_NEXT,
	                                0x7C /* hole */};
	uint32_t a = regs[b.rng.range(0, sizeof(regs) / sizeof(regs[0]) - 1)];
	unsigned kind = b.rng.range(0, 9);

	if (kind < 5) {
		reg_read(b, a);
		return;
	}
	uint32_t v = (uint32_t)b.rng.u64();
	if (a == SB_HMC_CTRL_RESET || a == SB_HMC_CTRL_CONTROL) {
		/* Commands: mostly one bit, cube / transceiver resets rarer than the others. */
		v = 1u << b.rng.range(0, 3);
		if (a == SB_HMC_CTRL_RESET && v <= 2 && b.rng.chance(60))
			v = SB_HMC_CTRL_RESET_STATS_MASK;
		if (b.rng.chance(10))
			v |= (uint32_t)b.rng.u64();
	}
	reg_write(b, a, v, rand_strb(b.rng));
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);
	const struct sb_regmap_block *blk = find_block("hmc_ctrl");

	/* Access rules from the table, quiet inputs (links up, no events). */
	{
		Bench b(seed);
		BlockRules rules;
		rules.next = NEXT;
		b.reset();
		check_block_access(b, blk, rules, 3);
		check_deselected(b, blk, rules);
		TB_EQ(b.n_init + b.n_cube + b.n_xcvr + b.n_ports, 0,
		      "no command pulse from writes without pulse bits");
	}

	/* Causes: random status, errors and register traffic against the model. */
	{
		Bench b(seed + 1);
		b.reset();
		b.random_inputs = true;
		for (int i = 0; i < 20000; i++)
			random_access(b);
		printf("hmc_ctrl: %" PRIu64 " cycles, %" PRIu64 " init, %" PRIu64 " cube, %" PRIu64
		       " transceiver, %" PRIu64 " ports resets, %" PRIu64 " thermal, %" PRIu64
		       " link-error events, %u error responses counted last\n",
		       b.cyc, b.n_init, b.n_cube, b.n_xcvr, b.n_ports, b.n_thermal, b.n_link_err,
		       b.m.err_rsp);
		TB_CHECK(b.n_init > 10 && b.n_cube > 10 && b.n_xcvr > 10 && b.n_ports > 10 &&
		             b.n_thermal > 10 && b.m.thermal_events > 10,
		         "every cause occurred (init %" PRIu64 ", cube %" PRIu64
		         ", thermal %" PRIu64 ")",
		         b.n_init, b.n_cube, b.n_thermal);
	}

	/* Directed: one thermal response from two sources at once, then a cube reset. */
	{
		Bench b(seed + 2);
		b.reset();
		TB_EQ(reg_read(b, SB_HMC_CTRL_STATUS), SB_HMC_CTRL_STATUS_READY_MASK, "ready");
		b.es[3] = 0x21;
		b.es[7] = THERMAL;
		b.err_bits = (1u << 3) | (1u << 7);
		b.step();
		TB_EQ(b.top->ev_thermal, 1, "thermal event pulse");
		TB_EQ(b.top->ev_link_error, 1, "link-error event pulse");
		b.err_bits = 0;
		uint32_t st = reg_read(b, SB_HMC_CTRL_STATUS);
		TB_EQ(st,
		      SB_HMC_CTRL_STATUS_READY_MASK | SB_HMC_CTRL_STATUS_THERMAL_FAIL_MASK |
		          SB_HMC_CTRL_STATUS_ERROR_MASK |
		          SB_FIELD_PREP(SB_HMC_CTRL_STATUS_ERRSTAT, 0x21),
		      "status after thermal + error (errstat of source 3)");
		TB_EQ(reg_read(b, SB_HMC_CTRL_ERROR_RESPONSES), 2, "two error responses");
		TB_EQ(reg_read(b, SB_HMC_CTRL_THERMAL_EVENTS), 1, "one thermal event");
		reg_write(b, SB_HMC_CTRL_RESET, SB_HMC_CTRL_RESET_CUBE_MASK);
		TB_EQ(reg_read(b, SB_HMC_CTRL_STATUS), SB_HMC_CTRL_STATUS_IN_RESET_MASK,
		      "cube reset: flags cleared, in reset, not ready");
		reg_write(b, SB_HMC_CTRL_CONTROL, SB_HMC_CTRL_CONTROL_INIT_MASK);
		TB_EQ(reg_read(b, SB_HMC_CTRL_STATUS),
		      SB_HMC_CTRL_STATUS_IN_RESET_MASK | SB_HMC_CTRL_STATUS_INIT_BUSY_MASK,
		      "init busy");
		TB_EQ(reg_read(b, SB_HMC_CTRL_CONTROL), 0, "control.init reads 0");
		TB_EQ(reg_read(b, SB_HMC_CTRL_THERMAL_EVENTS), 1,
		      "thermal_events kept by cube reset");
		b.init_done = true;
		b.step();
		b.init_done = false;
		TB_EQ(reg_read(b, SB_HMC_CTRL_STATUS), SB_HMC_CTRL_STATUS_READY_MASK,
		      "ready again after init done");
		b.link_up = 1;
		b.step();
		TB_EQ(b.top->ev_link_error, 1, "link 1 down: link-error event");
		TB_EQ(reg_read(b, SB_HMC_CTRL_STATUS), 0, "not ready with a link down");
		TB_EQ(reg_read(b, SB_HMC_CTRL_LINK_STATUS), 1, "link_status");
		TB_EQ(b.n_init, 1, "one init pulse");
		TB_EQ(b.n_cube, 1, "one cube-reset pulse");
	}
	return finish("tb_hmc_ctrl");
}
