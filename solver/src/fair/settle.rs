//! Whether one start's final margin lies within `-D..=D`, at the least cost.
//!
//! Most starts are far from a draw, and one zero-window test settles them: for South to
//! move, "is the margin at least `D + 1`?" (a yes puts the start above the band) and "is
//! the margin at least `-D`?" (a no puts it below). The fail-soft bound a test returns
//! often answers the other question too. A start that passes both lies within the band;
//! with `D = 0` its margin is then 0 exactly, and only with `D > 0` is it solved (MTD(f)
//! from the bounds the tests left in the table) to print its value.

use crate::analysis::{Bound, DbOracle, Oracle};
use crate::engine::Engine;
use crate::position::{Position, Side};
use crate::score;
use crate::search::tt::EXACT;
use crate::search::{Solver, Test};

/// What is known of a start's final margin (South's store minus North's at the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The exact final margin.
    Exact(i32),
    /// A bound that puts the margin outside `-D..=D` (`nodes` 0 where it was read back
    /// from a results file).
    Outside(Bound),
}

impl Verdict {
    /// Whether the margin is known to lie within `-within..=within`.
    pub fn is_within(&self, within: u32) -> bool {
        match *self {
            Verdict::Exact(m) => m.unsigned_abs() <= within,
            Verdict::Outside(_) => false,
        }
    }
}

/// `=+0`, `>=+5`, `<=-3`: the verdict's text in a list (see [`crate::fair::list`]).
impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Exact(m) => write!(f, "={m:+}"),
            Verdict::Outside(b) => {
                write!(f, "{}{:+}", if b.at_least { ">=" } else { "<=" }, b.margin)
            }
        }
    }
}

/// What settles starts on one thread: a search sharing the transposition table of the
/// others ([`Solver::sibling`]), or, for rules that can cycle, the retrograde analysis
/// of every board in play.
pub enum Judge<'a> {
    Search(Box<Solver<'a>>),
    Table(DbOracle<'a>),
}

impl<'a> Judge<'a> {
    /// A judge for one thread, reading `engine`'s value sources (and its table).
    pub fn of(engine: &Engine<'a>) -> Judge<'a> {
        match engine {
            Engine::Search(s) => Judge::Search(Box::new(s.sibling())),
            Engine::Cyclic(o) => Judge::Table(DbOracle {
                game: o.game,
                db: o.db,
            }),
        }
    }

    /// Nodes searched so far (0 for the retrograde analysis).
    pub fn nodes(&self) -> u64 {
        match self {
            Judge::Search(s) => s.nodes,
            Judge::Table(_) => 0,
        }
    }

    /// Whether `pos`'s final margin lies within `-within..=within`, with zero-window
    /// tests (see the module docs): [`Verdict::Exact`] when it does, or when the game is
    /// over or the values are read from a table; else the bound that puts it outside.
    pub fn settle(&mut self, pos: &Position, within: u32) -> Verdict {
        let board = pos.board();
        let solver = match self {
            Judge::Table(o) => return Verdict::Exact(score::margin(pos, o.value(&board))),
            Judge::Search(s) => s,
        };
        if let Some(v) = solver.game().terminal_value(&board) {
            return Verdict::Exact(score::margin(pos, v));
        }
        let d = i32::try_from(within).unwrap_or(i32::MAX - 1);
        let seeds = board.seeds() as i32;
        // The future gains whose tests ask "margin > D?" and "margin >= -D?": a gain of at
        // least `beta` is a margin of at least `margin(beta)` for South, at most for North.
        let (above, below) = match pos.to_move {
            Side::South => (score::gain(pos, d + 1), score::gain(pos, -d)),
            Side::North => (score::gain(pos, d), score::gain(pos, -d - 1)),
        };
        for beta in [above, below] {
            let before = solver.nodes;
            let result = solver.test(&board, seeds, beta, EXACT);
            let bound = Bound::of(
                pos,
                &Test {
                    beta,
                    result,
                    nodes: solver.nodes - before,
                },
            );
            let outside = if bound.at_least {
                bound.margin > d
            } else {
                bound.margin < -d
            };
            if outside {
                return Verdict::Outside(bound);
            }
        }
        if d == 0 {
            return Verdict::Exact(0);
        }
        let guess = score::gain(pos, 0);
        Verdict::Exact(score::margin(pos, solver.mtdf(&board, guess, EXACT)))
    }
}
