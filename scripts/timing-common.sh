# Sourced by the timing scripts (speed-goals.sh, alternate.sh): builds the release
# `kalah` and sets `kalah` (its path), `commit` (HEAD, marked when solver/ or tools/ have
# uncommitted changes) and `out` (a temporary file; it and its `.t` and `.walls` siblings
# are removed on exit). Run from the repository root.
cargo build --release -p tools >&2
kalah=./target/release/kalah
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- solver tools || commit="$commit (+ uncommitted changes)"
out=$(mktemp)
trap 'rm -f "$out" "$out.t" "$out.walls"' EXIT
