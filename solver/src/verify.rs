//! Re-derivation of database entries: a stored value checked against the stored values of
//! the board's children, one step of the game.

use db_format::{level_size, Ranker};
use rayon::prelude::*;

use crate::board::Board;
use crate::game::{Game, Next};
use crate::probe::Probe;

/// The value of a non-terminal or terminal `board` re-derived from the stored values of
/// its children, all read from `db` (which must cover the board's own level): the
/// one-step check of a database's verifier. `None` when a child is not covered.
pub fn rederive(game: &Game, board: &Board, db: &dyn Probe) -> Option<i32> {
    if let Some(v) = game.terminal_value(board) {
        return Some(v);
    }
    let mut best = i32::MIN;
    for (_, step) in game.steps(board) {
        let child = match step.next {
            Next::Over => 0,
            Next::Same | Next::Other => db.value(&step.board)?,
        };
        best = best.max(step.value_through(child));
    }
    Some(best)
}

/// What re-deriving a level found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelCheck {
    /// Entries re-derived.
    pub checked: u64,
    /// The first entry (in the order checked) whose children do not give its value.
    pub wrong: Option<Mismatch>,
}

/// An entry whose stored value its children do not give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The entry's rank in its level.
    pub rank: u64,
    /// The value stored.
    pub stored: i32,
    /// The value its children give ([`rederive`]), or none when a child is not covered.
    pub derived: Option<i32>,
}

/// Re-derives the entries of level `k` of `db` ([`rederive`], in parallel): all of them
/// when the level has at most `full_up_to` entries, else a fixed sample of `sample`
/// ranks (SplitMix64 of the index and the level: the same sample on every run).
pub fn rederive_level(
    game: &Game,
    db: &dyn Probe,
    k: u32,
    full_up_to: u64,
    sample: u64,
) -> LevelCheck {
    let m = game.pits();
    let Ok(ranker) = Ranker::new(2 * m, k) else {
        return LevelCheck {
            checked: 0,
            wrong: None,
        };
    };
    let count = level_size(2 * m, k);
    let full = count <= full_up_to;
    let n = if full { count } else { sample.min(count) };
    let pick = |i: u64| {
        if full {
            i
        } else {
            let mut z = i
                .wrapping_add(u64::from(k) << 40)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) % count
        }
    };
    let wrong = (0..n).into_par_iter().find_map_first(|i| {
        let rank = pick(i);
        let mut c = [0u8; 16];
        ranker.unrank(rank, &mut c[..2 * m]);
        let b = Board::from_cells(m, &c[..2 * m]);
        let stored = db.value(&b)?;
        let derived = rederive(game, &b, db);
        (derived != Some(stored)).then_some(Mismatch {
            rank,
            stored,
            derived,
        })
    });
    LevelCheck { checked: n, wrong }
}
