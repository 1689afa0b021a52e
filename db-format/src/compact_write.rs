//! Writing compact (version 2) level files: two passes over the entries, a histogram
//! for the code, then the blocks into their slots and continuations ([`crate::Compact`]'s
//! docs describe the payload).

use std::fs;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use xxhash_rust::xxh3::Xxh3;

use crate::atomic::{io_at, sync_parent_dir, tmp_path, TmpGuard};
use crate::error::DbError;
use crate::header::{Header, HEADER_LEN};
use crate::huffman::{canonical_codes, code_lengths, MAX_CODE_LEN};
use crate::layout::{BlockParams, CompactOptions, Layout, POINTER_BITS};
use crate::rules::RulesKey;
use crate::source::LevelSource;
use crate::value;

/// Writes the level (`rules`, `seeds`) whose entries `source` gives (twice: a histogram,
/// then the encoding) as a compact file at `path`, through `<path>.tmp`, fsync and
/// rename as [`crate::write_level_to`]. Deterministic: the same entries and options give
/// the same bytes. Memory: a block's codes and the output buffers, whatever the level.
///
/// Errors: the checks of [`Header::new`], [`DbError::BadOptions`],
/// [`DbError::EntryCountMismatch`] when the source gives more or fewer entries than the
/// level has, [`DbError::ValueOutOfRange`] (with the rank), [`DbError::SourceChanged`]
/// when the second pass differs from the first, and the source's own errors. On an error
/// no file is left.
pub fn write_compact_to(
    path: &Path,
    rules: &RulesKey,
    seeds: u32,
    source: &mut dyn LevelSource,
    options: CompactOptions,
) -> Result<(), DbError> {
    options.check()?;
    let mut header = Header::new(*rules, seeds, 0)?;
    let count = header.entry_count;
    let n = 2 * seeds + 1;
    let bshift = u32::from(options.block_shift);
    let bmask = (1u64 << bshift) - 1;
    // Pass 1: the symbols' counts.
    let mut counts = vec![0u64; n as usize];
    let mut rank: u64 = 0;
    let mut prev = seeds;
    source.read_runs(&mut |run| {
        for &v in run {
            if !value::in_range(v, seeds) {
                return Err(DbError::ValueOutOfRange {
                    value: v,
                    seeds,
                    rank: Some(rank),
                });
            }
            if rank >= count {
                return Err(DbError::EntryCountMismatch {
                    expected: count,
                    actual: rank + 1,
                });
            }
            if rank & bmask == 0 {
                prev = seeds;
            }
            let u = (i32::from(v) + seeds as i32) as u32;
            counts[((u + n - prev) % n) as usize] += 1;
            prev = u;
            rank += 1;
        }
        Ok(())
    })?;
    if rank != count {
        return Err(DbError::EntryCountMismatch {
            expected: count,
            actual: rank,
        });
    }
    let lengths = code_lengths(&counts, MAX_CODE_LEN).ok_or_else(|| DbError::SourceChanged {
        what: "no symbol to code".to_string(),
    })?;
    let codes = canonical_codes(&lengths);
    // The layout without the continuations, whose length the second pass finds.
    let mut params = BlockParams {
        block_shift: options.block_shift,
        slot_shift: options.slot_shift,
        overflow_len: 0,
    };
    let layout = Layout::new(seeds, count, &params).ok_or(DbError::SizeOverflow {
        cells: rules.cells(),
        seeds,
    })?;

    let tmp = tmp_path(path);
    let mut guard = TmpGuard(Some(tmp.clone()));
    let head = HEADER_LEN as u64;
    // Read and write: the payload is read back for its checksum.
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .map_err(io_at(&tmp))?;
    let mut table = vec![0u8; layout.slots_at as usize];
    table[..lengths.len()].copy_from_slice(&lengths);
    let mut slots = BufWriter::with_capacity(1 << 20, file.try_clone().map_err(io_at(&tmp))?);
    slots
        .seek(SeekFrom::Start(head + layout.slots_at))
        .map_err(io_at(&tmp))?;
    // A second handle of its own (its own offset) for the continuations.
    let overflow_file = fs::OpenOptions::new()
        .write(true)
        .open(&tmp)
        .map_err(io_at(&tmp))?;
    let mut overflow = BufWriter::with_capacity(1 << 16, overflow_file);
    overflow
        .seek(SeekFrom::Start(head + layout.overflow_at))
        .map_err(io_at(&tmp))?;

    // Pass 2: each block's codes into its slot and, if they do not fit, a continuation.
    let changed = |what: &str| DbError::SourceChanged {
        what: what.to_string(),
    };
    let slot_len = 1usize << options.slot_shift;
    let fits = 8 * slot_len as u64 - 1;
    let mut block: Vec<(u32, u8)> = Vec::with_capacity(1 << bshift);
    let mut bits = BitWriter::default();
    let mut overflow_len: u64 = 0;
    let mut emit = |block: &mut Vec<(u32, u8)>, bits: &mut BitWriter| -> Result<(), DbError> {
        let total: u64 = block.iter().map(|&(_, len)| u64::from(len)).sum();
        bits.clear();
        if total <= fits {
            bits.put(0, 1);
        } else {
            if overflow_len >> POINTER_BITS != 0 {
                return Err(changed("continuations past 2^39 bytes"));
            }
            bits.put(1, 1);
            bits.put(overflow_len, POINTER_BITS);
        }
        for &(code, len) in block.iter() {
            bits.put(u64::from(code), u32::from(len));
        }
        bits.flush();
        let bytes = &mut bits.bytes;
        if bytes.len() < slot_len {
            bytes.resize(slot_len, 0);
        }
        slots.write_all(&bytes[..slot_len]).map_err(io_at(&tmp))?;
        if bytes.len() > slot_len {
            overflow
                .write_all(&bytes[slot_len..])
                .map_err(io_at(&tmp))?;
            overflow_len += (bytes.len() - slot_len) as u64;
        }
        block.clear();
        Ok(())
    };
    let mut rank: u64 = 0;
    let mut prev = seeds;
    source.read_runs(&mut |run| {
        for &v in run {
            if rank >= count || !value::in_range(v, seeds) {
                return Err(changed("the second pass over the entries differs"));
            }
            if rank & bmask == 0 {
                prev = seeds;
                if !block.is_empty() {
                    emit(&mut block, &mut bits)?;
                }
            }
            let u = (i32::from(v) + seeds as i32) as u32;
            let code = codes[((u + n - prev) % n) as usize];
            if code.1 == 0 {
                return Err(changed("a symbol the first pass did not see"));
            }
            block.push(code);
            prev = u;
            rank += 1;
        }
        Ok(())
    })?;
    if rank != count {
        return Err(changed("the second pass over the entries differs"));
    }
    emit(&mut block, &mut bits)?;
    slots.flush().map_err(io_at(&tmp))?;
    overflow.flush().map_err(io_at(&tmp))?;
    drop(slots);
    drop(overflow);
    params.overflow_len = overflow_len;
    header.set_compact(params);
    let len = layout.overflow_at + overflow_len;
    let mut file = file;
    file.seek(SeekFrom::Start(head)).map_err(io_at(&tmp))?;
    file.write_all(&table).map_err(io_at(&tmp))?;
    // The checksum of the payload, read back in file order.
    file.seek(SeekFrom::Start(head)).map_err(io_at(&tmp))?;
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        let want = left.min(buf.len() as u64) as usize;
        file.read_exact(&mut buf[..want]).map_err(io_at(&tmp))?;
        hasher.update(&buf[..want]);
        left -= want as u64;
    }
    header.checksum = hasher.digest();
    file.seek(SeekFrom::Start(0)).map_err(io_at(&tmp))?;
    file.write_all(&header.encode()).map_err(io_at(&tmp))?;
    file.sync_all().map_err(io_at(&tmp))?;
    drop(file);
    fs::rename(&tmp, path).map_err(io_at(path))?;
    guard.0 = None;
    sync_parent_dir(path)
}

/// Bits appended MSB first.
#[derive(Default)]
struct BitWriter {
    /// Whole bytes.
    bytes: Vec<u8>,
    /// The low `pending` bits of `acc` are the bits after `bytes`.
    acc: u64,
    pending: u32,
}

impl BitWriter {
    /// Appends the `len` (at most 56) low bits of `value`.
    #[inline]
    fn put(&mut self, value: u64, len: u32) {
        debug_assert!(len <= 56 && value >> len == 0);
        self.acc = (self.acc << len) | value;
        self.pending += len;
        while self.pending >= 8 {
            self.pending -= 8;
            self.bytes.push((self.acc >> self.pending) as u8);
        }
        self.acc &= (1u64 << self.pending) - 1;
    }

    /// Pads the last byte with zero bits.
    fn flush(&mut self) {
        if self.pending > 0 {
            self.bytes.push((self.acc << (8 - self.pending)) as u8);
            self.pending = 0;
            self.acc = 0;
        }
    }

    /// Empties it.
    fn clear(&mut self) {
        self.bytes.clear();
        self.acc = 0;
        self.pending = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_writer_is_msb_first() {
        let mut w = BitWriter::default();
        w.put(0b1, 1);
        w.put(0b011, 3);
        w.put(0b1_1110_0001, 9);
        w.flush();
        assert_eq!(w.bytes, vec![0b1011_1111, 0b0000_1000]);
        w.clear();
        w.put(1, 1);
        w.put(0x12_3456_789a, 39);
        w.flush();
        assert_eq!(w.bytes, vec![0x92, 0x34, 0x56, 0x78, 0x9a]);
    }
}
