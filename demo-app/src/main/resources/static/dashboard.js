'use strict';

// The demo's dashboard: polls /stats (bloom-guard's meters and the demo's query count), /attack
// (the simulator) and /actuator/bloomguard (the filter), and draws the last minute as an SVG chart.
// Plain browser JavaScript, served as is: no build step, no library.
(function () {
  const POLL_MS = 1000;
  const FILTER_POLL_MS = 2000;
  const SAMPLES = 60;
  const FILTER = 'user';
  const COLOURS = { passed: '#2f7ed8', blocked: '#2a9d5c', bypassed: '#e0a100', db: '#d64545' };
  const SPARE_COLOURS = ['#7a5af5', '#0f9bb5', '#b5179e'];
  const LABELS = { db: 'database queries' };
  const MIX_LABELS = { absent: 'random absent ids', mixed: 'half real, half absent ids', 'false-positive': 'one false-positive id' };

  const samples = [];
  let previous = null;
  let series = ['passed', 'blocked', 'bypassed', 'db'];
  const count = new Intl.NumberFormat('en');
  const $ = (id) => document.getElementById(id);

  async function json(url, options) {
    const response = await fetch(url, Object.assign({ headers: { Accept: 'application/json' } }, options));
    const text = await response.text();
    const body = text ? JSON.parse(text) : null;
    if (!response.ok) {
      throw new Error(body && body.detail ? body.detail : response.status + ' ' + response.statusText);
    }
    return body;
  }

  function show(id, value, text) {
    const element = $(id);
    element.dataset.value = value === null || value === undefined ? '' : String(value);
    element.textContent = text !== undefined ? text : (value === null || value === undefined ? '–' : count.format(value));
  }

  function micros(value) {
    if (value === null || value === undefined) {
      return '–';
    }
    return value >= 1000 ? (value / 1000).toFixed(1) + ' ms' : Math.round(value) + ' µs';
  }

  // Counters and the chart --------------------------------------------------------------------

  async function pollStats() {
    const stats = await json('/stats');
    const now = performance.now();
    show('count-passed', stats.passed);
    show('count-blocked', stats.blocked);
    show('count-bypassed', stats.bypassed);
    show('count-db', stats.databaseQueries);
    show('count-avoided', stats.databaseQueriesAvoided);
    const latency = stats.checkLatency;
    $('latency-p50').textContent = micros(latency.p50);
    $('latency-p95').textContent = micros(latency.p95);
    $('latency-p99').textContent = micros(latency.p99);
    if (previous) {
      const seconds = Math.max((now - previous.time) / 1000, 0.001);
      const rates = {};
      for (const [outcome, total] of Object.entries(stats.checks)) {
        rates[outcome] = Math.max(0, total - (previous.checks[outcome] || 0)) / seconds;
      }
      rates.db = Math.max(0, stats.databaseQueries - previous.db) / seconds;
      samples.push(rates);
      if (samples.length > SAMPLES) {
        samples.shift();
      }
    }
    previous = { time: now, checks: stats.checks, db: stats.databaseQueries };
    series = Object.keys(stats.checks).sort(byKnownOrder).concat('db');
    draw();
  }

  function byKnownOrder(a, b) {
    const order = ['passed', 'blocked', 'bypassed'];
    const rank = (name) => (order.indexOf(name) + 1) || order.length + 1;
    return rank(a) - rank(b) || a.localeCompare(b);
  }

  function colour(series, index) {
    return COLOURS[series] || SPARE_COLOURS[index % SPARE_COLOURS.length];
  }

  /** Rounds up to 1, 2 or 5 times a power of ten, so the axis reads easily. */
  function niceCeiling(value) {
    const power = Math.pow(10, Math.floor(Math.log10(value)));
    return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value);
  }

  function draw() {
    const chart = $('chart');
    const width = Math.max(chart.clientWidth, 200);
    const height = Math.max(chart.clientHeight, 120);
    const left = 46, right = 8, top = 8, bottom = 20;
    const peak = Math.max(10, ...samples.flatMap((rates) => series.map((name) => rates[name] || 0)));
    const ceiling = niceCeiling(peak);
    const x = (index) => left + (width - left - right) * (SAMPLES - samples.length + index) / (SAMPLES - 1);
    const y = (value) => top + (height - top - bottom) * (1 - value / ceiling);
    const svg = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + width + ' ' + height + '">'];
    for (let step = 0; step <= 4; step++) {
      const value = ceiling * step / 4;
      svg.push('<line class="grid" x1="' + left + '" x2="' + (width - right) + '" y1="' + y(value) + '" y2="' + y(value) + '"/>');
      svg.push('<text class="axis" x="' + (left - 6) + '" y="' + (y(value) + 4) + '" text-anchor="end">' + count.format(value) + '</text>');
    }
    svg.push('<text class="axis" x="' + left + '" y="' + (height - 4) + '">60 s ago</text>');
    svg.push('<text class="axis" x="' + (width - right) + '" y="' + (height - 4) + '" text-anchor="end">now</text>');
    const legend = [];
    series.forEach((name, index) => {
      const values = samples.map((rates) => rates[name] || 0);
      const points = values.map((value, i) => x(i).toFixed(1) + ',' + y(value).toFixed(1)).join(' ');
      const seriesPeak = values.length ? Math.max(...values) : 0;
      svg.push('<polyline id="line-' + name + '" data-peak="' + seriesPeak.toFixed(1) + '" stroke="' + colour(name, index)
          + '" points="' + points + '"/>');
      const latest = values.length ? values[values.length - 1] : 0;
      legend.push('<li style="--swatch:' + colour(name, index) + '">' + (LABELS[name] || name) + ' <b>'
          + count.format(Math.round(latest)) + '/s</b></li>');
    });
    svg.push('</svg>');
    chart.innerHTML = svg.join('');
    $('legend').innerHTML = legend.join('');
  }

  // The attack simulator ----------------------------------------------------------------------

  async function pollAttack() {
    const status = await json('/attack');
    $('attack-caps').textContent = count.format(status.maxRate) + ' lookups/s for ' + status.maxSeconds + ' s';
    $('attack-rate').max = status.maxRate;
    $('attack-seconds').max = status.maxSeconds;
    const burst = status.current;
    const line = $('attack-status');
    if (burst) {
      line.dataset.state = burst.state;
      line.textContent = describe(burst);
    }
    compare('on', status.withGuard);
    compare('off', status.withoutGuard);
  }

  function describe(burst) {
    const how = 'guard ' + burst.guard + ', ' + (MIX_LABELS[burst.mix] || burst.mix)
        + (burst.falsePositiveId ? ' (' + burst.falsePositiveId + ')' : '');
    const planned = burst.rate * burst.seconds;
    if (burst.state === 'running') {
      return 'Running: ' + count.format(burst.lookups) + ' of ' + count.format(planned) + ' lookups (' + how + ')';
    }
    const outcome = burst.state === 'finished' ? 'Finished' : burst.state === 'stopped' ? 'Stopped' : 'Failed';
    return outcome + ': ' + count.format(burst.lookups) + ' lookups (' + how + '): ' + count.format(burst.rejected)
        + ' blocked, ' + count.format(burst.found) + ' found, ' + count.format(burst.databaseQueries) + ' database queries'
        + (burst.failed ? ', ' + count.format(burst.failed) + ' failed' : '');
  }

  function compare(side, burst) {
    show('compare-' + side + '-db', burst ? burst.databaseQueries : null);
    show('compare-' + side + '-lookups', burst ? burst.lookups : null);
    if (side === 'on') {
      show('compare-on-rejected', burst ? burst.rejected : null);
    }
    $('compare-' + side + '-mix').textContent = burst ? (MIX_LABELS[burst.mix] || burst.mix) : '';
    const share = burst && burst.lookups ? Math.min(1, burst.databaseQueries / burst.lookups) : 0;
    $('compare-' + side + '-bar').style.width = (share * 100).toFixed(1) + '%';
  }

  async function startAttack(event) {
    event.preventDefault();
    const error = $('attack-error');
    error.hidden = true;
    const form = new URLSearchParams({
      rate: $('attack-rate').value,
      seconds: $('attack-seconds').value,
      mix: $('attack-mix').value,
      guard: $('attack-guard').checked ? 'on' : 'off',
    });
    try {
      await json('/attack', { method: 'POST', body: form });
    }
    catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    }
    await pollAttack();
  }

  async function stopAttack() {
    await json('/attack', { method: 'DELETE' });
    await pollAttack();
  }

  // The filter --------------------------------------------------------------------------------

  async function pollFilter() {
    let filter;
    try {
      filter = (await json('/actuator/bloomguard')).filters[FILTER];
    }
    catch (failure) {
      setState('UNREACHABLE');
      return;
    }
    setState(filter.state);
    $('filter-fill').textContent = filter.fillRatio === undefined || filter.fillRatio === null ? '–'
        : (filter.fillRatio * 100).toFixed(1) + ' %';
    $('filter-fpp').textContent = filter.estimatedFpp === undefined || filter.estimatedFpp === null ? '–'
        : filter.estimatedFpp.toExponential(1) + ' (configured ' + filter.geometry.fpp + ')';
    $('filter-count').textContent = filter.approximateCount === undefined || filter.approximateCount === null ? '–'
        : count.format(filter.approximateCount);
    $('filter-geometry').textContent = count.format(filter.geometry.bits) + ' bits, ' + filter.geometry.hashes + ' hashes';
    const load = $('filter-last-load');
    if (filter.warming) {
      load.textContent = 'loading now…';
    }
    else if (filter.lastLoad) {
      load.dataset.finishedAt = filter.lastLoad.finishedAt;
      load.textContent = count.format(filter.lastLoad.keys) + ' keys in ' + seconds(filter.lastLoad.duration) + ' s, '
          + new Date(filter.lastLoad.finishedAt).toLocaleTimeString();
    }
    $('filter-circuit').textContent = filter.circuit || '–';
  }

  function setState(state) {
    const badge = $('filter-state');
    badge.dataset.state = state;
    badge.textContent = state;
  }

  /** Seconds in an ISO-8601 duration such as PT1.52S or PT2M3.1S. */
  function seconds(duration) {
    const parts = /PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?/.exec(duration || '');
    if (!parts) {
      return '?';
    }
    return ((+parts[1] || 0) * 3600 + (+parts[2] || 0) * 60 + (+parts[3] || 0)).toFixed(2);
  }

  /** The endpoint's write operation is mapped only when exposed; OPTIONS lists the methods that are. */
  async function checkRebuild() {
    const response = await fetch('/actuator/bloomguard/' + FILTER, { method: 'OPTIONS' });
    const allowed = response.ok && /\bPOST\b/.test(response.headers.get('Allow') || '');
    $('rebuild').disabled = !allowed;
    $('rebuild-note').textContent = allowed
      ? 'Loads the filter again from its warmup SQL in the background; checks go on meanwhile.'
      : 'The demo exposes this endpoint read-only. Start it with '
        + '--management.endpoint.bloomguard.access=unrestricted to rebuild from here.';
  }

  async function rebuild() {
    const note = $('rebuild-note');
    try {
      const answer = await json('/actuator/bloomguard/' + FILTER, { method: 'POST' });
      note.textContent = 'Rebuild ' + answer.rebuild + (answer.reason ? ': ' + answer.reason : '') + '.';
    }
    catch (failure) {
      note.textContent = 'Rebuild refused: ' + failure.message;
    }
    await pollFilter();
  }

  // Create a user -----------------------------------------------------------------------------

  async function createUser(event) {
    event.preventDefault();
    const result = $('user-result');
    try {
      const user = await json('/users', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ name: $('user-name').value, email: $('user-email').value }),
      });
      const lookup = await fetch('/users/' + user.id);
      result.dataset.status = String(lookup.status);
      result.textContent = 'Created user ' + user.id + '. GET /users/' + user.id + ' right after: ' + lookup.status
          + (lookup.ok ? ', found at once: the filter already had its id.' : ', not found.');
    }
    catch (failure) {
      result.dataset.status = 'error';
      result.textContent = 'Not created: ' + failure.message;
    }
  }

  // Wiring ------------------------------------------------------------------------------------

  function every(milliseconds, task) {
    const run = () => task().catch((failure) => console.warn(failure)).finally(() => setTimeout(run, milliseconds));
    run();
  }

  $('attack-form').addEventListener('submit', startAttack);
  $('attack-stop').addEventListener('click', () => stopAttack().catch((failure) => console.warn(failure)));
  $('rebuild').addEventListener('click', () => rebuild());
  $('user-form').addEventListener('submit', createUser);
  window.addEventListener('resize', draw);
  checkRebuild().catch((failure) => console.warn(failure));
  every(POLL_MS, pollStats);
  every(POLL_MS, pollAttack);
  every(FILTER_POLL_MS, pollFilter);
})();
