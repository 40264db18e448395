#!/bin/sh
# stackbench point --help against the tool itself: every connection-string scheme each role
# accepts (as the error for an unknown scheme lists them) is in the role's part of the help,
# and every long option is in the usage line.
#   point_help.sh STACKBENCH_EXE
set -eu
exe=$1
fail() { echo "point_help: FAIL: $*" >&2; exit 1; }
help=$("$exe" point --help)
for role in camera meter rig; do
	known=$("$exe" point --$role nosuch: 2>&1 | sed -n 's/.*(known: \(.*\))$/\1/p' | tr -d ',')
	[ -n "$known" ] || fail "--$role nosuch: lists no known schemes"
	# the role's lines: from "  --ROLE" to the next role or the end
	part=$(printf '%s\n' "$help" | awk -v r="--$role" '
		/^Connection strings/ { f = 1; next }
		f && $1 ~ /^--/ { on = ($1 == r) }
		f && on { print }')
	for s in $known; do
		printf '%s\n' "$part" | grep -q "^  [- a-z]* $s " ||
			fail "--$role: scheme $s is not in the help: $part"
	done
done
usage=$(printf '%s\n' "$help" | awk '/^usage:/ { f = 1 } f && /^$/ { exit } f')
for o in $(printf '%s\n' "$help" | sed -nE 's/^  (-[A-Za-z], )?(--[a-z][a-z0-9-]*).*/\2/p' | sort -u); do
	[ "$o" = --help ] && continue
	printf '%s\n' "$usage" | grep -q -- "\[$o\b" || fail "$o is not in the usage line"
done
echo "point_help: ok"
