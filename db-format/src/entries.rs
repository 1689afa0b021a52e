//! A level's entries by rank, whatever the file's format: what the generator and the
//! verifier read lower levels through.
//!
//! Why an enum and not a trait object: the verifier and the generator read an entry for
//! nearly every child of every board, and a version-1 level is then one byte read; a
//! `match` on a variant that is the same for every read predicts perfectly, where a call
//! through a vtable costs every read.

use crate::compact::Compact;

/// The entries of one level, entry `r` the value of the board of rank `r`.
#[derive(Clone, Copy)]
pub enum Entries<'a> {
    /// One `i8` an entry (a version-1 file's payload, or a level built in memory).
    Bytes(&'a [i8]),
    /// A compact (version-2) payload and its validated description.
    Compact {
        /// The layout and decoding table of `payload`.
        code: &'a Compact,
        /// The payload (the file after its header).
        payload: &'a [u8],
    },
}

impl std::fmt::Debug for Entries<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Entries::Bytes(v) => write!(f, "Entries::Bytes({} entries)", v.len()),
            Entries::Compact { code, .. } => {
                write!(f, "Entries::Compact({} entries)", code.count())
            }
        }
    }
}

impl<'a> Entries<'a> {
    /// Entries of the level.
    pub fn len(&self) -> u64 {
        match self {
            Entries::Bytes(v) => v.len() as u64,
            Entries::Compact { code, .. } => code.count(),
        }
    }

    /// Never true for a level (every level has a board); for symmetry with `len`.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entry of rank `rank`, `None` when `rank >= len()` or a compact block is found
    /// damaged ([`Compact::get`]). A version-1 byte is returned as stored, which in a
    /// damaged file may lie outside `-k..=k`; a compact entry never does.
    #[inline]
    pub fn get(&self, rank: u64) -> Option<i8> {
        match self {
            Entries::Bytes(v) => v.get(usize::try_from(rank).ok()?).copied(),
            Entries::Compact { code, payload } => code.get(payload, rank),
        }
    }

    /// The byte [`Entries::get`] of `rank` reads first (the entry itself, or a compact
    /// file's slot), for a caller to prefetch; `None` past the end.
    #[inline]
    pub fn first_read(&self, rank: u64) -> Option<&'a u8> {
        match *self {
            Entries::Bytes(v) => {
                let v: &'a [i8] = v;
                v.get(usize::try_from(rank).ok()?).map(|b| {
                    // SAFETY: `i8` and `u8` have the same size, alignment and validity,
                    // so a reference to one is a valid reference to the other for the
                    // same lifetime.
                    unsafe { &*(b as *const i8).cast::<u8>() }
                })
            }
            Entries::Compact { code, payload } => code.slot_byte(payload, rank),
        }
    }
}
