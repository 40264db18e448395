# Sourced by campaign_flirone*.sh: the thermal-failure example with its camera replaced by the
# replayed FLIR One. Sets tool, example, work, fail() and q(); run_campaign runs the campaign
# into $work/tf.db, prints its output (kept in $work/out) and sets rc to its exit status.
#   . campaign_flirone_lib.sh   (with the test's arguments STACKBENCH EXAMPLE WORKDIR)
set -u
tool=$1 example=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
q() { sqlite3 "$work/tf.db" "$1"; }
run_campaign() {
	mkdir -p "$work" && rm -f "$work/tf.db"
	sed 's|^  temperature: .*|  temperature: "flirone:?roi=all"|' "$example" > "$work/tf.yaml"
	grep -q '"flirone:?roi=all"' "$work/tf.yaml" || fail "could not set the camera"
	"$tool" run "$work/tf.yaml" --db "$work/tf.db" > "$work/out" 2>&1
	rc=$?
	cat "$work/out"
}
