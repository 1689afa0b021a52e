//! `kalah db convert`: the level files of a database written again in another format.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use db_format::{parse_file_name, write_level_from, DbError, Format, LevelFile};

use crate::error::DbCmdError;
use crate::lock::BuildLock;

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

/// `kalah db convert`: every level file of `src` (in the range asked) written into `dst`
/// in the format asked, one level at a time: the source's checksum checked first (a
/// damaged file is not copied into a sound-looking one), then read as often as the writer
/// needs (twice for compact), then the file written opened and verified. A level already
/// in `dst` in that format and intact is skipped.
pub fn run(a: &ConvertArgs) -> Result<(), DbCmdError> {
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
            let (_, k) = parse_file_name(name)?;
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
