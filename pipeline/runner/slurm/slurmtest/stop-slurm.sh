#!/bin/bash
# Stops what start-slurm.sh DIR started, by the pid files it wrote.
dir=$(readlink -f "$1")
for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
  [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
done
exit 0
