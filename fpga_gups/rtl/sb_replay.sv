// SPDX-License-Identifier: MIT
/*
 * Trace replay: the replay register block of the generated map.
 *
 * The host writes request descriptors (replay_desc, 16 bytes) into a ring of 2^ring_log2
 * entries at ring_addr in host memory and advances `tail`. While control.enable is set the
 * block asks a DMA engine (not part of this design) for the new entries on m_axis_rdreq
 * (tdata = {count[15:0], bus address[63:0]}, at most MAX_BURST contiguous descriptors, never
 * across the end of the ring, never more than the fetch buffer can take) and receives them on
 * s_axis_desc, one descriptor per 128-bit beat in request order; `head` counts the descriptors
 * received. A dispatcher moves them in ring order into one queue of LANE descriptors per port
 * (stopping at the first descriptor whose queue is full); a descriptor naming a port outside
 * port_mask or the design is skipped and counted in `bad`.
 *
 * Lane p owns port p's request path (own[p], after the port went idle; claim[p] stops the
 * port's own generator) while enabled and until its requests drained, and issues its queue in
 * order: a descriptor goes out when it is due (control.timed: start_cycle + its time; else at
 * once), a tag of the lane's 64 is free and the output register is free; writes are
 * non-posted and carry the integrity data pattern (sb_wdata_gen, data_seed). Responses
 * arrive on the port's path; the latency is counted from the cycle the controller accepted
 * the command to the first response beat, the request completes with its last beat.
 *
 * Statistics: issued / reads / writes / lag (due or queue arrival to acceptance) when the
 * controller accepts a command; completed / latency / errors / end_cycle when a request
 * completes; per vault (decoded with the address-mapping mode) requests, data flits, lag,
 * latency. The controller takes at most one command per link per cycle and delivers one
 * response beat per link per cycle, so the lanes of one link never report in the same cycle:
 * their events are merged per link (LINKS events per cycle at most); lane p's link is port p's
 * (sb_link_map.vh, the same parameters as the top). A completed request is
 * offered to trace capture on the lane's trace tap like a port's own.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_replay #(
	parameter integer N = 9,               // ports (lanes), 1..16
	parameter integer LINKS = 2,           // links (1..16)
	parameter integer PORTS_PER_LINK = 5,  // controller user ports per link (as the top)
	parameter integer FIRST_PORT = 1,      // user port of port 0; port p is on link
	                                       // (FIRST_PORT + p) / PORTS_PER_LINK (as the top)
	parameter integer FETCH_DEPTH = 16,    // descriptors between the DMA engine and the lanes
	parameter integer MAX_BURST = 8,       // descriptors per DMA read request (<= FETCH_DEPTH)
	parameter [31:0]  NEXT_OFFSET = 32'h0  // NEXT header word
) (
	input  wire            clk,
	input  wire            rst,
	input  wire [63:0]     now,

	input  wire            reg_sel,
	input  wire [31:0]     reg_addr,
	input  wire            reg_wr_en,
	input  wire [31:0]     reg_wr_data,
	input  wire [3:0]      reg_wr_strb,
	input  wire            reg_rd_en,
	output reg  [31:0]     reg_rd_data,

	input  wire [1:0]      addr_mode,      // hmc_ctrl.addr_mode.block (vault decode)
	input  wire [31:0]     data_seed,      // write data pattern (stream.data_seed)

	// Path ownership: claim[p] stops port p's generator; own[p] switches its path here.
	output wire [N-1:0]    claim,
	output wire [N-1:0]    own,
	input  wire [N-1:0]    port_idle,

	// DMA reads of the descriptor ring
	output reg  [79:0]     m_axis_rdreq_tdata, // {descriptors[15:0], bus address[63:0]}
	output reg             m_axis_rdreq_tvalid,
	input  wire            m_axis_rdreq_tready,
	input  wire [127:0]    s_axis_desc_tdata,
	input  wire            s_axis_desc_tvalid,
	output wire            s_axis_desc_tready,

	// HMC user ports of the lanes (packed port-major; muxed onto owned ports' paths)
	output wire [N-1:0]    m_cmd_valid,
	input  wire [N-1:0]    m_cmd_ready,
	output wire [N*4-1:0]  m_cmd,
	output wire [N*34-1:0] m_cmd_addr,
	output wire [N*4-1:0]  m_cmd_size,
	output wire [N*6-1:0]  m_cmd_tag,
	output wire [N*128-1:0] m_wr_data,
	output wire [N-1:0]    m_wr_valid,
	input  wire [N-1:0]    m_wr_ready,
	input  wire [N-1:0]    s_rsp_valid,
	input  wire [N*6-1:0]  s_rsp_tag,
	input  wire [N*7-1:0]  s_rsp_errstat,

	// Trace taps of the lanes (as the ports': a record per completed request)
	output wire [N-1:0]    trc_valid,
	output wire [N*34-1:0] trc_addr,
	output wire [N-1:0]    trc_write,
	output wire [N*4-1:0]  trc_flits,
	output wire [N*6-1:0]  trc_tag,
	output wire [N*7-1:0]  trc_errstat,
	output wire [N*32-1:0] trc_time,
	output wire [N*32-1:0] trc_latency,

	// Per link: a response with nonzero ERRSTAT completed (for hmc_ctrl)
	output reg  [LINKS-1:0]   rsp_err,
	output reg  [LINKS*7-1:0] rsp_errstat
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */
	/* verilator lint_off UNUSEDPARAM */ // not every module issues every command
`include "sb_uport.vh"
	/* verilator lint_on UNUSEDPARAM */
`include "sb_reg_func.vh"
`include "sb_link_map.vh"

	localparam integer V = SB_REPLAY_VAULT_REQUESTS_COUNT;   // vaults with statistics (16)
	localparam integer LANE = SB_REPLAY_LANE_DEPTH_RESET;    // descriptors per lane (4)
	localparam integer FW = $clog2(FETCH_DEPTH) + 1;
	localparam [31:0] VBASE = SB_REPLAY_VAULT_REQUESTS;
	localparam [31:0] VSTRIDE = SB_REPLAY_VAULT_REQUESTS_STRIDE;
	localparam [31:0] HI = 32'd4;
	localparam integer LW = 64 + 1 + 4 + 34;                  // lane entry: due, write, flits, addr

	generate
		if (N < 1 || N > 16)
			$error("sb_replay: N must be 1..16 (a descriptor names ports 0..15) (instance %m)");
		if (LINKS < 1 || LINKS > 16)
			$error("sb_replay: LINKS must be 1..16 (instance %m)");
		if (FETCH_DEPTH < 2 || (1 << $clog2(FETCH_DEPTH)) != FETCH_DEPTH)
			$error("sb_replay: FETCH_DEPTH must be a power of two >= 2 (instance %m)");
		if (MAX_BURST < 1 || MAX_BURST > FETCH_DEPTH)
			$error("sb_replay: MAX_BURST must be 1..FETCH_DEPTH (instance %m)");
		if (V != 16 || VSTRIDE != 32'h20 || SB_REPLAY_VAULT_LAT_SUM != VBASE + 32'h8 ||
		    SB_REPLAY_VAULT_LAG_SUM != VBASE + 32'h10 || SB_REPLAY_VAULT_FLITS != VBASE + 32'h18 ||
		    SB_REPLAY_VAULT_LAT_MAX != VBASE + 32'h1C)
			$error("sb_replay: the vault arrays changed; update the decode");
		if (SB_REPLAY_DESC_SIZE_RESET != 32'd16)
			$error("sb_replay: descriptors are 16 bytes");
	endgenerate

	// ---------------------------------------------------------------- registers
	reg         c_enable, c_timed;
	reg [31:0]  c_port_mask, c_ring_log2, c_tail;
	reg [63:0]  c_ring_addr;
	reg [31:0]  latch_hi;

	wire wr = reg_wr_en && reg_sel;
	wire rd = reg_rd_en && reg_sel;
	wire [31:0] ones = sb_wones(reg_wr_data, reg_wr_strb);
	wire wr_control = wr && reg_addr == SB_REPLAY_CONTROL;
	wire reset_pulse = wr_control && ones[SB_REPLAY_CONTROL_RESET_LSB];

	// ---------------------------------------------------------------- fetch
	reg [31:0] fetch_ptr, head;
	reg [63:0] start_cycle;
	wire [4:0] lg = (c_ring_log2 > 32'd24) ? 5'd24 : c_ring_log2[4:0];
	wire [31:0] ring_mask = (32'd1 << lg) - 32'd1;
	wire [31:0] slot = fetch_ptr & ring_mask;
	wire [31:0] to_end = ring_mask - slot + 32'd1;
	wire [31:0] avail = c_tail - fetch_ptr;
	wire [31:0] outstanding = fetch_ptr - head;
	wire [FW-1:0] f_count;
	wire [31:0] f_room = FETCH_DEPTH[31:0] - {{(32 - FW){1'b0}}, f_count} - outstanding;
	reg [31:0] k_req;
	always @* begin
		k_req = avail;
		if (to_end < k_req)
			k_req = to_end;
		if (f_room < k_req)
			k_req = f_room;
		if (MAX_BURST[31:0] < k_req)
			k_req = MAX_BURST[31:0];
		// Descriptors may still arrive after a reset or for more than the room (never):
		// nothing is requested then.
		if (outstanding > FETCH_DEPTH[31:0])
			k_req = 32'd0;
	end

	wire f_s_ready;
	wire [127:0] f_data;
	wire f_valid;
	reg f_pop;
	// A beat that nothing asked for (after a reset) is dropped.
	wire desc_take = s_axis_desc_tvalid && head != fetch_ptr;
	assign s_axis_desc_tready = (head == fetch_ptr) || f_s_ready;

	sb_fifo #(.WIDTH(128), .DEPTH(FETCH_DEPTH)) u_fetch (
		.clk(clk), .rst(rst), .clear(reset_pulse),
		.s_data(s_axis_desc_tdata), .s_valid(desc_take), .s_ready(f_s_ready),
		.m_data(f_data), .m_valid(f_valid), .m_ready(f_pop),
		.count(f_count));

	// ---------------------------------------------------------------- dispatch
	wire [31:0] d_w3 = f_data[127:96];
	wire [3:0] d_port = d_w3[SB_REPLAY_DESC_PORT_MSB:SB_REPLAY_DESC_PORT_LSB];
	wire [3:0] d_flits_raw = d_w3[SB_REPLAY_DESC_FLITS_MSB:SB_REPLAY_DESC_FLITS_LSB];
	wire [3:0] d_flits = (d_flits_raw == 4'd0) ? 4'd1 : (d_flits_raw > 4'd8) ? 4'd8 : d_flits_raw;
	wire d_write = d_w3[SB_REPLAY_DESC_WRITE_LSB];
	wire [33:0] d_addr = {d_w3[SB_REPLAY_DESC_ADDR_HI_MSB:SB_REPLAY_DESC_ADDR_HI_LSB],
	                      f_data[95:64]};
	wire [63:0] d_due = c_timed ? start_cycle + f_data[63:0] : now;
	wire d_ok = {28'd0, d_port} < N && c_port_mask[{1'b0, d_port}];
	wire [N-1:0] lane_ready;
	wire d_go = c_enable && f_valid;
	wire d_bad = d_go && !d_ok;
	reg d_lane_ready;
	integer dl;
	always @* begin
		d_lane_ready = 1'b0;
		for (dl = 0; dl < N; dl = dl + 1)
			if (d_port == dl[3:0])
				d_lane_ready = lane_ready[dl];
	end
	wire d_push = d_go && d_ok && d_lane_ready;
	always @* f_pop = d_bad || d_push;

	// ---------------------------------------------------------------- lanes
	wire [N-1:0] lane_idle;
	wire [N-1:0] iss_v, iss_w, cpl_v, cpl_e;
	wire [N*4-1:0] iss_vault, iss_flits, cpl_vault;
	wire [N*32-1:0] iss_lag, cpl_lat;
	wire [N*7-1:0] cpl_es;
	reg [N-1:0] own_r;

	assign own = own_r;
	assign claim = ({N{c_enable}} & c_port_mask[N-1:0]) | own_r;

	// Vault of an address from its bits 10:5 (hmc-facts §3: 4 vault bits above the block).
	function automatic [3:0] vault_of(input [5:0] a10_5, input [1:0] mode);
		case (mode)
		2'd0: vault_of = a10_5[3:0];
		2'd1: vault_of = a10_5[4:1];
		default: vault_of = a10_5[5:2];
		endcase
	endfunction

	genvar p;
	generate
		for (p = 0; p < N; p = p + 1) begin : g_lane
			// Queue of descriptors for this port
			wire [LW-1:0] q_data;
			wire q_valid, q_ready;
			wire [$clog2(LANE):0] q_count;
			wire q_pop;

			sb_fifo #(.WIDTH(LW), .DEPTH(LANE)) u_q (
				.clk(clk), .rst(rst), .clear(reset_pulse),
				.s_data({d_due, d_write, d_flits, d_addr}),
				.s_valid(d_push && d_port == p[3:0]), .s_ready(q_ready),
				.m_data(q_data), .m_valid(q_valid), .m_ready(q_pop),
				.count(q_count));
			assign lane_ready[p] = q_ready;

			wire [63:0] h_due = q_data[LW-1 -: 64];
			wire h_write = q_data[38];
			wire [3:0] h_flits = q_data[37:34];
			wire [33:0] h_addr = q_data[33:0];

			// Tags: 64 per lane, the lowest free one
			reg [63:0] busy;
			reg [5:0] free_tag;
			integer t;
			always @* begin
				free_tag = 6'd0;
				for (t = 63; t >= 0; t = t - 1)
					if (!busy[t])
						free_tag = t[5:0];
			end
			wire tag_avail = ~&busy;
			reg [33:0] t_addr [0:63];
			reg t_write [0:63];
			reg [3:0] t_flits [0:63];
			reg [31:0] t_time [0:63];

			// Command output register
			reg c_valid;
			reg [3:0] c_cmd, c_size;
			reg [33:0] c_addr;
			reg [5:0] c_tag;
			reg [63:0] c_due;
			wire accept = c_valid && m_cmd_ready[p];
			wire out_free = !c_valid || m_cmd_ready[p];
			wire wjob_ready, wdata_empty;
			wire go = c_enable && own_r[p] && q_valid && now >= h_due && tag_avail && out_free &&
			          (!h_write || wjob_ready);
			assign q_pop = go;

			sb_wdata_gen #(.DEPTH(4)) u_wdata (
				.clk(clk), .rst(rst),
				.job_valid(go && h_write), .job_ready(wjob_ready), .job_addr(h_addr),
				.job_flits(h_flits), .job_seed(data_seed),
				.m_wr_data(m_wr_data[p*128 +: 128]), .m_wr_valid(m_wr_valid[p]),
				.m_wr_ready(m_wr_ready[p]), .empty(wdata_empty));

			assign m_cmd_valid[p] = c_valid;
			assign m_cmd[p*4 +: 4] = c_cmd;
			assign m_cmd_addr[p*34 +: 34] = c_addr;
			assign m_cmd_size[p*4 +: 4] = c_size;
			assign m_cmd_tag[p*6 +: 6] = c_tag;

			// Responses: the beats of one response come back to back
			wire [5:0] rt = s_rsp_tag[p*6 +: 6];
			wire [6:0] rse = s_rsp_errstat[p*7 +: 7];
			wire r_go = s_rsp_valid[p] && busy[rt];
			wire [33:0] ta_rt = t_addr[rt];
			reg [3:0] rbeat;
			reg [31:0] r_lat;
			reg [6:0] r_es;
			wire r_last = t_write[rt] || rbeat + 4'd1 >= t_flits[rt];
			wire [31:0] lat_cur = (rbeat == 4'd0) ? now[31:0] - t_time[rt] : r_lat;
			wire [6:0] es_cur = (rse != 7'd0) ? rse : (rbeat != 4'd0) ? r_es : 7'd0;
			wire done = r_go && r_last;
			wire [63:0] lag_full = now - c_due;

			// Events (registered) and the trace tap
			reg e_iss, e_iss_w, e_cpl;
			reg [3:0] e_iss_vault, e_iss_flits, e_cpl_vault;
			reg [31:0] e_lag, e_lat;
			reg [6:0] e_es;
			reg tv, tw;
			reg [33:0] ta;
			reg [3:0] tf;
			reg [5:0] tg;
			reg [6:0] te;
			reg [31:0] tt, tl;

			always @(posedge clk) begin
				e_iss <= 1'b0;
				e_cpl <= 1'b0;
				tv <= 1'b0;
				if (accept) begin
					c_valid <= 1'b0;
					t_time[c_tag] <= now[31:0];
					e_iss <= 1'b1;
					e_iss_w <= c_cmd == SB_UPORT_CMD_WR;
					e_iss_vault <= vault_of(c_addr[10:5], addr_mode);
					e_iss_flits <= c_size;
					e_lag <= (lag_full[63:32] != 32'd0) ? 32'hFFFFFFFF : lag_full[31:0];
				end
				if (go) begin
					c_valid <= 1'b1;
					c_cmd <= h_write ? SB_UPORT_CMD_WR : SB_UPORT_CMD_RD;
					c_addr <= h_addr;
					c_size <= h_flits;
					c_tag <= free_tag;
					c_due <= h_due;
					t_addr[free_tag] <= h_addr;
					t_write[free_tag] <= h_write;
					t_flits[free_tag] <= h_flits;
				end
				busy <= (busy | ((go ? 64'd1 : 64'd0) << free_tag)) &
				        ~((done ? 64'd1 : 64'd0) << rt);
				if (r_go) begin
					rbeat <= r_last ? 4'd0 : rbeat + 4'd1;
					if (rbeat == 4'd0)
						r_lat <= lat_cur;
					r_es <= es_cur;
				end
				if (done) begin
					e_cpl <= 1'b1;
					e_cpl_vault <= vault_of(ta_rt[10:5], addr_mode);
					e_lat <= lat_cur;
					e_es <= es_cur;
					tv <= 1'b1;
					ta <= ta_rt;
					tw <= t_write[rt];
					tf <= t_flits[rt];
					tg <= rt;
					te <= es_cur;
					tt <= t_time[rt];
					tl <= lat_cur;
				end
				if (rst || reset_pulse) begin
					busy <= 64'd0;
					rbeat <= 4'd0;
				end
				if (rst) begin
					c_valid <= 1'b0;
					e_iss <= 1'b0;
					e_cpl <= 1'b0;
					tv <= 1'b0;
				end
			end

			assign lane_idle[p] = !q_valid && busy == 64'd0 && !c_valid && wdata_empty;
			assign iss_v[p] = e_iss;
			assign iss_w[p] = e_iss_w;
			assign iss_vault[p*4 +: 4] = e_iss_vault;
			assign iss_flits[p*4 +: 4] = e_iss_flits;
			assign iss_lag[p*32 +: 32] = e_lag;
			assign cpl_v[p] = e_cpl;
			assign cpl_e[p] = e_es != 7'd0;
			assign cpl_vault[p*4 +: 4] = e_cpl_vault;
			assign cpl_lat[p*32 +: 32] = e_lat;
			assign cpl_es[p*7 +: 7] = e_es;
			assign trc_valid[p] = tv;
			assign trc_addr[p*34 +: 34] = ta;
			assign trc_write[p] = tw;
			assign trc_flits[p*4 +: 4] = tf;
			assign trc_tag[p*6 +: 6] = tg;
			assign trc_errstat[p*7 +: 7] = te;
			assign trc_time[p*32 +: 32] = tt;
			assign trc_latency[p*32 +: 32] = tl;

			/* verilator lint_off UNUSED */
			wire unused_lane = |q_count; // the queue's fill level is not needed
			/* verilator lint_on UNUSED */
		end
	endgenerate

	// Path ownership: taken when the port is idle, given back when the lane drained.
	integer o;
	always @(posedge clk) begin
		for (o = 0; o < N; o = o + 1)
			if (c_enable && c_port_mask[o])
				own_r[o] <= own_r[o] || port_idle[o];
			else if (lane_idle[o])
				own_r[o] <= 1'b0;
		if (rst)
			own_r <= {N{1'b0}};
	end

	// ---------------------------------------------------------------- statistics
	// Merge the lanes' events per link: at most one lane of a link reports in a cycle.
	reg [LINKS-1:0] li_v, li_w, lc_v, lc_e;
	wire [31:0] v_off;
	reg [6:0] lc_es [0:LINKS-1];
	reg [3:0] li_vault [0:LINKS-1];
	reg [3:0] li_flits [0:LINKS-1];
	reg [3:0] lc_vault [0:LINKS-1];
	reg [31:0] li_lag [0:LINKS-1];
	reg [31:0] lc_lat [0:LINKS-1];
	integer a, l;
	always @* begin
		for (l = 0; l < LINKS; l = l + 1) begin
			li_v[l] = 1'b0;
			li_w[l] = 1'b0;
			lc_v[l] = 1'b0;
			lc_e[l] = 1'b0;
			lc_es[l] = 7'd0;
			li_vault[l] = 4'd0;
			li_flits[l] = 4'd0;
			lc_vault[l] = 4'd0;
			li_lag[l] = 32'd0;
			lc_lat[l] = 32'd0;
		end
		for (a = 0; a < N; a = a + 1) begin
			l = sb_port_link(a);
			if (iss_v[a]) begin
				li_v[l] = 1'b1;
				li_w[l] = li_w[l] | iss_w[a];
				li_vault[l] = li_vault[l] | iss_vault[a*4 +: 4];
				li_flits[l] = li_flits[l] | iss_flits[a*4 +: 4];
				li_lag[l] = li_lag[l] | iss_lag[a*32 +: 32];
			end
			if (cpl_v[a]) begin
				lc_v[l] = 1'b1;
				lc_e[l] = lc_e[l] | cpl_e[a];
				lc_es[l] = lc_es[l] | cpl_es[a*7 +: 7];
				lc_vault[l] = lc_vault[l] | cpl_vault[a*4 +: 4];
				lc_lat[l] = lc_lat[l] | cpl_lat[a*32 +: 32];
			end
		end
	end

	reg [63:0] issued, completed, reads, writes, lat_sum, lag_sum, end_cycle;
	reg [31:0] lat_min, lat_max, lag_max, errors, bad;
	reg st_error, st_bad;

	// What this cycle's events add.
	reg [63:0] n_iss, n_rd, n_wr, n_cpl, n_err, s_lag, s_lat;
	reg [31:0] m_lag, m_latmax, m_latmin;
	integer b;
	always @* begin
		n_iss = 64'd0;
		n_rd = 64'd0;
		n_wr = 64'd0;
		n_cpl = 64'd0;
		n_err = 64'd0;
		s_lag = 64'd0;
		s_lat = 64'd0;
		m_lag = lag_max;
		m_latmax = lat_max;
		m_latmin = lat_min;
		for (b = 0; b < LINKS; b = b + 1) begin
			if (li_v[b]) begin
				n_iss = n_iss + 64'd1;
				if (li_w[b])
					n_wr = n_wr + 64'd1;
				else
					n_rd = n_rd + 64'd1;
				s_lag = s_lag + {32'd0, li_lag[b]};
				if (li_lag[b] > m_lag)
					m_lag = li_lag[b];
			end
			if (lc_v[b]) begin
				n_cpl = n_cpl + 64'd1;
				if (lc_e[b])
					n_err = n_err + 64'd1;
				s_lat = s_lat + {32'd0, lc_lat[b]};
				if (lc_lat[b] > m_latmax)
					m_latmax = lc_lat[b];
				if (lc_lat[b] < m_latmin)
					m_latmin = lc_lat[b];
			end
		end
	end

	// Per-vault statistics: one bank per link of V entries (distributed RAM), updated
	// read-modify-write by that link's events (at most one per cycle) through one write port;
	// a register read adds the banks. rst and control.reset clear the entries one per cycle
	// (V cycles); the arrays read 0 meanwhile and take no events.
	reg [4:0] clr;
	wire clearing = clr != V[4:0];
	wire [LINKS*64-1:0] b_req, b_lag, b_lat;
	wire [LINKS*32-1:0] b_flits, b_max;
	wire [3:0] vi;
	genvar g;
	generate
		for (g = 0; g < LINKS; g = g + 1) begin : g_vbank
			reg [63:0] req [0:V-1];
			reg [63:0] lag [0:V-1];
			reg [31:0] fl [0:V-1];
			reg [63:0] lat [0:V-1];
			reg [31:0] mx [0:V-1];
			wire [3:0] ia = clearing ? clr[3:0] : li_vault[g];
			wire [3:0] ic = clearing ? clr[3:0] : lc_vault[g];
			wire [31:0] mx_old = mx[ic];
			always @(posedge clk) begin
				if (clearing || li_v[g]) begin
					req[ia] <= clearing ? 64'd0 : req[ia] + 64'd1;
					lag[ia] <= clearing ? 64'd0 : lag[ia] + {32'd0, li_lag[g]};
					fl[ia] <= clearing ? 32'd0 : fl[ia] + {28'd0, li_flits[g]};
				end
				if (clearing || lc_v[g]) begin
					lat[ic] <= clearing ? 64'd0 : lat[ic] + {32'd0, lc_lat[g]};
					mx[ic] <= clearing ? 32'd0 : (lc_lat[g] > mx_old) ? lc_lat[g] : mx_old;
				end
			end
			assign b_req[g*64 +: 64] = req[vi];
			assign b_lag[g*64 +: 64] = lag[vi];
			assign b_lat[g*64 +: 64] = lat[vi];
			assign b_flits[g*32 +: 32] = fl[vi];
			assign b_max[g*32 +: 32] = mx[vi];
		end
	endgenerate
	reg [63:0] v_req, v_lag_sum, v_lat_sum;
	reg [31:0] v_flits, v_lat_max;
	integer k;
	always @* begin
		v_req = 64'd0;
		v_lag_sum = 64'd0;
		v_lat_sum = 64'd0;
		v_flits = 32'd0;
		v_lat_max = 32'd0;
		for (k = 0; k < LINKS; k = k + 1)
			if (!clearing) begin
				v_req = v_req + b_req[k*64 +: 64];
				v_lag_sum = v_lag_sum + b_lag[k*64 +: 64];
				v_lat_sum = v_lat_sum + b_lat[k*64 +: 64];
				v_flits = v_flits + b_flits[k*32 +: 32];
				if (b_max[k*32 +: 32] > v_lat_max)
					v_lat_max = b_max[k*32 +: 32];
			end
	end

	reg [31:0] control_word, status_word;
	wire [31:0] w_control = sb_wmerge(control_word, reg_wr_data, reg_wr_strb);
	wire enable_rise = wr_control && !c_enable && w_control[SB_REPLAY_CONTROL_ENABLE_LSB];
	integer w;
	always @(posedge clk) begin
		for (w = 0; w < LINKS; w = w + 1) begin
			rsp_err[w] <= lc_v[w] && lc_e[w];
			rsp_errstat[w*7 +: 7] <= lc_es[w];
		end
		if (m_axis_rdreq_tvalid && m_axis_rdreq_tready)
			m_axis_rdreq_tvalid <= 1'b0;
		if (c_enable && !m_axis_rdreq_tvalid && k_req != 32'd0) begin
			m_axis_rdreq_tvalid <= 1'b1;
			m_axis_rdreq_tdata <= {k_req[15:0], c_ring_addr + {28'd0, slot, 4'd0}};
			fetch_ptr <= fetch_ptr + k_req;
		end
		if (desc_take && f_s_ready)
			head <= head + 32'd1;
		if (enable_rise)
			start_cycle <= now;
		issued <= issued + n_iss;
		reads <= reads + n_rd;
		writes <= writes + n_wr;
		lag_sum <= lag_sum + s_lag;
		lag_max <= m_lag;
		completed <= completed + n_cpl;
		errors <= errors + n_err[31:0];
		lat_sum <= lat_sum + s_lat;
		lat_max <= m_latmax;
		lat_min <= m_latmin;
		if (n_cpl != 64'd0)
			end_cycle <= now;
		if (n_err != 64'd0)
			st_error <= 1'b1;
		if (d_bad) begin
			bad <= bad + 32'd1;
			st_bad <= 1'b1;
		end
		if (clearing)
			clr <= clr + 5'd1;
		if (rst || reset_pulse) begin
			fetch_ptr <= 32'd0;
			head <= 32'd0;
			issued <= 64'd0;
			reads <= 64'd0;
			writes <= 64'd0;
			lag_sum <= 64'd0;
			lag_max <= 32'd0;
			completed <= 64'd0;
			errors <= 32'd0;
			lat_sum <= 64'd0;
			lat_max <= SB_REPLAY_LAT_MAX_RESET;
			lat_min <= SB_REPLAY_LAT_MIN_RESET;
			end_cycle <= 64'd0;
			start_cycle <= 64'd0;
			st_error <= 1'b0;
			st_bad <= 1'b0;
			bad <= 32'd0;
			clr <= 5'd0;
		end
		if (rst) begin
			m_axis_rdreq_tvalid <= 1'b0;
			rsp_err <= {LINKS{1'b0}};
		end
	end

	// ---------------------------------------------------------------- register access
	wire busy_all = head != c_tail || outstanding != 32'd0 || f_valid || !(&lane_idle);
	always @* begin
		control_word = 32'd0;
		control_word[SB_REPLAY_CONTROL_ENABLE_LSB] = c_enable;
		control_word[SB_REPLAY_CONTROL_TIMED_LSB] = c_timed;
		status_word = 32'd0;
		status_word[SB_REPLAY_STATUS_BUSY_LSB] = busy_all;
		status_word[SB_REPLAY_STATUS_IDLE_LSB] = !busy_all;
		status_word[SB_REPLAY_STATUS_ERROR_LSB] = st_error;
		status_word[SB_REPLAY_STATUS_BAD_DESC_LSB] = st_bad;
	end

	wire in_vault = reg_addr >= VBASE && reg_addr < VBASE + V * VSTRIDE;
	assign v_off = reg_addr - VBASE;
	assign vi = v_off[8:5];
	wire [4:0] vsub = v_off[4:0];

	// The word read at reg_addr; the low word of a read-only 64-bit register latches its high
	// word (one latch for the block), which the high word's address then reads.
	reg [31:0] rd_word;
	reg [63:0] rd_wide;
	reg rd_is_wide, rd_is_hi;
	always @* begin
		rd_word = 32'd0;
		rd_wide = 64'd0;
		rd_is_wide = 1'b0;
		rd_is_hi = 1'b0;
		if (in_vault) begin
			case (vsub)
			5'h00: begin rd_is_wide = 1'b1; rd_wide = v_req; end
			5'h08: begin rd_is_wide = 1'b1; rd_wide = v_lat_sum; end
			5'h10: begin rd_is_wide = 1'b1; rd_wide = v_lag_sum; end
			5'h04, 5'h0C, 5'h14: rd_is_hi = 1'b1;
			5'h18: rd_word = v_flits;
			5'h1C: rd_word = v_lat_max;
			default: ;
			endcase
		end else begin
			case (reg_addr)
			SB_BLK_TYPE: rd_word = SB_BLK_REPLAY_TYPE;
			SB_BLK_VERSION: rd_word = SB_BLK_REPLAY_VERSION;
			SB_BLK_NEXT: rd_word = NEXT_OFFSET;
			SB_REPLAY_CONTROL: rd_word = control_word;
			SB_REPLAY_STATUS: rd_word = status_word;
			SB_REPLAY_PORT_MASK: rd_word = c_port_mask;
			SB_REPLAY_RING_ADDR: rd_word = c_ring_addr[31:0];
			SB_REPLAY_RING_ADDR + HI: rd_word = c_ring_addr[63:32];
			SB_REPLAY_RING_LOG2: rd_word = c_ring_log2;
			SB_REPLAY_TAIL: rd_word = c_tail;
			SB_REPLAY_HEAD: rd_word = head;
			SB_REPLAY_DESC_SIZE: rd_word = SB_REPLAY_DESC_SIZE_RESET;
			SB_REPLAY_START_CYCLE: begin rd_is_wide = 1'b1; rd_wide = start_cycle; end
			SB_REPLAY_ISSUED: begin rd_is_wide = 1'b1; rd_wide = issued; end
			SB_REPLAY_COMPLETED: begin rd_is_wide = 1'b1; rd_wide = completed; end
			SB_REPLAY_READS: begin rd_is_wide = 1'b1; rd_wide = reads; end
			SB_REPLAY_WRITES: begin rd_is_wide = 1'b1; rd_wide = writes; end
			SB_REPLAY_LAT_SUM: begin rd_is_wide = 1'b1; rd_wide = lat_sum; end
			SB_REPLAY_LAG_SUM: begin rd_is_wide = 1'b1; rd_wide = lag_sum; end
			SB_REPLAY_END_CYCLE: begin rd_is_wide = 1'b1; rd_wide = end_cycle; end
			SB_REPLAY_START_CYCLE + HI, SB_REPLAY_ISSUED + HI, SB_REPLAY_COMPLETED + HI,
			SB_REPLAY_READS + HI, SB_REPLAY_WRITES + HI, SB_REPLAY_LAT_SUM + HI,
			SB_REPLAY_LAG_SUM + HI, SB_REPLAY_END_CYCLE + HI:
				rd_is_hi = 1'b1;
			SB_REPLAY_LAT_MIN: rd_word = lat_min;
			SB_REPLAY_LAT_MAX: rd_word = lat_max;
			SB_REPLAY_LAG_MAX: rd_word = lag_max;
			SB_REPLAY_ERRORS: rd_word = errors;
			SB_REPLAY_BAD: rd_word = bad;
			SB_REPLAY_LANE_DEPTH: rd_word = SB_REPLAY_LANE_DEPTH_RESET;
			default: ;
			endcase
		end
	end

	always @(posedge clk) begin
		reg_rd_data <= 32'd0;
		if (rd) begin
			if (rd_is_wide) begin
				reg_rd_data <= rd_wide[31:0];
				latch_hi <= rd_wide[63:32];
			end else if (rd_is_hi) begin
				reg_rd_data <= latch_hi;
			end else begin
				reg_rd_data <= rd_word;
			end
		end
		if (wr) begin
			case (reg_addr)
			SB_REPLAY_CONTROL: begin
				c_enable <= w_control[SB_REPLAY_CONTROL_ENABLE_LSB];
				c_timed <= w_control[SB_REPLAY_CONTROL_TIMED_LSB];
			end
			SB_REPLAY_PORT_MASK: c_port_mask <= sb_wmerge(c_port_mask, reg_wr_data, reg_wr_strb);
			SB_REPLAY_RING_ADDR:
				c_ring_addr[31:0] <= sb_wmerge(c_ring_addr[31:0], reg_wr_data, reg_wr_strb);
			SB_REPLAY_RING_ADDR + HI:
				c_ring_addr[63:32] <= sb_wmerge(c_ring_addr[63:32], reg_wr_data, reg_wr_strb);
			SB_REPLAY_RING_LOG2: c_ring_log2 <= sb_wmerge(c_ring_log2, reg_wr_data, reg_wr_strb);
			SB_REPLAY_TAIL: c_tail <= sb_wmerge(c_tail, reg_wr_data, reg_wr_strb);
			default: ;
			endcase
		end
		if (reset_pulse)
			c_tail <= 32'd0;
		if (rst) begin
			latch_hi <= 32'd0;
			c_enable <= SB_REPLAY_CONTROL_RESET[SB_REPLAY_CONTROL_ENABLE_LSB];
			c_timed <= SB_REPLAY_CONTROL_RESET[SB_REPLAY_CONTROL_TIMED_LSB];
			c_port_mask <= SB_REPLAY_PORT_MASK_RESET;
			c_ring_addr <= SB_REPLAY_RING_ADDR_RESET;
			c_ring_log2 <= SB_REPLAY_RING_LOG2_RESET;
			c_tail <= SB_REPLAY_TAIL_RESET;
		end
	end

	/* verilator lint_off UNUSED */
	wire unused = |{k_req[31:16], v_off[31:9], c_port_mask[31:N]};
	/* verilator lint_on UNUSED */

endmodule

`resetall
