//! A worker: the object that owns the loop which takes open units one at a time, answers
//! each with its search and records the answer, on a proof ([`super::Proof`]) or on its
//! second answers ([`super::Check`]) alike (see [`Task`]). Only [`Event`]s go up to the
//! caller: a unit's search is the [`Searcher`] the worker was given once.
//!
//! Each round reads what is proved, lists the open questions most urgent first, claims
//! the first that nobody holds ([`super::claim`]), reads again to see that it is still
//! open, searches it while a helper thread keeps the claim alive, appends the answer to
//! the worker's own results file and syncs it ([`super::journal`]), and only then drops
//! the claim. A round that finds every open question claimed by others waits and reads
//! again, so that the units of a worker that died are retaken once their leases expire.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::claim::{now_secs, ClaimInfo, Claims};
use super::error::{io, ProofError};
use super::journal::{self, Journal, Kind, Record};
use super::searcher::Searcher;
use super::task::{Desk, Next, Serves, Task};
use super::tree::Question;
use super::{process_cpu_millis, Outcome};
use crate::board::Board;

/// A worker: its name (which names its results file and its claims), how it runs, and
/// the search that answers its units.
pub struct Worker<'s> {
    name: String,
    opts: WorkOptions,
    searcher: Box<dyn Searcher + 's>,
}

impl<'s> Worker<'s> {
    /// A worker named `name` (unique among the workers sharing a directory: see
    /// [`worker_id`]) that answers its units with `searcher`.
    pub fn new(name: String, opts: WorkOptions, searcher: Box<dyn Searcher + 's>) -> Worker<'s> {
        Worker {
            name,
            opts,
            searcher,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Work on `task` until nothing is left to settle, or until the options say stop;
    /// `events` hears of each unit. A unit that the searcher reports
    /// [`Outcome::Stopped`] (past a budget) is recorded as a split: the task then lists
    /// the board's moves in its place. A search that cannot run stops the worker, its
    /// unit recorded as nothing and released for the next worker.
    pub fn work(
        &mut self,
        task: &dyn Task,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<WorkSummary, ProofError> {
        let desk = task.desk()?;
        drive(
            &self.name,
            &desk,
            &self.opts,
            task,
            &mut *self.searcher,
            events,
        )
    }
}

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkOptions {
    /// How long a claim lives without renewal (renewed every quarter of it).
    pub lease: Duration,
    /// How long to sleep while every open unit is claimed by others.
    pub poll: Duration,
    /// Stop after this many units (for measurements).
    pub max_units: Option<u64>,
    /// Wait for units claimed by others (to retake them if their worker dies) instead of
    /// returning when none is free.
    pub wait: bool,
    /// Search threads, recorded with each result.
    pub threads: u32,
}

/// What one worker's run did.
#[derive(Clone, Copy, Debug, Default)]
pub struct WorkSummary {
    pub units: u64,
    /// Units stopped at the budget and split.
    pub splits: u64,
    pub nodes: u64,
    /// Nothing is left to settle: the root is exact (a proof), every needed unit has its
    /// second answer (a check).
    pub complete: bool,
}

/// What a worker reports as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    Start {
        question: Question,
        /// What it is asked for.
        serves: Serves,
        /// Open questions of the round, this one included.
        open: usize,
    },
    Done {
        question: Question,
        result: i32,
        nodes: u64,
        seconds: f64,
    },
    /// A unit's search ran past the budget: stopped, and its board split.
    Split {
        question: Question,
        nodes: u64,
        seconds: f64,
    },
    /// Every open unit is claimed by another worker.
    Waiting {
        in_flight: usize,
        /// The claim file of the first open unit and what it says (`None` when it is
        /// gone by the time it is read), so that an operator can see whom the proof
        /// waits on and until when.
        first: Option<(PathBuf, Option<ClaimInfo>)>,
    },
    Warning(&'a str),
}

/// The worker's loop (see [`Worker::work`]): `task` lists the open questions, ordered by
/// `searcher`'s guesses, and `searcher` answers them.
fn drive(
    worker: &str,
    desk: &Desk,
    opts: &WorkOptions,
    task: &dyn Task,
    searcher: &mut dyn Searcher,
    events: &mut dyn FnMut(Event<'_>),
) -> Result<WorkSummary, ProofError> {
    let next = |searcher: &mut dyn Searcher| task.next(&mut |b: &Board| searcher.guess(b));
    let claims = Claims::new(&desk.claims, worker, opts.lease);
    let journal_path = desk
        .results
        .join(format!("{worker}.{}", journal::EXTENSION));
    let mut journal: Option<Journal> = None;
    let mut summary = WorkSummary::default();
    let mut warned = HashSet::new();
    loop {
        let pending = match next(searcher)? {
            Next::Done => {
                summary.complete = true;
                // Claims left by killed workers on answered units.
                for (unit, _) in claims.all().map_err(io(&desk.claims))? {
                    claims.clear(&unit);
                }
                return Ok(summary);
            }
            Next::Open { pending, warnings } => {
                for w in warnings {
                    if warned.insert(w.clone()) {
                        events(Event::Warning(&w));
                    }
                }
                pending
            }
        };
        if opts.max_units.is_some_and(|m| summary.units >= m) {
            return Ok(summary);
        }
        // The first open question that nobody holds: the list is in the order the
        // search would take, and is recomputed after every unit, so a lone worker goes
        // as alpha-beta would and several share out the open questions.
        let mut took = None;
        for p in &pending {
            let unit = unit_name(&p.leaf.board, p.question.beta);
            if claims.try_claim(&unit).map_err(io(&desk.claims))? {
                took = Some((*p, unit));
                break;
            }
        }
        let Some((p, unit)) = took else {
            if !opts.wait {
                return Ok(summary);
            }
            let first = pending.first().map(|p| {
                let unit = unit_name(&p.leaf.board, p.question.beta);
                let claim = claims.read(&unit);
                (desk.claims.join(unit), claim)
            });
            events(Event::Waiting {
                in_flight: pending.len(),
                first,
            });
            std::thread::sleep(opts.poll);
            continue;
        };
        // Answered, split or no longer needed between the read above and the claim?
        let open = match next(searcher)? {
            Next::Done => false,
            Next::Open { pending, .. } => pending
                .iter()
                .any(|q| q.leaf.board == p.leaf.board && q.question.beta == p.question.beta),
        };
        if !open {
            claims.release(&unit).map_err(io(&desk.claims))?;
            continue;
        }
        let q = p.question;
        events(Event::Start {
            question: q,
            serves: p.serves,
            open: pending.len(),
        });
        let t = Instant::now();
        let cpu = process_cpu_millis();
        let (answered, lost) = with_lease(&claims, &unit, opts.lease, || {
            searcher.answer(&p.leaf, q.beta)
        });
        let (outcome, nodes) = match answered {
            Ok(a) => a,
            Err(e) => {
                // Nothing is recorded: the unit is free for the next worker.
                claims.release(&unit).map_err(io(&desk.claims))?;
                return Err(e);
            }
        };
        if lost {
            events(Event::Warning(&format!(
                "the claim on unit {unit} passed to another worker while this one \
                 searched it: the unit may have been searched twice"
            )));
        }
        let millis = u32::try_from(t.elapsed().as_millis()).unwrap_or(u32::MAX);
        let cpu_millis =
            u32::try_from(process_cpu_millis().saturating_sub(cpu)).unwrap_or(u32::MAX);
        let (kind, result) = match outcome {
            Outcome::Bound(r) => (Kind::Answer, r),
            Outcome::Stopped => (Kind::Split, 0),
        };
        let record = Record {
            kind,
            proof_id: desk.id,
            board_key: p.leaf.board.key(),
            beta: to_i16(q.beta),
            result: to_i16(result),
            millis,
            nodes,
            threads: opts.threads,
            cpu_millis,
        };
        let j = match &mut journal {
            Some(j) => j,
            None => journal.insert(Journal::create(&journal_path).map_err(io(&journal_path))?),
        };
        j.append(&record).map_err(io(&journal_path))?;
        claims.release(&unit).map_err(io(&desk.claims))?;
        summary.nodes += nodes;
        let seconds = f64::from(millis) / 1000.0;
        if kind == Kind::Split {
            summary.splits += 1;
            events(Event::Split {
                question: q,
                nodes,
                seconds,
            });
        } else {
            summary.units += 1;
            events(Event::Done {
                question: q,
                result,
                nodes,
                seconds,
            });
        }
    }
}

/// Run `f` while a helper thread keeps the claim on `unit` alive; also whether a renewal
/// found the claim another worker's (a race, or a lease outlived).
fn with_lease<T>(claims: &Claims, unit: &str, lease: Duration, f: impl FnOnce() -> T) -> (T, bool) {
    let stop = AtomicBool::new(false);
    let lost = AtomicBool::new(false);
    let every = (lease / 4).max(Duration::from_millis(50));
    let out = std::thread::scope(|s| {
        s.spawn(|| {
            let mut last = Instant::now();
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(20).min(every));
                if last.elapsed() >= every {
                    // A failed renewal only risks a second worker on the unit.
                    if let Ok(false) = claims.renew(unit) {
                        lost.store(true, Ordering::Relaxed);
                    }
                    last = Instant::now();
                }
            }
        });
        let out = f();
        stop.store(true, Ordering::Relaxed);
        out
    });
    (out, lost.into_inner())
}

/// Values and bounds fit in i16: a board holds at most 255 seeds.
fn to_i16(v: i32) -> i16 {
    // Invariant: |v| <= seeds + 1 <= 256.
    i16::try_from(v).expect("a value within a board's seeds")
}

/// The claim file name of a unit, "is `board`'s value at least `beta`?": the board's key
/// in hexadecimal and `b<beta>`. Boards, not leaf numbers, name units: a split renumbers
/// the leaves, and workers that have read different splits must still agree on names.
pub fn unit_name(board: &Board, beta: i32) -> String {
    format!("{:032x}b{beta}", board.key())
}

/// A worker's name: host, process and start time, unique across machines sharing a
/// directory (it names the worker's results file and its claims).
pub fn worker_id() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "host".into());
    let host: String = host
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{host}-{}-{:x}{:08x}",
        std::process::id(),
        now_secs(),
        nanos
    )
}
