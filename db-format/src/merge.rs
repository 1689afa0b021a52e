//! Merging the shard files of a level into its level file, and checking a shard: each
//! shard read in order and hashed on the way, side by side, never the level in memory.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::error::DbError;
use crate::header::Header;
use crate::level_read::{bytes_as_i8, LevelFile};
use crate::level_write::{file_name, write_level_from, Format};
use crate::partition::{partition, split_count, split_of, splits_size, Blocks, ShardSpec};
use crate::rules::RulesKey;
use crate::shard_file::{parse_shard_name, ShardHeader, SHARD_HEADER_LEN};
use crate::source::LevelSource;

/// A shard open for merging: its header checked against its name, the level and its
/// length, its payload read in order and hashed on the way.
struct ShardReader {
    path: PathBuf,
    head: ShardHeader,
    r: BufReader<File>,
    hasher: Xxh3,
    read: u64,
}

impl ShardReader {
    /// Opens shard `spec` of the level `level_name` in `dir` and checks its header
    /// ([`ShardHeader::decode_from`]), that it says what its name says, and that the
    /// file holds exactly its header and `entries` bytes.
    fn open(dir: &Path, level_name: &str, spec: ShardSpec) -> Result<ShardReader, DbError> {
        let path = dir.join(format!(
            "{level_name}.shard-{}-of-{}",
            spec.index, spec.count
        ));
        let io = |source| DbError::Io {
            path: path.clone(),
            source,
        };
        let mut file = crate::atomic::open_regular(&path)?;
        let mut bytes = Vec::with_capacity(SHARD_HEADER_LEN);
        (&mut file)
            .take(SHARD_HEADER_LEN as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        let head = ShardHeader::decode_from(&bytes, &path)?;
        if head.spec != spec {
            return Err(DbError::Corrupted {
                path: path.clone(),
                what: format!(
                    "header says shard {}/{} but the name says {}/{}",
                    head.spec.index, head.spec.count, spec.index, spec.count
                ),
            });
        }
        let expected_len = head
            .entries
            .checked_add(SHARD_HEADER_LEN as u64)
            .ok_or_else(|| DbError::Corrupted {
                path: path.clone(),
                what: "entry count overflows".to_string(),
            })?;
        let actual_len = file.metadata().map_err(io)?.len();
        if actual_len != expected_len {
            return Err(DbError::LengthMismatch {
                path: path.clone(),
                expected_len,
                actual_len,
            });
        }
        Ok(ShardReader {
            path,
            head,
            r: BufReader::with_capacity(1 << 20, file),
            hasher: Xxh3::new(),
            read: 0,
        })
    }

    /// Reads the next `buf.len()` entries, checking each is a value of level `seeds`.
    fn read(&mut self, buf: &mut [u8], seeds: u32) -> Result<(), DbError> {
        self.r.read_exact(buf).map_err(|source| DbError::Io {
            path: self.path.clone(),
            source,
        })?;
        self.hasher.update(buf);
        if let Some(i) = buf
            .iter()
            .position(|&b| !crate::value::in_range(b as i8, seeds))
        {
            return Err(DbError::Corrupted {
                path: self.path.clone(),
                what: format!(
                    "entry {} is {}, outside -{seeds}..={seeds}",
                    self.read + i as u64,
                    buf[i] as i8
                ),
            });
        }
        self.read += buf.len() as u64;
        Ok(())
    }

    /// Checks that the whole payload was read and matches the header's checksum.
    fn finish(&self) -> Result<(), DbError> {
        if self.read != self.head.entries {
            return Err(DbError::Corrupted {
                path: self.path.clone(),
                what: format!(
                    "{} entries merged of the {} the header gives",
                    self.read, self.head.entries
                ),
            });
        }
        let computed = self.hasher.digest();
        if computed != self.head.checksum {
            return Err(DbError::ChecksumMismatch {
                path: self.path.clone(),
                stored: self.head.checksum,
                computed,
            });
        }
        Ok(())
    }
}

/// The entries of a level read from its shards side by side, block by block ([`Blocks`]):
/// each pass reads every shard once (the shards opened for the checks first, then opened
/// again), checking its values' range and, at its end, its checksum.
struct ShardSource<'a> {
    dir: &'a Path,
    level_name: &'a str,
    count: u32,
    /// The shard of each split.
    owner: &'a [usize],
    pits: usize,
    seeds: u32,
    /// The shards as opened for the first pass.
    opened: Option<Vec<ShardReader>>,
}

impl LevelSource for ShardSource<'_> {
    fn read_runs(
        &mut self,
        sink: &mut dyn FnMut(&[i8]) -> Result<(), DbError>,
    ) -> Result<(), DbError> {
        let mut shards = match self.opened.take() {
            Some(s) => s,
            None => (0..self.count)
                .map(|index| {
                    let spec = ShardSpec {
                        index,
                        count: self.count,
                    };
                    ShardReader::open(self.dir, self.level_name, spec)
                })
                .collect::<Result<Vec<_>, _>>()?,
        };
        let mut buf = Vec::new();
        for (row, len) in Blocks::new(self.pits, self.seeds)? {
            let shard = &mut shards[self.owner[split_of(self.seeds, row) as usize]];
            buf.resize(len as usize, 0);
            shard.read(&mut buf, self.seeds)?;
            sink(bytes_as_i8(&buf))?;
        }
        for shard in &shards {
            shard.finish()?;
        }
        Ok(())
    }
}

/// Joins every complete set of shard files in `dir` into its level file in `format`,
/// then removes the shards unless `keep`. Returns the level files written.
///
/// Each shard must be intact and agree with its name and with the others (same level,
/// same `N`, the splits of [`ShardSpec::splits`] and their entries); a missing shard is
/// an I/O error naming it. The level is written by [`write_level_from`] from the shards
/// read side by side, block by block ([`Blocks`]; twice for [`Format::Compact`]), so
/// only buffers are held in memory; a shard found damaged on the way leaves no level
/// file. The level is then opened again and verified.
pub fn merge_shards(dir: &Path, keep: bool, format: Format) -> Result<Vec<PathBuf>, DbError> {
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
        let mut shards = Vec::new();
        for index in 0..count {
            shards.push(ShardReader::open(
                dir,
                &level_name,
                ShardSpec { index, count },
            )?);
        }
        let (rules, seeds) = (shards[0].head.rules, shards[0].head.seeds);
        let seeds = u32::from(seeds);
        Header::new(rules, seeds, 0)?;
        let pits = usize::from(rules.pits);
        let masks = partition(pits, seeds, count)?;
        let mut owner = vec![usize::MAX; split_count(seeds) as usize];
        for (i, shard) in shards.iter().enumerate() {
            let bad = |what: String| DbError::Corrupted {
                path: shard.path.clone(),
                what,
            };
            if (shard.head.rules, u32::from(shard.head.seeds)) != (rules, seeds) {
                return Err(bad("shard of another level than shard 0".to_string()));
            }
            let want = masks.get(i).copied().unwrap_or(0);
            if shard.head.splits != want {
                return Err(bad(format!(
                    "holds the splits {:#x} but shard {i}/{count} of level {seeds} holds {want:#x}",
                    shard.head.splits
                )));
            }
            let entries = splits_size(pits, seeds, want)?;
            if shard.head.entries != entries {
                return Err(bad(format!(
                    "header gives {} entries but its splits hold {entries}",
                    shard.head.entries
                )));
            }
            for (s, o) in owner.iter_mut().enumerate() {
                if want >> s & 1 == 1 {
                    *o = i;
                }
            }
        }
        let path = dir.join(file_name(&rules, seeds));
        if path.file_name().and_then(|n| n.to_str()) != Some(level_name.as_str()) {
            return Err(DbError::Corrupted {
                path: shards[0].path.clone(),
                what: format!("shard header is for {}", path.display()),
            });
        }
        let paths: Vec<PathBuf> = shards.iter().map(|s| s.path.clone()).collect();
        let mut source = ShardSource {
            dir,
            level_name: &level_name,
            count,
            owner: &owner,
            pits,
            seeds,
            opened: Some(shards),
        };
        write_level_from(&path, &rules, seeds, &mut source, format)?;
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

/// Checks the shard file `spec` of level (`rules`, `seeds`) in `dir`, as [`merge_shards`]
/// checks it before merging: magic, version, that it is that shard of that level
/// (rules, seeds, index, count, the splits of [`ShardSpec::splits`] and their entry
/// count), its length, every value's range and its checksum. Reads the whole file (by
/// `read`, not a map: it adds nothing to the resident set). For a build that resumes: a
/// shard that passes is the one its writer wrote and renamed into place.
pub fn verify_shard(
    dir: &Path,
    rules: &RulesKey,
    seeds: u32,
    spec: ShardSpec,
) -> Result<ShardHeader, DbError> {
    let level_name = file_name(rules, seeds);
    let mut shard = ShardReader::open(dir, &level_name, spec)?;
    let bad = |what: String| DbError::Corrupted {
        path: shard.path.clone(),
        what,
    };
    if (shard.head.rules, u32::from(shard.head.seeds)) != (*rules, seeds) {
        return Err(bad(format!(
            "shard of level {} of [{}], not of level {seeds} of [{rules}]",
            shard.head.seeds, shard.head.rules
        )));
    }
    let pits = usize::from(rules.pits);
    let want = spec.splits(pits, seeds)?;
    if shard.head.splits != want {
        return Err(bad(format!(
            "holds the splits {:#x} but shard {}/{} of level {seeds} holds {want:#x}",
            shard.head.splits, spec.index, spec.count
        )));
    }
    let entries = splits_size(pits, seeds, want)?;
    if shard.head.entries != entries {
        return Err(bad(format!(
            "header gives {} entries but its splits hold {entries}",
            shard.head.entries
        )));
    }
    let mut buf = vec![0u8; 1 << 20];
    let mut left = entries;
    while left > 0 {
        let n = left.min(buf.len() as u64) as usize;
        shard.read(&mut buf[..n], seeds)?;
        left -= n as u64;
    }
    shard.finish()?;
    Ok(shard.head)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard_file::{shard_file_name, write_shard};

    /// A shard as written passes; a flipped byte, a shorter file, a value out of range
    /// under a matching checksum, or the file of another shard under its name does not.
    #[test]
    fn verify_shard_passes_what_was_written_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let key = RulesKey::standard(3);
        let (seeds, spec) = (8, ShardSpec { index: 1, count: 3 });
        let n = splits_size(3, seeds, spec.splits(3, seeds).unwrap()).unwrap();
        let values: Vec<i8> = (0..n).map(|i| (i % 17) as i8 - 8).collect();
        let path = write_shard(dir.path(), &key, seeds, spec, &values).unwrap();
        let head = verify_shard(dir.path(), &key, seeds, spec).unwrap();
        assert_eq!((head.spec, head.entries), (spec, n));
        let good = fs::read(&path).unwrap();
        let refused = |bytes: &[u8]| {
            fs::write(&path, bytes).unwrap();
            verify_shard(dir.path(), &key, seeds, spec).unwrap_err()
        };
        let mut b = good.clone();
        b[SHARD_HEADER_LEN + 5] ^= 1;
        assert!(matches!(refused(&b), DbError::ChecksumMismatch { .. }));
        assert!(matches!(
            refused(&good[..good.len() - 1]),
            DbError::LengthMismatch { .. }
        ));
        let mut b = good.clone();
        b[SHARD_HEADER_LEN + 5] = 9;
        let sum = crate::checksum::checksum(&b[SHARD_HEADER_LEN..]);
        b[48..56].copy_from_slice(&sum.to_le_bytes());
        let e = refused(&b);
        assert!(e.to_string().contains("outside -8..=8"), "{e}");
        fs::write(&path, &good).unwrap();
        verify_shard(dir.path(), &key, seeds, spec).unwrap();
        // Shard 1 of 3 renamed as shard 0 of 3, and shard 1 then missing.
        let other = ShardSpec { index: 0, count: 3 };
        fs::rename(&path, dir.path().join(shard_file_name(&key, seeds, other))).unwrap();
        let e = verify_shard(dir.path(), &key, seeds, other).unwrap_err();
        assert!(e.to_string().contains("the name says 0/3"), "{e}");
        assert!(matches!(
            verify_shard(dir.path(), &key, seeds, spec),
            Err(DbError::Io { .. })
        ));
    }

    #[test]
    fn shard_header_is_64_bytes_at_the_documented_offsets() {
        let head = ShardHeader {
            rules: RulesKey::standard(6),
            seeds: 20,
            spec: ShardSpec { index: 3, count: 8 },
            splits: 0x0102_0304_0506_0708,
            entries: 1000,
            checksum: 0xdead_beef,
        };
        let b = head.encode();
        assert_eq!(&b[..8], b"KALAHSH\0");
        assert_eq!(b[8..12], 2u32.to_le_bytes());
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
