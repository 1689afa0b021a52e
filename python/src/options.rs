//! The options of a solve from Python (`db`, `tt_mb`, `threads`, `endgame`, `timeout`),
//! validated as `kalah solve` validates its `--db`, `--tt-mb`, `--threads` and
//! `--endgame`, with the same messages (the option named as Python's keyword).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString};
use solver::budget::EndgameChoice;

use crate::database::Database;
use crate::errors::value_error;

/// `--threads` may ask for at most this many threads per core (as `kalah`).
const THREADS_PER_CORE: usize = 4;

/// Where a solve reads a database from.
#[derive(Clone)]
pub enum DbArg {
    /// A directory, opened for the position's rules.
    Path(PathBuf),
    /// A `kalah.Database` already open: its rules must be the position's.
    Open(Arc<solver::Database>, PathBuf),
}

/// Everything a solve is told besides the position.
#[derive(Clone)]
pub struct Options {
    pub db: Option<DbArg>,
    pub tt_mb: usize,
    pub threads: usize,
    pub endgame: EndgameChoice,
    pub timeout: Option<Duration>,
}

/// The machine's cores (1 where the system cannot say): the default `threads`, as
/// `kalah`'s.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// A whole number argument as text, for the messages that refuse it.
fn text_of(arg: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(arg.str()?.to_cow()?.into_owned())
}

impl Options {
    /// The options of `kalah.solve` and `kalah.moves`, each refused with `kalah`'s message.
    pub fn parse(
        db: Option<&Bound<'_, PyAny>>,
        tt_mb: Option<&Bound<'_, PyAny>>,
        threads: Option<&Bound<'_, PyAny>>,
        endgame: Option<&Bound<'_, PyAny>>,
        timeout: Option<f64>,
    ) -> PyResult<Options> {
        Ok(Options {
            db: db.map(db_arg).transpose()?,
            tt_mb: tt_mb
                .map(parse_tt_mb)
                .transpose()?
                .unwrap_or(solver::search::tt::DEFAULT_MB),
            threads: threads
                .map(parse_threads)
                .transpose()?
                .unwrap_or_else(all_cores),
            endgame: endgame
                .map(parse_endgame)
                .transpose()?
                .unwrap_or(EndgameChoice::Auto),
            timeout: timeout.map(parse_timeout).transpose()?,
        })
    }
}

fn db_arg(arg: &Bound<'_, PyAny>) -> PyResult<DbArg> {
    if let Ok(d) = arg.cast::<Database>() {
        let d = d.get();
        return Ok(DbArg::Open(Arc::clone(&d.db), d.dir.clone()));
    }
    Ok(DbArg::Path(arg.extract::<PathBuf>()?))
}

/// A `tt_mb` value: a whole number of MiB from 1.
fn parse_tt_mb(arg: &Bound<'_, PyAny>) -> PyResult<usize> {
    if !arg.is_instance_of::<PyInt>() {
        return Err(value_error(format!(
            "tt_mb: '{}' is not a size in MiB (a whole number from 1)",
            text_of(arg)?
        )));
    }
    match arg.extract::<i64>().ok().map(usize::try_from) {
        Some(Ok(0)) => Err(value_error(
            "tt_mb: a transposition table of 0 MiB cannot hold a search: give at least 1",
        )),
        Some(Ok(n)) => Ok(n),
        _ => Err(value_error(format!(
            "tt_mb: '{}' is not a size in MiB (a whole number from 1)",
            text_of(arg)?
        ))),
    }
}

/// A `threads` value: a whole number from 1 to [`THREADS_PER_CORE`] times the cores.
fn parse_threads(arg: &Bound<'_, PyAny>) -> PyResult<usize> {
    let max = THREADS_PER_CORE * all_cores();
    let n = arg
        .is_instance_of::<PyInt>()
        .then(|| arg.extract::<i64>().ok())
        .flatten();
    match n {
        Some(n) if (1..=max as i64).contains(&n) => Ok(n as usize),
        Some(0) => Err(value_error(format!(
            "threads: '0' is not a thread count: 0 threads cannot run anything (give a whole \
             number from 1 to {max})"
        ))),
        Some(n) if n > 0 => Err(value_error(format!(
            "threads: {n} threads is more than {THREADS_PER_CORE} per core of this machine's \
             {} (at most {max}): more threads than that only slow the work down",
            all_cores()
        ))),
        _ => Err(value_error(format!(
            "threads: '{}' is not a thread count (a whole number from 1 to {max})",
            text_of(arg)?
        ))),
    }
}

/// An `endgame` value: "auto", "none" or a number of seeds.
fn parse_endgame(arg: &Bound<'_, PyAny>) -> PyResult<EndgameChoice> {
    if let Ok(s) = arg.cast::<PyString>() {
        match &*s.to_cow()? {
            "auto" => return Ok(EndgameChoice::Auto),
            "none" => return Ok(EndgameChoice::Off),
            _ => {}
        }
    } else if arg.is_instance_of::<PyInt>() {
        if let Ok(k) = arg.extract::<u32>() {
            return Ok(EndgameChoice::Level(k));
        }
    }
    Err(value_error(format!(
        "endgame: expected a number of seeds, 'auto' or 'none', not '{}'",
        text_of(arg)?
    )))
}

/// A `timeout`: a positive, finite number of seconds.
fn parse_timeout(seconds: f64) -> PyResult<Duration> {
    if seconds.is_finite() && seconds > 0.0 {
        Duration::try_from_secs_f64(seconds).map_err(|e| value_error(format!("timeout: {e}")))
    } else {
        Err(value_error(format!(
            "timeout: {seconds} is not a time limit (a positive number of seconds, or None)"
        )))
    }
}
