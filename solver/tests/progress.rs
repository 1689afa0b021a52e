//! What a search publishes while it runs, for a display of a long search: its events
//! (each test as it starts and ends, each iteration) and its node counter.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use solver::search::tt::EXACT;
use solver::search::{Event, Test, PUBLISH_EVERY};
use solver::{Board, Game, Probe, Rules, Solver};

/// A database that holds nothing and is asked about every board (so the search is the
/// same as without it): each time, it reads the counter, to see it move inside a test.
struct Spy {
    counter: Arc<AtomicU64>,
    seen: Mutex<HashSet<u64>>,
}

impl Probe for Spy {
    fn max_seeds(&self) -> u32 {
        u32::MAX
    }

    fn value(&self, _: &Board) -> Option<i32> {
        let n = self.counter.load(Ordering::Relaxed);
        self.seen.lock().unwrap().insert(n);
        None
    }
}

/// A database that holds nothing, for the unwatched solve: a search with a database
/// searches the refuting side's nodes as it does above a table (see `solver::search`), so
/// the two solves compared must both have one.
struct Blank;

impl Probe for Blank {
    fn max_seeds(&self) -> u32 {
        u32::MAX
    }

    fn value(&self, _: &Board) -> Option<i32> {
        None
    }
}

/// A watched solve: the value, the solver's nodes and tests, the events heard, and the
/// counter's reading at each test's end next to the nodes of the tests ended so far.
struct Watched {
    value: i32,
    nodes: u64,
    tests: Vec<Test>,
    events: Vec<Event>,
    readings: Vec<(u64, u64)>,
    counter: u64,
    /// The counter's distinct values seen during the search other than 0 and its readings
    /// at the ends of tests: the values it had inside tests.
    seen: usize,
}

/// Solve the start of `game` on `threads` threads, splitting at every node with a seed
/// or more (the threads then search nearly every node), counted and spied on.
fn watched_solve(game: &Game, threads: usize) -> Watched {
    let rules = game.rules();
    let board = Board::start(rules.pits(), rules.seeds());
    let counter = Arc::new(AtomicU64::new(0));
    let spy = Spy {
        counter: Arc::clone(&counter),
        seen: Mutex::new(HashSet::new()),
    };
    let mut solver = Solver::new(game, 4)
        .unwrap()
        .with_threads(threads)
        .with_split_seeds(1)
        .with_probe(&spy)
        .with_node_counter(Arc::clone(&counter));
    let mut events = Vec::new();
    let mut readings = Vec::new();
    let mut ended = 0;
    let value = solver.solve(&board, 8, |e| {
        if let Event::Tested { test, .. } = e {
            ended += test.nodes;
            readings.push((counter.load(Ordering::Relaxed), ended));
        }
        events.push(*e);
    });
    let seen = {
        let mut seen = spy.seen.lock().unwrap().clone();
        seen.remove(&0);
        for (read, _) in &readings {
            seen.remove(read);
        }
        seen.len()
    };
    Watched {
        value,
        nodes: solver.nodes,
        tests: solver.tests.clone(),
        events,
        readings,
        counter: counter.load(Ordering::Relaxed),
        seen,
    }
}

#[test]
fn a_counted_search_searches_the_same_nodes_and_its_counter_meets_them_at_each_test() {
    let rules = Rules::kalah(4, 5).unwrap();
    let game = Game::new(rules);
    let board = Board::start(4, 5);
    let mut plain = Solver::new(&game, 4).unwrap().with_probe(&Blank);
    let want = plain.solve(&board, 8, |_| {});
    let w = watched_solve(&game, 1);
    assert_eq!(w.value, want);
    assert_eq!(w.nodes, plain.nodes);
    assert_eq!(w.tests, plain.tests);
    assert_eq!(w.counter, w.nodes);
    for (read, ended) in &w.readings {
        assert_eq!(read, ended);
    }
    // Fed as the search went, not only as tests ended.
    assert!(w.nodes > 10 * PUBLISH_EVERY, "{} nodes", w.nodes);
    assert!(
        w.seen as u64 >= w.nodes / PUBLISH_EVERY / 2,
        "{} values in {} nodes",
        w.seen,
        w.nodes
    );
}

#[test]
fn every_test_is_told_as_it_starts_and_ends_and_the_exact_ones_are_the_proof() {
    let game = Game::new(Rules::kalah(4, 4).unwrap());
    let w = watched_solve(&game, 1);
    let mut exact = Vec::new();
    let mut depths = Vec::new();
    let mut open = None;
    for e in &w.events {
        match *e {
            Event::Testing { depth, beta } => {
                assert_eq!(open, None, "a test started inside another");
                open = Some((depth, beta));
            }
            Event::Tested { depth, test } => {
                assert_eq!(open.take(), Some((depth, test.beta)), "ended unstarted");
                if depth == EXACT {
                    exact.push(test);
                }
            }
            Event::Iteration(it) => {
                assert_eq!(open, None, "an iteration ended inside a test");
                depths.push(it.depth);
            }
        }
    }
    assert_eq!(depths, [2, 4, 6, 8, EXACT]);
    assert_eq!(exact, w.tests);
    assert!(!exact.is_empty());
}

#[test]
fn the_threads_of_a_parallel_search_feed_the_counter_too() {
    let rules = Rules::kalah(4, 5).unwrap();
    let game = Game::new(rules);
    let board = Board::start(4, 5);
    let want = Solver::new(&game, 4).unwrap().solve(&board, 8, |_| {});
    let w = watched_solve(&game, 2);
    assert_eq!(w.value, want);
    // Each thread's nodes counted once: by it as it went, and the rest at the end.
    assert_eq!(w.counter, w.nodes);
    for (read, ended) in &w.readings {
        assert_eq!(read, ended);
    }
    assert!(
        w.seen as u64 >= w.nodes / PUBLISH_EVERY / 2,
        "{} values in {} nodes",
        w.seen,
        w.nodes
    );
}
