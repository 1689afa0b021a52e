//! `kalah`: play, show and solve Kalah(m,n) and its variants.
//!
//! This file only parses the command line and dispatches: each subcommand lives in its
//! own `cmd::*` module with one `run` function returning [`error::CliError`].

mod args;
mod cmd;
mod draw;
mod error;
mod lines;
mod lock;
mod progress;
mod serve;
mod setup;
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
    Play(cmd::play::PlayArgs),
    /// Show a position, whose turn it is and the legal moves (annotated: + free move,
    /// xN capture, # ends the game)
    Show(cmd::play::ShowArgs),
    /// Solve a position exactly: its final margin (South minus North), best move,
    /// principal variation and, with --pie, the pie-rule analysis
    Solve(cmd::solve::SolveArgs),
    /// The final margin (South minus North) after each legal move, best first
    Moves(cmd::solve::MovesArgs),
    /// Endgame databases: build (in parallel, sharded across machines), merge, info,
    /// verify, probe
    Db(cmd::db::DbArgs),
    /// Solve the published Kalah(m,n) start positions and compare with the published values
    Verify(cmd::verify::VerifyArgs),
    /// Solve a fixed list of positions, check their values, print nodes and nodes/s
    Bench(cmd::bench::BenchArgs),
    /// The perfect-play explorer in the browser, and its JSON API, on a local HTTP server
    Serve(cmd::serve::ServeArgs),
    /// Solve a position through a proof directory: resumable, shared by many workers
    Prove(cmd::prove::ProveArgs),
    /// Estimate what a proof of one question would cost, from random walks down its proof
    /// tree, each leaf searched as a proof's unit
    Estimate(cmd::estimate::EstimateArgs),
    /// Fair starts: every start within K moved seeds of the start whose final margin is 0
    /// (or within -D..=D), resumable from a results file. --threads starts are settled at
    /// once, each by a search of its own on one thread, all sharing one table
    Fair(cmd::fair::FairArgs),
}

fn run(cli: &Cli) -> Result<(), CliError> {
    match &cli.command {
        Command::Play(a) => cmd::play::run_play(a),
        Command::Show(a) => cmd::play::run_show(a),
        Command::Db(a) => cmd::db::run(a),
        Command::Solve(a) => cmd::solve::run_solve(a),
        Command::Moves(a) => cmd::solve::run_moves(a),
        Command::Verify(a) => cmd::verify::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Serve(a) => cmd::serve::run(a),
        Command::Prove(a) => cmd::prove::run(a),
        Command::Estimate(a) => cmd::estimate::run(a),
        Command::Fair(a) => cmd::fair::run(a),
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
