//! The Python exceptions the module raises, and the one place library errors become them.
//!
//! Bad input (rules, positions, moves, options, a position a database does not cover) is
//! a `ValueError`; a database file or directory that cannot be used is a
//! [`DatabaseError`] (an `OSError`) naming the file; a missing directory is a
//! `FileNotFoundError`. Each carries the message `kalah` prints for the same mistake, so
//! the command line and Python read the same.

use pyo3::exceptions::{PyMemoryError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::{create_exception, PyErr};

create_exception!(
    kalah,
    DatabaseError,
    PyOSError,
    "A database file or directory that cannot be used: damaged, truncated, of other rules, \
     or contradicting itself. The message names the file, as `kalah db probe` and \
     `kalah db verify` report it."
);

/// A `ValueError` carrying `msg`.
pub fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// Anything with the library's message, as a `ValueError` (bad input).
pub fn bad_input(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A database error as [`DatabaseError`]: its message names the file.
pub fn db_error(e: impl std::fmt::Display) -> PyErr {
    DatabaseError::new_err(e.to_string())
}

/// A search refused or failed: a table that cannot be allocated is a `MemoryError`, rules
/// the search cannot take are bad input, anything else a `RuntimeError`.
pub fn solve_error(e: solver::SolveError) -> PyErr {
    match e {
        solver::SolveError::Table(..) => PyMemoryError::new_err(e.to_string()),
        solver::SolveError::Cyclic => PyValueError::new_err(e.to_string()),
        other => PyRuntimeError::new_err(other.to_string()),
    }
}

/// A build of levels in memory (an endgame table, a retrograde analysis) that failed.
pub fn build_error(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}
