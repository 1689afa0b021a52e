//! A database directory on disk: the [`Database`] probe over memory-mapped level files,
//! and the shard files of a level built across several machines.
//!
//! # Database
//!
//! [`Database::open`] maps the level files `0, 1, 2, …` of one rule set found in a
//! directory (named by [`db_format::file_name`]), stopping at the first missing level, so
//! [`Probe::max_seeds`] is the highest `K` with every level `0..=K` present. Opening
//! checks each file's header, rules, seeds and length (cheap); it does not read the
//! payloads (run `kalah db verify` for that). Values are read straight from the maps.
//!
//! # Shard files
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

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use db_format::{checksum, checksum_values, file_name, DbError, LevelFile, Ranker, RulesKey};

use crate::board::Board;
use crate::probe::Probe;
use crate::rules::{Rules, RulesError};

/// The mapped level files `0..=max_seeds()` of one rule set.
#[derive(Debug)]
pub struct Database {
    rules: RulesKey,
    /// `levels[k]`: the ranker and the file of level `k`.
    levels: Vec<(Ranker, LevelFile)>,
}

/// Levels up to this size are mapped with every page up front (`MAP_POPULATE`); larger
/// ones fault their pages in as the search first reads them.
///
/// A search reads the small levels densely, so mapping them up front saves a fault per
/// page, but it reads the large ones sparsely, and mapping all of their pages costs more
/// than the faults it saves (figures: results/bench.md, "Speed goals").
pub const POPULATE_MAX_BYTES: u64 = 256 << 20;

impl Database {
    /// Opens the levels `0, 1, …` of `rules` in `dir` up to the first missing one.
    ///
    /// A file that is present but invalid (other rules, other format version, truncated,
    /// …) is an error, not a gap.
    pub fn open(dir: &Path, rules: &Rules) -> Result<Database, DbError> {
        Database::open_up_to(dir, rules, db_format::MAX_LEVEL_SEEDS)
    }

    /// As [`open`](Database::open), but never beyond level `max_seeds`.
    pub fn open_up_to(dir: &Path, rules: &Rules, max_seeds: u32) -> Result<Database, DbError> {
        let key = rules.db_key();
        let mut levels = Vec::new();
        for k in 0..=max_seeds.min(db_format::MAX_LEVEL_SEEDS) {
            let path = dir.join(file_name(&key, k));
            if !path.exists() {
                break;
            }
            let populate = db_format::checked_level_size(key.cells(), k)
                .is_some_and(|bytes| bytes <= POPULATE_MAX_BYTES);
            let file = if populate {
                LevelFile::open_populated(&path, &key, k)?
            } else {
                LevelFile::open(&path, &key, k)?
            };
            levels.push((Ranker::new(key.cells(), k)?, file));
        }
        Ok(Database { rules: key, levels })
    }

    /// Levels held: `0..levels()`.
    pub fn levels(&self) -> u32 {
        self.levels.len() as u32
    }

    /// The file of level `k`, if held.
    pub fn level(&self, k: u32) -> Option<&LevelFile> {
        self.levels.get(k as usize).map(|(_, f)| f)
    }

    /// The rules of every level.
    pub fn rules(&self) -> &RulesKey {
        &self.rules
    }
}

impl Probe for Database {
    /// The highest contiguous level (0 when there is none: then [`Probe::value`] answers
    /// `None`).
    fn max_seeds(&self) -> u32 {
        self.levels().saturating_sub(1)
    }

    fn value(&self, board: &Board) -> Option<i32> {
        let (ranker, file) = self.levels.get(board.seeds() as usize)?;
        let rank = ranker.rank(&board.cells()[..ranker.cells()]);
        file.try_get(rank).map(i32::from)
    }
}

/// The rules of a database key (see [`Rules::from_db_key`]).
pub fn rules_from_key(key: &RulesKey) -> Result<Rules, RulesError> {
    Rules::from_db_key(key)
}

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
    let level = db_format::Header::new(*rules, seeds, 0)?;
    let ranks = shard.ranks(level.entry_count);
    if ranks.end - ranks.start != values.len() as u64 {
        return Err(DbError::EntryCountMismatch {
            expected: ranks.end - ranks.start,
            actual: values.len() as u64,
        });
    }
    let mut head = [0u8; SHARD_HEADER_LEN];
    head[..8].copy_from_slice(&SHARD_MAGIC);
    head[8..12].copy_from_slice(&SHARD_VERSION.to_le_bytes());
    head[12..20].copy_from_slice(&level.encode()[12..20]);
    head[20..24].copy_from_slice(&shard.index.to_le_bytes());
    head[24..28].copy_from_slice(&shard.count.to_le_bytes());
    head[32..40].copy_from_slice(&ranks.start.to_le_bytes());
    head[40..48].copy_from_slice(&(values.len() as u64).to_le_bytes());
    head[48..56].copy_from_slice(&checksum_values(values).to_le_bytes());
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
    /// Header bytes 12..20: pits, rule codes, seeds.
    level: [u8; 8],
    spec: ShardSpec,
    first: u64,
    values: Vec<u8>,
}

/// Reads and checks one shard file: magic, version, reserved bytes, length, checksum.
fn read_shard(path: &Path) -> Result<Shard, DbError> {
    let io = |source| DbError::Io {
        path: path.to_path_buf(),
        source,
    };
    let corrupted = |what: &str| DbError::Corrupted {
        path: path.to_path_buf(),
        what: what.to_string(),
    };
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(io)?;
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
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap_or([0; 4]));
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap_or([0; 8]));
    let version = u32_at(8);
    if version != SHARD_VERSION {
        return Err(DbError::UnsupportedVersion {
            path: path.to_path_buf(),
            found: version,
            expected: SHARD_VERSION,
        });
    }
    if u32_at(28) != 0 || u64_at(56) != 0 {
        return Err(corrupted("reserved shard header bytes are not zero"));
    }
    let spec = ShardSpec {
        index: u32_at(20),
        count: u32_at(24),
    };
    if spec.index >= spec.count {
        return Err(corrupted("shard index is not below the shard count"));
    }
    let (first, entries, stored) = (u64_at(32), u64_at(40), u64_at(48));
    let expected_len = entries
        .checked_add(SHARD_HEADER_LEN as u64)
        .ok_or_else(|| corrupted("entry count overflows"))?;
    if bytes.len() as u64 != expected_len {
        return Err(DbError::LengthMismatch {
            path: path.to_path_buf(),
            expected_len,
            actual_len: bytes.len() as u64,
        });
    }
    let computed = checksum(&bytes[SHARD_HEADER_LEN..]);
    if computed != stored {
        return Err(DbError::ChecksumMismatch {
            path: path.to_path_buf(),
            stored,
            computed,
        });
    }
    let mut level = [0u8; 8];
    level.copy_from_slice(&bytes[12..20]);
    bytes.drain(..SHARD_HEADER_LEN);
    Ok(Shard {
        level,
        spec,
        first,
        values: bytes,
    })
}

/// Joins every complete set of shard files in `dir` into its level file, then removes
/// the shards unless `keep`. Returns the level files written.
///
/// Each shard must be intact and agree with its name and with the others (same level,
/// same `N`, the slices of the module docs); a missing shard is an I/O error naming it.
/// The level file is written by [`db_format::write_level_to`], which also checks every
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
                return Err(DbError::Corrupted {
                    path: dir.join(name),
                    what: format!(
                        "shard count {} differs from another shard's {n}",
                        spec.count
                    ),
                });
            }
        }
    }
    let mut written = Vec::new();
    for (level_name, count) in sets {
        let mut level: Option<[u8; 8]> = None;
        let mut values: Vec<i8> = Vec::new();
        let mut paths = Vec::new();
        for index in 0..count {
            let path = dir.join(format!("{level_name}.shard-{index}-of-{count}"));
            let shard = read_shard(&path)?;
            let bad = |what: String| DbError::Corrupted {
                path: path.clone(),
                what,
            };
            if shard.spec != (ShardSpec { index, count }) {
                return Err(bad(format!(
                    "header says shard {}/{} but the name says {index}/{count}",
                    shard.spec.index, shard.spec.count
                )));
            }
            if *level.get_or_insert(shard.level) != shard.level {
                return Err(bad("shard of another level than shard 0".to_string()));
            }
            if shard.first != values.len() as u64 {
                return Err(bad(format!(
                    "shard starts at rank {} but the shards before end at {}",
                    shard.first,
                    values.len()
                )));
            }
            values.extend(shard.values.iter().map(|&b| b as i8));
            paths.push(path);
        }
        let Some(level) = level else { continue };
        let rules = RulesKey {
            pits: level[0],
            capture: level[1],
            sowing: level[2],
            direction: level[3],
            opp_store: level[4],
            end: level[5],
            remaining: level[6],
        };
        let seeds = u32::from(level[7]);
        let path = dir.join(file_name(&rules, seeds));
        if path.file_name().and_then(|n| n.to_str()) != Some(level_name.as_str()) {
            return Err(DbError::Corrupted {
                path: paths[0].clone(),
                what: format!("shard header is for {}", path.display()),
            });
        }
        db_format::write_level_to(&path, &rules, seeds, &values)?;
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
    use crate::game::Game;
    use crate::gen::{build_level, Lower};
    use crate::rules::{Capture, Direction, EndRule, OppStore, Remaining, RulesBuilder, Sowing};
    use crate::Solver;

    /// Builds levels `0..=max_k` of `rules` into `dir` as files.
    fn build_files(dir: &Path, rules: &Rules, max_k: u32) {
        let game = Game::new(*rules);
        for k in 0..=max_k {
            let lower = Database::open_up_to(dir, rules, k.saturating_sub(1)).unwrap();
            let v = build_level(&game, k, Lower::Probe(&lower), None, &|_| {}).unwrap();
            db_format::write_level(dir, &rules.db_key(), k, &v).unwrap();
        }
    }

    #[test]
    fn database_probes_equal_the_solver_and_cut_nodes() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Rules::kalah(4, 3).unwrap();
        build_files(dir.path(), &rules, 10);
        let db = Database::open(dir.path(), &rules).unwrap();
        assert_eq!(db.max_seeds(), 10);
        let game = Game::new(rules);
        let start = Board::start(4, 3);
        let mut plain = Solver::new(&game, 16).unwrap();
        let v = plain.value(&start);
        let mut probed = Solver::new(&game, 16).unwrap().with_probe(&db);
        assert_eq!(probed.value(&start), v);
        assert!(probed.probes > 0);
        assert!(
            probed.nodes < plain.nodes,
            "{} vs {}",
            probed.nodes,
            plain.nodes
        );
        // Every board of a few levels, probed against the search.
        let mut s = Solver::new(&game, 16).unwrap();
        for k in [5u32, 10] {
            let r = Ranker::new(8, k).unwrap();
            let mut c = [0u8; 8];
            for i in (0..r.count()).step_by(7) {
                r.unrank(i, &mut c);
                let b = Board::from_cells(4, &c);
                assert_eq!(db.value(&b), Some(s.value(&b)), "{b:?}");
            }
        }
    }

    #[test]
    fn open_stops_at_the_first_gap_and_rejects_other_rules() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Rules::kalah(3, 3).unwrap();
        build_files(dir.path(), &rules, 4);
        fs::remove_file(dir.path().join(file_name(&rules.db_key(), 3))).unwrap();
        let db = Database::open(dir.path(), &rules).unwrap();
        assert_eq!((db.levels(), db.max_seeds()), (3, 2));
        // A level file of other rules under this rule set's name.
        let mut other = RulesBuilder::new(3, 3);
        other.capture = Some(Capture::None);
        let other = other.build().unwrap();
        let path = dir.path().join(file_name(&rules.db_key(), 1));
        db_format::write_level_to(&path, &other.db_key(), 1, &[0; 6]).unwrap();
        let e = Database::open(dir.path(), &rules).unwrap_err();
        assert!(matches!(e, DbError::RulesMismatch { .. }), "{e}");
    }

    #[test]
    fn sharded_build_merges_byte_identical() {
        let dir = tempfile::tempdir().unwrap();
        let whole = tempfile::tempdir().unwrap();
        let rules = Rules::kalah(4, 3).unwrap();
        build_files(whole.path(), &rules, 8);
        build_files(dir.path(), &rules, 7);
        let game = Game::new(rules);
        let key = rules.db_key();
        let lower = Database::open_up_to(dir.path(), &rules, 7).unwrap();
        let count = Ranker::new(8, 8).unwrap().count();
        for index in 0..5 {
            let spec = ShardSpec { index, count: 5 };
            let v = build_level(
                &game,
                8,
                Lower::Probe(&lower),
                Some(spec.ranks(count)),
                &|_| {},
            )
            .unwrap();
            write_shard(dir.path(), &key, 8, spec, &v).unwrap();
        }
        let out = merge_shards(dir.path(), false).unwrap();
        assert_eq!(out, vec![dir.path().join(file_name(&key, 8))]);
        let a = fs::read(&out[0]).unwrap();
        let b = fs::read(whole.path().join(file_name(&key, 8))).unwrap();
        assert!(a == b, "merged level differs from the unsharded build");
        assert!(fs::read_dir(dir.path()).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains("shard")));
    }

    #[test]
    fn damaged_or_missing_shards_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let key = RulesKey::standard(2);
        let v: Vec<i8> = vec![0; 10];
        for index in 0..2 {
            let spec = ShardSpec { index, count: 3 };
            let r = spec.ranks(level_size_4(2));
            write_shard(
                dir.path(),
                &key,
                2,
                spec,
                &v[r.start as usize..r.end as usize],
            )
            .unwrap();
        }
        let e = merge_shards(dir.path(), true).unwrap_err();
        assert!(e.to_string().contains("shard-2-of-3"), "{e}");
        let spec = ShardSpec { index: 2, count: 3 };
        let p = write_shard(dir.path(), &key, 2, spec, &v[6..]).unwrap();
        let mut bytes = fs::read(&p).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        fs::write(&p, &bytes).unwrap();
        let e = merge_shards(dir.path(), true).unwrap_err();
        assert!(matches!(e, DbError::ChecksumMismatch { .. }), "{e}");
        fs::write(&p, &bytes[..40]).unwrap();
        assert!(matches!(
            merge_shards(dir.path(), true).unwrap_err(),
            DbError::LengthMismatch { .. }
        ));
    }

    fn level_size_4(k: u32) -> u64 {
        db_format::level_size(4, k)
    }

    #[test]
    fn shard_specs_partition_and_parse() {
        assert_eq!(
            ShardSpec::parse("2/5"),
            Ok(ShardSpec { index: 2, count: 5 })
        );
        assert!(ShardSpec::parse("5/5").is_err());
        assert!(ShardSpec::parse("x").is_err());
        let mut end = 0;
        for index in 0..7 {
            let r = ShardSpec { index, count: 7 }.ranks(100);
            assert_eq!(r.start, end);
            end = r.end;
        }
        assert_eq!(end, 100);
        let key = RulesKey::standard(6);
        let name = shard_file_name(&key, 20, ShardSpec { index: 3, count: 8 });
        assert_eq!(
            name,
            "m6-standard-single-ccw-skip-either-owner-k020.kdb.shard-3-of-8"
        );
        assert_eq!(
            parse_shard_name(&name),
            Some((
                "m6-standard-single-ccw-skip-either-owner-k020.kdb",
                ShardSpec { index: 3, count: 8 }
            ))
        );
        let mut b = RulesBuilder::new(5, 3);
        b.capture = Some(Capture::Empty);
        b.sowing = Sowing::Relay;
        b.direction = Direction::Cw;
        b.opp_store = OppStore::Sow;
        b.end = EndRule::Mover;
        b.remaining = Remaining::Discard;
        for rules in [Rules::kalah(6, 4).unwrap(), b.build().unwrap()] {
            let key = rules.db_key();
            assert_eq!(rules_from_key(&key).unwrap().db_key(), key);
        }
    }
}
