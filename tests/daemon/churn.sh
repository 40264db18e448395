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
	for p in $churners $plain; do kill "$p" 2>/dev/null || true; done
}
churners="" plain=""

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

# The plain run to compare with, meanwhile (its CPU overlaps the churn's waits).
"$exe" run "$examples/quick.yaml" --db "$work/plain.db" >/dev/null 2>&1 &
plain=$!
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
# The job still queued is not waited for (cancelled); every other campaign ends complete,
# equal to a plain run.
for id in $("$exe" queue --json | tr -d ' \t\n' | sed 's/},{/}\n{/g' |
	sed -n 's/.*"id":\([0-9]*\),"state":"queued".*/\1/p'); do
	"$exe" cancel "$id" >/dev/null || fail "cancel $id"
done
wait "$plain" || fail "plain run"
plain=""
compared=0
for i in $(seq 0 "$n"); do
	[ -e "$work/c$i.db" ] || continue
	compared=$((compared + 1))
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
[ "$compared" -ge 1 ] || fail "no campaign ran during the churn"
echo "$name: ok ($secs s of follower churn over $compared campaigns, each equal to a plain run)"
