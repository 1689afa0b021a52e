//! A solve from Python: the options mapped onto the library's plan (`solver::plan`), as
//! `kalah solve` maps its own, so the values, the choices (endgame table, retrograde
//! analysis, database) and the refusals are `kalah solve`'s, the refusals worded with the
//! module's option names.
//!
//! The latest endgame table built is kept between solves ([`solver::plan::Keeper`]), as
//! `kalah serve` keeps it: a Python program often solves one position after another. Every
//! step that can take long looks at the cancel flag: the search, the retrograde analysis
//! between its levels, and the wait for an endgame table's build (which goes on and is
//! kept).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, LazyLock};

use pyo3::{PyErr, PyResult};
use solver::budget::{Refused, Spelling};
use solver::engine::{Engine, Settings};
use solver::plan::{Keeper, Plan, PlanError, Request};
use solver::search::tt::Table;
use solver::SolveError;

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
    limit: "",
};

/// The endgame table kept between solves.
static KEPT: LazyLock<Arc<Keeper>> = LazyLock::new(|| Arc::new(Keeper::new()));

/// A plan's refusal or failure as the Python exception `kalah` would give.
fn plan_error(e: PlanError) -> PyErr {
    match e {
        PlanError::Refused(r) => value_error(r.message(&SPELLING)),
        PlanError::Solve(e) => solve_error(e),
        PlanError::Stopped => stopped(),
        PlanError::Damaged(e) => db_error(e),
        e @ (PlanError::Endgame(_) | PlanError::Retrograde(_) | PlanError::BuildLost) => {
            build_error(e)
        }
        e @ PlanError::Contradiction { .. } => db_error(e),
    }
}

/// The value sources of a solve, opened, and the database's directory for messages.
pub struct Backing {
    back: solver::plan::Backing,
    dir: Option<PathBuf>,
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

/// The backing and the transposition table of a solve of `pos` with `opts`, stopped by
/// `cancel`. The table is allocated first, so that it is faulted in while an endgame
/// table is built.
pub fn backing(
    pos: &Position,
    opts: &Options,
    cancel: &Cancel,
) -> PyResult<(Backing, Option<Table>)> {
    let db = opts.db.as_ref().map(|d| database(d, pos)).transpose()?;
    let (db, dir) = db.unzip();
    let request = Request {
        db,
        endgame: opts.endgame,
        settings: Settings {
            threads: opts.threads,
            ..Settings::default()
        },
        cancel: Some(Arc::clone(cancel)),
        ..Request::new(pos.rules, pos.pos.board_seeds(), opts.tt_mb)
    };
    let plan = Plan::new(request).map_err(|r: Refused| value_error(r.message(&SPELLING)))?;
    let table = plan.table().map_err(plan_error)?;
    let back = solver::plan::Backing::open(plan, Some(&KEPT), |_| {}).map_err(plan_error)?;
    Ok((Backing { back, dir }, table))
}

impl Backing {
    /// The engine of the plan on `table`.
    pub fn engine(&self, table: Option<Table>) -> PyResult<Engine<'_>> {
        self.back.engine(table, None).map_err(plan_error)
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
        self.back.checked(found).map_err(|e| match e {
            PlanError::Contradiction { source, finding } => db_error(format!(
                "{}: the database contradicts itself solving {}: {source}; {finding}",
                self.dir.as_deref().unwrap_or_else(|| "".as_ref()).display(),
                pos.pos
            )),
            e => plan_error(e),
        })
    }
}
