// SPDX-License-Identifier: MIT
/*
 * The stackbench HBM2 traffic engine: N AXI3 traffic engines (one per HBM port; 32 on an
 * Alveo U280) and the card block behind one AXI4-Lite register slave implementing register
 * space 'hbm2' of the generated map (fpga_gups/regmap/regmap.yaml; self-describing block list
 * fw_id -> hbm_card -> trace -> hbm_replay -> hbm_port 0..N-1; the simulated board's hbm_sim
 * block is not here). Trace replay (sb_hbm_replay) sits between each engine and its port's
 * master (it owns the ports of port_mask while enabled); the trace block (sb_hbm_trace) taps
 * the masters after it, so it records the engines' and the replayed bursts.
 *
 * Memory side: port i is an AXI3 master of 256-bit data for the HBM controller's AXI port i
 * (PG276: AXI_nn, 64 IDs, bursts of up to 16 beats); the vectors are packed port-major.
 * Everything runs on the AXI clock of the HBM ports (450 MHz on the U280); the register slave
 * shares it (a design with another PCIe clock puts a clock-domain crossing in front).
 * Reads beyond the register space return 0xFFFFFFFF.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_hbm_top #(
	parameter integer N = 32,                  // engines (1..32, the map's instances)
	parameter integer STACKS = 2,              // HBM stacks (hbm_card.engine.stacks)
	parameter integer AXIL_ADDR_W = 16,        // AXI4-Lite address bits (BAR window)
	parameter [31:0]  FW_VERSION = 32'h0,      // identity; 0 = the map's reset value
	parameter [31:0]  BUILD_ID = 32'h0,
	parameter [31:0]  BOARD_ID = 32'h0,
	parameter [31:0]  GEOMETRY = 32'h0,
	parameter [31:0]  AXI_CLOCK_HZ = 32'h0,
	parameter [31:0]  HBM_CLOCK_HZ = 32'h0,
	parameter [31:0]  MC_CONFIG = 32'hFFFF_FFFF, // the controllers' build-time configuration
	parameter integer GLOBAL_ADDRESSING = 1,
	parameter [31:0]  SERIAL = 32'h0
) (
	input  wire                   clk,
	input  wire                   rst,

	// AXI4-Lite register slave (from the PCIe bridge's BAR window)
	input  wire [AXIL_ADDR_W-1:0] s_axil_awaddr,
	input  wire [2:0]             s_axil_awprot,
	input  wire                   s_axil_awvalid,
	output wire                   s_axil_awready,
	input  wire [31:0]            s_axil_wdata,
	input  wire [3:0]             s_axil_wstrb,
	input  wire                   s_axil_wvalid,
	output wire                   s_axil_wready,
	output wire [1:0]             s_axil_bresp,
	output wire                   s_axil_bvalid,
	input  wire                   s_axil_bready,
	input  wire [AXIL_ADDR_W-1:0] s_axil_araddr,
	input  wire [2:0]             s_axil_arprot,
	input  wire                   s_axil_arvalid,
	output wire                   s_axil_arready,
	output wire [31:0]            s_axil_rdata,
	output wire [1:0]             s_axil_rresp,
	output wire                   s_axil_rvalid,
	input  wire                   s_axil_rready,

	// AXI3 masters, one per HBM port (packed port-major)
	output wire [N*34-1:0]        m_axi_araddr,
	output wire [N*6-1:0]         m_axi_arid,
	output wire [N*4-1:0]         m_axi_arlen,
	output wire [N*3-1:0]         m_axi_arsize,
	output wire [N*2-1:0]         m_axi_arburst,
	output wire [N-1:0]           m_axi_arvalid,
	input  wire [N-1:0]           m_axi_arready,
	output wire [N*34-1:0]        m_axi_awaddr,
	output wire [N*6-1:0]         m_axi_awid,
	output wire [N*4-1:0]         m_axi_awlen,
	output wire [N*3-1:0]         m_axi_awsize,
	output wire [N*2-1:0]         m_axi_awburst,
	output wire [N-1:0]           m_axi_awvalid,
	input  wire [N-1:0]           m_axi_awready,
	output wire [N*256-1:0]       m_axi_wdata,
	output wire [N*32-1:0]        m_axi_wstrb,
	output wire [N*6-1:0]         m_axi_wid,
	output wire [N-1:0]           m_axi_wlast,
	output wire [N-1:0]           m_axi_wvalid,
	input  wire [N-1:0]           m_axi_wready,
	input  wire [N*256-1:0]       m_axi_rdata,
	input  wire [N*6-1:0]         m_axi_rid,
	input  wire [N*2-1:0]         m_axi_rresp,
	input  wire [N-1:0]           m_axi_rlast,
	input  wire [N-1:0]           m_axi_rvalid,
	output wire [N-1:0]           m_axi_rready,
	input  wire [N*6-1:0]         m_axi_bid,
	input  wire [N*2-1:0]         m_axi_bresp,
	input  wire [N-1:0]           m_axi_bvalid,
	output wire [N-1:0]           m_axi_bready,

	// from the HBM controller
	input  wire [6:0]             hbm_temp0,
	input  wire [6:0]             hbm_temp1,
	input  wire [1:0]             hbm_cattrip,

	output wire [N-1:0]           ports_done
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */

	localparam [31:0] PORT0 = SB_REGSPACE_HBM2_HBM_PORT_OFFSET;
	localparam [31:0] PSTRIDE = SB_REGSPACE_HBM2_HBM_PORT_STRIDE;
	localparam integer PSHIFT = $clog2(PSTRIDE);
	localparam [31:0] TRACE = SB_REGSPACE_HBM2_TRACE_OFFSET;
	localparam [31:0] REPLAY = SB_REGSPACE_HBM2_HBM_REPLAY_OFFSET;

	generate
		if (N < 1 || N > SB_REGSPACE_HBM2_HBM_PORT_COUNT || N > 16 * STACKS)
			$error("sb_hbm_top: N must be 1..%0d and at most 16 per stack (instance %m)",
			       SB_REGSPACE_HBM2_HBM_PORT_COUNT);
		if ((1 << PSHIFT) != PSTRIDE || PSTRIDE < SB_BLK_HBM_PORT_SIZE)
			$error("sb_hbm_top: the hbm_port stride must be a power of two (instance %m)");
		if (SB_REGSPACE_HBM2_FW_ID_OFFSET != 0)
			$error("sb_hbm_top: fw_id must be at offset 0 (instance %m)");
		if (AXIL_ADDR_W < $clog2(SB_REGSPACE_HBM2_SIZE) || AXIL_ADDR_W > 32)
			$error("sb_hbm_top: AXIL_ADDR_W must cover the register space (instance %m)");
	endgenerate

	// ---------------------------------------------------------------- register bus
	wire [AXIL_ADDR_W-1:0] bus_addr;
	wire bus_wr, bus_rd;
	wire [31:0] bus_wdata;
	wire [3:0] bus_wstrb;
	wire [31:0] bus_rdata;

	sb_axil_regbus #(.ADDR_W(AXIL_ADDR_W)) u_axil (
		.clk(clk), .rst(rst),
		.s_axil_awaddr(s_axil_awaddr), .s_axil_awprot(s_axil_awprot),
		.s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
		.s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb),
		.s_axil_wvalid(s_axil_wvalid), .s_axil_wready(s_axil_wready),
		.s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
		.s_axil_bready(s_axil_bready),
		.s_axil_araddr(s_axil_araddr), .s_axil_arprot(s_axil_arprot),
		.s_axil_arvalid(s_axil_arvalid), .s_axil_arready(s_axil_arready),
		.s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
		.s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
		.reg_addr(bus_addr), .reg_wr_en(bus_wr), .reg_wr_data(bus_wdata),
		.reg_wr_strb(bus_wstrb), .reg_rd_en(bus_rd), .reg_rd_data(bus_rdata));

	wire [31:0] a = {{(32 - AXIL_ADDR_W){1'b0}}, bus_addr};
	wire sel_fw = a < SB_REGSPACE_HBM2_FW_ID_OFFSET + SB_BLK_FW_ID_SIZE; // fw_id is at 0
	wire sel_card = a >= SB_REGSPACE_HBM2_HBM_CARD_OFFSET &&
	                a < SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_BLK_HBM_CARD_SIZE;
	wire sel_trace = a >= TRACE && a < TRACE + SB_BLK_TRACE_SIZE;
	wire sel_replay = a >= REPLAY && a < REPLAY + SB_BLK_HBM_REPLAY_SIZE;
	wire [31:0] prel = a - PORT0;
	wire in_ports = a >= PORT0 && prel < N * PSTRIDE;
	wire [31:0] pidx = prel >> PSHIFT;
	wire [31:0] poff = prel & (PSTRIDE - 1);

	// Outside the register space: reads 0xFFFFFFFF (like an unclaimed PCIe read).
	reg oor_rd;
	always @(posedge clk)
		oor_rd <= bus_rd && a >= SB_REGSPACE_HBM2_SIZE;

	wire [31:0] rd_card, rd_trace, rd_replay;
	wire [N*32-1:0] rd_port;
	reg [31:0] rd_ports_or;
	integer ri;
	always @* begin
		rd_ports_or = 32'd0;
		for (ri = 0; ri < N; ri = ri + 1)
			rd_ports_or = rd_ports_or | rd_port[ri*32 +: 32];
	end
	assign bus_rdata = rd_card | rd_trace | rd_replay | rd_ports_or | {32{oor_rd}};

	// ---------------------------------------------------------------- card
	wire [N-1:0] start_ports, stop_ports;
	wire [63:0] cycles;

	sb_hbm_card #(
		.N(N), .STACKS(STACKS), .FW_VERSION(FW_VERSION), .BUILD_ID(BUILD_ID),
		.BOARD_ID(BOARD_ID), .GEOMETRY(GEOMETRY), .AXI_CLOCK_HZ(AXI_CLOCK_HZ),
		.HBM_CLOCK_HZ(HBM_CLOCK_HZ), .MC_CONFIG(MC_CONFIG),
		.GLOBAL_ADDRESSING(GLOBAL_ADDRESSING), .SERIAL(SERIAL),
		.FW_ID_NEXT(SB_REGSPACE_HBM2_HBM_CARD_OFFSET), .CARD_NEXT(TRACE)
	) u_card (
		.clk(clk), .rst(rst), .reg_sel_fw_id(sel_fw), .reg_sel_card(sel_card),
		.reg_addr(a - (sel_fw ? SB_REGSPACE_HBM2_FW_ID_OFFSET : SB_REGSPACE_HBM2_HBM_CARD_OFFSET)),
		.reg_wr_en(bus_wr), .reg_wr_data(bus_wdata), .reg_wr_strb(bus_wstrb),
		.reg_rd_en(bus_rd), .reg_rd_data(rd_card),
		.hbm_temp0(hbm_temp0), .hbm_temp1(hbm_temp1), .hbm_cattrip(hbm_cattrip),
		.start_ports(start_ports), .stop_ports(stop_ports), .cycles(cycles));

	// ---------------------------------------------------------------- trace capture
	// taps of the engines (p_*) and after the replay's multiplexers (trc_*)
	wire [N-1:0] p_trc_r_valid, p_trc_b_valid, trc_r_valid, trc_b_valid;
	wire [N*29-1:0] p_trc_r_blk, p_trc_b_blk, trc_r_blk, trc_b_blk;
	wire [N*5-1:0] p_trc_r_beats, p_trc_b_beats, trc_r_beats, trc_b_beats;
	wire [N*32-1:0] p_trc_r_lat, p_trc_b_lat, trc_r_lat, trc_b_lat;
	wire [N-1:0] ar_hs = m_axi_arvalid & m_axi_arready;
	wire [N-1:0] aw_hs = m_axi_awvalid & m_axi_awready;
	reg [N*6-1:0] hs_id;
	integer hi;
	always @*
		for (hi = 0; hi < N; hi = hi + 1)
			hs_id[hi*6 +: 6] = aw_hs[hi] ? m_axi_awid[hi*6 +: 6] : m_axi_arid[hi*6 +: 6];

	sb_hbm_trace #(.N(N), .NEXT_OFFSET(REPLAY)) u_trace (
		.clk(clk), .rst(rst), .now(cycles),
		.reg_sel(sel_trace), .reg_addr(a - TRACE), .reg_wr_en(bus_wr), .reg_wr_data(bus_wdata),
		.reg_wr_strb(bus_wstrb), .reg_rd_en(bus_rd), .reg_rd_data(rd_trace),
		.hs_valid(ar_hs | aw_hs), .hs_id(hs_id),
		.rc_valid(trc_r_valid), .rc_id(m_axi_rid), .rc_blk(trc_r_blk), .rc_beats(trc_r_beats),
		.rc_resp(m_axi_rresp), .rc_lat(trc_r_lat),
		.bc_valid(trc_b_valid), .bc_id(m_axi_bid), .bc_blk(trc_b_blk), .bc_beats(trc_b_beats),
		.bc_resp(m_axi_bresp), .bc_lat(trc_b_lat));

	// ---------------------------------------------------------------- trace replay
	// the engines' AXI3 masters, in front of the replay's multiplexers (packed port-major)
	wire [N*34-1:0]  e_araddr, e_awaddr;
	wire [N*6-1:0]   e_arid, e_awid, e_wid;
	wire [N*4-1:0]   e_arlen, e_awlen;
	wire [N*3-1:0]   e_arsize, e_awsize;
	wire [N*2-1:0]   e_arburst, e_awburst;
	wire [N-1:0]     e_arvalid, e_arready, e_awvalid, e_awready, e_wlast, e_wvalid, e_wready;
	wire [N-1:0]     e_rvalid, e_rready, e_bvalid, e_bready;
	wire [N*256-1:0] e_wdata;
	wire [N*32-1:0]  e_wstrb, seed_cfg;
	wire [N*64-1:0]  ids_busy;
	wire [N-1:0]     eng_running;

	sb_hbm_replay #(.N(N), .NEXT_OFFSET(PORT0)) u_replay (
		.clk(clk), .rst(rst), .cycles(cycles),
		.reg_sel(sel_replay), .reg_addr(a - REPLAY), .reg_wr_en(bus_wr),
		.reg_wr_data(bus_wdata), .reg_wr_strb(bus_wstrb), .reg_rd_en(bus_rd),
		.reg_rd_data(rd_replay), .eng_running(eng_running), .ids_busy(ids_busy), .seed_cfg(seed_cfg),
		.e_araddr(e_araddr), .e_arid(e_arid), .e_arlen(e_arlen), .e_arsize(e_arsize),
		.e_arburst(e_arburst), .e_arvalid(e_arvalid), .e_arready(e_arready),
		.e_awaddr(e_awaddr), .e_awid(e_awid), .e_awlen(e_awlen), .e_awsize(e_awsize),
		.e_awburst(e_awburst), .e_awvalid(e_awvalid), .e_awready(e_awready),
		.e_wdata(e_wdata), .e_wstrb(e_wstrb), .e_wid(e_wid), .e_wlast(e_wlast),
		.e_wvalid(e_wvalid), .e_wready(e_wready), .e_rvalid(e_rvalid), .e_rready(e_rready),
		.e_bvalid(e_bvalid), .e_bready(e_bready),
		.m_axi_araddr(m_axi_araddr), .m_axi_arid(m_axi_arid), .m_axi_arlen(m_axi_arlen),
		.m_axi_arsize(m_axi_arsize), .m_axi_arburst(m_axi_arburst),
		.m_axi_arvalid(m_axi_arvalid), .m_axi_arready(m_axi_arready),
		.m_axi_awaddr(m_axi_awaddr), .m_axi_awid(m_axi_awid), .m_axi_awlen(m_axi_awlen),
		.m_axi_awsize(m_axi_awsize), .m_axi_awburst(m_axi_awburst),
		.m_axi_awvalid(m_axi_awvalid), .m_axi_awready(m_axi_awready),
		.m_axi_wdata(m_axi_wdata), .m_axi_wstrb(m_axi_wstrb), .m_axi_wid(m_axi_wid),
		.m_axi_wlast(m_axi_wlast), .m_axi_wvalid(m_axi_wvalid), .m_axi_wready(m_axi_wready),
		.m_axi_rid(m_axi_rid), .m_axi_rresp(m_axi_rresp), .m_axi_rlast(m_axi_rlast),
		.m_axi_rvalid(m_axi_rvalid), .m_axi_rready(m_axi_rready),
		.m_axi_bid(m_axi_bid), .m_axi_bresp(m_axi_bresp), .m_axi_bvalid(m_axi_bvalid),
		.m_axi_bready(m_axi_bready),
		.p_trc_r_valid(p_trc_r_valid), .p_trc_r_blk(p_trc_r_blk),
		.p_trc_r_beats(p_trc_r_beats), .p_trc_r_lat(p_trc_r_lat),
		.p_trc_b_valid(p_trc_b_valid), .p_trc_b_blk(p_trc_b_blk),
		.p_trc_b_beats(p_trc_b_beats), .p_trc_b_lat(p_trc_b_lat),
		.trc_r_valid(trc_r_valid), .trc_r_blk(trc_r_blk), .trc_r_beats(trc_r_beats),
		.trc_r_lat(trc_r_lat), .trc_b_valid(trc_b_valid), .trc_b_blk(trc_b_blk),
		.trc_b_beats(trc_b_beats), .trc_b_lat(trc_b_lat));

	// ---------------------------------------------------------------- engines
	genvar p;
	generate
		for (p = 0; p < N; p = p + 1) begin : g_port
			localparam [31:0] NEXT = (p == N - 1) ? 32'd0 : PORT0 + (p + 1) * PSTRIDE;

			sb_hbm_port u_port (
				.clk(clk), .rst(rst), .port_index(p[7:0]), .next_offset(NEXT),
				.reg_sel(in_ports && pidx == p), .reg_addr(poff),
				.reg_wr_en(bus_wr), .reg_wr_data(bus_wdata), .reg_wr_strb(bus_wstrb),
				.reg_rd_en(bus_rd), .reg_rd_data(rd_port[p*32 +: 32]),
				.start_all(start_ports[p]), .stop_all(stop_ports[p]),
				.m_axi_araddr(e_araddr[p*34 +: 34]), .m_axi_arid(e_arid[p*6 +: 6]),
				.m_axi_arlen(e_arlen[p*4 +: 4]), .m_axi_arsize(e_arsize[p*3 +: 3]),
				.m_axi_arburst(e_arburst[p*2 +: 2]), .m_axi_arvalid(e_arvalid[p]),
				.m_axi_arready(e_arready[p]),
				.m_axi_awaddr(e_awaddr[p*34 +: 34]), .m_axi_awid(e_awid[p*6 +: 6]),
				.m_axi_awlen(e_awlen[p*4 +: 4]), .m_axi_awsize(e_awsize[p*3 +: 3]),
				.m_axi_awburst(e_awburst[p*2 +: 2]), .m_axi_awvalid(e_awvalid[p]),
				.m_axi_awready(e_awready[p]),
				.m_axi_wdata(e_wdata[p*256 +: 256]), .m_axi_wstrb(e_wstrb[p*32 +: 32]),
				.m_axi_wid(e_wid[p*6 +: 6]), .m_axi_wlast(e_wlast[p]),
				.m_axi_wvalid(e_wvalid[p]), .m_axi_wready(e_wready[p]),
				.m_axi_rdata(m_axi_rdata[p*256 +: 256]), .m_axi_rid(m_axi_rid[p*6 +: 6]),
				.m_axi_rresp(m_axi_rresp[p*2 +: 2]), .m_axi_rlast(m_axi_rlast[p]),
				.m_axi_rvalid(e_rvalid[p]), .m_axi_rready(e_rready[p]),
				.m_axi_bid(m_axi_bid[p*6 +: 6]), .m_axi_bresp(m_axi_bresp[p*2 +: 2]),
				.m_axi_bvalid(e_bvalid[p]), .m_axi_bready(e_bready[p]),
				.done(ports_done[p]),
				.trc_r_valid(p_trc_r_valid[p]), .trc_r_blk(p_trc_r_blk[p*29 +: 29]),
				.trc_r_beats(p_trc_r_beats[p*5 +: 5]), .trc_r_lat(p_trc_r_lat[p*32 +: 32]),
				.trc_b_valid(p_trc_b_valid[p]), .trc_b_blk(p_trc_b_blk[p*29 +: 29]),
				.trc_b_beats(p_trc_b_beats[p*5 +: 5]), .trc_b_lat(p_trc_b_lat[p*32 +: 32]),
				.ids_busy(ids_busy[p*64 +: 64]), .seed_cfg(seed_cfg[p*32 +: 32]),
				.running(eng_running[p]));
		end
	endgenerate

endmodule

`resetall
