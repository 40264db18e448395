#!/bin/sh
# The client talks only to a daemon it can trust (issue 21, defect 5). With XDG_RUNTIME_DIR
# (and HOME) unset, a user's own daemon lives in /tmp/stackbench-UID, a name anyone can take
# first: another user made that folder, put a fake daemon in it, and received the user's whole
# campaign ("queued"). Now the client uses that folder only if it is the user's own with mode
# 0700, and checks who serves any socket (SO_PEERCRED: root, the user, or the system daemon's
# user) before it sends anything.
#   client_trust.sh STACKBENCH SB_SOCKPROBE EXAMPLES_DIR
set -eu
name=daemon.client_trust
exe=$1 probe=$2 examples=$3
daemon=/bin/false
. "$(dirname "$0")/users.sh"
. "$(dirname "$0")/lib.sh"
chmod 755 "$work"
fake_dir=/tmp/stackbench-$alice_uid
fpid=""
cleanup_hook() {
	[ -z "$fpid" ] || kill_tree "$fpid"
	rm -rf "$fake_dir"
}
cp "$examples/quick.yaml" "$work/quick.yaml"
chmod 644 "$work/quick.yaml"
reply='{"v":1,"ok":true,"job":{"id":1,"state":"queued","name":"quick","points_total":21,"db":"/x"}}'

# Bob takes Alice's default folder first and serves a fake daemon in it.
as_bob sh -c "mkdir -m 777 '$fake_dir' && exec '$probe' '$fake_dir/stackbench.sock' --serve '$reply'" >"$work/fake.log" 2>&1 &
fpid=$!
tries=0
until grep -q serving "$work/fake.log" 2>/dev/null; do
	tries=$((tries + 1))
	[ "$tries" -lt 400 ] || fail "the fake daemon did not start: $(cat "$work/fake.log")"
	sleep 0.05
done
rc=0
as_alice env -u STACKBENCH_SOCKET -u XDG_RUNTIME_DIR -u XDG_STATE_HOME -u HOME \
	"$exe" submit "$work/quick.yaml" --db "$work/r.db" >"$work/out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "Alice submitted to Bob's fake daemon: $(cat "$work/out")"
! grep -q "got:" "$work/fake.log" || fail "the fake daemon received: $(cat "$work/fake.log")"
grep -q "'$fake_dir' belongs to user $bob_uid, not to you" "$work/out" ||
	fail "the refusal: $(cat "$work/out")"
echo "$name: a pre-made folder: $(cat "$work/out")"

# A socket named outright (--socket) but served by another user: nothing is sent.
rc=0
as_alice "$exe" submit "$work/quick.yaml" --db "$work/r.db" --socket "$fake_dir/stackbench.sock" \
	>"$work/out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "Alice submitted to Bob's socket: $(cat "$work/out")"
! grep -q "got:" "$work/fake.log" || fail "the fake daemon received: $(cat "$work/fake.log")"
grep -q "is served by user $bob_uid (PID [0-9]*), neither root, you nor the system daemon's user" "$work/out" ||
	fail "the peer check: $(cat "$work/out")"
echo "$name: another user's socket: $(cat "$work/out")"

# Her own folder, but open to others (0755): refused too; made private (0700): used.
kill_tree "$fpid"
wait "$fpid" 2>/dev/null || true
fpid=""
rm -rf "$fake_dir"
as_alice sh -c "mkdir -m 755 '$fake_dir' && exec '$probe' '$fake_dir/stackbench.sock' --serve '$reply'" >"$work/own.log" 2>&1 &
fpid=$!
tries=0
until grep -q serving "$work/own.log" 2>/dev/null; do
	tries=$((tries + 1))
	[ "$tries" -lt 400 ] || fail "her server did not start"
	sleep 0.05
done
rc=0
as_alice env -u STACKBENCH_SOCKET -u XDG_RUNTIME_DIR -u XDG_STATE_HOME -u HOME \
	"$exe" queue >"$work/out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && grep -q "has mode 0755: a daemon's private folder must be 0700" "$work/out" ||
	fail "a 0755 folder: $rc $(cat "$work/out")"
chmod 700 "$fake_dir"
as_alice env -u STACKBENCH_SOCKET -u XDG_RUNTIME_DIR -u XDG_STATE_HOME -u HOME \
	"$exe" submit "$work/quick.yaml" --db "$work/r.db" >"$work/out" 2>&1 ||
	fail "her own private folder was refused: $(cat "$work/out")"
grep -q "got:" "$work/own.log" || fail "her own daemon got nothing"
echo "$name: ok"
