//! `kalah estimate`: walks down a proof tree whose leaves answer as the tree expects at
//! the true value, reproducible from their seed, replayed from their JSON, and refused
//! with a clear error when the file or the question is wrong.

use std::process::{Command, Output};

use serde_json::Value;

const KALAH: &str = env!("CARGO_BIN_EXE_kalah");

fn run(args: &[&str]) -> Output {
    Command::new(KALAH).args(args).output().expect("run kalah")
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "kalah failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

const RULES: [&str; 4] = ["--pits", "4", "--seeds", "3"];

fn value() -> i64 {
    let mut args = vec!["solve", "--json", "--quiet", "--threads", "1"];
    args.extend_from_slice(&RULES);
    json_of(&run(&args))["value"].as_i64().unwrap()
}

fn estimate(more: &[&str]) -> Output {
    let mut args = vec!["estimate", "--json", "--quiet", "--threads", "1"];
    args.extend_from_slice(&RULES);
    args.extend_from_slice(more);
    run(&args)
}

/// Both proof trees of the true value: every walk ends as the tree expects, the leaf
/// questions are the root's carried down, and the figures are the walks' means.
#[test]
fn the_true_value_s_trees_hold_everywhere() {
    let v = value().to_string();
    for (flag, expect) in [("--at-least", true), ("--at-most", false)] {
        let out = json_of(&estimate(&[
            flag,
            &v,
            "--depth",
            "4",
            "--samples",
            "24",
            "--seed",
            "5",
            "--max-depth",
            "16",
        ]));
        assert_eq!(out["expect"], expect, "{flag}");
        let samples = out["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 24);
        let mut mean_nodes = 0.0;
        for s in samples {
            assert_eq!(s["holds"], true, "{flag} {v}: {s}");
            assert!(s["weight"].as_f64().unwrap() >= 1.0);
            if s["leaf"].is_string() {
                assert!(["yes", "no"].contains(&s["answer"].as_str().unwrap()));
                assert_eq!(s["answer"] == "yes", s["expect"] == true, "{s}");
            }
            mean_nodes += s["weight"].as_f64().unwrap() * s["nodes"].as_f64().unwrap() / 24.0;
        }
        let est = &out["estimate"];
        assert_eq!(est["not_as_expected"], 0);
        assert_eq!(est["lower_bound"], false);
        let got = est["nodes"]["mean"].as_f64().unwrap();
        assert!((got - mean_nodes).abs() <= 1e-6 * mean_nodes.max(1.0));
    }
}

/// The same seed walks the same paths; the replay of a run's JSON asks the same leaves
/// and gets the same answers.
#[test]
fn a_seed_repeats_and_a_replay_asks_the_same_leaves() {
    let v = value().to_string();
    let args = [
        "--at-least",
        &v,
        "--depth",
        "3",
        "--samples",
        "12",
        "--seed",
        "9",
    ];
    let a = json_of(&estimate(&args));
    let b = json_of(&estimate(&args));
    let paths = |x: &Value| -> Vec<Value> {
        x["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["path"].clone())
            .collect()
    };
    assert_eq!(paths(&a), paths(&b));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("walks.json");
    std::fs::write(&file, a.to_string()).unwrap();
    let r = json_of(&estimate(&["--replay", file.to_str().unwrap()]));
    assert_eq!(paths(&r), paths(&a));
    for (x, y) in r["samples"]
        .as_array()
        .unwrap()
        .iter()
        .zip(a["samples"].as_array().unwrap())
    {
        for k in ["leaf", "beta", "expect", "answer", "weight"] {
            assert_eq!(x[k], y[k], "{k}");
        }
    }
}

/// A replay file that is not one, or is of other rules, or a question not given, is
/// refused with exit status 2 and a message naming the problem.
#[test]
fn bad_replays_and_questions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |args: &[&str], says: &str| {
        let out = estimate(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    };
    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, b"{\"rules\": 3").unwrap();
    refused(&["--replay", garbage.to_str().unwrap()], "not JSON");
    let v = value().to_string();
    let good = json_of(&estimate(&[
        "--at-least",
        &v,
        "--depth",
        "2",
        "--samples",
        "3",
        "--seed",
        "1",
    ]));
    let other = dir.path().join("other.json");
    let mut o = good.clone();
    o["rules"] = Value::String("Kalah(5,3), standard capture".into());
    std::fs::write(&other, o.to_string()).unwrap();
    refused(
        &["--replay", other.to_str().unwrap()],
        "give the file's rules",
    );
    let mut w = good.clone();
    w["samples"][0]["weight"] = Value::from(0.5);
    let weight = dir.path().join("weight.json");
    std::fs::write(&weight, w.to_string()).unwrap();
    refused(&["--replay", weight.to_str().unwrap()], "weight");
    let mut p = good;
    p["samples"][0]["leaf"] = Value::String("1,2/0/3/0/A".into());
    p["samples"][0]["beta"] = Value::from(0);
    let pos = dir.path().join("position.json");
    std::fs::write(&pos, p.to_string()).unwrap();
    refused(&["--replay", pos.to_str().unwrap()], "--replay");
    let mut over = p.clone();
    over["samples"][0]["leaf"] = Value::String("0,0,0,0/10/1,2,3,4/4/A".into());
    let ended = dir.path().join("ended.json");
    std::fs::write(&ended, over.to_string()).unwrap();
    refused(&["--replay", ended.to_str().unwrap()], "finished game");
    refused(
        &["--replay", dir.path().to_str().unwrap()],
        "not a regular file",
    );
    let out = estimate(&["--depth", "2"]);
    assert_eq!(out.status.code(), Some(2));
}
