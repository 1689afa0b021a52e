//! `kalah db build` for the tests that need a small database.

use std::path::Path;
use std::process::Output;

/// Runs `kalah db build --pits PITS --max-seeds K --no-timings --out DIR ARGS`.
pub fn build(dir: &Path, pits: u32, max_seeds: u32, args: &[&str]) -> Output {
    assert_cmd::Command::cargo_bin("kalah")
        .unwrap()
        .args(["db", "build", "--no-timings"])
        .args(["--pits", &pits.to_string()])
        .args(["--max-seeds", &max_seeds.to_string()])
        .arg("--out")
        .arg(dir)
        .args(args)
        .output()
        .unwrap()
}

/// As [`build`], which must succeed: its report on stdout.
pub fn built(dir: &Path, pits: u32, max_seeds: u32, args: &[&str]) -> String {
    let out = build(dir, pits, max_seeds, args);
    assert!(
        out.status.success(),
        "db build --pits {pits} --max-seeds {max_seeds} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
