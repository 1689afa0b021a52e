//! `kalah verify`: solve every published Kalah(m,n) start position and compare our value
//! with the published one.
//!
//! The cases live in `tools/data/published.txt` (embedded at compile time), one line per
//! case under the `# Source:` line that publishes it. Each value is a final margin, South
//! (the first player) minus North, stores included. Any disagreement makes the command
//! fail with exit status 1.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use serde_json::json;
use solver::engine::{Engine, Settings};
use solver::plan::{Backing, Plan, Request};
use solver::search::SolveError;
use solver::{analysis, Capture, EndRule, Position, Rules, RulesBuilder};

use crate::args::{all_cores, parse_endgame, parse_threads, parse_tt_mb};
use crate::error::CliError;
use crate::progress::ListBar;
use crate::setup::{checked, open_database, plan_error, refused};
use crate::view::{depth_name, signed};
use solver::budget::EndgameChoice;

/// The published cases, `pits seeds capture value cost` a line.
const PUBLISHED: &str = include_str!("../../data/published.txt");

/// How long a case takes on the reference machine (see the data file's header).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cost {
    /// Under 10 s: run by `--quick`.
    Quick,
    /// Under 10 minutes: run by default.
    Long,
    /// More than 10 minutes, or not measured: run only with `--all` or `--cases`.
    Huge,
}

impl Cost {
    fn name(self) -> &'static str {
        match self {
            Cost::Quick => "quick",
            Cost::Long => "long",
            Cost::Huge => "huge",
        }
    }
}

/// One published start-position value.
#[derive(Clone, Debug)]
pub struct Case {
    pub pits: usize,
    pub seeds: usize,
    pub capture: Capture,
    /// South's final store minus North's, as published.
    pub published: i32,
    pub cost: Cost,
    /// The `# Source:` line above the case, without the prefix.
    pub source: String,
}

impl Case {
    /// The case's name for `--cases`, e.g. `6x4-standard`.
    pub fn id(&self) -> String {
        format!("{}x{}-{}", self.pits, self.seeds, self.capture)
    }

    /// The rules: the case's board and capture rule, every other switch at its default
    /// (the end rule included: either row empty, each side keeps its own seeds).
    pub fn rules(&self) -> Result<Rules, CliError> {
        let mut b = RulesBuilder::new(self.pits, self.seeds);
        b.capture = Some(self.capture);
        b.end = EndRule::Either;
        Ok(b.build()?)
    }
}

/// Parse a published-values file; `what` names it in error messages.
pub fn parse(text: &str, what: &str) -> Result<Vec<Case>, CliError> {
    let bad = |n: usize, why: &str| CliError::Data {
        what: what.to_string(),
        line: n + 1,
        why: why.to_string(),
    };
    let mut source: Option<String> = None;
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(s) = line.strip_prefix("# Source:") {
            source = Some(s.trim().to_string());
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let [pits, seeds, capture, value, cost] = f[..] else {
            return Err(bad(n, "expected 'pits seeds capture value cost'"));
        };
        let source = source
            .clone()
            .ok_or_else(|| bad(n, "no '# Source:' line above this case"))?;
        cases.push(Case {
            pits: pits.parse().map_err(|_| bad(n, "bad pit count"))?,
            seeds: seeds.parse().map_err(|_| bad(n, "bad seed count"))?,
            capture: capture.parse().map_err(|e| bad(n, &format!("{e}")))?,
            published: value
                .trim_start_matches('+')
                .parse()
                .map_err(|_| bad(n, "bad value"))?,
            cost: match cost {
                "quick" => Cost::Quick,
                "long" => Cost::Long,
                "huge" => Cost::Huge,
                _ => return Err(bad(n, "cost must be quick, long or huge")),
            },
            source,
        });
    }
    Ok(cases)
}

/// Arguments of `kalah verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Only the cases that take under 10 s each (cost class `quick`); used by CI
    #[arg(long, conflicts_with = "all")]
    pub quick: bool,
    /// Every case, including those that take more than 10 minutes (cost class `huge`)
    #[arg(long)]
    pub all: bool,
    /// Only these cases, whatever their cost: a comma-separated list of names such as
    /// 4x3-empty,6x4-standard
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub cases: Vec<String>,
    /// Read the cases from this file instead of the built-in list (same format as
    /// tools/data/published.txt)
    #[arg(long, value_name = "FILE")]
    pub data: Option<PathBuf>,
    /// List the cases and their cost classes without solving
    #[arg(long)]
    pub list: bool,
    /// Transposition table size in MiB (a fresh table for each case), from 1
    #[arg(long, value_name = "MB", default_value_t = solver::search::tt::DEFAULT_MB,
          value_parser = parse_tt_mb)]
    pub tt_mb: usize,
    /// Deepest depth-limited iteration before the exact search
    #[arg(long, value_name = "D", default_value_t = solver::search::DEFAULT_ID_DEPTH)]
    pub max_depth: u8,
    /// Search threads, all cores by default (as in `kalah solve`)
    #[arg(long, value_name = "N", default_value_t = all_cores(), value_parser = parse_threads)]
    pub threads: usize,
    /// Endgame table built in memory before each case (as in `kalah solve`; its build is
    /// part of the case's time)
    #[arg(long, value_name = "K|auto|none", default_value = "auto", value_parser = parse_endgame)]
    pub endgame: EndgameChoice,
    /// Endgame database directory to probe: a case uses the files of its own rules there,
    /// if any (one directory may hold databases of several rule sets)
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// One JSON object per case on stdout instead of the table
    #[arg(long)]
    pub json: bool,
    /// No progress display on stderr
    #[arg(long)]
    pub quiet: bool,
}

/// What happened to one case.
struct Outcome {
    value: i32,
    nodes: u64,
    /// Values read from the database.
    probes: u64,
    seconds: f64,
}

fn select(a: &VerifyArgs, cases: Vec<Case>) -> Result<Vec<Case>, CliError> {
    if !a.cases.is_empty() {
        let ids: Vec<String> = cases.iter().map(Case::id).collect();
        if let Some(unknown) = a.cases.iter().find(|c| !ids.contains(c)) {
            return Err(CliError::UnknownCase {
                name: unknown.clone(),
                known: ids.join(", "),
            });
        }
        return Ok(cases
            .into_iter()
            .filter(|c| a.cases.contains(&c.id()))
            .collect());
    }
    let limit = if a.quick {
        Cost::Quick
    } else if a.all {
        Cost::Huge
    } else {
        Cost::Long
    };
    Ok(cases.into_iter().filter(|c| c.cost <= limit).collect())
}

fn solve(case: &Case, a: &VerifyArgs, bar: &ListBar) -> Result<Outcome, CliError> {
    let rules = case.rules()?;
    let start = Instant::now();
    let db = match &a.db {
        Some(dir) => Some(open_database(dir, &rules)?).filter(|db| db.levels() > 0),
        None => None,
    };
    let request = Request {
        db: db.map(Arc::new),
        endgame: a.endgame,
        settings: Settings {
            threads: a.threads,
            ..Settings::default()
        },
        ..Request::new(rules, rules.total_seeds(), a.tt_mb)
    };
    let plan = Plan::new(request).map_err(refused)?;
    // The transposition table first: it is faulted in while the endgame table is built.
    let tt = plan.table().map_err(plan_error)?;
    let back = Backing::open(plan, None, |e| {
        bar.message(format!("{}: {e}", case.id()));
    })
    .map_err(plan_error)?;
    let Engine::Search(mut solver) = back.engine(tt, None).map_err(plan_error)? else {
        return Err(SolveError::Cyclic.into());
    };
    let pos = Position::start(&rules);
    let solution = analysis::solve(&mut solver, &pos, a.max_depth, |e| {
        if let solver::search::Event::Iteration(it) = e {
            bar.message(format!("{}: {} done", case.id(), depth_name(it.depth)));
        }
    });
    let solution = checked(&back, solution, a.db.as_deref(), &pos)?;
    Ok(Outcome {
        value: solution.margin,
        nodes: solver.nodes,
        probes: solver.probes,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The largest `--data` file read, in bytes: the built-in list is a few KiB.
const MAX_DATA_BYTES: u64 = 16 << 20;

/// A `--data` file's text (see [`crate::args::read_text_file`]).
fn read_data(path: &std::path::Path) -> Result<String, CliError> {
    crate::args::read_text_file("--data", path, MAX_DATA_BYTES, "published-values file")
}

/// `kalah verify`.
pub fn run(a: &VerifyArgs) -> Result<(), CliError> {
    let (text, what) = match &a.data {
        Some(path) => (read_data(path)?, path.display().to_string()),
        None => (
            PUBLISHED.to_string(),
            "tools/data/published.txt".to_string(),
        ),
    };
    let all = parse(&text, &what)?;
    let total = all.len();
    let cases = select(a, all)?;
    if cases.is_empty() && !a.list {
        // "0 of 0 cases agree" would pass a check that compared nothing.
        let why = match (total, a.quick) {
            (0, _) => "none".to_string(),
            (n, true) => format!("{n} case(s), none of them quick (leave out --quick)"),
            (n, false) => format!("{n} case(s), none of them short (give --all)"),
        };
        return Err(CliError::BadOption(format!(
            "no case to verify: {what} holds {why}"
        )));
    }
    let mut bar = ListBar::new(a.quiet || a.list, cases.len());
    if a.list {
        for c in &cases {
            let line = format!(
                "{:<14} {:>4} {:<6} {}",
                c.id(),
                signed(c.published),
                c.cost.name(),
                c.source
            );
            bar.line(&line)?;
        }
        return Ok(());
    }
    if !a.json {
        bar.line(&format!(
            "{:<12} {:<9} {:>9} {:>5} {:<6} {:>9} {:>14}",
            "board", "capture", "published", "ours", "agree", "time (s)", "nodes"
        ))?;
    }
    let mut disagree = Vec::new();
    let started = Instant::now();
    for case in &cases {
        bar.message(format!("{} ({})", case.id(), case.cost.name()));
        let out = solve(case, a, &bar)?;
        let agrees = out.value == case.published;
        if !agrees {
            disagree.push(case.id());
        }
        let line = if a.json {
            json!({
                "case": case.id(),
                "board": format!("Kalah({},{})", case.pits, case.seeds),
                "pits": case.pits,
                "seeds": case.seeds,
                "capture": case.capture.to_string(),
                "rules": case.rules()?.to_string(),
                "published": case.published,
                "value": out.value,
                "agrees": agrees,
                "seconds": out.seconds,
                "nodes": out.nodes,
                "db_probes": out.probes,
                "cost": case.cost.name(),
                "source": case.source,
            })
            .to_string()
        } else {
            format!(
                "{:<12} {:<9} {:>9} {:>5} {:<6} {:>9.3} {:>14}",
                format!("Kalah({},{})", case.pits, case.seeds),
                case.capture.to_string(),
                signed(case.published),
                signed(out.value),
                if agrees { "yes" } else { "NO" },
                out.seconds,
                out.nodes
            )
        };
        bar.line(&line)?;
        bar.step();
    }
    bar.finish();
    if !a.json {
        let skipped = total - cases.len();
        bar.line(&format!(
            "{} of {} cases agree ({:.1}s){}",
            cases.len() - disagree.len(),
            cases.len(),
            started.elapsed().as_secs_f64(),
            if skipped > 0 {
                format!("; {skipped} not run (see --all, --list)")
            } else {
                String::new()
            }
        ))?;
    }
    CliError::unless_mismatched("our value differs from the published one for", &disagree)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_list_parses_and_every_case_has_a_source() {
        let cases = parse(PUBLISHED, "published.txt").unwrap();
        assert_eq!(cases.len(), 19);
        assert!(cases.iter().all(|c| c.source.contains("20")));
        assert!(cases.iter().any(|c| c.cost == Cost::Quick));
        let k64 = cases.iter().find(|c| c.id() == "6x4-standard").unwrap();
        assert_eq!(k64.published, 8);
        assert!(k64.source.contains("Rawlings"));
    }

    #[test]
    fn a_case_without_a_source_is_refused() {
        let err = parse("4 1 empty +2 quick\n", "x").unwrap_err().to_string();
        assert!(err.contains("line 1") && err.contains("Source"), "{err}");
    }
}
