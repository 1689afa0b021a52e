//! What a worker works on ([`Task`]): a proof's root ([`super::Proof`]) or a proof's second
//! answers ([`super::Check`]), each of which knows where its records go and which of its
//! questions are open, while the worker ([`super::Worker`]) knows only how to claim, answer
//! and record them.

use std::path::PathBuf;

use super::error::{io, ProofError};
use super::tree::{Leaf, Question};
use crate::board::Board;

/// Something a worker settles unit by unit.
pub trait Task {
    /// Where the worker keeps its claims and records, its folders created where missing.
    fn desk(&self) -> Result<Desk, ProofError>;

    /// The open questions, read again from the directory at every call (other workers
    /// write there), most urgent first; `guess` gives a board's shallow value from its
    /// mover's side to order the moves by (`None`: no opinion).
    fn next(&self, guess: &mut dyn FnMut(&Board) -> Option<i32>) -> Result<Next, ProofError>;
}

/// One open question as a worker sees it: the leaf it asks about, and what it serves.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    pub leaf: Leaf,
    pub question: Question,
    pub serves: Serves,
}

/// What an open question is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Serves {
    /// The root's question "gain >= beta?" of a proof.
    Root { beta: i32 },
    /// The second answer of needed unit `unit` (of `of`) of a proof's check.
    Needed { unit: usize, of: usize },
}

/// What a round finds.
pub enum Next {
    /// Nothing is left to settle.
    Done,
    /// The open questions, most urgent first, and warnings to show once.
    Open {
        pending: Vec<Pending>,
        warnings: Vec<String>,
    },
}

/// Where a worker keeps its claims and records.
pub struct Desk {
    /// The results directory: the worker appends to `<worker>.kpr` in it.
    pub results: PathBuf,
    pub claims: PathBuf,
    /// The id stamped on every record.
    pub id: u64,
}

impl Desk {
    /// The desk of records stamped `id`, its folders created where missing: the first
    /// worker makes them, so that a proof copied from version control (which keeps no
    /// empty folder) works, and a reader that only opens a proof writes nothing.
    pub fn open(results: PathBuf, claims: PathBuf, id: u64) -> Result<Desk, ProofError> {
        for d in [&results, &claims] {
            std::fs::create_dir_all(d).map_err(io(d))?;
        }
        Ok(Desk {
            results,
            claims,
            id,
        })
    }
}
