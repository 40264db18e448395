// SPDX-License-Identifier: MIT
/*
 * The fw_id and board register blocks of the generated map: identification constants, the
 * free-running user-clock cycle counter (board.cycles, also the time base of every latency
 * and trace time stamp) and the scratch register. Identity values are parameters; 0 selects
 * the map's reset value where 0 is not a meaningful value. The HBM2 card's design
 * (fpga_hbm2/rtl/sb_hbm_card.sv) uses the fw_id block and the cycle counter of this module with
 * its own register space's size (REGMAP_SIZE) and the board block never selected.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_ident_regs #(
	parameter integer PORTS = 9,            // GUPS port blocks (board.port_count)
	parameter [31:0]  FW_VERSION = 32'h0,   // design version; 0 = map reset (1.0)
	parameter [31:0]  BUILD_ID = 32'h0,     // build identifier (e.g. synthesis date)
	parameter [31:0]  BOARD_ID = 32'h0,     // 0 = map reset (AC-510)
	parameter [31:0]  USER_CLOCK_HZ = 32'h0,// 0 = map reset (187.5 MHz)
	parameter [31:0]  LINK_CONFIG = 32'h0,  // 0 = map reset (2 links x 8 lanes x 15 Gb/s)
	parameter [31:0]  CUBE_CONFIG = 32'h0,  // 0 = map reset (4 GB HMC 1.1)
	parameter [31:0]  SERIAL = 32'h0,       // board serial number
	parameter integer HAS_DMA = 1,          // features.dma: trace records leave on m_axis
	parameter [31:0]  REGMAP_SIZE = 32'h0,  // fw_id.regmap_size; 0 = map reset (the AC-510's)
	parameter [31:0]  FW_ID_NEXT = 32'h0,   // NEXT header words
	parameter [31:0]  BOARD_NEXT = 32'h0
) (
	input  wire        clk,
	input  wire        rst,

	input  wire        reg_sel_fw_id,
	input  wire        reg_sel_board,
	input  wire [31:0] reg_addr,
	input  wire        reg_wr_en,
	input  wire [31:0] reg_wr_data,
	input  wire [3:0]  reg_wr_strb,
	input  wire        reg_rd_en,
	output reg  [31:0] reg_rd_data,

	output reg  [63:0] cycles
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */
`include "sb_reg_func.vh"

	localparam [31:0] HI = 32'd4;
	localparam [31:0] V_FW_VERSION = (FW_VERSION != 0) ? FW_VERSION : SB_FW_ID_FW_VERSION_RESET;
	localparam [31:0] V_SIZE = (REGMAP_SIZE != 0) ? REGMAP_SIZE : SB_FW_ID_REGMAP_SIZE_RESET;
	localparam [31:0] V_BOARD_ID = (BOARD_ID != 0) ? BOARD_ID : SB_BOARD_BOARD_ID_RESET;
	localparam [31:0] V_CLOCK = (USER_CLOCK_HZ != 0) ? USER_CLOCK_HZ :
	                            SB_BOARD_USER_CLOCK_HZ_RESET;
	localparam [31:0] V_LINKS = (LINK_CONFIG != 0) ? LINK_CONFIG : SB_BOARD_LINK_CONFIG_RESET;
	localparam [31:0] V_CUBE = (CUBE_CONFIG != 0) ? CUBE_CONFIG : SB_BOARD_CUBE_CONFIG_RESET;

	reg [31:0] features;
	always @* begin
		features = 32'd0;
		features[SB_BOARD_FEATURES_SIMULATED_LSB] = 1'b0;
		features[SB_BOARD_FEATURES_STREAM_LSB] = 1'b1;
		features[SB_BOARD_FEATURES_TRACE_LSB] = 1'b1;
		features[SB_BOARD_FEATURES_DMA_LSB] = HAS_DMA != 0;
		features[SB_BOARD_FEATURES_REPLAY_LSB] = 1'b1;
	end

	reg [31:0] scratch, latch_hi;

	always @(posedge clk) begin
		cycles <= cycles + 64'd1;
		reg_rd_data <= 32'd0;
		if (reg_rd_en && reg_sel_fw_id) begin
			case (reg_addr)
			SB_BLK_TYPE: reg_rd_data <= SB_BLK_FW_ID_TYPE;
			SB_BLK_VERSION: reg_rd_data <= SB_BLK_FW_ID_VERSION;
			SB_BLK_NEXT: reg_rd_data <= FW_ID_NEXT;
			SB_FW_ID_MAGIC: reg_rd_data <= SB_FW_ID_MAGIC_RESET;
			SB_FW_ID_FW_VERSION: reg_rd_data <= V_FW_VERSION;
			SB_FW_ID_BUILD_ID: reg_rd_data <= BUILD_ID;
			SB_FW_ID_REGMAP_HASH: reg_rd_data <= SB_FW_ID_REGMAP_HASH_RESET;
			SB_FW_ID_REGMAP_SIZE: reg_rd_data <= V_SIZE;
			default: reg_rd_data <= 32'd0;
			endcase
		end
		if (reg_rd_en && reg_sel_board) begin
			case (reg_addr)
			SB_BLK_TYPE: reg_rd_data <= SB_BLK_BOARD_TYPE;
			SB_BLK_VERSION: reg_rd_data <= SB_BLK_BOARD_VERSION;
			SB_BLK_NEXT: reg_rd_data <= BOARD_NEXT;
			SB_BOARD_BOARD_ID: reg_rd_data <= V_BOARD_ID;
			SB_BOARD_PORT_COUNT: reg_rd_data <= PORTS;
			SB_BOARD_USER_CLOCK_HZ: reg_rd_data <= V_CLOCK;
			SB_BOARD_LINK_CONFIG: reg_rd_data <= V_LINKS;
			SB_BOARD_CUBE_CONFIG: reg_rd_data <= V_CUBE;
			SB_BOARD_CYCLES: begin
				reg_rd_data <= cycles[31:0];
				latch_hi <= cycles[63:32];
			end
			SB_BOARD_CYCLES + HI: reg_rd_data <= latch_hi;
			SB_BOARD_SCRATCH: reg_rd_data <= scratch;
			SB_BOARD_FEATURES: reg_rd_data <= features;
			SB_BOARD_SERIAL: reg_rd_data <= SERIAL;
			default: reg_rd_data <= 32'd0;
			endcase
		end
		if (reg_wr_en && reg_sel_board && reg_addr == SB_BOARD_SCRATCH)
			scratch <= sb_wmerge(scratch, reg_wr_data, reg_wr_strb);
		if (rst) begin
			cycles <= SB_BOARD_CYCLES_RESET;
			scratch <= SB_BOARD_SCRATCH_RESET;
			latch_hi <= 32'd0;
		end
	end

endmodule

`resetall
