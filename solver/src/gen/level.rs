//! One level under construction: the board-by-board evaluation, which computes unknown
//! same-level children on the spot, and the reads of the lower levels.

use std::sync::atomic::{AtomicI8, Ordering::Relaxed};

use db_format::Ranker;

use super::tiling::{Row, Tiling};
use super::{distance_sum, Lower, UNKNOWN};
use crate::board::Board;
use crate::game::{Game, Next};
use crate::rank::FastRank;

/// One level under construction.
pub(super) struct Level<'a> {
    pub(super) game: &'a Game,
    pub(super) k: u32,
    pub(super) cells: usize,
    pub(super) fast: FastRank,
    /// The rows, their blocks placed in `values` ([`Tiling::compact`] when not `whole`).
    pub(super) tiling: &'a Tiling,
    /// `values` holds the whole level, entry `r` the board of rank `r`; else only the
    /// boards of some splits ([`Level::slot`]).
    pub(super) whole: bool,
    /// The value of each board built ([`Level::slot`]), or [`UNKNOWN`].
    pub(super) values: &'a [AtomicI8],
    pub(super) lower: Lower<'a>,
}

impl Level<'_> {
    /// Where `values` holds the board `cells` (of this level): its rank for a whole
    /// level; else its opponent's row's block plus the rank of the mover's row among
    /// those of its sum (`lo`), as a rank is that row's block plus `lo`.
    #[inline]
    pub(super) fn slot(&self, cells: &[u8; 16]) -> u64 {
        if self.whole {
            return self.fast.rank(cells);
        }
        let m = self.cells / 2;
        let mut own = [0u8; 8];
        own[..m].copy_from_slice(&cells[..m]);
        let opp = &cells[m..2 * m];
        let sum = opp.iter().map(|&c| usize::from(c)).sum();
        let tl = self.tiling;
        tl.rows[tl.index(sum, opp)].block + self.fast.lo(u64::from_le_bytes(own))
    }

    /// The value of `board` (of this level), evaluating unknown same-level children first.
    pub(super) fn eval(&self, board: &Board) -> i8 {
        let game = self.game;
        if let Some(v) = game.terminal_value(board) {
            return v as i8;
        }
        let mut best = i32::MIN;
        let mut mask = game.legal_mask(board);
        while mask != 0 {
            let pit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let step = game.play(board, pit);
            let child = match step.next {
                Next::Over => 0,
                Next::Same | Next::Other => {
                    if step.own_gain + step.opp_gain == 0 {
                        self.same_level(board, &step.board)
                    } else {
                        self.lower_value(&step.board, step.board.seeds())
                    }
                }
            };
            best = best.max(step.value_through(child));
        }
        best as i8
    }

    /// The value of `child`, which holds `seeds < k` seeds, from the lower levels.
    #[inline]
    pub(super) fn lower_value(&self, child: &Board, seeds: u32) -> i32 {
        debug_assert_eq!(child.seeds(), seeds);
        match self.lower {
            // `build_level` checked that `lower` covers every level below `k`, and a
            // child with seeds in a store is below `k`: a board is missing only when its
            // value was found damaged, which the probe recorded (`Probe::damaged`) and
            // the caller reports instead of writing the level.
            Lower::Probe(p) => p.value(child).unwrap_or_else(|| {
                assert!(
                    p.damaged(),
                    "lower levels cover every board below the level"
                );
                0
            }),
            // The ranks of every level share the binomials of `fast`'s table.
            Lower::Values(v) => {
                let rank = self.fast.rank(child.cells());
                debug_assert_eq!(
                    Ranker::new(self.cells, seeds)
                        .map(|r| r.rank(&child.cells()[..self.cells]))
                        .ok(),
                    Some(rank)
                );
                i32::from(v[seeds as usize][rank as usize])
            }
            Lower::Entries(e) => {
                let rank = self.fast.rank(child.cells());
                i32::from(e[seeds as usize].get(rank).unwrap_or(0))
            }
        }
    }

    /// The board of two packed rows (first the mover's).
    #[inline]
    pub(super) fn board_of(&self, rows: &[u64; 2]) -> Board {
        let shift = 4 * self.cells as u32;
        Board::from_key(u128::from(rows[0]) | u128::from(rows[1]) << shift)
    }

    /// The value of the lower-level board `rows` (packed rows, the mover's first), `gone`
    /// seeds below this level, whose rank there is `rank`.
    #[inline]
    pub(super) fn lower_at(&self, rows: &[u64; 2], gone: usize, rank: u64) -> i32 {
        let seeds = self.k as usize - gone;
        match self.lower {
            Lower::Values(v) => {
                debug_assert_eq!(rank, self.fast.rank(self.board_of(rows).cells()));
                i32::from(v[seeds][rank as usize])
            }
            Lower::Entries(e) => {
                debug_assert_eq!(rank, self.fast.rank(self.board_of(rows).cells()));
                i32::from(e[seeds].get(rank).unwrap_or(0))
            }
            Lower::Probe(_) => self.lower_value(&self.board_of(rows), seeds as u32),
        }
    }

    /// The value of the same-level board `rows` at `rank` in `values` ([`Level::slot`]),
    /// computed if unknown.
    pub(super) fn same_level_at(&self, rank: u64, rows: &[u64; 2]) -> i32 {
        let child = self.board_of(rows);
        debug_assert_eq!(rank, self.slot(child.cells()));
        let slot = &self.values[rank as usize];
        let v = self.eval(&child);
        slot.store(v, Relaxed);
        i32::from(v)
    }

    /// The value of the same-level child `child` of `parent`, from the array or computed.
    pub(super) fn same_level(&self, parent: &Board, child: &Board) -> i32 {
        let pits = self.cells / 2;
        debug_assert_eq!(child.seeds(), self.k);
        debug_assert!(distance_sum(child, pits) < distance_sum(parent, pits));
        let rank = self.slot(child.cells());
        let slot = &self.values[rank as usize];
        let v = slot.load(Relaxed);
        if v != UNKNOWN {
            return i32::from(v);
        }
        let v = self.eval(child);
        slot.store(v, Relaxed);
        i32::from(v)
    }
}

impl Level<'_> {
    /// Evaluates the board with mover's row `own` and opponent's row `opp`, if unknown.
    #[inline]
    pub(super) fn visit(&self, own: &Row, opp: &Row) {
        let m = self.cells / 2;
        let rank = opp.block + own.local;
        let slot = &self.values[rank as usize];
        if slot.load(Relaxed) == UNKNOWN {
            let mut c = [0u8; 16];
            c[..m].copy_from_slice(&own.cells[..m]);
            c[m..2 * m].copy_from_slice(&opp.cells[..m]);
            let board = Board::from_cells(m, &c[..2 * m]);
            debug_assert_eq!(self.slot(board.cells()), rank);
            slot.store(self.eval(&board), Relaxed);
        }
    }
}
