/* SPDX-License-Identifier: MIT */
/*
 * Register-bus master and table-driven access checks for the testbenches of the register
 * blocks (sb_hmc_ctrl, sb_irq_regs, sb_ident_regs, sb_stream). The expected behaviour of every
 * register comes from the generated table (sb_regmap_table.c): reset values, which bits are
 * storage (write_mask), self-clearing commands (pulse_mask, read 0) and write-1-to-clear
 * (w1c_mask); write-only registers read 0; holes read 0 and ignore writes.
 *
 * A bench B derives from RegBusMaster and provides `Rng rng`, `void step()` (one clock cycle
 * with the bus signals of RegBusMaster) and `uint32_t rd_data()` (reg_rd_data after the step).
 */
#ifndef SB_TB_REGS_H
#define SB_TB_REGS_H

#include <map>
#include <set>
#include <string>

#include "tb_common.h"

extern "C" {
#include "sb_regmap_table.c"
}

namespace tb
{

/* The register-bus signals a bench drives; `bus()` sets them for the next step. */
struct RegBusMaster {
	bool sel = false, wr = false, rdn = false;
	uint32_t addr = 0, data = 0, strb = 0;

	void bus(bool s, uint32_t a, bool w, bool r, uint32_t d, uint32_t st)
	{
		sel = s;
		addr = a;
		wr = w;
		rdn = r;
		data = d;
		strb = st;
	}

	/* Copy to a block's reg_* inputs, all but the select. */
	template <class V> void drive_bus(V &top) const
	{
		top.reg_addr = addr;
		top.reg_wr_en = wr;
		top.reg_rd_en = rdn;
		top.reg_wr_data = data;
		top.reg_wr_strb = strb;
	}
};

inline const struct sb_regmap_block *find_block(const char *name)
{
	for (unsigned i = 0; i < sb_regmap_nblocks; i++)
		if (!strcmp(sb_regmap_blocks[i].name, name))
			return &sb_regmap_blocks[i];
	fail("block %s not in the register map", name);
	exit(1);
}

inline const struct sb_regmap_reg *find_reg(const struct sb_regmap_block *blk, const char *name)
{
	for (unsigned i = 0; i < blk->nregs; i++)
		if (!strcmp(blk->regs[i].name, name))
			return &blk->regs[i];
	fail("register %s.%s not in the register map", blk->name, name);
	exit(1);
}

/* The 32-bit word after a write of data with byte strobes strb. */
inline uint32_t wmerge(uint32_t old, uint32_t data, uint32_t strb)
{
	uint32_t m = 0;

	for (int i = 0; i < 4; i++)
		if (strb >> i & 1)
			m |= 0xFFu << (8 * i);
	return (old & ~m) | (data & m);
}

/* Bits written as 1 with byte strobes strb. */
inline uint32_t wones(uint32_t data, uint32_t strb)
{
	return wmerge(0, data, strb);
}

/* Random byte strobes: mostly all four bytes. */
inline uint32_t rand_strb(Rng &rng)
{
	return rng.chance(50) ? 0xF : rng.range(0, 15);
}

/* Idle cycles with the bus deselected and random values on its other signals. */
template <class B> void bus_idle(B &b, unsigned n)
{
	while (n--) {
		b.bus(false, (uint32_t)b.rng.u64() & 0xFFC, b.rng.chance(30), b.rng.chance(30),
		      (uint32_t)b.rng.u64(), (uint32_t)b.rng.range(0, 15));
		b.step();
	}
}

template <class B> void reg_write(B &b, uint32_t off, uint32_t v, uint32_t strb = 0xF)
{
	bus_idle(b, b.rng.range(0, 3));
	b.bus(true, off, true, false, v, strb);
	b.step();
	b.bus(false, 0, false, false, 0, 0);
}

template <class B> uint32_t reg_read(B &b, uint32_t off)
{
	bus_idle(b, b.rng.range(0, 3));
	b.bus(true, off, false, true, (uint32_t)b.rng.u64(), b.rng.range(0, 15));
	b.step();
	b.bus(false, 0, false, false, 0, 0);
	return b.rd_data();
}

/* What a block's access check needs beyond the table. */
struct BlockRules {
	uint32_t next = 0;                     /* NEXT header word */
	std::set<std::string> volatile_regs;   /* values change by themselves: not compared */
	std::map<std::string, uint64_t> reset; /* reset values that differ from the map's */
	std::map<std::string, uint32_t> avoid; /* bits never written as 1 (side effects) */
};

/* Every register word of a block: (register, element, word, byte offset). */
struct RegWord {
	const struct sb_regmap_reg *reg;
	unsigned elem, word;
	uint32_t off;
};

inline std::vector<RegWord> reg_words(const struct sb_regmap_block *blk)
{
	std::vector<RegWord> v;

	for (unsigned r = 0; r < blk->nregs; r++) {
		const struct sb_regmap_reg *reg = &blk->regs[r];
		for (unsigned e = 0; e < reg->count; e++)
			for (unsigned w = 0; w < reg->width / 32u; w++)
				v.push_back({reg, e, w, reg->offset + e * reg->stride + 4 * w});
	}
	return v;
}

/* The value a register word reads after reset. */
inline uint32_t reset_word(const RegWord &rw, const BlockRules &rules)
{
	auto it = rules.reset.find(rw.reg->name);
	uint64_t r = it != rules.reset.end() ? it->second : rw.reg->reset;
	uint32_t v = (uint32_t)(r >> (32 * rw.word));

	if (rw.reg->access == SB_ACC_WO)
		return 0;
	return v & ~rw.reg->pulse_mask[rw.word];
}

/*
 * Right after reset: header words, every register's reset value, holes read 0. Then the access
 * rule of every bit: random writes with random byte strobes (pulse bits and `avoid` bits kept
 * at 0) change exactly the storage bits of the strobed bytes, clear the written w1c bits and
 * leave read-only bits alone; write-only registers read 0; writes to holes change nothing.
 */
template <class B>
void check_block_access(B &b, const struct sb_regmap_block *blk, const BlockRules &rules,
                        unsigned rounds)
{
	char what[200];
	std::vector<RegWord> words = reg_words(blk);
	std::set<uint32_t> covered = {SB_BLK_TYPE, SB_BLK_VERSION, SB_BLK_NEXT};

	TB_EQ(reg_read(b, SB_BLK_TYPE), blk->type, "TYPE");
	TB_EQ(reg_read(b, SB_BLK_VERSION), blk->version, "VERSION");
	TB_EQ(reg_read(b, SB_BLK_NEXT), rules.next, "NEXT");
	for (const RegWord &rw : words) {
		covered.insert(rw.off);
		if (rules.volatile_regs.count(rw.reg->name))
			continue;
		snprintf(what, sizeof(what), "%s.%s[%u] word %u reset value", blk->name,
		         rw.reg->name, rw.elem, rw.word);
		TB_EQ(reg_read(b, rw.off), reset_word(rw, rules), what);
	}
	std::vector<uint32_t> holes;
	for (uint32_t off = 0; off < blk->size; off += 4)
		if (!covered.count(off))
			holes.push_back(off);
	for (uint32_t off : holes) {
		snprintf(what, sizeof(what), "%s hole 0x%x reads 0", blk->name, off);
		TB_EQ(reg_read(b, off), 0, what);
	}

	for (unsigned round = 0; round < rounds; round++) {
		for (const RegWord &rw : words) {
			if (rules.volatile_regs.count(rw.reg->name))
				continue;
			unsigned w = rw.word;
			auto av = rules.avoid.find(rw.reg->name);
			uint32_t avoid =
			    rw.reg->pulse_mask[w] | (av != rules.avoid.end() ? av->second : 0);
			uint32_t before = reg_read(b, rw.off);
			uint32_t v = (uint32_t)b.rng.u64() & ~avoid;
			uint32_t strb = rand_strb(b.rng);
			uint32_t store = rw.reg->write_mask[w] & ~rw.reg->pulse_mask[w];
			uint32_t expect = (before & ~store) | (wmerge(before, v, strb) & store);
			expect &= ~(wones(v, strb) & rw.reg->w1c_mask[w]);
			if (rw.reg->access == SB_ACC_WO)
				expect = 0;
			reg_write(b, rw.off, v, strb);
			snprintf(what, sizeof(what),
			         "%s.%s[%u] word %u: write 0x%08x strobes 0x%x over 0x%08x",
			         blk->name, rw.reg->name, rw.elem, w, v, strb, before);
			TB_EQ(reg_read(b, rw.off), expect, what);
		}
		for (int i = 0; i < 8 && !holes.empty(); i++) {
			uint32_t off = holes[b.rng.range(0, (uint32_t)holes.size() - 1)];
			reg_write(b, off, (uint32_t)b.rng.u64(), 0xF);
			snprintf(what, sizeof(what), "%s hole 0x%x still reads 0", blk->name, off);
			TB_EQ(reg_read(b, off), 0, what);
		}
	}
}

/*
 * A write with the block deselected (another block's access) changes nothing: every
 * non-volatile register reads what it read before.
 */
template <class B>
void check_deselected(B &b, const struct sb_regmap_block *blk, const BlockRules &rules)
{
	std::vector<RegWord> words = reg_words(blk);
	std::vector<uint32_t> before;
	char what[200];

	for (const RegWord &rw : words)
		before.push_back(reg_read(b, rw.off));
	for (const RegWord &rw : words) {
		auto av = rules.avoid.find(rw.reg->name);
		uint32_t avoid = av != rules.avoid.end() ? av->second : 0;
		/* Even pulse bits: a deselected block must not react. */
		b.bus(false, rw.off, true, false, (uint32_t)b.rng.u64() & ~avoid, 0xF);
		b.step();
	}
	b.bus(false, 0, false, false, 0, 0);
	for (size_t i = 0; i < words.size(); i++) {
		if (rules.volatile_regs.count(words[i].reg->name))
			continue;
		snprintf(what, sizeof(what), "%s.%s[%u] word %u after deselected writes", blk->name,
		         words[i].reg->name, words[i].elem, words[i].word);
		TB_EQ(reg_read(b, words[i].off), before[i], what);
	}
}

} /* namespace tb */

#endif /* SB_TB_REGS_H */
