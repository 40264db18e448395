#!/bin/sh
# Lifetimes you can trust from a board (issue 23, item 2 and defect 3), on the simulated bench:
#   1. capture modes that keep the reuse (docs/traces-on-the-board.md, "Captures for
#      lifetimes"): a narrow address window with the default bursts, and linear addresses over
#      a small range captured completely. Their lifetimes are not empty, and they are the ones
#      an independent count over the capture's own records gives (awk below: the rules of
#      docs/lifetimes.md applied record by record);
#   2. the default capture of random GUPS traffic: no lifetime, and the text, the JSON and
#      devices.png say so and why;
#   3. a complete capture (--trace-gap 0, replay --trace) is reported as one (density 1) by
#      lifetimes and trace info, never "density unknown".
#   capture_lifetimes.sh STACKBENCH
set -eu
sb=$1
dir=$(mktemp -d /tmp/sb-caplife.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "capture_lifetimes: FAIL: $*" >&2; exit 1; }
# jq-like access with sqlite3's JSON functions (sqlite3 is a dependency of the tests)
json() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
jlen() { sqlite3 :memory: "SELECT json_array_length(readfile('$1'), '$2')"; }

# The lifetimes of vault0 counted from the records (CSV of the capture): per sample (window),
# at 16-byte blocks; a time stamp's writes before its reads; a write ends the value at its
# block (a lifetime from its write to its last read, or a zero-read value); a read of no live
# value is unbacked; the end of a window, and of the capture, cuts the live values (censored).
# Prints "lifetimes unbacked zero censored censored_read min max sum" and the lifetimes, one
# per line, into $2.
count() {
	awk -F, -v out="$2" '
	function flush(   i) {
		for (i = 0; i < nw; i++) write(wk[i], wt[i]);
		for (i = 0; i < nr; i++) read(rk[i], rt[i]);
		nw = 0; nr = 0;
	}
	function cut(   k) {
		for (k in live) { censored++; if (nread[k]) censored_read++ }
		delete live; delete nread; delete start; delete last;
	}
	function write(k, t) {
		if (k in live) {
			if (nread[k]) {
				l = last[k] - start[k]; n++; sum += l; print l > out;
				if (n == 1 || l < min) min = l; if (n == 1 || l > max) max = l;
			} else zero++;
		}
		live[k] = 1; start[k] = t; nread[k] = 0;
	}
	function read(k, t) {
		if (k in live) { nread[k]++; last[k] = t } else unbacked++;
	}
	/^#/ || $1 == "time" { next }
	$2 != "vault0" { next }
	{
		t = $1 + 0; s = $7 + 0; k = int($3 / 16);
		if (started && (s != sample || t != time)) flush();
		if (started && s != sample) cut();
		started = 1; sample = s; time = t;
		if ($5 == "write") { wk[nw] = k; wt[nw++] = t } else if ($5 == "read") { rk[nr] = k; rt[nr++] = t }
	}
	END { flush(); cut(); print n + 0, unbacked + 0, zero + 0, censored + 0, censored_read + 0, min + 0, max + 0, sum + 0 }
	' "$1"
}

# check NAME TRACE: lifetimes' JSON for vault0 against the independent count
check() {
	name=$1 t=$2
	"$sb" lifetimes "$t" --json "$dir/$name.json" >"$dir/$name.txt" 2>&1 ||
		fail "$name: lifetimes: $(cat "$dir/$name.txt")"
	"$sb" trace convert --to csv -o "$dir/$name.csv" "$t" >/dev/null 2>&1 ||
		fail "$name: trace convert"
	set -- $(count "$dir/$name.csv" "$dir/$name.life")
	[ "$1" -ge 100 ] || fail "$name: only $1 lifetimes counted from the records"
	v='$.subpartitions.vault0'
	for pair in "lifetimes:$1" "unbacked_reads:$2" "zero_read_values:$3" \
		"censored_values:$4" "censored_read_values:$5" "lifetime_cycles.min:$6" \
		"lifetime_cycles.max:$7"; do
		key=${pair%%:*} want=${pair#*:}
		got=$(json "$dir/$name.json" "$v.$key")
		[ "$got" = "$want" ] || fail "$name: $key $got, the records give $want"
	done
	mean=$(json "$dir/$name.json" "$v.lifetime_cycles.mean")
	median=$(json "$dir/$name.json" "$v.lifetime_cycles.median")
	sort -n "$dir/$name.life" | awk -v n="$1" -v sum="$8" -v mean="$mean" -v med="$median" '
		{ x[NR - 1] = $1 }
		END {
			h = (n - 1) * 0.5; lo = int(h); m = x[lo] + (h - lo) * (x[lo + 1] - x[lo]);
			if (m != med) { printf "median %s, the records give %s\n", med, m; exit 1 }
			if ((mean - sum / n) ^ 2 > (1e-9 * mean) ^ 2) {
				printf "mean %s, the records give %s\n", mean, sum / n; exit 1 }
		}' || fail "$name: order statistics"
	[ "$(json "$dir/$name.json" '$.subpartitions.vault0.lifetime_basis')" = enough ] ||
		fail "$name: vault0 basis"
	[ "$(jlen "$dir/$name.json" '$.warnings')" = 0 ] ||
		fail "$name: warnings $(json "$dir/$name.json" '$.warnings')"
	! grep -q "nan" "$dir/$name.txt" || fail "$name: nan in the summary"
	grep -q "(15 subpartitions without accesses not shown)" "$dir/$name.txt" ||
		fail "$name: rows for the empty vaults: $(cat "$dir/$name.txt")"
	echo "capture_lifetimes: $name: $1 lifetimes, median $median cycles, as the records give"
}

# 1a. A narrow address window (vault 0, address bits 16..33 forced to 0: 32 blocks of 128 B)
#     with the default bursts of 1024 records and gaps of 15360 cycles.
"$sb" point --type rw --pattern 1vault --mask 16-33 --duration-us 1000 --trace "$dir/narrow.sbt" \
	--no-instruments >"$dir/narrow.out" 2>&1 || fail "point: $(cat "$dir/narrow.out")"
check narrow "$dir/narrow.sbt"
[ "$(json "$dir/narrow.json" '$.sampling.sampled')" = 1 ] || fail "narrow: not sampled"
# retention in one format in every row (8017 and 1e+04 before)
awk '$2 ~ /gcram/ && $3 !~ /^[0-9]+\.[0-9]$/ { bad = 1 } END { exit bad }' "$dir/narrow.txt" ||
	fail "retention format: $(cat "$dir/narrow.txt")"
grep -Eq "^vault0 +sram +static +" "$dir/narrow.txt" || fail "static retention"

# 1b. Linear addresses over 8 blocks, every request captured (one window).
"$sb" point --type rw --pattern 1vault --mask 14-33 --mode linear --duration-us 300 \
	--trace-burst 0 --trace-gap 0 --trace "$dir/linear.sbt" --no-instruments \
	>"$dir/linear.out" 2>&1 || fail "point: $(cat "$dir/linear.out")"
check linear "$dir/linear.sbt"
records=$(json "$dir/linear.json" '$.records')

# 3. ... and it is a complete capture: density 1, never "density unknown"
grep -q "complete capture: $records records of $records accesses executed (density 1), 1 window" \
	"$dir/linear.txt" || fail "complete capture: $(head -3 "$dir/linear.txt")"
! grep -q "density unknown" "$dir/linear.txt" || fail "density unknown"
[ "$(json "$dir/linear.json" '$.sampling.executed')" = "$records" ] || fail "sampling.executed"
"$sb" trace info "$dir/linear.sbt" >"$dir/linear.info"
grep -q "^captured     $records of $records accesses executed (density 1): a complete capture" \
	"$dir/linear.info" || fail "trace info: $(head -6 "$dir/linear.info")"
# replay --trace captures every request too
printf 'time,subpartition,addr,size,kind\n0,b,0,64,write\n10,b,0,64,read\n20,b,4096,64,write\n30,b,4096,64,read\n' \
	>"$dir/small.csv"
"$sb" replay "$dir/small.csv" --select all --trace "$dir/m.sbt" >"$dir/rep.out" 2>&1 ||
	fail "replay: $(cat "$dir/rep.out")"
"$sb" lifetimes "$dir/m.sbt" >"$dir/m.txt" 2>&1 || fail "lifetimes of the replay: $(cat "$dir/m.txt")"
grep -q "complete capture: 4 records of 4 accesses executed (density 1)" "$dir/m.txt" ||
	fail "replay --trace: $(head -3 "$dir/m.txt")"
"$sb" trace info "$dir/m.sbt" | grep -q "^captured     4 of 4 accesses executed (density 1)" ||
	fail "trace info of the replay's capture"

# 2. The default capture of random GUPS traffic: every read unbacked, every value cut by the
#    gaps: no lifetime, and every output says so.
"$sb" point --type rw --duration-us 300 --trace "$dir/random.sbt" --no-instruments \
	>"$dir/random.out" 2>&1 || fail "point: $(cat "$dir/random.out")"
"$sb" lifetimes "$dir/random.sbt" --json "$dir/random.json" --plots "$dir/figs" \
	>"$dir/random.txt" 2>&1 || fail "lifetimes: $(cat "$dir/random.txt")"
grep -q "^warning: no lifetime in 16 of 16 subpartitions with accesses (vault0, vault1, vault2, vault3 and 12 more): .*100.0 % of the capacity the composition places, rest on no lifetimes" \
	"$dir/random.txt" || fail "no warning: $(cat "$dir/random.txt")"
grep -Eq "^warning: why: ([0-9]+) of \\1 reads unbacked \\(no value written earlier in their burst\\), ([0-9]+) of \\2 values cut by the sampling gaps .*the capture's bursts \\(1024 records, about [0-9.]+ µs each at the measured [0-9.]+ requests per cycle\\) are shorter than the reuse, and its gaps \\(15360 cycles, 81.9 µs\\) hide it" \
	"$dir/random.txt" || fail "no explanation: $(grep warning "$dir/random.txt")"
grep -Eq "^vault0 +si-gcram +1000.0 +- +41.97 +~33.23$" "$dir/random.txt" ||
	fail "device rows unmarked: $(cat "$dir/random.txt")"
grep -q "^composition (all subpartitions): area ~41.97 %, energy ~33.23 % of sram" \
	"$dir/random.txt" || fail "composition unmarked"
[ "$(jlen "$dir/random.json" '$.warnings')" = 2 ] ||
	fail "JSON warnings: $(json "$dir/random.json" '$.warnings')"
json "$dir/random.json" '$.warnings[1]' | grep -q "shorter than the reuse" || fail "JSON why"
[ "$(json "$dir/random.json" '$.subpartitions.vault3.lifetime_basis')" = none ] || fail "basis"
[ "$(json "$dir/random.json" '$.composition.weak_capacity_share')" = 1 ] || fail "weak share"
[ "$(json "$dir/random.json" '$.composition.lifetimes')" = 0 ] || fail "composition lifetimes"
grep -q "^si-gcram .* 1$" "$dir/figs/devices.dat" && grep -q "^sram .* 0$" "$dir/figs/devices.dat" &&
	grep -q "^composition .* 1$" "$dir/figs/devices.dat" || fail "devices.dat: $(cat "$dir/figs/devices.dat")"
grep -q "set label 1 \"~ rests on no lifetime at all (threshold 100 per subpartition):" "$dir/figs/plots.gp" &&
	grep -q "from too few lifetimes'" "$dir/figs/plots.gp" || fail "devices.png: no mark"
test -s "$dir/figs/devices.png" || fail "no devices.png"
echo "capture_lifetimes: ok"
