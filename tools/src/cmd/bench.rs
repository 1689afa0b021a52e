//! `kalah bench`: solve a fixed list of positions, check each value, and print nodes and
//! nodes per second.
//!
//! The total node count is a behaviour signature of the search: with the same table size
//! it changes only when the search changes (move ordering, table replacement, pruning).
//! `results/bench.md` records it; `scripts/bench.sh` prints a table to compare commits.

use std::time::Instant;

use clap::Args;
use serde_json::json;
use solver::notation::play_record;
use solver::{analysis, Capture, Game, Position, RulesBuilder, Solver};

use crate::error::CliError;
use crate::progress::ListBar;

/// One benchmark position: the position `record` reaches from the start of
/// Kalah(`pits`,`seeds`) under `capture` (other switches default).
pub struct BenchPosition {
    pub name: &'static str,
    pub pits: usize,
    pub seeds: usize,
    pub capture: Capture,
    /// Moves from the start position (empty: the start position itself).
    pub record: &'static str,
    /// South's final store minus North's with perfect play.
    pub expected: i32,
}

const fn case(
    name: &'static str,
    pits: usize,
    seeds: usize,
    capture: Capture,
    record: &'static str,
    expected: i32,
) -> BenchPosition {
    BenchPosition {
        name,
        pits,
        seeds,
        capture,
        record,
        expected,
    }
}

/// The positions, each 0.1 to 3 s on the machine of `results/bench.md`.
///
/// How the expected values were checked, besides the solve that found them:
/// the `empty` start positions are published (Irving, Donkers & Uiterwijk 2000, see
/// `tools/data/published.txt`); every other value was reproduced by two other search
/// paths, `kalah solve --max-depth 0 --tt-mb 16` (no deepening, a small table) and the
/// best move of `kalah moves` (each root move solved separately).
pub const POSITIONS: &[BenchPosition] = &[
    case("4x4-empty-start", 4, 4, Capture::Empty, "", 2),
    case("4x5-empty-start", 4, 5, Capture::Empty, "", 2),
    case("6x3-empty-start", 6, 3, Capture::Empty, "", 2),
    case("4x4-standard-start", 4, 4, Capture::Standard, "", 2),
    case(
        "6x4-standard-a",
        6,
        4,
        Capture::Standard,
        "A2 B5 A5 B2+ B4 A6 B4 A1+ A6+ A2 B5 A3 B2 A2x2 B6 A4",
        -4,
    ),
    case(
        "6x4-standard-b",
        6,
        4,
        Capture::Standard,
        "A5 B3+ B4 A6 B1+ B5 A2 B1 A3 B1 A5 B4 A1+ A5 B6 A1",
        2,
    ),
    case(
        "6x4-standard-c",
        6,
        4,
        Capture::Standard,
        "A5 B3+ B4 A6 B1+ B5 A2 B1 A3 B1 A5 B4 A1+ A5 B6 A1 B2 A1",
        -8,
    ),
    case(
        "6x4-empty-a",
        6,
        4,
        Capture::Empty,
        "A2 B5 A1 B3+ B1 A5 B4 A4 B6 A4 B2 A1x5",
        -4,
    ),
    case(
        "6x4-empty-b",
        6,
        4,
        Capture::Empty,
        "A1 B1 A2+ A5 B2 A4 B3 A5 B2x2 A1 B4 A4",
        6,
    ),
    case(
        "6x5-standard-a",
        6,
        5,
        Capture::Standard,
        "A2+ A6 B1+ B4 A1+ A5 B4 A6 B5 A2 B1x11 A6+ A1 B3 A4 B5+ B1 A5",
        -22,
    ),
    case(
        "6x5-standard-b",
        6,
        5,
        Capture::Standard,
        "A1 B1 A2 B3 A2 B4 A3 B5 A2 B6 A1 B2 A4x4 B5+ B4+ B6 A6x2 B4 A1 B1+ B4 A5x5",
        12,
    ),
    case(
        "6x5-empty-a",
        6,
        5,
        Capture::Empty,
        "A2+ A6 B1+ B4 A1+ A5 B4 A6 B5 A2 B1x11 A6+ A1x1 B3 A4 B5+ B1 A5",
        -20,
    ),
];

/// Arguments of `kalah bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Transposition table size in MiB (a fresh table for each position). Node counts
    /// are comparable only at the same size
    #[arg(long, value_name = "MB", default_value_t = 256,
          value_parser = crate::args::parse_tt_mb)]
    pub tt_mb: usize,
    /// Deepest depth-limited iteration before the exact search
    #[arg(long, value_name = "D", default_value_t = solver::search::DEFAULT_ID_DEPTH)]
    pub max_depth: u8,
    /// Only the positions whose names contain this text
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// One JSON object per position on stdout instead of the table
    #[arg(long)]
    pub json: bool,
    /// Leave out times and speeds, so that the output depends only on the search
    #[arg(long)]
    pub no_times: bool,
    /// No progress display on stderr
    #[arg(long)]
    pub quiet: bool,
}

/// The position a bench entry names.
pub fn position(b: &BenchPosition) -> Result<(Game, Position), CliError> {
    let mut rules = RulesBuilder::new(b.pits, b.seeds);
    rules.capture = Some(b.capture);
    let rules = rules.build()?;
    let game = Game::new(rules);
    let start = Position::start(&rules);
    let pos = play_record(&game, &start, b.record)?
        .last()
        .map_or(start, |p| p.after);
    Ok((game, pos))
}

/// `kalah bench`.
pub fn run(a: &BenchArgs) -> Result<(), CliError> {
    // Each position gets a fresh table of at most --tt-mb: checked once, before the first,
    // at the size asked.
    solver::budget::check_table_mb(a.tt_mb, a.tt_mb as u64).map_err(crate::setup::refused)?;
    let chosen: Vec<&BenchPosition> = POSITIONS
        .iter()
        .filter(|b| match &a.filter {
            Some(f) => b.name.contains(f.as_str()),
            None => true,
        })
        .collect();
    let mut bar = ListBar::new(a.quiet, chosen.len());
    if !a.json {
        let mut head = format!(
            "{:<20} {:>6} {:>9} {:>13}",
            "position", "value", "expected", "nodes"
        );
        if !a.no_times {
            head += &format!(" {:>9} {:>12}", "time (s)", "nodes/s");
        }
        bar.line(&head)?;
    }
    let (mut nodes_total, mut seconds_total) = (0u64, 0f64);
    let mut wrong = Vec::new();
    for b in &chosen {
        bar.message(b.name.to_string());
        let (game, pos) = position(b)?;
        let mut solver = Solver::new(&game, a.tt_mb)?;
        let start = Instant::now();
        let solution = analysis::solve(&mut solver, &pos, a.max_depth, |_| {})?;
        let seconds = start.elapsed().as_secs_f64();
        let nps = solver.nodes as f64 / seconds.max(1e-9);
        nodes_total += solver.nodes;
        seconds_total += seconds;
        if solution.margin != b.expected {
            wrong.push(b.name);
        }
        if a.json {
            let mut obj = json!({
                "name": b.name,
                "rules": game.rules().to_string(),
                "position": pos.to_string(),
                "value": solution.margin,
                "expected": b.expected,
                "nodes": solver.nodes,
            });
            if !a.no_times {
                obj["seconds"] = json!(seconds);
                obj["nodes_per_second"] = json!(nps);
            }
            bar.line(&obj.to_string())?;
        } else {
            let mut row = format!(
                "{:<20} {:>6} {:>9} {:>13}",
                b.name,
                format!("{:+}", solution.margin),
                format!("{:+}", b.expected),
                solver.nodes
            );
            if !a.no_times {
                row += &format!(" {seconds:>9.3} {nps:>12.0}");
            }
            bar.line(&row)?;
        }
        bar.step();
    }
    bar.finish();
    if !a.json {
        let mut row = format!("{:<20} {:>6} {:>9} {:>13}", "total", "", "", nodes_total);
        if !a.no_times {
            row += &format!(
                " {seconds_total:>9.3} {:>12.0}",
                nodes_total as f64 / seconds_total.max(1e-9)
            );
        }
        bar.line(&row)?;
    }
    CliError::unless_mismatched("wrong value for", &wrong)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_record_is_legal_and_names_are_unique() {
        let mut names = std::collections::HashSet::new();
        for b in POSITIONS {
            assert!(names.insert(b.name), "{}", b.name);
            let (game, pos) = position(b).unwrap();
            assert!(!pos.is_over(&game), "{}", b.name);
        }
    }
}
