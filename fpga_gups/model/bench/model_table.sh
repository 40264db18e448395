#!/bin/sh
# Print the model's results for the standard experiments (address-mask sweep, access patterns x
# request types, request sizes, linear vs random, stream latency, latency against load) as
# Markdown tables; docs/model.md is made from this output.
#   model_table.sh [STACKBENCH] [DURATION_US]   (default 20000: fast-forward jumps after ~6 ms)
set -eu
SB=${1:-build/host/cli/stackbench}
D=${2:-20000}
j() { "$SB" point --json --duration-us "$D" "$@"; }
get() { sed -n "s/^[[:space:]]*\"$1\":[[:space:]]*\([-0-9.e+]*\),*$/\1/p" | head -1; }
fmt() { printf '%.1f' "$1"; }

echo "### Address-mapping sweep: 8-bit mask at bit LO (bits LO..LO+7 forced to 0), 128 B"
echo
echo "| mask bits | ro GB/s | wo GB/s | rw GB/s |"
echo "|---|---|---|---|"
printf '| none |'
for t in ro wo rw; do printf ' %s |' "$(fmt "$(j --type $t | get bandwidth_gbps)")"; done
echo
for lo in 4 6 7 8 10 12 14 16 20 24 26; do
	hi=$((lo + 7)); [ $hi -gt 33 ] && hi=33
	printf '| %d-%d |' $lo $hi
	for t in ro wo rw; do printf ' %s |' "$(fmt "$(j --type $t --mask $lo-$hi | get bandwidth_gbps)")"; done
	echo
done
echo
echo "### Access patterns (ro / wo / rw), 128 B: bandwidth GB/s and MRPS"
echo
echo "| pattern | ro GB/s | ro MRPS | wo GB/s | wo MRPS | rw GB/s | rw MRPS |"
echo "|---|---|---|---|---|---|---|"
for p in 1bank 2bank 4bank 8bank 16bank 1vault 2vault 4vault 8vault 16vault; do
	printf '| %s |' $p
	for t in ro wo rw; do
		out=$(j --type $t --pattern $p)
		printf ' %s | %s |' "$(fmt "$(echo "$out" | get bandwidth_gbps)")" "$(fmt "$(echo "$out" | get mrps)")"
	done
	echo
done
echo
echo "### Request size, all vaults: ro random vs linear, wo, rw"
echo
echo "| size B | ro GB/s | ro MRPS | ro linear GB/s | wo GB/s | rw GB/s | rw MRPS | ro 1 vault GB/s | ro 1 bank GB/s |"
echo "|---|---|---|---|---|---|---|---|---|"
for s in 16 32 48 64 80 96 112 128; do
	r=$(j --size $s); w=$(j --size $s --type rw)
	printf '| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n' $s \
		"$(fmt "$(echo "$r" | get bandwidth_gbps)")" "$(fmt "$(echo "$r" | get mrps)")" \
		"$(fmt "$(j --size $s --mode linear | get bandwidth_gbps)")" \
		"$(fmt "$(j --size $s --type wo | get bandwidth_gbps)")" \
		"$(fmt "$(echo "$w" | get bandwidth_gbps)")" "$(fmt "$(echo "$w" | get mrps)")" \
		"$(fmt "$(j --size $s --pattern 1vault | get bandwidth_gbps)")" \
		"$(fmt "$(j --size $s --pattern 1bank | get bandwidth_gbps)")"
done
echo
echo "### Low-load latency (stream GUPS on port 0), ns: min / avg at the first response beat, and min received"
echo
echo "The monitors (like the RTL's) stamp a read's first response beat; the study stamps the port"
echo "having received the response: the \`received\` figure adds the beats after the first (one cycle each)."
echo
echo "| requests | 16 B | 64 B | 128 B | 16 B received | 64 B received | 128 B received |"
echo "|---|---|---|---|---|---|---|"
for n in 1 2 4 8 16 28; do
	printf '| %d |' $n
	rec=""
	for s in 16 64 128; do
		out=$("$SB" point --json --stream $n --size $s --duration-us 400)
		min=$(echo "$out" | get latency_min_ns)
		printf ' %s / %s |' "$(fmt "$min")" "$(fmt "$(echo "$out" | get latency_avg_ns)")"
		rec="$rec $(fmt "$(awk -v m="$min" -v s=$s 'BEGIN { print m + (s / 16 - 1) * 1000 / 187.5 }')") |"
	done
	echo "$rec"
done
echo
echo "### High load (full-scale GUPS, 9 ports), ro: average latency ns and reads in flight (Little)"
echo
echo "| pattern | 32 B latency | 32 B in flight | 128 B latency | 128 B in flight |"
echo "|---|---|---|---|---|"
for p in 1bank 2bank 4bank 8bank 16bank 1vault 2vault 4vault 8vault 16vault; do
	a=$(j --pattern $p --size 32); b=$(j --pattern $p)
	printf '| %s | %s | %s | %s | %s |\n' $p "$(fmt "$(echo "$a" | get latency_avg_ns)")" \
		"$(fmt "$(echo "$a" | get occupancy)")" "$(fmt "$(echo "$b" | get latency_avg_ns)")" \
		"$(fmt "$(echo "$b" | get occupancy)")"
done
echo
echo "### Latency against offered bandwidth (small-scale GUPS, ro 128 B)"
echo
echo "Each cell: GB/s / average latency ns / reads in flight (Little). Ports spread over the links"
echo "(\`--port-order spread\`: 0,4,1,5,2,6,3,7,8), and for all vaults also ports 0..n-1 (\`first\`,"
echo "the default: link 0 carries ports 0-3)."
echo
echo "| ports | 1bank | 2bank | 4bank | 1vault | 2vault | 4vault | all | all, first |"
echo "|---|---|---|---|---|---|---|---|---|"
cell() { printf ' %s / %s / %s |' "$(fmt "$(echo "$1" | get bandwidth_gbps)")" \
	"$(fmt "$(echo "$1" | get latency_avg_ns)")" "$(fmt "$(echo "$1" | get occupancy)")"; }
for n in 1 2 3 4 5 6 7 8 9; do
	printf '| %d |' $n
	for p in 1bank 2bank 4bank 1vault 2vault 4vault all; do
		cell "$(j --ports $n --port-order spread --pattern $p)"
	done
	cell "$(j --ports $n)"
	echo
done
echo
echo "### Saturation point (ro, spread ports): the first port count within 5 % of the 9-port bandwidth"
echo
echo "| pattern | 32 B ports | 32 B in flight | 128 B ports | 128 B in flight |"
echo "|---|---|---|---|---|"
for p in 1bank 2bank 4bank 8bank 16bank; do
	printf '| %s |' $p
	for s in 32 128; do
		full=$(j --pattern $p --size $s --port-order spread | get bandwidth_gbps)
		for n in 1 2 3 4 5 6 7 8 9; do
			out=$(j --ports $n --port-order spread --pattern $p --size $s)
			if awk -v b="$(echo "$out" | get bandwidth_gbps)" -v f="$full" 'BEGIN { exit !(b >= 0.95 * f) }'; then
				printf ' %d | %s |' $n "$(fmt "$(echo "$out" | get occupancy)")"
				break
			fi
		done
	done
	echo
done
