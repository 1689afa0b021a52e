//! `kalah fair`: every start within K moved seeds of the rules' start whose final margin
//! is 0 (or within `-D..=D`), settled by zero-window tests on threads across the starts,
//! resumable from a results file.
//!
//! Every value printed is a final margin, South's store minus North's at the very end of
//! perfect play, stores included; South moves first in every start.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use rayon::prelude::*;
use serde_json::json;
use solver::fair::list::{Entry, Header, List, ListError};
use solver::fair::{candidates, Candidate, Judge, Verdict};
use solver::{Position, Rules};

use crate::args::{pie_unused, read_text_file, RulesArgs, SearchArgs};
use crate::error::CliError;
use crate::progress::{ListBar, Progress};
use crate::setup::{checked, plan_error, table_and_backing};
use crate::view::signed;

/// The most seeds `--moved` may move: four already make millions of starts on six pits.
const MAX_MOVED: u32 = 4;

/// Starts settled between two `# cpu:` lines of the results file ([`Cost`]).
const CPU_EVERY: u64 = 20;

/// What a run has spent, written into its results file as comments the list reader
/// skips: a `# run:` line when the run starts and a `# cpu:` line every [`CPU_EVERY`]
/// starts settled and at the end, so that a list settled in pieces over many sessions
/// states its cost from its own file. A killed piece loses at most the starts since its
/// last `# cpu:` line; its CPU counts the whole process (set-up included, every thread).
struct Cost {
    wall: Instant,
    settled: AtomicU64,
}

impl Cost {
    fn start(
        file: &mut File,
        read_back: usize,
        todo: usize,
        threads: usize,
    ) -> std::io::Result<Cost> {
        writeln!(
            file,
            "# run: {read_back} read back, {todo} to settle, threads {threads}"
        )?;
        Ok(Cost {
            wall: Instant::now(),
            settled: AtomicU64::new(0),
        })
    }

    /// One more start settled (its line just written to `file`): a `# cpu:` line after
    /// every [`CPU_EVERY`].
    fn settled(&self, file: &mut File) -> std::io::Result<()> {
        let n = self.settled.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(CPU_EVERY) {
            self.line(file, n)?;
        }
        Ok(())
    }

    fn finish(&self, file: &mut File) -> std::io::Result<()> {
        self.line(file, self.settled.load(Ordering::Relaxed))
    }

    fn line(&self, file: &mut File, n: u64) -> std::io::Result<()> {
        writeln!(
            file,
            "# cpu: {n} settled in this run, {:.1} CPU s of the process, {:.1} s wall",
            solver::proof::process_cpu_millis() as f64 / 1000.0,
            self.wall.elapsed().as_secs_f64()
        )
    }
}

/// The largest results file read back.
const MAX_RESULTS_BYTES: u64 = 1 << 30;

/// Arguments of `kalah fair`.
#[derive(Args, Debug)]
pub struct FairArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Every start reached by moving at most K seeds of the start, one at a time, from a
    /// pit to another pit or to either store
    #[arg(long, value_name = "K", default_value_t = 2)]
    pub moved: u32,
    /// List the starts whose final margin is within -D..=D (each solved to print it)
    #[arg(long, value_name = "D", default_value_t = 0)]
    pub within: u32,
    /// Append each start settled to FILE, and skip those already there (resume after a
    /// kill; a last line cut short is dropped)
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Every start with its value or bound, not only those within the band
    #[arg(long)]
    pub all: bool,
    /// JSON lines on stdout, one per start listed, instead of the readable report
    #[arg(long, conflicts_with = "list")]
    pub json: bool,
    /// The list in the format of results/raw/fair/ (see solver::fair::list) on stdout
    #[arg(long)]
    pub list: bool,
    /// No progress display on stderr
    #[arg(long)]
    pub quiet: bool,
}

/// The results file: what an earlier run settled, and the file open for appending.
struct Results {
    known: Vec<Entry>,
    file: Mutex<File>,
}

/// Opens (or creates, writing `header`) the results file `path`: its whole lines are
/// read back, a last line without its line end is cut off the file, and a file for other
/// rules or another band is refused.
fn open_results(path: &Path, header: &Header) -> Result<Results, CliError> {
    let refuse = |why: String| CliError::BadOption(format!("--results {}: {why}", path.display()));
    let text = if path.exists() {
        read_text_file("--results", path, MAX_RESULTS_BYTES, "results file")?
    } else {
        String::new()
    };
    // Whole lines only: a kill may have cut the last one short.
    let whole = text.rfind('\n').map_or(0, |i| i + 1);
    let mut known = Vec::new();
    if whole > 0 {
        let list: List = text[..whole].parse().map_err(|e: ListError| match e {
            ListError::Line { line, why } => CliError::Data {
                what: format!("--results {}", path.display()),
                line,
                why,
            },
            e => refuse(format!("{e}: not a results file of kalah fair")),
        })?;
        if list.header.rules != header.rules || list.header.within != header.within {
            return Err(refuse(format!(
                "it holds the starts of {} within {}, not of {} within {}; give another file",
                list.header.rules, list.header.within, header.rules, header.within
            )));
        }
        known = list.entries;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| refuse(format!("cannot open it: {e}")))?;
    file.set_len(whole as u64)
        .map_err(|e| refuse(format!("cannot cut its last line: {e}")))?;
    if whole == 0 {
        (&file)
            .write_all(header.text().as_bytes())
            .map_err(|e| refuse(format!("cannot write it: {e}")))?;
    }
    Ok(Results {
        known,
        file: Mutex::new(file),
    })
}

/// What the run found, in the order of the candidates.
struct Found {
    verdicts: Vec<Option<Verdict>>,
    read_back: usize,
    nodes: u64,
}

/// Settles every candidate not in `results` on `threads` threads across the starts.
fn settle_all(
    all: &[Candidate],
    engine: &solver::Engine<'_>,
    a: &FairArgs,
    results: Option<&Results>,
    rules: &Rules,
) -> Result<Found, CliError> {
    let index: HashMap<Position, usize> = all
        .iter()
        .enumerate()
        .map(|(i, c)| (c.position, i))
        .collect();
    let mut verdicts: Vec<Option<Verdict>> = vec![None; all.len()];
    let mut read_back = 0;
    for e in results.map_or(&[][..], |r| &r.known) {
        if let Some(&i) = index.get(&e.position) {
            read_back += usize::from(verdicts[i].is_none());
            verdicts[i] = Some(e.verdict);
        }
    }
    let todo: Vec<usize> = (0..all.len()).filter(|&i| verdicts[i].is_none()).collect();
    let mut bar = ListBar::new(a.quiet, todo.len());
    bar.message(format!(
        "{rules}: {read_back} read back, {} to settle",
        todo.len()
    ));
    let cost = results
        .map(|r| {
            let mut f = r.file.lock().unwrap_or_else(|p| p.into_inner());
            Cost::start(&mut f, read_back, todo.len(), a.search.threads)
        })
        .transpose()
        .map_err(|e| results_error(a, e))?;
    let verdicts = Mutex::new(verdicts);
    let nodes = AtomicU64::new(0);
    let fair = AtomicU64::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.search.threads)
        .build()
        .map_err(|e| CliError::BadOption(format!("--threads {}: {e}", a.search.threads)))?;
    let settled: std::io::Result<()> = pool.install(|| {
        todo.par_iter().try_for_each_init(
            || Judge::of(engine),
            |judge, &i| {
                let before = judge.nodes();
                let c = &all[i];
                let verdict = judge.settle(&c.position, a.within);
                nodes.fetch_add(judge.nodes() - before, Ordering::Relaxed);
                if let Some(r) = results {
                    let line = Entry {
                        moved: c.moved,
                        position: c.position,
                        verdict,
                    };
                    let mut f = r.file.lock().unwrap_or_else(|p| p.into_inner());
                    f.write_all(format!("{line}\n").as_bytes())?;
                    if let Some(cost) = &cost {
                        cost.settled(&mut f)?;
                    }
                }
                if verdict.is_within(a.within) {
                    fair.fetch_add(1, Ordering::Relaxed);
                }
                verdicts.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(verdict);
                bar.step();
                bar.message(format!(
                    "{} within {} so far",
                    fair.load(Ordering::Relaxed),
                    a.within
                ));
                Ok(())
            },
        )
    });
    bar.finish();
    let settled = settled.and_then(|()| match (results, &cost) {
        (Some(r), Some(cost)) => cost.finish(&mut r.file.lock().unwrap_or_else(|p| p.into_inner())),
        _ => Ok(()),
    });
    settled.map_err(|e| results_error(a, e))?;
    Ok(Found {
        verdicts: verdicts.into_inner().unwrap_or_else(|p| p.into_inner()),
        read_back,
        nodes: nodes.into_inner(),
    })
}

/// A failed write of the results file (or of stdout, without one).
fn results_error(a: &FairArgs, e: std::io::Error) -> CliError {
    match &a.results {
        Some(p) => CliError::BadOption(format!("--results {}: cannot write it: {e}", p.display())),
        None => CliError::Io(e),
    }
}

/// `kalah fair`.
pub fn run(a: &FairArgs) -> Result<(), CliError> {
    let rules = a.rules.rules()?;
    if rules.pie {
        return Err(pie_unused("fair"));
    }
    if a.moved > MAX_MOVED {
        return Err(CliError::BadOption(format!(
            "--moved {}: at most {MAX_MOVED} (more makes too many starts to settle)",
            a.moved
        )));
    }
    let start = Position::start(&rules);
    let header = Header {
        rules: rules.to_string(),
        within: a.within,
        moved: a.moved,
    };
    let results = a
        .results
        .as_deref()
        .map(|p| open_results(p, &header))
        .transpose()?;
    let all = candidates(&rules, a.moved);
    let progress = Progress::new(a.quiet, &format!("fair starts of {rules}"));
    let (table, back) = table_and_backing(rules, rules.total_seeds(), &a.search, false, &progress)?;
    progress.finish();
    let engine = back.engine(table, None).map_err(plan_error)?;
    let t = Instant::now();
    let found = settle_all(&all, &engine, a, results.as_ref(), &rules)?;
    checked(&back, Ok(()), a.search.db.as_deref(), &start)?;
    let seconds = t.elapsed().as_secs_f64();
    report(a, &rules, &header, &all, &found, seconds)
}

/// `println!` that returns an error instead of panicking when stdout is closed.
macro_rules! say {
    ($($t:tt)*) => {{
        writeln!(std::io::stdout().lock(), $($t)*)?;
    }};
}

/// Prints what was found: the starts within the band (every start with `--all`).
fn report(
    a: &FairArgs,
    rules: &Rules,
    header: &Header,
    all: &[Candidate],
    found: &Found,
    seconds: f64,
) -> Result<(), CliError> {
    let entries: Vec<Entry> = all
        .iter()
        .zip(&found.verdicts)
        .filter_map(|(c, v)| {
            v.map(|verdict| Entry {
                moved: c.moved,
                position: c.position,
                verdict,
            })
        })
        .collect();
    let within: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.verdict.is_within(a.within))
        .collect();
    let shown: Vec<&Entry> = if a.all {
        entries.iter().collect()
    } else {
        within.clone()
    };
    if a.json {
        for e in &shown {
            let mut obj = json!({
                "rules": header.rules,
                "position": e.position.to_string(),
                "moved": e.moved,
            });
            match e.verdict {
                Verdict::Exact(m) => obj["value"] = json!(m),
                Verdict::Outside(b) => {
                    obj["bound"] = json!(if b.at_least { "at_least" } else { "at_most" });
                    obj["margin"] = json!(b.margin);
                }
            }
            say!("{obj}");
        }
        return Ok(());
    }
    if a.list {
        let args: Vec<String> = std::env::args().skip(1).collect();
        say!("{}", header.text().trim_end());
        say!("# command: kalah {}", args.join(" "));
        say!(
            "# {} starts within {} moved seeds; {} listed",
            all.len(),
            a.moved,
            shown.len()
        );
        for e in &shown {
            say!("{e}");
        }
        return Ok(());
    }
    let per_k = |list: &[&Entry], k: u32| list.iter().filter(|e| e.moved == k).count();
    let every: Vec<&Entry> = entries.iter().collect();
    let counts = |list: &[&Entry]| {
        (0..=a.moved)
            .map(|k| format!("{} with {k} moved", per_k(list, k)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let band = match a.within {
        0 => "final margin 0".to_string(),
        d => format!("final margin within -{d}..={d}"),
    };
    say!("rules:    {rules}");
    say!(
        "starts:   {} within {} moved seeds of the start ({}); South moves first",
        all.len(),
        a.moved,
        counts(&every)
    );
    say!(
        "fair:     {} with {band} ({})",
        within.len(),
        counts(&within)
    );
    if within.is_empty() {
        say!(
            "          none: every start within {} moved seeds is decided by more than {} \
             (kalah fair --within D lists the nearest)",
            a.moved,
            a.within
        );
    }
    if !shown.is_empty() {
        say!("  {:>5}  {:<40} {:>8}", "moved", "position", "margin");
        for e in &shown {
            let value = match e.verdict {
                Verdict::Exact(m) => signed(m),
                Verdict::Outside(b) => {
                    format!(
                        "{}{}",
                        if b.at_least { ">=" } else { "<=" },
                        signed(b.margin)
                    )
                }
            };
            say!(
                "  {:>5}  {:<40} {:>8}",
                e.moved,
                e.position.to_string(),
                value
            );
        }
    }
    say!(
        "settled:  {} starts ({} read back from the results file), {} nodes, {seconds:.2}s",
        entries.len(),
        found.read_back,
        found.nodes
    );
    Ok(())
}
