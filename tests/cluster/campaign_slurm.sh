#!/bin/sh
# examples/pattern-sweep.yaml through Slurm with 4 shards on the simulated board, on a real
# one-machine cluster: one shard is cancelled with scancel part-way, its merge job then waits
# forever (afterok); the same command again cancels that merge job, submits only the cancelled
# shard, which runs only its missing points (counted), and a new merge job after it. The merged export
# equals a plain run's with the same seed, every point once, each with the Slurm job, task and
# shard that measured it. --status shows the shards and the queue; a third run submits nothing.
#   campaign_slurm.sh STACKBENCH_EXE EXAMPLES_DIR TESTS_CLUSTER_DIR
set -eu
exe=$1
examples=$2
here=$3
. "$here/cluster_lib.sh"
. "$here/compare_lib.sh"
fail() {
	echo "campaign_slurm: FAIL: $*" >&2
	cluster_logs "${dir:-}"
	exit 1
}
cluster_start
mkdir "$SB_W/work"
cd "$SB_W/work"
cp "$examples/pattern-sweep.yaml" c.yaml
start=$(date +%s)

# the reference: a plain run with the same seed (on two workers: results do not depend on it)
"$exe" -q run c.yaml --db plain.db --jobs 2 >/dev/null || fail "plain run"
echo "campaign_slurm: plain run: $(($(date +%s) - start)) s"

"$exe" run c.yaml --db lab.db --slurm --shards 4 --partition=bench >sub1 2>&1 || fail "submit: $(cat sub1)"
array=$(sed -n 's/^submitted job array \([0-9]*\): .*/\1/p' sub1)
merge=$(sed -n 's/^submitted merge job \([0-9]*\) after .*/\1/p' sub1)
[ -n "$array" ] && [ -n "$merge" ] || fail "job ids not printed: $(cat sub1)"
grep -q "submitted job array $array: 4 of 4 shards (0 1 2 3)" sub1 || fail "submission: $(cat sub1)"
dir=$(echo lab.db.shards/pattern-sweep-*-of-4)
[ -d "$dir" ] || fail "no shard folder: $(ls -R lab.db.shards 2>&1)"

# scancel shard 1 once it stored 3 of its 60 points
s1=$dir/shard-1-of-4.db
n=0
until [ "$(sqlite3 "$s1" "SELECT count(*) FROM points" 2>/dev/null || echo 0)" -ge 3 ]; do
	n=$((n + 1))
	[ $n -lt 3000 ] || fail "shard 1 stored nothing in 300 s"
	sleep 0.1
done
scancel "${array}_1"
cluster_wait_gone "$array"
m1=$(sqlite3 "$s1" "SELECT count(*) FROM points")
[ "$m1" -lt 60 ] || fail "shard 1 finished before the scancel"
for i in 0 2 3; do
	[ "$(sqlite3 "$dir/shard-$i-of-4.db" "SELECT count(*) || ' ' || status FROM points, campaigns")" = "60 complete" ] ||
		fail "shard $i: $(sqlite3 "$dir/shard-$i-of-4.db" "SELECT count(*) FROM points")"
done
[ "$(sqlite3 "$s1" "SELECT status FROM campaigns")" = interrupted ] || fail "shard 1 not interrupted"
# the merge job waits (afterok) for a task that will never succeed
case "$(squeue -h -j "$merge" -o '%T %r')" in
"PENDING Dependency" | "PENDING DependencyNeverSatisfied") ;;
*) fail "merge job: $(squeue -h -j "$merge" -o '%T %r')" ;;
esac
[ ! -e lab.db ] || fail "merged before every shard was done"
"$exe" run c.yaml --db lab.db --slurm --status >status1 2>&1 || fail "status: $(cat status1)"
grep -q "^shard 1/4: $m1 of 60 points; job ${array}_1, not in the queue" status1 || fail "status of shard 1: $(cat status1)"
grep -q "^shard 2/4: 60 of 60 points, complete; job ${array}_2, not in the queue" status1 || fail "status of shard 2: $(cat status1)"
grep -q "^merge: not done; job $merge PENDING (Dependency" status1 || fail "status of the merge: $(cat status1)"
echo "campaign_slurm: shard 1 cancelled with $m1 of 60 points stored"

# the same command again: only shard 1, only its missing points
sleep 1
rerun=$(date -u +%Y-%m-%dT%H:%M:%S)
"$exe" run c.yaml --db lab.db --slurm --shards 4 --partition=bench >sub2 2>&1 || fail "resubmit: $(cat sub2)"
grep -q "^cancelled merge job $merge: a shard it waited for did not finish" sub2 || fail "the stale merge job: $(cat sub2)"
squeue -h -r -o %i --me | grep -qx "$merge" && fail "the stale merge job is still queued"
array2=$(sed -n 's/^submitted job array \([0-9]*\): 1 of 4 shards (1)$/\1/p' sub2)
merge2=$(sed -n "s/^submitted merge job \([0-9]*\) after $array2\$/\1/p" sub2)
[ -n "$array2" ] && [ -n "$merge2" ] || fail "resubmission: $(cat sub2)"
cluster_wait_gone "$array2" "$merge2"
ran=$(sqlite3 "$s1" "SELECT count(*) FROM points WHERE finished_at > '$rerun'")
[ "$ran" -eq $((60 - m1)) ] || fail "shard 1 ran $ran points after the rerun; $((60 - m1)) were missing"
for i in 0 2 3; do
	[ "$(sqlite3 "$dir/shard-$i-of-4.db" "SELECT count(*) FROM points WHERE finished_at > '$rerun'")" = 0 ] ||
		fail "shard $i ran points again"
done
grep -q "$((60 - m1)) run now, $m1 stored before" "$dir/task-1-job-$array2.out" || fail "task log: $(tail -3 "$dir/task-1-job-$array2.out")"
[ "$(sqlite3 "$s1" "SELECT message FROM events WHERE kind = 'resume'")" = "$((60 - m1)) of 60 points of shard 1/4 to run, 1 worker (sim:hmc-gen2-ac510), content hash $(sqlite3 "$s1" 'SELECT hash FROM campaigns')" ] ||
	fail "resume event: $(sqlite3 "$s1" "SELECT message FROM events WHERE kind = 'resume'")"
echo "campaign_slurm: the rerun ran the $ran missing points of shard 1 and nothing else"

# the merged campaign: every point once, equal to the plain run, provenance per point
[ "$(sqlite3 lab.db "SELECT count(*) || ' ' || status || ' ' || points_total FROM campaigns")" = "1 complete 240" ] ||
	fail "merged campaign: $(sqlite3 lab.db 'SELECT id, status, points_total FROM campaigns')"
[ "$(sqlite3 lab.db "SELECT count(*) || ' ' || count(DISTINCT idx) FROM points")" = "240 240" ] || fail "points not once each"
same_results plain.db lab.db || fail "the merged results differ from the plain run's"
same_export "$exe" plain.db lab.db || fail "the merged export differs from the plain run's"
[ "$(sqlite3 lab.db "SELECT count(*) FROM points WHERE coalesce(CAST(json_extract(provenance, '\$.slurm.array_task_id') AS INTEGER), -1) != idx % 4
	OR json_extract(provenance, '\$.shard') != (idx % 4) || '/4'
	OR json_extract(provenance, '\$.slurm.cluster') != 'sbtest'
	OR json_extract(provenance, '\$.slurm.array_job_id') NOT IN ('$array', '$array2')
	OR json_extract(provenance, '\$.host.name') = ''")" = 0 ] ||
	fail "provenance: $(sqlite3 lab.db "SELECT idx, json_extract(provenance, '\$.slurm') FROM points LIMIT 3")"
[ "$(sqlite3 lab.db "SELECT count(*) FROM points WHERE json_extract(provenance, '\$.slurm.array_job_id') = '$array2'")" -eq "$ran" ] ||
	fail "the rerun's points do not name its job"
[ "$(sqlite3 lab.db "SELECT count(*) FROM events WHERE kind = 'merge'")" = 1 ] || fail "merge event"

"$exe" run c.yaml --db lab.db --slurm --status >status2 2>&1 || fail "status: $(cat status2)"
grep -q "^4 of 4 shards done, merged" status2 || fail "final status: $(cat status2)"
"$exe" run c.yaml --db lab.db --slurm --shards 4 >sub3 2>&1 || fail "third run: $(cat sub3)"
grep -q "^complete: campaign 1 in 'lab.db', 240 points; nothing to submit" sub3 || fail "third run: $(cat sub3)"
grep -q "^submitted" sub3 && fail "the third run submitted: $(cat sub3)"
echo "campaign_slurm: ok in $(($(date +%s) - start)) s"
