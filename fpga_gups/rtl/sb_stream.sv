// SPDX-License-Identifier: MIT
/*
 * Stream GUPS: the stream register block of the generated map.
 *
 * control.go claims the request path of port control.port (the port stops issuing new
 * iterations), waits until that port is idle, then issues entries 0..count-1 back to back on
 * the path (tag = entry number; writes non-posted) and records for each entry its latency
 * (cycles from the controller accepting the command to the first response beat), done, error
 * and ERRSTAT. In integrity mode (control.integrity) each read beat is compared with the data
 * pattern of (data_seed, block address + beat) that writes always carry (sb_pattern); a
 * difference marks the entry `mismatch`. When every entry completed: status.done, a
 * stream_done event, total_cycles = first command accepted .. last response beat, and the
 * path goes back to the port. hmc_ctrl.reset.ports abandons a group in flight: no further
 * entry is issued and responses are ignored, but a command already offered stays valid until
 * the controller takes it and the data of accepted writes is still sent; then the path goes
 * back to the port (no done, no event).
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_stream #(
	parameter integer N = 9,               // ports
	parameter [31:0]  NEXT_OFFSET = 32'h0  // NEXT header word
) (
	input  wire         clk,
	input  wire         rst,
	input  wire [31:0]  now,

	input  wire         reg_sel,
	input  wire [31:0]  reg_addr,
	input  wire         reg_wr_en,
	input  wire [31:0]  reg_wr_data,
	input  wire [3:0]   reg_wr_strb,
	input  wire         reg_rd_en,
	output reg  [31:0]  reg_rd_data,

	input  wire         ports_reset,
	output wire [31:0]  data_seed,

	// Path ownership: claim[p] asks port p to stop; own[p] switches its path to the stream.
	output wire [N-1:0] claim,
	output wire [N-1:0] own,
	input  wire [N-1:0] port_idle,

	// HMC user port (muxed onto the claimed port's path)
	output reg          m_cmd_valid,
	input  wire         m_cmd_ready,
	output reg  [3:0]   m_cmd,
	output reg  [33:0]  m_cmd_addr,
	output reg  [3:0]   m_cmd_size,
	output reg  [5:0]   m_cmd_tag,
	output wire [127:0] m_wr_data,
	output wire         m_wr_valid,
	input  wire         m_wr_ready,
	input  wire         s_rsp_valid,
	input  wire [5:0]   s_rsp_tag,
	input  wire [127:0] s_rsp_data,
	input  wire [6:0]   s_rsp_errstat,

	output reg          group_done,   // pulse: a group completed (irq stream_done)
	output reg          rsp_err,      // a response with nonzero ERRSTAT completed
	output reg  [6:0]   rsp_errstat
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */
	/* verilator lint_off UNUSEDPARAM */ // not every module issues every command
`include "sb_uport.vh"
	/* verilator lint_on UNUSEDPARAM */
`include "sb_reg_func.vh"

	localparam integer E = SB_STREAM_ENTRY_ADDR_COUNT;   // entries (28)
	localparam [31:0] STRIDE = SB_STREAM_ENTRY_ADDR_STRIDE;
	localparam [31:0] ARR_END = SB_STREAM_ENTRY_ADDR + E * STRIDE;
	localparam [31:0] SUB_CMD = SB_STREAM_ENTRY_CMD - SB_STREAM_ENTRY_ADDR;
	localparam [31:0] SUB_LAT = SB_STREAM_ENTRY_LATENCY - SB_STREAM_ENTRY_ADDR;
	localparam integer IW = $clog2(E);                   // entry index bits

	generate
		if (SB_STREAM_ENTRY_CMD_STRIDE != STRIDE || SB_STREAM_ENTRY_LATENCY_STRIDE != STRIDE ||
		    SB_STREAM_ENTRY_CMD_COUNT != E || SB_STREAM_ENTRY_LATENCY_COUNT != E)
			$error("sb_stream: the entry arrays must share count and stride");
		if (E > 64)
			$error("sb_stream: entry numbers are 6-bit tags");
		if (N < 1 || N > 16)
			$error("sb_stream: N must be 1..16 (instance %m)");
	endgenerate

	// ---------------------------------------------------------------- registers
	reg [4:0]  c_count;
	reg [3:0]  c_port;
	reg        c_integrity;
	reg [31:0] c_seed;
	reg [33:0] e_addr [0:E-1];
	reg        e_write [0:E-1];
	reg [3:0]  e_flits [0:E-1];
	reg        e_done [0:E-1];
	reg        e_err [0:E-1];
	reg        e_mism [0:E-1];
	reg [6:0]  e_es [0:E-1];
	reg [31:0] e_lat [0:E-1];      // issue time while in flight, then the latency

	assign data_seed = c_seed;

	wire [4:0] go_count;
	wire [3:0] go_port;

	// ---------------------------------------------------------------- engine
	localparam [1:0] S_IDLE = 2'd0, S_CLAIM = 2'd1, S_RUN = 2'd2;
	reg [1:0] state;
	reg abandon;                   // a ports reset: finish the handshakes, then release
	reg [5:0] issue_idx, n_entries;
	reg [7:0] completed, mismatches;
	reg st_done, st_error;
	reg first_issued;
	reg [31:0] t_first, total_cycles;
	reg [N-1:0] sel;

	assign claim = (state != S_IDLE) ? sel : {N{1'b0}};
	assign own = (state == S_RUN) ? sel : {N{1'b0}};

	wire port_ready = |(sel & port_idle);
	wire [IW-1:0] ii = issue_idx[IW-1:0];
	wire [3:0] i_flits_raw = e_flits[ii];
	wire [3:0] i_flits = (i_flits_raw == 4'd0) ? 4'd1 :
	                     (i_flits_raw > 4'd8) ? 4'd8 : i_flits_raw;
	wire i_write = e_write[ii];
	wire wjob_ready, wdata_empty;
	wire out_free = !m_cmd_valid || m_cmd_ready;
	wire issue = state == S_RUN && !abandon && |sel && issue_idx < n_entries && out_free &&
	             (!i_write || wjob_ready);

	sb_wdata_gen #(.DEPTH(4)) u_wdata (
		.clk(clk), .rst(rst),
		.job_valid(issue && i_write), .job_ready(wjob_ready), .job_addr(e_addr[ii]),
		.job_flits(i_flits), .job_seed(c_seed),
		.m_wr_data(m_wr_data), .m_wr_valid(m_wr_valid), .m_wr_ready(m_wr_ready),
		.empty(wdata_empty));

	// Responses
	wire [5:0] rt = s_rsp_tag;
	wire [IW-1:0] rti = rt[IW-1:0];
	wire rt_ok = rt < n_entries && state == S_RUN && !abandon && !e_done[rti];
	reg [3:0] rbeat;
	wire r_write = e_write[rti];
	wire [3:0] r_flits = (e_flits[rti] == 4'd0) ? 4'd1 : (e_flits[rti] > 4'd8) ? 4'd8 : e_flits[rti];
	wire r_last = r_write || rbeat + 4'd1 >= r_flits;
	wire r_go = s_rsp_valid && rt_ok;
	wire [127:0] expect_data;
	sb_pattern u_expect (.seed(c_seed), .flit(e_addr[rti][33:4] + {26'd0, rbeat}),
	                     .data(expect_data));
	wire r_mism = c_integrity && !r_write && s_rsp_data != expect_data;
	reg r_mism_acc;
	reg [6:0] r_es_acc;
	wire r_mism_cur = r_mism || (rbeat != 4'd0 && r_mism_acc);
	wire [6:0] r_es_cur = (s_rsp_errstat != 7'd0) ? s_rsp_errstat :
	                      (rbeat != 4'd0) ? r_es_acc : 7'd0;
	wire r_complete = r_go && r_last;
	wire all_done = state == S_RUN && {2'd0, completed[5:0]} == {2'd0, n_entries} &&
	                completed[7:6] == 2'd0 && wdata_empty && !m_cmd_valid;

	// Register decode
	wire wr = reg_wr_en && reg_sel;
	wire rd = reg_rd_en && reg_sel;
	wire [31:0] ones = sb_wones(reg_wr_data, reg_wr_strb);
	wire go = wr && reg_addr == SB_STREAM_CONTROL && ones[SB_STREAM_CONTROL_GO_LSB] &&
	          state == S_IDLE;
	wire in_arr = reg_addr >= SB_STREAM_ENTRY_ADDR && reg_addr < ARR_END;
	wire [31:0] arr_off = reg_addr - SB_STREAM_ENTRY_ADDR;
	wire [31:0] arr_idx32 = arr_off / STRIDE;
	wire [IW-1:0] ai = arr_idx32[IW-1:0];
	wire [31:0] arr_sub = arr_off % STRIDE;

	integer j;
	always @(posedge clk) begin
		group_done <= 1'b0;
		rsp_err <= 1'b0;
		if (m_cmd_valid && m_cmd_ready) begin
			m_cmd_valid <= 1'b0;
			e_lat[m_cmd_tag[IW-1:0]] <= now;
			if (!first_issued) begin
				first_issued <= 1'b1;
				t_first <= now;
			end
		end
		case (state)
		S_IDLE:
			if (go) begin
				state <= S_CLAIM;
				issue_idx <= 6'd0;
				n_entries <= (go_count == 5'd0) ? 6'd1 :
				             (go_count > E[4:0]) ? E[5:0] : {1'b0, go_count};
				completed <= 8'd0;
				mismatches <= 8'd0;
				st_done <= 1'b0;
				st_error <= 1'b0;
				first_issued <= 1'b0;
				rbeat <= 4'd0;
				abandon <= 1'b0;
				for (j = 0; j < N; j = j + 1)
					sel[j] <= {28'd0, go_port} == j;
				for (j = 0; j < E; j = j + 1) begin
					e_done[j] <= 1'b0;
					e_err[j] <= 1'b0;
					e_mism[j] <= 1'b0;
					e_es[j] <= 7'd0;
					e_lat[j] <= 32'd0;
				end
			end
		S_CLAIM:
			// A port number without a port: the group completes with no request issued.
			if (port_ready || sel == {N{1'b0}})
				state <= S_RUN;
		default: begin
			if (issue) begin
				m_cmd_valid <= 1'b1;
				m_cmd <= i_write ? SB_UPORT_CMD_WR : SB_UPORT_CMD_RD;
				m_cmd_addr <= e_addr[ii];
				m_cmd_size <= i_flits;
				m_cmd_tag <= issue_idx;
				issue_idx <= issue_idx + 6'd1;
			end
			if (r_go) begin
				rbeat <= r_last ? 4'd0 : rbeat + 4'd1;
				r_mism_acc <= r_mism_cur;
				r_es_acc <= r_es_cur;
				if (rbeat == 4'd0)
					e_lat[rti] <= now - e_lat[rti];
			end
			if (r_complete) begin
				e_done[rti] <= 1'b1;
				e_err[rti] <= r_es_cur != 7'd0;
				e_es[rti] <= r_es_cur;
				e_mism[rti] <= r_mism_cur;
				completed <= completed + 8'd1;
				if (r_mism_cur)
					mismatches <= mismatches + 8'd1;
				if (r_es_cur != 7'd0) begin
					st_error <= 1'b1;
					rsp_err <= 1'b1;
					rsp_errstat <= r_es_cur;
				end
				total_cycles <= now - (first_issued ? t_first : now);
			end
			if (abandon) begin
				if (!m_cmd_valid && wdata_empty)
					state <= S_IDLE;
			end else if (all_done || sel == {N{1'b0}}) begin
				state <= S_IDLE;
				st_done <= 1'b1;
				group_done <= 1'b1;
			end
		end
		endcase
		if (ports_reset) begin
			if (state == S_CLAIM)
				state <= S_IDLE;
			if (state == S_RUN)
				abandon <= 1'b1;
		end
		if (rst) begin
			state <= S_IDLE;
			abandon <= 1'b0;
			m_cmd_valid <= 1'b0;
			completed <= 8'd0;
			mismatches <= 8'd0;
			st_done <= 1'b0;
			st_error <= 1'b0;
			total_cycles <= SB_STREAM_TOTAL_CYCLES_RESET;
			group_done <= 1'b0;
			rsp_err <= 1'b0;
			sel <= {N{1'b0}};
			n_entries <= 6'd0;
			rbeat <= 4'd0;
			for (j = 0; j < E; j = j + 1) begin
				e_done[j] <= 1'b0;
				e_err[j] <= 1'b0;
				e_mism[j] <= 1'b0;
				e_es[j] <= 7'd0;
				e_lat[j] <= SB_STREAM_ENTRY_LATENCY_RESET;
			end
		end
	end

	// ---------------------------------------------------------------- register access
	reg [31:0] control_word, status_word, cmd_word;
	always @* begin
		control_word = 32'd0;
		control_word[SB_STREAM_CONTROL_COUNT_MSB:SB_STREAM_CONTROL_COUNT_LSB] = c_count;
		control_word[SB_STREAM_CONTROL_PORT_MSB:SB_STREAM_CONTROL_PORT_LSB] = c_port;
		control_word[SB_STREAM_CONTROL_INTEGRITY_LSB] = c_integrity;
		status_word = 32'd0;
		status_word[SB_STREAM_STATUS_BUSY_LSB] = state != S_IDLE;
		status_word[SB_STREAM_STATUS_DONE_LSB] = st_done;
		status_word[SB_STREAM_STATUS_ERROR_LSB] = st_error;
		status_word[SB_STREAM_STATUS_COMPLETED_MSB:SB_STREAM_STATUS_COMPLETED_LSB] = completed;
		status_word[SB_STREAM_STATUS_MISMATCHES_MSB:SB_STREAM_STATUS_MISMATCHES_LSB] =
		    mismatches;
		cmd_word = 32'd0;
		cmd_word[SB_STREAM_ENTRY_CMD_WRITE_LSB] = e_write[ai];
		cmd_word[SB_STREAM_ENTRY_CMD_FLITS_MSB:SB_STREAM_ENTRY_CMD_FLITS_LSB] = e_flits[ai];
		cmd_word[SB_STREAM_ENTRY_CMD_DONE_LSB] = e_done[ai];
		cmd_word[SB_STREAM_ENTRY_CMD_ERROR_LSB] = e_err[ai];
		cmd_word[SB_STREAM_ENTRY_CMD_MISMATCH_LSB] = e_mism[ai];
		cmd_word[SB_STREAM_ENTRY_CMD_ERRSTAT_MSB:SB_STREAM_ENTRY_CMD_ERRSTAT_LSB] =
		    e_es[ai];
	end
	wire [31:0] w_control = sb_wmerge(control_word, reg_wr_data, reg_wr_strb);
	// A group runs with the count and port written together with go.
	assign go_count = w_control[SB_STREAM_CONTROL_COUNT_MSB:SB_STREAM_CONTROL_COUNT_LSB];
	assign go_port = w_control[SB_STREAM_CONTROL_PORT_MSB:SB_STREAM_CONTROL_PORT_LSB];
	wire [31:0] w_cmd = sb_wmerge(cmd_word, reg_wr_data, reg_wr_strb);
	wire [63:0] addr64 = {30'd0, e_addr[ai]};
	wire [31:0] w_addr_hi = sb_wmerge(addr64[63:32], reg_wr_data, reg_wr_strb);
	// An entry's latency reads 0 until its response came.
	wire [31:0] lat_word = e_done[ai] ? e_lat[ai] : 32'd0;

	integer q;
	always @(posedge clk) begin
		reg_rd_data <= 32'd0;
		if (rd) begin
			if (in_arr) begin
				if (arr_sub == 32'd0)
					reg_rd_data <= addr64[31:0];
				else if (arr_sub == 32'd4)
					reg_rd_data <= addr64[63:32];
				else if (arr_sub == SUB_CMD)
					reg_rd_data <= cmd_word;
				else if (arr_sub == SUB_LAT)
					reg_rd_data <= lat_word;
			end else begin
				case (reg_addr)
				SB_BLK_TYPE: reg_rd_data <= SB_BLK_STREAM_TYPE;
				SB_BLK_VERSION: reg_rd_data <= SB_BLK_STREAM_VERSION;
				SB_BLK_NEXT: reg_rd_data <= NEXT_OFFSET;
				SB_STREAM_CONTROL: reg_rd_data <= control_word;
				SB_STREAM_STATUS: reg_rd_data <= status_word;
				SB_STREAM_DATA_SEED: reg_rd_data <= c_seed;
				SB_STREAM_TOTAL_CYCLES: reg_rd_data <= total_cycles;
				default: reg_rd_data <= 32'd0;
				endcase
			end
		end
		if (wr) begin
			if (in_arr) begin
				if (arr_sub == 32'd0)
					e_addr[ai] <= {addr64[33:32],
					                    sb_wmerge(addr64[31:0], reg_wr_data, reg_wr_strb)};
				else if (arr_sub == 32'd4)
					e_addr[ai] <= {w_addr_hi[1:0], addr64[31:0]};
				else if (arr_sub == SUB_CMD) begin
					e_write[ai] <= w_cmd[SB_STREAM_ENTRY_CMD_WRITE_LSB];
					e_flits[ai] <= w_cmd[SB_STREAM_ENTRY_CMD_FLITS_MSB:
					                          SB_STREAM_ENTRY_CMD_FLITS_LSB];
				end
			end else begin
				case (reg_addr)
				SB_STREAM_CONTROL: begin
					c_count <= w_control[SB_STREAM_CONTROL_COUNT_MSB:
					                     SB_STREAM_CONTROL_COUNT_LSB];
					c_port <= w_control[SB_STREAM_CONTROL_PORT_MSB:SB_STREAM_CONTROL_PORT_LSB];
					c_integrity <= w_control[SB_STREAM_CONTROL_INTEGRITY_LSB];
				end
				SB_STREAM_DATA_SEED: c_seed <= sb_wmerge(c_seed, reg_wr_data, reg_wr_strb);
				default: ;
				endcase
			end
		end
		if (rst) begin
			c_count <= SB_STREAM_CONTROL_RESET[SB_STREAM_CONTROL_COUNT_MSB:
			                                   SB_STREAM_CONTROL_COUNT_LSB];
			c_port <= SB_STREAM_CONTROL_RESET[SB_STREAM_CONTROL_PORT_MSB:
			                                  SB_STREAM_CONTROL_PORT_LSB];
			c_integrity <= SB_STREAM_CONTROL_RESET[SB_STREAM_CONTROL_INTEGRITY_LSB];
			c_seed <= SB_STREAM_DATA_SEED_RESET;
			for (q = 0; q < E; q = q + 1) begin
				e_addr[q] <= SB_STREAM_ENTRY_ADDR_RESET[33:0];
				e_write[q] <= SB_STREAM_ENTRY_CMD_RESET[SB_STREAM_ENTRY_CMD_WRITE_LSB];
				e_flits[q] <= SB_STREAM_ENTRY_CMD_RESET[SB_STREAM_ENTRY_CMD_FLITS_MSB:
				                                        SB_STREAM_ENTRY_CMD_FLITS_LSB];
			end
		end
	end

	/* verilator lint_off UNUSED */
	wire unused = |{arr_idx32[31:IW], w_addr_hi[31:2]}; // in range / 34-bit addresses
	/* verilator lint_on UNUSED */

endmodule

`resetall
