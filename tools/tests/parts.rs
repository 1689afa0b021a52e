//! `kalah db build` of levels in parts: killed (SIGKILL, by the hidden
//! `--kill-after-parts`) and rerun, it keeps the parts it finished, discards the torn
//! files, rebuilds a damaged part, and ends with the files of a build in one piece.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use tempfile::TempDir;

mod common;
use common::assert_has;
use common::db::{build, built};

const LEVEL10: &str = "m4-standard-single-ccw-skip-either-owner-k010.kdb";

/// The parts' directory of level 10 in `dir`.
fn parts_dir(dir: &Path) -> PathBuf {
    dir.join(format!("{LEVEL10}.parts"))
}

/// Part `i` of 3 of level 10 in `dir`.
fn part(dir: &Path, i: u32) -> PathBuf {
    parts_dir(dir).join(format!("{LEVEL10}.shard-{i}-of-3"))
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

/// Whether `out` is a process killed by SIGKILL, as `--kill-after-parts` ends it.
fn killed(out: &Output) -> bool {
    out.status.signal() == Some(9)
}

/// Asserts that `dir` holds levels 0..=10 byte for byte as `whole` does, and nothing else
/// (no parts, no temporary file; the lock is released).
fn assert_same_levels(whole: &Path, dir: &Path) {
    let want = names(whole);
    assert_eq!(want.len(), 11, "{want:?}");
    assert_eq!(names(dir), want);
    for name in &want {
        let (a, b) = (
            fs::read(whole.join(name)).unwrap(),
            fs::read(dir.join(name)).unwrap(),
        );
        assert!(a == b, "{name} differs from the build in one piece");
    }
}

/// Killed after two of level 10's three parts, the build leaves them under their names;
/// a rerun (killed again once it has written the third) keeps them as they were (same
/// inode, same modification time) and discards the torn files; a part damaged since is
/// built again; the merged database equals the build in one piece.
/// `kalah db build --pits 4 --max-seeds 10 ARGS` in `d`, which must succeed, print each of
/// `says` and leave the same levels as the whole build in `whole`.
fn rebuilt(whole: &Path, d: &Path, args: &[&str], says: &[&str]) {
    let text = built(d, 4, 10, args);
    assert_has(&text, says);
    assert_same_levels(whole, d);
}

/// Levels 0..=10 of Kalah(4, ·) built whole, which a build in parts must equal byte for
/// byte, and an empty directory for that build.
fn whole_and_empty() -> (TempDir, TempDir) {
    let whole = tempfile::tempdir().unwrap();
    built(whole.path(), 4, 10, &[]);
    (whole, tempfile::tempdir().unwrap())
}

#[test]
fn killed_parted_build_resumes_without_rebuilding_what_it_finished() {
    let (whole, dir) = whole_and_empty();
    let d = dir.path();
    // Levels 2 and 3 have two splits (2 parts each), 4 to 9 three parts: 22 part files,
    // then two of level 10.
    let out = build(d, 4, 10, &["--parts", "3", "--kill-after-parts", "24"]);
    assert!(killed(&out), "{:?}", out.status);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_has(
        &text,
        &[
            "plan: levels 2..=10 in parts (--parts 3)",
            "level  10: part 1/3 ",
        ],
    );
    assert!(d
        .join("m4-standard-single-ccw-skip-either-owner-k009.kdb")
        .exists());
    assert!(!d.join(LEVEL10).exists());
    assert_eq!(
        names(&parts_dir(d)),
        [
            format!("{LEVEL10}.shard-0-of-3"),
            format!("{LEVEL10}.shard-1-of-3")
        ]
    );
    // What a kill in the middle of writing part 2 and of a merge leaves: torn files.
    fs::write(
        parts_dir(d).join(format!("{LEVEL10}.shard-2-of-3.tmp")),
        b"torn",
    )
    .unwrap();
    fs::write(parts_dir(d).join(format!("{LEVEL10}.tmp")), b"torn").unwrap();
    fs::write(d.join(format!("{LEVEL10}.tmp")), b"torn").unwrap();
    let stamp = |i| {
        let m = fs::metadata(part(d, i)).unwrap();
        (m.ino(), m.mtime(), m.mtime_nsec())
    };
    let before = [stamp(0), stamp(1)];

    let out = build(d, 4, 10, &["--parts", "3", "--kill-after-parts", "1"]);
    assert!(killed(&out), "{:?}", out.status);
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "level   9: present and verified, skipped",
        "level  10: the unfinished level file of a killed build removed",
        "level  10: 2 unfinished file(s) of a killed build removed",
        "level  10: part 0/3 kept: written by a killed build, verified",
        "level  10: part 1/3 kept: written by a killed build, verified",
        "level  10: part 2/3          6436 positions",
    ] {
        assert!(text.contains(line), "no {line:?} in\n{text}");
    }
    assert_eq!(
        [stamp(0), stamp(1)],
        before,
        "a kept part was written again"
    );
    assert_eq!(names(&parts_dir(d)).len(), 3);
    assert!(!d.join(format!("{LEVEL10}.tmp")).exists());

    // A part damaged under its name: found by its checksum and built again.
    let mut bytes = fs::read(part(d, 1)).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    fs::write(part(d, 1), &bytes).unwrap();
    let says: [&str; 5] = [
        "part 1/3 damaged (",
        "checksum",
        "level  10: part 1/3          6560 positions",
        "level  10: part 2/3 kept",
        &format!("level  10:         19448 positions  3 parts  {LEVEL10}"),
    ];
    rebuilt(whole.path(), d, &["--parts", "3"], &says);
}

/// A merged level left in the parts' directory (killed before it was moved) is verified
/// and moved into place; a level in place whose parts' directory remains has it removed.
#[test]
fn a_merged_level_left_behind_is_moved_into_place() {
    let (whole, dir) = whole_and_empty();
    let d = dir.path();
    built(d, 4, 10, &[]);
    fs::create_dir(parts_dir(d)).unwrap();
    fs::rename(d.join(LEVEL10), parts_dir(d).join(LEVEL10)).unwrap();
    let says = "level  10: merged by a killed build and verified, moved into place";
    rebuilt(whole.path(), d, &[], &[says]);
    let nine = "m4-standard-single-ccw-skip-either-owner-k009.kdb";
    fs::create_dir(d.join(format!("{nine}.parts"))).unwrap();
    let says = "level   9: the parts' directory a killed build left removed";
    rebuilt(whole.path(), d, &[], &[says]);
    // A parts' directory holding only a torn part (killed in its first part): the level,
    // which the default budget holds, is built in one piece.
    fs::remove_file(d.join(LEVEL10)).unwrap();
    fs::create_dir(parts_dir(d)).unwrap();
    fs::write(
        parts_dir(d).join(format!("{LEVEL10}.shard-0-of-3.tmp")),
        b"torn",
    )
    .unwrap();
    let says = format!("level  10:         19448 positions  {LEVEL10}");
    rebuilt(whole.path(), d, &[], &[&says]);
}

/// The parts on disk fix their level's plan: a rerun whose budget holds them resumes them
/// (here without `--parts`, whose default budget builds level 10 in one piece), one
/// forced to another count is refused and leaves them.
#[test]
fn parts_of_another_count_are_resumed_or_refused() {
    let (whole, dir) = whole_and_empty();
    let d = dir.path();
    built(d, 4, 9, &[]);
    let out = build(d, 4, 10, &["--parts", "3", "--kill-after-parts", "1"]);
    assert!(killed(&out), "{:?}", out.status);
    let out = build(d, 4, 10, &["--parts", "2"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("holds level 10 as parts of 3"), "{err}");
    assert_eq!(names(&parts_dir(d)), [format!("{LEVEL10}.shard-0-of-3")]);
    let says = [
        "level  10: resumed in the 3 parts of a killed build",
        "level  10: part 0/3 kept",
    ];
    rebuilt(whole.path(), d, &[], &says);
}

/// A level whose largest split needs more than half the budget is refused before anything
/// is written, with the budget that would do; the plan of levels in parts is printed
/// before the build.
#[test]
fn a_budget_too_small_is_refused_and_the_plan_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    let out = build(dir.path(), 6, 28, &["--memory-gb", "1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_has(
        &err,
        &["level 28: its largest split", "--memory-gb 1.2 or more"],
    );
    assert!(!names(dir.path()).iter().any(|n| n.ends_with(".kdb")));
    let out = build(dir.path(), 6, 1, &["--memory-gb", "0"]);
    assert_eq!(out.status.code(), Some(2));
    // 3 pits, with levels forced into 2 parts: each level's parts, splits and disk.
    // Level 4's splits: 0 holds 2·R(0)·R(4) = 30 boards, 1 holds 2·R(1)·R(3) = 60, 2 holds
    // R(2)² = 36 (R(t) = C(t + 2, 2) rows of t seeds); largest first to the emptier part.
    let text = built(dir.path(), 3, 4, &["--parts", "2"]);
    for line in [
        "plan: levels 2..=4 in parts (--parts 2)",
        "level   4: 2 parts of at most 1 MiB; disk 1 MiB (parts 1 + level file 1 at one byte an entry, a compact file less)",
        "  part 0/2: 60 boards, 1 MiB, splits 1",
        "  part 1/2: 66 boards, 1 MiB, splits 0, 2",
    ] {
        assert!(text.contains(line), "no {line:?} in\n{text}");
    }
}
