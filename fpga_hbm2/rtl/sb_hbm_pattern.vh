// SPDX-License-Identifier: MIT
// Include inside a module body: the write-data pattern of the HBM2 engine
// (fpga_hbm2/model/hbm_traffic.h, sb_hbm_pattern), shared by the port engines (sb_hbm_port) and
// the replay lanes (sb_hbm_replay_lane) so that a checked read finds what either wrote.

function automatic [31:0] sb_hbm_rotl32(input [31:0] x, input integer r);
	sb_hbm_rotl32 = (r == 0) ? x : ((x << r) | (x >> (32 - r)));
endfunction

// The 256-bit beat of the write pattern at 32-byte block blk (address >> 5).
function automatic [255:0] sb_hbm_pattern(input [31:0] seed, input [28:0] blk);
	integer w;
	begin
		for (w = 0; w < 8; w = w + 1)
			sb_hbm_pattern[w*32 +: 32] = seed ^ sb_hbm_rotl32({3'd0, blk}, 3 * w + 1) ^
			                             (32'h0101_0101 * (w + 1));
	end
endfunction
