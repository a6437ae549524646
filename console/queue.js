// One queue: counts, paused state (pause/resume) and its configuration
// (retries, backoff, timeout, retention), editable by an admin.
import * as api from './api.js';
import {h, fill, time} from './dom.js';
import {pauseButton} from './overview.js';
import {throughputChart} from './chart.js';
import {showNotice, busy} from './ui.js';
import {STATUSES} from './jobs.js';

// [field path, label, hint]; retention fields may be empty (= keep forever).
const FIELDS = [
  ['max_retries', 'Max retries', '0..100; a job runs at most this + 1 times'],
  ['default_timeout', 'Default timeout (s)', '1..86400, per attempt'],
  ['backoff.base_ms', 'Backoff base (ms)', 'first retry delay; doubles each retry'],
  ['backoff.max_ms', 'Backoff max (ms)', 'cap on the delay, ≥ base'],
  ['backoff.jitter_ms', 'Backoff jitter (ms)', 'random extra, 0..60000'],
  ['retention.completed_seconds', 'Keep completed (s)', 'empty = forever'],
  ['retention.deadletter_seconds', 'Keep dead (s)', 'empty = forever'],
  ['retention.cancelled_seconds', 'Keep cancelled (s)', 'empty = forever'],
];

const read = (obj, path) => path.split('.').reduce((o, k) => (o == null ? o : o[k]), obj);

export function mountQueue(main, ctx, name) {
  const path = `/queues/${api.enc(name)}`;
  let dirty = false;

  async function refresh() {
    if (dirty) return;  // never overwrite what the operator is typing
    const [q, throughput] = await Promise.all([
      api.get(path), api.get(`/throughput${api.query({queue_name: name})}`)]);
    fill(main, 
      h('p', {}, h('a', {href: '#/'}, '← Overview')),
      h('h1', {}, 'Queue ', h('span', {class: 'mono'}, q.queue_name), ' ',
        q.paused ? h('span', {class: 'badge paused'}, 'paused')
                 : h('span', {class: 'badge running'}, 'running')),
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
    FIELDS.map(([key, label, hint]) => {
      const value = read(q, key);
      inputs[key] = h('input', {name: key, type: 'number', min: '0', step: '1',
                                value: value ?? '', disabled: !ctx.canAct});
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
    const num = (k) => Number(inputs[k].value);
    const keep = (k) => (inputs[k].value === '' ? null : num(k));
    const body = {
      max_retries: num('max_retries'), default_timeout: num('default_timeout'),
      backoff: {base_ms: num('backoff.base_ms'), max_ms: num('backoff.max_ms'),
                jitter_ms: num('backoff.jitter_ms')},
      retention: {completed_seconds: keep('retention.completed_seconds'),
                  deadletter_seconds: keep('retention.deadletter_seconds'),
                  cancelled_seconds: keep('retention.cancelled_seconds')},
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
