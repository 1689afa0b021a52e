//! `kalah db`: build, merge, inspect, verify and probe endgame databases.
//!
//! The generator is [`solver::gen`], the directory and shard files are
//! [`solver::dbfile`], the level files are the `db-format` crate; this module adds the
//! command line, progress bars, the memory check and the verifier's sampling.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, Subcommand};
use db_format::{file_name, level_size, DbError, LevelFile, Ranker};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use solver::dbfile::{
    merge_shards, rules_from_key, shard_file_name, write_shard, Database, ShardSpec,
};
use solver::gen::cyclic::build_level_cyclic;
use solver::gen::{build_level, build_memory, GenError, Lower};
use solver::verify::{rederive_level, LevelCheck, Levels, Mismatch};
use solver::{Game, Probe};

use crate::args::{resolve, PositionArg, RulesArgs};
use crate::error::CliError;

/// Arguments of `kalah db`.
#[derive(Args, Debug)]
pub struct DbArgs {
    #[command(subcommand)]
    pub command: DbCommand,
}

/// The database subcommands.
#[derive(Subcommand, Debug)]
pub enum DbCommand {
    /// Build levels 0..=K (skipping those already present and intact), or one shard of level K
    Build(BuildArgs),
    /// Join complete sets of shard files in a directory into level files
    Merge(MergeArgs),
    /// Print the splits, boards and memory of each shard of level K built as N shards
    Plan(PlanArgs),
    /// Print the header of a level file
    Info(InfoArgs),
    /// Check every level file of a directory: checksums, then values re-derived from successors
    Verify(VerifyArgs),
    /// Print the database value of a position and its final margin
    Probe(ProbeArgs),
}

/// Arguments of `kalah db build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Highest level: seeds on the board
    #[arg(long, value_name = "K")]
    pub max_seeds: u32,
    /// Directory of the database (created if missing)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Worker threads [default: all cores], from 1 to 4 per core as for `kalah solve`
    #[arg(long, value_name = "N", value_parser = crate::cmd::solve::parse_threads)]
    pub threads: Option<usize>,
    /// Build only part I of N (0 <= I < N) of level K into a shard file: the boards of its
    /// splits of the seeds between the two rows (`kalah db plan` lists them); levels
    /// below K must be in DIR. Join the shards with `kalah db merge`
    #[arg(long, value_name = "I/N", value_parser = ShardSpec::parse)]
    pub shard: Option<ShardSpec>,
    /// Leave times and speeds out of the output (for reproducible transcripts)
    #[arg(long)]
    pub no_timings: bool,
}

/// Arguments of `kalah db plan`.
#[derive(Args, Debug)]
pub struct PlanArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// The level: seeds on the board
    #[arg(long, value_name = "K")]
    pub max_seeds: u32,
    /// Shards the level is built in (`--shard I/N`'s N)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: u32,
}

/// Arguments of `kalah db merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Directory holding the shard files
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// Keep the shard files after writing the level file
    #[arg(long)]
    pub keep_shards: bool,
}

/// Arguments of `kalah db info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// A level file (*.kdb)
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// Arguments of `kalah db verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Directory of the database
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Levels with at most this many positions are re-derived entry by entry
    #[arg(long, value_name = "N", default_value_t = 5_000_000)]
    pub full_up_to: u64,
    /// Re-derive every entry of every level: no sampling (all 15.3 G entries of a
    /// 31-seed database of 6 pits; a level's line gives its time and entries/s)
    #[arg(long, conflicts_with_all = ["full_up_to", "sample"])]
    pub full: bool,
    /// Entries re-derived at random in each larger level (at least 1)
    #[arg(long, value_name = "N", default_value_t = 1_000_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: u64,
}

/// Arguments of `kalah db probe`.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub position: PositionArg,
    /// Directory of the database
    #[arg(long, value_name = "DIR")]
    pub db: PathBuf,
}

/// Why a database command failed.
#[derive(Debug, thiserror::Error)]
pub enum DbCmdError {
    /// A level or shard file, or the directory, is unusable.
    #[error(transparent)]
    Db(#[from] DbError),
    /// A level could not be generated.
    #[error(transparent)]
    Retro(#[from] GenError),
    /// The build would not fit in memory.
    #[error(
        "{what} needs {need} MiB of memory but only {avail} MiB are available \
         (MemAvailable in /proc/meminfo); {advice}"
    )]
    NoMemory {
        /// What was to be built: the level, or the shard of it.
        what: String,
        /// What would fit instead.
        advice: String,
        /// MiB needed.
        need: u64,
        /// MiB available.
        avail: u64,
    },
    /// A level file present under its name fails verification.
    #[error("{path}: present but damaged ({source}); delete it to rebuild it")]
    Damaged {
        /// The file.
        path: String,
        /// What verification found.
        source: DbError,
    },
    /// Another `kalah db build` writes into the directory.
    #[error(
        "another build holds {dir} (process {holder}, in {lock}); wait for it, or \
         delete the lock if no build runs"
    )]
    Locked {
        /// The directory.
        dir: String,
        /// The lock file.
        lock: String,
        /// The process id in the lock file.
        holder: String,
    },
    /// `db build --max-seeds` beyond what a level file can hold.
    #[error("--max-seeds: {0}")]
    Refused(DbError),
    /// `--pie` given to `db build`, whose levels do not depend on it.
    #[error("--pie: kalah db build does not use the pie rule (it changes only the first turn, not the levels); leave it out")]
    Pie,
    /// `db build --out` names something that is not a directory.
    #[error("--out {0}: not a directory (the database is a directory of level files)")]
    NotADirectory(String),
    /// `verify` found no level file at all.
    #[error("{0} holds no level files (*.kdb): nothing to verify")]
    NoLevels(String),
    /// `verify` found problems; they were printed above.
    #[error("{0} problem(s) found in {1}")]
    VerifyFailed(usize, String),
    /// The position has more seeds than the database covers.
    #[error("the position has {seeds} seeds on the board but the database in {dir} covers at most {max} (levels 0..={max})")]
    NotCovered {
        /// Seeds of the position.
        seeds: u32,
        /// Highest level.
        max: u32,
        /// The directory.
        dir: String,
    },
    /// No level 0 of these rules in the directory.
    #[error("{dir} holds no level files for rules [{rules}] (missing {first})")]
    Empty {
        /// The directory.
        dir: String,
        /// The rules asked for.
        rules: String,
        /// The name of level 0.
        first: String,
    },
    /// A level of clockwise rules could not be generated.
    #[error(transparent)]
    Cyclic(#[from] solver::gen::cyclic::CyclicError),
    /// `--shard` with rules whose play can cycle.
    #[error(
        "--shard needs counter-clockwise rules: the retrograde solver of clockwise rules \
         builds whole levels only"
    )]
    ShardCyclic,
    /// The rule switches were refused.
    #[error(transparent)]
    Rules(#[from] solver::RulesError),
    /// Thread pool set-up.
    #[error("cannot start the worker threads: {0}")]
    Threads(String),
}

impl DbCmdError {
    /// The process exit status, as [`CliError::exit_code`] gives it: 2 for an option or
    /// position the command refuses before it reads or writes a level (the pie rule, more
    /// seeds than a level holds, an `--out` that is not a directory, `--shard` with rules that can cycle, a level too
    /// large for memory, a position the database does not hold), 1 for what it found in
    /// the files.
    pub fn exit_code(&self) -> u8 {
        match self {
            DbCmdError::Pie
            | DbCmdError::Refused(_)
            | DbCmdError::NotADirectory(_)
            | DbCmdError::ShardCyclic
            | DbCmdError::Rules(_)
            | DbCmdError::NoMemory { .. }
            | DbCmdError::Empty { .. }
            | DbCmdError::NotCovered { .. } => 2,
            DbCmdError::Db(_)
            | DbCmdError::Retro(_)
            | DbCmdError::Damaged { .. }
            | DbCmdError::Locked { .. }
            | DbCmdError::NoLevels(_)
            | DbCmdError::VerifyFailed(..)
            | DbCmdError::Cyclic(_)
            | DbCmdError::Threads(_) => 1,
        }
    }
}

/// Runs a `kalah db` subcommand.
pub fn run(args: &DbArgs) -> Result<(), CliError> {
    let r = match &args.command {
        DbCommand::Build(a) => run_build(a),
        DbCommand::Merge(a) => run_merge(a),
        DbCommand::Plan(a) => run_plan(a),
        DbCommand::Info(a) => run_info(a),
        DbCommand::Verify(a) => run_verify(a),
        DbCommand::Probe(a) => return run_probe(a),
    };
    r.map_err(CliError::from)
}

/// Bytes of memory available to a new process, from `/proc/meminfo` (`None` elsewhere).
pub(crate) fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// MiB, rounded up.
fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

fn run_build(a: &BuildArgs) -> Result<(), DbCmdError> {
    let rules = a.rules.rules()?;
    if rules.pie {
        return Err(DbCmdError::Pie);
    }
    let game = Game::new(rules);
    let key = rules.db_key();
    let cells = key.cells();
    // Before the directory is made, and before the list of levels (4 Gi of them for
    // --max-seeds 4294967295) is.
    Ranker::new(cells, a.max_seeds).map_err(DbCmdError::Refused)?;
    if a.out.exists() && !a.out.is_dir() {
        return Err(DbCmdError::NotADirectory(a.out.display().to_string()));
    }
    std::fs::create_dir_all(&a.out).map_err(|source| DbError::Io {
        path: a.out.clone(),
        source,
    })?;
    // A shard writes only its own file: shards of a level build side by side in one
    // directory (the array tasks of scripts/slurm-build-level.sh), one shard once.
    let lock_name = match a.shard {
        Some(s) => format!(".{}.lock", shard_file_name(&key, a.max_seeds, s)),
        None => ".lock".to_string(),
    };
    let _lock = BuildLock::take(&a.out, &lock_name)?;
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = a.threads {
        pool = pool.num_threads(n);
    }
    let pool = pool
        .build()
        .map_err(|e| DbCmdError::Threads(e.to_string()))?;
    let mut out = std::io::stdout().lock();
    let levels: Vec<u32> = match a.shard {
        Some(_) => vec![a.max_seeds],
        None => (0..=a.max_seeds).collect(),
    };
    // Memory: the boards being built (the level, or the shard's splits) and the rows'
    // table; lower levels are only mapped, so the page cache holds what fits of them.
    let pits = usize::from(key.pits);
    let splits = match a.shard {
        Some(s) => Some(s.splits(pits, a.max_seeds)?),
        None => None,
    };
    let top = build_memory(pits, a.max_seeds, splits)?;
    let lower_bytes: u64 = (0..a.max_seeds).map(|k| level_size(cells, k)).sum();
    // The key, not the rules: a database holds every seed count, so "Kalah(6,4)" (the
    // default --seeds) would misname it.
    let _ = writeln!(
        out,
        "{}: levels {}..={} into {}, {} threads",
        key,
        levels[0],
        a.max_seeds,
        a.out.display(),
        pool.current_num_threads()
    );
    let what = match a.shard {
        Some(s) => format!(
            "shard {}/{} of level {} (splits {})",
            s.index,
            s.count,
            a.max_seeds,
            split_list(splits.unwrap_or(0))
        ),
        None => format!("level {}", a.max_seeds),
    };
    let _ = writeln!(
        out,
        "memory: {} MiB for {what} in memory, {} MiB of lower levels read through maps",
        mib(top),
        mib(lower_bytes)
    );
    if let Some(avail) = mem_available() {
        if top > avail {
            let smallest =
                build_memory(pits, a.max_seeds, Some(largest_split(pits, a.max_seeds)?))?;
            let advice = if a.shard.is_some() && top <= smallest {
                format!(
                    "this shard is one split of the seeds between the rows, which cannot be \
                     cut further: use a machine with {} MiB or more",
                    mib(top)
                )
            } else {
                format!(
                    "build it in more shards (--shard I/N: each holds only its splits' boards, \
                     down to {} MiB for the largest split; `kalah db plan` gives every \
                     shard's memory), build fewer seeds or use a machine with more memory",
                    mib(smallest)
                )
            };
            return Err(DbCmdError::NoMemory {
                what,
                need: mib(top),
                avail: mib(avail),
                advice,
            });
        }
    }
    for &k in &levels {
        let path = a.out.join(file_name(&key, k));
        if path.exists() {
            let damaged = |source| DbCmdError::Damaged {
                path: path.display().to_string(),
                source,
            };
            let file = LevelFile::open(&path, &key, k).map_err(damaged)?;
            file.verify().map_err(|source| DbCmdError::Damaged {
                path: path.display().to_string(),
                source,
            })?;
            let _ = writeln!(out, "level {k:3}: present and verified, skipped");
            continue;
        }
        let lower = Database::open_up_to(&a.out, &rules, k.saturating_sub(1))?;
        let boards = match splits {
            Some(s) => db_format::shard::splits_size(pits, k, s)?,
            None => Ranker::new(cells, k)?.count(),
        };
        let bar = progress_bar(k, boards);
        let t0 = Instant::now();
        let values = pool.install(|| -> Result<Vec<i8>, DbCmdError> {
            if rules.can_cycle() {
                // Clockwise play can repeat positions: the retrograde solver, whole
                // levels only.
                if a.shard.is_some() {
                    return Err(DbCmdError::ShardCyclic);
                }
                return Ok(build_level_cyclic(&game, k, &lower, &|n| bar.inc(n))?);
            }
            // Counter-clockwise: straight from the lower levels' mapped values, the
            // whole level or the shard's splits.
            let values: Vec<&[i8]> = (0..k)
                .filter_map(|j| lower.level(j).map(|f| f.values()))
                .collect();
            Ok(build_level(
                &game,
                k,
                Lower::Values(&values),
                splits,
                &|n| bar.inc(n),
            )?)
        })?;
        let built = t0.elapsed().as_secs_f64();
        bar.finish_and_clear();
        // A lower value found out of range: the level built on it is not written.
        lower.check()?;
        let written = match a.shard {
            Some(s) => write_shard(&a.out, &key, k, s, &values)?,
            None => db_format::write_level(&a.out, &key, k, &values)?,
        };
        let n = values.len() as u64;
        let name = written
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        if a.no_timings {
            let _ = writeln!(out, "level {k:3}: {n:>13} positions  {name}");
        } else {
            let _ = writeln!(
                out,
                "level {k:3}: {n:>13} positions  {built:8.2} s  {:7.2} M positions/s  {name}",
                n as f64 / built.max(1e-9) / 1e6
            );
        }
    }
    Ok(())
}

/// A build's hold on its output directory: the file `DIR/.lock` (for a shard
/// `DIR/.<shard file name>.lock`), created only if absent, holding the builder's process
/// id, removed when the build ends. Two builds into one directory would write the same
/// temporary files (two builds of one shard, its file); the second is refused instead. A
/// lock whose process no longer runs (a build that was killed) is taken over.
struct BuildLock {
    path: PathBuf,
}

impl BuildLock {
    fn take(dir: &Path, name: &str) -> Result<BuildLock, DbCmdError> {
        let path = dir.join(name);
        let io = |source| DbError::Io {
            path: path.clone(),
            source,
        };
        for _ in 0..2 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut f) => {
                    write!(f, "{}", std::process::id()).map_err(io)?;
                    return Ok(BuildLock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = std::fs::read_to_string(&path).unwrap_or_default();
                    let pid = holder.trim().parse::<u32>().ok();
                    let gone = pid.is_some_and(|p| !Path::new(&format!("/proc/{p}")).exists());
                    if !gone || !Path::new("/proc/self").exists() {
                        return Err(DbCmdError::Locked {
                            dir: dir.display().to_string(),
                            lock: path.display().to_string(),
                            holder: holder.trim().to_string(),
                        });
                    }
                    // Its builder was killed: take the lock over.
                    let _ = std::fs::remove_file(&path);
                }
                Err(e) => return Err(io(e).into()),
            }
        }
        Err(DbCmdError::Locked {
            dir: dir.display().to_string(),
            lock: path.display().to_string(),
            holder: String::new(),
        })
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A progress bar of `len` positions for level `k` (hidden when stderr is not a terminal).
fn progress_bar(k: u32, len: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(
        "level {prefix:>3} [{bar:30}] {human_pos}/{human_len} positions, {per_sec}, ETA {eta}",
    )
    .map(|s| s.progress_chars("=> "));
    if let Ok(style) = style {
        bar.set_style(style);
    }
    bar.set_prefix(k.to_string());
    bar
}

fn run_merge(a: &MergeArgs) -> Result<(), DbCmdError> {
    let written = merge_shards(&a.dir, a.keep_shards)?;
    let mut out = std::io::stdout().lock();
    if written.is_empty() {
        let _ = writeln!(out, "no shard files in {}", a.dir.display());
    }
    for p in written {
        let _ = writeln!(out, "merged and verified {}", p.display());
    }
    Ok(())
}

/// The splits of a mask (bit `s` for split `s`), e.g. `0, 3, 7`, or `none`.
fn split_list(splits: u64) -> String {
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

/// The largest split of level `k` (`pits` a side), as a mask.
fn largest_split(pits: usize, k: u32) -> Result<u64, DbError> {
    let mut best = (0, 0);
    for s in 0..db_format::shard::split_count(k) {
        let n = db_format::shard::split_size(pits, k, s)?;
        if n > best.0 {
            best = (n, s);
        }
    }
    Ok(1 << best.1)
}

/// `kalah db plan`: what `kalah db build --shard I/N` builds for each `I`, and the memory
/// of each (as its `memory:` line gives it).
fn run_plan(a: &PlanArgs) -> Result<(), DbCmdError> {
    let rules = a.rules.rules()?;
    let key = rules.db_key();
    let pits = usize::from(key.pits);
    let k = a.max_seeds;
    let level = Ranker::new(key.cells(), k)?.count();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "level {k} of {}: {level} positions in {} splits, {} shards",
        key.slug(),
        db_format::shard::split_count(k),
        a.shards
    );
    let mut largest = (0, 0);
    for index in 0..a.shards {
        let splits = ShardSpec {
            index,
            count: a.shards,
        }
        .splits(pits, k)?;
        let boards = db_format::shard::splits_size(pits, k, splits)?;
        let need = mib(build_memory(pits, k, Some(splits))?);
        if need > largest.1 {
            largest = (index, need);
        }
        let _ = writeln!(
            out,
            "shard {index}/{}: {boards} boards, {need} MiB, splits {}",
            a.shards,
            split_list(splits)
        );
    }
    let _ = writeln!(
        out,
        "largest task: shard {}/{}, {} MiB (the whole level unsharded: {} MiB)",
        largest.0,
        a.shards,
        largest.1,
        mib(build_memory(pits, k, None)?)
    );
    Ok(())
}

/// `kalah db info` of a shard file (from `db build --shard`): its header's fields.
/// `None` when the file is not a shard.
fn shard_info(path: &Path) -> Option<Vec<String>> {
    use std::io::Read;
    let mut head = Vec::new();
    db_format::file::open_regular(path)
        .ok()?
        .take(solver::dbfile::SHARD_HEADER_LEN as u64)
        .read_to_end(&mut head)
        .ok()?;
    let h = solver::dbfile::ShardHeader::decode_from(&head, path).ok()?;
    Some(vec![
        format!("file:        {}", path.display()),
        format!(
            "shard:       {} of {} (kalah db merge joins the {} shards into the level)",
            h.spec.index, h.spec.count, h.spec.count
        ),
        format!("rules:       {}", h.rules),
        format!("seeds:       {} on the board", h.seeds),
        format!(
            "splits:      {} (the boards whose rows hold s and {} - s seeds, for each s)",
            split_list(h.splits),
            h.seeds
        ),
        format!("entries:     {}", h.entries),
        format!("checksum:    {:#018x} (XXH3-64 of the payload)", h.checksum),
    ])
}

fn run_info(a: &InfoArgs) -> Result<(), DbCmdError> {
    let f = match LevelFile::open_any(&a.file) {
        Ok(f) => f,
        Err(e @ DbError::BadMagic { .. }) => match shard_info(&a.file) {
            Some(lines) => {
                let mut out = std::io::stdout().lock();
                for l in lines {
                    let _ = writeln!(out, "{l}");
                }
                return Ok(());
            }
            None => return Err(e.into()),
        },
        Err(e) => return Err(e.into()),
    };
    let h = f.header();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "file:        {}", a.file.display());
    let _ = writeln!(out, "version:     {}", h.version);
    let _ = writeln!(out, "rules:       {}", h.rules);
    let _ = writeln!(out, "seeds:       {} on the board", h.seeds);
    let _ = writeln!(out, "entries:     {}", h.entry_count);
    let _ = writeln!(out, "bytes:       {}", h.file_len().unwrap_or(0));
    let _ = writeln!(
        out,
        "checksum:    {:#018x} (XXH3-64 of the payload)",
        h.checksum
    );
    let _ = writeln!(
        out,
        "name:        {}",
        file_name(&h.rules, u32::from(h.seeds))
    );
    Ok(())
}

/// `<slug>-kNNN.kdb` split into the rules slug and the level.
fn parse_level_name(name: &str) -> Option<(&str, u32)> {
    let (slug, k) = name.strip_suffix(".kdb")?.rsplit_once("-k")?;
    (k.len() == 3 && k.bytes().all(|b| b.is_ascii_digit()))
        .then(|| k.parse().ok().map(|k| (slug, k)))
        .flatten()
}

/// `kalah db verify`: exit 0 only when every level file in the directory is sound (header,
/// name, checksum, value range), the levels are contiguous from 0 and of one rule set, and
/// every level re-derives from the ones below it. A level above a damaged, missing or
/// wrong one is reported as unverified (its values were derived from bad ones), not as
/// wrong, and the summary says which levels were checked and which not, and why.
fn run_verify(a: &VerifyArgs) -> Result<(), DbCmdError> {
    let mut out = std::io::stdout().lock();
    let mut problems = 0usize;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&a.dir)
        .map_err(|source| DbError::Io {
            path: a.dir.clone(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "kdb"))
        .collect();
    files.sort();
    // Pass 1: names, headers and checksums. `sets[slug][k]`: the rules of a sound level k,
    // `None` for a damaged or misnamed one.
    let mut sets: BTreeMap<String, BTreeMap<u32, Option<db_format::RulesKey>>> = BTreeMap::new();
    for p in &files {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some((slug, k)) = parse_level_name(&name) else {
            problems += 1;
            let _ = writeln!(
                out,
                "UNKNOWN  {}: not named as a level (<rules>-kNNN.kdb)",
                p.display()
            );
            continue;
        };
        let found = match LevelFile::open_any(p).and_then(|f| f.verify().map(|()| f)) {
            Ok(f) if file_name(&f.rules(), f.seeds()) == name => {
                let _ = writeln!(out, "ok       {}", p.display());
                Some(f.rules())
            }
            Ok(f) => {
                problems += 1;
                let _ = writeln!(
                    out,
                    "MISNAMED {}: holds level {} of [{}], whose name is {}",
                    p.display(),
                    f.seeds(),
                    f.rules(),
                    file_name(&f.rules(), f.seeds())
                );
                None
            }
            Err(e) => {
                problems += 1;
                let _ = writeln!(out, "DAMAGED  {e}");
                None
            }
        };
        sets.entry(slug.to_string()).or_default().insert(k, found);
    }
    if sets.is_empty() {
        return Err(DbCmdError::NoLevels(a.dir.display().to_string()));
    }
    if sets.len() > 1 {
        problems += 1;
        let names: Vec<&str> = sets.keys().map(String::as_str).collect();
        let _ = writeln!(
            out,
            "MIXED    {} holds levels of {} rule sets or pit counts ({}); a database is one",
            a.dir.display(),
            sets.len(),
            names.join(", ")
        );
    }
    // Pass 2: re-derive the sound levels from 0 up to the first missing, damaged or wrong
    // one; the levels above it were derived from it and are not re-derived.
    for (slug, levels) in &sets {
        let top = levels.keys().last().copied().unwrap_or(0);
        let mut first_bad: Option<(u32, &str)> = None;
        for k in 0..=top {
            match levels.get(&k) {
                None => {
                    problems += 1;
                    let _ = writeln!(out, "MISSING  level {k:3} of {slug}");
                    first_bad.get_or_insert((k, "missing"));
                }
                Some(None) => {
                    first_bad.get_or_insert((k, "damaged"));
                }
                Some(Some(_)) => {}
            }
        }
        let below = first_bad.map_or(top + 1, |(k, _)| k);
        let key = levels.values().flatten().next().copied();
        let mut rederived = 0;
        if let (true, Some(key)) = (below > 0, key) {
            match rules_from_key(&key)
                .map_err(|e| e.to_string())
                .and_then(|r| {
                    Database::open_up_to(&a.dir, &r, below - 1)
                        .map(|db| (r, db))
                        .map_err(|e| e.to_string())
                }) {
                Err(e) => {
                    problems += 1;
                    let _ = writeln!(out, "skip re-derivation of [{key}]: {e}");
                    first_bad = Some((0, "unreadable"));
                }
                Ok((rules, db)) => {
                    let game = Game::new(rules);
                    let values: Vec<&[i8]> = (0..db.levels())
                        .filter_map(|j| db.level(j).map(|f| f.values()))
                        .collect();
                    let levels = Levels::new(key.cells(), &values)?;
                    let full_up_to = if a.full { u64::MAX } else { a.full_up_to };
                    for k in 0..levels.len() {
                        let count = level_size(key.cells(), k);
                        let n = if count <= full_up_to {
                            count
                        } else {
                            a.sample.min(count)
                        };
                        let bar = progress_bar(k, n);
                        let t0 = Instant::now();
                        let LevelCheck { checked, wrong } =
                            rederive_level(&game, &levels, k, full_up_to, a.sample, &|n| {
                                bar.inc(n)
                            });
                        let secs = t0.elapsed().as_secs_f64();
                        bar.finish_and_clear();
                        let what = if checked == count { "all" } else { "sample of" };
                        match wrong {
                            None => {
                                rederived = k + 1;
                                let _ = writeln!(
                                    out,
                                    "ok       level {k:3} of [{key}]: {what} {checked} entries re-derived \
                                     in {secs:.2} s ({:.2} M entries/s)",
                                    checked as f64 / secs.max(1e-9) / 1e6
                                );
                            }
                            Some(Mismatch {
                                rank,
                                stored,
                                derived,
                            }) => {
                                let derived = derived
                                    .map_or("nothing (a successor is missing)".to_string(), |v| {
                                        v.to_string()
                                    });
                                problems += 1;
                                let _ = writeln!(
                                    out,
                                    "WRONG    level {k:3} of [{key}]: entry {rank} holds {stored} but its successors give {derived}"
                                );
                                first_bad = Some((k, "wrong"));
                                break;
                            }
                        }
                    }
                }
            }
        }
        if let Some((j, why)) = first_bad {
            for (&k, _) in levels.range(j + 1..).filter(|(_, f)| f.is_some()) {
                let _ = writeln!(
                    out,
                    "UNVERIFIED level {k:3} of {slug}: its checksum holds, but it was derived \
                     from level {j}, which is {why}; rebuild the levels from {j} up"
                );
            }
        }
        let checked = match rederived {
            0 => "no level re-derived".to_string(),
            n => format!("levels 0..={} re-derived and sound", n - 1),
        };
        let rest = match first_bad {
            Some((j, why)) => format!("; levels {j}..={top} not (level {j} is {why})"),
            None => String::new(),
        };
        let _ = writeln!(out, "summary  {slug}: {checked}{rest}");
    }
    if problems > 0 {
        return Err(DbCmdError::VerifyFailed(
            problems,
            a.dir.display().to_string(),
        ));
    }
    Ok(())
}

fn run_probe(a: &ProbeArgs) -> Result<(), CliError> {
    let (rules, pos) = resolve(&a.rules, &a.position)?;
    if rules.pie {
        return Err(crate::cmd::solve::pie_unused("db probe"));
    }
    crate::cmd::solve::check_db_dir(&a.db)?;
    let db = Database::open(&a.db, &rules).map_err(DbCmdError::from)?;
    if db.levels() == 0 {
        return Err(DbCmdError::Empty {
            dir: a.db.display().to_string(),
            rules: rules.db_key().to_string(),
            first: file_name(&rules.db_key(), 0),
        }
        .into());
    }
    let board = pos.board();
    let seeds = board.seeds();
    let value = db.value(&board).filter(|_| seeds <= db.max_seeds());
    db.check().map_err(DbCmdError::from)?;
    let value = value.ok_or_else(|| DbCmdError::NotCovered {
        seeds,
        max: db.max_seeds(),
        dir: a.db.display().to_string(),
    })?;
    let side = pos.to_move;
    let margin = solver::score::margin(&pos, value);
    let mut out = std::io::stdout().lock();
    writeln!(out, "position: {pos}")?;
    writeln!(
        out,
        "level:    {} ({seeds} seeds on the board)",
        Path::new(&file_name(&rules.db_key(), seeds)).display()
    )?;
    writeln!(
        out,
        "value:    {value:+} (future net gain of {}, the side to move)",
        side.letter()
    )?;
    writeln!(
        out,
        "margin:   {margin:+} (final South minus North: the store margin {:+} {} the future \
         gain {} of {}, the side to move)",
        pos.store_margin(),
        if side.sign() > 0 { "plus" } else { "minus" },
        format_args!("{value:+}"),
        side.letter()
    )?;
    Ok(())
}
