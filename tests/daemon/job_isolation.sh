#!/bin/sh
# Each job runs in a process of its own as its submitter (issue 21, the design): the process
# is the member's (uid, groups, no capability), a job process that crashes fails its job only,
# and one that hangs (stopped: it ignores SIGTERM's effect) is cancelled within the grace
# period (SIGTERM, then SIGKILL), its campaign left resumable; the daemon serves throughout.
#   job_isolation.sh STACKBENCH STACKBENCHD SB_SOCKPROBE DATA_DIR
set -eu
name=daemon.job_isolation
exe=$1 daemon=$2 probe=$3 data=$4
. "$(dirname "$0")/users.sh"
. "$(dirname "$0")/lib.sh"
chmod 755 "$work"
mkdir "$work/alice"
chown sbt_alice "$work/alice"
cp "$data/slow.yaml" "$work/slow.yaml"
chmod 644 "$work/slow.yaml"
# slow.yaml, long enough to be caught running (12 points of ~2 s of CPU each, repeated)
sed 's/^sweep:/sweep:\n  repetitions: 20/' "$data/slow.yaml" >"$work/long.yaml"
chmod 644 "$work/long.yaml"

start_daemon --group "$lab"
jpid() { "$exe" queue --json | tr -d ' \t\n' | sed -n "s/.*{\"id\":$1,[^}]*\"pid\":\([0-9]*\)}.*/\1/p"; }
wait_pid() {
	tries=0
	until [ -n "$(jpid "$1")" ]; do
		tries=$((tries + 1))
		[ "$tries" -lt 600 ] || fail "job $1 has no process after 30 s"
		sleep 0.05
	done
	jpid "$1"
}

# The job's process is the member's: her uid and groups, no capability, not the daemon.
id=$(as_alice "$exe" submit "$work/long.yaml" --db "$work/alice/a.db" 2>"$work/err") ||
	fail "submit: $(cat "$work/err")"
wait_points "$work/alice/a.db" 1
p=$(wait_pid "$id")
[ "$p" != "$dpid" ] || fail "the job runs in the daemon's process"
st=/proc/$p/status
[ "$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "$st")" = "$alice_uid $alice_uid $alice_uid $alice_uid" ] ||
	fail "the job's uids: $(grep Uid: "$st")"
[ "$(awk '/^Gid:/ { print $2 }' "$st")" = "$lab_gid" ] || fail "the job's gids: $(grep Gid: "$st")"
grep -q "^Groups:.*\b$lab_gid\b" "$st" || fail "the job's groups: $(grep Groups: "$st")"
[ "$(awk '/^CapEff:/ { print $2 }' "$st")" = 0000000000000000 ] && \
	[ "$(awk '/^CapPrm:/ { print $2 }' "$st")" = 0000000000000000 ] || fail "capabilities: $(grep Cap "$st")"
[ "$(awk '/^NoNewPrivs:/ { print $2 }' "$st")" = 1 ] || fail "no_new_privs not set"
echo "$name: job $id runs in process $p as $(awk '/^Uid:/ { print $2 }' "$st"), groups $(awk '/^Groups:/ { $1 = ""; print }' "$st")"

# A crash: the job fails, saying so; the daemon serves on; the campaign resumes by hand. SIGABRT
# (an assertion's end), not SIGSEGV: the sanitizer build catches a SEGV and exits with status 1.
kill -ABRT "$p"
if as_alice "$exe" follow "$id" >/dev/null 2>"$work/err"; then
	fail "a crashed job followed as done"
fi
grep -q "killed by signal 6" "$work/err" || fail "the crash: $(cat "$work/err")"
"$probe" "$work/s.sock" --line '{"cmd":"status"}' --read 1 | grep -q '"ok":true' ||
	fail "not serving after a job crashed"
echo "$name: a crashed job: $(tail -1 "$work/err")"

# A hang: the job process stopped (SIGSTOP, by its own user) is cancelled within the grace
# period; the points it stored stay, the campaign resumable.
id=$(as_alice "$exe" submit "$work/long.yaml" --db "$work/alice/h.db" 2>"$work/err") ||
	fail "submit: $(cat "$work/err")"
wait_points "$work/alice/h.db" 1
p=$(wait_pid "$id")
as_alice kill -STOP "$p"
t0=$(date +%s%N)
"$exe" cancel "$id" >/dev/null || fail "cancel"
if "$exe" follow "$id" >/dev/null 2>"$work/err"; then
	fail "a cancelled job followed as done"
fi
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -lt 15000 ] || fail "the hung job took $ms ms to cancel (grace 10 s)"
grep -q "cancelled with .*did not stop in its grace period: killed" "$work/err" ||
	fail "the cancel: $(cat "$work/err")"
! kill -0 "$p" 2>/dev/null || fail "the hung job's process lives on"
n=$(count "$work/alice/h.db")
as_alice "$exe" run "$work/long.yaml" --db "$work/alice/h.db" --resume >/dev/null 2>"$work/err" &
rpid=$!
wait_points "$work/alice/h.db" $((n + 1))
kill_tree "$rpid"
wait "$rpid" 2>/dev/null || true
echo "$name: a hung job cancelled in $ms ms with $n points stored; it resumes by hand"
"$probe" "$work/s.sock" --line '{"cmd":"status"}' --read 1 | grep -q '"ok":true' ||
	fail "not serving after a job hung"
stop_daemon
echo "$name: ok"
