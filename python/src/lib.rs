//! The `kalah` Python module (its Rust part, `kalah._kalah`): rules, positions, exact
//! solves and endgame databases, with the numbers and the messages of the `kalah` command.
//!
//! One file a noun: `rules` (`Rules`), `position` (`Position`), `options` (the options of
//! a solve), `engine` (the value source of a solve), `endgame` (the endgame table kept
//! between solves), `watch` (Ctrl-C and time limits), `solve` (`solve`, `moves` and their
//! results), `database` (`Database`), `probe` (`Probe`, `Probes`), `fair`
//! (`fair_starts`), `errors` (the exceptions).

use pyo3::prelude::*;

mod database;
mod engine;
mod errors;
mod fair;
mod options;
mod position;
mod probe;
mod rules;
mod solve;
mod watch;

#[pymodule]
fn _kalah(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<rules::Rules>()?;
    m.add_class::<position::Position>()?;
    m.add_class::<solve::Solution>()?;
    m.add_class::<solve::MoveValue>()?;
    m.add_class::<solve::PieTurn>()?;
    m.add_class::<database::Database>()?;
    m.add_class::<probe::Probe>()?;
    m.add_class::<probe::Probes>()?;
    m.add_function(wrap_pyfunction!(solve::solve, m)?)?;
    m.add_function(wrap_pyfunction!(solve::moves, m)?)?;
    m.add_function(wrap_pyfunction!(fair::fair_starts, m)?)?;
    m.add("DatabaseError", m.py().get_type::<errors::DatabaseError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
