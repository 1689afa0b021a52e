//! The set-up the commands share before they work: the database and the endgame table
//! opened or built, the transposition table sized against the memory available, and the
//! engine assembled from them.
//!
//! Every figure of memory is checked against MemAvailable before anything is allocated, so
//! that a table too large is refused with the figures instead of waking the out-of-memory
//! killer.

use std::path::Path;
use std::time::Instant;

use solver::dbfile::Database;
use solver::engine::{Engine, Method, Settings, Sources};
use solver::search::tt::Table;
use solver::{gen::cyclic, Endgame, Game, MemoryDb, Position, Probe, Rules};

use crate::args::{EndgameArg, SearchArgs};
use crate::error::{CliError, DbCmdError};
use crate::progress::Progress;

/// Bytes of memory available to a new process, from `/proc/meminfo` (`None` elsewhere).
pub fn mem_available() -> Option<u64> {
    meminfo("MemAvailable:")
}

/// Bytes of memory of the machine, from `/proc/meminfo` (`None` elsewhere).
pub fn mem_total() -> Option<u64> {
    meminfo("MemTotal:")
}

/// The field `name` (with its colon) of `/proc/meminfo`, in bytes.
fn meminfo(name: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Bytes free to an unprivileged writer on the file system holding `dir` (`statvfs`),
/// `None` where it cannot be asked.
pub fn disk_free(dir: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
        // SAFETY: `path` is a NUL-terminated string that outlives the call, and `st`
        // points to writable memory of a `statvfs`, which the call fills when it
        // returns 0.
        let rc = unsafe { libc::statvfs(path.as_ptr(), st.as_mut_ptr()) };
        if rc != 0 {
            return None;
        }
        // SAFETY: statvfs returned 0, so it initialised `st`.
        let st = unsafe { st.assume_init() };
        // `u64` on 64-bit Linux, narrower types elsewhere.
        #[allow(clippy::useless_conversion)]
        let (blocks, size) = (u64::from(st.f_bavail), u64::from(st.f_frsize));
        blocks.checked_mul(size)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// The transposition table of [`solver::engine::transposition_table`], refused with the
/// figures when it is larger than the memory available (MemAvailable in /proc/meminfo),
/// before any of it is allocated: the search touches all of it.
pub fn transposition_table(
    rules: &Rules,
    seeds: u32,
    max_mb: usize,
) -> Result<Option<solver::search::tt::Table>, CliError> {
    if Method::for_rules(rules) != Method::Cyclic {
        let mb = solver::search::tt::sized_for(rules.pits(), seeds, max_mb) as u64;
        check_table_memory(max_mb, mb)?;
    }
    Ok(solver::engine::transposition_table(rules, seeds, max_mb)?)
}

/// `--tt-mb max_mb` refused when its table of `mb` MiB is more than the memory available
/// (MemAvailable in /proc/meminfo; not checked where there is none).
pub fn check_table_memory(max_mb: usize, mb: u64) -> Result<(), CliError> {
    match mem_available() {
        Some(avail) if mb.saturating_mul(1 << 20) > avail => Err(CliError::BadOption(format!(
            "--tt-mb {max_mb}: a transposition table of {mb} MiB is more than the {} MiB of \
             memory available (MemAvailable in /proc/meminfo)",
            avail >> 20
        ))),
        _ => Ok(()),
    }
}

/// The largest table `--endgame K` may ask for, in boards (and bytes): 4 GiB.
const MAX_ENDGAME_BOARDS: u64 = 4 << 30;

/// The boards the retrograde analysis of rules that can cycle holds to solve a position
/// with `seeds` seeds on a board of `pits` pits a side, and the bytes it needs: one a
/// board for every level, and for the level being solved its working arrays (a floor, a
/// cap and a move count a board, and up to `pits` same-level children of four bytes, a
/// bound on [`solver::gen::cyclic`]'s arrays). `None` where a figure overflows.
fn cyclic_estimate(pits: usize, seeds: u32) -> (Option<u64>, Option<u64>) {
    let cells = 2 * pits;
    let positions = (0..=seeds).try_fold(0u64, |sum, k| {
        sum.checked_add(db_format::checked_level_size(cells, k)?)
    });
    let top = db_format::checked_level_size(cells, seeds);
    let bytes = positions
        .zip(top)
        .and_then(|(p, t)| p.checked_add(t.checked_mul(3 + 4 * pits as u64)?));
    (positions, bytes)
}

/// `--db DIR` checked before any level is looked for in it: a missing path, a link to
/// one, a path through a file, a file and an unreadable directory each get their own
/// message (not "level 0 is missing").
pub fn check_db_dir(dir: &Path) -> Result<(), CliError> {
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
        "--db {}: {why}",
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
        let (positions, bytes) = cyclic_estimate(rules.pits(), seeds);
        let avail = mem_available();
        let fits = match (bytes, avail) {
            (Some(b), Some(a)) => b <= a,
            (None, _) => false,
            (Some(_), None) => true,
        };
        let figures = format!(
            "{} positions, about {} MiB",
            positions.map_or("more than 2^64".to_string(), |p| p.to_string()),
            bytes.map_or("more than 2^44".to_string(), |b| (b >> 20).to_string())
        );
        if !fits {
            return Err(CliError::BadOption(format!(
                "clockwise sowing can cycle, so these rules are solved by retrograde analysis \
                 of every board with up to {seeds} seeds: {figures}, but only {} MiB of memory \
                 are available (MemAvailable in /proc/meminfo); solve a position with fewer \
                 seeds",
                avail.unwrap_or(0) >> 20
            )));
        }
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
    arg: EndgameArg,
    have_db: bool,
    progress: impl Fn(&str, bool),
) -> Result<Option<Endgame>, CliError> {
    if Method::for_rules(game.rules()) == Method::Cyclic {
        // The retrograde analysis holds every level already.
        if let EndgameArg::Level(k) = arg {
            return Err(CliError::BadOption(format!(
                "--endgame {k}: clockwise rules are solved by retrograde analysis, which \
                 holds every level already; leave --endgame out"
            )));
        }
        return Ok(None);
    }
    let level = match arg {
        EndgameArg::Off => None,
        EndgameArg::Auto if have_db => None,
        EndgameArg::Auto => {
            Endgame::level_for(game.pits(), seeds, solver::search::endgame::DEFAULT_BOARDS)
        }
        EndgameArg::Level(k) => match Endgame::boards(game.pits(), k) {
            Some(b) if b <= MAX_ENDGAME_BOARDS => Some(k),
            _ => {
                return Err(CliError::BadOption(format!(
                    "--endgame {k}: the table would hold more than {MAX_ENDGAME_BOARDS} \
                         boards; build a database with `kalah db build` instead"
                )))
            }
        },
    };
    let Some(k) = level else {
        return Ok(None);
    };
    if let (Some(boards), Some(avail)) = (Endgame::boards(game.pits(), k), mem_available()) {
        if boards > avail {
            return Err(CliError::BadOption(format!(
                "the endgame table of boards with up to {k} seeds needs {} MiB but only {} MiB \
                 of memory are available (MemAvailable in /proc/meminfo); choose a smaller \
                 --endgame",
                boards >> 20,
                avail >> 20
            )));
        }
    }
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
