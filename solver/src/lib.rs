//! Kalah(m,n) and its variants: the rules engine, an exact solver and the endgame
//! database generator.
//!
//! Layers, each in its own module: [`rules`] (the rule builder), [`board`] (the packed
//! pits), [`sow`] (the sowing rule), [`game`] (turns and the end of the game),
//! [`position`] (stores and side to move, the position string) and [`notation`] (moves and
//! game records).

pub mod board;
pub mod game;
pub mod notation;
pub mod position;
pub mod rules;
pub mod sow;

pub use board::Board;
pub use game::{Game, Next, Step};
pub use notation::{MoveText, Played, RecordError};
pub use position::{Position, PositionError, Side};
pub use rules::{
    Capture, Direction, EndRule, OppStore, Remaining, Rules, RulesBuilder, RulesError, Sowing,
};
