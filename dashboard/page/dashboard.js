// rxhystrix dashboard: watches one or more Hystrix streams (/hystrix.stream) and shows every
// circuit, thread pool and collapser. Several streams are summed per name as Turbine sums
// its hosts, and values are then shown per host as the Hystrix dashboard does with
// reportingHosts, so a Turbine stream shows the same. Plain script, no build step.
'use strict';
(function () {
  const HISTORY_MS = 120000; // sparkline span
  const STALE_MS = 10000;    // a stream's frame counts for its name this long after it came
  const CHANGED_MS = 15000;  // how long a breaker state change stays highlighted
  const RESORT_MS = 5000;    // values move every interval: re-sort at most this often unless asked
  const RETRY_MIN_MS = 1000, RETRY_MAX_MS = 10000;

  // ---- Summing and per-host values (pure functions) ----

  const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const hostsOf = (f) => Math.max(1, num(f.reportingHosts));

  // openHosts is how many hosts of a frame report an open breaker: a boolean from one
  // process, a count or a {"true": n, "false": m} object from Turbine.
  function openHosts(f) {
    const v = f.isCircuitBreakerOpen;
    if (v === true) return hostsOf(f);
    if (typeof v === 'number') return v;
    if (v && typeof v === 'object') return num(v.true);
    return 0;
  }

  function isNumberObject(v) {
    return v !== null && typeof v === 'object' && Object.values(v).every((x) => typeof x === 'number');
  }

  // sumFrames merges the frames of one name from several streams as Turbine does: numbers
  // and percentile objects summed, reportingHosts summed, isCircuitBreakerOpen counted in
  // hosts, other values taken from the first frame, forced breakers from any.
  function sumFrames(frames) {
    const out = {};
    for (const f of frames) {
      for (const [k, v] of Object.entries(f)) {
        if (typeof v === 'number') {
          out[k] = num(out[k]) + v;
        } else if (isNumberObject(v)) {
          const o = isNumberObject(out[k]) ? out[k] : (out[k] = {});
          for (const [p, n] of Object.entries(v)) o[p] = num(o[p]) + n;
        } else if (!(k in out)) {
          out[k] = v;
        }
      }
    }
    out.reportingHosts = frames.reduce((n, f) => n + hostsOf(f), 0);
    out.isCircuitBreakerOpen = frames.reduce((n, f) => n + openHosts(f), 0);
    for (const k of ['propertyValue_circuitBreakerForceOpen', 'propertyValue_circuitBreakerForceClosed']) {
      out[k] = frames.some((f) => f[k] === true);
    }
    return out;
  }

  const perHost = (v, hosts) => Math.floor(num(v) / hosts);
  const round1 = (v) => Math.round(v * 10) / 10;

  // ratePerSecond is count over the rolling window, the window averaged over hosts.
  function ratePerSecond(count, d, hosts) {
    const seconds = num(d.propertyValue_metricsRollingStatisticalWindowInMilliseconds) / hosts / 1000;
    return seconds > 0 ? Math.max(0, num(count)) / seconds : 0;
  }

  function circuitView(d) {
    const hosts = hostsOf(d);
    const lat = d.latencyExecute || {};
    const open = Math.min(hosts, num(d.isCircuitBreakerOpen));
    let state = 'Closed', stateClass = 'closed';
    if (d.propertyValue_circuitBreakerForceOpen === true) {
      state = 'Forced open'; stateClass = 'forced-open';
    } else if (d.propertyValue_circuitBreakerForceClosed === true) {
      state = 'Forced closed'; stateClass = 'forced-closed';
    } else if (open >= hosts) {
      state = 'Open'; stateClass = 'open';
    } else if (open > 0) {
      state = `Open on ${open} of ${hosts}`; stateClass = 'partial';
    }
    const rate = ratePerSecond(d.requestCount, d, hosts);
    return {
      name: String(d.name), search: `${d.name} ${d.group} ${d.threadPool}`.toLowerCase(),
      keys: `${d.group || '-'} · pool ${d.threadPool || '-'}`,
      hosts, rate, volume: rate, ratePerHost: rate / hosts, errorPct: round1(num(d.errorPercentage) / hosts),
      state, stateClass, open: open > 0,
      success: num(d.rollingCountSuccess), shortCircuited: num(d.rollingCountShortCircuited),
      badRequest: num(d.rollingCountBadRequests), timeout: num(d.rollingCountTimeout),
      rejected: num(d.rollingCountThreadPoolRejected) + num(d.rollingCountSemaphoreRejected),
      failure: num(d.rollingCountFailure),
      p50: perHost(lat['50'], hosts), p90: perHost(lat['90'], hosts), p99: perHost(lat['99'], hosts),
      p995: perHost(lat['99.5'], hosts), mean: perHost(d.latencyExecute_mean, hosts),
    };
  }

  function poolView(d) {
    const hosts = hostsOf(d);
    const rate = ratePerSecond(d.rollingCountThreadsExecuted, d, hosts);
    return {
      name: String(d.name), search: String(d.name).toLowerCase(), hosts, rate, volume: rate,
      active: num(d.currentActiveCount), queued: num(d.currentQueueSize), poolSize: num(d.currentPoolSize),
      maxActive: num(d.rollingMaxActiveThreads), executions: num(d.rollingCountThreadsExecuted),
      rejections: num(d.rollingCountCommandRejections),
      queueThreshold: perHost(d.propertyValue_queueSizeRejectionThreshold, hosts),
    };
  }

  function collapserView(d) {
    const hosts = hostsOf(d);
    const requests = num(d.rollingCountRequestsBatched);
    return {
      name: String(d.name), search: String(d.name).toLowerCase(), hosts, volume: requests,
      batches: num(d.rollingCountBatches), requests,
      perBatch: round1(num(d.batchSize_mean) / hosts),
      p99Batch: perHost((d.batchSize || {})['99'], hosts), fromCache: num(d.rollingCountResponsesFromCache),
    };
  }

  // ---- Formatting ----

  const intFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  const oneFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const int = (v) => intFmt.format(v);
  const one = (v) => oneFmt.format(v);
  const clock = (t) => new Date(t).toLocaleTimeString('en-GB');

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ---- Cards: built once per name, then only changed text is written ----

  class Card {
    constructor(kind, name) {
      this.root = el('article', `card ${kind}`);
      this.root.dataset.kind = kind;
      this.root.dataset.name = name;
      this.fields = {};
      this.text = {};
      this.head = el('header');
      const title = el('h3', 'name', name);
      title.title = name; // the whole name, when the card is too narrow for it
      this.head.append(title);
      this.root.append(this.head);
    }

    // sub appends the line under the name: what fields gives, then the host count.
    sub(...fields) {
      const line = el('div', 'sub');
      for (const f of fields) line.append(this.field('span', '', f), ' · ');
      line.append(this.field('span', 'hosts', 'hosts'));
      this.root.append(line);
    }

    field(tag, cls, key) {
      const e = el(tag, cls);
      e.dataset.field = key;
      this.fields[key] = e;
      return e;
    }

    // headline appends big numbers, each with its unit: [key, unit] pairs.
    headline(...pairs) {
      const line = el('div', 'headline');
      for (const [key, unit] of pairs) {
        const m = el('span', 'metric');
        m.append(this.field('span', 'big', key), ' ', el('span', 'unit', unit));
        line.append(m);
      }
      this.root.append(line);
    }

    // list appends a definition list of [key, label] pairs.
    list(cls, pairs) {
      const dl = el('dl', cls);
      for (const [key, label] of pairs) {
        const d = el('div', key);
        d.append(el('dt', '', label), this.field('dd', '', key));
        dl.append(d);
      }
      this.root.append(dl);
    }

    set(key, text) {
      if (this.text[key] !== text) {
        this.text[key] = text;
        this.fields[key].textContent = text;
      }
    }

    flag(cls, on) {
      if (this.root.classList.contains(cls) !== on) this.root.classList.toggle(cls, on);
    }
  }

  const hostsText = (n) => (n === 1 ? '1 host' : `${int(n)} hosts`);

  const kinds = {
    HystrixCommand: {
      section: 'circuits', view: circuitView,
      build(card) {
        card.head.append(card.field('span', 'state', 'state'));
        card.sub('keys');
        card.headline(['rate', 'req/s'], ['errorPct', '% errors']);
        card.root.append(card.field('div', 'since', 'since'));
        card.spark = el('canvas', 'spark');
        card.spark.width = 480;
        card.spark.height = 64;
        card.root.append(card.spark);
        card.list('c3', [['success', 'Success'], ['shortCircuited', 'Short-circ.'], ['badRequest', 'Bad request'],
          ['timeout', 'Timeout'], ['rejected', 'Rejected'], ['failure', 'Failure']]);
        card.root.append(el('div', 'caption', 'Execution latency, ms'));
        card.list('c5 latency', [['p50', 'p50'], ['p90', 'p90'], ['p99', 'p99'], ['p995', 'p99.5'], ['mean', 'mean']]);
      },
      update(card, v, item, now) {
        card.set('keys', v.keys);
        card.set('hosts', v.hosts > 1 ? `${hostsText(v.hosts)}, ${one(v.ratePerHost)}/s each` : hostsText(1));
        card.set('rate', one(v.rate));
        card.set('errorPct', one(v.errorPct));
        card.fields.errorPct.className = `big${v.errorPct >= 50 ? ' bad' : v.errorPct >= 10 ? ' warn' : ''}`;
        card.set('state', v.state);
        // A change counts when the same hosts report it, not when a host comes or goes.
        if (item.state !== undefined && item.hosts === v.hosts && item.state !== v.state) {
          item.changedAt = now;
          needSort = true; // a breaker that opens belongs at the top now, not at the next re-sort
        }
        item.state = v.state;
        item.hosts = v.hosts;
        card.set('since', item.changedAt ? `${v.state} since ${clock(item.changedAt)}` : '');
        for (const c of ['open', 'partial', 'forced-open', 'forced-closed']) card.flag(c, v.stateClass === c);
        for (const k of ['success', 'shortCircuited', 'badRequest', 'timeout', 'rejected', 'failure',
          'p50', 'p90', 'p99', 'p995', 'mean']) card.set(k, int(v[k]));
        item.history.push([now, v.rate, v.open]);
        while (item.history.length && item.history[0][0] < now - HISTORY_MS) item.history.shift();
        drawSpark(card.spark, item.history, now);
      },
    },
    HystrixThreadPool: {
      section: 'pools', view: poolView,
      build(card) {
        card.sub();
        card.headline(['rate', 'executions/s']);
        card.list('c3', [['active', 'Active'], ['queued', 'Queued'], ['poolSize', 'Pool size'],
          ['maxActive', 'Max active'], ['executions', 'Executions'], ['rejections', 'Rejections']]);
      },
      update(card, v) {
        card.set('hosts', hostsText(v.hosts));
        card.set('rate', one(v.rate));
        for (const k of ['active', 'queued', 'poolSize', 'maxActive', 'executions', 'rejections']) card.set(k, int(v[k]));
      },
    },
    HystrixCollapser: {
      section: 'collapsers', view: collapserView,
      build(card) {
        card.sub();
        card.headline(['perBatch', 'requests per batch']);
        card.list('c3', [['batches', 'Batches'], ['requests', 'Requests'], ['p99Batch', 'p99 batch'],
          ['fromCache', 'From cache']]);
      },
      update(card, v) {
        card.set('hosts', hostsText(v.hosts));
        card.set('perBatch', one(v.perBatch));
        for (const k of ['batches', 'requests', 'p99Batch', 'fromCache']) card.set(k, int(v[k]));
      },
    },
  };

  function drawSpark(canvas, history, now) {
    const ctx = canvas.getContext('2d');
    const w = canvas.width, h = canvas.height;
    ctx.clearRect(0, 0, w, h);
    const x = (t) => ((t - now + HISTORY_MS) / HISTORY_MS) * w;
    let top = 1;
    for (const p of history) top = Math.max(top, p[1]);
    ctx.fillStyle = 'rgba(179, 38, 30, 0.2)'; // open periods
    for (let i = 0; i < history.length; i++) {
      if (!history[i][2]) continue;
      const x0 = x(history[i][0]);
      const x1 = i + 1 < history.length ? x(history[i + 1][0]) : w;
      ctx.fillRect(x0, 0, Math.max(2, x1 - x0), h);
    }
    ctx.strokeStyle = '#0b5cad';
    ctx.lineWidth = 3;
    ctx.beginPath();
    history.forEach((p, i) => {
      const y = h - 3 - (p[1] / top) * (h - 6);
      if (i === 0) ctx.moveTo(x(p[0]), y); else ctx.lineTo(x(p[0]), y);
    });
    ctx.stroke();
  }

  // ---- Model: one item per kind and name, with the latest frame of each stream ----

  const items = new Map(); // "type\u0000name" -> item
  const dirty = new Set();
  const sections = {};
  let filter = '';
  let sortMode = 'errorVolume';
  let lastSort = 0;
  let needSort = true;
  let scheduled = false;
  const stats = { frames: 0, badFrames: 0, renders: 0, renderMs: 0, maxRenderMs: 0, lastRenderMs: 0 };

  function receive(stream, data) {
    stats.frames++;
    let f;
    try {
      f = JSON.parse(data);
    } catch (e) {
      stats.badFrames++;
      console.warn('rxhystrix dashboard: frame is not JSON', e);
      return;
    }
    const kind = f && kinds[f.type];
    if (!kind || typeof f.name !== 'string') return; // other frame types are not shown
    const key = `${f.type}\u0000${f.name}`;
    let item = items.get(key);
    if (!item) {
      item = { kind, name: f.name, frames: new Map(), history: [], state: undefined, hosts: 0, changedAt: 0 };
      items.set(key, item);
    }
    item.frames.set(stream, { f, at: Date.now() });
    dirty.add(item);
    schedule();
  }

  function schedule() {
    if (!scheduled) {
      scheduled = true;
      requestAnimationFrame(render);
    }
  }

  function render() {
    scheduled = false;
    const t0 = performance.now();
    const now = Date.now();
    for (const item of dirty) {
      const frames = [];
      for (const [stream, e] of item.frames) {
        if (e.at < now - STALE_MS) item.frames.delete(stream); else frames.push(e.f);
      }
      if (!item.card) {
        item.card = new Card(item.kind.section === 'circuits' ? 'circuit' : item.kind.section.slice(0, -1), item.name);
        item.kind.build(item.card);
        sections[item.kind.section].cards.append(item.card.root);
        needSort = true;
      }
      item.card.flag('stale', frames.length === 0);
      if (frames.length) {
        item.view = item.kind.view(sumFrames(frames));
        item.kind.update(item.card, item.view, item, now);
        item.card.root.hidden = !matches(item);
      }
      item.card.flag('changed', item.changedAt > now - CHANGED_MS);
    }
    dirty.clear();
    if (needSort || now - lastSort >= RESORT_MS) sortCards(now);
    const ms = performance.now() - t0;
    stats.renders++;
    stats.renderMs += ms;
    stats.lastRenderMs = ms;
    stats.maxRenderMs = Math.max(stats.maxRenderMs, ms);
  }

  function matches(item) {
    return !filter || item.view.search.includes(filter);
  }

  const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const sorts = {
    errorVolume: (a, b) => b.view.errorPct - a.view.errorPct || b.view.volume - a.view.volume || byName(a, b),
    name: byName,
    volume: (a, b) => b.view.volume - a.view.volume || byName(a, b),
    latency: (a, b) => b.view.p99 - a.view.p99 || b.view.mean - a.view.mean || byName(a, b),
  };

  // sortCards orders every section's cards (pools and collapsers by name or volume) and
  // refreshes the counts.
  function sortCards(now) {
    lastSort = now;
    needSort = false;
    for (const [id, s] of Object.entries(sections)) {
      const list = [...items.values()].filter((i) => i.kind.section === id && i.card && i.view);
      const order = id === 'circuits' ? sorts[sortMode] : sortMode === 'name' ? byName : sorts.volume;
      list.sort(order);
      const nodes = s.cards.children;
      if (list.some((item, i) => nodes[i] !== item.card.root)) {
        for (const item of list) s.cards.append(item.card.root);
      }
      const shown = list.filter(matches).length;
      s.count.textContent = shown === list.length ? `(${list.length})` : `(${shown} of ${list.length})`;
      s.empty.hidden = list.length > 0;
    }
  }

  function applyFilter() {
    for (const item of items.values()) {
      if (item.card && item.view) item.card.root.hidden = !matches(item);
    }
    needSort = true;
    render();
  }

  // ---- Streams: one EventSource each, reconnected with backoff when lost ----

  const streams = [];

  function connect(s) {
    const es = new EventSource(s.url);
    s.es = es;
    es.onopen = () => {
      s.retry = RETRY_MIN_MS;
      setState(s, 'open');
    };
    es.onmessage = (e) => receive(s.index, e.data);
    es.onerror = () => {
      es.close();
      setState(s, 'lost');
      setTimeout(() => connect(s), s.retry);
      s.retry = Math.min(s.retry * 2, RETRY_MAX_MS);
    };
  }

  function setState(s, state) {
    s.state = state;
    s.chip.className = state;
    s.chip.title = `${s.url}: ${state === 'open' ? 'connected' : state === 'lost' ? 'lost, reconnecting' : 'connecting'}`;
    const lost = streams.filter((x) => x.state === 'lost');
    const banner = document.getElementById('banner');
    banner.hidden = lost.length === 0;
    banner.textContent = `Stream lost, reconnecting: ${lost.map((x) => x.url).join(', ')}`;
    document.body.classList.toggle('lost', lost.length > 0 && lost.length === streams.length);
  }

  function streamURLs() {
    const fromQuery = new URLSearchParams(location.search).getAll('stream')
      .flatMap((v) => v.split(/[\s,]+/)).filter(Boolean);
    if (fromQuery.length) return fromQuery;
    try {
      const defaults = JSON.parse(document.body.dataset.streams || '[]');
      return Array.isArray(defaults) ? defaults.map(String) : [];
    } catch (e) {
      return [];
    }
  }

  function start() {
    for (const id of ['circuits', 'pools', 'collapsers']) {
      const s = document.getElementById(id);
      sections[id] = { cards: s.querySelector('.cards'), count: s.querySelector('.count'), empty: s.querySelector('.empty') };
    }
    const urls = [...new Set(streamURLs())];
    document.getElementById('stream').value = urls.join(' ');
    const status = document.getElementById('stream-status');
    urls.forEach((url, index) => {
      let label = url;
      try {
        const u = new URL(url, location.href);
        label = u.host === location.host ? u.pathname : u.host + u.pathname;
      } catch (e) { /* shown as given */ }
      const s = { url, index, retry: RETRY_MIN_MS, chip: el('li', '', label) };
      status.append(s.chip);
      streams.push(s);
      setState(s, 'connecting');
      connect(s);
    });
    document.getElementById('filter').addEventListener('input', (e) => {
      filter = e.target.value.trim().toLowerCase();
      applyFilter();
    });
    document.getElementById('sort').addEventListener('change', (e) => {
      sortMode = sorts[e.target.value] ? e.target.value : 'errorVolume';
      needSort = true;
      render();
    });
    // Ages out frames of streams that went quiet and ends highlights, once a second.
    setInterval(() => {
      const now = Date.now();
      for (const item of items.values()) {
        const quiet = [...item.frames.values()].some((e) => e.at < now - STALE_MS);
        const highlighted = item.card && item.card.root.classList.contains('changed');
        if (quiet || (highlighted && item.changedAt <= now - CHANGED_MS)) dirty.add(item);
      }
      if (dirty.size) schedule();
    }, 1000);
  }

  // The pure functions and counters, for tests and for the console.
  window.rxhystrixDashboard = { sumFrames, circuitView, poolView, collapserView, stats };
  start();
})();
