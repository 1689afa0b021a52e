//! The single-sowing evaluation of a level's boards by rows: each row's moves computed
//! once per tile pair, and the boards of a row against a tile evaluated a move at a time.

use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;

use super::level::Level;
use super::tiling::{Row, Tiling, TILE};
use super::UNKNOWN;
use crate::board::Board;
use crate::game::Game;
use crate::rank::FastRank;
use crate::rules::{Capture, Sowing};
use crate::sow::Sower;

/// No capture can follow a move (in [`FastMove::cap`]).
const NO_CAP: u8 = u8::MAX;

/// One move of a mover's row, whatever the opponent's row: with single sowing the seeds
/// a pit sows land in fixed slots, so the opponent's row only gains a fixed vector and
/// only a capture depends on it.
#[derive(Clone, Copy, Default)]
pub(super) struct FastMove {
    /// The mover's row after sowing, before any capture (packed, byte `i` = pit `i`).
    pub(super) own_row: u64,
    /// What every pit of the opponent's row gains (packed).
    pub(super) opp_add: u64,
    /// Seeds sown into the mover's store and the opponent's.
    pub(super) own: u8,
    pub(super) opp: u8,
    /// The last seed fell in the mover's store.
    pub(super) in_store: bool,
    /// With a capture possible (the last seed in an empty own pit `pos`): the pit of the
    /// opponent's row it faces, `m - 1 - pos`; else [`NO_CAP`].
    pub(super) cap: u8,
    /// With a capture possible: where [`Tiling::his`] holds `hi(a, r)` for the mover's row
    /// `r` after the capture (`own_row` with pit `pos` emptied), the rank part of the
    /// child, whose opponent's row that is.
    pub(super) cap_hi_at: usize,
    /// With no seed in any store: the index of `own_row` in [`Tiling::rows`].
    pub(super) row: usize,
    /// Seeds in `own_row` and in `opp_add`.
    pub(super) own_sum: u8,
    pub(super) add_sum: u8,
    /// `lo(own_row)` (the rank part of a free move's child) and, for a move to the
    /// opponent without capture, `hi(opponent's seeds afterwards, own_row)`.
    pub(super) lo_own: u64,
    pub(super) hi_own: u64,
    /// `t` when the move adds one seed to each of the opponent's first `t` pits and no
    /// other (see [`Row::lo_add`]), else [`NO_ADD`].
    pub(super) add_t: u8,
}

/// [`FastMove::add_t`] of a move whose sowing laps the board.
const NO_ADD: u8 = u8::MAX;

// A row index of `usize` (it was `u32`) took the padding after the byte fields: the moves
// of a tile's rows, which a thread keeps for a run, stay 56 bytes a move.
const _: () = assert!(std::mem::size_of::<FastMove>() == 56);

/// The moves of one mover's row.
#[derive(Clone, Copy, Default)]
pub(super) struct FastMoves {
    pub(super) n: u8,
    pub(super) moves: [FastMove; 8],
}

/// One move of a mover's row, sown with the opponent's row empty (see [`Kernel::sow`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct RowMove {
    /// The mover's row after sowing, before any capture (byte `i` = pit `i`).
    pub(super) own_row: [u8; 8],
    /// What every pit of the opponent's row gains.
    pub(super) opp_add: [u8; 8],
    /// Seeds sown into the mover's store and the opponent's.
    pub(super) own: u8,
    pub(super) opp: u8,
    /// The last seed fell in the mover's store.
    pub(super) in_store: bool,
    /// With a capture possible: the pit of the opponent's row the last seed faces; else
    /// [`NO_CAP`].
    pub(super) cap: u8,
}

/// Where a hand of seeds sown from one pit goes, the rest of the board empty: what every
/// pit gains (the emptied pit included, when the hand laps the board) and the pit of the
/// mover's row where the last seed fell alone, if it did.
#[derive(Clone, Copy, Debug, Default)]
struct Hand {
    /// What each pit of the mover's row gains (packed).
    own_add: u64,
    /// What each pit of the opponent's row gains.
    opp_add: [u8; 8],
    /// Seeds sown into the mover's store and the opponent's.
    own: u8,
    opp: u8,
    /// The last seed fell in the mover's store.
    in_store: bool,
    /// The pit of the mover's row where the last seed fell into an empty pit, else
    /// [`NO_CAP`].
    last: u8,
}

/// The single-sowing evaluation of a level's boards by rows.
pub(super) struct Kernel {
    pub(super) pits: usize,
    /// `hands[pit * (k + 1) + n]`: where `n` seeds sown from `pit` go, from [`Sower::sow`]
    /// (see [`Hand`]).
    hands: Vec<Hand>,
    pub(super) capture: Capture,
    /// `end[a * (k + 1) + b]`: the value of a board whose mover's row holds `a` seeds and
    /// whose opponent's row `b` when the game is over there, else [`UNKNOWN`]. The end
    /// rule looks at the rows' sums only.
    pub(super) end: Vec<i8>,
    pub(super) k: usize,
}

impl Kernel {
    /// The kernel of `game`, if its rules sow singly (relay sowing depends on every pit
    /// it passes).
    pub(super) fn new(game: &Game, k: usize) -> Option<Kernel> {
        let r = game.rules();
        if r.sowing != Sowing::Single || r.can_cycle() {
            return None;
        }
        let pits = game.pits();
        let with = |capture| {
            let mut rules = *r;
            rules.capture = capture;
            Sower::new(&rules)
        };
        let (plain, capturing) = (with(Capture::None), with(Capture::Empty));
        let mut hands = vec![Hand::default(); pits * (k + 1)];
        for pit in 0..pits {
            for n in 1..=k {
                let mut c = [0u8; 16];
                c[pit] = n as u8;
                let board = Board::from_cells(pits, &c[..2 * pits]);
                let sown = plain.sow(&board, pit);
                let after = sown.board.cells();
                let mut own_add = [0u8; 8];
                let mut opp_add = [0u8; 8];
                own_add[..pits].copy_from_slice(&after[..pits]);
                opp_add[..pits].copy_from_slice(&after[pits..2 * pits]);
                // Capturing into an empty pit takes one exactly where the last seed fell
                // alone in a pit of the mover's row: the pit it empties.
                let taken = capturing.sow(&board, pit).board;
                let last = (0..pits)
                    .find(|&i| taken.cells()[i] != after[i])
                    .map_or(NO_CAP, |i| i as u8);
                hands[pit * (k + 1) + n] = Hand {
                    own_add: u64::from_le_bytes(own_add),
                    opp_add,
                    own: sown.own_gain,
                    opp: sown.opp_gain,
                    in_store: sown.in_store,
                    last,
                };
            }
        }
        let mut end = vec![UNKNOWN; (k + 1) * (k + 1)];
        for a in 0..=k {
            for b in 0..=k - a {
                let mut c = [0u8; 16];
                c[0] = a as u8;
                c[pits] = b as u8;
                if let Some(v) = game.terminal_value(&Board::from_cells(pits, &c[..2 * pits])) {
                    end[a * (k + 1) + b] = v as i8;
                }
            }
        }
        Some(Kernel {
            pits,
            hands,
            capture: r.capture,
            end,
            k,
        })
    }

    /// Where the seeds of pit `pit` of the mover's row `cells` (at most `k` seeds) go,
    /// whatever the opponent's row. Single sowing puts a hand's seeds in the same slots
    /// whatever the other pits hold, so the row's move is the pit emptied plus the hand's
    /// seeds ([`Hand`], from [`Sower::sow`]); a capture is possible when the last seed
    /// falls in a pit of the mover's row that was empty.
    #[inline]
    pub(super) fn sow(&self, cells: &[u8; 8], pit: usize) -> RowMove {
        let m = self.pits;
        let n = usize::from(cells[pit]);
        let h = &self.hands[pit * (self.k + 1) + n];
        let mut row = *cells;
        row[pit] = 0;
        // No byte carries: a row holds at most `k <= 127` seeds, and so does a hand.
        let own_row = (u64::from_le_bytes(row) + h.own_add).to_le_bytes();
        let cap = match h.last {
            pos if pos != NO_CAP
                && self.capture != Capture::None
                && own_row[usize::from(pos)] == 1 =>
            {
                (m - 1 - usize::from(pos)) as u8
            }
            _ => NO_CAP,
        };
        RowMove {
            own_row,
            opp_add: h.opp_add,
            own: h.own,
            opp: h.opp,
            in_store: h.in_store,
            cap,
        }
    }

    /// The moves of the mover's row `row` (of index `rows[..]`, sum `s`).
    pub(super) fn moves(&self, row: &Row, tl: &Tiling, fast: &FastRank, k: usize) -> FastMoves {
        let m = self.pits;
        let mut out = FastMoves::default();
        for pit in 0..m {
            let n = usize::from(row.cells[pit]);
            if n == 0 {
                continue;
            }
            let RowMove {
                own_row,
                opp_add,
                own,
                opp,
                in_store,
                cap,
            } = self.sow(&row.cells, pit);
            let s = row.cells[..m]
                .iter()
                .map(|&c| usize::from(c))
                .sum::<usize>();
            let own_sum = own_row.iter().map(|&c| usize::from(c)).sum::<usize>();
            let add_sum = opp_add.iter().map(|&c| usize::from(c)).sum::<usize>();
            let packed = u64::from_le_bytes(own_row);
            let mut mv = FastMove {
                own_row: packed,
                opp_add: u64::from_le_bytes(opp_add),
                own,
                opp,
                in_store,
                cap,
                cap_hi_at: 0,
                row: 0,
                own_sum: own_sum as u8,
                add_sum: add_sum as u8,
                lo_own: fast.lo(packed),
                hi_own: fast.hi(k - s + add_sum, packed),
                add_t: NO_ADD,
            };
            // The sown seeds fill the opponent's first `add_sum` pits once each?
            if add_sum <= m
                && opp_add[..m]
                    .iter()
                    .enumerate()
                    .all(|(i, &a)| usize::from(a) == usize::from(i < add_sum))
            {
                mv.add_t = add_sum as u8;
            }
            if own == 0 && opp == 0 {
                mv.row = tl.index(s, &own_row[..m]);
            }
            if cap != NO_CAP {
                let mut left = own_row;
                left[m - 1 - usize::from(cap)] = 0;
                mv.cap_hi_at = tl.rows[tl.index(own_sum - 1, &left[..m])].hi_at;
            }
            out.moves[usize::from(out.n)] = mv;
            out.n += 1;
        }
        out
    }

    /// Evaluates the tile pair of rows `p` and `q` (see `Level::tiled`).
    pub(super) fn pair(
        &self,
        level: &Level,
        tl: &Tiling,
        p: Range<usize>,
        q: Range<usize>,
        scratch: &mut (Vec<FastMoves>, Vec<FastMoves>, Range<usize>),
    ) {
        let (mp, mq, cached) = scratch;
        mp.clear();
        mp.extend(
            tl.rows[p.clone()]
                .iter()
                .map(|r| self.moves(r, tl, &level.fast, level.k as usize)),
        );
        if p == q {
            for x in p.clone() {
                for y in p.start..=x {
                    self.visit(level, tl, x, &mp[x - p.start], y);
                    if x != y {
                        self.visit(level, tl, y, &mp[y - p.start], x);
                    }
                }
            }
            return;
        }
        // Consecutive pairs mostly share `q`: its moves are kept.
        if *cached != q {
            mq.clear();
            mq.extend(
                tl.rows[q.clone()]
                    .iter()
                    .map(|r| self.moves(r, tl, &level.fast, level.k as usize)),
            );
            *cached = q.clone();
        }
        // Any order with `x` ascending for each `y` and `y` for each `x` computes every
        // same-level child first. For each `x`: its boards against every row of `q` first,
        // a move at a time (`row_band`), then the transposed boards, whose children
        // `(x, y')` with `y' < y` are then known.
        for x in p.clone() {
            self.row_band(level, tl, x, &mp[x - p.start], q.clone());
            self.column(level, tl, q.clone(), mq, x);
        }
    }

    /// [`Kernel::end`] of a board whose rows hold `mover` and `opponent` seeds.
    #[inline(always)]
    pub(super) fn end_at(&self, mover: usize, opponent: usize) -> i8 {
        self.end[mover * (self.k + 1) + opponent]
    }

    /// For a board of this level whose mover's row is `xr`: the seeds in the opponent's
    /// row, and [`Kernel::end_at`] of the board.
    #[inline(always)]
    pub(super) fn end_of(&self, xr: &Row) -> (usize, i8) {
        let xs = crate::board::byte_sum(u64::from_le_bytes(xr.cells)) as usize;
        let ys = self.k - xs;
        (ys, self.end_at(xs, ys))
    }

    /// Evaluates the boards of mover's row `x` (whose moves are `mv`) against each
    /// opponent's row of `opp` (at most [`TILE`] consecutive rows of one sum), those
    /// unknown.
    ///
    /// The same values as [`Kernel::visit`] board by board, computed a move at a time:
    /// the rows of `opp` share their sum, so which case a move is (a capture, a free move,
    /// a child on the same level or below, the end of the game: the end rule looks at the
    /// rows' sums only) is decided once for all of them, and the loop over the rows is
    /// a few loads each. A capture, which depends on the facing pit, goes board by board.
    /// Faster than board by board (results/bench.md, "a faster endgame build").
    pub(super) fn row_band(
        &self,
        level: &Level,
        tl: &Tiling,
        x: usize,
        mv: &FastMoves,
        opp: Range<usize>,
    ) {
        let xr = &tl.rows[x];
        let yrs = &tl.rows[opp];
        debug_assert!(yrs.len() <= TILE);
        let slot = |yr: &Row| &level.values[(yr.block + xr.local) as usize];
        let mut todo = [false; TILE];
        for (t, yr) in todo.iter_mut().zip(yrs) {
            *t = slot(yr).load(Relaxed) == UNKNOWN;
        }
        if !todo.contains(&true) {
            return;
        }
        let (ys, end) = self.end_of(xr);
        let mut best = [i32::MIN; TILE];
        let best = &mut best[..yrs.len()];
        if end != UNKNOWN {
            best.fill(i32::from(end));
        } else {
            // A board that is not over has a move: its mover's row holds seeds.
            debug_assert!(mv.n > 0);
            for f in &mv.moves[..usize::from(mv.n)] {
                self.move_band(level, tl, f, yrs, ys, best);
            }
        }
        for ((t, yr), b) in todo.iter().zip(yrs).zip(best.iter()) {
            if *t {
                slot(yr).store(*b as i8, Relaxed);
            }
        }
    }

    /// Raises `best[i]` to the mover's value through move `f` from the board whose
    /// opponent's row is `yrs[i]` (rows of sum `ys`), for each `i` (see
    /// [`Kernel::row_band`]); the boards are not over.
    #[inline]
    pub(super) fn move_band(
        &self,
        level: &Level,
        tl: &Tiling,
        f: &FastMove,
        yrs: &[Row],
        ys: usize,
        best: &mut [i32],
    ) {
        #[inline(always)]
        fn each(best: &mut [i32], yrs: &[Row], v: impl Fn(&Row) -> i32) {
            for (b, yr) in best.iter_mut().zip(yrs) {
                *b = (*b).max(v(yr));
            }
        }
        let gain = i32::from(f.own) - i32::from(f.opp);
        let gone = usize::from(f.own) + usize::from(f.opp);
        let own_sum = usize::from(f.own_sum);
        let opp_sum = ys + usize::from(f.add_sum);
        let opp_row = |yr: &Row| u64::from_le_bytes(yr.cells) + f.opp_add;
        if f.cap != NO_CAP {
            each(best, yrs, |yr| self.through(level, tl, f, yr, ys));
        } else if f.in_store {
            match self.end_at(own_sum, opp_sum) {
                UNKNOWN => each(best, yrs, |yr| {
                    gain + self.free_child(level, tl, f, yr, opp_row(yr), gone)
                }),
                end => each(best, yrs, |_| gain + i32::from(end)),
            }
        } else {
            match self.end_at(opp_sum, own_sum) {
                UNKNOWN => each(best, yrs, |yr| {
                    let rows = [opp_row(yr), f.own_row];
                    gain - self.plain_child(level, tl, f, yr, rows, opp_sum, gone, false)
                }),
                end => each(best, yrs, |_| gain - i32::from(end)),
            }
        }
    }

    /// Evaluates the board of mover's row `x` (whose moves are `mv`) and opponent's row
    /// `y`, if unknown.
    #[inline]
    pub(super) fn visit(&self, level: &Level, tl: &Tiling, x: usize, mv: &FastMoves, y: usize) {
        self.evaluate(level, tl, &tl.rows[x], mv, &tl.rows[y]);
    }

    /// [`Kernel::visit`] of the boards of each mover's row of `movers` (whose moves are
    /// `moves`, in order) against the opponent's row `y`. One call for them all: a call
    /// of `visit` spent about a third of its instructions loading and spilling what every
    /// board shares (`valgrind --tool=callgrind`, results/bench.md).
    pub(super) fn column(
        &self,
        level: &Level,
        tl: &Tiling,
        movers: Range<usize>,
        moves: &[FastMoves],
        y: usize,
    ) {
        let yr = &tl.rows[y];
        for (xr, mv) in tl.rows[movers].iter().zip(moves) {
            self.evaluate(level, tl, xr, mv, yr);
        }
    }

    /// Evaluates the board of mover's row `xr` (whose moves are `mv`) and opponent's row
    /// `yr`, if unknown.
    #[inline(always)]
    pub(super) fn evaluate(&self, level: &Level, tl: &Tiling, xr: &Row, mv: &FastMoves, yr: &Row) {
        let slot = &level.values[(yr.block + xr.local) as usize];
        if slot.load(Relaxed) != UNKNOWN {
            return;
        }
        let (ys, end) = self.end_of(xr);
        if end != UNKNOWN {
            slot.store(end, Relaxed);
            return;
        }
        // A plain loop: as an iterator's `map(..).max()` the compiler kept the closure
        // around `through` a function of its own, called for every move.
        let mut best = i32::MIN;
        for f in &mv.moves[..usize::from(mv.n)] {
            best = best.max(self.through(level, tl, f, yr, ys));
        }
        // A board that is not over has a move (its mover's row holds seeds).
        debug_assert!(best > i32::MIN);
        slot.store(best as i8, Relaxed);
    }

    /// The mover's value through move `f` from the board whose opponent's row is `yr`
    /// (of sum `ys`), the board not being over.
    #[inline(always)]
    pub(super) fn through(
        &self,
        level: &Level,
        tl: &Tiling,
        f: &FastMove,
        yr: &Row,
        ys: usize,
    ) -> i32 {
        let m = self.pits;
        let mut own_row = f.own_row;
        let mut opp_row = u64::from_le_bytes(yr.cells) + f.opp_add;
        let mut own = usize::from(f.own);
        let mut own_sum = usize::from(f.own_sum);
        let mut opp_sum = ys + usize::from(f.add_sum);
        let mut captured = false;
        if f.cap != NO_CAP {
            let at = 8 * u32::from(f.cap);
            let facing = ((opp_row >> at) & 0xff) as usize;
            if facing > 0 || self.capture == Capture::Empty {
                captured = true;
                own += facing + 1;
                opp_row &= !(0xff << at);
                let pos = m - 1 - usize::from(f.cap);
                own_row &= !(0xff << (8 * pos));
                own_sum -= 1;
                opp_sum -= facing;
            }
        }
        let opp = usize::from(f.opp);
        let gain = own as i32 - opp as i32;
        if f.in_store {
            // A free move (which never captures): the child is (own_row, opp_row), the
            // mover to move again.
            gain + match self.end_at(own_sum, opp_sum) {
                UNKNOWN => self.free_child(level, tl, f, yr, opp_row, own + opp),
                end => i32::from(end),
            }
        } else {
            // The child is (opp_row, own_row), the opponent to move.
            let rows = [opp_row, own_row];
            gain - match self.end_at(opp_sum, own_sum) {
                UNKNOWN => self.plain_child(level, tl, f, yr, rows, opp_sum, own + opp, captured),
                end => i32::from(end),
            }
        }
    }

    /// The value of the child `(f.own_row, opp_row)` of free move `f` from the board whose
    /// opponent's row is `yr` (the mover to move again; `gone` seeds went to the stores),
    /// the game not over there.
    #[inline(always)]
    pub(super) fn free_child(
        &self,
        level: &Level,
        tl: &Tiling,
        f: &FastMove,
        yr: &Row,
        opp_row: u64,
        gone: usize,
    ) -> i32 {
        let own_sum = usize::from(f.own_sum);
        let rank = if f.opp_add == 0 {
            f.lo_own + tl.his[yr.hi_at + own_sum]
        } else {
            f.lo_own + level.fast.hi(own_sum, opp_row)
        };
        level.lower_at(&[f.own_row, opp_row], gone, rank)
    }

    /// The value of the child `rows` (the opponent's row `opp_sum` seeds, then the
    /// mover's) of move `f`, which passes the turn, from the board whose opponent's row is
    /// `yr`: `gone` seeds went to the stores, `captured` whether `f` captured. The game is
    /// not over there; a same-level child not known yet is computed.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn plain_child(
        &self,
        level: &Level,
        tl: &Tiling,
        f: &FastMove,
        yr: &Row,
        rows: [u64; 2],
        opp_sum: usize,
        gone: usize,
        captured: bool,
    ) -> i32 {
        let fast = &level.fast;
        if gone == 0 {
            // A same-level child: the sown row's block, at the opponent's row's rank.
            let rank = tl.rows[f.row].block + yr.local;
            return match level.values[rank as usize].load(Relaxed) {
                UNKNOWN => level.same_level_at(rank, &rows),
                v => i32::from(v),
            };
        }
        let rank = if captured {
            debug_assert_eq!(tl.his[f.cap_hi_at + opp_sum], fast.hi(opp_sum, rows[1]));
            fast.lo(rows[0]) + tl.his[f.cap_hi_at + opp_sum]
        } else if f.add_t != NO_ADD {
            yr.lo_add[usize::from(f.add_t)] + f.hi_own
        } else {
            fast.lo(rows[0]) + f.hi_own
        };
        level.lower_at(&rows, gone, rank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{EndRule, OppStore, Remaining, RulesBuilder};
    use db_format::Ranker;

    /// The board after move `mv` from the mover's row `own` against the opponent's row
    /// `opp`, the seeds gained by each side and whether the move ends in the store, as
    /// the kernel's evaluation (`Kernel::through`) applies it.
    fn apply(mv: &RowMove, capture: Capture, m: usize, opp: &[u8]) -> ([u8; 16], u8, u8, bool) {
        let mut c = [0u8; 16];
        c[..m].copy_from_slice(&mv.own_row[..m]);
        for i in 0..m {
            c[m + i] = opp[i] + mv.opp_add[i];
        }
        let mut own = mv.own;
        if mv.cap != NO_CAP {
            let facing = m + usize::from(mv.cap);
            if c[facing] > 0 || capture == Capture::Empty {
                own += c[facing] + 1;
                c[facing] = 0;
                c[m - 1 - usize::from(mv.cap)] = 0;
            }
        }
        (c, own, mv.opp, mv.in_store)
    }

    /// The kernel's move table equals [`Sower::sow`] on whole boards under every rule
    /// combination the kernel accepts (counter-clockwise single sowing), for every row of
    /// up to 9 seeds and a few opponent's rows each.
    #[test]
    fn row_moves_equal_the_sowing_rule_under_every_accepted_rule_combination() {
        let mut checked = 0;
        for capture in [Capture::Standard, Capture::Empty, Capture::None] {
            for opp_store in [OppStore::Skip, OppStore::Sow] {
                for end in [EndRule::Either, EndRule::Mover] {
                    for remaining in [Remaining::Owner, Remaining::Emptier, Remaining::Discard] {
                        for m in 1..=6 {
                            let mut b = RulesBuilder::new(m, 1);
                            b.capture = Some(capture);
                            b.opp_store = opp_store;
                            b.end = end;
                            b.remaining = remaining;
                            let rules = b.build().unwrap();
                            let game = Game::new(rules);
                            let kernel = Kernel::new(&game, 9).expect("single sowing, ccw");
                            let sower = Sower::new(&rules);
                            for s in 0..=9u32 {
                                let r = Ranker::new(m, s).unwrap();
                                let mut row = [0u8; 8];
                                for rank in 0..r.count() {
                                    r.unrank(rank, &mut row[..m]);
                                    let opps: [[u8; 8]; 3] =
                                        [[0; 8], row, std::array::from_fn(|i| (i % 3) as u8)];
                                    for pit in (0..m).filter(|&p| row[p] > 0) {
                                        let mv = kernel.sow(&row, pit);
                                        for opp in &opps {
                                            let mut c = [0u8; 16];
                                            c[..m].copy_from_slice(&row[..m]);
                                            c[m..2 * m].copy_from_slice(&opp[..m]);
                                            let board = Board::from_cells(m, &c[..2 * m]);
                                            let want = sower.sow(&board, pit);
                                            let (cells, own, opp_gain, in_store) =
                                                apply(&mv, capture, m, &opp[..m]);
                                            assert_eq!(
                                                (&cells[..2 * m], own, opp_gain, in_store),
                                                (
                                                    &want.board.cells()[..2 * m],
                                                    want.own_gain,
                                                    want.opp_gain,
                                                    want.in_store
                                                ),
                                                "{rules} {board:?} pit {pit}"
                                            );
                                            checked += 1;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }
}
