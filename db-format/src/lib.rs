//! On-disk format of Kalah endgame databases.
//!
//! A database is a directory of level files, one per (rules, pits m, seeds on
//! the board k). Entry `i` of a level is the exact value (future net gain of
//! the side to move, in seeds, an `i8` in `-k..=k`) of the position whose `2m`
//! pits — the mover's pits 1..m, then the opponent's pits 1..m — have rank `i`
//! in the ranking of [`Ranker`]. `FORMAT.md` beside this crate documents every
//! byte for readers in other languages.
//!
//! This crate is all a reader needs: [`LevelFile`] validates, checks and maps a level of
//! either format (version 1, a byte an entry; version 2, [`Compact`], about half a
//! byte), [`Ranker`] turns a position into its rank, [`write_level`] writes a level
//! atomically ([`LevelWriter`] a run of entries at a time, [`write_level_from`] from a
//! [`LevelSource`] read twice for the compact format). The [`shard`] names are the parts
//! of a level built apart and their merge.
//!
//! One file a noun, each private, its names handed on here:
//!
//! | file | what it holds |
//! |---|---|
//! | `atomic.rs` | writing files atomically (`.tmp`, fsync, rename), opening only regular ones |
//! | `header.rs` | the 64-byte header |
//! | `layout.rs` | where the parts of a compact payload lie |
//! | `compact.rs`, `compact_write.rs` | reading and writing compact (version 2) payloads |
//! | `huffman.rs` | the code of a compact level |
//! | `level_read.rs`, `level_write.rs` | reading and writing level files of either format |
//! | `stamp.rs` | the verification stamp: files whose checksum was verified |
//! | `partition.rs` | the splits of a level and which shard holds which |
//! | `shard_file.rs`, `merge.rs` | shard files, and their merge into a level file |
//! | `ranking.rs`, `value.rs`, `entries.rs`, `source.rs` | ranks, values, entries of either format, entries read in runs |
//! | `rules.rs`, `error.rs`, `checksum.rs` | rule codes, errors, the payload checksum |

#![deny(clippy::undocumented_unsafe_blocks)]

mod atomic;
mod checksum;
mod compact;
mod compact_write;
mod entries;
mod error;
mod header;
mod huffman;
mod layout;
mod level_read;
mod level_write;
mod merge;
mod partition;
mod ranking;
mod rules;
mod shard_file;
mod source;
mod stamp;
mod value;

pub use crate::{
    atomic::{open_regular, sync_dir},
    checksum::{checksum, checksum_values},
    compact::{Compact, WalkError},
    compact_write::write_compact_to,
    entries::Entries,
    error::DbError,
    header::{Header, HEADER_LEN, MAGIC, SUPPORTED_VERSIONS, VERSION_BYTE, VERSION_COMPACT},
    huffman::{canonical_codes, check_lengths, code_lengths, CodeError, MAX_CODE_LEN},
    layout::{BlockParams, CompactOptions, Layout, BLOCK_SHIFTS, SLOT_SHIFTS},
    level_read::LevelFile,
    level_write::{
        file_name, parse_file_name, write_level, write_level_from, write_level_to, Format,
        LevelWriter,
    },
    ranking::{
        binomial, checked_binomial, checked_level_size, level_size, next_in_rank_order, Ranker,
        MAX_CELLS,
    },
    rules::{InvalidRules, RulesKey, MAX_PITS},
    source::{LevelSource, RUN},
    stamp::{Identity, Stamp, RACY_NS, STAMP_NAME},
    value::{
        decode as decode_value, encode as encode_value, in_range as value_in_range,
        ENCODING_DELTA_HUFFMAN, ENCODING_NET_GAIN_I8, ENTRY_WIDTH, ENTRY_WIDTH_VARIABLE,
        MAX_LEVEL_SEEDS,
    },
};

/// The ranking's arithmetic under its earlier path, `db_format::index` (also at the
/// crate's root).
pub mod index {
    pub use crate::ranking::{checked_binomial, next_in_rank_order};
}

/// The names of each rule code, by field (`CAPTURE[code]`, …), as file names spell them.
pub mod rule_codes {
    pub use crate::rules::{CAPTURE, DIRECTION, END, OPP_STORE, REMAINING, SOWING};
}

/// A level built in parts ("shards") on several machines or one part at a time: the
/// splits of its seeds between the rows, the shard files and their merge.
pub mod shard {
    pub use crate::merge::{merge_shards, verify_shard};
    pub use crate::partition::{
        partition, split_count, split_entries, split_of, split_size, splits_size, Blocks, ShardSpec,
    };
    pub use crate::shard_file::{
        parse_shard_name, shard_file_name, write_shard, ShardHeader, SHARD_HEADER_LEN, SHARD_MAGIC,
        SHARD_VERSION,
    };
}
