# Sourced by the scripts that time `kalah db build` under /usr/bin/time (db-parts.sh,
# db-shard-speed.sh), from the repository root: sets KALAH, the kalah binary (the
# caller's KALAH, or target/release/kalah), and stops the script where /usr/bin/time is
# missing.
KALAH=${KALAH:-$PWD/target/release/kalah}
[[ -x /usr/bin/time ]] || {
    echo "needs /usr/bin/time (apt-get install time)" >&2
    exit 1
}
