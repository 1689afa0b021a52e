//! Damaged databases, odd files and resource flags: what a careless or hostile user can
//! hand the `kalah` command gets a clear error, never a panic, a hang or an impossible
//! value. One Kalah(6) database of levels 0..=12 is built once per test binary and copied
//! by each test that damages it.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;
use db_format::{file_name, Ranker, RulesKey, HEADER_LEN};

mod common;
use common::assert_has;
use common::db::{build, built};
use common::refused;

fn kalah() -> Command {
    Command::cargo_bin("kalah").unwrap()
}

/// A 12-seed position (A to move) on the principal variation of which the damaged
/// byte lies: its own entry in level 12.
const POS12: &str = "2,1,0,1,0,1/10/1,0,2,1,0,3/8/A";

/// The intact database, levels 0..=12 of standard Kalah(6) in files of one byte an
/// entry, built once.
fn pristine() -> &'static Path {
    static DB: OnceLock<tempfile::TempDir> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        // One byte an entry: the tests write bytes at an entry's offset.
        built(dir.path(), 6, 12, &["--format", "byte"]);
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

/// A named pipe at `p`.
fn fifo(p: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .unwrap();
    assert!(ok.success());
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `command`'s standard output; it must succeed (the output is shown where it does not).
fn stdout_of_success(command: &mut Command) -> String {
    let out = command.output().unwrap();
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}");
    t
}

#[test]
fn a_database_built_wrong_is_an_error_saying_it_contradicts_itself() {
    let dir = copy();
    // +12, in range but wrong, and the header's checksum made to match: a file that was
    // built wrong, not damaged. The principal variation finds no move that attains it.
    let path = set_entry(dir.path(), &CELLS12, 0x0c);
    let mut bytes = fs::read(&path).unwrap();
    let sum = db_format::checksum(&bytes[HEADER_LEN..]);
    bytes[32..40].copy_from_slice(&sum.to_le_bytes());
    fs::write(&path, &bytes).unwrap();
    let out = kalah()
        .args(["solve", "--quiet", "--db"])
        .arg(dir.path())
        .args(["--position", POS12])
        .assert()
        .failure()
        .code(1);
    let err = text(&out.get_output().stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_has(
        &err,
        &["contradicts itself", POS12, "the files were built wrong"],
    );
}

/// Runs `kalah ARGS DIR` (with `stdin`) and checks that it fails with status 1, an error
/// naming `name` and saying `says`, and prints no value.
fn refused_as_damaged(args: &[&str], dir: &Path, stdin: &str, name: &str, says: &str) {
    let out = kalah()
        .args(args)
        .arg(dir)
        .write_stdin(stdin)
        .assert()
        .failure()
        .code(1);
    let (stdout, err) = (
        text(&out.get_output().stdout),
        text(&out.get_output().stderr),
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(
        !stdout.contains("value") && !stdout.contains("margin"),
        "{args:?}: {stdout}"
    );
    assert!(err.contains(name) && err.contains(says), "{args:?}: {err}");
}

/// The commands that read values from a database, each given `pos`, with `--db` last.
fn probing_commands(pos: &str) -> [(Vec<&str>, String); 3] {
    [
        (
            vec!["db", "probe", "--position", pos, "--db"],
            String::new(),
        ),
        (
            vec!["solve", "--quiet", "--position", pos, "--db"],
            String::new(),
        ),
        (vec!["db", "probe", "--batch", "--db"], format!("{pos}\n")),
    ]
}

/// The damage: a byte of a one-byte level file changed (to a value in range but
/// wrong, or out of range). Every command that reads values refuses the file when it
/// opens it, by its checksum, before printing anything.
#[test]
fn a_changed_entry_is_refused_before_any_value_is_printed() {
    for byte in [0x0c, 0x7f] {
        let dir = copy();
        let path = set_entry(dir.path(), &CELLS12, byte);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for (args, stdin) in probing_commands(POS12) {
            refused_as_damaged(
                &args,
                dir.path(),
                &stdin,
                &name,
                "payload checksum mismatch",
            );
        }
    }
    // The intact database answers the same position.
    let out = kalah()
        .args(["db", "probe", "--position", POS12, "--db"])
        .arg(pristine())
        .assert()
        .success();
    assert!(text(&out.get_output().stdout).contains("value:"));
}

/// A compact level file with a byte flipped in each of its regions (the header's
/// checksum and reserved bytes, the code table, a slot, a continuation): every command
/// that reads values refuses it with an error naming it.
#[test]
fn a_flipped_byte_in_any_region_of_a_compact_file_is_refused() {
    let pristine = tempfile::tempdir().unwrap();
    built(pristine.path(), 6, 8, &[]);
    let path = level(pristine.path(), 8);
    let f = db_format::LevelFile::open(&path, &RulesKey::standard(6), 8).unwrap();
    let layout = *f.compact().expect("a compact file").layout();
    assert!(layout.overflow_at < layout.len, "level 8 has continuations");
    let (table, slot, continuation) = (
        HEADER_LEN,
        HEADER_LEN + layout.slots_at as usize + 3,
        HEADER_LEN + layout.len as usize - 1,
    );
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let pos8 = "2,1,0,1,0,1/10/1,0,0,1,0,1/8/A";
    for (at, says) in [
        (33, "payload checksum mismatch"),
        (50, "corrupted database"),
        (table, "corrupted database: code table"),
        (slot, "payload checksum mismatch"),
        (continuation, "payload checksum mismatch"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        for e in fs::read_dir(pristine.path()).unwrap() {
            let e = e.unwrap();
            fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
        }
        let copy = level(dir.path(), 8);
        let mut bytes = fs::read(&copy).unwrap();
        bytes[at] ^= 0x01;
        fs::write(&copy, &bytes).unwrap();
        for (args, stdin) in probing_commands(pos8) {
            refused_as_damaged(&args, dir.path(), &stdin, &name, says);
        }
    }
}

#[test]
fn named_pipes_are_refused_not_read() {
    let dir = copy();
    let path = level(dir.path(), 12);
    fs::remove_file(&path).unwrap();
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

/// `kalah db verify DIR`: its exit status and output.
fn verify(dir: &Path) -> (Option<i32>, String) {
    let out = kalah()
        .args(["db", "verify", "--full-up-to", "100000", "--sample", "2000"])
        .arg(dir)
        .output()
        .unwrap();
    (out.status.code(), text(&out.stdout) + &text(&out.stderr))
}

#[test]
fn db_verify_passes_only_a_whole_sound_database_and_blames_only_the_damaged_level() {
    let (code, out) = verify(pristine());
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("levels 0..=12 re-derived and sound"), "{out}");

    // One damaged byte in level 6: level 6 is damaged, 7..=12 unverified, none wrong.
    let dir = copy();
    let mut bytes = fs::read(level(dir.path(), 6)).unwrap();
    bytes[HEADER_LEN + 10] ^= 1;
    fs::write(level(dir.path(), 6), &bytes).unwrap();
    let (code, out) = verify(dir.path());
    assert_eq!(code, Some(1), "{out}");
    assert!(!out.contains("WRONG"), "{out}");
    assert!(out.contains("DAMAGED") && out.contains("k006.kdb"), "{out}");
    for k in 7..=12 {
        assert!(out.contains(&format!("UNVERIFIED level {k:3}")), "{out}");
    }
    assert!(out.contains("levels 0..=5 re-derived and sound"), "{out}");

    // Directories that solve refuses or only partly uses: all refused, saying why.
    let other = tempfile::tempdir().unwrap();
    built(other.path(), 6, 3, &["--capture", "none"]);
    let none3 = other
        .path()
        .join(file_name(&RulesKey::standard(6), 3).replace("-standard-", "-none-"));
    type Damage = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Damage, &str)> = vec![
        (
            "level 0 deleted",
            Box::new(|d| fs::remove_file(level(d, 0)).unwrap()),
            "MISSING  level   0",
        ),
        (
            "a middle level deleted",
            Box::new(|d| fs::remove_file(level(d, 5)).unwrap()),
            "MISSING  level   5",
        ),
        (
            "level 12 copied to 13",
            Box::new(|d| {
                fs::copy(level(d, 12), level(d, 13)).unwrap();
            }),
            "MISNAMED",
        ),
        (
            "levels 3 and 4 swapped",
            Box::new(|d| {
                let t = d.join("t");
                fs::rename(level(d, 3), &t).unwrap();
                fs::rename(level(d, 4), level(d, 3)).unwrap();
                fs::rename(&t, level(d, 4)).unwrap();
            }),
            "MISNAMED",
        ),
        (
            "a level of other rules under this name",
            Box::new(move |d| {
                fs::copy(&none3, level(d, 3)).unwrap();
            }),
            "capture=none",
        ),
        (
            "no levels at all",
            Box::new(|d| {
                for k in 0..=12 {
                    fs::remove_file(level(d, k)).unwrap();
                }
            }),
            "holds no level files",
        ),
    ];
    for (what, damage, says) in cases {
        let dir = copy();
        damage(dir.path());
        let (code, out) = verify(dir.path());
        assert_eq!(code, Some(1), "{what}: {out}");
        assert!(out.contains(says), "{what}: {out}");
        assert!(!out.contains("WRONG"), "{what}: {out}");
    }
}

#[test]
fn a_second_build_into_one_directory_is_refused_and_a_dead_lock_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join(".lock");
    let build = || build(dir.path(), 3, 4, &[]);
    // A build that runs: this test's own process holds the lock.
    fs::write(&lock, std::process::id().to_string()).unwrap();
    let out = build();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("another build holds"), "{err}");
    assert!(!dir
        .path()
        .join(file_name(&RulesKey::standard(3), 0))
        .exists());
    // A killed build's lock (no such process): taken over, and removed at the end.
    fs::write(&lock, "4194999").unwrap();
    let out = build();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(dir
        .path()
        .join(file_name(&RulesKey::standard(3), 4))
        .exists());
    assert!(!lock.exists());
}

/// Runs `kalah args`, expecting it to be refused with exit status 2 and `says` in stderr.
#[test]
fn shard_and_damaged_level_messages_say_what_they_found() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let build = |extra: &[&str]| build(d, 3, 4, extra);
    assert!(build(&[]).status.success());
    let k4 = d.join(file_name(&RulesKey::standard(3), 4));
    fs::remove_file(&k4).unwrap();
    assert!(build(&["--shard", "0/2"]).status.success());
    assert!(build(&["--shard", "1/3"]).status.success());
    // db info on a valid shard describes it.
    let shard = d.join(format!(
        "{}.shard-0-of-2",
        k4.file_name().unwrap().to_string_lossy()
    ));
    let out = kalah().args(["db", "info"]).arg(&shard).output().unwrap();
    let t = text(&out.stdout) + &text(&out.stderr);
    assert!(out.status.success(), "{t}");
    assert_has(&t, &["shard:       0 of 2"]);
    assert!(!t.contains("bad magic"), "{t}");
    // Merging shards of two different counts says so.
    let out = kalah()
        .args(["db", "merge", "--dir"])
        .arg(d)
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_has(&err, &["different shard counts"]);
    assert!(!err.contains("corrupted"), "{err}");
    // A truncated or bad-magic level under its name: db build says to delete it.
    let k3 = d.join(file_name(&RulesKey::standard(3), 3));
    for damage in [
        &b"KALAHDB\0"[..],
        &b"not a database at all, nothing like one"[..],
    ] {
        fs::write(&k3, damage).unwrap();
        let out = build(&[]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("delete it to rebuild it"), "{err}");
    }
}

#[test]
fn a_db_or_data_path_that_is_missing_or_a_file_gets_its_own_message() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("afile");
    fs::write(&file, "x").unwrap();
    let missing = tmp.path().join("missing");
    let (f, m) = (file.to_str().unwrap(), missing.to_str().unwrap());
    let small = ["--pits", "3", "--seeds", "2"];
    // Paths that fail the same way for root as for anyone.
    let through = file.join("sub");
    let dangling = tmp.path().join("dangling");
    std::os::unix::fs::symlink(&missing, &dangling).unwrap();
    let looped = tmp.path().join("loop");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    let empty = tmp.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let (t, d, l, e) = (
        through.to_str().unwrap(),
        dangling.to_str().unwrap(),
        looped.to_str().unwrap(),
        empty.to_str().unwrap(),
    );
    for (args, says) in [
        (vec!["solve", "--quiet", "--db", m], "no such directory"),
        (vec!["solve", "--quiet", "--db", f], "not a directory"),
        (vec!["db", "probe", "--db", m], "no such directory"),
        (vec!["moves", "--quiet", "--db", f], "not a directory"),
        (
            vec!["solve", "--quiet", "--db", t],
            "a part of the path before the last is a file",
        ),
        (
            vec!["moves", "--quiet", "--db", d],
            "a symbolic link to a path that does not exist",
        ),
        (vec!["db", "probe", "--db", l], "cannot reach it"),
        (vec!["serve", "--db", m], "no such directory"),
        (
            vec!["serve", "--db", t],
            "a part of the path before the last",
        ),
        (vec!["solve", "--quiet", "--db", e], "k000.kdb is missing"),
        (
            vec!["db", "probe", "--db", e],
            "holds no level files for rules",
        ),
    ] {
        refused(&[&args[..], &small[..]].concat(), says);
    }
    refused(&["verify", "--quick", "--db", m], "no such directory");
    refused(&["verify", "--quick", "--data", m], "cannot read it");
    // Files that would block the read or never end.
    let pipe = tmp.path().join("fifo");
    fifo(&pipe);
    refused(
        &["verify", "--quick", "--data", pipe.to_str().unwrap()],
        "a named pipe, not a regular file",
    );
    refused(
        &["verify", "--quick", "--data", "/dev/null"],
        "a device, not a regular file",
    );
    // A data file with no case (or none quick) compares nothing: not a pass.
    let none = tmp.path().join("none.txt");
    fs::write(&none, "# no cases\n").unwrap();
    refused(
        &["verify", "--quick", "--data", none.to_str().unwrap()],
        "no case to verify",
    );
    refused(
        &["db", "build", "--pits", "3", "--max-seeds", "2", "--out", f],
        "not a directory",
    );
}

#[test]
fn an_unreadable_db_directory_is_named_as_such() {
    let tmp = tempfile::tempdir().unwrap();
    let locked = tmp.path().join("locked");
    fs::create_dir(&locked).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read_dir(&locked).is_ok() {
        // Root (or CAP_DAC_READ_SEARCH) reads a mode-000 directory anyway: there is no
        // unreadable directory to test with. The paths that fail for root too are in
        // a_db_or_data_path_that_is_missing_or_a_file_gets_its_own_message.
        eprintln!("skipped: this process reads a mode-000 directory (it runs as root)");
        return;
    }
    let l = locked.to_str().unwrap();
    for cmd in [
        vec!["solve", "--quiet", "--pits", "3", "--seeds", "2"],
        vec!["db", "probe", "--pits", "3", "--seeds", "2"],
    ] {
        refused(
            &[&cmd[..], &["--db", l]].concat(),
            "cannot read the directory",
        );
    }
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o700)).unwrap();
}

#[test]
fn values_are_worded_without_signs_that_fight() {
    // North to move, with its future gain read from the database.
    let pos = "2,1,0,1,0,1/10/1,0,2,1,0,3/8/B";
    let t = stdout_of_success(
        kalah()
            .args(["db", "probe", "--position", pos, "--db"])
            .arg(pristine()),
    );
    assert_has(&t, &["minus the future gain"]);
    assert!(!t.contains("- -"), "{t}");
    assert!(!t.contains("+ -"), "{t}");
    // A side that gains less than its opponent: no "gains -N more".
    let t =
        stdout_of_success(kalah().args(["solve", "--quiet", "--position", "0,0,1/0/3,3,3/0/A"]));
    assert_has(&t, &["fewer than the opponent"]);
    assert!(!t.contains("gains -"), "{t}");
    let out = kalah()
        .args(["solve", "--position", "99999999999,1,1/0/1,1,1/0/A"])
        .output()
        .unwrap();
    assert!(
        text(&out.stderr).contains("4294967295"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn options_a_command_would_ignore_are_refused() {
    let small = ["--pits", "3", "--seeds", "2"];
    for cmd in [vec!["moves", "--quiet"], vec!["show"], vec!["play"]] {
        refused(
            &[&cmd[..], &small[..], &["--pie"]].concat(),
            "does not use the pie rule",
        );
    }
    refused(
        &["db", "probe", "--pie", "--db", pristine().to_str().unwrap()],
        "does not use the pie rule",
    );
    let tmp = tempfile::tempdir().unwrap();
    refused(
        &[
            "db",
            "build",
            "--pie",
            "--pits",
            "3",
            "--max-seeds",
            "2",
            "--out",
            tmp.path().to_str().unwrap(),
        ],
        "does not use the pie rule",
    );
    assert!(!tmp.path().join(".lock").exists());
    refused(
        &[
            "solve",
            "--direction",
            "cw",
            "--pits",
            "3",
            "--seeds",
            "2",
            "--endgame",
            "4",
        ],
        "leave --endgame out",
    );
    // --seeds that names another game than the position's.
    refused(
        &["solve", "--seeds", "1", "--position", "2,2,2/0/2,2,2/0/A"],
        "the position holds 12 seeds, not the 6 of Kalah(3,1)",
    );
    kalah()
        .args([
            "solve",
            "--quiet",
            "--seeds",
            "2",
            "--position",
            "2,2,2/0/2,2,2/0/A",
        ])
        .assert()
        .success();
}

/// The options of a small, quiet proof: Kalah(3,2).
const SMALL_PROOF: [&str; 5] = ["--pits", "3", "--seeds", "2", "--quiet"];

/// A temporary directory, and the path in it of a proof directory not yet made.
fn unmade_proof_dir() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let proof = tmp.path().join("p");
    (tmp, proof)
}

/// `kalah prove PROOF` of Kalah(3,2), which must succeed.
fn prove_small(proof: &Path) {
    kalah()
        .arg("prove")
        .arg(proof)
        .args(SMALL_PROOF)
        .assert()
        .success();
}

#[test]
fn prove_options_that_would_check_nothing_or_overflow_are_refused() {
    let (_tmp, proof) = unmade_proof_dir();
    let p = proof.to_str().unwrap();
    let small = SMALL_PROOF;
    // A --db that cannot be used: refused before the proof directory is made.
    refused(
        &[&["prove", p, "--db", "/nonexistent"][..], &small[..]].concat(),
        "no such directory",
    );
    assert!(!proof.exists());
    // A lease whose expiry (the clock plus the lease) would wrap around.
    refused(
        &[
            &["prove", p, "--lease", "18446744073709551615"][..],
            &small[..],
        ]
        .concat(),
        "--lease",
    );
    assert!(!proof.exists());
    prove_small(&proof);
    // A check that re-solves no unit.
    refused(&["prove", p, "--check", "--sample", "0"], "--sample");
    kalah()
        .args(["prove", p, "--check", "--sample", "1", "--quiet"])
        .assert()
        .success();
}

#[test]
fn a_named_pipe_in_a_proof_directory_is_refused_not_read() {
    let (_tmp, proof) = unmade_proof_dir();
    prove_small(&proof);
    let fifo = |p: &Path| {
        fs::remove_file(p).unwrap();
        fifo(p);
    };
    let status = |dir: &Path| {
        let out = kalah()
            .arg("prove")
            .arg(dir)
            .arg("--status")
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        text(&out.stderr)
    };
    // A results file.
    let results = fs::read_dir(proof.join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "kpr"))
        .unwrap();
    fifo(&results);
    let err = status(&proof);
    assert!(err.contains("a named pipe"), "{err}");
    // The manifest.
    fifo(&proof.join("proof.txt"));
    let err = status(&proof);
    assert_has(&err, &["a named pipe", "proof.txt"]);
}

#[test]
fn db_build_beyond_the_largest_level_is_refused_before_anything_is_made() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("db");
    for k in ["128", "4294967295"] {
        refused(
            &[
                "db",
                "build",
                "--pits",
                "3",
                "--max-seeds",
                k,
                "--out",
                out.to_str().unwrap(),
            ],
            "more than the supported maximum 127",
        );
        assert!(!out.exists(), "--max-seeds {k}");
    }
}
