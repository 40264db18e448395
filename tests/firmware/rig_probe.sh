#!/bin/sh
# instruments --probe rig:TTY against the rig's real firmware in simavr (sb-rig-sim): the
# readings are what the simulated board serves — both fans' duties as the firmware drives them
# (its log), the heatsink and ambient thermocouples (45 C and 25 C on the simulated board) —
# and probing changes nothing (no configuration applied).
#   rig_probe.sh STACKBENCH SB_RIG_SIM RIG_ELF
set -eu
tool=$1 sim=$2 elf=$3
name=rig_probe
. "$(dirname "$0")/rig_sim_lib.sh"

start_rig_sim
"$tool" instruments --probe "rig:$link" --count 3 --interval-ms 300 --json >"$work/p.json" \
	2>"$work/err" || fail "probe: $(cat "$work/err")"
q() { sqlite3 :memory: "SELECT $1 FROM json_each(readfile('$work/p.json'), '\$.readings')"; }
[ "$(sqlite3 :memory: "SELECT json_extract(readfile('$work/p.json'), '\$.schema') || ' ' ||
	json_extract(readfile('$work/p.json'), '\$.role') || ' ' ||
	json_extract(readfile('$work/p.json'), '\$.driver') || ' ' ||
	json_array_length(readfile('$work/p.json'), '\$.readings')")" = "stackbench-probe cooling rig 3" ] ||
	fail "probe JSON: $(cat "$work/p.json")"
# the simulated board's thermocouples and the firmware's duties (its log: time, duty per fan
# as a fraction, rpm per fan, heatsink C)
hs=$(tail -1 "$work/sim.log" | awk '{ print $6 }')
d0=$(tail -1 "$work/sim.log" | awk '{ printf "%g", $2 * 100 }')
d1=$(tail -1 "$work/sim.log" | awk '{ printf "%g", $3 * 100 }')
[ "$(q "count(*)" | head -1)" = 3 ] || fail "3 readings"
bad=$(q "value ->> 'heatsink_c', value ->> 'ambient_c', value ->> '\$.fans[0].duty_pct',
	value ->> '\$.fans[1].duty_pct', json_array_length(value ->> 'fans')" |
	awk -F'|' -v hs="$hs" -v d0="$d0" -v d1="$d1" \
	'$1 != hs || $2 != 25 || $3 != d0 || $4 != d1 || $5 != 2 { print }')
[ -z "$bad" ] || fail "readings ($bad) are not the board's (heatsink $hs C, ambient 25 C, duties $d0 % $d1 %)"
echo "$name: ok (heatsink $hs C, duties $d0 % and $d1 %)"
