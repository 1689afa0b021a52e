//! `kalah db merge`: complete sets of shard files joined into level files.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use db_format::Format;
use solver::dbfile::merge_shards;

use crate::error::DbCmdError;

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

/// `kalah db merge`: every complete set of shard files in the directory joined into its
/// level file ([`merge_shards`] checks each shard against the plan and verifies the level
/// written), a line a level.
pub fn run(a: &MergeArgs) -> Result<(), DbCmdError> {
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
