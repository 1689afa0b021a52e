//! `kalah solve` and `kalah moves`: exact final margins of a position and of its moves.
//!
//! Every value printed is a final margin, South's store minus North's at the very end of
//! perfect play, stores included.

use std::time::Instant;

use clap::Args;
use serde_json::json;
use solver::analysis::{self, Bound, MoveMargin, Solution};
use solver::engine::{Engine, Method};
use solver::pie::{self, PieAnalysis};
use solver::search::tt::EXACT;
use solver::search::{Event, Iteration};
use solver::{Position, Probe};

use crate::args::{pie_unused, ProblemArgs};
use crate::error::CliError;
use crate::progress::Progress;
use crate::setup::{checked, plan_error, table_and_backing};
use crate::view::{depth_name, signed};

/// `println!` that returns an error instead of panicking when stdout is closed (for
/// example `kalah moves | head -1`).
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write;
        writeln!(std::io::stdout().lock(), $($t)*)?;
    }};
}

/// The longest principal variation printed for rules that can cycle.
const CYCLIC_PV_LIMIT: usize = 200;

/// Arguments of `kalah moves`, and all of `kalah solve`'s but its first guess.
#[derive(Args, Debug)]
pub struct MovesArgs {
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// JSON on stdout instead of the readable report (solve: one object; moves: one object
    /// per move)
    #[arg(long)]
    pub json: bool,
    /// No progress display on stderr
    #[arg(long)]
    pub quiet: bool,
}

/// Arguments of `kalah solve`: those of `kalah moves`, and the exact search's first guess
/// (`kalah moves` searches every move, so one guess has nothing to say there).
#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    pub common: MovesArgs,
    /// The exact search's first guess, a final margin (South minus North), instead of the
    /// deepening's. The value found does not depend on it; a right guess saves the tests
    /// that step up to it (to re-check a known value)
    #[arg(long, value_name = "MARGIN", allow_hyphen_values = true)]
    pub guess: Option<i32>,
}

/// `engine`, its search's nodes shown by `progress` (see [`Progress::watch`]).
fn watched<'a>(engine: Engine<'a>, progress: &Progress) -> Engine<'a> {
    match engine {
        Engine::Search(s) => Engine::Search(Box::new(progress.watch(*s))),
        e => e,
    }
}

/// What the display says of `event` of the search of `pos` (deepening from `start`): the
/// exact search's tests as they start (a line of their own where stderr is not a terminal;
/// the status message either way) and end, each as the final margin it asks about and what
/// it proved; the deepening's tests as the status message alone; each iteration as a line.
/// `test_start` is when the latest test started.
fn report_event(
    progress: &Progress,
    pos: &Position,
    event: &Event,
    start: Instant,
    test_start: &mut Instant,
) {
    match *event {
        Event::Testing { depth, beta } => {
            *test_start = Instant::now();
            let asked = Bound::question(pos, beta);
            let what = format!("{}: testing {asked}", depth_name(depth));
            if depth == EXACT && progress.plain() {
                progress.line(&format!("{:>8}: testing {asked}", depth_name(depth)));
            }
            progress.message(&what);
        }
        Event::Tested { depth, test } if depth == EXACT => {
            let secs = test_start.elapsed().as_secs_f64();
            progress.line(&format!(
                "   exact: {}? {}: {}  ({} nodes in {secs:.2}s, {:.0} nodes/s; {:.2}s in all)",
                Bound::question(pos, test.beta),
                if test.is_lower() { "yes" } else { "no" },
                Bound::of(pos, &test),
                test.nodes,
                test.nodes as f64 / secs.max(1e-9),
                start.elapsed().as_secs_f64()
            ));
        }
        Event::Tested { .. } => {}
        Event::Iteration(it) => report_iteration(progress, pos, &it, start),
    }
}

fn report_iteration(progress: &Progress, pos: &Position, it: &Iteration, start: Instant) {
    let secs = start.elapsed().as_secs_f64();
    progress.line(&format!(
        "{:>8}: margin {:>4}  nodes {:>13}  tests {:>2}  {:>8.2}s",
        depth_name(it.depth),
        signed(solver::score::margin(pos, it.value)),
        it.nodes,
        it.tests,
        secs
    ));
}

/// `kalah solve`.
pub fn run_solve(args: &SolveArgs) -> Result<(), CliError> {
    let a = &args.common;
    let (rules, pos) = a.problem.resolve()?;
    let progress = Progress::new(a.quiet, &format!("solving {rules}"));
    let search = &a.problem.search;
    let (table, back) = table_and_backing(rules, pos.board_seeds(), search, false, &progress)?;
    // The guess is a final margin; the search's is the side to move's future gain (any
    // integer: the search clamps it to the seeds in play).
    let guess = args.guess.map(|m| solver::score::gain(&pos, m));
    let mut engine = watched(back.engine(table, guess).map_err(plan_error)?, &progress);
    let start = Instant::now();
    let mut test_start = start;
    let found = match &mut engine {
        Engine::Search(solver) => analysis::solve(solver, &pos, a.problem.search.max_depth, |e| {
            report_event(&progress, &pos, e, start, &mut test_start)
        }),
        Engine::Cyclic(o) => analysis::solve_by_oracle(o, &pos, CYCLIC_PV_LIMIT),
    };
    let dir = a.problem.search.db.as_deref();
    let solution: Solution = checked(&back, found, dir, &pos)?;
    let pie = if rules.pie {
        progress.message("pie rule: solving every whole first turn");
        let mut done = 0;
        Some(pie::analyse(engine.oracle(), &pos, |t| {
            done += 1;
            progress.line(&format!(
                "pie rule: {}: {}  ({done} solved, {:.2}s)",
                turn_text(&t.moves),
                signed(t.margin),
                start.elapsed().as_secs_f64()
            ));
        }))
    } else {
        None
    };
    checked(&back, Ok(()), dir, &pos)?;
    let seconds = start.elapsed().as_secs_f64();
    progress.finish();
    let (nodes, probes, reads, tt) = match &engine {
        Engine::Search(s) => (s.nodes, s.probes, s.endgame_reads, Some(s.table_stats())),
        Engine::Cyclic(_) => (0, 0, 0, None),
    };
    let endgame_seeds = back.endgame().map(|e| e.max_seeds());
    let nps = if seconds > 0.0 {
        nodes as f64 / seconds
    } else {
        0.0
    };
    let pv: Vec<String> = solution.pv.iter().map(|m| m.to_string()).collect();
    let method = engine.method();
    if a.json {
        let mut obj = json!({
            "rules": rules.to_string(),
            "position": pos.to_string(),
            "value": solution.margin,
            "future_gain": solution.value,
            "side_to_move": pos.to_move.letter().to_string(),
            "best_move": pv.first(),
            "pv": pv,
            "nodes": nodes,
            "db_probes": probes,
            "endgame_seeds": endgame_seeds,
            "endgame_reads": reads,
            "seconds": seconds,
            "setup_seconds": back.setup_seconds,
            "nodes_per_second": nps,
            "method": method.name(),
            "proved": true,
            "proof": solution.proof.iter().map(|b| json!({
                "bound": if b.at_least { "at_least" } else { "at_most" },
                "margin": b.margin,
                "nodes": b.nodes,
            })).collect::<Vec<_>>(),
        });
        if let Some(p) = &pie {
            obj["pie_value"] = json!(p.pie_value);
            obj["turns"] = pie_turns_json(p);
        }
        say!("{obj}");
        return Ok(());
    }
    say!("rules:     {rules}");
    say!("position:  {pos}");
    say!(
        "value:     {} (final margin, South minus North; {} to move {})",
        signed(solution.margin),
        crate::view::side_name(pos.to_move),
        match solution.value {
            0 => "gains as much as the opponent from here".to_string(),
            v if v > 0 => format!("gains {v} more than the opponent from here"),
            v => format!("gains {} fewer than the opponent from here", -v),
        }
    );
    match pv.first() {
        Some(b) => say!("best move: {b}"),
        None => say!("best move: none (the game is over)"),
    }
    if !pv.is_empty() {
        let more = if method == Method::Cyclic && pv.len() == CYCLIC_PV_LIMIT {
            " … (cut after the first moves: play that can cycle may keep its value for ever)"
        } else {
            ""
        };
        say!("pv:        {}{more}", pv.join(" "));
    }
    say!("method:    {}", method.name());
    if !solution.proof.is_empty() {
        let tests: Vec<String> = solution
            .proof
            .iter()
            .map(|b| format!("{b} ({} nodes)", b.nodes))
            .collect();
        say!("proof:     {}", tests.join(", "));
    }
    say!(
        "nodes:     {nodes}  ({:.0} nodes/s; {probes} database probes)",
        nps
    );
    if let Some(k) = endgame_seeds {
        say!("endgame:   boards with up to {k} seeds, {reads} reads");
    }
    say!(
        "time:      {seconds:.3}s search, {:.3}s before it (database, endgame table)",
        back.setup_seconds
    );
    if let (Engine::Search(s), Some(st)) = (&engine, tt) {
        say!(
            "table:     {} MiB, {} probes, {:.1}% hits, {} stores, {} evictions",
            s.table.bytes() >> 20,
            st.probes,
            100.0 * st.hits as f64 / st.probes.max(1) as f64,
            st.stores,
            st.evictions
        );
    }
    if let Some(p) = &pie {
        print_pie(p, pos.to_move)?;
    }
    Ok(())
}

fn pie_turns_json(p: &PieAnalysis) -> serde_json::Value {
    p.turns
        .iter()
        .map(|t| {
            json!({
                "turn": turn_text(&t.moves),
                "value": t.margin,
                "swap": t.swap,
            })
        })
        .collect()
}

/// A whole turn as its moves, such as `A2+ A6`.
fn turn_text(moves: &[solver::notation::MoveText]) -> String {
    moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn print_pie(p: &PieAnalysis, opener: solver::Side) -> Result<(), CliError> {
    say!(
        "pie rule:  the opener ({}) ends with {} under the pie rule",
        crate::view::side_name(opener),
        signed(p.pie_value)
    );
    say!("  {:<24} {:>7}  second player", "first turn", "margin");
    for t in &p.turns {
        say!(
            "  {:<24} {:>7}  {}",
            turn_text(&t.moves),
            signed(t.margin),
            if t.swap { "swaps" } else { "keeps" }
        );
    }
    Ok(())
}

/// `kalah moves`.
pub fn run_moves(a: &MovesArgs) -> Result<(), CliError> {
    let (rules, pos) = a.problem.resolve()?;
    if rules.pie {
        return Err(pie_unused("moves"));
    }
    let progress = Progress::new(a.quiet, &format!("solving the moves of {pos}"));
    let search = &a.problem.search;
    let (table, back) = table_and_backing(rules, pos.board_seeds(), search, false, &progress)?;
    let start = Instant::now();
    let mut engine = watched(back.engine(table, None).map_err(plan_error)?, &progress);
    // The status says what is searched now, not the last step of the set-up (the endgame
    // table's level) that set it before.
    let total = back.game().steps(&pos.board()).count();
    let searching = |done: usize| format!("searching the moves of {pos}: {done} of {total} solved");
    if !pos.is_over(back.game()) {
        progress.announce(&searching(0));
    }
    let mut done = 0;
    let margins: Vec<MoveMargin> = analysis::move_margins(engine.oracle(), &pos, |m| {
        done += 1;
        progress.line(&format!(
            "{}: {}  ({done} solved, {:.2}s)",
            m.text,
            signed(m.margin),
            start.elapsed().as_secs_f64()
        ));
        progress.message(&searching(done));
    });
    progress.finish();
    checked(&back, Ok(()), a.problem.search.db.as_deref(), &pos)?;
    let seconds = start.elapsed().as_secs_f64();
    if a.json {
        for m in &margins {
            say!("{}", json!({"move": m.text.to_string(), "value": m.margin}));
        }
        return Ok(());
    }
    if margins.is_empty() {
        say!("no moves: the game is over");
        return Ok(());
    }
    say!("{rules}");
    say!("position: {pos}");
    say!("{:<8} {:>7}", "move", "margin");
    for m in &margins {
        say!("{:<8} {:>7}", m.text.to_string(), signed(m.margin));
    }
    let nodes = match &engine {
        Engine::Search(s) => format!(", {} nodes", s.nodes),
        Engine::Cyclic(_) => String::new(),
    };
    say!(
        "({} moves, {:.3}s{nodes}; margins are South minus North)",
        margins.len(),
        seconds
    );
    Ok(())
}
