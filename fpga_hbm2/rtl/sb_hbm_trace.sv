// SPDX-License-Identifier: MIT
/*
 * Trace capture on the HBM2 card: the trace register block of the generated map (board hbm2,
 * docs/traces-on-the-board.md "HBM2 cards") with hbm_trace_record records, one per AXI burst
 * (an AR or AW handshake of an engine) — the block fpga_hbm2/model/hbm_trace.c implements.
 *
 * Sampling is decided at the handshake: while control.enable is set and not in a gap, the
 * handshakes of the ports in port_mask are taken, in ascending port order within a cycle,
 * until burst_len were taken (burst_len 0: one endless burst); the handshakes after the
 * burst's last in the same cycle and those of the next `gap` cycles are not; sample_id counts
 * the bursts. A burst taken is remembered per port and AXI ID (its sample_id's low 16 bits)
 * and its record is made when its latency is known: at the first R beat (reads, RRESP of that
 * beat) or B (writes, BRESP), with the handshake time (hbm_card.cycles) = now - latency.
 *
 * Each port has a 4-record queue (a read and a write may complete in the same cycle; two
 * LUT-RAM banks, see g_q); one record per cycle leaves the queues, round-robin among the
 * ports, into the on-chip ring of DEPTH records (block RAM) read through rd_index / rd_data
 * and emptied from its oldest record with rd_release. A record that finds its port's queue
 * full or the ring full is dropped and counted, and so is every record while control.dma is
 * set: this card has no DMA engine (buf_addr / buf_size are kept, wr_ptr stays 0). seq is the
 * number of records written before.
 *
 * Differences from the model, which makes a record when a burst is issued: records enter the
 * ring in completion order (the host sorts by time); burst_len counts the bursts taken at the
 * handshake, dropped ones included; a burst completing 65,536 or more bursts (sample_ids)
 * after it was taken carries a wrong sample_id.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_hbm_trace #(
	parameter integer N = 32,              // ports
	parameter integer DEPTH = 0,           // on-chip records; 0 = the map's onchip_depth reset
	parameter [31:0]  NEXT_OFFSET = 32'h0  // NEXT header word
) (
	input  wire            clk,
	input  wire            rst,
	input  wire [63:0]     now,            // hbm_card.cycles

	input  wire            reg_sel,
	input  wire [31:0]     reg_addr,
	input  wire            reg_wr_en,
	input  wire [31:0]     reg_wr_data,
	input  wire [3:0]      reg_wr_strb,
	input  wire            reg_rd_en,
	output wire [31:0]     reg_rd_data,

	// AR / AW handshakes of the ports (one per port and cycle at most)
	input  wire [N-1:0]    hs_valid,
	input  wire [N*6-1:0]  hs_id,
	// first R beat of a burst, and B (packed port-major)
	input  wire [N-1:0]    rc_valid,
	input  wire [N*6-1:0]  rc_id,
	input  wire [N*29-1:0] rc_blk,         // address bits 33..5
	input  wire [N*5-1:0]  rc_beats,
	input  wire [N*2-1:0]  rc_resp,
	input  wire [N*32-1:0] rc_lat,
	input  wire [N-1:0]    bc_valid,
	input  wire [N*6-1:0]  bc_id,
	input  wire [N*29-1:0] bc_blk,
	input  wire [N*5-1:0]  bc_beats,
	input  wire [N*2-1:0]  bc_resp,
	input  wire [N*32-1:0] bc_lat
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */
`include "sb_reg_func.vh"

	localparam integer D = (DEPTH == 0) ? SB_TRACE_ONCHIP_DEPTH_RESET : DEPTH;
	localparam integer AW = $clog2(D);
	localparam [31:0] REC_BYTES = SB_HBM_TRACE_RECORD_WORDS * 4;
	localparam integer IW = (N > 1) ? $clog2(N) : 1;
	// a queued record: time 64, blk 29, write 1, beats 5, id 6, resp 2, latency 32, sample 32
	localparam integer QW = 64 + 29 + 1 + 5 + 6 + 2 + 32 + 32;

	generate
		if ((1 << AW) != D || D < 2)
			$error("sb_hbm_trace: DEPTH must be a power of two >= 2 (instance %m)");
		if (N < 1 || N > 32)
			$error("sb_hbm_trace: N must be 1..32 (instance %m)");
		if (SB_HBM_TRACE_RECORD_WORDS != 8)
			$error("sb_hbm_trace: the record layout changed; update the record packing");
	endgenerate

	// ---------------------------------------------------------------- registers
	wire        c_enable, c_dma;      // the configuration (sb_trace_regs)
	wire [31:0] c_burst_len, c_gap, c_port_mask;
	/* verilator lint_off UNUSEDSIGNAL */ // buf_addr / buf_size are kept and read back: no DMA here
	wire [31:0] c_buf_size;
	wire [63:0] c_buf_addr;
	/* verilator lint_on UNUSEDSIGNAL */
	reg [31:0]  c_rd_index;
	reg [31:0]  sample_id;
	reg [63:0]  records, dropped;
	reg [AW:0]  onchip_count;
	reg [AW-1:0] rd_base;          // oldest record of the ring

	wire wr = reg_wr_en && reg_sel;
	wire rd = reg_rd_en && reg_sel;
	wire [31:0] ones = sb_wones(reg_wr_data, reg_wr_strb);
	wire reset_pulse = wr && reg_addr == SB_TRACE_CONTROL && ones[SB_TRACE_CONTROL_RESET_LSB];
	wire release_wr = wr && reg_addr == SB_TRACE_RD_RELEASE;
	wire [31:0] rel_req = sb_wmerge(32'd0, reg_wr_data, reg_wr_strb);
	wire [AW:0] rel_n = (rel_req >= {{(31 - AW){1'b0}}, onchip_count}) ? onchip_count :
	                    rel_req[AW:0];

	// ---------------------------------------------------------------- sampling (handshakes)
	reg in_gap;
	reg [31:0] burst_cnt, gap_cnt;
	wire sampling = c_enable && !in_gap;
	reg [N-1:0] take;
	reg [31:0] taken;
	reg ended;
	integer k;
	always @* begin
		take = {N{1'b0}};
		taken = 32'd0;
		ended = 1'b0;
		for (k = 0; k < N; k = k + 1)
			if (sampling && !ended && hs_valid[k] && c_port_mask[k]) begin
				take[k] = 1'b1;
				taken = taken + 32'd1;
				if (c_burst_len != 32'd0 && burst_cnt + taken >= c_burst_len)
					ended = 1'b1;
			end
	end

	// ---------------------------------------------------------------- per-port queues
	reg [N-1:0] q_nonempty;
	wire [N-1:0] pick;
	wire [IW-1:0] pick_idx;
	wire pick_valid;
	wire full = onchip_count == D[AW:0];
	wire write_rec = pick_valid && !c_dma && !full;
	reg [7:0] drops_now;           // records lost this cycle

	sb_rr_arbiter #(.N(N), .IDX_W(IW)) u_rr (
		.clk(clk), .rst(rst), .req(q_nonempty), .accept(pick_valid),
		.grant(pick), .grant_idx(pick_idx), .grant_valid(pick_valid));

	wire [QW-1:0] q_head [0:N-1];
	wire [1:0] q_lost [0:N-1];

	genvar p;
	generate
		for (p = 0; p < N; p = p + 1) begin : g_q
			reg        smp [0:63];          // the burst with this ID was taken
			reg [15:0] smp_sid [0:63];      // and its sample_id's low bits
			// The 4-record queue as two banks of 2 (slot s in bank s[0], row s[1]): a cycle
			// writes at most two records into consecutive slots, so one per bank, and each
			// bank is a memory of one write port read asynchronously: LUT-RAM, not flip-flops.
			(* ram_style = "distributed" *) reg [QW-1:0] q_even [0:1];
			(* ram_style = "distributed" *) reg [QW-1:0] q_odd [0:1];
			reg [1:0]  q_rd, q_wr;
			reg [2:0]  q_count;

			wire [5:0] hid = hs_id[p*6 +: 6];
			wire [5:0] rid = rc_id[p*6 +: 6];
			wire [5:0] bid = bc_id[p*6 +: 6];
			wire r_in = rc_valid[p] && smp[rid];
			wire b_in = bc_valid[p] && smp[bid];
			wire pop = pick_valid && pick[p];
			// room after this cycle's pop
			wire [2:0] room = 3'd4 - q_count + {2'd0, pop};
			wire r_ok = r_in && room != 3'd0;
			wire b_ok = b_in && room > {2'd0, r_ok};

			function automatic [31:0] full_sid(input [15:0] s);
				full_sid = sample_id - {16'd0, sample_id[15:0] - s};
			endfunction

			wire [31:0] r_lat = rc_lat[p*32 +: 32], b_lat = bc_lat[p*32 +: 32];
			wire [QW-1:0] r_rec = {now - {32'd0, r_lat}, rc_blk[p*29 +: 29], 1'b0,
			                       rc_beats[p*5 +: 5], rid, rc_resp[p*2 +: 2], r_lat,
			                       full_sid(smp_sid[rid])};
			wire [QW-1:0] b_rec = {now - {32'd0, b_lat}, bc_blk[p*29 +: 29], 1'b1,
			                       bc_beats[p*5 +: 5], bid, bc_resp[p*2 +: 2], b_lat,
			                       full_sid(smp_sid[bid])};

			// slot q_wr takes the first record of the cycle (R if any), slot q_wr + 1 the B
			// that comes with an R
			wire w_first = r_ok || b_ok;
			wire w_second = r_ok && b_ok;
			wire [QW-1:0] first_rec = r_ok ? r_rec : b_rec;
			wire q_row1 = q_wr[1] ^ q_wr[0];  // row of slot q_wr + 1
			wire first_even = !q_wr[0];    // the second goes to the other bank

			assign q_head[p] = q_rd[0] ? q_odd[q_rd[1]] : q_even[q_rd[1]];
			assign q_lost[p] = {1'b0, r_in && !r_ok} + {1'b0, b_in && !b_ok};
			always @* q_nonempty[p] = q_count != 3'd0;

			always @(posedge clk) begin
				if (take[p]) begin
					smp[hid] <= 1'b1;
					smp_sid[hid] <= sample_id[15:0];
				end else if (hs_valid[p]) begin
					smp[hid] <= 1'b0;
				end
				if (w_first && first_even)
					q_even[q_wr[1]] <= first_rec;
				else if (w_second && !first_even)
					q_even[q_row1] <= b_rec;
				if (w_first && !first_even)
					q_odd[q_wr[1]] <= first_rec;
				else if (w_second && first_even)
					q_odd[q_row1] <= b_rec;
				q_wr <= q_wr + {1'b0, r_ok} + {1'b0, b_ok};
				if (pop)
					q_rd <= q_rd + 2'd1;
				q_count <= q_count + {2'd0, r_ok} + {2'd0, b_ok} - {2'd0, pop};
				if (rst || reset_pulse) begin
					q_rd <= 2'd0;
					q_wr <= 2'd0;
					q_count <= 3'd0;
				end
			end
		end
	endgenerate

	integer d;
	always @* begin
		drops_now = {7'd0, pick_valid && !write_rec};
		for (d = 0; d < N; d = d + 1)
			drops_now = drops_now + {6'd0, q_lost[d]};
	end

	// ---------------------------------------------------------------- record assembly
	wire [QW-1:0] h = q_head[pick_idx];
	wire [63:0] h_time = h[QW-1 -: 64];
	wire [28:0] h_blk = h[106:78];
	wire h_write = h[77];
	wire [4:0] h_beats = h[76:72];
	wire [5:0] h_id = h[71:66];
	wire [1:0] h_resp = h[65:64];
	wire [31:0] h_latency = h[63:32];
	wire [31:0] h_sample = h[31:0];
	wire [33:0] h_addr = {h_blk, 5'd0};
	reg [31:0] w3;
	always @* begin
		w3 = 32'd0;
		w3[SB_HBM_TRACE_RECORD_ADDR_HI_MSB:SB_HBM_TRACE_RECORD_ADDR_HI_LSB] = h_addr[33:32];
		w3[SB_HBM_TRACE_RECORD_WRITE_LSB] = h_write;
		w3[SB_HBM_TRACE_RECORD_BEATS_MSB:SB_HBM_TRACE_RECORD_BEATS_LSB] = h_beats;
		w3[SB_HBM_TRACE_RECORD_ID_MSB:SB_HBM_TRACE_RECORD_ID_LSB] = {1'b0, h_id};
		w3[SB_HBM_TRACE_RECORD_PORT_MSB:SB_HBM_TRACE_RECORD_PORT_LSB] =
		    {{(8 - IW){1'b0}}, pick_idx};
		w3[SB_HBM_TRACE_RECORD_RESP_MSB:SB_HBM_TRACE_RECORD_RESP_LSB] = h_resp;
	end
	wire [31:0] w0 = h_time[31:0], w1 = h_time[63:32], w2 = h_addr[31:0], w4 = h_latency;
	wire [31:0] w5 = h_sample, w6 = records[31:0];
	wire [31:0] w7 = w0 ^ w2 ^ w3 ^ w4 ^ SB_REGMAP_MAGIC;
	wire [255:0] rec = {w7, w6, w5, w4, w3, w2, w1, w0};

	// ---------------------------------------------------------------- on-chip ring (BRAM)
	reg [255:0] mem [0:D-1];
	reg [255:0] rd_row;
	always @(posedge clk) begin
		if (write_rec)
			mem[rd_base + onchip_count[AW-1:0]] <= rec;
		rd_row <= mem[rd_base + c_rd_index[AW+2:3]];
	end
	wire rd_in_range = c_rd_index[31:3] < {{(28 - AW){1'b0}}, onchip_count};
	wire [31:0] rd_word = rd_in_range ? rd_row[c_rd_index[2:0]*32 +: 32] : 32'd0;

	// ---------------------------------------------------------------- capture state
	always @(posedge clk) begin
		dropped <= dropped + {56'd0, drops_now};
		if (write_rec)
			records <= records + 64'd1;
		burst_cnt <= ended ? 32'd0 : burst_cnt + taken;
		if (ended) begin
			sample_id <= sample_id + 32'd1;
			if (c_gap != 32'd0) begin
				in_gap <= 1'b1;
				gap_cnt <= 32'd0;
			end
		end
		if (in_gap && c_enable) begin
			gap_cnt <= gap_cnt + 32'd1;
			if (gap_cnt + 32'd1 >= c_gap)
				in_gap <= 1'b0;
		end
		onchip_count <= onchip_count + {{AW{1'b0}}, write_rec} -
		                (release_wr ? rel_n : {(AW + 1){1'b0}});
		if (release_wr) begin
			rd_base <= rd_base + rel_n[AW-1:0];
			c_rd_index <= 32'd0;
		end
		if (rd && reg_addr == SB_TRACE_RD_DATA)
			c_rd_index <= c_rd_index + 32'd1;
		if (wr && reg_addr == SB_TRACE_RD_INDEX)
			c_rd_index <= sb_wmerge(c_rd_index, reg_wr_data, reg_wr_strb);
		if (rst || reset_pulse) begin
			records <= 64'd0;
			dropped <= 64'd0;
			burst_cnt <= 32'd0;
			gap_cnt <= 32'd0;
			in_gap <= 1'b0;
			sample_id <= 32'd0;
			onchip_count <= {(AW + 1){1'b0}};
			rd_base <= {AW{1'b0}};
			c_rd_index <= 32'd0;
		end
	end

	// ---------------------------------------------------------------- register access
	reg [31:0] status_word;
	always @* begin
		status_word = 32'd0;
		status_word[SB_TRACE_STATUS_ACTIVE_LSB] = c_enable && burst_cnt != 32'd0;
		status_word[SB_TRACE_STATUS_FULL_LSB] = full;
	end

	sb_trace_regs #(
		.NEXT_OFFSET(NEXT_OFFSET),
		.REC_BYTES(REC_BYTES),
		.DEPTH(D)
	) u_regs (
		.clk(clk), .rst(rst), .rd(rd), .wr(wr), .reg_addr(reg_addr), .reg_wr_data(reg_wr_data),
		.reg_wr_strb(reg_wr_strb), .reg_rd_data(reg_rd_data), .status_word(status_word),
		.wr_ptr(32'd0), .dropped(dropped), .records(records), .sample_id(sample_id),
		.rd_index(c_rd_index), .rd_word(rd_word), .onchip_count({{(31 - AW){1'b0}}, onchip_count}),
		.c_enable(c_enable), .c_dma(c_dma), .c_burst_len(c_burst_len), .c_gap(c_gap),
		.c_port_mask(c_port_mask), .c_buf_addr(c_buf_addr), .c_buf_size(c_buf_size)
	);

endmodule

`resetall
