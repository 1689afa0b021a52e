//! The set-up the commands share before they work: the database and the endgame table
//! opened or built, the transposition table sized against the memory available, and the
//! engine assembled from them.
//!
//! Every figure of memory is checked against MemAvailable before anything is allocated, so
//! that a table too large is refused with the figures instead of waking the out-of-memory
//! killer.

use std::path::Path;
use std::time::Instant;

use solver::budget::{EndgameChoice, Refused, Retrograde, Spelling};
use solver::dbfile::Database;
use solver::engine::{Engine, Method, Settings, Sources};
use solver::search::tt::Table;
use solver::{gen::cyclic, Endgame, Game, MemoryDb, Position, Probe, Rules};

use crate::args::SearchArgs;
use crate::error::{CliError, DbCmdError};
use crate::progress::Progress;

/// The transposition table of [`solver::engine::transposition_table`], refused with the
/// figures when it is larger than the memory available (MemAvailable in /proc/meminfo),
/// before any of it is allocated: the search touches all of it.
pub fn transposition_table(
    rules: &Rules,
    seeds: u32,
    max_mb: usize,
) -> Result<Option<solver::search::tt::Table>, CliError> {
    solver::budget::check_table(rules, seeds, max_mb).map_err(refused)?;
    Ok(solver::engine::transposition_table(rules, seeds, max_mb)?)
}

/// `kalah`'s spelling of the options a [`Refused`] names.
const SPELLING: Spelling = Spelling {
    endgame: "--endgame",
    endgame_sep: " ",
    tt_mb: "--tt-mb ",
};

/// A request refused before anything was allocated, in `kalah`'s words.
pub fn refused(r: Refused) -> CliError {
    CliError::BadOption(r.message(&SPELLING))
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

/// The value sources a search reads, which must outlive its [`Engine`] ([`engine`]).
pub struct Backing {
    pub game: Game,
    /// The database of `--db`, holding at least level 0.
    pub db: Option<Database>,
    /// The retrograde analysis of rules that can cycle.
    pub memory: Option<MemoryDb>,
    /// The endgame table of `--endgame`.
    pub endgame: Option<Endgame>,
    /// Time spent before the search: opening the database, building the endgame table
    /// (or, for rules that can cycle, the retrograde analysis).
    pub setup_seconds: f64,
}

/// The value sources for a search of `pos` under `rules` with `search`'s options: the
/// database, the retrograde analysis (rules that can cycle, refused when it would not fit
/// in memory) and the endgame table, each announced on `progress`.
pub fn backing(
    rules: Rules,
    pos: &Position,
    search: &SearchArgs,
    progress: &Progress,
) -> Result<Backing, CliError> {
    let t = Instant::now();
    let game = Game::new(rules);
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
            Some(db)
        }
        None => None,
    };
    let memory = if Method::for_rules(&rules) == Method::Cyclic {
        let seeds = pos.board_seeds();
        let figures = Retrograde::check(rules.pits(), seeds).map_err(refused)?;
        progress.line(&format!(
            "clockwise sowing can cycle: retrograde analysis of every board with up to {seeds} \
             seeds ({figures})"
        ));
        let t = Instant::now();
        let mem = cyclic::solve_in_memory(&game, &pos.board(), |k, n| {
            progress.message(&format!("retrograde level {k}/{seeds}: {n} boards"));
        })?;
        progress.line(&format!(
            "retrograde analysis done in {:.2}s",
            t.elapsed().as_secs_f64()
        ));
        Some(mem)
    } else {
        None
    };
    let endgame = endgame_table(
        &game,
        pos.board_seeds(),
        search.endgame,
        db.is_some(),
        |msg, done| {
            if done {
                progress.line(msg);
            } else {
                progress.message(msg);
            }
        },
    )?;
    Ok(Backing {
        game,
        db,
        memory,
        endgame,
        setup_seconds: t.elapsed().as_secs_f64(),
    })
}

/// The endgame table `--endgame` asks for, for a search of boards with up to `seeds`
/// seeds, built on the global rayon pool. `progress` hears of each level and of the end.
pub fn endgame_table(
    game: &Game,
    seeds: u32,
    arg: EndgameChoice,
    have_db: bool,
    progress: impl Fn(&str, bool),
) -> Result<Option<Endgame>, CliError> {
    let Some(k) = solver::budget::endgame_level(game, seeds, arg, have_db).map_err(refused)? else {
        return Ok(None);
    };
    solver::budget::check_endgame(game.pits(), k).map_err(refused)?;
    let t = Instant::now();
    let table = Endgame::build(game, k, |j, _| {
        progress(&format!("endgame table: level {j}/{k}"), false);
    })?;
    progress(
        &format!(
            "endgame table: boards with up to {k} seeds ({} boards) in {:.2}s",
            table.len(),
            t.elapsed().as_secs_f64()
        ),
        true,
    );
    Ok(Some(table))
}

/// The engine for `b` (see [`solver::engine`]): a search on `table` (from
/// [`transposition_table`]) with `search`'s settings, or `b`'s retrograde analysis.
pub fn engine<'a>(
    b: &'a Backing,
    search: &SearchArgs,
    table: Option<Table>,
    guess: Option<i32>,
) -> Result<Engine<'a>, CliError> {
    let sources = Sources {
        db: b.db.as_ref().map(|db| db as &dyn Probe),
        endgame: b.endgame.as_ref(),
        cyclic: b.memory.as_ref(),
    };
    let settings = Settings {
        threads: search.threads,
        id_depth: search.max_depth,
        split_seeds: search.split_seeds,
        guess,
    };
    Ok(Engine::new(&b.game, sources, table, &settings)?)
}

/// What a solve on `db` (opened from `dir`) returned, checked: `Err` if a value read from
/// the database was out of range (naming the file and the entry), or if the values read
/// contradicted each other (naming the damaged file, found by checking every level's
/// checksum). Nothing read through a database is printed before this check.
pub fn checked<T>(
    found: Result<T, solver::SolveError>,
    db: Option<(&Database, &Path)>,
    pos: &Position,
) -> Result<T, CliError> {
    if let Some((db, _)) = db {
        db.check().map_err(DbCmdError::from)?;
    }
    match (found, db) {
        (Err(e @ solver::SolveError::Contradiction { .. }), Some((db, dir))) => {
            let finding = match db.find_damage() {
                Err(damage) => format!("the damage: {damage}"),
                Ok(()) => "every level file's checksum and value range hold, so the \
                           files were built wrong: rebuild the database"
                    .to_string(),
            };
            Err(CliError::Contradiction {
                dir: dir.to_path_buf(),
                position: pos.to_string(),
                source: e,
                finding,
            })
        }
        (found, _) => Ok(found?),
    }
}
