//! Why a build within a memory budget was refused or failed.

use db_format::DbError;

use crate::gen::cyclic::CyclicError;
use crate::gen::GenError;

/// Why a build within a budget was refused or failed.
///
/// Every variant but [`BuildError::Db`], [`BuildError::Gen`], [`BuildError::Cyclic`] and
/// [`BuildError::OtherParts`] is a refusal before the level it names is read or written
/// (see [`BuildError::is_refusal`]).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A level, shard or part file, or the directory, is unusable.
    #[error(transparent)]
    Db(#[from] DbError),
    /// A level could not be generated.
    #[error(transparent)]
    Gen(#[from] GenError),
    /// A level of clockwise rules could not be generated.
    #[error(transparent)]
    Cyclic(#[from] CyclicError),
    /// The build would not fit in memory.
    #[error(
        "{what} needs {need} MiB of memory but only {avail} MiB are available \
         (MemAvailable in /proc/meminfo); {advice}"
    )]
    NoMemory {
        /// What was to be built: the level, or the shard of it.
        what: String,
        /// What would fit instead.
        advice: String,
        /// MiB needed.
        need: u64,
        /// MiB available.
        avail: u64,
    },
    /// Some splits of a level asked of rules whose play can cycle.
    #[error(
        "--shard needs counter-clockwise rules: the retrograde solver of clockwise rules \
         builds whole levels only"
    )]
    ShardCyclic,
    /// A level cannot be cut into parts that fit the memory budget: one split of the seeds
    /// between the rows, which a part holds whole, needs more than half of it.
    #[error(
        "level {k}: its largest split of the seeds between the rows needs {need} MiB \
         (its boards and the rows' table), more than half of the {budget} MiB budget less \
         256 MiB for the process (the other half holds the lower levels' pages); give \
         --memory-gb {min_gb} or more"
    )]
    OverBudget {
        /// The level.
        k: u32,
        /// MiB the largest split needs.
        need: u64,
        /// The budget, MiB.
        budget: u64,
        /// The smallest budget that holds it, GiB (rounded up to a tenth).
        min_gb: String,
    },
    /// The parts of a level already built by an earlier run are of another plan than this
    /// run's, which they do not fit.
    #[error(
        "{dir} holds level {k} as parts of {found} (from an earlier run), whose largest \
         needs {need} MiB, more than this run allows a part ({limit} MiB); rerun with the \
         --memory-gb (or --parts) of the run that wrote them, or delete {dir} to build the \
         level over"
    )]
    OtherParts {
        /// The parts' directory.
        dir: String,
        /// The level.
        k: u32,
        /// The parts' count on disk.
        found: u32,
        /// MiB their largest part needs.
        need: u64,
        /// MiB a part may take in this run.
        limit: u64,
    },
    /// Not enough free disk for what a level's build writes.
    #[error("level {k} needs {need} MiB of disk in {dir} ({what}) but only {free} MiB are free")]
    NoDisk {
        /// The level.
        k: u32,
        /// The directory.
        dir: String,
        /// What it writes.
        what: String,
        /// MiB needed.
        need: u64,
        /// MiB free.
        free: u64,
    },
}

impl BuildError {
    /// Whether the build was refused for what it was asked (memory, budget, disk, or
    /// splits of rules that can cycle) before the level concerned was read or written,
    /// rather than failing on what it found in the files or met while building.
    pub fn is_refusal(&self) -> bool {
        match self {
            BuildError::NoMemory { .. }
            | BuildError::ShardCyclic
            | BuildError::OverBudget { .. }
            | BuildError::NoDisk { .. } => true,
            BuildError::Db(_)
            | BuildError::Gen(_)
            | BuildError::Cyclic(_)
            | BuildError::OtherParts { .. } => false,
        }
    }
}
