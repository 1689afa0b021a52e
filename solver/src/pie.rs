//! The pie rule: after the opener's whole first turn (free moves included) the second
//! player may swap seats once, taking over the opener's position.
//!
//! For each whole first turn `T` let `v(T)` be the final margin for the opener if nobody
//! swaps. The second player swaps when `v(T) > 0` (keeping the seat is as good at 0), so
//! the opener ends with `-|v(T)|`, and the value of the game under the pie rule is
//! `max over T of -|v(T)|`: the opener looks for the most balanced turn.

use crate::analysis::Oracle;
use crate::game::Next;
use crate::notation::MoveText;
use crate::position::Position;
use crate::score;

/// One whole first turn and what it is worth.
#[derive(Clone, Debug)]
pub struct PieTurn {
    pub moves: Vec<MoveText>,
    /// South's final store minus North's after this turn with perfect play and no swap.
    pub margin: i32,
    /// The opener's final margin if nobody swaps.
    pub opener_margin: i32,
    /// Whether the second player should swap.
    pub swap: bool,
}

/// The pie-rule analysis of a position.
#[derive(Clone, Debug)]
pub struct PieAnalysis {
    /// Every whole first turn, best for the opener under the pie rule first.
    pub turns: Vec<PieTurn>,
    /// The opener's final margin under the pie rule with perfect play.
    pub pie_value: i32,
}

/// Every whole first turn of the side to move in `pos`, with the positions they reach.
pub fn whole_turns(solver: &dyn Oracle, pos: &Position) -> Vec<(Vec<MoveText>, Position)> {
    fn walk(
        solver: &dyn Oracle,
        pos: &Position,
        prefix: &mut Vec<MoveText>,
        out: &mut Vec<(Vec<MoveText>, Position)>,
    ) {
        let board = pos.board();
        for (pit, _) in solver.game().steps(&board) {
            let (after, step) = pos.play(solver.game(), pit);
            prefix.push(MoveText::annotated(pos.to_move, pit, &step));
            if step.next == Next::Same {
                walk(solver, &after, prefix, out);
            } else {
                out.push((prefix.clone(), after));
            }
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    if !pos.is_over(solver.game()) {
        walk(solver, pos, &mut Vec::new(), &mut out);
    }
    out
}

/// Solve every whole first turn of `pos` and the swap decision after each; `solved` hears
/// of each turn as its search ends (a turn of a large game takes minutes).
pub fn analyse(
    solver: &mut dyn Oracle,
    pos: &Position,
    mut solved: impl FnMut(&PieTurn),
) -> PieAnalysis {
    let opener = pos.to_move;
    let mut turns: Vec<PieTurn> = whole_turns(&*solver, pos)
        .into_iter()
        .map(|(moves, after)| {
            let v = solver.value(&after.board());
            let margin = score::margin(&after, v);
            let opener_margin = opener.sign() * margin;
            let turn = PieTurn {
                moves,
                margin,
                opener_margin,
                swap: opener_margin > 0,
            };
            solved(&turn);
            turn
        })
        .collect();
    turns.sort_by_key(|t| (t.opener_margin.abs(), -t.opener_margin));
    let pie_value = turns
        .iter()
        .map(|t| -t.opener_margin.abs())
        .max()
        .unwrap_or(0);
    PieAnalysis { turns, pie_value }
}
