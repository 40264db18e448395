#!/bin/sh
# Campaigns on a board the root daemon owns open their instruments and write their traces as
# the submitter (issue 21, defect 3). The daemon owns a pci: board here: a made sysfs tree
# ($STACKBENCH_SYSFS_PCI) whose resource0 is a still image of the simulated board's registers
# (sb_regdump), so the main process opens it as root and hands the handle to the job process,
# as on hardware. Before, the runner gave up the submitter's identity for such boards, and:
#   - power: "wt310:FILE" made root write '*IDN?' into a file the member cannot open;
#   - a symlinked DB.traces folder let the member create folders where only root may write.
# Now both fail as the member's own opens would, and nothing outside the member's reach
# changes. The image also shows the handed handle working: the job maps the BAR (points run
# on the image; nothing on it moves, so their results are zero).
#   outputs_as_submitter.sh STACKBENCH STACKBENCHD SB_REGDUMP
set -eu
name=daemon.outputs_as_submitter
exe=$1 daemon=$2 regdump=$3
. "$(dirname "$0")/users.sh"
. "$(dirname "$0")/lib.sh"
chmod 755 "$work"
bdf=0000:99:00.0
fn=$work/sysfs/devices/$bdf
mkdir -p "$fn"
"$regdump" sim: "$fn/resource0" || fail "cannot dump the simulated board's registers"
: >"$fn/enable"
export STACKBENCH_SYSFS_PCI="$work/sysfs"
mkdir "$work/alice" "$work/rootonly" "$work/roottraces"
chown sbt_alice "$work/alice"
chmod 700 "$work/rootonly" "$work/roottraces"
printf 'root data\n' >"$work/rootonly/secret"
chmod 600 "$work/rootonly/secret"
before=$(sha256sum <"$work/rootonly/secret")

start_daemon --group "$lab" --device "pci:$bdf"

# The meter: a file the member cannot open.
cat >"$work/meter.yaml" <<EOF
name: meter
bench: {device: "pci:$bdf"}
instruments: {power: "wt310:$work/rootonly/secret"}
durations: {bandwidth_s: 0.01}
sample_interval_ms: 5
sweep: {type: [ro]}
EOF
chmod 644 "$work/meter.yaml"
id=$(as_alice "$exe" submit "$work/meter.yaml" --db "$work/alice/m.db" 2>"$work/err") ||
	fail "submit: $(cat "$work/err")"
if as_alice "$exe" follow "$id" >/dev/null 2>"$work/err"; then
	fail "a campaign ran with a meter the member cannot open"
fi
[ "$(sha256sum <"$work/rootonly/secret")" = "$before" ] ||
	fail "the root-only file was written: $(od -c "$work/rootonly/secret" | head -3)"
grep -q "secret.*[Pp]ermission denied" "$work/err" || fail "the meter's failure: $(cat "$work/err")"
echo "$name: a meter the member cannot open: $(tail -1 "$work/err")"

# Traces: DB.traces is a link to a folder only root may write.
ln -s "$work/roottraces" "$work/alice/t.traces"
cat >"$work/trace.yaml" <<EOF
name: traced
bench: {device: "pci:$bdf"}
trace: on
durations: {bandwidth_s: 0.01}
sample_interval_ms: 5
sweep: {type: [ro]}
EOF
chmod 644 "$work/trace.yaml"
id=$(as_alice "$exe" submit "$work/trace.yaml" --db "$work/alice/t.db" 2>"$work/err") ||
	fail "submit: $(cat "$work/err")"
rc=0
as_alice "$exe" follow "$id" >/dev/null 2>"$work/err" || rc=$?
[ "$rc" -ne 0 ] || fail "a campaign wrote its traces through a link"
[ -z "$(ls -A "$work/roottraces")" ] || fail "the member's job made '$(ls -A "$work/roottraces")' in root's folder"
grep -q "t.traces.*link\|t.traces.*[Pp]ermission denied" "$work/err" ||
	fail "the trace folder's failure: $(cat "$work/err")"
echo "$name: a linked trace folder: $(tail -1 "$work/err")"

# The handle works: a campaign without traces or meter runs on the image as the member.
cat >"$work/plain.yaml" <<EOF
name: plain
bench: {device: "pci:$bdf"}
durations: {bandwidth_s: 0.01}
sample_interval_ms: 5
sweep: {type: [ro, wo]}
EOF
chmod 644 "$work/plain.yaml"
id=$(as_alice "$exe" submit "$work/plain.yaml" --db "$work/alice/p.db" 2>"$work/err") ||
	fail "submit: $(cat "$work/err")"
as_alice "$exe" follow "$id" >/dev/null 2>"$work/err" || fail "the job on the handed board: $(cat "$work/err")"
[ "$(stat -c %U "$work/alice/p.db")" = sbt_alice ] || fail "p.db belongs to $(stat -c %U "$work/alice/p.db")"
[ "$(sqlite3 "$work/alice/p.db" "SELECT count(*) FROM points")" -eq 2 ] || fail "points of p.db"
stop_daemon
echo "$name: ok"
