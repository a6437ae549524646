// One queue: counts, paused state (pause/resume) and its configuration
// (retries, backoff, timeout, retention), editable by an admin.
import * as api from './api.js';
import {h, fill, time} from './dom.js';
import {pauseButton, stateBadge} from './overview.js';
import {exactDuration, parseDuration} from './durations.js';
import {throughputChart} from './chart.js';
import {showNotice, showError, busy} from './ui.js';
import {STATUSES} from './jobs.js';

// [field path, label, hint, kind]. Durations are typed as on the command
// line ("7d", "90s", "1h30m"; a bare number is seconds) and shown in the
// CLI's words; retention may be empty or "forever" (keep forever).
const FIELDS = [
  ['max_retries', 'Max retries', '0..100; a job runs at most this + 1 times', 'count'],
  ['default_timeout', 'Default timeout', 'per attempt, 1s..1d (whole seconds), e.g. 5m', 'seconds'],
  ['backoff.base_ms', 'Backoff base', 'first retry delay; doubles each retry, e.g. 1s', 'ms'],
  ['backoff.max_ms', 'Backoff max', 'cap on the delay, ≥ base, e.g. 1m', 'ms'],
  ['backoff.jitter_ms', 'Backoff jitter', 'random extra, up to 1m, e.g. 500ms', 'ms'],
  ['retention.completed_seconds', 'Keep completed', 'e.g. 7d; empty or forever = forever',
   'retention'],
  ['retention.deadletter_seconds', 'Keep dead', 'e.g. 30d; empty or forever = forever',
   'retention'],
  ['retention.cancelled_seconds', 'Keep cancelled', 'e.g. 7d; empty or forever = forever',
   'retention'],
];

// A field's stored value as the form shows it.
function shown(kind, value) {
  if (kind === 'count') return value ?? '';
  if (value === null || value === undefined) return kind === 'retention' ? 'forever' : '';
  return exactDuration(kind === 'ms' ? value : value * 1000);
}

// What the operator typed, as the API wants it: {value} or {error}.
function parsed(kind, label, text) {
  text = text.trim();
  if (kind === 'count') {
    return /^\d+$/.test(text) ? {value: Number(text)} : {error: `${label}: a whole number.`};
  }
  if (kind === 'retention' && (text === '' || text === 'forever')) return {value: null};
  const ms = parseDuration(text);
  if (ms === null) {
    return {error: `${label}: “${text}” is not a duration (e.g. 500ms, 90s, 5m, 1h30m, 7d).`};
  }
  if (kind === 'ms') return {value: ms};
  if (ms % 1000 !== 0) return {error: `${label}: whole seconds (e.g. 90s, 5m).`};
  return {value: ms / 1000};
}

const read = (obj, path) => path.split('.').reduce((o, k) => (o == null ? o : o[k]), obj);

export function mountQueue(main, ctx, name) {
  const path = `/queues/${api.enc(name)}`;
  let dirty = false;

  async function refresh() {
    if (dirty) return;  // never overwrite what the operator is typing
    const [q, throughput] = await Promise.all([
      api.get(path), api.get(`/throughput${api.query({queue_name: name})}`)]);
    if (dirty) return;  // the operator began typing while this was loading
    fill(main,
      h('p', {}, h('a', {href: '#/'}, '← Overview')),
      h('h1', {}, 'Queue ', h('span', {class: 'mono'}, q.queue_name), ' ', stateBadge(q)),
      q.paused && q.paused_reason ? h('p', {class: 'warn'}, `Paused: ${q.paused_reason}`) : null,
      ctx.canAct ? h('div', {class: 'actions'}, pauseButton(q, refresh)) : null,
      h('section', {class: 'card'}, h('h2', {}, 'Jobs'),
        h('ul', {class: 'counts'}, STATUSES.map((s) => h('li', {},
          h('a', {href: `#/jobs?queue=${api.enc(q.queue_name)}&status=${s}`},
            h('span', {class: `count status-${s}`}, String(q.counts?.[s] ?? 0)), ` ${s}`)))),
        h('p', {}, 'Oldest dead job: ', time(q.oldest_deadletter_at))),
      h('section', {class: 'card'}, h('h2', {}, 'Throughput'),
        throughputChart(throughput, `queue ${q.queue_name}`)),
      configCard(q, ctx, path, () => { dirty = true; }, async () => { dirty = false; await refresh(); }));
  }
  return {refresh};
}

function configCard(q, ctx, path, onEdit, onSaved) {
  const inputs = {};
  const form = h('form', {class: 'config', 'data-test': 'queue-config'},
    FIELDS.map(([key, label, hint, kind]) => {
      inputs[key] = h('input', {name: key, type: 'text', value: shown(kind, read(q, key)),
                                disabled: !ctx.canAct, autocomplete: 'off',
                                inputmode: kind === 'count' ? 'numeric' : null});
      return h('label', {class: 'field'}, h('span', {}, label), inputs[key],
               h('small', {class: 'muted'}, hint));
    }),
    ctx.canAct ? h('div', {class: 'actions'},
      h('button', {type: 'submit', class: 'primary', 'data-test': 'save-config'}, 'Save config'),
      h('small', {class: 'muted'},
        'New retry and timeout settings apply to jobs enqueued from now on.')) : null);
  form.addEventListener('input', onEdit);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const values = {};
    for (const [key, label, , kind] of FIELDS) {
      const r = parsed(kind, label, inputs[key].value);
      if (r.error) {
        showError({code: 'VALIDATION_ERROR', message: r.error, details: {field: key}}, 'Save config');
        inputs[key].focus();
        return;
      }
      values[key] = r.value;
    }
    const body = {
      max_retries: values.max_retries, default_timeout: values.default_timeout,
      backoff: {base_ms: values['backoff.base_ms'], max_ms: values['backoff.max_ms'],
                jitter_ms: values['backoff.jitter_ms']},
      retention: {completed_seconds: values['retention.completed_seconds'],
                  deadletter_seconds: values['retention.deadletter_seconds'],
                  cancelled_seconds: values['retention.cancelled_seconds']},
    };
    const button = form.querySelector('button[type=submit]');
    const saved = await busy(button, 'Save config', async () => {
      await api.put(`${path}/config`, body);
      showNotice(`Configuration of ${q.queue_name} saved.`);
      return true;
    });
    if (saved) await onSaved();
  });
  return h('section', {class: 'card'}, h('h2', {}, 'Configuration'), form);
}
