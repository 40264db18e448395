#!/bin/sh
# The dashboard with an HBM2 card's campaign (issue 26, item 3), in a real headless Chromium
# (sb_cdp_probe): examples/hbm2-switch.yaml is queued behind a long GUPS campaign; the page
# opens, cancels the GUPS job with its own button, and receives the HBM2 job's points live.
# Checked against the store: every point's key, bandwidth and read latency as the page holds
# them (the campaign plots' data), its line as 'run' prints it, and the points table's rows; the boards table shows
# the last point's values (an HBM2 point has no instrument samples); the finished job's row;
# the status JSON the page reads; and its figures (the HBM2 report through the daemon).
#   hbm2_dashboard.sh STACKBENCH STACKBENCHD SB_CDP_PROBE DAEMON_DATA_DIR EXAMPLES_DIR
set -eu
name=hbm2.dashboard
exe=$1 daemon=$2 cdp=$3 data=$4 examples=$5
. "$(dirname "$0")/../daemon/lib.sh"
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
	echo "$name: SKIP: no Chromium at '$chromium' (scripts/deps.sh installs it)"
	exit 77
fi
json() { sqlite3 :memory: "SELECT json_extract(readfile('$work/page.json'), '$1')"; }
holds() { awk "BEGIN { exit !($1) }"; }

sed -e 's/^sweep:/sweep:\n  repetitions: 50/' "$data/slow.yaml" >"$work/long.yaml"
http=127.0.0.1:0
start_daemon
a=$("$exe" submit "$work/long.yaml" --db "$work/a.db" 2>/dev/null) || fail "submit the GUPS job"
wait_points "$work/a.db" 1
h=$("$exe" submit "$examples/hbm2-switch.yaml" --db "$work/h.db" 2>/dev/null) || fail "submit the HBM2 job"
[ "$(job_state "$h")" = queued ] || fail "job $h is not queued behind $a"
url=$("$exe" dashboard) || fail "stackbench dashboard"

# Once the page has its session and shows job a's cancel button, it cancels a (once); then it
# waits until it holds the 10 points of job h and the job is shown done.
"$cdp" --chromium "$chromium" --timeout-s 120 "$url" \
	"!!window.sbDashboard && !!sbDashboard.session() &&
	 (window.sbCancel || !sbDashboard.stats().buttons.includes('$a:cancel') ? true :
	  (window.sbCancel = sbDashboard.act($a, 'cancel'), true)) && !!window.sbCancel &&
	 !!sbDashboard.stats().campaigns['$h'] && sbDashboard.stats().campaigns['$h'].index.length >= 10 &&
	 /done/.test(sbDashboard.stats().finishedText)" \
	"(async () => { const f = await sbDashboard.showFigures($h);
	  return JSON.stringify(Object.assign(sbDashboard.stats(), {shown: f})); })()" \
	>"$work/page.json" 2>"$work/cdp.log" || fail "the page: $(cat "$work/cdp.log" "$work/page.json")"
[ "$(job_state "$a")" = cancelled ] || fail "job $a: $(job_state "$a")"
[ "$(job_state "$h")" = done ] || fail "job $h: $(job_state "$h")"

# The points the page received, against the store: the same keys, bandwidth, read latency.
[ "$(json "\$.campaigns.$h.index")" = "[0,1,2,3,4,5,6,7,8,9]" ] ||
	fail "the page's points of job $h: $(json "\$.campaigns.$h.index")"
sqlite3 -separator '|' "$work/h.db" "SELECT p.idx, p.key, h.gbps, h.rd_lat_avg_ns FROM points p
	JOIN hbm_points h ON h.point_id = p.id ORDER BY p.idx" >"$work/stored"
[ "$(wc -l <"$work/stored")" = 10 ] || fail "stored: $(cat "$work/stored")"
# each point's line as 'stackbench run --dry-run' prints it (the daemon's point.text)
"$exe" run "$examples/hbm2-switch.yaml" --dry-run >"$work/dry" 2>&1 || fail "dry run"
while IFS='|' read -r i key gbps lat; do
	text=$(sed -n "s/^ *$i  //p" "$work/dry")
	[ -n "$text" ] || fail "the dry run has no point $i: $(cat "$work/dry")"
	[ "$(json "\$.campaigns.$h.key[$i]")" = "$key" ] ||
		fail "point $i: key '$(json "\$.campaigns.$h.key[$i]")', stored '$key'"
	[ "$(json "\$.campaigns.$h.text[$i]")" = "$text" ] ||
		fail "point $i: text '$(json "\$.campaigns.$h.text[$i]")', run says '$text'"
	bw=$(json "\$.campaigns.$h.bandwidth_gbps[$i]")
	pl=$(json "\$.campaigns.$h.latency_avg_ns[$i]")
	holds "$bw > 0 && ($bw - $gbps) ^ 2 < (1e-5 * $gbps) ^ 2" ||
		fail "point $i: bandwidth $bw GB/s on the page, $gbps stored"
	holds "$pl > 0 && ($pl - $lat) ^ 2 < (1e-5 * $lat) ^ 2" ||
		fail "point $i: read latency $pl ns on the page, $lat stored"
	# the points table, newest first: index, text, bandwidth and latency as the page prints them
	row=$((9 - i))
	[ "$(json "\$.pointRows[$row][0]")" = "$i" ] && [ "$(json "\$.pointRows[$row][1]")" = "$text" ] ||
		fail "points table row $row: $(json "\$.pointRows[$row]")"
	[ "$(json "\$.pointRows[$row][2]")" = "$(printf '%.2f GB/s' "$gbps")" ] ||
		fail "points table row $row: bandwidth $(json "\$.pointRows[$row][2]"), stored $gbps"
	[ "$(json "\$.pointRows[$row][3]")" = "$(printf '%.0f ns' "$lat")" ] ||
		fail "points table row $row: latency $(json "\$.pointRows[$row][3]"), stored $lat"
done <"$work/stored"
# shift4 through one lateral: about half of local (docs/hbm2.md), as the page shows it
holds "$(json "\$.campaigns.$h.bandwidth_gbps[1]") / $(json "\$.campaigns.$h.bandwidth_gbps[0]") < 0.6" ||
	fail "shift4 against local on the page"

# The board, idle now: the last point's values (point 9 had no samples to show).
last=$(sed -n '$p' "$work/stored")
[ "$(json '$.boardRows[0][1]')" = idle ] || fail "board: $(json '$.boardRows[0]')"
[ "$(json '$.boardRows[0][7]')" = "$(printf '%.2f GB/s' "$(echo "$last" | cut -d'|' -f3)")" ] ||
	fail "board: bandwidth '$(json '$.boardRows[0][7]')', the last point's $(echo "$last" | cut -d'|' -f3)"
# The finished table: job h done, 10 of 10 points; its figures are the HBM2 figures.
case $(json '$.finishedText') in *"${h}donehbm2-switch10/10"*) ;; *) fail "finished: $(json '$.finishedText')" ;; esac
figs=$(json '$.shown.names')
for f in hbm_target_bandwidth.png hbm_target_latency.png; do
	case $figs in *"\"$f\""*) ;; *) fail "figures of job $h: $figs ($(json '$.shown.error'))" ;; esac
done
case $figs in *'"size_bandwidth'*) fail "a GUPS figure of the HBM2 job: $figs" ;; esac

# The status JSON the page reads: job h's counts as the store's.
q=$("$exe" queue --json) || fail "queue --json"
printf '%s' "$q" | tr -d ' \t\n' | grep -q "{\"id\":$h,\"state\":\"done\"[^}]*\"points_done\":10,\"points_total\":10" ||
	fail "queue: $q"
stop_daemon
echo "$name: ok (10 HBM2 points on the page as stored)"
