#!/bin/sh
# A point on the simulated board with its temperature and power from card sensors through
# libsensors (run under umockdev-run with tests/data/hwmon/alveo-u280.umockdev): the point
# records the described hbm_temp (51 C) and power1 (43 W), so does a point on the simulated
# HBM2 card (before and after, also with --trace); instruments --probe reads both.
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
# the same sensors read around a point on the simulated HBM2 card (stackbench point on sim:u280)
out=$("$tool" point --device sim:u280 --ports 2 --duration-us 50 \
	--camera "sensors:xclmgmt-*?feature=hbm_temp" \
	--meter "sensors:xclmgmt-*?curr=12v_pex_curr&in=12v_pex_vol" --json 2>&1) ||
	fail "HBM2 point: $out"
for want in '"temp_start_c":[[:space:]]*51,' '"temp_end_c":[[:space:]]*51,' \
	'"power_w":[[:space:]]*37.51' '"volts_v":[[:space:]]*12.1,' '"amps_a":[[:space:]]*3.1'; do
	printf '%s\n' "$out" | grep -q "$want" || fail "HBM2 point: no $want in: $out"
done
out=$("$tool" point --device sim:u280 --ports 1 --duration-us 50 \
	--meter "sensors:xclmgmt-*?feature=power1" 2>&1) || fail "HBM2 point text: $out"
printf '%s\n' "$out" | grep -q "^power      43.000 W" || fail "HBM2 point text: $out"
if out=$("$tool" point --device sim:u280 --camera "sensors:nosuchchip-*?feature=x" 2>&1); then
	fail "HBM2 point with a missing sensor succeeded: $out"
fi
printf '%s\n' "$out" | grep -q "nosuchchip" || fail "HBM2 point, missing sensor: $out"
# ... and with --trace: the sensors around the point, its bursts in the trace
trace=$(mktemp /tmp/sb-sensors-trace-XXXXXX)
rm -f "$trace"
out=$("$tool" point --device sim:u280 --ports 2 --duration-us 50 --trace "$trace.sbt" \
	--camera "sensors:xclmgmt-*?feature=hbm_temp" --meter "sensors:xclmgmt-*?feature=power1" \
	--json 2>&1) || fail "HBM2 point with --trace and sensors: $out"
for want in '"temp_start_c":[[:space:]]*51,' '"temp_end_c":[[:space:]]*51,' '"power_w":[[:space:]]*43,'; do
	printf '%s\n' "$out" | grep -q "$want" || fail "HBM2 traced point: no $want in: $out"
done
recs=$(printf '%s\n' "$out" | sed -n 's/.*"records":[[:space:]]*\([0-9]*\).*/\1/p' | head -1)
[ -s "$trace.sbt" ] && [ "${recs:-0}" -gt 0 ] || fail "HBM2 traced point: no trace ($recs records): $out"
rm -f "$trace.sbt"
echo "ok: HBM2 point with the card's sensors"
# instruments --probe reads either through the same scheme (a meter: --as, sensors: is both)
out=$("$tool" instruments --probe "sensors:xclmgmt-*?feature=hbm_temp" --count 2 2>&1) ||
	fail "probe temperature: $out"
printf '%s\n' "$out" | grep -q "hot spot 51.00 C" || fail "probe temperature: $out"
out=$("$tool" instruments --probe "sensors:xclmgmt-*?feature=power1" --as meter --count 2 2>&1) ||
	fail "probe power: $out"
printf '%s\n' "$out" | grep -q "43.000 W" || fail "probe power: $out"
echo "ok: instruments --probe"
# instruments lists the card's sensors: each temperature and power feature, and the 12 V rail's
# current and voltage paired as one volts x amps meter, each with a connection string that
# --probe opens and reads (45 C, 51 C, 43 W, 3.1 A x 12.1 V = 37.51 W).
list=$("$tool" instruments --no-sigrok 2>&1) || fail "instruments: $list"
out=$list
for want in "sensor +xclmgmt-pci-3b01 temp1 fpga_temp: 45.00 C +sensors:xclmgmt-pci-3b01[?]feature=fpga_temp" \
	"sensor +xclmgmt-pci-3b01 temp2 hbm_temp: 51.00 C +sensors:xclmgmt-pci-3b01[?]feature=hbm_temp" \
	"meter +xclmgmt-pci-3b01 power1: 43.00 W +sensors:xclmgmt-pci-3b01[?]feature=power1" \
	"meter +xclmgmt-pci-3b01 12v_pex: 3.100 A x 12.100 V .* sensors:xclmgmt-pci-3b01[?]curr=12v_pex_curr&in=12v_pex_vol"; do
	printf '%s\n' "$out" | grep -Eq "^$want" || fail "instruments: no '$want' in: $out"
done
[ "$(printf '%s\n' "$out" | grep -c "card sensor")" = 4 ] || fail "instruments: not 4 sensors: $out"
conn=$(printf '%s\n' "$list" | sed -n 's/.*\(sensors:[^ ]*feature=hbm_temp\).*/\1/p')
out=$("$tool" instruments --probe "$conn" --count 2 2>&1) || fail "probe listed $conn: $out"
printf '%s\n' "$out" | grep -q "hot spot 51.00 C" || fail "probe listed $conn: $out"
conn=$(printf '%s\n' "$list" | sed -n 's/.*\(sensors:[^ ]*curr=[^ ]*\).*/\1/p')
out=$("$tool" instruments --probe "$conn" --as meter --count 2 2>&1) || fail "probe listed $conn: $out"
printf '%s\n' "$out" | grep -q "37.510 W" || fail "probe listed $conn: $out"
out=$("$tool" instruments --no-sigrok --json 2>&1) || fail "instruments --json: $out"
printf '%s\n' "$out" | grep -q '"conn":[[:space:]]*"sensors:xclmgmt-pci-3b01?feature=power1"' ||
	fail "instruments --json: $out"
echo "ok: instruments lists the card's sensors"
