//! Fair starts against the reference solver: on small boards, every start within two
//! moved seeds settled by the zero-window tests of `solver::fair` agrees with memoised
//! negamax, listed starts and the others alike.

mod support;

use std::collections::HashMap;

use solver::engine::{Engine, Settings, Sources};
use solver::fair::{candidates, Judge, Verdict};
use solver::{Capture, Game, Position, RulesBuilder};
use support::reference;

/// The reference final margin of `pos`.
fn reference_margin(game: &Game, pos: &Position, memo: &mut HashMap<solver::Board, i32>) -> i32 {
    solver::score::margin(pos, reference(game, &pos.board(), memo))
}

#[test]
fn every_verdict_on_small_boards_agrees_with_the_reference() {
    // Kalah(1,2) has starts whose game is over (a row emptied by the seeds moved).
    for (pits, seeds) in [(1, 2), (2, 2), (3, 2), (4, 2), (3, 3)] {
        for capture in [Capture::Standard, Capture::Empty] {
            let mut b = RulesBuilder::new(pits, seeds);
            b.capture = Some(capture);
            let rules = b.build().unwrap();
            let game = Game::new(rules);
            let table =
                solver::engine::transposition_table(&rules, rules.total_seeds(), 4).unwrap();
            let engine =
                Engine::new(&game, Sources::default(), table, &Settings::default()).unwrap();
            let mut memo = HashMap::new();
            for within in [0, 2] {
                let mut judge = Judge::of(&engine);
                let (mut fair, mut others) = (0, 0);
                for c in candidates(&rules, 2) {
                    let want = reference_margin(&game, &c.position, &mut memo);
                    let what = format!("{rules} within {within}: {}", c.position);
                    match judge.settle(&c.position, within) {
                        // Exact: within the band, or a game already over.
                        Verdict::Exact(m) => {
                            assert_eq!(m, want, "{what}");
                            if m.unsigned_abs() <= within {
                                fair += 1;
                            } else {
                                assert!(c.position.is_over(&game), "{what}");
                                others += 1;
                            }
                        }
                        Verdict::Outside(b) => {
                            if b.at_least {
                                assert!(want >= b.margin && b.margin > within as i32, "{what}");
                            } else {
                                assert!(want <= b.margin && b.margin < -(within as i32), "{what}");
                            }
                            others += 1;
                        }
                    }
                }
                // Both kinds occur, so both branches were checked.
                assert!(
                    fair > 0 && others > 0,
                    "{rules} within {within}: {fair} fair"
                );
            }
        }
    }
}

#[test]
fn judges_on_threads_share_one_table_and_agree() {
    let rules = solver::Rules::kalah(4, 3).unwrap();
    let game = Game::new(rules);
    let table = solver::engine::transposition_table(&rules, rules.total_seeds(), 4).unwrap();
    let engine = Engine::new(&game, Sources::default(), table, &Settings::default()).unwrap();
    let all = candidates(&rules, 1);
    let serial: Vec<Verdict> = {
        let mut judge = Judge::of(&engine);
        all.iter().map(|c| judge.settle(&c.position, 0)).collect()
    };
    let parallel: Vec<Verdict> = std::thread::scope(|s| {
        let halves: Vec<_> = all
            .chunks(all.len() / 2 + 1)
            .map(|part| {
                let engine = &engine;
                s.spawn(move || {
                    let mut judge = Judge::of(engine);
                    part.iter()
                        .map(|c| judge.settle(&c.position, 0))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        halves.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    // Exact verdicts agree; bounds may differ in how far they reach, never in which side.
    for ((a, b), c) in serial.iter().zip(&parallel).zip(&all) {
        match (a, b) {
            (Verdict::Exact(x), Verdict::Exact(y)) => assert_eq!(x, y, "{}", c.position),
            (Verdict::Outside(x), Verdict::Outside(y)) => {
                assert_eq!(x.at_least, y.at_least, "{}", c.position)
            }
            _ => panic!("{}: {a:?} and {b:?}", c.position),
        }
    }
}
