//! The shard files of a level built as contiguous rank slices on several machines.
//!
//! A level can be built as `N` contiguous rank slices ("shards") on different machines
//! and joined afterwards. Shard `I` of `N` (`0 <= I < N`) of a level with `C` positions
//! holds the ranks `floor(I·C/N) .. floor((I+1)·C/N)`. Its file name is the level's name
//! followed by `.shard-I-of-N`, e.g.
//! `m6-standard-single-ccw-skip-either-owner-k020.kdb.shard-3-of-8`, and it is written
//! like a level file (`.tmp`, fsync, rename). All integers little-endian:
//!
//! | offset | size | field        | meaning |
//! |-------:|-----:|--------------|---------|
//! |      0 |    8 | magic        | ASCII `KALAHSH` and a zero byte |
//! |      8 |    4 | version      | `u32`, 1 |
//! |     12 |    8 | level        | bytes 12..20 of the level's header: pits, 6 rule codes, seeds |
//! |     20 |    4 | index        | `u32`, `I` |
//! |     24 |    4 | count        | `u32`, `N` |
//! |     28 |    4 | reserved     | zero |
//! |     32 |    8 | first rank   | `u64`, `floor(I·C/N)` |
//! |     40 |    8 | entries      | `u64`, entries in this shard |
//! |     48 |    8 | checksum     | `u64`, XXH3-64 (seed 0) of the payload |
//! |     56 |    8 | reserved     | zero |
//! |     64 |    … | payload      | the entries, one `i8` a rank, as in a level file |
//!
//! [`merge_shards`] checks every shard (magic, version, level, partition, length,
//! checksum) and writes the level file, byte-identical to an unsharded build.
//!
//! The header is encoded as the level file's is ([`crate::header`]): a bincode `Wire`
//! struct, every field at a fixed offset, little-endian, whose first 20 bytes (magic,
//! version, the level's rules and seeds) are the same struct as the level header's.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::checksum::{checksum, checksum_values};
use crate::error::DbError;
use crate::file::{file_name, write_level_to, LevelFile};
use crate::header::{encode_wire, Header, Lead, CONFIG};
use crate::rules::RulesKey;

/// First 8 bytes of a shard file.
pub const SHARD_MAGIC: [u8; 8] = *b"KALAHSH\0";
/// Version of the shard layout of the module docs.
pub const SHARD_VERSION: u32 = 1;
/// Bytes before a shard's payload.
pub const SHARD_HEADER_LEN: usize = 64;

/// Shard `index` of `count` (`0 <= index < count`): which slice of a level to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    /// Which slice, from 0.
    pub index: u32,
    /// Slices in all.
    pub count: u32,
}

impl ShardSpec {
    /// Parses `I/N` with `0 <= I < N`.
    pub fn parse(s: &str) -> Result<ShardSpec, String> {
        let err = || format!("shard '{s}': expected I/N with 0 <= I < N, e.g. 0/4");
        let (i, n) = s.split_once('/').ok_or_else(err)?;
        let index: u32 = i.trim().parse().map_err(|_| err())?;
        let count: u32 = n.trim().parse().map_err(|_| err())?;
        if index >= count {
            return Err(err());
        }
        Ok(ShardSpec { index, count })
    }

    /// The ranks of this shard in a level of `positions` positions.
    pub fn ranks(&self, positions: u64) -> Range<u64> {
        let at = |i: u32| (u128::from(positions) * u128::from(i) / u128::from(self.count)) as u64;
        at(self.index)..at(self.index + 1)
    }
}

/// A shard's header as it lies on disk, field for field (see the table above).
#[derive(bincode::Encode, bincode::Decode)]
struct Wire {
    lead: Lead,
    index: u32,
    count: u32,
    reserved0: u32,
    first: u64,
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
    /// The first rank it holds, `floor(I·C/N)`.
    pub first: u64,
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
            first: self.first,
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
            first: wire.first,
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

/// Writes shard `shard` of level (`rules`, `seeds`) holding `values` into `dir`, through
/// `<name>.tmp` and a rename, and returns its path.
pub fn write_shard(
    dir: &Path,
    rules: &RulesKey,
    seeds: u32,
    shard: ShardSpec,
    values: &[i8],
) -> Result<PathBuf, DbError> {
    let level = Header::new(*rules, seeds, 0)?;
    let ranks = shard.ranks(level.entry_count);
    if ranks.end - ranks.start != values.len() as u64 {
        return Err(DbError::EntryCountMismatch {
            expected: ranks.end - ranks.start,
            actual: values.len() as u64,
        });
    }
    let head = ShardHeader {
        rules: level.rules,
        seeds: level.seeds,
        spec: shard,
        first: ranks.start,
        entries: values.len() as u64,
        checksum: checksum_values(values),
    }
    .encode();
    let path = dir.join(shard_file_name(rules, seeds, shard));
    let tmp = dir.join(format!("{}.tmp", shard_file_name(rules, seeds, shard)));
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| DbError::Io { path: p, source }
    };
    let mut f = File::create(&tmp).map_err(io(&tmp))?;
    f.write_all(&head).map_err(io(&tmp))?;
    // SAFETY: `i8` and `u8` have the same size and alignment, and every bit pattern is
    // valid for both; the slice is only read.
    let bytes = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), values.len()) };
    f.write_all(bytes).map_err(io(&tmp))?;
    f.sync_all().map_err(io(&tmp))?;
    drop(f);
    fs::rename(&tmp, &path).map_err(io(&path))?;
    Ok(path)
}

/// A shard read back and checked.
struct Shard {
    head: ShardHeader,
    values: Vec<u8>,
}

/// Reads and checks one shard file: its header ([`ShardHeader::decode_from`]), length and
/// checksum.
fn read_shard(path: &Path) -> Result<Shard, DbError> {
    let mut bytes = Vec::new();
    crate::file::open_regular(path)?
        .read_to_end(&mut bytes)
        .map_err(|source| DbError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    let head = ShardHeader::decode_from(&bytes, path)?;
    let expected_len = head
        .entries
        .checked_add(SHARD_HEADER_LEN as u64)
        .ok_or_else(|| DbError::Corrupted {
            path: path.to_path_buf(),
            what: "entry count overflows".to_string(),
        })?;
    if bytes.len() as u64 != expected_len {
        return Err(DbError::LengthMismatch {
            path: path.to_path_buf(),
            expected_len,
            actual_len: bytes.len() as u64,
        });
    }
    let computed = checksum(&bytes[SHARD_HEADER_LEN..]);
    if computed != head.checksum {
        return Err(DbError::ChecksumMismatch {
            path: path.to_path_buf(),
            stored: head.checksum,
            computed,
        });
    }
    bytes.drain(..SHARD_HEADER_LEN);
    Ok(Shard {
        head,
        values: bytes,
    })
}

/// Joins every complete set of shard files in `dir` into its level file, then removes
/// the shards unless `keep`. Returns the level files written.
///
/// Each shard must be intact and agree with its name and with the others (same level,
/// same `N`, the slices of the module docs); a missing shard is an I/O error naming it.
/// The level file is written by [`write_level_to`], which also checks every
/// value's range, and is then opened again as a check.
pub fn merge_shards(dir: &Path, keep: bool) -> Result<Vec<PathBuf>, DbError> {
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| DbError::Io { path: p, source }
    };
    // Level file name → shard count, from the shard names.
    let mut sets: BTreeMap<String, u32> = BTreeMap::new();
    for entry in fs::read_dir(dir).map_err(io(dir))? {
        let name = entry.map_err(io(dir))?.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.ends_with(".tmp") {
            continue;
        }
        if let Some((level, spec)) = parse_shard_name(name) {
            let n = sets.entry(level.to_string()).or_insert(spec.count);
            if *n != spec.count {
                return Err(DbError::MixedShards {
                    dir: dir.to_path_buf(),
                    level: level.to_string(),
                    a: *n,
                    b: spec.count,
                });
            }
        }
    }
    let mut written = Vec::new();
    for (level_name, count) in sets {
        let mut level: Option<(RulesKey, u8)> = None;
        let mut values: Vec<i8> = Vec::new();
        let mut paths = Vec::new();
        for index in 0..count {
            let path = dir.join(format!("{level_name}.shard-{index}-of-{count}"));
            let shard = read_shard(&path)?;
            let bad = |what: String| DbError::Corrupted {
                path: path.clone(),
                what,
            };
            let head = shard.head;
            if head.spec != (ShardSpec { index, count }) {
                return Err(bad(format!(
                    "header says shard {}/{} but the name says {index}/{count}",
                    head.spec.index, head.spec.count
                )));
            }
            if *level.get_or_insert((head.rules, head.seeds)) != (head.rules, head.seeds) {
                return Err(bad("shard of another level than shard 0".to_string()));
            }
            if head.first != values.len() as u64 {
                return Err(bad(format!(
                    "shard starts at rank {} but the shards before end at {}",
                    head.first,
                    values.len()
                )));
            }
            values.extend(shard.values.iter().map(|&b| b as i8));
            paths.push(path);
        }
        let Some((rules, seeds)) = level else {
            continue;
        };
        let seeds = u32::from(seeds);
        let path = dir.join(file_name(&rules, seeds));
        if path.file_name().and_then(|n| n.to_str()) != Some(level_name.as_str()) {
            return Err(DbError::Corrupted {
                path: paths[0].clone(),
                what: format!("shard header is for {}", path.display()),
            });
        }
        write_level_to(&path, &rules, seeds, &values)?;
        LevelFile::open(&path, &rules, seeds)?.verify()?;
        if !keep {
            for p in &paths {
                fs::remove_file(p).map_err(io(p))?;
            }
        }
        written.push(path);
    }
    Ok(written)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_header_is_64_bytes_at_the_documented_offsets() {
        let head = ShardHeader {
            rules: RulesKey::standard(6),
            seeds: 20,
            spec: ShardSpec { index: 3, count: 8 },
            first: 0x0102_0304_0506_0708,
            entries: 1000,
            checksum: 0xdead_beef,
        };
        let b = head.encode();
        assert_eq!(&b[..8], b"KALAHSH\0");
        assert_eq!(b[8..12], 1u32.to_le_bytes());
        assert_eq!(b[12..20], [6, 0, 0, 0, 0, 0, 0, 20]);
        assert_eq!(b[20..24], 3u32.to_le_bytes());
        assert_eq!(b[24..28], 8u32.to_le_bytes());
        assert_eq!(b[28..32], [0; 4]);
        assert_eq!(b[32..40], 0x0102_0304_0506_0708u64.to_le_bytes());
        assert_eq!(b[40..48], 1000u64.to_le_bytes());
        assert_eq!(b[48..56], 0xdead_beefu64.to_le_bytes());
        assert_eq!(b[56..64], [0; 8]);
        let p = Path::new("x");
        assert_eq!(ShardHeader::decode_from(&b, p).unwrap(), head);
        let mut bad = b;
        bad[60] = 1;
        assert!(matches!(
            ShardHeader::decode_from(&bad, p),
            Err(DbError::Corrupted { .. })
        ));
        let mut bad = b;
        bad[20] = 8;
        assert!(matches!(
            ShardHeader::decode_from(&bad, p),
            Err(DbError::Corrupted { .. })
        ));
        assert!(matches!(
            ShardHeader::decode_from(&b[..7], p),
            Err(DbError::BadMagic { .. })
        ));
        assert!(matches!(
            ShardHeader::decode_from(&b[..40], p),
            Err(DbError::LengthMismatch { .. })
        ));
    }
}
