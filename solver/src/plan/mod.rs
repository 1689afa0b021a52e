//! A solve, planned once: the one place where a request (rules, the seeds in play, a
//! database, the table sizes, threads, a cancel flag) becomes the value sources of a
//! search or of a retrograde analysis, for `kalah`'s commands, its server and the Python
//! module alike.
//!
//! [`Plan::new`] decides the method ([`crate::Method::for_rules`]) and checks every option and
//! every figure of memory before anything is allocated, with one set of refusals
//! ([`crate::budget::Refused`], worded by each front end with its own option names). [`Backing::open`]
//! then opens what the plan chose: the endgame table (built, or taken from a
//! [`Keeper`]), or for rules that can cycle the retrograde analysis of every board in
//! play (unless the database covers them), reporting each step as an [`Event`].
//! [`Backing::engine`] gives the engine, and [`Backing::checked`] checks what a solve read
//! from the database before any of it is shown.
//!
//! The policy, stated once:
//! - the transposition table is sized for the seeds in play, at most `tt_mb` MiB
//!   ([`crate::search::tt::sized_for`]), and refused when larger than the memory available;
//! - `EndgameChoice::Auto` builds the levels [`crate::Endgame::level_for`] gives within the
//!   request's board limit, unless the database covers them; an explicit level is built
//!   whatever the database (a table answers before the database is read);
//! - rules that can cycle read the database when it covers the seeds in play, and
//!   otherwise build every level in memory, refused when that does not fit the memory
//!   available or the request's board limit.

mod backing;
mod error;
mod keeper;
mod request;

pub use backing::{Backing, Event};
pub use error::PlanError;
pub use keeper::Keeper;
pub use request::{table, Plan, Request};
