//! `kalah bench` on a real invocation: the quickest position, its value checked, with
//! output that leaves out times.

use assert_cmd::Command;

#[test]
fn bench_checks_a_value_and_prints_nodes() {
    let a = Command::cargo_bin("kalah")
        .unwrap()
        .args([
            "bench",
            "--quiet",
            "--no-times",
            "--filter",
            "6x4-standard-c",
        ])
        .assert()
        .success();
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let row: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(row[..3], ["6x4-standard-c", "-8", "-8"], "{out}");
    assert!(row[3].parse::<u64>().unwrap() > 0, "{out}");
    assert!(lines[2].starts_with("total"), "{out}");
}
