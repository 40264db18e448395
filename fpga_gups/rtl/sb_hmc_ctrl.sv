// SPDX-License-Identifier: MIT
/*
 * The hmc_ctrl register block of the generated map: initialization and reset commands to the
 * HMC controller, link status, error and thermal-failure flags taken from the responses'
 * ERRSTAT, the address-mapping mode and the per-port flow-control threshold.
 *
 * status.ready = every used link up, no reset pending and no initialization running. A cube or
 * transceiver reset sets in_reset until the controller reports the end of an initialization
 * (hmc_init_done). thermal_fail, error and errstat are sticky until a cube reset;
 * thermal_events counts entries into thermal failure since power-up (reset.stats keeps it).
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module sb_hmc_ctrl #(
	parameter integer LINKS = 2,              // links in use (all must be up for `ready`)
	parameter integer K = 10,                 // response error sources (ports + stream)
	parameter [6:0]   ERRSTAT_THERMAL = 7'h01,// ERRSTAT announcing a thermal failure
	parameter [31:0]  NEXT_OFFSET = 32'h0     // NEXT header word
) (
	input  wire         clk,
	input  wire         rst,

	input  wire         reg_sel,
	input  wire [31:0]  reg_addr,
	input  wire         reg_wr_en,
	input  wire [31:0]  reg_wr_data,
	input  wire [3:0]   reg_wr_strb,
	input  wire         reg_rd_en,
	output reg  [31:0]  reg_rd_data,

	// HMC controller
	input  wire [3:0]   hmc_link_up,
	input  wire         hmc_init_done,     // pulse: initialization finished
	input  wire         hmc_crc_error,     // pulse: a link CRC error
	input  wire         hmc_link_retry,    // pulse: a link-level retry
	output reg          hmc_init_start,    // pulse: control.init
	output reg          hmc_cube_reset,    // pulse: reset.cube
	output reg          hmc_xcvr_reset,    // pulse: reset.transceivers
	output wire [1:0]   hmc_addr_mode,

	// Responses that completed with a nonzero ERRSTAT
	input  wire [K-1:0] rsp_err,
	input  wire [K*7-1:0] rsp_errstat,

	// To the other blocks
	output reg          ports_reset,       // pulse: reset.ports
	output wire [31:0]  flow_threshold,
	output reg          ev_thermal,        // pulse: entered thermal failure
	output reg          ev_link_error      // pulse: a link went down or an error response
);

	/* verilator lint_off UNUSEDPARAM */ // the map defines every register; a block uses its own
`include "sb_regmap.vh"
	/* verilator lint_on UNUSEDPARAM */
`include "sb_reg_func.vh"

	generate
		if (LINKS < 1 || LINKS > 4)
			$error("sb_hmc_ctrl: LINKS must be 1..4 (instance %m)");
	endgenerate

	reg [1:0]  c_addr_mode;
	reg [31:0] c_flow;
	reg        init_busy, in_reset, thermal_fail, err_flag;
	reg [6:0]  errstat_last;
	reg [31:0] crc_errors, link_retries, error_responses, thermal_events;
	reg [3:0]  link_up_d;

	assign hmc_addr_mode = c_addr_mode;
	assign flow_threshold = c_flow;

	wire [3:0] used = (4'd1 << LINKS) - 4'd1;
	wire ready = ((hmc_link_up & used) == used) && !in_reset && !init_busy;

	wire wr = reg_wr_en && reg_sel;
	wire rd = reg_rd_en && reg_sel;
	wire [31:0] ones = sb_wones(reg_wr_data, reg_wr_strb);
	wire p_init = wr && reg_addr == SB_HMC_CTRL_CONTROL && ones[SB_HMC_CTRL_CONTROL_INIT_LSB];
	wire is_reset = wr && reg_addr == SB_HMC_CTRL_RESET;
	wire p_cube = is_reset && ones[SB_HMC_CTRL_RESET_CUBE_LSB];
	wire p_xcvr = is_reset && ones[SB_HMC_CTRL_RESET_TRANSCEIVERS_LSB];
	wire p_ports = is_reset && ones[SB_HMC_CTRL_RESET_PORTS_LSB];
	wire p_stats = is_reset && ones[SB_HMC_CTRL_RESET_STATS_LSB];

	// Error responses of this cycle.
	reg [31:0] n_err;
	reg thermal_now;
	reg [6:0] es_now;
	integer i;
	always @* begin
		n_err = 32'd0;
		thermal_now = 1'b0;
		es_now = 7'd0;
		for (i = K - 1; i >= 0; i = i - 1)
			if (rsp_err[i]) begin
				n_err = n_err + 32'd1;
				es_now = rsp_errstat[i*7 +: 7];
				if (rsp_errstat[i*7 +: 7] == ERRSTAT_THERMAL)
					thermal_now = 1'b1;
			end
	end

	wire [31:0] w_mode = sb_wmerge(mode_word, reg_wr_data, reg_wr_strb);

	always @(posedge clk) begin
		hmc_init_start <= 1'b0;
		hmc_cube_reset <= 1'b0;
		hmc_xcvr_reset <= 1'b0;
		ports_reset <= p_ports;
		ev_thermal <= 1'b0;
		ev_link_error <= 1'b0;
		link_up_d <= hmc_link_up;

		if (n_err != 32'd0) begin
			error_responses <= error_responses + n_err;
			err_flag <= 1'b1;
			errstat_last <= es_now;
			ev_link_error <= 1'b1;
			if (thermal_now && !thermal_fail) begin
				thermal_fail <= 1'b1;
				thermal_events <= thermal_events + 32'd1;
				ev_thermal <= 1'b1;
			end
		end
		if ((link_up_d & ~hmc_link_up & used) != 4'd0)
			ev_link_error <= 1'b1;
		if (hmc_crc_error)
			crc_errors <= crc_errors + 32'd1;
		if (hmc_link_retry)
			link_retries <= link_retries + 32'd1;
		if (hmc_init_done) begin
			init_busy <= 1'b0;
			in_reset <= 1'b0;
		end
		if (p_init && !init_busy) begin
			init_busy <= 1'b1;
			hmc_init_start <= 1'b1;
		end
		if (p_cube) begin
			hmc_cube_reset <= 1'b1;
			in_reset <= 1'b1;
			thermal_fail <= 1'b0;
			err_flag <= 1'b0;
			errstat_last <= 7'd0;
		end
		if (p_xcvr) begin
			hmc_xcvr_reset <= 1'b1;
			in_reset <= 1'b1;
		end
		if (p_stats) begin
			crc_errors <= SB_HMC_CTRL_CRC_ERRORS_RESET;
			link_retries <= SB_HMC_CTRL_LINK_RETRIES_RESET;
			error_responses <= SB_HMC_CTRL_ERROR_RESPONSES_RESET;
		end
		if (wr && reg_addr == SB_HMC_CTRL_ADDR_MODE)
			c_addr_mode <= w_mode[SB_HMC_CTRL_ADDR_MODE_BLOCK_MSB:SB_HMC_CTRL_ADDR_MODE_BLOCK_LSB];
		if (wr && reg_addr == SB_HMC_CTRL_FLOW_THRESHOLD)
			c_flow <= sb_wmerge(c_flow, reg_wr_data, reg_wr_strb);
		if (rst) begin
			hmc_init_start <= 1'b0;
			hmc_cube_reset <= 1'b0;
			hmc_xcvr_reset <= 1'b0;
			ports_reset <= 1'b0;
			ev_thermal <= 1'b0;
			ev_link_error <= 1'b0;
			link_up_d <= hmc_link_up;
			c_addr_mode <= SB_HMC_CTRL_ADDR_MODE_RESET[SB_HMC_CTRL_ADDR_MODE_BLOCK_MSB:
			                                           SB_HMC_CTRL_ADDR_MODE_BLOCK_LSB];
			c_flow <= SB_HMC_CTRL_FLOW_THRESHOLD_RESET;
			init_busy <= SB_HMC_CTRL_STATUS_RESET[SB_HMC_CTRL_STATUS_INIT_BUSY_LSB];
			in_reset <= SB_HMC_CTRL_STATUS_RESET[SB_HMC_CTRL_STATUS_IN_RESET_LSB];
			thermal_fail <= SB_HMC_CTRL_STATUS_RESET[SB_HMC_CTRL_STATUS_THERMAL_FAIL_LSB];
			err_flag <= SB_HMC_CTRL_STATUS_RESET[SB_HMC_CTRL_STATUS_ERROR_LSB];
			errstat_last <= 7'd0;
			crc_errors <= SB_HMC_CTRL_CRC_ERRORS_RESET;
			link_retries <= SB_HMC_CTRL_LINK_RETRIES_RESET;
			error_responses <= SB_HMC_CTRL_ERROR_RESPONSES_RESET;
			thermal_events <= SB_HMC_CTRL_THERMAL_EVENTS_RESET;
		end
	end

	reg [31:0] status_word, link_word, mode_word;
	always @* begin
		status_word = 32'd0;
		status_word[SB_HMC_CTRL_STATUS_READY_LSB] = ready;
		status_word[SB_HMC_CTRL_STATUS_THERMAL_FAIL_LSB] = thermal_fail;
		status_word[SB_HMC_CTRL_STATUS_ERROR_LSB] = err_flag;
		status_word[SB_HMC_CTRL_STATUS_INIT_BUSY_LSB] = init_busy;
		status_word[SB_HMC_CTRL_STATUS_IN_RESET_LSB] = in_reset;
		status_word[SB_HMC_CTRL_STATUS_ERRSTAT_MSB:SB_HMC_CTRL_STATUS_ERRSTAT_LSB] = errstat_last;
		link_word = 32'd0;
		link_word[SB_HMC_CTRL_LINK_STATUS_UP_MSB:SB_HMC_CTRL_LINK_STATUS_UP_LSB] =
		    hmc_link_up & used;
		mode_word = 32'd0;
		mode_word[SB_HMC_CTRL_ADDR_MODE_BLOCK_MSB:SB_HMC_CTRL_ADDR_MODE_BLOCK_LSB] = c_addr_mode;
	end

	always @(posedge clk) begin
		reg_rd_data <= 32'd0;
		if (rd) begin
			case (reg_addr)
			SB_BLK_TYPE: reg_rd_data <= SB_BLK_HMC_CTRL_TYPE;
			SB_BLK_VERSION: reg_rd_data <= SB_BLK_HMC_CTRL_VERSION;
			SB_BLK_NEXT: reg_rd_data <= NEXT_OFFSET;
			SB_HMC_CTRL_STATUS: reg_rd_data <= status_word;
			SB_HMC_CTRL_LINK_STATUS: reg_rd_data <= link_word;
			SB_HMC_CTRL_ADDR_MODE: reg_rd_data <= mode_word;
			SB_HMC_CTRL_FLOW_THRESHOLD: reg_rd_data <= c_flow;
			SB_HMC_CTRL_CRC_ERRORS: reg_rd_data <= crc_errors;
			SB_HMC_CTRL_LINK_RETRIES: reg_rd_data <= link_retries;
			SB_HMC_CTRL_ERROR_RESPONSES: reg_rd_data <= error_responses;
			SB_HMC_CTRL_THERMAL_EVENTS: reg_rd_data <= thermal_events;
			default: reg_rd_data <= 32'd0;   // control (pulse) and reset (wo) read 0
			endcase
		end
	end

	/* verilator lint_off UNUSED */
	wire unused = |w_mode[31:2]; // only the defined field is stored
	/* verilator lint_on UNUSED */

endmodule

`resetall
