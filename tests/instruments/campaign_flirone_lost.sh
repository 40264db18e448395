#!/bin/sh
# The thermal-failure example campaign with the replayed FLIR One that disconnects mid-frame
# (variant "disconnect", run under umockdev-run by run_replay.cmake): each loss stops the point
# and is stored as an event instrument_lost with what was measured until then; the camera is
# opened again (the replay starts over, as a camera plugged back in would) and the point runs
# again, three times; the fourth loss in one point is stored too, then ends the run with exit 1,
# an error event and a message naming the camera's connection string and the USB error.
#   campaign_flirone_lost.sh STACKBENCH EXAMPLE WORKDIR
. "$(dirname "$0")/campaign_flirone_lib.sh"
run_campaign
[ "$rc" -eq 1 ] || fail "exit $rc, expected 1"
grep -q "instruments lost 4 times, the last: the temperature source 'flirone:?roi=all': FLIR One 'flirone:?roi=all' disconnected (USB: LIBUSB_ERROR_NO_DEVICE)" "$work/out" ||
	fail "the message names the camera and the USB error"
# The point the run ends in: the fourth loss in one point. The replay disconnects after a fixed
# number of frames and starts over on each reopen, so on a loaded machine (frames come as fast,
# points take longer) an earlier point can lose the camera once and then complete after the
# reconnect: those losses are stored and reconnected too, and the points complete.
idx=$(q "select point_idx from events where kind = 'error'")
[ -n "$idx" ] || fail "no error event: $(q "select kind from events")"
[ "$(q "select count(*) from events where kind = 'instrument_lost' and point_idx = $idx")" -eq 4 ] ||
	fail "four instrument_lost events at point $idx: $(q "select kind, point_idx from events")"
[ "$(q "select count(*) from events where kind = 'instrument_lost' and point_idx > $idx")" -eq 0 ] ||
	fail "losses after the last point: $(q "select kind, point_idx from events")"
lost=$(q "select count(*) from events where kind = 'instrument_lost'")
# fewer than four losses at each point before (four end the run)
[ "$(q "select count(*) from (select point_idx from events where kind = 'instrument_lost' and point_idx < $idx group by point_idx having count(*) > 3)")" -eq 0 ] ||
	fail "a point before the last lost the camera four times: $(q "select kind, point_idx from events")"
[ "$(q "select count(*) from events where kind = 'instrument_reconnected'")" -eq $((lost - 1)) ] ||
	fail "a reconnect after each loss but the last: $(q "select kind, point_idx from events")"
# each loss: the temperature source, the reason, and what was measured until then (writes in
# the campaign's wo points, reads in its ro points: which point loses the camera depends on how
# fast the model runs against the replay's frame rate; a loss at a point's first reading,
# before its ports start, has measured nothing and is reconnected like the others)
[ "$(q "select count(*) from events where kind = 'instrument_lost' and json_extract(data, '\$.source') = 'temperature' and json_extract(data, '\$.reason') like '%disconnected%' and ((json_extract(data, '\$.samples') >= 1 and json_extract(data, '\$.reads') + json_extract(data, '\$.writes') > 0) or (json_extract(data, '\$.samples') = 0 and json_extract(data, '\$.reads') + json_extract(data, '\$.writes') = 0))")" -eq "$lost" ] ||
	fail "instrument_lost data: $(q "select data from events where kind = 'instrument_lost'")"
q "select message from events where kind = 'instrument_lost'" | grep -q "the ports were stopped" ||
	fail "the ports are stopped first"
[ "$(q "select status from campaigns")" = error ] || fail "campaign status $(q "select status from campaigns")"
[ "$(q "select count(*) from points")" -eq "$idx" ] ||
	fail "$(q "select count(*) from points") points stored; the $idx before the lost one, and none from a run without a thermometer"
q "select message from events where kind = 'error'" | grep -q "instruments lost 4 times" || fail "no error event"
echo "ok: 4 losses at point $idx ($lost in all) stored as events, $((lost - 1)) reconnects, the run ended with exit 1"
