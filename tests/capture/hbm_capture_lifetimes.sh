#!/bin/sh
# Lifetimes of HBM2 traffic (issue 26, item 5): 'stackbench capture' on the simulated U280,
# then 'stackbench lifetimes' and 'locality' on its trace. The point: ports 0 and 1, each a
# 50 % read / write mix of 64-byte transactions walking 63 blocks of its own pseudo channel
# (--ws 4032: an odd number of blocks, so each block is written and read in turn). Every value
# is written, then read 63 transactions later: its lifetime is 63 transactions of its port,
# which the point's bandwidth gives independently (63 x 64 B over the per-port bandwidth).
#   hbm_capture_lifetimes.sh STACKBENCH
set -eu
sb=$1
dir=$(mktemp -d /tmp/sb-hbmlife.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "hbm_capture_lifetimes: FAIL: $*" >&2; exit 1; }
json() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }

"$sb" capture --device sim:u280 --trace "$dir/t.sbt" --port-set 0-1 --op mix --ws 4032 \
	--burst 64 --duration-us 100 --json >"$dir/cap.json" || fail "capture"
records=$(json "$dir/cap.json" '$.trace.records')
executed=$(json "$dir/cap.json" '$.trace.executed')
bursts=$(json "$dir/cap.json" '$.trace.bursts')
gbps=$(json "$dir/cap.json" '$.bandwidth_gbps')
# default sampling: full bursts of 1024 records, the last one partial
[ "$bursts" -ge 2 ] || fail "$bursts bursts"
[ "$records" -gt $(((bursts - 1) * 1024)) ] && [ "$records" -le $((bursts * 1024)) ] ||
	fail "$records records in $bursts bursts of 1024"
[ "$executed" -gt "$records" ] || fail "$records records of $executed executed"
"$sb" trace info "$dir/t.sbt" >"$dir/info.txt" || fail "trace info"
grep -q "^records *$records\$" "$dir/info.txt" || fail "trace info: not $records records"
grep -q "^capture.subpartitions pc\$" "$dir/info.txt" || fail "trace info: subpartitions"

"$sb" lifetimes "$dir/t.sbt" --json "$dir/l.json" >"$dir/l.txt" 2>&1 || fail "lifetimes"
for pc in pc0 pc1; do
	n=$(json "$dir/l.json" "\$.subpartitions.$pc.lifetimes")
	reads=$(json "$dir/l.json" "\$.subpartitions.$pc.reads")
	mean=$(json "$dir/l.json" "\$.subpartitions.$pc.lifetime_ns.mean")
	[ "$n" -gt 200 ] || fail "$pc: $n lifetimes"
	[ "$reads" -gt 500 ] || fail "$pc: $reads reads"
	# 63 transactions of 64 B at the port's bandwidth (GB/s = B/ns), within 10 %
	awk -v m="$mean" -v g="$gbps" 'BEGIN { e = 63 * 64 / (g / 2); exit !(m > 0.9 * e && m < 1.1 * e) }' ||
		fail "$pc: mean lifetime $mean ns, expected 63 x 64 B at $gbps / 2 GB/s"
done
for pc in pc2 pc31; do
	[ "$(json "$dir/l.json" "\$.subpartitions.$pc.reads")" -eq 0 ] || fail "$pc has reads"
	[ "$(json "$dir/l.json" "\$.subpartitions.$pc.lifetimes")" -eq 0 ] || fail "$pc has lifetimes"
done

"$sb" locality "$dir/t.sbt" >"$dir/loc.txt" || fail "locality"
grep -Eq "^pc0 +[0-9]+ +63 " "$dir/loc.txt" || fail "locality: pc0 is not 63 blocks of 64 B"
echo "hbm_capture_lifetimes: ok ($records records, $bursts bursts)"
