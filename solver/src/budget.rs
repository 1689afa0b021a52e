//! What a solve asks of the machine's memory, decided and checked before any of it is
//! allocated: the transposition table, the endgame table and, for rules that can cycle,
//! the retrograde analysis of every board up to the seeds in play.
//!
//! Each of them touches all the memory it asks for, so one that does not fit would push
//! the machine into swapping or the process into the kernel's OOM killer long after the
//! solve began; refused here, it fails at once with the figures. `kalah` and the Python
//! module ask the same questions with the same answers; each writes the refusal in the
//! spelling of its own options ([`Spelling`]).

use std::path::Path;

use thiserror::Error;

use crate::engine::Method;
use crate::search::endgame::Endgame;
use crate::search::tt;
use crate::{Game, Rules};

/// The largest endgame table an explicit level may ask for, in boards (and bytes): 4 GiB.
pub const MAX_ENDGAME_BOARDS: u64 = 4 << 30;

/// Bytes of memory available to a new process, from `/proc/meminfo` (`None` elsewhere):
/// what every table is checked against before it is allocated.
pub fn mem_available() -> Option<u64> {
    meminfo("MemAvailable:")
}

/// Bytes of memory of the machine, from `/proc/meminfo` (`None` elsewhere): what a
/// database build's default budget is a share of.
pub fn mem_total() -> Option<u64> {
    meminfo("MemTotal:")
}

/// Bytes free to an unprivileged writer on the file system holding `dir` (`statvfs`),
/// `None` where it cannot be asked.
pub fn disk_free(dir: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
        // SAFETY: `path` is a NUL-terminated string that outlives the call, and `st`
        // points to writable memory of a `statvfs`, which the call fills when it
        // returns 0.
        let rc = unsafe { libc::statvfs(path.as_ptr(), st.as_mut_ptr()) };
        if rc != 0 {
            return None;
        }
        // SAFETY: statvfs returned 0, so it initialised `st`.
        let st = unsafe { st.assume_init() };
        // `u64` on 64-bit Linux, narrower types elsewhere.
        #[allow(clippy::useless_conversion)]
        let (blocks, size) = (u64::from(st.f_bavail), u64::from(st.f_frsize));
        blocks.checked_mul(size)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// The field `name` (with its colon) of `/proc/meminfo`, in bytes.
fn meminfo(name: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The endgame table asked for: `kalah`'s `--endgame auto|none|K`, Python's `endgame=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndgameChoice {
    /// Half the seeds in play less 5, within the default size; none where a database
    /// covers those levels.
    Auto,
    /// No endgame table.
    Off,
    /// Every board with up to this many seeds.
    Level(u32),
}

/// How a front end writes the options a refusal names.
pub struct Spelling {
    /// The endgame option alone (`--endgame`).
    pub endgame: &'static str,
    /// Between the endgame option and its value (`--endgame 5`, `endgame=5`).
    pub endgame_sep: &'static str,
    /// The transposition table's size option with its separator (`--tt-mb `).
    pub tt_mb: &'static str,
    /// The option that limits a table held in memory, in boards, where there is one
    /// (`--endgame-mb`).
    pub limit: &'static str,
}

/// A request refused before anything was allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum Refused {
    /// Work only a search can do (a proof, an estimate) asked of rules that can cycle.
    #[error("these rules cannot be searched: they can cycle")]
    NotSearchable,
    /// An endgame level asked of rules that can cycle, solved by retrograde analysis.
    #[error("endgame level {k} asked of rules solved by retrograde analysis")]
    EndgameUnneeded {
        /// The level asked for.
        k: u32,
    },
    /// An endgame level of more than [`MAX_ENDGAME_BOARDS`] boards.
    #[error("endgame level {k} would hold more than {MAX_ENDGAME_BOARDS} boards")]
    EndgameTooLarge {
        /// The level asked for.
        k: u32,
    },
    /// An endgame table larger than the memory available.
    #[error("endgame level {k} needs {need} bytes, {avail} are available")]
    EndgameMemory {
        /// The table's levels.
        k: u32,
        /// Its bytes.
        need: u64,
        /// The bytes available.
        avail: u64,
    },
    /// A transposition table larger than the memory available.
    #[error("a transposition table of {mb} MiB, {avail} bytes available")]
    TableMemory {
        /// The size asked for, in MiB.
        max_mb: usize,
        /// The table's size for the position, in MiB.
        mb: u64,
        /// The bytes available.
        avail: u64,
    },
    /// A retrograde analysis of more boards than the front end allows (the server's
    /// `--endgame-mb`).
    #[error("a retrograde analysis of {boards} boards, more than the limit of {limit}")]
    RetrogradeLimit {
        /// The seeds in play.
        seeds: u32,
        /// The boards it would hold.
        boards: u64,
        /// The most allowed.
        limit: u64,
    },
    /// A retrograde analysis larger than the memory available.
    #[error("a retrograde analysis of {} bytes, {avail} available", .estimate.bytes.unwrap_or(u64::MAX))]
    RetrogradeMemory {
        /// The seeds in play.
        seeds: u32,
        /// What it would hold.
        estimate: Retrograde,
        /// The bytes available (0 when unknown).
        avail: u64,
    },
}

impl Refused {
    /// The refusal as the user reads it, with the options written as `spelling` writes
    /// them.
    pub fn message(&self, spelling: &Spelling) -> String {
        let Spelling {
            endgame,
            endgame_sep,
            tt_mb,
            limit: limit_option,
        } = spelling;
        match *self {
            Refused::NotSearchable => "these rules cannot be searched: they can cycle \
                                       (clockwise sowing repeats positions)"
                .to_string(),
            Refused::EndgameUnneeded { k } => format!(
                "{endgame}{endgame_sep}{k}: clockwise rules are solved by retrograde analysis, \
                 which holds every level already; leave {endgame} out"
            ),
            Refused::EndgameTooLarge { k } => format!(
                "{endgame}{endgame_sep}{k}: the table would hold more than {MAX_ENDGAME_BOARDS} \
                 boards; build a database with `kalah db build` instead"
            ),
            Refused::EndgameMemory { k, need, avail } => format!(
                "the endgame table of boards with up to {k} seeds needs {} MiB but only {} MiB \
                 of memory are available (MemAvailable in /proc/meminfo); choose a smaller \
                 {endgame}",
                need >> 20,
                avail >> 20
            ),
            Refused::TableMemory { max_mb, mb, avail } => format!(
                "{tt_mb}{max_mb}: a transposition table of {mb} MiB is more than the {} MiB of \
                 memory available (MemAvailable in /proc/meminfo)",
                avail >> 20
            ),
            Refused::RetrogradeLimit {
                seeds,
                boards,
                limit,
            } => format!(
                "clockwise sowing can repeat positions, so this position is solved by \
                 retrograde analysis of every board with up to {seeds} seeds ({boards} \
                 boards), more than allowed here ({limit} boards, {limit_option}); build a \
                 database with `kalah db build` and read it with --db"
            ),
            Refused::RetrogradeMemory {
                seeds,
                estimate,
                avail,
            } => format!(
                "clockwise sowing can cycle, so these rules are solved by retrograde analysis \
                 of every board with up to {seeds} seeds: {estimate}, but only {} MiB of \
                 memory are available (MemAvailable in /proc/meminfo); solve a position with \
                 fewer seeds",
                avail >> 20
            ),
        }
    }
}

/// The transposition table of `max_mb` MiB at most for a search of boards with up to
/// `seeds` seeds ([`tt::sized_for`]) refused when it is larger than the memory available
/// (not checked where that is unknown, nor for rules that need no search).
pub fn check_table(rules: &Rules, seeds: u32, max_mb: usize) -> Result<(), Refused> {
    if Method::for_rules(rules) == Method::Cyclic {
        return Ok(());
    }
    let mb = tt::sized_for(rules.pits(), seeds, max_mb) as u64;
    check_table_mb(max_mb, mb)
}

/// A table of `mb` MiB (asked for as `max_mb`) refused when it is larger than the memory
/// available.
pub fn check_table_mb(max_mb: usize, mb: u64) -> Result<(), Refused> {
    match mem_available() {
        Some(avail) if mb.saturating_mul(1 << 20) > avail => {
            Err(Refused::TableMemory { max_mb, mb, avail })
        }
        _ => Ok(()),
    }
}

/// The levels of the endgame table `choice` asks for, for a search of boards with up to
/// `seeds` seeds (`None`: no table). `Auto` takes [`Endgame::level_for`] within `limit`
/// boards, unless a database of `db_seeds` levels covers it; an explicit level is taken
/// as asked, within [`MAX_ENDGAME_BOARDS`].
pub fn endgame_level(
    game: &Game,
    seeds: u32,
    choice: EndgameChoice,
    db_seeds: Option<u32>,
    limit: u64,
) -> Result<Option<u32>, Refused> {
    if Method::for_rules(game.rules()) == Method::Cyclic {
        // The retrograde analysis holds every level already.
        return match choice {
            EndgameChoice::Level(k) => Err(Refused::EndgameUnneeded { k }),
            _ => Ok(None),
        };
    }
    Ok(match choice {
        EndgameChoice::Off => None,
        EndgameChoice::Auto => Endgame::level_for(game.pits(), seeds, limit)
            .filter(|&k| db_seeds.is_none_or(|d| d < k)),
        EndgameChoice::Level(k) => match Endgame::boards(game.pits(), k) {
            Some(b) if b <= MAX_ENDGAME_BOARDS => Some(k),
            _ => return Err(Refused::EndgameTooLarge { k }),
        },
    })
}

/// The endgame table of `k` levels for boards of `pits` a side refused when it is larger
/// than the memory available.
pub fn check_endgame(pits: usize, k: u32) -> Result<(), Refused> {
    match (Endgame::boards(pits, k), mem_available()) {
        (Some(need), Some(avail)) if need > avail => Err(Refused::EndgameMemory { k, need, avail }),
        _ => Ok(()),
    }
}

/// What the retrograde analysis of every board with up to some seeds holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retrograde {
    /// Boards, `None` past `u64`.
    pub positions: Option<u64>,
    /// Bytes, `None` past `u64`.
    pub bytes: Option<u64>,
}

impl Retrograde {
    /// The boards the retrograde analysis of rules that can cycle holds to solve a
    /// position with `seeds` seeds on a board of `pits` pits a side, and the bytes it
    /// needs: one a board for every level, and for the level being solved its working
    /// arrays (a floor, a cap and a move count a board, and up to `pits` same-level
    /// children of four bytes, a bound on [`crate::gen::cyclic`]'s arrays).
    pub fn of(pits: usize, seeds: u32) -> Retrograde {
        let cells = 2 * pits;
        let positions = (0..=seeds).try_fold(0u64, |sum, k| {
            sum.checked_add(db_format::checked_level_size(cells, k)?)
        });
        let top = db_format::checked_level_size(cells, seeds);
        let bytes = positions
            .zip(top)
            .and_then(|(p, t)| p.checked_add(t.checked_mul(3 + 4 * pits as u64)?));
        Retrograde { positions, bytes }
    }

    /// The analysis for `seeds` seeds refused when it does not fit the memory available
    /// (or its size overflows); where that is unknown, it is let through.
    pub fn check(pits: usize, seeds: u32) -> Result<Retrograde, Refused> {
        let estimate = Retrograde::of(pits, seeds);
        let avail = mem_available();
        let fits = match (estimate.bytes, avail) {
            (Some(b), Some(a)) => b <= a,
            (None, _) => false,
            (Some(_), None) => true,
        };
        if fits {
            Ok(estimate)
        } else {
            Err(Refused::RetrogradeMemory {
                seeds,
                estimate,
                avail: avail.unwrap_or(0),
            })
        }
    }
}

impl std::fmt::Display for Retrograde {
    /// `N positions, about M MiB`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.positions {
            Some(p) => write!(f, "{p} positions, ")?,
            None => write!(f, "more than 2^64 positions, ")?,
        }
        match self.bytes {
            Some(b) => write!(f, "about {} MiB", b >> 20),
            None => write!(f, "about more than 2^44 MiB"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Direction, Rules, RulesBuilder};
    use crate::search::endgame::DEFAULT_BOARDS;

    const CLI: Spelling = Spelling {
        endgame: "--endgame",
        endgame_sep: " ",
        tt_mb: "--tt-mb ",
        limit: "",
    };

    #[test]
    fn explicit_levels_are_refused_when_too_large_or_not_needed() {
        let game = Game::new(Rules::kalah(6, 4).unwrap());
        assert_eq!(
            endgame_level(&game, 48, EndgameChoice::Level(20), None, DEFAULT_BOARDS),
            Ok(Some(20))
        );
        assert_eq!(
            endgame_level(&game, 48, EndgameChoice::Off, None, DEFAULT_BOARDS),
            Ok(None)
        );
        assert_eq!(
            endgame_level(&game, 48, EndgameChoice::Auto, Some(31), DEFAULT_BOARDS),
            Ok(None)
        );
        // A database below the level wanted leaves the table to be built.
        assert_eq!(
            endgame_level(&game, 48, EndgameChoice::Auto, Some(12), DEFAULT_BOARDS),
            Ok(Some(19))
        );
        let big =
            endgame_level(&game, 48, EndgameChoice::Level(40), None, DEFAULT_BOARDS).unwrap_err();
        assert_eq!(big, Refused::EndgameTooLarge { k: 40 });
        assert!(big
            .message(&CLI)
            .starts_with("--endgame 40: the table would hold"));
        let mut b = RulesBuilder::new(4, 3);
        b.direction = Direction::Cw;
        let cw = Game::new(b.build().unwrap());
        assert_eq!(
            endgame_level(&cw, 24, EndgameChoice::Level(5), None, DEFAULT_BOARDS),
            Err(Refused::EndgameUnneeded { k: 5 })
        );
        assert_eq!(
            endgame_level(&cw, 24, EndgameChoice::Auto, None, DEFAULT_BOARDS),
            Ok(None)
        );
    }

    #[test]
    fn the_retrograde_estimate_counts_every_level_and_the_top_ones_arrays() {
        // 2 pits a side, up to 2 seeds: 1 + 4 + 10 boards, the top level's 10 with 3 + 8
        // more bytes each.
        let e = Retrograde::of(2, 2);
        assert_eq!(e.positions, Some(15));
        assert_eq!(e.bytes, Some(15 + 10 * 11));
        assert_eq!(e.to_string(), "15 positions, about 0 MiB");
        let huge = Retrograde::of(8, 127);
        assert_eq!(huge.bytes, None);
        assert!(matches!(
            Retrograde::check(8, 127),
            Err(Refused::RetrogradeMemory { seeds: 127, .. })
        ));
    }
}
