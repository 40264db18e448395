#!/bin/sh
# Hardening of outputs (issue 17, High): a crafted results database cannot run commands through
# gnuplot; no output replaces an input; outputs appear whole or not at all; a planted symbolic
# link is replaced, never written through; two results that would land in one file are an error.
#   hostile_outputs.sh STACKBENCH_EXE EXAMPLES_DIR TEST_DATA_DIR
set -eu
exe=$1
data=$3
work=$(mktemp -d /tmp/sb-hostile-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "hostile_outputs: FAIL: $*" >&2; exit 1; }
cd "$work"

# --- report: names from the database never reach gnuplot as commands ---------------------------
"$exe" run --db r.db >/dev/null 2>&1 || fail "run"
# A request type holding a newline, a gnuplot system() call, quotes of both kinds.
sqlite3 r.db "UPDATE points SET type = type || char(10) || 'system(\"touch $work/PWNED\")' ||
	char(10) || '#'' \"q' || char(13) || 'print 1'" || fail "sqlite3 update"
"$exe" report --db r.db --out fig >report.out 2>&1 || fail "report: $(cat report.out)"
[ ! -e PWNED ] || fail "report ran a command from the database"
grep -q "figure mask_bandwidth .*fig/mask_bandwidth.png" report.out || fail "no figure: $(cat report.out)"
[ "$(head -c 4 fig/mask_bandwidth.png | od -An -tx1 | tr -d ' ')" = 89504e47 ] || fail "PNG"
# every line of the script is a whole command: the hostile text stays inside one quoted title
[ "$(grep -c '^system' fig/mask_bandwidth.gp)" -eq 0 ] || fail "a script line starts with system"
grep -q "title 'ro system(\"touch $work/PWNED\") #'' \"q print 1 128 B, 8-bit mask'" \
	fig/mask_bandwidth.gp || fail "title not quoted as expected: $(grep -m1 title fig/mask_bandwidth.gp)"
# the data file: one record per line, seven fields
awk '!/^#/ && NF && !/^"/ { if ($NF !~ /mask"$/) bad = 1 } END { exit bad }' fig/mask_bandwidth.dat ||
	fail "data file lines broken: $(sed -n 2p fig/mask_bandwidth.dat)"
# nothing of the staging folder is left behind
[ -z "$(find fig -name '.stackbench-*')" ] || fail "staging folder left in fig/"

# --- trace convert: never destroys its input ---------------------------------------------------
cp "$data/analysis/trace.csv" in.csv
sum=$(cksum <in.csv)
if "$exe" trace convert in.csv -o in.csv 2>err; then fail "convert onto its input succeeded"; fi
grep -q "output 'in.csv' is the input 'in.csv'" err || fail "message: $(cat err)"
[ "$(cksum <in.csv)" = "$sum" ] || fail "the input changed"
# the same file through another name
ln in.csv hard.csv
if "$exe" trace convert in.csv -o hard.csv 2>err; then fail "convert onto a hard link of its input"; fi
grep -q "is the input" err || fail "message: $(cat err)"
[ "$(cksum <in.csv)" = "$sum" ] || fail "the input changed (hard link)"
# an output replacing a file inside an input folder (a SCALE-Sim layer)
mkdir layer
cp "$data/analysis/scalesim-layer/"*.csv layer/
lsum=$(cksum <layer/IFMAP_DRAM_TRACE.csv)
if "$exe" trace convert -f scalesim layer -o layer/IFMAP_DRAM_TRACE.csv 2>err; then
	fail "convert onto a file of its input folder succeeded"
fi
grep -q "inside the input folder 'layer'" err || fail "message: $(cat err)"
[ "$(cksum <layer/IFMAP_DRAM_TRACE.csv)" = "$lsum" ] || fail "the layer's file changed"
"$exe" trace convert -f scalesim layer -o layer/new.sbt >/dev/null 2>&1 || fail "new file in the folder"

# a failed conversion leaves no file (and no temporary one)
if "$exe" trace convert "$data/analysis/bad.csv" -o bad.sbt 2>err; then fail "bad input converted"; fi
[ ! -e bad.sbt ] || fail "a failed conversion left 'bad.sbt'"
[ -z "$(find . -maxdepth 1 -name '.bad.sbt.*')" ] || fail "temporary file left behind"
# a failed conversion leaves an existing output as it was
printf 'keep\n' >keep.sbt
if "$exe" trace convert "$data/analysis/bad.csv" -o keep.sbt 2>err; then fail "bad input converted"; fi
[ "$(cat keep.sbt)" = keep ] || fail "a failed conversion changed the existing output"

# a symbolic link planted at the output is replaced, its target untouched
printf 'victim\n' >victim
ln -s victim link.sbt
"$exe" trace convert in.csv -o link.sbt >/dev/null 2>&1 || fail "convert to a link's name"
[ "$(cat victim)" = victim ] || fail "the output was written through a symbolic link"
[ -f link.sbt ] && [ ! -L link.sbt ] || fail "link.sbt is not a plain file now"
"$exe" trace info link.sbt >info 2>&1 || fail "the converted trace does not read: $(cat info)"

# --- lifetimes: outputs against inputs and each other; colliding figure names ----------------
if "$exe" lifetimes in.csv --json in.csv 2>err; then fail "lifetimes --json onto its input"; fi
grep -q "is the input" err || fail "message: $(cat err)"
[ "$(cksum <in.csv)" = "$sum" ] || fail "the input changed (lifetimes)"
if "$exe" lifetimes in.csv --json out.json --csv out.json 2>err; then fail "--json and --csv one file"; fi
grep -q "output 'out.json' is the input 'out.json'" err || fail "message: $(cat err)"
# two subpartitions whose names become the same file name
printf 'time,subpartition,addr,kind\n0,x/y,1,write\n1,x_y,1,write\n2,x/y,1,read\n3,x_y,1,read\n' >coll.csv
if "$exe" lifetimes coll.csv --plots plots 2>err; then fail "colliding figure names accepted"; fi
grep -q "two outputs would be written to 'plots/lifetimes-x_y.png'" err || fail "message: $(cat err)"
[ -z "$(ls -A plots)" ] || fail "a failed plot left files: $(ls -A plots)"

# --- export: never over the database -----------------------------------------------------------
dbsum=$(cksum <r.db)
if "$exe" export --db r.db --format csv --out r.db 2>err; then fail "export over the database"; fi
grep -q "is the input" err || fail "message: $(cat err)"
[ "$(cksum <r.db)" = "$dbsum" ] || fail "the database changed"
echo "hostile_outputs: ok"
