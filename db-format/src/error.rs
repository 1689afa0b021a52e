//! The one error type of the crate.
//!
//! Why typed errors: a reader must tell "this file is for other rules" (a
//! configuration mistake) from "this file is damaged" (re-solve or re-copy it)
//! without parsing messages. Every variant that concerns a file names its path,
//! and nothing in this crate panics on the contents of a file: every defect of a
//! file becomes one of these variants.

use std::path::PathBuf;

use crate::rules::{InvalidRules, RulesKey};

/// Everything that can go wrong reading, writing or validating a database.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DbError {
    /// An operating-system call on `path` failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or directory the call was about.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },

    /// Something other than a regular file (a directory, a named pipe, a device) where a
    /// database file was expected: refused before it is opened, since reading a pipe or
    /// a device can block for ever.
    #[error("{}: not a regular file ({kind}); a database file was expected", .path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        kind: &'static str,
    },

    /// The first 8 bytes are not `KALAHDB\0`: not a database at all.
    #[error("{}: not a Kalah database (bad magic bytes)", .path.display())]
    BadMagic {
        /// The file.
        path: PathBuf,
    },

    /// A database, but of a format version this reader does not understand.
    #[error(
        "{}: unsupported format version {found} (this reader supports {supported})",
        .path.display()
    )]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// Version stored in the header.
        found: u32,
        /// The versions this crate reads, in words ("versions 1 and 2").
        supported: &'static str,
    },

    /// A valid database, but solved under other rules than the caller asked for.
    #[error(
        "{}: database is for rules [{found}] but rules [{expected}] were expected",
        .path.display()
    )]
    RulesMismatch {
        /// The file.
        path: PathBuf,
        /// Rules stored in the header.
        found: RulesKey,
        /// Rules the caller asked for.
        expected: RulesKey,
    },

    /// A valid database, but for another number of seeds on the board.
    #[error(
        "{}: database holds positions with {found} seeds on the board but {expected} were expected",
        .path.display()
    )]
    SeedsMismatch {
        /// The file.
        path: PathBuf,
        /// Seeds stored in the header.
        found: u32,
        /// Seeds the caller asked for.
        expected: u32,
    },

    /// The file is shorter (truncated) or longer than its header says.
    #[error(
        "{}: file is {actual_len} bytes but its header requires exactly {expected_len} bytes{}",
        .path.display(),
        if .actual_len < .expected_len { " (truncated)" } else { "" }
    )]
    LengthMismatch {
        /// The file.
        path: PathBuf,
        /// Length in bytes implied by the header (64 when the header itself is cut).
        expected_len: u64,
        /// Length in bytes found on disk.
        actual_len: u64,
    },

    /// The payload does not hash to the checksum stored in the header.
    #[error(
        "{}: payload checksum mismatch (stored {stored:#018x}, computed {computed:#018x}): \
         the file is damaged; delete it and rebuild it with `kalah db build`",
        .path.display()
    )]
    ChecksumMismatch {
        /// The file.
        path: PathBuf,
        /// Checksum stored in the header.
        stored: u64,
        /// Checksum of the payload as found.
        computed: u64,
    },

    /// The header or payload is internally inconsistent.
    #[error("{}: corrupted database: {what}", .path.display())]
    Corrupted {
        /// The file.
        path: PathBuf,
        /// Which check failed.
        what: String,
    },

    /// Shards of one level from different `--shard I/N` builds (different `N`): each is
    /// sound, but they do not make up one level.
    #[error(
        "{}: the shards of {level} come from builds with different shard counts ({a} and \
         {b}); merge needs all N shards of one --shard I/N build: delete the others",
        .dir.display()
    )]
    MixedShards {
        /// The directory.
        dir: PathBuf,
        /// The level file the shards make up.
        level: String,
        /// One shard count found.
        a: u32,
        /// Another.
        b: u32,
    },

    /// A value outside `-seeds..=seeds`, which no position can have.
    #[error("value {value} outside -{seeds}..={seeds}{}", at_rank(*.rank))]
    ValueOutOfRange {
        /// The offending value.
        value: i8,
        /// Seeds on the board of the level.
        seeds: u32,
        /// Rank of the entry, when known.
        rank: Option<u64>,
    },

    /// A rules key with a pit count or rule code outside the defined range.
    #[error("invalid rules: {what}")]
    InvalidRules {
        /// Which field is out of range.
        what: String,
    },

    /// More seeds than values in `-seeds..=seeds` can represent in an `i8`.
    #[error("{seeds} seeds on the board is more than the supported maximum {max}")]
    TooManySeeds {
        /// Requested seeds.
        seeds: u32,
        /// Largest supported.
        max: u32,
    },

    /// A board with more cells than the ranking supports.
    #[error("{cells} cells is outside the supported range 1..={max}")]
    BadCellCount {
        /// Requested cells (2 × pits).
        cells: usize,
        /// Largest supported.
        max: usize,
    },

    /// The number of positions of a level does not fit in a `u64`.
    #[error("level with {cells} cells and {seeds} seeds has more than 2^64 positions")]
    SizeOverflow {
        /// Cells (2 × pits).
        cells: usize,
        /// Seeds on the board.
        seeds: u32,
    },

    /// Block sizes of a compact file outside the format's range.
    #[error("bad compact file options: {what}")]
    BadOptions {
        /// What is out of range.
        what: String,
    },

    /// The entries a compact writer read twice (a histogram, then the codes) differ
    /// between the two passes: its source is not re-readable as it must be.
    #[error("the level's entries changed between the writer's two passes: {what}")]
    SourceChanged {
        /// What differed.
        what: String,
    },

    /// A writer was handed a value slice of the wrong length for its level.
    #[error("level needs exactly {expected} values but {actual} were given")]
    EntryCountMismatch {
        /// `level_size(2 * pits, seeds)`.
        expected: u64,
        /// Length of the slice given.
        actual: u64,
    },
}

/// Formats the optional rank of [`DbError::ValueOutOfRange`].
fn at_rank(rank: Option<u64>) -> String {
    match rank {
        Some(r) => format!(" at rank {r}"),
        None => String::new(),
    }
}

impl From<InvalidRules> for DbError {
    fn from(e: InvalidRules) -> DbError {
        DbError::InvalidRules { what: e.what }
    }
}
