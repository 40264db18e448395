// SPDX-License-Identifier: MIT
/*
 * AXI4-Lite slave to the register bus of the blocks: one transaction at a time; the write
 * address and data are taken independently; reads and writes alternate when both wait.
 * The register bus: reg_wr_en / reg_rd_en are one-cycle strobes with reg_addr (and the write
 * data and byte strobes); the addressed block answers a read with reg_rd_data one cycle after
 * reg_rd_en. The next strobe comes at least two cycles after a write strobe and four after a
 * read strobe, so a block may prepare the next read value in the cycle after an access (trace
 * rd_data). Responses are always OKAY (the slave decodes no address).
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_axil_regbus #(
	parameter integer ADDR_W = 16           // AXI address bits (BAR size)
) (
	input  wire              clk,
	input  wire              rst,

	input  wire [ADDR_W-1:0] s_axil_awaddr,
	input  wire [2:0]        s_axil_awprot,
	input  wire              s_axil_awvalid,
	output wire              s_axil_awready,
	input  wire [31:0]       s_axil_wdata,
	input  wire [3:0]        s_axil_wstrb,
	input  wire              s_axil_wvalid,
	output wire              s_axil_wready,
	output wire [1:0]        s_axil_bresp,
	output reg               s_axil_bvalid,
	input  wire              s_axil_bready,
	input  wire [ADDR_W-1:0] s_axil_araddr,
	input  wire [2:0]        s_axil_arprot,
	input  wire              s_axil_arvalid,
	output wire              s_axil_arready,
	output reg  [31:0]       s_axil_rdata,
	output wire [1:0]        s_axil_rresp,
	output reg               s_axil_rvalid,
	input  wire              s_axil_rready,

	output reg  [ADDR_W-1:0] reg_addr,
	output reg               reg_wr_en,
	output reg  [31:0]       reg_wr_data,
	output reg  [3:0]        reg_wr_strb,
	output reg               reg_rd_en,
	input  wire [31:0]       reg_rd_data
);

	reg aw_l, w_l, ar_l;
	reg [ADDR_W-1:0] awaddr_l, araddr_l;
	reg [31:0] wdata_l;
	reg [3:0] wstrb_l;
	reg busy, rd_pipe, last_rd;

	assign s_axil_awready = !aw_l;
	assign s_axil_wready = !w_l;
	assign s_axil_arready = !ar_l;
	assign s_axil_bresp = 2'b00;
	assign s_axil_rresp = 2'b00;

	wire do_wr = !busy && aw_l && w_l && (last_rd || !ar_l);
	wire do_rd = !busy && ar_l && !do_wr;

	always @(posedge clk) begin
		reg_wr_en <= 1'b0;
		reg_rd_en <= 1'b0;
		if (s_axil_awvalid && !aw_l) begin
			aw_l <= 1'b1;
			awaddr_l <= {s_axil_awaddr[ADDR_W-1:2], 2'b00};
		end
		if (s_axil_wvalid && !w_l) begin
			w_l <= 1'b1;
			wdata_l <= s_axil_wdata;
			wstrb_l <= s_axil_wstrb;
		end
		if (s_axil_arvalid && !ar_l) begin
			ar_l <= 1'b1;
			araddr_l <= {s_axil_araddr[ADDR_W-1:2], 2'b00};
		end
		if (do_wr) begin
			busy <= 1'b1;
			aw_l <= 1'b0;
			w_l <= 1'b0;
			last_rd <= 1'b0;
			reg_wr_en <= 1'b1;
			reg_addr <= awaddr_l;
			reg_wr_data <= wdata_l;
			reg_wr_strb <= wstrb_l;
			s_axil_bvalid <= 1'b1;
		end
		if (do_rd) begin
			busy <= 1'b1;
			ar_l <= 1'b0;
			last_rd <= 1'b1;
			reg_rd_en <= 1'b1;
			reg_addr <= araddr_l;
		end
		rd_pipe <= reg_rd_en;
		if (rd_pipe) begin
			// The addressed block drives reg_rd_data in the cycle after reg_rd_en.
			s_axil_rdata <= reg_rd_data;
			s_axil_rvalid <= 1'b1;
		end
		if (s_axil_bvalid && s_axil_bready) begin
			s_axil_bvalid <= 1'b0;
			busy <= 1'b0;
		end
		if (s_axil_rvalid && s_axil_rready) begin
			s_axil_rvalid <= 1'b0;
			busy <= 1'b0;
		end
		if (rst) begin
			aw_l <= 1'b0;
			w_l <= 1'b0;
			ar_l <= 1'b0;
			busy <= 1'b0;
			rd_pipe <= 1'b0;
			last_rd <= 1'b0;
			reg_wr_en <= 1'b0;
			reg_rd_en <= 1'b0;
			s_axil_bvalid <= 1'b0;
			s_axil_rvalid <= 1'b0;
		end
	end

	/* verilator lint_off UNUSED */
	wire unused = |{s_axil_awprot, s_axil_arprot, s_axil_awaddr[1:0], s_axil_araddr[1:0]};
	/* verilator lint_on UNUSED */

endmodule

`resetall
