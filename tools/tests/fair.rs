//! `kalah fair` on real invocations: the starts it lists are draws by `kalah solve`, the
//! bounds it gives the others hold, and a run killed midway resumes from its results
//! file, a last line cut short included.

use assert_cmd::Command;
use serde_json::Value;

mod common;

fn kalah() -> Command {
    Command::cargo_bin("kalah").unwrap()
}

/// `kalah fair` on Kalah(3,2), quiet.
const KALAH32: [&str; 6] = ["fair", "--pits", "3", "--seeds", "2", "--quiet"];

/// `kalah fair ARGS --quiet --threads 2` on Kalah(3,2), which must succeed: its stdout.
fn fair(args: &[&str]) -> String {
    let mut all = KALAH32.to_vec();
    all.extend(["--threads", "2"]);
    all.extend(args);
    common::kalah_stdout(&all)
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The final margin `kalah solve` gives `position`.
fn solved(position: &str) -> i64 {
    let out = common::kalah_stdout(&["solve", "--position", position, "--json", "--quiet"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    v["value"].as_i64().unwrap()
}

#[test]
fn listed_starts_are_draws_and_the_bounds_of_the_others_hold() {
    let all = json_lines(&fair(&["--moved", "1", "--all", "--json"]));
    // Kalah(3,2): the start and 6 · 7 starts with one seed moved.
    assert_eq!(all.len(), 43);
    let listed = json_lines(&fair(&["--moved", "1", "--json"]));
    assert!(!listed.is_empty() && listed.len() < all.len());
    for s in &listed {
        assert_eq!(s["value"], 0);
        assert_eq!(solved(s["position"].as_str().unwrap()), 0, "{s}");
        assert!(all.contains(s), "{s}");
    }
    // Every fourth of the others: its bound holds and puts it away from 0.
    for s in all.iter().filter(|s| s.get("bound").is_some()).step_by(4) {
        let m = solved(s["position"].as_str().unwrap());
        let b = s["margin"].as_i64().unwrap();
        match s["bound"].as_str().unwrap() {
            "at_least" => assert!(m >= b && b > 0, "{s}: {m}"),
            _ => assert!(m <= b && b < 0, "{s}: {m}"),
        }
    }
}

#[test]
fn within_lists_exact_values_in_the_band() {
    let listed = json_lines(&fair(&["--moved", "1", "--within", "2", "--json"]));
    let draws = json_lines(&fair(&["--moved", "1", "--json"]));
    assert!(listed.len() > draws.len());
    for s in &listed {
        let v = s["value"].as_i64().unwrap();
        assert!(v.abs() <= 2, "{s}");
        assert_eq!(solved(s["position"].as_str().unwrap()), v, "{s}");
    }
}

#[test]
fn a_killed_run_resumes_from_its_results_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.txt");
    let file = path.to_str().unwrap();
    let whole = fair(&["--moved", "2", "--json", "--results", file]);
    let text = std::fs::read_to_string(&path).unwrap();
    // Header, then one line per start: 1 + 42 + 483 for Kalah(3,2).
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 526);
    // The run's cost: a line when it starts, one every 20 starts and one at its end.
    assert!(
        text.contains("# run: 0 read back, 526 to settle, threads 2\n"),
        "{text}"
    );
    let cpu: Vec<&str> = text.lines().filter(|l| l.starts_with("# cpu: ")).collect();
    assert_eq!(cpu.len(), 526 / 20 + 1, "{text}");
    assert!(
        cpu[0].starts_with("# cpu: 20 settled in this run, "),
        "{}",
        cpu[0]
    );
    assert!(
        cpu[cpu.len() - 1].starts_with("# cpu: 526 settled"),
        "{text}"
    );
    // As if killed while writing: the first 100 starts and part of the next line.
    let mut starts = 0;
    let kept: Vec<&str> = text
        .lines()
        .take_while(|l| {
            starts += usize::from(!l.starts_with('#'));
            starts <= 100
        })
        .collect();
    let cut = format!("{}\n{}", kept.join("\n"), &lines[100][..7]);
    std::fs::write(&path, &cut).unwrap();
    let report = fair(&["--moved", "2", "--results", file]);
    assert!(report.contains("526 starts (100 read back"), "{report}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("# run: 100 read back, 426 to settle, threads 2\n"),
        "{text}"
    );
    assert!(
        text.ends_with("\n") && text.contains("# cpu: 426 settled in this run"),
        "{text}"
    );
    // The same starts as the whole run, and a whole file again: no line twice, none cut.
    let again = fair(&["--moved", "2", "--json", "--results", file]);
    assert_eq!(json_lines(&again), json_lines(&whole));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut resumed: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(text.ends_with('\n'));
    let mut first = lines.clone();
    resumed.sort_unstable();
    first.sort_unstable();
    // Bounds may reach differently from run to run; the starts and their sides do not.
    let key = |l: &&str| l.split(' ').take(2).collect::<Vec<_>>().join(" ");
    assert_eq!(
        resumed.iter().map(key).collect::<Vec<_>>(),
        first.iter().map(key).collect::<Vec<_>>()
    );
}

#[test]
fn a_results_file_of_other_rules_or_with_a_bad_line_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.txt");
    let file = path.to_str().unwrap();
    fair(&["--moved", "1", "--results", file]);
    let run = |args: &[&str]| {
        kalah()
            .args([
                "fair",
                "--pits",
                "3",
                "--quiet",
                "--threads",
                "1",
                "--results",
                file,
            ])
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["--seeds", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not of Kalah(3,3)"));
    let out = run(&["--seeds", "2", "--within", "2"]);
    assert_eq!(out.status.code(), Some(2));
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("=+0", "=zero", 1)).unwrap();
    let out = run(&["--seeds", "2"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("'zero' is not a final margin"), "{err}");
    assert!(err.contains("line "), "{err}");
    // Not a file to append to: refused, without a read that never ends.
    for (bad, why) in [
        ("/dev/zero", "not a regular file"),
        ("/", "not a regular file"),
    ] {
        let out = kalah()
            .args(KALAH32)
            .args(["--results", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{bad}: {err}");
    }
    std::fs::write(&path, b"\xff\xfe\n").unwrap();
    assert_eq!(run(&["--seeds", "2"]).status.code(), Some(2));
}

#[test]
fn the_list_format_reads_back() {
    let text = fair(&["--moved", "1", "--list"]);
    let list: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let json = json_lines(&fair(&["--moved", "1", "--json"]));
    assert_eq!(list.len(), json.len());
    for (l, j) in list.iter().zip(&json) {
        assert_eq!(
            *l,
            format!("{} {} =+0", j["moved"], j["position"].as_str().unwrap())
        );
    }
    assert!(text.starts_with("# rules: Kalah(3,2) capture=standard"));
}
