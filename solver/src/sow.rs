//! The sowing rule, once: where the seeds of one move go, relay and capture included.
//!
//! Everything is seen from the mover (see [`crate::board`]): cells `0..m` are the mover's
//! pits A1..Am, cells `m..2m` the opponent's B1..Bm. Pit `i` faces pit `2m - 1 - i`
//! (A1 faces Bm). Sowing walks a fixed cycle of slots:
//!
//! * counter-clockwise: A1..Am, own store, B1..Bm, [opponent's store], A1 …
//! * clockwise: Am..A1, [opponent's store], Bm..B1, own store, Am …
//!
//! The opponent's store is in the cycle only with `--opp-store sow`; otherwise it is not a
//! step at all. A pit with at least a cycle's length of seeds laps the board and drops
//! seeds back into the pit it emptied.
//!
//! Counter-clockwise, a sowing that puts no seed in a store stays in the mover's row and
//! moves each of its seeds closer to the own store (relay lifts included): this is why
//! counter-clockwise play is acyclic and why a database level can be built in one pass.

use crate::board::{Board, CELLS};
use crate::rules::{Capture, Direction, OppStore, Rules, Sowing};

/// Slot of the mover's store in the sowing scratch array.
pub const OWN_STORE: usize = CELLS;
/// Slot of the opponent's store in the sowing scratch array.
pub const OPP_STORE: usize = CELLS + 1;
const SLOTS: usize = CELLS + 2;

/// The result of sowing one pit, before the end-of-game check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sown {
    /// The pits afterwards, still from the mover's point of view.
    pub board: Board,
    /// Seeds that went into the mover's store (sown and captured).
    pub own_gain: u8,
    /// Seeds that went into the opponent's store (only with `--opp-store sow`).
    pub opp_gain: u8,
    /// Seeds captured (the mover's last seed included), 0 if none.
    pub captured: u8,
    /// The last seed fell into the mover's store: a free move, unless the game is over.
    pub in_store: bool,
    /// Seeds in the mover's row and in the opponent's afterwards (what the end rule
    /// looks at).
    pub rows: [u32; 2],
}

/// The sowing cycle of a rule set, precomputed once.
#[derive(Clone, Debug)]
pub struct Sower {
    pits: usize,
    /// `next[s]` is the slot after slot `s` in the sowing cycle.
    next: [u8; SLOTS],
    /// Slots in one lap of the cycle.
    lap: u8,
    capture: Capture,
    relay: bool,
    /// Counter-clockwise single sowing: a sowing that ends by the opponent's last pit adds
    /// a fixed vector to the packed board (see [`Sower::sow_short`]).
    short: bool,
    /// `delta[pit * SHORT + hand]`, for `hand <= 2m - pit`: what sowing `hand` seeds from
    /// `pit` adds to the packed board (wrapping), the emptied pit included.
    delta: [u128; 8 * SHORT],
}

/// Columns of [`Sower::delta`]: hands of up to 16 seeds.
const SHORT: usize = 17;

impl Sower {
    pub fn new(rules: &Rules) -> Sower {
        let m = rules.pits();
        let mut cycle: Vec<usize> = Vec::with_capacity(2 * m + 2);
        let sow_opp = rules.opp_store == OppStore::Sow;
        match rules.direction {
            Direction::Ccw => {
                cycle.extend(0..m);
                cycle.push(OWN_STORE);
                cycle.extend(m..2 * m);
                if sow_opp {
                    cycle.push(OPP_STORE);
                }
            }
            Direction::Cw => {
                cycle.extend((0..m).rev());
                if sow_opp {
                    cycle.push(OPP_STORE);
                }
                cycle.extend((m..2 * m).rev());
                cycle.push(OWN_STORE);
            }
        }
        let mut next = [0u8; SLOTS];
        for (i, &s) in cycle.iter().enumerate() {
            next[s] = cycle[(i + 1) % cycle.len()] as u8;
        }
        Sower {
            pits: m,
            next,
            lap: cycle.len() as u8,
            capture: rules.capture,
            relay: rules.sowing == Sowing::Relay,
            short: rules.direction == Direction::Ccw && rules.sowing == Sowing::Single,
            delta: Sower::deltas(m),
        }
    }

    /// Slots in one lap: 2m + 1, or 2m + 2 when the opponent's store is sown.
    pub fn lap(&self) -> usize {
        self.lap as usize
    }

    /// Sow the mover's pit `pit` (0-based). The pit must hold seeds.
    ///
    /// Relay sowing ends: the total of seeds on the board is finite and every lap of the
    /// cycle passes the mover's store, so a relay that went on for ever would fill the
    /// store without bound.
    #[inline]
    pub fn sow(&self, board: &Board, pit: usize) -> Sown {
        let rows = board.row_seeds(self.pits);
        self.sow_rows(board, pit, rows)
    }

    /// [`Sower::sow`] of a board whose rows hold `rows` seeds (the mover's first), for a
    /// caller that sows several pits of one board.
    #[inline]
    pub fn sow_rows(&self, board: &Board, pit: usize, rows: [u32; 2]) -> Sown {
        debug_assert!(pit < self.pits && board.cells()[pit] > 0);
        debug_assert_eq!(rows, board.row_seeds(self.pits));
        let hand = usize::from(board.cells()[pit]);
        if self.short && hand <= 2 * self.pits - pit {
            return self.sow_short(board, pit, hand, rows);
        }
        self.sow_cycle(board, pit)
    }

    /// [`Sower::delta`] for `m` pits a side.
    fn deltas(m: usize) -> [u128; 8 * SHORT] {
        let mut delta = [0u128; 8 * SHORT];
        for pit in 0..m {
            for hand in 1..=2 * m - pit {
                // The hand leaves the pit; then one seed a slot along A(pit+2)..Am, the
                // store (not a cell), B1..Bm.
                let mut d = 0u128.wrapping_sub((hand as u128) << (8 * pit));
                for slot in pit + 1..=pit + hand {
                    if slot < m {
                        d = d.wrapping_add(1 << (8 * slot));
                    } else if slot > m {
                        d = d.wrapping_add(1 << (8 * (slot - 1)));
                    }
                }
                delta[pit * SHORT + hand] = d;
            }
        }
        delta
    }

    /// [`Sower::sow`] of a counter-clockwise single sowing of `hand` seeds that ends by the
    /// opponent's last pit (`hand <= 2m - pit`), most sowings of a game: the seeds fill the
    /// mover's pits after `pit`, then the store, then the opponent's first pits, one each,
    /// so the packed board (one byte a pit, mover's row first) changes by a vector that
    /// depends on `pit` and `hand` alone. Kalah(2,·), pit 0 (A1) holding 3 seeds sows A2,
    /// the store and B1: the board `[3, 1, 0, 2]`, key `0x02_00_01_03`, plus the delta
    /// `0x01_01_00 - 0x03` is `[0, 2, 1, 2]`, key `0x02_01_02_00`. No byte overflows or
    /// borrows: the pit's byte is exactly the hand, and a position holds at most 255 seeds.
    #[inline]
    fn sow_short(&self, board: &Board, pit: usize, hand: usize, rows: [u32; 2]) -> Sown {
        let m = self.pits;
        let mut after = Board::from_key(board.key().wrapping_add(self.delta[pit * SHORT + hand]));
        // Seeds past the mover's last pit: the first in the store, the rest in B1...
        let past = hand.saturating_sub(m - 1 - pit);
        let mut own_gain = u8::from(past > 0);
        let mut captured = 0;
        // The hand leaves the mover's row and all but `past` seeds come back to it; the
        // opponent's row gets those past the store.
        let mut rows = [
            rows[0] - past as u32,
            rows[1] + past.saturating_sub(1) as u32,
        ];
        if past == 0 {
            // The last seed fell in the mover's pit `pos`: a capture if it was empty.
            let pos = pit + hand;
            let opposite = 2 * m - 1 - pos;
            let c = after.cells_mut();
            let take = c[pos] == 1
                && match self.capture {
                    Capture::Standard => c[opposite] > 0,
                    Capture::Empty => true,
                    Capture::None => false,
                };
            if take {
                captured = c[opposite] + 1;
                rows[0] -= 1;
                rows[1] -= u32::from(c[opposite]);
                c[pos] = 0;
                c[opposite] = 0;
                own_gain += captured;
            }
        }
        Sown {
            board: after,
            own_gain,
            opp_gain: 0,
            captured,
            in_store: past == 1,
            rows,
        }
    }

    /// [`Sower::sow`] by walking the cycle of slots, laps and relays included.
    #[inline]
    fn sow_cycle(&self, board: &Board, pit: usize) -> Sown {
        let mut s = [0u8; SLOTS];
        s[..CELLS].copy_from_slice(board.cells());
        let mut hand = s[pit];
        s[pit] = 0;
        let mut pos = pit;
        loop {
            // Whole laps first: one seed in every slot, the emptied pit included. At least
            // one seed is left for the stepping loop, so `pos` ends on the last seed.
            if hand > self.lap {
                let laps = (hand - 1) / self.lap;
                hand -= laps * self.lap;
                let mut p = pos;
                for _ in 0..self.lap {
                    p = self.next[p] as usize;
                    s[p] += laps;
                }
            }
            while hand > 0 {
                pos = self.next[pos] as usize;
                s[pos] += 1;
                hand -= 1;
            }
            // `pos` holds the last seed; it held `s[pos] - 1` before that seed arrived.
            if self.relay && pos < 2 * self.pits && s[pos] > 1 {
                hand = s[pos];
                s[pos] = 0;
                continue;
            }
            break;
        }
        let mut captured = 0u8;
        if pos < self.pits && s[pos] == 1 {
            let opposite = 2 * self.pits - 1 - pos;
            let take = match self.capture {
                Capture::Standard => s[opposite] > 0,
                Capture::Empty => true,
                Capture::None => false,
            };
            if take {
                captured = s[opposite] + 1;
                s[opposite] = 0;
                s[pos] = 0;
                s[OWN_STORE] += captured;
            }
        }
        let mut cells = [0u8; CELLS];
        cells.copy_from_slice(&s[..CELLS]);
        let mut after = Board::default();
        *after.cells_mut() = cells;
        Sown {
            board: after,
            own_gain: s[OWN_STORE],
            opp_gain: s[OPP_STORE],
            captured,
            in_store: pos == OWN_STORE,
            rows: after.row_seeds(self.pits),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RulesBuilder;

    fn sower(f: impl FnOnce(&mut RulesBuilder)) -> Sower {
        let mut b = RulesBuilder::new(6, 4);
        f(&mut b);
        Sower::new(&b.build().unwrap())
    }

    fn b6(cells: [u8; 12]) -> Board {
        Board::from_cells(6, &cells)
    }

    /// The mover's row after the sowing, then the opponent's.
    fn rows(s: &Sown) -> ([u8; 6], [u8; 6]) {
        let row = |r: &[u8]| <[u8; 6]>::try_from(r).unwrap();
        (row(s.board.own(6)), row(s.board.opp(6)))
    }

    #[test]
    fn a3_with_four_seeds_ends_in_the_store() {
        // 003: "choose your third pit ... the final seed reaches your store".
        let s = sower(|_| {}).sow(&Board::start(6, 4), 2);
        assert!(s.in_store);
        assert_eq!(s.own_gain, 1);
        assert_eq!(rows(&s), ([4, 4, 0, 5, 5, 5], [4; 6]));
    }

    #[test]
    fn worked_capture_of_five() {
        // 003: South 1,0,2,2,2,2 and four seeds in the pit opposite A2 (B5).
        let b = b6([1, 0, 2, 2, 2, 2, 0, 0, 0, 0, 4, 0]);
        let s = sower(|_| {}).sow(&b, 0);
        assert_eq!(s.captured, 5);
        assert_eq!(s.own_gain, 5);
        assert_eq!(rows(&s), ([0, 0, 2, 2, 2, 2], [0; 6]));
        assert!(!s.in_store);
    }

    #[test]
    fn opposite_pits_face_each_other() {
        // A1 faces B6, A2 faces B5, ..., A6 faces B1: land in each A_i from A_i-1.
        let sw = sower(|_| {});
        for i in 1..6 {
            let mut cells = [0u8; 12];
            cells[i - 1] = 1;
            cells[11 - i] = 3; // the pit facing A(i+1)
            cells[11] = if i == 5 { 3 } else { 1 }; // keep some seeds on the far side
            let s = sw.sow(&b6(cells), i - 1);
            assert_eq!(s.captured, 4, "A{} should capture B{}", i + 1, 6 - i);
        }
    }

    #[test]
    fn standard_capture_needs_seeds_opposite_but_empty_capture_does_not() {
        let b = b6([1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 1]);
        let s = sower(|_| {}).sow(&b, 0);
        assert_eq!((s.captured, s.own_gain), (0, 0));
        assert_eq!(s.board.own(6), &[0, 1, 0, 0, 0, 0]);
        let e = sower(|r| r.capture = Some(Capture::Empty)).sow(&b, 0);
        assert_eq!((e.captured, e.own_gain), (1, 1));
        assert_eq!(e.board.own(6), &[0; 6]);
        let n = sower(|r| r.capture = Some(Capture::None))
            .sow(&b6([1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 5, 1]), 0);
        assert_eq!(n.captured, 0);
    }

    #[test]
    fn no_capture_on_the_far_side_or_in_an_occupied_pit() {
        let sw = sower(|_| {});
        // Last seed lands in B1 (empty), facing A6: no capture for the mover.
        let s = sw.sow(&b6([0, 0, 0, 0, 0, 2, 0, 1, 1, 1, 1, 1]), 5);
        assert_eq!(s.captured, 0);
        // Last seed lands in occupied A2.
        let s = sw.sow(&b6([1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 9, 1]), 0);
        assert_eq!(s.captured, 0);
        assert_eq!(s.board.own(6), &[0, 2, 0, 0, 0, 0]);
    }

    #[test]
    fn thirteen_seeds_lap_and_refill_the_emptied_pit() {
        // 2m + 1 = 13 slots a lap: the 13th seed lands back in the emptied pit, which was
        // empty before it arrived, so it captures (standard rule) the pit opposite.
        let sw = sower(|_| {});
        let b = b6([13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
        let s = sw.sow(&b, 0);
        assert_eq!(sw.lap(), 13);
        // Every slot but A1 got one seed; A1 got the last and captured B6 (2 + 1).
        assert_eq!(s.captured, 4);
        assert_eq!(rows(&s), ([0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0]));
        assert_eq!(s.own_gain, 5);
        // Fourteen seeds: the lap goes one further, into A2 (occupied by then).
        let s = sw.sow(&b6([14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]), 0);
        assert_eq!(s.board.own(6), &[1, 2, 1, 1, 1, 1]);
        assert_eq!(s.own_gain, 1);
        // 27 seeds: two full laps and one more.
        let s = sw.sow(&b6([27, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 0);
        assert_eq!(s.board.own(6), &[2, 3, 2, 2, 2, 2]);
        assert_eq!(s.own_gain, 2);
        assert_eq!(s.board.seeds() + 2, 27);
    }

    #[test]
    fn the_skipped_store_is_not_a_step() {
        // B6 is the last pit before the opponent's store: with skip the next seed goes to A1.
        let s = sower(|_| {}).sow(&b6([1, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0]), 5);
        assert_eq!(rows(&s), ([2, 0, 0, 0, 0, 0], [1; 6]));
        assert_eq!((s.own_gain, s.opp_gain), (1, 0));
        // With --opp-store sow the opponent's store takes the 8th seed.
        let s = sower(|r| r.opp_store = OppStore::Sow)
            .sow(&b6([1, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0]), 5);
        assert_eq!(s.board.own(6), &[1, 0, 0, 0, 0, 0]);
        assert_eq!((s.own_gain, s.opp_gain), (1, 1));
        assert!(!s.in_store);
    }

    #[test]
    fn clockwise_reaches_the_own_store_after_the_opponents_row() {
        let sw = sower(|r| r.direction = Direction::Cw);
        // A2 with 2 seeds, clockwise: A1, then B6 (the opponent's store is skipped).
        let s = sw.sow(&b6([0, 2, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]), 1);
        assert_eq!(rows(&s), ([1, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 2]));
        // A1 with 7 seeds: B6..B1 then the own store: a free move.
        let s = sw.sow(&b6([7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 0);
        assert!(s.in_store);
        assert_eq!(s.board.opp(6), &[1; 6]);
        // A1 with 8: then A6.
        let s = sw.sow(&b6([8, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), 0);
        assert_eq!(s.board.own(6), &[0, 0, 0, 0, 0, 2]);
        // Capture clockwise: last seed into empty A1 facing B6.
        let s = sw.sow(&b6([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3]), 1);
        assert_eq!(s.captured, 4);
    }

    #[test]
    fn relay_lifts_occupied_pits_on_either_side() {
        let sw = sower(|r| r.sowing = Sowing::Relay);
        // A5 with 1: A6 (had 1, now 2, lift), store, B1 (had 0): ends in B1.
        let s = sw.sow(&b6([0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]), 4);
        assert_eq!(rows(&s), ([0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]));
        assert_eq!(s.own_gain, 1);
        assert!(!s.in_store);
        // Relay into the opponent's row: B1 held 2 → lift 3 → B2, B3, B4 (empty): stop.
        let s = sw.sow(&b6([0, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0]), 5);
        assert_eq!(s.board.opp(6), &[0, 1, 1, 1, 0, 0]);
        assert_eq!(s.own_gain, 1);
        // A relay that ends in the store is a free move.
        let s = sw.sow(&b6([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 0);
        // A1 → A2 (now 2, lift) → A3, A4 (empty): stop in A4.
        assert_eq!(s.board.own(6), &[0, 0, 1, 1, 0, 0]);
        let s = sw.sow(&b6([0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0]), 3);
        // A4 → A5 (2, lift) → A6, store: free move.
        assert!(s.in_store);
        assert_eq!(s.board.own(6), &[0, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn relay_captures_only_with_an_explicit_rule() {
        let b = b6([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 1]);
        let s = sower(|r| r.sowing = Sowing::Relay).sow(&b, 0);
        assert_eq!(s.captured, 0);
        let s = sower(|r| {
            r.sowing = Sowing::Relay;
            r.capture = Some(Capture::Standard)
        })
        .sow(&b, 0);
        assert_eq!(s.captured, 4);
    }

    #[test]
    fn short_sowings_equal_the_walk_of_the_cycle() {
        // Every board of up to 6 seeds a pit for m = 1, 2 and 3, and a sweep of larger
        // boards for m = 6, under each capture rule: the added vector gives what walking
        // the cycle gives, row sums included, whenever it applies.
        for capture in [Capture::Standard, Capture::Empty, Capture::None] {
            for m in [1usize, 2, 3, 6] {
                let mut b = RulesBuilder::new(m, 4);
                b.capture = Some(capture);
                let sw = Sower::new(&b.build().unwrap());
                assert!(sw.short);
                let cells = 2 * m;
                let (base, count): (u64, u64) = if m <= 3 {
                    (7, 7u64.pow(cells as u32))
                } else {
                    (13, 200_000)
                };
                let mut checked = 0;
                for i in 0..count {
                    // Mixed radix for small m; a scramble of the index for m = 6.
                    let mut x = if m <= 3 {
                        i
                    } else {
                        i.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    };
                    let mut c = [0u8; 16];
                    for cell in c.iter_mut().take(cells) {
                        *cell = (x % base) as u8;
                        x /= base;
                    }
                    let board = Board::from_cells(m, &c[..cells]);
                    for pit in 0..m {
                        let hand = usize::from(c[pit]);
                        if hand == 0 || hand > 2 * m - pit {
                            continue;
                        }
                        assert_eq!(
                            sw.sow_short(&board, pit, hand, board.row_seeds(m)),
                            sw.sow_cycle(&board, pit),
                            "m = {m}, {capture:?}, {c:?}, pit {pit}"
                        );
                        checked += 1;
                    }
                }
                assert!(checked >= 14, "m = {m}: only {checked} sowings checked");
            }
        }
    }
}
