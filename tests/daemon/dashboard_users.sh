#!/bin/sh
# Dashboard actions follow the socket's per-user rules (issue 23, item 4), in a real headless
# Chromium run as throwaway users (users.sh), the daemon as root with the group `lab`:
#   - alice (a member) sees buttons for her job only; her POST cancelling bob's job is refused
#     (not_permitted), cancelling her own is done;
#   - eve (outside the group), even holding the token, may act on nothing;
#   - a session (and its CSRF token) is bound to its user: bob presenting alice's cookie and
#     token is refused.
#   dashboard_users.sh STACKBENCH STACKBENCHD SB_CDP_PROBE DATA_DIR
set -eu
name=daemon.dashboard_users
exe=$1 daemon=$2 cdp=$3 data=$4
. "$(dirname "$0")/users.sh"
. "$(dirname "$0")/lib.sh"
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
	echo "$name: SKIP: no Chromium at '$chromium' (scripts/deps.sh installs it)"
	exit 77
fi
chmod 755 "$work"
for u in alice bob eve; do
	mkdir "$work/$u"
	chown "sbt_$u" "$work/$u"
done
sed -e 's/^sweep:/sweep:\n  repetitions: 50/' "$data/slow.yaml" >"$work/long.yaml"
chmod 644 "$work/long.yaml"

expect() { # WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
	echo "$name: $1: $2"
}
# page AS URL EXPR: EXPR's value in the dashboard opened by user AS in Chromium, once its
# session is there (HOME: a folder of theirs, for Chromium).
page() {
	as=$1
	shift
	"as_$as" env HOME="$work/$as" "$cdp" --chromium "$chromium" --timeout-s 60 "$1" \
		"!!window.sbDashboard && !!sbDashboard.session() && sbDashboard.stats().queueRows >= 2" \
		"$2" 2>"$work/cdp.log" || fail "the page as $as: $(cat "$work/cdp.log")"
}

http=127.0.0.1:0
start_daemon --group "$lab"
bob_job=$(as_bob "$exe" submit "$work/long.yaml" --db "$work/bob/b.db") || fail "bob's submit"
wait_points "$work/bob/b.db" 1
alice_job=$(as_alice "$exe" submit "$work/long.yaml" --db "$work/alice/a.db") || fail "alice's submit"
url=$(as_alice "$exe" dashboard) || fail "stackbench dashboard"
base=${url%%/\?*}
cancel_js() { # JOB: the answer to the page's cancel of JOB, "STATUS CODE-OR-STATE MESSAGE"
	printf '%s' "sbDashboard.act($1, 'cancel').then(r => r.status + ' ' + (r.body.ok ? r.body.job.state : r.body.error.code + ' ' + r.body.error.message))"
}

# alice: her buttons only; bob's job refused, hers cancelled.
r=$(page alice "$url" "(async () => JSON.stringify({buttons: sbDashboard.stats().buttons.join(' '),
	uid: sbDashboard.session().uid, bob: await $(cancel_js "$bob_job"), own: await $(cancel_js "$alice_job")}))()")
echo "$name: alice: $r"
expect "alice's buttons" "$(printf '%s' "$r" | sed -n 's/.*"buttons":"\([^"]*\)".*/\1/p')" \
	"$alice_job:pause $alice_job:cancel"
expect "alice's uid" "$(printf '%s' "$r" | sed -n 's/.*"uid":\([0-9]*\).*/\1/p')" "$alice_uid"
expect "alice cancels bob's job" "$(printf '%s' "$r" | sed -n 's/.*"bob":"\([^"]*\)".*/\1/p')" \
	"403 not_permitted job $bob_job belongs to user $bob_uid; only they, root and the daemon's user may cancel it"
expect "alice cancels her job" "$(printf '%s' "$r" | sed -n 's/.*"own":"\([^"]*\)".*/\1/p')" "200 cancelled"
expect "bob's job" "$(job_state "$bob_job")" running

# eve, outside the group, with the token (she cannot read it; given here): nothing.
r=$(page eve "$url" "(async () => JSON.stringify({buttons: sbDashboard.stats().buttons.length,
	can_act: sbDashboard.session().can_act, bob: await $(cancel_js "$bob_job")}))()")
echo "$name: eve: $r"
expect "eve's buttons and can_act" "$(printf '%s' "$r" | sed -n 's/.*"buttons":\([0-9]*\),"can_act":\([a-z]*\).*/\1 \2/p')" "0 false"
expect "eve cancels bob's job" "$(printf '%s' "$r" | sed -n 's/.*"bob":"\([^"]*\)".*/\1/p')" \
	"403 not_permitted user $eve_uid may not use this daemon (root, the daemon's user and the members of its group may)"
expect "bob's job" "$(job_state "$bob_job")" running

# A session is its user's: bob with alice's cookie and CSRF token.
if command -v curl >/dev/null; then
	as_alice curl -s -c "$work/alice/jar" -o /dev/null "$url"
	csrf=$(as_alice curl -s -b "$work/alice/jar" -c "$work/alice/jar" "$base/api/session" |
		sed -n 's/.*"csrf":"\([0-9a-f]*\)".*/\1/p')
	[ ${#csrf} -eq 64 ] || fail "no CSRF token for alice"
	cp "$work/alice/jar" "$work/bob/jar"
	chown sbt_bob "$work/bob/jar"
	expect "bob with alice's session" "$(as_bob curl -s -b "$work/bob/jar" -X POST -H "Origin: $base" \
		-H "X-CSRF-Token: $csrf" -w ' %{http_code}' "$base/api/jobs/$bob_job/pause")" \
		'{"error":{"code":"csrf","message":"this session belongs to another user"},"ok":false} 403'
fi
expect "bob's job at the end" "$(job_state "$bob_job")" running

# Reports: bob's finished job's report is made as bob, from his database in his own folder
# (0700: only he, and root, can read it); alice may not see it, bob may.
# Four points (two sizes by two patterns: points 0..3) draw figures; a slow machine may have
# stored fewer by now.
wait_points "$work/bob/b.db" 4
chmod 700 "$work/bob"
as_bob "$exe" cancel "$bob_job" >/dev/null || fail "cancel"
wait_job_state "$bob_job" cancelled
report_js="fetch('api/jobs/$bob_job/report').then(async r => r.status + ' ' + await r.text())"
r=$(page alice "$url" "$report_js")
expect "alice asks for bob's report" "$r" \
	"403 {\"error\":{\"code\":\"not_permitted\",\"message\":\"job $bob_job belongs to user $bob_uid; only they, root and the daemon's user may see its report (it is made with their rights, from their database)\"},\"ok\":false}"
r=$(page bob "$url" "$report_js")
case $r in "200 {\"ok\":true,\"job\":$bob_job,\"figures\":[\""*.png\"*) ;; *) fail "bob's report: $r" ;; esac
echo "$name: bob's report: $r"
grep -q "job $bob_job: report made as user $bob_uid" "$work/daemon.log" || fail "the report was not made as bob"
stop_daemon
echo "$name: ok"
