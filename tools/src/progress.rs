//! The progress display on stderr of the commands that search: a spinner with a status
//! message and lines above it on a terminal, plain lines otherwise; and the counting bar
//! of the commands that work through a list ([`ListBar`]).
//!
//! A search that runs for hours shows that it is alive through a node counter
//! ([`Progress::watch`], fed by [`Solver::with_node_counter`]): after the status message
//! come the nodes searched so far, the nodes per second since the message was set, and the
//! time since then, refreshed every [`TICK`] by a thread of the display's own. indicatif
//! draws nothing where stderr is not a terminal (a log file, a batch job), so there the
//! lines are written as they are, and the status as a line of its own every
//! [`PLAIN_EVERY`], after the time since the display began, as the spinner shows it:
//! `[01:02:03] exact: testing margin >= +8  [123456789 nodes, 2000000 nodes/s, 62s]`.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use solver::Solver;

/// How often a terminal's status line is redrawn with the counter's figures.
pub const TICK: Duration = Duration::from_secs(1);

/// How often the status is written as a plain line where stderr is not a terminal.
pub const PLAIN_EVERY: Duration = Duration::from_secs(30);

/// A progress display on stderr: a spinner with a status message, and lines above it.
/// Silent when quiet.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// When the display was made: the plain status lines' clock, as the spinner's.
    began: Instant,
    status: Arc<Mutex<Status>>,
    /// The thread that refreshes the status with the counter's figures, once a search is
    /// watched.
    ticker: Mutex<Option<Ticker>>,
}

/// The status message, and what the counter's figures are measured from.
struct Status {
    message: String,
    /// The counter of [`Progress::watch`], once a search is watched.
    counter: Option<Arc<AtomicU64>>,
    /// When the message was set, and the counter's reading then.
    since: Instant,
    nodes_then: u64,
}

impl Status {
    /// The message, followed by the counter's figures when a search is watched.
    fn line(&self) -> String {
        match &self.counter {
            None => self.message.clone(),
            Some(c) => live_line(
                &self.message,
                c.load(Ordering::Relaxed),
                self.nodes_then,
                self.since.elapsed(),
            ),
        }
    }
}

/// `message` with the counter's figures: `nodes` in all, of which those above
/// `nodes_then` were searched in the `since` since the message was set.
fn live_line(message: &str, nodes: u64, nodes_then: u64, since: Duration) -> String {
    let secs = since.as_secs_f64();
    let rate = if secs > 0.0 {
        nodes.saturating_sub(nodes_then) as f64 / secs
    } else {
        0.0
    };
    format!("{message}  [{nodes} nodes, {rate:.0} nodes/s, {secs:.0}s]")
}

/// `d` as hours, minutes and seconds, `01:02:03` (indicatif's `elapsed_precise`).
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

struct Ticker {
    stop: mpsc::Sender<()>,
    thread: JoinHandle<()>,
}

impl Progress {
    pub fn new(quiet: bool, what: &str) -> Progress {
        let status = Arc::new(Mutex::new(Status {
            message: what.to_string(),
            counter: None,
            since: Instant::now(),
            nodes_then: 0,
        }));
        let ticker = Mutex::new(None);
        if quiet {
            return Progress {
                bar: None,
                began: Instant::now(),
                status,
                ticker,
            };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                // Invariant: the template above is valid.
                .expect("valid progress template"),
        );
        bar.set_message(what.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress {
            bar: Some(bar),
            began: Instant::now(),
            status,
            ticker,
        }
    }

    /// Whether lines are written as they are, without a spinner (stderr is not a
    /// terminal): false when quiet.
    pub fn plain(&self) -> bool {
        self.bar.as_ref().is_some_and(ProgressBar::is_hidden)
    }

    /// Print a line above the spinner (or on stderr when it is not a terminal).
    pub fn line(&self, s: &str) {
        if let Some(bar) = &self.bar {
            if bar.is_hidden() {
                eprintln!("{s}");
            } else {
                bar.println(s);
            }
        }
    }

    /// Set the status message: the counter's figures after it (once a search is watched)
    /// count from now.
    pub fn message(&self, s: &str) {
        let Some(bar) = &self.bar else { return };
        let mut st = self.status.lock().unwrap_or_else(PoisonError::into_inner);
        st.message = s.to_string();
        st.since = Instant::now();
        st.nodes_then = st.counter.as_ref().map_or(0, |c| c.load(Ordering::Relaxed));
        bar.set_message(st.line());
    }

    /// Set the status message, and where stderr is not a terminal also write it as a
    /// line: there the status is only written every [`PLAIN_EVERY`], so a log would not
    /// show what began.
    pub fn announce(&self, s: &str) {
        if self.plain() {
            self.line(s);
        }
        self.message(s);
    }

    /// `solver`, counting its nodes for this display, which shows them after the status
    /// message from now on until [`Progress::finish`] (unchanged when quiet: nothing is
    /// shown).
    pub fn watch<'a>(&self, solver: Solver<'a>) -> Solver<'a> {
        let Some(bar) = &self.bar else { return solver };
        let counter = Arc::new(AtomicU64::new(0));
        {
            let mut st = self.status.lock().unwrap_or_else(PoisonError::into_inner);
            st.counter = Some(Arc::clone(&counter));
            st.since = Instant::now();
            st.nodes_then = 0;
        }
        let mut ticker = self.ticker.lock().unwrap_or_else(PoisonError::into_inner);
        if ticker.is_none() {
            let (stop, stopped) = mpsc::channel::<()>();
            let (bar, status) = (bar.clone(), Arc::clone(&self.status));
            let every = if bar.is_hidden() { PLAIN_EVERY } else { TICK };
            let began = self.began;
            let thread = std::thread::spawn(move || {
                // Until told to stop, or the display is dropped.
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    let line = status.lock().unwrap_or_else(PoisonError::into_inner).line();
                    if bar.is_hidden() {
                        eprintln!("[{}] {line}", clock(began.elapsed()));
                    } else {
                        bar.set_message(line);
                    }
                }
            });
            *ticker = Some(Ticker { stop, thread });
        }
        solver.with_node_counter(counter)
    }

    /// Clear the spinner and stop refreshing the status.
    pub fn finish(&self) {
        self.stop_ticker();
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    fn stop_ticker(&self) {
        let ticker = self
            .ticker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(t) = ticker {
            // The thread ends at the message (or at the sender's drop, if it has ended
            // its wait already); a panic in it has been reported on stderr already.
            let _ = t.stop.send(());
            let _ = t.thread.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop_ticker();
    }
}

/// The display of a command that works through a list (`kalah bench`'s positions,
/// `kalah verify`'s cases): a bar on stderr counting the items, with the elapsed time and
/// a status message, and the report's lines on stdout above it. Without a bar (quiet, or
/// once finished) the lines are printed alone.
pub struct ListBar {
    bar: Option<ProgressBar>,
}

impl ListBar {
    /// A bar of `len` items, or none when `quiet`.
    pub fn new(quiet: bool, len: usize) -> ListBar {
        if quiet {
            return ListBar { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed_precise} [{pos}/{len}] {msg}")
                // Invariant: the template above is valid.
                .expect("valid progress template"),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        ListBar { bar: Some(bar) }
    }

    /// Shows `message` as the status (what the current item is doing).
    pub fn message(&self, message: String) {
        if let Some(bar) = &self.bar {
            bar.set_message(message);
        }
    }

    /// Prints `line` on stdout, with the bar out of the way.
    pub fn line(&self, line: &str) -> std::io::Result<()> {
        let print = || {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{line}")?;
            out.flush()
        };
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    /// One more item done.
    pub fn step(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// Clears the bar; lines from now on are printed alone.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// A bar of `len` positions for level `k` of a database being built or verified (hidden
/// when stderr is not a terminal).
pub fn level_bar(k: u32, len: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(
        "level {prefix:>3} [{bar:30}] {human_pos}/{human_len} positions, {per_sec}, ETA {eta}",
    )
    .map(|s| s.progress_chars("=> "));
    if let Ok(style) = style {
        bar.set_style(style);
    }
    bar.set_prefix(k.to_string());
    bar
}

/// The level bars of a database build ([`level_bar`]), for [`solver::build::Build`],
/// which counts but draws nothing.
pub struct LevelBars;

/// A [`level_bar`] as a build's counter: cleared when the level is done.
struct LevelCounter(ProgressBar);

impl solver::build::Progress for LevelBars {
    fn level(&self, k: u32, total: u64) -> Box<dyn solver::build::Counter + '_> {
        Box::new(LevelCounter(level_bar(k, total)))
    }
}

impl solver::build::Counter for LevelCounter {
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_live_line_gives_the_nodes_and_the_rate_since_the_message() {
        assert_eq!(
            live_line(
                "exact: testing margin >= +8",
                5_000,
                1_000,
                Duration::from_secs(2)
            ),
            "exact: testing margin >= +8  [5000 nodes, 2000 nodes/s, 2s]"
        );
        // No time yet: no rate (not a division by zero).
        assert_eq!(
            live_line("x", 7, 7, Duration::ZERO),
            "x  [7 nodes, 0 nodes/s, 0s]"
        );
    }

    #[test]
    fn the_clock_counts_hours_past_a_day() {
        assert_eq!(clock(Duration::from_secs(0)), "00:00:00");
        assert_eq!(clock(Duration::from_secs(3_723)), "01:02:03");
        assert_eq!(clock(Duration::from_secs(100 * 3600 + 59)), "100:00:59");
    }
}
