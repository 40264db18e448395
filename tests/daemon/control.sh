#!/bin/sh
# Job control: pause a running job (it stops between points, its board goes to the next job
# by priority), cancel and hold queued ones, resume: every campaign ends with each point
# stored exactly once.
#   control.sh STACKBENCH STACKBENCHD EXAMPLES_DIR DATA_DIR
set -eu
name=daemon.control
exe=$1 daemon=$2 examples=$3 data=$4
. "$(dirname "$0")/lib.sh"

state() { "$exe" queue --json | tr -d ' \t\n' | sed -n "s/.*{\"id\":$1,\"state\":\"\([a-z]*\)\".*/\1/p"; }
wait_state() {
	tries=0
	until [ "$(state "$1")" = "$2" ]; do
		tries=$((tries + 1))
		[ "$tries" -lt 1200 ] || fail "job $1 is $(state "$1"), not $2, after 60 s"
		sleep 0.05
	done
}

start_daemon
a=$("$exe" submit "$data/slow.yaml" --db "$work/a.db" 2>/dev/null)
wait_points "$work/a.db" 1
b=$("$exe" submit "$examples/quick.yaml" --db "$work/b.db" 2>/dev/null)
c=$("$exe" submit "$examples/quick.yaml" --db "$work/c.db" --priority 5 2>/dev/null)
d=$("$exe" submit "$examples/quick.yaml" --db "$work/d.db" 2>/dev/null)
[ "$(state "$b")" = queued ] || fail "job $b is $(state "$b") while the board is busy"
"$exe" cancel "$d" | grep -q "cancelled" || fail "cancel a queued job"
"$exe" pause "$b" | grep -q "paused" || fail "hold a queued job"
"$exe" pause "$a" | grep -q "pause requested" || fail "pause a running job"
wait_state "$a" paused
n=$(count "$work/a.db")
[ "$n" -lt 12 ] || fail "the paused job ran to its end"
"$exe" follow "$c" >/dev/null 2>&1 || fail "job $c (priority 5) after the pause"
[ "$(state "$b")" = paused ] || fail "the held job ran"
"$exe" resume "$a" | grep -q "queued" || fail "resume"
"$exe" resume "$b" >/dev/null || fail "resume the held job"
"$exe" follow "$a" >/dev/null 2>&1 || fail "job $a after resume"
"$exe" follow "$b" >/dev/null 2>&1 || fail "job $b after resume"
exactly_once "$work/a.db" 12
exactly_once "$work/b.db" 21
exactly_once "$work/c.db" 21
[ ! -e "$work/d.db" ] || fail "the cancelled job wrote its database"
[ "$(sqlite3 "$work/a.db" "SELECT group_concat(kind, ' ') FROM events WHERE point_idx IS NULL ORDER BY id")" = "start interrupted resume complete" ] ||
	fail "job $a's events: $(sqlite3 "$work/a.db" "SELECT group_concat(kind, ' ') FROM events WHERE point_idx IS NULL")"
"$exe" resume "$a" >"$work/out" 2>&1 && fail "resumed a finished job"
grep -q "is done already" "$work/out" || fail "resume a finished job: $(cat "$work/out")"
stop_daemon
echo "$name: ok (paused at $n of 12 points)"
