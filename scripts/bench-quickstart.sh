#!/bin/sh
# Time the README's first command on a bare Debian 12: a copy of a debootstrap'ed system (no
# package beyond Debian's required and important ones), the repository's committed tree copied
# in, then ./scripts/quickstart.sh in a chroot: package download and installation, the build,
# the default campaign and its figures. Prints the wall-clock time. Needs root and debootstrap
# (apt-get install debootstrap); the Debian mirror must be reachable.
#   scripts/bench-quickstart.sh [BASE_DIR]
# BASE_DIR holds the pristine system (made by debootstrap if it has none; default
# /var/tmp/sb-debian12); every run works on a fresh copy of it, removed at the end.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-/var/tmp/sb-debian12}
if [ ! -x "$base/bin/sh" ]; then
	mkdir -p "$base"
	debootstrap bookworm "$base" http://deb.debian.org/debian
fi
root=$(mktemp -d /var/tmp/sb-quickstart-XXXXXX)
cleanup() {
	for m in proc sys dev; do
		umount "$root/$m" 2>/dev/null || true
	done
	rm -rf "$root"
}
trap cleanup EXIT
cp -a "$base/." "$root/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/root/stackbench"
git -C "$src" archive --format=tar HEAD | tar -x -C "$root/root/stackbench"
mount -t proc proc "$root/proc"
mount --bind /sys "$root/sys"
mount --bind /dev "$root/dev"
echo "bench-quickstart: $(nproc) processors, load average $(cut -d' ' -f1-3 /proc/loadavg)"
chroot "$root" /bin/sh -c 'cd /root/stackbench && start=$(date +%s) &&
	./scripts/quickstart.sh && end=$(date +%s) && ls results/quickstart/figures | head -3 &&
	echo "bench-quickstart: ./scripts/quickstart.sh took $((end - start)) s"'
echo "bench-quickstart: load average after $(cut -d' ' -f1-3 /proc/loadavg)"
