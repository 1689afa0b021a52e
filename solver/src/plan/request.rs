//! A request for a solve, and the plan it becomes: the method, the endgame table's
//! level, the retrograde analysis, every figure of memory checked (the policy is stated
//! in [`super`]).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::error::PlanError;
use crate::budget::{self, EndgameChoice, Refused, Retrograde};
use crate::engine::{Method, Settings};
use crate::search::endgame::DEFAULT_BOARDS;
use crate::search::tt::Table;
use crate::{Database, Endgame, Game, Probe, Rules};

/// What a front end asks for.
#[derive(Clone)]
pub struct Request {
    pub rules: Rules,
    /// The most seeds on a board the engine will be asked about (a position's, or the
    /// whole game's for a search of many starts).
    pub seeds: u32,
    /// The database to read, opened by the front end (each names its own errors for a
    /// directory that cannot be read).
    pub db: Option<Arc<Database>>,
    /// The largest transposition table, in MiB.
    pub tt_mb: usize,
    pub endgame: EndgameChoice,
    /// The most boards an endgame table chosen by `Auto`, or a retrograde analysis held in
    /// memory, may have (the server's `--endgame-mb`); `None`: [`DEFAULT_BOARDS`] for
    /// `Auto`, and the memory available for the analysis.
    pub max_boards: Option<u64>,
    pub settings: Settings,
    /// Stops the search, and the set-up between its steps.
    pub cancel: Option<Arc<AtomicBool>>,
    /// For work only a search can do (a proof, an estimate): rules that can cycle are
    /// refused.
    pub search_only: bool,
}

impl Request {
    /// A request for `rules` with `seeds` in play and the defaults of `kalah solve`
    /// otherwise: no database, the given table size, the automatic endgame table, one
    /// thread.
    pub fn new(rules: Rules, seeds: u32, tt_mb: usize) -> Request {
        Request {
            rules,
            seeds,
            db: None,
            tt_mb,
            endgame: EndgameChoice::Auto,
            max_boards: None,
            settings: Settings::default(),
            cancel: None,
            search_only: false,
        }
    }
}

/// A request decided and checked: nothing allocated yet.
pub struct Plan {
    pub(super) request: Request,
    pub(super) game: Game,
    pub(super) method: Method,
    /// The endgame table's levels (`0..=k`), for a search.
    pub(super) endgame: Option<u32>,
    /// What the retrograde analysis will hold, when rules that can cycle must build it.
    pub(super) retrograde: Option<Retrograde>,
}

impl Plan {
    /// The plan of `request`, or why it is refused.
    pub fn new(request: Request) -> Result<Plan, Refused> {
        let game = Game::new(request.rules);
        let method = Method::for_rules(&request.rules);
        if request.search_only && method == Method::Cyclic {
            return Err(Refused::NotSearchable);
        }
        let pits = request.rules.pits();
        let seeds = request.seeds;
        let db_seeds = request.db.as_deref().map(Probe::max_seeds);
        let mut retrograde = None;
        let mut endgame = None;
        match method {
            Method::Search => {
                budget::check_table(&request.rules, seeds, request.tt_mb)?;
                let limit = request.max_boards.unwrap_or(DEFAULT_BOARDS);
                endgame = budget::endgame_level(&game, seeds, request.endgame, db_seeds, limit)?;
            }
            Method::Cyclic => {
                // The analysis holds every level already.
                budget::endgame_level(&game, seeds, request.endgame, db_seeds, 0)?;
                if db_seeds.is_none_or(|d| d < seeds) {
                    if let Some(limit) = request.max_boards {
                        let boards = Endgame::boards(pits, seeds).unwrap_or(u64::MAX);
                        if boards > limit {
                            return Err(Refused::RetrogradeLimit {
                                seeds,
                                boards,
                                limit,
                            });
                        }
                    }
                    retrograde = Some(Retrograde::check(pits, seeds)?);
                }
            }
        }
        Ok(Plan {
            request,
            game,
            method,
            endgame,
            retrograde,
        })
    }

    /// How the values are found.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The request planned.
    pub fn request(&self) -> &Request {
        &self.request
    }

    /// The game of the request's rules.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The endgame table's levels `0..=k` the search will read, if any.
    pub fn endgame_level(&self) -> Option<u32> {
        self.endgame
    }

    /// Whether the database covers every board in play (then no search below the root
    /// reads anything else, and rules that can cycle need no analysis in memory).
    pub fn db_covers(&self) -> bool {
        self.request
            .db
            .as_deref()
            .is_some_and(|d| d.max_seeds() >= self.request.seeds)
    }

    /// A fresh transposition table for one search (none for rules that can cycle),
    /// checked against the memory available as it is allocated. Allocate it before
    /// [`super::Backing::open`], so that its pages are faulted in while the endgame table is built.
    pub fn table(&self) -> Result<Option<Table>, PlanError> {
        let r = &self.request;
        table(&r.rules, r.seeds, r.tt_mb)
    }
}

/// A fresh transposition table for a search of `rules` from boards of up to `seeds`
/// seeds, at most `tt_mb` MiB (none for rules that can cycle), refused when it is larger
/// than the memory available: the search touches all of it.
pub fn table(rules: &Rules, seeds: u32, tt_mb: usize) -> Result<Option<Table>, PlanError> {
    budget::check_table(rules, seeds, tt_mb)?;
    Ok(crate::engine::transposition_table(rules, seeds, tt_mb)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Direction, RulesBuilder};

    fn clockwise(pits: usize, seeds: usize) -> Rules {
        let mut b = RulesBuilder::new(pits, seeds);
        b.direction = Direction::Cw;
        b.build().unwrap()
    }

    #[test]
    fn a_search_gets_the_automatic_endgame_level_within_the_limit() {
        let rules = Rules::kalah(6, 4).unwrap();
        let plan = Plan::new(Request::new(rules, 48, 16)).unwrap();
        assert_eq!(plan.method(), Method::Search);
        assert_eq!(plan.endgame_level(), Some(19));
        let small = Request {
            max_boards: Some(1 << 20),
            ..Request::new(rules, 48, 16)
        };
        let level = Plan::new(small).unwrap().endgame_level().unwrap();
        assert!(level < 19 && Endgame::boards(6, level).unwrap() <= 1 << 20);
        let off = Request {
            endgame: EndgameChoice::Off,
            ..Request::new(rules, 48, 16)
        };
        assert_eq!(Plan::new(off).unwrap().endgame_level(), None);
    }

    #[test]
    fn rules_that_cycle_are_refused_to_searches_and_past_the_board_limit() {
        let rules = clockwise(4, 3);
        let plan = Plan::new(Request::new(rules, 24, 16)).unwrap();
        assert_eq!(plan.method(), Method::Cyclic);
        assert!(plan.retrograde.is_some());
        assert_eq!(plan.endgame_level(), None);
        let search = Request {
            search_only: true,
            ..Request::new(rules, 24, 16)
        };
        assert_eq!(Plan::new(search).err(), Some(Refused::NotSearchable));
        let limited = Request {
            max_boards: Some(1000),
            ..Request::new(rules, 24, 16)
        };
        assert!(matches!(
            Plan::new(limited).err(),
            Some(Refused::RetrogradeLimit {
                seeds: 24,
                limit: 1000,
                ..
            })
        ));
        let level = Request {
            endgame: EndgameChoice::Level(5),
            ..Request::new(rules, 24, 16)
        };
        assert_eq!(
            Plan::new(level).err(),
            Some(Refused::EndgameUnneeded { k: 5 })
        );
    }

    #[test]
    fn an_open_plan_gives_the_engine_of_its_method() {
        use super::super::{Backing, Event};
        let rules = clockwise(2, 2);
        let plan = Plan::new(Request::new(rules, 8, 16)).unwrap();
        let mut levels = 0;
        let back = Backing::open(plan, None, |e| {
            if matches!(e, Event::RetrogradeLevel { .. }) {
                levels += 1;
            }
        })
        .unwrap();
        assert_eq!(levels, 9);
        assert_eq!(back.engine(None, None).unwrap().method(), Method::Cyclic);
        assert!(back.searcher(None).is_err());

        let rules = Rules::kalah(3, 3).unwrap();
        let request = Request {
            endgame: EndgameChoice::Level(4),
            ..Request::new(rules, 18, 16)
        };
        let plan = Plan::new(request).unwrap();
        let table = plan.table().unwrap();
        let back = Backing::open(plan, None, |_| {}).unwrap();
        assert_eq!(back.endgame().map(Endgame::max_seeds), Some(4));
        assert_eq!(back.engine(table, None).unwrap().method(), Method::Search);
    }

    #[test]
    fn a_raised_cancel_flag_stops_the_set_up() {
        let request = Request {
            cancel: Some(Arc::new(AtomicBool::new(true))),
            ..Request::new(clockwise(2, 2), 8, 16)
        };
        let plan = Plan::new(request).unwrap();
        let stopped = super::super::Backing::open(plan, None, |_| {});
        assert!(matches!(stopped, Err(PlanError::Stopped)));
    }
}
