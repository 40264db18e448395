#!/bin/sh
# Campaign traces go beside the database in NAME.traces/, NAME its file name without the last
# extension (docs/campaigns.md): lab.db → lab.traces/; two databases whose names differ after
# a dot (run.2024.db, run.2025.db) keep their traces apart (they shared run.traces/ and the
# second overwrote the first's).
#   trace_folder.sh STACKBENCH_EXE
set -eu
exe=$1
work=$(mktemp -d /tmp/sb-trfolder-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "trace_folder: FAIL: $*" >&2; exit 1; }
cat >"$work/t.yaml" <<EOC
name: tr
instruments: none
durations: {bandwidth_s: 0.001}
trace: {burst: 64, gap: 2000}
sweep: {type: [ro, wo]}
EOC
for db in lab.db run.2024.db run.2025.db; do
	"$exe" -q run "$work/t.yaml" --db "$work/$db" >/dev/null || fail "run $db"
done
for stem in lab run.2024 run.2025; do
	for i in 0 1; do
		f=$stem.traces/campaign1/point0000$i.sbt
		[ -s "$work/$f" ] || fail "no $f: $(cd "$work" && find . -name '*.sbt')"
		[ "$(sqlite3 "$work/$stem.db" "SELECT file FROM point_traces JOIN points p ON p.id = point_id WHERE p.idx = $i")" = "$f" ] ||
			fail "$stem.db does not record $f"
	done
done
[ ! -e "$work/run.traces" ] || fail "run.traces/ made: the two databases would share it"
echo "trace_folder: ok"
