#!/bin/sh
# The researcher's path: run the default campaign, list, export CSV and JSON, make the report;
# check the files hold what the database holds.
#   cli_flow.sh STACKBENCH_EXE
set -eu
exe=$1
work=$(mktemp -d /tmp/sb-flow-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "cli_flow: FAIL: $*" >&2; exit 1; }
db=$work/r.db

"$exe" run --db "$db" >"$work/run.out" 2>"$work/run.err" || fail "run: $(cat "$work/run.err")"
grep -q "campaign 1 'quick' complete: 21 points" "$work/run.out" || fail "run: $(cat "$work/run.out")"
grep -q "point 21/21" "$work/run.err" || fail "no progress lines: $(cat "$work/run.err")"

"$exe" list --db "$db" >"$work/list" || fail list
grep -Eq "^1 +quick +complete +21/21" "$work/list" || fail "list: $(cat "$work/list")"
"$exe" list --db "$db" --json >"$work/list.json" || fail "list --json"
[ "$(sqlite3 :memory: "SELECT json_extract(readfile('$work/list.json'), '\$.schema_version'),
	json_extract(readfile('$work/list.json'), '\$.campaigns[0].name'),
	json_extract(readfile('$work/list.json'), '\$.campaigns[0].points_done'),
	json_extract(readfile('$work/list.json'), '\$.campaigns[0].status')")" = "8.0|quick|21|complete" ] ||
	fail "list --json: $(cat "$work/list.json")"

"$exe" export --db "$db" --format csv --out "$work/p.csv" || fail "export csv"
[ "$(wc -l <"$work/p.csv")" -eq 22 ] || fail "CSV: header + 21 rows expected"
head -1 "$work/p.csv" | grep -q "^id,campaign_id,idx,key," || fail "CSV header"
"$exe" export --db "$db" --format csv --table samples --campaign 1 >"$work/s.csv" || fail "export samples"
[ "$(wc -l <"$work/s.csv")" -eq $((21 * 20 + 1)) ] || fail "samples: 20 per 2 s point at 100 ms"
"$exe" export --db "$db" --format json --samples --out "$work/r.json" || fail "export json"
[ "$(sqlite3 :memory: "SELECT json_valid(readfile('$work/r.json')), json_array_length(readfile('$work/r.json'), '\$.points'), json_extract(readfile('$work/r.json'), '\$.schema_version'), json_extract(readfile('$work/r.json'), '\$.schema')")" = "1|21|8.0|stackbench-results" ] ||
	fail "JSON: valid, 21 points, schema version 5"
# Provenance: the campaign's and every point's, as JSON objects (not strings of JSON).
[ "$(sqlite3 :memory: "SELECT json_type(readfile('$work/r.json'), '\$.campaigns[0].provenance'),
	json_extract(readfile('$work/r.json'), '\$.campaigns[0].provenance.stackbench.version'),
	json_type(readfile('$work/r.json'), '\$.campaigns[0].config'),
	json_extract(readfile('$work/r.json'), '\$.points[20].provenance.device.transport'),
	json_extract(readfile('$work/r.json'), '\$.points[20].provenance.device.regmap_matches'),
	json_type(readfile('$work/r.json'), '\$.points[20].provenance.stackbench.git'),
	json_extract(readfile('$work/r.json'), '\$.points[20].provenance.seed') =
		(SELECT value ->> 'seed' FROM json_each(readfile('$work/r.json'), '\$.points') WHERE value ->> 'idx' = 20),
	json_type(readfile('$work/r.json'), '\$.points[20].provenance.fast_forward')")" = "object|$("$exe" --version | cut -d' ' -f2)|object|sim|1|text|1|true" ] ||
	fail "JSON provenance: $(sqlite3 :memory: "SELECT json_extract(readfile('$work/r.json'), '\$.points[20].provenance')")"
# The JSON and CSV bandwidths are the database's.
sum_db=$(sqlite3 "$db" "SELECT printf('%.6f', sum(bandwidth_gbps)) FROM points")
sum_json=$(sqlite3 :memory: "SELECT printf('%.6f', sum(value ->> 'bandwidth_gbps')) FROM json_each(readfile('$work/r.json'), '\$.points')")
[ "$sum_db" = "$sum_json" ] || fail "JSON bandwidths $sum_json, database $sum_db"

"$exe" report --db "$db" --plots "$work/fig" >"$work/report" || fail "report: $(cat "$work/report")"
grep -q "figure mask_bandwidth" "$work/report" || fail "report: $(cat "$work/report")"
[ "$(head -c 4 "$work/fig/mask_bandwidth.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] || fail "PNG"
grep -q "bandwidth (GB/s)" "$work/fig/mask_bandwidth.svg" || fail "SVG y label with units"
grep -q "lowest address bit forced to 0 by the mask" "$work/fig/mask_bandwidth.svg" || fail "SVG x label"

# Without gnuplot: a clear error, exit 1.
if STACKBENCH_GNUPLOT=/nonexistent/gnuplot "$exe" report --db "$db" --out "$work/f2" 2>"$work/err"; then
	fail "report without gnuplot succeeded"
fi
grep -q "install the Debian package gnuplot-nox" "$work/err" || fail "message: $(cat "$work/err")"
echo "cli_flow: ok"
