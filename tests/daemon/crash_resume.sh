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

# The points CSV (RFC 4180: quoted fields, doubled quotes) without the run's clock: the columns
# wall_s and finished_at, and started_at / finished_at inside the provenance column. One field
# per line ("column=value") to compare and to show differences.
without_clock() {
	awk '
	function parse(line,   i, c, f, n, q) {
		n = 0; f = ""; q = 0
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (q) {
				if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { f = f c; i++ } else q = 0 }
				else f = f c
			} else if (c == "\"") q = 1
			else if (c == ",") { F[++n] = f; f = "" }
			else f = f c
		}
		if (q) { print "a quoted field spans lines" > "/dev/stderr"; exit 2 }
		F[++n] = f
		return n
	}
	NR == 1 { ncol = parse($0); for (i = 1; i <= ncol; i++) H[i] = F[i]; next }
	{
		if (parse($0) != ncol) { print "row " NR ": wrong number of fields" > "/dev/stderr"; exit 2 }
		for (i = 1; i <= ncol; i++) {
			if (H[i] == "wall_s" || H[i] == "finished_at") continue
			if (H[i] == "provenance") gsub(/"(started|finished)_at":"[^"]*"/, "", F[i])
			print NR ": " H[i] "=" F[i]
		}
	}' "$1"
}
for c in ms q; do
	for t in points ports samples; do
		"$exe" export --db "$work/$c.db" --format csv --table $t --out "$work/$c-$t.csv"
		"$exe" export --db "$work/plain-$c.db" --format csv --table $t --out "$work/plain-$c-$t.csv"
	done
	cmp -s "$work/$c-ports.csv" "$work/plain-$c-ports.csv" || fail "$c: ports differ"
	cmp -s "$work/$c-samples.csv" "$work/plain-$c-samples.csv" || fail "$c: samples differ"
	without_clock "$work/$c-points.csv" >"$work/a" || fail "$c: cannot read the points CSV"
	without_clock "$work/plain-$c-points.csv" >"$work/b" || fail "$c: cannot read the plain CSV"
	[ "$(grep -c '^2: ' "$work/a")" -gt 40 ] || fail "too few columns compared"
	cmp -s "$work/a" "$work/b" || fail "$c: points differ: $(diff "$work/a" "$work/b" | head -4)"
done
echo "$name: ok (exports equal plain runs: $(wc -l <"$work/ms-samples.csv") + $(wc -l <"$work/q-samples.csv") sample rows)"
