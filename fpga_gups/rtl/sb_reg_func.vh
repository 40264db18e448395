// SPDX-License-Identifier: MIT
// Include inside a module body: helpers of the register blocks (byte-strobe merges).

// A 32-bit register word after a write of data with byte strobes strb.
function automatic [31:0] sb_wmerge(input [31:0] old, input [31:0] data, input [3:0] strb);
	integer i;
	begin
		for (i = 0; i < 4; i = i + 1)
			sb_wmerge[i*8 +: 8] = strb[i] ? data[i*8 +: 8] : old[i*8 +: 8];
	end
endfunction

// The bits of a write that were written as 1 (pulse and write-1-to-clear bits).
function automatic [31:0] sb_wones(input [31:0] data, input [3:0] strb);
	integer i;
	begin
		for (i = 0; i < 4; i = i + 1)
			sb_wones[i*8 +: 8] = strb[i] ? data[i*8 +: 8] : 8'd0;
	end
endfunction
