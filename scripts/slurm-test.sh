#!/usr/bin/env bash
# End-to-end test of scripts/slurm-build-level.sh and scripts/slurm-prove.sh on a real
# one-machine Slurm cluster (scripts/slurm-cluster.sh: installs slurm-wlm and munge if
# missing, as root).
#
#   scripts/slurm-test.sh            level 14 of Kalah(6,·) in 3 shards, then in 2, then
#                                    the proof workers
#   K=12 N=4 scripts/slurm-test.sh   another level and shard count for the first part
#
# 1. Builds levels 0..K unsharded (`kalah db build`), the reference.
# 2. Into a second directory holding levels 0..K-1: `sbatch --array` of the N shards of
#    level K and the dependent merge job (scripts/slurm-build-level.sh); the merged level
#    must be byte-identical to the reference (cmp) and `kalah db verify` must pass.
# 3. Into a third such directory, level K in 2 shards: `scancel` shard 1 while it runs
#    (its task starts kalah through a wrapper that first waits, so that the cancel
#    always finds it running, however fast the build); a second submit meanwhile must be
#    refused. Checks that the task ended CANCELLED, that no shard file of it exists under
#    its name (at most a `.tmp`), that the merge job was cancelled with its dependency,
#    that no level file exists, that `kalah db merge` refuses the incomplete set and
#    `kalah db verify` passes on what is there. Then runs the same submit command again:
#    it must submit shard 1 only, and the level must come out byte-identical and verify.
# 4. Proof workers (scripts/slurm-prove.sh, `kalah prove DIR --worker`) as job arrays over
#    one proof directory of Kalah(6,3) at depth 3 (PROVE_PITS, PROVE_SEEDS, PROVE_DEPTH):
#    first 2 workers that stop after 4 units each (the proof must not be done, and each
#    worker left its results file), then 3 that run to the end; `kalah prove DIR --status
#    --json` must then say proved, with the value `kalah solve` gives.
#
# Starts the cluster if it is not running and stops it at the end in that case.
# KALAH: the kalah binary (default target/release/kalah, built if missing).
# Exits non-zero with a message on the first failed check.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
K=${K:-14}
N=${N:-3}
PROVE_PITS=${PROVE_PITS:-6}
PROVE_SEEDS=${PROVE_SEEDS:-3}
PROVE_DEPTH=${PROVE_DEPTH:-3}
WAIT_S=${KALAH_SLURM_TEST_WAIT_S:-300}
KALAH=${KALAH:-$ROOT/target/release/kalah}
if [[ ! -x $KALAH ]]; then
    cargo build --release --locked -p tools
fi
KALAH=$(cd "$(dirname "$KALAH")" && pwd)/$(basename "$KALAH")

fail() {
    echo "slurm-test: FAIL: $*" >&2
    exit 1
}
step() { echo "slurm-test: [$((SECONDS - t0)) s] $*"; }

t0=$SECONDS
started=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kalah-slurm-test.XXXXXX")
cleanup() {
    local rc=$?
    if [[ $started == 1 ]]; then
        bash "$ROOT/scripts/slurm-cluster.sh" stop || true
    fi
    if [[ $rc == 0 ]]; then
        rm -rf "$WORK"
    else
        echo "slurm-test: work directory kept: $WORK" >&2
    fi
}
trap cleanup EXIT

if ! bash scripts/slurm-cluster.sh status >/dev/null 2>&1; then
    started=1
    bash scripts/slurm-cluster.sh start
fi
eval "$(bash scripts/slurm-cluster.sh env)"

job_state() {
    scontrol show job "$1" -o 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2
}

# Waits until job $1 has ended; prints its final state.
wait_job() {
    local t state
    for ((t = 0; t < WAIT_S * 5; t++)); do
        state=$(job_state "$1")
        case $state in
        PENDING | RUNNING | CONFIGURING | COMPLETING | SUSPENDED | "") sleep 0.2 ;;
        *)
            echo "$state"
            return 0
            ;;
        esac
    done
    squeue >&2 || true
    fail "job $1 still '$state' after ${WAIT_S} s"
}

# Submits level K of $1 in $2 shards, with kalah binary $3 (default $KALAH); sets ARRAY
# and MERGE_JOB from the script's output.
submit() {
    local out
    out=$(K=$K N=$2 DB=$1 KALAH=${3:-$KALAH} bash "$ROOT/scripts/slurm-build-level.sh")
    ARRAY=$(awk '$1 == "array" {print $2}' <<<"$out")
    MERGE_JOB=$(awk '$1 == "merge" {print $2}' <<<"$out")
    [[ -n $MERGE_JOB ]] || fail "no merge job submitted: $out"
}

# Field $1 of the JSON object on stdin (Python's spelling: True, False, None).
json() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

lower_copy() {
    mkdir -p "$1"
    local k
    for ((k = 0; k < K; k++)); do
        cp "$WORK"/full/*-k"$(printf %03d "$k")".kdb "$1"/
    done
}


step "reference: kalah db build --pits 6 --max-seeds $K (unsharded)"
"$KALAH" db build --pits 6 --max-seeds "$K" --out "$WORK/full" --no-timings >/dev/null
level=$(compgen -G "$WORK/full/*-k$(printf %03d "$K").kdb")
level=${level##*/}

step "level $K in $N shards: sbatch --array and the dependent merge"
lower_copy "$WORK/sharded"
submit "$WORK/sharded" "$N"
state=$(wait_job "$MERGE_JOB")
[[ $state == COMPLETED ]] || fail "merge job $MERGE_JOB ended $state ($(cat "$WORK"/sharded/slurm-*merge.out 2>/dev/null))"
cmp "$WORK/full/$level" "$WORK/sharded/$level" || fail "merged level differs from the unsharded build"
"$KALAH" db verify "$WORK/sharded" >"$WORK/verify1.txt" || fail "kalah db verify: $(tail -n 5 "$WORK/verify1.txt")"
compgen -G "$WORK/sharded/*.shard-*" >/dev/null && fail "shard files left after the merge"
step "ok: byte-identical to the unsharded build, verified"

step "level $K in 2 shards, shard 1 cancelled while it runs"
lower_copy "$WORK/cancel"
cat >"$WORK/kalah-held" <<EOF
#!/usr/bin/env bash
# Array task 1 waits in its running job until the test cancels it; all else runs kalah.
[[ \${SLURM_ARRAY_TASK_ID:-} == 1 ]] && sleep 600
exec "$KALAH" "\$@"
EOF
chmod +x "$WORK/kalah-held"
submit "$WORK/cancel" 2 "$WORK/kalah-held"
[[ -n $ARRAY ]] || fail "no array submitted"
for ((t = 0; t < WAIT_S * 10; t++)); do
    state=$(job_state "${ARRAY}_1")
    [[ $state == PENDING || -z $state ]] || break
    sleep 0.1
done
[[ $state == RUNNING ]] || fail "shard 1 (job ${ARRAY}_1) is '$state', expected RUNNING to cancel it"
if K=$K N=2 DB=$WORK/cancel KALAH=$KALAH bash scripts/slurm-build-level.sh >/dev/null 2>"$WORK/twice.txt"; then
    fail "a second submit was accepted while the level's jobs run"
fi
grep -q 'still queued or running' "$WORK/twice.txt" || fail "second submit: $(cat "$WORK/twice.txt")"
scancel "${ARRAY}_1"
state=$(wait_job "${ARRAY}_1")
[[ $state == CANCELLED ]] || fail "shard 1 ended $state, not CANCELLED (it finished before scancel?)"
state=$(wait_job "${ARRAY}_0")
[[ $state == COMPLETED ]] || fail "shard 0 ended $state"
state=$(wait_job "$MERGE_JOB")
[[ $state == CANCELLED ]] || fail "the merge job ended $state; expected CANCELLED with its dependency"
[[ -e $WORK/cancel/$level.shard-1-of-2 ]] && fail "the cancelled task left $level.shard-1-of-2"
[[ -e $WORK/cancel/$level.shard-0-of-2 ]] || fail "shard 0 was not written"
[[ -e $WORK/cancel/$level ]] && fail "a level file exists without shard 1"
if "$KALAH" db merge --dir "$WORK/cancel" --keep-shards >"$WORK/merge.txt" 2>&1; then
    fail "kalah db merge accepted an incomplete set: $(cat "$WORK/merge.txt")"
fi
[[ -e $WORK/cancel/$level ]] && fail "the refused merge left a level file"
"$KALAH" db verify "$WORK/cancel" >"$WORK/verify2.txt" || fail "kalah db verify after the cancel: $(tail -n 5 "$WORK/verify2.txt")"
step "ok: cancelled task left no shard file, merge cancelled and refused, verify passes"

step "the same submit command again: only shard 1, then the merge"
submit "$WORK/cancel" 2
tasks=$(scontrol show job "$ARRAY" -o | grep -o 'ArrayTaskId=[0-9]*' | cut -d= -f2 | sort -u | paste -sd,)
[[ $tasks == 1 ]] || fail "resubmitted tasks '$tasks', expected 1 only"
state=$(wait_job "$MERGE_JOB")
[[ $state == COMPLETED ]] || fail "merge job $MERGE_JOB ended $state"
cmp "$WORK/full/$level" "$WORK/cancel/$level" || fail "resubmitted level differs from the unsharded build"
"$KALAH" db verify "$WORK/cancel" >"$WORK/verify3.txt" || fail "kalah db verify: $(tail -n 5 "$WORK/verify3.txt")"
step "ok: level completed by resubmitting the missing task, byte-identical, verified"

step "proof workers: kalah prove --init of Kalah($PROVE_PITS,$PROVE_SEEDS) at depth $PROVE_DEPTH, then job arrays of scripts/slurm-prove.sh"
want=$("$KALAH" solve --pits "$PROVE_PITS" --seeds "$PROVE_SEEDS" --threads 1 --json --quiet | json value)
[[ $want =~ ^-?[0-9]+$ ]] || fail "kalah solve gave no value: '$want'"
P=$WORK/proof
"$KALAH" prove "$P" --pits "$PROVE_PITS" --seeds "$PROVE_SEEDS" --depth "$PROVE_DEPTH" --init --quiet >/dev/null
# Submits the workers $1 (sbatch --array syntax) with `kalah prove` options $2; sets ARRAY.
prove_array() {
    ARRAY=$(DIR=$P KALAH=$KALAH TT_MB=64 LEASE=60 EXTRA=$2 sbatch --parsable --array="$1" \
        --mem=1G --time=10 --chdir="$P" --output="$WORK/prove-%A_%a.out" --export=ALL \
        "$ROOT/scripts/slurm-prove.sh") || fail "sbatch of the proof workers failed"
    ARRAY=${ARRAY%%;*}
}
# The whole array's tasks $2.. must end COMPLETED.
prove_wait() {
    local i state
    for i in "${@:2}"; do
        state=$(wait_job "$1_$i")
        [[ $state == COMPLETED ]] || fail "proof worker $1_$i ended $state: $(tail -n 5 "$WORK/prove-$1_$i.out" 2>/dev/null)"
    done
}
prove_status() { "$KALAH" prove "$P" --status --json | json "$1"; }
# Two workers stopped after 4 units each: the proof is under way, not done, and resumes.
prove_array 0-1 "--max-units 4"
prove_wait "$ARRAY" 0 1
[[ $(prove_status proved) == False ]] || fail "proved after 8 units (expected more work)"
[[ $(prove_status result_files) == 2 ]] || fail "$(prove_status result_files) result files after two workers, expected 2"
step "ok: two workers shared the directory, stopped early, proof not done yet"
# Three more to the end.
prove_array 0-2 ""
prove_wait "$ARRAY" 0 1 2
[[ $(prove_status proved) == True ]] || fail "kalah prove --status: not proved after the workers ended"
got=$(prove_status value)
[[ $got == "$want" ]] || fail "the workers proved $got, kalah solve says $want"
files=$(prove_status result_files)
((files >= 3)) || fail "$files result files: the second array did no work?"
step "ok: the job arrays proved $got, as kalah solve ($files result files)"

step "PASS in $((SECONDS - t0)) s (level $K of Kalah(6,·), $N shards and 2 shards; proof of Kalah($PROVE_PITS,$PROVE_SEEDS))"
