//! The fast solver against a plain, obviously correct reference: memoised negamax over
//! the rules engine, no pruning, no bounds, no ordering.

mod support;

use std::collections::HashMap;

use proptest::prelude::*;
use solver::analysis::Oracle;
use solver::{Board, Direction, Endgame, Game, Next, RulesBuilder, Solver};
use support::{acyclic_rules, reference};

#[test]
fn agrees_with_the_reference_on_every_small_board_and_switch() {
    let mut checked = 0;
    for pits in 1..=3 {
        for seeds in 1..=3 {
            for rules in acyclic_rules(pits, seeds) {
                let game = Game::new(rules);
                let mut memo = HashMap::new();
                let start = Board::start(pits, seeds as u8);
                let want = reference(&game, &start, &mut memo);
                let mut solver = Solver::new(&game, 1).unwrap();
                assert_eq!(solver.value(&start), want, "{rules}");
                // Every board the reference met (the first 300), and the value of every
                // move there: the reference saw every child of a board it solved.
                let known = |b: &Board| game.terminal_value(b).or_else(|| memo.get(b).copied());
                for (board, &v) in memo.iter().take(300) {
                    assert_eq!(solver.value(board), v, "{rules} {board:?}");
                    for (pit, step, mv) in solver.move_values(board) {
                        let child = match step.next {
                            Next::Over => 0,
                            _ => known(&step.board).expect("the reference solved every child"),
                        };
                        assert_eq!(mv, step.value_through(child), "{rules} {board:?} pit {pit}");
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "checked {checked}");
}

#[test]
fn solving_with_iterative_deepening_gives_the_same_value() {
    for rules in acyclic_rules(3, 3) {
        let game = Game::new(rules);
        let start = Board::start(3, 3);
        let want = reference(&game, &start, &mut HashMap::new());
        let mut solver = Solver::new(&game, 1).unwrap();
        assert_eq!(solver.solve(&start, 8, |_| {}), want, "{rules}");
        // `value` deepens to its own depth for a first guess: no depth changes the value.
        for depth in [0, 2, 16] {
            let mut solver = Solver::new(&game, 1).unwrap().with_id_depth(depth);
            assert_eq!(solver.value(&start), want, "{rules} depth {depth}");
        }
    }
}

#[test]
fn parallel_searches_give_the_same_values() {
    for pits in 3..=4 {
        for rules in acyclic_rules(pits, 3).into_iter().step_by(5) {
            let game = Game::new(rules);
            let start = Board::start(pits, 3);
            let want = reference(&game, &start, &mut HashMap::new());
            // The default split point (above every board of these sizes), and splits at
            // every node with a seed or more, on 2 and 4 threads.
            let mut solver = Solver::new(&game, 4).unwrap().with_threads(2);
            assert_eq!(solver.solve(&start, 6, |_| {}), want, "{rules}");
            for threads in [2, 4] {
                let mut solver = Solver::new(&game, 4)
                    .unwrap()
                    .with_threads(threads)
                    .with_split_seeds(1);
                let v = solver.solve(&start, 6, |_| {});
                assert_eq!(v, want, "{rules}, {threads} threads");
                // The bounds the threads left in the table hold: a serial search that
                // reads them gives the value too.
                assert_eq!(solver.value(&start), want, "{rules}, {threads} threads");
            }
        }
    }
}

#[test]
fn principal_variation_reaches_the_value() {
    for rules in acyclic_rules(3, 2) {
        let game = Game::new(rules);
        let start = Board::start(3, 2);
        let mut solver = Solver::new(&game, 1).unwrap();
        let v = solver.value(&start);
        let pv = solver.principal_variation(&start, v).unwrap();
        // Replaying the PV: the mover's net gains, signed by who moved, sum to the value.
        let mut total = 0;
        let mut sign = 1;
        for (_, step) in &pv {
            total += sign * step.gain();
            if step.next == Next::Other {
                sign = -sign;
            }
        }
        assert_eq!(pv.last().map(|(_, s)| s.next), Some(Next::Over), "{rules}");
        assert_eq!(total, v, "{rules}");
    }
}

#[test]
fn clockwise_rules_are_refused_by_the_search() {
    let mut b = RulesBuilder::new(3, 3);
    b.direction = Direction::Cw;
    let game = Game::new(b.build().unwrap());
    let err = Solver::new(&game, 1).err().unwrap();
    assert!(err.to_string().contains("retrograde"), "{err}");
}

/// A board of `pits` a side with a seed dropped in pit `d % 2m` for each `d` of `drops`,
/// rule set number `rule` of [`acyclic_rules`], and the board's reference value.
fn random_case(pits: usize, drops: &[usize], rule: usize) -> (Game, Board, i32) {
    let mut cells = [0u8; 12];
    for d in drops {
        cells[d % (2 * pits)] += 1;
    }
    let board = Board::from_cells(pits, &cells[..2 * pits]);
    let game = Game::new(acyclic_rules(pits, 4)[rule]);
    let want = reference(&game, &board, &mut HashMap::new());
    (game, board, want)
}

/// The inputs of [`random_case`]: 4 to 6 pits a side, `min_drops` to 12 seeds dropped and
/// any of the 72 rule sets.
fn random_inputs(min_drops: usize) -> impl Strategy<Value = (usize, Vec<usize>, usize)> {
    (
        4usize..=6,
        proptest::collection::vec(0usize..12, min_drops..=12),
        0usize..72,
    )
}

/// The search of [`random_case`]`(inputs)` with an endgame table of level `level` and a
/// `tt_mb` MB transposition table, set up further by `setup`, gives the reference value.
fn agrees_with_a_table(
    (pits, drops, rule): &(usize, Vec<usize>, usize),
    level: u32,
    tt_mb: usize,
    setup: impl for<'a> FnOnce(Solver<'a>) -> Solver<'a>,
) -> Result<(), TestCaseError> {
    let (game, board, want) = random_case(*pits, drops, *rule);
    let table = Endgame::build(&game, level, |_, _| {}).unwrap();
    let mut solver = setup(Solver::new(&game, tt_mb).unwrap().with_endgame(&table));
    prop_assert_eq!(solver.solve(&board, 4, |_| {}), want);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Random positions of larger boards (6 to 12 seeds dropped into random pits), under a
    /// random counter-clockwise rule set.
    #[test]
    fn agrees_on_random_larger_positions(
        (pits, drops, rule) in random_inputs(6),
    ) {
        let (game, board, want) = random_case(pits, &drops, rule);
        let mut solver = Solver::new(&game, 4).unwrap();
        prop_assert_eq!(solver.value(&board), want);
    }

    /// Any first guess for the exact search, inside the possible values or not, gives the
    /// same value, and its zero-window tests are true bounds whose best lower and upper
    /// ones meet at it (or at the board's limit `-seeds..=seeds`, which needs no test).
    #[test]
    fn any_guess_gives_the_value_and_its_tests_prove_it(
        (pits, drops, rule) in random_inputs(6),
        guess in -15i32..=15,
    ) {
        let (game, board, want) = random_case(pits, &drops, rule);
        prop_assume!(game.terminal_value(&board).is_none());
        let mut solver = Solver::new(&game, 4).unwrap().with_guess(Some(guess));
        prop_assert_eq!(solver.solve(&board, 4, |_| {}), want);
        let seeds = board.seeds() as i32;
        let (mut lo, mut hi) = (-seeds, seeds);
        for t in &solver.tests {
            if t.is_lower() {
                prop_assert!(t.result <= want, "{:?}", t);
                lo = lo.max(t.result);
            } else {
                prop_assert!(t.result >= want, "{:?}", t);
                hi = hi.min(t.result);
            }
        }
        prop_assert_eq!((lo, hi), (want, want));
    }

    /// The same with the search's endgame table covering the lower half of the seeds: the
    /// boards below its level are read, the rest searched.
    #[test]
    fn agrees_with_an_endgame_table_on_random_larger_positions(
        inputs in random_inputs(8),
        level in 1u32..=6,
    ) {
        agrees_with_a_table(&inputs, level, 4, |s| s)?;
    }

    /// The parallel search, splitting at nodes a few seeds above a small endgame table, on
    /// 4 threads (more than this machine's cores, so that threads interleave at random and
    /// cuts stop searches half done). Not at every node, and not with a 1 MiB table: then
    /// the threads' speculative work (moves a cut would have spared) multiplies level by
    /// level, and one run in several took minutes.
    #[test]
    fn the_parallel_search_agrees_on_random_larger_positions(
        inputs in random_inputs(8),
        level in 0u32..=4,
    ) {
        agrees_with_a_table(&inputs, level, 16, |s| {
            s.with_threads(4).with_split_seeds(level + 3)
        })?;
    }
}

#[test]
fn the_endgame_table_answers_for_the_boards_it_holds() {
    for rules in acyclic_rules(4, 3).into_iter().step_by(7) {
        let game = Game::new(rules);
        let start = Board::start(4, 3);
        let want = reference(&game, &start, &mut HashMap::new());
        let table = Endgame::build(&game, 8, |_, _| {}).unwrap();
        let mut solver = Solver::new(&game, 4).unwrap().with_endgame(&table);
        assert_eq!(solver.solve(&start, 6, |_| {}), want, "{rules}");
        assert!(solver.endgame_reads > 0, "{rules}");
    }
}
