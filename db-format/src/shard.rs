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

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::checksum::checksum_values;
use crate::error::DbError;
use crate::file::{bytes_as_i8, file_name, write_level_from, Format, LevelFile};
use crate::header::{encode_wire, Header, Lead, CONFIG};
use crate::index::{checked_level_size, next_in_rank_order};
use crate::rules::RulesKey;
use crate::source::LevelSource;

/// First 8 bytes of a shard file.
pub const SHARD_MAGIC: [u8; 8] = *b"KALAHSH\0";
/// Version of the shard layout of the module docs (1 held contiguous rank slices).
pub const SHARD_VERSION: u32 = 2;
/// Bytes before a shard's payload.
pub const SHARD_HEADER_LEN: usize = 64;

/// Shard `index` of `count` (`0 <= index < count`): which part of a level to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    /// Which part, from 0.
    pub index: u32,
    /// Parts in all.
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

    /// The splits of level `seeds` (`pits` a side) this shard holds, bit `s` for split
    /// `s`: its part of [`partition`]. Empty when `count` exceeds the splits.
    pub fn splits(&self, pits: usize, seeds: u32) -> Result<u64, DbError> {
        Ok(partition(pits, seeds, self.count)?
            .get(self.index as usize)
            .copied()
            .unwrap_or(0))
    }
}

/// The splits of level `seeds`: `seeds / 2 + 1` (at most 64, as `seeds <= 127`).
pub fn split_count(seeds: u32) -> u32 {
    seeds / 2 + 1
}

/// The split of a board of level `seeds` one of whose rows holds `row` seeds.
pub fn split_of(seeds: u32, row: u32) -> u32 {
    row.min(seeds - row)
}

/// [`DbError::TooManySeeds`] past 127 seeds (whose splits would not fit a `u64`'s bits).
fn check_seeds(seeds: u32) -> Result<(), DbError> {
    if seeds > crate::value::MAX_LEVEL_SEEDS {
        return Err(DbError::TooManySeeds {
            seeds,
            max: crate::value::MAX_LEVEL_SEEDS,
        });
    }
    Ok(())
}

/// The boards of split `split` of level `seeds` with `pits` pits a side:
/// `R(s)·R(k - s)` for `s = k - s`, twice that otherwise, where `R(s) = C(s + m - 1,
/// m - 1)` counts the rows of `s` seeds.
pub fn split_size(pits: usize, seeds: u32, split: u32) -> Result<u64, DbError> {
    let cells = 2 * pits;
    let overflow = DbError::SizeOverflow { cells, seeds };
    let rows = |s: u32| checked_level_size(pits, s).ok_or(DbError::SizeOverflow { cells, seeds });
    let (a, b) = (rows(split)?, rows(seeds - split)?);
    let twice = if 2 * split == seeds { 1 } else { 2 };
    u64::try_from(u128::from(a) * u128::from(b) * twice).map_err(|_| overflow)
}

/// The entries of the splits `splits` (bit `s` for split `s`) of level `seeds`.
pub fn splits_size(pits: usize, seeds: u32, splits: u64) -> Result<u64, DbError> {
    check_seeds(seeds)?;
    let mut n: u64 = 0;
    for s in (0..split_count(seeds)).filter(|s| splits >> s & 1 == 1) {
        n = n
            .checked_add(split_size(pits, seeds, s)?)
            .ok_or(DbError::SizeOverflow {
                cells: 2 * pits,
                seeds,
            })?;
    }
    Ok(n)
}

/// What a shard of the splits `splits` holds: the entries of `whole` (all of level
/// `seeds`, `pits` a side, in rank order) whose boards lie in those splits, in rank order.
/// The inverse of [`merge_shards`] for one shard; [`DbError::EntryCountMismatch`] when
/// `whole` is not the level's length.
pub fn split_entries(
    whole: &[i8],
    pits: usize,
    seeds: u32,
    splits: u64,
) -> Result<Vec<i8>, DbError> {
    check_seeds(seeds)?;
    let cells = 2 * pits;
    let expected = crate::index::checked_level_size(cells, seeds)
        .ok_or(DbError::SizeOverflow { cells, seeds })?;
    if expected != whole.len() as u64 {
        return Err(DbError::EntryCountMismatch {
            expected,
            actual: whole.len() as u64,
        });
    }
    let mut out = Vec::new();
    let mut at = 0;
    // The blocks cover the level in rank order, so they cut `whole` without a gap.
    for (row, len) in Blocks::new(pits, seeds)? {
        let len = len as usize;
        if splits >> split_of(seeds, row) & 1 == 1 {
            out.extend_from_slice(&whole[at..at + len]);
        }
        at += len;
    }
    Ok(out)
}

/// The splits of each of `min(count, splits)` shards of level `seeds` (bit `s` for
/// split `s`; shards past those hold none): the splits in order of size, largest first
/// (equal sizes by `s`), each to the shard with the fewest entries so far (equal ones:
/// the lowest index). The largest shard is then at most 4/3 of the best any assignment
/// of whole splits can do, and never smaller than the largest split.
pub fn partition(pits: usize, seeds: u32, count: u32) -> Result<Vec<u64>, DbError> {
    check_seeds(seeds)?;
    let n = split_count(seeds);
    let sizes = (0..n)
        .map(|s| split_size(pits, seeds, s))
        .collect::<Result<Vec<u64>, _>>()?;
    let mut order: Vec<u32> = (0..n).collect();
    order.sort_by(|&a, &b| sizes[b as usize].cmp(&sizes[a as usize]).then(a.cmp(&b)));
    let bins = count.min(n) as usize;
    let mut load = vec![0u64; bins];
    let mut masks = vec![0u64; bins];
    for s in order {
        // `min_by_key` keeps the first of equal loads.
        let Some((i, _)) = load.iter().enumerate().min_by_key(|&(_, &l)| l) else {
            break;
        };
        masks[i] |= 1 << s;
        load[i] += sizes[s as usize];
    }
    Ok(masks)
}

/// The level's boards in rank order as blocks of one opponent's row each: the seeds in
/// that row and the block's length (the rows of the other seeds, `C(k - t + m - 1,
/// m - 1)`).
///
/// A board's rank is colexicographic on its stars-and-bars bars, and the bars from the
/// mover's last pit on depend only on the mover's seed count and the opponent's row; so
/// the boards of one opponent's row are consecutive, and the blocks come in the rank
/// order of the `m + 1` cells (mover's seeds, opponent's row).
pub struct Blocks {
    cells: [u8; 9],
    n: usize,
    seeds: u32,
    lens: Vec<u64>,
    done: bool,
}

impl Blocks {
    /// The blocks of level `seeds` with `pits` pits a side.
    pub fn new(pits: usize, seeds: u32) -> Result<Blocks, DbError> {
        if pits == 0 || pits > usize::from(crate::rules::MAX_PITS) {
            return Err(DbError::InvalidRules {
                what: format!("pits = {pits} outside 1..={}", crate::rules::MAX_PITS),
            });
        }
        check_seeds(seeds)?;
        let lens = (0..=seeds)
            .map(|a| {
                checked_level_size(pits, a).ok_or(DbError::SizeOverflow {
                    cells: 2 * pits,
                    seeds,
                })
            })
            .collect::<Result<_, _>>()?;
        let n = pits + 1;
        let mut cells = [0u8; 9];
        cells[n - 1] = seeds as u8;
        Ok(Blocks {
            cells,
            n,
            seeds,
            lens,
            done: false,
        })
    }
}

impl Iterator for Blocks {
    /// (seeds in the opponent's row, boards in the block).
    type Item = (u32, u64);

    fn next(&mut self) -> Option<(u32, u64)> {
        if self.done {
            return None;
        }
        let mover = u32::from(self.cells[0]);
        let item = (self.seeds - mover, self.lens[mover as usize]);
        self.done = !next_in_rank_order(&mut self.cells[..self.n]);
        Some(item)
    }
}

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
        let mut file = crate::file::open_regular(&path)?;
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
    use crate::index::Ranker;

    /// The blocks are the runs of boards with one opponent's row, in rank order, and
    /// cover the level.
    #[test]
    fn blocks_are_the_opponent_rows_in_rank_order() {
        for pits in 1..=4 {
            for seeds in 0..=9 {
                let cells = 2 * pits;
                let r = Ranker::new(cells, seeds).unwrap();
                let mut c = vec![0u8; cells];
                let mut rank = 0;
                for (row, len) in Blocks::new(pits, seeds).unwrap() {
                    r.unrank(rank, &mut c);
                    let opp = c[pits..].to_vec();
                    for i in 0..len {
                        r.unrank(rank + i, &mut c);
                        assert_eq!(c[pits..], opp[..], "m={pits} k={seeds} rank {}", rank + i);
                    }
                    assert_eq!(opp.iter().map(|&x| u32::from(x)).sum::<u32>(), row);
                    rank += len;
                    if rank < r.count() {
                        r.unrank(rank, &mut c);
                        assert_ne!(c[pits..], opp[..]);
                    }
                }
                assert_eq!(rank, r.count(), "m={pits} k={seeds}");
            }
        }
    }

    /// The entries before `rank` in level `seeds` (`pits` a side) that lie in the splits
    /// `mask`, from the blocks (`None` when `rank` is past the level): where the board of
    /// `rank` lies in a shard of those splits, if it is in one.
    fn offset_in(pits: usize, seeds: u32, mask: u64, rank: u64) -> Option<u64> {
        let (mut at, mut kept) = (0u64, 0u64);
        for (row, len) in Blocks::new(pits, seeds).unwrap() {
            let in_mask = mask >> split_of(seeds, row) & 1 == 1;
            if rank < at + len {
                return Some(kept + if in_mask { rank - at } else { 0 });
            }
            at += len;
            if in_mask {
                kept += len;
            }
        }
        None
    }

    /// Level 32 of 6 pits, past `u32::MAX` boards: the blocks around ranks `2^31` and
    /// `2^32` hold the boards of their opponent's row (unranked), and the offsets of a
    /// board in the shards of two complementary sets of splits add up to its rank, with
    /// offsets past `2^32` in the larger set (every split but 0).
    #[test]
    fn blocks_and_shard_offsets_past_32_bits() {
        let (pits, seeds) = (6, 32);
        let r = Ranker::new(12, seeds).unwrap();
        let all = (1u64 << split_count(seeds)) - 1;
        let targets: Vec<u64> = [1u64 << 31, 1 << 32]
            .iter()
            .flat_map(|&x| [x - 1, x, x + 1])
            .collect();
        let mut c = [0u8; 12];
        let mut at = 0u64;
        let mut seen = 0;
        for (row, len) in Blocks::new(pits, seeds).unwrap() {
            for &t in targets.iter().filter(|&&t| at <= t && t < at + len) {
                seen += 1;
                r.unrank(t, &mut c);
                let opp = c[pits..].to_vec();
                assert_eq!(opp.iter().map(|&x| u32::from(x)).sum::<u32>(), row);
                r.unrank(at, &mut c);
                assert_eq!(c[pits..], opp[..], "block start of rank {t}");
                r.unrank(at + len - 1, &mut c);
                assert_eq!(c[pits..], opp[..], "block end of rank {t}");
            }
            at += len;
        }
        assert_eq!((seen, at), (targets.len(), r.count()));
        let big = all & !1;
        let big_len = splits_size(pits, seeds, big).unwrap();
        assert!(big_len > 1 << 32, "{big_len}");
        let mut past = 0;
        for rank in targets
            .iter()
            .copied()
            .chain([big_len - 1, big_len, r.count() - 1])
        {
            let a = offset_in(pits, seeds, big, rank).unwrap();
            let b = offset_in(pits, seeds, 1, rank).unwrap();
            assert_eq!(a + b, rank, "rank {rank}");
            r.unrank(rank, &mut c);
            let mover: u32 = c[..pits].iter().map(|&x| u32::from(x)).sum();
            let (mine, len) = if split_of(seeds, mover) == 0 {
                (b, splits_size(pits, seeds, 1).unwrap())
            } else {
                (a, big_len)
            };
            assert!(mine < len, "rank {rank}: offset {mine} of {len}");
            past += usize::from(a > 1 << 32);
        }
        assert!(past >= 2, "no offset past 2^32");
        assert_eq!(offset_in(pits, seeds, all, r.count()), None);
        // The two shards of 2 split the level, each under 2^32 entries.
        let parts = partition(pits, seeds, 2).unwrap();
        let sizes: Vec<u64> = parts
            .iter()
            .map(|&m| splits_size(pits, seeds, m).unwrap())
            .collect();
        assert_eq!(sizes.iter().sum::<u64>(), r.count());
        assert!(sizes.iter().all(|&n| n > 1 << 31), "{sizes:?}");
    }

    /// All splits take the whole level; each shard's splits take as many entries as they
    /// hold; a slice of another length is refused.
    #[test]
    fn split_entries_are_the_splits_boards() {
        let (pits, seeds) = (3, 6);
        let whole: Vec<i8> = (0..crate::index::level_size(6, 6))
            .map(|i| (i % 100) as i8)
            .collect();
        let all = (1u64 << split_count(seeds)) - 1;
        assert_eq!(split_entries(&whole, pits, seeds, all).unwrap(), whole);
        for mask in partition(pits, seeds, 3).unwrap() {
            let got = split_entries(&whole, pits, seeds, mask).unwrap();
            assert_eq!(got.len() as u64, splits_size(pits, seeds, mask).unwrap());
        }
        assert!(matches!(
            split_entries(&whole[1..], pits, seeds, all),
            Err(DbError::EntryCountMismatch { .. })
        ));
    }

    /// The shards' splits are disjoint and cover the level, whatever the count; the
    /// largest shard is never below the largest split nor above it plus the average.
    #[test]
    fn partitions_cover_every_split_once() {
        for (pits, seeds) in [(1, 0), (2, 5), (4, 8), (6, 20), (6, 34), (8, 40)] {
            let total = crate::index::level_size(2 * pits, seeds);
            let sizes: Vec<u64> = (0..split_count(seeds))
                .map(|s| split_size(pits, seeds, s).unwrap())
                .collect();
            assert_eq!(sizes.iter().sum::<u64>(), total);
            let largest = *sizes.iter().max().unwrap();
            for count in [1, 2, 3, 4, 7, 8, 64, 1000] {
                let masks = partition(pits, seeds, count).unwrap();
                assert_eq!(masks.len(), count.min(split_count(seeds)) as usize);
                let all = masks.iter().fold(0u64, |acc, &m| {
                    assert_eq!(acc & m, 0);
                    acc | m
                });
                assert_eq!(all.count_ones(), split_count(seeds));
                let loads: Vec<u64> = masks
                    .iter()
                    .map(|&m| splits_size(pits, seeds, m).unwrap())
                    .collect();
                assert_eq!(loads.iter().sum::<u64>(), total);
                let max = *loads.iter().max().unwrap();
                assert!(max >= largest && max <= largest + total / u64::from(count));
                for index in 0..count {
                    let spec = ShardSpec { index, count };
                    let want = masks.get(index as usize).copied().unwrap_or(0);
                    assert_eq!(spec.splits(pits, seeds).unwrap(), want);
                }
            }
        }
        assert!(partition(6, 128, 2).is_err());
    }

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
