//! `kalah prove`: an exact solve through a proof directory that survives kills, resumes,
//! and is shared by any number of workers (see `solver::proof`).
//!
//! Every value printed is a final margin (South minus North); a bound is printed as a
//! bound, and a value only once its bounds meet.

use std::path::PathBuf;
use std::time::{Duration, Instant};

mod second;

use clap::Args;
use serde_json::json;
use solver::notation::MoveText;
use solver::proof::claim::{now_secs, ClaimInfo};
use solver::proof::{
    self, Event, Interval, Manifest, Proof, Question, Searches, Serves, State, Task, WorkOptions,
    Worker,
};
use solver::{Position, Rules, Solver};

use crate::args::{unit_seconds, ProblemArgs, SearchArgs};
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

/// The front end's depth when `--depth` is not given.
pub const DEFAULT_DEPTH: u32 = 2;

/// `--unit-seconds` when not given: half an hour, so that a worker in a session of a few
/// hours finishes most of what it starts.
pub const DEFAULT_UNIT_SECONDS: f64 = 1800.0;

/// The longest `--lease`, a year in seconds: far beyond any unit's run between renewals,
/// and far from the overflow of the clock plus the lease.
pub const MAX_LEASE_SECS: u64 = 365 * 24 * 3600;

/// Arguments of `kalah prove`.
#[derive(Args, Debug)]
pub struct ProveArgs {
    /// The proof directory: created with the rules and position given when it holds no
    /// proof yet, resumed when it does (rules, position and depth given then must match)
    pub dir: PathBuf,
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// Plies of the front end, whose leaves are the units of work (on creation)
    /// [default: 2]
    #[arg(long, value_name = "D")]
    pub depth: Option<u32>,
    /// The root's first guess, a final margin (on creation; default: depth-limited search)
    #[arg(long, value_name = "MARGIN", allow_hyphen_values = true)]
    pub guess: Option<i32>,
    /// Create the proof directory and stop
    #[arg(long, conflicts_with_all = ["worker", "status", "check"])]
    pub init: bool,
    /// Work on an existing proof until its root is exact (many may run at once, on one
    /// machine or many sharing the directory)
    #[arg(long, conflicts_with_all = ["status", "check"])]
    pub worker: bool,
    /// Print what is proved so far and the work done and left; changes nothing
    #[arg(long, conflicts_with_all = ["check", "second_answers"])]
    pub status: bool,
    /// Answer every needed unit of the proof (the answers its proved bounds rest on) a
    /// second time, each search with a fresh transposition table, into DIR/check/; as
    /// resumable and shareable as --worker. Give it another search configuration than the
    /// proof's (--threads, --tt-mb, --db levels)
    #[arg(long, conflicts_with_all = ["worker", "check", "init"])]
    pub second_answers: bool,
    /// Re-derive the root from the stored results and re-solve a random sample of units
    #[arg(long)]
    pub check: bool,
    /// --check: units to re-solve (at least 1: a check that re-solves none proves nothing)
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub sample: usize,
    /// --check: the seed of the sample (default: from the clock; printed)
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Seconds a claim on a unit lives unless its worker renews it (every quarter of it);
    /// a killed worker's units are retaken after this; at most a year (31536000)
    #[arg(long, value_name = "SECS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..=MAX_LEASE_SECS))]
    pub lease: u64,
    /// Stop after this many units (to measure; the proof resumes where it stopped)
    #[arg(long, value_name = "N")]
    pub max_units: Option<u64>,
    /// CPU seconds (all search threads) a unit's exact test may take before it is stopped
    /// and its board split into its moves (which become units): a killed worker loses at
    /// most about this much, and a proof advances in steps that each end (0: never split;
    /// fractions accepted)
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_UNIT_SECONDS, value_parser = unit_seconds)]
    pub unit_seconds: f64,
    /// JSON on stdout: one object
    #[arg(long)]
    pub json: bool,
    /// No progress display on stderr
    #[arg(long)]
    pub quiet: bool,
}

/// `kalah prove`.
pub fn run(a: &ProveArgs) -> Result<(), CliError> {
    // Before a proof directory is created for a worker that could not start.
    if let Some(dir) = &a.problem.search.db {
        setup::check_db_dir(dir)?;
    }
    let proof = if a.status || a.check || a.worker || a.second_answers {
        open_matching(a)?
    } else {
        match Proof::open(&a.dir) {
            Ok(_) => open_matching(a)?,
            Err(_) if !a.dir.join("proof.txt").exists() => create(a)?,
            Err(e) => return Err(e.into()),
        }
    };
    if a.init {
        return report(a, &proof, &proof.load()?, None);
    }
    if a.status {
        let st = proof.load()?;
        warn(&st.warnings);
        return report(a, &proof, &st, None);
    }
    if a.check {
        return check(a, &proof);
    }
    if a.second_answers {
        let done = second_answers(a, &proof)?;
        let st = proof.load()?;
        return report(a, &proof, &st, Some(done));
    }
    let done = work(a, &proof)?;
    let st = proof.load()?;
    report(a, &proof, &st, Some(done))
}

/// Open the proof in `a.dir`, refusing rules, a position or a depth that differ from
/// those it was created with.
fn open_matching(a: &ProveArgs) -> Result<Proof, CliError> {
    let proof = Proof::open(&a.dir)?;
    let m = &proof.manifest;
    let r = &a.problem.rules;
    let any_rule = r.pits.is_some()
        || r.seeds.is_some()
        || r.capture.is_some()
        || r.sowing.is_some()
        || r.direction.is_some()
        || r.opp_store.is_some()
        || r.end.is_some()
        || r.remaining.is_some()
        || r.pie;
    if any_rule || a.problem.position.position.is_some() {
        let (rules, pos) = a.problem.resolve()?;
        if any_rule && rules != m.rules {
            return Err(mismatch(a, format!("rules {rules}"), m.rules.to_string()));
        }
        if a.problem.position.position.is_some() && pos != m.position {
            return Err(mismatch(
                a,
                format!("position {pos}"),
                m.position.to_string(),
            ));
        }
    }
    if let Some(d) = a.depth {
        if d != m.depth {
            return Err(mismatch(
                a,
                format!("depth {d}"),
                format!("depth {}", m.depth),
            ));
        }
    }
    Ok(proof)
}

fn mismatch(a: &ProveArgs, asked: String, has: String) -> CliError {
    CliError::BadOption(format!(
        "{} holds a proof of {has}, not {asked}; give another directory, or no rules to \
         resume it",
        a.dir.display()
    ))
}

/// Create the proof directory, with the first guess from depth-limited search unless
/// `--guess` gives one.
fn create(a: &ProveArgs) -> Result<Proof, CliError> {
    let (rules, pos) = a.problem.resolve()?;
    let guess = match a.guess {
        Some(m) => pos
            .to_move
            .sign()
            .saturating_mul(m.saturating_sub(pos.store_margin())),
        None => first_guess(&rules, &pos, a.problem.search.max_depth),
    };
    let manifest = Manifest {
        rules,
        position: pos,
        depth: a.depth.unwrap_or(DEFAULT_DEPTH),
        guess,
    };
    Ok(Proof::create(&a.dir, manifest)?)
}

/// Depth-limited MTD(f) on the root, deepening to `max_depth`: the first guess (0 where
/// the root cannot be searched).
fn first_guess(rules: &Rules, pos: &Position, max_depth: u8) -> i32 {
    let game = solver::Game::new(*rules);
    let board = pos.board();
    if game.terminal_value(&board).is_some() {
        return 0;
    }
    let Ok(mut s) = Solver::new(&game, 16) else {
        return 0;
    };
    let mut g = 0;
    let mut d = 2;
    while d <= max_depth.min(solver::search::MAX_ID_DEPTH) {
        g = s.mtdf(&board, g, d);
        d += 2;
    }
    g
}

fn warn(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

/// The value sources behind a proof's units: those of `kalah solve` (database, endgame
/// table), refused for rules that can cycle, which the proof's search cannot play.
fn backing(proof: &Proof, search: &SearchArgs, progress: &Progress) -> Result<Backing, CliError> {
    let seeds = proof.manifest.position.board_seeds();
    setup::backing(proof.manifest.rules, seeds, search, true, progress)
}

/// The search that answers a proof's units, assembled as `kalah solve`'s (see
/// `solver::plan`).
fn solver_for<'a>(
    proof: &Proof,
    back: &'a Backing,
    search: &SearchArgs,
) -> Result<Solver<'a>, CliError> {
    let seeds = proof.manifest.position.board_seeds();
    let table = transposition_table(&proof.manifest.rules, seeds, search.tt_mb)?;
    back.searcher(table).map_err(plan_error)
}

/// The root question "gain >= beta" as a final-margin bound, e.g. `margin >= +7`.
fn root_question(proof: &Proof, beta: i32) -> String {
    margin_question(&proof.manifest.position, beta)
}

/// What a worker of either kind sets up before its first unit: its name, its display,
/// the values behind its searches, and how it runs.
struct Bench {
    worker: String,
    progress: Progress,
    back: Backing,
    budget: Option<Duration>,
    opts: WorkOptions,
}

impl Bench {
    fn new(a: &ProveArgs, proof: &Proof, what: &str) -> Result<Bench, CliError> {
        let worker = proof::worker_id();
        let progress = Progress::new(a.quiet, &format!("{what} {}", a.dir.display()));
        let back = backing(proof, &a.problem.search, &progress)?;
        progress.line(&format!("{what} worker {worker}"));
        Ok(Bench {
            worker,
            progress,
            back,
            budget: (a.unit_seconds > 0.0).then(|| Duration::from_secs_f64(a.unit_seconds)),
            opts: WorkOptions {
                lease: Duration::from_secs(a.lease),
                poll: Duration::from_millis(500).min(Duration::from_secs(a.lease) / 2),
                max_units: a.max_units,
                wait: true,
                threads: a.problem.search.threads as u32,
            },
        })
    }

    /// A search for the units, its nodes on the display.
    fn solver<'b>(&'b self, a: &ProveArgs, proof: &Proof) -> Result<Solver<'b>, CliError> {
        Ok(self
            .progress
            .watch(solver_for(proof, &self.back, &a.problem.search)?))
    }

    /// Work on `task` with `searches` as this bench's worker, its units logged.
    fn run(
        &self,
        proof: &Proof,
        task: &dyn Task,
        searches: Searches<'_>,
    ) -> Result<proof::WorkSummary, CliError> {
        let mut log = Log::new(proof, &self.progress);
        let mut worker = Worker::new(self.worker.clone(), self.opts.clone(), Box::new(searches));
        let summary = worker.work(task, &mut |ev| log.event(ev))?;
        self.progress.finish();
        Ok(summary)
    }
}

/// Work on the proof with one search, whose table stays warm from unit to unit; built
/// before the first unit, so that a table refused is refused before any work.
fn work(a: &ProveArgs, proof: &Proof) -> Result<proof::WorkSummary, CliError> {
    let bench = Bench::new(a, proof, "proof")?;
    let searches = Searches::warm(
        bench.solver(a, proof)?,
        a.problem.search.max_depth,
        bench.budget,
    );
    bench.run(proof, proof, searches)
}

/// `--second-answers`: answer every needed unit of the proof again, each search with a
/// transposition table of its own, allocated for it and dropped after it, so that
/// nothing passes from one unit, or from a stopped search, to another.
fn second_answers(a: &ProveArgs, proof: &Proof) -> Result<proof::WorkSummary, CliError> {
    let bench = Bench::new(a, proof, "second-answer")?;
    let fresh = || {
        bench
            .solver(a, proof)
            .map_err(|e| proof::ProofError::Search(e.to_string()))
    };
    let searches = Searches::fresh(Box::new(fresh), a.problem.search.max_depth, bench.budget);
    bench.run(proof, &proof::Check::new(proof), searches)
}

/// A worker's report of its units on the progress display.
struct Log<'a> {
    proof: &'a Proof,
    progress: &'a Progress,
    start: Instant,
    nodes: u64,
    units: u64,
    /// The claim last waited on and its worker: a line is printed when it changes.
    waited: Option<(PathBuf, Option<String>)>,
}

impl<'a> Log<'a> {
    fn new(proof: &'a Proof, progress: &'a Progress) -> Log<'a> {
        Log {
            proof,
            progress,
            start: Instant::now(),
            nodes: 0,
            units: 0,
            waited: None,
        }
    }

    fn event(&mut self, ev: Event<'_>) {
        let (progress, units, nodes) = (self.progress, self.units, self.nodes);
        match ev {
            Event::Start {
                question,
                serves,
                open,
            } => progress.message(&format!(
                "unit: leaf {} value >= {}?  ({}, {open} open)  started at {:.0}s; \
                 this worker so far: {units} answered, {nodes} nodes",
                question.leaf,
                question.beta,
                match serves {
                    Serves::Root { beta } => format!("root: {}?", root_question(self.proof, beta)),
                    Serves::Needed { unit, of } =>
                        format!("second answer of needed unit {} of {of}", unit + 1),
                },
                self.start.elapsed().as_secs_f64()
            )),
            Event::Done {
                question,
                result,
                nodes: n,
                seconds,
            } => {
                self.nodes += n;
                self.units += 1;
                progress.line(&format!(
                    "unit: leaf {:<8} value >= {:>3}? {}  {:>14} nodes  {:>9.0} nodes/s  \
                     {:>8.2}s  ({} units, {:.0}s)",
                    question.leaf,
                    question.beta,
                    answer_text(question.beta, result),
                    n,
                    n as f64 / seconds.max(1e-3),
                    seconds,
                    self.units,
                    self.start.elapsed().as_secs_f64()
                ));
            }
            Event::Split {
                question,
                nodes: n,
                seconds,
            } => {
                self.nodes += n;
                progress.line(&format!(
                    "unit: leaf {:<8} value >= {:>3}? stopped after {seconds:.0}s and {n} \
                     nodes (--unit-seconds): split into its moves",
                    question.leaf, question.beta,
                ));
            }
            Event::Waiting { in_flight, first } => {
                // A line (kept in a log) each time the claim waited on changes hands;
                // the spinner's message otherwise.
                let who = first
                    .as_ref()
                    .map(|(p, c)| (p.clone(), c.as_ref().map(|c| c.worker.clone())));
                let text = format!(
                    "waiting: the {in_flight} open units are claimed by other workers{}",
                    first.map_or(String::new(), |(path, claim)| waited_on(&path, claim))
                );
                if who != self.waited {
                    progress.line(&text);
                    self.waited = who;
                }
                progress.message(&text);
            }
            Event::Warning(w) => {
                progress.finish();
                eprintln!("warning: {w}");
            }
        }
    }
}

/// A leaf answer: `yes (>= 5)` or `no (<= 2)`.
fn answer_text(beta: i32, result: i32) -> String {
    if result >= beta {
        format!("yes (>= {result})")
    } else {
        format!("no (<= {result})")
    }
}

/// A margin interval as text: the value when exact, else its bounds labelled as such.
fn bounds_text(iv: Interval) -> String {
    if iv.is_exact() {
        format!("{:+} (proved)", iv.lo)
    } else {
        format!("{:+} <= margin <= {:+} (bounds)", iv.lo, iv.hi)
    }
}

/// The open root question, its open units, and how many of them are claimed.
struct Round {
    beta: Option<i32>,
    open: Vec<Question>,
    in_flight: usize,
    live: std::collections::HashSet<String>,
}

/// The claim name of an open question.
fn unit_of(st: &State, q: &Question) -> String {
    proof::unit_name(&st.tree.front.leaves[q.leaf as usize].board, q.beta)
}

fn round(proof: &Proof, st: &State) -> Result<Round, CliError> {
    let front = &st.tree.front;
    let root = front.interval(front.root, &st.know);
    let beta = solver::proof::FrontEnd::root_beta(root, proof.manifest.guess);
    let open = match beta {
        Some(b) => front.questions(b, &st.know, &mut |_| None),
        None => Vec::new(),
    };
    let claims = proof.claims("status", Duration::from_secs(1));
    let now = proof::claim::now_secs();
    let live: std::collections::HashSet<String> = claims
        .all()
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, c)| c.expires >= now)
        .map(|(u, _)| u)
        .collect();
    // Workers order the front end by their own searches, so their open questions may
    // differ from the list above: every live claim counts as in flight.
    let in_flight = live.len();
    Ok(Round {
        beta,
        open,
        in_flight,
        live,
    })
}

fn report(
    a: &ProveArgs,
    proof: &Proof,
    st: &State,
    work: Option<proof::WorkSummary>,
) -> Result<(), CliError> {
    let m = &proof.manifest;
    let front = &st.tree.front;
    let root = proof.margins(front.interval(front.root, &st.know));
    let r = round(proof, st)?;
    let moves: Vec<(MoveText, Interval)> = proof
        .first_moves(st)
        .into_iter()
        .map(|m| (m.text, m.margins))
        .collect();
    let check = second::load(proof, st)?;
    let left = r
        .open
        .iter()
        .filter(|q| !r.live.contains(&unit_of(st, q)))
        .count();
    if a.json {
        let obj = json!({
            "dir": a.dir.display().to_string(),
            "rules": m.rules.to_string(),
            "position": m.position.to_string(),
            "depth": m.depth,
            "front_nodes": front.nodes.len(),
            "leaves": front.leaves.len(),
            "splits": st.splits,
            "proved": root.is_exact(),
            "value": root.is_exact().then_some(root.lo),
            "margin_at_least": root.lo,
            "margin_at_most": root.hi,
            "testing": r.beta.map(|b| root_question(proof, b)),
            "first_moves": moves.iter().map(|(t, iv)| json!({
                "move": t.to_string(),
                "proved": iv.is_exact(),
                "margin_at_least": iv.lo,
                "margin_at_most": iv.hi,
            })).collect::<Vec<_>>(),
            "units": {
                "done": st.answered.len(),
                "in_flight": r.in_flight,
                "left": left,
                "records": st.records.len(),
                "duplicates": st.duplicates,
                "split": st.splits,
            },
            "nodes": st.nodes,
            "seconds": st.millis as f64 / 1000.0,
            "cpu_seconds": st.cpu_millis as f64 / 1000.0,
            "split_cpu_seconds": st.split_cpu_millis as f64 / 1000.0,
            "result_files": st.files,
            "warnings": st.warnings,
            "this_run": work.map(|w| json!({"units": w.units, "splits": w.splits, "nodes": w.nodes})),
            "needed": second::needed_json(proof, st, &check),
            "second_answers": second::summary_json(proof, &check),
        });
        say!("{obj}");
        return Ok(());
    }
    say!("proof:       {}", a.dir.display());
    say!("rules:       {}", m.rules);
    say!("position:    {}", m.position);
    say!(
        "front end:   {} plies, {} interior nodes, {} leaves ({} boards split)",
        m.depth,
        front.nodes.len(),
        front.leaves.len(),
        st.splits
    );
    if root.is_exact() {
        say!(
            "value:       {:+} (final margin, South minus North; proved: its bounds meet)",
            root.lo
        );
    } else {
        say!(
            "bounds:      {:+} <= margin <= {:+} (proved bounds, not yet the value)",
            root.lo,
            root.hi
        );
    }
    if let Some(b) = r.beta {
        say!(
            "testing:     {}? ({} units in flight, {left} more open)",
            root_question(proof, b),
            r.in_flight
        );
    }
    for (t, iv) in &moves {
        say!("  {:<6} {}", t.to_string(), bounds_text(*iv));
    }
    say!(
        "units:       {} done ({} records, {} answered twice), {} in flight, {left} left in \
         this test",
        st.answered.len(),
        st.records.len(),
        st.duplicates,
        r.in_flight
    );
    say!(
        "work:        {} nodes, {:.1}s of search ({:.1} CPU seconds, {:.1} of them on units \
         stopped and split), {} result files",
        st.nodes,
        st.millis as f64 / 1000.0,
        st.cpu_millis as f64 / 1000.0,
        st.split_cpu_millis as f64 / 1000.0,
        st.files
    );
    warn(&check.warnings);
    for line in second::lines(proof, &check) {
        say!("{line}");
    }
    if let Some(w) = work {
        say!(
            "this run:    {} units, {} splits, {} nodes{}",
            w.units,
            w.splits,
            w.nodes,
            if w.complete { "" } else { " (stopped early)" }
        );
    }
    Ok(())
}

/// `--check`: re-derive the root and re-solve a random sample of the stored units.
fn check(a: &ProveArgs, proof: &Proof) -> Result<(), CliError> {
    let st = proof.load()?;
    warn(&st.warnings);
    let front = &st.tree.front;
    let root = proof.margins(front.interval(front.root, &st.know));
    let progress = Progress::new(a.quiet, "check");
    let back = backing(proof, &a.problem.search, &progress)?;
    let mut solver = solver_for(proof, &back, &a.problem.search)?;
    let seed = a.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    // Distinct answers, drawn by a xorshift generator from the seed (a split proves
    // nothing to re-solve).
    let answers: Vec<_> = st
        .records
        .iter()
        .filter(|r| r.kind == proof::journal::Kind::Answer)
        .collect();
    let n = answers.len();
    let mut picks: Vec<usize> = Vec::new();
    let mut draw = crate::draw::Draw::new(seed);
    while picks.len() < a.sample.min(n) {
        let i = draw.below(n);
        if !picks.contains(&i) {
            picks.push(i);
        }
    }
    let mut disagree = Vec::new();
    let mut lines = Vec::new();
    for &i in &picks {
        let rec = answers[i];
        let board = solver::Board::from_key(rec.board_key);
        let leaf = proof::Leaf {
            board,
            seeds: board.seeds() as i32,
        };
        let (beta, stored) = (rec.beta as i32, rec.result as i32);
        let (proof::Outcome::Bound(again), _) =
            proof::answer(&mut solver, &leaf, beta, a.problem.search.max_depth, None)
        else {
            unreachable!("a test without a budget is never stopped");
        };
        // Fail-soft bounds may differ with the table's contents; the answer to the
        // question and the consistency of the two bounds may not.
        let mut iv = Interval::trivial(leaf.seeds);
        let agree =
            (again >= beta) == (stored >= beta) && iv.learn(beta, stored) && iv.learn(beta, again);
        let line = format!(
            "board {} value >= {beta}? stored {}, re-solved {}: {}",
            proof.position_of(&board),
            answer_text(beta, stored),
            answer_text(beta, again),
            if agree { "agree" } else { "DISAGREE" }
        );
        progress.line(&line);
        if !agree {
            disagree.push(line.clone());
        }
        lines.push(json!({"board": proof.position_of(&board), "beta": beta, "stored": stored, "resolved": again, "agree": agree}));
    }
    progress.finish();
    if a.json {
        say!(
            "{}",
            json!({
                "records": st.records.len(),
                "margin_at_least": root.lo,
                "margin_at_most": root.hi,
                "proved": root.is_exact(),
                "seed": seed,
                "sample": lines,
                "disagreements": disagree.len(),
            })
        );
    } else {
        say!(
            "root:        {} (re-derived by minimax from {} records)",
            bounds_text(root),
            st.records.len()
        );
        say!(
            "sample:      {} units re-solved (seed {seed}), {} disagreements",
            picks.len(),
            disagree.len()
        );
    }
    if !disagree.is_empty() {
        return Err(CliError::Mismatch(format!(
            "{} of {} re-solved units disagree with the stored results:\n{}",
            disagree.len(),
            picks.len(),
            disagree.join("\n")
        )));
    }
    Ok(())
}

/// The claim a waiting worker names: its file, its worker and when its lease ends.
fn waited_on(path: &std::path::Path, claim: Option<ClaimInfo>) -> String {
    let Some(c) = claim else {
        return format!("; the first, {}, was just released", path.display());
    };
    let now = now_secs();
    let when = if c.expires >= now {
        format!("its lease ends in {} s", c.expires - now)
    } else {
        format!("its lease ended {} s ago", now - c.expires)
    };
    format!("; the first, {}, by {}: {when}", path.display(), c.worker)
}
