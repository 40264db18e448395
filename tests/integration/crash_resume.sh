#!/bin/sh
# Crash and resume: SIGKILL `stackbench run` twice mid-campaign, resume with --resume, then
# check that every point is stored exactly once and that the results equal those of an
# uninterrupted run on two workers. A changed campaign file must be refused for resume.
#   crash_resume.sh STACKBENCH_EXE
set -eu
exe=$1
work=$(mktemp -d /tmp/sb-crash-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "crash_resume: FAIL: $*" >&2; exit 1; }

cat > "$work/c.yaml" <<'YAML'
name: crash
# Every request simulated (no fast-forward) so that a point takes a noticeable wall time and
# the kill lands mid-campaign.
fast_forward: false
durations: {bandwidth_s: 0.02}
sample_interval_ms: 0.1
sweep:
  type: [ro, wo, rw]
  size: [64, 128]
  pattern: [16vault, all]
YAML
total=12
db=$work/r.db
count() { sqlite3 "$db" "SELECT count(*) FROM points" 2>/dev/null || echo 0; }

# Start a run and SIGKILL it once at least $1 points are stored (and before the end).
run_and_kill() {
	"$exe" run "$work/c.yaml" --db "$db" $2 >>"$work/log" 2>&1 &
	pid=$!
	tries=0
	while [ "$(count)" -lt "$1" ]; do
		kill -0 "$pid" 2>/dev/null || fail "the run ended before the kill: $(cat "$work/log")"
		tries=$((tries + 1))
		[ "$tries" -lt 1200 ] || fail "no progress after 120 s"
		sleep 0.1
	done
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	n=$(count)
	[ "$n" -lt "$total" ] || fail "all $total points were stored before the kill"
	echo "crash_resume: killed with $n of $total points stored"
}

run_and_kill 2 ""
run_and_kill $(($(count) + 2)) --resume
"$exe" run "$work/c.yaml" --db "$db" --resume >>"$work/log" 2>&1 || fail "resume: $(cat "$work/log")"

[ "$(count)" -eq $total ] || fail "$(count) points stored, expected $total"
[ "$(sqlite3 "$db" "SELECT count(DISTINCT idx) || ' ' || min(idx) || ' ' || max(idx) FROM points")" = "$total 0 $((total - 1))" ] ||
	fail "points are not 0..$((total - 1)) exactly once"
[ "$(sqlite3 "$db" "SELECT count(*) FROM campaigns")" -eq 1 ] || fail "resume created a campaign"
[ "$(sqlite3 "$db" "SELECT status FROM campaigns")" = complete ] || fail "campaign not complete"
[ "$(sqlite3 "$db" "SELECT count(*) FROM events WHERE kind = 'resume'")" -eq 2 ] || fail "resume events"
[ "$(sqlite3 "$db" "SELECT count(*) FROM samples s JOIN points p ON p.id = s.point_id GROUP BY p.id" | sort -u)" = 200 ] ||
	fail "every point has its 200 samples"
[ "$(sqlite3 "$db" "PRAGMA integrity_check")" = ok ] || fail "integrity check"

# The same campaign uninterrupted, on two workers: the same numbers.
"$exe" run "$work/c.yaml" --db "$work/whole.db" --jobs 2 >>"$work/log" 2>&1 || fail "jobs 2: $(cat "$work/log")"
q="SELECT idx, key, reads, writes, bandwidth_gbps, latency_avg_ns FROM points ORDER BY idx"
sqlite3 "$db" "$q" >"$work/a"
sqlite3 "$work/whole.db" "$q" >"$work/b"
cmp -s "$work/a" "$work/b" || fail "resumed results differ from an uninterrupted run: $(diff "$work/a" "$work/b" | head -5)"

# A changed file is refused for resume, and nothing runs.
sed -i 's/bandwidth_s: 0.02/bandwidth_s: 0.03/' "$work/c.yaml"
if "$exe" run "$work/c.yaml" --db "$db" --resume >"$work/out" 2>&1; then
	fail "a changed file was resumed"
fi
grep -q "has changed since campaign 1 'crash' started" "$work/out" || fail "message: $(cat "$work/out")"
[ "$(count)" -eq $total ] || fail "points were added"
echo "crash_resume: ok"
