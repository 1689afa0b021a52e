//! A database directory on disk: the [`Database`] probe over memory-mapped level files.
//! The shard files of a level built across several machines are `db_format`'s
//! ([`db_format::shard`], re-exported here).
//!
//! # Database
//!
//! [`Database::open`] maps the level files `0, 1, 2, …` of one rule set found in a
//! directory (named by [`db_format::file_name`]), stopping at the first missing level, so
//! [`Probe::max_seeds`] is the highest `K` with every level `0..=K` present. Opening
//! checks each file's header, rules, seeds and length, and its payload's checksum the
//! first time the file is opened in its present state ([`LevelFile::open`]: the
//! directory's [`db_format::STAMP_NAME`] remembers files verified), so a damaged file is an
//! error before any value is read. Values are read straight from the maps.
//!
//! Level files of either format may be mixed: a version-1 level is read one byte a probe,
//! a compact (version-2) level one block decoded a probe ([`db_format::Compact`]).
//!
//! Every value read is also checked against `-k..=k` (one compare), for a file changed
//! after it was opened (which the format forbids: files are replaced, never rewritten in
//! place): a byte outside it marks a damaged file (FORMAT.md), as does a compact block
//! found damaged. The probe then
//! answers `None` (the search searches the board itself) and records the fault, which
//! [`Database::check`] turns into an error naming the file and the entry; callers check it
//! before they print anything read through the probe.

use std::path::Path;
use std::sync::OnceLock;

use db_format::{file_name, value_in_range, DbError, Entries, LevelFile, Ranker, RulesKey};

use crate::board::Board;
use crate::probe::Probe;
use crate::rank::FastRank;
use crate::rules::{Rules, RulesError};

pub use db_format::shard::{
    merge_shards, parse_shard_name, shard_file_name, write_shard, ShardHeader, ShardSpec,
    SHARD_HEADER_LEN, SHARD_MAGIC, SHARD_VERSION,
};

/// The mapped level files `0..=max_seeds()` of one rule set.
#[derive(Debug)]
pub struct Database {
    rules: RulesKey,
    /// `levels[k]`: the ranker and the file of level `k`.
    levels: Vec<(Ranker, LevelFile)>,
    /// The ranking of every level's boards (the table of the top level ranks the levels
    /// below it too); `None` without levels.
    rank: Option<FastRank>,
    /// The first value read outside its level's range: (level, rank, value), the value
    /// `None` for a compact block that does not decode.
    fault: OnceLock<(u32, u64, Option<i8>)>,
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
        let rank = levels.last().map(|(ranker, _)| FastRank::new(ranker));
        Ok(Database {
            rules: key,
            levels,
            rank,
            fault: OnceLock::new(),
        })
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

    /// The entries of levels `0..levels()`, in either format: what the generator
    /// ([`crate::gen::Lower::Entries`]) and the verifier ([`crate::verify::Levels`]) read.
    pub fn entries(&self) -> Vec<Entries<'_>> {
        self.levels.iter().map(|(_, f)| f.entries()).collect()
    }

    /// The mapped bytes of levels `0..levels()` when every one is a version-1 file (each
    /// entry one byte read: [`crate::gen::Lower::Values`]), `None` when one is compact.
    pub fn byte_values(&self) -> Option<Vec<&[i8]>> {
        self.levels.iter().map(|(_, f)| f.values()).collect()
    }

    /// `Err` naming the file and the entry if a value read so far was outside its level's
    /// range `-k..=k` (a damaged file: no position can have that value).
    pub fn check(&self) -> Result<(), DbError> {
        match self.fault.get() {
            None => Ok(()),
            Some(&(k, rank, v)) => Err(DbError::Corrupted {
                path: self.levels[k as usize].1.path().to_path_buf(),
                what: match v {
                    Some(v) => format!(
                        "entry {rank} holds {v}, outside -{k}..={k}; delete the file and \
                         rebuild it with `kalah db build`"
                    ),
                    None => format!(
                        "the block of entry {rank} does not decode; delete the file and \
                         rebuild it with `kalah db build`"
                    ),
                },
            }),
        }
    }

    /// Drops the process's mappings of every level's resident pages
    /// ([`LevelFile::release_pages`]): they leave its resident set, stay in the page cache,
    /// and are mapped again when next read. What a generator whose reads of the lower
    /// levels would pass its memory budget does from time to time.
    pub fn release_pages(&self) -> Result<(), DbError> {
        for (_, file) in &self.levels {
            file.release_pages()?;
        }
        Ok(())
    }

    /// Looks for the damage behind values that contradict each other: [`check`](Database::check),
    /// then every level's checksum and value range, in order ([`LevelFile::verify`]; reads
    /// every file, so only for the error path). `Ok` when every file is intact.
    pub fn find_damage(&self) -> Result<(), DbError> {
        self.check()?;
        for (_, file) in &self.levels {
            file.verify()?;
        }
        Ok(())
    }
}

impl Probe for Database {
    /// The highest contiguous level (0 when there is none: then [`Probe::value`] answers
    /// `None`).
    fn max_seeds(&self) -> u32 {
        self.levels().saturating_sub(1)
    }

    /// Read when the search needs it, never prefetched: a database level is a file mapped
    /// in 4 KiB pages, where a prefetch waits for its page walk, and prefetching every
    /// move's entry as the moves were sown made the fixed set of Kalah(6,6) units 20%
    /// slower (results/speed.md, "What was tried").
    fn value(&self, board: &Board) -> Option<i32> {
        let (_, file) = self.levels.get(board.seeds() as usize)?;
        let rank = self.rank.as_ref()?.rank(board.cells());
        // The ranking is the levels': `rank < len()`, so `None` is a damaged block.
        let Some(v) = file.try_get(rank) else {
            let _ = self.fault.set((file.seeds(), rank, None));
            return None;
        };
        if !value_in_range(v, file.seeds()) {
            let _ = self.fault.set((file.seeds(), rank, Some(v)));
            return None;
        }
        Some(i32::from(v))
    }

    fn damaged(&self) -> bool {
        self.fault.get().is_some()
    }
}

/// The rules of a database key (see [`Rules::from_db_key`]).
pub fn rules_from_key(key: &RulesKey) -> Result<Rules, RulesError> {
    Rules::from_db_key(key)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::game::Game;
    use crate::gen::{build_level, Lower};
    use crate::rules::{Capture, Direction, EndRule, OppStore, Remaining, RulesBuilder, Sowing};
    use crate::Solver;
    use db_format::Format;

    /// Builds levels `0..=max_k` of `rules` into `dir` as files of one byte an entry.
    fn build_files(dir: &Path, rules: &Rules, max_k: u32) {
        build_files_as(dir, rules, max_k, Format::Byte);
    }

    /// Builds levels `0..=max_k` of `rules` into `dir` as files of `format`, each from
    /// the files below it.
    fn build_files_as(dir: &Path, rules: &Rules, max_k: u32, format: Format) {
        let game = Game::new(*rules);
        for k in 0..=max_k {
            let lower = Database::open_up_to(dir, rules, k.saturating_sub(1)).unwrap();
            let v = build_level(&game, k, Lower::Probe(&lower), None, &|_| {}).unwrap();
            db_format::write_level(dir, &rules.db_key(), k, &v, format).unwrap();
        }
    }

    /// Kalah(4,3) and its levels 0..=10, built in a fresh folder (kept while the first
    /// lives): compact files for the odd levels, byte files for the even ones.
    fn kalah43_to_level_10() -> (tempfile::TempDir, Game, Database) {
        let dir = tempfile::tempdir().unwrap();
        let rules = Rules::kalah(4, 3).unwrap();
        let game = Game::new(rules);
        for k in 0..=10u32 {
            let lower = Database::open_up_to(dir.path(), &rules, k.saturating_sub(1)).unwrap();
            let v = build_level(&game, k, Lower::Probe(&lower), None, &|_| {}).unwrap();
            let format = if k % 2 == 1 {
                Format::Compact
            } else {
                Format::Byte
            };
            db_format::write_level(dir.path(), &rules.db_key(), k, &v, format).unwrap();
        }
        let db = Database::open(dir.path(), &rules).unwrap();
        assert_eq!(db.max_seeds(), 10);
        assert_eq!(db.level(9).unwrap().format(), Format::Compact);
        assert!(db.byte_values().is_none());
        assert_eq!(db.entries().len(), 11);
        (dir, game, db)
    }

    #[test]
    fn database_probes_equal_the_solver_and_cut_nodes() {
        let (_dir, game, db) = kalah43_to_level_10();
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
    fn boards_just_above_the_database_keep_their_values_when_their_moves_are_read_from_it() {
        // Boards of 11 to 14 seeds over levels 0..=10: most of their moves lead into the
        // database, which `Solver::peek` reads before the node's table entry.
        let (_dir, game, db) = kalah43_to_level_10();
        let mut plain = Solver::new(&game, 16).unwrap();
        let mut probed = Solver::new(&game, 16).unwrap().with_probe(&db);
        let mut checked = 0;
        for k in 11u32..=14 {
            let r = Ranker::new(8, k).unwrap();
            let mut c = [0u8; 8];
            for i in (0..r.count()).step_by(101) {
                r.unrank(i, &mut c);
                let b = Board::from_cells(4, &c);
                if game.terminal_value(&b).is_some() {
                    continue;
                }
                assert_eq!(probed.value(&b), plain.value(&b), "{b:?}");
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked} boards");
        assert!(probed.probes > 0);
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
        db_format::write_level_to(&path, &other.db_key(), 1, &[0; 6], Format::Compact).unwrap();
        let e = Database::open(dir.path(), &rules).unwrap_err();
        assert!(matches!(e, DbError::RulesMismatch { .. }), "{e}");
    }

    /// Level 8 of Kalah(4,·) built as 1 to 6 shards (sets of splits of the seeds between
    /// the rows; 6 shards leave one empty) merges into the unsharded build's bytes.
    #[test]
    fn sharded_build_merges_byte_identical() {
        let whole = tempfile::tempdir().unwrap();
        let rules = Rules::kalah(4, 3).unwrap();
        build_files(whole.path(), &rules, 8);
        let game = Game::new(rules);
        let key = rules.db_key();
        let want = fs::read(whole.path().join(file_name(&key, 8))).unwrap();
        let lower = Database::open_up_to(whole.path(), &rules, 7).unwrap();
        let values = lower.byte_values().unwrap();
        for count in 1..=6 {
            let dir = tempfile::tempdir().unwrap();
            for index in 0..count {
                let spec = ShardSpec { index, count };
                let splits = spec.splits(4, 8).unwrap();
                let v =
                    build_level(&game, 8, Lower::Values(&values), Some(splits), &|_| {}).unwrap();
                assert_eq!(
                    v.len() as u64,
                    db_format::shard::splits_size(4, 8, splits).unwrap()
                );
                write_shard(dir.path(), &key, 8, spec, &v).unwrap();
            }
            let out = merge_shards(dir.path(), false, Format::Byte).unwrap();
            assert_eq!(out, vec![dir.path().join(file_name(&key, 8))]);
            let a = fs::read(&out[0]).unwrap();
            assert!(
                a == want,
                "{count} shards: merged level differs from the unsharded build"
            );
            assert!(fs::read_dir(dir.path()).unwrap().all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains("shard")));
        }
    }

    /// Relay sowing (the generic evaluation, not the row kernel) and a probe for the lower
    /// levels: two shards still merge into the whole level.
    #[test]
    fn relay_shards_merge_byte_identical() {
        let mut b = RulesBuilder::new(3, 3);
        b.sowing = Sowing::Relay;
        let rules = b.build().unwrap();
        let whole = tempfile::tempdir().unwrap();
        build_files(whole.path(), &rules, 9);
        let game = Game::new(rules);
        let key = rules.db_key();
        let lower = Database::open_up_to(whole.path(), &rules, 8).unwrap();
        let dir = tempfile::tempdir().unwrap();
        for index in 0..2 {
            let spec = ShardSpec { index, count: 2 };
            let splits = spec.splits(3, 9).unwrap();
            let v = build_level(&game, 9, Lower::Probe(&lower), Some(splits), &|_| {}).unwrap();
            write_shard(dir.path(), &key, 9, spec, &v).unwrap();
        }
        let out = merge_shards(dir.path(), true, Format::Byte).unwrap();
        let a = fs::read(&out[0]).unwrap();
        let b = fs::read(whole.path().join(file_name(&key, 9))).unwrap();
        assert!(
            a == b,
            "merged relay level differs from the unsharded build"
        );
    }

    #[test]
    fn damaged_or_missing_shards_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let key = RulesKey::standard(2);
        // Level 4 of 2 pits: splits 0, 1 and 2, one a shard.
        let zeros = |index| {
            let splits = ShardSpec { index, count: 3 }.splits(2, 4).unwrap();
            vec![0i8; db_format::shard::splits_size(2, 4, splits).unwrap() as usize]
        };
        for index in 0..2 {
            let spec = ShardSpec { index, count: 3 };
            write_shard(dir.path(), &key, 4, spec, &zeros(index)).unwrap();
        }
        let e = merge_shards(dir.path(), true, Format::Byte).unwrap_err();
        assert!(e.to_string().contains("shard-2-of-3"), "{e}");
        let spec = ShardSpec { index: 2, count: 3 };
        assert!(matches!(
            write_shard(dir.path(), &key, 4, spec, &[0; 3]),
            Err(DbError::EntryCountMismatch { .. })
        ));
        let p = write_shard(dir.path(), &key, 4, spec, &zeros(2)).unwrap();
        let mut bytes = fs::read(&p).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        fs::write(&p, &bytes).unwrap();
        let e = merge_shards(dir.path(), true, Format::Byte).unwrap_err();
        assert!(matches!(e, DbError::ChecksumMismatch { .. }), "{e}");
        // No level file is left behind, not even a temporary one.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 3);
        // A value outside -4..=4.
        *bytes.last_mut().unwrap() = 100;
        fs::write(&p, &bytes).unwrap();
        let e = merge_shards(dir.path(), true, Format::Byte).unwrap_err();
        assert!(e.to_string().contains("outside -4..=4"), "{e}");
        // The splits of another shard.
        let mut other = bytes.clone();
        other[32..40].copy_from_slice(&1u64.to_le_bytes());
        fs::write(&p, &other).unwrap();
        let e = merge_shards(dir.path(), true, Format::Byte).unwrap_err();
        assert!(e.to_string().contains("holds the splits"), "{e}");
        fs::write(&p, &bytes[..40]).unwrap();
        assert!(matches!(
            merge_shards(dir.path(), true, Format::Byte).unwrap_err(),
            DbError::LengthMismatch { .. }
        ));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]

        /// A damaged byte anywhere in any level file (header or payload, either format):
        /// the database does not open, and the error names the file, so no probe answers
        /// from it; a byte rewritten with its own value changes nothing.
        #[test]
        fn damaged_bytes_never_open_as_a_database(
            k in 0u32..=6,
            at in proptest::prelude::any::<proptest::sample::Index>(),
            byte in proptest::prelude::any::<u8>(),
            compact in proptest::prelude::any::<bool>(),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let rules = Rules::kalah(2, 3).unwrap();
            let format = if compact { Format::Compact } else { Format::Byte };
            build_files_as(dir.path(), &rules, 6, format);
            let name = file_name(&rules.db_key(), k);
            let path = dir.path().join(&name);
            let mut bytes = fs::read(&path).unwrap();
            let i = at.index(bytes.len());
            let changed = bytes[i] != byte;
            bytes[i] = byte;
            fs::write(&path, &bytes).unwrap();
            match Database::open(dir.path(), &rules) {
                Ok(db) => {
                    proptest::prop_assert!(!changed, "a damaged level {k} opened");
                    proptest::prop_assert_eq!(db.levels(), 7);
                    db.find_damage().unwrap();
                }
                Err(e) => {
                    proptest::prop_assert!(changed, "{e}");
                    proptest::prop_assert!(e.to_string().contains(&name), "{e}");
                }
            }
        }
    }

    #[test]
    fn shard_specs_parse_and_name_their_files() {
        assert_eq!(
            ShardSpec::parse("2/5"),
            Ok(ShardSpec { index: 2, count: 5 })
        );
        assert!(ShardSpec::parse("5/5").is_err());
        assert!(ShardSpec::parse("x").is_err());
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
