//! Fair starts: positions near a rules set's start that perfect play draws.
//!
//! The start of most Kalah games is a win for the first player (Kalah(6,4) by 8). A
//! *fair start* moves a few seeds of the start, from a pit to another pit or to either
//! store, so that the final margin under perfect play, South moving first, is 0
//! (FairKalah: Neller et al., "FairKalah: Towards Fair Mancala Play", Computers and
//! Games 2022). [`candidates`] lists every start within `K` moved seeds, [`Judge`]
//! settles each one with zero-window tests, and [`list`] is the text of the lists they
//! make; [`committed`] holds the lists committed in `results/raw/fair/`.

mod candidates;
pub mod committed;
pub mod list;
mod settle;

pub use candidates::{candidates, Candidate};
pub use settle::{Judge, Verdict};
