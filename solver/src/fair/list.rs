//! The text of a list of starts and what is known of their final margins: the results
//! file of `kalah fair` (every start settled, appended as it is) and the committed lists
//! of fair starts (`results/raw/fair/`, the starts within the band only).
//!
//! ```text
//! # rules: Kalah(2,2) capture=standard sowing=single direction=ccw opp-store=skip end=either remaining=owner
//! # within: 0
//! # moved: 1
//! # Any other line starting with '#' is a comment.
//! 1 1,3/0/2,2/0/A =+0
//! 1 1,2/0/3,2/0/A >=+2
//! 1 1,2/1/2,2/0/A <=-1
//! ```
//!
//! The header names the rules (as `kalah` prints them), the band `-D..=D` the list was
//! settled for (`within`) and the most seeds moved (`moved`). Each other line is one
//! start: its seeds moved, its position string (see [`crate::position`]) and its
//! verdict: `=M` the exact final margin, `>=M` or `<=M` a bound on it (South's store
//! minus North's at the end, signed). A line is whole only with its line end; the reader
//! of a file that may have been cut short drops a last line without one before parsing.

use std::str::FromStr;

use crate::analysis::Bound;
use crate::fair::Verdict;
use crate::position::Position;

/// One line of a list: a start and its verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub moved: u32,
    pub position: Position,
    pub verdict: Verdict,
}

/// `1 1,3/0/2,2/0/A =+0`.
impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", self.moved, self.position, self.verdict)
    }
}

/// What a list is about: its header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The rules, as [`crate::Rules`] displays them.
    pub rules: String,
    /// The band `-within..=within` of final margins the list was settled for.
    pub within: u32,
    /// The most seeds moved from the rules' start.
    pub moved: u32,
}

impl Header {
    /// The header's lines, each with its line end.
    pub fn text(&self) -> String {
        format!(
            "# rules: {}\n# within: {}\n# moved: {}\n",
            self.rules, self.within, self.moved
        )
    }
}

/// A whole list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct List {
    pub header: Header,
    pub entries: Vec<Entry>,
}

/// Why a list's text was refused, with the line at fault (from 1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    #[error("line {line}: {why}")]
    Line { line: usize, why: String },
    #[error("no '# {0}:' line in the header")]
    Missing(&'static str),
}

impl FromStr for Verdict {
    type Err = String;

    fn from_str(s: &str) -> Result<Verdict, String> {
        let (at_least, margin) = if let Some(m) = s.strip_prefix(">=") {
            (Some(true), m)
        } else if let Some(m) = s.strip_prefix("<=") {
            (Some(false), m)
        } else if let Some(m) = s.strip_prefix('=') {
            (None, m)
        } else {
            return Err(format!(
                "'{s}' is not a verdict (=M, >=M or <=M, M a final margin)"
            ));
        };
        let margin: i32 = margin
            .parse()
            .map_err(|_| format!("'{margin}' is not a final margin (a signed whole number)"))?;
        Ok(match at_least {
            None => Verdict::Exact(margin),
            Some(at_least) => Verdict::Outside(Bound {
                at_least,
                margin,
                nodes: 0,
            }),
        })
    }
}

impl FromStr for Entry {
    type Err = String;

    fn from_str(line: &str) -> Result<Entry, String> {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [moved, position, verdict] = parts[..] else {
            return Err(format!(
                "expected 3 fields 'moved position verdict', found {}",
                parts.len()
            ));
        };
        Ok(Entry {
            moved: moved
                .parse()
                .map_err(|_| format!("'{moved}' is not a number of seeds moved"))?,
            position: position
                .parse()
                .map_err(|e: crate::PositionError| e.to_string())?,
            verdict: verdict.parse()?,
        })
    }
}

impl FromStr for List {
    type Err = ListError;

    /// Whole lines only (see the module docs); blank lines are skipped.
    fn from_str(text: &str) -> Result<List, ListError> {
        let (mut rules, mut within, mut moved) = (None, None, None);
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let bad = |why: String| ListError::Line { line: i + 1, why };
            let line = line.trim();
            if let Some(comment) = line.strip_prefix('#') {
                let Some((key, value)) = comment.split_once(':') else {
                    continue;
                };
                let value = value.trim();
                let number = || {
                    value
                        .parse::<u32>()
                        .map_err(|_| bad(format!("'{value}' is not a whole number")))
                };
                match key.trim() {
                    "rules" => rules = Some(value.to_string()),
                    "within" => within = Some(number()?),
                    "moved" => moved = Some(number()?),
                    _ => {}
                }
                continue;
            }
            if line.is_empty() {
                continue;
            }
            entries.push(line.parse().map_err(bad)?);
        }
        Ok(List {
            header: Header {
                rules: rules.ok_or(ListError::Missing("rules"))?,
                within: within.ok_or(ListError::Missing("within"))?,
                moved: moved.ok_or(ListError::Missing("moved"))?,
            },
            entries,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# rules: Kalah(2,2) capture=standard\n# within: 0\n# moved: 1\n\
                        # a comment: with a colon\n\n1 1,3/0/2,2/0/A =+0\n\
                        1 1,2/0/3,2/0/A >=+2\n1 1,2/1/2,2/0/A <=-1\n";

    #[test]
    fn a_list_reads_back_as_written() {
        let list: List = TEXT.parse().unwrap();
        assert_eq!(list.header.rules, "Kalah(2,2) capture=standard");
        assert_eq!((list.header.within, list.header.moved), (0, 1));
        let lines: Vec<String> = list.entries.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            lines,
            [
                "1 1,3/0/2,2/0/A =+0",
                "1 1,2/0/3,2/0/A >=+2",
                "1 1,2/1/2,2/0/A <=-1"
            ]
        );
        assert!(list.entries[0].verdict.is_within(0));
        assert!(!list.entries[1].verdict.is_within(5));
        let again: List = format!("{}{}\n", list.header.text(), lines.join("\n"))
            .parse()
            .unwrap();
        assert_eq!(again, list);
    }

    #[test]
    fn bad_lines_are_named() {
        let e = |s: &str| s.parse::<List>().unwrap_err().to_string();
        assert_eq!(
            e("# within: 0\n# moved: 1\n"),
            "no '# rules:' line in the header"
        );
        assert!(e("# rules: x\n# within: -1\n").contains("line 2: '-1'"));
        let head = "# rules: x\n# within: 0\n# moved: 1\n";
        assert!(e(&format!("{head}1 1,3/0/2,2/0/A")).contains("line 4: expected 3 fields"));
        assert!(e(&format!("{head}1 1,3/0/2,2/0/A ~0")).contains("not a verdict"));
        assert!(e(&format!("{head}1 1,3/0/2,2/0/A =x")).contains("'x' is not a final margin"));
        assert!(e(&format!("{head}x 1,3/0/2,2/0/A =0")).contains("seeds moved"));
        assert!(e(&format!("{head}1 1,3/0/2,2/0 =0")).contains("5 parts"));
    }
}
