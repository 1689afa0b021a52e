//! `kalah`'s side of a solve's set-up: the options mapped onto a [`solver::plan`]
//! request, the database directory checked and opened, the plan's steps shown as
//! progress and its refusals and errors worded with `kalah`'s option names.

use std::path::Path;
use std::sync::Arc;

use solver::budget::{Refused, Spelling};
use solver::dbfile::Database;
use solver::plan::{Backing, Plan, PlanError, Request};
use solver::search::tt::Table;
use solver::{Position, Rules};

use crate::args::SearchArgs;
use crate::error::{CliError, DbCmdError};
use crate::progress::Progress;

/// `kalah`'s spelling of the options a [`Refused`] names.
const SPELLING: Spelling = Spelling {
    endgame: "--endgame",
    endgame_sep: " ",
    tt_mb: "--tt-mb ",
    limit: "--endgame-mb",
};

/// A request refused before anything was allocated, in `kalah`'s words.
pub fn refused(r: Refused) -> CliError {
    CliError::BadOption(r.message(&SPELLING))
}

/// A plan's error in `kalah`'s words. A contradiction is worded by [`checked`], which
/// knows the directory and the position.
pub fn plan_error(e: PlanError) -> CliError {
    match e {
        PlanError::Refused(r) => refused(r),
        PlanError::Solve(e) => CliError::Solve(e),
        PlanError::Endgame(e) => CliError::Gen(e),
        PlanError::Retrograde(e) => CliError::Cyclic(e),
        PlanError::Damaged(e) => CliError::Db(DbCmdError::from(e)),
        other => CliError::Plan(other),
    }
}

/// The transposition table of a search of `rules` from boards of up to `seeds` seeds
/// ([`solver::plan::table`]), refused with the figures when it does not fit.
pub fn transposition_table(
    rules: &Rules,
    seeds: u32,
    max_mb: usize,
) -> Result<Option<Table>, CliError> {
    solver::plan::table(rules, seeds, max_mb).map_err(plan_error)
}

/// A search's set-up: its transposition table ([`transposition_table`]), refused before
/// any value source is opened or built when it does not fit, then the value sources
/// ([`backing`]).
pub fn table_and_backing(
    rules: Rules,
    seeds: u32,
    search: &SearchArgs,
    search_only: bool,
    progress: &Progress,
) -> Result<(Option<Table>, Backing), CliError> {
    let table = transposition_table(&rules, seeds, search.tt_mb)?;
    let back = backing(rules, seeds, search, search_only, progress)?;
    Ok((table, back))
}

/// `--db DIR` checked before any level is looked for in it: a missing path, a link to
/// one, a path through a file, a file and an unreadable directory each get their own
/// message (not "level 0 is missing").
pub fn check_db_dir(dir: &Path) -> Result<(), CliError> {
    check_dir(dir, "--db ")
}

/// A database directory that a command reads checked before it is read, as
/// [`check_db_dir`] checks `--db`, with the same messages and exit status (bad input):
/// `named` is how the command line names it, `--db `, `--dir ` or nothing for an operand,
/// written before the path.
pub fn check_dir(dir: &Path, named: &str) -> Result<(), CliError> {
    use std::io::ErrorKind;
    let why = match std::fs::metadata(dir) {
        Err(e) if e.kind() == ErrorKind::NotFound => match std::fs::symlink_metadata(dir) {
            Ok(_) => "a symbolic link to a path that does not exist".to_string(),
            Err(_) => "no such directory".to_string(),
        },
        Err(e) if e.kind() == ErrorKind::NotADirectory => {
            "a part of the path before the last is a file, not a directory".to_string()
        }
        Err(e) => format!("cannot reach it: {e}"),
        Ok(m) if !m.is_dir() => {
            "not a directory (give the directory of the level files)".to_string()
        }
        Ok(_) => match std::fs::read_dir(dir) {
            Ok(_) => return Ok(()),
            Err(e) => format!("cannot read the directory: {e}"),
        },
    };
    Err(CliError::BadOption(format!(
        "{named}{}: {why}",
        dir.display()
    )))
}

/// The database of `rules` in `dir` (`--db DIR`), after [`check_db_dir`]: its levels
/// are found and their headers checked, none read yet. It may hold no level at all; each
/// command says in its own words what that means for it.
pub fn open_database(dir: &Path, rules: &Rules) -> Result<Database, CliError> {
    check_db_dir(dir)?;
    Ok(Database::open(dir, rules).map_err(DbCmdError::from)?)
}

/// The value sources for the search of boards with up to `seeds` seeds under `rules`
/// with `search`'s options: `--db` opened (refused without its level 0), then the plan's
/// endgame table or retrograde analysis, each step shown on `progress`. `search_only`:
/// for work only a search can do (proofs, estimates), which rules that can cycle are
/// refused.
pub fn backing(
    rules: Rules,
    seeds: u32,
    search: &SearchArgs,
    search_only: bool,
    progress: &Progress,
) -> Result<Backing, CliError> {
    let db = match &search.db {
        Some(dir) => {
            let db = open_database(dir, &rules)?;
            if db.levels() == 0 {
                return Err(CliError::NoDatabase {
                    dir: dir.clone(),
                    file: db_format::file_name(&rules.db_key(), 0),
                });
            }
            progress.line(&format!(
                "database {}: levels 0..={}",
                dir.display(),
                db.levels().saturating_sub(1)
            ));
            Some(Arc::new(db))
        }
        None => None,
    };
    let request = Request {
        db,
        endgame: search.endgame,
        settings: search.settings(),
        search_only,
        ..Request::new(rules, seeds, search.tt_mb)
    };
    let plan = Plan::new(request).map_err(refused)?;
    Backing::open(plan, None, |e| {
        if e.ends_step() {
            progress.line(&e.to_string());
        } else {
            progress.message(&e.to_string());
        }
    })
    .map_err(plan_error)
}

/// What a solve of `pos` on `back` found, checked ([`Backing::checked`]) before anything
/// read through its database is printed: a damaged file is named; values that contradict
/// each other name the damaged file, or say that the files were built wrong.
pub fn checked<T>(
    back: &Backing,
    found: Result<T, solver::SolveError>,
    dir: Option<&Path>,
    pos: &Position,
) -> Result<T, CliError> {
    back.checked(found).map_err(|e| match e {
        PlanError::Contradiction { source, finding } => CliError::Contradiction {
            dir: dir.map(Path::to_path_buf).unwrap_or_default(),
            position: pos.to_string(),
            source,
            finding,
        },
        other => plan_error(other),
    })
}
