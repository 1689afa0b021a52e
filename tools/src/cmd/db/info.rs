//! `kalah db info`: the header of a level file or of a shard file.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use db_format::{file_name, DbError, LevelFile};
use solver::build::split_list;

use crate::error::DbCmdError;

/// Arguments of `kalah db info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// A level file (*.kdb)
    #[arg(value_name = "FILE")]
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

pub fn run(a: &InfoArgs) -> Result<(), DbCmdError> {
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
