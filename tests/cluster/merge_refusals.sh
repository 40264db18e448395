#!/bin/sh
# stackbench merge by hand (no Slurm): two benches each run half of a sweep (--shard 0/2 and
# 1/2, the second on another board URI); the merge equals a plain run, keeps each point's
# provenance, drops a run given twice with the same results, and refuses — leaving the target
# untouched, new or existing — a run given twice with different results, a shard of another
# campaign, a truncated shard, a file that is not a database, and missing points (then
# --partial merges them and `run --resume` finishes the campaign).
#   merge_refusals.sh STACKBENCH_EXE EXAMPLES_DIR TESTS_CLUSTER_DIR
set -eu
exe=$1
here=$3
. "$here/compare_lib.sh"
work=$(mktemp -d /tmp/sb-merge-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "merge_refusals: FAIL: $*" >&2; exit 1; }

cat >c.yaml <<'YAML'
name: halves
bench: {device: "sim:", profile: hmc-gen2-ac510}
durations: {bandwidth_s: 0.5}
sweep: {type: [ro, wo], size: [64, 128], pattern: [16vault, all]}
YAML
sed 's/^name: halves/name: halves\nseed: 2/' c.yaml >other.yaml

"$exe" -q run c.yaml --db plain.db >/dev/null || fail "plain run"
"$exe" -q run c.yaml --shard 0/2 --db a.db >out 2>&1 || fail "shard 0/2: $(cat out)"
grep -q "shard 0/2 complete: 4 points" out || fail "shard 0/2 summary: $(cat out)"
# the other bench, on its own board URI (the content hash does not change)
"$exe" -q run c.yaml --shard 1/2 --db b.db --device 'sim:?ports=9' >out 2>&1 || fail "shard 1/2: $(cat out)"
[ "$(sqlite3 a.db "SELECT shard || '/' || shards || ' ' || shard_points || ' ' || points_total || ' ' || status FROM campaigns")" = "0/2 4 8 complete" ] ||
	fail "a.db's campaign row: $(sqlite3 a.db 'SELECT * FROM campaigns')"
[ "$(sqlite3 a.db "SELECT group_concat(idx) FROM points")" = "0,2,4,6" ] || fail "shard 0/2 holds $(sqlite3 a.db 'SELECT group_concat(idx) FROM points')"
[ "$(sqlite3 b.db "SELECT DISTINCT device FROM points")" = "sim:hmc-gen2-ac510?ports=9" ] || fail "b.db's device"
[ "$(sqlite3 a.db "SELECT hash FROM campaigns")" = "$(sqlite3 b.db "SELECT hash FROM campaigns")" ] || fail "--device changed the hash"
# a shard's database does not resume as another shard, nor as the whole campaign
"$exe" -q run c.yaml --shard 1/2 --db a.db --resume >out 2>&1 && fail "shard 1/2 resumed in a.db"
grep -q "holds shard 0/2; this run is shard 1/2" out || fail "shard mismatch message: $(cat out)"

# --- the merge -------------------------------------------------------------------------------
"$exe" merge a.db b.db --into m.db >out 2>&1 || fail "merge: $(cat out)"
grep -q "merged 2 databases into 'm.db' (new) as campaign 1 'halves' .*: 8 of 8 points, 8 runs, 0 duplicate runs" out ||
	fail "merge summary: $(cat out)"
grep -qx complete out || fail "not complete: $(cat out)"
[ "$(sqlite3 m.db "SELECT status || ' ' || coalesce(shards, 'whole') FROM campaigns")" = "complete whole" ] || fail "merged campaign row"
[ "$(sqlite3 m.db "PRAGMA integrity_check")" = ok ] || fail "integrity"
# every point once, with its own provenance: the shard it ran in, the board it ran on
[ "$(sqlite3 m.db "SELECT count(*) || ' ' || count(DISTINCT idx) FROM points")" = "8 8" ] || fail "points not once each"
[ "$(sqlite3 m.db "SELECT count(*) FROM points WHERE json_extract(provenance, '\$.shard') != (idx % 2) || '/2'")" = 0 ] ||
	fail "provenance shard: $(sqlite3 m.db "SELECT idx, json_extract(provenance, '\$.shard') FROM points")"
[ "$(sqlite3 m.db "SELECT count(*) FROM points WHERE idx % 2 = 1 AND device = 'sim:hmc-gen2-ac510?ports=9' AND json_extract(provenance, '\$.device.uri') = device")" = 4 ] ||
	fail "the second bench's board is not kept per point"
[ "$(sqlite3 m.db "SELECT DISTINCT json_extract(provenance, '\$.device.profile.name') || ' ' || json_extract(provenance, '\$.device.profile.bench') || ' ' || substr(json_extract(provenance, '\$.device.profile.content_hash'), 1, 8) FROM points")" = "hmc-gen2-ac510 ac510-lab fnv1a64:" ] ||
	fail "structured profile: $(sqlite3 m.db "SELECT DISTINCT json_extract(provenance, '\$.device') FROM points")"
# no machine's paths in what is shared: the profile named, not its file
sqlite3 m.db "SELECT provenance FROM points UNION ALL SELECT provenance FROM campaigns" | grep -q '"detail":"[^"]*/' &&
	fail "a path in device.detail: $(sqlite3 m.db 'SELECT provenance FROM points LIMIT 1')"
[ "$(sqlite3 m.db "SELECT json_extract(data, '\$.sources[0].file') || ' ' || json_extract(data, '\$.sources[1].shard') || ' ' || json_extract(data, '\$.points') FROM events WHERE kind = 'merge'")" = "a.db 1/2 8" ] ||
	fail "merge event: $(sqlite3 m.db "SELECT data FROM events WHERE kind = 'merge'")"
# the results equal a plain run's (the board URI aside: the second bench named another)
sqlite3 m.db "UPDATE points SET device = 'sim:hmc-gen2-ac510'" && cp m.db m2.db
same_results plain.db m2.db || fail "merged results differ from a plain run"
same_export "$exe" plain.db m2.db || fail "merged export differs from a plain run's"

# the same run in two inputs with the same results: kept once
cp a.db a-copy.db
"$exe" merge a.db a-copy.db b.db --into dup.db >out 2>&1 || fail "merge with a duplicate: $(cat out)"
grep -q "8 of 8 points, 8 runs, 4 duplicate runs dropped" out || fail "duplicates: $(cat out)"
sqlite3 dup.db "UPDATE points SET device = 'sim:hmc-gen2-ac510'"
same_results plain.db dup.db || fail "merge with a duplicate differs from a plain run"

# --- refusals: each leaves the target as it was ------------------------------------------------
sum_m=$(cksum <m.db)
refuse() { # refuse WHAT EXPECTED_EXIT PATTERN ARGS...
	what=$1 want=$2 pattern=$3
	shift 3
	set +e
	"$exe" merge "$@" >out 2>&1
	rc=$?
	set -e
	[ $rc -eq "$want" ] || fail "$what: exit $rc, expected $want: $(cat out)"
	grep -q "$pattern" out || fail "$what: message: $(cat out)"
	[ ! -e new.db ] || fail "$what: left new.db behind"
	ls -a | grep -q '\.merge-' && fail "$what: left a temporary file: $(ls -a)"
	[ "$(cksum <m.db)" = "$sum_m" ] || fail "$what: changed the existing target"
	echo "merge_refusals: $what refused: $(tail -1 out)"
}
cp a.db a-diff.db
sqlite3 a-diff.db "UPDATE points SET bandwidth_gbps = bandwidth_gbps * 1.01 WHERE idx = 4"
refuse "a run twice with different results" 4 "point 4 .*, run 1, is in 'a.db' and in 'a-diff.db' with different results (bandwidth_gbps is .* in 'a.db' and .* in 'a-diff.db')" \
	a.db a-diff.db b.db --into new.db
refuse "the same, into an existing database" 4 "with different results" a.db a-diff.db b.db --into m.db
"$exe" -q run other.yaml --shard 1/2 --db other.db >/dev/null || fail "other campaign"
refuse "another campaign" 4 "shards of different campaigns" a.db other.db --into new.db
refuse "another campaign, into an existing database" 4 "shards of different campaigns" a.db other.db --into m.db
size=$(wc -c <b.db)
head -c $((size / 2)) b.db >b-cut.db
refuse "a truncated shard" 4 "b-cut.db.*\(damaged\|truncated\)" a.db b-cut.db --into new.db
refuse "a truncated shard, into an existing database" 4 "b-cut.db.*\(damaged\|truncated\)" a.db b-cut.db --into m.db
echo "not a database" >junk.db
refuse "a file that is not a database" 4 "junk.db" a.db junk.db --into new.db
refuse "missing points" 4 "hold 4 finished of the 8 points .*missing or unfinished: 1, 3, 5, 7)" a.db --into new.db
refuse "the target among the inputs" 2 "is the input" a.db b.db --into b.db

# --partial: the campaign resumes where the shards stopped
"$exe" merge a.db --into part.db --partial >out 2>&1 || fail "--partial: $(cat out)"
grep -q "4 of 8 points" out || fail "--partial summary: $(cat out)"
[ "$(sqlite3 part.db "SELECT status FROM campaigns")" = interrupted ] || fail "partial status"
"$exe" -q run c.yaml --db part.db --resume >out 2>&1 || fail "resume the partial merge: $(cat out)"
grep -q "4 run now, 4 stored before" out || fail "resume ran: $(cat out)"
same_results plain.db part.db || fail "partial merge + resume differs from a plain run"
echo "merge_refusals: ok"
