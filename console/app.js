// The console's entry: learns whether a key is needed (GET /api/v1/me),
// asks for one if so, then routes on the URL hash so any view can be shared
// as a link:
//   #/                      overview
//   #/jobs?queue=&status=&reason=&tag=&page=   jobs (status=deadletter: the DLQ)
//   #/jobs/<id>?workflow=   one job (workflow: the workflow it was opened from)
//   #/queues/<name>         one queue
//   #/webhooks              outgoing webhooks
//   #/webhooks/<id>?status=&page=   one webhook and its deliveries
//   #/schedules?page=       cron schedules
//   #/schedules/<id>?page=  one schedule and its run history
//   #/workflows?status=&page=   workflows
//   #/workflows/<id>        one workflow and its jobs as a graph
//   #/keys                  stored API keys (admin only)
//   #/audit?actor=&action=&target=&cursor=   the operator audit log
import * as api from './api.js';
import {h, fill} from './dom.js';
import {mountOverview} from './overview.js';
import {mountJobs} from './jobs.js';
import {mountJob} from './job.js';
import {mountQueue} from './queue.js';
import {mountWebhooks} from './webhooks.js';
import {mountWebhook} from './webhook.js';
import {mountAudit} from './audit.js';
import {mountSchedules} from './schedules.js';
import {mountSchedule} from './schedule.js';
import {mountKeys} from './keys.js';
import {mountWorkflows} from './workflows.js';
import {mountWorkflow} from './workflow.js';
import {showError, clearMessages, isDialogOpen} from './ui.js';
import {formatDuration} from './durations.js';
import {startLive, stopLive} from './live.js';

const POLL_MS = 5000;
// Pages whose data the event stream covers (route() marks them `live`: the
// overview's counts, the jobs and DLQ tables, a job's status): while it is
// open they refresh on events, and only every SAFETY_POLLS-th poll besides;
// other pages (their forms), or any page while the stream is down, poll.
const SAFETY_POLLS = 6;
const EVENT_REFRESH_MS = 200;  // a burst of events is one refresh
const main = document.getElementById('main');
// requireKey(message): a page that ended the server's no-key mode (the Keys
// page's first key) asks for a key.
const ctx = {role: null, canAct: false, authRequired: false,
             requireKey: (message) => showSignIn(message)};
let page = null;         // {refresh} of the mounted view
let pollTimer = null;
let lastUpdated = null;
let liveRoute = false;     // the shown page is one the stream covers
let live = false;          // the event stream is open
let polls = 0;
let eventRefresh = null;   // a refresh asked for by events, not yet run

function route() {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, queryString] = hash.split('?');
  const params = new URLSearchParams(queryString || '');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'jobs' && parts[1]) {
    return {nav: 'jobs', live: true, mount: (view) => mountJob(view, ctx, parts[1], params)};
  }
  if (parts[0] === 'jobs') {
    const nav = params.get('status') === 'deadletter' ? 'dlq' : 'jobs';
    return {nav, live: true, mount: (view) => mountJobs(view, ctx, params)};
  }
  if (parts[0] === 'queues' && parts[1]) {
    return {nav: 'overview', mount: (view) => mountQueue(view, ctx, parts[1])};
  }
  if (parts[0] === 'webhooks' && parts[1]) {
    return {nav: 'webhooks', mount: (view) => mountWebhook(view, ctx, parts[1], params)};
  }
  if (parts[0] === 'webhooks') return {nav: 'webhooks', mount: (view) => mountWebhooks(view, ctx)};
  if (parts[0] === 'audit') return {nav: 'audit', mount: (view) => mountAudit(view, ctx, params)};
  if (parts[0] === 'schedules' && parts[1]) {
    return {nav: 'schedules', mount: (view) => mountSchedule(view, ctx, parts[1], params)};
  }
  if (parts[0] === 'schedules') {
    return {nav: 'schedules', mount: (view) => mountSchedules(view, ctx, params)};
  }
  // Not `live`: the event stream names jobs, not their workflow, so these
  // pages poll.
  if (parts[0] === 'workflows' && parts[1]) {
    return {nav: 'workflows', mount: (view) => mountWorkflow(view, ctx, parts[1])};
  }
  if (parts[0] === 'workflows') {
    return {nav: 'workflows', mount: (view) => mountWorkflows(view, ctx, params)};
  }
  if (parts[0] === 'keys') return {nav: 'keys', mount: (view) => mountKeys(view, ctx)};
  return {nav: 'overview', live: true, mount: (view) => mountOverview(view, ctx)};
}

async function show() {
  clearMessages();
  const r = route();
  liveRoute = Boolean(r.live);
  for (const a of document.querySelectorAll('[data-nav]')) {
    a.classList.toggle('active', a.dataset.nav === r.nav);
  }
  // Each page draws into a view of its own: a refresh of the page before
  // (still in flight when the route changed) draws into a detached element,
  // never over this one.
  const view = h('div', {class: 'view'});
  fill(main, view);
  page = r.mount(view);
  await refresh();
}

async function refresh() {
  if (!page || isDialogOpen()) return;
  const mounted = page;
  try {
    await mounted.refresh();
    if (mounted !== page) return;
    lastUpdated = new Date();
    renderUpdated();
  } catch (err) {
    if (err.status === 401) return;  // the sign-in form is already up
    if (mounted !== page) return;
    if (err.status === 404) {
      fill(main, h('h1', {}, 'Not found'), h('p', {}, err.message),
                         h('p', {}, h('a', {href: '#/'}, 'Back to the overview')));
      page = null;
    }
    // A page this role may not read (a viewer on #/keys): the server's words
    // instead of a page stuck on "Loading…".
    if (err.status === 403) {
      fill(main, h('h1', {}, 'Not allowed'),
           h('p', {'data-test': 'forbidden'}, h('strong', {}, err.code), ' ', err.message),
           h('p', {}, `Your key's role is ${ctx.role}.`),
           h('p', {}, h('a', {href: '#/'}, 'Back to the overview')));
      page = null;
    }
    showError(err, 'Loading');
  }
}

function renderUpdated() {
  const el = document.getElementById('updated');
  if (!lastUpdated) { el.textContent = ''; return; }
  const s = Math.round((Date.now() - lastUpdated) / 1000);
  el.textContent = `updated ${s < 2 ? 'just now' : `${formatDuration(s * 1000)} ago`}`;
  el.title = lastUpdated.toISOString();
}

function startPolling() {
  clearInterval(pollTimer);
  pollTimer = setInterval(() => {
    renderUpdated();
    polls += 1;
    const covered = live && liveRoute && polls % SAFETY_POLLS !== 0;
    if (document.visibilityState === 'visible' && !covered) refresh();
  }, POLL_MS);
}

function setLive(open) {
  live = open;
  const el = document.getElementById('live');
  el.hidden = false;
  el.textContent = open ? 'live' : 'polling';
  el.dataset.state = open ? 'live' : 'polling';
  el.title = open ? 'Updated as changes happen (event stream)'
                  : `The event stream is down: refreshed every ${POLL_MS / 1000} s`;
}

function onLiveEvent() {
  if (!liveRoute || eventRefresh) return;
  eventRefresh = setTimeout(() => {
    eventRefresh = null;
    if (document.visibilityState === 'visible') refresh();
  }, EVENT_REFRESH_MS);
}

// A worker key may enqueue and run jobs but not read the operator's routes
// (GET /queues, /jobs, ...): say so at sign-in rather than 403 on every page.
const WORKER_KEY_MESSAGE = 'That is a worker key: it can run jobs but not read the console. ' +
                           'Use an admin or viewer key.';
const canRead = (role) => role === 'admin' || role === 'viewer';

function showSignIn(message) {
  clearInterval(pollTimer);
  stopLive();
  live = false;
  page = null;
  document.getElementById('nav').hidden = true;
  const input = h('input', {type: 'password', name: 'key', autocomplete: 'off',
                            'data-test': 'api-key', 'aria-label': 'API key'});
  const error = h('p', {class: 'field-error', role: 'alert'}, message || '');
  const form = h('form', {class: 'card signin', 'data-test': 'signin'},
    h('h1', {}, 'Sign in'),
    h('p', {}, 'This server requires an API key. It is kept in this tab only ' +
               '(sessionStorage) and sent with every request.'),
    h('label', {class: 'field'}, h('span', {}, 'API key'), input), error,
    h('button', {type: 'submit', class: 'primary'}, 'Sign in'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const key = input.value.trim();
    if (!key) { error.textContent = 'Enter a key.'; return; }
    try {
      const me = await api.get('/me', {key});
      if (!canRead(me.role)) {
        error.textContent = WORKER_KEY_MESSAGE;
        return;
      }
      api.apiKey.set(key);
      start(me);
    } catch (err) {
      error.textContent = err.status === 401 ? 'That key was not accepted (401).'
                                             : `${err.code}: ${err.message}`;
    }
  });
  fill(main, form);
  input.focus();
}

function start(me) {
  ctx.role = me.role;
  ctx.authRequired = me.auth_required;
  ctx.canAct = me.role === 'admin';
  const role = document.getElementById('role');
  role.hidden = false;
  role.textContent = me.role;
  role.title = ctx.canAct ? 'admin: every action' : `${me.role}: read only`;
  document.getElementById('signout').hidden = !me.auth_required;
  // Pages only an admin may read (API keys) are not offered to other roles.
  for (const a of document.querySelectorAll('[data-admin-only]')) a.hidden = !ctx.canAct;
  document.getElementById('nav').hidden = false;
  show();
  startPolling();
  startLive({onEvent: onLiveEvent, onState: setLive});
}

async function boot() {
  api.setUnauthorizedHandler(() => {
    api.apiKey.clear();
    showSignIn('The server no longer accepts this key (401). Enter a key again.');
  });
  document.getElementById('signout').addEventListener('click', () => {
    api.apiKey.clear();
    document.getElementById('role').hidden = true;
    showSignIn('Signed out.');
  });
  window.addEventListener('hashchange', () => { if (ctx.role) show(); });
  try {
    const me = await api.get('/me', {key: api.apiKey.get() ?? ''});
    if (me.auth_required && !me.role) return showSignIn();
    if (!canRead(me.role)) {
      api.apiKey.clear();
      return showSignIn(WORKER_KEY_MESSAGE);
    }
    start(me);
  } catch (err) {
    if (err.status === 401) {
      api.apiKey.clear();
      return showSignIn('The saved key was not accepted (401). Enter a key again.');
    }
    fill(main, h('h1', {}, 'The server cannot be reached'));
    showError(err, 'Start');
  }
}

boot();
