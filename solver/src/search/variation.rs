//! The walk of a principal variation, shared by the search ([`super::Solver`], which
//! picks each move by a zero-window test) and the oracles of exact values
//! ([`crate::analysis`], which pick a move whose value is the board's).

use std::ops::ControlFlow;

use crate::board::Board;
use crate::game::{Next, Step};

use super::SolveError;

/// A principal variation of at most `limit` moves from `board`, whose value is `value`
/// (the future net gain of the side to move).
///
/// At each board `keep(board, value)` gives a move that keeps the board's value
/// (`Continue(Some(move))`), ends the walk there (`Break`: the game is over, or the search
/// was stopped), or finds none (`Continue(None)`). With exact values some move keeps the
/// value; none does only when values read from a damaged database contradict each
/// other, and the walk is then [`SolveError::Contradiction`]. The walk also ends after a
/// move that ends the game.
pub(crate) fn walk_variation(
    board: &Board,
    value: i32,
    limit: usize,
    mut keep: impl FnMut(&Board, i32) -> ControlFlow<(), Option<(usize, Step)>>,
) -> Result<Vec<(usize, Step)>, SolveError> {
    let mut pv = Vec::new();
    let (mut board, mut value) = (*board, value);
    while pv.len() < limit {
        let ControlFlow::Continue(chosen) = keep(&board, value) else {
            break;
        };
        let Some((pit, step)) = chosen else {
            return Err(SolveError::Contradiction {
                moves: pv.len(),
                value,
            });
        };
        pv.push((pit, step));
        if step.next == Next::Over {
            break;
        }
        value = step.child_value(value);
        board = step.board;
    }
    Ok(pv)
}
