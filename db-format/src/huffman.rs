//! Length-limited canonical Huffman codes: the code of a compact level file (format
//! version 2, [`crate::Compact`]).
//!
//! Why length-limited: a decoder that reads [`MAX_CODE_LEN`] bits and looks them up in one
//! table of `2^MAX_CODE_LEN` entries decodes any symbol in one step, which is what keeps a
//! random probe cheap. Why canonical: the code is then fixed by its code lengths alone,
//! one byte a symbol in the file, and any reader rebuilds the same codes from them.
//!
//! The lengths come from package-merge (Larmore and Hirschberg 1990), which gives the
//! lengths of least total cost among all prefix codes with no code longer than the limit;
//! ties are broken by symbol number, so the same counts always give the same lengths.
//!
//! Canonical codes, MSB first (the order in which they are written): take the symbols
//! used by increasing (length, symbol); the first gets the code of all zeros, each next
//! one the previous code plus one, shifted left by the increase in length. For lengths
//! `a:2, b:1, c:3, d:3` that is `b = 0`, `a = 10`, `c = 110`, `d = 111`.

/// Longest code: a decoder looks up this many bits at once.
pub const MAX_CODE_LEN: u32 = 12;

/// Entries of a one-step decoding table: one for each window of [`MAX_CODE_LEN`] bits.
pub const TABLE_LEN: usize = 1 << MAX_CODE_LEN;

/// Code lengths for symbols that occur `counts[s]` times (`0` for a symbol that does not
/// occur), none longer than `max_len`, of least total length `sum(counts[s] * len[s])`.
///
/// A single symbol in use gets length 1 (code `0`): every code has at least one bit, so
/// the bits of `n` entries are at least `n`, a bound a reader checks. `None` when no
/// symbol occurs or when more symbols occur than `2^max_len` codes can tell apart.
pub fn code_lengths(counts: &[u64], max_len: u32) -> Option<Vec<u8>> {
    let mut leaves: Vec<(u64, usize)> = counts
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c > 0)
        .map(|(s, &c)| (c, s))
        .collect();
    let used = leaves.len();
    if used == 0 || max_len == 0 || max_len > 32 || used as u64 > 1u64 << max_len {
        return None;
    }
    let mut lengths = vec![0u8; counts.len()];
    if used == 1 {
        lengths[leaves[0].1] = 1;
        return Some(lengths);
    }
    // Sorted by (count, symbol): the order of the leaves in every list.
    leaves.sort_unstable();
    // Package-merge: list `d` (from `max_len - 1` down to 0) is the leaves merged with
    // the packages (pairs, in order) of list `d + 1`; the first `2 (used - 1)` items of
    // the last list are the solution, and a symbol's length is the number of times its
    // leaf occurs in them.
    let mut lists: Vec<Vec<Item>> = Vec::with_capacity(max_len as usize);
    lists.push(
        leaves
            .iter()
            .map(|&(w, s)| Item {
                weight: w,
                kind: Kind::Leaf(s),
            })
            .collect(),
    );
    for _ in 1..max_len {
        let prev = lists.last().map(Vec::as_slice).unwrap_or(&[]);
        let packages = prev.chunks_exact(2).map(|pair| Item {
            weight: pair[0].weight + pair[1].weight,
            kind: Kind::Package,
        });
        let mut merged = Vec::with_capacity(leaves.len() + prev.len() / 2);
        let mut packages = packages.peekable();
        let mut leaf = leaves.iter().peekable();
        loop {
            // On equal weights the leaf first: a deterministic order.
            let take_leaf = match (leaf.peek(), packages.peek()) {
                (Some(&&(w, _)), Some(p)) => w <= p.weight,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if take_leaf {
                if let Some(&(w, s)) = leaf.next() {
                    merged.push(Item {
                        weight: w,
                        kind: Kind::Leaf(s),
                    });
                }
            } else if let Some(p) = packages.next() {
                merged.push(p);
            }
        }
        lists.push(merged);
    }
    // Count the leaves under the first 2 (used - 1) items of the last list, going down
    // the lists: `take[d]` items of list `d` are selected, their packages select the
    // first items of list `d + 1` (packages are formed from consecutive pairs, in order,
    // and the selected packages of a list are its first ones).
    let mut take = 2 * (used - 1);
    for list in lists.iter().rev() {
        let mut packages = 0;
        for item in list.iter().take(take) {
            match item.kind {
                Kind::Leaf(s) => lengths[s] += 1,
                Kind::Package => packages += 1,
            }
        }
        take = 2 * packages;
    }
    Some(lengths)
}

/// An item of a package-merge list.
struct Item {
    weight: u64,
    kind: Kind,
}

/// A leaf (a symbol), or a package of two consecutive items of the list before.
enum Kind {
    Leaf(usize),
    Package,
}

/// Why a list of code lengths is not a code a reader accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodeError {
    /// A length above [`MAX_CODE_LEN`].
    TooLong {
        /// The symbol.
        symbol: usize,
        /// Its length.
        len: u8,
    },
    /// No symbol has a code.
    Empty,
    /// The only symbol in use has a length other than 1.
    SoleSymbolLength(u8),
    /// The lengths do not make a complete prefix code: the sum of `2^-len` is not 1
    /// (above 1: no prefix code has them; below: some bit strings decode to nothing).
    NotComplete {
        /// The sum of `2^(MAX_CODE_LEN - len)`, which must be `2^MAX_CODE_LEN`.
        kraft: u64,
    },
}

impl std::fmt::Display for CodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CodeError::TooLong { symbol, len } => write!(
                f,
                "code length {len} of symbol {symbol} is above {MAX_CODE_LEN}"
            ),
            CodeError::Empty => write!(f, "no symbol has a code"),
            CodeError::SoleSymbolLength(len) => {
                write!(f, "the only symbol used has code length {len}, not 1")
            }
            CodeError::NotComplete { kraft } => write!(
                f,
                "code lengths are not a complete prefix code (Kraft sum {kraft}/{TABLE_LEN})"
            ),
        }
    }
}

/// Checks that `lengths` (0: symbol not used) are those of a code this format allows:
/// every length at most [`MAX_CODE_LEN`], and either one symbol used, of length 1, or a
/// complete prefix code (Kraft sum exactly 1).
pub fn check_lengths(lengths: &[u8]) -> Result<(), CodeError> {
    let mut used = 0usize;
    let mut kraft: u64 = 0;
    let mut sole = 0u8;
    for (symbol, &len) in lengths.iter().enumerate() {
        if u32::from(len) > MAX_CODE_LEN {
            return Err(CodeError::TooLong { symbol, len });
        }
        if len > 0 {
            used += 1;
            sole = len;
            kraft += 1 << (MAX_CODE_LEN - u32::from(len));
        }
    }
    match used {
        0 => Err(CodeError::Empty),
        1 if sole == 1 => Ok(()),
        1 => Err(CodeError::SoleSymbolLength(sole)),
        _ if kraft == TABLE_LEN as u64 => Ok(()),
        _ => Err(CodeError::NotComplete { kraft }),
    }
}

/// The canonical code of each symbol (module docs), `(code, length)`, `(0, 0)` for a
/// symbol not used. `lengths` must pass [`check_lengths`].
pub fn canonical_codes(lengths: &[u8]) -> Vec<(u32, u8)> {
    let mut order: Vec<usize> = (0..lengths.len()).filter(|&s| lengths[s] > 0).collect();
    order.sort_by_key(|&s| (lengths[s], s));
    let mut codes = vec![(0u32, 0u8); lengths.len()];
    let mut code: u32 = 0;
    let mut prev: u8 = 0;
    for (i, &s) in order.iter().enumerate() {
        let len = lengths[s];
        if i > 0 {
            code += 1;
        }
        code <<= len - prev;
        prev = len;
        codes[s] = (code, len);
    }
    codes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Total cost of a code.
    fn cost(counts: &[u64], lengths: &[u8]) -> u64 {
        counts
            .iter()
            .zip(lengths)
            .map(|(&c, &l)| c * u64::from(l))
            .sum()
    }

    /// The least cost over all length assignments with lengths `1..=max` that satisfy
    /// Kraft, by exhaustive search (small alphabets only).
    fn brute_force(counts: &[u64], max: u8) -> u64 {
        fn go(counts: &[u64], max: u8, i: usize, kraft: f64, acc: u64, best: &mut u64) {
            if kraft > 1.0 + 1e-12 || acc >= *best {
                return;
            }
            if i == counts.len() {
                *best = acc;
                return;
            }
            if counts[i] == 0 {
                return go(counts, max, i + 1, kraft, acc, best);
            }
            for l in 1..=max {
                let k = kraft + 0.5f64.powi(i32::from(l));
                go(counts, max, i + 1, k, acc + counts[i] * u64::from(l), best);
            }
        }
        let mut best = u64::MAX;
        go(counts, max, 0, 0.0, 0, &mut best);
        best
    }

    #[test]
    fn package_merge_is_optimal_and_within_the_limit() {
        let mut seed = 0x1234_5678_9abc_def1u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..300 {
            let n = 2 + (next() % 6) as usize;
            let max = 2 + (next() % 4) as u8;
            if (n as u64) > 1 << max {
                continue;
            }
            let counts: Vec<u64> = (0..n)
                .map(|_| match next() % 4 {
                    0 => 0,
                    1 => 1 + next() % 3,
                    _ => 1 + next() % 1000,
                })
                .collect();
            if counts.iter().filter(|&&c| c > 0).count() < 2 {
                continue;
            }
            let lengths = code_lengths(&counts, u32::from(max)).unwrap();
            assert!(lengths.iter().all(|&l| l <= max), "round {round}");
            assert!(
                lengths
                    .iter()
                    .zip(&counts)
                    .all(|(&l, &c)| (l == 0) == (c == 0)),
                "{counts:?} {lengths:?}"
            );
            // A complete code: the Kraft sum at max bits is exactly 2^max.
            let kraft: u64 = lengths
                .iter()
                .filter(|&&l| l > 0)
                .map(|&l| 1u64 << (max - l))
                .sum();
            assert_eq!(kraft, 1 << max, "{counts:?} {lengths:?}");
            assert_eq!(
                cost(&counts, &lengths),
                brute_force(&counts, max),
                "{counts:?} max {max}: {lengths:?}"
            );
        }
    }

    #[test]
    fn skewed_counts_are_limited_to_twelve_bits() {
        // Fibonacci counts would need codes of up to 39 bits unlimited.
        let mut counts = vec![1u64, 1];
        while counts.len() < 40 {
            let n = counts.len();
            counts.push(counts[n - 1] + counts[n - 2]);
        }
        let lengths = code_lengths(&counts, MAX_CODE_LEN).unwrap();
        assert_eq!(lengths.iter().copied().max(), Some(12));
        check_lengths(&lengths).unwrap();
        // Where the limit does not bind, the optimum for Fibonacci weights: the chain
        // 11, 11, 10, ..., 2, 1.
        let chain = code_lengths(&counts[..12], MAX_CODE_LEN).unwrap();
        assert_eq!(chain, vec![11, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    }

    #[test]
    fn lengths_are_deterministic_on_ties() {
        let counts = [5u64, 5, 5, 5, 5, 0, 5];
        let a = code_lengths(&counts, 12).unwrap();
        assert_eq!(a, vec![3, 3, 3, 3, 2, 0, 2]);
        assert_eq!(code_lengths(&counts, 12).unwrap(), a);
    }

    #[test]
    fn one_or_no_symbol() {
        assert_eq!(code_lengths(&[0, 7, 0], 12), Some(vec![0, 1, 0]));
        assert_eq!(code_lengths(&[0, 0], 12), None);
        assert_eq!(code_lengths(&[1, 1, 1], 1), None);
        check_lengths(&[0, 1, 0]).unwrap();
        assert_eq!(check_lengths(&[0, 2]), Err(CodeError::SoleSymbolLength(2)));
        assert_eq!(check_lengths(&[0, 0]), Err(CodeError::Empty));
    }

    #[test]
    fn bad_lengths_are_refused() {
        assert_eq!(
            check_lengths(&[1, 13]),
            Err(CodeError::TooLong { symbol: 1, len: 13 })
        );
        assert_eq!(
            check_lengths(&[1, 2]),
            Err(CodeError::NotComplete { kraft: 3072 })
        );
        assert_eq!(
            check_lengths(&[1, 1, 1]),
            Err(CodeError::NotComplete { kraft: 6144 })
        );
        check_lengths(&[1, 2, 2]).unwrap();
    }

    #[test]
    fn canonical_codes_of_the_docs_example() {
        // a:2, b:1, c:3, d:3 -> b = 0, a = 10, c = 110, d = 111.
        let codes = canonical_codes(&[2, 1, 3, 3, 0]);
        assert_eq!(
            codes,
            vec![(0b10, 2), (0b0, 1), (0b110, 3), (0b111, 3), (0, 0)]
        );
    }
}
