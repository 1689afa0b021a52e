//! Re-derivation of database entries: a stored value checked against the stored values of
//! the board's children, one step of the game.
//!
//! # Why one step suffices
//!
//! [`rederive`] recomputes an entry as the best value over its moves, its children's values
//! read from the database. Counter-clockwise, every move either puts a seed into a store
//! (its child lies in a lower level) or strictly lowers the board's distance sum (see
//! [`crate::gen`]), so the children of a level form an acyclic graph over the lower
//! levels: when every entry of levels `0..=k` re-derives, every entry of them is the
//! game's value, by induction on (level, distance sum), given the rules engine.
//!
//! It is a second computation, not the generator run again: it plays each move through
//! [`Game::steps`] (the generic sowing, not the generator's row kernel) and ranks each
//! child with [`db_format::Ranker`] (the ranking of FORMAT.md, not the generator's split
//! ranks).
//!
//! # The full walk
//!
//! A level's entries are cut into chunks of [`CHUNK`] consecutive ranks, which rayon's
//! threads take. A chunk's first board is unranked once, and each next one is its
//! predecessor's successor in rank order ([`next_in_rank_order`]), so the stored values
//! are read in order. The children are read at random from levels of up to gigabytes, and
//! such a read waits for memory (it was most of the time of a walk that read each child
//! as its move was played: results/db.md, "Every entry re-derived"). So the walk plays
//! the moves of [`BATCH`] boards first, prefetching each child's byte, and only then reads
//! them: the misses of a batch overlap instead of following one another.

use std::ops::Range;

use db_format::index::next_in_rank_order;
use db_format::{level_size, value, DbError, Ranker};
use rayon::prelude::*;

use crate::board::Board;
use crate::game::{Game, Next, Step};
use crate::probe::Probe;
use crate::rules::MAX_PITS;

/// The value of a non-terminal or terminal `board` re-derived from the stored values of
/// its children, all read from `db` (which must cover the board's own level): the
/// one-step check of a database's verifier. `None` when a child is not covered.
pub fn rederive(game: &Game, board: &Board, db: &dyn Probe) -> Option<i32> {
    if let Some(v) = game.terminal_value(board) {
        return Some(v);
    }
    let mut best = i32::MIN;
    for (_, step) in game.steps(board) {
        let child = match step.next {
            Next::Over => 0,
            Next::Same | Next::Other => db.value(&step.board)?,
        };
        best = best.max(step.value_through(child));
    }
    Some(best)
}

/// The levels `0..len()` of a database as their values in rank order (one slice a level,
/// typically the level files' maps): what the verifier reads.
///
/// Invariant: slice `k` holds exactly the `C(k + 2m - 1, 2m - 1)` entries of level `k`.
pub struct Levels<'a> {
    cells: usize,
    levels: Vec<(Ranker, &'a [i8])>,
}

impl<'a> Levels<'a> {
    /// The levels `0..values.len()` of boards of `cells / 2` pits a side; an error when a
    /// slice does not hold its level's entry count.
    pub fn new(cells: usize, values: &[&'a [i8]]) -> Result<Levels<'a>, DbError> {
        let mut levels = Vec::with_capacity(values.len());
        for (k, &v) in values.iter().enumerate() {
            let ranker = Ranker::new(cells, k as u32)?;
            if v.len() as u64 != ranker.count() {
                return Err(DbError::EntryCountMismatch {
                    expected: ranker.count(),
                    actual: v.len() as u64,
                });
            }
            levels.push((ranker, v));
        }
        Ok(Levels { cells, levels })
    }

    /// Levels held: `0..len()`.
    pub fn len(&self) -> u32 {
        self.levels.len() as u32
    }

    /// Whether no level is held.
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }

    /// Where `board`'s entry lies: (its level, its rank), `None` when the level is not
    /// held. Starts loading the entry's cache line.
    #[inline]
    fn locate(&self, board: &Board) -> Option<(usize, u64)> {
        let k = board.seeds() as usize;
        let (ranker, values) = self.levels.get(k)?;
        let rank = ranker.rank(&board.cells()[..self.cells]);
        crate::memory::prefetch(values.get(rank as usize)?);
        Some((k, rank))
    }

    /// The stored value of entry `rank` of level `k` (as [`locate`](Levels::locate) gave
    /// them), `None` when it lies outside `-k..=k`: no board has it, so as the
    /// [`crate::Database`] probe, the verifier takes it for a value not covered.
    #[inline]
    fn read(&self, k: usize, rank: u64) -> Option<i32> {
        let v = *self.levels[k].1.get(rank as usize)?;
        value::in_range(v, k as u32).then_some(i32::from(v))
    }
}

impl Probe for Levels<'_> {
    fn max_seeds(&self) -> u32 {
        self.len().saturating_sub(1)
    }

    fn value(&self, board: &Board) -> Option<i32> {
        let (k, rank) = self.locate(board)?;
        self.read(k, rank)
    }
}

/// What re-deriving a level found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelCheck {
    /// Entries re-derived.
    pub checked: u64,
    /// The first entry (in the order checked) whose children do not give its value.
    pub wrong: Option<Mismatch>,
}

/// An entry whose stored value its children do not give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The entry's rank in its level.
    pub rank: u64,
    /// The value stored (possibly outside the level's range, which no board's value is).
    pub stored: i32,
    /// The value its children give ([`rederive`]), or none when a child is not covered.
    pub derived: Option<i32>,
}

/// Consecutive ranks a thread walks at a time (one unranking each), and the unit of the
/// progress reports: small enough that two threads share the smallest levels' work and
/// that progress moves every few milliseconds, large enough to cost nothing.
pub const CHUNK: u64 = 1 << 16;

/// Boards whose children are prefetched together, up to `MAX_PITS` reads each: enough to
/// keep the processor's outstanding misses busy, few enough that a batch's bytes are all
/// still in the first-level cache when they are read.
pub const BATCH: usize = 16;

/// Re-derives the entries of level `k` of `levels` ([`rederive`], in parallel): all of
/// them when the level has at most `full_up_to` entries (`u64::MAX`: every level), else
/// a fixed sample of `sample` ranks (SplitMix64 of the index and the level: the same
/// sample on every run). `progress` is told the entries done as chunks of them end. A
/// level not held is no entry checked.
pub fn rederive_level(
    game: &Game,
    levels: &Levels,
    k: u32,
    full_up_to: u64,
    sample: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> LevelCheck {
    if k >= levels.len() {
        return LevelCheck {
            checked: 0,
            wrong: None,
        };
    }
    let count = level_size(2 * game.pits(), k);
    let full = count <= full_up_to;
    let n = if full { count } else { sample.min(count) };
    let wrong = (0..n.div_ceil(CHUNK)).into_par_iter().find_map_first(|c| {
        let part = c * CHUNK..((c + 1) * CHUNK).min(n);
        let len = part.end - part.start;
        let mut first = None;
        let stop = |w| {
            first = Some(w);
            false
        };
        if full {
            walk(game, levels, k, part, stop);
        } else {
            sampled(game, levels, k, part, stop);
        }
        progress(len);
        first
    });
    LevelCheck { checked: n, wrong }
}

/// Re-derives the entries `ranks` of level `k` of `levels` (which must hold level `k`,
/// and `ranks` lie in it), walking each chunk as [`rederive_level`] does: for timing a
/// part of a large level.
pub fn rederive_ranks(game: &Game, levels: &Levels, k: u32, ranks: Range<u64>) -> LevelCheck {
    let chunks = (ranks.end - ranks.start).div_ceil(CHUNK);
    let wrong = (0..chunks).into_par_iter().find_map_first(|c| {
        let start = ranks.start + c * CHUNK;
        let mut first = None;
        walk(
            game,
            levels,
            k,
            start..(start + CHUNK).min(ranks.end),
            |w| {
                first = Some(w);
                false
            },
        );
        first
    });
    LevelCheck {
        checked: ranks.end - ranks.start,
        wrong,
    }
}

/// The rank of a level of `count` entries that the sample's `i`th entry checks.
fn sample_rank(k: u32, count: u64, i: u64) -> u64 {
    let mut z = i
        .wrapping_add(u64::from(k) << 40)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) % count
}

/// Checks the sample's entries `part` of level `k` (each unranked, [`rederive`] through
/// the [`Probe`]), telling `report` of each wrong one until it answers `false`.
fn sampled(
    game: &Game,
    levels: &Levels,
    k: u32,
    part: Range<u64>,
    mut report: impl FnMut(Mismatch) -> bool,
) {
    let (ranker, values) = &levels.levels[k as usize];
    let cells = 2 * game.pits();
    for i in part {
        let rank = sample_rank(k, ranker.count(), i);
        let mut b = Board::EMPTY;
        ranker.unrank(rank, &mut b.cells_mut()[..cells]);
        let stored = values[rank as usize];
        let derived = rederive(game, &b, levels);
        if !value::in_range(stored, k) || derived != Some(i32::from(stored)) {
            let w = Mismatch {
                rank,
                stored: i32::from(stored),
                derived,
            };
            if !report(w) {
                return;
            }
        }
    }
}

/// A board of a batch whose moves were played and whose children's reads are pending.
#[derive(Clone, Copy)]
struct Pending {
    /// The best value through the moves that end the game (and the value of a terminal
    /// board); `i32::MIN` when there is none.
    best: i32,
    /// A child lies in a level not held: the board re-derives to `None`.
    uncovered: bool,
    /// The moves to a child, with the child's (level, rank): `reads[..n]`.
    n: usize,
    reads: [(Step, usize, u64); MAX_PITS],
}

impl Pending {
    const EMPTY: Pending = Pending {
        best: i32::MIN,
        uncovered: false,
        n: 0,
        reads: [(Step::NONE, 0, 0); MAX_PITS],
    };

    /// Plays every move of `board` and prefetches its children's entries.
    #[inline]
    fn play(game: &Game, levels: &Levels, board: &Board) -> Pending {
        let mut p = Pending::EMPTY;
        if let Some(v) = game.terminal_value(board) {
            p.best = v;
            return p;
        }
        for (_, step) in game.steps(board) {
            match step.next {
                Next::Over => p.best = p.best.max(step.value_through(0)),
                Next::Same | Next::Other => match levels.locate(&step.board) {
                    Some((k, rank)) => {
                        p.reads[p.n] = (step, k, rank);
                        p.n += 1;
                    }
                    None => p.uncovered = true,
                },
            }
        }
        p
    }

    /// The board's value from its children's entries: [`rederive`]'s.
    #[inline]
    fn value(&self, levels: &Levels) -> Option<i32> {
        if self.uncovered {
            return None;
        }
        let mut best = self.best;
        for (step, k, rank) in &self.reads[..self.n] {
            best = best.max(step.value_through(levels.read(*k, *rank)?));
        }
        Some(best)
    }
}

/// The boards of consecutive ranks of a level: the first unranked, each next one its
/// predecessor's successor in rank order.
pub struct RankWalk {
    board: Board,
    cells: usize,
    rank: u64,
    end: u64,
}

impl RankWalk {
    /// The boards of ranks `part` of `ranker`'s level (`part.end <= ranker.count()`), of
    /// `ranker.cells() / 2` pits a side.
    pub fn new(ranker: &Ranker, part: Range<u64>) -> RankWalk {
        let cells = ranker.cells();
        let mut board = Board::EMPTY;
        if part.start < part.end {
            ranker.unrank(part.start, &mut board.cells_mut()[..cells]);
        }
        RankWalk {
            board,
            cells,
            rank: part.start,
            end: part.end,
        }
    }
}

impl Iterator for RankWalk {
    /// A rank and its board.
    type Item = (u64, Board);

    #[inline]
    fn next(&mut self) -> Option<(u64, Board)> {
        if self.rank >= self.end {
            return None;
        }
        let here = (self.rank, self.board);
        self.rank += 1;
        // Past the level's last board this answers `false` and leaves it, never read.
        next_in_rank_order(&mut self.board.cells_mut()[..self.cells]);
        Some(here)
    }
}

/// Re-derives the entries `part` of level `k` in rank order, [`BATCH`] boards at a time,
/// telling `report` of each wrong one until it answers `false`.
fn walk(
    game: &Game,
    levels: &Levels,
    k: u32,
    part: Range<u64>,
    mut report: impl FnMut(Mismatch) -> bool,
) {
    let (ranker, values) = &levels.levels[k as usize];
    let mut boards = RankWalk::new(ranker, part);
    let mut batch = [(0u64, Pending::EMPTY); BATCH];
    loop {
        let mut n = 0;
        for (slot, (rank, board)) in batch.iter_mut().zip(&mut boards) {
            *slot = (rank, Pending::play(game, levels, &board));
            n += 1;
        }
        if n == 0 {
            return;
        }
        for (rank, p) in &batch[..n] {
            let stored = values[*rank as usize];
            let derived = p.value(levels);
            if !value::in_range(stored, k) || derived != Some(i32::from(stored)) {
                let w = Mismatch {
                    rank: *rank,
                    stored: i32::from(stored),
                    derived,
                };
                if !report(w) {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::gen::{build_level, Lower};
    use crate::rules::Rules;

    /// Levels `0..=max_k` of `game`, built by the generator.
    fn build(game: &Game, max_k: u32) -> Vec<Vec<i8>> {
        let mut out: Vec<Vec<i8>> = Vec::new();
        for k in 0..=max_k {
            let lower: Vec<&[i8]> = out.iter().map(Vec::as_slice).collect();
            out.push(build_level(game, k, Lower::Values(&lower), None, &|_| {}).unwrap());
        }
        out
    }

    /// The wrong entries of level `k` in rank order, each board unranked on its own and
    /// re-derived through the probe: the check as it was before the walk.
    fn wrong_by_unranking(game: &Game, levels: &Levels, k: u32) -> Vec<Mismatch> {
        let (ranker, values) = &levels.levels[k as usize];
        let cells = 2 * game.pits();
        let mut c = vec![0u8; cells];
        let mut out = Vec::new();
        for rank in 0..ranker.count() {
            ranker.unrank(rank, &mut c);
            let b = Board::from_cells(game.pits(), &c);
            let stored = values[rank as usize];
            let derived = rederive(game, &b, levels);
            if !value::in_range(stored, k) || derived != Some(i32::from(stored)) {
                out.push(Mismatch {
                    rank,
                    stored: i32::from(stored),
                    derived,
                });
            }
        }
        out
    }

    #[test]
    fn the_walk_steps_through_every_rank_as_unranking_gives_it() {
        for (cells, k) in [(12, 8), (6, 9), (4, 5), (2, 3), (12, 0)] {
            let r = Ranker::new(cells, k).unwrap();
            let n = r.count();
            // Parts cut at odd places, as chunks of several sizes would be.
            for step in [1, 7, 1000, n.max(1)] {
                let mut seen = 0u64;
                let mut c = vec![0u8; cells];
                for start in (0..n).step_by(step as usize) {
                    for (rank, b) in RankWalk::new(&r, start..(start + step).min(n)) {
                        assert_eq!(rank, seen, "cells {cells} k {k} step {step}");
                        r.unrank(rank, &mut c);
                        assert_eq!(&b.cells()[..cells], &c[..], "rank {rank}");
                        assert!(b.cells()[cells..].iter().all(|&x| x == 0));
                        seen += 1;
                    }
                }
                assert_eq!(seen, n, "cells {cells} k {k} step {step}");
            }
        }
    }

    #[test]
    fn a_sound_level_re_derives_whole_with_every_entry_counted_once() {
        // Level 8 of 6 pits: 75582 entries, two chunks.
        let game = Game::new(Rules::kalah(6, 4).unwrap());
        let values = build(&game, 8);
        let slices: Vec<&[i8]> = values.iter().map(Vec::as_slice).collect();
        let levels = Levels::new(12, &slices).unwrap();
        for k in 0..=8 {
            let done = AtomicU64::new(0);
            let check = rederive_level(&game, &levels, k, u64::MAX, 1, &|n| {
                done.fetch_add(n, Ordering::Relaxed);
            });
            let count = level_size(12, k);
            assert_eq!(
                check,
                LevelCheck {
                    checked: count,
                    wrong: None
                }
            );
            assert_eq!(done.into_inner(), count);
        }
        assert!(level_size(12, 8) > CHUNK);
        // Past the levels held: nothing checked.
        let none = rederive_level(&game, &levels, 9, u64::MAX, 1, &|_| {});
        assert_eq!(none.checked, 0);
    }

    #[test]
    fn corrupted_entries_are_found_by_the_walk_as_by_unranking() {
        let game = Game::new(Rules::kalah(6, 4).unwrap());
        let mut values = build(&game, 8);
        let good = values[8][70_000];
        // One entry past the first chunk changed within the level's range, one in the
        // first chunk put outside it, and a lower level's entry, whose parents then fail.
        values[8][70_000] = if good == 0 { 1 } else { 0 };
        values[8][123] = 100;
        values[7][5_000] = if values[7][5_000] == 2 { 3 } else { 2 };
        let slices: Vec<&[i8]> = values.iter().map(Vec::as_slice).collect();
        let levels = Levels::new(12, &slices).unwrap();
        for k in [7, 8] {
            let want = wrong_by_unranking(&game, &levels, k);
            let mut got = Vec::new();
            walk(&game, &levels, k, 0..level_size(12, k), |w| {
                got.push(w);
                true
            });
            assert_eq!(got, want, "level {k}");
            assert!(!got.is_empty());
            let first = rederive_level(&game, &levels, k, u64::MAX, 1, &|_| {});
            assert_eq!(first.wrong, Some(want[0]), "level {k}");
        }
        // The changed entries themselves, whose children are intact: their own values.
        let only = |k: u32, rank: u64| {
            let mut got = Vec::new();
            walk(&game, &levels, k, rank..rank + 1, |w| {
                got.push(w);
                true
            });
            got
        };
        assert_eq!(
            only(8, 70_000),
            vec![Mismatch {
                rank: 70_000,
                stored: i32::from(values[8][70_000]),
                derived: Some(i32::from(good)),
            }]
        );
        assert_eq!(only(8, 123)[0].stored, 100);
        assert_eq!(only(7, 5_000).len(), 1);
    }

    #[test]
    fn children_read_out_of_range_give_no_value_as_through_the_probe() {
        // Every entry of level 2 outside -2..=2: the level-3 boards with a move into it
        // re-derive to nothing, the others to their values.
        let game = Game::new(Rules::kalah(3, 3).unwrap());
        let mut values = build(&game, 3);
        values[2].fill(-100);
        let slices: Vec<&[i8]> = values.iter().map(Vec::as_slice).collect();
        let levels = Levels::new(6, &slices).unwrap();
        let want = wrong_by_unranking(&game, &levels, 3);
        assert!(want.iter().any(|w| w.derived.is_none()));
        let mut got = Vec::new();
        walk(&game, &levels, 3, 0..level_size(6, 3), |w| {
            got.push(w);
            true
        });
        assert_eq!(got, want);
    }

    #[test]
    fn levels_of_the_wrong_length_are_refused() {
        let short = [0i8; 5];
        let one = [0i8; 1];
        assert!(matches!(
            Levels::new(6, &[&one, &short]),
            Err(DbError::EntryCountMismatch {
                expected: 6,
                actual: 5
            })
        ));
    }
}
