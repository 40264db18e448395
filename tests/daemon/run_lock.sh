#!/bin/sh
# Exclusive ownership without the daemon: a second `stackbench run` of a campaign another
# process runs in the same database is refused at once with the holder's PID (exit 3), and
# runs once the holder is gone (killed: its stale lock is taken over); boards held by another
# process (a flock on a dev: node, a pci: lock file) are refused with the holder's PID; a
# daemon's job (its process) holds the campaign it runs against the CLI too.
#   run_lock.sh STACKBENCH STACKBENCHD DATA_DIR
set -eu
name=daemon.run_lock
exe=$1 daemon=$2 data=$3
. "$(dirname "$0")/lib.sh"
cleanup_hook() {
	[ -z "${p1:-}" ] || kill -9 "$p1" 2>/dev/null || true
	stop_holder
}

# A process holding a flock: flock(1) and the sleep it runs (which shares the lock), by PID.
hp=""
hold() {
	flock "$1" sleep 60 &
	hp=$!
	# until it holds the lock (a fixed sleep can be too short on a loaded machine)
	tries=0
	while flock -n "$1" true; do
		tries=$((tries + 1))
		[ "$tries" -lt 1000 ] || fail "flock did not take '$1' in 20 s"
		sleep 0.02
	done
}
stop_holder() {
	[ -n "$hp" ] || return 0
	kids=$(cat "/proc/$hp/task/$hp/children" 2>/dev/null || true)
	kill $hp $kids 2>/dev/null || true
	wait "$hp" 2>/dev/null || true
	hp=""
}

db=$work/r.db
"$exe" run "$data/slow.yaml" --db "$db" >"$work/first.log" 2>&1 &
p1=$!
tries=0
until [ "$(sqlite3 "$db" "SELECT count(*) FROM campaigns" 2>/dev/null || echo 0)" -ge 1 ]; do
	tries=$((tries + 1))
	[ "$tries" -lt 1000 ] || fail "the first run did not start"
	sleep 0.02
done
t0=$(date +%s%N)
rc=0
"$exe" run "$data/slow.yaml" --db "$db" >"$work/second.log" 2>&1 || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$rc" -eq 3 ] || fail "the second run exited $rc: $(cat "$work/second.log")"
grep -q "campaign 'slow' is already running in '$db', held by PID $p1 (.*stackbench run" "$work/second.log" ||
	fail "message: $(cat "$work/second.log")"
[ "$ms" -lt 3000 ] || fail "the refusal took $ms ms"
kill -0 "$p1" || fail "the first run ended before the second was refused (make slow.yaml longer)"
[ "$(sqlite3 "$db" "SELECT count(*) FROM campaigns")" -eq 1 ] || fail "the second run created a campaign"
echo "$name: second run refused in $ms ms: $(cat "$work/second.log")"

# The holder is killed: its lock file names a dead PID; the next run takes over and resumes.
kill -9 "$p1"
wait "$p1" 2>/dev/null || true
p1=""
"$exe" run "$data/slow.yaml" --db "$db" --resume >"$work/third.log" 2>&1 || fail "after the kill: $(cat "$work/third.log")"
exactly_once "$db" 12

# Boards held by another process.
: >"$work/stackbench9"
hold "$work/stackbench9"
rc=0
"$exe" point --device "dev:$work/stackbench9" >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 3 ] || fail "point on a held dev: board exited $rc: $(cat "$work/out")"
grep -q "board 'dev:$work/stackbench9' is busy, held by PID [0-9]* (flock " "$work/out" ||
	fail "dev: message: $(cat "$work/out")"
stop_holder
hold "$STACKBENCH_LOCK_DIR/stackbench/stackbench-pci-0000:99:00.0.lock"
rc=0
"$exe" point --device pci:99:00.0 >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 3 ] && grep -q "board 'pci:99:00.0' is busy, held by PID [0-9]* (flock " "$work/out" ||
	fail "pci: board held: $rc $(cat "$work/out")"
stop_holder
# Free again (the file stays): the lock passes, the missing board fails next, not as busy.
rc=0
"$exe" point --device pci:99:00.0 >"$work/out" 2>&1 || rc=$?
! grep -q "busy" "$work/out" || fail "a free lock was reported busy: $(cat "$work/out")"

# A daemon's job holds its campaign: `stackbench run` of it in the same database is refused.
start_daemon
id=$("$exe" submit "$data/slow.yaml" --db "$work/d.db" 2>/dev/null) || fail "submit"
wait_points "$work/d.db" 1
rc=0
"$exe" run "$data/slow.yaml" --db "$work/d.db" --resume >"$work/out" 2>&1 || rc=$?
# The job's own process holds it (the daemon runs each job in one: its "pid").
jpid=$("$exe" queue --json | tr -d ' \t\n' | sed -n 's/.*"pid":\([0-9]*\).*/\1/p')
[ -n "$jpid" ] && [ "$jpid" != "$dpid" ] || fail "the running job has no process of its own: '$jpid'"
[ "$rc" -eq 3 ] && grep -q "held by PID $jpid (stackbenchd --job-process" "$work/out" ||
	fail "run against the daemon's job: $rc $(cat "$work/out")"
"$exe" cancel "$id" >/dev/null || fail "cancel"
"$exe" follow "$id" >/dev/null 2>&1 && fail "a cancelled job followed as done"
"$exe" queue | grep -q "^ *$id  cancelled" || fail "queue: $("$exe" queue)"
stop_daemon
echo "$name: ok"
