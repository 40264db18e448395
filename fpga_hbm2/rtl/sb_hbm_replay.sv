// SPDX-License-Identifier: MIT
/*
 * Trace replay on the HBM2 card: register block hbm_replay of the generated map (board hbm2,
 * records hbm_replay_desc). The card has no DMA engine: the host writes each descriptor through
 * desc_w0..desc_w3 (writing desc_w3 appends it) into an on-chip FIFO of FIFO_DEPTH descriptors
 * (block RAM, read one cycle after its address into the head register). While control.enable
 * is set, the dispatcher hands the head to its port's lane (sb_hbm_replay_lane, LANE_DEPTH
 * descriptors; a full lane holds the head, so FIFO order is kept per port), one descriptor per
 * cycle; a descriptor naming a port outside port_mask or the card or one whose engine is
 * running (the model's rule: the block takes over stopped ports only), more than 16 beats, or
 * a burst crossing a 4 KB boundary (AXI forbids it; the model does not check this) is skipped
 * and counted in bad. Each lane owns
 * its port's AXI3 master while enable is set and the port is in port_mask (the rule is in
 * sb_hbm_replay_lane) and issues its descriptors as single bursts.
 *
 * Counters (cleared by control.reset; bursts loaded before it complete uncounted): issued,
 * reads, writes, per-port bursts and the lag at the AR / AW handshake; latency (handshake to
 * the first R beat or B) at that response; completed, bytes, errors (a read burst with any
 * beat's RRESP nonzero counts once, at its last beat, as the engine's errors do) and end_cycle
 * at the last R beat or B. Several ports' events of one cycle are summed in that cycle.
 *
 * start_cycle is hbm_card.cycles in the cycle that control.enable goes from 0 to 1; a timed
 * descriptor's AR / AW valid rises no earlier than the cycle with cycles - start_cycle = time.
 * control.reset empties the FIFO and lanes and clears counters and status; enable and timed
 * are those of the same write, start_cycle stays (as in the model).
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_hbm_replay #(
	parameter integer N = 32,               // ports (lanes)
	parameter integer FIFO_DEPTH = 0,       // descriptors; 0 = the map's fifo_depth reset
	parameter integer LANE_DEPTH = 0,       // per port; 0 = the map's lane_depth reset
	parameter [31:0]  NEXT_OFFSET = 32'h0   // NEXT header word
) (
	input  wire            clk,
	input  wire            rst,
	input  wire [63:0]     cycles,          // hbm_card.cycles

	input  wire            reg_sel,
	input  wire [31:0]     reg_addr,
	input  wire            reg_wr_en,
	input  wire [31:0]     reg_wr_data,
	input  wire [3:0]      reg_wr_strb,
	input  wire            reg_rd_en,
	output reg  [31:0]     reg_rd_data,

	// from the ports' engines
	input  wire [N-1:0]    eng_running,     // hbm_port.status.running
	input  wire [N*64-1:0] ids_busy,
	input  wire [N*32-1:0] seed_cfg,

	// the engines' AXI3 masters (in), the ports' (out); packed port-major
	input  wire [N*34-1:0]  e_araddr,
	input  wire [N*6-1:0]   e_arid,
	input  wire [N*4-1:0]   e_arlen,
	input  wire [N*3-1:0]   e_arsize,
	input  wire [N*2-1:0]   e_arburst,
	input  wire [N-1:0]     e_arvalid,
	output wire [N-1:0]     e_arready,
	input  wire [N*34-1:0]  e_awaddr,
	input  wire [N*6-1:0]   e_awid,
	input  wire [N*4-1:0]   e_awlen,
	input  wire [N*3-1:0]   e_awsize,
	input  wire [N*2-1:0]   e_awburst,
	input  wire [N-1:0]     e_awvalid,
	output wire [N-1:0]     e_awready,
	input  wire [N*256-1:0] e_wdata,
	input  wire [N*32-1:0]  e_wstrb,
	input  wire [N*6-1:0]   e_wid,
	input  wire [N-1:0]     e_wlast,
	input  wire [N-1:0]     e_wvalid,
	output wire [N-1:0]     e_wready,
	output wire [N-1:0]     e_rvalid,
	input  wire [N-1:0]     e_rready,
	output wire [N-1:0]     e_bvalid,
	input  wire [N-1:0]     e_bready,

	output wire [N*34-1:0]  m_axi_araddr,
	output wire [N*6-1:0]   m_axi_arid,
	output wire [N*4-1:0]   m_axi_arlen,
	output wire [N*3-1:0]   m_axi_arsize,
	output wire [N*2-1:0]   m_axi_arburst,
	output wire [N-1:0]     m_axi_arvalid,
	input  wire [N-1:0]     m_axi_arready,
	output wire [N*34-1:0]  m_axi_awaddr,
	output wire [N*6-1:0]   m_axi_awid,
	output wire [N*4-1:0]   m_axi_awlen,
	output wire [N*3-1:0]   m_axi_awsize,
	output wire [N*2-1:0]   m_axi_awburst,
	output wire [N-1:0]     m_axi_awvalid,
	input  wire [N-1:0]     m_axi_awready,
	output wire [N*256-1:0] m_axi_wdata,
	output wire [N*32-1:0]  m_axi_wstrb,
	output wire [N*6-1:0]   m_axi_wid,
	output wire [N-1:0]     m_axi_wlast,
	output wire [N-1:0]     m_axi_wvalid,
	input  wire [N-1:0]     m_axi_wready,
	input  wire [N*6-1:0]   m_axi_rid,
	input  wire [N*2-1:0]   m_axi_rresp,
	input  wire [N-1:0]     m_axi_rlast,
	input  wire [N-1:0]     m_axi_rvalid,
	output wire [N-1:0]     m_axi_rready,
	input  wire [N*6-1:0]   m_axi_bid,
	input  wire [N*2-1:0]   m_axi_bresp,
	input  wire [N-1:0]     m_axi_bvalid,
	output wire [N-1:0]     m_axi_bready,

	// trace taps: the engines' (in), merged with the replayed bursts' (out)
	input  wire [N-1:0]     p_trc_r_valid,
	input  wire [N*29-1:0]  p_trc_r_blk,
	input  wire [N*5-1:0]   p_trc_r_beats,
	input  wire [N*32-1:0]  p_trc_r_lat,
	input  wire [N-1:0]     p_trc_b_valid,
	input  wire [N*29-1:0]  p_trc_b_blk,
	input  wire [N*5-1:0]   p_trc_b_beats,
	input  wire [N*32-1:0]  p_trc_b_lat,
	output wire [N-1:0]     trc_r_valid,
	output wire [N*29-1:0]  trc_r_blk,
	output wire [N*5-1:0]   trc_r_beats,
	output wire [N*32-1:0]  trc_r_lat,
	output wire [N-1:0]     trc_b_valid,
	output wire [N*29-1:0]  trc_b_blk,
	output wire [N*5-1:0]   trc_b_beats,
	output wire [N*32-1:0]  trc_b_lat
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */
`include "sb_reg_func.vh"

	localparam integer FD = (FIFO_DEPTH == 0) ? SB_HBM_REPLAY_FIFO_DEPTH_RESET : FIFO_DEPTH;
	localparam integer LD = (LANE_DEPTH == 0) ? SB_HBM_REPLAY_LANE_DEPTH_RESET : LANE_DEPTH;
	localparam integer FA = $clog2(FD);
	localparam [31:0] FD32 = FD;
	localparam [31:0] LD32 = LD;
	localparam [31:0] HI = 32'd4;
	localparam [31:0] PB_END = SB_HBM_REPLAY_PORT_BURSTS +
	                           SB_HBM_REPLAY_PORT_BURSTS_COUNT * SB_HBM_REPLAY_PORT_BURSTS_STRIDE;
	// a FIFO entry: time 48, blk 29, write 1, beats 5, port 8
	localparam integer DW = 48 + 29 + 1 + 5 + 8;

	generate
		if (FD < 2 || (1 << FA) != FD)
			$error("sb_hbm_replay: FIFO_DEPTH must be a power of two >= 2 (instance %m)");
		if (N < 1 || N > SB_HBM_REPLAY_PORT_BURSTS_COUNT)
			$error("sb_hbm_replay: N must be 1..%0d (instance %m)",
			       SB_HBM_REPLAY_PORT_BURSTS_COUNT);
		if (SB_HBM_REPLAY_PORT_BURSTS[7:0] != 8'd0 || SB_HBM_REPLAY_PORT_BURSTS_STRIDE != 8)
			$error("sb_hbm_replay: port_bursts must be 64-bit words from a 256-byte boundary");
	endgenerate

	// ---------------------------------------------------------------- registers
	reg        c_enable, c_timed;
	reg [31:0] port_mask, dw0, dw1, dw2;
	reg [31:0] latch_hi;
	reg [63:0] start_cycle;

	wire wr = reg_sel && reg_wr_en;
	wire rd = reg_sel && reg_rd_en;
	wire [31:0] ones = sb_wones(reg_wr_data, reg_wr_strb);
	wire [31:0] ctl_new = sb_wmerge({29'd0, c_timed, 1'b0, c_enable}, reg_wr_data, reg_wr_strb);
	wire wr_ctl = wr && reg_addr == SB_HBM_REPLAY_CONTROL;
	wire clear = wr_ctl && ones[SB_HBM_REPLAY_CONTROL_RESET_LSB];
	wire [31:0] w3 = sb_wmerge(32'd0, reg_wr_data, reg_wr_strb);
	wire append = wr && reg_addr == SB_HBM_REPLAY_DESC_W3;

	// ---------------------------------------------------------------- FIFO (block RAM)
	reg [DW-1:0] fmem [0:FD-1];
	reg [DW-1:0] hq;                 // the head, read from fmem
	reg          hq_valid;
	reg [FA:0]   wp, rp;             // rp: next entry to read into hq
	reg [FA:0]   fcount;             // entries in fmem and hq
	wire f_full = fcount == FD[FA:0];
	wire push = append && !f_full;
	wire [4:0] d_beats_raw = w3[SB_HBM_REPLAY_DESC_BEATS_MSB:SB_HBM_REPLAY_DESC_BEATS_LSB];
	wire [DW-1:0] d_in = {dw1[15:0], dw0,
	                      w3[SB_HBM_REPLAY_DESC_ADDR_HI_MSB:SB_HBM_REPLAY_DESC_ADDR_HI_LSB], dw2[31:5],
	                      w3[SB_HBM_REPLAY_DESC_WRITE_LSB],
	                      (d_beats_raw == 5'd0) ? 5'd1 : d_beats_raw,
	                      w3[SB_HBM_REPLAY_DESC_PORT_MSB:SB_HBM_REPLAY_DESC_PORT_LSB]};

	wire [47:0] h_time = hq[DW-1 -: 48];
	wire [28:0] h_blk = hq[42:14];
	wire h_write = hq[13];
	wire [4:0] h_beats = hq[12:8];
	wire [7:0] h_port = hq[7:0];
	// 32-byte blocks of a 4 KB page: 128; the burst's last block must be in the same page
	wire h_cross = {1'b0, h_blk[6:0]} + {3'd0, h_beats} > 8'd128;
	wire [31:0] running32 = {{(32 - N){1'b0}}, eng_running};
	wire h_bad = h_port >= N[7:0] || !port_mask[h_port[4:0]] || running32[h_port[4:0]] ||
	             h_beats > 5'd16 || h_cross;

	wire [N-1:0] lane_full;
	wire [31:0] lane_full32 = {{(32 - N){1'b1}}, lane_full};
	wire take_ok = h_bad || !lane_full32[h_port[4:0]];
	wire take = c_enable && hq_valid && take_ok;
	wire f_rd = rp != wp && (!hq_valid || take);

	always @(posedge clk) begin
		if (push)
			fmem[wp[FA-1:0]] <= d_in;
		if (f_rd)
			hq <= fmem[rp[FA-1:0]];
	end

	// ---------------------------------------------------------------- lanes
	wire [N-1:0] lane_busy;
	/* verilator lint_off UNUSEDSIGNAL */ // per lane; the block needs only busy
	wire [N-1:0] owned;
	/* verilator lint_on UNUSEDSIGNAL */
	wire [N-1:0] ev_hs, ev_hs_write, ev_r_lat, ev_b, ev_b_err, ev_r_done, ev_r_err;
	wire [N*64-1:0] ev_lag;
	wire [N*32-1:0] ev_r_lat_v, ev_b_lat_v;
	wire [N*5-1:0] ev_b_beats, ev_r_beats;
	wire [63:0] elapsed = cycles - start_cycle;

	genvar p;
	generate
		for (p = 0; p < N; p = p + 1) begin : g_lane
			sb_hbm_replay_lane #(.LANE_DEPTH(LD)) u_lane (
				.clk(clk), .rst(rst), .clear(clear),
				.want(c_enable && port_mask[p]), .timed(c_timed), .cycles(cycles[31:0]),
				.elapsed(elapsed),
				.push(take && !h_bad && h_port == p[7:0]), .push_time(h_time), .push_blk(h_blk),
				.push_write(h_write), .push_beats(h_beats), .lane_full(lane_full[p]),
				.busy(lane_busy[p]), .owned(owned[p]),
				.ids_busy(ids_busy[p*64 +: 64]), .seed_cfg(seed_cfg[p*32 +: 32]),
				.e_araddr(e_araddr[p*34 +: 34]), .e_arid(e_arid[p*6 +: 6]),
				.e_arlen(e_arlen[p*4 +: 4]), .e_arsize(e_arsize[p*3 +: 3]),
				.e_arburst(e_arburst[p*2 +: 2]), .e_arvalid(e_arvalid[p]),
				.e_arready(e_arready[p]),
				.e_awaddr(e_awaddr[p*34 +: 34]), .e_awid(e_awid[p*6 +: 6]),
				.e_awlen(e_awlen[p*4 +: 4]), .e_awsize(e_awsize[p*3 +: 3]),
				.e_awburst(e_awburst[p*2 +: 2]), .e_awvalid(e_awvalid[p]),
				.e_awready(e_awready[p]),
				.e_wdata(e_wdata[p*256 +: 256]), .e_wstrb(e_wstrb[p*32 +: 32]),
				.e_wid(e_wid[p*6 +: 6]), .e_wlast(e_wlast[p]), .e_wvalid(e_wvalid[p]),
				.e_wready(e_wready[p]), .e_rvalid(e_rvalid[p]), .e_rready(e_rready[p]),
				.e_bvalid(e_bvalid[p]), .e_bready(e_bready[p]),
				.m_araddr(m_axi_araddr[p*34 +: 34]), .m_arid(m_axi_arid[p*6 +: 6]),
				.m_arlen(m_axi_arlen[p*4 +: 4]), .m_arsize(m_axi_arsize[p*3 +: 3]),
				.m_arburst(m_axi_arburst[p*2 +: 2]), .m_arvalid(m_axi_arvalid[p]),
				.m_arready(m_axi_arready[p]),
				.m_awaddr(m_axi_awaddr[p*34 +: 34]), .m_awid(m_axi_awid[p*6 +: 6]),
				.m_awlen(m_axi_awlen[p*4 +: 4]), .m_awsize(m_axi_awsize[p*3 +: 3]),
				.m_awburst(m_axi_awburst[p*2 +: 2]), .m_awvalid(m_axi_awvalid[p]),
				.m_awready(m_axi_awready[p]),
				.m_wdata(m_axi_wdata[p*256 +: 256]), .m_wstrb(m_axi_wstrb[p*32 +: 32]),
				.m_wid(m_axi_wid[p*6 +: 6]), .m_wlast(m_axi_wlast[p]),
				.m_wvalid(m_axi_wvalid[p]), .m_wready(m_axi_wready[p]),
				.m_rid(m_axi_rid[p*6 +: 6]), .m_rresp(m_axi_rresp[p*2 +: 2]),
				.m_rlast(m_axi_rlast[p]), .m_rvalid(m_axi_rvalid[p]),
				.m_rready(m_axi_rready[p]),
				.m_bid(m_axi_bid[p*6 +: 6]), .m_bresp(m_axi_bresp[p*2 +: 2]),
				.m_bvalid(m_axi_bvalid[p]), .m_bready(m_axi_bready[p]),
				.p_trc_r_valid(p_trc_r_valid[p]), .p_trc_r_blk(p_trc_r_blk[p*29 +: 29]),
				.p_trc_r_beats(p_trc_r_beats[p*5 +: 5]), .p_trc_r_lat(p_trc_r_lat[p*32 +: 32]),
				.p_trc_b_valid(p_trc_b_valid[p]), .p_trc_b_blk(p_trc_b_blk[p*29 +: 29]),
				.p_trc_b_beats(p_trc_b_beats[p*5 +: 5]), .p_trc_b_lat(p_trc_b_lat[p*32 +: 32]),
				.trc_r_valid(trc_r_valid[p]), .trc_r_blk(trc_r_blk[p*29 +: 29]),
				.trc_r_beats(trc_r_beats[p*5 +: 5]), .trc_r_lat(trc_r_lat[p*32 +: 32]),
				.trc_b_valid(trc_b_valid[p]), .trc_b_blk(trc_b_blk[p*29 +: 29]),
				.trc_b_beats(trc_b_beats[p*5 +: 5]), .trc_b_lat(trc_b_lat[p*32 +: 32]),
				.ev_hs(ev_hs[p]), .ev_hs_write(ev_hs_write[p]), .ev_lag(ev_lag[p*64 +: 64]),
				.ev_r_lat(ev_r_lat[p]), .ev_r_lat_v(ev_r_lat_v[p*32 +: 32]),
				.ev_b(ev_b[p]), .ev_b_lat_v(ev_b_lat_v[p*32 +: 32]),
				.ev_b_beats(ev_b_beats[p*5 +: 5]), .ev_b_err(ev_b_err[p]),
				.ev_r_done(ev_r_done[p]), .ev_r_beats(ev_r_beats[p*5 +: 5]),
				.ev_r_err(ev_r_err[p]));
		end
	endgenerate

	// ---------------------------------------------------------------- this cycle's events
	reg [6:0]  n_hs, n_rd, n_wr, n_done, n_err;
	reg [63:0] s_lag, s_lat;
	reg [31:0] m_lag, lat_lo, lat_hi;
	reg [11:0] s_bytes;              // 32-byte units
	integer k;
	always @* begin
		n_hs = 7'd0;
		n_rd = 7'd0;
		n_wr = 7'd0;
		n_done = 7'd0;
		n_err = 7'd0;
		s_lag = 64'd0;
		s_lat = 64'd0;
		m_lag = 32'd0;
		lat_lo = 32'hFFFF_FFFF;
		lat_hi = 32'd0;
		s_bytes = 12'd0;
		for (k = 0; k < N; k = k + 1) begin
			if (ev_hs[k]) begin
				n_hs = n_hs + 7'd1;
				if (ev_hs_write[k])
					n_wr = n_wr + 7'd1;
				else
					n_rd = n_rd + 7'd1;
				s_lag = s_lag + ev_lag[k*64 +: 64];
				if (ev_lag[k*64 +: 64] > {32'd0, m_lag})
					m_lag = (ev_lag[k*64+32 +: 32] != 32'd0) ? 32'hFFFF_FFFF :
					        ev_lag[k*64 +: 32];
			end
			if (ev_r_lat[k]) begin
				s_lat = s_lat + {32'd0, ev_r_lat_v[k*32 +: 32]};
				if (ev_r_lat_v[k*32 +: 32] < lat_lo)
					lat_lo = ev_r_lat_v[k*32 +: 32];
				if (ev_r_lat_v[k*32 +: 32] > lat_hi)
					lat_hi = ev_r_lat_v[k*32 +: 32];
			end
			if (ev_b[k]) begin
				s_lat = s_lat + {32'd0, ev_b_lat_v[k*32 +: 32]};
				if (ev_b_lat_v[k*32 +: 32] < lat_lo)
					lat_lo = ev_b_lat_v[k*32 +: 32];
				if (ev_b_lat_v[k*32 +: 32] > lat_hi)
					lat_hi = ev_b_lat_v[k*32 +: 32];
				n_done = n_done + 7'd1;
				s_bytes = s_bytes + {7'd0, ev_b_beats[k*5 +: 5]};
				if (ev_b_err[k])
					n_err = n_err + 7'd1;
			end
			if (ev_r_done[k]) begin
				n_done = n_done + 7'd1;
				s_bytes = s_bytes + {7'd0, ev_r_beats[k*5 +: 5]};
				if (ev_r_err[k])
					n_err = n_err + 7'd1;
			end
		end
	end

	// ---------------------------------------------------------------- counters
	reg [63:0] pushed, issued, completed, reads, writes, bytes, lat_sum, lag_sum, end_cycle;
	reg [31:0] lat_min, lat_max, lag_max, errors, bad, overflows;
	reg        st_error, st_bad, st_overflow;
	reg [63:0] port_bursts [0:31];   // the map's 32; those of ports >= N stay 0

	wire busy = fcount != {(FA + 1){1'b0}} || lane_busy != {N{1'b0}};
	reg [31:0] status_word;
	always @* begin
		status_word = 32'd0;
		status_word[SB_HBM_REPLAY_STATUS_BUSY_LSB] = busy;
		status_word[SB_HBM_REPLAY_STATUS_IDLE_LSB] = !busy;
		status_word[SB_HBM_REPLAY_STATUS_ERROR_LSB] = st_error;
		status_word[SB_HBM_REPLAY_STATUS_BAD_DESC_LSB] = st_bad;
		status_word[SB_HBM_REPLAY_STATUS_OVERFLOW_LSB] = st_overflow;
	end

	integer q;
	always @(posedge clk) begin
		// FIFO
		if (push)
			wp <= wp + 1'b1;
		if (f_rd)
			rp <= rp + 1'b1;
		if (f_rd)
			hq_valid <= 1'b1;
		else if (take)
			hq_valid <= 1'b0;
		fcount <= fcount + {{FA{1'b0}}, push} - {{FA{1'b0}}, take};
		if (push)
			pushed <= pushed + 64'd1;
		if (append && f_full) begin
			overflows <= overflows + 32'd1;
			st_overflow <= 1'b1;
		end
		if (take && h_bad) begin
			bad <= bad + 32'd1;
			st_bad <= 1'b1;
		end
		// events
		issued <= issued + {57'd0, n_hs};
		reads <= reads + {57'd0, n_rd};
		writes <= writes + {57'd0, n_wr};
		lag_sum <= lag_sum + s_lag;
		if (m_lag > lag_max)
			lag_max <= m_lag;
		lat_sum <= lat_sum + s_lat;
		if (lat_lo < lat_min)
			lat_min <= lat_lo;
		if (lat_hi > lat_max)
			lat_max <= lat_hi;
		completed <= completed + {57'd0, n_done};
		bytes <= bytes + {47'd0, s_bytes, 5'd0};
		errors <= errors + {25'd0, n_err};
		if (n_err != 7'd0)
			st_error <= 1'b1;
		if (n_done != 7'd0)
			end_cycle <= cycles;
		for (q = 0; q < N; q = q + 1)
			if (ev_hs[q])
				port_bursts[q] <= port_bursts[q] + 64'd1;

		// register writes
		if (wr) begin
			case (reg_addr)
			SB_HBM_REPLAY_CONTROL: begin
				c_enable <= ctl_new[SB_HBM_REPLAY_CONTROL_ENABLE_LSB];
				c_timed <= ctl_new[SB_HBM_REPLAY_CONTROL_TIMED_LSB];
				if (ctl_new[SB_HBM_REPLAY_CONTROL_ENABLE_LSB] && !c_enable)
					start_cycle <= cycles;
			end
			SB_HBM_REPLAY_PORT_MASK: port_mask <= sb_wmerge(port_mask, reg_wr_data, reg_wr_strb);
			SB_HBM_REPLAY_DESC_W0: dw0 <= sb_wmerge(dw0, reg_wr_data, reg_wr_strb);
			SB_HBM_REPLAY_DESC_W1: dw1 <= sb_wmerge(dw1, reg_wr_data, reg_wr_strb);
			SB_HBM_REPLAY_DESC_W2: dw2 <= sb_wmerge(dw2, reg_wr_data, reg_wr_strb);
			default: ;
			endcase
		end

		// register reads (64-bit counters: the low word latches the high word)
		reg_rd_data <= 32'd0;
		if (rd) begin
			case (reg_addr)
			SB_BLK_TYPE: reg_rd_data <= SB_BLK_HBM_REPLAY_TYPE;
			SB_BLK_VERSION: reg_rd_data <= SB_BLK_HBM_REPLAY_VERSION;
			SB_BLK_NEXT: reg_rd_data <= NEXT_OFFSET;
			SB_HBM_REPLAY_CONTROL: reg_rd_data <= {29'd0, c_timed, 1'b0, c_enable};
			SB_HBM_REPLAY_STATUS: reg_rd_data <= status_word;
			SB_HBM_REPLAY_PORT_MASK: reg_rd_data <= port_mask;
			SB_HBM_REPLAY_FIFO_DEPTH: reg_rd_data <= FD32;
			SB_HBM_REPLAY_FIFO_COUNT: reg_rd_data <= {{(31 - FA){1'b0}}, fcount};
			SB_HBM_REPLAY_DESC_W0: reg_rd_data <= dw0;
			SB_HBM_REPLAY_DESC_W1: reg_rd_data <= dw1;
			SB_HBM_REPLAY_DESC_W2: reg_rd_data <= dw2;
			SB_HBM_REPLAY_PUSHED: {latch_hi, reg_rd_data} <= pushed;
			SB_HBM_REPLAY_START_CYCLE: {latch_hi, reg_rd_data} <= start_cycle;
			SB_HBM_REPLAY_ISSUED: {latch_hi, reg_rd_data} <= issued;
			SB_HBM_REPLAY_COMPLETED: {latch_hi, reg_rd_data} <= completed;
			SB_HBM_REPLAY_READS: {latch_hi, reg_rd_data} <= reads;
			SB_HBM_REPLAY_WRITES: {latch_hi, reg_rd_data} <= writes;
			SB_HBM_REPLAY_BYTES: {latch_hi, reg_rd_data} <= bytes;
			SB_HBM_REPLAY_LAT_SUM: {latch_hi, reg_rd_data} <= lat_sum;
			SB_HBM_REPLAY_LAG_SUM: {latch_hi, reg_rd_data} <= lag_sum;
			SB_HBM_REPLAY_END_CYCLE: {latch_hi, reg_rd_data} <= end_cycle;
			SB_HBM_REPLAY_PUSHED + HI, SB_HBM_REPLAY_START_CYCLE + HI, SB_HBM_REPLAY_ISSUED + HI,
			SB_HBM_REPLAY_COMPLETED + HI, SB_HBM_REPLAY_READS + HI, SB_HBM_REPLAY_WRITES + HI,
			SB_HBM_REPLAY_BYTES + HI, SB_HBM_REPLAY_LAT_SUM + HI, SB_HBM_REPLAY_LAG_SUM + HI,
			SB_HBM_REPLAY_END_CYCLE + HI:
				reg_rd_data <= latch_hi;
			SB_HBM_REPLAY_LAT_MIN: reg_rd_data <= lat_min;
			SB_HBM_REPLAY_LAT_MAX: reg_rd_data <= lat_max;
			SB_HBM_REPLAY_LAG_MAX: reg_rd_data <= lag_max;
			SB_HBM_REPLAY_ERRORS: reg_rd_data <= errors;
			SB_HBM_REPLAY_BAD: reg_rd_data <= bad;
			SB_HBM_REPLAY_OVERFLOWS: reg_rd_data <= overflows;
			SB_HBM_REPLAY_LANE_DEPTH: reg_rd_data <= LD32;
			default:
				// port_bursts[i]: 64-bit words from a 256-byte boundary, reg_addr[7:3] = i
				if (reg_addr >= SB_HBM_REPLAY_PORT_BURSTS && reg_addr < PB_END) begin
					if (reg_addr[2:0] == 3'd0)
						{latch_hi, reg_rd_data} <= port_bursts[reg_addr[7:3]];
					else if (reg_addr[2:0] == 3'd4)
						reg_rd_data <= latch_hi;
				end
			endcase
		end

		if (rst || clear) begin
			wp <= {(FA + 1){1'b0}};
			rp <= {(FA + 1){1'b0}};
			hq_valid <= 1'b0;
			fcount <= {(FA + 1){1'b0}};
			pushed <= 64'd0;
			issued <= 64'd0;
			completed <= 64'd0;
			reads <= 64'd0;
			writes <= 64'd0;
			bytes <= 64'd0;
			lat_sum <= 64'd0;
			lag_sum <= 64'd0;
			end_cycle <= 64'd0;
			lat_min <= SB_HBM_REPLAY_LAT_MIN_RESET;
			lat_max <= 32'd0;
			lag_max <= 32'd0;
			errors <= 32'd0;
			bad <= 32'd0;
			overflows <= 32'd0;
			st_error <= 1'b0;
			st_bad <= 1'b0;
			st_overflow <= 1'b0;
			for (q = 0; q < 32; q = q + 1)
				port_bursts[q] <= 64'd0;
		end
		if (rst) begin
			c_enable <= 1'b0;
			c_timed <= 1'b0;
			start_cycle <= 64'd0;
			port_mask <= SB_HBM_REPLAY_PORT_MASK_RESET;
			dw0 <= 32'd0;
			dw1 <= 32'd0;
			dw2 <= 32'd0;
			latch_hi <= 32'd0;
		end
	end

endmodule

`resetall
