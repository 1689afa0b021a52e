//! Levels built within a memory budget: one part at a time when a level does not fit,
//! resumable after a kill at any moment.
//!
//! # Parts
//!
//! A part is a set of whole splits of the seeds between the two rows (FORMAT.md, "Shard
//! files": split `s` holds the boards one of whose rows has `s` seeds; a move that keeps
//! every seed on the board keeps the split), so it is built by [`build_level`] with its
//! splits from the lower levels alone, into an array of its own boards, and written as a
//! shard file ([`write_shard`]). When every part is written, [`merge_shards`] joins them
//! into the level file, byte-identical to a build in one piece, and removes them. Part `I`
//! of `N` is shard `I/N`: the splits [`db_format::shard::partition`] gives it, so the
//! merge checks each part against the same plan.
//!
//! **How many.** A part holds its boards (one byte each) and the rows' table every part
//! needs ([`build_memory`]). A level is built in one piece (in memory, then written as its
//! level file, as before there were parts) when that fits half the budget left after
//! [`PROCESS`] bytes for the process, otherwise in the fewest parts whose largest fits
//! that half ([`plan_level`]). The other half is for the lower levels' pages, which the
//! build reads through maps ([`crate::resident`]): the fewer of them the process can
//! hold, the more often it maps them again. A level whose largest split does not fit half
//! the budget is refused ([`DbCmdError::OverBudget`]). With the default budget (11 GiB,
//! or half the machine's memory if that is less) the 6-pit levels up to 31 are built in
//! one piece and 32 to 34 in 2 parts each (`kalah db build --max-seeds 34` prints the
//! plan).
//!
//! **Resident memory.** The parts bound the memory the process allocates. The lower
//! levels' pages that it maps are bounded by [`crate::resident::Cap`], which releases
//! them whenever the resident set passes the budget less a headroom: without that, one
//! part of level 34 would map most of the 26.8 GiB of levels 0..=33. The merge then reads
//! the new level file back through a map to verify it ([`merge_shards`]), so the level's
//! size (9.45 GiB at 34, within the default budget) is resident at its end, the lower
//! levels unmapped by then: a budget below the largest level's size is exceeded there.
//!
//! # Files, and resuming
//!
//! The parts of level `k` are written into their own directory, `DIR/<level file
//! name>.parts/` ([`parts_dir`]), as `<level file name>.shard-I-of-N`, so that a merge
//! sees them alone (`kalah db merge --dir DIR` and the shards of a Slurm build never see
//! them). Every file is written to `.tmp`, fsynced and renamed ([`write_shard`],
//! [`db_format::LevelWriter`]); the merged level is renamed from that directory into
//! `DIR` and the directory fsynced, then the parts' directory is removed. So whenever a
//! build is killed, a file under its final name is complete, and a rerun of the same
//! command ([`Build::level_in_parts`]):
//!
//! * removes the `.tmp` files of the level (a part or a merge in progress when killed);
//! * keeps every part file that [`verify_shard`] passes (header, level, splits, length,
//!   values, checksum) without building it again, and builds again one that fails;
//! * builds the parts that are missing, then merges;
//! * finds a merged level left in the parts' directory (killed before it was moved) and,
//!   once verified, moves it into place; and removes the parts' directory of a level that
//!   is in place (killed before the directory was removed).
//!
//! Only the part in progress when the build was killed is built twice (a merge in progress
//! is done again from the parts, which it removes only once the level is written and
//! verified). The parts on disk
//! fix the plan of their level: a rerun with another budget resumes with them if their
//! largest part fits its budget, and refuses otherwise ([`DbCmdError::OtherParts`]).

use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use db_format::shard::{parse_shard_name, partition, split_count, splits_size, verify_shard};
use db_format::{file_name, level_size, DbError, Format, LevelFile, RulesKey};
use solver::budget::{mem_available, mem_total};
use solver::dbfile::{merge_shards, write_shard, Database, ShardSpec};
use solver::gen::cyclic::build_level_cyclic;
use solver::gen::{build_level, build_memory, Lower};
use solver::{Game, Rules};

use crate::error::DbCmdError;
use crate::progress::level_bar;
use crate::resident;
use crate::setup::disk_free;

/// Memory reserved beside a part for the process itself: the binary, the threads' stacks
/// and scratch, the writers' buffers (what `scripts/slurm-build-level.sh` adds to a task's
/// memory for the same).
pub const PROCESS: u64 = 256 << 20;

/// The default budget, unless half the machine's memory is less: 11 GiB (11.8 GB), so
/// that a build to 34 seeds stays under 12 GB resident on a machine of 24 GiB shared
/// with other jobs.
pub const DEFAULT_BUDGET: u64 = 11 << 30;

/// MiB, rounded up.
pub fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

/// The memory budget of a build: the most its resident set may hold, the lower levels'
/// mapped pages included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    bytes: u64,
    /// The worker threads of the build (the headroom below the budget grows with them).
    threads: usize,
}

impl Budget {
    /// `gib` GiB (2^30 bytes), or the default: [`DEFAULT_BUDGET`], or half the machine's
    /// memory if that is less; for a build on `threads` worker threads.
    pub fn new(gib: Option<f64>, threads: usize) -> Budget {
        let bytes = match gib {
            // Not above 2^64 bytes: `parse_gib` caps the option far below.
            Some(g) => (g * f64::from(1u32 << 30)) as u64,
            None => mem_total().map_or(DEFAULT_BUDGET, |t| (t / 2).min(DEFAULT_BUDGET)),
        };
        Budget { bytes, threads }
    }

    /// The budget in bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The most one part's boards and rows' table may take: half of what the budget leaves
    /// after [`PROCESS`]. The other half holds the lower levels' pages.
    pub fn part_limit(&self) -> u64 {
        self.bytes.saturating_sub(PROCESS) / 2
    }

    /// The resident set at which the lower levels' pages are released: the budget less
    /// [`resident::headroom`].
    pub fn resident_limit(&self) -> u64 {
        self.bytes
            .saturating_sub(resident::headroom(self.bytes, self.threads))
    }
}

/// Parses `--memory-gb`: GiB, more than 0 and at most 2^20.
pub fn parse_gib(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(g) if g > 0.0 && g <= f64::from(1u32 << 20) => Ok(g),
        _ => Err(format!(
            "'{s}': expected a number of GiB above 0 (and at most 1048576), e.g. 11 or 0.5"
        )),
    }
}

/// One part of a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// Its shard: part `index` of `count`.
    pub spec: ShardSpec,
    /// Its splits, bit `s` for split `s`.
    pub splits: u64,
    /// Its boards.
    pub boards: u64,
    /// Bytes its build allocates ([`build_memory`]).
    pub memory: u64,
}

/// Why a level is built in the parts of its plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// The whole level fits the budget: one piece.
    Fits,
    /// The fewest parts whose largest fits the budget.
    Budget,
    /// As many parts as `--parts` asks (for tests).
    Forced,
}

/// How level `k` is built: its parts (one: the whole level) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelPlan {
    /// The level.
    pub k: u32,
    /// Its parts, in order; one for a level built in one piece.
    pub parts: Vec<Part>,
    /// Entries of the level (its file is 64 bytes more).
    pub boards: u64,
    /// Why these parts.
    pub why: Why,
}

impl LevelPlan {
    /// Whether the level is built in more than one part.
    pub fn in_parts(&self) -> bool {
        self.parts.len() > 1
    }

    /// The memory of its largest part.
    pub fn largest(&self) -> u64 {
        self.parts.iter().map(|p| p.memory).max().unwrap_or(0)
    }

    /// The disk its level file is counted at, one byte an entry and the header, in the
    /// plan and in the disk check: a compact file's size depends on values not yet built.
    pub fn file_bytes(&self) -> u64 {
        self.boards + db_format::HEADER_LEN as u64
    }
}

/// The `count` parts of level `k`, `pits` a side: the splits of shard `I/count` each
/// ([`ShardSpec::splits`]), with their boards and memory.
pub fn parts_of(pits: usize, k: u32, count: u32) -> Result<Vec<Part>, DbError> {
    let masks = partition(pits, k, count)?;
    (0..count)
        .map(|index| {
            let splits = masks.get(index as usize).copied().unwrap_or(0);
            Ok(Part {
                spec: ShardSpec { index, count },
                splits,
                boards: splits_size(pits, k, splits)?,
                memory: build_memory(pits, k, Some(splits))?,
            })
        })
        .collect()
}

/// How level `k` of `pits` pits a side is built within `budget` (see the module docs),
/// or in `forced` parts (at most its splits). Rules that can cycle build whole levels
/// only (the retrograde solver), whatever the budget.
pub fn plan_level(
    pits: usize,
    k: u32,
    cyclic: bool,
    budget: Budget,
    forced: Option<u32>,
) -> Result<LevelPlan, DbCmdError> {
    let cells = 2 * pits;
    let boards = level_size(cells, k);
    let whole = |why| -> Result<LevelPlan, DbCmdError> {
        Ok(LevelPlan {
            k,
            parts: parts_of(pits, k, 1)?,
            boards,
            why,
        })
    };
    let splits = split_count(k);
    if cyclic || splits < 2 {
        return whole(Why::Fits);
    }
    if let Some(n) = forced {
        let n = n.clamp(1, splits);
        return Ok(LevelPlan {
            k,
            parts: parts_of(pits, k, n)?,
            boards,
            why: Why::Forced,
        });
    }
    if build_memory(pits, k, None)? <= budget.part_limit() {
        return whole(Why::Fits);
    }
    for n in 2..=splits {
        let parts = parts_of(pits, k, n)?;
        if parts.iter().all(|p| p.memory <= budget.part_limit()) {
            return Ok(LevelPlan {
                k,
                parts,
                boards,
                why: Why::Budget,
            });
        }
    }
    // Even one split a part is too large: the largest split alone is the smallest part.
    let need = parts_of(pits, k, splits)?
        .iter()
        .map(|p| p.memory)
        .max()
        .unwrap_or(0);
    let min = (2 * need + PROCESS) as f64 / f64::from(1u32 << 30);
    Err(DbCmdError::OverBudget {
        k,
        need: mib(need),
        budget: mib(budget.bytes()),
        min_gb: format!("{:.1}", (min * 10.0).ceil() / 10.0),
    })
}

/// Whether this machine cannot build level `k` (`pits` a side) in parts under any budget:
/// the budget that holds its largest split in half of it (less the process's share) is
/// more than the memory available. Never where the memory available is not known.
pub fn beyond_machine(pits: usize, k: u32) -> Result<bool, DbError> {
    let split = build_memory(pits, k, Some(largest_split(pits, k)?))?;
    let least = split.saturating_mul(2).saturating_add(PROCESS);
    Ok(mem_available().is_some_and(|avail| least > avail))
}

/// The largest split of level `k` (`pits` a side), as a mask.
pub fn largest_split(pits: usize, k: u32) -> Result<u64, DbError> {
    let mut best = (0, 0);
    for s in 0..db_format::shard::split_count(k) {
        let n = db_format::shard::split_size(pits, k, s)?;
        if n > best.0 {
            best = (n, s);
        }
    }
    Ok(1 << best.1)
}

/// The splits of a mask (bit `s` for split `s`), e.g. `0, 3, 7`, or `none`.
pub fn split_list(splits: u64) -> String {
    let list: Vec<String> = (0..64)
        .filter(|s| splits >> s & 1 == 1)
        .map(|s: u32| s.to_string())
        .collect();
    if list.is_empty() {
        "none".to_string()
    } else {
        list.join(", ")
    }
}

/// Writes the plan of a level built in parts: its parts, the splits, boards and memory of
/// each, and the disk it needs while the last part is merged (the parts and the level
/// file side by side); and a note where the merge's check of the level file, which maps
/// it whole, passes `budget`. The level file is counted as [`LevelPlan::file_bytes`],
/// and for a compact build the plan says so.
pub fn write_plan(out: &mut impl Write, plan: &LevelPlan, budget: Budget, format: Format) {
    let n = plan.parts.len();
    let bytes = plan.file_bytes();
    let parts_bytes = plan.boards + (n * db_format::shard::SHARD_HEADER_LEN) as u64;
    let counted = match format {
        Format::Byte => "",
        Format::Compact => " at one byte an entry, a compact file less",
    };
    let _ = writeln!(
        out,
        "level {:3}: {n} parts of at most {} MiB; disk {} MiB (parts {} + level file {}{counted})",
        plan.k,
        mib(plan.largest()),
        mib(bytes + parts_bytes),
        mib(parts_bytes),
        mib(bytes)
    );
    for p in &plan.parts {
        let _ = writeln!(
            out,
            "  part {}/{}: {} boards, {} MiB, splits {}",
            p.spec.index,
            p.spec.count,
            p.boards,
            mib(p.memory),
            split_list(p.splits)
        );
    }
    if bytes > budget.resident_limit() {
        let _ = writeln!(
            out,
            "  note: the merge verifies the level file through a map: {} MiB resident at \
             its end, above the budget",
            mib(bytes)
        );
    }
}

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
    /// For tests of resuming: kill the process (SIGKILL) once this many part files have
    /// been written by it.
    pub kill_after: Option<u32>,
    /// Part files written so far by this process.
    pub parts_written: u32,
    /// The level files' format (a part is always a shard of one-byte entries).
    pub format: Format,
}

impl Build<'_> {
    /// The boards of the splits `splits` of level `k` (`None`: every board), from the
    /// lower levels `lower`, with a progress bar, under the resident cap.
    pub fn boards(
        &self,
        k: u32,
        lower: &Database,
        splits: Option<u64>,
    ) -> Result<Built, DbCmdError> {
        let pits = self.game.pits();
        let count = match splits {
            Some(s) => splits_size(pits, k, s)?,
            None => level_size(2 * pits, k),
        };
        let bar = level_bar(k, count);
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
        let values = self.pool.install(|| -> Result<Vec<i8>, DbCmdError> {
            if self.rules.can_cycle() {
                // Clockwise play can repeat positions: the retrograde solver, whole
                // levels only.
                if splits.is_some() {
                    return Err(DbCmdError::ShardCyclic);
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
        bar.finish_and_clear();
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

    /// Level `k` in one piece: built, and written as its level file. Returns the line that
    /// reports it.
    pub fn level_whole(&self, k: u32) -> Result<String, DbCmdError> {
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
    ) -> Result<(), DbCmdError> {
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
                    return Err(DbCmdError::OtherParts {
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
                    let p = dir.join(solver::dbfile::shard_file_name(&key, k, spec));
                    fs::remove_file(&p).map_err(io(&p))?;
                    todo.push(*part);
                }
            }
        }
        let header = db_format::shard::SHARD_HEADER_LEN as u64;
        let need = todo.iter().map(|p| p.boards + header).sum::<u64>() + plan.file_bytes();
        if let Some(free) = disk_free(&dir) {
            if need > free {
                return Err(DbCmdError::NoDisk {
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
                if self.kill_after == Some(self.parts_written) {
                    let _ = w.flush();
                    // SAFETY: kill has no memory-safety preconditions; it ends this
                    // process as `kill -9` would, to test what a rerun finds.
                    unsafe {
                        libc::kill(libc::getpid(), libc::SIGKILL);
                    }
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

    const GIB: u64 = 1 << 30;

    fn budget(gib: f64) -> Budget {
        Budget::new(Some(gib), 2)
    }

    /// With the default budget on a machine of 24 GiB (11 GiB), 6-pit levels up to 31 are
    /// built in one piece, 32 to 34 in 2 parts, each within half the budget less the
    /// process's share.
    #[test]
    fn eleven_gib_builds_levels_32_to_34_in_two_parts() {
        let b = budget(11.0);
        assert_eq!(b.bytes(), 11 * GIB);
        assert_eq!(b.part_limit(), (11 * GIB - PROCESS) / 2);
        for k in 0..=31 {
            let plan = plan_level(6, k, false, b, None).unwrap();
            assert_eq!((plan.parts.len(), plan.why), (1, Why::Fits), "level {k}");
        }
        for k in 32..=34 {
            let plan = plan_level(6, k, false, b, None).unwrap();
            assert_eq!((plan.parts.len(), plan.why), (2, Why::Budget), "level {k}");
            assert!(plan.largest() <= b.part_limit());
            assert_eq!(
                plan.parts.iter().map(|p| p.boards).sum::<u64>(),
                level_size(12, k)
            );
        }
        // Level 34's parts: the figures of `kalah db plan --shards 2` (results/db.md).
        let plan = plan_level(6, 34, false, b, None).unwrap();
        assert_eq!(mib(plan.largest()), 5393);
    }

    /// A budget of 1 GiB: level 23 whole (335 MiB within 384), 24 to 26 in parts, and a
    /// level whose largest split passes half the budget refused with the budget it needs.
    #[test]
    fn one_gib_builds_levels_24_to_26_in_parts_and_refuses_what_cannot_fit() {
        let b = budget(1.0);
        assert_eq!(mib(b.part_limit()), 384);
        assert!(!plan_level(6, 23, false, b, None).unwrap().in_parts());
        let counts: Vec<usize> = (24..=26)
            .map(|k| plan_level(6, k, false, b, None).unwrap().parts.len())
            .collect();
        assert_eq!(counts, [2, 3, 4]);
        match plan_level(6, 28, false, b, None) {
            Err(DbCmdError::OverBudget {
                k, need, min_gb, ..
            }) => {
                // The largest split of level 28 alone: 439 MiB (results/db.md).
                assert_eq!((k, need), (28, 439));
                // 2 × 439 + 256 MiB = 1.107 GiB.
                assert_eq!(min_gb, "1.2");
            }
            other => panic!("{other:?}"),
        }
    }

    /// Half the budget less the process's share decides: level 20 of 6 pits (110 MiB)
    /// whole under 0.5 GiB (128 MiB), level 21 (162 MiB) in parts; `--parts` and
    /// clockwise rules override the budget.
    #[test]
    fn half_the_budget_decides_and_forced_parts_win() {
        let b = budget(0.5);
        assert_eq!(mib(b.part_limit()), 128);
        assert_eq!(mib(build_memory(6, 20, None).unwrap()), 111);
        assert!(!plan_level(6, 20, false, b, None).unwrap().in_parts());
        assert_eq!(mib(build_memory(6, 21, None).unwrap()), 162);
        let plan = plan_level(6, 21, false, b, None).unwrap();
        assert_eq!((plan.parts.len(), plan.why), (2, Why::Budget));
        let forced = plan_level(4, 10, false, budget(11.0), Some(3)).unwrap();
        assert_eq!((forced.parts.len(), forced.why), (3, Why::Forced));
        assert_eq!(plan_level(4, 3, false, b, Some(9)).unwrap().parts.len(), 2);
        assert_eq!(plan_level(4, 1, false, b, Some(9)).unwrap().parts.len(), 1);
        let cw = plan_level(6, 28, true, budget(1.0), None).unwrap();
        assert!(!cw.in_parts());
    }

    #[test]
    fn budgets_parse_in_gib() {
        assert_eq!(parse_gib("0.5"), Ok(0.5));
        assert!(parse_gib("0").is_err());
        assert!(parse_gib("-1").is_err());
        assert!(parse_gib("NaN").is_err());
        assert!(parse_gib("2e9").is_err());
        assert_eq!(budget(0.5).bytes(), GIB / 2);
        assert_eq!(budget(1.0).resident_limit(), GIB - (192 << 20));
        assert_eq!(budget(32.0).resident_limit(), 30 * GIB);
        assert_eq!(
            Budget::new(Some(11.0), 8).resident_limit(),
            11 * GIB - (704 << 20)
        );
    }

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
}
