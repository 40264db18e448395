/* SPDX-License-Identifier: MIT */
/*
 * An HBM2 card through the device API (stackbench/hbm.h): the hbm_card block, and a point of
 * the hbm_port traffic engines. Offsets and fields come from the generated register map; the
 * blocks are found by type, so this is the same code on a card's BAR and on sim:u280.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_regmap.h"
#include "stackbench/error.h"
#include "stackbench/hbm.h"
#include "stackbench/util.h"

#define IDLE_TIMEOUT_NS 1000000ull /* a stopped port drains its bursts well inside 1 ms */
#define IDLE_POLL_NS 1000ull
/* the latency classes' limits after reset (the map's) */
#define HIT_MAX0 SB_FIELD_GET(SB_HBM_PORT_LAT_CLASS_HIT_MAX, SB_HBM_PORT_LAT_CLASS_RESET)
#define CLOSED_MAX0 SB_FIELD_GET(SB_HBM_PORT_LAT_CLASS_CLOSED_MAX, SB_HBM_PORT_LAT_CLASS_RESET)

static const char *const rw_names[] = {"read", "write", "mix"};
static const char *const map_names[] = {"rbc_bgi", "rbc", "brc", "rcb"};

bool sb_hbm_is_card(struct sb_device *dev)
{
	uint32_t off;

	return sb_device_find_block(dev, SB_BLK_HBM_CARD_TYPE, 0, &off) == 0;
}

static struct sb_hbm_mc mc_from_word(uint32_t v)
{
	return (struct sb_hbm_mc){
	    .addr_map = SB_FIELD_GET(SB_HBM_CARD_MC_CONFIG_ADDR_MAP, v),
	    .closed_page = SB_FIELD_GET(SB_HBM_CARD_MC_CONFIG_PAGE, v),
	    .reorder = SB_FIELD_GET(SB_HBM_CARD_MC_CONFIG_REORDER, v),
	    .refresh = SB_FIELD_GET(SB_HBM_CARD_MC_CONFIG_REFRESH, v),
	    .temp_refresh = SB_FIELD_GET(SB_HBM_CARD_MC_CONFIG_TEMP_REFRESH, v),
	};
}

int sb_hbm_card_read(struct sb_device *dev, struct sb_hbm_card *c)
{
	uint32_t off, sim, engine, geom, feat, mc, temp, clk;
	int err;

	memset(c, 0, sizeof(*c));
	if (sb_device_find_block(dev, SB_BLK_HBM_CARD_TYPE, 0, &off) < 0)
		return sb_error_set(
		    SB_ERR_NOT_FOUND,
		    "'%s' is not an HBM2 card (no hbm_card block in its register map)",
		    sb_device_uri(dev));
	if ((err = sb_device_read32(dev, off + SB_HBM_CARD_BOARD_ID, &c->board_id)) < 0 ||
	    (err = sb_device_read32(dev, off + SB_HBM_CARD_ENGINE, &engine)) < 0 ||
	    (err = sb_device_read32(dev, off + SB_HBM_CARD_GEOMETRY, &geom)) < 0 ||
	    (err = sb_device_read32(dev, off + SB_HBM_CARD_AXI_CLOCK_HZ, &clk)) < 0)
		return err;
	c->axi_clock_hz = clk;
	if ((err = sb_device_read32(dev, off + SB_HBM_CARD_HBM_CLOCK_HZ, &clk)) < 0 ||
	    (err = sb_device_read32(dev, off + SB_HBM_CARD_FEATURES, &feat)) < 0 ||
	    (err = sb_device_read32(dev, off + SB_HBM_CARD_MC_CONFIG, &mc)) < 0 ||
	    (err = sb_device_read32(dev, off + SB_HBM_CARD_HBM_TEMP, &temp)) < 0 ||
	    (err = sb_device_read32(dev, off + SB_HBM_CARD_SERIAL, &c->serial)) < 0)
		return err;
	c->hbm_clock_hz = clk;
	c->engine_kind = SB_FIELD_GET(SB_HBM_CARD_ENGINE_KIND, engine);
	c->stacks = SB_FIELD_GET(SB_HBM_CARD_ENGINE_STACKS, engine);
	c->data_bytes = SB_FIELD_GET(SB_HBM_CARD_ENGINE_DATA_BYTES, engine);
	c->ports = sb_device_count_blocks(dev, SB_BLK_HBM_PORT_TYPE);
	c->pcs = SB_FIELD_GET(SB_HBM_CARD_GEOMETRY_PCS, geom);
	c->banks_per_pc = SB_FIELD_GET(SB_HBM_CARD_GEOMETRY_BANKS_PER_PC, geom);
	c->bank_groups = SB_FIELD_GET(SB_HBM_CARD_GEOMETRY_BANK_GROUPS, geom);
	c->pc_mb = SB_FIELD_GET(SB_HBM_CARD_GEOMETRY_PC_MB, geom);
	c->simulated = SB_FIELD_GET(SB_HBM_CARD_FEATURES_SIMULATED, feat);
	c->global_addressing = SB_FIELD_GET(SB_HBM_CARD_FEATURES_GLOBAL_ADDRESSING, feat);
	c->check = SB_FIELD_GET(SB_HBM_CARD_FEATURES_CHECK, feat);
	c->has_sim = sb_device_find_block(dev, SB_BLK_HBM_SIM_TYPE, 0, &sim) == 0;
	c->mc = mc_from_word(mc);
	c->stack_c[0] = SB_FIELD_GET(SB_HBM_CARD_HBM_TEMP_STACK0_C, temp);
	c->stack_c[1] = SB_FIELD_GET(SB_HBM_CARD_HBM_TEMP_STACK1_C, temp);
	c->cattrip = SB_FIELD_GET(SB_HBM_CARD_HBM_TEMP_CATTRIP, temp);
	if (c->engine_kind != SB_HBM_CARD_ENGINE_KIND_HBM2_AXI)
		return sb_error_set(SB_ERR_NOT_SUPPORTED,
		                    "'%s': HBM2 engine kind %u is not one this host knows (1: "
		                    "hbm2_axi)",
		                    sb_device_uri(dev), c->engine_kind);
	if (!c->ports || c->ports > SB_HBM_MAX_PORTS || !c->axi_clock_hz || !c->pc_mb || !c->stacks)
		return sb_error_set(SB_ERR_DEVICE,
		                    "'%s': the HBM2 card describes %u ports, %u stacks, %u MB per "
		                    "PC at %llu Hz: not a card this host can use",
		                    sb_device_uri(dev), c->ports, c->stacks, c->pc_mb,
		                    (unsigned long long)c->axi_clock_hz);
	return 0;
}

/* ---- names ---- */

static int parse_name(const char *s, const char *const *names, unsigned n, const char *what,
                      unsigned *out)
{
	char choices[128] = "";
	size_t len = 0;

	for (unsigned i = 0; i < n; i++)
		if (s && !strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	for (unsigned i = 0; i < n && len < sizeof(choices); i++)
		len += (size_t)snprintf(choices + len, sizeof(choices) - len, "%s%s", i ? ", " : "",
		                        names[i]);
	return sb_error_set(SB_ERR_INVAL, "%s '%s': expected one of %s", what, s ? s : "", choices);
}

const char *sb_hbm_rw_name(enum sb_hbm_rw rw)
{
	return (unsigned)rw < SB_ARRAY_SIZE(rw_names) ? rw_names[rw] : "?";
}

int sb_hbm_rw_parse(const char *s, enum sb_hbm_rw *rw)
{
	unsigned v = 0;
	int err = parse_name(s, rw_names, SB_ARRAY_SIZE(rw_names), "HBM2 operation", &v);

	if (err == 0)
		*rw = (enum sb_hbm_rw)v;
	return err;
}

const char *sb_hbm_map_text(unsigned map)
{
	return map < SB_ARRAY_SIZE(map_names) ? map_names[map] : "?";
}

int sb_hbm_map_parse(const char *s, unsigned *map)
{
	return parse_name(s, map_names, SB_ARRAY_SIZE(map_names), "address map (policy)", map);
}

int sb_hbm_page_parse(const char *s, bool *closed)
{
	static const char *const names[] = {"open", "closed"};
	unsigned v = 0;
	int err = parse_name(s, names, 2, "page policy", &v);

	if (err == 0)
		*closed = v == 1;
	return err;
}

int sb_hbm_refresh_parse(const char *s, unsigned *refresh)
{
	static const char *const names[] = {"all_bank", "single_bank"};

	return parse_name(s, names, 2, "refresh mode", refresh);
}

int sb_hbm_target_parse(const char *s, struct sb_hbm_target *t)
{
	uint64_t k;

	if (!strcmp(s, "local")) {
		*t = (struct sb_hbm_target){SB_HBM_TARGET_LOCAL, 0};
		return 0;
	}
	if (!strcmp(s, "stack")) {
		*t = (struct sb_hbm_target){SB_HBM_TARGET_STACK, 0};
		return 0;
	}
	if (!strncmp(s, "shift", 5) && s[5] &&
	    sb_parse_u64(s + 5, "target shift", false, &k) == 0 && k >= 1 && k <= 15) {
		*t = (struct sb_hbm_target){SB_HBM_TARGET_SHIFT, (unsigned)k};
		return 0;
	}
	sb_error_clear();
	return sb_error_set(SB_ERR_INVAL,
	                    "target '%s': expected local (each port its own pseudo channel), "
	                    "shiftN (port i to PC i+N of its stack, N 1..15) or stack",
	                    s);
}

const char *sb_hbm_target_text(const struct sb_hbm_target *t, char *buf, size_t size)
{
	if (t->kind == SB_HBM_TARGET_SHIFT)
		snprintf(buf, size, "shift%u", t->shift);
	else
		snprintf(buf, size, "%s", t->kind == SB_HBM_TARGET_STACK ? "stack" : "local");
	return buf;
}

int sb_hbm_port_set_parse(const char *s, unsigned max, uint32_t *mask)
{
	const char *p = s;

	*mask = 0;
	if (!*p)
		return sb_error_set(SB_ERR_INVAL, "port set '': expected e.g. 0-3,8");
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi;

		if (end == p || *p == '-' || *p == '+')
			goto bad;
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				goto bad;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (lo > hi || hi >= max || hi >= SB_HBM_MAX_PORTS)
			return sb_error_set(
			    SB_ERR_INVAL, "port set '%s': ports %lu-%lu (the card has ports 0-%u)",
			    s, lo, hi, max - 1);
		for (unsigned long i = lo; i <= hi; i++)
			*mask |= 1u << i;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	return 0;
bad:
	return sb_error_set(SB_ERR_INVAL, "port set '%s': expected a list like 0-3,8,12-15", s);
}

/* ---- a point ---- */

void sb_hbm_spec_init(struct sb_hbm_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->rw = SB_HBM_RW_READ;
	s->mix_writes = 128;
	s->burst = 512;
	s->outstanding = 64;
	s->addr_map = s->closed_page = s->refresh = -1;
	s->warmup_ns = 20000;
	s->duration_ns = 200000;
	s->seed = 1;
}

static int check_spec(const struct sb_hbm_spec *s, const struct sb_hbm_card *c)
{
	if (s->burst < 32 || s->burst > 4096 || s->burst % 32)
		return sb_error_set(SB_ERR_INVAL, "burst %u B: expected 32..4096 in steps of 32",
		                    s->burst);
	if (s->stride % 32 || s->stride > (1u << 30))
		return sb_error_set(SB_ERR_INVAL, "stride %u B: expected a multiple of 32",
		                    s->stride);
	if (s->outstanding < 1 || s->outstanding > 64)
		return sb_error_set(SB_ERR_INVAL, "outstanding %u: expected 1..64", s->outstanding);
	if (s->mix_writes > 256)
		return sb_error_set(SB_ERR_INVAL, "mix %u: expected 0..256 writes per 256",
		                    s->mix_writes);
	if ((unsigned)s->rw > SB_HBM_RW_MIX)
		return sb_error_set(SB_ERR_INVAL, "bad operation %d", (int)s->rw);
	if (!s->duration_ns)
		return sb_error_set(SB_ERR_INVAL, "a point needs a measurement window (duration)");
	if (c->ports < 32 && s->port_mask >> c->ports)
		return sb_error_set(SB_ERR_INVAL, "port set 0x%x: the card has %u ports",
		                    s->port_mask, c->ports);
	if (s->target.kind == SB_HBM_TARGET_SHIFT && (s->target.shift < 1 || s->target.shift > 15))
		return sb_error_set(SB_ERR_INVAL, "target shift %u: expected 1..15",
		                    s->target.shift);
	if (s->target.kind != SB_HBM_TARGET_LOCAL && !c->global_addressing)
		return sb_error_set(
		    SB_ERR_MISMATCH,
		    "target other than local: the card's controller was built "
		    "without global addressing (its ports reach only their own PC)");
	if (s->temp_c < 0 || s->temp_c > 127)
		return sb_error_set(SB_ERR_INVAL, "temperature %.1f C: expected 0..127", s->temp_c);
	if (s->hit_max > 0xFFFF || s->closed_max > 0xFFFF || s->hist_base > 0xFFFF ||
	    s->hist_shift > 15)
		return sb_error_set(SB_ERR_INVAL,
		                    "latency class or histogram setting out of range");
	return 0;
}

/* The controller setting the point asks for, on the simulated card's hbm_sim block; a card
 * (no hbm_sim) runs what its bitstream was built with, which must be what is asked. */
static int set_controller(struct sb_device *dev, const struct sb_hbm_spec *s,
                          const struct sb_hbm_card *c)
{
	struct sb_hbm_mc want = c->mc;
	uint32_t sim, v;
	int err;

	if (s->addr_map >= 0)
		want.addr_map = (unsigned)s->addr_map;
	if (s->closed_page >= 0)
		want.closed_page = s->closed_page;
	if (s->refresh >= 0)
		want.refresh = (unsigned)s->refresh;
	if (want.addr_map > 3 || want.refresh > 1)
		return sb_error_set(SB_ERR_INVAL, "address map %u / refresh %u out of range",
		                    want.addr_map, want.refresh);
	if (!c->has_sim) {
		if (memcmp(&want, &c->mc, sizeof(want)))
			return sb_error_set(
			    SB_ERR_MISMATCH,
			    "'%s': the card's controller runs address map %s, %s "
			    "page, %s refresh (fixed when its bitstream was built); "
			    "the point asks for %s, %s page, %s refresh",
			    sb_device_uri(dev), sb_hbm_map_text(c->mc.addr_map),
			    c->mc.closed_page ? "closed" : "open",
			    c->mc.refresh ? "single-bank" : "all-bank",
			    sb_hbm_map_text(want.addr_map), want.closed_page ? "closed" : "open",
			    want.refresh ? "single-bank" : "all-bank");
		if (s->temp_c > 0)
			return sb_error_set(SB_ERR_MISMATCH,
			                    "'%s': a card's stack temperature is measured, not set "
			                    "(only the simulated card takes a temperature)",
			                    sb_device_uri(dev));
		return 0;
	}
	sb_device_find_block(dev, SB_BLK_HBM_SIM_TYPE, 0, &sim);
	if ((err = sb_device_read32(dev, sim + SB_HBM_SIM_MC_CONFIG, &v)) < 0)
		return err;
	v &= ~(SB_HBM_SIM_MC_CONFIG_ADDR_MAP_MASK | SB_HBM_SIM_MC_CONFIG_PAGE_MASK |
	       SB_HBM_SIM_MC_CONFIG_REFRESH_MASK);
	v |= SB_FIELD_PREP(SB_HBM_SIM_MC_CONFIG_ADDR_MAP, want.addr_map) |
	     SB_FIELD_PREP(SB_HBM_SIM_MC_CONFIG_PAGE, want.closed_page) |
	     SB_FIELD_PREP(SB_HBM_SIM_MC_CONFIG_REFRESH, want.refresh);
	if ((err = sb_device_write32(dev, sim + SB_HBM_SIM_MC_CONFIG, v)) < 0)
		return err;
	return sb_device_write32(dev, sim + SB_HBM_SIM_TEMP_C, (uint32_t)(s->temp_c + 0.5));
}

/* Start address and working set of port i for the target. */
static void place(const struct sb_hbm_spec *s, const struct sb_hbm_card *c, unsigned i,
                  uint64_t *start, uint64_t *ws, unsigned *pc)
{
	unsigned per_stack = c->pcs / c->stacks ? c->pcs / c->stacks : 1;
	unsigned stack = i / per_stack, local = i % per_stack;
	uint64_t pc_bytes = (uint64_t)c->pc_mb << 20;
	uint64_t stack_bytes = pc_bytes * per_stack;
	/* the stack-select bit is the first above a stack's bytes ([PG276] Table 2) */
	uint64_t base = (uint64_t)stack * stack_bytes;

	*start = base;
	*ws = s->ws ? s->ws : stack_bytes;
	switch (s->target.kind) {
	case SB_HBM_TARGET_SHIFT:
		local = (local + s->target.shift) % per_stack;
		/* fall through */
	case SB_HBM_TARGET_LOCAL:
		*start = base + (uint64_t)local * pc_bytes;
		*ws = s->ws ? s->ws : pc_bytes;
		break;
	case SB_HBM_TARGET_STACK:
		local = 0;
		break;
	}
	*pc = stack * per_stack + local;
}

static int program_port(struct sb_device *dev, uint32_t b, const struct sb_hbm_spec *s,
                        uint64_t start, uint64_t ws, unsigned i)
{
	uint32_t ctl = SB_FIELD_PREP(SB_HBM_PORT_CONTROL_OP, s->rw) |
	               SB_FIELD_PREP(SB_HBM_PORT_CONTROL_MODE, s->random) |
	               SB_FIELD_PREP(SB_HBM_PORT_CONTROL_CHECK, s->check);
	uint32_t lat =
	    SB_FIELD_PREP(SB_HBM_PORT_LAT_CLASS_HIT_MAX, s->hit_max ? s->hit_max : HIT_MAX0) |
	    SB_FIELD_PREP(SB_HBM_PORT_LAT_CLASS_CLOSED_MAX,
	                  s->closed_max ? s->closed_max : CLOSED_MAX0);
	uint32_t hist = SB_HBM_PORT_HIST_CFG_RESET;
	int err;

	if (s->hist_base || s->hist_shift)
		hist = SB_FIELD_PREP(SB_HBM_PORT_HIST_CFG_BASE, s->hist_base) |
		       SB_FIELD_PREP(SB_HBM_PORT_HIST_CFG_SHIFT, s->hist_shift);
	if ((err = sb_device_write32(dev, b + SB_HBM_PORT_CONTROL, 0)) < 0 ||
	    (err = sb_device_write32(dev, b + SB_HBM_PORT_BURST_BYTES, s->burst)) < 0 ||
	    (err = sb_device_write32(dev, b + SB_HBM_PORT_STRIDE,
	                             s->stride ? s->stride : s->burst)) < 0 ||
	    (err = sb_device_write32(dev, b + SB_HBM_PORT_OUTSTANDING, s->outstanding)) < 0 ||
	    (err = sb_device_write32(dev, b + SB_HBM_PORT_MIX_WRITES, s->mix_writes)) < 0 ||
	    (err = sb_device_write64(dev, b + SB_HBM_PORT_START_ADDR, start)) < 0 ||
	    (err = sb_device_write64(dev, b + SB_HBM_PORT_WS_SIZE, ws)) < 0 ||
	    (err = sb_device_write64(dev, b + SB_HBM_PORT_RUN_LEN, 0)) < 0 ||
	    (err = sb_device_write32(dev, b + SB_HBM_PORT_SEED, s->seed * 0x9E3779B1u + i)) < 0 ||
	    (err = sb_device_write32(dev, b + SB_HBM_PORT_LAT_CLASS, lat)) < 0 ||
	    (err = sb_device_write32(dev, b + SB_HBM_PORT_HIST_CFG, hist)) < 0)
		return err;
	return sb_device_write32(dev, b + SB_HBM_PORT_CONTROL, ctl);
}

/* The counters a window is the difference of. */
struct snap {
	uint64_t txns, rd_bytes, wr_bytes, rd_sum, rd_cnt, wr_sum, wr_cnt;
	uint32_t cls[3], hist[SB_HBM_HIST_BINS];
};

static int snapshot(struct sb_device *dev, uint32_t b, struct snap *n)
{
	static const uint32_t cls[3] = {SB_HBM_PORT_CLS_HIT, SB_HBM_PORT_CLS_CLOSED,
	                                SB_HBM_PORT_CLS_MISS};
	int err;

	if ((err = sb_device_read64(dev, b + SB_HBM_PORT_TXNS, &n->txns)) < 0 ||
	    (err = sb_device_read64(dev, b + SB_HBM_PORT_RD_BYTES, &n->rd_bytes)) < 0 ||
	    (err = sb_device_read64(dev, b + SB_HBM_PORT_WR_BYTES, &n->wr_bytes)) < 0 ||
	    (err = sb_device_read64(dev, b + SB_HBM_PORT_RD_LAT_SUM, &n->rd_sum)) < 0 ||
	    (err = sb_device_read64(dev, b + SB_HBM_PORT_RD_LAT_COUNT, &n->rd_cnt)) < 0 ||
	    (err = sb_device_read64(dev, b + SB_HBM_PORT_WR_LAT_SUM, &n->wr_sum)) < 0 ||
	    (err = sb_device_read64(dev, b + SB_HBM_PORT_WR_LAT_COUNT, &n->wr_cnt)) < 0)
		return err;
	for (unsigned k = 0; k < 3; k++)
		if ((err = sb_device_read32(dev, b + cls[k], &n->cls[k])) < 0)
			return err;
	for (unsigned k = 0; k < SB_HBM_HIST_BINS; k++)
		if ((err = sb_device_read32(dev, b + SB_HBM_PORT_HIST(k), &n->hist[k])) < 0)
			return err;
	return 0;
}

static int finish_port(struct sb_device *dev, uint32_t b, const struct snap *a,
                       const struct snap *z, uint64_t window_ns, struct sb_hbm_port_result *p)
{
	uint32_t ids;
	int err;

	p->txns = z->txns - a->txns;
	p->rd_bytes = z->rd_bytes - a->rd_bytes;
	p->wr_bytes = z->wr_bytes - a->wr_bytes;
	p->rd_lat_sum = z->rd_sum - a->rd_sum;
	p->rd_lat_count = z->rd_cnt - a->rd_cnt;
	p->wr_lat_sum = z->wr_sum - a->wr_sum;
	p->wr_lat_count = z->wr_cnt - a->wr_cnt;
	p->cls_hit = z->cls[0] - a->cls[0];
	p->cls_closed = z->cls[1] - a->cls[1];
	p->cls_miss = z->cls[2] - a->cls[2];
	for (unsigned k = 0; k < SB_HBM_HIST_BINS; k++)
		p->hist[k] = z->hist[k] - a->hist[k];
	p->gbps = window_ns ? (double)(p->rd_bytes + p->wr_bytes) / (double)window_ns : 0;
	if ((err = sb_device_read32(dev, b + SB_HBM_PORT_RD_LAT_MIN, &p->rd_lat_min)) < 0 ||
	    (err = sb_device_read32(dev, b + SB_HBM_PORT_RD_LAT_MAX, &p->rd_lat_max)) < 0 ||
	    (err = sb_device_read32(dev, b + SB_HBM_PORT_WR_LAT_MIN, &p->wr_lat_min)) < 0 ||
	    (err = sb_device_read32(dev, b + SB_HBM_PORT_WR_LAT_MAX, &p->wr_lat_max)) < 0 ||
	    (err = sb_device_read32(dev, b + SB_HBM_PORT_ERRORS, &p->errors)) < 0 ||
	    (err = sb_device_read32(dev, b + SB_HBM_PORT_MISMATCHES, &p->mismatches)) < 0 ||
	    (err = sb_device_read32(dev, b + SB_HBM_PORT_IDS, &ids)) < 0)
		return err;
	p->ids_peak = SB_FIELD_GET(SB_HBM_PORT_IDS_PEAK, ids);
	return 0;
}

/* Stop the ports of mask in one cycle and wait until none has a burst in flight. */
static int stop_ports(struct sb_device *dev, uint32_t card, uint32_t mask, const uint32_t *blk)
{
	uint64_t waited = 0;
	int err;

	if ((err = sb_device_write32(dev, card + SB_HBM_CARD_START_MASK, mask)) < 0 ||
	    (err = sb_device_write32(dev, card + SB_HBM_CARD_CONTROL,
	                             SB_HBM_CARD_CONTROL_STOP_MASK)) < 0)
		return err;
	for (;;) {
		bool idle = true;

		for (unsigned i = 0; i < SB_HBM_MAX_PORTS && idle; i++) {
			uint32_t st;

			if (!(mask >> i & 1))
				continue;
			if ((err = sb_device_read32(dev, blk[i] + SB_HBM_PORT_STATUS, &st)) < 0)
				return err;
			idle = st & SB_HBM_PORT_STATUS_IDLE_MASK;
		}
		if (idle)
			return 0;
		if (waited >= IDLE_TIMEOUT_NS)
			return sb_error_set(
			    SB_ERR_TIMEOUT,
			    "'%s': the HBM2 ports still had bursts in flight %llu us "
			    "after the stop",
			    sb_device_uri(dev), (unsigned long long)(waited / 1000));
		if ((err = sb_device_wait_ns(dev, IDLE_POLL_NS)) < 0)
			return err;
		waited += IDLE_POLL_NS;
	}
}

static void totals(struct sb_hbm_result *r, double cyc_ns)
{
	uint64_t rs = 0, rc = 0, ws = 0, wc = 0;
	uint32_t rmin = UINT32_MAX, rmax = 0, wmin = UINT32_MAX, wmax = 0;

	for (unsigned i = 0; i < r->nports; i++) {
		const struct sb_hbm_port_result *p = &r->port[i];

		r->txns += p->txns;
		r->rd_bytes += p->rd_bytes;
		r->wr_bytes += p->wr_bytes;
		r->errors += p->errors;
		r->mismatches += p->mismatches;
		r->cls_hit += p->cls_hit;
		r->cls_closed += p->cls_closed;
		r->cls_miss += p->cls_miss;
		for (unsigned k = 0; k < SB_HBM_HIST_BINS; k++)
			r->hist[k] += p->hist[k];
		rs += p->rd_lat_sum;
		rc += p->rd_lat_count;
		ws += p->wr_lat_sum;
		wc += p->wr_lat_count;
		if (p->rd_lat_count) {
			rmin = p->rd_lat_min < rmin ? p->rd_lat_min : rmin;
			rmax = p->rd_lat_max > rmax ? p->rd_lat_max : rmax;
		}
		if (p->wr_lat_count) {
			wmin = p->wr_lat_min < wmin ? p->wr_lat_min : wmin;
			wmax = p->wr_lat_max > wmax ? p->wr_lat_max : wmax;
		}
	}
	r->gbps = r->window_ns ? (double)(r->rd_bytes + r->wr_bytes) / (double)r->window_ns : 0;
	if (rc) {
		r->rd_lat_avg_ns = (double)rs / (double)rc * cyc_ns;
		r->rd_lat_min_ns = rmin * cyc_ns;
		r->rd_lat_max_ns = rmax * cyc_ns;
	}
	if (wc) {
		r->wr_lat_avg_ns = (double)ws / (double)wc * cyc_ns;
		r->wr_lat_min_ns = wmin * cyc_ns;
		r->wr_lat_max_ns = wmax * cyc_ns;
	}
}

/* The counters of the n ports from a to z, summed. */
static void window_sum(const struct snap *a, const struct snap *z, unsigned n,
                       struct sb_hbm_window *w)
{
	memset(w, 0, sizeof(*w));
	for (unsigned k = 0; k < n; k++) {
		w->txns += z[k].txns - a[k].txns;
		w->rd_bytes += z[k].rd_bytes - a[k].rd_bytes;
		w->wr_bytes += z[k].wr_bytes - a[k].wr_bytes;
		w->rd_lat_sum += z[k].rd_sum - a[k].rd_sum;
		w->rd_lat_count += z[k].rd_cnt - a[k].rd_cnt;
	}
}

/*
 * The measurement window: one wait, or with a sample hook a wait per sample_ns, the hook seeing
 * the counters so far after each (not at the window's end: the caller's last reading is the
 * window's); nonzero from it ends the window there (r->stopped). z is scratch here.
 */
static int run_window(struct sb_device *dev, const struct sb_hbm_spec *s, const uint32_t *blk,
                      struct sb_hbm_result *r, const struct snap *a, struct snap *z, uint64_t t0)
{
	uint64_t elapsed = 0, next = s->sample_ns;
	struct sb_hbm_window w;
	int err;

	if (!s->sample || !s->sample_ns)
		return sb_device_wait_ns(dev, s->duration_ns);
	for (;;) {
		uint64_t to = next < s->duration_ns ? next : s->duration_ns;

		if (to > elapsed && (err = sb_device_wait_ns(dev, to - elapsed)) < 0)
			return err;
		elapsed = sb_device_now_ns(dev) - t0;
		if (elapsed >= s->duration_ns)
			return 0;
		for (unsigned k = 0; k < r->nports; k++)
			if ((err = snapshot(dev, blk[r->port[k].port], &z[k])) < 0)
				return err;
		window_sum(a, z, r->nports, &w);
		if (s->sample(s->sample_ctx, s->warmup_ns + elapsed, &w)) {
			r->stopped = true;
			return 0;
		}
		while (next <= elapsed)
			next += s->sample_ns;
	}
}

int sb_hbm_point_run(struct sb_device *dev, const struct sb_hbm_spec *s, struct sb_hbm_result *r)
{
	struct sb_hbm_card c;
	struct snap *a = NULL, *z;
	uint32_t card, blk[SB_HBM_MAX_PORTS] = {0}, mask, temp;
	uint64_t t0 = 0, t1 = 0;
	unsigned n = 0;
	int err, err2;

	memset(r, 0, sizeof(*r));
	if ((err = sb_hbm_card_read(dev, &c)) < 0)
		return err;
	if ((err = check_spec(s, &c)) < 0)
		return err;
	mask = s->port_mask ? s->port_mask : (uint32_t)((1ull << c.ports) - 1);
	sb_device_find_block(dev, SB_BLK_HBM_CARD_TYPE, 0, &card);
	for (unsigned i = 0; i < c.ports; i++)
		if ((err = sb_device_find_block(dev, SB_BLK_HBM_PORT_TYPE, i, &blk[i])) < 0)
			return err;
	/* every port idle before the controller changes (a previous point may have left some) */
	if ((err = stop_ports(dev, card, (uint32_t)((1ull << c.ports) - 1), blk)) < 0)
		return err;
	if ((err = set_controller(dev, s, &c)) < 0)
		return err;
	for (unsigned i = 0; i < c.ports; i++) {
		uint64_t start, ws;
		unsigned pc;

		if (!(mask >> i & 1))
			continue;
		place(s, &c, i, &start, &ws, &pc);
		r->port[n].port = i;
		r->port[n].pc = pc;
		n++;
		if ((err = program_port(dev, blk[i], s, start, ws, i)) < 0)
			return err;
	}
	r->nports = n;
	a = calloc(2 * (size_t)n, sizeof(*a));
	if (!a)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for an HBM2 point");
	z = a + n;
	if ((err = sb_device_write32(dev, card + SB_HBM_CARD_START_MASK, mask)) < 0 ||
	    (err = sb_device_write32(dev, card + SB_HBM_CARD_CONTROL,
	                             SB_HBM_CARD_CONTROL_START_MASK)) < 0)
		goto out;
	if (s->warmup_ns && (err = sb_device_wait_ns(dev, s->warmup_ns)) < 0)
		goto stop;
	t0 = sb_device_now_ns(dev);
	for (unsigned k = 0; k < n; k++)
		if ((err = snapshot(dev, blk[r->port[k].port], &a[k])) < 0)
			goto stop;
	if ((err = run_window(dev, s, blk, r, a, z, t0)) < 0)
		goto stop;
	t1 = sb_device_now_ns(dev);
	for (unsigned k = 0; k < n; k++)
		if ((err = snapshot(dev, blk[r->port[k].port], &z[k])) < 0)
			goto stop;
	r->window_ns = t1 > t0 ? t1 - t0 : 0;
stop:
	err2 = stop_ports(dev, card, mask, blk);
	if (err == 0)
		err = err2;
	if (err < 0)
		goto out;
	for (unsigned k = 0; k < n; k++)
		if ((err = finish_port(dev, blk[r->port[k].port], &a[k], &z[k], r->window_ns,
		                       &r->port[k])) < 0)
			goto out;
	if ((err = sb_hbm_card_read(dev, &c)) < 0 ||
	    (err = sb_device_read32(dev, card + SB_HBM_CARD_HBM_TEMP, &temp)) < 0)
		goto out;
	r->mc = c.mc;
	r->temp_c = SB_FIELD_GET(SB_HBM_CARD_HBM_TEMP_STACK0_C, temp);
	r->axi_clock_hz = (double)c.axi_clock_hz;
	r->hit_max = s->hit_max ? s->hit_max : HIT_MAX0;
	r->closed_max = s->closed_max ? s->closed_max : CLOSED_MAX0;
	r->hist_base = s->hist_base || s->hist_shift
	                   ? s->hist_base
	                   : SB_FIELD_GET(SB_HBM_PORT_HIST_CFG_BASE, SB_HBM_PORT_HIST_CFG_RESET);
	r->hist_shift = s->hist_base || s->hist_shift
	                    ? s->hist_shift
	                    : SB_FIELD_GET(SB_HBM_PORT_HIST_CFG_SHIFT, SB_HBM_PORT_HIST_CFG_RESET);
	totals(r, 1e9 / r->axi_clock_hz);
out:
	free(a);
	return err;
}
