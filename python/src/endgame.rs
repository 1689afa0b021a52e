//! The endgame table kept between solves.
//!
//! A search reads the boards with few seeds from a table built in memory before it
//! starts (`solver::Endgame`), which takes seconds to minutes to build: far longer than
//! most searches a Python program asks for one after another (every position of a game,
//! say). So the latest table built is kept, as `kalah serve` keeps it, and serves every
//! later solve of the same rules (a table of more levels than asked for gives the same
//! values). A build stopped by Ctrl-C or a time limit goes on on its own thread and is
//! kept when it ends, so the work is not lost; only the solve that asked returns at once.

use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use db_format::RulesKey;
use pyo3::PyResult;
use solver::{Endgame, Game, Probe};

use crate::errors::build_error;
use crate::watch::{cancelled, stopped};

/// The latest table built, and the rules it is of.
static LATEST: Mutex<Option<(RulesKey, Arc<Endgame>)>> = Mutex::new(None);

/// How often a solve waiting for a build looks at its cancel flag.
const POLL: Duration = Duration::from_millis(20);

/// The kept table of `key` with at least `k` levels, if there is one.
fn kept(key: &RulesKey, k: u32) -> Option<Arc<Endgame>> {
    let latest = LATEST.lock().ok()?;
    match &*latest {
        Some((held, table)) if held == key && table.max_seeds() >= k => Some(Arc::clone(table)),
        _ => None,
    }
}

/// Keep `table` of `key` unless a larger table of the same rules is kept already.
fn keep(key: RulesKey, table: &Arc<Endgame>) {
    if let Ok(mut latest) = LATEST.lock() {
        let larger_kept = matches!(&*latest,
            Some((held, t)) if *held == key && t.max_seeds() >= table.max_seeds());
        if !larger_kept {
            *latest = Some((key, Arc::clone(table)));
        }
    }
}

/// The endgame table of every board of `game` with up to `k` seeds: the kept one, or one
/// built now on a thread of its own once `may_build` allows it (the memory check: a table
/// kept needs no more memory). Stopped by `cancel` (the build then goes on and is kept
/// when done).
pub fn table(
    game: &Game,
    k: u32,
    cancel: &AtomicBool,
    may_build: impl FnOnce() -> PyResult<()>,
) -> PyResult<Arc<Endgame>> {
    let key = game.rules().db_key();
    if let Some(t) = kept(&key, k) {
        return Ok(t);
    }
    may_build()?;
    let (tx, rx) = mpsc::channel();
    let game = game.clone();
    std::thread::spawn(move || {
        let built = Endgame::build(&game, k, |_, _| {}).map(Arc::new);
        if let Ok(t) = &built {
            keep(key, t);
        }
        let _ = tx.send(built);
    });
    loop {
        match rx.recv_timeout(POLL) {
            Ok(built) => return built.map_err(build_error),
            Err(RecvTimeoutError::Timeout) if cancelled(cancel) => return Err(stopped()),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(build_error(
                    "the endgame table's build ended without a table",
                ))
            }
        }
    }
}
