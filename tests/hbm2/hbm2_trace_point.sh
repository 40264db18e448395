#!/bin/sh
# 'stackbench point --trace' on an HBM2 card (issue 26, item 5): the point runs and its AXI
# bursts are captured into a sampled sbt, the pseudo channels its subpartitions, with the
# capture code 'stackbench capture' uses. The point: ports 0 and 1, each a 50 % read / write
# mix of 64-byte transactions walking 31 blocks of its own PC (--ws 1984), so a value written
# is read 31 transactions of its port later: the trace's lifetimes are 31 x 64 B at the port's
# bandwidth, which the point measures independently. A refused capture leaves an existing file
# as it was.
#   hbm2_trace_point.sh STACKBENCH
set -eu
sb=$1
name=hbm2.trace_point
dir=$(mktemp -d /tmp/sb-hbmtp.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
json() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
holds() { awk "BEGIN { exit !($1) }"; }
. "$(dirname "$0")/trace_lib.sh"

"$sb" point --device sim:u280 --trace "$dir/t.sbt" --trace-burst 512 --trace-gap 8000 \
	--port-set 0-1 --op mix --ws 1984 --burst 64 --duration-us 100 --json >"$dir/p.json" ||
	fail "point --trace"
[ "$(json "$dir/p.json" '$.schema')" = stackbench-hbm-point ] || fail "not an HBM2 point's JSON"
[ "$(json "$dir/p.json" '$.ports')" = 2 ] || fail "ports: $(json "$dir/p.json" '$.ports')"
[ "$(json "$dir/p.json" '$.trace.file')" = "$dir/t.sbt" ] || fail "trace.file"
[ "$(json "$dir/p.json" '$.trace.path')" = onchip ] || fail "trace.path"
records=$(json "$dir/p.json" '$.trace.records')
executed=$(json "$dir/p.json" '$.trace.executed')
bursts=$(json "$dir/p.json" '$.trace.bursts')
gbps=$(json "$dir/p.json" '$.bandwidth_gbps')
txns=$(json "$dir/p.json" '$.transactions')
[ "$(json "$dir/p.json" '$.trace.lost_records')" = 0 ] || fail "records lost"
# bursts of 512 records, the last one partial; one AXI burst per 64-byte transaction: the
# bursts executed (warm-up, window and drain) are more than the window's transactions
[ "$bursts" -ge 2 ] || fail "$bursts bursts"
[ "$records" -gt $(((bursts - 1) * 512)) ] && [ "$records" -le $((bursts * 512)) ] ||
	fail "$records records in $bursts bursts of 512"
[ "$executed" -gt "$txns" ] && [ "$executed" -gt "$records" ] ||
	fail "$executed bursts executed, $txns transactions, $records records"
d="$(json "$dir/p.json" '$.trace.density')"
holds "$d - $records / $executed < 1e-9 && $records / $executed - $d < 1e-9" ||
	fail "density $d"

"$sb" trace info "$dir/t.sbt" >"$dir/info" || fail "trace info"
grep -q "^records *$records\$" "$dir/info" || fail "trace info: not $records records"
grep -q "^capture.subpartitions pc\$" "$dir/info" || fail "trace info: subpartitions"
grep -q "^capture.ports 0-1\$" "$dir/info" || fail "trace info: the ports that issue are not the ports recorded"
grep -q "^capture.gap_cycles 8000\$" "$dir/info" || fail "trace info: gap"
grep -Eq "^device.uri +sim:u280$" "$dir/info" || fail "trace info: device"

check_lifetimes "$sb" "$dir/t.sbt" 31 "$gbps" "point --trace"
"$sb" locality "$dir/t.sbt" >"$dir/loc" || fail "locality"
grep -Eq "^pc1 +[0-9]+ +31 " "$dir/loc" || fail "locality: pc1 is not 31 blocks: $(grep '^pc1 ' "$dir/loc")"

# The text output names the trace; without --trace the JSON says "trace": null.
"$sb" point --device sim:u280 --port-set 3 --duration-us 20 --trace "$dir/u.sbt" >"$dir/text" ||
	fail "point --trace (text)"
grep -Eq "^trace +$dir/u.sbt: [0-9]+ records of [0-9]+ AXI bursts executed" "$dir/text" ||
	fail "text: $(cat "$dir/text")"
"$sb" trace info "$dir/u.sbt" | grep -q "^capture.ports 3\$" || fail "--port-set 3: the ports recorded"
"$sb" point --device sim:u280 --port-set 3 --duration-us 20 --json >"$dir/n.json" || fail "point"
[ "$(json "$dir/n.json" '$.trace')" = "" ] && grep -q '"trace":[[:space:]]*null' "$dir/n.json" ||
	fail "no trace: $(grep trace "$dir/n.json")"

# Refused: the cube's bank subpartitions, a --trace-* option without --trace; an existing
# file at the path is left as it was.
printf 'kept\n' >"$dir/keep.sbt"
if "$sb" point --device sim:u280 --port-set 0 --trace "$dir/keep.sbt" --trace-banks >"$dir/o" 2>&1; then
	fail "--trace-banks accepted"
fi
grep -q "pseudo channels as subpartitions" "$dir/o" || fail "--trace-banks: $(cat "$dir/o")"
[ "$(cat "$dir/keep.sbt")" = kept ] || fail "a refused capture changed the file"
if "$sb" point --device sim:u280 --trace-gap 100 >"$dir/o" 2>&1; then fail "--trace-gap alone"; fi
grep -q "the --trace-\* options need --trace OUT.sbt" "$dir/o" || fail "--trace-gap: $(cat "$dir/o")"
[ "$(find "$dir" -name '*.tmp*' | wc -l)" = 0 ] || fail "temporary files left: $(ls -a "$dir")"
echo "$name: ok ($records records in $bursts bursts, lifetimes of 31 transactions)"
