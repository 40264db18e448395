#!/bin/sh
# Install the Debian 12 packages stackbench needs to build, test and run.
# Idempotent: only packages that are missing are installed. Run as root (or with sudo).
# stackbenchd: libmicrohttpd (dashboard), libsystemd (sd_notify, journal); chromium runs its
# dashboard test headless.
set -eu

PKGS="
build-essential cmake pkg-config git ca-certificates
libfyaml-dev libcjson-dev libsqlite3-dev sqlite3 libzstd-dev
libpci-dev libhwloc-dev libusb-1.0-0-dev libftdi1-dev
libcriterion-dev
# bench instruments: supplies through libsigrok; replayed USB and tty devices in the tests
libsigrok-dev umockdev libumockdev-dev
# camera snapshots (instruments --probe --snapshot FILE.png)
libpng-dev
gnuplot-nox
# report: confidence intervals and least-squares fits (GSL)
libgsl-dev
verilator iverilog yosys
qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static cpio kmod
clang-14 libclang-rt-14-dev
help2man bash-completion python3-pandas
libmicrohttpd-dev libsystemd-dev chromium
# stackbenchd's units rated by systemd-analyze security; the multi-user daemon tests run as
# throwaway users in a private mount namespace (unshare, setpriv)
systemd util-linux
# the cooling rig: its firmware (an ATmega328P, firmware/) and the simavr board of its tests
gcc-avr binutils-avr avr-libc libsimavr-dev libelf-dev
"
# analysis: compressed traces (.gz through zlib, .xz through liblzma)
PKGS="$PKGS zlib1g-dev liblzma-dev"
# campaigns through Slurm (docs/cluster.md): the client commands, and for the cluster tests a
# one-machine cluster (slurmctld, slurmd, munge) they start in a temporary folder (tests/cluster);
# (on a host with systemd, Debian may also enable the packages' own services; the tests do not
# use them)
PKGS="$PKGS slurm-client slurmctld slurmd munge"

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
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
