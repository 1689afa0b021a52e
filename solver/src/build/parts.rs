//! The [`Build`] of a database's levels: the levels present checked, a level built whole,
//! or one shard of it, or its parts written into their own directory on disk, what a
//! killed run left resumed ([`scan`], [`resumable`]) and the parts merged into the level
//! file. See the module docs of [`crate::build`] for the files' names and what a rerun
//! finds.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use db_format::shard::{parse_shard_name, splits_size, verify_shard};
use db_format::{file_name, level_size, DbError, Format, LevelFile, RulesKey};
use rayon::prelude::*;

use super::error::BuildError;
use super::plan::{mib, parts_of, Budget, LevelPlan};
use super::progress::Progress;
use super::resident;
use crate::budget::disk_free;
use crate::dbfile::{merge_shards, shard_file_name, write_shard, Database, ShardSpec};
use crate::gen::cyclic::build_level_cyclic;
use crate::gen::{build_level, build_memory, Lower};
use crate::{Game, Rules};

/// The directory of the parts of level `k`: `<out>/<level file name>.parts`.
pub fn parts_dir(out: &Path, key: &RulesKey, k: u32) -> PathBuf {
    out.join(format!("{}.parts", file_name(key, k)))
}

/// Removes the parts' directory of level `k`, whose file is in place (a build killed
/// after moving it, before removing the directory): whether there was one.
pub fn clear_leftovers(out: &Path, key: &RulesKey, k: u32) -> Result<bool, DbError> {
    let dir = parts_dir(out, key, k);
    if !dir.exists() {
        return Ok(false);
    }
    fs::remove_dir_all(&dir).map_err(|source| DbError::Io { path: dir, source })?;
    Ok(true)
}

/// Removes the level file of level `k` that a killed build was writing
/// (`<level file name>.tmp` in `out`): never complete, since it is renamed when it is,
/// and a level built in parts would leave it behind. Whether there was one.
pub fn remove_torn(out: &Path, key: &RulesKey, k: u32) -> Result<bool, DbError> {
    let torn = out.join(format!("{}.tmp", file_name(key, k)));
    if !torn.exists() {
        return Ok(false);
    }
    fs::remove_file(&torn).map_err(|source| DbError::Io { path: torn, source })?;
    Ok(true)
}

/// Whether level `k` has parts to resume in its parts' directory (see [`scan`]): parts or
/// a merged level file. A directory with neither (a build killed before it finished its
/// first part) is removed, so that a level the budget now holds is built in one piece.
pub fn resumable(out: &Path, key: &RulesKey, k: u32) -> Result<bool, DbError> {
    let dir = parts_dir(out, key, k);
    if !dir.exists() {
        return Ok(false);
    }
    let left = scan(&dir, &file_name(key, k))?;
    if left.merged || !left.parts.is_empty() {
        return Ok(true);
    }
    clear_leftovers(out, key, k)?;
    Ok(false)
}

/// What a killed run left in the parts' directory of a level.
#[derive(Debug, Default)]
pub struct Leftovers {
    /// The merged level file (complete: it was renamed into place).
    pub merged: bool,
    /// The part files under their final names (complete unless damaged since).
    pub parts: Vec<ShardSpec>,
    /// `.tmp` files of the level removed: parts or a merge in progress when killed.
    pub torn: usize,
}

/// Looks through the parts' directory `dir` of the level file `level`: removes the
/// level's `.tmp` files and lists the rest (other files are left alone).
pub fn scan(dir: &Path, level: &str) -> Result<Leftovers, DbError> {
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| DbError::Io { path: p, source }
    };
    let mut found = Leftovers::default();
    for entry in fs::read_dir(dir).map_err(io(dir))? {
        let name = entry.map_err(io(dir))?.file_name();
        let Some(name) = name.to_str() else { continue };
        let of_level = |n: &str| n == level || parse_shard_name(n).is_some_and(|(l, _)| l == level);
        if let Some(base) = name.strip_suffix(".tmp") {
            if of_level(base) {
                let p = dir.join(name);
                fs::remove_file(&p).map_err(io(&p))?;
                found.torn += 1;
            }
        } else if name == level {
            found.merged = true;
        } else if let Some((_, spec)) = parse_shard_name(name).filter(|(l, _)| *l == level) {
            found.parts.push(spec);
        }
    }
    found.parts.sort_by_key(|s| (s.count, s.index));
    Ok(found)
}

/// A level's boards as built: the values, the seconds, how often the lower levels' pages
/// were released to keep the budget.
pub struct Built {
    /// The values of the boards built, in rank order.
    pub values: Vec<i8>,
    /// Seconds the build took.
    pub secs: f64,
    /// What the resident cap did ([`resident::Cap`]).
    pub released: resident::Released,
}

/// What the builds of a `kalah db build` share.
pub struct Build<'a> {
    /// The database directory.
    pub out: &'a Path,
    /// The rules of the database.
    pub rules: Rules,
    /// Their game.
    pub game: &'a Game,
    /// The worker threads.
    pub pool: &'a rayon::ThreadPool,
    /// The resident limit kept while building ([`resident::Cap`]); `None`: none kept
    /// (a `--shard` task, whose memory its job asks for).
    pub cap: Option<u64>,
    /// Leave times and speeds out of the lines written.
    pub no_timings: bool,
    /// Shows the count of each level's boards as they are built.
    pub progress: &'a dyn Progress,
    /// Called after each part file this process writes, with the count written so far,
    /// once its line is written and flushed (`kalah db build --kill-after-parts`, to test
    /// resuming, ends the process there).
    pub on_part: Option<&'a (dyn Fn(u32) + Sync)>,
    /// Part files written so far by this process.
    pub parts_written: u32,
    /// The level files' format (a part is always a shard of one-byte entries).
    pub format: Format,
}

impl Build<'_> {
    /// The boards of the splits `splits` of level `k` (`None`: every board), from the
    /// lower levels `lower`, counted on [`Build::progress`], under the resident cap.
    pub fn boards(
        &self,
        k: u32,
        lower: &Database,
        splits: Option<u64>,
    ) -> Result<Built, BuildError> {
        let pits = self.game.pits();
        let count = match splits {
            Some(s) => splits_size(pits, k, s)?,
            None => level_size(2 * pits, k),
        };
        let bar = self.progress.level(k, count);
        let t0 = Instant::now();
        // A cap only where the build, the lower levels and what is resident now could
        // pass the limit: its checkpoints cost a reading of the resident set each.
        let need = build_memory(pits, k, splits)?;
        let lower_bytes: u64 = (0..k).map(|j| level_size(2 * pits, j)).sum();
        let now = resident::resident_bytes().unwrap_or(0);
        let cap = self
            .cap
            .filter(|&limit| now.saturating_add(need).saturating_add(lower_bytes) > limit)
            .map(|limit| resident::Cap::new(lower, limit));
        if let Some(cap) = &cap {
            cap.make_room(need);
        }
        let progress = |n| {
            bar.inc(n);
            if let Some(cap) = &cap {
                cap.checkpoint();
            }
        };
        let values = self.pool.install(|| -> Result<Vec<i8>, BuildError> {
            if self.rules.can_cycle() {
                // Clockwise play can repeat positions: the retrograde solver, whole
                // levels only.
                if splits.is_some() {
                    return Err(BuildError::ShardCyclic);
                }
                return Ok(build_level_cyclic(self.game, k, lower, &progress)?);
            }
            // Counter-clockwise: straight from the lower levels' mapped values (a block
            // decoded a read where a level is compact).
            let bytes = lower.byte_values();
            let entries = lower.entries();
            let lower_levels = match &bytes {
                Some(values) => Lower::Values(values),
                None => Lower::Entries(&entries),
            };
            Ok(build_level(self.game, k, lower_levels, splits, &progress)?)
        })?;
        let released = match cap {
            Some(cap) => cap.finish()?,
            None => resident::Released::default(),
        };
        let secs = t0.elapsed().as_secs_f64();
        bar.finish();
        // A lower value found out of range: the level built on it is not written.
        lower.check()?;
        Ok(Built {
            values,
            secs,
            released,
        })
    }

    /// `positions  seconds  M positions/s` of a line, or the positions alone without
    /// timings.
    fn figures(&self, n: u64, secs: f64, released: resident::Released) -> String {
        if self.no_timings {
            return format!("{n:>13} positions");
        }
        let pages = match released.times {
            0 => String::new(),
            r => format!(
                "  (lower levels' pages released {r} time{}, {:.2} s)",
                if r == 1 { "" } else { "s" },
                released.secs
            ),
        };
        format!(
            "{n:>13} positions  {secs:8.2} s  {:7.2} M positions/s{pages}",
            n as f64 / secs.max(1e-9) / 1e6
        )
    }

    /// The levels of `levels` whose files are present in the database directory, each
    /// opened for these rules and its checksum verified, a level a thread of the build's
    /// pool: the check reads every byte of a file (and decodes every block of a compact
    /// one), most of a resumed build's first minutes. Each with its path and the check's
    /// result, for the caller to report in level order as it meets them.
    pub fn check_present(&self, levels: &[u32]) -> BTreeMap<u32, (PathBuf, Result<(), DbError>)> {
        let key = self.rules.db_key();
        let present: Vec<(u32, PathBuf)> = levels
            .iter()
            .map(|&k| (k, self.out.join(file_name(&key, k))))
            .filter(|(_, path)| path.exists())
            .collect();
        self.pool.install(|| {
            present
                .into_par_iter()
                .map(|(k, path)| {
                    let result = LevelFile::open(&path, &key, k).and_then(|file| file.verify());
                    (k, (path, result))
                })
                .collect()
        })
    }

    /// Shard `spec` of level `k`, the splits `splits`: built and written as its shard file
    /// into the database directory, beside the other shards' (`kalah db merge` joins
    /// them). Returns the line that reports it.
    pub fn shard(&self, k: u32, spec: ShardSpec, splits: u64) -> Result<String, BuildError> {
        let key = self.rules.db_key();
        let lower = Database::open_up_to(self.out, &self.rules, k.saturating_sub(1))?;
        let built = self.boards(k, &lower, Some(splits))?;
        let written = write_shard(self.out, &key, k, spec, &built.values)?;
        let name = written
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(format!(
            "level {k:3}: {}  {name}",
            self.figures(built.values.len() as u64, built.secs, built.released)
        ))
    }

    /// Level `k` in one piece: built, and written as its level file. Returns the line that
    /// reports it.
    pub fn level_whole(&self, k: u32) -> Result<String, BuildError> {
        let key = self.rules.db_key();
        let lower = Database::open_up_to(self.out, &self.rules, k.saturating_sub(1))?;
        let built = self.boards(k, &lower, None)?;
        drop(lower);
        let path = db_format::write_level(self.out, &key, k, &built.values, self.format)?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        Ok(format!(
            "level {k:3}: {}  {}",
            self.figures(built.values.len() as u64, built.secs, built.released),
            name.unwrap_or_default()
        ))
    }

    /// Level `k` in the parts of `plan`, resuming what a killed run left (see the module
    /// docs), then merged into its level file. `budget` and `forced` are the plan's, to
    /// judge parts of another count found on disk. Writes a line a part and one for the
    /// level to `w`.
    pub fn level_in_parts(
        &mut self,
        plan: &LevelPlan,
        budget: Budget,
        forced: Option<u32>,
        w: &mut impl Write,
    ) -> Result<(), BuildError> {
        let key = self.rules.db_key();
        let (k, pits) = (plan.k, usize::from(key.pits));
        let level = file_name(&key, k);
        let dir = parts_dir(self.out, &key, k);
        let io = |p: &Path| {
            let p = p.to_path_buf();
            move |source| DbError::Io { path: p, source }
        };
        fs::create_dir_all(&dir).map_err(io(&dir))?;
        let left = scan(&dir, &level)?;
        if left.torn > 0 {
            let _ = writeln!(
                w,
                "level {k:3}: {} unfinished file(s) of a killed build removed",
                left.torn
            );
        }
        if left.merged {
            let merged = dir.join(&level);
            match LevelFile::open(&merged, &key, k).and_then(|f| f.verify()) {
                Ok(()) => {
                    self.publish(&dir, &level)?;
                    let _ = writeln!(
                        w,
                        "level {k:3}: merged by a killed build and verified, moved into place"
                    );
                    return Ok(());
                }
                Err(e) => {
                    let _ = writeln!(w, "level {k:3}: merged file damaged ({e}), merged again");
                    fs::remove_file(&merged).map_err(io(&merged))?;
                }
            }
        }
        let counts: BTreeSet<u32> = left.parts.iter().map(|s| s.count).collect();
        let mut counts = counts.into_iter();
        let parts = match (counts.next(), counts.next()) {
            (Some(a), Some(b)) => return Err(DbError::MixedShards { dir, level, a, b }.into()),
            (Some(n), None) if n as usize != plan.parts.len() => {
                let other = parts_of(pits, k, n)?;
                let need = other.iter().map(|p| p.memory).max().unwrap_or(0);
                if forced.is_some() || need > budget.part_limit() {
                    return Err(BuildError::OtherParts {
                        dir: dir.display().to_string(),
                        k,
                        found: n,
                        need: mib(need),
                        limit: mib(budget.part_limit()),
                    });
                }
                let _ = writeln!(
                    w,
                    "level {k:3}: resumed in the {n} parts of a killed build (largest {} MiB)",
                    mib(need)
                );
                other
            }
            _ => plan.parts.clone(),
        };
        let count = parts.len();
        let mut todo = Vec::new();
        for part in &parts {
            let spec = part.spec;
            if !left.parts.contains(&spec) {
                todo.push(*part);
                continue;
            }
            match verify_shard(&dir, &key, k, spec) {
                Ok(_) => {
                    let _ = writeln!(
                        w,
                        "level {k:3}: part {}/{count} kept: written by a killed build, verified",
                        spec.index
                    );
                }
                Err(e) => {
                    let _ = writeln!(
                        w,
                        "level {k:3}: part {}/{count} damaged ({e}), built again",
                        spec.index
                    );
                    let p = dir.join(shard_file_name(&key, k, spec));
                    fs::remove_file(&p).map_err(io(&p))?;
                    todo.push(*part);
                }
            }
        }
        let header = db_format::shard::SHARD_HEADER_LEN as u64;
        let need = todo.iter().map(|p| p.boards + header).sum::<u64>() + plan.file_bytes();
        if let Some(free) = disk_free(&dir) {
            if need > free {
                return Err(BuildError::NoDisk {
                    k,
                    dir: self.out.display().to_string(),
                    what: format!("{} part(s) to build and the level file", todo.len()),
                    need: mib(need),
                    free: mib(free),
                });
            }
        }
        if !todo.is_empty() {
            let lower = Database::open_up_to(self.out, &self.rules, k.saturating_sub(1))?;
            for part in &todo {
                let built = self.boards(k, &lower, Some(part.splits))?;
                write_shard(&dir, &key, k, part.spec, &built.values)?;
                let _ = writeln!(
                    w,
                    "level {k:3}: part {}/{count} {}",
                    part.spec.index,
                    self.figures(part.boards, built.secs, built.released)
                );
                self.parts_written += 1;
                if let Some(on_part) = self.on_part {
                    let _ = w.flush();
                    on_part(self.parts_written);
                }
            }
        }
        let t0 = Instant::now();
        let merged = merge_shards(&dir, false, self.format)?;
        if merged != [dir.join(&level)] {
            return Err(DbError::Corrupted {
                path: dir.clone(),
                what: format!("the merge wrote {merged:?}, not {level}"),
            }
            .into());
        }
        self.publish(&dir, &level)?;
        let secs = t0.elapsed().as_secs_f64();
        let merge = if self.no_timings {
            String::new()
        } else {
            format!(", merged in {secs:.2} s")
        };
        let _ = writeln!(
            w,
            "level {k:3}: {:>13} positions  {count} parts{merge}  {level}",
            plan.boards
        );
        Ok(())
    }

    /// Moves the merged level file `level` from the parts' directory `dir` into the
    /// database directory, makes that durable, and removes `dir`.
    fn publish(&self, dir: &Path, level: &str) -> Result<(), DbError> {
        let from = dir.join(level);
        let to = self.out.join(level);
        fs::rename(&from, &to).map_err(|source| DbError::Io {
            path: to.clone(),
            source,
        })?;
        db_format::sync_dir(self.out)?;
        fs::remove_dir_all(dir).map_err(|source| DbError::Io {
            path: dir.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scan removes the level's `.tmp` files only, and lists its parts and its merged
    /// file.
    #[test]
    fn scan_removes_the_levels_torn_files_and_lists_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let level = "m4-standard-single-ccw-skip-either-owner-k010.kdb";
        let other = "m4-standard-single-ccw-skip-either-owner-k009.kdb";
        for name in [
            format!("{level}.shard-0-of-3"),
            format!("{level}.shard-2-of-3"),
            format!("{level}.shard-1-of-3.tmp"),
            format!("{level}.tmp"),
            format!("{other}.shard-0-of-2.tmp"),
            level.to_string(),
            "notes.txt".to_string(),
        ] {
            fs::write(dir.path().join(name), b"x").unwrap();
        }
        let found = scan(dir.path(), level).unwrap();
        assert!(found.merged);
        assert_eq!(found.torn, 2);
        assert_eq!(
            found.parts,
            [
                ShardSpec { index: 0, count: 3 },
                ShardSpec { index: 2, count: 3 }
            ]
        );
        let mut left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left.len(), 5, "{left:?}");
        assert!(left.contains(&format!("{other}.shard-0-of-2.tmp")));
    }

    /// A build of `rules` into `out` on one thread, counting nothing.
    fn build<'a>(
        out: &'a Path,
        rules: Rules,
        game: &'a Game,
        pool: &'a rayon::ThreadPool,
        on_part: Option<&'a (dyn Fn(u32) + Sync)>,
    ) -> Build<'a> {
        Build {
            out,
            rules,
            game,
            pool,
            cap: None,
            no_timings: true,
            progress: &super::super::Silent,
            on_part,
            parts_written: 0,
            format: Format::Byte,
        }
    }

    /// Built in parts, with the hook told of each part, a level's file is byte for byte
    /// the file built in one piece; the levels present then check as sound, and a torn
    /// level file is removed once.
    #[test]
    fn a_level_in_parts_is_the_level_built_whole() {
        let rules = Rules::kalah(3, 3).unwrap();
        let game = Game::new(rules);
        let key = rules.db_key();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let (whole, parted) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let written = std::sync::atomic::AtomicU32::new(0);
        let hook = |n: u32| written.store(n, std::sync::atomic::Ordering::Relaxed);
        let one = build(whole.path(), rules, &game, &pool, None);
        let mut parts = build(parted.path(), rules, &game, &pool, Some(&hook));
        let budget = Budget::new(Some(1.0), 1);
        let mut lines = Vec::new();
        for k in 0..=6 {
            one.level_whole(k).unwrap();
            let plan = super::super::plan_level(3, k, false, budget, Some(3)).unwrap();
            if plan.in_parts() {
                parts
                    .level_in_parts(&plan, budget, Some(3), &mut lines)
                    .unwrap();
            } else {
                parts.level_whole(k).unwrap();
            }
        }
        let told = written.load(std::sync::atomic::Ordering::Relaxed);
        assert!(told >= 3, "{told}");
        assert_eq!(parts.parts_written, told);
        for k in 0..=6 {
            let name = file_name(&key, k);
            let a = fs::read(whole.path().join(&name)).unwrap();
            assert_eq!(a, fs::read(parted.path().join(&name)).unwrap(), "level {k}");
            assert!(!parts_dir(parted.path(), &key, k).exists());
        }
        let checked = one.check_present(&[0, 3, 6, 7]);
        assert_eq!(checked.keys().copied().collect::<Vec<_>>(), [0, 3, 6]);
        assert!(checked.values().all(|(_, r)| r.is_ok()));
        let torn = whole.path().join(format!("{}.tmp", file_name(&key, 7)));
        fs::write(&torn, b"x").unwrap();
        assert!(remove_torn(whole.path(), &key, 7).unwrap());
        assert!(!remove_torn(whole.path(), &key, 7).unwrap());
        assert!(!torn.exists());
    }
}
