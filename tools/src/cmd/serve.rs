//! `kalah serve`: the explorer in the browser and its JSON API (see [`crate::serve`]).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::args::{all_cores, parse_threads, parse_tt_mb, RulesArgs};
use crate::error::CliError;
use crate::serve::{self, Limits, Proofs};

/// Arguments of `kalah serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The rules the page starts with and every request's defaults
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Endgame database directory (from `kalah db build`): positions inside it are
    /// answered from it at once, and searches probe it
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Address to listen on; the default serves this machine only
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Searches running at once; a request that needs one more is told the server is busy
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = parse_threads)]
    pub max_searches: usize,
    /// The longest one search may run, in seconds; a position whose search does not
    /// finish in time is answered "unfinished", never with an inexact value
    #[arg(long, value_name = "S", default_value_t = 600, value_parser = parse_seconds)]
    pub search_seconds: u64,
    /// Each search's transposition table, in MiB
    #[arg(long, value_name = "MB", default_value_t = solver::search::tt::DEFAULT_MB,
          value_parser = parse_tt_mb)]
    pub tt_mb: usize,
    /// Threads of each search [default: all cores]
    #[arg(long, value_name = "N", default_value_t = all_cores(), value_parser = parse_threads)]
    pub threads: usize,
    /// The largest endgame table (one per rule set, built at its first search, below the
    /// database) and in-memory retrograde analysis (clockwise rules), in MiB (a byte a
    /// board; 160 gives Kalah(6,4) the 19-seed table of `kalah solve`)
    #[arg(long, value_name = "MB", default_value_t = 160)]
    pub endgame_mb: u64,
    /// Answers kept in the cache
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub cache: usize,
    /// Proof directories of `kalah prove` (DIR itself, or each subdirectory holding a
    /// proof.txt), read at startup: a request for a proof's rules and root position is
    /// answered from what it proves [default: results/proofs in the current directory,
    /// else in the repository the binary was built from, where one exists]
    #[arg(long, value_name = "DIR")]
    pub proofs: Option<PathBuf>,
}

/// The proofs of `--proofs`, or of the default directory. A named directory that cannot
/// be read is an error; the default one is only warned about (the server answers by
/// search without it), as it was not asked for.
fn proofs(a: &ServeArgs) -> Result<Proofs, CliError> {
    if let Some(dir) = &a.proofs {
        return Proofs::load(dir).map_err(|e| CliError::BadOption(format!("--proofs: {e}")));
    }
    let Some(dir) = serve::default_proofs_dir() else {
        return Ok(Proofs::default());
    };
    Ok(Proofs::load(&dir).unwrap_or_else(|e| {
        eprintln!(
            "kalah serve: warning: the proofs in {} are not used: {e}",
            dir.display()
        );
        Proofs::default()
    }))
}

/// A `--search-seconds` value: 1 to 3600.
fn parse_seconds(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if (1..=3600).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a number of seconds from 1 to 3600")),
    }
}

/// The most memory the server's searches may hold at once: a transposition table of
/// `--tt-mb` for each of `--max-searches`, and an endgame table or retrograde analysis of
/// `--endgame-mb` for each of them and the latest rule set's kept table. Refused with the
/// figures, before the server starts, when it is more than the memory available
/// (MemAvailable in /proc/meminfo): a request must not be what wakes the out-of-memory
/// killer.
fn check_memory(a: &ServeArgs) -> Result<(), CliError> {
    let searches = a.max_searches as u64;
    let need = (a.tt_mb as u64)
        .saturating_mul(searches)
        .saturating_add(a.endgame_mb.saturating_mul(searches + 1));
    match solver::budget::mem_available() {
        Some(avail) if need > avail >> 20 => Err(CliError::BadOption(format!(
            "--max-searches {} of --tt-mb {} and --endgame-mb {} may hold {need} MiB at \
             once, more than the {} MiB of memory available (MemAvailable in \
             /proc/meminfo); give smaller tables or fewer searches",
            a.max_searches,
            a.tt_mb,
            a.endgame_mb,
            avail >> 20
        ))),
        _ => Ok(()),
    }
}

/// `kalah serve`.
pub fn run(a: &ServeArgs) -> Result<(), CliError> {
    // The server's own rules are checked as any command's, before it starts.
    a.rules.rules()?;
    if let Some(dir) = &a.db {
        crate::setup::check_db_dir(dir)?;
    }
    check_memory(a)?;
    let proofs = proofs(a)?;
    let limits = Limits {
        max_searches: a.max_searches,
        budget: Duration::from_secs(a.search_seconds),
        tt_mb: a.tt_mb,
        threads: a.threads,
        endgame_boards: a.endgame_mb.saturating_mul(1 << 20),
        cache_entries: a.cache,
    };
    serve::run(&a.rules, a.db.clone(), a.addr, limits, proofs, |addr| {
        // Tests and scripts read the port from this line.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "kalah serve: listening on http://{addr}/ (Ctrl-C stops)"
        );
        let _ = out.flush();
    })
    .map_err(|e| CliError::BadOption(format!("--addr {}: {e}", a.addr)))
}
