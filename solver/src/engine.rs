//! The one place that picks where a rules set's values come from.
//!
//! Counter-clockwise play cannot repeat a position, so a depth-first search ends: the
//! values come from [`Solver`] (MTD(f)), which may read the boards with few seeds from an
//! endgame table built in memory ([`Endgame`]) or from a database on disk ([`Probe`]).
//! Clockwise play can cycle, which no depth-first search can solve: the values come from
//! the retrograde analysis of every board up to the seeds in play
//! ([`crate::gen::cyclic::solve_in_memory`]), read through a [`DbOracle`]. [`Method`] says
//! which, from the rules alone; [`Engine::new`] assembles it.

use crate::analysis::{DbOracle, Oracle};
use crate::game::Game;
use crate::probe::Probe;
use crate::rules::Rules;
use crate::search::endgame::Endgame;
use crate::search::tt::{self, Table};
use crate::search::{SolveError, Solver, DEFAULT_ID_DEPTH};

/// How a rules set's values are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// MTD(f) search (play cannot cycle).
    Search,
    /// Retrograde analysis of every board up to the seeds in play (play can cycle).
    Cyclic,
}

impl Method {
    /// The method for `rules`: [`Method::Cyclic`] exactly when play can repeat a position.
    pub fn for_rules(rules: &Rules) -> Method {
        if rules.can_cycle() {
            Method::Cyclic
        } else {
            Method::Search
        }
    }

    /// The name the command line prints (`method:` and the JSON `method` field).
    pub fn name(self) -> &'static str {
        match self {
            Method::Search => "mtdf",
            Method::Cyclic => "retrograde",
        }
    }
}

/// The search's settings (ignored by [`Method::Cyclic`]).
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Search threads (see [`Solver::with_threads`]).
    pub threads: usize,
    /// The deepest depth-limited iteration of [`Solver::value`].
    pub id_depth: u8,
    /// The split threshold, when not the default (see [`Solver::with_split_seeds`]).
    pub split_seeds: Option<u32>,
    /// The exact search's first guess, a future net gain (see [`Solver::with_guess`]).
    pub guess: Option<i32>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            threads: 1,
            id_depth: DEFAULT_ID_DEPTH,
            split_seeds: None,
            guess: None,
        }
    }
}

/// The value sources an engine reads, built beforehand (each may take long, and the
/// caller reports its progress): all borrowed for the engine's life.
#[derive(Clone, Copy, Default)]
pub struct Sources<'a> {
    /// A database on disk, probed for the boards it covers ([`Method::Search`]).
    pub db: Option<&'a dyn Probe>,
    /// The search's endgame table ([`Method::Search`]).
    pub endgame: Option<&'a Endgame>,
    /// The values of every board in play, from the retrograde analysis or a database that
    /// covers them ([`Method::Cyclic`]: required).
    pub cyclic: Option<&'a dyn Probe>,
}

/// Where a position's values come from: a search, or a complete table.
pub enum Engine<'a> {
    /// The search, probing the sources below it.
    Search(Box<Solver<'a>>),
    /// The retrograde analysis of every board in play.
    Cyclic(DbOracle<'a>),
}

impl<'a> Engine<'a> {
    /// The engine of [`Method::for_rules`] for `game`: a search on `table` (from
    /// [`transposition_table`]) reading `sources`' database and endgame table, or the
    /// cyclic analysis in `sources`. Refused when the method's part is missing.
    pub fn new(
        game: &'a Game,
        sources: Sources<'a>,
        table: Option<Table>,
        settings: &Settings,
    ) -> Result<Engine<'a>, SolveError> {
        match Method::for_rules(game.rules()) {
            Method::Cyclic => {
                let db = sources.cyclic.ok_or(SolveError::Cyclic)?;
                Ok(Engine::Cyclic(DbOracle { game, db }))
            }
            Method::Search => {
                let table = table.ok_or(SolveError::NoTable)?;
                let mut solver = Solver::with_table(game, table)?
                    .with_threads(settings.threads)
                    .with_id_depth(settings.id_depth)
                    .with_guess(settings.guess);
                if let Some(db) = sources.db {
                    solver = solver.with_probe(db);
                }
                if let Some(table) = sources.endgame {
                    solver = solver.with_endgame(table);
                }
                if let Some(s) = settings.split_seeds {
                    solver = solver.with_split_seeds(s);
                }
                Ok(Engine::Search(Box::new(solver)))
            }
        }
    }

    /// Which method this engine is.
    pub fn method(&self) -> Method {
        match self {
            Engine::Search(_) => Method::Search,
            Engine::Cyclic(_) => Method::Cyclic,
        }
    }

    /// The engine as an [`Oracle`] (the values of boards and moves).
    pub fn oracle(&mut self) -> &mut dyn Oracle {
        match self {
            Engine::Search(s) => &mut **s,
            Engine::Cyclic(o) => o,
        }
    }
}

/// The transposition table of a search of `rules` from a board of `seeds` seeds, at most
/// `max_mb` MiB ([`tt::sized_for`]), or none where the rules need no search
/// ([`Method::Cyclic`]). Allocated before an endgame table's build, so that its memory is
/// faulted in during that build.
pub fn transposition_table(
    rules: &Rules,
    seeds: u32,
    max_mb: usize,
) -> Result<Option<Table>, SolveError> {
    if Method::for_rules(rules) == Method::Cyclic {
        return Ok(None);
    }
    let tt_mb = tt::sized_for(rules.pits(), seeds, max_mb);
    Table::for_boards(tt_mb, rules.pits(), seeds)
        .map(Some)
        .map_err(|e| SolveError::Table(tt_mb, e.to_string()))
}
