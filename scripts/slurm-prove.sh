#!/usr/bin/env bash
# Work on a proof directory (`kalah prove`) from N machines that share its file system.
#
# Create the directory once, then submit the workers as a job array:
#
#   DIR=/shared/proofs/6x6-empty
#   kalah prove "$DIR" --pits 6 --seeds 6 --capture empty --depth 4 --init
#   sbatch --array=0-15 --export=ALL,DIR=$DIR scripts/slurm-prove.sh
#   kalah prove "$DIR" --status          # at any time, from anywhere
#
# Each array task is one `kalah prove DIR --worker`: it claims open units (a claim file in
# DIR/claims whose lease it renews every quarter of LEASE seconds), answers each with the
# search, appends the answer to its own results file DIR/results/<host>-<pid>-<time>.kpr
# (synced before the unit counts as done), and exits when the root's value is proved. A
# task that dies or hits its time limit loses only its units in flight: their leases
# expire and other tasks retake them; resubmitting the array resumes the proof. The
# workers' clocks must agree to well within the lease.
#
# With --cpus-per-task C > 1 a worker searches each unit on C threads; one thread a task
# and more tasks is usually the better use of the cores. Each task allocates its own
# transposition table (TT_MB) and endgame table (ENDGAME seeds, or a database in DB).
#
#SBATCH --job-name=kalah-prove
#SBATCH --cpus-per-task=1
#SBATCH --mem=8G
#SBATCH --time=24:00:00
set -euo pipefail

KALAH=${KALAH:-kalah}
DIR=${DIR:?set DIR to the proof directory on the shared file system}
LEASE=${LEASE:-600}          # seconds a claim lives without renewal
TT_MB=${TT_MB:-2048}         # transposition table of each task
ENDGAME=${ENDGAME:-auto}     # endgame table level, auto or none
EXTRA=${EXTRA:-}             # more options, e.g. "--db /shared/kalah-db"

: "${SLURM_ARRAY_TASK_ID:?run as a job array: sbatch --array=0-N}"

# shellcheck disable=SC2086
exec nice -n "${NICE:-0}" "$KALAH" prove "$DIR" --worker --quiet \
    --threads "${SLURM_CPUS_PER_TASK:-1}" --lease "$LEASE" --tt-mb "$TT_MB" \
    --endgame "$ENDGAME" $EXTRA
