//! A proof directory: everything a proof knows, on disk, shared by its workers.
//!
//! ```text
//! DIR/proof.txt         the manifest: rules, root position, front-end depth, first guess
//! DIR/results/*.kpr     the results, one file a worker process (see journal)
//! DIR/claims/<unit>     the units being worked on (see claim); not worth keeping
//! ```
//!
//! Nothing else is state: the front end is expanded again from the manifest and the
//! splits recorded in the results by every process, and what is proved is re-derived
//! from the results each time they are read ([`Proof::load`]), so a directory copied,
//! committed or moved to another machine goes on where it stopped.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::claim::Claims;
use super::error::{io, ProofError};
use super::journal::{self, Kind, Record};
use super::manifest::{Manifest, MANIFEST, MAX_DEPTH};
use super::task::{Desk, Next, Pending, Serves, Task};
use super::tree::{FrontEnd, Interval, Knowledge, Target};
use crate::board::Board;
use crate::game::Game;
use crate::notation::MoveText;
use crate::position::Position;

const RESULTS: &str = "results";
const CLAIMS: &str = "claims";

/// A proof directory, opened.
pub struct Proof {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub game: Game,
    id: u64,
    /// The front end of the latest set of splits read, expanded once for it.
    cache: Mutex<Option<Arc<Expanded>>>,
}

/// A front end and where each of its boards stands in it.
#[derive(Debug)]
pub struct Expanded {
    /// The split boards it was expanded with, sorted.
    splits: Vec<u128>,
    pub front: FrontEnd,
    places: HashMap<u128, Vec<Target>>,
}

/// A first move of a proof's root and what the proof proves of it.
#[derive(Clone, Debug)]
pub struct FirstMove {
    /// The pit played, 0-based in the mover's row.
    pub pit: usize,
    /// As the move notation writes it (`A1+`).
    pub text: MoveText,
    /// The final margin after it and perfect play lies within these proved bounds.
    pub margins: Interval,
}

/// What the results prove, read from every results file.
#[derive(Debug, Clone)]
pub struct State {
    /// The front end as the results' splits shape it.
    pub tree: Arc<Expanded>,
    /// Proved bounds on each board's value.
    pub know: Knowledge,
    /// Every record read, file by file.
    pub records: Vec<Record>,
    /// Where each of `records` was read: an index into `paths` and the record's index in
    /// its file.
    pub origins: Vec<(usize, usize)>,
    /// The results files read, in the order read (by name).
    pub paths: Vec<PathBuf>,
    /// The distinct questions answered, by board and `beta`: each unit counts once,
    /// however many workers answered it.
    pub answered: HashSet<(u128, i32)>,
    /// The distinct boards split.
    pub splits: usize,
    /// CPU milliseconds spent on units stopped at the budget and split.
    pub split_cpu_millis: u64,
    /// Records that answer a question answered before (two workers raced on one unit).
    pub duplicates: usize,
    pub nodes: u64,
    /// Wall-clock milliseconds of the searches, summed over units.
    pub millis: u64,
    /// CPU milliseconds of the workers during the units' searches, summed over units.
    pub cpu_millis: u64,
    /// Torn final records dropped (the units are solved again).
    pub warnings: Vec<String>,
    pub files: usize,
}

impl Proof {
    /// Create `dir` for `manifest`; an existing proof there is an error (open it instead).
    pub fn create(dir: &Path, manifest: Manifest) -> Result<Proof, ProofError> {
        let r = &manifest.rules;
        if r.can_cycle() {
            return Err(ProofError::Refused(
                "clockwise sowing can repeat positions, which the search behind a proof \
                 cannot solve; use kalah solve (retrograde analysis)"
                    .into(),
            ));
        }
        if r.pie {
            return Err(ProofError::Refused(
                "kalah prove settles the position's value without the pie rule; \
                 solve the position after each whole first turn instead"
                    .into(),
            ));
        }
        if manifest.depth > MAX_DEPTH {
            return Err(ProofError::Refused(format!(
                "--depth {} is more than {MAX_DEPTH}",
                manifest.depth
            )));
        }
        if dir.exists() && !dir.is_dir() {
            return Err(ProofError::Refused(format!(
                "{} is not a directory: give a new or existing proof directory",
                dir.display()
            )));
        }
        let man = dir.join(MANIFEST);
        if man.exists() {
            return Err(ProofError::Refused(format!(
                "{} exists already: resume it without --init",
                man.display()
            )));
        }
        for sub in [RESULTS, CLAIMS] {
            let p = dir.join(sub);
            std::fs::create_dir_all(&p).map_err(io(&p))?;
        }
        let ignore = dir.join(".gitignore");
        std::fs::write(&ignore, "claims/\n").map_err(io(&ignore))?;
        let tmp = dir.join(format!("{MANIFEST}.tmp-{}", std::process::id()));
        std::fs::write(&tmp, manifest.text()).map_err(io(&tmp))?;
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(io(&tmp))?;
        std::fs::rename(&tmp, &man).map_err(io(&man))?;
        journal::sync_dir(dir).map_err(io(dir))?;
        Proof::open(dir)
    }

    /// Open the proof in `dir`.
    pub fn open(dir: &Path) -> Result<Proof, ProofError> {
        let man = dir.join(MANIFEST);
        let text = journal::read_regular(&man)
            .and_then(|b| String::from_utf8(b).map_err(std::io::Error::other))
            .map_err(|e| ProofError::Manifest {
                path: dir.to_path_buf(),
                reason: format!("cannot read {MANIFEST}: {e}"),
            })?;
        let manifest = Manifest::parse(&text).map_err(|reason| ProofError::Manifest {
            path: man.clone(),
            reason,
        })?;
        let game = Game::new(manifest.rules);
        Ok(Proof {
            dir: dir.to_path_buf(),
            id: manifest.id(),
            manifest,
            game,
            cache: Mutex::new(None),
        })
    }

    /// The front end expanded with `splits`, from the cache when they have not changed.
    fn expanded(&self, splits: &HashSet<u128>) -> Arc<Expanded> {
        let mut sorted: Vec<u128> = splits.iter().copied().collect();
        sorted.sort_unstable();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = cache.as_ref().filter(|e| e.splits == sorted) {
            return Arc::clone(e);
        }
        let front = FrontEnd::expand(
            &self.game,
            &self.manifest.position.board(),
            self.manifest.depth,
            splits,
        );
        let places = front.places();
        let e = Arc::new(Expanded {
            splits: sorted,
            front,
            places,
        });
        *cache = Some(Arc::clone(&e));
        e
    }

    pub fn results_dir(&self) -> PathBuf {
        self.dir.join(RESULTS)
    }

    pub fn claims(&self, worker: &str, lease: Duration) -> Claims {
        Claims::new(&self.dir.join(CLAIMS), worker, lease)
    }

    /// Read every results file and derive what is proved. A record that does not belong
    /// to this proof (another proof's id, a board outside the front end, an answer outside
    /// the board's limits), a damaged record before the end of a file, or answers that
    /// contradict each other are errors; a torn final record is a warning.
    pub fn load(&self) -> Result<State, ProofError> {
        let dir = self.results_dir();
        let files = journal::files_in(&dir).map_err(io(&dir))?;
        let mut read = Vec::with_capacity(files.len());
        let mut warnings = Vec::new();
        let mut splits = HashSet::new();
        for path in &files {
            let out = journal::read(path, |r| self.check_record(r))?;
            warnings.extend(out.torn);
            splits.extend(
                out.records
                    .iter()
                    .filter(|r| r.kind == Kind::Split)
                    .map(|r| r.board_key),
            );
            read.push((path, out.records));
        }
        let tree = self.expanded(&splits);
        let mut st = State {
            know: tree.front.unknown(),
            tree: Arc::clone(&tree),
            records: Vec::new(),
            answered: HashSet::new(),
            splits: splits.len(),
            split_cpu_millis: 0,
            duplicates: 0,
            nodes: 0,
            millis: 0,
            cpu_millis: 0,
            warnings,
            files: files.len(),
            origins: Vec::new(),
            paths: files.clone(),
        };
        for (file, (path, records)) in read.into_iter().enumerate() {
            for (index, r) in records.into_iter().enumerate() {
                let Some(places) = tree.places.get(&r.board_key) else {
                    return Err(ProofError::UnknownBoard {
                        board: self.position_of(&Board::from_key(r.board_key)),
                        path: path.clone(),
                    });
                };
                match r.kind {
                    Kind::Split => st.split_cpu_millis += u64::from(r.cpu_millis),
                    Kind::Answer => {
                        if !st.answered.insert((r.board_key, r.beta.into())) {
                            st.duplicates += 1;
                        }
                        for &at in places {
                            if !st.know.learn(at, r.beta.into(), r.result.into()) {
                                let iv = st.know.of(at);
                                return Err(ProofError::Contradiction {
                                    board: self.position_of(&Board::from_key(r.board_key)),
                                    lo: iv.lo,
                                    hi: iv.hi,
                                    path: path.clone(),
                                });
                            }
                        }
                    }
                }
                st.nodes += r.nodes;
                st.millis += u64::from(r.millis);
                st.cpu_millis += u64::from(r.cpu_millis);
                st.records.push(r);
                st.origins.push((file, index));
            }
        }
        // What a split board's answers proved and what its moves prove must meet.
        if let Some(n) = tree.front.contradiction(&st.know) {
            let iv = st.know.nodes[n];
            return Err(ProofError::Contradiction {
                board: self.position_of(&tree.front.nodes[n].board),
                lo: iv.lo,
                hi: iv.hi,
                path: self.results_dir(),
            });
        }
        Ok(st)
    }

    /// Whether `r` can be a record of this proof: its id, and an answer within its board's
    /// limits. (Whether its board is in the front end is known once every file's splits
    /// are read.)
    fn check_record(&self, r: &Record) -> Result<(), String> {
        record_fits(r, self.id)
    }

    /// A board as a position string (stores empty, its mover as South).
    pub fn position_of(&self, board: &Board) -> String {
        Position::from_board(
            self.game.pits(),
            board,
            crate::position::Side::South,
            [0, 0],
        )
        .to_string()
    }

    /// Each first move of the root (pit order) and its proved final-margin interval, as
    /// `st` proves it; none when the front end has no interior (depth 0).
    pub fn first_moves(&self, st: &State) -> Vec<FirstMove> {
        let front = &st.tree.front;
        let Target::Node(n) = front.root else {
            return Vec::new();
        };
        let side = self.manifest.position.to_move;
        front.nodes[n]
            .moves
            .iter()
            .map(|m| FirstMove {
                pit: m.pit,
                text: MoveText::annotated(side, m.pit, &m.step),
                margins: self.margins(front.move_interval(m, &st.know)),
            })
            .collect()
    }

    /// A final-margin interval from one on the root mover's future gain.
    pub fn margins(&self, gain: Interval) -> Interval {
        let pos = &self.manifest.position;
        let (sm, sign) = (pos.store_margin(), pos.to_move.sign());
        let (a, b) = (sm + sign * gain.lo, sm + sign * gain.hi);
        Interval {
            lo: a.min(b),
            hi: a.max(b),
        }
    }
}

/// A proof's work: its root settled exactly. A unit that a worker's search stops (past a
/// budget) is recorded as a split: its board's moves become the units.
impl Task for Proof {
    fn desk(&self) -> Result<Desk, ProofError> {
        Desk::open(self.results_dir(), self.dir.join(CLAIMS), self.id)
    }

    /// The open questions of the root's next MTD(f) test, in the front end's order.
    fn next(&self, guess: &mut dyn FnMut(&Board) -> Option<i32>) -> Result<Next, ProofError> {
        let st = self.load()?;
        let front = &st.tree.front;
        let root = front.interval(front.root, &st.know);
        let Some(beta) = FrontEnd::root_beta(root, self.manifest.guess) else {
            return Ok(Next::Done);
        };
        let pending = front
            .questions(beta, &st.know, guess)
            .into_iter()
            .map(|q| Pending {
                leaf: front.leaves[q.leaf as usize],
                question: q,
                serves: Serves::Root { beta },
            })
            .collect();
        Ok(Next::Open {
            pending,
            warnings: st.warnings,
        })
    }
}

/// Whether `r` can be a record stamped `id`: its id, and a question and answer within its
/// board's limits.
pub(super) fn record_fits(r: &Record, id: u64) -> Result<(), String> {
    if r.proof_id != id {
        return Err(format!(
            "it belongs to another proof (id {:016x}, this one is {:016x})",
            r.proof_id, id
        ));
    }
    let board = Board::from_key(r.board_key);
    let seeds = board.seeds() as i32;
    let (beta, res) = (i32::from(r.beta), i32::from(r.result));
    if beta.abs() > seeds + 1 || res.abs() > seeds {
        return Err(format!(
            "question {beta} or answer {res} outside the {seeds} seeds of its board"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::journal::Journal;
    use crate::proof::testing::{by_hand, manifest, opts, stopping};
    use crate::proof::worker::unit_name;
    use crate::proof::{answer, Event, Leaf, WorkOptions, WorkSummary, Worker};
    use crate::search::Solver;
    use crate::Capture;

    /// Work with units `stop` says to stop reported as stopped (a budget that ran out),
    /// the others answered by the search; returns the proved root and the summary.
    fn work(proof: &Proof, stop: impl FnMut(usize, &Leaf) -> bool) -> (Interval, WorkSummary) {
        let mut solver = Solver::new(&proof.game, 16).unwrap();
        let search = stopping(
            move |leaf, beta| answer(&mut solver, leaf, beta, 2, None),
            stop,
        );
        let summary = Worker::new("w".into(), opts(), search)
            .work(proof, &mut |_| {})
            .unwrap();
        let st = proof.load().unwrap();
        let front = &st.tree.front;
        (front.interval(front.root, &st.know), summary)
    }

    fn value(m: &Manifest) -> i32 {
        let game = Game::new(m.rules);
        Solver::new(&game, 16).unwrap().value(&m.position.board())
    }

    #[test]
    fn split_units_deepen_the_front_end_and_the_root_closes_at_the_search_value() {
        for (pits, seeds, capture, depth) in [
            (4, 3, Capture::Standard, 1),
            (4, 4, Capture::Empty, 2),
            (5, 2, Capture::Standard, 0),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let m = manifest(pits, seeds, capture, depth);
            let expect = value(&m);
            let proof = Proof::create(dir.path(), m.clone()).unwrap();
            let leaves_before = proof.load().unwrap().tree.front.leaves.len();
            // Units 2, 3, 5 and 8 (in the order asked) stopped: their boards split,
            // some of them after answers about them were recorded.
            let (root, summary) = work(&proof, |i, _| [2, 3, 5, 8].contains(&i));
            assert!(root.is_exact(), "Kalah({pits},{seeds}) {capture}: {root:?}");
            assert_eq!(root.lo, expect, "Kalah({pits},{seeds}) {capture}");
            assert!(summary.complete);
            let st = proof.load().unwrap();
            assert_eq!(st.splits as u64, summary.splits);
            assert!(
                st.splits > 0,
                "Kalah({pits},{seeds}): some unit was stopped"
            );
            assert!(st.tree.front.leaves.len() > leaves_before || depth == 0);

            // A second process reads the same splits and the same value.
            let again = Proof::open(dir.path()).unwrap();
            let st2 = again.load().unwrap();
            let f = &st2.tree.front;
            assert_eq!(f.interval(f.root, &st2.know), root);
            assert_eq!(f.leaves.len(), st.tree.front.leaves.len());
        }
    }

    #[test]
    fn a_board_split_after_answers_keeps_what_they_proved() {
        // Every board with 20 seeds or more (of 24) is stopped the first time it is asked
        // about after the first few answers: the root is still settled exactly, and a
        // split node's own answers bound it.
        let dir = tempfile::tempdir().unwrap();
        let m = manifest(4, 3, Capture::Standard, 1);
        let expect = value(&m);
        let proof = Proof::create(dir.path(), m).unwrap();
        let mut seen = HashSet::new();
        let (root, summary) = work(&proof, |i, leaf| {
            i > 3 && leaf.seeds >= 20 && seen.insert(leaf.board.key())
        });
        assert_eq!(root, Interval::exact(expect));
        assert!(summary.splits > 0);
    }

    #[test]
    fn a_board_that_is_a_leaf_on_one_path_and_a_node_on_another_is_still_asked() {
        // Kalah(4,2) and (3,3) at depth 5 hold such boards (reached in fewer plies along
        // a line with a free move); a proof must close on them, not skip their units.
        for (pits, seeds) in [(4, 2), (3, 3)] {
            let dir = tempfile::tempdir().unwrap();
            let m = manifest(pits, seeds, Capture::Standard, 5);
            let expect = value(&m);
            let proof = Proof::create(dir.path(), m).unwrap();
            let st = proof.load().unwrap();
            assert!(st.tree.places.values().any(|at| {
                at.iter().any(|t| matches!(t, Target::Leaf(_)))
                    && at.iter().any(|t| matches!(t, Target::Node(_)))
            }));
            let (root, summary) = work(&proof, |_, _| false);
            assert!(summary.complete);
            assert_eq!(root, Interval::exact(expect), "Kalah({pits},{seeds})");
        }
    }

    #[test]
    fn a_worker_whose_claim_passes_to_another_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let proof = Proof::create(dir.path(), manifest(4, 3, Capture::Standard, 1)).unwrap();
        let mut solver = Solver::new(&proof.game, 16).unwrap();
        let claims = dir.path().join(CLAIMS);
        let mut warnings = Vec::new();
        let opts = WorkOptions {
            lease: Duration::from_millis(200),
            max_units: Some(1),
            ..opts()
        };
        let search = by_hand(|leaf, beta| {
            // Another worker takes the unit over mid-search.
            let name = unit_name(&leaf.board, beta);
            std::fs::write(claims.join(name), "worker v\nexpires 99999999999\n").unwrap();
            std::thread::sleep(Duration::from_millis(150));
            Ok(answer(&mut solver, leaf, beta, 2, None))
        });
        Worker::new("w".into(), opts, search)
            .work(&proof, &mut |ev| {
                if let Event::Warning(w) = ev {
                    warnings.push(w.to_string());
                }
            })
            .unwrap();
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("passed to another worker")),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_file_is_not_made_a_proof_directory() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let e = Proof::create(&file, manifest(4, 3, Capture::Standard, 1))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("is not a directory"), "{e}");
    }

    #[test]
    fn a_record_of_a_board_outside_the_front_end_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let proof = Proof::create(dir.path(), manifest(4, 3, Capture::Standard, 1)).unwrap();
        let mut j = Journal::create(&proof.results_dir().join("x.kpr")).unwrap();
        j.append(&Record {
            kind: Kind::Answer,
            proof_id: proof.id,
            board_key: Board::start(4, 2).key(),
            beta: 0,
            result: 1,
            millis: 0,
            nodes: 1,
            threads: 1,
            cpu_millis: 0,
        })
        .unwrap();
        let e = proof.load().unwrap_err().to_string();
        assert!(e.contains("not in this proof's front end"), "{e}");
    }
}
