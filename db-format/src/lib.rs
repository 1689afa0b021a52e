//! On-disk format of Kalah endgame databases.
//!
//! A database is a directory of level files, one per (rules, pits m, seeds on
//! the board k). Entry `i` of a level is the exact value (future net gain of
//! the side to move, in seeds, an `i8` in `-k..=k`) of the position whose `2m`
//! pits — the mover's pits 1..m, then the opponent's pits 1..m — have rank `i`
//! in the ranking of [`Ranker`]. `FORMAT.md` beside this crate documents every
//! byte for readers in other languages.
//!
//! This crate is all a reader needs: [`LevelFile`] validates and maps a level,
//! [`Ranker`] turns a position into its rank, [`write_level`] writes a level
//! atomically ([`LevelWriter`] a run of entries at a time).

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod checksum;
pub mod error;
pub mod file;
pub mod header;
pub mod index;
pub mod rules;
pub mod shard;
pub mod value;

pub use crate::{
    checksum::{checksum, checksum_values},
    error::DbError,
    file::{file_name, write_level, write_level_to, LevelFile, LevelWriter},
    header::{Header, FORMAT_VERSION, HEADER_LEN, MAGIC},
    index::{binomial, checked_binomial, checked_level_size, level_size, Ranker, MAX_CELLS},
    rules::{RulesKey, MAX_PITS},
    value::MAX_LEVEL_SEEDS,
};
