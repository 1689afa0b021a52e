# Sourced by the table scripts (results.sh, variant-tables.sh), run from the repository
# root: the options they share and what each table records of its run.

# table_defaults MAX TT: the defaults of what table_option sets: a limit of MAX seconds a
# case, a TT MB transposition table, 2 threads, nice 0 and no reuse.
table_defaults() {
  max=$1
  tt=$2
  threads=2
  nice=0
  reuse=0
}

# table_option "$@": when $1 is an option both table scripts take (--max-seconds N,
# --tt-mb MB, --threads T, --nice N: how each solve runs; --reuse: keep stored runs), sets
# max, tt, threads, nice or reuse and used to the words it took; otherwise used=0.
table_option() {
  used=2
  case "$1" in
    --max-seconds) max=$2 ;;
    --tt-mb) tt=$2 ;;
    --threads) threads=$2 ;;
    --nice) nice=$2 ;;
    --reuse) reuse=1; used=1 ;;
    *) used=0 ;;
  esac
}

# table_options "OPT VAR ..." "$@": reads the script's command line: the options of
# table_option, and the script's own given as pairs (OPT N sets variable VAR to N); any
# other word exits 2.
table_options() {
  local -a own
  read -r -a own <<<"$1"
  shift
  local i
  while [ $# -gt 0 ]; do
    table_option "$@"
    for ((i = 0; used == 0 && i < ${#own[@]}; i += 2)); do
      if [ "$1" = "${own[i]}" ]; then
        printf -v "${own[i + 1]}" '%s' "$2"
        used=2
      fi
    done
    if [ "$used" = 0 ]; then echo "unknown option $1" >&2; exit 2; fi
    shift "$used"
  done
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
