#!/bin/sh
# Kill -9 torture (issue 17): `stackbench run` is SIGKILLed at KILLS random instants (5 ms to
# 1.5 s after it starts), alternating one and two workers, and resumed each time. Whenever a
# campaign completes, its results must equal those of an uninterrupted run: every point stored
# exactly once, the same counters, bandwidths, latencies and samples, the database intact;
# then a new database starts, until KILLS kills have landed.
#   kill_torture.sh STACKBENCH_EXE [KILLS]
set -eu
exe=$1
kills=${2:-24}
work=$(mktemp -d /tmp/sb-torture-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "kill_torture: FAIL: $*" >&2; exit 1; }

cat >"$work/c.yaml" <<'YAML'
name: torture
# Every request simulated (no fast-forward), so that the campaign takes a few seconds of wall
# time and the kills land inside points, between them and inside commits.
fast_forward: false
durations: {bandwidth_s: 0.003}
sample_interval_ms: 0.5
sweep:
  type: [ro, wo, rw]
  size: [32, 64, 128]
  pattern: [2bank, 1vault, 4vault, all]
YAML
total=36
q_points="SELECT idx, key, attempt, reads, writes, read_data_bytes, bandwidth_gbps, latency_min_ns,
	latency_avg_ns, latency_max_ns, elapsed_ns FROM points ORDER BY idx, attempt"
q_samples="SELECT p.idx, count(*), sum(s.reads), sum(s.writes), max(s.t_ns) FROM samples s
	JOIN points p ON p.id = s.point_id GROUP BY p.idx ORDER BY p.idx"

"$exe" run "$work/c.yaml" --db "$work/ref.db" >"$work/log" 2>&1 || fail "reference run: $(cat "$work/log")"
sqlite3 "$work/ref.db" "$q_points" >"$work/ref.points"
sqlite3 "$work/ref.db" "$q_samples" >"$work/ref.samples"
[ "$(wc -l <"$work/ref.points")" -eq $total ] || fail "reference: $(wc -l <"$work/ref.points") points"

# A random number of milliseconds in [lo, hi].
rand_ms() { echo $(($1 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % ($2 - $1 + 1))); }

check_complete() {
	db=$1
	[ "$(sqlite3 "$db" "PRAGMA integrity_check")" = ok ] || fail "$db: integrity check"
	[ "$(sqlite3 "$db" "SELECT count(*) FROM campaigns")" -eq 1 ] || fail "$db: a resume created a campaign"
	[ "$(sqlite3 "$db" "SELECT status FROM campaigns")" = complete ] || fail "$db: not complete"
	sqlite3 "$db" "$q_points" >"$work/points"
	sqlite3 "$db" "$q_samples" >"$work/samples"
	cmp -s "$work/points" "$work/ref.points" ||
		fail "$db: points differ from an uninterrupted run: $(diff "$work/ref.points" "$work/points" | head -6)"
	cmp -s "$work/samples" "$work/ref.samples" ||
		fail "$db: samples differ from an uninterrupted run: $(diff "$work/ref.samples" "$work/samples" | head -6)"
}

landed=0
cycles=0
db=$work/t0.db
while [ $landed -lt "$kills" ]; do
	jobs=$((landed % 2 + 1))
	resume=
	[ -e "$db" ] && resume=--resume
	"$exe" run "$work/c.yaml" --db "$db" --jobs $jobs $resume >"$work/log" 2>&1 &
	pid=$!
	ms=$(rand_ms 5 1500)
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	if kill -9 "$pid" 2>/dev/null; then
		wait "$pid" 2>/dev/null || true
		landed=$((landed + 1))
		continue
	fi
	# it finished before the kill: the campaign is complete
	wait "$pid" || fail "run failed: $(cat "$work/log")"
	check_complete "$db"
	cycles=$((cycles + 1))
	db=$work/t$cycles.db
done
# finish the last campaign without killing it
"$exe" run "$work/c.yaml" --db "$db" --resume >"$work/log" 2>&1 || fail "final resume: $(cat "$work/log")"
check_complete "$db"
cycles=$((cycles + 1))
echo "kill_torture: ok: $landed kills (jobs 1 and 2), $cycles campaigns completed, each equal to an uninterrupted run"
