//! The starts within `K` moved seeds of a rules set's start position.
//!
//! A *location* is one of the `2m` pits (A1..Am, B1..Bm) or one of the two stores. A
//! start is reached by moving seeds one at a time from a pit to another location; a seed
//! moved from a pit back to the same pit is no move, and stores only ever receive (they
//! hold nothing at the start). Two starts are the same position when every location holds
//! the same seeds, whatever the order of the moves, so a start is identified by its
//! difference `d` from the rules' start: `d[l]` seeds more (or fewer, `d[l] < 0`) at
//! location `l`, with `sum d = 0`. The seeds moved of a start are the fewest moves that
//! reach it, `sum of the positive d[l]`: a move from a pit that has received a seed would
//! only undo a move (take the seed from where it came instead), so a shortest sequence
//! takes from some pits (the *sources*) and gives to other locations (the
//! *destinations*), and no location is both.
//!
//! The enumeration therefore goes, for each `k` from 0 to `K`: every way to take `k`
//! seeds from the pits (at most `n` from a pit), and for each, every way to give `k` seeds
//! to the locations that are not sources. Each start comes exactly once, with its seeds
//! moved `k`.
//!
//! Counts, for `2m` pits of `n >= k` seeds each (so that any pit can give `k`):
//!
//! - `k = 1`: a source among `2m` pits, a destination among the other `2m + 1`
//!   locations: `2m (2m + 1)`, 156 for six pits a side.
//! - `k = 2`: both seeds from one pit (`2m` ways) to a multiset of two among the other
//!   `2m + 1` locations (`C(2m + 1, 2) + (2m + 1)`), or one seed from each of two pits
//!   (`C(2m, 2)` ways) to a multiset of two among the other `2m` locations
//!   (`C(2m, 2) + 2m`). For six pits a side: `12 · 91 + 66 · 78 = 1092 + 5148 = 6240`.
//!
//! Whatever the seeds a pit (from two), these are the counts of FairKalah (Neller et al.,
//! 2022): 156 starts with one seed moved and 6,240 with two for Kalah(6,n).

use crate::board::Board;
use crate::position::{Position, Side};
use crate::rules::Rules;

/// One start near the rules' start: South to move, as every game starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Candidate {
    pub position: Position,
    /// The fewest seeds moved one at a time from the rules' start that reach it.
    pub moved: u32,
}

/// Every start within `max_moved` moved seeds of `rules`' start (see the module docs):
/// first the start itself, then those with one seed moved, then two, and so on, each `k`
/// in a fixed order (by sources, then destinations, pits A1..Am, B1..Bm, then South's
/// store and North's).
pub fn candidates(rules: &Rules, max_moved: u32) -> Vec<Candidate> {
    let pits = rules.pits();
    let seeds = u32::from(rules.seeds());
    let cells = 2 * pits;
    let mut out = Vec::new();
    for k in 0..=max_moved {
        let mut take = vec![0u32; cells];
        each_split(&mut take, 0, k, seeds, &mut |take| {
            // Destinations: the pits that give nothing, then both stores.
            let dests: Vec<usize> = (0..cells + 2)
                .filter(|&l| l >= cells || take[l] == 0)
                .collect();
            let mut give = vec![0u32; dests.len()];
            each_split(&mut give, 0, k, u32::MAX, &mut |give| {
                let mut held = vec![seeds; cells];
                let mut stores = [0u32; 2];
                for (held, t) in held.iter_mut().zip(take) {
                    *held -= t;
                }
                for (&l, &g) in dests.iter().zip(give) {
                    match l.checked_sub(cells) {
                        None => held[l] += g,
                        Some(store) => stores[store] += g,
                    }
                }
                out.push(Candidate {
                    position: position(pits, &held, stores),
                    moved: k,
                });
            });
        });
    }
    out
}

/// The position of South to move with `held` seeds in A1..Am, B1..Bm and `stores`.
fn position(pits: usize, held: &[u32], stores: [u32; 2]) -> Position {
    // Invariant: the board holds at most the rules' seeds, which fit a byte each and in
    // all (a Rules is refused otherwise), since moving seeds never adds any.
    let cells: Vec<u8> = held.iter().map(|&c| c as u8).collect();
    Position::from_board(pits, &Board::from_cells(pits, &cells), Side::South, stores)
}

/// Calls `f` with every way to write `left` as a sum over `parts[from..]` (the parts
/// before `from` as they are), each part at most `cap`, the earlier parts taking as much
/// as they can first (descending lexicographic order).
fn each_split(parts: &mut [u32], from: usize, left: u32, cap: u32, f: &mut dyn FnMut(&[u32])) {
    if from == parts.len() {
        if left == 0 {
            f(parts);
        }
        return;
    }
    for x in (0..=left.min(cap)).rev() {
        parts[from] = x;
        each_split(parts, from + 1, left - x, cap, f);
    }
    parts[from] = 0;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn count(rules: &Rules, max_moved: u32, k: u32) -> usize {
        candidates(rules, max_moved)
            .iter()
            .filter(|c| c.moved == k)
            .count()
    }

    /// C(n, 2).
    fn pairs(n: usize) -> usize {
        n * (n - 1) / 2
    }

    #[test]
    fn six_pits_give_the_published_counts_whatever_the_seeds() {
        for seeds in 2..=6 {
            let r = Rules::kalah(6, seeds).unwrap();
            assert_eq!(count(&r, 2, 0), 1, "Kalah(6,{seeds})");
            assert_eq!(count(&r, 2, 1), 156, "Kalah(6,{seeds})");
            assert_eq!(count(&r, 2, 2), 6240, "Kalah(6,{seeds})");
        }
    }

    #[test]
    fn counts_follow_the_formula_for_every_board() {
        for pits in 1..=6 {
            for seeds in 2..=4 {
                let r = Rules::kalah(pits, seeds).unwrap();
                let p = 2 * pits;
                assert_eq!(count(&r, 2, 1), p * (p + 1));
                let one_pit = p * (pairs(p + 1) + p + 1);
                let two_pits = pairs(p) * (pairs(p) + p);
                assert_eq!(count(&r, 2, 2), one_pit + two_pits, "Kalah({pits},{seeds})");
            }
        }
    }

    #[test]
    fn a_pit_gives_at_most_its_seeds() {
        // One seed a pit: no pit can give two, so two moved seeds come from two pits.
        let r = Rules::kalah(6, 1).unwrap();
        assert_eq!(count(&r, 2, 2), pairs(12) * (pairs(12) + 12));
    }

    #[test]
    fn every_candidate_is_new_holds_every_seed_and_moves_what_it_says() {
        for (pits, seeds, k) in [(6, 4, 2), (3, 2, 3), (4, 3, 2)] {
            let r = Rules::kalah(pits, seeds).unwrap();
            let start = Position::start(&r);
            let all = candidates(&r, k);
            let distinct: HashSet<Position> = all.iter().map(|c| c.position).collect();
            assert_eq!(distinct.len(), all.len(), "a start listed twice");
            for c in &all {
                let p = &c.position;
                assert_eq!(p.to_move, Side::South);
                assert_eq!(p.board_seeds() + p.stores[0] + p.stores[1], r.total_seeds());
                // Seeds moved: what the pits and stores gained over the start.
                let gained: u32 = p
                    .row_a()
                    .iter()
                    .chain(p.row_b())
                    .zip(start.row_a().iter().chain(start.row_b()))
                    .map(|(&now, &then)| u32::from(now.saturating_sub(then)))
                    .sum::<u32>()
                    + p.stores[0]
                    + p.stores[1];
                assert_eq!(gained, c.moved, "{p}");
            }
            assert_eq!(all[0].position, start);
        }
    }

    #[test]
    fn the_first_moves_of_one_seed_go_from_a1() {
        let r = Rules::kalah(2, 2).unwrap();
        let texts: Vec<String> = candidates(&r, 1)
            .iter()
            .take(6)
            .map(|c| c.position.to_string())
            .collect();
        assert_eq!(
            texts,
            [
                "2,2/0/2,2/0/A",
                "1,3/0/2,2/0/A",
                "1,2/0/3,2/0/A",
                "1,2/0/2,3/0/A",
                "1,2/1/2,2/0/A",
                "1,2/0/2,2/1/A",
            ]
        );
    }
}
