#!/bin/sh
# Campaign 'trace:' on an HBM2 card's campaign (issue 26, item 5): examples/hbm2-trace.yaml runs
# on the simulated U280 and every point's AXI bursts land in NAME.traces/campaignN/ beside the
# database, recorded in point_traces as a GUPS campaign's are; 'lifetimes' and 'locality' read
# the stored traces with the values the points imply (each value lives 31 or 63 transactions of
# its port: 31 or 63 x 64 B at the port's stored bandwidth); a resumed run captures only the
# missing point; two shards merged carry the same traces; 'trace.ports' selects the recorded
# ports; the cube's bank subpartitions and a DMA path are refused naming the line.
#   hbm2_trace_campaign.sh STACKBENCH EXAMPLES_DIR
set -eu
exe=$1 examples=$2
name=hbm2.trace_campaign
work=$(mktemp -d /tmp/sb-hbmtc-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
q() { sqlite3 "$work/$1.db" "$2"; }
json() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
. "$(dirname "$0")/trace_lib.sh"
trace_of() { q "$1" "SELECT file FROM point_traces t JOIN points p ON p.id = t.point_id WHERE p.idx = $2"; }
records_of() { "$exe" trace info "$1" | sed -n 's/^records *//p'; }

"$exe" run "$examples/hbm2-trace.yaml" --db "$work/lab.db" >"$work/run.out" 2>&1 ||
	fail "run: $(cat "$work/run.out")"
[ "$(q lab "SELECT count(*) FROM points")" = 2 ] || fail "points"
# the two points differ by their working set only: run's lines tell them apart
grep -q "point 1/2 mix 64 B linear ws 1984 local ports 0-1, 64 out: " "$work/run.out" &&
	grep -q "point 2/2 mix 64 B linear ws 4032 local ports 0-1, 64 out: " "$work/run.out" ||
	fail "run's point lines: $(cat "$work/run.out")"
[ "$(q lab "SELECT count(*) FROM point_traces WHERE path = 'onchip' AND burst_records = 1024
	AND gap_cycles = 15360 AND port_mask = 3 AND subpartitions = 'pc' AND records > 1024
	AND lost_records = 0
	AND executed > records")" = 2 ] || fail "point_traces: $(q lab "SELECT * FROM point_traces")"
for i in 0 1; do
	f=$(trace_of lab $i)
	[ "$f" = "lab.traces/campaign1/point0000$i.sbt" ] || fail "point $i's trace is '$f'"
	[ "$(records_of "$work/$f")" = "$(q lab "SELECT records FROM point_traces t JOIN points p
		ON p.id = t.point_id WHERE p.idx = $i")" ] || fail "point $i: the file's records"
	"$exe" trace info "$work/$f" | grep -q "^capture.subpartitions pc\$" || fail "$f: subpartitions"
done

# Lifetimes and locality of the stored traces: 31 and 63 blocks, each value read back after
# as many transactions of its port, at the bandwidth the store holds for the point.
for i in 0 1; do
	blocks=$([ $i = 0 ] && echo 31 || echo 63)
	gbps=$(q lab "SELECT h.gbps FROM hbm_points h JOIN points p ON p.id = h.point_id WHERE p.idx = $i")
	check_lifetimes "$exe" "$work/$(trace_of lab $i)" $blocks "$gbps" "point $i"
	cp "$work/$(trace_of lab $i).l.json" "$work/l$i.json"
	"$exe" locality "$work/$(trace_of lab $i)" >"$work/loc$i" || fail "locality of point $i"
	grep -Eq "^pc0 +[0-9]+ +$blocks " "$work/loc$i" || fail "locality of point $i: $(grep '^pc0 ' "$work/loc$i")"
done
"$exe" export --db "$work/lab.db" --format csv --table point_traces >"$work/t.csv" || fail "export"
[ "$(wc -l <"$work/t.csv")" = 3 ] || fail "point_traces CSV: $(cat "$work/t.csv")"

# Resume: the missing point runs again and is captured again, the same trace.
r1=$(records_of "$work/$(trace_of lab 1)")
rm "$work/lab.traces/campaign1/point00001.sbt"
q lab "DELETE FROM point_traces WHERE point_id IN (SELECT id FROM points WHERE idx = 1);
	DELETE FROM hbm_points WHERE point_id IN (SELECT id FROM points WHERE idx = 1);
	DELETE FROM hbm_point_ports WHERE point_id IN (SELECT id FROM points WHERE idx = 1);
	DELETE FROM point_ports WHERE point_id IN (SELECT id FROM points WHERE idx = 1);
	DELETE FROM points WHERE idx = 1; UPDATE campaigns SET status = 'running'"
"$exe" run "$examples/hbm2-trace.yaml" --db "$work/lab.db" --resume >"$work/o" 2>&1 ||
	fail "resume: $(cat "$work/o")"
grep -q "2 points (1 run now, 1 stored before" "$work/o" || fail "resume: $(cat "$work/o")"
[ "$(trace_of lab 1)" = lab.traces/campaign1/point00001.sbt ] || fail "resume: no trace row"
[ "$(records_of "$work/lab.traces/campaign1/point00001.sbt")" = "$r1" ] || fail "resume: another trace"

# Two shards merged: the traces go along, beside the merged database, the same records.
for i in 0 1; do
	"$exe" run "$examples/hbm2-trace.yaml" --db "$work/s$i.db" --shard $i/2 >/dev/null 2>&1 ||
		fail "shard $i"
	[ "$(q s$i "SELECT count(*) FROM point_traces")" = 1 ] || fail "shard $i: point_traces"
done
"$exe" merge "$work/s0.db" "$work/s1.db" --into "$work/m.db" >"$work/o" 2>&1 ||
	fail "merge: $(cat "$work/o")"
for i in 0 1; do
	f=$(trace_of m $i)
	[ "$f" = "m.traces/campaign1/point0000$i.sbt" ] || fail "merged point $i's trace is '$f'"
	[ "$(records_of "$work/$f")" = "$(records_of "$work/$(trace_of lab $i)")" ] ||
		fail "merged point $i: not the single run's trace"
	"$exe" lifetimes "$work/$f" --json "$work/m$i.json" >/dev/null 2>&1 || fail "lifetimes merged $i"
	[ "$(json "$work/m$i.json" '$.subpartitions.pc1.lifetime_ns.mean')" = \
		"$(json "$work/l$i.json" '$.subpartitions.pc1.lifetime_ns.mean')" ] ||
		fail "merged point $i: other lifetimes"
done

# trace.ports: only port 1 recorded (pc0 is port 0's): no pc0 in the trace.
sed 's/^trace: .*/trace: {burst: 1024, gap: 15360, ports: "1"}/' "$examples/hbm2-trace.yaml" >"$work/p1.yaml"
"$exe" run "$work/p1.yaml" --db "$work/p1.db" >"$work/o" 2>&1 || fail "ports 1: $(cat "$work/o")"
[ "$(q p1 "SELECT group_concat(port_mask) FROM point_traces")" = 2,2 ] || fail "ports 1: port_mask"
"$exe" lifetimes "$work/$(trace_of p1 0)" --json "$work/p1.json" >/dev/null 2>&1 || fail "lifetimes p1"
[ "$(json "$work/p1.json" '$.subpartitions.pc0.reads')" = 0 ] &&
	[ "$(json "$work/p1.json" '$.subpartitions.pc1.reads')" -gt 500 ] || fail "ports 1: pc0 recorded"

# Refused, naming the line: the cube's banks, a DMA ring the card does not have.
for bad in "banks: true:line 15: key 'banks': an HBM2 card's trace has its pseudo channels" \
	"path: dma:line 15: key 'path': an HBM2 card's trace buffer is drained"; do
	sed "s/^trace: .*/trace:\n  burst: 64\n  ${bad%%:line*}/" "$examples/hbm2-trace.yaml" >"$work/bad.yaml"
	if "$exe" run "$work/bad.yaml" --db "$work/bad.db" >"$work/o" 2>&1; then fail "ran: ${bad%%:line*}"; fi
	grep -q "line${bad#*:line}" "$work/o" || fail "${bad%%:line*}: $(cat "$work/o")"
	[ ! -e "$work/bad.traces" ] || fail "${bad%%:line*}: a trace folder was made"
done
echo "$name: ok"
