# Shared by the tests that run the rig's firmware in simavr (sourced): a temporary folder
# ($work, removed at exit with sb-rig-sim stopped) and start_rig_sim, which starts sb-rig-sim on
# a pty linked at $link (its log of duties in $work/sim.log) and waits for it. The caller sets
# name (for messages), sim (sb-rig-sim) and elf (the firmware), and may define fail_hook.
work=$(mktemp -d "/tmp/sb-$name-XXXXXX")
link=$work/rig-tty
simpid=
cleanup() {
	[ -z "$simpid" ] || kill "$simpid" 2>/dev/null || true
	[ -z "$simpid" ] || wait "$simpid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() {
	echo "$name: FAIL: $*" >&2
	[ -f "$work/sim.log" ] && tail -5 "$work/sim.log" >&2
	exit 1
}

# start_rig_sim: the firmware in simavr, the heatsink's time constant 0.5 s
start_rig_sim() {
	"$sim" --elf "$elf" --link "$link" --log "$work/sim.log" --tau-s 0.5 >"$work/sim.out" 2>&1 &
	simpid=$!
	tries=0
	until [ -e "$link" ]; do
		tries=$((tries + 1))
		[ "$tries" -lt 100 ] || fail "sb-rig-sim did not start: $(cat "$work/sim.out")"
		sleep 0.1
	done
}
