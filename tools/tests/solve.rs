//! `kalah solve` and `kalah moves` on real invocations.

use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

mod common;

fn kalah() -> Command {
    Command::cargo_bin("kalah").unwrap()
}

/// `kalah ARGS`, which must succeed: its output.
fn succeeded(args: &[&str]) -> Output {
    let out = kalah().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "kalah {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs `cmd`, which must succeed (else its stderr is the failure), and returns its JSON
/// lines.
fn json_of(cmd: &mut Command) -> Vec<Value> {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_lines(&out.stdout)
}

#[test]
fn solve_json_has_the_promised_keys() {
    // Irving, Donkers & Uiterwijk 2000, Table 9: empty-capture Kalah(4,3) is +8.
    let out = succeeded(&[
        "solve",
        "--pits",
        "4",
        "--seeds",
        "3",
        "--capture",
        "empty",
        "--json",
        "--quiet",
        "--tt-mb",
        "16",
    ]);
    let v = &json_lines(&out.stdout)[0];
    assert_eq!(v["value"], 8);
    for key in ["best_move", "pv", "nodes", "seconds"] {
        assert!(!v[key].is_null(), "missing {key}: {v}");
    }
    assert_eq!(v["pv"][0], v["best_move"]);
    assert!(v["pv"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .as_str()
        .unwrap()
        .ends_with('#'));
}

#[test]
fn solve_prints_a_readable_report_and_progress() {
    let out = succeeded(&["solve", "--pits", "3", "--seeds", "3", "--tt-mb", "8"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("value:") && stdout.contains("best move:"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("exact: margin"), "{stderr}");
    let quiet = kalah()
        .args([
            "solve", "--pits", "3", "--seeds", "3", "--tt-mb", "8", "--quiet",
        ])
        .output()
        .unwrap();
    assert!(quiet.stderr.is_empty());
    // `kalah moves` reports each move as its search ends.
    let moves = succeeded(&["moves", "--pits", "3", "--seeds", "3", "--tt-mb", "8"]);
    let stderr = String::from_utf8_lossy(&moves.stderr);
    for pit in 1..=3 {
        assert!(stderr.contains(&format!("A{pit}")), "{stderr}");
    }
    assert!(stderr.contains("3 solved"), "{stderr}");
    // The table's summary line counts the search's nodes.
    let stdout = String::from_utf8_lossy(&moves.stdout);
    let summary = stdout.lines().last().unwrap_or_default();
    assert!(summary.starts_with("(3 moves, "), "{stdout}");
    assert!(summary.contains(" nodes; "), "{stdout}");
}

#[test]
fn margins_do_not_change_sign_with_the_side_to_move() {
    // The same pits with North to move: mirrored rows and stores, opposite margin.
    let value = |pos: &str| {
        let out = kalah()
            .args([
                "solve",
                "--position",
                pos,
                "--json",
                "--quiet",
                "--tt-mb",
                "8",
            ])
            .output()
            .unwrap();
        json_lines(&out.stdout)[0]["value"].as_i64().unwrap()
    };
    let s = value("2,0,3/5/1,1,0/4/A");
    let n = value("1,1,0/4/2,0,3/5/B");
    assert_eq!(s, -n);
}

#[test]
fn moves_lists_every_legal_move_best_first() {
    let moves = |threads: &[&str]| {
        kalah()
            .args(["moves", "--pits", "4", "--seeds", "3", "--capture", "empty"])
            .args(["--json", "--quiet", "--tt-mb", "16"])
            .args(threads)
            .output()
            .unwrap()
    };
    let out = moves(&["--threads", "1"]);
    assert!(out.status.success());
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["value"], 8, "the best move keeps the game value");
    let values: Vec<i64> = lines.iter().map(|l| l["value"].as_i64().unwrap()).collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
    // Two threads, splitting at every node of 4 seeds or more, give the same values.
    let par = moves(&["--threads", "2", "--split-seeds", "4"]);
    assert_eq!(json_lines(&par.stdout), lines);
}

#[test]
fn moves_says_it_searches_once_the_endgame_table_is_built() {
    // stderr is not a terminal here: each status is also a line, in the order set.
    let out = succeeded(&[
        "moves",
        "--pits",
        "4",
        "--seeds",
        "3",
        "--endgame",
        "4",
        "--tt-mb",
        "16",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    let at = |prefix: &str| {
        err.lines()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line '{prefix}...' in\n{err}"))
    };
    let table = at("endgame table: boards with up to 4 seeds");
    let searching = at("searching the moves of 3,3,3,3/0/3,3,3,3/0/A: 0 of 4 solved");
    let first = at("A");
    assert!(table < searching && searching < first, "{err}");
}

#[test]
fn pie_rule_analysis_lists_whole_first_turns() {
    let pie = |threads: &[&str]| {
        json_of(
            kalah()
                .args([
                    "solve", "--pits", "4", "--seeds", "3", "--pie", "--json", "--quiet",
                ])
                .args(["--tt-mb", "16"])
                .args(threads),
        )
        .remove(0)
    };
    let v = &pie(&["--threads", "1"]);
    // Two threads splitting at every node of 4 seeds or more: the same turns and values.
    let par = pie(&["--threads", "2", "--split-seeds", "4"]);
    assert_eq!(par["turns"], v["turns"]);
    assert_eq!(par["pie_value"], v["pie_value"]);
    let turns = v["turns"].as_array().unwrap();
    assert!(!turns.is_empty());
    // A turn that ends in the store continues: "A2+ ..." is one whole turn.
    assert!(turns
        .iter()
        .any(|t| t["turn"].as_str().unwrap().starts_with("A2+ ")));
    let pie = v["pie_value"].as_i64().unwrap();
    let best = turns
        .iter()
        .map(|t| -t["value"].as_i64().unwrap().abs())
        .max()
        .unwrap();
    assert_eq!(pie, best);
    for t in turns {
        assert_eq!(
            t["swap"].as_bool().unwrap(),
            t["value"].as_i64().unwrap() > 0
        );
    }
    // Without --quiet, each turn is reported on stderr as its search ends, with its value.
    let out = succeeded(&[
        "solve", "--pits", "4", "--seeds", "3", "--pie", "--tt-mb", "16",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for t in turns {
        let (turn, value) = (t["turn"].as_str().unwrap(), t["value"].as_i64().unwrap());
        let line = format!("pie rule: {turn}: {value:+}  (");
        assert!(stderr.contains(&line), "{line} in {stderr}");
    }
    assert!(
        stderr.contains(&format!("({} solved, ", turns.len())),
        "{stderr}"
    );
}

#[test]
fn clockwise_rules_are_solved_by_retrograde_analysis() {
    let v = &json_of(kalah().args([
        "solve",
        "--pits",
        "2",
        "--seeds",
        "2",
        "--direction",
        "cw",
        "--json",
        "--quiet",
    ]))[0];
    assert_eq!(v["method"], "retrograde");
    // Checked against the attractor reference in solver/tests/cyclic.rs.
    assert_eq!(v["value"], 6);
}

#[test]
fn solving_with_a_database_gives_the_same_value_with_fewer_nodes() {
    let dir = tempfile::tempdir().unwrap();
    common::db::built(dir.path(), 4, 8, &[]);
    let solve = |db: bool| {
        let mut c = kalah();
        c.args([
            "solve", "--pits", "4", "--seeds", "4", "--json", "--quiet", "--tt-mb", "16",
        ]);
        // One thread: node counts of a parallel search vary from run to run. No endgame
        // table: the automatic one (11 seeds) would answer before the 8-level database.
        c.args(["--threads", "1", "--endgame", "none"]);
        if db {
            c.arg("--db").arg(dir.path());
        }
        json_lines(&c.output().unwrap().stdout)[0].clone()
    };
    let (plain, probed) = (solve(false), solve(true));
    assert_eq!(plain["value"], probed["value"]);
    assert!(probed["nodes"].as_u64() < plain["nodes"].as_u64());
    assert!(probed["db_probes"].as_u64().unwrap() > 0);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let out = kalah()
        .args([
            "solve",
            "--db",
            "/nonexistent/dir/for/kalah",
            "--pits",
            "2",
            "--seeds",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A missing directory is named as missing, not as a directory without level 0.
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such directory"));
    let out = kalah()
        .args(["solve", "--position", "1,2/0/3/0/A"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must match"));
}

#[test]
fn endgame_table_sizes_give_the_same_margin_and_move_values() {
    // Kalah(5,3), 30 seeds: auto builds boards up to 10 seeds; 4 and none cover less.
    // `kalah solve` or `kalah moves` with an `--endgame` setting: its JSON lines.
    let run = |command: &str, endgame: &str| {
        json_of(
            kalah()
                .args([command, "--pits", "5", "--seeds", "3", "--tt-mb", "64"])
                .args(["--json", "--quiet", "--endgame", endgame]),
        )
    };
    let solve = |endgame: &str| run("solve", endgame).remove(0);
    let moves = |endgame: &str| run("moves", endgame);
    let auto = solve("auto");
    assert_eq!(auto["endgame_seeds"], 10);
    assert!(auto["endgame_reads"].as_u64().unwrap() > 0);
    let none = solve("none");
    assert!(none["endgame_seeds"].is_null());
    assert_eq!(none["endgame_reads"], 0);
    // The search without a table is the reference (tests/reference.rs checks it).
    for k in ["4", "auto"] {
        assert_eq!(solve(k)["value"], none["value"], "--endgame {k}");
    }
    assert_eq!(moves("auto"), moves("none"));
}

#[test]
fn bad_endgame_levels_are_refused() {
    for (arg, says) in [
        ("x", "expected a number of seeds, auto or none"),
        ("40", "build a database with `kalah db build` instead"),
    ] {
        let out = kalah()
            .args([
                "solve",
                "--pits",
                "6",
                "--seeds",
                "4",
                "--quiet",
                "--endgame",
                arg,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--endgame {arg}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{stderr}");
    }
}

#[test]
fn every_thread_count_gives_the_same_solution() {
    // Kalah(5,3), 30 seeds: with the 10-seed endgame table the search splits from 24.
    // (The best move may differ where two moves are equally good.)
    let solve = |threads: &str| {
        json_of(
            kalah()
                .args(["solve", "--pits", "5", "--seeds", "3", "--tt-mb", "64"])
                .args(["--json", "--quiet"])
                .args(threads.split(' ')),
        )
        .remove(0)
    };
    let one = solve("--threads 1");
    for threads in ["--threads 2", "--threads 3", "--threads 2 --split-seeds 11"] {
        let many = solve(threads);
        assert_eq!(many["value"], one["value"], "{threads}");
        assert!(many["pv"].as_array().is_some_and(|pv| !pv.is_empty()));
    }
    let out = kalah()
        .args(["solve", "--pits", "2", "--seeds", "1", "--threads", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a thread count"), "{stderr}");
}

/// The bounds of `--json`'s `proof`: (best lower bound, best upper bound), each checked
/// against `value`.
fn proof_bounds(v: &Value) -> (i64, i64) {
    let value = v["value"].as_i64().unwrap();
    let (mut lo, mut hi) = (i64::MIN, i64::MAX);
    for b in v["proof"].as_array().unwrap() {
        let m = b["margin"].as_i64().unwrap();
        assert!(b["nodes"].as_u64().unwrap() > 0, "{b}");
        match b["bound"].as_str().unwrap() {
            "at_least" => {
                assert!(m <= value, "{b} against {value}");
                lo = lo.max(m);
            }
            "at_most" => {
                assert!(m >= value, "{b} against {value}");
                hi = hi.min(m);
            }
            other => panic!("bound {other}"),
        }
    }
    (lo, hi)
}

#[test]
fn the_proof_lists_bounds_that_meet_at_the_value() {
    // Kalah(4,3)'s start (+6), and boards with stores, South and North to move: with
    // North to move a bound on the mover's gain is the opposite bound on the margin.
    for position in [
        "3,3,3,3/0/3,3,3,3/0/A",
        "4,4,4,4/0/4,4,0,5/1/A",
        "4,4,4,4/0/5,5,5,0/1/B",
    ] {
        let v = &json_of(kalah().args(["solve", "--position", position, "--json", "--quiet"]))[0];
        let value = v["value"].as_i64().unwrap();
        assert_eq!(proof_bounds(v), (value, value), "{position}: {v}");
        let text = kalah()
            .args(["solve", "--position", position, "--quiet"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&text.stdout).to_string();
        assert!(text.contains("proof:     "), "{text}");
        assert!(text.contains(&format!("margin <= {value:+}")), "{text}");
        assert!(text.contains(&format!("margin >= {value:+}")), "{text}");
    }
}

#[test]
fn a_guess_changes_the_tests_not_the_value() {
    let base = ["solve", "--pits", "5", "--seeds", "3", "--json", "--quiet"];
    let plain = &json_of(kalah().args(base))[0];
    let value = plain["value"].as_i64().unwrap();
    // The deepening's guess is off here: stepping up to the value takes a test more.
    assert!(plain["proof"].as_array().unwrap().len() > 2, "{plain}");
    // The right guess: one test proves each bound.
    let right = &json_of(kalah().args(base).args(["--guess", &value.to_string()]))[0];
    assert_eq!(right["value"], value);
    assert_eq!(right["proof"].as_array().unwrap().len(), 2, "{right}");
    assert_eq!(proof_bounds(right), (value, value));
    // Wrong guesses, on either side and outside the possible margins.
    for guess in [
        value - 6,
        value + 4,
        -99,
        99,
        i32::MIN as i64,
        i32::MAX as i64,
    ] {
        let v = &json_of(kalah().args(base).args(["--guess", &guess.to_string()]))[0];
        assert_eq!(v["value"], value, "guess {guess}");
        assert_eq!(proof_bounds(v), (value, value), "guess {guess}");
    }
    // A guess for kalah moves, which searches every move, is refused.
    let out = kalah()
        .args(["moves", "--pits", "5", "--seeds", "3", "--guess", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--guess"));
}

/// The exact search's tests as stderr names them where it is not a terminal: each start
/// ("exact: testing margin >= +8") and each end ("exact: margin >= +8? yes: margin >=
/// +8  (...)"), as (question, yes, proved bound) of the ends in order, with the check that
/// each end follows the start of the same question.
fn tests_on_stderr(stderr: &str) -> Vec<(String, bool, String)> {
    let mut started = None;
    let mut ended = Vec::new();
    for line in stderr.lines().map(str::trim) {
        if let Some(q) = line.strip_prefix("exact: testing ") {
            assert_eq!(started, None, "two starts in a row: {stderr}");
            started = Some(q.to_string());
        } else if let Some(rest) = line.strip_prefix("exact: margin ") {
            let Some((q, rest)) = rest.split_once("? ") else {
                continue; // the iteration's line: "exact: margin  +8  nodes ..."
            };
            let q = format!("margin {q}");
            assert_eq!(started.take().as_ref(), Some(&q), "{stderr}");
            let (answer, rest) = rest.split_once(": ").unwrap();
            let proved = rest.split("  (").next().unwrap().to_string();
            ended.push((q, answer == "yes", proved));
        }
    }
    assert_eq!(started, None, "a test that did not end: {stderr}");
    ended
}

#[test]
fn solve_names_each_exact_test_on_stderr_as_a_final_margin() {
    // Empty-capture Kalah(4,3) is +8 (Irving, Donkers & Uiterwijk 2000, Table 9); with
    // North to move first the margins are North's to minimise ("margin <= m").
    for (pos, at_least, value) in [
        ("3,3,3,3/0/3,3,3,3/0/A", true, 8),
        ("3,3,3,3/0/3,3,3,3/0/B", false, -8),
    ] {
        let out = kalah()
            .args(["solve", "--position", pos, "--capture", "empty"])
            .args([
                "--endgame",
                "none",
                "--tt-mb",
                "16",
                "--threads",
                "2",
                "--json",
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        // stdout is one JSON object, the progress all on stderr.
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(v["value"], value, "{pos}");
        // Each test of the proof, named by the bound it tests and the bound it proved.
        let proof = v["proof"].as_array().unwrap();
        let tests = tests_on_stderr(&stderr);
        assert_eq!(tests.len(), proof.len(), "{stderr}");
        assert!(!tests.is_empty());
        for ((asked, yes, proved), b) in tests.iter().zip(proof) {
            let op = if at_least { ">=" } else { "<=" };
            assert!(asked.starts_with(&format!("margin {op} ")), "{asked}");
            let bound_op = if b["bound"] == "at_least" { ">=" } else { "<=" };
            let m = b["margin"].as_i64().unwrap();
            assert_eq!(*proved, format!("margin {bound_op} {m:+}"));
            // A yes proves the bound asked about (or a better one), a no its opposite.
            assert_eq!(*yes, bound_op == op, "{asked}: {proved}");
        }
        let last = format!("exact: margin {:>4}", format!("{value:+}"));
        assert!(
            stderr.lines().any(|l| l.trim().starts_with(&last)),
            "{stderr}"
        );
    }
    // Quiet: no progress at all.
    let quiet = kalah()
        .args([
            "solve",
            "--position",
            "3,3,3,3/0/3,3,3,3/0/A",
            "--capture",
            "empty",
        ])
        .args(["--endgame", "none", "--tt-mb", "16", "--json", "--quiet"])
        .output()
        .unwrap();
    assert!(quiet.status.success());
    assert!(
        quiet.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
    let v: Value = serde_json::from_str(&String::from_utf8(quiet.stdout).unwrap()).unwrap();
    assert_eq!(v["value"], 8);
}
