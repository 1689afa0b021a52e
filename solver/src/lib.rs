//! Kalah(m,n) and its variants: the rules engine, an exact solver and the endgame
//! database generator.
//!
//! Layers, each in its own module: [`rules`] (the rule builder), [`board`] (the packed
//! pits), [`sow`] (the sowing rule), [`game`] (turns and the end of the game),
//! [`position`] (stores and side to move, the position string) and [`notation`] (moves and
//! game records).

pub mod analysis;
pub mod board;
pub mod cyclic;
pub mod dbfile;
pub mod endgame;
pub mod game;
pub mod memory;
pub mod mtdf;
pub mod notation;
pub mod pie;
pub mod position;
pub mod probe;
pub mod proof;
pub mod retro;
pub mod rules;
pub mod sow;
pub mod tt;

pub use board::Board;
pub use endgame::Endgame;
pub use game::{Game, Next, Step};
pub use mtdf::{SolveError, Solver};
pub use notation::{MoveText, Played, RecordError};
pub use position::{Position, PositionError, Side};
pub use probe::{MemoryDb, Probe};
pub use rules::{
    Capture, Direction, EndRule, OppStore, Remaining, Rules, RulesBuilder, RulesError, Sowing,
};
