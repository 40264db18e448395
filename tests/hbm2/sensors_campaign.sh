#!/bin/sh
# An HBM2 card's campaign with the card's own sensors (sensors:, libsensors) as its temperature
# and power sources, run under umockdev-run with tests/data/hwmon/alveo-u280.umockdev (hbm_temp
# 51 C, power1 43 W): each point stores the sensors' readings (before the ports start and after
# the window) in points and samples, and the stacks' temperature from the card's own register
# (hbm_card.hbm_temp: the simulated card's 40 C) in hbm_points.
#   sensors_campaign.sh STACKBENCH
set -eu
exe=$1
name=hbm2.sensors_campaign
work=$(mktemp -d /tmp/sb-hbm2-sensors-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
cat >"$work/c.yaml" <<'YAML'
name: hbm2-sensors
bench: {device: "sim:u280"}
instruments:
  temperature: "sensors:xclmgmt-*?feature=hbm_temp"
  power: "sensors:xclmgmt-*?feature=power1"
durations: {warmup_us: 10, window_us: 100}
sweep:
  ports: [1, 32]
YAML
"$exe" run "$work/c.yaml" --db "$work/c.db" >"$work/out" 2>&1 || fail "run: $(cat "$work/out")"
got=$(sqlite3 "$work/c.db" "SELECT group_concat(p.temp_c_avg || '/' || p.power_w_avg || '/' ||
	h.stack_temp_c || '/' || (SELECT count(*) FROM samples s WHERE s.point_id = p.id), ' ')
	FROM points p JOIN hbm_points h ON h.point_id = p.id ORDER BY p.idx")
[ "$got" = "51.0/43.0/40.0/2 51.0/43.0/40.0/2" ] || fail "temperature/power/stacks/samples: $got"
echo "$name: ok ($got)"
