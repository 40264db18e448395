#!/bin/sh
# A thermal-failure campaign through the tool (examples/thermal-failure.yaml): SIGKILL it
# mid-way, resume it, then check that every point and every run is stored once, that each
# failed run has its failure event and partial data, and that the export and the report carry
# the thermal results with their units.
#   thermal_flow.sh STACKBENCH_EXE EXAMPLES_DIR
set -eu
exe=$1
campaign=$2/thermal-failure.yaml
work=$(mktemp -d /tmp/sb-thermal-flow-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "thermal_flow: FAIL: $*" >&2; exit 1; }
db=$work/r.db
q() { sqlite3 "$db" "$1" 2>/dev/null || echo 0; }

"$exe" run "$campaign" --db "$db" >"$work/log" 2>&1 &
pid=$!
tries=0
while [ "$(q "SELECT count(*) FROM points")" -lt 3 ]; do
	kill -0 "$pid" 2>/dev/null || fail "the run ended before the kill: $(cat "$work/log")"
	tries=$((tries + 1))
	[ "$tries" -lt 1200 ] || fail "no progress after 120 s"
	sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
n=$(q "SELECT count(*) FROM points")
echo "thermal_flow: killed with $n runs stored"
"$exe" run "$campaign" --db "$db" --resume >"$work/out" 2>>"$work/log" || fail "resume: $(cat "$work/log")"
grep -q "campaign 1 'thermal-failure' complete: 8 points" "$work/out" || fail "$(cat "$work/out")"

# Cfg1..Cfg4 x (wo, ro): wo (25 GB/s) fails in Cfg4 and is run once more (retries: 1); in Cfg3
# it settles just under the ~75 C at which write traffic fails.
[ "$(q "SELECT count(DISTINCT idx) || ' ' || count(*) FROM points")" = "8 9" ] ||
	fail "points/runs: $(q "SELECT idx, attempt, failed FROM points")"
[ "$(q "SELECT group_concat(cooling || ' ' || type || ' ' || attempt, ', ') FROM (SELECT * FROM points WHERE failed = 1 ORDER BY idx, attempt)")" = \
	"Cfg4 wo 0, Cfg4 wo 1" ] || fail "failed runs: $(q "SELECT idx, attempt FROM points WHERE failed = 1")"
[ "$(q "SELECT count(*) FROM points WHERE failed = 1 AND fail_temp_c BETWEEN 74 AND 76 AND writes > 0 AND elapsed_ns < duration_ns")" = 2 ] ||
	fail "failed runs keep what they measured"
[ "$(q "SELECT count(*) FROM events e JOIN points p ON p.idx = e.point_idx AND p.attempt = json_extract(e.data, '\$.attempt') WHERE e.kind = 'thermal_failure' AND p.failed = 1 AND json_extract(e.data, '\$.writes') = p.writes")" = 2 ] ||
	fail "one failure event per failed run: $(q "SELECT point_idx, data FROM events WHERE kind = 'thermal_failure'")"
[ "$(q "SELECT count(*) FROM points WHERE type = 'ro' AND failed = 0 AND temp_c_steady IS NOT NULL")" = 4 ] ||
	fail "read-only traffic ran whole in every configuration"
[ "$(q "SELECT temp_c_steady > 80 FROM points WHERE type = 'ro' AND cooling = 'Cfg4'")" = 1 ] ||
	fail "ro in Cfg4 survives past 80 C"
[ "$(q "PRAGMA integrity_check")" = ok ] || fail "integrity check"

# Export with units in the column names; the samples of every run.
"$exe" export --db "$db" --format csv --out "$work/p.csv" || fail "export"
head -1 "$work/p.csv" | grep -q "temp_c_avg,temp_c_max,power_w_avg,.*,attempt,temp_c_start,temp_c_steady,power_w_max,fail_temp_c,fail_power_w,cooling_config,fan_supply_v,fan_supply_a,fan_rpm,desk_fan_distance_cm,cooling_power_w,provenance$" ||
	fail "points header: $(head -1 "$work/p.csv")"
[ "$(wc -l <"$work/p.csv")" -eq 10 ] || fail "9 runs + header"
"$exe" export --db "$db" --format csv --table samples --out "$work/s.csv" || fail "export samples"
head -1 "$work/s.csv" | grep -q "^campaign_id,point_idx,attempt,point_id,seq,t_ns,.*,temp_c,power_w,volts_v,amps_a$" ||
	fail "samples header: $(head -1 "$work/s.csv")"
[ "$(($(wc -l <"$work/s.csv") - 1))" -eq "$(q "SELECT count(*) FROM samples")" ] || fail "every sample exported"

# The failure traces.
"$exe" report --db "$db" --out "$work/fig" >"$work/report" || fail "report: $(cat "$work/report")"
grep -q "figure thermal_failure_trace .*thermal_failure_trace.png" "$work/report" || fail "$(cat "$work/report")"
[ "$(grep -c '^# mark' "$work/fig/thermal_failure_trace.dat")" = 2 ] || fail "2 failures marked"
grep -q "temperature, camera hot spot" "$work/fig/thermal_failure_trace.svg" || fail "SVG y label"
echo "thermal_flow: ok"
