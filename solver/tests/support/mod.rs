//! What the solver's integration tests share: the reference negamax, every combination of
//! the rule switches that change values, and random boards.
//!
//! Each test file that needs it declares `mod support;`; a file uses only part of it.
#![allow(dead_code)]

use std::collections::HashMap;

use solver::{
    Board, Capture, Direction, EndRule, Game, Next, OppStore, Remaining, Rules, RulesBuilder,
    Sowing,
};

/// The plain reference: the value (future net gain of the side to move) of `board` by
/// memoised negamax over [`Game::play`], nothing else: no pruning, no bounds, no ordering.
/// Counter-clockwise play only (it recurses along the moves, which cannot cycle there).
pub fn reference(game: &Game, board: &Board, memo: &mut HashMap<Board, i32>) -> i32 {
    if let Some(v) = game.terminal_value(board) {
        return v;
    }
    if let Some(&v) = memo.get(board) {
        return v;
    }
    let mut best = i32::MIN;
    for (_, step) in game.steps(board) {
        let child = match step.next {
            Next::Over => 0,
            Next::Same | Next::Other => reference(game, &step.board, memo),
        };
        best = best.max(step.value_through(child));
    }
    memo.insert(*board, best);
    best
}

/// Every combination of the switches that change values (capture, sowing, the opponent's
/// store, the end rule, the remaining seeds: 72), for one direction, in that nesting
/// order, the last switch fastest.
pub fn rules_with(pits: usize, seeds: usize, direction: Direction) -> Vec<Rules> {
    let mut out = Vec::new();
    for capture in [Capture::Standard, Capture::Empty, Capture::None] {
        for sowing in [Sowing::Single, Sowing::Relay] {
            for opp_store in [OppStore::Skip, OppStore::Sow] {
                for end in [EndRule::Either, EndRule::Mover] {
                    for remaining in [Remaining::Owner, Remaining::Emptier, Remaining::Discard] {
                        let mut b = RulesBuilder::new(pits, seeds);
                        b.capture = Some(capture);
                        b.sowing = sowing;
                        b.direction = direction;
                        b.opp_store = opp_store;
                        b.end = end;
                        b.remaining = remaining;
                        out.push(b.build().unwrap());
                    }
                }
            }
        }
    }
    out
}

/// Every counter-clockwise rule set (the ones the search and the acyclic generator
/// accept) for a board size: [`rules_with`] counter-clockwise.
pub fn acyclic_rules(pits: usize, seeds: usize) -> Vec<Rules> {
    rules_with(pits, seeds, Direction::Ccw)
}

/// Every rule set, both directions (144): the counter-clockwise ones, then the clockwise.
pub fn every_rules(pits: usize, seeds: usize) -> Vec<Rules> {
    let mut out = acyclic_rules(pits, seeds);
    out.extend(rules_with(pits, seeds, Direction::Cw));
    out
}

/// Xorshift64: a small deterministic generator for random boards.
pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A random board of `pits` a side holding `seeds` seeds (uniform over the ranks of its
/// level), and its rank there; `x` supplies the randomness.
pub fn random_board(pits: usize, seeds: u32, x: u64) -> (Board, u64) {
    let r = db_format::Ranker::new(2 * pits, seeds).unwrap();
    let rank = x % r.count();
    let mut c = [0u8; 16];
    r.unrank(rank, &mut c[..2 * pits]);
    (Board::from_cells(pits, &c[..2 * pits]), rank)
}
