//! `kalah db probe`: the database value of a position, or of each position on standard
//! input (`--batch`).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use db_format::file_name;
use solver::{Database, Position, Probe, Rules};

use crate::args::{pie_unused, resolve, PositionArg, RulesArgs};
use crate::error::{CliError, DbCmdError};
use crate::lines::Lines;
use crate::setup::{check_db_dir, open_database};

/// Arguments of `kalah db probe`.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub position: PositionArg,
    /// Directory of the database
    #[arg(long, value_name = "DIR")]
    pub db: PathBuf,
    /// Probe the positions on standard input, one a line (blank lines skipped), each
    /// answered by a JSON object a line: {"line", "position", "level", "seeds", "value",
    /// "margin"}, the value and margin as the single probe prints them, or {"line",
    /// "error"} for a line refused (the rest are still answered; the exit status is then
    /// 2). The rules are the switches', with the pit count of --pits or else of the first
    /// position
    #[arg(long, conflicts_with = "position")]
    pub batch: bool,
}

/// What `kalah db probe` says of a position, as text or, with `--batch`, as a JSON
/// object.
struct Answer {
    pos: Position,
    /// The level file the value was read from.
    level: String,
    /// Seeds on the board: the level.
    seeds: u32,
    /// The future net gain of the side to move.
    value: i32,
    /// The final margin, South minus North: the stores' margin and the value, from
    /// South's side.
    margin: i32,
}

/// The database of `rules` in `dir`, refused when it holds no level of them.
fn open_for_probe(dir: &Path, rules: &Rules) -> Result<Database, CliError> {
    let db = open_database(dir, rules)?;
    if db.levels() == 0 {
        return Err(DbCmdError::Empty {
            dir: dir.display().to_string(),
            rules: rules.db_key().to_string(),
            first: file_name(&rules.db_key(), 0),
        }
        .into());
    }
    Ok(db)
}

/// The value of `pos` in `db` (the database of `rules` in `dir`): `NotCovered` when the
/// position has more seeds on the board than its levels hold; a damaged value is the
/// file's error, never a value.
fn probe(db: &Database, rules: &Rules, dir: &Path, pos: Position) -> Result<Answer, DbCmdError> {
    let board = pos.board();
    let seeds = board.seeds();
    let value = db.value(&board).filter(|_| seeds <= db.max_seeds());
    db.check()?;
    let value = value.ok_or_else(|| DbCmdError::NotCovered {
        seeds,
        max: db.max_seeds(),
        dir: dir.display().to_string(),
    })?;
    Ok(Answer {
        pos,
        level: file_name(&rules.db_key(), seeds),
        seeds,
        value,
        margin: solver::score::margin(&pos, value),
    })
}

/// `kalah db probe`: the value of one position in the database and its final margin, or
/// with `--batch` of each position on standard input ([`run_batch`]).
pub fn run(a: &ProbeArgs) -> Result<(), CliError> {
    if a.batch {
        return run_batch(a);
    }
    let (rules, pos) = resolve(&a.rules, &a.position)?;
    if rules.pie {
        return Err(pie_unused("db probe"));
    }
    let db = open_for_probe(&a.db, &rules)?;
    let Answer {
        level,
        seeds,
        value,
        margin,
        ..
    } = probe(&db, &rules, &a.db, pos)?;
    let side = pos.to_move;
    let mut out = std::io::stdout().lock();
    writeln!(out, "position: {pos}")?;
    writeln!(out, "level:    {level} ({seeds} seeds on the board)")?;
    writeln!(
        out,
        "value:    {value:+} (future net gain of {}, the side to move)",
        side.letter()
    )?;
    writeln!(
        out,
        "margin:   {margin:+} (final South minus North: the store margin {:+} {} the future \
         gain {} of {}, the side to move)",
        pos.store_margin(),
        if side.sign() > 0 { "plus" } else { "minus" },
        format_args!("{value:+}"),
        side.letter()
    )?;
    Ok(())
}

/// The longest line `--batch` reads, in bytes: a position of 6 pits a side takes less
/// than 100.
const MAX_LINE: usize = 4096;

/// `kalah db probe --batch`: a position a line on standard input, a JSON object a line on
/// standard output, in the same order. The database is opened once, for the rules of the
/// first position read (its pit count, unless `--pits` gives one), and every later
/// position must be of those rules. A line that is refused gets `{"line", "error"}` and
/// the others are still answered; the exit status is then 2. A damaged database or an
/// output that cannot be written stops the run.
fn run_batch(a: &ProbeArgs) -> Result<(), CliError> {
    if a.rules.pie {
        return Err(pie_unused("db probe"));
    }
    if a.rules.pits.is_some() {
        a.rules.rules()?;
    }
    check_db_dir(&a.db)?;
    let mut lines = Lines::new(std::io::stdin().lock(), MAX_LINE);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut open: Option<(Rules, Database)> = None;
    let (mut asked, mut refused) = (0u64, 0u64);
    loop {
        let line = lines.next_line().map_err(|e| {
            CliError::BadOption(format!("--batch: cannot read standard input: {e}"))
        })?;
        let Some((number, line)) = line else { break };
        let answer = match line.map(str::trim) {
            Ok("") => continue,
            Ok(text) => batch_answer(a, &mut open, text)?,
            Err(why) => Err(why),
        };
        asked += 1;
        // Written field by field: the keys in the order of the help, the line first.
        let text = |s: &str| serde_json::Value::from(s);
        match answer {
            Ok(x) => writeln!(
                out,
                r#"{{"line":{number},"position":{},"level":{},"seeds":{},"value":{},"margin":{}}}"#,
                text(&x.pos.to_string()),
                text(&x.level),
                x.seeds,
                x.value,
                x.margin
            )?,
            Err(why) => {
                refused += 1;
                writeln!(out, r#"{{"line":{number},"error":{}}}"#, text(&why))?;
            }
        }
    }
    out.flush()?;
    if refused > 0 {
        return Err(CliError::BadOption(format!(
            "--batch: {refused} of {asked} positions refused (the error objects of their \
             lines say why)"
        )));
    }
    Ok(())
}

/// The answer to one position `text` of a batch, or why the line is refused (`Ok(Err)`):
/// a position that does not parse, does not fit the rules, or lies above the database.
/// `open` is the database, opened at the first position; `Err` stops the batch (the
/// database cannot be opened, or a value read is damaged).
fn batch_answer(
    a: &ProbeArgs,
    open: &mut Option<(Rules, Database)>,
    text: &str,
) -> Result<Result<Answer, String>, CliError> {
    let position = match text.parse::<Position>() {
        Ok(p) => PositionArg { position: Some(p) },
        Err(e) => return Ok(Err(e.to_string())),
    };
    let (rules, pos) = match resolve(&a.rules, &position) {
        Ok(found) => found,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let (opened, db) = match open {
        Some(found) => found,
        None => open.insert((rules, open_for_probe(&a.db, &rules)?)),
    };
    if rules.db_key() != opened.db_key() {
        return Ok(Err(format!(
            "{} pits a side, but the batch probes the database of {} pits (that of \
             its first position, or of --pits)",
            rules.pits(),
            opened.pits()
        )));
    }
    match probe(db, opened, &a.db, pos) {
        Ok(found) => Ok(Ok(found)),
        Err(e @ DbCmdError::NotCovered { .. }) => Ok(Err(e.to_string())),
        Err(e) => Err(e.into()),
    }
}
