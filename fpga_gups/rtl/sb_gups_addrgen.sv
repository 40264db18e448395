// SPDX-License-Identifier: MIT
/*
 * GUPS address generator, bit-exact with fpga_gups/model/gups_addrgen.h.
 *
 * Random mode: xorshift64 (shifts 13, 7, 17), stepped once per address before use; a seed of
 * 0 is replaced by 1; the generated address is the low 34 bits of the new state.
 * Linear mode: the generated address is cur; then cur += step and, when cur > end, cur wraps
 * to start (cur is loaded with start).
 * The address sent is (generated & mask & align) | antimask, where align clears the low bits so
 * that a request of `flits` flits is aligned to its size rounded up to a power of two
 * (16..128 B for 1..8 flits; the C definition continues to 256 B for 9..15).
 *
 * `load` latches the configuration and prepares the first address; `addr` always shows the
 * address the next request uses and `advance` moves to the one after it. Both act at the
 * clock edge; `addr` is valid from the cycle after `load`.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_gups_addrgen (
	input  wire        clk,

	input  wire        load,       // latch the configuration below and restart
	input  wire        linear,     // 0 = random (xorshift64), 1 = linear
	input  wire [63:0] seed,
	input  wire [33:0] lin_start,
	input  wire [33:0] lin_end,
	input  wire [31:0] lin_step,
	input  wire [33:0] mask,
	input  wire [33:0] antimask,
	input  wire [3:0]  flits,

	input  wire        advance,    // the current address was used: step to the next one
	output wire [33:0] addr
);

	function automatic [63:0] xorshift64(input [63:0] v);
		reg [63:0] s;
		begin
			s = v;
			s = s ^ (s << 13);
			s = s ^ (s >> 7);
			s = s ^ (s << 17);
			xorshift64 = s;
		end
	endfunction

	// Low address bits cleared for alignment: the size rounded up to a power of two, >= 16 B.
	function automatic [33:0] align_mask(input [3:0] f);
		begin
			if (f <= 4'd1)
				align_mask = ~34'h0F;
			else if (f <= 4'd2)
				align_mask = ~34'h1F;
			else if (f <= 4'd4)
				align_mask = ~34'h3F;
			else if (f <= 4'd8)
				align_mask = ~34'h7F;
			else
				align_mask = ~34'hFF;
		end
	endfunction

	reg        lin_r;
	reg [63:0] state;      // random mode: the state whose low bits are the current address
	reg [33:0] cur;        // linear mode: the current address
	reg [33:0] start_r, end_r;
	reg [31:0] step_r;
	reg [33:0] and_mask, or_mask;

	wire [34:0] cur_next = {1'b0, cur} + {3'b000, step_r};

	always @(posedge clk) begin
		if (load) begin
			lin_r <= linear;
			state <= xorshift64((seed == 64'd0) ? 64'd1 : seed);
			cur <= lin_start;
			start_r <= lin_start;
			end_r <= lin_end;
			step_r <= lin_step;
			and_mask <= mask & align_mask(flits);
			or_mask <= antimask;
		end else if (advance) begin
			if (lin_r)
				cur <= (cur_next > {1'b0, end_r}) ? start_r : cur_next[33:0];
			else
				state <= xorshift64(state);
		end
	end

	assign addr = ((lin_r ? cur : state[33:0]) & and_mask) | or_mask;

endmodule

`resetall
