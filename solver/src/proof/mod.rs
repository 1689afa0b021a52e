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

pub mod claim;
pub mod dir;
pub mod journal;
pub mod tree;

pub use dir::{worker_id, Event, Manifest, Proof, ProofError, State, WorkOptions, WorkSummary};
pub use tree::{FrontEnd, Interval, Leaf, Question};

use crate::search::tt::EXACT;
use crate::search::Solver;

/// Answer "is the value of `leaf` at least `beta`?" with one exact zero-window test,
/// after depth-limited MTD(f) to `id_depth` (at least 2) has filled the table with
/// move orders. Returns the fail-soft bound (`>= beta`: the value is at least it;
/// otherwise at most it) and the nodes searched, the deepening's included.
pub fn answer(solver: &mut Solver<'_>, leaf: &Leaf, beta: i32, id_depth: u8) -> (i32, u64) {
    let start = solver.nodes;
    let mut guess = 0;
    let mut depth = 2;
    loop {
        guess = solver.mtdf(&leaf.board, guess, depth);
        depth += 2;
        if depth > id_depth {
            break;
        }
    }
    let r = solver.test(&leaf.board, leaf.seeds, beta, EXACT);
    (r, solver.nodes - start)
}

/// A depth-limited MTD(f) value of `board` (from its mover's side) to `depth`, for move
/// ordering in the front end (see [`FrontEnd::questions`]); `None` for a board whose game
/// is over (the front end knows its value).
pub fn shallow_value(solver: &mut Solver<'_>, board: &crate::Board, depth: u8) -> Option<i32> {
    if solver.game().terminal_value(board).is_some() {
        return None;
    }
    let mut guess = 0;
    let mut d = 2;
    while d <= depth.max(2) {
        guess = solver.mtdf(board, guess, d);
        d += 2;
    }
    Some(guess)
}
