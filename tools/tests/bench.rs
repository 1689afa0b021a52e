//! `kalah bench` on a real invocation: the quickest position, its value checked, with
//! output that leaves out times.

mod common;

#[test]
fn bench_checks_a_value_and_prints_nodes() {
    let out = common::kalah_stdout(&[
        "bench",
        "--quiet",
        "--no-times",
        "--filter",
        "6x4-standard-c",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let row: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(row[..3], ["6x4-standard-c", "-8", "-8"], "{out}");
    assert!(row[3].parse::<u64>().unwrap() > 0, "{out}");
    assert!(lines[2].starts_with("total"), "{out}");
}
