//! `kalah.Position`: a position and the rules it is played under.
//!
//! A position carries its rules, resolved as `kalah --position P` resolves them: without
//! rules, the board size is the position's and the switches are the defaults; the seeds a
//! pit are those of the game whose seeds the position holds, where there is one (4
//! otherwise). Rules whose pits disagree with the position, or whose explicit seeds name
//! a game of other seeds than the position holds, are refused with `kalah`'s messages.

use pyo3::prelude::*;
use pyo3::types::PyString;
use solver::notation::{play_record, MoveSyntaxError, MoveText};
use solver::{Board, Game, PositionError};

use crate::errors::{bad_input, value_error};
use crate::rules::{Rules, DEFAULT_SEEDS};

/// A position of Kalah(m, n): both rows, both stores, the side to move, and its rules.
///
/// Invariant: `pos` fits `rules`' board (`pos.pits() == rules.pits()`), and, where the
/// rules' seeds a pit came from the position or were given, `rules.total_seeds()` is the
/// seeds the position holds.
#[pyclass(frozen, eq, hash, module = "kalah")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub pos: solver::Position,
    pub rules: solver::Rules,
}

/// The rules of `pos` as `kalah`'s `resolve` gives them for `--position` with the switches
/// of `rules` (`None`: the defaults, on the position's board size).
pub fn resolve(rules: Option<&Rules>, pos: &solver::Position) -> PyResult<solver::Rules> {
    let default;
    let base = match rules {
        Some(r) => r,
        None => {
            default = Rules::from_solver(
                &solver::Rules::kalah(pos.pits(), DEFAULT_SEEDS).map_err(bad_input)?,
                None,
            );
            &default
        }
    };
    let held = u64::from(pos.board_seeds()) + pos.stores.iter().map(|&s| u64::from(s)).sum::<u64>();
    let mut b = base.builder_with(base.pits, base.seeds.unwrap_or(DEFAULT_SEEDS));
    let cells = 2 * base.pits as u64;
    // Without seeds, the game named is the one whose seeds the position holds, where
    // there is one; the value does not depend on it.
    if base.seeds.is_none() && held > 0 && held % cells == 0 {
        let mut held_game = b.clone();
        held_game.seeds = (held / cells) as usize;
        if held_game.build().is_ok() {
            b = held_game;
        }
    }
    let r = b.build().map_err(bad_input)?;
    pos.check_size(&r).map_err(bad_input)?;
    if base.seeds.is_some() && u64::from(r.total_seeds()) != held {
        return Err(value_error(format!(
            "seeds={}: the position holds {held} seeds, not the {} of Kalah({},{}); leave \
             seeds out (seeds=None) with a position",
            r.seeds(),
            r.total_seeds(),
            r.pits(),
            r.seeds()
        )));
    }
    Ok(r)
}

/// What a database probe needs of a position string of `pits` pits a side in its plainest
/// form (whole numbers, commas and slashes, no white space): the board seen from the side
/// to move, the store margin (South minus North) and the sign of the side to move. `None`
/// for any other text, even one `solver::Position` reads: the caller then reads it that
/// way, which refuses a bad one with its message. Where it answers, the answer is that of
/// `solver::Position`'s reading (the same bounds on seeds and stores are checked).
pub fn read_board(text: &str, pits: usize) -> Option<(Board, i32, i32)> {
    let bytes = text.as_bytes();
    let mut rows = [[0u32; solver::rules::MAX_PITS]; 2];
    let mut stores = [0u64; 2];
    let mut at = 0;
    for row in 0..2 {
        let mut count = 0;
        loop {
            *rows[row].get_mut(count)? = whole(bytes, &mut at)? as u32;
            count += 1;
            match bytes.get(at) {
                Some(b',') => at += 1,
                Some(b'/') => break,
                _ => return None,
            }
        }
        if count != pits {
            return None;
        }
        at += 1;
        stores[row] = whole(bytes, &mut at)?;
        if bytes.get(at) != Some(&b'/') {
            return None;
        }
        at += 1;
    }
    let to_move = match bytes.get(at..)? {
        b"A" | b"a" => solver::Side::South,
        b"B" | b"b" => solver::Side::North,
        _ => return None,
    };
    let seeds: u64 = rows.iter().flatten().map(|&c| u64::from(c)).sum();
    if seeds > u64::from(solver::position::MAX_BOARD_SEEDS)
        || seeds + stores[0] + stores[1] > u64::from(solver::position::MAX_STORE)
    {
        return None;
    }
    let (first, second) = match to_move {
        solver::Side::South => (0, 1),
        solver::Side::North => (1, 0),
    };
    let mut cells = [0u8; 2 * solver::rules::MAX_PITS];
    for i in 0..pits {
        // Invariant: each count is at most the board's seeds, checked above to fit a byte.
        cells[i] = rows[first][i] as u8;
        cells[pits + i] = rows[second][i] as u8;
    }
    let margin = stores[0] as i32 - stores[1] as i32;
    Some((
        Board::from_cells(pits, &cells[..2 * pits]),
        margin,
        to_move.sign(),
    ))
}

/// The whole number of at most 10 digits, and at most `u32::MAX`, at `bytes[*at..]`;
/// `at` is moved past its digits.
fn whole(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let start = *at;
    let mut n: u64 = 0;
    while let Some(&b) = bytes.get(*at) {
        if !b.is_ascii_digit() || *at - start == 10 {
            break;
        }
        n = n * 10 + u64::from(b - b'0');
        *at += 1;
    }
    (*at > start && n <= u64::from(u32::MAX)).then_some(n)
}

impl Position {
    /// The position of the string `text` under `rules` (see [`resolve`]).
    pub fn parse(text: &str, rules: Option<&Rules>) -> PyResult<Position> {
        let pos: solver::Position = text.parse().map_err(|e: PositionError| bad_input(e))?;
        let rules = resolve(rules, &pos)?;
        Ok(Position { pos, rules })
    }

    /// A `Position`, or a position string read with `rules` (see [`resolve`]): the
    /// argument of every function that takes a position.
    pub fn from_arg(arg: &Bound<'_, PyAny>, rules: Option<&Rules>) -> PyResult<Position> {
        if let Ok(p) = arg.cast::<Position>() {
            return Ok(p.get().clone());
        }
        match arg.cast::<PyString>() {
            Ok(s) => Position::parse(&s.to_cow()?, rules),
            Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "expected a kalah.Position or a position string, not {}",
                arg.get_type().name()?
            ))),
        }
    }

    pub fn game(&self) -> Game {
        Game::new(self.rules)
    }

    /// The final margin (South minus North) if the game is over here.
    pub fn final_margin_in(&self, game: &Game) -> Option<i32> {
        game.terminal_value(&self.pos.board())
            .map(|v| solver::score::margin(&self.pos, v))
    }
}

#[pymethods]
impl Position {
    /// Position(text, rules=None)
    ///
    /// The position of `kalah`'s position string 'A-pits/A-store/B-pits/B-store/side':
    /// pits left to right as numbered (A1..Am, B1..Bm), side A (South) or B (North); e.g.
    /// '1,0,2/0/0,4,0/0/A'. `rules=None` means the default switches on the position's
    /// board size, as `kalah --position` without `--pits`; the seeds a pit are inferred
    /// from the seeds the position holds when `rules.seeds` is None. Raises ValueError
    /// with `kalah`'s message for a string it would refuse.
    #[new]
    #[pyo3(signature = (text, rules=None))]
    fn new(text: &str, rules: Option<&Rules>) -> PyResult<Position> {
        Position::parse(text, rules)
    }

    /// The start position of `rules` (default Kalah(6,4)), South to move; the seeds a pit
    /// are 4 where `rules.seeds` is None.
    #[staticmethod]
    #[pyo3(signature = (rules=None))]
    fn start(rules: Option<&Rules>) -> PyResult<Position> {
        let r = match rules {
            Some(r) => r.resolved().map_err(bad_input)?,
            None => solver::Rules::kalah(crate::rules::DEFAULT_PITS, DEFAULT_SEEDS)
                .map_err(bad_input)?,
        };
        Ok(Position {
            pos: solver::Position::start(&r),
            rules: r,
        })
    }

    /// The rules the position is played under (the seeds a pit resolved).
    #[getter]
    fn rules(&self) -> Rules {
        Rules::of(&self.rules)
    }

    /// Pits a side.
    #[getter]
    fn pits(&self) -> usize {
        self.pos.pits()
    }

    /// Row A, South's pits A1..Am.
    #[getter]
    fn row_a(&self) -> Vec<u32> {
        self.pos.row_a().iter().map(|&c| u32::from(c)).collect()
    }

    /// Row B, North's pits B1..Bm.
    #[getter]
    fn row_b(&self) -> Vec<u32> {
        self.pos.row_b().iter().map(|&c| u32::from(c)).collect()
    }

    /// The stores: (South's, North's).
    #[getter]
    fn stores(&self) -> (u32, u32) {
        (self.pos.stores[0], self.pos.stores[1])
    }

    /// Seeds on the board (both rows).
    #[getter]
    fn board_seeds(&self) -> u32 {
        self.pos.board_seeds()
    }

    /// The side to move: 'A' (South) or 'B' (North).
    #[getter]
    fn to_move(&self) -> char {
        self.pos.to_move.letter()
    }

    /// Whether the game is over in this position (under the rules' end rule).
    #[getter]
    fn game_over(&self) -> bool {
        self.pos.is_over(&self.game())
    }

    /// South's store minus North's at the end, the remaining seeds swept by the rules'
    /// `remaining` switch, when the game is over here; None while it goes on.
    #[getter]
    fn final_margin(&self) -> Option<i32> {
        self.final_margin_in(&self.game())
    }

    /// South's store minus North's now.
    #[getter]
    fn store_margin(&self) -> i32 {
        self.pos.store_margin()
    }

    /// The legal moves in notation, in pit order, annotated with what they do: `x` and
    /// the seeds captured, `+` for a free move, `#` when the move ends the game (e.g.
    /// ['A1', 'A3+', 'A5x6']). Empty when the game is over.
    fn legal_moves(&self) -> Vec<String> {
        let game = self.game();
        if self.pos.is_over(&game) {
            return Vec::new();
        }
        game.steps(&self.pos.board())
            .map(|(pit, step)| MoveText::annotated(self.pos.to_move, pit, &step).to_string())
            .collect()
    }

    /// The position after `moves`: one move ('A3') or a record of moves separated by
    /// white space ('A3 A6 B2'), in `kalah`'s notation. Annotations (`x<seeds>`, `+`,
    /// `#`) are optional and checked against what the move does. Raises ValueError with
    /// `kalah play`'s message for an illegal move (wrong side, empty or missing pit,
    /// wrong annotation, game over). The position keeps its rules.
    fn play(&self, moves: &str) -> PyResult<Position> {
        if moves.split_whitespace().next().is_none() {
            return Err(bad_input(MoveSyntaxError(moves.to_string())));
        }
        let game = self.game();
        let played = play_record(&game, &self.pos, moves).map_err(bad_input)?;
        let pos = played.last().map_or(self.pos, |p| p.after);
        Ok(Position {
            pos,
            rules: self.rules,
        })
    }

    /// `kalah`'s position string.
    fn __str__(&self) -> String {
        self.pos.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Position('{}', rules={})",
            self.pos,
            Rules::of(&self.rules).repr()
        )
    }
}
