//! The table's memory: buckets of one cache line, read in the wide layout as a sequence
//! lock and two slots of three words (an [`Entry`] packed whole), and the anonymous map
//! that holds them, faulted in by a helper thread.

use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};

use super::Entry;

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
pub(super) type Slot = [u64; 3];

impl Entry {
    #[inline]
    pub(super) fn pack(&self) -> Slot {
        let data = (self.lo as u16 as u64)
            | (self.hi as u16 as u64) << 16
            | (self.depth as u64) << 32
            | (self.mv as u64) << 40
            | (self.work as u64) << 48;
        [self.key[0], self.key[1], data]
    }

    #[inline]
    pub(super) fn unpack(s: &Slot) -> Entry {
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

    pub(super) fn occupied(&self) -> bool {
        self.work != 0
    }
}

/// One cache line of eight words, read and written in one of two layouts ([`Layout`]).
#[repr(C, align(64))]
pub(super) struct Bucket {
    pub(super) words: [AtomicU64; 8],
}

const _: () = assert!(std::mem::size_of::<Bucket>() == 64);

/// The wide layout's view of a bucket: a sequence lock and two slots.
///
/// Several search threads share a table (see [`crate::search`]), and a wide entry spans
/// three words, so a reader could otherwise see half of one write and half of another. The
/// lock makes every bucket read a consistent snapshot: a writer makes `version` (word 0)
/// odd, writes, and makes it even again; a reader retries if `version` was odd or changed
/// while it read. All fields are atomics, so the racy reads of a retried attempt are not
/// undefined behaviour; with one thread the lock is never contended. Slot `i` is words
/// `1 + 3i..4 + 3i`; the eighth word is unused.
impl Bucket {
    #[inline]
    fn version(&self) -> &AtomicU64 {
        &self.words[0]
    }

    #[inline]
    fn load_slots(&self) -> [Slot; 2] {
        let mut out = [[0u64; 3]; 2];
        for (i, o) in out.iter_mut().enumerate() {
            for (j, w) in o.iter_mut().enumerate() {
                *w = self.words[1 + 3 * i + j].load(Ordering::Relaxed);
            }
        }
        out
    }

    #[inline]
    pub(super) fn read(&self) -> [Slot; 2] {
        loop {
            let v1 = self.version().load(Ordering::Acquire);
            if v1 & 1 == 0 {
                let out = self.load_slots();
                fence(Ordering::Acquire);
                if self.version().load(Ordering::Relaxed) == v1 {
                    return out;
                }
            }
            std::hint::spin_loop();
        }
    }

    /// Run `f` on the bucket's contents under the lock and write back what it returns.
    #[inline]
    pub(super) fn update<R>(&self, f: impl FnOnce(&mut [Slot; 2]) -> R) -> R {
        let v = loop {
            let v = self.version().load(Ordering::Relaxed);
            if v & 1 == 0
                && self
                    .version()
                    .compare_exchange_weak(v, v + 1, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                break v;
            }
            std::hint::spin_loop();
        };
        fence(Ordering::Release);
        let mut cur = self.load_slots();
        let r = f(&mut cur);
        for (i, o) in cur.iter().enumerate() {
            for (j, w) in o.iter().enumerate() {
                self.words[1 + 3 * i + j].store(*w, Ordering::Relaxed);
            }
        }
        self.version().store(v + 2, Ordering::Release);
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
pub(super) struct Storage {
    map: memmap2::MmapMut,
    len: usize,
    /// Set when the table is dropped: the populating helper stops at its next chunk.
    pub(super) dropped: AtomicBool,
}

/// Bytes the populating helper asks for at a time.
const POPULATE_CHUNK: usize = 32 << 20;

impl Storage {
    pub(super) fn new(len: usize) -> std::io::Result<Storage> {
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
    pub(super) fn populate(&self) {
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
