#!/bin/sh
# The thermal-failure example campaign with the camera replaced by the replayed FLIR One (run
# under umockdev-run by run_replay.cmake) and the simulated bench's meter: the results database
# holds the hot spots of the real frames. The scene of the capture does not follow the
# simulated cube: its last frames peak at 59.7 C and 86.0 C, so which readings a point sees
# depends on how fast the replay is read. A reading of the 86 C frame is a thermal failure;
# whether the recovery then reads a cool frame (it recovers, exit 0, every point stored) or
# not (it gives up, exit 1, as on a bench whose camera looks at the wrong thing) depends on
# the same timing, so both outcomes are checked for what each must leave behind.
#   campaign_flirone.sh STACKBENCH EXAMPLE WORKDIR
. "$(dirname "$0")/campaign_flirone_lib.sh"
run_campaign
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "exit $rc"
n=$(q "select count(*) from samples where temp_c is not null")
low=$(q "select count(*) from samples where temp_c < 43.7 or temp_c > 86.0")
distinct=$(q "select count(distinct round(temp_c, 4)) from samples")
points=$(q "select count(*) from points")
echo "samples with a temperature: $n, outside the capture's frame maxima: $low, distinct: $distinct, points: $points"
[ "$n" -gt 100 ] || fail "too few samples with a temperature"
[ "$low" -eq 0 ] || fail "temperatures that are no real frame's maximum"
[ "$distinct" -ge 5 ] || fail "the camera's frames did not change"
[ "$points" -ge 4 ] || fail "points stored before the failure are missing"
if [ "$rc" -eq 1 ]; then
	q "select kind from events" | grep -q recovery_failed || fail "exit 1 without recovery_failed"
	[ "$(q "select status from campaigns")" != complete ] || fail "exit 1 but the campaign is complete"
else
	[ "$points" -ge 8 ] || fail "exit 0 with $points of 8 points"
	[ "$(q "select status from campaigns")" = complete ] || fail "exit 0 but not complete"
	q "select kind from events" | grep -q thermal_failure && {
		q "select kind from events" | grep -q recovered || fail "a failure without a recovery"
	}
fi
echo "ok (exit $rc)"
