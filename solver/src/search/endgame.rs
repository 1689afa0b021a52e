//! The search's own endgame table: the exact value of every board with at most `K` seeds,
//! built in memory by retrograde analysis ([`crate::gen`]) just before a search starts.
//!
//! # Why
//!
//! Most of an exact search's nodes sit near the end of the game, where few seeds are left,
//! and each costs a transposition-table probe (a miss in memory) and a subtree below it.
//! Reading every board of up to about half the seeds from a table instead removes most
//! of those nodes (figures: results/bench.md), and answers each of those boards with one
//! read. Unlike a database on disk ([`crate::dbfile`]) it needs no
//! files and no earlier build: it is part of the solve, and its build time is part of the
//! solve's time.
//!
//! # Layout
//!
//! Level `k` is one byte array in rank order, the ranking of the database format
//! ([`db_format::Ranker`]): the same bytes as level `k`'s file. For 2 pits a side and
//! `K = 2` the levels hold 1, 4 and 10 boards, and the board `[1, 0, 1, 0]` (2 seeds, rank
//! 6 in the ranking's worked example) is byte 6 of level 2. The levels stay the arrays the
//! generator built: joining them into one would touch as much memory again, and on a
//! machine where fresh memory is slow to hand out (this project's virtual machines) that
//! costs more than the second index.

use db_format::Ranker;

use crate::board::Board;
use crate::game::Game;
use crate::gen::{self, GenError, Lower};
use crate::probe::Probe;
use crate::rank::FastRank;

/// The default size limit of an endgame table, in boards (and bytes): 1.5 Gi, room for
/// the 24-seed table of a 6-pit game (1.25 billion boards), which Kalah(6,5) gets by
/// default, but not for the 25-seed one (1.85 billion): its build costs about as much
/// search as it saves there, and it would add 0.6 GB to the solve's peak memory.
pub const DEFAULT_BOARDS: u64 = 3 << 29;

/// Every board with at most [`Endgame::max_seeds`] seeds and its exact value.
pub struct Endgame {
    max: u32,
    rank: FastRank,
    /// `levels[k]`: the values of the boards with `k` seeds, in rank order.
    levels: Vec<Vec<i8>>,
}

impl Endgame {
    /// Levels `0..=max` of `game`, built on the current rayon pool; `progress` hears of each
    /// level as it is done (its seeds and boards).
    pub fn build(
        game: &Game,
        max: u32,
        mut progress: impl FnMut(u32, u64),
    ) -> Result<Endgame, GenError> {
        let cells = 2 * game.pits();
        let mut levels: Vec<Vec<i8>> = Vec::with_capacity(max as usize + 1);
        for k in 0..=max {
            let lower: Vec<&[i8]> = levels.iter().map(Vec::as_slice).collect();
            let level = gen::build_level(game, k, Lower::Values(&lower), None, &|_| {})?;
            progress(k, level.len() as u64);
            levels.push(level);
        }
        Ok(Endgame {
            max,
            rank: FastRank::new(&Ranker::new(cells, max)?),
            levels,
        })
    }

    /// The level the search of a board with `seeds` seeds in `pits` a side gets by default:
    /// `seeds / 2 - 5`, but no larger than a table of `limit` boards.
    ///
    /// Why about half the seeds: each level more costs about half again as much to build
    /// and saves about a third of the search; for Kalah(6,4) (48 seeds) level 19 beats
    /// level 18 on one thread and on two, with less peak memory beside the default
    /// transposition table (figures: results/speed.md, "What was tried"). `None` when not
    /// even level 1 fits or the rule gives less.
    pub fn level_for(pits: usize, seeds: u32, limit: u64) -> Option<u32> {
        let want = (seeds / 2).saturating_sub(5);
        (1..=want)
            .take_while(|&k| Endgame::boards(pits, k).is_some_and(|b| b <= limit))
            .last()
    }

    /// The boards (and bytes) of the table of levels `0..=max` for `pits` a side, or
    /// `None` past `u64`.
    pub fn boards(pits: usize, max: u32) -> Option<u64> {
        (0..=max).try_fold(0u64, |total, k| {
            total.checked_add(db_format::checked_level_size(2 * pits, k)?)
        })
    }

    /// The number of boards (and bytes) in the table.
    pub fn len(&self) -> usize {
        self.levels.iter().map(Vec::len).sum()
    }

    /// Whether the table is empty (never: level 0 always holds the empty board).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The exact value of `board`, which must hold `seeds <= max_seeds()` seeds.
    #[inline]
    pub fn get(&self, board: &Board, seeds: u32) -> i32 {
        self.value_at(seeds, self.rank(board))
    }

    /// Where `board` (of at most `max_seeds()` seeds) lies in its level: computed once, it
    /// serves both [`Endgame::prefetch_at`] and [`Endgame::value_at`].
    #[inline]
    pub fn rank(&self, board: &Board) -> u64 {
        self.rank.rank(board.cells())
    }

    /// The exact value of the board of rank `rank` among those of `seeds` seeds.
    #[inline]
    pub fn value_at(&self, seeds: u32, rank: u64) -> i32 {
        i32::from(self.levels[seeds as usize][rank as usize])
    }

    /// Start loading the value of the board of rank `rank` among those of `seeds` seeds
    /// (as [`Endgame::value_at`] takes it) into the cache.
    #[inline]
    pub fn prefetch_at(&self, seeds: u32, rank: u64) {
        if let Some(v) = self.levels[seeds as usize].get(rank as usize) {
            crate::memory::prefetch(v);
        }
    }
}

impl Probe for Endgame {
    fn max_seeds(&self) -> u32 {
        self.max
    }

    fn value(&self, board: &Board) -> Option<i32> {
        let seeds = board.seeds();
        (seeds <= self.max).then(|| self.get(board, seeds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::MemoryDb;
    use crate::rules::Rules;

    #[test]
    fn the_worked_example_is_byte_6_of_level_2() {
        let game = Game::new(Rules::kalah(2, 1).unwrap());
        let e = Endgame::build(&game, 2, |_, _| {}).unwrap();
        assert_eq!(
            e.levels.iter().map(Vec::len).collect::<Vec<_>>(),
            [1, 4, 10]
        );
        assert_eq!(e.len(), 15);
        let b = Board::from_cells(2, &[1, 0, 1, 0]);
        assert_eq!(e.rank.rank(b.cells()), 6);
        assert_eq!(e.get(&b, 2), i32::from(e.levels[2][6]));
    }

    #[test]
    fn values_equal_the_level_by_level_database() {
        let game = Game::new(Rules::kalah(3, 2).unwrap());
        let e = Endgame::build(&game, 6, |_, _| {}).unwrap();
        let mut db = MemoryDb::new(3);
        for k in 0..=6 {
            let lower: Vec<&[i8]> = (0..k).map(|j| db.level(j as usize)).collect();
            let level = gen::build_level(&game, k, Lower::Values(&lower), None, &|_| {}).unwrap();
            db.push(level).unwrap();
        }
        for k in 0..=6u32 {
            let r = Ranker::new(6, k).unwrap();
            let mut cells = [0u8; 6];
            for i in 0..r.count() {
                r.unrank(i, &mut cells);
                let b = Board::from_cells(3, &cells);
                assert_eq!(e.value(&b), db.value(&b), "board {cells:?}");
            }
        }
        assert_eq!(e.value(&Board::from_cells(3, &[7, 0, 0, 0, 0, 0])), None);
    }

    #[test]
    fn level_for_takes_half_the_seeds_within_the_limit() {
        assert_eq!(Endgame::level_for(6, 48, DEFAULT_BOARDS), Some(19));
        assert_eq!(Endgame::level_for(6, 37, DEFAULT_BOARDS), Some(13));
        // 6 pits: levels 0..=24 hold 1,251,677,700 boards, 0..=25 hold 1,852,482,996.
        assert_eq!(Endgame::level_for(6, 60, DEFAULT_BOARDS), Some(24));
        assert_eq!(Endgame::level_for(6, 72, DEFAULT_BOARDS), Some(24));
        assert_eq!(Endgame::level_for(6, 72, 2 << 30), Some(25));
        assert_eq!(Endgame::level_for(6, 60, 225_792_840), Some(20));
        assert_eq!(Endgame::level_for(6, 60, 225_792_839), Some(19));
        assert_eq!(Endgame::level_for(4, 16, DEFAULT_BOARDS), Some(3));
        assert_eq!(Endgame::level_for(6, 14, DEFAULT_BOARDS), Some(2));
        assert_eq!(Endgame::level_for(6, 12, DEFAULT_BOARDS), Some(1));
        assert_eq!(Endgame::level_for(6, 11, DEFAULT_BOARDS), None);
        assert_eq!(Endgame::level_for(6, 48, 0), None);
        assert_eq!(Endgame::boards(6, 20), Some(225_792_840));
        assert_eq!(Endgame::boards(2, 2), Some(15));
    }
}
