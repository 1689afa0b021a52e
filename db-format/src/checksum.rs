//! Payload checksum: XXH3-64 with seed 0 over the payload bytes only.
//!
//! Why XXH3: it runs at memory bandwidth, so verifying a multi-gigabyte level
//! costs about as much as reading it, and it is available in every common
//! language. Why the payload only: the header holds the checksum itself, and
//! the header's fields are validated one by one anyway.

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// XXH3-64 (seed 0) of `payload`, the bytes from offset 64 to the end of a file.
///
/// ```
/// // Known-answer value of XXH3-64 for the empty input.
/// assert_eq!(db_format::checksum(b""), 0x2d06_8005_38d3_94c2);
/// ```
pub fn checksum(payload: &[u8]) -> u64 {
    xxh3_64(payload)
}

/// Checksum of a slice of values as they are stored (each `i8` as its two's
/// complement byte), equal to [`checksum`] of the encoded payload, without
/// building the whole payload in memory.
pub fn checksum_values(values: &[i8]) -> u64 {
    let mut hasher = Xxh3::new();
    let mut buf = Vec::with_capacity(CHUNK.min(values.len()));
    for chunk in values.chunks(CHUNK) {
        buf.clear();
        buf.extend(chunk.iter().map(|&v| crate::value::encode(v)));
        hasher.update(&buf);
    }
    hasher.digest()
}

/// Entries converted per step by [`checksum_values`] (1 MiB: fits in L2).
const CHUNK: usize = 1 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_equals_one_shot() {
        let values: Vec<i8> = (0..3_000_000u32).map(|i| (i % 255) as u8 as i8).collect();
        let bytes: Vec<u8> = values.iter().map(|&v| v as u8).collect();
        assert_eq!(checksum_values(&values), checksum(&bytes));
        assert_eq!(checksum_values(&[]), checksum(&[]));
    }
}
