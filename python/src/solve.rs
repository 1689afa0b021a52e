//! `kalah.solve` and `kalah.moves`: the exact final margin of a position and of each of its
//! moves, the numbers `kalah solve` and `kalah moves` print.
//!
//! Each runs under the watch of [`crate::watch`]: the interpreter is free while it
//! searches, and Ctrl-C or the time limit stops it without a value.

use pyo3::prelude::*;
use solver::analysis::{self, Solution as Solved};
use solver::engine::Engine;
use solver::pie;
use solver::search::DEFAULT_ID_DEPTH;

use crate::engine::backing;
use crate::errors::value_error;
use crate::options::Options;
use crate::position::Position;
use crate::watch;

/// The longest principal variation given for rules that can cycle (as `kalah solve`):
/// play that can cycle may keep its value for ever.
const CYCLIC_PV_LIMIT: usize = 200;

/// The solution of a position.
#[pyclass(frozen, get_all, module = "kalah")]
#[derive(Clone, Debug)]
pub struct Solution {
    /// The final margin under perfect play: South's store minus North's at the end.
    pub value: i32,
    /// The future net gain of the side to move (what it adds to its store from here
    /// minus what the opponent adds).
    pub gain: i32,
    /// The first move of the principal variation, None when the game is over.
    pub best_move: Option<String>,
    /// A principal variation, annotated as `kalah` writes moves (cut after 200 moves for
    /// rules that can cycle).
    pub pv: Vec<String>,
    /// "mtdf" (the search) or "retrograde" (rules that can cycle).
    pub method: String,
    /// Nodes the search visited (0 for the retrograde analysis).
    pub nodes: u64,
    /// The position solved, as a position string.
    pub position: String,
    /// Under the pie rule, the opener's final margin with the swap; None without it.
    pub pie_value: Option<i32>,
    /// Under the pie rule, every whole first turn, best for the opener first; empty
    /// without it.
    pub pie_turns: Vec<PieTurn>,
}

/// The moves of a principal variation shown in a `Solution`'s repr; the rest is counted.
const REPR_PV_MOVES: usize = 8;

#[pymethods]
impl Solution {
    /// One line: the position, its value, the best move, the principal variation's first
    /// moves and its length, the method and nodes (and the pie rule's value under it).
    /// In angle brackets: a solution is read from a solve, not built from its repr.
    fn __repr__(&self) -> String {
        let shown = self.pv.len().min(REPR_PV_MOVES);
        let mut pv = self.pv[..shown].join(" ");
        if self.pv.len() > shown {
            pv.push_str(&format!(" … {} moves", self.pv.len()));
        }
        let best = self
            .best_move
            .as_deref()
            .map_or("None".to_string(), |m| format!("'{m}'"));
        let pie = self
            .pie_value
            .map_or(String::new(), |v| format!(" pie_value={v:+}"));
        format!(
            "<Solution position='{}' value={:+} best_move={best} pv='{pv}' method='{}' \
             nodes={}{pie}>",
            self.position, self.value, self.method, self.nodes
        )
    }
}

/// One whole first turn under the pie rule.
#[pyclass(frozen, get_all, module = "kalah")]
#[derive(Clone, Debug)]
pub struct PieTurn {
    /// The turn's moves, such as "A2+ A6".
    pub moves: String,
    /// The final margin (South minus North) after the turn with perfect play, no swap.
    pub value: i32,
    /// Whether the second player swaps after it.
    pub swap: bool,
}

#[pymethods]
impl PieTurn {
    fn __repr__(&self) -> String {
        format!(
            "PieTurn(moves='{}', value={:+}, swap={})",
            self.moves,
            self.value,
            if self.swap { "True" } else { "False" }
        )
    }
}

/// One legal move and its exact value.
#[pyclass(frozen, module = "kalah")]
#[derive(Clone, Debug)]
pub struct MoveValue {
    text: String,
    value: i32,
}

#[pymethods]
impl MoveValue {
    /// The move, annotated as `kalah` writes it ("A3+", "B5x9#").
    #[getter(r#move)]
    fn get_move(&self) -> &str {
        &self.text
    }

    /// The final margin (South minus North) if this move is played, then perfect play.
    #[getter]
    fn value(&self) -> i32 {
        self.value
    }

    fn __repr__(&self) -> String {
        format!("MoveValue(move='{}', value={:+})", self.text, self.value)
    }
}

/// The solution of `pos`, found on this thread, stopped by `cancel`.
fn solve_now(pos: &Position, opts: &Options, cancel: watch::Cancel) -> PyResult<Solution> {
    let (back, table) = backing(pos, opts, &cancel)?;
    let mut engine = back.engine(table)?;
    let found = match &mut engine {
        Engine::Search(s) => analysis::solve(s, &pos.pos, DEFAULT_ID_DEPTH, |_| {}),
        Engine::Cyclic(o) => analysis::solve_by_oracle(o, &pos.pos, CYCLIC_PV_LIMIT),
    };
    let solved: Solved = back.checked(found, pos, &cancel)?;
    let analysis = pos
        .rules
        .pie
        .then(|| pie::analyse(engine.oracle(), &pos.pos, |_| {}));
    back.checked(Ok(()), pos, &cancel)?;
    let nodes = match &engine {
        Engine::Search(s) => s.nodes,
        Engine::Cyclic(_) => 0,
    };
    let pv: Vec<String> = solved.pv.iter().map(|m| m.to_string()).collect();
    Ok(Solution {
        value: solved.margin,
        gain: solved.value,
        best_move: pv.first().cloned(),
        pv,
        method: engine.method().name().to_string(),
        nodes,
        position: pos.pos.to_string(),
        pie_value: analysis.as_ref().map(|a| a.pie_value),
        pie_turns: analysis
            .iter()
            .flat_map(|a| &a.turns)
            .map(|t| PieTurn {
                moves: t
                    .moves
                    .iter()
                    .map(|m| m.to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
                value: t.margin,
                swap: t.swap,
            })
            .collect(),
    })
}

/// The value of every legal move of `pos`, best first, found on this thread.
fn moves_now(pos: &Position, opts: &Options, cancel: watch::Cancel) -> PyResult<Vec<MoveValue>> {
    let (back, table) = backing(pos, opts, &cancel)?;
    let mut engine = back.engine(table)?;
    let margins = analysis::move_margins(engine.oracle(), &pos.pos, |_| {});
    back.checked(Ok(()), pos, &cancel)?;
    Ok(margins
        .iter()
        .map(|m| MoveValue {
            text: m.text.to_string(),
            value: m.margin,
        })
        .collect())
}

/// solve(position, *, db=None, tt_mb=64, threads=None, endgame="auto", timeout=None) -> Solution
///
/// The exact solution of a position (a `Position`, or a position string read with the
/// default rules on its board size): `.value`, the final margin (South minus North),
/// `.best_move` and `.pv`. The numbers are `kalah solve`'s. Options as `kalah solve`'s:
/// `db`, a database directory or `kalah.Database` to probe; `tt_mb`, the transposition
/// table's MiB; `threads`, search threads (default: all cores); `endgame`, the endgame
/// table built in memory ("auto", "none" or a number of seeds; the latest one is kept for
/// later solves of the same rules). The search runs with the interpreter released;
/// Ctrl-C raises KeyboardInterrupt and `timeout` seconds raise TimeoutError, never a
/// partial value.
#[pyfunction]
#[pyo3(signature = (position, *, db=None, tt_mb=None, threads=None, endgame=None, timeout=None),
    text_signature = "(position, *, db=None, tt_mb=64, threads=None, endgame='auto', timeout=None)")]
pub fn solve(
    py: Python<'_>,
    position: &Bound<'_, PyAny>,
    db: Option<&Bound<'_, PyAny>>,
    tt_mb: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
    endgame: Option<&Bound<'_, PyAny>>,
    timeout: Option<f64>,
) -> PyResult<Solution> {
    let pos = Position::from_arg(position, None)?;
    let opts = Options::parse(db, tt_mb, threads, endgame, timeout)?;
    watch::run(py, opts.timeout, |cancel| solve_now(&pos, &opts, cancel))
}

/// moves(position, *, db=None, tt_mb=64, threads=None, endgame="auto", timeout=None) -> list[MoveValue]
///
/// The exact value of every legal move of a position, best first for the side to move
/// (ties in pit order): each `.move` (annotated) and `.value`, the final margin (South
/// minus North) after it and perfect play; empty when the game is over. The numbers are
/// `kalah moves`'s; options, Ctrl-C and `timeout` as for `solve`. Rules with the pie rule
/// are refused, as `kalah moves` refuses them.
#[pyfunction]
#[pyo3(signature = (position, *, db=None, tt_mb=None, threads=None, endgame=None, timeout=None),
    text_signature = "(position, *, db=None, tt_mb=64, threads=None, endgame='auto', timeout=None)")]
pub fn moves(
    py: Python<'_>,
    position: &Bound<'_, PyAny>,
    db: Option<&Bound<'_, PyAny>>,
    tt_mb: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
    endgame: Option<&Bound<'_, PyAny>>,
    timeout: Option<f64>,
) -> PyResult<Vec<MoveValue>> {
    let pos = Position::from_arg(position, None)?;
    if pos.rules.pie {
        return Err(value_error(
            "pie: kalah.moves does not use the pie rule (kalah.solve analyses the swap); \
             use rules without it",
        ));
    }
    let opts = Options::parse(db, tt_mb, threads, endgame, timeout)?;
    watch::run(py, opts.timeout, |cancel| moves_now(&pos, &opts, cancel))
}
