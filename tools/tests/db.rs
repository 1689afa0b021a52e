//! `kalah db` end to end: build, verify, corrupt, shard and merge, info and probe (one
//! position, and a batch on standard input).

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn kalah() -> Command {
    Command::cargo_bin("kalah").unwrap()
}

mod common;
use common::assert_has;
use common::db::built as build;

/// `command`, which must be refused as a usage error (exit status 2): its standard error.
fn refusal(command: &mut Command) -> String {
    let run = command.assert().failure().code(2);
    String::from_utf8_lossy(&run.get_output().stderr).into_owned()
}

const K3: &str = "m3-standard-single-ccw-skip-either-owner-k003.kdb";

/// A fresh folder holding the standard Kalah(3, k) levels up to `max_seeds` seeds, and
/// the path of its level 3 file.
fn three_pit_db(max_seeds: u32) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 3, max_seeds, &[]);
    let path = dir.path().join(K3);
    (dir, path)
}

/// `kalah db verify DIR`, asserted to fail: its exit status, stdout and stderr.
fn failed_verify(dir: &Path) -> (Option<i32>, String, String) {
    let out = kalah()
        .args(["db", "verify"])
        .arg(dir)
        .assert()
        .failure()
        .get_output()
        .clone();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn verify_passes_then_reports_a_flipped_byte() {
    let (dir, path) = three_pit_db(6);
    let text = common::kalah_stdout(&["db", "verify", dir.path().to_str().unwrap()]);
    assert!(text.contains("entries re-derived"), "{text}");

    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(&path, &bytes).unwrap();
    let (code, stdout, stderr) = failed_verify(dir.path());
    assert_eq!(code, Some(1));
    assert_has(&stdout, &["payload checksum mismatch", K3]);
    assert!(stderr.contains("problem(s) found"), "{stderr}");
}

#[test]
fn verify_catches_a_wrong_value_with_a_valid_checksum() {
    let (dir, path) = three_pit_db(5);
    // Rewrite level 3 with one value changed and a fresh, matching checksum.
    let f = db_format::LevelFile::open_any(&path).unwrap();
    let mut values: Vec<i8> = (0..f.len()).map(|r| f.get(r)).collect();
    let (rules, format) = (f.rules(), f.format());
    assert_eq!(format, db_format::Format::Compact, "the default format");
    drop(f);
    values[10] = if values[10] == 0 { 1 } else { 0 };
    fs::remove_file(&path).unwrap();
    db_format::write_level_to(&path, &rules, 3, &values, format).unwrap();
    let (_, stdout, _) = failed_verify(dir.path());
    assert!(stdout.contains("WRONG    level   3"), "{stdout}");
}

#[test]
fn verify_full_re_derives_every_entry_of_every_level() {
    let (dir, path) = three_pit_db(9);
    let d = dir.path().to_str().unwrap();
    // Sampling: the levels above 100 entries (from level 4, of 126) are samples of 7.
    let sampled =
        common::kalah_stdout(&["db", "verify", d, "--full-up-to", "100", "--sample", "7"]);
    assert_has(&sampled, &["level   9 of [", "sample of 7 entries"]);
    let full = common::kalah_stdout(&["db", "verify", d, "--full"]);
    assert!(!full.contains("sample of"), "{full}");
    // C(k + 5, 5) entries a level, each line with its time and rate.
    for (k, n) in [(0, 1), (3, 56), (9, 2002)] {
        let line = format!("level {k:3} of [");
        let line = full
            .lines()
            .find(|l| l.contains(&line))
            .unwrap_or_else(|| panic!("{full}"));
        assert_has(line, &[&format!("all {n} entries re-derived in ")]);
        assert!(line.contains("M entries/s)"), "{line}");
    }
    assert!(full.contains("levels 0..=9 re-derived and sound"), "{full}");
    // --full is every entry: with a sampling option it is refused.
    kalah()
        .args(["db", "verify", d, "--full", "--full-up-to", "5"])
        .assert()
        .code(2);
    // A changed value under a fresh checksum: found by the full walk, and the levels
    // above it reported as unverified.
    let f = db_format::LevelFile::open_any(&path).unwrap();
    let mut values: Vec<i8> = (0..f.len()).map(|r| f.get(r)).collect();
    let (rules, format) = (f.rules(), f.format());
    drop(f);
    values[40] = if values[40] == 1 { 2 } else { 1 };
    fs::remove_file(&path).unwrap();
    db_format::write_level_to(&path, &rules, 3, &values, format).unwrap();
    let out = kalah()
        .args(["db", "verify", d, "--full"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_has(&stdout, &["WRONG    level   3", "UNVERIFIED level   9"]);
}

#[test]
fn truncated_wrong_version_and_wrong_rules_files_are_named() {
    let (dir, path) = three_pit_db(4);
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    let out = kalah().args(["db", "info"]).arg(&path).assert().failure();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("(truncated)"));
    let mut v = bytes.clone();
    v[8] = 9;
    fs::write(&path, &v).unwrap();
    let (_, stdout, _) = failed_verify(dir.path());
    assert!(stdout.contains("unsupported format version 9"), "{stdout}");
    // A valid file of other rules where the build expects level 3: the build refuses it.
    let mut v = bytes.clone();
    v[13] = 2; // capture = none
    fs::write(&path, &v).unwrap();
    let out = common::db::build(dir.path(), 3, 4, &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_has(&err, &["database is for rules", "capture=none"]);
}

#[test]
fn sharded_build_and_merge_equal_the_whole_build() {
    let whole = tempfile::tempdir().unwrap();
    let sharded = tempfile::tempdir().unwrap();
    let text = build(whole.path(), 4, 9, &[]);
    assert_has(&text, &["level   9:         11440 positions"]);
    // A database holds every seed count: its rules are named without one.
    assert!(
        text.starts_with("m=4 capture=standard sowing=single direction=ccw"),
        "{text}"
    );
    build(sharded.path(), 4, 8, &[]);
    for i in 0..3 {
        build(sharded.path(), 4, 9, &["--shard", &format!("{i}/3")]);
    }
    let name = "m4-standard-single-ccw-skip-either-owner-k009.kdb";
    assert!(sharded.path().join(format!("{name}.shard-2-of-3")).exists());
    kalah()
        .args(["db", "merge", "--dir"])
        .arg(sharded.path())
        .assert()
        .success();
    let a = fs::read(whole.path().join(name)).unwrap();
    let b = fs::read(sharded.path().join(name)).unwrap();
    assert!(a == b, "merged level differs");
    // Extending the build skips the present levels.
    let text = build(sharded.path(), 4, 10, &[]);
    assert_has(&text, &["level   9: present and verified, skipped"]);
}

/// `--format byte` writes one byte an entry; `kalah db convert` turns such a database
/// into compact files (the same values, about half the bytes, verified) and back into the
/// first bytes; in place too; levels already converted are skipped.
#[test]
fn formats_build_and_convert_both_ways() {
    let bytes = tempfile::tempdir().unwrap();
    let compact = tempfile::tempdir().unwrap();
    let text = build(bytes.path(), 4, 9, &["--format", "byte"]);
    assert!(text.contains("level   9:"), "{text}");
    build(compact.path(), 4, 9, &[]);
    let name = "m4-standard-single-ccw-skip-either-owner-k009.kdb";
    let info = common::kalah_stdout(&["db", "info", bytes.path().join(name).to_str().unwrap()]);
    assert_has(&info, &["version:     1", "format:      byte"]);
    let info = common::kalah_stdout(&["db", "info", compact.path().join(name).to_str().unwrap()]);
    assert_has(&info, &["version:     2", "format:      compact (Huffman"]);
    let converted = tempfile::tempdir().unwrap();
    let (src, dst) = (
        bytes.path().to_str().unwrap(),
        converted.path().to_str().unwrap(),
    );
    let text = common::kalah_stdout(&["db", "convert", src, dst, "--no-timings"]);
    assert_eq!(text.lines().count(), 10, "{text}");
    assert!(text.contains("level   9:         11440 entries"), "{text}");
    // The converted files are the ones a build in the compact format writes.
    for k in 0..=9 {
        let name = format!("m4-standard-single-ccw-skip-either-owner-k{k:03}.kdb");
        let a = fs::read(compact.path().join(&name)).unwrap();
        let b = fs::read(converted.path().join(&name)).unwrap();
        assert!(a == b, "level {k}: converted differs from built");
        // Half a byte an entry in slots, some continuations, the header and the table.
        let entries = fs::metadata(bytes.path().join(&name)).unwrap().len() - 64;
        if k >= 6 {
            assert!(
                (b.len() as u64) < 64 + 32 + 56 * entries / 100,
                "level {k}: {} bytes for {entries} entries",
                b.len()
            );
        }
    }
    common::kalah_stdout(&["db", "verify", dst]);
    let again = common::kalah_stdout(&["db", "compact", src, dst, "--min-seeds", "8"]);
    assert_eq!(
        again
            .lines()
            .filter(|l| l.contains("present as compact and verified, skipped"))
            .count(),
        2,
        "{again}"
    );
    // Back to bytes, in place: the first bytes.
    let text = common::kalah_stdout(&["db", "convert", dst, dst, "--format", "byte"]);
    assert_eq!(text.lines().count(), 10, "{text}");
    for k in 0..=9 {
        let name = format!("m4-standard-single-ccw-skip-either-owner-k{k:03}.kdb");
        let a = fs::read(bytes.path().join(&name)).unwrap();
        let b = fs::read(converted.path().join(&name)).unwrap();
        assert!(a == b, "level {k}: converted back differs");
    }
    // Probes read the same values from both formats, and from a mix of them.
    fs::copy(compact.path().join(name), bytes.path().join(name)).unwrap();
    for pos in [
        "1,0,2,0/0/0,3,1,2/0/A",
        "0,0,1,4/3/2,1,1,0/5/B",
        "3,3,1,2/0/0,0,0,0/0/A",
    ] {
        let probe = |dir: &Path| probe_text(dir, pos);
        assert_eq!(probe(bytes.path()), probe(compact.path()), "{pos}");
        assert_eq!(probe(converted.path()), probe(compact.path()), "{pos}");
    }
    let err = refusal(kalah().args(["db", "convert", src, dst, "--format", "nibble"]));
    assert!(err.contains("expected byte or compact"), "{err}");
}

#[test]
fn probe_prints_value_and_margin_and_clockwise_builds_whole_levels() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 3, 6, &[]);
    // North to move, 2 seeds each side; B's store leads 5 to 3.
    let out = kalah()
        .args(["db", "probe", "--db"])
        .arg(dir.path())
        .args(["--position", "1,1,0/3/0,0,2/5/B"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    // North's only move B3 ends the game: North +1, South sweeps 3, so the value is -2
    // for North and the final margin is (3 - 5) + 2 = 0.
    assert_has(&text, &["value:    -2", "margin:   +0"]);
    let out = kalah()
        .args(["db", "probe", "--db"])
        .arg(dir.path())
        .args(["--position", "4,4,4/0/4,4,4/0/A"])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("covers at most 6"));
    // Clockwise rules go to the retrograde solver; --shard is refused for them.
    let cw = tempfile::tempdir().unwrap();
    build(cw.path(), 3, 5, &["--direction", "cw"]);
    kalah()
        .args(["db", "verify"])
        .arg(cw.path())
        .assert()
        .success();
    let out = common::db::build(cw.path(), 3, 6, &["--direction", "cw", "--shard", "0/2"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_has(&err, &["--shard needs counter-clockwise rules"]);
}

/// A shard holds only its splits' boards: a level or shard refused for memory is told
/// how small a shard can get, and a shard that is a single split is not told to shard.
#[test]
fn memory_refusals_say_what_sharding_can_do() {
    if !Path::new("/proc/meminfo").exists() {
        return; // the memory check reads MemAvailable there
    }
    let dir = tempfile::tempdir().unwrap();
    let refuse = |args: &[&str]| {
        // Level 100 of 6 pits: C(111, 11) bytes, about 470 TB.
        let out = kalah()
            .args(["db", "build", "--pits", "6", "--max-seeds", "100"])
            .args(args)
            .arg("--out")
            .arg(dir.path())
            .assert()
            .failure();
        String::from_utf8(out.get_output().stderr.clone()).unwrap()
    };
    let err = refuse(&[]);
    assert_has(&err, &["level 100 needs", "build it in more shards"]);
    let err = refuse(&["--shard", "0/4"]);
    assert_has(&err, &["shard 0/4 of level 100", "build it in more shards"]);
    // 51 splits, 51 shards: shard 0 is the largest split alone.
    let err = refuse(&["--shard", "0/51"]);
    assert!(err.contains("cannot be cut further"), "{err}");
    assert!(!err.contains("more shards"), "{err}");
}

/// `kalah db plan` lists each shard's splits once and boards that add up to the level.
#[test]
fn plan_lists_every_split_once() {
    let text = common::kalah_stdout(&[
        "db",
        "plan",
        "--pits",
        "6",
        "--max-seeds",
        "20",
        "--shards",
        "3",
    ]);
    let mut boards = 0u64;
    let mut splits = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("shard ")) {
        let words: Vec<&str> = line.split_whitespace().collect();
        boards += words[2].parse::<u64>().unwrap();
        let list = line.split("splits ").nth(1).unwrap();
        splits.extend(list.split(", ").map(|s| s.parse::<u32>().unwrap()));
    }
    splits.sort();
    assert_eq!(splits, (0..=10).collect::<Vec<_>>(), "{text}");
    assert_eq!(boards, 84_672_315, "{text}");
    assert!(text.contains("largest task: shard"), "{text}");
}

/// Shards of one level build side by side in one directory (the array tasks of
/// scripts/slurm-build-level.sh): a whole build's lock does not hold them back, but a
/// shard being built is not built twice.
#[test]
fn shards_build_side_by_side_but_not_twice() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 3, 5, &[]);
    let me = std::process::id().to_string();
    let name = "m3-standard-single-ccw-skip-either-owner-k006.kdb";
    fs::write(dir.path().join(".lock"), &me).unwrap();
    fs::write(dir.path().join(format!(".{name}.shard-0-of-2.lock")), &me).unwrap();
    build(dir.path(), 3, 6, &["--shard", "1/2"]);
    assert!(dir.path().join(format!("{name}.shard-1-of-2")).exists());
    let out = common::db::build(dir.path(), 3, 6, &["--shard", "0/2"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_has(&err, &["another build holds", "shard-0-of-2.lock"]);
    assert!(!dir.path().join(format!("{name}.shard-0-of-2")).exists());
}

/// Positions of Kalah(4, k) with at most 8 seeds on the board, each side to move.
const PROBED: [&str; 6] = [
    "1,1,0,0/3/0,0,2,0/5/B",
    "2,0,0,1/0/0,1,0,0/0/A",
    "0,0,0,1/0/0,0,0,1/0/A",
    "1,2,1,0/10/0,1,1,2/12/A",
    "0,3,0,1/4/2,0,0,1/7/B",
    "0,0,0,0/20/1,2,0,0/10/A",
];

/// `kalah db probe --db DIR --position P`, which must succeed: what it prints.
fn probe_text(dir: &Path, pos: &str) -> String {
    let dir = dir.to_str().unwrap();
    common::kalah_stdout(&["db", "probe", "--db", dir, "--position", pos])
}

/// `kalah db probe --db DIR --position P`: the (value, margin) it prints.
fn single_probe(dir: &Path, pos: &str) -> (i64, i64) {
    let text = probe_text(dir, pos);
    let field = |name: &str| -> i64 {
        let line = text.lines().find(|l| l.starts_with(name)).unwrap();
        let word = line.split_whitespace().nth(1).unwrap();
        word.trim_start_matches('+').parse().unwrap()
    };
    (field("value:"), field("margin:"))
}

/// `kalah db probe --db DIR --batch` with `input` on standard input: its exit status and
/// its output, a JSON object a line.
fn batch_probe(dir: &Path, input: &str) -> (Option<i32>, Vec<serde_json::Value>) {
    let out = kalah()
        .args(["db", "probe", "--batch", "--db"])
        .arg(dir)
        .write_stdin(input)
        .output()
        .unwrap();
    let objects = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out.status.code(), objects)
}

#[test]
fn batch_probe_answers_as_the_single_probe_does() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 4, 8, &[]);
    // Blank lines are passed over, but counted in the line numbers.
    let input = format!("\n{}\n  \n", PROBED.join("\n"));
    let (code, objects) = batch_probe(dir.path(), &input);
    assert_eq!(code, Some(0));
    assert_eq!(objects.len(), PROBED.len());
    for (i, (o, pos)) in objects.iter().zip(PROBED).enumerate() {
        let (value, margin) = single_probe(dir.path(), pos);
        assert_eq!(o["line"], i + 2, "{o}");
        assert_eq!(o["position"], pos, "{o}");
        assert_eq!(
            (o["value"].as_i64(), o["margin"].as_i64()),
            (Some(value), Some(margin)),
            "{o}"
        );
        let seeds = o["seeds"].as_u64().unwrap();
        assert_eq!(
            o["level"],
            format!("m4-standard-single-ccw-skip-either-owner-k{seeds:03}.kdb"),
            "{o}"
        );
    }
    // The first, by hand: North's only move B3 sows B4 and its store (a free move), B4
    // then its store again, and North's row is empty: South sweeps its 2 seeds. Each side
    // gains 2 (value 0 for North); the stores end 5 to 7.
    assert_eq!(
        (
            &objects[0]["value"],
            &objects[0]["margin"],
            &objects[0]["seeds"]
        ),
        (
            &serde_json::json!(0),
            &serde_json::json!(-2),
            &serde_json::json!(4)
        )
    );
}

#[test]
fn batch_probe_reports_a_bad_line_by_its_number_and_answers_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 4, 8, &[]);
    let lines = [
        PROBED[0],
        "1,1,0,0/3/0,x,2,0/5/B",
        "1,1,0/3/0,0,2/5/B",
        "4,4,4,4/0/4,4,4,4/0/A",
        PROBED[1],
    ];
    let (code, objects) = batch_probe(dir.path(), &lines.join("\n"));
    assert_eq!(code, Some(2));
    let numbers: Vec<_> = objects
        .iter()
        .map(|o| o["line"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5]);
    let error = |i: usize| {
        objects[i]["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{}", objects[i]))
    };
    assert!(error(1).contains("'x' is not a seed count"), "{}", error(1));
    assert!(error(2).contains("3 pits a side"), "{}", error(2));
    assert!(error(3).contains("covers at most 8"), "{}", error(3));
    for (i, pos) in [(0, PROBED[0]), (4, PROBED[1])] {
        let (value, margin) = single_probe(dir.path(), pos);
        assert_eq!(objects[i]["position"], pos);
        assert_eq!(
            (objects[i]["value"].as_i64(), objects[i]["margin"].as_i64()),
            (Some(value), Some(margin))
        );
    }
}

/// `kalah db info DIR` describes the database as a whole: its rules, the levels present
/// and missing, their formats, entries and bytes, and whether the verification stamp is
/// there and vouches for them.
#[test]
fn info_describes_a_database_directory() {
    let (dir, _) = three_pit_db(4);
    let stamp = dir.path().join("kalah-verified.txt");
    // The build may have stamped the levels it opened; this test writes its own.
    let _ = fs::remove_file(&stamp);
    // `kalah db info DIR`, a field a line: the field's name to its value.
    let info = |dir: &Path| -> std::collections::BTreeMap<String, String> {
        let out = kalah().args(["db", "info"]).arg(dir).assert().success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        text.lines()
            .map(|l| {
                let (name, value) = l.split_once(':').unwrap();
                (name.to_string(), value.trim().to_string())
            })
            .collect()
    };
    let level_files = |dir: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "kdb"))
            .collect();
        v.sort();
        v
    };
    let bytes = |dir: &Path| -> u64 {
        level_files(dir)
            .iter()
            .map(|p| fs::metadata(p).unwrap().len())
            .sum()
    };
    // The fields that close the description: entries, bytes, what the stamp vouches for.
    let totals =
        |found: &std::collections::BTreeMap<String, String>, entries: u64, vouches: &str| {
            assert_eq!(found["entries"], entries.to_string());
            let b = bytes(dir.path());
            assert_eq!(found["bytes"], format!("{b} ({} MiB)", b.div_ceil(1 << 20)));
            assert!(found["verified"].starts_with(vouches), "{found:?}");
        };
    let entries: u64 = (0..=4).map(|k| db_format::level_size(6, k)).sum();
    let found = info(dir.path());
    assert_eq!(found["directory"], dir.path().display().to_string());
    assert!(
        found["rules"].starts_with("m=3 capture=standard"),
        "{found:?}"
    );
    assert_eq!(found["levels"], "0..=4 (5 level files)");
    assert_eq!(found["format"], "compact (levels 0..=4)");
    totals(&found, entries, "no kalah-verified.txt");
    // Levels 3 and 4 in the byte format, level 1 gone, and a stamp that vouches for none.
    kalah()
        .args(["db", "convert", "--format", "byte", "--min-seeds", "3"])
        .arg(dir.path())
        .arg(dir.path())
        .assert()
        .success();
    fs::remove_file(&level_files(dir.path())[1]).unwrap();
    fs::write(&stamp, "not a stamp\n").unwrap();
    let found = info(dir.path());
    assert_eq!(found["levels"], "0, 2..=4 (4 level files; missing 1)");
    assert_eq!(
        found["format"],
        "byte (levels 3..=4), compact (levels 0, 2)"
    );
    let entries = entries - db_format::level_size(6, 1);
    let stamp_says = "kalah-verified.txt vouches for 0 of 4 level files";
    totals(&found, entries, stamp_says);
    // A single file is still described by its header.
    let one = kalah()
        .args(["db", "info"])
        .arg(dir.path().join(K3))
        .assert()
        .success();
    let one = String::from_utf8(one.get_output().stdout.clone()).unwrap();
    assert_has(&one, &["format:      byte (one byte an entry)"]);
}

/// A refused `kalah db build` leaves no directory behind: neither `--out` nor the
/// directories above it that it would have made.
#[test]
fn a_refused_build_leaves_no_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().join("new");
    let out = top.join("deeper");
    for args in [
        // Level 8's largest split does not fit half of 0.1 GiB less the process's share.
        &["--max-seeds", "8", "--memory-gb", "0.1"][..],
        // The retrograde solver of clockwise rules builds whole levels only.
        &["--max-seeds", "4", "--direction", "cw", "--shard", "0/2"][..],
    ] {
        let err = refusal(
            kalah()
                .args(["db", "build", "--pits", "3"])
                .args(args)
                .arg("--out")
                .arg(&out),
        );
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!top.exists(), "{args:?} left {}", top.display());
    }
    // A directory that was there is kept, empty or not.
    fs::create_dir(&top).unwrap();
    kalah()
        .args([
            "db",
            "build",
            "--pits",
            "3",
            "--max-seeds",
            "8",
            "--memory-gb",
            "0.1",
        ])
        .arg("--out")
        .arg(&top)
        .assert()
        .failure()
        .code(2);
    assert!(top.is_dir());
}

/// The directories the `kalah db` commands read are refused as `--db` is: the same
/// words (`no such directory`, `not a directory`) and exit status 2.
#[test]
fn a_missing_directory_is_refused_alike_by_every_db_command() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    let file = tmp.path().join("file");
    fs::write(&file, b"x").unwrap();
    let refused = |args: &[&str], path: &Path, named: &str, says: &str| {
        let err = refusal(kalah().args(args).arg(path));
        let expected = format!("error: {named}{}: {says}", path.display());
        assert!(err.starts_with(&expected), "{args:?}: {err}");
    };
    for (path, says) in [(&missing, "no such directory"), (&file, "not a directory")] {
        refused(
            &["db", "probe", "--pits", "3", "--seeds", "1", "--db"],
            path,
            "--db ",
            says,
        );
        refused(&["db", "verify"], path, "", says);
        refused(&["db", "merge", "--dir"], path, "--dir ", says);
    }
    // `convert` checks its source before it makes its destination.
    let dst = tmp.path().join("dst");
    let err = refusal(kalah().args(["db", "convert"]).arg(&missing).arg(&dst));
    assert!(err.contains("no such directory"), "{err}");
    assert!(!dst.exists());
}
