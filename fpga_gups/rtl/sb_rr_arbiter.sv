// SPDX-License-Identifier: MIT
/*
 * Round-robin arbiter: grants the first requester at or after the one following the last
 * accepted grant. The grant is combinational; `accept` (the granted request was taken) moves
 * the priority past the granted requester.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_rr_arbiter #(
	parameter integer N = 4,                          // requesters
	parameter integer IDX_W = (N > 1) ? $clog2(N) : 1 // width of the grant index
) (
	input  wire             clk,
	input  wire             rst,
	input  wire [N-1:0]     req,
	input  wire             accept,
	output reg  [N-1:0]     grant,       // one-hot, 0 when no request
	output reg  [IDX_W-1:0] grant_idx,
	output wire             grant_valid
);

	generate
		if (N < 1)
			$error("sb_rr_arbiter: N must be >= 1 (instance %m)");
	endgenerate

	// Requesters above the last granted one have priority.
	reg [N-1:0] prio_mask;
	wire [N-1:0] req_hi = req & prio_mask;

	integer i;
	always @* begin
		grant = {N{1'b0}};
		grant_idx = {IDX_W{1'b0}};
		for (i = N - 1; i >= 0; i = i - 1)
			if (req[i]) begin
				grant = {N{1'b0}};
				grant[i] = 1'b1;
				grant_idx = i[IDX_W-1:0];
			end
		if (|req_hi)
			for (i = N - 1; i >= 0; i = i - 1)
				if (req_hi[i]) begin
					grant = {N{1'b0}};
					grant[i] = 1'b1;
					grant_idx = i[IDX_W-1:0];
				end
	end

	assign grant_valid = |req;

	// Mask of the requesters strictly above the granted one.
	integer j;
	always @(posedge clk) begin
		if (accept && grant_valid)
			for (j = 0; j < N; j = j + 1)
				prio_mask[j] <= j > grant_idx;
		if (rst)
			prio_mask <= {N{1'b1}};
	end

endmodule

`resetall
