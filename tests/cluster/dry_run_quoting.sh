#!/bin/sh
# Nothing from a campaign reaches a shell unquoted: a campaign with a hostile name, in a folder
# with quotes, spaces and $(...) in its name, into a database path like it. The job array's and
# the merge's scripts from --dry-run pass `sh -n`, and run by hand (as Slurm would run them,
# task by task) they measure the shards and merge them where asked, and nothing else happens.
# Bad sbatch options are refused. No cluster needed.
#   dry_run_quoting.sh STACKBENCH_EXE EXAMPLES_DIR TESTS_CLUSTER_DIR
set -eu
exe=$1
work=$(mktemp -d /tmp/sb-quote-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "dry_run_quoting: FAIL: $*" >&2; exit 1; }
d="$work/it's a \"dir\" \$(touch pwned1) \`touch pwned2\`;x"
mkdir -p "$d"
cd "$work"
cat >"$d/c'; touch pwned3; '.yaml" <<'YAML'
name: "a'b \"c\" $(touch pwned4)\nd"
bench: {device: "sim:", profile: hmc-gen2-ac510}
durations: {bandwidth_s: 0.5}
sweep: {type: [ro, wo], size: [64, 128]}
YAML
file="$d/c'; touch pwned3; '.yaml"
db="$d/r \$(touch pwned5).db"
"$exe" run "$file" --db "$db" --slurm --shards 2 --dry-run >dry 2>err || fail "dry run: $(cat err)"
[ ! -e "$db.shards" ] || fail "the dry run made the shard folder"
# the scripts, as printed
awk '/^--- .*array\.sh$/ { f = 1; next } /^--- .*merge\.sh$/ { f = 2; next } f == 1 { print > "array.sh" } f == 2 { print > "merge.sh" }' dry
[ -s array.sh ] && [ -s merge.sh ] || fail "no scripts in the dry run: $(cat dry)"
sh -n array.sh || fail "array.sh does not parse"
sh -n merge.sh || fail "merge.sh does not parse"
grep -q "^  sbatch --parsable --job-name=stackbench-a_b__c____touch_pwned4__d --chdir=" dry || fail "job name: $(grep sbatch dry)"
# run them the way Slurm would, in the folder submitting would have made
shards=$(sed -n 's/^--- \(.*\)\/array\.sh$/\1/p' dry)
case "$shards" in "$db.shards/"*) ;; *) fail "the shards' folder is '$shards'" ;; esac
mkdir -p "$shards"
for t in 0 1; do
	SLURM_ARRAY_TASK_ID=$t sh array.sh >"task$t.log" 2>&1 || fail "task $t: $(cat "task$t.log")"
done
SLURM_ARRAY_TASK_ID=2 sh array.sh >task2.log 2>&1 && fail "task 2 of 2 ran"
grep -q "SLURM_ARRAY_TASK_ID 0..1" task2.log || fail "task 2: $(cat task2.log)"
sh merge.sh >merge.log 2>&1 || fail "merge: $(cat merge.log)"
[ "$(sqlite3 "$db" "SELECT status || ' ' || (SELECT count(*) FROM points) FROM campaigns")" = "complete 4" ] ||
	fail "the merged database: $(ls -la "$d")"
found=$(find "$work" -name 'pwned*')
[ -z "$found" ] || fail "a shell ran campaign text: $found"

# sbatch options stackbench sets itself, or without --slurm, are refused
"$exe" run "$file" --db "$db" --slurm --array=0-3 --dry-run >out 2>&1 && fail "--array passed"
grep -q "stackbench sets --array itself" out || fail "--array: $(cat out)"
"$exe" run "$file" --db "$db" --slurm --dry-run -- -d afterok:1 >out 2>&1 && fail "-d passed"
grep -q "stackbench sets -d itself" out || fail "-d: $(cat out)"
"$exe" run "$file" --db "$db" --shards 2 >out 2>&1 && fail "--shards without --slurm"
grep -q "go with --slurm" out || fail "--shards: $(cat out)"
"$exe" run "$file" --db "$db" --slurm --partition bench --dry-run >out 2>&1 && fail "a separate value passed"
grep -q "unexpected argument 'bench' (give sbatch options' values with '='" out || fail "separate value: $(cat out)"
echo "dry_run_quoting: ok"
