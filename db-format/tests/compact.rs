//! Compact level files (format version 2): what is written reads back, rank by rank and
//! in order, for levels of every length class and every kind of value sequence; the
//! writer is deterministic; damage the checksum does not see is found by the checks
//! behind it, and never makes a reader panic or read an impossible value. And FORMAT.md's
//! example files of both versions, byte for byte.

use std::fs;
use std::path::{Path, PathBuf};

use db_format::{
    checksum, file_name, level_size, value_in_range as in_range, write_compact_to, write_level,
    write_level_from, CompactOptions, DbError, Format, Layout, LevelFile, LevelSource, RulesKey,
    HEADER_LEN,
};
use proptest::prelude::*;

/// A xorshift stream, so that a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value in `-k..=k`.
    fn value(&mut self, k: u32) -> i8 {
        (self.next() % (2 * u64::from(k) + 1)) as i8 - k as i8
    }
}

/// The kinds of value sequences a level is tested with.
fn sequences(k: u32, n: usize, seed: u64) -> Vec<(&'static str, Vec<i8>)> {
    let mut rng = Rng(seed | 1);
    let ki = k as i32;
    let uniform: Vec<i8> = (0..n).map(|_| rng.value(k)).collect();
    let mut walk = Vec::with_capacity(n);
    let mut v = 0i32;
    for _ in 0..n {
        v = (v + (rng.next() % 3) as i32 - 1).clamp(-ki, ki);
        walk.push(v as i8);
    }
    // Every value of -k..=k in turn, and the extremes alternating (deltas of 2k).
    let cycle: Vec<i8> = (0..n)
        .map(|i| ((i as i32) % (2 * ki + 1) - ki) as i8)
        .collect();
    let extremes: Vec<i8> = (0..n)
        .map(|i| if i % 2 == 0 { -ki as i8 } else { ki as i8 })
        .collect();
    // Mostly one value: long runs of zero deltas, rare jumps.
    let runs: Vec<i8> = (0..n)
        .map(|i| {
            if (i / 37) % 5 == 0 {
                (ki / 2) as i8
            } else {
                -ki as i8
            }
        })
        .collect();
    vec![
        ("uniform", uniform),
        ("walk", walk),
        ("cycle", cycle),
        ("extremes", extremes),
        ("runs", runs),
        ("zeros", vec![0; n]),
        ("constant k", vec![k as i8; n]),
    ]
}

/// Writes `values` as the compact level (`rules`, `k`) with `options` into `dir` and
/// checks every way of reading it back; returns the file's path.
fn round_trip(
    dir: &Path,
    rules: &RulesKey,
    k: u32,
    values: &[i8],
    options: CompactOptions,
    what: &str,
) -> PathBuf {
    let path = dir.join(file_name(rules, k));
    let mut source = values;
    write_compact_to(&path, rules, k, &mut source, options).unwrap();
    let f = LevelFile::open(&path, rules, k).unwrap();
    assert_eq!(f.format(), Format::Compact);
    assert_eq!(f.header().version, 2);
    assert_eq!(f.values(), None);
    f.verify().unwrap_or_else(|e| panic!("{what}: {e}"));
    let entries = f.entries();
    assert_eq!(entries.len(), values.len() as u64);
    for (r, &v) in values.iter().enumerate() {
        let r = r as u64;
        assert_eq!(f.try_get(r), Some(v), "{what}: rank {r}");
        assert_eq!(entries.get(r), Some(v), "{what}: rank {r}");
        assert!(entries.first_read(r).is_some());
    }
    assert_eq!(f.get(values.len() as u64 - 1), values[values.len() - 1]);
    assert_eq!(f.try_get(values.len() as u64), None);
    assert_eq!(f.try_get(u64::MAX), None);
    // In rank order, as a writer reads it.
    let mut read = Vec::new();
    let mut src = &f;
    src.read_runs(&mut |run| {
        read.extend_from_slice(run);
        Ok(())
    })
    .unwrap();
    assert_eq!(read, values, "{what}");
    let len = fs::metadata(&path).unwrap().len();
    assert_eq!(Some(len), f.header().file_len());
    path
}

/// The standard rules of Kalah(m, ·) and the entries of their level `k`.
fn standard_level(m: u8, k: u32) -> (RulesKey, usize) {
    let n = level_size(2 * usize::from(m), k);
    (RulesKey::standard(m), n as usize)
}

/// [`round_trip`] with the default blocks: the file written, opened again as it is.
fn round_trip_default(
    dir: &Path,
    rules: &RulesKey,
    k: u32,
    values: &[i8],
    what: &str,
) -> LevelFile {
    let path = round_trip(dir, rules, k, values, CompactOptions::default(), what);
    LevelFile::open_any(&path).unwrap()
}

/// m = 1: level k has k + 1 entries, so every length 1..=128 occurs, among them
/// B - 1, B and B + 1 for B = 32 (k = 30, 31, 32) and level 0's single entry.
#[test]
fn every_length_up_to_128_and_every_kind_of_sequence() {
    let dir = tempfile::tempdir().unwrap();
    let rules = RulesKey::standard(1);
    for k in 0..=127u32 {
        let n = level_size(2, k) as usize;
        assert_eq!(n, k as usize + 1);
        for (what, values) in sequences(k, n, 0x9e37_79b9 + u64::from(k)) {
            round_trip_default(dir.path(), &rules, k, &values, &format!("k {k} {what}"));
        }
    }
}

/// Many blocks, with every block and slot size the format allows, and levels where many
/// blocks overflow their slots (uniform values) or none do.
#[test]
fn every_block_and_slot_size() {
    let dir = tempfile::tempdir().unwrap();
    // m = 2, k = 30: 5456 entries, 171 blocks of 32.
    let k = 30;
    let (rules, n) = standard_level(2, k);
    for block_shift in 3..=6 {
        for slot_shift in 4..=6 {
            let options = CompactOptions {
                block_shift,
                slot_shift,
            };
            for (what, values) in sequences(k, n, 77) {
                let p = round_trip(dir.path(), &rules, k, &values, options, what);
                let f = LevelFile::open_any(&p).unwrap();
                let layout = f.compact().unwrap().layout();
                assert_eq!(layout.blocks, (n as u64).div_ceil(1 << block_shift));
                assert_eq!(
                    layout.overflow_at - layout.slots_at,
                    layout.blocks << slot_shift
                );
            }
        }
    }
    // Uniform values in -30..=30: about 6 bits an entry, so blocks of 32 overflow slots
    // of 16 bytes; a walk: none overflow.
    let (_, uniform) = sequences(k, n, 5).swap_remove(0);
    let f = round_trip_default(dir.path(), &rules, k, &uniform, "uniform");
    assert!(f.header().blocks.unwrap().overflow_len > 0);
    let (_, walk) = sequences(k, n, 5).swap_remove(1);
    let f = round_trip_default(dir.path(), &rules, k, &walk, "walk");
    assert_eq!(f.header().blocks.unwrap().overflow_len, 0);
}

/// A level whose deltas are all 0 has a one-symbol code (length 1, code `0`): one bit an
/// entry, all zero.
#[test]
fn a_single_symbol_code() {
    let dir = tempfile::tempdir().unwrap();
    let k = 6;
    let (rules, n) = standard_level(2, k);
    let f = round_trip_default(dir.path(), &rules, k, &vec![0; n], "zeros");
    let code = f.compact().unwrap();
    let used: Vec<(usize, u8)> = code
        .lengths()
        .iter()
        .enumerate()
        .filter(|(_, &l)| l > 0)
        .map(|(s, &l)| (s, l))
        .collect();
    assert_eq!(used, vec![(0, 1)]);
    assert_eq!(f.header().blocks.unwrap().overflow_len, 0);
    let slots = &f.payload()[code.layout().slots_at as usize..];
    assert!(slots.iter().all(|&b| b == 0));
}

#[test]
fn the_writer_is_deterministic_and_streams_from_a_byte_file() {
    let dir = tempfile::tempdir().unwrap();
    let k = 9;
    let (rules, n) = standard_level(3, k);
    let mut rng = Rng(5);
    let mut v = 0i32;
    let values: Vec<i8> = (0..n)
        .map(|_| {
            v = (v + (rng.next() % 5) as i32 - 2).clamp(-9, 9);
            v as i8
        })
        .collect();
    let a = dir.path().join("a.kdb");
    let b = dir.path().join("b.kdb");
    let mut s = &values[..];
    write_compact_to(&a, &rules, k, &mut s, CompactOptions::default()).unwrap();
    let mut s = &values[..];
    write_compact_to(&b, &rules, k, &mut s, CompactOptions::default()).unwrap();
    assert_eq!(fs::read(&a).unwrap(), fs::read(&b).unwrap());
    // The same level through a version-1 file, and through write_level: the same bytes.
    let byte = write_level(dir.path(), &rules, k, &values, Format::Byte).unwrap();
    let f = LevelFile::open(&byte, &rules, k).unwrap();
    let c = dir.path().join("c.kdb");
    let mut src = &f;
    write_level_from(&c, &rules, k, &mut src, Format::Compact).unwrap();
    assert_eq!(fs::read(&a).unwrap(), fs::read(&c).unwrap());
    let d = write_level(
        &dir.path().join("sub").tap_mkdir(),
        &rules,
        k,
        &values,
        Format::Compact,
    )
    .unwrap();
    assert_eq!(fs::read(&a).unwrap(), fs::read(&d).unwrap());
    // And back to one byte an entry: the first file's bytes.
    let g = LevelFile::open(&d, &rules, k).unwrap();
    let e = dir.path().join("e.kdb");
    let mut src = &g;
    write_level_from(&e, &rules, k, &mut src, Format::Byte).unwrap();
    assert_eq!(fs::read(&byte).unwrap(), fs::read(&e).unwrap());
    // Half a byte an entry in slots (16 bytes for 32 entries), a few continuations.
    let len = fs::metadata(&a).unwrap().len();
    assert!(
        len < 64 + 56 * n as u64 / 100,
        "{len} bytes for {n} entries"
    );
}

/// Creates a directory and returns it.
trait TapMkdir {
    fn tap_mkdir(self) -> PathBuf;
}

impl TapMkdir for PathBuf {
    fn tap_mkdir(self) -> PathBuf {
        fs::create_dir_all(&self).unwrap();
        self
    }
}

/// A source whose second pass differs from its first.
struct Fickle {
    values: Vec<i8>,
    passes: u32,
}

impl LevelSource for Fickle {
    fn read_runs(
        &mut self,
        sink: &mut dyn FnMut(&[i8]) -> Result<(), DbError>,
    ) -> Result<(), DbError> {
        self.passes += 1;
        if self.passes == 2 {
            self.values[3] = if self.values[3] == 1 { 2 } else { 1 };
        }
        sink(&self.values)
    }
}

#[test]
fn a_source_that_changes_between_passes_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let rules = RulesKey::standard(1);
    let path = dir.path().join("x.kdb");
    let mut src = Fickle {
        values: vec![0; 6],
        passes: 0,
    };
    let e = write_compact_to(&path, &rules, 5, &mut src, CompactOptions::default()).unwrap_err();
    assert!(matches!(e, DbError::SourceChanged { .. }), "{e}");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    let bad = CompactOptions {
        block_shift: 7,
        slot_shift: 4,
    };
    let mut s: &[i8] = &[0; 6];
    assert!(matches!(
        write_compact_to(&path, &rules, 5, &mut s, bad),
        Err(DbError::BadOptions { .. })
    ));
}

/// A file's bytes as FORMAT.md shows them: rows of 16, in hex, separated by spaces.
fn hex_rows(data: &[u8]) -> Vec<String> {
    data.chunks(16)
        .map(|c| {
            c.iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// The example file of FORMAT.md, byte for byte: Kalah(1, ·) standard rules, 2 seeds on
/// the board, positions [0,2], [1,1], [2,0] worth -2, 0, +2, one byte each (version 1).
#[test]
fn golden_byte_file_of_format_md() {
    let dir = tempfile::tempdir().unwrap();
    let rules = RulesKey::standard(1);
    let path = write_level(dir.path(), &rules, 2, &[-2, 0, 2], Format::Byte).unwrap();
    assert_eq!(
        path.file_name().unwrap(),
        "m1-standard-single-ccw-skip-either-owner-k002.kdb"
    );
    let data = fs::read(&path).unwrap();
    let sum = checksum(&[0xfe, 0x00, 0x02]);
    assert_eq!(data.len(), 67);
    assert_eq!(&data[64..], &[0xfe, 0x00, 0x02]);
    assert_eq!(&data[32..40], &sum.to_le_bytes());
    assert_eq!(sum, 0x75e6_3233_f7e3_487b);
    assert_eq!(
        hex_rows(&data),
        [
            "4b 41 4c 41 48 44 42 00 01 00 00 00 01 00 00 00",
            "00 00 00 02 01 00 00 00 03 00 00 00 00 00 00 00",
            "7b 48 e3 f7 33 32 e6 75 00 00 00 00 00 00 00 00",
            "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
            "fe 00 02",
        ]
    );
}

/// FORMAT.md's example of a compact file, byte for byte: level 40 of Kalah(1, ·) under
/// the standard rules (its 41 values from `kalah db build --pits 1 --max-seeds 40`),
/// default blocks: block 0 overflows its slot, block 1 does not.
#[test]
fn golden_compact_file_of_format_md() {
    let dir = tempfile::tempdir().unwrap();
    let rules = RulesKey::standard(1);
    let values: [i8; 41] = [
        -40, -38, -38, 40, -34, -24, 4, -32, -12, -8, 40, -10, 8, -24, -30, 10, -24, 10, -2, 4, 12,
        4, -16, -2, 6, 0, 4, 16, 2, 6, 10, 40, 4, 12, 26, 10, 14, 12, 12, -2, 40,
    ];
    let path = write_level(dir.path(), &rules, 40, &values, Format::Compact).unwrap();
    assert_eq!(
        path.file_name().unwrap(),
        "m1-standard-single-ccw-skip-either-owner-k040.kdb"
    );
    let data = fs::read(&path).unwrap();
    assert_eq!(&data[32..40], &checksum(&data[HEADER_LEN..]).to_le_bytes());
    assert_eq!(hex_rows(&data), GOLDEN);
    let f = LevelFile::open(&path, &rules, 40).unwrap();
    f.verify().unwrap();
    assert_eq!(
        (0..41).map(|r| f.get(r)).collect::<Vec<_>>(),
        values.to_vec()
    );
}

/// The bytes of FORMAT.md's compact example, 16 a line.
const GOLDEN: &[&str] = &[
    "4b 41 4c 41 48 44 42 00 02 00 00 00 01 00 00 00",
    "00 00 00 28 00 01 05 04 29 00 00 00 00 00 00 00",
    "52 65 b5 13 a9 0c 89 d5 09 00 00 00 00 00 00 00",
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
    "05 00 06 00 03 00 06 06 04 00 06 00 05 00 05 00",
    "00 00 05 00 05 00 00 00 00 00 00 00 05 00 05 05",
    "00 00 05 00 00 00 00 00 05 05 05 00 00 05 00 05",
    "05 05 00 00 00 00 00 00 00 00 00 00 00 05 00 00",
    "00 05 00 05 00 05 00 00 00 05 00 05 00 00 05 05",
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
    "80 00 00 00 00 87 86 e7 df ae 4a 14 6a 6b b7 cd",
    "02 45 c7 4d 88 80 00 00 00 00 00 00 00 00 00 00",
    "d9 f4 b5 64 16 c1 f0 03 00",
];

/// Rewrites the header's checksum to match the payload, so that what the checksum would
/// catch reaches the checks behind it.
fn rehash(bytes: &mut [u8]) {
    let sum = checksum(&bytes[HEADER_LEN..]);
    bytes[32..40].copy_from_slice(&sum.to_le_bytes());
}

/// A compact level of m = 2, k = 12 (1820 entries, 57 blocks of 32): blocks of a walk
/// (whose codes fit their slots) alternating with blocks of uniform values (which
/// overflow them); its values, its file's bytes and layout.
fn sample(dir: &Path) -> (Vec<i8>, Vec<u8>, Layout) {
    let rules = RulesKey::standard(2);
    let k = 12;
    let n = level_size(4, k) as usize;
    let mut rng = Rng(99);
    let mut v = 0i32;
    let values: Vec<i8> = (0..n)
        .map(|i| {
            if (i / 32) % 2 == 1 {
                return rng.value(12);
            }
            v = (v + (rng.next() % 3) as i32 - 1).clamp(-12, 12);
            v as i8
        })
        .collect();
    let path = write_level(dir, &rules, k, &values, Format::Compact).unwrap();
    let f = LevelFile::open(&path, &rules, k).unwrap();
    let layout = *f.compact().unwrap().layout();
    (values, fs::read(&path).unwrap(), layout)
}

/// Opens `bytes` as the sample's level: the error of opening or verifying, or `Ok`;
/// either way every rank reads as `None` or a value in range.
fn open_damaged(dir: &Path, bytes: &[u8]) -> Result<(), DbError> {
    let rules = RulesKey::standard(2);
    let path = dir.join(file_name(&rules, 12));
    fs::write(&path, bytes).unwrap();
    let f = LevelFile::open(&path, &rules, 12)?;
    for r in 0..f.len() {
        if let Some(v) = f.try_get(r) {
            assert!(in_range(v, 12), "rank {r}: {v}");
        }
        assert!(in_range(f.get(r), 12));
    }
    f.verify()
}

#[test]
fn damage_behind_a_matching_checksum_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let (values, good, layout) = sample(dir.path());
    let at = |off: u64| HEADER_LEN + off as usize;
    let slot = |b: u64| at(layout.slots_at + 16 * b);
    // Block 1 overflows (uniform values), block 0 does not; the first continuation is
    // block 1's.
    assert_eq!(good[slot(0)] & 0x80, 0);
    assert_eq!(&good[slot(1)..slot(1) + 5], &[0x80, 0, 0, 0, 0]);
    assert!(layout.len > layout.overflow_at);
    let corrupted = |bytes: &[u8], want: &str| {
        let mut b = bytes.to_vec();
        rehash(&mut b);
        match open_damaged(dir.path(), &b) {
            Err(DbError::Corrupted { what, .. }) => {
                assert!(what.contains(want), "expected {want:?}: {what}")
            }
            other => panic!("expected {want:?}: {other:?}"),
        }
    };
    // A code table that is not a complete prefix code, one with a code over 12 bits.
    let mut b = good.clone();
    b[at(0)] = 1;
    b[at(1)] = 1;
    corrupted(&b, "code table");
    let mut b = good.clone();
    b[at(0)] = 13;
    corrupted(&b, "code table");
    // Nonzero padding after the table (25 symbols, padded to 32 bytes).
    let mut b = good.clone();
    b[at(31)] = 1;
    corrupted(&b, "padding");
    // A continuation past the payload: its block's probes answer None, verify finds it.
    let mut b = good.clone();
    b[slot(1)..slot(1) + 5].copy_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff]);
    rehash(&mut b);
    let rules = RulesKey::standard(2);
    let path = dir.path().join(file_name(&rules, 12));
    fs::write(&path, &b).unwrap();
    let f = LevelFile::open(&path, &rules, 12).unwrap();
    assert_eq!(f.try_get(32), None);
    assert_eq!(f.get(32), 0);
    assert_eq!(f.try_get(31), Some(values[31]));
    assert_eq!(f.try_get(64), Some(values[64]));
    assert!(f.verify().is_err());
    // A continuation that does not follow the one before.
    let mut b = good.clone();
    b[slot(1) + 4] = 1;
    corrupted(&b, "continuation at byte 1");
    // An inline slot marked as overflowing.
    let mut b = good.clone();
    b[slot(0)] |= 0x80;
    corrupted(&b, "block 0");
    // Bits set after an inline block's codes.
    let mut b = good.clone();
    b[slot(0) + 15] |= 1;
    corrupted(&b, "not zero");
    // A code bit flipped in an inline slot: other values or codes past the slot, found
    // by the walk or by the values.
    let mut b = good.clone();
    b[slot(0) + 2] ^= 0x10;
    let mut c = b.clone();
    rehash(&mut c);
    if open_damaged(dir.path(), &c).is_ok() {
        let f = LevelFile::open_any(&path).unwrap();
        assert!((0..32).any(|r| f.try_get(r) != Some(values[r as usize])));
    }
    // The header's continuation length one more or less: the length no longer fits.
    let len = u64::from_le_bytes(good[40..48].try_into().unwrap());
    for other in [len + 1, len - 1] {
        let mut b = good.clone();
        b[40..48].copy_from_slice(&other.to_le_bytes());
        assert!(matches!(
            open_damaged(dir.path(), &b),
            Err(DbError::LengthMismatch { .. })
        ));
    }
    // A file cut and its header's continuation length cut to match: the walk finds the
    // continuations end elsewhere.
    let mut b = good[..good.len() - 1].to_vec();
    b[40..48].copy_from_slice(&(len - 1).to_le_bytes());
    corrupted(&b, "");
    // A flip without rehashing: the checksum.
    let mut b = good.clone();
    b[slot(3) + 3] ^= 0x10;
    assert!(matches!(
        open_damaged(dir.path(), &b),
        Err(DbError::ChecksumMismatch { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Any edits and any cut of a valid compact file: an error, or reads in range, and a
    /// file that verifies reads back exactly what was written.
    #[test]
    fn mutated_compact_files_are_refused_or_read_in_range(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..5),
        region in 0u8..5,
        fix_checksum in any::<bool>(),
        cut in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (values, mut bytes, layout) = sample(dir.path());
        // Aim the edits at the header, the table, the slots, the continuations or anywhere.
        let (lo, hi) = match region {
            0 => (0, HEADER_LEN),
            1 => (HEADER_LEN, HEADER_LEN + layout.slots_at as usize),
            2 => (HEADER_LEN + layout.slots_at as usize, HEADER_LEN + layout.overflow_at as usize),
            3 => (HEADER_LEN + layout.overflow_at as usize, bytes.len()),
            _ => (0, bytes.len()),
        };
        for (at, b) in edits {
            let i = lo + at.index(hi - lo);
            bytes[i] = b;
        }
        if fix_checksum {
            rehash(&mut bytes);
        }
        if let Some(c) = cut {
            bytes.truncate(c.index(bytes.len()));
        }
        let rules = RulesKey::standard(2);
        if open_damaged(dir.path(), &bytes).is_ok() && !fix_checksum {
            // The checksum holds: the payload is the one written (the header bytes it
            // does not cover were checked field by field), so are the entries.
            let f = LevelFile::open(&dir.path().join(file_name(&rules, 12)), &rules, 12).unwrap();
            let read: Vec<i8> = (0..f.len()).map(|r| f.get(r)).collect();
            prop_assert_eq!(read, values);
        }
    }
}
