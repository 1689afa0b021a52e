//! Proofs that outlive a process: a position solved exactly through a directory that
//! holds its whole state, shared by any number of workers on one machine or many.
//!
//! The front end ([`tree`]) expands the first plies from the root into a small tree; the
//! root is settled MTD(f)-style by zero-window questions, each turned into questions on
//! the leaves ("is this leaf's value at least `t`?"), the *units* of work. A worker
//! claims a unit ([`claim`]), answers it with one zero-window test of the search
//! ([`answer`]), appends the answer to its own results file and syncs it ([`journal`])
//! before the unit counts as done. What is proved is re-derived from the results by
//! minimax ([`dir::Proof::load`]), so the root's value is exact when its bounds meet, and
//! a proof killed at any instant loses at most the units in flight.
//!
//! The root's proved bounds rest on a subset of the answers, its *needed units*
//! ([`needed`]); a proof's *second answers* ([`check`]) ask each of them again, by another
//! search, into a directory of their own, with the same claims and records, so that a
//! value is certified by two searches that share no table and no run.

pub mod check;
pub mod claim;
pub mod dir;
pub mod error;
pub mod estimate;
pub mod journal;
pub mod manifest;
pub mod needed;
pub mod searcher;
pub mod task;
pub mod tree;
pub mod worker;

pub use check::{Check, CheckState, Verdict};
pub use dir::{Expanded, FirstMove, Proof, State};
pub use error::ProofError;
pub use manifest::Manifest;
pub use needed::NeededUnit;
pub use searcher::{NewSearch, Searcher, Searches};
pub use task::{Serves, Task};
pub use tree::{FrontEnd, Interval, Knowledge, Leaf, Question};
pub use worker::{unit_name, worker_id, Event, WorkOptions, WorkSummary, Worker};

use std::sync::atomic::{AtomicBool, Ordering};

use crate::search::tt::EXACT;
use crate::search::Solver;

/// How a unit ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The fail-soft bound of the test: `>= beta`, the value is at least it; otherwise at
    /// most it.
    Bound(i32),
    /// The exact test ran past its budget and was stopped: nothing is proved.
    Stopped,
}

/// CPU time this process has used, all threads, in milliseconds (0 where the clock
/// cannot be read).
pub fn process_cpu_millis() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

/// Answer "is the value of `leaf` at least `beta`?" with one exact zero-window test,
/// after depth-limited MTD(f) to `id_depth` (at least 2) has filled the table with
/// move orders. With a `budget`, the exact test is stopped through `cancel` (the
/// solver's flag, see [`Solver::with_cancel`]) once the process has spent that much CPU
/// time on it (all its threads: a budget that a loaded machine does not shrink); the deepening
/// is not timed, so that a unit's children, whose deepening costs about as much, are not
/// stopped before their tests begin. Returns the outcome and the nodes searched, the
/// deepening's included.
pub fn answer(
    solver: &mut Solver<'_>,
    leaf: &Leaf,
    beta: i32,
    id_depth: u8,
    budget: Option<(std::time::Duration, &AtomicBool)>,
) -> (Outcome, u64) {
    let start = solver.nodes;
    deepen(solver, &leaf.board, id_depth);
    let Some((budget, cancel)) = budget else {
        let r = solver.test(&leaf.board, leaf.seeds, beta, EXACT);
        return (Outcome::Bound(r), solver.nodes - start);
    };
    let done = AtomicBool::new(false);
    let tick = (budget / 4).clamp(
        std::time::Duration::from_millis(1),
        std::time::Duration::from_millis(10),
    );
    let r = std::thread::scope(|s| {
        s.spawn(|| {
            let from = process_cpu_millis();
            let budget = u64::try_from(budget.as_millis()).unwrap_or(u64::MAX);
            while !done.load(Ordering::Relaxed) {
                if process_cpu_millis().saturating_sub(from) >= budget {
                    cancel.store(true, Ordering::Relaxed);
                    return;
                }
                std::thread::sleep(tick);
            }
        });
        let r = solver.test(&leaf.board, leaf.seeds, beta, EXACT);
        done.store(true, Ordering::Relaxed);
        r
    });
    // The timer thread has ended with the scope. Once it set the flag, the test may have
    // been stopped and `r` is not a bound (a test that returned just before the flag was
    // set is counted as stopped too: nothing false is recorded, only a unit lost).
    let outcome = if cancel.swap(false, Ordering::Relaxed) {
        Outcome::Stopped
    } else {
        Outcome::Bound(r)
    };
    (outcome, solver.nodes - start)
}

/// A depth-limited MTD(f) value of `board` (from its mover's side) to `depth`, for move
/// ordering in the front end (see [`FrontEnd::questions`]); `None` for a board whose game
/// is over (the front end knows its value).
pub fn shallow_value(solver: &mut Solver<'_>, board: &crate::Board, depth: u8) -> Option<i32> {
    if solver.game().terminal_value(board).is_some() {
        return None;
    }
    Some(deepen(solver, board, depth))
}

/// Depth-limited MTD(f) of a non-terminal `board` at depths 2, 4, ... up to `depth` (at
/// least 2), each from the last one's value: the last value.
fn deepen(solver: &mut Solver<'_>, board: &crate::Board, depth: u8) -> i32 {
    let mut guess = 0;
    let mut d = 2;
    while d <= depth.max(2) {
        guess = solver.mtdf(board, guess, d);
        d += 2;
    }
    guess
}

/// Support shared by the proof modules' tests.
#[cfg(test)]
pub(crate) mod testing {
    use std::time::Duration;

    use super::{Leaf, Manifest, Outcome, ProofError, Searcher, WorkOptions};
    use crate::rules::RulesBuilder;
    use crate::{Capture, Position};

    /// A searcher that answers by `f` and guesses nothing: a search, or a stand-in for one
    /// that fails in a chosen way.
    pub fn by_hand<'a>(
        f: impl FnMut(&Leaf, i32) -> Result<(Outcome, u64), ProofError> + 'a,
    ) -> Box<dyn Searcher + 'a> {
        Box::new(ByHand(f))
    }

    struct ByHand<F>(F);

    impl<F: FnMut(&Leaf, i32) -> Result<(Outcome, u64), ProofError>> Searcher for ByHand<F> {
        fn answer(&mut self, leaf: &Leaf, beta: i32) -> Result<(Outcome, u64), ProofError> {
            (self.0)(leaf, beta)
        }
    }

    /// A searcher that reports the units `stop` picks (by the 1-based count of units
    /// asked so far, and the leaf) as stopped at a budget, and answers the others by
    /// `search`.
    pub fn stopping<'a>(
        mut search: impl FnMut(&Leaf, i32) -> (Outcome, u64) + 'a,
        mut stop: impl FnMut(usize, &Leaf) -> bool + 'a,
    ) -> Box<dyn Searcher + 'a> {
        let mut calls = 0;
        by_hand(move |leaf, beta| {
            calls += 1;
            if stop(calls, leaf) {
                return Ok((Outcome::Stopped, 1));
            }
            Ok(search(leaf, beta))
        })
    }

    /// The manifest of Kalah(pits, seeds) from the start under `capture`, other switches
    /// at their defaults.
    pub fn manifest(pits: usize, seeds: usize, capture: Capture, depth: u32) -> Manifest {
        let mut b = RulesBuilder::new(pits, seeds);
        b.capture = Some(capture);
        let rules = b.build().unwrap();
        Manifest {
            position: Position::start(&rules),
            rules,
            depth,
            guess: 0,
        }
    }

    /// A lone worker's options: it returns when no unit is free.
    pub fn opts() -> WorkOptions {
        WorkOptions {
            lease: Duration::from_secs(60),
            poll: Duration::from_millis(10),
            max_units: None,
            wait: false,
            threads: 1,
        }
    }
}
