//! Kalah(m,n) and its variants: the rules engine, an exact solver and the endgame
//! database generator.
//!
//! Layers, each resting only on those listed before it:
//! - the game: [`rules`] (the rule builder), [`board`] (the packed pits), [`sow`] (the
//!   sowing rule), [`game`] (turns and the end of the game), [`position`] (stores and side
//!   to move, the position string), [`notation`] (moves and game records), [`score`]
//!   (future gains and final margins);
//! - value sources below the search: [`rank`] (the database ranking, fast), [`probe`]
//!   (the interface to a table of exact values), [`memory`] (large zeroed arrays);
//! - [`gen`]: the endgame database generator (acyclic levels, and [`gen::cyclic`] for
//!   rules that can cycle); [`dbfile`]: the database directory on disk;
//! - [`search`]: the exact search (MTD(f)), its transposition table and endgame table;
//! - over them: [`verify`] (re-deriving database entries), [`analysis`] (solutions in
//!   final margins), [`pie`] (the pie rule), [`fair`] (fair starts near the start),
//!   [`engine`] (which value source a rules set gets) and [`budget`] (the memory those
//!   sources ask for, checked before it is allocated, and the disk free);
//! - [`build`]: a database built within a memory budget, in parts, resumably.

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod analysis;
pub mod board;
pub mod budget;
pub mod build;
pub mod dbfile;
pub mod engine;
pub mod fair;
pub mod game;
pub mod gen;
pub mod memory;
pub mod notation;
pub mod pie;
pub mod plan;
pub mod position;
pub mod probe;
pub mod proof;
pub mod rank;
pub mod rules;
pub mod score;
pub mod search;
pub mod sow;
pub mod verify;

pub use board::Board;
pub use dbfile::Database;
pub use engine::{Engine, Method};
pub use game::{Game, Next, Step};
pub use gen::{build_level, GenError, Lower};
pub use notation::{MoveText, Played, RecordError};
pub use position::{Position, PositionError, Side};
pub use probe::{MemoryDb, Probe};
pub use rules::{
    Capture, Direction, EndRule, OppStore, Remaining, Rules, RulesBuilder, RulesError, Sowing,
};
pub use search::endgame::Endgame;
pub use search::{SolveError, Solver};
