#!/bin/sh
# Dashboard actions in a real headless Chromium (issue 23, item 4): the page's buttons pause,
# resume and cancel jobs (POST with the session's CSRF token), and the refusals, each with the
# daemon's exact answer: a POST without the token, without or with a wrong CSRF token (from the
# page itself), and a cross-origin form POST from a page of another port on the same host
# (same-site: the browser sends the SameSite=Strict cookies, so only the origin checks stop
# it). The job the refused requests aimed at must still be running afterwards.
#   dashboard_actions.sh STACKBENCH STACKBENCHD SB_CDP_PROBE DATA_DIR
set -eu
name=daemon.dashboard_actions
exe=$1 daemon=$2 cdp=$3 data=$4
. "$(dirname "$0")/lib.sh"
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
	echo "$name: SKIP: no Chromium at '$chromium' (scripts/deps.sh installs it)"
	exit 77
fi
py=/usr/bin/python3
[ -x "$py" ] || { echo "$name: SKIP: no $py (the other origin's page server)"; exit 77; }
epid=""
cleanup_hook() { [ -z "$epid" ] || { kill "$epid" 2>/dev/null; wait "$epid" 2>/dev/null; } || true; }

# expect WHAT GOT WANT: the exact answer
expect() {
	[ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
	echo "$name: $1: $2"
}

sed -e 's/^sweep:/sweep:\n  repetitions: 50/' "$data/slow.yaml" >"$work/long.yaml"
sed -e 's/^name: slow/name: second/' "$work/long.yaml" >"$work/second.yaml"
http=127.0.0.1:0
start_daemon
a=$("$exe" submit "$work/long.yaml" --db "$work/a.db") || fail "submit a"
b=$("$exe" submit "$work/second.yaml" --db "$work/b.db") || fail "submit b"
wait_points "$work/a.db" 1
[ "$(job_state "$b")" = queued ] || fail "job $b is not queued behind $a"
url=$("$exe" dashboard) || fail "stackbench dashboard"
base=${url%%/\?*}
port=${base##*:}

# 1. The buttons: cancel job b (queued), pause and resume job a (running), each answered 200
# with the job; while a is paused, its buttons are resume and cancel.
# clickAndWait(JOB, ACTION): click the page's button (once it is there), wait for the answer.
js_click='const sleep = ms => new Promise(r => setTimeout(r, ms));
async function clickAndWait(job, action) {
  for (let i = 0; i < 200; i++) {
    const b = document.querySelector(`#queue button[data-job="${job}"][data-action="${action}"]`);
    if (b) {
      const n = sbDashboard.stats().actions.length;
      b.click();
      for (let k = 0; k < 200 && sbDashboard.stats().actions.length === n; k++) await sleep(50);
      const a = sbDashboard.stats().actions[n];
      return a ? a.status + " " + (a.body.ok ? a.body.job.state : a.body.error.code) : "no answer";
    }
    await sleep(50);
  }
  return "no button";
}'
"$cdp" --chromium "$chromium" --timeout-s 60 "$url" \
	"!!window.sbDashboard && !!sbDashboard.session() && sbDashboard.stats().buttons.includes('$a:pause')" \
	"(async () => { $js_click
	  const out = {buttons: sbDashboard.stats().buttons.join(' ')};
	  out.cancel = await clickAndWait($b, 'cancel');
	  out.pause = await clickAndWait($a, 'pause');
	  for (let i = 0; i < 400 && !sbDashboard.stats().buttons.includes('$a:resume'); i++) await sleep(50);
	  out.paused = sbDashboard.stats().buttons.join(' ');
	  out.resume = await clickAndWait($a, 'resume');
	  out.status = sbDashboard.stats().actStatus;
	  return JSON.stringify(out); })()" >"$work/buttons.json" 2>"$work/cdp.log" ||
	fail "the buttons: $(cat "$work/cdp.log" "$work/buttons.json")"
r=$(cat "$work/buttons.json")
echo "$name: buttons: $r"
case $r in *"\"buttons\":\"$a:pause $a:cancel $b:pause $b:cancel\""*) ;; *) fail "the buttons shown: $r" ;; esac
case $r in *'"pause":"200 running"'*) ;; *) fail "pause (the job pauses after its points in progress): $r" ;; esac
case $r in *"\"paused\":\"$a:resume $a:cancel\""*) ;; *) fail "the buttons of the paused job: $r" ;; esac
case $r in *'"resume":"200 queued"'*) ;; *) fail "resume: $r" ;; esac
case $r in *'"cancel":"200 cancelled"'*) ;; *) fail "cancel: $r" ;; esac
case $r in *"\"status\":\"resume job $a: queued\""*) ;; *) fail "the status line: $r" ;; esac
wait_job_state "$a" running
expect "job $b after the cancel button" "$(job_state "$b")" cancelled
grep -q "dashboard: user $(id -u): pause job $a" "$work/daemon.log" || fail "the pause is not logged"

# 2. From the page itself (same origin, its cookies), without and with a wrong CSRF token.
post_js() { # HEADERS (a JS object): the answer to a POST cancelling job a from the page
	printf '%s' "fetch('api/jobs/$a/cancel', {method: 'POST', headers: $1}).then(async r => r.status + ' ' + await r.text())"
}
"$cdp" --chromium "$chromium" --timeout-s 60 "$url" "!!window.sbDashboard && !!sbDashboard.session()" \
	"(async () => JSON.stringify([await $(post_js '{}'), await $(post_js "{'X-CSRF-Token': 'f00d'.repeat(16)}")]))()" \
	>"$work/csrf.json" 2>"$work/cdp.log" || fail "CSRF: $(cat "$work/cdp.log" "$work/csrf.json")"
expect "no CSRF token (page)" "$(cat "$work/csrf.json")" \
	'["403 {\"error\":{\"code\":\"csrf\",\"message\":\"no CSRF token (the X-CSRF-Token header; GET /api/session gives it)\"},\"ok\":false}","403 {\"error\":{\"code\":\"csrf\",\"message\":\"the CSRF token does not match this session (reload the page)\"},\"ok\":false}"]'

# 3. Without the token: a browser that never opened the URL with ?token= (no cookie).
"$cdp" --chromium "$chromium" --timeout-s 30 "$base/" "document.readyState === 'complete'" \
	"$(post_js '{}')" >"$work/notoken" 2>"$work/cdp.log" || fail "no token: $(cat "$work/cdp.log")"
expect "no token (page)" "$(cat "$work/notoken")" \
	"401 stackbenchd: this dashboard needs its token: open the URL that 'stackbench dashboard' prints (/?token=TOKEN)"

# 4. Cross-origin: a page on another port of the same host (same-site: the dashboard's
# SameSite=Strict cookies go with it) posts a form to cancel job a. The browser first opened
# the dashboard (its cookies set), then the other page; the form's answer is what it shows.
mkdir "$work/evil"
cat >"$work/evil/index.html" <<EOF
<!doctype html><title>another page</title>
<form id=f method=POST action="$base/api/jobs/$a/cancel"></form>
<script>document.getElementById('f').submit()</script>
EOF
: >"$work/evil.log"
"$py" -u -m http.server --bind 127.0.0.1 --directory "$work/evil" 0 >"$work/evil.log" 2>&1 &
epid=$!
tries=0
until eport=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$work/evil.log") && [ -n "$eport" ]; do
	tries=$((tries + 1))
	[ "$tries" -lt 200 ] || fail "the other page's server did not start: $(cat "$work/evil.log")"
	sleep 0.05
done
"$cdp" --chromium "$chromium" --timeout-s 30 --first "$url" "http://127.0.0.1:$eport/" \
	"location.port === '$port' && document.readyState === 'complete'" \
	"document.body.textContent" >"$work/cross" 2>"$work/cdp.log" ||
	fail "cross-origin: $(cat "$work/cdp.log" "$work/cross")"
expect "cross-origin form POST" "$(cat "$work/cross")" \
	'{"error":{"code":"cross_origin","message":"cross-origin request refused (Sec-Fetch-Site: same-site)"},"ok":false}'
grep -q '"POST / HTTP\|GET / HTTP' "$work/evil.log" || fail "the other page was not loaded"

# 5. The same refused on its headers alone (a client that is no browser): another Origin, no
# Origin, a body, an unknown action.
curl=$(command -v curl || true)
if [ -n "$curl" ]; then
	"$curl" -s -c "$work/jar" -o /dev/null "$url"
	csrf=$("$curl" -s -b "$work/jar" -c "$work/jar" "$base/api/session" |
		sed -n 's/.*"csrf":"\([0-9a-f]*\)".*/\1/p')
	[ ${#csrf} -eq 64 ] || fail "no CSRF token from /api/session"
	post() { "$curl" -s -b "$work/jar" -X POST -H "X-CSRF-Token: $csrf" -w ' %{http_code}' "$@"; }
	expect "another Origin" "$(post -H "Origin: http://127.0.0.1:1" "$base/api/jobs/$a/cancel")" \
		"{\"error\":{\"code\":\"cross_origin\",\"message\":\"cross-origin request refused (Origin http://127.0.0.1:1 is not this dashboard, $base)\"},\"ok\":false} 403"
	expect "no Origin" "$(post "$base/api/jobs/$a/cancel")" \
		'{"error":{"code":"cross_origin","message":"a request that acts must name its origin (an Origin header)"},"ok":false} 403'
	expect "a body" "$(post -H "Origin: $base" -d x=1 "$base/api/jobs/$a/cancel")" \
		'{"error":{"code":"too_long","message":"an action has no request body"},"ok":false} 413'
	expect "an unknown action" "$(post -H "Origin: $base" "$base/api/jobs/$a/explode")" \
		'{"error":{"code":"not_found","message":"no such action (POST /api/jobs/ID/pause, resume or cancel)"},"ok":false} 404'
	expect "a finished job" "$(post -H "Origin: $base" "$base/api/jobs/$b/cancel")" \
		"{\"error\":{\"code\":\"bad_state\",\"message\":\"job $b is cancelled already\"},\"ok\":false} 409"
fi
expect "job $a after the refused requests" "$(job_state "$a")" running

# 6. Finished campaigns: job a, cancelled, is listed with its report; its figures show in the
# page (PNGs the daemon got from the report process, which ran as the submitter), and the HTML
# report opens (its figures inside it, no script: the sandbox CSP).
"$exe" cancel "$a" >/dev/null || fail "cancel"
wait_job_state "$a" cancelled
"$cdp" --chromium "$chromium" --timeout-s 90 "$url" \
	"!!window.sbDashboard && !!sbDashboard.session() && sbDashboard.stats().reportLinks.includes('$a')" \
	"(async () => { const f = await sbDashboard.showFigures($a);
	  const shown = () => sbDashboard.stats().figures;
	  for (let i = 0; i < 200 && !(shown().length === f.names.length && shown().every(x => x.done)); i++)
	    await new Promise(r => setTimeout(r, 50));
	  return JSON.stringify({names: f.names, error: f.error, shown: sbDashboard.stats().figures,
	    title: sbDashboard.stats().figuresTitle, links: sbDashboard.stats().reportLinks}); })()" \
	>"$work/figs.json" 2>"$work/cdp.log" || fail "the figures: $(cat "$work/cdp.log" "$work/figs.json")"
r=$(cat "$work/figs.json")
echo "$name: figures: $(printf '%s' "$r" | head -c 600)"
case $r in *'"error":null'*) ;; *) fail "the report: $r" ;; esac
case $r in *"\"links\":[\"$a\"]"*) ;; *) fail "the report links (job $b stored no campaign): $r" ;; esac
nfig=$(printf '%s' "$r" | grep -o '"w":[1-9][0-9]*,"h":[1-9][0-9]*' | wc -l)
nname=$(printf '%s' "$r" | sed -n 's/.*"names":\[\([^]]*\)\].*/\1/p' | tr ',' '\n' | grep -c png)
[ "$nfig" -ge 1 ] && [ "$nfig" -eq "$nname" ] || fail "$nname figures named, $nfig shown: $r"
grep -q "job $a: report made as user $(id -u)" "$work/daemon.log" || fail "the report is not logged"
"$cdp" --chromium "$chromium" --timeout-s 60 --first "$url" "$base/jobs/$a/report" \
	"document.readyState === 'complete'" \
	"JSON.stringify({title: document.title, figures: [...document.images].filter(i => i.src.startsWith('data:image/svg+xml;base64,') && i.naturalWidth > 0).length, scripts: document.scripts.length, campaign: document.body.textContent.includes('slow')})" \
	>"$work/report.json" 2>"$work/cdp.log" || fail "the report page: $(cat "$work/cdp.log")"
r=$(cat "$work/report.json")
echo "$name: report page: $r"
case $r in *'"title":"stackbench report"'*'"scripts":0,"campaign":true'*) ;; *) fail "the report page: $r" ;; esac
[ "$(printf '%s' "$r" | sed -n 's/.*"figures":\([0-9]*\).*/\1/p')" -eq "$nfig" ] || fail "the report's figures: $r (the page showed $nfig)"
if [ -n "$curl" ]; then
	"$curl" -s -D "$work/h" -o /dev/null -b "$work/jar" "$base/jobs/$a/report"
	grep -qi "^Content-Security-Policy: sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'" "$work/h" ||
		fail "the report's CSP: $(cat "$work/h")"
	expect "the report of a job that stored no campaign" "$("$curl" -s -b "$work/jar" -w ' %{http_code}' "$base/api/jobs/$b/report")" \
		"{\"error\":{\"code\":\"not_found\",\"message\":\"job $b stored no campaign\"},\"ok\":false} 404"
	expect "a report without the token" "$("$curl" -s -o /dev/null -w '%{http_code}' "$base/jobs/$a/report")" 401
fi
stop_daemon
echo "$name: ok"
