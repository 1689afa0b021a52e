//! Young brothers wait: a node's moves after the first searched in parallel, and the stop
//! signal that drops what a cut made useless.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use rayon::prelude::*;

use super::tt::NO_MOVE;
use super::Solver;
use crate::game::Step;

impl Solver<'_> {
    /// The best of `moves` from a board with `seeds` seeds against `beta`, searched in
    /// parallel on the current rayon pool, and its move: the same bound contract as
    /// [`Solver::test`] over those moves. Once one of them reaches `beta` the others are
    /// stopped and their unfinished results dropped (the cut needs none of them); when
    /// none does, every one finished, unless a split point above was stopped too, which
    /// the caller sees in [`Solver::stopped`]. `opponent`: whether the mover is the
    /// opponent of the test's root (see [`Solver::test_at`]).
    pub(super) fn split(
        &mut self,
        moves: &[(u8, Step)],
        seeds: i32,
        beta: i32,
        depth: u8,
        opponent: bool,
    ) -> (i32, u8) {
        let abort = Abort {
            flag: AtomicBool::new(false),
            parent: self.stop,
        };
        let this = &*self;
        // Each worker takes the next move in order, so the moves ordered first are
        // searched first (as in the serial search), whichever thread is free.
        let next = AtomicUsize::new(0);
        let search = || -> Vec<(i32, u8, Solver<'_>)> {
            (0..moves.len().min(rayon::current_num_threads()))
                .into_par_iter()
                .map(|_| {
                    // This search's settings and tables, its own counts, and the stop
                    // signal of this split point.
                    let mut child = Solver {
                        config: this.config.clone(),
                        stop: Some(&abort),
                        ..Solver::blank(this.game, Arc::clone(&this.table))
                    };
                    let mut best = (i32::MIN, NO_MOVE);
                    while let Some(&(pit, step)) = moves.get(next.fetch_add(1, Ordering::Relaxed)) {
                        if abort.is_set() {
                            break;
                        }
                        let v = child.through(&step, seeds, beta, depth, None, opponent);
                        if child.stopped() {
                            break;
                        }
                        if v > best.0 {
                            best = (v, pit);
                        }
                        if v >= beta {
                            abort.flag.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                    (best.0, best.1, child)
                })
                .collect()
        };
        let results = match &self.pool {
            Some(pool) => pool.install(search),
            None => search(),
        };
        let mut best = (i32::MIN, NO_MOVE);
        for (v, pit, child) in results {
            self.nodes += child.nodes;
            // What the child added to the shared counter itself is not added again.
            self.published += child.published;
            self.probes += child.probes;
            self.endgame_reads += child.endgame_reads;
            self.stats += child.stats;
            if v > best.0 {
                best = (v, pit);
            }
        }
        // The children's nodes not yet in the counter are now this search's: added here,
        // since its own count jumps by them past the multiples the search publishes at.
        self.publish();
        best
    }
}

/// A split point's stop signal, linked to those of the split points above it: a search
/// below a split point stops when any of them is set.
pub(super) struct Abort<'p> {
    flag: AtomicBool,
    parent: Option<&'p Abort<'p>>,
}

impl Abort<'_> {
    pub(super) fn is_set(&self) -> bool {
        let mut at = Some(self);
        while let Some(a) = at {
            if a.flag.load(Ordering::Relaxed) {
                return true;
            }
            at = a.parent;
        }
        false
    }
}
