//! The compact layout: an entry packed in one 64-bit word, keyed by the board's rank.

use db_format::Ranker;

use super::{Entry, EXACT, NO_MOVE};
use crate::board::Board;
use crate::rank::FastRank;

/// The compact layout: one 64-bit word an entry, eight to a bucket, no lock.
///
/// A board of `s <= N` seeds in `c = 2m` cells is numbered by its rank among all boards of
/// at most `N` seeds, `key = C(s - 1 + c, c) + rank_s(board)` (the boards with fewer seeds
/// first, then the stars-and-bars rank within its seed count, as in the database files):
/// an integer below `C(N + c, c)`, which takes `B` bits. A bijective mix of those `B` bits
/// (multiplications by odd constants and xor-shifts, each invertible modulo `2^B`) spreads
/// the keys; its top bits choose the bucket and its other `q = B - log2(buckets)` bits are
/// stored. Bucket and stored bits together give back the mixed key, hence the key, hence
/// the board: as with the wide layout, a hit is never a collision.
///
/// | bits (from bit 0) | field |
/// |---|---|
/// | `q`       | the key's stored bits (the quotient) |
/// | `v`       | `lo + N` |
/// | `v`       | `hi + N` |
/// | `DEPTH_BITS` = 5 | `depth` (31: [`EXACT`]) |
/// | `MOVE_BITS` = 4  | `mv` (15: [`NO_MOVE`]) |
/// | `WORK_BITS` = 6  | `work`, at most 63 (0: the slot is empty, so a new table is zeroed memory) |
///
/// `v` bits hold `0..=2N`. Kalah(6,4) (`N = 48`, `c = 12`): `C(60, 12) ≈ 1.4·10^12` keys,
/// `B = 41`; a 256 MiB table has `2^22` buckets, so `q = 19`, `v = 7` and an entry uses
/// 48 bits. Words are written whole, so two threads can never tear an entry; they can at
/// worst lose each other's updates or store one board twice in a bucket, and every stored
/// bound is still a true bound for its board.
pub(super) struct Compact {
    max_seeds: u32,
    /// Ranks boards of every seed count up to `max_seeds`.
    rank: FastRank,
    /// `below[s]`: boards with fewer than `s` seeds, `C(s - 1 + c, c)`.
    below: Vec<u64>,
    key_bits: u32,
    pub(super) key_mask: u64,
    pub(super) q_bits: u32,
    v_bits: u32,
}

/// The compact entry's bit budget beside the quotient and the two values (see the table
/// above): depth, move and work, in that order from bit `q + 2v`.
const DEPTH_BITS: u32 = 5;
const MOVE_BITS: u32 = 4;
const WORK_BITS: u32 = 6;
/// Where the work starts, counted from the end of the two values.
const WORK_AT: u32 = DEPTH_BITS + MOVE_BITS;
/// All three: the quotient and the two values get the other `64 - FIXED_BITS` bits.
const FIXED_BITS: u32 = DEPTH_BITS + MOVE_BITS + WORK_BITS;
/// The stored depth of [`EXACT`]: the largest the field holds.
const COMPACT_DEPTH_EXACT: u64 = (1 << DEPTH_BITS) - 1;
/// The stored move of [`NO_MOVE`]: the largest the field holds.
const COMPACT_NO_MOVE: u64 = (1 << MOVE_BITS) - 1;
/// The largest work the field holds.
const COMPACT_MAX_WORK: u8 = (1 << WORK_BITS) - 1;

// Every depth-limited iteration's depth stays below the exact one's code, every pit
// below the no-move code, and the log2 of any node count (at most 65, see
// `Table::store`) is clamped to the work field.
const _: () = assert!((crate::search::MAX_ID_DEPTH as u64) < COMPACT_DEPTH_EXACT);
const _: () = assert!((crate::rules::MAX_PITS as u64) < COMPACT_NO_MOVE);
const _: () = assert!(FIXED_BITS == 15 && WORK_BITS < 8);

impl Compact {
    /// The compact layout for `buckets` buckets (a power of two) and boards of at most
    /// `max_seeds` seeds in `2 * pits` pits, if it fits in a word.
    pub(super) fn new(pits: usize, max_seeds: u32, buckets: usize) -> Option<Compact> {
        let cells = 2 * pits;
        let c = cells as u64;
        let total = db_format::index::checked_binomial(u64::from(max_seeds) + c, c)?;
        let key_bits = 64 - (total.max(2) - 1).leading_zeros();
        let q_bits = key_bits.saturating_sub(buckets.trailing_zeros());
        let v_bits = 64 - u64::from(2 * max_seeds).max(1).leading_zeros();
        if max_seeds > i16::MAX as u32 || q_bits + 2 * v_bits + FIXED_BITS > 64 {
            return None;
        }
        let rank = FastRank::new(&Ranker::new(cells, max_seeds).ok()?);
        let below = (0..=u64::from(max_seeds))
            .map(|s| match s {
                0 => Some(0),
                _ => db_format::index::checked_binomial(s - 1 + c, c),
            })
            .collect::<Option<Vec<u64>>>()?;
        Some(Compact {
            max_seeds,
            rank,
            below,
            key_bits,
            key_mask: u64::MAX >> (64 - key_bits),
            q_bits,
            v_bits,
        })
    }

    /// The mixed key of `board` (below `2^key_bits`), or none for a board with more than
    /// `max_seeds` seeds, which this table does not hold.
    #[inline]
    pub(super) fn mixed(&self, board: &Board) -> Option<u64> {
        let seeds = board.seeds();
        if seeds > self.max_seeds {
            return None;
        }
        let key = self.below[seeds as usize] + self.rank.rank(board.cells());
        // Each step is a bijection of 0..2^key_bits.
        let (mask, shift) = (self.key_mask, self.key_bits / 2 + 1);
        let mut x = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask;
        x ^= x >> shift;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9) & mask;
        x ^= x >> shift;
        Some(x)
    }

    /// `work > 0`: the word holds an entry.
    #[inline]
    pub(super) fn occupied(&self, word: u64) -> bool {
        word >> (self.q_bits + 2 * self.v_bits + WORK_AT) != 0
    }

    /// What the replacement policy keeps: `(depth, work)`, compared as numbers (the
    /// stored depth of [`EXACT`] is the largest, as [`EXACT`] is).
    #[inline]
    pub(super) fn worth(&self, word: u64) -> (u8, u8) {
        let at = self.q_bits + 2 * self.v_bits;
        (
            ((word >> at) & COMPACT_DEPTH_EXACT) as u8,
            (word >> (at + WORK_AT)) as u8,
        )
    }

    #[inline]
    pub(super) fn quotient(&self, word: u64) -> u64 {
        word & !(u64::MAX << self.q_bits)
    }

    pub(super) fn pack(&self, quotient: u64, e: &Entry) -> u64 {
        let n = i32::from(self.max_seeds as i16);
        // Values lie in -N..=N (a side gains at most the seeds on the board), so the
        // clamps never weaken or falsify a bound.
        let v = |x: i16| (i32::from(x).clamp(-n, n) + n) as u64;
        let depth = if e.depth == EXACT {
            COMPACT_DEPTH_EXACT
        } else {
            u64::from(e.depth).min(COMPACT_DEPTH_EXACT - 1)
        };
        let mv = if e.mv == NO_MOVE {
            COMPACT_NO_MOVE
        } else {
            u64::from(e.mv)
        };
        let mut at = self.q_bits;
        let mut word = quotient;
        for (x, bits) in [
            (v(e.lo), self.v_bits),
            (v(e.hi), self.v_bits),
            (depth, DEPTH_BITS),
            (mv, MOVE_BITS),
            (u64::from(e.work.min(COMPACT_MAX_WORK)), WORK_BITS),
        ] {
            word |= x << at;
            at += bits;
        }
        word
    }

    pub(super) fn unpack(&self, word: u64, key: [u64; 2]) -> Entry {
        let n = self.max_seeds as i32;
        let field = |at: u32, bits: u32| (word >> at) & !(u64::MAX << bits);
        let q = self.q_bits;
        let v = self.v_bits;
        let depth = field(q + 2 * v, DEPTH_BITS);
        let mv = field(q + 2 * v + DEPTH_BITS, MOVE_BITS);
        Entry {
            key,
            lo: (field(q, v) as i32 - n) as i16,
            hi: (field(q + v, v) as i32 - n) as i16,
            depth: if depth == COMPACT_DEPTH_EXACT {
                EXACT
            } else {
                depth as u8
            },
            mv: if mv == COMPACT_NO_MOVE {
                NO_MOVE
            } else {
                mv as u8
            },
            work: field(q + 2 * v + WORK_AT, WORK_BITS) as u8,
        }
    }
}
