//! `kalah solve` and `kalah moves`: exact final margins of a position and of its moves.
//!
//! Every value printed is a final margin, South's store minus North's at the very end of
//! perfect play, stores included.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use serde_json::json;
use solver::analysis::{self, Bound, MoveMargin, Solution};
use solver::dbfile::Database;
use solver::engine::{Engine, Method, Settings, Sources};
use solver::pie::{self, PieAnalysis};
use solver::search::tt::{Table, EXACT};
use solver::search::{Event, Iteration};
use solver::{gen::cyclic, Endgame, Game, MemoryDb, Position, Probe, Rules};

use crate::args::{resolve, PositionArg, RulesArgs};
use crate::error::CliError;
pub use crate::progress::Progress;

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

/// Options shared by the commands that search.
#[derive(Args, Debug, Clone)]
pub struct SearchArgs {
    /// Transposition table size in MiB, from 1 (no more than the memory available)
    #[arg(long, value_name = "MB", default_value_t = solver::search::tt::DEFAULT_MB,
          value_parser = parse_tt_mb)]
    pub tt_mb: usize,
    /// Search threads, all cores by default: the search splits its larger nodes' moves
    /// between them, all sharing one table (for the pie rule's and each move's search too)
    #[arg(long, value_name = "N", default_value_t = all_cores(), value_parser = parse_threads)]
    pub threads: usize,
    /// With several threads: split the search at nodes with at least this many seeds
    /// (default: the endgame table's or database's level plus 14)
    #[arg(long, value_name = "SEEDS")]
    pub split_seeds: Option<u32>,
    /// Endgame database directory (from `kalah db build`) to probe
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Deepest depth-limited iteration before the exact search
    #[arg(long, value_name = "D", default_value_t = solver::search::DEFAULT_ID_DEPTH)]
    pub max_depth: u8,
    /// Endgame table built in memory before the search: the value of every board with up
    /// to K seeds. auto: half the seeds in play less 6, within 2 Gi boards (at most 25
    /// seeds for 6 pits); none with --db, whose levels take its place
    #[arg(long, value_name = "K|auto|none", default_value = "auto", value_parser = parse_endgame)]
    pub endgame: EndgameArg,
}

/// The machine's cores (1 where the system cannot say): the default `--threads`.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// `--threads` may ask for at most this many threads per core: more only add switching
/// (a search on 100000 threads took minutes instead of half a second).
pub const THREADS_PER_CORE: usize = 4;

/// A `--threads` value, the same for every command: a whole number from 1 to
/// [`THREADS_PER_CORE`] times the machine's cores.
pub fn parse_threads(s: &str) -> Result<usize, String> {
    let max = THREADS_PER_CORE * all_cores();
    match s.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        Ok(0) => Err(format!(
            "'0' is not a thread count: 0 threads cannot run anything (give a whole number \
             from 1 to {max})"
        )),
        Ok(n) => Err(format!(
            "{n} threads is more than {THREADS_PER_CORE} per core of this machine's {} \
             (at most {max}): more threads than that only slow the work down",
            all_cores()
        )),
        Err(_) => Err(format!(
            "'{s}' is not a thread count (a whole number from 1 to {max})"
        )),
    }
}

/// A `--tt-mb` value: a whole number of MiB from 1 (a table of 0 MiB cannot hold the
/// search; the memory it may take is checked when it is allocated).
pub fn parse_tt_mb(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => {
            Err("a transposition table of 0 MiB cannot hold a search: give at least 1".to_string())
        }
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "'{s}' is not a size in MiB (a whole number from 1)"
        )),
    }
}

/// The transposition table of [`solver::engine::transposition_table`], refused with the
/// figures when it is larger than the memory available (MemAvailable in /proc/meminfo),
/// before any of it is allocated: the search touches all of it.
pub fn transposition_table(
    rules: &Rules,
    seeds: u32,
    max_mb: usize,
) -> Result<Option<solver::search::tt::Table>, CliError> {
    if Method::for_rules(rules) != Method::Cyclic {
        let mb = solver::search::tt::sized_for(rules.pits(), seeds, max_mb) as u64;
        check_table_memory(max_mb, mb)?;
    }
    Ok(solver::engine::transposition_table(rules, seeds, max_mb)?)
}

/// `--tt-mb max_mb` refused when its table of `mb` MiB is more than the memory available
/// (MemAvailable in /proc/meminfo; not checked where there is none).
pub fn check_table_memory(max_mb: usize, mb: u64) -> Result<(), CliError> {
    match crate::cmd::db::mem_available() {
        Some(avail) if mb.saturating_mul(1 << 20) > avail => Err(CliError::BadOption(format!(
            "--tt-mb {max_mb}: a transposition table of {mb} MiB is more than the {} MiB of \
             memory available (MemAvailable in /proc/meminfo)",
            avail >> 20
        ))),
        _ => Ok(()),
    }
}

/// The `--endgame` choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndgameArg {
    Auto,
    Off,
    Level(u32),
}

/// The largest table `--endgame K` may ask for, in boards (and bytes): 4 GiB.
const MAX_ENDGAME_BOARDS: u64 = 4 << 30;

pub fn parse_endgame(s: &str) -> Result<EndgameArg, String> {
    match s {
        "auto" => Ok(EndgameArg::Auto),
        "none" => Ok(EndgameArg::Off),
        _ => s
            .parse::<u32>()
            .map(EndgameArg::Level)
            .map_err(|_| format!("expected a number of seeds, auto or none, not '{s}'")),
    }
}

/// Arguments of `kalah moves`, and all of `kalah solve`'s but its first guess.
#[derive(Args, Debug)]
pub struct MovesArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub position: PositionArg,
    #[command(flatten)]
    pub search: SearchArgs,
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

/// The boards the retrograde analysis of rules that can cycle holds to solve a position
/// with `seeds` seeds on a board of `pits` pits a side, and the bytes it needs: one a
/// board for every level, and for the level being solved its working arrays (a floor, a
/// cap and a move count a board, and up to `pits` same-level children of four bytes, a
/// bound on [`solver::gen::cyclic`]'s arrays). `None` where a figure overflows.
fn cyclic_estimate(pits: usize, seeds: u32) -> (Option<u64>, Option<u64>) {
    let cells = 2 * pits;
    let positions = (0..=seeds).try_fold(0u64, |sum, k| {
        sum.checked_add(db_format::checked_level_size(cells, k)?)
    });
    let top = db_format::checked_level_size(cells, seeds);
    let bytes = positions
        .zip(top)
        .and_then(|(p, t)| p.checked_add(t.checked_mul(3 + 4 * pits as u64)?));
    (positions, bytes)
}

/// The refusal of `--pie` by a command that has no use for it (only `kalah solve` and
/// `kalah verify` analyse the swap).
pub fn pie_unused(cmd: &str) -> CliError {
    CliError::BadOption(format!(
        "--pie: kalah {cmd} does not use the pie rule (kalah solve analyses the swap); leave \
         it out"
    ))
}

/// `--db DIR` checked before any level is looked for in it: a missing path, a link to
/// one, a path through a file, a file and an unreadable directory each get their own
/// message (not "level 0 is missing").
pub fn check_db_dir(dir: &std::path::Path) -> Result<(), CliError> {
    use std::io::ErrorKind;
    let why = match std::fs::metadata(dir) {
        Err(e) if e.kind() == ErrorKind::NotFound => match std::fs::symlink_metadata(dir) {
            Ok(_) => "a symbolic link to a path that does not exist".to_string(),
            Err(_) => "no such directory".to_string(),
        },
        Err(e) if e.kind() == ErrorKind::NotADirectory => {
            "a part of the path before the last is a file, not a directory".to_string()
        }
        Err(e) => format!("cannot reach it: {e}"),
        Ok(m) if !m.is_dir() => {
            "not a directory (give the directory of the level files)".to_string()
        }
        Ok(_) => match std::fs::read_dir(dir) {
            Ok(_) => return Ok(()),
            Err(e) => format!("cannot read the directory: {e}"),
        },
    };
    Err(CliError::BadOption(format!(
        "--db {}: {why}",
        dir.display()
    )))
}

/// Resources that must outlive the engine.
pub(crate) struct Backing {
    game: Game,
    db: Option<Database>,
    memory: Option<MemoryDb>,
    endgame: Option<Endgame>,
    /// Time spent before the search: opening the database, building the endgame table
    /// (or, for rules that can cycle, the retrograde analysis).
    setup_seconds: f64,
}

pub(crate) fn backing(
    rules: Rules,
    pos: &Position,
    search: &SearchArgs,
    progress: &Progress,
) -> Result<Backing, CliError> {
    let t = Instant::now();
    let game = Game::new(rules);
    let db = match &search.db {
        Some(dir) => {
            check_db_dir(dir)?;
            let db = Database::open(dir, &rules).map_err(crate::cmd::db::DbCmdError::from)?;
            if db.levels() == 0 {
                return Err(CliError::NoDatabase {
                    dir: dir.clone(),
                    file: db_format::file_name(&rules.db_key(), 0),
                });
            }
            progress.line(&format!(
                "database {}: levels 0..={}",
                dir.display(),
                db.levels().saturating_sub(1)
            ));
            Some(db)
        }
        None => None,
    };
    let memory = if Method::for_rules(&rules) == Method::Cyclic {
        let seeds = pos.board_seeds();
        let (positions, bytes) = cyclic_estimate(rules.pits(), seeds);
        let avail = crate::cmd::db::mem_available();
        let fits = match (bytes, avail) {
            (Some(b), Some(a)) => b <= a,
            (None, _) => false,
            (Some(_), None) => true,
        };
        let figures = format!(
            "{} positions, about {} MiB",
            positions.map_or("more than 2^64".to_string(), |p| p.to_string()),
            bytes.map_or("more than 2^44".to_string(), |b| (b >> 20).to_string())
        );
        if !fits {
            return Err(CliError::BadOption(format!(
                "clockwise sowing can cycle, so these rules are solved by retrograde analysis \
                 of every board with up to {seeds} seeds: {figures}, but only {} MiB of memory \
                 are available (MemAvailable in /proc/meminfo); solve a position with fewer \
                 seeds",
                avail.unwrap_or(0) >> 20
            )));
        }
        progress.line(&format!(
            "clockwise sowing can cycle: retrograde analysis of every board with up to {seeds} \
             seeds ({figures})"
        ));
        let t = Instant::now();
        let mem = cyclic::solve_in_memory(&game, &pos.board(), |k, n| {
            progress.message(&format!("retrograde level {k}/{seeds}: {n} boards"));
        })?;
        progress.line(&format!(
            "retrograde analysis done in {:.2}s",
            t.elapsed().as_secs_f64()
        ));
        Some(mem)
    } else {
        None
    };
    let endgame = endgame_table(
        &game,
        pos.board_seeds(),
        search.endgame,
        db.is_some(),
        |msg, done| {
            if done {
                progress.line(msg);
            } else {
                progress.message(msg);
            }
        },
    )?;
    Ok(Backing {
        game,
        db,
        memory,
        endgame,
        setup_seconds: t.elapsed().as_secs_f64(),
    })
}

/// The endgame table `--endgame` asks for, for a search of boards with up to `seeds`
/// seeds, built on the global rayon pool. `progress` hears of each level and of the end.
pub fn endgame_table(
    game: &Game,
    seeds: u32,
    arg: EndgameArg,
    have_db: bool,
    progress: impl Fn(&str, bool),
) -> Result<Option<Endgame>, CliError> {
    if Method::for_rules(game.rules()) == Method::Cyclic {
        // The retrograde analysis holds every level already.
        if let EndgameArg::Level(k) = arg {
            return Err(CliError::BadOption(format!(
                "--endgame {k}: clockwise rules are solved by retrograde analysis, which \
                 holds every level already; leave --endgame out"
            )));
        }
        return Ok(None);
    }
    let level = match arg {
        EndgameArg::Off => None,
        EndgameArg::Auto if have_db => None,
        EndgameArg::Auto => {
            Endgame::level_for(game.pits(), seeds, solver::search::endgame::DEFAULT_BOARDS)
        }
        EndgameArg::Level(k) => match Endgame::boards(game.pits(), k) {
            Some(b) if b <= MAX_ENDGAME_BOARDS => Some(k),
            _ => {
                return Err(CliError::BadOption(format!(
                    "--endgame {k}: the table would hold more than {MAX_ENDGAME_BOARDS} \
                         boards; build a database with `kalah db build` instead"
                )))
            }
        },
    };
    let Some(k) = level else {
        return Ok(None);
    };
    if let (Some(boards), Some(avail)) = (
        Endgame::boards(game.pits(), k),
        crate::cmd::db::mem_available(),
    ) {
        if boards > avail {
            return Err(CliError::BadOption(format!(
                "the endgame table of boards with up to {k} seeds needs {} MiB but only {} MiB \
                 of memory are available (MemAvailable in /proc/meminfo); choose a smaller \
                 --endgame",
                boards >> 20,
                avail >> 20
            )));
        }
    }
    let t = Instant::now();
    let table = Endgame::build(game, k, |j, _| {
        progress(&format!("endgame table: level {j}/{k}"), false);
    })?;
    progress(
        &format!(
            "endgame table: boards with up to {k} seeds ({} boards) in {:.2}s",
            table.len(),
            t.elapsed().as_secs_f64()
        ),
        true,
    );
    Ok(Some(table))
}

/// The engine for `b` (see [`solver::engine`]): a search on `table` (from
/// [`transposition_table`]) with `search`'s settings, or `b`'s retrograde analysis.
pub(crate) fn engine<'a>(
    b: &'a Backing,
    search: &SearchArgs,
    table: Option<Table>,
    guess: Option<i32>,
) -> Result<Engine<'a>, CliError> {
    let sources = Sources {
        db: b.db.as_ref().map(|db| db as &dyn Probe),
        endgame: b.endgame.as_ref(),
        cyclic: b.memory.as_ref(),
    };
    let settings = Settings {
        threads: search.threads,
        id_depth: search.max_depth,
        split_seeds: search.split_seeds,
        guess,
    };
    Ok(Engine::new(&b.game, sources, table, &settings)?)
}

/// `engine`, its search's nodes shown by `progress` (see [`Progress::watch`]).
fn watched<'a>(engine: Engine<'a>, progress: &Progress) -> Engine<'a> {
    match engine {
        Engine::Search(s) => Engine::Search(Box::new(progress.watch(*s))),
        e => e,
    }
}

fn signed(v: i32) -> String {
    format!("{v:+}")
}

fn depth_name(d: u8) -> String {
    if d == EXACT {
        "exact".to_string()
    } else {
        format!("depth {d}")
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

/// What a solve on `db` (opened from `dir`) returned, checked: `Err` if a value read from
/// the database was out of range (naming the file and the entry), or if the values read
/// contradicted each other (naming the damaged file, found by checking every level's
/// checksum). Nothing read through a database is printed before this check.
pub fn checked<T>(
    found: Result<T, solver::SolveError>,
    db: Option<(&Database, &std::path::Path)>,
    pos: &Position,
) -> Result<T, CliError> {
    if let Some((db, _)) = db {
        db.check().map_err(crate::cmd::db::DbCmdError::from)?;
    }
    match (found, db) {
        (Err(e @ solver::SolveError::Contradiction { .. }), Some((db, dir))) => {
            let finding = match db.find_damage() {
                Err(damage) => format!("the damage: {damage}"),
                Ok(()) => "every level file's checksum and value range hold, so the \
                           files were built wrong: rebuild the database"
                    .to_string(),
            };
            Err(CliError::Contradiction {
                dir: dir.to_path_buf(),
                position: pos.to_string(),
                source: e,
                finding,
            })
        }
        (found, _) => Ok(found?),
    }
}

/// `kalah solve`.
pub fn run_solve(args: &SolveArgs) -> Result<(), CliError> {
    let a = &args.common;
    let (rules, pos) = resolve(&a.rules, &a.position)?;
    let progress = Progress::new(a.quiet, &format!("solving {rules}"));
    let table = transposition_table(&rules, pos.board_seeds(), a.search.tt_mb)?;
    let back = backing(rules, &pos, &a.search, &progress)?;
    // The guess is a final margin; the search's is the side to move's future gain (any
    // integer: the search clamps it to the seeds in play).
    let guess = args.guess.map(|m| solver::score::gain(&pos, m));
    let mut engine = watched(engine(&back, &a.search, table, guess)?, &progress);
    let start = Instant::now();
    let mut test_start = start;
    let found = match &mut engine {
        Engine::Search(solver) => analysis::solve(solver, &pos, a.search.max_depth, |e| {
            report_event(&progress, &pos, e, start, &mut test_start)
        }),
        Engine::Cyclic(o) => analysis::solve_by_oracle(o, &pos, CYCLIC_PV_LIMIT),
    };
    let db = back.db.as_ref().zip(a.search.db.as_deref());
    let solution: Solution = checked(found, db, &pos)?;
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
    checked(Ok(()), db, &pos)?;
    let seconds = start.elapsed().as_secs_f64();
    progress.finish();
    let (nodes, probes, reads, tt) = match &engine {
        Engine::Search(s) => (s.nodes, s.probes, s.endgame_reads, Some(s.table_stats())),
        Engine::Cyclic(_) => (0, 0, 0, None),
    };
    let endgame_seeds = back.endgame.as_ref().map(|e| e.max_seeds());
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
    let (rules, pos) = resolve(&a.rules, &a.position)?;
    if rules.pie {
        return Err(crate::cmd::solve::pie_unused("moves"));
    }
    let progress = Progress::new(a.quiet, &format!("solving the moves of {pos}"));
    let table = transposition_table(&rules, pos.board_seeds(), a.search.tt_mb)?;
    let back = backing(rules, &pos, &a.search, &progress)?;
    let start = Instant::now();
    let mut engine = watched(engine(&back, &a.search, table, None)?, &progress);
    let mut done = 0;
    let margins: Vec<MoveMargin> = analysis::move_margins(engine.oracle(), &pos, |m| {
        done += 1;
        progress.line(&format!(
            "{}: {}  ({done} solved, {:.2}s)",
            m.text,
            signed(m.margin),
            start.elapsed().as_secs_f64()
        ));
    });
    progress.finish();
    checked(Ok(()), back.db.as_ref().zip(a.search.db.as_deref()), &pos)?;
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
