#!/bin/sh
# The Python examples of docs/analysis-guide.md run as written against a database and exports
# made by the tool (Debian python3-pandas, installed by scripts/deps.sh).
#   analysis_guide.sh STACKBENCH_EXE SOURCE_DIR
set -eu
exe=$1
src=$2
work=$(mktemp -d /tmp/sb-guide-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "analysis_guide: FAIL: $*" >&2; exit 1; }
cd "$work"
"$exe" run --db results.db >log 2>&1 || fail "run: $(cat log)"
"$exe" export --db results.db --format csv --out points.csv || fail "export csv"
"$exe" export --db results.db --format json --samples --out results.json || fail "export json"
# every ```python block of the guide, in order, run as one program (later blocks use what the
# earlier ones defined, as a reader in one session would), each block's output after a marker
awk '/^```python$/ { n++; printf "print(\"@@ block %d\", flush=True)\n", n; f = 1; next }
	/^```/ { f = 0 } f { print }' "$src/docs/analysis-guide.md" >guide.py
grep -q '@@ block 4' guide.py || fail "expected 4 python blocks in the guide"
/usr/bin/python3 guide.py >guide.out 2>&1 || fail "the guide's python: $(tail -5 guide.out)"
block() { awk -v b="@@ block $1" '$0 == b { f = 1; next } /^@@ block / { f = 0 } f' guide.out; }
# what the blocks print is the database's: the mask sweep, the seed of the first run, the
# samples of point 0, the events, the exports
block 1 | grep -q "^mask_lo" || fail "pivot table: $(block 1)"
seed=$(sqlite3 results.db "SELECT seed FROM points ORDER BY rowid LIMIT 1")
block 1 | grep -q " sim: $seed$" || fail "provenance seed $seed not printed: $(block 1)"
block 2 | grep -q "^20 samples; mean bandwidth 22.5 GB/s$" || fail "samples: $(block 2)"
block 3 | grep -q "^start *1$" || fail "events: $(block 3)"
block 4 | grep -q "^quick sim:$" || fail "exports: $(block 4)"
echo "analysis_guide: ok (4 blocks)"
