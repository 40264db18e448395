#!/bin/sh
# Who may use the dashboard (issue 21):
#   token  (defect 4) with no token on loopback, a user outside the group read every job's
#          campaign, database, uid and live samples from /api/status and /events. Now every
#          request needs the token made at start, in a file only root and the group may read;
#          `stackbench dashboard` gives members the URL, and outsiders nothing.
#   shares (defect 8) 16 held /events streams of one user took the dashboard from everyone
#          (one per-address limit shared by every loopback user). Now each user (loopback: the
#          owner of the peer socket, from the kernel) holds at most http-per-client
#          connections; the others still get in.
#   dashboard_access.sh STACKBENCH STACKBENCHD SB_SOCKPROBE token|shares
set -eu
exe=$1 daemon=$2 probe=$3 part=$4
name=daemon.dashboard_$part
. "$(dirname "$0")/users.sh"
. "$(dirname "$0")/lib.sh"
chmod 755 "$work"
pids=""
cleanup_hook() { for p in $pids; do kill "$p" 2>/dev/null || true; done; }

# get AS PATH: the status line of a GET of PATH (as user AS: root, alice, bob or eve).
get() {
	who=$1
	shift
	set -- bash -c "exec 3<>/dev/tcp/127.0.0.1/$port || exit 1; printf 'GET $1 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3; head -1 <&3"
	case $who in
	root) "$@" ;;
	*) "as_$who" "$@" ;;
	esac 2>/dev/null || echo "no answer"
}

http=127.0.0.1:0
start_daemon --group "$lab"
port=$("$probe" "$work/s.sock" --line '{"cmd":"status"}' --read 1 |
	sed -n 's/.*"http":"127.0.0.1:\([0-9]*\)".*/\1/p')
[ -n "$port" ] || fail "no dashboard in the status"
# The token as the group may read it (none before issue 21).
token=$(cat "$work/dashboard.token" 2>/dev/null || true)

if [ "$part" = token ]; then
	case $(get eve /api/status) in *401*) ;; *) fail "an outsider got /api/status: $(get eve /api/status)" ;; esac
	case $(get eve /events) in *401*) ;; *) fail "an outsider got /events: $(get eve /events)" ;; esac
	url=$(as_alice "$exe" dashboard) || fail "a member's stackbench dashboard"
	[ "$url" = "http://127.0.0.1:$port/?token=$token" ] && [ "${#token}" -ge 32 ] ||
		fail "the URL: '$url' (token '$token')"
	case $(get alice "/api/status?token=$token") in *200*) ;; *) fail "the member's URL: $(get alice "/api/status?token=$token")" ;; esac
	case $(get eve "/api/status?token=x$token") in *401*) ;; *) fail "a wrong token was taken" ;; esac
	if as_eve cat "$work/dashboard.token" >/dev/null 2>&1; then
		fail "an outsider can read the token file"
	fi
	as_bob cat "$work/dashboard.token" | grep -qxF -e "$token" || fail "a member cannot read the token file"
	[ "$(stat -c '%a %G' "$work/dashboard.token")" = "640 $lab" ] ||
		fail "the token file: $(stat -c '%a %U %G' "$work/dashboard.token")"
	if as_eve "$exe" dashboard >"$work/out" 2>&1; then
		fail "an outsider got the URL: $(cat "$work/out")"
	fi
	grep -q "not allowed" "$work/out" || fail "the outsider's refusal: $(cat "$work/out")"
	echo "$name: outsider: 401 without the token, no token file, no URL; members: $url"
else
	# Alice holds 16 event streams (one after the other: each is answered before the next).
	i=0
	while [ "$i" -lt 16 ]; do
		as_alice bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; printf 'GET /events?token=$token HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' >&3; head -1 <&3; exec sleep 60" >"$work/stream$i" 2>&1 &
		pids="$pids $!"
		tries=0
		until [ -s "$work/stream$i" ]; do
			tries=$((tries + 1))
			[ "$tries" -lt 400 ] || fail "stream $i got no answer"
			sleep 0.05
		done
		i=$((i + 1))
	done
	tries=0
	until [ "$(cat "$work"/stream* | grep -c 'HTTP/1.1')" -ge 16 ]; do
		tries=$((tries + 1))
		[ "$tries" -lt 400 ] || fail "the streams got no answers: $(cat "$work"/stream*)"
		sleep 0.05
	done
	ok=$(cat "$work"/stream* | grep -c ' 200 ' || true)
	busy=$(cat "$work"/stream* | grep -c ' 503 ' || true)
	case $(get bob "/api/status?token=$token") in *200*) ;; *) fail "Bob was kept out by Alice's $ok streams: $(get bob "/api/status?token=$token")" ;; esac
	case $(get root "/api/status?token=$token") in *200*) ;; *) fail "root was kept out" ;; esac
	[ "$ok" -eq 8 ] && [ "$busy" -eq 8 ] || fail "Alice's 16 streams: $ok served, $busy refused"
	echo "$name: Alice's 16 streams: $ok served, $busy refused (503); Bob and root served"
	# Her streams closed, her share is back. Every process of hers goes: a stream's socket is
	# held by its shell and by the sleep the shell started, which killing the background job
	# and its children alone can leave behind (seen under load: the share did not come back).
	for p in $pids; do kill "$p" $(cat "/proc/$p/task/$p/children" 2>/dev/null) 2>/dev/null || true; done
	pkill -KILL -u sbt_alice 2>/dev/null || true
	pids=""
	tries=0
	until case $(get alice "/api/status?token=$token") in *200*) true ;; *) false ;; esac do
		tries=$((tries + 1))
		# 8 s: the daemon sees a closed stream within a second (SSE_PEER_CHECK_S), not at its
		# next keep-alive (15 s)
		[ "$tries" -lt 80 ] || fail "Alice's share did not come back within 8 s after her streams closed"
		sleep 0.1
	done
fi
stop_daemon
echo "$name: ok"
