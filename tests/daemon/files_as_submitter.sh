#!/bin/sh
# The root daemon never opens a file a request names (issue 21, defect 2; issue 23, item
# 5.2): the campaign is read, and the database checked, by a process running as the submitter,
# within a time limit, before anything is queued.
#   - a FIFO as the bench file of a cooling sweep (sim:?bench=FIFO) hung the daemon's main
#     thread: every client timed out. Now the submit is refused (not a regular file) and the
#     daemon answers meanwhile;
#   - a root-only 0600 file as the bench file: its contents came back in the error message.
#     Now the member is told only that it cannot be opened;
#   - a database in a folder that does not exist was queued (exit 0) and failed seconds later.
#     Now refused at submit, naming the folder;
#   - a member known only by number (no /etc/passwd entry) gets its job run as that number.
#   files_as_submitter.sh STACKBENCH STACKBENCHD SB_SOCKPROBE EXAMPLES_DIR
set -eu
name=daemon.files_as_submitter
exe=$1 daemon=$2 probe=$3 examples=$4
. "$(dirname "$0")/users.sh"
. "$(dirname "$0")/lib.sh"
chmod 755 "$work"
mkdir "$work/alice" "$work/num"
chown sbt_alice "$work/alice"
chown "$num_uid" "$work/num"

start_daemon --group "$lab"
sock=$work/s.sock

# A thermal campaign with a cooling sweep whose bench file is PATH.
campaign() {
	cat <<EOF
name: bench-file
kind: thermal
bench:
  device: "sim:?bench=$1"
instruments: sim
durations: {thermal_s: 1}
sample_interval_ms: 100
sweep:
  cooling: [Cfg1, Cfg3]
  type: [ro]
EOF
}

# A FIFO the member made (she can open it; nobody writes to it).
mkfifo "$work/alice/bench.fifo"
chown sbt_alice "$work/alice/bench.fifo"
campaign "$work/alice/bench.fifo" >"$work/fifo.yaml"
chmod 644 "$work/fifo.yaml"
as_alice "$exe" submit "$work/fifo.yaml" --db "$work/alice/r.db" >"$work/out" 2>&1 &
spid=$!
sleep 0.5
t0=$(date +%s%N)
"$probe" "$sock" --line '{"cmd":"status"}' --read 1 --timeout-ms 5000 >/dev/null ||
	fail "the daemon does not answer while a member's campaign names a FIFO"
ms=$((($(date +%s%N) - t0) / 1000000))
tries=0
while kill -0 "$spid" 2>/dev/null; do
	tries=$((tries + 1))
	[ "$tries" -lt 400 ] || fail "the submit naming a FIFO did not end within 20 s"
	sleep 0.05
done
if wait "$spid"; then
	fail "a campaign whose bench file is a FIFO was queued: $(cat "$work/out")"
fi
grep -q "bench.fifo.*not a regular file (a FIFO)" "$work/out" ||
	fail "the FIFO's refusal: $(cat "$work/out")"
echo "$name: a FIFO as bench file refused ($(cat "$work/out")); status answered in $ms ms"

# A root-only file as the bench file: the member learns nothing of its contents.
printf 'name: TOP-SECRET-%s\n' "$$" >"$work/secret.yaml"
chmod 600 "$work/secret.yaml"
campaign "$work/secret.yaml" >"$work/leak.yaml"
chmod 644 "$work/leak.yaml"
if as_alice "$exe" submit "$work/leak.yaml" --db "$work/alice/r.db" >"$work/out" 2>&1; then
	fail "a campaign naming a root-only bench file was queued"
fi
! grep -q "TOP-SECRET" "$work/out" || fail "the root-only file's contents leaked: $(cat "$work/out")"
grep -q "secret.yaml.*\(Permission denied\|not found\)" "$work/out" || fail "the refusal: $(cat "$work/out")"
echo "$name: a root-only bench file: $(cat "$work/out")"

# A database in a folder that does not exist: refused at once, not queued (issue 23, 5.2).
cp "$examples/quick.yaml" "$work/quick.yaml"
chmod 644 "$work/quick.yaml"
rc=0
as_alice "$exe" submit "$work/quick.yaml" --db /nonexistent/dir/x.db >"$work/out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "a database in a missing folder was queued: $(cat "$work/out")"
grep -q "'/nonexistent/dir'.*No such file or directory" "$work/out" ||
	fail "the missing folder's refusal: $(cat "$work/out")"
[ "$("$exe" queue --json | tr -d ' \t\n')" = '[]' ] || fail "a job was queued: $("$exe" queue)"
echo "$name: a missing database folder: exit $rc, $(cat "$work/out")"

# A member known only by number runs as that number (its groups: those it connected with).
id=$(as_num "$exe" submit "$work/quick.yaml" --db "$work/num/r.db" 2>"$work/err") ||
	fail "the numeric member's submit: $(cat "$work/err")"
as_num "$exe" follow "$id" >/dev/null 2>"$work/err" || fail "the numeric member's job: $(cat "$work/err")"
[ "$(stat -c %u "$work/num/r.db")" = "$num_uid" ] ||
	fail "the database belongs to $(stat -c %u "$work/num/r.db"), not $num_uid"
exactly_once "$work/num/r.db" 21
kill -0 "$dpid" || fail "the daemon died"
stop_daemon
echo "$name: ok"
