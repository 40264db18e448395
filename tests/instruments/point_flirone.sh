#!/bin/sh
# A thermal point on a sim: board with the replayed FLIR One (run under umockdev-run by
# run_replay.cmake): the hot spot it reports is the maximum of one of the capture's real frames
# (which frame depends on how fast the replay is read, so any of them: one is 86 C).
#   point_flirone.sh STACKBENCH FLIRONE_REPLAY_CHECK CHUNK_DIR
set -u
tool=$1 check=$2 chunks=$3
fail() { echo "FAIL: $*"; exit 1; }
out=$("$tool" point --ports 1 --duration-s 5 --camera "flirone:?roi=all" --json 2>&1) ||
	fail "point: $out"
max=$(printf '%s\n' "$out" | sed -n 's/.*"temp_c_max":[[:space:]]*\([0-9.]*\).*/\1/p' | head -1)
[ -n "$max" ] || fail "no temp_c_max in: $out"
"$check" is-max "$chunks" "$max" || fail "the point's hot spot"
samples=$(printf '%s\n' "$out" | sed -n 's/.*"instrument_samples":[[:space:]]*\([0-9]*\).*/\1/p' | head -1)
[ "${samples:-0}" -ge 10 ] || fail "only ${samples:-0} instrument samples"
echo "ok: hot spot $max C over $samples samples"
