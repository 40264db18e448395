#!/bin/sh
# Boards from the allocation: a node with two boards declared to Slurm as GRES 'fpga' (gres.conf
# File= lines give them indices), the node's board file naming a URI per index. Each task asks
# for --gres=fpga:1 and runs on the board of the index Slurm gave it (--board gres:fpga); the
# merge job gets no board. Both boards here are the simulated board (two URIs of it), so the
# merged results still equal a plain run's.
#   board_gres.sh STACKBENCH_EXE EXAMPLES_DIR TESTS_CLUSTER_DIR
set -eu
exe=$1
here=$3
. "$here/cluster_lib.sh"
. "$here/compare_lib.sh"
fail() {
	echo "board_gres: FAIL: $*" >&2
	cluster_logs "${dir:-}"
	exit 1
}
cluster_start 2
mkdir "$SB_W/work"
cd "$SB_W/work"
cat >c.yaml <<'YAML'
name: gres
bench: {device: "sim:", profile: hmc-gen2-ac510}
durations: {bandwidth_s: 2}
sweep: {type: [ro, wo, rw], size: [64, 128]}
YAML
printf '# the boards of this node, by GRES index\nsim:hmc-gen2-ac510?bench=ac510-lab\nsim:hmc-gen2-ac510?ports=9   # the second\n' >boards
export STACKBENCH_BOARDS="$PWD/boards"

# outside a job there is no allocation to read
"$exe" -q run c.yaml --db x.db --board gres:fpga >out 2>&1 && fail "--board gres outside Slurm ran"
grep -q "not in a Slurm job" out || fail "message: $(cat out)"
"$exe" -q run c.yaml --db plain.db >/dev/null || fail "plain run"

# the board options go to the tasks only
"$exe" run c.yaml --db g.db --slurm --shards 2 --board gres:fpga --gres=fpga:1 --dry-run >dry 2>&1 || fail "dry run: $(cat dry)"
grep -q "^  sbatch --parsable .*--gres=fpga:1 --array=0-1 " dry || fail "the array's sbatch: $(cat dry)"
grep "^  sbatch --parsable .*--dependency=afterok:" dry | grep -q -- --gres && fail "the merge asks for a board: $(cat dry)"
grep -q "'--board' 'gres:fpga'" dry || fail "the tasks' command: $(cat dry)"

"$exe" run c.yaml --db g.db --slurm --shards 2 --board gres:fpga --gres=fpga:1 >sub 2>&1 || fail "submit: $(cat sub)"
array=$(sed -n 's/^submitted job array \([0-9]*\): .*/\1/p' sub)
merge=$(sed -n 's/^submitted merge job \([0-9]*\) after .*/\1/p' sub)
[ -n "$array" ] && [ -n "$merge" ] || fail "submission: $(cat sub)"
dir=$(echo g.db.shards/gres-*-of-2)
cluster_wait_gone "$array" "$merge"
[ "$(sqlite3 g.db "SELECT status FROM campaigns")" = complete ] || fail "not merged"
# each task ran on a board of the file, one board per task
for i in 0 1; do
	d=$(sqlite3 "$dir/shard-$i-of-2.db" "SELECT group_concat(DISTINCT device) FROM points")
	case "$d" in
	"sim:hmc-gen2-ac510?bench=ac510-lab" | "sim:hmc-gen2-ac510?ports=9") ;;
	*) fail "shard $i ran on '$d'" ;;
	esac
	echo "board_gres: shard $i on $d"
done
sqlite3 g.db "UPDATE points SET device = 'sim:hmc-gen2-ac510'"
same_results plain.db g.db || fail "results differ from a plain run"

# the node's board without GRES: the file's first board
"$exe" -q run c.yaml --db n.db --board node >/dev/null || fail "--board node"
[ "$(sqlite3 n.db "SELECT DISTINCT device FROM points")" = "sim:hmc-gen2-ac510?bench=ac510-lab" ] || fail "--board node's device"
STACKBENCH_BOARDS=/nonexistent/boards "$exe" -q run c.yaml --db y.db --board node >out 2>&1 && fail "no board file, yet it ran"
grep -q "/nonexistent/boards" out || fail "no board file: $(cat out)"
echo "board_gres: ok"
