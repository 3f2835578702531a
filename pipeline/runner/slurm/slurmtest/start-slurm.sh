#!/bin/bash
# Starts a throwaway single-node Slurm (munged, slurmctld, slurmd as root)
# for the REXMLE_SLURM_TEST=1 tests. Usage: start-slurm.sh DIR [CTLD_PORT SLURMD_PORT]
# Writes DIR/slurm.conf and prints "SLURM_CONF=DIR/slurm.conf"; stop it with
# stop-slurm.sh DIR. Needs the Debian packages slurm-wlm and munge. Two
# clusters with their own DIR and ports can run on one host at once (the
# tests of two packages do).
set -eu
dir=$(readlink -f "$1")
ctld_port=${2:-16817}
slurmd_port=${3:-16818}
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2/1024*0.8)}' /proc/meminfo)
cat > "$dir/slurm.conf" <<CONF
ClusterName=rexmle-test
SlurmctldHost=$host
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerParameters=defer_batch
# Ended jobs stay in the controller (scontrol show job) for 10 min: this
# cluster has no accounting database for sacct.
MinJobAge=600
# A job without --mem gets 512 MB per CPU, not the whole node: the array's
# tasks run side by side.
DefMemPerCPU=512
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
cat > "$dir/cgroup.conf" <<CONF
IgnoreSystemd=yes
CONF
export SLURM_CONF="$dir/slurm.conf"
# munge: its own socket and pid in DIR so a system munged is not disturbed.
munged --force --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed"
sed -i "1i AuthInfo=socket=$dir/munge/munge.socket" "$dir/slurm.conf"
slurmctld -f "$dir/slurm.conf"
slurmd -f "$dir/slurm.conf"
for i in $(seq 60); do
  if sinfo -h -o %T 2>/dev/null | grep -q idle; then
    echo "SLURM_CONF=$dir/slurm.conf"
    exit 0
  fi
  sleep 0.5
done
echo "slurm did not come up; logs in $dir" >&2
exit 1
