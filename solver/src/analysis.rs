//! Final margins of whole positions: the solver's values turned into what players read.
//!
//! Every figure here is a *final margin*, South's store minus North's at the very end of
//! perfect play, stores included; it never changes sign with the side to move. It is the
//! store margin of the position plus the side to move's future net gain
//! ([`crate::search`]) signed for that side.

use crate::board::Board;
use crate::game::{Game, Next, Step};
use crate::notation::MoveText;
use crate::position::{Position, Side};
use crate::probe::Probe;
use crate::score;
use crate::search::{Event, Iteration, SolveError, Solver, Test};

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
    /// The exact search's zero-window tests, as bounds on the final margin, in order (empty
    /// when no search ran: a database or the retrograde analysis answered).
    pub proof: Vec<Bound>,
}

/// What one zero-window test of the exact search proved about the final margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The final margin is at least `margin` (South can force it), else at most `margin`
    /// (North can hold South to it).
    pub at_least: bool,
    pub margin: i32,
    /// Nodes the test visited.
    pub nodes: u64,
}

impl Bound {
    /// The bound on the final margin that `test` of the root of `pos` proved. A bound on
    /// the side to move's future gain is one on the margin, reversed when North moves.
    pub fn of(pos: &Position, test: &Test) -> Bound {
        Bound {
            at_least: test.is_lower() == (pos.to_move.sign() > 0),
            margin: score::margin(pos, test.result),
            nodes: test.nodes,
        }
    }

    /// The bound on the final margin that a test of the root of `pos` against `beta` asks
    /// about ("is the side to move's gain at least `beta`?"), which a yes proves: for
    /// South to move "margin >= m", for North "margin <= m". `nodes` is 0.
    pub fn question(pos: &Position, beta: i32) -> Bound {
        Bound {
            at_least: pos.to_move.sign() > 0,
            margin: score::margin(pos, beta),
            nodes: 0,
        }
    }
}

/// `margin >= +8` or `margin <= -2`.
impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = if self.at_least { ">=" } else { "<=" };
        write!(f, "margin {op} {:+}", self.margin)
    }
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

/// Anything that knows the exact value of a board: the search, or a complete database.
pub trait Oracle {
    fn game(&self) -> &Game;

    /// The exact value of `board` (future net gain for the side to move; the board may be
    /// terminal).
    fn value(&mut self, board: &Board) -> i32;

    /// The mover's exact value through the move `step`.
    fn move_value(&mut self, step: &Step) -> i32 {
        let child = match step.next {
            Next::Over => 0,
            _ => self.value(&step.board),
        };
        step.value_through(child)
    }

    /// The value of every legal move of a non-terminal `board`, in pit order.
    fn move_values(&mut self, board: &Board) -> Vec<(usize, Step, i32)> {
        let steps: Vec<(usize, Step)> = self.game().steps(board).collect();
        steps
            .into_iter()
            .map(|(pit, step)| (pit, step, self.move_value(&step)))
            .collect()
    }

    /// A principal variation from `board`, whose value is `value`, at most `limit` moves
    /// long (play that can cycle may keep its value for ever). [`SolveError::Contradiction`]
    /// when no move keeps the value (a damaged database).
    fn principal_variation(
        &mut self,
        board: &Board,
        value: i32,
        limit: usize,
    ) -> Result<Vec<(usize, Step)>, SolveError> {
        use std::ops::ControlFlow;
        crate::search::walk_variation(board, value, limit, |board, value| {
            if self.game().terminal_value(board).is_some() {
                return ControlFlow::Break(());
            }
            let kept = self
                .move_values(board)
                .into_iter()
                .find(|&(_, _, v)| v == value);
            ControlFlow::Continue(kept.map(|(pit, step, _)| (pit, step)))
        })
    }
}

impl Oracle for Solver<'_> {
    fn game(&self) -> &Game {
        Solver::game(self)
    }

    fn value(&mut self, board: &Board) -> i32 {
        Solver::value(self, board)
    }

    fn principal_variation(
        &mut self,
        board: &Board,
        value: i32,
        _limit: usize,
    ) -> Result<Vec<(usize, Step)>, SolveError> {
        // Counter-clockwise play ends, so the variation is finite.
        Solver::principal_variation(self, board, value)
    }
}

/// A database that covers every board of interest (for example all levels up to the
/// seeds in play, built by retrograde analysis for rules that can cycle).
pub struct DbOracle<'a> {
    pub game: &'a Game,
    pub db: &'a dyn Probe,
}

impl Oracle for DbOracle<'_> {
    fn game(&self) -> &Game {
        self.game
    }

    fn value(&mut self, board: &Board) -> i32 {
        // Invariant: the database was built for every level up to the seeds in play, so
        // a board is missing only when its value was found damaged; the database recorded
        // that, and the caller reports it instead of any value computed from this one.
        self.db.value(board).unwrap_or_else(|| {
            assert!(self.db.damaged(), "the database covers every board in play");
            0
        })
    }
}

/// The solution of `pos` read from a complete database (see [`DbOracle`]); the principal
/// variation stops after `limit` moves.
pub fn solve_by_oracle(
    oracle: &mut dyn Oracle,
    pos: &Position,
    limit: usize,
) -> Result<Solution, SolveError> {
    let board = pos.board();
    let value = oracle.value(&board);
    let pv = notate(
        pos.to_move,
        oracle.principal_variation(&board, value, limit)?,
    );
    Ok(Solution {
        margin: score::margin(pos, value),
        value,
        pv,
        iterations: Vec::new(),
        proof: Vec::new(),
    })
}

/// Solve `pos` exactly by iterative deepening up to `max_depth`, on the solver's threads
/// (see [`Solver::with_threads`]). `events` hears of each test and iteration (see
/// [`Solver::solve`]; [`Bound::question`] and [`Bound::of`] put a test's bounds as final
/// margins).
pub fn solve(
    solver: &mut Solver<'_>,
    pos: &Position,
    max_depth: u8,
    mut events: impl FnMut(&Event),
) -> Result<Solution, SolveError> {
    let board = pos.board();
    let mut iterations = Vec::new();
    let value = solver.solve(&board, max_depth, |e| {
        if let Event::Iteration(it) = e {
            iterations.push(*it);
        }
        events(e)
    });
    let proof = solver.tests.iter().map(|t| Bound::of(pos, t)).collect();
    let pv = notate(pos.to_move, solver.principal_variation(&board, value)?);
    Ok(Solution {
        margin: score::margin(pos, value),
        value,
        pv,
        iterations,
        proof,
    })
}

/// The final margin after each legal move of `pos`, best first for the side to move.
/// `solved` hears of each move as its search ends (in pit order): a search of a large
/// board takes minutes a move.
pub fn move_margins(
    solver: &mut dyn Oracle,
    pos: &Position,
    mut solved: impl FnMut(&MoveMargin),
) -> Vec<MoveMargin> {
    if pos.is_over(solver.game()) {
        return Vec::new();
    }
    let steps: Vec<(usize, Step)> = solver.game().steps(&pos.board()).collect();
    let mut out: Vec<MoveMargin> = steps
        .into_iter()
        .map(|(pit, step)| {
            let m = MoveMargin {
                text: MoveText::annotated(pos.to_move, pit, &step),
                margin: score::margin(pos, solver.move_value(&step)),
            };
            solved(&m);
            m
        })
        .collect();
    let sign = pos.to_move.sign();
    out.sort_by_key(|m| (-sign * m.margin, m.text.pit));
    out
}
