#!/usr/bin/env bash
# Build one endgame-database level as N shards on a Slurm cluster whose nodes share $DB,
# then merge them into the level file.
#
# Levels 0..K-1 must already be in $DB (`kalah db build --max-seeds K-1 --out $DB`). Run
# this script on the submit host, not through sbatch; it submits itself:
#
#   K=24 N=8 DB=/shared/kalah-db scripts/slurm-build-level.sh
#
# submits a job array of the shards that are not in $DB yet (all N the first time) and a
# merge job that starts once all of them have succeeded (afterok) and no earlier job of
# this level and N is still running (singleton). It refuses to submit while a job of
# this level and N is queued or running. A task that fails or is cancelled leaves no
# shard file (a shard is written as `<name>.tmp` and renamed when complete, and the
# merge ignores `.tmp` files); the merge job then never runs (it is cancelled with its
# dependency). Running the same command again submits only the missing shards and a new
# merge, which completes the level. TASKS=1,3 (sbatch --array syntax) names the shards
# to submit instead.
#
# Each task holds only its shard's boards, one byte each, plus the table of rows every
# part of the level needs: a shard is a set of whole splits of the seeds between the two
# rows (a move that keeps every seed on the board keeps the split, so a split needs no
# other boards of its level). `kalah db plan --max-seeds K --shards N` prints each
# shard's splits and memory; every task asks for the largest of them plus 256 MiB
# (binary, threads, buffers): --mem=... (MEM=... overrides, in sbatch's syntax). The
# largest shard is never smaller than the largest split (about 13% of the level for 6
# pits and K=34, 18% at K=24), so N beyond 6 or 7 saves little more memory or time. The
# merge reads the shards side by side and holds only buffers (256 MiB + 1 MiB a shard).
# The lower levels are read through memory maps: reclaimable page cache, not counted in
# --mem, but a node with room for them in its page cache (C(K+2P-1, 2P) bytes in all)
# reads them much faster.
#
# Environment:
#   K, N, DB     level, shards, database directory (shared by all nodes)   [required]
#   CPUS         --cpus-per-task of every task; the build uses that many threads [1]
#   PITS, RULES  pits a side [6] and extra rule switches, e.g. RULES="--capture empty"
#   KALAH        the kalah binary, as an absolute path or found in PATH    [kalah]
#   MEM          override the tasks' --mem; MERGE_MEM the merge's
#   TIME         --time of each job (default: the partition's)
#   SBATCH_ARGS  more sbatch options for every job (e.g. "--partition=big")
# Prints the array's and the merge's job ids ("array JID", "merge JID") on stdout.
#
# Inside the jobs: an array task (SLURM_ARRAY_TASK_ID set) builds shard I/N with
# `kalah db build --shard I/N`; the merge job (MERGE=1) runs `kalah db merge --dir $DB`.
#
#SBATCH --cpus-per-task=1
set -euo pipefail

KALAH=${KALAH:-kalah}
DB=${DB:?set DB to the database directory on the shared file system}
PITS=${PITS:-6}
RULES=${RULES:-}

if [[ -n ${SLURM_JOB_ID:-} && -n ${MERGE:-} ]]; then
    exec "$KALAH" db merge --dir "$DB"
fi

K=${K:?set K to the level to build}
N=${N:?set N to the number of shards}

if [[ -n ${SLURM_JOB_ID:-} && -n ${SLURM_ARRAY_TASK_ID:-} ]]; then
    I=$SLURM_ARRAY_TASK_ID
    # shellcheck disable=SC2086
    exec "$KALAH" db build --pits "$PITS" $RULES --max-seeds "$K" --shard "$I/$N" \
        --threads "${SLURM_CPUS_PER_TASK:-1}" --out "$DB"
fi

# ---- Submit host: work out the memory, the missing shards, and submit.
die() {
    echo "slurm-build-level: $*" >&2
    exit 1
}
[[ $K =~ ^[0-9]+$ && $N =~ ^[0-9]+$ && $PITS =~ ^[0-9]+$ && $N -ge 1 ]] ||
    die "K, N and PITS must be numbers, N >= 1"
command -v sbatch >/dev/null 2>&1 || die "sbatch not found: run this on a Slurm submit host"
KALAH=$(command -v "$KALAH") || die "kalah binary '${KALAH}' not found (set KALAH)"
[[ -d $DB ]] || die "$DB is not a directory (build levels 0..$((K - 1)) into it first)"
DB=$(cd "$DB" && pwd)

# The largest task's memory, from the same partition the tasks use.
# shellcheck disable=SC2086
plan=$("$KALAH" db plan --pits "$PITS" $RULES --max-seeds "$K" --shards "$N") ||
    die "kalah db plan failed"
task_mib=$(awk '$1 == "largest" && $2 == "task:" {print $5}' <<<"$plan")
[[ $task_mib =~ ^[0-9]+$ ]] || die "no task memory in kalah db plan's output: $plan"
if [[ -z ${MEM:-} ]]; then
    MEM=$((task_mib + 256))M
fi
MERGE_MEM=${MERGE_MEM:-$((256 + N))M}

# The level's file name: `kalah`'s rules slug (db-format's RulesKey::slug), which lists
# the rule switches' values in a fixed order; relay sowing captures nothing by default.
slug() {
    local capture="" sowing=single direction=ccw opp=skip end=either remaining=owner
    # shellcheck disable=SC2086
    set -- $RULES
    while (($#)); do
        case $1 in
        --capture) capture=$2 ;;
        --sowing) sowing=$2 ;;
        --direction) direction=$2 ;;
        --opp-store) opp=$2 ;;
        --end) end=$2 ;;
        --remaining) remaining=$2 ;;
        *) die "RULES: unknown switch $1 (expected --capture/--sowing/--direction/--opp-store/--end/--remaining VALUE)" ;;
        esac
        shift 2 || die "RULES: $1 needs a value"
    done
    [[ -z $capture ]] && { [[ $sowing == relay ]] && capture=none || capture=standard; }
    echo "m$PITS-$capture-$sowing-$direction-$opp-$end-$remaining"
}
rules_slug=$(slug)
level=$rules_slug-k$(printf %03d "$K").kdb
if [[ -e $DB/$level ]]; then
    echo "slurm-build-level: $DB/$level is already there; nothing to submit" >&2
    exit 0
fi
if [[ -z ${TASKS:-} ]]; then
    missing=()
    for ((i = 0; i < N; i++)); do
        [[ -e $DB/$level.shard-$i-of-$N ]] || missing+=("$i")
    done
    TASKS=$(
        IFS=,
        echo "${missing[*]}"
    )
fi

export K N DB PITS RULES KALAH
name=kalah-db-k$K-of-$N
# Two tasks building the same shard would write the same `.tmp` file: refuse while any
# job of this level and N is still queued or running.
queued=$(squeue -h -n "$name" -o %i | paste -sd, -)
[[ -z $queued ]] || die "jobs $queued of $name are still queued or running: wait for them or scancel them"
common=(--parsable --job-name="$name" --chdir="$DB")
[[ -n ${TIME:-} ]] && common+=(--time="$TIME")
# shellcheck disable=SC2206
[[ -n ${SBATCH_ARGS:-} ]] && common+=($SBATCH_ARGS)
echo "slurm-build-level: level $K of Kalah($PITS,·) [$level], $N shards, each task --mem=$MEM" \
    "(the largest shard: $task_mib MiB), merge --mem=$MERGE_MEM, --cpus-per-task=${CPUS:-1}" >&2
dep=singleton
if [[ -n $TASKS ]]; then
    jid=$(sbatch "${common[@]}" --array="$TASKS" --mem="$MEM" --cpus-per-task="${CPUS:-1}" \
        --output="$DB/slurm-%x-%A_%a.out" --export=ALL,MERGE= "$0")
    jid=${jid%%;*}
    echo "array $jid"
    dep=afterok:$jid,singleton
else
    echo "slurm-build-level: every shard file is there; submitting the merge only" >&2
fi
mid=$(sbatch "${common[@]}" --mem="$MERGE_MEM" --output="$DB/slurm-%x-%j-merge.out" --cpus-per-task=1 \
    --dependency="$dep" --kill-on-invalid-dep=yes --export=ALL,MERGE=1 "$0")
echo "merge ${mid%%;*}"
