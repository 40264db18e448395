#!/bin/sh
# instruments --probe on the replayed FLIR One (run under umockdev-run by run_replay.cmake): its
# readings are what the capture serves (with roi=all each hot spot is one real frame's
# maximum, flirone_replay_check is-max), and --snapshot saves the last frame's picture, checked
# pixel by pixel (snapshot_check: the frame's size x scale, the hot spot and a fixed ROI marked).
#   probe_flirone.sh STACKBENCH FLIRONE_REPLAY_CHECK SNAPSHOT_CHECK CHUNK_DIR
set -u
tool=$1 check=$2 snap=$3 chunks=$4
work=$(mktemp -d /tmp/sb-probe-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
field() { sed -n "s/.*\"$1\":[[:space:]]*\([-0-9.]*\).*/\1/p" "$2"; }

# The whole frame: three readings, each a frame's maximum.
"$tool" instruments --probe 'flirone:?roi=all' --count 3 --json --snapshot "$work/all.png" \
	>"$work/all.json" 2>"$work/err" || fail "probe: $(cat "$work/err")"
grep -q '"schema":[[:space:]]*"stackbench-probe"' "$work/all.json" || fail "schema: $(cat "$work/all.json")"
grep -q '"driver":[[:space:]]*"flirone"' "$work/all.json" || fail "driver"
[ "$(field hotspot_c "$work/all.json" | wc -l)" -eq 4 ] || fail "3 readings and the snapshot's hot spot expected"
for c in $(field hotspot_c "$work/all.json"); do
	"$check" is-max "$chunks" "$c" >/dev/null || fail "hot spot $c C is no frame's maximum"
done
# the snapshot is the last reading's frame: 80 x 60 pixels (the Gen-3 capture) x 4
w=$(sed -n '/"snapshot"/,/}/s/.*"width":[[:space:]]*\([0-9]*\).*/\1/p' "$work/all.json")
h=$(sed -n '/"snapshot"/,/}/s/.*"height":[[:space:]]*\([0-9]*\).*/\1/p' "$work/all.json")
[ "$w $h" = "320 240" ] || fail "snapshot size $w x $h"
hx=$(field hot_x "$work/all.json" | tail -1)
hy=$(field hot_y "$work/all.json" | tail -1)
hc=$(field hotspot_c "$work/all.json" | tail -1)
[ "$hc" = "$(field hotspot_c "$work/all.json" | sed -n 3p)" ] || fail "the snapshot is not the last reading"
"$snap" "$work/all.png" 80 60 4 "$hx" "$hy" "$hc" 0 0 0 0 || fail "snapshot (whole frame)"

# A fixed ROI, scale 2: its hot spot inside it, the outline where it was asked.
"$tool" instruments --probe 'flirone:?roi=10,8,30,20' --count 2 --snapshot "$work/roi.png" \
	--scale 2 --json >"$work/roi.json" 2>"$work/err" || fail "probe roi: $(cat "$work/err")"
hx=$(field hot_x "$work/roi.json" | tail -1)
hy=$(field hot_y "$work/roi.json" | tail -1)
hc=$(field hotspot_c "$work/roi.json" | tail -1)
[ "$hx" -ge 10 ] && [ "$hx" -lt 40 ] && [ "$hy" -ge 8 ] && [ "$hy" -lt 28 ] ||
	fail "hot spot ($hx, $hy) outside the ROI"
"$snap" "$work/roi.png" 80 60 2 "$hx" "$hy" "$hc" 10 8 30 20 || fail "snapshot (ROI)"

# Text: one line per reading.
"$tool" instruments --probe flirone: --count 2 >"$work/text" 2>&1 || fail "probe text: $(cat "$work/text")"
[ "$(grep -c ' s  hot spot .* C at (' "$work/text")" -eq 2 ] || fail "text: $(cat "$work/text")"
echo "ok: probe readings and snapshots"
