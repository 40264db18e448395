#!/bin/sh
# The dashboard in a real headless Chromium (driven by sb_cdp_probe over the DevTools pipe):
# the page loads, shows the queue and the boards, and receives live events (samples) while a
# campaign runs. The campaign's name is markup; it must show as text (no element made of it).
# Then the access rules: a foreign Host header is refused, every request needs the token (made
# at start, or given with --http-token-file), and the page works when opened with ?token=.
#   dashboard.sh STACKBENCH STACKBENCHD SB_SOCKPROBE SB_CDP_PROBE DATA_DIR
set -eu
name=daemon.dashboard
exe=$1 daemon=$2 probe=$3 cdp=$4 data=$5
. "$(dirname "$0")/lib.sh"
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
	echo "$name: SKIP: no Chromium at '$chromium' (scripts/deps.sh installs it)"
	exit 77
fi

http_addr() {
	"$probe" "$work/s.sock" --line '{"cmd":"status"}' --read 1 |
		sed -n 's/.*"http":"\([0-9.]*:[0-9]*\)".*/\1/p'
}

# A long campaign (cancelled at the end) whose name would be an element if the page used
# markup.
sed -e 's/^name: slow/name: "<img src=x onerror=document.title=1>"/' \
	-e 's/^sweep:/sweep:\n  repetitions: 50/' "$data/slow.yaml" >"$work/xss.yaml"
http=127.0.0.1:0
start_daemon
addr=$(http_addr)
[ -n "$addr" ] || fail "no dashboard address in the status"
id=$("$exe" submit "$work/xss.yaml" --db "$work/r.db" 2>"$work/submit.log") || fail "submit: $(cat "$work/submit.log")"
wait_points "$work/r.db" 1

# The page opened with the URL `stackbench dashboard` prints (the token made at start).
url=$("$exe" dashboard) || fail "stackbench dashboard"
case $url in "http://$addr/?token="?*) ;; *) fail "stackbench dashboard printed '$url'" ;; esac
"$cdp" --chromium "$chromium" --timeout-s 60 "$url" \
	"!!window.sbDashboard && sbDashboard.stats().samples >= 5 && sbDashboard.stats().queueRows >= 1" \
	"JSON.stringify(Object.assign(sbDashboard.stats(), {title: document.title, imgs: document.querySelectorAll('img').length}))" \
	>"$work/page.json" 2>"$work/cdp.log" || fail "the page: $(cat "$work/cdp.log" "$work/page.json")"
r=$(cat "$work/page.json")
echo "$name: page: $(printf '%s' "$r" | head -c 400)"
case $r in *'"connected":true'*) ;; *) fail "not connected: $r" ;; esac
case $r in *'"title":"stackbenchd"'*) ;; *) fail "the title changed (markup ran?): $r" ;; esac
case $r in *'"imgs":0'*) ;; *) fail "the campaign name became an element: $r" ;; esac
case $r in *"running0<img src=x onerror=document.title=1>"*) ;; *) fail "the queue does not show the running job: $r" ;; esac
case $r in *'"boardsText":"sim:running'*) ;; *) fail "the board is not shown running: $r" ;; esac
samples=$(printf '%s' "$r" | sed -n 's/.*"samples":\([0-9]*\).*/\1/p')
[ "${samples:-0}" -ge 5 ] || fail "live samples: $r"
"$exe" cancel "$id" >/dev/null || fail "cancel"

# Access: a Host header naming another site is refused (DNS rebinding), and so is a request
# without the token (issue 21, defect 4: every local user read every job on loopback).
port=${addr##*:}
code=$(bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; printf 'GET /api/status HTTP/1.0\r\nHost: evil.example\r\n\r\n' >&3; head -1 <&3")
case $code in *403*) ;; *) fail "a foreign Host header got: $code" ;; esac
code=$(bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; printf 'GET /api/status HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3; head -1 <&3")
case $code in *401*) ;; *) fail "no token on loopback got: $code" ;; esac
case $(stat -c %A "$work/dashboard.token") in -rw-[r-]-----) ;; *) fail "the token file's mode: $(stat -c %A "$work/dashboard.token")" ;; esac
[ "$(cat "$work/dashboard.token")" = "${url#*token=}" ] || fail "the token file differs from the URL's"
stop_daemon
[ ! -e "$work/dashboard.token" ] || fail "the token file outlived the daemon"

# With a token: refused without it, the page works with it.
printf 'tok-%s\n' "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" >"$work/token"
token=$(cat "$work/token")
start_daemon --http-token-file "$work/token"
addr=$(http_addr)
port=${addr##*:}
code=$(bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; printf 'GET /api/status HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3; head -1 <&3")
case $code in *401*) ;; *) fail "no token got: $code" ;; esac
code=$(bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; printf 'GET /api/status HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer $token\r\n\r\n' >&3; head -1 <&3")
case $code in *200*) ;; *) fail "the token in a header got: $code" ;; esac
"$cdp" --chromium "$chromium" --timeout-s 30 "http://$addr/" "document.readyState === 'complete'" \
	"document.body.textContent" >"$work/page" 2>"$work/cdp.log" || fail "no token: $(cat "$work/cdp.log")"
grep -q "needs its token" "$work/page" || fail "without the token: $(cat "$work/page")"
"$cdp" --chromium "$chromium" --timeout-s 30 "http://$addr/?token=$token" \
	"!!window.sbDashboard && sbDashboard.stats().connected && sbDashboard.stats().queueRows >= 1" \
	"JSON.stringify(sbDashboard.stats())" >"$work/page" 2>"$work/cdp.log" ||
	fail "with the token: $(cat "$work/cdp.log" "$work/page")"
grep -q 'cancelled' "$work/page" || fail "the queue with the token: $(cat "$work/page")"
stop_daemon
echo "$name: ok"
