//! The size of a proof before it is run: Knuth's estimator of a tree's size (1975),
//! walked down the *proof tree* of one root question.
//!
//! # The proof tree
//!
//! "Is this board's value at least `t`?" is proved *yes* by one move that reaches `t`
//! (an OR node) and *no* by every move falling short (an AND node). Through a move that
//! keeps the turn the question passes to the child as "at least `t - gain`?" with the
//! same answer expected; through one that passes it, as "at least `gain - t + 1`?" from
//! the opponent's side, with the opposite answer expected (the rule of
//! [`super::tree`]'s questions). Cut at `depth` plies, the tree's leaves are the units a
//! proof of that depth would answer if each OR node's first choice were right.
//!
//! # The walk
//!
//! A [`Walk`] goes down from the root: at an OR node it takes the move a depth-limited
//! search rates best (the front end's order), at an AND node one move drawn uniformly,
//! multiplying its weight by the node's number of moves. Every leaf of the tree is
//! reached with probability one over its weight, so the weight times what the leaf
//! costs is an unbiased estimate of the whole tree's cost at that depth, and the mean
//! over independent walks converges on it.
//!
//! What the estimate leaves out, and which way it errs:
//! - an OR choice that is wrong costs a real proof a second move and more (a leaf whose
//!   answer is not the one the tree expects shows one: [`Walk::holds`]): the estimate
//!   is then low;
//! - boards reached by several paths are counted once a path, and a worker's table
//!   carries work from one unit to its neighbours: the estimate is then high;
//! - a leaf stopped at a budget counts only the budget: the estimate is then a lower
//!   bound.

use crate::board::Board;
use crate::game::{Next, Step};
use crate::search::Solver;

use super::shallow_value;
use super::tree::Leaf;

/// Where a walk ended.
#[derive(Clone, Copy, Debug)]
pub enum End {
    /// The game ended on the way: the question is settled without search, and `holds`
    /// says whether it came out as the tree expects.
    Over { holds: bool },
    /// A leaf at the walk's depth, and its question: "is the value of `leaf` at least
    /// `beta`?", whose answer the tree expects to be `expect`.
    Leaf { leaf: Leaf, beta: i32, expect: bool },
}

/// One walk from the root down the proof tree.
#[derive(Clone, Debug)]
pub struct Walk {
    /// The pits played from the root, 0-based, each in its mover's row.
    pub path: Vec<usize>,
    /// One over the probability of this walk: the product of the move counts of the AND
    /// nodes passed.
    pub weight: f64,
    pub end: End,
}

impl Walk {
    /// Go down from `root` (its mover's side) for the question "value at least `beta`?",
    /// whose answer is expected to be `expect`, for `depth` plies (a free move is a ply
    /// of its own). OR nodes are ordered by depth-limited searches to `order_depth`;
    /// `pick(n)` draws an AND node's move, from `0..n`.
    pub fn down(
        solver: &mut Solver<'_>,
        root: &Board,
        beta: i32,
        expect: bool,
        depth: u32,
        order_depth: u8,
        pick: &mut dyn FnMut(usize) -> usize,
    ) -> Walk {
        let game = solver.game().clone();
        let (mut board, mut t, mut want) = (*root, beta, expect);
        let mut walk = Walk {
            path: Vec::new(),
            weight: 1.0,
            end: End::Over { holds: true },
        };
        for ply in 0.. {
            if let Some(v) = game.terminal_value(&board) {
                walk.end = End::Over {
                    holds: (v >= t) == want,
                };
                return walk;
            }
            if ply == depth {
                walk.end = End::Leaf {
                    leaf: Leaf {
                        board,
                        seeds: board.seeds() as i32,
                    },
                    beta: t,
                    expect: want,
                };
                return walk;
            }
            let steps: Vec<(usize, Step)> = game.steps(&board).collect();
            let (pit, step) = if want {
                best(solver, &steps, order_depth)
            } else {
                let i = pick(steps.len()).min(steps.len() - 1);
                walk.weight *= steps.len() as f64;
                steps[i]
            };
            walk.path.push(pit);
            match step.next {
                Next::Over => {
                    walk.end = End::Over {
                        holds: (step.gain() >= t) == want,
                    };
                    return walk;
                }
                Next::Same => t -= step.gain(),
                Next::Other => {
                    t = step.gain() - t + 1;
                    want = !want;
                }
            }
            board = step.board;
        }
        unreachable!("the loop returns at the walk's depth")
    }

    /// Whether the question at the walk's end came out as the tree expects, given the
    /// search's answer at a leaf (`value >= beta` or not).
    pub fn holds(&self, answer_at_least: bool) -> bool {
        match self.end {
            End::Over { holds } => holds,
            End::Leaf { expect, .. } => answer_at_least == expect,
        }
    }
}

/// The move of `steps` a depth-limited search rates best for the mover (the first of
/// equals, in pit order); a move that ends the game is worth its gain exactly.
fn best(solver: &mut Solver<'_>, steps: &[(usize, Step)], order_depth: u8) -> (usize, Step) {
    let mut top: Option<(i32, (usize, Step))> = None;
    for &(pit, step) in steps {
        let v = match step.next {
            Next::Over => step.gain(),
            _ => {
                let child = match shallow_value(solver, &step.board, order_depth) {
                    Some(v) => v,
                    None => solver.game().terminal_value(&step.board).unwrap_or(0),
                };
                step.value_through(child)
            }
        };
        if top.is_none_or(|(b, _)| v > b) {
            top = Some((v, (pit, step)));
        }
    }
    // A node with no moves is a terminal board, handled before this is called.
    top.map(|(_, m)| m).unwrap_or((0, Step::NONE))
}

/// A running mean and its standard error, of the weighted costs `weight x cost` of
/// independent walks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub n: u64,
    sum: f64,
    sum_sq: f64,
}

impl Tally {
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    /// The mean (0 with no samples).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }

    /// The standard error of the mean (0 with fewer than two samples, where it is not
    /// known).
    pub fn std_error(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        let var = ((self.sum_sq - self.sum * self.sum / n) / (n - 1.0)).max(0.0);
        (var / n).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::{answer, Outcome};
    use crate::rules::RulesBuilder;
    use crate::search::tt::EXACT;
    use crate::{Game, Position};

    /// A xorshift draw, so that the walks are reproducible.
    fn draws(mut x: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        }
    }

    /// `test` on Kalah(`pits`,`seeds`)'s start: the game, the start's board, a solver and
    /// the start's value.
    fn at_start(pits: usize, seeds: usize, test: impl FnOnce(&Game, Board, &mut Solver<'_>, i32)) {
        let rules = RulesBuilder::new(pits, seeds).build().unwrap();
        let game = Game::new(rules);
        let root = Position::start(&rules).board();
        let mut solver = Solver::new(&game, 16).unwrap();
        let v = solver.value(&root);
        test(&game, root, &mut solver, v);
    }

    /// With the root's question at its true value, every walk's leaf answers as the tree
    /// expects on boards small enough that the depth-limited order is exact: the
    /// questions carried down the paths are the right ones.
    #[test]
    fn leaves_answer_as_the_tree_expects_at_the_true_value() {
        for (pits, seeds) in [(3, 3), (4, 2), (4, 3)] {
            at_start(pits, seeds, |_, root, solver, v| {
                let mut pick = draws(0x9e37_79b9_7f4a_7c15);
                for (beta, expect) in [(v, true), (v + 1, false)] {
                    for depth in [0, 1, 3, 6] {
                        for _ in 0..8 {
                            let w = Walk::down(solver, &root, beta, expect, depth, 20, &mut pick);
                            let yes = match w.end {
                                End::Over { .. } => true,
                                End::Leaf { leaf, beta, .. } => {
                                    let r = solver.test(&leaf.board, leaf.seeds, beta, EXACT);
                                    r >= beta
                                }
                            };
                            assert!(w.holds(yes), "Kalah({pits},{seeds}) >= {beta} {w:?}");
                            if depth == 0 {
                                assert_eq!(w.weight, 1.0);
                                assert!(w.path.is_empty());
                            }
                        }
                    }
                }
            });
        }
    }

    /// A false question's root is an AND node: one ply down, the weight is the root's
    /// move count, and the draw decides the move.
    #[test]
    fn an_and_node_weighs_its_moves() {
        at_start(4, 3, |game, root, solver, v| {
            let moves = game.steps(&root).count();
            for i in 0..moves {
                let w = Walk::down(solver, &root, v + 1, false, 1, 4, &mut |n| {
                    assert_eq!(n, moves);
                    i
                });
                assert_eq!(w.weight, moves as f64);
                assert_eq!(w.path, vec![game.steps(&root).nth(i).unwrap().0]);
            }
        });
    }

    /// The leaf's question is the one a proof's unit asks, answered by [`answer`].
    #[test]
    fn a_leaf_is_a_unit() {
        at_start(4, 3, |_, root, solver, v| {
            let w = Walk::down(solver, &root, v, true, 0, 4, &mut |_| 0);
            let End::Leaf { leaf, beta, expect } = w.end else {
                panic!("the start is not over");
            };
            assert_eq!((beta, expect), (v, true));
            let (Outcome::Bound(r), nodes) = answer(solver, &leaf, beta, 4, None) else {
                panic!("no budget, no stop");
            };
            assert!(r >= beta && nodes > 0);
        });
    }

    #[test]
    fn tally_mean_and_error() {
        let mut t = Tally::default();
        assert_eq!((t.mean(), t.std_error()), (0.0, 0.0));
        for x in [1.0, 2.0, 3.0, 4.0] {
            t.add(x);
        }
        assert_eq!(t.mean(), 2.5);
        // sample variance 5/3, over n = 4
        assert!((t.std_error() - (5.0f64 / 3.0 / 4.0).sqrt()).abs() < 1e-12);
    }
}
