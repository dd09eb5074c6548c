#!/usr/bin/env bash
# The SLURM path, tested end to end on this machine (Debian/Ubuntu, as root):
#   1. installs Debian's slurm-wlm and munge (apt-get) and configures a one-node cluster without
#      accounting (no slurmdbd: `sacct` has nothing to answer, as on many small clusters);
#   2. starts munged, slurmctld and slurmd;
#   3. installs snakemake-executor-plugin-slurm (into the active environment, or with
#      PLUGIN_DIR=<dir> into that directory, put on PYTHONPATH);
#   4. runs the smoke config through the profile exactly as docs/slurm.md says, in a copy of the
#      repository, and the same config locally in a second copy;
#   5. compares every result file byte for byte (run info JSON: all fields but the run time) and
#      prints the number of SLURM jobs submitted.
# Usage: bash workflow/scripts/slurm_single_node.sh [work dir, default /tmp/privrl_slurm]
# Run from the repository root with the project's environment active. Exit 0 = identical.
# Takes ~15 min on 2 cores (apt-get ~1 min the first time, each smoke run ~5 min).
set -euo pipefail

REPO=$(pwd)
WORK=${1:-/tmp/privrl_slurm}
CONFIG=${CONFIG:-config/smoke.yaml}
RESULTS=${RESULTS:-results/smoke}

# --- 1. packages and a one-node configuration ------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge
fi
NODE_LINE=$(slurmd -C | head -1)          # NodeName=<host> CPUs=... RealMemory=...
NODE=$(hostname -s)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
cat > /etc/slurm/slurm.conf <<EOF
ClusterName=privrl
SlurmctldHost=${NODE}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge=300
MpiDefault=none
${NODE_LINE% UpTime=*} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

# --- 2. daemons --------------------------------------------------------------------------------
chown munge:munge /run/munge
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd
for _ in $(seq 30); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 1; done
scontrol update nodename="$NODE" state=resume 2>/dev/null || true
sinfo

# --- 3. the executor plugin --------------------------------------------------------------------
if [ -n "${PLUGIN_DIR:-}" ]; then
    python -m pip install -q --no-deps --target "$PLUGIN_DIR" snakemake-executor-plugin-slurm \
        snakemake-executor-plugin-slurm-jobstep throttler
    export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$PLUGIN_DIR"
else
    python -m pip install -q snakemake-executor-plugin-slurm
fi

# --- 4. the smoke config, locally and through the profile, in two copies of the repository -----
rm -rf "$WORK"
for side in local slurm; do
    mkdir -p "$WORK/$side"
    (cd "$REPO" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$WORK/$side")
done
BASE_PATH=${PYTHONPATH:-}
run_side() {  # run_side <side> <snakemake args...>: the copy's own sources first on PYTHONPATH
    local side=$1; shift
    (cd "$WORK/$side" && PYTHONPATH="$WORK/$side/src${BASE_PATH:+:$BASE_PATH}" "$@")
}
start=$(date +%s)
run_side slurm snakemake --workflow-profile workflow/profiles/slurm --configfile "$CONFIG" \
    > "$WORK/slurm.log" 2>&1 || { tail -40 "$WORK/slurm.log"; exit 1; }
slurm_s=$(( $(date +%s) - start )); start=$(date +%s)
run_side local snakemake --cores "$(nproc)" --configfile "$CONFIG" > "$WORK/local.log" 2>&1 \
    || { tail -40 "$WORK/local.log"; exit 1; }
local_s=$(( $(date +%s) - start ))

# --- 5. byte-for-byte comparison ---------------------------------------------------------------
echo "SLURM jobs submitted: $(grep -c -E 'Job .* has been submitted with SLURM jobid' "$WORK/slurm.log" || true)"
echo "wall time: SLURM ${slurm_s}s, local ${local_s}s"
python - "$WORK/local" "$WORK/slurm" "$RESULTS" <<'EOF'
import json, sys
from pathlib import Path

local, slurm, results = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
TIMING = {"seconds"}  # the only field that may differ: a run's measured time
same = differ = 0
for root in (results, "results/store"):
    for a in sorted((local / root).rglob("*")):
        rel = a.relative_to(local)
        if a.is_dir() or {"logs", "benchmarks"} & set(rel.parts):
            continue
        b = slurm / rel
        if a.suffix == ".json":
            strip = lambda p: {k: v for k, v in json.loads(p.read_text()).items() if k not in TIMING}
            ok = b.exists() and strip(a) == strip(b)
        else:
            ok = b.exists() and a.read_bytes() == b.read_bytes()
        same += ok
        differ += not ok
        if not ok:
            print("DIFFERS:", rel)
print(f"{same} identical, {differ} differ")
sys.exit(1 if differ or not same else 0)
EOF
