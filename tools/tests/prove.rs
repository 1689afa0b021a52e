//! `kalah prove`: the proof's value is `kalah solve`'s, through kills, concurrent workers
//! and damaged result files.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

const KALAH: &str = env!("CARGO_BIN_EXE_kalah");

fn run(args: &[&str]) -> std::process::Output {
    Command::new(KALAH).args(args).output().expect("run kalah")
}

fn json_of(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "kalah failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

/// `kalah solve`'s final margin.
fn solve(rules: &[&str]) -> i64 {
    let mut args = vec!["solve", "--json", "--quiet", "--threads", "1"];
    args.extend_from_slice(rules);
    json_of(&run(&args))["value"].as_i64().unwrap()
}

fn prove(dir: &Path, rest: &[&str]) -> std::process::Output {
    let mut args = vec!["prove", dir.to_str().unwrap(), "--quiet", "--threads", "1"];
    args.extend_from_slice(rest);
    run(&args)
}

/// `kalah prove DIR RULES MORE` on a fresh folder's `proof` directory: the folder (the
/// proof lives as long as it), that directory and the run's output.
fn first_run(rules: &[&str], more: &[&str]) -> (tempfile::TempDir, PathBuf, Output) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("proof");
    let mut args = rules.to_vec();
    args.extend_from_slice(more);
    let out = prove(&d, &args);
    (dir, d, out)
}

fn status(dir: &Path) -> Value {
    json_of(&prove(dir, &["--status", "--json"]))
}

fn proved_value(v: &Value) -> i64 {
    assert_eq!(v["proved"], true, "{v}");
    v["value"].as_i64().unwrap()
}

#[test]
fn the_proof_gives_the_solve_value_under_several_rule_sets() {
    let cases: &[(&[&str], &str)] = &[
        (&["--pits", "4", "--seeds", "3"], "2"),
        (&["--pits", "4", "--seeds", "4", "--capture", "empty"], "3"),
        (
            &[
                "--pits",
                "4",
                "--seeds",
                "2",
                "--end",
                "mover",
                "--remaining",
                "emptier",
            ],
            "4",
        ),
        (&["--pits", "5", "--seeds", "3"], "1"),
        (&["--pits", "6", "--seeds", "3", "--capture", "empty"], "2"),
        (&["--pits", "4", "--seeds", "3", "--sowing", "relay"], "0"),
        (
            &[
                "--pits",
                "4",
                "--seeds",
                "3",
                "--position",
                "0,3,4,4/1/3,3,0,4/2/B",
            ],
            "2",
        ),
    ];
    for (rules, depth) in cases {
        let (_dir, d, out) = first_run(rules, &["--depth", depth, "--json"]);
        let got = proved_value(&json_of(&out));
        assert_eq!(got, solve(rules), "{rules:?} depth {depth}");
        // Resumed when complete: the same value from the stored results alone, and the
        // check re-derives it and re-solves every unit.
        assert_eq!(proved_value(&status(&d)), got);
        let check = json_of(&prove(&d, &["--check", "--sample", "1000", "--json"]));
        assert_eq!(check["disagreements"], 0, "{check}");
        assert_eq!(check["margin_at_least"].as_i64(), Some(got));
    }
}

/// A seed from the clock, printed so that a failure can be replayed.
fn clock_seed() -> u64 {
    let s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("seed {s}");
    s | 1
}

fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn spawn(dir: &Path, rest: &[&str]) -> Child {
    Command::new(KALAH)
        .args(["prove", dir.to_str().unwrap(), "--quiet", "--threads", "1"])
        .args(rest)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn kalah")
}

#[test]
fn killed_workers_and_coordinators_lose_nothing_and_count_nothing_twice() {
    let rules = ["--pits", "6", "--seeds", "3"];
    let expect = solve(&rules);
    let (_dir, d, out) = first_run(&rules, &["--depth", "5", "--init"]);
    assert!(out.status.success());
    let mut x = clock_seed();
    for _ in 0..6 {
        // A coordinator and a worker, each SIGKILLed at a random moment.
        let mut a = spawn(&d, &["--lease", "2"]);
        let mut b = spawn(&d, &["--worker", "--lease", "2"]);
        std::thread::sleep(Duration::from_millis(100 + next(&mut x) % 1200));
        a.kill().unwrap();
        std::thread::sleep(Duration::from_millis(next(&mut x) % 200));
        b.kill().unwrap();
        a.wait().unwrap();
        b.wait().unwrap();
        let s = status(&d);
        assert_eq!(s["units"]["duplicates"], 0, "{s}");
        eprintln!("after the kills: {} units done", s["units"]["done"]);
    }
    let out = prove(&d, &["--lease", "2", "--json"]);
    let end = json_of(&out);
    assert_eq!(proved_value(&end), expect, "{end}");
    // Every unit answered once: as many records as distinct units.
    assert_eq!(end["units"]["duplicates"], 0, "{end}");
    assert_eq!(end["units"]["records"], end["units"]["done"], "{end}");
    assert_eq!(end["units"]["in_flight"], 0);
    let check = json_of(&prove(&d, &["--check", "--sample", "20", "--json"]));
    assert_eq!(check["disagreements"], 0, "{check}");
}

#[test]
fn concurrent_workers_on_one_directory_reach_the_value() {
    let rules = ["--pits", "6", "--seeds", "3", "--capture", "empty"];
    let expect = solve(&rules);
    let (_dir, d, out) = first_run(&rules, &["--depth", "4", "--init"]);
    assert!(out.status.success());
    let mut workers: Vec<Child> = (0..3)
        .map(|_| spawn(&d, &["--worker", "--lease", "5"]))
        .collect();
    for w in &mut workers {
        assert!(w.wait().unwrap().success());
    }
    let s = status(&d);
    assert_eq!(proved_value(&s), expect, "{s}");
    assert!(s["result_files"].as_u64().unwrap() >= 1);
    assert_eq!(s["units"]["in_flight"], 0);
}

/// The results files of a finished proof, largest first.
fn result_files(d: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(d.join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).unwrap().len()));
    v
}

#[test]
fn damaged_results_are_an_error_and_a_torn_tail_is_solved_again() {
    let rules = ["--pits", "4", "--seeds", "4"];
    let expect = solve(&rules);
    let (dir, d, out) = first_run(&rules, &["--depth", "2"]);
    assert!(out.status.success());
    let file = result_files(&d).remove(0);
    let good = std::fs::read(&file).unwrap();
    assert!(good.len() >= 3 * 64, "at least three records");

    // One flipped bit in the first record: an error naming the file and the record.
    let mut bad = good.clone();
    bad[40] ^= 4;
    std::fs::write(&file, &bad).unwrap();
    for verb in [&["--status"][..], &["--check"], &[]] {
        let out = prove(&d, verb);
        assert_eq!(out.status.code(), Some(1), "{verb:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("record 0") && err.contains("checksum") && err.contains(".kpr"),
            "{err}"
        );
    }

    // A record of another proof: an error too.
    let other = dir.path().join("other");
    assert!(
        prove(&other, &["--pits", "4", "--seeds", "3", "--depth", "1"])
            .status
            .success()
    );
    let foreign = std::fs::read(result_files(&other).remove(0)).unwrap();
    let mut mixed = foreign[..64].to_vec();
    mixed.extend_from_slice(&good);
    std::fs::write(&file, &mixed).unwrap();
    let out = prove(&d, &["--status"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("another proof"));

    // Cut inside the last record (a worker killed while writing it): a warning, the
    // unit is solved again, and the value is the same.
    std::fs::write(&file, &good[..good.len() - 20]).unwrap();
    let out = prove(&d, &["--status", "--json"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("torn"));
    let out = prove(&d, &["--json"]);
    assert_eq!(proved_value(&json_of(&out)), expect);

    // Rules that differ from the directory's are refused.
    let out = prove(&d, &["--pits", "4", "--seeds", "5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds a proof of Kalah(4,4)"));
}

#[test]
fn units_stopped_at_their_budget_are_split_and_the_proof_still_reaches_the_value() {
    // Kalah(6,3): its first units search far longer than 2 ms, so some are stopped
    // and split; the proof must still close at the solve value, and --check must agree.
    let rules = ["--pits", "6", "--seeds", "3"];
    let expect = solve(&rules);
    let (_dir, d, out) = first_run(
        &rules,
        &["--depth", "1", "--unit-seconds", "0.002", "--json"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    assert_eq!(proved_value(&v), expect);
    assert!(v["splits"].as_u64().unwrap() > 0, "{v}");
    assert!(v["this_run"]["splits"].as_u64().unwrap() > 0, "{v}");
    let st = status(&d);
    assert_eq!(proved_value(&st), expect);
    assert_eq!(st["splits"], v["splits"]);
    let out = prove(&d, &["--check", "--sample", "6", "--seed", "7"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    for bad in ["-1", "nan", "x"] {
        let out = prove(&d, &["--unit-seconds", bad]);
        assert_eq!(out.status.code(), Some(2), "--unit-seconds {bad}");
    }
}

/// Run `kalah prove DIR` in the background; killed after `limit` if it has not ended
/// (a worker that waits for ever): its status then, or `None` when it was killed.
fn prove_within(dir: &Path, limit: Duration) -> Option<std::process::ExitStatus> {
    let mut child = Command::new(KALAH)
        .args(["prove", dir.to_str().unwrap(), "--quiet", "--threads", "1"])
        .args(["--tt-mb", "16"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run kalah");
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        if let Some(st) = child.try_wait().expect("wait") {
            return Some(st);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

#[test]
fn an_empty_claim_left_past_its_lease_does_not_stall_the_proof() {
    // A worker killed between creating its claim on the first unit and writing it.
    let (_tmp, d, out) = first_run(
        &["--pits", "4", "--seeds", "3", "--depth", "2"],
        &["--init"],
    );
    assert!(out.status.success());
    assert_eq!(status(&d)["proved"], false);
    // An empty claim ten minutes old on every question any leaf could be asked.
    let proof = solver::proof::Proof::open(&d).unwrap();
    let st = proof.load().unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(600);
    for leaf in &st.tree.front.leaves {
        for beta in -leaf.seeds..=leaf.seeds + 1 {
            let name = solver::proof::unit_name(&leaf.board, beta);
            let f = std::fs::File::create(d.join("claims").join(name)).unwrap();
            f.set_modified(old).unwrap();
        }
    }
    let st = prove_within(&d, Duration::from_secs(60)).expect("the worker did not wait for ever");
    assert!(st.success());
    assert_eq!(
        proved_value(&status(&d)),
        solve(&["--pits", "4", "--seeds", "3"])
    );
}
