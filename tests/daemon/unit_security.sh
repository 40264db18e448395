#!/bin/sh
# The installed units' hardening, as systemd rates it (issue 21): `systemd-analyze security
# --offline=true` of the unit files as installed. Goals: at most 3.0 for the default unit
# (stackbenchd.service, no root, dev: boards) and 5.0 for the root unit with privilege
# separation (stackbenchd-root.service, pci: boards); the unit of before was 9.3 "UNSAFE".
#   unit_security.sh BUILD_DAEMON_DIR
set -eu
dir=$1
if ! command -v systemd-analyze >/dev/null; then
	echo "daemon.unit_security: SKIP: no systemd-analyze (scripts/deps.sh installs systemd)"
	exit 77
fi
check() {
	out=$(systemd-analyze security --offline=true "$dir/$1" 2>&1) || {
		echo "daemon.unit_security: FAIL: systemd-analyze on $1: $out" >&2
		exit 1
	}
	level=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	[ -n "$level" ] || { echo "daemon.unit_security: FAIL: no level for $1: $out" >&2; exit 1; }
	echo "daemon.unit_security: $1: exposure $level (goal at most $2)"
	awk -v l="$level" -v g="$2" 'BEGIN { exit !(l <= g) }' || {
		printf '%s\n' "$out" | grep '✗' >&2
		echo "daemon.unit_security: FAIL: $1 rates $level, above $2" >&2
		exit 1
	}
}
check stackbenchd.service 3.0
check stackbenchd-root.service 5.0
echo "daemon.unit_security: ok"
