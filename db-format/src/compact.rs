//! Compact level files (format version 2): a level's entries as Huffman-coded deltas in
//! blocks, with an index that finds any block in O(1).
//!
//! Why: a level file of version 1 spends a byte an entry, but the entries of consecutive
//! ranks are close (the boards differ in a few pits), so the difference of an entry from
//! the one before has about 3.4 bits of entropy where the entries themselves have 4.1
//! (level 31 of 6 pits). Coding the differences with a Huffman code of at most
//! [`MAX_CODE_LEN`] bits and cutting them into blocks of `B` entries, each found through
//! an index, keeps a random probe to two index reads and the decoding of at most `B`
//! symbols, at about half a byte an entry.
//!
//! # Payload layout (after the 64-byte header; offsets from the payload's start)
//!
//! With `k` the seeds, `n = 2k + 1` symbols, `N = entry_count`, `B = 2^block_shift`
//! entries a block, `S = 2^superblock_shift` blocks a superblock,
//! `blocks = ceil(N / B)`, `supers = ceil(blocks / S)`, and `pad8(x)` = `x` rounded up to
//! a multiple of 8:
//!
//! | offset                           | bytes                  | content |
//! |----------------------------------|------------------------|---------|
//! | `0`                              | `pad8(n)`              | code table: byte `s` is the code length of symbol `s` (0: unused), then zeros |
//! | `T = pad8(n)`                    | `8 · supers`           | superblock index: `u64` LE, bit offset in the data of the superblock's first block |
//! | `T + 8 · supers`                 | `pad8(2 · blocks)`     | block index: `u16` LE, bit offset of the block's start from its superblock's start, then zeros |
//! | `D = T + 8·supers + pad8(2·blocks)` | `ceil(data_bits / 8)` | data: the blocks' codes back to back, MSB first, the last byte's unused low bits zero |
//!
//! An entry `v` in `-k..=k` is `u = v + k` in `0..n`. Its symbol is `(u - u') mod n`,
//! where `u'` is the previous entry's `u`, or `k` (the value 0) for the first entry of a
//! block. Decoding adds symbols modulo `n`, so every decoded entry lies in `-k..=k`
//! whatever the bits are: a damaged file decodes to wrong values, never to impossible
//! ones (the checksum and [`Compact::walk`] find the damage).
//!
//! Data bit `i` is bit `7 - i % 8` of data byte `i / 8`. Codes are canonical
//! ([`crate::huffman`]): lengths `1..=12`, a complete prefix code, or a single symbol of
//! length 1 (code `0`). A probe of rank `r`: block `b = r >> block_shift`, superblock
//! `b >> superblock_shift`, its bit offset `super[b >> superblock_shift] + block[b]`,
//! then decode `(r mod B) + 1` symbols from there, summing them modulo `n` from `u' = k`.

use std::fs;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::error::DbError;
use crate::file::{io_at, sync_parent_dir, tmp_path};
use crate::header::{BlockParams, Header, HEADER_LEN};
use crate::huffman::{canonical_codes, check_lengths, code_lengths, MAX_CODE_LEN, TABLE_LEN};
use crate::rules::RulesKey;
use crate::source::LevelSource;
use crate::value;

/// Largest `block_shift`: blocks of at most 256 entries, so a probe decodes at most 256
/// symbols.
pub const MAX_BLOCK_SHIFT: u8 = 8;

/// Largest `block_shift + superblock_shift`: a superblock of at most 4096 entries holds
/// at most `4096 · 12 = 49152` bits, so the `u16` offsets of its blocks cannot overflow.
pub const MAX_SUPERBLOCK_ENTRIES_SHIFT: u8 = 12;

/// The block sizes a writer chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactOptions {
    /// `log2` of the entries a block (`B`).
    pub block_shift: u8,
    /// `log2` of the blocks a superblock (`S`).
    pub superblock_shift: u8,
}

impl Default for CompactOptions {
    /// `B = 32`, `S = 128` (superblocks of 4096 entries): measured in results/db.md,
    /// "Compact files (format version 2)".
    fn default() -> CompactOptions {
        CompactOptions {
            block_shift: 5,
            superblock_shift: 7,
        }
    }
}

impl CompactOptions {
    /// [`DbError::BadOptions`] unless `block_shift <= 8` and `block_shift +
    /// superblock_shift <= 12`.
    pub fn check(&self) -> Result<(), DbError> {
        if self.block_shift > MAX_BLOCK_SHIFT
            || u32::from(self.block_shift) + u32::from(self.superblock_shift)
                > u32::from(MAX_SUPERBLOCK_ENTRIES_SHIFT)
        {
            return Err(DbError::BadOptions {
                what: format!(
                    "block shift {} and superblock shift {}: need block shift <= \
                     {MAX_BLOCK_SHIFT} and their sum <= {MAX_SUPERBLOCK_ENTRIES_SHIFT}",
                    self.block_shift, self.superblock_shift
                ),
            });
        }
        Ok(())
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
    /// Superblocks, `ceil(blocks / S)`.
    pub supers: u64,
    /// Offset of the superblock index (the code table's padded length).
    pub supers_at: u64,
    /// Offset of the block index.
    pub blocks_at: u64,
    /// Offset of the data.
    pub data_at: u64,
    /// Length of the payload: `data_at + ceil(data_bits / 8)`.
    pub len: u64,
}

impl Layout {
    /// The layout of a level of `seeds` seeds and `count` entries with block parameters
    /// `p`, `None` if a length overflows a `u64`.
    pub fn new(seeds: u32, count: u64, p: &BlockParams) -> Option<Layout> {
        let pad8 = |x: u64| x.checked_add(7).map(|y| y & !7);
        let symbols = 2 * u64::from(seeds) + 1;
        let blocks = count.div_ceil(1u64 << p.block_shift);
        let supers = blocks.div_ceil(1u64 << p.superblock_shift);
        let supers_at = pad8(symbols)?;
        let blocks_at = supers_at.checked_add(supers.checked_mul(8)?)?;
        let data_at = blocks_at.checked_add(pad8(blocks.checked_mul(2)?)?)?;
        let len = data_at.checked_add(p.data_bits.div_ceil(8))?;
        Some(Layout {
            symbols,
            blocks,
            supers,
            supers_at,
            blocks_at,
            data_at,
            len,
        })
    }
}

// A decoding table entry (u32), for a window of MAX_CODE_LEN bits:
//   bits  0..8   the first symbol
//   bits  8..12  its code length
//   bits 12..16  how many whole codes the window holds, from its start (at least 1)
//   bits 16..20  their total length in bits
//   bits 20..28  the sum of their symbols modulo n
//   bit  31      the window starts with no code (possible only with a single-symbol code,
//                whose code is `0`; the entry then reads it as that symbol, length 1)
const INVALID: u32 = 1 << 31;

/// The validated description of a compact payload: its layout and its decoding table.
///
/// Invariants: the code table of the payload passed [`check_lengths`], the layout was
/// checked against the file's length (every section lies inside the payload), and
/// `count <= data_bits <= 12 · count`.
#[derive(Clone)]
pub struct Compact {
    seeds: u32,
    symbols: u32,
    count: u64,
    block_shift: u32,
    superblock_shift: u32,
    data_bits: u64,
    layout: Layout,
    /// One entry per window of 12 bits (the comment above `INVALID`).
    table: Box<[u32]>,
    /// The code lengths, symbol by symbol.
    lengths: Vec<u8>,
}

impl std::fmt::Debug for Compact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compact")
            .field("seeds", &self.seeds)
            .field("count", &self.count)
            .field("block_shift", &self.block_shift)
            .field("superblock_shift", &self.superblock_shift)
            .field("data_bits", &self.data_bits)
            .field("layout", &self.layout)
            .field("lengths", &self.lengths)
            .finish()
    }
}

/// Reads the `u64` LE at byte `at` of `bytes`, `None` past the end.
#[inline]
fn read_u64_le(bytes: &[u8], at: u64) -> Option<u64> {
    let at = usize::try_from(at).ok()?;
    let b: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(b))
}

/// Reads the `u16` LE at byte `at` of `bytes`, `None` past the end.
#[inline]
fn read_u16_le(bytes: &[u8], at: u64) -> Option<u16> {
    let at = usize::try_from(at).ok()?;
    let b: [u8; 2] = bytes.get(at..at.checked_add(2)?)?.try_into().ok()?;
    Some(u16::from_le_bytes(b))
}

/// The 8 bytes of `data` from byte `at` as a big-endian `u64`, zeros past the end: the
/// next 57 to 64 bits of the stream from a bit in byte `at`.
#[inline(always)]
fn load_be(data: &[u8], at: usize) -> u64 {
    match data.get(at..at.wrapping_add(8)) {
        Some(b) => {
            let mut w = [0u8; 8];
            w.copy_from_slice(b);
            u64::from_be_bytes(w)
        }
        None => {
            let mut w = [0u8; 8];
            if let Some(tail) = data.get(at..) {
                w[..tail.len().min(8)].copy_from_slice(&tail[..tail.len().min(8)]);
            }
            u64::from_be_bytes(w)
        }
    }
}

impl Compact {
    /// Validates the compact payload `payload` of a file whose header is `header` (of
    /// version 2, already decoded: [`Header::decode_from`]) and builds its decoding
    /// table. `Err` says what is wrong: a payload of another length than the layout, a
    /// code table that is not a code of this format, or nonzero padding.
    pub fn new(header: &Header, payload: &[u8]) -> Result<Compact, String> {
        let p = header
            .blocks
            .ok_or_else(|| "not a compact (version 2) header".to_string())?;
        let seeds = u32::from(header.seeds);
        let layout = Layout::new(seeds, header.entry_count, &p)
            .ok_or_else(|| "payload length overflows".to_string())?;
        if layout.len != payload.len() as u64 {
            return Err(format!(
                "payload is {} bytes, the header's layout needs {}",
                payload.len(),
                layout.len
            ));
        }
        let n = layout.symbols as usize;
        let lengths = payload[..n].to_vec();
        check_lengths(&lengths).map_err(|e| format!("code table: {e}"))?;
        if payload[n..layout.supers_at as usize]
            .iter()
            .any(|&b| b != 0)
        {
            return Err("code table padding is not zero".to_string());
        }
        let index_end = layout.blocks_at + 2 * layout.blocks;
        if payload[index_end as usize..layout.data_at as usize]
            .iter()
            .any(|&b| b != 0)
        {
            return Err("block index padding is not zero".to_string());
        }
        let table = decoding_table(&lengths, layout.symbols as u32);
        Ok(Compact {
            seeds,
            symbols: layout.symbols as u32,
            count: header.entry_count,
            block_shift: u32::from(p.block_shift),
            superblock_shift: u32::from(p.superblock_shift),
            data_bits: p.data_bits,
            layout,
            table,
            lengths,
        })
    }

    /// Entries of the level.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The layout of the payload.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The code length of each symbol (0: unused).
    pub fn lengths(&self) -> &[u8] {
        &self.lengths
    }

    /// The bit offset in the data of block `block`, from the two indexes; `None` past
    /// the payload or past the data.
    #[inline]
    fn block_start(&self, payload: &[u8], block: u64) -> Option<u64> {
        let sb = block >> self.superblock_shift;
        let base = read_u64_le(payload, self.layout.supers_at + 8 * sb)?;
        let rel = read_u16_le(payload, self.layout.blocks_at + 2 * block)?;
        let start = base.checked_add(u64::from(rel))?;
        (start <= self.data_bits).then_some(start)
    }

    /// The entry of rank `rank` of the payload `payload` (the one [`Compact::new`]
    /// checked): `None` when `rank >= count`, or when the indexes point past the data or
    /// the block's codes run past its end (a damaged file). The value is always in
    /// `-k..=k`; in a damaged file it may be wrong (the checksum finds that).
    #[inline]
    pub fn get(&self, payload: &[u8], rank: u64) -> Option<i8> {
        if rank >= self.count {
            return None;
        }
        let start = self.block_start(payload, rank >> self.block_shift)?;
        let data = payload.get(self.layout.data_at as usize..)?;
        let left = (rank & ((1u64 << self.block_shift) - 1)) as u32 + 1;
        let (u, end) = self.sum_codes(data, start, left);
        if end > self.data_bits {
            return None;
        }
        Some((u as i32 - self.seeds as i32) as i8)
    }

    /// A byte of the index that [`Compact::get`] of `rank` reads first, to prefetch.
    #[inline]
    pub fn index_byte<'p>(&self, payload: &'p [u8], rank: u64) -> Option<&'p u8> {
        let at = self.layout.blocks_at + 2 * (rank >> self.block_shift);
        payload.get(usize::try_from(at).ok()?)
    }

    /// Decodes `left` (at least 1) codes of the data from bit `pos` and returns `u` of the
    /// last (the sum of their symbols modulo `n`, from `k`) and the bit after it. Reads
    /// up to 4 table windows from one 8-byte load; a window of several whole codes is
    /// taken at once while they are all wanted.
    #[inline]
    fn sum_codes(&self, data: &[u8], mut pos: u64, mut left: u32) -> (u32, u64) {
        let n = self.symbols;
        let mut u = self.seeds;
        let table = &self.table[..TABLE_LEN];
        loop {
            let word = load_be(data, (pos >> 3) as usize) << (pos & 7);
            let mut used = 0u32;
            // 57 valid bits: four windows of 12.
            for _ in 0..4 {
                let e = table[((word << used) >> (64 - MAX_CODE_LEN)) as usize];
                let (count, bits, sum) = if (e >> 12) & 0xf <= left {
                    ((e >> 12) & 0xf, (e >> 16) & 0xf, (e >> 20) & 0xff)
                } else {
                    (1, (e >> 8) & 0xf, e & 0xff)
                };
                used += bits;
                left -= count;
                u += sum;
                if u >= n {
                    u -= n;
                }
                if left == 0 {
                    return (u, pos + u64::from(used));
                }
            }
            pos += u64::from(used);
        }
    }

    /// Decodes the whole payload in rank order, strictly: every block must start where
    /// both indexes say (the first of a superblock at offset 0 from it), every code must
    /// be one of the code's, the last block must end at `data_bits` and the bits after
    /// it be zero. Calls `sink` with the entries in runs of whole blocks.
    pub fn walk(
        &self,
        payload: &[u8],
        sink: &mut dyn FnMut(&[i8]) -> Result<(), DbError>,
    ) -> Result<(), WalkError> {
        let data = payload
            .get(self.layout.data_at as usize..)
            .ok_or(WalkError::Corrupt("data outside the payload".to_string()))?;
        let table = &self.table[..TABLE_LEN];
        let n = self.symbols;
        let k = self.seeds as i32;
        let bsize = 1u64 << self.block_shift;
        // Whole blocks of about 64 Ki entries a run.
        let per_run = (1u64 << 16).max(bsize);
        let mut buf: Vec<i8> = Vec::with_capacity(per_run as usize);
        let mut pos: u64 = 0;
        let mut super_start: u64 = 0;
        for block in 0..self.layout.blocks {
            if block & ((1u64 << self.superblock_shift) - 1) == 0 {
                let sb = block >> self.superblock_shift;
                let base = read_u64_le(payload, self.layout.supers_at + 8 * sb)
                    .ok_or(WalkError::Corrupt("superblock index cut".to_string()))?;
                if base != pos {
                    return Err(WalkError::Corrupt(format!(
                        "superblock {sb} starts at bit {base} but the blocks before end at {pos}"
                    )));
                }
                super_start = pos;
            }
            let rel = read_u16_le(payload, self.layout.blocks_at + 2 * block)
                .ok_or(WalkError::Corrupt("block index cut".to_string()))?;
            if super_start + u64::from(rel) != pos {
                return Err(WalkError::Corrupt(format!(
                    "block {block} starts at bit {} but the blocks before end at {pos}",
                    super_start + u64::from(rel)
                )));
            }
            let first = block * bsize;
            let len = bsize.min(self.count - first);
            let mut u = self.seeds;
            for _ in 0..len {
                let w = load_be(data, (pos >> 3) as usize) << (pos & 7);
                let e = table[(w >> (64 - MAX_CODE_LEN)) as usize];
                if e & INVALID != 0 {
                    return Err(WalkError::Corrupt(format!(
                        "block {block}: bits at {pos} are no code"
                    )));
                }
                pos += u64::from((e >> 8) & 0xf);
                u += e & 0xff;
                if u >= n {
                    u -= n;
                }
                buf.push((u as i32 - k) as i8);
            }
            if pos > self.data_bits {
                return Err(WalkError::Corrupt(format!(
                    "block {block} runs past the data's {} bits",
                    self.data_bits
                )));
            }
            if buf.len() as u64 + bsize > per_run {
                sink(&buf).map_err(WalkError::Sink)?;
                buf.clear();
            }
        }
        if !buf.is_empty() {
            sink(&buf).map_err(WalkError::Sink)?;
        }
        if pos != self.data_bits {
            return Err(WalkError::Corrupt(format!(
                "the blocks end at bit {pos}, the header gives {} bits",
                self.data_bits
            )));
        }
        let spare = (8 - self.data_bits % 8) % 8;
        if spare > 0 {
            let last = data.last().copied().unwrap_or(0);
            if last & ((1u8 << spare) - 1) != 0 {
                return Err(WalkError::Corrupt(
                    "unused bits after the data are not zero".to_string(),
                ));
            }
        }
        Ok(())
    }
}

/// Why [`Compact::walk`] stopped.
#[derive(Debug)]
pub enum WalkError {
    /// The payload is damaged: what is wrong.
    Corrupt(String),
    /// The sink failed.
    Sink(DbError),
}

/// The decoding table of the code of `lengths` (which passed [`check_lengths`]) over `n`
/// symbols: the comment above `INVALID`.
fn decoding_table(lengths: &[u8], n: u32) -> Box<[u32]> {
    let codes = canonical_codes(lengths);
    // One code a window: (symbol, length), or none.
    let mut single: Vec<Option<(u32, u32)>> = vec![None; TABLE_LEN];
    let mut sole = 0u32;
    for (s, &(code, len)) in codes.iter().enumerate() {
        if len == 0 {
            continue;
        }
        sole = s as u32;
        let shift = MAX_CODE_LEN - u32::from(len);
        let lo = (code as usize) << shift;
        let hi = ((code as usize) + 1) << shift;
        for slot in &mut single[lo..hi] {
            *slot = Some((s as u32, u32::from(len)));
        }
    }
    let mask = TABLE_LEN - 1;
    let mut table = vec![0u32; TABLE_LEN].into_boxed_slice();
    for (w, entry) in table.iter_mut().enumerate() {
        let Some((sym1, len1)) = single[w] else {
            // Only a single-symbol code (code `0`) leaves windows without a code: read
            // as that symbol, and flagged for the strict decoder.
            *entry = INVALID | 1 << 16 | 1 << 12 | 1 << 8 | sole << 20 | sole;
            continue;
        };
        let (mut count, mut bits, mut sum) = (0u32, 0u32, 0u32);
        while let Some((s, len)) = single[(w << bits) & mask] {
            if bits + len > MAX_CODE_LEN {
                break;
            }
            count += 1;
            bits += len;
            sum = (sum + s) % n;
            if bits == MAX_CODE_LEN {
                break;
            }
        }
        *entry = sym1 | len1 << 8 | count << 12 | bits << 16 | sum << 20;
    }
    table
}

/// Writes the level (`rules`, `seeds`) whose entries `source` gives (twice: a histogram,
/// then the encoding) as a compact file at `path`, through `<path>.tmp`, fsync and
/// rename as [`crate::write_level_to`]. Deterministic: the same entries and options give
/// the same bytes.
///
/// Errors: the checks of [`Header::new`], [`DbError::EntryCountMismatch`] when the
/// source gives more or fewer entries than the level has, [`DbError::ValueOutOfRange`]
/// (with the rank), [`DbError::SourceChanged`] when the second pass differs from the
/// first, and the source's own errors. On an error no file is left.
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
    let data_bits: u64 = counts
        .iter()
        .zip(&lengths)
        .map(|(&c, &l)| c * u64::from(l))
        .sum();
    let params = BlockParams {
        block_shift: options.block_shift,
        superblock_shift: options.superblock_shift,
        data_bits,
    };
    header.set_compact(params);
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
    file.set_len(head + layout.len).map_err(io_at(&tmp))?;
    let mut table = vec![0u8; layout.supers_at as usize];
    table[..lengths.len()].copy_from_slice(&lengths);
    let mut index = BufWriter::with_capacity(1 << 16, file.try_clone().map_err(io_at(&tmp))?);
    index
        .seek(SeekFrom::Start(head + layout.blocks_at))
        .map_err(io_at(&tmp))?;
    // A second handle of its own (its own offset) for the data.
    let data_file = fs::OpenOptions::new()
        .write(true)
        .open(&tmp)
        .map_err(io_at(&tmp))?;
    let mut data = BufWriter::with_capacity(1 << 20, data_file);
    data.seek(SeekFrom::Start(head + layout.data_at))
        .map_err(io_at(&tmp))?;

    // Pass 2: the codes, and each block's offset.
    let changed = |what: &str| DbError::SourceChanged {
        what: what.to_string(),
    };
    let sshift = u32::from(options.superblock_shift);
    let mut supers: Vec<u64> = Vec::with_capacity(layout.supers as usize);
    let mut bits = BitWriter::default();
    let mut super_start = 0u64;
    let mut rank: u64 = 0;
    let mut prev = seeds;
    source.read_runs(&mut |run| {
        for &v in run {
            if rank >= count || !value::in_range(v, seeds) {
                return Err(changed("the second pass over the entries differs"));
            }
            if rank & bmask == 0 {
                prev = seeds;
                let block = rank >> bshift;
                if block & ((1u64 << sshift) - 1) == 0 {
                    super_start = bits.bits;
                    supers.push(super_start);
                }
                let rel = u16::try_from(bits.bits - super_start)
                    .map_err(|_| changed("a superblock outgrew its u16 offsets"))?;
                index.write_all(&rel.to_le_bytes()).map_err(io_at(&tmp))?;
            }
            let u = (i32::from(v) + seeds as i32) as u32;
            let (code, len) = codes[((u + n - prev) % n) as usize];
            if len == 0 {
                return Err(changed("a symbol the first pass did not see"));
            }
            bits.put(code, u32::from(len));
            prev = u;
            rank += 1;
            if bits.bytes.len() >= 1 << 16 {
                data.write_all(&bits.bytes).map_err(io_at(&tmp))?;
                bits.bytes.clear();
            }
        }
        Ok(())
    })?;
    if rank != count || bits.bits != data_bits {
        return Err(changed("the second pass over the entries differs"));
    }
    bits.flush();
    data.write_all(&bits.bytes).map_err(io_at(&tmp))?;
    data.flush().map_err(io_at(&tmp))?;
    index.flush().map_err(io_at(&tmp))?;
    drop(data);
    drop(index);
    let mut file = file;
    file.seek(SeekFrom::Start(head)).map_err(io_at(&tmp))?;
    let mut w = BufWriter::with_capacity(1 << 16, &mut file);
    w.write_all(&table).map_err(io_at(&tmp))?;
    for s in &supers {
        w.write_all(&s.to_le_bytes()).map_err(io_at(&tmp))?;
    }
    w.flush().map_err(io_at(&tmp))?;
    drop(w);
    // The checksum of the payload, read back in file order.
    file.seek(SeekFrom::Start(head)).map_err(io_at(&tmp))?;
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut left = layout.len;
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

/// Removes a temporary file unless disarmed (`.0 = None`).
struct TmpGuard(Option<PathBuf>);

impl Drop for TmpGuard {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = fs::remove_file(p);
        }
    }
}

/// Codes appended MSB first.
#[derive(Default)]
struct BitWriter {
    /// Whole bytes not yet written out.
    bytes: Vec<u8>,
    /// The low `pending` bits of `acc` are the bits after `bytes`.
    acc: u64,
    pending: u32,
    /// Bits written in all.
    bits: u64,
}

impl BitWriter {
    /// Appends the `len` (at most 12) low bits of `code`.
    #[inline]
    fn put(&mut self, code: u32, len: u32) {
        self.acc = (self.acc << len) | u64::from(code);
        self.pending += len;
        self.bits += u64::from(len);
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_table_packs_whole_codes_of_a_window() {
        // Symbols 0..5 (k = 2): lengths 0:1, 1:2, 2:3, 3:3 -> codes 0, 10, 110, 111.
        let t = decoding_table(&[1, 2, 3, 3, 0], 5);
        // Window 0b0101_1011_1000: codes 0, 10, 110, 111, 0, 0, 0: 7 codes of 12 bits,
        // symbols summing to 0+1+2+3+0+0+0.
        let e = t[0b0101_1011_1000];
        assert_eq!(e & 0xff, 0);
        assert_eq!((e >> 8) & 0xf, 1);
        assert_eq!((e >> 12) & 0xf, 7);
        assert_eq!((e >> 16) & 0xf, 12);
        assert_eq!((e >> 20) & 0xff, 6 % 5);
        // Window 0b1111_1111_1110: 111, 111, 111, 110.
        let e = t[0b1111_1111_1110];
        assert_eq!((e & 0xff, (e >> 8) & 0xf), (3, 3));
        assert_eq!(((e >> 12) & 0xf, (e >> 16) & 0xf), (4, 12));
        assert_eq!((e >> 20) & 0xff, 11 % 5);
        // Window 0b1111_1111_1011: 111, 111, 111, then 011 holds 0 and a cut code 11.
        let e = t[0b1111_1111_1011];
        assert_eq!(((e >> 12) & 0xf, (e >> 16) & 0xf), (4, 10));
        assert_eq!((e >> 20) & 0xff, 9 % 5);
        assert!(t.iter().all(|&e| e & INVALID == 0));
    }

    #[test]
    fn a_single_symbol_code_flags_windows_without_a_code() {
        let t = decoding_table(&[0, 0, 1], 3);
        assert_eq!(t[0] & 0xff, 2);
        assert_eq!((t[0] >> 12) & 0xf, 12);
        assert_eq!((t[0] >> 20) & 0xff, 24 % 3);
        assert_eq!(t[0b1000_0000_0000] & INVALID, INVALID);
        // Window 0b0010_0000_0000: two codes, then an invalid bit.
        let e = t[0b0010_0000_0000];
        assert_eq!(e & INVALID, 0);
        assert_eq!(((e >> 12) & 0xf, (e >> 16) & 0xf), (2, 2));
    }

    #[test]
    fn bit_writer_is_msb_first() {
        let mut w = BitWriter::default();
        w.put(0b1, 1);
        w.put(0b011, 3);
        w.put(0b1_1110_0001, 9);
        w.flush();
        assert_eq!(w.bits, 13);
        assert_eq!(w.bytes, vec![0b1011_1111, 0b0000_1000]);
    }

    #[test]
    fn layout_of_a_small_level() {
        let p = BlockParams {
            block_shift: 5,
            superblock_shift: 7,
            data_bits: 100,
        };
        // k = 2, 3 entries: 5 symbols (8 bytes), 1 superblock, 1 block.
        let l = Layout::new(2, 3, &p).unwrap();
        assert_eq!(
            (
                l.symbols,
                l.blocks,
                l.supers,
                l.supers_at,
                l.blocks_at,
                l.data_at,
                l.len
            ),
            (5, 1, 1, 8, 16, 24, 24 + 13)
        );
        // 4097 entries: 129 blocks, 2 superblocks.
        let l = Layout::new(10, 4097, &p).unwrap();
        assert_eq!((l.blocks, l.supers), (129, 2));
        assert_eq!(l.data_at, 24 + 16 + 264);
    }
}
