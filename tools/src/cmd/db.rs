//! `kalah db`: build, merge, inspect, verify and probe endgame databases.
//!
//! The generator is [`solver::gen`], the directory and shard files are
//! [`solver::dbfile`], the level files are the `db-format` crate; this module adds the
//! command line, progress bars, the memory check and the verifier's sampling.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, Subcommand};
use db_format::{file_name, level_size, write_level_from, DbError, Format, LevelFile, Ranker};
use rayon::prelude::*;
use solver::dbfile::{
    merge_shards, rules_from_key, shard_file_name, write_shard, Database, ShardSpec,
};
use solver::gen::build_memory;
use solver::verify::{rederive_level, LevelCheck, Levels, Mismatch};
use solver::{Game, Position, Probe, Rules};

use crate::args::{parse_threads, pie_unused, resolve, PositionArg, RulesArgs};
use crate::error::{CliError, DbCmdError};
use crate::lines::Lines;
use crate::lock::BuildLock;
use crate::parts::{self, mib, plan_level, split_list, Budget, Build, LevelPlan, Part, Why};
use crate::progress::level_bar;
use crate::setup::{check_db_dir, open_database};
use solver::budget::mem_available;

/// Arguments of `kalah db`.
#[derive(Args, Debug)]
pub struct DbArgs {
    #[command(subcommand)]
    pub command: DbCommand,
}

/// The database subcommands.
#[derive(Subcommand, Debug)]
pub enum DbCommand {
    /// Build levels 0..=K (skipping those already present and intact; a level larger than
    /// the memory budget in parts, resumably), or one shard of level K
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
    /// Write the level files of SRC into DST in another format (default compact), one
    /// level at a time, streaming; SRC = DST converts in place
    #[command(alias = "compact")]
    Convert(ConvertArgs),
}

/// Arguments of `kalah db convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Directory of the database to read (level files of either format)
    #[arg(value_name = "SRC")]
    pub src: PathBuf,
    /// Directory to write (created if missing; may be SRC)
    #[arg(value_name = "DST")]
    pub dst: PathBuf,
    /// Format of the files written: compact (format version 2, about half a byte an
    /// entry) or byte (version 1, one byte an entry)
    #[arg(long, value_name = "FORMAT", default_value_t = Format::Compact)]
    pub format: Format,
    /// Only levels from this one up
    #[arg(long, value_name = "K")]
    pub min_seeds: Option<u32>,
    /// Only levels up to this one
    #[arg(long, value_name = "K")]
    pub max_seeds: Option<u32>,
    /// Leave times and speeds out of the output (for reproducible transcripts)
    #[arg(long)]
    pub no_timings: bool,
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
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Build only part I of N (0 <= I < N) of level K into a shard file: the boards of its
    /// splits of the seeds between the two rows (`kalah db plan` lists them); levels
    /// below K must be in DIR. Join the shards with `kalah db merge`
    #[arg(long, value_name = "I/N", value_parser = ShardSpec::parse)]
    pub shard: Option<ShardSpec>,
    /// Memory budget in GiB: the most the process keeps resident, the lower levels' pages
    /// it reads through maps included. A level whose build does not fit half of it (less
    /// 256 MiB for the process) is built in parts, sets of splits of the seeds between
    /// the rows, one at a time, then merged; the plan is printed first. A killed build
    /// rerun resumes from the parts it finished [default: 11, or half the machine's
    /// memory if less]
    #[arg(long, value_name = "GIB", value_parser = parts::parse_gib, conflicts_with = "shard")]
    pub memory_gb: Option<f64>,
    /// For tests: build every level of 2 or more splits in N parts (at most its splits),
    /// whatever the budget
    #[arg(long, value_name = "N", hide = true, conflicts_with = "shard",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub parts: Option<u32>,
    /// For tests of resuming: kill the process (SIGKILL) once it has written N part files
    #[arg(long, value_name = "N", hide = true, conflicts_with = "shard")]
    pub kill_after_parts: Option<u32>,
    /// Leave times and speeds out of the output (for reproducible transcripts)
    #[arg(long)]
    pub no_timings: bool,
    /// Format of the level files written: compact (format version 2, about half a byte an
    /// entry) or byte (version 1, one byte an entry, the fastest to read). Shard files are
    /// one byte an entry either way
    #[arg(long, value_name = "FORMAT", default_value_t = Format::Compact)]
    pub format: Format,
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
    /// Format of the level file written (as for `kalah db build`)
    #[arg(long, value_name = "FORMAT", default_value_t = Format::Compact)]
    pub format: Format,
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
    /// Probe the positions on standard input, one a line (blank lines skipped), each
    /// answered by a JSON object a line: {"line", "position", "level", "seeds", "value",
    /// "margin"}, the value and margin as the single probe prints them, or {"line",
    /// "error"} for a line refused (the rest are still answered; the exit status is then
    /// 2). The rules are the switches', with the pit count of --pits or else of the first
    /// position
    #[arg(long, conflicts_with = "position")]
    pub batch: bool,
}

/// Runs a `kalah db` subcommand.
pub fn run(args: &DbArgs) -> Result<(), CliError> {
    let r = match &args.command {
        DbCommand::Build(a) => run_build(a),
        DbCommand::Merge(a) => run_merge(a),
        DbCommand::Plan(a) => run_plan(a),
        DbCommand::Info(a) => run_info(a),
        DbCommand::Verify(a) => run_verify(a),
        DbCommand::Convert(a) => run_convert(a),
        DbCommand::Probe(a) => return run_probe(a),
    };
    r.map_err(CliError::from)
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
    let pits = usize::from(key.pits);
    let budget = Budget::new(a.memory_gb, pool.current_num_threads());
    // The plan of each level to build: its parts (one: the whole level, or the shard).
    // From the top down: the top level needs the largest budget, and a refusal names it.
    let mut plans: BTreeMap<u32, LevelPlan> = BTreeMap::new();
    for &k in levels.iter().rev() {
        let present = a.out.join(file_name(&key, k)).exists();
        let plan = match a.shard {
            Some(s) => {
                let splits = s.splits(pits, k)?;
                LevelPlan {
                    k,
                    parts: vec![Part {
                        spec: s,
                        splits,
                        boards: db_format::shard::splits_size(pits, k, splits)?,
                        memory: build_memory(pits, k, Some(splits))?,
                    }],
                    boards: level_size(cells, k),
                    why: Why::Fits,
                }
            }
            None if present => continue,
            None => match plan_level(pits, k, rules.can_cycle(), budget, a.parts) {
                Err(DbCmdError::OverBudget { .. }) if beyond_machine(pits, k)? => {
                    return Err(DbCmdError::NoMemory {
                        what: format!("level {k}"),
                        need: mib(build_memory(pits, k, None)?),
                        avail: mib(mem_available().unwrap_or(0)),
                        advice: format!(
                            "build it in more shards (--shard I/N: each holds only its \
                             splits' boards, down to {} MiB for the largest split; `kalah db \
                             plan` gives every shard's memory) on machines with more memory, \
                             or build fewer seeds",
                            mib(build_memory(pits, k, Some(largest_split(pits, k)?))?)
                        ),
                    });
                }
                plan => plan?,
            },
        };
        plans.insert(k, plan);
    }
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
    // Memory: the boards being built at once (a level, a part of one, or the shard's
    // splits) and the rows' table; the lower levels are only mapped.
    let (top_k, top) = plans
        .values()
        .map(|p| (p.k, p.largest()))
        .max_by_key(|&(k, m)| (m, k))
        .unwrap_or((a.max_seeds, 0));
    // A level present is read at its file's size (a compact one is about half its
    // entries); one still to build is counted at one byte an entry.
    let lower_bytes: u64 = (0..a.max_seeds)
        .map(
            |k| match std::fs::metadata(a.out.join(file_name(&key, k))) {
                Ok(m) if m.is_file() => m.len(),
                _ => level_size(cells, k),
            },
        )
        .sum();
    let what = match (a.shard, plans.get(&top_k)) {
        (Some(s), _) => format!(
            "shard {}/{} of level {} (splits {})",
            s.index,
            s.count,
            a.max_seeds,
            split_list(s.splits(pits, a.max_seeds)?)
        ),
        (None, Some(p)) if p.in_parts() => format!("a part of level {top_k}"),
        (None, _) => format!("level {top_k}"),
    };
    if plans.is_empty() {
        let _ = writeln!(out, "memory: none, every level is present");
    } else {
        let _ = writeln!(
            out,
            "memory: {} MiB for {what} in memory, {} MiB of lower levels read through maps",
            mib(top),
            mib(lower_bytes)
        );
    }
    let parted: Vec<&LevelPlan> = plans.values().filter(|p| p.in_parts()).collect();
    if a.shard.is_none() {
        let _ = writeln!(
            out,
            "budget: {} MiB resident{}: a level or part of at most {} MiB at once, the lower \
             levels' pages released above {} MiB",
            mib(budget.bytes()),
            if a.memory_gb.is_some() {
                " (--memory-gb)"
            } else {
                ""
            },
            mib(budget.part_limit()),
            mib(budget.resident_limit())
        );
        if let (Some(first), Some(last)) = (parted.first(), parted.last()) {
            let why = match a.parts {
                Some(n) => format!("--parts {n}"),
                None => "the budget".to_string(),
            };
            let _ = writeln!(
                out,
                "plan: levels {}..={} in parts ({why})",
                first.k, last.k
            );
            for plan in &parted {
                parts::write_plan(&mut out, plan, budget, a.format);
            }
        }
    }
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
            } else if a.shard.is_some() {
                format!(
                    "build it in more shards (--shard I/N: each holds only its splits' boards, \
                     down to {} MiB for the largest split; `kalah db plan` gives every \
                     shard's memory), build fewer seeds or use a machine with more memory",
                    mib(smallest)
                )
            } else {
                format!(
                    "give a smaller --memory-gb, which builds a level in parts of at most \
                     half of it (down to {} MiB for the largest split), or build it in \
                     shards (--shard I/N) on machines with more memory",
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
    let mut build = Build {
        out: &a.out,
        rules,
        game: &game,
        pool: &pool,
        cap: a.shard.is_none().then(|| budget.resident_limit()),
        no_timings: a.no_timings,
        kill_after: a.kill_after_parts,
        parts_written: 0,
        format: a.format,
    };
    // The levels already present are checked before anything is built, a level a thread
    // of the build's pool: the check reads every byte of a file (and decodes every block
    // of a compact one), most of a resumed build's first minutes. A damaged level is
    // reported in level order, as the loop below meets it.
    let present: Vec<(u32, PathBuf)> = levels
        .iter()
        .map(|&k| (k, a.out.join(file_name(&key, k))))
        .filter(|(_, path)| path.exists())
        .collect();
    let mut checked: BTreeMap<u32, (PathBuf, Result<(), DbError>)> = pool.install(|| {
        present
            .into_par_iter()
            .map(|(k, path)| {
                let result = LevelFile::open(&path, &key, k).and_then(|file| file.verify());
                (k, (path, result))
            })
            .collect()
    });
    for &k in &levels {
        if let Some((path, result)) = checked.remove(&k) {
            result.map_err(|source| DbCmdError::Damaged {
                path: path.display().to_string(),
                source,
            })?;
            let _ = writeln!(out, "level {k:3}: present and verified, skipped");
            if a.shard.is_none() && parts::clear_leftovers(&a.out, &key, k)? {
                let _ = writeln!(
                    out,
                    "level {k:3}: the parts' directory a killed build left removed"
                );
            }
            continue;
        }
        let Some(plan) = plans.get(&k) else {
            continue;
        };
        if let Some(spec) = a.shard {
            let lower = Database::open_up_to(&a.out, &rules, k.saturating_sub(1))?;
            let built = build.boards(k, &lower, Some(plan.parts[0].splits))?;
            let written = write_shard(&a.out, &key, k, spec, &built.values)?;
            let name = written
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let n = built.values.len() as u64;
            if a.no_timings {
                let _ = writeln!(out, "level {k:3}: {n:>13} positions  {name}");
            } else {
                let _ = writeln!(
                    out,
                    "level {k:3}: {n:>13} positions  {:8.2} s  {:7.2} M positions/s  {name}",
                    built.secs,
                    n as f64 / built.secs.max(1e-9) / 1e6
                );
            }
            continue;
        }
        // The level file a killed build was writing: never complete (it is renamed when
        // it is), and a level built in parts would leave it behind.
        let torn = a.out.join(format!("{}.tmp", file_name(&key, k)));
        if torn.exists() {
            std::fs::remove_file(&torn).map_err(|source| DbError::Io {
                path: torn.clone(),
                source,
            })?;
            let _ = writeln!(
                out,
                "level {k:3}: the unfinished level file of a killed build removed"
            );
        }
        // A level whose parts' directory holds parts resumes them, whatever its plan.
        if plan.in_parts() || parts::resumable(&a.out, &key, k)? {
            build.level_in_parts(plan, budget, a.parts, &mut out)?;
        } else {
            let line = build.level_whole(k)?;
            let _ = writeln!(out, "{line}");
        }
    }
    Ok(())
}

fn run_merge(a: &MergeArgs) -> Result<(), DbCmdError> {
    let written = merge_shards(&a.dir, a.keep_shards, a.format)?;
    let mut out = std::io::stdout().lock();
    if written.is_empty() {
        let _ = writeln!(out, "no shard files in {}", a.dir.display());
    }
    for p in written {
        let _ = writeln!(out, "merged and verified {}", p.display());
    }
    Ok(())
}

/// Whether this machine cannot build level `k` (`pits` a side) in parts under any budget:
/// the budget that holds its largest split in half of it (less the process's share) is
/// more than the memory available. Never where the memory available is not known.
fn beyond_machine(pits: usize, k: u32) -> Result<bool, DbError> {
    let split = build_memory(pits, k, Some(largest_split(pits, k)?))?;
    let least = split.saturating_mul(2).saturating_add(parts::PROCESS);
    Ok(mem_available().is_some_and(|avail| least > avail))
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
    let mut head = Vec::new();
    db_format::open_regular(path)
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
    let bytes = h.file_len().unwrap_or(0);
    let _ = writeln!(out, "bytes:       {bytes}");
    match h.blocks {
        None => {
            let _ = writeln!(out, "format:      byte (one byte an entry)");
        }
        Some(p) => {
            let _ = writeln!(
                out,
                "format:      compact (Huffman-coded deltas in blocks of {} entries in \
                 slots of {} bytes; {} bytes of continuations; {:.4} bytes an entry)",
                1u32 << p.block_shift,
                1u32 << p.slot_shift,
                p.overflow_len,
                bytes as f64 / h.entry_count as f64
            );
        }
    }
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

/// `kalah db convert`: every level file of `src` (in the range asked) written into `dst`
/// in the format asked, one level at a time: the source's checksum checked first (a
/// damaged file is not copied into a sound-looking one), then read as often as the writer
/// needs (twice for compact), then the file written opened and verified. A level already
/// in `dst` in that format and intact is skipped.
fn run_convert(a: &ConvertArgs) -> Result<(), DbCmdError> {
    if a.dst.exists() && !a.dst.is_dir() {
        return Err(DbCmdError::NotADirectory(a.dst.display().to_string()));
    }
    std::fs::create_dir_all(&a.dst).map_err(|source| DbError::Io {
        path: a.dst.clone(),
        source,
    })?;
    let _lock = BuildLock::take(&a.dst, ".lock")?;
    let mut files: Vec<(u32, PathBuf)> = std::fs::read_dir(&a.src)
        .map_err(|source| DbError::Io {
            path: a.src.clone(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let (_, k) = parse_level_name(name)?;
            Some((k, p))
        })
        .filter(|(k, _)| (a.min_seeds.unwrap_or(0)..=a.max_seeds.unwrap_or(u32::MAX)).contains(k))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(DbCmdError::NoLevels(a.src.display().to_string()));
    }
    let mut out = std::io::stdout().lock();
    for (k, src) in files {
        let Some(name) = src.file_name() else {
            continue;
        };
        let dst = a.dst.join(name);
        if let Ok(f) = LevelFile::open_any(&dst) {
            if f.format() == a.format && f.verify().is_ok() {
                let _ = writeln!(
                    out,
                    "level {k:3}: present as {} and verified, skipped",
                    a.format
                );
                continue;
            }
        }
        let damaged = |source| DbCmdError::Damaged {
            path: src.display().to_string(),
            source,
        };
        let t0 = Instant::now();
        let from = LevelFile::open_any(&src).map_err(damaged)?;
        from.verify().map_err(damaged)?;
        let mut source = &from;
        write_level_from(&dst, &from.rules(), from.seeds(), &mut source, a.format)?;
        let to = LevelFile::open(&dst, &from.rules(), from.seeds())?;
        to.verify()?;
        let secs = t0.elapsed().as_secs_f64();
        let (n, before) = (from.len(), from.header().file_len().unwrap_or(0));
        let after = to.header().file_len().unwrap_or(0);
        let name = name.to_string_lossy();
        let sizes = format!(
            "{n:>13} entries  {before:>12} -> {after:>12} bytes ({:.4} bytes an entry)",
            after as f64 / n as f64
        );
        if a.no_timings {
            let _ = writeln!(out, "level {k:3}: {sizes}  {name}");
        } else {
            let _ = writeln!(
                out,
                "level {k:3}: {sizes}  {secs:8.2} s  {:7.2} M entries/s  {name}",
                n as f64 / secs.max(1e-9) / 1e6
            );
        }
    }
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
                    // Files of either format: a compact level decodes a block a read.
                    let entries = db.entries();
                    let levels = Levels::from_entries(key.cells(), &entries)?;
                    let full_up_to = if a.full { u64::MAX } else { a.full_up_to };
                    for k in 0..levels.len() {
                        let count = level_size(key.cells(), k);
                        let n = if count <= full_up_to {
                            count
                        } else {
                            a.sample.min(count)
                        };
                        let bar = level_bar(k, n);
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

/// What `kalah db probe` says of a position, as text or, with `--batch`, as a JSON
/// object.
struct Answer {
    pos: Position,
    /// The level file the value was read from.
    level: String,
    /// Seeds on the board: the level.
    seeds: u32,
    /// The future net gain of the side to move.
    value: i32,
    /// The final margin, South minus North: the stores' margin and the value, from
    /// South's side.
    margin: i32,
}

/// The database of `rules` in `dir`, refused when it holds no level of them.
fn open_for_probe(dir: &Path, rules: &Rules) -> Result<Database, CliError> {
    let db = open_database(dir, rules)?;
    if db.levels() == 0 {
        return Err(DbCmdError::Empty {
            dir: dir.display().to_string(),
            rules: rules.db_key().to_string(),
            first: file_name(&rules.db_key(), 0),
        }
        .into());
    }
    Ok(db)
}

/// The value of `pos` in `db` (the database of `rules` in `dir`): `NotCovered` when the
/// position has more seeds on the board than its levels hold; a damaged value is the
/// file's error, never a value.
fn probe(db: &Database, rules: &Rules, dir: &Path, pos: Position) -> Result<Answer, DbCmdError> {
    let board = pos.board();
    let seeds = board.seeds();
    let value = db.value(&board).filter(|_| seeds <= db.max_seeds());
    db.check()?;
    let value = value.ok_or_else(|| DbCmdError::NotCovered {
        seeds,
        max: db.max_seeds(),
        dir: dir.display().to_string(),
    })?;
    Ok(Answer {
        pos,
        level: file_name(&rules.db_key(), seeds),
        seeds,
        value,
        margin: solver::score::margin(&pos, value),
    })
}

fn run_probe(a: &ProbeArgs) -> Result<(), CliError> {
    if a.batch {
        return run_batch(a);
    }
    let (rules, pos) = resolve(&a.rules, &a.position)?;
    if rules.pie {
        return Err(pie_unused("db probe"));
    }
    let db = open_for_probe(&a.db, &rules)?;
    let Answer {
        level,
        seeds,
        value,
        margin,
        ..
    } = probe(&db, &rules, &a.db, pos)?;
    let side = pos.to_move;
    let mut out = std::io::stdout().lock();
    writeln!(out, "position: {pos}")?;
    writeln!(out, "level:    {level} ({seeds} seeds on the board)")?;
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

/// The longest line `--batch` reads, in bytes: a position of 6 pits a side takes less
/// than 100.
const MAX_LINE: usize = 4096;

/// `kalah db probe --batch`: a position a line on standard input, a JSON object a line on
/// standard output, in the same order. The database is opened once, for the rules of the
/// first position read (its pit count, unless `--pits` gives one), and every later
/// position must be of those rules. A line that is refused gets `{"line", "error"}` and
/// the others are still answered; the exit status is then 2. A damaged database or an
/// output that cannot be written stops the run.
fn run_batch(a: &ProbeArgs) -> Result<(), CliError> {
    if a.rules.pie {
        return Err(pie_unused("db probe"));
    }
    if a.rules.pits.is_some() {
        a.rules.rules()?;
    }
    check_db_dir(&a.db)?;
    let mut lines = Lines::new(std::io::stdin().lock(), MAX_LINE);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut open: Option<(Rules, Database)> = None;
    let (mut asked, mut refused) = (0u64, 0u64);
    loop {
        let line = lines.next_line().map_err(|e| {
            CliError::BadOption(format!("--batch: cannot read standard input: {e}"))
        })?;
        let Some((number, line)) = line else { break };
        let answer = match line.map(str::trim) {
            Ok("") => continue,
            Ok(text) => batch_answer(a, &mut open, text)?,
            Err(why) => Err(why),
        };
        asked += 1;
        // Written field by field: the keys in the order of the help, the line first.
        let text = |s: &str| serde_json::Value::from(s);
        match answer {
            Ok(x) => writeln!(
                out,
                r#"{{"line":{number},"position":{},"level":{},"seeds":{},"value":{},"margin":{}}}"#,
                text(&x.pos.to_string()),
                text(&x.level),
                x.seeds,
                x.value,
                x.margin
            )?,
            Err(why) => {
                refused += 1;
                writeln!(out, r#"{{"line":{number},"error":{}}}"#, text(&why))?;
            }
        }
    }
    out.flush()?;
    if refused > 0 {
        return Err(CliError::BadOption(format!(
            "--batch: {refused} of {asked} positions refused (the error objects of their \
             lines say why)"
        )));
    }
    Ok(())
}

/// The answer to one position `text` of a batch, or why the line is refused (`Ok(Err)`):
/// a position that does not parse, does not fit the rules, or lies above the database.
/// `open` is the database, opened at the first position; `Err` stops the batch (the
/// database cannot be opened, or a value read is damaged).
fn batch_answer(
    a: &ProbeArgs,
    open: &mut Option<(Rules, Database)>,
    text: &str,
) -> Result<Result<Answer, String>, CliError> {
    let position = match text.parse::<Position>() {
        Ok(p) => PositionArg { position: Some(p) },
        Err(e) => return Ok(Err(e.to_string())),
    };
    let (rules, pos) = match resolve(&a.rules, &position) {
        Ok(found) => found,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let (opened, db) = match open {
        Some(found) => found,
        None => open.insert((rules, open_for_probe(&a.db, &rules)?)),
    };
    if rules.db_key() != opened.db_key() {
        return Ok(Err(format!(
            "{} pits a side, but the batch probes the database of {} pits (that of \
             its first position, or of --pits)",
            rules.pits(),
            opened.pits()
        )));
    }
    match probe(db, opened, &a.db, pos) {
        Ok(found) => Ok(Ok(found)),
        Err(e @ DbCmdError::NotCovered { .. }) => Ok(Err(e.to_string())),
        Err(e) => Err(e.into()),
    }
}
