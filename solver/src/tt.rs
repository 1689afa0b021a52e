//! The transposition table: bounds on the value of boards already searched.
//!
//! Keyed by the packed board alone ([`Board::key`]), side to move normalised: the value of
//! the future does not depend on the stores (see [`crate::board`]). The full 128-bit key is
//! stored, so a hit is never a hash collision and a stored bound is always about the board
//! it is used for: the solver's exactness does not rest on hashing luck.
//!
//! # Layout
//!
//! Buckets of one cache line: a sequence lock and two entries of three words each (see
//! `Slot`); a board hashes to one bucket. Each entry holds a lower and an upper bound on the value, the search depth they hold for ([`EXACT`] for bounds on
//! the true value), the best move found, and the work done to find them (log2 of the nodes
//! searched below).
//!
//! # Replacement policy
//!
//! A store for a key already in the bucket updates that entry (tightening the bounds when
//! the depth is the same, replacing them when the new depth is greater). Otherwise the
//! first slot keeps the more valuable of the old and new entries, judged by depth and then
//! by work (an exact result that took a million nodes is worth keeping over one that took
//! ten), and the loser goes to the second slot, which is always overwritten. Deep, costly
//! results therefore survive, and recent cheap ones still find room.

use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::board::Board;

/// The depth of a bound on the true (unlimited-depth) value.
pub const EXACT: u8 = u8::MAX;

/// No best move recorded.
pub const NO_MOVE: u8 = u8::MAX;

/// One stored result. `lo <= value <= hi` for the search at `depth`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    key: [u64; 2],
    pub lo: i16,
    pub hi: i16,
    pub depth: u8,
    /// The best move (0-based pit), or [`NO_MOVE`].
    pub mv: u8,
    /// log2 of the nodes searched to produce this entry, plus one; 0 marks an empty slot.
    work: u8,
}

/// An entry as stored: three words, all zero for an empty slot (so a new table is
/// zeroed memory that the system hands out lazily).
///
/// | word | bits   | field                          |
/// |------|--------|--------------------------------|
/// | 0    | 0..64  | key bits 0..64                 |
/// | 1    | 0..64  | key bits 64..128               |
/// | 2    | 0..16  | `lo` (i16)                     |
/// | 2    | 16..32 | `hi` (i16)                     |
/// | 2    | 32..40 | `depth`                        |
/// | 2    | 40..48 | `mv`                           |
/// | 2    | 48..56 | `work` (0: the slot is empty)  |
type Slot = [u64; 3];

impl Entry {
    #[inline]
    fn pack(&self) -> Slot {
        let data = (self.lo as u16 as u64)
            | (self.hi as u16 as u64) << 16
            | (self.depth as u64) << 32
            | (self.mv as u64) << 40
            | (self.work as u64) << 48;
        [self.key[0], self.key[1], data]
    }

    #[inline]
    fn unpack(s: &Slot) -> Entry {
        let d = s[2];
        Entry {
            key: [s[0], s[1]],
            lo: d as u16 as i16,
            hi: (d >> 16) as u16 as i16,
            depth: (d >> 32) as u8,
            mv: (d >> 40) as u8,
            work: (d >> 48) as u8,
        }
    }

    fn occupied(&self) -> bool {
        self.work != 0
    }
}

/// Table statistics, for the solver's report.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub probes: u64,
    pub hits: u64,
    pub stores: u64,
    /// Stores that evicted an entry for another board.
    pub evictions: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.probes += o.probes;
        self.hits += o.hits;
        self.stores += o.stores;
        self.evictions += o.evictions;
    }
}

/// One cache line: a sequence lock and two slots.
///
/// Several search threads share a table (see [`crate::mtdf`]), and an entry spans three
/// words, so a reader could otherwise see half of one write and half of another. The lock
/// makes every bucket read a consistent snapshot: a writer makes `version` odd, writes,
/// and makes it even again; a reader retries if `version` was odd or changed while it read.
/// All fields are atomics, so the racy reads of a retried attempt are not undefined
/// behaviour; with one thread the lock is never contended.
#[repr(C, align(64))]
struct Bucket {
    version: AtomicU64,
    slots: [[AtomicU64; 3]; 2],
}

const _: () = assert!(std::mem::size_of::<Bucket>() == 64);

impl Bucket {
    #[inline]
    fn read(&self) -> [Slot; 2] {
        loop {
            let v1 = self.version.load(Ordering::Acquire);
            if v1 & 1 == 0 {
                let mut out = [[0u64; 3]; 2];
                for (o, s) in out.iter_mut().zip(&self.slots) {
                    for (w, a) in o.iter_mut().zip(s) {
                        *w = a.load(Ordering::Relaxed);
                    }
                }
                fence(Ordering::Acquire);
                if self.version.load(Ordering::Relaxed) == v1 {
                    return out;
                }
            }
            std::hint::spin_loop();
        }
    }

    /// Run `f` on the bucket's contents under the lock and write back what it returns.
    #[inline]
    fn update<R>(&self, f: impl FnOnce(&mut [Slot; 2]) -> R) -> R {
        let v = loop {
            let v = self.version.load(Ordering::Relaxed);
            if v & 1 == 0
                && self
                    .version
                    .compare_exchange_weak(v, v + 1, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                break v;
            }
            std::hint::spin_loop();
        };
        fence(Ordering::Release);
        let mut cur = [[0u64; 3]; 2];
        for (o, s) in cur.iter_mut().zip(&self.slots) {
            for (w, a) in o.iter_mut().zip(s) {
                *w = a.load(Ordering::Relaxed);
            }
        }
        let r = f(&mut cur);
        for (o, s) in cur.iter().zip(&self.slots) {
            for (w, a) in o.iter().zip(s) {
                a.store(*w, Ordering::Relaxed);
            }
        }
        self.version.store(v + 2, Ordering::Release);
        r
    }
}

/// Zeroed memory for the buckets: an anonymous map, which the kernel may back with huge
/// pages when asked (`madvise(MADV_HUGEPAGE)`). A table of gigabytes probed at random
/// otherwise spends much of each probe on TLB misses (measured: 24% less time for the same
/// nodes on a 2 GiB table; the command is in `results/bench.md`, "Huge pages").
///
/// The kernel hands out each page when it is first written. Left to the search, that work
/// lands on its critical path, a 2 MiB page at a time, at random, and on this project's
/// virtual machines fresh memory is slow: 2 to 6 s a GiB (results/bench.md, "Fresh
/// memory"). So a helper thread asks the kernel to fault the whole map in
/// (`MADV_POPULATE_WRITE`, in chunks, from the start) while the search runs: a page the
/// search reaches first is simply already there for the helper. Populating changes no
/// byte, so it needs no coordination with the search.
struct Storage {
    map: memmap2::MmapMut,
    len: usize,
    /// Set when the table is dropped: the populating helper stops at its next chunk.
    dropped: AtomicBool,
}

/// Bytes the populating helper asks for at a time.
const POPULATE_CHUNK: usize = 32 << 20;

impl Storage {
    fn new(len: usize) -> std::io::Result<Storage> {
        let map = memmap2::MmapMut::map_anon(len * std::mem::size_of::<Bucket>())?;
        #[cfg(target_os = "linux")]
        {
            // Only advice: without huge pages the table works the same, slower.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Ok(Storage {
            map,
            len,
            dropped: AtomicBool::new(false),
        })
    }

    /// Fault the map in, chunk by chunk, until done or dropped (see the type's docs).
    fn populate(&self) {
        let bytes = self.map.len();
        let mut at = 0;
        while at < bytes && !self.dropped.load(Ordering::Relaxed) {
            let n = POPULATE_CHUNK.min(bytes - at);
            #[cfg(target_os = "linux")]
            {
                // Only advice: an old kernel without MADV_POPULATE_WRITE leaves the faults
                // to the search, as before.
                if self
                    .map
                    .advise_range(memmap2::Advice::PopulateWrite, at, n)
                    .is_err()
                {
                    return;
                }
            }
            at += n;
        }
    }
}

impl std::ops::Deref for Storage {
    type Target = [Bucket];
    fn deref(&self) -> &[Bucket] {
        // SAFETY: the map is page-aligned (more than `Bucket`'s 64), `len` buckets long and
        // zero-initialised (all-zero atomics are valid), and borrowed for as long as `self`
        // lives; it is only ever accessed through these atomics.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<Bucket>(), self.len) }
    }
}

#[inline]
fn split(key: u128) -> [u64; 2] {
    [key as u64, (key >> 64) as u64]
}

#[inline]
fn hash(key: u128) -> u64 {
    let [a, b] = split(key);
    let h = (a ^ b.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^ (h >> 31)
}

/// The table size worth allocating, in MiB, for a search of boards with at most `seeds`
/// seeds in `2·pits` pits: at most `max_mb`, and no more than twice what every such board
/// would fill (there are C(seeds + 2m, 2m) of them). A small solve then touches a small
/// table instead of faulting in gigabytes of huge pages.
pub fn sized_for(pits: usize, seeds: u32, max_mb: usize) -> usize {
    let boards =
        db_format::index::checked_binomial(seeds as u64 + 2 * pits as u64, 2 * pits as u64);
    match boards {
        Some(b) => {
            let bytes = b.saturating_mul(std::mem::size_of::<Bucket>() as u64);
            let mb = bytes.div_ceil(1 << 20).max(1);
            (mb.min(max_mb as u64) as usize).max(1)
        }
        None => max_mb,
    }
}

/// A fixed-size table of buckets of two entries, shareable between search threads.
pub struct Table {
    buckets: Arc<Storage>,
    mask: usize,
    /// The helper faulting the table in (see `Storage`), joined on drop.
    populate: Option<std::thread::JoinHandle<()>>,
}

/// Tables smaller than this are left to fault in as the search goes.
const POPULATE_MIN_BYTES: usize = 64 << 20;

impl Table {
    /// A table of at most `megabytes` MiB (rounded down to a power of two buckets, at least
    /// one bucket).
    pub fn new(megabytes: usize) -> std::io::Result<Table> {
        let bytes = megabytes.max(1) * (1 << 20);
        let want = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let n = if want.is_power_of_two() {
            want
        } else {
            want.next_power_of_two() / 2
        };
        let buckets = Arc::new(Storage::new(n)?);
        let populate = (n * std::mem::size_of::<Bucket>() >= POPULATE_MIN_BYTES).then(|| {
            let b = Arc::clone(&buckets);
            std::thread::spawn(move || b.populate())
        });
        Ok(Table {
            buckets,
            mask: n - 1,
            populate,
        })
    }

    /// Bytes the table occupies.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    #[inline]
    fn bucket(&self, key: u128) -> &Bucket {
        &self.buckets[hash(key) as usize & self.mask]
    }

    /// The entry for `board`, if the table holds one.
    #[inline]
    pub fn probe(&self, board: &Board, stats: &mut Stats) -> Option<Entry> {
        let key = board.key();
        let k = split(key);
        stats.probes += 1;
        let hit = self
            .bucket(key)
            .read()
            .iter()
            .map(Entry::unpack)
            .find(|e| e.occupied() && e.key == k);
        if hit.is_some() {
            stats.hits += 1;
        }
        hit
    }

    /// Record that the value of `board` at `depth` lies in `lo..=hi`, with best move `mv`,
    /// after `nodes` nodes of work (see the module docs for the policy).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        board: &Board,
        depth: u8,
        lo: i32,
        hi: i32,
        mv: u8,
        nodes: u64,
        stats: &mut Stats,
    ) {
        let key = board.key();
        let k = split(key);
        let work = (64 - nodes.leading_zeros()) as u8 + 1;
        stats.stores += 1;
        let evicted = self.bucket(key).update(|bucket| {
            for slot in bucket.iter_mut() {
                let mut e = Entry::unpack(slot);
                if e.occupied() && e.key == k {
                    if depth == e.depth {
                        e.lo = e.lo.max(lo as i16);
                        e.hi = e.hi.min(hi as i16);
                    } else if depth > e.depth {
                        e.lo = lo as i16;
                        e.hi = hi as i16;
                        e.depth = depth;
                    } else {
                        return false;
                    }
                    if mv != NO_MOVE {
                        e.mv = mv;
                    }
                    e.work = e.work.max(work);
                    *slot = e.pack();
                    return false;
                }
            }
            let new = Entry {
                key: k,
                lo: lo as i16,
                hi: hi as i16,
                depth,
                mv,
                work,
            };
            let old = Entry::unpack(&bucket[0]);
            let (keep, drop) = if (new.depth, new.work) >= (old.depth, old.work) {
                (new, old)
            } else {
                (old, new)
            };
            // The loser takes the second slot, evicting whatever was there.
            let evicted = Entry::unpack(&bucket[1]).occupied() && drop.occupied();
            bucket[0] = keep.pack();
            if drop.occupied() {
                bucket[1] = drop.pack();
            }
            evicted
        });
        if evicted {
            stats.evictions += 1;
        }
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        self.buckets.dropped.store(true, Ordering::Relaxed);
        if let Some(h) = self.populate.take() {
            // A helper that panicked has nothing left to clean up.
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_boards_get_small_tables() {
        // C(18 + 6, 6) = 134,596 boards of Kalah(3,3): a 64-byte bucket each, 8.2 MiB.
        assert_eq!(sized_for(3, 18, 1024), 9);
        assert_eq!(sized_for(6, 48, 1024), 1024);
        assert_eq!(sized_for(1, 0, 1024), 1);
    }

    #[test]
    fn store_probe_and_tighten() {
        let t = Table::new(1).unwrap();
        let st = &mut Stats::default();
        let b = Board::start(6, 4);
        assert!(t.probe(&b, st).is_none());
        t.store(&b, EXACT, 2, 48, 3, 100, st);
        t.store(&b, EXACT, -48, 10, NO_MOVE, 10, st);
        let e = t.probe(&b, st).unwrap();
        assert_eq!((e.lo, e.hi, e.mv, e.depth), (2, 10, 3, EXACT));
        // A shallower result does not overwrite an exact one.
        t.store(&b, 3, 0, 0, 1, 1000, st);
        let e = t.probe(&b, st).unwrap();
        assert_eq!((e.lo, e.hi, e.depth), (2, 10, EXACT));
    }

    #[test]
    fn threads_sharing_a_table_never_see_torn_entries() {
        // Writers store entries whose bounds are a function of the key; readers check it.
        let t = Table::new(1).unwrap();
        let boards: Vec<Board> = (0..64u8)
            .map(|i| Board::from_cells(2, &[i, 1, 2, 3]))
            .collect();
        std::thread::scope(|s| {
            for w in 0..2 {
                let (t, boards) = (&t, &boards);
                s.spawn(move || {
                    let st = &mut Stats::default();
                    for round in 0..20_000usize {
                        let b = &boards[(round * 7 + w) % boards.len()];
                        let v = b.cells()[0] as i32;
                        t.store(b, EXACT, v, v + 1, 0, round as u64, st);
                        if let Some(e) = t.probe(&boards[round % boards.len()], st) {
                            let want = boards[round % boards.len()].cells()[0] as i16;
                            assert_eq!((e.lo, e.hi), (want, want + 1));
                        }
                    }
                });
            }
        });
    }

    #[test]
    fn valuable_entries_survive_collisions() {
        let mut t = Table::new(1).unwrap();
        let st = &mut Stats::default();
        t.mask = 0;
        let boards: Vec<Board> = (1..=4).map(|i| Board::start(6, i)).collect();
        t.store(&boards[0], EXACT, 0, 0, 0, 1 << 20, st);
        for b in &boards[1..] {
            t.store(b, EXACT, 1, 1, 0, 5, st);
        }
        assert!(t.probe(&boards[0], st).is_some());
        assert!(t.probe(&boards[3], st).is_some());
        assert!(t.probe(&boards[1], st).is_none());
    }
}
