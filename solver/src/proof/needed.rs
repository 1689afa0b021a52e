//! The needed units of a proof: the answers that what it proves of the root rests on.
//!
//! A proof records every answer its workers gave, but the root's proved bounds follow from
//! a subset of them, as in an alpha-beta proof tree: below a node proved *at least* `t`,
//! one move that reaches `t` suffices; below a node proved *below* `t`, every move must
//! stay below it. [`needed`] walks the front end from the root's proved bounds down to
//! the answers they use and names each as a *needed unit*: a board and the bound asked of
//! it. Those are the units a second search must confirm ([`super::check`]), and the list
//! `scripts/check-proof.py` derives on its own from the same records.
//!
//! The walk is fixed so that two readers of the same records name the same units: moves
//! in pit order, the first move that proves a lower bound, a split board's own answers
//! before its moves, and for each unit the first record (by file name, then in file
//! order) that proves it.

use std::collections::{HashMap, HashSet};

use super::dir::State;
use super::journal::Kind;
use super::tree::{FrontEnd, Interval, Knowledge, Target};
use crate::board::Board;
use crate::game::Next;

/// "The value of `board` (future net gain of its mover) is at least `t`" when `yes`, "is
/// below `t`" otherwise: one bound that the root's proof uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeededUnit {
    pub board: Board,
    pub t: i32,
    pub yes: bool,
    /// The record that proves it: an index into [`State::records`].
    pub record: usize,
}

impl NeededUnit {
    /// Whether `iv` proves the bound.
    pub fn proved_by(&self, iv: Interval) -> bool {
        proves(iv, self.t, self.yes)
    }

    /// Whether `iv` proves the bound false.
    pub fn refuted_by(&self, iv: Interval) -> bool {
        proves(iv, self.t, !self.yes)
    }

    /// The bound as text, e.g. `value >= 3` or `value <= 2`.
    pub fn bound(&self) -> String {
        if self.yes {
            format!("value >= {}", self.t)
        } else {
            format!("value <= {}", self.t - 1)
        }
    }
}

/// Whether `iv` proves "value >= t" (`yes`) or "value < t".
fn proves(iv: Interval, t: i32, yes: bool) -> bool {
    if yes {
        iv.lo >= t
    } else {
        iv.hi < t
    }
}

/// Whether a fail-soft answer `result` to "value >= beta?" proves the bound.
fn answer_proves(beta: i32, result: i32, t: i32, yes: bool) -> bool {
    if yes {
        result >= beta && result >= t
    } else {
        result < beta && result < t
    }
}

/// The needed units of what `st` proves of its root: its lower bound, where more than the
/// board's trivial one, and its upper bound likewise; in the order of the walk, each once.
pub fn needed(st: &State) -> Vec<NeededUnit> {
    let front = &st.tree.front;
    let mut by_board: HashMap<u128, Vec<usize>> = HashMap::new();
    for (i, r) in st.records.iter().enumerate() {
        if r.kind == Kind::Answer {
            by_board.entry(r.board_key).or_default().push(i);
        }
    }
    let mut walk = Walk {
        front,
        know: &st.know,
        st,
        by_board,
        seen: HashSet::new(),
        out: Vec::new(),
    };
    let root = front.interval(front.root, &st.know);
    if root.lo <= root.hi {
        walk.support(front.root, root.lo, true);
        walk.support(front.root, root.hi + 1, false);
    }
    walk.out
}

struct Walk<'a> {
    front: &'a FrontEnd,
    know: &'a Knowledge,
    st: &'a State,
    by_board: HashMap<u128, Vec<usize>>,
    seen: HashSet<(u128, i32, bool)>,
    out: Vec<NeededUnit>,
}

impl Walk<'_> {
    /// Name the units that prove "value of `target` >= t" (`yes`) or "< t".
    fn support(&mut self, target: Target, t: i32, yes: bool) {
        match target {
            Target::Fixed(_) => {}
            Target::Leaf(i) => self.unit(self.front.leaves[i].board, t, yes),
            Target::Node(n) => {
                let node = &self.front.nodes[n];
                if proves(self.know.nodes[n], t, yes) {
                    return self.unit(node.board, t, yes);
                }
                for m in &node.moves {
                    let through = self.front.move_interval(m, self.know);
                    if yes && through.lo < t {
                        continue;
                    }
                    let g = m.step.gain();
                    match m.step.next {
                        Next::Over => {}
                        Next::Same => self.support(m.to, t - g, yes),
                        // The move reaches t iff the opponent's value is at most g - t.
                        Next::Other => self.support(m.to, g - t + 1, !yes),
                    }
                    if yes {
                        return;
                    }
                }
            }
        }
    }

    /// The unit "`board` >= t" (`yes`) or "< t", proved by the first record that proves
    /// it; none where the board's own limits prove it.
    fn unit(&mut self, board: Board, t: i32, yes: bool) {
        let seeds = board.seeds() as i32;
        if proves(Interval::trivial(seeds), t, yes) || !self.seen.insert((board.key(), t, yes)) {
            return;
        }
        let records = &self.st.records;
        let found = self.by_board.get(&board.key()).and_then(|at| {
            at.iter().copied().find(|&i| {
                let r = &records[i];
                answer_proves(r.beta.into(), r.result.into(), t, yes)
            })
        });
        // What is proved of a board comes from its answers: where the walk finds a bound
        // proved, one answer proves it.
        let record = found.expect("a proved bound has an answer that proves it");
        self.out.push(NeededUnit {
            board,
            t,
            yes,
            record,
        });
    }
}
