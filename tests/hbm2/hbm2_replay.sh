#!/bin/sh
# 'stackbench replay' on an HBM2 card (issue 26, item 5): a capture -> replay round trip on
# sim:u280 and the refusals. The point: ports 0 and 1, a 50 % read / write mix of 64-byte
# transactions, captured whole (--trace-burst 0). Replayed in time order, every record is one
# AXI burst: the bursts replayed equal the records, per port as the trace has them, the bytes
# are 64 per record, and the bandwidth is the point's within 3 % (the replay's duration runs
# from the first descriptor to the last completion, the point's window is 20 us of the 40 us
# captured: measured 0.8 % apart). As fast as the ports accept it takes no longer. The CSV form
# of the trace replays the same. Refused with exit 4, naming the record and creating no JSON:
# a misaligned burst, more than 16 beats, a port the card does not have, a trace captured on
# the cube; --ring-log2 is a usage error (exit 2).
#   hbm2_replay.sh STACKBENCH
set -eu
sb=$1
name=hbm2.replay
dir=$(mktemp -d /tmp/sb-hbmrp.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
json() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
holds() { awk "BEGIN { exit !($1) }"; }

"$sb" point --device sim:u280 --trace "$dir/t.sbt" --trace-burst 0 --port-set 0-1 --op mix \
	--ws 1984 --burst 64 --duration-us 20 --json >"$dir/p.json" || fail "point --trace"
records=$(json "$dir/p.json" '$.trace.records')
[ "$(json "$dir/p.json" '$.trace.lost_records')" = 0 ] || fail "the capture lost records"
[ "$(json "$dir/p.json" '$.trace.executed')" = "$records" ] || fail "a sampled capture"
[ "$records" -gt 2000 ] || fail "$records records"
pgbps=$(json "$dir/p.json" '$.bandwidth_gbps')
# the trace's bursts per port, from its CSV form
"$sb" trace convert --to csv --out "$dir/t.csv" "$dir/t.sbt" >/dev/null 2>&1 || fail "convert"
u0=$(grep -v '^#' "$dir/t.csv" | awk -F, 'NR > 1 && $6 == 0' | wc -l)
u1=$(grep -v '^#' "$dir/t.csv" | awk -F, 'NR > 1 && $6 == 1' | wc -l)
[ $((u0 + u1)) = "$records" ] || fail "ports 0 and 1 hold $u0 + $u1 of $records records"

# 1. In time order.
"$sb" replay --device sim:u280 "$dir/t.sbt" --json "$dir/r.json" >"$dir/r.out" 2>&1 ||
	fail "replay: $(cat "$dir/r.out")"
r() { json "$dir/r.json" "$1"; }
[ "$(r '$.schema')" = stackbench-replay ] && [ "$(r '$.board')" = hbm2 ] || fail "schema"
[ "$(r '$.timed')" = 1 ] || fail "timed: $(r '$.timed')"
[ "$(r '$.records')" = "$records" ] || fail "records $(r '$.records')"
for k in requests issued completed; do
	[ "$(r "\$.$k")" = "$records" ] || fail "$k $(r "\$.$k"), $records records"
done
[ $(($(r '$.reads') + $(r '$.writes'))) = "$records" ] || fail "reads + writes"
[ "$(r '$.data_bytes')" = $((64 * records)) ] || fail "data_bytes $(r '$.data_bytes')"
[ "$(r '$.errors')" = 0 ] && [ "$(r '$.bad_descriptors')" = 0 ] || fail "errors / bad"
[ "$(r '$.fifo_depth')" = 512 ] || fail "fifo_depth"
[ "$(r '$.clock_hz')" = 450000000 ] || fail "clock_hz"
[ "$(r '$.ports[0].port')" = 0 ] && [ "$(r '$.ports[1].port')" = 1 ] &&
	[ "$(r '$.ports[2].port')" = "" ] || fail "ports: $(r '$.ports')"
[ "$(r '$.ports[0].bursts')" = "$u0" ] && [ "$(r '$.ports[0].requests')" = "$u0" ] ||
	fail "port 0: $(r '$.ports[0]'), $u0 in the trace"
[ "$(r '$.ports[1].bursts')" = "$u1" ] || fail "port 1: $(r '$.ports[1]'), $u1 in the trace"
rgbps=$(r '$.bandwidth_gbps')
holds "$rgbps > 0.97 * $pgbps && $rgbps < 1.03 * $pgbps" ||
	fail "replay $rgbps GB/s, point $pgbps GB/s"
holds "$(r '$.latency_min_ns') > 100 && $(r '$.latency_min_ns') <= $(r '$.latency_avg_ns') && $(r '$.latency_avg_ns') <= $(r '$.latency_max_ns')" ||
	fail "latency $(r '$.latency_min_ns') / $(r '$.latency_avg_ns') / $(r '$.latency_max_ns')"
# timed, its FIFO kept filled: no burst waited more than a few AXI cycles past its due time
holds "$(r '$.lag_max_ns') < 20" || fail "lag_max $(r '$.lag_max_ns') ns"
holds "$(r '$.duration_ns') >= $(r '$.trace_duration_ns')" || fail "shorter than the trace"
grep -Eq "^bursts +$records issued" "$dir/r.out" || fail "text: $(cat "$dir/r.out")"

# 2. As fast as the ports accept; the CSV form of the trace gives the same replay.
"$sb" replay --device sim:u280 --speed max "$dir/t.sbt" --json "$dir/m.json" >/dev/null 2>&1 ||
	fail "replay --speed max"
[ "$(json "$dir/m.json" '$.timed')" = 0 ] && [ "$(json "$dir/m.json" '$.issued')" = "$records" ] ||
	fail "--speed max: $(json "$dir/m.json" '$.issued') issued"
holds "$(json "$dir/m.json" '$.duration_ns') <= $(r '$.duration_ns')" || fail "untimed took longer"
"$sb" replay --device sim:u280 "$dir/t.csv" --json "$dir/c.json" >/dev/null 2>&1 || fail "csv"
[ "$(json "$dir/c.json" '$.issued')" = "$records" ] &&
	[ "$(json "$dir/c.json" '$.duration_ns')" = "$(r '$.duration_ns')" ] ||
	fail "the CSV form: $(json "$dir/c.json" '$.issued') issued in $(json "$dir/c.json" '$.duration_ns') ns"

# 3. Captured while replaying: every replayed burst is a record.
"$sb" replay --device sim:u280 --trace "$dir/rt.sbt" "$dir/t.sbt" --json "$dir/rt.json" \
	>/dev/null 2>&1 || fail "replay --trace"
[ "$(json "$dir/rt.json" '$.trace.records')" = "$records" ] &&
	[ "$(json "$dir/rt.json" '$.trace.executed')" = "$records" ] &&
	[ "$(json "$dir/rt.json" '$.trace.lost_records')" = 0 ] || fail "replay --trace: $(json "$dir/rt.json" '$.trace')"
"$sb" trace info "$dir/rt.sbt" | grep -q "^capture.subpartitions pc\$" || fail "rt.sbt"

# 4. Refused.
refused() { # FILE MESSAGE [OPTIONS]
	f=$1 msg=$2
	shift 2
	rc=0
	"$sb" replay --device sim:u280 "$@" "$f" --json "$dir/x.json" >"$dir/o" 2>&1 || rc=$?
	[ "$rc" = 4 ] || fail "$f: exit $rc: $(cat "$dir/o")"
	grep -q "$msg" "$dir/o" || fail "$f: $(cat "$dir/o")"
	[ ! -e "$dir/x.json" ] || fail "$f: JSON written"
}
printf 'time,addr,kind,size,unit\n0,0,read,64,0\n10,4096,write,512,1\n20,48,read,32,0\n' >"$dir/a.csv"
refused "$dir/a.csv" "record 3 is 32 bytes at 0x30: .*one AXI3 burst of 1..16 beats"
printf 'time,addr,kind,size,unit\n0,0,read,64,0\n10,8192,read,544,0\n' >"$dir/b.csv"
refused "$dir/b.csv" "record 2 is 544 bytes at 0x2000"
printf 'time,addr,kind,size,unit\n0,4064,write,64,0\n' >"$dir/c.csv"
refused "$dir/c.csv" "record 1 is 64 bytes at 0xfe0: .*within a 4 KiB page"
"$sb" point --device sim:u280 --port-set 20 --duration-us 2 --trace "$dir/p20.sbt" \
	--trace-burst 0 >/dev/null 2>&1 || fail "point on port 20"
rc=0
"$sb" replay --device 'sim:u280?ports=8' "$dir/p20.sbt" >"$dir/o" 2>&1 || rc=$?
[ "$rc" = 4 ] && grep -q "record 1 was issued by port 20, which this card does not have (8 ports)" "$dir/o" ||
	fail "port 20 on 8 ports: exit $rc: $(cat "$dir/o")"
"$sb" point --device sim: --duration-us 2 --trace "$dir/hmc.sbt" >/dev/null 2>&1 || fail "point on sim:"
refused "$dir/hmc.sbt" "captured on an HMC board"
rc=0
"$sb" replay --device sim: "$dir/t.sbt" >"$dir/o" 2>&1 || rc=$?
[ "$rc" = 4 ] && grep -q "captured on an HBM2 card" "$dir/o" || fail "HBM2 trace on the cube: $(cat "$dir/o")"
rc=0
"$sb" replay --device sim:u280 --ring-log2 8 "$dir/t.sbt" >"$dir/o" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "no descriptor ring" "$dir/o" || fail "--ring-log2: exit $rc"
echo "$name: ok ($records bursts replayed, $rgbps GB/s against the point's $pgbps)"
