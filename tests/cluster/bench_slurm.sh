#!/bin/sh
# Benchmark (not a test): a campaign run plainly, then through Slurm with 1 and with 2 shards on
# a one-machine cluster (cluster_lib.sh: this machine's cores are the cluster), and where the
# time goes. Prints, per configuration: the wall time from the command to the merged campaign;
# per task and for the merge job, the time it waited in the queue and ran (Slurm's times, whole
# seconds) and the time stackbench measured inside it. The overhead Slurm adds to a task is
# what the task's run took beyond stackbench's own time, plus its wait in the queue.
#   bench_slurm.sh STACKBENCH_EXE CAMPAIGN.yaml [SHARDS...]   (default shards: 1 2; root)
set -eu
exe=$1
campaign=$(realpath "$2")
shift 2
[ $# -gt 0 ] || set -- 1 2
here=$(dirname "$(realpath "$0")")
. "$here/cluster_lib.sh"
cluster_start
mkdir "$SB_W/work"
cd "$SB_W/work"
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.1f", $2 - $1 }'; }
# seconds between two of a job's times (scontrol show job: SubmitTime, StartTime, EndTime)
job_times() {
	info=$(scontrol show job "$1" | tr ' ' '\n')
	at() { date -d "$(echo "$info" | sed -n "s/^$1=//p")" +%s; }
	echo "queued $(($(at StartTime) - $(at SubmitTime))) s, ran $(($(at EndTime) - $(at StartTime))) s"
}

t0=$(now)
"$exe" -q run "$campaign" --db plain.db >plain.out
t1=$(now)
points=$(sqlite3 plain.db "SELECT count(*) FROM points")
echo "bench_slurm: $(basename "$campaign"), $points points, $(nproc) cores"
echo "plain run: $(secs "$t0" "$t1") s ($(sed -n 's/.* in \([0-9.]*\) s$/\1/p' plain.out) s inside)"
for n in "$@"; do
	db=s$n.db
	t0=$(now)
	"$exe" run "$campaign" --db "$db" --slurm --shards "$n" >sub$n.out
	t1=$(now)
	array=$(sed -n 's/^submitted job array \([0-9]*\): .*/\1/p' sub$n.out)
	merge=$(sed -n 's/^submitted merge job \([0-9]*\) after .*/\1/p' sub$n.out)
	until [ "$(sqlite3 "$db" "SELECT status FROM campaigns" 2>/dev/null)" = complete ]; do
		sleep 0.05
	done
	t2=$(now)
	cluster_wait_gone "$array" "$merge"
	echo "slurm, $n shard(s): $(secs "$t0" "$t2") s to the merged campaign (the submitting command $(secs "$t0" "$t1") s)"
	dir=$(echo "$db".shards/*-of-"$n")
	i=0
	while [ $i -lt "$n" ]; do
		inside=$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' "$dir/task-$i-job-$array.out")
		echo "  task $i: $(job_times "${array}_$i"); stackbench inside: $inside s"
		i=$((i + 1))
	done
	echo "  merge: $(job_times "$merge")"
done
