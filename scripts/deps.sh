#!/bin/sh
# Install the Debian 12 packages stackbench needs. Idempotent: only packages that are missing
# are installed. Run as root (or with sudo).
#   scripts/deps.sh              everything: the full build and the whole test suite (what
#                                scripts/test.sh and CI install)
#   scripts/deps.sh quickstart   only what scripts/quickstart.sh needs: building the library and
#                                the stackbench tool, and drawing the default campaign's figures
#
# Adding a package: put it in QUICKSTART if the library or the stackbench tool links it (or
# the quick start's campaign runs it); in TEST if only the rest of the full build (the daemon,
# the RTL testbenches, the kernel module, the firmware) or the tests need it. Package names,
# several per line; '#' starts a comment. The full set is QUICKSTART and TEST together.
set -eu

QUICKSTART="
# build
build-essential cmake pkg-config
# the library: YAML, JSON, results (SQLite), traces (zstd; .gz through zlib, .xz through
# liblzma), PCI discovery and topology, USB and serial instruments (supplies through libsigrok)
libfyaml-dev libcjson-dev libsqlite3-dev libzstd-dev zlib1g-dev liblzma-dev
libpci-dev libhwloc-dev libusb-1.0-0-dev libftdi1-dev libsigrok-dev
# camera snapshots (instruments --probe --snapshot FILE.png)
libpng-dev
# card sensors (hwmon) through lm-sensors' library
libsensors-dev
# report: confidence intervals and least-squares fits (GSL); figures (gnuplot)
libgsl-dev gnuplot-nox
"

TEST="
git ca-certificates sqlite3
libcriterion-dev
# replayed USB and tty devices in the tests
umockdev libumockdev-dev
# RTL: testbenches, lint, synthesis
verilator iverilog yosys
# the kernel module in a QEMU guest
qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static cpio kmod
# the fuzzing harnesses (clang, libFuzzer)
clang-14 libclang-rt-14-dev
help2man bash-completion python3-pandas
# stackbenchd: libmicrohttpd (dashboard), libsystemd (sd_notify, journal); chromium runs its
# dashboard test headless
libmicrohttpd-dev libsystemd-dev chromium
# the dashboard's action tests: another origin's page (python3 -m http.server), requests made
# header by header (curl)
python3 curl
# stackbenchd's units rated by systemd-analyze security; the multi-user daemon tests run as
# throwaway users in a private mount namespace (unshare, setpriv)
systemd util-linux
# (pkill: the dashboard tests end every process of a throwaway user)
procps
# the cooling rig: its firmware (an ATmega328P, firmware/) and the simavr board of its tests
gcc-avr binutils-avr avr-libc libsimavr-dev libelf-dev
# campaigns through Slurm (docs/cluster.md): the client commands, and for the cluster tests a
# one-machine cluster (slurmctld, slurmd, munge) they start in a temporary folder (tests/cluster);
# (on a host with systemd, Debian may also enable the packages' own services; the tests do not
# use them)
slurm-client slurmctld slurmd munge
"

case "${1:-all}" in
quickstart) PKGS=$QUICKSTART ;;
all) PKGS="$QUICKSTART $TEST" ;;
*)
	echo "usage: scripts/deps.sh [quickstart|all]" >&2
	exit 2
	;;
esac

missing=""
# (the list's comment lines are not packages)
for p in $(printf '%s\n' "$PKGS" | sed 's/#.*//'); do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi

echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# dpkg without a sync per file (--force-unsafe-io): on a busy or virtual disk that is most of an
# installation's time (measured: docs/user-guide.md, "The first figure"); a crash during the
# installation can leave a package to reinstall (apt-get install --reinstall).
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-unsafe-io \
	$missing
