//! Damaged databases, odd files and resource flags: what a careless or hostile user can
//! hand the `kalah` command gets a clear error, never a panic, a hang or an impossible
//! value. One Kalah(6) database of levels 0..=12 is built once per test binary and copied
//! by each test that damages it.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;
use db_format::{file_name, Ranker, RulesKey, HEADER_LEN};

fn kalah() -> Command {
    Command::cargo_bin("kalah").unwrap()
}

/// A 12-seed position (A to move) on the principal variation of which the damaged
/// byte lies: its own entry in level 12.
const POS12: &str = "2,1,0,1,0,1/10/1,0,2,1,0,3/8/A";

/// The intact database, levels 0..=12 of standard Kalah(6), built once.
fn pristine() -> &'static Path {
    static DB: OnceLock<tempfile::TempDir> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        kalah()
            .args([
                "db",
                "build",
                "--pits",
                "6",
                "--max-seeds",
                "12",
                "--no-timings",
            ])
            .arg("--out")
            .arg(dir.path())
            .assert()
            .success();
        dir
    })
    .path()
}

/// A fresh copy of the intact database.
fn copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for e in fs::read_dir(pristine()).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
    }
    dir
}

/// The level file of `k` seeds in `dir`.
fn level(dir: &Path, k: u32) -> PathBuf {
    dir.join(file_name(&RulesKey::standard(6), k))
}

/// Writes `byte` over the entry of the board `cells` (mover's pits first) in its level.
fn set_entry(dir: &Path, cells: &[u8; 12], byte: u8) -> PathBuf {
    let k: u32 = cells.iter().map(|&c| u32::from(c)).sum();
    let rank = Ranker::new(12, k).unwrap().rank(cells);
    let path = level(dir, k);
    let mut bytes = fs::read(&path).unwrap();
    bytes[HEADER_LEN + rank as usize] = byte;
    fs::write(&path, &bytes).unwrap();
    path
}

const CELLS12: [u8; 12] = [2, 1, 0, 1, 0, 1, 1, 0, 2, 1, 0, 3];

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_self_contradicting_database_is_an_error_naming_the_damaged_file() {
    let dir = copy();
    // +12, in range but wrong: the principal variation finds no move that attains it.
    let path = set_entry(dir.path(), &CELLS12, 0x0c);
    let out = kalah()
        .args(["solve", "--quiet", "--db"])
        .arg(dir.path())
        .args(["--position", POS12])
        .assert()
        .failure()
        .code(1);
    let err = text(&out.get_output().stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("contradicts itself"), "{err}");
    assert!(err.contains(POS12), "{err}");
    assert!(
        err.contains(&*path.file_name().unwrap().to_string_lossy()) && err.contains("checksum"),
        "{err}"
    );
}

#[test]
fn an_out_of_range_entry_is_never_printed() {
    let dir = copy();
    let path = set_entry(dir.path(), &CELLS12, 0x7f);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    for args in [
        &["db", "probe", "--position", POS12, "--db"][..],
        &["solve", "--quiet", "--position", POS12, "--db"][..],
    ] {
        let out = kalah()
            .args(args)
            .arg(dir.path())
            .assert()
            .failure()
            .code(1);
        let (stdout, err) = (
            text(&out.get_output().stdout),
            text(&out.get_output().stderr),
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!stdout.contains("+127"), "{args:?}: {stdout}");
        assert!(
            err.contains(&name) && err.contains("outside -12..=12"),
            "{args:?}: {err}"
        );
    }
    // The intact database answers the same position.
    let out = kalah()
        .args(["db", "probe", "--position", POS12, "--db"])
        .arg(pristine())
        .assert()
        .success();
    assert!(text(&out.get_output().stdout).contains("value:"));
}

#[test]
fn named_pipes_are_refused_not_read() {
    let dir = copy();
    let path = level(dir.path(), 12);
    fs::remove_file(&path).unwrap();
    let fifo = |p: &Path| {
        let ok = std::process::Command::new("mkfifo")
            .arg(p)
            .status()
            .unwrap();
        assert!(ok.success());
    };
    fifo(&path);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let shards = tempfile::tempdir().unwrap();
    let shard = shards.path().join(format!("{name}.shard-0-of-2"));
    fifo(&shard);
    let d = dir.path().to_str().unwrap();
    let p = path.to_str().unwrap();
    let s = shards.path().to_str().unwrap();
    for args in [
        vec!["db", "verify", d],
        vec!["db", "info", p],
        vec!["db", "probe", "--db", d, "--position", POS12],
        vec!["solve", "--quiet", "--db", d, "--position", POS12],
        vec!["db", "merge", "--dir", s],
    ] {
        let out = kalah()
            .args(&args)
            .timeout(std::time::Duration::from_secs(20))
            .assert()
            .failure();
        let err = text(&out.get_output().stderr) + &text(&out.get_output().stdout);
        assert!(err.contains("named pipe"), "{args:?}: {err}");
    }
}
