// SPDX-License-Identifier: MIT
/*
 * The irq register block of the generated map: latched events (write 1 to clear; an event
 * in the same cycle as its clear stays set), the mask and pending = status & mask. `irq` is
 * the level for the PCIe core's MSI logic.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_irq_regs #(
	parameter [31:0] NEXT_OFFSET = 32'h0   // NEXT header word
) (
	input  wire        clk,
	input  wire        rst,

	input  wire        reg_sel,
	input  wire [31:0] reg_addr,
	input  wire        reg_wr_en,
	input  wire [31:0] reg_wr_data,
	input  wire [3:0]  reg_wr_strb,
	input  wire        reg_rd_en,
	output reg  [31:0] reg_rd_data,

	input  wire        ev_thermal,
	input  wire        ev_trace_ready,
	input  wire        ev_ports_done,
	input  wire        ev_link_error,
	input  wire        ev_stream_done,
	output wire        irq
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */
`include "sb_reg_func.vh"

	reg [31:0] status, mask;
	reg [31:0] events, status_bits;
	always @* begin
		events = 32'd0;
		events[SB_IRQ_STATUS_THERMAL_LSB] = ev_thermal;
		events[SB_IRQ_STATUS_TRACE_READY_LSB] = ev_trace_ready;
		events[SB_IRQ_STATUS_PORTS_DONE_LSB] = ev_ports_done;
		events[SB_IRQ_STATUS_LINK_ERROR_LSB] = ev_link_error;
		events[SB_IRQ_STATUS_STREAM_DONE_LSB] = ev_stream_done;
		status_bits = 32'd0;
		status_bits[SB_IRQ_STATUS_THERMAL_LSB] = 1'b1;
		status_bits[SB_IRQ_STATUS_TRACE_READY_LSB] = 1'b1;
		status_bits[SB_IRQ_STATUS_PORTS_DONE_LSB] = 1'b1;
		status_bits[SB_IRQ_STATUS_LINK_ERROR_LSB] = 1'b1;
		status_bits[SB_IRQ_STATUS_STREAM_DONE_LSB] = 1'b1;
	end

	wire wr = reg_wr_en && reg_sel;
	wire rd = reg_rd_en && reg_sel;
	wire [31:0] clr = (wr && reg_addr == SB_IRQ_STATUS) ? sb_wones(reg_wr_data, reg_wr_strb) :
	                  32'd0;
	wire [31:0] pending = status & mask;
	assign irq = |pending;

	always @(posedge clk) begin
		status <= (status & ~clr) | events;
		if (wr && reg_addr == SB_IRQ_MASK)
			mask <= sb_wmerge(mask, reg_wr_data, reg_wr_strb) & status_bits;
		reg_rd_data <= 32'd0;
		if (rd) begin
			case (reg_addr)
			SB_BLK_TYPE: reg_rd_data <= SB_BLK_IRQ_TYPE;
			SB_BLK_VERSION: reg_rd_data <= SB_BLK_IRQ_VERSION;
			SB_BLK_NEXT: reg_rd_data <= NEXT_OFFSET;
			SB_IRQ_STATUS: reg_rd_data <= status;
			SB_IRQ_MASK: reg_rd_data <= mask;
			SB_IRQ_PENDING: reg_rd_data <= pending;
			default: reg_rd_data <= 32'd0;
			endcase
		end
		if (rst) begin
			status <= SB_IRQ_STATUS_RESET;
			mask <= SB_IRQ_MASK_RESET;
		end
	end

endmodule

`resetall
