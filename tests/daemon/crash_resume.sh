#!/bin/sh
# stackbenchd survives itself: two campaigns submitted (examples/mask-sweep.yaml, then
# examples/quick.yaml, on one simulated board), the daemon killed with SIGKILL while the first
# runs and the second waits, started again: both complete, every point stored exactly once,
# and their exports equal those of plain `stackbench run` with the same seed.
#
# Compared: the CSV exports of the ports and samples tables byte for byte, and of the points
# table column by column without the run's clock: wall_s and finished_at, and the start and
# end times inside the provenance column.
#   crash_resume.sh STACKBENCH STACKBENCHD EXAMPLES_DIR
set -eu
name=daemon.crash_resume
exe=$1 daemon=$2 examples=$3
. "$(dirname "$0")/lib.sh"

start_daemon
ms=$("$exe" submit "$examples/mask-sweep.yaml" --db "$work/ms.db" 2>>"$work/client.log") ||
	fail "submit mask-sweep: $(cat "$work/client.log")"
q=$("$exe" submit "$examples/quick.yaml" --db "$work/q.db" 2>>"$work/client.log") ||
	fail "submit quick: $(cat "$work/client.log")"

# SIGKILL once mask-sweep has a few points, long before its 72.
wait_points "$work/ms.db" 3
kill_daemon
n=$(count "$work/ms.db")
[ "$n" -lt 72 ] || fail "mask-sweep finished before the kill"
[ "$(count "$work/q.db")" -eq 0 ] || fail "quick ran before mask-sweep"
echo "$name: killed the daemon with $n of 72 points of mask-sweep stored, quick queued"

start_daemon
"$exe" follow "$ms" >/dev/null 2>>"$work/client.log" || fail "job $ms: $(tail -3 "$work/client.log")"
"$exe" follow "$q" >/dev/null 2>>"$work/client.log" || fail "job $q: $(tail -3 "$work/client.log")"
exactly_once "$work/ms.db" 72
exactly_once "$work/q.db" 21
[ "$(sqlite3 "$work/ms.db" "SELECT count(*) FROM events WHERE kind = 'resume'")" -eq 1 ] ||
	fail "mask-sweep was not resumed once"
"$exe" queue | grep -q "^ *$ms  done .*72/72 .*mask-sweep" || fail "queue: $("$exe" queue)"
stop_daemon

# The same campaigns run plainly.
"$exe" run "$examples/mask-sweep.yaml" --db "$work/plain-ms.db" >/dev/null 2>&1 || fail "plain mask-sweep"
"$exe" run "$examples/quick.yaml" --db "$work/plain-q.db" >/dev/null 2>&1 || fail "plain quick"

for c in ms q; do
	same_exports "$work/$c.db" "$work/plain-$c.db" "$c"
done
echo "$name: ok (exports equal plain runs: $(wc -l <"$work/ms.db-samples.csv") + $(wc -l <"$work/q.db-samples.csv") sample rows)"
