//! The two units of a value, and the one conversion between them.
//!
//! The search, the databases and the endgame table hold a board's value as the *future
//! net gain* of the side to move: what it will still add to its store minus what the
//! opponent will, from the pits alone (stores do not change the future). What the user
//! sees is the *final margin*, South's store minus North's at the very end of perfect
//! play, stores included. For a position (pits, stores and side to move):
//!
//! `margin = store_margin + sign * gain`, with `sign` `+1` when South moves and `-1` when
//! North does. Example: South to move, stores 3 (South) and 5 (North), gain +4: margin
//! `-2 + 4 = +2`; with North to move the same gain gives `-2 - 4 = -6`.

use crate::position::Position;

/// The final margin (South minus North) of `pos` when the side to move goes on to gain
/// `gain` (a future net gain: a board's value, a bound or a move's value).
pub fn margin(pos: &Position, gain: i32) -> i32 {
    pos.store_margin() + pos.to_move.sign() * gain
}

/// The future net gain of the side to move of `pos` that ends in the final margin
/// `margin`: the inverse of [`margin`], saturating (a user's guess may be any integer).
pub fn gain(pos: &Position, margin: i32) -> i32 {
    pos.to_move
        .sign()
        .saturating_mul(margin.saturating_sub(pos.store_margin()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Side;
    use crate::rules::Rules;

    #[test]
    fn margin_and_gain_are_inverse_for_both_sides() {
        let rules = Rules::kalah(6, 4).unwrap();
        for to_move in [Side::South, Side::North] {
            let mut pos = Position::start(&rules);
            pos.to_move = to_move;
            pos.stores = [3, 5];
            let sign = if to_move == Side::South { 1 } else { -1 };
            for g in -48..=48 {
                assert_eq!(margin(&pos, g), -2 + sign * g);
                assert_eq!(gain(&pos, margin(&pos, g)), g);
            }
        }
    }
}
