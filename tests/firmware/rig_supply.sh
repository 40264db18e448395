#!/bin/sh
# The cooling rig with a fan supply: the real firmware in simavr on a pty (sb-rig-sim) and a
# Korad KA3005P simulator behind libsigrok (a umockdev testbed tty, as instruments.pty_korad_ok):
# rig:TTY?supply=korad:/dev/ttyACM7 sets the supply's voltage and the rig's duties, and reports
# both (pty_instruments rig-korad says what it checks).
#   rig_supply.sh SB_RIG_SIM_EXE RIG_ELF PTY_INSTRUMENTS_EXE MODEM_LINES_SHIM
set -eu
sim=$1 elf=$2 probe=$3 shim=$4
name=rig_supply
. "$(dirname "$0")/rig_sim_lib.sh"

start_rig_sim
TMPDIR=$work LD_PRELOAD="$shim:libumockdev-preload.so.0" "$probe" rig-korad "$link" ||
	fail "pty_instruments rig-korad"
echo "rig_supply: ok"
