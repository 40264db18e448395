// SPDX-License-Identifier: MIT
/*
 * The fw_id and hbm_card register blocks of the HBM2 board (register space 'hbm2' of the
 * generated map): identification, the engine kind and geometry the design was built with, the
 * controller configuration fixed at bitstream build time (a parameter here, the vendor IP's
 * settings on hardware), the stacks' temperature from the controller's DRAM_n_STAT_TEMP /
 * CATTRIP pins, the free-running AXI-clock cycle counter, and start / stop of every port of
 * start_mask in the same cycle. Identity values are parameters; 0 selects the map's reset.
 * fw_id and the cycle counter are the GUPS design's sb_ident_regs (fpga_gups/rtl) with this
 * register space's size.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_hbm_card #(
	parameter integer N = 32,               // hbm_port blocks (engine.ports)
	parameter integer STACKS = 2,           // HBM stacks
	parameter [31:0]  FW_VERSION = 32'h0,   // design version; 0 = map reset (1.0)
	parameter [31:0]  BUILD_ID = 32'h0,     // build identifier (e.g. synthesis date)
	parameter [31:0]  BOARD_ID = 32'h0,     // 0 = map reset (U280)
	parameter [31:0]  GEOMETRY = 32'h0,     // 0 = map reset (32 PCs x 16 banks, 256 MiB)
	parameter [31:0]  AXI_CLOCK_HZ = 32'h0, // 0 = map reset (450 MHz)
	parameter [31:0]  HBM_CLOCK_HZ = 32'h0, // 0 = map reset (900 MHz)
	parameter [31:0]  MC_CONFIG = 32'hFFFF_FFFF, // controller configuration; all ones = map reset
	parameter integer GLOBAL_ADDRESSING = 1,// the controller's AXI switch is enabled
	parameter [31:0]  SERIAL = 32'h0,       // card serial number
	parameter [31:0]  FW_ID_NEXT = 32'h0,   // NEXT header words
	parameter [31:0]  CARD_NEXT = 32'h0
) (
	input  wire          clk,
	input  wire          rst,

	input  wire          reg_sel_fw_id,
	input  wire          reg_sel_card,
	input  wire [31:0]   reg_addr,
	input  wire          reg_wr_en,
	input  wire [31:0]   reg_wr_data,
	input  wire [3:0]    reg_wr_strb,
	input  wire          reg_rd_en,
	output wire [31:0]   reg_rd_data,

	input  wire [6:0]    hbm_temp0,       // DRAM_0_STAT_TEMP (degrees C)
	input  wire [6:0]    hbm_temp1,       // DRAM_1_STAT_TEMP
	input  wire [1:0]    hbm_cattrip,     // DRAM_n_STAT_CATTRIP

	output reg  [N-1:0]  start_ports,     // one-cycle pulses
	output reg  [N-1:0]  stop_ports,
	output wire [63:0]   cycles
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */
`include "sb_reg_func.vh"

	generate
		if (N < 1 || N > SB_REGSPACE_HBM2_HBM_PORT_COUNT)
			$error("sb_hbm_card: N must be 1..%0d (instance %m)",
			       SB_REGSPACE_HBM2_HBM_PORT_COUNT);
		if (STACKS < 1 || STACKS > 2)
			$error("sb_hbm_card: STACKS must be 1 or 2 (instance %m)");
	endgenerate

	localparam [31:0] HI = 32'd4;
	localparam [31:0] V_BOARD_ID = (BOARD_ID != 0) ? BOARD_ID : SB_HBM_CARD_BOARD_ID_RESET;
	localparam [31:0] V_GEOMETRY = (GEOMETRY != 0) ? GEOMETRY : SB_HBM_CARD_GEOMETRY_RESET;
	localparam [31:0] V_AXI_HZ = (AXI_CLOCK_HZ != 0) ? AXI_CLOCK_HZ :
	                             SB_HBM_CARD_AXI_CLOCK_HZ_RESET;
	localparam [31:0] V_HBM_HZ = (HBM_CLOCK_HZ != 0) ? HBM_CLOCK_HZ :
	                             SB_HBM_CARD_HBM_CLOCK_HZ_RESET;
	localparam [31:0] V_MC = (MC_CONFIG != 32'hFFFF_FFFF) ? MC_CONFIG :
	                         SB_HBM_CARD_MC_CONFIG_RESET;

	reg [31:0] engine, features, temp;
	always @* begin
		engine = 32'd0;
		engine[SB_HBM_CARD_ENGINE_KIND_MSB:SB_HBM_CARD_ENGINE_KIND_LSB] =
		    SB_HBM_CARD_ENGINE_KIND_HBM2_AXI;
		engine[SB_HBM_CARD_ENGINE_PORTS_MSB:SB_HBM_CARD_ENGINE_PORTS_LSB] = N[7:0];
		engine[SB_HBM_CARD_ENGINE_STACKS_MSB:SB_HBM_CARD_ENGINE_STACKS_LSB] = STACKS[3:0];
		engine[SB_HBM_CARD_ENGINE_DATA_BYTES_MSB:SB_HBM_CARD_ENGINE_DATA_BYTES_LSB] = 8'd32;
		features = 32'd0;
		features[SB_HBM_CARD_FEATURES_SIMULATED_LSB] = 1'b0;
		features[SB_HBM_CARD_FEATURES_GLOBAL_ADDRESSING_LSB] = GLOBAL_ADDRESSING != 0;
		features[SB_HBM_CARD_FEATURES_CHECK_LSB] = 1'b1;
		temp = 32'd0;
		temp[SB_HBM_CARD_HBM_TEMP_STACK0_C_MSB:SB_HBM_CARD_HBM_TEMP_STACK0_C_LSB] = hbm_temp0;
		temp[SB_HBM_CARD_HBM_TEMP_STACK1_C_MSB:SB_HBM_CARD_HBM_TEMP_STACK1_C_LSB] =
		    (STACKS > 1) ? hbm_temp1 : 7'd0;
		temp[SB_HBM_CARD_HBM_TEMP_CATTRIP_MSB:SB_HBM_CARD_HBM_TEMP_CATTRIP_LSB] = hbm_cattrip;
	end

	// fw_id and cycles
	wire [31:0] rd_fw_id;
	reg [31:0] rd_card;
	assign reg_rd_data = rd_fw_id | rd_card;

	sb_ident_regs #(
		.FW_VERSION(FW_VERSION), .BUILD_ID(BUILD_ID), .REGMAP_SIZE(SB_REGSPACE_HBM2_SIZE),
		.FW_ID_NEXT(FW_ID_NEXT)
	) u_fw_id (
		.clk(clk), .rst(rst), .reg_sel_fw_id(reg_sel_fw_id), .reg_sel_board(1'b0),
		.reg_addr(reg_addr), .reg_wr_en(reg_wr_en), .reg_wr_data(reg_wr_data),
		.reg_wr_strb(reg_wr_strb), .reg_rd_en(reg_rd_en), .reg_rd_data(rd_fw_id),
		.cycles(cycles));

	reg [31:0] scratch, start_mask, latch_hi;
	wire wr = reg_sel_card && reg_wr_en;
	wire [31:0] ones = sb_wones(reg_wr_data, reg_wr_strb);
	wire wr_ctl = wr && reg_addr == SB_HBM_CARD_CONTROL;

	always @(posedge clk) begin
		start_ports <= {N{wr_ctl && ones[SB_HBM_CARD_CONTROL_START_LSB]}} & start_mask[N-1:0];
		stop_ports <= {N{wr_ctl && ones[SB_HBM_CARD_CONTROL_STOP_LSB]}} & start_mask[N-1:0];
		if (wr && reg_addr == SB_HBM_CARD_SCRATCH)
			scratch <= sb_wmerge(scratch, reg_wr_data, reg_wr_strb);
		if (wr && reg_addr == SB_HBM_CARD_START_MASK)
			start_mask <= sb_wmerge(start_mask, reg_wr_data, reg_wr_strb);
		rd_card <= 32'd0;
		if (reg_rd_en && reg_sel_card) begin
			case (reg_addr)
			SB_BLK_TYPE: rd_card <= SB_BLK_HBM_CARD_TYPE;
			SB_BLK_VERSION: rd_card <= SB_BLK_HBM_CARD_VERSION;
			SB_BLK_NEXT: rd_card <= CARD_NEXT;
			SB_HBM_CARD_BOARD_ID: rd_card <= V_BOARD_ID;
			SB_HBM_CARD_ENGINE: rd_card <= engine;
			SB_HBM_CARD_GEOMETRY: rd_card <= V_GEOMETRY;
			SB_HBM_CARD_AXI_CLOCK_HZ: rd_card <= V_AXI_HZ;
			SB_HBM_CARD_HBM_CLOCK_HZ: rd_card <= V_HBM_HZ;
			SB_HBM_CARD_CYCLES: begin
				rd_card <= cycles[31:0];
				latch_hi <= cycles[63:32];
			end
			SB_HBM_CARD_CYCLES + HI: rd_card <= latch_hi;
			SB_HBM_CARD_SCRATCH: rd_card <= scratch;
			SB_HBM_CARD_FEATURES: rd_card <= features;
			SB_HBM_CARD_MC_CONFIG: rd_card <= V_MC;
			SB_HBM_CARD_HBM_TEMP: rd_card <= temp;
			SB_HBM_CARD_SERIAL: rd_card <= SERIAL;
			SB_HBM_CARD_START_MASK: rd_card <= start_mask;
			default: rd_card <= 32'd0;
			endcase
		end
		if (rst) begin
			scratch <= SB_HBM_CARD_SCRATCH_RESET;
			start_mask <= SB_HBM_CARD_START_MASK_RESET;
			latch_hi <= 32'd0;
			start_ports <= {N{1'b0}};
			stop_ports <= {N{1'b0}};
		end
	end

endmodule

`resetall
