//! The endgame table kept between solves.
//!
//! A table takes seconds to minutes to build: far longer than most searches that a
//! program asks for one after another (every position of a game, the explorer's clicks).
//! So a front end that solves many positions keeps the latest table built in a
//! [`Keeper`], and it serves every later solve of the same rules that wants no more
//! levels (a table of more levels gives the same values). Only the latest rules' table is
//! kept, so the memory held is one table.
//!
//! A solve that may be stopped builds its table on a thread of its own and looks at its
//! cancel flag while it waits: a stop returns at once, and the build goes on and is kept
//! when it ends, so the work is not lost.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use db_format::RulesKey;

use super::error::PlanError;
use crate::{Endgame, Game, GenError, Probe};

/// How often a solve waiting for a build looks at its cancel flag.
const POLL: Duration = Duration::from_millis(20);

/// The latest endgame table built, and the rules it is of.
#[derive(Default)]
pub struct Keeper {
    latest: Mutex<Option<(RulesKey, Arc<Endgame>)>>,
}

impl Keeper {
    /// An empty keeper.
    pub const fn new() -> Keeper {
        Keeper {
            latest: Mutex::new(None),
        }
    }

    /// The held table; its data stays whole even if a holder panicked (each critical
    /// section is one read or one replacement).
    fn lock(&self) -> MutexGuard<'_, Option<(RulesKey, Arc<Endgame>)>> {
        self.latest.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The kept table of `key` with at least `k` levels, if there is one.
    pub fn kept(&self, key: &RulesKey, k: u32) -> Option<Arc<Endgame>> {
        match &*self.lock() {
            Some((held, table)) if held == key && table.max_seeds() >= k => Some(Arc::clone(table)),
            _ => None,
        }
    }

    /// Keep `table` of `key` unless a larger table of the same rules is kept already.
    pub fn keep(&self, key: RulesKey, table: &Arc<Endgame>) {
        let mut latest = self.lock();
        let larger_kept = matches!(&*latest,
            Some((held, t)) if *held == key && t.max_seeds() >= table.max_seeds());
        if !larger_kept {
            *latest = Some((key, Arc::clone(table)));
        }
    }

    /// The table of `game` with levels `0..=k`: the kept one, or one built now on a thread
    /// of its own and kept, waited for while `cancel` stays down.
    pub fn table(
        self: &Arc<Self>,
        game: &Game,
        k: u32,
        cancel: &AtomicBool,
    ) -> Result<Arc<Endgame>, PlanError> {
        let key = game.rules().db_key();
        if let Some(t) = self.kept(&key, k) {
            return Ok(t);
        }
        let (tx, rx) = mpsc::channel::<Result<Arc<Endgame>, GenError>>();
        let (game, me) = (game.clone(), Arc::clone(self));
        std::thread::spawn(move || {
            let built = Endgame::build(&game, k, |_, _| {}).map(Arc::new);
            if let Ok(t) = &built {
                me.keep(key, t);
            }
            // The solve that asked may have stopped waiting: the table is kept anyway.
            let _ = tx.send(built);
        });
        loop {
            match rx.recv_timeout(POLL) {
                Ok(built) => return Ok(built?),
                Err(RecvTimeoutError::Timeout) if cancel.load(Ordering::Relaxed) => {
                    return Err(PlanError::Stopped)
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(PlanError::BuildLost),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;

    #[test]
    fn a_kept_table_serves_until_more_levels_or_other_rules_are_asked_for() {
        let keeper = Arc::new(Keeper::new());
        let never = AtomicBool::new(false);
        let game = Game::new(Rules::kalah(3, 3).unwrap());
        let four = keeper.table(&game, 4, &never).unwrap();
        let again = keeper.table(&game, 3, &never).unwrap();
        assert!(Arc::ptr_eq(&four, &again));
        let six = keeper.table(&game, 6, &never).unwrap();
        assert_eq!(six.max_seeds(), 6);
        assert!(keeper.kept(&game.rules().db_key(), 5).is_some());
        // A smaller table of the same rules does not replace the larger one.
        keeper.keep(game.rules().db_key(), &four);
        assert_eq!(
            keeper.kept(&game.rules().db_key(), 0).unwrap().max_seeds(),
            6
        );
        // Other rules (the key leaves out the seeds a pit: levels count seeds on board).
        let mut b = crate::RulesBuilder::new(3, 3);
        b.capture = Some(crate::Capture::Empty);
        let other = Game::new(b.build().unwrap());
        assert!(keeper.kept(&other.rules().db_key(), 0).is_none());
        keeper.table(&other, 2, &never).unwrap();
        assert!(keeper.kept(&game.rules().db_key(), 0).is_none());
    }
}
