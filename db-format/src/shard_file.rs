//! The shard files of a level built in parts on several machines.
//!
//! A move that puts no seed in a store keeps every seed on the board and moves seeds of
//! the mover's row only, towards its store; the child is seen from the other side, so
//! its rows hold the same two seed counts, swapped. So the boards of a level `k` fall
//! into `k / 2 + 1` **splits**, closed under same-level moves: split `s`
//! (`0 <= s <= k / 2`) holds the boards one of whose rows has `s` seeds and the other
//! `k - s`. A split can be built from the lower levels and its own boards alone, so a
//! shard is a set of whole splits ([`ShardSpec::splits`]): shard `I` of `N` holds the
//! boards of its splits, in rank order. Its file name is the level's name followed by
//! `.shard-I-of-N`, e.g. `m6-standard-single-ccw-skip-either-owner-k020.kdb.shard-3-of-8`,
//! and it is written like a level file (`.tmp`, fsync, rename). All integers
//! little-endian:
//!
//! | offset | size | field        | meaning |
//! |-------:|-----:|--------------|---------|
//! |      0 |    8 | magic        | ASCII `KALAHSH` and a zero byte |
//! |      8 |    4 | version      | `u32`, 2 |
//! |     12 |    8 | level        | bytes 12..20 of the level's header: pits, 6 rule codes, seeds |
//! |     20 |    4 | index        | `u32`, `I` |
//! |     24 |    4 | count        | `u32`, `N` |
//! |     28 |    4 | reserved     | zero |
//! |     32 |    8 | splits       | `u64`, bit `s` set for each split `s` the shard holds |
//! |     40 |    8 | entries      | `u64`, entries in this shard |
//! |     48 |    8 | checksum     | `u64`, XXH3-64 (seed 0) of the payload |
//! |     56 |    8 | reserved     | zero |
//! |     64 |    … | payload      | the entries of its splits' boards, one `i8` each, in rank order |
//!
//! [`merge_shards`] checks every shard (magic, version, level, splits, length, checksum)
//! and writes the level file, byte-identical to an unsharded build, reading the shards
//! side by side ([`Blocks`]): it holds no level in memory.
//!
//! The header is encoded as the level file's is ([`crate::header`]): a bincode `Wire`
//! struct, every field at a fixed offset, little-endian, whose first 20 bytes (magic,
//! version, the level's rules and seeds) are the same struct as the level header's.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::atomic::{io_at, sync_parent_dir, tmp_path};
use crate::checksum::checksum_values;
use crate::error::DbError;
use crate::header::{encode_wire, Header, Lead, CONFIG};
use crate::level_write::file_name;
use crate::partition::{splits_size, ShardSpec};
use crate::rules::RulesKey;

/// First 8 bytes of a shard file.
pub const SHARD_MAGIC: [u8; 8] = *b"KALAHSH\0";
/// Version of the shard layout of the module docs (1 held contiguous rank slices).
pub const SHARD_VERSION: u32 = 2;
/// Bytes before a shard's payload.
pub const SHARD_HEADER_LEN: usize = 64;

/// A shard's header as it lies on disk, field for field (see the table above).
#[derive(bincode::Encode, bincode::Decode)]
struct Wire {
    lead: Lead,
    index: u32,
    count: u32,
    reserved0: u32,
    splits: u64,
    entries: u64,
    checksum: u64,
    reserved: u64,
}

// The fields of `Wire` add up to exactly SHARD_HEADER_LEN bytes (and the unit test
// `shard_header_is_64_bytes_at_the_documented_offsets` checks bincode agrees).
const _: () = assert!(8 + 4 + 7 + 1 + 4 + 4 + 4 + 8 + 8 + 8 + 8 == SHARD_HEADER_LEN);

/// The meaningful fields of a shard's header (magic, version and reserved bytes implied).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardHeader {
    /// The level's rules (header bytes 12..19, as in the level file).
    pub rules: RulesKey,
    /// The level's seeds on the board.
    pub seeds: u8,
    /// Which shard of how many.
    pub spec: ShardSpec,
    /// The splits it holds, bit `s` for split `s` ([`ShardSpec::splits`]).
    pub splits: u64,
    /// Entries in the shard.
    pub entries: u64,
    /// XXH3-64 (seed 0) of the payload.
    pub checksum: u64,
}

impl ShardHeader {
    /// The 64 bytes of this header.
    pub fn encode(&self) -> [u8; SHARD_HEADER_LEN] {
        encode_wire(Wire {
            lead: Lead {
                magic: SHARD_MAGIC,
                version: SHARD_VERSION,
                rules: self.rules,
                seeds: self.seeds,
            },
            index: self.spec.index,
            count: self.spec.count,
            reserved0: 0,
            splits: self.splits,
            entries: self.entries,
            checksum: self.checksum,
            reserved: 0,
        })
    }

    /// Decodes a shard's header from the first bytes of the file `path`: magic
    /// ([`DbError::BadMagic`], also for a file shorter than it), length of the header,
    /// version ([`DbError::UnsupportedVersion`]), reserved bytes and the shard index
    /// ([`DbError::Corrupted`]). The rules are checked when the level is written.
    pub fn decode_from(bytes: &[u8], path: &Path) -> Result<ShardHeader, DbError> {
        if bytes.len() < 8 || bytes[..8] != SHARD_MAGIC {
            return Err(DbError::BadMagic {
                path: path.to_path_buf(),
            });
        }
        if bytes.len() < SHARD_HEADER_LEN {
            return Err(DbError::LengthMismatch {
                path: path.to_path_buf(),
                expected_len: SHARD_HEADER_LEN as u64,
                actual_len: bytes.len() as u64,
            });
        }
        let corrupted = |what: String| DbError::Corrupted {
            path: path.to_path_buf(),
            what,
        };
        let (wire, _): (Wire, usize) =
            bincode::decode_from_slice(&bytes[..SHARD_HEADER_LEN], CONFIG)
                .map_err(|e| corrupted(format!("shard header does not decode: {e}")))?;
        wire.lead.check_version(SHARD_VERSION, path)?;
        if wire.reserved0 != 0 || wire.reserved != 0 {
            return Err(corrupted(
                "reserved shard header bytes are not zero".to_string(),
            ));
        }
        let spec = ShardSpec {
            index: wire.index,
            count: wire.count,
        };
        if spec.index >= spec.count {
            return Err(corrupted(
                "shard index is not below the shard count".to_string(),
            ));
        }
        Ok(ShardHeader {
            rules: wire.lead.rules,
            seeds: wire.lead.seeds,
            spec,
            splits: wire.splits,
            entries: wire.entries,
            checksum: wire.checksum,
        })
    }
}

/// `<level file name>.shard-I-of-N`.
pub fn shard_file_name(rules: &RulesKey, seeds: u32, shard: ShardSpec) -> String {
    format!(
        "{}.shard-{}-of-{}",
        file_name(rules, seeds),
        shard.index,
        shard.count
    )
}

/// Writes shard `shard` of level (`rules`, `seeds`) holding `values` (the entries of its
/// splits' boards, in rank order) into `dir`, through `<name>.tmp` and a rename, and
/// returns its path.
pub fn write_shard(
    dir: &Path,
    rules: &RulesKey,
    seeds: u32,
    shard: ShardSpec,
    values: &[i8],
) -> Result<PathBuf, DbError> {
    let level = Header::new(*rules, seeds, 0)?;
    let pits = usize::from(rules.pits);
    let splits = shard.splits(pits, seeds)?;
    let entries = splits_size(pits, seeds, splits)?;
    if entries != values.len() as u64 {
        return Err(DbError::EntryCountMismatch {
            expected: entries,
            actual: values.len() as u64,
        });
    }
    let head = ShardHeader {
        rules: level.rules,
        seeds: level.seeds,
        spec: shard,
        splits,
        entries,
        checksum: checksum_values(values),
    }
    .encode();
    let path = dir.join(shard_file_name(rules, seeds, shard));
    let tmp = tmp_path(&path);
    let mut f = File::create(&tmp).map_err(io_at(&tmp))?;
    f.write_all(&head).map_err(io_at(&tmp))?;
    // SAFETY: `i8` and `u8` have the same size and alignment, and every bit pattern is
    // valid for both; the slice is only read.
    let bytes = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), values.len()) };
    f.write_all(bytes).map_err(io_at(&tmp))?;
    f.sync_all().map_err(io_at(&tmp))?;
    drop(f);
    fs::rename(&tmp, &path).map_err(io_at(&path))?;
    sync_parent_dir(&path)?;
    Ok(path)
}

/// Splits `<level>.shard-I-of-N` into the level file name and the shard.
pub fn parse_shard_name(name: &str) -> Option<(&str, ShardSpec)> {
    let (level, rest) = name.rsplit_once(".shard-")?;
    let (i, n) = rest.split_once("-of-")?;
    let spec = ShardSpec {
        index: i.parse().ok()?,
        count: n.parse().ok()?,
    };
    (spec.index < spec.count && level.ends_with(".kdb")).then_some((level, spec))
}
