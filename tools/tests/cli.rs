//! The `kalah` command on real invocations: output lines, JSON lines, the worked examples
//! of the rules texts in `shared/seeds/`, and the error messages and exit statuses.

use assert_cmd::Command;
use serde_json::Value;

mod common;
use common::assert_has;

fn kalah(args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("kalah").unwrap().args(args).assert()
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stderr.clone()).unwrap()
}

/// The JSON lines of `kalah play --json`, each checked to be an object with the keys.
fn json_lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"));
            for key in [
                "move",
                "position",
                "game_over",
                "captured",
                "free_move",
                "repeated",
            ] {
                assert!(v.get(key).is_some(), "no '{key}' in {l}");
            }
            v
        })
        .collect()
}

/// Runs a command that must fail as bad input; returns its standard error.
fn bad_input(args: &[&str]) -> String {
    let a = kalah(args).code(2);
    let err = stderr(&a);
    assert!(err.starts_with("error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn play_prints_each_move_its_board_and_the_record() {
    let out = common::kalah_stdout(&["play", "A3 A6", "B1"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("Kalah(6,4) capture=standard"), "{out}");
    assert_eq!(lines[1], "start: 4,4,4,4,4,4/0/4,4,4,4,4,4/0/A");
    // The board: North's row on top, B6..B1 left to right, South's A1..A6 below.
    assert_eq!(
        lines[2].split_whitespace().collect::<Vec<_>>(),
        ["B6", "B5", "B4", "B3", "B2", "B1"]
    );
    assert_eq!(
        lines[6].split_whitespace().collect::<Vec<_>>(),
        ["A1", "A2", "A3", "A4", "A5", "A6"]
    );
    assert_eq!(lines[7], "South (A) to move");
    for m in ["1. A3+", "2. A6", "3. B1"] {
        assert!(lines.contains(&m), "no line '{m}' in\n{out}");
    }
    // After B1: North's row B6..B1 is 5,5,6,6,6,0; South's store holds 2.
    assert_has(
        &out,
        &[
            "        5   5   6   6   6   0\n",
            " N  0                           2  S\n",
        ],
    );
    // The record, then the position reached, as `--position` takes it (the JSON's last).
    let n = lines.len();
    assert_eq!(lines[n - 2], "record: A3+ A6 B1");
    assert_eq!(lines[n - 1], "position: 4,4,0,5,5,0/2/0,6,6,6,5,5/0/A");
    assert!(!out.contains("final score"), "{out}");
}

#[test]
fn play_json_gives_one_object_a_move() {
    let a = kalah(&["play", "--json", "A3 A6 B1"]).success();
    let v = json_lines(&stdout(&a));
    assert_eq!(v.len(), 3);
    assert_eq!(v[0]["move"], "A3+");
    assert_eq!(v[0]["free_move"], true);
    assert_eq!(v[0]["position"], "4,4,0,5,5,5/1/4,4,4,4,4,4/0/A");
    assert_eq!(v[1]["move"], "A6");
    assert_eq!(v[2]["position"], "4,4,0,5,5,0/2/0,6,6,6,5,5/0/A");
    assert!(v
        .iter()
        .all(|x| x["game_over"] == false && x["repeated"] == false));
}

#[test]
fn a3_is_the_free_opening_of_kalah_6_4() {
    // 000 and 003: "in the four-seed game, A3 does it on move one".
    let a = kalah(&["play", "--json", "A3"]).success();
    assert_eq!(json_lines(&stdout(&a))[0]["move"], "A3+");
    let a = kalah(&["show"]).success();
    assert!(
        stdout(&a).contains("legal moves: A1 A2 A3+ A4 A5 A6"),
        "{}",
        stdout(&a)
    );
    // Three seeds: A4 is the free move (000, "three seeds carry A4 to your store").
    let a = kalah(&["show", "--seeds", "3"]).success();
    assert!(stdout(&a).contains("legal moves: A1 A2 A3 A4+ A5 A6"));
}

#[test]
fn the_five_seed_capture_of_the_rules_text() {
    // 003: South 1,0,2,2,2,2; four seeds opposite A2, i.e. in B5 (the fifth of B1..B6).
    // North's row holds nothing else, so the capture also empties it and ends the game.
    let out = common::kalah_stdout(&["play", "--position", "1,0,2,2,2,2/0/0,0,0,0,4,0/0/A", "A1"]);
    assert_has(
        &out,
        &["1. A1x5#", "final score: South 13, North 0, margin +13"],
    );
    // With seeds elsewhere on North's side the game goes on: exactly A1x5.
    let pos = "1,0,2,2,2,2/0/3,0,0,0,4,0/0/A";
    let a = kalah(&["play", "--json", "--position", pos, "A1"]).success();
    let v = json_lines(&stdout(&a));
    assert_eq!(v[0]["move"], "A1x5");
    assert_eq!(v[0]["captured"], 5);
    assert_eq!(v[0]["position"], "0,0,2,2,2,2/5/3,0,0,0,0,0/0/B");
    let a = kalah(&["show", "--position", pos]).success();
    assert!(stdout(&a).contains("legal moves: A1x5 A3 A4 A5+ A6"));
}

#[test]
fn a_finished_game_prints_the_final_score() {
    // Kalah(2,1): A2 ends in the store; A1 lands in the emptied A2 and takes B1.
    let out = common::kalah_stdout(&["play", "--pits", "2", "--seeds", "1", "A2 A1"]);
    assert_has(
        &out,
        &[
            "1. A2+\n",
            "2. A1x2#\n",
            "game over",
            "\nposition: 0,0/3/0,0/1/B\n",
        ],
    );
    assert!(out.ends_with("final score: South 3, North 1, margin +2 (South minus North)\n"));
    let a = kalah(&["play", "--json", "--pits", "2", "--seeds", "1", "A2 A1"]).success();
    let v = json_lines(&stdout(&a));
    assert_eq!(v[1]["game_over"], true);
    assert_eq!(v[1]["position"], "0,0/3/0,0/1/B");
}

#[test]
fn show_lists_the_side_to_move_and_a_finished_position() {
    let out = common::kalah_stdout(&["show", "--position", "0,1/0/1,1/0/B"]);
    assert!(out.contains("North (B) to move"), "{out}");
    assert!(out.contains("legal moves: B1 B2+"), "{out}");
    let a = kalah(&["show", "--json", "--position", "0,0/1/2,1/0/A"]).success();
    let v: Value = serde_json::from_str(stdout(&a).trim()).unwrap();
    assert_eq!(v["game_over"], true);
    assert_eq!(v["final_margin"], -2);
    assert_eq!(v["legal_moves"], Value::Array(vec![]));
    let a = kalah(&["show", "--position", "0,0/1/2,1/0/A"]).success();
    assert!(stdout(&a).contains("game over"));
}

#[test]
fn an_illegal_move_is_reported_after_the_moves_before_it() {
    let a = kalah(&["play", "A3 A6 B1 A3"]).code(2);
    let out = stdout(&a);
    assert_has(&out, &["3. B1", "record: A3+ A6 B1"]);
    // The position reached is that after the last legal move.
    assert!(
        out.ends_with("position: 4,4,0,5,5,0/2/0,6,6,6,5,5/0/A\n"),
        "{out}"
    );
    let err = stderr(&a);
    assert_eq!(err.trim(), "error: move 4 'A3' is illegal: pit A3 is empty");
    // The same in JSON: the three legal moves, then the error.
    let a = kalah(&["play", "--json", "A3 A6 B1 A3"]).code(2);
    assert_eq!(json_lines(&stdout(&a)).len(), 3);
}

#[test]
fn illegal_moves_name_the_move_and_the_reason() {
    let e = bad_input(&["play", "A3 A3"]);
    assert!(e.contains("move 2 'A3'") && e.contains("empty"), "{e}");
    let e = bad_input(&["play", "A1 A2"]);
    assert_has(&e, &["move 2 'A2'", "North's turn"]);
    let e = bad_input(&["play", "A7"]);
    assert!(e.contains("move 1 'A7'") && e.contains("no pit 7"), "{e}");
    let e = bad_input(&["play", "--pits", "1", "--seeds", "1", "A1 B1"]);
    assert_has(&e, &["move 2 'B1'", "already over"]);
    let e = bad_input(&["play", "A2+"]);
    assert!(e.contains("move 1") && e.contains("'A2'"), "{e}");
    let e = bad_input(&["play", "Q1"]);
    assert!(e.contains("not a move"), "{e}");
}

#[test]
fn bad_rules_and_positions_are_refused() {
    let e = bad_input(&["play", "--capture", "sometimes", "A1"]);
    assert_has(&e, &["sometimes", "standard, empty, none"]);
    let e = bad_input(&["show", "--direction", "sideways"]);
    assert!(e.contains("ccw, cw"), "{e}");
    let e = bad_input(&["show", "--pits", "7"]);
    assert!(e.contains("pits a side must be 1 to 6, got 7"), "{e}");
    let e = bad_input(&["play", "--seeds", "0"]);
    assert!(e.contains("seeds a pit must be 1 to 12, got 0"), "{e}");
    let e = bad_input(&["show", "--position", "4,4/0/4,4/0"]);
    assert!(e.contains("5 parts"), "{e}");
    let e = bad_input(&["show", "--position", "4,x/0/4,4/0/A"]);
    assert!(e.contains("row A"), "{e}");
    let e = bad_input(&["show", "--pits", "3", "--position", "4,4/0/4,4/0/A"]);
    assert!(e.contains("2 pits a side but the rules say 3"), "{e}");
    // Stores so full that a move would overflow them.
    let e = bad_input(&["play", "--position", "4/4294967295/4/0/A", "A1"]);
    assert!(e.contains("stores"), "{e}");
}

#[test]
fn the_position_sets_the_board_size_unless_pits_is_given() {
    let out = common::kalah_stdout(&["show", "--position", "1,2,3/0/3,2,1/0/A"]);
    // Without --seeds, the game named is the one whose 12 seeds the position holds.
    assert!(out.starts_with("Kalah(3,2)"), "{out}");
    assert!(out.contains("legal moves: A1 A2+ A3"), "{out}");
    kalah(&["show", "--pits", "3", "--position", "1,2,3/0/3,2,1/0/A"]).success();
}

#[test]
fn clockwise_play_that_repeats_a_position_says_so() {
    // Kalah(1,1) clockwise, the game ending only when the player due to move has an empty
    // row. South's lone seed in A1 sows into B1 (the next slot clockwise); North's lone
    // seed in B1 sows into A1. Neither reaches a store, so after two moves the position
    // (one seed already in South's store) is back.
    let rules = [
        "--pits",
        "1",
        "--seeds",
        "1",
        "--direction",
        "cw",
        "--end",
        "mover",
    ];
    let mut args = vec!["play"];
    args.extend(rules);
    args.extend(["--position", "1/1/0/0/A", "A1 B1 A1"]);
    let out = common::kalah_stdout(&args);
    assert_has(
        &out,
        &[
            "move 2 'B1' repeats the starting position",
            "move 3 'A1' repeats the position after move 1",
        ],
    );
    args.insert(1, "--json");
    let a = kalah(&args).success();
    let v = json_lines(&stdout(&a));
    let rep: Vec<bool> = v.iter().map(|x| x["repeated"] == true).collect();
    assert_eq!(rep, [false, true, true]);
    // From the start of Kalah(1,1) the same rules cannot cycle: North's two seeds reach
    // its store and its row is empty when it is due to move again.
    let mut args = vec!["play"];
    args.extend(rules);
    args.push("A1 B1");
    let out = common::kalah_stdout(&args);
    assert!(out.contains("2. B1#"), "{out}");
    assert!(!out.contains("repeats"), "{out}");
}

#[test]
fn help_is_available_everywhere() {
    let a = kalah(&["--help"]).success();
    assert!(stdout(&a).contains("Kalah (mancala) perfect-play solver"));
    let out = common::kalah_stdout(&["play", "--help"]);
    assert_has(&out, &["--end", "either: the game ends"]);
    kalah(&["show", "--help"]).success();
}
