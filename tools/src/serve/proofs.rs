//! The proofs the explorer answers from: directories of `kalah prove`, read once when the
//! server starts, so that a request for exactly a proof's rules and root position (the
//! start of Kalah(6,6), say) is answered at once from what the proof proved, not by a
//! search of hours that the budget would stop.
//!
//! A proof settles its root's value; a first move's interval is only what the leaf
//! answers prove about it (a move that cannot beat the best one need not be solved), so
//! every interval here is kept as proved bounds and is a value only where they meet.
//! Every interval is a final margin, South's store minus North's.

use std::path::{Path, PathBuf};

use solver::notation::MoveText;
use solver::proof::manifest::MANIFEST;
use solver::proof::{Interval, Proof, ProofError};
use solver::{Game, Position, Rules};

/// What one proof directory proves about its root.
#[derive(Debug)]
pub struct Proved {
    pub dir: PathBuf,
    /// The manifest's rules and root: the only request it answers.
    pub rules: Rules,
    pub position: Position,
    /// The root's final margin: exact when the proof is finished, else its proved bounds.
    pub value: Interval,
    /// Every legal first move (pit order), each with its proved final-margin interval.
    pub moves: Vec<ProvedMove>,
}

/// A first move of a proof's root and what the proof proves about it.
#[derive(Debug)]
pub struct ProvedMove {
    /// As `kalah prove --status` writes it (`A1+`).
    pub text: MoveText,
    /// The final margin after this move and perfect play, within these bounds.
    pub margins: Interval,
    /// The position the move leads to.
    pub after: Position,
}

/// The proofs the server was given, matched by rules and position.
#[derive(Debug, Default)]
pub struct Proofs {
    /// Where they were read from (none: the server has no proofs).
    pub dir: Option<PathBuf>,
    pub proved: Vec<Proved>,
}

/// Why the proofs could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ProofsError {
    #[error("{}: cannot list the proof directories in it: {source}", dir.display())]
    List {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Proof(#[from] ProofError),
}

impl Proofs {
    /// Every proof in `dir`: `dir` itself where it holds a `proof.txt`, otherwise each of
    /// its subdirectories that holds one (others are ignored), in name order. A proof
    /// whose front end has no interior (depth 0) proves nothing move by move and is left
    /// out. A proof that cannot be opened or read is an error: a server must not answer
    /// from half of a damaged directory.
    pub fn load(dir: &Path) -> Result<Proofs, ProofsError> {
        let dirs = if dir.join(MANIFEST).is_file() {
            vec![dir.to_path_buf()]
        } else {
            let list = |source| ProofsError::List {
                dir: dir.to_path_buf(),
                source,
            };
            let mut dirs = Vec::new();
            for entry in std::fs::read_dir(dir).map_err(list)? {
                let path = entry.map_err(list)?.path();
                if path.join(MANIFEST).is_file() {
                    dirs.push(path);
                }
            }
            dirs.sort();
            dirs
        };
        let mut proved = Vec::new();
        for d in dirs {
            if let Some(p) = read(&d)? {
                proved.push(p);
            }
        }
        Ok(Proofs {
            dir: Some(dir.to_path_buf()),
            proved,
        })
    }

    /// The proof of exactly these rules (pie rule included) and this position, if any.
    pub fn find(&self, rules: &Rules, pos: &Position) -> Option<&Proved> {
        self.proved
            .iter()
            .find(|p| p.rules == *rules && p.position == *pos)
    }
}

/// Where the proofs are when `--proofs` is not given: `results/proofs` in the current
/// directory, else in the repository this binary was built from (a binary run from
/// elsewhere, its tests' included, still finds the committed proofs); none where neither
/// exists. The path is made absolute, so that answers name it unambiguously.
pub fn default_dir() -> Option<PathBuf> {
    let here = PathBuf::from("results/proofs");
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/proofs");
    [here, built]
        .into_iter()
        .find(|d| d.is_dir())
        .map(|d| std::fs::canonicalize(&d).unwrap_or(d))
}

/// What the proof in `dir` proves, as `kalah prove --status` derives it; `None` for a
/// front end without first moves. Nothing is written: a proof is only read.
fn read(dir: &Path) -> Result<Option<Proved>, ProofError> {
    let proof = Proof::open(dir)?;
    let st = proof.load()?;
    let m = &proof.manifest;
    let game = Game::new(m.rules);
    let mut moves: Vec<ProvedMove> = proof
        .first_moves(&st)
        .into_iter()
        .map(|mv| ProvedMove {
            after: m.position.play(&game, mv.pit).0,
            text: mv.text,
            margins: mv.margins,
        })
        .collect();
    if moves.is_empty() {
        return Ok(None);
    }
    // Best first for the side to move: the highest upper bound from its side, then the
    // highest lower bound (an exact best move before moves merely bounded by it).
    let sign = m.position.to_move.sign();
    let mover = |iv: &Interval| {
        let (a, b) = (sign * iv.lo, sign * iv.hi);
        (a.max(b), a.min(b))
    };
    moves.sort_by_key(|mv| std::cmp::Reverse(mover(&mv.margins)));
    Ok(Some(Proved {
        dir: dir.to_path_buf(),
        rules: m.rules,
        position: m.position,
        value: proof.margins(st.tree.front.interval(st.tree.front.root, &st.know)),
        moves,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_without_proofs_has_none_and_a_missing_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("notes")).unwrap();
        let p = Proofs::load(dir.path()).unwrap();
        assert!(p.proved.is_empty());
        let e = Proofs::load(&dir.path().join("absent")).unwrap_err();
        assert!(e.to_string().contains("cannot list"), "{e}");
    }

    #[test]
    fn a_damaged_manifest_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("bad");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join(MANIFEST), "not a proof\n").unwrap();
        let e = Proofs::load(dir.path()).unwrap_err();
        assert!(e.to_string().contains("not a proof directory"), "{e}");
    }
}
