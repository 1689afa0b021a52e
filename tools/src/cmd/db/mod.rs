//! `kalah db`: build, merge, inspect, verify and probe endgame databases, one file a
//! subcommand.
//!
//! The generator is [`solver::gen`], the directory and shard files are
//! [`solver::dbfile`], the level files are the `db-format` crate, and building within a
//! memory budget is [`solver::build`]; these modules add the command line, progress
//! bars and the verifier's sampling. No subcommand's file imports another's: what they
//! share lives in the modules beside `cmd` ([`crate::setup`], [`crate::args`],
//! [`crate::progress`]) or in the libraries.

mod build;
mod convert;
mod info;
mod merge;
mod plan;
mod probe;
mod verify;

use clap::{Args, Subcommand};

pub use build::BuildArgs;
pub use convert::ConvertArgs;
pub use info::InfoArgs;
pub use merge::MergeArgs;
pub use plan::PlanArgs;
pub use probe::ProbeArgs;
pub use verify::VerifyArgs;

use crate::error::CliError;
use crate::setup::check_dir;

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
    /// Print the header of a level or shard file, or describe a database directory (rules,
    /// levels, formats, sizes, verification stamp)
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

/// Runs a `kalah db` subcommand. The directories a subcommand reads (`verify`'s DIR,
/// `convert`'s SRC, `merge --dir`) are checked first, as every `--db` is
/// ([`check_dir`]): a missing one is bad input (exit status 2) in the same words.
pub fn run(args: &DbArgs) -> Result<(), CliError> {
    let r = match &args.command {
        DbCommand::Build(a) => build::run(a),
        DbCommand::Merge(a) => {
            check_dir(&a.dir, "--dir ")?;
            merge::run(a)
        }
        DbCommand::Plan(a) => plan::run(a),
        DbCommand::Info(a) => info::run(a),
        DbCommand::Verify(a) => {
            check_dir(&a.dir, "")?;
            verify::run(a)
        }
        DbCommand::Convert(a) => {
            check_dir(&a.src, "")?;
            convert::run(a)
        }
        DbCommand::Probe(a) => return probe::run(a),
    };
    r.map_err(CliError::from)
}
