//! The packed board: the pits only, seen from the side to move.
//!
//! The search and the databases never look at the stores: seeds that reach a store never
//! come back, so the value of the future (the side to move's future store gain minus the
//! opponent's) depends on the pits alone. Normalising the side to move halves the
//! positions: South to move on `x` is North to move on `x.flip()`.
//!
//! # Encoding
//!
//! Sixteen bytes, one a pit, read as a little-endian `u128` for hashing and comparing:
//! byte `i < m` is the mover's pit `i + 1`, byte `m + i` the opponent's pit `i + 1`, and the
//! bytes from `2m` on are zero. Sixteen bytes hold 8 pits a side, so raising
//! [`crate::rules::MAX_PITS`] to 8 changes nothing here.
//!
//! ```
//! use solver::board::Board;
//! // Kalah(2,3), mover's pits 3,1 and the opponent's 0,2:
//! let b = Board::from_cells(2, &[3, 1, 0, 2]);
//! assert_eq!(b.key(), 0x02_00_01_03);
//! // The opponent's view: its own pits first.
//! assert_eq!(b.flip(2).key(), 0x01_03_02_00);
//! ```

use crate::rules::MAX_PITS;

/// Bytes in a packed board: room for 8 pits a side.
pub const CELLS: usize = 16;

const _: () = assert!(2 * MAX_PITS <= CELLS, "MAX_PITS must fit the 16-byte board");

/// The pits of a position from the side to move's point of view (see the module docs).
///
/// Invariant: cells from `2m` on are zero.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[repr(C, align(16))]
pub struct Board {
    cells: [u8; CELLS],
}

/// The bit offset of the opponent's row, `8 * pits`. Rules never exceed [`MAX_PITS`] pits
/// a side, so the `min` changes nothing but tells the compiler that the shift stays below
/// 64: shifts of the `u128` key by it then need no branchless handling of larger ones.
#[inline]
fn row_shift(pits: usize) -> u32 {
    8 * pits.min(MAX_PITS) as u32
}

/// The low `pits` bytes of a word (`pits <= 8`).
#[inline]
fn row_mask(pits: usize) -> u64 {
    if pits >= 8 {
        u64::MAX
    } else {
        (1 << (8 * pits)) - 1
    }
}

/// The sum of the eight bytes of `x`, without a loop: bytes added in pairs into 16-bit
/// lanes (each at most 510), then the four lanes by one multiplication, whose top lane
/// collects their sum (at most 2040, so no lane carries into the next). Exact for any
/// bytes; rows of a board and the endgame build's packed rows use it alike.
#[inline]
pub(crate) fn byte_sum(x: u64) -> u32 {
    const LOW: u64 = 0x00ff_00ff_00ff_00ff;
    let pairs = (x & LOW) + ((x >> 8) & LOW);
    (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as u32
}

impl Board {
    /// No seeds anywhere.
    pub const EMPTY: Board = Board { cells: [0; CELLS] };

    /// A board from `2m` counts, mover's pits first.
    pub fn from_cells(pits: usize, cells: &[u8]) -> Board {
        debug_assert_eq!(cells.len(), 2 * pits);
        let mut b = Board::default();
        b.cells[..2 * pits].copy_from_slice(cells);
        b
    }

    /// The start position of Kalah(m, n).
    pub fn start(pits: usize, seeds: u8) -> Board {
        let mut b = Board::default();
        b.cells[..2 * pits].fill(seeds);
        b
    }

    /// The board from its packed key.
    pub fn from_key(key: u128) -> Board {
        Board {
            cells: key.to_le_bytes(),
        }
    }

    /// The packed key (see the module docs).
    #[inline]
    pub fn key(&self) -> u128 {
        u128::from_le_bytes(self.cells)
    }

    /// All sixteen cells.
    #[inline]
    pub fn cells(&self) -> &[u8; CELLS] {
        &self.cells
    }

    #[inline]
    pub fn cells_mut(&mut self) -> &mut [u8; CELLS] {
        &mut self.cells
    }

    /// The mover's pits 1..m.
    #[inline]
    pub fn own(&self, pits: usize) -> &[u8] {
        &self.cells[..pits]
    }

    /// The opponent's pits 1..m.
    #[inline]
    pub fn opp(&self, pits: usize) -> &[u8] {
        &self.cells[pits..2 * pits]
    }

    /// Seeds in the mover's row.
    #[inline]
    pub fn own_seeds(&self, pits: usize) -> u32 {
        byte_sum(self.key() as u64 & row_mask(pits))
    }

    /// Seeds in the opponent's row.
    #[inline]
    pub fn opp_seeds(&self, pits: usize) -> u32 {
        byte_sum((self.key() >> row_shift(pits)) as u64 & row_mask(pits))
    }

    /// Seeds in each row, the mover's first: what the end rule and a sowing's bookkeeping
    /// look at.
    #[inline]
    pub fn row_seeds(&self, pits: usize) -> [u32; 2] {
        [self.own_seeds(pits), self.opp_seeds(pits)]
    }

    /// Seeds on the board.
    #[inline]
    pub fn seeds(&self) -> u32 {
        let k = self.key();
        byte_sum(k as u64) + byte_sum((k >> 64) as u64)
    }

    /// The same pits seen from the other side: the two rows swap.
    #[inline]
    pub fn flip(&self, pits: usize) -> Board {
        let x = self.key();
        let shift = row_shift(pits);
        let low = x & ((1u128 << shift) - 1);
        Board::from_key((x >> shift) | (low << shift))
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let last = self
            .cells
            .iter()
            .rposition(|&c| c != 0)
            .map_or(0, |i| i + 1);
        write!(f, "Board{:?}", &self.cells[..last])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_sums_without_loops_equal_the_loops() {
        // Full bytes included: the sums hold for any cells, not only legal positions.
        let mut x = 0x9E37_79B9_7F4A_7C15_u64;
        for round in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let pits = 1 + round % MAX_PITS;
            let mut cells: Vec<u8> = (0..2 * pits)
                .map(|i| (x.rotate_left(8 * i as u32) & 0xff) as u8)
                .collect();
            if round % 3 == 0 {
                cells[0] = 255;
            }
            let b = Board::from_cells(pits, &cells);
            let sum = |c: &[u8]| c.iter().map(|&v| u32::from(v)).sum::<u32>();
            assert_eq!(b.own_seeds(pits), sum(&cells[..pits]));
            assert_eq!(b.opp_seeds(pits), sum(&cells[pits..]));
            assert_eq!(b.seeds(), sum(&cells));
        }
    }

    #[test]
    fn flip_swaps_rows_and_is_an_involution() {
        for pits in 1..=MAX_PITS {
            let cells: Vec<u8> = (1..=2 * pits as u8).collect();
            let b = Board::from_cells(pits, &cells);
            let f = b.flip(pits);
            assert_eq!(f.own(pits), b.opp(pits));
            assert_eq!(f.opp(pits), b.own(pits));
            assert_eq!(f.flip(pits), b);
            assert_eq!(f.seeds(), b.seeds());
        }
    }

    #[test]
    fn key_round_trips() {
        let b = Board::from_cells(6, &[4, 0, 255, 1, 2, 3, 9, 8, 7, 6, 5, 4]);
        assert_eq!(Board::from_key(b.key()), b);
        assert_eq!(b.own_seeds(6), 265);
        assert_eq!(b.opp_seeds(6), 39);
    }
}
