//! `kalah estimate`: what a proof of one root question would cost, estimated from random
//! walks down its proof tree before it is run (see `solver::proof::estimate`).
//!
//! Every question is printed as a final-margin bound (South minus North); every figure of
//! the estimate is a mean over the walks with its standard error, and one that counts a
//! leaf stopped at its budget is a lower bound and printed as one.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use serde_json::{json, Value};
use solver::notation::MoveText;
use solver::proof::estimate::{End, Tally, Walk};
use solver::proof::{self, Leaf, Outcome};
use solver::{Position, Rules, Solver};

use crate::args::{unit_seconds, ProblemArgs, SearchArgs};
use crate::draw::Draw;
use crate::error::CliError;
use crate::progress::Progress;
use crate::setup::{self, plan_error, transposition_table};
use crate::view::margin_question;
use solver::plan::Backing;

macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write;
        writeln!(std::io::stdout().lock(), $($t)*)?;
    }};
}

/// The largest `--replay` file read, in bytes: a walk is a few hundred bytes of JSON.
const MAX_REPLAY_BYTES: u64 = 256 << 20;

/// The most walks one run takes.
pub const MAX_SAMPLES: u64 = 1_000_000;

/// Arguments of `kalah estimate`.
#[derive(Args, Debug)]
pub struct EstimateArgs {
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// The root question: is the final margin at least this? (the proof tree of "yes")
    #[arg(long, value_name = "MARGIN", allow_hyphen_values = true,
          required_unless_present_any = ["at_most", "replay"], conflicts_with = "at_most")]
    pub at_least: Option<i32>,
    /// The root question: is the final margin at most this? (the proof tree of "yes")
    #[arg(long, value_name = "MARGIN", allow_hyphen_values = true)]
    pub at_most: Option<i32>,
    /// Plies from the root to the leaves, the units a proof of this depth would answer
    #[arg(long, value_name = "D", default_value_t = 8,
          value_parser = clap::value_parser!(u32).range(0..=64))]
    pub depth: u32,
    /// Walks to take
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u64).range(1..=MAX_SAMPLES))]
    pub samples: u64,
    /// The seed of the walks' draws (default: from the clock; printed)
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// CPU seconds a leaf's exact test may take before it is stopped (its cost then
    /// counts as the budget, and the estimate as a lower bound; 0: never stopped)
    #[arg(long, value_name = "SECS", default_value_t = 60.0,
          value_parser = unit_seconds)]
    pub unit_seconds: f64,
    /// Ask the leaves of an earlier run's --json output again, with this run's value
    /// sources and table (the same rules; the question, depth and walks are the file's)
    #[arg(long, value_name = "FILE",
          conflicts_with_all = ["at_least", "at_most", "position", "seed"])]
    pub replay: Option<PathBuf>,
    /// JSON on stdout: one object
    #[arg(long)]
    pub json: bool,
    /// No progress display on stderr
    #[arg(long)]
    pub quiet: bool,
}

/// One walk as it is reported: where it went, and what its leaf cost.
struct Sample {
    path: String,
    weight: f64,
    /// The leaf's position, its question and the answer the tree expects.
    leaf: Option<(Position, i32, bool)>,
    /// `Some(yes)` once answered, `None` when stopped at the budget.
    answer: Option<bool>,
    holds: bool,
    nodes: u64,
    cpu_seconds: f64,
}

/// `kalah estimate`.
pub fn run(a: &EstimateArgs) -> Result<(), CliError> {
    if let Some(dir) = &a.problem.search.db {
        setup::check_db_dir(dir)?;
    }
    let plan = match &a.replay {
        Some(file) => Plan::read(file, &a.problem.rules.rules()?)?,
        None => Plan::from_args(a)?,
    };
    let progress = Progress::new(a.quiet, "estimate");
    let back = setup::backing(
        plan.rules,
        plan.root.board_seeds(),
        &a.problem.search,
        true,
        &progress,
    )?;
    let cancel = Arc::new(AtomicBool::new(false));
    let budget = (a.unit_seconds > 0.0).then(|| Duration::from_secs_f64(a.unit_seconds));
    let mut solver = progress.watch(solver_for(
        &plan,
        &back,
        &a.problem.search,
        Arc::clone(&cancel),
    )?);
    let question = tree_question(&plan.root, plan.beta, plan.expect);
    progress.line(&format!(
        "estimate: the proof tree of \"{question}\" at depth {}, {} walks{}",
        plan.depth,
        plan.walks(),
        plan.seed.map_or(String::new(), |s| format!(", seed {s}"))
    ));
    let mut samples = Vec::new();
    let mut draw = Draw::new(plan.seed.unwrap_or(1));
    for i in 0..plan.walks() {
        let (path, weight, end) = match &plan.replayed {
            Some(r) => r[i as usize].clone(),
            None => {
                let w = Walk::down(
                    &mut solver,
                    &plan.root.board(),
                    plan.beta,
                    plan.expect,
                    plan.depth,
                    a.problem.search.max_depth,
                    &mut |n| draw.below(n),
                );
                let (path, pos) = path_text(&plan, &w.path);
                let end = match w.end {
                    End::Over { holds } => WalkEnd::Over(holds),
                    End::Leaf { beta, expect, .. } => WalkEnd::Leaf(pos, beta, expect),
                };
                (path, w.weight, end)
            }
        };
        let s = match end {
            WalkEnd::Over(holds) => Sample {
                path,
                weight,
                leaf: None,
                answer: None,
                holds,
                nodes: 0,
                cpu_seconds: 0.0,
            },
            WalkEnd::Leaf(pos, beta, expect) => {
                let board = pos.board();
                let leaf = Leaf {
                    board,
                    seeds: board.seeds() as i32,
                };
                progress.message(&format!(
                    "walk {}/{}: {path}: {}?",
                    i + 1,
                    plan.walks(),
                    margin_question(&pos, beta)
                ));
                let from = proof::process_cpu_millis();
                let (outcome, nodes) = proof::answer(
                    &mut solver,
                    &leaf,
                    beta,
                    a.problem.search.max_depth,
                    budget.map(|b| (b, &*cancel)),
                );
                let cpu_seconds = proof::process_cpu_millis().saturating_sub(from) as f64 / 1e3;
                let answer = match outcome {
                    Outcome::Bound(r) => Some(r >= beta),
                    Outcome::Stopped => None,
                };
                Sample {
                    path,
                    weight,
                    holds: answer.is_none_or(|yes| yes == expect),
                    leaf: Some((pos, beta, expect)),
                    answer,
                    nodes,
                    cpu_seconds,
                }
            }
        };
        // Each walk as it ends: on stdout in the readable report, on stderr beside
        // --json (a run of hours shows what it has done so far).
        if a.json {
            progress.line(&sample_line(i + 1, &s));
        } else {
            say!("{}", sample_line(i + 1, &s));
        }
        samples.push(s);
    }
    progress.finish();
    report(a, &plan, &question, &samples)
}

/// What a run walks: from the command line, or an earlier run's walks again.
struct Plan {
    rules: Rules,
    root: Position,
    /// The root question "gain of the side to move >= beta?" and the answer whose proof
    /// tree is walked.
    beta: i32,
    expect: bool,
    depth: u32,
    samples: u64,
    seed: Option<u64>,
    /// The walks of the file replayed.
    replayed: Option<Vec<(String, f64, WalkEnd)>>,
}

#[derive(Clone)]
enum WalkEnd {
    Over(bool),
    Leaf(Position, i32, bool),
}

impl Plan {
    fn walks(&self) -> u64 {
        self.replayed
            .as_ref()
            .map_or(self.samples, |r| r.len() as u64)
    }

    fn from_args(a: &EstimateArgs) -> Result<Plan, CliError> {
        let (rules, root) = a.problem.resolve()?;
        let (sm, sign) = (root.store_margin(), root.to_move.sign());
        // margin = sm + sign * gain: a bound on the margin is one on the mover's gain,
        // "at least" for South's and "at most" for North's.
        let (beta, expect) = match (a.at_least, a.at_most) {
            (Some(t), _) if sign > 0 => (t.saturating_sub(sm), true),
            (Some(t), _) => (sm.saturating_sub(t).saturating_add(1), false),
            (None, Some(t)) if sign > 0 => (t.saturating_sub(sm).saturating_add(1), false),
            (None, Some(t)) => (sm.saturating_sub(t), true),
            (None, None) => {
                return Err(CliError::BadOption(
                    "give --at-least or --at-most (or --replay)".into(),
                ))
            }
        };
        let seed = a.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
        Ok(Plan {
            rules,
            root,
            beta,
            expect,
            depth: a.depth,
            samples: a.samples,
            seed: Some(seed),
            replayed: None,
        })
    }

    /// The walks of an earlier run's `--json` output, for `rules` (which must be the
    /// file's).
    fn read(file: &std::path::Path, rules: &Rules) -> Result<Plan, CliError> {
        let bad = |why: String| CliError::BadOption(format!("--replay {}: {why}", file.display()));
        let text = crate::args::read_text_file("--replay", file, MAX_REPLAY_BYTES, "walks file")?;
        let v: Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let field = |k: &str| v.get(k).ok_or_else(|| bad(format!("no \"{k}\"")));
        let text_of = |x: &Value, k: &str| -> Result<String, CliError> {
            x.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| bad(format!("\"{k}\" is not a string")))
        };
        let int_of = |x: &Value, k: &str| -> Result<i64, CliError> {
            x.get(k)
                .and_then(Value::as_i64)
                .ok_or_else(|| bad(format!("\"{k}\" is not an integer")))
        };
        let bool_of = |x: &Value, k: &str| -> Result<bool, CliError> {
            x.get(k)
                .and_then(Value::as_bool)
                .ok_or_else(|| bad(format!("\"{k}\" is not true or false")))
        };
        let named = text_of(&v, "rules")?;
        if named != rules.to_string() {
            return Err(bad(format!(
                "its walks are of {named}, not of {rules} (give the file's rules)"
            )));
        }
        let root = Position::from_str(&text_of(&v, "root")?).map_err(|e| bad(e.to_string()))?;
        root.check_size(rules).map_err(|e| bad(e.to_string()))?;
        let small = |x: i64, what: &str| {
            i32::try_from(x)
                .ok()
                .filter(|b| b.unsigned_abs() <= 1000)
                .ok_or_else(|| bad(format!("{what} {x} is out of range")))
        };
        let beta = small(int_of(&v, "beta")?, "beta")?;
        let expect = bool_of(&v, "expect")?;
        let depth = u32::try_from(int_of(&v, "depth")?).map_err(|_| bad("bad depth".into()))?;
        let Some(list) = field("samples")?.as_array() else {
            return Err(bad("\"samples\" is not a list".into()));
        };
        if list.is_empty() || list.len() as u64 > MAX_SAMPLES {
            return Err(bad(format!(
                "it holds {} walks (1 to {MAX_SAMPLES} replayed)",
                list.len()
            )));
        }
        let game = solver::Game::new(*rules);
        let mut walks = Vec::with_capacity(list.len());
        for s in list {
            let path = text_of(s, "path")?;
            let weight = s
                .get("weight")
                .and_then(Value::as_f64)
                .filter(|w| w.is_finite() && *w >= 1.0)
                .ok_or_else(|| bad("a walk's \"weight\" is not a number of at least 1".into()))?;
            let end = match s.get("leaf") {
                Some(Value::String(p)) => {
                    let pos = Position::from_str(p).map_err(|e| bad(e.to_string()))?;
                    pos.check_size(rules).map_err(|e| bad(e.to_string()))?;
                    // A leaf is a board the search settles: never one whose game is over.
                    if pos.is_over(&game) {
                        return Err(bad(format!("the leaf {p} is a finished game")));
                    }
                    let beta = small(int_of(s, "beta")?, "beta")?;
                    WalkEnd::Leaf(pos, beta, bool_of(s, "expect")?)
                }
                Some(Value::Null) | None => WalkEnd::Over(bool_of(s, "holds")?),
                Some(_) => return Err(bad("a walk's \"leaf\" is not a position".into())),
            };
            walks.push((path, weight, end));
        }
        Ok(Plan {
            rules: *rules,
            root,
            beta,
            expect,
            depth,
            samples: walks.len() as u64,
            seed: None,
            replayed: Some(walks),
        })
    }
}

/// What the proof tree of "gain of `pos`'s mover >= `beta`" answered `expect` proves, as
/// a final-margin bound: the question itself when `expect`, else "gain <= beta - 1".
fn tree_question(pos: &Position, beta: i32, expect: bool) -> String {
    let (sm, sign) = (pos.store_margin(), pos.to_move.sign());
    if expect {
        return margin_question(pos, beta);
    }
    let m = sm + sign * (beta - 1);
    if sign > 0 {
        format!("margin <= {m:+}")
    } else {
        format!("margin >= {m:+}")
    }
}

/// The walk's moves in notation from the root, and the position it reaches.
fn path_text(plan: &Plan, pits: &[usize]) -> (String, Position) {
    let game = solver::Game::new(plan.rules);
    let mut pos = plan.root;
    let mut moves = Vec::with_capacity(pits.len());
    for &pit in pits {
        let side = pos.to_move;
        let (next, step) = pos.play(&game, pit);
        moves.push(MoveText::annotated(side, pit, &step).to_string());
        pos = next;
    }
    let text = if moves.is_empty() {
        "(the root)".to_string()
    } else {
        moves.join(" ")
    };
    (text, pos)
}

fn solver_for<'a>(
    plan: &Plan,
    back: &'a Backing,
    search: &SearchArgs,
    cancel: Arc<AtomicBool>,
) -> Result<Solver<'a>, CliError> {
    let table = transposition_table(&plan.rules, plan.root.board_seeds(), search.tt_mb)?;
    Ok(back
        .searcher(table)
        .map_err(plan_error)?
        .with_cancel(cancel))
}

fn answer_text(s: &Sample) -> &'static str {
    match (s.leaf.is_some(), s.answer) {
        (false, _) => "the game ends",
        (true, None) => "stopped",
        (true, Some(true)) => "yes",
        (true, Some(false)) => "no",
    }
}

fn sample_line(i: u64, s: &Sample) -> String {
    let mut line = format!("walk {i}: {} (weight {}): ", s.path, s.weight);
    match &s.leaf {
        None => line.push_str(if s.holds {
            "the game ends, as the tree expects"
        } else {
            "the game ends, NOT as the tree expects"
        }),
        Some((pos, beta, _)) => {
            line.push_str(&format!(
                "{}? {} ({}), {} nodes, {:.2} s",
                margin_question(pos, *beta),
                answer_text(s),
                match s.answer {
                    None => "cost counted as the budget",
                    Some(_) if s.holds => "as the tree expects",
                    Some(_) => "NOT as the tree expects",
                },
                s.nodes,
                s.cpu_seconds
            ));
        }
    }
    line
}

/// The estimate's figures: each a mean of weight times a walk's figure.
struct Figures {
    leaves: Tally,
    nodes: Tally,
    cpu: Tally,
    stopped: usize,
    unexpected: usize,
}

fn figures(samples: &[Sample]) -> Figures {
    let mut f = Figures {
        leaves: Tally::default(),
        nodes: Tally::default(),
        cpu: Tally::default(),
        stopped: 0,
        unexpected: 0,
    };
    for s in samples {
        let leaf = if s.leaf.is_some() { 1.0 } else { 0.0 };
        f.leaves.add(s.weight * leaf);
        f.nodes.add(s.weight * s.nodes as f64);
        f.cpu.add(s.weight * s.cpu_seconds);
        f.stopped += usize::from(s.leaf.is_some() && s.answer.is_none());
        f.unexpected += usize::from(!s.holds);
    }
    f
}

fn report(
    a: &EstimateArgs,
    plan: &Plan,
    question: &str,
    samples: &[Sample],
) -> Result<(), CliError> {
    let f = figures(samples);
    let bound = if f.stopped > 0 { "at least " } else { "" };
    if a.json {
        let tally = |t: &Tally| json!({"mean": t.mean(), "std_error": t.std_error()});
        let obj = json!({
            "rules": plan.rules.to_string(),
            "root": plan.root.to_string(),
            "question": question,
            "beta": plan.beta,
            "expect": plan.expect,
            "depth": plan.depth,
            "seed": plan.seed,
            "replay": a.replay.as_ref().map(|p| p.display().to_string()),
            "unit_seconds": a.unit_seconds,
            "samples": samples.iter().map(|s| json!({
                "path": s.path,
                "weight": s.weight,
                "leaf": s.leaf.as_ref().map(|(p, _, _)| p.to_string()),
                "question": s.leaf.as_ref().map(|(p, b, _)| margin_question(p, *b)),
                "beta": s.leaf.as_ref().map(|(_, b, _)| *b),
                "expect": s.leaf.as_ref().map(|(_, _, e)| *e),
                "answer": answer_text(s),
                "holds": s.holds,
                "nodes": s.nodes,
                "cpu_seconds": s.cpu_seconds,
            })).collect::<Vec<_>>(),
            "estimate": {
                "leaves": tally(&f.leaves),
                "nodes": tally(&f.nodes),
                "cpu_seconds": tally(&f.cpu),
                "stopped": f.stopped,
                "lower_bound": f.stopped > 0,
                "not_as_expected": f.unexpected,
            },
        });
        say!("{obj}");
        return Ok(());
    }
    say!(
        "the proof tree of \"{question}\" at depth {}, estimated from {} walks \
         (mean of weight x figure, +- one standard error):",
        plan.depth,
        samples.len()
    );
    say!(
        "  leaves:      {:.4e} +- {:.2e}",
        f.leaves.mean(),
        f.leaves.std_error()
    );
    say!(
        "  unit nodes:  {bound}{:.4e} +- {:.2e}",
        f.nodes.mean(),
        f.nodes.std_error()
    );
    say!(
        "  unit CPU s:  {bound}{:.4e} +- {:.2e}  ({:.2} CPU-days)",
        f.cpu.mean(),
        f.cpu.std_error(),
        f.cpu.mean() / 86_400.0
    );
    if f.stopped > 0 {
        say!(
            "  {} of {} leaves were stopped at the budget ({} CPU s) and count as it: the \
             figures are lower bounds",
            f.stopped,
            samples.len(),
            a.unit_seconds
        );
    }
    say!(
        "  {} walks did not end as the tree expects (a wrong first move at an OR node, or a \
         root question whose answer is not the one asked)",
        f.unexpected
    );
    Ok(())
}
