//! The proofs the explorer answers from: directories of `kalah prove`, read once when the
//! server starts, so that a request for exactly a proof's rules and root position (the
//! start of Kalah(6,6), say) is answered at once from what the proof proved, not by a
//! search of hours that the budget would stop.
//!
//! A proof settles its root's value; a first move's interval is only what the leaf
//! answers prove about it (a move that cannot beat the best one need not be solved), so
//! every interval here is kept as proved bounds and is a value only where they meet.
//! Every interval is a final margin, South's store minus North's.
//!
//! A value is *certified* where every needed unit of the proofs it rests on was answered
//! a second time, with no disagreement (`kalah prove --second-answers`): a proof's root,
//! and an exact move that the second answers cover as a whole (see [`ProvedMove`]).

use std::path::{Path, PathBuf};

use solver::notation::MoveText;
use solver::proof::manifest::MANIFEST;
use solver::proof::{Check, Interval, Proof, ProofError, Verdict};
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
    /// The proof's second answers; `None` for a position in the middle of a turn
    /// ([`turns_on`]), which has no proof of its own.
    pub second: Option<SecondAnswers>,
    /// `value` rests only on proofs whose second answers are complete.
    pub certified: bool,
    /// Every legal first move (pit order), each with its proved final-margin interval.
    pub moves: Vec<ProvedMove>,
}

/// Where a proof's second answers stand: the needed units (the answers its root's bounds
/// rest on) and how many a second search confirmed or refuted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SecondAnswers {
    pub needed: usize,
    pub confirmed: usize,
    pub disagree: usize,
}

impl SecondAnswers {
    /// Every needed unit confirmed, none refuted: the root's bounds are certified.
    pub fn complete(&self) -> bool {
        self.disagree == 0 && self.confirmed == self.needed
    }
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
    /// The move is exact and its value certified: it is the root value of a certified
    /// proof of the position it leads to, or the one move that attains a certified root's
    /// exact value (the root's needed units then prove it from both sides: its upper
    /// bound with every move's, its lower bound as the only move that has it). Always
    /// false for bounds: the second answers do not cover a move's bounds one by one.
    pub certified: bool,
}

/// The proofs the server was given, matched by rules and position.
#[derive(Debug, Default)]
pub struct Proofs {
    /// Where they were read from (none: the server has no proofs).
    pub dir: Option<PathBuf>,
    /// One for each proof directory, its root's moves narrowed by the others ([`narrow`]).
    pub proved: Vec<Proved>,
    /// The positions in the middle of a turn that the proofs answer too ([`turns_on`]).
    pub turns: Vec<Proved>,
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
    /// Two proofs of the same rules whose bounds on one position do not overlap: one of
    /// them is wrong, and neither may answer.
    #[error(
        "{} and {}: their proved bounds on {position} do not overlap ({} <= margin <= {} \
         against {} <= margin <= {}): one of these proofs is wrong",
        first.display(), second.display(), a.lo, a.hi, b.lo, b.hi
    )]
    Contradiction {
        first: PathBuf,
        second: PathBuf,
        position: Position,
        a: Interval,
        b: Interval,
    },
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
        narrow(&mut proved)?;
        let turns = turns_on(&proved)?;
        Ok(Proofs {
            dir: Some(dir.to_path_buf()),
            proved,
            turns,
        })
    }

    /// What the proofs prove of exactly these rules (pie rule included) and this
    /// position, if anything: a proof's root, or a position in the middle of a turn.
    pub fn find(&self, rules: &Rules, pos: &Position) -> Option<&Proved> {
        self.proved
            .iter()
            .chain(&self.turns)
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

/// What the proof in `dir` proves, as `kalah prove --status` derives it (its moves in pit
/// order, until [`narrow`] sorts them); `None` for a front end without first moves.
/// Nothing is written: a proof is only read.
fn read(dir: &Path) -> Result<Option<Proved>, ProofError> {
    let proof = Proof::open(dir)?;
    let st = proof.load()?;
    let cs = Check::new(&proof).load(&st)?;
    let second = SecondAnswers {
        needed: cs.units.len(),
        confirmed: cs.count(Verdict::Confirmed),
        disagree: cs.count(Verdict::Disagrees),
    };
    let m = &proof.manifest;
    let game = Game::new(m.rules);
    let mut moves: Vec<ProvedMove> = proof
        .first_moves(&st)
        .into_iter()
        .map(|mv| ProvedMove {
            after: m.position.play(&game, mv.pit).0,
            text: mv.text,
            margins: mv.margins,
            certified: false,
        })
        .collect();
    if moves.is_empty() {
        return Ok(None);
    }
    let value = proof.margins(st.tree.front.interval(st.tree.front.root, &st.know));
    let certified = second.complete();
    if certified {
        certify_best(m.position, value, &mut moves);
    }
    Ok(Some(Proved {
        dir: dir.to_path_buf(),
        rules: m.rules,
        position: m.position,
        value,
        second: Some(second),
        certified,
        moves,
    }))
}

/// Marks certified the move that attains `value`, the certified exact value of `pos`,
/// where it is the only move whose proved bound reaches it from the mover's side: the
/// root's lower bound (for the mover) then rests on that move alone, and its upper bound
/// on every move. Where several moves reach it, the needed units may prove any one of
/// them, and none is marked.
fn certify_best(pos: Position, value: Interval, moves: &mut [ProvedMove]) {
    if !value.is_exact() {
        return;
    }
    let sign = pos.to_move.sign();
    // The mover's own lower bound on a move reaches the root's value.
    let reaches = |iv: &Interval| (sign * iv.lo).min(sign * iv.hi) >= sign * value.lo;
    let mut attaining = moves.iter_mut().filter(|m| reaches(&m.margins));
    if let (Some(best), None) = (attaining.next(), attaining.next()) {
        best.certified = best.margins == value;
    }
}

/// Best first for the side to move at `pos`: the highest upper bound from its side, then
/// the highest lower bound (an exact best move before moves merely bounded by it).
fn best_first(pos: Position, moves: &mut [ProvedMove]) {
    let sign = pos.to_move.sign();
    let mover = |iv: &Interval| {
        let (a, b) = (sign * iv.lo, sign * iv.hi);
        (a.max(b), a.min(b))
    };
    moves.sort_by_key(|mv| std::cmp::Reverse(mover(&mv.margins)));
}

/// Each first move's bounds narrowed by the proof whose root is the position the move
/// leads to, under the same rules (the proof of a first move of the Kalah(6,6) start,
/// say): both bound the same value, so it lies in both, and the move is exact once
/// either proof makes it so. Bounds that do not overlap are an error. A move whose
/// value is its own proof's certified exact root value is certified.
fn narrow(proved: &mut [Proved]) -> Result<(), ProofsError> {
    struct Root {
        rules: Rules,
        position: Position,
        value: Interval,
        dir: PathBuf,
        certified: bool,
    }
    let roots: Vec<Root> = proved
        .iter()
        .map(|p| Root {
            rules: p.rules,
            position: p.position,
            value: p.value,
            dir: p.dir.clone(),
            certified: p.certified,
        })
        .collect();
    for p in proved.iter_mut() {
        for mv in &mut p.moves {
            let same = |r: &&Root| r.rules == p.rules && r.position == mv.after;
            for r in roots.iter().filter(same) {
                let lo = mv.margins.lo.max(r.value.lo);
                let hi = mv.margins.hi.min(r.value.hi);
                if lo > hi {
                    return Err(ProofsError::Contradiction {
                        first: p.dir.clone(),
                        second: r.dir.clone(),
                        position: r.position,
                        a: mv.margins,
                        b: r.value,
                    });
                }
                mv.margins = Interval { lo, hi };
                if r.certified && r.value.is_exact() {
                    mv.certified = true;
                }
            }
        }
        best_first(p.position, &mut p.moves);
    }
    Ok(())
}

/// The positions in the middle of a turn below a proof's root (the Kalah(6,6) start's
/// A1+, after which South moves again) that the proofs also answer: one whose own moves
/// lead to roots of proofs (of the whole first turns A1+ A2 .. A1+ A6, say). Its value is
/// the free move's interval; each of its moves is narrowed by the proof of the position
/// it leads to where there is one, and otherwise bounded only by that value (the mover
/// can do no better than the position is worth). A position with a proof of its own, or
/// none of whose moves has one, is left out.
fn turns_on(proved: &[Proved]) -> Result<Vec<Proved>, ProofsError> {
    let root_of = |rules: &Rules, pos: &Position| {
        proved
            .iter()
            .find(|p| p.rules == *rules && p.position == *pos)
    };
    let mut turns: Vec<Proved> = Vec::new();
    for p in proved {
        let game = Game::new(p.rules);
        for mv in &p.moves {
            let pos = mv.after;
            let repeated = turns
                .iter()
                .any(|t| t.rules == p.rules && t.position == pos);
            if pos.to_move != p.position.to_move
                || pos.is_over(&game)
                || root_of(&p.rules, &pos).is_some()
                || repeated
            {
                continue;
            }
            let value = mv.margins;
            let mut moves = Vec::new();
            let mut answered = false;
            let mut mask = game.legal_mask(&pos.board());
            while mask != 0 {
                let pit = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let (after, step) = pos.play(&game, pit);
                let seeds = after.board_seeds() as i32;
                let (lo, hi) = (after.store_margin() - seeds, after.store_margin() + seeds);
                let mut certified = false;
                let mut margins = match pos.to_move.sign() {
                    1 => Interval {
                        lo,
                        hi: hi.min(value.hi),
                    },
                    _ => Interval {
                        lo: lo.max(value.lo),
                        hi,
                    },
                };
                if let Some(q) = root_of(&p.rules, &after) {
                    answered = true;
                    let (lo, hi) = (margins.lo.max(q.value.lo), margins.hi.min(q.value.hi));
                    if lo > hi {
                        return Err(ProofsError::Contradiction {
                            first: p.dir.clone(),
                            second: q.dir.clone(),
                            position: after,
                            a: margins,
                            b: q.value,
                        });
                    }
                    margins = Interval { lo, hi };
                    certified = q.certified && q.value.is_exact();
                }
                moves.push(ProvedMove {
                    text: MoveText::annotated(pos.to_move, pit, &step),
                    margins,
                    after,
                    certified,
                });
            }
            if answered {
                best_first(pos, &mut moves);
                turns.push(Proved {
                    dir: p.dir.clone(),
                    rules: p.rules,
                    position: pos,
                    value,
                    second: None,
                    certified: mv.certified,
                    moves,
                });
            }
        }
    }
    Ok(turns)
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

    /// A proof of `pos` proving `value`, with the given first moves' bounds.
    fn proved(dir: &str, pos: Position, value: Interval, moves: &[(usize, Interval)]) -> Proved {
        let rules = Rules::kalah(3, 2).unwrap();
        let game = Game::new(rules);
        Proved {
            dir: PathBuf::from(dir),
            rules,
            position: pos,
            value,
            second: None,
            certified: false,
            moves: moves
                .iter()
                .map(|&(pit, margins)| {
                    let (after, step) = pos.play(&game, pit);
                    ProvedMove {
                        text: MoveText::annotated(pos.to_move, pit, &step),
                        margins,
                        after,
                        certified: false,
                    }
                })
                .collect(),
        }
    }

    #[test]
    fn a_move_is_narrowed_by_the_proof_of_the_position_it_leads_to() {
        let rules = Rules::kalah(3, 2).unwrap();
        let start = Position::start(&rules);
        let after = |pit| start.play(&Game::new(rules), pit).0;
        let wide = Interval { lo: -12, hi: 2 };
        let mut all = vec![
            proved(
                "root",
                start,
                Interval::exact(2),
                &[(0, Interval::exact(2)), (1, wide), (2, wide)],
            ),
            proved("second", after(1), Interval { lo: -4, hi: 0 }, &[]),
            proved("third", after(2), Interval::exact(-2), &[]),
        ];
        narrow(&mut all).unwrap();
        let m = |pit: usize| {
            all[0]
                .moves
                .iter()
                .find(|m| m.text.pit == pit)
                .unwrap()
                .margins
        };
        assert_eq!(m(1), Interval::exact(2));
        assert_eq!(m(2), Interval { lo: -4, hi: 0 });
        assert_eq!(m(3), Interval::exact(-2));
        // Best first for South: the exact best, then the higher bounds.
        let order: Vec<usize> = all[0].moves.iter().map(|m| m.text.pit).collect();
        assert_eq!(order, [1, 2, 3]);
        // Bounds that cannot both hold are refused, naming both proofs.
        let mut bad = vec![
            proved(
                "root",
                start,
                Interval::exact(2),
                &[(1, Interval { lo: 1, hi: 2 })],
            ),
            proved("second", after(1), Interval { lo: -4, hi: 0 }, &[]),
        ];
        let e = narrow(&mut bad).unwrap_err();
        assert!(e.to_string().contains("root and second"), "{e}");
    }

    #[test]
    fn a_move_is_certified_only_by_a_certified_proof_that_makes_it_exact() {
        let rules = Rules::kalah(3, 2).unwrap();
        let start = Position::start(&rules);
        let after = |pit| start.play(&Game::new(rules), pit).0;
        let wide = Interval { lo: -12, hi: 2 };
        let certified = |mut p: Proved| {
            p.certified = true;
            p
        };
        let mut all = vec![
            proved(
                "root",
                start,
                Interval::exact(2),
                &[(0, wide), (1, wide), (2, wide)],
            ),
            certified(proved("exact", after(0), Interval::exact(-2), &[])),
            proved("unchecked", after(1), Interval::exact(0), &[]),
            certified(proved("bounds", after(2), Interval { lo: -4, hi: 0 }, &[])),
        ];
        narrow(&mut all).unwrap();
        let c = |pit: usize| {
            let m = all[0].moves.iter().find(|m| m.text.pit == pit).unwrap();
            (m.margins.is_exact(), m.certified)
        };
        assert_eq!(c(1), (true, true));
        assert_eq!(
            c(2),
            (true, false),
            "exact, but its proof has open second answers"
        );
        assert_eq!(c(3), (false, false), "a certified proof, but only bounds");
    }

    #[test]
    fn the_best_move_of_a_certified_root_is_certified_where_it_alone_attains_the_value() {
        let rules = Rules::kalah(3, 2).unwrap();
        let start = Position::start(&rules);
        let wide = Interval { lo: -12, hi: 2 };
        let certified_pits = |moves: &[(usize, Interval)]| {
            let mut p = proved("root", start, Interval::exact(2), moves);
            certify_best(start, p.value, &mut p.moves);
            let pits: Vec<usize> = p
                .moves
                .iter()
                .filter(|m| m.certified)
                .map(|m| m.text.pit)
                .collect();
            pits
        };
        // Pits count from 1 in the move's text: index 0 is A1.
        assert_eq!(
            certified_pits(&[(0, Interval::exact(2)), (1, wide), (2, wide)]),
            [1]
        );
        // Two moves attain the value: the needed units may prove either, so neither.
        let two = certified_pits(&[(0, Interval::exact(2)), (1, Interval::exact(2)), (2, wide)]);
        assert!(two.is_empty(), "{two:?}");
        // North to move (after A1, which does not reach the store): the mover's bound
        // is the upper one.
        let north = start.play(&Game::new(rules), 0).0;
        assert_ne!(north.to_move, start.to_move);
        let mut p = proved(
            "north",
            north,
            Interval::exact(-2),
            &[(0, Interval::exact(-2)), (1, Interval { lo: -2, hi: 12 })],
        );
        certify_best(north, p.value, &mut p.moves);
        let marks: Vec<bool> = p.moves.iter().map(|m| m.certified).collect();
        assert_eq!(marks, [true, false]);
    }

    #[test]
    fn a_free_move_is_answered_from_the_proofs_of_the_turns_it_leads_to() {
        // Kalah(3,2): A2 (2 seeds) ends in the store, and South moves again.
        let rules = Rules::kalah(3, 2).unwrap();
        let game = Game::new(rules);
        let start = Position::start(&rules);
        let mid = start.play(&game, 1).0;
        assert_eq!(mid.to_move, start.to_move);
        let a1 = mid.play(&game, 0).0;
        let mut all = vec![
            proved(
                "root",
                start,
                Interval::exact(2),
                &[(1, Interval::exact(2)), (0, Interval { lo: -12, hi: 2 })],
            ),
            proved("turn", a1, Interval { lo: 0, hi: 1 }, &[]),
        ];
        narrow(&mut all).unwrap();
        let turns = turns_on(&all).unwrap();
        assert_eq!(turns.len(), 1);
        let t = &turns[0];
        assert_eq!((t.position, t.value), (mid, Interval::exact(2)));
        // A1 from its proof; A3, without one, at most the position's value.
        let m = |pit: usize| t.moves.iter().find(|m| m.text.pit == pit).unwrap().margins;
        assert_eq!(m(1), Interval { lo: 0, hi: 1 });
        assert_eq!(m(3).hi, 2);
        assert_eq!(t.moves.len(), 2);
        // Nothing below the root without a proof of a move there.
        assert!(turns_on(&all[..1]).unwrap().is_empty());
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
