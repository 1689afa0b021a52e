//! `kalah db info`: the header of a level file or of a shard file, or a database
//! directory as a whole.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use db_format::{
    file_name, parse_file_name, DbError, Format, Identity, LevelFile, RulesKey, Stamp, STAMP_NAME,
};
use solver::build::{mib, split_list};

use crate::error::DbCmdError;

/// Arguments of `kalah db info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// A level file (*.kdb), a shard file, or the directory of a database (its rules,
    /// levels, formats, sizes and verification stamp)
    #[arg(value_name = "PATH")]
    pub file: PathBuf,
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

/// `kalah db info PATH`: a directory described as a database ([`describe_dir`]), a level
/// file's header field by field, or a shard file's ([`shard_info`]) where the file is not
/// a level file.
pub fn run(a: &InfoArgs) -> Result<(), DbCmdError> {
    if a.file.is_dir() {
        return describe_dir(&a.file);
    }
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

/// A level file of a directory, as `kalah db info DIR` sums it up: from its header and
/// its metadata only (no payload is read, as for a single file).
struct Level {
    k: u32,
    format: Format,
    entries: u64,
    bytes: u64,
    /// Whether the verification stamp vouches for the file in its present state.
    vouched: bool,
}

/// `kalah db info DIR`: each rule set's level files in `dir` (a database is one set; more
/// are listed, as `kalah db verify` would refuse them), with the levels present and
/// missing, the formats, the entries and bytes, and how many files the verification
/// stamp vouches for. Files named as levels but unreadable are listed after; other files
/// (shards, parts, the lock) are left out. Like the single file's, the description reads
/// headers only: `kalah db verify` checks the payloads.
fn describe_dir(dir: &Path) -> Result<(), DbCmdError> {
    let io = |source| DbError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut names: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let name = entry.map_err(io)?.file_name();
        if let Some(name) = name.to_str().filter(|n| parse_file_name(n).is_some()) {
            names.push(name.to_string());
        }
    }
    names.sort();
    let stamp = Stamp::load(dir);
    let mut sets: BTreeMap<String, (RulesKey, Vec<Level>)> = BTreeMap::new();
    let mut unreadable: Vec<String> = Vec::new();
    for name in &names {
        let path = dir.join(name);
        let file = match LevelFile::open_any(&path) {
            Ok(f) => f,
            Err(e) => {
                unreadable.push(e.to_string());
                continue;
            }
        };
        let h = file.header();
        let vouched = std::fs::metadata(&path)
            .is_ok_and(|m| stamp.vouches(name, &Identity::of(&m), h.checksum));
        let level = Level {
            k: file.seeds(),
            format: file.format(),
            entries: file.len(),
            bytes: h.file_len().unwrap_or(0),
            vouched,
        };
        let rules = file.rules();
        sets.entry(rules.slug())
            .or_insert_with(|| (rules, Vec::new()))
            .1
            .push(level);
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "directory:   {}", dir.display());
    if sets.is_empty() {
        let _ = writeln!(out, "levels:      none (no level files, *.kdb)");
    }
    let stamped = dir.join(STAMP_NAME).is_file();
    for (rules, mut levels) in sets.into_values() {
        levels.sort_by_key(|l| l.k);
        let ks: Vec<u32> = levels.iter().map(|l| l.k).collect();
        let top = ks.last().copied().unwrap_or(0);
        let missing: Vec<u32> = (0..=top).filter(|k| !ks.contains(k)).collect();
        let gaps = if missing.is_empty() {
            String::new()
        } else {
            format!("; missing {}", ranges(&missing))
        };
        let _ = writeln!(out, "rules:       {rules}");
        let _ = writeln!(
            out,
            "levels:      {} ({} level files{gaps})",
            ranges(&ks),
            ks.len()
        );
        let by_format: Vec<String> = [Format::Byte, Format::Compact]
            .into_iter()
            .filter_map(|format| {
                let of: Vec<u32> = levels
                    .iter()
                    .filter(|l| l.format == format)
                    .map(|l| l.k)
                    .collect();
                (!of.is_empty()).then(|| format!("{format} (levels {})", ranges(&of)))
            })
            .collect();
        let _ = writeln!(out, "format:      {}", by_format.join(", "));
        let entries: u64 = levels.iter().map(|l| l.entries).sum();
        let bytes: u64 = levels.iter().map(|l| l.bytes).sum();
        let _ = writeln!(out, "entries:     {entries}");
        let _ = writeln!(out, "bytes:       {bytes} ({} MiB)", mib(bytes));
        let vouched = levels.iter().filter(|l| l.vouched).count();
        if stamped {
            let _ = writeln!(
                out,
                "verified:    {STAMP_NAME} vouches for {vouched} of {} level files (the \
                 others' checksums are checked at their next open)",
                levels.len()
            );
        } else {
            let _ = writeln!(
                out,
                "verified:    no {STAMP_NAME} (each level file's checksum is checked at \
                 its first open)"
            );
        }
    }
    for why in &unreadable {
        let _ = writeln!(out, "unreadable:  {why}");
    }
    Ok(())
}

/// Levels as ranges, e.g. `0..=3, 5, 7..=9`, from an ascending list.
fn ranges(ks: &[u32]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &k in ks {
        match runs.last_mut() {
            Some((_, hi)) if hi.checked_add(1) == Some(k) => *hi = k,
            _ => runs.push((k, k)),
        }
    }
    let text: Vec<String> = runs
        .iter()
        .map(|&(lo, hi)| {
            if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}..={hi}")
            }
        })
        .collect();
    text.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_as_ranges() {
        assert_eq!(ranges(&[0, 1, 2, 3, 5, 7, 8, 9]), "0..=3, 5, 7..=9");
        assert_eq!(ranges(&[4]), "4");
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[u32::MAX - 1, u32::MAX]), "4294967294..=4294967295");
    }
}
