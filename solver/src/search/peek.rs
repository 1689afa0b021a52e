//! What a node knows of its moves before it searches them: the bounds their gains and
//! the tables' values give (`Solver::peek`), and the value of one move through its
//! child (`Solver::through`), the step from a node to the next.

use super::order::Ordered;
use super::Solver;
use crate::game::{Next, Step};

impl Solver<'_> {
    /// Bounds on the value of a node from its moves alone, before its table entry is
    /// read: the bounds of `moves` from its moves outside the endgame table and the
    /// database (see [`Ordered`]) widened by the exact values of its moves into the
    /// endgame table (their bytes were prefetched as the moves were sown), then of its
    /// moves into the database, each read in pit order until the lower bound reaches
    /// `beta`. `known[pit]` gets each value read, for the search of the moves. The upper
    /// bound holds only when the lower one is below `beta` (then every such move was
    /// read).
    ///
    /// Many nodes just above the endgame table or the database have a move into it that
    /// reaches `beta`: answered here, they cost no table probe (results/bench.md, "Search
    /// efficiency").
    #[inline]
    pub(super) fn peek(
        &mut self,
        steps: &[Step; 8],
        ranks: &[Option<u64>; 8],
        known: &mut [Option<i32>; 8],
        seeds: i32,
        moves: &Ordered,
        beta: i32,
    ) -> (i32, i32) {
        let (mut floor, mut ceiling) = (moves.floor, moves.ceiling);
        if floor >= beta {
            return (floor, ceiling);
        }
        if let Some(table) = self.config.endgame {
            for (pit, rank) in ranks.iter().enumerate() {
                let Some(rank) = *rank else { continue };
                let step = &steps[pit];
                let child_seeds = step.seeds_after(seeds);
                self.endgame_reads += 1;
                let v = step.value_through(table.value_at(child_seeds as u32, rank));
                known[pit] = Some(v);
                floor = floor.max(v);
                ceiling = ceiling.max(v);
                if floor >= beta {
                    return (floor, ceiling);
                }
            }
        }
        let mut in_db = moves.in_db;
        while in_db != 0 {
            let pit = in_db.trailing_zeros() as usize;
            in_db &= in_db - 1;
            let step = &steps[pit];
            let (lo, hi) = match self.config.probe.and_then(|p| p.value(&step.board)) {
                Some(v) => {
                    self.probes += 1;
                    let v = step.value_through(v);
                    known[pit] = Some(v);
                    (v, v)
                }
                // Not covered after all: the bounds of a move outside any table.
                None => {
                    let child_seeds = step.seeds_after(seeds);
                    (step.gain() - child_seeds, step.gain() + child_seeds)
                }
            };
            floor = floor.max(lo);
            ceiling = ceiling.max(hi);
            if floor >= beta {
                break;
            }
        }
        (floor, ceiling)
    }

    /// The mover's value through `step` (same bound contract as [`Solver::test`] against
    /// `beta`), from a board with `seeds` seeds; `rank`: the child's rank in the endgame
    /// table, when known; `opponent`: whether the mover is the opponent of the test's root
    /// (see [`Solver::test_at`]).
    #[inline]
    pub(super) fn through(
        &mut self,
        step: &Step,
        seeds: i32,
        beta: i32,
        depth: u8,
        rank: Option<u64>,
        opponent: bool,
    ) -> i32 {
        let g = step.gain();
        let child_seeds = step.seeds_after(seeds);
        let b = &step.board;
        let rows = step.rows.map(u32::from);
        match step.next {
            Next::Over => g,
            // The child can gain at most `child_seeds`: skip it when even that fails.
            _ if g + child_seeds < beta => g + child_seeds,
            Next::Same => g + self.test_at(b, rows, child_seeds, beta - g, depth, rank, opponent),
            Next::Other => {
                g - self.test_at(b, rows, child_seeds, g - beta + 1, depth, rank, !opponent)
            }
        }
    }
}
