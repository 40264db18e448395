#!/bin/sh
# Comparing the results of two databases (sourced by the cluster tests): every column of the
# points, point_ports and samples tables that is a result — all but row ids, the worker, wall
# time, finish time and provenance (where and when a run ran, not what it measured) — row for
# row, by point and run; and the CSV exports of both through `stackbench export`, those columns
# dropped.

# results DB [CAMPAIGN_ID]: the results of the database's campaign (default: its latest) as text.
results() {
	db=$1
	cid=${2:-$(sqlite3 "$db" "SELECT max(id) FROM campaigns")}
	pc=$(sqlite3 "$db" "SELECT group_concat(name, ', ') FROM pragma_table_info('points')
		WHERE name NOT IN ('id', 'campaign_id', 'worker', 'wall_s', 'finished_at', 'provenance')")
	sqlite3 "$db" "SELECT $pc FROM points WHERE campaign_id = $cid ORDER BY idx, attempt"
	for t in point_ports samples; do
		c=$(sqlite3 "$db" "SELECT group_concat('x.' || name, ', ') FROM pragma_table_info('$t')
			WHERE name != 'point_id'")
		sqlite3 "$db" "SELECT p.idx, p.attempt, $c FROM $t x JOIN points p ON p.id = x.point_id
			WHERE p.campaign_id = $cid ORDER BY p.idx, p.attempt, 3, 4"
	done
}

# same_results A.db B.db: the results are equal (prints the first difference otherwise).
same_results() {
	results "$1" >"$1.res"
	results "$2" >"$2.res"
	[ -s "$1.res" ] || { echo "no results in $1" >&2; return 1; }
	if ! cmp -s "$1.res" "$2.res"; then
		diff "$1.res" "$2.res" | head -5 >&2
		return 1
	fi
}

# same_export EXE A.db B.db: `stackbench export --format csv` of both equal but for the columns
# that are not results.
same_export() {
	"$1" export --db "$2" --format csv --out "$2.csv" || return 1
	"$1" export --db "$3" --format csv --out "$3.csv" || return 1
	python3 - "$2.csv" "$3.csv" <<'PY'
import csv, sys
skip = {"id", "campaign_id", "worker", "wall_s", "finished_at", "provenance"}
def rows(path):
    with open(path, newline="") as f:
        r = list(csv.DictReader(f))
    return [{k: v for k, v in x.items() if k not in skip} for x in r]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
if not a or a != b:
    for x, y in zip(a, b):
        if x != y:
            print("first difference:", {k: (x[k], y[k]) for k in x if x[k] != y[k]}, file=sys.stderr)
            break
    print(f"exports differ ({len(a)} and {len(b)} rows)", file=sys.stderr)
    sys.exit(1)
PY
}
