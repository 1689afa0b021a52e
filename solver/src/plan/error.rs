//! Why a planned solve did not give a value: refused before anything was allocated, a
//! table or level that could not be built, a stop asked for, or a database found damaged.

use thiserror::Error;

use crate::budget::Refused;
use crate::gen::cyclic::CyclicError;
use crate::{GenError, SolveError};

/// Why a [`super::Plan`] refused, or its [`super::Backing`] failed.
#[derive(Debug, Error)]
pub enum PlanError {
    /// Refused before anything was allocated; each front end words it with its own
    /// option names ([`Refused::message`]).
    #[error("{0}")]
    Refused(Refused),
    /// The search could not be set up (its transposition table), or these rules cannot be
    /// searched.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// The endgame table's build failed.
    #[error(transparent)]
    Endgame(#[from] GenError),
    /// The retrograde analysis of rules that can cycle failed.
    #[error(transparent)]
    Retrograde(#[from] CyclicError),
    /// The thread building the endgame table ended without one (it panicked).
    #[error("the endgame table's build ended without a table")]
    BuildLost,
    /// The cancel flag was raised before the backing was ready.
    #[error("stopped before the search began")]
    Stopped,
    /// A value read from the database was outside its level's range, or a block did not
    /// decode: the file is named.
    #[error(transparent)]
    Damaged(#[from] db_format::DbError),
    /// The values read from the database contradict each other (see
    /// [`super::Backing::checked`]); `finding` names the damaged file, or says that every
    /// file is intact and so was built wrong.
    #[error("the database contradicts itself: {source}; {finding}")]
    Contradiction { source: SolveError, finding: String },
}

impl From<Refused> for PlanError {
    fn from(r: Refused) -> PlanError {
        PlanError::Refused(r)
    }
}
