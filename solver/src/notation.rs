//! Move notation and game records.
//!
//! A move is written as the pit emptied (`A4`, `B2`), then `x` and the seeds captured
//! (`A2x5`), `+` when the last seed fell in the mover's store and the mover goes again,
//! and `#` when the move ended the game (`B5x9#`). A move whose last seed reaches the store
//! but ends the game is written with `#` alone: no free move follows it.
//!
//! A record is moves separated by white space: `A3+ A6 B2`. Annotations in a record are
//! optional; when present they are checked against what the move does.

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use crate::game::{Game, Next, Step};
use crate::position::{Position, Side};

/// A move as written: a side, a pit (1-based) and the optional annotations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveText {
    pub side: Side,
    /// 1-based pit number.
    pub pit: usize,
    pub captured: Option<u32>,
    pub free: bool,
    pub ends: bool,
}

impl MoveText {
    /// The annotated text of a move that was played.
    pub fn annotated(side: Side, pit: usize, step: &Step) -> MoveText {
        MoveText {
            side,
            pit: pit + 1,
            captured: (step.captured > 0).then_some(step.captured as u32),
            free: step.next == Next::Same,
            ends: step.next == Next::Over,
        }
    }
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.side.letter(), self.pit)?;
        if let Some(c) = self.captured {
            write!(f, "x{c}")?;
        }
        if self.free {
            f.write_str("+")?;
        }
        if self.ends {
            f.write_str("#")?;
        }
        Ok(())
    }
}

/// A move string that is not notation at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a move: expected a row letter A or B, a pit number, then optionally x<seeds>, + and #")]
pub struct MoveSyntaxError(pub String);

impl FromStr for MoveText {
    type Err = MoveSyntaxError;

    fn from_str(s: &str) -> Result<MoveText, MoveSyntaxError> {
        let err = || MoveSyntaxError(s.to_string());
        let mut chars = s.chars();
        let side = match chars.next() {
            Some('A' | 'a') => Side::South,
            Some('B' | 'b') => Side::North,
            _ => return Err(err()),
        };
        let rest = chars.as_str();
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let pit: usize = rest[..digits].parse().map_err(|_| err())?;
        let mut rest = &rest[digits..];
        let mut captured = None;
        if let Some(r) = rest.strip_prefix('x') {
            let d = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            captured = Some(r[..d].parse::<u32>().map_err(|_| err())?);
            rest = &r[d..];
        }
        let mut free = false;
        if let Some(r) = rest.strip_prefix('+') {
            free = true;
            rest = r;
        }
        let mut ends = false;
        if let Some(r) = rest.strip_prefix('#') {
            ends = true;
            rest = r;
        }
        if !rest.is_empty() {
            return Err(err());
        }
        Ok(MoveText {
            side,
            pit,
            captured,
            free,
            ends,
        })
    }
}

/// Why a move of a record cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    #[error("{0}")]
    Syntax(#[from] MoveSyntaxError),
    #[error("the game is already over")]
    GameOver,
    #[error("it is {}'s turn (row {}), not row {}", side_name(*.to_move), .to_move.letter(), .played.letter())]
    WrongSide { to_move: Side, played: Side },
    #[error("there is no pit {pit}: pits are numbered 1 to {pits}")]
    NoSuchPit { pit: usize, pits: usize },
    #[error("pit {0} is empty")]
    EmptyPit(String),
    #[error("written '{written}' but the move is '{actual}'")]
    Annotation { written: String, actual: String },
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::South => "South",
        Side::North => "North",
    }
}

/// An illegal move in a record, with its 1-based number there.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {number} '{text}' is illegal: {reason}")]
pub struct RecordError {
    pub number: usize,
    pub text: String,
    pub reason: IllegalMove,
}

/// Check and play one written move on `pos`.
pub fn play_move(
    game: &Game,
    pos: &Position,
    text: &str,
) -> Result<(Position, Step, MoveText), IllegalMove> {
    let mv: MoveText = text.parse()?;
    if pos.is_over(game) {
        return Err(IllegalMove::GameOver);
    }
    if mv.side != pos.to_move {
        return Err(IllegalMove::WrongSide {
            to_move: pos.to_move,
            played: mv.side,
        });
    }
    let m = pos.pits();
    if mv.pit == 0 || mv.pit > m {
        return Err(IllegalMove::NoSuchPit {
            pit: mv.pit,
            pits: m,
        });
    }
    if pos.row(mv.side)[mv.pit - 1] == 0 {
        return Err(IllegalMove::EmptyPit(format!(
            "{}{}",
            mv.side.letter(),
            mv.pit
        )));
    }
    let (after, step) = pos.play(game, mv.pit - 1);
    let actual = MoveText::annotated(mv.side, mv.pit - 1, &step);
    let annotated = mv.captured.is_some() || mv.free || mv.ends;
    let mismatch = (mv.captured.is_some() && mv.captured != actual.captured)
        || (mv.free && !actual.free)
        || (mv.ends && !actual.ends);
    if annotated && mismatch {
        return Err(IllegalMove::Annotation {
            written: text.to_string(),
            actual: actual.to_string(),
        });
    }
    Ok((after, step, actual))
}

/// One move of a played record.
#[derive(Clone, Debug)]
pub struct Played {
    pub text: MoveText,
    pub step: Step,
    /// The position after the move (stores final when the game ended).
    pub after: Position,
    /// The position after the move had been seen before in this record (possible only
    /// with clockwise sowing).
    pub repeated: bool,
}

/// Play a whole record from `start`, checking every move.
pub fn play_record(
    game: &Game,
    start: &Position,
    record: &str,
) -> Result<Vec<Played>, RecordError> {
    let mut pos = *start;
    let mut seen: HashSet<Position> = HashSet::new();
    seen.insert(pos);
    let mut out = Vec::new();
    for (i, tok) in record.split_whitespace().enumerate() {
        let (after, step, text) = play_move(game, &pos, tok).map_err(|reason| RecordError {
            number: i + 1,
            text: tok.to_string(),
            reason,
        })?;
        let repeated = !seen.insert(after);
        out.push(Played {
            text,
            step,
            after,
            repeated,
        });
        pos = after;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn move_text_round_trips() {
        for s in ["A3+", "B5x9#", "A2x5", "B1", "A6#", "A12"] {
            assert_eq!(s.parse::<MoveText>().unwrap().to_string(), s);
        }
        for bad in ["", "C1", "A", "Ax", "A1x", "A1-", "A1#+", "1A"] {
            assert!(bad.parse::<MoveText>().is_err(), "{bad}");
        }
    }

    #[test]
    fn records_are_annotated_and_checked() {
        let g = Game::new(Rules::kalah(6, 4).unwrap());
        let start = Position::start(g.rules());
        let played = play_record(&g, &start, "A3 A6 B1").unwrap();
        let texts: Vec<String> = played.iter().map(|p| p.text.to_string()).collect();
        assert_eq!(texts, ["A3+", "A6", "B1"]);
        assert_eq!(played[2].after.to_string(), "4,4,0,5,5,0/2/0,6,6,6,5,5/0/A");
        let err = |rec: &str| play_record(&g, &start, rec).unwrap_err();
        let e = err("A3 A6 A2");
        assert_eq!(e.number, 3);
        assert!(matches!(e.reason, IllegalMove::WrongSide { .. }));
        assert!(matches!(err("A3 A3").reason, IllegalMove::EmptyPit(_)));
        assert!(matches!(
            err("A7").reason,
            IllegalMove::NoSuchPit { pit: 7, pits: 6 }
        ));
        assert!(matches!(err("A0").reason, IllegalMove::NoSuchPit { .. }));
        assert!(matches!(err("A2+").reason, IllegalMove::Annotation { .. }));
        assert!(matches!(err("Z9").reason, IllegalMove::Syntax(_)));
        let msg = err("A3 A6 A2").to_string();
        assert!(msg.contains("move 3") && msg.contains("A2"), "{msg}");
    }

    #[test]
    fn a_move_after_the_end_is_refused() {
        let g = Game::new(Rules::kalah(1, 1).unwrap());
        let start = Position::start(g.rules());
        let played = play_record(&g, &start, "A1#").unwrap();
        assert!(played[0].after.is_over(&g));
        assert_eq!(played[0].after.to_string(), "0/1/0/1/B");
        let e = play_record(&g, &start, "A1 B1").unwrap_err();
        assert_eq!(e.reason, IllegalMove::GameOver);
    }
}
