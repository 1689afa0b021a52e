//! Second answers: every needed unit of a proof ([`super::needed`]) answered again by a
//! search that shares nothing with the one that answered it first but the program.
//!
//! ```text
//! DIR/check/results/*.kpr   the second answers, one file a check worker (see journal)
//! DIR/check/claims/<unit>   the units being worked on; not worth keeping
//! ```
//!
//! A check record has the proof's record format, stamped with an id of its own (the hash
//! of the manifest after a line of its own, [`Check::id`]), so that a second answer is
//! never read as a first one or back. Each needed unit, "`board` >= t" or "< t", is
//! settled on a tree of its own: the front end rooted at its board, a leaf until a second
//! search of it runs past the budget and splits it, as in a proof. Its knowledge comes
//! from the check's records alone, wherever their boards stand in it. A unit is
//! *confirmed* when its tree's root decides `t` the way the proof used, *disagrees* when
//! it decides it the other way (a failure to report, never to overwrite), and is open
//! until then.
//!
//! What makes a second answer second is the caller's: the search each unit is given
//! (see `kalah prove --second-answers`: a fresh transposition table for every unit, and
//! another search configuration).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

use super::dir::{record_fits, Proof, State};
use super::error::{io, ProofError};
use super::journal::{self, Kind, Record};
use super::needed::{needed, NeededUnit};
use super::task::{Desk, Next, Pending, Serves, Task};
use super::tree::{FrontEnd, Interval, Knowledge};
use crate::board::Board;

/// The line that, before the manifest's text, makes the check's record id.
const HEADER: &str = "kalah-proof-check 1\n";
const CHECK: &str = "check";
const RESULTS: &str = "results";
const CLAIMS: &str = "claims";

/// A proof's second answers.
pub struct Check<'p> {
    pub proof: &'p Proof,
    id: u64,
}

/// Where a needed unit's second answer stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The second answers prove the bound the proof used.
    Confirmed,
    /// They prove it false.
    Disagrees,
    /// Not decided yet.
    Open,
}

/// One needed unit and its check.
#[derive(Clone, Debug)]
pub struct UnitCheck {
    pub unit: NeededUnit,
    pub verdict: Verdict,
    /// What the second answers prove of the unit's board.
    pub interval: Interval,
    /// The unit's tree and what the second answers prove in it.
    pub tree: FrontEnd,
    pub know: Knowledge,
}

/// What the second answers prove, read from every check results file.
#[derive(Clone, Debug, Default)]
pub struct CheckState {
    /// Every needed unit of the proof's state, in [`needed`]'s order.
    pub units: Vec<UnitCheck>,
    /// Check records read.
    pub records: usize,
    /// Distinct boards split in the check.
    pub splits: usize,
    /// Records whose board stands in no needed unit's tree (the proof's needed units
    /// changed since they were written).
    pub unused: usize,
    pub nodes: u64,
    pub cpu_millis: u64,
    /// CPU milliseconds of searches stopped at the budget and split.
    pub split_cpu_millis: u64,
    pub warnings: Vec<String>,
    pub files: usize,
}

impl CheckState {
    pub fn count(&self, v: Verdict) -> usize {
        self.units.iter().filter(|u| u.verdict == v).count()
    }
}

impl<'p> Check<'p> {
    pub fn new(proof: &'p Proof) -> Check<'p> {
        let id = xxh3_64(format!("{HEADER}{}", proof.manifest.text()).as_bytes());
        Check { proof, id }
    }

    /// The id stamped on the check's records.
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn dir(&self) -> PathBuf {
        self.proof.dir.join(CHECK)
    }

    pub fn results_dir(&self) -> PathBuf {
        self.dir().join(RESULTS)
    }

    fn claims_dir(&self) -> PathBuf {
        self.dir().join(CLAIMS)
    }

    /// Read every check results file and judge each needed unit of `st` (the proof's
    /// state) by them. A damaged record, one of another proof or check, or answers that
    /// contradict each other are errors; a torn final record is a warning.
    pub fn load(&self, st: &State) -> Result<CheckState, ProofError> {
        let dir = self.results_dir();
        let files = journal::files_in(&dir).map_err(io(&dir))?;
        let mut cs = CheckState {
            files: files.len(),
            ..CheckState::default()
        };
        let mut records: Vec<(&PathBuf, Record)> = Vec::new();
        let mut splits = HashSet::new();
        for path in &files {
            let out = journal::read(path, |r| record_fits(r, self.id))?;
            cs.warnings.extend(out.torn);
            for r in out.records {
                if r.kind == Kind::Split {
                    splits.insert(r.board_key);
                    cs.split_cpu_millis += u64::from(r.cpu_millis);
                }
                cs.nodes += r.nodes;
                cs.cpu_millis += u64::from(r.cpu_millis);
                records.push((path, r));
            }
        }
        cs.records = records.len();
        cs.splits = splits.len();
        let mut used = vec![false; records.len()];
        let game = &self.proof.game;
        for unit in needed(st) {
            let tree = FrontEnd::expand(game, &unit.board, 0, &splits);
            let places = tree.places();
            let mut know = tree.unknown();
            for (i, (path, r)) in records.iter().enumerate() {
                let Some(at) = places.get(&r.board_key) else {
                    continue;
                };
                used[i] = true;
                if r.kind != Kind::Answer {
                    continue;
                }
                for &t in at {
                    if !know.learn(t, r.beta.into(), r.result.into()) {
                        return Err(self.contradiction(&r.board_key, know.of(t), path));
                    }
                }
            }
            if let Some(n) = tree.contradiction(&know) {
                let board = tree.nodes[n].board.key();
                return Err(self.contradiction(&board, know.nodes[n], &dir));
            }
            let interval = tree.interval(tree.root, &know);
            let verdict = if unit.proved_by(interval) {
                Verdict::Confirmed
            } else if unit.refuted_by(interval) {
                Verdict::Disagrees
            } else {
                Verdict::Open
            };
            cs.units.push(UnitCheck {
                unit,
                verdict,
                interval,
                tree,
                know,
            });
        }
        cs.unused = used.iter().filter(|u| !**u).count();
        Ok(cs)
    }

    fn contradiction(&self, board: &u128, iv: Interval, path: &Path) -> ProofError {
        ProofError::Contradiction {
            board: self.proof.position_of(&Board::from_key(*board)),
            lo: iv.lo,
            hi: iv.hi,
            path: path.to_path_buf(),
        }
    }

    /// Each needed unit's record and where it was read, for a report.
    pub fn origins<'s>(&self, st: &'s State, cs: &CheckState) -> HashMap<usize, (&'s Path, usize)> {
        cs.units
            .iter()
            .map(|u| {
                let (file, index) = st.origins[u.unit.record];
                (u.unit.record, (st.paths[file].as_path(), index))
            })
            .collect()
    }
}

/// A check's work: every open needed unit answered a second time until each is decided.
/// The proof's results are read again each round, so a check may run beside the proof's
/// own workers; its needed units are those of what is proved so far. Its questions are
/// asked in each unit's order, not a search's: no guess orders them.
impl Task for Check<'_> {
    fn desk(&self) -> Result<Desk, ProofError> {
        Desk::open(self.results_dir(), self.claims_dir(), self.id)
    }

    /// The open questions of every open needed unit, unit by unit in order.
    fn next(&self, _guess: &mut dyn FnMut(&Board) -> Option<i32>) -> Result<Next, ProofError> {
        let st = self.proof.load()?;
        let cs = self.load(&st)?;
        let of = cs.units.len();
        let mut pending = Vec::new();
        let mut seen = HashSet::new();
        for (k, u) in cs.units.iter().enumerate() {
            if u.verdict != Verdict::Open {
                continue;
            }
            for q in u.tree.questions(u.unit.t, &u.know, &mut |_| None) {
                let leaf = u.tree.leaves[q.leaf as usize];
                if seen.insert((leaf.board.key(), q.beta)) {
                    pending.push(Pending {
                        leaf,
                        question: q,
                        serves: Serves::Needed { unit: k, of },
                    });
                }
            }
        }
        if pending.is_empty() {
            return Ok(Next::Done);
        }
        let mut warnings = st.warnings;
        warnings.extend(cs.warnings);
        Ok(Next::Open { pending, warnings })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::testing::{by_hand, manifest, opts, stopping};
    use crate::proof::{answer, Outcome, Worker};
    use crate::search::Solver;
    use crate::Capture;

    fn proved(
        pits: usize,
        seeds: usize,
        capture: Capture,
        depth: u32,
    ) -> (tempfile::TempDir, Proof) {
        let m = manifest(pits, seeds, capture, depth);
        let dir = tempfile::tempdir().unwrap();
        let proof = Proof::create(dir.path(), m).unwrap();
        let mut solver = Solver::new(&proof.game, 16).unwrap();
        let search = by_hand(|leaf, beta| Ok(answer(&mut solver, leaf, beta, 2, None)));
        let done = Worker::new("w".into(), opts(), search)
            .work(&proof, &mut |_| {})
            .unwrap();
        assert!(done.complete);
        (dir, proof)
    }

    #[test]
    fn every_needed_unit_is_confirmed_by_a_second_search_even_through_splits() {
        for (pits, seeds, capture, depth) in [
            (4, 3, Capture::Standard, 2),
            (3, 3, Capture::Empty, 3),
            (4, 2, Capture::Standard, 1),
        ] {
            let (_d, proof) = proved(pits, seeds, capture, depth);
            let st = proof.load().unwrap();
            let units = needed(&st);
            assert!(!units.is_empty());
            for u in &units {
                let r = st.records[u.record];
                assert!(answer_ok(u, r.beta.into(), r.result.into()), "{u:?} {r:?}");
            }
            let check = Check::new(&proof);
            assert_eq!(check.load(&st).unwrap().count(Verdict::Open), units.len());
            // Every third second search stops at the budget: its board splits, and its
            // moves are answered instead, each with a table of its own.
            let search = stopping(
                |leaf, beta| {
                    let mut fresh = Solver::new(&proof.game, 4).unwrap();
                    answer(&mut fresh, leaf, beta, 2, None)
                },
                |calls, leaf| calls % 3 == 0 && leaf.seeds > 4,
            );
            let done = Worker::new("c".into(), opts(), search)
                .work(&check, &mut |_| {})
                .unwrap();
            assert!(done.complete);
            assert!(done.splits > 0, "Kalah({pits},{seeds}): some unit split");
            let cs = check.load(&st).unwrap();
            assert_eq!(cs.count(Verdict::Confirmed), units.len());
            assert_eq!(cs.unused, 0);
        }
    }

    fn answer_ok(u: &NeededUnit, beta: i32, result: i32) -> bool {
        let mut iv = Interval::trivial(64);
        iv.learn(beta, result);
        u.proved_by(iv)
    }

    #[test]
    fn a_second_answer_that_proves_the_bound_false_is_a_disagreement_not_an_overwrite() {
        let (_d, proof) = proved(4, 3, Capture::Standard, 1);
        let st = proof.load().unwrap();
        let check = Check::new(&proof);
        // A wrong search: every answer is the opposite extreme of what the unit needs.
        let units = needed(&st);
        let search = by_hand(|leaf, beta| {
            let u = units.iter().find(|u| u.board == leaf.board);
            let lie = match u {
                Some(u) if u.yes => beta - 1,
                _ => beta,
            };
            Ok((Outcome::Bound(lie.clamp(-leaf.seeds, leaf.seeds)), 1))
        });
        let done = Worker::new("c".into(), opts(), search)
            .work(&check, &mut |_| {})
            .unwrap();
        assert!(done.complete);
        let cs = check.load(&st).unwrap();
        assert!(cs.count(Verdict::Disagrees) > 0);
        // The proof itself is untouched.
        let again = proof.load().unwrap();
        let f = &again.tree.front;
        assert_eq!(
            f.interval(f.root, &again.know),
            f.interval(f.root, &st.know)
        );
    }

    #[test]
    fn a_check_record_is_not_read_as_a_proof_record() {
        let (_d, proof) = proved(4, 3, Capture::Standard, 1);
        let check = Check::new(&proof);
        assert_ne!(check.id(), proof.manifest.id());
        let st = proof.load().unwrap();
        let search = by_hand(|leaf, beta| {
            let mut fresh = Solver::new(&proof.game, 4).unwrap();
            Ok(answer(&mut fresh, leaf, beta, 2, None))
        });
        Worker::new("c".into(), opts(), search)
            .work(&check, &mut |_| {})
            .unwrap();
        let from = check.results_dir().join("c.kpr");
        std::fs::copy(&from, proof.results_dir().join("c.kpr")).unwrap();
        let e = proof.load().unwrap_err().to_string();
        assert!(e.contains("another proof"), "{e}");
        std::fs::remove_file(proof.results_dir().join("c.kpr")).unwrap();
        // And a proof record is not a check record.
        let first = std::fs::read_dir(proof.results_dir())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        std::fs::copy(first, check.results_dir().join("p.kpr")).unwrap();
        let e = check.load(&st).unwrap_err().to_string();
        assert!(e.contains("another proof"), "{e}");
    }
}
