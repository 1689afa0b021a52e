//! Arbitrary and mutated bytes fed to every decoder and reader of the crate: each answers
//! with an error or with the value that was written, never a panic or an impossible value;
//! and a level file opened for reading ([`LevelFile::open`]) whose bytes differ from those
//! written in any way is refused, so that no entry of it is ever read.

use std::fs;
use std::path::Path;

use db_format::shard::{merge_shards, split_entries, write_shard, ShardHeader, ShardSpec};
use db_format::{
    decode_value as decode, file_name, level_size, value_in_range as in_range, write_level, Format,
    Header, LevelFile, RulesKey, HEADER_LEN,
};
use proptest::prelude::*;

/// A small valid level: 2 pits a side, 5 seeds, values a function of the rank.
const SEEDS: u32 = 5;

fn values() -> Vec<i8> {
    let n = level_size(4, SEEDS);
    (0..n).map(|i| (i % 11) as i8 - 5).collect()
}

fn key() -> RulesKey {
    RulesKey::standard(2)
}

/// The entries of `values` (a level of `key()`) that shard `spec` holds.
fn shard_values(values: &[i8], spec: ShardSpec) -> Vec<i8> {
    split_entries(values, 2, SEEDS, spec.splits(2, SEEDS).unwrap()).unwrap()
}

/// A level file's bytes as written in `format`.
fn level_bytes(dir: &Path, format: Format) -> Vec<u8> {
    let p = write_level(dir, &key(), SEEDS, &values(), format).unwrap();
    fs::read(p).unwrap()
}

/// Opens the bytes as a level of the expected rules and seeds, and checks what a reader
/// gets: an error, or (after `verify`) exactly the values written.
fn check_level(dir: &Path, bytes: &[u8]) {
    let path = dir.join(file_name(&key(), SEEDS));
    fs::write(&path, bytes).unwrap();
    let _ = Header::decode(bytes);
    let _ = Header::decode_from(bytes, &path);
    if let Ok(f) = LevelFile::open_any(&path) {
        // Reads of a file that opened are bounded and never panic, verified or not.
        for r in [0, f.len() / 2, f.len().saturating_sub(1), f.len(), u64::MAX] {
            let _ = f.try_get(r);
        }
        if f.verify().is_ok() {
            assert!((0..f.len()).all(|r| in_range(f.get(r), f.seeds())));
        }
    }
    if let Ok(f) = LevelFile::open(&path, &key(), SEEDS) {
        // Opened for reading: the checksum held, so every entry is the one written,
        // verified or not.
        let read: Vec<i8> = (0..f.len()).map(|r| f.get(r)).collect();
        assert_eq!(read, values(), "a damaged file opened for reading");
        f.verify().unwrap();
    }
}

/// A level of `key()` with `seeds` seeds and values a pseudo-random function of the rank
/// (spread over the whole range, so that compact blocks overflow their slots).
fn scattered(seeds: u32) -> Vec<i8> {
    let n = level_size(4, seeds);
    let span = 2 * seeds as u64 + 1;
    (0..n)
        .map(|i| {
            // SplitMix64 of the rank.
            let mut z = i.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) % span) as i8 - seeds as i8
        })
        .collect()
}

/// `bytes` (the level `values` of `key()`, `seeds`, as written: `original`, then
/// changed) opened for reading, both ways: `Err` unless the bytes are those written.
fn assert_refused_unless_unchanged(
    dir: &Path,
    (seeds, values): (u32, &[i8]),
    original: &[u8],
    bytes: &[u8],
) {
    let path = dir.join(file_name(&key(), seeds));
    fs::write(&path, bytes).unwrap();
    for open in [LevelFile::open, LevelFile::open_populated] {
        match open(&path, &key(), seeds) {
            Ok(f) => {
                assert_eq!(bytes, original, "a changed file opened for reading");
                let read: Vec<i8> = (0..f.len()).map(|r| f.get(r)).collect();
                assert_eq!(read, values);
            }
            Err(e) => assert_ne!(bytes, original, "the file as written refused: {e}"),
        }
    }
}

/// Every byte of a level file of each format (header, a compact file's code table,
/// slots and continuations, a one-byte file's entries), one bit of it flipped, then all: the
/// file is refused at open, so no probe of it answers.
#[test]
fn every_flipped_bit_of_either_format_is_refused_at_open() {
    let seeds = 12;
    let values = scattered(seeds);
    for format in [Format::Byte, Format::Compact] {
        let dir = tempfile::tempdir().unwrap();
        let path = write_level(dir.path(), &key(), seeds, &values, format).unwrap();
        let original = fs::read(&path).unwrap();
        if format == Format::Compact {
            let f = LevelFile::open(&path, &key(), seeds).unwrap();
            let layout = *f.compact().unwrap().layout();
            assert!(
                layout.overflow_at < layout.len,
                "no continuations to damage"
            );
        }
        for i in 0..original.len() {
            for mask in [1 << (i % 8), 0xff] {
                let mut bytes = original.clone();
                bytes[i] ^= mask;
                assert_refused_unless_unchanged(dir.path(), (seeds, &values), &original, &bytes);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn arbitrary_bytes_are_refused_or_read_back(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let dir = tempfile::tempdir().unwrap();
        check_level(dir.path(), &bytes);
        let _ = ShardHeader::decode_from(&bytes, Path::new("x"));
    }

    #[test]
    fn mutated_level_files_are_refused_or_read_back(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        header_only in any::<bool>(),
        cut in prop::option::of(any::<prop::sample::Index>()),
        compact in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let format = if compact { Format::Compact } else { Format::Byte };
        let mut bytes = level_bytes(dir.path(), format);
        for (at, b) in edits {
            let i = if header_only { at.index(HEADER_LEN) } else { at.index(bytes.len()) };
            bytes[i] = b;
        }
        if let Some(c) = cut {
            bytes.truncate(c.index(bytes.len()));
        }
        check_level(dir.path(), &bytes);
    }

    /// Random bytes of a level file of either format replaced by random values: the
    /// file opens for reading only if it is unchanged.
    #[test]
    fn randomly_mutated_level_files_never_open_for_reading(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        compact in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let format = if compact { Format::Compact } else { Format::Byte };
        let seeds = 12;
        let values = scattered(seeds);
        let path = write_level(dir.path(), &key(), seeds, &values, format).unwrap();
        let original = fs::read(path).unwrap();
        let mut bytes = original.clone();
        for (at, b) in edits {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        assert_refused_unless_unchanged(dir.path(), (seeds, &values), &original, &bytes);
    }

    #[test]
    fn mutated_shards_are_refused_or_merged_back(
        at in any::<prop::sample::Index>(),
        b in any::<u8>(),
        which in 0u32..2,
        cut in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let v = values();
        let mut paths = Vec::new();
        for index in 0..2 {
            let spec = ShardSpec { index, count: 2 };
            paths.push(write_shard(dir.path(), &key(), SEEDS, spec, &shard_values(&v, spec)).unwrap());
        }
        let p = &paths[which as usize];
        let mut bytes = fs::read(p).unwrap();
        let i = at.index(bytes.len());
        bytes[i] = b;
        if let Some(c) = cut {
            bytes.truncate(c.index(bytes.len()));
        }
        let _ = ShardHeader::decode_from(&bytes, p);
        fs::write(p, &bytes).unwrap();
        if let Ok(out) = merge_shards(dir.path(), true, Format::Byte) {
            for path in out {
                let f = LevelFile::open(&path, &key(), SEEDS).unwrap();
                f.verify().unwrap();
                prop_assert_eq!(f.values(), Some(&v[..]));
            }
        }
    }

    #[test]
    fn shards_of_any_count_merge_back(count in 1u32..6, compact in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let v = values();
        for index in 0..count {
            let spec = ShardSpec { index, count };
            write_shard(dir.path(), &key(), SEEDS, spec, &shard_values(&v, spec)).unwrap();
        }
        let format = if compact { Format::Compact } else { Format::Byte };
        let out = merge_shards(dir.path(), false, format).unwrap();
        let f = LevelFile::open(&out[0], &key(), SEEDS).unwrap();
        f.verify().unwrap();
        prop_assert_eq!(f.format(), format);
        let read: Vec<i8> = (0..f.len()).map(|r| f.get(r)).collect();
        prop_assert_eq!(read, v);
        // The merge streams the shards into the same bytes as a write of the level.
        let whole = tempfile::tempdir().unwrap();
        let p = write_level(whole.path(), &key(), SEEDS, &values(), format).unwrap();
        prop_assert_eq!(fs::read(&out[0]).unwrap(), fs::read(p).unwrap());
    }

    #[test]
    fn every_byte_decodes_in_range_or_not_at_all(byte in any::<u8>(), seeds in 0u32..200) {
        match decode(byte, seeds) {
            Ok(v) => prop_assert!(in_range(v, seeds) && v as u8 == byte),
            Err(_) => prop_assert!(!in_range(byte as i8, seeds)),
        }
    }
}
