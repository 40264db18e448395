#!/bin/sh
# The analysis commands' text and figures (issue 23, defects 13, 16, 17):
#   - a CSV whose records go back in time is sorted with one visible line on standard error
#     (without -v), once per file however often the analysis opens it;
#   - locality prints '-' for a mean reuse that does not exist (JSON null), never "~0";
#   - lifetimes marks results from too few lifetimes, prints no rows for subpartitions without
#     accesses and no "nan";
#   - the miss-ratio axis is labelled in binary units (not 1.04858e+06), the footprint curves
#     stay under the top frame.
#   text_output.sh STACKBENCH DATA_DIR
set -eu
sb=$1 data=$2
dir=$(mktemp -d /tmp/sb-text.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "text_output: FAIL: $*" >&2; exit 1; }
ooo=$data/out-of-order.csv

# defect 13: visible, one line, the count
for cmd in "lifetimes" "locality --threads 2" "trace info"; do
	$sb $cmd "$ooo" >"$dir/out" 2>"$dir/err" || fail "$cmd: $(cat "$dir/err")"
	[ "$(grep -c "out-of-order.csv': 2 of 8 records go back in time (by up to 2 ticks): sorted by time" "$dir/err")" = 1 ] ||
		fail "$cmd: the notice is not one line on standard error: $(cat "$dir/err")"
done

# defect 17: locality, '-' where there is no reuse (and the JSON's null)
"$sb" locality "$ooo" --json "$dir/loc.json" >"$dir/loc.txt" 2>/dev/null
grep -Eq "^cold +2 +2 +128 B +- +2 +1$" "$dir/loc.txt" || fail "locality: $(cat "$dir/loc.txt")"
grep -Eq "^cold +1 +0x1000 +0x103f +50.0~ +12.5~ +-$" "$dir/loc.txt" || fail "hot region"
! grep -Eq "^cold .*~0" "$dir/loc.txt" || fail "~0 for cold"
[ "$(sqlite3 :memory: "SELECT json_type(readfile('$dir/loc.json'), '\$.subpartitions.cold.reuse.mean')")" = null ] ||
	fail "JSON mean of cold: $(head -c 300 "$dir/loc.json")"

# lifetimes: too few lifetimes marked, '-' for none, the why
"$sb" lifetimes "$ooo" >"$dir/lt.txt" 2>/dev/null
grep -Eq "^spm +si-gcram +1000.0 +~100.00 +41.97 +~33.23$" "$dir/lt.txt" || fail "spm: $(cat "$dir/lt.txt")"
grep -Eq "^cold +si-gcram +1000.0 +- +41.97 +~33.23$" "$dir/lt.txt" || fail "cold"
grep -q "^warning: no lifetime in 1 of 2 subpartitions with accesses (cold); fewer than 100 lifetimes in 1 of 2 (spm)" \
	"$dir/lt.txt" || fail "no warning"
grep -q "^warning: why: 1 of 4 reads unbacked (no value written before them) and 1 of 4 values never read" \
	"$dir/lt.txt" || fail "no why"
! grep -qi "nan" "$dir/lt.txt" || fail "nan"
# enough lifetimes (4, with --min-events 1): no warning, no mark
"$sb" lifetimes --min-events 1 "$data/flush-order.csv" >"$dir/ok.txt"
! grep -q "warning" "$dir/ok.txt" || fail "a warning with enough lifetimes: $(cat "$dir/ok.txt")"
grep -Eq "^spm +si-gcram +1000.0 +100.00 +41.97 +33.23$" "$dir/ok.txt" || fail "$(cat "$dir/ok.txt")"

# defect 16: 20,000 blocks of 64 B (1.2 MiB) read once each, then again
awk 'BEGIN { print "time,subpartition,addr,size,kind";
	for (i = 0; i < 40000; i++) printf "%d,m,%d,64,read\n", i, (i % 20000) * 64 }' >"$dir/big.csv"
"$sb" locality "$dir/big.csv" --plots "$dir/figs" >/dev/null 2>&1 || fail "locality --plots"
grep -q 'set xtics ("64 B" 64, "256 B" 256, "1 KiB" 1024, .*"1 MiB" 1048576' "$dir/figs/plots.gp" ||
	fail "miss-ratio tics: $(grep xtics "$dir/figs/plots.gp")"
! grep -q "e+0" "$dir/figs/plots.gp" || fail "exponents in the figures: $(grep "e+0" "$dir/figs/plots.gp")"
# the footprint's range has room above the highest curve (1.3 x), not gnuplot's autoscale
top=$(awk '!/^#/ { m = $3 > m ? $3 : m; m = $4 > m ? $4 : m } END { print m }' "$dir/figs/footprint.dat")
grep -q "set yrange \[0:$(awk -v t="$top" 'BEGIN { printf "%.6g", 1.3 * t }')\]" "$dir/figs/plots.gp" ||
	fail "footprint range: top $top, $(grep yrange "$dir/figs/plots.gp")"
for f in miss-ratio.png footprint.png reuse.png; do test -s "$dir/figs/$f" || fail "no $f"; done
echo "text_output: ok"
