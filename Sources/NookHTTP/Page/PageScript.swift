/// The page's script: the glass by long-polled PNGs, the queue, the apps, the history and the buttons,
/// all through nook-http's own API with the tab's token, if any.
enum PageScript {
    static let javascript = #"""
'use strict';
(() => {
const $ = (id) => document.getElementById(id);
const TOKEN_KEY = 'nook-http-token';
let token = '';
try { token = sessionStorage.getItem(TOKEN_KEY) || ''; } catch (e) { token = ''; }
let frame = 0;
let glassURL = '';
let historyOffset = 0;
let historyQuery = '';
let historyPaged = false;
let lastQuiet = null;

class APIError extends Error {
  constructor(status, code, field, message) {
    super(message);
    this.status = status; this.code = code; this.field = field;
  }
  get text() {
    return (this.status ? this.status + ' ' : '') + this.code + (this.field ? ' (' + this.field + ')' : '') + ': ' + this.message;
  }
}

function authorized(headers) {
  if (token) headers.Authorization = 'Bearer ' + token;
  return headers;
}

// Every call to the API: an answer that is not 2xx becomes an APIError from its JSON error.
// A refusal (401, 403) of a call sent with another token than the tab's now (a token saved or
// forgotten while it was on its way: the page's first calls, on a slow board) is marked
// superseded: it says nothing of the token in use, and nothing was done. Each caller asks again
// with the token in use rather than show it.
function refusedForAnOldToken(error, sentWith) {
  return sentWith !== token && error instanceof APIError && (error.status === 401 || error.status === 403);
}

async function api(method, path, body) {
  const sentWith = token;
  const init = { method, cache: 'no-store', headers: authorized(body === undefined ? {} : { 'Content-Type': 'application/json' }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  try {
    let answer;
    try { answer = await fetch(path, init); } catch (e) {
      throw new APIError(0, 'unreachable', null, 'nook-http did not answer ' + method + ' ' + path);
    }
    return await readAnswer(answer, method, path);
  } catch (e) {
    if (refusedForAnOldToken(e, sentWith)) e.superseded = true;
    throw e;
  }
}

async function readAnswer(answer, method, path) {
  const text = await answer.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
  if (!answer.ok) {
    const error = (json && json.error) || {};
    throw new APIError(answer.status, error.code || 'http_error', error.field || null,
      error.message || (method + ' ' + path + ' answered ' + answer.status + ' ' + answer.statusText));
  }
  return json;
}

// The error box shows the last failure; `source` lets the live view take back only its own.
let errorSource = null;
function showError(error, source) {
  if (error && error.superseded) return;
  errorSource = source || null;
  const box = $('error');
  box.textContent = error instanceof APIError ? error.text : String(error);
  box.hidden = false;
  if (error instanceof APIError && (error.status === 401 || error.status === 403)) {
    $('token-hint').textContent = 'nook-http wants a token with more rights: paste one below.';
  }
}

function clearError(source) {
  if (source && source !== errorSource) return;
  $('error').hidden = true;
  $('error').textContent = '';
  errorSource = null;
}

function announce(text) { $('announce').textContent = text; }

// Runs one button's call: the button is disabled meanwhile, the outcome announced. A press
// refused for the token it was sent with, changed since, is sent again with the one in use.
async function act(button, done, call) {
  button.disabled = true;
  try {
    let answer;
    try { answer = await call(); } catch (e) {
      if (!(e && e.superseded)) throw e;
      answer = await call();
    }
    clearError();
    announce(done);
    return answer;
  } catch (e) {
    showError(e);
    return null;
  } finally {
    button.disabled = false;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A slide is many frames: what follows a frame runs once for a burst of them.
const soonTimers = {};
function soon(name, work) {
  if (soonTimers[name]) return;
  soonTimers[name] = setTimeout(() => { soonTimers[name] = null; work(); }, 250);
}

// Live regions announce a change of text, not the same text set again.
function say(id, text) {
  if ($(id).textContent !== text) $(id).textContent = text;
}

// The glass: each answer names its generation; the next asks for a newer one and waits.
async function watchGlass() {
  let failures = 0;
  for (;;) {
    // A tab in the background asks for no frames: each costs the board an encoding.
    while (document.hidden) await new Promise((resolve) => document.addEventListener('visibilitychange', resolve, { once: true }));
    const path = frame ? '/api/v1/screen.png?after=' + frame : '/api/v1/screen.png';
    const sentWith = token;
    try {
      const answer = await fetch(path, { cache: 'no-store', headers: authorized({}) });
      if (answer.status === 200) {
        const generation = Number(answer.headers.get('X-Nook-Frame'));
        const blob = await answer.blob();
        if (failures) clearError('glass');
        failures = 0;
        if (generation !== frame || !glassURL) {
          showFrame(blob, generation);
          soon('pending', refreshPending);
          // The rotation turning is a new frame too: the app on the glass changed.
          soon('apps', refreshApps);
          if (!historyPaged) soon('history', () => loadHistory(false));
        } else {
          await sleep(250);
        }
      } else if (answer.status === 204 || answer.status === 304) {
        if (failures) clearError('glass');
        failures = 0;
      } else {
        await readAnswer(answer, 'GET', path);
      }
    } catch (e) {
      // Refused for the token before the one in use: ask again at once with this one.
      if (refusedForAnOldToken(e, sentWith)) continue;
      failures += 1;
      if (e instanceof APIError) showError(e, 'glass');
      else showError(new APIError(0, 'unreachable', null, 'the live view lost nook-http; trying again'), 'glass');
      await sleep(Math.min(1000 * failures, 10000));
    }
  }
}

function showFrame(blob, generation) {
  const img = $('glass');
  const old = glassURL;
  glassURL = URL.createObjectURL(blob);
  img.src = glassURL;
  if (old) URL.revokeObjectURL(old);
  frame = generation;
  img.dataset.frame = String(generation);
  img.alt = 'The display now (frame ' + generation + ')';
  $('frame').textContent = 'Frame ' + generation + ' at ' + new Date().toLocaleTimeString();
}

function titleOf(activity) {
  return (activity && (activity.title || (activity.activity && activity.activity.title))) || '(untitled)';
}

// The waiting cards, whether the API answers nookd's modules or a flat list.
function cardsOf(answer) {
  const cards = [];
  if (!answer) return cards;
  const list = Array.isArray(answer) ? answer : answer.activities;
  if (Array.isArray(list)) {
    // `{"state":"onScreen"|"pending","module":…,"activity":{…}}` each.
    for (const item of list) {
      cards.push(item.activity ? Object.assign({ module: item.module, onGlass: item.state === 'onScreen' }, item.activity) : item);
    }
    return cards;
  }
  for (const module of answer.modules || []) {
    if (module.current) cards.push(Object.assign({ module: module.name, onGlass: true }, module.current));
    for (const activity of module.pending || []) cards.push(Object.assign({ module: module.name }, activity));
  }
  return cards;
}

let pendingBusy = false;
async function refreshPending() {
  if (pendingBusy) return;
  pendingBusy = true;
  try {
    // The first page (100 cards) of a queue that can hold 100,000: the rest are said, not drawn.
    const answer = await api('GET', '/api/v1/activities');
    const cards = cardsOf(answer);
    const list = $('pending');
    const focused = document.activeElement && document.activeElement.dataset.activity;
    patchList(list, cards.map(pendingItem));
    const onGlass = cards.filter(shownNow).length;
    const waiting = cards.length - onGlass;
    say('pending-count', cards.length === 0 ? 'Nothing waits.'
      : (onGlass ? onGlass + ' on the glass' : 'Nothing on the glass') + ', ' + waiting + ' waiting'
        + (answer && answer.next ? ', and more behind them.' : '.'));
    if (focused) {
      const again = list.querySelector('button[data-activity="' + CSS.escape(focused) + '"]');
      (again || $('pending-heading')).focus();
    }
  } catch (e) {
    // The refresh a token's save asked for found this one under way, and was dropped.
    if (e.superseded) soon('pending', refreshPending);
    else showError(e);
  } finally {
    pendingBusy = false;
  }
}

function shownNow(activity) { return activity.onGlass || activity.state === 'current'; }

// Rows equal to what is drawn stay the same nodes, in place: a Dismiss held with Space (a
// button acts on its release) still acts when a refresh between press and release left its row
// as it was; a replaced button would have lost the press.
function patchList(list, items) {
  items.forEach((fresh, index) => {
    const drawn = list.children[index];
    if (!drawn) list.append(fresh);
    else if (!drawn.isEqualNode(fresh)) drawn.replaceWith(fresh);
  });
  while (list.children.length > items.length) list.lastElementChild.remove();
}

function pendingItem(activity) {
  const item = document.createElement('li');
  item.dataset.activity = activity.id || '';
  const what = document.createElement('span');
  what.className = 'what';
  what.textContent = titleOf(activity);
  const meta = document.createElement('span');
  meta.className = 'meta';
  meta.textContent = [shownNow(activity) ? 'on the glass' : 'waiting',
    activity.subtitle, activity.module, activity.priority].filter(Boolean).join(' · ');
  what.append(meta);
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'Dismiss';
  button.className = 'dismiss';
  button.dataset.activity = activity.id || '';
  button.setAttribute('aria-label', 'Dismiss ' + titleOf(activity));
  button.addEventListener('click', async () => {
    const done = await act(button, 'Dismissed ' + titleOf(activity),
      () => api('POST', '/api/v1/activities/' + encodeURIComponent(activity.id) + '/dismiss'));
    if (done !== null) refreshPending();
  });
  item.append(what, button);
  return item;
}

// The apps in the rotation's order: name, text, stale, and the one on the glass now.
let appsBusy = false;
async function refreshApps() {
  if (appsBusy) return;
  appsBusy = true;
  try {
    const answer = await api('GET', '/api/v1/apps');
    const apps = (answer && Array.isArray(answer.apps)) ? answer.apps : [];
    $('apps').replaceChildren(...apps.map(appItem));
    const shown = apps.find((state) => state.showing);
    say('apps-count', apps.length === 0 ? 'No apps.'
      : apps.length + (apps.length === 1 ? ' app' : ' apps') + ', '
        + (shown ? '“' + shown.app.name + '” on the glass.' : 'none on the glass.'));
  } catch (e) {
    if (e.superseded) soon('apps', refreshApps);
    else showError(e);
  } finally {
    appsBusy = false;
  }
}

function appText(app) {
  if (typeof app.text === 'string') return app.text;
  return Array.isArray(app.text) ? app.text.map((fragment) => fragment.text || '').join('') : '';
}

function appItem(state) {
  const app = state.app || {};
  const item = document.createElement('li');
  item.dataset.app = app.name || '';
  if (state.showing) item.classList.add('showing');
  if (state.stale) item.classList.add('stale');
  const what = document.createElement('span');
  what.className = 'what';
  const name = document.createElement('strong');
  name.className = 'name';
  name.textContent = app.name || '';
  const text = document.createElement('span');
  text.className = 'text';
  text.textContent = appText(app);
  const meta = document.createElement('span');
  meta.className = 'meta';
  meta.textContent = [state.showing ? 'on the glass' : '', state.stale ? 'stale, set ' + when(state.setAt) : '',
    state.sender && state.sender.name].filter(Boolean).join(' · ');
  what.append(name, ' ', text, meta);
  item.append(what);
  return item;
}

async function refreshStatus() {
  try {
    const status = await api('GET', '/api/v1/status');
    const modules = (status && status.modules) || [];
    const suspended = modules.some((module) => module.suspended);
    const parts = [suspended ? 'Suspended' : 'Running'];
    if (status && typeof status.quiet === 'object' && status.quiet) lastQuiet = status.quiet;
    else if (status && typeof status.quiet === 'boolean') lastQuiet = { quiet: status.quiet };
    if (lastQuiet) parts.push(quietText(lastQuiet));
    if (status && status.display && status.display.available === false) parts.push('display unavailable');
    say('state', parts.join(' · '));
  } catch (e) {
    // The token's save asked again; this answer is for the token before it.
    if (e.superseded) return;
    say('state', 'No status');
    showError(e);
  }
}

function quietText(quiet) {
  return quiet.quiet ? 'quiet' + (quiet.until ? ' until ' + quiet.until : '') : 'not quiet';
}

function when(seconds) {
  return typeof seconds === 'number' ? new Date(seconds * 1000).toLocaleString() : '';
}

async function loadHistory(more) {
  const query = '/api/v1/history?q=' + encodeURIComponent(historyQuery) + (more ? '&offset=' + historyOffset : '');
  try {
    const answer = await api('GET', query);
    const entries = ((answer && (answer.entries || answer.history)) || (Array.isArray(answer) ? answer : [])).slice();
    const list = $('history');
    if (more) list.append(...entries.map(historyItem));
    else { list.replaceChildren(...entries.map(historyItem)); historyOffset = 0; }
    historyPaged = more;
    historyOffset += entries.length;
    const total = answer && typeof answer.total === 'number' ? answer.total : null;
    const more_ = answer && (answer.next !== undefined && answer.next !== null);
    $('history-more').hidden = !more_;
    if (answer && typeof answer.next === 'number') historyOffset = answer.next;
    const shown = list.children.length;
    // `total` counts the whole history, matching or not.
    say('history-count', historyQuery
      ? shown + ' matching “' + historyQuery + '”' + (total !== null ? ' of ' + total + ' in the history' : '')
      : (total !== null ? shown + ' of ' + total + ' shown' : shown + ' shown'));
  } catch (e) {
    showError(e);
  }
}

function historyItem(entry) {
  const item = document.createElement('li');
  const what = document.createElement('span');
  what.className = 'what';
  what.textContent = (entry.number !== undefined ? '#' + entry.number + ' ' : '') + titleOf(entry.activity || entry);
  const meta = document.createElement('span');
  meta.className = 'meta';
  meta.textContent = [entry.ending, entry.sender && (entry.sender.name || entry.sender), entry.module,
    when(entry.endedAt || entry.enqueuedAt)].filter((part) => typeof part === 'string' && part).join(' · ');
  what.append(meta);
  item.append(what);
  return item;
}

function wire() {
  $('suspend').addEventListener('click', async (event) => {
    await act(event.currentTarget, 'Suspended', () => api('POST', '/api/v1/suspend'));
    refreshStatus();
  });
  $('resume').addEventListener('click', async (event) => {
    await act(event.currentTarget, 'Resumed', () => api('POST', '/api/v1/resume'));
    refreshStatus();
  });
  const quiet = async (button, body, done) => {
    const answer = await act(button, done, () => api('PUT', '/api/v1/quiet', body));
    if (answer) lastQuiet = typeof answer.quiet === 'object' && answer.quiet ? answer.quiet : answer;
    refreshStatus();
  };
  $('quiet-on').addEventListener('click', (event) => quiet(event.currentTarget, { set: 'on' }, 'Quiet on'));
  $('quiet-off').addEventListener('click', (event) => quiet(event.currentTarget, { set: 'off' }, 'Quiet off'));
  $('quiet-until-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const until = $('quiet-until').value;
    quiet($('quiet-until-set'), { set: 'until', until }, 'Quiet until ' + until);
  });
  $('test-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const card = { title: $('test-title').value };
    if ($('test-body').value) card.subtitle = $('test-body').value;
    const answer = await act($('test-send'), 'Test card sent', () => api('POST', '/api/v1/activities', card));
    if (answer) refreshPending();
  });
  const turn = async (button, path, done) => {
    const answer = await act(button, done, () => api('POST', path));
    if (answer) announce(done + ': ' + (answer.showing === null ? 'the home content' : answer.showing));
    refreshApps();
  };
  $('app-previous').addEventListener('click', (event) => turn(event.currentTarget, '/api/v1/rotation/previous', 'Previous app'));
  $('app-next').addEventListener('click', (event) => turn(event.currentTarget, '/api/v1/rotation/next', 'Next app'));
  $('history-form').addEventListener('submit', (event) => {
    event.preventDefault();
    historyQuery = $('history-q').value.trim();
    loadHistory(false);
  });
  $('history-more').addEventListener('click', () => loadHistory(true));
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const given = $('token').value.trim();
    // A header value the browser would refuse to send: say so here, not as a failed request.
    if (!/^[\x21-\x7e]*$/.test(given)) {
      showError(new APIError(0, 'invalid_token', 'token', 'a token is printable ASCII without spaces'));
      $('token').focus();
      return;
    }
    token = given;
    try { sessionStorage.setItem(TOKEN_KEY, token); } catch (e) { /* private mode: kept in memory only */ }
    $('token').value = '';
    $('token-hint').textContent = token ? 'A token is in use in this tab.' : 'No token in use.';
    announce(token ? 'Token saved for this tab' : 'No token in use');
    clearError();
    refreshAll();
  });
  $('token-forget').addEventListener('click', () => {
    token = '';
    try { sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* nothing kept */ }
    $('token-hint').textContent = 'No token in use.';
    announce('Token forgotten');
    clearError();
    refreshAll();
  });
  if (token) $('token-hint').textContent = 'A token is in use in this tab.';
}

function refreshAll() {
  refreshStatus();
  refreshPending();
  refreshApps();
  loadHistory(false);
}

wire();
refreshAll();
watchGlass();
// The queue can change without the glass changing (a card waits behind another).
// So can the apps: one set or removed while a card holds the glass.
setInterval(() => { if (!document.hidden) { refreshPending(); refreshApps(); refreshStatus(); } }, 5000);
})();

"""#
}
