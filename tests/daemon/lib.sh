# Shared by the daemon tests (sourced): a temporary folder ($work, removed at exit with the
# daemon killed), and a stackbenchd on a socket and state folder in it. The caller sets name
# (for messages), exe (stackbench) and daemon (stackbenchd), and may redefine cleanup_hook.
dpid=""
work=$(mktemp -d /tmp/sb-daemon-test-XXXXXX)
cleanup_hook() { :; }
trap 'cleanup_hook; kill_daemon; rm -rf "$work"' EXIT
export STACKBENCH_LOCK_DIR="$work/locks"
export STACKBENCH_SOCKET="$work/s.sock"
mkdir -p "$STACKBENCH_LOCK_DIR"
chmod 1777 "$STACKBENCH_LOCK_DIR" # as /run/lock: every user takes locks there

fail() {
	echo "$name: FAIL: $*" >&2
	if [ -f "$work/daemon.log" ]; then
		echo "--- the daemon's log (last lines):" >&2
		tail -n 40 "$work/daemon.log" >&2
	fi
	exit 1
}

# start_daemon [OPTIONS...]: start it in the foreground (logs in $work/daemon.log) and wait
# until it answers.
start_daemon() {
	"$daemon" --foreground --socket "$work/s.sock" --state-dir "$work/state" \
		--http "${http:-none}" "$@" >>"$work/daemon.log" 2>&1 &
	dpid=$!
	tries=0
	until "$exe" queue >/dev/null 2>&1; do
		kill -0 "$dpid" 2>/dev/null || fail "the daemon did not start"
		tries=$((tries + 1))
		[ "$tries" -lt 400 ] || fail "the daemon does not answer after 20 s"
		sleep 0.05
	done
}

# stop_daemon: SIGTERM and wait; fails unless it exits 0 within 30 s.
stop_daemon() {
	kill -TERM "$dpid"
	tries=0
	while kill -0 "$dpid" 2>/dev/null; do
		tries=$((tries + 1))
		[ "$tries" -lt 600 ] || fail "the daemon did not stop within 30 s of SIGTERM"
		sleep 0.05
	done
	wait "$dpid" || fail "the daemon exited with $? after SIGTERM"
	dpid=""
}

kill_daemon() {
	if [ -n "$dpid" ]; then
		kill -9 "$dpid" 2>/dev/null || true
		wait "$dpid" 2>/dev/null || true
	fi
	dpid=""
}

# count DB: points stored (0 when the database does not exist yet).
count() {
	[ -f "$1" ] || { echo 0; return; }
	sqlite3 "$1" "SELECT count(*) FROM points" 2>/dev/null || echo 0
}

# wait_points DB N: until DB has at least N points (60 s at most).
wait_points() {
	tries=0
	while [ "$(count "$1")" -lt "$2" ]; do
		tries=$((tries + 1))
		[ "$tries" -lt 3000 ] || fail "fewer than $2 points in '$1' after 60 s"
		sleep 0.02
	done
}

# exactly_once DB TOTAL: every point 0..TOTAL-1 stored once, one campaign, complete.
exactly_once() {
	[ "$(sqlite3 "$1" "SELECT count(*) || ' ' || count(DISTINCT idx) || ' ' || min(idx) || ' ' || max(idx) FROM points")" = "$2 $2 0 $(($2 - 1))" ] ||
		fail "'$1': the points are not 0..$(($2 - 1)) exactly once: $(sqlite3 "$1" "SELECT count(*), count(DISTINCT idx) FROM points")"
	[ "$(sqlite3 "$1" "SELECT count(*) || ' ' || status FROM campaigns")" = "1 complete" ] ||
		fail "'$1': not one complete campaign"
	[ "$(sqlite3 "$1" "PRAGMA integrity_check")" = ok ] || fail "'$1': integrity check"
}
