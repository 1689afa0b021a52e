//! The retrograde solver for cyclic rules (`solver::gen::cyclic`) against independent paths:
//! a worked example, the acyclic generator and a memoised negamax on counter-clockwise
//! rules, and a plain attractor computation on the explicit game graph for clockwise rules.

mod support;

use std::collections::HashMap;

use db_format::Format;
use solver::gen::{self, cyclic, Lower};
use solver::{Board, Capture, Direction, EndRule, Game, Next, Probe, RulesBuilder};

/// Every combination of the switches that change values, with the given direction.
fn all_rules(pits: usize, seeds: usize, direction: Direction) -> Vec<Game> {
    support::rules_with(pits, seeds, direction)
        .into_iter()
        .map(Game::new)
        .collect()
}

fn board(cells: &[u8]) -> Board {
    Board::from_cells(cells.len() / 2, cells)
}

/// Kalah(2,·) clockwise, `end mover`, no captures, level 2. Cells are A1 A2 B1 B2 from the
/// mover; clockwise the mover sows A2, A1, B2, B1, own store. Four boards form a cycle
/// of same-level moves (each arrow sows one seed and passes the turn; the board is shown
/// from the next mover):
///
/// ```text
/// T = [1,1,0,0] --A1--> [0,1,0,1] = U --A2--> [0,1,1,0] = V --A2--> [1,0,1,0] = W --A1--> T
/// ```
///
/// T has one more move, A2 into A1: the opponent is then due to move with an empty row,
/// the game ends and the mover keeps both seeds: an exit worth +2, the most a board of two
/// seeds can be worth, so V(T) = 2. W, V and U have their single move each, so
/// V(W) = -V(T) = -2, V(V) = 2, V(U) = -2: the win travels three steps round the cycle.
///
/// Kalah(1,·), `end mover`: from [1,0] the seed goes to the opponent's pit and the
/// opponent, seeing [1,0], sends it back: the game never ends, the seed counts for nobody,
/// V([1,0]) = 0; [0,1] is over and the opponent takes its seed: -1. Under `end either`
/// [1,0] is over at once (+1), and from [1,1] the mover's sowing empties its row: -2.
#[test]
fn hand_built_cycles() {
    let mut r = RulesBuilder::new(2, 1);
    r.direction = Direction::Cw;
    r.end = EndRule::Mover;
    r.capture = Some(Capture::None);
    let g = Game::new(r.build().unwrap());
    // The cycle, move by move.
    let (t, u, v, w) = (
        board(&[1, 1, 0, 0]),
        board(&[0, 1, 0, 1]),
        board(&[0, 1, 1, 0]),
        board(&[1, 0, 1, 0]),
    );
    for (from, pit, to) in [(t, 0, u), (u, 1, v), (v, 1, w), (w, 0, t)] {
        let s = g.play(&from, pit);
        assert_eq!((s.next, s.board, s.gain()), (Next::Other, to, 0));
    }
    let exit = g.play(&t, 1);
    assert_eq!((exit.next, exit.gain()), (Next::Over, 2));
    let db = cyclic::build_in_memory(&g, 2, |_, _| {}).unwrap();
    let got: Vec<_> = [t, u, v, w].iter().map(|b| db.value(b).unwrap()).collect();
    assert_eq!(got, [2, -2, 2, -2]);

    let mut r = RulesBuilder::new(1, 1);
    r.direction = Direction::Cw;
    r.end = EndRule::Mover;
    let g = Game::new(r.build().unwrap());
    let db = cyclic::build_in_memory(&g, 1, |_, _| {}).unwrap();
    assert_eq!(db.value(&board(&[1, 0])), Some(0));
    assert_eq!(db.value(&board(&[0, 1])), Some(-1));
    r.end = EndRule::Either;
    let g = Game::new(r.build().unwrap());
    let db = cyclic::build_in_memory(&g, 2, |_, _| {}).unwrap();
    assert_eq!(db.value(&board(&[1, 0])), Some(1));
    assert_eq!(db.value(&board(&[1, 1])), Some(-2));
}

/// Counter-clockwise, where both apply: every level the cyclic solver builds equals the
/// acyclic generator's (`gen::build_level`) and a memoised negamax on every board, and
/// the level files written from both are byte-identical.
#[test]
fn equals_the_acyclic_generator_and_negamax_counter_clockwise() {
    let dir = tempfile::tempdir().unwrap();
    for (pits, max_k) in [(1, 8), (2, 8), (3, 7), (4, 5)] {
        for g in all_rules(pits, 1, Direction::Ccw) {
            let db = cyclic::build_in_memory(&g, max_k, |_, _| {}).unwrap();
            let mut acyclic = solver::MemoryDb::new(pits);
            let mut memo = HashMap::new();
            for k in 0..=max_k {
                let theirs =
                    gen::build_level(&g, k, Lower::Probe(&acyclic), None, &|_| {}).unwrap();
                let ours = db.level(k as usize);
                assert_eq!(ours, &theirs[..], "{} level {k}", g.rules());
                let ranker = db_format::Ranker::new(2 * pits, k).unwrap();
                let mut cells = vec![0u8; 2 * pits];
                for (rank, &v) in ours.iter().enumerate() {
                    ranker.unrank(rank as u64, &mut cells);
                    let b = board(&cells);
                    assert_eq!(
                        v as i32,
                        support::reference(&g, &b, &mut memo),
                        "{} {b:?}",
                        g.rules()
                    );
                }
                acyclic.push(theirs.clone()).unwrap();
                if k == max_k {
                    let key = g.rules().db_key();
                    let a =
                        db_format::write_level(dir.path(), &key, k, ours, Format::Byte).unwrap();
                    let bytes_a = std::fs::read(&a).unwrap();
                    let b =
                        db_format::write_level(dir.path(), &key, k, &theirs, Format::Byte).unwrap();
                    assert_eq!(bytes_a, std::fs::read(&b).unwrap());
                }
            }
        }
    }
}

/// A full state for the reference: pits from South's view and the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct State {
    south: Board,
    south_to_move: bool,
}

/// A move of the explicit graph: South-minus-North gain and the state it leads to
/// (`None` when the game ends).
type Edge = (i32, Option<usize>);

/// The reference: the value (final margin South minus North still to come) of every state
/// reachable from `start` with South to move, by per-threshold attractors.
///
/// For `t >= 1`, `win[t][x]`: South can force a margin `>= t`; `lose[t][x]`: North can
/// force `<= -t`. Infinite play scores the gains made so far, so a goal `>= s` with
/// `s <= 0` is not a reachability goal; by determinacy it is "North cannot force
/// `<= s - 1`", i.e. `!lose[1 - s]`. A move with a non-zero gain puts seeds into a store,
/// so it leads to a state with fewer seeds on the board: solving states in order of seeds
/// on the board, those negated sets are final when read. Within one seed count each set is
/// computed by naive iteration from all-false until nothing changes (the attractor).
fn reference(g: &Game, start: Board) -> HashMap<State, i32> {
    let m = g.pits();
    // Explore the graph.
    let mut states = vec![State {
        south: start,
        south_to_move: true,
    }];
    let mut index: HashMap<State, usize> = HashMap::from([(states[0], 0)]);
    let mut edges: Vec<Vec<Edge>> = Vec::new();
    let mut terminal: Vec<Option<i32>> = Vec::new();
    let mut i = 0;
    while i < states.len() {
        let x = states[i];
        let view = if x.south_to_move {
            x.south
        } else {
            x.south.flip(m)
        };
        let sign = if x.south_to_move { 1 } else { -1 };
        let mut out = Vec::new();
        let term = g.terminal_value(&view).map(|v| sign * v);
        if term.is_none() {
            for (_, s) in g.steps(&view) {
                let gain = sign * s.gain();
                let next = match s.next {
                    Next::Over => None,
                    Next::Same => Some(State {
                        south: if x.south_to_move {
                            s.board
                        } else {
                            s.board.flip(m)
                        },
                        south_to_move: x.south_to_move,
                    }),
                    Next::Other => Some(State {
                        // `s.board` is seen from the next mover.
                        south: if x.south_to_move {
                            s.board.flip(m)
                        } else {
                            s.board
                        },
                        south_to_move: !x.south_to_move,
                    }),
                };
                let to = next.map(|y| {
                    *index.entry(y).or_insert_with(|| {
                        states.push(y);
                        states.len() - 1
                    })
                });
                out.push((gain, to));
            }
        }
        edges.push(out);
        terminal.push(term);
        i += 1;
    }
    let n = states.len();
    let top = start.seeds() as i32;
    // win[t][x], lose[t][x] for t in 1..=top (index 0 unused).
    let mut win = vec![vec![false; n]; top as usize + 1];
    let mut lose = vec![vec![false; n]; top as usize + 1];
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&x| states[x].south.seeds());
    for group in order.chunk_by(|&a, &b| states[a].south.seeds() == states[b].south.seeds()) {
        loop {
            let mut changed = false;
            for &x in group {
                for t in 1..=top {
                    let (w, l) = {
                        let ge = |s: i32, y: usize| {
                            if s > top {
                                false
                            } else if s >= 1 {
                                win[s as usize][y]
                            } else {
                                1 - s > top || !lose[(1 - s) as usize][y]
                            }
                        };
                        let le = |s: i32, y: usize| {
                            if s < -top {
                                false
                            } else if s <= -1 {
                                lose[(-s) as usize][y]
                            } else {
                                s + 1 > top || !win[(s + 1) as usize][y]
                            }
                        };
                        if let Some(v) = terminal[x] {
                            (v >= t, v <= -t)
                        } else {
                            let good = |&(gain, to): &Edge| match to {
                                None => gain >= t,
                                Some(y) => ge(t - gain, y),
                            };
                            let bad = |&(gain, to): &Edge| match to {
                                None => gain <= -t,
                                Some(y) => le(-t - gain, y),
                            };
                            if states[x].south_to_move {
                                (edges[x].iter().any(good), edges[x].iter().all(bad))
                            } else {
                                (edges[x].iter().all(good), edges[x].iter().any(bad))
                            }
                        }
                    };
                    let t = t as usize;
                    if w && !win[t][x] {
                        win[t][x] = true;
                        changed = true;
                    }
                    if l && !lose[t][x] {
                        lose[t][x] = true;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }
    (0..n)
        .map(|x| {
            let a = (1..=top).rev().find(|&t| win[t as usize][x]);
            let b = (1..=top).rev().find(|&t| lose[t as usize][x]);
            let v = match (a, b) {
                (Some(_), Some(_)) => panic!("a state in both Win_1 and Lose_1"),
                (Some(a), None) => a,
                (None, Some(b)) => -b,
                (None, None) => 0,
            };
            (states[x], v)
        })
        .collect()
}

/// Clockwise, every m <= 2, n <= 3 and every switch combination: the value of every state
/// reachable from the start equals the reference's.
#[test]
fn clockwise_values_equal_the_attractor_reference() {
    let mut cycles = 0;
    for pits in 1..=2 {
        for seeds in 1..=3 {
            for g in all_rules(pits, seeds, Direction::Cw) {
                let start = Board::start(pits, seeds as u8);
                let db = cyclic::solve_in_memory(&g, &start, |_, _| {}).unwrap();
                let reference = reference(&g, start);
                for (x, v) in &reference {
                    let ours = if x.south_to_move {
                        db.value(&x.south).unwrap()
                    } else {
                        -db.value(&x.south.flip(pits)).unwrap()
                    };
                    assert_eq!(
                        ours,
                        *v,
                        "{} {:?} south {}",
                        g.rules(),
                        x.south,
                        x.south_to_move
                    );
                }
                // Count rule sets whose top level needs more than one sweep (values
                // travel along same-level moves), so the test does exercise the cycles.
                let stats = cyclic::build_level_cyclic_stats(&g, start.seeds(), &db, &|_| {})
                    .unwrap()
                    .1;
                if stats.sweeps > 1 {
                    cycles += 1;
                }
            }
        }
    }
    assert!(cycles > 0);
}
