#!/bin/sh
# A one-machine Slurm cluster for the cluster tests (docs/cluster.md, tests/README.md): munged,
# slurmctld and slurmd from Debian's packages, run in the foreground under this shell so that
# their PIDs are ours, everything (keys, state, spool, logs, sockets, configuration) in a
# temporary folder, on free ports. Sourced:
#   . cluster_lib.sh
#   cluster_start [GRES_COUNT]   # sets SB_W (the folder) and exports SLURM_CONF
#   ...                          # sbatch, squeue, stackbench run --slurm
#   cluster_stop                 # also from the trap cluster_start sets, on any exit
# Needs root (munged runs as the munge user, slurmd as root): exits 77 (skipped) otherwise.

cluster_fail() { echo "cluster: FAIL: $*" >&2; exit 1; }

# cluster_logs DIR: the end of each Slurm log (*.out) in DIR, on stderr (for a test's failure).
cluster_logs() {
	for cl_f in "${1:-/nonexistent}"/*.out; do
		[ -f "$cl_f" ] || continue
		echo "== $cl_f" >&2
		tail -3 "$cl_f" >&2
	done
}

# Two free TCP ports on the loopback (bound and released; slurmctld and slurmd take them).
cluster_ports() {
	python3 - <<'PY'
import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))
for x in s:
    x.close()
PY
}

cluster_stop() {
	# munged runs under runuser: its own PID too, from its PID file
	if [ -n "${SB_W:-}" ] && [ -s "$SB_W/munge/run/munged.pid" ]; then
		SB_PIDS="$SB_PIDS $(cat "$SB_W/munge/run/munged.pid")"
	fi
	for cl_p in $SB_PIDS; do
		kill "$cl_p" 2>/dev/null || true
	done
	for cl_p in $SB_PIDS; do
		cl_n=0
		while kill -0 "$cl_p" 2>/dev/null && [ $cl_n -lt 50 ]; do
			sleep 0.1
			cl_n=$((cl_n + 1))
		done
		kill -9 "$cl_p" 2>/dev/null || true
	done
	SB_PIDS=
	if [ -n "${SB_W:-}" ] && [ -z "${SB_KEEP:-}" ]; then
		rm -rf "$SB_W"
	fi
}

# cluster_start [GRES_COUNT]: GRES_COUNT boards as GRES 'fpga' with indices (File= lines
# pointing at files in the folder), none when not given.
cluster_start() {
	[ "$(id -u)" -eq 0 ] || { echo "cluster: needs root (munged, slurmd); skipped"; exit 77; }
	for cl_p in munged slurmctld slurmd sbatch squeue scancel scontrol sinfo python3; do
		command -v "$cl_p" >/dev/null || [ -x "/usr/sbin/$cl_p" ] ||
			cluster_fail "'$cl_p' is missing: scripts/deps.sh installs slurmctld slurmd slurm-client munge"
	done
	SB_W=$(mktemp -d /tmp/sb-slurm-XXXXXX)
	SB_PIDS=
	trap 'cluster_stop' EXIT
	trap 'exit 1' INT TERM
	chmod 755 "$SB_W"
	mkdir -p "$SB_W/state" "$SB_W/spool" "$SB_W/log" "$SB_W/munge/run"
	dd if=/dev/urandom of="$SB_W/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 755 "$SB_W/munge" "$SB_W/munge/run" # munged: the socket's folder open to all
	chmod 600 "$SB_W/munge/munge.key"
	chown -R munge:munge "$SB_W/munge"
	runuser -u munge -- /usr/sbin/munged --foreground --key-file="$SB_W/munge/munge.key" \
		--socket="$SB_W/munge/run/munge.sock" --pid-file="$SB_W/munge/run/munged.pid" \
		--log-file="$SB_W/munge/munged.log" --seed-file="$SB_W/munge/seed" \
		>"$SB_W/munged.out" 2>&1 &
	SB_PIDS="$!"
	set -- "${1:-0}" $(cluster_ports)
	cl_node=$(hostname -s)
	cl_gres_node=
	cl_gres_types=
	if [ "$1" -gt 0 ]; then
		cl_gres_types="GresTypes=fpga"
		cl_gres_node="Gres=fpga:$1"
		cl_i=0
		while [ $cl_i -lt "$1" ]; do
			: >"$SB_W/fpga$cl_i"
			cl_i=$((cl_i + 1))
		done
		echo "Name=fpga File=$SB_W/fpga[0-$(($1 - 1))]" >"$SB_W/gres.conf"
	fi
	cat >"$SB_W/slurm.conf" <<CONF
ClusterName=sbtest
SlurmctldHost=$cl_node(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$SB_W/munge/run/munge.sock
CredType=cred/munge
StateSaveLocation=$SB_W/state
SlurmdSpoolDir=$SB_W/spool
SlurmctldPidFile=$SB_W/slurmctld.pid
SlurmdPidFile=$SB_W/slurmd.pid
SlurmctldPort=$2
SlurmdPort=$3
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldLogFile=$SB_W/log/slurmctld.log
SlurmdLogFile=$SB_W/log/slurmd.log
ReturnToService=2
SchedulerParameters=sched_interval=1
$cl_gres_types
NodeName=$cl_node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=2000 $cl_gres_node State=UNKNOWN
PartitionName=bench Nodes=$cl_node Default=YES MaxTime=INFINITE State=UP
CONF
	export SLURM_CONF="$SB_W/slurm.conf"
	cl_n=0
	until [ -S "$SB_W/munge/run/munge.sock" ]; do
		cl_n=$((cl_n + 1))
		[ $cl_n -lt 100 ] || cluster_fail "munged did not start: $(cat "$SB_W/munge/munged.log" 2>/dev/null)"
		sleep 0.1
	done
	slurmctld -D -i -f "$SB_W/slurm.conf" >"$SB_W/log/slurmctld.out" 2>&1 &
	SB_PIDS="$SB_PIDS $!"
	slurmd -D -f "$SB_W/slurm.conf" >"$SB_W/log/slurmd.out" 2>&1 &
	SB_PIDS="$SB_PIDS $!"
	cl_n=0
	until sinfo -h -o %t 2>/dev/null | grep -q idle; do
		cl_n=$((cl_n + 1))
		[ $cl_n -lt 300 ] || cluster_fail "the node did not come up: $(tail -5 "$SB_W/log/slurmctld.log" "$SB_W/log/slurmd.log" 2>&1)"
		sleep 0.1
	done
}

# cluster_wait_gone JOB...: until none of the jobs (nor their array tasks) is in the queue
# (pending, running, completing), at most 600 s.
cluster_wait_gone() {
	cl_re="^($(echo "$@" | tr ' ' '|'))(_|\$)"
	cl_n=0
	while squeue -h -r -o %i --me 2>/dev/null | grep -Eq "$cl_re"; do
		cl_n=$((cl_n + 1))
		[ $cl_n -lt 6000 ] || cluster_fail "jobs $* still in the queue after 600 s"
		sleep 0.1
	done
}
