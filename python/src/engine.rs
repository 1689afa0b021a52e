//! The value source of a solve from Python, assembled from the library's pieces as
//! `kalah solve` assembles them (`solver::engine`): a transposition table sized for the
//! position and checked against the memory available, the database and the endgame
//! table under the same rules as `--db` and `--endgame`, or, for rules that can cycle,
//! the retrograde analysis of every board up to the seeds in play. The values are
//! therefore `kalah solve`'s and `kalah moves`'s.
//!
//! Every step that can take long looks at the cancel flag: the search through
//! `solver::Solver::with_cancel`, the retrograde analysis between its levels, the endgame
//! table's build while it waits for it ([`crate::endgame`]).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use pyo3::{PyErr, PyResult};
use solver::budget::{check_endgame, endgame_level, Refused, Retrograde, Spelling};
use solver::engine::{Engine, Method, Settings, Sources};
use solver::gen::cyclic::build_level_cyclic;
use solver::search::tt::Table;
use solver::search::DEFAULT_ID_DEPTH;
use solver::{Endgame, Game, MemoryDb, Probe, SolveError};

use crate::database::open_dir;
use crate::errors::{build_error, db_error, solve_error, value_error};
use crate::options::{DbArg, Options};
use crate::position::Position;
use crate::watch::{cancelled, stopped, Cancel};

/// The Python module's spelling of the options a [`Refused`] names.
const SPELLING: Spelling = Spelling {
    endgame: "endgame",
    endgame_sep: "=",
    tt_mb: "tt_mb ",
};

/// A request refused before anything was allocated, in `kalah`'s words with the module's
/// option names.
fn refused(r: Refused) -> PyErr {
    value_error(r.message(&SPELLING))
}

/// What an engine borrows, built before the search: the game, the database (with its
/// directory, for messages), the endgame table and the retrograde analysis.
pub struct Backing {
    game: Game,
    db: Option<(Arc<solver::Database>, PathBuf)>,
    endgame: Option<Arc<Endgame>>,
    memory: Option<MemoryDb>,
}

/// The transposition table of a search of `pos`, refused with `kalah`'s message when it is
/// larger than the memory available; none for rules that can cycle.
fn transposition_table(pos: &Position, max_mb: usize) -> PyResult<Option<Table>> {
    let rules = &pos.rules;
    let seeds = pos.pos.board_seeds();
    solver::budget::check_table(rules, seeds, max_mb).map_err(refused)?;
    solver::engine::transposition_table(rules, seeds, max_mb).map_err(solve_error)
}

/// The database of `arg` for `pos`'s rules.
fn database(arg: &DbArg, pos: &Position) -> PyResult<(Arc<solver::Database>, PathBuf)> {
    match arg {
        DbArg::Path(dir) => Ok((open_dir(dir, &pos.rules)?, dir.clone())),
        DbArg::Open(db, dir) if *db.rules() == pos.rules.db_key() => {
            Ok((Arc::clone(db), dir.clone()))
        }
        DbArg::Open(db, dir) => Err(value_error(format!(
            "no database for these rules in {}: it holds [{}], the position is of [{}]",
            dir.display(),
            db.rules(),
            pos.rules.db_key()
        ))),
    }
}

/// Every level up to `pos`'s seeds of rules that can cycle, built in memory, refused as
/// `kalah solve` refuses it when it would not fit; stopped between levels by `cancel`.
fn retrograde(game: &Game, pos: &Position, cancel: &AtomicBool) -> PyResult<MemoryDb> {
    let seeds = pos.pos.board_seeds();
    Retrograde::check(game.pits(), seeds).map_err(refused)?;
    let mut memory = MemoryDb::new(game.pits());
    for k in 0..=seeds {
        if cancelled(cancel) {
            return Err(stopped());
        }
        let level = build_level_cyclic(game, k, &memory, &|_| {}).map_err(build_error)?;
        memory.push(level).map_err(build_error)?;
    }
    Ok(memory)
}

/// The backing and the transposition table of a solve of `pos` with `opts`.
pub fn backing(
    pos: &Position,
    opts: &Options,
    cancel: &AtomicBool,
) -> PyResult<(Backing, Option<Table>)> {
    let game = pos.game();
    let table = transposition_table(pos, opts.tt_mb)?;
    let db = opts.db.as_ref().map(|d| database(d, pos)).transpose()?;
    let memory = match Method::for_rules(&pos.rules) {
        Method::Cyclic => Some(retrograde(&game, pos, cancel)?),
        Method::Search => None,
    };
    let level =
        endgame_level(&game, pos.pos.board_seeds(), opts.endgame, db.is_some()).map_err(refused)?;
    let endgame = level
        .map(|k| {
            crate::endgame::table(&game, k, cancel, || {
                check_endgame(game.pits(), k).map_err(refused)
            })
        })
        .transpose()?;
    Ok((
        Backing {
            game,
            db,
            endgame,
            memory,
        },
        table,
    ))
}

impl Backing {
    /// The engine of `solver::engine` on these sources and `table`, with `opts`' threads,
    /// stopped by `cancel`.
    pub fn engine(
        &self,
        table: Option<Table>,
        opts: &Options,
        cancel: &Cancel,
    ) -> PyResult<Engine<'_>> {
        let sources = Sources {
            db: self.db.as_ref().map(|(db, _)| &**db as &dyn Probe),
            endgame: self.endgame.as_deref(),
            cyclic: self.memory.as_ref(),
        };
        let settings = Settings {
            threads: opts.threads,
            id_depth: DEFAULT_ID_DEPTH,
            split_seeds: None,
            guess: None,
        };
        Ok(
            match Engine::new(&self.game, sources, table, &settings).map_err(solve_error)? {
                Engine::Search(s) => Engine::Search(Box::new(s.with_cancel(Arc::clone(cancel)))),
                cyclic => cyclic,
            },
        )
    }

    /// What a solve on this backing found, checked as `kalah solve` checks it: stopped
    /// searches are dropped; a value read from the database out of its range, or values
    /// read that contradict each other, raise `DatabaseError` naming the damaged file.
    pub fn checked<T>(
        &self,
        found: Result<T, SolveError>,
        pos: &Position,
        cancel: &AtomicBool,
    ) -> PyResult<T> {
        if cancelled(cancel) {
            return Err(stopped());
        }
        if let Some((db, _)) = &self.db {
            db.check().map_err(db_error)?;
        }
        match (found, &self.db) {
            (Err(e @ SolveError::Contradiction { .. }), Some((db, dir))) => {
                let finding = match db.find_damage() {
                    Err(damage) => format!("the damage: {damage}"),
                    Ok(()) => "every level file's checksum and value range hold, so the \
                               files were built wrong: rebuild the database"
                        .to_string(),
                };
                Err(db_error(format!(
                    "{}: the database contradicts itself solving {}: {e}; {finding}",
                    dir.display(),
                    pos.pos
                )))
            }
            (found, _) => found.map_err(solve_error),
        }
    }
}
