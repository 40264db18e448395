#!/bin/sh
# Threads and shards of the analyses give one process's report, byte for byte (issue 24 item 2,
# issue 25 item 3), and merging partials that do not belong together is refused:
#   1. the SCALE-Sim sample run (a real tool's output), a sampled capture of the simulated board
#      (`point --trace`, read-modify-writes in a narrow window: windows, per-vault subpartitions) and a complete measured trace
#      (`replay --trace` of the sample, as sbt and as CSV) and a CSV whose rows go back in time:
#      lifetimes and locality with 1 and 3 threads, and
#      sharded 4 ways (the partials merged in scrambled order, shards run with 1 and 2
#      threads), every JSON report equal to the single thread's;
#   2. refusals: a missing shard, a shard twice, a shard of another trace, of other options, of
#      the other analysis, a truncated and a damaged partial, report options on a shard.
#   shards.sh STACKBENCH_EXE SCALESIM_RUN_FOLDER ANALYSIS_DATA_FOLDER
set -eu
exe=$1
run=$2
data=$3
work=$(mktemp -d /tmp/sb-shards-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "shards: FAIL: $*" >&2; exit 1; }

# same ANALYSIS TRACE NAME: single-threaded report, 3 threads, 4 shards merged: all equal.
same() {
	an=$1 trace=$2 name=$3
	"$exe" "$an" "$trace" --threads 1 --json "$work/$name.1.json" >/dev/null 2>&1 ||
		fail "$an $name: one thread"
	"$exe" "$an" "$trace" --threads 3 --json "$work/$name.3.json" >/dev/null 2>&1 ||
		fail "$an $name: three threads"
	cmp -s "$work/$name.1.json" "$work/$name.3.json" || fail "$an $name: 3 threads differ"
	for i in 0 1 2 3; do
		"$exe" "$an" "$trace" --shard $i/4 --partial "$work/$name.$i.part" \
			--threads $((i % 2 + 1)) >"$work/out" 2>&1 || fail "$an $name shard $i: $(cat "$work/out")"
	done
	"$exe" "$an" --merge "$work/$name.2.part" "$work/$name.0.part" "$work/$name.3.part" \
		"$work/$name.1.part" --json "$work/$name.m.json" >"$work/out" 2>&1 ||
		fail "$an $name merge: $(cat "$work/out")"
	cmp -s "$work/$name.1.json" "$work/$name.m.json" || fail "$an $name: merged shards differ"
}

# the traces: the sample run, a sampled capture, the sample replayed through the board
"$exe" point --pattern 1vault --type rw --mask 20-33 --duration-us 20000 --trace "$work/cap.sbt" \
	--no-instruments \
	>"$work/out" 2>&1 || fail "point --trace: $(cat "$work/out")"
"$exe" replay "$run" --trace "$work/rep.sbt" >"$work/out" 2>&1 || fail "replay: $(cat "$work/out")"
# the replay as CSV (text: locality reads it in a thread beside its engine, lifetimes deals it
# to engines from the reading thread) and a CSV whose rows go back in time (read again sorted)
"$exe" trace convert "$work/rep.sbt" --to csv --out "$work/rep.csv" >"$work/out" 2>&1 ||
	fail "convert: $(cat "$work/out")"
for an in lifetimes locality; do
	same $an "$run" "$an-sample"
	same $an "$work/cap.sbt" "$an-capture"
	same $an "$work/rep.sbt" "$an-replay"
	same $an "$work/rep.csv" "$an-replay-csv"
	same $an "$data/out-of-order.csv" "$an-ooo"
done
# options other than the defaults go with the shards, and the merge analyses with them
opts() {
	an=$1 trace=$2 name=$3
	shift 3
	"$exe" "$an" "$trace" "$@" --threads 1 --json "$work/$name.1.json" >/dev/null 2>&1 ||
		fail "$an $name $*"
	for i in 0 1 2; do
		"$exe" "$an" "$trace" "$@" --shard $i/3 --partial "$work/$name.$i.part" >/dev/null 2>&1 ||
			fail "$an $name $* shard $i"
	done
	"$exe" "$an" --merge "$work/$name.0.part" "$work/$name.1.part" "$work/$name.2.part" \
		--json "$work/$name.m.json" >"$work/out" 2>&1 || fail "$an $name merge: $(cat "$work/out")"
	cmp -s "$work/$name.1.json" "$work/$name.m.json" || fail "$an $name $*: merged shards differ"
}
opts locality "$run" locality-opts --leaves 64 --block-bytes 32 --hot-share 0.2
opts lifetimes "$data/gpgpusim.log" lifetimes-nwa --policy no-write-allocate --block-bytes 64

# the capture's reports are not empty: windows, lifetimes, reuse distances
grep -q '"windowed":	true' "$work/lifetimes-capture.1.json" || fail "capture: not read as sampled"
grep -q '"censored_values":	[1-9]' "$work/lifetimes-capture.1.json" || fail "capture: no window"
grep -q '"finite":	[1-9]' "$work/locality-capture.1.json" || fail "capture: no reuse distance"

# refusals (exit 4, the message naming what does not fit)
refuse() {
	msg=$1
	shift
	rc=0
	"$exe" "$@" >"$work/out" 2>&1 || rc=$?
	[ $rc = 4 ] || fail "exit $rc for: $* ($(cat "$work/out"))"
	grep -q "$msg" "$work/out" || fail "'$msg' not in: $(cat "$work/out")"
}
s=$work/lifetimes-sample
refuse "shard 1 of 4 is missing" lifetimes --merge "$s.0.part" "$s.2.part" "$s.3.part"
refuse "are both shard 2 of 4" lifetimes --merge "$s.0.part" "$s.1.part" "$s.2.part" "$s.2.part" "$s.3.part"
refuse "partials of different traces" lifetimes --merge "$s.0.part" "$s.1.part" "$s.2.part" \
	"$work/lifetimes-replay.3.part"
"$exe" lifetimes "$run" --policy no-write-allocate --shard 3/4 --partial "$work/nwa.part" >/dev/null 2>&1
refuse "different options" lifetimes --merge "$s.0.part" "$s.1.part" "$s.2.part" "$work/nwa.part"
"$exe" locality "$run" --leaves 64 --shard 3/4 --partial "$work/l64.part" >/dev/null 2>&1
refuse "different options" locality --merge "$work/locality-sample.0.part" \
	"$work/locality-sample.1.part" "$work/locality-sample.2.part" "$work/l64.part"
refuse "a partial of a lifetimes analysis, not of locality" locality --merge "$s.0.part"
head -c 200 "$s.1.part" >"$work/trunc.part"
refuse "trunc.part' is not a valid stackbench partial: it is truncated" lifetimes --merge \
	"$s.0.part" "$work/trunc.part" "$s.2.part" "$s.3.part"
size=$(wc -c <"$s.1.part")
cp "$s.1.part" "$work/bad.part"
printf '\377' | dd of="$work/bad.part" bs=1 seek=$((size - 20)) conv=notrunc 2>/dev/null
refuse "bad.part' is not a valid stackbench partial" lifetimes --merge "$s.0.part" \
	"$work/bad.part" "$s.2.part" "$s.3.part"
printf 'not a partial at all\n' >"$work/text.part"
refuse "text.part' is not a valid stackbench partial" locality --merge "$work/text.part"
# a shard writes its partial only; report options go with --merge (exit 2)
if "$exe" lifetimes "$run" --shard 0/2 --partial "$work/x.part" --json "$work/x.json" \
	>"$work/out" 2>&1; then fail "--json with --shard accepted"; fi
grep -q -- "--json goes with --merge" "$work/out" || fail "--json with --shard: $(cat "$work/out")"
if "$exe" locality "$run" --shard 0/2 >"$work/out" 2>&1; then fail "--shard without --partial"; fi
grep -q -- "--shard needs --partial" "$work/out" || fail "--shard alone: $(cat "$work/out")"
if "$exe" locality "$run" --shard 2/2 --partial "$work/x.part" >"$work/out" 2>&1; then
	fail "--shard 2/2 accepted"
fi
echo "shards: ok"
