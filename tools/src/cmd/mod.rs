//! The subcommands, one module each, each with a `run` function returning
//! [`crate::error::CliError`].
//!
//! No command imports another: what several share lives beside them, in
//! [`crate::args`] (options and their parsers), [`crate::setup`] (database, tables and
//! engine), [`crate::progress`], [`crate::view`] and [`crate::error`].

pub mod bench;
pub mod db;
pub mod estimate;
pub mod fair;
pub mod play;
pub mod prove;
pub mod serve;
pub mod solve;
pub mod verify;
