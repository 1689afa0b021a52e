//! `scripts/kdb.py`, a database reader written from `db-format/FORMAT.md` alone in Python,
//! against `kalah db probe` and the Rust writer's checksums: if FORMAT.md is complete, the two
//! readers agree on every position and the Python XXH3-64 matches every header.
//!
//! Skipped, with a message, where `python3` is not installed (it is in CI).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;

mod common;
use common::python_present;

fn kalah() -> Command {
    Command::cargo_bin("kalah").unwrap()
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/kdb.py")
}

/// Runs `python3 scripts/kdb.py ARGS`: (exit code, stdout, stderr).
fn kdb(args: &[&str]) -> (i32, String, String) {
    let out = Process::new("python3")
        .arg(script())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn build(dir: &Path, pits: u32, k: u32, rules: &[&str]) {
    common::db::built(dir, pits, k, &[&["--threads", "1"], rules].concat());
}

/// The `value:` and `margin:` figures of a probe report, in order.
fn figures(text: &str) -> Vec<(i32, i32)> {
    let field = |line: &str| -> i32 {
        let word = line.split_whitespace().nth(1).unwrap_or("");
        word.trim_start_matches('+')
            .parse()
            .unwrap_or_else(|_| panic!("not a number in {line:?}"))
    };
    let values: Vec<i32> = text
        .lines()
        .filter(|l| l.starts_with("value:"))
        .map(field)
        .collect();
    let margins: Vec<i32> = text
        .lines()
        .filter(|l| l.starts_with("margin:"))
        .map(field)
        .collect();
    values.into_iter().zip(margins).collect()
}

/// `count` random positions of `pits` pits with at most `max_k` seeds on the board, random
/// stores and side to move (a fixed xorshift stream, so a failure reproduces).
fn positions(pits: usize, max_k: u64, count: usize, mut seed: u64) -> Vec<String> {
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    (0..count)
        .map(|_| {
            let k = next() % (max_k + 1);
            let mut cells = vec![0u64; 2 * pits];
            for _ in 0..k {
                let i = (next() % (2 * pits) as u64) as usize;
                cells[i] += 1;
            }
            let row = |c: &[u64]| c.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
            let side = if next() % 2 == 0 { "A" } else { "B" };
            format!(
                "{}/{}/{}/{}/{side}",
                row(&cells[..pits]),
                next() % 20,
                row(&cells[pits..]),
                next() % 20
            )
        })
        .collect()
}

fn compare(pits: usize, k: u32, rules: &[&str], seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), pits as u32, k, rules);
    let db = dir.path().to_str().unwrap();

    // Every level's checksum, recomputed in Python, equals the one the Rust writer stored.
    let (code, out, err) = kdb(&["verify", db]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("ok ")).count(),
        k as usize + 1,
        "{out}"
    );

    let list = positions(pits, k as u64, 40, seed);
    let mut args = vec!["probe", db];
    for p in &list {
        args.push("--position");
        args.push(p);
    }
    args.extend_from_slice(rules);
    let (code, out, err) = kdb(&args);
    assert_eq!(code, 0, "{out}{err}");
    let python = figures(&out);
    assert_eq!(python.len(), list.len(), "{out}");

    for (p, py) in list.iter().zip(&python) {
        let rust = kalah()
            .args(["db", "probe", "--db", db, "--position", p])
            .args(rules)
            .assert()
            .success();
        let rust = figures(&String::from_utf8_lossy(&rust.get_output().stdout));
        assert_eq!(rust.len(), 1, "{p}");
        assert_eq!(
            &rust[0], py,
            "position {p}: kalah db probe (value, margin) vs kdb.py"
        );
    }
}

#[test]
fn python_reader_agrees_with_db_probe_standard_rules() {
    if !python_present("scripts/kdb.py") {
        return;
    }
    compare(4, 10, &[], 0x9e37_79b9_7f4a_7c15);
}

#[test]
fn python_reader_agrees_with_db_probe_empty_capture_mover_end() {
    if !python_present("scripts/kdb.py") {
        return;
    }
    compare(
        3,
        12,
        &["--capture", "empty", "--end", "mover"],
        0x2545_f491_4f6c_dd1d,
    );
}

#[test]
fn python_hash_matches_every_input_length_class() {
    if !python_present("scripts/kdb.py") {
        return;
    }
    // Payload lengths 1..=21 (m = 1), 1..=286 (m = 2) and up to 1287 (m = 3, several
    // 1024-byte blocks): every branch of XXH3-64 against the Rust writer's checksum.
    let (code, out, err) = kdb(&["selftest"]);
    assert_eq!(code, 0, "{out}{err}");
    for (pits, k) in [(1, 20), (2, 10), (3, 8)] {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), pits, k, &[]);
        let (code, out, err) = kdb(&["verify", dir.path().to_str().unwrap()]);
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(
            out.lines().filter(|l| l.starts_with("ok ")).count(),
            k as usize + 1,
            "{out}"
        );
    }
}

#[test]
fn python_reader_rejects_bad_files_with_a_message() {
    if !python_present("scripts/kdb.py") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 3, 6, &[]);
    let name = "m3-standard-single-ccw-skip-either-owner-k006.kdb";
    let good = fs::read(dir.path().join(name)).unwrap();
    let bad_dir = tempfile::tempdir().unwrap();
    let path = bad_dir.path().join(name);
    let file = path.to_str().unwrap();
    let check = |bytes: &[u8], args: &[&str], want: &str| {
        fs::write(&path, bytes).unwrap();
        let (code, out, err) = kdb(args);
        assert_eq!(code, 1, "{want}: {out}{err}");
        assert!(
            (out.contains(want) || err.contains(want)) && !err.contains("Traceback"),
            "expected {want:?}: {out}{err}"
        );
    };

    let mut flipped = good.clone();
    *flipped.last_mut().unwrap() ^= 0x01;
    check(&flipped, &["verify", file], "payload checksum mismatch");
    check(
        &good[..good.len() - 1],
        &["verify", file],
        "truncated or padded",
    );
    check(&good[..40], &["info", file], "truncated header");
    let mut magic = good.clone();
    magic[0] = b'X';
    check(&magic, &["info", file], "not a Kalah database level file");
    let mut version = good.clone();
    version[8] = 2;
    check(&version, &["info", file], "unsupported format version 2");
    let mut code = good.clone();
    code[13] = 3;
    check(&code, &["info", file], "unknown capture rule code 3");
    let mut range = good.clone();
    range[64] = 100;
    check(&range, &["verify", file], "payload checksum mismatch");
    // The same entry with the header's checksum rewritten to match: the range check rejects it.
    fs::write(&path, &range).unwrap();
    let code = format!(
        "import sys; sys.path.insert(0, {dir:?}); import kdb; \
         print(kdb.xxh3_64(open({file:?}, 'rb').read()[64:]))",
        dir = script().parent().unwrap().to_str().unwrap()
    );
    let out = Process::new("python3")
        .args(["-c", &code])
        .output()
        .unwrap();
    let sum: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    range[32..40].copy_from_slice(&sum.to_le_bytes());
    check(&range, &["verify", file], "an entry lies outside -6..=6");
    // A file of other rules is never used for a position.
    check(
        &good,
        &[
            "probe",
            file,
            "--position",
            "1,0,2/0/0,3,0/0/A",
            "--capture",
            "empty",
        ],
        "solved under other rules",
    );
    check(
        &good,
        &["probe", file, "--position", "1,0,x/0/0,3,0/0/A"],
        "must be whole numbers",
    );
}
