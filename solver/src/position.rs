//! A whole position as players see it: both rows, both stores and the side to move.
//!
//! The position string is `A-pits/A-store/B-pits/B-store/side`, pits comma-separated left
//! to right as the players number them (A1..Am, B1..Bm), side `A` (South) or `B` (North):
//!
//! ```
//! use solver::position::{Position, Side};
//! let p: Position = "4,4,4,4,4,4/0/4,4,4,4,4,4/0/A".parse().unwrap();
//! assert_eq!(p.pits(), 6);
//! assert_eq!(p.to_move, Side::South);
//! assert_eq!(p.to_string(), "4,4,4,4,4,4/0/4,4,4,4,4,4/0/A");
//! ```

use std::fmt;
use std::str::FromStr;

use crate::board::Board;
use crate::game::{Game, Next, Step};
use crate::rules::{Rules, MAX_PITS};

/// The most seeds the packed board holds in play (one byte a pit, and one sowing's store
/// gain fits a byte).
pub const MAX_BOARD_SEEDS: u32 = 255;

/// The most seeds the stores and the board may hold together: stores never overflow
/// (play only moves seeds from the board into them) and [`Position::store_margin`] fits
/// an `i32`.
pub const MAX_STORE: u32 = i32::MAX as u32;

/// A player. South owns row A and moves first; North owns row B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    South,
    North,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// The row letter of the notation: `A` for South, `B` for North.
    pub fn letter(self) -> char {
        match self {
            Side::South => 'A',
            Side::North => 'B',
        }
    }

    /// `+1` for South, `-1` for North: turns a value for this side into South's margin.
    pub fn sign(self) -> i32 {
        match self {
            Side::South => 1,
            Side::North => -1,
        }
    }
}

/// Both rows, both stores and the side to move.
///
/// Invariant: `1 <= pits <= MAX_PITS`, pits beyond `pits` are zero, and at most
/// [`MAX_BOARD_SEEDS`] seeds are on the board, and at most [`MAX_STORE`] on the board and
/// in the stores together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pits: usize,
    /// A1..Am then B1..Bm.
    rows: [u8; 2 * MAX_PITS],
    /// South's store, North's store.
    pub stores: [u32; 2],
    pub to_move: Side,
}

/// Why a position string was refused. Each names the part at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("position '{0}': expected 5 parts 'A-pits/A-store/B-pits/B-store/side', found {1}")]
    Parts(String, usize),
    #[error(
        "position: {part}: '{text}' is not a seed count (a whole number from 0 to {})",
        u32::MAX
    )]
    Count { part: &'static str, text: String },
    #[error("position: {part}: {count} pits, expected {expected}")]
    PitCount {
        part: &'static str,
        count: usize,
        expected: String,
    },
    #[error("position: rows A and B have {a} and {b} pits; they must match")]
    RowMismatch { a: usize, b: usize },
    #[error("position: side '{0}' must be A or B")]
    Side(String),
    #[error("position: {0} seeds on the board, more than the {max} the encoding holds", max = MAX_BOARD_SEEDS)]
    TooManySeeds(u64),
    #[error("position: {0} seeds in the stores and on the board, more than the {max} a store can count", max = MAX_STORE)]
    TooManyInStores(u64),
    #[error("position has {found} pits a side but the rules say {expected}")]
    WrongSize { found: usize, expected: usize },
}

impl Position {
    /// The start position of the rules' board, South to move.
    pub fn start(rules: &Rules) -> Position {
        let mut rows = [0u8; 2 * MAX_PITS];
        rows[..2 * rules.pits()].fill(rules.seeds());
        Position {
            pits: rules.pits(),
            rows,
            stores: [0, 0],
            to_move: Side::South,
        }
    }

    /// Pits a side.
    pub fn pits(&self) -> usize {
        self.pits
    }

    /// Row A (South's pits A1..Am).
    pub fn row_a(&self) -> &[u8] {
        &self.rows[..self.pits]
    }

    /// Row B (North's pits B1..Bm).
    pub fn row_b(&self) -> &[u8] {
        &self.rows[self.pits..2 * self.pits]
    }

    /// The row of a side.
    pub fn row(&self, side: Side) -> &[u8] {
        match side {
            Side::South => self.row_a(),
            Side::North => self.row_b(),
        }
    }

    /// Seeds on the board.
    pub fn board_seeds(&self) -> u32 {
        self.rows.iter().map(|&c| c as u32).sum()
    }

    /// Check that the position fits the rules' board size.
    pub fn check_size(&self, rules: &Rules) -> Result<(), PositionError> {
        if self.pits != rules.pits() {
            return Err(PositionError::WrongSize {
                found: self.pits,
                expected: rules.pits(),
            });
        }
        Ok(())
    }

    /// The packed board from the side to move's point of view.
    pub fn board(&self) -> Board {
        let mut cells = [0u8; 2 * MAX_PITS];
        let m = self.pits;
        let (first, second) = match self.to_move {
            Side::South => (self.row_a(), self.row_b()),
            Side::North => (self.row_b(), self.row_a()),
        };
        cells[..m].copy_from_slice(first);
        cells[m..2 * m].copy_from_slice(second);
        Board::from_cells(m, &cells[..2 * m])
    }

    /// The position with `board` seen from `to_move`, and these stores.
    pub fn from_board(pits: usize, board: &Board, to_move: Side, stores: [u32; 2]) -> Position {
        let mut rows = [0u8; 2 * MAX_PITS];
        let (own, opp) = (board.own(pits), board.opp(pits));
        let (a, b) = match to_move {
            Side::South => (own, opp),
            Side::North => (opp, own),
        };
        rows[..pits].copy_from_slice(a);
        rows[pits..2 * pits].copy_from_slice(b);
        Position {
            pits,
            rows,
            stores,
            to_move,
        }
    }

    /// Whether the game is over in this position.
    pub fn is_over(&self, game: &Game) -> bool {
        game.terminal_value(&self.board()).is_some()
    }

    /// South's store minus North's: the margin so far.
    pub fn store_margin(&self) -> i32 {
        self.stores[0] as i32 - self.stores[1] as i32
    }

    /// Play the side to move's pit `pit` (0-based); the pit must hold seeds and the game
    /// must not be over. Returns the position after it, the remaining seeds swept when
    /// the move ended the game.
    pub fn play(&self, game: &Game, pit: usize) -> (Position, Step) {
        let step = game.play(&self.board(), pit);
        let mover = self.to_move;
        let mut stores = self.stores;
        let (own, opp) = match mover {
            Side::South => (0, 1),
            Side::North => (1, 0),
        };
        stores[own] += step.own_gain;
        stores[opp] += step.opp_gain;
        let next = match step.next {
            Next::Same => mover,
            Next::Other | Next::Over => mover.other(),
        };
        (
            Position::from_board(self.pits, &step.board, next, stores),
            step,
        )
    }
}

fn parse_row(part: &'static str, text: &str) -> Result<Vec<u32>, PositionError> {
    text.split(',')
        .map(|t| {
            let t = t.trim();
            t.parse::<u32>().map_err(|_| PositionError::Count {
                part,
                text: t.to_string(),
            })
        })
        .collect()
}

fn parse_count(part: &'static str, text: &str) -> Result<u32, PositionError> {
    let t = text.trim();
    t.parse::<u32>().map_err(|_| PositionError::Count {
        part,
        text: t.to_string(),
    })
}

impl FromStr for Position {
    type Err = PositionError;

    fn from_str(s: &str) -> Result<Position, PositionError> {
        let parts: Vec<&str> = s.trim().split('/').collect();
        if parts.len() != 5 {
            return Err(PositionError::Parts(s.to_string(), parts.len()));
        }
        let a = parse_row("row A", parts[0])?;
        let sa = parse_count("store A", parts[1])?;
        let b = parse_row("row B", parts[2])?;
        let sb = parse_count("store B", parts[3])?;
        let to_move = match parts[4].trim() {
            "A" | "a" => Side::South,
            "B" | "b" => Side::North,
            other => return Err(PositionError::Side(other.to_string())),
        };
        if a.is_empty() || a.len() > MAX_PITS {
            return Err(PositionError::PitCount {
                part: "row A",
                count: a.len(),
                expected: format!("1 to {MAX_PITS}"),
            });
        }
        if a.len() != b.len() {
            return Err(PositionError::RowMismatch {
                a: a.len(),
                b: b.len(),
            });
        }
        let total: u64 = a.iter().chain(&b).map(|&c| c as u64).sum();
        if total > MAX_BOARD_SEEDS as u64 {
            return Err(PositionError::TooManySeeds(total));
        }
        let all = total + sa as u64 + sb as u64;
        if all > MAX_STORE as u64 {
            return Err(PositionError::TooManyInStores(all));
        }
        let pits = a.len();
        let mut rows = [0u8; 2 * MAX_PITS];
        for (i, &c) in a.iter().chain(&b).enumerate() {
            // Invariant: each count is at most the total, checked above to fit a byte.
            rows[i] = c as u8;
        }
        Ok(Position {
            pits,
            rows,
            stores: [sa, sb],
            to_move,
        })
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |r: &[u8]| {
            r.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        write!(
            f,
            "{}/{}/{}/{}/{}",
            join(self.row_a()),
            self.stores[0],
            join(self.row_b()),
            self.stores[1],
            self.to_move.letter()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for s in [
            "4,4,4,4,4,4/0/4,4,4,4,4,4/0/A",
            "0,1,2/10/3,0,0/7/B",
            "9/0/0/3/A",
        ] {
            let p: Position = s.parse().unwrap();
            assert_eq!(p.to_string(), s);
        }
    }

    #[test]
    fn errors_say_what_and_where() {
        let e = |s: &str| s.parse::<Position>().unwrap_err().to_string();
        assert!(e("4,4/0/4,4/0").contains("5 parts"));
        assert!(e("4,x/0/4,4/0/A").contains("row A"));
        assert!(e("4,-1/0/4,4/0/A").contains("'-1'"));
        assert!(e("4,4/0/4,4/z/A").contains("store B"));
        assert!(e("4,4/0/4,4,4/0/A").contains("must match"));
        assert!(e("4,4/0/4,4/0/C").contains("side 'C'"));
        assert!(e("1,1,1,1,1,1,1/0/1,1,1,1,1,1,1/0/A").contains("1 to 6"));
        assert!(e("200,100/0/0,0/0/A").contains("300 seeds"));
        assert!(e("4,,4/0/4,4,4/0/A").contains("row A"));
        // Stores that would overflow when a move adds to them.
        assert!(e("4/2147483647/4/0/A").contains("stores"));
        assert!("4/2147483639/4/0/A".parse::<Position>().is_ok());
    }

    #[test]
    fn board_is_seen_from_the_mover() {
        let p: Position = "1,2,3/0/4,5,6/0/B".parse().unwrap();
        assert_eq!(p.board(), Board::from_cells(3, &[4, 5, 6, 1, 2, 3]));
        let q = Position::from_board(3, &p.board(), Side::North, [0, 0]);
        assert_eq!(q, p);
    }
}
