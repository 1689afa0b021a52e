//! The front end of a proof: the first plies of the game from the root, expanded into a
//! small tree whose leaves are settled by the search and whose interior is combined by
//! minimax, in the manner of the front end of Schaeffer et al.'s checkers proof (2007).
//!
//! # Values and bounds
//!
//! Every value here is a *future net gain* of the side to move at its node (see
//! [`crate::search`]); what is known of it is an [`Interval`] of proved bounds. A leaf's
//! interval is the intersection of every answer the search gave about it; an interior
//! node's is the minimax of its moves' intervals: a node is worth the best of its moves,
//! so its lower bound is the largest lower bound of a move and its upper bound the largest
//! upper bound. Every bound on the root is therefore proved by the leaf answers alone,
//! and the root is exact exactly when its interval closes.
//!
//! # Questions
//!
//! The root is settled MTD(f)-style: the proof asks "is the root's value at least
//! `beta`?" ([`FrontEnd::root_beta`]) and [`FrontEnd::questions`] turns that question
//! into the leaf questions still needed to answer it, each "is this leaf's value at least
//! `t`?" with `t` carried down each path (through a move that keeps the turn, `t - gain`;
//! through one that passes it, `gain - t + 1` on the opponent's value). A question
//! already decided by what is known is not asked again, so the same tree serves every
//! test of the root, each one asking only what the earlier answers left open.
//!
//! # Splits
//!
//! A leaf whose search ran past a worker's budget is *split*: expanded one ply further,
//! so that its moves become leaves (and a split move's board in turn, recursively). The
//! tree is thus fixed by the manifest's depth and the set of split boards, and what was
//! proved about a board before it was split still bounds it as an interior node: a
//! node's interval is the minimax of its moves' intersected with what its own answers
//! proved ([`Knowledge::nodes`]).

use std::collections::{HashMap, HashSet};

use crate::board::Board;
use crate::game::{Game, Next, Step};

/// Proved bounds on a value: `lo <= value <= hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub lo: i32,
    pub hi: i32,
}

impl Interval {
    /// Nothing proved beyond the board's own limit: a side cannot gain more than the seeds
    /// left.
    pub fn trivial(seeds: i32) -> Interval {
        Interval {
            lo: -seeds,
            hi: seeds,
        }
    }

    pub fn exact(v: i32) -> Interval {
        Interval { lo: v, hi: v }
    }

    /// Whether the bounds meet: the value is proved.
    pub fn is_exact(&self) -> bool {
        self.lo == self.hi
    }

    /// Whether "value >= t" is decided: yes when `lo >= t`, no when `hi < t`.
    pub fn decides(&self, t: i32) -> bool {
        self.lo >= t || self.hi < t
    }

    /// Add what a fail-soft zero-window test "value >= beta?" returned: `result >= beta`
    /// proves `value >= result`, otherwise `value <= result`. Returns `false` when the
    /// answer contradicts what was known (the intervals do not meet), which no correct
    /// search can produce.
    pub fn learn(&mut self, beta: i32, result: i32) -> bool {
        if result >= beta {
            self.lo = self.lo.max(result);
        } else {
            self.hi = self.hi.min(result);
        }
        self.lo <= self.hi
    }

    /// What both intervals prove: empty (`lo > hi`) when they contradict each other.
    pub fn meet(self, other: Interval) -> Interval {
        Interval {
            lo: self.lo.max(other.lo),
            hi: self.hi.min(other.hi),
        }
    }

    /// The mover's interval through `step`, given its child's interval.
    fn through(step_gain: i32, next: Next, child: Interval) -> Interval {
        match next {
            Next::Same => Interval {
                lo: step_gain + child.lo,
                hi: step_gain + child.hi,
            },
            Next::Other => Interval {
                lo: step_gain - child.hi,
                hi: step_gain - child.lo,
            },
            Next::Over => Interval::exact(step_gain),
        }
    }
}

/// What is proved of every board of a front end: a leaf's interval from its answers, an
/// interior node's from the answers its board got while it was a leaf (before a split),
/// trivial where nothing is known.
#[derive(Clone, Debug)]
pub struct Knowledge {
    /// One interval a leaf, by index into [`FrontEnd::leaves`].
    pub leaves: Vec<Interval>,
    /// One interval an interior node, by index into [`FrontEnd::nodes`].
    pub nodes: Vec<Interval>,
}

impl Knowledge {
    /// What is known of `target`'s board.
    pub fn of(&self, target: Target) -> Interval {
        match target {
            Target::Leaf(i) => self.leaves[i],
            Target::Node(n) => self.nodes[n],
            Target::Fixed(v) => Interval::exact(v),
        }
    }

    /// Add an answer about `target`'s board (see [`Interval::learn`]); `false` when it
    /// contradicts what was known there.
    pub fn learn(&mut self, target: Target, beta: i32, result: i32) -> bool {
        match target {
            Target::Leaf(i) => self.leaves[i].learn(beta, result),
            Target::Node(n) => self.nodes[n].learn(beta, result),
            Target::Fixed(_) => true,
        }
    }
}

/// Where a move of the front end leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// An interior node (index into [`FrontEnd::nodes`]).
    Node(usize),
    /// A leaf, settled by the search (index into [`FrontEnd::leaves`]).
    Leaf(usize),
    /// A board whose value is known without search: the game is over there.
    Fixed(i32),
}

/// One move of an interior node.
#[derive(Clone, Copy, Debug)]
pub struct Move {
    /// The pit played (0-based, the mover's row).
    pub pit: usize,
    pub step: Step,
    /// The board the move leads to (unused when the move ends the game).
    pub to: Target,
}

/// An interior node: a board and its moves in pit order.
#[derive(Clone, Debug)]
pub struct Node {
    pub board: Board,
    pub moves: Vec<Move>,
}

/// A leaf: a board the search settles, reached by one or more paths.
#[derive(Clone, Copy, Debug)]
pub struct Leaf {
    pub board: Board,
    /// Seeds on the board: the leaf's value lies in `-seeds..=seeds`.
    pub seeds: i32,
}

/// One leaf question: "is the value of leaf `leaf` at least `beta`?".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Question {
    pub leaf: u32,
    pub beta: i32,
}

/// The front end: every line of play from the root for `depth` plies (a free move is a
/// ply of its own), and below a split board one ply more, cut at the end of the game.
/// Leaves are shared between the paths that reach the same board (the value of a board
/// does not depend on the path), and numbered in the order a depth-first walk in pit
/// order first meets them, so that the same rules, root, depth and splits always give
/// the same numbering.
#[derive(Clone, Debug)]
pub struct FrontEnd {
    pub root: Target,
    pub nodes: Vec<Node>,
    pub leaves: Vec<Leaf>,
}

impl FrontEnd {
    /// Expand `root` (the board from its mover's side) for `depth` plies, and one ply
    /// further below each board in `splits` (by [`Board::key`]).
    pub fn expand(game: &Game, root: &Board, depth: u32, splits: &HashSet<u128>) -> FrontEnd {
        let mut fe = FrontEnd {
            root: Target::Fixed(0),
            nodes: Vec::new(),
            leaves: Vec::new(),
        };
        let mut index = HashMap::new();
        fe.root = fe.grow(game, root, depth, splits, &mut index);
        fe
    }

    fn grow(
        &mut self,
        game: &Game,
        board: &Board,
        depth: u32,
        splits: &HashSet<u128>,
        index: &mut HashMap<u128, usize>,
    ) -> Target {
        if let Some(v) = game.terminal_value(board) {
            return Target::Fixed(v);
        }
        if depth == 0 && !splits.contains(&board.key()) {
            let next = self.leaves.len();
            let i = *index.entry(board.key()).or_insert(next);
            if i == next {
                self.leaves.push(Leaf {
                    board: *board,
                    seeds: board.seeds() as i32,
                });
            }
            return Target::Leaf(i);
        }
        let at = self.nodes.len();
        self.nodes.push(Node {
            board: *board,
            moves: Vec::new(),
        });
        let steps: Vec<(usize, Step)> = game.steps(board).collect();
        let mut moves = Vec::with_capacity(steps.len());
        for (pit, step) in steps {
            let to = match step.next {
                Next::Over => Target::Fixed(0),
                _ => self.grow(game, &step.board, depth.saturating_sub(1), splits, index),
            };
            moves.push(Move { pit, step, to });
        }
        self.nodes[at].moves = moves;
        Target::Node(at)
    }

    /// What `know` proves about `target`. An interior node's interval may be empty
    /// (`lo > hi`) only where the answers contradict each other (see
    /// [`FrontEnd::contradiction`]).
    pub fn interval(&self, target: Target, know: &Knowledge) -> Interval {
        match target {
            Target::Fixed(v) => Interval::exact(v),
            Target::Leaf(i) => know.leaves[i],
            Target::Node(n) => self.nodes[n]
                .moves
                .iter()
                .map(|m| self.move_interval(m, know))
                .fold(
                    Interval {
                        lo: i32::MIN,
                        hi: i32::MIN,
                    },
                    |a, b| Interval {
                        lo: a.lo.max(b.lo),
                        hi: a.hi.max(b.hi),
                    },
                )
                .meet(know.nodes[n]),
        }
    }

    /// The first interior node (by index) where what its board's own answers proved and
    /// what its moves prove do not meet: answers that contradict each other.
    pub fn contradiction(&self, know: &Knowledge) -> Option<usize> {
        let sum = self.summarize(know);
        sum.interval.iter().position(|iv| iv.lo > iv.hi)
    }

    /// Every board of the tree and where it stands: its leaf, or the interior nodes that
    /// hold it (one a path: interior nodes are not shared).
    pub fn places(&self) -> HashMap<u128, Vec<Target>> {
        let mut at: HashMap<u128, Vec<Target>> = HashMap::new();
        for (i, l) in self.leaves.iter().enumerate() {
            at.entry(l.board.key()).or_default().push(Target::Leaf(i));
        }
        for (n, node) in self.nodes.iter().enumerate() {
            at.entry(node.board.key())
                .or_default()
                .push(Target::Node(n));
        }
        at
    }

    /// What `know` proves about the mover's value through move `m`.
    pub fn move_interval(&self, m: &Move, know: &Knowledge) -> Interval {
        let child = match m.step.next {
            Next::Over => Interval::exact(0),
            _ => self.interval(m.to, know),
        };
        Interval::through(m.step.gain(), m.step.next, child)
    }

    /// Nothing known yet: each board's trivial interval.
    pub fn unknown(&self) -> Knowledge {
        Knowledge {
            leaves: self
                .leaves
                .iter()
                .map(|l| Interval::trivial(l.seeds))
                .collect(),
            nodes: self
                .nodes
                .iter()
                .map(|n| Interval::trivial(n.board.seeds() as i32))
                .collect(),
        }
    }

    /// The next MTD(f) question on the root, "value >= beta?", given what is proved
    /// (`root`) and the first guess `guess`; `None` when the root is exact. The guess is
    /// clamped into the proved interval; at its lower end the question steps one above
    /// it. The choice depends only on what is proved, so every worker that has read the
    /// same results asks the same question.
    pub fn root_beta(root: Interval, guess: i32) -> Option<i32> {
        if root.is_exact() {
            return None;
        }
        let g = guess.clamp(root.lo, root.hi);
        Some(if g == root.lo { g + 1 } else { g })
    }

    /// The leaf questions still open that decide "root >= beta", deduplicated, most
    /// promising first. Below a node none of whose moves has failed yet, only its most
    /// promising move is asked about (see `need`), so that the front end searches no more
    /// than alpha-beta would. Empty when `know` already decides the question.
    ///
    /// `guess` may give a value for a board (from its mover's side) to order the moves by,
    /// such as a depth-limited search's; where it gives none, the front end's own
    /// estimate stands in (its minimax with each leaf worth what its proved bounds allow
    /// nearest to 0). Either is clamped into the move's proved interval.
    pub fn questions(
        &self,
        beta: i32,
        know: &Knowledge,
        guess: &mut dyn FnMut(&Board) -> Option<i32>,
    ) -> Vec<Question> {
        let sum = self.summarize(know);
        let mut out = Vec::new();
        self.need(self.root, beta, know, &sum, guess, &mut out);
        let mut seen = std::collections::HashSet::new();
        out.retain(|q| seen.insert(*q));
        out
    }

    /// Every interior node's interval and estimate (see `estimate`), in one pass: a node
    /// is pushed before its children, so walking the nodes backwards meets every child
    /// before its parent.
    fn summarize(&self, know: &Knowledge) -> Summary {
        let mut sum = Summary {
            interval: vec![Interval::exact(0); self.nodes.len()],
            estimate: vec![0; self.nodes.len()],
        };
        for n in (0..self.nodes.len()).rev() {
            let mut iv = Interval {
                lo: i32::MIN,
                hi: i32::MIN,
            };
            let mut est = i32::MIN;
            for m in &self.nodes[n].moves {
                let (mi, me) = sum.of_move(m, know);
                iv.lo = iv.lo.max(mi.lo);
                iv.hi = iv.hi.max(mi.hi);
                est = est.max(me);
            }
            let iv = iv.meet(know.nodes[n]);
            sum.interval[n] = iv;
            sum.estimate[n] = est.clamp(iv.lo.min(iv.hi), iv.hi.max(iv.lo));
        }
        sum
    }

    fn need(
        &self,
        target: Target,
        t: i32,
        know: &Knowledge,
        sum: &Summary,
        guess: &mut dyn FnMut(&Board) -> Option<i32>,
        out: &mut Vec<Question>,
    ) {
        match target {
            Target::Fixed(_) => {}
            Target::Leaf(i) => {
                if !know.leaves[i].decides(t) {
                    out.push(Question {
                        leaf: i as u32,
                        beta: t,
                    });
                }
            }
            Target::Node(n) => {
                if sum.interval[n].decides(t) {
                    return;
                }
                // Undecided moves, most promising first. Until one move has failed, the
                // node may well be one that a single move settles: ask only the first
                // ("young brothers wait"), as alpha-beta would; once one has failed,
                // every move must be answered, and all are asked at once.
                let mut open = Vec::new();
                let mut failed = false;
                for m in &self.nodes[n].moves {
                    let (iv, est) = sum.of_move(m, know);
                    if iv.hi < t {
                        failed = true;
                        continue;
                    }
                    let est = match (m.step.next, m.to) {
                        (Next::Over, _) | (_, Target::Fixed(_)) => est,
                        _ => guess(&m.step.board)
                            .map_or(est, |v| m.step.value_through(v))
                            .clamp(iv.lo, iv.hi),
                    };
                    open.push((std::cmp::Reverse(est), m));
                }
                open.sort_by_key(|&(e, m)| (e, m.pit));
                let take = if failed { open.len() } else { 1 };
                for &(_, m) in open.iter().take(take) {
                    let g = m.step.gain();
                    match m.step.next {
                        Next::Over => {}
                        Next::Same => self.need(m.to, t - g, know, sum, guess, out),
                        // The move reaches t iff the opponent's value is at most g - t.
                        Next::Other => self.need(m.to, g - t + 1, know, sum, guess, out),
                    }
                }
            }
        }
    }
}

/// Every interior node's proved interval and estimate, for one state of knowledge.
///
/// The estimate guesses a value for move ordering: the minimax of the front end with each
/// leaf worth what its proved bounds allow nearest to 0 (a search to the front end's
/// depth with no gains beyond it, sharpened by what is proved).
struct Summary {
    interval: Vec<Interval>,
    estimate: Vec<i32>,
}

impl Summary {
    /// The interval and estimate of the mover's value through `m`, from its child's.
    fn of_move(&self, m: &Move, know: &Knowledge) -> (Interval, i32) {
        let (g, next) = (m.step.gain(), m.step.next);
        if next == Next::Over {
            return (Interval::exact(g), g);
        }
        let (child, est) = match m.to {
            Target::Fixed(v) => (Interval::exact(v), v),
            Target::Leaf(i) => (
                know.leaves[i],
                0.clamp(know.leaves[i].lo, know.leaves[i].hi),
            ),
            Target::Node(c) => (self.interval[c], self.estimate[c]),
        };
        (Interval::through(g, next, child), m.step.value_through(est))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RulesBuilder;
    use crate::{Capture, Solver};

    /// Answer every question with a real zero-window test until the root closes; the
    /// root's interval must close at the solver's value.
    fn prove(pits: usize, seeds: usize, capture: Capture, depth: u32, guess: i32) -> (i32, i32) {
        let mut b = RulesBuilder::new(pits, seeds);
        b.capture = Some(capture);
        let game = Game::new(b.build().unwrap());
        let root = Board::start(pits, seeds as u8);
        let fe = FrontEnd::expand(&game, &root, depth, &HashSet::new());
        let mut know = fe.unknown();
        let mut solver = Solver::new(&game, 16).unwrap();
        let mut rounds = 0;
        while let Some(beta) = FrontEnd::root_beta(fe.interval(fe.root, &know), guess) {
            let qs = fe.questions(beta, &know, &mut |_| None);
            assert!(!qs.is_empty(), "an open root question needs leaf questions");
            for q in qs {
                let leaf = fe.leaves[q.leaf as usize];
                let r = solver.test(&leaf.board, leaf.seeds, q.beta, crate::search::tt::EXACT);
                assert!(know.leaves[q.leaf as usize].learn(q.beta, r));
            }
            rounds += 1;
            assert!(rounds < 200);
        }
        let root = fe.interval(fe.root, &know);
        let mut exact = Solver::new(&game, 16).unwrap();
        (root.lo, exact.value(&Board::start(pits, seeds as u8)))
    }

    #[test]
    fn the_front_end_minimax_closes_at_the_search_value() {
        for (pits, seeds, capture) in [
            (4, 3, Capture::Standard),
            (4, 4, Capture::Empty),
            (3, 3, Capture::None),
            (5, 2, Capture::Standard),
        ] {
            for depth in 0..=3 {
                for guess in [-3, 0, 5] {
                    let (proved, value) = prove(pits, seeds, capture, depth, guess);
                    assert_eq!(
                        proved, value,
                        "Kalah({pits},{seeds}) {capture} depth {depth}"
                    );
                }
            }
        }
    }

    #[test]
    fn leaves_are_shared_and_numbered_the_same_way_each_time() {
        let game = Game::new(RulesBuilder::new(4, 3).build().unwrap());
        let root = Board::start(4, 3);
        let a = FrontEnd::expand(&game, &root, 3, &HashSet::new());
        let b = FrontEnd::expand(&game, &root, 3, &HashSet::new());
        let keys = |f: &FrontEnd| f.leaves.iter().map(|l| l.board.key()).collect::<Vec<_>>();
        assert_eq!(keys(&a), keys(&b));
        let mut sorted = keys(&a);
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), a.leaves.len(), "each board is one leaf");
    }

    #[test]
    fn an_interval_refuses_a_contradiction() {
        let mut i = Interval::trivial(10);
        assert!(i.learn(3, 5));
        assert_eq!(i, Interval { lo: 5, hi: 10 });
        assert!(i.learn(8, 6));
        assert_eq!(i, Interval { lo: 5, hi: 6 });
        assert!(!i.learn(5, 4), "value <= 4 contradicts value >= 5");
    }
}
