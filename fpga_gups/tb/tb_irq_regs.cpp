/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_irq_regs.
 *   access   every register against the generated table (header, reset values, mask storage
 *            with random byte strobes, status write-1-to-clear, pending read-only, holes,
 *            deselected accesses ignored), with no events
 *   events   random event pulses on the five inputs every cycle and random register traffic
 *            with random idle cycles and byte strobes, against a model: status latches each
 *            event, a write of 1 clears it (an event in the same cycle as its clear stays
 *            set), pending = status & mask, the irq pin = any pending bit, every cycle
 */
#include <memory>

#include "Vsb_irq_regs.h"
#include "tb_regs.h"

using namespace tb;

static const uint32_t NEXT = TB_NEXT;
static const uint32_t EVENTS = SB_IRQ_STATUS_THERMAL_MASK | SB_IRQ_STATUS_TRACE_READY_MASK |
                               SB_IRQ_STATUS_PORTS_DONE_MASK | SB_IRQ_STATUS_LINK_ERROR_MASK |
                               SB_IRQ_STATUS_STREAM_DONE_MASK;

struct Bench : RegBusMaster {
	std::unique_ptr<Vsb_irq_regs> top;
	Rng rng;
	uint64_t cyc = 0;
	unsigned event_pct = 0;        /* chance per cycle and event input */
	uint32_t status = 0, mask = 0; /* the model */
	uint64_t raised = 0, cleared_by_write = 0, irq_cycles = 0;

	explicit Bench(uint64_t seed) : top(new Vsb_irq_regs), rng(seed)
	{
	}

	uint32_t rd_data() const
	{
		return top->reg_rd_data;
	}

	uint32_t model_read(uint32_t a) const
	{
		switch (a) {
		case SB_BLK_TYPE:
			return SB_BLK_IRQ_TYPE;
		case SB_BLK_VERSION:
			return SB_BLK_IRQ_VERSION;
		case SB_BLK_NEXT:
			return NEXT;
		case SB_IRQ_STATUS:
			return status;
		case SB_IRQ_MASK:
			return mask;
		case SB_IRQ_PENDING:
			return status & mask;
		default:
			return 0;
		}
	}

	void step()
	{
		uint32_t ev = 0;
		for (int i = 0; i < 5; i++)
			if (rng.chance(event_pct))
				ev |= 1u << i;
		top->ev_thermal = ev >> SB_IRQ_STATUS_THERMAL_SHIFT & 1;
		top->ev_trace_ready = ev >> SB_IRQ_STATUS_TRACE_READY_SHIFT & 1;
		top->ev_ports_done = ev >> SB_IRQ_STATUS_PORTS_DONE_SHIFT & 1;
		top->ev_link_error = ev >> SB_IRQ_STATUS_LINK_ERROR_SHIFT & 1;
		top->ev_stream_done = ev >> SB_IRQ_STATUS_STREAM_DONE_SHIFT & 1;
		drive_bus(*top);
		top->reg_sel = sel;
		top->clk = 0;
		top->eval();
		TB_EQ(top->irq, (status & mask) != 0, "irq pin == any pending bit");
		irq_cycles += top->irq;
		uint32_t rd = (sel && rdn) ? model_read(addr) : 0;
		top->clk = 1;
		top->eval();
		cyc++;
		/* the model's edge */
		uint32_t clr = (sel && wr && addr == SB_IRQ_STATUS) ? wones(data, strb) : 0;
		cleared_by_write += __builtin_popcount(status & clr & ~ev);
		raised += __builtin_popcount(ev & ~status);
		status = (status & ~clr) | ev;
		if (sel && wr && addr == SB_IRQ_MASK)
			mask = wmerge(mask, data, strb) & EVENTS;
		char what[80];
		snprintf(what, sizeof(what), "cycle %" PRIu64 ": reg_rd_data", cyc);
		TB_EQ(top->reg_rd_data, rd, what);
	}

	void reset()
	{
		bus(false, 0, false, false, 0, 0);
		drive_bus(*top);
		reset_for(*top, 3);
		status = SB_IRQ_STATUS_RESET;
		mask = SB_IRQ_MASK_RESET;
	}
};

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);
	const struct sb_regmap_block *blk = find_block("irq");

	{
		Bench b(seed);
		BlockRules rules;
		rules.next = NEXT;
		b.reset();
		check_block_access(b, blk, rules, 2);
		check_deselected(b, blk, rules);
	}
	{
		/* Every event sets its bit; writing 1 clears exactly it; writing 0 keeps it. */
		Bench b(seed + 1);
		b.reset();
		reg_write(b, SB_IRQ_MASK, 0xFFFFFFFF);
		TB_EQ(reg_read(b, SB_IRQ_MASK), EVENTS, "mask keeps the five event bits");
		for (int bit = 0; bit < 5; bit++) {
			b.event_pct = 100;
			b.step();
			b.event_pct = 0;
			TB_EQ(reg_read(b, SB_IRQ_STATUS), EVENTS, "every event latched");
			TB_EQ(reg_read(b, SB_IRQ_PENDING), EVENTS, "pending = status & mask");
			reg_write(b, SB_IRQ_STATUS, ~(1u << bit) & 0xFF, 0xF);
			uint32_t left = 1u << bit;
			TB_EQ(reg_read(b, SB_IRQ_STATUS), left, "write 1 clears, write 0 keeps");
			TB_EQ(b.top->irq, 1, "irq while a masked-in bit is pending");
			reg_write(b, SB_IRQ_MASK, ~left & EVENTS);
			TB_EQ(reg_read(b, SB_IRQ_PENDING), 0, "masked out: not pending");
			TB_EQ(b.top->irq, 0, "masked out: no irq");
			reg_write(b, SB_IRQ_STATUS, left, 0xE); /* byte 0 not strobed: no clear */
			TB_EQ(reg_read(b, SB_IRQ_STATUS), left,
			      "clear without byte 0 strobed ignored");
			reg_write(b, SB_IRQ_STATUS, left, 0x1);
			TB_EQ(reg_read(b, SB_IRQ_STATUS), 0, "cleared");
			reg_write(b, SB_IRQ_MASK, EVENTS);
		}
	}
	{
		/* Random events and traffic against the model. */
		Bench b(seed + 2);
		b.reset();
		static const uint32_t regs[] = {SB_IRQ_STATUS, SB_IRQ_MASK, SB_IRQ_PENDING,
		                                SB_BLK_TYPE, 0x18};
		for (int i = 0; i < 20000; i++) {
			b.event_pct = b.rng.chance(50) ? 0 : b.rng.range(1, 20);
			uint32_t a = regs[b.rng.range(0, 4)];
			if (b.rng.chance(50))
				reg_read(b, a);
			else
				reg_write(b, a, (uint32_t)b.rng.u64(), rand_strb(b.rng));
		}
		printf("irq: %" PRIu64 " cycles, %" PRIu64 " bits raised, %" PRIu64
		       " cleared by writes, irq high %" PRIu64 " cycles\n",
		       b.cyc, b.raised, b.cleared_by_write, b.irq_cycles);
		TB_CHECK(b.raised > 1000 && b.cleared_by_write > 1000 && b.irq_cycles > 1000 &&
		             b.irq_cycles < b.cyc,
		         "events raised and cleared, irq both high and low");
	}
	return finish("tb_irq_regs");
}
