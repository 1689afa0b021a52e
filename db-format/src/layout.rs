//! Where the parts of a compact (version 2) payload lie: the block parameters a writer
//! chooses and a header records, and the offsets they give ([`crate::Compact`]'s docs
//! describe the payload).

use crate::error::DbError;
use crate::huffman::MAX_CODE_LEN;

/// The block parameters of a compact (version 2) file: header bytes 22, 23 and 40..48.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockParams {
    /// `log2` of the entries a block.
    pub block_shift: u8,
    /// `log2` of the bytes a slot.
    pub slot_shift: u8,
    /// Bytes of the blocks' continuations.
    pub overflow_len: u64,
}

/// Smallest and largest `block_shift`: blocks of 8 to 64 entries.
pub const BLOCK_SHIFTS: std::ops::RangeInclusive<u8> = 3..=6;

/// Smallest and largest `slot_shift`: slots of 16 to 64 bytes (a slot must hold the flag,
/// a continuation's offset and some codes; 64 bytes is a cache line).
pub const SLOT_SHIFTS: std::ops::RangeInclusive<u8> = 4..=6;

/// Bits of a continuation's byte offset in an overflowing slot.
pub(crate) const POINTER_BITS: u32 = 39;

/// Bits before the codes in an overflowing slot: the flag and the offset.
pub(crate) const OVERFLOW_HEAD: u32 = 1 + POINTER_BITS;

/// The block sizes a writer chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactOptions {
    /// `log2` of the entries a block (`B`).
    pub block_shift: u8,
    /// `log2` of the bytes a slot (`S`).
    pub slot_shift: u8,
}

impl Default for CompactOptions {
    /// `B = 32` entries in slots of `S = 16` bytes: measured in results/db.md, "Compact
    /// files (format version 2)".
    fn default() -> CompactOptions {
        CompactOptions {
            block_shift: 5,
            slot_shift: 4,
        }
    }
}

impl CompactOptions {
    /// [`DbError::BadOptions`] unless the shifts are in [`BLOCK_SHIFTS`] and
    /// [`SLOT_SHIFTS`].
    pub fn check(&self) -> Result<(), DbError> {
        if !BLOCK_SHIFTS.contains(&self.block_shift) || !SLOT_SHIFTS.contains(&self.slot_shift) {
            return Err(DbError::BadOptions {
                what: format!(
                    "block shift {} and slot shift {}: need {}..={} and {}..={}",
                    self.block_shift,
                    self.slot_shift,
                    BLOCK_SHIFTS.start(),
                    BLOCK_SHIFTS.end(),
                    SLOT_SHIFTS.start(),
                    SLOT_SHIFTS.end()
                ),
            });
        }
        Ok(())
    }

    /// The most continuation bytes a block can need: its longest codes (12 bits an
    /// entry) less what an overflowing slot holds.
    pub fn max_continuation(&self) -> u64 {
        let most = (MAX_CODE_LEN as u64) << self.block_shift;
        let inline = (8u64 << self.slot_shift) - u64::from(OVERFLOW_HEAD);
        most.saturating_sub(inline).div_ceil(8)
    }
}

/// Where the parts of a compact payload lie (module docs), all offsets in bytes from the
/// payload's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Symbols of the code, `2k + 1`.
    pub symbols: u64,
    /// Blocks, `ceil(N / B)`.
    pub blocks: u64,
    /// Offset of the slots (the code table's padded length).
    pub slots_at: u64,
    /// Offset of the continuations.
    pub overflow_at: u64,
    /// Length of the payload: `overflow_at + overflow_len`.
    pub len: u64,
}

impl Layout {
    /// The layout of a level of `seeds` seeds and `count` entries with block parameters
    /// `p`, `None` if a length overflows a `u64`.
    pub fn new(seeds: u32, count: u64, p: &BlockParams) -> Option<Layout> {
        let slot = 1u64.checked_shl(u32::from(p.slot_shift))?;
        let symbols = 2 * u64::from(seeds) + 1;
        let blocks = count.div_ceil(1u64.checked_shl(u32::from(p.block_shift))?);
        let slots_at = symbols.div_ceil(slot).checked_mul(slot)?;
        let overflow_at = slots_at.checked_add(blocks.checked_mul(slot)?)?;
        let len = overflow_at.checked_add(p.overflow_len)?;
        Some(Layout {
            symbols,
            blocks,
            slots_at,
            overflow_at,
            len,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_of_a_small_level() {
        let p = BlockParams {
            block_shift: 5,
            slot_shift: 4,
            overflow_len: 7,
        };
        // k = 2, 3 entries: 5 symbols (a slot of 16 bytes), 1 block.
        let l = Layout::new(2, 3, &p).unwrap();
        assert_eq!(
            (l.symbols, l.blocks, l.slots_at, l.overflow_at, l.len),
            (5, 1, 16, 32, 39)
        );
        // k = 10, 4097 entries: 21 symbols (32 bytes), 129 blocks.
        let l = Layout::new(10, 4097, &p).unwrap();
        assert_eq!(
            (l.blocks, l.slots_at, l.overflow_at),
            (129, 32, 32 + 129 * 16)
        );
    }
}
