// SPDX-License-Identifier: MIT
/*
 * Round-robin arbiter of N HMC user ports onto one (the ports that share a link).
 *
 * Commands: a round-robin grant among the ports with a command, into a registered output
 * stage; the link-side tag is {port, tag}. Write data: the beats of each granted write are
 * taken from its port in grant order (a FIFO of (port, flits) entries routes the data
 * channel). Responses: routed to the port named by the high tag bits, registered once.
 * With N = 1 the module is a register stage.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_uport_arb #(
	parameter integer N = 5,                             // ports sharing the link
	parameter integer TAG_W = 6,                         // tag bits of each port
	parameter integer SEL_W = (N > 1) ? $clog2(N) : 1,   // port number bits
	parameter integer LTAG_W = TAG_W + ((N > 1) ? SEL_W : 0), // link-side tag bits
	parameter integer ROUTE_DEPTH = 8                    // writes whose data is pending
) (
	input  wire                 clk,
	input  wire                 rst,

	// Ports (requests in, responses out), packed port-major
	input  wire [N-1:0]         s_cmd_valid,
	output wire [N-1:0]         s_cmd_ready,
	input  wire [N*4-1:0]       s_cmd,
	input  wire [N*34-1:0]      s_cmd_addr,
	input  wire [N*4-1:0]       s_cmd_size,
	input  wire [N*TAG_W-1:0]   s_cmd_tag,
	input  wire [N*128-1:0]     s_wr_data,
	input  wire [N-1:0]         s_wr_valid,
	output wire [N-1:0]         s_wr_ready,
	output reg  [N-1:0]         s_rsp_valid,
	output reg  [TAG_W-1:0]     s_rsp_tag,
	output reg  [127:0]         s_rsp_data,
	output reg  [6:0]           s_rsp_errstat,
	output reg                  s_rsp_dinv,

	// Link-side user port
	output reg                  m_cmd_valid,
	input  wire                 m_cmd_ready,
	output reg  [3:0]           m_cmd,
	output reg  [33:0]          m_cmd_addr,
	output reg  [3:0]           m_cmd_size,
	output reg  [LTAG_W-1:0]    m_cmd_tag,
	output wire [127:0]         m_wr_data,
	output wire                 m_wr_valid,
	input  wire                 m_wr_ready,
	input  wire                 m_rsp_valid,
	input  wire [LTAG_W-1:0]    m_rsp_tag,
	input  wire [127:0]         m_rsp_data,
	input  wire [6:0]           m_rsp_errstat,
	input  wire                 m_rsp_dinv
);

	/* verilator lint_off UNUSEDPARAM */ // not every module issues every command
`include "sb_uport.vh"
	/* verilator lint_on UNUSEDPARAM */

	generate
		if (N < 1 || N > 16)
			$error("sb_uport_arb: N must be 1..16 (instance %m)");
		if (LTAG_W != TAG_W + ((N > 1) ? SEL_W : 0))
			$error("sb_uport_arb: LTAG_W must be TAG_W + port bits (instance %m)");
	endgenerate

	// ---------------------------------------------------------------- commands
	wire [N-1:0] grant;
	wire [SEL_W-1:0] gidx;
	wire gvalid;
	wire route_ready;
	wire out_free = !m_cmd_valid || m_cmd_ready;
	wire [3:0] g_cmd = s_cmd[gidx*4 +: 4];
	wire g_write = g_cmd != SB_UPORT_CMD_RD;
	wire take = gvalid && out_free && (!g_write || route_ready);

	wire [LTAG_W-1:0] g_tag;
	generate
		if (N > 1) begin : g_tag_sel
			assign g_tag = {gidx, s_cmd_tag[gidx*TAG_W +: TAG_W]};
		end else begin : g_tag_one
			assign g_tag = s_cmd_tag;
		end
	endgenerate

	sb_rr_arbiter #(.N(N), .IDX_W(SEL_W)) u_rr (
		.clk(clk), .rst(rst), .req(s_cmd_valid), .accept(take),
		.grant(grant), .grant_idx(gidx), .grant_valid(gvalid));

	assign s_cmd_ready = take ? grant : {N{1'b0}};

	always @(posedge clk) begin
		if (m_cmd_valid && m_cmd_ready)
			m_cmd_valid <= 1'b0;
		if (take) begin
			m_cmd_valid <= 1'b1;
			m_cmd <= g_cmd;
			m_cmd_addr <= s_cmd_addr[gidx*34 +: 34];
			m_cmd_size <= s_cmd_size[gidx*4 +: 4];
			m_cmd_tag <= g_tag;
		end
		if (rst)
			m_cmd_valid <= 1'b0;
	end

	// ---------------------------------------------------------------- write data routing
	wire [SEL_W+3:0] route;
	wire route_valid;
	wire [SEL_W-1:0] rport = route[SEL_W+3:4];
	wire [3:0] rflits = route[3:0];
	reg [3:0] rbeat;
	wire rlast = rbeat + 4'd1 >= rflits;
	wire beat_go = route_valid && s_wr_valid[rport] && m_wr_ready;
	wire [$clog2(ROUTE_DEPTH):0] route_count;

	sb_fifo #(.WIDTH(SEL_W + 4), .DEPTH(ROUTE_DEPTH)) u_route (
		.clk(clk), .rst(rst), .clear(1'b0),
		.s_data({gidx, s_cmd_size[gidx*4 +: 4]}), .s_valid(take && g_write),
		.s_ready(route_ready),
		.m_data(route), .m_valid(route_valid), .m_ready(beat_go && rlast),
		.count(route_count));

	assign m_wr_data = s_wr_data[rport*128 +: 128];
	assign m_wr_valid = route_valid && s_wr_valid[rport];
	genvar p;
	generate
		for (p = 0; p < N; p = p + 1) begin : g_wr_ready
			assign s_wr_ready[p] = route_valid && rport == p && m_wr_ready;
		end
	endgenerate

	always @(posedge clk) begin
		if (beat_go)
			rbeat <= rlast ? 4'd0 : rbeat + 4'd1;
		if (rst)
			rbeat <= 4'd0;
	end

	// ---------------------------------------------------------------- responses
	wire [SEL_W-1:0] rsp_port;
	generate
		if (N > 1) begin : g_sel
			assign rsp_port = m_rsp_tag[LTAG_W-1:TAG_W];
		end else begin : g_nosel
			assign rsp_port = {SEL_W{1'b0}};
		end
	endgenerate

	integer i;
	always @(posedge clk) begin
		for (i = 0; i < N; i = i + 1)
			s_rsp_valid[i] <= m_rsp_valid && {{(32 - SEL_W){1'b0}}, rsp_port} == i;
		s_rsp_tag <= m_rsp_tag[TAG_W-1:0];
		s_rsp_data <= m_rsp_data;
		s_rsp_errstat <= m_rsp_errstat;
		s_rsp_dinv <= m_rsp_dinv;
		if (rst)
			s_rsp_valid <= {N{1'b0}};
	end

	/* verilator lint_off UNUSED */
	wire unused = |route_count; // fill level not needed
	/* verilator lint_on UNUSED */

endmodule

`resetall
