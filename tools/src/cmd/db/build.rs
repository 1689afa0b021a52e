//! `kalah db build`: levels 0..=K within a memory budget (a level too large in parts,
//! resumably), or one shard of level K.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use db_format::{file_name, level_size, DbError, Format, Ranker};
use solver::build::{
    check_memory, clear_leftovers, mib, parse_gib, plan_levels, remove_torn, resumable, split_list,
    write_plan, Budget, Build, LevelPlan,
};
use solver::dbfile::{shard_file_name, ShardSpec};
use solver::Game;

use crate::args::{parse_threads, RulesArgs};
use crate::error::DbCmdError;
use crate::lock::BuildLock;
use crate::progress::LevelBars;

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
    #[arg(long, value_name = "GIB", value_parser = parse_gib, conflicts_with = "shard")]
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

/// `kalah db build`: the options checked, then (in [`solver::build`]) every level missing
/// planned within the budget and refused before anything is written if it cannot fit;
/// the output directory made (and removed again if the build fails leaving it empty) and
/// locked; the levels present verified, the others built whole or in parts, or the one
/// shard asked. A line a level on stdout, a bar a level on stderr.
pub fn run(a: &BuildArgs) -> Result<(), DbCmdError> {
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
    let mut made = MadeDirs::make(&a.out)?;
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
    let plans = plan_levels(
        &a.out,
        &key,
        &levels,
        a.shard,
        rules.can_cycle(),
        budget,
        a.parts,
    )?;
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
                write_plan(&mut out, plan, budget, a.format);
            }
        }
    }
    check_memory(pits, a.max_seeds, a.shard.is_some(), top, what)?;
    // For tests of resuming: the process ends as `kill -9` would end it, once it has
    // written the parts asked.
    let on_part = a.kill_after_parts.map(|after| {
        move |written: u32| {
            if written == after {
                // SAFETY: kill has no memory-safety preconditions; it ends this process
                // as `kill -9` would, to test what a rerun finds.
                unsafe {
                    libc::kill(libc::getpid(), libc::SIGKILL);
                }
            }
        }
    });
    let mut build = Build {
        out: &a.out,
        rules,
        game: &game,
        pool: &pool,
        cap: a.shard.is_none().then(|| budget.resident_limit()),
        no_timings: a.no_timings,
        progress: &LevelBars,
        on_part: on_part.as_ref().map(|f| f as &(dyn Fn(u32) + Sync)),
        parts_written: 0,
        format: a.format,
    };
    // The levels already present are checked before anything is built. A damaged level
    // is reported in level order, as the loop below meets it.
    let mut checked = build.check_present(&levels);
    for &k in &levels {
        if let Some((path, result)) = checked.remove(&k) {
            result.map_err(|source| DbCmdError::Damaged {
                path: path.display().to_string(),
                source,
            })?;
            let _ = writeln!(out, "level {k:3}: present and verified, skipped");
            if a.shard.is_none() && clear_leftovers(&a.out, &key, k)? {
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
            let line = build.shard(k, spec, plan.parts[0].splits)?;
            let _ = writeln!(out, "{line}");
            continue;
        }
        if remove_torn(&a.out, &key, k)? {
            let _ = writeln!(
                out,
                "level {k:3}: the unfinished level file of a killed build removed"
            );
        }
        // A level whose parts' directory holds parts resumes them, whatever its plan.
        if plan.in_parts() || resumable(&a.out, &key, k)? {
            build.level_in_parts(plan, budget, a.parts, &mut out)?;
        } else {
            let line = build.level_whole(k)?;
            let _ = writeln!(out, "{line}");
        }
    }
    made.keep();
    Ok(())
}

/// The directories `kalah db build` made for `--out` (it and the missing ones above it,
/// the deepest first): removed again when the build fails and leaves them empty, so that
/// a refused build (memory, budget, disk, a lock held) leaves no trace. A directory that
/// holds anything (a level built before the failure, a file of someone else's) is kept,
/// and so are those above it: only empty directories are removed.
struct MadeDirs {
    dirs: Vec<PathBuf>,
}

impl MadeDirs {
    /// Makes `dir` and the missing directories above it.
    fn make(dir: &Path) -> Result<MadeDirs, DbError> {
        let mut dirs = Vec::new();
        let mut at = Some(dir);
        while let Some(d) = at.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
            dirs.push(d.to_path_buf());
            at = d.parent();
        }
        std::fs::create_dir_all(dir).map_err(|source| DbError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(MadeDirs { dirs })
    }

    /// The build succeeded: its directories stay.
    fn keep(&mut self) {
        self.dirs.clear();
    }
}

impl Drop for MadeDirs {
    fn drop(&mut self) {
        for d in &self.dirs {
            // Fails, and stops, at the first that is not empty.
            if std::fs::remove_dir(d).is_err() {
                break;
            }
        }
    }
}
