#!/bin/sh
# The default unit's daemon (stackbenchd.service): not root but a user of its own, with only
# CAP_SETUID, CAP_SETGID and CAP_KILL (ambient, as the unit gives them), its socket in
# /run/stackbench, which its user owns (here a private /run). Members' jobs run as the members,
# not as the daemon's user, without any capability; the grace period's SIGKILL reaches a
# member's stopped job; clients trust the daemon as the owner of /run/stackbench. Without the
# capabilities it cannot run jobs as others, and so refuses the group's members.
#   no_root.sh STACKBENCH STACKBENCHD DATA_DIR
set -eu
name=daemon.no_root
exe=$1 daemon=$2 data=$3
. "$(dirname "$0")/users.sh"
. "$(dirname "$0")/lib.sh"
chmod 755 "$work"
unset STACKBENCH_SOCKET
# A /run of the namespace's own: /run/stackbench made for the daemon's user, as systemd's
# RuntimeDirectory= does.
mount -t tmpfs -o mode=755 tmpfs /run
mkdir -m 755 /run/stackbench
chown sbt_daemon /run/stackbench
mkdir -m 700 "$work/state" "$work/alice"
chown sbt_daemon "$work/state"
chown sbt_alice "$work/alice"
sed 's/^sweep:/sweep:\n  repetitions: 20/' "$data/slow.yaml" >"$work/long.yaml"
chmod 644 "$work/long.yaml"

# start_as CAPS: the daemon as sbt_daemon with the capabilities CAPS ("" : none).
start_as() {
	if [ -n "$1" ]; then
		set -- --inh-caps="$1" --ambient-caps="$1"
	else
		set --
	fi
	touch "$work/daemon.log"
	served=$(grep -c 'serving' "$work/daemon.log") || served=0
	setpriv --reuid=sbt_daemon --regid="$daemon_gid" --init-groups "$@" "$daemon" --foreground \
		--socket /run/stackbench/stackbench.sock --state-dir "$work/state" --group "$lab" \
		--http none --limit grace-s=2 >>"$work/daemon.log" 2>&1 &
	dpid=$!
	tries=0
	# Up when it answers, or (refusing members) when the log has one more 'serving' line: the
	# log is shared by both daemons of this test.
	until as_alice "$exe" queue >/dev/null 2>&1 ||
		[ "$(grep -c 'serving' "$work/daemon.log")" -gt "$served" ]; do
		kill -0 "$dpid" 2>/dev/null || fail "the daemon did not start"
		tries=$((tries + 1))
		[ "$tries" -lt 400 ] || fail "the daemon does not answer after 20 s"
		sleep 0.05
	done
}

start_as +setuid,+setgid,+kill
[ "$(awk '/^Uid:/ { print $2 }' "/proc/$dpid/status")" = "$daemon_uid" ] || fail "the daemon runs as root"
id=$(as_alice "$exe" submit "$work/long.yaml" --db "$work/alice/r.db" 2>"$work/err") ||
	fail "a member's submit to the no-root daemon: $(cat "$work/err")"
wait_points "$work/alice/r.db" 1
p=$(as_alice "$exe" queue --json | tr -d ' \t\n' | sed -n 's/.*"pid":\([0-9]*\).*/\1/p')
[ -n "$p" ] || fail "no job process"
st=/proc/$p/status
[ "$(awk '/^Uid:/ { print $2, $3, $4 }' "$st")" = "$alice_uid $alice_uid $alice_uid" ] ||
	fail "the member's job runs as $(grep Uid: "$st")"
[ "$(awk '/^CapPrm:/ { print $2 }' "$st")" = 0000000000000000 ] &&
	[ "$(awk '/^CapAmb:/ { print $2 }' "$st")" = 0000000000000000 ] || fail "the job kept capabilities: $(grep Cap "$st")"
[ "$(stat -c %U "$work/alice/r.db")" = sbt_alice ] || fail "the database belongs to $(stat -c %U "$work/alice/r.db")"
echo "$name: the no-root daemon (uid $daemon_uid, caps $(awk '/^CapEff:/ { print $2 }' "/proc/$dpid/status")) runs Alice's job as $alice_uid, no capability"
# A stopped job: SIGKILL after the grace period, by CAP_KILL.
as_alice kill -STOP "$p"
as_alice "$exe" cancel "$id" >/dev/null || fail "cancel"
if as_alice "$exe" follow "$id" >/dev/null 2>"$work/err"; then
	fail "a cancelled job followed as done"
fi
grep -q "grace period: killed" "$work/err" || fail "the stopped job: $(cat "$work/err")"
! kill -0 "$p" 2>/dev/null || fail "the stopped job lives on"
kill -TERM "$dpid"
wait "$dpid" || fail "the daemon exited with $?"
dpid=""

# Without the capabilities: members are refused (their jobs could not run as them).
start_as ""
rc=0
as_alice "$exe" queue >"$work/out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && grep -q "not allowed" "$work/out" ||
	fail "a member of a daemon without capabilities: $rc $(cat "$work/out")"
grep -q "cannot run jobs as their users" "$work/daemon.log" || fail "the daemon did not say why"
kill -TERM "$dpid"
wait "$dpid" || true
dpid=""
echo "$name: ok"
