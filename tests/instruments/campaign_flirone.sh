#!/bin/sh
# The thermal-failure example campaign with the camera replaced by the replayed FLIR One (run
# under umockdev-run by run_replay.cmake) and the simulated bench's meter: the results database
# holds the hot spots of the real frames. The scene of the capture does not cool when the
# simulated cube fails, so the recovery gives up and the run stops with exit 1, as it would on
# a bench whose camera looks at the wrong thing; every point stored before stays stored.
#   campaign_flirone.sh STACKBENCH EXAMPLE WORKDIR
set -u
tool=$1 example=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$work" && rm -f "$work/tf.db"
sed 's|^  temperature: .*|  temperature: "flirone:?roi=all"|' "$example" > "$work/tf.yaml"
grep -q '"flirone:?roi=all"' "$work/tf.yaml" || fail "could not set the camera"
"$tool" run "$work/tf.yaml" --db "$work/tf.db" > "$work/out" 2>&1
rc=$?
cat "$work/out"
[ "$rc" -eq 1 ] || fail "exit $rc, expected 1 (recovery cannot cool a static scene)"
q() { sqlite3 "$work/tf.db" "$1"; }
n=$(q "select count(*) from samples where temp_c is not null")
low=$(q "select count(*) from samples where temp_c < 43.7 or temp_c > 86.0")
distinct=$(q "select count(distinct round(temp_c, 4)) from samples")
points=$(q "select count(*) from points")
echo "samples with a temperature: $n, outside the capture's frame maxima: $low, distinct: $distinct, points: $points"
[ "$n" -gt 100 ] || fail "too few samples with a temperature"
[ "$low" -eq 0 ] || fail "temperatures that are no real frame's maximum"
[ "$distinct" -ge 5 ] || fail "the camera's frames did not change"
[ "$points" -ge 4 ] || fail "points stored before the failure are missing"
q "select kind from events" | grep -q thermal_failure || fail "no thermal_failure event"
q "select kind from events" | grep -q recovery_failed || fail "no recovery_failed event"
echo "ok"
