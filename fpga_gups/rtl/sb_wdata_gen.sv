// SPDX-License-Identifier: MIT
/*
 * Write-data beats of the HMC user port: for each queued write job (address, flits, seed) emit
 * `flits` 128-bit beats carrying the integrity pattern of (seed, block address + beat), in job
 * order, with valid/ready. Jobs are queued when the write command is issued, so the data may
 * be taken before or after the controller accepts the command.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_wdata_gen #(
	parameter integer DEPTH = 4   // queued write jobs (power of two)
) (
	input  wire         clk,
	input  wire         rst,

	input  wire         job_valid,
	output wire         job_ready,
	input  wire [33:0]  job_addr,
	input  wire [3:0]   job_flits,  // 1..8
	input  wire [31:0]  job_seed,

	output wire [127:0] m_wr_data,
	output wire         m_wr_valid,
	input  wire         m_wr_ready,

	output wire         empty       // no job queued and no beat pending
);

	localparam integer JOB_W = 30 + 4 + 32;

	wire [JOB_W-1:0] head;
	wire head_valid;
	reg [3:0] beat;
	wire [3:0] head_flits = head[35:32];
	wire last = beat + 4'd1 >= head_flits;
	wire [$clog2(DEPTH):0] count;

	sb_fifo #(.WIDTH(JOB_W), .DEPTH(DEPTH)) u_jobs (
		.clk(clk), .rst(rst), .clear(1'b0),
		.s_data({job_addr[33:4], job_flits, job_seed}), .s_valid(job_valid),
		.s_ready(job_ready),
		.m_data(head), .m_valid(head_valid), .m_ready(m_wr_ready && last),
		.count(count));

	sb_pattern u_pattern (
		.seed(head[31:0]),
		.flit(head[65:36] + {26'd0, beat}),
		.data(m_wr_data));

	assign m_wr_valid = head_valid;
	assign empty = !head_valid;

	always @(posedge clk) begin
		if (head_valid && m_wr_ready)
			beat <= last ? 4'd0 : beat + 4'd1;
		if (rst)
			beat <= 4'd0;
	end

	/* verilator lint_off UNUSED */
	// The fill level is not needed; addresses are 16-byte aligned.
	wire unused = |{count, job_addr[3:0]};
	/* verilator lint_on UNUSED */

endmodule

`resetall
