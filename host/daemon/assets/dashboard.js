// stackbenchd dashboard: the queue, each board's state and live plots, fed by server-sent
// events (/events) and the status (/api/status). No external code; every text from the
// daemon goes through textContent, never HTML.
'use strict';
(function () {
  const MAX_POINT_SAMPLES = 2000; // samples kept of the running point
  const MAX_CAMPAIGN_POINTS = 5000; // finished points kept per job
  const POINT_ROWS = 20; // finished points listed for the selected board's job
  const METRICS = [
    ['bandwidth_gbps', 'bandwidth', 'GB/s'],
    ['latency_avg_ns', 'read latency', 'ns'],
    ['temp_c', 'temperature', '\u00b0C'],
    ['power_w', 'power', 'W'],
  ];

  const st = {
    daemon: null, boards: [], jobs: new Map(),
    series: new Map(),   // board uri -> {job, index, key, t: [], values per metric}
    campaign: new Map(), // job id -> {index: [], key: [], values per metric}
    lastPoint: new Map(), // board uri -> the point it finished last (its key and values)
    selected: null,
    events: 0, samples: 0, dropped: 0, lat: [], latCount: 0, connected: false,
    session: null, // {csrf, uid, manage_all, can_act} from /api/session
    actions: [],   // the answers to this page's actions, for the status line and tests
    figures: null, // {job, names: [...], error} of the finished job whose figures are shown
  };

  function $(id) { return document.getElementById(id); }
  function td(text, cls) {
    const e = document.createElement('td');
    e.textContent = text === null || text === undefined ? '\u2013' : String(text);
    if (cls) e.className = cls;
    return e;
  }
  function num(v, digits, unit) {
    if (v === null || v === undefined || !Number.isFinite(v)) return '\u2013';
    return v.toFixed(digits) + (unit ? ' ' + unit : '');
  }
  function dur(s) {
    if (s === null || s === undefined || !Number.isFinite(s) || s < 0) return '\u2013';
    s = Math.round(s);
    const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, x = s % 60;
    return h + ':' + String(m).padStart(2, '0') + ':' + String(x).padStart(2, '0');
  }
  // A point in a line as 'stackbench run' prints it (the daemon's point.text), else its key.
  function pointText(ev) { return ev.point && ev.point.text ? ev.point.text : ev.key; }
  function newSeries(keys) {
    const o = {};
    for (const k of keys) o[k] = [];
    for (const m of METRICS) o[m[0]] = [];
    return o;
  }

  // ---- plots: a small canvas line plot ---------------------------------------------------
  function niceStep(span) {
    const raw = span / 4, p = Math.pow(10, Math.floor(Math.log10(raw))), r = raw / p;
    return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * p;
  }
  function plot(canvas, xs, ys, xlabel) {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(200, canvas.clientWidth), h = Math.max(100, canvas.clientHeight);
    if (canvas.width !== w * dpr) canvas.width = w * dpr;
    if (canvas.height !== h * dpr) canvas.height = h * dpr;
    const g = canvas.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    g.font = '11px system-ui, sans-serif';
    g.fillStyle = '#667';
    const pts = [];
    for (let i = 0; i < xs.length; i++)
      if (Number.isFinite(xs[i]) && Number.isFinite(ys[i])) pts.push([xs[i], ys[i]]);
    if (!pts.length) { g.fillText('no data', w / 2 - 20, h / 2); return; }
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const [x, y] of pts) {
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    }
    if (x1 === x0) { x0 -= 1; x1 += 1; }
    if (y1 === y0) { const d = Math.abs(y0) * 0.05 || 1; y0 -= d; y1 += d; }
    const L = 46, R = 8, T = 8, B = 22;
    const sx = x => L + (x - x0) / (x1 - x0) * (w - L - R);
    const sy = y => h - B - (y - y0) / (y1 - y0) * (h - T - B);
    g.strokeStyle = '#d8dde3';
    g.lineWidth = 1;
    const step = niceStep(y1 - y0);
    for (let v = Math.ceil(y0 / step) * step; v <= y1 + 1e-12; v += step) {
      g.beginPath(); g.moveTo(L, sy(v)); g.lineTo(w - R, sy(v)); g.stroke();
      g.fillText(Math.abs(v) >= 1000 ? v.toExponential(1) : +v.toPrecision(4), 2, sy(v) + 4);
    }
    g.fillText(xlabel + ' ' + +x0.toPrecision(4) + ' \u2013 ' + +x1.toPrecision(4), L, h - 6);
    g.strokeStyle = '#1f6fb2';
    g.lineWidth = 1.5;
    g.beginPath();
    pts.forEach(([x, y], i) => (i ? g.lineTo(sx(x), sy(y)) : g.moveTo(sx(x), sy(y))));
    g.stroke();
    if (pts.length < 60) {
      g.fillStyle = '#1f6fb2';
      for (const [x, y] of pts) { g.beginPath(); g.arc(sx(x), sy(y), 2, 0, 7); g.fill(); }
    }
  }
  function makePlots(container, prefix) {
    for (const [key, name, unit] of METRICS) {
      const f = document.createElement('figure');
      const c = document.createElement('figcaption');
      c.textContent = name + ' (' + unit + ')';
      const cv = document.createElement('canvas');
      cv.id = prefix + key;
      f.append(c, cv);
      container.append(f);
    }
  }

  // ---- rendering ---------------------------------------------------------------------------
  let renderPending = false;
  function render() {
    if (renderPending) return;
    renderPending = true;
    setTimeout(() => { renderPending = false; renderNow(); }, 100);
  }
  function renderNow() {
    const d = st.daemon;
    $('daemon').textContent = d ? 'version ' + d.version + ', PID ' + d.pid + ', ' +
      st.boards.length + ' board' + (st.boards.length === 1 ? '' : 's') : '';
    const conn = $('conn');
    conn.textContent = st.connected ? 'live' : 'reconnecting';
    conn.className = 'conn ' + (st.connected ? 'on' : 'off');

    const tb = $('boards').tBodies[0];
    tb.replaceChildren();
    for (const b of st.boards) {
      const tr = document.createElement('tr');
      // The point's live sample; a point without instruments (an HBM2 card's, or none)
      // has none: then the values of the last point the board finished.
      const s = b.last_sample || st.lastPoint.get(b.uri) || {};
      const p = b.point;
      tr.append(td(b.uri), td(b.state, 'state-' + b.state), td(b.job), td(b.campaign),
        td(p ? p.index + ': ' + (p.text || p.key) : null),
        td(b.job ? b.points_done + '/' + b.points_total : null, 'num'), td(dur(b.eta_s), 'num'),
        td(num(s.bandwidth_gbps, 2, 'GB/s'), 'num'), td(num(s.latency_avg_ns, 0, 'ns'), 'num'),
        td(num(s.temp_c, 1, '\u00b0C'), 'num'), td(num(s.power_w, 1, 'W'), 'num'));
      tb.append(tr);
    }

    const sel = $('board-select');
    const uris = st.boards.map(b => b.uri);
    if (sel.options.length !== uris.length || uris.some((u, i) => sel.options[i].value !== u)) {
      sel.replaceChildren();
      for (const u of uris) { const o = document.createElement('option'); o.value = u; o.textContent = u; sel.append(o); }
    }
    if (!st.selected || !uris.includes(st.selected)) {
      const running = st.boards.find(b => b.job);
      st.selected = running ? running.uri : uris[0] || null;
    }
    if (st.selected) sel.value = st.selected;

    const ser = st.series.get(st.selected);
    $('plot-title').textContent = ser ? 'job ' + ser.job + ', point ' + ser.index + ': ' +
      ser.text + ' (' + ser.t.length + ' samples)' : 'no point running on this board';
    for (const [key] of METRICS)
      plot($('pt-' + key), ser ? ser.t : [], ser ? ser[key] : [], 'bench time (s)');
    const board = st.boards.find(b => b.uri === st.selected);
    const job = ser ? ser.job : board && board.job;
    const camp = job ? st.campaign.get(job) : null;
    $('campaign-title').textContent = 'Campaign' + (job ? ' of job ' + job : '') +
      (camp ? ' (' + camp.index.length + ' points)' : '');
    for (const [key] of METRICS)
      plot($('cp-' + key), camp ? camp.index : [], camp ? camp[key] : [], 'point');
    const pb = $('points').tBodies[0];
    pb.replaceChildren();
    for (let i = camp ? camp.index.length - 1 : -1; i >= 0 && pb.rows.length < POINT_ROWS; i--) {
      const tr = document.createElement('tr');
      tr.append(td(camp.index[i], 'num'), td(camp.text[i]),
        td(num(camp.bandwidth_gbps[i], 2, 'GB/s'), 'num'),
        td(num(camp.latency_avg_ns[i], 0, 'ns'), 'num'),
        td(num(camp.temp_c[i], 1, '\u00b0C'), 'num'), td(num(camp.power_w[i], 1, 'W'), 'num'));
      pb.append(tr);
    }

    const qb = $('queue').tBodies[0];
    qb.replaceChildren();
    const jobs = [...st.jobs.values()].sort((a, b) => order(a) - order(b) ||
      (order(a) < 2 ? b.priority - a.priority || a.id - b.id : b.id - a.id));
    for (const j of jobs) {
      const tr = document.createElement('tr');
      tr.append(td(j.id, 'num'), td(j.state, 'state-' + j.state), td(j.priority, 'num'),
        td(j.name), td(j.points_done + '/' + j.points_total, 'num'), td(j.db), td(j.uid),
        td(j.submitted_at), td(j.message, 'msg'), actionsCell(j));
      qb.append(tr);
    }

    const fb = $('finished').tBodies[0];
    fb.replaceChildren();
    for (const j of [...st.jobs.values()].filter(finished).sort((a, b) => b.id - a.id)) {
      const tr = document.createElement('tr');
      tr.append(td(j.id, 'num'), td(j.state, 'state-' + j.state), td(j.name),
        td(j.points_done + '/' + j.points_total, 'num'), td(j.uid), td(j.finished_at),
        td(j.message, 'msg'), reportCell(j));
      fb.append(tr);
    }
    renderFigures();

    const l = latencyStats();
    $('stats').textContent = 'events ' + st.events + ', samples ' + st.samples +
      (st.dropped ? ', dropped ' + st.dropped : '') + '; sample \u2192 browser latency: ' +
      (l.n ? 'median ' + l.median_ms + ' ms, 95 % ' + l.p95_ms + ' ms, max ' + l.max_ms +
      ' ms over ' + l.n : 'none yet');
  }
  // ---- actions: pause, resume, cancel one's own jobs (POST with the session's CSRF token) ---
  function mayAct(j) {
    const s = st.session;
    return !!s && s.can_act && (s.manage_all || s.uid === j.uid);
  }
  function actionsCell(j) {
    const cell = document.createElement('td');
    if (!mayAct(j)) return cell;
    const acts = [];
    if (j.state === 'running' || j.state === 'queued') acts.push('pause');
    if (j.state === 'paused') acts.push('resume');
    if (j.state === 'running' || j.state === 'queued' || j.state === 'paused') acts.push('cancel');
    for (const a of acts) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = a;
      b.className = a;
      b.dataset.job = String(j.id);
      b.dataset.action = a;
      b.addEventListener('click', () => act(j.id, a));
      cell.append(b);
    }
    return cell;
  }
  // ---- finished campaigns: their figures and HTML report (made as the submitter) ----------
  function finished(j) { return j.state === 'done' || j.state === 'failed' || j.state === 'cancelled'; }
  function mayView(j) {
    const s = st.session;
    return !!s && s.can_act && (s.manage_all || s.uid === j.uid) && j.campaign_id > 0;
  }
  function reportCell(j) {
    const cell = document.createElement('td');
    if (!mayView(j)) return cell;
    const a = document.createElement('a');
    a.href = 'jobs/' + encodeURIComponent(j.id) + '/report';
    a.target = '_blank';
    a.rel = 'noopener';
    a.textContent = 'report';
    a.dataset.job = String(j.id);
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = 'figures';
    b.className = 'figures';
    b.dataset.job = String(j.id);
    b.addEventListener('click', () => showFigures(j.id));
    cell.append(b, a);
    return cell;
  }
  async function showFigures(id) {
    st.figures = { job: id, names: [], error: null, loading: true };
    render();
    try {
      const r = await fetch('api/jobs/' + encodeURIComponent(id) + '/report',
        { cache: 'no-store', credentials: 'same-origin' });
      const body = await r.json();
      if (body.ok) st.figures = { job: id, names: body.figures, error: null };
      else st.figures = { job: id, names: [], error: body.error.message };
    } catch (e) {
      st.figures = { job: id, names: [], error: String(e) };
    }
    render();
    return st.figures;
  }
  function renderFigures() {
    const f = st.figures, box = $('figures');
    $('figures-title').textContent = !f ? '' : f.loading ? 'job ' + f.job + ': making its report…'
      : f.error ? 'job ' + f.job + ': ' + f.error
      : 'job ' + f.job + ': ' + f.names.length + ' figure' + (f.names.length === 1 ? '' : 's');
    const want = f && !f.loading && !f.error ? f.names.map(n => 'jobs/' + f.job + '/figures/' + encodeURIComponent(n)) : [];
    const have = [...box.querySelectorAll('img')].map(i => i.getAttribute('src'));
    if (want.length === have.length && want.every((w, i) => w === have[i])) return;
    box.replaceChildren();
    for (let i = 0; i < want.length; i++) {
      const fig = document.createElement('figure');
      const img = document.createElement('img');
      img.src = want[i];
      img.alt = f.names[i];
      const cap = document.createElement('figcaption');
      cap.textContent = f.names[i];
      fig.append(img, cap);
      box.append(fig);
    }
  }
  async function session() {
    try {
      const r = await fetch('api/session', { cache: 'no-store', credentials: 'same-origin' });
      if (r.ok) {
        // Rendered at once, not at the next debounced render: whoever sees the session (a
        // user, or a test waiting for it) sees the buttons it allows.
        st.session = await r.json();
        renderNow();
      }
    } catch (e) { /* retried by refresh */ }
    return st.session;
  }
  // POST an action; resolves to {status, body} (body: the daemon's JSON answer).
  async function act(id, action) {
    if (!st.session || !st.session.csrf) await session();
    const csrf = st.session && st.session.csrf;
    let res;
    try {
      const r = await fetch('api/jobs/' + encodeURIComponent(id) + '/' + action, {
        method: 'POST', cache: 'no-store', credentials: 'same-origin',
        headers: csrf ? { 'X-CSRF-Token': csrf } : {},
      });
      let body;
      try { body = await r.json(); } catch (e) { body = { ok: false, error: { code: 'http', message: r.statusText } }; }
      res = { status: r.status, body };
    } catch (e) {
      res = { status: 0, body: { ok: false, error: { code: 'network', message: String(e) } } };
    }
    st.actions.push(Object.assign({ job: id, action }, res));
    const line = $('act-status');
    if (res.body.ok) {
      line.textContent = action + ' job ' + id + ': ' + res.body.job.state;
      line.className = 'note';
      st.jobs.set(res.body.job.id, res.body.job);
    } else {
      line.textContent = action + ' job ' + id + ' refused: ' + res.body.error.message;
      line.className = 'note act-bad';
    }
    render();
    return res;
  }
  function order(j) { return j.state === 'running' ? 0 : j.state === 'queued' || j.state === 'paused' ? 1 : 2; }
  function latencyStats() {
    const v = st.lat.slice().sort((a, b) => a - b);
    const q = f => v[Math.min(v.length - 1, Math.floor(f * v.length))];
    return v.length ? { n: v.length, median_ms: q(0.5), p95_ms: q(0.95), max_ms: v[v.length - 1] }
      : { n: 0 };
  }

  // ---- state from the daemon -------------------------------------------------------------
  function applyStatus(s) {
    if (s.daemon) st.daemon = s.daemon;
    if (Array.isArray(s.boards)) {
      st.boards = s.boards;
      // the status names a running point by its key: its text came with point_started
      for (const b of st.boards) {
        const ser = st.series.get(b.uri);
        if (b.point && ser && ser.job === b.job && ser.index === b.point.index) b.point.text = ser.text;
      }
    }
    if (Array.isArray(s.jobs)) {
      st.jobs = new Map();
      for (const j of s.jobs) st.jobs.set(j.id, j);
    }
    render();
  }
  function boardOf(uri) { return st.boards.find(b => b.uri === uri); }
  function campaignOf(job) {
    let c = st.campaign.get(job);
    if (!c) { c = newSeries(['index', 'key', 'text']); st.campaign.set(job, c); }
    return c;
  }
  function onEvent(kind, ev) {
    st.events++;
    switch (kind) {
    case 'job': {
      const j = Object.assign({}, ev, { id: ev.job });
      st.jobs.set(j.id, j);
      // A finished job leaves its boards idle (as the next status will say: a short job,
      // an HBM2 card's, may end between two status refreshes).
      if (finished(j))
        for (const b of st.boards)
          if (b.job === j.id)
            Object.assign(b, { state: 'idle', job: null, campaign: null, point: null, last_sample: null, eta_s: null });
      break;
    }
    case 'campaign':
      if (!ev.done) st.campaign.delete(ev.job);
      break;
    case 'point_started': {
      st.series.set(ev.board, Object.assign(newSeries(['t']), { job: ev.job, index: ev.index, key: ev.key, text: pointText(ev) }));
      const b = boardOf(ev.board);
      const j = st.jobs.get(ev.job);
      if (b) Object.assign(b, { point: { index: ev.index, key: ev.key, text: pointText(ev), attempt: ev.attempt }, job: ev.job,
        campaign: j ? j.name : b.campaign, last_sample: null, state: b.state === 'idle' ? 'running' : b.state });
      break;
    }
    case 'sample': {
      st.samples++;
      if (Number.isFinite(ev.ts_ms)) {
        st.lat.push(Math.max(0, Date.now() - ev.ts_ms));
        if (st.lat.length > 1000) st.lat.shift();
      }
      const s = st.series.get(ev.board);
      if (s && s.index === ev.index && s.t.length < MAX_POINT_SAMPLES) {
        s.t.push(ev.t_s);
        for (const [key] of METRICS) s[key].push(ev[key]);
      }
      const b = boardOf(ev.board);
      if (b) b.last_sample = ev;
      break;
    }
    case 'point_finished': {
      const c = campaignOf(ev.job);
      if (c.index.length < MAX_CAMPAIGN_POINTS) {
        c.index.push(ev.index);
        c.key.push(ev.key);
        c.text.push(pointText(ev));
        for (const [key] of METRICS) c[key].push(ev[key]);
      }
      st.lastPoint.set(ev.board, ev);
      const b = boardOf(ev.board);
      if (b) Object.assign(b, { point: null, points_done: ev.done, points_total: ev.total, eta_s: ev.eta_s });
      const j = st.jobs.get(ev.job);
      if (j) j.points_done = ev.done;
      break;
    }
    case 'dropped':
      st.dropped += ev.count || 0;
      break;
    }
    render();
  }

  async function refresh() {
    try {
      const r = await fetch('api/status', { cache: 'no-store', credentials: 'same-origin' });
      if (r.ok) applyStatus(await r.json());
    } catch (e) { /* the event stream says whether the daemon is there */ }
  }

  function connect() {
    const es = new EventSource('events');
    es.onopen = () => { st.connected = true; refresh(); };
    es.onerror = () => { st.connected = false; render(); };
    es.addEventListener('status', e => applyStatus(JSON.parse(e.data)));
    for (const k of ['job', 'campaign', 'point_started', 'sample', 'point_finished',
      'thermal_failure', 'dropped'])
      es.addEventListener(k, e => onEvent(k, JSON.parse(e.data)));
  }

  makePlots($('point-plots'), 'pt-');
  makePlots($('campaign-plots'), 'cp-');
  $('board-select').addEventListener('change', e => { st.selected = e.target.value; render(); });
  refresh();
  session();
  connect();
  setInterval(refresh, 5000);

  // For tests and measurements (tests/daemon/dashboard.sh, host/daemon/bench/measure.sh).
  window.sbDashboard = {
    stats: () => ({
      connected: st.connected, events: st.events, samples: st.samples, dropped: st.dropped,
      latency: latencyStats(), boards: st.boards.length, jobs: st.jobs.size,
      queueRows: $('queue').tBodies[0].rows.length,
      queueText: $('queue').tBodies[0].textContent,
      boardsText: $('boards').tBodies[0].textContent,
      boardRows: [...$('boards').tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent)),
      pointRows: [...$('points').tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent)),
      campaigns: Object.fromEntries([...st.campaign].map(([job, c]) => [job,
        { index: c.index, key: c.key, text: c.text, bandwidth_gbps: c.bandwidth_gbps,
          latency_avg_ns: c.latency_avg_ns }])),
      session: st.session ? { uid: st.session.uid, can_act: st.session.can_act,
        manage_all: st.session.manage_all, csrf: !!st.session.csrf } : null,
      buttons: [...document.querySelectorAll('#queue button')].map(b => b.dataset.job + ':' + b.dataset.action),
      actions: st.actions,
      actStatus: $('act-status').textContent,
      finishedText: $('finished').tBodies[0].textContent,
      reportLinks: [...document.querySelectorAll('#finished a')].map(a => a.dataset.job),
      figures: [...document.querySelectorAll('#figures img')].map(i => ({
        src: i.getAttribute('src'), w: i.naturalWidth, h: i.naturalHeight, done: i.complete })),
      figuresTitle: $('figures-title').textContent,
    }),
    showFigures,
    act,
    session: () => st.session,
  };
})();
