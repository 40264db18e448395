// SPDX-License-Identifier: MIT
/*
 * One port's side of trace replay (sb_hbm_replay): the lane of descriptors handed to this port
 * (LANE_DEPTH, FIFO order), the issue logic, the per-ID state of the replayed bursts, and the
 * multiplexer in front of the port's AXI3 master.
 *
 * Ownership: the replay owns the port's master from the cycle after `want` (enable and this
 * port in port_mask) finds the engine with no AW and no W beat pending (an AW of the engine
 * must not be overtaken by a replayed AW whose W data would then go first), and keeps it until
 * `want` drops and every replayed burst has completed. While it owns the port, the engine sees
 * AR/AW/W never ready (its engine must be stopped: a running engine holds at most one command
 * until the port is handed back). R and B are routed by ID: the replay takes an AXI ID only
 * when the engine has it free (ids_busy) and it is not in flight here, so a response goes to
 * the replay exactly when its ID is in flight here; the engine's bursts still in flight
 * complete into the engine. IDs are taken in turn (0..63, as the board model does), the next
 * waiting while the engine or the replay has it in flight. (The block skips a descriptor for a
 * port whose engine is running; a stopped engine's bursts may still be in flight.)
 *
 * Issue: the descriptor at the head of the lane is loaded into the command register (one
 * burst per cycle at most, as the engine does) when the replay owns the port and wants it,
 * the next ID is free, the W queue has room (writes), and - when timed - the AR/AW valid it
 * raises comes no earlier than its due time (elapsed >= time). Writes send the port's write
 * pattern (seed_cfg) for the burst's blocks, W after AW order as the engine does.
 *
 * Events for the block's counters (one cycle, combinational): handshake (counted bursts: those
 * loaded since the last clear) with its lag, the first R beat / B with the latency (handshake
 * to it, as the ports' monitors count), the completion (last R beat / B) with beats and error.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_hbm_replay_lane #(
	parameter integer LANE_DEPTH = 4          // descriptors buffered (power of two >= 2)
) (
	input  wire          clk,
	input  wire          rst,
	input  wire          clear,              // control.reset: empty the lane, uncount in flight
	input  wire          want,               // enable and this port in port_mask
	input  wire          timed,              // control.timed
	input  wire [31:0]   cycles,             // hbm_card.cycles, low word (latencies)
	input  wire [63:0]   elapsed,            // cycles - start_cycle

	// from the block's dispatcher: a descriptor for this port
	input  wire          push,
	input  wire [47:0]   push_time,
	input  wire [28:0]   push_blk,           // address bits 33..5
	input  wire          push_write,
	input  wire [4:0]    push_beats,         // 1..16
	output wire          lane_full,
	output wire          busy,               // lane nonempty, a burst pending or in flight
	output reg           owned,

	// from the port's engine
	input  wire [63:0]   ids_busy,
	input  wire [31:0]   seed_cfg,

	// the engine's AXI3 master (in) and the port's AXI3 master (out)
	input  wire [33:0]   e_araddr,
	input  wire [5:0]    e_arid,
	input  wire [3:0]    e_arlen,
	input  wire [2:0]    e_arsize,
	input  wire [1:0]    e_arburst,
	input  wire          e_arvalid,
	output wire          e_arready,
	input  wire [33:0]   e_awaddr,
	input  wire [5:0]    e_awid,
	input  wire [3:0]    e_awlen,
	input  wire [2:0]    e_awsize,
	input  wire [1:0]    e_awburst,
	input  wire          e_awvalid,
	output wire          e_awready,
	input  wire [255:0]  e_wdata,
	input  wire [31:0]   e_wstrb,
	input  wire [5:0]    e_wid,
	input  wire          e_wlast,
	input  wire          e_wvalid,
	output wire          e_wready,
	output wire          e_rvalid,
	input  wire          e_rready,
	output wire          e_bvalid,
	input  wire          e_bready,

	output wire [33:0]   m_araddr,
	output wire [5:0]    m_arid,
	output wire [3:0]    m_arlen,
	output wire [2:0]    m_arsize,
	output wire [1:0]    m_arburst,
	output wire          m_arvalid,
	input  wire          m_arready,
	output wire [33:0]   m_awaddr,
	output wire [5:0]    m_awid,
	output wire [3:0]    m_awlen,
	output wire [2:0]    m_awsize,
	output wire [1:0]    m_awburst,
	output wire          m_awvalid,
	input  wire          m_awready,
	output wire [255:0]  m_wdata,
	output wire [31:0]   m_wstrb,
	output wire [5:0]    m_wid,
	output wire          m_wlast,
	output wire          m_wvalid,
	input  wire          m_wready,
	input  wire [5:0]    m_rid,
	input  wire [1:0]    m_rresp,
	input  wire          m_rlast,
	input  wire          m_rvalid,
	output wire          m_rready,
	input  wire [5:0]    m_bid,
	input  wire [1:0]    m_bresp,
	input  wire          m_bvalid,
	output wire          m_bready,

	// trace taps: the engine's (in) merged with the replayed bursts' (out)
	input  wire          p_trc_r_valid,
	input  wire [28:0]   p_trc_r_blk,
	input  wire [4:0]    p_trc_r_beats,
	input  wire [31:0]   p_trc_r_lat,
	input  wire          p_trc_b_valid,
	input  wire [28:0]   p_trc_b_blk,
	input  wire [4:0]    p_trc_b_beats,
	input  wire [31:0]   p_trc_b_lat,
	output wire          trc_r_valid,
	output wire [28:0]   trc_r_blk,
	output wire [4:0]    trc_r_beats,
	output wire [31:0]   trc_r_lat,
	output wire          trc_b_valid,
	output wire [28:0]   trc_b_blk,
	output wire [4:0]    trc_b_beats,
	output wire [31:0]   trc_b_lat,

	// counter events (counted bursts only)
	output wire          ev_hs,              // AR / AW handshake
	output wire          ev_hs_write,
	output wire [63:0]   ev_lag,
	output wire          ev_r_lat,           // first R beat
	output wire [31:0]   ev_r_lat_v,
	output wire          ev_b,               // B (latency and completion)
	output wire [31:0]   ev_b_lat_v,
	output wire [4:0]    ev_b_beats,
	output wire          ev_b_err,
	output wire          ev_r_done,          // last R beat
	output wire [4:0]    ev_r_beats,
	output wire          ev_r_err
);

`include "sb_hbm_pattern.vh"

	localparam integer LW = 48 + 29 + 1 + 5;   // a lane entry
	localparam integer CW = $clog2(LANE_DEPTH) + 1;

	generate
		if (LANE_DEPTH < 2 || (1 << $clog2(LANE_DEPTH)) != LANE_DEPTH)
			$error("sb_hbm_replay_lane: LANE_DEPTH must be a power of two >= 2 (instance %m)");
	endgenerate

	// ---------------------------------------------------------------- lane
	wire [LW-1:0] head;
	wire head_valid;
	wire [CW-1:0] lane_count;
	wire pop, lane_ready;

	sb_fifo #(.WIDTH(LW), .DEPTH(LANE_DEPTH)) u_lane (
		.clk(clk), .rst(rst), .clear(clear),
		.s_data({push_time, push_blk, push_write, push_beats}), .s_valid(push),
		.s_ready(lane_ready), .m_data(head), .m_valid(head_valid), .m_ready(pop), .count(lane_count));
	assign lane_full = !lane_ready;

	wire [47:0] h_time = head[LW-1 -: 48];
	wire [28:0] h_blk = head[34:6];
	wire h_write = head[5];
	wire [4:0] h_beats = head[4:0];

	// when the head arrived (elapsed), for the untimed lag
	reg [63:0] since;

	// ---------------------------------------------------------------- per-ID state
	reg [63:0] in_flight, counted, first_seen, err_acc;
	reg [28:0] id_blk [0:63];
	reg [4:0]  id_beats [0:63];
	reg [31:0] id_time [0:63];       // handshake, cycles' low word

	// IDs in turn (0..63, as the board model takes them); the next waits while the engine or
	// the replay has it in flight
	reg [5:0] next_id;
	wire id_free = !ids_busy[next_id] && !in_flight[next_id];

	// ---------------------------------------------------------------- command register
	reg        cmd_valid, cmd_write;
	reg [28:0] cmd_blk;
	reg [3:0]  cmd_len;
	reg [5:0]  cmd_id;
	reg [63:0] cmd_ref;              // due time (timed) or arrival at the lane's head
	wire cmd_hs = owned && cmd_valid && (cmd_write ? m_awready : m_arready);

	// W queue: blk, beats, id of the writes whose data is still to be sent
	wire [39:0] wq_head;
	wire wq_valid, wq_ready;
	wire [2:0] wq_count;
	reg [3:0] w_beat;
	wire w_hs = owned && wq_valid && m_wready;
	wire w_last = {1'b0, w_beat} == wq_head[10:6] - 5'd1;

	wire due = !timed || elapsed[63:48] != 16'd0 || elapsed[47:0] + 48'd1 >= h_time;
	// not in the cycle of control.reset (the burst would be counted, its lane emptied)
	// want, not enable alone: a load in the cycle the port is given back (port_mask bit
	// cleared while enabled) would leave a command no one issues
	assign pop = !clear && owned && want && head_valid && due && id_free &&
	             (!cmd_valid || cmd_hs) && !(h_write && !wq_ready);
	wire load = pop;

	sb_fifo #(.WIDTH(40), .DEPTH(4)) u_wq (
		.clk(clk), .rst(rst), .clear(1'b0),
		.s_data({h_blk, h_beats, next_id}), .s_valid(load && h_write), .s_ready(wq_ready),
		.m_data(wq_head), .m_valid(wq_valid), .m_ready(w_hs && w_last), .count(wq_count));

	// ---------------------------------------------------------------- the multiplexer
	assign m_araddr = owned ? {cmd_blk, 5'd0} : e_araddr;
	assign m_arid = owned ? cmd_id : e_arid;
	assign m_arlen = owned ? cmd_len : e_arlen;
	assign m_arsize = owned ? 3'd5 : e_arsize;
	assign m_arburst = owned ? 2'b01 : e_arburst;
	assign m_arvalid = owned ? cmd_valid && !cmd_write : e_arvalid;
	assign e_arready = !owned && m_arready;
	assign m_awaddr = owned ? {cmd_blk, 5'd0} : e_awaddr;
	assign m_awid = owned ? cmd_id : e_awid;
	assign m_awlen = owned ? cmd_len : e_awlen;
	assign m_awsize = owned ? 3'd5 : e_awsize;
	assign m_awburst = owned ? 2'b01 : e_awburst;
	assign m_awvalid = owned ? cmd_valid && cmd_write : e_awvalid;
	assign e_awready = !owned && m_awready;
	assign m_wdata = owned ? sb_hbm_pattern(seed_cfg, wq_head[39:11] + {25'd0, w_beat}) : e_wdata;
	assign m_wstrb = owned ? 32'hFFFF_FFFF : e_wstrb;
	assign m_wid = owned ? wq_head[5:0] : e_wid;
	assign m_wlast = owned ? w_last : e_wlast;
	assign m_wvalid = owned ? wq_valid : e_wvalid;
	assign e_wready = !owned && m_wready;

	wire [5:0] rid = m_rid, bid = m_bid;
	wire r_mine = m_rvalid && in_flight[rid];
	wire b_mine = m_bvalid && in_flight[bid];
	assign e_rvalid = m_rvalid && !in_flight[rid];
	assign e_bvalid = m_bvalid && !in_flight[bid];
	assign m_rready = r_mine || e_rready;
	assign m_bready = b_mine || e_bready;

	// ---------------------------------------------------------------- responses
	wire r_first = r_mine && !first_seen[rid];
	wire r_done = r_mine && m_rlast;
	wire [31:0] r_lat = cycles - id_time[rid];
	wire [31:0] b_lat = cycles - id_time[bid];

	assign trc_r_valid = p_trc_r_valid || r_first;
	assign trc_r_blk = r_mine ? id_blk[rid] : p_trc_r_blk;
	assign trc_r_beats = r_mine ? id_beats[rid] : p_trc_r_beats;
	assign trc_r_lat = r_mine ? r_lat : p_trc_r_lat;
	assign trc_b_valid = p_trc_b_valid || b_mine;
	assign trc_b_blk = b_mine ? id_blk[bid] : p_trc_b_blk;
	assign trc_b_beats = b_mine ? id_beats[bid] : p_trc_b_beats;
	assign trc_b_lat = b_mine ? b_lat : p_trc_b_lat;

	assign ev_hs = cmd_hs && counted[cmd_id];
	assign ev_hs_write = cmd_write;
	assign ev_lag = elapsed - cmd_ref;
	assign ev_r_lat = r_first && counted[rid];
	assign ev_r_lat_v = r_lat;
	assign ev_r_done = r_done && counted[rid];
	assign ev_r_beats = id_beats[rid];
	assign ev_r_err = err_acc[rid] || m_rresp != 2'b00;
	assign ev_b = b_mine && counted[bid];
	assign ev_b_lat_v = b_lat;
	assign ev_b_beats = id_beats[bid];
	assign ev_b_err = m_bresp != 2'b00;

	assign busy = head_valid || cmd_valid || wq_count != 3'd0 || in_flight != 64'd0;

	// ---------------------------------------------------------------- state
	always @(posedge clk) begin
		// ownership
		if (!owned && want && !e_awvalid && !e_wvalid)
			owned <= 1'b1;
		if (owned && !want && !cmd_valid && wq_count == 3'd0 && in_flight == 64'd0)
			owned <= 1'b0;
		// the head's arrival: pushed into an empty lane, or the next after a pop
		if ((push && (lane_count == {CW{1'b0}} || (lane_count == {{(CW - 1){1'b0}}, 1'b1} && pop))) ||
		    (pop && lane_count > {{(CW - 1){1'b0}}, 1'b1}))
			since <= elapsed + 64'd1;
		// command register
		if (cmd_hs)
			cmd_valid <= 1'b0;
		if (load) begin
			cmd_valid <= 1'b1;
			cmd_write <= h_write;
			cmd_blk <= h_blk;
			cmd_len <= h_beats[3:0] - 4'd1;
			cmd_id <= next_id;
			cmd_ref <= timed ? {16'd0, h_time} : since;
			id_blk[next_id] <= h_blk;
			id_beats[next_id] <= h_beats;
			next_id <= next_id + 6'd1;
		end
		if (cmd_hs)
			id_time[cmd_id] <= cycles;
		if (w_hs)
			w_beat <= w_last ? 4'd0 : w_beat + 4'd1;
		begin : ids
			reg [63:0] f, s, e, c;

			f = in_flight;
			s = first_seen;
			e = err_acc;
			c = counted;
			if (clear)
				c = 64'd0;
			if (r_mine) begin
				s[rid] = 1'b1;
				if (m_rresp != 2'b00)
					e[rid] = 1'b1;
			end
			if (r_done)
				f[rid] = 1'b0;
			if (b_mine)
				f[bid] = 1'b0;
			if (load) begin
				f[next_id] = 1'b1;
				s[next_id] = 1'b0;
				e[next_id] = 1'b0;
				c[next_id] = 1'b1;
			end
			in_flight <= f;
			first_seen <= s;
			err_acc <= e;
			counted <= c;
		end
		if (rst) begin
			owned <= 1'b0;
			next_id <= 6'd0;
			since <= 64'd0;
			cmd_valid <= 1'b0;
			w_beat <= 4'd0;
			in_flight <= 64'd0;
			first_seen <= 64'd0;
			err_acc <= 64'd0;
			counted <= 64'd0;
		end
	end

endmodule

`resetall
