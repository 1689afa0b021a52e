//! How a worker's units are answered: the [`Searcher`] a worker is given once, and the
//! library's own, [`Searches`], which runs [`super::answer`] on searches built from value
//! sources the caller opened (database, endgame table, transposition table), so that a
//! unit's search is assembled here and not in the front end that started the worker.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use super::error::ProofError;
use super::tree::Leaf;
use super::{answer, shallow_value, Outcome};
use crate::board::Board;
use crate::search::Solver;

/// What settles a worker's units.
pub trait Searcher {
    /// Settle "is the value of `leaf` at least `beta`?": the outcome (the fail-soft bound,
    /// or [`Outcome::Stopped`] past a budget) and the nodes searched, or why the search
    /// could not run (the worker then stops, recording nothing).
    fn answer(&mut self, leaf: &Leaf, beta: i32) -> Result<(Outcome, u64), ProofError>;

    /// A shallow value of `board` from its mover's side, to order a front end's moves by
    /// (see [`super::FrontEnd::questions`]); `None`: no opinion.
    fn guess(&mut self, _board: &Board) -> Option<i32> {
        None
    }
}

/// A new search on the caller's value sources, with a transposition table of its own.
pub type NewSearch<'a> = dyn FnMut() -> Result<Solver<'a>, ProofError> + 'a;

/// Where [`Searches`] takes each unit's search from.
enum Source<'a> {
    /// One search for every unit: its table stays warm with move orders from unit to unit.
    Warm(Box<Solver<'a>>),
    /// A search built for each unit and dropped after it.
    Fresh(Box<NewSearch<'a>>),
}

/// The library's [`Searcher`]: each unit answered by [`super::answer`] after depth-limited
/// MTD(f) to `id_depth`, its exact test stopped once it has spent `budget` of CPU time.
pub struct Searches<'a> {
    source: Source<'a>,
    id_depth: u8,
    budget: Option<Duration>,
    /// The flag through which every search of these is stopped at the budget.
    cancel: Arc<AtomicBool>,
    /// Each board's shallow value, once a run: the front end's move order.
    shallow: HashMap<u128, Option<i32>>,
}

impl<'a> Searches<'a> {
    /// Every unit answered by `solver`, whose table is kept from unit to unit (a proof's
    /// worker); its shallow values order the front end's moves.
    pub fn warm(solver: Solver<'a>, id_depth: u8, budget: Option<Duration>) -> Searches<'a> {
        let cancel = Arc::new(AtomicBool::new(false));
        let solver = Box::new(stoppable(solver, budget, &cancel));
        Searches {
            source: Source::Warm(solver),
            id_depth,
            budget,
            cancel,
            shallow: HashMap::new(),
        }
    }

    /// Every unit answered by a search of its own from `new_search`, allocated for it and
    /// dropped after it, so that nothing passes from one unit, or from a stopped search,
    /// to another (a proof's second answers); no move order is guessed.
    pub fn fresh(
        new_search: Box<NewSearch<'a>>,
        id_depth: u8,
        budget: Option<Duration>,
    ) -> Searches<'a> {
        Searches {
            source: Source::Fresh(new_search),
            id_depth,
            budget,
            cancel: Arc::new(AtomicBool::new(false)),
            shallow: HashMap::new(),
        }
    }
}

impl Searcher for Searches<'_> {
    fn answer(&mut self, leaf: &Leaf, beta: i32) -> Result<(Outcome, u64), ProofError> {
        let budget = self.budget.map(|b| (b, &*self.cancel));
        Ok(match &mut self.source {
            Source::Warm(solver) => answer(solver, leaf, beta, self.id_depth, budget),
            Source::Fresh(new_search) => {
                let mut solver = stoppable(new_search()?, self.budget, &self.cancel);
                answer(&mut solver, leaf, beta, self.id_depth, budget)
            }
        })
    }

    fn guess(&mut self, board: &Board) -> Option<i32> {
        let Source::Warm(solver) = &mut self.source else {
            return None;
        };
        *self
            .shallow
            .entry(board.key())
            .or_insert_with(|| shallow_value(solver, board, self.id_depth))
    }
}

/// `solver`, stopped through `cancel` where a budget is set.
fn stoppable<'a>(
    solver: Solver<'a>,
    budget: Option<Duration>,
    cancel: &Arc<AtomicBool>,
) -> Solver<'a> {
    match budget {
        Some(_) => solver.with_cancel(Arc::clone(cancel)),
        None => solver,
    }
}
