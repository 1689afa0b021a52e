//! The errors of the `kalah` command, one enum for all subcommands.
//!
//! Each variant wraps the library error that says what went wrong; [`CliError::exit_code`]
//! tells bad input (exit status 2) from other failures (1).

use solver::{PositionError, RecordError, RulesError};

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
    /// A `kalah db` command failed (see [`crate::cmd_db::DbCmdError`]).
    #[error(transparent)]
    Db(#[from] crate::cmd_db::DbCmdError),
    /// The solver refused or failed (for example, rules it cannot search).
    #[error("{0}")]
    Solve(String),
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
            CliError::Io(_)
            | CliError::Db(_)
            | CliError::Solve(_)
            | CliError::Mismatch(_)
            | CliError::Proof(_) => 1,
        }
    }
}
