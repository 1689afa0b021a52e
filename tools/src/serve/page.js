// The explorer page: the state lives in the URL, the values come from the JSON API.
"use strict";

const RULE_KEYS = ["pits", "seeds", "capture", "sowing", "direction", "opp-store", "end", "remaining"];
const $ = (id) => document.getElementById(id);

// The whole state: the rules, the start of the line, the moves played, how many are shown,
// who the computer plays and whether the second player swapped seats (pie rule).
const state = { rules: {}, start: "", moves: [], at: 0, computer: "", swap: false };
// positions[k]: the API's description of the position after k moves of the line.
let positions = [];
let config = null;
// Each render gets a number; an answer for an older one is dropped.
let generation = 0;
let lastAnswer = null;

function api(path, params) {
  const q = new URLSearchParams(params);
  return fetch(path + "?" + q.toString()).then(async (r) => {
    let body;
    try { body = await r.json(); } catch (e) { body = { error: "bad answer from the server (" + r.status + ")" }; }
    return { status: r.status, body };
  });
}

// The request parameters of `position` under the current rules. With a position, pits and
// seeds are left out: the server infers the game from the position (its size and the seeds
// it holds), as the command line does without --pits and --seeds, so a position of another
// game than the selects' is never refused or replaced. Without one, they name the game whose
// start is asked for.
function params(position) {
  const p = {};
  for (const k of RULE_KEYS) {
    if (position && (k === "pits" || k === "seeds")) continue;
    if (state.rules[k] !== undefined && state.rules[k] !== "") p[k] = state.rules[k];
  }
  if (state.rules.pie) p.pie = "true";
  if (position) p.position = position;
  return p;
}

// Take the rules the server resolved (an answer's `game`) as the page's.
function adopt(game) {
  for (const k of RULE_KEYS) state.rules[k] = String(game[k]);
  state.rules.pie = !!game.pie;
}

function stripNotes(m) { return m.replace(/[x+#].*$/, ""); }

function urlOf() {
  const p = new URLSearchParams(params(state.start));
  if (state.moves.length) p.set("moves", state.moves.join(" "));
  if (state.at !== state.moves.length) p.set("at", String(state.at));
  if (state.computer) p.set("computer", state.computer);
  if (state.swap) p.set("swap", "1");
  return location.pathname + "?" + p.toString();
}

function showError(msg) { $("error").textContent = msg || ""; }

// Replay the line from its start (annotations dropped, as they may differ under other
// rules); a move that is illegal now ends the line there. The start is asked for with
// `query` (by default the current rules and start); the rules the server resolved for it
// become the page's.
async function replay(query) {
  const first = await api("/api/position", query || params(state.start));
  if (first.status !== 200) throw new Error(first.body.error || "no answer from the server");
  const start = first.body;
  adopt(start.game);
  const base = params(start.position);
  let played = [];
  if (state.moves.length) {
    let moves = state.moves.map(stripNotes);
    let r = await api("/api/play", Object.assign({ move: moves.join(" ") }, base));
    if (r.status !== 200) {
      const m = /^move (\d+) /.exec(r.body.error || "");
      const keep = m ? Number(m[1]) - 1 : 0;
      showError(r.body.error + (keep < moves.length ? " (the line stops before it)" : ""));
      moves = moves.slice(0, keep);
      r = moves.length ? await api("/api/play", Object.assign({ move: moves.join(" ") }, base)) : null;
    }
    played = r && r.status === 200 ? r.body.played : [];
  }
  positions = [{ position: start.position, to_move: start.to_move, game_over: start.game_over, move: null }];
  for (const p of played) {
    positions.push({ position: p.position, to_move: p.position.slice(-1), game_over: p.game_over, move: p });
  }
  state.moves = played.map((p) => p.move);
  state.at = Math.min(Math.max(0, state.at), state.moves.length);
  state.start = start.position;
}

function parsePosition(s) {
  const parts = s.split("/");
  return { a: parts[0].split(",").map(Number), sa: Number(parts[1]),
    b: parts[2].split(",").map(Number), sb: Number(parts[3]), side: parts[4] };
}

// The index where the opener's first whole turn ended (the first position with the other
// side to move), or -1.
function firstTurnEnd() {
  const opener = positions[0].to_move;
  for (let k = 1; k < positions.length; k++) if (positions[k].to_move !== opener) return k;
  return -1;
}

function seatName(row) {
  // Row A is South. The opener (whoever moves first) is player 1; a swap exchanges seats.
  const opener = positions.length ? positions[0].to_move : "A";
  const end = firstTurnEnd();
  const swapped = state.swap && end >= 0 && state.at >= end;
  let player = row === opener ? 1 : 2;
  if (swapped) player = 3 - player;
  let who = "player " + player;
  if (state.computer) {
    // The computer keeps its player through a swap: it plays the seat it started in.
    const computerPlayer = state.computer === opener ? 1 : 2;
    who = player === computerPlayer ? "computer" : "you";
  }
  return who;
}

function computerToMove(pos) {
  if (!state.computer || pos.to_move === null) return false;
  return seatName(pos.to_move) === "computer";
}

function sideName(s) { return s === "A" ? "South (A)" : "North (B)"; }
function signed(v) { return v > 0 ? "+" + v : String(v); }

function drawBoard(pos, values) {
  const p = parsePosition(pos.position);
  const m = p.a.length;
  const board = $("board");
  board.innerHTML = "";
  board.style.display = "";
  board.style.gridTemplateColumns = "64px repeat(" + m + ", 64px) 64px";
  const lastPit = state.at > 0 ? stripNotes(state.moves[state.at - 1]) : null;
  const store = (side, seeds, col) => {
    const d = document.createElement("div");
    d.className = "store";
    d.id = "store-" + side;
    d.style.gridColumn = String(col);
    d.innerHTML = '<span class="label">' + (side === "A" ? "South" : "North") + '</span><span class="seeds">' + seeds + "</span>";
    return d;
  };
  const pit = (row, i, seeds, col, gridRow) => {
    const name = row + (i + 1);
    const d = document.createElement("div");
    d.className = "pit";
    d.dataset.pit = name;
    d.style.gridColumn = String(col);
    d.style.gridRow = String(gridRow);
    let html = '<span class="label">' + name + '</span><span class="seeds">' + seeds + "</span>";
    const v = values && values.find((x) => stripNotes(x.move) === name);
    if (v && v.exact !== false) html += '<span class="value ' + v.result + '">' + signed(v.value) + "</span>";
    else if (v) {
      html += '<span class="value bounds" title="proved bounds, not the value">' +
        signed(v.margin_at_least) + "\u2026" + signed(v.margin_at_most) + "</span>";
    }
    d.innerHTML = html;
    if (name === lastPit) d.classList.add("last");
    const playable = !pos.game_over && row === pos.to_move && seeds > 0 && !computerToMove(pos);
    if (playable) {
      d.classList.add("playable");
      d.addEventListener("click", () => play(name));
    }
    return d;
  };
  // North's store on the left, South's on the right; North's pits B(m)..B1 on top.
  board.appendChild(store("B", p.sb, 1));
  for (let j = 0; j < m; j++) board.appendChild(pit("B", m - 1 - j, p.b[m - 1 - j], j + 2, 1));
  board.appendChild(store("A", p.sa, m + 2));
  for (let i = 0; i < m; i++) board.appendChild(pit("A", i, p.a[i], i + 2, 2));
  $("seat-north").textContent = "North (B): " + seatName("B");
  $("seat-south").textContent = "South (A): " + seatName("A");
}

function drawLine() {
  const line = $("line");
  line.innerHTML = "";
  const start = document.createElement("span");
  start.className = "mv" + (state.at === 0 ? " current" : "");
  start.textContent = "start";
  start.addEventListener("click", () => go(0));
  line.appendChild(start);
  state.moves.forEach((m, k) => {
    const s = document.createElement("span");
    s.className = "mv" + (state.at === k + 1 ? " current" : "");
    s.textContent = m;
    s.addEventListener("click", () => go(k + 1));
    line.appendChild(document.createTextNode(" "));
    line.appendChild(s);
  });
  $("back").disabled = $("first").disabled = state.at === 0;
  $("forward").disabled = $("last").disabled = state.at === state.moves.length;
}

function drawRules() {
  for (const k of RULE_KEYS) $(k).value = state.rules[k] !== undefined ? state.rules[k] : $(k).value;
  $("pie").checked = !!state.rules.pie;
  $("computer").value = state.computer;
}

async function render() {
  const gen = ++generation;
  // No position to show (a link the server refused): nothing else is drawn instead.
  if (!positions.length) return;
  const pos = positions[state.at];
  history.replaceState(null, "", urlOf());
  $("share").href = location.href;
  $("share").textContent = location.href;
  $("position").value = pos.position;
  drawRules();
  drawLine();
  drawBoard(pos, null);
  const last = state.at > 0 ? positions[state.at].move : null;
  let note = "";
  if (last) {
    note = last.move + ": ";
    const bits = [];
    if (last.captured > 0) bits.push("captures " + last.captured);
    if (last.free_move) bits.push("free move, " + sideName(last.side) + " moves again");
    if (last.game_over) bits.push("the game is over");
    if (!bits.length) bits.push("turn passes");
    note += bits.join("; ");
  }
  $("note").textContent = note;
  $("turn").textContent = pos.game_over ? "Game over" : sideName(pos.to_move) + " to move (" + seatName(pos.to_move) + ")";
  const end = firstTurnEnd();
  const canSwap = state.rules.pie && end >= 0 && state.at === end && !pos.game_over && !state.swap;
  $("swap-box").hidden = !canSwap;
  $("swap-value").textContent = "";
  $("moves").querySelector("tbody").innerHTML = "";
  $("pv").textContent = "";
  $("value").textContent = "";
  $("status").dataset.state = "searching";
  $("status").textContent = "asking…";
  lastAnswer = null;
  const query = Object.assign(params(pos.position), { wait: "1" });
  const t0 = Date.now();
  for (;;) {
    let r;
    try { r = await api("/api/moves", query); } catch (e) { r = { status: 0, body: { error: String(e) } }; }
    if (gen !== generation) return;
    const b = r.body;
    if (r.status === 202) {
      let s = "searching… " + Math.round(b.seconds) + " s of at most " + Math.round(b.budget_seconds) + " s";
      if (b.bound) {
        s += b.bound.at_least !== undefined ? "; so far the value is at least " + signed(b.bound.at_least)
          : "; so far the value is at most " + signed(b.bound.at_most);
      }
      s += " (" + b.moves.length + " moves solved)";
      $("status").dataset.state = "searching";
      $("status").textContent = s;
      continue;
    }
    if (r.status !== 200) {
      $("status").dataset.state = b.status || "error";
      $("status").textContent = b.error || "no answer";
      return;
    }
    lastAnswer = b;
    showAnswer(pos, b, Date.now() - t0);
    break;
  }
  // The computer as the second player under the pie rule swaps when the opener's seat is
  // worth more than nothing (solver/src/pie.rs), and then the opener moves.
  if (canSwap && computerToMove(pos) && lastAnswer) {
    const openerSign = positions[0].to_move === "A" ? 1 : -1;
    if (openerSign * lastAnswer.value > 0) {
      setTimeout(() => { if (gen === generation) { state.swap = true; render(); } }, 500);
      return;
    }
  }
  if (computerToMove(pos) && lastAnswer && lastAnswer.best_move) {
    setTimeout(() => { if (gen === generation) play(stripNotes(lastAnswer.best_move)); }, 500);
  }
}

// A move's proved bounds, as the table and the pits show them.
function boundsText(m) { return signed(m.margin_at_least) + " to " + signed(m.margin_at_most); }

function showAnswer(pos, b, ms) {
  // A proof's answer: its root's value (or bounds), and each first move exact or bounded.
  const proved = b.status === "proved";
  const exactValue = b.value !== undefined && b.value !== null;
  $("status").dataset.state = proved ? "proved" : "exact";
  if (proved) {
    const bounded = b.moves.some((m) => !m.exact);
    const s = b.second_answers;
    const checked = b.certified ? "; certified (every answer it rests on given a second time, none disagreeing)"
      : s ? "; not yet certified (" + s.confirmed + " of " + s.needed + " needed answers given a second time" +
        (s.disagree ? ", " + s.disagree + " disagreeing" : "") + ")"
      : "; not yet certified";
    $("status").textContent = "proved by kalah prove (" + b.proof + ")" + checked +
      (bounded ? "; a move marked \u201cbounds\u201d is proved only within them, not solved" : "");
  } else {
    const from = b.source === "database" ? "from the database" : b.source === "game over" ? "the game is over" : "by " + b.source;
    $("status").textContent = "exact, " + from + (b.cached ? " (cached)" : "") + "";
  }
  if (b.game_over) {
    const v = b.value;
    $("value").textContent = "Final margin " + signed(v) + ": " + (v > 0 ? "South wins" : v < 0 ? "North wins" : "a draw");
  } else if (exactValue) {
    $("value").textContent = "Value with perfect play: " + signed(b.value) + (proved ? ", proved" : "") +
      " (South minus North; " + sideName(pos.to_move) + " " + ({ win: "wins", draw: "draws", loss: "loses" })[b.result] + ")";
  } else {
    $("value").textContent = "Value with perfect play: between " + boundsText(b) +
      " (proved bounds, not the value; South minus North)";
  }
  const tbody = $("moves").querySelector("tbody");
  tbody.innerHTML = "";
  for (const m of b.moves) {
    const tr = document.createElement("tr");
    const exact = m.exact !== false;
    tr.dataset.move = m.move;
    tr.dataset.exact = String(exact);
    let margin, result;
    if (exact) {
      tr.dataset.value = String(m.value);
      margin = signed(m.value);
      result = '<span class="' + m.result + '">&nbsp;' + m.result + "&nbsp;</span>" +
        (proved && !m.certified ? ' <span class="uncertified">not yet certified</span>' : "");
    } else {
      tr.dataset.atLeast = String(m.margin_at_least);
      tr.dataset.atMost = String(m.margin_at_most);
      margin = boundsText(m);
      result = '<span class="bounds">&nbsp;bounds&nbsp;</span>' +
        (m.result ? ' <span class="' + m.result + '">&nbsp;' + m.result + "&nbsp;</span>" : "");
    }
    tr.innerHTML = '<td class="move">' + m.move + '</td><td class="value">' + margin + "</td><td>" + result + "</td>";
    if (!computerToMove(pos)) tr.addEventListener("click", () => play(stripNotes(m.move)));
    tbody.appendChild(tr);
  }
  $("pv").textContent = b.pv.join(" ") + (proved && b.pv.length ? " (the proof records no further line)" : "");
  drawBoard(pos, b.moves);
  if (!$("swap-box").hidden) {
    $("swap-value").textContent = "swapping takes over " + sideName(positions[0].to_move) +
      "'s seat, worth " + signed(b.value) + " (South minus North)";
  }
}

async function play(move) {
  showError("");
  const pos = positions[state.at];
  const r = await api("/api/play", Object.assign(params(pos.position), { move }));
  if (r.status !== 200) { showError(r.body.error); return; }
  const p = r.body.played[0];
  // Playing off the line's end cuts the line there.
  state.moves = state.moves.slice(0, state.at).concat([p.move]);
  positions = positions.slice(0, state.at + 1);
  positions.push({ position: p.position, to_move: p.position.slice(-1), game_over: p.game_over, move: p });
  if (state.swap && firstTurnEnd() < 0) state.swap = false;
  state.at += 1;
  await render();
}

function go(k) {
  state.at = Math.min(Math.max(0, k), state.moves.length);
  render();
}

async function restart(newStart) {
  state.start = newStart;
  state.moves = [];
  state.at = 0;
  state.swap = false;
  return await reload();
}

async function reload(query) {
  showError("");
  try {
    await replay(query);
  } catch (e) {
    showError(e.message);
    return false;
  }
  await render();
  return true;
}

// The link's position or rules were refused: say so and show no board, never another
// position in its place. The selects show the server's own rules, whose start the Start
// button opens.
async function refuseLink(position) {
  positions = [];
  state.start = "";
  state.moves = [];
  state.at = 0;
  state.swap = false;
  generation++;
  $("board").innerHTML = "";
  $("board").style.display = "none";
  $("moves").querySelector("tbody").innerHTML = "";
  $("line").innerHTML = "";
  $("pv").textContent = $("value").textContent = $("note").textContent = $("turn").textContent = "";
  $("swap-box").hidden = true;
  for (const b of ["first", "back", "forward", "last"]) $(b).disabled = true;
  $("status").dataset.state = "error";
  $("status").textContent = "No position shown: the server refused this link (the reason is below). " +
    "Correct the position and press Set, or press Start for the start of the rules shown.";
  $("position").value = position;
  const d = await api("/api/position", {});
  if (d.status === 200) {
    adopt(d.body.game);
    drawRules();
  }
}

// A fair start of the rules shown, at random from the committed list (/api/fair): a start
// near the rules' start that perfect play draws. It opens as any position does, so the
// link to it reproduces it.
async function fairStart() {
  const d = await api("/api/fair", params(""));
  if (d.status !== 200) {
    showError(d.body.error);
    return;
  }
  const pick = d.body.starts[Math.floor(Math.random() * d.body.starts.length)];
  await restart(pick.position);
  $("note").textContent = "A fair start: " + pick.moved + " seed" + (pick.moved === 1 ? "" : "s") +
    " moved from the start, one of " + d.body.count + " that perfect play draws.";
}

function fillSelect(id, values) {
  const s = $(id);
  s.innerHTML = "";
  for (const v of values) {
    const o = document.createElement("option");
    o.value = String(v);
    o.textContent = String(v);
    s.appendChild(o);
  }
}

async function main() {
  const c = await api("/api/config", {});
  config = c.body;
  fillSelect("pits", [1, 2, 3, 4, 5, 6]);
  fillSelect("seeds", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  for (const [k, values] of Object.entries(config.switches)) fillSelect(k, values);
  const q = new URLSearchParams(location.search);
  // The link's rules and position go to the server as they are, as any API request's: it
  // fills in its defaults and infers the game from a position (see params()), and the page
  // takes the rules it answers with.
  const link = {};
  for (const k of RULE_KEYS.concat(["pie", "position"])) if (q.get(k) !== null) link[k] = q.get(k);
  state.moves = (q.get("moves") || "").split(/\s+/).filter((m) => m);
  state.at = q.get("at") !== null ? Number(q.get("at")) : state.moves.length;
  if (!Number.isInteger(state.at)) state.at = state.moves.length;
  state.computer = /^[AB]$/.test(q.get("computer") || "") ? q.get("computer") : "";
  state.swap = q.get("swap") === "1";

  for (const k of RULE_KEYS) {
    $(k).addEventListener("change", async () => {
      state.rules[k] = $(k).value;
      // A new board size or seed count starts over; any other switch replays the line.
      if (k === "pits" || k === "seeds") await restart("");
      else await reload();
    });
  }
  $("pie").addEventListener("change", async () => { state.rules.pie = $("pie").checked; state.swap = false; await render(); });
  $("computer").addEventListener("change", () => { state.computer = $("computer").value; render(); });
  $("back").addEventListener("click", () => go(state.at - 1));
  $("forward").addEventListener("click", () => go(state.at + 1));
  $("first").addEventListener("click", () => go(0));
  $("last").addEventListener("click", () => go(state.moves.length));
  $("swap").addEventListener("click", () => { state.swap = true; render(); });
  $("reset").addEventListener("click", () => restart(""));
  $("fair").addEventListener("click", fairStart);
  $("set-position").addEventListener("click", async () => {
    const text = $("position").value.trim();
    const old = { start: state.start, moves: state.moves, at: state.at };
    if (!(await restart(text))) Object.assign(state, old);
  });
  $("position").addEventListener("keydown", (e) => { if (e.key === "Enter") $("set-position").click(); });
  if (!(await reload(link))) await refuseLink(link.position || "");
}

main();
