//! The explorer's answers: the exact value of every legal move of a position, its best
//! move and principal variation, from a database where the position is inside it and
//! otherwise from a search with a time budget. Answers are cached by (rules, position).
//!
//! # Bounds
//!
//! At most `max_searches` searches run at once (a request that needs another one is told
//! the server is busy); each runs on a blocking thread with its own transposition table
//! of at most `tt_mb` MiB and is stopped once it has run `budget` ([`solver::Solver::with_cancel`]):
//! its request is then told that the search did not finish, and nothing it found is shown.
//! Endgame tables (built once per rule set, the latest one kept) hold at most
//! `endgame_boards` boards, and rules that can cycle are solved by retrograde analysis
//! only up to that many boards.
//! A value is only ever one a finished search or a database proved.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use db_format::RulesKey;
use solver::analysis::{self, MoveMargin, Oracle};
use solver::budget::{Refused, Spelling};
use solver::dbfile::Database;
use solver::engine::{Method, Settings};
use solver::plan::{Backing, Keeper, Plan, PlanError, Request};
use solver::{Engine, Game, MoveText, Position, Probe, Rules};
use tokio::sync::watch;

/// The longest principal variation given for rules that can cycle (as `kalah solve`).
const CYCLIC_PV_LIMIT: usize = 200;

/// What the server may spend on answers.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Searches running at once.
    pub max_searches: usize,
    /// The longest one search may run.
    pub budget: Duration,
    /// Each search's transposition table, in MiB.
    pub tt_mb: usize,
    /// Threads of each search.
    pub threads: usize,
    /// The largest endgame table or in-memory retrograde analysis, in boards (bytes).
    pub endgame_boards: u64,
    /// Answers kept in the cache.
    pub cache_entries: usize,
}

/// How an answer was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The game is over: the final margin is the sweep's.
    Over,
    /// Every value was read from the database.
    Database,
    /// An exact search (probing the database or an endgame table below it).
    Search,
    /// Retrograde analysis (rules that can cycle).
    Retrograde,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Over => "game over",
            Source::Database => "database",
            Source::Search => "search",
            Source::Retrograde => "retrograde",
        }
    }
}

/// One legal move, its exact value and the position it leads to.
#[derive(Clone, Debug)]
pub struct MoveValue {
    pub text: MoveText,
    /// South's final store minus North's after this move and perfect play.
    pub margin: i32,
    pub after: Position,
}

/// The exact answer for a position.
#[derive(Debug)]
pub struct Answer {
    /// Every legal move, best first for the side to move (none when the game is over).
    pub moves: Vec<MoveValue>,
    /// The position's final margin under perfect play (South minus North).
    pub value: i32,
    /// A principal variation (empty when the game is over).
    pub pv: Vec<MoveText>,
    pub source: Source,
    /// Time the answer took to compute.
    pub seconds: f64,
    /// Search nodes it took.
    pub nodes: u64,
}

/// What a request for a position's moves gets.
pub enum Outcome {
    /// The exact answer; `cached`: from the cache, not computed for this request.
    Exact { answer: Arc<Answer>, cached: bool },
    /// The search goes on: the moves solved so far (in pit order) and its time so far.
    Searching {
        solved: Vec<MoveValue>,
        elapsed: Duration,
    },
    /// The search could not be finished (its budget ran out, or the position needs more
    /// than the server allows).
    Unfinished(String),
    /// Every search slot is taken.
    Busy(String),
    /// The server failed (for example a database file it cannot read).
    Failed(String),
}

/// Why an answer could not be computed.
#[derive(Clone, Debug)]
enum ComputeError {
    /// The budget ran out, or the position is too large for the server's limits.
    Unfinished(String),
    /// Something else went wrong on the server.
    Failed(String),
}

#[derive(Clone, Debug)]
enum JobState {
    Running {
        started: Instant,
        solved: Vec<MoveValue>,
    },
    Done(Result<Arc<Answer>, ComputeError>),
}

type Key = (Rules, Position);

/// The server's spelling of the options a [`Refused`] names.
const SPELLING: Spelling = Spelling {
    endgame: "--endgame",
    endgame_sep: " ",
    tt_mb: "--tt-mb ",
    limit: "--endgame-mb",
};

/// A database opened once per rule set, or why it could not be; `None` where there is
/// none to have.
type PerRules<T> = Mutex<HashMap<RulesKey, Arc<OnceLock<Result<Option<Arc<T>>, String>>>>>;

/// Shared by every request: the databases, endgame tables, cache and running searches.
pub struct Explorer {
    db_dir: Option<PathBuf>,
    pub limits: Limits,
    databases: PerRules<Database>,
    endgames: Arc<Keeper>,
    cache: Mutex<HashMap<Key, Result<Arc<Answer>, ComputeError>>>,
    jobs: Mutex<HashMap<Key, watch::Receiver<JobState>>>,
}

/// Lock a mutex whose data stays consistent even if a holder panicked (each critical
/// section below is one map operation).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Explorer {
    pub fn new(db_dir: Option<PathBuf>, limits: Limits) -> Explorer {
        Explorer {
            db_dir,
            limits,
            databases: Mutex::new(HashMap::new()),
            endgames: Arc::new(Keeper::new()),
            cache: Mutex::new(HashMap::new()),
            jobs: Mutex::new(HashMap::new()),
        }
    }

    /// The database directory, if any.
    pub fn db_dir(&self) -> Option<&std::path::Path> {
        self.db_dir.as_deref()
    }

    /// The exact answer for `pos` under `rules`, waiting at most `wait` for a search.
    pub async fn moves(self: &Arc<Self>, rules: Rules, pos: Position, wait: Duration) -> Outcome {
        let key = (rules, pos);
        if let Some(done) = lock(&self.cache).get(&key) {
            return outcome(done.clone(), true);
        }
        // A finished game or a position inside the database needs no search: it takes no
        // search slot and no budget.
        let me = Arc::clone(self);
        let quick = tokio::task::spawn_blocking(move || me.without_search(&rules, &pos)).await;
        match quick {
            Ok(Some(r)) => {
                let r = r.map(Arc::new);
                self.remember(key, &r);
                return outcome(r, false);
            }
            Ok(None) => {}
            Err(e) => return Outcome::Failed(format!("the answer failed: {e}")),
        }
        let mut rx = {
            let mut jobs = lock(&self.jobs);
            match jobs.get(&key) {
                Some(rx) => rx.clone(),
                None => {
                    // The cache may have been filled since it was read above.
                    if let Some(done) = lock(&self.cache).get(&key) {
                        return outcome(done.clone(), true);
                    }
                    if jobs.len() >= self.limits.max_searches {
                        return Outcome::Busy(format!(
                            "the server is busy: {} searches are running, its limit \
                             (--max-searches); try again later",
                            jobs.len()
                        ));
                    }
                    let (tx, rx) = watch::channel(JobState::Running {
                        started: Instant::now(),
                        solved: Vec::new(),
                    });
                    jobs.insert(key, rx.clone());
                    self.start(key, tx);
                    rx
                }
            }
        };
        let done = tokio::time::timeout(wait, rx.wait_for(|s| matches!(s, JobState::Done(_))))
            .await
            .map(|r| r.map(|s| s.clone()));
        // A closed channel means the job is gone: its answer is in the cache.
        let state = match done {
            Ok(Ok(s)) => s,
            Ok(Err(_)) => match lock(&self.cache).get(&key) {
                Some(done) => return outcome(done.clone(), false),
                None => return Outcome::Failed("the search ended without an answer".into()),
            },
            Err(_) => rx.borrow().clone(),
        };
        match state {
            JobState::Done(r) => outcome(r, false),
            JobState::Running { started, solved } => Outcome::Searching {
                solved,
                elapsed: started.elapsed(),
            },
        }
    }

    /// Run the search of `key` on a blocking thread, stop it when the budget runs out, and
    /// file its answer in the cache.
    fn start(self: &Arc<Self>, key: Key, tx: watch::Sender<JobState>) {
        let me = Arc::clone(self);
        let cancel = Arc::new(AtomicBool::new(false));
        let tx = Arc::new(tx);
        tokio::spawn(async move {
            let (flag, progress) = (Arc::clone(&cancel), Arc::clone(&tx));
            let worker = Arc::clone(&me);
            let mut handle = tokio::task::spawn_blocking(move || {
                worker.compute(&key.0, &key.1, &flag, |m| {
                    progress.send_modify(|s| {
                        if let JobState::Running { solved, .. } = s {
                            solved.push(m.clone());
                        }
                    })
                })
            });
            let budget = me.limits.budget;
            let joined = tokio::select! {
                r = &mut handle => r,
                _ = tokio::time::sleep(budget) => {
                    cancel.store(true, Ordering::Relaxed);
                    handle.await
                }
            };
            let result = match joined {
                Ok(r) => r.map(Arc::new),
                Err(e) => Err(ComputeError::Failed(format!("the search failed: {e}"))),
            };
            // An answer cut off by the budget is not kept: the next request searches
            // again (the endgame table its first search may have spent the budget
            // building is ready by then).
            if !cancel.load(Ordering::Relaxed) {
                me.remember(key, &result);
            }
            lock(&me.jobs).remove(&key);
            tx.send_replace(JobState::Done(result));
        });
    }

    /// Keep an answer in the cache.
    fn remember(&self, key: Key, result: &Result<Arc<Answer>, ComputeError>) {
        if self.limits.cache_entries == 0 {
            return;
        }
        let mut cache = lock(&self.cache);
        if cache.len() >= self.limits.cache_entries {
            // Room for the new answer: drop an arbitrary one.
            if let Some(k) = cache.keys().next().copied() {
                cache.remove(&k);
            }
        }
        cache.insert(key, result.clone());
    }

    /// The answer for a finished game or a position inside the database; `None` for any
    /// other position (it needs a search).
    fn without_search(
        &self,
        rules: &Rules,
        pos: &Position,
    ) -> Option<Result<Answer, ComputeError>> {
        let game = Game::new(*rules);
        let over = pos.is_over(&game);
        let in_db = match self.database(rules) {
            Ok(db) => db.is_some_and(|d| d.max_seeds() >= pos.board_seeds()),
            Err(e) => return Some(Err(ComputeError::Failed(e))),
        };
        (over || in_db).then(|| self.compute(rules, pos, &Arc::new(AtomicBool::new(false)), |_| {}))
    }

    /// The database of `rules` in the server's directory (none without one, or without
    /// its level 0), opened once.
    fn database(&self, rules: &Rules) -> Result<Option<Arc<Database>>, String> {
        let Some(dir) = &self.db_dir else {
            return Ok(None);
        };
        let cell = Arc::clone(lock(&self.databases).entry(rules.db_key()).or_default());
        cell.get_or_init(|| match Database::open(dir, rules) {
            Ok(db) if db.levels() > 0 => Ok(Some(Arc::new(db))),
            Ok(_) => Ok(None),
            Err(e) => Err(format!(
                "the database in {} cannot be read: {e}",
                dir.display()
            )),
        })
        .clone()
    }

    /// The answer for `pos`, computed here and now; `cancel` stops it (the answer is then
    /// an error), `solved` hears of each move's value as it is proved.
    fn compute(
        &self,
        rules: &Rules,
        pos: &Position,
        cancel: &Arc<AtomicBool>,
        mut solved: impl FnMut(&MoveValue),
    ) -> Result<Answer, ComputeError> {
        let t = Instant::now();
        let game = Game::new(*rules);
        if let Some(margin) = crate::view::final_margin(&game, pos) {
            return Ok(Answer {
                moves: Vec::new(),
                value: margin,
                pv: Vec::new(),
                source: Source::Over,
                seconds: t.elapsed().as_secs_f64(),
                nodes: 0,
            });
        }
        let seeds = pos.board_seeds();
        let db = self.database(rules).map_err(ComputeError::Failed)?;
        let after = |m: &MoveMargin| pos.play(&game, m.text.pit - 1).0;
        let value_of = |m: &MoveMargin| MoveValue {
            text: m.text,
            margin: m.margin,
            after: after(m),
        };
        let budget_message = || {
            ComputeError::Unfinished(format!(
                "the search did not finish within the server's budget of {} s a search \
                 (--search-seconds); no value is shown but an exact one",
                self.limits.budget.as_secs()
            ))
        };
        let mut finish = |oracle: &mut dyn Oracle, source: Source, limit: usize| {
            let mut report = |m: &MoveMargin| {
                // A move whose search was stopped has no value.
                if !cancel.load(Ordering::Relaxed) {
                    solved(&value_of(m));
                }
            };
            let margins = analysis::move_margins(oracle, pos, &mut report);
            if cancel.load(Ordering::Relaxed) {
                return Err(budget_message());
            }
            // Invariant: the game is not over, so there is a legal move.
            let best = margins.first().map_or(0, |m| m.margin);
            let gain = pos.to_move.sign() * (best - pos.store_margin());
            let pv = oracle
                .principal_variation(&pos.board(), gain, limit)
                .map_err(|e| ComputeError::Failed(e.to_string()))?;
            if cancel.load(Ordering::Relaxed) {
                return Err(budget_message());
            }
            Ok(Answer {
                moves: margins.iter().map(value_of).collect(),
                value: best,
                pv: analysis::notate(pos.to_move, pv),
                source,
                seconds: 0.0,
                nodes: 0,
            })
        };
        // The plan of `kalah solve` (see `solver::plan`), within the server's limits and
        // stoppable by the request's budget; the endgame table is kept between requests.
        let request = Request {
            db,
            max_boards: Some(self.limits.endgame_boards),
            settings: Settings {
                threads: self.limits.threads,
                ..Settings::default()
            },
            cancel: Some(Arc::clone(cancel)),
            ..Request::new(*rules, seeds, self.limits.tt_mb)
        };
        let plan = Plan::new(request).map_err(|r| match r {
            Refused::RetrogradeLimit { .. } => ComputeError::Unfinished(r.message(&SPELLING)),
            r => ComputeError::Failed(r.message(&SPELLING)),
        })?;
        let failed = |e: PlanError| match e {
            PlanError::Stopped => budget_message(),
            e => ComputeError::Failed(e.to_string()),
        };
        let in_db = plan.db_covers();
        let table = plan.table().map_err(failed)?;
        let back = Backing::open(plan, Some(&self.endgames), |_| {}).map_err(failed)?;
        let mut engine = back.engine(table, None).map_err(failed)?;
        let (source, limit) = match (in_db, engine.method()) {
            (true, Method::Search) => (Source::Database, usize::MAX),
            (true, Method::Cyclic) => (Source::Database, CYCLIC_PV_LIMIT),
            (false, Method::Search) => (Source::Search, usize::MAX),
            (false, Method::Cyclic) => (Source::Retrograde, CYCLIC_PV_LIMIT),
        };
        let mut answer = finish(engine.oracle(), source, limit)?;
        if let Engine::Search(s) = &engine {
            answer.nodes = s.nodes;
        }
        answer.seconds = t.elapsed().as_secs_f64();
        Ok(answer)
    }
}

fn outcome(r: Result<Arc<Answer>, ComputeError>, cached: bool) -> Outcome {
    match r {
        Ok(answer) => Outcome::Exact { answer, cached },
        Err(ComputeError::Unfinished(m)) => Outcome::Unfinished(m),
        Err(ComputeError::Failed(m)) => Outcome::Failed(m),
    }
}
