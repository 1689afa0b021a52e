//! `kalah play` (play a game record move by move) and `kalah show` (a position and its
//! legal moves).

use std::collections::HashMap;
use std::io::Write;

use clap::Args;
use serde_json::json;
use solver::notation::play_record;
use solver::{Game, MoveText, Played, Position, RecordError};

use crate::args::GameArgs;
use crate::error::CliError;
use crate::view;

/// Arguments of `kalah play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// One JSON object a line for each move, instead of boards
    #[arg(long)]
    pub json: bool,
    /// The game record: moves such as A3 or B5x9#, separated by spaces (one quoted
    /// argument or several); annotations are optional and checked when given
    #[arg(value_name = "MOVES")]
    pub moves: Vec<String>,
}

/// Arguments of `kalah show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// One JSON object instead of the board
    #[arg(long)]
    pub json: bool,
}

/// Play the record and print every move; an illegal move is reported after the moves
/// before it have been printed.
pub fn run_play(args: &PlayArgs) -> Result<(), CliError> {
    let (rules, start) = args.game.resolve()?;
    if rules.pie {
        return Err(crate::args::pie_unused("play"));
    }
    let game = Game::new(rules);
    let record = args.moves.join(" ");
    let (played, error) = play_prefix(&game, &start, &record)?;
    let mut out = std::io::stdout().lock();
    // Where each position was first seen: 0 is the start, k the position after move k.
    let mut seen: HashMap<Position, usize> = HashMap::new();
    seen.insert(start, 0);
    if !args.json {
        writeln!(out, "{rules}")?;
        writeln!(out, "start: {start}")?;
        write!(out, "{}", view::board(&start))?;
        writeln!(out, "{}", view::status(&game, &start))?;
    }
    for (i, p) in played.iter().enumerate() {
        let number = i + 1;
        let earlier = match seen.get(&p.after) {
            Some(&k) => Some(k),
            None => {
                seen.insert(p.after, number);
                None
            }
        };
        let over = p.after.is_over(&game);
        if args.json {
            let line = json!({
                "number": number,
                "move": p.text.to_string(),
                "position": p.after.to_string(),
                "game_over": over,
                "captured": p.step.captured,
                "free_move": p.text.free,
                "repeated": p.repeated,
                "stores": p.after.stores,
            });
            writeln!(out, "{line}")?;
            continue;
        }
        writeln!(out)?;
        writeln!(out, "{number}. {}", p.text)?;
        write!(out, "{}", view::board(&p.after))?;
        writeln!(out, "{}", view::status(&game, &p.after))?;
        if let Some(k) = earlier {
            let what = if k == 0 {
                "the starting position".to_string()
            } else {
                format!("the position after move {k}")
            };
            writeln!(out, "move {number} '{}' repeats {what}", p.text)?;
        }
    }
    if !args.json {
        let texts: Vec<String> = played.iter().map(|p| p.text.to_string()).collect();
        writeln!(out)?;
        writeln!(out, "record: {}", texts.join(" "))?;
        // The position reached, as `--position` takes it: the game goes on from here.
        let last = played.last().map_or(start, |p| p.after);
        writeln!(out, "position: {last}")?;
        if let Some(margin) = view::final_margin(&game, &last) {
            writeln!(out, "{}", score_line(&last, margin))?;
        }
    }
    out.flush()?;
    match error {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// The moves of `record` up to its first illegal move, and that move's error.
fn play_prefix(
    game: &Game,
    start: &Position,
    record: &str,
) -> Result<(Vec<Played>, Option<RecordError>), RecordError> {
    match play_record(game, start, record) {
        Ok(played) => Ok((played, None)),
        Err(e) => {
            let before: Vec<&str> = record.split_whitespace().take(e.number - 1).collect();
            // The moves before the illegal one were legal the first time round.
            let played = play_record(game, start, &before.join(" "))?;
            Ok((played, Some(e)))
        }
    }
}

/// The final score of a finished game, `margin` being South's final store minus North's.
fn score_line(pos: &Position, margin: i32) -> String {
    // The stores after the sweep: the margin says how the board's seeds were shared.
    let [s, n] = pos.stores;
    if pos.board_seeds() == 0 {
        format!("final score: South {s}, North {n}, margin {margin:+} (South minus North)")
    } else {
        format!(
            "final score: margin {margin:+} (South minus North) once the {} seeds left on \
             the board are swept; stores now South {s}, North {n}",
            pos.board_seeds()
        )
    }
}

/// Print the position, whose turn it is and the legal moves, annotated.
pub fn run_show(args: &ShowArgs) -> Result<(), CliError> {
    let (rules, pos) = args.game.resolve()?;
    if rules.pie {
        return Err(crate::args::pie_unused("show"));
    }
    let game = Game::new(rules);
    let moves = legal_moves(&game, &pos);
    let over = pos.is_over(&game);
    let margin = view::final_margin(&game, &pos);
    let mut out = std::io::stdout().lock();
    if args.json {
        let texts: Vec<String> = moves.iter().map(|(m, _)| m.to_string()).collect();
        let line = json!({
            "rules": rules.to_string(),
            "position": pos.to_string(),
            "to_move": pos.to_move.letter().to_string(),
            "game_over": over,
            "stores": pos.stores,
            "final_margin": margin,
            "legal_moves": texts,
        });
        writeln!(out, "{line}")?;
    } else {
        writeln!(out, "{rules}")?;
        writeln!(out, "position: {pos}")?;
        write!(out, "{}", view::board(&pos))?;
        writeln!(out, "{}", view::status(&game, &pos))?;
        if let Some(margin) = margin {
            writeln!(out, "{}", score_line(&pos, margin))?;
        } else {
            let texts: Vec<String> = moves.iter().map(|(m, _)| m.to_string()).collect();
            writeln!(out, "legal moves: {}", texts.join(" "))?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Each legal move of the side to move, annotated by playing it, with the position after.
pub fn legal_moves(game: &Game, pos: &Position) -> Vec<(MoveText, Position)> {
    if pos.is_over(game) {
        return Vec::new();
    }
    let side = pos.to_move;
    (0..pos.pits())
        .filter(|&i| pos.row(side)[i] > 0)
        .map(|i| {
            let (after, step) = pos.play(game, i);
            (MoveText::annotated(side, i, &step), after)
        })
        .collect()
}
