#!/bin/sh
# A campaign's notify: command under stackbenchd (issue 23, item 4) runs in the job process, as
# the submitter, with a fresh environment (none of the daemon's variables) and the job's facts:
# done when the campaign completes, cancelled when its user cancels it while it runs or while
# it is paused (then a process of its own runs it), nothing when it is paused. The daemon runs as root with the group `lab` (users.sh).
#   notify_as_submitter.sh STACKBENCH STACKBENCHD EXAMPLES_DIR DATA_DIR
set -eu
name=daemon.notify_as_submitter
exe=$1 daemon=$2 examples=$3 data=$4
. "$(dirname "$0")/users.sh"
. "$(dirname "$0")/lib.sh"
chmod 755 "$work"
mkdir -m 700 "$work/alice" "$work/alice/ev"
chown -R sbt_alice "$work/alice"
rec="[/bin/sh, -c, 'id -u >\"\$1/uid-\$STACKBENCH_EVENT\"; env | sort >\"\$1/env-\$STACKBENCH_EVENT\"', sh, $work/alice/ev]"
sed -e 's/^  bandwidth_s: 2/  bandwidth_s: 0.01/' "$examples/quick.yaml" >"$work/quick.yaml"
printf 'notify: %s\n' "$rec" >>"$work/quick.yaml"
sed -e 's/^sweep:/sweep:\n  repetitions: 50/' -e 's/^name: slow/name: long/' "$data/slow.yaml" >"$work/long.yaml"
printf 'notify: %s\n' "$rec" >>"$work/long.yaml"
chmod 644 "$work/quick.yaml" "$work/long.yaml"

wait_file() { # FILE: (as alice's folder is hers: ls as root) at most 60 s
	tries=0
	until [ -s "$1" ]; do
		tries=$((tries + 1))
		[ "$tries" -lt 1200 ] || fail "no '$1' after 60 s: $(ls "$work/alice/ev")"
		sleep 0.05
	done
}

SB_DAEMON_SECRET=the-daemons-own
export SB_DAEMON_SECRET
http=none
start_daemon --group "$lab"

# done: as alice, a fresh environment with the facts.
id=$(as_alice "$exe" submit "$work/quick.yaml" --db "$work/alice/q.db") || fail "submit"
wait_file "$work/alice/ev/env-done"
[ "$(cat "$work/alice/ev/uid-done")" = "$alice_uid" ] || fail "done ran as uid $(cat "$work/alice/ev/uid-done")"
[ "$(stat -c %u "$work/alice/ev/env-done")" = "$alice_uid" ] || fail "the file is not alice's"
env=$work/alice/ev/env-done
grep -qx "STACKBENCH_JOB=$id" "$env" || fail "no STACKBENCH_JOB=$id: $(cat "$env")"
grep -qx "STACKBENCH_EVENT=done" "$env" || fail "event: $(cat "$env")"
grep -qx "STACKBENCH_DB=$work/alice/q.db" "$env" || fail "db: $(cat "$env")"
grep -qx "STACKBENCH_POINTS_DONE=21" "$env" && grep -qx "STACKBENCH_POINTS_TOTAL=21" "$env" || fail "points: $(cat "$env")"
grep -qx "USER=sbt_alice" "$env" || fail "USER: $(cat "$env")"
grep -qx "PATH=/usr/local/bin:/usr/bin:/bin" "$env" || fail "PATH: $(cat "$env")"
if grep -q "SB_DAEMON_SECRET\|STACKBENCH_SOCKET\|STACKBENCH_LOCK_DIR" "$env"; then
	fail "the daemon's environment reached the command: $(cat "$env")"
fi
grep -q "job $id: notify (done): '/bin/sh' done\|notify (done): '/bin/sh' done" "$work/daemon.log" ||
	fail "the command's run is not logged"
echo "$name: done: uid $alice_uid, $(grep -c . "$env") variables, none of the daemon's"

# paused: no event; cancelled while running: cancelled.
id=$(as_alice "$exe" submit "$work/long.yaml" --db "$work/alice/l.db") || fail "submit long"
wait_points "$work/alice/l.db" 1
as_alice "$exe" pause "$id" >/dev/null || fail "pause"
wait_job_state "$id" paused
sleep 1
[ ! -e "$work/alice/ev/env-cancelled" ] && [ "$(ls "$work/alice/ev" | grep -vc done)" -eq 0 ] ||
	fail "a pause notified: $(ls "$work/alice/ev")"
as_alice "$exe" resume "$id" >/dev/null || fail "resume"
n=$(count "$work/alice/l.db")
wait_points "$work/alice/l.db" $((n + 1))
as_alice "$exe" cancel "$id" >/dev/null || fail "cancel"
wait_file "$work/alice/ev/env-cancelled"
[ "$(cat "$work/alice/ev/uid-cancelled")" = "$alice_uid" ] || fail "cancelled ran as $(cat "$work/alice/ev/uid-cancelled")"
grep -qx "STACKBENCH_JOB=$id" "$work/alice/ev/env-cancelled" || fail "cancelled: $(cat "$work/alice/ev/env-cancelled")"
echo "$name: paused: nothing; cancelled: $(grep POINTS_DONE "$work/alice/ev/env-cancelled")"

# cancelled while paused (no process then): a process as alice runs it, with what was stored.
rm -f "$work/alice/ev/"*cancelled
id=$(as_alice "$exe" submit "$work/long.yaml" --db "$work/alice/p.db") || fail "submit"
wait_points "$work/alice/p.db" 1
as_alice "$exe" pause "$id" >/dev/null || fail "pause"
wait_job_state "$id" paused
as_alice "$exe" cancel "$id" >/dev/null || fail "cancel the paused job"
wait_file "$work/alice/ev/env-cancelled"
env=$work/alice/ev/env-cancelled
[ "$(cat "$work/alice/ev/uid-cancelled")" = "$alice_uid" ] || fail "ran as $(cat "$work/alice/ev/uid-cancelled")"
grep -qx "STACKBENCH_JOB=$id" "$env" && grep -qx "STACKBENCH_EVENT=cancelled" "$env" &&
	grep -qx "STACKBENCH_POINTS_DONE=$(count "$work/alice/p.db")" "$env" &&
	grep -qx "STACKBENCH_POINTS_TOTAL=600" "$env" &&
	grep -qx "STACKBENCH_CAMPAIGN_ID=1" "$env" || fail "cancelled while paused: $(cat "$env")"
echo "$name: cancelled while paused: $(grep -c . "$env") variables, $(grep POINTS_DONE "$env")"
stop_daemon
echo "$name: ok"
