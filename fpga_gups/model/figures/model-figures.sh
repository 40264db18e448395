#!/bin/sh
# The figures of docs/model.md: the simulated board's results for the standard experiments,
# run through the stackbench tool, plotted with gnuplot as SVG, with the values the published
# AC-510 study reports marked where it gives them (Hadidi et al., IISWC 2017).
#
#   fpga_gups/model/figures/model-figures.sh [STACKBENCH] [OUTDIR]
#
# STACKBENCH defaults to build/host/cli/stackbench, OUTDIR to docs/figures. Bandwidth points
# are 20 s runs with fast-forward (a few tenths of a second each); stream points are simulated
# whole. The data files (*.dat) are written next to the figures' sources in a temporary folder;
# only the SVGs land in OUTDIR (each written to a temporary file there, then renamed).
set -eu
SB=${1:-build/host/cli/stackbench}
OUT=${2:-docs/figures}
command -v gnuplot >/dev/null || { echo "model-figures: gnuplot is not installed" >&2; exit 1; }
[ -x "$SB" ] || { echo "model-figures: no stackbench at '$SB'" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d /tmp/sb-model-figures-XXXXXX)
trap 'rm -rf "$work"' EXIT

j() { "$SB" point --json "$@"; }
get() { sed -n "s/^[[:space:]]*\"$1\":[[:space:]]*\([-0-9.e+]*\),*$/\1/p" | head -1; }
bw() { j --duration-s 20 "$@" | get bandwidth_gbps; }

# Bandwidth per access pattern and request type, 128 B.
i=0
for p in 1bank 2bank 4bank 8bank 16bank 1vault 2vault 4vault 8vault 16vault; do
	printf '%d %s %s %s %s\n' $i $p "$(bw --type ro --pattern $p)" "$(bw --type wo --pattern $p)" \
		"$(bw --type rw --pattern $p)"
	i=$((i + 1))
done >"$work/patterns.dat"

# Bandwidth and request rate against request size, all vaults.
for s in 16 32 48 64 80 96 112 128; do
	printf '%d' $s
	for t in ro wo rw; do
		out=$(j --duration-s 20 --type $t --size $s)
		printf ' %s %s' "$(echo "$out" | get bandwidth_gbps)" "$(echo "$out" | get mrps)"
	done
	echo
done >"$work/sizes.dat"

# Latency against offered load: small-scale GUPS, n ports spread over the links (0,4,1,5,...),
# ro 128 B, per pattern; and 16 vaults with ports 0..n-1 (link 0 first).
for p in 1bank 4bank 1vault 2vault 4vault all; do
	for n in 1 2 3 4 5 6 7 8 9; do
		out=$(j --duration-s 20 --ports $n --port-order spread --pattern $p)
		printf '%s %s %d\n' "$(echo "$out" | get bandwidth_gbps)" \
			"$(echo "$out" | get latency_avg_ns)" $n
	done >"$work/load-$p.dat"
done
for n in 1 2 3 4 5 6 7 8 9; do
	out=$(j --duration-s 20 --ports $n)
	printf '%s %s %d\n' "$(echo "$out" | get bandwidth_gbps)" \
		"$(echo "$out" | get latency_avg_ns)" $n
done >"$work/load-first.dat"

# Low-load latency: stream groups of n reads on port 0.
for n in 1 2 4 8 12 16 20 24 28; do
	printf '%d' $n
	for s in 16 64 128; do
		printf ' %s' "$(j --stream $n --size $s --duration-us 400 | get latency_avg_ns)"
	done
	echo
done >"$work/stream.dat"

# The address-mapping sweep: an 8-bit mask at bit LO, 128 B.
for lo in 4 5 6 7 8 9 10 11 12 14 16 20 24 26; do
	hi=$((lo + 7))
	[ $hi -gt 33 ] && hi=33
	printf '%d %s %s %s\n' $lo "$(bw --type ro --mask $lo-$hi)" "$(bw --type wo --mask $lo-$hi)" \
		"$(bw --type rw --mask $lo-$hi)"
done >"$work/mask.dat"

plot() { # NAME [GNUPLOT-PREAMBLE]: gnuplot script on stdin, output OUT/NAME.svg (atomically)
	tmp=$(mktemp "$OUT/.$1.XXXXXX")
	{
		echo "set terminal svg size 720,420 dynamic font 'sans,11' background '#ffffff'"
		echo "set output '$tmp'"
		echo "set grid; set key top left"
		echo "${2:-}"
		cat
	} >"$work/$1.gp"
	(cd "$work" && gnuplot "$1.gp") || { rm -f "$tmp"; exit 1; }
	chmod 644 "$tmp"
	mv "$tmp" "$OUT/$1.svg"
}

plot model-patterns <<'GP'
set title 'Bandwidth per access pattern, 128 B, 9 ports (model; + = study)'
set ylabel 'GB/s (request + response packets)'
set xtics rotate by -30
set yrange [0:*]
plot 'patterns.dat' using 1:3:xtic(2) with linespoints title 'ro', \
     '' using 1:4 with linespoints title 'wo', \
     '' using 1:5 with linespoints title 'rw', \
     '-' using 1:2 with points pt 1 ps 2 lw 2 lc 'black' title 'study: one vault about 10, two about 19 GB/s'
5 10
6 19
e
GP

plot model-sizes <<'GP'
set title 'Request size, all vaults, 9 ports (model)'
set xlabel 'request size (B)'
set ylabel 'GB/s'
set y2label 'MRPS'
set y2tics
set ytics nomirror
set xtics 16
set yrange [0:*]; set y2range [0:*]
set key top center
plot 'sizes.dat' using 1:2 with linespoints title 'ro GB/s', \
     '' using 1:4 with linespoints title 'wo GB/s', \
     '' using 1:6 with linespoints title 'rw GB/s', \
     '' using 1:3 axes x1y2 with linespoints dt 2 title 'ro MRPS', \
     '' using 1:7 axes x1y2 with linespoints dt 2 title 'rw MRPS'
GP

plot model-latency-load <<'GP'
set title 'Latency against load: small-scale GUPS, 1..9 ports spread over the links, ro 128 B (model)'
set xlabel 'GB/s'
set ylabel 'mean read latency (us)'
set yrange [0:*]
plot 'load-1bank.dat' using 1:($2/1000) with linespoints title '1 bank', \
     'load-4bank.dat' using 1:($2/1000) with linespoints title '4 banks', \
     'load-1vault.dat' using 1:($2/1000) with linespoints title '1 vault', \
     'load-2vault.dat' using 1:($2/1000) with linespoints title '2 vaults', \
     'load-4vault.dat' using 1:($2/1000) with linespoints title '4 vaults', \
     'load-all.dat' using 1:($2/1000) with linespoints title '16 vaults', \
     'load-all.dat' using 1:($2/1000):(sprintf('%d', $3)) with labels offset 0.8,0.6 notitle, \
     'load-first.dat' using 1:($2/1000) with linespoints dt 2 title '16 vaults, ports 0..n-1'
GP

# The study gives the stream result as a ratio: mark 1.5 x the model's 28 x 16 B latency. Its
# minimum latencies (711 ns at 128 B, stamped when the port has received the response, and about
# 655 ns at 16 B) are marked at one request; the model's monitors stamp the first beat, 37 ns
# before a 128 B response is received.
mark=$(awk '$1 == 28 { printf "%.1f", 1.5 * $2 }' "$work/stream.dat")
plot model-stream "mark = $mark" <<'GP'
set title 'Low-load latency: stream groups on one port (model)'
set xlabel 'requests in the group'
set ylabel 'mean read latency (ns)'
set yrange [0:*]
set key bottom right
plot 'stream.dat' using 1:2 with linespoints title '16 B', \
     '' using 1:3 with linespoints title '64 B', \
     '' using 1:4 with linespoints title '128 B', \
     547 with lines dt 2 lc 'black' title 'study: FPGA infrastructure 547 ns (its minimum)', \
     '+' using (1):(711) every ::0::0 with points pt 2 ps 2 lw 2 lc 'black' \
         title 'study: minimum 711 ns at 128 B (received), about 655 at 16 B', \
     '+' using (1):(655) every ::0::0 with points pt 2 ps 2 lw 2 lc 'black' notitle, \
     '+' using (28):(mark) every ::0::0 with points pt 1 ps 2 lw 2 lc 'black' \
         title 'study: 28 x 128 B about 1.5 x 28 x 16 B'
GP

plot model-mask <<'GP'
set title 'Address-mapping sweep: bits LO..LO+7 forced to 0, 128 B (model)'
set xlabel 'LO (lowest masked address bit)'
set ylabel 'GB/s'
set yrange [0:*]
set key top left
plot 'mask.dat' using 1:2 with linespoints title 'ro', \
     '' using 1:3 with linespoints title 'wo', \
     '' using 1:4 with linespoints title 'rw'
GP

echo "model-figures: wrote $OUT/model-{patterns,sizes,latency-load,stream,mask}.svg"
