//! The watch over a long computation: it runs on a thread of its own, the interpreter
//! free meanwhile, while the calling thread looks for Ctrl-C and the time limit.
//!
//! Invariant: a computation either finishes on its own and its result is returned, or is
//! stopped through its cancel flag and nothing it produced is returned: the caller gets
//! the `KeyboardInterrupt` (or whatever the signal handler raised) or a `TimeoutError`.
//! The computation checks the flag itself (the solver's [`solver::Solver::with_cancel`],
//! between levels of a build) and returns promptly once it is set.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyRuntimeError, PyTimeoutError};
use pyo3::prelude::*;

/// How often the calling thread looks for a signal or the end of the time limit: a
/// Ctrl-C is answered within about this long, plus the time the computation takes to
/// unwind.
const POLL: Duration = Duration::from_millis(50);

/// The flag a computation is stopped by.
pub type Cancel = Arc<AtomicBool>;

/// Whether `cancel` is set.
pub fn cancelled(cancel: &AtomicBool) -> bool {
    cancel.load(Ordering::Relaxed)
}

/// The error a computation returns when it stopped on its flag; never reaches Python (the
/// watch raises the reason it set the flag instead).
pub fn stopped() -> PyErr {
    PyRuntimeError::new_err("the computation was stopped")
}

/// Run `job` on a thread of its own with the interpreter released, stopping it through
/// its flag on a signal (the signal handler's exception, `KeyboardInterrupt` for Ctrl-C,
/// is raised) or once `timeout` has passed (`TimeoutError`).
pub fn run<T: Send>(
    py: Python<'_>,
    timeout: Option<Duration>,
    job: impl FnOnce(Cancel) -> PyResult<T> + Send,
) -> PyResult<T> {
    let cancel: Cancel = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    std::thread::scope(|scope| {
        let (tx, mut rx) = mpsc::channel();
        let flag = Arc::clone(&cancel);
        scope.spawn(move || {
            let _ = tx.send(job(flag));
        });
        loop {
            let (back, got) = py.detach(move || {
                let got = rx.recv_timeout(POLL);
                (rx, got)
            });
            rx = back;
            let why = match got {
                Ok(result) => return result,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err(
                        "the computation's thread ended without a result",
                    ))
                }
                Err(RecvTimeoutError::Timeout) => match py.check_signals() {
                    Err(signal) => signal,
                    Ok(()) => match timeout {
                        Some(limit) if start.elapsed() >= limit => {
                            PyTimeoutError::new_err(format!(
                                "stopped after the time limit of {} s: no value was found",
                                limit.as_secs_f64()
                            ))
                        }
                        _ => continue,
                    },
                },
            };
            // Stop the computation and wait for it to unwind (the interpreter free):
            // whatever it returns now is dropped.
            cancel.store(true, Ordering::Relaxed);
            py.detach(move || {
                let _ = rx.recv();
            });
            return Err(why);
        }
    })
}
