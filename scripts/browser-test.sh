#!/usr/bin/env bash
# The explorer page in a real browser: installs Debian's chromium and chromium-driver
# (apt-get, as root), builds the 12-seed database of Kalah(6,4), then runs the opt-in
# WebDriver tests (tools/tests/browser.rs), which start `kalah serve` and chromedriver,
# check the page against `kalah moves`, links to other games' positions and the
# Kalah(6,6) start from the committed proofs, and write results/serve-screenshot.png.
#
#   bash scripts/browser-test.sh [DB_DIR]
#
# DB_DIR (default target/browser-db) keeps the database between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
# Debian's names; chromedriver may be in /usr/lib/chromium/ without a link on PATH.
export PATH="$PATH:/usr/lib/chromium"
if ! command -v chromedriver >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y chromium chromium-driver
fi
db="${1:-target/browser-db}"
cargo build --locked --release -p tools
./target/release/kalah db build --pits 6 --max-seeds 12 --out "$db" --no-timings >/dev/null
KALAH_BROWSER_DB="$(cd "$db" && pwd)" \
  KALAH_CHROMEDRIVER="$(command -v chromedriver)" \
  KALAH_CHROMIUM="$(command -v chromium)" \
  cargo test --locked --release -p tools --test browser -- --ignored --nocapture
echo "browser test passed in $(( $(date +%s) - start )) s; screenshot: results/serve-screenshot.png"
