//! Resource flags: thread counts, table and endgame sizes, and clockwise solves beyond the
//! memory available are refused with their figures (exit 2) before any work starts.

use std::fs;
use std::path::Path;

use assert_cmd::Command;

mod common;
use common::refused;

fn kalah() -> Command {
    Command::cargo_bin("kalah").unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn thread_counts_are_capped_and_zero_refused_everywhere() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let over = (4 * cores + 1).to_string();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    for cmd in [
        vec!["solve", "--pits", "3", "--seeds", "2"],
        vec!["verify", "--quick"],
        vec![
            "db",
            "build",
            "--pits",
            "3",
            "--max-seeds",
            "2",
            "--out",
            out,
        ],
    ] {
        refused(&[&cmd[..], &["--threads", "0"]].concat(), "0 threads");
        refused(&[&cmd[..], &["--threads", &over]].concat(), "per core");
    }
    assert!(!tmp.path().join(".lock").exists());
    // The cap itself is accepted and solves.
    let max = (4 * cores).to_string();
    kalah()
        .args([
            "solve",
            "--quiet",
            "--pits",
            "3",
            "--seeds",
            "2",
            "--threads",
            &max,
        ])
        .assert()
        .success();
}

#[test]
fn a_table_beyond_the_memory_available_or_of_zero_mib_is_refused() {
    for cmd in [
        vec!["solve", "--pits", "6", "--seeds", "4"],
        vec!["verify", "--cases", "6x4-standard"],
        vec!["bench", "--quiet"],
    ] {
        refused(&[&cmd[..], &["--tt-mb", "0"]].concat(), "0 MiB");
        if Path::new("/proc/meminfo").exists() {
            refused(
                &[&cmd[..], &["--tt-mb", "18446744073709551615"]].concat(),
                "of memory available",
            );
        }
    }
}

#[test]
fn a_server_whose_tables_exceed_the_memory_available_or_of_zero_mib_is_refused() {
    refused(&["serve", "--tt-mb", "0"], "0 MiB");
    if Path::new("/proc/meminfo").exists() {
        for flag in ["--tt-mb", "--endgame-mb"] {
            refused(
                &["serve", flag, "18446744073709551615"],
                "of memory available",
            );
        }
        // Each table fits, but not four searches' worth of them.
        let avail = mem_available_mib();
        let third = (avail / 3).max(1).to_string();
        refused(
            &["serve", "--max-searches", "4", "--tt-mb", &third],
            "of memory available",
        );
    }
}

/// MemAvailable in MiB.
fn mem_available_mib() -> u64 {
    let text = fs::read_to_string("/proc/meminfo").unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("MemAvailable:"))
        .unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        >> 10
}

#[test]
fn a_clockwise_solve_too_large_for_memory_is_refused_with_its_figures() {
    if Path::new("/proc/meminfo").exists() {
        // Kalah(6,4): every board of up to 48 seeds, over 10^12 positions.
        refused(&["solve", "--direction", "cw"], "1399358844975 positions");
    }
    // A small one runs, and says what it holds.
    let out = kalah()
        .args(["solve", "--direction", "cw", "--pits", "3", "--seeds", "2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("retrograde analysis of every board with up to 12 seeds ("),
        "{err}"
    );
}
