//! Why a proof cannot go on: one error type for the proof directory, its records, its
//! claims and the searches its workers run, so that every module of a proof returns the
//! same [`ProofError`] and none depends on another for it.

use std::path::{Path, PathBuf};

use super::journal::JournalError;

/// Why a proof directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error("{}: not a proof directory: {reason}", path.display())]
    Manifest { path: PathBuf, reason: String },
    #[error("{0}")]
    Refused(String),
    #[error("a unit's search could not start: {0}")]
    Search(String),
    #[error(
        "the results contradict each other on board {board}: value >= {lo} and value <= {hi} \
         (last read from {}); a search or the files are wrong",
        path.display()
    )]
    Contradiction {
        board: String,
        lo: i32,
        hi: i32,
        path: PathBuf,
    },
    #[error(
        "{}: a record names board {board}, which is not in this proof's front end; the file \
         was damaged or belongs to another proof",
        path.display()
    )]
    UnknownBoard { board: String, path: PathBuf },
}

/// An I/O error on `path` as a [`ProofError::Io`], for `map_err`.
pub(super) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ProofError + '_ {
    move |source| ProofError::Io {
        path: path.to_path_buf(),
        source,
    }
}
