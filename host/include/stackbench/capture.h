/* SPDX-License-Identifier: MIT */
/*
 * Trace capture on a board: program the trace block, drain it while the ports run, and write
 * what it recorded as an sbt trace (docs/trace-format.md) that the analysis reads like any
 * other. Everything goes through the device API: the on-chip buffer is read by register
 * polling (rd_index / rd_data, emptied with rd_release) on every transport; with
 * SB_CAPTURE_DMA the board writes records into a host ring (sb_device_dma_alloc: the kernel
 * module's trace buffer on dev:, a model DMA window on sim:) and trace_ready events pace the
 * drain.
 *
 * The trace: one record per request (issue time in user-clock cycles since the capture
 * started, the port as the issuing unit, the address in bytes, the size, read or write, the
 * latency in cycles, the burst as the sample id), sorted by time; subpartitions are the cube's
 * vaults ("vault0".."vault15") or, on request, its banks ("vault3.bank7"), decoded from the
 * address-mapping mode the cube was in. The description carries the capture (burst and gap
 * settings, the accesses the board executed over the same interval from its own counters, what
 * was captured and what was lost — never hidden) and provenance attributes (board identity,
 * register-map hash, device URI, address mapping, capture settings, ports).
 *
 *   sb_capture_open(&cap, dev, &cfg, "t.sbt");
 *   sb_capture_start(cap);                  before the ports start
 *   ... sb_capture_poll(cap) at least every sb_capture_poll_interval_ns(cap) of bench time ...
 *   sb_capture_stop(cap, executed, "gups_port");  after the ports drained
 *   sb_capture_close(cap, &stats);          (sb_capture_abort(cap) on an error)
 *
 * sb_point_run() does this when its spec names a capture (stackbench point --trace).
 *
 * On an HBM2 card (an hbm_card block) the same trace block records AXI bursts
 * (hbm_trace_record) in AXI-clock cycles, and the subpartitions are its pseudo channels
 * ("pc0".."pc31"); sb_hbm_point_capture() captures an HBM2 point.
 */
#ifndef STACKBENCH_CAPTURE_H
#define STACKBENCH_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackbench/device.h"
#include "stackbench/pattern.h"

#ifdef __cplusplus
extern "C" {
#endif

enum sb_capture_path {
	SB_CAPTURE_AUTO = 0,   /* DMA on dev:, and for gapless captures wherever the transport has
	                          DMA; else (and when DMA setup fails) the on-chip buffer */
	SB_CAPTURE_ONCHIP = 1, /* register polling of the on-chip buffer */
	SB_CAPTURE_DMA = 2,    /* the board writes a host ring (sb_device_dma_alloc) */
};

#define SB_CAPTURE_DEFAULT_BURST 1024
#define SB_CAPTURE_DEFAULT_GAP 15360 /* cycles: about 1/16 of the requests at one per cycle */

struct sb_capture_config {
	uint32_t burst_records; /* records per burst (trace.burst_len); 0: one endless burst */
	uint32_t gap_cycles;    /* user-clock cycles without recording between bursts */
	uint32_t port_mask;     /* ports whose requests are recorded; 0: every port */
	bool banks;             /* subpartitions per bank instead of per vault */
	enum sb_capture_path path;
	size_t dma_bytes; /* host ring for SB_CAPTURE_DMA (0: 1 MiB, or the module's buffer) */
};

/* Defaults: 1024-record bursts, a 15360-cycle gap, every port, vaults, automatic path. */
void sb_capture_config_init(struct sb_capture_config *c);

/*
 * Parse a port list "0,2,5-8" into a mask (ports below 32). SB_ERR_INVAL naming the bad item.
 */
int sb_capture_parse_ports(const char *list, uint32_t *mask);

/* One trace_record (an AC-510) or hbm_trace_record (an HBM2 card) as the board wrote it
 * (docs/regmap.md). */
struct sb_capture_rec {
	uint64_t cycle; /* issue time, user-clock (AXI-clock) cycles since power-up */
	uint64_t addr;  /* 34-bit byte address */
	uint32_t latency;
	uint32_t sample_id, seq;
	uint16_t bytes; /* 16 x flits; HBM2: 32 x beats */
	uint8_t write;
	uint8_t flits; /* HBM2: beats (1..16) */
	uint8_t tag;   /* HBM2: the AXI ID */
	uint8_t port;
	uint8_t errstat; /* HBM2: RRESP / BRESP */
};

/*
 * Decode the 8 words of a trace_record (a pure function). Returns 0, or SB_ERR_PARSE when the
 * check word does not match (an incomplete or overwritten record) or flits is outside 1..8.
 */
int sb_capture_decode(const uint32_t words[8], struct sb_capture_rec *r);

/* The same for an hbm_trace_record: SB_ERR_PARSE for a bad check word or beats outside 1..16. */
int sb_capture_decode_hbm(const uint32_t words[8], struct sb_capture_rec *r);

/* Vault and bank of a byte address under the cube's address mapping (hmc-facts §3). */
void sb_capture_map(const struct sb_geometry *g, uint64_t addr, unsigned *vault, unsigned *bank);

/* What a capture did. */
struct sb_capture_stats {
	uint64_t records;     /* in the trace */
	uint64_t captured;    /* records the board took (written + dropped) */
	uint64_t dropped;     /* dropped by the board (buffer full / ring overrun) */
	uint64_t corrupt;     /* records whose check word failed (counted as lost) */
	uint64_t late;        /* records older than the reorder window allowed (lost) */
	uint64_t bursts;      /* bursts begun */
	uint64_t lost_bursts; /* bursts during which records were lost (an upper bound) */
	uint64_t executed;    /* accesses executed over the capture, from the board's counters */
	uint64_t polls;       /* drains */
	uint64_t cycles;      /* length of the captured interval */
	enum sb_capture_path path;
	uint32_t port_mask; /* ports recorded */
	double density;     /* records / executed (0 when nothing executed) */
};

struct sb_capture;

/*
 * Prepare a capture on dev into path (sbt, written atomically when closed). Reads the board's
 * identity and the cube's address mapping. Returns 0, SB_ERR_NOT_FOUND (no trace block),
 * SB_ERR_INVAL (bad configuration, detail says which), SB_ERR_NOT_SUPPORTED (DMA asked for and
 * the transport has no DMA buffer), SB_ERR_IO / SB_ERR_NOMEM / device errors.
 */
int sb_capture_open(struct sb_capture **cap, struct sb_device *dev,
                    const struct sb_capture_config *cfg, const char *path);

/* Reset and program the trace block and enable it; time 0 of the trace is now. */
int sb_capture_start(struct sb_capture *cap);

/*
 * Drain what the board holds now and write the records that can no longer be preceded by
 * later ones. Returns the records drained (>= 0) or a device / I/O error.
 */
int sb_capture_poll(struct sb_capture *cap);

/* Bench time after which the capture should be polled again, adapted to the record rate. */
uint64_t sb_capture_poll_interval_ns(const struct sb_capture *cap);

/*
 * Let up to ns of bench time pass: with DMA and events, until the board reports a completed
 * burst (irq trace_ready); otherwise sb_device_wait_ns(). Returns 0 or the device's error.
 */
int sb_capture_wait(struct sb_capture *cap, uint64_t ns);

/*
 * Stop recording, drain the rest and write the capture description: executed is the number
 * of accesses the recorded ports executed over the capture (their counters), executed_by names
 * where it comes from (an attribute). Returns 0 or an error.
 */
int sb_capture_stop(struct sb_capture *cap, uint64_t executed, const char *executed_by);

/* Finish the file and free the capture; stats (may be NULL) gets what it did. */
int sb_capture_close(struct sb_capture *cap, struct sb_capture_stats *stats);

/* Give up: disable capture on the board, remove the unfinished file, free. NULL is ignored. */
void sb_capture_abort(struct sb_capture *cap);

/* The stats so far. */
void sb_capture_get_stats(const struct sb_capture *cap, struct sb_capture_stats *stats);

/* The port mask the capture records (the configuration's, limited to the board's ports). */
uint32_t sb_capture_port_mask(const struct sb_capture *cap);

/*
 * An HBM2 point (sb_hbm_point_run, stackbench/hbm.h) captured by cap (opened on dev by
 * sb_capture_open, not started): starts the capture, runs the point while the device's wait
 * hook drains the board, and stops the capture with the bursts the recorded ports issued as
 * executed. The records are AXI bursts, their subpartitions the pseudo channels (pc0..). The
 * caller closes the capture (sb_capture_close), or aborts it on an error.
 */
struct sb_hbm_spec;
struct sb_hbm_result;
int sb_hbm_point_capture(struct sb_device *dev, const struct sb_hbm_spec *s, struct sb_capture *cap,
                         struct sb_hbm_result *r);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_CAPTURE_H */
