//! Turns and the end of the game: what follows a sowing.
//!
//! [`Game`] joins a rule set with its precomputed sowing cycle and answers the three
//! questions every solver asks of a board seen from the side to move: which pits may be
//! played, where a move leads (and who moves next), and whether the game is over.
//!
//! Values here are *future net gains*: seeds that the side to move will still add to its
//! store minus those the opponent will, the final sweep included. They never depend on
//! the stores, which is what lets the search and the databases key on the pits alone.

use crate::board::Board;
use crate::rules::{EndRule, Remaining, Rules};
use crate::sow::{Sower, Sown};

/// Who moves after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// The mover again: the last seed fell in the own store and the game goes on.
    Same,
    /// The opponent.
    Other,
    /// Nobody: the game ended and the remaining seeds were swept.
    Over,
}

/// One move and its consequences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The pits afterwards from the point of view of the player to move next (for
    /// [`Next::Over`], all empty).
    pub board: Board,
    /// Seeds the mover's store gained (sowing, capture and final sweep).
    pub own_gain: u32,
    /// Seeds the opponent's store gained.
    pub opp_gain: u32,
    /// Seeds captured by this move (its own last seed included).
    pub captured: u8,
    /// Seeds in each row of `board`, its mover's first (a board holds at most 255 seeds),
    /// so that the search of the next board need not count them.
    pub rows: [u8; 2],
    pub next: Next,
}

impl Step {
    /// The inverse of [`Step::value_through`]: the value the board this move leads to must
    /// have for the move to be worth `value` to the mover (not meaningful for
    /// [`Next::Over`], which leads nowhere).
    #[inline]
    pub fn child_value(&self, value: i32) -> i32 {
        match self.next {
            Next::Same | Next::Over => value - self.gain(),
            Next::Other => self.gain() - value,
        }
    }

    /// A placeholder, for arrays of steps.
    pub const NONE: Step = Step {
        board: Board::EMPTY,
        own_gain: 0,
        opp_gain: 0,
        captured: 0,
        rows: [0, 0],
        next: Next::Over,
    };

    /// The mover's net gain from this move alone.
    #[inline]
    pub fn gain(&self) -> i32 {
        self.own_gain as i32 - self.opp_gain as i32
    }

    /// The seeds left on the board after this move, from a board of `seeds` seeds: what
    /// the stores did not take.
    #[inline]
    pub fn seeds_after(&self, seeds: i32) -> i32 {
        seeds - self.own_gain as i32 - self.opp_gain as i32
    }

    /// The mover's future net gain through this move, given the value of the board it
    /// leads to (for the player to move there).
    #[inline]
    pub fn value_through(&self, child_value: i32) -> i32 {
        match self.next {
            Next::Same => self.gain() + child_value,
            Next::Other => self.gain() - child_value,
            Next::Over => self.gain(),
        }
    }
}

/// Bit `i` set for each non-zero byte `i` of `x`, without a loop: `(b & 0x7f) + 0x7f`
/// reaches bit 7 exactly when the low seven bits of `b` are not all zero, and `| b` adds
/// bytes with only bit 7 set. Shifted down to bit `8i`, byte `i`'s flag times the term
/// `2^(56 - 7i)` of the multiplier lands on bit `56 + i`; every other pair of flag and term
/// lands on a bit of its own (`8i - 7j` differs for every pair), below bit 56 or past bit
/// 63, so nothing carries into the top byte. Example: bytes `[3, 0, 1, 0, ...]` give
/// `0b101`.
#[inline]
fn nonzero_bytes(x: u64) -> u32 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let high = (((x & LOW7) + LOW7) | x) & !LOW7;
    ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// A rule set ready to play.
#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    sower: Sower,
}

impl Game {
    pub fn new(rules: Rules) -> Game {
        Game {
            sower: Sower::new(&rules),
            rules,
        }
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Pits a side.
    #[inline]
    pub fn pits(&self) -> usize {
        self.rules.pits()
    }

    pub fn sower(&self) -> &Sower {
        &self.sower
    }

    /// The mover's playable pits (0-based), as a bit set.
    #[inline]
    pub fn legal_mask(&self, board: &Board) -> u32 {
        nonzero_bytes(board.key() as u64) & ((1 << self.pits()) - 1)
    }

    /// If the game is over with `board` and the side whose view it is due to move, the
    /// value of the final sweep for that side; `None` if play goes on.
    #[inline]
    pub fn terminal_value(&self, board: &Board) -> Option<i32> {
        let m = self.pits();
        self.sweep(board.row_seeds(m), true)
            .map(|(own, opp)| own as i32 - opp as i32)
    }

    /// The end-of-game rule, on a board whose rows hold `rows` seeds, seen from one
    /// player, P (P's row first); `p_due` says whether P is the one due to move. Returns
    /// what each store gains from the sweep (P's first), or `None` when the game goes on.
    #[inline]
    fn sweep(&self, rows: [u32; 2], p_due: bool) -> Option<(u32, u32)> {
        let [own, opp] = rows;
        // Is the row of the player due to move empty, or (rule `either`) any row?
        let p_empty = own == 0;
        let over = match self.rules.end {
            EndRule::Either => own == 0 || opp == 0,
            EndRule::Mover => {
                if p_due {
                    own == 0
                } else {
                    opp == 0
                }
            }
        };
        if !over {
            return None;
        }
        Some(match self.rules.remaining {
            Remaining::Owner => (own, opp),
            // All to the player whose row is empty. Under `mover` that is the one due to
            // move; under `either` both rows may be empty, and then there is nothing left.
            Remaining::Emptier => {
                let p_is_emptier = match self.rules.end {
                    EndRule::Either => p_empty,
                    EndRule::Mover => p_due,
                };
                if p_is_emptier {
                    (own + opp, 0)
                } else {
                    (0, own + opp)
                }
            }
            Remaining::Discard => (0, 0),
        })
    }

    /// Sow the mover's pit `pit` (0-based, must hold seeds) and apply the end rule.
    #[inline]
    pub fn play(&self, board: &Board, pit: usize) -> Step {
        let m = self.pits();
        self.play_rows(board, pit, board.row_seeds(m))
    }

    /// [`Game::play`] on a board whose rows hold `rows` seeds (the mover's first), for a
    /// caller that plays several pits of one board.
    #[inline]
    pub fn play_rows(&self, board: &Board, pit: usize, rows: [u32; 2]) -> Step {
        let Sown {
            board: after,
            own_gain,
            opp_gain,
            captured,
            in_store,
            rows,
        } = self.sower.sow_rows(board, pit, rows);
        let (own_gain, opp_gain) = (own_gain as u32, opp_gain as u32);
        if let Some((own, opp)) = self.sweep(rows, in_store) {
            return Step {
                board: Board::default(),
                own_gain: own_gain + own,
                opp_gain: opp_gain + opp,
                captured,
                rows: [0, 0],
                next: Next::Over,
            };
        }
        // Invariant: a row holds at most the board's seeds, at most 255.
        let rows = rows.map(|r| r as u8);
        let (board, rows, next) = if in_store {
            (after, rows, Next::Same)
        } else {
            (after.flip(self.pits()), [rows[1], rows[0]], Next::Other)
        };
        Step {
            board,
            own_gain,
            opp_gain,
            captured,
            rows,
            next,
        }
    }

    /// All moves from `board` with their steps, in pit order.
    pub fn steps(&self, board: &Board) -> impl Iterator<Item = (usize, Step)> + '_ {
        let mask = self.legal_mask(board);
        let board = *board;
        (0..self.pits())
            .filter(move |i| mask & (1 << i) != 0)
            .map(move |i| (i, self.play(&board, i)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RulesBuilder;

    fn game(f: impl FnOnce(&mut RulesBuilder)) -> Game {
        let mut b = RulesBuilder::new(3, 3);
        f(&mut b);
        Game::new(b.build().unwrap())
    }

    fn b3(c: [u8; 6]) -> Board {
        Board::from_cells(3, &c)
    }

    #[test]
    fn nonzero_bytes_equals_the_loop() {
        // Every pattern of empty and non-empty bytes, with the values that stress the
        // carries: 1, 0x7f, 0x80 and 0xff.
        for pattern in 0u32..256 {
            for fill in [1u8, 0x7f, 0x80, 0xff, 0x2a] {
                let bytes: [u8; 8] =
                    std::array::from_fn(|i| if pattern >> i & 1 == 1 { fill } else { 0 });
                assert_eq!(
                    nonzero_bytes(u64::from_le_bytes(bytes)),
                    pattern,
                    "{bytes:?}"
                );
            }
        }
    }

    #[test]
    fn a_plain_move_flips_the_board_and_a_free_move_keeps_the_view() {
        let g = game(|_| {});
        for (board, pit, next, after) in [
            // A2: A3, store, B1. Mover 3,0,4 / opponent 4,3,3 → seen from the opponent:
            // 4,3,3 / 3,0,4.
            (Board::start(3, 3), 1, Next::Other, b3([4, 3, 3, 3, 0, 4])),
            // A3 with 1: the store, a free move.
            (
                b3([3, 0, 1, 1, 1, 1]),
                2,
                Next::Same,
                b3([3, 0, 0, 1, 1, 1]),
            ),
        ] {
            let s = g.play(&board, pit);
            assert_eq!(s.next, next);
            assert_eq!(s.board, after);
            assert_eq!(s.gain(), 1);
        }
    }

    #[test]
    fn either_rule_ends_when_any_row_empties_and_refuses_the_free_move() {
        // Last seed in the store empties the mover's row: over, no free move. Under
        // `mover` the mover is due to move with an empty row: over as well.
        for end in [EndRule::Either, EndRule::Mover] {
            let s = game(|r| r.end = end).play(&b3([0, 0, 1, 2, 2, 2]), 2);
            assert_eq!(s.next, Next::Over, "{end:?}");
            assert_eq!((s.own_gain, s.opp_gain), (1, 6), "{end:?}");
        }
    }

    #[test]
    fn mover_rule_waits_for_the_player_due_to_move() {
        let g = game(|r| r.end = EndRule::Mover);
        // Mover empties own row but the opponent is due to move: play goes on.
        let s = g.play(&b3([0, 0, 2, 1, 0, 0]), 2);
        // A3 with 2: store, B1 → B1 = 2. Mover row empty, opponent to move.
        assert_eq!(s.next, Next::Other);
        assert_eq!(s.board, b3([2, 0, 0, 0, 0, 0]));
        // Under `either` the same move ends the game and North sweeps 2.
        let g = game(|_| {});
        let s = g.play(&b3([0, 0, 2, 1, 0, 0]), 2);
        assert_eq!(s.next, Next::Over);
        assert_eq!((s.own_gain, s.opp_gain), (1, 2));
    }

    #[test]
    fn remaining_seeds_go_where_the_rule_says() {
        let board = b3([0, 0, 1, 2, 2, 2]);
        let emptier = game(|r| r.remaining = Remaining::Emptier).play(&board, 2);
        assert_eq!((emptier.own_gain, emptier.opp_gain), (7, 0));
        let discard = game(|r| r.remaining = Remaining::Discard).play(&board, 2);
        assert_eq!((discard.own_gain, discard.opp_gain), (1, 0));
        // Opponent's row emptied by a capture: under emptier the opponent takes the rest.
        let g = game(|r| r.remaining = Remaining::Emptier);
        let s = g.play(&b3([1, 0, 3, 0, 2, 0]), 0);
        assert_eq!(s.captured, 3);
        assert_eq!((s.own_gain, s.opp_gain), (3, 3));
    }

    #[test]
    fn child_value_inverts_value_through() {
        let g = game(|_| {});
        let board = b3([2, 1, 1, 1, 2, 1]); // A3 is a free move, A1 and A2 are not
        for (_, step) in g.steps(&board).filter(|(_, s)| s.next != Next::Over) {
            for v in -9..=9 {
                assert_eq!(step.value_through(step.child_value(v)), v, "{step:?}");
            }
        }
    }

    #[test]
    fn terminal_value_of_a_position() {
        let g = game(|_| {});
        assert_eq!(g.terminal_value(&b3([0, 0, 0, 1, 2, 0])), Some(-3));
        assert_eq!(g.terminal_value(&b3([1, 0, 0, 0, 0, 0])), Some(1));
        assert_eq!(g.terminal_value(&b3([1, 0, 0, 1, 0, 0])), None);
        let g = game(|r| r.end = EndRule::Mover);
        assert_eq!(g.terminal_value(&b3([1, 0, 0, 0, 0, 0])), None);
        assert_eq!(g.terminal_value(&b3([0, 0, 0, 1, 2, 0])), Some(-3));
        let g = game(|r| {
            r.end = EndRule::Mover;
            r.remaining = Remaining::Emptier
        });
        assert_eq!(g.terminal_value(&b3([0, 0, 0, 1, 2, 0])), Some(3));
    }
}
