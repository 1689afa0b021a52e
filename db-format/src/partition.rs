//! How a level splits into parts that can be built apart: the splits of its seeds
//! between the two rows, their sizes, which shard holds which, and the order of their
//! boards in the level ([`Blocks`]). [`crate::shard_file`] describes the shard files.

use crate::error::DbError;
use crate::ranking::{checked_level_size, next_in_rank_order};

/// Shard `index` of `count` (`0 <= index < count`): which part of a level to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    /// Which part, from 0.
    pub index: u32,
    /// Parts in all.
    pub count: u32,
}

impl ShardSpec {
    /// Parses `I/N` with `0 <= I < N`.
    pub fn parse(s: &str) -> Result<ShardSpec, String> {
        let err = || format!("shard '{s}': expected I/N with 0 <= I < N, e.g. 0/4");
        let (i, n) = s.split_once('/').ok_or_else(err)?;
        let index: u32 = i.trim().parse().map_err(|_| err())?;
        let count: u32 = n.trim().parse().map_err(|_| err())?;
        if index >= count {
            return Err(err());
        }
        Ok(ShardSpec { index, count })
    }

    /// The splits of level `seeds` (`pits` a side) this shard holds, bit `s` for split
    /// `s`: its part of [`partition`]. Empty when `count` exceeds the splits.
    pub fn splits(&self, pits: usize, seeds: u32) -> Result<u64, DbError> {
        Ok(partition(pits, seeds, self.count)?
            .get(self.index as usize)
            .copied()
            .unwrap_or(0))
    }
}

/// The splits of level `seeds`: `seeds / 2 + 1` (at most 64, as `seeds <= 127`).
pub fn split_count(seeds: u32) -> u32 {
    seeds / 2 + 1
}

/// The split of a board of level `seeds` one of whose rows holds `row` seeds.
pub fn split_of(seeds: u32, row: u32) -> u32 {
    row.min(seeds - row)
}

/// [`DbError::TooManySeeds`] past 127 seeds (whose splits would not fit a `u64`'s bits).
fn check_seeds(seeds: u32) -> Result<(), DbError> {
    if seeds > crate::value::MAX_LEVEL_SEEDS {
        return Err(DbError::TooManySeeds {
            seeds,
            max: crate::value::MAX_LEVEL_SEEDS,
        });
    }
    Ok(())
}

/// The boards of split `split` of level `seeds` with `pits` pits a side:
/// `R(s)·R(k - s)` for `s = k - s`, twice that otherwise, where `R(s) = C(s + m - 1,
/// m - 1)` counts the rows of `s` seeds.
pub fn split_size(pits: usize, seeds: u32, split: u32) -> Result<u64, DbError> {
    let cells = 2 * pits;
    let overflow = DbError::SizeOverflow { cells, seeds };
    let rows = |s: u32| checked_level_size(pits, s).ok_or(DbError::SizeOverflow { cells, seeds });
    let (a, b) = (rows(split)?, rows(seeds - split)?);
    let twice = if 2 * split == seeds { 1 } else { 2 };
    u64::try_from(u128::from(a) * u128::from(b) * twice).map_err(|_| overflow)
}

/// The entries of the splits `splits` (bit `s` for split `s`) of level `seeds`.
pub fn splits_size(pits: usize, seeds: u32, splits: u64) -> Result<u64, DbError> {
    check_seeds(seeds)?;
    let mut n: u64 = 0;
    for s in (0..split_count(seeds)).filter(|s| splits >> s & 1 == 1) {
        n = n
            .checked_add(split_size(pits, seeds, s)?)
            .ok_or(DbError::SizeOverflow {
                cells: 2 * pits,
                seeds,
            })?;
    }
    Ok(n)
}

/// What a shard of the splits `splits` holds: the entries of `whole` (all of level
/// `seeds`, `pits` a side, in rank order) whose boards lie in those splits, in rank order.
/// The inverse of [`merge_shards`](crate::shard::merge_shards) for one shard; [`DbError::EntryCountMismatch`] when
/// `whole` is not the level's length.
pub fn split_entries(
    whole: &[i8],
    pits: usize,
    seeds: u32,
    splits: u64,
) -> Result<Vec<i8>, DbError> {
    check_seeds(seeds)?;
    let cells = 2 * pits;
    let expected = crate::ranking::checked_level_size(cells, seeds)
        .ok_or(DbError::SizeOverflow { cells, seeds })?;
    if expected != whole.len() as u64 {
        return Err(DbError::EntryCountMismatch {
            expected,
            actual: whole.len() as u64,
        });
    }
    let mut out = Vec::new();
    let mut at = 0;
    // The blocks cover the level in rank order, so they cut `whole` without a gap.
    for (row, len) in Blocks::new(pits, seeds)? {
        let len = len as usize;
        if splits >> split_of(seeds, row) & 1 == 1 {
            out.extend_from_slice(&whole[at..at + len]);
        }
        at += len;
    }
    Ok(out)
}

/// The splits of each of `min(count, splits)` shards of level `seeds` (bit `s` for
/// split `s`; shards past those hold none): the splits in order of size, largest first
/// (equal sizes by `s`), each to the shard with the fewest entries so far (equal ones:
/// the lowest index). The largest shard is then at most 4/3 of the best any assignment
/// of whole splits can do, and never smaller than the largest split.
pub fn partition(pits: usize, seeds: u32, count: u32) -> Result<Vec<u64>, DbError> {
    check_seeds(seeds)?;
    let n = split_count(seeds);
    let sizes = (0..n)
        .map(|s| split_size(pits, seeds, s))
        .collect::<Result<Vec<u64>, _>>()?;
    let mut order: Vec<u32> = (0..n).collect();
    order.sort_by(|&a, &b| sizes[b as usize].cmp(&sizes[a as usize]).then(a.cmp(&b)));
    let bins = count.min(n) as usize;
    let mut load = vec![0u64; bins];
    let mut masks = vec![0u64; bins];
    for s in order {
        // `min_by_key` keeps the first of equal loads.
        let Some((i, _)) = load.iter().enumerate().min_by_key(|&(_, &l)| l) else {
            break;
        };
        masks[i] |= 1 << s;
        load[i] += sizes[s as usize];
    }
    Ok(masks)
}

/// The level's boards in rank order as blocks of one opponent's row each: the seeds in
/// that row and the block's length (the rows of the other seeds, `C(k - t + m - 1,
/// m - 1)`).
///
/// A board's rank is colexicographic on its stars-and-bars bars, and the bars from the
/// mover's last pit on depend only on the mover's seed count and the opponent's row; so
/// the boards of one opponent's row are consecutive, and the blocks come in the rank
/// order of the `m + 1` cells (mover's seeds, opponent's row).
pub struct Blocks {
    cells: [u8; 9],
    n: usize,
    seeds: u32,
    lens: Vec<u64>,
    done: bool,
}

impl Blocks {
    /// The blocks of level `seeds` with `pits` pits a side.
    pub fn new(pits: usize, seeds: u32) -> Result<Blocks, DbError> {
        if pits == 0 || pits > usize::from(crate::rules::MAX_PITS) {
            return Err(DbError::InvalidRules {
                what: format!("pits = {pits} outside 1..={}", crate::rules::MAX_PITS),
            });
        }
        check_seeds(seeds)?;
        let lens = (0..=seeds)
            .map(|a| {
                checked_level_size(pits, a).ok_or(DbError::SizeOverflow {
                    cells: 2 * pits,
                    seeds,
                })
            })
            .collect::<Result<_, _>>()?;
        let n = pits + 1;
        let mut cells = [0u8; 9];
        cells[n - 1] = seeds as u8;
        Ok(Blocks {
            cells,
            n,
            seeds,
            lens,
            done: false,
        })
    }
}

impl Iterator for Blocks {
    /// (seeds in the opponent's row, boards in the block).
    type Item = (u32, u64);

    fn next(&mut self) -> Option<(u32, u64)> {
        if self.done {
            return None;
        }
        let mover = u32::from(self.cells[0]);
        let item = (self.seeds - mover, self.lens[mover as usize]);
        self.done = !next_in_rank_order(&mut self.cells[..self.n]);
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::Ranker;

    /// The blocks are the runs of boards with one opponent's row, in rank order, and
    /// cover the level.
    #[test]
    fn blocks_are_the_opponent_rows_in_rank_order() {
        for pits in 1..=4 {
            for seeds in 0..=9 {
                let cells = 2 * pits;
                let r = Ranker::new(cells, seeds).unwrap();
                let mut c = vec![0u8; cells];
                let mut rank = 0;
                for (row, len) in Blocks::new(pits, seeds).unwrap() {
                    r.unrank(rank, &mut c);
                    let opp = c[pits..].to_vec();
                    for i in 0..len {
                        r.unrank(rank + i, &mut c);
                        assert_eq!(c[pits..], opp[..], "m={pits} k={seeds} rank {}", rank + i);
                    }
                    assert_eq!(opp.iter().map(|&x| u32::from(x)).sum::<u32>(), row);
                    rank += len;
                    if rank < r.count() {
                        r.unrank(rank, &mut c);
                        assert_ne!(c[pits..], opp[..]);
                    }
                }
                assert_eq!(rank, r.count(), "m={pits} k={seeds}");
            }
        }
    }

    /// The entries before `rank` in level `seeds` (`pits` a side) that lie in the splits
    /// `mask`, from the blocks (`None` when `rank` is past the level): where the board of
    /// `rank` lies in a shard of those splits, if it is in one.
    fn offset_in(pits: usize, seeds: u32, mask: u64, rank: u64) -> Option<u64> {
        let (mut at, mut kept) = (0u64, 0u64);
        for (row, len) in Blocks::new(pits, seeds).unwrap() {
            let in_mask = mask >> split_of(seeds, row) & 1 == 1;
            if rank < at + len {
                return Some(kept + if in_mask { rank - at } else { 0 });
            }
            at += len;
            if in_mask {
                kept += len;
            }
        }
        None
    }

    /// Level 32 of 6 pits, past `u32::MAX` boards: the blocks around ranks `2^31` and
    /// `2^32` hold the boards of their opponent's row (unranked), and the offsets of a
    /// board in the shards of two complementary sets of splits add up to its rank, with
    /// offsets past `2^32` in the larger set (every split but 0).
    #[test]
    fn blocks_and_shard_offsets_past_32_bits() {
        let (pits, seeds) = (6, 32);
        let r = Ranker::new(12, seeds).unwrap();
        let all = (1u64 << split_count(seeds)) - 1;
        let targets: Vec<u64> = [1u64 << 31, 1 << 32]
            .iter()
            .flat_map(|&x| [x - 1, x, x + 1])
            .collect();
        let mut c = [0u8; 12];
        let mut at = 0u64;
        let mut seen = 0;
        for (row, len) in Blocks::new(pits, seeds).unwrap() {
            for &t in targets.iter().filter(|&&t| at <= t && t < at + len) {
                seen += 1;
                r.unrank(t, &mut c);
                let opp = c[pits..].to_vec();
                assert_eq!(opp.iter().map(|&x| u32::from(x)).sum::<u32>(), row);
                r.unrank(at, &mut c);
                assert_eq!(c[pits..], opp[..], "block start of rank {t}");
                r.unrank(at + len - 1, &mut c);
                assert_eq!(c[pits..], opp[..], "block end of rank {t}");
            }
            at += len;
        }
        assert_eq!((seen, at), (targets.len(), r.count()));
        let big = all & !1;
        let big_len = splits_size(pits, seeds, big).unwrap();
        assert!(big_len > 1 << 32, "{big_len}");
        let mut past = 0;
        for rank in targets
            .iter()
            .copied()
            .chain([big_len - 1, big_len, r.count() - 1])
        {
            let a = offset_in(pits, seeds, big, rank).unwrap();
            let b = offset_in(pits, seeds, 1, rank).unwrap();
            assert_eq!(a + b, rank, "rank {rank}");
            r.unrank(rank, &mut c);
            let mover: u32 = c[..pits].iter().map(|&x| u32::from(x)).sum();
            let (mine, len) = if split_of(seeds, mover) == 0 {
                (b, splits_size(pits, seeds, 1).unwrap())
            } else {
                (a, big_len)
            };
            assert!(mine < len, "rank {rank}: offset {mine} of {len}");
            past += usize::from(a > 1 << 32);
        }
        assert!(past >= 2, "no offset past 2^32");
        assert_eq!(offset_in(pits, seeds, all, r.count()), None);
        // The two shards of 2 split the level, each under 2^32 entries.
        let parts = partition(pits, seeds, 2).unwrap();
        let sizes: Vec<u64> = parts
            .iter()
            .map(|&m| splits_size(pits, seeds, m).unwrap())
            .collect();
        assert_eq!(sizes.iter().sum::<u64>(), r.count());
        assert!(sizes.iter().all(|&n| n > 1 << 31), "{sizes:?}");
    }

    /// All splits take the whole level; each shard's splits take as many entries as they
    /// hold; a slice of another length is refused.
    #[test]
    fn split_entries_are_the_splits_boards() {
        let (pits, seeds) = (3, 6);
        let whole: Vec<i8> = (0..crate::ranking::level_size(6, 6))
            .map(|i| (i % 100) as i8)
            .collect();
        let all = (1u64 << split_count(seeds)) - 1;
        assert_eq!(split_entries(&whole, pits, seeds, all).unwrap(), whole);
        for mask in partition(pits, seeds, 3).unwrap() {
            let got = split_entries(&whole, pits, seeds, mask).unwrap();
            assert_eq!(got.len() as u64, splits_size(pits, seeds, mask).unwrap());
        }
        assert!(matches!(
            split_entries(&whole[1..], pits, seeds, all),
            Err(DbError::EntryCountMismatch { .. })
        ));
    }

    /// The shards' splits are disjoint and cover the level, whatever the count; the
    /// largest shard is never below the largest split nor above it plus the average.
    #[test]
    fn partitions_cover_every_split_once() {
        for (pits, seeds) in [(1, 0), (2, 5), (4, 8), (6, 20), (6, 34), (8, 40)] {
            let total = crate::ranking::level_size(2 * pits, seeds);
            let sizes: Vec<u64> = (0..split_count(seeds))
                .map(|s| split_size(pits, seeds, s).unwrap())
                .collect();
            assert_eq!(sizes.iter().sum::<u64>(), total);
            let largest = *sizes.iter().max().unwrap();
            for count in [1, 2, 3, 4, 7, 8, 64, 1000] {
                let masks = partition(pits, seeds, count).unwrap();
                assert_eq!(masks.len(), count.min(split_count(seeds)) as usize);
                let all = masks.iter().fold(0u64, |acc, &m| {
                    assert_eq!(acc & m, 0);
                    acc | m
                });
                assert_eq!(all.count_ones(), split_count(seeds));
                let loads: Vec<u64> = masks
                    .iter()
                    .map(|&m| splits_size(pits, seeds, m).unwrap())
                    .collect();
                assert_eq!(loads.iter().sum::<u64>(), total);
                let max = *loads.iter().max().unwrap();
                assert!(max >= largest && max <= largest + total / u64::from(count));
                for index in 0..count {
                    let spec = ShardSpec { index, count };
                    let want = masks.get(index as usize).copied().unwrap_or(0);
                    assert_eq!(spec.splits(pits, seeds).unwrap(), want);
                }
            }
        }
        assert!(partition(6, 128, 2).is_err());
    }
}
