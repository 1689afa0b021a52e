//! `kalah db plan`: the splits, boards and memory of each shard of a level.

use std::io::Write;

use clap::Args;
use db_format::Ranker;
use solver::build::{mib, split_list};
use solver::dbfile::ShardSpec;
use solver::gen::build_memory;

use crate::args::RulesArgs;
use crate::error::DbCmdError;

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

/// `kalah db plan`: what `kalah db build --shard I/N` builds for each `I`, and the memory
/// of each (as its `memory:` line gives it).
pub fn run(a: &PlanArgs) -> Result<(), DbCmdError> {
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
