#!/bin/sh
# HBM2 campaigns with `stackbench run` on the simulated U280 (issue 26, item 3): every
# examples/hbm2-*.yaml runs from the repository, its points land in the store (points +
# hbm_points) with the values the standard experiments give, `report` draws the HBM2 figures,
# a re-run resumes only the missing points, --jobs and shards merged give the same points, the
# export carries them, and a campaign mixing the engines' axes is refused naming the key.
#   hbm2_campaigns.sh STACKBENCH EXAMPLES_DIR
set -eu
exe=$1 examples=$2
name=cli.hbm2_campaigns
work=$(mktemp -d /tmp/sb-hbm2-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
q() { sqlite3 "$work/$1.db" "$2"; }
# awk as a calculator: true when the expression holds
holds() { awk "BEGIN { exit !($1) }"; }

for f in burst stride page-latency all-ports switch refresh; do
	"$exe" run "$examples/hbm2-$f.yaml" --db "$work/$f.db" >"$work/$f.out" 2>&1 ||
		fail "run hbm2-$f.yaml: $(cat "$work/$f.out")"
	n=$(q "$f" "SELECT count(*) FROM points p JOIN hbm_points h ON h.point_id = p.id")
	total=$(q "$f" "SELECT points_total FROM campaigns")
	[ "$n" = "$total" ] && [ "$n" -gt 0 ] || fail "hbm2-$f: $n HBM2 points stored of $total"
done

# All ports: the aggregate rises with the ports; 32 ports near Shuhai's 425 GB/s, below the
# 460.8 GB/s of 32 x 14.4.
prev=0
for n in 1 2 4 8 16 32; do
	g=$(q all-ports "SELECT gbps FROM hbm_points WHERE op = 'read' AND nports = $n")
	holds "$g > $prev * 1.9" || fail "all ports: $n ports read $g GB/s, not twice $prev"
	prev=$g
done
holds "$prev > 415.9 && $prev < 432.9 && $prev < 460.8" || fail "all ports: 32 ports read $prev GB/s"
g=$(q all-ports "SELECT gbps FROM hbm_points WHERE op = 'mix' AND nports = 32")
holds "$g < $prev * 0.9" || fail "all ports: the mix ($g) does not pay its turnarounds ($prev)"

# Local against switched: ports 0 and 1 through one lateral get about half; 0 and 2 (two
# laterals) keep the rate; each mini-switch boundary adds latency.
sw() { q switch "SELECT $3 FROM hbm_points WHERE port_set = '$1' AND target = '$2'"; }
l=$(sw 0-1 local gbps) s4=$(sw 0-1 shift4 gbps)
holds "$s4 / $l > 0.45 && $s4 / $l < 0.6" || fail "switch: shift4 $s4 against local $l GB/s"
l2=$(sw 0,2 local gbps) s42=$(sw 0,2 shift4 gbps)
holds "$s42 / $l2 > 0.95" || fail "switch: two laterals $s42 against local $l2 GB/s"
a=$(sw 0-1 local rd_lat_min_ns) b=$(sw 0-1 shift4 rd_lat_min_ns) c=$(sw 0-1 shift8 rd_lat_min_ns)
d=$(sw 0-1 shift12 rd_lat_min_ns)
holds "$a < $b && $b < $c && $c < $d" || fail "switch: latencies $a $b $c $d"

# Page hit < closed < miss, each its own latency class.
pl() { q page-latency "SELECT $3 FROM hbm_points WHERE page = '$1' AND stride_b = $2"; }
hit=$(pl open 32 rd_lat_avg_ns) closed=$(pl closed 32 rd_lat_avg_ns) miss=$(pl open 16384 rd_lat_avg_ns)
holds "$hit < $closed && $closed < $miss" || fail "page: hit $hit closed $closed miss $miss ns"
holds "$(pl open 32 'cls_hit * 1.0 / (cls_hit + cls_closed + cls_miss)') > 0.8" ||
	fail "page: the hits' class"
holds "$(pl closed 32 'cls_closed * 1.0 / (cls_hit + cls_closed + cls_miss)') > 0.8" ||
	fail "page: the closed pages' class"
holds "$(pl open 16384 'cls_miss * 1.0 / (cls_hit + cls_closed + cls_miss)') > 0.8" ||
	fail "page: the misses' class"

# Refresh: the card's register reads the temperature set; above 85 C all-bank refresh runs
# twice as often and costs bandwidth; single-bank refresh hardly.
rf() { q refresh "SELECT $3 FROM hbm_points WHERE refresh = '$1' AND temp_set_c = $2"; }
[ "$(rf all_bank 90 stack_temp_c)" = "90.0" ] || fail "refresh: the stacks read $(rf all_bank 90 stack_temp_c) C"
c40=$(rf all_bank 40 gbps) c85=$(rf all_bank 85 gbps) c90=$(rf all_bank 90 gbps)
holds "$c85 == $c40 && $c90 < $c40 * 0.95 && $c90 > $c40 * 0.85" ||
	fail "refresh: all-bank $c40 (40 C) $c85 (85 C) $c90 (90 C) GB/s"
s40=$(rf single_bank 40 gbps) s90=$(rf single_bank 90 gbps)
holds "$s90 > $s40 * 0.99 && $s40 > $c40" || fail "refresh: single-bank $s40 $s90 GB/s"

# Burst and stride: larger bursts gain under rbc_bgi; bank-group interleave keeps small
# strides at the full rate where rbc pays tCCD_L; at 16 KB every map is one bank's row cycle.
b32=$(q burst "SELECT gbps FROM hbm_points WHERE mc_addr_map = 'rbc_bgi' AND burst_b = 32")
b4k=$(q burst "SELECT gbps FROM hbm_points WHERE mc_addr_map = 'rbc_bgi' AND burst_b = 4096")
holds "$b4k > 3 * $b32" || fail "burst: 4 KB $b4k against 32 B $b32 GB/s"
st() { q stride "SELECT gbps FROM hbm_points WHERE mc_addr_map = '$1' AND stride_b = $2"; }
holds "$(st rbc_bgi 64) > 1.4 * $(st rbc 64)" || fail "stride: rbc_bgi $(st rbc_bgi 64), rbc $(st rbc 64)"
for m in rbc_bgi rbc brc rcb; do
	holds "$(st $m 16384) > 1.1 && $(st $m 16384) < 1.4" || fail "stride: $m at 16 KB $(st $m 16384)"
done

# The figures, from the store, each example's.
for f in burst:hbm_burst_bandwidth stride:hbm_stride_bandwidth page-latency:hbm_page_latency \
	all-ports:hbm_ports_bandwidth switch:hbm_target_bandwidth switch:hbm_target_latency \
	refresh:hbm_refresh_bandwidth all-ports:hbm_port_throughput switch:hbm_port_throughput; do
	db=${f%%:*} fig=${f#*:}
	"$exe" report --db "$work/$db.db" --plots "$work/fig-$db" --format svg >"$work/r.out" 2>&1 ||
		fail "report $db: $(cat "$work/r.out")"
	[ -s "$work/fig-$db/$fig.svg" ] && [ -s "$work/fig-$db/$fig.dat" ] ||
		fail "report $db: no $fig ($(cat "$work/r.out"))"
done
# Each port's throughput: the two ports sharing one lateral (0-1 through the switch) get about
# half of what each gets in its own PC; 0 and 2 (two laterals) keep it.
pt() { awk -v s="$1" -v x="$2" '$0 ~ "\"" s "\"$" && $1 == x { print $3 }' "$work/fig-switch/hbm_port_throughput.dat"; }
l0=$(pt "ports 0-1, local, linear 512 B, 64 out, rbc_bgi open, all_bank refresh" 0)
s0=$(pt "ports 0-1, shift4, linear 512 B, 64 out, rbc_bgi open, all_bank refresh" 0)
s1=$(pt "ports 0-1, shift4, linear 512 B, 64 out, rbc_bgi open, all_bank refresh" 1)
w2=$(pt "ports 0,2, shift4, linear 512 B, 64 out, rbc_bgi open, all_bank refresh" 2)
holds "$l0 > 13 && $s0 > 0.45 * $l0 && $s0 < 0.6 * $l0 && $s1 > 0.45 * $l0 && $s1 < 0.6 * $l0 && $w2 > 0.97 * $l0" ||
	fail "hbm_port_throughput: local $l0, shift4 ports 0-1: $s0 $s1, ports 0,2 port 2: $w2 GB/s"
[ "$(grep -c '^[0-9]' "$work/fig-all-ports/hbm_port_throughput.dat")" = 186 ] ||
	fail "hbm_port_throughput: $(grep -c '^[0-9]' "$work/fig-all-ports/hbm_port_throughput.dat") port rows, not 3 x 62"
# GUPS figures leave HBM2 points out
grep -q "figure size_bandwidth.*skipped" "$work/r.out" || fail "report: a GUPS figure drew HBM2 points"

# Resume: a re-run runs only the points that are missing.
q stride "DELETE FROM hbm_points WHERE point_id IN (SELECT id FROM points WHERE idx >= 30);
	DELETE FROM hbm_point_ports WHERE point_id IN (SELECT id FROM points WHERE idx >= 30);
	DELETE FROM point_ports WHERE point_id IN (SELECT id FROM points WHERE idx >= 30);
	DELETE FROM points WHERE idx >= 30; UPDATE campaigns SET status = 'running'"
"$exe" run "$examples/hbm2-stride.yaml" --db "$work/stride.db" --resume >"$work/o" 2>&1 ||
	fail "resume: $(cat "$work/o")"
grep -q "36 points (6 run now, 30 stored before" "$work/o" || fail "resume: $(cat "$work/o")"

# --jobs 2, and three shards merged, give the same points as one worker.
pts() { "$exe" export --db "$1" --format csv --table hbm_points | cut -d, -f1-3,5-; }
"$exe" run "$examples/hbm2-stride.yaml" --db "$work/j1.db" >/dev/null 2>&1 || fail "jobs 1"
"$exe" run "$examples/hbm2-stride.yaml" --db "$work/j2.db" --jobs 2 >/dev/null 2>&1 || fail "jobs 2"
for i in 0 1 2; do
	"$exe" run "$examples/hbm2-stride.yaml" --db "$work/s$i.db" --shard $i/3 >/dev/null 2>&1 ||
		fail "shard $i"
done
"$exe" merge "$work/s0.db" "$work/s1.db" "$work/s2.db" --into "$work/m.db" >"$work/o" 2>&1 ||
	fail "merge: $(cat "$work/o")"
pts "$work/j1.db" >"$work/p1"
[ "$(wc -l <"$work/p1")" = 37 ] || fail "export: $(wc -l <"$work/p1") lines"
pts "$work/j2.db" | cmp -s - "$work/p1" || fail "--jobs 2 differs from one worker"
pts "$work/m.db" | cmp -s - "$work/p1" || fail "the merged shards differ from one run"
# ... and their ports' detail (hbm_point_ports): a row per port, the same after --jobs 2 and
# the merge, adding up to each point's totals.
hp() { "$exe" export --db "$1" --format csv --table hbm_ports | cut -d, -f1-3,5-; }
hp "$work/j1.db" >"$work/hp1"
[ "$(wc -l <"$work/hp1")" = 37 ] && head -1 "$work/hp1" | grep -q "^campaign_id,point_idx,attempt,port,pc,txns,rd_bytes,wr_bytes,gbps,rd_lat_avg_ns," ||
	fail "export hbm_ports: $(head -2 "$work/hp1")"
hp "$work/j2.db" | cmp -s - "$work/hp1" || fail "hbm_ports: --jobs 2 differs from one worker"
hp "$work/m.db" | cmp -s - "$work/hp1" || fail "hbm_ports: the merged shards differ from one run"
"$exe" export --db "$work/m.db" --format json >"$work/m.json" || fail "export json"
grep -q '"hbm_points"' "$work/m.json" && grep -q '"hist":[[:space:]]*\[' "$work/m.json" ||
	fail "the JSON export has no hbm_points with histograms"
[ "$(sqlite3 :memory: "SELECT json_array_length(readfile('$work/m.json'), '\$.hbm_point_ports')")" = 36 ] ||
	fail "the JSON export has not 36 hbm_point_ports"
# All ports: one row per port; each port's write latency and classes add up to the point's.
[ "$(q all-ports "SELECT count(*) FROM hbm_point_ports")" = 189 ] ||
	fail "all ports: $(q all-ports "SELECT count(*) FROM hbm_point_ports") port rows, not 3 x 63"
[ "$(q all-ports "SELECT count(*) FROM hbm_points h WHERE h.txns = (SELECT sum(txns) FROM
	hbm_point_ports hp WHERE hp.point_id = h.point_id) AND h.cls_miss = (SELECT sum(cls_miss)
	FROM hbm_point_ports hp WHERE hp.point_id = h.point_id) AND (h.wr_lat_min_ns IS NULL OR
	h.wr_lat_min_ns = (SELECT min(wr_lat_min_ns) FROM hbm_point_ports hp WHERE
	hp.point_id = h.point_id))")" = 18 ] || fail "all ports: the ports do not add up to the points"

# Comparisons: the measured campaign against the model it ran on (sim:u280), and two databases
# (one run against the merged shards): every point's ratio 1.
"$exe" report --db "$work/switch.db" --against-model --plots "$work/cmp" --format svg \
	>"$work/o" 2>&1 || fail "report --against-model: $(cat "$work/o")"
[ "$(sqlite3 :memory: "SELECT json_extract(readfile('$work/cmp/comparison.json'),
	'\$.comparisons[0].summary.bandwidth_gbps.points') || '/' ||
	json_extract(readfile('$work/cmp/comparison.json'),
	'\$.comparisons[0].summary.bandwidth_gbps.median_ratio')")" = "10/1" ] ||
	fail "against the model: $(head -c 1500 "$work/cmp/comparison.json")"
"$exe" report --db "$work/j1.db" --db "$work/m.db" --plots "$work/cmp2" --format svg \
	>"$work/o" 2>&1 || fail "report --db A --db B: $(cat "$work/o")"
[ "$(sqlite3 :memory: "SELECT json_extract(readfile('$work/cmp2/comparison.json'),
	'\$.comparisons[0].summary.bandwidth_gbps.points') || '/' ||
	json_extract(readfile('$work/cmp2/comparison.json'),
	'\$.comparisons[0].summary.bandwidth_gbps.median_ratio')")" = "36/1" ] ||
	fail "two databases: $(head -c 1500 "$work/cmp2/comparison.json")"
# ... and by the HBM2-only values: write latency and the read latencies' classes. A copy of
# all-ports.db with every write latency 1.25 times and as many reads in the hit class as in the
# miss class (the miss share halves); the model's page-latency runs give the hit class.
cj() { sqlite3 :memory: "SELECT json_extract(readfile('$1/comparison.json'),
	'\$.comparisons[0].summary.$2.points') || '/' || json_extract(readfile('$1/comparison.json'),
	'\$.comparisons[0].summary.$2.median_ratio')"; }
cp "$work/all-ports.db" "$work/ap2.db"
q ap2 "UPDATE hbm_points SET wr_lat_avg_ns = wr_lat_avg_ns * 1.25, cls_hit = cls_miss"
"$exe" report --db "$work/all-ports.db" --db "$work/ap2.db" --plots "$work/cmp3" --format svg \
	>"$work/o" 2>&1 || fail "report --db A --db B (all ports): $(cat "$work/o")"
[ "$(cj "$work/cmp3" wr_latency_avg_ns)" = "12/1.25" ] &&
	[ "$(cj "$work/cmp3" cls_miss_pct)" = "12/0.5" ] &&
	[ "$(cj "$work/cmp3" bandwidth_gbps)" = "18/1" ] ||
	fail "HBM2 values compared: $(head -c 1500 "$work/cmp3/comparison.json")"
grep -q "worst wr latency: +25.0 % at ports=" "$work/o" &&
	grep -q "worst miss class: -50.0 % at ports=" "$work/o" ||
	fail "HBM2 values compared: $(cat "$work/o")"
"$exe" report --db "$work/page-latency.db" --against-model --plots "$work/cmp4" --format svg \
	>"$work/o" 2>&1 || fail "report --against-model (page latency): $(cat "$work/o")"
[ "$(cj "$work/cmp4" cls_hit_pct)" = "1/1" ] && [ "$(cj "$work/cmp4" cls_miss_pct)" = "3/1" ] ||
	fail "page latency against the model: $(head -c 1500 "$work/cmp4/comparison.json")"

# Refused with the file, line and key; nothing stored.
printf 'bench: {device: "sim:u280"}\nsweep:\n  burst: [64, 128]\n  size: 64\n' >"$work/bad.yaml"
if "$exe" run "$work/bad.yaml" --db "$work/bad.db" >"$work/o" 2>&1; then fail "mixed axes ran"; fi
grep -q "'$work/bad.yaml' line 4: key 'size': an axis of the GUPS engine" "$work/o" ||
	fail "mixed axes: $(cat "$work/o")"
printf 'bench: {device: "sim:"}\nsweep:\n  outstanding: 4\n' >"$work/bad.yaml"
if "$exe" run "$work/bad.yaml" --db "$work/bad.db" >"$work/o" 2>&1; then fail "HBM2 axis on GUPS ran"; fi
grep -q "line 3: key 'outstanding': an axis of an HBM2 card's engine" "$work/o" ||
	fail "HBM2 axis on GUPS: $(cat "$work/o")"
[ ! -e "$work/bad.db" ] || fail "a refused campaign made a database"
echo "$name: ok"
