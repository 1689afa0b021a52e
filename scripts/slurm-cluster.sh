#!/usr/bin/env bash
# A one-machine Slurm cluster for tests: munged, slurmctld and slurmd on localhost.
#
#   scripts/slurm-cluster.sh start    install slurm-wlm and munge if missing (apt-get, as
#                                     root), write a private slurm.conf, cgroup.conf and
#                                     munge key, start the daemons, wait until the node is idle
#                                     (on failure: the daemons' log tails, and they are stopped)
#   scripts/slurm-cluster.sh env      print `export SLURM_CONF=...` for the client commands
#                                     (eval "$(scripts/slurm-cluster.sh env)"; sinfo)
#   scripts/slurm-cluster.sh status   the daemons and `sinfo`; exit 0 only if all three run
#   scripts/slurm-cluster.sh stop     cancel the cluster's jobs and stop the daemons it started
#
# Everything lives in $KALAH_SLURM_DIR (default ${TMPDIR:-/tmp}/kalah-slurm): the config,
# the munge key and socket, the daemons' logs, pid files and state. Nothing under /etc is
# touched and no system service is started (there is no systemd). `start` and `stop` are
# idempotent: `start` on a running cluster checks it and returns, `stop` on a stopped one
# does nothing. The node has this machine's CPUs (nproc) and RealMemory = MemTotal of
# /proc/meminfo less 5% (slurmd drains a node that claims more than it has); jobs are
# scheduled by CPU and memory (select/cons_tres, CR_CPU_Memory), without cgroups (the
# processes are tracked by process tree, memory is not enforced).
#
# Ports: $KALAH_SLURM_CTLD_PORT (6817) and $KALAH_SLURM_D_PORT (6818), Slurm's defaults.
# Needs root (the daemons run as root; packages come from apt-get).
set -euo pipefail

DIR=${KALAH_SLURM_DIR:-${TMPDIR:-/tmp}/kalah-slurm}
CTLD_PORT=${KALAH_SLURM_CTLD_PORT:-6817}
D_PORT=${KALAH_SLURM_D_PORT:-6818}
WAIT_S=${KALAH_SLURM_WAIT_S:-60}
CONF=$DIR/slurm.conf
NODE=$(hostname -s)

die() {
    echo "slurm-cluster: $*" >&2
    exit 1
}

# Installs the packages if a command is missing. Debian's packages try to start their
# services through invoke-rc.d; without an init system that fails harmlessly, and a
# policy-rc.d that denies it makes sure of it during this install only.
install_packages() {
    local missing=0 c
    for c in munged slurmctld slurmd sinfo sbatch; do
        command -v "$c" >/dev/null 2>&1 || missing=1
    done
    [[ $missing == 0 ]] && return 0
    [[ $(id -u) == 0 ]] || die "slurm-wlm and munge are missing and installing them needs root"
    command -v apt-get >/dev/null 2>&1 || die "slurm-wlm and munge are missing and there is no apt-get"
    echo "slurm-cluster: installing slurm-wlm and munge (apt-get)" >&2
    local policy=/usr/sbin/policy-rc.d own_policy=0
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        own_policy=1
    fi
    local rc=0
    {
        DEBIAN_FRONTEND=noninteractive apt-get update -q -o DPkg::Lock::Timeout=600 &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends \
                slurm-wlm munge
    } >"${TMPDIR:-/tmp}/kalah-slurm-apt.log" 2>&1 || rc=$?
    [[ $own_policy == 1 ]] && rm -f "$policy"
    if [[ $rc != 0 ]]; then
        tail -n 30 "${TMPDIR:-/tmp}/kalah-slurm-apt.log" >&2
        die "apt-get failed (log: ${TMPDIR:-/tmp}/kalah-slurm-apt.log)"
    fi
    for c in munged slurmctld slurmd sinfo sbatch; do
        command -v "$c" >/dev/null 2>&1 || die "$c still missing after installing slurm-wlm and munge"
    done
}

# The pid in a pid file if that process is alive and runs `name`, else nothing.
live_pid() {
    local file=$1 name=$2 pid
    [[ -r $file ]] || return 1
    pid=$(<"$file")
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ -r /proc/$pid/comm && $(</proc/"$pid"/comm) == "$name" ]] || return 1
    echo "$pid"
}

node_state() {
    SLURM_CONF=$CONF timeout 10 sinfo -h -n "$NODE" -o %t 2>/dev/null | head -n 1
}

log_tails() {
    local f
    for f in "$DIR"/log/*.log; do
        [[ -e $f ]] || continue
        echo "---- last lines of $f" >&2
        tail -n 20 "$f" >&2
    done
}

write_config() {
    local cpus mem_kib mem_mib
    cpus=$(nproc)
    mem_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
    [[ $mem_kib =~ ^[0-9]+$ ]] || die "no MemTotal in /proc/meminfo"
    mem_mib=$((mem_kib * 95 / 100 / 1024))
    mkdir -p "$DIR"/{munge,log,state,spool,run}
    chmod 755 "$DIR"
    chmod 711 "$DIR"/munge
    cat >"$CONF" <<EOF
# Written by scripts/slurm-cluster.sh: a one-node test cluster on localhost.
ClusterName=kalah
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$D_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
MinJobAge=300
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mib State=UNKNOWN
PartitionName=test Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
    # No cgroup plugin is configured (proctrack/linuxproc, task/none); this file only
    # keeps slurmd from mounting or constraining anything should it read one.
    cat >"$DIR/cgroup.conf" <<EOF
# Written by scripts/slurm-cluster.sh: nothing is constrained through cgroups.
CgroupAutomount=no
ConstrainCores=no
ConstrainRAMSpace=no
ConstrainDevices=no
EOF
    if [[ ! -s $DIR/munge/munge.key ]]; then
        (umask 077 && head -c 1024 /dev/urandom >"$DIR/munge/munge.key")
    fi
    chmod 400 "$DIR/munge/munge.key"
}

start() {
    install_packages
    if live_pid "$DIR/run/munged.pid" munged >/dev/null &&
        live_pid "$DIR/run/slurmctld.pid" slurmctld >/dev/null &&
        live_pid "$DIR/run/slurmd.pid" slurmd >/dev/null &&
        [[ $(node_state) =~ ^(idle|mix|alloc) ]]; then
        echo "slurm-cluster: already running (SLURM_CONF=$CONF)"
        return 0
    fi
    # Whatever half of a cluster is left from an earlier run goes first.
    stop >/dev/null
    [[ $(id -u) == 0 ]] || die "the daemons run as root: run this as root"
    rm -rf "$DIR/state" "$DIR/spool" "$DIR/log"
    write_config
    munged --key-file="$DIR/munge/munge.key" --socket="$DIR/munge/munge.socket" \
        --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
        --seed-file="$DIR/munge/munge.seed" --force ||
        { log_tails; die "munged did not start"; }
    munge -n -S "$DIR/munge/munge.socket" | unmunge -S "$DIR/munge/munge.socket" >/dev/null ||
        { log_tails; stop >&2; die "munge does not answer on $DIR/munge/munge.socket"; }
    slurmctld -f "$CONF" -i || { log_tails; stop >&2; die "slurmctld did not start"; }
    slurmd -f "$CONF" || { log_tails; stop >&2; die "slurmd did not start"; }
    local t state=""
    for ((t = 0; t < WAIT_S; t++)); do
        state=$(node_state)
        [[ $state == idle ]] && break
        sleep 1
    done
    if [[ $state != idle ]]; then
        log_tails
        SLURM_CONF=$CONF timeout 10 sinfo -R >&2 || true
        stop >&2
        die "node $NODE was '${state:-not reported}' after ${WAIT_S} s, not idle (logs above, in $DIR/log)"
    fi
    echo "slurm-cluster: node $NODE idle ($(nproc) CPUs, $(grep -o 'RealMemory=[0-9]*' "$CONF") MiB); export SLURM_CONF=$CONF"
}

# Stops the daemons named in this cluster's pid files (and only those processes), after
# cancelling every job of the cluster so that no job step is left running.
stop() {
    if live_pid "$DIR/run/slurmctld.pid" slurmctld >/dev/null; then
        SLURM_CONF=$CONF timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
        local t
        for ((t = 0; t < 15; t++)); do
            [[ -z $(SLURM_CONF=$CONF timeout 10 squeue -h -t R,CG -o %i 2>/dev/null) ]] && break
            sleep 1
        done
    fi
    local d pid t stopped=""
    for d in slurmd slurmctld munged; do
        pid=$(live_pid "$DIR/run/$d.pid" "$d") || continue
        kill -TERM "$pid" 2>/dev/null || true
        for ((t = 0; t < 100; t++)); do
            [[ -d /proc/$pid ]] || break
            sleep 0.1
        done
        [[ -d /proc/$pid ]] && kill -KILL "$pid" 2>/dev/null
        rm -f "$DIR/run/$d.pid"
        stopped="$stopped $d"
    done
    echo "slurm-cluster: stopped${stopped:- nothing (not running)}"
}

status() {
    local d pid up=0
    for d in munged slurmctld slurmd; do
        if pid=$(live_pid "$DIR/run/$d.pid" "$d"); then
            echo "$d: running, pid $pid"
        else
            echo "$d: not running"
            up=1
        fi
    done
    if [[ $up == 0 ]]; then
        SLURM_CONF=$CONF timeout 10 sinfo -N -o "%N %t %c %m" || up=1
        echo "export SLURM_CONF=$CONF"
    fi
    return "$up"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
env) echo "export SLURM_CONF=$CONF" ;;
*)
    echo "usage: $0 start|stop|status|env" >&2
    exit 2
    ;;
esac
