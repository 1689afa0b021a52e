//! A proof's manifest, `proof.txt`: what the proof is about (rules, root position, front
//! end depth, first guess), fixed when the directory is created. Its text is the proof's
//! identity: every record carries a hash of it.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::str::FromStr;

use xxhash_rust::xxh3::xxh3_64;

use crate::position::Position;
use crate::rules::{Rules, RulesBuilder};

/// The manifest's file name in a proof directory.
pub const MANIFEST: &str = "proof.txt";

/// The manifest's first line: the directory format and its version.
pub const HEADER: &str = "kalah-proof 1";

/// What a proof is about: fixed when the directory is created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    pub rules: Rules,
    pub position: Position,
    /// Plies of the front end.
    pub depth: u32,
    /// The first guess of the root's MTD(f), a future net gain of the root's side to move.
    pub guess: i32,
}

impl Manifest {
    /// The manifest as written in `proof.txt`, one `key value` a line.
    pub fn text(&self) -> String {
        let r = &self.rules;
        let mut s = String::new();
        // Writing to a String cannot fail.
        let _ = write!(
            s,
            "{HEADER}\n# {r}\npits {}\nseeds {}\ncapture {}\nsowing {}\ndirection {}\n\
             opp-store {}\nend {}\nremaining {}\nposition {}\ndepth {}\nguess {}\n",
            r.pits(),
            r.seeds(),
            r.capture,
            r.sowing,
            r.direction,
            r.opp_store,
            r.end,
            r.remaining,
            self.position,
            self.depth,
            self.guess
        );
        s
    }

    pub fn parse(text: &str) -> Result<Manifest, String> {
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return Err(format!("the first line is not '{HEADER}'"));
        }
        let mut b = RulesBuilder::new(0, 0);
        let (mut position, mut depth, mut guess) = (None, None, None);
        let mut seen = HashSet::new();
        for line in lines {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (k, v) = line
                .split_once(' ')
                .ok_or_else(|| format!("'{line}' is not 'key value'"))?;
            if !seen.insert(k.to_string()) {
                return Err(format!("'{k}' is given twice"));
            }
            let bad = |e: &dyn std::fmt::Display| format!("{k}: {e}");
            match k {
                "pits" => b.pits = v.parse().map_err(|e| bad(&e))?,
                "seeds" => b.seeds = v.parse().map_err(|e| bad(&e))?,
                "capture" => b.capture = Some(v.parse().map_err(|e| bad(&e))?),
                "sowing" => b.sowing = v.parse().map_err(|e| bad(&e))?,
                "direction" => b.direction = v.parse().map_err(|e| bad(&e))?,
                "opp-store" => b.opp_store = v.parse().map_err(|e| bad(&e))?,
                "end" => b.end = v.parse().map_err(|e| bad(&e))?,
                "remaining" => b.remaining = v.parse().map_err(|e| bad(&e))?,
                "position" => position = Some(Position::from_str(v).map_err(|e| bad(&e))?),
                "depth" => depth = Some(v.parse::<u32>().map_err(|e| bad(&e))?),
                "guess" => guess = Some(v.parse::<i32>().map_err(|e| bad(&e))?),
                _ => return Err(format!("unknown key '{k}'")),
            }
        }
        let rules = b.build().map_err(|e| e.to_string())?;
        let position = position.ok_or("no position")?;
        position.check_size(&rules).map_err(|e| e.to_string())?;
        let depth = depth.ok_or("no depth")?;
        if depth > MAX_DEPTH {
            return Err(format!("depth {depth} is more than {MAX_DEPTH}"));
        }
        Ok(Manifest {
            rules,
            position,
            depth,
            guess: guess.ok_or("no guess")?,
        })
    }

    /// The proof's identity, stamped on every record: a result of another proof (other
    /// rules, root or front end) is never read as one of this one.
    pub fn id(&self) -> u64 {
        xxh3_64(self.text().as_bytes())
    }
}

/// The deepest front end accepted at creation: each ply multiplies the tree by up to the
/// pits a side, and every process holds the whole tree (Kalah(6,6) at depth 8: 217,217
/// interior nodes and 943,597 leaves, 0.2 GB). Splits deepen it only where a unit was too
/// large.
pub const MAX_DEPTH: u32 = 8;
