#!/bin/sh
# SIGTERM: stackbenchd ends the running point with its current sample (not stored), exits 0,
# keeps the job for its next start, which resumes it: every point stored exactly once.
#   sigterm.sh STACKBENCH STACKBENCHD DATA_DIR
set -eu
name=daemon.sigterm
exe=$1 daemon=$2 data=$3
. "$(dirname "$0")/lib.sh"

start_daemon
id=$("$exe" submit "$data/slow.yaml" --db "$work/r.db" 2>/dev/null) || fail "submit"
wait_points "$work/r.db" 2
stop_daemon
n=$(count "$work/r.db")
[ "$n" -lt 12 ] || fail "the campaign ended before SIGTERM"
[ "$(sqlite3 "$work/r.db" "SELECT count(*) FROM events WHERE kind = 'interrupted'")" -eq 1 ] ||
	fail "no 'interrupted' event"
[ "$(sqlite3 "$work/state/queue.db" "SELECT state FROM jobs WHERE id = $id")" = running ] ||
	fail "the job is not kept as running"
echo "$name: stopped with $n of 12 points stored"
start_daemon
"$exe" follow "$id" >/dev/null 2>"$work/follow.log" || fail "job $id: $(cat "$work/follow.log")"
exactly_once "$work/r.db" 12
[ "$(sqlite3 "$work/r.db" "SELECT count(*) FROM events WHERE kind = 'resume'")" -eq 1 ] ||
	fail "not resumed once"
grep -q "was running: it resumes" "$work/daemon.log" || fail "the restart did not say it resumes"
stop_daemon
echo "$name: ok"
