// SPDX-License-Identifier: MIT
/*
 * Synchronous first-word-fall-through FIFO with valid/ready on both sides. The storage is an
 * array read asynchronously (distributed RAM on UltraScale); no reset on the data.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_fifo #(
	parameter integer WIDTH = 8,                  // bits per entry
	parameter integer DEPTH = 16,                 // entries, a power of two >= 2
	parameter integer COUNT_W = $clog2(DEPTH) + 1 // width of the fill level
) (
	input  wire               clk,
	input  wire               rst,
	input  wire               clear,      // drop every entry (synchronous)

	input  wire [WIDTH-1:0]   s_data,
	input  wire               s_valid,
	output wire               s_ready,

	output wire [WIDTH-1:0]   m_data,
	output wire               m_valid,
	input  wire               m_ready,

	output wire [COUNT_W-1:0] count
);

	localparam integer PTR_W = $clog2(DEPTH);

	generate
		if (DEPTH < 2 || (1 << PTR_W) != DEPTH)
			$error("sb_fifo: DEPTH %0d must be a power of two >= 2 (instance %m)", DEPTH);
		if (COUNT_W != PTR_W + 1)
			$error("sb_fifo: COUNT_W must be $clog2(DEPTH) + 1 (instance %m)");
	endgenerate

	reg [WIDTH-1:0] mem [0:DEPTH-1];
	reg [PTR_W:0] wr_ptr, rd_ptr;

	wire full = (wr_ptr[PTR_W] != rd_ptr[PTR_W]) && (wr_ptr[PTR_W-1:0] == rd_ptr[PTR_W-1:0]);
	wire empty = wr_ptr == rd_ptr;
	wire push = s_valid && !full;
	wire pop = m_ready && !empty;

	assign s_ready = !full;
	assign m_valid = !empty;
	assign m_data = mem[rd_ptr[PTR_W-1:0]];
	assign count = wr_ptr - rd_ptr;

	always @(posedge clk) begin
		if (push)
			mem[wr_ptr[PTR_W-1:0]] <= s_data;
		if (push)
			wr_ptr <= wr_ptr + 1'b1;
		if (pop)
			rd_ptr <= rd_ptr + 1'b1;
		if (rst || clear) begin
			wr_ptr <= 0;
			rd_ptr <= 0;
		end
	end

endmodule

`resetall
