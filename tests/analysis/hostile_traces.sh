#!/bin/sh
# The trace readers facing inputs made to hurt (issue 17 items 7, 8; issue 14 item 5): each
# must end with a clear error naming the input and exit code 4, never "0 accesses" with exit 0,
# never a crash or memory running out; compressed inputs read as the plain ones.
#   hostile_traces.sh STACKBENCH DATA_DIR
set -eu
sb=$1 data=$2
dir=$(mktemp -d /tmp/sb-hostile.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "hostile_traces: $*" >&2; exit 1; }

# expect RC REGEX ARGS...: run the tool, check its exit code and its output
expect() {
	rc=$1 re=$2
	shift 2
	set +e
	out=$("$sb" "$@" 2>&1)
	got=$?
	set -e
	[ "$got" = "$rc" ] || fail "$*: exit $got, expected $rc: $out"
	printf '%s' "$out" | grep -Eq "$re" || fail "$*: output does not match '$re': $out"
}

# 1 MB of random bytes is no GPGPU-Sim log (a NUL byte: not text)
head -c 1048576 /dev/urandom > "$dir/junk.log"
expect 4 "junk.log' line [0-9]+: a NUL byte: not a text file" lifetimes "$dir/junk.log"
# text without a newline is bounded: /dev/zero and a long line fail at 16 MiB
expect 4 "cannot parse '/dev/zero' line 1: longer than 16777216 bytes" lifetimes -f csv /dev/zero
expect 4 "'/dev/zero' line 1: longer than 16777216 bytes" locality -f gpgpusim /dev/zero
# an empty file
: > "$dir/empty.csv"
expect 4 "empty.csv' line 1: no header line" lifetimes "$dir/empty.csv"
: > "$dir/empty.log"
expect 4 "empty.log' holds no GPGPU-Sim cache access line \(0 lines read" lifetimes "$dir/empty.log"
: > "$dir/empty.sbt"
expect 4 "empty.sbt' at byte 0: file is truncated" lifetimes "$dir/empty.sbt"
# a folder given as a trace file
expect 2 "is a folder, not a trace file" lifetimes -f csv "$dir"

# compressed inputs read as the plain ones (the format guessed under the suffix)
plain=$("$sb" lifetimes "$data/trace.csv" | grep '^buf ')
gzip -c "$data/trace.csv" > "$dir/trace.csv.gz"
expect 0 "$plain" lifetimes "$dir/trace.csv.gz"
if command -v xz > /dev/null; then
	xz -c "$data/gpgpusim.log" > "$dir/g.log.xz"
	expect 0 "L1D +3 +3 +3" lifetimes "$dir/g.log.xz"
fi
if command -v zstd > /dev/null; then
	zstd -q -c "$data/trace.csv" > "$dir/t.csv.zst"
	expect 0 "$plain" lifetimes "$dir/t.csv.zst"
fi
# a compressed file misnamed, and on standard input
cp "$dir/trace.csv.gz" "$dir/misnamed.csv"
expect 0 "$plain" lifetimes "$dir/misnamed.csv"
set +e
out=$("$sb" lifetimes -f csv - < "$dir/trace.csv.gz" 2>&1)
set -e
printf '%s' "$out" | grep -Eq "$plain" || fail "gzip on standard input: $out"
# truncated and corrupt compressed data
n=$(wc -c < "$dir/trace.csv.gz")
head -c $((n - 10)) "$dir/trace.csv.gz" > "$dir/cut.csv.gz"
expect 4 "cut.csv.gz' is truncated: it ends inside a gzip stream" lifetimes "$dir/cut.csv.gz"
printf '\037\213\010\000garbage-not-deflate' > "$dir/bad.csv.gz"
expect 4 "cannot decompress '.*bad.csv.gz' \(gzip\)" lifetimes "$dir/bad.csv.gz"
echo "hostile_traces: ok"
