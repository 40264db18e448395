// SPDX-License-Identifier: MIT
/*
 * One HBM port traffic engine (register block hbm_port): the burst sequence of sb_hbm_gen
 * issued in order on an AXI3 master (256-bit data, AxSIZE 32 bytes, INCR), one burst per
 * cycle at most on a shared command register (arvalid for reads, awvalid for writes), each
 * waiting until its AXI ID is free; write data from a four-entry W FIFO (a write enters it with
 * its command, so its data may lead the address, as AXI allows) carrying the pattern of seed
 * and address (fpga_hbm2/model/hbm_traffic.h); rready and bready always high. Counters and
 * latency statistics per docs/regmap.md (block hbm_port); the register bus as in fpga_gups/rtl
 * (one-cycle strobes, read data one cycle later, byte strobes, the 64-bit low-word latch).
 *
 * A start clears counters and statistics and latches the configuration; bursts still in
 * flight complete uncounted and keep their IDs busy until they do.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_hbm_port (
	input  wire          clk,
	input  wire          rst,

	// identity (tied to constants by the top, so every port is one module)
	input  wire [7:0]    port_index,
	input  wire [31:0]   next_offset,      // NEXT header word

	// register bus
	input  wire          reg_sel,
	input  wire [31:0]   reg_addr,         // within the block
	input  wire          reg_wr_en,
	input  wire [31:0]   reg_wr_data,
	input  wire [3:0]    reg_wr_strb,
	input  wire          reg_rd_en,
	output reg  [31:0]   reg_rd_data,

	// hbm_card.control on this port (start_mask): start / stop in the same cycle as the others
	input  wire          start_all,
	input  wire          stop_all,

	// AXI3 master
	output wire [33:0]   m_axi_araddr,
	output wire [5:0]    m_axi_arid,
	output wire [3:0]    m_axi_arlen,
	output wire [2:0]    m_axi_arsize,
	output wire [1:0]    m_axi_arburst,
	output wire          m_axi_arvalid,
	input  wire          m_axi_arready,
	output wire [33:0]   m_axi_awaddr,
	output wire [5:0]    m_axi_awid,
	output wire [3:0]    m_axi_awlen,
	output wire [2:0]    m_axi_awsize,
	output wire [1:0]    m_axi_awburst,
	output wire          m_axi_awvalid,
	input  wire          m_axi_awready,
	output wire [255:0]  m_axi_wdata,
	output wire [31:0]   m_axi_wstrb,
	output wire [5:0]    m_axi_wid,
	output wire          m_axi_wlast,
	output wire          m_axi_wvalid,
	input  wire          m_axi_wready,
	input  wire [255:0]  m_axi_rdata,
	input  wire [5:0]    m_axi_rid,
	input  wire [1:0]    m_axi_rresp,
	input  wire          m_axi_rlast,
	input  wire          m_axi_rvalid,
	output wire          m_axi_rready,
	input  wire [5:0]    m_axi_bid,
	input  wire [1:0]    m_axi_bresp,
	input  wire          m_axi_bvalid,
	output wire          m_axi_bready,

	output wire          done,             // status.done (for the card's view)

	// Completion taps for trace capture (sb_hbm_trace): the first R beat of a burst (ID and
	// RRESP on the R channel) and B (ID and BRESP on the B channel), with the burst's address
	// bits 33..5, beats and latency as the monitors count it
	output wire          trc_r_valid,
	output wire [28:0]   trc_r_blk,
	output wire [4:0]    trc_r_beats,
	output wire [31:0]   trc_r_lat,
	output wire          trc_b_valid,
	output wire [28:0]   trc_b_blk,
	output wire [4:0]    trc_b_beats,
	output wire [31:0]   trc_b_lat,

	// For trace replay (sb_hbm_replay_lane), which takes this port's AXI master while the
	// engine is stopped: the IDs the engine has in flight (the replay uses the others) and the
	// seed register (the replay writes this port's pattern, so a checked run reads it back)
	output wire [63:0]   ids_busy,
	output wire [31:0]   seed_cfg,
	output wire          running           // status.running: the replay skips this port
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */
`include "sb_reg_func.vh"

	localparam [31:0] HI = 32'd4;
	localparam [31:0] HIST_END = SB_HBM_PORT_HIST + SB_HBM_PORT_HIST_COUNT * SB_HBM_PORT_HIST_STRIDE;

	generate
		// the histogram words are read by reg_addr[5:2]: 16 words from a 64-byte boundary
		if (SB_HBM_PORT_HIST[5:0] != 6'd0 || SB_HBM_PORT_HIST_COUNT != 16 ||
		    SB_HBM_PORT_HIST_STRIDE != 4)
			$error("sb_hbm_port: hbm_port.hist must be 16 words at a 64-byte boundary");
		if (SB_HBM_PORT_CONTROL_ENABLE_LSB != 0 || SB_HBM_PORT_CONTROL_OP_LSB != 4 ||
		    SB_HBM_PORT_CONTROL_MODE_LSB != 8 || SB_HBM_PORT_CONTROL_CHECK_LSB != 9)
			$error("sb_hbm_port: ctl_word assumes the map's hbm_port.control fields");
	endgenerate

`include "sb_hbm_pattern.vh"

	// ---------------------------------------------------------------- registers
	reg        ctl_enable, ctl_mode, ctl_check;
	reg [1:0]  ctl_op;
	reg [31:0] burst_bytes, outstanding, stride, mix_writes, seed, lat_class;
	reg [19:0] hist_cfg;
	reg [33:0] start_addr;
	reg [34:0] ws_size;
	reg [63:0] run_len;
	reg [31:0] latch_hi;

	wire wr = reg_sel && reg_wr_en;
	wire rd = reg_sel && reg_rd_en;
	wire [31:0] ctl_word = {22'd0, ctl_check, ctl_mode, 2'd0, ctl_op, 3'd0, ctl_enable};
	wire [31:0] ctl_new = sb_wmerge(ctl_word, reg_wr_data, reg_wr_strb);
	wire wr_ctl = wr && reg_addr == SB_HBM_PORT_CONTROL;
	// registers narrower than a word keep the valid bits of a merged write
	/* verilator lint_off UNUSEDSIGNAL */
	wire [31:0] m_sa_hi = sb_wmerge({30'd0, start_addr[33:32]}, reg_wr_data, reg_wr_strb);
	wire [31:0] m_ws_hi = sb_wmerge({29'd0, ws_size[34:32]}, reg_wr_data, reg_wr_strb);
	wire [31:0] m_hist = sb_wmerge({12'd0, hist_cfg}, reg_wr_data, reg_wr_strb);
	/* verilator lint_on UNUSEDSIGNAL */
	wire [31:0] ones = sb_wones(reg_wr_data, reg_wr_strb);
	wire start = (wr_ctl && ones[SB_HBM_PORT_CONTROL_START_LSB]) || start_all;
	// a start through this port's control register uses the op and mode written with it
	wire [1:0] op_now = wr_ctl ? ctl_new[SB_HBM_PORT_CONTROL_OP_MSB:SB_HBM_PORT_CONTROL_OP_LSB] :
	                    ctl_op;
	wire mode_now = wr_ctl ? ctl_new[SB_HBM_PORT_CONTROL_MODE_LSB] : ctl_mode;
	wire check_now = wr_ctl ? ctl_new[SB_HBM_PORT_CONTROL_CHECK_LSB] : ctl_check;

	// ---------------------------------------------------------------- the generator
	wire        g_valid, g_write, g_last, g_more;
	wire [33:0] g_addr;
	wire [4:0]  g_beats;
	wire [5:0]  g_id;
	wire        g_ready;

	sb_hbm_gen u_gen (
		.clk(clk), .rst(rst), .start(start),
		.cfg_start(start_addr), .cfg_ws(ws_size), .cfg_run_len(run_len),
		.cfg_burst(burst_bytes), .cfg_outst(outstanding), .cfg_stride(stride),
		.cfg_mix(mix_writes), .cfg_seed(seed), .cfg_op(op_now), .cfg_random(mode_now),
		.o_valid(g_valid), .o_ready(g_ready), .o_addr(g_addr), .o_beats(g_beats),
		.o_write(g_write), .o_id(g_id), .o_last(g_last), .more(g_more));

	// ---------------------------------------------------------------- per-ID state
	reg [63:0] busy, counted, first_seen, err_acc;
	reg        id_last [0:63];
	reg [4:0]  id_beats [0:63];
	reg [3:0]  id_beat [0:63];   // read beats received so far
	reg [28:0] id_blk [0:63];    // 32-byte block of the burst's address
	reg [31:0] id_time [0:63];   // handshake cycle

	reg [31:0] now;              // cycle counter of the latency monitors
	reg [31:0] seed_l;
	reg        check_l, started;

	// ---------------------------------------------------------------- command register
	reg        cmd_valid, cmd_write;
	reg [33:0] cmd_addr;
	reg [3:0]  cmd_len;          // AxLEN: beats - 1
	reg [5:0]  cmd_id;
	wire cmd_hs = cmd_valid && (cmd_write ? m_axi_awready : m_axi_arready);

	// W FIFO: writes whose data is still to be sent
	reg [28:0] wq_blk [0:3];
	reg [4:0]  wq_beats [0:3];
	reg [5:0]  wq_id [0:3];
	reg [1:0]  wq_rd, wq_wr;
	reg [2:0]  wq_count;
	reg [3:0]  w_beat;

	wire w_hs = m_axi_wvalid && m_axi_wready;
	wire w_pop = w_hs && m_axi_wlast;
	assign g_ready = ctl_enable && !start && (!cmd_valid || cmd_hs) && !busy[g_id] &&
	                 !(g_write && wq_count == 3'd4);
	wire load = g_valid && g_ready;

	assign m_axi_araddr = cmd_addr;
	assign m_axi_arid = cmd_id;
	assign m_axi_arlen = cmd_len;
	assign m_axi_arsize = 3'd5;
	assign m_axi_arburst = 2'b01;
	assign m_axi_arvalid = cmd_valid && !cmd_write;
	assign m_axi_awaddr = cmd_addr;
	assign m_axi_awid = cmd_id;
	assign m_axi_awlen = cmd_len;
	assign m_axi_awsize = 3'd5;
	assign m_axi_awburst = 2'b01;
	assign m_axi_awvalid = cmd_valid && cmd_write;

	assign m_axi_wvalid = wq_count != 3'd0;
	assign m_axi_wid = wq_id[wq_rd];
	assign m_axi_wlast = w_beat == wq_beats[wq_rd][3:0] - 4'd1;
	assign m_axi_wstrb = 32'hFFFF_FFFF;
	assign m_axi_wdata = sb_hbm_pattern(seed_l, wq_blk[wq_rd] + {25'd0, w_beat});
	assign m_axi_rready = 1'b1;
	assign m_axi_bready = 1'b1;

	// ---------------------------------------------------------------- responses
	wire r_ev = m_axi_rvalid;
	wire b_ev = m_axi_bvalid;
	wire [5:0] rid = m_axi_rid, bid = m_axi_bid;
	wire r_done = r_ev && m_axi_rlast;
	wire r_count = counted[rid], b_count = counted[bid];
	wire r_first = r_ev && !first_seen[rid];
	wire [255:0] r_expect = sb_hbm_pattern(seed_l, id_blk[rid] + {25'd0, id_beat[rid]});
	wire r_mismatch = r_ev && r_count && check_l && m_axi_rdata != r_expect;
	wire r_err = r_done && r_count && (err_acc[rid] || m_axi_rresp != 2'b00);
	wire b_err = b_ev && b_count && m_axi_bresp != 2'b00;
	wire [31:0] r_lat = now - id_time[rid];
	wire [31:0] b_lat = now - id_time[bid];

	assign ids_busy = busy;
	assign running = started && ctl_enable && (g_more || g_valid || cmd_valid);
	assign seed_cfg = seed;

	assign trc_r_valid = r_first;
	assign trc_r_blk = id_blk[rid];
	assign trc_r_beats = id_beats[rid];
	assign trc_r_lat = r_lat;
	assign trc_b_valid = b_ev;
	assign trc_b_blk = id_blk[bid];
	assign trc_b_beats = id_beats[bid];
	assign trc_b_lat = b_lat;

	// ---------------------------------------------------------------- counters
	reg [63:0] txns, rd_bursts, wr_bursts, rd_bytes, wr_bytes, active_cycles;
	reg [31:0] errors, mismatches;
	reg [6:0]  in_use, peak;
	reg [1:0]  resp_last;

	wire fin = started && !g_more && !g_valid && !cmd_valid && in_use == 7'd0;
	assign done = fin;

	wire [63:0] rd_sum, rd_count, wr_sum, wr_count;
	wire [31:0] rd_min, rd_max, wr_min, wr_max;
	wire [511:0] hist;
	wire [95:0] cls;

	sb_hbm_latmon #(.HIST(1)) u_rd_lat (
		.clk(clk), .rst(rst), .clear(start), .valid(r_first && r_count), .lat(r_lat),
		.hist_base(hist_cfg[15:0]), .hist_shift(hist_cfg[19:16]),
		.hit_max(lat_class[15:0]), .closed_max(lat_class[31:16]),
		.sum(rd_sum), .count(rd_count), .min(rd_min), .max(rd_max), .hist(hist), .cls(cls));

	/* verilator lint_off UNUSEDSIGNAL */ // writes keep no histogram
	wire [511:0] wr_hist_unused;
	wire [95:0] wr_cls_unused;
	/* verilator lint_on UNUSEDSIGNAL */
	sb_hbm_latmon #(.HIST(0)) u_wr_lat (
		.clk(clk), .rst(rst), .clear(start), .valid(b_ev && b_count), .lat(b_lat),
		.hist_base(16'd0), .hist_shift(4'd0), .hit_max(16'd0), .closed_max(16'd0),
		.sum(wr_sum), .count(wr_count), .min(wr_min), .max(wr_max),
		.hist(wr_hist_unused), .cls(wr_cls_unused));

	wire [1:0] n_done = {1'b0, r_done} + {1'b0, b_ev};
	wire [1:0] n_txn = {1'b0, r_done && r_count && id_last[rid]} +
	                   {1'b0, b_ev && b_count && id_last[bid]};
	wire [1:0] n_err = {1'b0, r_err} + {1'b0, b_err};
	wire [6:0] in_use_next = in_use + {6'd0, load} - {5'd0, n_done};

	always @(posedge clk) begin
		now <= now + 32'd1;
		// command register and per-ID state
		if (cmd_hs)
			cmd_valid <= 1'b0;
		if (load) begin
			cmd_valid <= 1'b1;
			cmd_write <= g_write;
			cmd_addr <= g_addr;
			cmd_len <= g_beats[3:0] - 4'd1;
			cmd_id <= g_id;
			id_last[g_id] <= g_last;
			id_beats[g_id] <= g_beats;
			id_blk[g_id] <= g_addr[33:5];
			id_beat[g_id] <= 4'd0;
		end
		if (cmd_hs) begin
			id_time[cmd_id] <= now;
			if (counted[cmd_id]) begin
				if (cmd_write)
					wr_bursts <= wr_bursts + 64'd1;
				else
					rd_bursts <= rd_bursts + 64'd1;
			end
		end
		if (r_ev)
			id_beat[rid] <= id_beat[rid] + 4'd1;
		// W FIFO
		if (load && g_write) begin
			wq_blk[wq_wr] <= g_addr[33:5];
			wq_beats[wq_wr] <= g_beats;
			wq_id[wq_wr] <= g_id;
			wq_wr <= wq_wr + 2'd1;
		end
		if (w_hs)
			w_beat <= m_axi_wlast ? 4'd0 : w_beat + 4'd1;
		if (w_pop)
			wq_rd <= wq_rd + 2'd1;
		wq_count <= wq_count + {2'd0, load && g_write} - {2'd0, w_pop};
		// completions
		if (r_done) begin
			if (r_count)
				rd_bytes <= rd_bytes + {54'd0, id_beats[rid], 5'd0};
		end
		if (b_ev && b_count)
			wr_bytes <= wr_bytes + {54'd0, id_beats[bid], 5'd0};
		txns <= txns + {62'd0, n_txn};
		errors <= errors + {30'd0, n_err};
		if (r_err)
			resp_last <= (m_axi_rresp != 2'b00) ? m_axi_rresp : resp_last;
		if (b_err)
			resp_last <= m_axi_bresp;
		if (r_mismatch)
			mismatches <= mismatches + 32'd1;
		in_use <= in_use_next;
		if (in_use_next > peak)
			peak <= in_use_next;
		if (started && !fin)
			active_cycles <= active_cycles + 64'd1;
		// the per-ID bit vectors: set at load, cleared at completion
		begin : ids
			reg [63:0] b, f, e;

			b = busy;
			f = first_seen;
			e = err_acc;
			if (r_ev) begin
				f[rid] = 1'b1;
				if (m_axi_rresp != 2'b00)
					e[rid] = 1'b1;
			end
			if (r_done) begin
				b[rid] = 1'b0;
				e[rid] = 1'b0;
			end
			if (b_ev)
				b[bid] = 1'b0;
			if (load) begin
				b[g_id] = 1'b1;
				f[g_id] = 1'b0;
				e[g_id] = 1'b0;
			end
			busy <= b;
			first_seen <= f;
			err_acc <= e;
		end
		if (load)
			counted[g_id] <= 1'b1;

		// ------------------------------------------------------------ register writes
		if (wr) begin
			case (reg_addr)
			SB_HBM_PORT_CONTROL: begin
				ctl_enable <= ctl_new[SB_HBM_PORT_CONTROL_ENABLE_LSB];
				ctl_op <= ctl_new[SB_HBM_PORT_CONTROL_OP_MSB:SB_HBM_PORT_CONTROL_OP_LSB];
				ctl_mode <= ctl_new[SB_HBM_PORT_CONTROL_MODE_LSB];
				ctl_check <= ctl_new[SB_HBM_PORT_CONTROL_CHECK_LSB];
			end
			SB_HBM_PORT_BURST_BYTES: burst_bytes <= sb_wmerge(burst_bytes, reg_wr_data, reg_wr_strb);
			SB_HBM_PORT_OUTSTANDING: outstanding <= sb_wmerge(outstanding, reg_wr_data, reg_wr_strb);
			SB_HBM_PORT_START_ADDR: start_addr[31:0] <= sb_wmerge(start_addr[31:0], reg_wr_data,
			                                                      reg_wr_strb);
			SB_HBM_PORT_START_ADDR + HI: start_addr[33:32] <= m_sa_hi[1:0];
			SB_HBM_PORT_WS_SIZE: ws_size[31:0] <= sb_wmerge(ws_size[31:0], reg_wr_data, reg_wr_strb);
			SB_HBM_PORT_WS_SIZE + HI: ws_size[34:32] <= m_ws_hi[2:0];
			SB_HBM_PORT_STRIDE: stride <= sb_wmerge(stride, reg_wr_data, reg_wr_strb);
			SB_HBM_PORT_MIX_WRITES: mix_writes <= sb_wmerge(mix_writes, reg_wr_data, reg_wr_strb);
			SB_HBM_PORT_RUN_LEN: run_len[31:0] <= sb_wmerge(run_len[31:0], reg_wr_data, reg_wr_strb);
			SB_HBM_PORT_RUN_LEN + HI: run_len[63:32] <= sb_wmerge(run_len[63:32], reg_wr_data,
			                                                     reg_wr_strb);
			SB_HBM_PORT_SEED: seed <= sb_wmerge(seed, reg_wr_data, reg_wr_strb);
			SB_HBM_PORT_LAT_CLASS: lat_class <= sb_wmerge(lat_class, reg_wr_data, reg_wr_strb);
			SB_HBM_PORT_HIST_CFG: hist_cfg <= m_hist[19:0];
			default: ;
			endcase
		end
		if (start_all)
			ctl_enable <= 1'b1;
		if (stop_all)
			ctl_enable <= 1'b0;
		if (start) begin
			seed_l <= seed;
			check_l <= check_now;
			started <= 1'b1;
			counted <= 64'd0;
			txns <= 64'd0;
			rd_bursts <= 64'd0;
			wr_bursts <= 64'd0;
			rd_bytes <= 64'd0;
			wr_bytes <= 64'd0;
			active_cycles <= 64'd0;
			errors <= 32'd0;
			mismatches <= 32'd0;
			resp_last <= 2'd0;
			peak <= in_use;
		end

		// ------------------------------------------------------------ register reads
		reg_rd_data <= 32'd0;
		if (rd) begin
			case (reg_addr)
			SB_BLK_TYPE: reg_rd_data <= SB_BLK_HBM_PORT_TYPE;
			SB_BLK_VERSION: reg_rd_data <= SB_BLK_HBM_PORT_VERSION;
			SB_BLK_NEXT: reg_rd_data <= next_offset;
			SB_HBM_PORT_INFO: begin
				reg_rd_data <= 32'd0;
				reg_rd_data[SB_HBM_PORT_INFO_INDEX_MSB:SB_HBM_PORT_INFO_INDEX_LSB] <= port_index;
				reg_rd_data[SB_HBM_PORT_INFO_STACK_LSB] <= port_index >= 8'd16;
				reg_rd_data[SB_HBM_PORT_INFO_MAX_OUTSTANDING_MSB:SB_HBM_PORT_INFO_MAX_OUTSTANDING_LSB]
				    <= 8'd64;
				reg_rd_data[SB_HBM_PORT_INFO_MAX_BEATS_MSB:SB_HBM_PORT_INFO_MAX_BEATS_LSB] <= 5'd16;
			end
			SB_HBM_PORT_CONTROL: reg_rd_data <= ctl_word;
			SB_HBM_PORT_STATUS: begin
				reg_rd_data <= 32'd0;
				reg_rd_data[SB_HBM_PORT_STATUS_RUNNING_LSB] <= running;
				reg_rd_data[SB_HBM_PORT_STATUS_DONE_LSB] <= fin;
				reg_rd_data[SB_HBM_PORT_STATUS_IDLE_LSB] <= in_use == 7'd0 && !cmd_valid;
				reg_rd_data[SB_HBM_PORT_STATUS_ERROR_LSB] <= errors != 32'd0;
				reg_rd_data[SB_HBM_PORT_STATUS_MISMATCH_LSB] <= mismatches != 32'd0;
				reg_rd_data[SB_HBM_PORT_STATUS_RESP_MSB:SB_HBM_PORT_STATUS_RESP_LSB] <= resp_last;
			end
			SB_HBM_PORT_BURST_BYTES: reg_rd_data <= burst_bytes;
			SB_HBM_PORT_OUTSTANDING: reg_rd_data <= outstanding;
			SB_HBM_PORT_START_ADDR: reg_rd_data <= start_addr[31:0];
			SB_HBM_PORT_START_ADDR + HI: reg_rd_data <= {30'd0, start_addr[33:32]};
			SB_HBM_PORT_WS_SIZE: reg_rd_data <= ws_size[31:0];
			SB_HBM_PORT_WS_SIZE + HI: reg_rd_data <= {29'd0, ws_size[34:32]};
			SB_HBM_PORT_STRIDE: reg_rd_data <= stride;
			SB_HBM_PORT_MIX_WRITES: reg_rd_data <= mix_writes;
			SB_HBM_PORT_RUN_LEN: reg_rd_data <= run_len[31:0];
			SB_HBM_PORT_RUN_LEN + HI: reg_rd_data <= run_len[63:32];
			SB_HBM_PORT_SEED: reg_rd_data <= seed;
			SB_HBM_PORT_LAT_CLASS: reg_rd_data <= lat_class;
			SB_HBM_PORT_HIST_CFG: reg_rd_data <= {12'd0, hist_cfg};
			SB_HBM_PORT_TXNS: {latch_hi, reg_rd_data} <= txns;
			SB_HBM_PORT_RD_BURSTS: {latch_hi, reg_rd_data} <= rd_bursts;
			SB_HBM_PORT_WR_BURSTS: {latch_hi, reg_rd_data} <= wr_bursts;
			SB_HBM_PORT_RD_BYTES: {latch_hi, reg_rd_data} <= rd_bytes;
			SB_HBM_PORT_WR_BYTES: {latch_hi, reg_rd_data} <= wr_bytes;
			SB_HBM_PORT_ACTIVE_CYCLES: {latch_hi, reg_rd_data} <= active_cycles;
			SB_HBM_PORT_RD_LAT_SUM: {latch_hi, reg_rd_data} <= rd_sum;
			SB_HBM_PORT_RD_LAT_COUNT: {latch_hi, reg_rd_data} <= rd_count;
			SB_HBM_PORT_WR_LAT_SUM: {latch_hi, reg_rd_data} <= wr_sum;
			SB_HBM_PORT_WR_LAT_COUNT: {latch_hi, reg_rd_data} <= wr_count;
			SB_HBM_PORT_TXNS + HI, SB_HBM_PORT_RD_BURSTS + HI, SB_HBM_PORT_WR_BURSTS + HI,
			SB_HBM_PORT_RD_BYTES + HI, SB_HBM_PORT_WR_BYTES + HI, SB_HBM_PORT_ACTIVE_CYCLES + HI,
			SB_HBM_PORT_RD_LAT_SUM + HI, SB_HBM_PORT_RD_LAT_COUNT + HI,
			SB_HBM_PORT_WR_LAT_SUM + HI, SB_HBM_PORT_WR_LAT_COUNT + HI:
				reg_rd_data <= latch_hi;
			SB_HBM_PORT_RD_LAT_MIN: reg_rd_data <= rd_min;
			SB_HBM_PORT_RD_LAT_MAX: reg_rd_data <= rd_max;
			SB_HBM_PORT_WR_LAT_MIN: reg_rd_data <= wr_min;
			SB_HBM_PORT_WR_LAT_MAX: reg_rd_data <= wr_max;
			SB_HBM_PORT_ERRORS: reg_rd_data <= errors;
			SB_HBM_PORT_MISMATCHES: reg_rd_data <= mismatches;
			SB_HBM_PORT_IDS: reg_rd_data <= {16'd0, 1'b0, peak, 1'b0, in_use};
			SB_HBM_PORT_CLS_HIT: reg_rd_data <= cls[31:0];
			SB_HBM_PORT_CLS_CLOSED: reg_rd_data <= cls[63:32];
			SB_HBM_PORT_CLS_MISS: reg_rd_data <= cls[95:64];
			default:
				if (reg_addr >= SB_HBM_PORT_HIST && reg_addr < HIST_END && reg_addr[1:0] == 2'd0)
					reg_rd_data <= hist[reg_addr[5:2] * 32 +: 32];
			endcase
		end

		if (rst) begin
			ctl_enable <= 1'b0;
			ctl_op <= 2'd0;
			ctl_mode <= 1'b0;
			ctl_check <= 1'b0;
			burst_bytes <= SB_HBM_PORT_BURST_BYTES_RESET;
			outstanding <= SB_HBM_PORT_OUTSTANDING_RESET;
			start_addr <= SB_HBM_PORT_START_ADDR_RESET[33:0];
			ws_size <= SB_HBM_PORT_WS_SIZE_RESET[34:0];
			stride <= SB_HBM_PORT_STRIDE_RESET;
			mix_writes <= SB_HBM_PORT_MIX_WRITES_RESET;
			run_len <= SB_HBM_PORT_RUN_LEN_RESET;
			seed <= SB_HBM_PORT_SEED_RESET;
			lat_class <= SB_HBM_PORT_LAT_CLASS_RESET;
			hist_cfg <= SB_HBM_PORT_HIST_CFG_RESET[19:0];
			latch_hi <= 32'd0;
			now <= 32'd0;
			seed_l <= 32'd0;
			check_l <= 1'b0;
			started <= 1'b0;
			cmd_valid <= 1'b0;
			busy <= 64'd0;
			counted <= 64'd0;
			first_seen <= 64'd0;
			err_acc <= 64'd0;
			wq_rd <= 2'd0;
			wq_wr <= 2'd0;
			wq_count <= 3'd0;
			w_beat <= 4'd0;
			txns <= 64'd0;
			rd_bursts <= 64'd0;
			wr_bursts <= 64'd0;
			rd_bytes <= 64'd0;
			wr_bytes <= 64'd0;
			active_cycles <= 64'd0;
			errors <= 32'd0;
			mismatches <= 32'd0;
			in_use <= 7'd0;
			peak <= 7'd0;
			resp_last <= 2'd0;
		end
	end

endmodule

`resetall
