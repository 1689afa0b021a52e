//! `kalah.fair_starts`: the committed lists of fair starts (`results/raw/fair/`), as the
//! library holds them (`solver::fair::committed`).

use pyo3::prelude::*;

use crate::errors::{bad_input, value_error};
use crate::position::Position;
use crate::rules::Rules;

/// fair_starts(rules) -> list[tuple[Position, int]]
///
/// Every committed fair start of `rules` (South moves first and perfect play ends level):
/// the position and the seeds moved from the start, fewest moved first. A ValueError
/// where no list is committed for these rules (`kalah fair` computes one).
#[pyfunction]
pub fn fair_starts(rules: &Rules) -> PyResult<Vec<(Position, u32)>> {
    let r = rules.resolved().map_err(bad_input)?;
    let list = solver::fair::committed::fair_starts(&r).ok_or_else(|| {
        value_error(format!(
            "no committed list of fair starts for {r}; `kalah fair` computes one"
        ))
    })?;
    Ok(list
        .entries
        .iter()
        .map(|e| {
            (
                Position {
                    pos: e.position,
                    rules: r,
                },
                e.moved,
            )
        })
        .collect())
}
