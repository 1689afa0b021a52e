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
//! Every child of a board is read from the database, most of them from levels of up to
//! gigabytes, and a walk in rank order reads them at random: a read from memory, and on
//! a virtual machine a page walk, for nearly every child (it was most of the time of the
//! first verifiers: results/db.md, "Every entry re-derived"). The walk takes the boards in
//! an order whose children lie close together instead.
//!
//! Write a board `(a, b)`: the mover's row `a`, the opponent's row `b`. Its rank is
//! `lo(a) + hi(|a|, b)`: the first `m - 1` bars of FORMAT.md's formula lie in `a` and give
//! the rank of `a` among the rows of its sum, and the others depend on `a` only through
//! its sum. So the boards with opponent's row `b` and a mover's row of sum `s` fill one
//! run of ranks, in the order of their mover's rows, and `b`'s successor in rank order
//! (among the rows of its sum) has the next run. A move from `(a, b)` that leaves the
//! mover's row `a'` hands the opponent the board `(b', a')`, where `b'` is `b` with the
//! seeds the move sowed into it (and a captured pit emptied): its run is `a'`'s, and its
//! place in the run is the rank of `b'`. For a fixed `a` and move, `a'` is fixed, and
//! as `b` steps through its rows in rank order, the children step through one run each
//! (consecutive bytes when nothing reaches `b`), instead of jumping across the level. A
//! move that ends in the mover's store leaves `(a', b)`: as `b` steps, it steps from run
//! to run as the board itself does.
//!
//! So the walk's unit is a *tile*: [`TILE`] consecutive mover's rows of one sum `s`
//! (unranked once), against every opponent's row of sum `k - s` in rank order (stepped
//! with [`next_in_rank_order`]). For each `b` the tile's boards are one run of ranks (the
//! first ranked with [`Ranker`], the others following it), their stored values a few
//! bytes in a row. The children of each (row, move) of the tile advance through a run of
//! their own, a few hundred streams that the caches follow. rayon's threads take the
//! tiles; within a tile the moves of [`BATCH`] boards are played and their children's
//! bytes prefetched before any of them is read, so that the misses that remain overlap.

use std::ops::Range;

use db_format::next_in_rank_order;
use db_format::{level_size, value_in_range, DbError, Entries, Ranker};
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
/// typically the level files' maps, or the entries of level files of either format): what
/// the verifier reads.
///
/// Invariant: level `k` holds exactly the `C(k + 2m - 1, 2m - 1)` entries of level `k`.
pub struct Levels<'a> {
    cells: usize,
    levels: Vec<(Ranker, Entries<'a>)>,
}

/// The entry an undecodable compact block reads as in a [`Mismatch`]: outside every
/// level's range, as no board's value is.
pub const UNREADABLE: i32 = i8::MIN as i32;

impl<'a> Levels<'a> {
    /// The levels `0..values.len()` of boards of `cells / 2` pits a side, one byte an
    /// entry; an error when a slice does not hold its level's entry count.
    pub fn new(cells: usize, values: &[&'a [i8]]) -> Result<Levels<'a>, DbError> {
        let entries: Vec<Entries<'a>> = values.iter().map(|&v| Entries::Bytes(v)).collect();
        Levels::from_entries(cells, &entries)
    }

    /// The levels `0..entries.len()` of boards of `cells / 2` pits a side, in either file
    /// format ([`db_format::LevelFile::entries`]); an error when a level does not hold its
    /// entry count. A compact level decodes a block a read.
    pub fn from_entries(cells: usize, entries: &[Entries<'a>]) -> Result<Levels<'a>, DbError> {
        let mut levels = Vec::with_capacity(entries.len());
        for (k, &v) in entries.iter().enumerate() {
            let ranker = Ranker::new(cells, k as u32)?;
            if v.len() != ranker.count() {
                return Err(DbError::EntryCountMismatch {
                    expected: ranker.count(),
                    actual: v.len(),
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
        crate::memory::prefetch(values.first_read(rank)?);
        Some((k, rank))
    }

    /// The stored value of entry `rank` of level `k` (as [`locate`](Levels::locate) gave
    /// them), `None` when it lies outside `-k..=k` or its compact block does not decode:
    /// no board has it, so as the [`crate::Database`] probe, the verifier takes it for a
    /// value not covered.
    #[inline]
    fn read(&self, k: usize, rank: u64) -> Option<i32> {
        let v = self.levels[k].1.get(rank)?;
        value_in_range(v, k as u32).then_some(i32::from(v))
    }

    /// The entry stored at `rank` of level `k` as a [`Mismatch`] reports it: the value,
    /// or [`UNREADABLE`].
    #[inline]
    fn stored(&self, k: usize, rank: u64) -> i32 {
        self.levels[k].1.get(rank).map_or(UNREADABLE, i32::from)
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
    /// The value stored (possibly outside the level's range, which no board's value is;
    /// [`UNREADABLE`] for a compact block that does not decode).
    pub stored: i32,
    /// The value its children give ([`rederive`]), or none when a child is not covered.
    pub derived: Option<i32>,
}

/// Mover's rows in a tile of the walk (see the module docs): the boards of one opponent's
/// row in a tile are this many consecutive bytes, one cache line, and a tile's children
/// this many runs a move.
pub const TILE: usize = 64;

/// Sample entries checked by a thread at a time, and the unit of their progress reports.
const SAMPLE_CHUNK: u64 = 1 << 12;

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
    if count <= full_up_to {
        return match tiles(game.pits(), k) {
            Ok(tiles) => rederive_tiles(game, levels, k, &tiles, progress),
            // Not reached: the level is held, so its rankers exist.
            Err(_) => LevelCheck {
                checked: 0,
                wrong: None,
            },
        };
    }
    let n = sample.min(count);
    let wrong = (0..n.div_ceil(SAMPLE_CHUNK))
        .into_par_iter()
        .find_map_first(|c| {
            let part = c * SAMPLE_CHUNK..((c + 1) * SAMPLE_CHUNK).min(n);
            let len = part.end - part.start;
            let mut first = None;
            sampled(game, levels, k, part, |w| {
                first = Some(w);
                false
            });
            progress(len);
            first
        });
    LevelCheck { checked: n, wrong }
}

/// One tile of a level's walk (see the module docs): the boards whose mover's row is one
/// of `rows` consecutive rows of sum `sum`, from the row of rank `first` among them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile {
    /// Seeds in the mover's row.
    pub sum: u32,
    /// The rank of the tile's first mover's row among the rows of its sum.
    pub first: u64,
    /// Mover's rows in the tile (at most [`TILE`]).
    pub rows: u64,
}

impl Tile {
    /// The boards of the tile in level `k` of `pits` pits a side: its rows times the
    /// opponent's rows of sum `k - sum` (none when `sum > k`).
    pub fn entries(&self, pits: usize, k: u32) -> u64 {
        k.checked_sub(self.sum)
            .map_or(0, |rest| self.rows * level_size(pits, rest))
    }
}

/// The tiles of level `k` of boards of `pits` pits a side, by the sum of the mover's row,
/// then by its rows: together they hold every board of the level once.
pub fn tiles(pits: usize, k: u32) -> Result<Vec<Tile>, DbError> {
    let mut out = Vec::new();
    for sum in 0..=k {
        let rows = Ranker::new(pits, sum)?.count();
        for first in (0..rows).step_by(TILE) {
            out.push(Tile {
                sum,
                first,
                rows: (rows - first).min(TILE as u64),
            });
        }
    }
    Ok(out)
}

/// Re-derives the boards of `tiles` of level `k` of `levels` (which must hold level `k`;
/// the tiles of [`tiles`], or some of them), in parallel, telling `progress` of the
/// entries of each tile as it ends. The first wrong entry is that of the first tile, in
/// the order given, that has one.
pub fn rederive_tiles(
    game: &Game,
    levels: &Levels,
    k: u32,
    tiles: &[Tile],
    progress: &(dyn Fn(u64) + Sync),
) -> LevelCheck {
    let m = game.pits();
    let wrong = tiles.par_iter().find_map_first(|tile| {
        let boards = TileWalk::new(&levels.levels[k as usize].0, m, tile);
        let mut first = None;
        walk(game, levels, k, boards, |w| {
            first = Some(w);
            false
        });
        progress(tile.entries(m, k));
        first
    });
    LevelCheck {
        checked: tiles.iter().map(|t| t.entries(m, k)).sum(),
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
    let ranker = &levels.levels[k as usize].0;
    let cells = 2 * game.pits();
    for i in part {
        let rank = sample_rank(k, ranker.count(), i);
        let mut b = Board::EMPTY;
        ranker.unrank(rank, &mut b.cells_mut()[..cells]);
        let stored = levels.stored(k as usize, rank);
        let derived = rederive(game, &b, levels);
        if stored.unsigned_abs() > k || derived != Some(stored) {
            let w = Mismatch {
                rank,
                stored,
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

    /// Plays every move of `board` and prefetches its children's entries, into `self`
    /// (in place: a batch is a few kilobytes).
    #[inline]
    fn play(&mut self, game: &Game, levels: &Levels, board: &Board) {
        self.uncovered = false;
        self.n = 0;
        if let Some(v) = game.terminal_value(board) {
            self.best = v;
            return;
        }
        self.best = i32::MIN;
        for (_, step) in game.steps(board) {
            match step.next {
                Next::Over => self.best = self.best.max(step.value_through(0)),
                Next::Same | Next::Other => match levels.locate(&step.board) {
                    Some((k, rank)) => {
                        self.reads[self.n] = (step, k, rank);
                        self.n += 1;
                    }
                    None => self.uncovered = true,
                },
            }
        }
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

/// The boards of a [`Tile`] in the walk's order, each with its rank: for each opponent's
/// row in rank order, the tile's mover's rows in rank order.
pub struct TileWalk<'r> {
    /// The level's ranker.
    ranker: &'r Ranker,
    pits: usize,
    /// The tile's mover's rows, `rows[..n]`, packed as [`Board::key`] packs a row (pit
    /// `i` in byte `i`).
    rows: [u64; TILE],
    n: usize,
    /// The opponent's row (cells `..pits`), and how many rows of its sum are left after it.
    opp: [u8; 8],
    opp_left: u64,
    /// The next board's mover's row is `rows[t]`; the rank of `(rows[0], opp)`.
    t: usize,
    base: u64,
}

impl<'r> TileWalk<'r> {
    /// The boards of `tile` of `ranker`'s level, of `pits` pits a side (`ranker.cells()` is
    /// `2 * pits`). A tile not of the level (a sum above it, more rows than [`TILE`] or
    /// than its sum has) has no board.
    pub fn new(ranker: &'r Ranker, pits: usize, tile: &Tile) -> TileWalk<'r> {
        let mut walk = TileWalk {
            ranker,
            pits,
            rows: [0; TILE],
            n: 0,
            opp: [0; 8],
            opp_left: 0,
            t: 0,
            base: 0,
        };
        let k = ranker.seeds();
        let (Ok(own), Ok(opp)) = (
            Ranker::new(pits, tile.sum),
            Ranker::new(pits, k.saturating_sub(tile.sum)),
        ) else {
            return walk;
        };
        let fits = tile.rows <= TILE as u64
            && (tile.first.checked_add(tile.rows)).is_some_and(|end| end <= own.count());
        if tile.sum > k || tile.rows == 0 || !fits {
            return walk;
        }
        let mut row = [0u8; 8];
        own.unrank(tile.first, &mut row[..pits]);
        for i in 0..tile.rows as usize {
            walk.rows[i] = u64::from_le_bytes(row);
            next_in_rank_order(&mut row[..pits]);
        }
        walk.n = tile.rows as usize;
        opp.unrank(0, &mut walk.opp[..pits]);
        walk.opp_left = opp.count() - 1;
        walk.base = walk.rank_first();
        walk
    }

    /// The board of the tile's `i`th row against the current opponent's row.
    #[inline]
    fn board(&self, i: usize) -> Board {
        let opp = u128::from(u64::from_le_bytes(self.opp));
        Board::from_key(u128::from(self.rows[i]) | opp << (8 * self.pits))
    }

    /// The rank of the tile's first row against the current opponent's row; the other
    /// rows' follow it (the module docs).
    fn rank_first(&self) -> u64 {
        self.ranker.rank(&self.board(0).cells()[..2 * self.pits])
    }
}

impl Iterator for TileWalk<'_> {
    /// A rank and its board.
    type Item = (u64, Board);

    #[inline]
    fn next(&mut self) -> Option<(u64, Board)> {
        if self.t == self.n {
            if self.opp_left == 0 || self.n == 0 {
                return None;
            }
            self.opp_left -= 1;
            next_in_rank_order(&mut self.opp[..self.pits]);
            self.t = 0;
            self.base = self.rank_first();
        }
        let here = (self.base + self.t as u64, self.board(self.t));
        self.t += 1;
        Some(here)
    }
}

/// Re-derives `boards` (ranks and boards of level `k`) in their order, [`BATCH`] at a
/// time, telling `report` of each wrong one until it answers `false`.
fn walk(
    game: &Game,
    levels: &Levels,
    k: u32,
    mut boards: impl Iterator<Item = (u64, Board)>,
    mut report: impl FnMut(Mismatch) -> bool,
) {
    let mut batch = [(0u64, Pending::EMPTY); BATCH];
    loop {
        let mut n = 0;
        for (slot, (rank, board)) in batch.iter_mut().zip(&mut boards) {
            slot.0 = rank;
            slot.1.play(game, levels, &board);
            n += 1;
        }
        if n == 0 {
            return;
        }
        for (rank, p) in &batch[..n] {
            let stored = levels.stored(k as usize, *rank);
            let derived = p.value(levels);
            if stored.unsigned_abs() > k || derived != Some(stored) {
                let w = Mismatch {
                    rank: *rank,
                    stored,
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
        let ranker = &levels.levels[k as usize].0;
        let cells = 2 * game.pits();
        let mut c = vec![0u8; cells];
        let mut out = Vec::new();
        for rank in 0..ranker.count() {
            ranker.unrank(rank, &mut c);
            let b = Board::from_cells(game.pits(), &c);
            let stored = levels.levels[k as usize].1.get(rank).unwrap();
            let derived = rederive(game, &b, levels);
            if !value_in_range(stored, k) || derived != Some(i32::from(stored)) {
                out.push(Mismatch {
                    rank,
                    stored: i32::from(stored),
                    derived,
                });
            }
        }
        out
    }

    /// Every board of level `k` in the walk's order, tile after tile.
    fn walked(levels: &Levels, pits: usize, k: u32) -> Vec<(u64, Board)> {
        let ranker = &levels.levels[k as usize].0;
        let tiles = tiles(pits, k).unwrap();
        tiles
            .iter()
            .flat_map(|t| TileWalk::new(ranker, pits, t))
            .collect()
    }

    /// The wrong entries of level `k` as the walk finds them, tile after tile.
    fn wrong_by_walking(game: &Game, levels: &Levels, k: u32) -> Vec<Mismatch> {
        let mut got = Vec::new();
        let boards = walked(levels, game.pits(), k);
        walk(game, levels, k, boards.into_iter(), |w| {
            got.push(w);
            true
        });
        got
    }

    #[test]
    fn the_tiles_walk_every_rank_once_with_the_board_unranking_gives_it() {
        for (pits, k) in [(6, 9), (6, 0), (6, 1), (3, 12), (2, 5), (1, 4), (4, 20)] {
            let cells = 2 * pits;
            let r = Ranker::new(cells, k).unwrap();
            let tiles = tiles(pits, k).unwrap();
            let total: u64 = tiles.iter().map(|t| t.entries(pits, k)).sum();
            assert_eq!(total, r.count(), "pits {pits} k {k}");
            assert!(tiles.iter().all(|t| t.rows >= 1 && t.rows <= TILE as u64));
            let mut seen = vec![false; r.count() as usize];
            let mut c = vec![0u8; cells];
            for t in &tiles {
                let boards: Vec<(u64, Board)> = TileWalk::new(&r, pits, t).collect();
                assert_eq!(boards.len() as u64, t.entries(pits, k), "{t:?}");
                for (rank, b) in boards {
                    assert!(!seen[rank as usize], "rank {rank} twice");
                    seen[rank as usize] = true;
                    r.unrank(rank, &mut c);
                    assert_eq!(&b.cells()[..cells], &c[..], "rank {rank}");
                    assert!(b.cells()[cells..].iter().all(|&x| x == 0));
                    let own: u32 = c[..pits].iter().map(|&x| u32::from(x)).sum();
                    assert_eq!(own, t.sum);
                }
            }
            assert!(seen.iter().all(|&x| x), "pits {pits} k {k}");
        }
    }

    #[test]
    fn a_sound_level_re_derives_whole_with_every_entry_counted_once() {
        // Level 8 of 6 pits: 75582 entries in 30 tiles, some of them full.
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
        assert!(tiles(6, 8).unwrap().iter().any(|t| t.rows == TILE as u64));
        // Past the levels held: nothing checked.
        let none = rederive_level(&game, &levels, 9, u64::MAX, 1, &|_| {});
        assert_eq!(none.checked, 0);
    }

    #[test]
    fn corrupted_entries_are_found_by_the_walk_as_by_unranking() {
        let game = Game::new(Rules::kalah(6, 4).unwrap());
        let mut values = build(&game, 8);
        let good = values[8][70_000];
        // One entry changed within the level's range, one put outside it, and a lower
        // level's entry, whose parents then fail too.
        values[8][70_000] = if good == 0 { 1 } else { 0 };
        values[8][123] = 100;
        values[7][5_000] = if values[7][5_000] == 2 { 3 } else { 2 };
        let slices: Vec<&[i8]> = values.iter().map(Vec::as_slice).collect();
        let levels = Levels::new(12, &slices).unwrap();
        for k in [7, 8] {
            let want = wrong_by_unranking(&game, &levels, k);
            let mut got = wrong_by_walking(&game, &levels, k);
            let first = got[0];
            got.sort_by_key(|w| w.rank);
            assert_eq!(got, want, "level {k}");
            let check = rederive_level(&game, &levels, k, u64::MAX, 1, &|_| {});
            assert_eq!(check.wrong, Some(first), "level {k}");
            assert!(!want.is_empty());
        }
        // The changed entries themselves, whose children are intact: their own values.
        let only = |k: u32, rank: u64| {
            let mut c = [0u8; 12];
            levels.levels[k as usize].0.unrank(rank, &mut c);
            let mut got = Vec::new();
            let one = std::iter::once((rank, Board::from_cells(6, &c)));
            walk(&game, &levels, k, one, |w| {
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
        assert!((want.len() as u64) < level_size(6, 3));
        let mut got = wrong_by_walking(&game, &levels, 3);
        got.sort_by_key(|w| w.rank);
        assert_eq!(got, want);
    }

    /// The levels as compact files re-derive as the slices do, and an entry changed in a
    /// compact file (its checksum rewritten) is found by the walk.
    #[test]
    fn compact_levels_re_derive_as_byte_levels() {
        use db_format::{write_level, Format, LevelFile, HEADER_LEN};
        let game = Game::new(Rules::kalah(4, 3).unwrap());
        let values = build(&game, 9);
        let dir = tempfile::tempdir().unwrap();
        let key = game.rules().db_key();
        let paths: Vec<_> = values
            .iter()
            .enumerate()
            .map(|(k, v)| write_level(dir.path(), &key, k as u32, v, Format::Compact).unwrap())
            .collect();
        let files: Vec<LevelFile> = paths
            .iter()
            .enumerate()
            .map(|(k, p)| LevelFile::open(p, &key, k as u32).unwrap())
            .collect();
        let entries: Vec<Entries> = files.iter().map(LevelFile::entries).collect();
        let levels = Levels::from_entries(8, &entries).unwrap();
        for k in 0..=9 {
            let check = rederive_level(&game, &levels, k, u64::MAX, 1, &|_| {});
            assert_eq!(check.wrong, None, "level {k}");
            assert_eq!(check.checked, level_size(8, k));
            // And sampled.
            let check = rederive_level(&game, &levels, k, 0, 500, &|_| {});
            assert_eq!(check.wrong, None, "level {k}");
        }
        drop(levels);
        drop(entries);
        drop(files);
        // Flip bits of a block's codes in level 9's slots (the checksum rewritten): some
        // entries change or no longer decode, and the walk finds the first.
        let p = &paths[9];
        let mut bytes = std::fs::read(p).unwrap();
        let f = LevelFile::open(p, &key, 9).unwrap();
        let slots_at = HEADER_LEN + f.compact().unwrap().layout().slots_at as usize;
        drop(f);
        bytes[slots_at + 16 * 40 + 3] = !bytes[slots_at + 16 * 40 + 3];
        let sum = db_format::checksum(&bytes[HEADER_LEN..]);
        bytes[32..40].copy_from_slice(&sum.to_le_bytes());
        std::fs::write(p, &bytes).unwrap();
        let files: Vec<LevelFile> = paths
            .iter()
            .enumerate()
            .map(|(k, p)| LevelFile::open(p, &key, k as u32).unwrap())
            .collect();
        let changed = (0..files[9].len())
            .filter(|&r| files[9].try_get(r) != Some(values[9][r as usize]))
            .count();
        assert!(changed > 0);
        let entries: Vec<Entries> = files.iter().map(LevelFile::entries).collect();
        let levels = Levels::from_entries(8, &entries).unwrap();
        let check = rederive_level(&game, &levels, 9, u64::MAX, 1, &|_| {});
        assert!(check.wrong.is_some());
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
