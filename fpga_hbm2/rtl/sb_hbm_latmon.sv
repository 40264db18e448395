// SPDX-License-Identifier: MIT
/*
 * Latency statistics of one kind of burst (reads or writes) of an HBM port engine: sum, count,
 * minimum and maximum, and with HIST = 1 a 16-bin histogram (bin i counts latencies in
 * [base + i*2^shift, base + (i+1)*2^shift); bin 0 also those below, bin 15 those above) and
 * three classes split at hit_max and closed_max (page hit, closed page, page miss as their
 * latencies tell them apart). One event per cycle; clear empties everything.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_hbm_latmon #(
	parameter integer HIST = 1             // 1: histogram and classes; 0: sum/count/min/max
) (
	input  wire          clk,
	input  wire          rst,
	input  wire          clear,
	input  wire          valid,            // one latency this cycle
	input  wire [31:0]   lat,              // cycles
	input  wire [15:0]   hist_base,
	input  wire [3:0]    hist_shift,
	input  wire [15:0]   hit_max,
	input  wire [15:0]   closed_max,

	output reg  [63:0]   sum,
	output reg  [63:0]   count,
	output reg  [31:0]   min,
	output reg  [31:0]   max,
	output wire [511:0]  hist,             // 16 x 32-bit bin_cnt, bin 0 in the low word
	output wire [95:0]   cls               // hit, closed, miss
);

	generate
		if (HIST != 0 && HIST != 1)
			$error("sb_hbm_latmon: HIST must be 0 or 1 (instance %m)");
	endgenerate

	always @(posedge clk) begin
		if (valid) begin
			sum <= sum + {32'd0, lat};
			count <= count + 64'd1;
			if (lat < min)
				min <= lat;
			if (lat > max)
				max <= lat;
		end
		if (clear || rst) begin
			sum <= 64'd0;
			count <= 64'd0;
			min <= 32'hFFFF_FFFF;
			max <= 32'd0;
		end
	end

	generate
		if (HIST == 1) begin : g_hist
			reg [31:0] bin_cnt [0:15];
			reg [31:0] classes [0:2];
			wire [31:0] above = lat - {16'd0, hist_base};
			wire [31:0] idx_w = above >> hist_shift;
			wire [3:0] idx = (lat <= {16'd0, hist_base}) ? 4'd0 :
			                 (idx_w > 32'd15) ? 4'd15 : idx_w[3:0];
			wire [1:0] cl = (lat <= {16'd0, hit_max}) ? 2'd0 :
			                (lat <= {16'd0, closed_max}) ? 2'd1 : 2'd2;
			integer i;

			always @(posedge clk) begin
				if (valid) begin
					bin_cnt[idx] <= bin_cnt[idx] + 32'd1;
					classes[cl] <= classes[cl] + 32'd1;
				end
				if (clear || rst) begin
					for (i = 0; i < 16; i = i + 1)
						bin_cnt[i] <= 32'd0;
					for (i = 0; i < 3; i = i + 1)
						classes[i] <= 32'd0;
				end
			end
			genvar b;
			for (b = 0; b < 16; b = b + 1) begin : g_bin
				assign hist[b*32 +: 32] = bin_cnt[b];
			end
			for (b = 0; b < 3; b = b + 1) begin : g_cls
				assign cls[b*32 +: 32] = classes[b];
			end
		end else begin : g_none
			assign hist = 512'd0;
			assign cls = 96'd0;
			/* verilator lint_off UNUSEDSIGNAL */ // no histogram: its settings are unused
			wire unused = &{1'b0, hist_base, hist_shift, hit_max, closed_max};
			/* verilator lint_on UNUSEDSIGNAL */
		end
	endgenerate

endmodule

`resetall
