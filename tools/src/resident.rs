//! A database build's resident set kept under its memory budget, by releasing the pages
//! of the lower levels it reads through memory maps.
//!
//! # Why the lower levels' pages
//!
//! Building level `k` reads the values of the children of its boards in the levels below
//! it, mapped from their files ([`solver::dbfile::Database`]). A page of a mapped file
//! that the process has read counts in its resident set (as `/usr/bin/time`'s "maximum
//! resident set size" reports it) for as long as it stays mapped, although the page
//! cache, not the process, owns it. The children of a level's boards lie all over the
//! lower levels: building one whole level touches nearly every page of all of them
//! (levels 0..=30 of 6 pits are 10.3 GiB; 0..=33 are 26.8 GiB), and building one split
//! of the seeds between the rows still touches most of them, because the blocks of every
//! split are interleaved in a level's rank order. So choosing the parts of a level does
//! not bound these pages; releasing them does.
//!
//! # How
//!
//! [`capped`] runs the build while a watcher thread reads the process's resident set
//! (`/proc/self/statm`) every [`INTERVAL`]; when it exceeds the limit, the watcher
//! releases the lower levels' pages ([`Database::release_pages`], `madvise(MADV_DONTNEED)`
//! on their read-only maps). They leave the resident set at once and stay in the page
//! cache, so the reads that follow map them again with a minor fault each (or read them
//! from disk, where the system has evicted them meanwhile). The values read never change:
//! a level file is never modified while mapped. The builder's own arrays (the boards being
//! built, the rows' table) are not file pages and are never released: the plan keeps them
//! within half the budget ([`crate::parts`]), so that releasing the lower levels' pages
//! always brings the process well under its limit.
//!
//! Between two readings the build maps more pages; the limit is therefore the budget less
//! a headroom ([`headroom`]). Where `/proc/self/statm` cannot be read (systems other
//! than Linux) nothing is released.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use db_format::DbError;
use solver::dbfile::Database;

/// How often the watcher reads the resident set. Reading `/proc/self/statm` costs a few
/// microseconds; in 10 ms the two threads of this project's machines map at most some
/// tens of MiB of pages they had released (see results/db.md, "Levels in parts").
pub const INTERVAL: Duration = Duration::from_millis(10);

/// The part of a budget of `budget` bytes left free below it for the pages mapped between
/// two readings of the resident set and for the reading's own imprecision: a sixteenth
/// of the budget, at least 64 MiB.
pub fn headroom(budget: u64) -> u64 {
    (budget / 16).max(64 << 20)
}

/// This process's resident set in bytes (`/proc/self/statm`: its second field, in pages),
/// or `None` where it cannot be read.
pub fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size())
}

/// The system's page size in bytes.
fn page_size() -> u64 {
    // SAFETY: sysconf only reads a system constant; it has no memory-safety
    // preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(n).ok().filter(|&n| n > 0).unwrap_or(4096)
}

/// What the watcher of [`capped`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Released {
    /// How many times it released the lower levels' pages.
    pub times: u64,
}

/// Runs `work` on this thread while a watcher thread keeps the process's resident set
/// under `limit` bytes, releasing the pages of `lower` whenever a reading exceeds it (see
/// the module docs). Returns what `work` returned and how often the pages were released;
/// an error when releasing them failed (the watcher then stopped releasing: `work`'s
/// result is sound, but the limit was not kept).
pub fn capped<R>(
    lower: &Database,
    limit: u64,
    work: impl FnOnce() -> R,
) -> (R, Result<Released, DbError>) {
    let done = AtomicBool::new(false);
    let times = AtomicU64::new(0);
    let failed: Mutex<Option<DbError>> = Mutex::new(None);
    let result = std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            while !done.load(Ordering::Acquire) {
                if resident_bytes().is_some_and(|r| r > limit) {
                    if let Err(e) = lower.release_pages() {
                        if let Ok(mut f) = failed.lock() {
                            *f = Some(e);
                        }
                        return;
                    }
                    times.fetch_add(1, Ordering::Relaxed);
                }
                std::thread::park_timeout(INTERVAL);
            }
        });
        let result = work();
        done.store(true, Ordering::Release);
        watcher.thread().unpark();
        result
    });
    let failed = failed.into_inner().ok().flatten();
    let released = match failed {
        Some(e) => Err(e),
        None => Ok(Released {
            times: times.into_inner(),
        }),
    };
    (result, released)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headroom_is_a_sixteenth_and_at_least_64_mib() {
        assert_eq!(headroom(16 << 30), 1 << 30);
        assert_eq!(headroom(512 << 20), 64 << 20);
        assert_eq!(headroom(0), 64 << 20);
    }

    /// The resident set counts memory as it is touched.
    #[cfg(target_os = "linux")]
    #[test]
    fn resident_bytes_grow_with_touched_memory() {
        let before = resident_bytes().unwrap();
        let v = vec![1u8; 64 << 20];
        let after = resident_bytes().unwrap();
        assert!(after >= before + (48 << 20), "{before} -> {after}");
        assert_eq!(v.iter().map(|&x| u64::from(x)).sum::<u64>(), 64 << 20);
    }
}
