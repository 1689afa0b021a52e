//! The errors of the `kalah` command, one enum for all subcommands.
//!
//! Each variant wraps the library error that says what went wrong; [`CliError::exit_code`]
//! tells bad input (exit status 2) from other failures (1).

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
    /// A `kalah db` command failed (see [`crate::cmd::db::DbCmdError`]).
    #[error(transparent)]
    Db(#[from] crate::cmd::db::DbCmdError),
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
    #[error("cannot write the output: {0}")]
    Io(#[from] std::io::Error),
}

impl CliError {
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
            | CliError::Proof(_) => 1,
        }
    }
}
