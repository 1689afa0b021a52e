//! A database built within a memory budget: a level that does not fit built one part at a
//! time, resumable after a kill at any moment.
//!
//! One noun a file: [`plan`] (the budget, and the parts each level is built in),
//! [`parts`] (the parts' files on disk, and the build that writes and resumes them),
//! [`resident`] (the resident set kept under the budget), and, re-exported here,
//! [`BuildError`] (`error.rs`) and [`Progress`] (`progress.rs`: what the build reports as
//! it goes). The `kalah db build` command parses its options, draws its progress bars
//! (through [`Progress`]) and prints what this module reports; everything it decides is
//! here, with its errors.
//!
//! # Parts
//!
//! A part is a set of whole splits of the seeds between the two rows (FORMAT.md, "Shard
//! files": split `s` holds the boards one of whose rows has `s` seeds; a move that keeps
//! every seed on the board keeps the split), so it is built by [`crate::gen::build_level`]
//! with its splits from the lower levels alone, into an array of its own boards, and
//! written as a shard file ([`crate::dbfile::write_shard`]). When every part is written,
//! [`crate::dbfile::merge_shards`] joins them into the level file, byte-identical to a
//! build in one piece, and removes them. Part `I` of `N` is shard `I/N`: the splits
//! [`db_format::shard::partition`] gives it, so the merge checks each part against the same
//! plan.
//!
//! **How many.** A part holds its boards (one byte each) and the rows' table every part
//! needs ([`crate::gen::build_memory`]). A level is built in one piece (in memory, then
//! written as its level file, as before there were parts) when that fits half the budget
//! left after [`PROCESS`] bytes for the process, otherwise in the fewest parts whose
//! largest fits that half ([`plan_level`]). The other half is for the lower levels' pages,
//! which the build reads through maps ([`resident`]): the fewer of them the process can
//! hold, the more often it maps them again. A level whose largest split does not fit half
//! the budget is refused ([`BuildError::OverBudget`]). With the default budget (11 GiB, or
//! half the machine's memory if that is less) the 6-pit levels up to 31 are built in one
//! piece and 32 to 34 in 2 parts each (`kalah db build --max-seeds 34` prints the plan).
//!
//! **Resident memory.** The parts bound the memory the process allocates. The lower levels'
//! pages that it maps are bounded by [`resident::Cap`], which releases them whenever the
//! resident set passes the budget less a headroom: without that, one part of level 34 would
//! map most of the 26.8 GiB of levels 0..=33. The merge then reads the new level file back
//! through a map to verify it ([`crate::dbfile::merge_shards`]), so the level's size (9.45
//! GiB at 34, within the default budget) is resident at its end, the lower levels unmapped
//! by then: a budget below the largest level's size is exceeded there.
//!
//! # Files, and resuming
//!
//! The parts of level `k` are written into their own directory, `DIR/<level file
//! name>.parts/` ([`parts_dir`]), as `<level file name>.shard-I-of-N`, so that a merge sees
//! them alone (`kalah db merge --dir DIR` and the shards of a Slurm build never see them).
//! Every file is written to `.tmp`, fsynced and renamed ([`crate::dbfile::write_shard`],
//! [`db_format::LevelWriter`]); the merged level is renamed from that directory into `DIR`
//! and the directory fsynced, then the parts' directory is removed. So whenever a build is
//! killed, a file under its final name is complete, and a rerun of the same command
//! ([`Build::level_in_parts`]):
//!
//! * removes the `.tmp` files of the level (a part or a merge in progress when killed);
//! * keeps every part file that [`db_format::shard::verify_shard`] passes (header, level,
//!   splits, length, values, checksum) without building it again, and builds again one that
//!   fails;
//! * builds the parts that are missing, then merges;
//! * finds a merged level left in the parts' directory (killed before it was moved) and,
//!   once verified, moves it into place; and removes the parts' directory of a level that
//!   is in place (killed before the directory was removed).
//!
//! Only the part in progress when the build was killed is built twice (a merge in progress
//! is done again from the parts, which it removes only once the level is written and
//! verified). The parts on disk fix the plan of their level: a rerun with another budget
//! resumes with them if their largest part fits its budget, and refuses otherwise
//! ([`BuildError::OtherParts`]).

mod error;
pub mod parts;
pub mod plan;
mod progress;
pub mod resident;

pub use error::BuildError;

pub use parts::{
    clear_leftovers, parts_dir, remove_torn, resumable, scan, Build, Built, Leftovers,
};
pub use plan::{
    beyond_machine, check_memory, largest_split, mib, parse_gib, parts_of, plan_level, plan_levels,
    split_list, write_plan, Budget, LevelPlan, Part, Why, DEFAULT_BUDGET, PROCESS,
};
pub use progress::{Counter, Progress, Silent};
pub use resident::{Cap, Released};
