// SPDX-License-Identifier: MIT
/*
 * The trace register block's configuration registers and read decode (regmap.yaml, block
 * `trace`), shared by the AC-510's trace capture (sb_trace) and the HBM2 card's
 * (fpga_hbm2/rtl/sb_hbm_trace): control (enable, dma), burst_len, gap, port_mask, buf_addr,
 * buf_size are kept here; the capture module owns what it counts and the drain index
 * (rd_index, its release and reset pulses) and passes their values in. The 64-bit counters
 * read low word first: reading dropped or records latches its high word for the next read of
 * either's high word. Reads answer one cycle after rd, as every block of the map does.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_trace_regs #(
	parameter [31:0] NEXT_OFFSET = 32'h0,  // NEXT header word
	parameter [31:0] REC_BYTES = 32'd0,    // record_size
	parameter [31:0] DEPTH = 32'd0         // onchip_depth
) (
	input  wire        clk,
	input  wire        rst,
	input  wire        rd,                 // a read of this block (reg_sel && reg_rd_en)
	input  wire        wr,                 // a write of this block
	input  wire [31:0] reg_addr,
	input  wire [31:0] reg_wr_data,
	input  wire [3:0]  reg_wr_strb,
	output reg  [31:0] reg_rd_data,

	// what the capture module counts and holds
	input  wire [31:0] status_word,
	input  wire [31:0] wr_ptr,
	input  wire [63:0] dropped,
	input  wire [63:0] records,
	input  wire [31:0] sample_id,
	input  wire [31:0] rd_index,
	input  wire [31:0] rd_word,
	input  wire [31:0] onchip_count,

	// the configuration
	output reg         c_enable,
	output reg         c_dma,
	output reg  [31:0] c_burst_len,
	output reg  [31:0] c_gap,
	output reg  [31:0] c_port_mask,
	output reg  [63:0] c_buf_addr,
	output reg  [31:0] c_buf_size
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */
`include "sb_reg_func.vh"

	localparam [31:0] HI = 32'd4;

	reg [31:0] latch_hi;
	reg [31:0] control_word;
	always @* begin
		control_word = 32'd0;
		control_word[SB_TRACE_CONTROL_ENABLE_LSB] = c_enable;
		control_word[SB_TRACE_CONTROL_DMA_LSB] = c_dma;
	end
	wire [31:0] w_control = sb_wmerge(control_word, reg_wr_data, reg_wr_strb);

	always @(posedge clk) begin
		reg_rd_data <= 32'd0;
		if (rd) begin
			case (reg_addr)
			SB_BLK_TYPE: reg_rd_data <= SB_BLK_TRACE_TYPE;
			SB_BLK_VERSION: reg_rd_data <= SB_BLK_TRACE_VERSION;
			SB_BLK_NEXT: reg_rd_data <= NEXT_OFFSET;
			SB_TRACE_CONTROL: reg_rd_data <= control_word;
			SB_TRACE_STATUS: reg_rd_data <= status_word;
			SB_TRACE_BURST_LEN: reg_rd_data <= c_burst_len;
			SB_TRACE_GAP: reg_rd_data <= c_gap;
			SB_TRACE_PORT_MASK: reg_rd_data <= c_port_mask;
			SB_TRACE_BUF_ADDR: reg_rd_data <= c_buf_addr[31:0];
			SB_TRACE_BUF_ADDR + HI: reg_rd_data <= c_buf_addr[63:32];
			SB_TRACE_BUF_SIZE: reg_rd_data <= c_buf_size;
			SB_TRACE_WR_PTR: reg_rd_data <= wr_ptr;
			SB_TRACE_DROPPED: begin
				reg_rd_data <= dropped[31:0];
				latch_hi <= dropped[63:32];
			end
			SB_TRACE_RECORDS: begin
				reg_rd_data <= records[31:0];
				latch_hi <= records[63:32];
			end
			SB_TRACE_DROPPED + HI, SB_TRACE_RECORDS + HI: reg_rd_data <= latch_hi;
			SB_TRACE_SAMPLE_ID: reg_rd_data <= sample_id;
			SB_TRACE_RECORD_SIZE: reg_rd_data <= REC_BYTES;
			SB_TRACE_ONCHIP_DEPTH: reg_rd_data <= DEPTH;
			SB_TRACE_RD_INDEX: reg_rd_data <= rd_index;
			SB_TRACE_RD_DATA: reg_rd_data <= rd_word;
			SB_TRACE_ONCHIP_COUNT: reg_rd_data <= onchip_count;
			default: reg_rd_data <= 32'd0;
			endcase
		end
		if (wr) begin
			case (reg_addr)
			SB_TRACE_CONTROL: begin
				c_enable <= w_control[SB_TRACE_CONTROL_ENABLE_LSB];
				c_dma <= w_control[SB_TRACE_CONTROL_DMA_LSB];
			end
			SB_TRACE_BURST_LEN: c_burst_len <= sb_wmerge(c_burst_len, reg_wr_data, reg_wr_strb);
			SB_TRACE_GAP: c_gap <= sb_wmerge(c_gap, reg_wr_data, reg_wr_strb);
			SB_TRACE_PORT_MASK: c_port_mask <= sb_wmerge(c_port_mask, reg_wr_data, reg_wr_strb);
			SB_TRACE_BUF_ADDR:
				c_buf_addr[31:0] <= sb_wmerge(c_buf_addr[31:0], reg_wr_data, reg_wr_strb);
			SB_TRACE_BUF_ADDR + HI:
				c_buf_addr[63:32] <= sb_wmerge(c_buf_addr[63:32], reg_wr_data, reg_wr_strb);
			SB_TRACE_BUF_SIZE: c_buf_size <= sb_wmerge(c_buf_size, reg_wr_data, reg_wr_strb);
			default: ;
			endcase
		end
		if (rst) begin
			latch_hi <= 32'd0;
			c_enable <= SB_TRACE_CONTROL_RESET[SB_TRACE_CONTROL_ENABLE_LSB];
			c_dma <= SB_TRACE_CONTROL_RESET[SB_TRACE_CONTROL_DMA_LSB];
			c_burst_len <= SB_TRACE_BURST_LEN_RESET;
			c_gap <= SB_TRACE_GAP_RESET;
			c_port_mask <= SB_TRACE_PORT_MASK_RESET;
			c_buf_addr <= SB_TRACE_BUF_ADDR_RESET;
			c_buf_size <= SB_TRACE_BUF_SIZE_RESET;
		end
	end

endmodule

`resetall
