//! `kalah db verify`: every level file of a directory checked, then re-derived from the
//! levels below it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use db_format::{file_name, level_size, parse_file_name, DbError, LevelFile};
use solver::dbfile::{rules_from_key, Database};
use solver::verify::{rederive_level, LevelCheck, Levels, Mismatch};
use solver::Game;

use crate::error::DbCmdError;
use crate::progress::level_bar;

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

/// `kalah db verify`: exit 0 only when every level file in the directory is sound (header,
/// name, checksum, value range), the levels are contiguous from 0 and of one rule set, and
/// every level re-derives from the ones below it. A level above a damaged, missing or
/// wrong one is reported as unverified (its values were derived from bad ones), not as
/// wrong, and the summary says which levels were checked and which not, and why.
pub fn run(a: &VerifyArgs) -> Result<(), DbCmdError> {
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
        let Some((slug, k)) = parse_file_name(&name) else {
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
