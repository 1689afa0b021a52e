//! The interface between the search and an endgame database.
//!
//! The search asks a [`Probe`] for the value of every board with at most
//! [`Probe::max_seeds`] seeds on it; a database, an in-memory table or a test double can
//! answer. The value must be exact, in the units of [`crate::search`]: the future net gain
//! of the side to move.

use crate::board::Board;

/// Exact values of small boards.
pub trait Probe: Sync {
    /// The largest number of seeds on the board this probe covers.
    fn max_seeds(&self) -> u32;

    /// The exact value of `board` (future net gain for the side to move), or `None` if
    /// the board is not covered. Only called with `board.seeds() <= max_seeds()`.
    fn value(&self, board: &Board) -> Option<i32>;

    /// Whether a value read was found damaged (outside `-k..=k`; [`Probe::value`] then
    /// answered `None` for a board it covers). Tables built in memory are never damaged.
    fn damaged(&self) -> bool {
        false
    }
}

/// Whole database levels held in memory: `levels[k]` has the value of every board with
/// `k` seeds, indexed by [`db_format::Ranker`] rank. Built by the generators and used by
/// tests and by solves whose whole game fits in memory.
pub struct MemoryDb {
    cells: usize,
    rankers: Vec<db_format::Ranker>,
    levels: Vec<Vec<i8>>,
}

impl MemoryDb {
    /// An empty database for boards of `pits` a side.
    pub fn new(pits: usize) -> MemoryDb {
        MemoryDb {
            cells: 2 * pits,
            rankers: Vec::new(),
            levels: Vec::new(),
        }
    }

    /// Levels held: 0..levels().
    pub fn levels(&self) -> usize {
        self.levels.len()
    }

    /// Add the next level (`k == self.levels()`), whose values are in rank order.
    pub fn push(&mut self, values: Vec<i8>) -> Result<(), db_format::DbError> {
        let k = self.levels.len() as u32;
        let ranker = db_format::Ranker::new(self.cells, k)?;
        if values.len() as u64 != ranker.count() {
            return Err(db_format::DbError::EntryCountMismatch {
                expected: ranker.count(),
                actual: values.len() as u64,
            });
        }
        self.rankers.push(ranker);
        self.levels.push(values);
        Ok(())
    }

    /// The values of level `k`.
    pub fn level(&self, k: usize) -> &[i8] {
        &self.levels[k]
    }
}

impl Probe for MemoryDb {
    fn max_seeds(&self) -> u32 {
        (self.levels.len() as u32).saturating_sub(1)
    }

    fn value(&self, board: &Board) -> Option<i32> {
        let k = board.seeds() as usize;
        let ranker = self.rankers.get(k)?;
        let rank = ranker.rank(&board.cells()[..self.cells]);
        Some(self.levels[k][rank as usize] as i32)
    }
}
