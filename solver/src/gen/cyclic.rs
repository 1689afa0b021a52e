//! Retrograde analysis for rules whose play can cycle (clockwise sowing), level by level.
//!
//! # Semantics
//!
//! Clockwise, the mover's own store comes only after the opponent's row, so seeds can pass
//! from row to row without reaching a store and a board can repeat: on one pit a side under
//! `--end mover`, a single seed passes back and forth for ever. **A game that goes on for
//! ever scores what the stores hold**: seeds that circulate for ever count for nobody. So
//! the value of a board (the final store margin still to come for the side to move, as in
//! [`crate::game`]) is well defined for every board, and a finite game is scored exactly as
//! before. With these semantics the counter-clockwise values are unchanged, so this module
//! also rebuilds the acyclic databases, byte for byte (see `solver/tests/cyclic.rs`).
//!
//! # Levels
//!
//! Seeds on the board never increase. A move that puts a seed into any store (a free move
//! always does) leaves the level `k` of the board: its value is its gain plus the value of
//! a board of a lower level, read from the levels built before ([`crate::game::Step::value_through`]).
//! A move that ends the game is worth its gain. Every other move keeps all `k` seeds on
//! the board, gains nothing and passes the turn: a *same-level* move to a board `Q` with the
//! opponent to move. Within level `k` the game is therefore a game on a finite graph whose
//! *exits* have fixed payoffs `e` (for the mover at the board where they are taken) and in
//! which infinite play scores 0.
//!
//! # Thresholds
//!
//! For `t >= 1` let `Win_t` be the boards where the mover can secure at least `t`, and
//! `Lose_t` those where the mover can be held to at most `-t`. Infinite play scores 0, which
//! is neither `>= t` nor `<= -t`, so both are *reachability* goals and are the least
//! fixed points (attractors) of
//!
//! ```text
//! Win_t(P)  <= some exit e >= t,  or some same-level child Q with Lose_t(Q);
//! Lose_t(P) <= every exit e <= -t and every same-level child R has Win_t(R)
//! ```
//!
//! (a terminal board has no moves and its fixed sweep value `v`: it is in `Win_t` iff
//! `v >= t` and in `Lose_t` iff `v <= -t`; a board that is not terminal has a move).
//! Reachability games on finite graphs are determined, so for every `t >= 1` either the
//! mover secures `>= t` or the opponent holds the mover to `<= t - 1`, and likewise for
//! `-t`. Writing `a(P) = max{t >= 1 : Win_t(P)} ∪ {0}` and
//! `b(P) = max{t >= 1 : Lose_t(P)} ∪ {0}`, the value is `a(P)` if `a(P) > 0` (the mover
//! secures `a`, the opponent holds it to `a`), `-b(P)` if `b(P) > 0`, and 0 otherwise (the
//! mover secures `>= 0` because it cannot be held to `<= -1`, and vice versa). `a(P) > 0`
//! and `b(P) > 0` exclude each other: playing the two strategies against each other would
//! give one play that scores both `>= 1` and `<= -1`.
//!
//! # The iteration, and why it terminates with the value
//!
//! The sets for all thresholds are computed at once on the two byte arrays `a` and `b`:
//!
//! ```text
//! a(P) = max(0, max exits e, max_Q b(Q))
//! b(P) = max(0, min(min exits -e, min_R a(R)))      (the min over no exits is +∞)
//! ```
//!
//! This operator `F` is monotone on `[0, k]^(2N)`, and for every `t >= 1`,
//! `F(a, b)(P) >= t` is exactly the attractor step for threshold `t` applied to the
//! sets `{a >= t}`, `{b >= t}`. So the least fixed point of `F` thresholded at `t` is the
//! pair (`Win_t`, `Lose_t`). We start from `a = b = 0` (the bottom) and sweep the level,
//! replacing each entry by `F` of the current arrays (Gauss–Seidel, chunks in parallel).
//! By induction every entry stays `<=` the least fixed point (`F` is monotone and the
//! fixed point is `F` of itself) and never decreases (its inputs never decrease). The
//! entries are integers in `0..=k`, so the sweeps stop after at most `2·N·k + 1` of them;
//! they stop when one whole sweep changes nothing, and then no entry read during that sweep
//! changed, so the arrays are a fixed point of `F` below the least one: the least one.
//!
//! Concurrent sweeps read entries that other threads may be writing (relaxed atomics);
//! each entry has one writer, reads only ever see values that some sweep wrote, and those
//! never decrease, so the argument above holds for any interleaving.
//!
//! # Cost
//!
//! One pass sows every move of every board of the level once: it keeps, per board, the
//! best exit `e*` (as the floor `max(0, e*)` of `a` and the cap `max(0, -e*)` of `b`:
//! every exit is `<= -t` iff the best one is), and stores the
//! ranks of the same-level children in a compact adjacency (a degree byte per board and
//! one `u32` a child). The sweeps then touch only these arrays. Memory per level of `N`
//! boards with `E` same-level moves: `5N + 4E` bytes, plus the `N` output bytes.

use std::sync::atomic::{AtomicBool, AtomicU16, Ordering::Relaxed};

use rayon::prelude::*;

use crate::board::Board;
use crate::game::{Game, Next};
use crate::probe::{MemoryDb, Probe};

/// Boards a parallel work unit (one chunk of ranks).
const CHUNK: usize = 1 << 14;

/// Why a level could not be built.
#[derive(Debug, thiserror::Error)]
pub enum CyclicError {
    #[error(transparent)]
    Db(#[from] db_format::DbError),
    /// The same-level adjacency stores ranks as `u32`.
    #[error("level {seeds} has {positions} positions, more than the in-memory builder handles")]
    TooLarge { seeds: u32, positions: u64 },
    /// The probe for the lower levels does not cover a board a move leads to.
    #[error("the lower levels do not cover {board:?} (level {seeds} needs levels 0..{seeds})")]
    MissingLower { seeds: u32, board: Board },
}

/// Figures of one level build.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelStats {
    /// Boards in the level.
    pub positions: u64,
    /// Same-level moves (edges of the in-level graph).
    pub same_level_moves: u64,
    /// Sweeps until nothing changed (the last one included); 0 when there are no
    /// same-level moves.
    pub sweeps: u32,
}

/// The values of every board with `seeds` seeds on it, in [`db_format::Ranker`] rank order
/// (the entries of the level's database file), for any rules: cyclic or not.
///
/// `lower` must give the exact value of every board with fewer seeds (levels
/// `0..seeds`, `lower.max_seeds() >= seeds - 1`); a [`MemoryDb`] holding them or the
/// database files do. `progress` is called from the worker threads with the number of
/// positions just scanned (in chunks; the sweeps that follow the scan report nothing).
/// Same arguments as [`crate::gen::build_level`], which it equals on acyclic rules.
pub fn build_level_cyclic(
    game: &Game,
    seeds: u32,
    lower: &dyn Probe,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<i8>, CyclicError> {
    build_level_cyclic_stats(game, seeds, lower, progress).map(|(values, _)| values)
}

/// [`build_level_cyclic`], with the figures of the build.
pub fn build_level_cyclic_stats(
    game: &Game,
    seeds: u32,
    lower: &dyn Probe,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Vec<i8>, LevelStats), CyclicError> {
    let m = game.pits();
    let ranker = db_format::Ranker::new(2 * m, seeds)?;
    let count = ranker.count();
    if seeds > 0 && (lower.max_seeds() < seeds - 1 || lower.value(&Board::EMPTY).is_none()) {
        return Err(CyclicError::MissingLower {
            seeds,
            board: Board::EMPTY,
        });
    }
    if count > u32::MAX as u64 {
        return Err(CyclicError::TooLarge {
            seeds,
            positions: count,
        });
    }
    let n = count as usize;
    let chunks = n.div_ceil(CHUNK);

    // Pass 1: sow every move once.
    let parts: Vec<Part> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let ranks = c * CHUNK..n.min((c + 1) * CHUNK);
            let len = ranks.len() as u64;
            let part = scan_chunk(game, lower, &ranker, seeds, ranks);
            progress(len);
            part
        })
        .collect::<Result<_, _>>()?;

    let mut floor = Vec::with_capacity(n);
    let mut cap = Vec::with_capacity(n);
    let mut deg = Vec::with_capacity(n);
    let total_edges: usize = parts.iter().map(|p| p.edges.len()).sum();
    let mut edges: Vec<u32> = Vec::with_capacity(total_edges);
    // Edge offset of the first board of each chunk.
    let mut chunk_start = Vec::with_capacity(chunks + 1);
    for p in parts {
        chunk_start.push(edges.len());
        floor.extend_from_slice(&p.floor);
        cap.extend_from_slice(&p.cap);
        deg.extend_from_slice(&p.deg);
        edges.extend_from_slice(&p.edges);
    }
    chunk_start.push(edges.len());

    // `ab[i]` packs a(i) in the low byte and b(i) in the high byte. Boards without
    // same-level moves are final at once: a = floor, b = cap.
    let ab: Vec<AtomicU16> = (0..n)
        .into_par_iter()
        .map(|i| {
            let b = if deg[i] == 0 { cap[i] } else { 0 };
            AtomicU16::new(pack(floor[i], b))
        })
        .collect();

    let mut sweeps = 0u32;
    if total_edges > 0 {
        loop {
            sweeps += 1;
            let changed = AtomicBool::new(false);
            (0..chunks).into_par_iter().for_each(|c| {
                let mut e = chunk_start[c];
                let mut any = false;
                for i in c * CHUNK..n.min((c + 1) * CHUNK) {
                    let d = deg[i] as usize;
                    if d == 0 {
                        continue;
                    }
                    let mut a = floor[i];
                    let mut b = cap[i];
                    for &q in &edges[e..e + d] {
                        let (qa, qb) = unpack(ab[q as usize].load(Relaxed));
                        a = a.max(qb);
                        b = b.min(qa);
                    }
                    e += d;
                    let new = pack(a, b);
                    // Monotone: the inputs never decrease, so neither does `new`.
                    if ab[i].load(Relaxed) != new {
                        ab[i].store(new, Relaxed);
                        any = true;
                    }
                }
                if any {
                    changed.store(true, Relaxed);
                }
            });
            if !changed.load(Relaxed) {
                break;
            }
        }
    }

    let values = ab
        .par_iter()
        .map(|x| {
            let (a, b) = unpack(x.load(Relaxed));
            debug_assert!(a == 0 || b == 0, "a board in both Win_1 and Lose_1");
            if a > 0 {
                a as i8
            } else {
                -(b as i8)
            }
        })
        .collect();
    Ok((
        values,
        LevelStats {
            positions: count,
            same_level_moves: total_edges as u64,
            sweeps,
        },
    ))
}

/// Every level `0..=max_seeds` of `game`, in memory. `progress(k, positions)` is called
/// after level `k` is built.
pub fn build_in_memory(
    game: &Game,
    max_seeds: u32,
    mut progress: impl FnMut(u32, u64),
) -> Result<MemoryDb, CyclicError> {
    let mut db = MemoryDb::new(game.pits());
    for k in 0..=max_seeds {
        let values = build_level_cyclic(game, k, &db, &|_| {})?;
        let len = values.len() as u64;
        db.push(values)?;
        progress(k, len);
    }
    Ok(db)
}

/// The levels `0..=board.seeds()` of `game`, in memory: enough to read the value of
/// `board` (and of every board reachable from it) with [`Probe::value`].
///
/// ```
/// use solver::gen::cyclic;
/// use solver::{Board, Direction, Game, Probe, RulesBuilder};
/// let mut r = RulesBuilder::new(2, 2);
/// r.direction = Direction::Cw;
/// let game = Game::new(r.build().unwrap());
/// let start = Board::start(2, 2);
/// let db = cyclic::solve_in_memory(&game, &start, |_, _| {}).unwrap();
/// // Checked against the attractor reference in `tests/cyclic.rs`.
/// assert_eq!(db.value(&start), Some(6));
/// ```
pub fn solve_in_memory(
    game: &Game,
    board: &Board,
    progress: impl FnMut(u32, u64),
) -> Result<MemoryDb, CyclicError> {
    build_in_memory(game, board.seeds(), progress)
}

/// What pass 1 keeps of one chunk of boards.
struct Part {
    /// max(0, best exit), the least `a` can be.
    floor: Vec<u8>,
    /// max(0, -best exit), or `k` without exits: the most `b` can be.
    cap: Vec<u8>,
    /// Same-level moves of each board.
    deg: Vec<u8>,
    /// Ranks of the same-level children, board after board.
    edges: Vec<u32>,
}

fn scan_chunk(
    game: &Game,
    lower: &dyn Probe,
    ranker: &db_format::Ranker,
    seeds: u32,
    ranks: std::ops::Range<usize>,
) -> Result<Part, CyclicError> {
    let m = game.pits();
    let len = ranks.len();
    let mut part = Part {
        floor: Vec::with_capacity(len),
        cap: Vec::with_capacity(len),
        deg: Vec::with_capacity(len),
        edges: Vec::with_capacity(len * 2),
    };
    let mut cells = [0u8; crate::board::CELLS];
    // Every value of the level lies in -k..=k, and k <= 127 (the ranker checked it).
    let k = seeds as i32;
    for r in ranks {
        ranker.unrank(r as u64, &mut cells[..2 * m]);
        let board = Board::from_cells(m, &cells[..2 * m]);
        if let Some(v) = game.terminal_value(&board) {
            part.floor.push(v.max(0) as u8);
            part.cap.push((-v).max(0) as u8);
            part.deg.push(0);
            continue;
        }
        let mut best = i32::MIN;
        let mut d = 0u8;
        for (_, step) in game.steps(&board) {
            let e = match step.next {
                Next::Over => step.gain(),
                Next::Other if step.board.seeds() == seeds => {
                    part.edges
                        .push(ranker.rank(&step.board.cells()[..2 * m]) as u32);
                    d += 1;
                    continue;
                }
                _ => {
                    let child = step.board;
                    debug_assert!(child.seeds() < seeds);
                    let v = lower.value(&child).ok_or(CyclicError::MissingLower {
                        seeds,
                        board: child,
                    })?;
                    step.value_through(v)
                }
            };
            best = best.max(e);
        }
        part.floor.push(best.clamp(0, k) as u8);
        // No exit: the cap is the most any value of the level can be.
        part.cap.push(if best == i32::MIN {
            k
        } else {
            (-best).clamp(0, k)
        } as u8);
        part.deg.push(d);
    }
    Ok(part)
}

#[inline]
fn pack(a: u8, b: u8) -> u16 {
    a as u16 | (b as u16) << 8
}

#[inline]
fn unpack(x: u16) -> (u8, u8) {
    (x as u8, (x >> 8) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Direction, EndRule, RulesBuilder};

    fn cw(pits: usize, f: impl FnOnce(&mut RulesBuilder)) -> Game {
        let mut r = RulesBuilder::new(pits, 1);
        r.direction = Direction::Cw;
        f(&mut r);
        Game::new(r.build().unwrap())
    }

    #[test]
    fn a_seed_that_circulates_for_ever_counts_for_nobody() {
        // One pit a side, `end mover`: the mover's single seed goes to the opponent's pit,
        // the opponent's back, for ever. The board [1, 0] repeats: value 0.
        let g = cw(1, |r| r.end = EndRule::Mover);
        let db = build_in_memory(&g, 1, |_, _| {}).unwrap();
        assert_eq!(db.value(&Board::from_cells(1, &[1, 0])), Some(0));
        // The mover's row is empty: the opponent takes its seed.
        assert_eq!(db.value(&Board::from_cells(1, &[0, 1])), Some(-1));
        // Under `end either` that board is over (the opponent's row is empty), and from
        // [1, 1] the sowing empties the mover's row: the opponent sweeps 2.
        let g = cw(1, |_| {});
        let db = build_in_memory(&g, 2, |_, _| {}).unwrap();
        assert_eq!(db.value(&Board::from_cells(1, &[1, 0])), Some(1));
        assert_eq!(db.value(&Board::from_cells(1, &[1, 1])), Some(-2));
    }

    #[test]
    fn values_stay_in_range_and_levels_have_the_ranker_sizes() {
        let g = cw(2, |_| {});
        let mut sizes = Vec::new();
        let db = build_in_memory(&g, 6, |k, n| sizes.push((k, n))).unwrap();
        for (k, n) in sizes {
            assert_eq!(n, db_format::level_size(4, k));
            assert!(db
                .level(k as usize)
                .iter()
                .all(|v| v.unsigned_abs() as u32 <= k));
        }
    }

    #[test]
    fn pack_round_trips() {
        assert_eq!(unpack(pack(7, 200)), (7, 200));
    }
}
