#!/bin/sh
# stackbenchd's figures (a measurement, not a test): the dashboard's update latency (a sample
# taken by the engine -> the event handled by the page in headless Chromium) and the daemon's
# CPU use, idle and while it runs a campaign, from /proc/PID/stat (utime + stime) over the
# stated intervals.
#
#   host/daemon/bench/measure.sh [BUILD_DIR] [IDLE_S] [CAMPAIGN]
#
# BUILD_DIR defaults to ./build, IDLE_S to 20 s, CAMPAIGN to examples/pattern-sweep.yaml (240
# points, fast-forward on the simulated bench). The same campaign also runs through plain
# `stackbench run` for comparison. Latency: each sample event carries the daemon's wall-clock
# time (ts_ms) when the engine took it; the page subtracts it from its own Date.now() on
# receipt (same machine, same clock); the dashboard stream sends at most 10 samples a second
# per board.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$root/build}
idle_s=${2:-20}
campaign=${3:-$root/examples/pattern-sweep.yaml}
exe=$build/host/cli/stackbench
daemon=$build/host/daemon/stackbenchd
cdp=$build/tests/daemon/sb_cdp_probe
for f in "$exe" "$daemon" "$cdp"; do
	[ -x "$f" ] || { echo "measure: build $f first (cmake --build $build)" >&2; exit 1; }
done
work=$(mktemp -d /tmp/sb-measure-XXXXXX)
dpid=""
trap '[ -n "$dpid" ] && kill "$dpid" 2>/dev/null; rm -rf "$work"' EXIT
export STACKBENCH_LOCK_DIR="$work" STACKBENCH_SOCKET="$work/s.sock"
tick=$(getconf CLK_TCK)

# CPU ticks (user + system) of a process or thread: fields 14 and 15 after the "(comm)".
ticks() { sed 's/.*) //' "$1" | awk '{ print $12 + $13 }'; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { print b - a }'; }
pct() { awk -v t="$1" -v s="$2" -v k="$tick" 'BEGIN { printf "%.2f %% of one core (%.2f s CPU in %.1f s)", 100 * t / k / s, t / k, s }'; }

"$daemon" --foreground --socket "$work/s.sock" --state-dir "$work/state" --http 127.0.0.1:0 \
	>"$work/daemon.log" 2>&1 &
dpid=$!
until "$exe" queue >/dev/null 2>&1; do sleep 0.1; done
url=$("$exe" dashboard --socket "$work/s.sock") # with its token
addr=$(echo "$url" | sed -n 's|^http://\([0-9.:]*\)/.*|\1|p')
stat=/proc/$dpid/stat
main=/proc/$dpid/task/$dpid/stat
echo "stackbenchd $("$daemon" --version | cut -d' ' -f2), PID $dpid, dashboard $addr, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# idle LABEL: the daemon's CPU over IDLE_S seconds.
idle() {
	c0=$(ticks "$stat")
	t0=$(now)
	sleep "$idle_s"
	echo "$1 $(pct $(($(ticks "$stat") - c0)) "$(since "$t0" "$(now)")")"
}

# 1. Idle, no client.
sleep 1
idle "idle, no client:          "

# 2. Idle, the dashboard open in headless Chromium (its event stream connected).
"$cdp" --timeout-s 60 --hold-s "$((idle_s + 2))" "$url" "!!window.sbDashboard && sbDashboard.stats().connected" \
	"JSON.stringify(sbDashboard.stats().latency)" >"$work/idle-page" 2>&1 &
cpid=$!
sleep 4
idle "idle, dashboard connected:"
wait "$cpid"

# 3. A campaign with the dashboard open; the page's latency figures at the end.
"$cdp" --timeout-s 900 "$url" \
	"!!window.sbDashboard && /^1done/.test(sbDashboard.stats().queueText)" \
	"JSON.stringify(sbDashboard.stats())" >"$work/page" 2>"$work/cdp.log" &
cpid=$!
sleep 4
c0=$(ticks "$stat")
m0=$(ticks "$main")
t0=$(now)
id=$("$exe" submit "$campaign" --db "$work/r.db" 2>/dev/null)
"$exe" follow "$id" >/dev/null 2>&1
c1=$(ticks "$stat")
m1=$(ticks "$main")
t1=$(now)
wait "$cpid" || { echo "measure: the page: $(cat "$work/cdp.log")" >&2; exit 1; }
points=$(sqlite3 "$work/r.db" "SELECT count(*) FROM points")
samples=$(sqlite3 "$work/r.db" "SELECT count(*) FROM samples")
echo "campaign $(basename "$campaign") ($points points, $samples samples) through the daemon, dashboard open:"
echo "  daemon, all threads:      $(pct $((c1 - c0)) "$(since "$t0" "$t1")")"
echo "  of which the main thread (socket, scheduler, followers): $(pct $((m1 - m0)) "$(since "$t0" "$t1")")"
lat=$(sed -n 's/.*"latency":{\([^}]*\)}.*/\1/p' "$work/page")
echo "  dashboard: $(sed -n 's/.*"events":\([0-9]*\),"samples":\([0-9]*\),"dropped":\([0-9]*\).*/\1 events, \2 samples, \3 dropped/p' "$work/page")"
echo "  sample -> browser latency (ms): $lat"
kill "$dpid"
wait "$dpid" || true
dpid=""

# 4. The same campaign through plain stackbench run (bash's time: the process's user + sys).
t=$(bash -c "TIMEFORMAT='%U %S %R'; time \"$exe\" run \"$campaign\" --db \"$work/plain.db\" >/dev/null 2>&1" 2>&1 | tail -1)
echo "the same campaign with stackbench run: $(echo "$t" | awk '{ printf "%.2f s CPU in %.1f s", $1 + $2, $3 }')"
