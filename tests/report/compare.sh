#!/bin/sh
# Comparisons (report --against-model, report --db A --db B): a campaign measured on the
# simulated board with a perturbed profile (a copy of the AC-510 profile with slower DRAM
# timings, standing in for a real board) against the model, the same campaign on the
# unperturbed profile (every ratio 1), and two databases holding the campaign of one hash.
# The ratios are checked against the databases' own numbers, the figures and the HTML page
# against the table.
#   compare.sh STACKBENCH_EXE PROFILE_DIR
set -eu
exe=$1
profiles=$2
work=$(mktemp -d /tmp/sb-compare-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "compare: FAIL: $*" >&2; exit 1; }
q() { sqlite3 -batch -noheader "$@"; }

# The perturbed board: tCL and tRCD half as long again, tRC two and a half times (so that one
# bank is slower than one port, whose 128 B reads the model's ports take at 2.5 GB/s), the RX
# path 130 ns longer. Each change must apply (the test is void if the profile's keys moved).
mkdir "$work/pdir"
sed -e 's/^\(  rx_path_ns: \)260\b/\1390/' -e 's/^\(  tcl_ns: \)9\.9$/\114.9/' \
	-e 's/^\(  trcd_ns: \)10\.2$/\115.3/' -e 's/^\(  trc_ns: \)32\.0$/\180.0/' \
	"$profiles/hmc-gen2-ac510.yaml" >"$work/pdir/hmc-gen2-ac510.yaml"
[ "$(diff "$profiles/hmc-gen2-ac510.yaml" "$work/pdir/hmc-gen2-ac510.yaml" | grep -c '^>')" -eq 4 ] ||
	fail "the perturbation did not apply to all four timings"
sed 's/^name: hmc-gen2-ac510$/name: ac510-perturbed/' "$work/pdir/hmc-gen2-ac510.yaml" \
	>"$work/perturbed.yaml"

# One campaign file, two boards: low load (1 port) and full load, all banks and one bank.
campaign() {
	cat <<EOC
name: cmp
kind: bandwidth
bench:
  device: "$1"
instruments: none
durations:
  bandwidth_s: 0.2
seed: 7
sweep:
  type: [ro, rw]
  pattern: [all, 1bank]
  ports: [1, all]
EOC
}
campaign "sim:$work/perturbed.yaml" >"$work/perturbed-campaign.yaml"
campaign "sim:" >"$work/campaign.yaml"
"$exe" -q run "$work/perturbed-campaign.yaml" --db "$work/m.db" >/dev/null || fail "run perturbed"
"$exe" -q run "$work/campaign.yaml" --db "$work/u.db" >/dev/null || fail "run unperturbed"

# 1. The perturbed board against the model.
out=$work/against
"$exe" -q report --db "$work/m.db" --against-model hmc-gen2-ac510 --html "$out" \
	--json "$work/against.json" >"$work/against.txt" 2>"$work/against.err" ||
	fail "report --against-model: $(cat "$work/against.err")"
for f in comparison.db comparison.json report.html compare_ratio.png compare_ratio.svg \
	compare_ratio.dat pattern_bandwidth.png pattern_latency.dat; do
	[ -s "$out/$f" ] || fail "no $f"
done
cmp -s "$out/comparison.json" "$work/against.json" || fail "--json differs from comparison.json"
J=$out/comparison.json
j() { q :memory: "SELECT $1 FROM json_each(readfile('$J'), '\$.comparisons[0].points') $2"; }
[ "$(q :memory: "SELECT json_extract(readfile('$J'), '\$.schema') || ' ' ||
	json_extract(readfile('$J'), '\$.schema_version') || ' ' ||
	json_array_length(readfile('$J'), '\$.comparisons') || ' ' ||
	json_extract(readfile('$J'), '\$.comparisons[0].kind') || ' ' ||
	json_array_length(readfile('$J'), '\$.comparisons[0].points')")" = \
	"stackbench-comparison 1.0 1 model 8" ] || fail "JSON: $(head -c 600 "$J")"
# The model ran every measured point, on the AC-510 profile, with the campaign's seeds.
cdb=$out/comparison.db
[ "$(q "$cdb" "SELECT count(*) || ' ' || count(DISTINCT campaign_id) FROM points")" = "16 2" ] ||
	fail "comparison.db: 8 points of each campaign expected"
mid=$(q :memory: "SELECT json_extract(readfile('$J'), '\$.comparisons[0].reference.comparison_campaign_id')")
q "$cdb" "SELECT provenance FROM campaigns WHERE id = $mid" | grep -q 'profile hmc-gen2-ac510 (' ||
	fail "the model's run is not on the AC-510 profile"
[ "$(q "$cdb" "SELECT count(*) FROM points a JOIN points b ON a.key = b.key AND a.seed = b.seed
	AND a.campaign_id <> b.campaign_id WHERE a.campaign_id = $mid")" = 8 ] ||
	fail "the model's points are not the measured points with their seeds"
# Every ratio is the measured database's value over the model's (comparison.db), to 1e-9.
q "$work/m.db" "SELECT replace(key, 'rep=0 ', ''), bandwidth_gbps, latency_avg_ns FROM points" \
	>"$work/measured.txt"
bad=$(q "$cdb" "SELECT replace(key, 'rep=0 ', ''), bandwidth_gbps, latency_avg_ns FROM points
	WHERE campaign_id = $mid" | while IFS='|' read -r key bw lat; do
	m=$(grep -F "$key|" "$work/measured.txt")
	mbw=$(echo "$m" | cut -d'|' -f2)
	mlat=$(echo "$m" | cut -d'|' -f3)
	r=$(j "value ->> '$.bandwidth_gbps.ratio', value ->> '$.latency_avg_ns.ratio'" \
		"WHERE value ->> 'key' = '$key'")
	q :memory: "SELECT abs(${r%%|*} - $mbw / $bw) > 1e-9 OR abs(${r##*|} - $mlat / $lat) > 1e-9" |
		grep -q 0 || echo "$key: $r, databases $mbw/$bw $mlat/$lat"
done)
[ -z "$bad" ] || fail "ratios: $bad"
# The perturbation shows: one bank is slower to cycle (bandwidth down, latency up), low load
# waits longer for its reads; the median of the bandwidths is no better than the model.
[ "$(j "count(*)" "WHERE value ->> 'label' LIKE '%pattern=1bank%' AND
	value ->> '$.bandwidth_gbps.ratio' < 0.95 AND value ->> '$.latency_avg_ns.ratio' > 1.05")" = 4 ] ||
	fail "one-bank points: bandwidth not 5 % lower, latency not 5 % higher: $(j "value ->> 'label', value ->> '$.bandwidth_gbps.ratio', value ->> '$.latency_avg_ns.ratio'" "")"
[ "$(q :memory: "SELECT json_extract(readfile('$J'), '\$.comparisons[0].summary.bandwidth_gbps.median_ratio') <= 1.0 AND
	json_extract(readfile('$J'), '\$.comparisons[0].summary.bandwidth_gbps.worst_ratio') < 0.9 AND
	json_extract(readfile('$J'), '\$.comparisons[0].summary.latency_avg_ns.worst_ratio') > 1.1 AND
	json_extract(readfile('$J'), '\$.comparisons[0].summary.bandwidth_gbps.points') = 8")" = 1 ] ||
	fail "summary: $(q :memory: "SELECT json_extract(readfile('$J'), '\$.comparisons[0].summary')")"
# The table says the same (the worst bandwidth, to 4 digits) and names both sides.
worst=$(q :memory: "SELECT printf('%.4f', json_extract(readfile('$J'), '\$.comparisons[0].summary.bandwidth_gbps.worst_ratio'))")
grep -Eq "^  worst +$worst " "$work/against.txt" || fail "table worst: $(cat "$work/against.txt")"
grep -q "^comparison: measured (profile ac510-perturbed [0-9a-f]\{8\}) against model (hmc-gen2-ac510 [0-9a-f]\{8\})" \
	"$work/against.txt" || fail "table header: $(head -3 "$work/against.txt")"
# Every figure overlays both: measured and model series in the data files; the ratio figure
# has a point per metric and point, and the line at 1.
for f in pattern_bandwidth pattern_latency; do
	grep -q '"measured (profile ac510-perturbed ' "$out/$f.dat" || fail "$f: no measured series"
	grep -q '"model (hmc-gen2-ac510 ' "$out/$f.dat" || fail "$f: no model series"
done
[ "$(awk '/^# data/{d=1;next} /^# /{d=0} d && NF' "$out/compare_ratio.dat" | wc -l)" -eq 24 ] ||
	fail "compare_ratio: 8 points x 3 metrics expected"
grep -q '"ratio 1: no deviation"' "$out/compare_ratio.dat" || fail "compare_ratio: no line at 1"
grep -q "Comparisons" "$out/report.html" && grep -q "$worst" "$out/report.html" ||
	fail "HTML: no comparison table"
grep -q "figure compare_ratio  *$out/compare_ratio.png" "$work/against.txt" ||
	fail "figure lines: $(grep figure "$work/against.txt")"

# 2. The unperturbed board against the model: every ratio 1 (the same code on the same model
# with the same seeds; within 0.1 % allowed).
"$exe" -q report --db "$work/u.db" --against-model --plots "$work/same" --json - \
	>"$work/same.json" 2>"$work/same.err" || fail "report unperturbed: $(cat "$work/same.err")"
J=$work/same.json
[ "$(j "count(*)" "")" = 8 ] || fail "unperturbed: 8 points expected"
[ "$(j "sum(abs(value ->> '$.bandwidth_gbps.ratio' - 1) < 1e-3 AND
	abs(value ->> '$.mrps.ratio' - 1) < 1e-3 AND abs(value ->> '$.latency_avg_ns.ratio' - 1) < 1e-3)" "")" = 8 ] ||
	fail "unperturbed ratios: $(j "value ->> 'label', value ->> '$.bandwidth_gbps.ratio', value ->> '$.latency_avg_ns.ratio'" "")"

# 3. Two databases, one campaign hash: the same file run on the AC-510 profile and, with
# $STACKBENCH_PROFILE_PATH, on the perturbed copy under the same name (another board).
"$exe" -q run "$work/campaign.yaml" --db "$work/a.db" >/dev/null || fail "run a"
STACKBENCH_PROFILE_PATH=$work/pdir "$exe" -q run "$work/campaign.yaml" --db "$work/b.db" \
	>/dev/null || fail "run b"
[ "$(q "$work/a.db" "SELECT hash FROM campaigns")" = "$(q "$work/b.db" "SELECT hash FROM campaigns")" ] ||
	fail "the two runs have different hashes"
"$exe" -q report --db "$work/a.db" --db "$work/b.db" --plots "$work/ab/" --json "$work/ab.json" \
	>"$work/ab.txt" 2>"$work/ab.err" || fail "report --db --db: $(cat "$work/ab.err")"
J=$work/ab.json
[ "$(q :memory: "SELECT json_extract(readfile('$J'), '\$.comparisons[0].kind') || ' ' ||
	json_extract(readfile('$J'), '\$.comparisons[0].reference.database') || ' ' ||
	json_extract(readfile('$J'), '\$.comparisons[0].compared.database')")" = \
	"databases $work/a.db $work/b.db" ] || fail "sides: $(head -c 800 "$J")"
# Labelled by provenance: the two profiles' content hashes tell the boards apart.
grep -q "^comparison: b.db (profile hmc-gen2-ac510 [0-9a-f]\{8\}) against a.db (profile hmc-gen2-ac510 [0-9a-f]\{8\})" \
	"$work/ab.txt" || fail "labels: $(head -1 "$work/ab.txt")"
# B is the perturbed board: the same deviations as against the model.
[ "$(j "count(*)" "WHERE value ->> 'label' LIKE '%pattern=1bank%' AND
	value ->> '$.bandwidth_gbps.ratio' < 0.95 AND value ->> '$.latency_avg_ns.ratio' > 1.05")" = 4 ] ||
	fail "two databases: one-bank deviations missing"
# Paths are printed without '//' (the folder was given with a trailing '/').
grep -q "//" "$work/ab.txt" && fail "a path with //: $(grep // "$work/ab.txt")"
grep -q "figures in $work/ab/$" "$work/ab.txt" || fail "summary line: $(tail -1 "$work/ab.txt")"

# 4. Refusals: no campaign of the hash elsewhere (4), a database that is not one (4), the
# model's profile missing (3); nothing is written.
rc=0
"$exe" -q report --db "$work/a.db" --db "$work/m.db" --plots "$work/no" 2>"$work/err" || rc=$?
[ $rc -eq 4 ] && grep -q "no campaign of that hash" "$work/err" || fail "other hash: rc $rc $(cat "$work/err")"
[ ! -e "$work/no/comparison.db" ] || fail "outputs of a failed comparison"
rc=0
"$exe" -q report --db "$work/a.db" --db "$work/campaign.yaml" --plots "$work/no" 2>"$work/err" || rc=$?
[ $rc -eq 4 ] || fail "not a database: rc $rc $(cat "$work/err")"
rc=0
"$exe" -q report --db "$work/a.db" --against-model nosuch --plots "$work/no" 2>"$work/err" || rc=$?
[ $rc -eq 3 ] && grep -q "nosuch" "$work/err" || fail "missing profile: rc $rc $(cat "$work/err")"
[ ! -e "$work/no/comparison.db" ] || fail "outputs of a failed comparison"
echo "compare: ok"
