#!/usr/bin/env bash
# Build one endgame-database level across N machines that share a file system, then merge.
#
# Levels 0..K-1 must already be in $DB (build them with `kalah db build --max-seeds K-1`).
# Submit the shards as a job array and the merge as a job that waits for all of them:
#
#   K=24 N=8 DB=/shared/kalah-db
#   jid=$(sbatch --parsable --array=0-$((N-1)) --export=ALL,K=$K,N=$N,DB=$DB scripts/slurm-build-level.sh)
#   sbatch --dependency=afterok:$jid --export=ALL,DB=$DB,MERGE=1 scripts/slurm-build-level.sh
#
# Each array task builds shard I/N (ranks floor(I*C/N)..floor((I+1)*C/N) of the C positions
# of level K) into $DB/<level>.kdb.shard-I-of-N. Each task holds the whole level in memory
# (one byte a position: 398 MiB for 6 pits and K=24) because same-level successors may lie
# in other shards; the shards split the work, not the memory. The merge checks every
# shard's checksum and writes <level>.kdb, byte-identical to an unsharded build.
#
#SBATCH --job-name=kalah-db
#SBATCH --cpus-per-task=16
#SBATCH --mem=8G
#SBATCH --time=01:00:00
set -euo pipefail

KALAH=${KALAH:-kalah}
DB=${DB:?set DB to the database directory on the shared file system}
PITS=${PITS:-6}
RULES=${RULES:-}            # extra rule switches, e.g. "--capture empty"

if [[ -n "${MERGE:-}" ]]; then
    exec "$KALAH" db merge --dir "$DB"
fi

K=${K:?set K to the level to build}
N=${N:?set N to the number of shards}
I=${SLURM_ARRAY_TASK_ID:?run as a job array: sbatch --array=0-$((N - 1))}

# shellcheck disable=SC2086
exec "$KALAH" db build --pits "$PITS" $RULES --max-seeds "$K" --shard "$I/$N" \
    --threads "${SLURM_CPUS_PER_TASK:-1}" --out "$DB"
