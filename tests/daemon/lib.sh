# Shared by the daemon tests (sourced): a temporary folder ($work, removed at exit with the
# daemon killed), and a stackbenchd on a socket and state folder in it. The caller sets name
# (for messages), exe (stackbench) and daemon (stackbenchd), and may redefine cleanup_hook.
dpid=""
work=$(mktemp -d /tmp/sb-daemon-test-XXXXXX)
cleanup_hook() { :; }
# kill_tree PID: its descendants, then PID. "as_alice CMD &" makes $! a subshell whose child runs
# CMD (as_alice is a function): killing $! alone leaves CMD running after the test.
kill_tree() {
	for c in $(cat "/proc/$1/task/"*/children 2>/dev/null); do
		kill_tree "$c"
	done
	kill "$1" 2>/dev/null || true
}
trap 'cleanup_hook; kill_daemon; rm -rf "$work"' EXIT
export STACKBENCH_LOCK_DIR="$work/locks"
export STACKBENCH_SOCKET="$work/s.sock"
mkdir -p "$STACKBENCH_LOCK_DIR/stackbench"
chmod 1777 "$STACKBENCH_LOCK_DIR" # as /run/lock: every user takes campaign locks there
# the boards' lock folder, as tmpfiles.d makes /run/lock/stackbench: root's (or ours), 2770
chmod 2770 "$STACKBENCH_LOCK_DIR/stackbench"

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

# job_state JOB: the job's state, as `stackbench queue --json` says ("" if not listed).
job_state() {
	"$exe" queue --json | tr -d ' \t\n' | sed -n "s/.*{\"id\":$1,\"state\":\"\([a-z]*\)\".*/\1/p"
}

# wait_job_state JOB STATE: until the job is in that state (30 s at most).
wait_job_state() {
	until_s=$(($(date +%s) + 30))
	until [ "$(job_state "$1")" = "$2" ]; do
		[ "$(date +%s)" -lt "$until_s" ] || fail "job $1 is $(job_state "$1"), not $2, after 30 s"
		sleep 0.05
	done
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

# The points CSV (RFC 4180: quoted fields, doubled quotes) without the run's clock: the columns
# wall_s and finished_at, and started_at / finished_at inside the provenance column. One field
# per line ("column=value") to compare and to show differences.
without_clock() {
	awk '
	function parse(line,   i, c, f, n, q) {
		n = 0; f = ""; q = 0
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (q) {
				if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { f = f c; i++ } else q = 0 }
				else f = f c
			} else if (c == "\"") q = 1
			else if (c == ",") { F[++n] = f; f = "" }
			else f = f c
		}
		if (q) { print "a quoted field spans lines" > "/dev/stderr"; exit 2 }
		F[++n] = f
		return n
	}
	NR == 1 { ncol = parse($0); for (i = 1; i <= ncol; i++) H[i] = F[i]; next }
	{
		if (parse($0) != ncol) { print "row " NR ": wrong number of fields" > "/dev/stderr"; exit 2 }
		for (i = 1; i <= ncol; i++) {
			if (H[i] == "wall_s" || H[i] == "finished_at") continue
			if (H[i] == "provenance") gsub(/"(started|finished)_at":"[^"]*"/, "", F[i])
			print NR ": " H[i] "=" F[i]
		}
	}' "$1"
}
# same_exports DB PLAIN_DB WHAT: the ports and samples CSV exports of DB equal those of PLAIN_DB
# byte for byte, and the points CSV field by field without the run's clock (without_clock).
same_exports() {
	for t in points ports samples; do
		"$exe" export --db "$1" --format csv --table $t --out "$1-$t.csv" ||
			fail "$3: cannot export '$1'"
		"$exe" export --db "$2" --format csv --table $t --out "$2-$t.csv" ||
			fail "$3: cannot export '$2'"
	done
	cmp -s "$1-ports.csv" "$2-ports.csv" || fail "$3: ports differ"
	cmp -s "$1-samples.csv" "$2-samples.csv" || fail "$3: samples differ"
	without_clock "$1-points.csv" >"$work/a" || fail "$3: cannot read the points CSV"
	without_clock "$2-points.csv" >"$work/b" || fail "$3: cannot read the plain CSV"
	[ "$(grep -c '^2: ' "$work/a")" -gt 40 ] || fail "$3: too few columns compared"
	cmp -s "$work/a" "$work/b" || fail "$3: points differ: $(diff "$work/a" "$work/b" | head -4)"
}
