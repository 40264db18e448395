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
echo "### Low-load latency (stream GUPS on port 0, first response beat), ns: min / avg"
echo
echo "| requests | 16 B | 64 B | 128 B |"
echo "|---|---|---|---|"
for n in 1 2 4 8 16 28; do
	printf '| %d |' $n
	for s in 16 64 128; do
		out=$("$SB" point --json --stream $n --size $s --duration-us 400)
		printf ' %s / %s |' "$(fmt "$(echo "$out" | get latency_min_ns)")" "$(fmt "$(echo "$out" | get latency_avg_ns)")"
	done
	echo
done
echo
echo "### Latency against offered bandwidth (small-scale GUPS, ro 128 B, all vaults)"
echo
echo "Ports spread over the links (\`--port-order spread\`: 0,4,1,5,2,6,3,7,8), and ports"
echo "0..n-1 (\`first\`, the default: link 0 carries ports 0-3)."
echo
echo "| ports | spread GB/s | spread MRPS | spread avg latency ns | spread reads in flight (Little) | first GB/s | first avg latency ns |"
echo "|---|---|---|---|---|---|---|"
for n in 1 2 3 4 5 6 7 8 9; do
	out=$(j --ports $n --port-order spread)
	first=$(j --ports $n)
	printf '| %d | %s | %s | %s | %s | %s | %s |\n' $n "$(fmt "$(echo "$out" | get bandwidth_gbps)")" \
		"$(fmt "$(echo "$out" | get mrps)")" "$(fmt "$(echo "$out" | get latency_avg_ns)")" \
		"$(fmt "$(echo "$out" | get occupancy)")" \
		"$(fmt "$(echo "$first" | get bandwidth_gbps)")" "$(fmt "$(echo "$first" | get latency_avg_ns)")"
done
