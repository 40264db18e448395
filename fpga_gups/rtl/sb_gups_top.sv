// SPDX-License-Identifier: MIT
/*
 * The stackbench GUPS engine: N GUPS ports, stream GUPS, trace capture, trace replay and the
 * status blocks behind one AXI4-Lite register slave implementing the generated register map
 * (fpga_gups/regmap/regmap.yaml; self-describing block list fw_id -> board -> hmc_ctrl -> irq
 * -> trace -> stream -> replay -> gups_port 0..N-1).
 *
 * Memory side: one HMC-controller user port per link (Micron/Pico user-port shape: cmd,
 * 34-bit addr, size in flits, tag, 128-bit write-data beats; responses with tag, data,
 * ERRSTAT, dinv). GUPS port i is controller user port FIRST_PORT + i of PORTS_PER_LINK per
 * link, so it uses link (FIRST_PORT + i) / PORTS_PER_LINK (gups_port.info.link; sb_link_map.vh):
 * on the AC-510 ports 0-3 use link 0 and 4-8 link 1, user port 0 of link 0 being the PCIe
 * stream's. The ports of a link share it through a round-robin arbiter and the link-side tag is
 * {port within the link, tag}. With PORTS_PER_LINK = 1, FIRST_PORT = 0 and LINKS = N every
 * port has its own user port (the controller arbitrates).
 * The stream and the replay take over ports' request paths (the stream first).
 * Everything runs on the user clock; reads beyond the register space return 0xFFFFFFFF.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_gups_top #(
	parameter integer N = 9,                   // GUPS ports (1..9, the map's instances)
	parameter integer LINKS = 2,               // HMC links, each with GUPS ports (1..16)
	parameter integer PORTS_PER_LINK = 5,      // controller user ports per link (M510: 5)
	parameter integer FIRST_PORT = 1,          // user port of GUPS port 0 (M510: 1, 0 = PCIe)
	parameter integer AXIL_ADDR_W = 16,        // AXI4-Lite address bits (BAR size)
	// most GUPS ports on one link (derived; an upper bound, exact for the AC-510)
	parameter integer MAX_PER_LINK = (PORTS_PER_LINK < N) ? PORTS_PER_LINK : N,
	parameter integer LTAG_W = 6 + ((MAX_PER_LINK > 1) ? $clog2(MAX_PER_LINK) : 0), // link tag
	parameter integer TRACE_DEPTH = 0,         // on-chip trace records; 0 = map (1024)
	parameter integer HAS_DMA = 1,             // m_axis_trace feeds a DMA engine
	parameter [6:0]   ERRSTAT_THERMAL = 7'h01, // ERRSTAT that announces a thermal failure
	parameter [31:0]  FW_VERSION = 32'h0,      // identity; 0 = the map's reset value
	parameter [31:0]  BUILD_ID = 32'h0,
	parameter [31:0]  BOARD_ID = 32'h0,
	parameter [31:0]  USER_CLOCK_HZ = 32'h0,
	parameter [31:0]  LINK_CONFIG = 32'h0,
	parameter [31:0]  CUBE_CONFIG = 32'h0,
	parameter [31:0]  SERIAL = 32'h0
) (
	input  wire                   clk,
	input  wire                   rst,

	// AXI4-Lite register slave (from the PCIe bridge)
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

	// HMC controller user ports, one per link (packed link-major)
	output wire [LINKS-1:0]        m_hmc_cmd_valid,
	input  wire [LINKS-1:0]        m_hmc_cmd_ready,
	output wire [LINKS*4-1:0]      m_hmc_cmd,
	output wire [LINKS*34-1:0]     m_hmc_addr,
	output wire [LINKS*4-1:0]      m_hmc_size,
	output wire [LINKS*LTAG_W-1:0] m_hmc_tag,
	output wire [LINKS*128-1:0]    m_hmc_wr_data,
	output wire [LINKS-1:0]        m_hmc_wr_valid,
	input  wire [LINKS-1:0]        m_hmc_wr_ready,
	input  wire [LINKS-1:0]        s_hmc_rsp_valid,
	input  wire [LINKS*LTAG_W-1:0] s_hmc_rsp_tag,
	input  wire [LINKS*128-1:0]    s_hmc_rsp_data,
	input  wire [LINKS*7-1:0]      s_hmc_rsp_errstat,
	input  wire [LINKS-1:0]        s_hmc_rsp_dinv,

	// HMC controller status and commands
	input  wire [3:0]             hmc_link_up,
	input  wire                   hmc_init_done,
	input  wire                   hmc_crc_error,
	input  wire                   hmc_link_retry,
	output wire                   hmc_init_start,
	output wire                   hmc_cube_reset,
	output wire                   hmc_xcvr_reset,
	output wire [1:0]             hmc_addr_mode,

	// Trace records for a DMA engine (trace.control.dma)
	output wire [255:0]           m_axis_trace_tdata,
	output wire [63:0]            m_axis_trace_tuser,
	output wire                   m_axis_trace_tvalid,
	input  wire                   m_axis_trace_tready,

	// Trace replay: DMA reads of the descriptor ring and the descriptors they return
	output wire [79:0]            m_axis_replay_rdreq_tdata,
	output wire                   m_axis_replay_rdreq_tvalid,
	input  wire                   m_axis_replay_rdreq_tready,
	input  wire [127:0]           s_axis_replay_desc_tdata,
	input  wire                   s_axis_replay_desc_tvalid,
	output wire                   s_axis_replay_desc_tready,

	output wire                   irq
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */

	// ---------------------------------------------------------------- parameters
	// sb_port_link(i): the link of GUPS port i; checks of N, LINKS, PORTS_PER_LINK, FIRST_PORT.
`include "sb_link_map.vh"

	// First GUPS port of link l: the smallest i on link l (N if none).
	function automatic integer link_first(input integer l);
		integer i;
		begin
			link_first = N;
			for (i = N - 1; i >= 0; i = i - 1)
				if (sb_port_link(i) == l)
					link_first = i;
		end
	endfunction

	generate
		if (N < 1 || N > SB_LAYOUT_GUPS_PORT_COUNT)
			$error("sb_gups_top: N must be 1..%0d (instance %m)", SB_LAYOUT_GUPS_PORT_COUNT);
		if (LINKS < 1 || LINKS > 16)
			$error("sb_gups_top: LINKS must be 1..16 (instance %m)");
		if (MAX_PER_LINK != ((PORTS_PER_LINK < N) ? PORTS_PER_LINK : N))
			$error("sb_gups_top: MAX_PER_LINK is derived; do not set it (instance %m)");
		if (LTAG_W != 6 + ((MAX_PER_LINK > 1) ? $clog2(MAX_PER_LINK) : 0))
			$error("sb_gups_top: LTAG_W is derived; do not set it (instance %m)");
		if (AXIL_ADDR_W < $clog2(SB_REGMAP_SIZE) || AXIL_ADDR_W > 32)
			$error("sb_gups_top: AXIL_ADDR_W must cover the register space (instance %m)");
	endgenerate

	localparam [31:0] PORT0 = SB_LAYOUT_GUPS_PORT_OFFSET;
	localparam [31:0] PSTRIDE = SB_LAYOUT_GUPS_PORT_STRIDE;

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

	function automatic in_block(input [31:0] addr, input [31:0] base, input [31:0] size);
		in_block = addr >= base && addr < base + size;
	endfunction

	wire sel_fw = in_block(a, SB_LAYOUT_FW_ID_OFFSET, SB_BLK_FW_ID_SIZE);
	wire sel_board = in_block(a, SB_LAYOUT_BOARD_OFFSET, SB_BLK_BOARD_SIZE);
	wire sel_hmc = in_block(a, SB_LAYOUT_HMC_CTRL_OFFSET, SB_BLK_HMC_CTRL_SIZE);
	wire sel_irq = in_block(a, SB_LAYOUT_IRQ_OFFSET, SB_BLK_IRQ_SIZE);
	wire sel_trace = in_block(a, SB_LAYOUT_TRACE_OFFSET, SB_BLK_TRACE_SIZE);
	wire sel_stream = in_block(a, SB_LAYOUT_STREAM_OFFSET, SB_BLK_STREAM_SIZE);
	wire sel_replay = in_block(a, SB_LAYOUT_REPLAY_OFFSET, SB_BLK_REPLAY_SIZE);

	// Outside the register space: reads 0xFFFFFFFF (like an unclaimed PCIe read).
	reg oor_rd;
	always @(posedge clk)
		oor_rd <= bus_rd && a >= SB_REGMAP_SIZE;

	wire [31:0] rd_ident, rd_hmc, rd_irq, rd_trace, rd_stream, rd_replay;
	wire [N*32-1:0] rd_port;
	reg [31:0] rd_ports_or;
	integer ri;
	always @* begin
		rd_ports_or = 32'd0;
		for (ri = 0; ri < N; ri = ri + 1)
			rd_ports_or = rd_ports_or | rd_port[ri*32 +: 32];
	end
	assign bus_rdata = rd_ident | rd_hmc | rd_irq | rd_trace | rd_stream | rd_replay |
	                   rd_ports_or | {32{oor_rd}};

	// ---------------------------------------------------------------- identity, status, irq
	wire [63:0] cycles;
	wire ports_reset;
	wire [31:0] flow_threshold, data_seed;
	wire ev_thermal, ev_link_error, ev_trace, ev_stream;
	reg ev_ports_done;

	sb_ident_regs #(
		.PORTS(N), .FW_VERSION(FW_VERSION), .BUILD_ID(BUILD_ID), .BOARD_ID(BOARD_ID),
		.USER_CLOCK_HZ(USER_CLOCK_HZ), .LINK_CONFIG(LINK_CONFIG), .CUBE_CONFIG(CUBE_CONFIG),
		.SERIAL(SERIAL), .HAS_DMA(HAS_DMA),
		.FW_ID_NEXT(SB_LAYOUT_BOARD_OFFSET), .BOARD_NEXT(SB_LAYOUT_HMC_CTRL_OFFSET)
	) u_ident (
		.clk(clk), .rst(rst), .reg_sel_fw_id(sel_fw), .reg_sel_board(sel_board),
		.reg_addr(a - (sel_fw ? SB_LAYOUT_FW_ID_OFFSET : SB_LAYOUT_BOARD_OFFSET)),
		.reg_wr_en(bus_wr), .reg_wr_data(bus_wdata), .reg_wr_strb(bus_wstrb),
		.reg_rd_en(bus_rd), .reg_rd_data(rd_ident), .cycles(cycles));

	// Error responses: the ports, then the stream, then the replay's links.
	wire [N+LINKS:0] rsp_err;
	wire [(N+LINKS+1)*7-1:0] rsp_errstat;
	wire [1:0] addr_mode_w;

	sb_hmc_ctrl #(
		.LINKS(LINKS > 4 ? 4 : LINKS), .K(N + 1 + LINKS), .ERRSTAT_THERMAL(ERRSTAT_THERMAL),
		.NEXT_OFFSET(SB_LAYOUT_IRQ_OFFSET)
	) u_hmc (
		.clk(clk), .rst(rst), .reg_sel(sel_hmc), .reg_addr(a - SB_LAYOUT_HMC_CTRL_OFFSET),
		.reg_wr_en(bus_wr), .reg_wr_data(bus_wdata), .reg_wr_strb(bus_wstrb),
		.reg_rd_en(bus_rd), .reg_rd_data(rd_hmc),
		.hmc_link_up(hmc_link_up), .hmc_init_done(hmc_init_done),
		.hmc_crc_error(hmc_crc_error), .hmc_link_retry(hmc_link_retry),
		.hmc_init_start(hmc_init_start), .hmc_cube_reset(hmc_cube_reset),
		.hmc_xcvr_reset(hmc_xcvr_reset), .hmc_addr_mode(addr_mode_w),
		.rsp_err(rsp_err), .rsp_errstat(rsp_errstat),
		.ports_reset(ports_reset), .flow_threshold(flow_threshold),
		.ev_thermal(ev_thermal), .ev_link_error(ev_link_error));

	sb_irq_regs #(.NEXT_OFFSET(SB_LAYOUT_TRACE_OFFSET)) u_irq (
		.clk(clk), .rst(rst), .reg_sel(sel_irq), .reg_addr(a - SB_LAYOUT_IRQ_OFFSET),
		.reg_wr_en(bus_wr), .reg_wr_data(bus_wdata), .reg_wr_strb(bus_wstrb),
		.reg_rd_en(bus_rd), .reg_rd_data(rd_irq),
		.ev_thermal(ev_thermal), .ev_trace_ready(ev_trace), .ev_ports_done(ev_ports_done),
		.ev_link_error(ev_link_error), .ev_stream_done(ev_stream), .irq(irq));

	assign hmc_addr_mode = addr_mode_w;

	// ---------------------------------------------------------------- ports
	wire [N-1:0] p_enabled, p_done, p_idle;
	// Trace taps: the ports' own (pt_*) and the replay lanes' (rt_*), merged for sb_trace.
	wire [N-1:0] pt_valid, pt_write, trc_drop, rt_valid, rt_write;
	wire [N*34-1:0] pt_addr, rt_addr;
	wire [N*4-1:0] pt_flits, rt_flits;
	wire [N*6-1:0] pt_tag, rt_tag;
	wire [N*7-1:0] pt_errstat, rt_errstat;
	wire [N*32-1:0] pt_time, pt_latency, rt_time, rt_latency;
	wire [N-1:0] trc_valid, trc_write;
	wire [N*34-1:0] trc_addr;
	wire [N*4-1:0] trc_flits;
	wire [N*6-1:0] trc_tag;
	wire [N*7-1:0] trc_errstat;
	wire [N*32-1:0] trc_time, trc_latency;

	// Port side of the user ports (before the stream mux) and the arbiter side (after it).
	wire [N-1:0] pc_valid, pc_ready, pw_valid, pw_ready, pr_valid;
	wire [N*4-1:0] pc_cmd, pc_size;
	wire [N*34-1:0] pc_addr;
	wire [N*6-1:0] pc_tag;
	wire [N*128-1:0] pw_data;
	wire [N-1:0] ac_valid, ac_ready, aw_valid, aw_ready, ar_valid;
	wire [N*4-1:0] ac_cmd, ac_size;
	wire [N*34-1:0] ac_addr;
	wire [N*6-1:0] ac_tag;
	wire [N*128-1:0] aw_data;
	wire [LINKS*6-1:0] ar_tag;
	wire [LINKS*128-1:0] ar_data;
	wire [LINKS*7-1:0] ar_errstat;
	wire [LINKS-1:0] ar_dinv;
	wire [N-1:0] s_claim, s_own;
	wire [N-1:0] r_claim, r_own;

	// Replay user ports (one per lane)
	wire [N-1:0] rc_valid, rc_ready, rw_valid, rw_ready, rr_valid;
	wire [N*4-1:0] rc_cmd, rc_size;
	wire [N*34-1:0] rc_addr;
	wire [N*6-1:0] rc_tag, rr_tag;
	wire [N*128-1:0] rw_data;
	wire [N*7-1:0] rr_errstat;

	// Stream user port
	wire sc_valid, sc_ready, sw_valid, sw_ready, sr_valid;
	wire [3:0] sc_cmd, sc_size;
	wire [33:0] sc_addr;
	wire [5:0] sc_tag, sr_tag;
	wire [127:0] sw_data, sr_data;
	wire [6:0] sr_errstat;

	genvar p;
	generate
		for (p = 0; p < N; p = p + 1) begin : g_port
			localparam integer LK = sb_port_link(p);
			localparam integer IDX = p;
			localparam [31:0] NEXT = (p == N - 1) ? 32'h0 : PORT0 + (p + 1) * PSTRIDE;
			wire sel = in_block(a, PORT0 + p * PSTRIDE, SB_BLK_GUPS_PORT_SIZE);

			sb_gups_port u_port (
				.clk(clk), .rst(rst), .now(cycles[31:0]),
				.info_index(IDX[7:0]), .info_link(LK[3:0]), .next_offset(NEXT),
				.reg_sel(sel), .reg_addr(a - (PORT0 + p * PSTRIDE)),
				.reg_wr_en(bus_wr), .reg_wr_data(bus_wdata), .reg_wr_strb(bus_wstrb),
				.reg_rd_en(bus_rd), .reg_rd_data(rd_port[p*32 +: 32]),
				.ports_reset(ports_reset), .flow_threshold(flow_threshold),
				.data_seed(data_seed), .hold(s_claim[p] | r_claim[p]),
				.m_cmd_valid(pc_valid[p]), .m_cmd_ready(pc_ready[p]),
				.m_cmd(pc_cmd[p*4 +: 4]), .m_cmd_addr(pc_addr[p*34 +: 34]),
				.m_cmd_size(pc_size[p*4 +: 4]), .m_cmd_tag(pc_tag[p*6 +: 6]),
				.m_wr_data(pw_data[p*128 +: 128]), .m_wr_valid(pw_valid[p]),
				.m_wr_ready(pw_ready[p]),
				.s_rsp_valid(pr_valid[p]), .s_rsp_tag(ar_tag[LK*6 +: 6]),
				.s_rsp_data(ar_data[LK*128 +: 128]), .s_rsp_errstat(ar_errstat[LK*7 +: 7]),
				.s_rsp_dinv(ar_dinv[LK]),
				.st_enabled(p_enabled[p]), .st_done(p_done[p]), .st_idle(p_idle[p]),
				.rsp_err(rsp_err[p]), .rsp_errstat(rsp_errstat[p*7 +: 7]),
				.trc_valid(pt_valid[p]), .trc_addr(pt_addr[p*34 +: 34]),
				.trc_write(pt_write[p]), .trc_flits(pt_flits[p*4 +: 4]),
				.trc_tag(pt_tag[p*6 +: 6]), .trc_errstat(pt_errstat[p*7 +: 7]),
				.trc_time(pt_time[p*32 +: 32]), .trc_latency(pt_latency[p*32 +: 32]),
				.trc_drop(trc_drop[p]));

			// The stream takes the path of the port it owns; the replay those it owns.
			wire ro = r_own[p] && !s_own[p];
			assign ac_valid[p] = s_own[p] ? sc_valid : ro ? rc_valid[p] : pc_valid[p];
			assign ac_cmd[p*4 +: 4] = s_own[p] ? sc_cmd : ro ? rc_cmd[p*4 +: 4] : pc_cmd[p*4 +: 4];
			assign ac_addr[p*34 +: 34] = s_own[p] ? sc_addr :
			                             ro ? rc_addr[p*34 +: 34] : pc_addr[p*34 +: 34];
			assign ac_size[p*4 +: 4] = s_own[p] ? sc_size :
			                           ro ? rc_size[p*4 +: 4] : pc_size[p*4 +: 4];
			assign ac_tag[p*6 +: 6] = s_own[p] ? sc_tag : ro ? rc_tag[p*6 +: 6] : pc_tag[p*6 +: 6];
			assign pc_ready[p] = !s_own[p] && !ro && ac_ready[p];
			assign rc_ready[p] = ro && ac_ready[p];
			assign aw_valid[p] = s_own[p] ? sw_valid : ro ? rw_valid[p] : pw_valid[p];
			assign aw_data[p*128 +: 128] = s_own[p] ? sw_data :
			                               ro ? rw_data[p*128 +: 128] : pw_data[p*128 +: 128];
			assign pw_ready[p] = !s_own[p] && !ro && aw_ready[p];
			assign rw_ready[p] = ro && aw_ready[p];
			assign pr_valid[p] = !s_own[p] && !ro && ar_valid[p];
			assign rr_valid[p] = ro && ar_valid[p];
			assign rr_tag[p*6 +: 6] = ar_tag[LK*6 +: 6];
			assign rr_errstat[p*7 +: 7] = ar_errstat[LK*7 +: 7];

			// Trace records: the lane's while the replay owns the path, else the port's.
			wire rv = rt_valid[p];
			assign trc_valid[p] = pt_valid[p] | rv;
			assign trc_addr[p*34 +: 34] = rv ? rt_addr[p*34 +: 34] : pt_addr[p*34 +: 34];
			assign trc_write[p] = rv ? rt_write[p] : pt_write[p];
			assign trc_flits[p*4 +: 4] = rv ? rt_flits[p*4 +: 4] : pt_flits[p*4 +: 4];
			assign trc_tag[p*6 +: 6] = rv ? rt_tag[p*6 +: 6] : pt_tag[p*6 +: 6];
			assign trc_errstat[p*7 +: 7] = rv ? rt_errstat[p*7 +: 7] : pt_errstat[p*7 +: 7];
			assign trc_time[p*32 +: 32] = rv ? rt_time[p*32 +: 32] : pt_time[p*32 +: 32];
			assign trc_latency[p*32 +: 32] = rv ? rt_latency[p*32 +: 32] :
			                                 pt_latency[p*32 +: 32];
		end
	endgenerate

	assign sc_ready = |(s_own & ac_ready);
	assign sw_ready = |(s_own & aw_ready);
	assign sr_valid = |(s_own & ar_valid);

	// Response fields of the link the stream owns.
	reg [5:0] sr_tag_r;
	reg [127:0] sr_data_r;
	reg [6:0] sr_errstat_r;
	integer si;
	always @* begin
		sr_tag_r = 6'd0;
		sr_data_r = 128'd0;
		sr_errstat_r = 7'd0;
		for (si = 0; si < N; si = si + 1)
			if (s_own[si]) begin
				sr_tag_r = ar_tag[sb_port_link(si)*6 +: 6];
				sr_data_r = ar_data[sb_port_link(si)*128 +: 128];
				sr_errstat_r = ar_errstat[sb_port_link(si)*7 +: 7];
			end
	end
	assign sr_tag = sr_tag_r;
	assign sr_data = sr_data_r;
	assign sr_errstat = sr_errstat_r;

	// ports_done: every enabled port is done (event on the rising edge).
	wire all_done = (p_enabled != {N{1'b0}}) && ((p_done | ~p_enabled) == {N{1'b1}});
	reg all_done_d;
	always @(posedge clk) begin
		all_done_d <= all_done;
		ev_ports_done <= all_done && !all_done_d;
		if (rst) begin
			all_done_d <= 1'b0;
			ev_ports_done <= 1'b0;
		end
	end

	// ---------------------------------------------------------------- link arbiters
	genvar l;
	generate
		for (l = 0; l < LINKS; l = l + 1) begin : g_link
			localparam integer F = link_first(l);
			localparam integer M = link_first(l + 1) - F; // >= 1 (sb_link_map.vh checks)
			localparam integer SW = (M > 1) ? $clog2(M) : 1;
			localparam integer AT = 6 + ((M > 1) ? SW : 0);
			wire [AT-1:0] tag_out;

			sb_uport_arb #(.N(M), .TAG_W(6), .SEL_W(SW), .LTAG_W(AT)) u_arb (
				.clk(clk), .rst(rst),
				.s_cmd_valid(ac_valid[F +: M]), .s_cmd_ready(ac_ready[F +: M]),
				.s_cmd(ac_cmd[F*4 +: M*4]), .s_cmd_addr(ac_addr[F*34 +: M*34]),
				.s_cmd_size(ac_size[F*4 +: M*4]), .s_cmd_tag(ac_tag[F*6 +: M*6]),
				.s_wr_data(aw_data[F*128 +: M*128]), .s_wr_valid(aw_valid[F +: M]),
				.s_wr_ready(aw_ready[F +: M]),
				.s_rsp_valid(ar_valid[F +: M]), .s_rsp_tag(ar_tag[l*6 +: 6]),
				.s_rsp_data(ar_data[l*128 +: 128]), .s_rsp_errstat(ar_errstat[l*7 +: 7]),
				.s_rsp_dinv(ar_dinv[l]),
				.m_cmd_valid(m_hmc_cmd_valid[l]), .m_cmd_ready(m_hmc_cmd_ready[l]),
				.m_cmd(m_hmc_cmd[l*4 +: 4]), .m_cmd_addr(m_hmc_addr[l*34 +: 34]),
				.m_cmd_size(m_hmc_size[l*4 +: 4]), .m_cmd_tag(tag_out),
				.m_wr_data(m_hmc_wr_data[l*128 +: 128]), .m_wr_valid(m_hmc_wr_valid[l]),
				.m_wr_ready(m_hmc_wr_ready[l]),
				.m_rsp_valid(s_hmc_rsp_valid[l]), .m_rsp_tag(s_hmc_rsp_tag[l*LTAG_W +: AT]),
				.m_rsp_data(s_hmc_rsp_data[l*128 +: 128]),
				.m_rsp_errstat(s_hmc_rsp_errstat[l*7 +: 7]), .m_rsp_dinv(s_hmc_rsp_dinv[l]));

			if (AT < LTAG_W) begin : g_pad
				assign m_hmc_tag[l*LTAG_W +: LTAG_W] = {{(LTAG_W - AT){1'b0}}, tag_out};
				/* verilator lint_off UNUSED */
				wire unused_tag = |s_hmc_rsp_tag[l*LTAG_W + AT +: LTAG_W - AT]; // always 0
				/* verilator lint_on UNUSED */
			end else begin : g_nopad
				assign m_hmc_tag[l*LTAG_W +: LTAG_W] = tag_out;
			end
		end
	endgenerate

	// ---------------------------------------------------------------- trace and stream
	sb_trace #(.N(N), .DEPTH(TRACE_DEPTH), .NEXT_OFFSET(SB_LAYOUT_STREAM_OFFSET)) u_trace (
		.clk(clk), .rst(rst), .now(cycles),
		.reg_sel(sel_trace), .reg_addr(a - SB_LAYOUT_TRACE_OFFSET),
		.reg_wr_en(bus_wr), .reg_wr_data(bus_wdata), .reg_wr_strb(bus_wstrb),
		.reg_rd_en(bus_rd), .reg_rd_data(rd_trace),
		.trc_valid(trc_valid), .trc_addr(trc_addr), .trc_write(trc_write),
		.trc_flits(trc_flits), .trc_tag(trc_tag), .trc_errstat(trc_errstat),
		.trc_time(trc_time), .trc_latency(trc_latency), .trc_drop(trc_drop),
		.burst_done(ev_trace),
		.m_axis_tdata(m_axis_trace_tdata), .m_axis_tuser(m_axis_trace_tuser),
		.m_axis_tvalid(m_axis_trace_tvalid), .m_axis_tready(m_axis_trace_tready));

	sb_stream #(.N(N), .NEXT_OFFSET(SB_LAYOUT_REPLAY_OFFSET)) u_stream (
		.clk(clk), .rst(rst), .now(cycles[31:0]),
		.reg_sel(sel_stream), .reg_addr(a - SB_LAYOUT_STREAM_OFFSET),
		.reg_wr_en(bus_wr), .reg_wr_data(bus_wdata), .reg_wr_strb(bus_wstrb),
		.reg_rd_en(bus_rd), .reg_rd_data(rd_stream),
		.ports_reset(ports_reset), .data_seed(data_seed),
		.claim(s_claim), .own(s_own), .port_idle(p_idle),
		.m_cmd_valid(sc_valid), .m_cmd_ready(sc_ready), .m_cmd(sc_cmd),
		.m_cmd_addr(sc_addr), .m_cmd_size(sc_size), .m_cmd_tag(sc_tag),
		.m_wr_data(sw_data), .m_wr_valid(sw_valid), .m_wr_ready(sw_ready),
		.s_rsp_valid(sr_valid), .s_rsp_tag(sr_tag), .s_rsp_data(sr_data),
		.s_rsp_errstat(sr_errstat),
		.group_done(ev_stream), .rsp_err(rsp_err[N]), .rsp_errstat(rsp_errstat[N*7 +: 7]));

	sb_replay #(
		.N(N), .LINKS(LINKS), .PORTS_PER_LINK(PORTS_PER_LINK), .FIRST_PORT(FIRST_PORT),
		.NEXT_OFFSET(PORT0)
	) u_replay (
		.clk(clk), .rst(rst), .now(cycles),
		.reg_sel(sel_replay), .reg_addr(a - SB_LAYOUT_REPLAY_OFFSET),
		.reg_wr_en(bus_wr), .reg_wr_data(bus_wdata), .reg_wr_strb(bus_wstrb),
		.reg_rd_en(bus_rd), .reg_rd_data(rd_replay),
		.addr_mode(addr_mode_w), .data_seed(data_seed),
		.claim(r_claim), .own(r_own), .port_idle(p_idle),
		.m_axis_rdreq_tdata(m_axis_replay_rdreq_tdata),
		.m_axis_rdreq_tvalid(m_axis_replay_rdreq_tvalid),
		.m_axis_rdreq_tready(m_axis_replay_rdreq_tready),
		.s_axis_desc_tdata(s_axis_replay_desc_tdata),
		.s_axis_desc_tvalid(s_axis_replay_desc_tvalid),
		.s_axis_desc_tready(s_axis_replay_desc_tready),
		.m_cmd_valid(rc_valid), .m_cmd_ready(rc_ready), .m_cmd(rc_cmd), .m_cmd_addr(rc_addr),
		.m_cmd_size(rc_size), .m_cmd_tag(rc_tag),
		.m_wr_data(rw_data), .m_wr_valid(rw_valid), .m_wr_ready(rw_ready),
		.s_rsp_valid(rr_valid), .s_rsp_tag(rr_tag), .s_rsp_errstat(rr_errstat),
		.trc_valid(rt_valid), .trc_addr(rt_addr), .trc_write(rt_write), .trc_flits(rt_flits),
		.trc_tag(rt_tag), .trc_errstat(rt_errstat), .trc_time(rt_time),
		.trc_latency(rt_latency),
		.rsp_err(rsp_err[N+1 +: LINKS]), .rsp_errstat(rsp_errstat[(N+1)*7 +: LINKS*7]));

endmodule

`resetall
