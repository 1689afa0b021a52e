//! The errors of the `kalah` command: one enum for all subcommands ([`CliError`]), and
//! the database commands' own ([`DbCmdError`]), which it wraps.
//!
//! Each variant wraps the library error that says what went wrong; [`CliError::exit_code`]
//! tells bad input (exit status 2) from other failures (1).

use db_format::DbError;
use solver::build::BuildError;
use solver::gen::cyclic::CyclicError;
use solver::gen::GenError;
use solver::{PositionError, RecordError, RulesError, SolveError};

/// Why a subcommand failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The rule switches or the board size were refused.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// The position string was refused, or does not fit the rules.
    #[error(transparent)]
    Position(#[from] PositionError),
    /// A move of the record cannot be played.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// A `kalah db` command failed (see [`DbCmdError`]).
    #[error(transparent)]
    Db(#[from] DbCmdError),
    /// The search refused (for example, rules it cannot search) or found no table.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// The endgame table could not be built.
    #[error(transparent)]
    Gen(#[from] GenError),
    /// The retrograde analysis of rules that can cycle failed.
    #[error(transparent)]
    Cyclic(#[from] CyclicError),
    /// A line of a published-values file is not understood.
    #[error("{what}, line {line}: {why}")]
    Data {
        /// The file (or the built-in list).
        what: String,
        /// Its line, from 1.
        line: usize,
        /// What is wrong there.
        why: String,
    },
    /// `kalah verify --cases` names a case that is not in the list.
    #[error("no published case '{name}'; the cases are {known}")]
    UnknownCase {
        /// The name asked for.
        name: String,
        /// The cases there are, comma-separated.
        known: String,
    },
    /// A computed value differs from the published or expected one (`kalah verify`,
    /// `kalah bench`).
    #[error("{0}")]
    Mismatch(String),
    /// `--db DIR` names a directory without a database for these rules.
    #[error("no database for these rules in {}: {file} is missing (build one with `kalah db build`)", dir.display())]
    NoDatabase {
        dir: std::path::PathBuf,
        file: String,
    },
    /// An option's value was refused after parsing (for example an endgame table too large
    /// for memory).
    #[error("{0}")]
    BadOption(String),
    /// The values read from a database contradict each other (no move of a board attains
    /// the value they give it): `finding` says which file is damaged, if one is.
    #[error("{}: the database contradicts itself solving {position}: {source}; {finding}", dir.display())]
    Contradiction {
        dir: std::path::PathBuf,
        position: String,
        source: SolveError,
        finding: String,
    },
    /// A proof directory cannot be used (see `solver::proof::ProofError`).
    #[error(transparent)]
    Proof(#[from] solver::proof::ProofError),
    /// Writing the output failed.
    #[error(transparent)]
    Plan(solver::plan::PlanError),

    #[error("cannot write the output: {0}")]
    Io(#[from] std::io::Error),
}

impl CliError {
    /// `Ok` where nothing is `wrong`, else [`CliError::Mismatch`]: `what` and the cases
    /// named; how `kalah verify` and `kalah bench` end after reporting every case.
    pub fn unless_mismatched(
        what: &str,
        wrong: &[impl std::borrow::Borrow<str>],
    ) -> Result<(), CliError> {
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(CliError::Mismatch(format!("{what} {}", wrong.join(", "))))
        }
    }

    /// The process exit status: 2 for bad input, 1 for any other failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Rules(_)
            | CliError::Position(_)
            | CliError::Record(_)
            | CliError::NoDatabase { .. }
            | CliError::BadOption(_) => 2,
            CliError::Proof(solver::proof::ProofError::Refused(_)) => 2,
            CliError::Db(e) => e.exit_code(),
            CliError::Io(_)
            | CliError::Solve(_)
            | CliError::Gen(_)
            | CliError::Cyclic(_)
            | CliError::Data { .. }
            | CliError::UnknownCase { .. }
            | CliError::Mismatch(_)
            | CliError::Contradiction { .. }
            | CliError::Plan(_)
            | CliError::Proof(_) => 1,
        }
    }
}

/// Why a database command failed.
#[derive(Debug, thiserror::Error)]
pub enum DbCmdError {
    /// A level or shard file, or the directory, is unusable.
    #[error(transparent)]
    Db(#[from] DbError),
    /// A level could not be generated.
    #[error(transparent)]
    Retro(#[from] GenError),
    /// A build within a memory budget was refused or failed (see [`BuildError`]).
    #[error(transparent)]
    Build(#[from] BuildError),
    /// A level file present under its name fails verification.
    #[error("{path}: present but damaged ({source}); delete it to rebuild it")]
    Damaged {
        /// The file.
        path: String,
        /// What verification found.
        source: DbError,
    },
    /// Another `kalah db build` writes into the directory.
    #[error(
        "another build holds {dir} (process {holder}, in {lock}); wait for it, or \
         delete the lock if no build runs"
    )]
    Locked {
        /// The directory.
        dir: String,
        /// The lock file.
        lock: String,
        /// The process id in the lock file.
        holder: String,
    },
    /// `db build --max-seeds` beyond what a level file can hold.
    #[error("--max-seeds: {0}")]
    Refused(DbError),
    /// `--pie` given to `db build`, whose levels do not depend on it.
    #[error("--pie: kalah db build does not use the pie rule (it changes only the first turn, not the levels); leave it out")]
    Pie,
    /// `db build --out` names something that is not a directory.
    #[error("--out {0}: not a directory (the database is a directory of level files)")]
    NotADirectory(String),
    /// `verify` found no level file at all.
    #[error("{0} holds no level files (*.kdb): nothing to verify")]
    NoLevels(String),
    /// `verify` found problems; they were printed above.
    #[error("{0} problem(s) found in {1}")]
    VerifyFailed(usize, String),
    /// The position has more seeds than the database covers.
    #[error("the position has {seeds} seeds on the board but the database in {dir} covers at most {max} (levels 0..={max})")]
    NotCovered {
        /// Seeds of the position.
        seeds: u32,
        /// Highest level.
        max: u32,
        /// The directory.
        dir: String,
    },
    /// No level 0 of these rules in the directory.
    #[error("{dir} holds no level files for rules [{rules}] (missing {first})")]
    Empty {
        /// The directory.
        dir: String,
        /// The rules asked for.
        rules: String,
        /// The name of level 0.
        first: String,
    },
    /// A level of clockwise rules could not be generated.
    #[error(transparent)]
    Cyclic(#[from] CyclicError),
    /// The rule switches were refused.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// Thread pool set-up.
    #[error("cannot start the worker threads: {0}")]
    Threads(String),
}

impl DbCmdError {
    /// The process exit status, as [`CliError::exit_code`] gives it: 2 for an option or
    /// position the command refuses before it reads or writes a level (the pie rule, more
    /// seeds than a level holds, an `--out` that is not a directory, `--shard` with rules
    /// that can cycle, a level too large for memory, for the budget or for the disk, a
    /// position the database does not hold), 1 for what it found in the files.
    pub fn exit_code(&self) -> u8 {
        match self {
            DbCmdError::Pie
            | DbCmdError::Refused(_)
            | DbCmdError::NotADirectory(_)
            | DbCmdError::Rules(_)
            | DbCmdError::Empty { .. }
            | DbCmdError::NotCovered { .. } => 2,
            DbCmdError::Build(e) if e.is_refusal() => 2,
            DbCmdError::Db(_)
            | DbCmdError::Build(_)
            | DbCmdError::Retro(_)
            | DbCmdError::Damaged { .. }
            | DbCmdError::Locked { .. }
            | DbCmdError::NoLevels(_)
            | DbCmdError::VerifyFailed(..)
            | DbCmdError::Cyclic(_)
            | DbCmdError::Threads(_) => 1,
        }
    }
}
