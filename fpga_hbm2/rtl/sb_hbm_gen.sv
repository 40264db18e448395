// SPDX-License-Identifier: MIT
/*
 * The burst sequence of one HBM port engine: transactions of burst_bytes at start_addr +
 * offset, the offset stepping by stride within ws_size (linear) or drawn by xorshift32 and
 * aligned to the largest power of two <= burst_bytes (random); each transaction split into
 * AXI3 bursts of at most 16 beats of 32 bytes that do not cross a 4 KB boundary; burst n gets
 * ID n mod outstanding; reads, writes or a mix (mix_writes of every 256 transactions write,
 * Bresenham-spread). Bit-exact with fpga_hbm2/model/hbm_traffic.h (the co-simulation checks).
 *
 * start latches and normalizes the configuration; two cycles later the first burst appears on
 * the output register (first word fall-through: valid until taken with ready).
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_hbm_gen (
	input  wire        clk,
	input  wire        rst,

	input  wire        start,        // latch the configuration below and begin
	/* verilator lint_off UNUSEDSIGNAL */ // the low 5 bits of addresses and sizes are ignored
	input  wire [33:0] cfg_start,    // start_addr (low 5 bits ignored)
	input  wire [34:0] cfg_ws,       // ws_size
	input  wire [63:0] cfg_run_len,  // transactions; 0 = no end
	input  wire [31:0] cfg_burst,    // burst_bytes
	input  wire [31:0] cfg_outst,    // outstanding
	input  wire [31:0] cfg_stride,   // stride (low 5 bits ignored)
	/* verilator lint_on UNUSEDSIGNAL */
	input  wire [31:0] cfg_mix,      // mix_writes
	input  wire [31:0] cfg_seed,     // seed
	input  wire [1:0]  cfg_op,       // 0 read, 1 write, 2 mix (3 = read)
	input  wire        cfg_random,   // random offsets

	output reg         o_valid,
	input  wire        o_ready,
	output reg  [33:0] o_addr,
	output reg  [4:0]  o_beats,      // 1..16
	output reg         o_write,
	output reg  [5:0]  o_id,
	output reg         o_last,       // the last burst of its transaction
	output wire        more          // bursts remain (not counting the output register)
);

	// ---------------------------------------------------------------- helpers
	function automatic [31:0] xorshift32(input [31:0] x0);
		reg [31:0] x;
		begin
			x = x0 ^ (x0 << 13);
			x = x ^ (x >> 17);
			xorshift32 = x ^ (x << 5);
		end
	endfunction

	// Largest power of two <= x (0 for 0).
	function automatic [34:0] pow2floor35(input [34:0] x);
		integer i;
		begin
			pow2floor35 = 35'd0;
			for (i = 0; i < 35; i = i + 1)
				if (x[i])
					pow2floor35 = 35'd1 << i;
		end
	endfunction

	// ---------------------------------------------------------------- configuration
	reg [33:0] c_start;
	reg [34:0] c_ws, c_ws_mask, c_align;
	reg [63:0] c_run_len;
	reg [12:0] c_burst;
	reg [31:0] c_stride;
	reg [8:0]  c_mix;
	reg [6:0]  c_outst;
	reg [1:0]  c_op;
	reg        c_random;

	wire [31:0] burst_al = {cfg_burst[31:5], 5'd0};
	wire [12:0] burst_n = (burst_al == 32'd0) ? 13'd32 :
	                      (burst_al > 32'd4096) ? 13'd4096 : burst_al[12:0];
	wire [34:0] ws_p2 = pow2floor35(cfg_ws);
	wire [34:0] burst_p2 = pow2floor35({22'd0, burst_n});

	// ---------------------------------------------------------------- state
	reg        active, init;
	reg [63:0] txn;
	reg [34:0] offset;
	reg [12:0] done;
	reg [31:0] rng;
	reg [7:0]  acc;
	reg        cur_write;
	reg [5:0]  id;

	assign more = active && (c_run_len == 64'd0 || txn < c_run_len || done != 13'd0);

	// The burst the state describes.
	wire [8:0]  acc_sum = {1'b0, acc} + c_mix;
	wire        w_new = (c_op == 2'd1) ? 1'b1 : (c_op == 2'd2) ? acc_sum[8] : 1'b0;
	wire        w_now = (done == 13'd0) ? w_new : cur_write;
	// 34-bit address arithmetic: offset bit 34 adds a multiple of 2^34
	wire [33:0] addr = c_start + offset[33:0] + {21'd0, done};
	wire [12:0] left = c_burst - done;
	wire [12:0] to4k = 13'd4096 - {1'b0, addr[11:0]};
	wire [12:0] len_a = (left < to4k) ? left : to4k;
	wire [12:0] len = (len_a > 13'd512) ? 13'd512 : len_a;
	wire        last = (done + len) == c_burst;
	wire [31:0] rng_next = xorshift32(rng);
	wire [34:0] off_rand = {rng_next[29:0], 5'd0} & c_ws_mask & c_align;
	wire [35:0] off_lin0 = {1'b0, offset} + {4'd0, c_stride};
	wire [35:0] off_lin1 = (off_lin0 >= {1'b0, c_ws}) ? off_lin0 - {1'b0, c_ws} : off_lin0;
	wire [34:0] off_lin = (off_lin1 >= {1'b0, c_ws}) ? 35'd0 : off_lin1[34:0];

	wire take = more && !init && (!o_valid || o_ready);

	always @(posedge clk) begin
		if (o_valid && o_ready)
			o_valid <= 1'b0;
		if (start) begin
			c_start <= {cfg_start[33:5], 5'd0};
			c_ws <= cfg_ws;
			c_ws_mask <= ws_p2 - ((cfg_ws != 35'd0) ? 35'd1 : 35'd0);
			c_align <= ~(burst_p2 - 35'd1);
			c_run_len <= cfg_run_len;
			c_burst <= burst_n;
			c_stride <= {cfg_stride[31:5], 5'd0};
			c_mix <= (cfg_mix > 32'd256) ? 9'd256 : cfg_mix[8:0];
			c_outst <= (cfg_outst == 32'd0) ? 7'd1 : (cfg_outst > 32'd64) ? 7'd64 :
			           cfg_outst[6:0];
			c_op <= (cfg_op == 2'd3) ? 2'd0 : cfg_op;
			c_random <= cfg_random;
			rng <= (cfg_seed == 32'd0) ? 32'd1 : cfg_seed;
			txn <= 64'd0;
			offset <= 35'd0;
			done <= 13'd0;
			acc <= 8'd0;
			cur_write <= 1'b0;
			id <= 6'd0;
			active <= 1'b1;
			init <= 1'b1;
			o_valid <= 1'b0;
		end else if (init) begin
			// the first random offset comes from the first step of the generator
			init <= 1'b0;
			if (c_random) begin
				rng <= rng_next;
				offset <= off_rand;
			end
		end else if (take) begin
			o_valid <= 1'b1;
			o_addr <= addr;
			o_beats <= len[9:5];
			o_write <= w_now;
			o_id <= id;
			o_last <= last;
			id <= ({1'b0, id} + 7'd1 == c_outst) ? 6'd0 : id + 6'd1;
			if (done == 13'd0) begin
				cur_write <= w_new;
				if (c_op == 2'd2)
					acc <= acc_sum[7:0];
			end
			if (last) begin
				done <= 13'd0;
				txn <= txn + 64'd1;
				if (c_random) begin
					rng <= rng_next;
					offset <= off_rand;
				end else begin
					offset <= off_lin;
				end
			end else begin
				done <= done + len;
			end
		end
		if (rst) begin
			active <= 1'b0;
			init <= 1'b0;
			o_valid <= 1'b0;
		end
	end

endmodule

`resetall
