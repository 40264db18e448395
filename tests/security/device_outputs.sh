#!/bin/sh
# Outputs never replace device nodes (issue 21, defect 12): the atomic writer renamed its
# temporary file over whatever was at the output path, so `stackbench export --out /dev/null`
# run as root replaced /dev/null with a regular file. Made here on nodes made with mknod in a
# temporary folder (as root; else only the FIFO and /dev/stdout parts run): every output option
# of the commands writes through a character device or a FIFO, refuses a block device, and
# still replaces a regular file atomically.
#   device_outputs.sh STACKBENCH EXAMPLES_DIR TEST_DATA_DIR
set -eu
exe=$1 examples=$2 tdata=$3
work=$(mktemp -d /tmp/sb-devout-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "device_outputs: FAIL: $*" >&2
	exit 1
}
root=0
[ "$(id -u)" -eq 0 ] && root=1

"$exe" run "$examples/quick.yaml" --db "$work/q.db" >/dev/null 2>&1 || fail "run"
csv=$tdata/analysis/trace.csv

# expect_char PATH: still a character device with the numbers of /dev/null.
expect_char() {
	[ -c "$1" ] && [ "$(stat -c '%t:%T' "$1")" = "1:3" ] ||
		fail "'$1' is no longer the character device: $(stat -c '%F' "$1")"
}

if [ "$root" -eq 1 ]; then
	mknod "$work/null" c 1 3
	mknod "$work/blk" b 7 250
	chmod 666 "$work/null"
	"$exe" export --db "$work/q.db" --format csv --out "$work/null" || fail "export to a device"
	expect_char "$work/null"
	"$exe" export --db "$work/q.db" --format json --out "$work/null" || fail "export json"
	expect_char "$work/null"
	"$exe" lifetimes -f csv "$csv" --json "$work/null" >/dev/null || fail "lifetimes --json"
	expect_char "$work/null"
	"$exe" trace convert -f csv --to sbt -o "$work/null" "$csv" >/dev/null 2>&1 || fail "trace convert -o"
	expect_char "$work/null"
	mkdir "$work/figs"
	mknod "$work/figs/mask_bandwidth.svg" c 1 3
	"$exe" report --db "$work/q.db" --plots "$work/figs" >/dev/null 2>&1 || fail "report --plots"
	expect_char "$work/figs/mask_bandwidth.svg"
	rc=0
	"$exe" export --db "$work/q.db" --format csv --out "$work/blk" >"$work/out" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] && grep -q "cannot write '$work/blk': it is a block device" "$work/out" ||
		fail "a block device: $rc $(cat "$work/out")"
	[ -b "$work/blk" ] || fail "the block device was replaced"
	echo "device_outputs: a character device written through by export, lifetimes, trace convert, report; a block device refused"
fi

# A FIFO: written through (a reader gets the CSV), not replaced.
mkfifo "$work/fifo"
cat "$work/fifo" >"$work/got" &
rpid=$!
"$exe" export --db "$work/q.db" --format csv --out "$work/fifo" || fail "export to a FIFO"
wait "$rpid"
[ -p "$work/fifo" ] || fail "the FIFO was replaced"
"$exe" export --db "$work/q.db" --format csv --out "$work/plain.csv" || fail "export to a file"
cmp -s "$work/got" "$work/plain.csv" || fail "the FIFO's reader got another CSV"
# /dev/stdout: the descriptor, whatever it is (here a pipe, then a regular file).
"$exe" export --db "$work/q.db" --format csv --out /dev/stdout | cmp -s - "$work/plain.csv" ||
	fail "export --out /dev/stdout to a pipe"
"$exe" export --db "$work/q.db" --format csv --out /dev/stdout >"$work/redirected.csv" ||
	fail "export --out /dev/stdout to a file"
cmp -s "$work/redirected.csv" "$work/plain.csv" || fail "export --out /dev/stdout to a file differs"
[ -L /dev/stdout ] || fail "/dev/stdout is no longer a link"
# A regular file is still replaced (a new inode), never half written.
ino=$(stat -c %i "$work/plain.csv")
"$exe" export --db "$work/q.db" --format csv --out "$work/plain.csv" || fail "export again"
[ "$(stat -c %i "$work/plain.csv")" != "$ino" ] || fail "a regular file was written in place"
echo "device_outputs: ok"
