// cardjax's web table: the lobby form, then one table drawn from the server's views.
// The server holds the game and every rule: this page draws what a view says, sends the
// person's clicks as moves, and shows the reason when a move is refused.
"use strict";

const $ = (sel) => document.querySelector(sel);
const PHASES = {
  play: "Tricks", bidding: "Bidding", declare: "Dealing · declare trumps",
  bury: "Burying the kitty", overturn: "Overturning", expose: "Exposing", over: "Game over",
};
const NARROW = 640; // px: below this the table stacks and the cards shrink
const S = {
  games: {}, id: null, view: null, at: null, timer: null, busy: false,
  selected: [], preview: null, previewSeq: 0, hint: -1, hinted: null, message: null,
  position: null, preparing: null,
};

// ------------------------------------------------------------------ the server
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw Object.assign(new Error("the server does not answer"), { status: 0 });
  }
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const message = (data && data.error) || `HTTP ${response.status}`;
    throw Object.assign(new Error(message), { status: response.status });
  }
  return data;
}

// ------------------------------------------------------------------ elements
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

function cardEl(face, size) {
  const c = el("div", "card" + (size ? " " + size : ""));
  c.dataset.id = face.id;
  if (face.red) c.classList.add("red");
  if (face.trump) c.classList.add("trump");
  if (face.joker) {
    // told apart beyond colour: the big joker a filled star and JOKER, the small one a
    // hollow star and joker, each with its size written under the star
    const big = face.joker === "big";
    c.classList.add("joker", face.joker);
    c.title = big ? "big joker" : "small joker";
    const corner = el("span", "corner");
    corner.append(el("span", "star", big ? "★" : "☆"));
    for (const ch of big ? "JOKER" : "joker") corner.append(el("span", "l", ch));
    const pip = el("span", "pip");
    pip.append(el("span", "star", big ? "★" : "☆"), el("span", "size", big ? "BIG" : "small"));
    c.append(corner, pip);
    return c;
  }
  const corner = el("span", "corner");
  corner.append(el("span", "r", face.rank), el("span", "s", face.suit));
  const br = corner.cloneNode(true);
  br.classList.add("br");
  if (!face.suit) c.classList.add("rank-only");
  c.title = face.rank + face.suit;
  c.append(corner, el("span", "pip", face.suit || face.rank), br);
  return c;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function backs(n, size) {
  const row = el("div", "fan backs");
  for (let i = 0; i < n; i++) row.append(el("div", "card back " + (size || "sm")));
  return row;
}

function fan(faces, size) {
  const row = el("div", "fan" + (faces.length > 12 ? " lots" : faces.length > 6 ? " many" : ""));
  for (const f of faces) row.append(cardEl(f, size));
  return row;
}

// ------------------------------------------------------------------ the lobby
async function lobby() {
  S.games = await api("GET", "/api/games");
  const tiles = $("#games");
  tiles.replaceChildren();
  for (const [game, info] of Object.entries(S.games)) {
    const tile = el("label", "game-tile");
    const radio = el("input");
    Object.assign(radio, { type: "radio", name: "game", value: game });
    tile.append(radio, el("b", null, info.title), el("span", null, info.blurb));
    radio.addEventListener("change", () => chooseGame(game));
    tiles.append(tile);
  }
  const first = tiles.querySelector("input"); // the games come in their cards' order
  first.checked = true;
  chooseGame(first.value);
  $("#seat").addEventListener("change", seatRows);
}

function chooseGame(game) {
  const info = S.games[game];
  document.querySelectorAll(".game-tile").forEach((t) =>
    t.classList.toggle("chosen", t.querySelector("input").value === game));
  const seat = $("#seat");
  seat.replaceChildren();
  info.seats.forEach((name, i) => seat.append(new Option(`${name} (seat ${i})`, String(i))));
  seat.append(new Option("none: watch the players", "watch"));
  $("#baselines").textContent = info.players.join(", ");
  readyNote(game);
  const words = $("#player-words");
  words.replaceChildren(...info.players.map((p) => new Option(p, p)));
  const options = $("#options");
  options.replaceChildren();
  for (const opt of info.options) {
    const label = el("label");
    let input;
    if (opt.choices) {
      input = el("select");
      for (const c of opt.choices) input.append(new Option(c === null ? "random" : c, c === null ? "" : c));
      label.append(opt.label + " ", input);
    } else {
      input = el("input");
      input.type = "checkbox";
      input.checked = !!opt.default;
      label.append(input, opt.label);
    }
    input.dataset.option = opt.name;
    options.append(label);
  }
  // player words are the game's own: another game's (greed at a Mini Dou Di Zhu table) is not
  // carried over, as a change of seat carries them
  $("#players").replaceChildren();
  seatRows();
}

async function readyNote(game) {
  // whether the game's default table is compiled (the server warms them as it starts)
  const note = $("#ready-note");
  note.textContent = "";
  let all;
  try { all = await api("GET", "/api/programs"); } catch (e) { return; }
  const p = all[game];
  if (!p || chosenGame() !== game) return;
  note.textContent = p.state === "ready" ? "The players are ready: the table starts at once."
    : `The first table compiles the players: ${howLong(p)}`
      + (p.state === "warming" ? " (the server is preparing them now)." : ".");
}

function seatRows() {
  const game = chosenGame();
  const info = S.games[game];
  const me = $("#seat").value;
  const rows = $("#players");
  const old = {};
  rows.querySelectorAll("input").forEach((i) => { if (!i.disabled) old[i.dataset.seat] = i.value; });
  rows.replaceChildren();
  info.seats.forEach((name, i) => {
    const label = el("label");
    const input = el("input");
    input.dataset.seat = String(i);
    input.setAttribute("list", "player-words");
    if (String(i) === me) {
      input.value = "you";
      input.disabled = true;
    } else {
      input.value = old[i] || info.default;
    }
    label.append(el("b", null, name), input);
    rows.append(label);
  });
}

function chosenGame() {
  return document.querySelector('#games input:checked').value;
}

async function startTable(event) {
  event.preventDefault();
  const game = chosenGame();
  const options = {};
  document.querySelectorAll("#options [data-option]").forEach((input) => {
    if (input.type === "checkbox") options[input.dataset.option] = input.checked;
    else if (input.value !== "") options[input.dataset.option] = input.value;
  });
  const seat = $("#seat").value;
  const players = [...document.querySelectorAll("#players input")].map((i) => i.value.trim());
  const body = { game, options, seat: seat === "watch" ? null : Number(seat), players,
                 pace: Number($("#pace").value) };
  const seed = $("#seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  $("#lobby-error").textContent = "";
  $("#start").disabled = true;
  try {
    const made = await api("POST", "/api/tables", body);
    openTable(made.id, made.view);
  } catch (e) {
    $("#lobby-error").textContent = e.message;
  } finally {
    $("#start").disabled = false;
  }
}

// ------------------------------------------------------------------ the table
function openTable(id, view) {
  S.id = id;
  S.at = null;
  S.view = null;
  S.position = null;
  S.preparing = null;
  history.replaceState(null, "", "#table=" + id);
  document.body.dataset.screen = "table";
  $("#lobby").hidden = true;
  $("#table").hidden = false;
  $("#leave").hidden = false;
  if (view) show(view);
  schedule(150);
}

function leaveTable() {
  if (S.id) api("POST", `/api/tables/${S.id}/close`).catch(() => {});
  clearTimeout(S.timer);
  S.id = null;
  S.view = null;
  history.replaceState(null, "", "#");
  document.body.dataset.screen = "lobby";
  document.body.dataset.turn = "";
  $("#table").hidden = true;
  $("#lobby").hidden = false;
  $("#leave").hidden = true;
  $("#download").hidden = true;
  $("#title").textContent = "";
}

function gone(message) {
  leaveTable();
  $("#lobby-error").textContent = message;
}

function schedule(ms) {
  clearTimeout(S.timer);
  S.timer = setTimeout(refresh, ms);
}

async function refresh() {
  if (!S.id) return;
  const id = S.id;
  try {
    const query = S.at === null ? "" : `?at=${S.at}`;
    const view = await api("GET", `/api/tables/${id}${query}`);
    if (id === S.id) show(view);
  } catch (e) {
    if (e.status === 404) return gone(e.message);
    setMessage(e.message, "error");
  }
  if (id === S.id) schedule(nextDelay());
}

function nextDelay() {
  const v = S.view;
  if (!v) return 500;
  if (!v.ready || v.thinking !== null) return 250;
  if (v.over || v.person || S.at !== null || v.error) return 4000; // a heartbeat
  return 300;
}

function setMessage(text, kind) {
  S.message = text ? { text, kind } : null;
  const m = $("#message");
  m.textContent = text || "";
  m.className = kind || "";
}

// the seats around the table: the person (or seat 0 when watching) at the bottom
function positions(view) {
  const n = view.seats.length;
  const base = view.you === null ? 0 : view.you;
  const order = { 4: ["bottom", "left", "top", "right"], 3: ["bottom", "left", "right"],
                  2: ["bottom", "top"] }[n];
  return view.seats.map((_, seat) => order[(seat - base + n) % n]);
}

function show(view) {
  const position = `${view.at}/${view.moves}`;
  if (position !== S.position) { // a new position: what was chosen for the old one goes
    S.position = position;
    S.selected = [];
    S.preview = null;
    S.hint = -1;
    S.hinted = null;
    if (S.message && S.message.kind !== "error") setMessage(null);
  }
  S.view = view;
  const info = S.games[view.game] || { title: view.game };
  $("#title").textContent = `${info.title} · deal ${view.seed}`;
  document.body.dataset.game = view.game;
  document.body.dataset.phase = view.phase;
  document.body.dataset.turn = view.person ? "you" : view.over ? "over" : "wait";
  document.body.dataset.ready = view.ready ? "1" : "0";
  document.body.dataset.moves = String(view.moves);
  $("#phase").textContent = view.phase === "play" && info.play_label
    ? info.play_label : PHASES[view.phase] || view.phase;
  drawInfo(view);
  drawSeats(view);
  drawCentre(view);
  drawMe(view);
  drawReview(view);
  drawResult(view);
  drawLog(view);
  drawBanner(view, info);
  const download = $("#download");
  download.hidden = !view.over;
  download.href = `/api/tables/${view.id}/record`;
}

// how long preparing takes, in words, from the server's estimate ({seconds, source}: this
// machine's last time, or a laptop's when nothing is recorded; "ready": compiled already)
function howLong(estimate) {
  if (!estimate) return "a minute or more";
  if (estimate.source === "ready") return "a moment: they are compiled already";
  const s = estimate.seconds;
  const about = s < 100 ? `about ${s} s` : `about ${Math.round(s / 60)} minutes`;
  return estimate.source === "recorded" ? `${about}, as the last time on this server`
    : `${about} on a laptop`;
}

function drawBanner(view, info) {
  // a row of its own above the seats (it covers no name); while the players compile it says
  // what is happening, how long it takes and how long it has taken
  const banner = $("#banner");
  banner.hidden = view.ready && !view.error;
  banner.className = view.error ? "error" : "";
  if (view.error) {
    banner.textContent = view.error;
  } else if (!view.ready) {
    S.preparing = S.preparing || Date.now();
    const waited = Math.round((Date.now() - S.preparing) / 1000);
    const title = info.title || view.game;
    banner.textContent = `Preparing the players: the first table of ${title} compiles them `
      + `(${howLong(view.estimate)}; later tables start at once) · ${waited} s`;
  }
}

function drawInfo(view) {
  const table = $("#info");
  table.replaceChildren();
  for (const [k, v] of view.info) {
    const tr = el("tr");
    tr.append(el("td", null, k), el("td", null, v));
    table.append(tr);
  }
}

function seatHeader(view, seat, box) {
  const s = view.seats[seat];
  const who = el("div", "who");
  const player = view.players[seat] === "you" ? "" : view.players[seat];
  who.append(el("span", "name", s.name), el("span", "player", player));
  box.append(who);
  if (s.badges.length) {
    const badges = el("div", "badges");
    for (const b of s.badges) badges.append(el("span", "badge " + b, b));
    box.append(badges);
  }
}

function drawSeats(view) {
  const pos = positions(view);
  document.querySelectorAll(".seat-box").forEach((b) => { b.replaceChildren(); b.className = "seat-box"; });
  view.seats.forEach((s, seat) => {
    if (pos[seat] === "bottom") return;
    const box = document.querySelector(`.seat-box[data-pos="${pos[seat]}"]`);
    const live = view.turn === seat && S.at === null && view.ready;
    if (live) box.classList.add("turn");
    seatHeader(view, seat, box);
    const status = el("div", "status");
    if (view.thinking === seat) {
      status.textContent = "thinking";
      status.classList.add("thinking");
    } else if (live) {
      status.textContent = "to play";
    }
    box.append(status);
    if (s.hand) {
      const open = el("div", "open");
      for (const f of s.hand) open.append(cardEl(f, "sm"));
      box.append(open, el("div", "count", plural(s.count, "card")));
    } else {
      const held = el("div", "held");
      held.append(backs(Math.min(s.count, 8), "sm"), el("span", "count", plural(s.count, "card")));
      box.append(held);
    }
    if (s.note) box.append(el("div", "note", `score ${s.note}`));
    if (s.exposed && s.exposed.length) {
      const ex = el("div", "taken");
      ex.append(el("span", "count", "exposed "));
      for (const f of s.exposed) ex.append(cardEl(f, "sm"));
      box.append(ex);
    }
    if (s.taken && s.taken.length) {
      const taken = el("div", "taken");
      for (const f of s.taken) taken.append(cardEl(f, "sm"));
      box.append(taken);
    }
  });
}

function drawCentre(view) {
  const pos = positions(view);
  document.querySelectorAll(".spot").forEach((spot) => { spot.replaceChildren(); spot.className = "spot"; });
  view.seats.forEach((s, seat) => {
    const spot = document.querySelector(`.spot[data-pos="${pos[seat]}"]`);
    if (s.table.length) spot.append(fan(s.table, "lg"));
    if (s.label) spot.append(el("span", "bubble", s.label));
    if (view.trick) spot.classList.add("faded");
  });
  const middle = $("#centre-cards");
  middle.replaceChildren();
  if (view.centre) {
    middle.append(el("span", "label", view.centre.label));
    middle.append(view.centre.cards ? fan(view.centre.cards, "md") : backs(view.centre.backs, "md"));
  }
  $("#trick-note").textContent = view.trick || "";
}

function myFaces(view) {
  const bottom = positions(view).indexOf("bottom");
  return view.seats[bottom].hand || [];
}

function drawMe(view) {
  const person = S.at === null ? view.person : null;
  const bottom = positions(view).indexOf("bottom");
  const s = view.seats[bottom];
  $("#me").classList.toggle("turn", !!person);
  const seat = $("#me-seat");
  seat.replaceChildren();
  seatHeader(view, bottom, seat);
  if (view.thinking === bottom) seat.append(el("span", "status thinking", "thinking"));
  if (s.note) seat.append(el("span", "note", `score ${s.note}`));
  if (s.taken && s.taken.length) {
    const taken = el("span", "taken");
    for (const f of s.taken) taken.append(cardEl(f, "sm"));
    seat.append(taken);
  }
  let prompt = "";
  if (person) prompt = person.prompt;
  else if (S.at !== null) prompt = `Move ${view.at} of ${view.moves}`;
  else if (view.over) prompt = "The game is over";
  else if (!view.ready && !view.error) prompt = "Preparing the players…";
  else if (view.watch) prompt = "Watching";
  else if (view.turn !== null) prompt = `${view.seats[view.turn].name.replace(" (you)", "")} to play`;
  $("#prompt").textContent = prompt;
  if (S.message) setMessage(S.message.text, S.message.kind);

  const faces = myFaces(view);
  drawHand(view, person, faces);
  drawActions(person, faces);
}

// The hand in rows: each card shows at least its corner (rank and suit, "10" whole); a hand too
// long for one row wraps, the rows overlapping below the corners.
function drawHand(view, person, faces) {
  const hand = $("#hand");
  hand.replaceChildren();
  const cardMove = person && (person.playable.length || person.submit);
  hand.className = "hand" + (cardMove ? " asking" : "")
    + (view.watch || S.at !== null ? " watching" : "");
  const playable = new Set(person ? (S.preview ? S.preview.playable : person.playable) : []);
  const w = window.innerWidth < NARROW ? 52 : 74;
  hand.style.setProperty("--w", `${w}px`); // the rows' overlap
  const room = Math.max(w, (hand.clientWidth || 900) - 24);
  const shown = Math.ceil(w * 0.46); // the corner's width, "10" included
  const perRow = Math.max(1, Math.floor((room - w) / shown) + 1);
  const rows = Math.max(1, Math.ceil(faces.length / perRow));
  const inRow = Math.ceil(faces.length / rows);
  const step = inRow > 1 ? Math.min(w + 6, (room - w) / (inRow - 1)) : 0;
  let row = null;
  faces.forEach((f, i) => {
    if (i % inRow === 0) {
      row = el("div", "hand-row");
      hand.append(row);
    }
    const c = cardEl(f);
    c.style.setProperty("--w", `${w}px`);
    if (i % inRow) c.style.marginLeft = `${Math.floor(step - w)}px`;
    if (S.selected.includes(i)) c.classList.add("selected");
    else if (playable.has(f.id)) c.classList.add("playable");
    if (S.hinted && S.hinted.card === i) c.classList.add("hinted");
    c.addEventListener("click", () => clickCard(i));
    row.append(c);
  });
}

function drawActions(person, faces) {
  const actions = $("#actions");
  actions.replaceChildren();
  if (!person) return;
  for (const choice of person.choices) {
    const b = el("button", "choice", choice.label);
    b.type = "button";
    b.disabled = !choice.enabled;
    b.dataset.move = choice.text;
    if (S.hinted && S.hinted.text === choice.text) b.classList.add("hinted");
    b.addEventListener("click", () => sendMove({ text: choice.text }));
    actions.append(b);
  }
  if (hintMoves(person).length) {
    const hint = el("button", null, "Hint");
    hint.type = "button";
    hint.id = "hint";
    hint.title = "a legal move (again: another one)";
    hint.addEventListener("click", nextHint);
    actions.append(hint);
  }
  if (person.multi) {
    const clear = el("button", null, "Clear");
    clear.type = "button";
    clear.disabled = !S.selected.length;
    clear.addEventListener("click", () => {
      S.selected = []; S.preview = null; setMessage(null); drawMe(S.view);
    });
    actions.append(clear);
  }
  if (person.submit) {
    const submit = el("button", "primary", person.submit);
    submit.type = "button";
    submit.id = "submit";
    // playable only once the server's preview says the chosen cards make a legal move
    const ready = !!(S.preview && S.preview.ready && S.selected.length);
    submit.disabled = !ready;
    if (ready) submit.classList.add("ready");
    submit.addEventListener("click", () => sendMove({ cards: S.selected.map((i) => faces[i].id) }));
    actions.append(submit);
  }
}

async function clickCard(index) {
  const view = S.view;
  if (!view || S.at !== null || view.watch) return;
  const faces = myFaces(view);
  const person = view.person;
  if (!person || !person.multi || !person.submit) {
    return sendMove({ cards: [faces[index].id] }); // one card a move, or not now: the server says
  }
  const at = S.selected.indexOf(index);
  if (at >= 0) S.selected.splice(at, 1);
  else S.selected.push(index);
  S.hinted = null;
  await updatePreview();
}

async function updatePreview() {
  const faces = myFaces(S.view);
  const ids = S.selected.map((i) => faces[i].id);
  const seq = ++S.previewSeq;
  if (!ids.length) {
    S.preview = null;
    setMessage(null);
    drawMe(S.view);
    return;
  }
  S.preview = null;
  const submit = $("#submit");
  if (submit) { // Play waits for this selection's answer
    submit.disabled = true;
    submit.classList.remove("ready");
  }
  try {
    const p = await api("POST", `/api/tables/${S.id}/preview`, { cards: ids });
    if (seq !== S.previewSeq) return;
    S.preview = p;
    if (p.reason) setMessage(p.reason, "warn"); // why these cards cannot be played, before Play
    else if (!p.ready) setMessage("Not a whole move yet: add cards (the outlined ones fit)",
      "info");
    else setMessage(null);
  } catch (e) {
    setMessage(e.message, "error");
  }
  drawMe(S.view);
}

// The Hint's moves: the server's first suggestion (cards, or a button such as pass or a bid),
// then its other card moves; each press shows the next.
function hintMoves(person) {
  const list = [];
  const seen = new Set();
  const add = (m) => {
    const key = m && JSON.stringify(m);
    if (m && !seen.has(key)) { seen.add(key); list.push(m); }
  };
  add(person.hint);
  for (const ids of person.suggestions || []) add({ cards: ids });
  return list;
}

function nextHint() {
  const person = S.view.person;
  const list = hintMoves(person);
  if (!list.length) return;
  S.hint = (S.hint + 1) % list.length;
  const move = list[S.hint];
  const faces = myFaces(S.view);
  S.hinted = null;
  if (move.text !== undefined) { // a button: it glows
    const choice = person.choices.find((c) => c.text === move.text);
    S.selected = [];
    S.preview = null;
    S.hinted = { text: move.text };
    setMessage(`Hint: ${choice ? choice.label : move.text}`, "info");
    drawMe(S.view);
    return;
  }
  if (!person.multi || !person.submit) { // one card a move: it glows, a click plays it
    const index = faces.findIndex((f) => f.id === move.cards[0]);
    S.hinted = { card: index };
    setMessage(`Hint: ${faces[index] ? faces[index].rank + faces[index].suit : "a card"}`, "info");
    drawMe(S.view);
    return;
  }
  const free = faces.map((_, i) => i);
  S.selected = [];
  for (const id of move.cards) {
    const k = free.findIndex((i) => faces[i].id === id);
    if (k >= 0) S.selected.push(free.splice(k, 1)[0]);
  }
  updatePreview();
}

async function sendMove(body) {
  if (S.busy || !S.id) return;
  S.busy = true;
  try {
    const view = await api("POST", `/api/tables/${S.id}/move`, body);
    setMessage(null);
    S.position = null;
    show(view);
    schedule(150);
  } catch (e) {
    if (e.status === 404) gone(e.message);
    else {
      setMessage(e.message, "error");
      drawMe(S.view);
    }
  } finally {
    S.busy = false;
  }
}

// ------------------------------------------------------------------ stepping through a game
function drawReview(view) {
  const box = $("#review");
  box.hidden = !(view.over || view.watch);
  const slider = $("#review-slider");
  slider.max = String(view.moves);
  slider.value = String(S.at === null ? view.moves : S.at);
  $("#review-at").textContent = `move ${S.at === null ? view.moves : S.at} of ${view.moves}`;
}

function review(at) {
  const v = S.view;
  if (!v) return;
  at = Math.max(0, Math.min(v.moves, at));
  S.at = at === v.moves && !v.over ? null : at;
  if (at === v.moves && v.over) S.at = null;
  refresh();
}

function drawResult(view) {
  const box = $("#result");
  box.hidden = !(view.over && S.at === null);
  $("#hand").hidden = !box.hidden && !myFaces(view).length;
  if (box.hidden) return;
  box.replaceChildren(el("h2", null, "Game over"));
  for (const line of view.result.lines) box.append(el("p", null, line));
  const buttons = el("div", "buttons");
  const download = el("a", "button", "Download record");
  download.href = `/api/tables/${view.id}/record`;
  download.setAttribute("download", "");
  const step = el("button", null, "Step through");
  step.type = "button";
  step.addEventListener("click", () => review(0));
  const again = el("button", "primary", "New game");
  again.type = "button";
  again.addEventListener("click", leaveTable);
  buttons.append(download, step, again);
  box.append(buttons);
}

function drawLog(view) {
  const log = $("#log");
  log.replaceChildren(...view.log.map((line) => el("li", null, line)));
  log.scrollTop = log.scrollHeight;
}

// ------------------------------------------------------------------ start
document.addEventListener("DOMContentLoaded", async () => {
  $("#new-table").addEventListener("submit", startTable);
  $("#leave").addEventListener("click", leaveTable);
  document.querySelectorAll("#review [data-step]").forEach((b) => b.addEventListener("click", () => {
    const v = S.view;
    const now = S.at === null ? v.moves : S.at;
    review({ first: 0, back: now - 1, next: now + 1, last: v.moves }[b.dataset.step]);
  }));
  $("#review-slider").addEventListener("input", (e) => review(Number(e.target.value)));
  window.addEventListener("resize", () => { if (S.view) drawMe(S.view); });
  try {
    await lobby();
  } catch (e) {
    $("#lobby-error").textContent = e.message;
  }
  const follow = () => { // an address with a table's id opens that table
    const match = location.hash.match(/table=([\w-]+)/);
    if (match && match[1] !== S.id) openTable(match[1], null);
  };
  window.addEventListener("hashchange", follow);
  follow();
});
