#!/bin/sh
# The thermal HBM2 example (examples/hbm2-thermal.yaml) with a card's sensors: its dry run under
# umockdev with the described hwmon tree opens the sensors and gives thermal_s per point; without
# the tree it is refused naming the sensor; a thermal campaign on sim:u280 without sensors is
# refused saying the simulated card has no thermal model and how to give sensors.
#   thermal_dry_run.sh STACKBENCH UMOCKDEV_RUN TREE.umockdev EXAMPLES
set -u
exe=$1 urun=$2 tree=$3 ex=$4
name=hbm2.thermal_dry_run
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
out=$("$urun" --device "$tree" -- "$exe" run --dry-run "$ex/hbm2-thermal.yaml" 2>&1) ||
	fail "dry run with the sensors: $out"
for want in "4 points of an HBM2 card, thermal runs of 120 s" \
	"camera sensors:xclmgmt-\*?feature=hbm_temp, meter sensors:xclmgmt-\*?feature=power1" \
	"temperature limit 90 C: the ports stop, the card cools to 70 C (at most 900 s); 1 retry" \
	"bench time: 4 points x 120 s = 0:08:00"; do
	printf '%s\n' "$out" | grep -q "$want" || fail "dry run: no '$want' in: $out"
done
echo "ok: dry run with the sensors"
# without the sensors' tree: refused, naming the sensor, nothing run
if out=$("$exe" run --dry-run "$ex/hbm2-thermal.yaml" 2>&1); then
	fail "dry run without sensors succeeded: $out"
fi
printf '%s\n' "$out" | grep -q "sensors:xclmgmt-\*?feature=hbm_temp" ||
	fail "dry run without sensors does not name the sensor: $out"
echo "ok: without the sensors"
work=$(mktemp -d /tmp/sb-hbm2-thermal-XXXXXX)
trap 'rm -rf "$work"' EXIT
printf 'kind: thermal\nbench: {device: "sim:u280"}\nrecovery: {limit_c: 90}\n' >"$work/t.yaml"
if out=$("$exe" run --dry-run "$work/t.yaml" 2>&1); then
	fail "thermal campaign on sim:u280 without sensors accepted: $out"
fi
printf '%s\n' "$out" | grep -q "line 1: key 'kind': a thermal campaign on an HBM2 card reads the card's temperature sensor, and the campaign names none (the simulated card has no thermal model" ||
	fail "refusal without sensors: $out"
printf '%s\n' "$out" | grep -q 'give instruments: {temperature: "sensors:CHIP?feature=hbm_temp"}' ||
	fail "refusal without sensors says how to give them: $out"
echo "ok: refused on sim:u280 without sensors"
echo "$name: ok"
