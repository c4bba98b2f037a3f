#!/usr/bin/env bash
# A one-node Slurm cluster in a folder, for trying `[dispatch] executor = "slurm"` on one machine
# (and for the tests). Needs Debian/Ubuntu's slurmctld, slurmd, slurm-client and munge packages
# (`apt-get install slurmctld slurmd slurm-client munge`) and root (the daemons run as root).
#
#   scripts/slurm_one_node.sh start DIR   # prints the line to export: SLURM_CONF=DIR/slurm.conf
#   scripts/slurm_one_node.sh stop DIR
#
# Everything lives in DIR: the munge key and socket, slurm.conf, state, spool and logs; the
# daemons listen on ports 16817/16818 so a real cluster configuration on the machine is untouched.
# The node is this host (`hostname -s`) with its CPUs and 80% of its memory; one partition, debug.
set -euo pipefail
action="${1:?usage: $0 start|stop DIR}"
dir="$(mkdir -p "${2:?usage: $0 start|stop DIR}" && cd "$2" && pwd)"
conf="$dir/slurm.conf"

stop() {
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"; do
    if [ -f "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
  done
  sleep 1
}

if [ "$action" = stop ]; then stop; exit 0; fi
[ "$action" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
for tool in munged slurmctld slurmd sbatch squeue scontrol; do
  command -v "$tool" >/dev/null 2>&1 || { echo "missing $tool: apt-get install slurmctld slurmd slurm-client munge" >&2; exit 3; }
done
[ "$(id -u)" = 0 ] || { echo "the daemons of a one-node cluster need root" >&2; exit 3; }
stop
mkdir -p "$dir/state" "$dir/spool" "$dir/log"
[ -f "$dir/munge.key" ] || { head -c 1024 /dev/urandom > "$dir/munge.key"; chmod 400 "$dir/munge.key"; }
munged -f --key-file="$dir/munge.key" --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munged.seed"
host="$(hostname -s)"
cpus="$(nproc)"
memory_mb="$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.8}' /proc/meminfo)"
cat > "$conf" <<EOF
ClusterName=evidence
SlurmctldHost=$host
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
JobRequeue=1
KillWait=10
MinJobAge=600
SchedulerType=sched/backfill
NodeName=$host CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$conf"
slurmctld -f "$conf"
slurmd -f "$conf"
for _ in $(seq 1 30); do
  if sinfo -h -o %T 2>/dev/null | grep -q idle; then echo "SLURM_CONF=$conf"; exit 0; fi
  sleep 1
done
echo "the cluster did not come up; see $dir/log" >&2
exit 4
