#!/bin/sh
# End to end with the cooling rig: the real firmware in simavr on a pty (sb-rig-sim), the host
# driver (rig:) in a thermal campaign on a sim: board, then the host killed with -9 mid-point:
# the firmware takes the fans to 100 % after its silence limit, the next host finds the
# host-silence fault latched, and the campaign resumes with nothing lost.
#   rig_e2e.sh STACKBENCH_EXE SB_RIG_SIM_EXE RIG_ELF EXAMPLES_DIR
set -eu
exe=$1 sim=$2 elf=$3 examples=$4
name=rig_e2e
. "$(dirname "$0")/rig_sim_lib.sh"
db=$work/r.db
q() { sqlite3 "$db" "$1" 2>/dev/null || echo 0; }
silence=2

start_rig_sim

# The example campaign checks out against the rig (a dry run opens it and the sim: board), with
# only the rig's tty changed.
sed "s|rig:/dev/ttyUSB0|rig:$link|" "$examples/rig-thermal.yaml" >"$work/example.yaml"
"$exe" run "$work/example.yaml" --dry-run >"$work/dry" 2>&1 || fail "dry run: $(cat "$work/dry")"
grep -q "12 points" "$work/dry" || fail "example: $(cat "$work/dry")"

# A single point with the rig as the cooling actuator: the text says what the rig knows (its
# fans' duty and speed, its thermocouples) and nothing it does not (no "nan")
"$exe" point --rig "rig:$link" --cooling Cfg2 --duration-s 1 >"$work/point" 2>&1 ||
	fail "point with the rig: $(cat "$work/point")"
grep -Eq "^cooling    Cfg2: fan 0 [0-9]+ % [0-9]+ rpm, fan 1 [0-9]+ % [0-9]+ rpm.*heatsink [0-9.]+ C, ambient [0-9.]+ C" "$work/point" ||
	fail "point's cooling line: $(grep cooling "$work/point")"
! grep -qi nan "$work/point" || fail "nan in the point's output: $(cat "$work/point")"
# ... and with --settle: the point waits until the heatsink stayed within the tolerance over
# the window (1 s of the rig's clock; the simulated heatsink's time constant is 0.5 s)
"$exe" point --rig "rig:$link" --cooling Cfg3 --settle 1 --settle-tolerance 0.5 --settle-max 30 \
	--duration-s 1 >"$work/point" 2>&1 || fail "point --settle: $(cat "$work/point")"
grep -Eq "^settle     heatsink [0-9.]+ C, moved 0\.[0-5][0-9] C over the window: settled after [1-9][0-9.]* s" "$work/point" ||
	fail "point --settle: $(grep -E 'settle|cooling' "$work/point")"
"$exe" point --rig "rig:$link" --cooling Cfg3 --duration-s 1 --json >"$work/point.json" 2>&1 ||
	fail "point --json: $(cat "$work/point.json")"
grep -q '"settle":[[:space:]]*null' "$work/point.json" || fail "no wait without --settle"

cat >"$work/c.yaml" <<YAML
name: rig-e2e
kind: thermal
bench: {device: "sim:"}
instruments:
  temperature: "sim:"
  power: "sim:"
  cooling: "rig:$link?silence_s=$silence&heatsink_max_c=90"
durations: {thermal_s: 120}
sample_interval_ms: 500
cooling_settle: {tolerance_c: 0.3, window_s: 1, max_s: 30, poll_s: 0.2}
sweep:
  cooling: [Cfg3, Cfg1]
  ports: [0, all]
  type: ro
YAML

# 1. Run, and kill -9 while the second point (Cfg3, traffic) runs.
"$exe" run "$work/c.yaml" --db "$db" >"$work/run1" 2>&1 &
pid=$!
tries=0
while [ "$(q "SELECT count(*) FROM points")" -lt 1 ]; do
	kill -0 "$pid" 2>/dev/null || fail "the run ended before the kill: $(cat "$work/run1")"
	tries=$((tries + 1))
	[ "$tries" -lt 600 ] || fail "no point stored after 60 s: $(cat "$work/run1")"
	sleep 0.1
done
sleep 0.5
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
kill_ms=$(tail -1 "$work/sim.log" | cut -d' ' -f1)
# The fans ran Cfg3 (54.2 % and 50 %) when the host died.
tail -1 "$work/sim.log" | awk '{ exit !($2 > 0.53 && $2 < 0.55 && $3 > 0.49 && $3 < 0.51) }' ||
	fail "Cfg3 duties at the kill: $(tail -1 "$work/sim.log")"
[ "$(q "SELECT count(*) FROM points")" = 1 ] || fail "killed after one point: $(q "SELECT idx FROM points")"

# 2. The firmware, alone, takes the fans to 100 % after the silence limit.
tries=0
until awk -v k="$kill_ms" '$1 > k && $2 >= 0.999 && $3 >= 0.999 { found = 1 } END { exit !found }' "$work/sim.log"; do
	tries=$((tries + 1))
	[ "$tries" -lt 50 ] || fail "the fans did not go to 100 % after the host died"
	sleep 0.1
done
full_ms=$(awk -v k="$kill_ms" '$1 > k && $2 >= 0.999 && $3 >= 0.999 { print $1; exit }' "$work/sim.log")
react=$((full_ms - kill_ms))
echo "rig_e2e: host killed at t=${kill_ms} ms; fans at 100 % at t=${full_ms} ms: ${react} ms (silence limit ${silence} s, keep-alive every $((silence * 250)) ms, log every 100 ms)"
[ "$react" -ge $((silence * 1000 - 400)) ] && [ "$react" -le $((silence * 1000 + 400)) ] ||
	fail "fail-safe ${react} ms after the kill, expected about ${silence} s"

# 3. The next host finds the host-silence fault latched, clears it, and drives the fans.
"$exe" --log-level info point --rig "rig:$link?silence_s=$silence" --cooling Cfg2 --duration-s 1 \
	>"$work/point" 2>&1 || fail "point with the rig: $(cat "$work/point")"
grep -q "clearing host silence" "$work/point" || fail "no host-silence fault latched: $(cat "$work/point")"

# 4. Resume: the point in progress runs again, nothing is lost or run twice.
"$exe" run "$work/c.yaml" --db "$db" --resume >"$work/run2" 2>&1 || fail "resume: $(cat "$work/run2")"
grep -q "complete: 4 points" "$work/run2" || fail "resume: $(cat "$work/run2")"
[ "$(q "SELECT count(*) || ' ' || count(DISTINCT idx) || ' ' || sum(failed) FROM points")" = "4 4 0" ] ||
	fail "points: $(q "SELECT idx, attempt, failed FROM points"); events: $(q "SELECT kind, message FROM events WHERE kind NOT IN ('start', 'resume', 'settled')")"
[ "$(q "SELECT group_concat(cooling_config, ',') FROM (SELECT cooling_config FROM points ORDER BY idx)")" = "Cfg3,Cfg3,Cfg1,Cfg1" ] ||
	fail "cooling: $(q "SELECT idx, cooling_config FROM points")"
# The heatsink thermocouple with every sample; hotter in Cfg3 than in Cfg1 (model: 59 C, 45 C).
[ "$(q "SELECT count(*) FROM samples WHERE heatsink_c IS NULL")" = 0 ] || fail "samples without the heatsink"
[ "$(q "SELECT count(*) FROM samples")" -gt 800 ] || fail "samples: $(q "SELECT count(*) FROM samples")"
[ "$(q "SELECT round(avg(s.heatsink_c)) FROM samples s JOIN points p ON p.id = s.point_id WHERE p.idx = 1")" = 59.0 ] ||
	fail "Cfg3 heatsink: $(q "SELECT avg(s.heatsink_c) FROM samples s JOIN points p ON p.id = s.point_id WHERE p.idx = 1")"
[ "$(q "SELECT round(avg(s.heatsink_c)) FROM samples s JOIN points p ON p.id = s.point_id WHERE p.idx = 3")" = 45.0 ] ||
	fail "Cfg1 heatsink: $(q "SELECT avg(s.heatsink_c) FROM samples s JOIN points p ON p.id = s.point_id WHERE p.idx = 3")"
# Settled after each change (Cfg3 in each run, Cfg1 once), by the criterion.
[ "$(q "SELECT count(*) FROM events WHERE kind = 'settled' AND json_extract(data, '\$.settled') = 1 AND json_extract(data, '\$.span_c') <= 0.3 AND json_extract(data, '\$.seconds') >= 1")" = 3 ] ||
	fail "settle events: $(q "SELECT point_idx, data FROM events WHERE kind = 'settled'")"
[ "$(q "SELECT count(*) FROM events WHERE kind IN ('rig_fault', 'recovery_failed', 'error')")" = 0 ] ||
	fail "unexpected events: $(q "SELECT kind, message FROM events")"
echo "rig_e2e: ok ($(q "SELECT count(*) FROM samples") samples; settled in $(q "SELECT group_concat(round(json_extract(data, '\$.seconds'), 1), ' s, ') FROM events WHERE kind = 'settled'") s)"
