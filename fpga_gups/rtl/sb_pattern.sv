// SPDX-License-Identifier: MIT
/*
 * The integrity data pattern, bit-exact with fpga_gups/model/gups_pattern.h: one 16-byte beat
 * of the data written to (or expected from) the 16-byte block `flit` (byte address >> 4) for
 * seed `seed`. Word w (bits 32w+31..32w) is xorshift32(seed ^ (flit << 2 | w)) with the shifts
 * 13, 17, 5. Pure logic (XOR network), no state.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_pattern (
	input  wire [31:0]  seed,
	input  wire [29:0]  flit,   // 16-byte block number: address bits 33..4 (+ beat)
	output wire [127:0] data
);

	function automatic [31:0] xs32(input [31:0] v);
		reg [31:0] x;
		begin
			x = v;
			x = x ^ (x << 13);
			x = x ^ (x >> 17);
			x = x ^ (x << 5);
			xs32 = x;
		end
	endfunction

	genvar w;
	generate
		for (w = 0; w < 4; w = w + 1) begin : g_word
			wire [1:0] wi = w;
			assign data[32*w +: 32] = xs32(seed ^ {flit, wi});
		end
	endgenerate

endmodule

`resetall
