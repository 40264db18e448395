#!/bin/sh
# A campaign's notify: command with `stackbench run` (issue 23, item 4): run as an argument
# vector when the campaign ends (done), fails, is cancelled (Ctrl-C) or has a thermal failure,
# with the facts in STACKBENCH_* variables; its failure, a program that does not exist and a
# program that outlives its timeout are logged and never fail the campaign. Malformed settings
# are refused with the file, line and key.
#   notify.sh STACKBENCH EXAMPLES_DIR
set -eu
exe=$1 examples=$2
name=cli.notify
work=$(mktemp -d /tmp/sb-notify-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "$name: FAIL: $*" >&2; exit 1; }

# The recorder: each event's STACKBENCH_* variables into a file per event and count; it prints
# a line and exits 3 (a failure the campaign must survive).
rec="[/bin/sh, -c, 'env | grep ^STACKBENCH_ | sort >\"\$1/\$STACKBENCH_EVENT-\$STACKBENCH_POINTS_DONE\"; echo recorded \$STACKBENCH_EVENT; exit 3', sh, $work/ev]"
mkdir "$work/ev"

# 1. A thermal campaign: Cfg4 only, wo: the point fails, is retried and fails again.
sed -e 's/^  cooling: \[Cfg1, Cfg2, Cfg3, Cfg4\]/  cooling: [Cfg4]/' -e 's/^  type: \[wo, ro\]/  type: [wo]/' \
	"$examples/thermal-failure.yaml" >"$work/tf.yaml"
printf 'notify:\n  command: %s\n  timeout_s: 5\n' "$rec" >>"$work/tf.yaml"
"$exe" run "$work/tf.yaml" --db "$work/t.db" >"$work/out" 2>"$work/err" ||
	fail "the run failed: $(cat "$work/err")"
[ "$(ls "$work/ev" | tr '\n' ' ')" = "done-1 thermal_failure-0 thermal_failure-1 " ] ||
	fail "the events: $(ls "$work/ev")"
want_done="STACKBENCH_CAMPAIGN=thermal-failure
STACKBENCH_CAMPAIGN_FILE=$work/tf.yaml
STACKBENCH_CAMPAIGN_HASH=$(sqlite3 "$work/t.db" 'SELECT hash FROM campaigns')
STACKBENCH_CAMPAIGN_ID=1
STACKBENCH_DB=$work/t.db
STACKBENCH_EVENT=done
STACKBENCH_MESSAGE=campaign 1 complete: 1 points (1 run now, 0 stored before, 2 with a thermal failure) in $(sed -n 's/.* failure) in \([0-9.]*\) s$/\1/p' "$work/out") s
STACKBENCH_POINTS_DONE=1
STACKBENCH_POINTS_TOTAL=1"
[ "$(cat "$work/ev/done-1")" = "$want_done" ] ||
	fail "done: $(diff "$work/ev/done-1" - <<EOF
$want_done
EOF
)"
key=$(sqlite3 "$work/t.db" 'SELECT key FROM points LIMIT 1' | sed 's/ rep=[0-9]*//')
grep -qx "STACKBENCH_POINT_INDEX=0" "$work/ev/thermal_failure-0" || fail "index: $(cat "$work/ev/thermal_failure-0")"
grep -qx "STACKBENCH_EVENT=thermal_failure" "$work/ev/thermal_failure-0" || fail "event"
grep -q "^STACKBENCH_POINT_KEY=cooling=Cfg4 rep=0 type=wo " "$work/ev/thermal_failure-0" || fail "key: $(cat "$work/ev/thermal_failure-0")"
t=$(sed -n 's/^STACKBENCH_TEMP_C=//p' "$work/ev/thermal_failure-0")
awk -v t="$t" 'BEGIN { exit !(t > 70 && t < 100) }' || fail "the temperature at the failure: '$t'"
grep -q "notify (thermal_failure): '/bin/sh' exited with status 3: recorded thermal_failure (the campaign goes on)" "$work/err" ||
	fail "the failure is not logged: $(cat "$work/err")"
echo "$name: thermal campaign: done-1, thermal_failure-0, thermal_failure-1; temperature $t C"

# 2. Ctrl-C: cancelled (the run ends, resumable), with what was stored.
sed -e 's/^  repetitions: .*//' -e 's/^sweep:/sweep:\n  repetitions: 50/' "$examples/../tests/daemon/data/slow.yaml" >"$work/slow.yaml"
printf 'notify: %s\n' "$rec" >>"$work/slow.yaml"
rm -f "$work/ev/"*
"$exe" run "$work/slow.yaml" --db "$work/s.db" >/dev/null 2>"$work/err" &
pid=$!
tries=0
until [ "$(sqlite3 "$work/s.db" 'SELECT count(*) FROM points' 2>/dev/null || echo 0)" -ge 2 ]; do
	tries=$((tries + 1))
	[ "$tries" -lt 1500 ] || { kill "$pid"; fail "no points after 30 s"; }
	sleep 0.02
done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -ne 0 ] || fail "the interrupted run exited 0"
f=$(ls "$work/ev")
case $f in cancelled-*) ;; *) fail "Ctrl-C: the events: $f ($(cat "$work/err"))" ;; esac
[ "${f#cancelled-}" = "$(sqlite3 "$work/s.db" 'SELECT count(*) FROM points')" ] ||
	fail "cancelled with ${f#cancelled-} points done, the database has $(sqlite3 "$work/s.db" 'SELECT count(*) FROM points')"
echo "$name: Ctrl-C: $f"

# 3. failed: an instrument that does not exist (the run fails; the command is told why).
sed -e 's/^instruments: none/instruments: {power: "wt310:\/nonexistent\/tty"}/' "$examples/quick.yaml" >"$work/bad.yaml"
printf 'notify: %s\n' "$rec" >>"$work/bad.yaml"
rm -f "$work/ev/"*
if "$exe" run "$work/bad.yaml" --db "$work/b.db" >/dev/null 2>"$work/err"; then
	fail "a run with a missing meter succeeded"
fi
[ "$(ls "$work/ev")" = "failed-0" ] || fail "failed: the events: $(ls "$work/ev") ($(cat "$work/err"))"
grep -q "^STACKBENCH_MESSAGE=.*nonexistent" "$work/ev/failed-0" || fail "failed: the message: $(cat "$work/ev/failed-0")"
echo "$name: failed: $(grep MESSAGE "$work/ev/failed-0")"

# 4. A program that does not end is killed at its timeout; one that does not exist is logged.
quick_with() { # NOTIFY-YAML: quick.yaml with 1 s points and this notify:
	sed -e 's/^  bandwidth_s: 2/  bandwidth_s: 0.01/' -e 's/positions: \[4, 8, 12, 16, 20, 24\]/positions: [4]/' \
		"$examples/quick.yaml" >"$work/q.yaml"
	printf 'notify: %s\n' "$1" >>"$work/q.yaml"
}
quick_with "{command: [/bin/sleep, 60], on: [done], timeout_s: 0.5}"
start=$(date +%s)
# (the notify command sleeps 60 s; a run that waited for it takes longer than 45 s, and a run
# killing it at 0.5 s stays below that even under ASan on a loaded machine)
"$exe" run "$work/q.yaml" --db "$work/q1.db" >/dev/null 2>"$work/err" || fail "the run with a slow notify failed: $(cat "$work/err")"
[ $(($(date +%s) - start)) -lt 45 ] || fail "the notify command was not killed at its timeout"
grep -q "notify (done): '/bin/sleep' did not end within 0.5 s: killed (the campaign goes on)" "$work/err" ||
	fail "the timeout: $(cat "$work/err")"
quick_with "[/nonexistent/notify, x]"
"$exe" run "$work/q.yaml" --db "$work/q2.db" >/dev/null 2>"$work/err" || fail "the run with a missing notify program failed"
grep -q "notify (done): cannot run '/nonexistent/notify': No such file or directory (the campaign goes on)" "$work/err" ||
	fail "the missing program: $(cat "$work/err")"
echo "$name: timeout and missing program: logged, the runs complete"

# 5. Refused settings: file, line, key.
refused() { # NOTIFY-YAML MESSAGE-PART
	quick_with "$1"
	if "$exe" run "$work/q.yaml" --db "$work/r.db" --dry-run >/dev/null 2>"$work/err"; then
		fail "accepted: notify: $1"
	fi
	grep -q "$2" "$work/err" || fail "notify: $1: $(cat "$work/err")"
}
line=$(($(wc -l <"$examples/quick.yaml") + 1))
refused '"echo done | mail me"' "line $line: key 'notify' (a command as a list: \[PROGRAM, ARG...\], never a shell line)"
refused '{command: [/bin/true], on: [finished]}' "line $line: key 'on' in 'notify'"
refused '{command: [/bin/true], timeout_s: 0}' "line $line.*timeout_s"
refused '[""]' "key 'notify': an empty program"
refused '{on: [done]}' "missing key 'command' in 'notify'"
# The setting is not part of the campaign's content: the same hash with or without it.
quick_with '[/bin/true]'
sed '$d' "$work/q.yaml" >"$work/q0.yaml"
h1=$("$exe" run "$work/q.yaml" --db "$work/h.db" --dry-run 2>&1 | sed -n 's/.*hash \([0-9a-f]*\).*/\1/p' | head -1)
h2=$("$exe" run "$work/q0.yaml" --db "$work/h.db" --dry-run 2>&1 | sed -n 's/.*hash \([0-9a-f]*\).*/\1/p' | head -1)
[ -n "$h1" ] && [ "$h1" = "$h2" ] || fail "the hash with notify '$h1', without '$h2'"
echo "$name: ok"
