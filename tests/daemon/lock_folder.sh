#!/bin/sh
# No one outside the group can hold a board's lock (issue 21, defect 9): lock files were made
# 0666 in a world-writable folder, so anyone could make (or open) a board's lock file, flock it,
# and keep the daemon (or anyone) from the board. Now boards' lock files live in their own
# folder, root:stackbench 2770 (here root:lab), refused if others may write it; a member holding
# a board is still named in the refusal.
#   lock_folder.sh STACKBENCH
set -eu
name=daemon.lock_folder
exe=$1
daemon=/bin/false
. "$(dirname "$0")/users.sh"
. "$(dirname "$0")/lib.sh"
chmod 755 "$work"
pids=""
cleanup_hook() {
	for p in $pids; do
		kill "$p" $(cat "/proc/$p/task/$p/children" 2>/dev/null) 2>/dev/null || true
	done
}
bdir=$STACKBENCH_LOCK_DIR/stackbench
chgrp "$lab" "$bdir"
uri=pci:99:00.0
file=stackbench-pci-0000:99:00.0.lock

# Eve (outside the group) tries to hold the board's lock: where lock files were, and where
# they are now.
for f in "$STACKBENCH_LOCK_DIR/$file" "$bdir/$file"; do
	as_eve flock -n "$f" sleep 60 >/dev/null 2>&1 &
	pids="$pids $!"
done
sleep 0.5
rc=0
"$exe" point --device "$uri" >"$work/out" 2>&1 || rc=$?
! grep -q "busy" "$work/out" || fail "an outsider holds the board: $(cat "$work/out")"
grep -q "no PCI function 0000:99:00.0" "$work/out" || fail "the board's open: $rc $(cat "$work/out")"
[ "$(stat -c '%a %U %G' "$bdir/$file")" = "660 root $lab" ] ||
	fail "the lock file: $(stat -c '%a %U %G' "$bdir/$file")"
echo "$name: an outsider cannot hold the board; the lock file is $(stat -c '%a %U %G' "$bdir/$file")"

# A member holds it: the refusal names her process.
# -w, not -n: the probe below holds the lock for an instant and must not make her give up
as_alice flock -w 60 "$bdir/$file" sleep 120 >/dev/null 2>"$work/alice.err" &
hp=$!
pids="$pids $hp"
tries=0
while flock -n "$bdir/$file" true; do
	kill -0 "$hp" 2>/dev/null || fail "the member's flock ended: $(cat "$work/alice.err")"
	tries=$((tries + 1))
	[ "$tries" -lt 1200 ] || fail "the member did not take the lock in 60 s"
	sleep 0.05
done
rc=0
"$exe" point --device "$uri" >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 3 ] && grep -q "board '$uri' is busy, held by PID [0-9]* (flock " "$work/out" ||
	fail "a member's hold: $rc $(cat "$work/out")"
echo "$name: $(cat "$work/out")"

# A world-writable boards' folder is refused.
chmod 1777 "$bdir"
rc=0
"$exe" point --device pci:98:00.0 >"$work/out" 2>&1 || rc=$?
grep -q "the boards' lock folder '$bdir' is world-writable" "$work/out" ||
	fail "a world-writable folder: $rc $(cat "$work/out")"
echo "$name: ok"
