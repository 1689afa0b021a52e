//! `kalah serve`'s JSON API, without a browser: every endpoint, the values against
//! `kalah moves`, bad requests (4xx JSON with the CLI's message), the budget of a search
//! and the bound on concurrent searches.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use common::{api_moves, enc, Server, NO_SEARCH};
use serde_json::Value;

/// `kalah moves --json ARGS`: each move's text and value, best first.
fn cli_moves(args: &[&str]) -> Vec<(String, i64)> {
    let out = Command::cargo_bin("kalah")
        .unwrap()
        .args(["moves", "--json", "--quiet"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "kalah moves {args:?} failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["move"].as_str().unwrap().to_string(),
                v["value"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// The CLI flags `--k v` of query pairs `k=v`.
fn flags(pairs: &[(&str, &str)]) -> Vec<String> {
    pairs
        .iter()
        .flat_map(|(k, v)| [format!("--{k}"), v.to_string()])
        .collect()
}

fn query(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", enc(v)))
        .collect::<Vec<_>>()
        .join("&")
}

#[test]
fn moves_are_the_values_of_kalah_moves() {
    let server = Server::start(&["--threads", "1"]);
    let cases: &[&[(&str, &str)]] = &[
        &[("pits", "3"), ("seeds", "3")],
        &[("pits", "4"), ("seeds", "2"), ("capture", "empty")],
        &[("pits", "3"), ("seeds", "2"), ("direction", "cw")],
        &[
            ("pits", "3"),
            ("seeds", "3"),
            ("sowing", "relay"),
            ("end", "mover"),
        ],
        &[
            ("position", "1,0,2,3/4/0,4,0,1/2/B"),
            ("remaining", "emptier"),
        ],
        &[
            ("position", "2,0,1/0/0,3,1/1/A"),
            ("opp-store", "sow"),
            ("pie", "1"),
        ],
    ];
    for case in cases {
        let (status, v) = server.get(&format!("/api/moves?{}", query(case)));
        assert_eq!(status, 200, "{case:?}: {v}");
        assert_eq!(v["status"], "exact", "{v}");
        let cli: Vec<String> = flags(
            &case
                .iter()
                .filter(|(k, _)| *k != "pie")
                .copied()
                .collect::<Vec<_>>(),
        );
        let cli: Vec<&str> = cli.iter().map(String::as_str).collect();
        let want = cli_moves(&cli);
        assert_eq!(api_moves(&v), want, "{case:?}");
        // The best move leads the list and the variation, and its value is the position's.
        assert_eq!(v["best_move"].as_str(), Some(want[0].0.as_str()));
        assert_eq!(v["pv"][0].as_str(), Some(want[0].0.as_str()));
        assert_eq!(v["value"].as_i64(), Some(want[0].1));
        // Each move's position is the one `kalah play` reaches.
        for m in v["moves"].as_array().unwrap() {
            let mut args = vec!["play".to_string(), "--json".to_string()];
            args.extend(cli.iter().map(|s| s.to_string()));
            if !case.iter().any(|(k, _)| *k == "position") {
                args.push("--position".into());
                args.push(v["position"].as_str().unwrap().into());
            }
            args.push(m["move"].as_str().unwrap().into());
            let out = Command::cargo_bin("kalah")
                .unwrap()
                .args(&args)
                .output()
                .unwrap();
            let line: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(line["position"], m["position"], "{case:?} {m}");
        }
        // Asked again, the answer comes from the cache, the same.
        let (_, again) = server.get(&format!("/api/moves?{}", query(case)));
        assert_eq!(again["cached"], true);
        assert_eq!(api_moves(&again), want);
    }
}

#[test]
fn config_gives_every_default_switch_as_a_request_gets_it() {
    for args in [&[][..], &["--pits", "4", "--capture", "empty", "--pie"][..]] {
        let server = Server::start(args);
        let (status, cfg) = server.get("/api/config");
        assert_eq!(status, 200, "{cfg}");
        // The rules of a request without parameters, every switch named.
        let (_, start) = server.get("/api/position");
        assert_eq!(cfg["defaults"], start["game"], "{args:?}: {cfg}");
        assert_eq!(
            cfg["defaults"].as_object().map(|o| o.len()),
            Some(9),
            "{cfg}"
        );
    }
    let server = Server::start(&[]);
    let (_, cfg) = server.get("/api/config");
    assert_eq!(cfg["defaults"]["pits"], 6);
    assert_eq!(cfg["defaults"]["seeds"], 4);
    assert_eq!(cfg["defaults"]["capture"], "standard");
    assert_eq!(cfg["defaults"]["pie"], false);
}

#[test]
fn a_finished_game_has_its_final_margin_and_no_moves() {
    let server = Server::start(&[]);
    let (status, v) = server.get("/api/moves?position=0,0/1/2,1/0/A");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["game_over"], true);
    assert_eq!(v["value"], -2);
    assert_eq!(v["final_margin"], -2);
    assert_eq!(v["moves"], serde_json::json!([]));
    assert_eq!(v["best_move"], Value::Null);
}

#[test]
fn positions_inside_the_database_are_read_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    common::db::built(dir.path(), 3, 8, &[]);
    let server = Server::start(&["--db", out, "--pits", "3"]);
    let pos = "2,0,1/0/0,3,1/1/A";
    let (status, v) = server.get(&format!("/api/moves?position={}", enc(pos)));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["source"], "database");
    assert_eq!(v["nodes"], 0);
    assert_eq!(api_moves(&v), cli_moves(&["--position", pos]));
    // A position with more seeds than the database holds is searched, probing it.
    let (_, v) = server.get("/api/moves?seeds=3");
    assert_eq!(v["source"], "search");
    assert_eq!(
        api_moves(&v),
        cli_moves(&["--pits", "3", "--seeds", "3", "--db", out])
    );
    let (_, cfg) = server.get("/api/config");
    assert_eq!(cfg["db"], out);
    assert_eq!(cfg["defaults"]["pits"], 3);
}

#[test]
fn play_gives_each_move_annotated_and_the_next_position() {
    let server = Server::start(&[]);
    let (status, v) = server.get("/api/play?move=A3");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["played"][0]["move"], "A3+");
    assert_eq!(v["played"][0]["free_move"], true);
    assert_eq!(v["position"], "4,4,0,5,5,5/1/4,4,4,4,4,4/0/A");
    assert_eq!(v["to_move"], "A");
    // A record of several moves, as `kalah play --json` plays it.
    let (status, v) = server.get(&format!("/api/play?move={}", enc("A3 A6 B1")));
    assert_eq!(status, 200, "{v}");
    let out = Command::cargo_bin("kalah")
        .unwrap()
        .args(["play", "--json", "A3 A6 B1"])
        .output()
        .unwrap();
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (api, cli) in v["played"].as_array().unwrap().iter().zip(&lines) {
        for k in ["move", "position", "free_move", "captured", "game_over"] {
            assert_eq!(api[k], cli[k], "{k}");
        }
    }
    assert_eq!(v["played"].as_array().unwrap().len(), 3);
    assert_eq!(v["position"], lines[2]["position"]);
}

#[test]
fn bad_requests_are_refused_with_the_cli_messages() {
    let server = Server::start(&[]);
    let cases: &[(&str, u16, &str)] = &[
        (
            "/api/moves?capture=sometimes",
            400,
            "expected one of: standard, empty, none",
        ),
        (
            "/api/moves?pits=9",
            400,
            "pits a side must be 1 to 6, got 9",
        ),
        (
            "/api/moves?seeds=0",
            400,
            "seeds a pit must be 1 to 12, got 0",
        ),
        ("/api/moves?pits=x", 400, "'x'"),
        (
            "/api/moves?position=1,2/0/3/0/A",
            400,
            "rows A and B have 2 and 1 pits",
        ),
        (
            "/api/moves?position=1,2,3/0/1,2,3/0/C",
            400,
            "side 'C' must be A or B",
        ),
        (
            "/api/moves?position=1,2,3/0/1,2,3/0/A&pits=4",
            400,
            "3 pits a side but the rules say 4",
        ),
        (
            "/api/moves?position=200,200/0/0,0/0/A",
            400,
            "more than the 255",
        ),
        ("/api/moves?colour=red", 400, "unknown parameter 'colour'"),
        ("/api/moves?pits=3&pits=4", 400, "given twice"),
        ("/api/moves?wait=-1", 400, "'wait'"),
        ("/api/moves?pie=perhaps", 400, "'pie'"),
        ("/api/play", 400, "missing parameter 'move'"),
        ("/api/play?move=", 400, "is empty"),
        (
            "/api/play?move=A3%20B1",
            400,
            "move 2 'B1' is illegal: it is South's turn",
        ),
        ("/api/play?move=Q1", 400, "'Q1' is not a move"),
        ("/api/play?move=A2%2B", 400, "move 1 'A2+' is illegal"),
        (
            "/api/play?position=0,0/1/2,1/0/A&move=A1",
            400,
            "the game is already over",
        ),
        ("/api/nothing", 404, "no such endpoint '/api/nothing'"),
        ("/api/moves?position=%FF", 400, "position"),
    ];
    for &(path, code, text) in cases {
        let (status, v) = server.get(path);
        assert_eq!(status, code, "{path}: {v}");
        let msg = v["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{path}: no error in {v}"));
        assert!(msg.contains(text), "{path}: {msg:?} lacks {text:?}");
    }
    // The same message as the command line's.
    let out = Command::cargo_bin("kalah")
        .unwrap()
        .args(["play", "A3 B1"])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    let (_, v) = server.get("/api/play?move=A3%20B1");
    assert!(err.contains(v["error"].as_str().unwrap()), "{err} / {v}");
    let (status, v) = server.get("/api/position?position=0,0/1/2,1/0/A");
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        (v["game_over"].as_bool(), v["final_margin"].as_i64()),
        (Some(true), Some(-2))
    );
    assert_eq!(server.get("/api/position?position=1,2/0/3/0/A").0, 400);
    // The page and its files.
    let (status, html) = server.get_raw("/");
    assert_eq!(status, 200);
    assert!(html.contains("Kalah explorer") && html.contains("/page.js"));
    assert_eq!(server.get_raw("/page.js").0, 200);
    assert_eq!(server.get_raw("/page.css").0, 200);
}

#[test]
fn a_search_past_its_budget_says_so_and_shows_no_value() {
    // Kalah(6,4) from the start with no database nor endgame table takes minutes.
    let server = Server::start(&NO_SEARCH);
    let t = Instant::now();
    let (status, v) = server.get("/api/moves?wait=0");
    assert_eq!(status, 202, "{v}");
    assert_eq!(v["status"], "searching");
    assert_eq!(v["budget_seconds"], 1.0);
    let (status, v) = server.get("/api/moves");
    assert_eq!(status, 503, "{v}");
    assert_eq!(v["status"], "unfinished");
    error_says(&v, "budget of 1 s");
    assert!(
        v.get("value").is_none() && v.get("best_move").is_none(),
        "{v}"
    );
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
}

#[test]
fn searches_are_bounded_in_number_and_others_still_answered() {
    let server = Server::start(&[
        "--max-searches",
        "1",
        "--search-seconds",
        "3",
        "--endgame-mb",
        "0",
        "--threads",
        "1",
    ]);
    let (status, v) = server.get("/api/moves?wait=0");
    assert_eq!(status, 202, "{v}");
    // A second search while the first runs: refused, not queued.
    let (status, v) = server.get("/api/moves?capture=empty&wait=0");
    assert_eq!(status, 503, "{v}");
    assert_eq!(v["status"], "busy");
    error_says(&v, "--max-searches");
    // The same position again joins the running search.
    let (status, v) = server.get("/api/moves?wait=0");
    assert_eq!(status, 202, "{v}");
    // Requests that need no search go on: the page, play, a finished game.
    assert_eq!(server.get("/api/play?move=A1").0, 200);
    assert_eq!(server.get("/api/moves?position=0,0/1/2,1/0/A").0, 200);
    // Many at once from several clients, all answered.
    let t = Instant::now();
    let port = server.port;
    let threads: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                let path = format!("/api/play?move=A{}", i % 6 + 1);
                common::get_raw(port, &path).0
            })
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), 200);
    }
    assert!(t.elapsed() < Duration::from_secs(10));
    // Once the first search's budget is spent, the slot is free again.
    let (status, v) = server.get("/api/moves");
    assert_eq!(status, 503, "{v}");
    assert_eq!(v["status"], "unfinished");
    let (status, v) = server.get("/api/moves?pits=3&seeds=3");
    assert_eq!(status, 200, "{v}");
}

/// The query string of an answer's `game` (the rules the server resolved), as the page
/// sends them back with a position: the switches and the pie rule, without pits and seeds.
fn switches_of(v: &Value) -> String {
    let game = v["game"].as_object().expect("a game in the answer");
    let mut pairs: Vec<(&str, String)> = game
        .iter()
        .filter(|(k, _)| !["pits", "seeds"].contains(&k.as_str()))
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.as_str(), v)
        })
        .collect();
    pairs.sort();
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    query(&pairs)
}

#[test]
fn a_link_to_a_position_of_another_game_opens_that_game() {
    // The start of Kalah(4,3), on servers whose own game is Kalah(6,4): the page asks
    // `/api/position` with the link's parameters as they are and shows the game the
    // answer names; it must be the position's, as on the command line.
    let pos = "3,3,3,3/0/3,3,3,3/0/A";
    let want = cli_moves(&["--position", pos]);
    for args in [&[][..], &["--pits", "6", "--seeds", "4"][..]] {
        let server = Server::start(args);
        let (status, v) = server.get(&format!("/api/position?position={}", enc(pos)));
        assert_eq!(status, 200, "{args:?}: {v}");
        assert_eq!(v["position"], pos);
        assert_eq!(
            (v["game"]["pits"].as_u64(), v["game"]["seeds"].as_u64()),
            (Some(4), Some(3)),
            "{v}"
        );
        assert!(
            v["rules"].as_str().unwrap().starts_with("Kalah(4,3) "),
            "{v}"
        );
        // Its values: the page's next request sends the rules back with the position.
        let (status, m) = server.get(&format!(
            "/api/moves?{}&position={}",
            switches_of(&v),
            enc(pos)
        ));
        assert_eq!(status, 200, "{args:?}: {m}");
        assert_eq!((&m["rules"], &m["position"]), (&v["rules"], &v["position"]));
        assert_eq!(api_moves(&m), want, "{args:?}");
        // A link whose own seeds are not the position's is refused, never answered for
        // another position.
        let (status, e) = server.get(&format!("/api/position?seeds=4&position={}", enc(pos)));
        assert_eq!(status, 400, "{e}");
        error_says(&e, "holds 24 seeds");
    }
}

/// Asserts that the JSON answer `v` has an `error` that says `says`.
#[track_caller]
fn error_says(v: &Value, says: &str) {
    let error = v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error in {v}"));
    assert!(error.contains(says), "{v}");
}

/// The move named `name` in an `/api/moves` answer.
fn api_moves_named<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == name)
        .unwrap_or_else(|| panic!("{name} missing from {v}"))
}

/// `kalah prove DIR --status --json`: what the committed proof proves.
fn proof_status(dir: &str) -> Value {
    let out = common::kalah_stdout(&["prove", dir, "--status", "--json"]);
    serde_json::from_str(out.trim()).unwrap()
}

/// Whether a proof's status counts every needed unit confirmed and none disagreeing.
fn certified(status: &Value) -> bool {
    let s = &status["second_answers"];
    s["confirmed"] == s["needed"] && s["disagree"].as_array().is_some_and(Vec::is_empty)
}

#[test]
fn the_kalah66_start_is_answered_from_the_committed_proofs() {
    let proofs = concat!(env!("CARGO_MANIFEST_DIR"), "/../results/proofs");
    // No --proofs: the server finds the repository's own. Any search it started would
    // stop at once.
    let server = Server::start(&NO_SEARCH);
    for (capture, dir) in [("standard", "6x6-standard"), ("empty", "6x6-empty")] {
        let want = proof_status(&format!("{proofs}/{dir}"));
        let (status, v) = server.get(&format!(
            "/api/moves?pits=6&seeds=6&capture={capture}&wait=0"
        ));
        assert_eq!(status, 200, "{capture}: {v}");
        assert_eq!(v["status"], "proved", "{v}");
        assert_eq!(v["source"], "proof");
        assert!(v["proof"].as_str().unwrap().ends_with(dir), "{v}");
        assert_eq!(
            (&v["rules"], &v["position"]),
            (&want["rules"], &want["position"])
        );
        assert_eq!(v["exact"], want["proved"]);
        assert_eq!(v["value"], want["value"]);
        assert_eq!(v["margin_at_least"], want["margin_at_least"]);
        assert_eq!(v["margin_at_most"], want["margin_at_most"]);
        // Certified as `kalah prove --status` counts the second answers.
        let root_certified = certified(&want);
        assert_eq!(v["certified"], root_certified, "{v}");
        assert_eq!(
            v["second_answers"]["needed"],
            want["second_answers"]["needed"]
        );
        // Every first move with its proved interval: a value only where it is exact.
        let firsts = want["first_moves"].as_array().unwrap();
        let moves = v["moves"].as_array().unwrap();
        assert_eq!(moves.len(), firsts.len(), "{v}");
        // The start proof's own best move is certified with it where no other move's
        // lower bound reaches the value (South moves first).
        let reaching: Vec<&Value> = firsts
            .iter()
            .filter(|f| want["proved"] == true && f["margin_at_least"] == want["value"])
            .collect();
        // A move's bounds are the start proof's, narrowed by the committed proof of the
        // position it leads to where there is one (6x6-empty-A3: results/kalah66-opening.md).
        for f in firsts {
            let name = f["move"].as_str().unwrap();
            let m = moves
                .iter()
                .find(|m| m["move"] == name)
                .unwrap_or_else(|| panic!("{name} missing from {v}"));
            let (mut lo, mut hi) = (
                f["margin_at_least"].as_i64().unwrap(),
                f["margin_at_most"].as_i64().unwrap(),
            );
            let turn = format!("{proofs}/{dir}-{name}");
            let mut want_certified =
                root_certified && reaching.len() == 1 && reaching[0]["move"] == name;
            if Path::new(&turn).join("proof.txt").is_file() {
                let t = proof_status(&turn);
                lo = lo.max(t["margin_at_least"].as_i64().unwrap());
                hi = hi.min(t["margin_at_most"].as_i64().unwrap());
                want_certified |= t["proved"] == true && certified(&t);
            }
            assert_eq!(m["exact"], lo == hi, "{m}");
            assert_eq!(m["certified"], want_certified, "{m}");
            assert_eq!(m["margin_at_least"], lo, "{m}");
            assert_eq!(m["margin_at_most"], hi, "{m}");
            if lo == hi {
                assert_eq!(m["value"], lo, "{m}");
            } else {
                assert!(m.get("value").is_none(), "a bound shown as a value: {m}");
            }
        }
        // Empty capture's A3 is certified by its own proof (results/kalah66-opening.md),
        // and A1+ under both rules with the start proof: the rules above are not vacuous.
        assert_eq!(api_moves_named(&v, "A1+")["certified"], true, "{v}");
        if capture == "empty" {
            assert_eq!(api_moves_named(&v, "A3")["certified"], true, "{v}");
        }
        // The best move is one proved to reach the value.
        let best = moves.iter().find(|m| m["move"] == v["best_move"]).unwrap();
        assert_eq!(
            (&best["exact"], &best["value"]),
            (&Value::Bool(true), &want["value"])
        );
    }
    // After A1+ South moves again: answered from the proofs of the turns A1+ A2 .. A1+ A6
    // where one is committed, at the start proof's value for A1+.
    for (capture, dir) in [("standard", "6x6-standard"), ("empty", "6x6-empty")] {
        let start = proof_status(&format!("{proofs}/{dir}"));
        let a1 = &start["first_moves"][0];
        assert_eq!(a1["move"], "A1+");
        let turns: Vec<(usize, Value)> = (2..=6)
            .filter_map(|k| {
                let turn = format!("{proofs}/{dir}-A1A{k}");
                Path::new(&turn)
                    .join("proof.txt")
                    .is_file()
                    .then(|| (k, proof_status(&turn)))
            })
            .collect();
        let (_, v) = server.get(&format!(
            "/api/moves?pits=6&seeds=6&capture={capture}&position={}&wait=0",
            enc("0,7,7,7,7,7/1/6,6,6,6,6,6/0/A")
        ));
        if turns.is_empty() {
            assert_ne!(v["status"], "proved", "{v}");
            continue;
        }
        assert_eq!(v["status"], "proved", "{v}");
        assert_eq!(v["margin_at_least"], a1["margin_at_least"], "{v}");
        assert_eq!(v["margin_at_most"], a1["margin_at_most"], "{v}");
        // Certified with A1+ itself; a turn's move by the turn's own proof.
        assert_eq!(v["certified"], true, "{v}");
        for (k, t) in turns {
            let m = api_moves_named(&v, &format!("A{k}"));
            assert_eq!(m["certified"], t["proved"] == true && certified(&t), "{m}");
            let hi = t["margin_at_most"].as_i64().unwrap();
            let hi = hi.min(a1["margin_at_most"].as_i64().unwrap());
            assert_eq!(m["margin_at_least"], t["margin_at_least"], "{m}");
            assert_eq!(m["margin_at_most"], hi, "{m}");
        }
    }
    // Anything but exactly a proof's rules and root is not answered from it.
    for q in [
        "pits=6&seeds=6&pie=1",
        "pits=6&seeds=6&capture=none",
        "pits=6&seeds=6&remaining=emptier",
        "position=6,6,6,6,6,6/0/6,6,6,6,6,6/0/B",
    ] {
        let (_, v) = server.get(&format!("/api/moves?{q}&wait=0"));
        assert_ne!(v["status"], "proved", "{q}: {v}");
    }
    let (_, cfg) = server.get("/api/config");
    let committed = std::fs::read_dir(proofs)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().join("proof.txt").is_file())
        .count();
    assert!(committed >= 2);
    assert_eq!(
        cfg["proofs"].as_array().map(Vec::len),
        Some(committed),
        "{cfg}"
    );
    drop(server);
    // A --proofs of one proof directory answers from it alone; a missing one is refused.
    let one = format!("{proofs}/6x6-empty");
    let mut args = NO_SEARCH.to_vec();
    args.extend(["--proofs", &one]);
    let server = Server::start(&args);
    let (_, v) = server.get("/api/moves?pits=6&seeds=6&capture=empty&wait=0");
    assert_eq!(v["status"], "proved", "{v}");
    let (_, v) = server.get("/api/moves?pits=6&seeds=6&wait=0");
    assert_ne!(v["status"], "proved", "{v}");
    let out = Command::cargo_bin("kalah")
        .unwrap()
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--proofs",
            "/nonexistent/proofs",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("--proofs") && err.contains("/nonexistent/proofs"),
        "{err}"
    );
}

#[test]
fn fair_starts_are_offered_for_rules_with_a_committed_list() {
    let server = Server::start(&[]);
    let (status, v) = server.get("/api/fair?pits=4&seeds=3&capture=standard");
    assert_eq!(status, 200, "{v}");
    let starts = v["starts"].as_array().unwrap();
    assert_eq!(v["count"].as_u64(), Some(starts.len() as u64));
    assert!(v["rules"]
        .as_str()
        .unwrap()
        .starts_with("Kalah(4,3) capture=standard"));
    // Each start of a sample is a draw: its best move for South ends level.
    for s in starts.iter().step_by(starts.len() / 8 + 1) {
        let moved = s["moved"].as_u64().unwrap();
        assert!((1..=v["moved"].as_u64().unwrap()).contains(&moved), "{s}");
        let path = format!(
            "/api/moves?position={}",
            enc(s["position"].as_str().unwrap())
        );
        let (status, m) = server.get(&path);
        assert_eq!(status, 200, "{m}");
        assert_eq!(m["value"], 0, "{s}: {m}");
        assert_eq!(api_moves(&m)[0].1, 0, "{s}: {m}");
    }
    // A chosen one, by its number: the link of a start reproduces it.
    let (status, one) = server.get("/api/fair?pits=4&seeds=3&pick=2");
    assert_eq!(status, 200, "{one}");
    assert_eq!(one["starts"], serde_json::json!([starts[1]]));
    let (status, e) = server.get("/api/fair?pits=4&seeds=3&pick=0");
    assert_eq!(status, 400);
    error_says(&e, "pick=0");
    let (status, e) = server.get("/api/fair?pits=6&seeds=6");
    assert_eq!(status, 404);
    error_says(&e, "no committed list of fair starts for Kalah(6,6)");
    // The page offers it.
    let (_, html) = server.get_raw("/");
    assert!(html.contains(r#"id="fair""#));
    let (_, js) = server.get_raw("/page.js");
    assert!(js.contains("/api/fair"));
}
