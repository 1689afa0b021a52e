//! The subcommands, one module each, each with a `run` function returning
//! [`crate::error::CliError`].

pub mod bench;
pub mod db;
pub mod estimate;
pub mod play;
pub mod prove;
pub mod serve;
pub mod solve;
pub mod verify;
