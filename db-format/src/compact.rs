//! Compact level files (format version 2): a level's entries as Huffman-coded deltas in
//! blocks, each block in a fixed-size slot found from its rank alone.
//!
//! Why: a level file of version 1 spends a byte an entry, but the entries of consecutive
//! ranks are close (the boards differ in a few pits), so the difference of an entry from
//! the one before has about 3.4 bits of entropy where the entries themselves have 4.1
//! (level 31 of 6 pits). Coding the differences with a Huffman code of at most
//! [`MAX_CODE_LEN`] bits, in blocks of `B` entries, gives about half a byte an entry.
//!
//! Why slots and not an index of where each block starts: a probe of a large level is a
//! wait for memory, and an index would make it two in a row (the index, then the block
//! it points to), which measured at 0.7 of version 1's search speed (results/db.md,
//! "Compact files (format version 2)"). A block of `B = 32` entries takes 110 to 116 bits
//! on average in the levels 20..31 of 6 pits; in a slot of 128 bits at the address
//! `16 · block` it is one read for the 78 to 90% of blocks that fit, and a second read,
//! at a continuation pointed to from its slot, for the others. The slots' slack costs
//! about 0.03 byte an entry: 0.543 byte an entry over those levels.
//!
//! # Payload layout (after the 64-byte header; offsets from the payload's start)
//!
//! With `k` the seeds, `n = 2k + 1` symbols, `N = entry_count`, `B = 2^block_shift`
//! entries a block, `S = 2^slot_shift` bytes a slot, `blocks = ceil(N / B)`, and
//! `T = n` rounded up to a multiple of `S`:
//!
//! | offset          | bytes           | content |
//! |-----------------|-----------------|---------|
//! | `0`             | `T`             | code table: byte `s` is the code length of symbol `s` (0: unused), then zeros |
//! | `T`             | `S · blocks`    | slots: slot `b` holds block `b` (entries `B·b ..`) |
//! | `T + S·blocks`  | `overflow_len`  | continuations of the blocks that do not fit their slots, in block order |
//!
//! An entry `v` in `-k..=k` is `u = v + k` in `0..n`. Its symbol is `(u - u') mod n`,
//! where `u'` is the previous entry's `u`, or `k` (the value 0) for the first entry of a
//! block. Decoding adds symbols modulo `n`, so every decoded entry lies in `-k..=k`
//! whatever the bits are: a damaged file decodes to wrong values, never to impossible
//! ones (the checksum and [`Compact::walk`] find the damage).
//!
//! Bits are numbered from the most significant bit of the first byte. A block's codes
//! (canonical, [`crate::huffman`]: lengths 1 to 12, a complete prefix code or a single
//! symbol of length 1) take `L` bits. If `L <= 8S - 1`, its slot is a 0 bit, the codes,
//! then zero bits. Otherwise the slot is a 1 bit, a 39-bit big-endian byte offset `P`
//! into the continuations, then the first `8S - 40` bits of the codes; the other
//! `L - (8S - 40)` bits are at continuation byte `P`, then zero bits to the end of a
//! byte. The first continuation is at `P = 0`, each next one right after the one before.
//!
//! A probe of rank `r`: slot `b = r >> block_shift`, then decode `(r mod B) + 1` codes
//! from bit 1 of the slot (or from bit 40 and on into the continuation), summing their
//! symbols modulo `n` from `u' = k`.

use crate::error::DbError;
use crate::header::Header;
use crate::huffman::{canonical_codes, check_lengths, MAX_CODE_LEN, TABLE_LEN};
use crate::layout::{CompactOptions, Layout, OVERFLOW_HEAD, POINTER_BITS};

// A decoding table entry (u32), for a window of MAX_CODE_LEN bits:
//   bits  0..8   the first symbol
//   bits  8..12  its code length
//   bits 12..16  how many whole codes the window holds, from its start (at least 1)
//   bits 16..20  their total length in bits
//   bits 20..28  the sum of their symbols modulo n
//   bit  31      the window starts with no code (possible only with a single-symbol code,
//                whose code is `0`; the entry then reads it as that symbol, length 1)
const INVALID: u32 = 1 << 31;

/// Bytes of the buffer an overflowing block is decoded from: the codes of its slot, its
/// continuation, and 8 bytes for the last 8-byte load (at most `64 - 5 + 96 + 8`).
const JOINED: usize = 176;

/// The validated description of a compact payload: its layout and its decoding table.
/// (`FORMAT.md`, "Version 2: compact files", describes the payload byte by byte.)
///
/// Invariants: the code table of the payload passed [`check_lengths`], the layout was
/// checked against the file's length (every section lies inside the payload), and the
/// block parameters are in range.
#[derive(Clone)]
pub struct Compact {
    seeds: u32,
    symbols: u32,
    count: u64,
    block_shift: u32,
    slot_shift: u32,
    /// The most continuation bytes a block can need.
    max_continuation: usize,
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
            .field("slot_shift", &self.slot_shift)
            .field("layout", &self.layout)
            .field("lengths", &self.lengths)
            .finish()
    }
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
                let n = tail.len().min(8);
                w[..n].copy_from_slice(&tail[..n]);
            }
            u64::from_be_bytes(w)
        }
    }
}

/// Where the codes of a block lie.
enum Codes<'p> {
    /// In its slot, from bit 1: the slot and what follows it in the payload.
    Inline(&'p [u8]),
    /// From bit 40 of the slot on into the continuation at this byte of the
    /// continuations.
    Overflow(&'p [u8], u64),
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
        let options = CompactOptions {
            block_shift: p.block_shift,
            slot_shift: p.slot_shift,
        };
        options.check().map_err(|e| e.to_string())?;
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
        if payload[n..layout.slots_at as usize].iter().any(|&b| b != 0) {
            return Err("code table padding is not zero".to_string());
        }
        let table = decoding_table(&lengths, layout.symbols as u32);
        Ok(Compact {
            seeds,
            symbols: layout.symbols as u32,
            count: header.entry_count,
            block_shift: u32::from(p.block_shift),
            slot_shift: u32::from(p.slot_shift),
            max_continuation: options.max_continuation() as usize,
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

    /// Bytes a slot.
    #[inline]
    fn slot_len(&self) -> usize {
        1 << self.slot_shift
    }

    /// The payload from the slot of `block` on (the slot is its first `slot_len()` bytes),
    /// `None` past the slots.
    #[inline]
    fn slot<'p>(&self, payload: &'p [u8], block: u64) -> Option<&'p [u8]> {
        let at = self.layout.slots_at + (block << self.slot_shift);
        let rest = payload.get(usize::try_from(at).ok()?..)?;
        (rest.len() >= self.slot_len()).then_some(rest)
    }

    /// Where the codes of `block` lie; `None` past the slots.
    #[inline]
    fn codes<'p>(&self, payload: &'p [u8], block: u64) -> Option<Codes<'p>> {
        let slot = self.slot(payload, block)?;
        if slot[0] & 0x80 == 0 {
            return Some(Codes::Inline(slot));
        }
        let head = u64::from_be_bytes([0, 0, 0, slot[0], slot[1], slot[2], slot[3], slot[4]]);
        Some(Codes::Overflow(slot, head & ((1 << POINTER_BITS) - 1)))
    }

    /// The codes of an overflowing block joined into `buf`: the slot's from bit 40, then
    /// its continuation from byte `at` of the continuations (what there is of it, up to
    /// the most a block needs; zeros after). Returns the bytes of `buf` that hold codes,
    /// `None` when `at` lies past the continuations.
    #[inline]
    fn join(&self, payload: &[u8], slot: &[u8], at: u64, buf: &mut [u8; JOINED]) -> Option<usize> {
        let inline = self.slot_len() - (OVERFLOW_HEAD / 8) as usize;
        buf[..inline].copy_from_slice(&slot[(OVERFLOW_HEAD / 8) as usize..self.slot_len()]);
        let from = self.layout.overflow_at.checked_add(at)?;
        let rest = payload.get(usize::try_from(from).ok()?..)?;
        let take = rest.len().min(self.max_continuation);
        buf[inline..inline + take].copy_from_slice(&rest[..take]);
        Some(inline + take)
    }

    /// The entry of rank `rank` of the payload `payload` (the one [`Compact::new`]
    /// checked): `None` when `rank >= count`, or when its block is found damaged (a
    /// continuation past the payload, codes that run past the block's bits). The value is
    /// always in `-k..=k`; in a damaged file it may be wrong (the checksum finds that).
    #[inline]
    pub fn get(&self, payload: &[u8], rank: u64) -> Option<i8> {
        if rank >= self.count {
            return None;
        }
        let left = (rank & ((1u64 << self.block_shift) - 1)) as u32 + 1;
        let u = match self.codes(payload, rank >> self.block_shift)? {
            Codes::Inline(slot) => {
                let (u, end) = self.sum_codes(slot, 1, left);
                if end > 8 * self.slot_len() as u64 {
                    return None;
                }
                u
            }
            Codes::Overflow(slot, at) => {
                let mut buf = [0u8; JOINED];
                let have = self.join(payload, slot, at, &mut buf)?;
                let (u, end) = self.sum_codes(&buf, 0, left);
                if end > 8 * have as u64 {
                    return None;
                }
                u
            }
        };
        Some((u as i32 - self.seeds as i32) as i8)
    }

    /// The byte [`Compact::get`] of `rank` reads first (its slot's), to prefetch.
    #[inline]
    pub fn slot_byte<'p>(&self, payload: &'p [u8], rank: u64) -> Option<&'p u8> {
        self.slot(payload, rank >> self.block_shift)?.first()
    }

    /// Decodes `left` (at least 1) codes of `data` from bit `pos` and returns `u` of the
    /// last (the sum of their symbols modulo `n`, from `k`) and the bit after it. Reads
    /// up to 4 table windows from one 8-byte load; a window of several whole codes is
    /// taken at once while they are all wanted, the last ones one at a time.
    #[inline]
    fn sum_codes(&self, data: &[u8], mut pos: u64, mut left: u32) -> (u32, u64) {
        let n = self.symbols;
        let mut u = self.seeds;
        let table = &self.table[..TABLE_LEN];
        // Whole windows while all their codes are wanted: no branch but the loops'.
        'windows: loop {
            let word = load_be(data, (pos >> 3) as usize) << (pos & 7);
            let mut used = 0u32;
            // 57 valid bits: four windows of 12.
            for _ in 0..4 {
                let e = table[((word << used) >> (64 - MAX_CODE_LEN)) as usize];
                let count = (e >> 12) & 0xf;
                if count > left {
                    pos += u64::from(used);
                    break 'windows;
                }
                used += (e >> 16) & 0xf;
                left -= count;
                u += (e >> 20) & 0xff;
                if u >= n {
                    u -= n;
                }
                if left == 0 {
                    return (u, pos + u64::from(used));
                }
            }
            pos += u64::from(used);
        }
        // Fewer codes wanted than the next window holds (at most 11): one at a time, all
        // from one load.
        let word = load_be(data, (pos >> 3) as usize) << (pos & 7);
        let mut used = 0u32;
        while left > 0 {
            let e = table[((word << used) >> (64 - MAX_CODE_LEN)) as usize];
            used += (e >> 8) & 0xf;
            u += e & 0xff;
            if u >= n {
                u -= n;
            }
            left -= 1;
        }
        (u, pos + u64::from(used))
    }

    /// Decodes `len` codes of `data` from bit `pos` one at a time, strictly (a window that
    /// starts with no code is an error), pushing each entry to `out`; returns the bit
    /// after the last.
    fn decode_strict(
        &self,
        data: &[u8],
        mut pos: u64,
        len: u64,
        out: &mut Vec<i8>,
    ) -> Result<u64, String> {
        let table = &self.table[..TABLE_LEN];
        let n = self.symbols;
        let mut u = self.seeds;
        for _ in 0..len {
            let w = load_be(data, (pos >> 3) as usize) << (pos & 7);
            let e = table[(w >> (64 - MAX_CODE_LEN)) as usize];
            if e & INVALID != 0 {
                return Err(format!("bits at {pos} are no code"));
            }
            pos += u64::from((e >> 8) & 0xf);
            u += e & 0xff;
            if u >= n {
                u -= n;
            }
            out.push((u as i32 - self.seeds as i32) as i8);
        }
        Ok(pos)
    }

    /// Decodes the whole payload in rank order, strictly: every code must be one of the
    /// code's; a block must overflow exactly when its codes do not fit its slot; each
    /// continuation must start where the one before ends, the last end where the payload
    /// does; every bit after a block's codes (in its slot or its continuation's last byte)
    /// must be zero. Calls `sink` with the entries in runs of whole blocks.
    pub fn walk(
        &self,
        payload: &[u8],
        sink: &mut dyn FnMut(&[i8]) -> Result<(), DbError>,
    ) -> Result<(), WalkError> {
        let corrupt =
            |block: u64, what: String| WalkError::Corrupt(format!("block {block}: {what}"));
        let bsize = 1u64 << self.block_shift;
        let slot_bits = 8 * self.slot_len() as u64;
        // Whole blocks of about 64 Ki entries a run.
        let per_run = 1u64 << 16;
        let mut buf: Vec<i8> = Vec::with_capacity(per_run as usize);
        let mut next_at: u64 = 0;
        let overflow_len = self.layout.len - self.layout.overflow_at;
        for block in 0..self.layout.blocks {
            let len = bsize.min(self.count - block * bsize);
            let codes = self
                .codes(payload, block)
                .ok_or_else(|| corrupt(block, "slot outside the payload".to_string()))?;
            match codes {
                Codes::Inline(slot) => {
                    let end = self
                        .decode_strict(slot, 1, len, &mut buf)
                        .map_err(|e| corrupt(block, e))?;
                    if end > slot_bits {
                        return Err(corrupt(block, "codes run past the slot".to_string()));
                    }
                    if !zero_after(&slot[..self.slot_len()], end) {
                        return Err(corrupt(
                            block,
                            "bits after the codes are not zero".to_string(),
                        ));
                    }
                }
                Codes::Overflow(slot, at) => {
                    if at != next_at {
                        return Err(corrupt(
                            block,
                            format!("continuation at byte {at}, the one before ends at {next_at}"),
                        ));
                    }
                    let mut joined = [0u8; JOINED];
                    let have = self.join(payload, slot, at, &mut joined).ok_or_else(|| {
                        corrupt(block, "continuation past the payload".to_string())
                    })?;
                    let end = self
                        .decode_strict(&joined, 0, len, &mut buf)
                        .map_err(|e| corrupt(block, e))?;
                    let inline = slot_bits - u64::from(OVERFLOW_HEAD);
                    if end < slot_bits {
                        return Err(corrupt(
                            block,
                            "overflows though its codes fit its slot".to_string(),
                        ));
                    }
                    if end > 8 * have as u64 {
                        return Err(corrupt(block, "codes run past the payload".to_string()));
                    }
                    let cont = (end - inline).div_ceil(8);
                    let inline_bytes = self.slot_len() - (OVERFLOW_HEAD / 8) as usize;
                    if !zero_after(&joined[..inline_bytes + cont as usize], end) {
                        return Err(corrupt(
                            block,
                            "bits after the codes are not zero".to_string(),
                        ));
                    }
                    next_at = at + cont;
                }
            }
            if buf.len() as u64 + bsize > per_run {
                sink(&buf).map_err(WalkError::Sink)?;
                buf.clear();
            }
        }
        if !buf.is_empty() {
            sink(&buf).map_err(WalkError::Sink)?;
        }
        if next_at != overflow_len {
            return Err(WalkError::Corrupt(format!(
                "the continuations end at byte {next_at}, the header gives {overflow_len}"
            )));
        }
        Ok(())
    }
}

/// Whether every bit of `bytes` from bit `from` on is zero.
fn zero_after(bytes: &[u8], from: u64) -> bool {
    let first = (from / 8) as usize;
    let Some(rest) = bytes.get(first..) else {
        return true;
    };
    match rest.split_first() {
        None => true,
        Some((&b, tail)) => {
            let used = (from % 8) as u32;
            let mask = if used == 0 { 0xff } else { 0xffu8 >> used };
            b & mask == 0 && tail.iter().all(|&x| x == 0)
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{BLOCK_SHIFTS, SLOT_SHIFTS};

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
    fn continuations_are_bounded() {
        let o = CompactOptions::default();
        // 32 codes of 12 bits = 384 bits, 88 in the slot: 296 bits = 37 bytes.
        assert_eq!(o.max_continuation(), 37);
        for block_shift in BLOCK_SHIFTS {
            for slot_shift in SLOT_SHIFTS {
                let o = CompactOptions {
                    block_shift,
                    slot_shift,
                };
                let inline = (1usize << slot_shift) - 5;
                assert!(inline + o.max_continuation() as usize + 8 <= JOINED);
            }
        }
        assert!(zero_after(&[0b1010_0000, 0], 3));
        assert!(!zero_after(&[0b1010_0000, 1], 3));
        assert!(!zero_after(&[0b1011_0000], 3));
        assert!(zero_after(&[0xff], 8));
    }
}
