// SPDX-License-Identifier: MIT
/*
 * Tag pool of a GUPS port: 2^TAG_W tags (64), each FREE, BUSY (request outstanding) or LOST
 * (declared lost and not recycled). A free tag is always offered (lowest number first); taking
 * it (`alloc`) marks it BUSY and stores the request's info. `stamp` records the submission time
 * when the request is handed to the HMC controller; `release` returns a BUSY or LOST tag to the
 * pool when its response completes. The held tag (allocated, request not yet handed over, see
 * below) cannot have a response: a stray one for it (the late response of an earlier request
 * with that tag) is ignored (lookup_busy low, no release).
 *
 * Lost-tag detection: a scan pointer visits one tag per cycle; a BUSY tag outstanding longer
 * than `timeout` cycles is declared lost (`lost_valid` the cycle after), then either returned
 * to the pool (`recycle`) or kept out of it as LOST. A tag allocated but not yet stamped (held
 * in the port's output register, `hold_tag`) is skipped. A tag is thus declared lost between
 * timeout + 1 and timeout + 2^TAG_W cycles after its submission.
 *
 * `clear` returns every tag to the pool except the held one and one allocated in the same
 * cycle (it becomes the held one: its request has not reached the controller yet).
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_gups_tagpool #(
	parameter integer TAG_W = 6,    // tag bits: 2^TAG_W tags
	parameter integer INFO_W = 8,   // request information stored per tag
	parameter integer TIME_W = 32,  // time stamp bits (cycles, modulo 2^TIME_W)
	parameter integer NTAGS = 1 << TAG_W
) (
	input  wire              clk,
	input  wire              rst,
	input  wire              clear,
	input  wire [TIME_W-1:0] now,

	output wire              alloc_avail,
	output wire [TAG_W-1:0]  alloc_tag,
	input  wire              alloc,
	input  wire [INFO_W-1:0] alloc_info,

	input  wire              stamp,
	input  wire [TAG_W-1:0]  stamp_tag,

	input  wire              hold_valid,   // a tag allocated but not yet stamped
	input  wire [TAG_W-1:0]  hold_tag,

	input  wire [TAG_W-1:0]  lookup_tag,
	output wire              lookup_busy,
	output wire              lookup_lost,
	output wire [INFO_W-1:0] lookup_info,
	output wire [TIME_W-1:0] lookup_time,

	input  wire              release_tag,  // free lookup_tag (its response completed)

	input  wire              detect,
	input  wire              recycle,
	input  wire [TIME_W-1:0] timeout,
	output reg               lost_valid,
	output reg  [TAG_W-1:0]  lost_tag,
	output reg  [TIME_W-1:0] lost_age,

	output reg  [TAG_W:0]    in_use       // BUSY tags
);

	generate
		if (NTAGS != (1 << TAG_W))
			$error("sb_gups_tagpool: NTAGS must be 2^TAG_W (instance %m)");
	endgenerate

	reg [NTAGS-1:0] busy, lost;
	reg [INFO_W-1:0] info_mem [0:NTAGS-1];
	reg [TIME_W-1:0] time_mem [0:NTAGS-1];

	// Lowest free tag.
	wire [NTAGS-1:0] free_vec = ~(busy | lost);
	reg [TAG_W-1:0] first_free;
	integer i;
	always @* begin
		first_free = {TAG_W{1'b0}};
		for (i = NTAGS - 1; i >= 0; i = i - 1)
			if (free_vec[i])
				first_free = i[TAG_W-1:0];
	end
	assign alloc_avail = |free_vec;
	assign alloc_tag = first_free;

	wire lookup_held = hold_valid && hold_tag == lookup_tag;
	assign lookup_busy = busy[lookup_tag] && !lookup_held;
	assign lookup_lost = lost[lookup_tag];
	assign lookup_info = info_mem[lookup_tag];
	assign lookup_time = time_mem[lookup_tag];

	// Scan for lost tags.
	reg [TAG_W-1:0] scan;
	wire [TIME_W-1:0] scan_age = now - time_mem[scan];
	wire do_alloc = alloc && alloc_avail;
	wire rel_busy = release_tag && lookup_busy;
	wire rel_any = release_tag && (lookup_busy || lookup_lost);
	wire scan_lost = detect && busy[scan] && !(hold_valid && hold_tag == scan) &&
	                 !(release_tag && lookup_tag == scan) && scan_age > timeout;

	always @(posedge clk) begin
		if (do_alloc)
			info_mem[alloc_tag] <= alloc_info;
		if (stamp)
			time_mem[stamp_tag] <= now;
	end

	always @(posedge clk) begin
		scan <= scan + 1'b1;
		lost_valid <= scan_lost;
		lost_tag <= scan;
		lost_age <= scan_age;
		if (do_alloc)
			busy[alloc_tag] <= 1'b1;
		if (rel_any) begin
			busy[lookup_tag] <= 1'b0;
			lost[lookup_tag] <= 1'b0;
		end
		if (scan_lost) begin
			busy[scan] <= 1'b0;
			lost[scan] <= !recycle;
		end
		in_use <= in_use + {{TAG_W{1'b0}}, do_alloc} - {{TAG_W{1'b0}}, rel_busy} -
		          {{TAG_W{1'b0}}, scan_lost};
		if (rst || clear) begin
			busy <= {NTAGS{1'b0}};
			lost <= {NTAGS{1'b0}};
			if (hold_valid)
				busy[hold_tag] <= 1'b1;
			if (do_alloc && !rst)
				busy[alloc_tag] <= 1'b1;
			in_use <= {{TAG_W{1'b0}}, hold_valid} + {{TAG_W{1'b0}}, do_alloc && !rst};
			lost_valid <= 1'b0;
		end
		if (rst)
			scan <= {TAG_W{1'b0}};
	end

endmodule

`resetall
