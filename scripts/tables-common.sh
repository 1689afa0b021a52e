# Sourced by the table scripts (results.sh, variant-tables.sh), run from the repository
# root: the options they share and what each table records of its run.

# solve_option "$@": when $1 is an option that sets how each solve runs (--max-seconds N,
# --tt-mb MB, --threads T, --nice N), sets max, tt, threads or nice and used=2 (the words
# it took); otherwise used=0.
solve_option() {
  used=2
  case "$1" in
    --max-seconds) max=$2 ;;
    --tt-mb) tt=$2 ;;
    --threads) threads=$2 ;;
    --nice) nice=$2 ;;
    *) used=0 ;;
  esac
}

# tables_setup: builds the release `kalah` and sets K (its path), commit (HEAD, marked
# when solver/ or tools/ have uncommitted changes), cpu and mem (the machine's).
tables_setup() {
  cargo build --release -p tools >&2
  K=./target/release/kalah
  commit=$(git rev-parse --short HEAD)
  git diff --quiet HEAD -- solver tools || commit="$commit (+ uncommitted changes)"
  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
  mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)
}

# json_field KEY < json: a number or string field of a one-line JSON object.
json_field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }

# signed N: N with its sign (+3, 0, -2).
signed() { if [ "$1" -gt 0 ]; then echo "+$1"; else echo "$1"; fi; }
