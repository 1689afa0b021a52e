//! Encoding of one database entry.
//!
//! An entry is the exact value of a position: the net number of seeds the side
//! to move will gain from here on with best play by both sides (seeds it will
//! still put into its store minus those the opponent will). With `k` seeds on
//! the board that value lies in `-k..=k`, so it is stored as one `i8` in two's
//! complement, and `k` is limited to [`MAX_LEVEL_SEEDS`] = 127.

use crate::error::DbError;

/// Bytes per entry in format version 1.
pub const ENTRY_WIDTH: u8 = 1;

/// Entry width of format version 2: entries take a variable number of bits.
pub const ENTRY_WIDTH_VARIABLE: u8 = 0;

/// Entry encoding code 0 (format version 1): `i8` two's complement, future net gain of
/// the side to move.
pub const ENCODING_NET_GAIN_I8: u8 = 0;

/// Entry encoding code 1 (format version 2): the same values, as Huffman-coded deltas in
/// blocks ([`crate::Compact`]).
pub const ENCODING_DELTA_HUFFMAN: u8 = 1;

/// Largest number of seeds on the board a level may have: values in `-k..=k`
/// must fit in an `i8`.
pub const MAX_LEVEL_SEEDS: u32 = 127;

/// The stored byte of `value` (two's complement).
#[inline]
pub fn encode(value: i8) -> u8 {
    value as u8
}

/// Whether `value` is a possible value of a position with `seeds` seeds on the board.
#[inline]
pub fn in_range(value: i8, seeds: u32) -> bool {
    value.unsigned_abs() as u32 <= seeds
}

/// The value stored as `byte` in a level with `seeds` seeds on the board,
/// or [`DbError::ValueOutOfRange`] if no position of that level can have it.
///
/// ```
/// use db_format::decode_value as decode;
/// assert_eq!(decode(0xfe, 5).unwrap(), -2);
/// assert!(decode(6, 5).is_err());
/// ```
#[inline]
pub fn decode(byte: u8, seeds: u32) -> Result<i8, DbError> {
    let value = byte as i8;
    if in_range(value, seeds) {
        Ok(value)
    } else {
        Err(DbError::ValueOutOfRange {
            value,
            seeds,
            rank: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_range() {
        for v in i8::MIN..=i8::MAX {
            let k = v.unsigned_abs() as u32;
            assert_eq!(decode(encode(v), k).ok(), in_range(v, k).then_some(v));
            if k > 0 {
                assert!(decode(encode(v), k - 1).is_err());
            }
        }
        assert_eq!(decode(0x80, 127).ok(), None);
        assert_eq!(decode(0x81, 127).ok(), Some(-127));
    }
}
