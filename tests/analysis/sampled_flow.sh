#!/bin/sh
# Integration: a sampled trace with per-vault subpartitions, made with the writer API (as a
# capture on the board writes one), through `trace info`, `lifetimes` and `locality`: the
# sampling density is reported, lifetimes do not span the gaps (values cut by them are
# censored), frequencies are interpolated, the tree's leaves are the samples, figures are drawn;
# at a density below the threshold every result is flagged and marked '~'.
#   sampled_flow.sh STACKBENCH MAKE_SAMPLED_TRACE
set -eu
sb=$1 make=$2
dir=$(mktemp -d /tmp/sb-sampled.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "sampled_flow: $*" >&2; exit 1; }
# "key": value, as cJSON prints it
has() { grep -Eq "\"$2\":[[:space:]]*$3" "$1" || fail "$1: no \"$2\": $3"; }

"$make" "$dir/t.sbt" 64 97
"$sb" trace info "$dir/t.sbt" > "$dir/info.txt"
grep -q "records      65536" "$dir/info.txt" || fail "trace info: $(cat "$dir/info.txt")"
grep -q "density 0.01031" "$dir/info.txt" || fail "trace info density: $(cat "$dir/info.txt")"

# lifetimes: 64 samples, 1 in 97 accesses captured
"$sb" lifetimes "$dir/t.sbt" --json "$dir/l.json" > "$dir/l.txt"
grep -q "sampled: 65536 records of 6356992 accesses executed (density 0.01031), 64 bursts" \
	"$dir/l.txt" || fail "lifetimes summary: $(head -5 "$dir/l.txt")"
grep -q "read sample by sample (64 windows)" "$dir/l.txt" || fail "no windows line"
has "$dir/l.json" schema_version '"2.0"'
has "$dir/l.json" sampled true
has "$dir/l.json" density '0.0103092783'
has "$dir/l.json" windows 64
has "$dir/l.json" windowed true
has "$dir/l.json" censored_values '[1-9][0-9]*'
has "$dir/l.json" time_scale '0.0103'
# vault0 has its own executed count (executed.vault0): its density is its own
grep -Eq '"vault0":' "$dir/l.json" || fail "no vault0"

# locality: the tree's leaves are the 64 samples
"$sb" locality "$dir/t.sbt" --json "$dir/c.json" --plots "$dir/figs" > "$dir/c.txt"
grep -q "interval tree: 64 leaves of 1 samples, 7 levels" "$dir/c.txt" ||
	fail "locality summary: $(cat "$dir/c.txt")"
has "$dir/c.json" schema '"stackbench-locality"'
has "$dir/c.json" leaves '"samples"'
has "$dir/c.json" windows 64
has "$dir/c.json" accesses 65536
for f in reuse.png miss-ratio.svg footprint.png plots.gp; do
	test -s "$dir/figs/$f" || fail "no figure $f"
done

# a density of 1 in 5000: below 0.001, every result flagged and marked
"$make" "$dir/low.sbt" 16 5000
"$sb" lifetimes "$dir/low.sbt" > "$dir/low.txt"
grep -q "~ marks subpartitions whose results come from too little data" "$dir/low.txt" ||
	fail "no low-confidence mark: $(cat "$dir/low.txt")"
"$sb" locality "$dir/low.sbt" --json "$dir/lowc.json" > "$dir/lowc.txt"
grep -q "~" "$dir/lowc.txt" || fail "locality: no '~'"
if grep -Eq '"confident":[[:space:]]*true' "$dir/lowc.json"; then
	fail "a result at density 0.0002 is confident"
fi
echo "sampled_flow: ok"
