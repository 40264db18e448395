#!/bin/sh
# Hostile clients: malformed JSON, binary garbage, unknown verbs, bad fields, a 100 MB line,
# many clients at once, a follower that never reads, another user (as nobody, when run as
# root). Each gets an error reply (or is dropped), and the daemon keeps serving: a status
# request succeeds after each, and its memory stays far below the 100 MB it was sent.
#   hostile.sh STACKBENCH STACKBENCHD SB_SOCKPROBE EXAMPLES_DIR DATA_DIR
set -eu
name=daemon.hostile
exe=$1 daemon=$2 probe=$3 examples=$4 data=$5
. "$(dirname "$0")/lib.sh"
chmod 755 "$work"

start_daemon
sock=$work/s.sock
status='{"v":1,"cmd":"status"}'

# expect CODE ARGS...: the first reply line has error code CODE, then a status succeeds on the
# same connection (or a new one if the daemon ended this one).
expect() {
	code=$1
	shift
	"$probe" "$sock" "$@" --read 1 >"$work/out" 2>"$work/err" || fail "no reply to $*: $(cat "$work/err")"
	grep -q "\"ok\":false,\"error\":{\"code\":\"$code\"" "$work/out" || fail "$*: expected $code, got $(cat "$work/out")"
	"$probe" "$sock" --line "$status" --read 1 | grep -q '"ok":true' || fail "not serving after $*"
}

expect bad_json --line '{"cmd":'
expect bad_json --line '[1, 2, 3]'
expect bad_json --raw '\x00\xff\xfe garbage \x01\n'
expect unknown_command --line '{"v":1,"cmd":"rm -rf /"}'
expect version --line '{"v":99,"cmd":"status"}'
expect bad_request --line '{"cmd":"cancel","job":"1; DROP TABLE jobs"}'
expect bad_request --line '{"cmd":"submit","campaign":"name: x","db":"relative.db"}'
expect not_found --line '{"cmd":"cancel","job":424242}'
expect bad_campaign --line '{"cmd":"submit","campaign":"name: x\nsweep: {type: [rx]}\n","file":"/x/evil.yaml","db":"/tmp/x.db"}'
grep -q "evil.yaml' line 2" "$work/out" || fail "the campaign error names the file and line: $(cat "$work/out")"
expect no_board --line '{"cmd":"submit","campaign":"bench: {device: \"pci:0000:99:00.0\"}\n","db":"/tmp/x.db"}'
# Several requests in one write, the second bad: two replies, in order.
"$probe" "$sock" --raw "$status\n{oops}\n$status\n" --read 3 >"$work/out" || fail "pipelined requests"
[ "$(sed -n 2p "$work/out" | grep -c bad_json)" -eq 1 ] && [ "$(grep -c '"ok":true' "$work/out")" -eq 2 ] ||
	fail "pipelined replies: $(cat "$work/out")"

# A 100 MB line: refused as it arrives (too_long), the connection then serves a status.
"$probe" "$sock" --big 100000000 --line "$status" --read 2 >"$work/out" 2>"$work/err" ||
	fail "100 MB line: $(cat "$work/err")"
grep -q '"code":"too_long"' "$work/out" && grep -q '"ok":true' "$work/out" ||
	fail "100 MB line replies: $(head -c 300 "$work/out")"
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$dpid/status")
[ "$hwm" -lt 60000 ] || fail "the daemon's peak memory is $hwm kB after a 100 MB line"
echo "$name: a 100 MB line refused; the daemon's peak memory $hwm kB"

# Many clients at once.
"$probe" "$sock" --parallel 100 | grep -q "parallel: 100 ok" || fail "100 clients at once"

# A follower that stops reading (SIGSTOP) while a campaign streams ~15000 events: the daemon
# serves others meanwhile, and the follower, once it reads again, is told what it missed.
"$probe" "$sock" --line '{"cmd":"follow"}' --read 1 --timeout-ms 30000 \
	--read-until '"event":"dropped"' >"$work/follow" 2>&1 &
fpid=$!
# stop it only once it follows (the reply to follow is out): a fixed sleep was too short
# on a loaded machine, and a follower stopped before it connected sees no events at all
tries=0
until [ -s "$work/follow" ]; do
	tries=$((tries + 1))
	[ "$tries" -lt 1000 ] || fail "the follower got no reply to follow in 20 s"
	sleep 0.02
done
kill -STOP "$fpid"
id=$("$exe" submit "$examples/mask-sweep.yaml" --db "$work/ms.db" 2>/dev/null) || fail "submit"
wait_points "$work/ms.db" 10
"$probe" "$sock" --line "$status" --read 1 | grep -q '"ok":true' || fail "not serving while a follower stalls"
"$exe" follow "$id" >/dev/null 2>&1 || fail "job $id did not complete"
kill -CONT "$fpid"
wait "$fpid" || fail "the stalled follower: $(tail -c 300 "$work/follow")"
grep -q '"event":"dropped","count":[1-9]' "$work/follow" || fail "no drop notice"
missed=$(sed -n 's/.*"event":"dropped","count":\([0-9]*\).*/\1/p' "$work/follow")
[ "$(echo "$missed" | wc -l)" -eq 1 ] && [ "$missed" -gt 1000 ] || fail "drop notices: $missed"
echo "$name: a stalled follower missed $missed events and was told once"

# Another user: refused with an error reply even when the socket's mode lets it connect.
as_nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && $as_nobody "$exe" --version >/dev/null 2>&1; then
	if $as_nobody "$exe" queue --socket "$sock" >"$work/out" 2>&1; then
		fail "nobody reached a 0660 socket"
	fi
	grep -q "not allowed to connect" "$work/out" || fail "nobody: $(cat "$work/out")"
	chmod 0666 "$sock"
	$as_nobody "$probe" "$sock" --line "$status" --read 1 >"$work/out" 2>&1 || fail "nobody: $(cat "$work/out")"
	grep -q '"code":"not_permitted","message":"user 65534 is not allowed' "$work/out" ||
		fail "nobody was not refused: $(cat "$work/out")"
	if $as_nobody "$exe" submit "$examples/quick.yaml" --db /tmp/nobody.db --socket "$sock" >"$work/out" 2>&1; then
		fail "nobody submitted a job"
	fi
	grep -q "user 65534 is not allowed" "$work/out" || fail "nobody's submit: $(cat "$work/out")"
	chmod 0660 "$sock"
	echo "$name: another user (nobody) refused"
else
	echo "$name: not root (or nobody cannot run the build): the other-user checks are skipped"
fi

"$probe" "$sock" --line "$status" --read 1 | grep -q '"ok":true' || fail "not serving at the end"
kill -0 "$dpid" || fail "the daemon died"
stop_daemon

# A member of the daemon's group (nobody, with --group nogroup) works on files as itself: its
# database is created as nobody; a folder it cannot write is refused at submit; a folder taken
# away between submit and start makes the job fail (its process, as nobody, checks again).
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && $as_nobody "$exe" --version >/dev/null 2>&1; then
	start_daemon --group nogroup
	cp "$examples/quick.yaml" "$work/quick.yaml"
	chmod 644 "$work/quick.yaml"
	mkdir "$work/nob" "$work/nob2" "$work/rootonly"
	chown nobody "$work/nob" "$work/nob2"
	n=$($as_nobody "$exe" submit "$work/quick.yaml" --db "$work/nob/r.db" 2>"$work/err") ||
		fail "nobody's submit: $(cat "$work/err")"
	$as_nobody "$exe" follow "$n" >/dev/null 2>"$work/err" || fail "nobody's job: $(cat "$work/err")"
	[ "$(stat -c %U "$work/nob/r.db")" = nobody ] || fail "nobody's database belongs to $(stat -c %U "$work/nob/r.db")"
	exactly_once "$work/nob/r.db" 21
	if $as_nobody "$exe" submit "$work/quick.yaml" --db "$work/rootonly/r.db" >"$work/out" 2>&1; then
		fail "nobody queued a database in root's folder"
	fi
	grep -q "user 65534 cannot create files in '$work/rootonly'" "$work/out" || fail "refusal: $(cat "$work/out")"
	# A long job first, nobody's behind it; its folder is taken away before it starts.
	long=$("$exe" submit "$data/slow.yaml" --db "$work/long.db" 2>/dev/null) || fail "submit"
	n=$($as_nobody "$exe" submit "$work/quick.yaml" --db "$work/nob2/r.db" 2>"$work/err") ||
		fail "nobody's second submit: $(cat "$work/err")"
	if $as_nobody "$exe" cancel "$long" >"$work/out" 2>&1; then
		fail "nobody cancelled root's job"
	fi
	grep -q "belongs to user 0" "$work/out" || fail "cancel of another's job: $(cat "$work/out")"
	chown root "$work/nob2"
	chmod 755 "$work/nob2"
	"$exe" cancel "$long" >/dev/null
	if $as_nobody "$exe" follow "$n" >/dev/null 2>"$work/err"; then
		fail "nobody's job wrote into a folder it no longer may"
	fi
	grep -q "user 65534 cannot create files in '$work/nob2'" "$work/err" ||
		fail "nobody's job failed otherwise: $(cat "$work/err")"
	[ ! -e "$work/nob2/r.db" ] || fail "a database was created in root's folder"
	stop_daemon
	echo "$name: a group member's databases are its own; a folder it cannot write is refused"
fi
echo "$name: ok"
