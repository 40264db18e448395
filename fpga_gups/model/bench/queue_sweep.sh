#!/bin/sh
# Bandwidth against the port count (ro, spread ports, 1..9) for 1 / 2 / 4 / 8 banks and one
# vault under other vault_queue / bank_queue depths than the profile's, and the saturation
# point the study's way (the first port count within 5 % of the 9-port bandwidth; reads in
# flight there by Little). Backs docs/model.md, "Still not matched, and why".
#   queue_sweep.sh [STACKBENCH] [SIZE] [VAULT_QUEUE:BANK_QUEUE ...]   (default 32:16)
set -eu
SB=${1:-build/host/cli/stackbench}
S=${2:-128}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
[ $# -gt 0 ] || set -- 32:16
PROFILE=$(dirname "$0")/../profiles/hmc-gen2-ac510.yaml
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
get() { sed -n "s/^[[:space:]]*\"$1\":[[:space:]]*\([-0-9.e+]*\),*$/\1/p" | head -1; }

for q in "$@"; do
	vq=${q%%:*}
	bq=${q##*:}
	case "$vq$bq" in
	*[!0-9]*|'') echo "queue_sweep.sh: '$q' is not VAULT_QUEUE:BANK_QUEUE" >&2; exit 2 ;;
	esac
	pr="$TMP/q$vq-$bq.yaml"
	sed -e "s/^  vault_queue: [0-9]*/  vault_queue: $vq/" \
	    -e "s/^  bank_queue: [0-9]*/  bank_queue: $bq/" "$PROFILE" >"$pr"
	grep -Eq "^  vault_queue: $vq( |\$)" "$pr" ||
		{ echo "queue_sweep.sh: no vault_queue in $PROFILE" >&2; exit 1; }
	echo "vault_queue $vq, bank_queue $bq, $S B: GB/s for 1..9 ports"
	for p in 1bank 2bank 4bank 8bank 1vault; do
		line="  $p:"
		sat=""
		full=$("$SB" point --json --device "sim:$pr" --duration-us 20000 --port-order spread \
		       --pattern $p --size "$S" | get bandwidth_gbps)
		for n in 1 2 3 4 5 6 7 8 9; do
			out=$("$SB" point --json --device "sim:$pr" --duration-us 20000 --ports $n \
			      --port-order spread --pattern $p --size "$S")
			bw=$(echo "$out" | get bandwidth_gbps)
			line="$line $(printf %.2f "$bw")"
			if [ -z "$sat" ] && awk -v a="$bw" -v b="$full" 'BEGIN { exit !(a >= 0.95 * b) }'; then
				sat="$n ports, $(printf %.0f "$(echo "$out" | get occupancy)") in flight"
			fi
		done
		echo "$line  (saturation: $sat)"
	done
done
