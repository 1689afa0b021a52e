//! What `kalah prove --status` says of the second answers: each needed unit of the proof
//! and whether a second search has confirmed it (see `solver::proof::check`).

use serde_json::{json, Value};
use solver::proof::{Check, CheckState, Proof, State, Verdict};

/// The check's state, with the proof's needed units judged by it.
pub(super) fn load(proof: &Proof, st: &State) -> Result<CheckState, solver::proof::ProofError> {
    Check::new(proof).load(st)
}

fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::Confirmed => "confirmed",
        Verdict::Disagrees => "disagrees",
        Verdict::Open => "open",
    }
}

/// Where the record a unit rests on was read: its path below the proof directory and its
/// index in the file.
fn origin(proof: &Proof, st: &State, record: usize) -> (String, usize) {
    let (file, index) = st.origins[record];
    let path = &st.paths[file];
    let shown = path.strip_prefix(&proof.dir).unwrap_or(path);
    (shown.display().to_string(), index)
}

/// The needed units, one object each (the names `scripts/check-proof.py --json` uses).
pub(super) fn needed_json(proof: &Proof, st: &State, cs: &CheckState) -> Value {
    cs.units
        .iter()
        .map(|u| {
            let (file, index) = origin(proof, st, u.unit.record);
            json!({
                "board": proof.position_of(&u.unit.board),
                "board_key": format!("{:032x}", u.unit.board.key()),
                "t": u.unit.t,
                "need": if u.unit.yes { "yes" } else { "no" },
                "record": {"file": file, "index": index},
                "second": verdict(u.verdict),
            })
        })
        .collect()
}

/// The second answers' totals and every disagreement.
pub(super) fn summary_json(proof: &Proof, cs: &CheckState) -> Value {
    json!({
        "needed": cs.units.len(),
        "confirmed": cs.count(Verdict::Confirmed),
        "open": cs.count(Verdict::Open),
        "disagree": disagreements(proof, cs),
        "unused_records": cs.unused,
        "records": cs.records,
        "files": cs.files,
        "splits": cs.splits,
        "nodes": cs.nodes,
        "cpu_seconds": cs.cpu_millis as f64 / 1000.0,
        "split_cpu_seconds": cs.split_cpu_millis as f64 / 1000.0,
        "warnings": cs.warnings,
    })
}

/// Each unit whose second answers prove its bound false, as text.
pub(super) fn disagreements(proof: &Proof, cs: &CheckState) -> Vec<String> {
    cs.units
        .iter()
        .filter(|u| u.verdict == Verdict::Disagrees)
        .map(|u| {
            format!(
                "{} {}: the second answers prove {} <= value <= {}",
                proof.position_of(&u.unit.board),
                u.unit.bound(),
                u.interval.lo,
                u.interval.hi
            )
        })
        .collect()
}

/// The status lines. With no check record at all, none were asked: "0 of N confirmed,
/// N open" would read as a check under way. `scripts/check-proof.py` prints the same line.
pub(super) fn lines(proof: &Proof, cs: &CheckState) -> Vec<String> {
    if cs.records == 0 {
        return vec![format!(
            "second answers: none asked ({} needed units; `kalah prove DIR --second-answers` \
             asks them)",
            cs.units.len()
        )];
    }
    let mut out = vec![format!(
        "second answers: {} of {} needed units confirmed, {} disagree, {} open ({} check \
         records in {} files, {} boards split, {:.1} CPU seconds{})",
        cs.count(Verdict::Confirmed),
        cs.units.len(),
        cs.count(Verdict::Disagrees),
        cs.count(Verdict::Open),
        cs.records,
        cs.files,
        cs.splits,
        cs.cpu_millis as f64 / 1000.0,
        if cs.unused > 0 {
            format!(", {} records on no needed unit", cs.unused)
        } else {
            String::new()
        }
    )];
    out.extend(
        disagreements(proof, cs)
            .into_iter()
            .map(|d| format!("  DISAGREES: {d}")),
    );
    out
}
