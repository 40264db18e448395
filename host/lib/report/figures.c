/* SPDX-License-Identifier: MIT */
/*
 * The figures: what each shows, and the query that picks its runs (report_int.h gives the
 * columns; docs/figures.md the prose). Queries read the view pts (the points of the selected
 * campaigns); they return runs, never averages: data.c groups and aggregates them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "stackbench/error.h"
#include "stackbench/util.h"

/*
 * The queries are built from these pieces. (clang-format would break their strings at random
 * places: the block is kept as written.)
 */
/* clang-format off */
/* A run's key without its repetition: the runs of one point share it. */
#define NKEY(a) "replace(" a ".key, 'rep=' || " a ".rep || ' ', '')"
/* The columns after the point label: what groups a run, whether it was fast-forwarded. */
#define TAIL(a)                                                                                    \
	", " a ".campaign_id, " a ".cname, " a ".device, " a ".duration_ns, " a ".ff_skipped_ns, " \
	NKEY(a)
/* Runs a figure may use: finished without a thermal failure, with traffic (idle points, 0
 * ports, only in the thermal figures). */
#define SEL(a) a ".failed = 0 AND " a ".ports > 0 AND " a ".hbm = 0"
/* Full-scale GUPS without an extra mask: the most ports the campaign used on the device. */
#define FULL(a)                                                                                    \
	SEL(a) " AND " a ".stream = 0 AND " a ".mask_lo IS NULL AND " a ".ports = "                \
	"(SELECT max(q.ports) FROM pts q WHERE q.campaign_id = " a ".campaign_id AND "             \
	"q.device = " a ".device AND q.failed = 0 AND q.stream = 0)"
/* Banks of one vault by count, then vaults by count, then the rest (all). */
#define PATTERN_ORDER(col)                                                                         \
	"(CASE WHEN " col " LIKE '%bank' THEN CAST(" col " AS INTEGER) WHEN " col                 \
	" LIKE '%vault' THEN 100 + CAST(" col " AS INTEGER) ELSE 1000 END)"
#define TYPE_ORDER(col) "(CASE " col " WHEN 'ro' THEN 0 WHEN 'wo' THEN 1 ELSE 2 END)"

/* A metric of full-scale GUPS per access pattern: panels per type, lines per size and mode
 * (the point label: the ports, for the tag-pool bound). */
#define PATTERN_SQL(metric)                                                                        \
	"SELECT p.type, p.size_b || ' B ' || p.mode, p.pattern, " PATTERN_ORDER("p.pattern")      \
	", p.pattern, p." metric ", NULL, NULL, p.ports" TAIL("p")                                 \
	" FROM pts p WHERE " FULL("p") " AND p." metric " IS NOT NULL "                            \
	"ORDER BY " TYPE_ORDER("p.type") ", p.size_b, p.mode, " PATTERN_ORDER("p.pattern")        \
	", p.pattern"
/* A metric of full-scale GUPS per request size: panels per type, lines per pattern and mode. */
#define SIZE_SQL(metric)                                                                           \
	"SELECT p.type, p.pattern || ' ' || p.mode, p.size_b, p.size_b, NULL, p." metric          \
	", NULL, NULL, NULL" TAIL("p") " FROM pts p WHERE " FULL("p") " AND p." metric            \
	" IS NOT NULL ORDER BY " TYPE_ORDER("p.type") ", " PATTERN_ORDER("p.pattern")             \
	", p.pattern, p.mode, p.size_b"

/* Masked runs; and the same campaign's runs without a mask (the baseline), drawn at the
 * lowest and highest mask position. */
#define MASK_SQL                                                                                   \
	"SELECT '', p.type || ' ' || p.size_b || ' B, ' || p.mask_width || '-bit mask', "         \
	"p.mask_lo, p.mask_lo, NULL, p.bandwidth_gbps, NULL, NULL, NULL" TAIL("p")                 \
	", " TYPE_ORDER("p.type") " AS o1, p.size_b AS o2 FROM pts p WHERE " SEL("p")             \
	" AND p.stream = 0 AND p.mask_lo IS NOT NULL "                                             \
	"UNION ALL SELECT '', b.type || ' ' || b.size_b || ' B, no mask', m.x, m.x, NULL, "        \
	"b.bandwidth_gbps, NULL, NULL, NULL" TAIL("b") ", " TYPE_ORDER("b.type") ", b.size_b "    \
	"FROM pts b JOIN (SELECT campaign_id AS mc, min(mask_lo) AS x FROM pts WHERE mask_lo IS " \
	"NOT NULL GROUP BY campaign_id UNION SELECT campaign_id, max(mask_lo) FROM pts WHERE "    \
	"mask_lo IS NOT NULL GROUP BY campaign_id) m ON m.mc = b.campaign_id WHERE " SEL("b")     \
	" AND b.stream = 0 AND b.mask_lo IS NULL ORDER BY 16, 17, 2, 4"

/* GUPS runs without a mask of a type, size, pattern and mode measured at several port counts
 * (the point label: the ports). */
#define LATENCY_BW_SQL                                                                             \
	"SELECT '', p.type || ' ' || p.size_b || ' B ' || p.pattern || ' ' || p.mode, p.ports, "  \
	"p.bandwidth_gbps, NULL, p.latency_avg_ns, NULL, NULL, p.ports" TAIL("p")                  \
	" FROM pts p WHERE " SEL("p") " AND p.stream = 0 AND p.mask_lo IS NULL AND "              \
	"p.latency_avg_ns IS NOT NULL AND EXISTS (SELECT 1 FROM pts q WHERE q.campaign_id = "     \
	"p.campaign_id AND q.device = p.device AND q.type = p.type AND q.size_b = p.size_b AND "  \
	"q.pattern = p.pattern AND q.mode = p.mode AND q.stream = 0 AND q.mask_lo IS NULL AND "   \
	"q.failed = 0 AND q.ports > 0 AND q.ports <> p.ports) ORDER BY " TYPE_ORDER("p.type")     \
	", p.size_b, " PATTERN_ORDER("p.pattern") ", p.pattern, p.mode, p.ports"

/* Stream GUPS: the average latency, and the lowest and highest of any read. */
#define STREAM_SQL                                                                                 \
	"SELECT p.type, p.size_b || ' B', p.stream, p.stream, NULL, p.latency_avg_ns, "           \
	"p.latency_min_ns, p.latency_max_ns, NULL" TAIL("p") " FROM pts p WHERE " SEL("p")        \
	" AND p.stream > 0 AND p.latency_avg_ns IS NOT NULL ORDER BY " TYPE_ORDER("p.type")       \
	", p.size_b, p.stream"

/*
 * Thermal runs: finished without a failure, GUPS (not stream). An idle point (0 ports,
 * bandwidth 0) belongs to every request type measured in the same campaign: THERMAL_RUNS(y)
 * selects the traffic runs and, once per such type, the idle runs, as (cfg, type, cpw,
 * traffic, x = bandwidth, y, and the tail columns).
 */
#define TSEL(a) a ".failed = 0 AND " a ".stream = 0 AND " a ".hbm = 0"
#define TRAFFIC(a)                                                                                 \
	a ".size_b || ' B ' || " a ".pattern || ' ' || " a ".mode || ' ' || " a ".ports || "       \
	"' ports ' || " a ".addr_mode_b || ' ' || coalesce(" a ".mask_lo, '-') || '/' || " a      \
	".mask_width"
#define THERMAL_TAIL(a)                                                                            \
	a ".campaign_id AS cid, " a ".cname AS cname, " a ".device AS device, " a                  \
	".duration_ns AS dur, " a ".ff_skipped_ns AS ff, " NKEY(a) " AS nkey"
#define THERMAL_RUNS(y)                                                                            \
	"SELECT coalesce(p.cooling_config, p.cooling) AS cfg, p.type AS type, "                    \
	"p.cooling_power_w AS cpw, " TRAFFIC("p") " AS traffic, p.bandwidth_gbps AS x, p." y      \
	" AS y, " THERMAL_TAIL("p") " FROM pts p WHERE " TSEL("p") " AND p.ports > 0 "            \
	"UNION ALL SELECT coalesce(i.cooling_config, i.cooling), t.type, i.cooling_power_w, "      \
	"'idle', 0, i." y ", " THERMAL_TAIL("i") " FROM pts i JOIN (SELECT DISTINCT campaign_id " \
	"AS tc, type FROM pts WHERE " TSEL("pts") " AND ports > 0) t ON t.tc = i.campaign_id "    \
	"WHERE i.failed = 0 AND i.ports = 0"
/* The figure's columns from THERMAL_RUNS, after panel, series and k. */
#define THERMAL_COLS "x, NULL, y, NULL, NULL, NULL, cid, cname, device, dur, ff, nkey"
#define THERMAL_SQL(panel, series, y)                                                              \
	"SELECT " panel ", " series ", traffic, " THERMAL_COLS " FROM (" THERMAL_RUNS(y)          \
	") WHERE y IS NOT NULL ORDER BY "
/* Each traffic in each cooling configuration: its mean temperature and bandwidth. */
#define COOLING_SQL                                                                                \
	"SELECT type, traffic, cpw, avg(y), avg(x), cid, cname, device, dur, max(ff) FROM ("       \
	THERMAL_RUNS("temp_c_steady") ") WHERE y IS NOT NULL AND cpw IS NOT NULL GROUP BY cid, "   \
	"device, dur, type, traffic, cpw ORDER BY cid, device, dur, " TYPE_ORDER("type")          \
	", traffic, cpw"

/* Failed runs shown in the failure traces: the first few. */
#define FAILED_RUNS                                                                                \
	"(SELECT id FROM pts WHERE failed = 1 AND stream = 0 ORDER BY campaign_id, idx, attempt "  \
	"LIMIT 10)"
/* A failed run, and when and how hot it failed. */
#define RUN_LABEL                                                                                  \
	"'#' || p.idx || ' ' || coalesce(p.cooling_config, p.cooling) || ' ' || p.type || ' ' || " \
	"p.size_b || ' B ' || p.pattern || ' ' || p.ports || ' ports' || CASE WHEN p.attempt > 0 " \
	"THEN ' (run ' || (p.attempt + 1) || ')' ELSE '' END || CASE WHEN p.fail_temp_c IS NULL "  \
	"THEN '' ELSE printf(': failed at %.1f °C, %.0f s', p.fail_temp_c, p.fail_t_ns / 1e9) END"
/* At most about 2000 samples of a run are drawn. */
#define TRACE_THIN "s.seq % (1 + (SELECT max(seq) FROM samples WHERE point_id = p.id) / 2000) = 0"
#define TRACE_SQL                                                                                  \
	"SELECT '', " RUN_LABEL ", s.seq, s.t_ns / 1e9, NULL, s.temp_c, NULL, NULL, NULL"         \
	TAIL("p") " FROM samples s JOIN pts p ON p.id = s.point_id WHERE p.id IN " FAILED_RUNS    \
	" AND s.temp_c IS NOT NULL AND " TRACE_THIN " ORDER BY p.campaign_id, p.idx, p.attempt, " \
	"s.seq"
#define TRACE_MARKS_SQL                                                                            \
	"SELECT '', " RUN_LABEL ", 'fail', p.fail_t_ns / 1e9, NULL, p.fail_temp_c, NULL, NULL, "  \
	"NULL" TAIL("p") " FROM pts p WHERE p.id IN " FAILED_RUNS " AND p.fail_temp_c IS NOT NULL"

/*
 * An HBM2 card's points (the points of campaigns whose engine is hbm2, with their hbm_points
 * row: schema version 7). The stride as walked (0: the burst), the setting a figure does not
 * show in the series' name, and the class that most of a point's read latencies fell in.
 */
#define HJOIN " FROM pts p JOIN hbm_points h ON h.point_id = p.id WHERE p.failed = 0"
#define HSTRIDE "(CASE WHEN h.stride_b = 0 THEN h.burst_b ELSE h.stride_b END)"
#define HPORTS                                                                                     \
	"(CASE WHEN h.port_set GLOB '*[-,]*' THEN 'ports ' || h.port_set WHEN h.port_set = '1' "   \
	"THEN '1 port' ELSE h.port_set || ' ports' END)"
#define HTARGET_ORDER                                                                              \
	"(CASE h.target WHEN 'local' THEN 0 WHEN 'stack' THEN 100 ELSE "                           \
	"CAST(substr(h.target, 6) AS INTEGER) END)"
#define HCLASS                                                                                     \
	"(CASE WHEN h.cls_hit >= h.cls_closed AND h.cls_hit >= h.cls_miss THEN 0 WHEN "            \
	"h.cls_closed >= h.cls_miss THEN 1 ELSE 2 END)"
/* Throughput per burst size: panels per operation and mode, lines per address map, target,
 * ports and outstanding transactions. */
#define HBM_BURST_SQL                                                                              \
	"SELECT h.op || ' ' || h.mode, h.mc_addr_map || ', ' || h.target || ', ' || " HPORTS      \
	" || ', ' || h.outstanding || ' out', h.burst_b, h.burst_b, h.burst_b, h.gbps, NULL, "     \
	"NULL, NULL" TAIL("p") HJOIN " ORDER BY h.op, h.mode, h.mc_addr_map, h.target, "          \
	"h.port_set, h.outstanding, h.burst_b"
/* Throughput per stride of linear walks: panels per operation and burst, lines per address
 * map (and page policy). */
#define HBM_STRIDE_SQL                                                                             \
	"SELECT h.op || ' ' || h.burst_b || ' B', h.mc_addr_map || ', ' || h.mc_page || ' page', " \
	HSTRIDE ", " HSTRIDE ", " HSTRIDE ", h.gbps, NULL, NULL, NULL" TAIL("p") HJOIN            \
	" AND h.mode = 'linear' AND h.stride_b > 0 ORDER BY h.op, h.burst_b, h.mc_addr_map, "      \
	"h.mc_page, " HSTRIDE
/* Read latency of reads that do not queue (one outstanding), by the class most of them fell
 * in; the point's page policy and stride label it. */
#define HBM_PAGE_SQL                                                                               \
	"SELECT '', h.mc_addr_map || ', ' || h.op || ' ' || h.burst_b || ' B, ' || " HPORTS      \
	", " HCLASS ", " HCLASS ", CASE " HCLASS " WHEN 0 THEN 'page hit' WHEN 1 THEN "  \
	"'page closed' ELSE 'page miss' END, h.rd_lat_avg_ns, h.rd_lat_min_ns, h.rd_lat_max_ns, "  \
	"h.mc_page || ', stride ' || " HSTRIDE TAIL("p") HJOIN                                    \
	" AND h.outstanding = 1 AND h.rd_lat_avg_ns IS NOT NULL ORDER BY h.mc_addr_map, h.op, "    \
	"h.burst_b, h.port_set, " HCLASS
/* Aggregate throughput per number of ports. */
#define HBM_PORTS_SQL                                                                              \
	"SELECT h.op, h.mode || ' ' || h.burst_b || ' B, ' || h.target || ', ' || h.mc_addr_map, " \
	"h.nports, h.nports, NULL, h.gbps, NULL, NULL, NULL" TAIL("p") HJOIN                      \
	" ORDER BY h.op, h.mode, h.burst_b, h.target, h.mc_addr_map, h.nports"
/* A metric per target: the own PC, PCs through the switch, the whole stack. */
#define HBM_TARGET_SQL(metric)                                                                     \
	"SELECT h.op, " HPORTS " || ', ' || h.mode || ' ' || h.burst_b || ' B', h.target, "        \
	HTARGET_ORDER ", h.target, h." metric ", NULL, NULL, NULL" TAIL("p") HJOIN " AND h."     \
	metric " IS NOT NULL ORDER BY h.op, h.port_set, h.mode, h.burst_b, " HTARGET_ORDER
/* Throughput against the stacks' temperature (the card's register at the end of the point). */
#define HBM_REFRESH_SQL                                                                            \
	"SELECT h.op, h.mc_refresh || ' refresh, ' || " HPORTS " || ', ' || h.mode || ' ' || "     \
	"h.burst_b || ' B', h.stack_temp_c, h.stack_temp_c, NULL, h.gbps, NULL, NULL, NULL"        \
	TAIL("p") HJOIN " ORDER BY h.op, h.mc_refresh, h.port_set, h.mode, h.burst_b, "            \
	"h.stack_temp_c"
/* Each port's throughput (hbm_point_ports) against the port, for points of 2 ports or more:
 * a line per point, named by every setting an HBM2 sweep can vary (the op is the panel), so
 * that no two points fall on one line as if they were repetitions. */
#define HBM_PORT_SERIES                                                                            \
	HPORTS " || ', ' || h.target || ', ' || h.mode || ' ' || h.burst_b || ' B' || "             \
	"(CASE WHEN h.stride_b > 0 THEN ', stride ' || h.stride_b ELSE '' END) || "                 \
	"(CASE WHEN h.ws_b > 0 THEN ', ws ' || h.ws_b ELSE '' END) || "                             \
	"(CASE WHEN h.op = 'mix' THEN ', ' || h.mix_writes || '/256 writes' ELSE '' END) || "       \
	"', ' || h.outstanding || ' out, ' || h.mc_addr_map || ' ' || h.mc_page || ', ' || "        \
	"h.mc_refresh || ' refresh' || "                                                            \
	"(CASE WHEN h.temp_set_c IS NOT NULL THEN ', ' || h.temp_set_c || ' C' ELSE '' END)"
#define HBM_PORT_SQL                                                                               \
	"SELECT h.op, " HBM_PORT_SERIES ", hp.port, hp.port, NULL, hp.gbps, NULL, NULL, NULL"        \
	TAIL("p") " FROM pts p JOIN hbm_points h ON h.point_id = p.id JOIN hbm_point_ports hp ON "  \
	"hp.point_id = p.id WHERE p.failed = 0 AND h.nports >= 2 ORDER BY h.op, h.nports, "      \
	"h.port_set, "      \
	HTARGET_ORDER ", h.mode, h.burst_b, h.stride_b, h.outstanding, hp.port"
/* clang-format on */

static int derive_cooling(struct sb_store *st, const char *view, const struct sb_report_options *o,
                          struct sb_rpt_fig *fig);
static int derive_ratio(struct sb_store *st, const char *view, const struct sb_report_options *o,
                        struct sb_rpt_fig *fig);

const struct sb_rpt_figure_def sb_rpt_figures[] = {
    {
        .name = "mask_bandwidth",
        .title = "Bandwidth against the position of the address mask",
        .xlabel = "lowest address bit forced to 0 by the mask",
        .ylabel = "bandwidth (GB/s)",
        .what = "Bandwidth of GUPS runs whose addresses have a mask of contiguous bits forced "
                "to 0, against the mask's lowest bit; one line per request type, size and mask "
                "width. The runs of the same campaign without a mask are the dashed baseline, "
                "drawn at the lowest and the highest mask position.",
        .sql = MASK_SQL,
        .need = "no points with a mask",
        .min_x = 1,
        .xaxis = SB_RPT_X_DATA,
    },
    {
        .name = "pattern_bandwidth",
        .title = "Bandwidth per access pattern (full-scale GUPS)",
        .xlabel = "access pattern",
        .ylabel = "bandwidth (GB/s)",
        .what = "Bandwidth of full-scale GUPS (the most ports the campaign used, no extra mask) "
                "per access pattern; one panel per request type, one line per request size and "
                "addressing mode.",
        .sql = PATTERN_SQL("bandwidth_gbps"),
        .need = "fewer than 2 access patterns",
        .min_x = 2,
        .xaxis = SB_RPT_X_CAT,
    },
    {
        .name = "pattern_mrps",
        .title = "Request rate per access pattern (full-scale GUPS)",
        .xlabel = "access pattern",
        .ylabel = "request rate (MRPS, million requests/s)",
        .what = "Request rate of full-scale GUPS per access pattern, as pattern_bandwidth.",
        .sql = PATTERN_SQL("mrps"),
        .need = "fewer than 2 access patterns",
        .min_x = 2,
        .xaxis = SB_RPT_X_CAT,
    },
    {
        .name = "pattern_latency",
        .title = "Read latency per access pattern at full load (full-scale GUPS)",
        .xlabel = "access pattern",
        .ylabel = "read latency, average (ns)",
        .what = "Average read latency of full-scale GUPS per access pattern (high-load "
                "latency); runs without reads (wo) have none.",
        .sql = PATTERN_SQL("latency_avg_ns"),
        .need = "fewer than 2 access patterns with reads",
        .min_x = 2,
        .xaxis = SB_RPT_X_CAT,
    },
    {
        .name = "occupancy_pattern",
        .title = "Reads in flight at saturation (Little's law: latency × read rate)",
        .xlabel = "access pattern",
        .ylabel = "reads in flight (Little's law)",
        .what = "Little's-law occupancy of full-scale GUPS per access pattern: average read "
                "latency × read rate = reads in flight, against the tag-pool bound (ports × "
                "tags per port): a pattern whose occupancy reaches the bound is limited by the "
                "ports' tags, one below it by the memory.",
        .sql = PATTERN_SQL("occupancy"),
        .need = "fewer than 2 access patterns with reads",
        .min_x = 2,
        .xaxis = SB_RPT_X_CAT,
        .bound = true,
    },
    {
        .name = "size_bandwidth",
        .title = "Bandwidth per request size (full-scale GUPS)",
        .xlabel = "request size (bytes)",
        .ylabel = "bandwidth (GB/s)",
        .what = "Bandwidth of full-scale GUPS per request size; one panel per request type, "
                "one line per access pattern and addressing mode (linear dashed).",
        .sql = SIZE_SQL("bandwidth_gbps"),
        .need = "fewer than 2 request sizes",
        .min_x = 2,
        .xaxis = SB_RPT_X_VALUES,
    },
    {
        .name = "size_mrps",
        .title = "Request rate per request size (full-scale GUPS)",
        .xlabel = "request size (bytes)",
        .ylabel = "request rate (MRPS, million requests/s)",
        .what = "Request rate of full-scale GUPS per request size, as size_bandwidth.",
        .sql = SIZE_SQL("mrps"),
        .need = "fewer than 2 request sizes",
        .min_x = 2,
        .xaxis = SB_RPT_X_VALUES,
    },
    {
        .name = "latency_bandwidth",
        .title = "Read latency against measured bandwidth (small-scale GUPS, 1..N ports; "
                 "labels: active ports)",
        .xlabel = "measured bandwidth (GB/s)",
        .ylabel = "read latency, average (ns)",
        .what = "Average read latency against the bandwidth measured in the same runs, for "
                "GUPS runs without a mask at several port counts (small-scale GUPS: fewer "
                "ports, less offered load); one line per request type, size, pattern and "
                "mode, each point labelled with its number of active ports. Both axes are "
                "measured: with repetitions, both have confidence intervals.",
        .sql = LATENCY_BW_SQL,
        .need = "fewer than 2 port counts",
        .min_x = 2,
        .xaxis = SB_RPT_X_ZERO,
        .xerr = true,
        .labels = true,
    },
    {
        .name = "stream_latency",
        .title = "Low-load read latency against requests per stream group (dotted: min and "
                 "max)",
        .xlabel = "requests per stream group",
        .ylabel = "read latency (ns)",
        .what = "Read latency of stream GUPS (a bounded group of requests on one port) "
                "against the group size; one panel per request type, one line per request "
                "size: the average latency, and dotted the lowest and highest latency of any "
                "read of the point's runs.",
        .sql = STREAM_SQL,
        .need = "no stream GUPS points",
        .min_x = 1,
        .xaxis = SB_RPT_X_VALUES,
        .range = true,
    },
    {
        .name = "thermal_temperature_bandwidth",
        .title = "Steady-state temperature against bandwidth (hot spot, last 10 % of each point)",
        .xlabel = "bandwidth (GB/s)",
        .ylabel = "temperature, camera hot spot (°C)",
        .what = "Steady-state hot spot (mean of the last 10 % of each thermal run) against "
                "bandwidth; one panel per cooling configuration, one line per request type "
                "with its least-squares fit over every run (slope ± standard error, R²). "
                "Idle runs (bandwidth 0) join every type's line.",
        .sql = THERMAL_SQL("cfg", "type", "temp_c_steady") "cfg, " TYPE_ORDER("type") ", x",
        .need = "no thermal points (steady-state temperatures) at 2 bandwidths",
        .min_x = 2,
        .style = SB_RPT_FIT,
        .xaxis = SB_RPT_X_ZERO,
        .ydata = true,
        .unit = "°C per GB/s",
        .min_schema = 2,
    },
    {
        .name = "thermal_power_bandwidth",
        .title = "Power against bandwidth per cooling configuration (meter, mean over each point)",
        .xlabel = "bandwidth (GB/s)",
        .ylabel = "power, whole machine (W)",
        .what = "Mean power of the machine over each thermal run against bandwidth; one panel "
                "per request type, one line per cooling configuration with its least-squares "
                "fit (slope ± standard error, R²).",
        .sql = THERMAL_SQL("type", "cfg", "power_w_avg") TYPE_ORDER("type") ", cfg, x",
        .need = "no thermal points (mean power) at 2 bandwidths",
        .min_x = 2,
        .style = SB_RPT_FIT,
        .xaxis = SB_RPT_X_ZERO,
        .ydata = true,
        .unit = "W per GB/s",
        .min_schema = 2,
    },
    {
        .name = "thermal_cooling_power",
        .title = "Cooling power needed to hold the hot spot",
        .xlabel = "bandwidth (GB/s)",
        .ylabel = "cooling power (W)",
        .what = "Cooling power needed to hold the hot spot at one temperature, against "
                "bandwidth: every traffic measured in several cooling configurations gives its "
                "steady temperature (mean over its runs) against the configuration's cooling "
                "power, interpolated linearly at the temperature held; one line per request "
                "type with its fit.",
        .sql = COOLING_SQL,
        .need = "no traffic measured in 2 cooling configurations on both sides of a common "
                "temperature, at 2 bandwidths",
        .min_x = 2,
        .style = SB_RPT_FIT,
        .xaxis = SB_RPT_X_ZERO,
        .unit = "W per GB/s",
        .span = 16,
        .span_unit = "W",
        .derive = derive_cooling,
        .note = "interpolated between the means of each traffic's runs",
        .min_schema = 2,
    },
    {
        .name = "thermal_failure_trace",
        .title = "Temperature of the runs that ended in a thermal failure (dots: the failure)",
        .xlabel = "time since the point started (s)",
        .ylabel = "temperature, camera hot spot (°C)",
        .what = "Hot spot over time of the first ten runs that ended in a thermal failure; "
                "the failure is a dot, and the key gives when it was seen and the hot spot "
                "then.",
        .sql = TRACE_SQL,
        .marks_sql = TRACE_MARKS_SQL,
        .need = "no run with a thermal failure and a temperature trace",
        .min_x = 2,
        .style = SB_RPT_TRACE,
        .xaxis = SB_RPT_X_ZERO,
        .ydata = true,
        .min_schema = 2,
    },
    {
        .name = "hbm_burst_bandwidth",
        .title = "HBM2: throughput against burst size",
        .xlabel = "bytes per transaction (burst)",
        .ylabel = "throughput, payload (GB/s)",
        .what = "Payload throughput (reads and writes, GB/s = 10^9 B/s) of an HBM2 card's "
                "points against the bytes per transaction; one panel per operation and "
                "address walk, one line per address map, target, port set and number of "
                "outstanding transactions.",
        .sql = HBM_BURST_SQL,
        .need = "no HBM2 points at 2 burst sizes",
        .min_x = 2,
        .xaxis = SB_RPT_X_CAT,
        .min_schema = 7,
    },
    {
        .name = "hbm_stride_bandwidth",
        .title = "HBM2: throughput against stride per address map",
        .xlabel = "stride (bytes between transactions)",
        .ylabel = "throughput, payload (GB/s)",
        .what = "Payload throughput of an HBM2 card's linear walks against the stride between "
                "transactions; one panel per operation and burst size, one line per address "
                "map of the controller (and page policy): how the map spreads the next "
                "addresses over bank groups, banks and rows.",
        .sql = HBM_STRIDE_SQL,
        .need = "no HBM2 linear points at 2 strides",
        .min_x = 2,
        .xaxis = SB_RPT_X_CAT,
        .min_schema = 7,
    },
    {
        .name = "hbm_page_latency",
        .title = "HBM2: read latency of page hit, closed page and page miss (one outstanding; "
                 "dotted: min and max)",
        .xlabel = "the class most of the point's read latencies fell in",
        .ylabel = "read latency, AR to first R beat (ns)",
        .what = "Read latency of an HBM2 card's points with one outstanding transaction (the "
                "reads do not queue), placed by the latency class most of their reads fell in "
                "(the engine's classes: page hit, closed page, page miss, told apart by the "
                "latency); the mean, and dotted the lowest and highest read. Each point is "
                "labelled with its page policy and stride.",
        .sql = HBM_PAGE_SQL,
        .need = "no HBM2 points with one outstanding read in 2 latency classes",
        .min_x = 2,
        .xaxis = SB_RPT_X_CAT,
        .range = true,
        .labels = true,
        .min_schema = 7,
    },
    {
        .name = "hbm_ports_bandwidth",
        .title = "HBM2: aggregate throughput against the number of ports",
        .xlabel = "ports issuing",
        .ylabel = "throughput, payload, all ports (GB/s)",
        .what = "Aggregate payload throughput of an HBM2 card's ports against how many ports "
                "issue; one panel per operation, one line per walk, burst, target and "
                "address map.",
        .sql = HBM_PORTS_SQL,
        .need = "no HBM2 points at 2 port counts",
        .min_x = 2,
        .xaxis = SB_RPT_X_ZERO,
        .min_schema = 7,
    },
    {
        .name = "hbm_target_bandwidth",
        .title = "HBM2: throughput of the own PC against PCs through the switch",
        .xlabel = "target (local: own PC; shiftN: PC i+N through the switch; stack: all 16)",
        .ylabel = "throughput, payload (GB/s)",
        .what = "Payload throughput of an HBM2 card's ports working in their own pseudo "
                "channel, in one N away through the crossbar (shift4 crosses one mini-switch "
                "boundary: its ports share a lateral), or across the whole stack; one panel "
                "per operation, one line per port set, walk and burst.",
        .sql = HBM_TARGET_SQL("gbps"),
        .need = "no HBM2 points at 2 targets",
        .min_x = 2,
        .xaxis = SB_RPT_X_CAT,
        .min_schema = 7,
    },
    {
        .name = "hbm_target_latency",
        .title = "HBM2: lowest read latency of the own PC against PCs through the switch",
        .xlabel = "target (local: own PC; shiftN: PC i+N through the switch; stack: all 16)",
        .ylabel = "read latency, lowest (ns)",
        .what = "The lowest read latency of the points of hbm_target_bandwidth: each "
                "mini-switch boundary crossed adds to it.",
        .sql = HBM_TARGET_SQL("rd_lat_min_ns"),
        .need = "no HBM2 points with reads at 2 targets",
        .min_x = 2,
        .xaxis = SB_RPT_X_CAT,
        .min_schema = 7,
    },
    {
        .name = "hbm_refresh_bandwidth",
        .title = "HBM2: refresh interference against the stacks' temperature",
        .xlabel = "stack temperature, the card's register (°C)",
        .ylabel = "throughput, payload (GB/s)",
        .what = "Payload throughput of an HBM2 card's points against the stacks' temperature "
                "the card reports (hbm_card.hbm_temp at the end of the point; on the "
                "simulated card the temperature the campaign set): above 85 °C the controller "
                "refreshes twice as often; one panel per operation, one line per refresh mode, "
                "port set, walk and burst.",
        .sql = HBM_REFRESH_SQL,
        .need = "no HBM2 points at 2 stack temperatures",
        .min_x = 2,
        .xaxis = SB_RPT_X_DATA,
        .ydata = true,
        .min_schema = 7,
    },
    {
        .name = "hbm_port_throughput",
        .title = "HBM2: throughput of each port",
        .xlabel = "port (AXI port, hbm_port instance)",
        .ylabel = "throughput, payload, the port (GB/s)",
        .what = "Payload throughput of every port of an HBM2 card's points that ran 2 ports "
                "or more (the store's per-port detail, hbm_point_ports): where the aggregate "
                "of hbm_ports_bandwidth and hbm_target_bandwidth is lost, port by port (ports "
                "sharing a lateral of the crossbar, a port behind the others). One panel per "
                "operation, one line per point.",
        .sql = HBM_PORT_SQL,
        .need = "no HBM2 points of 2 ports or more with per-port detail",
        .min_x = 2,
        .xaxis = SB_RPT_X_VALUES,
        .min_schema = 8,
    },
    {
        .name = "compare_ratio",
        .title = "Ratio per point: compared / reference",
        .xlabel = "point (the axes that vary between the points)",
        .ylabel = "ratio, compared / reference",
        .what = "In a comparison (report --against-model: measured / model; report --db A "
                "--db B: B / A), the ratio of each metric of every point: the mean of the "
                "point's runs that did not fail on one side over the same on the other. One "
                "panel per metric (bandwidth, request rate, read latency, and from thermal "
                "campaigns the steady hot spot and the mean power), one line per campaign "
                "compared, the grey line at 1: no deviation. The comparison's table holds "
                "the same numbers.",
        .need = "no point has a value on both sides",
        .min_x = 1,
        .xaxis = SB_RPT_X_CAT,
        .ydata = true,
        .derive = derive_ratio,
        .note = "ratio of the means of each point's runs (failed runs left out)",
        .compare_only = true,
        .unity = true,
    },
};

const size_t sb_rpt_nfigures = SB_ARRAY_SIZE(sb_rpt_figures);

/* --- the ratios of a comparison ------------------------------------------------------------ */

/* Every ratio of the set's comparisons: panels per metric, a series per campaign compared. */
static int derive_ratio(struct sb_store *st, const char *view, const struct sb_report_options *o,
                        struct sb_rpt_fig *fig)
{
	const struct sb_rpt_set *set = fig->set;
	int g;

	(void)st;
	(void)view;
	(void)o;
	if (!set || !set->ncmps)
		return 0;
	/* one group, the reference's: the series name the campaigns compared */
	if ((g = sb_rpt_group_of(fig, set->cmps[0].ref.id, set->cmps[0].ref.label,
	                         set->cmps[0].ref.device, 0)) < 0)
		return g;
	snprintf(fig->title, sizeof(fig->title), "Ratio per point: %s / %s",
	         set->ncmps == 1 ? set->cmps[0].other.label : "compared", set->cmps[0].ref.label);
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++)
		for (size_t i = 0; i < set->ncmps; i++) {
			const struct sb_report_comparison *c = &set->cmps[i];

			for (unsigned p = 0; p < c->npoints; p++) {
				const struct sb_report_cmp_point *pt = &c->points[p];
				struct sb_rpt_row *r;

				if (isnan(pt->v[m].ratio))
					continue;
				if (!(r = sb_rpt_add_row(&fig->rs)))
					return SB_ERR_NOMEM;
				snprintf(r->panel, sizeof(r->panel), "%s (%s)",
				         sb_report_metrics[m].name, sb_report_metrics[m].unit);
				snprintf(r->series, sizeof(r->series), "%s", c->other.label);
				snprintf(r->k, sizeof(r->k), "%s", pt->key);
				snprintf(r->nkey, sizeof(r->nkey), "%s", pt->key);
				snprintf(r->xtic, sizeof(r->xtic), "%s", pt->label);
				r->x = p;
				r->y = pt->v[m].ratio;
				r->n = 1;
				r->grp = (unsigned)g;
			}
		}
	return 0;
}

/* --- the cooling power needed to hold a temperature --------------------------------------- */

/* One traffic in one cooling configuration: its cooling power, temperature and bandwidth. */
struct held {
	char type[SB_RPT_PANEL_MAX], traffic[96];
	double pc, t, bw;
	unsigned grp;
	bool ff;
};

struct helds {
	struct held *h;
	unsigned n, cap;
	struct sb_rpt_fig *fig;
};

static int collect_held(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	struct helds *hs = ctx;
	struct held *h;
	int g;

	if (ncol < 10 || c[2].type == SB_CELL_NULL || c[3].type == SB_CELL_NULL ||
	    c[4].type == SB_CELL_NULL)
		return 0;
	if (sb_rpt_reserve((void **)&hs->h, hs->n, &hs->cap, sizeof(*h)) < 0)
		return SB_ERR_NOMEM;
	if ((g = sb_rpt_group_of(hs->fig, c[5].i, sb_rpt_text(&c[6]), sb_rpt_text(&c[7]), c[8].i)) <
	    0)
		return g;
	h = &hs->h[hs->n++];
	snprintf(h->type, sizeof(h->type), "%s", sb_rpt_text(&c[0]));
	snprintf(h->traffic, sizeof(h->traffic), "%s", sb_rpt_text(&c[1]));
	h->pc = c[2].d;
	h->t = c[3].d;
	h->bw = c[4].d;
	h->grp = (unsigned)g;
	h->ff = c[9].i > 0;
	return 0;
}

/* End of the run of helds (same group, type and traffic) that starts at i. */
static unsigned held_end(const struct helds *hs, unsigned i)
{
	unsigned j = i;

	while (j < hs->n && hs->h[j].grp == hs->h[i].grp && !strcmp(hs->h[j].type, hs->h[i].type) &&
	       !strcmp(hs->h[j].traffic, hs->h[i].traffic))
		j++;
	return j;
}

/* The temperature most traffics bracket (the middle of the best ones), in 0.5 C steps. */
static double auto_hold(const struct helds *hs)
{
	double lo = INFINITY, hi = -INFINITY, best_t = NAN;
	unsigned best = 0, first = 0, last = 0;

	for (unsigned i = 0; i < hs->n; i++) {
		lo = fmin(lo, hs->h[i].t);
		hi = fmax(hi, hs->h[i].t);
	}
	for (unsigned k = 0; lo + k * 0.5 <= hi; k++) {
		double t = floor(lo) + k * 0.5;
		unsigned n = 0;

		for (unsigned i = 0, j; i < hs->n; i = j) {
			double gl = INFINITY, gh = -INFINITY;

			j = held_end(hs, i);
			for (unsigned m = i; m < j; m++) {
				gl = fmin(gl, hs->h[m].t);
				gh = fmax(gh, hs->h[m].t);
			}
			n += j - i > 1 && gl <= t && t <= gh;
		}
		if (n > best) {
			best = n;
			first = last = k;
		} else if (n == best && best && last + 1 == k) {
			last = k;
		}
	}
	if (best)
		best_t = floor(lo) + (first + (last - first) / 2) * 0.5;
	return best_t;
}

/*
 * The cooling power needed to hold the hot spot at a temperature, from the campaign's own
 * measurements: each traffic (type, size, pattern, mode, ports, ...) measured in several
 * cooling configurations gives its steady temperature (the mean of its runs) against the
 * configuration's cooling power; where that passes the temperature held, the cooling power
 * (and the bandwidth) is interpolated linearly between the two configurations around it.
 */
static int derive_cooling(struct sb_store *st, const char *view, const struct sb_report_options *o,
                          struct sb_rpt_fig *fig)
{
	struct helds hs = {.fig = fig};
	size_t len = strlen(view) + strlen(fig->d->sql) + 1;
	char *sql = malloc(len);
	double hold;
	int e;

	if (!sql)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	snprintf(sql, len, "%s%s", view, fig->d->sql);
	e = sb_store_query(st, sql, 0, collect_held, &hs);
	free(sql);
	if (e < 0)
		goto out;
	e = 0;
	hold = o->hold_c > 0 ? o->hold_c : auto_hold(&hs);
	snprintf(fig->title, sizeof(fig->title),
	         "Cooling power needed to hold the hot spot at %.1f °C (interpolated between the "
	         "cooling configurations)",
	         hold);
	for (unsigned i = 0, j; i < hs.n && !isnan(hold); i = j) {
		j = held_end(&hs, i);
		for (unsigned m = i; m + 1 < j; m++) {
			const struct held *a = &hs.h[m], *b = &hs.h[m + 1];
			struct sb_rpt_row *r;
			double f;

			if ((a->t - hold) * (b->t - hold) > 0 || a->t == b->t)
				continue;
			f = (a->t - hold) / (a->t - b->t);
			if (!(r = sb_rpt_add_row(&fig->rs))) {
				e = SB_ERR_NOMEM;
				goto out;
			}
			snprintf(r->series, sizeof(r->series), "%s", a->type);
			snprintf(r->k, sizeof(r->k), "%s", a->traffic);
			snprintf(r->nkey, sizeof(r->nkey), "%s", a->traffic);
			r->x = a->bw + f * (b->bw - a->bw);
			r->y = a->pc + f * (b->pc - a->pc);
			r->ymin = r->ymax = NAN;
			r->n = 1;
			r->nff = a->ff || b->ff;
			r->grp = a->grp;
			break;
		}
	}
out:
	free(hs.h);
	return e;
}
