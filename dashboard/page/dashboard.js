// rxhystrix dashboard: watches one or more Hystrix streams (/hystrix.stream) and shows every
// circuit, thread pool and collapser. Several streams are summed per name as Turbine sums
// its hosts, and values are then shown per host as the Hystrix dashboard does with
// reportingHosts, so a Turbine stream shows the same. Every frame updates the model; only
// the cards on screen (or about to be) are written, so a frame costs what the window
// shows, not what the streams hold. Plain script, no build step.
'use strict';
(function () {
  const HISTORY_MS = 120000; // sparkline span
  const STALE_MS = 10000;    // a stream's frame counts for its name this long after it came
  const CHANGED_MS = 15000;  // how long a breaker state change stays highlighted
  const RESORT_MS = 5000;    // values move every interval: re-sort at most this often unless asked
  const RETRY_MIN_MS = 1000, RETRY_MAX_MS = 10000;
  const SCREEN_MARGIN = '400px'; // cards this far above or below the window are kept written
  const FULL_RATE = 400;         // req/s per host at which the circle is full, as in Hystrix's dashboard
  const CIRCLE_MIN = 4, CIRCLE_MAX = 24; // its radius, in a 52 by 52 box

  // CALL_COUNTS are the rolling counts of every call a circuit answered, one outcome each:
  // what req/s counts. Hystrix's requestCount leaves out short circuits, bad requests and
  // responses from cache, so its rate falls to nothing while a breaker is open.
  const CALL_COUNTS = ['rollingCountSuccess', 'rollingCountFailure', 'rollingCountTimeout',
    'rollingCountThreadPoolRejected', 'rollingCountSemaphoreRejected', 'rollingCountShortCircuited',
    'rollingCountBadRequests', 'rollingCountResponsesFromCache', 'rollingCountRateLimited',
    'rollingCountAdaptiveRejected', 'rollingCountThrottled',
    'rollingCountEstablishTimeout', 'rollingCountMidStreamFailure']; // a stream's outcome when not a success

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
    if (frames.length === 1) return oneFrame(frames[0]);
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

  // oneFrame is sumFrames of a single frame without a walk over its fields: it normalises
  // the frame in place (the same values, so it may be normalised again) and returns it.
  function oneFrame(f) {
    f.reportingHosts = hostsOf(f);
    f.isCircuitBreakerOpen = openHosts(f);
    for (const k of ['propertyValue_circuitBreakerForceOpen', 'propertyValue_circuitBreakerForceClosed']) f[k] = f[k] === true;
    return f;
  }

  const perHost = (v, hosts) => Math.floor(num(v) / hosts);
  const round1 = (v) => Math.round(v * 10) / 10;

  // ratePerSecond is count over the rolling window, the window averaged over hosts.
  function ratePerSecond(count, d, hosts) {
    const seconds = num(d.propertyValue_metricsRollingStatisticalWindowInMilliseconds) / hosts / 1000;
    return seconds > 0 ? Math.max(0, num(count)) / seconds : 0;
  }

  // circleRadius grows the circle's area with the request rate per host, full at FULL_RATE.
  function circleRadius(ratePerHost) {
    const share = Math.min(1, Math.max(0, ratePerHost) / FULL_RATE);
    return Math.round(2 * (CIRCLE_MIN + (CIRCLE_MAX - CIRCLE_MIN) * Math.sqrt(share))) / 2;
  }

  // HEALTH_STOPS are Hystrix's dashboard colours by error percentage (green up to 10 %,
  // yellow at 25, orange at 40, red from 50) as [percentage, hue].
  const HEALTH_STOPS = [[10, 120], [25, 48], [40, 36], [50, 0]];

  // healthColour is the circle's colour: by error percentage, red when the breaker is open.
  function healthColour(errorPct, open) {
    if (open) return '#b3261e';
    let hue = 0;
    if (errorPct <= HEALTH_STOPS[0][0]) {
      hue = HEALTH_STOPS[0][1];
    } else {
      for (let i = 1; i < HEALTH_STOPS.length; i++) {
        const [p0, h0] = HEALTH_STOPS[i - 1], [p1, h1] = HEALTH_STOPS[i];
        if (errorPct <= p1) {
          hue = h0 + ((errorPct - p0) / (p1 - p0)) * (h1 - h0);
          break;
        }
      }
    }
    hue = Math.round(hue);
    return `hsl(${hue}, 80%, ${Math.round(36 + (120 - hue) / 12)}%)`; // darker green, lighter red
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
    const rate = ratePerSecond(CALL_COUNTS.reduce((n, k) => n + num(d[k]), 0), d, hosts);
    const errorPct = round1(num(d.errorPercentage) / hosts);
    return {
      name: String(d.name), search: `${d.name} ${d.group} ${d.threadPool}`.toLowerCase(),
      keys: `${d.group || '-'} · pool ${d.threadPool || '-'}${adaptiveText(d)}`,
      hosts, rate, volume: rate, ratePerHost: rate / hosts, errorPct,
      state, stateClass, open: open > 0,
      radius: circleRadius(rate / hosts), colour: healthColour(errorPct, stateClass === 'open' || stateClass === 'forced-open'),
      success: num(d.rollingCountSuccess), shortCircuited: num(d.rollingCountShortCircuited),
      badRequest: num(d.rollingCountBadRequests), timeout: num(d.rollingCountTimeout),
      rejected: num(d.rollingCountThreadPoolRejected) + num(d.rollingCountSemaphoreRejected) +
        num(d.rollingCountAdaptiveRejected),
      failure: num(d.rollingCountFailure),
      limited: num(d.rollingCountRateLimited), injected: num(d.rollingCountFaultInjected),
      throttled: num(d.rollingCountThrottled),
      // Retries and hedges (extra fields: a Hystrix stream from elsewhere has none): their
      // cells show when the frame has their fields.
      retries: d.rollingCountRetry !== undefined || d.rollingCountBudgetExhausted !== undefined,
      hedges: d.rollingCountHedge !== undefined,
      retry: num(d.rollingCountRetry), budgetExhausted: num(d.rollingCountBudgetExhausted),
      hedge: num(d.rollingCountHedge),
      // Streams (extra fields, absent for other keys): items, establishment timeouts, cuts, resumes,
      // and whether a cut counts toward the breaker (absent from a Hystrix stream: it does).
      streams: d.rollingCountEstablishTimeout !== undefined || d.rollingCountMidStreamFailure !== undefined ||
        d.rollingCountStreamResumed !== undefined,
      items: num(d.rollingCountEmit), establishTimeout: num(d.rollingCountEstablishTimeout),
      midStream: num(d.rollingCountMidStreamFailure), resumed: num(d.rollingCountStreamResumed),
      cutsCount: d.propertyValue_streamCutsCountForHealth === false ? 'no' : 'yes',
      p50: perHost(lat['50'], hosts), p90: perHost(lat['90'], hosts), p99: perHost(lat['99'], hosts),
      p995: perHost(lat['99.5'], hosts), mean: perHost(d.latencyExecute_mean, hosts),
    };
  }

  // adaptiveText describes the adaptive limit of a circuit under ADAPTIVE isolation (fields
  // beyond Hystrix, summed over hosts), or nothing for the others.
  function adaptiveText(d) {
    if (d.adaptiveLimit === undefined) return '';
    return ` · limit ${num(d.adaptiveLimit)}, in flight ${num(d.adaptiveInflight)}, queued ${num(d.adaptiveQueue)}`;
  }

  function poolView(d) {
    const hosts = hostsOf(d);
    const rate = ratePerSecond(d.rollingCountThreadsExecuted, d, hosts);
    return {
      name: String(d.name), search: String(d.name).toLowerCase(), hosts, rate, volume: rate,
      active: num(d.currentActiveCount), queued: num(d.currentQueueSize), poolSize: num(d.currentPoolSize),
      coreSize: num(d.currentCorePoolSize), maximumSize: num(d.currentMaximumPoolSize),
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

  const SVG = 'http://www.w3.org/2000/svg';

  // NAME_BREAKS are where a long name may wrap: after a separator, or between a lower-case
  // letter or digit and a capital (CamelCase).
  const NAME_BREAKS = /(?<=[._:/$#-])|(?<=[a-z0-9])(?=[A-Z])/;

  // breakable returns a name as text with a line-break opportunity at each NAME_BREAKS.
  function breakable(name) {
    const out = [];
    for (const part of name.split(NAME_BREAKS)) {
      if (out.length) out.push(document.createElement('wbr'));
      out.push(part);
    }
    return out;
  }

  class Card {
    constructor(kind, name) {
      this.root = el('article', `card ${kind}`);
      this.root.dataset.kind = kind;
      this.root.dataset.name = name;
      this.fields = {};
      this.text = {};
      this.head = el('header');
      const title = el('h3', 'name');
      title.append(...breakable(name));
      title.title = name;
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

    // headline appends big numbers, each with its unit: [key, unit, title] triples.
    headline(...triples) {
      const line = el('div', 'headline');
      for (const [key, unit, title] of triples) {
        const m = el('span', 'metric');
        if (title) m.title = title;
        m.append(this.field('span', 'big', key), ' ', el('span', 'unit', unit));
        line.append(m);
      }
      this.root.append(line);
      return line;
    }

    // list appends a definition list of [key, label, title] triples.
    list(cls, triples) {
      const dl = el('dl', cls);
      for (const [key, label, title] of triples) {
        const d = el('div', key);
        if (title) d.title = title;
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

    // setBreakable is set for names, which may wrap at NAME_BREAKS.
    setBreakable(key, text) {
      if (this.text[key] !== text) {
        this.text[key] = text;
        this.fields[key].replaceChildren(...breakable(text));
      }
    }

    // attr sets an attribute of e, remembered under key, when it changed.
    attr(key, e, name, value) {
      if (this.text[key] !== value) {
        this.text[key] = value;
        e.setAttribute(name, value);
      }
    }

    flag(cls, on) {
      if (this.root.classList.contains(cls) !== on) this.root.classList.toggle(cls, on);
    }
  }

  const hostsText = (n) => (n === 1 ? '1 host' : `${int(n)} hosts`);

  const RATE_TITLE = 'Requests per second: every call in the rolling window (successes, failures, timeouts, ' +
    'rejections, short circuits, bad requests and responses from cache) over its length. ' +
    "Hystrix's own rate (requestCount) leaves out short circuits, bad requests and cache hits.";
  const CIRCLE_TITLE = `Area: req/s per host (full at ${FULL_RATE}/s). Colour: error % from green (10 % or less) ` +
    'to red (50 % or more); red when the breaker is open.';

  // circle appends the health circle to line: its area the rate, its colour the health.
  function circle(card, line) {
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('class', 'health');
    svg.setAttribute('viewBox', '0 0 52 52');
    svg.setAttribute('role', 'img');
    const title = document.createElementNS(SVG, 'title');
    title.textContent = CIRCLE_TITLE;
    card.circle = document.createElementNS(SVG, 'circle');
    for (const [k, v] of [['cx', 26], ['cy', 26], ['r', CIRCLE_MIN]]) card.circle.setAttribute(k, v);
    svg.append(title, card.circle);
    line.prepend(svg);
  }

  const kinds = {
    HystrixCommand: {
      section: 'circuits', view: circuitView,
      build(card) {
        card.head.append(card.field('span', 'state', 'state'));
        card.sub('keys');
        circle(card, card.headline(['rate', 'req/s', RATE_TITLE], ['errorPct', '% errors']));
        card.root.append(card.field('div', 'since', 'since'));
        card.spark = el('canvas', 'spark');
        card.spark.width = 480;
        card.spark.height = 64;
        card.sparkCtx = card.spark.getContext('2d');
        card.root.append(card.spark);
        card.list('counts', [['success', 'Success'], ['shortCircuited', 'Short-circ.'], ['badRequest', 'Bad request'],
          ['timeout', 'Timeout'], ['rejected', 'Rejected'], ['failure', 'Failure'],
          ['limited', 'Rate-limited'], ['injected', 'Faults injected'],
          ['throttled', 'Throttled', 'THROTTLED: calls the adaptive throttle refused'],
          ['retry', 'Retries', 'RETRY: attempts beyond the first'],
          ['budgetExhausted', 'Budget exh.', 'BUDGET_EXHAUSTED: retries or hedges the budget refused'],
          ['hedge', 'Hedges', 'HEDGE: attempts started while another was running']]);
        card.list('stream', [['items', 'Items'], ['establishTimeout', 'Estab. t/o', 'ESTABLISH_TIMEOUT'],
          ['midStream', 'Mid-stream', 'MID_STREAM_FAILURE'], ['resumed', 'Resumed', 'STREAM_RESUMED'],
          ['cutsCount', 'Cuts count', 'stream.cutsCountForHealth: a stream cut after its first item counts toward the breaker']]);
        card.root.append(el('div', 'caption', 'Execution latency, ms'));
        card.list('latency', [['p50', 'p50'], ['p90', 'p90'], ['p99', 'p99'], ['p995', 'p99.5'], ['mean', 'mean']]);
      },
      // track follows the circuit between frames, drawn or not: its breaker's changes and
      // the sparkline's history.
      track(item, v, now) {
        // A change counts when the same hosts report it, not when a host comes or goes.
        if (item.state !== undefined && item.hosts === v.hosts && item.state !== v.state) {
          item.changedAt = now;
          needSort = true; // a breaker that opens belongs at the top now, not at the next re-sort
        }
        item.state = v.state;
        item.hosts = v.hosts;
        item.history.push([now, v.rate, v.open]);
        while (item.history.length && item.history[0][0] < now - HISTORY_MS) item.history.shift();
      },
      update(card, v, item, now) {
        card.setBreakable('keys', v.keys);
        card.set('hosts', v.hosts > 1 ? `${hostsText(v.hosts)}, ${one(v.ratePerHost)}/s each` : hostsText(1));
        card.set('rate', one(v.rate));
        card.set('errorPct', one(v.errorPct));
        card.attr('errorClass', card.fields.errorPct, 'class', `big${v.errorPct >= 50 ? ' bad' : v.errorPct >= 10 ? ' warn' : ''}`);
        card.attr('radius', card.circle, 'r', String(v.radius));
        card.attr('colour', card.circle, 'fill', v.colour);
        card.set('state', v.state);
        card.set('since', item.changedAt ? `${v.state} since ${clock(item.changedAt)}` : '');
        for (const c of ['open', 'partial', 'forced-open', 'forced-closed']) card.flag(c, v.stateClass === c);
        for (const k of ['success', 'shortCircuited', 'badRequest', 'timeout', 'rejected', 'failure',
          'limited', 'injected', 'throttled', 'retry', 'budgetExhausted', 'hedge', 'p50', 'p90', 'p99', 'p995', 'mean']) {
          card.set(k, int(v[k]));
        }
        card.flag('retries', v.retries);
        card.flag('hedges', v.hedges);
        card.flag('streams', v.streams);
        if (v.streams) {
          for (const k of ['items', 'establishTimeout', 'midStream', 'resumed']) card.set(k, int(v[k]));
          card.set('cutsCount', v.cutsCount);
        }
        drawSpark(card.sparkCtx, item.history, now);
      },
    },
    HystrixThreadPool: {
      section: 'pools', view: poolView,
      build(card) {
        card.sub();
        card.headline(['rate', 'executions/s']);
        card.list('pool', [['active', 'Active'], ['queued', 'Queued'], ['rejections', 'Rejections'],
          ['poolSize', 'Pool size'], ['coreSize', 'Core size', 'coreSize: the threads kept (summed over hosts)'],
          ['maximumSize', 'Maximum size', 'maximumSize: the most threads (summed over hosts)'],
          ['maxActive', 'Max active'], ['executions', 'Executions'],
          ['queueThreshold', 'Queue limit', 'queueSizeRejectionThreshold, per host: a task that finds this many ' +
            'queued is rejected (in a pool with a queue, maxQueueSize > 0)']]);
      },
      update(card, v) {
        card.set('hosts', hostsText(v.hosts));
        card.set('rate', one(v.rate));
        for (const k of ['active', 'queued', 'rejections', 'poolSize', 'coreSize', 'maximumSize', 'maxActive',
          'executions', 'queueThreshold']) card.set(k, int(v[k]));
      },
    },
    HystrixCollapser: {
      section: 'collapsers', view: collapserView,
      build(card) {
        card.sub();
        card.headline(['perBatch', 'requests per batch']);
        card.list('collapser', [['batches', 'Batches'], ['requests', 'Requests'], ['p99Batch', 'p99 batch'],
          ['fromCache', 'From cache']]);
      },
      update(card, v) {
        card.set('hosts', hostsText(v.hosts));
        card.set('perBatch', one(v.perBatch));
        for (const k of ['batches', 'requests', 'p99Batch', 'fromCache']) card.set(k, int(v[k]));
      },
    },
  };

  function drawSpark(ctx, history, now) {
    const w = ctx.canvas.width, h = ctx.canvas.height;
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

  const items = new Map();   // "type\u0000name" -> item
  const byCard = new Map();  // card element -> item
  const dirty = new Set();   // items with new frames (or frames to age out)
  const show = new Set();    // items on screen whose card is behind their model
  const sections = {};
  let filter = '';
  let sortMode = 'errorVolume';
  let lastSort = 0;
  let needSort = true;
  let scheduled = false;
  const stats = { frames: 0, badFrames: 0, renders: 0, renderMs: 0, maxRenderMs: 0, lastRenderMs: 0,
    writes: 0, maxWrites: 0 };

  // screen tells which cards are on screen or near it: only those are written.
  const screen = new IntersectionObserver((entries) => {
    for (const e of entries) {
      const item = byCard.get(e.target);
      item.onScreen = e.isIntersecting;
      if (item.onScreen && item.behind) show.add(item);
    }
    if (show.size) schedule();
  }, { rootMargin: `${SCREEN_MARGIN} 0px` });

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
      item = { kind, name: f.name, frames: new Map(), history: [], state: undefined, hosts: 0, changedAt: 0,
        onScreen: false, behind: false, stale: false };
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

  // render brings every item with new frames up to date, then writes the cards on screen.
  function render() {
    scheduled = false;
    const t0 = performance.now();
    const now = Date.now();
    for (const item of dirty) {
      refresh(item, now);
      if (item.onScreen) show.add(item); else item.behind = true;
    }
    dirty.clear();
    let writes = 0;
    for (const item of show) {
      if (item.view) {
        write(item, now);
        writes++;
      }
    }
    show.clear();
    if (needSort || now - lastSort >= RESORT_MS) sortCards(now);
    const ms = performance.now() - t0;
    stats.renders++;
    stats.renderMs += ms;
    stats.lastRenderMs = ms;
    stats.maxRenderMs = Math.max(stats.maxRenderMs, ms);
    stats.writes += writes;
    stats.maxWrites = Math.max(stats.maxWrites, writes);
  }

  // refresh sums an item's fresh frames into its view, making its card the first time.
  function refresh(item, now) {
    const frames = [];
    for (const [stream, e] of item.frames) {
      if (e.at < now - STALE_MS) item.frames.delete(stream); else frames.push(e.f);
    }
    if (!item.card) {
      item.card = new Card(item.kind.section === 'circuits' ? 'circuit' : item.kind.section.slice(0, -1), item.name);
      item.kind.build(item.card);
      byCard.set(item.card.root, item);
      sections[item.kind.section].cards.append(item.card.root);
      screen.observe(item.card.root);
      needSort = true;
    }
    item.stale = frames.length === 0;
    if (frames.length) {
      item.view = item.kind.view(sumFrames(frames));
      if (item.kind.track) item.kind.track(item, item.view, now);
      const hidden = !matches(item);
      if (item.card.root.hidden !== hidden) item.card.root.hidden = hidden;
    }
  }

  // write brings an item's card up to its model.
  function write(item, now) {
    item.behind = false;
    item.card.flag('stale', item.stale);
    item.card.flag('changed', item.changedAt > now - CHANGED_MS);
    item.kind.update(item.card, item.view, item, now);
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
      // From the last card up, a card moves only when the one after it is not the right one:
      // a card that changed places moves, the others stay (and keep their layout).
      let next = null;
      for (let i = list.length - 1; i >= 0; i--) {
        const node = list[i].card.root;
        if (node.nextElementSibling !== next) {
          s.cards.insertBefore(node, next);
        }
        next = node;
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
        let quiet = false;
        for (const e of item.frames.values()) quiet ||= e.at < now - STALE_MS;
        if (quiet) {
          dirty.add(item);
        } else if (item.onScreen && item.changedAt && item.changedAt <= now - CHANGED_MS
          && item.card.root.classList.contains('changed')) {
          show.add(item);
        }
      }
      if (dirty.size || show.size) schedule();
    }, 1000);
  }

  // The pure functions and counters, for tests and for the console.
  window.rxhystrixDashboard = { sumFrames, circuitView, poolView, collapserView, circleRadius, healthColour, stats };
  start();
})();
