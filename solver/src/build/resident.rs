//! A database build's resident set kept under its memory budget, by releasing the pages
//! of the lower levels it reads through memory maps.
//!
//! # Why the lower levels' pages
//!
//! Building level `k` reads the values of the children of its boards in the levels below
//! it, mapped from their files ([`Database`]). A page of a mapped file
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
//! The generator calls its progress callback from each worker thread after each tile pair
//! (a millisecond or so of work). There [`Cap::checkpoint`] reads the process's resident
//! set (`/proc/self/statm`, at most once every [`INTERVAL`] for all threads) and, when it
//! exceeds the limit, releases the lower levels' pages ([`Database::release_pages`],
//! `madvise(MADV_DONTNEED)` on their read-only maps) while the other threads wait at
//! their next checkpoint. They leave the resident set at once and stay in the page cache,
//! so the reads that follow map them again with a minor fault each (or read them from
//! disk, where the system has evicted them meanwhile). The values read never change: a
//! level file is never modified while mapped. The builder's own arrays (the boards being
//! built, the rows' table) are not file pages and are never released: the plan keeps them
//! within half the budget ([`super::plan`]), so that releasing the lower levels' pages
//! always brings the process well under its limit. Before a build allocates them,
//! [`Cap::make_room`] releases the lower levels' pages if they and the new arrays would
//! not fit together (a level or part starts with the pages the previous part left mapped,
//! and with the small levels mapped whole when they were opened).
//!
//! Why the threads wait: a first version released the pages from a thread of its own
//! while the workers went on. Zapping a few hundred MiB of mappings took 100 to 250 ms on
//! this project's 2-core machine, during which the workers mapped pages again about as
//! fast, so the resident set fell little, and when that thread was late it passed a
//! 1 GiB budget by 600 MiB (level 26, results/db.md, "Levels in parts"). With the workers
//! waiting, the release is complete (a few milliseconds) and the resident set passes the
//! limit by at most what the threads map in one [`INTERVAL`] and one tile pair
//! ([`headroom`]).
//!
//! What it costs: right after a release the threads map the pages they read again, fast
//! (see [`headroom`]), so when the lower levels do not fit beside the boards being built
//! the pages are released every 10 ms or so and the threads wait a fifth to a third of
//! the time (levels 24 to 26 under a 1 GiB budget, results/db.md, "Levels in parts"; the
//! level lines give the releases and their seconds). A level that fits with all its lower
//! levels is built without a cap.
//!
//! Where `/proc/self/statm` cannot be read (systems other than Linux) nothing is
//! released.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{OnceLock, PoisonError, RwLock};
use std::time::{Duration, Instant};

use crate::dbfile::Database;
use db_format::DbError;

/// How often the resident set is read: every half millisecond of the build, by whichever
/// worker thread reaches a checkpoint first. A reading costs a few microseconds (1 to 2%
/// of a thread at this rate). Read every 2 ms, a 1 GiB budget was passed by 56 MiB (see
/// [`headroom`]).
pub const INTERVAL: Duration = Duration::from_micros(500);

/// The part of a budget of `budget` bytes left free below it for the pages that
/// `threads` worker threads map between two readings of the resident set and during the
/// tile pair each finishes meanwhile: 64 MiB a thread and 64 MiB more, or a sixteenth of
/// the budget if that is more. Right after a release the threads map pages again at some
/// 40 MiB a millisecond (two threads: a fault maps the 16 pages around it), and a thread
/// reaches its next checkpoint within a tile pair (about 1.5 ms at 6 M boards a second);
/// with 128 MiB for two threads a 1 GiB budget was passed by 3 MiB (level 26 of 6 pits,
/// results/db.md, "Levels in parts").
pub fn headroom(budget: u64, threads: usize) -> u64 {
    let per_thread = (threads as u64 + 1).saturating_mul(64 << 20);
    (budget / 16).max(per_thread)
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

/// The resident set of a build kept under a limit by releasing the pages of its lower
/// levels at the generator's checkpoints (see the module docs).
pub struct Cap<'a> {
    lower: &'a Database,
    limit: u64,
    /// Held for reading by nobody for longer than a checkpoint, for writing while the
    /// pages are released: a checkpoint waits for a release in progress.
    gate: RwLock<()>,
    start: Instant,
    /// When the next reading is due, in microseconds since `start`.
    due: AtomicU64,
    releases: AtomicU64,
    /// Microseconds spent releasing, the other threads waiting.
    releasing: AtomicU64,
    /// The first release that failed; none is tried after it.
    failed: OnceLock<DbError>,
}

impl<'a> Cap<'a> {
    /// A cap of `limit` bytes on the resident set, kept by releasing `lower`'s pages.
    pub fn new(lower: &'a Database, limit: u64) -> Cap<'a> {
        Cap {
            lower,
            limit,
            gate: RwLock::new(()),
            start: Instant::now(),
            due: AtomicU64::new(0),
            releases: AtomicU64::new(0),
            releasing: AtomicU64::new(0),
            failed: OnceLock::new(),
        }
    }

    /// Before the build allocates `bytes` (its boards and rows' table, which it fills
    /// before its first checkpoint): releases the lower levels' pages if the resident set
    /// and those bytes together would pass the limit. Otherwise the new arrays would come
    /// on top of the lower levels' pages that the previous part left mapped, or that were
    /// mapped whole when the levels were opened (`Database::open_up_to` maps the levels of
    /// up to 256 MiB that way), with no checkpoint before they are filled.
    pub fn make_room(&self, bytes: u64) {
        match resident_bytes() {
            Some(r) if r.saturating_add(bytes) > self.limit => self.release(),
            _ => {}
        }
    }

    /// Releases the lower levels' pages, the threads that reach a checkpoint meanwhile
    /// waiting.
    fn release(&self) {
        if self.failed.get().is_some() {
            return;
        }
        let _released = self.gate.write().unwrap_or_else(PoisonError::into_inner);
        let t0 = Instant::now();
        match self.lower.release_pages() {
            Ok(()) => {
                self.releases.fetch_add(1, Ordering::Relaxed);
                let us = t0.elapsed().as_micros() as u64;
                self.releasing.fetch_add(us, Ordering::Relaxed);
            }
            Err(e) => {
                let _ = self.failed.set(e);
            }
        }
    }

    /// Called by each worker thread between pieces of work: waits while a release is in
    /// progress; every [`INTERVAL`], in one thread, reads the resident set and, above the
    /// limit, releases the lower levels' pages, the other threads waiting.
    pub fn checkpoint(&self) {
        drop(self.gate.read().unwrap_or_else(PoisonError::into_inner));
        let now = self.start.elapsed().as_micros() as u64;
        let due = self.due.load(Ordering::Relaxed);
        let next = now + INTERVAL.as_micros() as u64;
        if now < due
            || self.failed.get().is_some()
            || self
                .due
                .compare_exchange(due, next, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        match resident_bytes() {
            Some(r) if r > self.limit => self.release(),
            _ => {}
        }
    }

    /// What the cap did, or the error of the release that failed (the build's values are
    /// sound, but the limit was not kept from then on).
    pub fn finish(self) -> Result<Released, DbError> {
        match self.failed.into_inner() {
            Some(e) => Err(e),
            None => Ok(Released {
                times: self.releases.into_inner(),
                secs: self.releasing.into_inner() as f64 / 1e6,
            }),
        }
    }
}

/// What a [`Cap`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Released {
    /// How often it released the lower levels' pages.
    pub times: u64,
    /// Seconds it spent releasing them, the other threads waiting.
    pub secs: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headroom_is_64_mib_a_thread_and_more_or_a_sixteenth() {
        assert_eq!(headroom(16 << 30, 2), 1 << 30);
        assert_eq!(headroom(1 << 30, 2), 192 << 20);
        assert_eq!(headroom(1 << 30, 16), 1088 << 20);
        assert_eq!(headroom(0, 1), 128 << 20);
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

    /// Below its limit a cap releases nothing; above it (a limit of one byte) it releases
    /// at the first checkpoint and then at most once an interval, and to make room; and the
    /// levels read the same afterwards.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_cap_releases_only_above_its_limit_and_once_an_interval() {
        let dir = tempfile::tempdir().unwrap();
        let rules = crate::Rules::kalah(3, 3).unwrap();
        let game = crate::Game::new(rules);
        for k in 0..=8u32 {
            let lower = Database::open_up_to(dir.path(), &rules, k.saturating_sub(1)).unwrap();
            let v =
                crate::gen::build_level(&game, k, crate::gen::Lower::Probe(&lower), None, &|_| {})
                    .unwrap();
            db_format::write_level(dir.path(), &rules.db_key(), k, &v, db_format::Format::Byte)
                .unwrap();
        }
        let db = Database::open(dir.path(), &rules).unwrap();
        let before: Vec<i8> = db
            .level(8)
            .unwrap()
            .values()
            .expect("a one-byte file")
            .to_vec();
        let high = Cap::new(&db, u64::MAX);
        for _ in 0..10 {
            high.checkpoint();
        }
        assert_eq!(high.finish().unwrap().times, 0);
        let low = Cap::new(&db, 1);
        low.checkpoint();
        low.checkpoint();
        assert_eq!(low.releases.load(Ordering::Relaxed), 1);
        std::thread::sleep(INTERVAL * 2);
        low.checkpoint();
        assert_eq!(low.releases.load(Ordering::Relaxed), 2);
        low.make_room(0);
        assert_eq!(low.finish().unwrap().times, 3);
        let roomy = Cap::new(&db, 1 << 60);
        roomy.make_room(1 << 40);
        assert_eq!(roomy.finish().unwrap().times, 0);
        assert_eq!(db.level(8).unwrap().values(), Some(&before[..]));
    }
}
