# Throwaway users for the multi-user daemon tests (sourced BEFORE lib.sh). Needs root (else the
# test is skipped, exit 77). The test script runs again inside a private mount namespace
# (unshare) where /etc/passwd and /etc/group are copies with these added, bind-mounted over the
# real ones: nothing outside the namespace sees them, and they vanish with it. Ids are high and
# drawn from the PID, so that parallel tests do not share them.
#   lab (group)   the daemon's --group: its members use the socket
#   sbt_alice     a member of lab          (as_alice CMD...: runs CMD as her, with her groups)
#   sbt_bob       another member of lab    (as_bob)
#   sbt_eve       outside lab              (as_eve)
#   $num_uid      a member known by number only, with no entry in /etc/passwd (as_num)
#   sbt_daemon    a daemon's own user (as stackbenchd.service's stackbenchd), a member of lab
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! command -v setpriv >/dev/null; then
	echo "$name: SKIP: the multi-user tests need root, unshare and setpriv"
	exit 77
fi
if [ -z "${SB_USERS_NS:-}" ]; then
	SB_USERS_NS=$(mktemp -d /tmp/sb-users-XXXXXX)
	export SB_USERS_NS
	rc=0
	unshare --mount --propagation private sh "$0" "$@" || rc=$?
	rm -rf "$SB_USERS_NS"
	exit "$rc"
fi
base=$((3000000000 + ($$ % 100000) * 8))
lab_gid=$base
alice_uid=$((base + 1)) bob_uid=$((base + 2)) eve_uid=$((base + 3)) num_uid=$((base + 4))
eve_gid=$((base + 5)) daemon_uid=$((base + 6)) daemon_gid=$((base + 7))
lab=sbt_lab$$
cp /etc/passwd "$SB_USERS_NS/passwd"
cp /etc/group "$SB_USERS_NS/group"
cat >>"$SB_USERS_NS/passwd" <<EOF
sbt_alice:x:$alice_uid:$lab_gid:throwaway:/nonexistent:/usr/sbin/nologin
sbt_bob:x:$bob_uid:$lab_gid:throwaway:/nonexistent:/usr/sbin/nologin
sbt_eve:x:$eve_uid:$eve_gid:throwaway:/nonexistent:/usr/sbin/nologin
sbt_daemon:x:$daemon_uid:$daemon_gid:throwaway:/nonexistent:/usr/sbin/nologin
EOF
cat >>"$SB_USERS_NS/group" <<EOF
$lab:x:$lab_gid:sbt_alice,sbt_bob,sbt_daemon
sbt_eve:x:$eve_gid:
sbt_daemon:x:$daemon_gid:
EOF
mount --bind "$SB_USERS_NS/passwd" /etc/passwd
mount --bind "$SB_USERS_NS/group" /etc/group
# as USER CMD...: CMD with USER's ids and groups (setpriv --init-groups reads the new files)
as_alice() { setpriv --reuid=sbt_alice --regid="$lab_gid" --init-groups env HOME=/nonexistent "$@"; }
as_bob() { setpriv --reuid=sbt_bob --regid="$lab_gid" --init-groups env HOME=/nonexistent "$@"; }
as_eve() { setpriv --reuid=sbt_eve --regid="$eve_gid" --init-groups env HOME=/nonexistent "$@"; }
as_num() { setpriv --reuid="$num_uid" --regid="$lab_gid" --groups="$lab_gid" env HOME=/nonexistent "$@"; }
