#!/bin/busybox sh
# /init of the VM test's initramfs (busybox-static). Runs in the QEMU guest whose ivshmem-plain
# device is served by stackbench-bridge on the host, prints one CHECK line per check and, last,
#   SBVM-RESULT pass=N fail=M [failed=name,...]
# which the host side (run_vm.sh) parses; then powers the guest off.
#
# The checks come in phases, one shell function each, run in order by main():
#   no module   pci: through sysfs (the register image), 'stackbench devices'
#   module      insmod test_mode=1 (events by MSI-X: the device is ivshmem-doorbell), dev:
#               (exact ioctl path and mmap), bad requests, trace and replay buffers, events,
#               read-only files, the DMA address registers, MSI, removal while open, rmmod
#               refused while open, ioctls with faulting arguments racing mmap and unbind
#               (deadlock)
#   polling     insmod msi=0: polled events, poll_ms, files closed after removal
#   after       rmmod, then pci: again; the kernel log holds no BUG, WARNING, lockdep, DMA-API
#               or hung-task report
# A short iteration-limited point runs through pci: (no module) and dev: (module) and its
# counters must equal those of the same point run on sim: in the guest (the counts of an
# iteration-limited point do not depend on timing; latencies do, and are not compared).
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /tmp
mount -t tmpfs tmpfs /tmp
# /run/lock as a Debian system has it (the boards' lock folder is made in it)
mkdir -p /run/lock
LOG=/tmp/checks.log
: >"$LOG"
SB=/bin/stackbench
VMCHECK=/bin/sb_vmcheck
export STACKBENCH_DEVICE=
export LD_LIBRARY_PATH=/lib
export STACKBENCH_PROFILE_PATH=/share/profiles
export STACKBENCH_BENCH_PATH=/share/benches

say() { echo "$@" | tee -a "$LOG"; }

# check NAME CMD...: the command succeeds.
check() {
	name=$1
	shift
	if "$@" >/tmp/out 2>&1; then
		say "CHECK $name ok"
	else
		say "CHECK $name FAIL: rc=$? $(head -c 400 /tmp/out | tr '\n' ' ')"
	fi
}

# check_out NAME RC REGEX CMD...: the command exits with RC and its output matches REGEX.
check_out() {
	name=$1 want=$2 re=$3
	shift 3
	"$@" >/tmp/out 2>&1
	rc=$?
	if [ "$rc" = "$want" ] && { [ -z "$re" ] || grep -qE "$re" /tmp/out; }; then
		say "CHECK $name ok"
	else
		say "CHECK $name FAIL: rc=$rc (want $want), output: $(head -c 600 /tmp/out | tr '\n' ' ')"
	fi
}

# vmcheck PHASE ARGS...: sb_vmcheck prints its own CHECK lines.
vmcheck() {
	$VMCHECK "$@" 2>&1 | tee -a "$LOG"
}

# The ivshmem function: found with libpci through 'stackbench devices'.
find_board() {
	BDF=$($SB devices | awk '$2 == "1af4:1110" { print $1; exit }')
	[ -n "$BDF" ]
}

# check_info NAME URI: 'stackbench info URI' lists the whole block chain and 9 ports.
BLOCKS="fw_id board hmc_ctrl irq trace stream replay gups_port gups_port gups_port gups_port gups_port gups_port gups_port gups_port gups_port sim_ctrl"
check_info() {
	name=$1 uri=$2
	$SB info "$uri" >/tmp/out 2>&1
	rc=$?
	blocks=$(awk '/^  0x/ { print $4 }' /tmp/out | tr '\n' ' ' | sed 's/ $//')
	if [ "$rc" = 0 ] && [ "$blocks" = "$BLOCKS" ] && grep -q '^ports      9$' /tmp/out; then
		say "CHECK $name ok"
	else
		say "CHECK $name FAIL: rc=$rc blocks '$blocks', output: $(head -c 300 /tmp/out | tr '\n' ' ')"
	fi
}

# point_count FIELD: a counter from 'stackbench point --json' output in /tmp/out.
point_count() {
	sed -n "s/^[[:space:]]*\"$1\":[[:space:]]*\([0-9]*\),*$/\1/p" /tmp/out | head -1
}

# compare_point NAME URI: the same rw point (2 ports x 300 iterations, 64 B) on URI and on sim:
# counts the same reads and writes (600 each) and completes without failure.
POINT="--type rw --size 64 --ports 2 --iterations 300 --json"
compare_point() {
	name=$1 uri=$2
	$SB point --device sim: $POINT >/tmp/out 2>&1
	ref="$(point_count reads)/$(point_count writes)"
	$SB point --device "$uri" $POINT >/tmp/out 2>&1
	rc=$?
	got="$(point_count reads)/$(point_count writes)"
	if [ "$rc" = 0 ] && [ "$got" = "$ref" ] && [ "$ref" = "600/600" ] &&
		grep -q '"failed":[[:space:]]*false' /tmp/out; then
		say "CHECK $name ok"
	else
		say "CHECK $name FAIL: rc=$rc reads/writes $got, sim: $ref; $(head -c 300 /tmp/out | tr '\n' ' ')"
	fi
}

# trace_point NAME PATH RECORDS LOST: an rw point (2 ports x 200 iterations: 800 requests) with
# trace capture through dev: drained by PATH (onchip: register reads through the module's
# ioctls; dma: the module's buffer set up with SB_IOC_TRACE_DMA, which the bridge's model cannot
# write — the board counts every record as dropped, and the trace says so).
trace_point() {
	name=$1 path=$2 records=$3 lost=$4
	$SB point --device dev:/dev/stackbench0 --type rw --size 64 --ports 2 --iterations 200 \
		--trace /tmp/t.sbt --trace-burst 0 --trace-gap 0 --trace-path "$path" --json >/tmp/out 2>&1
	rc=$?
	got="$(point_count records)/$(point_count executed)/$(point_count lost_records)"
	if [ "$rc" = 0 ] && [ "$got" = "$records/800/$lost" ] && [ -s /tmp/t.sbt ]; then
		say "CHECK $name ok"
	else
		say "CHECK $name FAIL: rc=$rc records/executed/lost $got; $(head -c 300 /tmp/out | tr '\n' ' ')"
	fi
}

phase_no_module() {
	check devices.found find_board
	check_out devices.unbound 0 "^$BDF  1af4:1110  ivshmem  -  .*pci:$BDF" $SB devices
	check_out devices.json 0 '"kind":[[:space:]]*"ivshmem"' $SB devices --json
	# The full block list (fw_id .. 9 gups_port blocks, then the simulator's sim_ctrl) and 9 ports through the image.
	check_info info.pci "pci:$BDF"
	vmcheck pci "pci:$BDF"
	compare_point point.pci "pci:$BDF"
}

# The deadlock checks run in the background: when the driver deadlocks, their threads stay
# blocked in the kernel and the process never ends. STUCK=1 then skips what needs the module.
STUCK=0
deadlock_checks() {
	# On the kernel command line (SB_VM_APPEND), to look at a module that deadlocks:
	# sbvm_skip=deadlock skips them (and so reaches the later phases), sbvm_deadlock=a or b runs
	# one scenario only.
	if [ "${sbvm_skip:-}" = deadlock ]; then
		say "CHECK deadlock.skipped FAIL: sbvm_skip=deadlock"
		return
	fi
	$VMCHECK deadlock /dev/stackbench0 "$BDF" >/tmp/deadlock.out 2>&1 &
	i=0
	while [ $i -lt 300 ] && ! grep -qE '^DEADLOCK-(DONE|STUCK)' /tmp/deadlock.out; do
		sleep 0.2
		i=$((i + 1))
	done
	grep '^CHECK' /tmp/deadlock.out | tee -a "$LOG"
	if ! grep -q '^DEADLOCK-DONE' /tmp/deadlock.out; then
		STUCK=1
		# (no ps here: reading a stuck process's command line would block too)
		say "CHECK deadlock.finished FAIL: $(tail -3 /tmp/deadlock.out | tr '\n' ' ')"
	fi
}

phase_module() {
	# poll_ms=0 would make the poll work spin: refused at load.
	check_out insmod.poll_ms_zero_refused 22 "Invalid argument" \
		insmod /lib/stackbench.ko test_mode=1 poll_ms=0
	grep -q '^stackbench ' /proc/modules && rmmod stackbench
	# The replay buffer holds at least one page.
	check_out insmod.replay_kib_zero_refused 22 "Invalid argument" \
		insmod /lib/stackbench.ko test_mode=1 replay_kib=0
	grep -q '^stackbench ' /proc/modules && rmmod stackbench
	# Without test_mode the module leaves ivshmem alone.
	check insmod.plain insmod /lib/stackbench.ko
	check_out insmod.plain_no_node 1 "" test -e /dev/stackbench0
	check rmmod.plain rmmod stackbench
	# A generous mailbox timeout: the bridge shares a loaded host with QEMU.
	check insmod.test_mode insmod /lib/stackbench.ko test_mode=1 bridge_timeout_ms=5000
	check node.char_device test -c /dev/stackbench0
	check_out node.dmesg 0 "stackbench0: simulated board \(test mode\).*trace buffer 1024 KiB, replay buffer 1024 KiB" dmesg
	check_out devices.bound 0 "^$BDF  1af4:1110  ivshmem  stackbench .*dev:/dev/stackbench0" \
		$SB devices
	check_info info.dev dev:/dev/stackbench0
	check_info info.dev_mmap "dev:/dev/stackbench0?access=mmap"
	compare_point point.dev dev:/dev/stackbench0
	trace_point capture.dev_onchip onchip 800 0
	trace_point capture.dev_dma dma 0 800
	check_out info.dev_json 0 '"transport":[[:space:]]*"dev"' $SB info --json dev:/dev/stackbench0
	# sysfs mapping is refused while the module holds the BAR (CONFIG_IO_STRICT_DEVMEM).
	check_out info.pci_while_bound 3 "driver 'stackbench' holds the device" $SB info "pci:$BDF"
	check_out info.dev_missing 3 "no device node '/dev/stackbench7'" $SB info dev:/dev/stackbench7
	vmcheck dev /dev/stackbench0
	vmcheck bad /dev/stackbench0
	vmcheck trace /dev/stackbench0
	vmcheck replay /dev/stackbench0
	vmcheck events /dev/stackbench0
	vmcheck rdonly /dev/stackbench0
	vmcheck dmaregs /dev/stackbench0
	vmcheck msi /dev/stackbench0 "$BDF"
	vmcheck unplug /dev/stackbench0 "$BDF"
	check_info info.dev_after_rebind dev:/dev/stackbench0
	# A process holding the device keeps the module loaded.
	sleep 30 </dev/stackbench0 &
	holder=$!
	sleep 0.3
	check_out rmmod.refused_while_open 1 "" rmmod stackbench
	check_out rmmod.still_loaded 0 "^stackbench " cat /proc/modules
	kill $holder
	wait $holder 2>/dev/null
	$VMCHECK latency /dev/stackbench0
	deadlock_checks
}

PARAM=/sys/module/stackbench/parameters
phase_polling() {
	check rmmod.msi rmmod stackbench
	check insmod.polling insmod /lib/stackbench.ko test_mode=1 msi=0 bridge_timeout_ms=5000
	check node.polling test -c /dev/stackbench0
	vmcheck events /dev/stackbench0
	# poll_ms can be changed while loaded, but never to 0 (the poll work would spin).
	check_out poll_ms.zero_refused 1 "" sh -c "echo 0 >$PARAM/poll_ms"
	check_out poll_ms.kept 0 "^10$" cat $PARAM/poll_ms
	check poll_ms.set sh -c "echo 5 >$PARAM/poll_ms && test \"\$(cat $PARAM/poll_ms)\" = 5"
	echo 10 >$PARAM/poll_ms
	vmcheck pollers /dev/stackbench0 "$BDF"
}

phase_after() {
	check rmmod.test_mode rmmod stackbench
	check_out node.gone 1 "" test -e /dev/stackbench0
	vmcheck after "pci:$BDF"
	check_info info.pci_after "pci:$BDF"
}

# Whatever happened, the kernel log must hold no report of a kernel bug.
check_dmesg() {
	check_out dmesg.clean 1 "" sh -c "dmesg | grep -E 'BUG:|WARNING:|Oops|general protection|Call Trace|lockdep|DMA-API|blocked for more than|Bad page|pagealloc: memory corruption|Poison overwritten'"
}

main() {
	say "SBVM-START $(cat /proc/uptime)"
	phase_no_module
	phase_module
	if [ "$STUCK" = 0 ]; then
		phase_polling
		phase_after
	fi
	check_dmesg
	pass=$(grep -c '^CHECK .* ok$' "$LOG")
	fail=$(grep -c '^CHECK .* FAIL' "$LOG")
	failed=$(grep '^CHECK .* FAIL' "$LOG" | awk '{ print $2 }' | tr '\n' ',' | sed 's/,$//')
	if [ "$fail" != 0 ]; then
		dmesg | tail -40
	fi
	echo "SBVM-RESULT pass=$pass fail=$fail${failed:+ failed=$failed} uptime=$(cut -d' ' -f1 /proc/uptime)"
}

main
sync
if [ "$STUCK" = 1 ]; then
	# The stuck unbind holds the device lock, which a clean power-off would wait for: crash
	# instead (panic=-1 reboots at once, and QEMU runs with -no-reboot).
	echo c >/proc/sysrq-trigger
fi
poweroff -f
