#!/bin/sh
# The VM test (CTest label vm): boot Debian's kernel in QEMU (TCG) with an ivshmem-plain device
# backed by stackbench-bridge, run guest-init.sh in a busybox initramfs with the module, the
# CLI and sb_vmcheck, and parse the guest's result line.
#
#   run_vm.sh KMOD CLI VMCHECK BRIDGE EXPECTED_CHECKS
#
# Exit 0 when the guest reports EXPECTED_CHECKS passed checks and none failed; 77 (skipped)
# when the module, a kernel image or qemu is missing; 1 otherwise. Environment:
#   SB_VM_KERNEL   kernel image (default: the newest /boot/vmlinuz-*-amd64)
#   SB_VM_KEEP=1   keep the work folder (initramfs, logs) for a look afterwards
#   SB_VM_APPEND   more kernel command-line parameters (e.g. to debug)
set -u
here=$(cd "$(dirname "$0")" && pwd)
kmod=$1 cli=$2 vmcheck=$3 bridge=$4 expected=$5

skip() {
	echo "vm test skipped: $*"
	exit 77
}

[ -f "$kmod" ] || skip "no kernel module at '$kmod' (install linux-headers-amd64 and build target kmod)"
kernel=${SB_VM_KERNEL:-$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -1)}
[ -n "$kernel" ] && [ -r "$kernel" ] || skip "no readable kernel image in /boot (install linux-image-amd64)"
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (install qemu-system-x86)"
busybox=$(command -v busybox) || skip "no busybox (install busybox-static)"
command -v cpio >/dev/null || skip "no cpio"

work=$(mktemp -d /tmp/sbvm.XXXXXX)
shm=/dev/shm/sbvm-$$
sock=$work/ivshmem.sock
bridge_pid=
cleanup() {
	[ -n "$bridge_pid" ] && kill "$bridge_pid" 2>/dev/null && wait "$bridge_pid" 2>/dev/null
	rm -f "$shm"
	if [ "${SB_VM_KEEP:-0}" = 1 ]; then echo "vm test: work folder kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT INT TERM
start=$(date +%s.%N)

# The initramfs: busybox, the programs with their shared libraries at the same paths (and the
# dynamic loader), the module without its debug info, and /init.
root=$work/root
mkdir -p "$root/bin" "$root/lib" "$root/dev" "$root/proc" "$root/sys" "$root/tmp"
cp "$busybox" "$root/bin/busybox"
file "$busybox" 2>/dev/null | grep -q 'dynamically linked' && echo "vm test: warning: busybox is not static"
cp "$cli" "$root/bin/stackbench"
cp "$vmcheck" "$root/bin/sb_vmcheck"
for exe in "$cli" "$vmcheck"; do
	ldd "$exe" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }'
done | sort -u | while read -r lib; do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
	# Also in /lib, which the guest puts first on LD_LIBRARY_PATH: the build tree may be under
	# /tmp, which the guest mounts over with a tmpfs.
	cp -L "$lib" "$root/lib/$(basename "$lib")"
done
objcopy --strip-debug "$kmod" "$root/lib/stackbench.ko" 2>/dev/null || cp "$kmod" "$root/lib/stackbench.ko"
# Device profiles, so the guest can run the reference point on sim:.
mkdir -p "$root/share/profiles" "$root/share/benches"
cp "$here/../../fpga_gups/model/profiles/"*.yaml "$root/share/profiles/"
# ... and the bench parameters: a sim: board sits on its simulated bench (thermal/data).
cp "$here/../../thermal/data/"*.yaml "$root/share/benches/"
cp "$here/guest-init.sh" "$root/init"
chmod 755 "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$work/initramfs.gz" || {
	echo "vm test: cannot build the initramfs"
	exit 1
}

# The bridge serves the simulated board through the shared-memory file, and is the ivshmem
# server of the guest's ivshmem-doorbell device, whose MSI-X vector it raises on board events.
"$bridge" --shm "$shm" --ivshmem-socket "$sock" >"$work/bridge.log" 2>&1 &
bridge_pid=$!
i=0
until grep -q ready "$work/bridge.log" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$bridge_pid" 2>/dev/null; then
		echo "vm test: the bridge did not start:"
		cat "$work/bridge.log"
		exit 1
	fi
	sleep 0.1
done

timeout 170 qemu-system-x86_64 -machine pc -accel tcg -m 512M -smp 1 \
	-nodefaults -no-user-config -display none -serial stdio -no-reboot \
	-kernel "$kernel" -initrd "$work/initramfs.gz" \
	-append "console=ttyS0 panic=-1 quiet loglevel=4 sysctl.kernel.hung_task_timeout_secs=10 page_poison=1 ${SB_VM_APPEND:-}" \
	-chardev "socket,id=sbsock,path=$sock" -device ivshmem-doorbell,chardev=sbsock,vectors=1 \
	</dev/null >"$work/console.log" 2>&1
qrc=$?
kill "$bridge_pid" 2>/dev/null
wait "$bridge_pid" 2>/dev/null
bridge_pid=
end=$(date +%s.%N)

tr -d '\r' <"$work/console.log" | grep -E '^(CHECK|LATENCY|SBVM-|\[ )|FAIL' || true
grep stackbench-bridge: "$work/bridge.log"
result=$(tr -d '\r' <"$work/console.log" | grep '^SBVM-RESULT' | tail -1)
echo "vm test: qemu exit $qrc, $(echo "$end - $start" | awk '{ printf "%.1f", $1 - $3 }') s"
if [ -z "$result" ]; then
	echo "vm test: FAILED: the guest printed no result line; console:"
	tail -50 "$work/console.log"
	exit 1
fi
pass=$(echo "$result" | sed -n 's/.*pass=\([0-9]*\).*/\1/p')
fail=$(echo "$result" | sed -n 's/.*fail=\([0-9]*\).*/\1/p')
if [ "$fail" != 0 ] || [ "$pass" != "$expected" ]; then
	echo "vm test: FAILED: $result (expected pass=$expected fail=0)"
	exit 1
fi
echo "vm test: passed ($pass checks)"
exit 0
