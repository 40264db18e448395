#!/bin/sh
# Ctrl-C (SIGINT) in the middle of a campaign: the point in progress is discarded, the
# campaign is marked interrupted (not left "running"), the message says how to resume with the
# same database (a path with a space and a quote), and resuming completes it.
#   interrupt.sh STACKBENCH_EXE
set -eu
exe=$1
work=$(mktemp -d /tmp/sb-int-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "interrupt: FAIL: $*" >&2; exit 1; }
mkdir "$work/my results"
db="$work/my results/it's.db"
cat >"$work/c.yaml" <<'YAML'
name: interrupt
fast_forward: false
durations: {bandwidth_s: 0.01}
sample_interval_ms: 1
sweep:
  type: [ro, wo, rw]
  size: [64, 128]
  pattern: [16vault, all]
YAML
"$exe" run "$work/c.yaml" --db "$db" >"$work/out" 2>"$work/err" &
pid=$!
tries=0
until [ "$(sqlite3 "$db" "SELECT count(*) FROM points" 2>/dev/null || echo 0)" -ge 2 ]; do
	tries=$((tries + 1))
	[ $tries -lt 600 ] || fail "no progress"
	kill -0 $pid 2>/dev/null || fail "the run ended before the interrupt: $(cat "$work/err")"
	sleep 0.05
done
kill -INT $pid
rc=0
wait $pid || rc=$?
[ $rc -eq 1 ] || fail "exit code $rc after Ctrl-C (expected 1): $(cat "$work/err")"
grep -q "campaign 1 'interrupt' interrupted with [0-9]* of 12 points stored" "$work/err" ||
	fail "message: $(cat "$work/err")"
grep -qF "continue with: stackbench run $work/c.yaml --db '$work/my results/it'\\''s.db' --resume" "$work/err" ||
	fail "resume hint: $(grep continue "$work/err")"
"$exe" list --db "$db" | grep -Eq "^1 +interrupt +interrupted " || fail "list: $("$exe" list --db "$db")"
# the hint, pasted into a shell, finishes the campaign
cmd=$(sed -n 's/^stackbench: continue with: stackbench/"$exe"/p' "$work/err")
eval "$cmd" >"$work/out2" 2>&1 || fail "resume: $(cat "$work/out2")"
"$exe" list --db "$db" | grep -Eq "^1 +interrupt +complete +12/12" || fail "after resume: $("$exe" list --db "$db")"
echo "interrupt: ok"
