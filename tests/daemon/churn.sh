#!/bin/sh
# Follower churn (issue 21, defect 1): followers that come and go while campaigns stream
# events — `stackbench follow` interrupted with SIGINT after 0.3 s, of all jobs and of one job,
# and raw followers that hang up without reading — for SECONDS (10 in the normal build, 60 in
# the ASan + UBSan build). A follower dropped while its hang-up was still in the daemon's batch
# of epoll events was freed twice (double free, glibc abort; ASan: use after free in
# client_read). The daemon must serve throughout, stop cleanly, log no error, and every
# campaign it ran meanwhile must equal a plain `stackbench run` of the same file.
#   churn.sh STACKBENCH STACKBENCHD SB_SOCKPROBE EXAMPLES_DIR SECONDS
set -eu
name=daemon.churn
exe=$1 daemon=$2 probe=$3 examples=$4 secs=$5
. "$(dirname "$0")/lib.sh"
cleanup_hook() {
	for p in $churners; do kill "$p" 2>/dev/null || true; done
}
churners=""

start_daemon
sock=$work/s.sock

# One follower loop: SIGINT after 0.3 s, again and again (ARGS: what to follow).
churn() {
	while [ ! -e "$work/stop" ]; do
		timeout -s INT 0.3 "$exe" follow "$@" >/dev/null 2>&1 || true
	done
}
# Raw followers that hang up at once, without reading what is queued for them.
churn_raw() {
	while [ ! -e "$work/stop" ]; do
		"$probe" "$sock" --line '{"cmd":"follow"}' --sleep-ms 50 >/dev/null 2>&1 || true
	done
}

n=0
first=$("$exe" submit "$examples/quick.yaml" --db "$work/c$n.db" 2>>"$work/client.log") ||
	fail "submit: $(cat "$work/client.log")"
churn & churners="$churners $!"
churn & churners="$churners $!"
churn "$first" & churners="$churners $!"
churn_raw & churners="$churners $!"
end=$(($(date +%s) + secs))
# Keep a campaign running for the whole churn: the next is queued while one runs.
while [ "$(date +%s)" -lt "$end" ]; do
	kill -0 "$dpid" 2>/dev/null || fail "the daemon died during the churn"
	if ! "$exe" queue --json 2>/dev/null | tr -d ' \t\n' | grep -q '"state":"queued"'; then
		n=$((n + 1))
		"$exe" submit "$examples/quick.yaml" --db "$work/c$n.db" >/dev/null 2>>"$work/client.log" ||
			fail "submit during the churn: $(tail -3 "$work/client.log")"
	fi
	"$probe" "$sock" --line '{"cmd":"status"}' --read 1 --timeout-ms 10000 >/dev/null ||
		fail "no status during the churn"
	sleep 0.2
done
: >"$work/stop"
for p in $churners; do wait "$p" 2>/dev/null || true; done
churners=""
kill -0 "$dpid" 2>/dev/null || fail "the daemon died during the churn"
# Every campaign ends complete, equal to a plain run.
"$exe" run "$examples/quick.yaml" --db "$work/plain.db" >/dev/null 2>&1 || fail "plain run"
for i in $(seq 0 "$n"); do
	tries=0
	until [ "$(sqlite3 "$work/c$i.db" "SELECT status FROM campaigns" 2>/dev/null)" = complete ]; do
		tries=$((tries + 1))
		[ "$tries" -lt 6000 ] || fail "campaign $i did not complete"
		kill -0 "$dpid" 2>/dev/null || fail "the daemon died"
		sleep 0.05
	done
	exactly_once "$work/c$i.db" 21
	same_exports "$work/c$i.db" "$work/plain.db" "campaign $i"
done
stop_daemon
if grep -E 'AddressSanitizer|runtime error|double free|corruption|: error: ' "$work/daemon.log" >&2; then
	fail "the daemon reported errors"
fi
echo "$name: ok ($secs s of follower churn over $((n + 1)) campaigns, each equal to a plain run)"
