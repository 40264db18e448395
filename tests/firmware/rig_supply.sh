#!/bin/sh
# The cooling rig with a fan supply: the real firmware in simavr on a pty (sb-rig-sim) and a
# Korad KA3005P simulator behind libsigrok (a umockdev testbed tty, as instruments.pty_korad_ok):
# rig:TTY?supply=korad:/dev/ttyACM7 sets the supply's voltage and the rig's duties, and reports
# both (pty_instruments rig-korad says what it checks).
#   rig_supply.sh SB_RIG_SIM_EXE RIG_ELF PTY_INSTRUMENTS_EXE MODEM_LINES_SHIM
set -eu
sim=$1 elf=$2 probe=$3 shim=$4
work=$(mktemp -d /tmp/sb-rig-supply-XXXXXX)
simpid=
cleanup() {
	[ -z "$simpid" ] || kill "$simpid" 2>/dev/null || true
	[ -z "$simpid" ] || wait "$simpid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "rig_supply: FAIL: $*" >&2; exit 1; }
link=$work/rig-tty

"$sim" --elf "$elf" --link "$link" --log "$work/sim.log" --tau-s 0.5 >"$work/sim.out" 2>&1 &
simpid=$!
tries=0
until [ -e "$link" ]; do
	tries=$((tries + 1))
	[ "$tries" -lt 100 ] || fail "sb-rig-sim did not start: $(cat "$work/sim.out")"
	sleep 0.1
done
TMPDIR=$work LD_PRELOAD="$shim:libumockdev-preload.so.0" "$probe" rig-korad "$link" ||
	fail "pty_instruments rig-korad"
echo "rig_supply: ok"
