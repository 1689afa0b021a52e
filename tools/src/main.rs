//! `kalah`: play, show and solve Kalah(m,n) and its variants.
//!
//! This file only parses the command line and dispatches: each subcommand lives in its
//! own `cmd_*` module with one `run` function returning [`error::CliError`].

mod args;
mod cmd_bench;
mod cmd_db;
mod cmd_play;
mod cmd_prove;
mod cmd_solve;
mod cmd_verify;
mod error;
mod view;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::error::CliError;

/// Kalah (mancala) perfect-play solver: play and check game records, show positions, and
/// solve Kalah(m,n) and its rule variants exactly.
#[derive(Parser, Debug)]
#[command(name = "kalah", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play a game record move by move, printing each move annotated and the board after it
    Play(cmd_play::PlayArgs),
    /// Show a position, whose turn it is and the legal moves (annotated: + free move,
    /// xN capture, # ends the game)
    Show(cmd_play::ShowArgs),
    /// Solve a position exactly: its final margin (South minus North), best move,
    /// principal variation and, with --pie, the pie-rule analysis
    Solve(cmd_solve::SolveArgs),
    /// The final margin (South minus North) after each legal move, best first
    Moves(cmd_solve::MovesArgs),
    /// Endgame databases: build (in parallel, sharded across machines), merge, info,
    /// verify, probe
    Db(cmd_db::DbArgs),
    /// Solve the published Kalah(m,n) start positions and compare with the published values
    Verify(cmd_verify::VerifyArgs),
    /// Solve a fixed list of positions, check their values, print nodes and nodes/s
    Bench(cmd_bench::BenchArgs),
    /// Solve a position exactly through a proof directory: resumable after a kill, shared
    /// by many workers, with --status and --check
    Prove(cmd_prove::ProveArgs),
}

fn run(cli: &Cli) -> Result<(), CliError> {
    match &cli.command {
        Command::Play(a) => cmd_play::run_play(a),
        Command::Show(a) => cmd_play::run_show(a),
        Command::Db(a) => cmd_db::run(a),
        Command::Solve(a) => cmd_solve::run_solve(a),
        Command::Moves(a) => cmd_solve::run_moves(a),
        Command::Verify(a) => cmd_verify::run(a),
        Command::Bench(a) => cmd_bench::run(a),
        Command::Prove(a) => cmd_prove::run(a),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
