#!/bin/sh
# An HBM2 card's campaign through the daemon (issue 26, item 3): `stackbench submit` of
# examples/hbm2-switch.yaml runs on the daemon's sim: board through the same library call as
# `stackbench run`, and stores the same points (hbm_points) with the same values.
#   hbm2.sh STACKBENCH STACKBENCHD EXAMPLES_DIR
set -eu
name=daemon.hbm2
exe=$1 daemon=$2 examples=$3
. "$(dirname "$0")/lib.sh"

start_daemon
j=$("$exe" submit "$examples/hbm2-switch.yaml" --db "$work/d.db" 2>/dev/null) || fail "submit"
"$exe" follow "$j" >"$work/follow" 2>&1 || fail "follow: $(cat "$work/follow")"
grep -q "done: campaign 1 complete: 10 points" "$work/follow" || fail "follow: $(cat "$work/follow")"
# follow describes an HBM2 point by its engine settings, as run does
grep -q "point 2/10 read 512 B linear shift4 ports 0-1, 64 out: 14\.4" "$work/follow" ||
	fail "follow's point lines: $(cat "$work/follow")"
stop_daemon
"$exe" run "$examples/hbm2-switch.yaml" --db "$work/r.db" >/dev/null 2>&1 || fail "run"
pts() { "$exe" export --db "$1" --format csv --table hbm_points | cut -d, -f1-3,5-; }
pts "$work/r.db" >"$work/r.csv"
[ "$(wc -l <"$work/r.csv")" = 11 ] || fail "run: $(wc -l <"$work/r.csv") lines"
pts "$work/d.db" | cmp -s - "$work/r.csv" || fail "the daemon's points differ from run's"
g=$(sqlite3 "$work/d.db" "SELECT round(gbps / (SELECT gbps FROM hbm_points WHERE port_set = '0-1'
	AND target = 'local'), 2) FROM hbm_points WHERE port_set = '0-1' AND target = 'shift4'")
awk "BEGIN { exit !($g > 0.45 && $g < 0.6) }" || fail "shift4 / local = $g"
echo "$name: ok (shift4 / local $g)"
