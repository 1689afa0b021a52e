//! `kalah.Database`: a database directory from `kalah db build`, memory-mapped read-only,
//! and its probes.
//!
//! Opening checks what `kalah db probe` checks before it reads a value: the directory,
//! then each level file's header, rules, seeds and length (cheap); a value read is checked
//! against its level's range, and one outside it raises [`crate::errors::DatabaseError`]
//! naming the file and the entry. [`Database::check_files`] reads every payload against
//! its checksum, the first pass of `kalah db verify`.

use std::collections::BTreeSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use db_format::{file_name, RulesKey};
use pyo3::exceptions::{PyFileNotFoundError, PyNotADirectoryError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use solver::{Board, Probe as _};

use crate::errors::{bad_input, db_error, value_error};
use crate::position::{read_board, Position};
use crate::probe::{Probe, Probes};
use crate::rules::Rules;

/// An endgame database: the level files `0..=max_seeds` of one rule set in a directory.
///
/// Invariant: `db` holds at least level 0, and its rules are `rules`' (whose seeds a pit
/// are open: a database holds boards of every seed count up to its top level).
#[pyclass(frozen, module = "kalah")]
pub struct Database {
    pub db: Arc<solver::Database>,
    pub dir: PathBuf,
    pub rules: solver::Rules,
}

/// `dir` refused, as `kalah` refuses `--db DIR`, unless it is a readable directory: a
/// missing path, a link to one, a path through a file, a file and an unreadable directory
/// each get their own message and `OSError` subclass.
pub fn check_dir(dir: &Path) -> PyResult<()> {
    let shown = dir.display();
    let err = match std::fs::metadata(dir) {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let why = match std::fs::symlink_metadata(dir) {
                Ok(_) => "a symbolic link to a path that does not exist",
                Err(_) => "no such directory",
            };
            PyFileNotFoundError::new_err(format!("{shown}: {why}"))
        }
        Err(e) if e.kind() == ErrorKind::NotADirectory => PyNotADirectoryError::new_err(format!(
            "{shown}: a part of the path before the last is a file, not a directory"
        )),
        Err(e) => PyOSError::new_err(format!("{shown}: cannot reach it: {e}")),
        Ok(m) if !m.is_dir() => PyNotADirectoryError::new_err(format!(
            "{shown}: not a directory (give the directory of the level files)"
        )),
        Ok(_) => match std::fs::read_dir(dir) {
            Ok(_) => return Ok(()),
            Err(e) => PyOSError::new_err(format!("{shown}: cannot read the directory: {e}")),
        },
    };
    Err(err)
}

/// The levels of `rules` in `dir`, refused (naming the file) where one present is damaged
/// or of other rules, or where there is no level 0.
pub fn open_dir(dir: &Path, rules: &solver::Rules) -> PyResult<Arc<solver::Database>> {
    check_dir(dir)?;
    let db = solver::Database::open(dir, rules).map_err(db_error)?;
    if db.levels() == 0 {
        return Err(db_error(format!(
            "no database for these rules in {}: {} is missing (build one with `kalah db build`)",
            dir.display(),
            file_name(&rules.db_key(), 0)
        )));
    }
    Ok(Arc::new(db))
}

/// The one rule set whose levels `dir` holds, from the level files' names.
fn rules_in(dir: &Path) -> PyResult<solver::Rules> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        PyOSError::new_err(format!("{}: cannot read the directory: {e}", dir.display()))
    })?;
    let slugs: BTreeSet<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            db_format::parse_file_name(&name).map(|(slug, _)| slug.to_string())
        })
        .collect();
    let mut keys = slugs.iter().filter_map(|s| RulesKey::from_slug(s).ok());
    match (keys.next(), keys.next()) {
        (Some(key), None) => solver::Rules::from_db_key(&key).map_err(bad_input),
        (None, _) => Err(db_error(format!(
            "{} holds no level files (*.kdb): build a database with `kalah db build`",
            dir.display()
        ))),
        (Some(_), Some(_)) => Err(value_error(format!(
            "{} holds levels of {} rule sets ({}); give rules= to choose one",
            dir.display(),
            slugs.len(),
            slugs.iter().cloned().collect::<Vec<_>>().join(", ")
        ))),
    }
}

impl Database {
    /// Refused unless `pos` is of this database's rules and its seeds are in it; the
    /// board otherwise.
    fn board_of(&self, pos: &Position) -> PyResult<Board> {
        if pos.rules.db_key() != self.rules.db_key() {
            return Err(value_error(format!(
                "the position's rules [{}] are not the database's [{}] (in {})",
                pos.rules.db_key(),
                self.rules.db_key(),
                self.dir.display()
            )));
        }
        if pos.rules.pie {
            return Err(value_error(
                "pie: a database probe does not use the pie rule (kalah.solve analyses the \
                 swap); use rules without it",
            ));
        }
        let board = pos.pos.board();
        if board.seeds() > self.db.max_seeds() {
            return Err(self.uncovered(board.seeds()));
        }
        Ok(board)
    }

    /// The refusal of a position with `seeds` seeds on the board, more than the database
    /// covers (`kalah db probe`'s message).
    fn uncovered(&self, seeds: u32) -> PyErr {
        value_error(format!(
            "the position has {seeds} seeds on the board but the database in {} covers at \
             most {max} (levels 0..={max})",
            self.dir.display(),
            max = self.db.max_seeds()
        ))
    }

    /// The database's verdict on values read so far: a value outside its level's range
    /// raises [`crate::errors::DatabaseError`] naming the file and the entry.
    fn check(&self) -> PyResult<()> {
        self.db.check().map_err(db_error)
    }

    /// A position argument: a `Position` (of this database's rules) or a position string,
    /// read with this database's rules.
    fn position(&self, arg: &Bound<'_, PyAny>) -> PyResult<Position> {
        Position::from_arg(arg, Some(&Rules::from_solver(&self.rules, None)))
    }
}

/// The value of `board` as a [`Probe`] for the position whose store margin and side to
/// move's sign are given; `None` where the value read was damaged.
#[inline]
fn probe_board(
    db: &solver::Database,
    board: &Board,
    store_margin: i32,
    sign: i32,
) -> Option<Probe> {
    let gain = db.value(board)?;
    Some(Probe {
        margin: store_margin + sign * gain,
        gain,
    })
}

#[pymethods]
impl Database {
    /// Database(dir, rules=None)
    ///
    /// Opens the levels 0, 1, ... of a directory built by `kalah db build`, up to the
    /// first missing one, memory-mapped read-only. `rules=None` takes the one rule set
    /// whose level files the directory holds (give `rules` where it holds several).
    /// Raises FileNotFoundError or NotADirectoryError for a path that is not a
    /// directory, and DatabaseError naming the file for a level file that is damaged,
    /// truncated or of other rules.
    #[new]
    #[pyo3(signature = (dir, rules=None))]
    fn new(py: Python<'_>, dir: PathBuf, rules: Option<&Rules>) -> PyResult<Database> {
        check_dir(&dir)?;
        let rules = match rules {
            Some(r) => r.resolved().map_err(bad_input)?,
            None => rules_in(&dir)?,
        };
        let db = py.detach(|| open_dir(&dir, &rules))?;
        Ok(Database { db, dir, rules })
    }

    /// The directory.
    #[getter]
    fn dir(&self) -> PathBuf {
        self.dir.clone()
    }

    /// The rules of the database (seeds a pit None: it holds boards of every seed count
    /// up to `max_seeds`).
    #[getter]
    fn rules(&self) -> Rules {
        Rules::from_solver(&self.rules, None)
    }

    /// The highest level: every board with at most this many seeds is in the database.
    #[getter]
    fn max_seeds(&self) -> u32 {
        self.db.max_seeds()
    }

    /// probe(position) -> Probe
    ///
    /// The database's value of a position (a `Position` of the database's rules, or a
    /// position string read with them): `.margin`, the final margin (South minus North),
    /// and `.gain`, the future net gain of the side to move. Raises ValueError where the
    /// position is of other rules or has more seeds than the database covers, and
    /// DatabaseError naming the file where the value read is damaged.
    fn probe(&self, position: &Bound<'_, PyAny>) -> PyResult<Probe> {
        let pos = self.position(position)?;
        let board = self.board_of(&pos)?;
        let found = probe_board(
            &self.db,
            &board,
            pos.pos.store_margin(),
            pos.pos.to_move.sign(),
        );
        self.check()?;
        found.ok_or_else(|| db_error("a value read is damaged"))
    }

    /// probe_many(positions) -> Probes
    ///
    /// `probe` of every position of an iterable of `Position`s or position strings, in
    /// order, the interpreter released while the values are read: a sequence of `Probe`s,
    /// whose `.margins` and `.gains` are lists of ints. A position that `probe` refuses
    /// raises its error, prefixed with its index (`positions[i]: ...`).
    fn probe_many(&self, py: Python<'_>, positions: &Bound<'_, PyAny>) -> PyResult<Probes> {
        let max = self.db.max_seeds();
        let pits = self.rules.pits();
        let mut boards: Vec<(Board, i32, i32)> = Vec::with_capacity(positions.len().unwrap_or(0));
        // Rules of positions already found to be the database's.
        let mut accepted: Option<solver::Rules> = None;
        for (i, item) in positions.try_iter()?.enumerate() {
            let item = item?;
            let at = |e: PyErr| -> PyErr {
                if e.is_instance_of::<PyValueError>(py) {
                    value_error(format!("positions[{i}]: {}", e.value(py)))
                } else {
                    e
                }
            };
            let entry = match item.cast::<PyString>() {
                // The plainest strings are read here; any other goes through `probe`'s
                // reading, which refuses a bad one with its message.
                Ok(s) => match read_board(s.to_str()?, pits) {
                    Some(entry) => entry,
                    None => {
                        let p = self.position(&item).map_err(at)?;
                        (p.pos.board(), p.pos.store_margin(), p.pos.to_move.sign())
                    }
                },
                Err(_) => {
                    let bound;
                    let p = match item.cast::<Position>() {
                        Ok(p) => p.get(),
                        Err(_) => {
                            bound = self.position(&item)?;
                            &bound
                        }
                    };
                    if accepted != Some(p.rules) {
                        self.board_of(p).map_err(at)?;
                        accepted = Some(p.rules);
                    }
                    (p.pos.board(), p.pos.store_margin(), p.pos.to_move.sign())
                }
            };
            if entry.0.seeds() > max {
                return Err(at(self.uncovered(entry.0.seeds())));
            }
            boards.push(entry);
        }
        let db = &*self.db;
        let found: Option<Vec<Probe>> = py.detach(|| {
            boards
                .iter()
                .map(|(b, m, s)| probe_board(db, b, *m, *s))
                .collect()
        });
        self.check()?;
        let found = found.ok_or_else(|| db_error("a value read is damaged"))?;
        Ok(Probes::new(found))
    }

    /// check_files()
    ///
    /// Reads every level file whole: its checksum and the range of every value (the
    /// first pass of `kalah db verify`; the re-derivation of values is that command's).
    /// Raises DatabaseError naming the first damaged file.
    fn check_files(&self, py: Python<'_>) -> PyResult<()> {
        let db = &*self.db;
        py.detach(|| db.find_damage()).map_err(db_error)
    }

    fn __repr__(&self) -> String {
        format!(
            "Database('{}', levels 0..={}, rules={})",
            self.dir.display(),
            self.db.max_seeds(),
            Rules::from_solver(&self.rules, None).repr()
        )
    }
}
