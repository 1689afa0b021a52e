//! Positions and questions as the terminal shows them: the side names, whose turn it
//! is, the final margin, the bound a search asks about, and the ASCII board: North on top (B6..B1 left to right) with its store on the left, South
//! below (A1..A6) with its store on the right, as the players see it from South's chair.
//!
//! ```text
//!        B6  B5  B4  B3  B2  B1
//!         4   4   4   4   4   4
//!  N  0                           0  S
//!         4   4   4   4   4   4
//!        A1  A2  A3  A4  A5  A6
//! ```

use solver::search::tt::EXACT;
use solver::{Game, Position, Side};

/// Width of one pit column.
const CELL: usize = 4;
/// Indent of the pit columns: room for the label and North's store.
const INDENT: usize = 5;

/// The board of `pos` in five lines, each ending in a newline.
pub fn board(pos: &Position) -> String {
    let m = pos.pits();
    let indent = " ".repeat(INDENT);
    let row = |cells: Vec<String>| -> String {
        let mut line = indent.clone();
        for c in cells {
            line.push_str(&format!("{c:>CELL$}"));
        }
        line.push('\n');
        line
    };
    let mut out = String::new();
    out.push_str(&row((1..=m).rev().map(|i| format!("B{i}")).collect()));
    out.push_str(&row(pos.row_b().iter().rev().map(u8::to_string).collect()));
    // The stores: North's ends where the pit columns start, South's starts after them.
    let north = format!(" N {:>2}", pos.stores[1]);
    out.push_str(&format!(
        "{north:<INDENT$}{}   {:<2} S\n",
        " ".repeat(CELL * m),
        pos.stores[0],
    ));
    out.push_str(&row(pos.row_a().iter().map(u8::to_string).collect()));
    out.push_str(&row((1..=m).map(|i| format!("A{i}")).collect()));
    out
}

/// The player's name with their row letter, e.g. `South (A)`.
pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::South => "South (A)",
        Side::North => "North (B)",
    }
}

/// One line on whose turn it is, or that the game is over.
pub fn status(game: &Game, pos: &Position) -> String {
    if pos.is_over(game) {
        "game over".to_string()
    } else {
        format!("{} to move", side_name(pos.to_move))
    }
}

/// The final margin, South's store minus North's, once the seeds left on the board of a
/// finished position are swept; `None` while play goes on.
pub fn final_margin(game: &Game, pos: &Position) -> Option<i32> {
    game.terminal_value(&pos.board())
        .map(|v| solver::score::margin(pos, v))
}

/// A margin or value with its sign, `+3`, `-2` or `+0`, as every report prints them.
pub fn signed(v: i32) -> String {
    format!("{v:+}")
}

/// A search depth as the reports name it: `depth 5`, or `exact` for [`EXACT`].
pub fn depth_name(depth: u8) -> String {
    if depth == EXACT {
        "exact".to_string()
    } else {
        format!("depth {depth}")
    }
}

/// The question "is the gain of `pos`'s side to move at least `beta`?" as a final-margin
/// bound: `margin >= m` for South to move, `margin <= m` for North.
pub fn margin_question(pos: &Position, beta: i32) -> String {
    let m = pos.store_margin() + pos.to_move.sign() * beta;
    if pos.to_move.sign() > 0 {
        format!("margin >= {m:+}")
    } else {
        format!("margin <= {m:+}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use solver::Rules;

    #[test]
    fn start_board_layout() {
        let r = Rules::kalah(6, 4).unwrap();
        let p: Position = "1,2,3,4,5,6/10/7,8,9,10,11,12/3/A".parse().unwrap();
        let b = board(&p);
        let lines: Vec<&str> = b.lines().collect();
        assert_eq!(lines[0], "       B6  B5  B4  B3  B2  B1");
        assert_eq!(lines[1], "       12  11  10   9   8   7");
        assert_eq!(lines[2], " N  3                           10 S");
        assert_eq!(lines[3], "        1   2   3   4   5   6");
        assert_eq!(lines[4], "       A1  A2  A3  A4  A5  A6");
        let g = Game::new(r);
        assert_eq!(status(&g, &p), "South (A) to move");
        assert_eq!(final_margin(&g, &p), None);
    }

    #[test]
    fn final_margin_counts_the_sweep() {
        let g = Game::new(Rules::kalah(2, 1).unwrap());
        let p: Position = "0,0/1/2,1/0/A".parse().unwrap();
        assert_eq!(status(&g, &p), "game over");
        assert_eq!(final_margin(&g, &p), Some(-2));
    }
}
