//! What a planned solve reads, opened: the database, the endgame table, the retrograde
//! analysis; and the engine over them.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::error::PlanError;
use super::keeper::Keeper;
use super::request::Plan;
use crate::budget::{self, Retrograde};
use crate::engine::{Engine, Method, Settings, Sources};
use crate::gen::cyclic::build_level_cyclic;
use crate::search::tt::Table;
use crate::{Database, Endgame, Game, MemoryDb, Probe, SolveError, Solver};

/// A step of [`Backing::open`], for a front end's progress display.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// The retrograde analysis of rules that can cycle begins.
    Retrograde { seeds: u32, figures: Retrograde },
    /// Its level `k` is built.
    RetrogradeLevel { k: u32, of: u32, boards: u64 },
    /// It is done.
    RetrogradeDone { seconds: f64 },
    /// The endgame table's level `k` is built.
    EndgameLevel { k: u32, of: u32 },
    /// The endgame table is ready (built or kept).
    EndgameDone { k: u32, boards: u64, seconds: f64 },
}

impl Event {
    /// Whether the event ends a step (a line to keep), not one on the way (a status).
    pub fn ends_step(&self) -> bool {
        !matches!(
            self,
            Event::RetrogradeLevel { .. } | Event::EndgameLevel { .. }
        )
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Event::Retrograde { seeds, figures } => write!(
                f,
                "clockwise sowing can cycle: retrograde analysis of every board with up to \
                 {seeds} seeds ({figures})"
            ),
            Event::RetrogradeLevel { k, of, boards } => {
                write!(f, "retrograde level {k}/{of}: {boards} boards")
            }
            Event::RetrogradeDone { seconds } => {
                write!(f, "retrograde analysis done in {seconds:.2}s")
            }
            Event::EndgameLevel { k, of } => write!(f, "endgame table: level {k}/{of}"),
            Event::EndgameDone { k, boards, seconds } => write!(
                f,
                "endgame table: boards with up to {k} seeds ({boards} boards) in {seconds:.2}s"
            ),
        }
    }
}

/// The value sources of a [`Plan`], opened; the engines it gives borrow them.
pub struct Backing {
    plan: Plan,
    memory: Option<MemoryDb>,
    endgame: Option<Arc<Endgame>>,
    /// Time spent opening: building the endgame table or the retrograde analysis.
    pub setup_seconds: f64,
}

impl Backing {
    /// Opens what `plan` chose, each step told to `events`: the retrograde analysis of
    /// rules that can cycle (unless the database covers the seeds in play), or the
    /// endgame table, taken from `keeper` when it holds one large enough and otherwise
    /// built (and kept there). A table to build is first checked against the memory
    /// available. The plan's cancel flag stops the set-up between levels (and, with a
    /// keeper, while a build is awaited: the build goes on and is kept).
    pub fn open(
        plan: Plan,
        keeper: Option<&Arc<Keeper>>,
        mut events: impl FnMut(Event),
    ) -> Result<Backing, PlanError> {
        let t = Instant::now();
        let game = &plan.game;
        let never = AtomicBool::new(false);
        let cancel = plan.request.cancel.as_deref().unwrap_or(&never);
        let stopped = || cancel.load(Ordering::Relaxed);
        let mut memory = None;
        if let Some(figures) = plan.retrograde {
            let seeds = plan.request.seeds;
            events(Event::Retrograde { seeds, figures });
            let started = Instant::now();
            let mut db = MemoryDb::new(game.pits());
            for k in 0..=seeds {
                if stopped() {
                    return Err(PlanError::Stopped);
                }
                let level = build_level_cyclic(game, k, &db, &|_| {})?;
                let boards = level.len() as u64;
                db.push(level)?;
                events(Event::RetrogradeLevel {
                    k,
                    of: seeds,
                    boards,
                });
            }
            events(Event::RetrogradeDone {
                seconds: started.elapsed().as_secs_f64(),
            });
            memory = Some(db);
        }
        let endgame = match plan.endgame {
            None => None,
            Some(k) => {
                let started = Instant::now();
                let kept = keeper.and_then(|kp| kp.kept(&game.rules().db_key(), k));
                let table = match (kept, keeper) {
                    (Some(t), _) => t,
                    (None, Some(kp)) => {
                        budget::check_endgame(game.pits(), k)?;
                        kp.table(game, k, cancel)?
                    }
                    (None, None) => {
                        budget::check_endgame(game.pits(), k)?;
                        let table = Endgame::build(game, k, |j, _| {
                            events(Event::EndgameLevel { k: j, of: k });
                        })?;
                        Arc::new(table)
                    }
                };
                events(Event::EndgameDone {
                    k: table.max_seeds(),
                    boards: table.len() as u64,
                    seconds: started.elapsed().as_secs_f64(),
                });
                Some(table)
            }
        };
        if stopped() {
            return Err(PlanError::Stopped);
        }
        Ok(Backing {
            plan,
            memory,
            endgame,
            setup_seconds: t.elapsed().as_secs_f64(),
        })
    }

    /// The plan opened.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The game of the request's rules.
    pub fn game(&self) -> &Game {
        &self.plan.game
    }

    /// The database read, if any.
    pub fn db(&self) -> Option<&Database> {
        self.plan.request.db.as_deref()
    }

    /// The endgame table read, if any.
    pub fn endgame(&self) -> Option<&Endgame> {
        self.endgame.as_deref()
    }

    /// The engine of the plan's method ([`crate::engine`]) on these sources: a search on
    /// `table` (from [`Plan::table`]) with the request's settings and `guess` (a future
    /// gain, see [`Solver::with_guess`]), stopped by the request's cancel flag; or the
    /// retrograde analysis (or the database, where it covers the seeds in play).
    pub fn engine(
        &self,
        table: Option<Table>,
        guess: Option<i32>,
    ) -> Result<Engine<'_>, PlanError> {
        let request = &self.plan.request;
        let db = request.db.as_deref().map(|d| d as &dyn Probe);
        let cyclic = match (&self.memory, db) {
            (Some(m), _) => Some(m as &dyn Probe),
            (None, db) if self.plan.method == Method::Cyclic => db,
            _ => None,
        };
        let sources = Sources {
            db,
            endgame: self.endgame.as_deref(),
            cyclic,
        };
        let settings = Settings {
            guess,
            ..request.settings
        };
        Ok(
            match Engine::new(&self.plan.game, sources, table, &settings)? {
                Engine::Search(s) => match &request.cancel {
                    Some(flag) => Engine::Search(Box::new(s.with_cancel(Arc::clone(flag)))),
                    None => Engine::Search(s),
                },
                cyclic => cyclic,
            },
        )
    }

    /// The search of [`Backing::engine`], for the work only a search can do (proofs,
    /// estimates): refused for rules that can cycle.
    pub fn searcher(&self, table: Option<Table>) -> Result<Solver<'_>, PlanError> {
        match self.engine(table, None)? {
            Engine::Search(s) => Ok(*s),
            Engine::Cyclic(_) => Err(SolveError::Cyclic.into()),
        }
    }

    /// What a solve on this backing found, checked before any of it is shown: a value
    /// read from the database outside its level's range, or a block that did not decode,
    /// is [`PlanError::Damaged`] naming the file; values read that contradict each other
    /// are [`PlanError::Contradiction`], with the damage found by checking every level's
    /// checksum.
    pub fn checked<T>(&self, found: Result<T, SolveError>) -> Result<T, PlanError> {
        let Some(db) = self.db() else {
            return Ok(found?);
        };
        db.check()?;
        match found {
            Err(source @ SolveError::Contradiction { .. }) => {
                let finding = match db.find_damage() {
                    Err(damage) => format!("the damage: {damage}"),
                    Ok(()) => "every level file's checksum and value range hold, so the \
                               files were built wrong: rebuild the database"
                        .to_string(),
                };
                Err(PlanError::Contradiction { source, finding })
            }
            found => Ok(found?),
        }
    }
}
