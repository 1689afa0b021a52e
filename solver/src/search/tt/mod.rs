//! The transposition table: bounds on the value of boards already searched.
//!
//! Keyed by the pits alone, side to move normalised: the value of the future does not
//! depend on the stores (see [`crate::board`]). Every entry identifies its board exactly
//! (the whole 128-bit [`Board::key`], or in the compact layout the bits of the board's
//! rank that its bucket does not already give), so a hit is never a hash collision and a
//! stored bound is always about the board it is used for: the solver's exactness does not
//! rest on hashing luck.
//!
//! # Layouts
//!
//! Buckets of one cache line; a board goes to one bucket. Each entry holds a lower and an
//! upper bound on the value, the search depth they hold for ([`EXACT`] for bounds on the
//! true value), the best move found, and the work done to find them (log2 of the nodes
//! searched below). Two ways to lay a bucket out ([`Table::for_boards`] chooses):
//!
//! - compact (`compact::Compact`): eight entries of one word, for boards whose rank among
//!   all boards of the root's seeds fits beside the entry (Kalah(6,4) and (6,5) do): no
//!   lock, since a word is written whole;
//! - wide: a sequence lock and two entries of three words (see `bucket::Slot`), for any
//!   board.
//!
//! # Replacement policy
//!
//! A store for a board already in the bucket updates its entry (tightening the bounds when
//! the depth is the same, replacing them when the new depth is greater, leaving a deeper
//! entry alone). Otherwise, compact: the new entry takes an empty slot, else the least
//! valuable one, judged by depth and then by work (an exact result that took a million
//! nodes is worth keeping over one that took ten). Wide: the first slot keeps the more
//! valuable of the old and new entries and the loser goes to the second slot, which is
//! always overwritten. Either way deep, costly results survive, and recent cheap ones still
//! find room.

mod bucket;
mod compact;

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::board::Board;
use bucket::{Bucket, Storage};
use compact::Compact;

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

/// Where a board's entry lives in a table ([`Table::key`]): computed once per node, used
/// by its probe and its store.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// The whole board, as [`Board::key`] packs it.
    board: u128,
    /// Its bucket, or `usize::MAX` for a board the table does not hold.
    bucket: usize,
    /// The compact layout's stored bits of the mixed key (0 in the wide layout).
    quotient: u64,
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

/// How a table lays its entries out in the 64-byte buckets.
enum Layout {
    /// Two entries of three words under a sequence lock (see [`Bucket::read`]), keyed by
    /// the whole 128-bit board: for any board.
    Wide,
    /// Eight entries of one word (see [`Compact`]): four times the entries in the same
    /// memory, for boards of at most [`Compact::max_seeds`] seeds that fit its key.
    Compact(Compact),
}

/// The default table size, in MiB (`--tt-mb`): 2^23 entries in the compact layout.
/// Kalah(6,4) searches no more nodes with it than with twice as much, and the memory it
/// leaves room for the endgame table's 19th level (results/speed.md, "What was tried").
/// Searches of hundreds of millions of nodes (Kalah(6,5)) want `--tt-mb 2048`.
pub const DEFAULT_MB: usize = 64;

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

/// A fixed-size table of buckets, shareable between search threads.
pub struct Table {
    buckets: Arc<Storage>,
    mask: usize,
    /// The helper faulting the table in (see `Storage`), joined on drop.
    populate: Option<std::thread::JoinHandle<()>>,
    layout: Layout,
}

/// Tables smaller than this are left to fault in as the search goes.
const POPULATE_MIN_BYTES: usize = 64 << 20;

impl Table {
    /// A table of at most `megabytes` MiB (rounded down to a power of two buckets, at least
    /// one bucket), in the wide layout: it holds any board.
    pub fn new(megabytes: usize) -> std::io::Result<Table> {
        Table::allocate(megabytes, |_| Layout::Wide)
    }

    /// A table of at most `megabytes` MiB for boards of at most `max_seeds` seeds in
    /// `2 * pits` pits: in the compact layout where its entries fit a word, four times as
    /// many as [`Table::new`]'s in the same memory, else in the wide one. A board with more
    /// seeds than `max_seeds` is never stored nor found (the search stays exact, only
    /// slower).
    pub fn for_boards(megabytes: usize, pits: usize, max_seeds: u32) -> std::io::Result<Table> {
        Table::allocate(megabytes, |buckets| {
            Compact::new(pits, max_seeds, buckets).map_or(Layout::Wide, Layout::Compact)
        })
    }

    fn allocate(megabytes: usize, layout: impl FnOnce(usize) -> Layout) -> std::io::Result<Table> {
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
            layout: layout(n),
        })
    }

    /// Bytes the table occupies.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Where `board`'s entry lives (see [`Key`]).
    #[inline]
    pub fn key(&self, board: &Board) -> Key {
        let packed = board.key();
        match &self.layout {
            Layout::Wide => Key {
                board: packed,
                bucket: hash(packed) as usize & self.mask,
                quotient: 0,
            },
            Layout::Compact(c) => match c.mixed(board) {
                Some(x) => Key {
                    board: packed,
                    bucket: (x >> c.q_bits) as usize & self.mask,
                    quotient: c.quotient(x),
                },
                None => Key {
                    board: packed,
                    bucket: usize::MAX,
                    quotient: 0,
                },
            },
        }
    }

    /// Ask the processor to start fetching `key`'s bucket: a search that has other work
    /// before it probes the table overlaps that work with the wait for memory.
    #[inline]
    pub fn prefetch(&self, key: &Key) {
        if let Some(bucket) = self.buckets.get(key.bucket) {
            crate::memory::prefetch(bucket);
        }
    }

    /// The entry for `board`, if the table holds one.
    #[inline]
    pub fn probe(&self, board: &Board, stats: &mut Stats) -> Option<Entry> {
        self.probe_key(&self.key(board), stats)
    }

    /// The entry at `key` (of this table), if the table holds one.
    #[inline]
    pub fn probe_key(&self, key: &Key, stats: &mut Stats) -> Option<Entry> {
        stats.probes += 1;
        let bucket = self.buckets.get(key.bucket)?;
        let k = split(key.board);
        let hit = match &self.layout {
            Layout::Wide => bucket
                .read()
                .iter()
                .map(Entry::unpack)
                .find(|e| e.occupied() && e.key == k),
            Layout::Compact(c) => bucket.words.iter().find_map(|w| {
                let w = w.load(Ordering::Relaxed);
                (c.occupied(w) && c.quotient(w) == key.quotient).then(|| c.unpack(w, k))
            }),
        };
        if hit.is_some() {
            stats.hits += 1;
        }
        hit
    }

    /// Record that the value of the board at `key` (of this table) at `depth` lies in
    /// `lo..=hi`, with best move `mv`, after `nodes` nodes of work (see the module docs for
    /// the policy).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: &Key,
        depth: u8,
        lo: i32,
        hi: i32,
        mv: u8,
        nodes: u64,
        stats: &mut Stats,
    ) {
        let Some(bucket) = self.buckets.get(key.bucket) else {
            return;
        };
        let new = Entry {
            key: split(key.board),
            lo: lo as i16,
            hi: hi as i16,
            depth,
            mv,
            work: (64 - nodes.leading_zeros()) as u8 + 1,
        };
        stats.stores += 1;
        let evicted = match &self.layout {
            Layout::Wide => Table::store_wide(bucket, new),
            Layout::Compact(c) => Table::store_compact(c, bucket, key.quotient, new),
        };
        if evicted {
            stats.evictions += 1;
        }
    }

    /// `old` (an entry for the same board) updated with `new`, or none when `old` is
    /// deeper and stays as it is.
    #[inline]
    fn merged(old: Entry, new: Entry) -> Option<Entry> {
        let mut e = old;
        if new.depth == e.depth {
            e.lo = e.lo.max(new.lo);
            e.hi = e.hi.min(new.hi);
        } else if new.depth > e.depth {
            e.lo = new.lo;
            e.hi = new.hi;
            e.depth = new.depth;
        } else {
            return None;
        }
        if new.mv != NO_MOVE {
            e.mv = new.mv;
        }
        e.work = e.work.max(new.work);
        Some(e)
    }

    /// Stores `new` in the wide layout; true when it evicted another board's entry.
    #[inline]
    fn store_wide(bucket: &Bucket, new: Entry) -> bool {
        bucket.update(|bucket| {
            for slot in bucket.iter_mut() {
                let e = Entry::unpack(slot);
                if e.occupied() && e.key == new.key {
                    if let Some(e) = Table::merged(e, new) {
                        *slot = e.pack();
                    }
                    return false;
                }
            }
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
        })
    }

    /// Stores `new` in the compact layout: into the board's own slot if it has one, else
    /// an empty slot, else over the least valuable entry (by depth, then work), so a new
    /// entry always finds room and deep, costly ones survive. True when it evicted another
    /// board's entry.
    #[inline]
    fn store_compact(c: &Compact, bucket: &Bucket, q: u64, new: Entry) -> bool {
        let mut empty = None;
        let mut victim = (0, (u8::MAX, u8::MAX));
        for (i, w) in bucket.words.iter().enumerate() {
            let word = w.load(Ordering::Relaxed);
            if !c.occupied(word) {
                empty = empty.or(Some(i));
            } else if c.quotient(word) == q {
                if let Some(e) = Table::merged(c.unpack(word, new.key), new) {
                    w.store(c.pack(q, &e), Ordering::Relaxed);
                }
                return false;
            } else if c.worth(word) < victim.1 {
                victim = (i, c.worth(word));
            }
        }
        let slot = empty.unwrap_or(victim.0);
        bucket.words[slot].store(c.pack(q, &new), Ordering::Relaxed);
        empty.is_none()
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
        for t in layouts(1, 6, 48) {
            let st = &mut Stats::default();
            let b = Board::start(6, 4);
            assert!(t.probe(&b, st).is_none());
            t.store(&t.key(&b), EXACT, 2, 48, 3, 100, st);
            t.store(&t.key(&b), EXACT, -48, 10, NO_MOVE, 10, st);
            let e = t.probe(&b, st).unwrap();
            assert_eq!((e.lo, e.hi, e.mv, e.depth), (2, 10, 3, EXACT));
            // A shallower result does not overwrite an exact one.
            t.store(&t.key(&b), 3, 0, 0, 1, 1000, st);
            let e = t.probe(&b, st).unwrap();
            assert_eq!((e.lo, e.hi, e.depth), (2, 10, EXACT));
        }
    }

    #[test]
    fn threads_sharing_a_table_never_see_torn_entries() {
        // Writers store entries whose bounds are a function of the key; readers check it.
        let boards: Vec<Board> = (0..64u8)
            .map(|i| Board::from_cells(2, &[i, 1, 2, 3]))
            .collect();
        for t in layouts(1, 2, 69) {
            std::thread::scope(|s| {
                for w in 0..2 {
                    let (t, boards) = (&t, &boards);
                    s.spawn(move || {
                        let st = &mut Stats::default();
                        for round in 0..20_000usize {
                            let b = &boards[(round * 7 + w) % boards.len()];
                            let v = b.cells()[0] as i32;
                            t.store(&t.key(b), EXACT, v, v + 1, 0, round as u64, st);
                            if let Some(e) = t.probe(&boards[round % boards.len()], st) {
                                let want = boards[round % boards.len()].cells()[0] as i16;
                                assert_eq!((e.lo, e.hi), (want, want + 1));
                            }
                        }
                    });
                }
            });
        }
    }

    #[test]
    fn valuable_entries_survive_collisions() {
        let mut t = Table::new(1).unwrap();
        let st = &mut Stats::default();
        t.mask = 0;
        let boards: Vec<Board> = (1..=4).map(|i| Board::start(6, i)).collect();
        t.store(&t.key(&boards[0]), EXACT, 0, 0, 0, 1 << 20, st);
        for b in &boards[1..] {
            t.store(&t.key(b), EXACT, 1, 1, 0, 5, st);
        }
        assert!(t.probe(&boards[0], st).is_some());
        assert!(t.probe(&boards[3], st).is_some());
        assert!(t.probe(&boards[1], st).is_none());
    }

    #[test]
    fn valuable_entries_survive_in_compact_buckets() {
        let t = Table::for_boards(1, 6, 48).unwrap();
        let Layout::Compact(c) = &t.layout else {
            panic!("Kalah(6,4) fits the compact layout");
        };
        // Ten boards of one bucket: the first costly, the others cheap.
        let bucket = |b: &Board| (c.mixed(b).unwrap() >> c.q_bits) as usize & t.mask;
        let mut by_bucket: std::collections::HashMap<usize, Vec<Board>> = Default::default();
        for a in 0..=40u8 {
            for b in 0..=40 - a {
                for x in 0..=40 - a - b {
                    for y in 0..=40 - a - b - x {
                        let board = Board::from_cells(6, &[a, b, x, y, 0, 1, 2, 0, 0, 0, 0, 3]);
                        by_bucket.entry(bucket(&board)).or_default().push(board);
                    }
                }
            }
        }
        let boards: Vec<Board> = by_bucket
            .into_values()
            .find(|v| v.len() >= 10)
            .expect("136,000 boards in 16,384 buckets fill some bucket ten times")
            .into_iter()
            .take(10)
            .collect();
        assert_eq!(boards.len(), 10);
        let st = &mut Stats::default();
        t.store(&t.key(&boards[0]), EXACT, 0, 0, 0, 1 << 20, st);
        for b in &boards[1..] {
            t.store(&t.key(b), EXACT, 1, 1, 0, 5, st);
        }
        assert_eq!(st.evictions, 2);
        assert!(t.probe(&boards[0], st).is_some());
        assert!(t.probe(&boards[9], st).is_some());
        assert_eq!(
            boards.iter().filter(|b| t.probe(b, st).is_some()).count(),
            8
        );
    }

    /// Both table layouts for boards of at most `seeds` seeds in `2 * pits` pits.
    fn layouts(mb: usize, pits: usize, seeds: u32) -> Vec<Table> {
        let compact = Table::for_boards(mb, pits, seeds).unwrap();
        assert!(matches!(compact.layout, Layout::Compact(_)));
        vec![Table::new(mb).unwrap(), compact]
    }

    #[test]
    fn compact_entries_round_trip() {
        for t in layouts(1, 6, 48) {
            let st = &mut Stats::default();
            let b = Board::start(6, 4);
            t.store(&t.key(&b), 6, -48, 48, NO_MOVE, 0, st);
            let e = t.probe(&b, st).unwrap();
            assert_eq!((e.lo, e.hi, e.depth, e.mv), (-48, 48, 6, NO_MOVE));
            t.store(&t.key(&b), EXACT, -7, 9, 5, u64::MAX, st);
            let e = t.probe(&b, st).unwrap();
            assert_eq!((e.lo, e.hi, e.depth, e.mv), (-7, 9, EXACT, 5));
        }
    }

    #[test]
    fn compact_keys_tell_every_board_apart() {
        // All boards of Kalah(2, n) with at most 12 seeds, in a table of 16 buckets: the
        // bucket and the stored quotient must differ for any two boards.
        let t = Table::for_boards(1, 2, 12).unwrap();
        let Layout::Compact(c) = &t.layout else {
            panic!("Kalah(2,3) fits the compact layout");
        };
        let mut seen = std::collections::HashSet::new();
        for a in 0..=12u8 {
            for b in 0..=12 - a {
                for x in 0..=12 - a - b {
                    for y in 0..=12 - a - b - x {
                        let m = c.mixed(&Board::from_cells(2, &[a, b, x, y])).unwrap();
                        assert!(m <= c.key_mask);
                        assert!(seen.insert(m), "two boards share a key");
                    }
                }
            }
        }
        assert_eq!(seen.len(), 1820); // C(12 + 4, 4)
        assert!(c.mixed(&Board::from_cells(2, &[13, 0, 0, 0])).is_none());
    }

    #[test]
    fn boards_beyond_a_compact_table_are_never_stored() {
        let t = Table::for_boards(1, 6, 24).unwrap();
        let st = &mut Stats::default();
        let b = Board::start(6, 4);
        t.store(&t.key(&b), EXACT, 8, 8, 2, 1000, st);
        assert!(t.probe(&b, st).is_none());
    }

    #[test]
    fn tables_too_wide_for_a_word_stay_wide() {
        // 127 seeds in 16 cells: the key alone needs more than 64 bits.
        let t = Table::for_boards(1, 8, 127).unwrap();
        assert!(matches!(t.layout, Layout::Wide));
        let st = &mut Stats::default();
        let b = Board::start(8, 15);
        t.store(&t.key(&b), EXACT, 1, 2, 0, 10, st);
        assert_eq!(t.probe(&b, st).map(|e| (e.lo, e.hi)), Some((1, 2)));
    }
}
