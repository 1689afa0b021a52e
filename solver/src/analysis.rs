//! Final margins of whole positions: the solver's values turned into what players read.
//!
//! Every figure here is a *final margin*, South's store minus North's at the very end of
//! perfect play, stores included; it never changes sign with the side to move. It is the
//! store margin of the position plus the side to move's future net gain
//! ([`crate::mtdf`]) signed for that side.

use crate::game::Next;
use crate::mtdf::{Iteration, Solver};
use crate::notation::MoveText;
use crate::position::{Position, Side};

/// The solution of a position.
#[derive(Clone, Debug)]
pub struct Solution {
    /// South's final store minus North's under perfect play.
    pub margin: i32,
    /// The side to move's future net gain.
    pub value: i32,
    /// A principal variation (empty when the game is over).
    pub pv: Vec<MoveText>,
    /// Every deepening iteration, in order.
    pub iterations: Vec<Iteration>,
}

/// The value of one legal move.
#[derive(Clone, Copy, Debug)]
pub struct MoveMargin {
    pub text: MoveText,
    /// South's final store minus North's if this move is played, then perfect play.
    pub margin: i32,
}

/// Turn `(pit, step)` moves from `side`'s turn into notation, following the turn order.
pub fn notate(
    mut side: Side,
    moves: impl IntoIterator<Item = (usize, crate::game::Step)>,
) -> Vec<MoveText> {
    moves
        .into_iter()
        .map(|(pit, step)| {
            let t = MoveText::annotated(side, pit, &step);
            if step.next != Next::Same {
                side = side.other();
            }
            t
        })
        .collect()
}

/// Solve `pos` exactly by iterative deepening up to `max_depth`.
pub fn solve(
    solver: &mut Solver<'_>,
    pos: &Position,
    max_depth: u8,
    mut progress: impl FnMut(&Iteration),
) -> Solution {
    let board = pos.board();
    let mut iterations = Vec::new();
    let value = solver.solve(&board, max_depth, |it| {
        iterations.push(*it);
        progress(it)
    });
    let pv = notate(pos.to_move, solver.principal_variation(&board, value));
    Solution {
        margin: pos.store_margin() + pos.to_move.sign() * value,
        value,
        pv,
        iterations,
    }
}

/// The final margin after each legal move of `pos`, best first for the side to move.
pub fn move_margins(solver: &mut Solver<'_>, pos: &Position) -> Vec<MoveMargin> {
    if pos.is_over(solver.game()) {
        return Vec::new();
    }
    let sign = pos.to_move.sign();
    let mut out: Vec<MoveMargin> = solver
        .move_values(&pos.board())
        .into_iter()
        .map(|(pit, step, v)| MoveMargin {
            text: MoveText::annotated(pos.to_move, pit, &step),
            margin: pos.store_margin() + sign * v,
        })
        .collect();
    out.sort_by_key(|m| (-sign * m.margin, m.text.pit));
    out
}
