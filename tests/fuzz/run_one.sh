#!/bin/sh
# Run one libFuzzer harness for a bounded time on a scratch copy of its seed corpus (the
# committed corpus is never modified). Prints the executions; fails on any crash, leak,
# sanitizer report or timeout, keeping the reproducer in the scratch folder, whose name it
# prints. With SB_FUZZ_SEED set, libFuzzer's random seed is fixed, so that a run repeats the
# same inputs (what CI does: a finding there is the change's, not luck's); unset, each run
# explores anew.
#   run_one.sh HARNESS SEED_CORPUS_DIR SECONDS
set -eu
harness=$1
seeds=$2
secs=$3
work=$(mktemp -d /tmp/sb-fuzz-XXXXXX)
mkdir "$work/corpus"
[ -d "$seeds" ] && cp -r "$seeds"/. "$work/corpus/" 2>/dev/null || true
# libfyaml 0.7 leaks parser state on some syntax errors: its frames only are suppressed
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")/.." && pwd)/data/lsan-libfyaml.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
cd "$work"
seed=
[ -n "${SB_FUZZ_SEED:-}" ] && seed="-seed=$SB_FUZZ_SEED"
# shellcheck disable=SC2086 # $seed is one word or none
if "$harness" $seed -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$work/" corpus >log 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' log)
	line="$(basename "$harness"): $runs executions in $secs s, no finding"
	echo "$line"
	[ -n "${SB_FUZZ_SUMMARY:-}" ] && echo "$line" >>"$SB_FUZZ_SUMMARY"
	rm -rf "$work"
	exit 0
fi
echo "$(basename "$harness"): FINDING (reproducer and log in $work):" >&2
grep -E 'ERROR|SUMMARY|runtime error|Test unit written' log | head -20 >&2
exit 1
