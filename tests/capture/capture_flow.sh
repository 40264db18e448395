#!/bin/sh
# The loop of issue 14 through the tool, on the simulated bench:
#   1. capture a one-vault point into a sampled trace: every record in vault 0, as many
#      records per executed request as the burst and gap settings give, and the lifetime and
#      locality analyses read it (with its sampling density);
#   2. replay the SCALE-Sim sample with --trace: the simulator's trace comes back as a
#      measured one (real memory timing) and the lifetime analysis reads it;
#   3. replay the captured (sampled) trace with --interpolate.
#   capture_flow.sh STACKBENCH_EXE SCALESIM_RUN_FOLDER
set -eu
exe=$1
run=$2
work=$(mktemp -d /tmp/sb-capture-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "capture_flow: FAIL: $*" >&2; exit 1; }
# jq-like access with sqlite3's JSON functions (sqlite3 is a dependency of the tests).
json() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }

# 1. Capture.
"$exe" point --pattern 1vault --duration-us 2000 --trace "$work/t.sbt" --no-instruments --json \
	>"$work/p.json" 2>"$work/p.err" || fail "point --trace: $(cat "$work/p.err")"
reads=$(json "$work/p.json" '$.reads')
records=$(json "$work/p.json" '$.trace.records')
executed=$(json "$work/p.json" '$.trace.executed')
lost=$(json "$work/p.json" '$.trace.lost_records')
[ "$executed" = "$reads" ] || fail "executed $executed, the ports read $reads"
[ "$lost" = 0 ] || fail "$lost records lost"
# Bursts of B = 1024 records at lambda requests per cycle, gaps of G = 15360 cycles: over the
# point's D cycles, floor(D / P) periods of P = B / lambda + G + 1, and what the rest holds of
# one more burst.
awk -v n="$records" -v e="$executed" 'BEGIN {
	d = 2000e-6 * 187.5e6; lambda = e / d; per = 1024 / lambda + 15360 + 1;
	full = int(d / per); rest = lambda * (d - full * per); if (rest > 1024) rest = 1024;
	expect = (full * 1024 + rest) / e; r = n / e;
	if (n % 1024 != 0 || (r - expect) / expect > 0.02 || (expect - r) / expect > 0.02) {
		printf "density %.4f, settings give %.4f (%d records)\n", r, expect, n; exit 1 }
}' || fail "sampling density"
"$exe" trace info "$work/t.sbt" >"$work/info" || fail "trace info"
grep -Eq "^  vault0 +scratchpad +1 +16 +$records +0 " "$work/info" || fail "vault0: $(cat "$work/info")"
others=$(awk '$1 ~ /^vault([1-9]|1[0-5])$/ { s += $5 + $6 } END { print s + 0 }' "$work/info")
[ "$others" = 0 ] || fail "$others records outside vault 0"
grep -q "sampled *$records of $executed accesses executed" "$work/info" || fail "capture: $(cat "$work/info")"
"$exe" lifetimes "$work/t.sbt" --json "$work/lt.json" >"$work/lt.out" 2>&1 ||
	fail "lifetimes of the capture: $(cat "$work/lt.out")"
[ "$(json "$work/lt.json" '$.records')" = "$records" ] || fail "lifetimes read $(json "$work/lt.json" '$.records') records"
"$exe" locality "$work/t.sbt" --json "$work/loc.json" >"$work/loc.out" 2>&1 ||
	fail "locality of the capture: $(cat "$work/loc.out")"
[ "$(json "$work/loc.json" '$.sampling.records')" = "$records" ] &&
	[ "$(json "$work/loc.json" '$.sampling.executed')" = "$executed" ] ||
	fail "locality's sampling: $(head -c 400 "$work/loc.json")"

# 2. SCALE-Sim through the board and back.
"$exe" replay "$run" --trace "$work/m.sbt" --json "$work/rep.json" >"$work/rep.out" 2>&1 ||
	fail "replay: $(cat "$work/rep.out")"
requests=$(json "$work/rep.json" '$.requests')
[ "$requests" -gt 1000 ] || fail "replay: $requests requests"
[ "$(json "$work/rep.json" '$.issued')" = "$requests" ] || fail "issued $(json "$work/rep.json" '$.issued') of $requests"
[ "$(json "$work/rep.json" '$.completed')" = "$requests" ] || fail "completed"
[ "$(json "$work/rep.json" '$.select')" = dram ] || fail "SCALE-Sim: DRAM traffic"
[ "$(json "$work/rep.json" '$.trace.records')" = "$requests" ] || fail "measured trace records"
sum=$(sqlite3 :memory: "SELECT sum(value ->> 'requests') FROM json_each(readfile('$work/rep.json'), '\$.vaults')")
[ "$sum" = "$requests" ] || fail "vault requests sum to $sum"
"$exe" lifetimes "$work/m.sbt" --json "$work/ml.json" >"$work/ml.out" 2>&1 ||
	fail "lifetimes of the measured trace: $(cat "$work/ml.out")"
[ "$(json "$work/ml.json" '$.records')" = "$requests" ] || fail "lifetimes of the measured trace"
[ "$(json "$work/ml.json" '$.source')" = stackbench-capture ] || fail "source"
[ "$(json "$work/ml.json" '$.clock_hz')" = 187500000 ] || fail "clock of the measured trace"

# 3. The sampled capture replayed with interpolation: time scaled by its density.
"$exe" replay "$work/t.sbt" --interpolate --json "$work/ri.json" >"$work/ri.out" 2>&1 ||
	fail "replay --interpolate: $(cat "$work/ri.out")"
[ "$(json "$work/ri.json" '$.issued')" = "$records" ] || fail "interpolated replay issued"
awk -v d="$(json "$work/ri.json" '$.density')" -v n="$records" -v e="$executed" \
	'BEGIN { r = n / e; if (d - r > 1e-9 || r - d > 1e-9) exit 1 }' || fail "density $(json "$work/ri.json" '$.density')"
# 4. A campaign with a trace section: one sbt per point beside the database, in the store.
cat >"$work/c.yaml" <<'YAML'
name: traced
durations: {bandwidth_s: 0.0005}
instruments: none
trace: {burst: 512, gap: 4000, ports: "0-3"}
sweep:
  type: [ro, wo]
  pattern: [1vault, 4vault]
YAML
"$exe" run "$work/c.yaml" --db "$work/lab.db" >"$work/run.out" 2>&1 || fail "run: $(cat "$work/run.out")"
[ "$(sqlite3 "$work/lab.db" "SELECT count(*) FROM point_traces")" = 4 ] || fail "point_traces rows"
[ "$(sqlite3 "$work/lab.db" "SELECT count(*) FROM point_traces WHERE port_mask = 15 AND lost_records = 0 AND records > 0 AND burst_records = 512 AND gap_cycles = 4000")" = 4 ] ||
	fail "point_traces: $(sqlite3 "$work/lab.db" "SELECT * FROM point_traces")"
file=$(sqlite3 "$work/lab.db" "SELECT file FROM point_traces t JOIN points p ON p.id = t.point_id WHERE p.idx = 2")
n=$(sqlite3 "$work/lab.db" "SELECT records FROM point_traces t JOIN points p ON p.id = t.point_id WHERE p.idx = 2")
[ "$file" = lab.traces/campaign1/point00002.sbt ] || fail "trace file '$file'"
"$exe" trace info "$work/$file" >"$work/ci" || fail "trace info of a campaign trace"
grep -q "^records *$n\$" "$work/ci" || fail "campaign trace: $(head -5 "$work/ci")"
"$exe" export --db "$work/lab.db" --format csv --table point_traces >"$work/t.csv" || fail "export point_traces"
[ "$(wc -l <"$work/t.csv")" -eq 5 ] || fail "point_traces CSV: $(cat "$work/t.csv")"
"$exe" export --db "$work/lab.db" --format json --out "$work/e.json" || fail "export json"
[ "$(sqlite3 :memory: "SELECT json_array_length(readfile('$work/e.json'), '\$.point_traces')")" = 4 ] || fail "JSON point_traces"
printf 'name: bad
trace: {burts: 4}
' >"$work/bad.yaml"
if "$exe" run "$work/bad.yaml" --db "$work/bad.db" >"$work/bad.out" 2>&1; then fail "a bad trace key ran"; fi
grep -q "line 2: unknown key 'burts' in 'trace'" "$work/bad.out" || fail "bad key: $(cat "$work/bad.out")"
echo "capture_flow: ok"
