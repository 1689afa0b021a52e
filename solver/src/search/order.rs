//! Move ordering: a node's moves sown once and sorted into search order.
//!
//! The order (see the [`super`] module docs): the table's move, moves to a board the
//! endgame table or the database holds, moves that end the game, free moves, then the
//! other moves by the seeds they put in the mover's store, then by the fewest seeds they
//! leave in the opponent's row, then the pit nearest the store first.

use super::endgame::Endgame;
use crate::board::Board;
use crate::game::{Game, Next, Step};

/// A node's moves in search order (their steps and endgame ranks lie in the caller's
/// arrays, by pit: a few hundred bytes the caller keeps in place).
pub(super) struct Ordered {
    /// The search order as sorted keys, best first: the order in the high bits,
    /// `255 - pit` in the low byte (ties go to the lower pit).
    keys: [u64; 8],
    /// Moves.
    pub(super) n: usize,
    /// Bounds on the best move's value known without a search: the best of each move's
    /// lower bound (an ended game's gain, else its gain less every seed left) and of each
    /// upper bound (an ended game's gain, else its gain plus every seed left) over the
    /// moves outside the endgame table and the database (the upper bounds; the lower ones
    /// cover every move); `i32::MIN` when there are none. The moves into the tables are
    /// read only when these fall short (a read is a wait for memory).
    pub(super) floor: i32,
    pub(super) ceiling: i32,
    /// The moves (bit `pit`) to a board above the endgame table that the database covers
    /// (up to the `probe_max` of [`Ordered::new`]): left out of `ceiling` and ordered
    /// with the endgame table's moves, since `Solver::peek` reads them.
    pub(super) in_db: u8,
}

impl Ordered {
    /// The moves of the non-terminal `board` (`rows`: the seeds of its rows, the mover's
    /// first; `seeds`: all of them) in search order, each move's step written to
    /// `steps[pit]`; prefetches from `endgame` (of boards up to `endgame_max` seeds) the
    /// value of each child it holds, whose rank goes to `ranks[pit]`, and marks in
    /// [`Ordered::in_db`] each other child with at most `probe_max` seeds (the database's
    /// boards; `i32::MIN` without one).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn new(
        game: &Game,
        board: &Board,
        rows: [u32; 2],
        seeds: i32,
        endgame_max: i32,
        endgame: Option<&Endgame>,
        probe_max: i32,
        steps: &mut [Step; 8],
        ranks: &mut [Option<u64>; 8],
    ) -> Ordered {
        let mut out = Ordered {
            keys: [0u64; 8],
            n: 0,
            floor: i32::MIN,
            ceiling: i32::MIN,
            in_db: 0,
        };
        let mut mask = game.legal_mask(board);
        while mask != 0 {
            let pit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let step = game.play_rows(board, pit, rows);
            let child_seeds = step.seeds_after(seeds);
            let (lo, hi) = match step.next {
                Next::Over => (step.gain(), step.gain()),
                _ if child_seeds <= endgame_max.max(probe_max) => {
                    (step.gain() - child_seeds, i32::MIN)
                }
                _ => (step.gain() - child_seeds, step.gain() + child_seeds),
            };
            out.floor = out.floor.max(lo);
            out.ceiling = out.ceiling.max(hi);
            let order = match step.next {
                Next::Over => 1 << 29,
                _ if child_seeds <= endgame_max => {
                    // Read first, after the table's move: its value is on its way now.
                    if let Some(t) = endgame {
                        let rank = t.rank(&step.board);
                        t.prefetch_at(child_seeds as u32, rank);
                        ranks[pit] = Some(rank);
                    }
                    (1 << 30) + pit as i32
                }
                _ if child_seeds <= probe_max => {
                    out.in_db |= 1 << pit;
                    (1 << 30) + pit as i32
                }
                Next::Same => (1 << 28) + pit as i32,
                // Store gain, then the seeds left in the opponent's row (the child
                // is in the opponent's view: its own row), then the pit; each key in
                // its own bits (pits < 32), all below the classes above.
                Next::Other => {
                    let gain = step.own_gain.min(255) as i32;
                    let left = i32::from(step.rows[0]);
                    (gain << 16) + ((255 - left) << 5) + pit as i32
                }
            };
            steps[pit] = step;
            out.insert((order as u64) << 8 | (255 - pit as u64));
        }
        out
    }

    /// Insertion by key, best first (at most eight moves: a sort's overhead costs more).
    #[inline(always)]
    fn insert(&mut self, key: u64) {
        let mut j = self.n;
        while j > 0 && self.keys[j - 1] < key {
            self.keys[j] = self.keys[j - 1];
            j -= 1;
        }
        self.keys[j] = key;
        self.n += 1;
    }

    /// Moves `pit` (the transposition table's move) to the front, the others keeping
    /// their order; nothing if it is not a move here.
    #[inline(always)]
    pub(super) fn table_move_first(&mut self, pit: u8) {
        let keys = &mut self.keys[..self.n];
        if let Some(i) = keys
            .iter()
            .position(|&k| 255 - (k & 0xff) == u64::from(pit))
        {
            keys[..=i].rotate_right(1);
        }
    }

    /// The first move in search order that a search must answer: not an ended game and
    /// not one whose value `known` holds (see `Solver::peek`).
    #[inline(always)]
    pub(super) fn first_to_search(
        &self,
        steps: &[Step; 8],
        known: &[Option<i32>; 8],
    ) -> Option<u8> {
        (0..self.n).map(|i| self.pit(i)).find(|&pit| {
            let pit = usize::from(pit);
            known[pit].is_none() && steps[pit].next != Next::Over
        })
    }

    /// The pit of the `i`-th move in search order.
    #[inline(always)]
    pub(super) fn pit(&self, i: usize) -> u8 {
        255 - (self.keys[i] & 0xff) as u8
    }
}
