//! A level's entries as a writer reads them: in rank order, as often as it needs.
//!
//! Why a trait and not a slice: a compact level file ([`crate::Compact`]) is written in
//! two passes over its entries (the symbols' counts, then their codes), and a level of
//! gigabytes is written from files on disk (shards, or a level file of the other format)
//! without being held in memory.

use crate::error::DbError;

/// The entries of one level in rank order, readable more than once.
pub trait LevelSource {
    /// Calls `sink` with the level's entries in rank order, in runs of any length (an
    /// empty run is allowed), from the first rank to the last, and returns `Ok` once all
    /// have been given; stops at the first error of `sink` or of the source and returns
    /// it. Every call must give the same entries.
    fn read_runs(
        &mut self,
        sink: &mut dyn FnMut(&[i8]) -> Result<(), DbError>,
    ) -> Result<(), DbError>;
}

/// Entries given to a sink per run by the sources of this crate: 1 Mi, a few passes
/// through the second-level cache.
pub const RUN: usize = 1 << 20;

impl LevelSource for &[i8] {
    fn read_runs(
        &mut self,
        sink: &mut dyn FnMut(&[i8]) -> Result<(), DbError>,
    ) -> Result<(), DbError> {
        for run in self.chunks(RUN) {
            sink(run)?;
        }
        Ok(())
    }
}
