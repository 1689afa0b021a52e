//! `scripts/check-proof.py`, a proof checker that shares no code with the solver (its own
//! move generator, record reader, front end and minimax, in Python), against the Rust
//! reader of `kalah prove DIR --status --json`: the same root and first-move intervals
//! under every rule switch the prover accepts, the same verdicts on damaged, foreign and
//! torn result files, and the committed Kalah(6,6) proofs. The second answers (spec in
//! the checker's docs) are tested with check records written here in Python.
//!
//! Skipped, with a message, where `python3` is not installed (it is in CI).

mod common;
use common::python_present;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use serde_json::Value;

const KALAH: &str = env!("CARGO_BIN_EXE_kalah");

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/check-proof.py")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `python3 scripts/check-proof.py DIR --json`.
fn checker(dir: &Path) -> Output {
    Command::new("python3")
        .arg(script())
        .arg(dir)
        .arg("--json")
        .output()
        .expect("run python3")
}

fn json_of(what: &str, out: &Output) -> Value {
    assert!(out.status.success(), "{what} failed: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{what}: not one JSON object ({e}): {}", text(&out.stdout)))
}

fn prove(dir: &Path, rest: &[&str]) -> Output {
    Command::new(KALAH)
        .args(["prove", dir.to_str().unwrap(), "--quiet", "--threads", "1"])
        .args(rest)
        .output()
        .expect("run kalah")
}

fn status(dir: &Path) -> Output {
    prove(dir, &["--status", "--json"])
}

/// The fields both readers print about the root, the first moves and the front end.
const SHARED: [&str; 8] = [
    "proved",
    "value",
    "margin_at_least",
    "margin_at_most",
    "first_moves",
    "front_nodes",
    "leaves",
    "splits",
];

/// Both readers on `dir`: they must agree on every shared field (and on the records
/// counted); the checker's report.
fn agree(dir: &Path) -> Value {
    let rust = json_of("kalah prove --status", &status(dir));
    let py = json_of("check-proof.py", &checker(dir));
    for k in SHARED {
        assert_eq!(
            py[k],
            rust[k],
            "{}: field {k}\nrust {rust}\npython {py}",
            dir.display()
        );
    }
    assert_eq!(py["records"], rust["units"]["records"], "{}", dir.display());
    assert_eq!(py["answered"], rust["units"]["done"], "{}", dir.display());
    assert_eq!(
        py["duplicates"],
        rust["units"]["duplicates"],
        "{}",
        dir.display()
    );
    // The same needed units, in the same order, resting on the same records, judged the
    // same by the second answers.
    assert_eq!(py["needed"], rust["needed"], "{}", dir.display());
    for k in [
        "needed",
        "confirmed",
        "open",
        "disagree",
        "unused_records",
        "records",
    ] {
        assert_eq!(
            py["second_answers"][k],
            rust["second_answers"][k],
            "{}: second_answers.{k}",
            dir.display()
        );
    }
    py
}

/// The results files of a proof, in name order.
fn result_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// A copy of the proof in `from` at `to` holding only its split records and the answer
/// records its needed units name (`needed`, the checker's list).
fn pruned(from: &Path, to: &Path, needed: &Value) {
    std::fs::create_dir_all(to.join("results")).unwrap();
    std::fs::copy(from.join("proof.txt"), to.join("proof.txt")).unwrap();
    let keep: Vec<(String, u64)> = needed
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            let r = &u["record"];
            (
                r["file"].as_str().unwrap().to_string(),
                r["index"].as_u64().unwrap(),
            )
        })
        .collect();
    for f in result_files(from) {
        let name = f.file_name().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&f).unwrap();
        let mut out = Vec::new();
        for (i, rec) in bytes.chunks_exact(64).enumerate() {
            let split = rec[4..8] == [1, 0, 0, 0];
            if split || keep.contains(&(format!("results/{name}"), i as u64)) {
                out.extend_from_slice(rec);
            }
        }
        std::fs::write(to.join("results").join(&name), out).unwrap();
    }
}

/// Every needed unit names a record, and the answers the needed units name (with every
/// split) prove the same root as all the answers, to both readers.
fn needed_suffice(dir: &Path, report: &Value) {
    let needed = &report["needed"];
    let units = needed.as_array().unwrap();
    assert_eq!(
        report["second_answers"]["needed"].as_u64(),
        Some(units.len() as u64)
    );
    let tmp = tempfile::tempdir().unwrap();
    let small = tmp.path().join("pruned");
    pruned(dir, &small, needed);
    let again = agree(&small);
    for k in ["proved", "value", "margin_at_least", "margin_at_most"] {
        assert_eq!(
            again[k],
            report[k],
            "{}: pruned to its needed units",
            dir.display()
        );
    }
}

#[test]
fn the_checkers_move_generator_plays_the_rules_texts_examples() {
    if !python_present("scripts/check-proof.py") {
        return;
    }
    let out = Command::new("python3")
        .arg(script())
        .arg("--selftest")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("selftest: ok"));
}

#[test]
fn the_checker_reads_every_rule_set_as_the_rust_reader_does() {
    if !python_present("scripts/check-proof.py") {
        return;
    }
    // Every value of every switch the prover accepts (cw sowing and the pie rule it
    // refuses), North to move with stores, a proof stopped early (bounds, not a value), and
    // proofs whose units were stopped at a tiny budget and split.
    let cases = [
        "--pits 3 --seeds 3 --depth 2",
        "--pits 4 --seeds 2 --capture empty --end mover --remaining emptier --depth 3",
        "--pits 4 --seeds 3 --capture none --opp-store sow --remaining discard --depth 1",
        "--pits 3 --seeds 3 --sowing relay --depth 2",
        "--pits 4 --seeds 2 --sowing relay --capture standard --opp-store sow --end mover \
         --remaining discard --depth 2",
        "--pits 3 --seeds 3 --capture empty --remaining emptier --depth 3",
        "--pits 4 --seeds 3 --sowing relay --capture empty --end mover --depth 2",
        "--pits 4 --seeds 3 --position 0,3,4,4/1/3,3,0,4/2/B --depth 2",
        "--pits 4 --seeds 3 --depth 2 --max-units 5",
        "--pits 5 --seeds 3 --depth 1 --unit-seconds 0.0005",
        "--pits 6 --seeds 3 --depth 1 --unit-seconds 0.002",
    ];
    let (mut splits, mut check_splits) = (0, 0);
    for case in cases {
        let args: Vec<&str> = case.split_whitespace().collect();
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("proof");
        let out = prove(&d, &args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let report = agree(&d);
        eprintln!(
            "{args:?}: {} .. {}, {} splits, {} needed units",
            report["margin_at_least"],
            report["margin_at_most"],
            report["splits"],
            report["needed"].as_array().unwrap().len()
        );
        splits += report["splits"].as_u64().unwrap();
        needed_suffice(&d, &report);
        // Second answers by `kalah prove`, some of them split at a tiny budget: both
        // readers find every needed unit confirmed.
        let out = prove(&d, &["--second-answers", "--unit-seconds", "0.0002"]);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let report = agree(&d);
        let second = &report["second_answers"];
        assert_eq!(second["confirmed"], second["needed"], "{args:?}: {second}");
        let rust = json_of("kalah prove --status", &status(&d));
        check_splits += rust["second_answers"]["splits"].as_u64().unwrap();
    }
    assert!(splits > 0, "some proof was split");
    assert!(check_splits > 0, "some second answer was split");
}

/// Runs `python3 -c RECORDS ARGS`: writes KPR2 records (see [`RECORDS`]).
fn records(args: &[&str]) {
    let out = Command::new("python3")
        .arg("-c")
        .arg(RECORDS)
        .arg(script().parent().unwrap())
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// `SCRIPTS restamp OUT DIR check IN`: the records of `input` appended to `out`, stamped
/// with the check id of the proof directory `dir`.
fn restamp_for_check(out: &Path, dir: &str, input: &Path) {
    let (out, input) = (out.to_str().unwrap(), input.to_str().unwrap());
    records(&["restamp", out, dir, "check", input]);
}

/// A record writer in Python (XXH3-64 from scripts/kdb.py):
/// `SCRIPTS write OUT DIR proof|check KIND,KEYHEX,BETA,RESULT...` appends records stamped
/// with DIR's proof id (the XXH3-64 of the bytes of DIR/proof.txt) or its check id (of
/// `kalah-proof-check 1\n` and those bytes); `SCRIPTS restamp OUT DIR proof|check IN`
/// appends IN's records stamped so.
const RECORDS: &str = r#"
import struct, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from kdb import xxh3_64
cmd, out, d, which = sys.argv[2:6]
man = open(d + "/proof.txt", "rb").read()
pid = xxh3_64(man if which == "proof" else b"kalah-proof-check 1\n" + man)
def rec(kind, key, beta, result):
    b = b"KPR2" + struct.pack("<IQ", kind, pid) + key.to_bytes(16, "little")
    b += struct.pack("<hhIQII", beta, result, 1, 1, 1, 1)
    return b + struct.pack("<Q", xxh3_64(b))
data = b""
if cmd == "write":
    for r in sys.argv[6:]:
        k, key, beta, result = r.split(",")
        data += rec(int(k), int(key, 16), int(beta), int(result))
else:
    old = open(sys.argv[6], "rb").read()
    for i in range(0, len(old) - 63, 64):
        kind, _, key, beta, result = struct.unpack("<IQ16shh", old[i + 4 : i + 36])
        data += rec(kind, int.from_bytes(key, "little"), beta, result)
with open(out, "ab") as f:
    f.write(data)
"#;

/// What a reader said of a damaged directory: an error (exit 1, its message) or success
/// with its warnings.
/// A finished proof of Kalah(4,3) at depth 2 in a new folder: the folder (the proof lives
/// as long as it) and the proof's directory.
fn kalah_4_3_proved() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("proof");
    let out = prove(&d, &["--pits", "4", "--seeds", "3", "--depth", "2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    (tmp, d)
}

/// The "second answers:" line of each reader's text report on `dir`: Rust's, Python's.
fn second_line(dir: &Path) -> (String, String) {
    let rust = prove(dir, &["--status"]);
    let py = Command::new("python3")
        .arg(script())
        .arg(dir)
        .output()
        .expect("run python3");
    let line = |what: &str, out: &Output| {
        // A disagreement exits 1, after the report.
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{what}: {}",
            text(&out.stderr)
        );
        text(&out.stdout)
            .lines()
            .find(|l| l.starts_with("second answers:"))
            .unwrap_or_else(|| panic!("{what}: no second answers line"))
            .to_string()
    };
    (
        line("kalah prove --status", &rust),
        line("check-proof.py", &py),
    )
}

fn verdict(out: &Output) -> (bool, String) {
    let err = text(&out.stderr);
    match out.status.code() {
        Some(0) => (true, err),
        Some(1) => (false, err),
        c => panic!("exit status {c:?}: {err}"),
    }
}

#[test]
fn damaged_foreign_and_torn_files_get_the_rust_readers_verdicts() {
    if !python_present("scripts/check-proof.py") {
        return;
    }
    let (tmp, d) = kalah_4_3_proved();
    let other = tmp.path().join("other");
    assert!(
        prove(&other, &["--pits", "4", "--seeds", "3", "--depth", "1"])
            .status
            .success()
    );
    let foreign = std::fs::read(&result_files(&other)[0]).unwrap()[..64].to_vec();
    let file = result_files(&d).remove(0);
    let name = file.file_name().unwrap().to_str().unwrap().to_string();
    let good = std::fs::read(&file).unwrap();
    let n = good.len() / 64;
    assert!(n >= 4, "at least four records, got {n}");
    let report = agree(&d);
    let root_key = format!("{:032x}", 0x0303_0303_0303_0303u128);

    // (what is done to the file, error or warning, words both messages hold)
    let mut mid = good.clone();
    mid[64 + 40] ^= 4; // nodes of record 1
    let mut last = good.clone();
    last[good.len() - 30] ^= 1;
    let mut first_foreign = foreign.clone();
    first_foreign.extend_from_slice(&good);
    let mut last_foreign = good.clone();
    last_foreign.extend_from_slice(&foreign);
    let mut magic = good.clone();
    magic[2 * 64] = b'X';
    let cases: Vec<(&str, Vec<u8>, bool, Vec<&str>)> = vec![
        (
            "a flipped bit mid-file",
            mid,
            false,
            vec!["record 1", "checksum", &name],
        ),
        (
            "a flipped bit in the last record",
            last,
            true,
            vec!["torn", &name],
        ),
        (
            "the last record cut short",
            good[..good.len() - 20].to_vec(),
            true,
            vec!["torn"],
        ),
        (
            "a record of another proof first",
            first_foreign,
            false,
            vec!["record 0", "another proof"],
        ),
        (
            "a record of another proof last",
            last_foreign,
            true,
            vec!["torn", "another proof"],
        ),
        (
            "a bad magic mid-file",
            magic,
            false,
            vec!["record 2", "magic"],
        ),
    ];
    for (what, bytes, ok, words) in &cases {
        std::fs::write(&file, bytes).unwrap();
        let (rust_ok, rust_msg) = verdict(&status(&d));
        let (py_ok, py_msg) = verdict(&checker(&d));
        assert_eq!(rust_ok, *ok, "{what}: the Rust reader: {rust_msg}");
        assert_eq!(py_ok, *ok, "{what}: the checker: {py_msg}");
        for w in words {
            assert!(rust_msg.contains(w), "{what}: Rust says {rust_msg}");
            assert!(py_msg.contains(w), "{what}: the checker says {py_msg}");
        }
        if *ok {
            agree(&d);
        }
    }
    std::fs::write(&file, &good).unwrap();

    // Records with this proof's id and checksum but wrong content: a board outside the
    // front end (the start of Kalah(4,2)), an answer outside its board's seeds, and
    // answers that contradict the stored ones (on the root, a node: value >= its seeds).
    let extra = tmp.path().join("extra.kpr");
    let bad_cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "a board outside the front end",
            format!("0,{:032x},0,1", 0x0202_0202_0202_0202u128),
            vec!["not in this proof's front end"],
        ),
        (
            "an answer outside the board's seeds",
            format!("0,{root_key},0,30"),
            vec!["outside the 24 seeds"],
        ),
        (
            "a contradiction",
            format!("0,{root_key},24,24"),
            vec!["contradict"],
        ),
    ];
    for (what, rec, words) in &bad_cases {
        let _ = std::fs::remove_file(&extra);
        // The bad record first, a good one after it: not a torn tail.
        let r = rec.as_str();
        let ok = format!("1,{root_key},0,0");
        records(&[
            "write",
            extra.to_str().unwrap(),
            d.to_str().unwrap(),
            "proof",
            r,
            &ok,
        ]);
        let target = d.join("results").join("zz-extra.kpr");
        std::fs::copy(&extra, &target).unwrap();
        let (rust_ok, rust_msg) = verdict(&status(&d));
        let (py_ok, py_msg) = verdict(&checker(&d));
        std::fs::remove_file(&target).unwrap();
        assert!(!rust_ok, "{what}: the Rust reader accepted it");
        assert!(!py_ok, "{what}: the checker accepted it");
        for w in words {
            assert!(rust_msg.contains(w), "{what}: Rust says {rust_msg}");
            assert!(py_msg.contains(w), "{what}: the checker says {py_msg}");
        }
    }
    assert_eq!(agree(&d)["margin_at_least"], report["margin_at_least"]);
}

#[test]
fn the_committed_kalah_6_6_proofs_check_in_seconds() {
    if !python_present("scripts/check-proof.py") {
        return;
    }
    let proofs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/proofs");
    for (name, value) in [("6x6-standard", 4), ("6x6-empty", 2)] {
        // A copy: the Rust reader makes a claims folder in a proof it opens.
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join(name);
        std::fs::create_dir_all(d.join("results")).unwrap();
        std::fs::copy(proofs.join(name).join("proof.txt"), d.join("proof.txt")).unwrap();
        for f in result_files(&proofs.join(name)) {
            std::fs::copy(&f, d.join("results").join(f.file_name().unwrap())).unwrap();
        }
        let start = Instant::now();
        let out = checker(&d);
        let seconds = start.elapsed().as_secs_f64();
        let report = json_of("check-proof.py", &out);
        eprintln!(
            "{name}: checked in {seconds:.2}s: {} needed units",
            report["needed"].as_array().unwrap().len()
        );
        assert!(seconds < 60.0, "{name}: {seconds:.1}s");
        assert_eq!(report["proved"], true, "{report}");
        assert_eq!(report["value"], value, "{report}");
        let first = &report["first_moves"][0];
        assert_eq!(first["move"], "A1+", "{report}");
        assert_eq!(first["margin_at_least"], value, "{report}");
        assert_eq!(first["margin_at_most"], value, "{report}");
        assert_eq!(agree(&d)["value"], value);
        needed_suffice(&d, &report);
    }
}

/// `scripts/second-answer-cost.py` on the committed standard-capture proof: every second
/// answer of a question the proof asked is paired with its first, grouped by threads and,
/// with `--by-file`, by record file, the two groupings covering the same questions.
#[test]
fn the_second_answers_costs_are_paired_with_the_first_answers() {
    if !python_present("scripts/second-answer-cost.py") {
        return;
    }
    let proof = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/proofs/6x6-standard");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/second-answer-cost.py");
    let questions = |by_file: bool| {
        let mut cmd = Command::new("python3");
        cmd.arg(&script).arg(&proof);
        if by_file {
            cmd.arg("--by-file");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let groups: Vec<u64> = stdout
            .lines()
            .filter(|l| l.starts_with("second answers with "))
            .map(|l| {
                let n = l.split(": ").nth(1).and_then(|r| r.split(' ').next());
                n.and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("no count in {l:?}"))
            })
            .collect();
        assert!(!groups.is_empty(), "{stdout}");
        groups
    };
    let by_threads = questions(false);
    let by_file = questions(true);
    assert!(by_file.len() >= by_threads.len());
    // The committed second answers (8 confirmed when this was written) include the 7
    // questions of two threads and the 1 of one thread that results/kalah66.md pairs.
    assert!(by_threads.iter().sum::<u64>() >= 8, "{by_threads:?}");
    assert_eq!(by_threads.iter().sum::<u64>(), by_file.iter().sum::<u64>());
}

/// The needed units whose `second` verdict is `v`.
fn units_with(report: &Value, v: &str) -> Vec<Value> {
    report["needed"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["second"] == v)
        .cloned()
        .collect()
}

/// The board keys (hex) of a results file's records.
fn keys_of(file: &Path) -> Vec<String> {
    std::fs::read(file)
        .unwrap()
        .chunks_exact(64)
        .map(|r| {
            let mut k = [0u8; 16];
            k.copy_from_slice(&r[16..32]);
            format!("{:032x}", u128::from_le_bytes(k))
        })
        .collect()
}

#[test]
fn second_answers_confirm_disagree_or_leave_open_each_needed_unit() {
    if !python_present("scripts/check-proof.py") {
        return;
    }
    let (tmp, d) = kalah_4_3_proved();
    let report = agree(&d);
    let needed = report["needed"].as_array().unwrap().clone();
    let n = needed.len();
    assert!(n >= 4, "{report}");
    let sa = &report["second_answers"];
    assert_eq!(
        (
            sa["needed"].as_u64(),
            sa["confirmed"].as_u64(),
            sa["open"].as_u64()
        ),
        (Some(n as u64), Some(0), Some(n as u64)),
        "no check records: every unit open, {sa}"
    );
    // Both readers say in words that none were asked, in the same line.
    let none = format!(
        "second answers: none asked ({n} needed units; `kalah prove DIR --second-answers` asks them)"
    );
    assert_eq!(second_line(&d), (none.clone(), none));
    let key = |u: &Value| u["board_key"].as_str().unwrap().to_string();

    // Unit A: confirmed by a copy of its own record, stamped with the check id.
    let a = &needed[0];
    let proof_file = d.join(a["record"]["file"].as_str().unwrap());
    let index = a["record"]["index"].as_u64().unwrap() as usize;
    let bytes = std::fs::read(&proof_file).unwrap();
    let one = tmp.path().join("one.kpr");
    std::fs::write(&one, &bytes[64 * index..64 * index + 64]).unwrap();
    let checks = d.join("check").join("results");
    std::fs::create_dir_all(&checks).unwrap();
    let (dir, copy) = (d.to_str().unwrap(), checks.join("a.kpr"));
    restamp_for_check(&copy, dir, &one);

    // Unit B (another board): split in the check, its moves answered by a proof of its
    // board at depth 1 whose records are stamped with the check id.
    let b = needed.iter().find(|u| key(u) != key(a)).unwrap();
    let sub = tmp.path().join("sub");
    let out = prove(
        &sub,
        &[
            "--pits",
            "4",
            "--depth",
            "1",
            "--position",
            b["board"].as_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let split_file = checks.join("b.kpr");
    let split = format!("1,{},0,0", key(b));
    records(&["write", split_file.to_str().unwrap(), dir, "check", &split]);
    let mut children = Vec::new();
    for f in result_files(&sub) {
        children.extend(keys_of(&f));
        restamp_for_check(&split_file, dir, &f);
    }

    // Unit C (a third board, not among B's moves): a second answer that says the other
    // thing. And a record on the root, which is in no unit's tree: unused.
    let c = needed
        .iter()
        .find(|u| key(u) != key(a) && key(u) != key(b) && !children.contains(&key(u)))
        .expect("a third board");
    let t = c["t"].as_i64().unwrap();
    let wrong = if c["need"] == "yes" {
        format!("0,{},{t},{}", key(c), t - 1)
    } else {
        format!("0,{},{t},{t}", key(c))
    };
    let root = format!("0,{:032x},0,1", 0x0303_0303_0303_0303u128);
    let c_file = checks.join("c.kpr");
    records(&[
        "write",
        c_file.to_str().unwrap(),
        dir,
        "check",
        &wrong,
        &root,
    ]);

    // With check records, the counts.
    let (rust, py) = second_line(&d);
    for line in [rust, py] {
        assert!(
            line.contains(&format!(" of {n} needed units confirmed")),
            "{line}"
        );
    }

    let out = checker(&d);
    assert_eq!(out.status.code(), Some(1), "a disagreement fails the check");
    assert!(text(&out.stderr).contains("contradicted by their second answers"));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sa = &got["second_answers"];
    eprintln!("second answers: {sa}");
    let confirmed = units_with(&got, "confirmed");
    let disagree = units_with(&got, "disagrees");
    let same =
        |u: &Value, v: &Value| key(u) == key(v) && u["t"] == v["t"] && u["need"] == v["need"];
    assert!(
        confirmed.iter().any(|u| same(u, a)),
        "unit A confirmed: {got}"
    );
    assert!(
        confirmed.iter().any(|u| same(u, b)),
        "unit B confirmed by its split: {got}"
    );
    assert_eq!(disagree.len(), 1, "{got}");
    assert_eq!(key(&disagree[0]), key(c));
    assert_eq!(sa["disagree"].as_array().unwrap().len(), 1);
    assert_eq!(sa["disagree"][0]["board_key"], c["board_key"]);
    assert_eq!(
        sa["confirmed"].as_u64().unwrap() + sa["open"].as_u64().unwrap() + 1,
        n as u64,
        "{sa}"
    );
    assert_eq!(sa["unused_records"], 1, "{sa}");
    // The proof itself reads as before: check records are not proof records.
    for k in SHARED {
        assert_eq!(got[k], report[k]);
    }

    // A second answer that contradicts another one on the same board: an error.
    let both = checks.join("d.kpr");
    let t = a["t"].as_i64().unwrap();
    let (yes, no) = (
        format!("0,{},{t},{t}", key(a)),
        format!("0,{},{t},{}", key(a), t - 1),
    );
    records(&[
        "write",
        both.to_str().unwrap(),
        dir,
        "check",
        &yes,
        &no,
        &root,
    ]);
    let (ok, msg) = verdict(&checker(&d));
    assert!(!ok && msg.contains("contradict"), "{msg}");
    std::fs::remove_file(&both).unwrap();

    // A proof record among the check records: another proof's, an error naming the file.
    let stray = checks.join("e.kpr");
    records(&["write", stray.to_str().unwrap(), dir, "proof", &root, &root]);
    let (ok, msg) = verdict(&checker(&d));
    assert!(
        !ok && msg.contains("another proof") && msg.contains("e.kpr") && msg.contains("record 0"),
        "{msg}"
    );
    std::fs::remove_file(&stray).unwrap();

    // And the check records are no proof records: in results/ they are foreign.
    std::fs::copy(&c_file, d.join("results").join("0-check.kpr")).unwrap();
    let (rust_ok, rust_msg) = verdict(&status(&d));
    let (py_ok, py_msg) = verdict(&checker(&d));
    assert!(!rust_ok && rust_msg.contains("another proof"), "{rust_msg}");
    assert!(!py_ok && py_msg.contains("another proof"), "{py_msg}");
}
