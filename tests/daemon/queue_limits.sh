#!/bin/sh
# The queue has bounds (issue 21, defect 7): campaign texts up to 1 MiB were accepted, finished jobs
# kept their text in memory, and queue.db was never pruned (150 submits and cancels: RSS 32 to
# 506 MB, the state folder 80 KB to 151 MB). Now a campaign text is at most campaign-bytes, a
# finished job's text leaves memory and queue.db, finished jobs beyond keep-jobs leave
# queue.db, and a user has at most jobs-per-user active jobs.
#   queue_limits.sh STACKBENCH STACKBENCHD EXAMPLES_DIR DATA_DIR
set -eu
name=daemon.queue_limits
exe=$1 daemon=$2 examples=$3 data=$4
. "$(dirname "$0")/lib.sh"
# In the sanitizer build, AddressSanitizer keeps freed memory in quarantine (256 MB by default):
# the RSS below would measure the quarantine, not the daemon. Nothing changes otherwise.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1"

rss() { awk '/^VmRSS/ { print $2 }' "/proc/$dpid/status"; }
# A valid campaign of about N KiB: quick.yaml and comment lines.
padded() {
	cp "$examples/quick.yaml" "$2"
	awk -v n="$1" 'BEGIN { for (i = 0; i < n * 8; i++) printf "# %0125d\n", i }' >>"$2"
}

# The defaults (campaign-bytes 262144).
start_daemon
padded 900 "$work/big.yaml"
rc=0
"$exe" submit "$work/big.yaml" --db "$work/big.db" >"$work/out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "a 900 KiB campaign was queued"
grep -q "the campaign is [0-9]* bytes; this daemon takes at most 262144" "$work/out" ||
	fail "the 900 KiB refusal: $(cat "$work/out")"
echo "$name: $(cat "$work/out")"

# The board held by a long job whose process is stopped (it holds the board, using no CPU);
# 30 jobs of 200 KiB queued and cancelled behind it.
sed 's/^sweep:/sweep:\n  repetitions: 50/' "$data/slow.yaml" >"$work/long.yaml"
long=$("$exe" submit "$work/long.yaml" --db "$work/long.db" 2>/dev/null) || fail "submit"
wait_points "$work/long.db" 1
tries=0
until lpid=$("$exe" queue --json | tr -d ' \t\n' | sed -n 's/.*"pid":\([0-9]*\).*/\1/p') && [ -n "$lpid" ]; do
	tries=$((tries + 1))
	[ "$tries" -lt 600 ] || fail "the long job did not start"
	sleep 0.05
done
kill -STOP "$lpid"
padded 200 "$work/pad.yaml"
rss0=$(rss)
i=0
while [ "$i" -lt 30 ]; do
	id=$("$exe" submit "$work/pad.yaml" --db "$work/p$i.db" 2>"$work/err") ||
		fail "submit $i: $(cat "$work/err")"
	"$exe" cancel "$id" >/dev/null || fail "cancel $id"
	i=$((i + 1))
done
rss1=$(rss)
grow=$(((rss1 - rss0) / 1024))
[ "$grow" -lt 20 ] || fail "30 submits and cancels grew the daemon by $grow MB ($rss0 -> $rss1 kB)"
[ "$(sqlite3 "$work/state/queue.db" "SELECT count(*) FROM jobs WHERE campaign != '' AND state = 'cancelled'")" -eq 0 ] ||
	fail "cancelled jobs keep their text in queue.db"
"$exe" cancel "$long" >"$work/out" 2>&1 || fail "cancel the long job: $(cat "$work/out")"
"$exe" follow "$long" >/dev/null 2>&1 || true
stop_daemon
# Pruned at the next start: the latest 20 finished jobs stay.
start_daemon --limit keep-jobs=20
tries=0
until [ "$(sqlite3 "$work/state/queue.db" "SELECT count(*) FROM jobs")" -le 20 ]; do
	tries=$((tries + 1))
	[ "$tries" -lt 200 ] || fail "queue.db not pruned: $(sqlite3 "$work/state/queue.db" "SELECT count(*) FROM jobs") jobs"
	sleep 0.05
done
size=$(du -sk "$work/state" | cut -f1)
[ "$size" -lt 2048 ] || fail "the state folder is $size kB after pruning"
echo "$name: 30 x 200 KiB submits and cancels: RSS $rss0 -> $rss1 kB; state folder $size kB, $(sqlite3 "$work/state/queue.db" "SELECT count(*) FROM jobs") jobs kept"
stop_daemon

# Active jobs per user.
start_daemon --limit jobs-per-user=3
cp "$examples/quick.yaml" "$work/q.yaml"
long=$("$exe" submit "$work/long.yaml" --db "$work/l2.db" 2>/dev/null) || fail "submit"
for i in 1 2; do
	"$exe" submit "$work/q.yaml" --db "$work/u$i.db" >/dev/null 2>&1 || fail "submit $i"
done
rc=0
"$exe" submit "$work/q.yaml" --db "$work/u3.db" >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 3 ] && grep -q "user 0 has 3 jobs waiting or running (the limit per user" "$work/out" ||
	fail "a 4th active job: $rc $(cat "$work/out")"
"$exe" cancel "$long" >/dev/null
stop_daemon
echo "$name: ok"
