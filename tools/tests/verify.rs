//! `kalah verify` on real invocations: a few published cases solved and agreeing, one JSON
//! object per case, and a wrong published value making the exit status non-zero.
//!
//! CI runs the whole `kalah verify --quick` separately (`.ci/run`); these tests pick
//! cases that take well under a second each.

use assert_cmd::Command;
use serde_json::Value;

mod common;

/// Published cases that solve in milliseconds.
const SMALL: &str = "4x1-empty,4x2-empty,4x3-empty,5x2-empty,5x3-empty,6x2-empty";

fn kalah(args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("kalah").unwrap().args(args).assert()
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

/// One JSON object a line of stdout.
fn json_objects(a: &assert_cmd::assert::Assert) -> Vec<Value> {
    stdout(a)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `kalah verify --quiet --json --tt-mb 16 ARGS --cases 4x3-empty,6x2-empty`, which must
/// succeed: its objects.
fn two_cases_json(args: &[&str]) -> Vec<Value> {
    let a = Command::cargo_bin("kalah")
        .unwrap()
        .args(["verify", "--quiet", "--json", "--tt-mb", "16"])
        .args(args)
        .args(["--cases", "4x3-empty,6x2-empty"])
        .assert()
        .success();
    json_objects(&a)
}

#[test]
fn small_published_cases_agree() {
    let a = kalah(&["verify", "--quiet", "--tt-mb", "16", "--cases", SMALL]).success();
    let out = stdout(&a);
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("Kalah(")).collect();
    assert_eq!(rows.len(), 6, "{out}");
    for row in &rows {
        assert!(row.contains(" yes "), "{row}");
    }
    assert!(out.contains("6 of 6 cases agree"), "{out}");
}

#[test]
fn json_prints_one_object_per_case() {
    let objs = two_cases_json(&[]);
    assert_eq!(objs.len(), 2);
    assert_eq!(objs[0]["case"], "4x3-empty");
    assert_eq!(objs[0]["published"], 8);
    assert_eq!(objs[0]["value"], 8);
    assert_eq!(objs[1]["board"], "Kalah(6,2)");
    assert_eq!(objs[1]["value"], 10);
    for o in &objs {
        assert_eq!(o["agrees"], true);
        assert!(o["nodes"].as_u64().unwrap() > 0);
        assert!(o["source"].as_str().unwrap().contains("Irving"));
    }
}

#[test]
fn a_wrong_published_value_fails() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("published.txt");
    std::fs::write(
        &data,
        "# Source: a deliberately wrong table\n4 2 empty +6 quick\n4 3 empty +4 quick\n",
    )
    .unwrap();
    let a = kalah(&["verify", "--quiet", "--data", data.to_str().unwrap()]).code(1);
    let out = stdout(&a);
    assert!(out.contains(" NO "), "{out}");
    assert!(out.contains("1 of 2 cases agree"), "{out}");
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(err.contains("4x3-empty"), "{err}");
}

#[test]
fn an_unknown_case_is_refused() {
    let a = kalah(&["verify", "--quiet", "--cases", "9x9-empty"]).code(1);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(err.contains("no published case '9x9-empty'"), "{err}");
}

#[test]
fn list_shows_every_case_with_its_cost_class() {
    let a = kalah(&["verify", "--list", "--all"]).success();
    let out = stdout(&a);
    assert_eq!(out.lines().count(), 19, "{out}");
    assert!(out.contains("6x4-standard"), "{out}");
    assert!(out.contains("Rawlings"), "{out}");
}

/// The long published cases, Kalah(6,4) under both capture rules: +8 and +10 from the
/// start. Seconds each on the 2-core machine (results/bench.md), so they run with the
/// default tests.
#[test]
fn long_published_cases_agree() {
    let out = Command::cargo_bin("kalah")
        .unwrap()
        .args(["verify", "--quiet", "--cases", "6x4-standard,6x4-empty"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("2 of 2 cases agree"), "{stdout}");
}

#[test]
fn a_database_directory_serves_the_cases_of_its_rules() {
    // Empty-capture 4-pit levels 0..=10: Kalah(4,3) (24 seeds) probes them; Kalah(6,2)
    // finds no files of its rules there and is searched as usual.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    common::db::built(dir.path(), 4, 10, &["--capture", "empty"]);
    let objs = two_cases_json(&["--endgame", "none", "--db", d]);
    assert_eq!(objs.len(), 2);
    for o in &objs {
        assert_eq!(o["agrees"], true, "{o}");
    }
    assert!(objs[0]["db_probes"].as_u64().unwrap() > 0, "{}", objs[0]);
    assert_eq!(objs[1]["db_probes"], 0, "{}", objs[1]);
}
