//! The JSON API: `/api/moves` (the value of every legal move), `/api/play` (play moves),
//! `/api/position` (a position checked), `/api/fair` (the committed fair starts of a
//! rules set) and `/api/config` (the server's defaults and limits). Every answer is a JSON object; a move's `value` is always exact, and where
//! only bounds are proved (a proof's first moves) the move has `exact: false`, its
//! `margin_at_least` and `margin_at_most`, and no `value`;
//! an error is `{"error": message}` with a 4xx status for a bad request (the CLI's
//! message) and 503 when the server cannot answer now or within its budget.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use solver::notation::play_record;
use solver::proof::Interval;
use solver::rules::Switch;
use solver::{Capture, Direction, EndRule, Game, OppStore, Position, Remaining, Rules, Sowing};

use super::engine::{MoveValue, Outcome};
use super::params::{self, Pairs, RULE_KEYS};
use super::proofs::{Proved, SecondAnswers};
use super::App;

/// The longest a request may ask to wait for a search, in seconds.
const MAX_WAIT_SECONDS: f64 = 600.0;

/// A JSON error with its status.
pub struct ApiError(StatusCode, String);

impl ApiError {
    fn bad(message: impl Into<String>) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, message.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

/// The keys of a rule set and position.
fn position_keys(extra: &[&'static str]) -> Vec<&'static str> {
    let mut keys = vec!["position"];
    keys.extend(RULE_KEYS);
    keys.push("pie");
    keys.extend(extra);
    keys
}

/// The rules and position of a request whose parameters are `keys`.
fn parse(
    app: &App,
    query: Option<&str>,
    keys: &[&str],
) -> Result<(Pairs, Rules, Position), ApiError> {
    let pairs = params::pairs(query);
    params::check_keys(&pairs, keys).map_err(ApiError::bad)?;
    let (rules, pos) = params::rules_and_position(&pairs, &app.defaults).map_err(ApiError::bad)?;
    Ok((pairs, rules, pos))
}

/// What a value means for the player who moves: win, draw or loss.
fn result_for(pos: &Position, margin: i32) -> &'static str {
    match (pos.to_move.sign() * margin).signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}

/// The rule set as query parameters (`pits`, `seeds`, each switch's name, `pie`): sent
/// back, they name the same rules, so the page learns the game the server inferred from
/// a position.
fn game_json(rules: &Rules) -> Value {
    json!({
        "pits": rules.pits(),
        "seeds": rules.seeds(),
        "capture": rules.capture.name(),
        "sowing": rules.sowing.name(),
        "direction": rules.direction.name(),
        "opp-store": rules.opp_store.name(),
        "end": rules.end.name(),
        "remaining": rules.remaining.name(),
        "pie": rules.pie,
    })
}

/// The fields every answer about a position has.
fn describe(rules: &Rules, pos: &Position) -> Value {
    let game = Game::new(*rules);
    json!({
        "rules": rules.to_string(),
        "game": game_json(rules),
        "position": pos.to_string(),
        "to_move": pos.to_move.letter().to_string(),
        "game_over": pos.is_over(&game),
        "stores": pos.stores,
        "final_margin": crate::view::final_margin(&game, pos),
    })
}

fn move_json(pos: &Position, m: &MoveValue) -> Value {
    json!({
        "move": m.text.to_string(),
        "pit": m.text.pit,
        "exact": true,
        "value": m.margin,
        "result": result_for(pos, m.margin),
        "position": m.after.to_string(),
    })
}

/// `GET /api/moves?position=P&RULES[&wait=S]`.
pub async fn moves(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    match moves_inner(&app, query.as_deref()).await {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

async fn moves_inner(app: &Arc<App>, query: Option<&str>) -> Result<Response, ApiError> {
    let (pairs, rules, pos) = parse(app, query, &position_keys(&["wait"]))?;
    let budget = app.explorer.limits.budget;
    let wait = match params::get(&pairs, "wait") {
        None => budget + Duration::from_secs(5),
        Some(w) => match w.parse::<f64>() {
            Ok(s) if (0.0..=MAX_WAIT_SECONDS).contains(&s) => Duration::from_secs_f64(s),
            _ => {
                return Err(ApiError::bad(format!(
                    "invalid value '{w}' for 'wait': expected seconds, 0 to {MAX_WAIT_SECONDS}"
                )))
            }
        },
    };
    let mut body = describe(&rules, &pos);
    if let Some(p) = app.proofs.find(&rules, &pos) {
        proved(&mut body, &pos, p);
        return Ok((StatusCode::OK, Json(body)).into_response());
    }
    let status = match app.explorer.moves(rules, pos, wait).await {
        Outcome::Exact { answer, cached } => {
            let pv: Vec<String> = answer.pv.iter().map(|m| m.to_string()).collect();
            body["status"] = json!("exact");
            body["value"] = json!(answer.value);
            body["result"] = json!(result_for(&pos, answer.value));
            body["best_move"] = json!(answer.moves.first().map(|m| m.text.to_string()));
            body["pv"] = json!(pv);
            body["moves"] = answer.moves.iter().map(|m| move_json(&pos, m)).collect();
            body["source"] = json!(answer.source.name());
            body["cached"] = json!(cached);
            body["seconds"] = json!(answer.seconds);
            body["nodes"] = json!(answer.nodes);
            StatusCode::OK
        }
        Outcome::Searching { solved, elapsed } => {
            body["status"] = json!("searching");
            body["seconds"] = json!(elapsed.as_secs_f64());
            body["budget_seconds"] = json!(budget.as_secs_f64());
            body["moves"] = solved.iter().map(|m| move_json(&pos, m)).collect();
            // The best move solved so far bounds the position's value from the mover's
            // side: South can get at least its margin, North at most.
            let sign = pos.to_move.sign();
            if let Some(b) = solved.iter().map(|m| sign * m.margin).max() {
                let side = if sign > 0 { "at_least" } else { "at_most" };
                body["bound"] = json!({ side: sign * b });
            }
            StatusCode::ACCEPTED
        }
        Outcome::Unfinished(m) => {
            body["status"] = json!("unfinished");
            body["error"] = json!(m);
            StatusCode::SERVICE_UNAVAILABLE
        }
        Outcome::Busy(m) => {
            body["status"] = json!("busy");
            body["error"] = json!(m);
            StatusCode::SERVICE_UNAVAILABLE
        }
        Outcome::Failed(m) => {
            body["status"] = json!("failed");
            body["error"] = json!(m);
            StatusCode::INTERNAL_SERVER_ERROR
        }
    };
    Ok((status, Json(body)).into_response())
}

/// What an interval of final margins means for the player who moves: win, draw or loss
/// where every value in it means the same, else nothing.
fn result_within(pos: &Position, iv: &Interval) -> Option<&'static str> {
    let (lo, hi) = (result_for(pos, iv.lo), result_for(pos, iv.hi));
    (lo == hi).then_some(lo)
}

/// The answer `/api/moves` gives for a proof's root (`status: "proved"`): the root's
/// value where the proof settled it (else its bounds), and each first move's proved
/// interval, exact or bounds, as `kalah prove --status` reports them.
fn proved(body: &mut Value, pos: &Position, p: &Proved) {
    let exact = p.value.is_exact().then_some(p.value.lo);
    // A best move is one proved to attain the root's exact value.
    let best = p
        .moves
        .iter()
        .find(|m| m.margins.is_exact() && Some(m.margins.lo) == exact);
    body["status"] = json!("proved");
    body["source"] = json!("proof");
    body["proof"] = json!(p.dir.display().to_string());
    body["exact"] = json!(exact.is_some());
    if let Some(v) = exact {
        body["value"] = json!(v);
    }
    body["margin_at_least"] = json!(p.value.lo);
    body["margin_at_most"] = json!(p.value.hi);
    body["certified"] = json!(p.certified);
    if let Some(second) = &p.second {
        body["second_answers"] = second_json(second);
    }
    body["result"] = json!(result_within(pos, &p.value));
    body["best_move"] = json!(best.map(|m| m.text.to_string()));
    // The proof records no line beyond the first move.
    body["pv"] = json!(best
        .map(|m| m.text.to_string())
        .into_iter()
        .collect::<Vec<_>>());
    body["moves"] = p
        .moves
        .iter()
        .map(|m| {
            let mut v = json!({
                "move": m.text.to_string(),
                "pit": m.text.pit,
                "exact": m.margins.is_exact(),
                "certified": m.certified,
                "margin_at_least": m.margins.lo,
                "margin_at_most": m.margins.hi,
                "result": result_within(pos, &m.margins),
                "position": m.after.to_string(),
            });
            if m.margins.is_exact() {
                v["value"] = json!(m.margins.lo);
            }
            v
        })
        .collect();
    body["cached"] = json!(false);
    body["seconds"] = json!(0.0);
    body["nodes"] = json!(0);
}

/// A proof's second answers, as `kalah prove --status --json` counts them.
fn second_json(s: &SecondAnswers) -> Value {
    json!({
        "needed": s.needed,
        "confirmed": s.confirmed,
        "disagree": s.disagree,
        "open": s.needed - s.confirmed - s.disagree,
    })
}

/// `GET /api/play?position=P&RULES&move=M` (`M` one move or several separated by spaces,
/// annotations optional and checked).
pub async fn play(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    play_inner(&app, query.as_deref()).map(Json).into_response()
}

fn play_inner(app: &App, query: Option<&str>) -> Result<Value, ApiError> {
    let (pairs, rules, pos) = parse(app, query, &position_keys(&["move"]))?;
    let record = params::get(&pairs, "move").ok_or_else(|| {
        ApiError::bad("missing parameter 'move': a move such as A3, or several separated by spaces")
    })?;
    if record.split_whitespace().next().is_none() {
        return Err(ApiError::bad(
            "parameter 'move' is empty: give a move such as A3",
        ));
    }
    let game = Game::new(rules);
    let played = play_record(&game, &pos, record).map_err(|e| ApiError::bad(e.to_string()))?;
    let last = played.last().map_or(pos, |p| p.after);
    let mut body = describe(&rules, &last);
    body["start"] = json!(pos.to_string());
    body["played"] = played
        .iter()
        .map(|p| {
            json!({
                "move": p.text.to_string(),
                "side": p.text.side.letter().to_string(),
                "free_move": p.text.free,
                "captured": p.step.captured,
                "game_over": p.after.is_over(&game),
                "repeated": p.repeated,
                "position": p.after.to_string(),
            })
        })
        .collect();
    Ok(body)
}

/// `GET /api/position?position=P&RULES`: the position checked and described, nothing
/// solved.
pub async fn position(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    match parse(&app, query.as_deref(), &position_keys(&[])) {
        Ok((_, rules, pos)) => Json(describe(&rules, &pos)).into_response(),
        Err(e) => e.into_response(),
    }
}

/// `GET /api/fair?RULES[&pick=N]`: the committed fair starts of the rules (see
/// `solver::fair::committed`), each with its seeds moved, or with `pick` only the `N`th
/// (from 1); 404 where no list is committed for the rules.
pub async fn fair(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    fair_inner(&app, query.as_deref()).map(Json).into_response()
}

fn fair_inner(app: &App, query: Option<&str>) -> Result<Value, ApiError> {
    let (pairs, rules, _) = parse(app, query, &position_keys(&["pick"]))?;
    let list = solver::fair::committed::fair_starts(&rules).ok_or_else(|| {
        ApiError(
            StatusCode::NOT_FOUND,
            format!("no committed list of fair starts for {rules}; `kalah fair` computes one"),
        )
    })?;
    let start = |e: &solver::fair::list::Entry| json!({ "position": e.position.to_string(), "moved": e.moved });
    let mut starts: Vec<Value> = list.entries.iter().map(start).collect();
    if let Some(text) = params::get(&pairs, "pick") {
        let n = list.entries.len();
        let i = text
            .parse::<usize>()
            .ok()
            .filter(|i| (1..=n).contains(i))
            .ok_or_else(|| ApiError::bad(format!("pick={text}: give a number from 1 to {n}")))?;
        starts = vec![starts.swap_remove(i - 1)];
    }
    Ok(json!({
        "rules": rules.to_string(),
        "game": game_json(&rules),
        "moved": list.header.moved,
        "count": list.entries.len(),
        "starts": starts,
    }))
}

/// Every spelling of a switch, the default first.
fn spellings<T: Switch>() -> Vec<&'static str> {
    T::VALUES.iter().map(|(n, _)| *n).collect()
}

/// `GET /api/config`: the server's default rules, the switches and their values, the
/// database directory, the proofs read and the limits. `defaults` is every switch of the
/// rules a request without parameters gets (as each answer's `game`), not only the flags
/// the server was given.
pub async fn config(State(app): State<Arc<App>>) -> Response {
    let defaults = match params::rules_and_position(&Pairs::new(), &app.defaults) {
        Ok((rules, _)) => game_json(&rules),
        // The server checked its rules before it started.
        Err(e) => return ApiError(StatusCode::INTERNAL_SERVER_ERROR, e).into_response(),
    };
    let l = &app.explorer.limits;
    Json(json!({
        "defaults": defaults,
        "switches": {
            "capture": spellings::<Capture>(),
            "sowing": spellings::<Sowing>(),
            "direction": spellings::<Direction>(),
            "opp-store": spellings::<OppStore>(),
            "end": spellings::<EndRule>(),
            "remaining": spellings::<Remaining>(),
        },
        "db": app.explorer.db_dir().map(|d| d.display().to_string()),
        "proofs_dir": app.proofs.dir.as_ref().map(|d| d.display().to_string()),
        "proofs": app.proofs.proved.iter().map(|p| json!({
            "dir": p.dir.display().to_string(),
            "rules": p.rules.to_string(),
            "position": p.position.to_string(),
            "exact": p.value.is_exact(),
            "margin_at_least": p.value.lo,
            "margin_at_most": p.value.hi,
            "certified": p.certified,
            "second_answers": p.second.as_ref().map(second_json),
        })).collect::<Vec<_>>(),
        "limits": {
            "max_searches": l.max_searches,
            "search_seconds": l.budget.as_secs_f64(),
            "tt_mb": l.tt_mb,
            "threads": l.threads,
            "endgame_boards": l.endgame_boards,
        },
    }))
    .into_response()
}

/// Any other path under `/api/`.
pub async fn not_found(uri: axum::http::Uri) -> Response {
    ApiError(
        StatusCode::NOT_FOUND,
        format!(
            "no such endpoint '{}'; the API has /api/moves, /api/play, /api/position, /api/fair and /api/config",
            uri.path()
        ),
    )
    .into_response()
}
