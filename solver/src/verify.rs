//! Re-derivation of database entries: a stored value checked against the stored values of
//! the board's children, one step of the game.

use crate::board::Board;
use crate::game::{Game, Next};
use crate::probe::Probe;

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
