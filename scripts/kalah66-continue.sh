#!/usr/bin/env bash
# Continue the Kalah(6,6) proofs committed in results/proofs/ (results/kalah66.md, "The
# Kalah(6,6) runs"): one worker a proof, one search thread each, at low priority, for at
# most SECONDS of wall time (default 9000: a session less its last half hour), then each
# proof's status. A worker stopped by the limit loses only its unit in flight (at most
# --unit-seconds of CPU); commit results/proofs/*/results/ afterwards.
#
#   scripts/kalah66-continue.sh [SECONDS]
#
# KALAH: the kalah binary (default target/release/kalah, built if missing). TT_MB: each
# worker's transposition table (default 4096; without DB_SEEDS each worker also builds
# the 25-seed endgame table, about 1.8 GB of its own). CAPTURES: the proofs to continue
# (default "empty standard"). UNIT_SECONDS: each unit's budget before it is split
# (default 1800; the start proofs ran at 600, results/kalah66.md, "Units that end:
# splits"). DB_SEEDS: when set (30 or 31, say), each worker probes an on-disk
# database of levels 0..=DB_SEEDS for its capture rule instead of the endgame table
# (--endgame none: the workers share its pages, and on a fixed set of units it was
# faster than the table beside it), built first under DB_DIR (default /tmp/kalah66-db;
# levels already there are verified and kept: 31 levels are about 15 GB and a quarter
# of an hour of one core, results/kalah66.md, "What an endgame level buys"). DB_FORMAT:
# the format of the levels the build adds (default byte, the fastest to probe; compact
# for a database larger than the page cache, 34 levels say). DB_READY: when set (to 1),
# the database under DB_DIR is taken as it is, complete and checked beforehand (`kalah
# db verify`), without the build's check of every level present (for 34 compact levels,
# every block of 21 GB decoded at each start). WORKERS:
# workers a proof (default 1; with one proof, 2 fills this machine's two cores: they
# share the database's pages, and each has its own table). Worker i's log is
# results/proofs/6x6-<capture>.log for i = 1 and 6x6-<capture>.<i>.log above it.
# COMMIT_EVERY: when set (1800, say), commit the proofs' results/ every COMMIT_EVERY
# seconds while the workers run, and once more when they stop, so that a session that
# ends or is interrupted keeps what was answered before its last snapshot (only those
# paths go into each commit; nothing is committed when no record was added).
# SECOND: when set (to 1), the workers give the proofs' needed units their second answers
# (kalah prove --second-answers, into results/proofs/6x6-<capture>/check/; results/
# kalah66.md, "Second answers") instead of working on the proofs; their logs are
# 6x6-<capture>.second.log and so on. THREADS: search threads a worker (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT=${1:-9000}
KALAH=${KALAH:-target/release/kalah}
TT_MB=${TT_MB:-4096}
if [[ ! -x $KALAH ]]; then
    cargo build --release --locked -p tools
fi
CAPTURES=${CAPTURES:-empty standard}
UNIT_SECONDS=${UNIT_SECONDS:-1800}
WORKERS=${WORKERS:-1}
THREADS=${THREADS:-1}
DB_DIR=${DB_DIR:-/tmp/kalah66-db}
mode=(--worker)
kind=
if [[ -n ${SECOND:-} ]]; then
    mode=(--second-answers)
    kind=.second
fi
PROOFS=${PROOFS:-$(for c in $CAPTURES; do printf '6x6-%s ' "$c"; done)}
# The capture rule of proof $1, from its name.
capture_of() {
    local c=${1#6x6-}
    echo "${c%%-*}"
}
for p in $PROOFS; do
    dir=results/proofs/$p
    turn=${p#6x6-*-}
    if [[ ! -e $dir/proof.txt && $turn != "$p" ]]; then
        c=$(capture_of "$p")
        pos=$("$KALAH" play --pits 6 --seeds 6 --capture "$c" ${turn//A1/A1+ } |
            sed -n 's/^position: //p')
        guess=GUESS_${c}_$turn
        "$KALAH" prove "$dir" --capture "$c" --position "$pos" --depth 3 \
            --guess "${!guess:-0}" --init --quiet >/dev/null
    fi
done
records=()
for p in $PROOFS; do
    if [[ -n $kind ]]; then
        mkdir -p "results/proofs/$p/check/results"
        records+=("results/proofs/$p/check/results")
    else
        records+=("results/proofs/$p/proof.txt" "results/proofs/$p/.gitignore"
            "results/proofs/$p/results")
    fi
done
# Commit the proofs' records, if any was added since the last commit.
snapshot() {
    git add -- "${records[@]}"
    if ! git diff --cached --quiet -- "${records[@]}"; then
        git commit -q -m "results/proofs: the records of $(date -u +%H:%M) UTC ($1)" \
            -- "${records[@]}" && git log --oneline -1
    fi
}
pids=()
for p in $PROOFS; do
    c=$(capture_of "$p")
    db=()
    if [[ -n ${DB_SEEDS:-} && -z ${DB_READY:-} ]]; then
        nice -n 19 "$KALAH" db build --pits 6 --capture "$c" --max-seeds "$DB_SEEDS" \
            --format "${DB_FORMAT:-byte}" --out "$DB_DIR/$c"
    fi
    if [[ -n ${DB_SEEDS:-} ]]; then
        db=(--db "$DB_DIR/$c" --endgame none)
    fi
    dir=results/proofs/$p
    for ((i = 1; i <= WORKERS; i++)); do
        log=$dir$kind.log
        ((i == 1)) || log=$dir$kind.$i.log
        timeout --signal=KILL "$LIMIT" nice -n 19 "$KALAH" prove "$dir" "${mode[@]}" \
            --threads "$THREADS" --tt-mb "$TT_MB" --unit-seconds "$UNIT_SECONDS" "${db[@]}" \
            2>"$log" &
        pids+=($!)
    done
done
snapper=
if [[ -n ${COMMIT_EVERY:-} ]]; then
    # The TERM below lands in `wait` (sleep is not waited on in the foreground) or
    # after a commit in progress has finished, never halfway through one; the sleep
    # is ended with it, so that nothing is left holding the script's output open.
    (
        nap=
        trap '[[ -z $nap ]] || kill "$nap" 2>/dev/null; exit 0' TERM
        while true; do
            sleep "$COMMIT_EVERY" &
            nap=$!
            wait "$nap"
            snapshot "automatic snapshot, every $COMMIT_EVERY s" || true
        done
    ) &
    snapper=$!
fi
for p in "${pids[@]}"; do
    wait "$p" || true
done
if [[ -n $snapper ]]; then
    kill -TERM "$snapper" || true
    wait "$snapper" || true
    # A failed commit (no git identity, say) is reported, and the status still printed.
    snapshot "the workers stopped" ||
        echo "kalah66-continue.sh: the last snapshot failed; commit ${records[*]} by hand" >&2
fi
for p in $PROOFS; do
    "$KALAH" prove "results/proofs/$p" --status
done
