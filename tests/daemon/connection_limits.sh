#!/bin/sh
# One member cannot lock the others out of the socket (issue 21, defect 6): 256 idle
# connections of one user filled every slot, root's included, and stayed. Now a user holds at
# most clients-per-user connections, the last root-reserved slots are root's, and a connection
# that asks nothing for idle-s seconds is closed (told why).
#   connection_limits.sh STACKBENCH STACKBENCHD SB_SOCKPROBE
set -eu
name=daemon.connection_limits
exe=$1 daemon=$2 probe=$3
. "$(dirname "$0")/users.sh"
. "$(dirname "$0")/lib.sh"
chmod 755 "$work"
hpid=""
cleanup_hook() { [ -z "$hpid" ] || kill "$hpid" 2>/dev/null || true; }
status='{"cmd":"status"}'

# The defaults: 16 connections per user, 8 of 256 kept for root.
start_daemon --group "$lab"
sock=$work/s.sock
# Alice opens 300 idle connections and keeps them.
as_alice "$probe" "$sock" --hold 300 --sleep-ms 30000 >"$work/hold" 2>&1 &
hpid=$!
tries=0
until grep -q "^hold:" "$work/hold"; do
	tries=$((tries + 1))
	[ "$tries" -lt 600 ] || fail "the 300 connections were not opened: $(cat "$work/hold")"
	sleep 0.05
done
"$probe" "$sock" --line "$status" --read 1 --timeout-ms 5000 | grep -q '"ok":true' ||
	fail "root cannot use the daemon while a member holds connections ($(cat "$work/hold"))"
as_bob "$probe" "$sock" --line "$status" --read 1 --timeout-ms 5000 | grep -q '"ok":true' ||
	fail "another member cannot use the daemon while Alice holds connections"
# (her probe's own first connection is the 16th)
grep -q "^hold: 15 open, 285 refused" "$work/hold" || fail "Alice's connections: $(cat "$work/hold")"
as_alice "$probe" "$sock" --read 1 --timeout-ms 5000 >"$work/out" 2>&1 || true
grep -q '"code":"busy","message":"user '"$alice_uid"' has 16 connections open (the limit per user' "$work/out" ||
	fail "Alice's 17th connection: $(cat "$work/out")"
echo "$name: $(cat "$work/hold"); root and Bob served; Alice's next: busy"
kill "$hpid"
wait "$hpid" 2>/dev/null || true
hpid=""
stop_daemon

start_daemon --group "$lab" --limit idle-s=6

# Idle: a connection that asks nothing is told, then closed.
as_bob "$probe" "$sock" --sleep-ms 7500 --read 1 --timeout-ms 2000 >"$work/out" 2>&1 ||
	fail "no word on an idle connection: $(cat "$work/out")"
grep -q '"code":"timeout","message":"idle for 6 s: closed' "$work/out" ||
	fail "the idle connection: $(cat "$work/out")"
stop_daemon
echo "$name: ok"
