//! Properties of random legal games under every rule combination.
//!
//! For each of the 3·2·2·2·2·3 = 144 combinations of the switches (capture × sowing ×
//! direction × opp-store × end × remaining) and board sizes m, n in 1..=6, random legal
//! games, played with [`Position::play`] until the game is over or a move cap, must:
//!
//! * conserve seeds: board + both stores = the seeds at the start after every move (with
//!   `--remaining discard` the final sweep removes the board's seeds instead);
//! * never panic (overflow checks are on in tests);
//! * agree with themselves: a move ends the game exactly when the position after it is
//!   over, and a position that is not over has a legal move;
//! * with counter-clockwise sowing, end within `S + (S+1)·S·m` moves, where S is the
//!   seeds in play at the start and m the pits a side.
//!
//! # The bound for counter-clockwise sowing
//!
//! Call a move a *store move* if it puts at least one seed into a store (either store:
//! sowing, capture or final sweep). Stores never give seeds back and a store move takes at
//! least one seed off the board for good, so there are at most S store moves.
//!
//! Any other move keeps every seed on the board. Counter-clockwise, the slot after the
//! mover's last pit is the mover's own store, so a sowing that leaves the mover's row
//! must drop a seed in that store; a move that does not therefore sows only into the
//! mover's own row, forwards, towards the mover's store. A relay lift is a sowing from a
//! pit of the same row and obeys the same rule, and a capture is a store move. Let
//!
//! `D = Σ over the seeds on the board of the distance from the seed's pit to the store of
//! the row it lies in` (pit i of m is at distance m + 1 - i, so each term is at most m).
//!
//! A non-store move lifts k seeds from pit i and drops them in pits i+1..i+k of the same
//! row (relays repeat this), so D drops by 1 + 2 + … + k ≥ 1 and no term of D grows.
//! Since 0 ≤ D ≤ S·m, at most S·m non-store moves come in a row. The game is a sequence
//! of at most S store moves with at most S·m non-store moves before, between and after
//! them, so it has at most `S + (S+1)·S·m` moves. The tests check the lemma itself (D
//! falls on every non-store move) as well as the bound.
//!
//! # Symmetry
//!
//! Swapping the rows, swapping the stores and giving the move to the other side mirrors a
//! position. Playing pit i in a position and in its mirror must give the same annotated
//! move with the other row letter, and mirrored positions.

mod support;

use proptest::prelude::*;
use solver::{Direction, Game, MoveText, Next, Position, Remaining, Rules, Side};

const COMBINATIONS: usize = 144;
/// Moves a clockwise game may run before it is cut off (clockwise play can cycle).
const CW_CAP: usize = 2_000;

/// The rule combination number `combo` (0..144) on Kalah(m, n) (see [`support::every_rules`]).
fn rules(combo: usize, m: usize, n: usize) -> Rules {
    support::every_rules(m, n)[combo]
}

/// SplitMix64: a small deterministic generator for the move choices.
struct Rng(u64);

impl Rng {
    fn below(&mut self, k: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z % k as u64) as usize
    }
}

fn legal(pos: &Position) -> Vec<usize> {
    let row = pos.row(pos.to_move);
    (0..pos.pits()).filter(|&i| row[i] > 0).collect()
}

/// D of the module docs: each seed's distance to the store of its row.
fn distance(pos: &Position) -> u32 {
    let m = pos.pits();
    let row = |r: &[u8]| -> u32 {
        r.iter()
            .enumerate()
            .map(|(i, &c)| c as u32 * (m - i) as u32)
            .sum()
    };
    row(pos.row_a()) + row(pos.row_b())
}

/// Plays random legal moves from `start` until the game is over or `cap` moves, checking
/// the properties of the module docs after every move. Returns the moves played and
/// whether the game is over.
fn random_game(rules: Rules, start: Position, seed: u64, cap: usize) -> (usize, bool) {
    let game = Game::new(rules);
    let ccw = rules.direction == Direction::Ccw;
    let total = start.board_seeds() + start.stores[0] + start.stores[1];
    let m = rules.pits() as u32;
    let mut rng = Rng(seed);
    let mut pos = start;
    let mut quiet_run = 0u32;
    for moves in 0..=cap {
        if pos.is_over(&game) {
            return (moves, true);
        }
        if moves == cap {
            return (moves, false);
        }
        let pits = legal(&pos);
        assert!(
            !pits.is_empty(),
            "{rules}: {pos} is not over but has no move"
        );
        let pit = pits[rng.below(pits.len())];
        let (after, step) = pos.play(&game, pit);
        let ctx = || format!("{rules}: {pos} pit {} -> {after}", pit + 1);
        let in_stores = |p: &Position| p.stores[0] + p.stores[1];
        let sum = after.board_seeds() + in_stores(&after);
        if step.next == Next::Over && rules.remaining == Remaining::Discard {
            assert_eq!(after.board_seeds(), 0, "{}", ctx());
            assert!(sum <= total, "{}", ctx());
        } else {
            assert_eq!(sum, total, "seeds not conserved: {}", ctx());
        }
        assert!(after.stores[0] >= pos.stores[0], "{}", ctx());
        assert!(after.stores[1] >= pos.stores[1], "{}", ctx());
        assert_eq!(step.next == Next::Over, after.is_over(&game), "{}", ctx());
        let expect_side = match step.next {
            Next::Same => pos.to_move,
            Next::Other | Next::Over => pos.to_move.other(),
        };
        assert_eq!(after.to_move, expect_side, "{}", ctx());
        if ccw && step.next != Next::Over && in_stores(&after) == in_stores(&pos) {
            // A non-store move: D falls (module docs).
            assert!(
                distance(&after) < distance(&pos),
                "D did not fall: {}",
                ctx()
            );
            quiet_run += 1;
            assert!(quiet_run <= total * m, "{}", ctx());
        } else {
            quiet_run = 0;
        }
        pos = after;
    }
    unreachable!("the loop returns at moves == cap")
}

/// The counter-clockwise bound S + (S+1)·S·m for a game with S seeds in play.
fn ccw_bound(seeds: u32, pits: usize) -> usize {
    let s = seeds as usize;
    s + (s + 1) * s * pits
}

/// Plays one game and checks that a counter-clockwise game ended within the bound.
fn check_game(rules: Rules, start: Position, seed: u64) {
    let s = start.board_seeds();
    let ccw = rules.direction == Direction::Ccw;
    let cap = if ccw {
        ccw_bound(s, rules.pits()) + 1
    } else {
        CW_CAP
    };
    let (moves, over) = random_game(rules, start, seed, cap);
    if ccw {
        assert!(over, "{rules}: {start} did not end in {moves} moves");
        assert!(
            moves <= ccw_bound(s, rules.pits()),
            "{rules}: {moves} moves"
        );
    }
}

/// The mirror of a position: rows swapped, stores swapped, the other side to move. Built
/// from the position string, independently of the engine's own flipping.
fn mirror(pos: &Position) -> Position {
    let s = pos.to_string();
    let p: Vec<&str> = s.split('/').collect();
    let side = match p[4] {
        "A" => "B",
        _ => "A",
    };
    format!("{}/{}/{}/{}/{side}", p[2], p[3], p[0], p[1])
        .parse()
        .unwrap()
}

/// Every legal move of `pos` and of its mirror agree; returns the moves of `pos`.
fn check_mirror(game: &Game, pos: &Position) -> Vec<(usize, Position)> {
    let mir = mirror(pos);
    assert_eq!(pos.is_over(game), mir.is_over(game), "{pos}");
    if pos.is_over(game) {
        return Vec::new();
    }
    assert_eq!(legal(pos), legal(&mir), "{pos}");
    legal(pos)
        .into_iter()
        .map(|i| {
            let (a, sa) = pos.play(game, i);
            let (b, sb) = mir.play(game, i);
            let ta = MoveText::annotated(pos.to_move, i, &sa);
            let tb = MoveText::annotated(mir.to_move, i, &sb);
            assert_eq!(ta.side, tb.side.other(), "{pos}");
            let (ta, tb) = (ta.to_string(), tb.to_string());
            assert_eq!(ta[1..], tb[1..], "{pos} pit {}: {ta} vs {tb}", i + 1);
            assert_eq!(b, mirror(&a), "{pos} pit {}", i + 1);
            (i, a)
        })
        .collect()
}

#[test]
fn every_rule_combination_on_every_board_size() {
    for combo in 0..COMBINATIONS {
        for m in 1..=6 {
            for n in 1..=6 {
                let r = rules(combo, m, n);
                for seed in 0..4 {
                    let s = (combo * 1000 + m * 10 + n) as u64 * 4 + seed;
                    check_game(r, Position::start(&r), s);
                }
            }
        }
    }
}

#[test]
fn the_combinations_are_all_different() {
    let all: std::collections::HashSet<String> = (0..COMBINATIONS)
        .map(|c| rules(c, 6, 4).to_string())
        .collect();
    assert_eq!(all.len(), COMBINATIONS);
}

/// A random position of Kalah(m, ·): up to `max` seeds a pit, small stores, either side.
fn arb_position() -> impl Strategy<Value = (usize, Position)> {
    (1usize..=6).prop_flat_map(|m| {
        (
            proptest::collection::vec(0u8..=8, 2 * m),
            0u32..20,
            0u32..20,
            any::<bool>(),
        )
            .prop_map(move |(cells, sa, sb, north)| {
                let join = |r: &[u8]| {
                    r.iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                };
                let side = if north { "B" } else { "A" };
                let s = format!(
                    "{}/{sa}/{}/{sb}/{side}",
                    join(&cells[..m]),
                    join(&cells[m..])
                );
                (m, s.parse().unwrap())
            })
    })
}

/// A random position of Kalah(m, ·) ([`arb_position`]) under a random combination of the
/// rules of Kalah(m, 4).
fn arb_rules_and_position() -> impl Strategy<Value = (Rules, Position)> {
    (0..COMBINATIONS, arb_position()).prop_map(|(combo, (m, start))| (rules(combo, m, 4), start))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_games_from_the_start(
        combo in 0..COMBINATIONS,
        m in 1usize..=6,
        n in 1usize..=6,
        seed in any::<u64>(),
    ) {
        let r = rules(combo, m, n);
        check_game(r, Position::start(&r), seed);
    }

    #[test]
    fn random_games_from_random_positions(
        (r, start) in arb_rules_and_position(),
        seed in any::<u64>(),
    ) {
        check_game(r, start, seed);
    }

    #[test]
    fn mirrored_positions_play_the_same(
        (r, start) in arb_rules_and_position(),
        seed in any::<u64>(),
    ) {
        let game = Game::new(r);
        let mut rng = Rng(seed);
        let mut pos = start;
        // Along a random game: each position and its mirror, all their moves.
        for _ in 0..200 {
            let moves = check_mirror(&game, &pos);
            if moves.is_empty() {
                break;
            }
            pos = moves[rng.below(moves.len())].1;
        }
        // South to move against North to move, from the same pits.
        let south: Position = {
            let s = pos.to_string();
            format!("{}A", &s[..s.len() - 1]).parse().unwrap()
        };
        prop_assert_eq!(mirror(&south).to_move, Side::North);
        check_mirror(&game, &south);
    }
}
