#!/bin/sh
# A thermal campaign through Slurm: each cooling configuration's sequence (its idle and loaded
# points, the configuration applied and settled once) stays whole and in order in one shard — 3 sequences over 2 shards: Cfg1 and Cfg3 in shard 0, Cfg2 in shard 1 — and the
# merge holds every point once, each naming its shard and task. Asking for 5 shards runs 3.
#   thermal_slurm.sh STACKBENCH_EXE EXAMPLES_DIR TESTS_CLUSTER_DIR
set -eu
exe=$1
here=$3
. "$here/cluster_lib.sh"
fail() {
	echo "thermal_slurm: FAIL: $*" >&2
	cluster_logs "${dir:-}"
	exit 1
}
cluster_start
mkdir "$SB_W/work"
cd "$SB_W/work"
cat >t.yaml <<'YAML'
name: thermal-shards
kind: thermal
instruments: sim
durations: {thermal_s: 20}
sample_interval_ms: 1000
sweep:
  cooling: [Cfg1, Cfg2, Cfg3]
  ports: [0, all]
  type: [ro, wo]
  pattern: 16vault
YAML

# more shards than sequences: the dry run says so and would submit three tasks
"$exe" run t.yaml --db th.db --slurm --shards 5 --dry-run >dry 2>&1 || fail "dry run: $(cat dry)"
grep -q "has 3 sequences that must stay whole (one cooling configuration each): 3 of the 5 shards have points" dry ||
	fail "dry run: $(cat dry)"
grep -q "^shard 4/5: no points$" dry || fail "dry run, an empty shard: $(cat dry)"
grep -q -- "--array=0-2 " dry || fail "dry run, the array: $(cat dry)"

"$exe" run t.yaml --db th.db --slurm --shards 2 >sub 2>&1 || fail "submit: $(cat sub)"
array=$(sed -n 's/^submitted job array \([0-9]*\): 2 of 2 shards (0 1)$/\1/p' sub)
merge=$(sed -n "s/^submitted merge job \([0-9]*\) after $array\$/\1/p" sub)
[ -n "$array" ] && [ -n "$merge" ] || fail "submission: $(cat sub)"
dir=$(echo th.db.shards/thermal-shards-*-of-2)
cluster_wait_gone "$array" "$merge"

# each sequence in one shard, in order: the runs' ids follow the points' order
for i in 0 1; do
	db=$dir/shard-$i-of-2.db
	[ "$(sqlite3 "$db" "SELECT group_concat(DISTINCT cooling) FROM (SELECT cooling FROM points ORDER BY id)")" = "$([ $i = 0 ] && echo Cfg1,Cfg3 || echo Cfg2)" ] ||
		fail "shard $i holds $(sqlite3 "$db" "SELECT group_concat(cooling) FROM points")"
	[ "$(sqlite3 "$db" "SELECT group_concat(idx) FROM (SELECT idx FROM points ORDER BY id)")" = \
		"$(sqlite3 "$db" "SELECT group_concat(idx) FROM (SELECT idx FROM points ORDER BY idx)")" ] ||
		fail "shard $i ran out of order: $(sqlite3 "$db" "SELECT group_concat(idx) FROM (SELECT idx FROM points ORDER BY id)")"
	# each configuration's points one after the other: applied once, never interleaved
	[ "$(sqlite3 "$db" "SELECT count(*) FROM points a JOIN points b ON b.id = a.id + 1 WHERE a.cooling != b.cooling")" = \
		"$(($(sqlite3 "$db" "SELECT count(DISTINCT cooling) FROM points") - 1))" ] ||
		fail "shard $i interleaves its sequences: $(sqlite3 "$db" "SELECT group_concat(cooling) FROM (SELECT cooling FROM points ORDER BY id)")"
	[ "$(sqlite3 "$db" "SELECT count(*) FROM events WHERE kind = 'start'")" = 1 ] || fail "shard $i started twice"
done
[ "$(sqlite3 "$dir/shard-0-of-2.db" "SELECT group_concat(idx) FROM points")" = "0,1,2,3,8,9,10,11" ] || fail "shard 0's points"
[ "$(sqlite3 th.db "SELECT count(*) || ' ' || count(DISTINCT idx) || ' ' || min(idx) || ' ' || max(idx) FROM points")" = "12 12 0 11" ] ||
	fail "merged points: $(sqlite3 th.db 'SELECT group_concat(idx) FROM points')"
[ "$(sqlite3 th.db "SELECT status FROM campaigns")" = complete ] || fail "merged campaign not complete"
# each point names its shard and task; a sequence's points name one task
[ "$(sqlite3 th.db "SELECT count(*) FROM points WHERE json_extract(provenance, '\$.shard') != CASE cooling WHEN 'Cfg2' THEN '1/2' ELSE '0/2' END
	OR json_extract(provenance, '\$.slurm.array_task_id') != CASE cooling WHEN 'Cfg2' THEN '1' ELSE '0' END
	OR json_extract(provenance, '\$.slurm.array_job_id') != '$array'")" = 0 ] ||
	fail "provenance: $(sqlite3 th.db "SELECT idx, cooling, json_extract(provenance, '\$.shard') FROM points")"
# the thermal results are there: steady temperatures and power per point
[ "$(sqlite3 th.db "SELECT count(*) FROM points WHERE temp_c_steady IS NULL AND failed = 0")" = 0 ] || fail "thermal results missing"
echo "thermal_slurm: ok"
