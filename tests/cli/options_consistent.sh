#!/bin/sh
# One interface: a short option means the same long option in every command that has it
# (docs/cli.md). Reads every command's --help; fails naming the letter and the commands.
#   options_consistent.sh STACKBENCH_EXE
set -eu
exe=$1
cmds=$("$exe" --help | awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { exit }')
[ -n "$cmds" ] || { echo "options_consistent: FAIL: no commands in --help" >&2; exit 1; }
pairs=$(for c in $cmds; do
	"$exe" "$c" --help 2>/dev/null | sed -nE "s/^ +-([A-Za-z]), --([a-z][a-z0-9-]*).*/\1 \2 $c/p"
done | sort -u)
bad=$(printf '%s\n' "$pairs" | awk '{ long[$1] = long[$1] " " $2; n[$1 " " $2]++ } END {
	for (k in long) { split(long[k], a, " "); first = ""; for (i in a) { if (first == "") first = a[i]; else if (a[i] != first) { print k; break } } } }' | sort -u)
if [ -n "$bad" ]; then
	for l in $bad; do
		echo "options_consistent: FAIL: -$l means: $(printf '%s\n' "$pairs" | awk -v l="$l" '$1 == l { printf "--%s (%s) ", $2, $3 }')" >&2
	done
	exit 1
fi
echo "options_consistent: ok ($(printf '%s\n' "$pairs" | wc -l) short options in $(echo $cmds | wc -w) commands)"
