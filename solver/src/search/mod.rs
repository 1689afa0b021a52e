//! The exact solver: iterative-deepening MTD(f) over zero-window alpha-beta.
//!
//! # Values
//!
//! A value is the *future net gain* of the side to move on a board: the seeds it will still
//! add to its store minus those the opponent will, under perfect play to the very end (no
//! early stop at half the seeds). With `S` seeds on the board it lies in `-S..=S`. The
//! final margin of a position is its store margin plus this value, signed for the side to
//! move (see [`crate::analysis`]).
//!
//! # Search
//!
//! [`Solver::test`] answers one question, "is the value at least `beta`?", and
//! [`Solver::mtdf`] narrows `lo..=hi` with such tests until it closes, starting from the
//! previous iteration's value. Iterative deepening runs depth-limited MTD(f) (the value of
//! a board at the horizon is taken as 0: no more gains) to seed the table with good moves
//! and the final exact search with a good first guess; only entries of depth
//! [`tt::EXACT`] ever bound an exact search.
//!
//! Move order: the table's move, moves to a board the endgame table or the database
//! holds (one read each, and one that cuts spares the searches of the others), moves that
//! end the game, free moves (the pit nearest the store first), then the other moves by the seeds they put in
//! the mover's store (captures by size, then a pass of the store), then by the fewest
//! seeds they leave in the opponent's row (under the default end rule those are the
//! opponent's when a row empties), then the pit nearest the store first. This order
//! halved the nodes of Kalah(6,4) from the start against ordering by the seeds captured
//! and the pit; ordering by the opponent's largest immediate gain in reply, or by a
//! history of cuts, searched more (figures: results/bench.md, "Move order").
//!
//! Bounds: a side cannot gain more than the seeds left, so a move whose gain plus the
//! seeds still in play cannot reach `beta` is not searched, and a node where some move's
//! gain less the seeds still in play (or an ended game, or a read of the endgame table or
//! the database) reaches `beta`, or where no move can, is answered before its table entry
//! is read. Above an
//! endgame table or a database, the nodes of the test root's opponent search their first
//! move before they read their table entry, and are not stored when it cuts (see
//! `Solver::test_at`). Boards with few seeds are not searched at all: they are read from
//! the search's own endgame table ([`crate::search::endgame`]) or, above it, from a
//! database ([`Probe`]).
//!
//! # Threads
//!
//! A solver given threads ([`Solver::with_threads`]) splits every search at nodes with
//! many seeds ("young brothers wait"): the first move alone, then the others shared out
//! in order between the threads, which all read and write one table. When one of them
//! cuts, the searches of the others below that node stop and drop what they had not
//! finished; nothing unfinished is ever stored or returned, so the value is exactly the
//! serial search's.

pub mod endgame;
mod order;
mod peek;
mod split;
pub mod tt;
mod variation;

use crate::board::Board;
use crate::game::{Game, Step};
use crate::probe::Probe;
use crate::search::endgame::Endgame;
use order::Ordered;
use split::Abort;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use tt::{Table, EXACT, NO_MOVE};
pub(crate) use variation::walk_variation;

/// The largest depth-limited iteration before the exact search.
pub const MAX_ID_DEPTH: u8 = 16;

/// The default deepest depth-limited iteration before the exact search (`--max-depth`).
/// The guess is closer with depth, but what the earlier tests leave in the table matters
/// as much, and 8 left the fewest nodes (figures: results/bench.md, "Move order").
pub const DEFAULT_ID_DEPTH: u8 = 8;

/// What one deepening iteration found, for progress reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iteration {
    /// The depth, or [`tt::EXACT`] for the final exact search.
    pub depth: u8,
    /// The value (future net gain for the side to move) at that depth.
    pub value: i32,
    /// Nodes searched so far, all iterations together.
    pub nodes: u64,
    /// Zero-window tests this iteration took.
    pub tests: u32,
}

/// What [`Solver::solve`] tells its caller as it goes: each zero-window test as it starts
/// and ends, and each deepening iteration as it ends. A display of a long search shows
/// them with the nodes of [`Solver::with_node_counter`]'s counter, read from another
/// thread meanwhile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A test starts: is the value at `depth` ([`tt::EXACT`]: the exact search) at least
    /// `beta`?
    Testing { depth: u8, beta: i32 },
    /// That test ended.
    Tested { depth: u8, test: Test },
    /// An iteration ended (the last one, of depth [`tt::EXACT`], is the exact search).
    Iteration(Iteration),
}

/// A search adds its nodes to the counter of [`Solver::with_node_counter`] every this many
/// nodes it counts (a few hundredths of a second of search), besides the ends of tests and
/// split points: the period of a `u16` count that wraps, so that the search's hot path
/// adds only its increment and a branch on the flag it sets (results/bench.md, "The
/// search's node counter").
pub const PUBLISH_EVERY: u64 = 1 << u16::BITS;

/// One zero-window test of MTD(f) and what it proved: with `result >= beta` the value is
/// at least `result`, otherwise at most `result` (the fail-soft bound contract of
/// [`Solver::test`]). The exact search's tests together are its proof: their best lower
/// and upper bounds meet at the value (where the value is `±seeds`, the board's own limit
/// stands in for the bound no test needs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Test {
    /// The question asked: is the value at least `beta`?
    pub beta: i32,
    /// The bound returned.
    pub result: i32,
    /// Nodes this test visited.
    pub nodes: u64,
}

impl Test {
    /// Whether the test proved a lower bound (`value >= result`) rather than an upper one.
    pub fn is_lower(&self) -> bool {
        self.result >= self.beta
    }
}

/// What a search is told: fixed once the search starts, and copied whole (one clone)
/// into the searches of a split point.
#[derive(Clone)]
struct Config<'a> {
    /// Nodes with at least this many seeds search their moves after the first in parallel
    /// (`i32::MAX`: never, the solver has one thread). Set by [`Solver::mtdf`], once the
    /// endgame table and database it splits above are known.
    split_seeds: i32,
    /// The split threshold, when not [`default_split_seeds`].
    split_from: Option<u32>,
    /// The deepest depth-limited iteration of [`Solver::value`].
    id_depth: u8,
    /// The first guess of [`Solver::solve`]'s exact search, instead of the deepening's.
    guess: Option<i32>,
    probe: Option<&'a dyn Probe>,
    probe_max: u32,
    endgame: Option<&'a Endgame>,
    /// `endgame`'s highest level, or none (`i32::MIN`) without one.
    endgame_max: i32,
    /// Set from outside ([`Solver::with_cancel`]) to stop every search of this solver: they
    /// unwind as a stopped split point's do, and the values they return mean nothing.
    cancel: Option<Arc<AtomicBool>>,
    /// Shared with a display on another thread ([`Solver::with_node_counter`]): every
    /// search of this solver, on every thread, adds its nodes to it.
    counter: Option<Arc<AtomicU64>>,
}

impl Default for Config<'_> {
    fn default() -> Self {
        Config {
            split_seeds: i32::MAX,
            split_from: None,
            id_depth: DEFAULT_ID_DEPTH,
            guess: None,
            probe: None,
            probe_max: 0,
            endgame: None,
            endgame_max: i32::MIN,
            cancel: None,
            counter: None,
        }
    }
}

/// A search: the rules, a transposition table and an optional database.
///
/// Its fields fall in three groups: what it is told (`Config`), what it
/// shares or is linked to while it runs (the table, the thread pool, the stop signal of
/// the split points above it), and what it counts (the public counters, summed over the
/// searches of every split point).
pub struct Solver<'a> {
    game: &'a Game,
    config: Config<'a>,
    /// Shared with the searches of other threads (see [`Solver::with_threads`]).
    pub table: Arc<Table>,
    /// The threads of [`Solver::with_threads`], for the split points of a search that
    /// runs outside them (searches below a split point already run on them).
    pool: Option<Arc<rayon::ThreadPool>>,
    /// For a search below a split point: when any split point above it is stopped, it
    /// unwinds without storing anything.
    stop: Option<&'a Abort<'a>>,
    stats: tt::Stats,
    /// Nodes visited: calls of [`Solver::test`] that read the transposition table, not
    /// those answered before it by the seeds left, the endgame table, a database or the
    /// moves into them (see `Solver::peek`), or by their first move (the root's
    /// opponent's, see `Solver::test_at`); the root of a test always counts.
    pub nodes: u64,
    /// Of `nodes`, those already added to the counter of [`Solver::with_node_counter`]
    /// (by this search or, merged in with their nodes, by the searches of its split
    /// points).
    published: u64,
    /// The nodes counted, modulo [`PUBLISH_EVERY`]: [`Solver::publish`] when it wraps.
    tick: u16,
    /// Values read from the database.
    pub probes: u64,
    /// Values read from the endgame table.
    pub endgame_reads: u64,
    /// The zero-window tests of the latest [`Solver::mtdf`], in order.
    pub tests: Vec<Test>,
}

impl<'a> Solver<'a> {
    /// A solver with a table of `tt_mb` MiB for the boards of the game's start position and
    /// their successors (see [`Table::for_boards`]). Refuses rules whose play can cycle:
    /// depth-first search cannot end on them (use the retrograde solver).
    pub fn new(game: &'a Game, tt_mb: usize) -> Result<Solver<'a>, SolveError> {
        // Refused before the table is allocated (it may be gigabytes).
        if game.rules().can_cycle() {
            return Err(SolveError::Cyclic);
        }
        let rules = game.rules();
        let table = Table::for_boards(tt_mb, rules.pits(), rules.total_seeds())
            .map_err(|e| SolveError::Table(tt_mb, e.to_string()))?;
        Solver::with_table(game, table)
    }

    /// A solver with a table allocated earlier: one allocated before other work (such
    /// as an endgame table's build) is faulted in meanwhile (see [`Table::new`]).
    pub fn with_table(game: &'a Game, table: Table) -> Result<Solver<'a>, SolveError> {
        if game.rules().can_cycle() {
            return Err(SolveError::Cyclic);
        }
        Ok(Solver::blank(game, Arc::new(table)))
    }

    /// A serial solver on `table` with the default settings, no endgame table, database or
    /// stop signal, and nothing counted yet.
    fn blank(game: &'a Game, table: Arc<Table>) -> Solver<'a> {
        Solver {
            game,
            config: Config::default(),
            table,
            pool: None,
            stop: None,
            stats: tt::Stats::default(),
            nodes: 0,
            published: 0,
            tick: 0,
            probes: 0,
            endgame_reads: 0,
            tests: Vec::new(),
        }
    }

    /// A serial solver with this one's settings and value sources that shares its
    /// transposition table, to search another board on another thread at the same time
    /// (the searches of many positions, as a split point's searches share it). The table
    /// is keyed on the pits alone, so what one search stores is exact for the other.
    /// Its counters start at zero.
    pub fn sibling(&self) -> Solver<'a> {
        Solver {
            config: Config {
                split_seeds: i32::MAX,
                ..self.config.clone()
            },
            ..Solver::blank(self.game, Arc::clone(&self.table))
        }
    }

    /// Probe `db` for every board with at most `db.max_seeds()` seeds on it.
    pub fn with_probe(mut self, db: &'a dyn Probe) -> Solver<'a> {
        self.config.probe_max = db.max_seeds();
        self.config.probe = Some(db);
        self
    }

    /// Read every board with at most `table.max_seeds()` seeds from `table` (before any
    /// database given to [`Solver::with_probe`]).
    pub fn with_endgame(mut self, table: &'a Endgame) -> Solver<'a> {
        self.config.endgame_max = table.max_seeds() as i32;
        self.config.endgame = Some(table);
        self
    }

    /// Search on `threads` threads: below the top of the tree, nodes with many seeds
    /// search their first move alone and then the others in parallel ("young brothers
    /// wait"), all sharing the table. Every search of this solver ([`Solver::solve`],
    /// [`Solver::value`]) then runs so. The values are exact and the same as with one
    /// thread: a move stopped unfinished is only ever dropped from a node that another
    /// move already cut. Node and table counts vary from run to run. One thread, or a
    /// pool the system refuses, leaves the search serial.
    pub fn with_threads(mut self, threads: usize) -> Solver<'a> {
        self.pool = (threads > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .ok()
            })
            .flatten()
            .map(Arc::new);
        self
    }

    /// Split the parallel search at nodes with at least `seeds` seeds instead of
    /// [`default_split_seeds`] (tests use it to split on small boards).
    pub fn with_split_seeds(mut self, seeds: u32) -> Solver<'a> {
        self.config.split_from = Some(seeds);
        self
    }

    /// [`Solver::value`] deepens to `depth` (instead of [`DEFAULT_ID_DEPTH`]) for its first
    /// guess.
    pub fn with_id_depth(mut self, depth: u8) -> Solver<'a> {
        self.config.id_depth = depth;
        self
    }

    /// [`Solver::solve`]'s exact search starts from `guess` (a future net gain of the
    /// root's side to move) instead of the deepening's value. The value found does not
    /// depend on the guess; a right one saves the tests that step up to it.
    pub fn with_guess(mut self, guess: Option<i32>) -> Solver<'a> {
        self.config.guess = guess;
        self
    }

    /// Stop every search of this solver once `flag` is set (a server's time budget): the
    /// search then unwinds without storing anything, and what it returns is not a value,
    /// so a caller that sets the flag must check [`Solver::cancelled`] and drop the
    /// results of any search it overlapped.
    pub fn with_cancel(mut self, flag: Arc<AtomicBool>) -> Solver<'a> {
        self.config.cancel = Some(flag);
        self
    }

    /// Add the nodes of every search of this solver to `counter` as they are searched, for
    /// a display of a long search to read from another thread: each search adds its own
    /// every [`PUBLISH_EVERY`] nodes it counts, and at the end of each split point (where
    /// its count jumps by its threads') and of each test, where the counter is exact; in
    /// between it lags [`Solver::nodes`] by less than [`PUBLISH_EVERY`] nodes a search in
    /// flight. Node counts and values are those of a search without it.
    pub fn with_node_counter(mut self, counter: Arc<AtomicU64>) -> Solver<'a> {
        self.config.counter = Some(counter);
        self
    }

    /// Add the nodes not yet added to the counter of [`Solver::with_node_counter`] (kept
    /// out of line: the search's hot path calls it once every [`PUBLISH_EVERY`] nodes).
    #[cold]
    #[inline(never)]
    pub(super) fn publish(&mut self) {
        if let Some(c) = &self.config.counter {
            c.fetch_add(self.nodes.wrapping_sub(self.published), Ordering::Relaxed);
            self.published = self.nodes;
        }
    }

    /// Whether the flag of [`Solver::with_cancel`] is set.
    pub fn cancelled(&self) -> bool {
        self.config
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }

    pub fn game(&self) -> &Game {
        self.game
    }

    /// Is the value of `board` (at `depth`) at least `beta`?
    ///
    /// Bound contract (fail-soft): the result `r` is a lower bound on the value when
    /// `r >= beta` and an upper bound when `r < beta`. `seeds` must be `board.seeds()`.
    /// The board must not be terminal (the game's end is handled by [`Game::play`], which
    /// never leads to a terminal board, and by the root).
    pub fn test(&mut self, board: &Board, seeds: i32, beta: i32, depth: u8) -> i32 {
        let rows = board.row_seeds(self.game.pits());
        let (before, probes) = (self.nodes, self.probes);
        let r = self.test_at(board, rows, seeds, beta, depth, None, false);
        // The root counts as a node even when its moves answered it without its table
        // entry (see `Solver::peek`): every test visits at least the board it asks about,
        // unless the database answered it (a read, not a search).
        if self.nodes == before && self.probes == probes {
            self.nodes += 1;
        }
        self.publish();
        r
    }

    /// [`Solver::test`], given the seeds in each of the board's rows (the mover's first),
    /// its rank in the endgame table when the caller computed it already (to prefetch the
    /// value), and whether the side to move is the opponent of the test's root.
    ///
    /// Above an endgame table or a database, the opponent's nodes search their first move
    /// before they read their table entry, and one that cuts on it returns without a
    /// probe or a store. In the costly test of MTD(f), the final upper bound, those are
    /// the nodes that refute, nearly always with their first move, and nearly all of them
    /// have no entry to read: the probe is a wait for memory that finds nothing, and the
    /// store fills the table with entries that a repeat of the node can rebuild from its
    /// first move's entry (figures and the other choices measured: results/bench.md,
    /// "Search efficiency").
    #[allow(clippy::too_many_arguments)]
    fn test_at(
        &mut self,
        board: &Board,
        rows: [u32; 2],
        seeds: i32,
        beta: i32,
        depth: u8,
        rank: Option<u64>,
        opponent: bool,
    ) -> i32 {
        // A side gains at most the seeds left on the board.
        if seeds < beta {
            return seeds;
        }
        if -seeds >= beta {
            return -seeds;
        }
        if seeds <= self.config.endgame_max {
            if let Some(table) = self.config.endgame {
                self.endgame_reads += 1;
                let rank = rank.unwrap_or_else(|| table.rank(board));
                return table.value_at(seeds as u32, rank);
            }
        }
        if seeds as u32 <= self.config.probe_max {
            if let Some(v) = self.config.probe.and_then(|p| p.value(board)) {
                self.probes += 1;
                return v;
            }
        }
        if depth == 0 {
            return 0;
        }
        // The table's bucket is fetched while the moves are sown and ordered, so that the
        // read from memory overlaps that work (results/bench.md, "Memory latency").
        let key = self.table.key(board);
        self.table.prefetch(&key);
        debug_assert_eq!(rows, board.row_seeds(self.game.pits()));
        let mut steps = [Step::NONE; 8];
        let mut ranks = [None; 8];
        let mut moves = Ordered::new(
            self.game,
            board,
            rows,
            seeds,
            self.config.endgame_max,
            self.config.endgame,
            match self.config.probe {
                Some(_) => i32::try_from(self.config.probe_max).unwrap_or(i32::MAX),
                None => i32::MIN,
            },
            &mut steps,
            &mut ranks,
        );
        // A node its moves answer is answered before its table entry is read: no probe,
        // no store, not counted as a node.
        let mut known = [None; 8];
        let (floor, ceiling) = self.peek(&steps, &ranks, &mut known, seeds, &moves, beta);
        if floor >= beta {
            return floor;
        }
        if ceiling < beta {
            return ceiling;
        }
        let child_depth = if depth == EXACT { EXACT } else { depth - 1 };
        let nodes_before = self.nodes;
        // Only above an endgame table or a database: without one, the search's trees are
        // small enough for the caches to hold its table, a probe is cheap, and the boards
        // sown again cost more than the probes saved.
        let below_table = self.config.endgame.is_some() || self.config.probe.is_some();
        if opponent && below_table {
            if let Some(pit) = moves.first_to_search(&steps, &known) {
                let pit = usize::from(pit);
                let v = self.through(&steps[pit], seeds, beta, child_depth, ranks[pit], opponent);
                if self.stopped() {
                    return 0;
                }
                if v >= beta {
                    return v;
                }
                // An upper bound against the same `beta`: the move is not searched again.
                known[pit] = Some(v);
            }
        }
        self.nodes += 1;
        self.tick = self.tick.wrapping_add(1);
        if self.tick == 0 {
            self.publish();
        }
        if let Some(e) = self.table.probe_key(&key, &mut self.stats) {
            if e.depth >= depth {
                if e.lo as i32 >= beta {
                    return e.lo as i32;
                }
                if (e.hi as i32) < beta {
                    return e.hi as i32;
                }
            }
            // The table's move first: it often cuts.
            moves.table_move_first(e.mv);
        }
        let mut best = i32::MIN;
        let mut best_move = NO_MOVE;
        let n = moves.n;
        for i in 0..n {
            let pit = moves.pit(i);
            let step = steps[usize::from(pit)];
            // Young brothers wait: once one move has been searched (and failed to
            // cut), the others are worth searching at the same time.
            if seeds >= self.config.split_seeds && best != i32::MIN && n - i >= 2 {
                let mut rest = [(0u8, Step::NONE); 8];
                for (r, j) in rest.iter_mut().zip(i..n) {
                    let pit = moves.pit(j);
                    *r = (pit, steps[usize::from(pit)]);
                }
                let (v, pit) = self.split(&rest[..n - i], seeds, beta, child_depth, opponent);
                if v > best {
                    best = v;
                    best_move = pit;
                }
                break;
            }
            let v = match known[usize::from(pit)] {
                Some(v) => v,
                None => {
                    let rank = ranks[usize::from(pit)];
                    self.through(&step, seeds, beta, child_depth, rank, opponent)
                }
            };
            if self.stopped() {
                return 0;
            }
            if v > best {
                best = v;
                best_move = pit;
                if v >= beta {
                    break;
                }
            }
        }
        if self.stopped() {
            return 0;
        }
        // The nodes below this one (itself counted once).
        let work = self.nodes - nodes_before - 1;
        let (lo, hi) = if best >= beta {
            (best, seeds)
        } else {
            (-seeds, best)
        };
        self.table
            .store(&key, depth, lo, hi, best_move, work, &mut self.stats);
        best
    }

    /// MTD(f): the value of a non-terminal `board` at `depth`, from a first guess. Its
    /// zero-window tests are then in [`Solver::tests`] (at most `2 * seeds + 1`: each one
    /// narrows the range of possible values).
    pub fn mtdf(&mut self, board: &Board, guess: i32, depth: u8) -> i32 {
        self.mtdf_told(board, guess, depth, &mut |_| {})
    }

    /// [`Solver::mtdf`], telling `events` of each test as it starts and ends.
    fn mtdf_told(
        &mut self,
        board: &Board,
        guess: i32,
        depth: u8,
        events: &mut dyn FnMut(&Event),
    ) -> i32 {
        self.config.split_seeds = match self.pool {
            Some(_) => {
                let below = self
                    .config
                    .probe_max
                    .max(self.config.endgame_max.max(0) as u32);
                let from = self
                    .config
                    .split_from
                    .unwrap_or_else(|| default_split_seeds(below));
                i32::try_from(from).unwrap_or(i32::MAX)
            }
            None => i32::MAX,
        };
        let seeds = board.seeds() as i32;
        let (mut lo, mut hi) = (-seeds, seeds);
        let mut g = guess.clamp(lo, hi);
        self.tests.clear();
        while lo < hi && !self.stopped() {
            let beta = if g == lo { g + 1 } else { g };
            events(&Event::Testing { depth, beta });
            let nodes = self.nodes;
            let r = self.test(board, seeds, beta, depth);
            let test = Test {
                beta,
                result: r,
                nodes: self.nodes - nodes,
            };
            self.tests.push(test);
            if !self.stopped() {
                events(&Event::Tested { depth, test });
            }
            if r < beta {
                hi = r;
            } else {
                lo = r;
            }
            g = r;
        }
        g
    }

    /// The exact value of `board` (future net gain for the side to move), by iterative
    /// deepening: depth-limited MTD(f) at depths 2, 4, … up to `max_depth`, then the exact
    /// search, whose tests [`Solver::tests`] then lists (none for a terminal `board`).
    /// `events` hears of each test and each iteration.
    pub fn solve(&mut self, board: &Board, max_depth: u8, mut events: impl FnMut(&Event)) -> i32 {
        self.tests.clear();
        if let Some(v) = self.game.terminal_value(board) {
            return v;
        }
        let mut guess = 0;
        let mut depth = 2;
        while depth <= max_depth.min(MAX_ID_DEPTH) && !self.stopped() {
            let v = self.mtdf_told(board, guess, depth, &mut events);
            guess = v;
            events(&Event::Iteration(Iteration {
                depth,
                value: v,
                nodes: self.nodes,
                tests: self.tests.len() as u32,
            }));
            depth += 2;
        }
        let v = self.mtdf_told(
            board,
            self.config.guess.unwrap_or(guess),
            EXACT,
            &mut events,
        );
        events(&Event::Iteration(Iteration {
            depth: EXACT,
            value: v,
            nodes: self.nodes,
            tests: self.tests.len() as u32,
        }));
        v
    }

    /// The exact value of `board`, for a board that may be terminal. The first guess is
    /// the middle of the table's exact bounds on the board, when it has them, else that of
    /// iterative deepening as in [`Solver::solve`]: each zero-window test a poor guess
    /// adds is a search of its own (figures: results/bench.md, "Move order").
    pub fn value(&mut self, board: &Board) -> i32 {
        if let Some(v) = self.game.terminal_value(board) {
            return v;
        }
        let bounds = self
            .table
            .probe(board, &mut self.stats)
            .filter(|e| e.depth == EXACT);
        match bounds {
            Some(e) => self.mtdf(board, (e.lo as i32 + e.hi as i32) / 2, EXACT),
            None => self.solve(board, self.config.id_depth, |_| {}),
        }
    }

    /// A principal variation from `board` whose value is `value`: at each step the first
    /// move (in search order) proved to keep the value, until the game ends.
    /// [`SolveError::Contradiction`] when no move keeps it: values read from a damaged
    /// database contradict each other.
    pub fn principal_variation(
        &mut self,
        board: &Board,
        value: i32,
    ) -> Result<Vec<(usize, Step)>, SolveError> {
        use std::ops::ControlFlow;
        let pv = walk_variation(board, value, usize::MAX, |board, value| {
            if self.game.terminal_value(board).is_some() {
                return ControlFlow::Break(());
            }
            let seeds = board.seeds() as i32;
            // The table's move first: it is usually the one that proved the value.
            let tt_move = self
                .table
                .probe(board, &mut self.stats)
                .map_or(NO_MOVE, |e| e.mv);
            let mut steps: Vec<(usize, Step)> = self.game.steps(board).collect();
            steps.sort_by_key(|&(pit, _)| pit as u8 != tt_move);
            let mut chosen = None;
            for (pit, step) in steps {
                // The move keeps the value iff its value is at least `value` (no move
                // exceeds the board's value).
                if self.through(&step, seeds, value, EXACT, None, false) >= value {
                    chosen = Some((pit, step));
                    break;
                }
            }
            if self.stopped() {
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(chosen)
        });
        self.publish();
        pv
    }

    /// Table statistics.
    pub fn table_stats(&self) -> tt::Stats {
        self.stats
    }

    #[inline]
    fn stopped(&self) -> bool {
        self.stop.is_some_and(Abort::is_set) || self.cancelled()
    }
}

/// The fewest seeds at which a parallel search splits, above a table or database of
/// boards of up to `below` seeds: subtrees smaller than that cost more to hand to another
/// thread than they take to search.
///
/// The margin above the table was measured (results/bench.md, "Two threads").
pub fn default_split_seeds(below: u32) -> u32 {
    below + SPLIT_ABOVE
}

/// See [`default_split_seeds`].
const SPLIT_ABOVE: u32 = 14;

/// Why a search was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    #[error(
        "clockwise sowing can repeat positions, which depth-first search cannot solve; \
         these rules are solved by retrograde analysis (kalah db build, then kalah solve --db)"
    )]
    Cyclic,
    #[error("cannot allocate a transposition table of {0} MiB: {1}")]
    Table(usize, String),
    /// A search was asked for without its transposition table.
    #[error("no transposition table was allocated for the search")]
    NoTable,
    /// After `moves` moves of the principal variation no move attains the value `value`
    /// (the side to move's future gain) the values read give the board: the database read
    /// contradicts itself (a damaged or wrongly built file).
    #[error(
        "the values read contradict each other: after {moves} moves of the principal \
         variation no move attains the future gain {value:+} that they give the board"
    )]
    Contradiction { moves: usize, value: i32 },
}
