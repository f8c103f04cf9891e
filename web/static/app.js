// The live view of a Tether match: draws the frames that the hub streams over
// the page's WebSocket and sends the key state back. Plain script, no build.
'use strict';

(() => {
  const PALETTE = ['#ffd23f', '#3bceac', '#ee4bd0', '#ff8c42', '#9d7bff', '#b5e550', '#4dd8ff', '#ff8fab'];
  const TEAM = ['#3d8bff', '#ff5a5a'];
  const TEAM_NAME = ['Blue', 'Red'];
  const HUMAN = '#ffe066';
  const TELEPORT_M = 8; // a jump longer than this between frames is drawn as a jump

  // Read by tests: frames drawn on the canvas, clients drawn in the last one,
  // and the time (ms since the epoch) the last frame arrived.
  // numberPx is the font size of the players' numbers, colours the colours of
  // the clients drawn, both in the last frame.
  // In an arena: truth is the newest frame's server truth, projectiles the
  // server's projectiles drawn in the last frame, fired the server's
  // projectiles fired by the person's player, hits its hits that the server
  // confirmed (its marks with a player hit), aimSent the aims sent.
  const stats = {framesDrawn: 0, clientsShown: 0, lastUpdate: 0, framesReceived: 0, connected: false, ball: null,
    numberPx: 0, colours: [], arena: false, truth: null, projectiles: 0, fired: 0, hits: 0, aimSent: 0};
  Object.defineProperty(stats, 'frames', {get: () => stats.framesDrawn}); // the same, by its short name
  window.tetherStats = stats;

  const canvas = document.getElementById('pitch');
  const ctx = canvas.getContext('2d');
  const rows = document.getElementById('rows');

  let pitch = {length: 105, width: 68, goal_width: 7.32, goal_height: 2.44, goal_depth: 2, margin: 3};
  let prev = null; // {f: frame, at: performance.now() at arrival}
  let cur = null;
  let settled = false; // cur has been drawn in full
  let mode = 'ghosts';
  try { mode = localStorage.getItem('tether.mode') || mode; } catch (e) { /* storage off */ }
  const hidden = new Set(); // names of clients not drawn
  let clientNames = '';
  let lastTable = 0;

  // ---- the socket ----------------------------------------------------------

  let socket = null;
  let backoff = 250;

  function connect() {
    const u = new URL('ws', location.href);
    u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(u);
    socket = ws;
    ws.onopen = () => {
      backoff = 250;
      setStatus(true);
      if (Object.values(keyState).some(Boolean)) sendKeys();
    };
    ws.onmessage = (ev) => {
      let m;
      try { m = JSON.parse(ev.data); } catch (e) { return; }
      if (m.type === 'pitch') {
        pitch = m.pitch;
        if (m.play) document.getElementById('play').hidden = false;
        window.tetherPlay.records = !!m.records;
        window.tetherPlay.webtransport = !!m.webtransport;
        setArena(!!pitch.arena);
        layout();
      } else if (m.type === 'frame') {
        onFrame(m);
      }
    };
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      setStatus(false);
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 4000);
    };
  }

  function setStatus(live) {
    stats.connected = live;
    const el = document.getElementById('status');
    el.textContent = live ? 'live' : 'reconnecting…';
    el.className = 'status ' + (live ? 'live' : 'off');
  }

  function onFrame(f) {
    if (playing) {
      // The canvas is the browser client's; the table keeps the bots'
      // figures, and tetherStats.truth the server's truth for tests.
      stats.truth = f.truth;
      updateTable(f);
      return;
    }
    prev = cur;
    cur = {f, at: performance.now()};
    settled = false;
    stats.framesReceived++;
    stats.truth = f.truth;
    countHits(f);
    stats.lastUpdate = Date.now();
    const b = f.truth.ball.pos;
    stats.ball = [b[0], b[1], b[2]];
    const names = f.clients.map((c) => c.name).join('\u0000');
    if (names !== clientNames) {
      clientNames = names;
      buildTable(f.clients);
      layout();
    }
    const now = performance.now();
    if (now - lastTable > 250) {
      lastTable = now;
      updateTable(f);
      updateHeader(f);
    }
  }

  // ---- keys ----------------------------------------------------------------

  const KEYS = {
    KeyW: 'up', ArrowUp: 'up', KeyS: 'down', ArrowDown: 'down',
    KeyA: 'left', ArrowLeft: 'left', KeyD: 'right', ArrowRight: 'right',
    ShiftLeft: 'sprint', ShiftRight: 'sprint', Space: 'kick',
  };
  const KEYS_BY_KEY = {
    w: 'KeyW', a: 'KeyA', s: 'KeyS', d: 'KeyD', ' ': 'Space', Shift: 'ShiftLeft',
    ArrowUp: 'ArrowUp', ArrowDown: 'ArrowDown', ArrowLeft: 'ArrowLeft', ArrowRight: 'ArrowRight',
  };
  const held = new Set(); // codes held down
  let keyState = {up: false, down: false, left: false, right: false, sprint: false, kick: false};

  function onKey(e, down) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const code = KEYS[e.code] ? e.code : KEYS_BY_KEY[e.key] || KEYS_BY_KEY[String(e.key).toLowerCase()];
    if (!code || !KEYS[code]) return;
    e.preventDefault();
    if (down) held.add(code); else held.delete(code);
    applyKeys();
  }

  function applyKeys() {
    const next = {up: false, down: false, left: false, right: false, sprint: false, kick: false};
    for (const c of held) next[KEYS[c]] = true;
    if (Object.keys(next).every((k) => next[k] === keyState[k])) return;
    if (next.kick && !keyState.kick) kicks++;
    keyState = next;
    sendKeys();
    for (const el of document.querySelectorAll('.keys kbd')) {
      el.classList.toggle('on', keyState[el.dataset.k]);
    }
  }

  function sendKeys() {
    if (playing) return; // the keys are the browser client's
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(Object.assign({type: 'keys'}, keyState, pitch.arena ? mouse : {})));
    }
  }

  // ---- the mouse, in an arena: aim where it points, left button fires a
  // projectile, right button a hitscan shot. Aims are sent at most 30 times
  // a second; a button's change at once.

  const mouse = {primary: false, secondary: false, aiming: false, aim: [0, 0]};
  let aimAt = 0;
  let aimTimer = 0;

  function pointAt(e) {
    const r = canvas.getBoundingClientRect();
    const px = e.clientX - r.left;
    const py = e.clientY - r.top;
    const t = tiles.find((t) => t.v && px >= t.x && px < t.x + t.w && py >= t.y && py < t.y + t.h) || tiles[0];
    if (!t || !t.v) return false;
    mouse.aim = [+t.v.ix(px).toFixed(3), +t.v.iz(py).toFixed(3)];
    mouse.aiming = true;
    return true;
  }

  function sendAim() {
    const now = performance.now();
    if (now - aimAt < 33) {
      if (!aimTimer) aimTimer = setTimeout(() => { aimTimer = 0; sendAim(); }, 33 - (now - aimAt));
      return;
    }
    aimAt = now;
    stats.aimSent++;
    sendKeys();
  }

  canvas.addEventListener('mousemove', (e) => {
    if (pitch.arena && pointAt(e)) sendAim();
  });
  canvas.addEventListener('mousedown', (e) => {
    if (!pitch.arena || (e.button !== 0 && e.button !== 2)) return;
    e.preventDefault();
    pointAt(e);
    mouse[e.button === 0 ? 'primary' : 'secondary'] = true;
    aimAt = performance.now();
    sendKeys();
  });
  window.addEventListener('mouseup', (e) => {
    if (!pitch.arena || (e.button !== 0 && e.button !== 2)) return;
    const b = e.button === 0 ? 'primary' : 'secondary';
    if (!mouse[b]) return;
    mouse[b] = false;
    sendKeys();
  });
  canvas.addEventListener('contextmenu', (e) => { if (pitch.arena) e.preventDefault(); });

  window.addEventListener('keydown', (e) => onKey(e, true));
  window.addEventListener('keyup', (e) => onKey(e, false));
  window.addEventListener('blur', () => {
    held.clear();
    if (mouse.primary || mouse.secondary) {
      mouse.primary = mouse.secondary = false;
      sendKeys();
    }
    applyKeys();
  });

  // ---- header and table ----------------------------------------------------

  function updateHeader(f) {
    const s = f.truth.score;
    const h = f.truth.players.find((p) => p.human);
    document.getElementById('score').textContent = !pitch.arena ? s[0] + ' – ' + s[1]
      : h ? 'you: ' + stats.fired + ' fired, ' + stats.hits + ' hits' : '';
    document.getElementById('clock').textContent = isFinite(f.t) && f.t !== null ? 't = ' + f.t.toFixed(1) + ' s' : 't = –';
    const you = document.getElementById('you');
    you.textContent = '';
    if (!h) {
      you.textContent = 'No player under your keys yet';
      return;
    }
    const id = document.createElement('b');
    id.textContent = '#' + h.id;
    if (pitch.arena) {
      you.append('You play ', id, ' (yellow ring): W A S D run, the mouse aims, left click fires a projectile, right click a hitscan shot');
      return;
    }
    const team = document.createElement('b');
    team.textContent = TEAM_NAME[h.team] || 'team ' + h.team;
    team.style.color = TEAM[h.team] || HUMAN;
    you.append('Your keys drive ', id, ' of ', team, ' (yellow ring)');
  }

  const BALL_COLUMNS = [
    ['clock_err_ms', 'ms'], ['ball_fidelity_m', 'm'], ['ball_present_m', 'm'], ['delay_ms', 'ms'],
    ['down_kbps', 'kbps'], ['up_kbps', 'kbps'],
  ];
  // In an arena the ball's two columns give way to the projectiles' error.
  const ARENA_COLUMNS = [
    ['clock_err_ms', 'ms'], ['proj_err_m', 'm'], ['delay_ms', 'ms'], ['down_kbps', 'kbps'], ['up_kbps', 'kbps'],
  ];
  let COLUMNS = BALL_COLUMNS;
  let ballHeads = null; // the table's head for a pitch, kept while an arena shows

  // setArena switches the page between a pitch and an arena: the table's
  // columns, the header and the legend.
  function setArena(on) {
    if (stats.arena === on) return;
    stats.arena = on;
    COLUMNS = on ? ARENA_COLUMNS : BALL_COLUMNS;
    const head = document.querySelector('thead tr');
    if (on) {
      ballHeads = Array.from(head.children);
      head.textContent = '';
      for (const [text, sub, title] of [
        ['client'], ['link'], ['projectiles', '', 'how the client draws projectiles: tether fast-forwards them by their age, seed draws them from the message as it arrives'],
        ['clock error'], ['projectile error', 'to the server\'s', 'how far the client draws projectiles from where the server has them at the same moment'],
        ['render delay'], ['down'], ['up'],
      ]) {
        const th = document.createElement('th');
        th.textContent = text;
        if (title) th.title = title;
        if (sub) {
          const s = document.createElement('span');
          s.className = 'sub';
          s.textContent = sub;
          th.append(s);
        }
        head.append(th);
      }
    } else if (ballHeads) {
      head.replaceChildren(...ballHeads);
    }
    for (const el of document.querySelectorAll('.score .team, #legend .ballonly')) el.hidden = on;
    for (const el of document.querySelectorAll('#legend .arenaonly')) el.hidden = !on;
    document.querySelector('h1 .sub').textContent = on ? 'live arena' : 'live match';
    document.getElementById('discs').textContent = on ? 'the server\'s truth' : 'the server\'s truth (Blue, Red)';
    document.querySelector('.keys kbd[data-k="kick"]').hidden = on;
    clientNames = ''; // rebuild the rows
    updateLegend();
  }

  // updateLegend shows the legend's entries for what the canvas draws: every
  // client's arcs in the ghosts view of the server's truth, and the gap from
  // a client's ball to the true ball there and in the side-by-side view;
  // neither while this browser's own client draws its view.
  function updateLegend() {
    document.getElementById('legend-arcs').hidden = playing || mode !== 'ghosts';
    document.getElementById('legend-gap').hidden = playing || stats.arena;
  }

  function buildTable(clients) {
    rows.textContent = '';
    clients.forEach((c, i) => {
      const tr = document.createElement('tr');
      tr.dataset.name = c.name;
      tr.classList.toggle('hidden', hidden.has(c.name));
      const name = document.createElement('td');
      const sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = colour(i);
      name.append(sw, c.name);
      const link = document.createElement('td');
      link.textContent = c.link;
      const ball = document.createElement('td');
      ball.textContent = c.ball;
      tr.append(name, link, ball);
      appendFigures(tr, () => '');
      tr.addEventListener('click', () => {
        if (hidden.has(c.name)) hidden.delete(c.name); else hidden.add(c.name);
        tr.classList.toggle('hidden', hidden.has(c.name));
        layout();
      });
      rows.append(tr);
    });
    if (youRow) rows.append(youRow); // after the bots', whose rows are indexed
  }

  // appendFigures appends to row a cell per column of COLUMNS, a value not
  // known yet and its unit, titled by title(the column's key) if it says.
  function appendFigures(row, title) {
    for (const [key, unit] of COLUMNS) {
      const td = document.createElement('td');
      const v = document.createElement('span');
      v.textContent = '–';
      const u = document.createElement('span');
      u.className = 'unit';
      u.textContent = unit;
      td.append(v, u);
      if (title(key)) td.title = title(key);
      row.append(td);
    }
  }

  // fmt returns v as text and its unit; lengths in metres are given in the
  // unit that fits: millimetres under a centimetre, centimetres under a metre.
  function fmt(v, unit) {
    if (v === null || v === undefined || !isFinite(v)) return ['–', unit];
    const a = Math.abs(v);
    if (unit === 'm') {
      if (a < 0.01) return [(v * 1000).toFixed(1), 'mm'];
      if (a < 1) return [(v * 100).toFixed(1), 'cm'];
      return [v.toFixed(2), 'm'];
    }
    return [a < 10 ? v.toFixed(1) : v.toFixed(0), unit];
  }

  function updateTable(f) {
    if (youRow) updateYou();
    f.clients.forEach((c, i) => {
      const tr = rows.children[i];
      if (!tr) return;
      COLUMNS.forEach(([key, unit], j) => {
        // A figure the frame leaves out is 0 (proj_err_m); null is unknown.
        const [text, u] = fmt(c.stats[key] === undefined ? 0 : c.stats[key], unit);
        tr.children[3 + j].firstChild.textContent = text;
        tr.children[3 + j].lastChild.textContent = u;
      });
    });
  }

  // youRow is this browser's client's row in the table, while it plays: its
  // link is the bots' (the demo emulates it on the server's side), and of the
  // figures the page knows its clock's error bound, shown as the clock's
  // error at most, and its render delay; the others are the server's to
  // measure (tether demo -json reports them, as browser-1).
  let youRow = null;
  function addYou() {
    youRow = document.createElement('tr');
    youRow.className = 'self';
    const name = document.createElement('td');
    const sw = document.createElement('span');
    sw.className = 'swatch';
    sw.style.background = HUMAN;
    name.append(sw, 'this browser');
    const link = document.createElement('td');
    link.textContent = cur && cur.f.clients.length ? cur.f.clients[0].link : '–';
    const ball = document.createElement('td');
    ball.textContent = 'tether';
    youRow.append(name, link, ball);
    appendFigures(youRow, (key) => key === 'clock_err_ms' ? 'the clock\'s error bound: the page cannot see its error, only bound it'
      : key === 'delay_ms' ? 'the render delay of this browser\'s client' : 'measured by the server: tether demo -json reports it (browser-1)');
    rows.append(youRow);
  }
  function updateYou() {
    const p = stats.play;
    if (!p) return;
    COLUMNS.forEach(([key, unit], j) => {
      let v = null;
      let prefix = '';
      if (key === 'clock_err_ms') { v = p.clockBoundMs; prefix = '≤ '; }
      if (key === 'delay_ms') v = p.delayMs;
      const [text, u] = fmt(v, unit);
      youRow.children[3 + j].firstChild.textContent = text === '–' ? text : prefix + text;
      youRow.children[3 + j].lastChild.textContent = u;
    });
  }

  function colour(i) { return PALETTE[i % PALETTE.length]; }

  // countHits counts the person's player's projectiles and hits that the
  // server confirmed: each of its projectiles, and each of its marks with a
  // player hit, once.
  const hitsSeen = new Set();
  const firedSeen = new Set();
  function countHits(f) {
    const h = f.truth.players.find((p) => p.human);
    for (const p of f.truth.projectiles || []) {
      if (!h || p.shooter !== h.id || firedSeen.has(p.id)) continue;
      firedSeen.add(p.id);
      stats.fired++;
    }
    if (firedSeen.size > 1000) firedSeen.clear();
    for (const m of f.truth.marks || []) {
      if (!h || m.shooter !== h.id || m.hit < 0) continue;
      const key = m.t + ':' + m.hit;
      if (hitsSeen.has(key)) continue;
      hitsSeen.add(key);
      stats.hits++;
    }
    if (hitsSeen.size > 1000) hitsSeen.clear();
  }

  // ---- view mode -----------------------------------------------------------

  function setMode(m) {
    mode = m;
    try { localStorage.setItem('tether.mode', m); } catch (e) { /* storage off */ }
    document.getElementById('mode-ghosts').classList.toggle('on', m === 'ghosts');
    document.getElementById('mode-tiles').classList.toggle('on', m === 'tiles');
    updateLegend();
    layout();
  }
  for (const [id, m] of [['mode-ghosts', 'ghosts'], ['mode-tiles', 'tiles']]) {
    const b = document.getElementById(id);
    b.addEventListener('click', () => { setMode(m); b.blur(); });
  }

  // ---- layout --------------------------------------------------------------

  let tiles = []; // {x, y, w, h, client: index or -1 for the truth}
  let cssW = 0;
  let cssH = 0;

  function extent() {
    const m = pitch.arena ? pitch.margin + 0.5 : Math.max(pitch.margin, pitch.goal_depth) + 1;
    return {w: pitch.length + 2 * m, h: pitch.width + 2 * m};
  }

  function visibleClients() {
    if (!cur) return [];
    const out = [];
    cur.f.clients.forEach((c, i) => { if (!hidden.has(c.name)) out.push(i); });
    return out;
  }

  function layout() {
    const e = extent();
    const aspect = e.w / e.h;
    const w = Math.max(200, canvas.clientWidth || canvas.parentElement.clientWidth);
    // The pitch gets the height the header, the table and the legend leave,
    // so that all of them fit on the screen.
    const main = document.querySelector('main');
    const rest = main.getBoundingClientRect().bottom + window.scrollY - canvas.getBoundingClientRect().height;
    const maxH = Math.max(260, window.innerHeight - rest - 2);
    tiles = [];
    let h;
    if (mode === 'tiles') {
      // As many columns as make the tiles largest within the height.
      const ids = [-1].concat(visibleClients());
      const n = ids.length;
      const label = 38; // two lines: the name, and the ball's errors
      let cols = 1;
      let tw = 0;
      for (let c = 1; c <= n; c++) {
        const r = Math.ceil(n / c);
        const size = Math.min(w / c, (maxH / r - label) * aspect);
        if (size > tw + 1) { cols = c; tw = size; }
      }
      tw = Math.max(tw, 120);
      const th = tw / aspect + label;
      const rowsN = Math.ceil(n / cols);
      const x0 = (w - cols * tw) / 2;
      h = rowsN * th;
      ids.forEach((c, k) => {
        tiles.push({x: x0 + (k % cols) * tw, y: Math.floor(k / cols) * th, w: tw, h: th, label, client: c});
      });
    } else {
      h = Math.min(w / aspect, maxH);
      tiles.push({x: 0, y: 0, w, h, label: 0, client: -1});
    }
    const dpr = window.devicePixelRatio || 1;
    cssW = w;
    cssH = h;
    canvas.style.height = h + 'px';
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    settled = false;
  }
  window.addEventListener('resize', layout);

  // tetherPoint returns the page coordinates (clientX, clientY) of the point
  // (x, z) of the ground in the server's truth: for tests that aim.
  window.tetherPoint = (x, z) => {
    const t = tiles.find((t) => t.client < 0 && t.v);
    if (!t) return null;
    const r = canvas.getBoundingClientRect();
    return [r.left + t.v.x(x), r.top + t.v.y(z)];
  };

  // ---- interpolation -------------------------------------------------------

  function lerp(a, b, s) { return a + (b - a) * s; }

  function lerpPos(a, b, s) {
    if (!a || !b || a.some((x) => x === null) || b.some((x) => x === null)) return b;
    const d = Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
    if (d > TELEPORT_M) return b;
    return [lerp(a[0], b[0], s), lerp(a[1], b[1], s), lerp(a[2], b[2], s)];
  }

  function lerpWorld(a, b, s) {
    if (!a || s >= 1) return b;
    const byId = new Map(a.players.map((p) => [p.id, p]));
    const projs = new Map((a.projectiles || []).filter((p) => p.id > 0).map((p) => [p.id, p]));
    return {
      ball: {pos: lerpPos(a.ball.pos, b.ball.pos, s), owner: b.ball.owner},
      players: b.players.map((p) => {
        const q = byId.get(p.id);
        return q ? Object.assign({}, p, {pos: lerpPos(q.pos, p.pos, s)}) : p;
      }),
      score: b.score,
      projectiles: (b.projectiles || []).map((p) => {
        const q = projs.get(p.id);
        return q ? Object.assign({}, p, {pos: lerpPos(q.pos, p.pos, s)}) : p;
      }),
      marks: b.marks,
    };
  }

  // The state to draw now: one frame interval behind the newest frame, moving
  // from the previous frame to the newest, so 30 Hz frames look smooth at 60 Hz.
  function sample(now) {
    const f = cur.f;
    if (!prev) return {f, s: 1};
    let dt = (f.t - prev.f.t) * 1000;
    if (!(dt > 0 && dt < 250)) dt = cur.at - prev.at;
    const s = dt > 0 ? Math.min(1, (now - cur.at) / dt) : 1;
    if (s >= 1) return {f, s: 1};
    const p = prev.f;
    const clients = f.clients.map((c, i) => {
      const q = p.clients[i];
      return q && q.name === c.name ? Object.assign({}, c, {world: lerpWorld(q.world, c.world, s)}) : c;
    });
    return {f: {t: f.t, truth: lerpWorld(p.truth, f.truth, s), clients}, s};
  }

  // ---- drawing -------------------------------------------------------------

  function frame(now) {
    requestAnimationFrame(frame);
    if (playing || !cur || settled) return;
    if (!tiles.length) layout();
    const {f, s} = sample(now);
    draw(f);
    if (s >= 1) settled = true;
  }

  function draw(f) {
    ctx.clearRect(0, 0, cssW, cssH);
    let shown = 0;
    stats.colours = [];
    const ghosts = [];
    f.clients.forEach((c, i) => { if (!hidden.has(c.name)) ghosts.push(i); });
    for (const t of tiles) {
      const box = {x: t.x + 4, y: t.y + t.label + 2, w: t.w - 8, h: t.h - t.label - 6};
      const v = view(box);
      t.v = v; // for the mouse
      drawPitch(v);
      if (t.client < 0) {
        drawMarks(v, f.truth.marks, f.t);
        drawWorld(v, f.truth, null);
        drawProjectiles(v, f.truth.projectiles, null);
        if (mode === 'ghosts') {
          ghosts.forEach((i, j) => {
            drawGhost(v, f.clients[i].world, f.truth, colour(i), j, ghosts.length);
            stats.colours.push(colour(i));
            shown++;
          });
        }
        if (!pitch.arena) drawBall(v, f.truth.ball, '#ffffff');
      } else {
        const c = f.clients[t.client];
        if (!c) continue;
        if (!pitch.arena) drawTrueBall(v, f.truth.ball);
        drawWorld(v, c.world, colour(t.client));
        drawProjectiles(v, c.world.projectiles, colour(t.client));
        if (!pitch.arena) drawGap(v, c.world.ball, f.truth.ball, colour(t.client));
        stats.colours.push(colour(t.client));
        shown++;
      }
      if (t.label) {
        const c = f.clients[t.client];
        const col = t.client < 0 ? '#ffffff' : colour(t.client);
        ctx.fillStyle = col;
        ctx.fillRect(t.x + 6, t.y + 8, 10, 10);
        ctx.fillStyle = '#e6edf3';
        ctx.font = '600 13px system-ui, sans-serif';
        ctx.textBaseline = 'middle';
        ctx.fillText(t.client < 0 ? 'server truth' : c.name, t.x + 22, t.y + 13);
        if (c && pitch.arena) {
          const [pe, pu] = fmt(c.stats.proj_err_m === undefined ? 0 : c.stats.proj_err_m, 'm');
          ctx.font = '11px system-ui, sans-serif';
          ctx.fillStyle = '#8b98a5';
          ctx.fillText('projectiles (' + c.ball + '): ' + pe + ' ' + pu + ' from the server\'s', t.x + 8, t.y + 30);
        } else if (c) {
          // The ball's two errors, as in the table.
          const [fid, fu] = fmt(c.stats.ball_fidelity_m, 'm');
          const [gap, gu] = fmt(c.stats.ball_present_m, 'm');
          ctx.save();
          ctx.beginPath();
          ctx.rect(t.x, t.y, t.w, t.label);
          ctx.clip();
          ctx.font = '11px system-ui, sans-serif';
          ctx.fillStyle = '#8b98a5';
          ctx.fillText('ball: ' + fid + ' ' + fu + ' at render time, ' + gap + ' ' + gu + ' to now', t.x + 8, t.y + 30);
          ctx.restore();
        }
      }
    }
    stats.framesDrawn++;
    stats.clientsShown = shown;
    stats.projectiles = (f.truth.projectiles || []).length;
  }

  // view maps pitch metres (x, z) into box, keeping the aspect.
  function view(box) {
    const e = extent();
    const k = Math.min(box.w / e.w, box.h / e.h);
    const cx = box.x + box.w / 2;
    const cy = box.y + box.h / 2;
    return {
      k,
      x: (x) => cx + x * k,
      y: (z) => cy + z * k,
      ix: (px) => (px - cx) / k, // the inverse of x
      iz: (py) => (py - cy) / k, // and of y
      r: (m, min) => Math.max(min, m * k),
    };
  }

  // drawArena draws an arena's floor, its walls and its pillars.
  function drawArena(v) {
    const L = pitch.length;
    const W = pitch.width;
    const M = pitch.margin;
    const k = v.k;
    ctx.fillStyle = '#3a4048';
    ctx.fillRect(v.x(-L / 2 - M), v.y(-W / 2 - M), (L + 2 * M) * k, (W + 2 * M) * k);
    ctx.fillStyle = '#20262d';
    ctx.fillRect(v.x(-L / 2), v.y(-W / 2), L * k, W * k);
    // A floor of 2 m tiles.
    ctx.strokeStyle = 'rgba(255, 255, 255, 0.05)';
    ctx.lineWidth = 1;
    for (let x = -L / 2 + 2; x < L / 2; x += 2) line(v, x, -W / 2, x, W / 2);
    for (let z = -W / 2 + 2; z < W / 2; z += 2) line(v, -L / 2, z, L / 2, z);
    ctx.strokeStyle = '#7d8894';
    ctx.lineWidth = 2;
    ctx.strokeRect(v.x(-L / 2), v.y(-W / 2), L * k, W * k);
    for (const p of pitch.pillars || []) {
      ctx.fillStyle = '#59636e';
      ctx.fillRect(v.x(p.x - p.half), v.y(p.z - p.half), 2 * p.half * k, 2 * p.half * k);
      ctx.strokeStyle = '#8b98a5';
      ctx.strokeRect(v.x(p.x - p.half), v.y(p.z - p.half), 2 * p.half * k, 2 * p.half * k);
    }
  }

  // drawProjectiles draws projectiles: the truth's as bright dots, a
  // client's as rings in its colour (dashed while only predicted).
  function drawProjectiles(v, ps, col) {
    const r = Math.max(3, 0.2 * v.k);
    for (const p of ps || []) {
      if (!ok(p.pos)) continue;
      ctx.beginPath();
      ctx.arc(v.x(p.pos[0]), v.y(p.pos[2]), col ? r + 3 : r, 0, 2 * Math.PI);
      if (col) {
        ctx.setLineDash(p.predicted ? [2, 2] : []);
        ctx.strokeStyle = col;
        ctx.lineWidth = 2;
        ctx.stroke();
        ctx.setLineDash([]);
      } else {
        ctx.fillStyle = '#ffb347';
        ctx.fill();
        ctx.lineWidth = 1.5;
        ctx.strokeStyle = '#fff3d6';
        ctx.stroke();
      }
    }
  }

  // drawMarks draws the server's recent shots, fading over MARK_S: a hitscan
  // shot's tracer, and a burst where one hit a player; the person's hits
  // say so.
  const MARK_S = 0.6;
  function drawMarks(v, marks, t) {
    const h = cur && cur.f.truth.players.find((p) => p.human);
    for (const m of marks || []) {
      const age = t - m.t;
      if (!(age >= -0.1 && age < MARK_S) || !ok(m.from) || !ok(m.to)) continue;
      const a = 1 - Math.max(0, age) / MARK_S;
      const hit = m.hit >= 0;
      const mine = h && m.shooter === h.id;
      if (m.from[0] !== m.to[0] || m.from[2] !== m.to[2]) {
        ctx.beginPath();
        ctx.moveTo(v.x(m.from[0]), v.y(m.from[2]));
        ctx.lineTo(v.x(m.to[0]), v.y(m.to[2]));
        ctx.strokeStyle = mine ? 'rgba(255, 224, 102, ' + a + ')' : 'rgba(255, 255, 255, ' + 0.8 * a + ')';
        ctx.lineWidth = 2;
        ctx.stroke();
      }
      if (!hit) continue;
      const x = v.x(m.to[0]);
      const y = v.y(m.to[2]);
      ctx.beginPath();
      ctx.arc(x, y, playerR(v) * (1 + 0.8 * (1 - a)) + 4, 0, 2 * Math.PI);
      ctx.strokeStyle = 'rgba(255, 90, 90, ' + a + ')';
      ctx.lineWidth = 3;
      ctx.stroke();
      if (mine) {
        ctx.fillStyle = 'rgba(255, 224, 102, ' + a + ')';
        ctx.font = '700 13px system-ui, sans-serif';
        ctx.textAlign = 'center';
        ctx.fillText('HIT', x, y - playerR(v) - 14);
        ctx.textAlign = 'start';
      }
    }
  }

  function drawPitch(v) {
    if (pitch.arena) {
      drawArena(v);
      return;
    }
    const L = pitch.length;
    const W = pitch.width;
    const M = pitch.margin;
    const k = v.k;
    // Boards and the grass around the lines.
    ctx.fillStyle = '#1d4d2b';
    ctx.fillRect(v.x(-L / 2 - M), v.y(-W / 2 - M), (L + 2 * M) * k, (W + 2 * M) * k);
    ctx.strokeStyle = '#0b1f12';
    ctx.lineWidth = 2;
    ctx.strokeRect(v.x(-L / 2 - M), v.y(-W / 2 - M), (L + 2 * M) * k, (W + 2 * M) * k);
    // Mown stripes.
    const n = 14;
    for (let i = 0; i < n; i++) {
      ctx.fillStyle = i % 2 ? '#2a6b3c' : '#2f7542';
      ctx.fillRect(v.x(-L / 2 + (i * L) / n), v.y(-W / 2), (L / n) * k + 0.5, W * k);
    }
    // Lines, regulation sizes scaled down on a smaller pitch.
    const s = Math.min(1, L / 105, W / 68);
    ctx.strokeStyle = 'rgba(255, 255, 255, 0.85)';
    ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
    ctx.lineWidth = Math.max(1, 0.12 * k);
    ctx.strokeRect(v.x(-L / 2), v.y(-W / 2), L * k, W * k);
    line(v, 0, -W / 2, 0, W / 2);
    circle(v, 0, 0, 9.15 * s);
    spot(v, 0, 0);
    for (const side of [-1, 1]) {
      const gx = (side * L) / 2;
      box(v, gx, -side * 16.5 * s, Math.min(40.32 * s, W));
      box(v, gx, -side * 5.5 * s, Math.min(18.32 * s, W));
      const px = gx - side * 11 * s;
      spot(v, px, 0);
      const a = Math.acos(Math.min(1, 5.5 / 9.15));
      const mid = side < 0 ? 0 : Math.PI;
      ctx.beginPath();
      ctx.arc(v.x(px), v.y(0), 9.15 * s * k, mid - a, mid + a);
      ctx.stroke();
      for (const zs of [-1, 1]) {
        const start = side < 0 ? (zs < 0 ? 0 : -Math.PI / 2) : zs < 0 ? Math.PI / 2 : Math.PI;
        ctx.beginPath();
        ctx.arc(v.x(gx), v.y((zs * W) / 2), 1 * s * k, start, start + Math.PI / 2);
        ctx.stroke();
      }
      // The goal: net behind the line, posts on it.
      const gw = pitch.goal_width;
      const d = Math.max(pitch.goal_depth, 0.5);
      const x0 = side < 0 ? gx - d : gx;
      ctx.fillStyle = 'rgba(255, 255, 255, 0.22)';
      ctx.fillRect(v.x(x0), v.y(-gw / 2), d * k, gw * k);
      ctx.strokeStyle = '#ffffff';
      ctx.lineWidth = Math.max(1.5, 0.15 * k);
      ctx.beginPath();
      ctx.moveTo(v.x(gx), v.y(-gw / 2));
      ctx.lineTo(v.x(gx + side * d), v.y(-gw / 2));
      ctx.lineTo(v.x(gx + side * d), v.y(gw / 2));
      ctx.lineTo(v.x(gx), v.y(gw / 2));
      ctx.stroke();
      ctx.fillStyle = '#ffffff';
      for (const zs of [-1, 1]) {
        const r = Math.max(1.5, 0.2 * k);
        ctx.fillRect(v.x(gx) - r, v.y((zs * gw) / 2) - r, 2 * r, 2 * r);
      }
      ctx.strokeStyle = 'rgba(255, 255, 255, 0.85)';
      ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
      ctx.lineWidth = Math.max(1, 0.12 * k);
    }
  }

  function line(v, x0, z0, x1, z1) {
    ctx.beginPath();
    ctx.moveTo(v.x(x0), v.y(z0));
    ctx.lineTo(v.x(x1), v.y(z1));
    ctx.stroke();
  }
  function circle(v, x, z, r) {
    ctx.beginPath();
    ctx.arc(v.x(x), v.y(z), r * v.k, 0, 2 * Math.PI);
    ctx.stroke();
  }
  function spot(v, x, z) {
    ctx.beginPath();
    ctx.arc(v.x(x), v.y(z), Math.max(1.2, 0.2 * v.k), 0, 2 * Math.PI);
    ctx.fill();
  }
  // box draws an area in front of the goal line at gx, dx deep (towards the
  // centre) and w wide.
  function box(v, gx, dx, w) {
    const x0 = Math.min(gx, gx + dx);
    ctx.strokeRect(v.x(x0), v.y(-w / 2), Math.abs(dx) * v.k, w * v.k);
  }

  function ok(pos) { return pos && pos.every((x) => x !== null && isFinite(x)); }

  // Players are drawn at least 8 px across their radius so that their numbers
  // read, and the ball at least 3 px.
  function playerR(v) { return v.r(pitch.arena ? 0.5 : 0.9, 8); }
  function ballR(v) { return v.r(0.45, 3); }

  // drawWorld draws a world with solid players; a client's own tile gets its
  // colour on the players' edges.
  function drawWorld(v, w, edge) {
    const r = playerR(v);
    for (const p of w.players) {
      if (!ok(p.pos)) continue;
      const x = v.x(p.pos[0]);
      const y = v.y(p.pos[2]);
      ctx.beginPath();
      ctx.arc(x, y, r, 0, 2 * Math.PI);
      ctx.fillStyle = TEAM[p.team] || '#cccccc';
      ctx.fill();
      ctx.lineWidth = edge ? 3 : 1.5;
      ctx.strokeStyle = edge || '#ffffff';
      ctx.stroke();
      if (p.facing) {
        // The aim: a tick from the edge.
        ctx.beginPath();
        ctx.moveTo(x + p.facing[0] * r, y + p.facing[2] * r);
        ctx.lineTo(x + p.facing[0] * (r + 9), y + p.facing[2] * (r + 9));
        ctx.lineWidth = 3;
        ctx.strokeStyle = edge || '#ffffff';
        ctx.stroke();
      }
      if (p.health) {
        // Health: a bar under the player, green to red.
        const w = 2 * r;
        const hp = Math.max(0, Math.min(100, p.health)) / 100;
        ctx.fillStyle = 'rgba(0, 0, 0, 0.6)';
        ctx.fillRect(x - r, y + r + 3, w, 4);
        ctx.fillStyle = hp > 0.5 ? '#3ddc84' : hp > 0.25 ? '#ffb347' : '#ff5a5a';
        ctx.fillRect(x - r, y + r + 3, w * hp, 4);
      }
      if (p.human) {
        ctx.beginPath();
        ctx.arc(x, y, r + 4, 0, 2 * Math.PI);
        ctx.lineWidth = 2.5;
        ctx.strokeStyle = HUMAN;
        ctx.stroke();
        ctx.fillStyle = HUMAN;
        ctx.font = '700 11px system-ui, sans-serif';
        ctx.textAlign = 'center';
        ctx.textBaseline = 'bottom';
        ctx.fillText('YOU', x, y - r - 6);
        ctx.textAlign = 'start';
      }
      const px = Math.max(11, Math.round(r * 1.05));
      ctx.font = '700 ' + px + 'px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.lineWidth = 3;
      ctx.strokeStyle = 'rgba(0, 0, 0, 0.6)';
      ctx.strokeText(String(p.id), x, y + 0.5);
      ctx.fillStyle = '#ffffff';
      ctx.fillText(String(p.id), x, y + 0.5);
      ctx.textAlign = 'start';
      stats.numberPx = px;
    }
    if (edge && !pitch.arena) drawBall(v, w.ball, '#ffffff');
  }

  // drawBall draws the ball lifted by its height over its shadow.
  function drawBall(v, b, fill) {
    if (!ok(b.pos)) return;
    const r = ballR(v);
    const h = Math.max(0, b.pos[1]);
    const x = v.x(b.pos[0]);
    const y = v.y(b.pos[2]);
    ctx.beginPath();
    ctx.ellipse(x, y, r * 1.1, r * 0.8, 0, 0, 2 * Math.PI);
    ctx.fillStyle = 'rgba(0, 0, 0, 0.35)';
    ctx.fill();
    const lift = h * 0.6 * v.k;
    ctx.beginPath();
    ctx.arc(x, y - lift, r * (1 + h * 0.05), 0, 2 * Math.PI);
    ctx.fillStyle = fill;
    ctx.fill();
    ctx.lineWidth = 1.2;
    ctx.strokeStyle = '#111111';
    ctx.stroke();
  }

  // drawTrueBall marks where the server's ball is, on a client's tile.
  function drawTrueBall(v, b) {
    if (!ok(b.pos)) return;
    ctx.beginPath();
    ctx.arc(v.x(b.pos[0]), v.y(b.pos[2]), ballR(v) + 3, 0, 2 * Math.PI);
    ctx.setLineDash([3, 3]);
    ctx.lineWidth = 1.2;
    ctx.strokeStyle = 'rgba(255, 255, 255, 0.7)';
    ctx.stroke();
    ctx.setLineDash([]);
  }

  // drawGhost draws client j of n's view: its own arc (the j-th of n) of a
  // ring around each player and around the ball where it shows them, so that
  // every client's colour shows where their views agree, and the gap from
  // its ball to the true ball.
  function drawGhost(v, w, truth, col, j, n) {
    const span = (2 * Math.PI) / n;
    const gap = n > 1 ? Math.min(0.12, span / 6) : 0;
    const a0 = -Math.PI / 2 + j * span + gap;
    const a1 = a0 + span - 2 * gap;
    ctx.strokeStyle = col;
    ctx.lineWidth = 3;
    const r = playerR(v) + 3;
    for (const p of w.players) {
      if (!ok(p.pos)) continue;
      ctx.beginPath();
      ctx.arc(v.x(p.pos[0]), v.y(p.pos[2]), r, a0, a1);
      ctx.stroke();
    }
    drawProjectiles(v, w.projectiles, col);
    if (pitch.arena || !ok(w.ball.pos)) return;
    drawGap(v, w.ball, truth.ball, col);
    ctx.beginPath();
    ctx.arc(v.x(w.ball.pos[0]), v.y(w.ball.pos[2]), ballR(v) + 3, a0, a1);
    ctx.strokeStyle = col;
    ctx.lineWidth = 3;
    ctx.stroke();
  }

  // drawGap draws a line from a client's ball to the true ball: the gap to
  // the present, the table's "ball gap to now".
  function drawGap(v, ball, truth, col) {
    if (!ok(ball.pos) || !ok(truth.pos)) return;
    ctx.beginPath();
    ctx.moveTo(v.x(ball.pos[0]), v.y(ball.pos[2]));
    ctx.lineTo(v.x(truth.pos[0]), v.y(truth.pos[2]));
    ctx.strokeStyle = col;
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }

  // ---- play in this browser -----------------------------------------------
  // The button loads the match's client, built for WebAssembly, which
  // connects to the server as a player of its own and, every animation
  // frame, reads the keys (tetherPlay.keys) and hands its view of the match
  // back to draw (tetherPlay.draw) in place of the server's truth.

  let playing = false;
  let kicks = 0; // presses of the kick key so far
  window.tetherPlay = {
    keys: () => Object.assign({kicks}, keyState),
    draw: (json) => {
      const f = JSON.parse(json);
      if (!tiles.length) layout();
      draw(f);
      const b = f.truth.ball.pos;
      stats.ball = [b[0], b[1], b[2]];
      const carrier = {webtransport: 'WebTransport', websocket: 'WebSocket'}[stats.play && stats.play.transport];
      if (carrier) playButton.textContent = 'Playing over ' + carrier;
      if (performance.now() - lastTable > 250) {
        lastTable = performance.now();
        updateHeader(f);
      }
    },
  };

  const playButton = document.getElementById('play');
  playButton.addEventListener('click', () => {
    playButton.disabled = true;
    playButton.textContent = 'Loading the client…';
    // The first press builds the client on the server, which takes a while:
    // say so, with the seconds spent, until it has loaded.
    const pressed = performance.now();
    const progress = setInterval(() => {
      const s = Math.round((performance.now() - pressed) / 1000);
      if (s >= 2) playButton.textContent = 'Building the client (the first time only)… ' + s + ' s';
    }, 500);
    startPlay().then(() => {
      clearInterval(progress);
      playButton.textContent = 'Connecting…';
    }, (err) => {
      clearInterval(progress);
      playing = false;
      playButton.disabled = false;
      playButton.textContent = 'Play in this browser';
      document.getElementById('you').textContent = 'Could not start the client: ' + err;
    });
  });

  async function startPlay() {
    await new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = 'play/wasm_exec.js';
      s.onload = resolve;
      s.onerror = () => reject(new Error('play/wasm_exec.js did not load'));
      document.head.append(s);
    });
    const go = new Go();
    const r = await WebAssembly.instantiateStreaming(fetch('play/client.wasm'), go.importObject);
    playing = true;
    held.clear();
    keyState = {up: false, down: false, left: false, right: false, sprint: false, kick: false};
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(Object.assign({type: 'keys'}, keyState)));
    addYou();
    setMode('ghosts'); // lays the page out anew, the row included
    document.getElementById('discs').textContent = 'what this browser\'s client shows (Blue, Red)';
    go.run(r.instance);
  }

  setMode(mode === 'tiles' ? 'tiles' : 'ghosts');
  connect();
  requestAnimationFrame(frame);
})();
