// SPDX-License-Identifier: MIT
/*
 * One GUPS port: the gups_port register block of the generated map and the request engine
 * behind it.
 *
 * While control.enable is set after a control.start, the port issues requests of req_size
 * flits to (generated & addr_mask) | addr_antimask (sb_gups_addrgen) on its HMC user port:
 * ro = reads, wo = writes, rw = a read, then a write of the same address once the read's
 * response has come back; when a write-back and a new read are both ready the port alternates
 * between them, so a read is issued only into an empty write-back queue or right after a
 * write-back, and at most 64 write-backs wait (one per tag). An iteration is
 * one request for ro and wo and one read (with its write-back) for rw; iter_limit iterations
 * are issued (0 = no limit). Non-posted requests take a tag from the 64-tag pool
 * (sb_gups_tagpool) with lost-tag detection; posted writes take none.
 *
 * Latency of a read = cycles from the cycle the controller accepts the command to the cycle
 * the first beat of its response reaches the port; min / max / sum / count are kept.
 * Counters: reads and writes issued (accepted by the controller), read data flits received.
 *
 * The user-port interface is that of the Micron/Pico HMC controller (cmd, addr, size, tag,
 * wr_data; rd_data, rd_data_tag, rd_data_valid, errstat, dinv): a response is `size` beats for
 * a read and one beat for a non-posted write, with the beats of one response back to back.
 * Requests of a port are limited to hmc_ctrl.flow_threshold outstanding (0 = no limit).
 *
 * `hold` (a stream group owns this port's path) stops new iterations; write-backs still drain.
 * Each completed request (and each posted write when issued) is offered to trace capture.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_gups_port #(
	parameter integer WJOB_DEPTH = 4       // write commands whose data may be pending
) (
	input  wire         clk,
	input  wire         rst,
	input  wire [31:0]  now,              // cycle counter (latency time base)

	// Identity of this instance, tied to constants by the parent. Inputs rather than
	// parameters so that every port is the same module (synthesized once).
	input  wire [7:0]   info_index,       // port number (info.index)
	input  wire [3:0]   info_link,        // link of the port's requests (info.link)
	input  wire [31:0]  next_offset,      // NEXT header word: offset of the following block

	// Register bus (offsets inside this block)
	input  wire         reg_sel,
	input  wire [31:0]  reg_addr,
	input  wire         reg_wr_en,
	input  wire [31:0]  reg_wr_data,
	input  wire [3:0]   reg_wr_strb,
	input  wire         reg_rd_en,
	output reg  [31:0]  reg_rd_data,

	// From the other blocks
	input  wire         ports_reset,      // hmc_ctrl.reset.ports
	input  wire [31:0]  flow_threshold,   // hmc_ctrl.flow_threshold
	input  wire [31:0]  data_seed,        // stream.data_seed: pattern of the write data
	input  wire         hold,             // a stream group owns the path

	// HMC user port: requests
	output reg          m_cmd_valid,
	input  wire         m_cmd_ready,
	output reg  [3:0]   m_cmd,
	output reg  [33:0]  m_cmd_addr,
	output reg  [3:0]   m_cmd_size,
	output reg  [5:0]   m_cmd_tag,
	output wire [127:0] m_wr_data,
	output wire         m_wr_valid,
	input  wire         m_wr_ready,

	// HMC user port: responses (no back-pressure)
	input  wire         s_rsp_valid,
	input  wire [5:0]   s_rsp_tag,
	input  wire [127:0] s_rsp_data,
	input  wire [6:0]   s_rsp_errstat,
	input  wire         s_rsp_dinv,

	// Status for the other blocks
	output wire         st_enabled,       // control.enable
	output wire         st_done,          // status.done
	output wire         st_idle,          // status.idle
	output reg          rsp_err,          // a response with nonzero ERRSTAT completed
	output reg  [6:0]   rsp_errstat,

	// Trace capture tap: one record per completed request (posted writes when issued)
	output reg          trc_valid,
	output reg  [33:0]  trc_addr,
	output reg          trc_write,
	output reg  [3:0]   trc_flits,
	output reg  [5:0]   trc_tag,
	output reg  [6:0]   trc_errstat,
	output reg  [31:0]  trc_time,         // issue time (low bits of the cycle counter)
	output reg  [31:0]  trc_latency,
	output reg          trc_drop          // a record was lost before trace capture
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */
	/* verilator lint_off UNUSEDPARAM */ // not every module issues every command
`include "sb_uport.vh"
	/* verilator lint_on UNUSEDPARAM */
`include "sb_reg_func.vh"

	localparam [31:0] HI = 32'd4; // high word of a 64-bit register
	localparam integer INFO_W = 36; // {write_back, read, flits[3:0], addr[33:4]}

	// ---------------------------------------------------------------- configuration registers
	reg         c_enable, c_posted, c_linear;
	reg [1:0]   c_type;
	reg [3:0]   c_flits;
	reg [63:0]  c_iter_limit;
	reg         c_detect, c_recycle, c_stop_on_lost;
	reg [31:0]  c_tag_timeout;
	reg [33:0]  c_mask, c_antimask, c_lin_start, c_lin_end;
	reg [31:0]  c_lin_step;
	reg [63:0]  c_seed;

	// ---------------------------------------------------------------- state and statistics
	reg         armed, done, err_flag, lost_stop;
	reg [6:0]   errstat_last;
	reg [63:0]  iters, cnt_reads, cnt_writes, cnt_rdata, lat_sum, lat_count;
	reg [31:0]  lat_min, lat_max, tag_max_life, lost_tags;
	reg [6:0]   tag_peak;
	reg [31:0]  latch_hi;          // high word latched by the last low-word read
	reg         is_rw;             // the running request mix is rw
	reg         is_wo;

	wire [6:0] in_use;
	wire start_pulse, tag_reset_pulse;

	// Request size actually used: 1..8 flits.
	wire [3:0] flits_eff = (c_flits == 4'd0) ? 4'd1 : (c_flits > 4'd8) ? 4'd8 : c_flits;

	// The request mix and generator mode of a run: those written with control.start.
	wire start_linear;
	wire [1:0] start_type;

	// ---------------------------------------------------------------- address generator
	wire [33:0] gen_addr;
	reg gen_load_d;
	wire new_iter;

	sb_gups_addrgen u_addrgen (
		.clk(clk), .load(start_pulse), .linear(start_linear), .seed(c_seed),
		.lin_start(c_lin_start), .lin_end(c_lin_end), .lin_step(c_lin_step),
		.mask(c_mask), .antimask(c_antimask), .flits(flits_eff),
		.advance(new_iter), .addr(gen_addr));

	// ---------------------------------------------------------------- tag pool
	wire tag_avail;
	wire [5:0] tag_free;
	wire [INFO_W-1:0] lk_info;
	wire [31:0] lk_time;
	wire lk_busy, lk_lost;
	wire lost_valid;
	wire [5:0] lost_tag;
	wire [31:0] lost_age;
	wire load_tagged;
	reg [INFO_W-1:0] load_info;
	wire rsp_release;
	reg out_tagged;

	sb_gups_tagpool #(.TAG_W(6), .INFO_W(INFO_W), .TIME_W(32)) u_tags (
		.clk(clk), .rst(rst), .clear(ports_reset || tag_reset_pulse), .now(now),
		.alloc_avail(tag_avail), .alloc_tag(tag_free), .alloc(load_tagged),
		.alloc_info(load_info),
		.stamp(m_cmd_valid && m_cmd_ready && out_tagged), .stamp_tag(m_cmd_tag),
		.hold_valid(m_cmd_valid && out_tagged), .hold_tag(m_cmd_tag),
		.lookup_tag(s_rsp_tag), .lookup_busy(lk_busy), .lookup_lost(lk_lost),
		.lookup_info(lk_info), .lookup_time(lk_time), .release_tag(rsp_release),
		.detect(c_detect), .recycle(c_recycle), .timeout(c_tag_timeout),
		.lost_valid(lost_valid), .lost_tag(lost_tag), .lost_age(lost_age),
		.in_use(in_use));

	// ---------------------------------------------------------------- rw write-backs
	wire [29:0] wb_addr;
	wire wb_valid;
	wire wb_take;
	wire wb_push;
	wire [29:0] wb_push_addr;
	wire [6:0] wb_count;
	wire wb_ready;

	sb_fifo #(.WIDTH(30), .DEPTH(64)) u_wb (
		.clk(clk), .rst(rst), .clear(ports_reset),
		.s_data(wb_push_addr), .s_valid(wb_push), .s_ready(wb_ready),
		.m_data(wb_addr), .m_valid(wb_valid), .m_ready(wb_take),
		.count(wb_count));

	// ---------------------------------------------------------------- write data
	wire wjob_ready, wdata_empty;
	wire load_write;
	wire [33:0] load_addr;

	sb_wdata_gen #(.DEPTH(WJOB_DEPTH)) u_wdata (
		.clk(clk), .rst(rst),
		.job_valid(load_write), .job_ready(wjob_ready), .job_addr(load_addr),
		.job_flits(flits_eff), .job_seed(data_seed),
		.m_wr_data(m_wr_data), .m_wr_valid(m_wr_valid), .m_wr_ready(m_wr_ready),
		.empty(wdata_empty));

	// ---------------------------------------------------------------- issue
	wire out_free = !m_cmd_valid || m_cmd_ready;
	wire flow_ok = (flow_threshold == 32'd0) || ({25'd0, in_use} < flow_threshold);
	wire tag_ok = tag_avail && flow_ok;
	wire limit_hit = (c_iter_limit != 64'd0) && (iters >= c_iter_limit);
	wire running = armed && c_enable && !limit_hit && !lost_stop && !done;

	// rw: write-backs and new reads alternate while both are ready (last_wb: the last request
	// was a write-back); write-backs need a tag unless writes are posted.
	reg last_wb;
	wire iter_ok = is_wo ? (wjob_ready && (c_posted || tag_ok)) : tag_ok;
	wire iter_ready = running && !hold && out_free && iter_ok && !gen_load_d && !start_pulse;
	wire issue_wb = wb_valid && out_free && wjob_ready && (c_posted || tag_ok) &&
	                !(last_wb && iter_ready);
	assign new_iter = iter_ready && (!wb_valid || last_wb);
	assign wb_take = issue_wb;

	wire load = issue_wb || new_iter;
	assign load_write = issue_wb || (new_iter && is_wo);
	assign load_addr = issue_wb ? {wb_addr, 4'd0} : gen_addr;
	assign load_tagged = load && !(load_write && c_posted);

	always @* begin
		load_info = {is_rw && !load_write, !load_write, flits_eff, load_addr[33:4]};
	end

	always @(posedge clk) begin
		if (issue_wb)
			last_wb <= 1'b1;
		else if (new_iter)
			last_wb <= 1'b0;
		if (rst)
			last_wb <= 1'b0;
	end

	always @(posedge clk) begin
		gen_load_d <= start_pulse;
		if (m_cmd_valid && m_cmd_ready)
			m_cmd_valid <= 1'b0;
		if (load) begin
			m_cmd_valid <= 1'b1;
			m_cmd <= !load_write ? SB_UPORT_CMD_RD : c_posted ? SB_UPORT_CMD_P_WR :
			         SB_UPORT_CMD_WR;
			m_cmd_addr <= load_addr;
			m_cmd_size <= flits_eff;
			m_cmd_tag <= load_tagged ? tag_free : 6'd0;
			out_tagged <= load_tagged;
		end
		if (rst) begin
			m_cmd_valid <= 1'b0;
			out_tagged <= 1'b0;
			gen_load_d <= 1'b0;
		end
	end

	// ---------------------------------------------------------------- responses
	reg [3:0] rsp_beat;
	reg [31:0] rsp_lat;
	reg [6:0] rsp_es;
	wire lk_write_back = lk_info[35];
	wire lk_read = lk_info[34];
	wire [3:0] lk_flits = lk_info[33:30];
	wire rsp_ok = s_rsp_valid && lk_busy;
	wire rsp_first = rsp_beat == 4'd0;
	wire rsp_last = !lk_read || (rsp_beat + 4'd1 >= lk_flits);
	wire rsp_done = rsp_ok && rsp_last;
	wire [31:0] lat_now = now - lk_time;
	wire [31:0] lat_cur = rsp_first ? lat_now : rsp_lat;
	wire [6:0] es_cur = (s_rsp_errstat != 7'd0) ? s_rsp_errstat : rsp_first ? 7'd0 : rsp_es;
	wire err_cur = es_cur != 7'd0;
	wire dinv_seen;
	reg rsp_dinv_r;
	assign dinv_seen = s_rsp_dinv || (!rsp_first && rsp_dinv_r);
	// A late response to a tag declared lost returns it to the pool.
	assign rsp_release = rsp_done || (s_rsp_valid && lk_lost);
	assign wb_push = rsp_done && lk_write_back;
	assign wb_push_addr = lk_info[29:0];

	// ---------------------------------------------------------------- registers
	wire wr = reg_wr_en && reg_sel;
	wire rd = reg_rd_en && reg_sel;
	wire [31:0] ones = sb_wones(reg_wr_data, reg_wr_strb);
	assign start_pulse = wr && reg_addr == SB_GUPS_PORT_CONTROL &&
	                     ones[SB_GUPS_PORT_CONTROL_START_LSB];
	assign tag_reset_pulse = wr && reg_addr == SB_GUPS_PORT_TAG_CTRL &&
	                         ones[SB_GUPS_PORT_TAG_CTRL_RESET_LSB];

	// Register words built from the generated field positions.
	reg [31:0] control_word, status_word, tag_ctrl_word, usage_word, info_word, size_word;
	always @* begin
		control_word = 32'd0;
		control_word[SB_GUPS_PORT_CONTROL_ENABLE_LSB] = c_enable;
		control_word[SB_GUPS_PORT_CONTROL_TYPE_MSB:SB_GUPS_PORT_CONTROL_TYPE_LSB] = c_type;
		control_word[SB_GUPS_PORT_CONTROL_MODE_LSB] = c_linear;
		control_word[SB_GUPS_PORT_CONTROL_POSTED_LSB] = c_posted;
		status_word = 32'd0;
		status_word[SB_GUPS_PORT_STATUS_RUNNING_LSB] = running;
		status_word[SB_GUPS_PORT_STATUS_DONE_LSB] = done;
		status_word[SB_GUPS_PORT_STATUS_IDLE_LSB] = st_idle;
		status_word[SB_GUPS_PORT_STATUS_ERROR_LSB] = err_flag;
		status_word[SB_GUPS_PORT_STATUS_LOST_STOP_LSB] = lost_stop;
		status_word[SB_GUPS_PORT_STATUS_ERRSTAT_MSB:SB_GUPS_PORT_STATUS_ERRSTAT_LSB] =
		    errstat_last;
		tag_ctrl_word = 32'd0;
		tag_ctrl_word[SB_GUPS_PORT_TAG_CTRL_DETECT_LSB] = c_detect;
		tag_ctrl_word[SB_GUPS_PORT_TAG_CTRL_RECYCLE_LSB] = c_recycle;
		tag_ctrl_word[SB_GUPS_PORT_TAG_CTRL_STOP_ON_LOST_LSB] = c_stop_on_lost;
		usage_word = 32'd0;
		usage_word[SB_GUPS_PORT_TAG_USAGE_IN_USE_MSB:SB_GUPS_PORT_TAG_USAGE_IN_USE_LSB] =
		    {1'b0, in_use};
		usage_word[SB_GUPS_PORT_TAG_USAGE_PEAK_MSB:SB_GUPS_PORT_TAG_USAGE_PEAK_LSB] =
		    {1'b0, tag_peak};
		info_word = 32'd0;
		info_word[SB_GUPS_PORT_INFO_INDEX_MSB:SB_GUPS_PORT_INFO_INDEX_LSB] = info_index;
		info_word[SB_GUPS_PORT_INFO_TAG_DEPTH_MSB:SB_GUPS_PORT_INFO_TAG_DEPTH_LSB] = 8'd64;
		info_word[SB_GUPS_PORT_INFO_LINK_MSB:SB_GUPS_PORT_INFO_LINK_LSB] = info_link;
		size_word = 32'd0;
		size_word[SB_GUPS_PORT_REQ_SIZE_FLITS_MSB:SB_GUPS_PORT_REQ_SIZE_FLITS_LSB] = c_flits;
	end
	wire [31:0] w_control = sb_wmerge(control_word, reg_wr_data, reg_wr_strb);
	assign start_linear = w_control[SB_GUPS_PORT_CONTROL_MODE_LSB];
	assign start_type = w_control[SB_GUPS_PORT_CONTROL_TYPE_MSB:SB_GUPS_PORT_CONTROL_TYPE_LSB];
	wire [31:0] w_tag_ctrl = sb_wmerge(tag_ctrl_word, reg_wr_data, reg_wr_strb);
	wire [31:0] w_size = sb_wmerge(size_word, reg_wr_data, reg_wr_strb);

	// Write a 64-bit rw register word: low or high half.
	function automatic [63:0] w64(input [63:0] old, input hi, input [31:0] data,
	                              input [3:0] strb);
		begin
			w64 = old;
			if (hi)
				w64[63:32] = sb_wmerge(old[63:32], data, strb);
			else
				w64[31:0] = sb_wmerge(old[31:0], data, strb);
		end
	endfunction


	wire [63:0] mask64 = {30'd0, c_mask}, anti64 = {30'd0, c_antimask};
	wire [63:0] start64 = {30'd0, c_lin_start}, end64 = {30'd0, c_lin_end};

	always @(posedge clk) begin
		reg_rd_data <= 32'd0;
		if (rd) begin
			case (reg_addr)
			SB_BLK_TYPE: reg_rd_data <= SB_BLK_GUPS_PORT_TYPE;
			SB_BLK_VERSION: reg_rd_data <= SB_BLK_GUPS_PORT_VERSION;
			SB_BLK_NEXT: reg_rd_data <= next_offset;
			SB_GUPS_PORT_INFO: reg_rd_data <= info_word;
			SB_GUPS_PORT_CONTROL: reg_rd_data <= control_word;
			SB_GUPS_PORT_STATUS: reg_rd_data <= status_word;
			SB_GUPS_PORT_REQ_SIZE: reg_rd_data <= size_word;
			SB_GUPS_PORT_ITER_LIMIT: reg_rd_data <= c_iter_limit[31:0];
			SB_GUPS_PORT_ITER_LIMIT + HI: reg_rd_data <= c_iter_limit[63:32];
			SB_GUPS_PORT_READS: begin
				reg_rd_data <= cnt_reads[31:0];
				latch_hi <= cnt_reads[63:32];
			end
			SB_GUPS_PORT_WRITES: begin
				reg_rd_data <= cnt_writes[31:0];
				latch_hi <= cnt_writes[63:32];
			end
			SB_GUPS_PORT_READ_DATA: begin
				reg_rd_data <= cnt_rdata[31:0];
				latch_hi <= cnt_rdata[63:32];
			end
			SB_GUPS_PORT_LAT_SUM: begin
				reg_rd_data <= lat_sum[31:0];
				latch_hi <= lat_sum[63:32];
			end
			SB_GUPS_PORT_LAT_COUNT: begin
				reg_rd_data <= lat_count[31:0];
				latch_hi <= lat_count[63:32];
			end
			SB_GUPS_PORT_READS + HI, SB_GUPS_PORT_WRITES + HI, SB_GUPS_PORT_READ_DATA + HI,
			SB_GUPS_PORT_LAT_SUM + HI, SB_GUPS_PORT_LAT_COUNT + HI:
				reg_rd_data <= latch_hi;
			SB_GUPS_PORT_TAG_CTRL: reg_rd_data <= tag_ctrl_word;
			SB_GUPS_PORT_TAG_TIMEOUT: reg_rd_data <= c_tag_timeout;
			SB_GUPS_PORT_TAG_USAGE: reg_rd_data <= usage_word;
			SB_GUPS_PORT_TAG_MAX_LIFE: reg_rd_data <= tag_max_life;
			SB_GUPS_PORT_LOST_TAGS: reg_rd_data <= lost_tags;
			SB_GUPS_PORT_LAT_MIN: reg_rd_data <= lat_min;
			SB_GUPS_PORT_LAT_MAX: reg_rd_data <= lat_max;
			SB_GUPS_PORT_ADDR_MASK: reg_rd_data <= mask64[31:0];
			SB_GUPS_PORT_ADDR_MASK + HI: reg_rd_data <= mask64[63:32];
			SB_GUPS_PORT_ADDR_ANTIMASK: reg_rd_data <= anti64[31:0];
			SB_GUPS_PORT_ADDR_ANTIMASK + HI: reg_rd_data <= anti64[63:32];
			SB_GUPS_PORT_LIN_START: reg_rd_data <= start64[31:0];
			SB_GUPS_PORT_LIN_START + HI: reg_rd_data <= start64[63:32];
			SB_GUPS_PORT_LIN_END: reg_rd_data <= end64[31:0];
			SB_GUPS_PORT_LIN_END + HI: reg_rd_data <= end64[63:32];
			SB_GUPS_PORT_LIN_STEP: reg_rd_data <= c_lin_step;
			SB_GUPS_PORT_LFSR_SEED: reg_rd_data <= c_seed[31:0];
			SB_GUPS_PORT_LFSR_SEED + HI: reg_rd_data <= c_seed[63:32];
			default: reg_rd_data <= 32'd0;
			endcase
		end
		if (rst)
			latch_hi <= 32'd0;
	end

	wire [63:0] w_mask = w64(mask64, reg_addr[2], reg_wr_data, reg_wr_strb);
	wire [63:0] w_antimask = w64(anti64, reg_addr[2], reg_wr_data, reg_wr_strb);
	wire [63:0] w_lin_start = w64(start64, reg_addr[2], reg_wr_data, reg_wr_strb);
	wire [63:0] w_lin_end = w64(end64, reg_addr[2], reg_wr_data, reg_wr_strb);

	always @(posedge clk) begin
		if (wr) begin
			case (reg_addr)
			SB_GUPS_PORT_CONTROL: begin
				c_enable <= w_control[SB_GUPS_PORT_CONTROL_ENABLE_LSB];
				c_type <= w_control[SB_GUPS_PORT_CONTROL_TYPE_MSB:SB_GUPS_PORT_CONTROL_TYPE_LSB];
				c_linear <= w_control[SB_GUPS_PORT_CONTROL_MODE_LSB];
				c_posted <= w_control[SB_GUPS_PORT_CONTROL_POSTED_LSB];
			end
			SB_GUPS_PORT_REQ_SIZE:
				c_flits <= w_size[SB_GUPS_PORT_REQ_SIZE_FLITS_MSB:
				                  SB_GUPS_PORT_REQ_SIZE_FLITS_LSB];
			SB_GUPS_PORT_ITER_LIMIT, SB_GUPS_PORT_ITER_LIMIT + HI:
				c_iter_limit <= w64(c_iter_limit, reg_addr[2], reg_wr_data, reg_wr_strb);
			SB_GUPS_PORT_TAG_CTRL: begin
				c_detect <= w_tag_ctrl[SB_GUPS_PORT_TAG_CTRL_DETECT_LSB];
				c_recycle <= w_tag_ctrl[SB_GUPS_PORT_TAG_CTRL_RECYCLE_LSB];
				c_stop_on_lost <= w_tag_ctrl[SB_GUPS_PORT_TAG_CTRL_STOP_ON_LOST_LSB];
			end
			SB_GUPS_PORT_TAG_TIMEOUT:
				c_tag_timeout <= sb_wmerge(c_tag_timeout, reg_wr_data, reg_wr_strb);
			SB_GUPS_PORT_ADDR_MASK, SB_GUPS_PORT_ADDR_MASK + HI:
				c_mask <= w_mask[33:0];
			SB_GUPS_PORT_ADDR_ANTIMASK, SB_GUPS_PORT_ADDR_ANTIMASK + HI:
				c_antimask <= w_antimask[33:0];
			SB_GUPS_PORT_LIN_START, SB_GUPS_PORT_LIN_START + HI:
				c_lin_start <= w_lin_start[33:0];
			SB_GUPS_PORT_LIN_END, SB_GUPS_PORT_LIN_END + HI:
				c_lin_end <= w_lin_end[33:0];
			SB_GUPS_PORT_LIN_STEP:
				c_lin_step <= sb_wmerge(c_lin_step, reg_wr_data, reg_wr_strb);
			SB_GUPS_PORT_LFSR_SEED, SB_GUPS_PORT_LFSR_SEED + HI:
				c_seed <= w64(c_seed, reg_addr[2], reg_wr_data, reg_wr_strb);
			default: ;
			endcase
		end
		if (ports_reset)
			c_enable <= 1'b0;
		if (rst) begin
			c_enable <= SB_GUPS_PORT_CONTROL_RESET[SB_GUPS_PORT_CONTROL_ENABLE_LSB];
			c_type <= SB_GUPS_PORT_CONTROL_RESET[SB_GUPS_PORT_CONTROL_TYPE_MSB:
			                                     SB_GUPS_PORT_CONTROL_TYPE_LSB];
			c_linear <= SB_GUPS_PORT_CONTROL_RESET[SB_GUPS_PORT_CONTROL_MODE_LSB];
			c_posted <= SB_GUPS_PORT_CONTROL_RESET[SB_GUPS_PORT_CONTROL_POSTED_LSB];
			c_flits <= SB_GUPS_PORT_REQ_SIZE_RESET[SB_GUPS_PORT_REQ_SIZE_FLITS_MSB:
			                                       SB_GUPS_PORT_REQ_SIZE_FLITS_LSB];
			c_iter_limit <= SB_GUPS_PORT_ITER_LIMIT_RESET;
			c_detect <= SB_GUPS_PORT_TAG_CTRL_RESET[SB_GUPS_PORT_TAG_CTRL_DETECT_LSB];
			c_recycle <= SB_GUPS_PORT_TAG_CTRL_RESET[SB_GUPS_PORT_TAG_CTRL_RECYCLE_LSB];
			c_stop_on_lost <= SB_GUPS_PORT_TAG_CTRL_RESET[SB_GUPS_PORT_TAG_CTRL_STOP_ON_LOST_LSB];
			c_tag_timeout <= SB_GUPS_PORT_TAG_TIMEOUT_RESET;
			c_mask <= SB_GUPS_PORT_ADDR_MASK_RESET[33:0];
			c_antimask <= SB_GUPS_PORT_ADDR_ANTIMASK_RESET[33:0];
			c_lin_start <= SB_GUPS_PORT_LIN_START_RESET[33:0];
			c_lin_end <= SB_GUPS_PORT_LIN_END_RESET[33:0];
			c_lin_step <= SB_GUPS_PORT_LIN_STEP_RESET;
			c_seed <= SB_GUPS_PORT_LFSR_SEED_RESET;
		end
	end

	// ---------------------------------------------------------------- run state and statistics
	wire clear_stats = start_pulse || ports_reset;
	wire clear_tag_stats = clear_stats || tag_reset_pulse;
	wire idle_now = !m_cmd_valid && in_use == 7'd0 && !wb_valid && wdata_empty;

	assign st_enabled = c_enable;
	assign st_done = done;
	assign st_idle = idle_now;

	always @(posedge clk) begin
		// Issue
		if (new_iter)
			iters <= iters + 64'd1;
		if (m_cmd_valid && m_cmd_ready) begin
			if (m_cmd == SB_UPORT_CMD_RD)
				cnt_reads <= cnt_reads + 64'd1;
			else
				cnt_writes <= cnt_writes + 64'd1;
		end
		if (limit_hit && armed && idle_now && !gen_load_d)
			done <= 1'b1;

		// Responses
		if (rsp_ok) begin
			if (rsp_first)
				rsp_lat <= lat_now;
			rsp_es <= es_cur;
			rsp_dinv_r <= dinv_seen;
			rsp_beat <= rsp_last ? 4'd0 : rsp_beat + 4'd1;
			if (lk_read)
				cnt_rdata <= cnt_rdata + 64'd1;
		end
		rsp_err <= 1'b0;
		if (rsp_done) begin
			if (lk_read) begin
				lat_sum <= lat_sum + {32'd0, lat_cur};
				lat_count <= lat_count + 64'd1;
				if (lat_cur < lat_min)
					lat_min <= lat_cur;
				if (lat_cur > lat_max)
					lat_max <= lat_cur;
			end
			if (lat_now > tag_max_life)
				tag_max_life <= lat_now;
			if (err_cur || dinv_seen)
				err_flag <= 1'b1;
			if (err_cur) begin
				errstat_last <= es_cur;
				rsp_err <= 1'b1;
				rsp_errstat <= es_cur;
			end
		end
		if (lost_valid) begin
			lost_tags <= lost_tags + 32'd1;
			if (lost_age > tag_max_life)
				tag_max_life <= lost_age;
			if (c_stop_on_lost)
				lost_stop <= 1'b1;
		end
		if (in_use > tag_peak)
			tag_peak <= in_use;

		if (start_pulse) begin
			armed <= 1'b1;
			is_rw <= start_type == SB_GUPS_PORT_CONTROL_TYPE_RW;
			is_wo <= start_type == SB_GUPS_PORT_CONTROL_TYPE_WO;
			iters <= 64'd0;
		end
		if (clear_stats) begin
			cnt_reads <= 64'd0;
			cnt_writes <= 64'd0;
			cnt_rdata <= 64'd0;
			lat_sum <= 64'd0;
			lat_count <= 64'd0;
			lat_min <= SB_GUPS_PORT_LAT_MIN_RESET;
			lat_max <= SB_GUPS_PORT_LAT_MAX_RESET;
			done <= 1'b0;
			err_flag <= 1'b0;
			errstat_last <= 7'd0;
			lost_stop <= 1'b0;
		end
		if (clear_tag_stats) begin
			tag_max_life <= SB_GUPS_PORT_TAG_MAX_LIFE_RESET;
			lost_tags <= SB_GUPS_PORT_LOST_TAGS_RESET;
			tag_peak <= 7'd0;
		end
		if (ports_reset)
			armed <= 1'b0;
		if (rst || ports_reset)
			rsp_beat <= 4'd0;
		if (rst) begin
			armed <= 1'b0;
			is_rw <= 1'b0;
			is_wo <= 1'b0;
			iters <= 64'd0;
			cnt_reads <= SB_GUPS_PORT_READS_RESET;
			cnt_writes <= SB_GUPS_PORT_WRITES_RESET;
			cnt_rdata <= SB_GUPS_PORT_READ_DATA_RESET;
			lat_sum <= SB_GUPS_PORT_LAT_SUM_RESET;
			lat_count <= SB_GUPS_PORT_LAT_COUNT_RESET;
			lat_min <= SB_GUPS_PORT_LAT_MIN_RESET;
			lat_max <= SB_GUPS_PORT_LAT_MAX_RESET;
			tag_max_life <= SB_GUPS_PORT_TAG_MAX_LIFE_RESET;
			lost_tags <= SB_GUPS_PORT_LOST_TAGS_RESET;
			tag_peak <= 7'd0;
			done <= 1'b0;
			err_flag <= 1'b0;
			errstat_last <= 7'd0;
			lost_stop <= 1'b0;
			rsp_err <= 1'b0;
			rsp_dinv_r <= 1'b0;
		end
	end

	// ---------------------------------------------------------------- trace tap
	// Completions are offered first; a posted write issued in the same cycle waits in a
	// one-record buffer (and is counted as dropped if that is still full).
	wire posted_issue = m_cmd_valid && m_cmd_ready && m_cmd == SB_UPORT_CMD_P_WR;
	reg pp_valid;
	reg [33:0] pp_addr;
	reg [3:0] pp_flits;
	reg [31:0] pp_time;

	always @(posedge clk) begin
		trc_valid <= 1'b0;
		trc_drop <= 1'b0;
		if (rsp_done) begin
			trc_valid <= 1'b1;
			trc_addr <= {lk_info[29:0], 4'd0};
			trc_write <= !lk_read;
			trc_flits <= lk_flits;
			trc_tag <= s_rsp_tag;
			trc_errstat <= es_cur;
			trc_time <= lk_time;
			trc_latency <= lat_cur;
		end else if (pp_valid || posted_issue) begin
			trc_valid <= 1'b1;
			trc_addr <= pp_valid ? pp_addr : m_cmd_addr;
			trc_write <= 1'b1;
			trc_flits <= pp_valid ? pp_flits : m_cmd_size;
			trc_tag <= 6'd0;
			trc_errstat <= 7'd0;
			trc_time <= pp_valid ? pp_time : now;
			trc_latency <= 32'd0;
		end
		if (posted_issue && (rsp_done || pp_valid)) begin
			if (rsp_done && pp_valid) begin
				trc_drop <= 1'b1;
			end else begin
				pp_valid <= 1'b1;
				pp_addr <= m_cmd_addr;
				pp_flits <= m_cmd_size;
				pp_time <= now;
			end
		end else if (!rsp_done) begin
			pp_valid <= 1'b0;
		end
		if (rst) begin
			trc_valid <= 1'b0;
			trc_drop <= 1'b0;
			pp_valid <= 1'b0;
		end
	end

	/* verilator lint_off UNUSED */
	// Read data content is not checked by GUPS ports (stream integrity mode does that); the
	// write-back FIFO cannot overflow (at most 64 reads are outstanding); the lost tag's number
	// is not reported; register words keep only their defined bits.
	wire unused = |{s_rsp_data, wb_count, wb_ready, lost_tag, w_size[31:4], w_mask[63:34],
	                w_antimask[63:34], w_lin_start[63:34], w_lin_end[63:34]};
	/* verilator lint_on UNUSED */

endmodule

`resetall
