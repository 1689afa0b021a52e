//! The lists of fair starts committed in `results/raw/fair/`, built into the library so
//! that every front end (the explorer, Python) offers the same ones.
//!
//! Each file is a [`List`] of the starts whose final margin is 0 (`kalah fair --list`),
//! named `kalahMN-CAPTURE-movedK.txt`; the commands that made them and what they cost
//! are in `results/fair.md`.

use super::list::List;
use crate::rules::Rules;

/// The committed lists' texts.
const LISTS: &[&str] = &[
    include_str!("../../../results/raw/fair/kalah22-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah22-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah23-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah23-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah24-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah24-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah25-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah25-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah26-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah26-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah32-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah32-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah33-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah33-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah34-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah34-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah35-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah35-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah36-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah36-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah42-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah42-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah43-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah43-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah44-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah44-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah45-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah45-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah46-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah46-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah52-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah52-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah53-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah53-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah54-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah54-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah55-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah62-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah62-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah63-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah63-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah64-standard-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah64-empty-moved2.txt"),
    include_str!("../../../results/raw/fair/kalah65-empty-moved2.txt"),
];

/// Every committed list, parsed.
pub fn all() -> Vec<List> {
    LISTS
        .iter()
        // Invariant: every committed list parses (tested below).
        .map(|text| text.parse().expect("a committed list parses"))
        .collect()
}

/// The committed list of the fair starts (final margin 0) of `rules` with the most seeds
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
    use crate::fair::{candidates, Verdict};
    use crate::{Capture, RulesBuilder};
    use std::collections::HashMap;

    /// The Kalah(m,n) rules, of any capture rule, that `name` names.
    fn rules_named(name: &str) -> Rules {
        (1..=6)
            .flat_map(|pits| (1..=6).map(move |seeds| (pits, seeds)))
            .flat_map(|(pits, seeds)| {
                [Capture::Standard, Capture::Empty, Capture::None].map(|capture| {
                    let mut b = RulesBuilder::new(pits, seeds);
                    b.capture = Some(capture);
                    b.build()
                })
            })
            .flatten()
            .find(|r| r.to_string() == name)
            .unwrap_or_else(|| panic!("no Kalah(m,n) rules named {name}"))
    }

    #[test]
    fn every_committed_list_lists_draws_near_its_start_once() {
        assert_eq!(all().len(), LISTS.len());
        for list in all() {
            let rules = rules_named(&list.header.rules);
            assert_eq!(
                fair_starts(&rules).map(|l| l.header.moved),
                Some(list.header.moved)
            );
            let near: HashMap<_, _> = candidates(&rules, list.header.moved)
                .into_iter()
                .map(|c| (c.position, c.moved))
                .collect();
            let mut seen = std::collections::HashSet::new();
            for e in &list.entries {
                assert_eq!(e.verdict, Verdict::Exact(0), "{rules}: {e}");
                assert_eq!(near.get(&e.position), Some(&e.moved), "{rules}: {e}");
                assert!(seen.insert(e.position), "{rules}: {e} twice");
            }
        }
    }

    #[test]
    fn rules_without_a_list_have_none() {
        let mut b = RulesBuilder::new(4, 3);
        b.pie = true;
        assert!(fair_starts(&b.build().unwrap()).is_none());
    }
}
