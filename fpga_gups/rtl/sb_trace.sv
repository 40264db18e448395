// SPDX-License-Identifier: MIT
/*
 * Trace capture: the trace register block of the generated map.
 *
 * Sampling: while control.enable is set, capture alternates between bursts and gaps. In a
 * burst, requests of the ports in port_mask (one record per completed request, posted writes
 * when issued) are recorded until burst_len records were written (burst_len 0 = one endless
 * burst); then capture pauses for `gap` cycles (records offered then are ignored) and the next
 * burst (sample_id + 1) starts. With gap 0 the bursts follow each other directly.
 *
 * Each port's record waits in a one-record holding register; one record per cycle is written,
 * round-robin among the ports. A record offered while its port's holding register is full,
 * or that cannot be written because the on-chip buffer is full, is dropped and counted.
 *
 * Records (docs/regmap.md, trace_record: 8 little-endian words) go to an on-chip ring buffer of
 * DEPTH records read through rd_index / rd_data (counted from the oldest record held) and
 * emptied from its oldest record with rd_release (block version 1.1: the host drains while
 * capture goes on) or, with control.dma, to the AXI4-Stream output (one record per beat,
 * tuser = the host bus address buf_addr + wr_ptr) for a DMA engine; wr_ptr advances by
 * record_size modulo buf_size.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_trace #(
	parameter integer N = 9,                // ports
	parameter integer DEPTH = 0,            // on-chip records; 0 = the map's onchip_depth reset
	parameter [31:0]  NEXT_OFFSET = 32'h0   // NEXT header word
) (
	input  wire           clk,
	input  wire           rst,
	input  wire [63:0]    now,

	input  wire           reg_sel,
	input  wire [31:0]    reg_addr,
	input  wire           reg_wr_en,
	input  wire [31:0]    reg_wr_data,
	input  wire [3:0]     reg_wr_strb,
	input  wire           reg_rd_en,
	output wire [31:0]    reg_rd_data,

	// Record taps of the ports (packed port-major)
	input  wire [N-1:0]   trc_valid,
	input  wire [N*34-1:0] trc_addr,
	input  wire [N-1:0]   trc_write,
	input  wire [N*4-1:0] trc_flits,
	input  wire [N*6-1:0] trc_tag,
	input  wire [N*7-1:0] trc_errstat,
	input  wire [N*32-1:0] trc_time,
	input  wire [N*32-1:0] trc_latency,
	input  wire [N-1:0]   trc_drop,

	output reg            burst_done,       // pulse: a burst completed (irq trace_ready)

	// Records for a DMA engine (control.dma)
	output reg  [255:0]   m_axis_tdata,
	output reg  [63:0]    m_axis_tuser,     // host bus address of the record
	output reg            m_axis_tvalid,
	input  wire           m_axis_tready
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */
`include "sb_reg_func.vh"

	localparam integer D = (DEPTH == 0) ? SB_TRACE_ONCHIP_DEPTH_RESET : DEPTH;
	localparam integer AW = $clog2(D);
	localparam [31:0] REC_BYTES = SB_TRACE_RECORD_WORDS * 4;
	localparam integer HOLD_W = 64 + 34 + 1 + 4 + 6 + 7 + 32;

	generate
		if ((1 << AW) != D)
			$error("sb_trace: DEPTH must be a power of two (instance %m)");
		if (N < 1 || N > 32)
			$error("sb_trace: N must be 1..32 (instance %m)");
		if (SB_TRACE_RECORD_WORDS != 8)
			$error("sb_trace: the record layout changed; update the record packing");
	endgenerate

	// ---------------------------------------------------------------- registers
	wire        c_enable, c_dma;      // the configuration (sb_trace_regs)
	/* verilator lint_off UNUSEDSIGNAL */ // port_mask reads back all 32 bits; N ports use N
	wire [31:0] c_burst_len, c_gap, c_port_mask, c_buf_size;
	/* verilator lint_on UNUSEDSIGNAL */
	wire [63:0] c_buf_addr;
	reg [31:0]  c_rd_index;
	reg [31:0]  wr_ptr, sample_id;
	reg [63:0]  records, dropped;
	reg [AW:0]  onchip_count;
	reg [AW-1:0] rd_base;          // oldest record of the ring
	reg         wrapped;

	wire wr = reg_wr_en && reg_sel;
	wire rd = reg_rd_en && reg_sel;
	wire [31:0] ones = sb_wones(reg_wr_data, reg_wr_strb);
	wire reset_pulse = wr && reg_addr == SB_TRACE_CONTROL && ones[SB_TRACE_CONTROL_RESET_LSB];
	// rd_release: the oldest min(N, onchip_count) records leave the buffer.
	wire release_wr = wr && reg_addr == SB_TRACE_RD_RELEASE;
	wire [31:0] rel_req = sb_wmerge(32'd0, reg_wr_data, reg_wr_strb);
	wire [AW:0] rel_n = (rel_req >= {{(31 - AW){1'b0}}, onchip_count}) ? onchip_count :
	                    rel_req[AW:0];

	// ---------------------------------------------------------------- sampling state
	reg in_gap;
	reg [31:0] burst_cnt, gap_cnt;
	wire full = onchip_count == D[AW:0];
	wire active = c_enable && !in_gap;

	// ---------------------------------------------------------------- holding registers
	reg [N-1:0] hold_valid;
	reg [HOLD_W-1:0] hold [0:N-1];
	wire [N-1:0] pick;
	wire [$clog2(N > 1 ? N : 2)-1:0] pick_idx;
	wire pick_valid;
	wire sink_ready = c_dma ? (!m_axis_tvalid || m_axis_tready) : 1'b1;
	wire write_rec = pick_valid && sink_ready && (c_dma || !full);
	wire drop_rec = pick_valid && !c_dma && full;
	wire burst_end = write_rec && c_burst_len != 32'd0 && burst_cnt + 32'd1 >= c_burst_len;

	sb_rr_arbiter #(.N(N), .IDX_W($clog2(N > 1 ? N : 2))) u_rr (
		.clk(clk), .rst(rst), .req(hold_valid), .accept(write_rec || drop_rec),
		.grant(pick), .grant_idx(pick_idx), .grant_valid(pick_valid));

	// Records offered this cycle that are sampled, and those lost for a full holding register.
	wire [N-1:0] take = trc_valid & c_port_mask[N-1:0] & {N{active}};
	wire [N-1:0] freed = pick & {N{write_rec || drop_rec}};
	wire [N-1:0] overflow = take & hold_valid & ~freed;
	wire [N-1:0] port_drops = trc_drop & c_port_mask[N-1:0] & {N{active}};
	reg [7:0] drops_now;
	integer k;
	always @* begin
		drops_now = {7'd0, drop_rec};
		for (k = 0; k < N; k = k + 1)
			drops_now = drops_now + {7'd0, overflow[k]} + {7'd0, port_drops[k]};
	end

	// ---------------------------------------------------------------- record assembly
	wire [HOLD_W-1:0] h = hold[pick_idx];
	wire [63:0] h_time = h[HOLD_W-1 -: 64];
	wire [33:0] h_addr = h[83:50];
	wire h_write = h[49];
	wire [3:0] h_flits = h[48:45];
	wire [5:0] h_tag = h[44:39];
	wire [6:0] h_errstat = h[38:32];
	wire [31:0] h_latency = h[31:0];
	reg [31:0] w3;
	always @* begin
		w3 = 32'd0;
		w3[SB_TRACE_RECORD_ADDR_HI_MSB:SB_TRACE_RECORD_ADDR_HI_LSB] = h_addr[33:32];
		w3[SB_TRACE_RECORD_WRITE_LSB] = h_write;
		w3[SB_TRACE_RECORD_FLITS_MSB:SB_TRACE_RECORD_FLITS_LSB] = h_flits;
		w3[SB_TRACE_RECORD_TAG_MSB:SB_TRACE_RECORD_TAG_LSB] = {2'd0, h_tag};
		w3[SB_TRACE_RECORD_PORT_MSB:SB_TRACE_RECORD_PORT_LSB] = {{(8 - $bits(pick_idx)){1'b0}},
		                                                        pick_idx};
		w3[SB_TRACE_RECORD_ERRSTAT_MSB:SB_TRACE_RECORD_ERRSTAT_LSB] = h_errstat;
	end
	wire [31:0] w0 = h_time[31:0], w1 = h_time[63:32], w2 = h_addr[31:0], w4 = h_latency;
	wire [31:0] w5 = sample_id, w6 = records[31:0];
	wire [31:0] w7 = w0 ^ w2 ^ w3 ^ w4 ^ SB_REGMAP_MAGIC;
	wire [255:0] rec = {w7, w6, w5, w4, w3, w2, w1, w0};

	// ---------------------------------------------------------------- on-chip buffer
	reg [255:0] mem [0:D-1];
	reg [255:0] rd_row;
	always @(posedge clk) begin
		if (write_rec && !c_dma)
			mem[rd_base + onchip_count[AW-1:0]] <= rec;
		rd_row <= mem[rd_base + c_rd_index[AW+2:3]];
	end
	wire rd_in_range = c_rd_index[31:3] < {{(28 - AW){1'b0}}, onchip_count};
	wire [31:0] rd_word = rd_in_range ? rd_row[c_rd_index[2:0]*32 +: 32] : 32'd0;

	// ---------------------------------------------------------------- capture
	// 64-bit issue time from its low 32 bits (issued at most 2^32 cycles ago).
	function automatic [63:0] full_time(input [31:0] t);
		begin
			full_time = {now[63:32], t};
			if (t > now[31:0])
				full_time = {now[63:32] - 32'd1, t};
		end
	endfunction

	wire [31:0] wr_ptr_next = (wr_ptr + REC_BYTES >= c_buf_size) ? 32'd0 : wr_ptr + REC_BYTES;
	integer p;
	always @(posedge clk) begin
		burst_done <= 1'b0;
		if (m_axis_tvalid && m_axis_tready)
			m_axis_tvalid <= 1'b0;
		for (p = 0; p < N; p = p + 1) begin
			if ((write_rec || drop_rec) && pick[p])
				hold_valid[p] <= 1'b0;
			if (take[p] && (!hold_valid[p] || ((write_rec || drop_rec) && pick[p]))) begin
				hold_valid[p] <= 1'b1;
				hold[p] <= {full_time(trc_time[p*32 +: 32]), trc_addr[p*34 +: 34],
				            trc_write[p], trc_flits[p*4 +: 4], trc_tag[p*6 +: 6],
				            trc_errstat[p*7 +: 7], trc_latency[p*32 +: 32]};
			end
		end
		dropped <= dropped + {56'd0, drops_now};
		if (write_rec) begin
			records <= records + 64'd1;
			burst_cnt <= burst_cnt + 32'd1;
			if (c_dma) begin
				m_axis_tvalid <= 1'b1;
				m_axis_tdata <= rec;
				m_axis_tuser <= c_buf_addr + {32'd0, wr_ptr};
				wr_ptr <= wr_ptr_next;
				if (wr_ptr_next == 32'd0)
					wrapped <= 1'b1;
			end
		end
		// The ring: a record written and the oldest ones released in the same cycle.
		onchip_count <= onchip_count + {{AW{1'b0}}, write_rec && !c_dma} -
		                (release_wr ? rel_n : {(AW + 1){1'b0}});
		if (release_wr) begin
			rd_base <= rd_base + rel_n[AW-1:0];
			c_rd_index <= 32'd0;
		end
		if (burst_end) begin
			burst_done <= 1'b1;
			burst_cnt <= 32'd0;
			if (c_gap != 32'd0) begin
				in_gap <= 1'b1;
				gap_cnt <= 32'd0;
				hold_valid <= {N{1'b0}};
			end else begin
				sample_id <= sample_id + 32'd1;
			end
		end
		if (in_gap && c_enable) begin
			gap_cnt <= gap_cnt + 32'd1;
			if (gap_cnt + 32'd1 >= c_gap) begin
				in_gap <= 1'b0;
				sample_id <= sample_id + 32'd1;
			end
		end
		if (rd && reg_addr == SB_TRACE_RD_DATA)
			c_rd_index <= c_rd_index + 32'd1;
		if (wr && reg_addr == SB_TRACE_RD_INDEX)
			c_rd_index <= sb_wmerge(c_rd_index, reg_wr_data, reg_wr_strb);
		if (rst || reset_pulse) begin
			hold_valid <= {N{1'b0}};
			records <= 64'd0;
			dropped <= 64'd0;
			burst_cnt <= 32'd0;
			gap_cnt <= 32'd0;
			in_gap <= 1'b0;
			sample_id <= 32'd0;
			onchip_count <= {(AW + 1){1'b0}};
			rd_base <= {AW{1'b0}};
			wr_ptr <= 32'd0;
			wrapped <= 1'b0;
			c_rd_index <= 32'd0;
		end
		if (rst) begin
			m_axis_tvalid <= 1'b0;
			burst_done <= 1'b0;
		end
	end

	// ---------------------------------------------------------------- register access
	reg [31:0] status_word;
	always @* begin
		status_word = 32'd0;
		status_word[SB_TRACE_STATUS_ACTIVE_LSB] = active;
		status_word[SB_TRACE_STATUS_FULL_LSB] = full;
		status_word[SB_TRACE_STATUS_WRAPPED_LSB] = wrapped;
	end

	sb_trace_regs #(
		.NEXT_OFFSET(NEXT_OFFSET),
		.REC_BYTES(REC_BYTES),
		.DEPTH(D)
	) u_regs (
		.clk(clk), .rst(rst), .rd(rd), .wr(wr), .reg_addr(reg_addr), .reg_wr_data(reg_wr_data),
		.reg_wr_strb(reg_wr_strb), .reg_rd_data(reg_rd_data), .status_word(status_word),
		.wr_ptr(wr_ptr), .dropped(dropped), .records(records), .sample_id(sample_id),
		.rd_index(c_rd_index), .rd_word(rd_word), .onchip_count({{(31 - AW){1'b0}}, onchip_count}),
		.c_enable(c_enable), .c_dma(c_dma), .c_burst_len(c_burst_len), .c_gap(c_gap),
		.c_port_mask(c_port_mask), .c_buf_addr(c_buf_addr), .c_buf_size(c_buf_size)
	);

endmodule

`resetall
