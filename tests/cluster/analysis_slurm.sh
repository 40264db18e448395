#!/bin/sh
# Sharded trace analyses through Slurm (issue 25 item 3) on a real one-machine cluster:
# `lifetimes` and `locality` with --slurm --shards 4 on the SCALE-Sim sample run (a real tool's
# output) and on a capture of the simulated board (sbt): the job array's partials merged by the
# dependent job give the one-process report byte for byte. Then a partial removed (a failed
# shard): the same command submits only that shard and the merge, and the report is the same
# again; --status shows every shard done and merged; a further run submits nothing.
#   analysis_slurm.sh STACKBENCH_EXE EXAMPLES_DIR TESTS_CLUSTER_DIR SCALESIM_RUN_FOLDER
set -eu
exe=$1
here=$3
run=$4
. "$here/cluster_lib.sh"
fail() {
	echo "analysis_slurm: FAIL: $*" >&2
	for d in "${SB_W:-/nonexistent}"/work/*.shards/*; do
		cluster_logs "$d"
	done
	exit 1
}
cluster_start
mkdir "$SB_W/work"
cd "$SB_W/work"
start=$(date +%s)
"$exe" point --pattern 1vault --type rw --mask 20-33 --duration-us 20000 --trace cap.sbt \
	--no-instruments >out 2>&1 || fail "point --trace: $(cat out)"

# slurm AN TRACE NAME: the reference, then --slurm with 4 shards; the report equal to it.
slurm() {
	an=$1 trace=$2 name=$3
	"$exe" "$an" "$trace" --json "$name.ref.json" >/dev/null 2>&1 || fail "$an $name: one process"
	"$exe" "$an" "$trace" --json "$name.json" --slurm --shards 4 --partition=bench >sub 2>&1 ||
		fail "$an $name: submit: $(cat sub)"
	array=$(sed -n 's/^submitted job array \([0-9]*\): 4 of 4 shards (0 1 2 3)$/\1/p' sub)
	merge=$(sed -n "s/^submitted merge job \([0-9]*\) after $array\$/\1/p" sub)
	[ -n "$array" ] && [ -n "$merge" ] || fail "$an $name: job ids not printed: $(cat sub)"
	dir=$(echo "$name.json.shards/$an-"*-of-4)
	[ -d "$dir" ] || fail "$an $name: no work folder"
	cluster_wait_gone "$array"
	for i in 0 1 2 3; do
		[ -s "$dir/shard-$i-of-4.part" ] || fail "$an $name: no partial of shard $i"
	done
	cluster_wait_gone "$merge"
	[ -f "$name.json" ] || fail "$an $name: no report after the merge job"
	cmp -s "$name.ref.json" "$name.json" || fail "$an $name: the merged report differs"
	echo "analysis_slurm: $an $name: 4 shards through Slurm, the report equal to one process's"
}
slurm lifetimes "$run" lifetimes-sample
slurm locality "$run" locality-sample
slurm lifetimes cap.sbt lifetimes-capture
slurm locality cap.sbt locality-capture

# a lost shard: only it is submitted again, with the merge; the report is the same
dir=$(echo lifetimes-sample.json.shards/lifetimes-*-of-4)
rm "$dir/shard-2-of-4.part"
sleep 1
"$exe" lifetimes "$run" --json lifetimes-sample.json --slurm --status >st1 2>&1 || fail "status: $(cat st1)"
grep -q "^shard 2/4: no partial yet; job [0-9]*_2, not in the queue" st1 || fail "status of shard 2: $(cat st1)"
grep -q "^3 of 4 shards done$" st1 || fail "status: $(cat st1)"
"$exe" lifetimes "$run" --json lifetimes-sample.json --slurm --partition=bench >sub 2>&1 ||
	fail "resubmit: $(cat sub)"
array=$(sed -n 's/^submitted job array \([0-9]*\): 1 of 4 shards (2)$/\1/p' sub)
merge=$(sed -n "s/^submitted merge job \([0-9]*\) after $array\$/\1/p" sub)
[ -n "$array" ] && [ -n "$merge" ] || fail "resubmission: $(cat sub)"
cluster_wait_gone "$array" "$merge"
cmp -s lifetimes-sample.ref.json lifetimes-sample.json || fail "the report after the rerun differs"
"$exe" lifetimes "$run" --json lifetimes-sample.json --slurm --status >st2 2>&1 || fail "status: $(cat st2)"
grep -q "^4 of 4 shards done, merged$" st2 || fail "final status: $(cat st2)"
"$exe" lifetimes "$run" --json lifetimes-sample.json --slurm >sub 2>&1 || fail "third run: $(cat sub)"
grep -q "^complete: the report 'lifetimes-sample.json'; nothing to submit$" sub || fail "third run: $(cat sub)"
echo "analysis_slurm: a lost shard ran again alone; ok in $(($(date +%s) - start)) s"
