//! What a build reports while it runs, for its caller to show: the library draws
//! nothing.

/// What a build reports while it fills a level's boards: the library draws nothing, its
/// caller shows the count as it likes (`kalah db build` a bar on stderr).
pub trait Progress: Sync {
    /// A counter of the `total` boards of level `k` about to be built (all of them, or
    /// those of a part or shard), counting from 0.
    fn level(&self, k: u32, total: u64) -> Box<dyn Counter + '_>;
}

/// The count of one level's boards built so far ([`Progress::level`]). It is advanced
/// from every worker thread, often (each tile pair), so it must be cheap and `Sync`.
pub trait Counter: Sync {
    /// `n` more boards built.
    fn inc(&self, n: u64);
    /// The level's boards are all built (or the build stopped): the count is no longer
    /// shown.
    fn finish(&self);
}

/// A [`Progress`] that shows nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn level(&self, _k: u32, _total: u64) -> Box<dyn Counter + '_> {
        Box::new(Silent)
    }
}

impl Counter for Silent {
    fn inc(&self, _n: u64) {}
    fn finish(&self) {}
}
