//! On-disk format of Kalah endgame databases.
//!
//! A database is a directory of level files, one per (rules, pits m, seeds on
//! the board k). Entry `i` of a level is the exact value (future net gain of
//! the side to move, in seeds, an `i8` in `-k..=k`) of the position whose `2m`
//! pits — the mover's pits 1..m, then the opponent's pits 1..m — have rank `i`
//! in the ranking of [`Ranker`]. `FORMAT.md` beside this crate documents every
//! byte for readers in other languages.
//!
//! This crate is all a reader needs: [`LevelFile`] validates and maps a level of
//! either format (version 1, a byte an entry; version 2, [`compact`], about half a
//! byte), [`Ranker`] turns a position into its rank, [`write_level`] writes a level
//! atomically ([`LevelWriter`] a run of entries at a time, [`write_level_from`] from a
//! [`LevelSource`] read twice for the compact format).

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod checksum;
pub mod compact;
pub mod entries;
pub mod error;
pub mod file;
pub mod header;
pub mod huffman;
pub mod index;
pub mod rules;
pub mod shard;
pub mod source;
pub mod stamp;
pub mod value;

pub use crate::{
    checksum::{checksum, checksum_values},
    compact::{write_compact_to, Compact, CompactOptions},
    entries::Entries,
    error::DbError,
    file::{
        file_name, write_level, write_level_from, write_level_to, Format, LevelFile, LevelWriter,
    },
    header::{BlockParams, Header, HEADER_LEN, MAGIC, VERSION_BYTE, VERSION_COMPACT},
    index::{binomial, checked_binomial, checked_level_size, level_size, Ranker, MAX_CELLS},
    rules::{RulesKey, MAX_PITS},
    source::LevelSource,
    value::MAX_LEVEL_SEEDS,
};
