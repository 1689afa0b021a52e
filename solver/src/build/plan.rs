//! How a database is built within a memory budget: the [`Budget`], and the parts each
//! level is built in ([`LevelPlan`], [`plan_level`], [`plan_levels`]), checked against
//! the memory of the machine ([`check_memory`]) before anything is written. See the
//! module docs of [`crate::build`] for why half the budget goes to a part.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use db_format::shard::{partition, split_count, splits_size};
use db_format::{file_name, level_size, DbError, Format, RulesKey};

use super::error::BuildError;
use super::resident::headroom;
use crate::budget::{mem_available, mem_total};
use crate::dbfile::ShardSpec;
use crate::gen::build_memory;

/// Memory reserved beside a part for the process itself: the binary, the threads' stacks
/// and scratch, the writers' buffers (what `scripts/slurm-build-level.sh` adds to a task's
/// memory for the same).
pub const PROCESS: u64 = 256 << 20;

/// The default budget, unless half the machine's memory is less: 11 GiB (11.8 GB), so
/// that a build to 34 seeds stays under 12 GB resident on a machine of 24 GiB shared
/// with other jobs.
pub const DEFAULT_BUDGET: u64 = 11 << 30;

/// MiB, rounded up.
pub fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

/// The memory budget of a build: the most its resident set may hold, the lower levels'
/// mapped pages included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    bytes: u64,
    /// The worker threads of the build (the headroom below the budget grows with them).
    threads: usize,
}

impl Budget {
    /// `gib` GiB (2^30 bytes), or the default: [`DEFAULT_BUDGET`], or half the machine's
    /// memory if that is less; for a build on `threads` worker threads.
    pub fn new(gib: Option<f64>, threads: usize) -> Budget {
        let bytes = match gib {
            // Not above 2^64 bytes: `parse_gib` caps the option far below.
            Some(g) => (g * f64::from(1u32 << 30)) as u64,
            None => mem_total().map_or(DEFAULT_BUDGET, |t| (t / 2).min(DEFAULT_BUDGET)),
        };
        Budget { bytes, threads }
    }

    /// The budget in bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The most one part's boards and rows' table may take: half of what the budget leaves
    /// after [`PROCESS`]. The other half holds the lower levels' pages.
    pub fn part_limit(&self) -> u64 {
        self.bytes.saturating_sub(PROCESS) / 2
    }

    /// The resident set at which the lower levels' pages are released: the budget less
    /// [`headroom`].
    pub fn resident_limit(&self) -> u64 {
        self.bytes
            .saturating_sub(headroom(self.bytes, self.threads))
    }
}

/// Parses `--memory-gb`: GiB, more than 0 and at most 2^20.
pub fn parse_gib(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(g) if g > 0.0 && g <= f64::from(1u32 << 20) => Ok(g),
        _ => Err(format!(
            "'{s}': expected a number of GiB above 0 (and at most 1048576), e.g. 11 or 0.5"
        )),
    }
}

/// One part of a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// Its shard: part `index` of `count`.
    pub spec: ShardSpec,
    /// Its splits, bit `s` for split `s`.
    pub splits: u64,
    /// Its boards.
    pub boards: u64,
    /// Bytes its build allocates ([`build_memory`]).
    pub memory: u64,
}

/// Why a level is built in the parts of its plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// The whole level fits the budget: one piece.
    Fits,
    /// The fewest parts whose largest fits the budget.
    Budget,
    /// As many parts as `--parts` asks (for tests).
    Forced,
}

/// How level `k` is built: its parts (one: the whole level) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelPlan {
    /// The level.
    pub k: u32,
    /// Its parts, in order; one for a level built in one piece.
    pub parts: Vec<Part>,
    /// Entries of the level (its file is 64 bytes more).
    pub boards: u64,
    /// Why these parts.
    pub why: Why,
}

impl LevelPlan {
    /// Whether the level is built in more than one part.
    pub fn in_parts(&self) -> bool {
        self.parts.len() > 1
    }

    /// The memory of its largest part.
    pub fn largest(&self) -> u64 {
        self.parts.iter().map(|p| p.memory).max().unwrap_or(0)
    }

    /// The disk its level file is counted at, one byte an entry and the header, in the
    /// plan and in the disk check: a compact file's size depends on values not yet built.
    pub fn file_bytes(&self) -> u64 {
        self.boards + db_format::HEADER_LEN as u64
    }
}

/// The `count` parts of level `k`, `pits` a side: the splits of shard `I/count` each
/// ([`ShardSpec::splits`]), with their boards and memory.
pub fn parts_of(pits: usize, k: u32, count: u32) -> Result<Vec<Part>, DbError> {
    let masks = partition(pits, k, count)?;
    (0..count)
        .map(|index| {
            let splits = masks.get(index as usize).copied().unwrap_or(0);
            Ok(Part {
                spec: ShardSpec { index, count },
                splits,
                boards: splits_size(pits, k, splits)?,
                memory: build_memory(pits, k, Some(splits))?,
            })
        })
        .collect()
}

/// How level `k` of `pits` pits a side is built within `budget` (see the module docs),
/// or in `forced` parts (at most its splits). Rules that can cycle build whole levels
/// only (the retrograde solver), whatever the budget.
pub fn plan_level(
    pits: usize,
    k: u32,
    cyclic: bool,
    budget: Budget,
    forced: Option<u32>,
) -> Result<LevelPlan, BuildError> {
    let cells = 2 * pits;
    let boards = level_size(cells, k);
    let whole = |why| -> Result<LevelPlan, BuildError> {
        Ok(LevelPlan {
            k,
            parts: parts_of(pits, k, 1)?,
            boards,
            why,
        })
    };
    let splits = split_count(k);
    if cyclic || splits < 2 {
        return whole(Why::Fits);
    }
    if let Some(n) = forced {
        let n = n.clamp(1, splits);
        return Ok(LevelPlan {
            k,
            parts: parts_of(pits, k, n)?,
            boards,
            why: Why::Forced,
        });
    }
    if build_memory(pits, k, None)? <= budget.part_limit() {
        return whole(Why::Fits);
    }
    for n in 2..=splits {
        let parts = parts_of(pits, k, n)?;
        if parts.iter().all(|p| p.memory <= budget.part_limit()) {
            return Ok(LevelPlan {
                k,
                parts,
                boards,
                why: Why::Budget,
            });
        }
    }
    // Even one split a part is too large: the largest split alone is the smallest part.
    let need = parts_of(pits, k, splits)?
        .iter()
        .map(|p| p.memory)
        .max()
        .unwrap_or(0);
    let min = (2 * need + PROCESS) as f64 / f64::from(1u32 << 30);
    Err(BuildError::OverBudget {
        k,
        need: mib(need),
        budget: mib(budget.bytes()),
        min_gb: format!("{:.1}", (min * 10.0).ceil() / 10.0),
    })
}

/// Whether this machine cannot build level `k` (`pits` a side) in parts under any budget:
/// the budget that holds its largest split in half of it (less the process's share) is
/// more than the memory available. Never where the memory available is not known.
pub fn beyond_machine(pits: usize, k: u32) -> Result<bool, DbError> {
    let split = build_memory(pits, k, Some(largest_split(pits, k)?))?;
    let least = split.saturating_mul(2).saturating_add(PROCESS);
    Ok(mem_available().is_some_and(|avail| least > avail))
}

/// The largest split of level `k` (`pits` a side), as a mask.
pub fn largest_split(pits: usize, k: u32) -> Result<u64, DbError> {
    let mut best = (0, 0);
    for s in 0..db_format::shard::split_count(k) {
        let n = db_format::shard::split_size(pits, k, s)?;
        if n > best.0 {
            best = (n, s);
        }
    }
    Ok(1 << best.1)
}

/// The plan of each level of `levels` (ascending) to build into `out` for the rules
/// `key` (`cyclic`: whether their play can cycle): `shard`'s splits for a shard (its
/// level rebuilt whether present or not, as one part), otherwise, for each level whose
/// file is absent, [`plan_level`] within `budget` (or in `forced` parts). Planned from the
/// top down: the top level needs the largest budget, and a refusal names it. A level
/// beyond this machine whatever the budget ([`beyond_machine`]) is refused as
/// [`BuildError::NoMemory`], with the shards that would hold it, and a shard of rules that
/// can cycle as [`BuildError::ShardCyclic`] (their retrograde solver builds whole levels).
pub fn plan_levels(
    out: &Path,
    key: &RulesKey,
    levels: &[u32],
    shard: Option<ShardSpec>,
    cyclic: bool,
    budget: Budget,
    forced: Option<u32>,
) -> Result<BTreeMap<u32, LevelPlan>, BuildError> {
    let cells = key.cells();
    let pits = usize::from(key.pits);
    if cyclic && shard.is_some() {
        return Err(BuildError::ShardCyclic);
    }
    let mut plans: BTreeMap<u32, LevelPlan> = BTreeMap::new();
    for &k in levels.iter().rev() {
        let present = out.join(file_name(key, k)).exists();
        let plan = match shard {
            Some(s) => {
                let splits = s.splits(pits, k)?;
                LevelPlan {
                    k,
                    parts: vec![Part {
                        spec: s,
                        splits,
                        boards: splits_size(pits, k, splits)?,
                        memory: build_memory(pits, k, Some(splits))?,
                    }],
                    boards: level_size(cells, k),
                    why: Why::Fits,
                }
            }
            None if present => continue,
            None => match plan_level(pits, k, cyclic, budget, forced) {
                Err(BuildError::OverBudget { .. }) if beyond_machine(pits, k)? => {
                    return Err(BuildError::NoMemory {
                        what: format!("level {k}"),
                        need: mib(build_memory(pits, k, None)?),
                        avail: mib(mem_available().unwrap_or(0)),
                        advice: format!(
                            "build it in more shards (--shard I/N: each holds only its \
                             splits' boards, down to {} MiB for the largest split; `kalah db \
                             plan` gives every shard's memory) on machines with more memory, \
                             or build fewer seeds",
                            mib(build_memory(pits, k, Some(largest_split(pits, k)?))?)
                        ),
                    });
                }
                plan => plan?,
            },
        };
        plans.insert(k, plan);
    }
    Ok(plans)
}

/// Refuses a build whose largest allocation, `top` bytes for `what` (the level, part or
/// shard named in the refusal), is more than the memory available, with advice that
/// depends on whether it is a `shard` and on the smallest piece level `max_seeds` (`pits`
/// a side) can be cut into. Passes where the memory available is not known.
pub fn check_memory(
    pits: usize,
    max_seeds: u32,
    shard: bool,
    top: u64,
    what: String,
) -> Result<(), BuildError> {
    let Some(avail) = mem_available() else {
        return Ok(());
    };
    if top <= avail {
        return Ok(());
    }
    let smallest = build_memory(pits, max_seeds, Some(largest_split(pits, max_seeds)?))?;
    let advice = if shard && top <= smallest {
        format!(
            "this shard is one split of the seeds between the rows, which cannot be \
             cut further: use a machine with {} MiB or more",
            mib(top)
        )
    } else if shard {
        format!(
            "build it in more shards (--shard I/N: each holds only its splits' boards, \
             down to {} MiB for the largest split; `kalah db plan` gives every \
             shard's memory), build fewer seeds or use a machine with more memory",
            mib(smallest)
        )
    } else {
        format!(
            "give a smaller --memory-gb, which builds a level in parts of at most \
             half of it (down to {} MiB for the largest split), or build it in \
             shards (--shard I/N) on machines with more memory",
            mib(smallest)
        )
    };
    Err(BuildError::NoMemory {
        what,
        need: mib(top),
        avail: mib(avail),
        advice,
    })
}

/// The splits of a mask (bit `s` for split `s`), e.g. `0, 3, 7`, or `none`.
pub fn split_list(splits: u64) -> String {
    let list: Vec<String> = (0..64)
        .filter(|s| splits >> s & 1 == 1)
        .map(|s: u32| s.to_string())
        .collect();
    if list.is_empty() {
        "none".to_string()
    } else {
        list.join(", ")
    }
}

/// Writes the plan of a level built in parts: its parts, the splits, boards and memory of
/// each, and the disk it needs while the last part is merged (the parts and the level
/// file side by side); and a note where the merge's check of the level file, which maps
/// it whole, passes `budget`. The level file is counted as [`LevelPlan::file_bytes`],
/// and for a compact build the plan says so.
pub fn write_plan(out: &mut impl Write, plan: &LevelPlan, budget: Budget, format: Format) {
    let n = plan.parts.len();
    let bytes = plan.file_bytes();
    let parts_bytes = plan.boards + (n * db_format::shard::SHARD_HEADER_LEN) as u64;
    let counted = match format {
        Format::Byte => "",
        Format::Compact => " at one byte an entry, a compact file less",
    };
    let _ = writeln!(
        out,
        "level {:3}: {n} parts of at most {} MiB; disk {} MiB (parts {} + level file {}{counted})",
        plan.k,
        mib(plan.largest()),
        mib(bytes + parts_bytes),
        mib(parts_bytes),
        mib(bytes)
    );
    for p in &plan.parts {
        let _ = writeln!(
            out,
            "  part {}/{}: {} boards, {} MiB, splits {}",
            p.spec.index,
            p.spec.count,
            p.boards,
            mib(p.memory),
            split_list(p.splits)
        );
    }
    if bytes > budget.resident_limit() {
        let _ = writeln!(
            out,
            "  note: the merge verifies the level file through a map: {} MiB resident at \
             its end, above the budget",
            mib(bytes)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    fn budget(gib: f64) -> Budget {
        Budget::new(Some(gib), 2)
    }

    /// With the default budget on a machine of 24 GiB (11 GiB), 6-pit levels up to 31 are
    /// built in one piece, 32 to 34 in 2 parts, each within half the budget less the
    /// process's share.
    #[test]
    fn eleven_gib_builds_levels_32_to_34_in_two_parts() {
        let b = budget(11.0);
        assert_eq!(b.bytes(), 11 * GIB);
        assert_eq!(b.part_limit(), (11 * GIB - PROCESS) / 2);
        for k in 0..=31 {
            let plan = plan_level(6, k, false, b, None).unwrap();
            assert_eq!((plan.parts.len(), plan.why), (1, Why::Fits), "level {k}");
        }
        for k in 32..=34 {
            let plan = plan_level(6, k, false, b, None).unwrap();
            assert_eq!((plan.parts.len(), plan.why), (2, Why::Budget), "level {k}");
            assert!(plan.largest() <= b.part_limit());
            assert_eq!(
                plan.parts.iter().map(|p| p.boards).sum::<u64>(),
                level_size(12, k)
            );
        }
        // Level 34's parts: the figures of `kalah db plan --shards 2` (results/db.md).
        let plan = plan_level(6, 34, false, b, None).unwrap();
        assert_eq!(mib(plan.largest()), 5393);
    }

    /// A budget of 1 GiB: level 23 whole (335 MiB within 384), 24 to 26 in parts, and a
    /// level whose largest split passes half the budget refused with the budget it needs.
    #[test]
    fn one_gib_builds_levels_24_to_26_in_parts_and_refuses_what_cannot_fit() {
        let b = budget(1.0);
        assert_eq!(mib(b.part_limit()), 384);
        assert!(!plan_level(6, 23, false, b, None).unwrap().in_parts());
        let counts: Vec<usize> = (24..=26)
            .map(|k| plan_level(6, k, false, b, None).unwrap().parts.len())
            .collect();
        assert_eq!(counts, [2, 3, 4]);
        match plan_level(6, 28, false, b, None) {
            Err(BuildError::OverBudget {
                k, need, min_gb, ..
            }) => {
                // The largest split of level 28 alone: 439 MiB (results/db.md).
                assert_eq!((k, need), (28, 439));
                // 2 × 439 + 256 MiB = 1.107 GiB.
                assert_eq!(min_gb, "1.2");
            }
            other => panic!("{other:?}"),
        }
    }

    /// Half the budget less the process's share decides: level 20 of 6 pits (110 MiB)
    /// whole under 0.5 GiB (128 MiB), level 21 (162 MiB) in parts; `--parts` and
    /// clockwise rules override the budget.
    #[test]
    fn half_the_budget_decides_and_forced_parts_win() {
        let b = budget(0.5);
        assert_eq!(mib(b.part_limit()), 128);
        assert_eq!(mib(build_memory(6, 20, None).unwrap()), 111);
        assert!(!plan_level(6, 20, false, b, None).unwrap().in_parts());
        assert_eq!(mib(build_memory(6, 21, None).unwrap()), 162);
        let plan = plan_level(6, 21, false, b, None).unwrap();
        assert_eq!((plan.parts.len(), plan.why), (2, Why::Budget));
        let forced = plan_level(4, 10, false, budget(11.0), Some(3)).unwrap();
        assert_eq!((forced.parts.len(), forced.why), (3, Why::Forced));
        assert_eq!(plan_level(4, 3, false, b, Some(9)).unwrap().parts.len(), 2);
        assert_eq!(plan_level(4, 1, false, b, Some(9)).unwrap().parts.len(), 1);
        let cw = plan_level(6, 28, true, budget(1.0), None).unwrap();
        assert!(!cw.in_parts());
    }

    #[test]
    fn budgets_parse_in_gib() {
        assert_eq!(parse_gib("0.5"), Ok(0.5));
        assert!(parse_gib("0").is_err());
        assert!(parse_gib("-1").is_err());
        assert!(parse_gib("NaN").is_err());
        assert!(parse_gib("2e9").is_err());
        assert_eq!(budget(0.5).bytes(), GIB / 2);
        assert_eq!(budget(1.0).resident_limit(), GIB - (192 << 20));
        assert_eq!(budget(32.0).resident_limit(), 30 * GIB);
        assert_eq!(
            Budget::new(Some(11.0), 8).resident_limit(),
            11 * GIB - (704 << 20)
        );
    }

    /// A plan skips the levels present and plans the rest from the top down; a shard is
    /// planned whether its level is present or not, and refused for rules that can cycle.
    #[test]
    fn levels_present_are_not_planned_and_cyclic_shards_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let key = RulesKey::standard(6);
        std::fs::write(dir.path().join(file_name(&key, 1)), b"x").unwrap();
        let b = budget(1.0);
        let plans = plan_levels(dir.path(), &key, &[0, 1, 2, 3], None, false, b, None).unwrap();
        assert_eq!(plans.keys().copied().collect::<Vec<_>>(), [0, 2, 3]);
        assert!(plans.values().all(|p| !p.in_parts() && p.why == Why::Fits));
        let shard = ShardSpec { index: 1, count: 2 };
        let plans = plan_levels(dir.path(), &key, &[1], Some(shard), false, b, None).unwrap();
        assert_eq!(plans[&1].parts[0].spec, shard);
        assert!(matches!(
            plan_levels(dir.path(), &key, &[3], Some(shard), true, b, None),
            Err(BuildError::ShardCyclic)
        ));
        // A level over the budget is refused, naming the budget it needs (or, on a
        // machine too small for any, the memory).
        match plan_levels(dir.path(), &key, &[27, 28], None, false, b, None) {
            Err(BuildError::OverBudget { k, .. }) => assert_eq!(k, 28),
            Err(BuildError::NoMemory { what, .. }) => assert_eq!(what, "level 28"),
            other => panic!("{other:?}"),
        }
    }
}
