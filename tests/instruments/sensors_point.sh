#!/bin/sh
# A point on the simulated board with its temperature and power from card sensors through
# libsensors (run under umockdev-run with tests/data/hwmon/alveo-u280.umockdev): the point
# records the described hbm_temp (51 C) and power1 (43 W); instruments --probe reads both.
#   sensors_point.sh STACKBENCH
set -u
tool=$1
fail() { echo "FAIL: $*"; exit 1; }
out=$("$tool" point --ports 1 --duration-s 3 --camera "sensors:xclmgmt-*?feature=hbm_temp" \
	--meter "sensors:xclmgmt-*?feature=power1" --json 2>&1) || fail "point: $out"
tmax=$(printf '%s\n' "$out" | sed -n 's/.*"temp_c_max":[[:space:]]*\([0-9.]*\).*/\1/p' | head -1)
pavg=$(printf '%s\n' "$out" | sed -n 's/.*"power_w_avg":[[:space:]]*\([0-9.]*\).*/\1/p' | head -1)
[ "$tmax" = "51" ] || fail "temp_c_max '$tmax', expected 51 in: $out"
[ "$pavg" = "43" ] || fail "power_w_avg '$pavg', expected 43 in: $out"
echo "ok: point: hbm_temp $tmax C, power $pavg W"
# instruments --probe reads either through the same scheme (a meter: --as, sensors: is both)
out=$("$tool" instruments --probe "sensors:xclmgmt-*?feature=hbm_temp" --count 2 2>&1) ||
	fail "probe temperature: $out"
printf '%s\n' "$out" | grep -q "hot spot 51.00 C" || fail "probe temperature: $out"
out=$("$tool" instruments --probe "sensors:xclmgmt-*?feature=power1" --as meter --count 2 2>&1) ||
	fail "probe power: $out"
printf '%s\n' "$out" | grep -q "43.000 W" || fail "probe power: $out"
echo "ok: instruments --probe"
