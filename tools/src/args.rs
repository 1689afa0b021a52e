//! Arguments shared by the subcommands: the rule switches, the starting position, the
//! search options, and the parsers of the values several commands take (thread counts,
//! table sizes, seconds).

use std::path::PathBuf;
use std::str::FromStr;

use clap::Args;
use solver::budget::EndgameChoice;
use solver::{
    Capture, Direction, EndRule, OppStore, Position, Remaining, Rules, RulesBuilder, Sowing,
};

use crate::error::CliError;

/// Pits a side when `--pits` is not given.
pub const DEFAULT_PITS: usize = 6;
/// Seeds a pit when `--seeds` is not given.
pub const DEFAULT_SEEDS: usize = 4;

/// A clap value parser that uses the solver's own `FromStr`, so an unknown value gets the
/// solver's message listing the accepted spellings.
fn switch<T: FromStr>(s: &str) -> Result<T, <T as FromStr>::Err> {
    s.parse()
}

/// The rule set: board size and every switch of the rule builder.
#[derive(Args, Clone, Debug, Default)]
pub struct RulesArgs {
    /// Pits a side, 1 to 6 [default: 6, or the pit count of --position]
    #[arg(long, value_name = "M")]
    pub pits: Option<usize>,

    /// Seeds in each pit at the start, 1 to 12 [default: 4]
    #[arg(long, value_name = "N")]
    pub seeds: Option<usize>,

    /// standard: a last seed in an empty own pit takes itself and the opposite pit, if that
    /// holds seeds; empty: also when the opposite pit is empty; none: no captures
    /// [default: standard, or none with --sowing relay]
    #[arg(long, value_name = "RULE", value_parser = switch::<Capture>)]
    pub capture: Option<Capture>,

    /// single: one lap, the turn ends where the last seed lands; relay: a last seed in an
    /// occupied pit lifts that pit and sowing goes on [default: single]
    #[arg(long, value_name = "RULE", value_parser = switch::<Sowing>)]
    pub sowing: Option<Sowing>,

    /// ccw: own row, own store, then the opponent's row; cw: own row backwards, the
    /// opponent's row, then the own store [default: ccw]
    #[arg(long, value_name = "DIR", value_parser = switch::<Direction>)]
    pub direction: Option<Direction>,

    /// skip: the opponent's store is stepped over; sow: it gets a seed like any pit
    /// [default: skip]
    #[arg(long, value_name = "RULE", value_parser = switch::<OppStore>)]
    pub opp_store: Option<OppStore>,

    /// either: the game ends as soon as either row is empty; mover: only when the player
    /// due to move has an empty row [default: either]
    #[arg(long, value_name = "RULE", value_parser = switch::<EndRule>)]
    pub end: Option<EndRule>,

    /// owner: at the end each player takes the seeds on their own side; emptier: all go to
    /// the player whose row is empty; discard: they count for nobody [default: owner]
    #[arg(long, value_name = "RULE", value_parser = switch::<Remaining>)]
    pub remaining: Option<Remaining>,

    /// Pie rule: after the first turn the second player may swap sides
    #[arg(long)]
    pub pie: bool,
}

impl RulesArgs {
    /// The rule set, with `--pits` (or the default) as the board size.
    pub fn rules(&self) -> Result<Rules, solver::RulesError> {
        self.builder(self.pits.unwrap_or(DEFAULT_PITS)).build()
    }

    fn builder(&self, pits: usize) -> RulesBuilder {
        let mut b = RulesBuilder::new(pits, self.seeds.unwrap_or(DEFAULT_SEEDS));
        b.capture = self.capture;
        if let Some(v) = self.sowing {
            b.sowing = v;
        }
        if let Some(v) = self.direction {
            b.direction = v;
        }
        if let Some(v) = self.opp_store {
            b.opp_store = v;
        }
        if let Some(v) = self.end {
            b.end = v;
        }
        if let Some(v) = self.remaining {
            b.remaining = v;
        }
        b.pie = self.pie;
        b
    }
}

/// The rules and the position of a command that only plays or shows a game.
#[derive(Args, Clone, Debug, Default)]
pub struct GameArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub position: PositionArg,
}

impl GameArgs {
    /// The rules and the position they give (see [`resolve`]).
    pub fn resolve(&self) -> Result<(Rules, Position), CliError> {
        resolve(&self.rules, &self.position)
    }
}

/// The rules, the position and the search options of a command that solves a position
/// (`solve`, `moves`, `prove`, `estimate`).
#[derive(Args, Clone, Debug)]
pub struct ProblemArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub position: PositionArg,
    #[command(flatten)]
    pub search: SearchArgs,
}

impl ProblemArgs {
    /// The rules and the position they give (see [`resolve`]).
    pub fn resolve(&self) -> Result<(Rules, Position), CliError> {
        resolve(&self.rules, &self.position)
    }
}

/// The position to start from.
#[derive(Args, Clone, Debug, Default)]
pub struct PositionArg {
    /// Start from this position instead of the start of the game:
    /// 'A-pits/A-store/B-pits/B-store/side', pits left to right as numbered (A1..Am,
    /// B1..Bm), side A (South) or B (North); e.g. 1,0,2/0/0,4,0/0/A
    #[arg(long, value_name = "P", value_parser = Position::from_str)]
    pub position: Option<Position>,
}

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
    /// to K seeds. auto: half the seeds in play less 5, within 1.5 Gi boards (at most 24
    /// seeds for 6 pits); none where --db covers that level
    #[arg(long, value_name = "K|auto|none", default_value = "auto", value_parser = parse_endgame)]
    pub endgame: EndgameChoice,
}

impl SearchArgs {
    /// The search's settings these options give (no first guess).
    pub fn settings(&self) -> solver::engine::Settings {
        solver::engine::Settings {
            threads: self.threads,
            id_depth: self.max_depth,
            split_seeds: self.split_seeds,
            guess: None,
        }
    }
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

/// A `--unit-seconds` value (`kalah prove`, `kalah estimate`): a finite number of
/// seconds from 0 to 10^9.
pub fn unit_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=1e9).contains(&v) => Ok(v),
        _ => Err(format!(
            "'{s}' is not a number of seconds from 0 to 1000000000"
        )),
    }
}

/// An `--endgame` value: a number of seeds, `auto` or `none`.
pub fn parse_endgame(s: &str) -> Result<EndgameChoice, String> {
    match s {
        "auto" => Ok(EndgameChoice::Auto),
        "none" => Ok(EndgameChoice::Off),
        _ => s
            .parse::<u32>()
            .map(EndgameChoice::Level)
            .map_err(|_| format!("expected a number of seeds, auto or none, not '{s}'")),
    }
}

/// The refusal of `--pie` by a command that has no use for it (only `kalah solve` and
/// `kalah verify` analyse the swap).
pub fn pie_unused(cmd: &str) -> CliError {
    CliError::BadOption(format!(
        "--pie: kalah {cmd} does not use the pie rule (kalah solve analyses the swap); leave \
         it out"
    ))
}

/// The rules and the position a command works on.
///
/// With `--position` and no `--pits`, the board size is the position's; with both, they
/// must agree.
pub fn resolve(rules: &RulesArgs, position: &PositionArg) -> Result<(Rules, Position), CliError> {
    match position.position {
        None => {
            let r = rules.rules()?;
            Ok((r, Position::start(&r)))
        }
        Some(p) => {
            let pits = rules.pits.unwrap_or(p.pits());
            let held =
                u64::from(p.board_seeds()) + p.stores.iter().map(|&s| u64::from(s)).sum::<u64>();
            // Without --seeds, the game named (Kalah(m,n) in every report) is the one whose
            // seeds the position holds, where there is one; the value does not depend on it.
            let mut b = rules.builder(pits);
            let cells = 2 * pits as u64;
            if rules.seeds.is_none() && held > 0 && held % cells == 0 {
                let mut held_game = b.clone();
                held_game.seeds = (held / cells) as usize;
                if held_game.clone().build().is_ok() {
                    b = held_game;
                }
            }
            let r = b.build()?;
            p.check_size(&r)?;
            // An explicit --seeds names the game (printed as Kalah(m,n)): it must be the
            // game the position holds the seeds of.
            if rules.seeds.is_some() && u64::from(r.total_seeds()) != held {
                return Err(CliError::BadOption(format!(
                    "--seeds {}: the position holds {held} seeds, not the {} of {}; leave \
                     --seeds out with --position",
                    r.seeds(),
                    r.total_seeds(),
                    format_args!("Kalah({},{})", r.pits(), r.seeds())
                )));
            }
            Ok((r, p))
        }
    }
}

/// The text of the file `path` named by `option`: a regular file of at most `max_bytes`,
/// checked before it is read (a named pipe would block the read, `/dev/zero` would fill
/// the memory); `what` names what the file should be, for the refusal of a larger one.
pub fn read_text_file(
    option: &str,
    path: &std::path::Path,
    max_bytes: u64,
    what: &str,
) -> Result<String, CliError> {
    let refuse = |why: String| CliError::BadOption(format!("{option} {}: {why}", path.display()));
    let file = db_format::open_regular(path).map_err(|e| match e {
        db_format::DbError::NotAFile { kind, .. } => {
            refuse(format!("cannot read it: {kind}, not a regular file"))
        }
        db_format::DbError::Io { source, .. } => refuse(format!("cannot read it: {source}")),
        other => refuse(other.to_string()),
    })?;
    let mut text = String::new();
    use std::io::Read;
    file.take(max_bytes + 1)
        .read_to_string(&mut text)
        .map_err(|e| refuse(format!("cannot read it: {e}")))?;
    if text.len() as u64 > max_bytes {
        return Err(refuse(format!(
            "more than {} MiB: not a {what}",
            max_bytes >> 20
        )));
    }
    Ok(text)
}
